/* bench-render.c: one timeline frame of a 10-million-record trace
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Builds a synthetic training loop of ~10M records (TS_BENCH_RECORDS to
 * change), then times ts_timeline_renderer_draw() on a 1920x1080 image
 * surface, fully zoomed out and at three zoom levels around the middle of
 * the run. Prints the median over repetitions per zoom and the primitives
 * drawn, against the target of 16 ms for an interactive frame.
 */

#include <stdio.h>
#include <stdlib.h>

#include "ts-test-trace.h"
#include "ts-timeline-renderer.h"

#include "bench-util.h"

#define WIDTH   1920
#define HEIGHT  1080
#define REPEATS 15

int
main (int    argc,
      char **argv)
{
  const char *env = g_getenv ("TS_BENCH_RECORDS");
  guint64 target = env != NULL ? g_ascii_strtoull (env, NULL, 10) : 10000000;
  TsTestTraceOptions o = { 2, 2, 1, 1000, 1 };
  g_autoptr(TsRecorder) rec = NULL;
  g_autoptr(TsTraceDocument) doc = NULL;
  g_autoptr(TsTimelineRenderer) r = NULL;
  cairo_surface_t *surface;
  cairo_t *cr;
  TsTime begin, end, mid;
  gint64 t0;
  static const double zooms[] = { 1.0, 1e-2, 1e-4, 1e-6 };

  o.n_steps = MAX (1, target / ts_test_trace_count (&o));

  t0 = g_get_monotonic_time ();
  rec = ts_test_trace_new (&o);
  printf ("trace: %" G_GUINT64_FORMAT " records (%u steps), generated in %.2f s\n",
          ts_test_trace_count (&o), o.n_steps, (g_get_monotonic_time () - t0) / 1e6);
  t0 = g_get_monotonic_time ();
  doc = ts_trace_document_new (rec);
  printf ("document: %u tracks, indexed in %.2f s\n",
          ts_trace_document_get_n_tracks (doc), (g_get_monotonic_time () - t0) / 1e6);

  r = ts_timeline_renderer_new (doc);
  ts_trace_document_get_time_span (doc, &begin, &end);
  mid = begin + (end - begin) / 2;
  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, WIDTH, HEIGHT);
  cr = cairo_create (surface);

  printf ("%-12s %12s %10s %8s %8s %8s %10s %8s %8s\n", "zoom", "window", "median ms", "min ms", "items", "folds", "searches", "arrows", "markers");
  for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
    {
      TsTime span = MAX (1000, (TsTime) ((end - begin) * zooms[z]));
      TsTimelineView view = { mid - span / 2, mid + span / 2, WIDTH, HEIGHT, 0 };
      double ms[REPEATS];
      TsTimelineDrawStats stats;
      char window[32];

      if (zooms[z] == 1.0)
        view.begin = begin, view.end = end;
      for (guint i = 0; i < REPEATS; i++)
        {
          gint64 s = g_get_monotonic_time ();
          ts_timeline_renderer_draw (r, cr, &view);
          cairo_surface_flush (surface);
          ms[i] = (g_get_monotonic_time () - s) / 1e3;
        }
      bench_sort (ms, REPEATS);
      ts_timeline_renderer_get_draw_stats (r, &stats);
      g_snprintf (window, sizeof window, "%.3g ms", (view.end - view.begin) / 1e6);
      printf ("%-12g %12s %10.2f %8.2f %8u %8u %10u %8u %8u\n", zooms[z], window, ms[REPEATS / 2], ms[0],
              stats.n_items, stats.n_folds, stats.n_searches, stats.n_arrows, stats.n_markers);
    }
  printf ("target: under 16 ms median per frame\n");

  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return 0;
}
