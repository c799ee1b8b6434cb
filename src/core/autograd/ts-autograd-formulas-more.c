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
#include "ts-ops.h"

/* A 0-dim zero of @like's dtype and device: where's other branch. */
static TsTensor *
zero_like (TsTensor  *like,
           GError   **error)
{
  TsScalar zero = { TS_DTYPE_FLOAT64, 0, 0 };
  g_autoptr(TsTensor) z = ts_tensor_new_empty (ts_tensor_get_device (like), like->dtype, 0, NULL, FALSE, error);

  if (z == NULL || !ts_ops_fill (z, &zero, error))
    return NULL;
  return g_steal_pointer (&z);
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
