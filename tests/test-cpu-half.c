/* test-cpu-half.c: float16 and bfloat16 in the CPU kernels
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The half-precision paths convert runs to float32 (vector instructions
 * where the CPU has them) and multiply with sgemm. They must give what
 * ts-dtype's element conversions and a float32 computation rounded once
 * give, and mm/bmm/addmm must give PyTorch's values (see test_matmul).
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-cpu-kernels.h"

#define F32 TS_DTYPE_FLOAT32
#define F16 TS_DTYPE_FLOAT16
#define BF16 TS_DTYPE_BFLOAT16

static float
bits_float (guint32 u)
{
  float f;

  memcpy (&f, &u, sizeof f);
  return f;
}

static guint32
float_bits (float f)
{
  guint32 u;

  memcpy (&u, &f, sizeof u);
  return u;
}

static float
half_to_float (TsDType  dtype,
               guint16  h)
{
  return dtype == F16 ? ts_half_to_float (h) : ts_bfloat16_to_float (h);
}

static guint16
half_from_float (TsDType dtype,
                 float   f)
{
  return dtype == F16 ? ts_float_to_half (f) : ts_float_to_bfloat16 (f);
}

/* @n elements of @dtype at @data, every @step-th (a strided view when
 * @step > 1, which takes the element-by-element conversions). */
static TsView
view_1d (TsDType  dtype,
         gpointer data,
         gint64   n,
         gint64   step)
{
  TsView v;

  ts_view_init (&v, dtype, data, 1, &n, &step, 0);
  return v;
}

/* Every 16-bit pattern to float32, dense (vector path) and strided. ts-dtype
 * keeps a float16 signalling NaN signalling; F16C (like c10's
 * fp16_ieee_to_fp32_value, which multiplies) quiets it, so NaNs compare
 * with the quiet bit set. */
static void
test_to_float (void)
{
  const TsDType dtypes[] = { F16, BF16 };
  g_autofree guint16 *h = g_new (guint16, 2 * 65536);
  g_autofree float *f = g_new (float, 65536);

  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    for (gint64 step = 1; step <= 2; step++)
      {
        TsView vh = view_1d (dtypes[d], h, 65536, step), vf = view_1d (F32, f, 65536, 1);

        for (guint i = 0; i < 65536; i++)
          h[i * step] = (guint16)i;
        g_assert_true (ts_cpu_copy (&vf, &vh, NULL));
        for (guint i = 0; i < 65536; i++)
          {
            guint32 want = float_bits (half_to_float (dtypes[d], (guint16)i));

            if (isnan (f[i]))
              want |= 0x400000;
            g_assert_cmphex (float_bits (f[i]) | (isnan (f[i]) ? 0x400000 : 0), ==, want);
          }
      }
}

/* Floats near every rounding boundary of both dtypes (each 16-bit pattern
 * as the top half of a float, and each float16 value, plus offsets below,
 * at and above the halfway points), infinities, NaNs and subnormals, to
 * float16 and bfloat16, dense and strided: the same bits as ts-dtype. */
static void
test_from_float (void)
{
  const guint32 offsets[] = { 0, 1, 0xfff, 0x1000, 0x1001, 0x1fff, 0x7fff, 0x8000, 0x8001, 0xffff };
  const TsDType dtypes[] = { F16, BF16 };
  gint64 n = 2 * 65536 * G_N_ELEMENTS (offsets);
  g_autofree float *f = g_new (float, n);
  g_autofree guint16 *h = g_new (guint16, 2 * n);
  gint64 k = 0;

  for (guint i = 0; i < 65536; i++)
    for (guint j = 0; j < G_N_ELEMENTS (offsets); j++)
      {
        f[k++] = bits_float ((i << 16) + offsets[j]);
        f[k++] = bits_float (float_bits (ts_half_to_float ((guint16)i)) + offsets[j]);
      }
  g_assert_cmpint (k, ==, n);

  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    for (gint64 step = 1; step <= 2; step++)
      {
        TsView vh = view_1d (dtypes[d], h, n, step), vf = view_1d (F32, f, n, 1);

        g_assert_true (ts_cpu_copy (&vh, &vf, NULL));
        for (gint64 i = 0; i < n; i++)
          if (h[i * step] != half_from_float (dtypes[d], f[i]))
            g_error ("%s of %a (0x%08x): 0x%04x, expected 0x%04x", ts_dtype_name (dtypes[d]),
                     f[i], float_bits (f[i]), h[i * step], half_from_float (dtypes[d], f[i]));
      }
}

/* The float32 math of each op on one element. */
static float
reference_op (int   op,
              float a,
              float b)
{
  switch (op)
    {
    case 0: return a + b;
    case 1: return a * b;
    case 2: return expf (a);
    case 3: return isnan (a) ? a : (a > 0 ? a : 0);
    default: g_assert_not_reached ();
    }
}

static gboolean
run_op (int           op,
        const TsView *a,
        const TsView *b,
        TsDType       common,
        const TsView *out)
{
  switch (op)
    {
    case 0: return ts_cpu_binary (TS_BINARY_ADD, a, b, common, out, NULL);
    case 1: return ts_cpu_binary (TS_BINARY_MUL, a, b, common, out, NULL);
    case 2: return ts_cpu_unary (TS_UNARY_EXP, a, out, NULL);
    case 3: return ts_cpu_unary (TS_UNARY_RELU, a, out, NULL);
    default: g_assert_not_reached ();
    }
}

/* @a as 25 x 40: sum over dim 0 (one accumulator per column, the input
 * read across runs) and amax of everything, against the exact results
 * rounded once. */
static void
check_reduce_dims (TsDType        dt,
                   const guint16 *a)
{
  gint64 shape[2] = { 25, 40 }, n = 40;
  guint16 col[40], max;
  double want[40] = { 0 };
  float want_max = -INFINITY;
  TsView va, vcol, vmax;

  for (int i = 0; i < 25 * 40; i++)
    {
      want[i % 40] += half_to_float (dt, a[i]);
      want_max = MAX (want_max, half_to_float (dt, a[i]));
    }
  ts_view_init (&va, dt, (gpointer)a, 2, shape, NULL, 0);
  ts_view_init (&vcol, dt, col, 1, &n, NULL, 0);
  ts_view_init (&vmax, dt, &max, 0, NULL, NULL, 0);
  g_assert_true (ts_cpu_reduce (TS_REDUCE_SUM, &va, 1, &vcol, NULL));
  for (int j = 0; j < 40; j++)
    g_assert_cmphex (col[j], ==, half_from_float (dt, (float)want[j]));
  g_assert_true (ts_cpu_reduce (TS_REDUCE_AMAX, &va, 0, &vmax, NULL));
  g_assert_cmphex (max, ==, half_from_float (dt, want_max));
}

/* add, mul, exp and relu on 1000 elements (not a multiple of the run
 * length or of 8), dense, strided and with a float64 scalar operand, and
 * sum: each element is the float32 result on the converted inputs (the
 * scalar rounded to the dtype first, as TensorIterator casts it), rounded
 * once; the sums are the exact sums rounded once. */
static void
test_elementwise (void)
{
  enum { N = 1000 };
  const TsDType dtypes[] = { F16, BF16 };

  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      TsDType dt = dtypes[d];
      guint16 a[N], b[N], as[2 * N], out[2 * N];
      double scalar = 0.1, sum_ref = 0;
      guint16 sum;
      TsView vs, vsum;

      for (int i = 0; i < N; i++)
        {
          a[i] = half_from_float (dt, sinf (i * 0.37f) * 8);
          b[i] = half_from_float (dt, cosf (i * 0.11f) * 3);
          sum_ref += half_to_float (dt, a[i]);
        }
      ts_view_init_scalar (&vs, TS_DTYPE_FLOAT64, &scalar);

      for (int op = 0; op < 4; op++)
        for (int variant = 0; variant < 3; variant++)
          {
            /* 0: dense; 1: a and out strided (every 2nd); 2: b a float64 scalar */
            gint64 step = variant == 1 ? 2 : 1;
            TsView va = view_1d (dt, as, N, step), vb = view_1d (dt, b, N, 1);
            TsView vo = view_1d (dt, out, N, step);
            float bs = half_to_float (dt, half_from_float (dt, (float)scalar));

            for (int i = 0; i < N; i++)
              as[i * step] = a[i];
            g_assert_true (run_op (op, &va, variant == 2 ? &vs : &vb, dt, &vo));
            for (int i = 0; i < N; i++)
              {
                float x = half_to_float (dt, a[i]);
                float y = variant == 2 ? bs : half_to_float (dt, b[i]);

                g_assert_cmphex (out[i * step], ==, half_from_float (dt, reference_op (op, x, y)));
              }
          }

      ts_view_init (&vsum, dt, &sum, 0, NULL, NULL, 0);
      vs = view_1d (dt, a, N, 1);
      g_assert_true (ts_cpu_reduce (TS_REDUCE_SUM, &vs, 0, &vsum, NULL));
      g_assert_cmphex (sum, ==, half_from_float (dt, (float)sum_ref));
      check_reduce_dims (dt, a);
    }
}

/* The test_matmul operands, generated in place by formula (multiples of
 * 1/16 up to 4 in magnitude: exact in float16 and bfloat16, and every
 * product and sum over k = 1024 is exact in float32, so sgemm's order of
 * summation does not matter). */
#define MM_K 1024
#define MM_N 4

static double
mm_a (int bt, int i, int p)
{
  return ((bt * 7 + i * 37 + p * 11) % 129 - 64) / 16.0;
}

static double
mm_b (int bt, int p, int j)
{
  return ((bt * 5 + p * 13 + j * 29) % 127 - 63) / 16.0;
}

static double
mm_c (int i, int j)
{
  return ((i * 5 + j * 3) % 17 - 8) / 2.0;
}

/* Expected bits of mm (batch 0), bmm (2 batches), addmm (input c) and
 * addmm with beta 0.5 and alpha -2, 4 x 4 each. bfloat16: PyTorch 1.13.1
 * (Debian's python3-torch) on the CPU, torch.mm/bmm/addmm of the bfloat16
 * tensors (its oneDNN path, which accumulates in float32 at these sizes);
 * the generator also checked they equal torch's float32 products rounded
 * by .bfloat16(). float16 (no Half matmul on PyTorch's CPU): the float32
 * products rounded by torch's .half(). Accumulating in bfloat16/float16
 * instead gives other values for almost every element. */
static const guint16 want_mm_bf16[] = {
  0x42e6, 0xc25a, 0xc2e3, 0xc29c, 0x414e, 0xc255, 0xc2da, 0xc28f,
  0xc2fd, 0x421c, 0x4332, 0x42b6, 0x4248, 0x4241, 0x423e, 0x414a,
};
static const guint16 want_bmm_bf16[] = {
  0x42e6, 0xc25a, 0xc2e3, 0xc29c, 0x414e, 0xc255, 0xc2da, 0xc28f,
  0xc2fd, 0x421c, 0x4332, 0x42b6, 0x4248, 0x4241, 0x423e, 0x414a,
  0x42ea, 0x41d7, 0xc27c, 0xc244, 0x4040, 0xc205, 0xc2f8, 0xc2b9,
  0xc302, 0x3fc6, 0x42af, 0x42f3, 0xc0c8, 0x428f, 0x42e1, 0x4262,
};
static const guint16 want_addmm_bf16[] = {
  0x42de, 0xc264, 0xc2e5, 0xc29b, 0x4136, 0xc255, 0xc2d7, 0xc289,
  0xc2fb, 0x4226, 0x4336, 0x42b0, 0x4256, 0x4233, 0x4236, 0x4142,
};
static const guint16 want_addmm_scaled_bf16[] = {
  0xc368, 0x42d8, 0x4362, 0x431d, 0xc1d4, 0x42d5, 0x435b, 0x4310,
  0x437d, 0xc29a, 0xc3b1, 0xc337, 0xc2c5, 0xc2c5, 0xc2c0, 0xc1cc,
};
static const guint16 want_mm_f16[] = {
  0x5734, 0xd2d2, 0xd714, 0xd4e3, 0x4a70, 0xd2ac, 0xd6d3, 0xd474,
  0xd7e4, 0x50e1, 0x5991, 0x55ae, 0x5240, 0x520a, 0x51f3, 0x4a54,
};
static const guint16 want_bmm_f16[] = {
  0x5734, 0xd2d2, 0xd714, 0xd4e3, 0x4a70, 0xd2ac, 0xd6d3, 0xd474,
  0xd7e4, 0x50e1, 0x5991, 0x55ae, 0x5240, 0x520a, 0x51f3, 0x4a54,
  0x5754, 0x4eb8, 0xd3df, 0xd224, 0x41fe, 0xd025, 0xd7be, 0xd5c9,
  0xd80f, 0x3e30, 0x5575, 0x5798, 0xc642, 0x5478, 0x5709, 0x530d,
};
static const guint16 want_addmm_f16[] = {
  0x56f4, 0xd322, 0xd724, 0xd4db, 0x49b0, 0xd2ac, 0xd6bb, 0xd444,
  0xd7d4, 0x5131, 0x59b1, 0x557e, 0x52b0, 0x519a, 0x51b3, 0x4a14,
};
static const guint16 want_addmm_scaled_f16[] = {
  0xdb44, 0x56be, 0x5b10, 0x58e5, 0xcea0, 0x56ac, 0x5ad9, 0x5880,
  0x5be8, 0xd4cd, 0xdd89, 0xd9ba, 0xd624, 0xd626, 0xd603, 0xce64,
};

/* The operands in one dtype: a (2, 4, K), b (2, K, 4), the same b
 * stored transposed (each batch column-major) and c (4, 4). */
typedef struct
{
  guint16 a[2 * MM_N * MM_K];
  guint16 b[2 * MM_K * MM_N];
  guint16 b_t[2 * MM_N * MM_K];   /* b[bt] stored column-major */
  guint16 c[MM_N * MM_N];
} MmOperands;

static void
mm_operands (TsDType     dt,
             MmOperands *o)
{
  for (int bt = 0; bt < 2; bt++)
    for (int i = 0; i < MM_N; i++)
      for (int p = 0; p < MM_K; p++)
        {
          o->a[(bt * MM_N + i) * MM_K + p] = half_from_float (dt, (float)mm_a (bt, i, p));
          o->b[(bt * MM_K + p) * MM_N + i] = half_from_float (dt, (float)mm_b (bt, p, i));
          o->b_t[(bt * MM_N + i) * MM_K + p] = half_from_float (dt, (float)mm_b (bt, p, i));
        }
  for (int i = 0; i < MM_N * MM_N; i++)
    o->c[i] = half_from_float (dt, (float)mm_c (i / MM_N, i % MM_N));
}

static void
check_matmul (TsDType        dt,
              const guint16 *mm,
              const guint16 *bmm,
              const guint16 *addmm,
              const guint16 *addmm_scaled)
{
  g_autofree MmOperands *o = g_new (MmOperands, 1);
  gint64 sa[3] = { 2, MM_N, MM_K }, sb[3] = { 2, MM_K, MM_N }, so[3] = { 2, MM_N, MM_N };
  gint64 sbt[3] = { 2, MM_N, MM_K };
  guint16 out[2 * MM_N * MM_N];
  TsView va, vb, vbt, vo, va0, vb0, vbt0, vo0, vc;
  g_autoptr(GError) error = NULL;

  mm_operands (dt, o);
  ts_view_init (&va, dt, o->a, 3, sa, NULL, 0);
  ts_view_init (&vb, dt, o->b, 3, sb, NULL, 0);
  ts_view_init (&vbt, dt, o->b_t, 3, sbt, NULL, 0);
  ts_view_transpose (&vbt, 1, 2);
  ts_view_init (&vo, dt, out, 3, so, NULL, 0);
  ts_view_init (&va0, dt, o->a, 2, sa + 1, NULL, 0);
  ts_view_init (&vb0, dt, o->b, 2, sb + 1, NULL, 0);
  ts_view_init (&vbt0, dt, o->b_t, 2, sbt + 1, NULL, 0);
  ts_view_transpose (&vbt0, 0, 1);
  ts_view_init (&vo0, dt, out, 2, so + 1, NULL, 0);
  ts_view_init (&vc, dt, o->c, 2, so + 1, NULL, 0);

  g_assert_true (ts_cpu_mm (&va0, &vb0, &vo0, &error));
  g_assert_cmpmem (out, 16 * 2, mm, 16 * 2);
  memset (out, 0, sizeof out);
  g_assert_true (ts_cpu_mm (&va0, &vbt0, &vo0, &error));   /* b transposed: BLAS takes it as is */
  g_assert_cmpmem (out, 16 * 2, mm, 16 * 2);

  g_assert_true (ts_cpu_bmm (&va, &vb, &vo, &error));
  g_assert_cmpmem (out, 32 * 2, bmm, 32 * 2);
  memset (out, 0, sizeof out);
  g_assert_true (ts_cpu_matmul (&va, &vbt, &vo, &error));
  g_assert_cmpmem (out, 32 * 2, bmm, 32 * 2);

  g_assert_true (ts_cpu_addmm (&vc, &va0, &vb0, 1.0, 1.0, &vo0, &error));
  g_assert_cmpmem (out, 16 * 2, addmm, 16 * 2);
  g_assert_true (ts_cpu_addmm (&vc, &va0, &vb0, 0.5, -2.0, &vo0, &error));
  g_assert_cmpmem (out, 16 * 2, addmm_scaled, 16 * 2);
  g_assert_no_error (error);

  /* a 1-D input broadcasts over the rows: row 0 of c added to every row,
   * so row 0 of the result is addmm's */
  {
    TsView vrow;
    gint64 n = MM_N;

    ts_view_init (&vrow, dt, o->c, 1, &n, NULL, 0);
    g_assert_true (ts_cpu_addmm (&vrow, &va0, &vb0, 1.0, 1.0, &vo0, &error));
    g_assert_cmpmem (out, MM_N * 2, addmm, MM_N * 2);
  }
}

static void
test_matmul (void)
{
  check_matmul (BF16, want_mm_bf16, want_bmm_bf16, want_addmm_bf16, want_addmm_scaled_bf16);
  check_matmul (F16, want_mm_f16, want_bmm_f16, want_addmm_f16, want_addmm_scaled_f16);
}

/* Ties round to even once, at the end: 256 + 1 and 256 + 3 are exact in
 * float32; in bfloat16 (8 significant bits) 257 lies halfway between 256
 * and 258 and goes to 256, 259 between 258 and 260 goes to 260. Likewise
 * 2048 + 1 and 2048 + 3 in float16 (11 bits). */
static void
test_matmul_ties (void)
{
  const TsDType dtypes[] = { BF16, F16 };
  const float base[] = { 256, 2048 };

  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      TsDType dt = dtypes[d];
      guint16 a[4] = { half_from_float (dt, base[d]), half_from_float (dt, 1),
                       half_from_float (dt, base[d]), half_from_float (dt, 3) };
      guint16 b[2] = { half_from_float (dt, 1), half_from_float (dt, 1) };
      guint16 c[2];
      gint64 sa[2] = { 2, 2 }, sb[2] = { 2, 1 };
      TsView va, vb, vc;

      ts_view_init (&va, dt, a, 2, sa, NULL, 0);
      ts_view_init (&vb, dt, b, 2, sb, NULL, 0);
      ts_view_init (&vc, dt, c, 2, sb, NULL, 0);
      g_assert_true (ts_cpu_mm (&va, &vb, &vc, NULL));
      g_assert_cmpfloat (half_to_float (dt, c[0]), ==, base[d]);
      g_assert_cmpfloat (half_to_float (dt, c[1]), ==, base[d] + 4);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cpu-half/to-float", test_to_float);
  g_test_add_func ("/cpu-half/from-float", test_from_float);
  g_test_add_func ("/cpu-half/elementwise", test_elementwise);
  g_test_add_func ("/cpu-half/matmul", test_matmul);
  g_test_add_func ("/cpu-half/matmul-ties", test_matmul_ties);
  return g_test_run ();
}
