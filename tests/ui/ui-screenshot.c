/* ui-screenshot.c: saves a PNG of the main window, for eyeballing the UI
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * ui-screenshot [--dark] [--sanitize] [--backend sim|cuda] [--example ID] [--run|--running] [--width W --height H]
 *               [--view timeline|memory] [--oom] [--events] [--page fragmentation|stats|summary]
 *               [--no-gallery] [--select NAME] [--range] [--open FILE [--debug-demo]] OUT.png
 *
 * Opens a window like the application does, optionally runs the example
 * (through the fake CLI unless TENSORSCOPE_CLI names the real one), selects
 * an item by name or a range, waits for the frame clock to settle, then
 * renders the window with its own GskRenderer and saves the texture.
 *
 * --debug-demo copies the trace given by --open with a made-up failure of
 * its first kernel (surfacing at the last API call) and a made-up race
 * between its first two kernels on different streams, for looking at how
 * problems are drawn before the runtime records them.
 */

#include "config.h"

#include <locale.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "ts-application.h"
#include "ts-memory-panel.h"
#include "ts-trace-reader.h"
#include "ts-trace-view.h"
#include "ts-trace-writer.h"
#include "ts-window.h"

static gboolean opt_dark;
static gboolean opt_run;
static gboolean opt_running;
static gboolean opt_sanitize;
static char *opt_example;
static char *opt_backend;
static char *opt_view;
static char *opt_page;
static gboolean opt_events;
static gboolean opt_oom;
static int opt_width = 1500;
static int opt_height = 920;
static char **opt_rest;
static gboolean opt_no_gallery;
static gboolean opt_range;
static gboolean opt_debug_demo;
static char *opt_select;
static char *opt_open;
static int status = 1;

static const GOptionEntry entries[] = {
  { "dark", 0, 0, G_OPTION_ARG_NONE, &opt_dark, "Dark style", NULL },
  { "run", 0, 0, G_OPTION_ARG_NONE, &opt_run, "Run the example with the fake CLI first", NULL },
  { "sanitize", 0, 0, G_OPTION_ARG_NONE, &opt_sanitize, "Turn the race sanitizer on before running", NULL },
  { "running", 0, 0, G_OPTION_ARG_NONE, &opt_running, "Shoot while a (hanging) fake run is in progress", NULL },
  { "backend", 0, 0, G_OPTION_ARG_STRING, &opt_backend, "Where to run: sim, or cuda (this machine's GPU, if usable)", "NAME" },
  { "example", 0, 0, G_OPTION_ARG_STRING, &opt_example, "Example to load", "ID" },
  { "width", 0, 0, G_OPTION_ARG_INT, &opt_width, "Window width", "W" },
  { "height", 0, 0, G_OPTION_ARG_INT, &opt_height, "Window height", "H" },
  { "no-gallery", 0, 0, G_OPTION_ARG_NONE, &opt_no_gallery, "Hide the example gallery", NULL },
  { "select", 0, 0, G_OPTION_ARG_STRING, &opt_select, "Select the first item whose name has NAME", "NAME" },
  { "range", 0, 0, G_OPTION_ARG_NONE, &opt_range, "Select the middle of the trace as a range", NULL },
  { "open", 0, 0, G_OPTION_ARG_FILENAME, &opt_open, "Open a trace file", "FILE" },
  { "debug-demo", 0, 0, G_OPTION_ARG_NONE, &opt_debug_demo, "Add a made-up error and race to --open", NULL },
  { "view", 0, 0, G_OPTION_ARG_STRING, &opt_view, "View of the right pane", "timeline|memory" },
  { "oom", 0, 0, G_OPTION_ARG_NONE, &opt_oom, "Memory view: pick the first OOM's instant", NULL },
  { "page", 0, 0, G_OPTION_ARG_STRING, &opt_page, "Memory view: side page", "fragmentation|stats|summary" },
  { "events", 0, 0, G_OPTION_ARG_NONE, &opt_events, "Memory view: plot against allocator events", NULL },
  { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_rest, NULL, "OUT.png" },
  { NULL }
};

static void
wait_ms (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE), g_usleep (5000);
}

static gboolean
save_png (GtkWidget  *window,
          const char *path)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (window);
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  int width = gtk_widget_get_width (window);
  int height = gtk_widget_get_height (window);
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (window));

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    return FALSE;
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
  return gdk_texture_save_to_png (texture, path);
}

/* Copies the trace with a failed first kernel, its error surfacing at
 * the last API call, and a race between the first kernels of two streams. */
static char *
make_debug_demo (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRecorder) in = ts_trace_load (path, NULL, &error);
  g_autoptr(TsRecorder) out = ts_recorder_new ();
  g_autoptr(TsTraceWriter) writer = NULL;
  TsKernelRecord first = { 0 }, other = { 0 };
  TsApiCallRecord last_call = { 0 }, call;
  TsErrorRecord e = { 0 };
  TsSanitizerRecord r = { 0 };
  gboolean have_first = FALSE, have_other = FALSE;
  char *demo = g_build_filename (g_get_tmp_dir (), "ts-debug-demo.tstrace", NULL);
  guint8 buf[TS_RECORD_MAX_SIZE];

  if (in == NULL)
    g_error ("%s", error->message);
  for (guint id = 1; id <= ts_recorder_get_n_strings (in); id++)
    ts_recorder_intern (out, ts_recorder_lookup (in, id));

  for (gsize i = 0; i < ts_recorder_get_count (in, TS_RECORD_KERNEL); i++)
    {
      TsKernelRecord k;

      ts_recorder_get (in, TS_RECORD_KERNEL, i, &k);
      if (!have_first)
        first = k, have_first = TRUE;
      else if (!have_other && k.stream != first.stream)
        other = k, have_other = TRUE;
    }
  for (gsize i = 0; i < ts_recorder_get_count (in, TS_RECORD_API_CALL); i++)
    {
      ts_recorder_get (in, TS_RECORD_API_CALL, i, &call);
      if (call.start > first.end && call.correlation != 0 && last_call.start < first.end)
        last_call = call;
    }

  for (guint kind = 0; kind < TS_N_RECORD_KINDS; kind++)
    for (gsize i = 0; i < ts_recorder_get_count (in, kind); i++)
      {
        ts_recorder_get (in, kind, i, buf);
        if (kind == TS_RECORD_KERNEL && ((TsKernelRecord *) buf)->correlation == first.correlation)
          ((TsKernelRecord *) buf)->error = 1;
        ts_recorder_append (out, kind, buf);
      }

  e.time = last_call.start;
  e.kernel_correlation = first.correlation;
  e.surfaced_correlation = last_call.correlation;
  e.device = first.device;
  e.stream = first.stream;
  e.code = 1;
  e.message = ts_recorder_intern (out, "CUDA error: device-side assert triggered");
  e.surfaced_loc = last_call.loc;
  TS_RECORDER_APPEND (out, TS_RECORD_ERROR, TsErrorRecord, &e);
  if (have_other)
    {
      r.time = MAX (first.start, other.start);
      r.correlation = MAX (first.correlation, other.correlation);
      r.prev_correlation = MIN (first.correlation, other.correlation);
      r.stream = other.stream;
      r.prev_stream = first.stream;
      r.is_write = 1;
      r.report = ts_recorder_intern (out, "CSAN detected a possible data race on tensor with data pointer 0x7f0000000000\n"
                                          "Access by stream 4 during kernel: aten::mul(...) writing to argument(s) self\n"
                                          "Previous access by stream 0 during kernel: aten::normal_(...) writing to argument(s) self");
      TS_RECORDER_APPEND (out, TS_RECORD_SANITIZER, TsSanitizerRecord, &r);
    }

  if (!(writer = ts_trace_writer_new_for_path (demo, &error)) ||
      !ts_trace_writer_attach (writer, out, &error) ||
      !ts_trace_writer_close (writer, &error))
    g_error ("%s", error->message);
  return demo;
}

static gboolean
wait_document (TsWindow *window)
{
  gint64 end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (g_get_monotonic_time () < end)
    {
      GtkWidget *view = ts_window_get_timeline (window);

      if (view != NULL && ts_trace_view_get_document (TS_TRACE_VIEW (view)) != NULL)
        return TRUE;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (5000);
    }
  return FALSE;
}

static void
select_things (TsWindow *window)
{
  GtkWidget *view = ts_window_get_timeline (window);
  TsTimeline *timeline;

  if (view == NULL || !wait_document (window))
    return;
  timeline = ts_trace_view_get_timeline (TS_TRACE_VIEW (view));
  /* Device work rather than the API call of the same name. */
  if (opt_select != NULL)
    {
      guint n = ts_timeline_find (timeline, opt_select);

      for (guint i = 0; i < n && ts_timeline_find_next (timeline, FALSE); i++)
        {
          guint track;

          ts_timeline_get_selected_item (timeline, &track, NULL);
          if (ts_trace_document_get_track (ts_timeline_get_document (timeline), track)->kind == TS_TRACK_STREAM)
            break;
        }
    }
  if (opt_range)
    {
      TsTime b, e;

      ts_trace_document_get_time_span (ts_timeline_get_document (timeline), &b, &e);
      ts_timeline_set_selected_range (timeline, b + (e - b) * 3 / 10, b + (e - b) * 7 / 10);
    }
}

static void
activate_cb (GApplication *application)
{
  TsWindow *window = ts_window_new (TS_APPLICATION (application));

  if (opt_dark)
    g_action_group_activate_action (G_ACTION_GROUP (application), "style", g_variant_new_string ("dark"));
  if (opt_sanitize)
    {
      g_autoptr(GSettings) settings = g_settings_new ("io.github.tensorscope.Tensorscope");
      g_settings_set_boolean (settings, "sanitizer", TRUE);
    }
  if (opt_backend)
    {
      g_autoptr(GSettings) settings = g_settings_new ("io.github.tensorscope.Tensorscope");
      g_settings_set_string (settings, "backend", opt_backend);
    }
  if (opt_example)
    ts_window_load_example (window, opt_example, NULL);
  else
    ts_window_load_example (window, "overlap-copy-compute", NULL);

  if (opt_no_gallery)
    g_action_group_activate_action (G_ACTION_GROUP (window), "show-gallery", NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), opt_width, opt_height);
  gtk_window_present (GTK_WINDOW (window));
  wait_ms (500);

  if (opt_running)
    {
      g_setenv ("TENSORSCOPE_CLI", TS_TEST_SRCDIR "/fake-tensorscope-cli.sh", FALSE);
      g_setenv ("FAKE_CLI_MODE", "hang", TRUE);
      ts_window_run (window, NULL);
    }
  else if (opt_run)
    {
      g_setenv ("TENSORSCOPE_CLI", TS_TEST_SRCDIR "/fake-tensorscope-cli.sh", FALSE);
      ts_window_run (window, NULL);
      while (ts_workload_runner_get_running (ts_window_get_runner (window)))
        g_main_context_iteration (NULL, TRUE);
    }

  if (opt_open != NULL)
    {
      g_autofree char *path = opt_debug_demo ? make_debug_demo (opt_open) : g_strdup (opt_open);
      g_autoptr(GFile) file = g_file_new_for_path (path);

      ts_window_open_file (window, file, FALSE);
      wait_document (window);
    }
  select_things (window);

  if (opt_view)
    ts_window_show_view (window, opt_view);
  if (opt_oom)
    ts_memory_panel_show_oom (TS_MEMORY_PANEL (ts_window_get_memory_panel (window)), 0);
  if (opt_events)
    ts_memory_panel_set_by_events (TS_MEMORY_PANEL (ts_window_get_memory_panel (window)), TRUE);
  if (opt_page)
    ts_memory_panel_show_page (TS_MEMORY_PANEL (ts_window_get_memory_panel (window)), opt_page);

  wait_ms (800);
  /* The side pages update on a low-priority timeout that a busy frame
   * clock can hold back: bring them up to date for the picture. */
  ts_memory_panel_update_now (TS_MEMORY_PANEL (ts_window_get_memory_panel (window)));
  wait_ms (100);
  status = save_png (GTK_WIDGET (window), opt_rest[0]) ? 0 : 1;
  if (opt_running)
    {
      ts_window_stop (window);
      while (ts_workload_runner_get_running (ts_window_get_runner (window)))
        g_main_context_iteration (NULL, TRUE);
    }
  gtk_window_destroy (GTK_WINDOW (window));
  g_signal_stop_emission_by_name (application, "activate");
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = g_option_context_new ("OUT.png");
  g_autoptr(GError) error = NULL;
  g_autoptr(TsApplication) app = NULL;
  char *app_argv[] = { argv[0], NULL };

  /* As main.c does, so that LANGUAGE=zh_CN shoots the translated UI. */
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, g_getenv ("TENSORSCOPE_LOCALEDIR") ? g_getenv ("TENSORSCOPE_LOCALEDIR") : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || opt_rest == NULL)
    {
      g_printerr ("%s\n", error ? error->message : "usage: ui-screenshot [OPTIONS] OUT.png");
      return 2;
    }

  app = ts_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  g_signal_connect (app, "activate", G_CALLBACK (activate_cb), NULL);
  g_application_run (G_APPLICATION (app), 1, app_argv);
  return status;
}
