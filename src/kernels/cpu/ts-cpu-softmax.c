/* ts-cpu-softmax.c: softmax and log_softmax along one dim
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PyTorch's numerically stable form: per row, the maximum m (NaN wins),
 * then s = sum exp (x - m); softmax is exp (x - m) / s and log_softmax
 * x - m - log (s). float64 computes in double, every other floating
 * dtype in float (PyTorch accumulates half and bfloat16 in float).
 * float32 on a CPU with AVX2 follows PyTorch's AVX2 kernels: their sums'
 * order, and SLEEF's exp and log where they use it (ts-cpu-sleef.c).
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-cpu-kernels.h"
#include "ts-cpu-kernels-private.h"
#include "ts-cpu-vector-private.h"

/* @EXP and @LOG: exp and log, or for float32 rows that PyTorch computes
 * in a vector lane, SLEEF's (@sleef: 1 exp, 2 log) */
#define DEFINE_SOFTMAX_ROW(NAME, T, EXP, LOG)                                 \
static void                                                                   \
NAME (const TsView *in, const guint8 *pi, gint64 si,                          \
      const TsView *out, guint8 *po, gint64 so, gint64 n, gboolean as_log,    \
      guint sleef)                                                            \
{                                                                             \
  T m = -INFINITY, s = 0;                                                     \
                                                                              \
  for (gint64 k = 0; k < n; k++)                                              \
    {                                                                         \
      T x = (T) ts_dtype_load (in->dtype, pi + k * si);                       \
      if (isnan (x) || x > m)                                                 \
        m = x;                                                                \
    }                                                                         \
  for (gint64 k = 0; k < n; k++)                                              \
    s += EXP ((T) ts_dtype_load (in->dtype, pi + k * si) - m);                \
  if (as_log)                                                                 \
    s = LOG (s);                                                              \
  for (gint64 k = 0; k < n; k++)                                              \
    {                                                                         \
      T x = (T) ts_dtype_load (in->dtype, pi + k * si) - m;                   \
      ts_dtype_store (out->dtype, po + k * so, as_log ? x - s : EXP (x) / s); \
    }                                                                         \
}

#define EXP_F32(x) (sleef & 1 ? ts_cpu_sleef_lane_f32 (TS_UNARY_EXP, x) : expf (x))
#define LOG_F32(x) (sleef & 2 ? ts_cpu_sleef_lane_f32 (TS_UNARY_LOG, x) : logf (x))
DEFINE_SOFTMAX_ROW (softmax_row_f64, double, exp, log)
DEFINE_SOFTMAX_ROW (softmax_row_f32, float, EXP_F32, LOG_F32)
#undef LOG_F32
#undef EXP_F32

/* A float32 row, dense in and out (softmax over the last dim, the common
 * case): softmax_row_f32's arithmetic in its order, without a dtype switch
 * per load and store and with each exp computed once, which cost three
 * times the rest of the launch at 16x16 */
static void
softmax_row_f32_dense (const float *x,
                       float       *y,
                       gint64       n,
                       gboolean     as_log)
{
  float m = -INFINITY, s = 0;

  for (gint64 k = 0; k < n; k++)
    if (isnan (x[k]) || x[k] > m)
      m = x[k];
  if (as_log)
    {
      float log_s;

      for (gint64 k = 0; k < n; k++)
        s += expf (x[k] - m);
      log_s = logf (s);
      for (gint64 k = 0; k < n; k++)
        y[k] = (x[k] - m) - log_s;
      return;
    }
  for (gint64 k = 0; k < n; k++)
    {
      y[k] = expf (x[k] - m);     /* x[k] is read before y[k] is written */
      s += y[k];
    }
  for (gint64 k = 0; k < n; k++)
    y[k] = y[k] / s;
}

/* PyTorch's dispatch message, which names its kernel: one per op along
 * the last dim, one for both along another */
gboolean
ts_softmax_check (TsDType    dtype,
                  gboolean   lastdim,
                  gboolean   log,
                  GError   **error)
{
  const char *kernel = !lastdim ? "softmax_kernel_impl"
                       : log ? "log_softmax_lastdim_kernel_impl"
                       : "softmax_lastdim_kernel_impl";

  if (ts_dtype_is_floating (dtype))
    return TRUE;
  return ts_kernel_fail_dispatch (error, kernel, dtype);
}

/* The byte offset of row @r (all dims but @dim, the last fastest) */
static gint64
row_start (const TsView *v,
           guint         dim,
           gint64        r)
{
  gint64 off = v->offset;

  for (guint d = v->ndim; d-- > 0;)
    {
      if (d == dim)
        continue;
      off += (r % v->shape[d]) * v->strides[d];
      r /= v->shape[d];
    }
  return off * (gint64) ts_dtype_size (v->dtype);
}

static gint64
dim_stride (const TsView *v,
            guint         dim)
{
  return v->ndim ? v->strides[dim] * (gint64) ts_dtype_size (v->dtype) : 0;
}

/* Along another dim, PyTorch's softmax and log_softmax compute eight rows
 * side by side, each in a lane of SLEEF's exp, as long as eight are left
 * of the rows next to each other (the dims after @dim), the rest with
 * libm: softmax (_vec_softmax) across all of them, log_softmax
 * (_vec_logsoftmax) in blocks of 128 KiB of input; log_softmax's log of
 * the sum is SLEEF's for every row (vec::map). softmax_row_f32's @sleef
 * for row @r. */
static guint
row_sleef (const TsView *in,
           guint         dim,
           gint64        r,
           gboolean      log)
{
  gint64 inner = 1, i, block;

  if (!ts_cpu_have_avx2_fma ())
    return 0;
  for (guint d = dim + 1; d < in->ndim; d++)
    inner *= in->shape[d];
  i = r % inner;
  if (log)
    {
      block = MAX (128 * 1024 / in->shape[dim] / (gint64) sizeof (float), 8) / 8 * 8;
      inner = MIN (block, inner - i / block * block);
      i %= block;
    }
  return (i < inner - inner % 8 ? 1 : 0) | (log ? 2 : 0);
}

/* PyTorch's AVX2 kernels along the last dim run on contiguous copies: row
 * @r of @v as dense floats, in place or gathered into @buf (@n floats) */
static float *
dense_row (const TsView *v,
           guint         dim,
           gint64        r,
           gint64        n,
           float        *buf)
{
  guint8 *p = (guint8 *) v->data + row_start (v, dim, r);
  gint64 stride = dim_stride (v, dim);

  if (n == 1 || stride == 4)
    return (float *)(gpointer) p;
  for (gint64 k = 0; k < n; k++)
    memcpy (buf + k, p + k * stride, sizeof (float));
  return buf;
}

/* ...and back from @row, where dense_row gathered it */
static void
scatter_row (const TsView *v,
             guint         dim,
             gint64        r,
             gint64        n,
             const float  *row)
{
  guint8 *p = (guint8 *) v->data + row_start (v, dim, r);
  gint64 stride = dim_stride (v, dim);

  if (row == (const float *)(gconstpointer) p)
    return;
  for (gint64 k = 0; k < n; k++)
    memcpy (p + k * stride, row + k, sizeof (float));
}

/* Whether @views (float32) take PyTorch's AVX2 last-dim kernels, and if
 * any row needs a copy, room for three rows in @buf */
static gboolean
sleef_lastdim (const TsView **views,
               guint          n_views,
               guint          dim,
               gint64         n,
               float        **buf)
{
  for (guint i = 0; i < n_views; i++)
    if (views[i]->dtype != TS_DTYPE_FLOAT32)
      return FALSE;
  if (!ts_cpu_have_avx2_fma () || (views[0]->ndim != 0 && dim != views[0]->ndim - 1))
    return FALSE;
  for (guint i = 0; i < n_views; i++)
    if (n > 1 && dim_stride (views[i], dim) != 4)
      *buf = g_new (float, 3 * n);
  return TRUE;
}

gboolean
ts_cpu_softmax (const TsView *in,
                guint         dim,
                gboolean      log,
                const TsView *out,
                GError      **error)
{
  gint64 n, rows;
  gboolean lastdim, f32, dense_f32, sleef_rows;
  guint sleef;
  g_autofree float *buf = NULL;

  g_return_val_if_fail (in != NULL && out != NULL, FALSE);
  g_return_val_if_fail (in->ndim == out->ndim, FALSE);
  g_return_val_if_fail (in->ndim == 0 || dim < in->ndim, FALSE);

  lastdim = in->ndim == 0 || dim == in->ndim - 1;
  if (!ts_softmax_check (in->dtype, lastdim, log, error))
    return FALSE;

  n = in->ndim == 0 ? 1 : in->shape[dim];
  rows = n == 0 ? 0 : ts_view_numel (in) / n;
  f32 = in->dtype == TS_DTYPE_FLOAT32 && out->dtype == TS_DTYPE_FLOAT32;
  dense_f32 = f32 && (n == 1 || (dim_stride (in, dim) == 4 && dim_stride (out, dim) == 4));
  sleef_rows = sleef_lastdim ((const TsView *[]) { in, out }, 2, dim, n, &buf);
  if (sleef_rows && rows > 0 && ts_view_is_contiguous (in) && ts_view_is_contiguous (out))
    {
      /* the usual call: row after row, without locating each (row_start
       * divides per dim, and was half of a small softmax's kernel time) */
      const float *x = (const float *)(gconstpointer) ((const guint8 *) in->data + row_start (in, dim, 0));
      float *y = (float *)(gpointer) ((guint8 *) out->data + row_start (out, dim, 0));

      for (gint64 r = 0; r < rows; r++, x += n, y += n)
        ts_cpu_sleef_softmax_row_f32 (x, y, n, log);
      return TRUE;
    }
  for (gint64 r = 0; r < rows; r++)
    {
      const guint8 *pi = (const guint8 *) in->data + row_start (in, dim, r);
      guint8 *po = (guint8 *) out->data + row_start (out, dim, r);

      if (sleef_rows)
        {
          float *y = dense_row (out, dim, r, n, buf + n);

          ts_cpu_sleef_softmax_row_f32 (dense_row (in, dim, r, n, buf), y, n, log);
          scatter_row (out, dim, r, n, y);
        }
      else if (f32 && (sleef = row_sleef (in, dim, r, log)) != 0)
        softmax_row_f32 (in, pi, dim_stride (in, dim), out, po, dim_stride (out, dim), n, log, sleef);
      else if (dense_f32)
        softmax_row_f32_dense ((const float *)(gconstpointer) pi, (float *)(gpointer) po, n, log);
      else if (in->dtype == TS_DTYPE_FLOAT64)
        softmax_row_f64 (in, pi, dim_stride (in, dim), out, po, dim_stride (out, dim), n, log, 0);
      else
        softmax_row_f32 (in, pi, dim_stride (in, dim), out, po, dim_stride (out, dim), n, log, 0);
    }
  return TRUE;
}

/* _softmax_backward_data: out * (g - sum (g * out)); and
 * _log_softmax_backward_data: g - exp (out) * sum (g), per row, the sum
 * accumulated in float (double for float64) as PyTorch's kernels.
 * @sleef for float32 along another dim than the last, on a CPU with AVX2
 * (_vec_softmax_backward, _vec_log_softmax_backward): bit 1, exp is
 * SLEEF's (row_sleef); bit 4, the multiply-adds are fused, as GCC
 * contracts them in PyTorch's AVX2 build, vector lanes and scalar tails
 * alike. */
#define DEFINE_SOFTMAX_BACKWARD_ROW(NAME, T, EXP, MUL_ADD)                    \
static void                                                                   \
NAME (const TsView *g, const TsView *y, const TsView *o, gint64 r, guint dim, \
      gint64 n, gboolean as_log, guint sleef)                                 \
{                                                                             \
  const guint8 *pg = (const guint8 *) g->data + row_start (g, dim, r);        \
  const guint8 *py = (const guint8 *) y->data + row_start (y, dim, r);        \
  guint8 *po = (guint8 *) o->data + row_start (o, dim, r);                    \
  gint64 sg = dim_stride (g, dim), sy = dim_stride (y, dim), so = dim_stride (o, dim); \
  T s = 0;                                                                    \
                                                                              \
  for (gint64 k = 0; k < n; k++)                                              \
    {                                                                         \
      T gk = (T) ts_dtype_load (g->dtype, pg + k * sg);                       \
      s = as_log ? s + gk : MUL_ADD (gk, (T) ts_dtype_load (y->dtype, py + k * sy), s); \
    }                                                                         \
  for (gint64 k = 0; k < n; k++)                                              \
    {                                                                         \
      T gk = (T) ts_dtype_load (g->dtype, pg + k * sg);                       \
      T yk = (T) ts_dtype_load (y->dtype, py + k * sy);                       \
      ts_dtype_store (o->dtype, po + k * so, as_log ? MUL_ADD (-EXP (yk), s, gk) : yk * (gk - s)); \
    }                                                                         \
}

#define MUL_ADD_F64(a, b, c) ((a) * (b) + (c))
#define MUL_ADD_F32(a, b, c) (sleef & 4 ? fmaf (a, b, c) : (a) * (b) + (c))
#define EXP_F32(x) (sleef & 1 ? ts_cpu_sleef_lane_f32 (TS_UNARY_EXP, x) : expf (x))
DEFINE_SOFTMAX_BACKWARD_ROW (softmax_backward_row_f64, double, exp, MUL_ADD_F64)
DEFINE_SOFTMAX_BACKWARD_ROW (softmax_backward_row_f32, float, EXP_F32, MUL_ADD_F32)
#undef EXP_F32
#undef MUL_ADD_F32
#undef MUL_ADD_F64

gboolean
ts_cpu_softmax_backward (const TsView *grad,
                         const TsView *output,
                         guint         dim,
                         gboolean      log,
                         const TsView *out,
                         GError      **error)
{
  gint64 n, rows;
  gboolean f32;
  g_autofree float *buf = NULL;

  g_return_val_if_fail (grad != NULL && output != NULL && out != NULL, FALSE);
  g_return_val_if_fail (grad->ndim == out->ndim && output->ndim == out->ndim, FALSE);
  g_return_val_if_fail (out->ndim == 0 || dim < out->ndim, FALSE);

  if (!ts_softmax_check (out->dtype, out->ndim == 0 || dim == out->ndim - 1, log, error))
    return FALSE;
  n = out->ndim == 0 ? 1 : out->shape[dim];
  rows = n == 0 ? 0 : ts_view_numel (out) / n;
  if (sleef_lastdim ((const TsView *[]) { grad, output, out }, 3, dim, n, &buf))
    {
      for (gint64 r = 0; r < rows; r++)
        {
          float *o = dense_row (out, dim, r, n, buf + 2 * n);

          ts_cpu_sleef_softmax_backward_row_f32 (dense_row (grad, dim, r, n, buf),
                                                 dense_row (output, dim, r, n, buf + n), o, n, log);
          scatter_row (out, dim, r, n, o);
        }
      return TRUE;
    }
  f32 = grad->dtype == TS_DTYPE_FLOAT32 && output->dtype == TS_DTYPE_FLOAT32 && out->dtype == TS_DTYPE_FLOAT32;
  for (gint64 r = 0; r < rows; r++)
    if (out->dtype == TS_DTYPE_FLOAT64)
      softmax_backward_row_f64 (grad, output, out, r, dim, n, log, 0);
    else
      softmax_backward_row_f32 (grad, output, out, r, dim, n, log,
                                f32 && ts_cpu_have_avx2_fma () ? (row_sleef (out, dim, r, TRUE) & 1) | 4 : 0);
  return TRUE;
}
