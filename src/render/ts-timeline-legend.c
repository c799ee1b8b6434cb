/* ts-timeline-legend.c: what each mark of the timeline means
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The shapes here repeat how ts-timeline-renderer.c draws each mark, at
 * swatch size; the colours are the palette's, so they cannot drift.
 */

#include "config.h"

#include <math.h>
#include <stddef.h>

#include "ts-render-i18n-private.h"
#include "ts-timeline-legend.h"

#define SWATCH_W  22.0
#define SWATCH_H  12.0
#define ROW_H     18.0
#define GAP       14.0

typedef enum
{
  SHAPE_BOX,
  SHAPE_HATCH,            /* the host blocked: sync colour, hatched */
  SHAPE_FOLD,             /* items too small to draw, folded */
  SHAPE_RECORD,           /* triangle hanging from the top */
  SHAPE_WAIT,             /* triangle standing on the bottom */
  SHAPE_ARROW,
  SHAPE_OUTLINE,          /* a red outline: an error or a race */
  SHAPE_HAZARD,           /* dashed red outlines: a hazard of the trace */
  SHAPE_FLAG,             /* a flag on the ruler with a dashed line */
  SHAPE_LINE,             /* a memory counter's line */
  SHAPE_UTIL,             /* bars of a busy fraction, in a device's header */
} Shape;

struct _TsTimelineLegendEntry
{
  Shape       shape;
  gsize       color;      /* offset of a TsRenderColor in TsRenderPalette */
  const char *label;
};

#define COLOR(field) offsetof (TsRenderPalette, field)

static const TsTimelineLegendEntry entries[] = {
  { SHAPE_BOX, COLOR (kernel[0]), N_("Kernel (one shade per name)") },
  { SHAPE_BOX, COLOR (kernel_error), N_("Failed kernel") },
  { SHAPE_BOX, COLOR (copy_htod), N_("Copy host → device") },
  { SHAPE_BOX, COLOR (copy_dtoh), N_("Copy device → host") },
  { SHAPE_BOX, COLOR (copy_dtod), N_("Copy device → device") },
  { SHAPE_BOX, COLOR (copy_peer), N_("Copy between GPUs") },
  { SHAPE_BOX, COLOR (copy_htoh), N_("Copy host → host") },
  { SHAPE_BOX, COLOR (memset), N_("Memset") },
  { SHAPE_BOX, COLOR (api), N_("CUDA API call") },
  { SHAPE_BOX, COLOR (api_nested), N_("Nested call (ATen operator)") },
  { SHAPE_HATCH, COLOR (sync), N_("Host blocked, waiting for the GPU") },
  { SHAPE_BOX, COLOR (nvtx[0]), N_("NVTX range") },
  { SHAPE_BOX, COLOR (mark), N_("NVTX mark") },
  { SHAPE_FOLD, COLOR (fold), N_("Items too small to draw, darker where busier: click to zoom in") },
  { SHAPE_UTIL, COLOR (utilization), N_("GPU utilization: the share of time any stream of the device ran something") },
  { SHAPE_RECORD, COLOR (event_record), N_("Event recorded on this stream") },
  { SHAPE_WAIT, COLOR (event_wait), N_("This stream waits for an event") },
  { SHAPE_ARROW, COLOR (arrow), N_("From an event's record to its wait") },
  { SHAPE_OUTLINE, COLOR (kernel_error), N_("Error or race: both ends outlined, an arrow between") },
  { SHAPE_HAZARD, COLOR (kernel_error),
    N_("Hazard: two streams touch the same memory with nothing ordering them (from the trace’s accesses, no sanitizer needed)") },
  { SHAPE_FLAG, COLOR (kernel_error), N_("When an error surfaced or memory ran out") },
  { SHAPE_LINE, COLOR (allocated), N_("Memory allocated") },
  { SHAPE_LINE, COLOR (reserved), N_("Memory reserved") },
};

guint
ts_timeline_legend_get_n_entries (void)
{
  return G_N_ELEMENTS (entries);
}

const TsTimelineLegendEntry *
ts_timeline_legend_get_entry (guint index)
{
  g_return_val_if_fail (index < G_N_ELEMENTS (entries), NULL);
  return &entries[index];
}

const char *
ts_timeline_legend_entry_get_label (const TsTimelineLegendEntry *entry)
{
  g_return_val_if_fail (entry != NULL, NULL);
  _ts_render_i18n_init ();
  return _(entry->label);
}

static void
draw_triangle (cairo_t *cr,
               double   x,
               double   tip,
               double   base,
               double   half)
{
  cairo_move_to (cr, x - half, base);
  cairo_line_to (cr, x, tip);
  cairo_line_to (cr, x + half, base);
  cairo_close_path (cr);
  cairo_fill (cr);
}

static void
draw_hatch (cairo_t               *cr,
            const TsRenderPalette *p,
            double                 w,
            double                 h)
{
  cairo_save (cr);
  cairo_rectangle (cr, 0, 0, w, h);
  cairo_clip (cr);
  ts_render_set_color (cr, &p->sync_hatch);
  cairo_set_line_width (cr, 1.5);
  for (double x = -h; x < w; x += 8)
    {
      cairo_move_to (cr, x, h);
      cairo_line_to (cr, x + h, 0);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}

void
ts_timeline_legend_draw_swatch (cairo_t                     *cr,
                                const TsTimelineLegendEntry *entry,
                                const TsRenderPalette       *p,
                                double                       w,
                                double                       h)
{
  const TsRenderColor *color = (const TsRenderColor *) (gconstpointer) ((const char *) p + entry->color);

  g_return_if_fail (cr != NULL && entry != NULL && p != NULL);

  cairo_save (cr);
  ts_render_set_color (cr, color);
  switch (entry->shape)
    {
    case SHAPE_BOX:
    case SHAPE_FOLD:
    case SHAPE_HATCH:
      cairo_rectangle (cr, 0, 1, w, h - 2);
      cairo_fill (cr);
      if (entry->shape == SHAPE_HATCH)
        draw_hatch (cr, p, w, h);
      if (entry->shape == SHAPE_FOLD)
        {
          /* Denser runs are darker: a lighter half shows the range. */
          cairo_set_source_rgba (cr, 1, 1, 1, 0.45);
          cairo_rectangle (cr, w / 2, 1, w / 2, h - 2);
          cairo_fill (cr);
        }
      break;
    case SHAPE_RECORD:
      draw_triangle (cr, w / 2, h / 2 + 3, 1, 5);
      break;
    case SHAPE_WAIT:
      draw_triangle (cr, w / 2, h / 2 - 3, h - 1, 5);
      break;
    case SHAPE_ARROW:
      cairo_set_line_width (cr, 1.2);
      cairo_move_to (cr, 1, h / 2);
      cairo_line_to (cr, w - 6, h / 2);
      cairo_stroke (cr);
      cairo_move_to (cr, w - 1, h / 2);
      cairo_line_to (cr, w - 7, h / 2 - 3);
      cairo_line_to (cr, w - 7, h / 2 + 3);
      cairo_close_path (cr);
      cairo_fill (cr);
      break;
    case SHAPE_OUTLINE:
      cairo_set_line_width (cr, 2);
      cairo_rectangle (cr, 1, 2, w - 2, h - 4);
      cairo_stroke (cr);
      break;
    case SHAPE_HAZARD:
      {
        static const double dash[] = { 4, 2 };

        cairo_set_line_width (cr, 2);
        cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
        cairo_rectangle (cr, 1, 2, w - 2, h - 4);
        cairo_stroke (cr);
        cairo_set_dash (cr, NULL, 0, 0);
      }
      break;
    case SHAPE_FLAG:
      draw_triangle (cr, w / 2, h / 2, 0, 5);
      cairo_set_line_width (cr, 1);
      cairo_move_to (cr, floor (w / 2) + 0.5, h / 2);
      cairo_line_to (cr, floor (w / 2) + 0.5, h);
      cairo_stroke (cr);
      break;
    case SHAPE_UTIL:
      {
        static const double levels[] = { 0.3, 0.9, 1.0, 0.6, 0.2, 0.8 };

        for (guint i = 0; i < G_N_ELEMENTS (levels); i++)
          cairo_rectangle (cr, i * w / G_N_ELEMENTS (levels), h - levels[i] * h,
                           w / G_N_ELEMENTS (levels), levels[i] * h);
        cairo_fill (cr);
      }
      break;
    case SHAPE_LINE:
      cairo_set_line_width (cr, 1.5);
      cairo_move_to (cr, 0, h - 2);
      cairo_line_to (cr, w / 3, h - 2);
      cairo_line_to (cr, w / 3, 3);
      cairo_line_to (cr, w, 3);
      cairo_stroke (cr);
      break;
    default:
      g_assert_not_reached ();
    }
  cairo_restore (cr);
}

double
ts_timeline_legend_draw (cairo_t               *cr,
                         PangoLayout           *layout,
                         const TsRenderPalette *p,
                         double                 x,
                         double                 y,
                         double                 width)
{
  double cx = x, cy = y;

  g_return_val_if_fail (cr != NULL && layout != NULL && p != NULL, 0);

  pango_layout_set_width (layout, -1);
  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      int tw, th;

      pango_layout_set_text (layout, ts_timeline_legend_entry_get_label (&entries[i]), -1);
      pango_layout_get_pixel_size (layout, &tw, &th);
      if (cx > x && cx + SWATCH_W + 4 + tw > x + width)
        cx = x, cy += ROW_H;

      cairo_save (cr);
      cairo_translate (cr, cx, cy + (ROW_H - SWATCH_H) / 2);
      ts_timeline_legend_draw_swatch (cr, &entries[i], p, SWATCH_W, SWATCH_H);
      cairo_restore (cr);
      ts_render_set_color (cr, &p->foreground);
      cairo_move_to (cr, cx + SWATCH_W + 4, cy + (ROW_H - th) / 2);
      pango_cairo_show_layout (cr, layout);
      cx += SWATCH_W + 4 + tw + GAP;
    }
  return cy - y + ROW_H;
}
