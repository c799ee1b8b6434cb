/* ts-memory-renderer.h: device memory over time
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One panel per device: allocated and reserved bytes as step lines over the
 * window, with a byte axis and the peak marked. The segment map (the
 * allocator's segments split into blocks at one instant) will be drawn
 * under the panels by draw_segment_map() in ts-memory-renderer.c; its
 * height is reserved through set_segment_map_height() so the layout does
 * not change when it lands.
 */

#pragma once

#include <cairo.h>
#include <glib-object.h>

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
/* Panels drawn by the last draw() (one per device with samples). */
guint             ts_memory_renderer_get_n_panels          (TsMemoryRenderer     *self);

G_END_DECLS
