/* ts-cupti-loader.h: libcupti, opened at run time
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Nothing of ours links libcupti: the injection library must load in
 * programs that have no GPU driver (for NVTX), and the workload runner must
 * start on machines without the toolkit's libraries. Both users open it
 * here and call CUPTI through a table of the functions they need.
 *
 * Search order: $TENSORSCOPE_CUPTI_PATH alone when it is set (a path the
 * user names and that does not load is an error, not a hint), otherwise
 * libcupti.so.13, libcupti.so, then the toolkit's lib64 and
 * extras/CUPTI/lib64. The library is never closed once its functions are
 * handed out: CUPTI keeps threads and callbacks of its own.
 */

#pragma once

#include <glib.h>

#include <cupti.h>

G_BEGIN_DECLS

#define TS_CUPTI_ENV_PATH "TENSORSCOPE_CUPTI_PATH"

#define TS_CUPTI_ERROR (ts_cupti_error_quark ())

typedef enum
{
  TS_CUPTI_ERROR_LOAD = 1,   /* libcupti missing or lacking a function */
  TS_CUPTI_ERROR_NO_DRIVER,  /* CUPTI refused, and there is no libcuda.so.1 */
  TS_CUPTI_ERROR_FAILED,     /* CUPTI answered another error */
  TS_CUPTI_ERROR_BUSY,       /* another activity source is running */
} TsCuptiError;

#define TS_CUPTI_FUNCS(X) \
  X (cuptiSubscribe) \
  X (cuptiUnsubscribe) \
  X (cuptiEnableDomain) \
  X (cuptiActivityEnable) \
  X (cuptiActivityDisable) \
  X (cuptiActivityRegisterCallbacks) \
  X (cuptiActivityRegisterTimestampCallback) \
  X (cuptiActivityEnableCudaEventDeviceTimestamps) \
  X (cuptiActivityGetNextRecord) \
  X (cuptiActivityGetNumDroppedRecords) \
  X (cuptiActivityFlushAll) \
  X (cuptiActivityPushExternalCorrelationId) \
  X (cuptiActivityPopExternalCorrelationId) \
  X (cuptiGetDeviceId) \
  X (cuptiGetResultString)

typedef struct
{
#define TS_CUPTI_DECLARE(name) __typeof__ (name) *name;
  TS_CUPTI_FUNCS (TS_CUPTI_DECLARE)
#undef TS_CUPTI_DECLARE
} TsCuptiFuncs;

GQuark   ts_cupti_error_quark  (void);

/* Opens libcupti and fills @funcs; FALSE with TS_CUPTI_ERROR_LOAD when no
 * candidate loads or one of the functions is missing. */
gboolean ts_cupti_load         (TsCuptiFuncs  *funcs,
                                GError       **error);

/* CUPTI's text for @result ("CUPTI_ERROR_NOT_INITIALIZED"), or a number. */
char    *ts_cupti_result_text  (const TsCuptiFuncs *funcs,
                                CUptiResult         result);

/* Nanoseconds of CLOCK_MONOTONIC: the clock every CUPTI user of ours
 * registers with cuptiActivityRegisterTimestampCallback. */
guint64  ts_cupti_clock        (void);

/* CUPTI's buffer request callback, for both users of CUPTI here: 8 MiB
 * buffers, 8-byte aligned as CUPTI requires, freed with g_aligned_free. */
void CUPTIAPI ts_cupti_buffer_requested (uint8_t **buffer,
                                         size_t   *size,
                                         size_t   *max_num_records);

G_END_DECLS
