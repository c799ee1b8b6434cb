/* ts-ops-act.c: the ACT family: hardtanh, hardswish, hardsigmoid, mish,
 * log_sigmoid, threshold, elu, celu, prelu, glu, hardshrink, softshrink and
 * their backwards
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One elementwise kernel each (ts-cpu-pool.c's TsActKernel), with the
 * activation's numbers in the job: two doubles' bits (arg, mask) and a
 * flag (dim). float16/bfloat16 compute in float32. On a real GPU,
 * threshold and threshold_backward (ReLU's backward) run the module's
 * threshold kernel; the others take the host fallback.
 */

#include "config.h"

#include <string.h>

#include "ts-autograd-formulas.h"
#include "ts-op-table.h"
#include "ts-ops-act.h"
#include "ts-ops-private.h"

gboolean
ts_ops_act_job (TsOpJob  *job,
                GError  **error)
{
  TsView v[4];
  TsOpJobArgs args;
  TsAct a;
  TsActKernel kind = (TsActKernel) ts_op_job_desc (job)->kernel;

  ts_op_job_unpack (job, v, &args);
  /* clamp's bounds ride in the job's factors */
  if (kind == TS_ACT_CLAMP)
    return ts_cpu_clamp (&v[0], &v[1], args.p0, args.p1, error);
  memcpy (&a.p0, &args.arg, sizeof a.p0);
  memcpy (&a.p1, &args.mask, sizeof a.p1);
  a.flag = args.dim != 0;
  /* forward: slots out, self (, prelu's weight); backward: grad_input,
   * grad_output, self (, weight) */
  if (kind & TS_ACT_BACKWARD)
    return ts_cpu_activation (kind, &a, &v[2], &v[1], &v[3], &v[0], error);
  return ts_cpu_activation (kind, &a, &v[1], NULL, &v[2], &v[0], error);
}

/* PyTorch's threshold_kernel, one for both directions: out = x <=
 * threshold ? value : other, with other x itself (threshold) or the
 * incoming gradient and value 0 (threshold_backward) */
int
ts_ops_act_device (TsOpJob              *job,
                   const TsCudaKernels  *k,
                   gpointer              stream)
{
  TsActKernel kind = (TsActKernel) ts_op_job_desc (job)->kernel;
  gboolean backward = (kind & TS_ACT_BACKWARD) != 0;
  TsView v[TS_OP_JOB_N_VIEWS];
  TsOpJobArgs args;
  TsCudaView out, x, other;
  double threshold, value;

  if ((kind & ~TS_ACT_BACKWARD) != TS_ACT_THRESHOLD)
    return ts_ops_host_device (job, k, stream);
  ts_op_job_unpack (job, v, &args);
  memcpy (&threshold, &args.arg, sizeof threshold);
  memcpy (&value, &args.mask, sizeof value);
  /* forward: slots out, self; backward: grad_input, grad_output, self */
  if (!ts_op_job_cuda_view (job, 0, &out) || !ts_op_job_cuda_view (job, backward ? 2 : 1, &x) ||
      !ts_op_job_cuda_view (job, 1, &other))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  return k->threshold (&out, &x, &other, threshold, backward ? 0.0 : value, stream);
}

static gboolean
act_launch (TsOpId        id,
            const TsAct  *a,
            TsTensor     *out,
            TsTensor     *in,
            TsTensor     *grad,
            TsTensor     *weight,
            GError      **error)
{
  TsOpJob *job = ts_op_job_new (id);
  gint64 arg;
  guint64 mask;
  TsView vout;
  TsKernelCost cost;

  memcpy (&arg, &a->p0, sizeof arg);
  memcpy (&mask, &a->p1, sizeof mask);
  ts_op_job_set_args (job, arg, a->flag, mask);
  /* a pointwise kernel: a channels-last input runs as one run */
  ts_op_job_set_elementwise (job);
  ts_op_job_set (job, 0, out);
  ts_op_job_set (job, 1, grad != NULL ? grad : in);
  if (grad != NULL)
    ts_op_job_set (job, 2, in);
  if (weight != NULL)
    ts_op_job_set (job, grad != NULL ? 3 : 2, weight);
  ts_op_job_view (job, 0, &vout);
  /* a transcendental or two per element: as the unary ops count them */
  cost.flops = 10.0 * (double) ts_view_numel (&vout);
  cost.bytes = (grad != NULL ? 3.0 : 2.0) * (double) ts_dtype_size (vout.dtype) * (double) ts_view_numel (&vout);
  return ts_op_job_dispatch (job, ts_tensor_get_device (out), cost, error);
}

static TsTensor *
new_like (TsTensor  *t,
          GError   **error)
{
  return ts_tensor_new_empty (ts_tensor_get_device (t), t->dtype, t->ndim, t->shape, FALSE, error);
}

/* A forward activation's input as its kernel reads it (float32 for a half
 * dtype) in @x, and a new output in @out. A dense tensor in another
 * layout (channels-last) keeps it, as ATen's TensorIterator kernels do
 * (the job runs both as one run: ts_op_job_set_elementwise). Any other
 * layout is made contiguous. */
static gboolean
act_operands (TsTensor  *self,
              TsTensor **x,
              TsTensor **out,
              GError   **error)
{
  if (!ts_tensor_is_contiguous (self) && ts_tensor_is_non_overlapping_and_dense (self))
    {
      gboolean was = ts_autograd_set_grad_enabled (FALSE);

      *x = self->dtype == TS_DTYPE_FLOAT16 || self->dtype == TS_DTYPE_BFLOAT16
           ? ts_ops_to_copy (self, ts_tensor_get_device (self), TS_DTYPE_FLOAT32, FALSE, FALSE, error)
           : ts_tensor_ref (self);
      ts_autograd_set_grad_enabled (was);
    }
  else
    *x = ts_ops_dense_float (self, error);
  if (*x == NULL)
    return FALSE;
  *out = ts_tensor_new_preserving (ts_tensor_get_device (*x), (*x)->dtype, *x, error);
  return *out != NULL;
}

TsTensor *
ts_ops_activation (const char   *name,
                   TsTensor     *self,
                   const TsAct  *a,
                   GError      **error)
{
  const TsOpDesc *desc = ts_op_lookup (name);
  g_autoptr(TsTensor) x = NULL;
  g_autoptr(TsTensor) out = NULL;
  g_autoptr(TsGradNode) node = NULL;
  TsActAttrs *attrs;

  if (desc == NULL || desc->family != TS_OP_FAMILY_ACT || (desc->kernel & TS_ACT_BACKWARD) ||
      desc->kernel == TS_ACT_PRELU || desc->kernel == TS_ACT_GLU)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME, "not an activation op: %s", name);
      return NULL;
    }
  if (!ts_ops_check_floating (self, name, error) || !act_operands (self, &x, &out, error) ||
      (ts_tensor_numel (out) > 0 && !act_launch (desc->id, a, out, x, NULL, NULL, error)) ||
      (out = ts_ops_to_dtype (g_steal_pointer (&out), self->dtype, error)) == NULL)
    return NULL;
  node = ts_autograd_record (desc->grad_names[0], desc->backward, sizeof (TsActAttrs), &self, 1, &out, 1);
  if (node != NULL)
    {
      attrs = ts_grad_node_get_attrs (node);
      attrs->kind = (TsActKernel) desc->kernel;
      attrs->a = *a;
      attrs->input_slot = (int) ts_grad_node_save (node, self);
      attrs->weight_slot = -1;
    }
  return g_steal_pointer (&out);
}

static const TsOpId backward_ops[] = {
  [TS_ACT_HARDTANH] = TS_OP_HARDTANH_BACKWARD,
  [TS_ACT_HARDSWISH] = TS_OP_HARDSWISH_BACKWARD,
  [TS_ACT_HARDSIGMOID] = TS_OP_HARDSIGMOID_BACKWARD,
  [TS_ACT_MISH] = TS_OP_MISH_BACKWARD,
  [TS_ACT_LOG_SIGMOID] = TS_OP_LOG_SIGMOID_BACKWARD,
  [TS_ACT_THRESHOLD] = TS_OP_THRESHOLD_BACKWARD,
  [TS_ACT_ELU] = TS_OP_ELU_BACKWARD,
  [TS_ACT_PRELU] = TS_OP_PRELU_BACKWARD,
  [TS_ACT_GLU] = TS_OP_GLU_BACKWARD,
  [TS_ACT_HARDSHRINK] = TS_OP_HARDSHRINK_BACKWARD,
  [TS_ACT_SOFTSHRINK] = TS_OP_SOFTSHRINK_BACKWARD,
  [TS_ACT_SILU] = TS_OP_SILU_BACKWARD,
  [TS_ACT_GELU] = TS_OP_GELU_BACKWARD,
};

TsTensor *
ts_ops_activation_backward (TsActKernel   kind,
                            const TsAct  *a,
                            TsTensor     *grad,
                            TsTensor     *self,
                            GError      **error)
{
  g_autoptr(TsTensor) g = NULL;
  g_autoptr(TsTensor) x = NULL;
  g_autoptr(TsTensor) gi = NULL;

  g_return_val_if_fail (kind < G_N_ELEMENTS (backward_ops), NULL);

  if ((g = ts_ops_dense_float (grad, error)) == NULL || (x = ts_ops_dense_float (self, error)) == NULL ||
      (gi = new_like (x, error)) == NULL ||
      (ts_tensor_numel (gi) > 0 && !act_launch (backward_ops[kind], a, gi, x, g, NULL, error)))
    return NULL;
  return ts_ops_to_dtype (g_steal_pointer (&gi), grad->dtype, error);
}

/* prelu: @weight one value or one per channel (dim 1) of @self */
TsTensor *
ts_ops_prelu (TsTensor  *self,
              TsTensor  *weight,
              GError   **error)
{
  const TsOpDesc *desc = ts_op_get (TS_OP_PRELU);
  TsTensor *inputs[2] = { self, weight };
  TsDevice device;
  TsAct a = { 0 };
  g_autoptr(TsTensor) x = NULL;
  g_autoptr(TsTensor) w = NULL;
  g_autoptr(TsTensor) out = NULL;
  g_autoptr(TsGradNode) node = NULL;
  TsActAttrs *attrs;

  if (!ts_ops_common_device (inputs, 2, &device, error) || !ts_ops_check_floating (self, "prelu", error) ||
      (x = ts_ops_dense_float (self, error)) == NULL || (w = ts_ops_dense_float (weight, error)) == NULL ||
      (out = new_like (x, error)) == NULL ||
      (ts_tensor_numel (out) > 0 && !act_launch (TS_OP_PRELU, &a, out, x, NULL, w, error)) ||
      (out = ts_ops_to_dtype (g_steal_pointer (&out), self->dtype, error)) == NULL)
    return NULL;
  node = ts_autograd_record (desc->grad_names[0], desc->backward, sizeof (TsActAttrs), inputs, 2, &out, 1);
  if (node != NULL)
    {
      attrs = ts_grad_node_get_attrs (node);
      attrs->kind = TS_ACT_PRELU;
      attrs->a = a;
      attrs->input_slot = (int) ts_grad_node_save (node, self);
      attrs->weight_slot = (int) ts_grad_node_save (node, weight);
    }
  return g_steal_pointer (&out);
}

/* prelu_backward: grads[0] the input's, grads[1] the weight's (the shares
 * summed per channel, or over all for one weight), as @mask asks */
gboolean
ts_ops_prelu_backward (TsTensor   *grad,
                       TsTensor   *self,
                       TsTensor   *weight,
                       guint       mask,
                       TsTensor  **grads,
                       GError    **error)
{
  TsAct a = { 0 };
  g_autoptr(TsTensor) g = NULL;
  g_autoptr(TsTensor) x = NULL;
  g_autoptr(TsTensor) w = NULL;

  if ((g = ts_ops_dense_float (grad, error)) == NULL || (x = ts_ops_dense_float (self, error)) == NULL ||
      (w = ts_ops_dense_float (weight, error)) == NULL)
    return FALSE;
  if ((mask & 1) &&
      ((grads[0] = new_like (x, error)) == NULL ||
       (ts_tensor_numel (x) > 0 && !act_launch (TS_OP_PRELU_BACKWARD, &a, grads[0], x, g, w, error))))
    return FALSE;
  if (mask & 2)
    {
      int dims[TS_MAX_DIMS];
      guint n = 0;
      g_autoptr(TsTensor) share = new_like (x, error);
      g_autoptr(TsTensor) sum = NULL;

      a.flag = TRUE;
      for (guint d = 0; d < x->ndim; d++)
        if (d != 1 || ts_tensor_numel (weight) == 1)
          dims[n++] = (int) d;
      if (share == NULL ||
          (ts_tensor_numel (x) > 0 && !act_launch (TS_OP_PRELU_BACKWARD, &a, share, x, g, w, error)) ||
          (sum = ts_ops_sum (share, dims, n, FALSE, TS_DTYPE_UNDEFINED, error)) == NULL ||
          (grads[1] = ts_tensor_view (sum, weight->ndim, weight->shape, error)) == NULL)
        return FALSE;
    }
  return TRUE;
}

/* glu of @self along @dim (wrapped, its size even: the caller checks) */
TsTensor *
ts_ops_glu (TsTensor  *self,
            int        dim,
            GError   **error)
{
  const TsOpDesc *desc = ts_op_get (TS_OP_GLU);
  TsAct a = { .p0 = dim };
  gint64 shape[TS_MAX_DIMS];
  g_autoptr(TsTensor) x = NULL;
  g_autoptr(TsTensor) out = NULL;
  g_autoptr(TsGradNode) node = NULL;
  TsActAttrs *attrs;

  g_return_val_if_fail (dim >= 0 && (guint) dim < self->ndim, NULL);

  memcpy (shape, self->shape, self->ndim * sizeof (gint64));
  shape[dim] /= 2;
  if (!ts_ops_check_floating (self, "glu", error) || (x = ts_ops_dense_float (self, error)) == NULL ||
      (out = ts_tensor_new_empty (ts_tensor_get_device (self), x->dtype, self->ndim, shape, FALSE, error)) == NULL ||
      (ts_tensor_numel (out) > 0 && !act_launch (TS_OP_GLU, &a, out, x, NULL, NULL, error)) ||
      (out = ts_ops_to_dtype (g_steal_pointer (&out), self->dtype, error)) == NULL)
    return NULL;
  node = ts_autograd_record (desc->grad_names[0], desc->backward, sizeof (TsActAttrs), &self, 1, &out, 1);
  if (node != NULL)
    {
      attrs = ts_grad_node_get_attrs (node);
      attrs->kind = TS_ACT_GLU;
      attrs->a = a;
      attrs->input_slot = (int) ts_grad_node_save (node, self);
      attrs->weight_slot = -1;
    }
  return g_steal_pointer (&out);
}

/* clamp with number bounds ------------------------------------------------ */

TsTensor *
ts_ops_clamp (TsTensor  *self,
              double     min,
              double     max,
              GError   **error)
{
  TsDevice device;
  TsTensor *out;

  g_return_val_if_fail (self != NULL, NULL);

  if (self->dtype != TS_DTYPE_FLOAT32 && self->dtype != TS_DTYPE_FLOAT64)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "clamp(): one launch only for float32 and float64, not %s",
                   ts_dtype_scalar_type_name (self->dtype));
      return NULL;
    }
  device = ts_tensor_get_device (self);
  out = ts_tensor_new_output (device, self->dtype, self->ndim, self->shape, &self, 1, FALSE, error);
  if (out != NULL && ts_tensor_numel (out) > 0)
    {
      /* slots: output, self; the bounds in the job's factors */
      TsOpJob *job = ts_op_job_new (TS_OP_CLAMP);
      TsView vout;

      ts_op_job_set_factors (job, min, max);
      ts_op_job_set_elementwise (job);
      ts_op_job_set (job, 0, out);
      ts_op_job_set (job, 1, self);
      ts_op_job_view (job, 0, &vout);
      {
      /* a read and a write per element, two comparisons */
      TsKernelCost cost = { .flops = 2.0 * (double) ts_view_numel (&vout),
                            .bytes = 2.0 * (double) ts_view_numel (&vout) * (double) ts_dtype_size (vout.dtype) };

      out = ts_op_job_dispatch_new (job, device, cost, out, error);
      }
    }
  if (out != NULL)
    {
      /* the formula compares self with both bounds */
      TsOpGradAttrs grad = { .scalar = min, .scalar2 = max, .has_scalar = TRUE };

      ts_autograd_record_op (ts_op_get (TS_OP_CLAMP), TS_OP_GRAD_SCALAR, &self, 1, out, &grad);
    }
  return out;
}
