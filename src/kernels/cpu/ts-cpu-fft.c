/* ts-cpu-fft.c: _fft_c2c, _fft_r2c and _fft_c2r by FFTW's guru interface
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * See ts-cpu-fft.h. Each call plans with FFTW_ESTIMATE (which neither
 * measures nor touches the arrays), executes once and destroys the plan:
 * the simulated device's plan cache (cuFFT's) is modelled in the core,
 * and FFTW's own wisdom makes a repeated plan cheap anyway.
 */

#include "config.h"

#include <fftw3.h>
#include <math.h>
#include <string.h>

#include "ts-cpu-fft.h"
#include "ts-cpu-kernels-private.h"

/* FFTW's planner is not thread-safe; its execute is. */
static GMutex planner_lock;

static gboolean
is_transformed (const TsFftDesc *desc,
                guint            d)
{
  for (guint i = 0; i < desc->n_dims; i++)
    if ((guint) desc->dims[i] == d)
      return TRUE;
  return FALSE;
}

gboolean
ts_fft_output_shape (const TsFftDesc *desc,
                     guint            ndim,
                     const gint64    *in_shape,
                     gint64           last_dim_size,
                     gint64          *out_shape,
                     GError         **error)
{
  int last = desc->dims[desc->n_dims - 1];

  g_return_val_if_fail (desc->n_dims > 0, FALSE);

  memcpy (out_shape, in_shape, ndim * sizeof (gint64));
  if (desc->kind == TS_FFT_R2C && desc->flag)
    out_shape[last] = in_shape[last] / 2 + 1;
  else if (desc->kind == TS_FFT_C2R)
    out_shape[last] = last_dim_size;
  for (guint i = 0; i < desc->n_dims; i++)
    {
      gint64 n = desc->kind == TS_FFT_C2R ? out_shape[desc->dims[i]] : in_shape[desc->dims[i]];

      if (n < 1)
        return ts_kernel_fail (error, TS_KERNEL_ERROR_ARGUMENT,
                               "Invalid number of data points (%" G_GINT64_FORMAT ") specified", n);
    }
  return TRUE;
}

/* the points of one transform: the real side's sizes of the dims */
static double
signal_points (const TsFftDesc *desc,
               const TsView    *in,
               const TsView    *out)
{
  const TsView *real_side = desc->kind == TS_FFT_C2R ? out : in;
  double n = 1;

  for (guint i = 0; i < desc->n_dims; i++)
    n *= (double) real_side->shape[desc->dims[i]];
  return n;
}

double
ts_fft_flops (const TsFftDesc *desc,
              const TsView    *in,
              const TsView    *out)
{
  double n = signal_points (desc, in, out);
  double batch = n > 0 ? (double) ts_view_numel (desc->kind == TS_FFT_C2R ? out : in) / n : 0;
  double per = 5.0 * n * log2 (MAX (n, 2.0));

  return batch * (desc->kind == TS_FFT_C2C ? per : per / 2);
}

/* The guru dims: the transformed ones (n, in and out strides) in @desc's
 * order, the others as the batch. Sizes are the real side's. */
static void
guru_dims (const TsFftDesc *desc,
           const TsView    *in,
           const TsView    *out,
           fftw_iodim64    *dims,
           fftw_iodim64    *batch,
           int             *n_batch)
{
  const TsView *real_side = desc->kind == TS_FFT_C2R ? out : in;

  for (guint i = 0; i < desc->n_dims; i++)
    {
      int d = desc->dims[i];

      dims[i] = (fftw_iodim64) { real_side->shape[d], in->strides[d], out->strides[d] };
    }
  *n_batch = 0;
  for (guint d = 0; d < in->ndim; d++)
    if (!is_transformed (desc, d))
      batch[(*n_batch)++] = (fftw_iodim64) { in->shape[d], in->strides[d], out->strides[d] };
}

/* One precision's planning and execution: T is the real type, P FFTW's
 * prefix (fftw or fftwf). Returns FALSE when FFTW gives no plan. */
#define DEFINE_FFT_RUN(NAME, T, P)                                            \
static gboolean                                                               \
NAME (const TsFftDesc *desc,                                                  \
      const fftw_iodim64 *dims,                                               \
      const fftw_iodim64 *batch,                                              \
      int n_batch,                                                            \
      void *in,                                                               \
      void *out)                                                              \
{                                                                             \
  P##_plan plan;                                                              \
                                                                              \
  g_mutex_lock (&planner_lock);                                               \
  if (desc->kind == TS_FFT_C2C)                                               \
    plan = P##_plan_guru64_dft ((int) desc->n_dims, dims, n_batch, batch,     \
                                in, out, desc->flag ? FFTW_FORWARD : FFTW_BACKWARD, \
                                FFTW_ESTIMATE);                               \
  else if (desc->kind == TS_FFT_R2C)                                          \
    plan = P##_plan_guru64_dft_r2c ((int) desc->n_dims, dims, n_batch, batch, \
                                    in, out, FFTW_ESTIMATE);                  \
  else                                                                        \
    plan = P##_plan_guru64_dft_c2r ((int) desc->n_dims, dims, n_batch, batch, \
                                    in, out, FFTW_ESTIMATE);                  \
  g_mutex_unlock (&planner_lock);                                             \
  if (plan == NULL)                                                           \
    return FALSE;                                                             \
  P##_execute (plan);                                                         \
  g_mutex_lock (&planner_lock);                                               \
  P##_destroy_plan (plan);                                                    \
  g_mutex_unlock (&planner_lock);                                             \
  return TRUE;                                                                \
}

DEFINE_FFT_RUN (run_double, double, fftw)
DEFINE_FFT_RUN (run_float, float, fftwf)

static void
scale_output (const TsView *out,
              double        scale)
{
  gint64 n = ts_view_numel (out);
  int parts = ts_dtype_is_complex (out->dtype) ? 2 : 1;
  gboolean single = ts_dtype_to_real (out->dtype) == TS_DTYPE_FLOAT32;

  if (ts_view_is_contiguous (out))
    {
      /* the common case (the core allocates the output): one flat loop */
      char *p = ts_view_linear_ptr (out, 0);

      if (single)
        for (gint64 i = 0; i < n * parts; i++)
          ((float *) p)[i] *= (float) scale;
      else
        for (gint64 i = 0; i < n * parts; i++)
          ((double *) p)[i] *= scale;
      return;
    }
  for (gint64 i = 0; i < n; i++)
    {
      char *p = ts_view_linear_ptr (out, i);

      for (int part = 0; part < parts; part++)
        {
          if (single)
            ((float *) p)[part] *= (float) scale;
          else
            ((double *) p)[part] *= scale;
        }
    }
}

/* A contiguous copy of @src as @dtype into @buffer (a new allocation). */
static gboolean
contiguous_copy (const TsView  *src,
                 TsDType        dtype,
                 TsView        *copy,
                 gpointer      *buffer,
                 GError       **error)
{
  *buffer = g_try_malloc (MAX ((gsize) ts_view_numel (src) * ts_dtype_size (dtype), 1));
  if (*buffer == NULL)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_ARGUMENT,
                           "fft: not enough host memory for a copy of the input");
  ts_view_init (copy, dtype, *buffer, src->ndim, src->shape, NULL, 0);
  return ts_cpu_copy (copy, src, error);
}

gboolean
ts_cpu_fft (const TsFftDesc *desc,
            const TsView    *in,
            const TsView    *out,
            GError         **error)
{
  fftw_iodim64 dims[TS_MAX_DIMS], batch[TS_MAX_DIMS];
  g_autofree gpointer scratch = NULL;
  TsView copy;
  TsFftDesc run = *desc;
  const TsView *src = in;
  int n_batch;
  double n;
  gboolean ok;

  g_return_val_if_fail (desc->n_dims > 0 && in->ndim == out->ndim, FALSE);

  if (ts_view_numel (out) == 0)
    return TRUE;
  if (desc->kind == TS_FFT_R2C && !desc->flag)
    {
      /* the full (two-sided) spectrum of a real input: a forward c2c of
       * its complex copy gives the same values, Hermitian half included */
      if (!contiguous_copy (in, out->dtype, &copy, &scratch, error))
        return FALSE;
      run.kind = TS_FFT_C2C;
      run.flag = TRUE;
      src = &copy;
    }
  else if (desc->kind == TS_FFT_C2R)
    {
      /* FFTW's multi-dimensional c2r overwrites its input */
      if (!contiguous_copy (in, in->dtype, &copy, &scratch, error))
        return FALSE;
      src = &copy;
    }

  guru_dims (&run, src, out, dims, batch, &n_batch);
  if (ts_dtype_to_real (src->dtype) == TS_DTYPE_FLOAT32)
    ok = run_float (&run, dims, batch, n_batch, ts_view_linear_ptr (src, 0), ts_view_linear_ptr (out, 0));
  else
    ok = run_double (&run, dims, batch, n_batch, ts_view_linear_ptr (src, 0), ts_view_linear_ptr (out, 0));
  if (!ok)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_ARGUMENT, "fft: FFTW could not plan this transform");

  n = signal_points (desc, in, out);
  if (desc->norm == TS_FFT_NORM_BY_N)
    scale_output (out, 1.0 / n);
  else if (desc->norm == TS_FFT_NORM_BY_ROOT_N)
    scale_output (out, 1.0 / sqrt (n));
  return TRUE;
}
