/* ts-memory-panel.h: the Memory page of the window
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Everything about device memory at one chosen instant: a slider over the
 * allocator's actions, memory over time (TsMemoryView), the segment map
 * (TsSegmentMap), and beside it the fragmentation figures with their
 * plain-words explanations, memory_stats() as a searchable, sortable
 * table and memory_summary() as PyTorch prints it. One TsMemoryReplay,
 * built once per document, feeds them all; the side panels follow the
 * instant from an idle callback so that dragging the slider only costs the
 * map's redraw.
 */

#pragma once

#include <gtk/gtk.h>

#include "ts-memory-replay.h"
#include "ts-memory-view.h"
#include "ts-segment-map.h"
#include "ts-trace-document.h"

G_BEGIN_DECLS

#define TS_TYPE_MEMORY_PANEL (ts_memory_panel_get_type ())

G_DECLARE_FINAL_TYPE (TsMemoryPanel, ts_memory_panel, TS, MEMORY_PANEL, GtkWidget)

GtkWidget       *ts_memory_panel_new              (void);
/* A new document (a loaded trace, or a live run's latest state). When the
 * instant was at the end it stays at the end, so a live run is followed. */
void             ts_memory_panel_set_document     (TsMemoryPanel   *self,
                                                   TsTraceDocument *document);
TsTraceDocument *ts_memory_panel_get_document     (TsMemoryPanel   *self);
TsMemoryReplay  *ts_memory_panel_get_replay       (TsMemoryPanel   *self);

gsize            ts_memory_panel_get_instant      (TsMemoryPanel   *self);
void             ts_memory_panel_set_instant      (TsMemoryPanel   *self,
                                                   gsize            instant);
/* The instant just after every action at or before time. */
void             ts_memory_panel_set_instant_time (TsMemoryPanel   *self,
                                                   TsTime           time);
/* Jumps to the instant of the n-th OOM (just after the failed request)
 * and shows its device. FALSE when there is no such OOM. */
gboolean         ts_memory_panel_show_oom         (TsMemoryPanel   *self,
                                                   guint            n);
guint            ts_memory_panel_get_device       (TsMemoryPanel   *self);
void             ts_memory_panel_set_device       (TsMemoryPanel   *self,
                                                   guint            device);

/* The parts, for the window and the tests. */
TsMemoryView    *ts_memory_panel_get_memory_view  (TsMemoryPanel   *self);
TsSegmentMap    *ts_memory_panel_get_segment_map  (TsMemoryPanel   *self);
GtkRange        *ts_memory_panel_get_scale        (TsMemoryPanel   *self);
void             ts_memory_panel_set_by_events    (TsMemoryPanel   *self,
                                                   gboolean         by_events);
gboolean         ts_memory_panel_get_by_events    (TsMemoryPanel   *self);
GtkEditable     *ts_memory_panel_get_search_entry (TsMemoryPanel   *self);
/* The table's rows (TsMemoryStatItem) as shown: filtered and sorted. */
GListModel      *ts_memory_panel_get_stats_model  (TsMemoryPanel   *self);
GtkColumnView   *ts_memory_panel_get_stats_view   (TsMemoryPanel   *self);
char            *ts_memory_panel_dup_summary_text (TsMemoryPanel   *self);
/* The fragmentation figures and sentences as shown. */
char            *ts_memory_panel_dup_fragmentation_text (TsMemoryPanel *self);
/* Brings the side panels up to date now instead of at the next idle. */
void             ts_memory_panel_update_now       (TsMemoryPanel   *self);
/* "fragmentation", "stats" or "summary". */
void             ts_memory_panel_show_page        (TsMemoryPanel   *self,
                                                   const char      *name);

G_END_DECLS
