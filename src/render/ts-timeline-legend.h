/* ts-timeline-legend.h: what each mark of the timeline means
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One list of the timeline's colours, hatching, triangles, arrows and
 * flags with their meaning, drawn with the renderer's palette: the app's
 * legend popover shows it a row per mark, an image can carry it as a
 * strip. Labels are translated.
 */

#pragma once

#include <pango/pangocairo.h>

#include "ts-render-palette.h"

G_BEGIN_DECLS

typedef struct _TsTimelineLegendEntry TsTimelineLegendEntry;

guint       ts_timeline_legend_get_n_entries (void);
const TsTimelineLegendEntry *ts_timeline_legend_get_entry (guint index);
/* The meaning, translated: "Copy host → device". */
const char *ts_timeline_legend_entry_get_label (const TsTimelineLegendEntry *entry);

/* Draws the entry's mark in a w × h box at the origin. */
void        ts_timeline_legend_draw_swatch   (cairo_t                     *cr,
                                              const TsTimelineLegendEntry *entry,
                                              const TsRenderPalette       *palette,
                                              double                       w,
                                              double                       h);

/* Every entry, mark then label, flowing in rows across `width` from
 * (x, y); returns the height used. */
double      ts_timeline_legend_draw          (cairo_t                     *cr,
                                              PangoLayout                 *layout,
                                              const TsRenderPalette       *palette,
                                              double                       x,
                                              double                       y,
                                              double                       width);

G_END_DECLS
