/* ts-autograd-streams.c: the stream operations the engine uses
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * By default, the session's: the calling thread's current and default
 * streams, and cudaEventRecord on the producer + cudaStreamWaitEvent on
 * the consumer through the runtime (what PyTorch's engine does with a
 * c10::Event), and API spans for the profiler's ranges. Only CUDA
 * gradients reach the stream calls, so a CPU-only run never initializes
 * CUDA through autograd (the spans are no-ops before CUDA is).
 */

#include "config.h"

#include "ts-autograd-private.h"
#include "ts-session.h"

static TsStreamId
session_current_stream (int      device,
                        gpointer user_data)
{
  return ts_session_current_stream (device);
}

static TsStreamId
session_default_stream (int      device,
                        gpointer user_data)
{
  TsRuntime *runtime = ts_session_get_runtime ();

  if (runtime == NULL)
    return TS_STREAM_NONE;
  return ts_runtime_get_default_stream (runtime, device, NULL);
}

static gboolean
session_set_current_stream (int          device,
                            TsStreamId   stream,
                            gpointer     user_data,
                            GError     **error)
{
  TsRuntime *runtime = ts_session_get_runtime ();

  return runtime == NULL || ts_runtime_set_current_stream (runtime, stream, error);
}

static gboolean
session_record_and_wait (int          device,
                         TsStreamId   producer,
                         TsStreamId   consumer,
                         gpointer     user_data,
                         GError     **error)
{
  TsRuntime *runtime = ts_session_get_runtime ();
  guint64 event;
  gboolean ok;

  if (runtime == NULL)
    return TRUE;
  event = ts_runtime_event_new (runtime, TS_EVENT_DEFAULT);
  ok = ts_runtime_event_record (runtime, event, producer, error) &&
       ts_runtime_event_wait (runtime, event, consumer, error);
  ts_runtime_event_free (runtime, event, NULL);
  return ok;
}

static guint64
session_range_begin (const char *name,
                     int         device,
                     gpointer    user_data)
{
  return ts_session_api_begin (name, device);
}

static void
session_range_end (guint64  range,
                   gpointer user_data)
{
  ts_session_api_end (range);
}

static const TsAutogradStreamOps session_ops = {
  session_current_stream,
  session_default_stream,
  session_set_current_stream,
  session_record_and_wait,
  session_range_begin,
  session_range_end,
};

static const TsAutogradStreamOps *stream_ops = &session_ops;
static gpointer stream_ops_data;

void
ts_autograd_set_stream_ops (const TsAutogradStreamOps *ops,
                            gpointer                   user_data)
{
  stream_ops = ops != NULL ? ops : &session_ops;
  stream_ops_data = ops != NULL ? user_data : NULL;
}

const TsAutogradStreamOps *
ts_autograd_get_stream_ops (gpointer *user_data)
{
  *user_data = stream_ops_data;
  return stream_ops;
}
