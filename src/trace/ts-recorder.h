/* ts-recorder.h: the in-memory trace of a run
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "ts-record.h"

G_BEGIN_DECLS

#define TS_TYPE_RECORDER (ts_recorder_get_type ())

G_DECLARE_FINAL_TYPE (TsRecorder, ts_recorder, TS, RECORDER, GObject)

/* Called for every appended record, in append order, with the recorder's
 * lock held: the trace writer uses it to stream frames as they happen.
 * A new string is announced through string_func (when interned, so before
 * the first record that uses it). A sink must not call back into the
 * recorder (the lock is not recursive). Records are given as stored:
 * padding fields are zero. */
typedef struct
{
  void (*string_func) (gpointer user_data, TsStringId id, const char *str, gsize len);
  void (*record_func) (gpointer user_data, TsRecordKind kind, const void *record);
} TsRecorderSink;

TsRecorder *ts_recorder_new         (void);

/* Interns a NUL-terminated string; NULL and "" give 0. Thread-safe. */
TsStringId  ts_recorder_intern      (TsRecorder           *self,
                                     const char           *str);
TsStringId  ts_recorder_intern_len  (TsRecorder           *self,
                                     const char           *str,
                                     gsize                 len);
/* The string for an id; "" for 0. Valid as long as the recorder lives.
 * Ids are dense: 1 to ts_recorder_get_n_strings(), in order of interning. */
const char *ts_recorder_lookup      (TsRecorder           *self,
                                     TsStringId            id);
guint       ts_recorder_get_n_strings (TsRecorder         *self);

/* Appends a copy of *record, a struct of the kind's type. Thread-safe. */
void        ts_recorder_append      (TsRecorder           *self,
                                     TsRecordKind          kind,
                                     const void           *record);

/* Appends n_records records of one kind, an array of structs of the kind's
 * type, under one lock: the loader's path. Same result as n appends. */
void        ts_recorder_append_many (TsRecorder           *self,
                                     TsRecordKind          kind,
                                     const void           *records,
                                     gsize                 n_records);

/* Appends n_records records of any kinds (records[i] a struct of kinds[i]'s
 * type) in order, under one lock: a producer's few related records for
 * the price of one append. Same result as n appends. */
void        ts_recorder_append_records (TsRecorder         *self,
                                        guint               n_records,
                                        const TsRecordKind *kinds,
                                        const void * const *records);

gsize       ts_recorder_get_count   (TsRecorder           *self,
                                     TsRecordKind          kind);
/* Copies record number index of the kind into *out (a struct of its type). */
gboolean    ts_recorder_get         (TsRecorder           *self,
                                     TsRecordKind          kind,
                                     gsize                 index,
                                     void                 *out);

/* The name of host thread `thread`: that of its first thread record with
 * one (a renamed thread has more), or NULL when none has. */
const char *ts_recorder_get_thread_name (TsRecorder       *self,
                                         guint32           thread);

/* Copies n_values values of one field (an index in the kind's field table),
 * from record number first on, into out, packed (the field's size each):
 * the columnar read for scans. Returns how many were copied (fewer when the
 * kind has fewer records). Padding fields read as zeros. */
gsize       ts_recorder_copy_column (TsRecorder         *self,
                                     TsRecordKind        kind,
                                     guint               field,
                                     gsize               first,
                                     gsize               n_values,
                                     void               *out);

/* Calls @func with the recorder's lock held: between two appends, when no
 * sink callback runs (a sink's own state is then safe to touch). @func must
 * not call back into the recorder. */
void        ts_recorder_call_locked (TsRecorder           *self,
                                     void                (*func) (gpointer data),
                                     gpointer              data);

/* Replays every string and record into sink (so a writer attached late
 * sees everything), then keeps calling it for new ones until unset. */
void        ts_recorder_set_sink    (TsRecorder           *self,
                                     const TsRecorderSink *sink,
                                     gpointer              user_data);

/* Bounded mode, for a run whose trace streams to a sink (a file or a
 * pipe): with @keep_records FALSE the recorder keeps only the newest chunk
 * (1024 records) of each kind, reusing one buffer per kind, and stops the
 * order log, so memory stays flat however long the run. Counts keep
 * growing; ts_recorder_get() and ts_recorder_copy_column() return nothing
 * for dropped records, and a sink set later is replayed the strings and
 * only the records appended before bounded mode that are still held. Set
 * it after the sink. */
void        ts_recorder_set_keep_records (TsRecorder      *self,
                                          gboolean         keep_records);
gboolean    ts_recorder_get_keep_records (TsRecorder      *self);
/* For a run whose records nobody reads (tensorscope-cli run without -o or
 * --trace-fd): while the recorder is bounded and has no sink, appends only
 * count (ts_recorder_get_count goes on, ts_recorder_get() finds nothing).
 * Keeping records again (a torch.profiler window's hold) or setting a
 * sink stores them again from the next append on. */
void        ts_recorder_set_discard      (TsRecorder      *self,
                                          gboolean         discard);
/* How many records of @kind are still readable. */
gsize       ts_recorder_get_n_retained   (TsRecorder      *self,
                                          TsRecordKind     kind);
/* Record chunks and order-log chunks held (a measure of memory use). */
gsize       ts_recorder_get_n_chunks     (TsRecorder      *self);

/* Typed helpers, so producers get type checking. */
#define TS_RECORDER_APPEND(self, KIND, Type, rec) \
  G_STMT_START { const Type *_r = (rec); ts_recorder_append ((self), (KIND), _r); } G_STMT_END

G_END_DECLS
