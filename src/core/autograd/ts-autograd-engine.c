/* ts-autograd-engine.c: the backward pass
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PyTorch's torch/csrc/autograd/engine.cpp on one thread: dependencies
 * counted from the roots, a ready queue ordered by sequence number
 * (highest first; AccumulateGrad, with the largest, as soon as it is
 * ready), an input buffer per node summing the gradients of its several
 * consumers, exec_info for inputs= and grad() (captures), hooks, release
 * of saved tensors, and the stream semantics of backward passes: each
 * node runs on its forward's stream, a gradient made on another stream is
 * waited for before it is summed or used (InputBuffer::add), and at the
 * end the caller's current streams wait for the leaves' streams.
 */

#include "config.h"

#include <string.h>

#include "ts-autocast.h"
#include "ts-autograd-formulas.h"
#include "ts-autograd-private.h"
#include "ts-cublas-workspace.h"
#include "ts-ops.h"
#include "ts-session.h"

typedef struct
{
  guint input_idx;    /* which incoming gradient of the node */
  guint output_idx;   /* which result of grad() */
} Capture;

typedef struct
{
  TsGradNode *node;
  guint       dependencies;
  TsTensor  **buffer;       /* n_outputs incoming gradients */
  gboolean   *exclusive;    /* nothing outside the engine holds buffer[i] */
  gboolean    needed;       /* exec_info: run the node */
  GArray     *captures;     /* exec_info: Capture */
  guint64     order;        /* when it became ready: ties in the queue */
} NodeTask;

typedef struct
{
  int        device;
  TsStreamId stream;
} StreamRef;

typedef struct
{
  GHashTable *tasks;        /* TsGradNode * -> NodeTask * */
  GPtrArray  *ready;        /* binary heap of NodeTask * */
  guint64     next_order;
  gboolean    keep_graph;
  gboolean    exec_info;    /* only needed nodes run (inputs given) */
  TsTensor  **captured;     /* grad(): one per input */
  GArray     *leaf_streams; /* StreamRef */
  const TsAutogradStreamOps *ops;
  gpointer    ops_data;
} GraphTask;

/* The op a node was named after, as PyTorch's "not implemented" message
 * names it: NextafterBackward0 -> nextafter, LogSoftmaxBackward0 ->
 * log_softmax. */
static char *
op_name_of_node (const char *node)
{
  const char *end = g_strrstr (node, "Backward");
  GString *op = g_string_new (NULL);

  if (end == NULL)
    end = node + strlen (node);
  for (const char *p = node; p < end; p++)
    {
      if (g_ascii_isupper (*p) && p != node)
        g_string_append_c (op, '_');
      g_string_append_c (op, g_ascii_tolower (*p));
    }
  return g_string_free (op, FALSE);
}

static void
node_task_free (gpointer data)
{
  NodeTask *task = data;

  for (guint i = 0; i < task->node->n_outputs; i++)
    g_clear_pointer (&task->buffer[i], ts_tensor_unref);
  g_free (task->buffer);
  g_free (task->exclusive);
  g_clear_pointer (&task->captures, g_array_unref);
  ts_grad_node_unref (task->node);
  g_free (task);
}

static NodeTask *
task_get (GraphTask  *graph,
          TsGradNode *node,
          gboolean    create)
{
  NodeTask *task = g_hash_table_lookup (graph->tasks, node);

  if (task != NULL || !create)
    return task;
  task = g_new0 (NodeTask, 1);
  task->node = ts_grad_node_ref (node);
  task->buffer = g_new0 (TsTensor *, MAX (node->n_outputs, 1));
  task->exclusive = g_new0 (gboolean, MAX (node->n_outputs, 1));
  g_hash_table_insert (graph->tasks, node, task);
  return task;
}

/* ------------------------------------------------------------------ */
/* The ready queue: a max-heap on sequence_nr, then first come first. */

static gboolean
task_before (const NodeTask *a,
             const NodeTask *b)
{
  if (a->node->sequence_nr != b->node->sequence_nr)
    return a->node->sequence_nr > b->node->sequence_nr;
  return a->order < b->order;
}

static void
ready_push (GraphTask *graph,
            NodeTask  *task)
{
  GPtrArray *heap = graph->ready;
  guint i = heap->len;

  task->order = graph->next_order++;
  g_ptr_array_add (heap, task);
  while (i > 0 && task_before (heap->pdata[i], heap->pdata[(i - 1) / 2]))
    {
      gpointer tmp = heap->pdata[i];
      heap->pdata[i] = heap->pdata[(i - 1) / 2];
      heap->pdata[(i - 1) / 2] = tmp;
      i = (i - 1) / 2;
    }
}

static NodeTask *
ready_pop (GraphTask *graph)
{
  GPtrArray *heap = graph->ready;
  NodeTask *top;
  guint i = 0;

  if (heap->len == 0)
    return NULL;
  top = heap->pdata[0];
  heap->pdata[0] = heap->pdata[heap->len - 1];
  g_ptr_array_set_size (heap, heap->len - 1);
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, best = i;
      gpointer tmp;

      if (l < heap->len && task_before (heap->pdata[l], heap->pdata[best]))
        best = l;
      if (r < heap->len && task_before (heap->pdata[r], heap->pdata[best]))
        best = r;
      if (best == i)
        break;
      tmp = heap->pdata[i];
      heap->pdata[i] = heap->pdata[best];
      heap->pdata[best] = tmp;
      i = best;
    }
  return top;
}

/* ------------------------------------------------------------------ */
/* Streams */

/* Makes stream current on device for a scope; *previous gets what to put
 * back (TS_STREAM_NONE: nothing changed). */
static gboolean
stream_enter (GraphTask   *graph,
              int          device,
              TsStreamId   stream,
              TsStreamId  *previous,
              GError     **error)
{
  TsStreamId current;

  *previous = TS_STREAM_NONE;
  if (device < 0 || stream == TS_STREAM_NONE)
    return TRUE;
  current = graph->ops->current_stream (device, graph->ops_data);
  if (current == stream)
    return TRUE;
  if (!graph->ops->set_current_stream (device, stream, graph->ops_data, error))
    return FALSE;
  *previous = current;
  return TRUE;
}

static void
stream_leave (GraphTask  *graph,
              int         device,
              TsStreamId  previous)
{
  if (previous != TS_STREAM_NONE)
    graph->ops->set_current_stream (device, previous, graph->ops_data, NULL);
}

static void
add_leaf_stream (GraphTask *graph,
                 TsGradNode *node)
{
  StreamRef ref = { node->stream_device, node->stream };

  if (ref.device < 0)
    return;
  for (guint i = 0; i < graph->leaf_streams->len; i++)
    {
      StreamRef *r = &g_array_index (graph->leaf_streams, StreamRef, i);

      if (r->device == ref.device && r->stream == ref.stream)
        return;
    }
  g_array_append_val (graph->leaf_streams, ref);
}

/* The profiler's range "<prefix><node name>", or 0. */
static guint64
range_begin (GraphTask  *graph,
             const char *prefix,
             TsGradNode *node)
{
  g_autofree char *name = NULL;

  if (graph->ops->range_begin == NULL)
    return 0;
  name = g_strconcat (prefix, node->name, NULL);
  return graph->ops->range_begin (name, node->stream_device, graph->ops_data);
}

static void
range_end (GraphTask *graph,
           guint64    range)
{
  if (graph->ops->range_end != NULL)
    graph->ops->range_end (range, graph->ops_data);
}

/* ------------------------------------------------------------------ */
/* Input buffers */

static gboolean
can_accumulate_inplace (const TsTensor *t,
                        gboolean        exclusive)
{
  return exclusive && t->autograd_meta == NULL && ts_tensor_is_contiguous (t);
}

/* PyTorch's InputBuffer::accumulate: in place into a tensor only the
 * engine holds, unless grad mode is on (create_graph: the sum has a
 * graph); else out of place. */
static gboolean
accumulate (TsTensor  **slot,
            gboolean   *slot_exclusive,
            TsTensor   *var,
            gboolean    exclusive,
            GError    **error)
{
  TsTensor *old = *slot;
  TsTensor *target = NULL, *other = NULL, *sum;

  if (!ts_autograd_is_grad_enabled ())
    {
      if (can_accumulate_inplace (old, *slot_exclusive))
        target = old, other = var;
      else if (can_accumulate_inplace (var, exclusive))
        target = var, other = old;
    }
  if (target != NULL)
    {
      sum = ts_ops_binary (TS_BINARY_ADD, target, other, NULL, FALSE, target, error);
      if (sum == NULL)
        return FALSE;
      ts_tensor_unref (sum);
      ts_autograd_bump_version (target);
      *slot = ts_tensor_ref (target);
    }
  else if ((*slot = ts_autograd_add (old, var, error)) == NULL)
    {
      *slot = old;
      return FALSE;
    }
  ts_tensor_unref (old);
  *slot_exclusive = TRUE;
  return TRUE;
}

/* PyTorch's InputBuffer::add with its stream rules for a CUDA gradient:
 * made on the producer's stream, summed and used on the consumer's; the
 * accumulation stream waits for the other one when they differ. Takes
 * var. */
static gboolean
input_buffer_add (GraphTask   *graph,
                  NodeTask    *task,
                  guint        pos,
                  TsTensor    *var,
                  gboolean     exclusive,
                  int          producer_device,
                  TsStreamId   producer,
                  GError     **error)
{
  int device = -1;
  TsStreamId acc = TS_STREAM_NONE, sync = TS_STREAM_NONE, previous = TS_STREAM_NONE;
  gboolean ok = TRUE;

  if (var == NULL)
    return TRUE;
  if (ts_tensor_is_cuda (var))
    {
      gboolean on_producer, on_consumer;

      device = ts_tensor_get_device (var).index;
      on_producer = producer_device == device && producer != TS_STREAM_NONE;
      on_consumer = task->node->stream_device == device;
      if (on_producer && on_consumer)
        acc = task->node->stream, sync = producer;                    /* (2) */
      else if (on_consumer)
        acc = task->node->stream,
        sync = graph->ops->default_stream (device, graph->ops_data);  /* (3) */
      else if (on_producer)
        acc = graph->ops->default_stream (device, graph->ops_data),
        sync = producer;                                              /* (4) */
      else
        acc = graph->ops->default_stream (device, graph->ops_data);   /* (5) */
      if (sync != TS_STREAM_NONE && sync != acc)
        {
          if (!graph->ops->record_and_wait (device, sync, acc, graph->ops_data, error))
            {
              ts_tensor_unref (var);
              return FALSE;
            }
          ts_storage_record_stream (var->storage, acc);
        }
    }

  if (task->buffer[pos] == NULL)
    {
      task->buffer[pos] = var;
      task->exclusive[pos] = exclusive;
      return TRUE;
    }
  if (!stream_enter (graph, device, acc, &previous, error))
    {
      ts_tensor_unref (var);
      return FALSE;
    }
  ok = accumulate (&task->buffer[pos], &task->exclusive[pos], var, exclusive, error);
  stream_leave (graph, device, previous);
  ts_tensor_unref (var);
  return ok;
}

/* ------------------------------------------------------------------ */
/* Validation of a formula's results (validate_outputs) */

static gboolean
is_expandable_to (const TsGradTensorInfo *info,
                  const TsTensor         *grad)
{
  if (info->ndim > grad->ndim)
    return FALSE;
  for (guint i = 0; i < info->ndim; i++)
    {
      gint64 have = info->shape[info->ndim - 1 - i];
      gint64 want = grad->shape[grad->ndim - 1 - i];

      if (have != want && have != 1)
        return FALSE;
    }
  return TRUE;
}

static gboolean
same_shape (const TsGradTensorInfo *info,
            const TsTensor         *t)
{
  return info->ndim == t->ndim && memcmp (info->shape, t->shape, t->ndim * sizeof (gint64)) == 0;
}

/* Replaces *grad by a gradient of info's shape and dtype, or fails with
 * PyTorch's error. *fresh is set when the result is a new tensor. */
static gboolean
validate_output (TsGradNode              *node,
                 guint                    index,
                 const TsGradTensorInfo  *info,
                 TsTensor               **grad,
                 gboolean                *fresh,
                 GError                 **error)
{
  TsTensor *t = *grad;
  TsTensor *fixed = NULL;

  if (!same_shape (info, t))
    {
      if (!is_expandable_to (info, t))
        {
          g_autofree char *got = ts_shape_to_string (t->ndim, t->shape);
          g_autofree char *want = ts_shape_to_string (info->ndim, info->shape);

          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "Function %s returned an invalid gradient at index %u - got %s but "
                       "expected shape compatible with %s", node->name, index, got, want);
          return FALSE;
        }
      if ((fixed = ts_autograd_sum_to (t, info->ndim, info->shape, error)) == NULL)
        return FALSE;
      ts_tensor_unref (t);
      *grad = t = fixed;
      *fresh = TRUE;
    }
  if (!ts_device_equal (info->device, ts_tensor_get_device (t)))
    {
      g_autofree char *want = ts_device_to_string (info->device);
      g_autofree char *got = ts_device_to_string (ts_tensor_get_device (t));

      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "Function %s returned an invalid gradient at index %u - expected device %s "
                   "but got %s", node->name, index, want, got);
      return FALSE;
    }
  if (info->dtype != t->dtype)
    {
      if ((fixed = ts_ops_to (t, info->device, info->dtype, FALSE, FALSE, error)) == NULL)
        return FALSE;
      ts_tensor_unref (t);
      *grad = fixed;
      *fresh = TRUE;
    }
  return TRUE;
}

/* May a result be stolen or summed into in place? Not when it shares a
 * storage with another result, or with an incoming gradient that someone
 * outside the engine holds. */
static gboolean
result_is_exclusive (NodeTask  *task,
                     TsTensor **results,
                     guint      i)
{
  TsGradNode *node = task->node;

  for (guint j = 0; j < node->n_inputs; j++)
    if (j != i && results[j] != NULL && results[j]->storage == results[i]->storage)
      return FALSE;
  for (guint k = 0; k < node->n_outputs; k++)
    if (task->buffer[k] != NULL && task->buffer[k]->storage == results[i]->storage &&
        !task->exclusive[k])
      return FALSE;
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Running one node (evaluate_function) */

static gboolean
call_tensor_hooks (GPtrArray  *hooks,
                   TsTensor  **grad,
                   gboolean   *exclusive,
                   GError    **error)
{
  for (guint h = 0; hooks != NULL && h < hooks->len && *grad != NULL; h++)
    {
      TsAutogradHook *hook = hooks->pdata[h];
      TsTensor *replacement = NULL;

      if (!((TsTensorHookFn) hook->fn) (*grad, &replacement, hook->user_data, error))
        return FALSE;
      *exclusive = FALSE;   /* the hook may keep what it saw, or what it gave */
      if (replacement != NULL)
        {
          ts_tensor_unref (*grad);
          *grad = replacement;
        }
    }
  return TRUE;
}

/* retain_grad()'s hook: .grad = grad.clone() the first time, then
 * .grad = .grad + grad. */
static gboolean
retain_grad (TsTensor  *tensor,
             TsTensor  *grad,
             GError   **error)
{
  TsAutogradMeta *meta = tensor->autograd_meta;
  TsTensor *value;

  if (meta->grad == NULL)
    value = ts_ops_clone (grad, error);
  else
    value = ts_autograd_add (meta->grad, grad, error);
  if (value == NULL)
    return FALSE;
  g_clear_pointer (&meta->grad, ts_tensor_unref);
  meta->grad = value;
  return TRUE;
}

static gboolean
evaluate (GraphTask  *graph,
          NodeTask   *task,
          GError    **error)
{
  TsGradNode *node = task->node;
  g_autofree TsTensor **results = g_new0 (TsTensor *, MAX (node->n_inputs, 1));
  /* per result: new (made by the check) or held by no one else */
  g_autofree gboolean *fresh = g_new0 (gboolean, MAX (node->n_inputs, 1));
  gboolean any = FALSE, ok = FALSE, shared = FALSE;
  TsStreamId previous = TS_STREAM_NONE;

  for (guint i = 0; node->tensor_pre_hooks != NULL && i < node->n_outputs; i++)
    if (!call_tensor_hooks (node->tensor_pre_hooks[i], &task->buffer[i], &task->exclusive[i],
                            error))
      return FALSE;
  for (guint i = 0; node->retains_grad != NULL && i < node->n_outputs; i++)
    {
      TsTensor *tensor;

      ts_autograd_lock ();
      tensor = node->retains_grad[i] != NULL ? ts_tensor_ref (node->retains_grad[i]) : NULL;
      ts_autograd_unlock ();
      if (tensor != NULL && task->buffer[i] != NULL)
        ok = retain_grad (tensor, task->buffer[i], error);
      else
        ok = TRUE;
      g_clear_pointer (&tensor, ts_tensor_unref);
      if (!ok)
        return FALSE;
    }
  for (guint c = 0; task->captures != NULL && c < task->captures->len; c++)
    {
      Capture *capture = &g_array_index (task->captures, Capture, c);
      TsTensor *grad = task->buffer[capture->input_idx];

      g_clear_pointer (&graph->captured[capture->output_idx], ts_tensor_unref);
      graph->captured[capture->output_idx] = grad != NULL ? ts_tensor_ref (grad) : NULL;
      task->exclusive[capture->input_idx] = FALSE;
      add_leaf_stream (graph, node);
    }
  if (graph->exec_info && !task->needed)
    return TRUE;

  /* The backward runs on the forward's stream. */
  if (!stream_enter (graph, node->stream_device, node->stream, &previous, error))
    return FALSE;

  for (guint h = 0; node->pre_hooks != NULL && h < node->pre_hooks->len; h++)
    {
      TsAutogradHook *hook = node->pre_hooks->pdata[h];

      if (!((TsNodePreHookFn) hook->fn) (node, task->buffer, node->n_outputs, hook->user_data,
                                         error))
        goto out;
      memset (task->exclusive, 0, node->n_outputs * sizeof (gboolean));
    }

  for (guint i = 0; i < node->n_outputs; i++)
    any |= task->buffer[i] != NULL;
  if (!any)
    ;  /* nothing flowed in: nothing flows out */
  else if (ts_grad_node_is_accumulate_grad (node))
    {
      if (!ts_autograd_accumulate_grad (node, task->buffer[0], task->exclusive[0], error))
        goto out;
    }
  else if (node->backward == NULL)
    {
      /* an op whose table entry has no formula yet */
      g_autofree char *op = op_name_of_node (node->name);

      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_NOT_IMPLEMENTED,
                   "the derivative for '%s' is not implemented.", op);
      goto out;
    }
  else
    {
      guint64 range = range_begin (graph, "", node);
      gboolean computed = node->backward (node, task->buffer, node->n_outputs, results,
                                          node->n_inputs, error);

      range_end (graph, range);
      if (!computed || !ts_autograd_anomaly_check (node, results, node->n_inputs, error))
        goto out;
    }

  if (!graph->keep_graph)
    ts_grad_node_release_variables (node);

  for (guint h = 0; node->post_hooks != NULL && h < node->post_hooks->len; h++)
    {
      TsAutogradHook *hook = node->post_hooks->pdata[h];

      if (!((TsNodePostHookFn) hook->fn) (node, results, node->n_inputs, task->buffer,
                                          node->n_outputs, hook->user_data, error))
        goto out;
      /* the hook may keep what it saw */
      memset (task->exclusive, 0, node->n_outputs * sizeof (gboolean));
      shared = TRUE;
    }

  if (node->n_inputs == 0)
    add_leaf_stream (graph, node);

  /* Check every result first, then decide which ones only the engine
   * holds (before any is handed on), then hand them on. */
  for (guint i = 0; i < node->n_inputs; i++)
    {
      TsGradEdge edge = node->next_edges[i];

      if (edge.node == NULL)
        g_clear_pointer (&results[i], ts_tensor_unref);
      else if (results[i] != NULL &&
               !validate_output (node, i, &edge.node->output_info[edge.input_nr], &results[i],
                                 &fresh[i], error))
        goto out;
    }
  for (guint i = 0; i < node->n_inputs; i++)
    fresh[i] = results[i] != NULL && !shared &&
               (fresh[i] || result_is_exclusive (task, results, i));
  for (guint i = 0; i < node->n_inputs; i++)
    {
      TsGradEdge edge = node->next_edges[i];
      NodeTask *next;

      if (edge.node == NULL)
        continue;
      next = task_get (graph, edge.node, FALSE);
      if (!input_buffer_add (graph, next, edge.input_nr, g_steal_pointer (&results[i]),
                             fresh[i], node->stream_device, node->stream, error))
        goto out;
      if (--next->dependencies == 0)
        ready_push (graph, next);
    }
  ok = TRUE;

out:
  for (guint i = 0; i < node->n_inputs; i++)
    g_clear_pointer (&results[i], ts_tensor_unref);
  stream_leave (graph, node->stream_device, previous);
  return ok;
}

/* ------------------------------------------------------------------ */
/* The graph task */

static void
compute_dependencies (GraphTask        *graph,
                      const TsGradEdge *roots,
                      guint             n_roots)
{
  g_autoptr(GPtrArray) stack = g_ptr_array_new ();

  for (guint i = 0; i < n_roots; i++)
    {
      gboolean seen = task_get (graph, roots[i].node, FALSE) != NULL;
      NodeTask *task = task_get (graph, roots[i].node, TRUE);

      task->dependencies++;
      if (!seen)
        g_ptr_array_add (stack, task->node);
    }
  while (stack->len > 0)
    {
      TsGradNode *node = g_ptr_array_steal_index_fast (stack, stack->len - 1);

      for (guint i = 0; i < node->n_inputs; i++)
        {
          TsGradNode *next = node->next_edges[i].node;
          gboolean seen;

          if (next == NULL)
            continue;
          seen = task_get (graph, next, FALSE) != NULL;
          task_get (graph, next, TRUE)->dependencies++;
          if (!seen)
            g_ptr_array_add (stack, next);
        }
    }
}

/* exec_info: a node runs when it is an input's node (backward(inputs=))
 * or leads to one, or to a capture (grad()). Post-order over the graph. */
static void
init_to_execute (GraphTask        *graph,
                 const TsGradEdge *input_edges,
                 guint             n_inputs,
                 gboolean          accumulate)
{
  g_autoptr(GHashTable) done = g_hash_table_new (NULL, NULL);
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (gpointer) * 2);
  GHashTableIter iter;
  gpointer key, value;

  graph->exec_info = TRUE;
  for (guint i = 0; i < n_inputs; i++)
    {
      NodeTask *task = input_edges[i].node != NULL ? task_get (graph, input_edges[i].node, FALSE)
                                                   : NULL;

      if (task == NULL)
        continue;
      if (accumulate)
        task->needed = TRUE;
      else
        {
          Capture capture = { input_edges[i].input_nr, i };

          if (task->captures == NULL)
            task->captures = g_array_new (FALSE, FALSE, sizeof (Capture));
          g_array_append_val (task->captures, capture);
        }
    }

  g_hash_table_iter_init (&iter, graph->tasks);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      gpointer frame[2] = { value, GUINT_TO_POINTER (0) };

      if (g_hash_table_contains (done, value))
        continue;
      g_array_append_val (stack, frame);
      while (stack->len > 0)
        {
          gpointer *top = &g_array_index (stack, gpointer, 2 * (stack->len - 1));
          NodeTask *task = top[0];
          guint child = GPOINTER_TO_UINT (top[1]);

          if (child < task->node->n_inputs)
            {
              TsGradNode *next = task->node->next_edges[child].node;
              NodeTask *next_task;

              top[1] = GUINT_TO_POINTER (child + 1);
              if (next == NULL)
                continue;
              next_task = task_get (graph, next, FALSE);
              if (!g_hash_table_contains (done, next_task))
                {
                  gpointer push[2] = { next_task, GUINT_TO_POINTER (0) };

                  g_hash_table_add (done, next_task);  /* on the stack: a DAG has no cycle */
                  g_array_append_val (stack, push);
                }
              continue;
            }
          /* all children done */
          for (guint i = 0; i < task->node->n_inputs; i++)
            {
              TsGradNode *next = task->node->next_edges[i].node;
              NodeTask *next_task = next != NULL ? task_get (graph, next, FALSE) : NULL;

              if (next_task != NULL && (next_task->needed || next_task->captures != NULL))
                task->needed = TRUE;
            }
          g_hash_table_add (done, task);
          g_array_set_size (stack, stack->len - 1);
        }
    }
}

static void
graph_task_clear (GraphTask *graph)
{
  g_clear_pointer (&graph->tasks, g_hash_table_unref);
  g_clear_pointer (&graph->ready, g_ptr_array_unref);
  g_clear_pointer (&graph->leaf_streams, g_array_unref);
}

static void
edges_clear (TsGradEdge *edges,
             guint       n)
{
  for (guint i = 0; i < n; i++)
    g_clear_pointer (&edges[i].node, ts_grad_node_unref);
  g_free (edges);
}

static char *
size_string (guint         ndim,
             const gint64 *shape)
{
  g_autofree char *s = ts_shape_to_string (ndim, shape);

  return g_strdup_printf ("torch.Size(%s)", s);
}

/* _make_grads and the engine's checks of the roots: each root requires
 * grad, its gradient is given with its shape or implicit (one element). */
static TsTensor **
make_root_grads (TsTensor *const  *roots,
                 guint             n_roots,
                 TsTensor *const  *grads,
                 gboolean         *exclusive,
                 GError          **error)
{
  TsTensor **out = g_new0 (TsTensor *, MAX (n_roots, 1));

  for (guint i = 0; i < n_roots; i++)
    {
      TsTensor *root = roots[i];
      TsTensor *grad = grads != NULL ? grads[i] : NULL;
      TsGradTensorInfo info;

      if (!ts_autograd_requires_grad (root))
        {
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "element %u of tensors does not require grad and does not have a grad_fn",
                       i);
          goto fail;
        }
      if (grad != NULL)
        {
          if (grad->ndim != root->ndim ||
              memcmp (grad->shape, root->shape, root->ndim * sizeof (gint64)) != 0)
            {
              g_autofree char *have = size_string (grad->ndim, grad->shape);
              g_autofree char *want = size_string (root->ndim, root->shape);

              g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "Mismatch in shape: grad_output[%u] has a shape of %s and output[%u] "
                           "has a shape of %s.", i, have, i, want);
              goto fail;
            }
          out[i] = ts_tensor_ref (grad);
          continue;
        }
      if (ts_tensor_numel (root) != 1)
        {
          g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                               "grad can be implicitly created only for scalar outputs");
          goto fail;
        }
      ts_grad_tensor_info_set (&info, root);
      if ((out[i] = ts_autograd_new_filled (&info, 1.0, error)) == NULL)
        goto fail;
    }
  /* The caller (Python) holds every root gradient, given or implicit. */
  memset (exclusive, 0, n_roots * sizeof (gboolean));
  return out;

fail:
  ts_autograd_grads_free (out, n_roots);
  return NULL;
}

/* The input's gradient edge without making an AccumulateGrad
 * (try_get_grad_accumulator): a leaf never used has none. */
static TsGradEdge
try_gradient_edge (TsTensor *tensor)
{
  TsAutogradMeta *meta = tensor->autograd_meta;
  TsGradEdge edge = { NULL, 0 };

  if (meta != NULL && meta->grad_fn != NULL)
    return ts_autograd_gradient_edge (tensor);
  ts_autograd_lock ();
  if (meta != NULL && meta->grad_accumulator != NULL)
    edge.node = ts_grad_node_ref (meta->grad_accumulator);
  ts_autograd_unlock ();
  return edge;
}

/* Engine::execute. captured (grad()) or NULL (backward). */
static gboolean
execute (TsTensor *const  *roots,
         guint             n_roots,
         TsTensor *const  *root_grads_in,
         gboolean          keep_graph,
         gboolean          create_graph,
         TsTensor *const  *inputs,
         guint             n_inputs,
         gboolean          accumulate,
         TsTensor        **captured,
         GError          **error)
{
  GraphTask graph = { 0 };
  g_autofree gboolean *exclusive = g_new0 (gboolean, MAX (n_roots, 1));
  TsTensor **root_grads;
  TsGradEdge *root_edges = NULL, *input_edges = NULL;
  gboolean previous_mode, previous_autocast, ok = FALSE;
  NodeTask *task;

  root_grads = make_root_grads (roots, n_roots, root_grads_in, exclusive, error);
  if (root_grads == NULL)
    return FALSE;

  graph.tasks = g_hash_table_new_full (NULL, NULL, NULL, node_task_free);
  graph.ready = g_ptr_array_new ();
  graph.keep_graph = keep_graph;
  graph.captured = captured;
  graph.leaf_streams = g_array_new (FALSE, FALSE, sizeof (StreamRef));
  graph.ops = ts_autograd_get_stream_ops (&graph.ops_data);

  root_edges = g_new0 (TsGradEdge, MAX (n_roots, 1));
  for (guint i = 0; i < n_roots; i++)
    root_edges[i] = ts_autograd_gradient_edge (roots[i]);
  compute_dependencies (&graph, root_edges, n_roots);

  if (inputs != NULL)
    {
      input_edges = g_new0 (TsGradEdge, MAX (n_inputs, 1));
      for (guint i = 0; i < n_inputs; i++)
        {
          if (accumulate && !ts_autograd_is_leaf (inputs[i]) &&
              !ts_autograd_retain_grad (inputs[i], error))
            goto out;
          input_edges[i] = try_gradient_edge (inputs[i]);
        }
      init_to_execute (&graph, input_edges, n_inputs, accumulate);
    }

  previous_mode = ts_autograd_set_grad_enabled (create_graph);
  /* backward ops run as their formulas call them: PyTorch runs a CUDA
   * graph's backward on the device's engine thread, where autocast (a
   * thread's state) is off */
  previous_autocast = ts_autocast_set_excluded (TRUE);

  /* The graph root: the roots' gradients, made on the caller's current
   * streams, go to the roots' nodes. The pass keeps its own reference to
   * the end, as PyTorch's Python caller holds the tuple of _make_grads
   * (an implicit ones_like(loss) lives through the whole backward). */
  for (guint i = 0; i < n_roots; i++)
    {
      TsTensor *grad = ts_tensor_ref (root_grads[i]);
      int device = ts_tensor_is_cuda (grad) ? ts_tensor_get_device (grad).index : -1;
      TsStreamId producer = device >= 0 ? graph.ops->current_stream (device, graph.ops_data)
                                        : TS_STREAM_NONE;

      task = task_get (&graph, root_edges[i].node, FALSE);
      if (!input_buffer_add (&graph, task, root_edges[i].input_nr, grad, exclusive[i], device,
                             producer, error))
        goto restore;
      if (--task->dependencies == 0)
        ready_push (&graph, task);
    }

  while ((task = ready_pop (&graph)) != NULL)
    {
      guint64 range = range_begin (&graph, "autograd::engine::evaluate_function: ", task->node);
      /* a CUDA node runs on its device's engine thread, with that
       * thread's cuBLAS handles (and so its own workspaces) */
      int engine = ts_cublas_workspace_enter_engine (task->node->stream_device);
      gboolean done;

      /* the engine's own work per node (queue, evaluate_function, the
       * node's C++ around its ops): host time between the node's launches */
      ts_session_charge_host (TS_HOST_COST_AUTOGRAD_NODE, 1);
      done = evaluate (&graph, task, error);

      ts_cublas_workspace_leave_engine (engine);
      range_end (&graph, range);

      /* The node's buffer is spent; the task stays for its count. */
      for (guint i = 0; i < task->node->n_outputs; i++)
        g_clear_pointer (&task->buffer[i], ts_tensor_unref);
      if (!done)
        {
          ts_autograd_anomaly_report (task->node);
          goto restore;
        }
    }

  /* exec_post_processing: the caller's current streams wait for the
   * streams the leaves' gradients were made on. */
  for (guint i = 0; i < graph.leaf_streams->len; i++)
    {
      StreamRef *leaf = &g_array_index (graph.leaf_streams, StreamRef, i);
      TsStreamId caller = graph.ops->current_stream (leaf->device, graph.ops_data);

      if (caller != leaf->stream &&
          !graph.ops->record_and_wait (leaf->device, leaf->stream, caller, graph.ops_data, error))
        goto restore;
    }
  ok = TRUE;

restore:
  ts_autograd_set_grad_enabled (previous_mode);
  ts_autocast_set_excluded (previous_autocast);
out:
  ts_autograd_grads_free (root_grads, n_roots);
  edges_clear (root_edges, n_roots);
  if (input_edges != NULL)
    edges_clear (input_edges, n_inputs);
  graph_task_clear (&graph);
  return ok;
}

gboolean
ts_autograd_backward (TsTensor *const  *tensors,
                      guint             n_tensors,
                      TsTensor *const  *grad_tensors,
                      gboolean          retain_graph,
                      gboolean          create_graph,
                      TsTensor *const  *inputs,
                      guint             n_inputs,
                      GError          **error)
{
  if (inputs != NULL && n_inputs == 0)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "'inputs' argument to backward() cannot be empty.");
      return FALSE;
    }
  return execute (tensors, n_tensors, grad_tensors, retain_graph, create_graph, inputs,
                  n_inputs, TRUE, NULL, error);
}

TsTensor **
ts_autograd_grad (TsTensor *const  *outputs,
                  guint             n_outputs,
                  TsTensor *const  *inputs,
                  guint             n_inputs,
                  TsTensor *const  *grad_outputs,
                  gboolean          retain_graph,
                  gboolean          create_graph,
                  gboolean          allow_unused,
                  gboolean          materialize_grads,
                  GError          **error)
{
  TsTensor **captured;

  for (guint i = 0; i < n_inputs; i++)
    if (!ts_autograd_requires_grad (inputs[i]))
      {
        g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                             "One of the differentiated Tensors does not require grad");
        return NULL;
      }
  captured = g_new0 (TsTensor *, MAX (n_inputs, 1));
  if (!execute (outputs, n_outputs, grad_outputs, retain_graph, create_graph, inputs, n_inputs,
                FALSE, captured, error))
    goto fail;
  for (guint i = 0; i < n_inputs; i++)
    {
      TsGradTensorInfo info;

      if (captured[i] != NULL)
        continue;
      if (materialize_grads)
        {
          ts_grad_tensor_info_set (&info, inputs[i]);
          if ((captured[i] = ts_autograd_new_filled (&info, 0.0, error)) == NULL)
            goto fail;
        }
      else if (!allow_unused)
        {
          g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                               "One of the differentiated Tensors appears to not have been used "
                               "in the graph. Set allow_unused=True if this is the desired "
                               "behavior.");
          goto fail;
        }
    }
  return captured;

fail:
  ts_autograd_grads_free (captured, n_inputs);
  return NULL;
}

void
ts_autograd_grads_free (TsTensor **grads,
                        guint      n)
{
  if (grads == NULL)
    return;
  for (guint i = 0; i < n; i++)
    g_clear_pointer (&grads[i], ts_tensor_unref);
  g_free (grads);
}
