/* ts-autograd-formulas-join.c: the formulas of cat, stack, bmm, mv and dot
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PyTorch's derivatives.yaml: cat_tensors_backward, stack_tensors_backward
 * and bmm's. The views they take go through ts_autograd_view_op, so a
 * create_graph pass records them (SliceBackward0, SelectBackward0).
 */

#include "config.h"

#include "ts-autograd-formulas-private.h"
#include "ts-ops.h"

/* cat: tensors: each input's slice of grad along dim; a legacy empty
 * input (1-D, size 0) gets zeros({0}) */
TS_BACKWARD_FN (ts_backward_cat)
{
  int dim = ATTRS->dims[0];
  gint64 start = 0;

  for (guint i = 0; i < n_inputs; i++)
    {
      const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, i);
      gboolean legacy_empty = info->ndim == 1 && info->shape[0] == 0;
      gint64 size = legacy_empty ? 0 : info->shape[dim];
      TsViewArgs slice = { .kind = TS_VIEW_SLICE, .dim0 = dim, .start = start, .stop = start + size,
                           .step = 1 };

      start += size;
      if (!ts_grad_node_needs_input_grad (node, i))
        continue;
      if (legacy_empty)
        {
          gint64 zero = 0;

          grad_inputs[i] = ts_tensor_new_empty (info->device, GRAD->dtype, 1, &zero, FALSE, error);
        }
      else
        grad_inputs[i] = ts_autograd_view_op (GRAD, &slice, error);
      if (grad_inputs[i] == NULL)
        return FALSE;
    }
  return TRUE;
}

/* stack: tensors: grad.select(dim, i) for input i */
TS_BACKWARD_FN (ts_backward_stack)
{
  for (guint i = 0; i < n_inputs; i++)
    if (ts_grad_node_needs_input_grad (node, i))
      {
        TsViewArgs select = { .kind = TS_VIEW_SELECT, .dim0 = ATTRS->dims[0], .start = i };

        if ((grad_inputs[i] = ts_autograd_view_op (GRAD, &select, error)) == NULL)
          return FALSE;
      }
  return TRUE;
}

/* @t with its last two dims swapped, differentiable */
static TsTensor *
transpose_last (TsTensor  *t,
                GError   **error)
{
  TsViewArgs args = { .kind = TS_VIEW_TRANSPOSE, .dim0 = (int) t->ndim - 2, .dim1 = (int) t->ndim - 1 };

  return ts_autograd_view_op (t, &args, error);
}

/* bmm: self: grad.bmm(mat2.transpose(1, 2)), mat2: self.transpose(1, 2).bmm(grad);
 * the batched matmul broadcasts its batch dims, which the engine sums
 * back down to each operand's shape */
TS_BACKWARD_FN (ts_backward_bmm)
{
  for (guint i = 0; i < 2; i++)
    if (ts_grad_node_needs_input_grad (node, i))
      {
        g_autoptr(TsTensor) other = ts_autograd_saved (node, i == 0 ? ATTRS->other_slot : ATTRS->self_slot,
                                                       error);
        g_autoptr(TsTensor) other_t = NULL;

        if (other == NULL || (other_t = transpose_last (other, error)) == NULL)
          return FALSE;
        grad_inputs[i] = i == 0 ? ts_ops_matmul (GRAD, other_t, error) : ts_ops_matmul (other_t, GRAD, error);
        if (grad_inputs[i] == NULL)
          return FALSE;
      }
  return TRUE;
}

/* mv: self: grad.ger(vec), vec: self.t().mv(grad);
 * dot: self: grad * tensor, tensor: grad * self */
static TS_BACKWARD_FN (mv_dot_backward)
{
  const Attrs *attrs = ATTRS;

  if (ts_grad_node_needs_input_grad (node, 0))
    {
      g_autoptr(TsTensor) vec = ts_autograd_saved (node, attrs->other_slot, error);
      TsViewArgs column = { .kind = TS_VIEW_UNSQUEEZE, .dim0 = 1 };
      g_autoptr(TsTensor) g = vec == NULL ? NULL
                              : GRAD->ndim == 0 ? ts_tensor_ref (GRAD) : ts_autograd_view_op (GRAD, &column, error);

      if (g == NULL || (grad_inputs[0] = ts_autograd_mul (g, vec, error)) == NULL)
        return FALSE;
    }
  if (ts_grad_node_needs_input_grad (node, 1))
    {
      g_autoptr(TsTensor) self = ts_autograd_saved (node, attrs->self_slot, error);
      g_autoptr(TsTensor) self_t = NULL;

      if (self == NULL)
        return FALSE;
      if (self->ndim == 1)
        grad_inputs[1] = ts_autograd_mul (GRAD, self, error);
      else if ((self_t = ts_autograd_t (self, error)) != NULL)
        grad_inputs[1] = ts_ops_matmul (self_t, GRAD, error);
      if (grad_inputs[1] == NULL)
        return FALSE;
    }
  return TRUE;
}

void
ts_autograd_record_mv_dot (TsTensor *a,
                           TsTensor *b,
                           TsTensor *out)
{
  TsTensor *inputs[2] = { a, b };
  TsGradNode *node = ts_autograd_record (a->ndim == 2 ? "MvBackward0" : "DotBackward0", mv_dot_backward,
                                         sizeof (Attrs), inputs, 2, &out, 1);
  Attrs *attrs;

  if (node == NULL)
    return;
  attrs = ts_grad_node_get_attrs (node);
  attrs->self_slot = ts_autograd_requires_grad (b) ? (int) ts_grad_node_save (node, a) : -1;
  attrs->other_slot = ts_autograd_requires_grad (a) ? (int) ts_grad_node_save (node, b) : -1;
  ts_grad_node_unref (node);
}
