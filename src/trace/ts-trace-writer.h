/* ts-trace-writer.h: streams a recorder's content into a trace file or pipe
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "ts-recorder.h"

G_BEGIN_DECLS

#define TS_TRACE_WRITER_ERROR (ts_trace_writer_error_quark ())

typedef enum
{
  TS_TRACE_WRITER_ERROR_FAILED = 1,   /* with the errno text in the message */
  TS_TRACE_WRITER_ERROR_CLOSED,       /* used after close */
  TS_TRACE_WRITER_ERROR_TOO_BIG,      /* a string longer than a frame may be */
} TsTraceWriterError;

#define TS_TYPE_TRACE_WRITER (ts_trace_writer_get_type ())

G_DECLARE_FINAL_TYPE (TsTraceWriter, ts_trace_writer, TS, TRACE_WRITER, GObject)

GQuark         ts_trace_writer_error_quark    (void);

/* Creates (or truncates) the file at path. */
TsTraceWriter *ts_trace_writer_new_for_path   (const char     *path,
                                               GError        **error);
/* Writes to an open file descriptor (a file or a pipe). The writer closes
 * it at close time when close_fd is TRUE. */
TsTraceWriter *ts_trace_writer_new_for_fd     (int             fd,
                                               gboolean        close_fd);

/* Becomes recorder's sink: everything recorded so far is written, then
 * every new string and record as it comes. A writer attaches once. */
gboolean       ts_trace_writer_attach         (TsTraceWriter  *self,
                                               TsRecorder     *recorder,
                                               GError        **error);

/* Pushes buffered frames to the file or pipe: the runtime calls it at
 * synchronisation points so a live reader sees whole frames promptly.
 * Reports the first error met since the writer was created. */
gboolean       ts_trace_writer_flush          (TsTraceWriter  *self,
                                               GError        **error);

/* Detaches from the recorder, writes the index footer, flushes, and
 * closes the descriptor if owned. Further calls fail with CLOSED. */
gboolean       ts_trace_writer_close          (TsTraceWriter  *self,
                                               GError        **error);

/* Bytes of trace produced so far (written or buffered). */
guint64        ts_trace_writer_get_offset     (TsTraceWriter  *self);

G_END_DECLS
