/* ts-ops-shape.c: the SHAPE family (tril, triu, flip)
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

  /* slots: output, input; arg: the diagonal; mask: the dims to flip */
  ts_op_job_unpack (job, v, &args);
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
  if (!ts_op_job_dispatch (job, device, ts_cost_copy (&vout, &vin), error))
    {
      ts_tensor_unref (out);
      return NULL;
    }
  return out;
}

/* Records the node of out = id (self) for the ops with a formula: the
 * diagonal, or the dims in mask, are what it reads. */
TsTensor *
ts_ops_record_like (TsTensor  *out,
                    TsOpId     id,
                    TsTensor  *self,
                    gint64     diagonal,
                    guint64    mask)
{
  TsOpGradAttrs grad = { .scalar = (double) diagonal };

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
  return ts_ops_record_like (out, id, self, diagonal, 0);
}

TsTensor *
ts_ops_flip (TsTensor  *self,
             guint64    dim_mask,
             GError   **error)
{
  g_return_val_if_fail (self != NULL, NULL);

  return ts_ops_record_like (ts_ops_launch_like (TS_OP_FLIP, self, NULL, self->dtype, 0, 0, dim_mask, error),
                             TS_OP_FLIP, self, 0, dim_mask);
}
