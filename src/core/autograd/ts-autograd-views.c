/* ts-autograd-views.c: in-place ops on views (CopySlices)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PyTorch's rebase_history for views: a view taken with grad mode on
 * knows its base. When an in-place op writes the view (x[1:3] = w * 2,
 * out[:, 0] = ..., h[0].mul_(3)), the op's node fn would only give the
 * view a new history; the base, whose elements changed, must get one too.
 * So the base's grad_fn becomes CopySlices: its gradient for the base is
 * the incoming one with the view's part replaced by what fn gives for the
 * view's old value, and its other inputs are fn's. The view's grad_fn
 * becomes AsStridedBackward0 of the base (PyTorch 1.13 without view
 * replay). The geometry is the view's strides and offset in the base's
 * storage, which a contiguous gradient of the base's shape shares when
 * the base is contiguous; a non-contiguous base fails in backward with a
 * not-modeled error.
 */

#include "config.h"

#include "ts-autograd-formulas-private.h"
#include "ts-autograd-private.h"

typedef struct
{
  TsGradNode *fn;                  /* CopySlices: the in-place op's node */
  gboolean    base_contiguous;
  guint       ndim;                /* the view, in the base's storage */
  gint64      shape[TS_MAX_DIMS];
  gint64      strides[TS_MAX_DIMS];
  gint64      offset;              /* from the base's first element */
} ViewGeometry;

void
ts_autograd_set_view_base (TsTensor *view,
                           TsTensor *self)
{
  TsTensor *base = ts_autograd_get_view_base (self);
  TsAutogradMeta *meta = ts_autograd_ensure_meta (view);

  g_clear_pointer (&meta->base, ts_tensor_unref);
  meta->base = ts_tensor_ref (base != NULL ? base : self);
  meta->view_no_grad = !ts_autograd_is_grad_enabled ();
}

gboolean
ts_autograd_check_view_mode (const TsTensor  *tensor,
                             GError         **error)
{
  const TsAutogradMeta *meta = tensor->autograd_meta;

  if (!ts_autograd_is_grad_enabled () || meta == NULL || meta->base == NULL || !meta->view_no_grad ||
      !(ts_autograd_requires_grad (tensor) || ts_autograd_requires_grad (meta->base)))
    return TRUE;
  g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "A view was created in no_grad mode and is being modified inplace with grad mode "
                       "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You "
                       "can clarify your code by moving both the view and the inplace either both inside the "
                       "no_grad block (if you don't want the inplace to be tracked) or both outside (if you want "
                       "the inplace to be tracked).");
  return FALSE;
}

TsTensor *
ts_autograd_get_view_base (const TsTensor *tensor)
{
  return tensor->autograd_meta != NULL ? tensor->autograd_meta->base : NULL;
}

static gboolean
double_backward_refused (TsGradNode  *node,
                         GError     **error)
{
  if (!ts_autograd_is_grad_enabled ())
    return FALSE;
  g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_NOT_IMPLEMENTED,
               "%s: double backward (create_graph=True) is not modeled", ts_grad_node_get_name (node));
  return TRUE;
}

/* A tensor of the base's shape holding @grad (NULL: zeros), and the view's
 * part of it */
static TsTensor *
base_sized (TsGradNode          *node,
            const ViewGeometry  *g,
            TsTensor            *grad,
            TsDType              dtype,
            TsTensor           **part,
            GError             **error)
{
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);
  TsScalar zero = { TS_DTYPE_INT64, 0, 0 };
  g_autoptr(TsTensor) result = NULL;

  if (!g->base_contiguous)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_NOT_IMPLEMENTED,
                   "%s: an in-place write into a view of a non-contiguous tensor is not modeled by "
                   "Tensorscope yet", ts_grad_node_get_name (node));
      return NULL;
    }
  result = ts_tensor_new_empty (info->device, dtype, info->ndim, info->shape, FALSE, error);
  if (result == NULL || !(grad != NULL ? ts_ops_copy (result, grad, FALSE, error) : ts_ops_fill (result, &zero, error)))
    return NULL;
  *part = ts_tensor_new_view (result->storage, result->dtype, g->ndim, g->shape, g->strides,
                              result->offset + g->offset);
  return g_steal_pointer (&result);
}

/* CopySlices: base: grad with the view's part replaced by fn's gradient
 * for the view; the other inputs: fn's gradients */
static TS_BACKWARD_FN (copy_slices_backward)
{
  const ViewGeometry *g = ts_grad_node_get_attrs (node);
  TsBackwardFn fn_backward = ts_grad_node_get_backward (g->fn);
  g_autoptr(TsTensor) part = NULL;
  g_autoptr(TsTensor) result = NULL;
  g_autoptr(TsTensor) part_grad = NULL;
  g_autofree TsTensor **res = g_new0 (TsTensor *, n_inputs);
  gboolean ok = FALSE;

  if (double_backward_refused (node, error))
    return FALSE;
  if (fn_backward == NULL)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_NOT_IMPLEMENTED,
                   "the derivative for '%s' is not implemented.", ts_grad_node_get_name (g->fn));
      return FALSE;
    }
  if ((result = base_sized (node, g, GRAD, GRAD->dtype, &part, error)) == NULL ||
      (part_grad = ts_ops_clone (part, error)) == NULL ||
      !fn_backward (g->fn, &part_grad, 1, res, n_inputs, error))
    goto out;
  if (ts_grad_node_needs_input_grad (node, 0))
    {
      TsScalar zero = { TS_DTYPE_INT64, 0, 0 };

      /* fn's gradient for the view's old value (none: it was overwritten) */
      if (!(res[0] != NULL ? ts_ops_copy (part, res[0], FALSE, error) : ts_ops_fill (part, &zero, error)))
        goto out;
      grad_inputs[0] = g_steal_pointer (&result);
    }
  for (guint i = 1; i < n_inputs; i++)
    if (ts_grad_node_needs_input_grad (node, i))
      grad_inputs[i] = g_steal_pointer (&res[i]);
  ok = TRUE;
out:
  for (guint i = 0; i < n_inputs; i++)
    g_clear_pointer (&res[i], ts_tensor_unref);
  return ok;
}

/* AsStridedBackward0: base: zeros with grad in the view's part */
static TS_BACKWARD_FN (as_strided_backward)
{
  g_autoptr(TsTensor) part = NULL;
  g_autoptr(TsTensor) result = NULL;

  if (double_backward_refused (node, error) ||
      (result = base_sized (node, ts_grad_node_get_attrs (node), NULL, GRAD->dtype, &part, error)) == NULL ||
      !ts_ops_copy (part, GRAD, FALSE, error))
    return FALSE;
  grad_inputs[0] = g_steal_pointer (&result);
  return TRUE;
}

static void
geometry_clear (gpointer data)
{
  ViewGeometry *g = data;

  g_clear_pointer (&g->fn, ts_grad_node_unref);
}

static void
geometry_release (gpointer data)
{
  ViewGeometry *g = data;

  if (g->fn != NULL)
    ts_grad_node_release_variables (g->fn);
}

static TsGradNode *
geometry_node (const char   *name,
               TsBackwardFn  backward,
               guint         n_inputs,
               TsTensor     *base,
               TsTensor     *view)
{
  TsGradNode *node = ts_grad_node_new (name, backward, n_inputs, 1, sizeof (ViewGeometry));
  ViewGeometry *g = ts_grad_node_get_attrs (node);

  g->base_contiguous = ts_tensor_is_contiguous (base);
  g->ndim = view->ndim;
  memcpy (g->shape, view->shape, sizeof g->shape);
  memcpy (g->strides, view->strides, sizeof g->strides);
  g->offset = view->offset - base->offset;
  ts_grad_node_set_input_info (node, 0, base);
  if (ts_autograd_requires_grad (base))
    node->next_edges[0] = ts_autograd_gradient_edge (base);
  return node;
}

void
ts_autograd_rebase_view (TsGradNode *fn,
                         TsTensor   *view)
{
  TsTensor *base = ts_autograd_get_view_base (view);
  g_autoptr(TsGradNode) copy_slices = NULL;
  g_autoptr(TsGradNode) as_strided = NULL;

  copy_slices = geometry_node ("torch::autograd::CopySlices", copy_slices_backward, fn->n_inputs, base, view);
  ((ViewGeometry *) copy_slices->attrs)->fn = ts_grad_node_ref (fn);
  ts_grad_node_set_attrs_funcs (copy_slices, geometry_clear, geometry_release);
  for (guint i = 1; i < fn->n_inputs; i++)
    {
      ts_grad_node_set_next_edge (copy_slices, i, fn->next_edges[i]);
      copy_slices->input_info[i] = fn->input_info[i];
    }
  ts_grad_node_set_output_info (copy_slices, 0, base);
  ts_autograd_set_grad_fn (base, copy_slices, 0);

  as_strided = geometry_node ("AsStridedBackward0", as_strided_backward, 1, base, view);
  ts_grad_node_set_output_info (as_strided, 0, view);
  ts_autograd_set_grad_fn (view, as_strided, 0);
}
