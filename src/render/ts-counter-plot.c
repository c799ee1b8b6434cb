/* ts-counter-plot.c: a counter series as a step line over pixel columns
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "ts-counter-plot.h"
#include "ts-gallop-private.h"

typedef struct
{
  const TsTime *times;
  TsTime        limit;
} Before;

static gboolean
time_before (gconstpointer data,
             guint         i)
{
  const Before *b = data;

  return b->times[i] < b->limit;
}

guint
ts_counter_plot_gallop (const TsTime *times,
                        guint         n,
                        guint         k,
                        TsTime        limit)
{
  Before b = { times, limit };

  if (k >= n || !time_before (&b, k))
    return k;
  return _ts_gallop_past (k, n, time_before, &b);
}

gint64
ts_counter_plot_find (const TsTime *times,
                      guint         n_samples,
                      TsTime        time)
{
  guint k = ts_counter_plot_gallop (times, n_samples, 0, time == G_MAXINT64 ? time : time + 1);

  return (gint64) k - 1;
}

static double
value_y (const TsCounterPlot *p,
         gint64               v)
{
  return p->top + p->height - (p->max > 0 ? (double) v / (double) p->max * p->height : 0);
}

void
ts_counter_plot_build_blocks (const gint64 *values,
                              guint         n_samples,
                              gint64       *block_min,
                              gint64       *block_max)
{
  g_return_if_fail (values != NULL || n_samples == 0);

  for (guint b = 0; b * TS_COUNTER_PLOT_BLOCK < n_samples; b++)
    {
      guint end = MIN (n_samples, (b + 1) * TS_COUNTER_PLOT_BLOCK);
      gint64 lo = G_MAXINT64, hi = G_MININT64;

      for (guint s = b * TS_COUNTER_PLOT_BLOCK; s < end; s++)
        {
          lo = MIN (lo, values[s]);
          hi = MAX (hi, values[s]);
        }
      block_min[b] = lo;
      block_max[b] = hi;
    }
}

guint
ts_counter_plot_draw (cairo_t             *cr,
                      const TsCounterPlot *p,
                      const TsRenderColor *color)
{
  double scale = (p->x1 - p->x0) / (double) MAX (1, p->end - p->begin);
  double x_start = p->x0, x_last;
  guint n = p->n_samples, k, columns = 0;
  gint64 cur;

  if (n == 0)
    return 0;

  /* The value in force at the left edge. */
  k = ts_counter_plot_gallop (p->times, n, 0, p->begin + 1);
  cur = k > 0 ? p->values[k - 1] : 0;
  if (k == 0)
    x_start = MAX (p->x0, p->x0 + (double) (p->times[0] - p->begin) * scale);

  cairo_move_to (cr, x_start, value_y (p, cur));
  while (k < n && p->times[k] < p->end)
    {
      double col = floor (p->x0 + (double) (p->times[k] - p->begin) * scale);
      TsTime limit = p->begin + (TsTime) ceil ((col + 1 - p->x0) / scale);
      guint j = ts_counter_plot_gallop (p->times, n, k, limit);
      gint64 lo = cur, hi = cur;

      if (j <= k)
        j = k + 1;
      ts_counter_plot_widen_range (p->values, p->block_min, p->block_max, k, j, &lo, &hi);
      col = MAX (col, p->x0);
      cairo_line_to (cr, col, value_y (p, cur));
      if (lo != hi)
        {
          cairo_line_to (cr, col, value_y (p, hi));
          cairo_line_to (cr, col, value_y (p, lo));
        }
      cur = p->values[j - 1];
      cairo_line_to (cr, col, value_y (p, cur));
      columns++;
      k = j;
    }
  x_last = p->x1;
  cairo_line_to (cr, x_last, value_y (p, cur));

  ts_render_set_color (cr, color);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke_preserve (cr);
  cairo_line_to (cr, x_last, p->top + p->height);
  cairo_line_to (cr, x_start, p->top + p->height);
  cairo_close_path (cr);
  cairo_set_source_rgba (cr, color->r, color->g, color->b, 0.18 * color->a);
  cairo_fill (cr);
  return columns;
}
