/* ts-autograd-node.c: graph nodes, saved tensors, hooks, tensor metadata,
 * AccumulateGrad and recording
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-autograd-formulas.h"
#include "ts-autograd-private.h"
#include "ts-ops.h"

/* ------------------------------------------------------------------ */
/* Grad mode and sequence numbers: per thread, as in PyTorch. */

static _Thread_local gboolean grad_disabled;
static _Thread_local guint64 next_sequence_nr;

gboolean
ts_autograd_is_grad_enabled (void)
{
  return !grad_disabled;
}

gboolean
ts_autograd_set_grad_enabled (gboolean enabled)
{
  gboolean previous = !grad_disabled;

  grad_disabled = !enabled;
  return previous;
}

G_LOCK_DEFINE_STATIC (autograd);

void
ts_autograd_lock (void)
{
  G_LOCK (autograd);
}

void
ts_autograd_unlock (void)
{
  G_UNLOCK (autograd);
}

/* ------------------------------------------------------------------ */
/* Hook lists */

static guint64 next_hook_id = 1;

static void
hook_free (gpointer data)
{
  TsAutogradHook *hook = data;

  if (hook->destroy != NULL)
    hook->destroy (hook->user_data);
  g_free (hook);
}

GPtrArray *
ts_autograd_hook_list_new (void)
{
  return g_ptr_array_new_with_free_func (hook_free);
}

guint64
ts_autograd_hook_list_add (GPtrArray      *list,
                           gpointer        fn,
                           gpointer        user_data,
                           GDestroyNotify  destroy)
{
  TsAutogradHook *hook = g_new0 (TsAutogradHook, 1);

  hook->id = g_atomic_pointer_add (&next_hook_id, 1);
  hook->fn = fn;
  hook->user_data = user_data;
  hook->destroy = destroy;
  g_ptr_array_add (list, hook);
  return hook->id;
}

static gboolean
hook_list_remove (GPtrArray *list,
                  guint64    id)
{
  if (list == NULL)
    return FALSE;
  for (guint i = 0; i < list->len; i++)
    if (((TsAutogradHook *) list->pdata[i])->id == id)
      {
        g_ptr_array_remove_index (list, i);
        return TRUE;
      }
  return FALSE;
}

/* ------------------------------------------------------------------ */
/* Nodes */

void
ts_grad_tensor_info_set (TsGradTensorInfo *info,
                         const TsTensor   *tensor)
{
  gpointer user_data;
  const TsAutogradStreamOps *ops;

  memset (info, 0, sizeof *info);
  info->dtype = tensor->dtype;
  info->device = ts_tensor_get_device (tensor);
  info->ndim = tensor->ndim;
  memcpy (info->shape, tensor->shape, tensor->ndim * sizeof (gint64));
  info->stream = TS_STREAM_NONE;
  if (info->device.type == TS_DEVICE_CUDA)
    {
      ops = ts_autograd_get_stream_ops (&user_data);
      info->stream = ops->current_stream (info->device.index, user_data);
    }
}

TsGradNode *
ts_grad_node_new (const char   *name,
                  TsBackwardFn  backward,
                  guint         n_inputs,
                  guint         n_outputs,
                  gsize         attrs_size)
{
  TsGradNode *self = g_atomic_rc_box_new0 (TsGradNode);

  self->name = name;
  self->backward = backward;
  self->sequence_nr = next_sequence_nr++;
  self->n_inputs = n_inputs;
  self->n_outputs = n_outputs;
  self->next_edges = g_new0 (TsGradEdge, MAX (n_inputs, 1));
  self->input_info = g_new0 (TsGradTensorInfo, MAX (n_inputs, 1));
  self->output_info = g_new0 (TsGradTensorInfo, MAX (n_outputs, 1));
  self->stream_device = -1;
  self->stream = TS_STREAM_NONE;
  self->attrs = attrs_size ? g_malloc0 (attrs_size) : NULL;
  return self;
}

TsGradNode *
ts_grad_node_ref (TsGradNode *self)
{
  return g_atomic_rc_box_acquire (self);
}

/* Freeing a node drops its next edges, which may free their nodes, and so
 * on down a long chain: iteratively (PyTorch's deleteNode), so that a
 * graph of a million ops does not overflow the stack. */
static _Thread_local GPtrArray *pending_frees;

static void
node_clear (gpointer data)
{
  TsGradNode *self = data;

  for (guint i = 0; i < self->n_inputs; i++)
    if (self->next_edges[i].node != NULL)
      g_ptr_array_add (pending_frees, self->next_edges[i].node);
  if (self->variable != NULL)
    {
      TsAutogradMeta *meta = self->variable->autograd_meta;

      ts_autograd_lock ();
      if (meta != NULL && meta->grad_accumulator == self)
        meta->grad_accumulator = NULL;
      ts_autograd_unlock ();
      ts_tensor_unref (self->variable);
    }
  ts_grad_node_release_variables (self);
  g_clear_pointer (&self->saved, g_array_unref);
  g_clear_pointer (&self->pre_hooks, g_ptr_array_unref);
  g_clear_pointer (&self->post_hooks, g_ptr_array_unref);
  for (guint i = 0; self->tensor_pre_hooks != NULL && i < self->n_outputs; i++)
    g_clear_pointer (&self->tensor_pre_hooks[i], g_ptr_array_unref);
  g_free (self->tensor_pre_hooks);
  g_free (self->retains_grad);
  g_free (self->next_edges);
  g_free (self->input_info);
  g_free (self->output_info);
  if (self->attrs_clear != NULL)
    self->attrs_clear (self->attrs);
  if (self->anomaly != NULL)
    ts_autograd_anomaly_free (self->anomaly);
  g_free (self->attrs);
}

void
ts_grad_node_unref (TsGradNode *self)
{
  gboolean outermost = pending_frees == NULL;

  if (outermost)
    pending_frees = g_ptr_array_new ();
  g_ptr_array_add (pending_frees, self);
  if (!outermost)
    return;
  while (pending_frees->len > 0)
    {
      TsGradNode *node = g_ptr_array_steal_index_fast (pending_frees, pending_frees->len - 1);
      g_atomic_rc_box_release_full (node, node_clear);
    }
  g_clear_pointer (&pending_frees, g_ptr_array_unref);
}

const char *
ts_grad_node_get_name (TsGradNode *self)
{
  return self->name;
}

guint64
ts_grad_node_get_sequence_nr (TsGradNode *self)
{
  return self->sequence_nr;
}

TsBackwardFn
ts_grad_node_get_backward (TsGradNode *self)
{
  return self->backward;
}

guint
ts_grad_node_get_n_inputs (TsGradNode *self)
{
  return self->n_inputs;
}

guint
ts_grad_node_get_n_outputs (TsGradNode *self)
{
  return self->n_outputs;
}

TsGradEdge
ts_grad_node_get_next_edge (TsGradNode *self,
                            guint       i)
{
  g_return_val_if_fail (i < self->n_inputs, ((TsGradEdge) { NULL, 0 }));
  return self->next_edges[i];
}

void
ts_grad_node_set_next_edge (TsGradNode *self,
                            guint       i,
                            TsGradEdge  edge)
{
  g_return_if_fail (i < self->n_inputs);

  if (edge.node != NULL)
    ts_grad_node_ref (edge.node);
  if (self->next_edges[i].node != NULL)
    ts_grad_node_unref (self->next_edges[i].node);
  self->next_edges[i] = edge;
}

gboolean
ts_grad_node_needs_input_grad (TsGradNode *self,
                               guint       i)
{
  return i < self->n_inputs && self->next_edges[i].node != NULL;
}

const TsGradTensorInfo *
ts_grad_node_get_input_info (TsGradNode *self,
                             guint       i)
{
  g_return_val_if_fail (i < self->n_inputs, NULL);
  return &self->input_info[i];
}

const TsGradTensorInfo *
ts_grad_node_get_output_info (TsGradNode *self,
                              guint       i)
{
  g_return_val_if_fail (i < self->n_outputs, NULL);
  return &self->output_info[i];
}

void
ts_grad_node_set_input_info (TsGradNode     *self,
                             guint           i,
                             const TsTensor *tensor)
{
  g_return_if_fail (i < self->n_inputs);
  ts_grad_tensor_info_set (&self->input_info[i], tensor);
}

void
ts_grad_node_set_output_info (TsGradNode     *self,
                              guint           i,
                              const TsTensor *tensor)
{
  TsGradTensorInfo *info;

  g_return_if_fail (i < self->n_outputs);
  info = &self->output_info[i];
  ts_grad_tensor_info_set (info, tensor);
  if (self->stream_device < 0 && info->device.type == TS_DEVICE_CUDA)
    ts_grad_node_set_stream (self, info->device.index, info->stream);
}

gpointer
ts_grad_node_get_attrs (TsGradNode *self)
{
  return self->attrs;
}

TsStreamId
ts_grad_node_get_stream (TsGradNode *self,
                         int        *device)
{
  if (device != NULL)
    *device = self->stream_device;
  return self->stream;
}

void
ts_grad_node_set_stream (TsGradNode *self,
                         int         device,
                         TsStreamId  stream)
{
  self->stream_device = device;
  self->stream = device < 0 ? TS_STREAM_NONE : stream;
}

/* ------------------------------------------------------------------ */
/* Saved tensors */

static TsTensor *
bare_view (const TsTensor *t)
{
  return ts_tensor_new_view (t->storage, t->dtype, t->ndim, t->shape, t->strides, t->offset);
}

guint
ts_grad_node_save (TsGradNode *self,
                   TsTensor   *tensor)
{
  TsSavedTensor saved = { 0 };
  guint output_nr;

  g_return_val_if_fail (tensor != NULL, 0);

  if (self->saved == NULL)
    self->saved = g_array_new (FALSE, TRUE, sizeof (TsSavedTensor));
  saved.version = ts_autograd_get_version (tensor);
  saved.requires_grad = ts_autograd_requires_grad (tensor);
  if (ts_autograd_get_grad_fn (tensor, &output_nr) == self)
    {
      /* Keeping the output itself would make a cycle: output -> grad_fn ->
       * saved output. Keep its bytes; unpack puts the grad_fn back. */
      saved.is_output = TRUE;
      saved.output_nr = output_nr;
      saved.data = bare_view (tensor);
    }
  else
    saved.data = ts_tensor_ref (tensor);
  g_array_append_val (self->saved, saved);
  return self->saved->len - 1;
}

guint
ts_grad_node_get_n_saved (TsGradNode *self)
{
  return self->saved != NULL ? self->saved->len : 0;
}

static char *
tensor_type_string (const TsTensor *t)
{
  g_autofree char *shape = ts_shape_to_string (t->ndim, t->shape);

  return g_strdup_printf ("torch.%s%sTensor %s", ts_tensor_is_cuda (t) ? "cuda." : "",
                          ts_dtype_scalar_type_name (t->dtype), shape);
}

TsTensor *
ts_grad_node_unpack_saved (TsGradNode  *self,
                           guint        slot,
                           GError     **error)
{
  TsSavedTensor *saved;
  guint version;
  TsTensor *out;

  g_return_val_if_fail (slot < ts_grad_node_get_n_saved (self), NULL);

  saved = &g_array_index (self->saved, TsSavedTensor, slot);
  if (self->released || saved->data == NULL)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "Trying to backward through the graph a second time (or directly "
                           "access saved tensors after they have already been freed). Saved "
                           "intermediate values of the graph are freed when you call .backward() "
                           "or autograd.grad(). Specify retain_graph=True if you need to backward "
                           "through the graph a second time or if you need to access saved "
                           "tensors after calling backward.");
      return NULL;
    }
  version = ts_autograd_get_version (saved->data);
  if (version != saved->version)
    {
      g_autofree char *type = tensor_type_string (saved->data);
      g_autofree char *which = NULL;
      guint output_nr = saved->output_nr;
      TsGradNode *grad_fn = saved->is_output ? self
                                             : ts_autograd_get_grad_fn (saved->data, &output_nr);

      if (grad_fn != NULL)
        which = g_strdup_printf (", which is output %u of %s,", output_nr, grad_fn->name);
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "one of the variables needed for gradient computation has been modified "
                   "by an inplace operation: [%s]%s is at version %u; expected version %u "
                   "instead. Hint: enable anomaly detection to find the operation that failed "
                   "to compute its gradient, with torch.autograd.set_detect_anomaly(True).",
                   type, which != NULL ? which : "", version, saved->version);
      return NULL;
    }
  if (!saved->is_output || !saved->requires_grad)
    return ts_tensor_ref (saved->data);
  out = bare_view (saved->data);
  ts_autograd_set_grad_fn (out, self, saved->output_nr);
  return out;
}

void
ts_grad_node_release_variables (TsGradNode *self)
{
  for (guint i = 0; i < ts_grad_node_get_n_saved (self); i++)
    g_clear_pointer (&g_array_index (self->saved, TsSavedTensor, i).data, ts_tensor_unref);
  if (self->attrs_release != NULL)
    self->attrs_release (self->attrs);
  self->released = TRUE;
}

void
ts_grad_node_set_attrs_funcs (TsGradNode     *self,
                              GDestroyNotify  clear,
                              GDestroyNotify  release)
{
  self->attrs_clear = clear;
  self->attrs_release = release;
}

gboolean
ts_grad_node_is_released (TsGradNode *self)
{
  return self->released;
}

/* ------------------------------------------------------------------ */
/* Node hooks */

static guint64
add_to (GPtrArray     **list,
        gpointer        fn,
        gpointer        user_data,
        GDestroyNotify  destroy)
{
  if (*list == NULL)
    *list = ts_autograd_hook_list_new ();
  return ts_autograd_hook_list_add (*list, fn, user_data, destroy);
}

guint64
ts_grad_node_add_pre_hook (TsGradNode      *self,
                           TsNodePreHookFn  fn,
                           gpointer         user_data,
                           GDestroyNotify   destroy)
{
  return add_to (&self->pre_hooks, fn, user_data, destroy);
}

guint64
ts_grad_node_add_post_hook (TsGradNode       *self,
                            TsNodePostHookFn  fn,
                            gpointer          user_data,
                            GDestroyNotify    destroy)
{
  return add_to (&self->post_hooks, fn, user_data, destroy);
}

static GPtrArray **
tensor_pre_hook_slot (TsGradNode *self,
                      guint       output_nr)
{
  if (self->tensor_pre_hooks == NULL)
    self->tensor_pre_hooks = g_new0 (GPtrArray *, MAX (self->n_outputs, 1));
  return &self->tensor_pre_hooks[output_nr];
}

guint64
ts_grad_node_add_tensor_pre_hook (TsGradNode     *self,
                                  guint           output_nr,
                                  TsTensorHookFn  fn,
                                  gpointer        user_data,
                                  GDestroyNotify  destroy)
{
  g_return_val_if_fail (output_nr < self->n_outputs, 0);
  return add_to (tensor_pre_hook_slot (self, output_nr), fn, user_data, destroy);
}

static gboolean
check_requires_grad (const TsTensor  *tensor,
                     const char      *message,
                     GError         **error)
{
  if (ts_autograd_requires_grad (tensor))
    return TRUE;
  g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME, message);
  return FALSE;
}

guint64
ts_autograd_register_hook (TsTensor        *tensor,
                           TsTensorHookFn   fn,
                           gpointer         user_data,
                           GDestroyNotify   destroy,
                           GError         **error)
{
  TsAutogradMeta *meta;

  if (!check_requires_grad (tensor, "cannot register a hook on a tensor that doesn't require "
                            "gradient", error))
    return 0;
  meta = tensor->autograd_meta;
  if (meta->grad_fn != NULL)
    return ts_grad_node_add_tensor_pre_hook (meta->grad_fn, meta->output_nr, fn, user_data,
                                             destroy);
  /* A leaf: the list is shared with its AccumulateGrad, now or later. */
  if (meta->hooks == NULL)
    meta->hooks = ts_autograd_hook_list_new ();
  ts_autograd_lock ();
  if (meta->grad_accumulator != NULL && *tensor_pre_hook_slot (meta->grad_accumulator, 0) == NULL)
    meta->grad_accumulator->tensor_pre_hooks[0] = g_ptr_array_ref (meta->hooks);
  ts_autograd_unlock ();
  return ts_autograd_hook_list_add (meta->hooks, fn, user_data, destroy);
}

guint64
ts_autograd_register_post_accumulate_grad_hook (TsTensor               *tensor,
                                                TsPostAccumulateHookFn  fn,
                                                gpointer                user_data,
                                                GDestroyNotify          destroy,
                                                GError                **error)
{
  if (!check_requires_grad (tensor, "cannot register a hook on a tensor that doesn't require "
                            "gradient", error))
    return 0;
  if (!ts_autograd_is_leaf (tensor))
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "post accumulate grad hooks cannot be registered on non-leaf tensors");
      return 0;
    }
  return add_to (&tensor->autograd_meta->post_accumulate_hooks, fn, user_data, destroy);
}

gboolean
ts_autograd_remove_hook (TsGradNode *node,
                         TsTensor   *tensor,
                         guint64     id)
{
  if (node != NULL)
    {
      if (hook_list_remove (node->pre_hooks, id) || hook_list_remove (node->post_hooks, id))
        return TRUE;
      for (guint i = 0; node->tensor_pre_hooks != NULL && i < node->n_outputs; i++)
        if (hook_list_remove (node->tensor_pre_hooks[i], id))
          return TRUE;
    }
  if (tensor != NULL && tensor->autograd_meta != NULL)
    {
      TsAutogradMeta *meta = tensor->autograd_meta;

      if (hook_list_remove (meta->hooks, id) ||
          hook_list_remove (meta->post_accumulate_hooks, id))
        return TRUE;
      if (meta->grad_fn != NULL)
        return ts_autograd_remove_hook (meta->grad_fn, NULL, id);
    }
  return FALSE;
}

/* ------------------------------------------------------------------ */
/* Tensor metadata */

TsAutogradMeta *
ts_autograd_ensure_meta (TsTensor *tensor)
{
  if (tensor->autograd_meta == NULL)
    tensor->autograd_meta = g_new0 (TsAutogradMeta, 1);
  return tensor->autograd_meta;
}

void
ts_autograd_meta_free (TsAutogradMeta *meta)
{
  /* A leaf's AccumulateGrad holds the leaf: it is gone by now. A node
   * that retains this tensor's gradient forgets it. */
  if (meta->retains_grad && meta->grad_fn != NULL && meta->grad_fn->retains_grad != NULL)
    {
      ts_autograd_lock ();
      meta->grad_fn->retains_grad[meta->output_nr] = NULL;
      ts_autograd_unlock ();
    }
  g_clear_pointer (&meta->grad, ts_tensor_unref);
  g_clear_pointer (&meta->grad_fn, ts_grad_node_unref);
  g_clear_pointer (&meta->hooks, g_ptr_array_unref);
  g_clear_pointer (&meta->post_accumulate_hooks, g_ptr_array_unref);
  g_clear_pointer (&meta->base, ts_tensor_unref);
  g_free (meta);
}

gboolean
ts_autograd_requires_grad (const TsTensor *tensor)
{
  const TsAutogradMeta *meta = tensor->autograd_meta;

  return meta != NULL && (meta->requires_grad || meta->grad_fn != NULL);
}

gboolean
ts_autograd_set_requires_grad (TsTensor  *tensor,
                               gboolean   requires_grad,
                               GError   **error)
{
  if (!ts_autograd_is_leaf (tensor))
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "you can only change requires_grad flags of leaf variables. If you "
                           "want to use a computed variable in a subgraph that doesn't require "
                           "differentiation use var_no_grad = var.detach().");
      return FALSE;
    }
  if (requires_grad && ts_dtype_is_complex (tensor->dtype))
    {
      /* PyTorch differentiates them (Wirtinger calculus); no formula here does */
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_NOT_IMPLEMENTED,
                           "autograd of complex tensors is not modeled by Tensorscope yet: "
                           "a complex tensor cannot require gradients");
      return FALSE;
    }
  if (requires_grad && !ts_dtype_is_floating (tensor->dtype))
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "only Tensors of floating point dtype can require gradients");
      return FALSE;
    }
  if (requires_grad || tensor->autograd_meta != NULL)
    ts_autograd_ensure_meta (tensor)->requires_grad = requires_grad;
  return TRUE;
}

gboolean
ts_autograd_is_leaf (const TsTensor *tensor)
{
  return tensor->autograd_meta == NULL || tensor->autograd_meta->grad_fn == NULL;
}

TsGradNode *
ts_autograd_get_grad_fn (const TsTensor *tensor,
                         guint          *output_nr)
{
  const TsAutogradMeta *meta = tensor->autograd_meta;

  if (output_nr != NULL)
    *output_nr = meta != NULL ? meta->output_nr : 0;
  return meta != NULL ? meta->grad_fn : NULL;
}

void
ts_autograd_set_grad_fn (TsTensor   *tensor,
                         TsGradNode *node,
                         guint       output_nr)
{
  TsAutogradMeta *meta = ts_autograd_ensure_meta (tensor);

  if (node != NULL)
    ts_grad_node_ref (node);
  g_clear_pointer (&meta->grad_fn, ts_grad_node_unref);
  meta->grad_fn = node;
  meta->output_nr = output_nr;
  meta->requires_grad = FALSE;
}

TsTensor *
ts_autograd_get_grad (const TsTensor *tensor)
{
  return tensor->autograd_meta != NULL ? tensor->autograd_meta->grad : NULL;
}

void
ts_autograd_set_grad (TsTensor *tensor,
                      TsTensor *grad)
{
  TsAutogradMeta *meta;

  if (grad == NULL && tensor->autograd_meta == NULL)
    return;
  meta = ts_autograd_ensure_meta (tensor);
  if (grad != NULL)
    ts_tensor_ref (grad);
  g_clear_pointer (&meta->grad, ts_tensor_unref);
  meta->grad = grad;
}

gboolean
ts_autograd_retain_grad (TsTensor  *tensor,
                         GError   **error)
{
  TsAutogradMeta *meta = tensor->autograd_meta;
  TsGradNode *node;

  if (!check_requires_grad (tensor, "can't retain_grad on Tensor that has requires_grad=False",
                            error))
    return FALSE;
  node = meta->grad_fn;
  if (node == NULL || meta->retains_grad)
    return TRUE;
  ts_autograd_lock ();
  if (node->retains_grad == NULL)
    node->retains_grad = g_new0 (TsTensor *, MAX (node->n_outputs, 1));
  node->retains_grad[meta->output_nr] = tensor;
  meta->retains_grad = TRUE;
  ts_autograd_unlock ();
  return TRUE;
}

gboolean
ts_autograd_retains_grad (const TsTensor *tensor)
{
  return tensor->autograd_meta != NULL && tensor->autograd_meta->retains_grad;
}

guint
ts_autograd_get_version (const TsTensor *tensor)
{
  return g_atomic_int_get (&tensor->storage->version);
}

void
ts_autograd_bump_version (TsTensor *tensor)
{
  g_atomic_int_inc (&tensor->storage->version);
}

gboolean
ts_autograd_check_inplace (const TsTensor  *tensor,
                           GError         **error)
{
  const TsTensor *base = ts_autograd_get_view_base (tensor);

  if (ts_autograd_is_grad_enabled () && base != NULL && ts_autograd_is_leaf (base) &&
      ts_autograd_requires_grad (base))
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "a view of a leaf Variable that requires grad is being used in an in-place "
                           "operation.");
      return FALSE;
    }
  if (!ts_autograd_is_grad_enabled () || !ts_autograd_is_leaf (tensor) ||
      !ts_autograd_requires_grad (tensor))
    return TRUE;
  g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "a leaf Variable that requires grad is being used in an in-place "
                       "operation.");
  return FALSE;
}

/* ------------------------------------------------------------------ */
/* AccumulateGrad */

static TS_BACKWARD_FN (accumulate_grad_backward)
{
  /* Called directly (not through the engine): nothing is known about who
   * else holds the gradient, so it is never stolen. */
  return ts_autograd_accumulate_grad (node, grad_outputs[0], FALSE, error);
}

gboolean
ts_grad_node_is_accumulate_grad (TsGradNode *node)
{
  return node->backward == accumulate_grad_backward;
}

TsGradNode *
ts_autograd_grad_accumulator (TsTensor *tensor)
{
  TsAutogradMeta *meta = tensor->autograd_meta;
  TsGradNode *node;

  if (meta == NULL || meta->grad_fn != NULL || !meta->requires_grad)
    return NULL;
  ts_autograd_lock ();
  node = meta->grad_accumulator;
  if (node != NULL)
    {
      ts_grad_node_ref (node);
      ts_autograd_unlock ();
      return node;
    }
  node = ts_grad_node_new ("torch::autograd::AccumulateGrad", accumulate_grad_backward, 0, 1, 0);
  node->sequence_nr = TS_GRAD_SEQUENCE_NR_MAX;
  node->variable = ts_tensor_ref (tensor);
  ts_grad_node_set_output_info (node, 0, tensor);
  if (meta->hooks != NULL)
    *tensor_pre_hook_slot (node, 0) = g_ptr_array_ref (meta->hooks);
  meta->grad_accumulator = node;
  ts_autograd_unlock ();
  return node;
}

TsGradEdge
ts_autograd_gradient_edge (TsTensor *tensor)
{
  TsAutogradMeta *meta = tensor->autograd_meta;

  if (meta != NULL && meta->grad_fn != NULL)
    return (TsGradEdge) { ts_grad_node_ref (meta->grad_fn), meta->output_nr };
  return (TsGradEdge) { ts_autograd_grad_accumulator (tensor), 0 };
}

/* Layout contract (torch/csrc/autograd/utils/grad_layout_contract.h): a
 * leaf's .grad has the leaf's strides when the leaf is non-overlapping and
 * dense, else it is contiguous. */
static gboolean
obeys_layout_contract (const TsTensor *grad,
                       const TsTensor *variable)
{
  if (!ts_tensor_is_non_overlapping_and_dense (variable))
    return ts_tensor_is_contiguous (grad);
  for (guint i = 0; i < grad->ndim; i++)
    if (grad->shape[i] != 1 && grad->strides[i] != variable->strides[i])
      return FALSE;
  return TRUE;
}

static TsTensor *
clone_obey_contract (TsTensor  *grad,
                     TsTensor  *variable,
                     GError   **error)
{
  g_autoptr(TsTensor) out = NULL;
  TsGradNode *node;

  if (!ts_tensor_is_non_overlapping_and_dense (variable) || ts_tensor_is_contiguous (variable))
    out = ts_ops_clone (grad, error);   /* contiguous */
  else
    {
      /* empty_strided like the variable, then copy_ */
      g_autoptr(TsTensor) flat = ts_tensor_new_empty (ts_tensor_get_device (grad), grad->dtype,
                                                      grad->ndim, grad->shape, FALSE, error);

      if (flat == NULL)
        return NULL;
      out = ts_tensor_new_view (flat->storage, grad->dtype, grad->ndim, grad->shape,
                                variable->strides, 0);
      if (!ts_ops_copy (out, grad, FALSE, error))
        return NULL;
    }
  if (out == NULL)
    return NULL;
  node = ts_autograd_record ("CopyBackwards", ts_autograd_backward_identity, 0, &grad, 1, &out, 1);
  if (node != NULL)
    ts_grad_node_unref (node);
  return g_steal_pointer (&out);
}

/* A gradient with no history of its own: no metadata, or only a view's
 * (TBackward0's transpose of a column-major weight gradient is one) */
static gboolean
is_plain (const TsTensor *grad)
{
  const TsAutogradMeta *m = grad->autograd_meta;

  return m == NULL || (!m->requires_grad && m->grad_fn == NULL && m->hooks == NULL);
}

/* The stolen gradient as .grad: itself, or for a view a new tensor over
 * the same bytes without the view's metadata (no allocation: PyTorch's
 * AccumulateGrad steals such a gradient too, a .grad is no view) */
static TsTensor *
steal_plain (TsTensor *grad)
{
  if (grad->autograd_meta == NULL)
    return ts_tensor_ref (grad);
  return ts_tensor_new_view (grad->storage, grad->dtype, grad->ndim, grad->shape, grad->strides, grad->offset);
}

/* PyTorch's AccumulateGrad::accumulateGrad (accumulate_grad.h):
 *   - no .grad yet: with grad mode off, when nothing else references the
 *     new gradient (steal) and its strides obey the layout contract, it
 *     becomes .grad as it is; otherwise .grad is a clone obeying the
 *     contract (with grad mode on, a differentiable one: CopyBackwards).
 *   - a .grad and grad mode off (no create_graph): .grad += new, in place.
 *   - a .grad and grad mode on (create_graph): .grad = .grad + new, out of
 *     place, so the result has a graph.
 * Then the leaf's post-accumulate-grad hooks run. */
gboolean
ts_autograd_accumulate_grad (TsGradNode  *node,
                             TsTensor    *new_grad,
                             gboolean     steal,
                             GError     **error)
{
  TsTensor *variable = node->variable;
  TsAutogradMeta *meta = variable->autograd_meta;
  GPtrArray *hooks;

  if (meta == NULL || !meta->requires_grad || new_grad == NULL)
    return TRUE;
  if (meta->grad == NULL)
    {
      if (!ts_autograd_is_grad_enabled () && steal && is_plain (new_grad) &&
          obeys_layout_contract (new_grad, variable))
        meta->grad = steal_plain (new_grad);
      else if ((meta->grad = clone_obey_contract (new_grad, variable, error)) == NULL)
        return FALSE;
    }
  else if (!ts_autograd_is_grad_enabled ())
    {
      TsTensor *out = ts_ops_binary (TS_BINARY_ADD, meta->grad, new_grad, NULL, FALSE,
                                     meta->grad, error);
      if (out == NULL)
        return FALSE;
      ts_tensor_unref (out);  /* a new reference to meta->grad, its version bumped */
    }
  else
    {
      TsTensor *sum = ts_autograd_add (meta->grad, new_grad, error);

      if (sum == NULL)
        return FALSE;
      ts_tensor_unref (meta->grad);
      meta->grad = sum;
    }
  hooks = meta->post_accumulate_hooks;
  for (guint i = 0; hooks != NULL && i < hooks->len; i++)
    {
      TsAutogradHook *hook = hooks->pdata[i];

      if (!((TsPostAccumulateHookFn) hook->fn) (variable, hook->user_data, error))
        return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Recording */

gboolean
ts_autograd_any_requires_grad (TsTensor *const *tensors,
                               guint            n)
{
  for (guint i = 0; i < n; i++)
    if (tensors[i] != NULL && ts_autograd_requires_grad (tensors[i]))
      return TRUE;
  return FALSE;
}

TsGradNode *
ts_autograd_record (const char      *name,
                    TsBackwardFn     backward,
                    gsize            attrs_size,
                    TsTensor *const *inputs,
                    guint            n_inputs,
                    TsTensor *const *outputs,
                    guint            n_outputs)
{
  TsGradNode *node;

  if (!ts_autograd_is_grad_enabled () || !ts_autograd_any_requires_grad (inputs, n_inputs))
    return NULL;

  node = ts_grad_node_new (name, backward, n_inputs, n_outputs, attrs_size);
  ts_autograd_anomaly_capture (node);
  for (guint i = 0; i < n_inputs; i++)
    {
      if (inputs[i] == NULL)
        continue;
      ts_grad_node_set_input_info (node, i, inputs[i]);
      if (ts_autograd_requires_grad (inputs[i]))
        node->next_edges[i] = ts_autograd_gradient_edge (inputs[i]);
    }
  for (guint i = 0; i < n_outputs; i++)
    {
      ts_grad_node_set_output_info (node, i, outputs[i]);
      if (ts_dtype_is_floating (outputs[i]->dtype))
        ts_autograd_set_grad_fn (outputs[i], node, i);
    }
  /* in place on a view: the base's history changes too */
  if (n_outputs == 1 && n_inputs > 0 && outputs[0] == inputs[0] && ts_autograd_get_view_base (outputs[0]) != NULL)
    ts_autograd_rebase_view (node, outputs[0]);
  return node;
}

/* ------------------------------------------------------------------ */
/* Helpers */

TsTensor *
ts_autograd_new_filled (const TsGradTensorInfo *info,
                        double                  value,
                        GError                **error)
{
  TsScalar scalar = { TS_DTYPE_FLOAT64, value, (gint64) value };

  return ts_autograd_new_full (info->device, info->dtype, info->ndim, info->shape, &scalar, error);
}

TsTensor *
ts_autograd_new_full (TsDevice         device,
                      TsDType          dtype,
                      guint            ndim,
                      const gint64    *shape,
                      const TsScalar  *value,
                      GError         **error)
{
  g_autoptr(TsTensor) out = ts_tensor_new_empty (device, dtype, ndim, shape, FALSE, error);

  if (out == NULL || !ts_ops_fill (out, value, error))
    return NULL;
  return g_steal_pointer (&out);
}
