/* ts-ops-pool.c: the POOL (max/avg/adaptive 2-d pooling and their
 * backwards) and NORM (native_batch_norm and its backward) families
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The kernels read contiguous operands: inputs are made contiguous here
 * (without recording: the node is recorded on the caller's tensor). No
 * device kernels yet (TS_OP_CUDA_HOST): a real GPU runs them on the host
 * fallback.
 */

#include "config.h"

#include <string.h>

#include "ts-autograd-formulas.h"
#include "ts-op-table.h"
#include "ts-ops-pool.h"
#include "ts-ops-private.h"

/* The job carries a window in its mask, a byte per number: PyTorch allows
 * more, and a window that large fails loudly here. */
static gboolean
pack_window (const TsPool2d *p,
             guint64        *mask,
             GError        **error)
{
  const int v[8] = { p->kh, p->kw, p->sh, p->sw, p->ph, p->pw, p->dh, p->dw };

  *mask = 0;
  for (guint i = 0; i < G_N_ELEMENTS (v); i++)
    {
      if (v[i] < 0 || v[i] > 255)
        {
          g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                               "pooling with a kernel_size, stride, padding or dilation over 255 "
                               "is not modeled yet");
          return FALSE;
        }
      *mask |= (guint64) v[i] << (8 * i);
    }
  return TRUE;
}

static void
unpack_window (guint64   mask,
               gint64    arg,
               int       dim,
               TsPool2d *p)
{
  int *v[8] = { &p->kh, &p->kw, &p->sh, &p->sw, &p->ph, &p->pw, &p->dh, &p->dw };

  for (guint i = 0; i < G_N_ELEMENTS (v); i++)
    *v[i] = (int) ((mask >> (8 * i)) & 0xff);
  p->divisor = arg;
  p->count_include_pad = dim != 0;
}

gboolean
ts_ops_pool_job (TsOpJob  *job,
                 GError  **error)
{
  TsView v[4];
  TsOpJobArgs args;
  TsPool2d p;
  TsPoolKernel kind = (TsPoolKernel) ts_op_job_desc (job)->kernel;

  ts_op_job_unpack (job, v, &args);
  unpack_window (args.mask, args.arg, args.dim, &p);
  if (kind >= TS_POOL_MAX_BACKWARD)
    /* slots: grad_input, grad_output, indices */
    return ts_cpu_pool2d_backward (kind, &p, &v[1], &v[2], &v[0], error);
  /* slots: out, input, indices */
  return ts_cpu_pool2d (kind, &p, &v[1], &v[0], &v[2], error);
}

static const TsOpId pool_ops[] = {
  [TS_POOL_MAX] = TS_OP_MAX_POOL2D,
  [TS_POOL_AVG] = TS_OP_AVG_POOL2D,
  [TS_POOL_ADAPTIVE_AVG] = TS_OP_ADAPTIVE_AVG_POOL2D,
  [TS_POOL_ADAPTIVE_MAX] = TS_OP_ADAPTIVE_MAX_POOL2D,
  [TS_POOL_MAX_BACKWARD] = TS_OP_MAX_POOL2D_BACKWARD,
  [TS_POOL_AVG_BACKWARD] = TS_OP_AVG_POOL2D_BACKWARD,
  [TS_POOL_ADAPTIVE_AVG_BACKWARD] = TS_OP_ADAPTIVE_AVG_POOL2D_BACKWARD,
  [TS_POOL_ADAPTIVE_MAX_BACKWARD] = TS_OP_ADAPTIVE_MAX_POOL2D_BACKWARD,
};

/* @self as the kernels read it: contiguous, with no node of its own */
static TsTensor *
dense (TsTensor  *self,
       GError   **error)
{
  gboolean was = ts_autograd_set_grad_enabled (FALSE);
  TsTensor *out = ts_ops_contiguous (self, error);

  ts_autograd_set_grad_enabled (was);
  return out;
}

/* The kernels compute in float32 or float64: float16 and bfloat16 operands
 * come as float32 copies and results go back (PyTorch's CUDA kernels
 * accumulate them in float too, and round once at the end). */
static gboolean
is_half (TsDType dtype)
{
  return dtype == TS_DTYPE_FLOAT16 || dtype == TS_DTYPE_BFLOAT16;
}

static TsTensor *
dense_float (TsTensor  *self,
             GError   **error)
{
  gboolean was;
  TsTensor *out;

  if (self == NULL || !is_half (self->dtype))
    return self != NULL ? dense (self, error) : NULL;
  was = ts_autograd_set_grad_enabled (FALSE);
  out = ts_ops_to (self, ts_tensor_get_device (self), TS_DTYPE_FLOAT32, FALSE, FALSE, error);
  ts_autograd_set_grad_enabled (was);
  return out;
}

/* @t (consumed) in @dtype */
static TsTensor *
to_dtype (TsTensor  *t,
          TsDType    dtype,
          GError   **error)
{
  gboolean was;
  TsTensor *out;

  if (t == NULL || t->dtype == dtype)
    return t;
  was = ts_autograd_set_grad_enabled (FALSE);
  out = ts_ops_to (t, ts_tensor_get_device (t), dtype, FALSE, FALSE, error);
  ts_autograd_set_grad_enabled (was);
  ts_tensor_unref (t);
  return out;
}

static gboolean
is_max (TsPoolKernel kind)
{
  return kind == TS_POOL_MAX || kind == TS_POOL_ADAPTIVE_MAX ||
         kind == TS_POOL_MAX_BACKWARD || kind == TS_POOL_ADAPTIVE_MAX_BACKWARD;
}

/* Launches pooling op @kind: slot 0 @out, 1 @in, 2 @indices (may be NULL) */
static gboolean
pool_launch (TsPoolKernel    kind,
             const TsPool2d *p,
             TsTensor       *out,
             TsTensor       *in,
             TsTensor       *indices,
             GError        **error)
{
  guint64 mask;
  TsOpJob *job;
  TsView vin, vout;
  double window;

  if (!pack_window (p, &mask, error))
    return FALSE;
  if (ts_tensor_numel (out) == 0)
    return TRUE;
  job = ts_op_job_new (pool_ops[kind]);
  ts_op_job_set_args (job, p->divisor, p->count_include_pad, mask);
  ts_op_job_set (job, 0, out);
  ts_op_job_set (job, 1, in);
  if (indices != NULL)
    {
      if (kind < TS_POOL_MAX_BACKWARD)
        ts_op_job_set_output (job, 2, indices);
      else
        ts_op_job_set (job, 2, indices);
    }
  ts_op_job_view (job, kind < TS_POOL_MAX_BACKWARD ? 1 : 0, &vin);
  ts_op_job_view (job, kind < TS_POOL_MAX_BACKWARD ? 0 : 1, &vout);
  window = (kind == TS_POOL_MAX || kind == TS_POOL_AVG) ? (double) p->kh * p->kw
           : (double) ts_view_numel (&vin) / MAX (ts_view_numel (&vout), 1);
  return ts_op_job_dispatch (job, ts_tensor_get_device (in), ts_cost_pool (&vin, &vout, window), error);
}

static void
record_pool (TsPoolKernel    kind,
             const TsPool2d *p,
             TsTensor       *self,
             TsTensor       *out,
             TsTensor       *indices)
{
  const TsOpDesc *desc = ts_op_get (pool_ops[kind]);
  g_autoptr(TsGradNode) node = ts_autograd_record (desc->grad_names[0], desc->backward, sizeof (TsPoolAttrs),
                                                   &self, 1, &out, 1);
  TsPoolAttrs *attrs;

  if (node == NULL)
    return;
  attrs = ts_grad_node_get_attrs (node);
  attrs->kind = kind;
  attrs->p = *p;
  attrs->indices_slot = indices != NULL ? (int) ts_grad_node_save (node, indices) : -1;
}

gboolean
ts_ops_pool2d (TsPoolKernel    kind,
               TsTensor       *self,
               const TsPool2d *p,
               gint64          oh,
               gint64          ow,
               TsTensor      **out,
               TsTensor      **indices,
               GError        **error)
{
  gint64 shape[TS_MAX_DIMS];
  g_autoptr(TsTensor) in = NULL;
  g_autoptr(TsTensor) o = NULL;
  g_autoptr(TsTensor) ind = NULL;
  TsDevice device;

  g_return_val_if_fail (self != NULL && out != NULL && self->ndim >= 2, FALSE);

  device = ts_tensor_get_device (self);
  memcpy (shape, self->shape, self->ndim * sizeof (gint64));
  shape[self->ndim - 2] = oh;
  shape[self->ndim - 1] = ow;
  if ((in = dense_float (self, error)) == NULL ||
      (o = ts_tensor_new_empty (device, in->dtype, self->ndim, shape, FALSE, error)) == NULL ||
      (is_max (kind) &&
       (ind = ts_tensor_new_empty (device, TS_DTYPE_INT64, self->ndim, shape, FALSE, error)) == NULL) ||
      !pool_launch (kind, p, o, in, ind, error) ||
      (o = to_dtype (g_steal_pointer (&o), self->dtype, error)) == NULL)
    return FALSE;
  record_pool (kind, p, self, o, ind);
  *out = g_steal_pointer (&o);
  if (indices != NULL)
    *indices = g_steal_pointer (&ind);
  return TRUE;
}

TsTensor *
ts_ops_pool2d_backward (TsPoolKernel    kind,
                        TsTensor       *grad,
                        TsTensor       *indices,
                        const TsPool2d *p,
                        guint           ndim,
                        const gint64   *shape,
                        GError        **error)
{
  g_autoptr(TsTensor) g = NULL;
  g_autoptr(TsTensor) gi = NULL;
  g_autoptr(TsTensor) ind = NULL;

  if ((g = dense_float (grad, error)) == NULL ||
      (indices != NULL && (ind = dense (indices, error)) == NULL) ||
      (gi = ts_tensor_new_empty (ts_tensor_get_device (grad), g->dtype, ndim, shape, FALSE, error)) == NULL)
    return NULL;
  if (ts_tensor_numel (g) == 0)
    {
      TsScalar zero = { TS_DTYPE_FLOAT64, 0, 0 };

      return ts_ops_fill (gi, &zero, error) ? g_steal_pointer (&gi) : NULL;
    }
  if (!pool_launch (kind, p, gi, g, ind, error))
    return NULL;
  return to_dtype (g_steal_pointer (&gi), grad->dtype, error);
}

/* -- Batch norm ------------------------------------------------------------ */

gboolean
ts_ops_norm_job (TsOpJob  *job,
                 GError  **error)
{
  TsView v[4];
  TsOpJobArgs args;
  double momentum, eps;

  /* arg and mask carry two doubles' bits, dim the phase */
  ts_op_job_unpack (job, v, &args);
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
             int        groups)
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
  if (!same_device (input, weight, bias, running_mean, running_var, error) ||
      (x = dense_float (input, error)) == NULL ||
      (weight != NULL && (w = dense_float (weight, error)) == NULL) ||
      (bias != NULL && (b = dense_float (bias, error)) == NULL) ||
      (running_mean != NULL && (rm = dense_float (running_mean, error)) == NULL) ||
      (running_var != NULL && (rv = dense_float (running_var, error)) == NULL) ||
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
      (o = to_dtype (g_steal_pointer (&o), input->dtype, error)) == NULL)
    return FALSE;
  record_norm (id, input, weight, bias, o, st, training, 0);
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

gboolean
ts_ops_native_batch_norm_backward (TsTensor   *grad,
                                   TsTensor   *input,
                                   TsTensor   *weight,
                                   TsTensor   *stats,
                                   gboolean    training,
                                   guint       mask,
                                   TsTensor  **grad_input,
                                   TsTensor  **grad_weight,
                                   TsTensor  **grad_bias,
                                   GError    **error)
{
  const TsOpId id = TS_OP_NATIVE_BATCH_NORM_BACKWARD;
  g_autoptr(TsTensor) g = NULL;
  g_autoptr(TsTensor) x = NULL;
  g_autoptr(TsTensor) red = NULL;
  g_autoptr(TsTensor) w = NULL;
  double per_channel_n = (double) ts_tensor_numel (input) / MAX (input->shape[1], 1);

  /* in float for float16/bfloat16 (the formula casts the results back) */
  if ((g = dense_float (grad, error)) == NULL || (x = dense_float (input, error)) == NULL ||
      (weight != NULL && (w = dense_float (weight, error)) == NULL) ||
      (red = per_channel (x, 2, error)) == NULL ||
      !norm_launch (id, TS_NORM_BACKWARD_REDUCE, red, g, x, stats, FALSE, 0, 0, x, 2, error))
    return FALSE;
  if (mask & 1)
    {
      g_autoptr(TsTensor) bc = per_channel (x, 5, error);
      g_autoptr(TsTensor) gi = NULL;

      if (bc == NULL ||
          !norm_launch (id, TS_NORM_BACKWARD_COEF, bc, red, stats, w, FALSE, per_channel_n,
                        training ? 1 : 0, bc, 1, error) ||
          (gi = new_like (x, error)) == NULL ||
          !norm_launch (id, TS_NORM_BACKWARD_APPLY, gi, g, x, bc, FALSE, 0, 0, x, 3, error))
        return FALSE;
      *grad_input = g_steal_pointer (&gi);
    }
  if (mask & 2)
    {
      g_autoptr(TsTensor) dotp = row (red, 1, error);
      g_autoptr(TsTensor) invstd = dotp != NULL ? row (stats, 1, error) : NULL;

      if (invstd == NULL ||
          (*grad_weight = ts_ops_binary (TS_BINARY_MUL, dotp, invstd, NULL, FALSE, NULL, error)) == NULL)
        return FALSE;
    }
  if ((mask & 4) && (*grad_bias = row (red, 0, error)) == NULL)
    return FALSE;
  return TRUE;
}

/* -- Remaps ------------------------------------------------------------------ */

static gboolean
remap_has_scales (TsRemapKernel mode)
{
  mode &= ~TS_REMAP_BACKWARD;
  return mode == TS_REMAP_NEAREST || mode == TS_REMAP_LINEAR;
}

/* The job carries k in arg and the pads (16 bits each, signed) or the
 * nearest scales (a float's bits, two dims) in its mask */
static gboolean
pack_remap (TsRemapKernel  mode,
            const TsRemap *r,
            guint64       *mask,
            GError       **error)
{
  *mask = 0;
  if (remap_has_scales (mode))
    {
      for (guint i = 0; i < MIN (r->k, 2); i++)
        {
          guint32 bits;

          memcpy (&bits, &r->scales[i], sizeof bits);
          *mask |= (guint64) bits << (32 * i);
        }
      return TRUE;
    }
  for (guint i = 0; i < r->k; i++)
    {
      if (r->pads[i] < G_MININT16 || r->pads[i] > G_MAXINT16)
        {
          g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                               "padding by more than 32767 is not modeled yet");
          return FALSE;
        }
      *mask |= (guint64) (guint16) (gint16) r->pads[i] << (16 * i);
    }
  return TRUE;
}

gboolean
ts_ops_remap_job (TsOpJob  *job,
                  GError  **error)
{
  TsView v[4];
  TsOpJobArgs args;
  TsRemap r = { .k = 0 };
  TsRemapKernel kind = (TsRemapKernel) ts_op_job_desc (job)->kernel;

  ts_op_job_unpack (job, v, &args);
  r.k = (guint) args.arg;
  r.align_corners = args.dim != 0;
  for (guint i = 0; i < r.k && i < TS_REMAP_MAX_DIMS; i++)
    {
      if (remap_has_scales (kind))
        {
          guint32 bits = (guint32) (args.mask >> (32 * i));

          memcpy (&r.scales[i], &bits, sizeof bits);
        }
      else
        r.pads[i] = (gint16) (guint16) (args.mask >> (16 * i));
    }
  /* forward: slots out, input; backward: grad_input, grad_output */
  if (kind & TS_REMAP_BACKWARD)
    return ts_cpu_remap (kind, &r, &v[0], &v[1], error);
  return ts_cpu_remap (kind, &r, &v[1], &v[0], error);
}

/* the op of @mode over k dims (backward: its backward op) */
static TsOpId
remap_op (TsRemapKernel mode,
          guint         k,
          gboolean      backward)
{
  static const TsOpId reflect[2][3] = {
    { TS_OP_REFLECTION_PAD1D, TS_OP_REFLECTION_PAD2D, TS_OP_REFLECTION_PAD3D },
    { TS_OP_REFLECTION_PAD1D_BACKWARD, TS_OP_REFLECTION_PAD2D_BACKWARD, TS_OP_REFLECTION_PAD3D_BACKWARD },
  };
  static const TsOpId replicate[2][3] = {
    { TS_OP_REPLICATION_PAD1D, TS_OP_REPLICATION_PAD2D, TS_OP_REPLICATION_PAD3D },
    { TS_OP_REPLICATION_PAD1D_BACKWARD, TS_OP_REPLICATION_PAD2D_BACKWARD, TS_OP_REPLICATION_PAD3D_BACKWARD },
  };
  static const TsOpId nearest[2][2] = {
    { TS_OP_UPSAMPLE_NEAREST1D, TS_OP_UPSAMPLE_NEAREST2D },
    { TS_OP_UPSAMPLE_NEAREST1D_BACKWARD, TS_OP_UPSAMPLE_NEAREST2D_BACKWARD },
  };
  static const TsOpId linear[2][2] = {
    { TS_OP_UPSAMPLE_LINEAR1D, TS_OP_UPSAMPLE_BILINEAR2D },
    { TS_OP_UPSAMPLE_LINEAR1D_BACKWARD, TS_OP_UPSAMPLE_BILINEAR2D_BACKWARD },
  };

  switch (mode)
    {
    case TS_REMAP_REFLECT:
      return reflect[backward][CLAMP (k, 1, 3) - 1];
    case TS_REMAP_REPLICATE:
      return replicate[backward][CLAMP (k, 1, 3) - 1];
    case TS_REMAP_NEAREST:
      return nearest[backward][CLAMP (k, 1, 2) - 1];
    case TS_REMAP_LINEAR:
      return linear[backward][CLAMP (k, 1, 2) - 1];
    case TS_REMAP_CIRCULAR:
      return backward ? TS_OP_PAD_CIRCULAR_BACKWARD : TS_OP_PAD_CIRCULAR;
    default:
      return TS_OP_CONSTANT_PAD_ND;
    }
}

static gboolean
remap_launch (TsOpId          id,
              TsRemapKernel   kind,
              const TsRemap  *r,
              TsTensor       *out,
              TsTensor       *in,
              GError        **error)
{
  guint64 mask;
  TsOpJob *job;
  TsView vin, vout;

  if (!pack_remap (kind, r, &mask, error))
    return FALSE;
  if (ts_tensor_numel (out) == 0)
    return TRUE;
  job = ts_op_job_new (id);
  ts_op_job_set_args (job, r->k, r->align_corners, mask);
  ts_op_job_set (job, 0, out);
  ts_op_job_set (job, 1, in);
  ts_op_job_view (job, 0, &vout);
  ts_op_job_view (job, 1, &vin);
  return ts_op_job_dispatch (job, ts_tensor_get_device (in), ts_cost_copy (&vout, &vin), error);
}

static gboolean
covers_all (TsRemapKernel  mode,
            const TsRemap *r)
{
  for (guint i = 0; mode == TS_REMAP_CONSTANT && i < r->k; i++)
    if (r->pads[i] > 0)
      return FALSE;
  return TRUE;
}

TsTensor *
ts_ops_remap (TsRemapKernel    mode,
              TsTensor        *self,
              const TsRemap   *r,
              const gint64    *shape,
              double           value,
              GError         **error)
{
  TsOpId id = remap_op (mode, r->k, FALSE);
  const TsOpDesc *desc = ts_op_get (id);
  g_autoptr(TsTensor) in = NULL;
  g_autoptr(TsTensor) out = NULL;
  g_autoptr(TsGradNode) node = NULL;
  TsRemapAttrs *attrs;

  g_return_val_if_fail (self != NULL && r->k <= MIN (self->ndim, TS_REMAP_MAX_DIMS), NULL);

  if ((in = mode == TS_REMAP_LINEAR ? dense_float (self, error) : dense (self, error)) == NULL ||
      (out = ts_tensor_new_empty (ts_tensor_get_device (self), in->dtype, self->ndim, shape, FALSE,
                                  error)) == NULL)
    return NULL;
  /* constant_pad_nd fills the output, then copies the input into it */
  if (!covers_all (mode, r) && ts_tensor_numel (out) > 0)
    {
      TsScalar fill = { TS_DTYPE_FLOAT64, value, (gint64) value };

      if (!ts_ops_fill (out, &fill, error))
        return NULL;
    }
  if (!remap_launch (id, mode, r, out, in, error) ||
      (out = to_dtype (g_steal_pointer (&out), self->dtype, error)) == NULL)
    return NULL;
  node = ts_autograd_record (desc->grad_names[0], desc->backward, sizeof (TsRemapAttrs), &self, 1, &out, 1);
  if (node != NULL)
    {
      attrs = ts_grad_node_get_attrs (node);
      attrs->mode = mode;
      attrs->r = *r;
    }
  return g_steal_pointer (&out);
}

TsTensor *
ts_ops_remap_backward (TsRemapKernel    mode,
                       TsTensor        *grad,
                       const TsRemap   *r,
                       guint            ndim,
                       const gint64    *shape,
                       GError         **error)
{
  g_autoptr(TsTensor) g = NULL;
  g_autoptr(TsTensor) gi = NULL;

  if ((g = dense_float (grad, error)) == NULL ||
      (gi = ts_tensor_new_empty (ts_tensor_get_device (grad), g->dtype, ndim, shape, FALSE, error)) == NULL)
    return NULL;
  if (ts_tensor_numel (g) == 0 || ts_tensor_numel (gi) == 0)
    {
      TsScalar zero = { TS_DTYPE_FLOAT64, 0, 0 };

      return ts_tensor_numel (gi) == 0 || ts_ops_fill (gi, &zero, error) ? g_steal_pointer (&gi) : NULL;
    }
  if (!remap_launch (remap_op (mode, r->k, TRUE), mode | TS_REMAP_BACKWARD, r, gi, g, error))
    return NULL;
  return to_dtype (g_steal_pointer (&gi), grad->dtype, error);
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
  if (!same_device (input, weight, bias, NULL, NULL, error) || (x = dense_float (input, error)) == NULL ||
      (weight != NULL && (w = dense_float (weight, error)) == NULL) ||
      (bias != NULL && (b = dense_float (bias, error)) == NULL) ||
      (xg = as_rows (x, NG, error)) == NULL || (st = per_channel (xg, 2, error)) == NULL ||
      (o = new_like (x, error)) == NULL ||
      !norm_launch (id, TS_NORM_STATS, st, xg, NULL, NULL, FALSE, 0, eps, x, 2, error) ||
      !group_apply (id, x, st, w, b, groups, o, error) ||
      (o = to_dtype (g_steal_pointer (&o), input->dtype, error)) == NULL)
    return FALSE;
  record_norm (id, input, weight, bias, o, st, TRUE, groups);
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
gboolean
ts_ops_native_group_norm_backward (TsTensor   *grad,
                                   TsTensor   *input,
                                   TsTensor   *weight,
                                   TsTensor   *stats,
                                   int         groups,
                                   guint       mask,
                                   TsTensor  **grad_input,
                                   TsTensor  **grad_weight,
                                   TsTensor  **grad_bias,
                                   GError    **error)
{
  const TsOpId id = TS_OP_NATIVE_GROUP_NORM_BACKWARD;
  gint64 NG = input->shape[0] * groups;
  g_autoptr(TsTensor) g = NULL;
  g_autoptr(TsTensor) x = NULL;
  g_autoptr(TsTensor) wf = NULL;

  if ((g = dense_float (grad, error)) == NULL || (x = dense_float (input, error)) == NULL ||
      (weight != NULL && (wf = dense_float (weight, error)) == NULL))
    return FALSE;
  if (mask & 1)
    {
      gint64 shape[TS_MAX_DIMS];
      g_autoptr(TsTensor) w = NULL;
      g_autoptr(TsTensor) dxhat = NULL;
      g_autoptr(TsTensor) gv = NULL;
      g_autoptr(TsTensor) xv = NULL;
      g_autoptr(TsTensor) red = NULL;
      g_autoptr(TsTensor) bc = NULL;
      g_autoptr(TsTensor) gi = NULL;
      g_autoptr(TsTensor) giv = NULL;

      for (guint d = 0; d < input->ndim; d++)
        shape[d] = d == 1 ? input->shape[1] : 1;
      if (wf != NULL &&
          ((w = ts_tensor_view (wf, input->ndim, shape, error)) == NULL ||
           (dxhat = ts_ops_binary (TS_BINARY_MUL, g, w, NULL, FALSE, NULL, error)) == NULL))
        return FALSE;
      if ((gv = as_rows (dxhat != NULL ? dxhat : g, NG, error)) == NULL || (xv = as_rows (x, NG, error)) == NULL ||
          (red = per_channel (xv, 2, error)) == NULL || (bc = per_channel (xv, 5, error)) == NULL ||
          (gi = new_like (x, error)) == NULL || (giv = as_rows (gi, NG, error)) == NULL ||
          !norm_launch (id, TS_NORM_BACKWARD_REDUCE, red, gv, xv, stats, FALSE, 0, 0, x, 2, error) ||
          !norm_launch (id, TS_NORM_BACKWARD_COEF, bc, red, stats, NULL, FALSE, (double) xv->shape[2], 1, bc, 1,
                        error) ||
          !norm_launch (id, TS_NORM_BACKWARD_APPLY, giv, gv, xv, bc, FALSE, 0, 0, x, 3, error))
        return FALSE;
      *grad_input = g_steal_pointer (&gi);
    }
  if (mask & 2)
    {
      g_autoptr(TsTensor) xhat = new_like (x, error);
      g_autoptr(TsTensor) prod = NULL;

      if (xhat == NULL || !group_apply (id, x, stats, NULL, NULL, groups, xhat, error) ||
          (prod = ts_ops_binary (TS_BINARY_MUL, g, xhat, NULL, FALSE, NULL, error)) == NULL ||
          (*grad_weight = per_channel_sum (prod, error)) == NULL)
        return FALSE;
    }
  if ((mask & 4) && (*grad_bias = per_channel_sum (g, error)) == NULL)
    return FALSE;
  return TRUE;
}
