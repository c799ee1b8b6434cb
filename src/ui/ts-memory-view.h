/* ts-memory-view.h: device memory over time, as a widget
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A GtkWidget around TsMemoryRenderer (which does all the drawing, so the
 * window and `tensorscope-cli render --view memory` agree): reserved,
 * active and allocated lines per device over the stacked live allocation
 * bands, the chosen instant, OOM marks. The visible window and the selected
 * range are properties in trace time, meant to be bound to the timeline's
 * so zooming, panning and range selection move both. Input: a click sets
 * the instant (or, on an OOM mark, shows the allocator's message), a drag
 * selects a range, Ctrl+wheel zooms around the pointer, the wheel pans.
 */

#pragma once

#include <gtk/gtk.h>

#include "ts-memory-renderer.h"
#include "ts-memory-replay.h"
#include "ts-trace-document.h"

G_BEGIN_DECLS

#define TS_TYPE_MEMORY_VIEW (ts_memory_view_get_type ())

G_DECLARE_FINAL_TYPE (TsMemoryView, ts_memory_view, TS, MEMORY_VIEW, GtkWidget)

GtkWidget        *ts_memory_view_new               (void);
/* Both may be NULL (an empty view); the replay is shared with the other
 * memory widgets so it is built once per document. */
void              ts_memory_view_set_document      (TsMemoryView    *self,
                                                    TsTraceDocument *document,
                                                    TsMemoryReplay  *replay);
TsMemoryRenderer *ts_memory_view_get_renderer      (TsMemoryView    *self);

void              ts_memory_view_get_visible_range (TsMemoryView    *self,
                                                    TsTime          *begin,
                                                    TsTime          *end);
void              ts_memory_view_set_visible_range (TsMemoryView    *self,
                                                    TsTime           begin,
                                                    TsTime           end);
void              ts_memory_view_zoom_to_fit       (TsMemoryView    *self);
void              ts_memory_view_get_selected_range (TsMemoryView   *self,
                                                    TsTime          *begin,
                                                    TsTime          *end);
void              ts_memory_view_set_selected_range (TsMemoryView   *self,
                                                    TsTime           begin,
                                                    TsTime           end);
/* The chosen instant, an action index of the replay. */
gsize             ts_memory_view_get_instant       (TsMemoryView    *self);
void              ts_memory_view_set_instant       (TsMemoryView    *self,
                                                    gsize            instant);
guint             ts_memory_view_get_detail        (TsMemoryView    *self);
void              ts_memory_view_set_detail        (TsMemoryView    *self,
                                                    guint            detail);

/* Widget x to trace time with the geometry of the current size. */
TsTime            ts_memory_view_x_to_time         (TsMemoryView    *self,
                                                    double           x);
double            ts_memory_view_time_to_x         (TsMemoryView    *self,
                                                    TsTime           time);
/* What a primary click at (x, y) does; TRUE when it changed something. */
gboolean          ts_memory_view_click             (TsMemoryView    *self,
                                                    double           x,
                                                    double           y);
/* The tooltip at (x, y): the allocator's message on an OOM mark, else
 * the time and the bytes in use there; NULL outside the plots. */
char             *ts_memory_view_describe_at       (TsMemoryView    *self,
                                                    double           x,
                                                    double           y);

G_END_DECLS
