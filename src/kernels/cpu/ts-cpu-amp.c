/* ts-cpu-amp.c: GradScaler's two kernels
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PyTorch 1.13's _amp_foreach_non_finite_check_and_unscale_ and
 * _amp_update_scale_ (aten/src/ATen/native/cuda/AmpKernels.cu and its CPU
 * twin), for one gradient at a time. The arithmetic is theirs: a half or
 * float gradient is unscaled in float (the CUDA kernels' opmath), and the
 * scale is a float multiplied by a double factor.
 */

#include "config.h"

#include <math.h>

#include "ts-cpu-kernels.h"
#include "ts-cpu-kernels-private.h"

typedef struct
{
  TsDType dtype;
  float   inv_scale;
  double  inv_scale_double;
  gboolean found_inf;
} Unscale;

static void
unscale_loop (char         **ptrs,
              const gint64  *strides,
              gint64         n,
              gpointer       user_data)
{
  Unscale *u = user_data;

  for (gint64 j = 0; j < n; j++)
    {
      char *p = ptrs[0] + j * strides[0];
      double v = ts_dtype_load (u->dtype, p);

      if (u->dtype == TS_DTYPE_FLOAT64)
        {
          u->found_inf |= !isfinite (v);
          ts_dtype_store (u->dtype, p, u->inv_scale == 1.f ? v : v * u->inv_scale_double);
        }
      else
        {
          float f = (float) v;

          u->found_inf |= !isfinite (f);
          ts_dtype_store (u->dtype, p, u->inv_scale == 1.f ? f : f * u->inv_scale);
        }
    }
}

gboolean
ts_cpu_amp_unscale (const TsView *grad,
                    const TsView *found_inf,
                    const TsView *inv_scale,
                    GError      **error)
{
  const TsView *operands[1] = { grad };
  Unscale u = { grad->dtype, 0, 0, FALSE };
  TsIter iter;

  if (!ts_dtype_is_floating (grad->dtype) || found_inf->dtype != TS_DTYPE_FLOAT32 ||
      inv_scale->dtype != TS_DTYPE_FLOAT32)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_DTYPE,
                           "found_inf and inv_scale must be float tensors, and the gradients floating");
  u.inv_scale = (float) ts_dtype_load (TS_DTYPE_FLOAT32, ts_view_linear_ptr (inv_scale, 0));
  u.inv_scale_double = u.inv_scale;
  if (!ts_iter_init (&iter, grad->ndim, grad->shape, operands, 1, error))
    return FALSE;
  ts_iter_for_each (&iter, unscale_loop, &u);
  /* found_inf only ever goes up: the other gradients' checks share it */
  if (u.found_inf)
    ts_dtype_store (TS_DTYPE_FLOAT32, ts_view_linear_ptr (found_inf, 0), 1.0);
  return TRUE;
}

gboolean
ts_cpu_amp_update_scale (const TsView *scale,
                         const TsView *growth_tracker,
                         const TsView *found_inf,
                         double        growth_factor,
                         double        backoff_factor,
                         gint64        growth_interval,
                         GError      **error)
{
  gpointer ps, pt;
  float current;
  gint64 successful;

  if (scale->dtype != TS_DTYPE_FLOAT32 || growth_tracker->dtype != TS_DTYPE_INT32 ||
      found_inf->dtype != TS_DTYPE_FLOAT32)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_DTYPE,
                           "_amp_update_scale_: the scale and found_inf must be float, the growth tracker int");
  ps = ts_view_linear_ptr (scale, 0);
  pt = ts_view_linear_ptr (growth_tracker, 0);
  current = (float) ts_dtype_load (TS_DTYPE_FLOAT32, ps);
  if (ts_dtype_load (TS_DTYPE_FLOAT32, ts_view_linear_ptr (found_inf, 0)) != 0.0)
    {
      ts_dtype_store (TS_DTYPE_FLOAT32, ps, (float) (current * backoff_factor));
      ts_dtype_store_int (TS_DTYPE_INT32, pt, 0);
      return TRUE;
    }
  successful = ts_dtype_load_int (TS_DTYPE_INT32, pt) + 1;
  if (successful == growth_interval)
    {
      float grown = (float) (current * growth_factor);

      /* a scale that would overflow stays where it is */
      if (isfinite (grown))
        ts_dtype_store (TS_DTYPE_FLOAT32, ps, grown);
      successful = 0;
    }
  ts_dtype_store_int (TS_DTYPE_INT32, pt, successful);
  return TRUE;
}
