/* ts-ui-test-util.h: what the UI test programs share
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The harness (a display check, the tests run from the application's
 * activate so that windows have an application), draining the main
 * context, a deadline for the loops that wait on the main context, and a
 * window close that checks nothing keeps the window alive.
 */

#pragma once

#include <gtk/gtk.h>

#include "ts-application.h"

G_BEGIN_DECLS

/* g_test_init(); FALSE, after printing a TAP skip plan, without a display. */
gboolean ts_ui_test_init          (int             *argc,
                                   char          ***argv);

/* Creates *app, runs the tests added so far from its activate (skipping
 * TsApplication's own, which would open a window), then frees it. Returns
 * what g_test_run() returned. */
int      ts_ui_test_run_in_app    (TsApplication  **app,
                                   const char      *argv0);

/* Dispatches everything pending, without blocking. */
void     ts_ui_test_iterate       (void);

/* A source that aborts the test program, saying what it waited for, if it
 * is not removed (g_source_remove()) within `seconds`. */
guint    ts_ui_test_deadline      (guint            seconds,
                                   const char      *what);

/* Destroys the window and asserts that it was finalized: no reference
 * cycle keeps it, its runner or its widgets alive. */
void     ts_ui_test_close_window  (GtkWindow       *window);

/* Presses and releases a key on the display's keyboard (XTEST), after
 * giving `window` the keyboard focus, and returns once the window saw the
 * release: the event goes where a real key would. The key is taken without
 * modifiers. FALSE, sending nothing, where that cannot be done (not X11,
 * no XTEST). */
gboolean ts_ui_test_press_key     (GtkWindow       *window,
                                   guint            keyval);
/* The same with a modifier key held (GDK_KEY_Control_L …), 0 for none. */
gboolean ts_ui_test_press_keys    (GtkWindow       *window,
                                   guint            modifier,
                                   guint            keyval);

G_END_DECLS
