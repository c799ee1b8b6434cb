/* ts-cuda-device-private.h: the runtime's device side on a real GPU
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * On the simulator the runtime's device side is the TsScheduler. On a real
 * GPU it is this: the runtime keeps its bookkeeping (stream ids, events,
 * API records, correlation ids, NVTX) and hands the device side to the CUDA
 * module's table (ts-cuda-kernels.h). Host time is the real monotonic clock.
 *
 * Device records (kernels, copies, memsets) come from the hardware, timed
 * one of two ways:
 *  - an activity source (CUPTI, installed by the caller): the device
 *    pushes each launch's correlation id around the launch, and the source
 *    writes the records with GPU timestamps;
 *  - without one, a pair of CUDA events around each item, read back once
 *    the item has completed (what PyTorch's legacy profiler did). Each
 *    item's times are its events' offsets from a base event recorded when
 *    the device started, plus the host time of that base.
 *
 * Not thread-safe: the runtime's lock covers it.
 */

#pragma once

#include "ts-cuda-kernels.h"
#include "ts-recorder.h"
#include "ts-runtime.h"

G_BEGIN_DECLS

typedef struct _TsCudaDevice TsCudaDevice;

/* What a submission is, for its record. */
typedef enum
{
  TS_CUDA_ITEM_KERNEL,
  TS_CUDA_ITEM_MEMCPY,
  TS_CUDA_ITEM_MEMSET,
} TsCudaItemKind;

typedef struct
{
  TsCudaItemKind kind;
  TsStreamId     stream;
  guint          device;
  guint64        correlation;
  TsTime         queued;
  TsStringId     name;          /* kernels */
  guint32        grid[3];
  guint32        block[3];
  guint64        flops;
  guint64        bytes;
  guint32        copy_kind;     /* memcpy: TsCopyKind */
  guint32        copy_flags;    /* memcpy: TsCopyFlags */
  gint32         src_device;
  gint32         dst_device;
  guint32        value;         /* memset */
} TsCudaItem;

TsCudaDevice *ts_cuda_device_new           (const TsCudaKernels      *kernels,
                                            const TsActivitySource   *activity,
                                            TsRecorder               *recorder,
                                            guint                     n_devices,
                                            GError                  **error);
/* Waits for every device and writes every pending record (stopping the
 * activity source, whose last buffers come only then). */
void          ts_cuda_device_finish        (TsCudaDevice             *self);
void          ts_cuda_device_free          (TsCudaDevice             *self);
const TsCudaKernels *ts_cuda_device_get_kernels (TsCudaDevice       *self);

/* The first time, queries the device: its name, SMs, memory, priorities. */
gboolean      ts_cuda_device_get_info      (TsCudaDevice             *self,
                                            guint                     device,
                                            TsGpuProfile             *profile,
                                            GError                  **error);

/* Streams are created on first use; TsStreamId order. A default stream is
 * the device's legacy default stream (NULL). */
gboolean      ts_cuda_device_add_stream    (TsCudaDevice             *self,
                                            TsStreamId                stream,
                                            guint                     device,
                                            int                       priority,
                                            gboolean                  is_default,
                                            guint64                  *handle,
                                            GError                  **error);
gpointer      ts_cuda_device_get_stream    (TsCudaDevice             *self,
                                            TsStreamId                stream);

/* Every function below returns a cudaError_t value (0 on success). */

/* Enqueues work->on_device on item->stream and times it. The work's data
 * is destroyed before this returns. */
int           ts_cuda_device_submit        (TsCudaDevice             *self,
                                            const TsCudaItem         *item,
                                            const TsWork             *work);
int           ts_cuda_device_stream_query  (TsCudaDevice             *self,
                                            TsStreamId                stream);
int           ts_cuda_device_stream_sync   (TsCudaDevice             *self,
                                            TsStreamId                stream);
int           ts_cuda_device_device_sync   (TsCudaDevice             *self,
                                            guint                     device);
/* Events: created on first record, on the recording stream's device. */
int           ts_cuda_device_event_record  (TsCudaDevice             *self,
                                            guint64                   event,
                                            TsEventFlags              flags,
                                            TsStreamId                stream);
int           ts_cuda_device_event_query   (TsCudaDevice             *self,
                                            guint64                   event);
int           ts_cuda_device_event_sync    (TsCudaDevice             *self,
                                            guint64                   event);
int           ts_cuda_device_event_elapsed (TsCudaDevice             *self,
                                            guint64                   start,
                                            guint64                   end,
                                            float                    *ms);
int           ts_cuda_device_stream_wait_event (TsCudaDevice         *self,
                                                TsStreamId            stream,
                                                guint64               event);
void          ts_cuda_device_event_free    (TsCudaDevice             *self,
                                            guint64                   event);
/* The sticky error of the context, or 0. */
int           ts_cuda_device_peek_error    (TsCudaDevice             *self);
const char   *ts_cuda_device_error_string  (TsCudaDevice             *self,
                                            int                       error);
/* Writes the records of every item that has completed (all of them after
 * a device synchronize); call at synchronization points and at the end. */
void          ts_cuda_device_collect       (TsCudaDevice             *self);

G_END_DECLS
