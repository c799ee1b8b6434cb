/* ts-window-actions.c: the window's actions, file dialogs and recent files
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ts-trace-import.h"
#include "ts-window-private.h"

#define MAX_RECENT 10

static void
ts_window_action_run (GSimpleAction *action,
                      GVariant      *param,
                      gpointer       user_data)
{
  TsWindow *self = user_data;
  g_autoptr(GError) error = NULL;

  if (!ts_window_run (self, &error))
    _ts_window_toast (self, error->message);
}

static void
ts_window_action_stop (GSimpleAction *action,
                       GVariant      *param,
                       gpointer       user_data)
{
  ts_window_stop (TS_WINDOW (user_data));
}

static void
ts_window_action_load_example (GSimpleAction *action,
                               GVariant      *param,
                               gpointer       user_data)
{
  TsWindow *self = user_data;

  ts_window_pick_example (self, g_variant_get_string (param, NULL));
  if (adw_flap_get_folded (self->flap))
    adw_flap_set_reveal_flap (self->flap, FALSE);
}

static void
ts_window_action_clear_output (GSimpleAction *action,
                               GVariant      *param,
                               gpointer       user_data)
{
  ts_console_clear (TS_WINDOW (user_data)->console);
}

static void
ts_window_action_open_recent (GSimpleAction *action,
                              GVariant      *param,
                              gpointer       user_data)
{
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));

  ts_window_open_file (TS_WINDOW (user_data), file, FALSE);
}

static void
ts_window_add_filter (GtkFileChooser *chooser,
                      const char     *name,
                      gboolean        scripts,
                      gboolean        traces)
{
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, name);
  if (scripts)
    gtk_file_filter_add_pattern (filter, "*.py");
  /* Every kind of trace the trace library opens. */
  for (guint i = 0; traces && ts_trace_import_patterns[i] != NULL; i++)
    gtk_file_filter_add_pattern (filter, ts_trace_import_patterns[i]);
  gtk_file_chooser_add_filter (chooser, filter);
}

static void
ts_window_open_response_cb (GtkNativeDialog *dialog,
                            int              response,
                            TsWindow        *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      ts_window_open_file (self, file, FALSE);
    }

  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
ts_window_action_open (GSimpleAction *action,
                       GVariant      *param,
                       gpointer       user_data)
{
  TsWindow *self = user_data;
  GtkFileChooserNative *dialog;

  dialog = gtk_file_chooser_native_new (_("Open a Workload or a Trace"),
                                        GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN,
                                        _("_Open"), _("_Cancel"));
  ts_window_add_filter (GTK_FILE_CHOOSER (dialog), _("Workloads and traces"), TRUE, TRUE);
  ts_window_add_filter (GTK_FILE_CHOOSER (dialog), _("Workload scripts"), TRUE, FALSE);
  ts_window_add_filter (GTK_FILE_CHOOSER (dialog),
                        _("Traces, PyTorch memory snapshots and profiler traces"), FALSE, TRUE);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect_object (dialog, "response", G_CALLBACK (ts_window_open_response_cb), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
ts_window_save_script_done_cb (GObject      *object,
                               GAsyncResult *result,
                               gpointer      user_data)
{
  g_autoptr(TsWindowFileOp) save = user_data;
  g_autoptr(GError) error = NULL;
  TsWindow *self = save->self;

  g_file_replace_contents_finish (G_FILE (object), result, NULL, &error);
  if (!_ts_window_saved (self, save->file, error))
    return;

  /* The editor now shows that file. */
  g_set_object (&self->script_file, save->file);
  g_free (self->script_name);
  self->script_name = g_file_get_basename (save->file);
  ts_editor_set_modified (self->editor, FALSE);
  adw_window_title_set_subtitle (self->window_title, self->script_name);
}

static void
ts_window_save_response_cb (GtkNativeDialog *dialog,
                            int              response,
                            TsWindow        *self)
{
  gboolean is_script = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (dialog), "ts-is-script"));

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      if (is_script)
        {
          char *text = ts_editor_dup_text (self->editor);
          g_autoptr(GBytes) bytes = g_bytes_new_take (text, strlen (text));

          g_file_replace_contents_bytes_async (file, bytes, NULL, FALSE,
                                               G_FILE_CREATE_REPLACE_DESTINATION,
                                               NULL, ts_window_save_script_done_cb,
                                               _ts_window_file_op_new (self, file));
        }
      else
        /* Traces go through the trace writer (ts-window-trace.c). */
        _ts_window_save_trace (self, file);
    }

  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

/* A modal save dialog with one filter of the NULL-ended `patterns`; its
 * ::response goes to response_cb (dialog, response, window). */
GtkFileChooser *
_ts_window_save_chooser (TsWindow   *self,
                         const char *title,
                         const char *accept,
                         const char *suggested_name,
                         const char *filter_name,
                         const char *patterns[],
                         GCallback   response_cb)
{
  GtkFileChooserNative *dialog;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  dialog = gtk_file_chooser_native_new (title, GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SAVE,
                                        accept, _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), suggested_name);
  gtk_file_filter_set_name (filter, filter_name);
  for (guint i = 0; patterns[i] != NULL; i++)
    gtk_file_filter_add_pattern (filter, patterns[i]);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect_object (dialog, "response", response_cb, self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
  return GTK_FILE_CHOOSER (dialog);
}

/* "overlap_copy_compute.py" → "overlap_copy_compute" + suffix */
char *
_ts_window_suggest_name (TsWindow   *self,
                         const char *suffix)
{
  const char *name = self->script_name ? self->script_name : "workload.py";
  g_autofree char *stem = g_strdup (name);

  if (g_str_has_suffix (stem, ".py"))
    stem[strlen (stem) - 3] = '\0';
  return g_strconcat (stem, suffix, NULL);
}

/* Save Trace and Save Script: the same dialog with the title, file
 * patterns and suggested name of each. */
static void
ts_window_save_dialog (TsWindow *self,
                       gboolean  is_script)
{
  const char *script[] = { "*.py", NULL }, *trace[] = { "*.tstrace", NULL };
  g_autofree char *name = _ts_window_suggest_name (self, is_script ? ".py" : ".tstrace");
  GtkFileChooser *chooser;

  chooser = _ts_window_save_chooser (self, is_script ? _("Save Script") : _("Save Trace"), _("_Save"), name,
                                     is_script ? _("Workload scripts") : _("Traces"),
                                     is_script ? script : trace, G_CALLBACK (ts_window_save_response_cb));
  g_object_set_data (G_OBJECT (chooser), "ts-is-script", GINT_TO_POINTER (is_script));
}

static void
ts_window_action_save_trace (GSimpleAction *action,
                             GVariant      *param,
                             gpointer       user_data)
{
  ts_window_save_dialog (TS_WINDOW (user_data), FALSE);
}

static void
ts_window_action_save_script (GSimpleAction *action,
                              GVariant      *param,
                              gpointer       user_data)
{
  ts_window_save_dialog (TS_WINDOW (user_data), TRUE);
}

/* Find works from anywhere in the window, not only with the timeline
 * focused: the accels are the application's (see ts-application.c). */
static void
ts_window_action_find (GSimpleAction *action,
                       GVariant      *param,
                       gpointer       user_data)
{
  TsWindow *self = user_data;

  if (self->trace_view != NULL)
    ts_trace_view_start_search (self->trace_view, NULL);
}

static void
ts_window_action_find_next (GSimpleAction *action,
                            GVariant      *param,
                            gpointer       user_data)
{
  TsWindow *self = user_data;

  if (self->trace_view != NULL)
    ts_trace_view_find_next (self->trace_view, g_str_equal (g_action_get_name (G_ACTION (action)), "find-previous"));
}

static const GActionEntry actions[] = {
  { "find", ts_window_action_find },
  { "find-next", ts_window_action_find_next },
  { "find-previous", ts_window_action_find_next },
  { "run", ts_window_action_run },
  { "stop", ts_window_action_stop },
  { "open", ts_window_action_open },
  { "open-recent", ts_window_action_open_recent, "s" },
  { "save-trace", ts_window_action_save_trace },
  { "save-script", ts_window_action_save_script },
  { "load-example", ts_window_action_load_example, "s" },
  { "clear-output", ts_window_action_clear_output },
};

static void
ts_window_set_action_enabled (TsWindow   *self,
                              const char *name,
                              gboolean    enabled)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), name);

  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), enabled);
}

void
_ts_window_update_actions (TsWindow *self)
{
  gboolean running = ts_workload_runner_get_running (ts_run_controller_get_runner (self->run));

  g_assert (TS_IS_WINDOW (self));

  ts_window_set_action_enabled (self, "run", !running);
  ts_window_set_action_enabled (self, "stop", running);
  ts_window_set_action_enabled (self, "save-trace", !running && ts_run_controller_has_trace (self->run));
  /* The export actions are added after these (ts-window-export.c). */
  if (g_action_map_lookup_action (G_ACTION_MAP (self), "export-view") != NULL)
    {
      ts_window_set_action_enabled (self, "export-view", self->trace_view != NULL &&
                                    ts_trace_view_get_document (self->trace_view) != NULL);
      ts_window_set_action_enabled (self, "export-chrome", !running && ts_run_controller_has_trace (self->run));
      ts_window_set_action_enabled (self, "export-snapshot", !running && ts_run_controller_has_trace (self->run));
    }
  ts_window_set_action_enabled (self, "find", self->trace_view != NULL);
  ts_window_set_action_enabled (self, "find-next", self->trace_view != NULL);
  ts_window_set_action_enabled (self, "find-previous", self->trace_view != NULL);
}

void
_ts_window_actions_init (TsWindow *self)
{
  g_autoptr(GAction) show_gallery = NULL;
  g_autoptr(GAction) show_code = NULL;
  g_autoptr(GAction) no_data = NULL;
  g_autoptr(GAction) align_clocks = NULL;

  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);
  /* Run Without Tensor Data: --no-data at the next run */
  no_data = g_settings_create_action (self->settings, "no-data");
  g_action_map_add_action (G_ACTION_MAP (self), no_data);
  /* Align Ranks' Clocks: per-rank traces moved onto one clock from their
   * collectives (the file shown is read again when it changes) */
  align_clocks = g_settings_create_action (self->settings, "align-rank-clocks");
  g_action_map_add_action (G_ACTION_MAP (self), align_clocks);
  show_gallery = g_settings_create_action (self->settings, "show-gallery");
  g_action_map_add_action (G_ACTION_MAP (self), show_gallery);
  show_code = G_ACTION (g_property_action_new ("show-code", self->code_paned, "visible"));
  g_action_map_add_action (G_ACTION_MAP (self), show_code);
  g_signal_connect_object (self->recent_manager, "changed",
                           G_CALLBACK (_ts_window_update_recent), self,
                           G_CONNECT_SWAPPED);

  _ts_window_update_actions (self);
}

static gboolean
ts_window_recent_is_ours (GtkRecentInfo *info)
{
  const char *uri = gtk_recent_info_get_uri (info);

  return gtk_recent_info_has_application (info, g_get_application_name ()) &&
         (g_str_has_suffix (uri, ".py") || ts_trace_import_has_trace_name (uri));
}

static int
ts_window_recent_compare (gconstpointer a,
                          gconstpointer b)
{
  GDateTime *ma = gtk_recent_info_get_modified ((GtkRecentInfo *)a);
  GDateTime *mb = gtk_recent_info_get_modified ((GtkRecentInfo *)b);

  return g_date_time_compare (mb, ma);
}

/* Rebuilds the "Open Recent" submenu from GtkRecentManager. */
void
_ts_window_update_recent (TsWindow *self)
{
  GList *items;
  GList *ours = NULL;
  guint n = 0;

  g_assert (TS_IS_WINDOW (self));

  g_menu_remove_all (self->recent_menu);

  items = gtk_recent_manager_get_items (self->recent_manager);
  for (GList *l = items; l != NULL; l = l->next)
    if (ts_window_recent_is_ours (l->data))
      ours = g_list_prepend (ours, l->data);
  ours = g_list_sort (ours, ts_window_recent_compare);

  for (GList *l = ours; l != NULL && n < MAX_RECENT; l = l->next, n++)
    {
      GtkRecentInfo *info = l->data;
      g_autoptr(GMenuItem) item = g_menu_item_new (gtk_recent_info_get_display_name (info), NULL);

      g_menu_item_set_action_and_target (item, "win.open-recent", "s", gtk_recent_info_get_uri (info));
      g_menu_append_item (self->recent_menu, item);
    }

  if (n == 0)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new (_("No Recent Files"), "win.no-recent");
      g_menu_append_item (self->recent_menu, item);
    }

  g_list_free (ours);
  g_list_free_full (items, (GDestroyNotify)gtk_recent_info_unref);
}

void
_ts_window_add_recent (TsWindow *self,
                       GFile    *file)
{
  g_autofree char *uri = g_file_get_uri (file);

  g_assert (TS_IS_WINDOW (self));

  gtk_recent_manager_add_item (self->recent_manager, uri);
}
