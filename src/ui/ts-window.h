/* ts-window.h: the main window
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "ts-application.h"
#include "ts-console.h"
#include "ts-editor.h"
#include "ts-workload-runner.h"

G_BEGIN_DECLS

#define TS_TYPE_WINDOW (ts_window_get_type ())

G_DECLARE_FINAL_TYPE (TsWindow, ts_window, TS, WINDOW, AdwApplicationWindow)

TsWindow         *ts_window_new            (TsApplication  *application);
void              ts_window_open_file      (TsWindow       *self,
                                            GFile          *file,
                                            gboolean        run_scripts);
void              ts_window_open_trace     (TsWindow       *self,
                                            GFile          *file);
gboolean          ts_window_load_example   (TsWindow       *self,
                                            const char     *id,
                                            GError        **error);
void              ts_window_pick_example   (TsWindow       *self,
                                            const char     *id);
gboolean          ts_window_export_view    (TsWindow       *self,
                                            const char     *path,
                                            GError        **error);
void              ts_window_export_trace_async  (TsWindow            *self,
                                                 const char          *format,
                                                 GFile               *file,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
gboolean          ts_window_export_trace_finish (TsWindow            *self,
                                                 GAsyncResult        *result,
                                                 GError             **error);
gboolean          ts_window_run            (TsWindow       *self,
                                            GError        **error);
void              ts_window_stop           (TsWindow       *self);
TsEditor         *ts_window_get_editor     (TsWindow       *self);
TsConsole        *ts_window_get_console    (TsWindow       *self);
TsWorkloadRunner *ts_window_get_runner     (TsWindow       *self);
const char       *ts_window_get_status     (TsWindow       *self);
GBytes           *ts_window_dup_trace      (TsWindow       *self);
GtkWidget        *ts_window_get_timeline   (TsWindow       *self);
void              ts_window_set_timeline   (TsWindow       *self,
                                            GtkWidget      *timeline);
/* The Memory view: a TsMemoryPanel; name is "timeline" or "memory". */
GtkWidget        *ts_window_get_memory_panel (TsWindow     *self);
void              ts_window_show_view      (TsWindow       *self,
                                            const char     *name);

G_END_DECLS
