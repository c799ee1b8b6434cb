/* ts-cupti-translate.h: CUPTI activity records to Tensorscope records
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * CUPTI hands its activity records over in buffers; this turns every record
 * of a buffer into our records (ts-record.h) in a TsRecorder. It is kept
 * apart from the injection library so that it can be tested on synthetic
 * buffers built from the CUPTI headers, with no libcupti and no GPU.
 *
 * Record versions: CUPTI changes its structs between releases (the
 * CUDA 13 headers give CUpti_ActivityKernel10, Memcpy6, MemcpyPtoP4,
 * Memset4, Synchronization2, CudaEvent2, Device5, Context3, Stream). We
 * dispatch on the kind and read the struct these headers define; a kind we
 * do not translate is counted, never guessed at.
 *
 * Times: CUPTI's timestamps are nanoseconds of the clock the injection
 * registers with cuptiActivityRegisterTimestampCallback (CLOCK_MONOTONIC),
 * the same clock as our API and NVTX records; a record's TsTime is the
 * timestamp minus the base given at creation.
 *
 * The join: an API call seen by the callback API is given here with
 * ts_cupti_translator_add_api_call() (which appends it); the device work
 * with the same correlation id later takes its host thread and launch time
 * (the `queued` fields) from it.
 *
 * External correlation (the workload runner, ts-cupti-activity.c): our
 * runtime records its own API calls with its own correlation ids and
 * pushes each id to CUPTI around the CUDA calls it makes
 * (cuptiActivityPushExternalCorrelationId). CUPTI then writes an
 * EXTERNAL_CORRELATION record per API call, mapping its correlation id to
 * ours. With ts_cupti_translator_set_external_kind(), device records get
 * our id instead of CUPTI's. The mapping usually lives in another buffer
 * than the device work (API-side buffers and per-stream buffers complete
 * at different times), so it may come before or after: a device record
 * whose mapping has not come yet waits, translated, inside the translator
 * and is appended when the mapping arrives. At ts_cupti_translator_finish()
 * (after CUPTI's last, forced flush no mapping can still come) the records
 * still waiting are appended with no correlation (0) and counted in
 * n_unmapped; so are device records CUPTI gives correlation 0.
 */

#pragma once

#include <cupti.h>

#include "ts-recorder.h"

G_BEGIN_DECLS

typedef struct _TsCuptiTranslator TsCuptiTranslator;

/* cuptiActivityGetNextRecord's signature. */
typedef CUptiResult (*TsCuptiNextRecordFunc) (uint8_t         *buffer,
                                              size_t           valid_size,
                                              CUpti_Activity **record);

typedef struct
{
  guint64 n_records;       /* records seen */
  guint64 n_translated;    /* records that produced one of ours */
  guint64 n_unknown;       /* records of kinds we do not translate */
  guint64 n_dropped;       /* records CUPTI reported as dropped */
  guint64 n_unjoined;      /* device records with no API call to join */
  guint64 n_api;           /* CUPTI API records (RUNTIME, DRIVER): not translated */
  guint64 n_unmapped;      /* device records appended with no external correlation */
  guint64 n_waiting;       /* device records waiting for their mapping, now */
} TsCuptiStats;

TsCuptiTranslator *ts_cupti_translator_new           (TsRecorder            *recorder,
                                                      guint64                time_base);
void               ts_cupti_translator_free          (TsCuptiTranslator     *self);

TsTime             ts_cupti_translator_time          (TsCuptiTranslator     *self,
                                                      guint64                timestamp);

/* Device records take our correlation ids from EXTERNAL_CORRELATION
 * records of @kind (see above). Set before translating anything. */
void               ts_cupti_translator_set_external_kind (TsCuptiTranslator             *self,
                                                          CUpti_ExternalCorrelationKind  kind);

/* Appends @record (an API call from the callback API) and remembers it for
 * the join. Thread-safe. */
void               ts_cupti_translator_add_api_call  (TsCuptiTranslator     *self,
                                                      const TsApiCallRecord *record);
/* Remembers @record for the join only (whoever made it appended it).
 * Thread-safe. */
void               ts_cupti_translator_note_call     (TsCuptiTranslator     *self,
                                                      const TsApiCallRecord *record);
/* Which device a CUPTI context id belongs to (synchronization records name
 * only the context). Thread-safe. */
void               ts_cupti_translator_note_context  (TsCuptiTranslator     *self,
                                                      guint32                context_id,
                                                      guint32                device);

/* Translates one record. Returns TRUE when it was used: it produced a
 * record of ours (now or, waiting for its mapping, later) or it is a
 * mapping of our external kind. CUPTI's API records are counted in n_api
 * (they are enabled only because CUPTI makes external correlation records
 * for API records); other kinds we do not translate in n_unknown. */
gboolean           ts_cupti_translator_translate     (TsCuptiTranslator     *self,
                                                      const CUpti_Activity  *record);

/* Translates every record of a completed buffer, walking it with @next
 * (cuptiActivityGetNextRecord). With @next NULL the buffer is walked by
 * ts_cupti_walk_buffer(). Returns the number of records walked. */
gsize              ts_cupti_translator_translate_buffer (TsCuptiTranslator     *self,
                                                         uint8_t               *buffer,
                                                         gsize                  valid_size,
                                                         TsCuptiNextRecordFunc  next);

/* cuptiActivityGetNumDroppedRecords's signature. */
typedef __typeof__ (cuptiActivityGetNumDroppedRecords) *TsCuptiDroppedFunc;

/* What CUPTI's buffer-completed callback does with a buffer, for both of
 * our CUPTI users: translates its records (as translate_buffer, with
 * @next) and adds the records that @dropped says CUPTI dropped for
 * (@context, @stream_id). The buffer stays the caller's to free. */
void               ts_cupti_translator_complete_buffer (TsCuptiTranslator     *self,
                                                        CUcontext              context,
                                                        uint32_t               stream_id,
                                                        uint8_t               *buffer,
                                                        gsize                  valid_size,
                                                        TsCuptiNextRecordFunc  next,
                                                        TsCuptiDroppedFunc     dropped);

/* Records CUPTI reports dropped (cuptiActivityGetNumDroppedRecords). */
void               ts_cupti_translator_add_dropped   (TsCuptiTranslator     *self,
                                                      guint64                n_dropped);

/* The end of the records: those still waiting for a mapping are appended
 * with no correlation and counted in n_unmapped. */
void               ts_cupti_translator_finish        (TsCuptiTranslator     *self);

void               ts_cupti_translator_get_stats     (TsCuptiTranslator     *self,
                                                      TsCuptiStats          *stats);

/* A buffer walker for buffers laid out as CUPTI does (records back to back,
 * each padded to 8 bytes), knowing the sizes of the kinds we translate: it
 * stops (CUPTI_ERROR_MAX_LIMIT_REACHED) at the end of the buffer and
 * (CUPTI_ERROR_INVALID_KIND) at a kind whose size it does not know. Used by
 * the tests and as a fallback; the injection uses CUPTI's own walker. */
CUptiResult        ts_cupti_walk_buffer              (uint8_t               *buffer,
                                                      size_t                 valid_size,
                                                      CUpti_Activity       **record);
/* The size ts_cupti_walk_buffer() gives a record of @kind, or 0. */
gsize              ts_cupti_record_size              (CUpti_ActivityKind     kind);

G_END_DECLS
