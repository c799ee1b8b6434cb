/* ts-autograd-formulas-index.c: the formulas of advanced indexing, the
 * scatter family and embedding
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every op here runs one of two kernels: the stacked-index kernel of
 * torch/_indexing.py (index, masked_select and take read self at an
 * (*B, k) index; index_put_, masked_scatter_ and put_ write values there)
 * or the scatter kernel along a dim (scatter_, scatter_add_, and
 * index_add_/index_copy_ with the index vector expanded to the source's
 * shape). So their gradients are the other kernel of the pair at the same
 * index, which the node saves (its extra slot) with the dim (dims[0]).
 * The views Python takes around them (masked_select's expand, take's
 * reshape, masked_scatter_'s slice of the source) record their own nodes,
 * which finish PyTorch's formulas (masked_scatter_backward's zero padding,
 * reshape_as).
 */

#include "config.h"

#include "ts-autograd-formulas-private.h"
#include "ts-autograd-private.h"
#include "ts-ops-sort.h"

static TsTensor *
zeros (TsDevice       device,
       TsDType        dtype,
       guint          ndim,
       const gint64  *shape,
       GError       **error)
{
  TsScalar zero = { TS_DTYPE_INT64, 0, 0 };

  return ts_autograd_new_full (device, dtype, ndim, shape, &zero, error);
}

static TsTensor *
zeros_like_input (TsGradNode  *node,
                  guint        i,
                  TsDType      dtype,
                  GError     **error)
{
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, i);

  return zeros (info->device, dtype, info->ndim, info->shape, error);
}

/* index, masked_select, take: self: zeros.index_put_(indices, grad,
 * accumulate=True) (index_backward) */
TS_BACKWARD_FN (ts_backward_index)
{
  g_autoptr(TsTensor) index = ts_autograd_saved (node, ATTRS->extra_slot, error);
  g_autoptr(TsTensor) z = index != NULL ? zeros_like_input (node, 0, GRAD->dtype, error) : NULL;

  if (z == NULL || !ts_ops_index_put_ (TS_OP_INDEX_PUT, z, (guint) ATTRS->dims[0], index, GRAD, TRUE, error))
    return FALSE;
  grad_inputs[0] = g_steal_pointer (&z);
  return TRUE;
}

/* index_put_, masked_scatter_, put_: self: accumulate ? grad :
 * grad.index_put(indices, zeros_like(values), false); values:
 * grad.index(indices) */
TS_BACKWARD_FN (ts_backward_index_put)
{
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);
  guint pos = (guint) ATTRS->dims[0];
  gboolean accumulate = ATTRS->scalar != 0;
  gint64 n = 1;
  g_autoptr(TsTensor) index = ts_autograd_saved (node, ATTRS->extra_slot, error);
  g_autoptr(TsTensor) grad = NULL;

  /* put_ indexed self flattened (keepdim) */
  for (guint d = 0; d < info->ndim; d++)
    n *= info->shape[d];
  if (index == NULL ||
      (grad = ATTRS->keepdim ? ts_autograd_reshape (GRAD, 1, &n, error) : ts_tensor_ref (GRAD)) == NULL)
    return FALSE;
  if (ts_grad_node_needs_input_grad (node, 0))
    {
      g_autoptr(TsTensor) kept = NULL;
      g_autoptr(TsTensor) z = NULL;

      if (accumulate)
        grad_inputs[0] = ts_tensor_ref (GRAD);
      else if ((kept = ts_ops_clone (grad, error)) == NULL ||
               (z = zeros_like_input (node, 1, GRAD->dtype, error)) == NULL ||
               !ts_ops_index_put_ (TS_OP_INDEX_PUT, kept, pos, index, z, FALSE, error) ||
               (grad_inputs[0] = ts_autograd_reshape (kept, info->ndim, info->shape, error)) == NULL)
        return FALSE;
    }
  if (ts_grad_node_needs_input_grad (node, 1) &&
      (grad_inputs[1] = ts_ops_index (TS_OP_INDEX, grad, pos, index, error)) == NULL)
    return FALSE;
  return TRUE;
}

/* src: grad.gather(dim, index), for the scatter family */
static gboolean
gather_src (TsGradNode  *node,
            TsTensor    *grad,
            TsTensor    *index,
            TsTensor   **grad_src,
            GError     **error)
{
  if (!ts_grad_node_needs_input_grad (node, 1))
    return TRUE;
  return (*grad_src = ts_ops_gather (grad, ATTRS->dims[0], index, error)) != NULL;
}

/* scatter_, index_copy_: self: grad.scatter(dim, index, 0) (the
 * overwritten positions no longer depend on self); src: gather */
TS_BACKWARD_FN (ts_backward_scatter)
{
  g_autoptr(TsTensor) index = ts_autograd_saved (node, ATTRS->extra_slot, error);

  if (index == NULL)
    return FALSE;
  if (ts_grad_node_needs_input_grad (node, 0))
    {
      g_autoptr(TsTensor) kept = ts_ops_clone (GRAD, error);
      g_autoptr(TsTensor) z = kept != NULL ? zeros (ts_tensor_get_device (index), GRAD->dtype, index->ndim,
                                                    index->shape, error) : NULL;

      if (z == NULL || !ts_ops_scatter_launch (TS_OP_SCATTER, kept, ATTRS->dims[0], index, z, error))
        return FALSE;
      grad_inputs[0] = g_steal_pointer (&kept);
    }
  return gather_src (node, GRAD, index, &grad_inputs[1], error);
}

/* scatter_add_, index_add_: self: grad; src: gather (index_add_'s alpha
 * is a multiplication Python records before) */
TS_BACKWARD_FN (ts_backward_scatter_add)
{
  g_autoptr(TsTensor) index = ts_autograd_saved (node, ATTRS->extra_slot, error);

  if (index == NULL)
    return FALSE;
  if (ts_grad_node_needs_input_grad (node, 0))
    grad_inputs[0] = ts_tensor_ref (GRAD);
  return gather_src (node, GRAD, index, &grad_inputs[1], error);
}

/* grad (n, D) divided by the count of each row's index among @idx
 * (scale_grad_by_freq) */
static TsTensor *
scale_by_freq (TsTensor  *grad,
               TsTensor  *idx,
               gint64     num_weights,
               GError   **error)
{
  gint64 n = idx->shape[0], column[2] = { n, 1 };
  TsScalar one = { TS_DTYPE_INT64, 1, 1 };
  g_autoptr(TsTensor) counts = zeros (ts_tensor_get_device (idx), grad->dtype, 1, &num_weights, error);
  g_autoptr(TsTensor) ones = counts != NULL ? ts_tensor_new_empty (ts_tensor_get_device (idx), grad->dtype, 1,
                                                                   &n, FALSE, error) : NULL;
  g_autoptr(TsTensor) per_row = NULL;
  g_autoptr(TsTensor) divisor = NULL;

  if (ones == NULL || !ts_ops_fill (ones, &one, error) ||
      !ts_ops_scatter_launch (TS_OP_INDEX_ADD, counts, 0, idx, ones, error) ||
      (per_row = ts_ops_index_select (counts, 0, idx, error)) == NULL ||
      (divisor = ts_tensor_view (per_row, 2, column, error)) == NULL)
    return NULL;
  return ts_autograd_div (grad, divisor, error);
}

/* embedding: weight: embedding_backward(grad, indices, num_weights,
 * padding_idx, scale_grad_by_freq): grad's rows index_added into zeros
 * of weight's shape, the padding row's left out */
TS_BACKWARD_FN (ts_backward_embedding)
{
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);
  gint64 padding_idx = (gint64) ATTRS->scalar;
  g_autoptr(TsTensor) flat = ts_autograd_saved (node, ATTRS->extra_slot, error);
  g_autoptr(TsTensor) idx = NULL;
  g_autoptr(TsTensor) rows = NULL;
  g_autoptr(TsTensor) scaled = NULL;
  g_autoptr(TsTensor) expanded = NULL;
  g_autoptr(TsTensor) column = NULL;
  g_autoptr(TsTensor) result = NULL;
  gint64 n, shape[2];

  if (flat == NULL ||
      (idx = ts_ops_to (flat, ts_tensor_get_device (flat), TS_DTYPE_INT64, FALSE, FALSE, error)) == NULL)
    return FALSE;
  n = idx->shape[0];
  shape[0] = n;
  shape[1] = info->shape[1];
  if ((rows = ts_autograd_reshape (GRAD, 2, shape, error)) == NULL)
    return FALSE;
  if (padding_idx >= 0)
    {
      g_autoptr(TsTensor) keep = ts_autograd_binary_scalar (TS_BINARY_NE, idx, (double) padding_idx, FALSE,
                                                            error);
      g_autoptr(TsTensor) keep_column = NULL;
      g_autoptr(TsTensor) all_rows = g_steal_pointer (&rows);
      gint64 kshape[2] = { n, 1 };

      if (keep == NULL || (keep_column = ts_tensor_view (keep, 2, kshape, error)) == NULL ||
          (rows = ts_autograd_mul (all_rows, keep_column, error)) == NULL)
        return FALSE;
    }
  scaled = ATTRS->keepdim ? scale_by_freq (rows, idx, info->shape[0], error) : ts_tensor_ref (rows);
  if (scaled == NULL)
    return FALSE;
  if ((column = ts_tensor_view (idx, 2, (gint64[2]) { n, 1 }, error)) == NULL ||
      (expanded = ts_tensor_expand (column, 2, shape, error)) == NULL ||
      (result = zeros (info->device, GRAD->dtype, info->ndim, info->shape, error)) == NULL ||
      !ts_ops_scatter_launch (TS_OP_INDEX_ADD, result, 0, expanded, scaled, error))
    return FALSE;
  grad_inputs[0] = g_steal_pointer (&result);
  return TRUE;
}
