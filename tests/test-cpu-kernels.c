/* test-cpu-kernels.c: the CPU kernels on exact values
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Expected values and messages come from python3-torch 1.13 on the CPU,
 * except where a comment says the kernel follows PyTorch's CUDA code.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-cpu-kernels.h"
#include "ts-cpu-pool.h"

#define F32 TS_DTYPE_FLOAT32
#define F64 TS_DTYPE_FLOAT64
#define I64 TS_DTYPE_INT64
#define I32 TS_DTYPE_INT32

/* A contiguous view over @data. */
static TsView
view (TsDType       dtype,
      gpointer      data,
      guint         ndim,
      const gint64 *shape)
{
  TsView v;

  ts_view_init (&v, dtype, data, ndim, shape, NULL, 0);
  return v;
}

static TsView
view1 (TsDType  dtype,
       gpointer data,
       gint64   n)
{
  return view (dtype, data, 1, &n);
}

static TsView
view2 (TsDType  dtype,
       gpointer data,
       gint64   rows,
       gint64   cols)
{
  gint64 shape[2] = { rows, cols };

  return view (dtype, data, 2, shape);
}

static void
test_iterator (void)
{
  float buf[24];
  gint64 shape[3] = { 2, 3, 4 };
  TsView v = view (F32, buf, 3, shape);
  TsView t;
  const TsView *ops[1] = { &v };
  TsIter it;

  /* a contiguous 3-D view is one run of 24 */
  g_assert_true (ts_iter_init (&it, 3, shape, ops, 1, NULL));
  g_assert_cmpuint (it.ndim, ==, 1);
  g_assert_cmpint (it.shape[0], ==, 24);
  g_assert_cmpint (it.strides[0][0], ==, 4);

  /* a transposed one cannot be merged */
  t = v;
  ts_view_transpose (&t, 1, 2);
  ops[0] = &t;
  g_assert_true (ts_iter_init (&it, 3, t.shape, ops, 1, NULL));
  g_assert_cmpuint (it.ndim, ==, 3);
  g_assert_false (ts_view_is_contiguous (&t));
  g_assert_true (ts_view_is_contiguous (&v));

  /* linear addressing honours the strides and offset */
  t.offset = 1;
  g_assert_true (ts_view_linear_ptr (&t, 0) == (gpointer)(buf + 1));
  g_assert_true (ts_view_linear_ptr (&t, 1) == (gpointer)(buf + 1 + 4));
  g_assert_true (ts_view_linear_ptr (&t, 3) == (gpointer)(buf + 1 + 1));
}

static void
test_wrap_dim (void)
{
  g_autoptr(GError) error = NULL;
  guint d;

  g_assert_true (ts_wrap_dim (-1, 3, &d, NULL));
  g_assert_cmpuint (d, ==, 2);
  g_assert_true (ts_wrap_dim (-1, 0, &d, NULL));
  g_assert_cmpuint (d, ==, 0);
  g_assert_false (ts_wrap_dim (5, 1, &d, &error));
  g_assert_cmpstr (error->message, ==,
                   "Dimension out of range (expected to be in range of [-1, 0], but got 5)");
}

/* The dense fast path works in 16-byte vectors plus a scalar tail: every
 * element as the plain loop gives it, in place too, and an output that
 * partly overlaps an input keeps the plain loop's element order. */
static void
test_dense_vectors (void)
{
  float a[7] = { 0.1f, -2.5f, 3.25f, 1e-3f, 7.0f, -0.0f, 1e30f };
  float b[7] = { 0.3f, 0.7f, -1.5f, 3.0f, 0.0f, -0.0f, 1e30f };
  double da[5] = { 0.1, 0.2, -0.3, 1e300, 5.0 };
  double db[5] = { 0.7, 0.1, 0.3, 1e300, 0.0 };
  float out[7], buf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, ten[7] = { 10, 10, 10, 10, 10, 10, 10 };
  float chained[8] = { 1, 11, 21, 31, 41, 51, 61, 71 };
  double dout[5];
  TsView va = view1 (F32, a, 7), vb = view1 (F32, b, 7), vo = view1 (F32, out, 7);
  TsView vda = view1 (F64, da, 5), vdb = view1 (F64, db, 5), vdo = view1 (F64, dout, 5);
  TsView vlo = view1 (F32, buf, 7), vhi = view1 (F32, buf + 1, 7), vten = view1 (F32, ten, 7);

  g_assert_true (ts_cpu_binary (TS_BINARY_MUL, &va, &vb, F32, &vo, NULL));
  for (guint i = 0; i < 7; i++)
    g_assert_true (out[i] == a[i] * b[i] || (isnan (out[i]) && isnan (a[i] * b[i])));
  g_assert_true (ts_cpu_binary (TS_BINARY_DIV, &vda, &vdb, F64, &vdo, NULL));
  for (guint i = 0; i < 5; i++)
    g_assert_true (memcmp (&dout[i], &(double) { da[i] / db[i] }, sizeof (double)) == 0);

  /* in place: a -= b */
  g_assert_true (ts_cpu_binary (TS_BINARY_SUB, &va, &vb, F32, &va, NULL));
  g_assert_cmpfloat (a[0], ==, 0.1f - 0.3f);
  g_assert_cmpfloat (a[6], ==, 0.0f);

  /* buf[i + 1] = buf[i] + 10, one element after the other */
  g_assert_true (ts_cpu_binary (TS_BINARY_ADD, &vlo, &vten, F32, &vhi, NULL));
  g_assert_cmpmem (buf, sizeof buf, chained, sizeof chained);
}

/* The dense float32 unary path, relu in vectors plus a scalar tail: NaN
 * stays NaN, negatives and -inf give 0, in place too; a transposed
 * (not dense) input takes the iterator and gives the same. */
static void
test_dense_unary (void)
{
  float x[7] = { 1.5f, -2.0f, NAN, INFINITY, -INFINITY, 1e-40f, -3.0f };
  float expect[7] = { 1.5f, 0.0f, NAN, INFINITY, 0.0f, 1e-40f, 0.0f };
  float r[7], m[6] = { -1, 2, -3, 4, 5, -6 }, mt[6];
  float mt_expect[6] = { 0, 4, 2, 5, 0, 0 };
  TsView vx = view1 (F32, x, 7), vr = view1 (F32, r, 7);
  TsView vm = view2 (F32, m, 2, 3), vmt = view2 (F32, mt, 3, 2);

  g_assert_true (ts_cpu_unary (TS_UNARY_RELU, &vx, &vr, NULL));
  for (guint i = 0; i < 7; i++)
    g_assert_true (isnan (expect[i]) ? isnan (r[i]) : r[i] == expect[i]);
  g_assert_true (ts_cpu_unary (TS_UNARY_NEG, &vx, &vr, NULL));
  g_assert_cmpfloat (r[0], ==, -1.5f);
  g_assert_cmpfloat (r[6], ==, 3.0f);

  g_assert_true (ts_cpu_unary (TS_UNARY_RELU, &vx, &vx, NULL));
  g_assert_cmpfloat (x[1], ==, 0.0f);
  g_assert_true (isnan (x[2]));
  g_assert_cmpfloat (x[6], ==, 0.0f);

  /* m.t(): strides (1, 3) */
  vm.shape[0] = 3, vm.shape[1] = 2, vm.strides[0] = 1, vm.strides[1] = 3;
  g_assert_true (ts_cpu_unary (TS_UNARY_RELU, &vm, &vmt, NULL));
  g_assert_cmpmem (mt, sizeof mt, mt_expect, sizeof mt_expect);
}

static void
test_broadcast_add (void)
{
  float a[6] = { 1, 2, 3, 4, 5, 6 };
  float b[3] = { 10, 20, 30 };
  float out[6];
  float expect[6] = { 11, 22, 33, 14, 25, 36 };
  TsView va = view2 (F32, a, 2, 3), vb = view1 (F32, b, 3), vo = view2 (F32, out, 2, 3);
  g_autoptr(GError) error = NULL;
  gint64 shape[TS_MAX_DIMS];
  gint64 s1[2] = { 2, 3 }, s2[2] = { 4, 1 };
  guint ndim;

  g_assert_true (ts_cpu_binary (TS_BINARY_ADD, &va, &vb, F32, &vo, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (out, sizeof out, expect, sizeof expect);

  /* b + a is the same */
  g_assert_true (ts_cpu_binary (TS_BINARY_ADD, &vb, &va, F32, &vo, NULL));
  g_assert_cmpmem (out, sizeof out, expect, sizeof expect);

  g_assert_false (ts_broadcast_shapes (2, s1, 2, s2, &ndim, shape, &error));
  g_assert_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_SHAPE);
  g_assert_cmpstr (error->message, ==,
                   "The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 0");
  g_clear_error (&error);

  /* (3, 1) with (1, 4) -> (3, 4) */
  s1[0] = 3; s1[1] = 1; s2[0] = 1; s2[1] = 4;
  g_assert_true (ts_broadcast_shapes (2, s1, 2, s2, &ndim, shape, NULL));
  g_assert_cmpuint (ndim, ==, 2);
  g_assert_cmpint (shape[0], ==, 3);
  g_assert_cmpint (shape[1], ==, 4);
}

static void
test_promotion (void)
{
  gint32 a[2] = { 1, 2 };
  double scalar = 2.5;
  float out[2];
  guint8 u[2] = { 200, 1 };
  gint64 hundred = 100;
  guint8 uout[2];
  gint64 ints[3] = { 1, 2, 3 };
  gint64 two = 2;
  float fout[3];
  TsView va = view1 (I32, a, 2), vs, vo = view1 (F32, out, 2);
  TsDType common;

  /* int32 tensor + Python float: float32 */
  ts_view_init_scalar (&vs, F64, &scalar);
  common = ts_dtype_result_type2 (TS_OPERAND_TENSOR, I32, TS_OPERAND_SCALAR, F64);
  g_assert_cmpint (common, ==, F32);
  g_assert_true (ts_cpu_binary (TS_BINARY_ADD, &va, &vs, common, &vo, NULL));
  g_assert_cmpfloat (out[0], ==, 3.5f);
  g_assert_cmpfloat (out[1], ==, 4.5f);

  /* uint8 + Python int stays uint8 and wraps: 200 + 100 = 44 */
  {
    TsView vu = view1 (TS_DTYPE_UINT8, u, 2), vh, vuo = view1 (TS_DTYPE_UINT8, uout, 2);

    ts_view_init_scalar (&vh, I64, &hundred);
    common = ts_dtype_result_type2 (TS_OPERAND_TENSOR, TS_DTYPE_UINT8, TS_OPERAND_SCALAR, I64);
    g_assert_cmpint (common, ==, TS_DTYPE_UINT8);
    g_assert_true (ts_cpu_binary (TS_BINARY_ADD, &vu, &vh, common, &vuo, NULL));
    g_assert_cmpint (uout[0], ==, 44);
    g_assert_cmpint (uout[1], ==, 101);
    /* 1 - 100 wraps to 157 */
    g_assert_true (ts_cpu_binary (TS_BINARY_SUB, &vu, &vh, common, &vuo, NULL));
    g_assert_cmpint (uout[1], ==, 157);
  }

  /* true division of integers gives the default float dtype */
  {
    TsView vi = view1 (I64, ints, 3), vt, vf = view1 (F32, fout, 3);

    ts_view_init_scalar (&vt, I64, &two);
    g_assert_cmpint (ts_binary_result_dtype (TS_BINARY_DIV, I64), ==, F32);
    g_assert_cmpint (ts_binary_result_dtype (TS_BINARY_LT, F64), ==, TS_DTYPE_BOOL);
    g_assert_true (ts_cpu_binary (TS_BINARY_DIV, &vi, &vt, I64, &vf, NULL));
    g_assert_cmpfloat (fout[0], ==, 0.5f);
    g_assert_cmpfloat (fout[1], ==, 1.0f);
    g_assert_cmpfloat (fout[2], ==, 1.5f);
  }

  /* float16 + float16 computes in float32 and rounds once:
   * torch.tensor([0.1], dtype=torch.half) * 2 ... 0.1h + 0.2h == 0.2998046875 (bits 13516) */
  {
    guint16 h1 = ts_float_to_half (0.1f), h2 = ts_float_to_half (0.2f), ho;
    TsView v1 = view1 (TS_DTYPE_FLOAT16, &h1, 1), v2 = view1 (TS_DTYPE_FLOAT16, &h2, 1);
    TsView vho = view1 (TS_DTYPE_FLOAT16, &ho, 1);

    g_assert_true (ts_cpu_binary (TS_BINARY_ADD, &v1, &v2, TS_DTYPE_FLOAT16, &vho, NULL));
    g_assert_cmpint (ho, ==, 13516);
  }
}

static void
test_int_ops (void)
{
  gint64 a[5] = { -7, -3, 0, 3, 7 };
  gint64 b[5] = { 2, -2, 3, -3, 2 };
  gint64 out[5];
  gint64 fd[5] = { -4, 1, 0, -1, 3 };
  gint64 rem[5] = { 1, -1, 0, 0, 1 };
  gint64 base[5] = { 2, -1, -1, 3, 0 };
  gint64 expo[5] = { -1, -3, 2, 4, 0 };
  gint64 pw[5] = { 0, -1, 1, 81, 1 };
  TsView va = view1 (I64, a, 5), vb = view1 (I64, b, 5), vo = view1 (I64, out, 5);
  g_autoptr(GError) error = NULL;

  g_assert_true (ts_cpu_binary (TS_BINARY_FLOOR_DIVIDE, &va, &vb, I64, &vo, NULL));
  g_assert_cmpmem (out, sizeof out, fd, sizeof fd);
  g_assert_true (ts_cpu_binary (TS_BINARY_REMAINDER, &va, &vb, I64, &vo, NULL));
  g_assert_cmpmem (out, sizeof out, rem, sizeof rem);

  va = view1 (I64, base, 5);
  vb = view1 (I64, expo, 5);
  g_assert_true (ts_cpu_binary (TS_BINARY_POW, &va, &vb, I64, &vo, NULL));
  g_assert_cmpmem (out, sizeof out, pw, sizeof pw);

  /* division by zero writes nothing */
  memset (out, 0x55, sizeof out);
  vb = view1 (I64, base, 5);  /* has a 0 */
  g_assert_false (ts_cpu_binary (TS_BINARY_FLOOR_DIVIDE, &va, &vb, I64, &vo, &error));
  g_assert_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_ZERO_DIVISION);
  g_assert_cmpstr (error->message, ==, "ZeroDivisionError");
  g_assert_cmpint (out[0], ==, 0x5555555555555555);
}

/* int8 and int16 follow C++ arithmetic on int8_t/int16_t: computed wider
 * and wrapped on store, operands first cast to the common dtype. Values
 * from python3-torch 1.13 (e.g. torch.tensor([127], dtype=torch.int8) + 1
 * == -128). */
static void
test_int8_int16 (void)
{
  gint8 a[5] = { 127, -128, 100, -7, 7 };
  gint8 b[5] = { 1, -1, 3, 2, -2 };
  gint8 o[5];
  TsView va = view1 (TS_DTYPE_INT8, a, 5), vb = view1 (TS_DTYPE_INT8, b, 5);
  TsView vo = view1 (TS_DTYPE_INT8, o, 5);
  static const struct { TsBinaryOp op; gint8 expect[5]; } cases[] = {
    { TS_BINARY_ADD, { -128, 127, 103, -5, 5 } },
    { TS_BINARY_SUB, { 126, -127, 97, -9, 9 } },
    { TS_BINARY_MUL, { 127, -128, 44, -14, -14 } },
    { TS_BINARY_FLOOR_DIVIDE, { 127, -128, 33, -4, -4 } },
    { TS_BINARY_REMAINDER, { 0, 0, 1, 1, -1 } },
  };
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("int8 %s", ts_binary_op_name (cases[i].op));
      g_assert_true (ts_cpu_binary (cases[i].op, &va, &vb, TS_DTYPE_INT8, &vo, NULL));
      g_assert_cmpmem (o, sizeof o, cases[i].expect, sizeof o);
    }

  /* neg and abs of -128 stay -128 */
  g_assert_true (ts_cpu_unary (TS_UNARY_NEG, &va, &vo, NULL));
  g_assert_cmpmem (o, sizeof o, ((gint8[]){ -127, -128, -100, 7, -7 }), sizeof o);
  g_assert_true (ts_cpu_unary (TS_UNARY_ABS, &va, &vo, NULL));
  g_assert_cmpmem (o, sizeof o, ((gint8[]){ 127, -128, 100, 7, 7 }), sizeof o);

  /* a uint8 0-dim 200 is cast to int8 (-56) before comparing and maximum:
   * torch.maximum(a, torch.tensor(200, dtype=torch.uint8)) */
  {
    guint8 u = 200;
    guint8 lt[5];
    TsView vu, vlt = view1 (TS_DTYPE_BOOL, lt, 5);
    TsDType common;

    ts_view_init_scalar (&vu, TS_DTYPE_UINT8, &u);
    common = ts_dtype_result_type2 (TS_OPERAND_TENSOR, TS_DTYPE_INT8, TS_OPERAND_ZERO_DIM,
                                    TS_DTYPE_UINT8);
    g_assert_cmpint (common, ==, TS_DTYPE_INT8);
    g_assert_true (ts_cpu_binary (TS_BINARY_LT, &va, &vu, common, &vlt, NULL));
    g_assert_cmpmem (lt, sizeof lt, ((guint8[]){ 0, 1, 0, 0, 0 }), sizeof lt);
    g_assert_true (ts_cpu_binary (TS_BINARY_MAXIMUM, &va, &vu, common, &vo, NULL));
    g_assert_cmpmem (o, sizeof o, ((gint8[]){ 127, -56, 100, -7, 7 }), sizeof o);
  }

  /* uint8 + int8 meets at int16: [200, 1] + [100, -2] == [300, -1] */
  {
    guint8 u[2] = { 200, 1 };
    gint8 s[2] = { 100, -2 };
    gint16 r[2];
    TsView vu = view1 (TS_DTYPE_UINT8, u, 2), vs = view1 (TS_DTYPE_INT8, s, 2);
    TsView vr = view1 (TS_DTYPE_INT16, r, 2);
    TsDType common = ts_dtype_promote (TS_DTYPE_UINT8, TS_DTYPE_INT8);

    g_assert_cmpint (common, ==, TS_DTYPE_INT16);
    g_assert_true (ts_cpu_binary (TS_BINARY_ADD, &vu, &vs, common, &vr, NULL));
    g_assert_cmpint (r[0], ==, 300);
    g_assert_cmpint (r[1], ==, -1);
  }

  /* int16 wraps at 2^16 */
  {
    gint16 x[3] = { 32767, -32768, 300 };
    gint16 y[3] = { 2, 3, 300 };
    gint16 r[3];
    TsView vx = view1 (TS_DTYPE_INT16, x, 3), vy = view1 (TS_DTYPE_INT16, y, 3);
    TsView vr = view1 (TS_DTYPE_INT16, r, 3);

    g_assert_true (ts_cpu_binary (TS_BINARY_MUL, &vx, &vy, TS_DTYPE_INT16, &vr, NULL));
    g_assert_cmpmem (r, sizeof r, ((gint16[]){ -2, -32768, 24464 }), sizeof r);
    g_assert_true (ts_cpu_binary (TS_BINARY_ADD, &vx, &vx, TS_DTYPE_INT16, &vr, NULL));
    g_assert_cmpmem (r, sizeof r, ((gint16[]){ -2, 0, 600 }), sizeof r);
  }

  /* sum and prod of int8/int16 give int64, without wrapping */
  {
    gint16 x[3] = { 30000, 30000, -32768 };
    gint64 sum;
    TsDType dt;
    TsView vs = view (I64, &sum, 0, NULL), vx = view1 (TS_DTYPE_INT16, x, 3);

    g_assert_true (ts_reduce_result_dtype (TS_REDUCE_SUM, TS_DTYPE_INT8, &dt, NULL));
    g_assert_cmpint (dt, ==, I64);
    g_assert_true (ts_reduce_result_dtype (TS_REDUCE_SUM, TS_DTYPE_INT16, &dt, NULL));
    g_assert_cmpint (dt, ==, I64);
    g_assert_true (ts_cpu_reduce (TS_REDUCE_SUM, &va, 0, &vs, NULL));
    g_assert_cmpint (sum, ==, 99);
    g_assert_true (ts_cpu_reduce (TS_REDUCE_PROD, &va, 0, &vs, NULL));
    g_assert_cmpint (sum, ==, 79654400);
    g_assert_true (ts_cpu_reduce (TS_REDUCE_SUM, &vx, 0, &vs, NULL));
    g_assert_cmpint (sum, ==, 27232);
    g_assert_false (ts_reduce_result_dtype (TS_REDUCE_MEAN, TS_DTYPE_INT8, &dt, &error));
    g_assert_cmpstr (error->message, ==, "mean(): could not infer output dtype. Input dtype "
                     "must be either a floating point or complex dtype. Got: Char");
    g_clear_error (&error);
  }

  /* the matmul loop path wraps each output: [[100, 50], [-100, 3]] @ itself */
  {
    gint8 x[4] = { 100, 50, -100, 3 };
    gint8 r[4];
    TsView vx = view2 (TS_DTYPE_INT8, x, 2, 2), vr = view2 (TS_DTYPE_INT8, r, 2, 2);

    g_assert_true (ts_cpu_mm (&vx, &vx, &vr, NULL));
    g_assert_cmpmem (r, sizeof r, ((gint8[]){ -120, 30, -60, -127 }), sizeof r);
  }

  /* fill and copy convert with wrap-around; floats truncate first */
  {
    float f[3] = { 300.7f, -1.5f, 200.0f };
    gint8 r[3];
    gint16 w[3];
    TsView vf = view1 (F32, f, 3), vr = view1 (TS_DTYPE_INT8, r, 3);
    TsView vw = view1 (TS_DTYPE_INT16, w, 3);

    g_assert_true (ts_cpu_copy (&vr, &vf, NULL));
    g_assert_cmpmem (r, sizeof r, ((gint8[]){ 44, -1, -56 }), sizeof r);
    g_assert_true (ts_cpu_copy (&vw, &vr, NULL));
    g_assert_cmpmem (w, sizeof w, ((gint16[]){ 44, -1, -56 }), sizeof w);
    ts_cpu_fill_int (&vr, 129);
    g_assert_cmpmem (r, sizeof r, ((gint8[]){ -127, -127, -127 }), sizeof r);
    ts_cpu_fill (&vw, 40000.0);
    g_assert_cmpmem (w, sizeof w, ((gint16[]){ -25536, -25536, -25536 }), sizeof w);
  }
}

static void
test_float_ops (void)
{
  float x[5] = { -7.5f, -3.f, 0.f, 3.f, 7.5f };
  float y[5] = { 2.f, -2.f, 3.f, -0.7f, 2.f };
  float out[5];
  float fd[5] = { -4.f, 1.f, 0.f, -5.f, 3.f };
  float rem[5] = { 0.5f, -1.f, 0.f, -0.4999999403953552f, 1.5f };
  float n1[3] = { 1.f, NAN, -2.f };
  float n2[3] = { 2.f, 0.f, -3.f };
  TsView vx = view1 (F32, x, 5), vy = view1 (F32, y, 5), vo = view1 (F32, out, 5);

  g_assert_true (ts_cpu_binary (TS_BINARY_FLOOR_DIVIDE, &vx, &vy, F32, &vo, NULL));
  g_assert_cmpmem (out, sizeof out, fd, sizeof fd);
  g_assert_true (ts_cpu_binary (TS_BINARY_REMAINDER, &vx, &vy, F32, &vo, NULL));
  g_assert_cmpmem (out, sizeof out, rem, sizeof rem);

  /* maximum/minimum propagate NaN */
  vx = view1 (F32, n1, 3);
  vy = view1 (F32, n2, 3);
  vo = view1 (F32, out, 3);
  g_assert_true (ts_cpu_binary (TS_BINARY_MAXIMUM, &vx, &vy, F32, &vo, NULL));
  g_assert_cmpfloat (out[0], ==, 2.f);
  g_assert_true (isnan (out[1]));
  g_assert_cmpfloat (out[2], ==, -2.f);
  g_assert_true (ts_cpu_binary (TS_BINARY_MINIMUM, &vx, &vy, F32, &vo, NULL));
  g_assert_cmpfloat (out[2], ==, -3.f);

  /* x / 0 is IEEE */
  g_assert_true (ts_cpu_binary (TS_BINARY_DIV, &vy, &vx, F32, &vo, NULL));
  g_assert_cmpfloat (out[0], ==, 2.f);
  g_assert_true (isnan (out[1]));
}

static void
test_compare_logical (void)
{
  gint64 a[4] = { 1, 2, 3, 4 };
  double s = 2.5;
  guint8 out[4];
  float f[4] = { 0.f, 0.5f, NAN, -1.f };
  guint8 m[4] = { 1, 1, 0, 0 };
  TsView va = view1 (I64, a, 4), vs, vo = view1 (TS_DTYPE_BOOL, out, 4);
  TsDType common;

  ts_view_init_scalar (&vs, F64, &s);
  common = ts_dtype_result_type2 (TS_OPERAND_TENSOR, I64, TS_OPERAND_SCALAR, F64);
  g_assert_true (ts_cpu_binary (TS_BINARY_LT, &va, &vs, common, &vo, NULL));
  g_assert_cmpmem (out, 4, ((guint8[]){ 1, 1, 0, 0 }), 4);
  g_assert_true (ts_cpu_binary (TS_BINARY_GE, &va, &vs, common, &vo, NULL));
  g_assert_cmpmem (out, 4, ((guint8[]){ 0, 0, 1, 1 }), 4);
  g_assert_true (ts_cpu_binary (TS_BINARY_NE, &va, &va, I64, &vo, NULL));
  g_assert_cmpmem (out, 4, ((guint8[]){ 0, 0, 0, 0 }), 4);

  /* logical ops take truthiness of any dtype; NaN is true */
  {
    TsView vf = view1 (F32, f, 4), vm = view1 (TS_DTYPE_BOOL, m, 4);

    g_assert_true (ts_cpu_binary (TS_BINARY_LOGICAL_AND, &vf, &vm, F32, &vo, NULL));
    g_assert_cmpmem (out, 4, ((guint8[]){ 0, 1, 0, 0 }), 4);
    g_assert_true (ts_cpu_binary (TS_BINARY_LOGICAL_OR, &vf, &vm, F32, &vo, NULL));
    g_assert_cmpmem (out, 4, ((guint8[]){ 1, 1, 1, 1 }), 4);
  }

  /* bool - bool is refused */
  {
    g_autoptr(GError) error = NULL;

    vs = view1 (TS_DTYPE_BOOL, m, 4);
    g_assert_false (ts_cpu_binary (TS_BINARY_SUB, &vs, &vs, TS_DTYPE_BOOL, &vo, &error));
    g_assert_cmpstr (error->message, ==,
                     "Subtraction, the `-` operator, with two bool tensors is not supported. "
                     "Use the `^` or `logical_xor()` operator instead.");
  }
}

/* A transposed input and a transposed output. */
static void
test_strided_views (void)
{
  double a[6] = { 1, 2, 3, 4, 5, 6 };        /* 2 x 3 */
  double b[6] = { 10, 20, 30, 40, 50, 60 };  /* 3 x 2, used as b.T (2 x 3) */
  double out[6];
  double expect[6] = { 11, 32, 53, 24, 45, 66 };
  TsView va = view2 (F64, a, 2, 3), vb = view2 (F64, b, 3, 2), vo = view2 (F64, out, 2, 3);
  TsView vot;

  ts_view_transpose (&vb, 0, 1);
  g_assert_true (ts_cpu_binary (TS_BINARY_ADD, &va, &vb, F64, &vo, NULL));
  g_assert_cmpmem (out, sizeof out, expect, sizeof expect);

  /* out.T (3 x 2 buffer seen as 2 x 3) = a + b.T */
  vot = view2 (F64, out, 3, 2);
  ts_view_transpose (&vot, 0, 1);
  g_assert_true (ts_cpu_binary (TS_BINARY_ADD, &va, &vb, F64, &vot, NULL));
  g_assert_cmpmem (out, sizeof out, ((double[]){ 11, 24, 32, 45, 53, 66 }), sizeof out);

  /* every other element, with a storage offset: a[1::2] * 2 */
  {
    gint64 shape = 3, stride = 2;
    double two = 2;
    double o3[3];
    TsView vs, vt, vo3 = view1 (F64, o3, 3);

    ts_view_init (&vs, F64, a, 1, &shape, &stride, 1);
    ts_view_init_scalar (&vt, F64, &two);
    g_assert_true (ts_cpu_binary (TS_BINARY_MUL, &vs, &vt, F64, &vo3, NULL));
    g_assert_cmpmem (o3, sizeof o3, ((double[]){ 4, 8, 12 }), sizeof o3);
  }
}

/* The float32 runs that skip the copy into buffers (a dense float32
 * operand or output is used in place) give the buffered path's values:
 * an optimizer's in-place multiply by a Python number over more than two
 * runs, a sum with an int32 operand (converted in buffers), relu with NaN
 * and -0, sqrt, and relu's backward (threshold_backward). */
static void
test_dense_runs (void)
{
  enum { N = 600 };
  float x[N], y[N], g[N], out[N];
  gint32 k[N];
  double factor = 0.9;
  TsAct threshold = { 0 };
  TsView vx = view1 (F32, x, N), vy = view1 (F32, y, N), vg = view1 (F32, g, N);
  TsView vout = view1 (F32, out, N), vk = view1 (I32, k, N), vs;

  for (int i = 0; i < N; i++)
    {
      x[i] = (float) (i - 300) / 7.0f;
      k[i] = i * 3 - 900;
      g[i] = (float) i / 3.0f;
    }
  x[5] = NAN;
  x[6] = -0.0f;

  ts_view_init_scalar (&vs, F64, &factor);
  memcpy (y, x, sizeof x);
  g_assert_true (ts_cpu_binary (TS_BINARY_MUL, &vy, &vs, F32, &vy, NULL));
  for (int i = 0; i < N; i++)
    if (i != 5)
      g_assert_cmpfloat (y[i], ==, x[i] * 0.9f);
  g_assert_true (isnan (y[5]));

  g_assert_true (ts_cpu_binary (TS_BINARY_ADD, &vx, &vk, F32, &vout, NULL));
  for (int i = 0; i < N; i++)
    if (i != 5)
      g_assert_cmpfloat (out[i], ==, x[i] + (float) k[i]);

  g_assert_true (ts_cpu_unary (TS_UNARY_RELU, &vx, &vout, NULL));
  g_assert_true (isnan (out[5]));
  /* PyTorch's max (0, x) keeps -0.0 (python3-torch: relu(-0.0) is -0.0) */
  g_assert_cmpfloat (out[6], ==, 0.0f);
  g_assert_true (signbit (out[6]));
  for (int i = 0; i < N; i++)
    if (i != 5)
      g_assert_cmpfloat (out[i], ==, x[i] > 0 ? x[i] : 0.0f);

  /* sqrt (Adam's): NaN below zero, -0 stays -0 */
  g_assert_true (ts_cpu_unary (TS_UNARY_SQRT, &vx, &vout, NULL));
  g_assert_true (signbit (out[6]) && out[6] == 0.0f);
  for (int i = 0; i < N; i++)
    if (x[i] < 0 || i == 5)
      g_assert_true (isnan (out[i]));
    else
      g_assert_cmpfloat (out[i], ==, sqrtf (x[i]));

  g_assert_true (ts_cpu_activation (TS_ACT_THRESHOLD | TS_ACT_BACKWARD, &threshold, &vx, &vg, NULL,
                                    &vout, NULL));
  for (int i = 0; i < N; i++)
    g_assert_cmpfloat (out[i], ==, x[i] <= 0 ? 0.0f : g[i]);
  /* NaN is not <= 0: its gradient goes through, as PyTorch's */
  g_assert_cmpfloat (out[5], ==, g[5]);
}

static void
test_unary (void)
{
  double x[3] = { 0.0, 1.0, -2.0 };
  double out[3];
  gint64 i[2] = { 4, -9 };
  float fo[2];
  float r[3] = { -1.f, NAN, 2.f };
  float ro[3];
  guint8 bools[1] = { 1 };
  guint8 bo[1];
  TsView vx = view1 (F64, x, 3), vo = view1 (F64, out, 3);
  g_autoptr(GError) error = NULL;

  g_assert_true (ts_cpu_unary (TS_UNARY_SIGMOID, &vx, &vo, NULL));
  g_assert_cmpfloat (out[0], ==, 0.5);
  g_assert_cmpfloat (out[1], ==, 0.7310585786300049);
  g_assert_cmpfloat (out[2], ==, 0.11920292202211755);
  g_assert_true (ts_cpu_unary (TS_UNARY_EXP, &vx, &vo, NULL));
  g_assert_cmpfloat (out[1], ==, exp (1.0));
  g_assert_true (ts_cpu_unary (TS_UNARY_ABS, &vx, &vo, NULL));
  g_assert_cmpfloat (out[2], ==, 2.0);
  g_assert_true (ts_cpu_unary (TS_UNARY_RECIPROCAL, &vx, &vo, NULL));
  g_assert_true (isinf (out[0]));
  g_assert_cmpfloat (out[2], ==, -0.5);

  /* sqrt of int64 gives float32: tensor([2., nan]) */
  {
    TsView vi = view1 (I64, i, 2), vf = view1 (F32, fo, 2);

    g_assert_cmpint (ts_unary_result_dtype (TS_UNARY_SQRT, I64), ==, F32);
    g_assert_cmpint (ts_unary_result_dtype (TS_UNARY_NEG, I64), ==, I64);
    g_assert_true (ts_cpu_unary (TS_UNARY_SQRT, &vi, &vf, NULL));
    g_assert_cmpfloat (fo[0], ==, 2.f);
    g_assert_true (isnan (fo[1]));
    g_assert_true (ts_cpu_unary (TS_UNARY_NEG, &vi, &vi, NULL));  /* in place */
    g_assert_cmpint (i[0], ==, -4);
    g_assert_cmpint (i[1], ==, 9);
  }

  /* relu keeps NaN */
  {
    TsView vr = view1 (F32, r, 3), vro = view1 (F32, ro, 3);

    g_assert_true (ts_cpu_unary (TS_UNARY_RELU, &vr, &vro, NULL));
    g_assert_cmpfloat (ro[0], ==, 0.f);
    g_assert_true (isnan (ro[1]));
    g_assert_cmpfloat (ro[2], ==, 2.f);
  }

  {
    TsView vb = view1 (TS_DTYPE_BOOL, bools, 1), vbo = view1 (TS_DTYPE_BOOL, bo, 1);

    g_assert_false (ts_cpu_unary (TS_UNARY_NEG, &vb, &vbo, &error));
    g_assert_true (g_str_has_prefix (error->message, "Negation, the `-` operator, on a bool tensor"));
  }
}

static void
test_fill_copy (void)
{
  float f[4] = { 1.7f, -1.7f, 300.f, 0.f };
  gint32 i[4];
  guint8 b[4];
  double d[6];
  float row[3] = { 1, 2, 3 };
  TsView vf = view1 (F32, f, 4), vi = view1 (I32, i, 4), vb = view1 (TS_DTYPE_BOOL, b, 4);
  TsView vd = view2 (F64, d, 2, 3), vrow = view1 (F32, row, 3);
  g_autoptr(GError) error = NULL;

  /* float -> int truncates; anything -> bool is != 0 */
  g_assert_true (ts_cpu_copy (&vi, &vf, NULL));
  g_assert_cmpmem (i, sizeof i, ((gint32[]){ 1, -1, 300, 0 }), sizeof i);
  g_assert_true (ts_cpu_copy (&vb, &vf, NULL));
  g_assert_cmpmem (b, sizeof b, ((guint8[]){ 1, 1, 1, 0 }), sizeof b);

  /* copy_ broadcasts the source */
  g_assert_true (ts_cpu_copy (&vd, &vrow, NULL));
  g_assert_cmpmem (d, sizeof d, ((double[]){ 1, 2, 3, 1, 2, 3 }), sizeof d);

  /* into a transposed destination */
  {
    TsView vdt = view2 (F64, d, 3, 2);
    float src[6] = { 1, 2, 3, 4, 5, 6 };
    TsView vs = view2 (F32, src, 2, 3);

    ts_view_transpose (&vdt, 0, 1);
    g_assert_true (ts_cpu_copy (&vdt, &vs, NULL));
    g_assert_cmpmem (d, sizeof d, ((double[]){ 1, 4, 2, 5, 3, 6 }), sizeof d);
  }

  g_assert_false (ts_cpu_copy (&vrow, &vd, &error));
  g_assert_cmpstr (error->message, ==, "output with shape [3] doesn't match the broadcast shape [2, 3]");

  ts_cpu_fill (&vd, 0.25);
  g_assert_cmpfloat (d[5], ==, 0.25);
  ts_cpu_fill_int (&vi, -3);
  g_assert_cmpint (i[3], ==, -3);
  ts_cpu_fill (&vb, 0.0);
  g_assert_cmpint (b[2], ==, 0);
}

static void
test_ranges (void)
{
  gint64 n = 0;
  float f[10];
  float lin[7];
  gint64 ints[5];
  g_autoptr(GError) error = NULL;
  TsView v;

  g_assert_true (ts_arange_numel (0, 1, 0.1, &n, NULL));
  g_assert_cmpint (n, ==, 10);
  v = view1 (F32, f, 10);
  ts_cpu_arange (&v, 0, 0.1);
  g_assert_cmpfloat (f[1], ==, 0.10000000149011612f);
  g_assert_cmpfloat (f[3], ==, 0.30000001192092896f);
  /* float accumulation as on CUDA: 9 * 0.1f rounds up; PyTorch's CPU
   * kernel accumulates in double and gets 0.8999999761581421 */
  g_assert_cmpfloat (f[9], ==, 0.9000000357627869f);

  g_assert_false (ts_arange_numel (0, 1, 0, &n, &error));
  g_assert_cmpstr (error->message, ==, "step must be nonzero");
  g_clear_error (&error);
  g_assert_false (ts_arange_numel (1, 0, 1, &n, &error));
  g_assert_cmpstr (error->message, ==, "upper bound and larger bound inconsistent with step sign");

  v = view1 (I64, ints, 5);
  ts_cpu_arange (&v, 3, -2);
  g_assert_cmpmem (ints, sizeof ints, ((gint64[]){ 3, 1, -1, -3, -5 }), sizeof ints);

  v = view1 (F32, f, 5);
  ts_cpu_linspace (&v, 0, 1);
  g_assert_cmpmem (f, 5 * sizeof (float), ((float[]){ 0, 0.25f, 0.5f, 0.75f, 1 }), 5 * sizeof (float));

  /* linspace(-1, 1, 7): both ends exact. The middle element is 0 with the
   * CUDA kernel's formula that we follow (1 - 3 * step); PyTorch's
   * vectorised CPU path gives -2.98e-08 there. */
  v = view1 (F32, lin, 7);
  ts_cpu_linspace (&v, -1, 1);
  g_assert_cmpfloat (lin[0], ==, -1.f);
  g_assert_cmpfloat (lin[1], ==, -0.6666666269302368f);
  g_assert_cmpfloat (lin[3], ==, 0.f);
  g_assert_cmpfloat (lin[5], ==, 0.6666666269302368f);
  g_assert_cmpfloat (lin[6], ==, 1.f);
}

static void
test_reductions (void)
{
  float a[6] = { 1, 2, 3, 4, 5, 6 };   /* 2 x 3 */
  float out[3];
  gint64 shape[TS_MAX_DIMS];
  guint ndim;
  TsView va = view2 (F32, a, 2, 3), vo;
  TsDType dt;
  g_autoptr(GError) error = NULL;

  ts_reduce_shape (&va, 1 << 0, FALSE, &ndim, shape);
  g_assert_cmpuint (ndim, ==, 1);
  g_assert_cmpint (shape[0], ==, 3);
  ts_reduce_shape (&va, 1 << 1, TRUE, &ndim, shape);
  g_assert_cmpuint (ndim, ==, 2);
  g_assert_cmpint (shape[0], ==, 2);
  g_assert_cmpint (shape[1], ==, 1);
  ts_reduce_shape (&va, 0, FALSE, &ndim, shape);
  g_assert_cmpuint (ndim, ==, 0);

  vo = view1 (F32, out, 3);
  g_assert_true (ts_cpu_reduce (TS_REDUCE_SUM, &va, 1 << 0, &vo, NULL));
  g_assert_cmpmem (out, sizeof out, ((float[]){ 5, 7, 9 }), sizeof out);
  vo = view2 (F32, out, 2, 1);   /* keepdim */
  g_assert_true (ts_cpu_reduce (TS_REDUCE_MEAN, &va, 1 << 1, &vo, NULL));
  g_assert_cmpfloat (out[0], ==, 2.f);
  g_assert_cmpfloat (out[1], ==, 5.f);
  vo = view (F32, out, 0, NULL);
  g_assert_true (ts_cpu_reduce (TS_REDUCE_PROD, &va, 0, &vo, NULL));
  g_assert_cmpfloat (out[0], ==, 720.f);
  g_assert_true (ts_cpu_reduce (TS_REDUCE_AMAX, &va, 0, &vo, NULL));
  g_assert_cmpfloat (out[0], ==, 6.f);
  g_assert_true (ts_cpu_reduce (TS_REDUCE_AMIN, &va, (1 << 0) | (1 << 1), &vo, NULL));
  g_assert_cmpfloat (out[0], ==, 1.f);

  /* reducing a transposed view along its dim 1 */
  {
    TsView vt = va;

    ts_view_transpose (&vt, 0, 1);   /* 3 x 2 */
    vo = view1 (F32, out, 3);
    g_assert_true (ts_cpu_reduce (TS_REDUCE_SUM, &vt, 1 << 1, &vo, NULL));
    g_assert_cmpmem (out, sizeof out, ((float[]){ 5, 7, 9 }), sizeof out);
  }

  /* sum of bool and int32 gives int64 */
  {
    guint8 b[3] = { 1, 0, 1 };
    gint32 i[3] = { 2000000000, 2000000000, 1 };
    gint64 s;
    TsView vb = view1 (TS_DTYPE_BOOL, b, 3), vi = view1 (I32, i, 3), vs = view (I64, &s, 0, NULL);

    g_assert_true (ts_reduce_result_dtype (TS_REDUCE_SUM, TS_DTYPE_BOOL, &dt, NULL));
    g_assert_cmpint (dt, ==, I64);
    g_assert_true (ts_reduce_result_dtype (TS_REDUCE_PROD, TS_DTYPE_UINT8, &dt, NULL));
    g_assert_cmpint (dt, ==, I64);
    g_assert_true (ts_cpu_reduce (TS_REDUCE_SUM, &vb, 0, &vs, NULL));
    g_assert_cmpint (s, ==, 2);
    g_assert_true (ts_cpu_reduce (TS_REDUCE_SUM, &vi, 0, &vs, NULL));
    g_assert_cmpint (s, ==, G_GINT64_CONSTANT (4000000001));
  }

  /* float16: 4096 ones sum to 4096 (a float16 accumulator stops at 2048) */
  {
    guint16 h[4096];
    guint16 hs;
    TsView vh = view1 (TS_DTYPE_FLOAT16, h, 4096), vhs = view (TS_DTYPE_FLOAT16, &hs, 0, NULL);

    for (int k = 0; k < 4096; k++)
      h[k] = ts_float_to_half (1.0f);
    g_assert_true (ts_cpu_reduce (TS_REDUCE_SUM, &vh, 0, &vhs, NULL));
    g_assert_cmpfloat (ts_half_to_float (hs), ==, 4096.f);
  }

  g_assert_false (ts_reduce_result_dtype (TS_REDUCE_MEAN, I64, &dt, &error));
  g_assert_cmpstr (error->message, ==,
                   "mean(): could not infer output dtype. Input dtype must be either a floating "
                   "point or complex dtype. Got: Long");
  g_clear_error (&error);

  /* empty inputs: sum is 0, max needs a dim */
  {
    gint64 eshape[2] = { 0, 3 };
    TsView ve = view (F32, a, 2, eshape);

    vo = view (F32, out, 0, NULL);
    g_assert_true (ts_cpu_reduce (TS_REDUCE_SUM, &ve, 0, &vo, NULL));
    g_assert_cmpfloat (out[0], ==, 0.f);
    g_assert_false (ts_cpu_reduce (TS_REDUCE_AMAX, &ve, 0, &vo, &error));
    g_assert_cmpstr (error->message, ==,
                     "max(): Expected reduction dim to be specified for input.numel() == 0. "
                     "Specify the reduction dim with the 'dim' argument.");
    g_clear_error (&error);
    vo = view1 (F32, out, 3);
    g_assert_false (ts_cpu_reduce (TS_REDUCE_AMAX, &ve, 1 << 0, &vo, &error));
    g_assert_cmpstr (error->message, ==, "amax(): Expected reduction dim 0 to have non-zero size.");
    g_clear_error (&error);
    /* amax over the non-empty dim is fine: an empty result */
    vo = view1 (F32, out, 0);
    g_assert_true (ts_cpu_reduce (TS_REDUCE_AMAX, &ve, 1 << 1, &vo, NULL));
  }
}

static void
test_max_dim (void)
{
  /* [[1, 5, 5], [nan, 2, nan]]: max -> (5, nan), indices (1, 0);
   * min -> (1, nan), indices (0, 0) */
  float a[6] = { 1, 5, 5, NAN, 2, NAN };
  float values[2];
  gint64 indices[2];
  gint32 ia[6] = { 3, 9, 9, -1, -5, -5 };
  gint32 ivalues[3];
  gint64 iindices[3];
  TsView va = view2 (F32, a, 2, 3), vv = view1 (F32, values, 2), vi = view1 (I64, indices, 2);
  g_autoptr(GError) error = NULL;

  g_assert_true (ts_cpu_max_dim (&va, 1, FALSE, &vv, &vi, NULL));
  g_assert_cmpfloat (values[0], ==, 5.f);
  g_assert_true (isnan (values[1]));
  g_assert_cmpint (indices[0], ==, 1);
  g_assert_cmpint (indices[1], ==, 0);
  g_assert_true (ts_cpu_max_dim (&va, 1, TRUE, &vv, &vi, NULL));
  g_assert_cmpfloat (values[0], ==, 1.f);
  g_assert_cmpint (indices[0], ==, 0);
  g_assert_cmpint (indices[1], ==, 0);

  /* along dim 0 with keepdim-shaped outputs (1 x 3) */
  {
    TsView vib = view2 (I32, ia, 2, 3), vvo = view2 (I32, ivalues, 1, 3), vio = view2 (I64, iindices, 1, 3);

    g_assert_true (ts_cpu_max_dim (&vib, 0, TRUE, &vvo, &vio, NULL));
    g_assert_cmpmem (ivalues, sizeof ivalues, ((gint32[]){ -1, -5, -5 }), sizeof ivalues);
    g_assert_cmpmem (iindices, sizeof iindices, ((gint64[]){ 1, 1, 1 }), sizeof iindices);
  }

  {
    gint64 eshape[2] = { 0, 3 };
    TsView ve = view (F32, a, 2, eshape), vv3 = view1 (F32, values, 0);

    g_assert_false (ts_cpu_max_dim (&ve, 0, FALSE, &vv3, &vi, &error));
    g_assert_cmpstr (error->message, ==, "max(): Expected reduction dim 0 to have non-zero size.");
  }
}

/* a @ b by the definition, in double. */
static void
naive_mm (const double *a,
          const double *b,
          double       *c,
          int           m,
          int           k,
          int           n)
{
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      {
        double s = 0;

        for (int p = 0; p < k; p++)
          s += a[i * k + p] * b[p * n + j];
        c[i * n + j] = s;
      }
}

static void
test_mm (void)
{
  enum { M = 17, K = 23, N = 19 };
  double a[M * K], b[K * N], c[M * N], ref[M * N];
  double at[K * M], bt[N * K];
  float af[M * K], bf[K * N], cf[M * N];
  TsView va, vb, vc;
  g_autoptr(GError) error = NULL;

  /* small integers: every product and sum is exact in any order */
  for (int i = 0; i < M * K; i++)
    af[i] = (float)(a[i] = (i * 7) % 11 - 5);
  for (int i = 0; i < K * N; i++)
    bf[i] = (float)(b[i] = (i * 5) % 13 - 6);
  for (int i = 0; i < M; i++)
    for (int p = 0; p < K; p++)
      at[p * M + i] = a[i * K + p];
  for (int p = 0; p < K; p++)
    for (int j = 0; j < N; j++)
      bt[j * K + p] = b[p * N + j];
  naive_mm (a, b, ref, M, K, N);

  va = view2 (F64, a, M, K);
  vb = view2 (F64, b, K, N);
  vc = view2 (F64, c, M, N);
  g_assert_true (ts_cpu_mm (&va, &vb, &vc, NULL));
  g_assert_cmpmem (c, sizeof c, ref, sizeof ref);

  /* transposed operands go to BLAS as they are */
  va = view2 (F64, at, K, M);
  ts_view_transpose (&va, 0, 1);
  vb = view2 (F64, bt, N, K);
  ts_view_transpose (&vb, 0, 1);
  memset (c, 0, sizeof c);
  g_assert_true (ts_cpu_mm (&va, &vb, &vc, NULL));
  g_assert_cmpmem (c, sizeof c, ref, sizeof ref);

  /* float32, into a transposed output */
  {
    float ct[N * M];
    TsView vaf = view2 (F32, af, M, K), vbf = view2 (F32, bf, K, N), vct = view2 (F32, ct, N, M);

    ts_view_transpose (&vct, 0, 1);
    g_assert_true (ts_cpu_mm (&vaf, &vbf, &vct, NULL));
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++)
        g_assert_cmpfloat (ct[j * M + i], ==, (float)ref[i * N + j]);
    vc = view2 (F32, cf, M, N);
    g_assert_true (ts_cpu_mm (&vaf, &vbf, &vc, NULL));
    for (int i = 0; i < M * N; i++)
      g_assert_cmpfloat (cf[i], ==, (float)ref[i]);
  }

  /* an operand BLAS cannot take (column stride 2) is packed first */
  {
    double wide[M * K * 2];
    gint64 shape[2] = { M, K }, strides[2] = { 2 * K, 2 };

    for (int i = 0; i < M * K; i++)
      wide[2 * i] = a[i];
    ts_view_init (&va, F64, wide, 2, shape, strides, 0);
    vb = view2 (F64, b, K, N);
    vc = view2 (F64, c, M, N);
    memset (c, 0, sizeof c);
    g_assert_true (ts_cpu_mm (&va, &vb, &vc, NULL));
    g_assert_cmpmem (c, sizeof c, ref, sizeof ref);
  }

  /* int64 takes the plain loop */
  {
    gint64 ai[M * K], bi[K * N], ci[M * N];
    TsView vai = view2 (I64, ai, M, K), vbi = view2 (I64, bi, K, N), vci = view2 (I64, ci, M, N);

    for (int i = 0; i < M * K; i++)
      ai[i] = (gint64)a[i];
    for (int i = 0; i < K * N; i++)
      bi[i] = (gint64)b[i];
    g_assert_true (ts_cpu_mm (&vai, &vbi, &vci, NULL));
    for (int i = 0; i < M * N; i++)
      g_assert_cmpint (ci[i], ==, (gint64)ref[i]);
  }

  /* random-looking doubles agree with the naive loop to rounding */
  for (int i = 0; i < M * K; i++)
    a[i] = sin (i * 0.37);
  for (int i = 0; i < K * N; i++)
    b[i] = cos (i * 0.11);
  naive_mm (a, b, ref, M, K, N);
  va = view2 (F64, a, M, K);
  vb = view2 (F64, b, K, N);
  vc = view2 (F64, c, M, N);
  g_assert_true (ts_cpu_mm (&va, &vb, &vc, NULL));
  for (int i = 0; i < M * N; i++)
    g_assert_cmpfloat_with_epsilon (c[i], ref[i], 1e-12);

  /* errors */
  va = view2 (F32, af, 2, 3);
  vb = view2 (F32, bf, 4, 5);
  g_assert_false (ts_cpu_mm (&va, &vb, &vc, &error));
  g_assert_cmpstr (error->message, ==, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  g_clear_error (&error);
  vb = view2 (F64, b, 3, 5);
  g_assert_false (ts_cpu_mm (&va, &vb, &vc, &error));
  g_assert_cmpstr (error->message, ==, "expected scalar type Float but found Double");
  g_clear_error (&error);
  {
    guint8 bb[4];
    TsView vbb = view2 (TS_DTYPE_BOOL, bb, 2, 2), vbo = view2 (TS_DTYPE_BOOL, bb, 2, 2);

    g_assert_false (ts_cpu_mm (&vbb, &vbb, &vbo, &error));
    g_assert_cmpstr (error->message, ==, "\"addmm_impl_cpu_\" not implemented for 'Bool'");
  }
}

static void
test_bmm_matmul (void)
{
  double a[2 * 2 * 3] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };  /* 2 x 2 x 3 */
  double b[2 * 3 * 2] = { 1, 0, 0, 1, 1, 1, 2, 0, 0, 2, 1, 1 };     /* 2 x 3 x 2 */
  double out[8];
  gint64 sa[3] = { 2, 2, 3 }, sb[3] = { 2, 3, 2 }, so[3] = { 2, 2, 2 };
  TsView va = view (F64, a, 3, sa), vb = view (F64, b, 3, sb), vo = view (F64, out, 3, so);
  gint64 shape[TS_MAX_DIMS];
  guint ndim;
  g_autoptr(GError) error = NULL;

  g_assert_true (ts_cpu_bmm (&va, &vb, &vo, NULL));
  /* [[1,2,3],[4,5,6]] @ [[1,0],[0,1],[1,1]] = [[4,5],[10,11]];
   * [[7,8,9],[10,11,12]] @ [[2,0],[0,2],[1,1]] = [[23,25],[32,34]] */
  g_assert_cmpmem (out, sizeof out, ((double[]){ 4, 5, 10, 11, 23, 25, 32, 34 }), sizeof out);

  /* matmul broadcasts: (2, 2, 3) @ (3, 2) uses b[0] for both batches */
  {
    TsView vb0 = view2 (F64, b, 3, 2);

    g_assert_true (ts_matmul_shape (&va, &vb0, &ndim, shape, NULL));
    g_assert_cmpuint (ndim, ==, 3);
    g_assert_true (ts_cpu_matmul (&va, &vb0, &vo, NULL));
    g_assert_cmpmem (out, sizeof out, ((double[]){ 4, 5, 10, 11, 16, 17, 22, 23 }), sizeof out);
  }

  /* 1-D @ 1-D is a 0-dim dot product; 2-D @ 1-D and 1-D @ 2-D drop the dim */
  {
    double v3[3] = { 1, 2, 3 };
    double dot;
    double mv[2];
    TsView vv = view1 (F64, v3, 3), vdot = view (F64, &dot, 0, NULL), vmv = view1 (F64, mv, 2);
    TsView a2 = view2 (F64, a, 2, 3), b2 = view2 (F64, b, 3, 2);

    g_assert_true (ts_matmul_shape (&vv, &vv, &ndim, shape, NULL));
    g_assert_cmpuint (ndim, ==, 0);
    g_assert_true (ts_cpu_matmul (&vv, &vv, &vdot, NULL));
    g_assert_cmpfloat (dot, ==, 14);
    g_assert_true (ts_cpu_matmul (&a2, &vv, &vmv, NULL));
    g_assert_cmpfloat (mv[0], ==, 14);
    g_assert_cmpfloat (mv[1], ==, 32);
    g_assert_true (ts_cpu_matmul (&vv, &b2, &vmv, NULL));
    g_assert_cmpfloat (mv[0], ==, 4);   /* [1,2,3] @ [[1,0],[0,1],[1,1]] */
    g_assert_cmpfloat (mv[1], ==, 5);
  }

  /* (2, 1, 3, 4) @ (5, 4, 2) -> (2, 5, 3, 2) */
  {
    gint64 s1[4] = { 2, 1, 3, 4 }, s2[3] = { 5, 4, 2 };
    TsView x = view (F32, NULL, 4, s1), y = view (F32, NULL, 3, s2);

    g_assert_true (ts_matmul_shape (&x, &y, &ndim, shape, NULL));
    g_assert_cmpuint (ndim, ==, 4);
    g_assert_cmpint (shape[0], ==, 2);
    g_assert_cmpint (shape[1], ==, 5);
    g_assert_cmpint (shape[2], ==, 3);
    g_assert_cmpint (shape[3], ==, 2);
  }

  /* messages */
  {
    gint64 s1[3] = { 2, 2, 3 }, s2[3] = { 2, 4, 5 };
    double scalar = 1;
    TsView x = view (F64, a, 3, s1), y = view (F64, b, 3, s2), z, v;

    g_assert_false (ts_cpu_bmm (&x, &y, &vo, &error));
    g_assert_cmpstr (error->message, ==,
                     "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].");
    g_clear_error (&error);
    ts_view_init_scalar (&z, F64, &scalar);
    v = view1 (F64, a, 3);
    g_assert_false (ts_cpu_matmul (&z, &v, &vo, &error));
    g_assert_cmpstr (error->message, ==,
                     "both arguments to matmul need to be at least 1D, but they are 0D and 1D");
    g_clear_error (&error);
    y = view1 (F64, b, 4);
    g_assert_false (ts_cpu_matmul (&v, &y, &vo, &error));
    g_assert_cmpstr (error->message, ==,
                     "inconsistent tensor size, expected tensor [3] and src [4] to have the same "
                     "number of elements, but got 3 and 4 elements respectively");
    g_clear_error (&error);
    y = view2 (F64, b, 4, 5);
    g_assert_false (ts_cpu_matmul (&v, &y, &vo, &error));
    g_assert_cmpstr (error->message, ==, "mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)");
    g_clear_error (&error);
    x = view2 (F64, a, 2, 3);
    y = view1 (F64, b, 4);
    g_assert_false (ts_cpu_matmul (&x, &y, &vo, &error));
    g_assert_cmpstr (error->message, ==, "size mismatch, got 2, 2x3,4");
  }
}

static void
test_index_select (void)
{
  float a[6] = { 1, 2, 3, 4, 5, 6 };   /* 2 x 3 */
  gint64 idx[3] = { 2, 0, 2 };
  gint32 idx32[2] = { 1, 1 };
  float out[6];
  TsView va = view2 (F32, a, 2, 3), vi = view1 (I64, idx, 3), vo = view2 (F32, out, 2, 3);
  TsIndexFailure failure = { 0 };
  g_autoptr(GError) error = NULL;

  g_assert_true (ts_cpu_index_select (&va, 1, &vi, &vo, NULL, NULL));
  g_assert_cmpmem (out, sizeof out, ((float[]){ 3, 1, 3, 6, 4, 6 }), sizeof out);

  {
    TsView vi32 = view1 (I32, idx32, 2), vo2 = view2 (F32, out, 2, 3);

    g_assert_true (ts_cpu_index_select (&va, 0, &vi32, &vo2, NULL, NULL));
    g_assert_cmpmem (out, sizeof out, ((float[]){ 4, 5, 6, 4, 5, 6 }), sizeof out);
  }

  /* out of range: nothing written, the first bad index reported */
  memset (out, 0, sizeof out);
  idx[0] = 1;
  idx[1] = 5;
  idx[2] = -1;
  g_assert_false (ts_cpu_index_select (&va, 1, &vi, &vo, &failure, &error));
  g_assert_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_INDEX);
  g_assert_cmpstr (error->message, ==, "index out of range in self");
  g_assert_cmpint (failure.index, ==, 5);
  g_assert_cmpint (failure.position, ==, 1);
  g_assert_cmpint (failure.dim_size, ==, 3);
  g_assert_cmpfloat (out[0], ==, 0.f);
  g_clear_error (&error);

  {
    gint64 shape2[2] = { 1, 1 };
    TsView v2 = view (I64, idx, 2, shape2);

    g_assert_false (ts_cpu_index_select (&va, 1, &v2, &vo, NULL, &error));
    g_assert_cmpstr (error->message, ==, "index_select(): Index is supposed to be a vector");
  }
}

static void
test_gather (void)
{
  float a[6] = { 1, 2, 3, 4, 5, 6 };   /* 2 x 3 */
  gint64 idx[4] = { 2, 0, 1, 1 };      /* 2 x 2 */
  float out[4];
  TsView va = view2 (F32, a, 2, 3), vi = view2 (I64, idx, 2, 2), vo = view2 (F32, out, 2, 2);
  TsIndexFailure failure = { 0 };
  g_autoptr(GError) error = NULL;

  /* torch.gather(a, 1, [[2, 0], [1, 1]]) = [[3, 1], [5, 5]] */
  g_assert_true (ts_cpu_gather (&va, 1, &vi, &vo, NULL, NULL));
  g_assert_cmpmem (out, sizeof out, ((float[]){ 3, 1, 5, 5 }), sizeof out);
  /* along dim 0: [[a[2?]...]] with index [[1, 0], [0, 1]] */
  idx[0] = 1; idx[1] = 0; idx[2] = 0; idx[3] = 1;
  g_assert_true (ts_cpu_gather (&va, 0, &vi, &vo, NULL, NULL));
  g_assert_cmpmem (out, sizeof out, ((float[]){ 4, 2, 1, 5 }), sizeof out);

  idx[3] = 5;
  g_assert_false (ts_cpu_gather (&va, 0, &vi, &vo, &failure, &error));
  g_assert_cmpstr (error->message, ==, "index 5 is out of bounds for dimension 0 with size 2");
  g_assert_cmpint (failure.position, ==, 3);
  g_assert_cmpint (failure.index, ==, 5);
}

/* The fill follows the documented element mapping exactly. */
static void
test_random_mapping (void)
{
  enum { N = 3000 };
  float *out = g_new (float, N);
  TsView v = view1 (F32, out, N);
  TsPhiloxLaunch plan;
  TsPhiloxGenerator gen;
  guint64 offset;

  /* a small device: 2 SMs x 512 threads -> 4 blocks of 256 = 1024 threads,
   * so 3000 elements take one round of 4 values per thread */
  ts_cpu_random_plan (&v, 2, 512, &plan);
  g_assert_cmpuint (plan.grid_size, ==, 4);
  g_assert_cmpuint (plan.unroll, ==, 4);
  g_assert_cmpuint (plan.offset_increment, ==, 4);

  ts_philox_generator_init (&gen, 1234);
  ts_philox_generator_reserve (&gen, 8);
  offset = ts_philox_generator_reserve (&gen, plan.offset_increment);
  g_assert_cmpuint (offset, ==, 8);
  g_assert_true (ts_cpu_uniform (&v, 0, 1, gen.seed, offset, &plan, NULL));

  for (gint64 i = 0; i < N; i += 97)
    {
      guint64 sub, call;
      guint lane;
      TsPhiloxState s;
      float f[4];

      ts_philox_element_position (&plan, i, &sub, &call, &lane);
      ts_philox_state_init (&s, 1234, sub, offset + 4 * call);
      ts_philox_uniform4 (&s, f);
      g_assert_cmpfloat (out[i], ==, f[lane]);
    }
  /* element 1024 is lane 1 of thread 0 */
  {
    TsPhiloxState s;
    float f[4];

    ts_philox_state_init (&s, 1234, 0, 8);
    ts_philox_uniform4 (&s, f);
    g_assert_cmpfloat (out[0], ==, f[0]);
    g_assert_cmpfloat (out[1024], ==, f[1]);
    g_assert_cmpfloat (out[2048], ==, f[2]);
  }
  g_free (out);
}

static void
test_random_fills (void)
{
  enum { N = 10000 };
  float *a = g_new (float, N);
  float *b = g_new (float, N);
  double *d = g_new (double, N);
  guint8 *m = g_new (guint8, N);
  TsView va = view1 (F32, a, N), vb = view1 (F32, b, N), vd = view1 (F64, d, N);
  TsView vm = view1 (TS_DTYPE_BOOL, m, N);
  TsPhiloxLaunch plan, dplan;
  double sum = 0, sum2 = 0;
  int ones = 0;
  g_autoptr(GError) error = NULL;

  ts_cpu_random_plan (&va, 132, 2048, &plan);
  g_assert_true (ts_cpu_uniform (&va, -2, 3, 42, 0, &plan, NULL));
  g_assert_true (ts_cpu_uniform (&vb, -2, 3, 42, 0, &plan, NULL));
  g_assert_cmpmem (a, N * sizeof (float), b, N * sizeof (float));
  for (int i = 0; i < N; i++)
    {
      g_assert_cmpfloat (a[i], >=, -2.f);
      g_assert_cmpfloat (a[i], <, 3.f);
    }
  /* another offset, other numbers */
  g_assert_true (ts_cpu_uniform (&vb, -2, 3, 42, plan.offset_increment, &plan, NULL));
  g_assert_true (memcmp (a, b, N * sizeof (float)) != 0);

  ts_cpu_random_plan (&vd, 132, 2048, &dplan);
  g_assert_cmpuint (dplan.unroll, ==, 2);
  g_assert_true (ts_cpu_normal (&vd, 3, 2, 7, 0, &dplan, NULL));
  for (int i = 0; i < N; i++)
    {
      sum += d[i];
      sum2 += (d[i] - 3) * (d[i] - 3);
    }
  g_assert_cmpfloat (fabs (sum / N - 3), <, 0.1);
  g_assert_cmpfloat (fabs (sqrt (sum2 / N) - 2), <, 0.1);

  g_assert_true (ts_cpu_bernoulli (&vm, 0.3, 9, 0, &plan, NULL));
  for (int i = 0; i < N; i++)
    ones += m[i];
  g_assert_cmpint (ones, >, 2700);
  g_assert_cmpint (ones, <, 3300);
  g_assert_true (ts_cpu_bernoulli (&vm, 0.0, 9, 0, &plan, NULL));
  for (int i = 0; i < N; i++)
    g_assert_cmpint (m[i], ==, 0);

  /* the plan must fit the dtype */
  g_assert_false (ts_cpu_uniform (&vd, 0, 1, 7, 0, &plan, &error));
  g_assert_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_ARGUMENT);
  g_clear_error (&error);
  {
    gint64 ints[4];
    TsView vi = view1 (I64, ints, 4);

    g_assert_false (ts_cpu_normal (&vi, 0, 1, 7, 0, &plan, &error));
    g_assert_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_DTYPE);
    g_assert_cmpstr (error->message, ==, "\"normal_kernel_cuda\" not implemented for 'Long'");
    g_clear_error (&error);
  }
  {
    gint8 c[4];
    gint16 w[4];
    TsView vc = view1 (TS_DTYPE_INT8, c, 4), vw = view1 (TS_DTYPE_INT16, w, 4);

    /* PyTorch checks the bounds' dtype first, for every device */
    g_assert_false (ts_cpu_uniform (&vc, 0, 1, 7, 0, &plan, &error));
    g_assert_cmpstr (error->message, ==, "\"check_uniform_bounds\" not implemented for 'Char'");
    g_clear_error (&error);
    g_assert_false (ts_cpu_normal (&vw, 0, 1, 7, 0, &plan, &error));
    g_assert_cmpstr (error->message, ==, "\"normal_kernel_cuda\" not implemented for 'Short'");
  }

  g_free (a);
  g_free (b);
  g_free (d);
  g_free (m);
}

static void
test_costs (void)
{
  float buf[12];
  TsView a = view2 (F32, buf, 3, 4), b = view1 (F32, buf, 4), o = view2 (F32, buf, 3, 4);
  TsKernelCost c;

  c = ts_cost_binary (TS_BINARY_ADD, &a, &b, &o);
  g_assert_cmpfloat (c.flops, ==, 12);
  g_assert_cmpfloat (c.bytes, ==, (12 + 4 + 12) * 4);
  c = ts_cost_matmul (2, 64, 32, 16, TS_DTYPE_FLOAT16);
  g_assert_cmpfloat (c.flops, ==, 2.0 * 2 * 64 * 32 * 16);
  g_assert_cmpfloat (c.bytes, ==, 2.0 * 2 * (64 * 16 + 16 * 32 + 64 * 32));
  c = ts_cost_reduce (&a, &b);
  g_assert_cmpfloat (c.bytes, ==, (12 + 4) * 4);
  c = ts_cost_fill (&o);
  g_assert_cmpfloat (c.flops, ==, 0);
  g_assert_cmpfloat (c.bytes, ==, 48);
  c = ts_cost_unary (TS_UNARY_EXP, &a, &o);
  g_assert_cmpfloat (c.flops, ==, 12 * ts_unary_op_flops (TS_UNARY_EXP));
  g_assert_cmpstr (ts_binary_op_name (TS_BINARY_FLOOR_DIVIDE), ==, "floor_divide");
  g_assert_cmpstr (ts_unary_op_name (TS_UNARY_RECIPROCAL), ==, "reciprocal");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cpu-kernels/iterator", test_iterator);
  g_test_add_func ("/cpu-kernels/wrap-dim", test_wrap_dim);
  g_test_add_func ("/cpu-kernels/broadcast-add", test_broadcast_add);
  g_test_add_func ("/cpu-kernels/dense-vectors", test_dense_vectors);
  g_test_add_func ("/cpu-kernels/dense-unary", test_dense_unary);
  g_test_add_func ("/cpu-kernels/promotion", test_promotion);
  g_test_add_func ("/cpu-kernels/int-ops", test_int_ops);
  g_test_add_func ("/cpu-kernels/int8-int16", test_int8_int16);
  g_test_add_func ("/cpu-kernels/float-ops", test_float_ops);
  g_test_add_func ("/cpu-kernels/compare-logical", test_compare_logical);
  g_test_add_func ("/cpu-kernels/strided-views", test_strided_views);
  g_test_add_func ("/cpu-kernels/unary", test_unary);
  g_test_add_func ("/cpu-kernels/dense-runs", test_dense_runs);
  g_test_add_func ("/cpu-kernels/fill-copy", test_fill_copy);
  g_test_add_func ("/cpu-kernels/ranges", test_ranges);
  g_test_add_func ("/cpu-kernels/reductions", test_reductions);
  g_test_add_func ("/cpu-kernels/max-dim", test_max_dim);
  g_test_add_func ("/cpu-kernels/mm", test_mm);
  g_test_add_func ("/cpu-kernels/bmm-matmul", test_bmm_matmul);
  g_test_add_func ("/cpu-kernels/index-select", test_index_select);
  g_test_add_func ("/cpu-kernels/gather", test_gather);
  g_test_add_func ("/cpu-kernels/random-mapping", test_random_mapping);
  g_test_add_func ("/cpu-kernels/random-fills", test_random_fills);
  g_test_add_func ("/cpu-kernels/costs", test_costs);
  return g_test_run ();
}
