/* ts-runtime-streams.c: the runtime's streams
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A device's default stream is stream d; torch.cuda.Stream() takes one of
 * the device's pool, as PyTorch does. The device side has its own half of
 * each stream (a queue in virtual time, or a cudaStream_t).
 */

#include "config.h"

#include "ts-runtime-private.h"

/* A stream of the device side, with the handle torch shows as cuda_stream
 * (a real GPU's own handle). */
TsStreamId
_ts_runtime_add_stream (TsRuntime  *self,
                        guint       device,
                        int         priority,
                        gboolean    is_default,
                        GError    **error)
{
  TsStreamId id = self->streams->len;
  Stream stream = {
    .device = device,
    .priority = priority,
    .handle = is_default ? 0 : STREAM_HANDLE_BASE + (guint64) id * 0x200,
  };
  TsStreamRecord rec;

  if (!self->side.ops->add_stream (self->side.impl, id, device, priority, is_default,
                                   &stream.handle, error))
    return TS_STREAM_NONE;
  g_array_append_val (self->streams, stream);

  rec = (TsStreamRecord) {
    .stream = id,
    .device = device,
    .priority = priority,
    .is_default = is_default,
    .handle = stream.handle,
  };
  TS_RECORDER_APPEND (self->recorder, TS_RECORD_STREAM, TsStreamRecord, &rec);

  return id;
}

TsStreamId
ts_runtime_get_default_stream (TsRuntime  *self,
                               int         device,
                               GError    **error)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), TS_STREAM_NONE);

  locker = g_mutex_locker_new (&self->lock);
  if (!_ts_runtime_check_device (self, host_thread (self), &device, error))
    return TS_STREAM_NONE;

  return (TsStreamId) device;
}

TsStreamId
ts_runtime_stream_new (TsRuntime  *self,
                       int         device,
                       int         priority,
                       GError    **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  int least, greatest;
  guint level;
  guint slot;
  TsStreamId *entry;

  g_return_val_if_fail (TS_IS_RUNTIME (self), TS_STREAM_NONE);

  locker = g_mutex_locker_new (&self->lock);
  if (!_ts_runtime_check_device (self, host_thread (self), &device, error))
    return TS_STREAM_NONE;

  if (priority > 0)
    {
      g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_ARGUMENT,
                   "Expected cuda stream priority to be less than or equal to 0, got %d",
                   priority);
      return TS_STREAM_NONE;
    }

  /* PyTorch picks the pool by level (-priority, capped at its four levels)
   * and the device clamps the priority to what it supports. */
  ts_gpu_profile_get_torch_priority_range (self->profile, &least, &greatest);
  level = (guint) MIN (-(gint64) priority, POOL_LEVELS - 1);
  slot = self->pool_next[device * POOL_LEVELS + level]++ % POOL_SIZE;
  entry = &self->pool[(device * POOL_LEVELS + level) * POOL_SIZE + slot];

  if (*entry == TS_STREAM_NONE)
    *entry = _ts_runtime_add_stream (self, (guint) device, MAX (-(int) level, greatest), FALSE, error);

  return *entry;
}

TsStreamId
ts_runtime_get_current_stream (TsRuntime  *self,
                               int         device,
                               GError    **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  HostThread *ht;

  /* A thread's current streams change only on that thread: once it is
   * known here they read without the lock, and without the type check,
   * which the slow path still makes (every op asks). */
  if (G_LIKELY (self != NULL && _ts_runtime_tls.serial == self->serial))
    ht = _ts_runtime_tls.ht;
  else
    {
      g_return_val_if_fail (TS_IS_RUNTIME (self), TS_STREAM_NONE);
      locker = g_mutex_locker_new (&self->lock);
      ht = host_thread (self);
    }
  if (!_ts_runtime_check_device (self, ht, &device, error))
    return TS_STREAM_NONE;

  return ht->current[device];
}

gboolean
ts_runtime_set_current_stream (TsRuntime   *self,
                               TsStreamId   stream,
                               GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  locker = g_mutex_locker_new (&self->lock);
  if (!_ts_runtime_check_stream (self, stream, error))
    return FALSE;

  host_thread (self)->current[stream_device (self, stream)] = stream;
  return TRUE;
}

/* A copy of the stream's bookkeeping, taken under the lock; FALSE when the
 * runtime has no such stream. */
static gboolean
stream_info (TsRuntime  *self,
             TsStreamId  stream,
             Stream     *info)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);

  if (stream >= self->streams->len)
    return FALSE;
  *info = g_array_index (self->streams, Stream, stream);
  return TRUE;
}

gboolean
ts_runtime_stream_is_valid (TsRuntime  *self,
                            TsStreamId  stream)
{
  Stream info;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  return stream_info (self, stream, &info);
}

int
ts_runtime_stream_get_device (TsRuntime  *self,
                              TsStreamId  stream)
{
  Stream info;

  g_return_val_if_fail (TS_IS_RUNTIME (self), -1);

  return stream_info (self, stream, &info) ? (int) info.device : -1;
}

int
ts_runtime_stream_get_priority (TsRuntime  *self,
                                TsStreamId  stream)
{
  Stream info;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);

  return stream_info (self, stream, &info) ? info.priority : 0;
}

guint64
ts_runtime_stream_get_handle (TsRuntime  *self,
                              TsStreamId  stream)
{
  Stream info;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);

  return stream_info (self, stream, &info) ? info.handle : 0;
}

gboolean
ts_runtime_stream_query (TsRuntime   *self,
                         TsStreamId   stream,
                         gboolean    *done,
                         GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean ret;
  int err;
  Call call;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  if (done != NULL)
    *done = FALSE;

  locker = g_mutex_locker_new (&self->lock);
  if (!_ts_runtime_check_stream (self, stream, error) ||
      !_ts_runtime_check_not_capturing (self, stream, -1, error))
    return FALSE;

  _ts_runtime_call_begin_api (self, &call, API_STREAM_QUERY, -1, stream);
  err = self->side.ops->stream_query (self->side.impl, stream, call.ht->clock);
  ret = _ts_runtime_call_query (self, &call, err, done, error);
  return _ts_runtime_call_finish (self, &call, ret);
}

gboolean
ts_runtime_stream_synchronize (TsRuntime   *self,
                               TsStreamId   stream,
                               GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean ret;
  TsTime until;
  int err;
  Call call;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  locker = g_mutex_locker_new (&self->lock);
  if (!_ts_runtime_check_stream (self, stream, error) ||
      !_ts_runtime_check_not_capturing (self, stream, -1, error))
    return FALSE;

  _ts_runtime_call_begin_api (self, &call, API_STREAM_SYNCHRONIZE, -1, stream);
  err = self->side.ops->stream_sync (self->side.impl, stream, &until);
  ret = _ts_runtime_call_blocked (self, &call, TS_SYNC_STREAM, 0, err, until, error);
  return _ts_runtime_call_finish (self, &call, ret);
}
