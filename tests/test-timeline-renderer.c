/* test-timeline-renderer.c: layout, hit testing, level of detail, pixels
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <glib/gstdio.h>

#include "ts-busy-index.h"
#include "ts-render-export.h"
#include "ts-render-format.h"
#include "ts-render-palette.h"
#include "ts-test-trace.h"
#include "ts-time-ruler.h"
#include "ts-timeline-renderer.h"
#include "ts-trace-reader.h"
#include "ts-memory-renderer.h"

static void
add_kernel (TsRecorder *rec,
            TsStreamId  stream,
            TsTime      start,
            TsTime      end,
            const char *name)
{
  TsKernelRecord r = { 0 };

  r.start = start;
  r.end = end;
  r.stream = stream;
  r.name = ts_recorder_intern (rec, name);
  ts_recorder_append (rec, TS_RECORD_KERNEL, &r);
}

/* One device, one stream, one kernel over [1000, 2000) ns. */
static TsTraceDocument *
one_kernel_document (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  TsStreamRecord s = { 0, 0, 0, 1, 0 };

  ts_recorder_append (rec, TS_RECORD_STREAM, &s);
  add_kernel (rec, 0, 1000, 2000, "gemm");
  return ts_trace_document_new (rec);
}

static guint
find_track (TsTraceDocument *doc,
            TsTrackKind      kind,
            gint32           device)
{
  for (guint i = 0; i < ts_trace_document_get_n_tracks (doc); i++)
    {
      const TsTrack *t = ts_trace_document_get_track (doc, i);
      /* Streams: the first one with work (default streams are idle). */
      if (t->kind == kind && t->device == device && (kind != TS_TRACK_STREAM || t->n_items > 0))
        return i;
    }
  g_assert_not_reached ();
}

static void
test_layout (void)
{
  g_autoptr(TsRecorder) rec = ts_test_trace_new (NULL);
  g_autoptr(TsTraceDocument) doc = ts_trace_document_new (rec);
  g_autoptr(TsTimelineRenderer) r = ts_timeline_renderer_new (doc);
  guint n_tracks = ts_trace_document_get_n_tracks (doc);
  guint n_rows, dev0_tracks = 0;
  double y = 0, height_before;
  TsTimelineRow row;

  /* Two host threads, two devices. */
  g_assert_cmpuint (ts_timeline_renderer_get_n_groups (r), ==, 4);
  g_assert_cmpstr (ts_timeline_renderer_get_group_title (r, 0), ==, "Host thread 0 · MainThread");
  g_assert_cmpstr (ts_timeline_renderer_get_group_title (r, 2), ==, "cuda:0 · NVIDIA H100 80GB HBM3");

  /* Host 0: API + NVTX; host 1: API; each device: 3 streams + memory. */
  g_assert_cmpuint (n_tracks, ==, 2 + 1 + 2 * 4);
  n_rows = ts_timeline_renderer_get_n_rows (r);
  g_assert_cmpuint (n_rows, ==, 4 + n_tracks);

  /* Rows stack without gaps, in document order. */
  for (guint i = 0, next_track = 0; i < n_rows; i++)
    {
      const TsTimelineRow *rw = ts_timeline_renderer_get_row (r, i);
      g_assert_cmpfloat (rw->y, ==, y);
      y += rw->height;
      if (rw->kind == TS_TIMELINE_ROW_TRACK)
        g_assert_cmpuint (rw->track, ==, next_track++);
    }
  g_assert_cmpfloat (ts_timeline_renderer_get_content_height (r), ==, y);

  /* Host thread 0's API track nests aten ops around launches: two lanes. */
  g_assert_true (ts_timeline_renderer_get_track_row (r, 0, &row));
  g_assert_cmpfloat (row.height, ==, 2 * 18 + 6);

  /* Collapsing device 0 hides its tracks and shrinks the content. */
  for (guint i = 0; i < n_tracks; i++)
    if (ts_trace_document_get_track (doc, i)->device == 0)
      dev0_tracks++;
  height_before = ts_timeline_renderer_get_content_height (r);
  ts_timeline_renderer_set_group_collapsed (r, 2, TRUE);
  g_assert_true (ts_timeline_renderer_get_group_collapsed (r, 2));
  g_assert_cmpuint (ts_timeline_renderer_get_n_rows (r), ==, n_rows - dev0_tracks);
  g_assert_false (ts_timeline_renderer_get_track_row (r, find_track (doc, TS_TRACK_MEMORY, 0), NULL));
  g_assert_cmpfloat (ts_timeline_renderer_get_content_height (r), <, height_before);
  ts_timeline_renderer_set_group_collapsed (r, 2, FALSE);
  g_assert_cmpuint (ts_timeline_renderer_get_n_rows (r), ==, n_rows);
}

static void
test_hit_test (void)
{
  g_autoptr(TsTraceDocument) doc = one_kernel_document ();
  g_autoptr(TsTimelineRenderer) r = ts_timeline_renderer_new (doc);
  TsTimelineView view = { 0, 4000, 1210, 300, 0 };
  TsTimelineHit hit;
  TsTimelineRow row;
  double ruler = ts_timeline_renderer_get_ruler_height (r);
  double lane_y;

  /* 1000 px of track area for 4000 ns: 4 ns per pixel. */
  ts_timeline_renderer_set_label_width (r, 210);
  g_assert_cmpfloat (ts_timeline_renderer_time_to_x (r, &view, 1000), ==, 460);
  g_assert_cmpint (ts_timeline_renderer_x_to_time (r, &view, 460), ==, 1000);

  g_assert_true (ts_timeline_renderer_get_track_row (r, 0, &row));
  lane_y = ruler + row.y + row.height / 2;

  g_assert_true (ts_timeline_renderer_hit_test (r, &view, 600, lane_y, &hit));
  g_assert_cmpint (hit.kind, ==, TS_TIMELINE_HIT_ITEM);
  g_assert_cmpuint (hit.track, ==, 0);
  g_assert_cmpuint (hit.item, ==, 0);
  g_assert_cmpint (hit.time, ==, 1560);

  /* Just right of the kernel's end (x 710), beyond the 2 px tolerance. */
  g_assert_true (ts_timeline_renderer_hit_test (r, &view, 715, lane_y, &hit));
  g_assert_cmpint (hit.kind, ==, TS_TIMELINE_HIT_TRACK);

  g_assert_true (ts_timeline_renderer_hit_test (r, &view, 100, lane_y, &hit));
  g_assert_cmpint (hit.kind, ==, TS_TIMELINE_HIT_LABEL);
  g_assert_true (ts_timeline_renderer_hit_test (r, &view, 600, 5, &hit));
  g_assert_cmpint (hit.kind, ==, TS_TIMELINE_HIT_RULER);
  g_assert_true (ts_timeline_renderer_hit_test (r, &view, 600, ruler + 5, &hit));
  g_assert_cmpint (hit.kind, ==, TS_TIMELINE_HIT_GROUP);
  g_assert_cmpuint (hit.group, ==, 0);
  g_assert_false (ts_timeline_renderer_hit_test (r, &view, 600, 290, &hit));

  /* Scrolling moves rows up. */
  view.scroll_y = 10;
  g_assert_true (ts_timeline_renderer_hit_test (r, &view, 600, lane_y - 10, &hit));
  g_assert_cmpint (hit.kind, ==, TS_TIMELINE_HIT_ITEM);
}

static guint32
pixel (cairo_surface_t *surface,
       int              x,
       int              y)
{
  const guint8 *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);

  return *(const guint32 *) (gconstpointer) (data + y * stride + x * 4) & 0xffffff;
}

static guint32
rgb (const TsRenderColor *c)
{
  return ((guint32) (c->r * 255 + 0.5) << 16) | ((guint32) (c->g * 255 + 0.5) << 8) | (guint32) (c->b * 255 + 0.5);
}

static gboolean
near (guint32 a,
      guint32 b,
      int     tolerance)
{
  for (int shift = 0; shift < 24; shift += 8)
    if (ABS ((int) ((a >> shift) & 0xff) - (int) ((b >> shift) & 0xff)) > tolerance)
      return FALSE;
  return TRUE;
}

static void
test_pixels (void)
{
  g_autoptr(TsTraceDocument) doc = one_kernel_document ();
  g_autoptr(TsTimelineRenderer) r = ts_timeline_renderer_new (doc);
  TsTimelineView view = { 0, 4000, 1210, 200, 0 };
  const TsTrack *t = ts_trace_document_get_track (doc, 0);
  cairo_surface_t *surface;
  cairo_t *cr;
  TsTimelineRow row;
  int lane_y;

  for (int dark = 0; dark < 2; dark++)
    {
      const TsRenderPalette *p = ts_render_palette_get (dark);

      ts_timeline_renderer_set_dark (r, dark);
      surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, view.width, view.height);
      cr = cairo_create (surface);
      ts_timeline_renderer_draw (r, cr, &view);
      cairo_destroy (cr);
      cairo_surface_flush (surface);

      g_assert_true (ts_timeline_renderer_get_track_row (r, 0, &row));
      lane_y = (int) (ts_timeline_renderer_get_ruler_height (r) + row.y + row.height / 2);

      /* The kernel spans x 460..710 in its colour; labels are centred, so
       * sample near its left edge below the text. */
      g_assert_cmphex (pixel (surface, 470, lane_y + 6), ==,
                       rgb (&p->kernel[t->labels[0] % TS_RENDER_N_KERNEL_COLORS]));
      /* Empty track area, and below the last row: the background. */
      g_assert_cmphex (pixel (surface, 1000, 190), ==, rgb (&p->background));
      /* Odd rows are shaded a few levels off the background. */
      g_assert_true (near (pixel (surface, 300, lane_y + 6), rgb (&p->background), 12));
      g_assert_false (near (pixel (surface, 300, lane_y + 6), rgb (&p->background), 1));

      cairo_surface_destroy (surface);
    }
}

/* A million 1 ns kernels, 3 ns apart, on one stream. */
static TsTraceDocument *
tiny_items_document (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  TsStreamRecord s = { 0, 0, 0, 1, 0 };
  TsKernelRecord k = { 0 };

  ts_recorder_append (rec, TS_RECORD_STREAM, &s);
  k.name = ts_recorder_intern (rec, "tiny");
  for (guint i = 0; i < 1000000; i++)
    {
      k.start = (TsTime) i * 3;
      k.end = k.start + 1;
      ts_recorder_append (rec, TS_RECORD_KERNEL, &k);
    }
  /* One long kernel in the middle, which must stay visible. */
  add_kernel (rec, 0, 3000000, 3600000, "long");
  return ts_trace_document_new (rec);
}

static void
test_level_of_detail (void)
{
  g_autoptr(TsTraceDocument) doc = tiny_items_document ();
  g_autoptr(TsTimelineRenderer) r = ts_timeline_renderer_new (doc);
  const int width = 1210;
  TsTimelineView views[] = {
    { 0, 3600000, width, 200, 0 },        /* everything */
    { 1000000, 1100000, width, 200, 0 },  /* 100 µs: still ~33k items */
    { 1000000, 1003000, width, 200, 0 },  /* 3 µs: 1000 items at 1 px each */
    { 1000000, 1000300, width, 200, 0 },  /* 300 ns: 100 items, 4 px each */
  };
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, 200);
  cairo_t *cr = cairo_create (surface);
  TsTimelineDrawStats stats;

  for (guint v = 0; v < G_N_ELEMENTS (views); v++)
    {
      ts_timeline_renderer_draw (r, cr, &views[v]);
      ts_timeline_renderer_get_draw_stats (r, &stats);
      /* Bounded by the pixels (1000 columns), not the million items. */
      g_assert_cmpuint (stats.n_items + stats.n_folds, <=, 1000);
      g_assert_cmpuint (stats.n_searches, <=, 2 * 1000 + 10);
      g_test_message ("view %u: %u items, %u folds, %u searches", v, stats.n_items, stats.n_folds, stats.n_searches);
    }

  /* Fully zoomed out: one fold over the tiny items, the long kernel drawn. */
  ts_timeline_renderer_draw (r, cr, &views[0]);
  ts_timeline_renderer_get_draw_stats (r, &stats);
  g_assert_cmpuint (stats.n_folds, ==, 1);
  g_assert_cmpuint (stats.n_items, ==, 1);

  /* At 300 ns the items are 4 px wide: all drawn, none folded. */
  ts_timeline_renderer_draw (r, cr, &views[3]);
  ts_timeline_renderer_get_draw_stats (r, &stats);
  g_assert_cmpuint (stats.n_folds, ==, 0);
  g_assert_cmpuint (stats.n_items, ==, 100);

  /* Hit testing a fold reports it with its count. */
  {
    TsTimelineHit hit;
    TsTimelineRow row;

    g_assert_true (ts_timeline_renderer_get_track_row (r, 0, &row));
    g_assert_true (ts_timeline_renderer_hit_test (r, &views[1], 700, 26 + row.y + row.height / 2, &hit));
    g_assert_cmpint (hit.kind, ==, TS_TIMELINE_HIT_FOLD);
    g_assert_cmpuint (hit.n_items, >, 1);
  }

  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

typedef struct
{
  TsTimelineRenderer *timeline;
  TsMemoryRenderer   *memory;
  TsTime              begin;
  TsTime              end;
} DrawData;

static void
draw_timeline (cairo_t  *cr,
               int       width,
               int       height,
               gpointer  user_data)
{
  DrawData *d = user_data;
  TsTimelineView view = { d->begin, d->end, width, height, 0 };

  if (d->memory != NULL)
    ts_memory_renderer_draw (d->memory, cr, &view);
  else
    ts_timeline_renderer_draw (d->timeline, cr, &view);
}

static void
check_magic (const char *path,
             const char *magic)
{
  g_autofree char *contents = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_cmpuint (len, >, strlen (magic));
  g_assert_nonnull (g_strstr_len (contents, MIN (len, 256), magic));
}

static void
test_export (void)
{
  g_autoptr(TsRecorder) rec = ts_test_trace_new (NULL);
  g_autoptr(TsTraceDocument) doc = ts_trace_document_new (rec);
  g_autoptr(TsTimelineRenderer) r = ts_timeline_renderer_new (doc);
  g_autoptr(TsMemoryRenderer) m = ts_memory_renderer_new (doc);
  g_autofree char *dir = g_dir_make_tmp ("ts-render-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "t.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "t.svg", NULL);
  g_autofree char *pdf = g_build_filename (dir, "t.pdf", NULL);
  g_autofree char *mem = g_build_filename (dir, "m.png", NULL);
  g_autofree char *bad = g_build_filename (dir, "t.bmp", NULL);
  g_autoptr(GError) error = NULL;
  DrawData d = { r, NULL, 0, 0 };
  TsTimelineViewState *state = ts_timeline_renderer_get_view_state (r);
  const char *keep = g_getenv ("TS_TEST_KEEP_IMAGES");

  ts_trace_document_get_time_span (doc, &d.begin, &d.end);
  /* A selection, to see it drawn. */
  ts_timeline_view_state_select_item (state, find_track (doc, TS_TRACK_STREAM, 0), 3);
  ts_timeline_view_state_set_selected_range (state, d.begin + (d.end - d.begin) / 4, d.begin + (d.end - d.begin) / 3);

  g_assert_true (ts_render_to_file (png, 1600, 900, draw_timeline, &d, &error));
  g_assert_no_error (error);
  check_magic (png, "PNG");
  g_assert_true (ts_render_to_file (svg, 800, 600, draw_timeline, &d, &error));
  check_magic (svg, "<svg");
  g_assert_true (ts_render_to_file (pdf, 800, 600, draw_timeline, &d, &error));
  check_magic (pdf, "%PDF");
  d.memory = m;
  g_assert_true (ts_render_to_file (mem, 1200, 600, draw_timeline, &d, &error));
  g_assert_cmpuint (ts_memory_renderer_get_n_panels (m), ==, 2);

  g_assert_false (ts_render_to_file (bad, 10, 10, draw_timeline, &d, &error));
  g_assert_error (error, TS_RENDER_ERROR, TS_RENDER_ERROR_FORMAT);

  if (keep != NULL)
    {
      g_autofree char *to_png = g_build_filename (keep, "timeline.png", NULL);
      g_autofree char *to_mem = g_build_filename (keep, "memory.png", NULL);
      g_autofree char *to_zoom = g_build_filename (keep, "timeline-zoom.png", NULL);
      g_autofree char *to_dark = g_build_filename (keep, "timeline-dark.png", NULL);
      g_rename (png, to_png);
      g_rename (mem, to_mem);
      d.memory = NULL;
      ts_timeline_view_state_unselect_item (state);
      ts_timeline_view_state_set_selected_range (state, 0, 0);
      ts_timeline_renderer_set_dark (r, TRUE);
      g_assert_true (ts_render_to_file (to_dark, 1600, 900, draw_timeline, &d, NULL));
      ts_timeline_renderer_set_dark (r, FALSE);
      ts_timeline_view_state_select_item (state, find_track (doc, TS_TRACK_STREAM, 0), 3);
      d.end = d.begin + (d.end - d.begin) / 6;
      g_assert_true (ts_render_to_file (to_zoom, 1600, 900, draw_timeline, &d, NULL));
    }

  g_remove (png);
  g_remove (svg);
  g_remove (pdf);
  g_remove (mem);
  g_rmdir (dir);
}

/* Event markers and flags are hit like items: a record's triangle hangs
 * from its stream's row and leads to the cudaEventRecord call; an OOM or
 * error gets a flag on the ruler. */
static void
test_marker_hits (void)
{
  g_autoptr(TsRecorder) rec = ts_test_trace_new (NULL);
  g_autoptr(TsTraceDocument) doc = NULL;
  g_autoptr(TsTimelineRenderer) r = NULL;
  TsEventRecordRecord er;
  TsAllocRecord oom = { 0 };
  TsTimelineView view = { 0, 0, 1600, 2000, 0 };
  TsTimelineHit hit;
  TsTimelineRow row;
  guint track = G_MAXUINT, call_track, call_item;
  const TsTrack *t;

  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_EVENT_RECORD), >, 0);
  ts_recorder_get (rec, TS_RECORD_EVENT_RECORD, 0, &er);
  oom.time = er.time;
  oom.action = TS_ALLOC_ACTION_OOM;
  oom.size = 1 << 20;
  ts_recorder_append (rec, TS_RECORD_ALLOC, &oom);
  doc = ts_trace_document_new (rec);
  r = ts_timeline_renderer_new (doc);
  ts_trace_document_get_time_span (doc, &view.begin, &view.end);
  for (guint i = 0; i < ts_trace_document_get_n_tracks (doc); i++)
    if (ts_trace_document_get_track (doc, i)->kind == TS_TRACK_STREAM &&
        ts_trace_document_get_track (doc, i)->stream == er.stream)
      track = i;
  g_assert_cmpuint (track, !=, G_MAXUINT);
  g_assert_true (ts_timeline_renderer_get_track_row (r, track, &row));

  g_assert_true (ts_timeline_renderer_hit_test (r, &view, ts_timeline_renderer_time_to_x (r, &view, er.time),
                                                ts_timeline_renderer_get_ruler_height (r) + row.y + 2, &hit));
  g_assert_cmpint (hit.kind, ==, TS_TIMELINE_HIT_EVENT_RECORD);
  g_assert_cmpuint (hit.track, ==, track);
  g_assert_true (ts_timeline_renderer_locate_event_call (r, &hit, &call_track, &call_item));
  t = ts_trace_document_get_track (doc, call_track);
  g_assert_cmpint (t->kinds[call_item], ==, TS_ITEM_API_CALL);
  g_assert_cmpstr (ts_recorder_lookup (rec, t->labels[call_item]), ==, "cudaEventRecord");

  g_assert_cmpuint (ts_timeline_renderer_get_n_flags (r), ==, 1);
  g_assert_cmpint (ts_timeline_renderer_get_flag (r, 0)->kind, ==, TS_TIMELINE_FLAG_OOM);
  g_assert_true (ts_timeline_renderer_hit_test (r, &view, ts_timeline_renderer_time_to_x (r, &view, er.time),
                                                ts_timeline_renderer_get_ruler_height (r) - 3, &hit));
  g_assert_cmpint (hit.kind, ==, TS_TIMELINE_HIT_FLAG);
  g_assert_cmpuint (hit.item, ==, 0);
}

/* Busy time per window from merged spans: what a device's utilization
 * row and the density of folded bars read per pixel column. */
static void
test_busy_index (void)
{
  const TsTime starts[] = { 100, 150, 400, 1000, 0 };
  const TsTime ends[] = { 200, 300, 500, 1000, 0 };     /* the last two are empty */
  g_autoptr(TsBusyIndex) busy = ts_busy_index_new (starts, ends, G_N_ELEMENTS (starts));
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  TsStreamRecord s0 = { 0, 0, 0, 1, 0 };
  TsStreamRecord s1 = { 1, 0, 0, 0, 0 };
  g_autoptr(TsTraceDocument) doc = NULL;
  g_autoptr(TsTimelineRenderer) r = NULL;

  /* [100, 300) and [400, 500): 300 ns in all. */
  g_assert_cmpint (ts_busy_index_busy (busy, 0, 1000), ==, 300);
  g_assert_cmpint (ts_busy_index_busy (busy, 150, 450), ==, 200);
  g_assert_cmpint (ts_busy_index_busy (busy, 300, 400), ==, 0);
  g_assert_cmpint (ts_busy_index_busy (busy, 120, 130), ==, 10);
  g_assert_cmpint (ts_busy_index_busy (busy, 499, 2000), ==, 1);
  g_assert_cmpint (ts_busy_index_busy (busy, 500, 400), ==, 0);

  /* A device's two streams overlap: busy is their union. */
  ts_recorder_append (rec, TS_RECORD_STREAM, &s0);
  ts_recorder_append (rec, TS_RECORD_STREAM, &s1);
  add_kernel (rec, 0, 0, 600, "a");
  add_kernel (rec, 1, 400, 1000, "b");
  add_kernel (rec, 0, 1500, 2000, "c");
  doc = ts_trace_document_new (rec);
  r = ts_timeline_renderer_new (doc);
  for (guint g = 0; g < ts_timeline_renderer_get_n_groups (r); g++)
    if (g_str_has_prefix (ts_timeline_renderer_get_group_title (r, g), "cuda:0"))
      {
        g_assert_cmpfloat_with_epsilon (ts_timeline_renderer_get_group_busy (r, g, 0, 2000), 0.75, 1e-9);
        g_assert_cmpfloat_with_epsilon (ts_timeline_renderer_get_group_busy (r, g, 1000, 1500), 0.0, 1e-9);
      }
}

/* Devices that ran and allocated nothing: rows only on request. */
static void
test_idle_devices (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  TsStreamRecord s0 = { 0, 0, 0, 1, 0 };
  TsStreamRecord s1 = { 1, 1, 0, 1, 0 };
  g_autoptr(TsTraceDocument) doc = NULL;
  g_autoptr(TsTimelineRenderer) r = NULL;
  TsTimelineViewState *state;
  guint shown;

  ts_recorder_append (rec, TS_RECORD_STREAM, &s0);
  ts_recorder_append (rec, TS_RECORD_STREAM, &s1);
  add_kernel (rec, 0, 1000, 2000, "gemm");
  doc = ts_trace_document_new (rec);
  r = ts_timeline_renderer_new (doc);
  state = ts_timeline_renderer_get_view_state (r);

  g_assert_cmpuint (ts_timeline_renderer_get_n_idle_groups (r), ==, 1);
  /* Shown by default: the CLI draws every device. */
  g_assert_true (ts_timeline_view_state_get_show_idle_devices (state));
  shown = ts_timeline_renderer_get_n_rows (r);
  ts_timeline_view_state_set_show_idle_devices (state, FALSE);
  g_assert_cmpuint (ts_timeline_renderer_get_n_rows (r), <, shown);
  for (guint i = 0; i < ts_timeline_renderer_get_n_rows (r); i++)
    {
      const TsTimelineRow *row = ts_timeline_renderer_get_row (r, i);
      g_assert_false (g_str_has_prefix (ts_timeline_renderer_get_group_title (r, row->group), "cuda:1"));
    }
  ts_timeline_view_state_set_show_idle_devices (state, TRUE);
  g_assert_cmpuint (ts_timeline_renderer_get_n_rows (r), ==, shown);
}

/* The race example's trace (the fuzz corpus keeps one the CLI wrote): its
 * hazard marks normal_ on the default stream and sum on stream 4, drawn as
 * two outlines and an arrow. */
static void
test_hazard_marks (void)
{
  g_autofree char *path = g_build_filename (TS_TEST_SRCDIR, "..", "fuzz", "corpus", "trace-reader",
                                            "hazard-race", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRecorder) rec = ts_trace_load (path, NULL, &error);
  g_autoptr(TsTraceDocument) doc = NULL;
  g_autoptr(TsTimelineRenderer) r = NULL;
  const TsTimelineProblem *p;
  const TsTrack *from, *to;
  TsTimelineDrawStats stats;
  TsTimelineView view = { 0, 0, 1200, 400, 0 };
  cairo_surface_t *surface;
  cairo_t *cr;

  g_assert_no_error (error);
  doc = ts_trace_document_new (rec);
  r = ts_timeline_renderer_new (doc);
  g_assert_cmpuint (ts_timeline_renderer_get_n_problems (r), ==, 1);
  p = ts_timeline_renderer_get_problem (r, 0);
  g_assert_cmpint (p->kind, ==, TS_TIMELINE_PROBLEM_HAZARD);
  g_assert_cmpuint (p->record, ==, 0);
  g_assert_true (p->has_from && p->has_to);
  from = ts_trace_document_get_track (doc, p->from_track);
  to = ts_trace_document_get_track (doc, p->to_track);
  g_assert_true (from->is_default);
  g_assert_cmpuint (to->stream, ==, 4);
  g_assert_cmpstr (ts_recorder_lookup (rec, from->labels[p->from_item]), ==, "aten::normal_");
  g_assert_cmpstr (ts_recorder_lookup (rec, to->labels[p->to_item]), ==, "aten::sum");

  ts_trace_document_get_time_span (doc, &view.begin, &view.end);
  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, view.width, view.height);
  cr = cairo_create (surface);
  ts_timeline_renderer_draw (r, cr, &view);
  ts_timeline_renderer_get_draw_stats (r, &stats);
  g_assert_cmpuint (stats.n_problems, ==, 2);
  g_assert_cmpuint (stats.n_arrows, >=, 1);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static void
assert_format (char       *text,
               const char *expected)
{
  g_assert_cmpstr (text, ==, expected);
  g_free (text);
}

/* Times with the digits their resolution needs, bytes in binary units,
 * FLOPs with SI prefixes. */
static void
test_format (void)
{
  assert_format (ts_time_format_at (239912000, 5000), "239.912 ms");
  assert_format (ts_time_format_at (239917000, 5000), "239.917 ms");
  assert_format (ts_time_format_at (239900000, 20000000), "239.9 ms");
  assert_format (ts_time_format_at (1500, 1), "1.500 µs");
  assert_format (ts_time_format_at (812, 1), "812 ns");

  g_assert_cmpint (ts_render_byte_step (1000 * 1024, 4), ==, 256 * 1024);
  g_assert_cmpint (ts_render_byte_step (300 * 1024 * 1024, 4), ==, 128 * 1024 * 1024);
  assert_format (ts_render_format_axis_bytes (768 * 1024), "768 KiB");
  assert_format (ts_render_format_axis_bytes (1024 * 1024), "1 MiB");
  assert_format (ts_render_format_axis_bytes (1280 * 1024), "1.25 MiB");
  assert_format (ts_render_format_axis_bytes (0), "0 bytes");
  assert_format (ts_render_format_bytes (40 * 1024 * 1024), "40.0\u00a0MiB");

  assert_format (ts_render_format_flops (2147483648u), "2.15 GFLOP");
  assert_format (ts_render_format_flops (512), "512 FLOP");
  assert_format (ts_render_format_flops (G_GUINT64_CONSTANT (123456789012345)), "123 TFLOP");
}


int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/timeline/layout", test_layout);
  g_test_add_func ("/timeline/hit-test", test_hit_test);
  g_test_add_func ("/timeline/pixels", test_pixels);
  g_test_add_func ("/timeline/level-of-detail", test_level_of_detail);
  g_test_add_func ("/timeline/export", test_export);
  g_test_add_func ("/timeline/idle-devices", test_idle_devices);
  g_test_add_func ("/timeline/hazard-marks", test_hazard_marks);
  g_test_add_func ("/render/format", test_format);
  g_test_add_func ("/render/busy-index", test_busy_index);
  g_test_add_func ("/timeline/marker-hits", test_marker_hits);
  return g_test_run ();
}
