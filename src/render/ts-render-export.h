/* ts-render-export.h: draw into a PNG, SVG or PDF file
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <glib.h>

G_BEGIN_DECLS

#define TS_RENDER_ERROR (ts_render_error_quark ())

typedef enum
{
  TS_RENDER_ERROR_FORMAT = 1,   /* the file name has no known extension */
  TS_RENDER_ERROR_FAILED,       /* cairo could not write it */
} TsRenderError;

typedef enum
{
  TS_RENDER_FORMAT_PNG = 1,
  TS_RENDER_FORMAT_SVG,
  TS_RENDER_FORMAT_PDF,
} TsRenderFormat;

typedef void (*TsRenderDrawFunc) (cairo_t  *cr,
                                  int       width,
                                  int       height,
                                  gpointer  user_data);

GQuark   ts_render_error_quark     (void);

/* The format for a file name's extension (case-insensitive). */
gboolean ts_render_format_for_path (const char        *path,
                                    TsRenderFormat    *format,
                                    GError           **error);

/* Calls draw on a surface of the format that `path` names and writes it. */
gboolean ts_render_to_file         (const char        *path,
                                    int                width,
                                    int                height,
                                    TsRenderDrawFunc   draw,
                                    gpointer           user_data,
                                    GError           **error);

G_END_DECLS
