/* ts-memory-renderer.c: device memory over time
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <pango/pangocairo.h>

#include "ts-counter-plot.h"
#include "ts-gallop-private.h"
#include "ts-memory-renderer.h"
#include "ts-memory-view-index.h"
#include "ts-render-format.h"
#include "ts-render-i18n-private.h"
#include "ts-render-palette.h"
#include "ts-time-ruler.h"

#define RULER_H   26.0
#define AXIS_W    90.0
#define PANEL_GAP 10.0
#define TITLE_H   20.0

typedef struct
{
  double x, y, w, h;
  guint  oom;
} OomMark;

/* One device's plot area and axes, in surface pixels and trace time. */
typedef struct
{
  double x0, x1, top, height;
  TsTime begin, end;
  gint64 max;
  guint  device;                /* replay panels */
} Plot;

struct _TsMemoryRenderer
{
  GObject               parent_instance;
  TsTraceDocument      *document;
  gboolean              dark;
  double                segment_map_height;
  guint                 n_panels;
  TsMemoryReplay       *replay;
  TsMemoryViewIndex    *index;        /* of replay, built on the first draw */
  GArray               *top;          /* guint32: the bands of one panel */
  TsSegmentMapRenderer *map;
  guint                 detail;
  gboolean              have_instant;
  gsize                 instant;
  TsTime                sel_begin;
  TsTime                sel_end;
  TsMemoryDrawStats     stats;
  GArray               *oom_marks;    /* OomMark */
  GArray               *plots;        /* Plot: the panels of the last draw */
};

G_DEFINE_FINAL_TYPE (TsMemoryRenderer, ts_memory_renderer, G_TYPE_OBJECT)

static void
ts_memory_renderer_finalize (GObject *object)
{
  TsMemoryRenderer *self = (TsMemoryRenderer *) object;

  g_clear_object (&self->document);
  g_clear_pointer (&self->index, ts_memory_view_index_free);
  g_clear_object (&self->replay);
  g_clear_object (&self->map);
  g_clear_pointer (&self->top, g_array_unref);
  g_clear_pointer (&self->oom_marks, g_array_unref);
  g_clear_pointer (&self->plots, g_array_unref);
  G_OBJECT_CLASS (ts_memory_renderer_parent_class)->finalize (object);
}

static void
ts_memory_renderer_class_init (TsMemoryRendererClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ts_memory_renderer_finalize;
}

static void
ts_memory_renderer_init (TsMemoryRenderer *self)
{
  self->detail = 200;
  self->oom_marks = g_array_new (FALSE, FALSE, sizeof (OomMark));
  self->plots = g_array_new (FALSE, FALSE, sizeof (Plot));
  self->top = g_array_new (FALSE, FALSE, sizeof (guint32));
}

TsMemoryRenderer *
ts_memory_renderer_new (TsTraceDocument *document)
{
  TsMemoryRenderer *self;

  g_return_val_if_fail (TS_IS_TRACE_DOCUMENT (document), NULL);

  self = g_object_new (TS_TYPE_MEMORY_RENDERER, NULL);
  self->document = g_object_ref (document);
  return self;
}

void
ts_memory_renderer_set_dark (TsMemoryRenderer *self,
                             gboolean          dark)
{
  g_return_if_fail (TS_IS_MEMORY_RENDERER (self));
  self->dark = !!dark;
}

void
ts_memory_renderer_set_segment_map_height (TsMemoryRenderer *self,
                                           double            height)
{
  g_return_if_fail (TS_IS_MEMORY_RENDERER (self));
  self->segment_map_height = MAX (0, height);
}

void
ts_memory_renderer_set_replay (TsMemoryRenderer *self,
                               TsMemoryReplay   *replay)
{
  g_return_if_fail (TS_IS_MEMORY_RENDERER (self));
  g_return_if_fail (replay == NULL || TS_IS_MEMORY_REPLAY (replay));

  if (self->replay == replay)
    return;
  g_clear_pointer (&self->index, ts_memory_view_index_free);
  g_set_object (&self->replay, replay);
  g_clear_object (&self->map);
}

TsMemoryReplay *
ts_memory_renderer_get_replay (TsMemoryRenderer *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_RENDERER (self), NULL);

  if (self->replay == NULL)
    self->replay = ts_memory_replay_new (ts_trace_document_get_recorder (self->document));
  return self->replay;
}

/* Built once per replay: a frame then visits only what the window needs. */
static TsMemoryViewIndex *
get_index (TsMemoryRenderer *self)
{
  if (self->index == NULL)
    self->index = ts_memory_view_index_new (ts_memory_renderer_get_replay (self));
  return self->index;
}

void
ts_memory_renderer_set_detail (TsMemoryRenderer *self,
                               guint             detail)
{
  g_return_if_fail (TS_IS_MEMORY_RENDERER (self));
  self->detail = detail;
}

TsSegmentMapRenderer *
ts_memory_renderer_get_segment_map (TsMemoryRenderer *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_RENDERER (self), NULL);

  if (self->map == NULL)
    {
      self->map = ts_segment_map_renderer_new (ts_memory_renderer_get_replay (self));
      if (self->have_instant)
        ts_segment_map_renderer_set_index (self->map, self->instant);
    }
  return self->map;
}

void
ts_memory_renderer_set_instant (TsMemoryRenderer *self,
                                gsize             index)
{
  g_return_if_fail (TS_IS_MEMORY_RENDERER (self));

  self->have_instant = TRUE;
  self->instant = index;
  if (self->map != NULL)
    ts_segment_map_renderer_set_index (self->map, index);
}

void
ts_memory_renderer_set_selected_range (TsMemoryRenderer *self,
                                       TsTime            begin,
                                       TsTime            end)
{
  g_return_if_fail (TS_IS_MEMORY_RENDERER (self));

  self->sel_begin = MIN (begin, end);
  self->sel_end = MAX (begin, end);
}

void
ts_memory_renderer_clear_instant (TsMemoryRenderer *self)
{
  g_return_if_fail (TS_IS_MEMORY_RENDERER (self));
  self->have_instant = FALSE;
}

void
ts_memory_renderer_get_draw_stats (TsMemoryRenderer  *self,
                                   TsMemoryDrawStats *stats)
{
  g_return_if_fail (TS_IS_MEMORY_RENDERER (self));
  g_return_if_fail (stats != NULL);
  *stats = self->stats;
}

gboolean
ts_memory_renderer_hit_oom (TsMemoryRenderer *self,
                            double            x,
                            double            y,
                            guint            *oom)
{
  g_return_val_if_fail (TS_IS_MEMORY_RENDERER (self), FALSE);

  for (guint k = 0; k < self->oom_marks->len; k++)
    {
      const OomMark *m = &g_array_index (self->oom_marks, OomMark, k);

      if (x >= m->x && x < m->x + m->w && y >= m->y && y < m->y + m->h)
        {
          if (oom)
            *oom = m->oom;
          return TRUE;
        }
    }
  return FALSE;
}

/* Which of a panel's bands a point is on: the stacking of draw_bands()
 * for the one pixel column under it. */
static gboolean
hit_band (TsMemoryRenderer *self,
          const Plot       *pl,
          double            x,
          double            y,
          guint32          *allocation)
{
  guint n_cols = (guint) MAX (1, ceil (pl->x1 - pl->x0));
  guint c = (guint) MIN (n_cols - 1, MAX (0, x - pl->x0));
  TsTime t = pl->begin + (TsTime) ((double) (c + 1) * (double) (pl->end - pl->begin) / n_cols);
  TsTime last_t = pl->begin + (TsTime) ((double) n_cols * (double) (pl->end - pl->begin) / n_cols);
  gsize at = ts_memory_replay_index_at_time (self->replay, t);
  g_autoptr(GArray) top = g_array_new (FALSE, FALSE, sizeof (guint32));
  double value = (pl->top + pl->height - y) / pl->height * (double) pl->max;
  double col_top = 0;

  ts_memory_view_index_query (get_index (self), pl->device, ts_memory_replay_index_at_time (self->replay, pl->begin),
                              ts_memory_replay_index_at_time (self->replay, last_t), self->detail, top);
  for (guint k = 0; k < top->len; k++)
    {
      guint32 id = g_array_index (top, guint32, k);
      const TsMemoryAllocation *a = ts_memory_replay_get_allocation (self->replay, id);

      if (!(a->alloc_action < at && (a->free_completed_action == TS_MEMORY_REPLAY_NONE ||
                                     at <= a->free_completed_action)))
        continue;
      if (value >= col_top && value < col_top + (double) a->size)
        {
          *allocation = id;
          return TRUE;
        }
      col_top += (double) a->size;
    }
  return FALSE;
}

gboolean
ts_memory_renderer_hit_allocation (TsMemoryRenderer *self,
                                   double            x,
                                   double            y,
                                   guint32          *allocation)
{
  g_return_val_if_fail (TS_IS_MEMORY_RENDERER (self), FALSE);
  g_return_val_if_fail (allocation != NULL, FALSE);

  for (guint k = 0; self->replay != NULL && k < self->plots->len; k++)
    {
      const Plot *pl = &g_array_index (self->plots, Plot, k);

      if (x >= pl->x0 && x < pl->x1 && y >= pl->top && y < pl->top + pl->height)
        return hit_band (self, pl, x, y, allocation);
    }
  return FALSE;
}

guint
ts_memory_renderer_get_n_panels (TsMemoryRenderer *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_RENDERER (self), 0);
  return self->n_panels;
}

double
ts_memory_renderer_get_plot_left (TsMemoryRenderer *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_RENDERER (self), 0);
  return AXIS_W;
}

/* The same mapping as plot_x() below, for widgets that take input. */
double
ts_memory_renderer_time_to_x (TsMemoryRenderer     *self,
                              const TsTimelineView *view,
                              TsTime                time)
{
  double x0 = AXIS_W, x1 = view->width - 10;

  g_return_val_if_fail (TS_IS_MEMORY_RENDERER (self), 0);
  g_return_val_if_fail (view != NULL, 0);

  return x0 + (double) (time - view->begin) * (x1 - x0) / (double) MAX (1, view->end - view->begin);
}

TsTime
ts_memory_renderer_x_to_time (TsMemoryRenderer     *self,
                              const TsTimelineView *view,
                              double                x)
{
  double x0 = AXIS_W, x1 = view->width - 10;

  g_return_val_if_fail (TS_IS_MEMORY_RENDERER (self), 0);
  g_return_val_if_fail (view != NULL, 0);

  if (x1 <= x0)
    return view->begin;
  return view->begin + (TsTime) llround ((x - x0) / (x1 - x0) * (double) MAX (1, view->end - view->begin));
}

static void
draw_text (cairo_t             *cr,
           PangoLayout         *layout,
           const TsRenderColor *color,
           const char          *text,
           double               x,
           double               y)
{
  pango_layout_set_text (layout, text, -1);
  ts_render_set_color (cr, color);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
}

static void
draw_usage_panel (TsMemoryRenderer      *self,
                  cairo_t               *cr,
                  PangoLayout           *layout,
                  const TsRenderPalette *p,
                  const TsTrack         *t,
                  const TsTimelineView  *view,
                  double                 y,
                  double                 h)
{
  double x0 = AXIS_W, x1 = view->width - 10;
  double top = y + TITLE_H, ph = h - TITLE_H;
  gint64 max = 0, peak = 0, step;
  TsTime peak_time = 0;
  TsCounterPlot plot = { t->sample_times, t->reserved, t->n_samples, view->begin, view->end,
                         x0, x1, top, ph, 0 };
  g_autofree char *title = NULL;
  g_autofree char *track_title = NULL;
  g_autofree char *peak_text = NULL;

  for (guint s = 0; s < t->n_samples; s++)
    {
      max = MAX (max, MAX (t->allocated[s], t->reserved[s]));
      if (t->allocated[s] > peak)
        peak = t->allocated[s], peak_time = t->sample_times[s];
    }
  step = ts_render_byte_step (max, 4);
  plot.max = MAX (1, (max + step - 1) / step * step);

  peak_text = ts_render_format_bytes ((guint64) peak);
  track_title = ts_render_track_title (ts_trace_document_get_recorder (self->document), t);
  /* Translators: "Memory (cuda:0) — peak allocated 40.0 MiB" */
  title = g_strdup_printf (_("%s — peak allocated %s"), track_title, peak_text);
  pango_layout_set_width (layout, (int) ((x1 - 8) * PANGO_SCALE));
  draw_text (cr, layout, &p->foreground, title, 8, y + 2);
  pango_layout_set_width (layout, -1);

  /* Byte axis and grid. */
  for (gint64 v = 0; v <= plot.max; v += step)
    {
      double gy = floor (top + ph - (double) v / (double) plot.max * ph) + 0.5;
      g_autofree char *label = ts_render_format_axis_bytes (v);

      ts_render_set_color (cr, &p->grid);
      cairo_move_to (cr, x0, gy);
      cairo_line_to (cr, x1, gy);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);
      draw_text (cr, layout, &p->dim_text, label, 8, gy - 7);
    }

  cairo_save (cr);
  cairo_rectangle (cr, x0, top - 2, x1 - x0, ph + 4);
  cairo_clip (cr);
  ts_counter_plot_draw (cr, &plot, &p->reserved);
  plot.values = t->allocated;
  ts_counter_plot_draw (cr, &plot, &p->allocated);

  /* The peak of allocated memory: a dot and a dashed level. */
  if (peak > 0 && peak_time >= view->begin && peak_time < view->end)
    {
      double px = x0 + (double) (peak_time - view->begin) * (x1 - x0) / (double) MAX (1, view->end - view->begin);
      double py = top + ph - (double) peak / (double) plot.max * ph;
      double dash[] = { 4, 3 };

      ts_render_set_color (cr, &p->selection);
      cairo_arc (cr, px, py, 3, 0, 2 * G_PI);
      cairo_fill (cr);
      cairo_set_dash (cr, dash, 2, 0);
      cairo_move_to (cr, x0, floor (py) + 0.5);
      cairo_line_to (cr, x1, floor (py) + 0.5);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
  cairo_restore (cr);

  ts_render_set_color (cr, &p->separator);
  cairo_rectangle (cr, x0, top, x1 - x0, ph);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
}

/* ------------------------------------------------------------------ */
/* From the allocator's actions: lines, bands, OOMs                     */


static inline double
plot_y (const Plot *pl,
        gint64      v)
{
  return pl->top + pl->height - (double) v / (double) pl->max * pl->height;
}

static inline double
plot_x (const Plot *pl,
        TsTime      t)
{
  return pl->x0 + (double) (t - pl->begin) * (pl->x1 - pl->x0) / (double) MAX (1, pl->end - pl->begin);
}

/* The value in force at time t (the last sample at or before it). */
static gint64
value_at (const TsTime *times,
          const gint64 *values,
          guint         n,
          TsTime        t)
{
  gint64 k = ts_counter_plot_find (times, n, t);
  return k < 0 ? 0 : values[k];
}

typedef struct
{
  const Plot   *pl;
  const TsTime *times;
  double        col;
} InColumn;

static gboolean
in_column (gconstpointer data,
           guint         i)
{
  const InColumn *c = data;

  return floor (plot_x (c->pl, c->times[i])) <= c->col;
}

/* The first sample in (k, end) left of which all fall in pixel column
 * `col`, or end: times[k] is in it, and columns never decrease with
 * time, so gallop then bisect. */
static guint
column_end (const Plot   *pl,
            const TsTime *times,
            guint         k,
            guint         end,
            double        col)
{
  InColumn c = { pl, times, col };

  return _ts_gallop_past (k, end, in_column, &c);
}

/* The stroke of a step line as filled geometry. cairo_stroke() spent
 * ~5 ms per line on a full-width frame (thousands of joins, and a tall
 * min-max extent in every column whose long edges the rasterizer walks
 * row by row); the same region as rectangles and one outline per run of
 * adjacent extents is filled in a fraction of that.
 *
 * A column's extent (x, top, bottom) is a bar 2 hw wide; the bars of
 * adjacent columns always overlap vertically (a column's extent holds the
 * value it starts from, which the previous one ends at), so a run of them
 * is one x-monotone outline: per slice between bar edges, the lowest top
 * to the highest bottom of the bars over it. */
static void
add_spike_runs (cairo_t      *cr,
                const double *sp,
                guint         n,
                double        hw)
{
  g_autofree double *e = g_new (double, 2 * MAX (n, 1));
  g_autofree double *top = g_new (double, 2 * MAX (n, 1));
  g_autofree double *bot = g_new (double, 2 * MAX (n, 1));
  guint i = 0;

  while (i < n)
    {
      guint j = i + 1, m = 0, n_slices;

      while (j < n && sp[3 * j] == sp[3 * (j - 1)] + 1)
        j++;
      /* The bar edges of the run [i, j), sorted (nearly sorted already:
       * insertion sort), without repeats. */
      for (guint k = i; k < j; k++)
        {
          e[m++] = sp[3 * k] - hw;
          e[m++] = sp[3 * k] + hw;
        }
      for (guint a = 1; a < m; a++)
        for (guint q = a; q > 0 && e[q - 1] > e[q]; q--)
          {
            double t = e[q];

            e[q] = e[q - 1];
            e[q - 1] = t;
          }
      n_slices = 0;
      for (guint k = 0; k + 1 < m; k++)
        {
          double x0 = e[k], x1 = e[k + 1], t = G_MAXDOUBLE, b = -G_MAXDOUBLE;

          if (x1 <= x0)
            continue;    /* a repeated edge */
          for (guint q = i; q < j; q++)
            if (sp[3 * q] - hw <= x0 && sp[3 * q] + hw >= x1)
              t = MIN (t, sp[3 * q + 1]), b = MAX (b, sp[3 * q + 2]);
          e[n_slices] = x0;
          top[n_slices] = t;
          bot[n_slices] = b;
          e[n_slices + 1] = x1;
          n_slices++;
        }
      if (n_slices > 0)
        {
          cairo_move_to (cr, e[0], top[0]);
          for (guint k = 0; k < n_slices; k++)
            {
              cairo_line_to (cr, e[k], top[k]);
              cairo_line_to (cr, e[k + 1], top[k]);
            }
          for (guint k = n_slices; k-- > 0;)
            {
              cairo_line_to (cr, e[k + 1], bot[k]);
              cairo_line_to (cr, e[k], bot[k]);
            }
          cairo_close_path (cr);
        }
      i = j;
    }
}

/* Adds a rectangle [x0, x1] x [y0, y1] (any order) to the path, clockwise
 * like the outlines above so the winding rule unites them. */
static inline void
add_rect (cairo_t *cr,
          double   x0,
          double   y0,
          double   x1,
          double   y1)
{
  cairo_rectangle (cr, MIN (x0, x1), MIN (y0, y1), fabs (x1 - x0), fabs (y1 - y0));
}

/* The stroke of an axis-parallel polyline (x, y pairs), width 2 hw, miter
 * joins and butt caps, as rectangles: each segment thickened by hw and
 * lengthened by hw at a right-angle join (the square a miter fills). A
 * vertical segment at a column with an extent (sp, sorted by x) keeps only
 * what sticks out of the extent's bar. */
static void
add_polyline_rects (cairo_t      *cr,
                    const double *pts,
                    guint         n,
                    const double *sp,
                    guint         n_sp,
                    double        hw)
{
  g_autofree double *p = g_new (double, 2 * MAX (n, 1));
  guint m = 0, s = 0;

  /* Drop repeated points, and points inside a straight run. */
  for (guint k = 0; k < n; k++)
    {
      double x = pts[2 * k], y = pts[2 * k + 1];

      if (m > 0 && p[2 * (m - 1)] == x && p[2 * (m - 1) + 1] == y)
        continue;
      if (m > 1)
        {
          double ax = p[2 * (m - 2)], ay = p[2 * (m - 2) + 1];
          double bx = p[2 * (m - 1)], by = p[2 * (m - 1) + 1];

          if ((ax == bx && bx == x && (by - ay) * (y - by) > 0) ||
              (ay == by && by == y && (bx - ax) * (x - bx) > 0))
            m--;
        }
      p[2 * m] = x, p[2 * m + 1] = y;
      m++;
    }

  for (guint k = 0; k + 1 < m; k++)
    {
      double ax = p[2 * k], ay = p[2 * k + 1], bx = p[2 * k + 2], by = p[2 * k + 3];
      gboolean vertical = ax == bx;
      /* A neighbour segment at a right angle: the other orientation. */
      gboolean join_a = k > 0 && (p[2 * k - 2] == ax) != vertical;
      gboolean join_b = k + 2 < m && (p[2 * k + 4] == bx) != vertical;
      double ea = join_a ? hw : 0, eb = join_b ? hw : 0;

      if (vertical)
        {
          double dir = by > ay ? 1 : -1;
          double y0 = ay - dir * ea, y1 = by + dir * eb;
          double lo = MIN (y0, y1), hi = MAX (y0, y1);

          while (s < n_sp && sp[3 * s] < ax)
            s++;
          if (s < n_sp && sp[3 * s] == ax)
            {
              if (lo < sp[3 * s + 1])
                add_rect (cr, ax - hw, lo, ax + hw, MIN (hi, sp[3 * s + 1]));
              if (hi > sp[3 * s + 2])
                add_rect (cr, ax - hw, MAX (lo, sp[3 * s + 2]), ax + hw, hi);
            }
          else
            add_rect (cr, ax - hw, lo, ax + hw, hi);
        }
      else
        {
          double dir = bx > ax ? 1 : -1;

          add_rect (cr, ax - dir * ea, ay - hw, bx + dir * eb, ay + hw);
        }
    }
}

static inline void
add_point (GArray *pts,
           double  x,
           double  y)
{
  double xy[2] = { x, y };
  g_array_append_vals (pts, xy, 2);
}

static inline void
add_spike (GArray *spikes,
           double  x,
           double  y_lo,
           double  y_hi)
{
  double s[3] = { x, MIN (y_lo, y_hi), MAX (y_lo, y_hi) };
  g_array_append_vals (spikes, s, 3);
}

/* A step line, one vertical per pixel column from its minimum to its
 * maximum so spikes show however many samples share the column. The
 * samples of a column are skipped in O(log) and summarized from the
 * block minima and maxima, so a frame costs O(columns log samples). The
 * steps are one polyline and each column's min-max extent a bar of the
 * line's width: the shape of a single zigzag going down to the minimum
 * and up to the maximum (a stroke ends flat at such a reversal). */
static void
stroke_steps (cairo_t             *cr,
              const Plot          *pl,
              const TsTime        *times,
              const gint64        *values,
              const gint64        *block_min,
              const gint64        *block_max,
              guint                n,
              GArray              *pts,
              GArray              *spikes,
              const TsRenderColor *color,
              double               width)
{
  gint64 first = ts_counter_plot_find (times, n, pl->begin);
  gint64 v = first < 0 ? 0 : values[first];
  double cur_col = floor (pl->x0);
  gint64 lo = v, hi = v;
  guint k = first < 0 ? 0 : (guint) first + 1;
  guint end = ts_counter_plot_gallop (times, n, k, pl->end);

  g_array_set_size (pts, 0);
  g_array_set_size (spikes, 0);
  add_point (pts, pl->x0, plot_y (pl, v));
  while (k < end)
    {
      double col = floor (plot_x (pl, times[k]));
      guint j = column_end (pl, times, k, end, col);

      if (col != cur_col)
        {
          add_point (pts, cur_col + 0.5, plot_y (pl, v));
          if (lo != hi)
            add_spike (spikes, cur_col + 0.5, plot_y (pl, lo), plot_y (pl, hi));
          add_point (pts, col + 0.5, plot_y (pl, v));
          cur_col = col;
          lo = hi = v;
        }
      /* Changes inside one column widen its min/max. */
      ts_counter_plot_widen_range (values, block_min, block_max, k, j, &lo, &hi);
      v = values[j - 1];
      k = j;
    }
  add_point (pts, cur_col + 0.5, plot_y (pl, v));
  if (lo != hi)
    add_spike (spikes, cur_col + 0.5, plot_y (pl, lo), plot_y (pl, hi));
  add_point (pts, pl->x1, plot_y (pl, v));

  cairo_new_path (cr);
  add_polyline_rects (cr, (const double *) pts->data, pts->len / 2,
                      (const double *) spikes->data, spikes->len / 3, width / 2);
  add_spike_runs (cr, (const double *) spikes->data, spikes->len / 3, width / 2);
  ts_render_set_color (cr, color);
  cairo_set_fill_rule (cr, CAIRO_FILL_RULE_WINDING);
  cairo_fill (cr);
}

/* The first column c >= lo whose instant is beyond `action`
 * (col_index[c] > action), or n_cols: col_index never decreases. */
static guint
first_col_after (const gsize *col_index,
                 guint        lo,
                 guint        n_cols,
                 guint32      action)
{
  guint hi = n_cols;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (col_index[mid] > action)
        hi = mid;
      else
        lo = mid + 1;
    }
  return lo;
}

/* A band's polygon over columns [c, run): top edge left to right, bottom
 * edge back, one vertex where the height changes (the columns between lie
 * on the same horizontal, so the filled shape is that of one vertex pair
 * per column). */
static void
band_path (cairo_t      *cr,
           const Plot   *pl,
           const double *col_top,
           guint         c,
           guint         run,
           guint64       size)
{
  double prev = 0;

  cairo_move_to (cr, pl->x0 + c, plot_y (pl, (gint64) col_top[c]));
  for (guint q = c; q < run; q++)
    {
      double ty = plot_y (pl, (gint64) (col_top[q] + (double) size));

      if (q == c || ty != prev)
        cairo_line_to (cr, pl->x0 + q, ty);
      if (q + 1 == run || plot_y (pl, (gint64) (col_top[q + 1] + (double) size)) != ty)
        cairo_line_to (cr, pl->x0 + q + 1, ty);
      prev = ty;
    }
  for (guint q = run; q-- > c;)
    {
      double by = plot_y (pl, (gint64) col_top[q]);

      if (q + 1 == run || by != prev)
        cairo_line_to (cr, pl->x0 + q + 1, by);
      if (q == c || plot_y (pl, (gint64) col_top[q - 1]) != by)
        cairo_line_to (cr, pl->x0 + q, by);
      prev = by;
    }
  cairo_close_path (cr);
}

/* The live allocations as stacked bands under the lines. */
static void
draw_bands (TsMemoryRenderer      *self,
            cairo_t               *cr,
            PangoLayout           *layout,
            const TsRenderPalette *p,
            const Plot            *pl,
            guint                  device,
            const TsTime          *times,
            const gint64          *active,
            guint                  n_samples)
{
  TsMemoryReplay *replay = self->replay;
  guint n_cols = (guint) MAX (1, ceil (pl->x1 - pl->x0));
  g_autofree gsize *col_index = g_new (gsize, n_cols);
  g_autofree double *col_top = g_new0 (double, n_cols);
  gsize first_index = ts_memory_replay_index_at_time (replay, pl->begin);
  guint n_alive, n_drawn, n_folded;
  double best_w = 0, best_x = 0, best_y = 0;

  for (guint c = 0; c < n_cols; c++)
    {
      TsTime t = pl->begin + (TsTime) ((double) (c + 1) * (double) (pl->end - pl->begin) / n_cols);
      col_index[c] = ts_memory_replay_index_at_time (replay, t);
    }

  /* Allocations of this device alive at some point of the window: how
   * many, and the `detail` largest, in allocation order. */
  n_alive = ts_memory_view_index_query (get_index (self), device, first_index, col_index[n_cols - 1],
                                        self->detail, self->top);
  n_drawn = self->top->len;
  n_folded = n_alive - n_drawn;
  self->stats.n_bands += n_drawn;
  self->stats.n_folded += n_folded;

  /* Each band on top of the older live ones. An allocation is live at
   * column c when alloc_action < col_index[c] <= free_completed_action,
   * one run of columns since col_index never decreases. */
  for (guint k = 0; k < self->top->len; k++)
    {
      const TsMemoryAllocation *a = ts_memory_replay_get_allocation (replay, g_array_index (self->top, guint32, k));
      guint c = first_col_after (col_index, 0, n_cols, a->alloc_action);
      guint run = a->free_completed_action == TS_MEMORY_REPLAY_NONE ? n_cols :
                  first_col_after (col_index, c, n_cols, a->free_completed_action);
      double r, g, bl;

      if (c >= run)
        continue;
      ts_memory_site_color (&a->loc, self->dark, &r, &g, &bl);
      cairo_set_source_rgba (cr, r, g, bl, 0.9);
      band_path (cr, pl, col_top, c, run, a->size);
      for (guint q = c; q < run; q++)
        col_top[q] += (double) a->size;
      cairo_fill (cr);
    }

  /* The rest of active memory: one grey band on top. Its label goes in
   * the widest stretch where the band is tall enough for text. */
  if (n_folded > 0)
    {
      gint run_start = -1;
      double run_y = 0;

      ts_render_set_color (cr, &p->fold);
      for (guint c = 0; c <= n_cols; c++)
        {
          double h = 0;
          gint64 act = 0;

          if (c < n_cols)
            {
              TsTime t = pl->begin + (TsTime) ((double) (c + 1) * (double) (pl->end - pl->begin) / n_cols);

              act = value_at (times, active, n_samples, t);
              if ((double) act > col_top[c])
                {
                  h = plot_y (pl, (gint64) col_top[c]) - plot_y (pl, act);
                  cairo_rectangle (cr, pl->x0 + c, plot_y (pl, act), 1, h);
                }
            }
          if (h > 14)
            {
              if (run_start < 0)
                run_start = (gint) c, run_y = plot_y (pl, act);
              run_y = MAX (run_y, plot_y (pl, act));
            }
          else if (run_start >= 0)
            {
              if ((double) c - run_start > best_w)
                best_w = (double) c - run_start, best_x = run_start, best_y = run_y;
              run_start = -1;
            }
        }
      cairo_fill (cr);

      {
        g_autofree char *label = g_strdup_printf ("%u small allocations", n_folded);
        int tw, th;

        pango_layout_set_text (layout, label, -1);
        pango_layout_get_pixel_size (layout, &tw, &th);
        if (best_w > tw + 8)
          {
            ts_render_set_color (cr, &p->fold_text);
            cairo_move_to (cr, pl->x0 + best_x + 4, best_y + 1);
            pango_cairo_show_layout (cr, layout);
          }
      }
    }
}

static void
draw_ooms (TsMemoryRenderer      *self,
           cairo_t               *cr,
           PangoLayout           *layout,
           const Plot            *pl,
           guint                  device)
{
  guint n = ts_memory_replay_get_n_ooms (self->replay);
  double last_label_x = -1e9;
  static const TsRenderColor red = { 0.88, 0.11, 0.14, 1 };

  for (guint k = 0; k < n; k++)
    {
      const TsMemoryOom *o = ts_memory_replay_get_oom (self->replay, k);
      double x;
      double dash[] = { 3, 3 };

      if (o->device != device || o->time < pl->begin || o->time >= pl->end)
        continue;
      x = floor (plot_x (pl, o->time)) + 0.5;
      ts_render_set_color (cr, &red);
      cairo_set_dash (cr, dash, 2, 0);
      cairo_set_line_width (cr, 1);
      cairo_move_to (cr, x, pl->top);
      cairo_line_to (cr, x, pl->top + pl->height);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      cairo_move_to (cr, x - 5, pl->top + pl->height + 7);
      cairo_line_to (cr, x + 5, pl->top + pl->height + 7);
      cairo_line_to (cr, x, pl->top + pl->height);
      cairo_close_path (cr);
      cairo_fill (cr);
      {
        OomMark m = { x - 6, pl->top, 12, pl->height + 8, k };
        g_array_append_val (self->oom_marks, m);
      }
      self->stats.n_ooms++;

      /* The allocator's message, as much as fits, where labels don't
       * collide. */
      if (x - last_label_x > 200)
        {
          g_autofree char *msg = ts_memory_replay_format_oom (self->replay, k);
          char *dot = strstr (msg, " GPU ");
          double lw = MIN (pl->x1 - x - 6, 520);

          if (dot != NULL)
            {
              /* "CUDA out of memory. Tried to allocate X." then the rest:
               * keep the first sentence and the free/total one. */
              char *end = strstr (dot, " Of the allocated");
              if (end != NULL)
                *end = '\0';
            }
          if (lw < 120)
            lw = 300, x = x - 306;
          pango_layout_set_width (layout, (int) (lw * PANGO_SCALE));
          ts_render_set_color (cr, &red);
          cairo_move_to (cr, x + 6, pl->top + 2);
          pango_layout_set_text (layout, msg, -1);
          pango_cairo_show_layout (cr, layout);
          pango_layout_set_width (layout, -1);
          last_label_x = x;
        }
    }
}

static void
draw_instant_line (TsMemoryRenderer      *self,
                   cairo_t               *cr,
                   const TsRenderPalette *p,
                   const Plot            *pl,
                   gsize                  index)
{
  gsize idx = MIN (index, ts_memory_replay_get_n_actions (self->replay));
  TsTime t = idx > 0 ? ts_memory_replay_get_action_time (self->replay, idx - 1) : pl->begin;
  double x = floor (plot_x (pl, t)) + 0.5;

  if (t < pl->begin || t > pl->end)
    return;
  ts_render_set_color (cr, &p->selection);
  cairo_set_line_width (cr, 2);
  cairo_move_to (cr, x, pl->top);
  cairo_line_to (cr, x, pl->top + pl->height);
  cairo_stroke (cr);
}

static void
draw_replay_panel (TsMemoryRenderer      *self,
                   cairo_t               *cr,
                   PangoLayout           *layout,
                   const TsRenderPalette *p,
                   guint                  device,
                   const TsTimelineView  *view,
                   double                 y,
                   double                 h)
{
  const TsTime *times;
  const gint64 *allocated, *active, *reserved;
  const gint64 *bmin[3] = { NULL, NULL, NULL }, *bmax[3] = { NULL, NULL, NULL };
  TsMemoryViewIndex *index = get_index (self);
  g_autoptr(GArray) pts = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) spikes = g_array_new (FALSE, FALSE, sizeof (double));
  guint n = 0;
  gint64 max = 0, peak = 0, step;
  Plot pl;
  g_autofree char *title = NULL;
  g_autofree char *peak_text = NULL;

  ts_memory_replay_get_usage (self->replay, device, &n, &times, &allocated, &active, &reserved);
  if (ts_memory_view_index_get_extremes (index, device, &max, &peak))
    for (guint k = 0; k < 3; k++)
      ts_memory_view_index_get_blocks (index, device, k, &bmin[k], &bmax[k]);
  step = ts_render_byte_step (max, 4);

  pl.x0 = AXIS_W;
  pl.x1 = view->width - 10;
  pl.top = y + TITLE_H;
  pl.height = h - TITLE_H - 10;
  pl.begin = view->begin;
  pl.end = MAX (view->end, view->begin + 1);
  pl.max = MAX (1, (max + step - 1) / step * step);

  peak_text = ts_render_format_bytes ((guint64) peak);
  title = g_strdup_printf (_("Device %u memory — peak allocated %s — lines: reserved, active, allocated; "
                             "bands: live allocations by site"), device, peak_text);
  pango_layout_set_width (layout, (int) ((pl.x1 - 8) * PANGO_SCALE));
  draw_text (cr, layout, &p->foreground, title, 8, y + 2);
  pango_layout_set_width (layout, -1);

  for (gint64 v = 0; v <= pl.max; v += step)
    {
      double gy = floor (plot_y (&pl, v)) + 0.5;
      g_autofree char *label = ts_render_format_axis_bytes (v);

      ts_render_set_color (cr, &p->grid);
      cairo_move_to (cr, pl.x0, gy);
      cairo_line_to (cr, pl.x1, gy);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);
      draw_text (cr, layout, &p->dim_text, label, 8, gy - 7);
    }

  cairo_save (cr);
  cairo_rectangle (cr, pl.x0, pl.top - 2, pl.x1 - pl.x0, pl.height + 12);
  cairo_clip (cr);
  draw_bands (self, cr, layout, p, &pl, device, times, active, n);
  stroke_steps (cr, &pl, times, reserved, bmin[TS_MEMORY_VIEW_SERIES_RESERVED], bmax[TS_MEMORY_VIEW_SERIES_RESERVED], n, pts, spikes, &p->reserved, 2);
  {
    TsRenderColor act = p->foreground;
    act.a = 0.8;
    stroke_steps (cr, &pl, times, active, bmin[TS_MEMORY_VIEW_SERIES_ACTIVE], bmax[TS_MEMORY_VIEW_SERIES_ACTIVE], n, pts, spikes, &act, 1);
  }
  stroke_steps (cr, &pl, times, allocated, bmin[TS_MEMORY_VIEW_SERIES_ALLOCATED], bmax[TS_MEMORY_VIEW_SERIES_ALLOCATED], n, pts, spikes, &p->allocated, 1.5);
  draw_ooms (self, cr, layout, &pl, device);

  if (self->sel_end > self->sel_begin)
    {
      double sx0 = MAX (pl.x0, plot_x (&pl, self->sel_begin));
      double sx1 = MIN (pl.x1, plot_x (&pl, self->sel_end));
      TsRenderColor sel = p->selection;

      sel.a = 0.15;
      ts_render_set_color (cr, &sel);
      cairo_rectangle (cr, sx0, pl.top, MAX (1, sx1 - sx0), pl.height);
      cairo_fill (cr);
    }

  if (self->have_instant)
    draw_instant_line (self, cr, p, &pl, self->instant);
  pl.device = device;
  g_array_append_val (self->plots, pl);
  cairo_restore (cr);

  ts_render_set_color (cr, &p->separator);
  cairo_rectangle (cr, pl.x0, pl.top, pl.x1 - pl.x0, pl.height);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
}

/* The allocator's segments at the chosen instant (the end by default). */
static void
draw_segment_map (TsMemoryRenderer      *self,
                  cairo_t               *cr,
                  double                 width,
                  double                 y,
                  double                 h)
{
  TsSegmentMapRenderer *map = ts_memory_renderer_get_segment_map (self);

  ts_segment_map_renderer_set_dark (map, self->dark);
  ts_segment_map_renderer_draw (map, cr, 0, y, width, h);
}

/* A panel per device that reserved memory or failed to: a device that
 * only saw recorder-only actions (a memory fraction, a stats reset) would
 * be an empty panel. */
static gboolean
device_used (TsMemoryReplay *replay,
             guint           device)
{
  const TsTime *times;
  const gint64 *allocated, *active, *reserved;
  guint n = 0;

  if (!ts_memory_replay_get_usage (replay, device, &n, &times, &allocated, &active, &reserved))
    return FALSE;
  for (guint s = 0; s < n; s++)
    if (reserved[s] > 0)
      return TRUE;
  for (guint k = 0; k < ts_memory_replay_get_n_ooms (replay); k++)
    if (ts_memory_replay_get_oom (replay, k)->device == device)
      return TRUE;
  return FALSE;
}

void
ts_memory_renderer_draw (TsMemoryRenderer     *self,
                         cairo_t              *cr,
                         const TsTimelineView *view)
{
  const TsRenderPalette *p;
  g_autoptr(GPtrArray) tracks = g_ptr_array_new ();
  g_autoptr(GArray) devices = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(PangoFontDescription) font = NULL;
  TsMemoryReplay *replay;
  PangoLayout *layout;
  double area, panel_h, y;
  guint n;

  g_return_if_fail (TS_IS_MEMORY_RENDERER (self));
  g_return_if_fail (cr != NULL);
  g_return_if_fail (view != NULL);

  p = ts_render_palette_get (self->dark);
  memset (&self->stats, 0, sizeof self->stats);
  g_array_set_size (self->oom_marks, 0);
  g_array_set_size (self->plots, 0);
  replay = ts_memory_renderer_get_replay (self);
  for (guint d = 0; d < ts_memory_replay_get_n_devices (replay); d++)
    if (device_used (replay, d))
      g_array_append_val (devices, d);

  n = ts_trace_document_get_n_tracks (self->document);
  for (guint i = 0; i < n && devices->len == 0; i++)
    {
      const TsTrack *t = ts_trace_document_get_track (self->document, i);
      if (t->kind == TS_TRACK_MEMORY && t->n_samples > 0)
        g_ptr_array_add (tracks, (gpointer) t);
    }
  self->n_panels = devices->len > 0 ? devices->len : tracks->len;

  cairo_save (cr);
  ts_render_set_color (cr, &p->background);
  cairo_paint (cr);

  layout = pango_cairo_create_layout (cr);
  font = pango_font_description_from_string ("Sans 8");
  pango_layout_set_font_description (layout, font);
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);

  ts_time_ruler_draw (cr, layout, p,
                      self->replay != NULL && ts_memory_replay_get_by_events (self->replay)
                        ? TS_RULER_COUNT : TS_RULER_TIME,
                      AXIS_W, 0, view->width - 10 - AXIS_W, RULER_H,
                      view->height - self->segment_map_height, view->begin, MAX (view->end, view->begin + 1));

  area = view->height - RULER_H - self->segment_map_height;
  if (self->n_panels == 0)
    draw_text (cr, layout, &p->dim_text, _("No memory counters in this trace"), AXIS_W, RULER_H + 10);
  else
    {
      panel_h = (area - PANEL_GAP * self->n_panels) / self->n_panels;
      y = RULER_H + PANEL_GAP / 2;
      for (guint i = 0; i < self->n_panels; i++)
        {
          if (devices->len > 0)
            draw_replay_panel (self, cr, layout, p, g_array_index (devices, guint, i), view, y, panel_h);
          else
            draw_usage_panel (self, cr, layout, p, g_ptr_array_index (tracks, i), view, y, panel_h);
          y += panel_h + PANEL_GAP;
        }
    }

  if (self->segment_map_height > 0)
    draw_segment_map (self, cr, view->width, view->height - self->segment_map_height, self->segment_map_height);

  g_object_unref (layout);
  cairo_restore (cr);
}

void
ts_memory_renderer_draw_instant (TsMemoryRenderer *self,
                                 cairo_t          *cr,
                                 gsize             index)
{
  const TsRenderPalette *p;

  g_return_if_fail (TS_IS_MEMORY_RENDERER (self));
  g_return_if_fail (cr != NULL);

  p = ts_render_palette_get (self->dark);
  for (guint k = 0; k < self->plots->len; k++)
    {
      const Plot *pl = &g_array_index (self->plots, Plot, k);

      cairo_save (cr);
      cairo_rectangle (cr, pl->x0, pl->top, pl->x1 - pl->x0, pl->height);
      cairo_clip (cr);
      draw_instant_line (self, cr, p, pl, index);
      cairo_restore (cr);
    }
}
