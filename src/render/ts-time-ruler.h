/* ts-time-ruler.h: tick spacing, time labels and the ruler strip
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <pango/pangocairo.h>

#include "ts-render-palette.h"
#include "ts-types.h"

G_BEGIN_DECLS

/* The smallest 1-2-5 step (1, 2, 5, 10, 20, ... ns) at which ticks over
 * `span` nanoseconds drawn across `width` pixels are at least `min_px`
 * apart. Never less than 1 ns. */
TsTime  ts_time_ruler_step        (TsTime                 span,
                                   double                 width,
                                   double                 min_px);

/* A tick label: `t` in the unit of `reference` (ns, µs, ms or s: the unit
 * of the largest time on the ruler) with exactly the decimals `step` needs,
 * so "1.25 ms", "1.30 ms" never both read "1.3 ms". */
char   *ts_time_format_tick       (TsTime                 t,
                                   TsTime                 step,
                                   TsTime                 reference);

/* A duration or time for people: "812 ns", "12.3 µs", "4.56 ms", "1.23 s". */
char   *ts_time_format_duration   (TsTime                 t);

/* A time in its own unit with the decimals that show `resolution`: the
 * two ends of a 5 µs kernel at 239.9 ms read "239.912 ms" and
 * "239.917 ms", not twice "239.9 ms". */
char   *ts_time_format_at         (TsTime                 t,
                                   TsTime                 resolution);

/* What a ruler's ticks count: time (labels in ns, µs, ms or s) or
 * allocator events (plain integers at 1-2-5 steps). */
typedef enum
{
  TS_RULER_TIME,
  TS_RULER_COUNT,
} TsRulerAxis;

/* Draws the ruler strip over [x, x + width) for [begin, end), with grid
 * lines down to `grid_bottom` (pass y + height for none). */
void    ts_time_ruler_draw        (cairo_t               *cr,
                                   PangoLayout           *layout,
                                   const TsRenderPalette *palette,
                                   TsRulerAxis            axis,
                                   double                 x,
                                   double                 y,
                                   double                 width,
                                   double                 height,
                                   double                 grid_bottom,
                                   TsTime                 begin,
                                   TsTime                 end);

G_END_DECLS
