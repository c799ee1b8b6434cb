/* ts-runtime-work.c: device work: kernel launches, copies, memsets
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A launch, copy or memset is refused when its device has faulted;
 * otherwise it costs launch_latency_ns of host time and goes to the device
 * side. The host then waits for it when the copy is blocking or launches
 * are (CUDA_LAUNCH_BLOCKING), so that its fault surfaces at the call.
 */

#include "config.h"

#include "ts-runtime-private.h"

static void
destroy_work (const TsWork *work)
{
  if (work->destroy != NULL)
    work->destroy (work->data);
}

/* Work refused before its call began: the runtime owns its data all the
 * same. Returns 0, what the refused call returns. */
static guint64
refuse_work (const TsWork *work)
{
  destroy_work (work);
  return 0;
}

/* Opens the call of a launch, copy or memset on @stream and charges its
 * host cost. A sticky fault on the stream's device (or on @peer_device, the
 * other end of a peer copy, when not -1) that has happened by the end of
 * that cost refuses it: the work is destroyed and the call recorded. The
 * driver finds the fault during the call, so a kernel that faulted while
 * the host was dispatching the next op fails that op's launch: on an H200
 * with PyTorch 2.11 an out-of-range index_select failed the very next
 * launch (docs/gpu-measurements.md). */
static gboolean
call_begin_work (TsRuntime     *self,
                 Call          *call,
                 guint          api,
                 TsStreamId     stream,
                 int            peer_device,
                 const TsWork  *work,
                 GError       **error)
{
  _ts_runtime_call_begin (self, call, api);
  call_set_stream (self, call, stream);
  host_charge (self, call->ht, self->profile->launch_latency_ns);
  self->side.ops->catch_up (self->side.impl, call->ht->clock);

  if (_ts_runtime_call_check_fault (self, call, call->device, error) &&
      (peer_device < 0 || _ts_runtime_call_check_fault (self, call, peer_device, error)))
    return TRUE;

  destroy_work (work);
  _ts_runtime_call_end (self, call);
  return FALSE;
}

/* Closes a call of work that ok says succeeded or not. With end_rec, a
 * call that succeeds leaves its API record there for the caller to
 * append. Returns the correlation id, or 0 on an error. */
G_ALWAYS_INLINE static inline guint64
end_work (TsRuntime        *self,
          Call             *call,
          gboolean          ok,
          TsApiCallRecord  *end_rec)
{
  if (ok && end_rec != NULL)
    {
      _ts_runtime_call_end_deferred (self, call, end_rec);
      return call->correlation;
    }
  _ts_runtime_call_end (self, call);
  return ok ? call->correlation : 0;
}

/* Closes the call of work the device side took (err: its answer), as
 * end_work. The host first waits for @item when @host_waits (blocking
 * copies, launch blocking), so that a fault surfaces at this call. */
G_ALWAYS_INLINE static inline guint64
call_end_work (TsRuntime        *self,
               Call             *call,
               int               err,
               guint32           item,
               gboolean          host_waits,
               TsSyncKind        kind,
               TsApiCallRecord  *end_rec,
               GError          **error)
{
  gboolean ok = _ts_runtime_call_check_result (self, call, err, error);
  TsTime until;

  if (ok && host_waits)
    {
      err = self->side.ops->wait_item (self->side.impl, call->stream, item, &until);
      ok = _ts_runtime_call_blocked (self, call, kind, 0, err, until, error);
    }
  return end_work (self, call, ok, end_rec);
}

/* Closes the call of work that a capturing stream records into its
 * graph instead of running it. */
static guint64
capture_end_work (TsRuntime        *self,
                  Call             *call,
                  NodeKind          kind,
                  gconstpointer     desc,
                  TsStringId        name,
                  TsApiCallRecord  *end_rec,
                  GError          **error)
{
  gboolean ok = _ts_runtime_capture_work (self, call, kind, desc, name, error);

  return end_work (self, call, ok, end_rec);
}

/* ts_runtime_launch_kernel with the lock held. With end_rec, a launch that
 * succeeds leaves its API record there for the caller to append. */
static guint64
launch_kernel_locked (TsRuntime           *self,
                      TsStreamId           stream,
                      const TsKernelDesc  *desc,
                      TsApiCallRecord     *end_rec,
                      GError             **error)
{
  TsStringId name;
  TsSubmit sub;
  guint32 item;
  int err;
  Call call;

  if (!_ts_runtime_check_stream (self, stream, error))
    return refuse_work (&desc->work);

  if (!call_begin_work (self, &call, API_LAUNCH_KERNEL, stream, -1, &desc->work, error))
    return 0;

  name = desc->name_id != 0 ? desc->name_id
                            : ts_recorder_intern (self->recorder, desc->name != NULL ? desc->name : "kernel");
  if (G_UNLIKELY (stream_capture (self, stream) != NULL))
    return capture_end_work (self, &call, NODE_KERNEL, desc, name, end_rec, error);
  sub = call_submission (&call);
  err = self->side.ops->launch (self->side.impl, &sub, desc, name, &item);

  return call_end_work (self, &call, err, item, self->launch_blocking, TS_SYNC_STREAM, end_rec, error);
}

guint64
ts_runtime_launch_kernel (TsRuntime           *self,
                          TsStreamId           stream,
                          const TsKernelDesc  *desc,
                          GError             **error)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);
  g_return_val_if_fail (desc != NULL, 0);

  locker = g_mutex_locker_new (&self->lock);
  return launch_kernel_locked (self, stream, desc, NULL, error);
}

static gboolean
check_copy (TsRuntime         *self,
            const TsCopyDesc  *desc,
            GError           **error)
{
  int on_device;
  gboolean ok;

  if (!_ts_runtime_check_stream (self, desc->stream, error))
    return FALSE;

  on_device = (int) stream_device (self, desc->stream);

  for (guint i = 0; i < 2; i++)
    {
      int d = i == 0 ? desc->src_device : desc->dst_device;

      if (d < -1 || d >= (int) self->n_devices)
        {
          g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_DEVICE,
                               "CUDA error: invalid device ordinal" CUDA_ERROR_TRAILER);
          return FALSE;
        }
    }

  switch (desc->kind)
    {
    case TS_COPY_HOST_TO_DEVICE:
      ok = desc->src_device == -1 && desc->dst_device >= 0;
      break;
    case TS_COPY_DEVICE_TO_HOST:
      ok = desc->src_device >= 0 && desc->dst_device == -1;
      break;
    case TS_COPY_DEVICE_TO_DEVICE:
      ok = desc->src_device >= 0 && desc->src_device == desc->dst_device;
      break;
    case TS_COPY_PEER:
      ok = desc->src_device >= 0 && desc->dst_device >= 0 && desc->src_device != desc->dst_device;
      break;
    case TS_COPY_HOST_TO_HOST:
    default:
      g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_ARGUMENT,
                   "Copy kind %d does not go through a device", (int) desc->kind);
      return FALSE;
    }

  if (!ok)
    {
      g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_ARGUMENT,
                   "Copy kind %d cannot go from device %d to device %d (-1 is the host)",
                   (int) desc->kind, desc->src_device, desc->dst_device);
      return FALSE;
    }

  if (on_device != desc->src_device && on_device != desc->dst_device)
    {
      g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_STREAM,
                   "Stream %u is on device %d, but the copy goes from device %d to device %d",
                   desc->stream, on_device, desc->src_device, desc->dst_device);
      return FALSE;
    }

  return TRUE;
}

guint64
ts_runtime_memcpy (TsRuntime         *self,
                   const TsCopyDesc  *desc,
                   GError           **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean host_waits;
  int peer_device;
  TsSubmit sub;
  guint32 item;
  int err;
  Call call;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);
  g_return_val_if_fail (desc != NULL, 0);

  locker = g_mutex_locker_new (&self->lock);
  if (!check_copy (self, desc, error))
    return refuse_work (&desc->work);

  /* A peer copy also stops at a fault of its other device. */
  peer_device = -1;
  if (desc->kind == TS_COPY_PEER)
    peer_device = desc->src_device + desc->dst_device - (int) stream_device (self, desc->stream);

  if (!call_begin_work (self, &call, API_MEMCPY, desc->stream, peer_device, &desc->work, error))
    return 0;

  /* A copy touching pageable host memory returns only once the device has
   * consumed or produced it; so does any copy asked to be synchronous.
   * Only pinned memory with non_blocking lets the host run ahead. Copies
   * between device memories never block the host. */
  host_waits = (desc->kind == TS_COPY_HOST_TO_DEVICE || desc->kind == TS_COPY_DEVICE_TO_HOST) &&
               !(desc->pinned && desc->non_blocking);

  if (G_UNLIKELY (stream_capture (self, desc->stream) != NULL))
    {
      /* a copy the host waits for would synchronize the capture */
      if (host_waits)
        {
          GError *local = NULL;

          destroy_work (&desc->work);
          _ts_runtime_capture_refuse (stream_capture (self, desc->stream), &local);
          _ts_runtime_call_end (self, &call);
          g_propagate_error (error, local);
          return 0;
        }
      return capture_end_work (self, &call, NODE_COPY, desc, 0, NULL, error);
    }

  sub = call_submission (&call);
  err = self->side.ops->copy (self->side.impl, &sub, desc, &item);

  return call_end_work (self, &call, err, item, host_waits || self->launch_blocking,
                        host_waits ? TS_SYNC_COPY : TS_SYNC_STREAM, NULL, error);
}

guint64
ts_runtime_memset (TsRuntime           *self,
                   const TsMemsetDesc  *desc,
                   GError             **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  TsSubmit sub;
  guint32 item;
  int err;
  Call call;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);
  g_return_val_if_fail (desc != NULL, 0);

  locker = g_mutex_locker_new (&self->lock);
  if (!_ts_runtime_check_stream (self, desc->stream, error))
    return refuse_work (&desc->work);

  if (!call_begin_work (self, &call, API_MEMSET, desc->stream, -1, &desc->work, error))
    return 0;
  if (G_UNLIKELY (stream_capture (self, desc->stream) != NULL))
    return capture_end_work (self, &call, NODE_MEMSET, desc, 0, NULL, error);

  sub = call_submission (&call);
  err = self->side.ops->fill (self->side.impl, &sub, desc, &item);

  return call_end_work (self, &call, err, item, self->launch_blocking, TS_SYNC_STREAM, NULL, error);
}

guint64
ts_runtime_launch_op (TsRuntime           *self,
                      TsStringId           name,
                      int                  device,
                      TsStreamId           stream,
                      const TsKernelDesc  *desc,
                      GError             **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  TsApiCallRecord launch_rec;
  guint64 span, ret;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);
  g_return_val_if_fail (desc != NULL, 0);

  locker = g_mutex_locker_new (&self->lock);
  span = _ts_runtime_api_begin_locked (self, name, device, TS_STREAM_NONE);
  ret = launch_kernel_locked (self, stream, desc, &launch_rec, error);
  /* a launch that succeeds ends right before the span: one append */
  _ts_runtime_api_end_locked (self, span, ret != 0 ? &launch_rec : NULL);
  return ret;
}
