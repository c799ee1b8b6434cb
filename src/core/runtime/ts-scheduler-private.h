/* ts-scheduler-private.h: the discrete-event device simulation
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The scheduler is the device side of a TsRuntime in virtual time
 * (ts_scheduler_get_side, see ts-device-side.h): streams as FIFO queues of
 * work items, the engines of each device (an SM pool for kernels, memsets
 * and same-device copies; copy engines for host and peer transfers), and
 * one event queue ordered by (virtual time, sequence). It is advanced
 * lazily: before each call the runtime has it catch up with the host's time
 * (ts_scheduler_advance_to), and the blocking calls run it until their
 * condition holds.
 *
 * It is not thread-safe; TsRuntime's lock covers it. See
 * docs/simulation-model.md for the model in prose.
 */

#pragma once

#include "ts-device-side.h"
#include "ts-gpu-profile.h"
#include "ts-recorder.h"
#include "ts-runtime.h"

G_BEGIN_DECLS

typedef struct _TsScheduler TsScheduler;

/* The runtime's device side in virtual time; its free frees self. */
TsDeviceSide   ts_scheduler_get_side             (TsScheduler        *self);

TsScheduler   *ts_scheduler_new                  (TsRecorder         *recorder,
                                                  const TsGpuProfile *profile,
                                                  guint               n_devices);
void           ts_scheduler_free                 (TsScheduler        *self);
TsTime         ts_scheduler_get_now              (TsScheduler        *self);

/* The runtime writes the stream's record. */
TsStreamId     ts_scheduler_add_stream           (TsScheduler        *self,
                                                  guint               device,
                                                  int                 priority);
gboolean       ts_scheduler_stream_is_idle       (TsScheduler        *self,
                                                  TsStreamId          stream);
gboolean       ts_scheduler_device_is_idle       (TsScheduler        *self,
                                                  guint               device);

/* Submissions take ownership of the work. They return the item; only
 * record items may be kept (with a reference) past their completion. */
guint32        ts_scheduler_submit_kernel        (TsScheduler        *self,
                                                  const TsSubmit     *sub,
                                                  const TsKernelDesc *desc,
                                                  TsStringId          name);
guint32        ts_scheduler_submit_memset        (TsScheduler        *self,
                                                  const TsSubmit     *sub,
                                                  const TsMemsetDesc *desc);
guint32        ts_scheduler_submit_copy          (TsScheduler        *self,
                                                  const TsSubmit     *sub,
                                                  const TsCopyDesc   *desc);
/* Returns the record item with one reference for the caller (the event). */
guint32        ts_scheduler_submit_record        (TsScheduler        *self,
                                                  const TsSubmit     *sub,
                                                  guint64             event);
void           ts_scheduler_submit_wait          (TsScheduler        *self,
                                                  const TsSubmit     *sub,
                                                  guint64             event,
                                                  guint32             record_item);

void           ts_scheduler_item_ref             (TsScheduler        *self,
                                                  guint32             item);
void           ts_scheduler_item_unref           (TsScheduler        *self,
                                                  guint32             item);
/* TRUE once the item has completed; *end is its completion time. */
gboolean       ts_scheduler_item_is_done         (TsScheduler        *self,
                                                  guint32             item,
                                                  TsTime             *end);
guint64        ts_scheduler_item_get_correlation (TsScheduler        *self,
                                                  guint32             item);

/* Runs every event up to and including time t; now becomes at least t. */
void           ts_scheduler_advance_to           (TsScheduler        *self,
                                                  TsTime              t);
/* Run until the condition holds; return the time at which it did (which may
 * be earlier than the caller's host time). The item must be referenced. */
TsTime         ts_scheduler_run_until_item_done  (TsScheduler        *self,
                                                  guint32             item);
TsTime         ts_scheduler_run_until_stream_idle (TsScheduler       *self,
                                                   TsStreamId         stream);
TsTime         ts_scheduler_run_until_device_idle (TsScheduler       *self,
                                                   guint              device);

/* NULL when the device has not faulted. */
const TsFault *ts_scheduler_get_fault            (TsScheduler        *self,
                                                  guint               device);

/* The model's duration of a kernel, and the SMs it holds. */
TsTime         ts_scheduler_kernel_duration      (const TsGpuProfile *profile,
                                                  const TsKernelDesc *desc,
                                                  guint32            *sms);

G_END_DECLS
