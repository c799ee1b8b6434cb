/* ts-cupti-activity.h: device work of our own runtime, timed by CUPTI
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * When a workload runs on a real GPU, our runtime records its API calls
 * itself (TsApiCallRecord, with its own correlation ids), and the device
 * side (kernels, copies, memsets, synchronizations, CUDA events) comes from
 * the hardware through CUPTI's Activity API. This source starts CUPTI in
 * the process (libcupti dlopened, never linked), and joins the two sides
 * through external correlation ids:
 *
 *   ts_cupti_activity_push_correlation (activity, rec.correlation);
 *   ... the CUDA calls of that API call ...
 *   ts_cupti_activity_pop_correlation (activity);
 *
 * Every device record is appended to the recorder with OUR correlation id.
 * Device records whose mapping has not arrived yet wait inside (CUPTI
 * delivers mappings and device work in different buffers) until it does,
 * or until ts_cupti_activity_stop(), which appends the rest with no
 * correlation (0) and counts them.
 *
 * Record times are nanoseconds of CLOCK_MONOTONIC (CUPTI is given our
 * clock) minus the time base taken at start: the runtime times its own API
 * records with ts_cupti_activity_now() so that both sides compare.
 *
 * CUPTI's callbacks and buffers are process-wide: one source at a time.
 * CUPTI's API callbacks are not used (the runtime records its calls).
 */

#pragma once

#include "ts-cupti-loader.h"
#include "ts-recorder.h"

G_BEGIN_DECLS

typedef struct _TsCuptiActivity TsCuptiActivity;

/* Opens libcupti and starts activity collection into @recorder. NULL with
 * TS_CUPTI_ERROR_LOAD when libcupti cannot be loaded, TS_CUPTI_ERROR_NO_DRIVER
 * when CUPTI refuses and there is no NVIDIA driver, TS_CUPTI_ERROR_FAILED
 * when it refuses for another reason, TS_CUPTI_ERROR_BUSY when a source is
 * already running. Nothing stays enabled after a failure; start may be
 * tried again. */
TsCuptiActivity *ts_cupti_activity_start            (TsRecorder       *recorder,
                                                     GError          **error);

/* Every CUDA call this thread makes until the matching pop is mapped to
 * @correlation (ours, non-zero). Pushes nest. */
void             ts_cupti_activity_push_correlation (TsCuptiActivity  *self,
                                                     guint64           correlation);
void             ts_cupti_activity_pop_correlation  (TsCuptiActivity  *self);

/* The API call of @record (already appended by the runtime) is joined to
 * its device work: kernels, copies, memsets and event records take its
 * start as their `queued` time, synchronizations its thread. Optional:
 * without it, `queued` is the device start and a sync's thread is 0. */
void             ts_cupti_activity_note_call        (TsCuptiActivity       *self,
                                                     const TsApiCallRecord *record);

/* Translates the buffers CUPTI has completed (cuptiActivityFlushAll(0)):
 * work still running, or in a buffer with unfinished records, comes later. */
void             ts_cupti_activity_flush            (TsCuptiActivity  *self);

/* Records CUPTI reported dropped (its buffers were full), so far. */
guint64          ts_cupti_activity_get_dropped      (TsCuptiActivity  *self);
/* Device records appended with no correlation so far (see above). */
guint64          ts_cupti_activity_get_unmapped     (TsCuptiActivity  *self);

/* The CLOCK_MONOTONIC nanoseconds that are time 0 of the records, and the
 * current time on that scale. */
guint64          ts_cupti_activity_get_time_base    (TsCuptiActivity  *self);
TsTime           ts_cupti_activity_now              (TsCuptiActivity  *self);

/* Flushes everything (forced), disables collection, appends the records
 * still waiting for a mapping, reports dropped and unmapped records as
 * tool output records, and frees @self. */
void             ts_cupti_activity_stop             (TsCuptiActivity  *self);

G_END_DECLS
