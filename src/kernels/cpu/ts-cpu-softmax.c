/* ts-cpu-softmax.c: softmax and log_softmax along one dim
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PyTorch's numerically stable form: per row, the maximum m (NaN wins),
 * then s = sum exp (x - m); softmax is exp (x - m) / s and log_softmax
 * x - m - log (s). float64 computes in double, every other floating
 * dtype in float (PyTorch accumulates half and bfloat16 in float).
 */

#include "config.h"

#include <math.h>

#include "ts-cpu-kernels.h"

#define DEFINE_SOFTMAX_ROW(NAME, T, S)                                        \
static void                                                                   \
NAME (const TsView *in, const guint8 *pi, gint64 si,                          \
      const TsView *out, guint8 *po, gint64 so, gint64 n, gboolean as_log)    \
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
    s += exp##S ((T) ts_dtype_load (in->dtype, pi + k * si) - m);             \
  for (gint64 k = 0; k < n; k++)                                              \
    {                                                                         \
      T x = (T) ts_dtype_load (in->dtype, pi + k * si) - m;                   \
      ts_dtype_store (out->dtype, po + k * so, as_log ? x - log##S (s) : exp##S (x) / s); \
    }                                                                         \
}

DEFINE_SOFTMAX_ROW (softmax_row_f64, double, )
DEFINE_SOFTMAX_ROW (softmax_row_f32, float, f)

/* PyTorch's dispatch message, which names its kernel: one per op along
 * the last dim, one for both along another */
gboolean
ts_softmax_check (TsDType    dtype,
                  gboolean   lastdim,
                  gboolean   log,
                  GError   **error)
{
  if (ts_dtype_is_floating (dtype))
    return TRUE;
  g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_DTYPE,
               "\"%s_kernel_impl\" not implemented for '%s'",
               !lastdim ? "softmax" : log ? "log_softmax_lastdim" : "softmax_lastdim",
               ts_dtype_scalar_type_name (dtype));
  return FALSE;
}

gboolean
ts_cpu_softmax (const TsView *in,
                guint         dim,
                gboolean      log,
                const TsView *out,
                GError      **error)
{
  gsize isize, osize;
  gint64 n, rows;

  g_return_val_if_fail (in != NULL && out != NULL, FALSE);
  g_return_val_if_fail (in->ndim == out->ndim, FALSE);
  g_return_val_if_fail (in->ndim == 0 || dim < in->ndim, FALSE);

  if (!ts_softmax_check (in->dtype, in->ndim == 0 || dim == in->ndim - 1, log, error))
    return FALSE;

  isize = ts_dtype_size (in->dtype);
  osize = ts_dtype_size (out->dtype);
  n = in->ndim == 0 ? 1 : in->shape[dim];
  rows = n == 0 ? 0 : ts_view_numel (in) / n;
  for (gint64 r = 0; r < rows; r++)
    {
      const guint8 *pi = in->data;
      guint8 *po = out->data;
      gint64 oi = in->offset, oo = out->offset, rest = r;

      /* the row's start: r over the other dims, the last fastest */
      for (guint d = in->ndim; d-- > 0;)
        {
          gint64 idx;

          if (d == dim)
            continue;
          idx = rest % in->shape[d];
          rest /= in->shape[d];
          oi += idx * in->strides[d];
          oo += idx * out->strides[d];
        }
      pi += oi * (gint64) isize;
      po += oo * (gint64) osize;
      if (in->dtype == TS_DTYPE_FLOAT64)
        softmax_row_f64 (in, pi, in->ndim ? in->strides[dim] * (gint64) isize : 0,
                         out, po, out->ndim ? out->strides[dim] * (gint64) osize : 0, n, log);
      else
        softmax_row_f32 (in, pi, in->ndim ? in->strides[dim] * (gint64) isize : 0,
                         out, po, out->ndim ? out->strides[dim] * (gint64) osize : 0, n, log);
    }
  return TRUE;
}
