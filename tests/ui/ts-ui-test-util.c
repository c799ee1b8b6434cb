/* ts-ui-test-util.c: what the UI test programs share
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ts-ui-test-util.h"

static int test_status;

gboolean
ts_ui_test_init (int    *argc,
                 char ***argv)
{
  g_test_init (argc, argv, NULL);

  if (!g_getenv ("DISPLAY") && !g_getenv ("WAYLAND_DISPLAY"))
    {
      g_print ("1..0 # SKIP no display (run under xvfb-run)\n");
      return FALSE;
    }
  return TRUE;
}

static void
activate_cb (GApplication *application)
{
  test_status = g_test_run ();
  g_application_quit (application);
  /* Skip TsApplication's own activate: it would open a window. */
  g_signal_stop_emission_by_name (application, "activate");
}

int
ts_ui_test_run_in_app (TsApplication **app,
                       const char     *argv0)
{
  char *app_argv[] = { (char *) argv0, NULL };

  *app = ts_application_new ();
  g_application_set_flags (G_APPLICATION (*app), G_APPLICATION_NON_UNIQUE);
  g_signal_connect (*app, "activate", G_CALLBACK (activate_cb), NULL);
  g_application_run (G_APPLICATION (*app), 1, app_argv);
  g_clear_object (app);
  return test_status;
}

void
ts_ui_test_iterate (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static gboolean
deadline_cb (gpointer data)
{
  g_error ("Timed out waiting: %s", (const char *) data);
  return G_SOURCE_REMOVE;
}

guint
ts_ui_test_deadline (guint       seconds,
                     const char *what)
{
  return g_timeout_add_seconds (seconds, deadline_cb, (gpointer) what);
}

void
ts_ui_test_close_window (GtkWindow *window)
{
  gpointer weak = window;

  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_window_destroy (window);
  ts_ui_test_iterate ();
  g_assert_null (weak);
}
