/* bench-memory-scrub.c: from a slider change to the redrawn segment map
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The trace of bench-memory-replay (one million allocator actions of a
 * training-like loop) is loaded into the Memory page (TsMemoryPanel), and
 * the instant slider is moved to random positions, as a user scrubbing
 * would. Each measurement runs from gtk_range_set_value() until the map
 * has drawn its next frame in the real frame loop: the panel hands the
 * instant to the map, the frame clock ticks, and the map's snapshot
 * rebuilds the allocator state from the nearest checkpoint and draws it
 * (the time inside the snapshot is printed too).
 * Printed: median and max milliseconds (the target is under 50 ms at the
 * max), the side panels' update (fragmentation, 122 stats rows, summary)
 * on its own, and as the baseline the same map frames without the GTK
 * part (renderer straight into cairo). The scrub rests now and then (a
 * user stops the slider; the side panels catch up then), so whatever the
 * rest queues is paid inside the next measured frame if it lands there.
 *
 * Before the widget part: full-width memory-over-time frames (1000x400,
 * the default detail of 200 bands, and the spin button's maximum of 5000)
 * at zoom levels from the whole trace down to 1/10000 of it, at random
 * positions; the target is every frame under 16 ms. With
 * TS_BENCH_MEMORY_PNG=DIR set, the first frame of each zoom is also
 * written there as zoom-N.png (to compare pictures across changes).
 *
 * Without a display (no DISPLAY), only the renderer figures are printed;
 * `make bench` runs it under xvfb-run when it can.
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <gtk/gtk.h>

#include "bench-memory-workload.h"
#include "bench-util.h"
#include "ts-memory-panel.h"
#include "ts-memory-renderer.h"
#include "ts-segment-map-renderer.h"

#define N_ACTIONS 1000000
#define N_SEEKS   100
#define MAP_W     1000
#define MAP_H     500
#define FRAME_W   1000
#define FRAME_H   400
#define N_WINDOWS 20
#define REST_EVERY 10
#define REST_MS   150

static void
report (const char *what,
        double     *ms,
        guint       n)
{
  bench_sort (ms, n);
  printf ("  %-58s median %7.2f ms, max %7.2f ms\n", what, ms[n / 2], ms[n - 1]);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(TsRecorder) rec = NULL;
  g_autoptr(TsTraceDocument) doc = NULL;
  g_autoptr(TsMemoryReplay) replay = NULL;
  GRand *rand = g_rand_new_with_seed (11);
  gsize at[N_SEEKS];
  double ms[N_SEEKS];
  gsize n;
  gint64 t0;

  t0 = g_get_monotonic_time ();
  rec = bench_memory_workload (N_ACTIONS);
  n = ts_recorder_get_count (rec, TS_RECORD_ALLOC);
  doc = ts_trace_document_new (rec);
  printf ("memory scrub: %" G_GSIZE_FORMAT " allocator actions (recorded and indexed in %.0f ms)\n",
          n, (g_get_monotonic_time () - t0) / 1000.0);
  for (guint k = 0; k < N_SEEKS; k++)
    at[k] = (gsize) g_rand_double_range (rand, 0, (double) n);

  /* Baseline: the renderer alone, into cairo. */
  {
    g_autoptr(TsSegmentMapRenderer) map = NULL;
    cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, MAP_W, MAP_H);
    cairo_t *cr = cairo_create (surface);

    t0 = g_get_monotonic_time ();
    replay = ts_memory_replay_new (rec);
    printf ("  replay built in %.0f ms\n", (g_get_monotonic_time () - t0) / 1000.0);
    map = ts_segment_map_renderer_new (replay);
    for (guint k = 0; k < N_SEEKS; k++)
      {
        t0 = g_get_monotonic_time ();
        ts_segment_map_renderer_set_index (map, at[k]);
        ts_segment_map_renderer_draw (map, cr, 0, 0, MAP_W, MAP_H);
        ms[k] = (g_get_monotonic_time () - t0) / 1000.0;
      }
    report ("renderer only: state + draw, 1000x500 (baseline)", ms, N_SEEKS);
    cairo_destroy (cr);
    cairo_surface_destroy (surface);
  }

  /* Memory over time: full-width frames at several zooms. */
  {
    static const guint zooms[] = { 1, 10, 100, 1000, 10000 };
    static const guint details[] = { 200, 5000 };
    g_autoptr(TsMemoryRenderer) memory = ts_memory_renderer_new (doc);
    cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, FRAME_W, FRAME_H);
    cairo_t *cr = cairo_create (surface);
    const char *png_dir = g_getenv ("TS_BENCH_MEMORY_PNG");
    double frame_ms[N_WINDOWS], all_max = 0;
    TsTime span_begin, span_end;

    ts_memory_renderer_set_replay (memory, replay);
    ts_trace_document_get_time_span (doc, &span_begin, &span_end);
    /* The first frame builds whatever the renderer keeps per replay. */
    t0 = g_get_monotonic_time ();
    {
      TsTimelineView tv = { span_begin, span_end, FRAME_W, FRAME_H, 0 };
      ts_memory_renderer_draw (memory, cr, &tv);
    }
    printf ("  memory over time: first frame (builds the per-replay index) %.1f ms\n",
            (g_get_monotonic_time () - t0) / 1000.0);
    for (guint di = 0; di < G_N_ELEMENTS (details); di++)
      for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
        {
          TsTime width = MAX (1, (span_end - span_begin) / zooms[z]);
          g_autofree char *what = g_strdup_printf ("memory over time %dx%d, 1/%u of the trace, detail %u",
                                                   FRAME_W, FRAME_H, zooms[z], details[di]);

          ts_memory_renderer_set_detail (memory, details[di]);
          for (guint k = 0; k < N_WINDOWS; k++)
            {
              TsTimelineView tv = { span_begin, span_begin + width, FRAME_W, FRAME_H, 0 };

              if (k > 0)
                tv.begin += (TsTime) g_rand_double_range (rand, 0, (double) (span_end - span_begin - width));
              tv.end = tv.begin + width;
              t0 = g_get_monotonic_time ();
              ts_memory_renderer_draw (memory, cr, &tv);
              cairo_surface_flush (surface);
              frame_ms[k] = (g_get_monotonic_time () - t0) / 1000.0;
              if (k == 0 && png_dir != NULL)
                {
                  g_autofree char *name = g_strdup_printf ("zoom-%u-detail-%u.png", zooms[z], details[di]);
                  g_autofree char *path = g_build_filename (png_dir, name, NULL);
                  cairo_surface_write_to_png (surface, path);
                }
            }
          report (what, frame_ms, N_WINDOWS);
          all_max = MAX (all_max, frame_ms[N_WINDOWS - 1]);
        }
    printf ("  memory over time: slowest frame of all zooms %.2f ms (target < 16 ms)\n", all_max);
    cairo_destroy (cr);
    cairo_surface_destroy (surface);
  }

  if (!gtk_init_check ())
    {
      printf ("  (no display: the widget figures need one, run under xvfb-run)\n");
      g_rand_free (rand);
      return 0;
    }

  {
    GtkWidget *window = gtk_window_new ();
    TsMemoryPanel *panel = TS_MEMORY_PANEL (ts_memory_panel_new ());
    TsSegmentMap *map = ts_memory_panel_get_segment_map (panel);
    GtkRange *scale = ts_memory_panel_get_scale (panel);
    double side[N_SEEKS], in_snapshot[N_SEEKS];

    gtk_window_set_default_size (GTK_WINDOW (window), 1500, 1000);
    gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (panel));
    gtk_window_present (GTK_WINDOW (window));
    t0 = g_get_monotonic_time ();
    ts_memory_panel_set_document (panel, doc);
    printf ("  Memory page given the document (replay built) in %.0f ms\n",
            (g_get_monotonic_time () - t0) / 1000.0);
    while (ts_segment_map_get_last_draw_time (map) == 0)
      g_main_context_iteration (NULL, TRUE);
    printf ("  segment map widget %dx%d\n", gtk_widget_get_width (GTK_WIDGET (map)),
            gtk_widget_get_height (GTK_WIDGET (map)));

    for (guint k = 0; k < N_SEEKS; k++)
      {
        guint frames = ts_segment_map_get_n_draws (map);

        /* Now and then the user stops: everything queued (the side
         * panels, their relayout) runs during the rest. */
        if (k % REST_EVERY == 0)
          {
            gint64 until = g_get_monotonic_time () + REST_MS * 1000;

            while (g_get_monotonic_time () < until)
              g_main_context_iteration (NULL, FALSE);
          }

        /* Through the real frame loop: the value change, the map's
         * invalidation, the next frame clock tick and its snapshot. */
        t0 = g_get_monotonic_time ();
        gtk_range_set_value (scale, (double) at[k]);
        while (ts_segment_map_get_n_draws (map) == frames)
          g_main_context_iteration (NULL, TRUE);
        ms[k] = (g_get_monotonic_time () - t0) / 1000.0;
        in_snapshot[k] = ts_segment_map_get_last_draw_time (map) / 1000.0;
      }
    report ("slider change -> next frame of the map drawn (target < 50 ms)", ms, N_SEEKS);
    report ("  of which in the map's snapshot (state + draw)", in_snapshot, N_SEEKS);

    /* The side panels' update alone, at the same instants. */
    for (guint k = 0; k < N_SEEKS; k++)
      {
        ts_memory_panel_set_instant (panel, at[k]);
        ts_segment_map_get_state (map);   /* the state is the map's, built on demand */
        t0 = g_get_monotonic_time ();
        ts_memory_panel_update_now (panel);
        side[k] = (g_get_monotonic_time () - t0) / 1000.0;
      }
    report ("side panels: fragmentation, 122 stats rows, summary (off the frame)", side, N_SEEKS);
    gtk_window_destroy (GTK_WINDOW (window));
  }

  g_rand_free (rand);
  return 0;
}
