/* ts-cpu-more.c: CPU kernels of the ops of issue #14
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-cpu-kernels.h"

/* where: a copy of the chosen element, bit for bit (-0.0 and NaN
 * payloads included), as ATen's where_kernel does. */
gboolean
ts_cpu_where (const TsView  *out,
              const TsView  *cond,
              const TsView  *self,
              const TsView  *other,
              GError       **error)
{
  gsize elem = ts_dtype_size (out->dtype);
  gint64 n = ts_view_numel (out);

  if (cond->dtype != TS_DTYPE_BOOL || self->dtype != out->dtype || other->dtype != out->dtype ||
      ts_view_numel (cond) != n || ts_view_numel (self) != n || ts_view_numel (other) != n)
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_SHAPE,
                           "where(): the condition or operands do not match the output");
      return FALSE;
    }
  for (gint64 e = 0; e < n; e++)
    {
      const TsView *pick = *(const guint8 *) ts_view_linear_ptr (cond, e) ? self : other;

      memcpy (ts_view_linear_ptr (out, e), ts_view_linear_ptr (pick, e), elem);
    }
  return TRUE;
}

/* -- lerp and addcmul -----------------------------------------------------
 *
 * PyTorch's CPU kernels for these are scalar loops that GCC contracts
 * (-ffp-contract=fast on an FMA build): lerp is fma (w, end - self, self)
 * for w below 0.5 (negative ones too: the test is not on |w|) and
 * fma (-(end - self), 1 - w, end) from 0.5 up; addcmul is
 * fma (value * t1, t2, self). fmaf()/fma() here round as that build does;
 * the half types round after each operation, as c10::Half's operators do,
 * and integers compute in wrapping int64. */

static double
half_round (TsDType dtype,
            double  v)
{
  guint8 buf[8];

  ts_dtype_store (dtype, buf, v);
  return ts_dtype_load (dtype, buf);
}

static double
lerp_one (TsDType dtype,
          double  s,
          double  e,
          double  w)
{
  if (dtype == TS_DTYPE_FLOAT32)
    {
      float fs = (float) s, fe = (float) e, fw = (float) w, d = fe - fs;

      return fw < 0.5f ? fmaf (fw, d, fs) : fmaf (-d, 1.0f - fw, fe);
    }
  if (dtype == TS_DTYPE_FLOAT64)
    {
      double d = e - s;

      return w < 0.5 ? fma (w, d, s) : fma (-d, 1.0 - w, e);
    }
  /* float16/bfloat16 (CUDA tensors: the opmath is float) */
  {
    float fs = (float) s, fe = (float) e, fw = (float) w, d = fe - fs;

    return fw < 0.5f ? fmaf (fw, d, fs) : fmaf (-d, 1.0f - fw, fe);
  }
}

gboolean
ts_cpu_lerp (const TsView  *out,
             const TsView  *self,
             const TsView  *end,
             const TsView  *weight,
             double         scalar_weight,
             GError       **error)
{
  gint64 n = ts_view_numel (out);

  if (!ts_dtype_is_floating (out->dtype) || self->dtype != out->dtype || end->dtype != out->dtype ||
      (weight != NULL && weight->dtype != out->dtype) || ts_view_numel (self) != n ||
      ts_view_numel (end) != n || (weight != NULL && ts_view_numel (weight) != n))
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_SHAPE,
                           "lerp(): the operands do not match the output");
      return FALSE;
    }
  for (gint64 i = 0; i < n; i++)
    {
      double w = weight != NULL ? ts_dtype_load (out->dtype, ts_view_linear_ptr (weight, i)) : scalar_weight;
      double r = lerp_one (out->dtype, ts_dtype_load (out->dtype, ts_view_linear_ptr (self, i)),
                           ts_dtype_load (out->dtype, ts_view_linear_ptr (end, i)), w);

      ts_dtype_store (out->dtype, ts_view_linear_ptr (out, i), r);
    }
  return TRUE;
}

static void
addcmul_one (TsDType  dtype,
             gpointer dst,
             gconstpointer s,
             gconstpointer a,
             gconstpointer b,
             double   value)
{
  if (dtype == TS_DTYPE_FLOAT32)
    {
      float r = fmaf ((float) value * *(const float *) a, *(const float *) b, *(const float *) s);

      memcpy (dst, &r, sizeof r);
    }
  else if (dtype == TS_DTYPE_FLOAT64)
    {
      double r = fma (value * *(const double *) a, *(const double *) b, *(const double *) s);

      memcpy (dst, &r, sizeof r);
    }
  else if (ts_dtype_is_floating (dtype))
    {
      double v = half_round (dtype, value);
      double p = half_round (dtype, half_round (dtype, v * ts_dtype_load (dtype, a)) * ts_dtype_load (dtype, b));

      ts_dtype_store (dtype, dst, p + ts_dtype_load (dtype, s));
    }
  else
    {
      guint64 v = (guint64) (gint64) value;
      guint64 r = (guint64) ts_dtype_load_int (dtype, s) +
                  v * (guint64) ts_dtype_load_int (dtype, a) * (guint64) ts_dtype_load_int (dtype, b);

      ts_dtype_store_int (dtype, dst, (gint64) r);
    }
}

gboolean
ts_cpu_addcmul (const TsView  *out,
                const TsView  *self,
                const TsView  *tensor1,
                const TsView  *tensor2,
                double         value,
                GError       **error)
{
  gint64 n = ts_view_numel (out);

  if (self->dtype != out->dtype || tensor1->dtype != out->dtype || tensor2->dtype != out->dtype ||
      ts_view_numel (self) != n || ts_view_numel (tensor1) != n || ts_view_numel (tensor2) != n)
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_SHAPE,
                           "addcmul(): the operands do not match the output");
      return FALSE;
    }
  for (gint64 i = 0; i < n; i++)
    addcmul_one (out->dtype, ts_view_linear_ptr (out, i), ts_view_linear_ptr (self, i),
                 ts_view_linear_ptr (tensor1, i), ts_view_linear_ptr (tensor2, i), value);
  return TRUE;
}
