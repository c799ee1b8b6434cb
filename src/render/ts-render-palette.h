/* ts-render-palette.h: colours shared by the timeline and memory views
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  double r, g, b, a;
} TsRenderColor;

/* A TsRenderColor initializer from 0xRRGGBB and an alpha, for the
 * static colour tables of the renderers. */
#define TS_RENDER_COLOR_HEX(hex, alpha) \
  { ((hex) >> 16 & 0xff) / 255.0, ((hex) >> 8 & 0xff) / 255.0, ((hex) & 0xff) / 255.0, (alpha) }

#define TS_RENDER_N_KERNEL_COLORS 6
#define TS_RENDER_N_NVTX_COLORS   6

typedef struct
{
  TsRenderColor background;
  TsRenderColor foreground;
  TsRenderColor dim_text;
  TsRenderColor grid;
  TsRenderColor separator;
  TsRenderColor ruler_bg;
  TsRenderColor label_bg;
  TsRenderColor group_bg;
  TsRenderColor row_alt;

  TsRenderColor kernel[TS_RENDER_N_KERNEL_COLORS];   /* shades of one hue, by name */
  TsRenderColor kernel_error;
  TsRenderColor copy_htod;
  TsRenderColor copy_dtoh;
  TsRenderColor copy_dtod;
  TsRenderColor copy_peer;
  TsRenderColor copy_htoh;
  TsRenderColor memset;
  TsRenderColor api;
  TsRenderColor api_nested;
  TsRenderColor sync;
  TsRenderColor sync_hatch;
  TsRenderColor nvtx[TS_RENDER_N_NVTX_COLORS];
  TsRenderColor mark;
  TsRenderColor fold;
  TsRenderColor fold_text;
  TsRenderColor utilization;      /* a device's busy fraction, in its group header */

  TsRenderColor event_record;
  TsRenderColor event_wait;
  TsRenderColor arrow;
  TsRenderColor correlation;
  TsRenderColor selection;
  TsRenderColor range_shade;
  TsRenderColor allocated;
  TsRenderColor reserved;
} TsRenderPalette;

const TsRenderPalette *ts_render_palette_get        (gboolean             dark);

void                   ts_render_set_color          (cairo_t             *cr,
                                                     const TsRenderColor *color);
/* Black or white, whichever reads better on `fill`. */
const TsRenderColor   *ts_render_text_color_on      (const TsRenderColor *fill);

G_END_DECLS
