/* ts-segment-map-renderer.c: the allocator's segments at one instant
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <pango/pangocairo.h>

#include "ts-memory-fragmentation.h"
#include "ts-render-i18n-private.h"
#include "ts-render-palette.h"
#include "ts-segment-map-renderer.h"

#define TITLE_H   20.0
#define LEGEND_H  20.0
#define HEADER_H  18.0
#define BAR_H     20.0
#define LABEL_H   13.0
#define ROW_GAP   6.0
#define BAR_GAP   6.0
#define MIN_BAR_W 8.0
#define PAD       8.0

typedef struct
{
  double x, y, w, h;
  guint  segment;
} SegRect;

typedef struct
{
  double      y;
  guint       device;
  gboolean    is_small;
  TsStreamId  stream;
  TsMemPoolId pool_id;
} GroupRect;

/* Unmapped pages of an expandable segment: a hole between two of its
 * mapped ranges, or (size 0) the rest of its reserved address space after
 * the last one, drawn as a short stub since the reservation's size is not
 * in the trace (PyTorch reserves about the device's memory). */
typedef struct
{
  double  x, y, w, h;
  guint64 address;
  guint64 size;
  guint   segment;     /* the mapped range before it */
} GapRect;

#define TAIL_W (3 * MIN_BAR_W)

typedef struct
{
  TsRenderColor allocated;
  TsRenderColor waste;
  TsRenderColor pending;
  TsRenderColor split_free;
  TsRenderColor whole_free;
  TsRenderColor unmapped;
  TsRenderColor outline;
} MapColors;

struct _TsSegmentMapRenderer
{
  GObject         parent_instance;
  TsMemoryReplay *replay;
  gboolean        dark;
  gsize           index;
  gint            device;
  TsMemoryState  *state;
  GArray         *seg_rects;    /* SegRect, from the last draw */
  GArray         *group_rects;  /* GroupRect */
  GArray         *gap_rects;    /* GapRect */
  double          x0, x1;       /* the map's horizontal extent */
};

G_DEFINE_FINAL_TYPE (TsSegmentMapRenderer, ts_segment_map_renderer, G_TYPE_OBJECT)

#define HEX(v, a) TS_RENDER_COLOR_HEX (v, a)

static const MapColors light_colors = {
  HEX (0x1c71d8, 1), HEX (0x0b3b73, 1), HEX (0xe66100, 1),
  HEX (0xc0bfbc, 1), HEX (0xe6f0e0, 1), HEX (0x9a9996, 0.5), HEX (0x5e5c64, 1),
};

static const MapColors dark_colors = {
  HEX (0x3584e4, 1), HEX (0x99c1f1, 1), HEX (0xff7800, 1),
  HEX (0x5e5c64, 1), HEX (0x2c3a2a, 1), HEX (0x77767b, 0.5), HEX (0xc0bfbc, 1),
};

/* Tableau 10, as memory_viz colours allocations; a little darker on dark
 * backgrounds is not needed, they read on both. */
static const guint32 site_colors[10] = {
  0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
  0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac,
};

void
ts_memory_site_color (const TsSourceLoc *loc,
                      gboolean           dark,
                      double            *r,
                      double            *g,
                      double            *b)
{
  guint32 h = loc ? (loc->file * 2654435761u) ^ (loc->line * 40503u) ^ (loc->function * 97u) : 0;
  guint32 c = site_colors[(h >> 7) % G_N_ELEMENTS (site_colors)];
  double k = dark ? 0.85 : 1.0;

  *r = (c >> 16 & 0xff) / 255.0 * k;
  *g = (c >> 8 & 0xff) / 255.0 * k;
  *b = (c & 0xff) / 255.0 * k;
}

static void
ts_segment_map_renderer_finalize (GObject *object)
{
  TsSegmentMapRenderer *self = (TsSegmentMapRenderer *) object;

  g_clear_pointer (&self->state, ts_memory_state_free);
  g_clear_pointer (&self->seg_rects, g_array_unref);
  g_clear_pointer (&self->group_rects, g_array_unref);
  g_clear_pointer (&self->gap_rects, g_array_unref);
  g_clear_object (&self->replay);
  G_OBJECT_CLASS (ts_segment_map_renderer_parent_class)->finalize (object);
}

static void
ts_segment_map_renderer_class_init (TsSegmentMapRendererClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ts_segment_map_renderer_finalize;
}

static void
ts_segment_map_renderer_init (TsSegmentMapRenderer *self)
{
  self->device = -1;
  self->seg_rects = g_array_new (FALSE, FALSE, sizeof (SegRect));
  self->group_rects = g_array_new (FALSE, FALSE, sizeof (GroupRect));
  self->gap_rects = g_array_new (FALSE, FALSE, sizeof (GapRect));
}

TsSegmentMapRenderer *
ts_segment_map_renderer_new (TsMemoryReplay *replay)
{
  TsSegmentMapRenderer *self;

  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (replay), NULL);

  self = g_object_new (TS_TYPE_SEGMENT_MAP_RENDERER, NULL);
  self->replay = g_object_ref (replay);
  self->index = ts_memory_replay_get_n_actions (replay);
  return self;
}

void
ts_segment_map_renderer_set_dark (TsSegmentMapRenderer *self,
                                  gboolean              dark)
{
  g_return_if_fail (TS_IS_SEGMENT_MAP_RENDERER (self));
  self->dark = !!dark;
}

void
ts_segment_map_renderer_set_index (TsSegmentMapRenderer *self,
                                   gsize                 index)
{
  g_return_if_fail (TS_IS_SEGMENT_MAP_RENDERER (self));

  index = MIN (index, ts_memory_replay_get_n_actions (self->replay));
  if (index != self->index)
    {
      self->index = index;
      g_clear_pointer (&self->state, ts_memory_state_free);
    }
}

gsize
ts_segment_map_renderer_get_index (TsSegmentMapRenderer *self)
{
  g_return_val_if_fail (TS_IS_SEGMENT_MAP_RENDERER (self), 0);
  return self->index;
}

void
ts_segment_map_renderer_set_device (TsSegmentMapRenderer *self,
                                    gint                  device)
{
  g_return_if_fail (TS_IS_SEGMENT_MAP_RENDERER (self));
  self->device = device;
}

const TsMemoryState *
ts_segment_map_renderer_get_state (TsSegmentMapRenderer *self)
{
  g_return_val_if_fail (TS_IS_SEGMENT_MAP_RENDERER (self), NULL);

  if (self->state == NULL)
    self->state = ts_memory_replay_state_at (self->replay, self->index);
  return self->state;
}

static int
compare_pool_ids (TsMemPoolId a,
                  TsMemPoolId b)
{
  if (a.first != b.first)
    return a.first < b.first ? -1 : 1;
  return a.second < b.second ? -1 : a.second > b.second;
}

/* Segments in drawing order: device, the default pool then private pools
 * by id, large pool first, stream, address. */
static int
compare_segments (gconstpointer a,
                  gconstpointer b,
                  gpointer      user_data)
{
  const TsMemoryState *state = user_data;
  const TsMemorySegment *x = &g_array_index (state->segments, TsMemorySegment, *(const guint *) a);
  const TsMemorySegment *y = &g_array_index (state->segments, TsMemorySegment, *(const guint *) b);

  if (x->device != y->device)
    return x->device < y->device ? -1 : 1;
  if (!TS_MEM_POOL_ID_EQUAL (x->pool_id, y->pool_id))
    return compare_pool_ids (x->pool_id, y->pool_id);
  if (x->is_small != y->is_small)
    return x->is_small ? 1 : -1;
  if (x->stream != y->stream)
    return x->stream < y->stream ? -1 : 1;
  return x->address < y->address ? -1 : x->address > y->address;
}

static gboolean
same_group (const TsMemorySegment *a,
            const TsMemorySegment *b)
{
  return a->device == b->device && a->is_small == b->is_small && a->stream == b->stream &&
         TS_MEM_POOL_ID_EQUAL (a->pool_id, b->pool_id);
}

/* The mapped ranges of one expandable segment are a group's expandable
 * segments (PyTorch keeps one per stream and pool): what lies between two
 * of them is address space without pages. */
static gboolean
unmapped_between (const TsMemorySegment *prev,
                  const TsMemorySegment *seg)
{
  return prev != NULL && prev->is_expandable && seg->is_expandable && same_group (prev, seg) &&
         seg->address > prev->address + prev->total_size;
}

/* After the last mapped range of a group: the rest of the reservation. */
static gboolean
unmapped_tail (const TsMemorySegment *seg,
               const TsMemorySegment *next)
{
  return seg->is_expandable && (next == NULL || !next->is_expandable || !same_group (seg, next));
}

/* The device's (or every device's) segments in drawing order; returns
 * the largest one's size. */
static guint64
drawing_order (TsSegmentMapRenderer *self,
               const TsMemoryState  *state,
               GArray               *order)
{
  guint64 largest = 0;

  for (guint k = 0; k < state->segments->len; k++)
    {
      const TsMemorySegment *seg = &g_array_index (state->segments, TsMemorySegment, k);

      if (self->device >= 0 && seg->device != (guint) self->device)
        continue;
      g_array_append_val (order, k);
      largest = MAX (largest, seg->total_size);
    }
  g_array_sort_with_data (order, compare_segments, (gpointer) state);
  return largest;
}

static double
bar_width (guint64 size,
           double  bpp,
           double  width)
{
  return MIN (width, MAX (MIN_BAR_W, (double) size / bpp));
}

/* Where layout() puts the next bar: rows of bars, each with its label
 * under it, filled left to right. */
typedef struct
{
  double left;
  double right;
  double x;
  double y;
} Pen;

static void
pen_next_row (Pen *pen)
{
  pen->y += BAR_H + LABEL_H + ROW_GAP;
  pen->x = pen->left;
}

/* Takes w pixels (at most the row's width) for a bar, on the next row
 * when the rest of this one is too short; returns the bar's x. */
static double
pen_take (Pen    *pen,
          double  w)
{
  double bx;

  if (pen->x + w > pen->right)
    pen_next_row (pen);
  bx = pen->x;
  pen->x += w + BAR_GAP;
  return bx;
}

/* Lays the segments out with bpp bytes per pixel; returns the height. */
static double
layout (TsSegmentMapRenderer *self,
        const GArray         *order,
        double                bpp,
        double                x,
        double                y,
        double                width,
        gboolean              store)
{
  const TsMemoryState *state = self->state;
  const TsMemorySegment *prev = NULL;
  Pen pen = { x, x + width, x, y };

  for (guint k = 0; k < order->len; k++)
    {
      guint si = g_array_index (order, guint, k);
      const TsMemorySegment *seg = &g_array_index (state->segments, TsMemorySegment, si);
      const TsMemorySegment *next = k + 1 < order->len
                                      ? &g_array_index (state->segments, TsMemorySegment,
                                                        g_array_index (order, guint, k + 1))
                                      : NULL;
      double w = bar_width (seg->total_size, bpp, width);
      double bx;

      if (prev == NULL || !same_group (prev, seg))
        {
          if (prev != NULL)
            pen_next_row (&pen);
          if (store)
            {
              GroupRect g = { pen.y, seg->device, seg->is_small, seg->stream, seg->pool_id };
              g_array_append_val (self->group_rects, g);
            }
          pen.y += HEADER_H;
          pen.x = pen.left;
        }
      else if (unmapped_between (prev, seg))
        {
          guint64 start = prev->address + prev->total_size;
          double gw = bar_width (seg->address - start, bpp, width);

          bx = pen_take (&pen, gw);
          if (store)
            {
              GapRect g = { bx, pen.y, gw, BAR_H, start, seg->address - start, g_array_index (order, guint, k - 1) };
              g_array_append_val (self->gap_rects, g);
            }
        }
      bx = pen_take (&pen, w);
      if (store)
        {
          SegRect r = { bx, pen.y, w, BAR_H, si };
          g_array_append_val (self->seg_rects, r);
        }
      if (unmapped_tail (seg, next))
        {
          bx = pen_take (&pen, TAIL_W);
          if (store)
            {
              GapRect g = { bx, pen.y, TAIL_W, BAR_H, seg->address + seg->total_size, 0, si };
              g_array_append_val (self->gap_rects, g);
            }
        }
      prev = seg;
    }
  if (prev != NULL)
    pen_next_row (&pen);
  return pen.y - y;
}

/* A bar's one-pixel outline, on the pixel grid; dashed if the caller set
 * a dash. */
static void
outline_bar (cairo_t             *cr,
             const TsRenderColor *color,
             double               x,
             double               y,
             double               w,
             double               h)
{
  ts_render_set_color (cr, color);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, floor (x) + 0.5, floor (y) + 0.5, MAX (1, floor (w) - 1), h - 1);
  cairo_stroke (cr);
}

static void
hatch (cairo_t *cr,
       double   x,
       double   y,
       double   w,
       double   h)
{
  cairo_save (cr);
  cairo_rectangle (cr, x, y, w, h);
  cairo_clip (cr);
  cairo_set_source_rgba (cr, 1, 1, 1, 0.45);
  cairo_set_line_width (cr, 1.5);
  for (double t = x - h; t < x + w; t += 6)
    {
      cairo_move_to (cr, t, y + h);
      cairo_line_to (cr, t + h, y);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}

/* The dim line under a bar, cut to the bar's width. */
static void
bar_label (cairo_t               *cr,
           PangoLayout           *layout_text,
           const TsRenderPalette *p,
           double                 x,
           double                 y,
           double                 w,
           const char            *text)
{
  pango_layout_set_text (layout_text, text, -1);
  pango_layout_set_width (layout_text, (int) (w * PANGO_SCALE));
  ts_render_set_color (cr, &p->dim_text);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout_text);
  pango_layout_set_width (layout_text, -1);
}

static void
draw_segment (TsSegmentMapRenderer *self,
              cairo_t              *cr,
              PangoLayout          *layout_text,
              const TsRenderPalette *p,
              const MapColors      *c,
              const SegRect        *r)
{
  const TsMemoryState *state = self->state;
  const TsMemorySegment *seg = &g_array_index (state->segments, TsMemorySegment, r->segment);
  double scale = r->w / (double) seg->total_size;
  gboolean whole_free = seg->n_blocks == 1 &&
                        g_array_index (state->blocks, TsMemoryBlock, seg->first_block).state == TS_BLOCK_STATE_INACTIVE;

  for (guint j = 0; j < seg->n_blocks; j++)
    {
      const TsMemoryBlock *b = &g_array_index (state->blocks, TsMemoryBlock, seg->first_block + j);
      double bx0 = r->x + (double) (b->address - seg->address) * scale;
      double bx1 = r->x + (double) (b->address + b->size - seg->address) * scale;

      switch (b->state)
        {
        case TS_BLOCK_STATE_ACTIVE_ALLOCATED:
          {
            double wx = r->x + (double) (b->address + b->requested_size - seg->address) * scale;

            ts_render_set_color (cr, &c->allocated);
            cairo_rectangle (cr, bx0, r->y, bx1 - bx0, r->h);
            cairo_fill (cr);
            if (b->size > b->requested_size)
              {
                /* At least a hairline, so waste is never invisible. */
                wx = MIN (wx, bx1 - 1);
                ts_render_set_color (cr, &c->waste);
                cairo_rectangle (cr, wx, r->y, bx1 - wx, r->h);
                cairo_fill (cr);
              }
          }
          break;
        case TS_BLOCK_STATE_ACTIVE_PENDING_FREE:
          ts_render_set_color (cr, &c->pending);
          cairo_rectangle (cr, bx0, r->y, bx1 - bx0, r->h);
          cairo_fill (cr);
          hatch (cr, bx0, r->y, bx1 - bx0, r->h);
          break;
        case TS_BLOCK_STATE_INACTIVE:
        default:
          ts_render_set_color (cr, whole_free ? &c->whole_free : &c->split_free);
          cairo_rectangle (cr, bx0, r->y, bx1 - bx0, r->h);
          cairo_fill (cr);
          break;
        }

      /* Block borders where there is room for them. */
      if (j > 0 && bx1 - bx0 >= 3)
        {
          ts_render_set_color (cr, &p->background);
          cairo_rectangle (cr, floor (bx0), r->y, 1, r->h);
          cairo_fill (cr);
        }
    }

  outline_bar (cr, &c->outline, r->x, r->y, r->w, r->h);

  if (r->w >= 70)
    {
      g_autofree char *size = ts_memory_format_bytes (seg->total_size);
      g_autofree char *text = r->w >= 150 ? g_strdup_printf ("0x%" G_GINT64_MODIFIER "x · %s", seg->address, size)
                                           : g_strdup (size);

      bar_label (cr, layout_text, p, r->x, r->y + r->h + 1, r->w, text);
    }
}

static void
draw_gap (cairo_t         *cr,
          PangoLayout     *layout_text,
          const TsRenderPalette *p,
          const MapColors *c,
          const GapRect   *g)
{
  ts_render_set_color (cr, &c->unmapped);
  cairo_rectangle (cr, g->x, g->y, g->w, g->h);
  cairo_fill (cr);
  hatch (cr, g->x, g->y, g->w, g->h);
  /* dashed: there is no segment here, only reserved addresses */
  cairo_set_dash (cr, (const double[]) { 3, 2 }, 2, 0);
  outline_bar (cr, &c->outline, g->x, g->y, g->w, g->h);
  cairo_set_dash (cr, NULL, 0, 0);

  if (g->w >= 70 && g->size > 0)
    {
      g_autofree char *size = ts_memory_format_bytes (g->size);
      /* Translators: the size of an expandable segment's unmapped pages */
      g_autofree char *text = g_strdup_printf (_("%s unmapped"), size);

      bar_label (cr, layout_text, p, g->x, g->y + g->h + 1, g->w, text);
    }
}

/* Wraps to more rows when the items do not fit width; returns the
 * height used (a multiple of LEGEND_H). */
static double
draw_legend (cairo_t         *cr,
             PangoLayout     *layout_text,
             const TsRenderPalette *p,
             const MapColors *c,
             double           x,
             double           y,
             double           width)
{
  const struct { const TsRenderColor *color; const char *label; gboolean hatched; } items[] = {
    { &c->allocated, _("allocated"), FALSE },
    { &c->waste, _("rounding waste (size − requested)"), FALSE },
    { &c->pending, _("pending free (record_stream)"), TRUE },
    { &c->split_free, _("free in a split segment (not releasable)"), FALSE },
    { &c->whole_free, _("free segment (empty_cache releases it)"), FALSE },
    { &c->unmapped, _("unmapped pages (expandable segment)"), TRUE },
  };
  double cx = x, cy = y;

  for (guint k = 0; k < G_N_ELEMENTS (items); k++)
    {
      int tw, th;

      pango_layout_set_text (layout_text, items[k].label, -1);
      pango_layout_get_pixel_size (layout_text, &tw, &th);
      if (cx > x && cx + 18 + tw > x + width)
        {
          cx = x;
          cy += LEGEND_H;
        }
      ts_render_set_color (cr, items[k].color);
      cairo_rectangle (cr, cx, cy + 4, 14, 10);
      cairo_fill (cr);
      if (items[k].hatched)
        hatch (cr, cx, cy + 4, 14, 10);
      ts_render_set_color (cr, &c->outline);
      cairo_set_line_width (cr, 1);
      cairo_rectangle (cr, cx + 0.5, cy + 4.5, 13, 9);
      cairo_stroke (cr);
      ts_render_set_color (cr, &p->foreground);
      cairo_move_to (cr, cx + 18, cy + 2);
      pango_cairo_show_layout (cr, layout_text);
      cx += 18 + tw + 16;
    }
  return cy - y + LEGEND_H;
}

void
ts_segment_map_renderer_draw (TsSegmentMapRenderer *self,
                              cairo_t              *cr,
                              double                x,
                              double                y,
                              double                width,
                              double                height)
{
  const TsRenderPalette *p;
  const MapColors *c;
  const TsMemoryState *state;
  g_autoptr(GArray) order = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(PangoFontDescription) font = NULL;
  PangoLayout *text;
  double inner_x = x + PAD, inner_w = width - 2 * PAD;
  double top = y + TITLE_H + LEGEND_H, avail = height - TITLE_H - LEGEND_H - PAD;
  guint64 largest = 1;
  double bpp;
  g_autofree char *title = NULL;

  g_return_if_fail (TS_IS_SEGMENT_MAP_RENDERER (self));
  g_return_if_fail (cr != NULL);

  p = ts_render_palette_get (self->dark);
  c = self->dark ? &dark_colors : &light_colors;
  state = ts_segment_map_renderer_get_state (self);
  g_array_set_size (self->seg_rects, 0);
  g_array_set_size (self->group_rects, 0);
  g_array_set_size (self->gap_rects, 0);
  self->x0 = inner_x;
  self->x1 = inner_x + inner_w;

  /* (not inside MAX, which would evaluate it twice) */
  largest = drawing_order (self, state, order);
  largest = MAX (largest, 1);

  cairo_save (cr);
  cairo_rectangle (cr, x, y, width, height);
  cairo_clip (cr);
  ts_render_set_color (cr, &p->background);
  cairo_paint (cr);

  text = pango_cairo_create_layout (cr);
  font = pango_font_description_from_string ("Sans 8");
  pango_layout_set_font_description (text, font);
  pango_layout_set_ellipsize (text, PANGO_ELLIPSIZE_END);

  {
    gint64 reserved = 0, allocated = 0;

    for (guint d = 0; d < state->n_devices; d++)
      if (self->device < 0 || d == (guint) self->device)
        {
          reserved += state->stats[d].reserved_bytes[TS_STAT_TYPE_ALL].current;
          allocated += state->stats[d].allocated_bytes[TS_STAT_TYPE_ALL].current;
        }
    {
      g_autofree char *s_res = ts_memory_format_bytes ((guint64) reserved);
      g_autofree char *s_all = ts_memory_format_bytes ((guint64) allocated);
      /* The trace's time even on the allocator-events axis */
      double ms = state->index > 0 ? (double) ts_memory_replay_get_trace_time (self->replay, state->index - 1) / 1e6 : 0;

      /* Translators: the segment map's title; %zu is an action number */
      title = g_strdup_printf (_("Segments after action %zu (t = %.3f ms): %u segments, "
                                 "%s reserved, %s allocated"),
                               (size_t) state->index, ms, order->len, s_res, s_all);
    }
  }
  pango_layout_set_text (text, title, -1);
  ts_render_set_color (cr, &p->foreground);
  cairo_move_to (cr, inner_x, y + 3);
  pango_cairo_show_layout (cr, text);
  {
    /* The groups start under the legend, however many rows it took. */
    double legend_h = draw_legend (cr, text, p, c, inner_x, y + TITLE_H, inner_w);

    top += legend_h - LEGEND_H;
    avail -= legend_h - LEGEND_H;
  }

  if (order->len == 0)
    {
      pango_layout_set_text (text, _("No segments at this instant"), -1);
      ts_render_set_color (cr, &p->dim_text);
      cairo_move_to (cr, inner_x, top + 4);
      pango_cairo_show_layout (cr, text);
    }
  else
    {
      /* One scale for the map: the largest segment fits a row, and the
       * whole map fits the height if it can. */
      bpp = MAX (1.0, (double) largest / inner_w);
      for (guint tries = 0; tries < 40 && layout (self, order, bpp, inner_x, top, inner_w, FALSE) > avail; tries++)
        bpp *= 1.3;
      layout (self, order, bpp, inner_x, top, inner_w, TRUE);

      for (guint k = 0; k < self->group_rects->len; k++)
        {
          const GroupRect *g = &g_array_index (self->group_rects, GroupRect, k);
          g_autofree char *h = NULL;
          guint n_segs = 0;
          guint64 bytes = 0;

          for (guint j = 0; j < self->seg_rects->len; j++)
            {
              const TsMemorySegment *seg = &g_array_index (state->segments, TsMemorySegment,
                                                           g_array_index (self->seg_rects, SegRect, j).segment);
              if (seg->device == g->device && seg->is_small == g->is_small && seg->stream == g->stream &&
                  TS_MEM_POOL_ID_EQUAL (seg->pool_id, g->pool_id))
                n_segs++, bytes += seg->total_size;
            }
          {
            g_autofree char *s_bytes = ts_memory_format_bytes (bytes);
            g_autofree char *segments = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u segment", "%u segments", n_segs),
                                                         n_segs);

            h = g_strdup_printf (g->is_small ? _("Device %u · small pool · stream %u — %s, %s")
                                             : _("Device %u · large pool · stream %u — %s, %s"),
                                 g->device, g->stream, segments, s_bytes);
            /* A private pool's groups say whose they are. */
            if (!TS_MEM_POOL_ID_IS_NONE (g->pool_id))
              {
                g_autofree char *pool = ts_memory_pool_name (g->pool_id);
                char *with = g_strdup_printf ("%s · %s", pool, h);

                g_free (h);
                h = with;
              }
          }
          pango_layout_set_text (text, h, -1);
          ts_render_set_color (cr, &p->foreground);
          cairo_move_to (cr, inner_x, g->y + 2);
          pango_cairo_show_layout (cr, text);
        }
      for (guint k = 0; k < self->seg_rects->len; k++)
        draw_segment (self, cr, text, p, c, &g_array_index (self->seg_rects, SegRect, k));
      for (guint k = 0; k < self->gap_rects->len; k++)
        draw_gap (cr, text, p, c, &g_array_index (self->gap_rects, GapRect, k));
    }

  g_object_unref (text);
  cairo_restore (cr);
}

/* What a hit on a segment or next to it says of the segment. */
static void
hit_segment (TsSegmentMapHit       *hit,
             const TsMemorySegment *seg,
             guint                  index)
{
  hit->device = seg->device;
  hit->is_small = seg->is_small;
  hit->stream = seg->stream;
  hit->pool_id = seg->pool_id;
  hit->is_expandable = seg->is_expandable;
  hit->segment = index;
}

gboolean
ts_segment_map_renderer_hit_test (TsSegmentMapRenderer *self,
                                  double                x,
                                  double                y,
                                  TsSegmentMapHit      *hit)
{
  const TsMemoryState *state;

  g_return_val_if_fail (TS_IS_SEGMENT_MAP_RENDERER (self), FALSE);
  g_return_val_if_fail (hit != NULL, FALSE);

  memset (hit, 0, sizeof *hit);
  hit->allocation = TS_MEMORY_REPLAY_NONE;
  state = self->state;
  if (state == NULL)
    return FALSE;

  for (guint k = 0; k < self->seg_rects->len; k++)
    {
      const SegRect *r = &g_array_index (self->seg_rects, SegRect, k);
      const TsMemorySegment *seg;
      guint64 off;

      if (x < r->x || x >= r->x + r->w || y < r->y || y >= r->y + r->h)
        continue;
      seg = &g_array_index (state->segments, TsMemorySegment, r->segment);
      off = (guint64) ((x - r->x) / r->w * (double) seg->total_size);
      off = MIN (off, seg->total_size - 1);

      for (guint j = 0; j < seg->n_blocks; j++)
        {
          const TsMemoryBlock *b = &g_array_index (state->blocks, TsMemoryBlock, seg->first_block + j);

          if (seg->address + off < b->address || seg->address + off >= b->address + b->size)
            continue;
          hit->kind = TS_SEGMENT_MAP_HIT_BLOCK;
          hit_segment (hit, seg, r->segment);
          hit->block = seg->first_block + j;
          hit->segment_address = seg->address;
          hit->segment_size = seg->total_size;
          hit->address = b->address;
          hit->size = b->size;
          hit->requested_size = b->requested_size;
          hit->state = b->state;
          hit->free_time = G_MAXINT64;
          if (b->allocation != TS_MEMORY_REPLAY_NONE)
            {
              const TsMemoryAllocation *a = ts_memory_replay_get_allocation (self->replay, b->allocation);

              hit->allocation = b->allocation;
              hit->loc = a->loc;
              hit->correlation = a->correlation;
              hit->alloc_time = a->time;
              if (a->free_completed_action != TS_MEMORY_REPLAY_NONE)
                hit->free_time = ts_memory_replay_get_action_time (self->replay, a->free_completed_action);
              hit->in_waste = b->state == TS_BLOCK_STATE_ACTIVE_ALLOCATED &&
                              seg->address + off >= b->address + b->requested_size;
            }
          return TRUE;
        }
    }

  for (guint k = 0; k < self->gap_rects->len; k++)
    {
      const GapRect *g = &g_array_index (self->gap_rects, GapRect, k);
      const TsMemorySegment *seg = &g_array_index (state->segments, TsMemorySegment, g->segment);

      if (x < g->x || x >= g->x + g->w || y < g->y || y >= g->y + g->h)
        continue;
      hit->kind = TS_SEGMENT_MAP_HIT_UNMAPPED;
      hit_segment (hit, seg, g->segment);
      hit->address = g->address;
      hit->size = g->size;
      return TRUE;
    }

  for (guint k = 0; k < self->group_rects->len; k++)
    {
      const GroupRect *g = &g_array_index (self->group_rects, GroupRect, k);

      if (y >= g->y && y < g->y + HEADER_H && x >= self->x0 && x < self->x1)
        {
          hit->kind = TS_SEGMENT_MAP_HIT_GROUP;
          hit->device = g->device;
          hit->is_small = g->is_small;
          hit->stream = g->stream;
          hit->pool_id = g->pool_id;
          return TRUE;
        }
    }
  return FALSE;
}

char *
ts_segment_map_hit_describe (TsSegmentMapRenderer  *self,
                             const TsSegmentMapHit *hit)
{
  TsRecorder *recorder;
  g_autofree char *s_size = NULL, *s_seg = NULL, *where = NULL;
  char *text;

  g_return_val_if_fail (TS_IS_SEGMENT_MAP_RENDERER (self), NULL);
  g_return_val_if_fail (hit != NULL, NULL);

  recorder = ts_memory_replay_get_recorder (self->replay);
  if (hit->kind == TS_SEGMENT_MAP_HIT_GROUP)
    {
      g_autofree char *pool = ts_memory_pool_name (hit->pool_id);
      g_autofree char *group = g_strdup_printf (hit->is_small ? _("Device %u, small pool, stream %u")
                                                              : _("Device %u, large pool, stream %u"),
                                                hit->device, hit->stream);
      return g_strdup_printf ("%s (%s)", group, pool);
    }
  if (hit->kind == TS_SEGMENT_MAP_HIT_UNMAPPED)
    {
      g_autofree char *addr = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", hit->address);

      if (hit->size == 0)
        /* Translators: %s is an address */
        return g_strdup_printf (_("From %s: the rest of the expandable segment's reserved address space, "
                                  "without pages"), addr);
      s_size = ts_memory_format_bytes (hit->size);
      /* Translators: an address, then a size */
      return g_strdup_printf (_("%s: %s of an expandable segment without pages "
                                "(unmapped; mapped again in 2 MiB or 20 MiB pages when needed)"),
                              addr, s_size);
    }
  if (hit->kind != TS_SEGMENT_MAP_HIT_BLOCK)
    return NULL;

  s_size = ts_memory_format_bytes (hit->size);
  s_seg = ts_memory_format_bytes (hit->segment_size);
  if (hit->state == TS_BLOCK_STATE_INACTIVE)
    text = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x: %s free (inactive)\n"
                            "in segment 0x%" G_GINT64_MODIFIER "x (%s, %s pool, stream %u)",
                            hit->address, s_size, hit->segment_address, s_seg,
                            hit->is_small ? "small" : "large", hit->stream);
  else
    {
      where = ts_memory_format_loc (recorder, &hit->loc);
      text = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x: %s block, %" G_GUINT64_FORMAT " bytes requested "
                              "(%" G_GUINT64_FORMAT " bytes of rounding)%s\n"
                              "allocated at %s%s%s, stream %u\n"
                              "in segment 0x%" G_GINT64_MODIFIER "x (%s, %s pool)",
                              hit->address, s_size, hit->requested_size, hit->size - hit->requested_size,
                              hit->state == TS_BLOCK_STATE_ACTIVE_PENDING_FREE
                                ? ", freed but waiting for record_stream's streams" : "",
                              where, hit->loc.function ? " in " : "",
                              hit->loc.function ? ts_recorder_lookup (recorder, hit->loc.function) : "",
                              hit->stream, hit->segment_address, s_seg, hit->is_small ? "small" : "large");
    }
  /* Whose segment it is, when not the default pool's plain cudaMalloc. */
  if (!TS_MEM_POOL_ID_IS_NONE (hit->pool_id) || hit->is_expandable)
    {
      g_autofree char *pool = ts_memory_pool_name (hit->pool_id);
      g_autofree char *plain = text;

      text = g_strdup_printf ("%s\nof the %s%s", plain, pool,
                              hit->is_expandable ? ", a mapped range of an expandable segment" : "");
    }
  return text;
}

GArray *
ts_segment_map_renderer_get_unmapped (TsSegmentMapRenderer *self)
{
  const TsMemoryState *state;
  g_autoptr(GArray) order = g_array_new (FALSE, FALSE, sizeof (guint));
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint64));
  const TsMemorySegment *prev = NULL;

  g_return_val_if_fail (TS_IS_SEGMENT_MAP_RENDERER (self), out);

  state = ts_segment_map_renderer_get_state (self);
  drawing_order (self, state, order);
  for (guint k = 0; k < order->len; k++)
    {
      const TsMemorySegment *seg = &g_array_index (state->segments, TsMemorySegment, g_array_index (order, guint, k));
      const TsMemorySegment *next = k + 1 < order->len
                                      ? &g_array_index (state->segments, TsMemorySegment,
                                                        g_array_index (order, guint, k + 1))
                                      : NULL;

      if (unmapped_between (prev, seg))
        {
          guint64 pair[2] = { prev->address + prev->total_size, seg->address - prev->address - prev->total_size };
          g_array_append_vals (out, pair, 2);
        }
      if (unmapped_tail (seg, next))
        {
          guint64 pair[2] = { seg->address + seg->total_size, 0 };
          g_array_append_vals (out, pair, 2);
        }
      prev = seg;
    }
  return out;
}
