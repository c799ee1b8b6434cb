/* ts-ops-shape.c: the SHAPE family (tril, triu, flip, cat, stack)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Ops that move whole elements by position. The Python side checks the
 * arguments with PyTorch's messages (dims, the out= tensor); what reaches
 * here is well formed, or fails with a plain message. No device kernel
 * yet: the op list gives them TS_OP_CUDA_HOST, so on a real GPU the host
 * fallback computes them; on the simulator the job runs as device work.
 */

#include "config.h"

#include <string.h>

#include "ts-autograd-formulas.h"
#include "ts-op-table.h"
#include "ts-ops-private.h"
#include "ts-ops-shape.h"

gboolean
ts_ops_shape_job (TsOpJob  *job,
                  GError  **error)
{
  TsView v[4];
  TsOpJobArgs args;
  TsShapeOp op = (TsShapeOp) ts_op_job_desc (job)->kernel;

  /* slots: output, input; arg: the diagonal; mask: the dims to flip.
   * cat: output, up to three inputs (mask of them); arg: the first's
   * index along dim */
  ts_op_job_unpack (job, v, &args);
  if (op == TS_SHAPE_CAT)
    return ts_cpu_cat (&v[1], (guint) args.mask, &v[0], args.dim, args.arg, error);
  if (op == TS_SHAPE_FLIP)
    return ts_cpu_flip (&v[1], &v[0], args.mask, error);
  return ts_cpu_triangle (&v[1], &v[0], args.arg, op == TS_SHAPE_TRIU, error);
}

int
ts_ops_host_device (TsOpJob             *job,
                    const TsCudaKernels *k,
                    gpointer             stream)
{
  /* the module has no kernel for these: the host fallback runs them */
  return TS_CUDA_ERROR_NOT_SUPPORTED;
}

TsTensor *
ts_ops_launch_like (TsOpId     id,
                    TsTensor  *self,
                    TsTensor  *out,
                    TsDType    dtype,
                    gint64     arg,
                    int        dim,
                    guint64    mask,
                    GError   **error)
{
  TsTensor *operands[2] = { self, out };
  TsView vin, vout;
  TsDevice device;
  TsOpJob *job;

  if (out != NULL && (out->dtype != dtype || out->ndim != self->ndim ||
                      memcmp (out->shape, self->shape, self->ndim * sizeof (gint64)) != 0))
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "the output must have the input's shape and the result's dtype");
      return NULL;
    }
  if (!ts_ops_common_device (operands, out != NULL ? 2 : 1, &device, error))
    return NULL;
  if (out == NULL)
    out = ts_tensor_new_empty (device, dtype, self->ndim, self->shape, FALSE, error);
  else
    out = ts_tensor_ref (out);
  if (out == NULL || ts_tensor_numel (out) == 0)
    return out;
  job = ts_op_job_new (id);
  ts_op_job_set_args (job, arg, dim, mask);
  ts_op_job_set (job, 0, out);
  ts_op_job_set (job, 1, self);
  ts_op_job_view (job, 0, &vout);
  ts_op_job_view (job, 1, &vin);
  return ts_op_job_dispatch_new (job, device, ts_cost_copy (&vout, &vin), out, error);
}

/* Records the node of out = id (self) for the ops with a formula: the
 * diagonal, or the dims in mask, are what it reads. */
TsTensor *
ts_ops_record_like (TsTensor  *out,
                    TsOpId     id,
                    TsTensor  *self,
                    gint64     diagonal,
                    guint64    mask,
                    TsTensor  *original)
{
  TsOpGradAttrs grad = { .scalar = (double) diagonal, .save_self = original };

  for (guint d = 0; d < TS_MAX_DIMS; d++)
    if (mask & (G_GUINT64_CONSTANT (1) << d))
      grad.dims[grad.n_dims++] = (int) d;
  if (out != NULL)
    ts_autograd_record_op (ts_op_get (id), TS_OP_GRAD_TENSOR, &self, 1, out, &grad);
  return out;
}

TsTensor *
ts_ops_triangle (TsTensor  *self,
                 gint64     diagonal,
                 gboolean   upper,
                 TsTensor  *out,
                 GError   **error)
{
  TsOpId id;

  g_return_val_if_fail (self != NULL, NULL);

  if (self->ndim < 2)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "%s: input tensor must have at least 2 dimensions", upper ? "triu" : "tril");
      return NULL;
    }
  id = upper ? TS_OP_TRIU : TS_OP_TRIL;
  out = ts_ops_launch_like (id, self, out, self->dtype, diagonal, 0, 0, error);
  return ts_ops_record_like (out, id, self, diagonal, 0, NULL);
}

TsTensor *
ts_ops_flip (TsTensor  *self,
             guint64    dim_mask,
             GError   **error)
{
  g_autoptr(TsTensor) out = NULL;

  g_return_val_if_fail (self != NULL, NULL);

  /* ATen's flip writes into empty_like (self, preserve_format) */
  if ((out = ts_tensor_new_preserving (ts_tensor_get_device (self), self->dtype, self, error)) == NULL)
    return NULL;
  return ts_ops_record_like (ts_ops_launch_like (TS_OP_FLIP, self, out, self->dtype, 0, 0, dim_mask, error),
                             TS_OP_FLIP, self, 0, dim_mask, NULL);
}

/* How many inputs one cat launch copies: the job's slots after the
 * output's (CUDA's CatArrayBatchedCopy takes 128 per launch). */
#define CAT_BATCH 3

/* Copies @parts (non-empty, @out's shape but along @dim) into @out, a
 * batch of them per launch of op @id */
static gboolean
cat_launch (TsOpId      id,
            TsTensor  **parts,
            guint       n,
            int         dim,
            TsTensor   *out,
            TsDevice    device,
            GError    **error)
{
  gint64 start = 0;
  TsView vout;
  guint i = 0;

  while (i < n)
    {
      TsOpJob *job = ts_op_job_new (id);
      TsKernelCost cost = { 0, 0 };
      gint64 first = start;
      guint k = 0;

      ts_op_job_set (job, 0, out);
      ts_op_job_view (job, 0, &vout);
      for (; i < n && k < CAT_BATCH; i++, k++)
        {
          TsView vin, part = vout;
          TsKernelCost c;

          ts_op_job_set (job, 1 + k, parts[i]);
          ts_op_job_view (job, 1 + k, &vin);
          part.shape[dim] = vin.shape[dim];
          c = ts_cost_copy (&part, &vin);
          cost.flops += c.flops;
          cost.bytes += c.bytes;
          start += vin.shape[dim];
        }
      ts_op_job_set_args (job, first, dim, k);
      if (!ts_op_job_dispatch (job, device, cost, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
ts_ops_cat (TsOpId      id,
            TsTensor  **tensors,
            guint       n,
            int         dim,
            TsTensor   *out,
            gboolean    record,
            GError    **error)
{
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func ((GDestroyNotify) ts_tensor_unref);
  g_autofree TsTensor **operands = g_new (TsTensor *, n + 1);
  TsDevice device;
  TsGradNode *node;

  g_return_val_if_fail (id == TS_OP_CAT || id == TS_OP_STACK, FALSE);
  g_return_val_if_fail (out != NULL && dim >= 0 && (guint) dim < out->ndim, FALSE);

  memcpy (operands, tensors, n * sizeof (TsTensor *));
  operands[n] = out;
  if (!ts_ops_common_device (operands, n + 1, &device, error))
    return FALSE;
  /* empty inputs (the legacy 1-D [0] ones too) copy nothing */
  for (guint i = 0; i < n; i++)
    if (ts_tensor_numel (tensors[i]) != 0)
      g_ptr_array_add (parts, id == TS_OP_STACK ? ts_tensor_unsqueeze (tensors[i], dim, NULL)
                                                : ts_tensor_ref (tensors[i]));
  if (ts_tensor_numel (out) != 0 &&
      !cat_launch (id, (TsTensor **) parts->pdata, parts->len, dim, out, device, error))
    return FALSE;
  /* out= is refused with inputs that require grad (Python says so) */
  if (!record || !ts_op_get (id)->differentiable)
    return TRUE;
  node = ts_autograd_record (ts_op_get (id)->grad_names[TS_OP_GRAD_TENSOR], ts_op_get (id)->backward,
                             sizeof (TsOpGradAttrs), tensors, n, &out, 1);
  if (node != NULL)
    {
      TsOpGradAttrs *attrs = ts_grad_node_get_attrs (node);

      attrs->dims[0] = dim;
      attrs->n_dims = 1;
      ts_grad_node_unref (node);
    }
  return TRUE;
}
