/* ts-trace-reader.h: loads a trace file, or a live stream of frames, into a recorder
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "ts-recorder.h"

G_BEGIN_DECLS

#define TS_TRACE_READER_ERROR (ts_trace_reader_error_quark ())

typedef enum
{
  TS_TRACE_READER_ERROR_IO = 1,        /* the file could not be opened or mapped */
  TS_TRACE_READER_ERROR_NOT_A_TRACE,   /* bad magic */
  TS_TRACE_READER_ERROR_VERSION,       /* a newer (or unknown) major version */
  TS_TRACE_READER_ERROR_CORRUPT,       /* a malformed frame, header or index */
  TS_TRACE_READER_ERROR_BAD_VALUE,     /* a field a producer cannot have written */
  TS_TRACE_READER_ERROR_FAILED,        /* the reader already failed */
} TsTraceReaderError;

#define TS_TYPE_TRACE_READER (ts_trace_reader_get_type ())

G_DECLARE_FINAL_TYPE (TsTraceReader, ts_trace_reader, TS, TRACE_READER, GObject)

GQuark         ts_trace_reader_error_quark   (void);

/* Strings and records go into recorder, appended after what it holds
 * (string ids are renumbered as needed). */
TsTraceReader *ts_trace_reader_new           (TsRecorder     *recorder);

/* Whether data starts with the gzip magic: load_file and load_data
 * inflate such a file before reading it. */
gboolean       ts_trace_is_gzip              (const guint8   *data,
                                              gsize           len);
/* The inflated bytes of a gzip file (members one after another, as gzip
 * concatenates them; a stream cut short gives what it holds), or NULL with
 * a TS_TRACE_READER_ERROR_CORRUPT error where the stream is damaged. */
GBytes        *ts_trace_gunzip               (const guint8   *data,
                                              gsize           len,
                                              GError        **error);

/* Loads a whole file (mapped, not copied). Returns FALSE with error on bad
 * input; what came before the bad frame stays loaded. A file without its
 * index footer (a run that was killed) loads, with get_cut_short() TRUE. */
gboolean       ts_trace_reader_load_file     (TsTraceReader  *self,
                                              const char     *path,
                                              GError        **error);
gboolean       ts_trace_reader_load_data     (TsTraceReader  *self,
                                              const guint8   *data,
                                              gsize           len,
                                              GError        **error);

/* Incremental use, for a live pipe: feed bytes as they come (any split),
 * records are appended as whole frames arrive; call finish at end of
 * stream. After an error every call fails. */
gboolean       ts_trace_reader_feed          (TsTraceReader  *self,
                                              const guint8   *data,
                                              gsize           len,
                                              GError        **error);
gboolean       ts_trace_reader_finish        (TsTraceReader  *self,
                                              GError        **error);

/* 0 until the header has been read. */
guint          ts_trace_reader_get_major     (TsTraceReader  *self);
guint          ts_trace_reader_get_minor     (TsTraceReader  *self);
/* TRUE when the input ended before the index footer. */
gboolean       ts_trace_reader_get_cut_short (TsTraceReader  *self);
/* TRUE once the index footer was read and matched the frames. */
gboolean       ts_trace_reader_get_complete  (TsTraceReader  *self);
/* Offset of the first frame that was not loaded (incomplete or bad), or
 * -1 when there is none. */
gint64         ts_trace_reader_get_bad_offset (TsTraceReader *self);
/* Offset just past the last whole frame loaded. */
guint64        ts_trace_reader_get_offset    (TsTraceReader  *self);
/* Frames of unknown types (from a newer writer) that were skipped. */
guint64        ts_trace_reader_get_n_skipped (TsTraceReader  *self);
guint64        ts_trace_reader_get_n_records (TsTraceReader  *self);

/* What `tensorscope-cli info` shows without loading a trace: read from the
 * index footer of a complete file (the header, the schema and the footer
 * are all that is read, plus one frame header per chunk), or, for a file
 * without a usable footer, by decoding it all. */
typedef struct
{
  guint    major;
  guint    minor;
  gboolean complete;          /* the file ends with its index footer */
  gboolean cut_short;
  gboolean from_index;        /* the counts came from the footer, nothing was decoded */
  guint64  n_strings;
  guint64  n_records[TS_N_RECORD_KINDS];
  guint64  n_other_records;   /* records of kinds this version does not know */
  guint64  n_chunks;          /* events frames */
} TsTraceSummary;

gboolean       ts_trace_read_summary         (const char     *path,
                                              TsTraceSummary *summary,
                                              GError        **error);

/* Convenience: a new recorder holding the file's content. */
TsRecorder    *ts_trace_load                 (const char     *path,
                                              gboolean       *cut_short,
                                              GError        **error);

G_END_DECLS
