/* ts-runtime-nvtx.c: NVTX marks and ranges
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * NVTX costs no host time and makes no API record. Ranges pushed on a
 * thread nest on that thread; started ranges may end on any thread. Each
 * also goes to the real NVTX (ts-nvtx-forward.h) where there is one.
 */

#include "config.h"

#include "ts-nvtx-forward.h"
#include "ts-runtime-private.h"

static void
nvtx_append (TsRuntime  *self,
             HostThread *ht,
             TsNvtxKind  kind,
             TsStringId  message,
             int         depth,
             guint64     range_id)
{
  TsNvtxRecord rec = {
    .time = ht->clock,
    .range_id = range_id,
    .thread = ht->id,
    .kind = kind,
    .message = message,
    .depth = depth,
    .loc = ts_callsite_get (),
  };

  TS_RECORDER_APPEND (self->recorder, TS_RECORD_NVTX, TsNvtxRecord, &rec);
}

void
ts_runtime_nvtx_mark (TsRuntime  *self,
                      const char *message)
{
  g_autoptr(GMutexLocker) locker = NULL;
  HostThread *ht;

  g_return_if_fail (TS_IS_RUNTIME (self));

  locker = g_mutex_locker_new (&self->lock);
  ht = host_thread (self);
  nvtx_append (self, ht, TS_NVTX_MARK, ts_recorder_intern (self->recorder, message),
               (int) ht->nvtx->len, 0);
  ts_nvtx_forward_mark (message);
}

int
ts_runtime_nvtx_range_push (TsRuntime  *self,
                            const char *message)
{
  g_autoptr(GMutexLocker) locker = NULL;
  HostThread *ht;
  TsStringId id;
  int depth;

  g_return_val_if_fail (TS_IS_RUNTIME (self), -1);

  locker = g_mutex_locker_new (&self->lock);
  ht = host_thread (self);
  id = ts_recorder_intern (self->recorder, message);
  depth = (int) ht->nvtx->len;
  g_array_append_val (ht->nvtx, id);
  nvtx_append (self, ht, TS_NVTX_PUSH, id, depth, 0);
  ts_nvtx_forward_range_push (message);

  return depth;
}

int
ts_runtime_nvtx_range_pop (TsRuntime *self)
{
  g_autoptr(GMutexLocker) locker = NULL;
  HostThread *ht;
  TsStringId id;
  int depth;

  g_return_val_if_fail (TS_IS_RUNTIME (self), -1);

  locker = g_mutex_locker_new (&self->lock);
  ht = host_thread (self);
  if (ht->nvtx->len == 0)
    return -1;

  depth = (int) ht->nvtx->len - 1;
  id = g_array_index (ht->nvtx, TsStringId, depth);
  g_array_set_size (ht->nvtx, depth);
  nvtx_append (self, ht, TS_NVTX_POP, id, depth, 0);
  ts_nvtx_forward_range_pop ();

  return depth;
}

guint64
ts_runtime_nvtx_range_start (TsRuntime  *self,
                             const char *message)
{
  g_autoptr(GMutexLocker) locker = NULL;
  guint64 range_id;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);

  locker = g_mutex_locker_new (&self->lock);
  range_id = ++self->last_range_id;
  nvtx_append (self, host_thread (self), TS_NVTX_RANGE_START,
               ts_recorder_intern (self->recorder, message), 0, range_id);
  ts_nvtx_forward_range_start (range_id, message);

  return range_id;
}

void
ts_runtime_nvtx_range_end (TsRuntime *self,
                           guint64    range_id)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_if_fail (TS_IS_RUNTIME (self));

  locker = g_mutex_locker_new (&self->lock);
  nvtx_append (self, host_thread (self), TS_NVTX_RANGE_END, 0, 0, range_id);
  ts_nvtx_forward_range_end (range_id);
}

