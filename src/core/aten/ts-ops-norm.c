/* ts-ops-norm.c: the NORM family: native_batch_norm, native_group_norm
 * and their backwards
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each op runs as a few per-channel jobs (ts-cpu-pool.c's TsNormPhase):
 * statistics (and the running stats' update), affine coefficients, the
 * transform; backward: reductions, coefficients, the input's gradient.
 * Operands are read dense and in float32 or float64 (ts-ops-pool.c's
 * helpers). No device kernels yet: a real GPU runs them on the host
 * fallback.
 */

#include "config.h"

#include <string.h>

#include "ts-autograd-formulas.h"
#include "ts-op-table.h"
#include "ts-ops-norm.h"
#include "ts-ops-private.h"

/* layer norm's jobs: arg the rows, p0 eps; the slots in ts-op-list.def */
static gboolean
layer_norm_job (TsOpJob             *job,
                const TsView        *v,
                const TsOpJobArgs   *args,
                GError             **error)
{
  TsView v4, v5;

  ts_op_job_view (job, 4, &v4);
  ts_op_job_view (job, 5, &v5);
  if (ts_op_job_desc (job)->id == TS_OP_NATIVE_LAYER_NORM)
    return ts_cpu_layer_norm (&v[1], &v[2], &v[3], args->arg, args->p0, &v[0], &v4, &v5, error);
  if (args->dim == 0)
    return ts_cpu_layer_norm_backward (&v[1], &v[2], &v[3], &v4, &v5, args->arg, &v[0], NULL, NULL, error);
  return ts_cpu_layer_norm_backward (&v[1], &v[2], &v[3], &v4, NULL, args->arg, NULL, &v[0], &v5, error);
}

gboolean
ts_ops_norm_job (TsOpJob  *job,
                 GError  **error)
{
  TsView v[4];
  TsOpJobArgs args;
  double momentum, eps;
  TsOpId id = ts_op_job_desc (job)->id;

  /* arg and mask carry two doubles' bits, dim the phase */
  ts_op_job_unpack (job, v, &args);
  if (id == TS_OP_NATIVE_LAYER_NORM || id == TS_OP_NATIVE_LAYER_NORM_BACKWARD)
    return layer_norm_job (job, v, &args, error);
  memcpy (&momentum, &args.arg, sizeof momentum);
  memcpy (&eps, &args.mask, sizeof eps);
  return ts_cpu_batch_norm ((TsNormPhase) args.dim, &v[0], &v[1], &v[2], &v[3], momentum, eps, error);
}

/* One phase of op @id: slot 0 @out (written), 1..3 @a @b @c (may be
 * NULL); @written_bc: b and c are written too (the running stats) */
static gboolean
norm_launch (TsOpId        id,
             TsNormPhase   phase,
             TsTensor     *out,
             TsTensor     *a,
             TsTensor     *b,
             TsTensor     *c,
             gboolean      written_bc,
             double        x0,
             double        x1,
             TsTensor     *big,
             double        passes,
             GError      **error)
{
  TsOpJob *job = ts_op_job_new (id);
  gint64 arg;
  guint64 mask;
  TsView vbig;
  TsTensor *rest[3] = { a, b, c };

  memcpy (&arg, &x0, sizeof arg);
  memcpy (&mask, &x1, sizeof mask);
  ts_op_job_set_args (job, arg, phase, mask);
  ts_op_job_set (job, 0, out);
  for (guint i = 0; i < 3; i++)
    if (rest[i] != NULL)
      {
        if (written_bc && i > 0)
          ts_op_job_set_output (job, i + 1, rest[i]);
        else
          ts_op_job_set (job, i + 1, rest[i]);
      }
  ts_view_init (&vbig, big->dtype, NULL, big->ndim, big->shape, NULL, 0);
  return ts_op_job_dispatch (job, ts_tensor_get_device (out), ts_cost_batch_norm (&vbig, passes), error);
}

static TsTensor *
per_channel (TsTensor  *like,
             gint64     rows,
             GError   **error)
{
  gint64 shape[2] = { rows, like->ndim > 1 ? like->shape[1] : 1 };

  return ts_tensor_new_empty (ts_tensor_get_device (like), like->dtype, 2, shape, FALSE, error);
}

/* @t (or NULL) as the kernels read it */
static gboolean
dense_or_null (TsTensor  *t,
               TsTensor **out,
               GError   **error)
{
  *out = NULL;
  return t == NULL || (*out = ts_ops_dense_float (t, error)) != NULL;
}

static TsTensor *
new_like (TsTensor  *t,
          GError   **error)
{
  return ts_tensor_new_empty (ts_tensor_get_device (t), t->dtype, t->ndim, t->shape, FALSE, error);
}

/* After an update of @work, a copy of @dst, back into @dst */
static gboolean
copy_back (TsTensor  *dst,
           TsTensor  *work,
           GError   **error)
{
  gboolean was, ok;

  if (dst == NULL || work == dst)
    return TRUE;
  was = ts_autograd_set_grad_enabled (FALSE);
  ok = ts_ops_copy (dst, work, FALSE, error);
  ts_autograd_set_grad_enabled (was);
  return ok;
}

/* PyTorch's device rule over the operands given (NULL ones skipped) */
static gboolean
same_device (TsTensor  *a,
             TsTensor  *b,
             TsTensor  *c,
             TsTensor  *d,
             TsTensor  *e,
             GError   **error)
{
  TsTensor *all[5] = { a, b, c, d, e };
  TsTensor *given[5];
  guint n = 0;
  TsDevice device;

  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    if (all[i] != NULL)
      given[n++] = all[i];
  return ts_ops_common_device (given, n, &device, error);
}

static void
record_norm (TsOpId     id,
             TsTensor  *input,
             TsTensor  *weight,
             TsTensor  *bias,
             TsTensor  *out,
             TsTensor  *stats,
             gboolean   training,
             int        groups,
             double     eps)
{
  const TsOpDesc *desc = ts_op_get (id);
  TsTensor *inputs[3] = { input, weight, bias };
  g_autoptr(TsGradNode) node = ts_autograd_record (desc->grad_names[0], desc->backward, sizeof (TsNormAttrs),
                                                   inputs, 3, &out, 1);
  TsNormAttrs *attrs;

  if (node == NULL)
    return;
  attrs = ts_grad_node_get_attrs (node);
  attrs->training = training;
  attrs->groups = groups;
  attrs->eps = eps;
  attrs->input_slot = (int) ts_grad_node_save (node, input);
  attrs->weight_slot = weight != NULL ? (int) ts_grad_node_save (node, weight) : -1;
  attrs->stats_slot = (int) ts_grad_node_save (node, stats);
}

gboolean
ts_ops_native_batch_norm (TsTensor   *input,
                          TsTensor   *weight,
                          TsTensor   *bias,
                          TsTensor   *running_mean,
                          TsTensor   *running_var,
                          gboolean    training,
                          double      momentum,
                          double      eps,
                          TsTensor  **out,
                          TsTensor  **stats,
                          GError    **error)
{
  const TsOpId id = TS_OP_NATIVE_BATCH_NORM;
  g_autoptr(TsTensor) x = NULL;
  g_autoptr(TsTensor) w = NULL;
  g_autoptr(TsTensor) b = NULL;
  g_autoptr(TsTensor) rm = NULL;
  g_autoptr(TsTensor) rv = NULL;
  g_autoptr(TsTensor) st = NULL;
  g_autoptr(TsTensor) coef = NULL;
  g_autoptr(TsTensor) o = NULL;

  g_return_val_if_fail (input != NULL && input->ndim >= 2 && out != NULL && stats != NULL, FALSE);

  /* the kernels read dense float32/float64 operands; running stats that
   * are not get a working copy, copied back once updated */
  if (!ts_ops_check_floating (input, "batch_norm", error) ||
      !same_device (input, weight, bias, running_mean, running_var, error) ||
      (x = ts_ops_dense_float (input, error)) == NULL ||
      !dense_or_null (weight, &w, error) ||
      !dense_or_null (bias, &b, error) ||
      !dense_or_null (running_mean, &rm, error) ||
      !dense_or_null (running_var, &rv, error) ||
      (st = per_channel (x, 2, error)) == NULL || (coef = per_channel (x, 2, error)) == NULL ||
      (o = new_like (x, error)) == NULL)
    return FALSE;
  if (training ? !norm_launch (id, TS_NORM_STATS, st, x, rm, rv, TRUE, momentum, eps, x, 2, error)
               : !norm_launch (id, TS_NORM_STATS_RUNNING, st, rm, rv, NULL, FALSE, 0, eps, st, 1, error))
    return FALSE;
  if (training && (!copy_back (running_mean, rm, error) || !copy_back (running_var, rv, error)))
    return FALSE;
  if (!norm_launch (id, TS_NORM_AFFINE, coef, st, w, b, FALSE, 0, 0, st, 1, error) ||
      !norm_launch (id, TS_NORM_APPLY, o, x, coef, NULL, FALSE, 0, 0, x, 2, error) ||
      (o = ts_ops_to_dtype (g_steal_pointer (&o), input->dtype, error)) == NULL)
    return FALSE;
  record_norm (id, input, weight, bias, o, st, training, 0, eps);
  *out = g_steal_pointer (&o);
  *stats = g_steal_pointer (&st);
  return TRUE;
}

/* a row of a (rows, C) tensor, as a view */
static TsTensor *
row (TsTensor  *t,
     gint64     i,
     GError   **error)
{
  return ts_tensor_select (t, 0, i, error);
}

/* What a backward reads: the gradient, input and weight (NULL: none),
 * dense and in float32 or float64, and the forward's statistics */
typedef struct
{
  TsTensor *g, *x, *w, *stats;
  gboolean  training;
  int       groups;
  guint     mask;     /* the gradients asked for: bit 0 input, 1 weight, 2 bias */
} Backward;

static gboolean
batch_norm_backward (const Backward  *b,
                     TsTensor       **grads,
                     GError         **error)
{
  const TsOpId id = TS_OP_NATIVE_BATCH_NORM_BACKWARD;
  g_autoptr(TsTensor) red = NULL;
  double per_channel_n = (double) ts_tensor_numel (b->x) / MAX (b->x->shape[1], 1);

  if ((red = per_channel (b->x, 2, error)) == NULL ||
      !norm_launch (id, TS_NORM_BACKWARD_REDUCE, red, b->g, b->x, b->stats, FALSE, 0, 0, b->x, 2, error))
    return FALSE;
  if (b->mask & 1)
    {
      g_autoptr(TsTensor) bc = per_channel (b->x, 5, error);

      if (bc == NULL ||
          !norm_launch (id, TS_NORM_BACKWARD_COEF, bc, red, b->stats, b->w, FALSE, per_channel_n,
                        b->training ? 1 : 0, bc, 1, error) ||
          (grads[0] = new_like (b->x, error)) == NULL ||
          !norm_launch (id, TS_NORM_BACKWARD_APPLY, grads[0], b->g, b->x, bc, FALSE, 0, 0, b->x, 3, error))
        return FALSE;
    }
  if (b->mask & 2)
    {
      g_autoptr(TsTensor) dotp = row (red, 1, error);
      g_autoptr(TsTensor) invstd = dotp != NULL ? row (b->stats, 1, error) : NULL;

      if (invstd == NULL ||
          (grads[1] = ts_ops_binary (TS_BINARY_MUL, dotp, invstd, NULL, FALSE, NULL, error)) == NULL)
        return FALSE;
    }
  return !(b->mask & 4) || (grads[2] = row (red, 0, error)) != NULL;
}

/* -- Group norm -------------------------------------------------------------- */

/* @t (contiguous) as (1, rows, numel / rows): the layout batch norm's
 * kernels read per channel */
static TsTensor *
as_rows (TsTensor  *t,
         gint64     rows,
         GError   **error)
{
  gint64 shape[3] = { 1, rows, rows > 0 ? ts_tensor_numel (t) / rows : 0 };

  return ts_tensor_view (t, 3, shape, error);
}

/* (x - mean) * rstd * w + b per (n, c) from the group statistics, into @out
 * (w, b may be NULL) */
static gboolean
group_apply (TsOpId     id,
             TsTensor  *x,
             TsTensor  *stats,
             TsTensor  *weight,
             TsTensor  *bias,
             int        groups,
             TsTensor  *out,
             GError   **error)
{
  gint64 N = x->shape[0], C = x->shape[1];
  gint64 shape[2] = { 2, N * C };
  g_autoptr(TsTensor) coef = ts_tensor_new_empty (ts_tensor_get_device (x), x->dtype, 2, shape, FALSE, error);
  g_autoptr(TsTensor) xv = coef != NULL ? as_rows (x, N * C, error) : NULL;
  g_autoptr(TsTensor) ov = xv != NULL ? as_rows (out, N * C, error) : NULL;

  return ov != NULL &&
         norm_launch (id, TS_NORM_GROUP_AFFINE, coef, stats, weight, bias, FALSE, (double) C, groups, coef, 1,
                      error) &&
         norm_launch (id, TS_NORM_APPLY, ov, xv, coef, NULL, FALSE, 0, 0, x, 2, error);
}

gboolean
ts_ops_native_group_norm (TsTensor   *input,
                          TsTensor   *weight,
                          TsTensor   *bias,
                          int         groups,
                          double      eps,
                          TsTensor  **out,
                          TsTensor  **stats,
                          GError    **error)
{
  const TsOpId id = TS_OP_NATIVE_GROUP_NORM;
  g_autoptr(TsTensor) x = NULL;
  g_autoptr(TsTensor) xg = NULL;
  g_autoptr(TsTensor) st = NULL;
  g_autoptr(TsTensor) o = NULL;
  g_autoptr(TsTensor) w = NULL;
  g_autoptr(TsTensor) b = NULL;
  gint64 NG;

  g_return_val_if_fail (input != NULL && input->ndim >= 2 && groups > 0 && out != NULL && stats != NULL, FALSE);

  NG = input->shape[0] * groups;
  if (!ts_ops_check_floating (input, "GroupNormKernelImpl", error) ||
      !same_device (input, weight, bias, NULL, NULL, error) || (x = ts_ops_dense_float (input, error)) == NULL ||
      !dense_or_null (weight, &w, error) ||
      !dense_or_null (bias, &b, error) ||
      (xg = as_rows (x, NG, error)) == NULL || (st = per_channel (xg, 2, error)) == NULL ||
      (o = new_like (x, error)) == NULL ||
      !norm_launch (id, TS_NORM_STATS, st, xg, NULL, NULL, FALSE, 0, eps, x, 2, error) ||
      !group_apply (id, x, st, w, b, groups, o, error) ||
      (o = ts_ops_to_dtype (g_steal_pointer (&o), input->dtype, error)) == NULL)
    return FALSE;
  record_norm (id, input, weight, bias, o, st, TRUE, groups, eps);
  *out = g_steal_pointer (&o);
  *stats = g_steal_pointer (&st);
  return TRUE;
}

/* @t reduced to (C) over every dim but 1 */
static TsTensor *
per_channel_sum (TsTensor  *t,
                 GError   **error)
{
  int dims[TS_MAX_DIMS];
  guint n = 0;

  for (guint d = 0; d < t->ndim; d++)
    if (d != 1)
      dims[n++] = (int) d;
  return ts_ops_sum (t, dims, n, FALSE, TS_DTYPE_UNDEFINED, error);
}

/* The input's gradient is batch norm's over the groups (training, no
 * weight) of dy * w, the gradient of the normalized input; the weight's
 * sum (dy * x_hat), the bias's sum (dy), per channel. */
static gboolean
group_norm_input_backward (const Backward  *b,
                           TsTensor       **grad_input,
                           GError         **error)
{
  const TsOpId id = TS_OP_NATIVE_GROUP_NORM_BACKWARD;
  gint64 NG = b->x->shape[0] * b->groups;
  gint64 shape[TS_MAX_DIMS];
  g_autoptr(TsTensor) w = NULL;
  g_autoptr(TsTensor) dxhat = NULL;
  g_autoptr(TsTensor) gv = NULL;
  g_autoptr(TsTensor) xv = NULL;
  g_autoptr(TsTensor) red = NULL;
  g_autoptr(TsTensor) bc = NULL;
  g_autoptr(TsTensor) giv = NULL;

  for (guint d = 0; d < b->x->ndim; d++)
    shape[d] = d == 1 ? b->x->shape[1] : 1;
  if (b->w != NULL &&
      ((w = ts_tensor_view (b->w, b->x->ndim, shape, error)) == NULL ||
       (dxhat = ts_ops_binary (TS_BINARY_MUL, b->g, w, NULL, FALSE, NULL, error)) == NULL))
    return FALSE;
  return (gv = as_rows (dxhat != NULL ? dxhat : b->g, NG, error)) != NULL &&
         (xv = as_rows (b->x, NG, error)) != NULL &&
         (red = per_channel (xv, 2, error)) != NULL && (bc = per_channel (xv, 5, error)) != NULL &&
         (*grad_input = new_like (b->x, error)) != NULL && (giv = as_rows (*grad_input, NG, error)) != NULL &&
         norm_launch (id, TS_NORM_BACKWARD_REDUCE, red, gv, xv, b->stats, FALSE, 0, 0, b->x, 2, error) &&
         norm_launch (id, TS_NORM_BACKWARD_COEF, bc, red, b->stats, NULL, FALSE, (double) xv->shape[2], 1, bc, 1,
                      error) &&
         norm_launch (id, TS_NORM_BACKWARD_APPLY, giv, gv, xv, bc, FALSE, 0, 0, b->x, 3, error);
}

static gboolean
group_norm_backward (const Backward  *b,
                     TsTensor       **grads,
                     GError         **error)
{
  if ((b->mask & 1) && !group_norm_input_backward (b, &grads[0], error))
    return FALSE;
  if (b->mask & 2)
    {
      g_autoptr(TsTensor) xhat = new_like (b->x, error);
      g_autoptr(TsTensor) prod = NULL;

      if (xhat == NULL ||
          !group_apply (TS_OP_NATIVE_GROUP_NORM_BACKWARD, b->x, b->stats, NULL, NULL, b->groups, xhat, error) ||
          (prod = ts_ops_binary (TS_BINARY_MUL, b->g, xhat, NULL, FALSE, NULL, error)) == NULL ||
          (grads[1] = per_channel_sum (prod, error)) == NULL)
        return FALSE;
    }
  return !(b->mask & 4) || (grads[2] = per_channel_sum (b->g, error)) != NULL;
}

gboolean
ts_ops_norm_backward (TsTensor   *grad,
                      TsTensor   *input,
                      TsTensor   *weight,
                      TsTensor   *stats,
                      gboolean    training,
                      int         groups,
                      guint       mask,
                      TsTensor  **grads,
                      GError    **error)
{
  Backward b = { .stats = stats, .training = training, .groups = groups, .mask = mask };
  gboolean ok;

  /* in float for float16/bfloat16 (the formula casts the results back) */
  ok = (b.g = ts_ops_dense_float (grad, error)) != NULL && (b.x = ts_ops_dense_float (input, error)) != NULL &&
       (weight == NULL || (b.w = ts_ops_dense_float (weight, error)) != NULL) &&
       (groups > 0 ? group_norm_backward (&b, grads, error) : batch_norm_backward (&b, grads, error));
  g_clear_pointer (&b.g, ts_tensor_unref);
  g_clear_pointer (&b.x, ts_tensor_unref);
  g_clear_pointer (&b.w, ts_tensor_unref);
  return ok;
}

/* Layer norm -------------------------------------------------------------- */

static TsTensor *
row_stats (TsTensor  *x,
           gint64     rows,
           GError   **error)
{
  return ts_tensor_new_empty (ts_tensor_get_device (x), x->dtype, 1, &rows, FALSE, error);
}

/* the weight's node attributes: the rows, eps and the saved tensors */
static void
record_layer_norm (TsTensor *input,
                   TsTensor *weight,
                   TsTensor *bias,
                   TsTensor *out,
                   TsTensor *mean,
                   TsTensor *rstd,
                   gint64    rows,
                   double    eps)
{
  const TsOpDesc *desc = ts_op_get (TS_OP_NATIVE_LAYER_NORM);
  TsTensor *inputs[3] = { input, weight, bias };
  g_autoptr(TsGradNode) node = ts_autograd_record (desc->grad_names[0], desc->backward, sizeof (TsLayerNormAttrs),
                                                   inputs, 3, &out, 1);
  TsLayerNormAttrs *attrs;

  if (node == NULL)
    return;
  attrs = ts_grad_node_get_attrs (node);
  attrs->rows = rows;
  attrs->eps = eps;
  attrs->input_slot = (int) ts_grad_node_save (node, input);
  attrs->mean_slot = (int) ts_grad_node_save (node, mean);
  attrs->rstd_slot = (int) ts_grad_node_save (node, rstd);
  attrs->weight_slot = weight != NULL ? (int) ts_grad_node_save (node, weight) : -1;
}

gboolean
ts_ops_native_layer_norm (TsTensor   *input,
                          guint       n_normalized,
                          TsTensor   *weight,
                          TsTensor   *bias,
                          double      eps,
                          TsTensor  **out,
                          TsTensor  **mean,
                          TsTensor  **rstd,
                          GError    **error)
{
  g_autoptr(TsTensor) x = NULL;
  g_autoptr(TsTensor) w = NULL;
  g_autoptr(TsTensor) b = NULL;
  g_autoptr(TsTensor) y = NULL;
  g_autoptr(TsTensor) mu = NULL;
  g_autoptr(TsTensor) r = NULL;
  gint64 rows = 1;
  TsOpJob *job;
  TsView vx;

  g_return_val_if_fail (input != NULL && n_normalized <= input->ndim && out != NULL, FALSE);

  for (guint d = 0; d + n_normalized < input->ndim; d++)
    rows *= input->shape[d];
  if (!ts_ops_check_floating (input, "LayerNormKernelImpl", error) ||
      !same_device (input, weight, bias, NULL, NULL, error) || (x = ts_ops_dense_float (input, error)) == NULL ||
      !dense_or_null (weight, &w, error) || !dense_or_null (bias, &b, error) ||
      (y = new_like (x, error)) == NULL || (mu = row_stats (x, rows, error)) == NULL ||
      (r = row_stats (x, rows, error)) == NULL)
    return FALSE;
  if (ts_tensor_numel (x) > 0)
    {
      job = ts_op_job_new (TS_OP_NATIVE_LAYER_NORM);
      ts_op_job_set_args (job, rows, 0, 0);
      ts_op_job_set_factors (job, eps, 0);
      /* vectorized_layer_norm_kernel: a block of 128 threads a row */
      ts_op_job_set_launch (job, 128, rows);
      ts_op_job_set (job, 0, y);
      ts_op_job_set (job, 1, x);
      if (w != NULL)
        ts_op_job_set (job, 2, w);
      if (b != NULL)
        ts_op_job_set (job, 3, b);
      ts_op_job_set_output (job, 4, mu);
      ts_op_job_set_output (job, 5, r);
      ts_view_init (&vx, x->dtype, NULL, x->ndim, x->shape, NULL, 0);
      /* one pass for the moments, one for the output */
      if (!ts_op_job_dispatch (job, ts_tensor_get_device (x), ts_cost_batch_norm (&vx, 2), error))
        return FALSE;
    }
  if ((y = ts_ops_to_dtype (g_steal_pointer (&y), input->dtype, error)) == NULL)
    return FALSE;
  record_layer_norm (input, weight, bias, y, mu, r, rows, eps);
  *out = g_steal_pointer (&y);
  if (mean != NULL)
    *mean = g_steal_pointer (&mu);
  if (rstd != NULL)
    *rstd = g_steal_pointer (&r);
  return TRUE;
}

/* one backward launch: @phase 0 the input's gradient into @a, 1 the
 * weight's and bias's into @a and @b */
static gboolean
layer_norm_backward_launch (int         phase,
                            TsTensor   *a,
                            TsTensor   *g,
                            TsTensor   *x,
                            TsTensor   *mean,
                            TsTensor   *rstd,
                            TsTensor   *w,
                            TsTensor   *b,
                            gint64      rows,
                            GError    **error)
{
  TsOpJob *job = ts_op_job_new (TS_OP_NATIVE_LAYER_NORM_BACKWARD);
  TsView vx;

  ts_op_job_set_args (job, rows, phase, 0);
  /* CUDA's kernels: layer_norm_grad_input_kernel, 512 threads a row;
   * GammaBetaBackward, 32x32 tiles over the columns (the simple one, 128
   * columns a block, for fewer than 512 rows) */
  if (phase == 0)
    ts_op_job_set_launch (job, 512, rows);
  else if (rows < 512)
    ts_op_job_set_launch (job, 128, (ts_tensor_numel (a) + 127) / 128);
  else
    ts_op_job_set_launch (job, 1024, (ts_tensor_numel (a) + 31) / 32);
  ts_op_job_set (job, 0, a);
  ts_op_job_set (job, 1, g);
  ts_op_job_set (job, 2, x);
  ts_op_job_set (job, 3, mean);
  if (phase == 0)
    {
      ts_op_job_set (job, 4, rstd);
      if (w != NULL)
        ts_op_job_set (job, 5, w);
    }
  else
    {
      ts_op_job_set (job, 4, rstd);
      ts_op_job_set_output (job, 5, b);
    }
  ts_view_init (&vx, x->dtype, NULL, x->ndim, x->shape, NULL, 0);
  return ts_op_job_dispatch (job, ts_tensor_get_device (x), ts_cost_batch_norm (&vx, phase == 0 ? 3 : 2), error);
}

gboolean
ts_ops_native_layer_norm_backward (TsTensor   *grad,
                                   TsTensor   *input,
                                   TsTensor   *mean,
                                   TsTensor   *rstd,
                                   TsTensor   *weight,
                                   gint64      rows,
                                   guint       mask,
                                   TsTensor  **grads,
                                   GError    **error)
{
  g_autoptr(TsTensor) g = NULL;
  g_autoptr(TsTensor) x = NULL;
  g_autoptr(TsTensor) w = NULL;
  g_autoptr(TsTensor) gw = NULL;
  g_autoptr(TsTensor) gb = NULL;

  if ((g = ts_ops_dense_float (grad, error)) == NULL || (x = ts_ops_dense_float (input, error)) == NULL ||
      !dense_or_null (weight, &w, error))
    return FALSE;
  if (mask & 1)
    {
      g_autoptr(TsTensor) gi = new_like (x, error);

      if (gi == NULL || (ts_tensor_numel (x) > 0 &&
                         !layer_norm_backward_launch (0, gi, g, x, mean, rstd, w, NULL, rows, error)))
        return FALSE;
      grads[0] = g_steal_pointer (&gi);
    }
  if ((mask & 6) && weight != NULL)
    {
      /* the weight's and bias's gradients in one launch, both made */
      if ((gw = new_like (w, error)) == NULL || (gb = new_like (w, error)) == NULL ||
          !layer_norm_backward_launch (1, gw, g, x, mean, rstd, NULL, gb, rows, error))
        return FALSE;
      if (mask & 2)
        grads[1] = g_steal_pointer (&gw);
      if (mask & 4)
        grads[2] = g_steal_pointer (&gb);
    }
  return TRUE;
}
