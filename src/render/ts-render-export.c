/* ts-render-export.c: draw into a PNG, SVG or PDF file
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include "ts-render-export.h"
#include "ts-render-i18n-private.h"

G_DEFINE_QUARK (ts-render-error-quark, ts_render_error)

gboolean
ts_render_format_for_path (const char      *path,
                           TsRenderFormat  *format,
                           GError         **error)
{
  g_autofree char *lower = NULL;

  g_return_val_if_fail (path != NULL, FALSE);

  lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".png"))
    *format = TS_RENDER_FORMAT_PNG;
  else if (g_str_has_suffix (lower, ".svg"))
    *format = TS_RENDER_FORMAT_SVG;
  else if (g_str_has_suffix (lower, ".pdf"))
    *format = TS_RENDER_FORMAT_PDF;
  else
    {
      g_set_error (error, TS_RENDER_ERROR, TS_RENDER_ERROR_FORMAT,
                   _("Cannot tell the image format of “%s”: use .png, .svg or .pdf"), path);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_status (cairo_status_t   status,
              const char      *path,
              GError         **error)
{
  if (status == CAIRO_STATUS_SUCCESS)
    return TRUE;
  g_set_error (error, TS_RENDER_ERROR, TS_RENDER_ERROR_FAILED,
               _("Could not write “%s”: %s"), path, cairo_status_to_string (status));
  return FALSE;
}

gboolean
ts_render_to_file (const char        *path,
                   int                width,
                   int                height,
                   TsRenderDrawFunc   draw,
                   gpointer           user_data,
                   GError           **error)
{
  TsRenderFormat format;
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (draw != NULL, FALSE);
  g_return_val_if_fail (width > 0 && height > 0, FALSE);

  if (!ts_render_format_for_path (path, &format, error))
    return FALSE;

  switch (format)
    {
    case TS_RENDER_FORMAT_SVG:
      surface = cairo_svg_surface_create (path, width, height);
      break;
    case TS_RENDER_FORMAT_PDF:
      surface = cairo_pdf_surface_create (path, width, height);
      break;
    case TS_RENDER_FORMAT_PNG:
    default:
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
      break;
    }
  if (!check_status (cairo_surface_status (surface), path, error))
    {
      cairo_surface_destroy (surface);
      return FALSE;
    }

  cr = cairo_create (surface);
  draw (cr, width, height, user_data);
  status = cairo_status (cr);
  cairo_destroy (cr);

  if (status == CAIRO_STATUS_SUCCESS)
    {
      if (format == TS_RENDER_FORMAT_PNG)
        status = cairo_surface_write_to_png (surface, path);
      else
        {
          /* Vector surfaces write as they go; finish flushes and closes. */
          cairo_surface_finish (surface);
          status = cairo_surface_status (surface);
        }
    }
  cairo_surface_destroy (surface);
  return check_status (status, path, error);
}
