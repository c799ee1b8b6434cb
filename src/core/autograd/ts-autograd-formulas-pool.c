/* ts-autograd-formulas-pool.c: the backward formulas of pooling and batch
 * norm (derivatives.yaml: max_pool2d_with_indices_backward,
 * avg_pool2d_backward, _adaptive_avg_pool2d_backward,
 * adaptive_max_pool2d_backward, native_batch_norm_backward) and of the
 * negative log-likelihood loss (nll_loss_forward, nll_loss_backward)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The nodes are recorded by ts-ops-pool.c with their own attributes
 * (TsPoolAttrs, TsNormAttrs). The backward ops record no graph: a double
 * backward through a pooling or a batch norm is not modeled yet.
 */

#include "config.h"

#include "ts-autograd-formulas.h"
#include "ts-ops.h"
#include "ts-ops-act.h"
#include "ts-ops-loss.h"
#include "ts-ops-norm.h"
#include "ts-ops-pool.h"

/* The backward ops record no graph: a create_graph pass through one fails
 * loudly rather than give a gradient without its own history. */
static gboolean
first_order_only (TsGradNode  *node,
                  GError     **error)
{
  if (!ts_autograd_is_grad_enabled ())
    return TRUE;
  g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_NOT_IMPLEMENTED,
               "a double backward (create_graph=True) through %s is not modeled by Tensorscope yet",
               ts_grad_node_get_name (node));
  return FALSE;
}

static const TsPoolKernel backward_kind[] = {
  [TS_POOL_MAX] = TS_POOL_MAX_BACKWARD,
  [TS_POOL_AVG] = TS_POOL_AVG_BACKWARD,
  [TS_POOL_ADAPTIVE_AVG] = TS_POOL_ADAPTIVE_AVG_BACKWARD,
  [TS_POOL_ADAPTIVE_MAX] = TS_POOL_ADAPTIVE_MAX_BACKWARD,
};

/* every pooling: the kernel of its backward op, through the windows or
 * the saved indices */
static gboolean
pool_backward (TsGradNode  *node,
               TsTensor   **grad_outputs,
               TsTensor   **grad_inputs,
               GError     **error)
{
  const TsPoolAttrs *attrs = ts_grad_node_get_attrs (node);
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);
  g_autoptr(TsTensor) indices = NULL;

  if (!ts_grad_node_needs_input_grad (node, 0))
    return TRUE;
  if (!first_order_only (node, error))
    return FALSE;
  if (attrs->indices_slot >= 0 &&
      (indices = ts_grad_node_unpack_saved (node, (guint) attrs->indices_slot, error)) == NULL)
    return FALSE;
  grad_inputs[0] = ts_ops_pool2d_backward (backward_kind[attrs->kind], grad_outputs[0], indices, &attrs->p,
                                           info->ndim, info->shape, error);
  return grad_inputs[0] != NULL;
}

TS_BACKWARD_FN (ts_backward_max_pool2d)
{
  return pool_backward (node, grad_outputs, grad_inputs, error);
}

TS_BACKWARD_FN (ts_backward_avg_pool2d)
{
  return pool_backward (node, grad_outputs, grad_inputs, error);
}

TS_BACKWARD_FN (ts_backward_adaptive_avg_pool2d)
{
  return pool_backward (node, grad_outputs, grad_inputs, error);
}

/* Gradients computed in float32 for float16/bfloat16 inputs, cast back */
static gboolean
in_input_dtypes (TsGradNode  *node,
                 TsTensor   **grad_inputs,
                 guint        n,
                 GError     **error)
{
  for (guint i = 0; i < n; i++)
    {
      const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, i);
      TsTensor *cast;

      if (grad_inputs[i] == NULL || grad_inputs[i]->dtype == info->dtype)
        continue;
      cast = ts_ops_to (grad_inputs[i], info->device, info->dtype, FALSE, FALSE, error);
      ts_tensor_unref (grad_inputs[i]);
      if ((grad_inputs[i] = cast) == NULL)
        return FALSE;
    }
  return TRUE;
}

/* native_batch_norm: input, weight, bias: native_batch_norm_backward;
 * native_group_norm: native_group_norm_backward */
TS_BACKWARD_FN (ts_backward_native_batch_norm)
{
  const TsNormAttrs *attrs = ts_grad_node_get_attrs (node);
  g_autoptr(TsTensor) input = ts_grad_node_unpack_saved (node, (guint) attrs->input_slot, error);
  g_autoptr(TsTensor) stats = input != NULL ? ts_grad_node_unpack_saved (node, (guint) attrs->stats_slot, error)
                                            : NULL;
  g_autoptr(TsTensor) weight = NULL;
  guint mask = 0;

  if (stats == NULL || !first_order_only (node, error))
    return FALSE;
  if (attrs->weight_slot >= 0 &&
      (weight = ts_grad_node_unpack_saved (node, (guint) attrs->weight_slot, error)) == NULL)
    return FALSE;
  for (guint i = 0; i < 3; i++)
    if (ts_grad_node_needs_input_grad (node, i))
      mask |= 1u << i;
  if (!ts_ops_norm_backward (grad_outputs[0], input, weight, stats, attrs->training, attrs->groups, mask,
                             grad_inputs, error))
    return FALSE;
  return in_input_dtypes (node, grad_inputs, 3, error);
}

TS_BACKWARD_FN (ts_backward_native_group_norm)
{
  return ts_backward_native_batch_norm (node, grad_outputs, n_outputs, grad_inputs, n_inputs, error);
}

/* constant_pad_nd: self: constant_pad_nd (grad, -pad); pixel_shuffle:
 * pixel_unshuffle (grad) and back; the others: their _backward ops (a
 * scatter-add through the same index map) */
TS_BACKWARD_FN (ts_backward_remap)
{
  const TsRemapAttrs *attrs = ts_grad_node_get_attrs (node);
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);

  if (!ts_grad_node_needs_input_grad (node, 0))
    return TRUE;
  if (attrs->mode == TS_REMAP_CONSTANT || attrs->mode == TS_REMAP_PIXEL_SHUFFLE)
    {
      TsRemap back = attrs->r;

      for (guint i = 0; i < back.k; i++)
        back.pads[i] = -back.pads[i];
      grad_inputs[0] = ts_ops_remap (attrs->mode, grad_outputs[0], &back, info->shape, 0, error);
    }
  else if (first_order_only (node, error))
    grad_inputs[0] = ts_ops_remap_backward (attrs->mode, grad_outputs[0], &attrs->r, info->ndim, info->shape,
                                            error);
  return grad_inputs[0] != NULL;
}

/* hardtanh, hardswish, ..., elu, celu: their _backward ops, from the
 * saved input */
TS_BACKWARD_FN (ts_backward_activation)
{
  const TsActAttrs *attrs = ts_grad_node_get_attrs (node);
  g_autoptr(TsTensor) self = NULL;

  if (!ts_grad_node_needs_input_grad (node, 0) &&
      (attrs->kind != TS_ACT_PRELU || !ts_grad_node_needs_input_grad (node, 1)))
    return TRUE;
  if (!first_order_only (node, error) ||
      (self = ts_grad_node_unpack_saved (node, (guint) attrs->input_slot, error)) == NULL)
    return FALSE;
  if (attrs->kind == TS_ACT_PRELU)
    {
      g_autoptr(TsTensor) weight = ts_grad_node_unpack_saved (node, (guint) attrs->weight_slot, error);
      guint mask = (ts_grad_node_needs_input_grad (node, 0) ? 1 : 0) |
                   (ts_grad_node_needs_input_grad (node, 1) ? 2 : 0);

      return weight != NULL && ts_ops_prelu_backward (grad_outputs[0], self, weight, mask, grad_inputs, error) &&
             in_input_dtypes (node, grad_inputs, 2, error);
    }
  grad_inputs[0] = ts_ops_activation_backward (attrs->kind, &attrs->a, grad_outputs[0], self, error);
  return grad_inputs[0] != NULL;
}

/* nll_loss_forward, nll_loss2d_forward: self's gradient is
 * nll_loss_backward of the saved self, target, weight and total_weight */
TS_BACKWARD_FN (ts_backward_nll_loss)
{
  const TsNllLossAttrs *attrs = ts_grad_node_get_attrs (node);
  g_autoptr(TsTensor) self = NULL;
  g_autoptr(TsTensor) target = NULL;
  g_autoptr(TsTensor) weight = NULL;
  g_autoptr(TsTensor) total_weight = NULL;

  if (!ts_grad_node_needs_input_grad (node, 0))
    return TRUE;
  if ((self = ts_grad_node_unpack_saved (node, (guint) attrs->self_slot, error)) == NULL ||
      (target = ts_grad_node_unpack_saved (node, (guint) attrs->target_slot, error)) == NULL ||
      (attrs->weight_slot >= 0 &&
       (weight = ts_grad_node_unpack_saved (node, (guint) attrs->weight_slot, error)) == NULL) ||
      (total_weight = ts_grad_node_unpack_saved (node, (guint) attrs->total_weight_slot, error)) == NULL)
    return FALSE;
  grad_inputs[0] = ts_ops_nll_loss_backward (grad_outputs[0], self, target, weight, attrs->reduction,
                                             attrs->ignore_index, total_weight, error);
  return grad_inputs[0] != NULL;
}

/* nll_loss_backward: linear in grad_output, whose gradient is the forward
 * loss of the incoming gradient; self's is zeros (left undefined) */
TS_BACKWARD_FN (ts_backward_nll_loss_backward)
{
  const TsNllLossAttrs *attrs = ts_grad_node_get_attrs (node);
  g_autoptr(TsTensor) target = NULL;
  g_autoptr(TsTensor) weight = NULL;
  g_autoptr(TsTensor) total_weight = NULL;

  if (!ts_grad_node_needs_input_grad (node, 0))
    return TRUE;
  if ((target = ts_grad_node_unpack_saved (node, (guint) attrs->target_slot, error)) == NULL ||
      (attrs->weight_slot >= 0 &&
       (weight = ts_grad_node_unpack_saved (node, (guint) attrs->weight_slot, error)) == NULL))
    return FALSE;
  return ts_ops_nll_loss (grad_outputs[0], target, weight, attrs->reduction, attrs->ignore_index, &grad_inputs[0],
                          &total_weight, error);
}
