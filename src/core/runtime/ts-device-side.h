/* ts-device-side.h: what the runtime asks of its device side
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The runtime keeps the host half of every call: thread state, API and sync
 * records, correlation ids, stream ids, events, NVTX. The device half goes
 * to one of two implementations, picked when the runtime is made:
 *
 *  - the scheduler (ts-scheduler.c): devices simulated in virtual time;
 *  - a real GPU (ts-cuda-device.c), through the CUDA module's table.
 *
 * From then on the runtime calls through TsDeviceSideOps and never asks
 * which one it has, so a call reads the same on both.
 *
 * Results are cudaError_t values: 0 on success, TS_CUDA_ERROR_NOT_READY
 * from a query whose work is still running, anything else an error of the
 * GPU (take_error says whether it is sticky). The simulator only answers 0
 * or NOT_READY; its faults come from the kernels and show in get_fault.
 *
 * Items: a submission may hand back a guint32 item (the scheduler's work
 * item); wait_item takes it back. An event's record is one too, owned by
 * the event: TS_ITEM_NONE until the event is first recorded.
 *
 * Not thread-safe: the runtime's lock covers every call.
 */

#pragma once

#include "ts-recorder.h"
#include "ts-runtime.h"

G_BEGIN_DECLS

#define TS_ITEM_NONE G_MAXUINT32

/* event_elapsed's answer for events of two devices: CUDA's "invalid
 * resource handle", which the runtime words as PyTorch does. Not a
 * cudaError_t, so that no error of the GPU can be taken for it. */
#define TS_DEVICE_SIDE_OTHER_DEVICES (-1)

/* What every submission shares. */
typedef struct
{
  TsStreamId  stream;
  TsTime      ready;        /* host time at which the device sees the item */
  guint64     correlation;
  TsSourceLoc loc;
} TsSubmit;

/* A device's sticky fault: the first kernel that failed on it. */
typedef struct
{
  TsDeviceError code;
  TsTime        time;       /* when the faulting kernel ended */
  guint64       correlation;
  TsStreamId    stream;
  TsSourceLoc   loc;
} TsFault;

/* An event as the device side sees it. */
typedef struct
{
  guint64 id;
  int     device;           /* -1 until the first record */
  guint32 record;           /* the last record; TS_ITEM_NONE before the first */
} TsDeviceEvent;

typedef struct
{
  /* The host clock. In virtual time it moves only by what the runtime
   * charges; on a GPU it is the real clock, which moves by itself. */

  /* What a thread's clock reads now, given what it read last. */
  TsTime         (*host_time)         (gpointer             impl,
                                       TsTime               clock);
  /* After a call's modelled cost (a launch, an API call). */
  TsTime         (*host_charge)       (gpointer             impl,
                                       TsTime               clock,
                                       TsTime               ns);
  /* After the host blocked or worked for ns. */
  TsTime         (*host_spend)        (gpointer             impl,
                                       TsTime               clock,
                                       TsTime               ns);
  /* The devices catch up with a host clock before the host acts. */
  void           (*catch_up)          (gpointer             impl,
                                       TsTime               host);

  /* Streams, in TsStreamId order; *handle comes in as the simulated one
   * and may be replaced by the real one. */
  gboolean       (*add_stream)        (gpointer             impl,
                                       TsStreamId           stream,
                                       guint                device,
                                       int                  priority,
                                       gboolean             is_default,
                                       guint64             *handle,
                                       GError             **error);

  /* Work. Each takes ownership of the desc's work; *item is what
   * wait_item takes. */
  int            (*launch)            (gpointer             impl,
                                       const TsSubmit      *sub,
                                       const TsKernelDesc  *desc,
                                       TsStringId           name,
                                       guint32             *item);
  int            (*copy)              (gpointer             impl,
                                       const TsSubmit      *sub,
                                       const TsCopyDesc    *desc,
                                       guint32             *item);
  int            (*fill)              (gpointer             impl,
                                       const TsSubmit      *sub,
                                       const TsMemsetDesc  *desc,
                                       guint32             *item);
  /* Blocks until the item (on stream) is done; *until: when it was. */
  int            (*wait_item)         (gpointer             impl,
                                       TsStreamId           stream,
                                       guint32              item,
                                       TsTime              *until);

  /* Queries and synchronization; host is the caller's clock. */
  int            (*stream_query)      (gpointer             impl,
                                       TsStreamId           stream,
                                       TsTime               host);
  int            (*stream_sync)       (gpointer             impl,
                                       TsStreamId           stream,
                                       TsTime              *until);
  int            (*device_sync)       (gpointer             impl,
                                       guint                device,
                                       TsTime              *until);

  /* Events. A record replaces event->record (releasing the last one). */
  int            (*event_record)      (gpointer             impl,
                                       const TsSubmit      *sub,
                                       TsDeviceEvent       *event,
                                       TsEventFlags         flags);
  int            (*event_query)       (gpointer             impl,
                                       const TsDeviceEvent *event,
                                       TsTime               host);
  int            (*event_sync)        (gpointer             impl,
                                       const TsDeviceEvent *event,
                                       TsTime              *until);
  int            (*stream_wait_event) (gpointer             impl,
                                       const TsSubmit      *sub,
                                       const TsDeviceEvent *event);
  /* NOT_READY: one of them has not completed; OTHER_DEVICES. */
  int            (*event_elapsed)     (gpointer             impl,
                                       const TsDeviceEvent *start,
                                       const TsDeviceEvent *end,
                                       TsTime               host,
                                       float               *ms);
  /* The event is gone; waits already submitted keep what they need. */
  void           (*event_release)     (gpointer             impl,
                                       const TsDeviceEvent *event);

  /* Faults: NULL when the device has none. take_error makes a sticky
   * error of the GPU the device's fault (the first one stays) and says
   * whether it was sticky. */
  const TsFault *(*get_fault)         (gpointer             impl,
                                       guint                device);
  gboolean       (*take_error)        (gpointer             impl,
                                       guint                device,
                                       int                  err,
                                       guint64              correlation);
  const char    *(*error_string)      (gpointer             impl,
                                       int                  err);

  /* The end of a run: everything done and recorded. */
  void           (*finish)            (gpointer             impl);
  void           (*free)              (gpointer             impl);
} TsDeviceSideOps;

typedef struct
{
  const TsDeviceSideOps *ops;
  gpointer               impl;
} TsDeviceSide;

G_END_DECLS
