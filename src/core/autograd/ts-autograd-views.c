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

/* A tensor of the base's shape (@info) holding @grad (NULL: zeros), and
 * the view's part of it; made without a graph */
static TsTensor *
base_sized (const char              *name,
            const ViewGeometry      *g,
            const TsGradTensorInfo  *info,
            TsTensor                *grad,
            TsDType                  dtype,
            TsTensor               **part,
            GError                 **error)
{
  TsScalar zero = { TS_DTYPE_INT64, 0, 0 };
  g_autoptr(TsTensor) result = NULL;
  gboolean was;
  gboolean ok;

  if (!g->base_contiguous)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_NOT_IMPLEMENTED,
                   "%s: an in-place write into a view of a non-contiguous tensor is not modeled by "
                   "Tensorscope yet", name);
      return NULL;
    }
  result = ts_tensor_new_empty (info->device, dtype, info->ndim, info->shape, FALSE, error);
  if (result == NULL)
    return NULL;
  was = ts_autograd_set_grad_enabled (FALSE);
  ok = grad != NULL ? ts_ops_copy (result, grad, FALSE, error) : ts_ops_fill (result, &zero, error);
  ts_autograd_set_grad_enabled (was);
  if (!ok)
    return NULL;
  *part = ts_tensor_new_view (result->storage, result->dtype, g->ndim, g->shape, g->strides,
                              result->offset + g->offset);
  return g_steal_pointer (&result);
}

/* With create_graph, the two linear maps below record a node of their
 * own whose backward is the other one (each is the other's adjoint), so
 * that gradients through views and CopySlices can be differentiated again,
 * to any order. */
static void
record_linear (const char          *name,
               TsBackwardFn         backward,
               const ViewGeometry  *g,
               TsTensor            *input,
               TsTensor            *output)
{
  g_autoptr(TsGradNode) node = ts_autograd_record (name, backward, sizeof (ViewGeometry), &input, 1, &output, 1);
  ViewGeometry *attrs;

  if (node == NULL)
    return;
  attrs = ts_grad_node_get_attrs (node);
  *attrs = *g;
  attrs->fn = NULL;
}

static TS_BACKWARD_FN (as_strided_backward);

/* as_strided: a copy of the view's part of @whole, a tensor of the base's
 * shape */
static TsTensor *
take_part (const ViewGeometry  *g,
           TsTensor            *whole,
           GError             **error)
{
  gboolean was = ts_autograd_set_grad_enabled (FALSE);
  g_autoptr(TsTensor) dense = ts_ops_contiguous (whole, error);
  g_autoptr(TsTensor) view = NULL;
  g_autoptr(TsTensor) part = NULL;

  if (dense != NULL)
    {
      view = ts_tensor_new_view (dense->storage, dense->dtype, g->ndim, g->shape, g->strides,
                                 dense->offset + g->offset);
      part = ts_ops_clone (view, error);
    }
  ts_autograd_set_grad_enabled (was);
  if (part == NULL)
    return NULL;
  record_linear ("AsStridedBackward0", as_strided_backward, g, whole, part);
  return g_steal_pointer (&part);
}

static TS_BACKWARD_FN (take_part_backward)
{
  RETURN_GRAD (take_part (ts_grad_node_get_attrs (node), GRAD, error));
}

/* as_strided's adjoint: zeros of the base's shape with @part in the
 * view's place */
static TsTensor *
scatter_part (const ViewGeometry      *g,
              const TsGradTensorInfo  *info,
              TsTensor                *part,
              GError                 **error)
{
  g_autoptr(TsTensor) region = NULL;
  g_autoptr(TsTensor) result = base_sized ("AsStridedBackward0", g, info, NULL, part->dtype, &region, error);
  gboolean was;
  gboolean ok;

  if (result == NULL)
    return NULL;
  was = ts_autograd_set_grad_enabled (FALSE);
  ok = ts_ops_copy (region, part, FALSE, error);
  ts_autograd_set_grad_enabled (was);
  if (!ok)
    return NULL;
  record_linear ("AsStridedScatterBackward0", take_part_backward, g, part, result);
  return g_steal_pointer (&result);
}

/* AsStridedBackward0: base: zeros with grad in the view's part */
static TS_BACKWARD_FN (as_strided_backward)
{
  RETURN_GRAD (scatter_part (ts_grad_node_get_attrs (node), ts_grad_node_get_input_info (node, 0), GRAD, error));
}

/* CopySlices: base: grad with the view's part replaced by fn's gradient
 * for the view; the other inputs: fn's gradients. Without create_graph
 * in place in one base-sized copy; with it from the recorded maps above
 * (grad - scatter (take (grad)) + scatter (fn's gradient)) and fn's own
 * recorded formula. */
static TS_BACKWARD_FN (copy_slices_backward)
{
  const ViewGeometry *g = ts_grad_node_get_attrs (node);
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);
  TsBackwardFn fn_backward = ts_grad_node_get_backward (g->fn);
  gboolean graph = ts_autograd_is_grad_enabled ();
  g_autoptr(TsTensor) part = NULL;
  g_autoptr(TsTensor) result = NULL;
  g_autoptr(TsTensor) part_grad = NULL;
  g_autofree TsTensor **res = g_new0 (TsTensor *, n_inputs);
  gboolean ok = FALSE;

  if (fn_backward == NULL)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_NOT_IMPLEMENTED,
                   "the derivative for '%s' is not implemented.", ts_grad_node_get_name (g->fn));
      return FALSE;
    }
  if (graph)
    part_grad = take_part (g, GRAD, error);
  else if ((result = base_sized (ts_grad_node_get_name (node), g, info, GRAD, GRAD->dtype, &part, error)) != NULL)
    part_grad = ts_ops_clone (part, error);
  if (part_grad == NULL || !fn_backward (g->fn, &part_grad, 1, res, n_inputs, error))
    goto out;
  if (ts_grad_node_needs_input_grad (node, 0) && graph)
    {
      g_autoptr(TsTensor) own = scatter_part (g, info, part_grad, error);
      g_autoptr(TsTensor) rest = own != NULL ? ts_autograd_sub (GRAD, own, error) : NULL;
      g_autoptr(TsTensor) theirs = NULL;

      if (rest == NULL || (res[0] != NULL && (theirs = scatter_part (g, info, res[0], error)) == NULL))
        goto out;
      grad_inputs[0] = theirs != NULL ? ts_autograd_add (rest, theirs, error) : g_steal_pointer (&rest);
      if (grad_inputs[0] == NULL)
        goto out;
    }
  else if (ts_grad_node_needs_input_grad (node, 0))
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
