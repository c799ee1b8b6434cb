/* ts-runtime-events.c: the runtime's events
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An event is the runtime's (id, flags, handle) until its first record
 * creates it on the recording stream's device; its record belongs to the
 * device side. Waits between streams go through events, as in PyTorch.
 */

#include "config.h"

#include "ts-runtime-private.h"

static Event *
lookup_event (TsRuntime  *self,
              guint64     id,
              GError    **error)
{
  Event *ev = g_hash_table_lookup (self->events, &id);

  if (ev == NULL)
    g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_EVENT,
                 "Invalid event %" G_GUINT64_FORMAT ": it was freed or never created", id);

  return ev;
}

typedef gboolean (*EventOnStreamFunc) (TsRuntime   *self,
                                       Event       *ev,
                                       TsStreamId   stream,
                                       GError     **error);

/* Runs func under the lock once the event and the stream are known good. */
static gboolean
event_on_stream (TsRuntime          *self,
                 guint64             event,
                 TsStreamId          stream,
                 EventOnStreamFunc   func,
                 GError            **error)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  Event *ev;

  if (!(ev = lookup_event (self, event, error)) || !_ts_runtime_check_stream (self, stream, error))
    return FALSE;

  return func (self, ev, stream, error);
}

guint64
ts_runtime_event_new (TsRuntime    *self,
                      TsEventFlags  flags)
{
  g_autoptr(GMutexLocker) locker = NULL;
  Event *ev;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);

  locker = g_mutex_locker_new (&self->lock);

  ev = g_new0 (Event, 1);
  ev->base.id = ++self->last_event_id;
  ev->base.device = -1;
  ev->base.record = TS_ITEM_NONE;
  ev->flags = flags;
  g_hash_table_insert (self->events, &ev->base.id, ev);

  return ev->base.id;
}

gboolean
ts_runtime_event_free (TsRuntime  *self,
                       guint64     event,
                       GError    **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  Event *ev;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  locker = g_mutex_locker_new (&self->lock);
  if (!(ev = lookup_event (self, event, error)))
    return FALSE;

  self->side.ops->event_release (self->side.impl, &ev->base);
  g_hash_table_remove (self->events, &event);

  return TRUE;
}

static gboolean
event_record_locked (TsRuntime   *self,
                     Event       *ev,
                     TsStreamId   stream,
                     GError     **error)
{
  gboolean ret = FALSE;
  TsSubmit sub;
  int err;
  Call call;

  _ts_runtime_call_begin (self, &call, API_EVENT_RECORD);
  call_set_stream (self, &call, stream);

  if (ev->base.device >= 0 && ev->base.device != call.device)
    {
      g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_EVENT_DEVICE,
                   "Event device %d does not match recording stream's device %d.",
                   ev->base.device, call.device);
      goto out;
    }

  if (ev->handle == 0 &&
      (ev->flags & TS_EVENT_INTERPROCESS) != 0 &&
      (ev->flags & TS_EVENT_TIMING) != 0)
    {
      /* cudaEventCreateWithFlags refuses an interprocess event with timing. */
      g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_CUDA,
                           "CUDA error: invalid argument" CUDA_ERROR_TRAILER);
      goto out;
    }

  if (!_ts_runtime_call_check_fault (self, &call, call.device, error))
    goto out;

  /* Created lazily, on the stream's device, at the first record. */
  if (ev->handle == 0)
    {
      ev->handle = EVENT_HANDLE_BASE + ev->base.id * 0x40;
      ev->base.device = call.device;
    }

  host_charge (self, call.ht, self->profile->api_latency_ns);
  /* During a capture the record is a point of the graph that other
   * streams may join at; nothing runs. */
  ev->capture = stream_capture (self, stream);
  if (ev->capture != NULL)
    {
      ev->capture_from = stream;
      ev->capture_mark = g_array_index (self->streams, Stream, stream).capture_last;
      ret = TRUE;
      goto out;
    }
  sub = call_submission (&call);
  err = self->side.ops->event_record (self->side.impl, &sub, &ev->base, ev->flags);
  ret = _ts_runtime_call_check_result (self, &call, err, error);

out:
  return _ts_runtime_call_finish (self, &call, ret);
}

gboolean
ts_runtime_event_record (TsRuntime   *self,
                         guint64      event,
                         TsStreamId   stream,
                         GError     **error)
{
  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  return event_on_stream (self, event, stream, event_record_locked, error);
}

/* The event a query or a synchronize asks the device side about, under
 * the lock; NULL when there is nothing to ask, with *ok TRUE for an event
 * never recorded (no CUDA event exists yet: it counts as complete) and
 * FALSE, @error set, for an unknown event or one recorded in a capture. */
static Event *
event_to_ask (TsRuntime  *self,
              guint64     event,
              gboolean   *ok,
              GError    **error)
{
  Event *ev = lookup_event (self, event, error);

  *ok = FALSE;
  if (ev == NULL)
    return NULL;
  if (ev->base.record == TS_ITEM_NONE)
    *ok = TRUE;
  else if (ev->capture != NULL)
    *ok = _ts_runtime_capture_refuse (ev->capture, error);
  else
    return ev;
  return NULL;
}

gboolean
ts_runtime_event_query (TsRuntime   *self,
                        guint64      event,
                        gboolean    *done,
                        GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean ret;
  Event *ev;
  int err;
  Call call;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  if (done != NULL)
    *done = FALSE;

  locker = g_mutex_locker_new (&self->lock);
  if (!(ev = event_to_ask (self, event, &ret, error)))
    {
      if (ret && done != NULL)
        *done = TRUE;
      return ret;
    }

  _ts_runtime_call_begin_api (self, &call, API_EVENT_QUERY, ev->base.device, TS_STREAM_NONE);
  err = self->side.ops->event_query (self->side.impl, &ev->base, call.ht->clock);
  ret = _ts_runtime_call_query (self, &call, err, done, error);
  return _ts_runtime_call_finish (self, &call, ret);
}

gboolean
ts_runtime_event_synchronize (TsRuntime   *self,
                              guint64      event,
                              GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean ret;
  TsTime until;
  Event *ev;
  int err;
  Call call;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  locker = g_mutex_locker_new (&self->lock);
  if (!(ev = event_to_ask (self, event, &ret, error)))
    return ret;

  _ts_runtime_call_begin_api (self, &call, API_EVENT_SYNCHRONIZE, ev->base.device, TS_STREAM_NONE);
  err = self->side.ops->event_sync (self->side.impl, &ev->base, &until);
  ret = _ts_runtime_call_blocked (self, &call, TS_SYNC_EVENT, ev->base.id, err, until, error);
  return _ts_runtime_call_finish (self, &call, ret);
}

static gboolean
event_wait_locked (TsRuntime   *self,
                   Event       *ev,
                   TsStreamId   stream,
                   GError     **error)
{
  gboolean ret = FALSE;
  TsSubmit sub;
  int err;
  Call call;

  /* Waiting for an event that was never recorded is a no-op. */
  if (ev->base.record == TS_ITEM_NONE && ev->capture == NULL)
    return TRUE;

  _ts_runtime_call_begin (self, &call, API_STREAM_WAIT_EVENT);
  call_set_stream (self, &call, stream);

  if (_ts_runtime_call_check_fault (self, &call, call.device, error))
    {
      host_charge (self, call.ht, self->profile->api_latency_ns);
      /* A wait for an event recorded during a capture joins the stream
       * to it; a capturing stream's waits are ordered by its graph. */
      if (ev->capture != NULL || stream_capture (self, stream) != NULL)
        {
          if (ev->capture != NULL)
            _ts_runtime_capture_join (self, ev, stream);
          return _ts_runtime_call_finish (self, &call, TRUE);
        }
      sub = call_submission (&call);
      err = self->side.ops->stream_wait_event (self->side.impl, &sub, &ev->base);
      ret = _ts_runtime_call_check_result (self, &call, err, error);
    }

  return _ts_runtime_call_finish (self, &call, ret);
}

gboolean
ts_runtime_event_wait (TsRuntime   *self,
                       guint64      event,
                       TsStreamId   stream,
                       GError     **error)
{
  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  return event_on_stream (self, event, stream, event_wait_locked, error);
}

gboolean
ts_runtime_stream_wait_event (TsRuntime   *self,
                              TsStreamId   stream,
                              guint64      event,
                              GError     **error)
{
  return ts_runtime_event_wait (self, event, stream, error);
}

gboolean
ts_runtime_stream_wait_stream (TsRuntime   *self,
                               TsStreamId   stream,
                               TsStreamId   other,
                               GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean ret;
  Event ev = { 0 };

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  locker = g_mutex_locker_new (&self->lock);
  if (!_ts_runtime_check_stream (self, stream, error) || !_ts_runtime_check_stream (self, other, error))
    return FALSE;

  /* As PyTorch: self.wait_event(other.record_event()), with an event that
   * lives only for this call (the wait keeps the record alive). */
  ev.base.id = ++self->last_event_id;
  ev.base.device = -1;
  ev.base.record = TS_ITEM_NONE;

  ret = event_record_locked (self, &ev, other, error) &&
        event_wait_locked (self, &ev, stream, error);

  self->side.ops->event_release (self->side.impl, &ev.base);

  return ret;
}

gboolean
ts_runtime_event_elapsed_time (TsRuntime   *self,
                               guint64      start,
                               guint64      end,
                               double      *ms,
                               GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean ret = FALSE;
  float value = 0;
  Event *a, *b;
  int err;
  Call call;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  if (ms != NULL)
    *ms = 0;

  locker = g_mutex_locker_new (&self->lock);
  if (!(a = lookup_event (self, start, error)) || !(b = lookup_event (self, end, error)))
    return FALSE;

  /* The checks and their order are PyTorch's CUDAEvent::elapsed_time. */
  if ((a->flags & TS_EVENT_TIMING) == 0 || (b->flags & TS_EVENT_TIMING) == 0)
    {
      g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_EVENT_TIMING,
                           "Both events must be created with argument 'enable_timing=True'.");
      return FALSE;
    }

  if (a->base.record == TS_ITEM_NONE || b->base.record == TS_ITEM_NONE)
    {
      g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_EVENT_NOT_RECORDED,
                           "Both events must be recorded before calculating elapsed time.");
      return FALSE;
    }

  _ts_runtime_call_begin_api (self, &call, API_EVENT_ELAPSED_TIME, a->base.device, TS_STREAM_NONE);
  err = self->side.ops->event_elapsed (self->side.impl, &a->base, &b->base, call.ht->clock, &value);

  if (err == TS_CUDA_ERROR_NOT_READY)
    {
      g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_EVENT_NOT_COMPLETED,
                           "Both events must be completed before calculating elapsed time.");
    }
  else if (err == TS_DEVICE_SIDE_OTHER_DEVICES)
    {
      /* cudaEventElapsedTime on events of two devices. */
      g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_CUDA,
                           "CUDA error: invalid resource handle" CUDA_ERROR_TRAILER);
    }
  else if (_ts_runtime_call_check_result (self, &call, err, error))
    {
      /* cudaEventElapsedTime returns a float. */
      if (ms != NULL)
        *ms = value;
      ret = TRUE;
    }

  return _ts_runtime_call_finish (self, &call, ret);
}

/* A copy of the event, taken under the lock; FALSE when it was freed or
 * never created. */
static gboolean
event_info (TsRuntime *self,
            guint64    event,
            Event     *info)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  Event *ev = g_hash_table_lookup (self->events, &event);

  if (ev == NULL)
    return FALSE;
  *info = *ev;
  return TRUE;
}

gboolean
ts_runtime_event_is_valid (TsRuntime *self,
                           guint64    event)
{
  Event info;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  return event_info (self, event, &info);
}

int
ts_runtime_event_get_device (TsRuntime *self,
                             guint64    event)
{
  Event info;

  g_return_val_if_fail (TS_IS_RUNTIME (self), -1);

  return event_info (self, event, &info) ? info.base.device : -1;
}

guint64
ts_runtime_event_get_handle (TsRuntime *self,
                             guint64    event)
{
  Event info;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);

  return event_info (self, event, &info) ? info.handle : 0;
}

TsEventFlags
ts_runtime_event_get_flags (TsRuntime *self,
                            guint64    event)
{
  Event info;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);

  return event_info (self, event, &info) ? info.flags : 0;
}
