/* ts-timeline-renderer.h: draws a trace document's timeline with cairo
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The drawing, layout and hit testing of the timeline, shared by the GTK
 * widget (which owns zoom, scroll and input and calls draw() from its
 * snapshot) and `tensorscope-cli render` (which draws into an image, SVG or
 * PDF surface). No GTK here.
 *
 * Geometry: the surface is `view->width` x `view->height` pixels. The ruler
 * takes the top ruler_height pixels, the label column the left label_width
 * pixels; tracks scroll vertically under the ruler by view->scroll_y.
 * Rows (group headers and tracks) have y positions in "content"
 * coordinates, where 0 is the top of the first row: a row is on screen at
 * ruler_height + row.y - scroll_y.
 *
 * Level of detail: each lane (one nesting depth of a track) is walked from
 * the first item visible (a binary search). Items at least
 * TS_TIMELINE_FOLD_PX wide are drawn; a run of narrower items that follow
 * one another (gaps under TS_TIMELINE_FOLD_PX) becomes one grey "N items"
 * box, its count taken from positions in the sorted lane, never by visiting
 * the items. Where a run ends comes from a per-lane max-tree of item
 * lengths and gaps built with the renderer, so a fold costs O(log n)
 * however many items or pixel columns it covers; event markers closer than
 * a marker's size merge the same way. A frame costs O((drawn boxes +
 * lanes) x log n), whatever the number of records.
 */

#pragma once

#include <cairo.h>
#include <glib-object.h>

#include "ts-timeline-view-state.h"
#include "ts-trace-document.h"

G_BEGIN_DECLS

#define TS_TIMELINE_FOLD_PX 3.0

/* The visible window. */
typedef struct
{
  TsTime begin;               /* time at the left edge of the track area */
  TsTime end;                 /* time at the right edge; end > begin */
  int    width;               /* surface size in pixels */
  int    height;
  double scroll_y;            /* content pixels scrolled off the top */
} TsTimelineView;

typedef enum
{
  TS_TIMELINE_ROW_GROUP = 1,  /* a group header: a host thread or a device */
  TS_TIMELINE_ROW_TRACK,
} TsTimelineRowKind;

typedef struct
{
  TsTimelineRowKind kind;
  guint             group;
  guint             track;    /* document track index; TRACK rows only */
  double            y;        /* top, content coordinates */
  double            height;
} TsTimelineRow;

typedef enum
{
  TS_TIMELINE_HIT_NONE = 0,
  TS_TIMELINE_HIT_RULER,      /* time is set */
  TS_TIMELINE_HIT_GROUP,      /* a group header: group is set */
  TS_TIMELINE_HIT_LABEL,      /* a track's label: track is set */
  TS_TIMELINE_HIT_TRACK,      /* empty space on a track: track, time */
  TS_TIMELINE_HIT_ITEM,       /* track, item (index in the track's columns), time */
  TS_TIMELINE_HIT_FOLD,       /* a folded box: track, item (its first), n_items, time */
  TS_TIMELINE_HIT_SAMPLE,     /* a memory track: track, item = sample index, time */
  TS_TIMELINE_HIT_FLAG,       /* an error or OOM flag on the ruler: item = flag index */
  TS_TIMELINE_HIT_EVENT_RECORD, /* a stream's event record marker: track, time */
  TS_TIMELINE_HIT_EVENT_WAIT,   /* a stream's event wait marker: track, time */
} TsTimelineHitKind;

typedef struct
{
  TsTimelineHitKind kind;
  guint             group;
  guint             track;
  guint             item;
  guint             n_items;
  guint             depth;
  TsTime            time;
} TsTimelineHit;

/* What the last draw() put on the surface: the counting hook for tests and
 * benchmarks (the level of detail must bound these, not the record count). */
typedef struct
{
  guint   n_items;            /* item boxes drawn */
  guint   n_folds;            /* "N items" boxes */
  guint   n_labels;           /* text layouts shown on items */
  guint   n_markers;          /* event record/wait markers */
  guint   n_arrows;
  guint   n_samples;          /* memory steps drawn */
  guint   n_searches;         /* binary/galloping searches done */
  guint   n_problems;         /* red outlines of failed kernels and races */
} TsTimelineDrawStats;

/* A problem the run reported, drawn in red over the tracks: a faulting
 * kernel (from) and the API call where its error surfaced (to), or the
 * earlier (from) and later (to) of two unordered accesses the sanitizer
 * found, or that the trace's access records show (a hazard, dashed). A
 * side is missing (has_* FALSE) when its item is not in the trace. */
typedef enum
{
  TS_TIMELINE_PROBLEM_ERROR = 1,   /* record indexes TS_RECORD_ERROR */
  TS_TIMELINE_PROBLEM_RACE,        /* record indexes TS_RECORD_SANITIZER */
  TS_TIMELINE_PROBLEM_HAZARD,      /* record indexes ts_trace_document_get_hazards() */
} TsTimelineProblemKind;

typedef struct
{
  TsTimelineProblemKind kind;
  guint                 record;
  gboolean              has_from;
  gboolean              has_to;
  guint                 from_track;
  guint                 from_item;
  guint                 to_track;
  guint                 to_item;
} TsTimelineProblem;

/* An instant the run went wrong, flagged on the ruler. */
typedef enum
{
  TS_TIMELINE_FLAG_ERROR = 1,      /* record indexes TS_RECORD_ERROR */
  TS_TIMELINE_FLAG_OOM,            /* record indexes TS_RECORD_ALLOC (an OOM action) */
} TsTimelineFlagKind;

typedef struct
{
  TsTimelineFlagKind kind;
  TsTime             time;
  guint              record;
} TsTimelineFlag;

#define TS_TYPE_TIMELINE_RENDERER (ts_timeline_renderer_get_type ())

G_DECLARE_FINAL_TYPE (TsTimelineRenderer, ts_timeline_renderer, TS, TIMELINE_RENDERER, GObject)

TsTimelineRenderer *ts_timeline_renderer_new               (TsTraceDocument          *document);
TsTimelineRenderer *ts_timeline_renderer_new_for_state     (TsTraceDocument          *document,
                                                            TsTimelineViewState      *state);
TsTimelineViewState *ts_timeline_renderer_get_view_state   (TsTimelineRenderer       *self);
TsTraceDocument    *ts_timeline_renderer_get_document      (TsTimelineRenderer       *self);

void      ts_timeline_renderer_set_dark            (TsTimelineRenderer       *self,
                                                    gboolean                  dark);
gboolean  ts_timeline_renderer_get_dark            (TsTimelineRenderer       *self);
void      ts_timeline_renderer_set_label_width     (TsTimelineRenderer       *self,
                                                    double                    width);
double    ts_timeline_renderer_get_label_width     (TsTimelineRenderer       *self);
double    ts_timeline_renderer_get_ruler_height    (TsTimelineRenderer       *self);

/* Groups: one per host thread, one per device, in display order. Folding
 * goes through the view state, by the group's title. */
guint       ts_timeline_renderer_get_n_groups      (TsTimelineRenderer       *self);
const char *ts_timeline_renderer_get_group_title   (TsTimelineRenderer       *self,
                                                    guint                     group);
void        ts_timeline_renderer_set_group_collapsed (TsTimelineRenderer     *self,
                                                    guint                     group,
                                                    gboolean                  collapsed);
gboolean    ts_timeline_renderer_get_group_collapsed (TsTimelineRenderer     *self,
                                                    guint                     group);

/* Layout: rows in display order (collapsed groups keep only their header). */
guint     ts_timeline_renderer_get_n_rows          (TsTimelineRenderer       *self);
const char *ts_timeline_renderer_get_track_title   (TsTimelineRenderer       *self,
                                                    guint                     track);
/* The share of [begin, end) any stream of a device group ran something
 * (its header draws this per pixel column); -1 for a host group. */
double    ts_timeline_renderer_get_group_busy      (TsTimelineRenderer       *self,
                                                    guint                     group,
                                                    TsTime                    begin,
                                                    TsTime                    end);
/* Errors and OOMs, by time. */
guint     ts_timeline_renderer_get_n_flags         (TsTimelineRenderer       *self);
const TsTimelineFlag *ts_timeline_renderer_get_flag (TsTimelineRenderer      *self,
                                                    guint                     index);
/* Device groups that ran and allocated nothing; hidden while the view
 * state's "show-idle-devices" is off. */
guint     ts_timeline_renderer_get_n_idle_groups   (TsTimelineRenderer       *self);
const TsTimelineRow *ts_timeline_renderer_get_row  (TsTimelineRenderer       *self,
                                                    guint                     row);
/* The row of a document track; FALSE when hidden in a collapsed group. */
gboolean  ts_timeline_renderer_get_track_row       (TsTimelineRenderer       *self,
                                                    guint                     track,
                                                    TsTimelineRow            *row);
double    ts_timeline_renderer_get_content_height  (TsTimelineRenderer       *self);

double    ts_timeline_renderer_time_to_x           (TsTimelineRenderer       *self,
                                                    const TsTimelineView     *view,
                                                    TsTime                    time);
TsTime    ts_timeline_renderer_x_to_time           (TsTimelineRenderer       *self,
                                                    const TsTimelineView     *view,
                                                    double                    x);

/* What is selected, and which groups are folded, the renderer reads from
 * its view state (ts_timeline_renderer_get_view_state()): a selected item
 * gets an outline, and device work or an API call gets an arrow to its
 * correlated partner; the selected range is shaded. */

guint     ts_timeline_renderer_get_n_problems      (TsTimelineRenderer       *self);
const TsTimelineProblem *ts_timeline_renderer_get_problem (TsTimelineRenderer *self,
                                                    guint                     index);
/* The item of the device work with this correlation id (or, with
 * prefer_api or when there is no such work, of the API call). */
gboolean  ts_timeline_renderer_locate_correlation  (TsTimelineRenderer       *self,
                                                    guint64                   correlation,
                                                    gboolean                  prefer_api,
                                                    guint                    *track,
                                                    guint                    *item);

/* The API call that recorded (or waited for) the event of a marker hit. */
gboolean  ts_timeline_renderer_locate_event_call   (TsTimelineRenderer       *self,
                                                    const TsTimelineHit      *hit,
                                                    guint                    *track,
                                                    guint                    *item);

void      ts_timeline_renderer_draw                (TsTimelineRenderer       *self,
                                                    cairo_t                  *cr,
                                                    const TsTimelineView     *view);
/* What is under (x, y), in surface pixels; the same geometry as draw(). */
gboolean  ts_timeline_renderer_hit_test            (TsTimelineRenderer       *self,
                                                    const TsTimelineView     *view,
                                                    double                    x,
                                                    double                    y,
                                                    TsTimelineHit            *hit);
void      ts_timeline_renderer_get_draw_stats      (TsTimelineRenderer       *self,
                                                    TsTimelineDrawStats      *stats);

G_END_DECLS
