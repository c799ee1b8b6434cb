/* ts-memory-renderer.c: device memory over time
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include <pango/pangocairo.h>

#include "ts-counter-plot.h"
#include "ts-memory-renderer.h"
#include "ts-render-palette.h"
#include "ts-time-ruler.h"

#define RULER_H   26.0
#define AXIS_W    90.0
#define PANEL_GAP 10.0
#define TITLE_H   20.0

struct _TsMemoryRenderer
{
  GObject          parent_instance;
  TsTraceDocument *document;
  gboolean         dark;
  double           segment_map_height;
  guint            n_panels;
};

G_DEFINE_FINAL_TYPE (TsMemoryRenderer, ts_memory_renderer, G_TYPE_OBJECT)

static void
ts_memory_renderer_finalize (GObject *object)
{
  TsMemoryRenderer *self = (TsMemoryRenderer *) object;

  g_clear_object (&self->document);
  G_OBJECT_CLASS (ts_memory_renderer_parent_class)->finalize (object);
}

static void
ts_memory_renderer_class_init (TsMemoryRendererClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ts_memory_renderer_finalize;
}

static void
ts_memory_renderer_init (TsMemoryRenderer *self)
{
}

TsMemoryRenderer *
ts_memory_renderer_new (TsTraceDocument *document)
{
  TsMemoryRenderer *self;

  g_return_val_if_fail (TS_IS_TRACE_DOCUMENT (document), NULL);

  self = g_object_new (TS_TYPE_MEMORY_RENDERER, NULL);
  self->document = g_object_ref (document);
  return self;
}

void
ts_memory_renderer_set_dark (TsMemoryRenderer *self,
                             gboolean          dark)
{
  g_return_if_fail (TS_IS_MEMORY_RENDERER (self));
  self->dark = !!dark;
}

void
ts_memory_renderer_set_segment_map_height (TsMemoryRenderer *self,
                                           double            height)
{
  g_return_if_fail (TS_IS_MEMORY_RENDERER (self));
  self->segment_map_height = MAX (0, height);
}

guint
ts_memory_renderer_get_n_panels (TsMemoryRenderer *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_RENDERER (self), 0);
  return self->n_panels;
}

/* A 1-2-5 step in bytes of a binary unit (KiB, MiB, GiB) giving about
 * `lines` grid lines up to `max`. */
static gint64
byte_step (gint64 max,
           int    lines)
{
  static const int mult[] = { 1, 2, 5 };
  gint64 base = 1;

  for (;;)
    {
      for (guint i = 0; i < G_N_ELEMENTS (mult); i++)
        if (base * mult[i] * lines >= max)
          return base * mult[i];
      /* After 500 units, go to 1 of the next binary unit. */
      base = (base * 10 >= 1024 && base < 1024) ? 1024 :
             (base * 10 >= 1024 * 1024 && base < 1024 * 1024) ? 1024 * 1024 :
             (base * 10 >= 1024 * 1024 * 1024 && base < 1024 * 1024 * 1024) ? 1024 * 1024 * 1024 : base * 10;
      if (base > G_MAXINT64 / 10)
        return base;
    }
}

static void
draw_text (cairo_t             *cr,
           PangoLayout         *layout,
           const TsRenderColor *color,
           const char          *text,
           double               x,
           double               y)
{
  pango_layout_set_text (layout, text, -1);
  ts_render_set_color (cr, color);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
}

static void
draw_usage_panel (TsMemoryRenderer      *self,
                  cairo_t               *cr,
                  PangoLayout           *layout,
                  const TsRenderPalette *p,
                  const TsTrack         *t,
                  const TsTimelineView  *view,
                  double                 y,
                  double                 h)
{
  double x0 = AXIS_W, x1 = view->width - 10;
  double top = y + TITLE_H, ph = h - TITLE_H;
  gint64 max = 0, peak = 0, step;
  TsTime peak_time = 0;
  TsCounterPlot plot = { t->sample_times, t->reserved, t->n_samples, view->begin, view->end,
                         x0, x1, top, ph, 0 };
  g_autofree char *title = NULL;
  g_autofree char *peak_text = NULL;

  for (guint s = 0; s < t->n_samples; s++)
    {
      max = MAX (max, MAX (t->allocated[s], t->reserved[s]));
      if (t->allocated[s] > peak)
        peak = t->allocated[s], peak_time = t->sample_times[s];
    }
  step = byte_step (MAX (max, 1), 4);
  plot.max = MAX (1, (max + step - 1) / step * step);

  peak_text = g_format_size_full ((guint64) peak, G_FORMAT_SIZE_IEC_UNITS);
  title = g_strdup_printf ("%s — peak allocated %s", t->title, peak_text);
  pango_layout_set_width (layout, (int) ((x1 - 8) * PANGO_SCALE));
  draw_text (cr, layout, &p->foreground, title, 8, y + 2);
  pango_layout_set_width (layout, -1);

  /* Byte axis and grid. */
  for (gint64 v = 0; v <= plot.max; v += step)
    {
      double gy = floor (top + ph - (double) v / (double) plot.max * ph) + 0.5;
      g_autofree char *label = g_format_size_full ((guint64) v, G_FORMAT_SIZE_IEC_UNITS);

      ts_render_set_color (cr, &p->grid);
      cairo_move_to (cr, x0, gy);
      cairo_line_to (cr, x1, gy);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);
      draw_text (cr, layout, &p->dim_text, label, 8, gy - 7);
    }

  cairo_save (cr);
  cairo_rectangle (cr, x0, top - 2, x1 - x0, ph + 4);
  cairo_clip (cr);
  ts_counter_plot_draw (cr, &plot, &p->reserved);
  plot.values = t->allocated;
  ts_counter_plot_draw (cr, &plot, &p->allocated);

  /* The peak of allocated memory: a dot and a dashed level. */
  if (peak > 0 && peak_time >= view->begin && peak_time < view->end)
    {
      double px = x0 + (double) (peak_time - view->begin) * (x1 - x0) / (double) MAX (1, view->end - view->begin);
      double py = top + ph - (double) peak / (double) plot.max * ph;
      double dash[] = { 4, 3 };

      ts_render_set_color (cr, &p->selection);
      cairo_arc (cr, px, py, 3, 0, 2 * G_PI);
      cairo_fill (cr);
      cairo_set_dash (cr, dash, 2, 0);
      cairo_move_to (cr, x0, floor (py) + 0.5);
      cairo_line_to (cr, x1, floor (py) + 0.5);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
  cairo_restore (cr);

  ts_render_set_color (cr, &p->separator);
  cairo_rectangle (cr, x0, top, x1 - x0, ph);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
}

/* The allocator's segments at one instant go here (a later issue): a row
 * per segment, its blocks coloured by state. Nothing to draw yet. */
static void
draw_segment_map (TsMemoryRenderer      *self,
                  cairo_t               *cr,
                  const TsRenderPalette *p,
                  double                 y,
                  double                 h)
{
}

void
ts_memory_renderer_draw (TsMemoryRenderer     *self,
                         cairo_t              *cr,
                         const TsTimelineView *view)
{
  const TsRenderPalette *p;
  g_autoptr(GPtrArray) tracks = g_ptr_array_new ();
  g_autoptr(PangoFontDescription) font = NULL;
  PangoLayout *layout;
  double area, panel_h, y;
  guint n;

  g_return_if_fail (TS_IS_MEMORY_RENDERER (self));
  g_return_if_fail (cr != NULL);
  g_return_if_fail (view != NULL);

  p = ts_render_palette_get (self->dark);
  n = ts_trace_document_get_n_tracks (self->document);
  for (guint i = 0; i < n; i++)
    {
      const TsTrack *t = ts_trace_document_get_track (self->document, i);
      if (t->kind == TS_TRACK_MEMORY && t->n_samples > 0)
        g_ptr_array_add (tracks, (gpointer) t);
    }
  self->n_panels = tracks->len;

  cairo_save (cr);
  ts_render_set_color (cr, &p->background);
  cairo_paint (cr);

  layout = pango_cairo_create_layout (cr);
  font = pango_font_description_from_string ("Sans 8");
  pango_layout_set_font_description (layout, font);
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);

  ts_time_ruler_draw (cr, layout, p, AXIS_W, 0, view->width - 10 - AXIS_W, RULER_H,
                      view->height - self->segment_map_height, view->begin, MAX (view->end, view->begin + 1));

  area = view->height - RULER_H - self->segment_map_height;
  if (tracks->len == 0)
    draw_text (cr, layout, &p->dim_text, "No memory counters in this trace", AXIS_W, RULER_H + 10);
  else
    {
      panel_h = (area - PANEL_GAP * tracks->len) / tracks->len;
      y = RULER_H + PANEL_GAP / 2;
      for (guint i = 0; i < tracks->len; i++)
        {
          draw_usage_panel (self, cr, layout, p, g_ptr_array_index (tracks, i), view, y, panel_h);
          y += panel_h + PANEL_GAP;
        }
    }

  if (self->segment_map_height > 0)
    draw_segment_map (self, cr, p, view->height - self->segment_map_height, self->segment_map_height);

  g_object_unref (layout);
  cairo_restore (cr);
}
