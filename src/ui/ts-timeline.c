/* ts-timeline.c: the interactive timeline of a trace document
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input, in the spirit of Tracy and Perfetto (Sysprof has no wheel zoom):
 *  - Ctrl+wheel, pinch, W/S: zoom around the pointer;
 *  - drag, horizontal wheel, Shift+wheel, A/D: pan; a plain wheel scrolls
 *    the tracks, always;
 *  - Shift+drag, or a drag on the ruler: select a time range;
 *  - click: select an item (a folded box zooms into it, a group header
 *    folds the group); F, 0 or Home: zoom to fit; arrows: move between
 *    items; Escape: clear the selection. The keys are the widget's
 *    actions (timeline.zoom-in …), bound only while it has the focus.
 *
 * Drawing goes through gtk_snapshot_append_cairo() into the renderer; the
 * level of detail there bounds the cost by the pixels, and the last frame's
 * time is kept for the benchmark and the tests.
 */

#include "config.h"

#include <math.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include <string.h>

#include "ts-render-format.h"
#include "ts-time-ruler.h"
#include "ts-timeline.h"
#include "ts-trace-describe.h"

#define MIN_SPAN     10       /* ns: the deepest zoom */
#define DRAG_SLOP    3.0      /* pixels before a press becomes a drag */
#define WHEEL_PX     48.0     /* pixels panned per wheel step */
#define KEY_PAN      0.1      /* fraction of the window per A/D */
#define KEY_ZOOM     0.8
#define LABEL_WIDTH  160.0

typedef enum
{
  DRAG_NONE,
  DRAG_PAN,
  DRAG_RANGE,
} DragMode;

typedef struct
{
  TsTime start;
  guint  track;
  guint  item;
} Match;

struct _TsTimeline
{
  GtkWidget           parent_instance;

  TsTraceDocument    *document;
  TsTimelineRenderer *renderer;
  /* The window, the selection and the folded groups: the renderer reads
   * the same object. */
  TsTimelineViewState *state;
  GtkAdjustment      *vadjustment;

  gboolean            follow;
  gboolean            has_range_set;   /* the window was set before a document came */

  /* Pointer and gestures. */
  double              pointer_x;
  double              pointer_y;
  gboolean            pointer_inside;
  DragMode            drag_mode;
  gboolean            dragged;
  TsTime              drag_begin;
  TsTime              drag_end;
  double              drag_scroll;
  TsTime              drag_anchor;
  TsTime              pinch_begin;
  TsTime              pinch_end;
  double              pinch_x;

  GArray             *matches;         /* Match */
  guint               match;           /* 1-based, 0 none */

  gint64              last_draw_us;
};

G_DEFINE_FINAL_TYPE (TsTimeline, ts_timeline, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_DOCUMENT,
  PROP_BEGIN,
  PROP_END,
  PROP_FOLLOW,
  PROP_SELECTED_TRACK,
  PROP_SELECTED_ITEM,
  PROP_RANGE_BEGIN,
  PROP_RANGE_END,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* --- geometry ----------------------------------------------------------- */

static double
label_width (TsTimeline *self)
{
  return self->renderer != NULL ? ts_timeline_renderer_get_label_width (self->renderer) : LABEL_WIDTH;
}

static double
ruler_height (TsTimeline *self)
{
  return self->renderer != NULL ? ts_timeline_renderer_get_ruler_height (self->renderer) : 26.0;
}

static double
track_width (TsTimeline *self)
{
  return MAX (1.0, gtk_widget_get_width (GTK_WIDGET (self)) - label_width (self));
}

void
ts_timeline_get_view (TsTimeline     *self,
                      TsTimelineView *view)
{
  g_return_if_fail (TS_IS_TIMELINE (self));
  g_return_if_fail (view != NULL);

  ts_timeline_view_state_get_visible_range (self->state, &view->begin, &view->end);
  view->end = MAX (view->end, view->begin + 1);
  view->width = MAX (1, gtk_widget_get_width (GTK_WIDGET (self)));
  view->height = MAX (1, gtk_widget_get_height (GTK_WIDGET (self)));
  view->scroll_y = gtk_adjustment_get_value (self->vadjustment);
}

double
ts_timeline_time_to_x (TsTimeline *self,
                       TsTime      time)
{
  TsTimelineView view;

  g_return_val_if_fail (TS_IS_TIMELINE (self), 0);
  ts_timeline_get_view (self, &view);
  if (self->renderer == NULL)
    return 0;
  return ts_timeline_renderer_time_to_x (self->renderer, &view, time);
}

TsTime
ts_timeline_x_to_time (TsTimeline *self,
                       double      x)
{
  TsTimelineView view;

  g_return_val_if_fail (TS_IS_TIMELINE (self), 0);
  ts_timeline_get_view (self, &view);
  if (self->renderer == NULL)
    return view.begin;
  return ts_timeline_renderer_x_to_time (self->renderer, &view, x);
}

static void
document_span (TsTimeline *self,
               TsTime     *begin,
               TsTime     *end)
{
  *begin = 0;
  *end = 0;
  if (self->document != NULL)
    ts_trace_document_get_time_span (self->document, begin, end);
  if (*end <= *begin)
    *end = *begin + 1000;
}

/* --- the visible window -------------------------------------------------- */

/* The widget's window and selection properties are the state's: its
 * notifications become ours (same names), whoever changed it. */
static void
state_notify_cb (TsTimeline *self,
                 GParamSpec *pspec)
{
  GParamSpec *ours = g_object_class_find_property (G_OBJECT_GET_CLASS (self), pspec->name);

  if (ours != NULL)
    g_object_notify_by_pspec (G_OBJECT (self), ours);
}

static void update_actions (TsTimeline *self);

static void
state_changed_cb (TsTimeline *self)
{
  update_actions (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static TsTime
visible_span (TsTimeline *self)
{
  TsTime begin, end;

  ts_timeline_view_state_get_visible_range (self->state, &begin, &end);
  return end - begin;
}

/* Keeps the window sane: at least MIN_SPAN, at most a little more than the
 * trace, and overlapping it (shifting, never squeezing, so zooming around
 * the pointer stays exact away from the edges). */
static void
clamp_window (TsTimeline *self,
              double     *begin,
              double     *end)
{
  TsTime db, de;
  double total, margin, span;

  document_span (self, &db, &de);
  total = (double) (de - db);
  margin = total * 0.05;
  span = CLAMP (*end - *begin, (double) MIN_SPAN, total + 2 * margin);

  *end = *begin + span;
  if (*begin < db - margin)
    *begin = db - margin, *end = *begin + span;
  if (*end > de + margin)
    *end = de + margin, *begin = *end - span;
}

static void
apply_window (TsTimeline *self,
              double      begin,
              double      end)
{
  TsTime b, e;

  clamp_window (self, &begin, &end);
  b = (TsTime) llround (begin);
  e = MAX (b + 1, (TsTime) llround (end));
  ts_timeline_view_state_set_visible_range (self->state, b, e);
}

/* The user moved the view: stop following a live run. */
static void
user_moved (TsTimeline *self)
{
  ts_timeline_set_follow (self, FALSE);
}

void
ts_timeline_get_visible_range (TsTimeline *self,
                               TsTime     *begin,
                               TsTime     *end)
{
  g_return_if_fail (TS_IS_TIMELINE (self));
  ts_timeline_view_state_get_visible_range (self->state, begin, end);
}

void
ts_timeline_set_visible_range (TsTimeline *self,
                               TsTime      begin,
                               TsTime      end)
{
  g_return_if_fail (TS_IS_TIMELINE (self));

  self->has_range_set = TRUE;
  apply_window (self, (double) MIN (begin, end), (double) MAX (begin, end));
}

void
ts_timeline_zoom_to_fit (TsTimeline *self)
{
  TsTime db, de;

  g_return_if_fail (TS_IS_TIMELINE (self));

  document_span (self, &db, &de);
  /* A little air on both sides so the first and last items are visible. */
  apply_window (self, db - (de - db) * 0.01, de + (de - db) * 0.01);
}

void
ts_timeline_zoom_at (TsTimeline *self,
                     double      x,
                     double      factor)
{
  double w, frac, t, span, new_span;
  TsTime begin, end;

  g_return_if_fail (TS_IS_TIMELINE (self));
  g_return_if_fail (factor > 0);

  ts_timeline_view_state_get_visible_range (self->state, &begin, &end);
  w = track_width (self);
  frac = CLAMP ((x - label_width (self)) / w, 0.0, 1.0);
  span = (double) (end - begin);
  t = begin + frac * span;
  new_span = MAX ((double) MIN_SPAN, span * factor);
  apply_window (self, t - frac * new_span, t - frac * new_span + new_span);
}

void
ts_timeline_pan (TsTimeline *self,
                 double      dx)
{
  double dt;
  TsTime begin, end;

  g_return_if_fail (TS_IS_TIMELINE (self));

  ts_timeline_view_state_get_visible_range (self->state, &begin, &end);
  dt = dx * (double) (end - begin) / track_width (self);
  apply_window (self, begin + dt, end + dt);
}

gboolean
ts_timeline_get_follow (TsTimeline *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE (self), FALSE);
  return self->follow;
}

void
ts_timeline_set_follow (TsTimeline *self,
                        gboolean    follow)
{
  g_return_if_fail (TS_IS_TIMELINE (self));

  follow = !!follow;
  if (self->follow == follow)
    return;
  self->follow = follow;
  if (follow)
    ts_timeline_zoom_to_fit (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FOLLOW]);
}

/* --- vertical scroll ----------------------------------------------------- */

static void
update_vadjustment (TsTimeline *self)
{
  double page = MAX (1.0, gtk_widget_get_height (GTK_WIDGET (self)) - ruler_height (self));
  double upper = self->renderer != NULL ? ts_timeline_renderer_get_content_height (self->renderer) : 0;
  double value = gtk_adjustment_get_value (self->vadjustment);

  upper = MAX (upper, page);
  gtk_adjustment_configure (self->vadjustment,
                            CLAMP (value, 0, upper - page),
                            0, upper, 18, page * 0.9, page);
}

static void
vadjustment_changed_cb (TsTimeline *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

GtkAdjustment *
ts_timeline_get_vadjustment (TsTimeline *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE (self), NULL);
  return self->vadjustment;
}

/* --- document ------------------------------------------------------------ */

static gboolean
get_dark (void)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ());
}

static void
dark_changed_cb (TsTimeline *self)
{
  if (self->renderer != NULL)
    ts_timeline_renderer_set_dark (self->renderer, get_dark ());
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
clear_matches (TsTimeline *self)
{
  g_array_set_size (self->matches, 0);
  self->match = 0;
}

TsTraceDocument *
ts_timeline_get_document (TsTimeline *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE (self), NULL);
  return self->document;
}

TsTimelineRenderer *
ts_timeline_get_renderer (TsTimeline *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE (self), NULL);
  return self->renderer;
}

/**
 * ts_timeline_get_view_state:
 *
 * Returns: (transfer none): the window, selection and folded groups, shared
 *   with the renderer
 */
TsTimelineViewState *
ts_timeline_get_view_state (TsTimeline *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE (self), NULL);
  return self->state;
}

/* Track and item indices of the old document stay valid in a newer one
 * built from more of the same run only by chance, so the selection goes;
 * collapsed groups carry over by title. */
void
ts_timeline_set_document (TsTimeline      *self,
                          TsTraceDocument *document)
{
  g_autoptr(TsTimelineRenderer) old = NULL;
  gboolean first;

  g_return_if_fail (TS_IS_TIMELINE (self));
  g_return_if_fail (document == NULL || TS_IS_TRACE_DOCUMENT (document));

  if (self->document == document)
    return;

  first = self->document == NULL;
  old = g_steal_pointer (&self->renderer);
  g_set_object (&self->document, document);

  if (document != NULL)
    {
      /* The selected range and the folded groups (by title) carry over
       * through the shared state. */
      self->renderer = ts_timeline_renderer_new_for_state (document, self->state);
      ts_timeline_renderer_set_dark (self->renderer, get_dark ());
      /* The pane is narrower than a CLI image: keep more of it for time. */
      ts_timeline_renderer_set_label_width (self->renderer, LABEL_WIDTH);
    }

  ts_timeline_unselect_item (self);
  clear_matches (self);
  update_vadjustment (self);

  if (first && !self->has_range_set)
    ts_timeline_zoom_to_fit (self);
  else if (self->follow)
    ts_timeline_zoom_to_fit (self);
  else
    {
      TsTime begin, end;

      ts_timeline_view_state_get_visible_range (self->state, &begin, &end);
      apply_window (self, begin, end);
    }

  update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* --- selection ----------------------------------------------------------- */

gboolean
ts_timeline_get_selected_item (TsTimeline *self,
                               guint      *track,
                               guint      *item)
{
  g_return_val_if_fail (TS_IS_TIMELINE (self), FALSE);
  return ts_timeline_view_state_get_selected_item (self->state, track, item);
}

void
ts_timeline_select_item (TsTimeline *self,
                         guint       track,
                         guint       item)
{
  g_return_if_fail (TS_IS_TIMELINE (self));
  g_return_if_fail (self->document != NULL);
  g_return_if_fail (track < ts_trace_document_get_n_tracks (self->document));
  g_return_if_fail (item < ts_trace_document_get_track (self->document, track)->n_items);

  ts_timeline_view_state_select_item (self->state, track, item);
}

void
ts_timeline_unselect_item (TsTimeline *self)
{
  g_return_if_fail (TS_IS_TIMELINE (self));
  ts_timeline_view_state_unselect_item (self->state);
}

void
ts_timeline_reveal_item (TsTimeline *self,
                         guint       track,
                         guint       item)
{
  const TsTrack *t;
  TsTimelineRow row;
  TsTime s, e, span, begin, end;
  double page, value, top;

  g_return_if_fail (TS_IS_TIMELINE (self));
  g_return_if_fail (self->document != NULL);
  g_return_if_fail (track < ts_trace_document_get_n_tracks (self->document));

  t = ts_trace_document_get_track (self->document, track);
  g_return_if_fail (item < t->n_items);

  /* A folded group hides its tracks: open it. */
  if (!ts_timeline_renderer_get_track_row (self->renderer, track, &row))
    {
      ts_timeline_view_state_unfold_all (self->state);
      ts_timeline_renderer_get_track_row (self->renderer, track, &row);
    }

  page = gtk_adjustment_get_page_size (self->vadjustment);
  value = gtk_adjustment_get_value (self->vadjustment);
  top = row.y;
  if (top < value || top + row.height > value + page)
    gtk_adjustment_set_value (self->vadjustment, MAX (0, top - page / 3));

  s = t->starts[item];
  e = MAX (t->ends[item], s + 1);
  ts_timeline_view_state_get_visible_range (self->state, &begin, &end);
  span = end - begin;
  if (e - s > span * 9 / 10)
    {
      user_moved (self);
      apply_window (self, s - (e - s) * 0.25, e + (e - s) * 0.25);
    }
  else if (s < begin || e > end)
    {
      TsTime mid = s + (e - s) / 2;

      user_moved (self);
      apply_window (self, mid - span / 2.0, mid + span / 2.0);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ts_timeline_get_selected_range (TsTimeline *self,
                                TsTime     *begin,
                                TsTime     *end)
{
  g_return_if_fail (TS_IS_TIMELINE (self));
  ts_timeline_view_state_get_selected_range (self->state, begin, end);
}

void
ts_timeline_set_selected_range (TsTimeline *self,
                                TsTime      begin,
                                TsTime      end)
{
  g_return_if_fail (TS_IS_TIMELINE (self));
  ts_timeline_view_state_set_selected_range (self->state, begin, end);
}

/* --- keyboard navigation ------------------------------------------------- */

/* The item of `track` nearest to `time` (by start), or FALSE when the track
 * has none. Memory tracks have samples, not items. */
static gboolean
nearest_item (const TsTrack *t,
              TsTime         time,
              guint         *item)
{
  guint lo = 0, hi = t->n_items;

  if (t->n_items == 0)
    return FALSE;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (t->starts[mid] < time)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == t->n_items)
    lo--;
  else if (lo > 0 && time - t->starts[lo - 1] <= t->starts[lo] - time)
    lo--;
  *item = lo;
  return TRUE;
}

static gboolean
move_across_tracks (TsTimeline *self,
                    guint       track,
                    guint       item,
                    int         step)
{
  guint n_rows = ts_timeline_renderer_get_n_rows (self->renderer);
  TsTimelineRow row;
  const TsTrack *cur;
  TsTime time;
  int r = -1;

  cur = ts_trace_document_get_track (self->document, track);
  time = cur->starts[item];
  for (guint i = 0; i < n_rows; i++)
    {
      const TsTimelineRow *ri = ts_timeline_renderer_get_row (self->renderer, i);
      if (ri->kind == TS_TIMELINE_ROW_TRACK && ri->track == track)
        r = (int) i;
    }
  if (r < 0)
    return FALSE;

  for (int i = r + step; i >= 0 && i < (int) n_rows; i += step)
    {
      const TsTimelineRow *ri = ts_timeline_renderer_get_row (self->renderer, i);
      const TsTrack *t;
      guint near;

      if (ri->kind != TS_TIMELINE_ROW_TRACK)
        continue;
      t = ts_trace_document_get_track (self->document, ri->track);
      if (nearest_item (t, time, &near))
        {
          row = *ri;
          ts_timeline_select_item (self, row.track, near);
          ts_timeline_reveal_item (self, row.track, near);
          return TRUE;
        }
    }
  return FALSE;
}

gboolean
ts_timeline_move_selection (TsTimeline          *self,
                            TsTimelineDirection  direction)
{
  const TsTrack *t;
  guint depth, track, item;

  g_return_val_if_fail (TS_IS_TIMELINE (self), FALSE);

  if (self->document == NULL)
    return FALSE;

  /* Nothing selected: start from the first item on screen. */
  if (!ts_timeline_view_state_get_selected_item (self->state, &track, &item))
    {
      TsTime begin;

      ts_timeline_view_state_get_visible_range (self->state, &begin, NULL);
      for (guint i = 0; i < ts_timeline_renderer_get_n_rows (self->renderer); i++)
        {
          const TsTimelineRow *ri = ts_timeline_renderer_get_row (self->renderer, i);

          if (ri->kind != TS_TIMELINE_ROW_TRACK)
            continue;
          t = ts_trace_document_get_track (self->document, ri->track);
          if (nearest_item (t, begin, &item))
            {
              ts_timeline_select_item (self, ri->track, item);
              ts_timeline_reveal_item (self, ri->track, item);
              return TRUE;
            }
        }
      return FALSE;
    }

  if (direction == TS_TIMELINE_TRACK_ABOVE || direction == TS_TIMELINE_TRACK_BELOW)
    return move_across_tracks (self, track, item, direction == TS_TIMELINE_TRACK_ABOVE ? -1 : 1);

  /* Items are sorted by start: the neighbour at the same depth is the
   * nearest index with that depth in the direction asked. */
  t = ts_trace_document_get_track (self->document, track);
  depth = t->depths[item];
  if (direction == TS_TIMELINE_NEXT)
    {
      for (guint i = item + 1; i < t->n_items; i++)
        if (t->depths[i] == depth)
          {
            ts_timeline_select_item (self, track, i);
            ts_timeline_reveal_item (self, track, i);
            return TRUE;
          }
    }
  else
    {
      for (guint i = item; i-- > 0;)
        if (t->depths[i] == depth)
          {
            ts_timeline_select_item (self, track, i);
            ts_timeline_reveal_item (self, track, i);
            return TRUE;
          }
    }
  return FALSE;
}

/* --- find ---------------------------------------------------------------- */

static int
compare_matches (gconstpointer a,
                 gconstpointer b)
{
  const Match *ma = a, *mb = b;

  if (ma->start != mb->start)
    return ma->start < mb->start ? -1 : 1;
  if (ma->track != mb->track)
    return ma->track < mb->track ? -1 : 1;
  return ma->item < mb->item ? -1 : ma->item > mb->item;
}

/* Matching the string table first makes the scan over items one bit test
 * each, however many records the trace holds. */
guint
ts_timeline_find (TsTimeline *self,
                  const char *text)
{
  g_autofree char *needle = NULL;
  g_autofree guint8 *hit = NULL;
  TsRecorder *recorder;
  guint n_strings;
  gboolean any = FALSE;

  g_return_val_if_fail (TS_IS_TIMELINE (self), 0);

  clear_matches (self);
  if (self->document == NULL || text == NULL || *text == '\0')
    return 0;

  recorder = ts_trace_document_get_recorder (self->document);
  n_strings = ts_recorder_get_n_strings (recorder);
  needle = g_utf8_casefold (text, -1);
  hit = g_new0 (guint8, n_strings + 1);
  for (guint id = 1; id <= n_strings; id++)
    {
      g_autofree char *folded = g_utf8_casefold (ts_recorder_lookup (recorder, id), -1);
      if (strstr (folded, needle) != NULL)
        hit[id] = any = TRUE;
    }
  if (!any)
    return 0;

  for (guint ti = 0; ti < ts_trace_document_get_n_tracks (self->document); ti++)
    {
      const TsTrack *t = ts_trace_document_get_track (self->document, ti);

      for (guint i = 0; i < t->n_items; i++)
        if (t->labels[i] <= n_strings && hit[t->labels[i]])
          {
            Match m = { t->starts[i], ti, i };
            g_array_append_val (self->matches, m);
          }
    }
  g_array_sort (self->matches, compare_matches);
  return self->matches->len;
}

gboolean
ts_timeline_find_next (TsTimeline *self,
                       gboolean    backwards)
{
  const Match *m;

  g_return_val_if_fail (TS_IS_TIMELINE (self), FALSE);

  if (self->matches->len == 0)
    return FALSE;

  if (self->match == 0)
    self->match = backwards ? self->matches->len : 1;
  else if (backwards)
    self->match = self->match == 1 ? self->matches->len : self->match - 1;
  else
    self->match = self->match == self->matches->len ? 1 : self->match + 1;

  m = &g_array_index (self->matches, Match, self->match - 1);
  ts_timeline_select_item (self, m->track, m->item);
  ts_timeline_reveal_item (self, m->track, m->item);
  return TRUE;
}

guint
ts_timeline_get_n_matches (TsTimeline *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE (self), 0);
  return self->matches->len;
}

guint
ts_timeline_get_match_position (TsTimeline *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE (self), 0);
  return self->match;
}

/* --- pointer input ------------------------------------------------------- */

static gboolean
hit_test (TsTimeline    *self,
          double         x,
          double         y,
          TsTimelineHit *hit)
{
  TsTimelineView view;

  if (self->renderer == NULL)
    return FALSE;
  ts_timeline_get_view (self, &view);
  return ts_timeline_renderer_hit_test (self->renderer, &view, x, y, hit);
}

gboolean
ts_timeline_click (TsTimeline *self,
                   double      x,
                   double      y)
{
  TsTimelineHit hit;

  g_return_val_if_fail (TS_IS_TIMELINE (self), FALSE);

  if (!hit_test (self, x, y, &hit))
    {
      ts_timeline_unselect_item (self);
      return FALSE;
    }

  switch (hit.kind)
    {
    case TS_TIMELINE_HIT_GROUP:
      /* Rows and the scroll range follow the state's ::folded-changed. */
      ts_timeline_renderer_set_group_collapsed (self->renderer, hit.group,
                                                !ts_timeline_renderer_get_group_collapsed (self->renderer, hit.group));
      return TRUE;

    case TS_TIMELINE_HIT_ITEM:
      ts_timeline_select_item (self, hit.track, hit.item);
      return TRUE;

    case TS_TIMELINE_HIT_EVENT_RECORD:
    case TS_TIMELINE_HIT_EVENT_WAIT:
      {
        guint track, item;

        /* The call that recorded or waited for it: its details name the
         * event and the other side. */
        if (!ts_timeline_renderer_locate_event_call (self->renderer, &hit, &track, &item))
          return FALSE;
        ts_timeline_select_item (self, track, item);
        ts_timeline_reveal_item (self, track, item);
        return TRUE;
      }

    case TS_TIMELINE_HIT_FOLD:
      {
        const TsTrack *t = ts_trace_document_get_track (self->document, hit.track);
        TsTime b = t->starts[hit.item];
        TsTime e = b;

        /* Zoom in on the folded run: its items are in lane order. */
        TsTime span = visible_span (self);

        for (guint i = hit.item; i < t->n_items && e - b < span; i++)
          if (t->depths[i] == hit.depth)
            {
              e = MAX (e, t->ends[i]);
              if (--hit.n_items == 0)
                break;
            }
        user_moved (self);
        apply_window (self, b - (e - b) * 0.1, e + (e - b) * 0.1 + 1);
        return TRUE;
      }

    case TS_TIMELINE_HIT_NONE:
    case TS_TIMELINE_HIT_RULER:
    case TS_TIMELINE_HIT_LABEL:
    case TS_TIMELINE_HIT_TRACK:
    case TS_TIMELINE_HIT_SAMPLE:
    default:
      ts_timeline_unselect_item (self);
      return FALSE;
    }
}

static void
click_released_cb (TsTimeline      *self,
                   int              n_press,
                   double           x,
                   double           y,
                   GtkGestureClick *gesture)
{
  guint track, item;

  if (self->dragged)
    return;
  gtk_widget_grab_focus (GTK_WIDGET (self));
  ts_timeline_click (self, x, y);

  /* A double click on an item zooms to it. */
  if (n_press == 2 && ts_timeline_view_state_get_selected_item (self->state, &track, &item))
    {
      const TsTrack *t = ts_trace_document_get_track (self->document, track);
      TsTime s = t->starts[item];
      TsTime e = MAX (t->ends[item], s + MIN_SPAN);

      user_moved (self);
      apply_window (self, s - (e - s) * 0.2, e + (e - s) * 0.2);
    }
}

static void
drag_begin_cb (TsTimeline     *self,
               double          x,
               double          y,
               GtkGestureDrag *gesture)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));

  self->dragged = FALSE;
  ts_timeline_view_state_get_visible_range (self->state, &self->drag_begin, &self->drag_end);
  self->drag_scroll = gtk_adjustment_get_value (self->vadjustment);
  self->drag_anchor = ts_timeline_x_to_time (self, x);
  if (self->document == NULL || x < label_width (self))
    self->drag_mode = DRAG_NONE;
  else if ((state & GDK_SHIFT_MASK) != 0 || y < ruler_height (self))
    self->drag_mode = DRAG_RANGE;
  else
    self->drag_mode = DRAG_PAN;
}

static void
drag_update_cb (TsTimeline     *self,
                double          dx,
                double          dy,
                GtkGestureDrag *gesture)
{
  double x0, y0;

  if (!self->dragged && fabs (dx) < DRAG_SLOP && fabs (dy) < DRAG_SLOP)
    return;
  self->dragged = TRUE;

  switch (self->drag_mode)
    {
    case DRAG_PAN:
      {
        double dt = -dx * (double) (self->drag_end - self->drag_begin) / track_width (self);

        user_moved (self);
        apply_window (self, self->drag_begin + dt, self->drag_end + dt);
        gtk_adjustment_set_value (self->vadjustment, self->drag_scroll - dy);
      }
      break;

    case DRAG_RANGE:
      gtk_gesture_drag_get_start_point (gesture, &x0, &y0);
      ts_timeline_set_selected_range (self, self->drag_anchor, ts_timeline_x_to_time (self, x0 + dx));
      break;

    case DRAG_NONE:
    default:
      break;
    }
}

static void
drag_end_cb (TsTimeline     *self,
             double          dx,
             double          dy,
             GtkGestureDrag *gesture)
{
  /* A click on the ruler (no drag) clears the range. */
  if (self->drag_mode == DRAG_RANGE && !self->dragged)
    ts_timeline_set_selected_range (self, 0, 0);
  self->drag_mode = DRAG_NONE;
}

static gboolean
scroll_cb (TsTimeline               *self,
           double                    dx,
           double                    dy,
           GtkEventControllerScroll *controller)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));

  if (self->document == NULL)
    return FALSE;

  if ((state & GDK_CONTROL_MASK) != 0)
    {
      user_moved (self);
      ts_timeline_zoom_at (self, self->pointer_x, pow (1.15, dy));
      return TRUE;
    }

  /* A plain wheel always scrolls the rows (and does nothing when they
   * fit): panning only when they fit made the same gesture do two things
   * depending on how many groups are unfolded. */
  if ((state & GDK_SHIFT_MASK) != 0)
    dx += dy, dy = 0;

  if (dx != 0)
    {
      user_moved (self);
      ts_timeline_pan (self, dx * WHEEL_PX);
    }
  if (dy != 0)
    gtk_adjustment_set_value (self->vadjustment, gtk_adjustment_get_value (self->vadjustment) + dy * WHEEL_PX);
  return TRUE;
}

static void
zoom_begin_cb (TsTimeline     *self,
               GdkEventSequence *sequence,
               GtkGestureZoom *gesture)
{
  double cx = 0, cy = 0;

  ts_timeline_view_state_get_visible_range (self->state, &self->pinch_begin, &self->pinch_end);
  gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &cx, &cy);
  self->pinch_x = cx;
}

static void
zoom_scale_changed_cb (TsTimeline     *self,
                       double          scale,
                       GtkGestureZoom *gesture)
{
  double frac, t, span;

  if (self->document == NULL || scale <= 0)
    return;
  user_moved (self);
  frac = CLAMP ((self->pinch_x - label_width (self)) / track_width (self), 0.0, 1.0);
  span = (double) (self->pinch_end - self->pinch_begin);
  t = self->pinch_begin + frac * span;
  span = MAX ((double) MIN_SPAN, span / scale);
  apply_window (self, t - frac * span, t - frac * span + span);
}

static void
motion_cb (TsTimeline               *self,
           double                    x,
           double                    y,
           GtkEventControllerMotion *controller)
{
  self->pointer_x = x;
  self->pointer_y = y;
  self->pointer_inside = TRUE;
}

static void
leave_cb (TsTimeline *self)
{
  self->pointer_inside = FALSE;
}

/* W/S zoom around the pointer when it is over the tracks, else the centre. */
static double
zoom_anchor_x (TsTimeline *self)
{
  if (self->pointer_inside && self->pointer_x >= label_width (self))
    return self->pointer_x;
  return label_width (self) + track_width (self) / 2;
}

/* The keys are actions with bindings of the widget class: a class's
 * shortcuts are local to the widget, so they act only while the timeline
 * has the focus, and a W typed in the editor stays a W. The actions are
 * disabled without a document, so their keys go on to the window then. */
static void
zoom_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  TsTimeline *self = TS_TIMELINE (widget);
  double factor = g_str_equal (action_name, "timeline.zoom-in") ? KEY_ZOOM : 1 / KEY_ZOOM;

  user_moved (self);
  ts_timeline_zoom_at (self, zoom_anchor_x (self), factor);
}

static void
pan_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *param)
{
  TsTimeline *self = TS_TIMELINE (widget);
  double dx = KEY_PAN * track_width (self);

  user_moved (self);
  ts_timeline_pan (self, g_str_equal (action_name, "timeline.pan-left") ? -dx : dx);
}

static void
zoom_to_fit_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  ts_timeline_zoom_to_fit (TS_TIMELINE (widget));
}

static void
clear_selection_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *param)
{
  TsTimeline *self = TS_TIMELINE (widget);

  ts_timeline_unselect_item (self);
  ts_timeline_set_selected_range (self, 0, 0);
}

/* Arrows are bindings with a callback rather than actions: where there is
 * no item to move to, the key is not handled and moves the focus on, as
 * arrows do elsewhere. */
static gboolean
move_binding_cb (GtkWidget *widget,
                 GVariant  *args,
                 gpointer   user_data)
{
  return ts_timeline_move_selection (TS_TIMELINE (widget), g_variant_get_int32 (args));
}

/* Escape has something to clear only while an item or a range is
 * selected; otherwise it goes on (to Stop, in the window). */
static void
update_actions (TsTimeline *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  gboolean has_document = self->document != NULL;
  TsTime begin, end;

  ts_timeline_view_state_get_selected_range (self->state, &begin, &end);
  gtk_widget_action_set_enabled (widget, "timeline.zoom-in", has_document);
  gtk_widget_action_set_enabled (widget, "timeline.zoom-out", has_document);
  gtk_widget_action_set_enabled (widget, "timeline.pan-left", has_document);
  gtk_widget_action_set_enabled (widget, "timeline.pan-right", has_document);
  gtk_widget_action_set_enabled (widget, "timeline.zoom-to-fit", has_document);
  gtk_widget_action_set_enabled (widget, "timeline.clear-selection",
                                 has_document && (ts_timeline_view_state_get_selected_item (self->state, NULL, NULL) ||
                                                  end != begin));
}

static void
add_bindings (GtkWidgetClass *widget_class,
              const char     *action,
              const guint    *keyvals,
              guint           n_keyvals)
{
  for (guint i = 0; i < n_keyvals; i++)
    gtk_widget_class_add_binding_action (widget_class, keyvals[i], 0, action, NULL);
}

static void
install_key_actions (GtkWidgetClass *widget_class)
{
  static const guint zoom_in[] = { GDK_KEY_w, GDK_KEY_W, GDK_KEY_plus, GDK_KEY_equal };
  static const guint zoom_out[] = { GDK_KEY_s, GDK_KEY_S, GDK_KEY_minus };
  static const guint pan_left[] = { GDK_KEY_a, GDK_KEY_A };
  static const guint pan_right[] = { GDK_KEY_d, GDK_KEY_D };
  static const guint fit[] = { GDK_KEY_f, GDK_KEY_F, GDK_KEY_0, GDK_KEY_Home };
  static const guint escape[] = { GDK_KEY_Escape };
  static const struct { guint keyval; TsTimelineDirection direction; } moves[] = {
    { GDK_KEY_Left, TS_TIMELINE_PREVIOUS },
    { GDK_KEY_Right, TS_TIMELINE_NEXT },
    { GDK_KEY_Up, TS_TIMELINE_TRACK_ABOVE },
    { GDK_KEY_Down, TS_TIMELINE_TRACK_BELOW },
  };

  gtk_widget_class_install_action (widget_class, "timeline.zoom-in", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "timeline.zoom-out", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "timeline.pan-left", NULL, pan_action);
  gtk_widget_class_install_action (widget_class, "timeline.pan-right", NULL, pan_action);
  gtk_widget_class_install_action (widget_class, "timeline.zoom-to-fit", NULL, zoom_to_fit_action);
  gtk_widget_class_install_action (widget_class, "timeline.clear-selection", NULL, clear_selection_action);

  add_bindings (widget_class, "timeline.zoom-in", zoom_in, G_N_ELEMENTS (zoom_in));
  add_bindings (widget_class, "timeline.zoom-out", zoom_out, G_N_ELEMENTS (zoom_out));
  add_bindings (widget_class, "timeline.pan-left", pan_left, G_N_ELEMENTS (pan_left));
  add_bindings (widget_class, "timeline.pan-right", pan_right, G_N_ELEMENTS (pan_right));
  add_bindings (widget_class, "timeline.zoom-to-fit", fit, G_N_ELEMENTS (fit));
  add_bindings (widget_class, "timeline.clear-selection", escape, G_N_ELEMENTS (escape));
  for (guint i = 0; i < G_N_ELEMENTS (moves); i++)
    gtk_widget_class_add_binding (widget_class, moves[i].keyval, 0, move_binding_cb, "i", moves[i].direction);
}

/* --- drawing ------------------------------------------------------------- */

static void
ts_timeline_snapshot (GtkWidget   *widget,
                      GtkSnapshot *snapshot)
{
  TsTimeline *self = TS_TIMELINE (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  TsTimelineView view;
  cairo_t *cr;
  gint64 t0;

  if (self->renderer == NULL || width <= 0 || height <= 0)
    return;

  t0 = g_get_monotonic_time ();
  ts_timeline_get_view (self, &view);
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  ts_timeline_renderer_draw (self->renderer, cr, &view);
  cairo_destroy (cr);
  self->last_draw_us = g_get_monotonic_time () - t0;
}

gint64
ts_timeline_get_last_draw_time (TsTimeline *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE (self), 0);
  return self->last_draw_us;
}

static void
ts_timeline_size_allocate (GtkWidget *widget,
                           int        width,
                           int        height,
                           int        baseline)
{
  update_vadjustment (TS_TIMELINE (widget));
}

static void
ts_timeline_measure (GtkWidget      *widget,
                     GtkOrientation  orientation,
                     int             for_size,
                     int            *minimum,
                     int            *natural,
                     int            *minimum_baseline,
                     int            *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 320 : 120;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 800 : 400;
}

/* A device's header is its utilization row: the share of the pixel
 * column under the pointer and of the visible window. */
static gboolean
group_tooltip (TsTimeline          *self,
               const TsTimelineHit *hit,
               int                  x,
               GtkTooltip          *tooltip)
{
  TsTime begin, end, at, next;
  double column, window;
  g_autofree char *title = NULL;
  g_autofree char *text = NULL;
  g_autofree char *markup = NULL;

  ts_timeline_get_visible_range (self, &begin, &end);
  window = ts_timeline_renderer_get_group_busy (self->renderer, hit->group, begin, end);
  if (window < 0)
    return FALSE;
  at = ts_timeline_x_to_time (self, x);
  next = MAX (ts_timeline_x_to_time (self, x + 1), at + 1);
  column = ts_timeline_renderer_get_group_busy (self->renderer, hit->group, at, next);

  title = g_markup_escape_text (ts_timeline_renderer_get_group_title (self->renderer, hit->group), -1);
  /* Translators: a device's utilization: "Busy 73% here, 41% of the visible window" */
  text = g_strdup_printf (_("Busy %.0f%% here, %.0f%% of the visible window"), column * 100, window * 100);
  markup = g_strdup_printf ("<b>%s</b>\n%s\n<small>%s</small>", title, text,
                            _("Any of its streams running a kernel, copy or memset. Click to fold."));
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

/* Why an item is outlined in red: the first line of its error or race. */
static char *
problem_text (TsTimeline *self,
              guint       track,
              guint       item)
{
  TsRecorder *recorder = ts_trace_document_get_recorder (self->document);

  for (guint i = 0; i < ts_timeline_renderer_get_n_problems (self->renderer); i++)
    {
      const TsTimelineProblem *p = ts_timeline_renderer_get_problem (self->renderer, i);
      TsStringId id = 0;
      g_autofree char *named = NULL;
      g_auto(GStrv) lines = NULL;

      if (!((p->has_from && p->from_track == track && p->from_item == item) ||
            (p->has_to && p->to_track == track && p->to_item == item)))
        continue;
      if (p->kind == TS_TIMELINE_PROBLEM_HAZARD)
        {
          guint n;
          const TsHazard *h = ts_trace_document_get_hazards (self->document, &n);
          g_autofree char *why = ts_hazard_explain (&h[p->record], recorder);

          return g_strdup_printf ("%s: %s", _("Hazard"), why);
        }
      if (p->kind == TS_TIMELINE_PROBLEM_ERROR)
        {
          TsErrorRecord e;
          ts_recorder_get (recorder, TS_RECORD_ERROR, p->record, &e);
          id = e.message;
        }
      else
        {
          TsSanitizerRecord r;
          ts_recorder_get (recorder, TS_RECORD_SANITIZER, p->record, &r);
          id = r.report;
        }
      named = ts_trace_name_streams (recorder, id != 0 ? ts_recorder_lookup (recorder, id) : "");
      lines = g_strsplit (named, "\n", 2);
      return g_strdup_printf ("%s: %s", p->kind == TS_TIMELINE_PROBLEM_ERROR ? _("Error") : _("Race"),
                              lines[0] != NULL ? lines[0] : "");
    }
  return NULL;
}

/* What a flag on the ruler stands for. */
static char *
flag_markup (TsTimeline           *self,
             const TsTimelineFlag *flag)
{
  TsRecorder *recorder = ts_trace_document_get_recorder (self->document);
  g_autofree char *when = ts_time_format_at (flag->time, 1);

  if (flag->kind == TS_TIMELINE_FLAG_ERROR)
    {
      TsErrorRecord e;
      const char *message;

      ts_recorder_get (recorder, TS_RECORD_ERROR, flag->record, &e);
      message = e.message != 0 ? ts_recorder_lookup (recorder, e.message) : _("A kernel failed");
      return g_markup_printf_escaped ("<b>%s</b>\n%s\n<small>%s</small>",
                                      _("Error"), message,
                                      _("Reported to the host here. The failing kernel and the call "
                                        "that reported it are outlined in red, with an arrow."));
    }
  else
    {
      TsAllocRecord a;
      g_autofree char *size = NULL, *free_bytes = NULL, *total = NULL, *text = NULL;

      ts_recorder_get (recorder, TS_RECORD_ALLOC, flag->record, &a);
      size = ts_render_format_bytes (a.size);
      free_bytes = ts_render_format_bytes (a.addr);
      total = ts_render_format_bytes (a.requested);
      /* Translators: an OOM: "cuda:0 at 96.000 µs: 64.0 MiB requested, 1.2 GiB of 80.0 GiB free" */
      text = g_strdup_printf (_("cuda:%u at %s: %s requested, %s of %s free on the device"),
                              a.device, when, size, free_bytes, total);
      return g_markup_printf_escaped ("<b>%s</b>\n%s\n<small>%s</small>",
                                      _("Out of memory"), text,
                                      _("The Memory view shows the allocator at this instant and why the request failed."));
    }
}

/* Event markers: a record hangs from the top of its stream's row, a wait
 * stands on the bottom of the waiting stream's. */
static char *
event_markup (TsTimeline          *self,
              const TsTimelineHit *hit)
{
  const char *title = ts_timeline_renderer_get_track_title (self->renderer, hit->track);
  g_autofree char *when = ts_time_format_at (hit->time, 1);

  if (hit->kind == TS_TIMELINE_HIT_EVENT_RECORD)
    return g_markup_printf_escaped ("<b>%s</b>\n%s · %s\n<small>%s</small>",
                                    _("Event recorded"), title, when,
                                    _("cudaEventRecord: the event completes when this stream gets here. "
                                      "An arrow leads to the streams that wait for it."));
  return g_markup_printf_escaped ("<b>%s</b>\n%s · %s\n<small>%s</small>",
                                  _("Waits for an event"), title, when,
                                  _("cudaStreamWaitEvent: work queued after this point starts only once "
                                    "the event's stream has reached its record."));
}

static gboolean
query_tooltip_cb (TsTimeline *self,
                  int         x,
                  int         y,
                  gboolean    keyboard,
                  GtkTooltip *tooltip)
{
  TsTimelineHit hit;
  const TsTrack *t;
  g_autofree char *duration = NULL;
  g_autofree char *markup = NULL;
  TsRecorder *recorder;

  if (keyboard || !hit_test (self, x, y, &hit))
    return FALSE;

  if (hit.kind == TS_TIMELINE_HIT_GROUP)
    return group_tooltip (self, &hit, x, tooltip);

  if (hit.kind == TS_TIMELINE_HIT_FLAG || hit.kind == TS_TIMELINE_HIT_EVENT_RECORD ||
      hit.kind == TS_TIMELINE_HIT_EVENT_WAIT)
    {
      markup = hit.kind == TS_TIMELINE_HIT_FLAG
               ? flag_markup (self, ts_timeline_renderer_get_flag (self->renderer, hit.item))
               : event_markup (self, &hit);
      gtk_tooltip_set_markup (tooltip, markup);
      return TRUE;
    }

  t = hit.kind == TS_TIMELINE_HIT_ITEM || hit.kind == TS_TIMELINE_HIT_FOLD
      ? ts_trace_document_get_track (self->document, hit.track) : NULL;
  if (t == NULL)
    return FALSE;

  recorder = ts_trace_document_get_recorder (self->document);
  duration = ts_time_format_duration (t->ends[hit.item] - t->starts[hit.item]);
  if (hit.kind == TS_TIMELINE_HIT_FOLD)
    {
      g_autofree char *count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u item", "%u items", hit.n_items),
                                                hit.n_items);

      markup = g_markup_printf_escaped ("<b>%s</b>\n%s\n<small>%s</small>", count,
                                        ts_timeline_renderer_get_track_title (self->renderer, hit.track),
                                        _("Too small to draw one by one at this zoom: click to zoom in"));
    }
  else
    {
      g_autofree char *problem = problem_text (self, hit.track, hit.item);

      markup = g_markup_printf_escaped ("<b>%s</b>\n%s · %s%s%s",
                                        ts_recorder_lookup (recorder, t->labels[hit.item]),
                                        duration, ts_timeline_renderer_get_track_title (self->renderer, hit.track),
                                        problem != NULL ? "\n" : "", problem != NULL ? problem : "");
    }
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

/* --- GObject ------------------------------------------------------------- */

static void
ts_timeline_dispose (GObject *object)
{
  TsTimeline *self = TS_TIMELINE (object);

  /* Others (a renderer a caller kept) may hold the state longer. */
  if (self->state != NULL)
    g_signal_handlers_disconnect_by_data (self->state, self);
  g_clear_object (&self->renderer);
  g_clear_object (&self->state);
  g_clear_object (&self->document);
  g_clear_object (&self->vadjustment);
  g_clear_pointer (&self->matches, g_array_unref);

  G_OBJECT_CLASS (ts_timeline_parent_class)->dispose (object);
}

static void
ts_timeline_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  TsTimeline *self = TS_TIMELINE (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      g_value_set_object (value, self->document);
      break;
    case PROP_FOLLOW:
      g_value_set_boolean (value, self->follow);
      break;
    case PROP_BEGIN:
    case PROP_END:
    case PROP_SELECTED_TRACK:
    case PROP_SELECTED_ITEM:
    case PROP_RANGE_BEGIN:
    case PROP_RANGE_END:
      /* The state's property of the same name. */
      g_object_get_property (G_OBJECT (self->state), pspec->name, value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_timeline_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  TsTimeline *self = TS_TIMELINE (object);
  TsTime begin, end;

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      ts_timeline_set_document (self, g_value_get_object (value));
      break;
    case PROP_BEGIN:
      ts_timeline_get_visible_range (self, NULL, &end);
      ts_timeline_set_visible_range (self, g_value_get_int64 (value), end);
      break;
    case PROP_END:
      ts_timeline_get_visible_range (self, &begin, NULL);
      ts_timeline_set_visible_range (self, begin, g_value_get_int64 (value));
      break;
    case PROP_FOLLOW:
      ts_timeline_set_follow (self, g_value_get_boolean (value));
      break;
    case PROP_RANGE_BEGIN:
      ts_timeline_get_selected_range (self, NULL, &end);
      ts_timeline_set_selected_range (self, g_value_get_int64 (value), end);
      break;
    case PROP_RANGE_END:
      ts_timeline_get_selected_range (self, &begin, NULL);
      ts_timeline_set_selected_range (self, begin, g_value_get_int64 (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_timeline_class_init (TsTimelineClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ts_timeline_dispose;
  object_class->get_property = ts_timeline_get_property;
  object_class->set_property = ts_timeline_set_property;

  widget_class->snapshot = ts_timeline_snapshot;
  widget_class->size_allocate = ts_timeline_size_allocate;
  widget_class->measure = ts_timeline_measure;

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, TS_TYPE_TRACE_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_BEGIN] =
    g_param_spec_int64 ("begin", NULL, NULL, G_MININT64, G_MAXINT64, 0,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_END] =
    g_param_spec_int64 ("end", NULL, NULL, G_MININT64, G_MAXINT64, 0,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_FOLLOW] =
    g_param_spec_boolean ("follow", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SELECTED_TRACK] =
    g_param_spec_int ("selected-track", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_SELECTED_ITEM] =
    g_param_spec_int ("selected-item", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_RANGE_BEGIN] =
    g_param_spec_int64 ("range-begin", NULL, NULL, G_MININT64, G_MAXINT64, 0,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_RANGE_END] =
    g_param_spec_int64 ("range-end", NULL, NULL, G_MININT64, G_MAXINT64, 0,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "timeline");
  install_key_actions (widget_class);
}

static void
ts_timeline_init (TsTimeline *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GtkGesture *click, *drag, *zoom;
  GtkEventController *scroll, *motion;

  self->matches = g_array_new (FALSE, FALSE, sizeof (Match));
  self->state = ts_timeline_view_state_new ();
  ts_timeline_view_state_set_visible_range (self->state, 0, 1000);
  g_signal_connect_object (self->state, "notify", G_CALLBACK (state_notify_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->state, "changed", G_CALLBACK (state_changed_cb), self, G_CONNECT_SWAPPED);
  /* After the renderer has laid its rows out again. */
  g_signal_connect_object (self->state, "folded-changed", G_CALLBACK (update_vadjustment), self,
                           G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  self->vadjustment = g_object_ref_sink (gtk_adjustment_new (0, 0, 1, 18, 100, 1));
  g_signal_connect_object (self->vadjustment, "value-changed",
                           G_CALLBACK (vadjustment_changed_cb), self, G_CONNECT_SWAPPED);

  gtk_widget_set_focusable (widget, TRUE);
  gtk_widget_set_overflow (widget, GTK_OVERFLOW_HIDDEN);
  gtk_widget_set_has_tooltip (widget, TRUE);
  g_signal_connect (widget, "query-tooltip", G_CALLBACK (query_tooltip_cb), NULL);

  click = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_PRIMARY);
  g_signal_connect_object (click, "released", G_CALLBACK (click_released_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (click));

  drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  g_signal_connect_object (drag, "drag-begin", G_CALLBACK (drag_begin_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (drag, "drag-update", G_CALLBACK (drag_update_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (drag, "drag-end", G_CALLBACK (drag_end_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (drag));

  zoom = gtk_gesture_zoom_new ();
  g_signal_connect_object (zoom, "begin", G_CALLBACK (zoom_begin_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (zoom, "scale-changed", G_CALLBACK (zoom_scale_changed_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (zoom));

  scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect_object (scroll, "scroll", G_CALLBACK (scroll_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (widget, scroll);

  motion = gtk_event_controller_motion_new ();
  g_signal_connect_object (motion, "motion", G_CALLBACK (motion_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (motion, "leave", G_CALLBACK (leave_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (widget, motion);

  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (dark_changed_cb), self, G_CONNECT_SWAPPED);
  update_actions (self);
}

GtkWidget *
ts_timeline_new (void)
{
  return g_object_new (TS_TYPE_TIMELINE, NULL);
}
