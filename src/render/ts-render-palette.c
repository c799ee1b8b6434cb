/* ts-render-palette.c: colours shared by the timeline and memory views
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Kinds are told apart by hue (kernels blue, host-to-device green,
 * device-to-host orange, device-to-device and peer purple, memsets yellow,
 * API calls teal, blocked spans red); kernels of different names get
 * different shades of blue so that neighbours stay distinct.
 */

#include "config.h"

#include "ts-render-palette.h"

#define RGB(hex) TS_RENDER_COLOR_HEX (hex, 1.0)
#define RGBA(hex, alpha) TS_RENDER_COLOR_HEX (hex, alpha)

static const TsRenderPalette light = {
  .background = RGB (0xffffff),
  .foreground = RGB (0x241f31),
  .dim_text = RGB (0x5e5c64),
  .grid = RGBA (0x000000, 0.07),
  .separator = RGBA (0x000000, 0.15),
  .ruler_bg = RGB (0xf6f5f4),
  .label_bg = RGB (0xfafafa),
  .group_bg = RGB (0xdeddda),
  .row_alt = RGBA (0x000000, 0.025),
  .kernel = { RGB (0x3584e4), RGB (0x1c71d8), RGB (0x62a0ea), RGB (0x1a5fb4), RGB (0x4a86c8), RGB (0x2e6db0) },
  .kernel_error = RGB (0xe01b24),
  .copy_htod = RGB (0x33d17a),
  .copy_dtoh = RGB (0xff7800),
  .copy_dtod = RGB (0x9141ac),
  .copy_peer = RGB (0xc061cb),
  .copy_htoh = RGB (0x9a9996),
  .memset = RGB (0xf5c211),
  .api = RGB (0x8fd3c8),
  .api_nested = RGB (0x5bb8a8),
  .sync = RGBA (0xe01b24, 0.35),
  .sync_hatch = RGBA (0xa51d2d, 0.9),
  .nvtx = { RGB (0xdc8add), RGB (0xf8e45c), RGB (0x99c1f1), RGB (0x8ff0a4), RGB (0xffbe6f), RGB (0xcdab8f) },
  .mark = RGB (0x813d9c),
  .fold = RGB (0xb0afac),
  .fold_text = RGB (0x241f31),
  .utilization = RGBA (0x1c71d8, 0.55),
  .event_record = RGB (0x26a269),
  .event_wait = RGB (0xc01c28),
  .arrow = RGBA (0x241f31, 0.65),
  .correlation = RGB (0xe66100),
  .selection = RGB (0xe66100),
  .range_shade = RGBA (0x3584e4, 0.15),
  .allocated = RGB (0x1c71d8),
  .reserved = RGBA (0x9141ac, 0.9),
};

static const TsRenderPalette dark = {
  .background = RGB (0x1e1e1e),
  .foreground = RGB (0xf6f5f4),
  .dim_text = RGB (0xc0bfbc),
  .grid = RGBA (0xffffff, 0.08),
  .separator = RGBA (0xffffff, 0.15),
  .ruler_bg = RGB (0x2a2a2a),
  .label_bg = RGB (0x242424),
  .group_bg = RGB (0x3d3846),
  .row_alt = RGBA (0xffffff, 0.03),
  .kernel = { RGB (0x3584e4), RGB (0x1c71d8), RGB (0x62a0ea), RGB (0x1a5fb4), RGB (0x4a86c8), RGB (0x2e6db0) },
  .kernel_error = RGB (0xff4d55),
  .copy_htod = RGB (0x2ec27e),
  .copy_dtoh = RGB (0xff7800),
  .copy_dtod = RGB (0xa45ad0),
  .copy_peer = RGB (0xc061cb),
  .copy_htoh = RGB (0x77767b),
  .memset = RGB (0xe5a50a),
  .api = RGB (0x2a7f74),
  .api_nested = RGB (0x3a9c8e),
  .sync = RGBA (0xe01b24, 0.35),
  .sync_hatch = RGBA (0xff7b7b, 0.9),
  .nvtx = { RGB (0x9141ac), RGB (0xa08d1a), RGB (0x3f6fa8), RGB (0x3f8f52), RGB (0xb0661a), RGB (0x86674f) },
  .mark = RGB (0xdc8add),
  .fold = RGB (0x5e5c64),
  .fold_text = RGB (0xf6f5f4),
  .utilization = RGBA (0x62a0ea, 0.6),
  .event_record = RGB (0x57e389),
  .event_wait = RGB (0xff7b63),
  .arrow = RGBA (0xf6f5f4, 0.7),
  .correlation = RGB (0xffa348),
  .selection = RGB (0xffa348),
  .range_shade = RGBA (0x62a0ea, 0.2),
  .allocated = RGB (0x62a0ea),
  .reserved = RGBA (0xc061cb, 0.9),
};

const TsRenderPalette *
ts_render_palette_get (gboolean is_dark)
{
  return is_dark ? &dark : &light;
}

void
ts_render_set_color (cairo_t             *cr,
                     const TsRenderColor *color)
{
  cairo_set_source_rgba (cr, color->r, color->g, color->b, color->a);
}

const TsRenderColor *
ts_render_text_color_on (const TsRenderColor *fill)
{
  static const TsRenderColor black = { 0.1, 0.1, 0.12, 1.0 };
  static const TsRenderColor white = { 1.0, 1.0, 1.0, 1.0 };
  /* Relative luminance, roughly (sRGB weights without linearisation). */
  double y = 0.2126 * fill->r + 0.7152 * fill->g + 0.0722 * fill->b;

  return y > 0.55 ? &black : &white;
}
