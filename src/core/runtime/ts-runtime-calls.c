/* ts-runtime-calls.c: what every runtime call does
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each public call takes the lock, finds the calling thread's state, lets
 * the device side catch up with that thread's clock, does its work,
 * charges its modelled host cost and ends with an API record [start, end)
 * at the thread's call site. Blocking calls also record the span they
 * blocked. Faults of a device surface at the calls that find them. API
 * spans of higher layers ("aten::add") give the calls inside them their
 * correlation id.
 */

#include "config.h"

#include "ts-runtime-private.h"

__thread ThreadCache _ts_runtime_tls;

/* ---------------------------------------------------------------- threads */

void
_ts_runtime_host_thread_free (gpointer data)
{
  HostThread *ht = data;

  g_thread_unref (ht->thread);
  g_free (ht->current);
  g_array_unref (ht->spans);
  g_array_unref (ht->nvtx);
  g_free (ht);
}

/* host_thread() when the calling thread used another runtime last, or
 * none: finds its state, or makes it. */
HostThread *
_ts_runtime_host_thread_lookup (TsRuntime *self)
{
  GThread *thread = g_thread_self ();
  HostThread *ht = g_hash_table_lookup (self->threads, thread);

  if (ht == NULL)
    {
      g_autofree char *name = NULL;
      TsThreadRecord rec;

      ht = g_new0 (HostThread, 1);
      ht->id = self->n_threads++;
      ht->thread = g_thread_ref (thread);
      /* A new thread starts when it first calls in; its clock cannot be
       * behind what the other threads have already done. */
      ht->clock = self->max_host_time;
      ht->current = g_new (TsStreamId, MAX (self->n_devices, 1));
      for (guint i = 0; i < self->n_devices; i++)
        ht->current[i] = i;
      ht->spans = g_array_new (FALSE, FALSE, sizeof (Span));
      ht->nvtx = g_array_new (FALSE, FALSE, sizeof (TsStringId));
      g_hash_table_insert (self->threads, thread, ht);

      name = ht->id == 0 ? g_strdup ("MainThread") : g_strdup_printf ("Thread-%u", ht->id);
      rec = (TsThreadRecord) {
        .thread = ht->id,
        .name = ts_recorder_intern (self->recorder, name),
      };
      TS_RECORDER_APPEND (self->recorder, TS_RECORD_THREAD, TsThreadRecord, &rec);
    }

  _ts_runtime_tls.serial = self->serial;
  _ts_runtime_tls.ht = ht;
  host_read_clock (self, ht);

  return ht;
}

/* ---------------------------------------------------------------- calls */

static guint64
next_correlation (TsRuntime *self)
{
  return ++self->last_correlation;
}

void
_ts_runtime_call_begin (TsRuntime *self,
                        Call      *call,
                        guint      api)
{
  HostThread *ht = host_thread (self);

  call->ht = ht;
  call->name = self->api_ids[api];
  call->start = ht->clock;
  call->device = -1;
  call->stream = TS_STREAM_NONE;
  call->loc = ts_callsite_get ();

  /* Inside a higher layer's span ("aten::add") the call and its work share
   * the span's correlation id. */
  if (ht->spans->len > 0)
    call->correlation = g_array_index (ht->spans, Span, ht->spans->len - 1).correlation;
  else
    call->correlation = next_correlation (self);

  /* The device catches up with the host before the host acts. */
  self->side.ops->catch_up (self->side.impl, ht->clock);
}

/* A runtime API call on @device, or on @stream when it is not
 * TS_STREAM_NONE, that costs api_latency_ns of host time. */
void
_ts_runtime_call_begin_api (TsRuntime  *self,
                            Call       *call,
                            guint       api,
                            int         device,
                            TsStreamId  stream)
{
  _ts_runtime_call_begin (self, call, api);
  if (stream != TS_STREAM_NONE)
    call_set_stream (self, call, stream);
  else
    call->device = device;
  host_charge (self, call->ht, self->profile->api_latency_ns);
}

/* The call's API record, as it ends now. */
static inline void
call_record (TsRuntime       *self,
             Call            *call,
             TsApiCallRecord *rec)
{
  host_read_clock (self, call->ht);
  *rec = (TsApiCallRecord) {
    .start = call->start,
    .end = call->ht->clock,
    .correlation = call->correlation,
    .thread = call->ht->id,
    .name = call->name,
    .loc = call->loc,
    .device = call->device,
    .stream = call->stream,
  };
  self->max_host_time = MAX (self->max_host_time, call->ht->clock);
}

/* call_end without the append: the caller appends *rec. */
void
_ts_runtime_call_end_deferred (TsRuntime       *self,
                               Call            *call,
                               TsApiCallRecord *rec)
{
  call_record (self, call, rec);
}

/* Ends the call and passes its result on:
 * return _ts_runtime_call_finish (self, &call, ok). */
gboolean
_ts_runtime_call_finish (TsRuntime *self,
                         Call      *call,
                         gboolean   ok)
{
  _ts_runtime_call_end (self, call);
  return ok;
}

void
_ts_runtime_call_end (TsRuntime *self,
                      Call      *call)
{
  TsApiCallRecord rec;

  call_record (self, call, &rec);
  TS_RECORDER_APPEND (self->recorder, TS_RECORD_API_CALL, TsApiCallRecord, &rec);
}

/* Reports a device's sticky fault, if any, at this call. The first time it
 * surfaces, an error record links the faulting launch to this call. */
gboolean
_ts_runtime_call_check_fault (TsRuntime  *self,
                              Call       *call,
                              guint       device,
                              GError    **error)
{
  const TsFault *fault = self->side.ops->get_fault (self->side.impl, device);
  g_autofree char *message = NULL;

  if (G_LIKELY (fault == NULL))
    return TRUE;

  /* PyTorch leaves out the "asynchronously reported" note when launches
   * are blocking: the stack is then the right one. */
  message = g_strdup_printf ("CUDA error: %s%s" CUDA_DSA_TRAILER,
                             ts_device_error_to_string (fault->code),
                             self->launch_blocking ? "" : CUDA_ERROR_TRAILER);

  if (!self->fault_surfaced[device])
    {
      TsErrorRecord rec = {
        .time = call->ht->clock,
        .kernel_correlation = fault->correlation,
        .surfaced_correlation = call->correlation,
        .device = device,
        .stream = fault->stream,
        .code = fault->code,
        .message = ts_recorder_intern (self->recorder, message),
        .launch_loc = fault->loc,
        .surfaced_loc = call->loc,
      };

      TS_RECORDER_APPEND (self->recorder, TS_RECORD_ERROR, TsErrorRecord, &rec);
      self->fault_surfaced[device] = TRUE;
    }

  g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_DEVICE_FAULT, message);
  return FALSE;
}

/* _ts_runtime_call_check_result for an error: a sticky one becomes the
 * device's fault, reported here, as CUDA returns it from the call that
 * finds it, and by every later call_check_fault; any other is a CUDA
 * error. */
gboolean
_ts_runtime_call_check_error (TsRuntime  *self,
                              Call       *call,
                              int         err,
                              GError    **error)
{
  if (self->side.ops->take_error (self->side.impl, call->device, err, call->correlation))
    return _ts_runtime_call_check_fault (self, call, call->device, error);
  g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_CUDA, "CUDA error: %s%s" CUDA_DSA_TRAILER,
               self->side.ops->error_string (self->side.impl, err),
               self->launch_blocking ? "" : CUDA_ERROR_TRAILER);
  return FALSE;
}

/* A query's answer err (cudaErrorNotReady: still busy) into *done. */
gboolean
_ts_runtime_call_query (TsRuntime  *self,
                        Call       *call,
                        int         err,
                        gboolean   *done,
                        GError    **error)
{
  if (!_ts_runtime_call_check_result (self, call, err, error) ||
      !_ts_runtime_call_check_fault (self, call, call->device, error))
    return FALSE;
  if (done != NULL)
    *done = err != TS_CUDA_ERROR_NOT_READY;
  return TRUE;
}

/* A blocking call once the wait is over (err is its result, until when it
 * ended): the calling thread was blocked until then, if later; records the
 * span and reports any error. */
gboolean
_ts_runtime_call_blocked (TsRuntime  *self,
                          Call       *call,
                          TsSyncKind  kind,
                          guint64     event,
                          int         err,
                          TsTime      until,
                          GError    **error)
{
  TsTime begin = call->ht->clock;
  TsSyncRecord rec = {
    .start = begin,
    .end = MAX (begin, until),
    .correlation = call->correlation,
    .thread = call->ht->id,
    .kind = kind,
    .device = call->device,
    .stream = call->stream,
    .event = event,
  };

  TS_RECORDER_APPEND (self->recorder, TS_RECORD_SYNC, TsSyncRecord, &rec);
  host_spend (self, call->ht, rec.end - begin);

  return _ts_runtime_call_check_result (self, call, err, error) &&
         _ts_runtime_call_check_fault (self, call, call->device, error);
}

/* ---------------------------------------------------------------- checks */

gboolean
_ts_runtime_check_device (TsRuntime   *self,
                          HostThread  *ht,
                          int         *device,
                          GError     **error)
{
  if (self->n_devices == 0)
    {
      g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_NO_DEVICE,
                           "No CUDA GPUs are available");
      return FALSE;
    }

  if (*device == -1)
    *device = ht->device;

  if (*device < 0 || (guint) *device >= self->n_devices)
    {
      g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_DEVICE,
                           "CUDA error: invalid device ordinal" CUDA_ERROR_TRAILER);
      return FALSE;
    }

  return TRUE;
}

gboolean
_ts_runtime_check_stream (TsRuntime   *self,
                          TsStreamId   stream,
                          GError     **error)
{
  if (stream >= self->streams->len)
    {
      if (stream == TS_STREAM_NONE)
        g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_STREAM,
                             "No stream given");
      else
        g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_STREAM,
                     "Invalid stream %u: the runtime has no such stream", stream);
      return FALSE;
    }

  return TRUE;
}

/* ---------------------------------------------------------------- spans */

/* ts_runtime_api_begin with the lock held and the name interned. */
guint64
_ts_runtime_api_begin_locked (TsRuntime  *self,
                              TsStringId  name,
                              int         device,
                              TsStreamId  stream)
{
  HostThread *ht = host_thread (self);
  Span span;

  span = (Span) {
    .correlation = next_correlation (self),
    .name = name,
    .start = ht->clock,
    .device = device,
    .stream = stream,
    .loc = ts_callsite_get (),
  };
  g_array_append_val (ht->spans, span);

  return span.correlation;
}

guint64
ts_runtime_api_begin (TsRuntime  *self,
                      const char *name,
                      int         device,
                      TsStreamId  stream)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);
  g_return_val_if_fail (name != NULL, 0);

  locker = g_mutex_locker_new (&self->lock);
  return _ts_runtime_api_begin_locked (self, ts_recorder_intern (self->recorder, name), device, stream);
}

/* ts_runtime_api_end with the lock held. A first record (the API record of
 * the span's last call), if given, goes in with the span's, under one
 * recorder lock. */
void
_ts_runtime_api_end_locked (TsRuntime             *self,
                            guint64                correlation,
                            const TsApiCallRecord *first)
{
  HostThread *ht = host_thread (self);
  Span span;
  TsApiCallRecord rec;
  TsApiCallRecord pair[2];

  g_return_if_fail (ht->spans->len > 0);
  span = g_array_index (ht->spans, Span, ht->spans->len - 1);
  g_return_if_fail (span.correlation == correlation);
  g_array_set_size (ht->spans, ht->spans->len - 1);

  rec = (TsApiCallRecord) {
    .start = span.start,
    .end = ht->clock,
    .correlation = span.correlation,
    .thread = ht->id,
    .name = span.name,
    .loc = span.loc,
    .device = span.device,
    .stream = span.stream,
  };
  if (first != NULL)
    {
      pair[0] = *first;
      pair[1] = rec;
      ts_recorder_append_many (self->recorder, TS_RECORD_API_CALL, pair, 2);
    }
  else
    TS_RECORDER_APPEND (self->recorder, TS_RECORD_API_CALL, TsApiCallRecord, &rec);
}

void
ts_runtime_api_end (TsRuntime *self,
                    guint64    correlation)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_if_fail (TS_IS_RUNTIME (self));

  locker = g_mutex_locker_new (&self->lock);
  _ts_runtime_api_end_locked (self, correlation, NULL);
}
