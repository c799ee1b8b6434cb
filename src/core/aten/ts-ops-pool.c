/* ts-ops-pool.c: the POOL (max/avg/adaptive 2-d pooling and their
 * backwards) and REMAP (padding, upsampling) families
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
        return ts_ops_fail (error, "pooling with a kernel_size, stride, padding or dilation over 255 "
                            "is not modeled yet");
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

/* the kernels' names in PyTorch's dispatch errors */
static const char *const pool_names[] = {
  [TS_POOL_MAX] = "max_pool2d",
  [TS_POOL_AVG] = "avg_pool2d",
  [TS_POOL_ADAPTIVE_AVG] = "adaptive_avg_pool2d",
  [TS_POOL_ADAPTIVE_MAX] = "adaptive_max_pool2d",
};

/* @self as the kernels read it: contiguous, with no node of its own */
TsTensor *
ts_ops_dense (TsTensor  *self,
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

TsTensor *
ts_ops_dense_float (TsTensor  *self,
                    GError   **error)
{
  gboolean was;
  TsTensor *out;

  if (self == NULL || !is_half (self->dtype))
    return self != NULL ? ts_ops_dense (self, error) : NULL;
  was = ts_autograd_set_grad_enabled (FALSE);
  out = ts_ops_to (self, ts_tensor_get_device (self), TS_DTYPE_FLOAT32, FALSE, FALSE, error);
  ts_autograd_set_grad_enabled (was);
  return out;
}

/* @t (consumed) in @dtype, in @t's layout */
TsTensor *
ts_ops_to_dtype (TsTensor  *t,
                 TsDType    dtype,
                 GError   **error)
{
  gboolean was;
  TsTensor *out;

  if (t == NULL || t->dtype == dtype)
    return t;
  was = ts_autograd_set_grad_enabled (FALSE);
  out = ts_ops_to_copy (t, ts_tensor_get_device (t), dtype, FALSE, FALSE, error);
  ts_autograd_set_grad_enabled (was);
  ts_tensor_unref (t);
  return out;
}

/* PyTorch's dispatch error, checked before a launch (a device job's
 * kernel cannot refuse its operands) */
gboolean
ts_ops_check_floating (TsTensor    *t,
                       const char  *kernel,
                       GError     **error)
{
  if (ts_dtype_is_floating (t->dtype))
    return TRUE;
  g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME, "\"%s\" not implemented for '%s'", kernel,
               ts_dtype_scalar_type_name (t->dtype));
  return FALSE;
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
  attrs->self_slot = (int) ts_grad_node_save (node, self);
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

  if (kind == TS_POOL_AVG && !ts_dtype_is_floating (self->dtype))
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_NOT_IMPLEMENTED,
                           "avg_pool2d of an integer tensor is not modeled by Tensorscope yet");
      return FALSE;
    }
  if (!ts_ops_check_floating (self, pool_names[kind], error))
    return FALSE;
  device = ts_tensor_get_device (self);
  memcpy (shape, self->shape, self->ndim * sizeof (gint64));
  shape[self->ndim - 2] = oh;
  shape[self->ndim - 1] = ow;
  if ((in = ts_ops_dense_float (self, error)) == NULL ||
      (o = ts_tensor_new_empty (device, in->dtype, self->ndim, shape, FALSE, error)) == NULL ||
      (is_max (kind) &&
       (ind = ts_tensor_new_empty (device, TS_DTYPE_INT64, self->ndim, shape, FALSE, error)) == NULL) ||
      !pool_launch (kind, p, o, in, ind, error) ||
      (o = ts_ops_to_dtype (g_steal_pointer (&o), self->dtype, error)) == NULL)
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

  if ((g = ts_ops_dense_float (grad, error)) == NULL ||
      (indices != NULL && (ind = ts_ops_dense (indices, error)) == NULL) ||
      (gi = ts_tensor_new_empty (ts_tensor_get_device (grad), g->dtype, ndim, shape, FALSE, error)) == NULL)
    return NULL;
  if (ts_tensor_numel (g) == 0)
    {
      TsScalar zero = { TS_DTYPE_FLOAT64, 0, 0 };

      return ts_ops_fill (gi, &zero, error) ? g_steal_pointer (&gi) : NULL;
    }
  if (!pool_launch (kind, p, gi, g, ind, error))
    return NULL;
  return ts_ops_to_dtype (g_steal_pointer (&gi), grad->dtype, error);
}

/* -- Remaps ------------------------------------------------------------------ */

static gboolean
remap_has_scales (TsRemapKernel mode)
{
  mode &= ~TS_REMAP_BACKWARD;
  return mode == TS_REMAP_NEAREST || mode == TS_REMAP_LINEAR || mode == TS_REMAP_CUBIC;
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
        return ts_ops_fail (error, "padding by more than 32767 is not modeled yet");
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
    case TS_REMAP_CUBIC:
      return backward ? TS_OP_UPSAMPLE_BICUBIC2D_BACKWARD : TS_OP_UPSAMPLE_BICUBIC2D;
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

/* Which dtypes PyTorch's CPU kernels take: any for constant and circular
 * padding (copies), floating for the others, and uint8 for nearest */
static gboolean
remap_check_dtype (TsRemapKernel   mode,
                   TsTensor       *self,
                   guint           k,
                   GError        **error)
{
  g_autofree char *name = NULL;

  switch (mode)
    {
    case TS_REMAP_REFLECT:
      name = g_strdup_printf ("reflection_pad%ud", k);
      break;
    case TS_REMAP_REPLICATE:
      name = g_strdup_printf ("replication_pad%ud", k);
      break;
    case TS_REMAP_NEAREST:
      if (self->dtype == TS_DTYPE_UINT8)
        return TRUE;
      name = g_strdup_printf ("upsample_nearest%ud_channels_last", k);
      break;
    case TS_REMAP_LINEAR:
      name = g_strdup (k == 2 ? "upsample_bilinear2d_channels_last" : "compute_indices_weights_linear");
      break;
    case TS_REMAP_CUBIC:
      name = g_strdup ("upsample_bicubic2d");
      break;
    default:
      return TRUE;
    }
  return ts_ops_check_floating (self, name, error);
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
  TsOpId id = mode != TS_REMAP_PIXEL_SHUFFLE ? remap_op (mode, r->k, FALSE)
              : r->pads[0] > 0 ? TS_OP_PIXEL_SHUFFLE : TS_OP_PIXEL_UNSHUFFLE;
  const TsOpDesc *desc = ts_op_get (id);
  g_autoptr(TsTensor) in = NULL;
  g_autoptr(TsTensor) out = NULL;
  g_autoptr(TsGradNode) node = NULL;
  TsRemapAttrs *attrs;

  g_return_val_if_fail (self != NULL && r->k <= MIN (self->ndim, TS_REMAP_MAX_DIMS), NULL);

  if (!remap_check_dtype (mode, self, r->k, error))
    return NULL;

  if ((in = mode == TS_REMAP_LINEAR || mode == TS_REMAP_CUBIC ? ts_ops_dense_float (self, error)
                                                               : ts_ops_dense (self, error)) == NULL ||
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
      (out = ts_ops_to_dtype (g_steal_pointer (&out), self->dtype, error)) == NULL)
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

  if ((g = ts_ops_dense_float (grad, error)) == NULL ||
      (gi = ts_tensor_new_empty (ts_tensor_get_device (grad), g->dtype, ndim, shape, FALSE, error)) == NULL)
    return NULL;
  if (ts_tensor_numel (g) == 0 || ts_tensor_numel (gi) == 0)
    {
      TsScalar zero = { TS_DTYPE_FLOAT64, 0, 0 };

      return ts_tensor_numel (gi) == 0 || ts_ops_fill (gi, &zero, error) ? g_steal_pointer (&gi) : NULL;
    }
  if (!remap_launch (remap_op (mode, r->k, TRUE), mode | TS_REMAP_BACKWARD, r, gi, g, error))
    return NULL;
  return ts_ops_to_dtype (g_steal_pointer (&gi), grad->dtype, error);
}
