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
#include "ts-cublas-workspace.h"
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
 * tensor cores, float32 on TF32 ones when allowed, else plain FP32;
 * float64 at the FP64 rate (integer matmuls, which cuBLAS does not do,
 * at FP32's). */
TsPrecision
ts_ops_matmul_precision (TsDType dtype)
{
  if (dtype == TS_DTYPE_FLOAT16 || dtype == TS_DTYPE_BFLOAT16)
    return TS_PRECISION_FP16;
  if (dtype == TS_DTYPE_FLOAT32 && float32_matmul_tf32)
    return TS_PRECISION_TF32;
  if (dtype == TS_DTYPE_FLOAT64)
    return TS_PRECISION_FP64;
  return TS_PRECISION_FP32;
}

/* where ------------------------------------------------------------------ */

gboolean
ts_ops_where_job (TsOpJob  *job,
                  GError  **error)
{
  TsView v[4];
  TsOpJobArgs args;

  /* slots: output, condition, self, other */
  ts_op_job_unpack (job, v, &args);
  return ts_cpu_where (&v[0], &v[1], &v[2], &v[3], error);
}

/* The shape the @n operands broadcast to. */
static gboolean
broadcast_shape (TsTensor **operands,
                 guint      n,
                 guint     *ndim,
                 gint64    *shape,
                 GError   **error)
{
  *ndim = operands[0]->ndim;
  memcpy (shape, operands[0]->shape, *ndim * sizeof (gint64));
  for (guint i = 1; i < n; i++)
    {
      gint64 prev[TS_MAX_DIMS];
      guint prev_ndim = *ndim;

      memcpy (prev, shape, prev_ndim * sizeof (gint64));
      if (!ts_broadcast_shapes (prev_ndim, prev, operands[i]->ndim, operands[i]->shape, ndim, shape, error))
        return FALSE;
    }
  return TRUE;
}

/* one pass: read the @n operands (about the output's element size each),
 * write the output; a multiply-add or a pick per element */
static TsKernelCost
pointwise_cost (const TsView *out,
                guint         n)
{
  TsKernelCost cost;
  double n_elems = (double) ts_view_numel (out);

  cost.flops = 2.0 * n_elems;
  cost.bytes = n_elems * (double) (n + 1) * (double) ts_dtype_size (out->dtype);
  return cost;
}

/* The job of @id over @n operands broadcast to one shape, the number
 * @scalar riding in the job's arg (its bits) and @n in its dim: slot 0
 * the output (@into, in place, or a new tensor of @dtype), slots 1.. the
 * expanded operands. Returns the output, or NULL. */
static TsTensor *
launch_broadcast (TsOpId     id,
                  TsDType    dtype,
                  TsTensor  *into,
                  TsTensor **operands,
                  guint      n,
                  double     scalar,
                  GError   **error)
{
  TsTensor *expanded[3] = { NULL };
  gint64 shape[TS_MAX_DIMS], arg;
  TsTensor *out = NULL;
  TsDevice device;
  guint ndim;
  gboolean ok;

  if (!ts_ops_common_device (operands, n, &device, error))
    return NULL;
  for (guint i = 0; i < n; i++)
    if (ts_tensor_get_device (operands[i]).type != device.type)
      {
        /* common_device lets a 0-dim CPU tensor meet CUDA ones, as a
         * number the op reads on the host: these kernels read memory */
        g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                     "%s(): a 0-dim CPU operand must be moved to the device first", ts_op_get (id)->name);
        return NULL;
      }
  ok = broadcast_shape (operands, n, &ndim, shape, error);
  for (guint i = 0; ok && i < n; i++)
    ok = (expanded[i] = ts_tensor_expand (operands[i], ndim, shape, error)) != NULL;
  if (ok && into != NULL && (into->ndim != ndim || memcmp (into->shape, shape, ndim * sizeof (gint64)) != 0))
    {
      g_autofree char *have = ts_shape_to_string (into->ndim, into->shape);
      g_autofree char *want = ts_shape_to_string (ndim, shape);

      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "output with shape [%s] doesn't match the broadcast shape [%s]", have, want);
      ok = FALSE;
    }
  if (ok)
    out = into != NULL ? ts_tensor_ref (into)
          : ts_tensor_new_output (device, dtype, ndim, shape, operands, n, FALSE, error);
  if (out != NULL && ts_tensor_numel (out) > 0)
    {
      TsOpJob *job = ts_op_job_new (id);
      TsView vout;

      memcpy (&arg, &scalar, sizeof arg);
      ts_op_job_set_args (job, arg, (int) n, 0);
      ts_op_job_set (job, 0, out);
      for (guint i = 0; i < n; i++)
        ts_op_job_set (job, i + 1, expanded[i]);
      ts_op_job_view (job, 0, &vout);
      out = ts_op_job_dispatch_new (job, device, pointwise_cost (&vout, n), out, error);
    }
  for (guint i = 0; i < n; i++)
    g_clear_pointer (&expanded[i], ts_tensor_unref);
  return out;
}

TsTensor *
ts_ops_where (TsTensor  *condition,
              TsTensor  *self,
              TsTensor  *other,
              GError   **error)
{
  /* slots: output, condition, self, other */
  TsTensor *operands[3] = { condition, self, other };
  TsTensor *inputs[2] = { self, other };
  TsTensor *out;

  g_return_val_if_fail (condition != NULL && self != NULL && other != NULL, NULL);

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
  out = launch_broadcast (TS_OP_WHERE, self->dtype, NULL, operands, 3, 0, error);
  if (out != NULL)
    {
      /* the formula reads the condition */
      TsOpGradAttrs grad = { .save_extra = condition };

      ts_autograd_record_op (ts_op_get (TS_OP_WHERE), TS_OP_GRAD_TENSOR, inputs, 2, out, &grad);
    }
  return out;
}

/* lerp and addcmul ----------------------------------------------------------- */

gboolean
ts_ops_ternary_job (TsOpJob  *job,
                    GError  **error)
{
  TsView v[4];
  TsOpJobArgs args;
  double scalar;

  /* slots: output, self, end or tensor1, weight or tensor2 (lerp with a
   * number weight: none, dim 2); the number in the arg */
  ts_op_job_unpack (job, v, &args);
  memcpy (&scalar, &args.arg, sizeof scalar);
  if (ts_op_job_desc (job)->id != TS_OP_LERP)
    return ts_cpu_addcmul (&v[0], &v[1], &v[2], &v[3], scalar, ts_op_job_desc (job)->id == TS_OP_ADDCDIV, error);
  return ts_cpu_lerp (&v[0], &v[1], &v[2], args.dim == 3 ? &v[3] : NULL, scalar, error);
}

TsTensor *
ts_ops_ternary (TsOpId     id,
                TsTensor  *self,
                TsTensor  *a,
                TsTensor  *b,
                double     scalar,
                gboolean   inplace,
                GError   **error)
{
  TsTensor *operands[3] = { self, a, b };
  guint n = b != NULL ? 3 : 2;
  TsTensor *out;

  g_return_val_if_fail (id == TS_OP_LERP || id == TS_OP_ADDCMUL || id == TS_OP_ADDCDIV, NULL);
  g_return_val_if_fail (self != NULL && a != NULL && (b != NULL || id == TS_OP_LERP), NULL);

  for (guint i = 1; i < n; i++)
    if (operands[i]->dtype != self->dtype)
      {
        g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                     "expected dtype %s for `%s` but got dtype %s", ts_dtype_scalar_type_name (self->dtype),
                     i == 1 ? ts_op_get (id)->args[1] : id == TS_OP_LERP ? "weight" : "tensor2",
                     ts_dtype_scalar_type_name (operands[i]->dtype));
        return NULL;
      }
  if (inplace)
    {
      /* with no history to record: Python takes this form only then */
      if (ts_autograd_is_grad_enabled () && ts_autograd_any_requires_grad (operands, n))
        {
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "%s_: the in-place kernel records no gradient", ts_op_get (id)->name);
          return NULL;
        }
      out = launch_broadcast (id, self->dtype, self, operands, n, scalar, error);
      if (out != NULL)
        ts_autograd_bump_version (out);
      return out;
    }
  out = launch_broadcast (id, self->dtype, NULL, operands, n, scalar, error);
  if (out != NULL)
    {
      /* the third operand is saved apart; the number is the formula's */
      TsOpGradAttrs grad = { .save_extra = b, .scalar = scalar, .has_scalar = b == NULL };

      ts_autograd_record_op (ts_op_get (id), b == NULL ? TS_OP_GRAD_SCALAR : TS_OP_GRAD_TENSOR, operands, n, out,
                             &grad);
    }
  return out;
}

/* mv ------------------------------------------------------------------------- */

gboolean
ts_ops_mv_job (TsOpJob  *job,
               GError  **error)
{
  TsView v[4];
  TsOpJobArgs args;

  /* mv's slots: output, matrix, vector; addmm's: output, self, mat1,
   * mat2, with beta and alpha for factors */
  ts_op_job_unpack (job, v, &args);
  if (ts_op_job_desc (job)->id == TS_OP_ADDMM)
    return ts_cpu_addmm (&v[1], &v[2], &v[3], args.p0, args.p1, &v[0], error);
  return ts_cpu_mv (&v[0], &v[1], &v[2], error);
}

TsTensor *
ts_ops_mv (TsTensor  *self,
           TsTensor  *vec,
           GError   **error)
{
  TsTensor *operands[2] = { self, vec };
  TsDevice device;
  TsTensor *out;

  g_return_val_if_fail (self != NULL && vec != NULL, NULL);

  if (!ts_ops_common_device (operands, 2, &device, error))
    return NULL;
  if (self->ndim != 2 || vec->ndim != 1 || self->shape[1] != vec->shape[0] || self->dtype != vec->dtype)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "mv: expected a matrix and a vector of its dtype and size");
      return NULL;
    }
  out = ts_tensor_new_empty (device, self->dtype, 1, self->shape, FALSE, error);
  if (out != NULL && ts_tensor_numel (out) > 0)
    {
      TsOpJob *job = ts_op_job_new (TS_OP_MV);

      ts_op_job_set (job, 0, out);
      ts_op_job_set (job, 1, self);
      ts_op_job_set (job, 2, vec);
      /* a gemv: no tensor cores, memory-bound on the matrix */
      out = ts_op_job_dispatch_new (job, device, ts_cost_matmul (1, self->shape[0], 1, self->shape[1], self->dtype),
                                    out, error);
    }
  if (out != NULL)
    ts_autograd_record_op (ts_op_get (TS_OP_MV), TS_OP_GRAD_TENSOR, operands, 2, out, NULL);
  return out;
}

/* addmm ---------------------------------------------------------------------- */

/* AddmmBackward0 saves mat1 for mat2's gradient and mat2 for mat1's, and
 * the two factors. */
static void
addmm_record (TsTensor *self,
              TsTensor *mat1,
              TsTensor *mat2,
              TsTensor *out,
              double    beta,
              double    alpha)
{
  const TsOpDesc *desc = ts_op_get (TS_OP_ADDMM);
  TsTensor *inputs[3] = { self, mat1, mat2 };
  TsOpGradAttrs *attrs;
  TsGradNode *node;

  if (!ts_autograd_is_grad_enabled () || !ts_autograd_any_requires_grad (inputs, 3))
    return;
  node = ts_autograd_record (desc->grad_names[0], desc->backward, sizeof (TsOpGradAttrs), inputs, 3, &out, 1);
  if (node == NULL)
    return;
  attrs = ts_grad_node_get_attrs (node);
  attrs->self_slot = ts_autograd_requires_grad (mat2) ? (int) ts_grad_node_save (node, mat1) : -1;
  attrs->other_slot = ts_autograd_requires_grad (mat1) ? (int) ts_grad_node_save (node, mat2) : -1;
  attrs->result_slot = -1;
  attrs->extra_slot = -1;
  attrs->scalar = alpha;
  attrs->scalar2 = beta;
  attrs->column_major = ts_autograd_column_major_bit (mat1, 0) | ts_autograd_column_major_bit (mat2, 1);
  ts_grad_node_unref (node);
}

/* PyTorch's addmm_out_cpu order: the product's shape, self expanded to
 * it, then the dtypes */
static TsTensor *
addmm_checked_self (TsTensor  *self,
                    TsTensor  *mat1,
                    TsTensor  *mat2,
                    GError   **error)
{
  gint64 shape[2] = { mat1->shape[0], mat2->shape[1] };
  TsTensor *expanded;

  if (mat1->shape[1] != mat2->shape[0])
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "mat1 and mat2 shapes cannot be multiplied (%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                   " and %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT ")",
                   mat1->shape[0], mat1->shape[1], mat2->shape[0], mat2->shape[1]);
      return NULL;
    }
  if ((expanded = ts_tensor_expand (self, 2, shape, error)) == NULL)
    return NULL;
  if (mat1->dtype != mat2->dtype || self->dtype != mat1->dtype)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "self and mat2 must have the same dtype");
      ts_tensor_unref (expanded);
      return NULL;
    }
  return expanded;
}

/* PyTorch 2.11's isInputCompliesAddmmCudaLt without an activation: a
 * contiguous bias row (1-D, or 1-D once squeezed) as long as the
 * product's rows, beta 1, a floating dtype, no matrix dim of 1. nn.Linear
 * with a bias is the common case. */
static gboolean
addmm_takes_lt (TsTensor *self,
                TsTensor *mat1,
                TsTensor *mat2,
                double    beta)
{
  guint non_one = 0;

  for (guint d = 0; d < self->ndim; d++)
    non_one += self->shape[d] != 1;
  return ts_tensor_is_cuda (mat1) && beta == 1.0 && ts_tensor_is_contiguous (self) &&
         self->ndim >= 1 && (self->ndim == 1 || non_one == 1) && self->shape[self->ndim - 1] == mat2->shape[1] &&
         (mat1->dtype == TS_DTYPE_FLOAT64 || mat1->dtype == TS_DTYPE_FLOAT32 ||
          mat1->dtype == TS_DTYPE_FLOAT16 || mat1->dtype == TS_DTYPE_BFLOAT16) &&
         mat1->shape[0] > 1 && mat1->shape[1] > 1 && mat2->shape[0] > 1 && mat2->shape[1] > 1 &&
         ts_cublas_workspace_addmm_lt ();
}

TsTensor *
ts_ops_addmm (TsTensor  *self,
              TsTensor  *mat1,
              TsTensor  *mat2,
              double     beta,
              double     alpha,
              GError   **error)
{
  TsTensor *operands[3] = { self, mat1, mat2 };
  g_autoptr(TsTensor) expanded = NULL;
  gint64 shape[2];
  TsDevice device;
  TsTensor *out;

  g_return_val_if_fail (self != NULL && mat1 != NULL && mat2 != NULL, NULL);
  g_return_val_if_fail (mat1->ndim == 2 && mat2->ndim == 2, NULL);

  if (!ts_ops_common_device (operands, 3, &device, error) ||
      (expanded = addmm_checked_self (self, mat1, mat2, error)) == NULL)
    return NULL;
  shape[0] = mat1->shape[0];
  shape[1] = mat2->shape[1];
  out = ts_tensor_new_empty (device, mat1->dtype, 2, shape, FALSE, error);
  if (out != NULL && ts_tensor_numel (out) > 0)
    {
      TsOpJob *job = ts_op_job_new (TS_OP_ADDMM);

      ts_op_job_set_matmul_launch (job, 1, shape[0], shape[1], mat1->dtype);
      ts_op_job_set_factors (job, beta, alpha);
      if (addmm_takes_lt (self, mat1, mat2, beta))
        ts_op_job_set_blas_lt (job);
      ts_op_job_set (job, 0, out);
      ts_op_job_set (job, 1, expanded);
      ts_op_job_set (job, 2, mat1);
      ts_op_job_set (job, 3, mat2);
      out = ts_op_job_dispatch_new (job, device, ts_cost_matmul (1, shape[0], shape[1], mat1->shape[1], mat1->dtype),
                                    out, error);
    }
  if (out != NULL)
    addmm_record (self, mat1, mat2, out, beta, alpha);
  return out;
}
