/* ts-ops-loss.c: the LOSS family: nll_loss_forward, nll_loss2d_forward
 * and their backwards
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One launch each, as PyTorch's, so that a cross_entropy holds what
 * PyTorch's holds: the output, the 0-dim total_weight (saved for the
 * backward) and nothing else; the backward allocates only the gradient.
 * The checks and their messages are PyTorch 1.13's (LossNLL.cpp,
 * LossNLL2d.cpp). The kernels read float16/bfloat16 as they are: no
 * float32 copies. On a real GPU the module's nll_loss kernels run them
 * (PyTorch's Loss.cu: one block sums a reduction in order).
 */

#include "config.h"

#include <string.h>

#include "ts-autograd-formulas.h"
#include "ts-device-assert.h"
#include "ts-op-table.h"
#include "ts-ops-loss.h"
#include "ts-ops-private.h"

/* The job's params: the kernel's shape and arguments */
static void
loss_params (TsOpJob      *job,
             TsNllLoss    *p)
{
  memcpy (p, ts_op_job_get_params (job), sizeof *p);
}

gboolean
ts_ops_loss_job (TsOpJob  *job,
                 GError  **error)
{
  TsView v[TS_OP_JOB_N_VIEWS];
  TsView total_weight;
  TsOpJobArgs args;
  TsNllLoss p;
  TsIndexFailure failure = { -1, 0 };
  GError *local = NULL;
  gboolean has_weight;

  ts_op_job_unpack (job, v, &args);
  ts_op_job_view (job, 4, &total_weight);
  loss_params (job, &p);
  has_weight = v[3].data != NULL;
  /* forward: out, self, target, weight, total_weight; backward:
   * grad_input, grad_output, target, weight, total_weight */
  if (ts_op_job_desc (job)->kernel == TS_LOSS_NLL_BACKWARD)
    return ts_cpu_nll_loss_backward (&p, &v[1], &v[2], has_weight ? &v[3] : NULL, &total_weight, &v[0], error);
  if (ts_cpu_nll_loss (&p, &v[1], &v[2], has_weight ? &v[3] : NULL, &v[0], &total_weight, &failure, &local))
    return TRUE;
  if (failure.position >= 0 && error == NULL)
    {
      /* a device job: the kernel's assert, which poisons the context */
      ts_device_assert_nll_loss (failure.position);
      ts_op_job_fault_assert (job);
    }
  else if (failure.position >= 0)
    g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_INDEX, local->message);
  else
    g_propagate_error (error, g_steal_pointer (&local));
  g_clear_error (&local);
  return FALSE;
}

int
ts_ops_loss_device (TsOpJob              *job,
                    const TsCudaKernels  *k,
                    gpointer              stream)
{
  TsCudaView out, in, target, weight, total_weight;
  gboolean has_weight = ts_op_job_cuda_view (job, 3, &weight);
  TsNllLoss p;
  TsCudaNllLoss cp;

  loss_params (job, &p);
  cp = (TsCudaNllLoss) { .n = p.n, .c = p.c, .s = p.s, .ignore_index = p.ignore_index,
                         .reduction = (int32_t) p.reduction };
  /* forward: out, self, target, weight, total_weight; backward:
   * grad_input, grad_output, target, weight, total_weight */
  if (!ts_op_job_cuda_view (job, 0, &out) || !ts_op_job_cuda_view (job, 1, &in) ||
      !ts_op_job_cuda_view (job, 2, &target) || !ts_op_job_cuda_view (job, 4, &total_weight))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  if (ts_op_job_desc (job)->kernel == TS_LOSS_NLL_BACKWARD)
    return k->nll_loss_backward (&cp, &out, &in, &target, has_weight ? &weight : NULL, &total_weight, stream);
  return k->nll_loss (&cp, &out, &total_weight, &in, &target, has_weight ? &weight : NULL, stream);
}

static gboolean
loss_launch (TsOpId            id,
             const TsNllLoss  *p,
             TsTensor         *out,
             TsTensor         *in,
             TsTensor         *target,
             TsTensor         *weight,
             TsTensor         *total_weight,
             TsDevice          device,
             GError          **error)
{
  TsOpJob *job = ts_op_job_new (id);
  gboolean backward = ts_op_get (id)->kernel == TS_LOSS_NLL_BACKWARD;
  double n = (double) (p->n * p->s);
  TsKernelCost cost;

  ts_op_job_set_params (job, p, sizeof *p);
  ts_op_job_set (job, 0, out);
  ts_op_job_set (job, 1, in);
  ts_op_job_set (job, 2, target);
  if (weight != NULL)
    ts_op_job_set (job, 3, weight);
  if (backward)
    ts_op_job_set (job, 4, total_weight);
  else
    ts_op_job_set_output (job, 4, total_weight);
  /* one value read per sample (and its target); the backward also writes
   * every gradient element */
  cost.flops = 2.0 * n;
  cost.bytes = n * (double) (ts_dtype_size (in->dtype) + sizeof (gint64));
  if (backward)
    cost.bytes += (double) ts_tensor_numel (out) * (double) ts_dtype_size (out->dtype);
  return ts_op_job_dispatch (job, device, cost, error);
}

static gboolean
check_kernel_dtype (TsTensor    *self,
                    TsDevice     device,
                    const char  *kernel,
                    GError     **error)
{
  /* PyTorch 1.13's CPU kernels take float32, float64 and bfloat16; its
   * CUDA kernels float16 too */
  if (self->dtype == TS_DTYPE_FLOAT32 || self->dtype == TS_DTYPE_FLOAT64 || self->dtype == TS_DTYPE_BFLOAT16 ||
      (self->dtype == TS_DTYPE_FLOAT16 && device.type != TS_DEVICE_CPU))
    return TRUE;
  return ts_ops_fail (error, "\"%s\" not implemented for '%s'", kernel, ts_dtype_scalar_type_name (self->dtype));
}

/* nll_loss_forward's meta checks (1-d and 2-d inputs) */
static gboolean
check_nll_loss (TsTensor  *self,
                TsTensor  *target,
                TsTensor  *weight,
                GError   **error)
{
  gint64 n_classes;

  if (self->ndim < 1 || self->ndim > 2)
    return ts_ops_fail (error, "input tensor should be 1D or 2D");
  if (target->ndim > 1)
    return ts_ops_fail (error, "0D or 1D target tensor expected, multi-target not supported");
  if (!(self->ndim == 1 && target->ndim == 0) && (target->ndim == 0 || self->shape[0] != target->shape[0]))
    {
      g_autofree char *is = ts_shape_to_string (self->ndim, self->shape);
      g_autofree char *ts = ts_shape_to_string (target->ndim, target->shape);

      return ts_ops_fail (error, "size mismatch (got input: %s, target: %s)", is, ts);
    }
  n_classes = self->shape[self->ndim - 1];
  if (weight != NULL && (weight->ndim != 1 || ts_tensor_numel (weight) != n_classes))
    {
      g_autofree char *ws = ts_shape_to_string (weight->ndim, weight->shape);

      return ts_ops_fail (error, "weight tensor should be defined either for all %" G_GINT64_FORMAT
                   " classes or no classes but got weight tensor of shape: %s", n_classes, ws);
    }
  return TRUE;
}

/* check_inputs_nll_loss2d */
static gboolean
check_nll_loss2d (TsTensor  *self,
                  TsTensor  *target,
                  TsTensor  *weight,
                  GError   **error)
{
  if (target->ndim != 3)
    return ts_ops_fail (error, "only batches of spatial targets supported (3D tensors) but got targets of dimension: %u",
                 target->ndim);
  if (self->ndim != 4)
    return ts_ops_fail (error, "only batches of spatial inputs supported (4D tensors), but got input of dimension: %u",
                 self->ndim);
  if (weight != NULL && ts_tensor_numel (weight) != self->shape[1])
    return ts_ops_fail (error, "weight tensor should be defined either for all or no classes");
  if (self->shape[0] != target->shape[0] || self->shape[2] != target->shape[1] || self->shape[3] != target->shape[2])
    {
      g_autofree char *is = ts_shape_to_string (self->ndim, self->shape);
      g_autofree char *ts = ts_shape_to_string (target->ndim, target->shape);

      /* sic: PyTorch's message has no closing parenthesis */
      return ts_ops_fail (error, "size mismatch (got input: %s , target: %s", is, ts);
    }
  return TRUE;
}

/* The common part of both directions: the device, the dtypes and the
 * kernel's view of the shapes */
static gboolean
check_common (TsTensor     *self,
              TsTensor     *target,
              TsTensor     *weight,
              TsDevice     *device,
              TsNllLoss    *p,
              GError      **error)
{
  TsTensor *operands[3] = { self, target, weight };
  gboolean spatial = self->ndim == 4;

  if (!ts_ops_common_device (operands, weight != NULL ? 3 : 2, device, error) ||
      !(spatial ? check_nll_loss2d (self, target, weight, error) : check_nll_loss (self, target, weight, error)) ||
      !check_kernel_dtype (self, *device, spatial ? "nll_loss2d_forward_out_frame" : "nll_loss_out_frame", error))
    return FALSE;
  if (target->dtype != TS_DTYPE_INT64)
    return ts_ops_fail (error, "expected scalar type Long but found %s", ts_dtype_scalar_type_name (target->dtype));
  if (weight != NULL && weight->dtype != self->dtype)
    return ts_ops_fail (error, "expected scalar type %s but found %s", ts_dtype_scalar_type_name (self->dtype),
                 ts_dtype_scalar_type_name (weight->dtype));
  p->n = self->ndim == 1 ? 1 : self->shape[0];
  p->c = self->shape[self->ndim == 1 ? 0 : 1];
  p->s = spatial ? self->shape[2] * self->shape[3] : 1;
  return TRUE;
}

static void
record_forward (TsTensor     *self,
                TsTensor     *target,
                TsTensor     *weight,
                const TsNllLoss *p,
                TsTensor     *output,
                TsTensor     *total_weight,
                const TsOpDesc *desc)
{
  g_autoptr(TsGradNode) node = NULL;
  TsNllLossAttrs *attrs;

  /* the target and total_weight are not differentiable, and PyTorch 1.13
   * has no formula for the weight: the node's one edge is self's */
  node = ts_autograd_record (desc->grad_names[0], desc->backward, sizeof (TsNllLossAttrs), &self, 1, &output, 1);
  if (node == NULL)
    return;
  attrs = ts_grad_node_get_attrs (node);
  attrs->reduction = p->reduction;
  attrs->ignore_index = p->ignore_index;
  attrs->self_slot = (int) ts_grad_node_save (node, self);
  attrs->target_slot = (int) ts_grad_node_save (node, target);
  attrs->weight_slot = weight != NULL ? (int) ts_grad_node_save (node, weight) : -1;
  attrs->total_weight_slot = (int) ts_grad_node_save (node, total_weight);
}

gboolean
ts_ops_nll_loss (TsTensor     *self,
                 TsTensor     *target,
                 TsTensor     *weight,
                 TsReduction   reduction,
                 gint64        ignore_index,
                 TsTensor    **output,
                 TsTensor    **total_weight,
                 GError      **error)
{
  const TsOpDesc *desc = ts_op_get (self->ndim == 4 ? TS_OP_NLL_LOSS2D_FORWARD : TS_OP_NLL_LOSS_FORWARD);
  TsNllLoss p = { .reduction = reduction, .ignore_index = ignore_index };
  TsDevice device;
  g_autoptr(TsTensor) x = NULL;
  g_autoptr(TsTensor) t = NULL;
  g_autoptr(TsTensor) w = NULL;
  g_autoptr(TsTensor) out = NULL;
  g_autoptr(TsTensor) tw = NULL;
  gint64 out_shape[3];
  guint out_ndim = 0;

  if (!check_common (self, target, weight, &device, &p, error))
    return FALSE;
  /* reduction none: one loss per target, of the target's shape */
  if (reduction == TS_REDUCTION_NONE)
    {
      out_ndim = target->ndim;
      memcpy (out_shape, target->shape, target->ndim * sizeof (gint64));
    }
  if ((x = ts_ops_dense (self, error)) == NULL || (t = ts_ops_dense (target, error)) == NULL ||
      (weight != NULL && (w = ts_ops_dense (weight, error)) == NULL) ||
      (out = ts_tensor_new_empty (device, self->dtype, out_ndim, out_shape, FALSE, error)) == NULL ||
      (tw = ts_tensor_new_empty (device, self->dtype, 0, NULL, FALSE, error)) == NULL ||
      !loss_launch (desc->id, &p, out, x, t, w, tw, device, error))
    return FALSE;
  record_forward (self, target, weight, &p, out, tw, desc);
  *output = g_steal_pointer (&out);
  *total_weight = g_steal_pointer (&tw);
  return TRUE;
}

TsTensor *
ts_ops_nll_loss_backward (TsTensor     *grad_output,
                          TsTensor     *self,
                          TsTensor     *target,
                          TsTensor     *weight,
                          TsReduction   reduction,
                          gint64        ignore_index,
                          TsTensor     *total_weight,
                          GError      **error)
{
  const TsOpDesc *desc = ts_op_get (self->ndim == 4 ? TS_OP_NLL_LOSS2D_BACKWARD : TS_OP_NLL_LOSS_BACKWARD);
  TsNllLoss p = { .reduction = reduction, .ignore_index = ignore_index };
  TsDevice device;
  g_autoptr(TsTensor) g = NULL;
  g_autoptr(TsTensor) t = NULL;
  g_autoptr(TsTensor) w = NULL;
  g_autoptr(TsTensor) gi = NULL;
  g_autoptr(TsGradNode) node = NULL;
  TsTensor *inputs[2] = { grad_output, self };

  if (!check_common (self, target, weight, &device, &p, error))
    return NULL;
  if ((g = ts_ops_dense (grad_output, error)) == NULL || (t = ts_ops_dense (target, error)) == NULL ||
      (weight != NULL && (w = ts_ops_dense (weight, error)) == NULL) ||
      (gi = ts_tensor_new_empty (device, self->dtype, self->ndim, self->shape, FALSE, error)) == NULL ||
      !loss_launch (desc->id, &p, gi, g, t, w, total_weight, device, error))
    return NULL;
  /* derivatives.yaml: grad_output's gradient is nll_loss of the incoming
   * gradient, self's zeros (left undefined here) */
  node = ts_autograd_record (desc->grad_names[0], desc->backward, sizeof (TsNllLossAttrs), inputs, 2, &gi, 1);
  if (node != NULL)
    {
      TsNllLossAttrs *attrs = ts_grad_node_get_attrs (node);

      attrs->reduction = reduction;
      attrs->ignore_index = ignore_index;
      attrs->self_slot = -1;
      attrs->target_slot = (int) ts_grad_node_save (node, target);
      attrs->weight_slot = weight != NULL ? (int) ts_grad_node_save (node, weight) : -1;
      attrs->total_weight_slot = -1;
    }
  return g_steal_pointer (&gi);
}
