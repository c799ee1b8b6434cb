/* ts-ui-test-util.c: what the UI test programs share
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ts-ui-test-util.h"

#ifdef TS_TEST_HAVE_XTEST
#include <gdk/x11/gdkx.h>
#include <X11/Xlibint.h>
#include <X11/extensions/xtestproto.h>
#endif

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

/* --- real key presses ----------------------------------------------------- */

#ifdef TS_TEST_HAVE_XTEST

/* One XTestFakeInput request, as libXtst's XTestFakeKeyEvent() sends it:
 * the extension's protocol is a header away, its library is not always
 * installed. The server then delivers an ordinary key event, which goes
 * through GTK's focus and shortcut handling like a key on a keyboard. */
static void
xtest_fake_key (Display  *dpy,
                int       major_opcode,
                KeyCode   keycode,
                gboolean  press)
{
  xXTestFakeInputReq *req;

  LockDisplay (dpy);
  GetReq (XTestFakeInput, req);
  req->reqType = major_opcode;
  req->xtReqType = X_XTestFakeInput;
  req->type = press ? KeyPress : KeyRelease;
  req->detail = keycode;
  req->time = CurrentTime;
  req->root = None;
  req->rootX = req->rootY = 0;
  req->deviceid = 0;
  UnlockDisplay (dpy);
  SyncHandle ();
}

static void
key_released_cb (guint *released)
{
  (*released)++;
}

static void
wait_active (GtkWindow *window)
{
  guint deadline = ts_ui_test_deadline (10, "the window to get the keyboard focus");

  while (!gtk_window_is_active (window))
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (deadline);
}

gboolean
ts_ui_test_press_key (GtkWindow *window,
                      guint      keyval)
{
  return ts_ui_test_press_keys (window, 0, keyval);
}

gboolean
ts_ui_test_press_keys (GtkWindow *window,
                       guint      modifier,
                       guint      keyval)
{
  GdkDisplay *display = gtk_widget_get_display (GTK_WIDGET (window));
  GtkEventController *watch;
  Display *dpy;
  Window xid;
  KeyCode keycode, modcode = 0;
  int opcode, first_event, first_error;
  guint released = 0;
  guint deadline;

  if (!GDK_IS_X11_DISPLAY (display))
    return FALSE;
  dpy = gdk_x11_display_get_xdisplay (display);
  if (!XQueryExtension (dpy, "XTEST", &opcode, &first_event, &first_error) ||
      (keycode = XKeysymToKeycode (dpy, gdk_keyval_to_lower (keyval))) == 0 ||
      (modifier != 0 && (modcode = XKeysymToKeycode (dpy, modifier)) == 0))
    return FALSE;

  /* No window manager under Xvfb: give the window the focus ourselves. */
  xid = gdk_x11_surface_get_xid (gtk_native_get_surface (GTK_NATIVE (window)));
  XSetInputFocus (dpy, xid, RevertToParent, CurrentTime);
  wait_active (window);

  /* The window sees the release first (capture phase), whoever handles
   * the press. */
  watch = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (watch, GTK_PHASE_CAPTURE);
  g_signal_connect_swapped (watch, "key-released", G_CALLBACK (key_released_cb), &released);
  gtk_widget_add_controller (GTK_WIDGET (window), watch);

  if (modcode != 0)
    xtest_fake_key (dpy, opcode, modcode, TRUE);
  xtest_fake_key (dpy, opcode, keycode, TRUE);
  xtest_fake_key (dpy, opcode, keycode, FALSE);
  if (modcode != 0)
    xtest_fake_key (dpy, opcode, modcode, FALSE);
  XFlush (dpy);

  deadline = ts_ui_test_deadline (10, "a key press to arrive");
  while (released == 0)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (deadline);
  gtk_widget_remove_controller (GTK_WIDGET (window), watch);
  ts_ui_test_iterate ();
  return TRUE;
}

#else

gboolean
ts_ui_test_press_key (GtkWindow *window,
                      guint      keyval)
{
  return FALSE;
}

gboolean
ts_ui_test_press_keys (GtkWindow *window,
                       guint      modifier,
                       guint      keyval)
{
  return FALSE;
}

#endif
