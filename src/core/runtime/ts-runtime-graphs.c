/* ts-runtime-graphs.c: CUDA graphs: stream capture and replay
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A capture is a state of streams: the stream it began on, and every
 * stream that waited on an event recorded during the capture (CUDA's
 * cross-stream join). Work submitted to them keeps its API record but is
 * not run: its descriptor, with its work item's data as it was before any
 * on_start, becomes a node of the graph. A replay is one cudaGraphLaunch
 * on the API row; each node's work is cloned (TsWork.clone) and submitted
 * in capture order on the replay stream, with the same addresses, so the
 * results land where the captured ones would have.
 *
 * Host cost of a replay: launch_latency_ns once, plus GRAPH_NODE_HOST_NS
 * per node (docs/simulation-model.md): the per-kernel launch that eager
 * work pays is what a graph saves.
 */

#include "config.h"

#include "ts-runtime-private.h"

/* [assumed] host work per node of a graph launch, on top of one launch's
 * latency: the driver submits a prepared graph's kernels in a batch. */
#define GRAPH_NODE_HOST_NS 40

typedef struct
{
  NodeKind    kind;
  TsStringId  name;
  union
  {
    TsKernelDesc kernel;
    TsCopyDesc   copy;
    TsMemsetDesc memset;
  } desc;
} Node;

struct _TsGraph
{
  GArray     *nodes;          /* Node */
  TsStreamId  origin;         /* the stream the capture began on */
  guint64     capture_id;
  gboolean    invalidated;    /* a capture rule was broken */
  char       *invalid_reason;
};

static TsWork *
node_work (Node *node)
{
  switch (node->kind)
    {
    case NODE_KERNEL:
      return &node->desc.kernel.work;
    case NODE_COPY:
      return &node->desc.copy.work;
    case NODE_MEMSET:
    default:
      return &node->desc.memset.work;
    }
}

static void
node_clear (gpointer data)
{
  TsWork *work = node_work (data);

  if (work->destroy != NULL)
    work->destroy (work->data);
}

static TsGraph *
graph_new (TsStreamId origin)
{
  TsGraph *graph = g_new0 (TsGraph, 1);

  graph->nodes = g_array_new (FALSE, TRUE, sizeof (Node));
  g_array_set_clear_func (graph->nodes, node_clear);
  graph->origin = origin;
  return graph;
}

static void
graph_free (TsGraph *graph)
{
  g_array_unref (graph->nodes);
  g_free (graph->invalid_reason);
  g_free (graph);
}

static gboolean
set_capture_error (GError     **error,
                   const char  *message)
{
  g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_CAPTURE, message);
  return FALSE;
}

gboolean
_ts_runtime_capture_work (TsRuntime      *self,
                          Call           *call,
                          NodeKind        kind,
                          gconstpointer   desc,
                          TsStringId      name,
                          GError        **error)
{
  TsGraph *graph = stream_capture (self, call->stream);
  Node node = { 0 };
  TsWork *work;

  node.kind = kind;
  node.name = name;
  switch (kind)
    {
    case NODE_KERNEL:
      node.desc.kernel = *(const TsKernelDesc *) desc;
      node.desc.kernel.name = NULL;
      node.desc.kernel.name_id = name;
      break;
    case NODE_COPY:
      node.desc.copy = *(const TsCopyDesc *) desc;
      break;
    case NODE_MEMSET:
    default:
      node.desc.memset = *(const TsMemsetDesc *) desc;
      break;
    }

  work = node_work (&node);
  if (work->data != NULL && work->clone == NULL)
    {
      /* work that cannot be run twice cannot be replayed */
      node_clear (&node);
      graph->invalidated = TRUE;
      return set_capture_error (error,
                                "Tensorscope cannot capture this work into a CUDA graph: "
                                "its work item has no clone function (TsWork.clone)");
    }
  g_array_append_val (graph->nodes, node);
  g_array_index (self->streams, Stream, call->stream).capture_last = graph->nodes->len;
  return TRUE;
}

void
_ts_runtime_capture_join (TsRuntime  *self,
                          Event      *ev,
                          TsStreamId  stream)
{
  Stream *from = &g_array_index (self->streams, Stream, ev->capture_from);

  g_array_index (self->streams, Stream, stream).capture = ev->capture;
  if (ev->capture_from != stream)
    from->capture_joined = MAX (from->capture_joined, ev->capture_mark);
}

gboolean
_ts_runtime_capture_refuse (TsGraph  *graph,
                            GError  **error)
{
  if (graph != NULL)
    graph->invalidated = TRUE;
  return set_capture_error (error, CAPTURE_NOT_PERMITTED);
}

gboolean
_ts_runtime_check_not_capturing (TsRuntime  *self,
                                 TsStreamId  stream,
                                 int         device,
                                 GError    **error)
{
  gboolean capturing = FALSE;

  if (stream != TS_STREAM_NONE)
    return stream_capture (self, stream) == NULL ||
           _ts_runtime_capture_refuse (stream_capture (self, stream), error);

  for (guint i = 0; i < self->streams->len; i++)
    {
      Stream *s = &g_array_index (self->streams, Stream, i);

      if (s->capture != NULL && (device < 0 || s->device == (guint) device))
        {
          s->capture->invalidated = TRUE;
          capturing = TRUE;
        }
    }
  return !capturing || _ts_runtime_capture_refuse (NULL, error);
}

gboolean
ts_runtime_capture_begin (TsRuntime   *self,
                          TsStreamId   stream,
                          GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  Stream *s;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  locker = g_mutex_locker_new (&self->lock);
  if (!_ts_runtime_check_stream (self, stream, error))
    return FALSE;

  s = &g_array_index (self->streams, Stream, stream);
  if (s->handle == 0)
    return set_capture_error (error,
                              "CUDA graphs must be captured on a non-default stream. "
                              "(However, after capture, it's ok to replay them on the default stream.)");
  if (s->capture != NULL)
    return set_capture_error (error, "CUDA error: operation not permitted when stream is capturing"
                                     CUDA_ERROR_TRAILER);

  s->capture = graph_new (stream);
  s->capture->capture_id = ++self->last_capture_id;
  return TRUE;
}

TsGraph *
ts_runtime_capture_end (TsRuntime   *self,
                        TsStreamId   stream,
                        GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean unjoined = FALSE;
  TsGraph *graph;

  g_return_val_if_fail (TS_IS_RUNTIME (self), NULL);

  locker = g_mutex_locker_new (&self->lock);
  if (!_ts_runtime_check_stream (self, stream, error))
    return NULL;

  graph = stream_capture (self, stream);
  if (graph == NULL || graph->origin != stream)
    {
      set_capture_error (error, "CUDA error: illegal state" CUDA_ERROR_TRAILER);
      return NULL;
    }

  /* every stream that joined leaves the capture with it; CUDA refuses
   * the capture if one has work the origin never waited for */
  for (guint i = 0; i < self->streams->len; i++)
    {
      Stream *s = &g_array_index (self->streams, Stream, i);

      if (s->capture != graph)
        continue;
      if (i != stream && s->capture_last > s->capture_joined)
        unjoined = TRUE;
      s->capture = NULL;
      s->capture_last = s->capture_joined = 0;
    }
  {
    GHashTableIter iter;
    gpointer value;

    g_hash_table_iter_init (&iter, self->events);
    while (g_hash_table_iter_next (&iter, NULL, &value))
      if (((Event *) value)->capture == graph)
        ((Event *) value)->capture = NULL;
  }

  if (unjoined && !graph->invalidated)
    {
      graph_free (graph);
      set_capture_error (error, "CUDA error: capturing stream has unjoined work" CUDA_ERROR_TRAILER);
      return NULL;
    }
  if (graph->invalidated)
    {
      graph_free (graph);
      set_capture_error (error, "CUDA error: operation failed due to a previous error during capture"
                                CUDA_ERROR_TRAILER);
      return NULL;
    }
  return graph;
}

gboolean
ts_runtime_stream_is_capturing (TsRuntime  *self,
                                TsStreamId  stream)
{
  return ts_runtime_stream_get_capture_id (self, stream) != 0;
}

guint64
ts_runtime_stream_get_capture_id (TsRuntime  *self,
                                  TsStreamId  stream)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);

  locker = g_mutex_locker_new (&self->lock);
  if (stream >= self->streams->len || stream_capture (self, stream) == NULL)
    return 0;
  return stream_capture (self, stream)->capture_id;
}

guint
ts_runtime_graph_get_n_nodes (TsGraph *graph)
{
  return graph->nodes->len;
}

/* Submits a fresh copy of the node's work on the call's stream. */
static int
submit_node (TsRuntime  *self,
             Call       *call,
             Node       *node)
{
  TsSubmit sub = call_submission (call);
  const TsWork *pristine = node_work (node);
  TsWork work = *pristine;
  guint32 item;

  if (pristine->data != NULL)
    work.data = pristine->clone (pristine->data);

  switch (node->kind)
    {
    case NODE_KERNEL:
      {
        TsKernelDesc desc = node->desc.kernel;

        desc.work = work;
        return self->side.ops->launch (self->side.impl, &sub, &desc, node->name, &item);
      }
    case NODE_COPY:
      {
        TsCopyDesc desc = node->desc.copy;

        desc.work = work;
        desc.stream = call->stream;
        return self->side.ops->copy (self->side.impl, &sub, &desc, &item);
      }
    case NODE_MEMSET:
    default:
      {
        TsMemsetDesc desc = node->desc.memset;

        desc.work = work;
        desc.stream = call->stream;
        return self->side.ops->fill (self->side.impl, &sub, &desc, &item);
      }
    }
}

gboolean
ts_runtime_graph_launch (TsRuntime   *self,
                         TsGraph     *graph,
                         TsStreamId   stream,
                         GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean ok;
  int err = 0;
  Call call;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);
  g_return_val_if_fail (graph != NULL, FALSE);

  locker = g_mutex_locker_new (&self->lock);
  if (!_ts_runtime_check_stream (self, stream, error))
    return FALSE;
  if (stream_capture (self, stream) != NULL)
    return set_capture_error (error, "Tensorscope does not model launching a CUDA graph "
                                     "into another capture (child graph nodes)");

  _ts_runtime_call_begin (self, &call, API_LAUNCH_KERNEL);
  call.name = ts_recorder_intern (self->recorder, "cudaGraphLaunch");
  call_set_stream (self, &call, stream);
  if (!_ts_runtime_call_check_fault (self, &call, call.device, error))
    return _ts_runtime_call_finish (self, &call, FALSE);

  host_charge (self, call.ht, self->profile->launch_latency_ns +
                              (TsTime) graph->nodes->len * GRAPH_NODE_HOST_NS);
  for (guint i = 0; i < graph->nodes->len && err == 0; i++)
    err = submit_node (self, &call, &g_array_index (graph->nodes, Node, i));

  ok = _ts_runtime_call_check_result (self, &call, err, error);
  return _ts_runtime_call_finish (self, &call, ok);
}

void
ts_runtime_graph_free (TsRuntime *self,
                       TsGraph   *graph)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_if_fail (TS_IS_RUNTIME (self));

  if (graph == NULL)
    return;
  locker = g_mutex_locker_new (&self->lock);
  graph_free (graph);
}
