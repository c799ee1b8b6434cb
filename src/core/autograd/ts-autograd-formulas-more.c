/* ts-autograd-formulas-more.c: the formulas of the ops of issue #14
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * As ts-autograd-formulas.c: PyTorch's derivatives.yaml, written with the
 * differentiable ops so that create_graph records them too.
 */

#include "config.h"

#include "ts-autograd-formulas.h"
#include "ts-autograd-formulas-private.h"
#include "ts-autograd-private.h"
#include "ts-ops.h"

#define GRAD_OUT (grad_outputs[0])

/* A 0-dim zero of @like's dtype and device: where's other branch. */
static TsTensor *
zero_like (TsTensor  *like,
           GError   **error)
{
  TsScalar zero = { TS_DTYPE_FLOAT64, 0, 0 };

  return ts_autograd_new_full (ts_tensor_get_device (like), like->dtype, 0, NULL, &zero, error);
}

/* where: self: where (condition, grad, 0); other: where (condition, 0,
 * grad). The engine sums each down to its input's shape. */
TS_BACKWARD_FN (ts_backward_where)
{
  const TsOpGradAttrs *attrs = ts_grad_node_get_attrs (node);
  g_autoptr(TsTensor) condition = NULL;
  g_autoptr(TsTensor) zero = NULL;

  if (attrs->extra_slot < 0 ||
      (condition = ts_grad_node_unpack_saved (node, (guint) attrs->extra_slot, error)) == NULL ||
      (zero = zero_like (grad_outputs[0], error)) == NULL)
    return FALSE;
  for (guint i = 0; i < 2 && i < n_inputs; i++)
    if (ts_grad_node_needs_input_grad (node, i))
      {
        grad_inputs[i] = i == 0 ? ts_ops_where (condition, grad_outputs[0], zero, error)
                                : ts_ops_where (condition, zero, grad_outputs[0], error);
        if (grad_inputs[i] == NULL)
          return FALSE;
      }
  return TRUE;
}

/* lerp: self: grad * (1 - weight); end: grad * weight; weight (a tensor):
 * grad * (end - self) */
TS_BACKWARD_FN (ts_backward_lerp)
{
  const TsOpGradAttrs *attrs = ts_grad_node_get_attrs (node);
  TsScalar one = { TS_DTYPE_FLOAT64, 1, 1 };
  g_autoptr(TsTensor) weight = NULL;
  g_autoptr(TsTensor) one_minus = NULL;

  if (!attrs->has_scalar &&
      ((weight = ts_autograd_saved (node, attrs->extra_slot, error)) == NULL ||
       (one_minus = ts_ops_binary (TS_BINARY_SUB, weight, NULL, &one, TRUE, NULL, error)) == NULL))
    return FALSE;
  if (ts_grad_node_needs_input_grad (node, 0) &&
      (grad_inputs[0] = weight ? ts_autograd_mul (GRAD, one_minus, error)
                               : ts_autograd_binary_scalar (TS_BINARY_MUL, GRAD, 1.0 - attrs->scalar, FALSE,
                                                            error)) == NULL)
    return FALSE;
  if (ts_grad_node_needs_input_grad (node, 1) &&
      (grad_inputs[1] = weight ? ts_autograd_mul (GRAD, weight, error)
                               : ts_autograd_binary_scalar (TS_BINARY_MUL, GRAD, attrs->scalar, FALSE, error)) == NULL)
    return FALSE;
  if (weight != NULL && n_inputs > 2 && ts_grad_node_needs_input_grad (node, 2))
    {
      g_autoptr(TsTensor) self = ts_autograd_saved (node, attrs->self_slot, error);
      g_autoptr(TsTensor) end = self ? ts_autograd_saved (node, attrs->other_slot, error) : NULL;
      g_autoptr(TsTensor) diff = end ? ts_ops_binary (TS_BINARY_SUB, end, self, NULL, FALSE, NULL, error) : NULL;

      if (diff == NULL || (grad_inputs[2] = ts_autograd_mul (GRAD, diff, error)) == NULL)
        return FALSE;
    }
  return TRUE;
}

/* addcmul: self: grad; tensor1: grad * (tensor2 * value); tensor2:
 * grad * (tensor1 * value) */
TS_BACKWARD_FN (ts_backward_addcmul)
{
  const TsOpGradAttrs *attrs = ts_grad_node_get_attrs (node);

  if (ts_grad_node_needs_input_grad (node, 0))
    grad_inputs[0] = ts_tensor_ref (GRAD);
  for (guint i = 1; i < 3 && i < n_inputs; i++)
    if (ts_grad_node_needs_input_grad (node, i))
      {
        g_autoptr(TsTensor) other = ts_autograd_saved (node, i == 1 ? attrs->extra_slot : attrs->other_slot, error);
        g_autoptr(TsTensor) scaled =
          other ? ts_autograd_binary_scalar (TS_BINARY_MUL, other, attrs->scalar, FALSE, error) : NULL;

        if (scaled == NULL || (grad_inputs[i] = ts_autograd_mul (GRAD, scaled, error)) == NULL)
          return FALSE;
      }
  return TRUE;
}

/* addcdiv: self: grad; tensor1: grad * (value / tensor2); tensor2:
 * -grad * value * tensor1 / (tensor2 * tensor2) */
TS_BACKWARD_FN (ts_backward_addcdiv)
{
  const TsOpGradAttrs *attrs = ts_grad_node_get_attrs (node);
  TsScalar value = { TS_DTYPE_FLOAT64, attrs->scalar, (gint64) attrs->scalar };
  g_autoptr(TsTensor) t1 = NULL;
  g_autoptr(TsTensor) t2 = NULL;
  g_autoptr(TsTensor) v_over_t2 = NULL;

  if (ts_grad_node_needs_input_grad (node, 0))
    grad_inputs[0] = ts_tensor_ref (GRAD);
  if ((t2 = ts_autograd_saved (node, attrs->extra_slot, error)) == NULL ||
      (v_over_t2 = ts_ops_binary (TS_BINARY_DIV, t2, NULL, &value, TRUE, NULL, error)) == NULL)
    return FALSE;
  if (ts_grad_node_needs_input_grad (node, 1) && (grad_inputs[1] = ts_autograd_mul (GRAD, v_over_t2, error)) == NULL)
    return FALSE;
  if (n_inputs > 2 && ts_grad_node_needs_input_grad (node, 2))
    {
      g_autoptr(TsTensor) q = NULL;
      g_autoptr(TsTensor) g = NULL;
      g_autoptr(TsTensor) neg = NULL;

      /* -grad * (value * tensor1 / tensor2) / tensor2 */
      if ((t1 = ts_autograd_saved (node, attrs->other_slot, error)) == NULL ||
          (q = ts_autograd_mul (t1, v_over_t2, error)) == NULL ||
          (g = ts_autograd_mul (GRAD, q, error)) == NULL ||
          (neg = ts_ops_unary (TS_UNARY_NEG, g, error)) == NULL ||
          (grad_inputs[2] = ts_ops_binary (TS_BINARY_DIV, neg, t2, NULL, FALSE, NULL, error)) == NULL)
        return FALSE;
    }
  return TRUE;
}

/* A recorded unsqueeze (its node too, for create_graph). */
static TsTensor *
unsqueeze (TsTensor  *a,
           int        dim,
           GError   **error)
{
  TsViewArgs args = { .kind = TS_VIEW_UNSQUEEZE, .dim0 = dim };

  return ts_autograd_view_op (a, &args, error);
}

/* mv: self: grad.ger (vec), as outer's reshape-and-multiply; vec:
 * self.t ().mv (grad) */
TS_BACKWARD_FN (ts_backward_mv)
{
  const TsOpGradAttrs *attrs = ts_grad_node_get_attrs (node);
  g_autoptr(TsTensor) self = ts_autograd_saved (node, attrs->self_slot, error);
  g_autoptr(TsTensor) vec = self ? ts_autograd_saved (node, attrs->other_slot, error) : NULL;

  if (vec == NULL)
    return FALSE;
  if (ts_grad_node_needs_input_grad (node, 0))
    {
      g_autoptr(TsTensor) col = unsqueeze (GRAD, 1, error);
      g_autoptr(TsTensor) row = col ? unsqueeze (vec, 0, error) : NULL;

      if (row == NULL || (grad_inputs[0] = ts_autograd_mul (col, row, error)) == NULL)
        return FALSE;
    }
  if (ts_grad_node_needs_input_grad (node, 1))
    {
      g_autoptr(TsTensor) self_t = ts_autograd_t (self, error);

      if (self_t == NULL || (grad_inputs[1] = ts_ops_mv (self_t, GRAD, error)) == NULL)
        return FALSE;
    }
  return TRUE;
}

/* grad * factor, or grad itself for a factor of 1 (maybe_multiply) */
static TsTensor *
maybe_multiply (TsTensor  *grad,
                double     factor,
                GError   **error)
{
  if (factor == 1)
    return ts_tensor_ref (grad);
  return ts_autograd_binary_scalar (TS_BINARY_MUL, grad, factor, FALSE, error);
}

/* addmm: self: maybe_multiply (grad, beta), which the engine sums down to
 * self's shape (a bias row: its sum over the batch); mat1 and mat2:
 * mm_mat1_backward and mm_mat2_backward times alpha */
TS_BACKWARD_FN (ts_backward_addmm)
{
  const TsOpGradAttrs *attrs = ts_grad_node_get_attrs (node);

  if (ts_grad_node_needs_input_grad (node, 0) &&
      (grad_inputs[0] = maybe_multiply (GRAD_OUT, attrs->scalar2, error)) == NULL)
    return FALSE;
  for (guint i = 1; i < 3; i++)
    if (ts_grad_node_needs_input_grad (node, i))
      {
        g_autoptr(TsTensor) other = ts_autograd_saved (node, i == 1 ? attrs->other_slot : attrs->self_slot, error);

        if (other == NULL ||
            (grad_inputs[i] = ts_autograd_mm_operand_grad (GRAD_OUT, other, i - 1,
                                                           (attrs->column_major >> (i - 1)) & 1,
                                                           attrs->scalar, error)) == NULL)
          return FALSE;
      }
  return TRUE;
}
