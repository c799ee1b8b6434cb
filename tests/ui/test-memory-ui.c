/* test-memory-ui.c: the memory views of the window
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A small allocator scenario recorded by a real TsAllocator on a 48 MiB
 * device: three 2 MiB-ish tensors share a 20 MiB segment, the middle one
 * is freed, then a 30 MiB request fails (the only segment holds live
 * blocks, and 20 + 30 > 48). The views get its document; the tests drive
 * the slider, hover and click the map, read the stats table and the
 * summary, and check that a click on a block moves the editor.
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ts-allocator.h"
#include "ts-application.h"
#include "ts-device-memory.h"
#include "ts-memory-panel.h"
#include "ts-memory-stat-item.h"
#include "ts-test-trace.h"
#include "ts-trace-document.h"
#include "ts-ui-test-util.h"
#include "ts-window.h"

#define MiB (G_GUINT64_CONSTANT (1) << 20)
#define REQ_A (2 * MiB - 100)      /* rounded up to 2 MiB: 100 bytes of waste */
#define REQ_B (2 * MiB)
#define REQ_C (2 * MiB)

static TsApplication *app;

typedef struct
{
  TsTraceDocument *document;
  guint64          a, b, c;    /* addresses */
} Scenario;

/* Actions: 1 segment_alloc + alloc A (t = 1 ms), alloc B (2 ms), alloc C
 * (3 ms), free_requested + free_completed B (4 ms), then the failed
 * 30 MiB request (5 ms). */
static void
record_scenario (Scenario *sc)
{
  TsTestMemory fake = { 0 };
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(TsAllocator) a = NULL;
  g_autoptr(GError) error = NULL;
  TsSourceLoc loc = { 0 };
  guint64 big = 0;

  fake.mem = ts_device_memory_new ();
  g_assert_cmpuint (ts_device_memory_add_device (fake.mem, 48 * MiB, 0, NULL), ==, 0);
  a = ts_allocator_new (1, NULL, &ts_test_memory_backend, &fake);
  ts_allocator_set_recorder (a, rec);
  loc.file = ts_recorder_intern (rec, "fragmentation.py");
  loc.function = ts_recorder_intern (rec, "<module>");

  fake.now = 1000000;
  loc.line = 17;
  g_assert_true (ts_allocator_malloc (a, 0, REQ_A, 0, &loc, &sc->a, NULL));
  fake.now = 2000000;
  loc.line = 18;
  g_assert_true (ts_allocator_malloc (a, 0, REQ_B, 0, &loc, &sc->b, NULL));
  fake.now = 3000000;
  loc.line = 19;
  g_assert_true (ts_allocator_malloc (a, 0, REQ_C, 0, &loc, &sc->c, NULL));
  fake.now = 4000000;
  g_assert_true (ts_allocator_free (a, sc->b, NULL, NULL));
  fake.now = 5000000;
  loc.line = 25;
  g_assert_false (ts_allocator_malloc (a, 0, 30 * MiB, 0, &loc, &big, &error));
  g_assert_nonnull (error);

  sc->document = ts_trace_document_new (rec);
  /* The allocator frees its segments into the device memory. */
  g_clear_object (&a);
  g_object_unref (fake.mem);
}

/* Shows the widget in a window and waits until it has drawn. */
static GtkWidget *
show_in_window (GtkWidget *widget)
{
  GtkWidget *window = gtk_window_new ();

  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_set_child (GTK_WINDOW (window), widget);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static void
wait_drawn (TsSegmentMap *map)
{
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  while (ts_segment_map_get_last_draw_time (map) == 0 && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (ts_segment_map_get_last_draw_time (map), >, 0);
}

/* A point on the block at addr, found through the hit test of the last
 * frame (the map decides where blocks are drawn). */
static gboolean
find_block (TsSegmentMap *map,
            guint64       addr,
            double       *px,
            double       *py)
{
  TsSegmentMapRenderer *r = ts_segment_map_get_renderer (map);
  int w = gtk_widget_get_width (GTK_WIDGET (map)), h = gtk_widget_get_height (GTK_WIDGET (map));

  for (double y = 0; y < h; y += 2)
    for (double x = 0; x < w; x += 1)
      {
        TsSegmentMapHit hit;

        if (ts_segment_map_renderer_hit_test (r, x, y, &hit) && hit.kind == TS_SEGMENT_MAP_HIT_BLOCK &&
            hit.address == addr)
          {
            *px = x;
            *py = y;
            return TRUE;
          }
      }
  return FALSE;
}

static const TsMemoryBlock *
block_at (const TsMemoryState *state,
          guint64              addr)
{
  for (guint k = 0; k < state->blocks->len; k++)
    if (g_array_index (state->blocks, TsMemoryBlock, k).address == addr)
      return &g_array_index (state->blocks, TsMemoryBlock, k);
  return NULL;
}

static void
count_notify (guint *n)
{
  (*n)++;
}

/* The events axis: the same actions one step apart, so the free of B and
 * the OOM, 1 ms apart here but often at one virtual instant, each get
 * their own stretch; the instant is kept, the timeline's time is not
 * touched. */
static void
test_events_axis (void)
{
  Scenario sc = { 0 };
  TsMemoryPanel *panel = TS_MEMORY_PANEL (ts_memory_panel_new ());
  TsMemoryView *view = ts_memory_panel_get_memory_view (panel);
  TsMemoryReplay *replay;
  GtkWidget *window;
  gsize n, instant;
  TsTime begin = 0, end = 0;
  const TsMemoryOom *oom;
  guint notified = 0;

  record_scenario (&sc);
  window = show_in_window (GTK_WIDGET (panel));
  ts_memory_panel_set_document (panel, sc.document);
  wait_drawn (ts_memory_panel_get_segment_map (panel));
  g_assert_false (ts_memory_panel_get_by_events (panel));   /* a run, not an imported snapshot */
  instant = ts_memory_panel_get_instant (panel);
  g_object_get (view, "visible-begin", &begin, "visible-end", &end, NULL);
  g_assert_cmpint (end, >, 1000000);                         /* times, in ns */

  ts_memory_panel_set_by_events (panel, TRUE);
  g_assert_true (ts_memory_panel_get_by_events (panel));
  replay = ts_memory_panel_get_replay (panel);
  g_assert_true (ts_memory_replay_get_by_events (replay));
  n = ts_memory_replay_get_n_actions (replay);
  g_assert_cmpuint (ts_memory_panel_get_instant (panel), ==, instant);
  for (gsize i = 0; i < n; i++)
    g_assert_cmpint (ts_memory_replay_get_action_time (replay, i), ==, (TsTime) i);
  oom = ts_memory_replay_get_oom (replay, 0);
  g_assert_cmpint (oom->time, ==, (TsTime) oom->action);
  /* The view spans the actions, each a wide step; zooming it does not
   * tell the timeline (bound to these properties) anything. */
  g_assert_cmpfloat (ts_memory_view_time_to_x (view, (TsTime) n), >,
                     ts_memory_view_time_to_x (view, (TsTime) n - 1) + 10);
  g_signal_connect_swapped (view, "notify::visible-begin", G_CALLBACK (count_notify), &notified);
  g_signal_connect_swapped (view, "notify::visible-end", G_CALLBACK (count_notify), &notified);
  ts_memory_view_set_visible_range (view, 1, 3);
  g_assert_cmpuint (notified, ==, 0);

  ts_memory_panel_set_by_events (panel, FALSE);
  g_assert_false (ts_memory_replay_get_by_events (ts_memory_panel_get_replay (panel)));
  g_assert_cmpuint (notified, >, 0);       /* back on times, the range is shared again */
  g_assert_cmpuint (ts_memory_panel_get_instant (panel), ==, instant);

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (sc.document);
}

static void
test_slider (void)
{
  Scenario sc = { 0 };
  TsMemoryPanel *panel = TS_MEMORY_PANEL (ts_memory_panel_new ());
  GtkWidget *window;
  TsSegmentMap *map = ts_memory_panel_get_segment_map (panel);
  GtkRange *scale = ts_memory_panel_get_scale (panel);
  const TsMemoryState *state;
  gsize n, after_a;

  record_scenario (&sc);
  window = show_in_window (GTK_WIDGET (panel));
  ts_memory_panel_set_document (panel, sc.document);
  n = ts_memory_replay_get_n_actions (ts_memory_panel_get_replay (panel));
  g_assert_cmpuint (n, >=, 7);

  /* A new document opens just after its first OOM, here the last action
   * (without one, at its peak: /TsMemoryPanel/opens-at-peak). */
  g_assert_cmpuint (ts_memory_panel_get_instant (panel), ==,
                    ts_memory_replay_get_oom (ts_memory_panel_get_replay (panel), 0)->action + 1);
  g_assert_cmpuint (ts_memory_panel_get_instant (panel), ==, n);
  g_assert_cmpfloat (gtk_range_get_value (scale), ==, (double) n);
  g_assert_cmpfloat (gtk_adjustment_get_upper (gtk_range_get_adjustment (scale)), ==, (double) n);

  /* Before anything: no segment. */
  gtk_range_set_value (scale, 0);
  g_assert_cmpuint (ts_segment_map_get_instant (map), ==, 0);
  g_assert_cmpuint (ts_segment_map_get_state (map)->segments->len, ==, 0);

  /* After the actions of 1 ms (segment_alloc and alloc A): A and the
   * free rest of the segment. */
  after_a = ts_memory_replay_index_at_time (ts_memory_panel_get_replay (panel), 1000000);
  g_assert_cmpuint (after_a, >=, 2);
  gtk_range_set_value (scale, (double) after_a);
  g_assert_cmpuint (ts_memory_panel_get_instant (panel), ==, after_a);
  g_assert_cmpuint (ts_memory_view_get_instant (ts_memory_panel_get_memory_view (panel)), ==, after_a);
  state = ts_segment_map_get_state (map);
  g_assert_cmpuint (state->segments->len, ==, 1);
  g_assert_cmpuint (g_array_index (state->segments, TsMemorySegment, 0).total_size, ==, 20 * MiB);
  g_assert_cmpuint (state->blocks->len, ==, 2);
  g_assert_cmpint (block_at (state, sc.a)->state, ==, TS_BLOCK_STATE_ACTIVE_ALLOCATED);
  g_assert_cmpuint (block_at (state, sc.a)->requested_size, ==, REQ_A);
  /* B will start where the free rest starts. */
  g_assert_cmpint (block_at (state, sc.b)->state, ==, TS_BLOCK_STATE_INACTIVE);
  g_assert_cmpuint (block_at (state, sc.b)->size, ==, 18 * MiB);

  /* One action earlier, nothing is allocated yet. */
  gtk_range_set_value (scale, (double) after_a - 1);
  g_assert_cmpuint (ts_segment_map_get_state (map)->blocks->len, ==, 1);
  g_assert_cmpint (g_array_index (ts_segment_map_get_state (map)->blocks, TsMemoryBlock, 0).state, ==,
                   TS_BLOCK_STATE_INACTIVE);

  /* At the time of C's allocation (3 ms): A, B, C and the rest, two
   * actions (the allocs of B and C) after A. */
  ts_memory_panel_set_instant_time (panel, 3000000);
  g_assert_cmpfloat (gtk_range_get_value (scale), ==, (double) after_a + 2);
  state = ts_segment_map_get_state (map);
  g_assert_cmpuint (state->blocks->len, ==, 4);
  g_assert_cmpint (block_at (state, sc.b)->state, ==, TS_BLOCK_STATE_ACTIVE_ALLOCATED);

  /* The end: B's block is a free hole between A and C. */
  gtk_range_set_value (scale, (double) n);
  state = ts_segment_map_get_state (map);
  g_assert_cmpuint (state->blocks->len, ==, 4);
  g_assert_cmpint (block_at (state, sc.b)->state, ==, TS_BLOCK_STATE_INACTIVE);
  g_assert_cmpuint (block_at (state, sc.b)->size, ==, 2 * MiB);

  /* The OOM: just after the failed request, num_ooms counts it. */
  g_assert_true (ts_memory_panel_show_oom (panel, 0));
  g_assert_false (ts_memory_panel_show_oom (panel, 1));
  g_assert_cmpuint (ts_memory_panel_get_instant (panel), ==,
                    ts_memory_replay_get_oom (ts_memory_panel_get_replay (panel), 0)->action + 1);
  g_assert_cmpint (ts_segment_map_get_state (map)->stats[0].num_ooms, ==, 1);

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (sc.document);
  ts_ui_test_iterate ();
}

static void
test_hover (void)
{
  Scenario sc = { 0 };
  TsMemoryPanel *panel = TS_MEMORY_PANEL (ts_memory_panel_new ());
  TsSegmentMap *map = ts_memory_panel_get_segment_map (panel);
  GtkWidget *window;
  double x, y;
  g_autofree char *text = NULL;
  g_autofree char *free_text = NULL;
  g_autofree char *expected = NULL;

  record_scenario (&sc);
  window = show_in_window (GTK_WIDGET (panel));
  ts_memory_panel_set_document (panel, sc.document);
  wait_drawn (map);

  g_assert_true (find_block (map, sc.a, &x, &y));
  text = ts_segment_map_describe_at (map, x, y);
  expected = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x: 2.0 MiB block, 2097052 bytes requested (100 bytes of rounding)\n"
                              "allocated at fragmentation.py:17 in <module>, stream 0\n"
                              "in segment 0x%" G_GINT64_MODIFIER "x (20.0 MiB, large pool)", sc.a, sc.a);
  g_assert_cmpstr (text, ==, expected);

  /* B was freed: a hole. */
  g_assert_true (find_block (map, sc.b, &x, &y));
  free_text = ts_segment_map_describe_at (map, x, y);
  g_assert_true (g_str_has_prefix (free_text, "0x"));
  g_assert_nonnull (strstr (free_text, ": 2.0 MiB free (inactive)"));

  /* Nothing in the top-left corner (the title). */
  g_assert_null (ts_segment_map_describe_at (map, 1, 1));

  /* A band of the memory chart names its allocation, not the totals. */
  {
    TsMemoryView *view = ts_memory_panel_get_memory_view (panel);
    double bx = ts_memory_view_time_to_x (view, 3500000);
    gboolean found = FALSE;

    for (guint k = 0; k < 20; k++)
      ts_ui_test_iterate ();
    for (int by = gtk_widget_get_height (GTK_WIDGET (view)) - 1; by > 0 && !found; by--)
      {
        g_autofree char *band = ts_memory_view_describe_at (view, bx, by);

        found = band != NULL && g_str_has_prefix (band, "2.0 MiB block (2.0 MiB requested) on cuda:0, stream 0\n") &&
                strstr (band, "allocated at fragmentation.py:17 in <module>") != NULL;
      }
    g_assert_true (found);
  }

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (sc.document);
  ts_ui_test_iterate ();
}

static gint64
stat_value (GListModel *model,
            const char *key)
{
  for (guint k = 0; k < g_list_model_get_n_items (model); k++)
    {
      g_autoptr(TsMemoryStatItem) item = g_list_model_get_item (model, k);

      if (g_str_equal (ts_memory_stat_item_get_key (item), key))
        return ts_memory_stat_item_get_value (item);
    }
  g_assert_not_reached ();
  return -1;
}

static void
test_stats_and_summary (void)
{
  Scenario sc = { 0 };
  TsMemoryPanel *panel = TS_MEMORY_PANEL (ts_memory_panel_new ());
  GListModel *model = ts_memory_panel_get_stats_model (panel);
  GtkColumnView *view = ts_memory_panel_get_stats_view (panel);
  GtkWidget *window;
  const TsMemoryState *state;
  g_autofree char *summary = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *frag = NULL;
  guint n_split = 0;

  record_scenario (&sc);
  window = show_in_window (GTK_WIDGET (panel));
  ts_memory_panel_set_document (panel, sc.document);
  ts_memory_panel_set_instant_time (panel, 3000000);     /* A, B and C live */
  ts_memory_panel_update_now (panel);
  state = ts_segment_map_get_state (ts_memory_panel_get_segment_map (panel));

  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 122);
  g_assert_cmpint (stat_value (model, "allocated_bytes.all.current"), ==, 6 * MiB);
  g_assert_cmpint (stat_value (model, "requested_bytes.all.current"), ==, REQ_A + REQ_B + REQ_C);
  g_assert_cmpint (stat_value (model, "reserved_bytes.large_pool.current"), ==, 20 * MiB);
  g_assert_cmpint (stat_value (model, "segment.all.current"), ==, 1);
  g_assert_cmpint (stat_value (model, "allocation.all.allocated"), ==, 3);
  g_assert_cmpint (stat_value (model, "inactive_split_bytes.all.current"), ==, 14 * MiB);
  g_assert_cmpint (stat_value (model, "num_ooms"), ==, 0);
  g_assert_cmpint (stat_value (model, "max_split_size"), ==, -1);
  for (guint k = 0; k < TS_MEMORY_STATS_N_KEYS; k++)
    g_assert_cmpint (stat_value (model, ts_memory_stats_key (k)), ==, ts_memory_stats_value (&state->stats[0], k));

  /* memory_summary, as the formatter prints it. */
  summary = ts_memory_panel_dup_summary_text (panel);
  expected = ts_memory_stats_format_summary (&state->stats[0], 0, FALSE);
  g_assert_cmpstr (summary, ==, expected);

  /* The fragmentation figures of the instant. */
  frag = ts_memory_panel_dup_fragmentation_text (panel);
  g_assert_nonnull (strstr (frag, "Reserved: 20.0 MiB (20971520 bytes)\n"));
  g_assert_nonnull (strstr (frag, "Internal waste (rounding): 100 B (100 bytes)\n"));
  g_assert_nonnull (strstr (frag, "Non-releasable (inactive_split_bytes): 14.0 MiB (14680064 bytes)\n"));

  /* Filtering by the search entry. */
  for (guint k = 0; k < TS_MEMORY_STATS_N_KEYS; k++)
    if (strstr (ts_memory_stats_key (k), "inactive_split") != NULL)
      n_split++;
  g_assert_cmpuint (n_split, ==, 24);
  gtk_editable_set_text (ts_memory_panel_get_search_entry (panel), "INACTIVE_SPLIT");
  {
    gint64 end = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;

    /* GtkSearchEntry delays search-changed a little. */
    while (g_list_model_get_n_items (model) != n_split && g_get_monotonic_time () < end)
      g_main_context_iteration (NULL, TRUE);
  }
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, n_split);

  /* Sorting by value, largest first: the largest is the peak of
   * inactive_split_bytes, 18 MiB, when A alone split the segment. */
  {
    GtkColumnViewColumn *value_column = g_list_model_get_item (gtk_column_view_get_columns (view), 1);
    g_autoptr(TsMemoryStatItem) first = NULL;
    gint64 max = G_MININT64;

    gtk_column_view_sort_by_column (view, value_column, GTK_SORT_DESCENDING);
    for (guint k = 0; k < g_list_model_get_n_items (model); k++)
      {
        g_autoptr(TsMemoryStatItem) item = g_list_model_get_item (model, k);
        max = MAX (max, ts_memory_stat_item_get_value (item));
      }
    first = g_list_model_get_item (model, 0);
    g_assert_cmpint (ts_memory_stat_item_get_value (first), ==, max);
    g_assert_cmpint (max, ==, 18 * MiB);
    g_object_unref (value_column);
  }

  /* Another instant changes the table: after the free of B. */
  gtk_editable_set_text (ts_memory_panel_get_search_entry (panel), "");
  ts_memory_panel_set_instant_time (panel, 4000000);
  ts_memory_panel_update_now (panel);
  {
    gint64 end = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;

    while (g_list_model_get_n_items (model) != 122 && g_get_monotonic_time () < end)
      g_main_context_iteration (NULL, TRUE);
  }
  g_assert_cmpint (stat_value (model, "allocated_bytes.all.current"), ==, 4 * MiB);
  g_assert_cmpint (stat_value (model, "inactive_split.all.current"), ==, 2);
  /* The rows changed in place and the table is still sorted by value,
   * largest first. */
  for (guint k = 1; k < g_list_model_get_n_items (model); k++)
    {
      g_autoptr(TsMemoryStatItem) prev = g_list_model_get_item (model, k - 1);
      g_autoptr(TsMemoryStatItem) item = g_list_model_get_item (model, k);

      g_assert_cmpint (ts_memory_stat_item_get_value (prev), >=, ts_memory_stat_item_get_value (item));
    }

  /* Without update_now the side pages follow once the instant rests: not
   * right after the move (the map's frame comes first), but soon after. */
  ts_memory_panel_set_instant_time (panel, 3000000);
  g_assert_cmpint (stat_value (model, "allocated_bytes.all.current"), ==, 4 * MiB);
  {
    gint64 end = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;

    while (stat_value (model, "allocated_bytes.all.current") != 6 * MiB && g_get_monotonic_time () < end)
      g_main_context_iteration (NULL, TRUE);
  }
  g_assert_cmpint (stat_value (model, "allocated_bytes.all.current"), ==, 6 * MiB);
  g_assert_cmpint (stat_value (model, "inactive_split_bytes.all.current"), ==, 14 * MiB);

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (sc.document);
  ts_ui_test_iterate ();
}

static void
test_memory_view (void)
{
  Scenario sc = { 0 };
  TsMemoryPanel *panel = TS_MEMORY_PANEL (ts_memory_panel_new ());
  TsMemoryView *view = ts_memory_panel_get_memory_view (panel);
  TsMemoryReplay *replay;
  GtkWidget *window;
  double x;
  g_autofree char *oom_text = NULL;
  g_autofree char *expected = NULL;
  TsMemoryDrawStats stats;
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  record_scenario (&sc);
  window = show_in_window (GTK_WIDGET (panel));
  ts_memory_panel_set_document (panel, sc.document);
  replay = ts_memory_panel_get_replay (panel);
  ts_memory_view_set_visible_range (view, 0, 6000000);
  while (ts_memory_renderer_get_n_panels (ts_memory_view_get_renderer (view)) == 0 && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  ts_ui_test_iterate ();
  ts_memory_renderer_get_draw_stats (ts_memory_view_get_renderer (view), &stats);
  g_assert_cmpuint (stats.n_bands, ==, 3);
  g_assert_cmpuint (stats.n_ooms, ==, 1);

  /* Time axis: x and time agree both ways. */
  x = ts_memory_view_time_to_x (view, 2500000);
  g_assert_cmpint (llabs (ts_memory_view_x_to_time (view, x) - 2500000), <, 20000);

  /* A click at 2.5 ms: the instant just after B's alloc. */
  g_assert_true (ts_memory_view_click (view, x, gtk_widget_get_height (GTK_WIDGET (view)) / 2.0));
  g_assert_cmpuint (ts_memory_panel_get_instant (panel), ==, ts_memory_replay_index_at_time (replay, 2000000));
  g_assert_cmpuint (ts_memory_panel_get_instant (panel), <, ts_memory_replay_index_at_time (replay, 3000000));
  g_assert_cmpuint (ts_segment_map_get_instant (ts_memory_panel_get_segment_map (panel)), ==,
                    ts_memory_panel_get_instant (panel));

  /* The OOM mark at 5 ms: its tooltip is the allocator's message. */
  x = floor (ts_memory_view_time_to_x (view, 5000000)) + 0.5;
  oom_text = ts_memory_view_describe_at (view, x, gtk_widget_get_height (GTK_WIDGET (view)) / 2.0);
  expected = ts_memory_replay_format_oom (replay, 0);
  g_assert_cmpstr (oom_text, ==, expected);
  g_assert_true (g_str_has_prefix (oom_text, "CUDA out of memory. Tried to allocate 30.00 MiB."));

  /* Selection and visible range are properties (bound to the timeline). */
  g_object_set (view, "selection-begin", (gint64) 1000000, "selection-end", (gint64) 2000000, NULL);
  {
    TsTime b, e;
    ts_memory_view_get_selected_range (view, &b, &e);
    g_assert_cmpint (b, ==, 1000000);
    g_assert_cmpint (e, ==, 2000000);
  }

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (sc.document);
  ts_ui_test_iterate ();
}


/* The scrubber spans the chart, in a wide window and in a narrow one (it
 * was a 40 px knob in a crowded toolbar, and GTK warned about it). */
static void
test_slider_width (void)
{
  Scenario sc = { 0 };
  TsMemoryPanel *panel = TS_MEMORY_PANEL (ts_memory_panel_new ());
  GtkWidget *scale = GTK_WIDGET (ts_memory_panel_get_scale (panel));
  GtkWidget *view = GTK_WIDGET (ts_memory_panel_get_memory_view (panel));
  GtkWidget *window;
  const int widths[] = { 1500, 900 };

  record_scenario (&sc);
  window = show_in_window (GTK_WIDGET (panel));
  ts_memory_panel_set_document (panel, sc.document);
  for (guint i = 0; i < G_N_ELEMENTS (widths); i++)
    {
      gtk_window_set_default_size (GTK_WINDOW (window), widths[i], 700);
      wait_drawn (ts_memory_panel_get_segment_map (panel));
      for (guint k = 0; k < 10; k++)
        ts_ui_test_iterate ();
      g_assert_cmpint (gtk_widget_get_width (view), >, 0);
      g_assert_cmpint (gtk_widget_get_width (scale), >=, gtk_widget_get_width (view) * 8 / 10);
    }

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (sc.document);
  ts_ui_test_iterate ();
}

/* Without an OOM the page opens where the most was allocated, not at the
 * end, where everything may be freed. */
static void
test_opens_at_peak (void)
{
  TsTestMemory fake = { 0 };
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(TsAllocator) a = NULL;
  g_autoptr(TsTraceDocument) document = NULL;
  TsMemoryPanel *panel = TS_MEMORY_PANEL (g_object_ref_sink (ts_memory_panel_new ()));
  TsSourceLoc loc = { 0 };
  guint64 x = 0, y = 0;
  TsMemoryReplay *replay;

  fake.mem = ts_device_memory_new ();
  g_assert_cmpuint (ts_device_memory_add_device (fake.mem, 48 * MiB, 0, NULL), ==, 0);
  a = ts_allocator_new (1, NULL, &ts_test_memory_backend, &fake);
  ts_allocator_set_recorder (a, rec);
  fake.now = 1000000;
  g_assert_true (ts_allocator_malloc (a, 0, 4 * MiB, 0, &loc, &x, NULL));
  fake.now = 2000000;
  g_assert_true (ts_allocator_malloc (a, 0, 4 * MiB, 0, &loc, &y, NULL));
  fake.now = 3000000;
  g_assert_true (ts_allocator_free (a, y, NULL, NULL));
  fake.now = 4000000;
  g_assert_true (ts_allocator_free (a, x, NULL, NULL));
  document = ts_trace_document_new (rec);

  ts_memory_panel_set_document (panel, document);
  replay = ts_memory_panel_get_replay (panel);
  g_assert_cmpuint (ts_memory_replay_get_n_ooms (replay), ==, 0);
  g_assert_cmpuint (ts_memory_panel_get_instant (panel), ==, ts_memory_replay_index_at_time (replay, 2000000));
  g_assert_cmpuint (ts_memory_panel_get_instant (panel), <, ts_memory_replay_get_n_actions (replay));

  /* Moved by the user, the instant stays when the document is rebuilt. */
  ts_memory_panel_set_instant (panel, 1);
  g_clear_object (&document);
  document = ts_trace_document_new (rec);
  ts_memory_panel_set_document (panel, document);
  g_assert_cmpuint (ts_memory_panel_get_instant (panel), ==, 1);

  g_clear_object (&a);
  g_object_unref (fake.mem);
  g_object_unref (panel);
}

/* In the window: a click on a block puts the editor on its line and
 * selects the allocation's lifetime. */
static void
test_click_jumps (void)
{
  Scenario sc = { 0 };
  TsWindow *window = ts_window_new (app);
  TsMemoryPanel *panel;
  TsSegmentMap *map;
  double x, y;
  TsTime b, e;

  record_scenario (&sc);
  gtk_window_set_default_size (GTK_WINDOW (window), 1500, 900);
  g_assert_true (ts_window_load_example (window, "fragmentation", NULL));
  gtk_window_present (GTK_WINDOW (window));
  ts_window_show_view (window, "memory");
  panel = TS_MEMORY_PANEL (ts_window_get_memory_panel (window));
  map = ts_memory_panel_get_segment_map (panel);
  ts_memory_panel_set_document (panel, sc.document);
  ts_memory_panel_set_instant_time (panel, 3000000);
  wait_drawn (map);
  ts_ui_test_iterate ();

  ts_editor_goto_line (ts_window_get_editor (window), 1);
  g_assert_cmpuint (ts_editor_get_cursor_line (ts_window_get_editor (window)), ==, 1);
  g_assert_true (find_block (map, sc.c, &x, &y));
  g_assert_true (ts_segment_map_click (map, x, y));
  g_assert_cmpuint (ts_editor_get_cursor_line (ts_window_get_editor (window)), ==, 19);
  ts_memory_view_get_selected_range (ts_memory_panel_get_memory_view (panel), &b, &e);
  g_assert_cmpint (b, ==, 3000000);
  g_assert_cmpint (e, ==, 5000000);     /* still live: to the end of the trace */

  /* B's block, freed at 4 ms, at an instant where it is live. */
  g_assert_true (find_block (map, sc.b, &x, &y));
  g_assert_true (ts_segment_map_click (map, x, y));
  g_assert_cmpuint (ts_editor_get_cursor_line (ts_window_get_editor (window)), ==, 18);
  ts_memory_view_get_selected_range (ts_memory_panel_get_memory_view (panel), &b, &e);
  g_assert_cmpint (b, ==, 2000000);
  g_assert_cmpint (e, ==, 4000000);

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (sc.document);
  ts_ui_test_iterate ();
}

int
main (int   argc,
      char *argv[])
{
  if (!ts_ui_test_init (&argc, &argv))
    return 0;

  g_test_add_func ("/TsMemoryPanel/slider", test_slider);
  g_test_add_func ("/TsMemoryPanel/slider-width", test_slider_width);
  g_test_add_func ("/TsMemoryPanel/events-axis", test_events_axis);
  g_test_add_func ("/TsMemoryPanel/opens-at-peak", test_opens_at_peak);
  g_test_add_func ("/TsMemoryPanel/hover", test_hover);
  g_test_add_func ("/TsMemoryPanel/stats-and-summary", test_stats_and_summary);
  g_test_add_func ("/TsMemoryView/click-and-oom", test_memory_view);
  g_test_add_func ("/TsWindow/memory-click-jumps", test_click_jumps);

  return ts_ui_test_run_in_app (&app, argv[0]);
}
