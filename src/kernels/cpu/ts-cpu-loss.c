/* ts-cpu-loss.c: the negative log-likelihood loss kernels
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PyTorch 1.13's CPU kernels (LossNLL.cpp, LossNLL2d.cpp) in their order
 * of operations, so that the sums round as theirs do: each step is done in
 * double and rounded to the kernel's scalar type (float32 for float32 and
 * for float16, whose CUDA kernel accumulates in float; bfloat16 for
 * bfloat16, which PyTorch's CPU kernel accumulates in bfloat16 itself).
 * One operation in double rounded to float gives float's own result: the
 * double has more than twice float's precision. The loss reads one value
 * per sample, so the elements go through ts_dtype_load/store, not a
 * vectorized loop.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-cpu-kernels-private.h"
#include "ts-cpu-loss.h"
#include "ts-dtype.h"

/* The rounding of the kernel's scalar_t after each operation */
static double
rnd (TsDType dtype,
     double  v)
{
  guint16 bits;

  switch (dtype)
    {
    case TS_DTYPE_FLOAT64:
      return v;
    case TS_DTYPE_BFLOAT16:
      ts_dtype_store (TS_DTYPE_BFLOAT16, &bits, v);
      return ts_dtype_load (TS_DTYPE_BFLOAT16, &bits);
    default:
      return (double) (float) v;
    }
}

static gpointer
base (const TsView *v)
{
  return (char *) v->data + v->offset * (gint64) ts_dtype_size (v->dtype);
}

static double
load (const TsView *v,
      gint64        i)
{
  return ts_dtype_load (v->dtype, (char *) base (v) + i * (gint64) ts_dtype_size (v->dtype));
}

static void
store (const TsView *v,
       gint64        i,
       double        value)
{
  ts_dtype_store (v->dtype, (char *) base (v) + i * (gint64) ts_dtype_size (v->dtype), value);
}

static gint64
target_at (const TsView *target,
           gint64        i)
{
  return ((const gint64 *) base (target))[i];
}

static gboolean
check_dtypes (const TsView  *self,
              const TsView  *target,
              GError       **error)
{
  if (target->dtype != TS_DTYPE_INT64 ||
      (self->dtype != TS_DTYPE_FLOAT32 && self->dtype != TS_DTYPE_FLOAT64 &&
       self->dtype != TS_DTYPE_FLOAT16 && self->dtype != TS_DTYPE_BFLOAT16))
    return ts_kernel_fail (error, TS_KERNEL_ERROR_DTYPE, "nll_loss: unsupported dtypes");
  return TRUE;
}

/* utils::CeilLog2 of ATen */
static gint64
ceil_log2 (gint64 x)
{
  gint64 bits = 0;

  if (x <= 2)
    return 1;
  for (guint64 v = (guint64) x - 1; v != 0; v >>= 1)
    bits++;
  return bits;
}

#define CASCADE_LEVELS 8

gboolean
ts_cpu_nll_loss (const TsNllLoss *p,
                 const TsView    *self,
                 const TsView    *target,
                 const TsView    *weight,
                 const TsView    *out,
                 const TsView    *total_weight,
                 TsIndexFailure  *failure,
                 GError         **error)
{
  TsDType dt = self->dtype;
  gint64 numiter = p->n * p->s;
  /* Cascaded summation (PyTorch's, to bound the error of long sums): a
   * level's partial sum carries into the next every 2^level_power
   * samples */
  gint64 level_power = MAX (4, ceil_log2 (numiter) / CASCADE_LEVELS);
  gint64 level_mask = ((gint64) 1 << level_power) - 1;
  double loss_sums[CASCADE_LEVELS] = { 0 };
  double weight_sums[CASCADE_LEVELS] = { 0 };
  double loss = 0, total = 0;
  gint64 ignored = 0;

  if (!check_dtypes (self, target, error))
    return FALSE;
  for (gint64 i = 0; i < numiter; i++)
    {
      gint64 t = target_at (target, i);
      gint64 b = i / p->s, e = i % p->s;
      double x, w;

      if (t == p->ignore_index)
        {
          ignored++;
          if (p->reduction == TS_REDUCTION_NONE)
            store (out, i, 0.0);
          continue;
        }
      if (t < 0 || t >= p->c)
        {
          if (failure != NULL)
            {
              failure->position = i;
              failure->dim_size = p->c;
            }
          g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_INDEX, "Target %" G_GINT64_FORMAT " is out of bounds.",
                       t);
          return FALSE;
        }
      x = load (self, (b * p->c + t) * p->s + e);
      w = weight != NULL ? load (weight, t) : 1.0;
      if (p->reduction == TS_REDUCTION_NONE)
        {
          store (out, i, rnd (dt, -x * w));
          continue;
        }
      loss_sums[0] = rnd (dt, loss_sums[0] - rnd (dt, x * w));
      weight_sums[0] = rnd (dt, weight_sums[0] + w);
      for (int j = 0; j + 1 < CASCADE_LEVELS; j++)
        {
          if ((i & (level_mask << (j * level_power))) != 0)
            break;
          weight_sums[j + 1] = rnd (dt, weight_sums[j + 1] + weight_sums[j]);
          loss_sums[j + 1] = rnd (dt, loss_sums[j + 1] + loss_sums[j]);
          weight_sums[j] = 0;
          loss_sums[j] = 0;
        }
    }
  if (p->reduction == TS_REDUCTION_NONE)
    {
      store (total_weight, 0, 0.0);
      return TRUE;
    }
  /* std::accumulate over the levels, from the first */
  for (int j = 0; j < CASCADE_LEVELS; j++)
    {
      loss = rnd (dt, loss + loss_sums[j]);
      total = rnd (dt, total + weight_sums[j]);
    }
  if (weight == NULL)
    total = rnd (dt, (double) (numiter - ignored));
  if (p->reduction == TS_REDUCTION_MEAN)
    loss = rnd (dt, loss / total);
  store (out, 0, loss);
  store (total_weight, 0, total);
  return TRUE;
}

gboolean
ts_cpu_nll_loss_backward (const TsNllLoss *p,
                          const TsView    *grad_output,
                          const TsView    *target,
                          const TsView    *weight,
                          const TsView    *total_weight,
                          const TsView    *grad_input,
                          GError         **error)
{
  TsDType dt = grad_input->dtype;
  gint64 numiter = p->n * p->s;
  double grad = 0;

  if (!check_dtypes (grad_input, target, error))
    return FALSE;
  /* zero is all-zero bits in every floating dtype */
  memset (base (grad_input), 0, (gsize) (p->n * p->c * p->s) * ts_dtype_size (dt));
  if (p->reduction != TS_REDUCTION_NONE)
    {
      double g = load (grad_output, 0);

      grad = -(p->reduction == TS_REDUCTION_MEAN ? rnd (dt, g / load (total_weight, 0)) : g);
    }
  for (gint64 i = 0; i < numiter; i++)
    {
      gint64 t = target_at (target, i);
      gint64 b = i / p->s, e = i % p->s;
      double w;

      /* the forward checked the targets: an out-of-range one is skipped */
      if (t == p->ignore_index || t < 0 || t >= p->c)
        continue;
      w = weight != NULL ? load (weight, t) : 1.0;
      store (grad_input, (b * p->c + t) * p->s + e,
             p->reduction == TS_REDUCTION_NONE ? rnd (dt, -w * load (grad_output, i)) : rnd (dt, w * grad));
    }
  return TRUE;
}
