/* ts-counter-plot.h: a counter series as a step line over pixel columns
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>

#include "ts-render-palette.h"
#include "ts-types.h"

G_BEGIN_DECLS

typedef struct
{
  const TsTime *times;        /* sample times, sorted */
  const gint64 *values;       /* the value from each time on */
  guint         n_samples;
  TsTime        begin;        /* the window, mapped onto [x0, x1) */
  TsTime        end;
  double        x0;
  double        x1;
  double        top;          /* the plot box: value max at top, 0 at top + height */
  double        height;
  gint64        max;
  /* Optional (NULL to scan every sample): the minimum and maximum of each
   * block of TS_COUNTER_PLOT_BLOCK samples, so that a zoomed-out column
   * costs a few blocks instead of thousands of samples. Build them with
   * ts_counter_plot_build_blocks(). */
  const gint64 *block_min;
  const gint64 *block_max;
} TsCounterPlot;

#define TS_COUNTER_PLOT_BLOCK 64

/* Fills block_min and block_max (each n_samples / TS_COUNTER_PLOT_BLOCK
 * rounded up long) for `values`. */
void    ts_counter_plot_build_blocks (const gint64      *values,
                                      guint              n_samples,
                                      gint64            *block_min,
                                      gint64            *block_max);

/* Widens [*lo, *hi] by values[k, j): whole blocks from their minimum and
 * maximum (ts_counter_plot_build_blocks()) where given, so that a
 * zoomed-out pixel column costs a few blocks; NULL scans every sample.
 * Inline: the step lines call it for every pixel column they draw. */
static inline void
ts_counter_plot_widen_range (const gint64 *values,
                             const gint64 *block_min,
                             const gint64 *block_max,
                             guint         k,
                             guint         j,
                             gint64       *lo,
                             gint64       *hi)
{
  const guint B = TS_COUNTER_PLOT_BLOCK;

  if (block_min != NULL && block_max != NULL && j - k >= 2 * B)
    {
      for (; k % B != 0; k++)
        *lo = MIN (*lo, values[k]), *hi = MAX (*hi, values[k]);
      for (; k + B <= j; k += B)
        *lo = MIN (*lo, block_min[k / B]), *hi = MAX (*hi, block_max[k / B]);
    }
  for (; k < j; k++)
    *lo = MIN (*lo, values[k]), *hi = MAX (*hi, values[k]);
}

/* Strokes the series as steps and fills below it in `color` (the fill
 * lighter). Each pixel column with samples gets one vertical from their
 * minimum to their maximum, so a short spike still shows. Returns how many
 * columns had samples. */
guint   ts_counter_plot_draw      (cairo_t             *cr,
                                   const TsCounterPlot *plot,
                                   const TsRenderColor *color);

/* The first index p >= k with times[p] >= limit, or n: exponential steps
 * from k, then a binary search, so skipping m samples costs O(log m)
 * however long the series. `times` is sorted. */
guint   ts_counter_plot_gallop    (const TsTime        *times,
                                   guint                n,
                                   guint                k,
                                   TsTime               limit);

/* The index of the last sample at or before `time`, or -1. */
gint64  ts_counter_plot_find      (const TsTime        *times,
                                   guint                n_samples,
                                   TsTime               time);

G_END_DECLS
