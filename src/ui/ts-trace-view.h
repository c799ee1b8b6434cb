/* ts-trace-view.h: the timeline with its toolbar, search and panels
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the window's right-hand pane shows for a trace: a toolbar (zoom,
 * fit, find), the TsTimeline with its scroll bar, and below it the details
 * of the selected item and the statistics of the selected range. Emits
 * "goto-source" when the user asks to see an item's line in the editor.
 */

#pragma once

#include <adwaita.h>

#include "ts-timeline.h"

G_BEGIN_DECLS

#define TS_TYPE_TRACE_VIEW (ts_trace_view_get_type ())

G_DECLARE_FINAL_TYPE (TsTraceView, ts_trace_view, TS, TRACE_VIEW, AdwBin)

GtkWidget       *ts_trace_view_new              (void);
TsTimeline      *ts_trace_view_get_timeline     (TsTraceView     *self);
void             ts_trace_view_bind_settings    (TsTraceView     *self,
                                                 GSettings       *settings);
void             ts_trace_view_set_document     (TsTraceView     *self,
                                                 TsTraceDocument *document);
TsTraceDocument *ts_trace_view_get_document     (TsTraceView     *self);
/* A short line in the toolbar: "Live", "Cut short", a file name. */
void             ts_trace_view_set_status       (TsTraceView     *self,
                                                 const char      *status);
/* Shows the search bar and focuses its entry (Ctrl+F). */
void             ts_trace_view_start_search     (TsTraceView     *self,
                                                 const char      *text);
void             ts_trace_view_find_next          (TsTraceView     *self,
                                                   gboolean         backwards);
/* The panels' text without markup, for tests. */
char            *ts_trace_view_dup_details_text (TsTraceView     *self);
char            *ts_trace_view_dup_stats_text   (TsTraceView     *self);
/* The source line the "Show Line" button would go to; 0 when none. */
guint            ts_trace_view_get_source_line  (TsTraceView     *self);

G_END_DECLS
