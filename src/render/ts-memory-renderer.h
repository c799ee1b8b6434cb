/* ts-memory-renderer.h: device memory over time
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One panel per device. With allocator actions in the trace (a
 * TsMemoryReplay): reserved, active and allocated bytes as step lines, and
 * under them the live allocations as stacked bands, like memory_viz's
 * "Active Memory Timeline": each allocation a band as tall as its block,
 * stacked in allocation order (older below, so a free lets the newer ones
 * drop), coloured by allocation site. Only the `detail` largest
 * allocations of the window get their own band; the rest are one grey
 * "N small allocations" band on top. OOMs are red marks on the time axis
 * with the allocator's message; the chosen instant is a vertical line.
 * Without allocator actions (counter records only), allocated and
 * reserved are drawn as before.
 *
 * The segment map at the chosen instant (ts-segment-map-renderer.h) fills
 * the bottom set_segment_map_height() pixels.
 */

#pragma once

#include <cairo.h>
#include <glib-object.h>

#include "ts-memory-replay.h"
#include "ts-segment-map-renderer.h"
#include "ts-timeline-renderer.h"
#include "ts-trace-document.h"

G_BEGIN_DECLS

#define TS_TYPE_MEMORY_RENDERER (ts_memory_renderer_get_type ())

G_DECLARE_FINAL_TYPE (TsMemoryRenderer, ts_memory_renderer, TS, MEMORY_RENDERER, GObject)

TsMemoryRenderer *ts_memory_renderer_new                   (TsTraceDocument      *document);
void              ts_memory_renderer_set_dark              (TsMemoryRenderer     *self,
                                                            gboolean              dark);
/* Pixels kept at the bottom for the segment map; 0 (the default) for none. */
void              ts_memory_renderer_set_segment_map_height (TsMemoryRenderer    *self,
                                                            double                height);
/* Uses view->begin, end, width and height; scroll_y is ignored. */
void              ts_memory_renderer_draw                  (TsMemoryRenderer     *self,
                                                            cairo_t              *cr,
                                                            const TsTimelineView *view);
/* The replay to draw from; by default one is built from the document's
 * recorder on first use. */
void              ts_memory_renderer_set_replay            (TsMemoryRenderer     *self,
                                                            TsMemoryReplay       *replay);
TsMemoryReplay   *ts_memory_renderer_get_replay            (TsMemoryRenderer     *self);
/* How many allocations get their own band (default 200). */
void              ts_memory_renderer_set_detail            (TsMemoryRenderer     *self,
                                                            guint                 detail);
/* The chosen instant (action index): a line on the panels and the
 * segment map's state. */
void              ts_memory_renderer_set_instant           (TsMemoryRenderer     *self,
                                                            gsize                 index);
/* No instant line in draw() (the default until set_instant). */
void              ts_memory_renderer_clear_instant         (TsMemoryRenderer     *self);
/* Only the instant line, on the panels of the last draw(): a widget keeps
 * the expensive frame (drawn after clear_instant) and moves the line alone
 * while the user scrubs. */
void              ts_memory_renderer_draw_instant          (TsMemoryRenderer     *self,
                                                            cairo_t              *cr,
                                                            gsize                 index);
/* A time range shaded on the panels (the timeline's selection); begin ==
 * end clears it. */
void              ts_memory_renderer_set_selected_range    (TsMemoryRenderer     *self,
                                                            TsTime                begin,
                                                            TsTime                end);
TsSegmentMapRenderer *ts_memory_renderer_get_segment_map   (TsMemoryRenderer     *self);
/* What the last draw() did, for tests. */
typedef struct
{
  guint n_bands;        /* allocations drawn as their own band */
  guint n_folded;       /* allocations of the window folded into the grey band */
  guint n_ooms;         /* OOM marks drawn */
} TsMemoryDrawStats;
void              ts_memory_renderer_get_draw_stats        (TsMemoryRenderer     *self,
                                                            TsMemoryDrawStats    *stats);
/* The allocation whose band is under (x, y) in the last draw (one of the
 * `detail` largest; the grey band of small ones has none). */
gboolean          ts_memory_renderer_hit_allocation        (TsMemoryRenderer     *self,
                                                            double                x,
                                                            double                y,
                                                            guint32              *allocation);
/* The OOM mark under (x, y) of the last draw: its index in the replay. */
gboolean          ts_memory_renderer_hit_oom               (TsMemoryRenderer     *self,
                                                            double                x,
                                                            double                y,
                                                            guint                *oom);
/* The time axis of the panels for a view: the plots span
 * [left, view->width - 10) pixels. For the GTK widget's pointer input. */
double            ts_memory_renderer_time_to_x             (TsMemoryRenderer     *self,
                                                            const TsTimelineView *view,
                                                            TsTime                time);
TsTime            ts_memory_renderer_x_to_time             (TsMemoryRenderer     *self,
                                                            const TsTimelineView *view,
                                                            double                x);
double            ts_memory_renderer_get_plot_left         (TsMemoryRenderer     *self);
/* Panels drawn by the last draw() (one per device with samples). */
guint             ts_memory_renderer_get_n_panels          (TsMemoryRenderer     *self);

G_END_DECLS
