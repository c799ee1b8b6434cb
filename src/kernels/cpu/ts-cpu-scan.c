/* ts-cpu-scan.c: running sums, products, maxima and minima along a dim
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * As PyTorch's CPU kernel: the input is first converted to the output's
 * dtype, then accumulated in double (floating outputs) or int64, each
 * partial result rounded into the output.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-cpu-kernels.h"
#include "ts-cpu-kernels-private.h"

/* @p's element (dtype @from) converted to @to, then read back */
static void
load_as (TsDType     from,
         const void *p,
         TsDType     to,
         double     *f,
         gint64     *i)
{
  guint64 tmp;

  if (ts_dtype_is_floating (from))
    ts_dtype_store (to, &tmp, ts_dtype_load (from, p));
  else
    ts_dtype_store_int (to, &tmp, ts_dtype_load_int (from, p));
  if (ts_dtype_is_floating (to))
    *f = ts_dtype_load (to, &tmp);
  else
    *i = ts_dtype_load_int (to, &tmp);
}

/* cummax/cummin of one slice: @src/@dst/@idst with byte steps */
static void
scan_extreme (TsScanOp      op,
              TsDType       dtype,
              const guint8 *src,
              gint64        in_step,
              guint8       *dst,
              gint64        out_step,
              guint8       *idst,
              gint64        i_step,
              gint64        size)
{
  gboolean floating = ts_dtype_is_floating (dtype), is_max = op == TS_SCAN_CUMMAX;
  gsize esize = ts_dtype_size (dtype);
  const guint8 *best = src;
  gint64 best_k = 0;

  for (gint64 k = 0; k < size; k++, src += in_step, dst += out_step, idst += i_step)
    {
      gboolean take;

      if (floating)
        {
          double v = ts_dtype_load (dtype, src), b = ts_dtype_load (dtype, best);

          take = k == 0 || (!isnan (b) && (isnan (v) || (is_max ? v >= b : v <= b)));
        }
      else
        {
          gint64 v = ts_dtype_load_int (dtype, src), b = ts_dtype_load_int (dtype, best);

          take = k == 0 || (is_max ? v >= b : v <= b);
        }
      if (take)
        {
          best = src;
          best_k = k;
        }
      memcpy (dst, best, esize);
      ts_dtype_store_int (TS_DTYPE_INT64, idst, best_k);
    }
}

gboolean
ts_cpu_scan (TsScanOp      op,
             const TsView *in,
             guint         dim,
             const TsView *out,
             const TsView *indices,
             GError      **error)
{
  gboolean floating = ts_dtype_is_floating (out->dtype);
  gint64 size = in->ndim ? in->shape[dim] : 1;
  gint64 idx[TS_MAX_DIMS] = { 0 };
  gint64 n_slices = 1;

  g_return_val_if_fail (in != NULL && out != NULL && op < TS_N_SCAN_OPS, FALSE);

  if (in->ndim != out->ndim || ((op == TS_SCAN_CUMMAX || op == TS_SCAN_CUMMIN) &&
                                  (indices == NULL || out->dtype != in->dtype)))
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE, "scan: the output's shape must be the input's");
  for (guint d = 0; d < in->ndim; d++)
    if (d != dim)
      n_slices *= in->shape[d];
  for (gint64 s = 0; s < n_slices && size > 0; s++)
    {
      double facc = op == TS_SCAN_CUMPROD ? 1.0 : 0.0;
      gint64 iacc = op == TS_SCAN_CUMPROD ? 1 : 0;

      ts_slice_index (in, dim, s, idx);
      {
        /* the slice: a base and a byte step along the dim */
        const guint8 *src = ts_view_element_ptr (in, idx);
        guint8 *dst = ts_view_element_ptr (out, idx);
        gint64 in_step = in->ndim ? in->strides[dim] * (gint64) ts_dtype_size (in->dtype) : 0;
        gint64 out_step = out->ndim ? out->strides[dim] * (gint64) ts_dtype_size (out->dtype) : 0;
        gboolean same = in->dtype == out->dtype;

        if (op == TS_SCAN_CUMMAX || op == TS_SCAN_CUMMIN)
          {
            scan_extreme (op, in->dtype, src, in_step, dst, out_step, ts_view_element_ptr (indices, idx),
                          indices->ndim ? indices->strides[dim] * 8 : 0, size);
            continue;
          }

        if (same && in->dtype == TS_DTYPE_FLOAT32)
          {
            /* the common case without a dtype switch per element: the
             * same double accumulation and rounding */
            for (gint64 k = 0; k < size; k++, src += in_step, dst += out_step)
              {
                float x, r;

                memcpy (&x, src, sizeof x);
                facc = op == TS_SCAN_CUMPROD ? facc * x : facc + x;
                r = (float) facc;
                memcpy (dst, &r, sizeof r);
              }
            continue;
          }
        for (gint64 k = 0; k < size; k++, src += in_step, dst += out_step)
          {
            double f = 0;
            gint64 i = 0;

            if (same && floating)
              f = ts_dtype_load (in->dtype, src);
            else if (same)
              i = ts_dtype_load_int (in->dtype, src);
            else
              load_as (in->dtype, src, out->dtype, &f, &i);
            if (floating)
              {
                facc = op == TS_SCAN_CUMPROD ? facc * f : facc + f;
                ts_dtype_store (out->dtype, dst, facc);
              }
            else
              {
                /* wraps on overflow, as C++'s int64 arithmetic in PyTorch */
                iacc = (gint64) (op == TS_SCAN_CUMPROD ? (guint64) iacc * (guint64) i
                                                       : (guint64) iacc + (guint64) i);
                ts_dtype_store_int (out->dtype, dst, iacc);
              }
          }
      }
    }
  return TRUE;
}
