/* ui-screenshot.c: saves a PNG of the main window, for eyeballing the UI
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * ui-screenshot [--dark] [--example ID] [--run|--running] [--width W --height H]
 *               [--view timeline|memory] [--oom] [--page fragmentation|stats|summary] OUT.png
 *
 * Opens a window like the application does, optionally runs the example
 * through the fake CLI (so the output pane has something in it), waits
 * for the frame clock to settle, then renders the window with its own
 * GskRenderer and saves the texture.
 */

#include "config.h"

#include "ts-application.h"
#include "ts-memory-panel.h"
#include "ts-window.h"

static gboolean opt_dark;
static gboolean opt_run;
static gboolean opt_running;
static char *opt_example;
static char *opt_view;
static char *opt_page;
static gboolean opt_oom;
static int opt_width = 1500;
static int opt_height = 920;
static char **opt_rest;
static int status = 1;

static const GOptionEntry entries[] = {
  { "dark", 0, 0, G_OPTION_ARG_NONE, &opt_dark, "Dark style", NULL },
  { "run", 0, 0, G_OPTION_ARG_NONE, &opt_run, "Run the example with the fake CLI first", NULL },
  { "running", 0, 0, G_OPTION_ARG_NONE, &opt_running, "Shoot while a (hanging) fake run is in progress", NULL },
  { "example", 0, 0, G_OPTION_ARG_STRING, &opt_example, "Example to load", "ID" },
  { "width", 0, 0, G_OPTION_ARG_INT, &opt_width, "Window width", "W" },
  { "height", 0, 0, G_OPTION_ARG_INT, &opt_height, "Window height", "H" },
  { "view", 0, 0, G_OPTION_ARG_STRING, &opt_view, "View of the right pane", "timeline|memory" },
  { "oom", 0, 0, G_OPTION_ARG_NONE, &opt_oom, "Memory view: pick the first OOM's instant", NULL },
  { "page", 0, 0, G_OPTION_ARG_STRING, &opt_page, "Memory view: side page", "fragmentation|stats|summary" },
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

static void
activate_cb (GApplication *application)
{
  TsWindow *window = ts_window_new (TS_APPLICATION (application));

  if (opt_dark)
    g_action_group_activate_action (G_ACTION_GROUP (application), "style", g_variant_new_string ("dark"));
  if (opt_example)
    ts_window_load_example (window, opt_example, NULL);
  else
    ts_window_load_example (window, "overlap-copy-compute", NULL);

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

  if (opt_view)
    ts_window_show_view (window, opt_view);
  if (opt_oom)
    ts_memory_panel_show_oom (TS_MEMORY_PANEL (ts_window_get_memory_panel (window)), 0);
  if (opt_page)
    ts_memory_panel_show_page (TS_MEMORY_PANEL (ts_window_get_memory_panel (window)), opt_page);

  wait_ms (800);
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
