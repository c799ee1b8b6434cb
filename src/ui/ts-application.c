/* ts-application.c: the application object
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Owns the settings that are not per window (the colour style), the
 * application actions and their accelerators, and opens files given on
 * the command line: scripts run at once, traces are shown.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ts-application.h"
#include "ts-examples.h"
#include "ts-window.h"

struct _TsApplication
{
  AdwApplication  parent_instance;

  GSettings      *settings;
};

G_DEFINE_FINAL_TYPE (TsApplication, ts_application, ADW_TYPE_APPLICATION)

static void
ts_application_style_changed_cb (TsApplication *self,
                                 const char    *key,
                                 GSettings     *settings)
{
  AdwStyleManager *style_manager = adw_style_manager_get_default ();
  g_autofree char *style = g_settings_get_string (settings, "style");
  AdwColorScheme scheme = ADW_COLOR_SCHEME_DEFAULT;

  if (g_str_equal (style, "light"))
    scheme = ADW_COLOR_SCHEME_FORCE_LIGHT;
  else if (g_str_equal (style, "dark"))
    scheme = ADW_COLOR_SCHEME_FORCE_DARK;

  adw_style_manager_set_color_scheme (style_manager, scheme);
}

/* Whether a session bus can be reached without starting one: dconf
 * writes through it (D-Bus autolaunch is not tried, it needs X11 and
 * would leave a daemon behind). */
static gboolean
ts_application_have_session_bus (void)
{
  const char *address = g_getenv ("DBUS_SESSION_BUS_ADDRESS");
  const char *runtime_dir = g_getenv ("XDG_RUNTIME_DIR");
  g_autofree char *socket = NULL;

  if (address != NULL && *address != '\0')
    return TRUE;
  if (runtime_dir == NULL || *runtime_dir == '\0')
    return FALSE;
  socket = g_build_filename (runtime_dir, "bus", NULL);
  return g_file_test (socket, G_FILE_TEST_EXISTS);
}

/**
 * ts_application_ensure_settings_backend:
 *
 * Without a session bus (ssh, containers, WSL) dconf cannot write, and
 * every toggle flips back as soon as it is set. Then settings live in
 * memory for this run, said once on stderr. Call before the first
 * #GSettings; a backend chosen with GSETTINGS_BACKEND is left alone.
 *
 * Returns: whether the in-memory backend was chosen here
 */
gboolean
ts_application_ensure_settings_backend (void)
{
  if (g_getenv ("GSETTINGS_BACKEND") != NULL || ts_application_have_session_bus ())
    return FALSE;

  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_warning ("No D-Bus session bus: settings are kept in memory and forgotten when Tensorscope quits");
  return TRUE;
}

static TsWindow *
ts_application_get_window (TsApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (TS_IS_WINDOW (window))
    return TS_WINDOW (window);

  return ts_window_new (self);
}

static void
ts_application_activate (GApplication *application)
{
  TsApplication *self = TS_APPLICATION (application);
  GtkWindow *active = gtk_application_get_active_window (GTK_APPLICATION (self));
  TsWindow *window = ts_application_get_window (self);

  /* A new window starts on the last example (the default one at first). */
  if (GTK_WINDOW (window) != active)
    {
      g_autofree char *last = g_settings_get_string (self->settings, "last-example");

      if (!ts_window_load_example (window, last, NULL))
        ts_window_load_example (window, TS_DEFAULT_EXAMPLE, NULL);
    }

  gtk_window_present (GTK_WINDOW (window));
}

static void
ts_application_open (GApplication  *application,
                     GFile        **files,
                     int            n_files,
                     const char    *hint)
{
  TsApplication *self = TS_APPLICATION (application);

  /* One window per file; a script runs right away. */
  for (int i = 0; i < n_files; i++)
    {
      TsWindow *window = ts_window_new (self);

      ts_window_open_file (window, files[i], TRUE);
      gtk_window_present (GTK_WINDOW (window));
    }
}

static void
ts_application_about (GSimpleAction *action,
                      GVariant      *param,
                      gpointer       user_data)
{
  TsApplication *self = user_data;
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (self));
  const char *developers[] = { _("The Tensorscope authors"), NULL };
  GtkWidget *about;

  about = g_object_new (ADW_TYPE_ABOUT_WINDOW,
                        "transient-for", parent,
                        "application-name", _("Tensorscope"),
                        "application-icon", TS_APPLICATION_ID,
                        "developer-name", _("The Tensorscope authors"),
                        "version", PACKAGE_VERSION,
                        "comments", _("A profiler and visual debugger for CUDA semantics: "
                                      "streams, events and memory over time, on a simulated multi-GPU."),
                        "website", "https://github.com/tensorscope/tensorscope",
                        "issue-url", "https://github.com/tensorscope/tensorscope/issues",
                        "license-type", GTK_LICENSE_GPL_3_0,
                        "developers", developers,
                        /* Translators: your names, one per line */
                        "translator-credits", _("translator-credits"),
                        "copyright", "© 2026 The Tensorscope authors",
                        NULL);
  gtk_window_present (GTK_WINDOW (about));
}

static void
ts_application_quit (GSimpleAction *action,
                     GVariant      *param,
                     gpointer       user_data)
{
  TsApplication *self = user_data;
  g_autoptr(GList) windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (self)));

  /* Closing each window saves its state and stops its workload. */
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
}

static const GActionEntry app_actions[] = {
  { "about", ts_application_about },
  { "quit", ts_application_quit },
};

static void
ts_application_set_accels (TsApplication *self)
{
  static const struct { const char *action; const char *accels[4]; } accels[] = {
    { "app.quit", { "<Control>q", NULL } },
    { "win.open", { "<Control>o", NULL } },
    { "win.save-trace", { "<Control>s", NULL } },
    { "win.save-script", { "<Control><Shift>s", NULL } },
    { "win.run", { "<Control>Return", "<Control>r", "F5" } },
    { "win.stop", { "<Control>period", "Escape", NULL } },
    { "win.show-gallery", { "F9", NULL } },
    { "win.show-code", { "F8", NULL } },
    { "win.find", { "<Control>f", NULL } },
    { "win.find-next", { "<Control>g", NULL } },
    { "win.find-previous", { "<Control><Shift>g", NULL } },
    { "window.close", { "<Control>w", NULL } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (self), accels[i].action, accels[i].accels);
}

static void
ts_application_startup (GApplication *application)
{
  TsApplication *self = TS_APPLICATION (application);
  g_autoptr(GAction) style = NULL;

  G_APPLICATION_CLASS (ts_application_parent_class)->startup (application);

  gtk_window_set_default_icon_name (TS_APPLICATION_ID);

  self->settings = g_settings_new (TS_APPLICATION_ID);
  g_signal_connect_object (self->settings, "changed::style",
                           G_CALLBACK (ts_application_style_changed_cb), self,
                           G_CONNECT_SWAPPED);
  ts_application_style_changed_cb (self, "style", self->settings);

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions, G_N_ELEMENTS (app_actions), self);
  style = g_settings_create_action (self->settings, "style");
  g_action_map_add_action (G_ACTION_MAP (self), style);

  ts_application_set_accels (self);
}

static void
ts_application_dispose (GObject *object)
{
  TsApplication *self = (TsApplication *)object;

  g_clear_object (&self->settings);

  G_OBJECT_CLASS (ts_application_parent_class)->dispose (object);
}

static void
ts_application_class_init (TsApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = ts_application_dispose;
  app_class->startup = ts_application_startup;
  app_class->activate = ts_application_activate;
  app_class->open = ts_application_open;
}

static void
ts_application_init (TsApplication *self)
{
}

TsApplication *
ts_application_new (void)
{
  return g_object_new (TS_TYPE_APPLICATION,
                       "application-id", TS_APPLICATION_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       /* Explicit, so that style.css and gtk/help-overlay.ui
                        * are found whatever the application id. */
                       "resource-base-path", TS_RESOURCE_PATH,
                       NULL);
}

/**
 * ts_application_get_settings:
 * @self: a #TsApplication
 *
 * Returns: (transfer none) (nullable): the settings, once started up
 */
GSettings *
ts_application_get_settings (TsApplication *self)
{
  g_return_val_if_fail (TS_IS_APPLICATION (self), NULL);

  return self->settings;
}

/**
 * ts_application_check_schema:
 * @error: a location for a #GError
 *
 * g_settings_new() aborts on a missing schema; this says why instead,
 * which matters when running from the build tree.
 *
 * Returns: %TRUE if the settings schema is installed
 */
gboolean
ts_application_check_schema (GError **error)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, TS_APPLICATION_ID, TRUE);

  if (schema == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("The settings schema %s is not installed. When running from the build folder, "
                     "use build-aux/run-uninstalled.sh or set GSETTINGS_SCHEMA_DIR to BUILDDIR/data."),
                   TS_APPLICATION_ID);
      return FALSE;
    }

  return TRUE;
}
