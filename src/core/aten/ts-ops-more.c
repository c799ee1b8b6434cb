/* ts-ops-more.c: where, and the float32 matmul precision the cost model reads
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * torch.set_float32_matmul_precision ("high" or "medium") and
 * torch.backends.cuda.matmul.allow_tf32 = True let cuBLAS run float32
 * matmuls on TF32 tensor cores. The values are unchanged here (the
 * kernels compute in float32); the flops rate of the launch is the GPU
 * profile's tf32_flops instead of fp32_flops (docs/simulation-model.md).
 *
 * where(condition, self, other): the WHERE row, one kernel of three
 * broadcast operands (torch/_ops_more.py promotes their dtypes and wraps
 * numbers as 0-dim tensors), and its WhereBackward0 node.
 */

#include "config.h"

#include <string.h>

#include "ts-autograd-formulas.h"
#include "ts-op-table.h"
#include "ts-ops-private.h"

static gboolean float32_matmul_tf32;

void
ts_ops_set_float32_matmul_tf32 (gboolean allow)
{
  float32_matmul_tf32 = !!allow;
}

gboolean
ts_ops_get_float32_matmul_tf32 (void)
{
  return float32_matmul_tf32;
}

/* The math a matmul (mm, bmm) of @dtype runs: half types on the FP16/BF16
 * tensor cores, float32 on TF32 ones when allowed, else plain FP32 (and
 * float64, whose rate the profiles do not model apart). */
TsPrecision
ts_ops_matmul_precision (TsDType dtype)
{
  if (dtype == TS_DTYPE_FLOAT16 || dtype == TS_DTYPE_BFLOAT16)
    return TS_PRECISION_FP16;
  if (dtype == TS_DTYPE_FLOAT32 && float32_matmul_tf32)
    return TS_PRECISION_TF32;
  return TS_PRECISION_FP32;
}

/* where ------------------------------------------------------------------ */

gboolean
ts_ops_where_job (TsOpJob  *job,
                  GError  **error)
{
  TsView v[4];
  TsOpJobArgs args;

  /* slots: output, self, other, condition */
  ts_op_job_unpack (job, v, &args);
  return ts_cpu_where (&v[0], &v[3], &v[1], &v[2], error);
}

/* The shape the three operands broadcast to. */
static gboolean
where_shape (TsTensor **operands,
             guint     *ndim,
             gint64    *shape,
             GError   **error)
{
  *ndim = operands[0]->ndim;
  memcpy (shape, operands[0]->shape, *ndim * sizeof (gint64));
  for (guint i = 1; i < 3; i++)
    {
      gint64 prev[TS_MAX_DIMS];
      guint prev_ndim = *ndim;

      memcpy (prev, shape, prev_ndim * sizeof (gint64));
      if (!ts_broadcast_shapes (prev_ndim, prev, operands[i]->ndim, operands[i]->shape, ndim, shape, error))
        return FALSE;
    }
  return TRUE;
}

/* one pass: read the three operands, write the output */
static TsKernelCost
where_cost (const TsView *out)
{
  TsKernelCost cost;
  double n = (double) ts_view_numel (out);

  cost.flops = n;
  cost.bytes = n * (3.0 * (double) ts_dtype_size (out->dtype) + 1.0);
  return cost;
}

TsTensor *
ts_ops_where (TsTensor  *condition,
              TsTensor  *self,
              TsTensor  *other,
              GError   **error)
{
  TsTensor *operands[3] = { condition, self, other };
  TsTensor *inputs[2] = { self, other };
  g_autoptr(TsTensor) c = NULL;
  g_autoptr(TsTensor) x = NULL;
  g_autoptr(TsTensor) y = NULL;
  gint64 shape[TS_MAX_DIMS];
  guint ndim;
  TsDevice device;
  TsTensor *out;
  TsOpJob *job;
  TsView vout;

  g_return_val_if_fail (condition != NULL && self != NULL && other != NULL, NULL);

  if (!ts_ops_common_device (operands, 3, &device, error))
    return NULL;
  for (guint i = 0; i < 3; i++)
    if (ts_tensor_get_device (operands[i]).type != device.type)
      {
        /* common_device lets a 0-dim CPU tensor meet CUDA ones, as a
         * number the op reads on the host: this kernel reads memory */
        g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                             "where(): a 0-dim CPU operand must be moved to the device first");
        return NULL;
      }
  if (condition->dtype != TS_DTYPE_BOOL)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "where expected condition to be a boolean tensor, but got a tensor with dtype %s",
                   ts_dtype_scalar_type_name (condition->dtype));
      return NULL;
    }
  if (self->dtype != other->dtype)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "expected scalar type %s but found %s", ts_dtype_scalar_type_name (self->dtype),
                   ts_dtype_scalar_type_name (other->dtype));
      return NULL;
    }
  if (!where_shape (operands, &ndim, shape, error) ||
      (c = ts_tensor_expand (condition, ndim, shape, error)) == NULL ||
      (x = ts_tensor_expand (self, ndim, shape, error)) == NULL ||
      (y = ts_tensor_expand (other, ndim, shape, error)) == NULL ||
      (out = ts_tensor_new_empty (device, self->dtype, ndim, shape, FALSE, error)) == NULL)
    return NULL;
  if (ts_tensor_numel (out) > 0)
    {
      job = ts_op_job_new (TS_OP_WHERE);
      ts_op_job_set (job, 0, out);
      ts_op_job_set (job, 1, x);
      ts_op_job_set (job, 2, y);
      ts_op_job_set (job, 3, c);
      ts_op_job_view (job, 0, &vout);
      if (!ts_op_job_dispatch (job, device, where_cost (&vout), error))
        {
          ts_tensor_unref (out);
          return NULL;
        }
    }
  {
    /* the formula reads the condition */
    TsOpGradAttrs grad = { .save_extra = condition };

    ts_autograd_record_op (ts_op_get (TS_OP_WHERE), TS_OP_GRAD_TENSOR, inputs, 2, out, &grad);
  }
  return out;
}
