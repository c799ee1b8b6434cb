/* test-timeline.c: the timeline widget, its panels and live runs, under Xvfb
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Most tests use a small hand-made trace whose numbers are known: two
 * streams of one device,
 *
 *   stream 0:  k_a [0, 100)   k_a [200, 300)   k_b [300, 600)
 *   stream 1:  k_b [100, 400)
 *
 * so over [0, 1000): k_a 2 × 100 ns, k_b 2 × (300 ns mean), stream 0 busy
 * 500 ns (50 %), stream 1 300 ns (30 %), both busy [200, 400) = 200 ns.
 */

#include "config.h"

#include <glib/gstdio.h>

#include "ts-application.h"
#include "ts-console.h"
#include "ts-editor.h"
#include "ts-run-controller.h"
#include "ts-test-trace.h"
#include "ts-timeline.h"
#include "ts-trace-describe.h"
#include "ts-trace-view.h"
#include "ts-trace-writer.h"
#include "ts-ui-test-util.h"
#include "ts-window.h"

static TsApplication *app;
/* --- a known trace -------------------------------------------------------- */

static void
add_kernel (TsRecorder *rec,
            TsStreamId  stream,
            const char *name,
            TsTime      start,
            TsTime      end,
            guint64     correlation,
            guint32     error,
            guint32     line)
{
  TsKernelRecord k = { 0 };
  TsApiCallRecord a = { 0 };

  k.start = start;
  k.end = end;
  k.queued = start;
  k.correlation = correlation;
  k.stream = stream;
  k.name = ts_recorder_intern (rec, name);
  k.grid[0] = 4, k.grid[1] = k.grid[2] = 1;
  k.block[0] = 128, k.block[1] = k.block[2] = 1;
  k.bytes = 4096;
  k.error = error;
  TS_RECORDER_APPEND (rec, TS_RECORD_KERNEL, TsKernelRecord, &k);

  /* The launch on the host, 10 ns long, just before. */
  a.start = MAX (0, start - 20);
  a.end = a.start + 10;
  a.correlation = correlation;
  a.name = ts_recorder_intern (rec, "cudaLaunchKernel");
  a.loc.file = ts_recorder_intern (rec, "/tmp/known.py");
  a.loc.line = line;
  a.device = 0;
  a.stream = stream;
  TS_RECORDER_APPEND (rec, TS_RECORD_API_CALL, TsApiCallRecord, &a);
}

static TsRecorder *
known_recorder (void)
{
  TsRecorder *rec = ts_recorder_new ();
  TsDeviceRecord d = { 0, 0, 0, 132, 9, 0, 80ull << 30 };
  TsThreadRecord th = { 0, 0 };

  d.name = ts_recorder_intern (rec, "Test GPU");
  TS_RECORDER_APPEND (rec, TS_RECORD_DEVICE, TsDeviceRecord, &d);
  th.name = ts_recorder_intern (rec, "MainThread");
  TS_RECORDER_APPEND (rec, TS_RECORD_THREAD, TsThreadRecord, &th);
  for (guint s = 0; s < 2; s++)
    {
      TsStreamRecord st = { s, 0, 0, s == 0, s };
      TS_RECORDER_APPEND (rec, TS_RECORD_STREAM, TsStreamRecord, &st);
    }

  add_kernel (rec, 0, "k_a", 0, 100, 1, 0, 10);
  add_kernel (rec, 1, "k_b", 100, 400, 2, 0, 11);
  add_kernel (rec, 0, "k_a", 200, 300, 3, 0, 12);
  add_kernel (rec, 0, "k_b", 300, 600, 4, 0, 13);
  return rec;
}

static TsTraceDocument *
known_document (void)
{
  g_autoptr(TsRecorder) rec = known_recorder ();
  return ts_trace_document_new (rec);
}

/* The document track of a stream. */
static guint
stream_track (TsTraceDocument *doc,
              TsStreamId       stream)
{
  for (guint i = 0; i < ts_trace_document_get_n_tracks (doc); i++)
    {
      const TsTrack *t = ts_trace_document_get_track (doc, i);
      if (t->kind == TS_TRACK_STREAM && t->stream == stream)
        return i;
    }
  g_assert_not_reached ();
}

/* --- windows --------------------------------------------------------------- */

static void
wait_allocated (GtkWidget *widget)
{
  guint timeout = ts_ui_test_deadline (10, "allocation");

  while (gtk_widget_get_width (widget) < 100 || gtk_widget_get_height (widget) < 100)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout);
  ts_ui_test_iterate ();
}

static GtkWindow *
window_with (GtkWidget *child)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());

  gtk_window_set_default_size (window, 1000, 700);
  gtk_window_set_child (window, child);
  gtk_window_present (window);
  wait_allocated (child);
  return window;
}

/* Spaces collapsed, so table rows compare whatever the column widths. */
static char *
squeeze (const char *text)
{
  GString *s = g_string_new (NULL);

  for (const char *c = text; *c; c++)
    if (*c != ' ' || (s->len > 0 && s->str[s->len - 1] != ' ' && s->str[s->len - 1] != '\n'))
      g_string_append_c (s, *c);
  return g_string_free (s, FALSE);
}

/* --- tests ----------------------------------------------------------------- */

static void
test_zoom_pan (void)
{
  g_autoptr(TsTraceDocument) doc = known_document ();
  TsTimeline *timeline = TS_TIMELINE (ts_timeline_new ());
  GtkWindow *window = window_with (GTK_WIDGET (timeline));
  TsTime begin, end, before, after, b2, e2;
  double xs[] = { 400.0, 700.0, 900.0 };

  ts_timeline_set_document (timeline, doc);
  /* The trace spans [0, 600): the window may go 5 % beyond, no more. */
  ts_timeline_set_visible_range (timeline, 0, 1000);
  ts_timeline_get_visible_range (timeline, &begin, &end);
  g_assert_cmpint (begin, ==, -30);
  g_assert_cmpint (end, ==, 630);
  ts_timeline_set_visible_range (timeline, 0, 600);
  ts_timeline_get_visible_range (timeline, &begin, &end);
  g_assert_cmpint (begin, ==, 0);
  g_assert_cmpint (end, ==, 600);

  /* Zooming in and out around several x keeps the time there fixed. */
  for (guint i = 0; i < G_N_ELEMENTS (xs); i++)
    {
      before = ts_timeline_x_to_time (timeline, xs[i]);
      ts_timeline_zoom_at (timeline, xs[i], 0.5);
      after = ts_timeline_x_to_time (timeline, xs[i]);
      g_assert_cmpint (ABS (after - before), <=, 1);
      ts_timeline_get_visible_range (timeline, &b2, &e2);
      g_assert_cmpint (e2 - b2, ==, 300 >> i);
    }
  before = ts_timeline_x_to_time (timeline, 650);
  ts_timeline_zoom_at (timeline, 650, 1.6);
  g_assert_cmpint (ABS (ts_timeline_x_to_time (timeline, 650) - before), <=, 1);
  ts_timeline_get_visible_range (timeline, &b2, &e2);
  g_assert_cmpint (e2 - b2, ==, 120);

  /* Panning by the width of the track area moves by the whole span. */
  {
    TsTimelineView view;
    double w;

    ts_timeline_get_view (timeline, &view);
    w = view.width - ts_timeline_renderer_get_label_width (ts_timeline_get_renderer (timeline));
    ts_timeline_set_visible_range (timeline, 200, 300);
    ts_timeline_pan (timeline, w);
    ts_timeline_get_visible_range (timeline, &b2, &e2);
    g_assert_cmpint (b2, ==, 300);
    g_assert_cmpint (e2, ==, 400);
    ts_timeline_pan (timeline, -w / 2);
    ts_timeline_get_visible_range (timeline, &b2, &e2);
    g_assert_cmpint (b2, ==, 250);
  }

  /* The window never leaves the trace, never gets wider than it (plus a
   * margin), and zoom to fit shows it all. */
  ts_timeline_pan (timeline, -1e6);
  ts_timeline_get_visible_range (timeline, &b2, &e2);
  g_assert_cmpint (b2, >=, -30);
  ts_timeline_zoom_at (timeline, 500, 1000.0);
  ts_timeline_get_visible_range (timeline, &b2, &e2);
  g_assert_cmpint (e2 - b2, <=, 660);
  ts_timeline_zoom_to_fit (timeline);
  ts_timeline_get_visible_range (timeline, &b2, &e2);
  g_assert_cmpint (b2, <=, 0);
  g_assert_cmpint (e2, >=, 600);

  /* Following a live run ends when the user zooms. */
  ts_timeline_set_follow (timeline, TRUE);
  g_assert_true (ts_timeline_get_follow (timeline));

  ts_ui_test_close_window (window);
}

static void
test_range_statistics (void)
{
  g_autoptr(TsTraceDocument) doc = known_document ();
  TsTraceView *view = TS_TRACE_VIEW (ts_trace_view_new ());
  GtkWindow *window = window_with (GTK_WIDGET (view));
  TsTimeline *timeline = ts_trace_view_get_timeline (view);
  g_autofree char *text = NULL;
  g_autofree char *flat = NULL;

  ts_trace_view_set_document (view, doc);
  text = ts_trace_view_dup_stats_text (view);
  g_assert_nonnull (strstr (text, "No range selected"));
  g_free (text);

  ts_timeline_set_selected_range (timeline, 1000, 0);
  text = ts_trace_view_dup_stats_text (view);
  flat = squeeze (text);
  g_test_message ("%s", flat);
  g_assert_nonnull (strstr (flat, "Range 0 ns – 1.000 µs (1.000 µs)\n"));
  g_assert_nonnull (strstr (flat, "\nk_b 2 600 ns 300 ns\n"));
  g_assert_nonnull (strstr (flat, "\nk_a 2 200 ns 100 ns\n"));
  g_assert_nonnull (strstr (flat, "\nDefault stream (cuda:0) 3 500 ns 50.0%\n"));
  g_assert_nonnull (strstr (flat, "\nStream 1 (cuda:0) 1 300 ns 30.0%\n"));
  g_assert_nonnull (strstr (flat, "\ncudaLaunchKernel 4 40 ns 10 ns"));
  g_assert_nonnull (strstr (flat, "cuda:0 stream 0 ↔ 1 200 ns 20.0%"));

  /* A window over [250, 350) only: k_a [200, 300) and k_b [300, 600) on
   * stream 0, k_b [100, 400) on stream 1; busy clipped to the window. */
  ts_timeline_set_selected_range (timeline, 250, 350);
  g_free (text);
  g_free (flat);
  text = ts_trace_view_dup_stats_text (view);
  flat = squeeze (text);
  g_assert_nonnull (strstr (flat, "\nk_b 2 600 ns 300 ns\n"));
  g_assert_nonnull (strstr (flat, "\nk_a 1 100 ns 100 ns\n"));
  g_assert_nonnull (strstr (flat, " 2 100 ns 100.0%\n"));

  ts_timeline_set_selected_range (timeline, 0, 0);
  g_free (text);
  text = ts_trace_view_dup_stats_text (view);
  g_assert_nonnull (strstr (text, "No range selected"));

  ts_ui_test_close_window (window);
}

static void
test_click_selects (void)
{
  g_autoptr(TsTraceDocument) doc = known_document ();
  TsTraceView *view = TS_TRACE_VIEW (ts_trace_view_new ());
  GtkWindow *window = window_with (GTK_WIDGET (view));
  TsTimeline *timeline = ts_trace_view_get_timeline (view);
  TsTimelineRenderer *renderer;
  guint s1 = stream_track (doc, 1);
  guint track, item;
  TsTimelineRow row, hidden;
  g_autofree char *details = NULL;
  double x, y;
  guint n_rows;

  ts_trace_view_set_document (view, doc);
  ts_timeline_set_visible_range (timeline, 0, 1000);
  renderer = ts_timeline_get_renderer (timeline);

  /* The middle of k_b on stream 1, through the renderer's geometry. */
  g_assert_true (ts_timeline_renderer_get_track_row (renderer, s1, &row));
  x = ts_timeline_time_to_x (timeline, 250);
  y = ts_timeline_renderer_get_ruler_height (renderer) + row.y + row.height / 2;
  g_assert_true (ts_timeline_click (timeline, x, y));
  g_assert_true (ts_timeline_get_selected_item (timeline, &track, &item));
  g_assert_cmpuint (track, ==, s1);
  g_assert_cmpuint (item, ==, 0);

  details = ts_trace_view_dup_details_text (view);
  g_test_message ("%s", details);
  g_assert_true (g_str_has_prefix (details, "k_b\n"));
  g_assert_nonnull (strstr (details, "Kind  Kernel\n"));
  g_assert_nonnull (strstr (details, "Duration  300 ns, 100 ns → 400 ns\n"));
  g_assert_nonnull (strstr (details, "Grid × block  (4, 1, 1) × (128, 1, 1)\n"));
  g_assert_nonnull (strstr (details, "Launched by  cudaLaunchKernel on MainThread\n"));
  g_assert_nonnull (strstr (details, "Source  known.py:11"));
  g_assert_cmpuint (ts_trace_view_get_source_line (view), ==, 11);

  /* Empty track space clears the selection. */
  x = ts_timeline_time_to_x (timeline, 700);
  g_assert_false (ts_timeline_click (timeline, x, y));
  g_assert_false (ts_timeline_get_selected_item (timeline, NULL, NULL));
  g_free (details);
  details = ts_trace_view_dup_details_text (view);
  g_assert_nonnull (strstr (details, "Click an item"));
  g_assert_cmpuint (ts_trace_view_get_source_line (view), ==, 0);

  /* A group header folds its group, and unfolds it. */
  n_rows = ts_timeline_renderer_get_n_rows (renderer);
  for (guint r = 0; r < n_rows; r++)
    {
      const TsTimelineRow *gr = ts_timeline_renderer_get_row (renderer, r);

      if (gr->kind != TS_TIMELINE_ROW_GROUP || gr->group != row.group)
        continue;
      y = ts_timeline_renderer_get_ruler_height (renderer) + gr->y + gr->height / 2;
      g_assert_true (ts_timeline_click (timeline, 300, y));
      g_assert_true (ts_timeline_renderer_get_group_collapsed (renderer, row.group));
      g_assert_false (ts_timeline_renderer_get_track_row (renderer, s1, &hidden));
      g_assert_cmpuint (ts_timeline_renderer_get_n_rows (renderer), <, n_rows);
      g_assert_true (ts_timeline_click (timeline, 300, y));
      g_assert_cmpuint (ts_timeline_renderer_get_n_rows (renderer), ==, n_rows);
      break;
    }

  ts_ui_test_close_window (window);
}

static void
count_notify (guint *count)
{
  (*count)++;
}

/* The widget and its renderer read one view state: what either is asked
 * to show is the state's, folded groups outlive a rebuilt document, and a
 * change of both ends is one notification round and one ::changed. */
static void
test_view_state (void)
{
  g_autoptr(TsTraceDocument) doc = known_document ();
  g_autoptr(TsTraceDocument) rebuilt = known_document ();
  TsTimeline *timeline = TS_TIMELINE (ts_timeline_new ());
  GtkWindow *window = window_with (GTK_WIDGET (timeline));
  TsTimelineViewState *state = ts_timeline_get_view_state (timeline);
  TsTimelineRenderer *renderer;
  guint changed = 0, begins = 0, ends = 0, n_rows, s0 = stream_track (doc, 0);
  guint track, item;
  TsTime b, e;

  ts_timeline_set_document (timeline, doc);
  renderer = ts_timeline_get_renderer (timeline);
  g_assert_true (ts_timeline_renderer_get_view_state (renderer) == state);
  g_signal_connect_swapped (state, "changed", G_CALLBACK (count_notify), &changed);
  g_signal_connect_swapped (timeline, "notify::begin", G_CALLBACK (count_notify), &begins);
  g_signal_connect_swapped (timeline, "notify::end", G_CALLBACK (count_notify), &ends);

  ts_timeline_set_visible_range (timeline, 100, 300);
  ts_timeline_view_state_get_visible_range (state, &b, &e);
  g_assert_cmpint (b, ==, 100);
  g_assert_cmpint (e, ==, 300);
  g_assert_cmpuint (changed, ==, 1);
  g_assert_cmpuint (begins, ==, 1);
  g_assert_cmpuint (ends, ==, 1);

  /* Set on the state, seen by the widget. */
  ts_timeline_view_state_set_selected_range (state, 250, 150);
  ts_timeline_get_selected_range (timeline, &b, &e);
  g_assert_cmpint (b, ==, 150);
  g_assert_cmpint (e, ==, 250);
  ts_timeline_view_state_select_item (state, s0, 1);
  g_assert_true (ts_timeline_get_selected_item (timeline, &track, &item));
  g_assert_cmpuint (track, ==, s0);
  g_assert_cmpuint (item, ==, 1);

  /* Folding by title: the renderer's rows follow, and a new document
   * (a new renderer) keeps the group folded but not the item. */
  n_rows = ts_timeline_renderer_get_n_rows (renderer);
  ts_timeline_view_state_set_group_folded (state, ts_timeline_renderer_get_group_title (renderer, 0), TRUE);
  g_assert_cmpuint (ts_timeline_renderer_get_n_rows (renderer), <, n_rows);
  ts_timeline_set_document (timeline, rebuilt);
  renderer = ts_timeline_get_renderer (timeline);
  g_assert_true (ts_timeline_renderer_get_group_collapsed (renderer, 0));
  g_assert_cmpuint (ts_timeline_renderer_get_n_rows (renderer), <, n_rows);
  g_assert_false (ts_timeline_get_selected_item (timeline, NULL, NULL));
  ts_timeline_get_selected_range (timeline, &b, &e);
  g_assert_cmpint (e - b, ==, 100);
  ts_timeline_view_state_unfold_all (state);
  g_assert_cmpuint (ts_timeline_renderer_get_n_rows (renderer), ==, n_rows);

  ts_ui_test_close_window (window);
}

static void
test_find (void)
{
  g_autoptr(TsTraceDocument) doc = known_document ();
  TsTimeline *timeline = TS_TIMELINE (ts_timeline_new ());
  GtkWindow *window = window_with (GTK_WIDGET (timeline));
  guint s0 = stream_track (doc, 0), s1 = stream_track (doc, 1);
  guint track, item;
  TsTime begin, end;

  ts_timeline_set_document (timeline, doc);
  g_assert_cmpuint (ts_timeline_find (timeline, "nothing like it"), ==, 0);
  g_assert_false (ts_timeline_find_next (timeline, FALSE));

  /* Case-insensitive; in time order: stream 1's k_b at 100, stream 0's at 300. */
  g_assert_cmpuint (ts_timeline_find (timeline, "K_B"), ==, 2);
  g_assert_cmpuint (ts_timeline_get_match_position (timeline), ==, 0);
  g_assert_true (ts_timeline_find_next (timeline, FALSE));
  g_assert_true (ts_timeline_get_selected_item (timeline, &track, &item));
  g_assert_cmpuint (track, ==, s1);
  g_assert_cmpuint (ts_timeline_get_match_position (timeline), ==, 1);
  g_assert_true (ts_timeline_find_next (timeline, FALSE));
  g_assert_true (ts_timeline_get_selected_item (timeline, &track, &item));
  g_assert_cmpuint (track, ==, s0);
  g_assert_cmpuint (item, ==, 2);
  g_assert_true (ts_timeline_find_next (timeline, FALSE));
  g_assert_cmpuint (ts_timeline_get_match_position (timeline), ==, 1);
  g_assert_true (ts_timeline_find_next (timeline, TRUE));
  g_assert_cmpuint (ts_timeline_get_match_position (timeline), ==, 2);

  /* A match off screen is centred. */
  ts_timeline_set_visible_range (timeline, 0, 400);
  g_assert_cmpuint (ts_timeline_find (timeline, "k_b"), ==, 2);
  g_assert_true (ts_timeline_find_next (timeline, TRUE));
  g_assert_cmpuint (ts_timeline_get_match_position (timeline), ==, 2);
  ts_timeline_get_visible_range (timeline, &begin, &end);
  g_assert_cmpint (end - begin, ==, 400);
  g_assert_cmpint (begin, <=, 300);
  g_assert_cmpint (end, >=, 600);
  /* One wider than the window: zoomed out to show it whole. */
  ts_timeline_set_visible_range (timeline, 0, 50);
  g_assert_true (ts_timeline_find_next (timeline, FALSE));
  ts_timeline_get_visible_range (timeline, &begin, &end);
  g_assert_cmpint (begin, <=, 100);
  g_assert_cmpint (end, >=, 400);

  /* API calls match too; "k_" matches all four kernels. */
  g_assert_cmpuint (ts_timeline_find (timeline, "launchkernel"), ==, 4);
  g_assert_cmpuint (ts_timeline_find (timeline, "k_"), ==, 4);

  ts_ui_test_close_window (window);
}

static void
test_keyboard (void)
{
  g_autoptr(TsTraceDocument) doc = known_document ();
  TsTimeline *timeline = TS_TIMELINE (ts_timeline_new ());
  GtkWindow *window = window_with (GTK_WIDGET (timeline));
  guint s0 = stream_track (doc, 0), s1 = stream_track (doc, 1);
  guint track, item;

  ts_timeline_set_document (timeline, doc);
  ts_timeline_select_item (timeline, s0, 0);
  g_assert_true (ts_timeline_move_selection (timeline, TS_TIMELINE_NEXT));
  ts_timeline_get_selected_item (timeline, &track, &item);
  g_assert_cmpuint (track, ==, s0);
  g_assert_cmpuint (item, ==, 1);
  g_assert_true (ts_timeline_move_selection (timeline, TS_TIMELINE_NEXT));
  ts_timeline_get_selected_item (timeline, &track, &item);
  g_assert_cmpuint (item, ==, 2);
  g_assert_false (ts_timeline_move_selection (timeline, TS_TIMELINE_NEXT));
  g_assert_true (ts_timeline_move_selection (timeline, TS_TIMELINE_PREVIOUS));
  ts_timeline_get_selected_item (timeline, &track, &item);
  g_assert_cmpuint (item, ==, 1);

  /* Down from k_a at 200 on stream 0: the nearest item of stream 1. */
  g_assert_true (ts_timeline_move_selection (timeline, TS_TIMELINE_TRACK_BELOW));
  ts_timeline_get_selected_item (timeline, &track, &item);
  g_assert_cmpuint (track, ==, s1);
  g_assert_cmpuint (item, ==, 0);
  g_assert_true (ts_timeline_move_selection (timeline, TS_TIMELINE_TRACK_ABOVE));
  ts_timeline_get_selected_item (timeline, &track, &item);
  g_assert_cmpuint (track, ==, s0);
  g_assert_cmpuint (item, ==, 0);

  ts_ui_test_close_window (window);
}

/* Counts the key presses nothing below the window handled: they bubble
 * up to it. */
static void
unhandled_cb (guint *count)
{
  (*count)++;
}

static guint *
watch_unhandled (GtkWindow *window)
{
  GtkEventController *c = gtk_event_controller_key_new ();
  guint *count = g_new0 (guint, 1);

  g_signal_connect_swapped (c, "key-pressed", G_CALLBACK (unhandled_cb), count);
  gtk_widget_add_controller (GTK_WIDGET (window), c);
  g_object_set_data_full (G_OBJECT (window), "unhandled", count, g_free);
  return count;
}

/* Real key presses (XTEST) with the timeline focused: its bound actions. */
static void
test_keys (void)
{
  g_autoptr(TsTraceDocument) doc = known_document ();
  TsTimeline *timeline = TS_TIMELINE (ts_timeline_new ());
  GtkWindow *window = window_with (GTK_WIDGET (timeline));
  guint *unhandled = watch_unhandled (window);
  guint s0 = stream_track (doc, 0), track, item;
  TsTime b0, e0, b, e;

  ts_timeline_set_document (timeline, doc);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  gtk_widget_grab_focus (GTK_WIDGET (timeline));
  ts_timeline_set_visible_range (timeline, 200, 400);
  ts_timeline_get_visible_range (timeline, &b0, &e0);

  if (!ts_ui_test_press_key (window, GDK_KEY_w))
    {
      g_test_skip ("No XTEST on this display");
      ts_ui_test_close_window (window);
      return;
    }
  ts_timeline_get_visible_range (timeline, &b, &e);
  g_assert_cmpint (e - b, <, e0 - b0);
  ts_ui_test_press_key (window, GDK_KEY_s);
  ts_ui_test_press_key (window, GDK_KEY_s);
  ts_timeline_get_visible_range (timeline, &b, &e);
  g_assert_cmpint (e - b, >, e0 - b0);

  ts_timeline_set_visible_range (timeline, 100, 300);
  ts_ui_test_press_key (window, GDK_KEY_d);
  ts_timeline_get_visible_range (timeline, &b, &e);
  g_assert_cmpint (b, >, 100);
  g_assert_cmpint (e - b, ==, 200);
  ts_ui_test_press_key (window, GDK_KEY_a);
  ts_ui_test_press_key (window, GDK_KEY_a);
  ts_timeline_get_visible_range (timeline, &b, &e);
  g_assert_cmpint (b, <, 100);

  /* F fits the whole document. */
  ts_ui_test_press_key (window, GDK_KEY_f);
  ts_timeline_get_visible_range (timeline, &b, &e);
  ts_trace_document_get_time_span (doc, &b0, &e0);
  g_assert_cmpint (b, <=, b0);
  g_assert_cmpint (e, >=, e0);

  /* Arrows move the selection; Escape clears it, then is not handled. */
  ts_timeline_select_item (timeline, s0, 0);
  ts_ui_test_press_key (window, GDK_KEY_Right);
  ts_timeline_get_selected_item (timeline, &track, &item);
  g_assert_cmpuint (item, ==, 1);
  ts_ui_test_press_key (window, GDK_KEY_Left);
  ts_timeline_get_selected_item (timeline, &track, &item);
  g_assert_cmpuint (item, ==, 0);
  ts_ui_test_press_key (window, GDK_KEY_Down);
  ts_timeline_get_selected_item (timeline, &track, &item);
  g_assert_cmpuint (track, ==, stream_track (doc, 1));
  ts_ui_test_press_key (window, GDK_KEY_Up);
  ts_timeline_get_selected_item (timeline, &track, &item);
  g_assert_cmpuint (track, ==, s0);
  g_assert_cmpuint (*unhandled, ==, 0);
  ts_ui_test_press_key (window, GDK_KEY_Escape);
  g_assert_false (ts_timeline_get_selected_item (timeline, &track, &item));
  g_assert_cmpuint (*unhandled, ==, 0);
  ts_ui_test_press_key (window, GDK_KEY_Escape);
  g_assert_cmpuint (*unhandled, ==, 1);

  ts_ui_test_close_window (window);
}

/* The timeline's keys act only while it has the focus: W typed in the
 * editor is a W in the script, not a zoom. */
static void
test_keys_need_focus (void)
{
  g_autoptr(TsTraceDocument) doc = known_document ();
  TsTimeline *timeline = TS_TIMELINE (ts_timeline_new ());
  TsEditor *editor = TS_EDITOR (ts_editor_new ());
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  TsTimelineViewState *state;
  GtkWindow *window;
  g_autofree char *typed = NULL;
  g_autofree char *kept = NULL;
  TsTime b0, e0, b, e;

  gtk_widget_set_size_request (GTK_WIDGET (editor), 300, -1);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (editor));
  gtk_widget_set_hexpand (GTK_WIDGET (timeline), TRUE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (timeline));
  window = window_with (box);
  ts_timeline_set_document (timeline, doc);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  ts_timeline_set_visible_range (timeline, 100, 500);
  state = ts_timeline_get_view_state (timeline);
  g_assert_true (state == ts_timeline_renderer_get_view_state (ts_timeline_get_renderer (timeline)));
  ts_timeline_view_state_get_visible_range (state, &b0, &e0);

  ts_editor_set_text (editor, "");
  gtk_widget_grab_focus (GTK_WIDGET (editor));
  if (!ts_ui_test_press_key (window, GDK_KEY_w))
    {
      g_test_skip ("No XTEST on this display");
      ts_ui_test_close_window (window);
      return;
    }
  ts_ui_test_press_key (window, GDK_KEY_f);
  typed = ts_editor_dup_text (editor);
  g_assert_cmpstr (typed, ==, "wf");
  ts_timeline_view_state_get_visible_range (state, &b, &e);
  g_assert_cmpint (b, ==, b0);
  g_assert_cmpint (e, ==, e0);

  gtk_widget_grab_focus (GTK_WIDGET (timeline));
  ts_ui_test_press_key (window, GDK_KEY_w);
  ts_timeline_view_state_get_visible_range (state, &b, &e);
  g_assert_cmpint (e - b, <, e0 - b0);
  kept = ts_editor_dup_text (editor);
  g_assert_cmpstr (kept, ==, "wf");

  ts_ui_test_close_window (window);
}

/* The actions behind the keys, without a keyboard: disabled until there
 * is a document. (gtk_widget_activate_action() says only whether the
 * widget has actions, not whether this one ran.) */
static void
test_key_actions (void)
{
  g_autoptr(TsTraceDocument) doc = known_document ();
  TsTimeline *timeline = TS_TIMELINE (ts_timeline_new ());
  GtkWidget *widget = GTK_WIDGET (timeline);
  GtkWindow *window = window_with (widget);
  TsTime b0, e0, b, e;

  ts_timeline_get_visible_range (timeline, &b0, &e0);
  gtk_widget_activate_action (widget, "timeline.zoom-in", NULL);
  ts_timeline_get_visible_range (timeline, &b, &e);
  g_assert_cmpint (e - b, ==, e0 - b0);
  ts_timeline_set_document (timeline, doc);
  gtk_test_widget_wait_for_draw (widget);
  ts_timeline_set_visible_range (timeline, 200, 400);
  ts_timeline_get_visible_range (timeline, &b0, &e0);

  g_assert_true (gtk_widget_activate_action (widget, "timeline.zoom-in", NULL));
  ts_timeline_get_visible_range (timeline, &b, &e);
  g_assert_cmpint (e - b, <, e0 - b0);
  g_assert_true (gtk_widget_activate_action (widget, "timeline.zoom-out", NULL));
  g_assert_true (gtk_widget_activate_action (widget, "timeline.zoom-out", NULL));
  ts_timeline_get_visible_range (timeline, &b, &e);
  g_assert_cmpint (e - b, >, e0 - b0);
  ts_timeline_set_visible_range (timeline, 100, 300);
  g_assert_true (gtk_widget_activate_action (widget, "timeline.pan-right", NULL));
  ts_timeline_get_visible_range (timeline, &b, &e);
  g_assert_cmpint (b, >, 100);
  g_assert_true (gtk_widget_activate_action (widget, "timeline.pan-left", NULL));
  g_assert_true (gtk_widget_activate_action (widget, "timeline.pan-left", NULL));
  ts_timeline_get_visible_range (timeline, &b, &e);
  g_assert_cmpint (b, <, 100);
  g_assert_true (gtk_widget_activate_action (widget, "timeline.zoom-to-fit", NULL));
  ts_timeline_get_visible_range (timeline, &b, &e);
  ts_trace_document_get_time_span (doc, &b0, &e0);
  g_assert_cmpint (b, <=, b0);
  g_assert_cmpint (e, >=, e0);

  ts_timeline_set_selected_range (timeline, 100, 200);
  g_assert_true (gtk_widget_activate_action (widget, "timeline.clear-selection", NULL));
  ts_timeline_get_selected_range (timeline, &b, &e);
  g_assert_cmpint (b, ==, e);

  ts_ui_test_close_window (window);
}

/* A failed kernel whose error surfaced at a later call, and a race between
 * the two streams: red outlines, the arrow, the details. */
static void
test_problems (void)
{
  g_autoptr(TsRecorder) rec = known_recorder ();
  g_autoptr(TsTraceDocument) doc = NULL;
  g_autoptr(TsTimelineRenderer) renderer = NULL;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1000, 400);
  cairo_t *cr = cairo_create (surface);
  TsTimelineView view = { 0, 1000, 1000, 400, 0 };
  TsTimelineDrawStats stats;
  TsErrorRecord e = { 0 };
  TsSanitizerRecord r = { 0 };
  g_autofree char *text = NULL;
  guint s0, s1;

  add_kernel (rec, 1, "index_select", 700, 800, 5, 1, 18);
  add_kernel (rec, 0, "after", 900, 950, 6, 0, 21);
  e.time = 900;
  e.kernel_correlation = 5;
  e.surfaced_correlation = 6;
  e.message = ts_recorder_intern (rec, "CUDA error: device-side assert triggered");
  e.launch_loc.line = 18;
  e.surfaced_loc.line = 21;
  TS_RECORDER_APPEND (rec, TS_RECORD_ERROR, TsErrorRecord, &e);
  r.correlation = 2;
  r.prev_correlation = 1;
  r.stream = 1;
  r.prev_stream = 0;
  r.report = ts_recorder_intern (rec, "CSAN detected a possible data race on tensor A");
  r.loc.line = 11;
  r.prev_loc.line = 10;
  TS_RECORDER_APPEND (rec, TS_RECORD_SANITIZER, TsSanitizerRecord, &r);

  doc = ts_trace_document_new (rec);
  renderer = ts_timeline_renderer_new (doc);
  s0 = stream_track (doc, 0);
  s1 = stream_track (doc, 1);
  g_assert_cmpuint (ts_timeline_renderer_get_n_problems (renderer), ==, 2);
  {
    const TsTimelineProblem *p = ts_timeline_renderer_get_problem (renderer, 0);

    g_assert_cmpint (p->kind, ==, TS_TIMELINE_PROBLEM_ERROR);
    g_assert_true (p->has_from && p->has_to);
    g_assert_cmpuint (p->from_track, ==, s1);
    g_assert_cmpuint (p->from_item, ==, 1);
    p = ts_timeline_renderer_get_problem (renderer, 1);
    g_assert_cmpint (p->kind, ==, TS_TIMELINE_PROBLEM_RACE);
    g_assert_cmpuint (p->from_track, ==, s0);
    g_assert_cmpuint (p->from_item, ==, 0);
    g_assert_cmpuint (p->to_track, ==, s1);
    g_assert_cmpuint (p->to_item, ==, 0);
  }

  ts_timeline_renderer_draw (renderer, cr, &view);
  ts_timeline_renderer_get_draw_stats (renderer, &stats);
  g_assert_cmpuint (stats.n_problems, ==, 4);
  g_assert_cmpuint (stats.n_arrows, >=, 2);

  text = ts_trace_describe_item (renderer, s1, 1);
  g_assert_nonnull (strstr (text, "This kernel failed"));
  g_assert_nonnull (strstr (text, "device-side assert triggered"));
  g_assert_nonnull (strstr (text, "failed (error 1)"));
  g_free (text);
  text = ts_trace_describe_item (renderer, s0, 0);
  g_assert_nonnull (strstr (text, "Data race found by the sanitizer"));
  g_assert_nonnull (strstr (text, "possible data race on tensor A"));

  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static TsTraceView *
window_trace_view (TsWindow *window)
{
  GtkWidget *child = ts_window_get_timeline (window);

  g_assert_true (TS_IS_TRACE_VIEW (child));
  return TS_TRACE_VIEW (child);
}

/* The real CLI runs a gallery example; the live trace fills the timeline. */
static void
test_live_run (void)
{
  TsWindow *window = ts_window_new (app);
  TsWorkloadRunner *runner = ts_window_get_runner (window);
  g_autoptr(GError) error = NULL;
  TsTraceDocument *doc;
  guint n_kernels = 0, n_streams = 0, n_copies = 0;
  guint timeout;
  gboolean saw_live_document = FALSE;
  TsTime begin, end, db, de;

  gtk_window_present (GTK_WINDOW (window));
  g_setenv ("TENSORSCOPE_CLI", TS_CLI_PATH, TRUE);
  /* In a sanitizer build the CLI's own leak report would fail the run;
   * the CLI's tests check it. Our process read its options at start. */
  g_setenv ("ASAN_OPTIONS", "detect_leaks=0", TRUE);
  g_assert_true (ts_window_load_example (window, "overlap-copy-compute", &error));
  g_assert_true (ts_window_run (window, &error));
  g_assert_no_error (error);
  g_assert_true (ts_timeline_get_follow (ts_trace_view_get_timeline (window_trace_view (window))));

  timeout = ts_ui_test_deadline (60, "the workload");
  while (ts_workload_runner_get_state (runner) != TS_WORKLOAD_STATE_FINISHED)
    {
      g_main_context_iteration (NULL, TRUE);
      if (ts_workload_runner_get_running (runner) && ts_trace_view_get_document (window_trace_view (window)))
        saw_live_document = TRUE;
    }
  g_source_remove (timeout);
  g_test_message ("a document was shown during the run: %s", saw_live_document ? "yes" : "no");

  g_assert_cmpint (ts_workload_runner_get_exit_code (runner), ==, 0);
  doc = ts_trace_view_get_document (window_trace_view (window));
  g_assert_nonnull (doc);
  for (guint i = 0; i < ts_trace_document_get_n_tracks (doc); i++)
    {
      const TsTrack *t = ts_trace_document_get_track (doc, i);

      if (t->kind != TS_TRACK_STREAM)
        continue;
      n_streams++;
      for (guint k = 0; k < t->n_items; k++)
        {
          n_kernels += t->kinds[k] == TS_ITEM_KERNEL;
          n_copies += t->kinds[k] == TS_ITEM_MEMCPY;
        }
    }
  /* Four GPUs' default streams plus the copy stream; the example copies
   * four batches and multiplies each. */
  g_assert_cmpuint (n_streams, ==, 5);
  g_assert_cmpuint (n_copies, >=, 4);
  g_assert_cmpuint (n_kernels, >=, 4);

  /* The timeline stopped following and shows the whole run. */
  g_assert_false (ts_timeline_get_follow (ts_trace_view_get_timeline (window_trace_view (window))));
  ts_timeline_get_visible_range (ts_trace_view_get_timeline (window_trace_view (window)), &begin, &end);
  ts_trace_document_get_time_span (doc, &db, &de);
  g_assert_cmpint (begin, <=, db);
  g_assert_cmpint (end, >=, de);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "save-trace"));

  /* Not a timing assert: the figure goes to the log. */
  {
    gint64 end_wait = g_get_monotonic_time () + G_USEC_PER_SEC / 2;

    while (g_get_monotonic_time () < end_wait)
      g_main_context_iteration (NULL, FALSE);
    g_test_message ("last frame of the timeline drew in %" G_GINT64_FORMAT " µs",
                    ts_timeline_get_last_draw_time (ts_trace_view_get_timeline (window_trace_view (window))));
  }

  gtk_window_destroy (GTK_WINDOW (window));
  ts_ui_test_iterate ();
}

static void
wait_document (TsWindow        *window,
               TsTraceDocument *old)
{
  guint timeout = ts_ui_test_deadline (20, "the trace to load");

  while (ts_window_get_timeline (window) == NULL ||
         ts_trace_view_get_document (window_trace_view (window)) == old)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout);
}

/* --- the run controller, without a window ---------------------------------- */

static void
async_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static GAsyncResult *
wait_async (GAsyncResult **result,
            const char    *what)
{
  guint timeout = ts_ui_test_deadline (20, what);

  while (*result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout);
  return *result;
}

static void
count_cb (guint *count)
{
  (*count)++;
}

/* Loading shows the file's document (one notification), saving writes
 * what is shown, and the private folder of a script copy goes with the
 * controller. */
static void
test_run_controller (void)
{
  g_autoptr(TsRecorder) rec = ts_test_trace_new (NULL);
  g_autofree char *dir = g_dir_make_tmp ("ts-test-controller-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "synthetic.tstrace", NULL);
  g_autofree char *copy = g_build_filename (dir, "copy.tstrace", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) copy_file = g_file_new_for_path (copy);
  g_autoptr(GAsyncResult) loaded = NULL;
  g_autoptr(GAsyncResult) saved = NULL;
  g_autoptr(GAsyncResult) reloaded = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *script = NULL;
  g_autofree char *script_dir = NULL;
  TsRunController *run = ts_run_controller_new ();
  TsTraceDocument *doc;
  gboolean cut_short = TRUE;
  guint notified = 0, n_tracks, timeout;

  g_assert_true (ts_test_trace_write (rec, path, &error));
  g_assert_no_error (error);
  g_assert_null (ts_run_controller_get_document (run));
  g_assert_false (ts_run_controller_has_trace (run));
  g_signal_connect_swapped (run, "notify::document", G_CALLBACK (count_cb), &notified);

  ts_run_controller_load_trace_async (run, file, async_done_cb, &loaded);
  g_assert_true (ts_run_controller_load_trace_finish (run, wait_async (&loaded, "the load"), &cut_short, &error));
  g_assert_no_error (error);
  g_assert_false (cut_short);
  g_assert_cmpuint (notified, ==, 1);
  doc = ts_run_controller_get_document (run);
  g_assert_nonnull (doc);
  n_tracks = ts_trace_document_get_n_tracks (doc);
  g_assert_true (ts_run_controller_has_trace (run));
  bytes = ts_run_controller_dup_trace (run);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 0);   /* no run: no live bytes */

  ts_run_controller_save_trace_async (run, copy_file, async_done_cb, &saved);
  g_assert_true (ts_run_controller_save_trace_finish (run, wait_async (&saved, "the save"), &error));
  g_assert_no_error (error);
  ts_run_controller_load_trace_async (run, copy_file, async_done_cb, &reloaded);
  g_assert_true (ts_run_controller_load_trace_finish (run, wait_async (&reloaded, "the reload"), NULL, &error));
  g_assert_cmpuint (notified, ==, 2);
  g_assert_cmpuint (ts_trace_document_get_n_tracks (ts_run_controller_get_document (run)), ==, n_tracks);

  script = ts_run_controller_write_script (run, "workload.py", "print (1)\n", &error);
  g_assert_no_error (error);
  g_assert_true (g_file_test (script, G_FILE_TEST_IS_REGULAR));
  script_dir = g_path_get_dirname (script);
  /* The results hold their source object. */
  g_clear_object (&loaded);
  g_clear_object (&saved);
  g_clear_object (&reloaded);
  g_object_unref (run);
  /* A worker thread lets go of its task (and so of the controller) a
   * moment after the callback: the folder goes then. */
  timeout = ts_ui_test_deadline (20, "the controller's folder to be removed");
  while (g_file_test (script_dir, G_FILE_TEST_EXISTS))
    {
      ts_ui_test_iterate ();
      g_usleep (1000);
    }
  g_source_remove (timeout);

  g_unlink (path);
  g_unlink (copy);
  g_rmdir (dir);
}

static void
store_result_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static void
test_open_trace (void)
{
  g_autoptr(TsRecorder) rec = ts_test_trace_new (NULL);
  g_autoptr(TsTraceDocument) expected = ts_trace_document_new (rec);
  g_autofree char *dir = g_dir_make_tmp ("ts-test-timeline-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "synthetic.tstrace", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.tstrace", NULL);
  g_autofree char *stderr_text = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) bad_file = g_file_new_for_path (bad);
  g_autoptr(GError) error = NULL;
  TsWindow *window = ts_window_new (app);
  TsTraceDocument *doc;
  guint timeout;

  g_assert_true (ts_test_trace_write (rec, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (bad, "TSTRACE but nothing like a trace", -1, NULL));

  gtk_window_present (GTK_WINDOW (window));
  ts_window_open_file (window, file, FALSE);
  wait_document (window, NULL);
  doc = ts_trace_view_get_document (window_trace_view (window));
  g_assert_cmpuint (ts_trace_document_get_n_tracks (doc), ==, ts_trace_document_get_n_tracks (expected));
  for (guint i = 0; i < ts_trace_document_get_n_tracks (doc); i++)
    g_assert_cmpuint (ts_trace_document_get_track (doc, i)->n_items, ==,
                      ts_trace_document_get_track (expected, i)->n_items);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "save-trace"));
  /* An opened trace gets the window: the script pane and gallery fold. */
  {
    GtkWidget *code = GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (window), TS_TYPE_WINDOW, "code_paned"));

    timeout = ts_ui_test_deadline (20, "the script pane to fold");
    while (gtk_widget_get_visible (code))
      g_main_context_iteration (NULL, TRUE);
    g_source_remove (timeout);
  }

  /* Exported as images of the view, and as Chrome JSON by the CLI. */
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "export-view"));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "export-chrome"));
  {
    const char *exts[] = { "png", "svg", "pdf" };
    g_autofree char *json = g_build_filename (dir, "synthetic.json", NULL);
    g_autoptr(GFile) json_file = g_file_new_for_path (json);
    g_autoptr(GAsyncResult) result = NULL;
    g_autofree char *contents = NULL;

    for (guint i = 0; i < G_N_ELEMENTS (exts); i++)
      {
        g_autofree char *name = g_strdup_printf ("view.%s", exts[i]);
        g_autofree char *image = g_build_filename (dir, name, NULL);
        GStatBuf st;

        g_assert_true (ts_window_export_view (window, image, &error));
        g_assert_no_error (error);
        g_assert_cmpint (g_stat (image, &st), ==, 0);
        g_assert_cmpint (st.st_size, >, 1000);
        g_unlink (image);
      }

    g_setenv ("TENSORSCOPE_CLI", TS_CLI_PATH, TRUE);
    ts_window_export_trace_async (window, "chrome", json_file, store_result_cb, &result);
    timeout = ts_ui_test_deadline (30, "the Chrome export");
    while (result == NULL)
      g_main_context_iteration (NULL, TRUE);
    g_source_remove (timeout);
    g_assert_true (ts_window_export_trace_finish (window, result, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (json, &contents, NULL, NULL));
    g_assert_nonnull (strstr (contents, "traceEvents"));
    g_unlink (json);
  }

  /* The memory as a PyTorch snapshot, by the CLI (test-pytorch-cli checks
   * what it writes): this synthetic trace has counters but no allocator
   * actions, so the CLI refuses and its reason is the error shown. */
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "export-snapshot"));
  {
    g_autofree char *pickle = g_build_filename (dir, "synthetic.pickle", NULL);
    g_autoptr(GFile) pickle_file = g_file_new_for_path (pickle);
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(GError) refused = NULL;

    ts_window_export_trace_async (window, "memory-snapshot", pickle_file, store_result_cb, &result);
    timeout = ts_ui_test_deadline (30, "the snapshot export");
    while (result == NULL)
      g_main_context_iteration (NULL, TRUE);
    g_source_remove (timeout);
    g_assert_false (ts_window_export_trace_finish (window, result, &refused));
    g_assert_nonnull (refused);
    g_assert_nonnull (strstr (refused->message, "the trace has no allocator actions"));
  }

  /* A damaged file: a message, and the timeline keeps what it showed. */
  ts_window_open_trace (window, bad_file);
  timeout = ts_ui_test_deadline (20, "the error");
  do
    {
      g_main_context_iteration (NULL, TRUE);
      g_free (stderr_text);
      stderr_text = ts_console_dup_lines (ts_window_get_console (window), TS_CONSOLE_STDERR);
    }
  while (strstr (stderr_text, "Could not open “bad.tstrace”") == NULL);
  g_source_remove (timeout);
  g_assert_true (ts_trace_view_get_document (window_trace_view (window)) == doc);

  gtk_window_destroy (GTK_WINDOW (window));
  ts_ui_test_iterate ();
  g_unlink (path);
  g_unlink (bad);
  g_rmdir (dir);
}

static gboolean
line_marked (TsWindow   *window,
             guint       line,
             const char *category)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (ts_window_get_editor (window)));
  GSList *marks = gtk_source_buffer_get_source_marks_at_line (GTK_SOURCE_BUFFER (buffer), line - 1, category);
  gboolean found = marks != NULL;

  g_slist_free (marks);
  return found;
}

static guint
lines_marked (TsWindow   *window,
              const char *category)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (ts_window_get_editor (window)));
  guint n = 0;

  for (int l = 1; l <= gtk_text_buffer_get_line_count (buffer); l++)
    n += line_marked (window, l, category);
  return n;
}

/* Runs a gallery example with the real CLI and waits for the end. */
static TsWindow *
run_example (const char *example,
             gboolean    sanitize)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.tensorscope.Tensorscope");
  TsWindow *window = ts_window_new (app);
  TsWorkloadRunner *runner = ts_window_get_runner (window);
  g_autoptr(GError) error = NULL;
  guint timeout;

  g_settings_set_boolean (settings, "sanitizer", sanitize);
  gtk_window_present (GTK_WINDOW (window));
  g_setenv ("TENSORSCOPE_CLI", TS_CLI_PATH, TRUE);
  g_setenv ("ASAN_OPTIONS", "detect_leaks=0", TRUE);
  g_assert_true (ts_window_load_example (window, example, &error));
  g_assert_true (ts_window_run (window, &error));
  g_assert_no_error (error);
  timeout = ts_ui_test_deadline (60, example);
  while (ts_workload_runner_get_state (runner) != TS_WORKLOAD_STATE_FINISHED)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout);
  g_settings_reset (settings, "sanitizer");
  return window;
}

/* The first kernel's start on device 1 minus device 0's. */
static TsTime
rank_kernel_gap (TsWindow *window)
{
  TsRecorder *rec = ts_trace_document_get_recorder (ts_trace_view_get_document (window_trace_view (window)));
  TsTime start[2] = { 0, 0 };
  gboolean seen[2] = { FALSE, FALSE };

  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_KERNEL); i++)
    {
      TsKernelRecord k;
      ts_recorder_get (rec, TS_RECORD_KERNEL, i, &k);
      if (k.device < 2 && !seen[k.device])
        {
          start[k.device] = k.start;
          seen[k.device] = TRUE;
        }
    }
  g_assert_true (seen[0] && seen[1]);
  return start[1] - start[0];
}

/* Per-rank traces from hosts whose clocks disagree (make-pytorch-data.py:
 * rank 1's is 2500.25 µs ahead): aligned on their collectives when opened,
 * said in the console, and read again as written when the menu's toggle
 * turns alignment off. */
static void
test_open_ranks_align (void)
{
  g_autoptr(GFile) dir = g_file_new_for_path (TS_PYTORCH_DATA "/ranks-skew");
  GSettings *settings = g_settings_new (TS_APPLICATION_ID);
  TsWindow *window = ts_window_new (app);
  g_autofree char *info = NULL;
  TsTraceDocument *doc;

  g_settings_reset (settings, "align-rank-clocks");
  gtk_window_present (GTK_WINDOW (window));
  ts_window_open_file (window, dir, FALSE);
  wait_document (window, NULL);
  /* moved back by 2502.25 µs: 2 µs before rank 0 (the all-reduces' median lateness) */
  g_assert_cmpint (rank_kernel_gap (window), ==, -2000);
  info = ts_console_dup_lines (ts_window_get_console (window), TS_CONSOLE_INFO);
  g_assert_nonnull (strstr (info, "clock: rank 1 shifted by -2502.250 µs"));

  doc = ts_trace_view_get_document (window_trace_view (window));
  g_action_group_change_action_state (G_ACTION_GROUP (window), "align-rank-clocks", g_variant_new_boolean (FALSE));
  g_assert_false (g_settings_get_boolean (settings, "align-rank-clocks"));
  wait_document (window, doc);
  g_assert_cmpint (rank_kernel_gap (window), ==, 2500250);

  doc = ts_trace_view_get_document (window_trace_view (window));
  g_settings_reset (settings, "align-rank-clocks");
  wait_document (window, doc);
  g_assert_cmpint (rank_kernel_gap (window), ==, -2000);

  g_object_unref (settings);
  gtk_window_destroy (GTK_WINDOW (window));
  ts_ui_test_iterate ();
}

/* Saves the run's trace, opens it in a fresh window showing the same
 * example (not run), and returns that window once the trace is shown. */
static TsWindow *
reopen_trace (TsWindow   *ran,
              const char *example,
              const char *dir)
{
  TsTraceDocument *doc = ts_trace_view_get_document (window_trace_view (ran));
  g_autofree char *path = g_build_filename (dir, "run.tstrace", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  TsWindow *window = ts_window_new (app);

  g_assert_true (ts_test_trace_write (ts_trace_document_get_recorder (doc), path, &error));
  g_assert_no_error (error);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ts_window_load_example (window, example, &error));
  g_assert_cmpuint (lines_marked (window, "ts-error") + lines_marked (window, "ts-race"), ==, 0);
  ts_window_open_trace (window, file);
  wait_document (window, NULL);
  g_unlink (path);
  return window;
}

static void
destroy_window (TsWindow *window)
{
  gtk_window_destroy (GTK_WINDOW (window));
  ts_ui_test_iterate ();
}

/* async_error.py: index_select (line 26) gets an out-of-range index; the
 * error surfaces at .item() (line 29). stream_race.py with the sanitizer:
 * normal_() on the default stream (line 20) races sum() on s (line 23).
 * Both after the run and when the saved trace is opened, and without the
 * sanitizer from the trace's hazards. */
static void
test_problem_marks (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ts-test-marks-XXXXXX", NULL);
  TsWindow *window, *opened;

  window = run_example ("async-error", FALSE);
  g_assert_cmpint (ts_workload_runner_get_exit_code (ts_window_get_runner (window)), !=, 0);
  g_assert_true (line_marked (window, 26, "ts-error"));
  g_assert_true (line_marked (window, 29, "ts-error"));
  g_assert_cmpuint (lines_marked (window, "ts-error"), ==, 2);
  g_assert_cmpuint (lines_marked (window, "ts-race"), ==, 0);
  opened = reopen_trace (window, "async-error", dir);
  g_assert_true (line_marked (opened, 26, "ts-error"));
  g_assert_true (line_marked (opened, 29, "ts-error"));
  g_assert_cmpuint (lines_marked (opened, "ts-error"), ==, 2);
  destroy_window (opened);
  destroy_window (window);

  window = run_example ("stream-race", TRUE);
  g_assert_true (line_marked (window, 20, "ts-race"));
  g_assert_true (line_marked (window, 23, "ts-race"));
  g_assert_cmpuint (lines_marked (window, "ts-race"), ==, 2);
  opened = reopen_trace (window, "stream-race", dir);
  g_assert_true (line_marked (opened, 20, "ts-race"));
  g_assert_true (line_marked (opened, 23, "ts-race"));
  g_assert_cmpuint (lines_marked (opened, "ts-race"), ==, 2);
  destroy_window (opened);
  destroy_window (window);

  /* Without the sanitizer the trace's access records show the same two
   * lines (a hazard); the fixed script shows none. */
  window = run_example ("stream-race", FALSE);
  g_assert_true (line_marked (window, 20, "ts-race"));
  g_assert_true (line_marked (window, 23, "ts-race"));
  g_assert_cmpuint (lines_marked (window, "ts-race"), ==, 2);
  destroy_window (window);
  window = run_example ("stream-race-fixed", FALSE);
  g_assert_cmpuint (lines_marked (window, "ts-race"), ==, 0);
  destroy_window (window);
  g_rmdir (dir);
}

/* The sanitizer's report names streams by PyTorch's handle; the details,
 * marks and output by the timeline's id. */
static void
test_name_streams (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  TsStreamRecord s0 = { 0, 0, 0, 1, 0 };
  TsStreamRecord s4 = { 4, 0, 0, 0, G_GUINT64_CONSTANT (139887084831232) };
  g_autofree char *named = NULL;

  ts_recorder_append (rec, TS_RECORD_STREAM, &s0);
  ts_recorder_append (rec, TS_RECORD_STREAM, &s4);
  named = ts_trace_name_streams (rec, "Access by stream 139887084831232 during kernel:\n"
                                      "Previous access by stream 0 during kernel:");
  g_assert_cmpstr (named, ==, "Access by stream 4 during kernel:\nPrevious access by stream 0 during kernel:");
  g_clear_pointer (&named, g_free);
  named = ts_trace_name_streams (NULL, "stream 7");
  g_assert_cmpstr (named, ==, "stream 7");
}

int
main (int   argc,
      char *argv[])
{
  if (!ts_ui_test_init (&argc, &argv))
    return 0;

  g_test_add_func ("/TsTimeline/zoom-pan", test_zoom_pan);
  g_test_add_func ("/TsTimeline/range-statistics", test_range_statistics);
  g_test_add_func ("/TsTimeline/click-selects", test_click_selects);
  g_test_add_func ("/TsTimeline/view-state", test_view_state);
  g_test_add_func ("/TsTimeline/find", test_find);
  g_test_add_func ("/TsTimeline/keyboard", test_keyboard);
  g_test_add_func ("/TsTimeline/keys", test_keys);
  g_test_add_func ("/TsTimeline/keys-need-focus", test_keys_need_focus);
  g_test_add_func ("/TsTraceView/name-streams", test_name_streams);
  g_test_add_func ("/TsTimeline/key-actions", test_key_actions);
  g_test_add_func ("/TsTimeline/problems", test_problems);
  g_test_add_func ("/TsRunController/load-save", test_run_controller);
  g_test_add_func ("/TsWindow/live-run", test_live_run);
  g_test_add_func ("/TsWindow/open-trace", test_open_trace);
  g_test_add_func ("/TsWindow/open-ranks-align", test_open_ranks_align);
  g_test_add_func ("/TsWindow/problem-marks", test_problem_marks);

  return ts_ui_test_run_in_app (&app, argv[0]);
}
