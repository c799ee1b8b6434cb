/* ts-time-ruler.c: tick spacing, time labels and the ruler strip
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "ts-time-ruler.h"

#define NS_PER_US  G_GINT64_CONSTANT (1000)
#define NS_PER_MS  G_GINT64_CONSTANT (1000000)
#define NS_PER_S   G_GINT64_CONSTANT (1000000000)

TsTime
ts_time_ruler_step (TsTime span,
                    double width,
                    double min_px)
{
  static const int mult[] = { 1, 2, 5 };
  TsTime base = 1;

  if (span <= 0 || width <= 0)
    return 1;

  /* Walk 1, 2, 5, 10, ... until a step is wide enough; at most ~60 steps. */
  for (;;)
    {
      for (guint i = 0; i < G_N_ELEMENTS (mult); i++)
        {
          TsTime step = base * mult[i];
          if ((double) step / (double) span * width >= min_px)
            return step;
        }
      if (base > G_MAXINT64 / 100)
        return base;
      base *= 10;
    }
}

static void
unit_for (TsTime       reference,
          TsTime      *unit,
          const char **name)
{
  TsTime r = reference < 0 ? -reference : reference;

  if (r >= NS_PER_S)
    *unit = NS_PER_S, *name = "s";
  else if (r >= NS_PER_MS)
    *unit = NS_PER_MS, *name = "ms";
  else if (r >= NS_PER_US)
    *unit = NS_PER_US, *name = "µs";
  else
    *unit = 1, *name = "ns";
}

char *
ts_time_format_tick (TsTime t,
                     TsTime step,
                     TsTime reference)
{
  TsTime unit, q, whole, frac, a;
  const char *name;
  int decimals = 0;

  unit_for (MAX (reference, step), &unit, &name);
  /* Fewest decimals such that the step is a whole number of them. */
  q = unit;
  while (q > 1 && (step <= 0 || step % q != 0))
    {
      q /= 10;
      decimals++;
    }

  a = t < 0 ? -t : t;
  whole = a / unit;
  frac = (a % unit) / q;
  if (decimals == 0)
    return g_strdup_printf ("%s%" G_GINT64_FORMAT " %s", t < 0 ? "-" : "", whole, name);
  return g_strdup_printf ("%s%" G_GINT64_FORMAT ".%0*" G_GINT64_FORMAT " %s",
                          t < 0 ? "-" : "", whole, decimals, frac, name);
}

char *
ts_time_format_duration (TsTime t)
{
  double a = fabs ((double) t);

  if (a < NS_PER_US)
    return g_strdup_printf ("%" G_GINT64_FORMAT " ns", t);
  if (a < NS_PER_MS)
    return g_strdup_printf ("%.*f µs", a < 10 * NS_PER_US ? 3 : a < 100 * NS_PER_US ? 2 : 1, t / 1e3);
  if (a < NS_PER_S)
    return g_strdup_printf ("%.*f ms", a < 10 * NS_PER_MS ? 3 : a < 100 * NS_PER_MS ? 2 : 1, t / 1e6);
  return g_strdup_printf ("%.3f s", t / 1e9);
}

char *
ts_time_format_at (TsTime t,
                   TsTime resolution)
{
  TsTime unit, q;
  const char *name;
  int decimals = 0;

  unit_for (t, &unit, &name);
  /* Decimals until one of the last digit is no more than the resolution,
   * and at least as many as ts_time_format_duration() gives. */
  for (q = unit; q > 1 && (q > MAX (resolution, 1) || decimals < 1); q /= 10)
    decimals++;
  if (unit == 1)
    return g_strdup_printf ("%" G_GINT64_FORMAT " ns", t);
  return g_strdup_printf ("%.*f %s", decimals, (double) t / (double) unit, name);
}

/* A tick label for each axis: a time in the ruler's unit, or a count
 * ("0", "2000", "4000"). */
static char *
tick_label (TsRulerAxis axis,
            TsTime      t,
            TsTime      step,
            TsTime      reference)
{
  if (axis == TS_RULER_COUNT)
    return g_strdup_printf ("%" G_GINT64_FORMAT, t);
  return ts_time_format_tick (t, step, reference);
}

void
ts_time_ruler_draw (cairo_t               *cr,
                    PangoLayout           *layout,
                    const TsRenderPalette *palette,
                    TsRulerAxis            axis,
                    double                 x,
                    double                 y,
                    double                 width,
                    double                 height,
                    double                 grid_bottom,
                    TsTime                 begin,
                    TsTime                 end)
{
  TsTime span = end - begin;
  TsTime step, first;
  double scale;

  ts_render_set_color (cr, &palette->ruler_bg);
  cairo_rectangle (cr, x, y, width, height);
  cairo_fill (cr);
  ts_render_set_color (cr, &palette->separator);
  cairo_rectangle (cr, x, y + height - 1, width, 1);
  cairo_fill (cr);

  if (span <= 0 || width <= 0)
    return;

  /* Labels are at most ~12 characters: keep ticks 110 px apart. */
  step = ts_time_ruler_step (span, width, 110);
  scale = width / (double) span;
  first = begin >= 0 ? (begin + step - 1) / step * step : begin / step * step;

  cairo_save (cr);
  cairo_rectangle (cr, x, y, width, grid_bottom - y);
  cairo_clip (cr);
  for (TsTime t = first; t < end; t += step)
    {
      double tx = floor (x + (double) (t - begin) * scale) + 0.5;
      g_autofree char *label = tick_label (axis, t, step, MAX (ABS (begin), ABS (end)));

      ts_render_set_color (cr, &palette->dim_text);
      cairo_move_to (cr, tx, y + height - 7);
      cairo_line_to (cr, tx, y + height);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);

      if (grid_bottom > y + height)
        {
          ts_render_set_color (cr, &palette->grid);
          cairo_move_to (cr, tx, y + height);
          cairo_line_to (cr, tx, grid_bottom);
          cairo_stroke (cr);
        }

      pango_layout_set_width (layout, -1);
      pango_layout_set_text (layout, label, -1);
      ts_render_set_color (cr, &palette->foreground);
      cairo_move_to (cr, tx + 3, y + 3);
      pango_cairo_show_layout (cr, layout);

      /* Minor ticks: five per step. */
      ts_render_set_color (cr, &palette->dim_text);
      for (int m = 1; m < 5; m++)
        {
          double mx = floor (tx + m * step * scale / 5) + 0.5;
          cairo_move_to (cr, mx, y + height - 3);
          cairo_line_to (cr, mx, y + height);
        }
      cairo_stroke (cr);
    }
  /* The minor ticks before the first major one. */
  ts_render_set_color (cr, &palette->dim_text);
  for (int m = 1; m < 5; m++)
    {
      double mx = floor (x + (double) (first - step - begin) * scale + m * step * scale / 5) + 0.5;
      if (mx >= x)
        {
          cairo_move_to (cr, mx, y + height - 3);
          cairo_line_to (cr, mx, y + height);
        }
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}
