/* ts-timeline.h: the interactive timeline of a trace document
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A widget around TsTimelineRenderer: it turns pointer and keyboard input
 * into changes of the visible window (zoom and pan), the selected item and
 * range and the folded groups, which live in a TsTimelineViewState that
 * the renderer reads too, and owns the vertical scroll of the tracks. The
 * renderer does the drawing and the hit testing, so the widget and
 * `tensorscope-cli render` agree on every pixel.
 *
 * Its keys are the actions timeline.zoom-in, zoom-out, pan-left,
 * pan-right, zoom-to-fit and clear-selection, bound (with the arrows) only
 * while the timeline has the focus.
 */

#pragma once

#include <gtk/gtk.h>

#include "ts-timeline-renderer.h"
#include "ts-trace-document.h"

G_BEGIN_DECLS

typedef enum
{
  TS_TIMELINE_PREVIOUS,       /* the item before, on the same track and depth */
  TS_TIMELINE_NEXT,
  TS_TIMELINE_TRACK_ABOVE,    /* the nearest item in time on the track above */
  TS_TIMELINE_TRACK_BELOW,
} TsTimelineDirection;

#define TS_TYPE_TIMELINE (ts_timeline_get_type ())

G_DECLARE_FINAL_TYPE (TsTimeline, ts_timeline, TS, TIMELINE, GtkWidget)

GtkWidget          *ts_timeline_new                (void);
TsTraceDocument    *ts_timeline_get_document       (TsTimeline          *self);
void                ts_timeline_set_document       (TsTimeline          *self,
                                                    TsTraceDocument     *document);
TsTimelineRenderer *ts_timeline_get_renderer       (TsTimeline          *self);
TsTimelineViewState *ts_timeline_get_view_state    (TsTimeline          *self);
GtkAdjustment      *ts_timeline_get_vadjustment    (TsTimeline          *self);

/* The visible window, in trace time. */
void      ts_timeline_get_visible_range  (TsTimeline          *self,
                                          TsTime              *begin,
                                          TsTime              *end);
void      ts_timeline_set_visible_range  (TsTimeline          *self,
                                          TsTime               begin,
                                          TsTime               end);
void      ts_timeline_zoom_to_fit        (TsTimeline          *self);
/* Scales the visible span by factor (< 1 zooms in) keeping the time at
 * widget x where it is. */
void      ts_timeline_zoom_at            (TsTimeline          *self,
                                          double               x,
                                          double               factor);
/* Moves the window by dx pixels (positive shows later times). */
void      ts_timeline_pan                (TsTimeline          *self,
                                          double               dx);
/* While following (a live run), new data refits the window; zooming or
 * panning stops following. */
gboolean  ts_timeline_get_follow         (TsTimeline          *self);
void      ts_timeline_set_follow         (TsTimeline          *self,
                                          gboolean             follow);

/* The geometry of the current frame, for mapping widget coordinates with
 * the renderer's time_to_x / hit_test. */
void      ts_timeline_get_view           (TsTimeline          *self,
                                          TsTimelineView      *view);
double    ts_timeline_time_to_x          (TsTimeline          *self,
                                          TsTime               time);
TsTime    ts_timeline_x_to_time          (TsTimeline          *self,
                                          double               x);

/* Selection: one item, and a time range (begin == end: none). */
gboolean  ts_timeline_get_selected_item  (TsTimeline          *self,
                                          guint               *track,
                                          guint               *item);
void      ts_timeline_select_item        (TsTimeline          *self,
                                          guint                track,
                                          guint                item);
void      ts_timeline_unselect_item      (TsTimeline          *self);
/* Brings an item into view: scrolls to its track, centres it in time
 * when it is off screen (zooming out when it is wider than the window). */
void      ts_timeline_reveal_item        (TsTimeline          *self,
                                          guint                track,
                                          guint                item);
gboolean  ts_timeline_move_selection     (TsTimeline          *self,
                                          TsTimelineDirection  direction);
void      ts_timeline_get_selected_range (TsTimeline          *self,
                                          TsTime              *begin,
                                          TsTime              *end);
void      ts_timeline_set_selected_range (TsTimeline          *self,
                                          TsTime               begin,
                                          TsTime               end);
/* Clicks act on what the renderer's hit test finds at (x, y). */
gboolean  ts_timeline_click              (TsTimeline          *self,
                                          double               x,
                                          double               y);

/* Find by name: case-insensitive substring of item labels. Returns the
 * number of matches (in time order); next/previous select and reveal them
 * in turn, wrapping around. */
guint     ts_timeline_find               (TsTimeline          *self,
                                          const char          *text);
gboolean  ts_timeline_find_next          (TsTimeline          *self,
                                          gboolean             backwards);
guint     ts_timeline_get_n_matches      (TsTimeline          *self);
/* 1-based position of the current match, 0 when none is current. */
guint     ts_timeline_get_match_position (TsTimeline          *self);

/* Microseconds the last frame took to draw. */
gint64    ts_timeline_get_last_draw_time (TsTimeline          *self);

G_END_DECLS
