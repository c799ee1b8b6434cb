/* ts-run-controller.h: the lifecycle of a run and of the trace it shows
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Everything between "Run" and a trace document, with no widgets: the
 * workload runner, the private folder for the editor's copy of the script,
 * the trace bytes as they stream in, the incremental reader and recorder
 * they feed, the throttled live rebuild of the document, and loading and
 * saving .tstrace files. The window shows what it says through
 * notify::document, ::trace-damaged and ::finished.
 */

#pragma once

#include <gio/gio.h>

#include "ts-recorder.h"
#include "ts-trace-import.h"
#include "ts-trace-document.h"
#include "ts-workload-runner.h"

G_BEGIN_DECLS

#define TS_TYPE_RUN_CONTROLLER (ts_run_controller_get_type ())

G_DECLARE_FINAL_TYPE (TsRunController, ts_run_controller, TS, RUN_CONTROLLER, GObject)

TsRunController  *ts_run_controller_new              (void);
TsWorkloadRunner *ts_run_controller_get_runner       (TsRunController  *self);

/* A file holding `text` in the controller's private folder (made on first
 * use, removed with the controller), for running what the editor shows. */
char             *ts_run_controller_write_script     (TsRunController  *self,
                                                      const char       *name,
                                                      const char       *text,
                                                      GError          **error);
/* Starts the runner (configured by the caller) on `script_path`, after
 * dropping the trace shown so far: the document goes to NULL, then grows
 * as the trace streams in. */
gboolean          ts_run_controller_start            (TsRunController  *self,
                                                      const char       *script_path,
                                                      GError          **error);
void              ts_run_controller_stop             (TsRunController  *self);
/* Drops the trace shown and what the last run said (error line, stderr). */
void              ts_run_controller_clear            (TsRunController  *self);

/* The trace shown: of the current or last run, or of a file. */
TsTraceDocument  *ts_run_controller_get_document     (TsRunController  *self);
TsRecorder       *ts_run_controller_get_recorder     (TsRunController  *self);
gboolean          ts_run_controller_has_trace        (TsRunController  *self);
GBytes           *ts_run_controller_dup_trace        (TsRunController  *self);
/* The last run's trace ended badly: a bad frame, or before its end. */
gboolean          ts_run_controller_get_damaged      (TsRunController  *self);
gboolean          ts_run_controller_get_cut_short    (TsRunController  *self);

/* Where the last run's Python traceback points in its script (0: nowhere),
 * and the last line it wrote to stderr. */
guint             ts_run_controller_get_error_line   (TsRunController  *self);
const char       *ts_run_controller_get_last_stderr  (TsRunController  *self);

/* Loads a .tstrace in a thread; _finish() shows it (the document changes)
 * and says whether it was cut short. A new load cancels the last one. */
/* How the next loads import PyTorch's files (per-rank clock alignment). */
void              ts_run_controller_set_import_flags (TsRunController *self,
                                                      TsImportFlags    flags);
void              ts_run_controller_load_trace_async (TsRunController  *self,
                                                      GFile            *file,
                                                      GAsyncReadyCallback callback,
                                                      gpointer          user_data);
gboolean          ts_run_controller_load_trace_finish (TsRunController *self,
                                                      GAsyncResult     *result,
                                                      gboolean         *cut_short,
                                                      GError          **error);
/* Writes the recorder shown with the trace writer, in a thread. */
void              ts_run_controller_save_trace_async (TsRunController  *self,
                                                      GFile            *file,
                                                      GAsyncReadyCallback callback,
                                                      gpointer          user_data);
gboolean          ts_run_controller_save_trace_finish (TsRunController *self,
                                                      GAsyncResult     *result,
                                                      GError          **error);

G_END_DECLS
