/* ts-timeline.c: the interactive timeline of a trace document
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input, in the spirit of Tracy and Perfetto (Sysprof has no wheel zoom):
 *  - Ctrl+wheel, pinch, W/S: zoom around the pointer;
 *  - drag, horizontal wheel, Shift+wheel, A/D: pan; a plain wheel scrolls
 *    the tracks when they do not fit, else pans;
 *  - Shift+drag, or a drag on the ruler: select a time range;
 *  - click: select an item (a folded box zooms into it, a group header
 *    folds the group); F, 0 or Home: zoom to fit; arrows: move between
 *    items; Escape: clear the selection.
 *
 * Drawing goes through gtk_snapshot_append_cairo() into the renderer; the
 * level of detail there bounds the cost by the pixels, and the last frame's
 * time is kept for the benchmark and the tests.
 */

#include "config.h"

#include <math.h>

#include <adwaita.h>

#include <string.h>

#include "ts-time-ruler.h"
#include "ts-timeline.h"
#include "ts-util-private.h"

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
  GtkAdjustment      *vadjustment;

  TsTime              begin;
  TsTime              end;
  gboolean            follow;
  gboolean            has_range_set;   /* the window was set before a document came */

  gboolean            has_selection;
  guint               selected_track;
  guint               selected_item;
  TsTime              range_begin;
  TsTime              range_end;

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

  view->begin = self->begin;
  view->end = MAX (self->end, self->begin + 1);
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
    return self->begin;
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

/* Two properties that change together (the ends of a window, a track and
 * its item): one notification round, then a redraw. */
static void
notify_pair (TsTimeline *self,
             guint       first,
             guint       second)
{
  g_object_freeze_notify (G_OBJECT (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[first]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[second]);
  g_object_thaw_notify (G_OBJECT (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
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
  if (b == self->begin && e == self->end)
    return;

  self->begin = b;
  self->end = e;
  notify_pair (self, PROP_BEGIN, PROP_END);
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
  _ts_time_range_get (self->begin, self->end, begin, end);
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

  g_return_if_fail (TS_IS_TIMELINE (self));
  g_return_if_fail (factor > 0);

  w = track_width (self);
  frac = CLAMP ((x - label_width (self)) / w, 0.0, 1.0);
  span = (double) (self->end - self->begin);
  t = self->begin + frac * span;
  new_span = MAX ((double) MIN_SPAN, span * factor);
  apply_window (self, t - frac * new_span, t - frac * new_span + new_span);
}

void
ts_timeline_pan (TsTimeline *self,
                 double      dx)
{
  double dt;

  g_return_if_fail (TS_IS_TIMELINE (self));

  dt = dx * (double) (self->end - self->begin) / track_width (self);
  apply_window (self, self->begin + dt, self->end + dt);
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
      self->renderer = ts_timeline_renderer_new (document);
      ts_timeline_renderer_set_dark (self->renderer, get_dark ());
      /* The pane is narrower than a CLI image: keep more of it for time. */
      ts_timeline_renderer_set_label_width (self->renderer, LABEL_WIDTH);
      if (old != NULL)
        {
          for (guint g = 0; g < ts_timeline_renderer_get_n_groups (old); g++)
            {
              if (!ts_timeline_renderer_get_group_collapsed (old, g))
                continue;
              for (guint h = 0; h < ts_timeline_renderer_get_n_groups (self->renderer); h++)
                if (g_strcmp0 (ts_timeline_renderer_get_group_title (old, g),
                               ts_timeline_renderer_get_group_title (self->renderer, h)) == 0)
                  ts_timeline_renderer_set_group_collapsed (self->renderer, h, TRUE);
            }
        }
      ts_timeline_renderer_set_selected_range (self->renderer, self->range_begin, self->range_end);
    }

  if (self->has_selection)
    ts_timeline_unselect_item (self);
  clear_matches (self);
  update_vadjustment (self);

  if (first && !self->has_range_set)
    ts_timeline_zoom_to_fit (self);
  else if (self->follow)
    ts_timeline_zoom_to_fit (self);
  else
    apply_window (self, self->begin, self->end);

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

  if (track != NULL)
    *track = self->has_selection ? self->selected_track : G_MAXUINT;
  if (item != NULL)
    *item = self->has_selection ? self->selected_item : G_MAXUINT;
  return self->has_selection;
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

  if (self->has_selection && self->selected_track == track && self->selected_item == item)
    return;

  self->has_selection = TRUE;
  self->selected_track = track;
  self->selected_item = item;
  ts_timeline_renderer_set_selected_item (self->renderer, track, item);
  notify_pair (self, PROP_SELECTED_TRACK, PROP_SELECTED_ITEM);
}

void
ts_timeline_unselect_item (TsTimeline *self)
{
  g_return_if_fail (TS_IS_TIMELINE (self));

  if (!self->has_selection)
    return;
  self->has_selection = FALSE;
  if (self->renderer != NULL)
    ts_timeline_renderer_clear_selected_item (self->renderer);
  notify_pair (self, PROP_SELECTED_TRACK, PROP_SELECTED_ITEM);
}

void
ts_timeline_reveal_item (TsTimeline *self,
                         guint       track,
                         guint       item)
{
  const TsTrack *t;
  TsTimelineRow row;
  TsTime s, e, span;
  double page, value, top;

  g_return_if_fail (TS_IS_TIMELINE (self));
  g_return_if_fail (self->document != NULL);
  g_return_if_fail (track < ts_trace_document_get_n_tracks (self->document));

  t = ts_trace_document_get_track (self->document, track);
  g_return_if_fail (item < t->n_items);

  /* A folded group hides its tracks: open it. */
  if (!ts_timeline_renderer_get_track_row (self->renderer, track, &row))
    {
      for (guint g = 0; g < ts_timeline_renderer_get_n_groups (self->renderer); g++)
        ts_timeline_renderer_set_group_collapsed (self->renderer, g, FALSE);
      update_vadjustment (self);
      ts_timeline_renderer_get_track_row (self->renderer, track, &row);
    }

  page = gtk_adjustment_get_page_size (self->vadjustment);
  value = gtk_adjustment_get_value (self->vadjustment);
  top = row.y;
  if (top < value || top + row.height > value + page)
    gtk_adjustment_set_value (self->vadjustment, MAX (0, top - page / 3));

  s = t->starts[item];
  e = MAX (t->ends[item], s + 1);
  span = self->end - self->begin;
  if (e - s > span * 9 / 10)
    {
      user_moved (self);
      apply_window (self, s - (e - s) * 0.25, e + (e - s) * 0.25);
    }
  else if (s < self->begin || e > self->end)
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
  _ts_time_range_get (self->range_begin, self->range_end, begin, end);
}

void
ts_timeline_set_selected_range (TsTimeline *self,
                                TsTime      begin,
                                TsTime      end)
{
  TsTime b = MIN (begin, end);
  TsTime e = MAX (begin, end);

  g_return_if_fail (TS_IS_TIMELINE (self));

  if (b == e)
    b = e = 0;
  if (b == self->range_begin && e == self->range_end)
    return;

  self->range_begin = b;
  self->range_end = e;
  if (self->renderer != NULL)
    ts_timeline_renderer_set_selected_range (self->renderer, b, e);
  notify_pair (self, PROP_RANGE_BEGIN, PROP_RANGE_END);
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
                    int         step)
{
  guint n_rows = ts_timeline_renderer_get_n_rows (self->renderer);
  TsTimelineRow row;
  const TsTrack *cur;
  TsTime time;
  int r = -1;

  cur = ts_trace_document_get_track (self->document, self->selected_track);
  time = cur->starts[self->selected_item];
  for (guint i = 0; i < n_rows; i++)
    {
      const TsTimelineRow *ri = ts_timeline_renderer_get_row (self->renderer, i);
      if (ri->kind == TS_TIMELINE_ROW_TRACK && ri->track == self->selected_track)
        r = (int) i;
    }
  if (r < 0)
    return FALSE;

  for (int i = r + step; i >= 0 && i < (int) n_rows; i += step)
    {
      const TsTimelineRow *ri = ts_timeline_renderer_get_row (self->renderer, i);
      const TsTrack *t;
      guint item;

      if (ri->kind != TS_TIMELINE_ROW_TRACK)
        continue;
      t = ts_trace_document_get_track (self->document, ri->track);
      if (nearest_item (t, time, &item))
        {
          row = *ri;
          ts_timeline_select_item (self, row.track, item);
          ts_timeline_reveal_item (self, row.track, item);
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
  guint depth;

  g_return_val_if_fail (TS_IS_TIMELINE (self), FALSE);

  if (self->document == NULL)
    return FALSE;

  /* Nothing selected: start from the first item on screen. */
  if (!self->has_selection)
    {
      for (guint i = 0; i < ts_timeline_renderer_get_n_rows (self->renderer); i++)
        {
          const TsTimelineRow *ri = ts_timeline_renderer_get_row (self->renderer, i);
          guint item;

          if (ri->kind != TS_TIMELINE_ROW_TRACK)
            continue;
          t = ts_trace_document_get_track (self->document, ri->track);
          if (nearest_item (t, self->begin, &item))
            {
              ts_timeline_select_item (self, ri->track, item);
              ts_timeline_reveal_item (self, ri->track, item);
              return TRUE;
            }
        }
      return FALSE;
    }

  if (direction == TS_TIMELINE_TRACK_ABOVE || direction == TS_TIMELINE_TRACK_BELOW)
    return move_across_tracks (self, direction == TS_TIMELINE_TRACK_ABOVE ? -1 : 1);

  /* Items are sorted by start: the neighbour at the same depth is the
   * nearest index with that depth in the direction asked. */
  t = ts_trace_document_get_track (self->document, self->selected_track);
  depth = t->depths[self->selected_item];
  if (direction == TS_TIMELINE_NEXT)
    {
      for (guint i = self->selected_item + 1; i < t->n_items; i++)
        if (t->depths[i] == depth)
          {
            ts_timeline_select_item (self, self->selected_track, i);
            ts_timeline_reveal_item (self, self->selected_track, i);
            return TRUE;
          }
    }
  else
    {
      for (guint i = self->selected_item; i-- > 0;)
        if (t->depths[i] == depth)
          {
            ts_timeline_select_item (self, self->selected_track, i);
            ts_timeline_reveal_item (self, self->selected_track, i);
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
      ts_timeline_renderer_set_group_collapsed (self->renderer, hit.group,
                                                !ts_timeline_renderer_get_group_collapsed (self->renderer, hit.group));
      update_vadjustment (self);
      gtk_widget_queue_draw (GTK_WIDGET (self));
      return TRUE;

    case TS_TIMELINE_HIT_ITEM:
      ts_timeline_select_item (self, hit.track, hit.item);
      return TRUE;

    case TS_TIMELINE_HIT_FOLD:
      {
        const TsTrack *t = ts_trace_document_get_track (self->document, hit.track);
        TsTime b = t->starts[hit.item];
        TsTime e = b;

        /* Zoom in on the folded run: its items are in lane order. */
        for (guint i = hit.item; i < t->n_items && e - b < (self->end - self->begin); i++)
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
  if (self->dragged)
    return;
  gtk_widget_grab_focus (GTK_WIDGET (self));
  ts_timeline_click (self, x, y);

  /* A double click on an item zooms to it. */
  if (n_press == 2 && self->has_selection)
    {
      const TsTrack *t = ts_trace_document_get_track (self->document, self->selected_track);
      TsTime s = t->starts[self->selected_item];
      TsTime e = MAX (t->ends[self->selected_item], s + MIN_SPAN);

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
  self->drag_begin = self->begin;
  self->drag_end = self->end;
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
  double page, upper;

  if (self->document == NULL)
    return FALSE;

  if ((state & GDK_CONTROL_MASK) != 0)
    {
      user_moved (self);
      ts_timeline_zoom_at (self, self->pointer_x, pow (1.15, dy));
      return TRUE;
    }

  if ((state & GDK_SHIFT_MASK) != 0)
    dx += dy, dy = 0;

  page = gtk_adjustment_get_page_size (self->vadjustment);
  upper = gtk_adjustment_get_upper (self->vadjustment);
  if (dy != 0 && upper <= page + 0.5)
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

  self->pinch_begin = self->begin;
  self->pinch_end = self->end;
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

static gboolean
key_pressed_cb (TsTimeline            *self,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                GtkEventControllerKey *controller)
{
  if (self->document == NULL || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK)) != 0)
    return FALSE;

  switch (keyval)
    {
    case GDK_KEY_w: case GDK_KEY_W: case GDK_KEY_plus: case GDK_KEY_equal:
      user_moved (self);
      ts_timeline_zoom_at (self, zoom_anchor_x (self), KEY_ZOOM);
      return TRUE;
    case GDK_KEY_s: case GDK_KEY_S: case GDK_KEY_minus:
      user_moved (self);
      ts_timeline_zoom_at (self, zoom_anchor_x (self), 1 / KEY_ZOOM);
      return TRUE;
    case GDK_KEY_a: case GDK_KEY_A:
      user_moved (self);
      ts_timeline_pan (self, -KEY_PAN * track_width (self));
      return TRUE;
    case GDK_KEY_d: case GDK_KEY_D:
      user_moved (self);
      ts_timeline_pan (self, KEY_PAN * track_width (self));
      return TRUE;
    case GDK_KEY_f: case GDK_KEY_F: case GDK_KEY_0: case GDK_KEY_Home:
      ts_timeline_zoom_to_fit (self);
      return TRUE;
    case GDK_KEY_Left:
      return ts_timeline_move_selection (self, TS_TIMELINE_PREVIOUS);
    case GDK_KEY_Right:
      return ts_timeline_move_selection (self, TS_TIMELINE_NEXT);
    case GDK_KEY_Up:
      return ts_timeline_move_selection (self, TS_TIMELINE_TRACK_ABOVE);
    case GDK_KEY_Down:
      return ts_timeline_move_selection (self, TS_TIMELINE_TRACK_BELOW);
    case GDK_KEY_Escape:
      if (!self->has_selection && self->range_end == self->range_begin)
        return FALSE;
      ts_timeline_unselect_item (self);
      ts_timeline_set_selected_range (self, 0, 0);
      return TRUE;
    default:
      return FALSE;
    }
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

  t = hit.kind == TS_TIMELINE_HIT_ITEM || hit.kind == TS_TIMELINE_HIT_FOLD
      ? ts_trace_document_get_track (self->document, hit.track) : NULL;
  if (t == NULL)
    return FALSE;

  recorder = ts_trace_document_get_recorder (self->document);
  duration = ts_time_format_duration (t->ends[hit.item] - t->starts[hit.item]);
  if (hit.kind == TS_TIMELINE_HIT_FOLD)
    markup = g_markup_printf_escaped ("<b>%u items</b>\n%s\n<small>Click to zoom in</small>",
                                      hit.n_items, t->title);
  else
    markup = g_markup_printf_escaped ("<b>%s</b>\n%s · %s",
                                      ts_recorder_lookup (recorder, t->labels[hit.item]),
                                      duration, t->title);
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

/* --- GObject ------------------------------------------------------------- */

static void
ts_timeline_dispose (GObject *object)
{
  TsTimeline *self = TS_TIMELINE (object);

  g_clear_object (&self->renderer);
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
    case PROP_BEGIN:
      g_value_set_int64 (value, self->begin);
      break;
    case PROP_END:
      g_value_set_int64 (value, self->end);
      break;
    case PROP_FOLLOW:
      g_value_set_boolean (value, self->follow);
      break;
    case PROP_SELECTED_TRACK:
      g_value_set_int (value, self->has_selection ? (int) self->selected_track : -1);
      break;
    case PROP_SELECTED_ITEM:
      g_value_set_int (value, self->has_selection ? (int) self->selected_item : -1);
      break;
    case PROP_RANGE_BEGIN:
      g_value_set_int64 (value, self->range_begin);
      break;
    case PROP_RANGE_END:
      g_value_set_int64 (value, self->range_end);
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

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      ts_timeline_set_document (self, g_value_get_object (value));
      break;
    case PROP_BEGIN:
      ts_timeline_set_visible_range (self, g_value_get_int64 (value), self->end);
      break;
    case PROP_END:
      ts_timeline_set_visible_range (self, self->begin, g_value_get_int64 (value));
      break;
    case PROP_FOLLOW:
      ts_timeline_set_follow (self, g_value_get_boolean (value));
      break;
    case PROP_RANGE_BEGIN:
      ts_timeline_set_selected_range (self, g_value_get_int64 (value), self->range_end);
      break;
    case PROP_RANGE_END:
      ts_timeline_set_selected_range (self, self->range_begin, g_value_get_int64 (value));
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
}

static void
ts_timeline_init (TsTimeline *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GtkGesture *click, *drag, *zoom;
  GtkEventController *scroll, *motion, *key;

  self->matches = g_array_new (FALSE, FALSE, sizeof (Match));
  self->end = 1000;
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

  key = gtk_event_controller_key_new ();
  g_signal_connect_object (key, "key-pressed", G_CALLBACK (key_pressed_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (widget, key);

  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (dark_changed_cb), self, G_CONNECT_SWAPPED);
}

GtkWidget *
ts_timeline_new (void)
{
  return g_object_new (TS_TYPE_TIMELINE, NULL);
}
