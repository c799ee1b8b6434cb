/* ts-window.c: the main window
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Editor and output on the left, the timeline on the right, the example
 * gallery in a flap. The header bar settings live in GSettings and are
 * read when a run starts. The run itself (runner, trace reading, live
 * rebuild, run folder) is a TsRunController's; the window shows what it
 * says. Actions are in ts-window-actions.c, the trace viewer hooks in
 * ts-window-trace.c.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ts-console.h"
#include "ts-editor.h"
#include "ts-example-gallery.h"
#include "ts-examples.h"
#include "ts-trace-describe.h"
#include "ts-trace-import.h"
#include "ts-util-private.h"
#include "ts-window-private.h"

G_DEFINE_FINAL_TYPE (TsWindow, ts_window, ADW_TYPE_APPLICATION_WINDOW)

static void
ts_window_set_status (TsWindow   *self,
                      const char *status)
{
  _ts_set_str (&self->status, status);
  gtk_label_set_label (self->status_label, status);
}

void
_ts_window_toast (TsWindow   *self,
                  const char *message)
{
  g_assert (TS_IS_WINDOW (self));

  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (message));
}

gboolean
_ts_window_saved (TsWindow     *self,
                  GFile        *file,
                  const GError *error)
{
  g_autofree char *basename = g_file_get_basename (file);
  g_autofree char *message = NULL;

  if (error != NULL)
    message = g_strdup_printf (_("Could not save “%s”: %s"), basename, error->message);
  else
    {
      message = g_strdup_printf (_("Saved “%s”"), basename);
      _ts_window_add_recent (self, file);
    }
  _ts_window_toast (self, message);
  return error == NULL;
}

static TsWorkloadRunner *
ts_window_runner (TsWindow *self)
{
  return ts_run_controller_get_runner (self->run);
}

static char *
ts_window_describe_exit (TsWindow *self)
{
  TsWorkloadRunner *runner = ts_window_runner (self);
  int term_signal = ts_workload_runner_get_term_signal (runner);
  int exit_code = ts_workload_runner_get_exit_code (runner);

  if (ts_workload_runner_get_stop_requested (runner))
    return g_strdup (_("Stopped"));
  if (term_signal != 0)
    return g_strdup_printf (_("Killed by signal %d (%s)"), term_signal, g_strsignal (term_signal));
  return g_strdup_printf (_("Exited with code %d"), exit_code);
}

/* The run controller has read the end of the trace and built the last
 * document. */
static void
ts_window_run_finished_cb (TsWindow *self)
{
  g_autofree char *description = ts_window_describe_exit (self);
  guint error_line = ts_run_controller_get_error_line (self->run);
  gboolean blamed;

  ts_console_append_line (self->console, TS_CONSOLE_INFO, description);
  ts_window_set_status (self, description);

  /* The timeline gets the room, but a traceback keeps the script in
   * view beside it, at the line it blames. */
  blamed = ts_workload_runner_get_exit_code (ts_window_runner (self)) != 0 && error_line > 0;
  _ts_window_focus_timeline (self, blamed);
  if (blamed)
    {
      ts_editor_mark_line (self->editor, error_line, TS_EDITOR_MARK_ERROR,
                           ts_run_controller_get_last_stderr (self->run));
      ts_editor_goto_line (self->editor, error_line);
    }

  _ts_window_trace_end (self);
}

static void
ts_window_runner_state_cb (TsWindow         *self,
                           GParamSpec       *pspec,
                           TsWorkloadRunner *runner)
{
  TsWorkloadState state = ts_workload_runner_get_state (runner);
  gboolean running = ts_workload_runner_get_running (runner);

  gtk_stack_set_visible_child_name (self->run_stack, running ? "stop" : "run");
  gtk_widget_set_visible (GTK_WIDGET (self->status_spinner), running);
  gtk_spinner_set_spinning (self->status_spinner, running);

  if (state == TS_WORKLOAD_STATE_STOPPING)
    ts_window_set_status (self, _("Stopping…"));
  /* A run stopped because another script came into the editor: the
   * controller dropped it, so no ::finished says how it ended. */
  if (state == TS_WORKLOAD_STATE_FINISHED && ts_run_controller_get_recorder (self->run) == NULL)
    ts_window_set_status (self, _("Stopped"));

  _ts_window_update_actions (self);
}

static void
ts_window_runner_trace_size_cb (TsWindow         *self,
                                GParamSpec       *pspec,
                                TsWorkloadRunner *runner)
{
  guint64 size = ts_workload_runner_get_trace_size (runner);
  g_autofree char *formatted = NULL;
  g_autofree char *label = NULL;

  if (size > 0)
    {
      formatted = g_format_size_full (size, G_FORMAT_SIZE_IEC_UNITS);
      /* Translators: %s is a size such as "12.3 KiB" */
      label = g_strdup_printf (_("Trace: %s"), formatted);
    }
  gtk_label_set_label (self->trace_label, label ? label : "");
}

static void
ts_window_runner_output_cb (TsWindow         *self,
                            TsWorkloadStream  stream,
                            const char       *line,
                            TsWorkloadRunner *runner)
{
  g_autofree char *hidden = _ts_hide_run_dir (line);
  /* The sanitizer's report names streams as the timeline does. */
  g_autofree char *shown = ts_trace_name_streams (ts_run_controller_get_recorder (self->run), hidden);

  ts_console_append_line (self->console,
                          stream == TS_WORKLOAD_STDERR ? TS_CONSOLE_STDERR : TS_CONSOLE_STDOUT,
                          shown);
}

static void
ts_window_hide_explanation_cb (TsWindow *self)
{
  gtk_revealer_set_reveal_child (self->explanation_revealer, FALSE);
}

/* Another script in the editor: the last run's trace, output and marks
 * were about the old one, so they go (the timeline shows its placeholder
 * again, the details their "Show Line" no more). */
static void
ts_window_forget_run (TsWindow *self)
{
  ts_run_controller_clear (self->run);
  ts_console_clear (self->console);
  adw_status_page_set_title (self->timeline_placeholder, _("No Timeline Yet"));
  adw_status_page_set_description (self->timeline_placeholder, _("Run a workload to see its timeline"));
  gtk_stack_set_visible_child_name (self->timeline_stack, "empty");
  _ts_window_update_actions (self);
}

static void
ts_window_set_script (TsWindow   *self,
                      GFile      *file,
                      const char *name,
                      const char *title,
                      const char *example_id)
{
  g_set_object (&self->script_file, file);
  _ts_set_str (&self->script_name, name);
  _ts_set_str (&self->example_id, example_id);

  adw_window_title_set_subtitle (self->window_title, title);
  ts_example_gallery_set_selected_id (self->gallery, example_id);
}

/**
 * ts_window_load_example:
 * @self: a #TsWindow
 * @id: the id of an example, as in the gallery index
 * @error: a location for a #GError
 *
 * Puts the example in the editor and shows what to look at.
 */
gboolean
ts_window_load_example (TsWindow    *self,
                        const char  *id,
                        GError     **error)
{
  g_autofree char *code = NULL;
  TsExample *example;
  const char *hardware_name = NULL;
  guint n_hardware;
  guint min_gpus;

  g_return_val_if_fail (TS_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (id != NULL, FALSE);

  if (!(example = ts_examples_lookup (ts_examples_get_default (), id)))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("There is no example “%s”"), id);
      return FALSE;
    }

  if (!(code = ts_example_load_code (example, error)))
    return FALSE;

  ts_window_forget_run (self);
  ts_editor_set_text (self->editor, code);
  ts_window_set_script (self, NULL, ts_example_get_file_name (example),
                        ts_example_get_title (example), id);
  g_settings_set_string (self->settings, "last-example", id);

  gtk_label_set_label (self->explanation_title, ts_example_get_title (example));
  gtk_label_set_label (self->explanation_label, ts_example_get_explanation (example));
  gtk_revealer_set_reveal_child (self->explanation_revealer, TRUE);

  /* An example too big to compute here runs without tensor data: the
   * setting the menu's "Run Without Tensor Data" shows, so it can be undone. */
  if (ts_example_get_no_data (example) && !g_settings_get_boolean (self->settings, "no-data"))
    {
      g_settings_set_boolean (self->settings, "no-data", TRUE);
      _ts_window_toast (self, _("This example runs without tensor data (--no-data): shapes, memory and "
                                "time are modeled, values are not computed"));
    }

  min_gpus = ts_example_get_min_gpus (example);
  n_hardware = _ts_window_gpu_get_hardware (self, &hardware_name);
  if (hardware_name != NULL)
    {
      /* The machine's count cannot be raised: say so, and leave it. */
      if (n_hardware < min_gpus)
        {
          g_autofree char *message = NULL;

          message = g_strdup_printf (ngettext ("This example needs %u GPU: this machine has fewer",
                                               "This example needs %u GPUs: this machine has fewer",
                                               min_gpus),
                                     min_gpus);
          _ts_window_toast (self, message);
        }
    }
  else if ((guint)g_settings_get_int (self->settings, "gpu-count") < min_gpus)
    {
      g_autofree char *message = NULL;

      g_settings_set_int (self->settings, "gpu-count", min_gpus);
      message = g_strdup_printf (ngettext ("This example needs %u GPU: the GPU count was raised",
                                           "This example needs %u GPUs: the GPU count was raised",
                                           min_gpus),
                                 min_gpus);
      _ts_window_toast (self, message);
    }

  return TRUE;
}

static void
ts_window_discard_response_cb (AdwMessageDialog *dialog,
                               const char       *response,
                               TsWindow         *self)
{
  const char *id = g_object_get_data (G_OBJECT (dialog), "example-id");
  g_autoptr(GError) error = NULL;

  if (g_strcmp0 (response, "discard") == 0 && !ts_window_load_example (self, id, &error))
    _ts_window_toast (self, error->message);
}

/**
 * ts_window_pick_example:
 * @self: a #TsWindow
 * @id: the id of an example
 *
 * Loads an example as the gallery asks: when the editor has changes, only
 * after the user agreed to replace them (undo still brings them back).
 */
void
ts_window_pick_example (TsWindow   *self,
                        const char *id)
{
  AdwMessageDialog *dialog;
  g_autofree char *body = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (TS_IS_WINDOW (self));
  g_return_if_fail (id != NULL);

  if (!ts_editor_get_modified (self->editor))
    {
      if (!ts_window_load_example (self, id, &error))
        _ts_window_toast (self, error->message);
      return;
    }

  /* Translators: %s is the name of the script in the editor */
  body = g_strdup_printf (_("“%s” has changes that are not saved. The example replaces them; "
                            "Undo (Ctrl+Z) in the editor brings them back."),
                          self->script_name ? self->script_name : "workload.py");
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), _("Replace Your Changes?"), body));
  adw_message_dialog_add_responses (dialog,
                                    "cancel", _("_Keep Editing"),
                                    "discard", _("_Replace"),
                                    NULL);
  adw_message_dialog_set_response_appearance (dialog, "discard", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (dialog, "cancel");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "example-id", g_strdup (id), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (ts_window_discard_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

TsWindowFileOp *
_ts_window_file_op_new (TsWindow *self,
                        GFile    *file)
{
  TsWindowFileOp *op = g_new0 (TsWindowFileOp, 1);

  op->self = g_object_ref (self);
  op->file = g_object_ref (file);
  return op;
}

void
_ts_window_file_op_free (TsWindowFileOp *op)
{
  g_clear_object (&op->self);
  g_clear_object (&op->file);
  g_free (op);
}

static void
ts_window_load_script_cb (GObject      *object,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  g_autoptr(TsWindowFileOp) load = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *basename = NULL;
  TsWindow *self = load->self;
  gsize length = 0;

  if (!g_file_load_contents_finish (G_FILE (object), result, &contents, &length, NULL, &error))
    {
      g_autofree char *message = g_strdup_printf (_("Could not open the script: %s"), error->message);
      _ts_window_toast (self, message);
      return;
    }

  if (!g_utf8_validate (contents, length, NULL) || memchr (contents, '\0', length) != NULL)
    {
      _ts_window_toast (self, _("Could not open the script: it is not UTF-8 text"));
      return;
    }

  basename = g_file_get_basename (load->file);
  ts_window_forget_run (self);
  ts_editor_set_text (self->editor, contents);
  ts_window_set_script (self, load->file, basename, basename, NULL);
  gtk_revealer_set_reveal_child (self->explanation_revealer, FALSE);
  _ts_window_add_recent (self, load->file);

  if (load->run)
    {
      g_autoptr(GError) run_error = NULL;

      if (!ts_window_run (self, &run_error))
        _ts_window_toast (self, run_error->message);
    }
}

static void
ts_window_open_script (TsWindow *self,
                       GFile    *file,
                       gboolean  run)
{
  TsWindowFileOp *load = _ts_window_file_op_new (self, file);

  load->run = run;
  g_file_load_contents_async (file, NULL, ts_window_load_script_cb, load);
}

/**
 * ts_window_open_file:
 * @self: a #TsWindow
 * @file: a workload script (.py) or a trace (.tstrace)
 * @run_scripts: whether to run a script right after loading it
 *
 * Opens what the user handed us on the command line, in a file dialog,
 * from the recent files or by drag-and-drop.
 */
void
ts_window_open_file (TsWindow *self,
                     GFile    *file,
                     gboolean  run_scripts)
{
  g_autofree char *basename = NULL;

  g_return_if_fail (TS_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  basename = g_file_get_basename (file);
  /* A directory is a set of per-rank traces. */
  if (basename != NULL &&
      (ts_trace_import_has_trace_name (basename) ||
       g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY))
    ts_window_open_trace (self, file);
  else if (basename != NULL && g_str_has_suffix (basename, ".py"))
    ts_window_open_script (self, file, run_scripts);
  else
    {
      g_autofree char *message = g_strdup_printf (_("“%s” is neither a workload script (.py) nor a trace (.tstrace, or a PyTorch memory snapshot or profiler trace)"),
                                                  basename ? basename : "?");
      _ts_window_toast (self, message);
    }
}

/* The file the run executes: the opened file itself while the editor
 * matches it, otherwise a copy of the editor in a private folder. */
static char *
ts_window_prepare_script (TsWindow  *self,
                          GError   **error)
{
  g_autofree char *text = NULL;

  if (self->script_file != NULL && g_file_is_native (self->script_file) &&
      !ts_editor_get_modified (self->editor))
    return g_file_get_path (self->script_file);

  text = ts_editor_dup_text (self->editor);
  return ts_run_controller_write_script (self->run, self->script_name ? self->script_name : "workload.py",
                                         text, error);
}

static void
ts_window_configure_runner (TsWindow *self)
{
  g_autofree char *model = g_settings_get_string (self->settings, "gpu-model");
  TsWorkloadRunner *runner = ts_window_runner (self);

  ts_workload_runner_set_backend (runner, _ts_window_gpu_is_hardware (self) ? "cuda" : "sim");
  ts_workload_runner_set_gpu_model (runner, model);
  ts_workload_runner_set_gpu_count (runner, g_settings_get_int (self->settings, "gpu-count"));
  ts_workload_runner_set_synchronous (runner, g_settings_get_boolean (self->settings, "synchronous"));
  ts_workload_runner_set_sanitize (runner, g_settings_get_boolean (self->settings, "sanitizer"));
  ts_workload_runner_set_no_data (runner, g_settings_get_boolean (self->settings, "no-data"));
}

/* Quotes a word for display only when the shell would need it. */
static char *
ts_window_quote_word (const char *word)
{
  for (const char *c = word; *c; c++)
    if (!g_ascii_isalnum (*c) && !strchr ("_-./=:,+@%", *c))
      return g_shell_quote (word);

  return *word ? g_strdup (word) : g_shell_quote (word);
}

static void
ts_window_echo_command (TsWindow   *self,
                        const char *script_path)
{
  TsWorkloadRunner *runner = ts_window_runner (self);
  g_autofree char *cli = NULL;
  g_auto(GStrv) argv = NULL;
  g_autoptr(GString) line = g_string_new ("$");

  cli = ts_workload_runner_get_cli_path (runner) != NULL
        ? g_strdup (ts_workload_runner_get_cli_path (runner))
        : ts_workload_runner_find_cli ();
  if (cli == NULL)
    return;

  argv = ts_workload_runner_build_argv (runner, cli, script_path);
  for (guint i = 0; argv[i] != NULL; i++)
    {
      g_autofree char *quoted = ts_window_quote_word (i == 0 ? "tensorscope-cli" : argv[i]);
      g_string_append_printf (line, " %s", quoted);
    }
  ts_console_append_line (self->console, TS_CONSOLE_INFO, line->str);
}

/**
 * ts_window_run:
 * @self: a #TsWindow
 * @error: a location for a #GError
 *
 * Runs the script in the editor with the header bar's settings. Returns
 * at once; output streams into the console.
 */
gboolean
ts_window_run (TsWindow  *self,
               GError   **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *status = NULL;
  g_autofree char *model = NULL;
  TsWorkloadRunner *runner;
  const char *hardware_name = NULL;
  guint n_gpus;

  g_return_val_if_fail (TS_IS_WINDOW (self), FALSE);

  runner = ts_window_runner (self);
  if (ts_workload_runner_get_running (runner))
    return TRUE;

  if (!(path = ts_window_prepare_script (self, &local_error)) )
    goto failed;

  ts_console_clear (self->console);
  ts_editor_clear_marks (self->editor);
  _ts_window_gpu_prepare_run (self);
  ts_window_configure_runner (self);
  ts_window_echo_command (self, path);
  _ts_window_trace_begin (self);

  if (!ts_run_controller_start (self->run, path, &local_error))
    goto failed;

  n_gpus = _ts_window_gpu_get_hardware (self, &hardware_name);
  if (hardware_name != NULL)
    model = g_strdup (hardware_name);
  else
    {
      model = g_ascii_strup (ts_workload_runner_get_gpu_model (runner), -1);
      n_gpus = ts_workload_runner_get_gpu_count (runner);
    }
  /* Translators: "Running stream_race.py on 4 × H100…" */
  status = g_strdup_printf (_("Running %s on %u × %s…"),
                            self->script_name ? self->script_name : "workload.py",
                            n_gpus, model);
  ts_window_set_status (self, status);
  return TRUE;

failed:
  status = g_strdup_printf (_("Could not start the workload: %s"), local_error->message);
  ts_console_append_line (self->console, TS_CONSOLE_STDERR, status);
  ts_window_set_status (self, status);
  g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

void
ts_window_stop (TsWindow *self)
{
  g_return_if_fail (TS_IS_WINDOW (self));

  ts_run_controller_stop (self->run);
}

static gboolean
ts_window_drop_cb (TsWindow      *self,
                   const GValue  *value,
                   double         x,
                   double         y,
                   GtkDropTarget *target)
{
  GSList *files;

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;

  files = gdk_file_list_get_files (g_value_get_boxed (value));
  if (files == NULL)
    return FALSE;

  /* One document at a time: the first file wins. Dropping never runs. */
  ts_window_open_file (self, files->data, FALSE);
  g_slist_free (files);
  return TRUE;
}

static void
ts_window_bind_settings (TsWindow *self)
{
  /* The GPU model, backend and count: ts-window-gpu.c. */
  g_settings_bind (self->settings, "synchronous", self->sync_button, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "sanitizer", self->sanitizer_button, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "show-gallery", self->flap, "reveal-flap", G_SETTINGS_BIND_DEFAULT);
  /* Pane sizes are remembered; the script pane's visibility is not, as
   * every run and opened trace decides it anew. */
  g_settings_bind (self->settings, "script-pane-width", self->main_paned, "position", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "script-pane-split", self->code_paned, "position", G_SETTINGS_BIND_DEFAULT);
}

void
_ts_window_focus_timeline (TsWindow *self,
                           gboolean  keep_code)
{
  g_assert (TS_IS_WINDOW (self));

  adw_flap_set_reveal_flap (self->flap, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->code_paned), keep_code);
}

static gboolean
ts_window_close_request (GtkWindow *window)
{
  TsWindow *self = TS_WINDOW (window);
  int width, height;

  gtk_window_get_default_size (window, &width, &height);
  g_settings_delay (self->settings);
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
  if (!gtk_window_is_maximized (window) && width > 0 && height > 0)
    {
      g_settings_set_int (self->settings, "window-width", width);
      g_settings_set_int (self->settings, "window-height", height);
    }
  g_settings_apply (self->settings);

  ts_run_controller_stop (self->run);

  return GTK_WINDOW_CLASS (ts_window_parent_class)->close_request (window);
}

static void
ts_window_dispose (GObject *object)
{
  TsWindow *self = (TsWindow *)object;

  /* The runner may outlive the controller while its process ends. */
  if (self->run != NULL)
    {
      g_signal_handlers_disconnect_by_data (ts_window_runner (self), self);
      g_signal_handlers_disconnect_by_data (self->run, self);
      ts_run_controller_stop (self->run);
    }

  _ts_window_gpu_dispose (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), TS_TYPE_WINDOW);
  _ts_window_memory_dispose (self);

  g_clear_object (&self->run);
  g_clear_object (&self->settings);
  g_clear_object (&self->script_file);
  g_clear_object (&self->opened_trace);

  G_OBJECT_CLASS (ts_window_parent_class)->dispose (object);
}

static void
ts_window_finalize (GObject *object)
{
  TsWindow *self = (TsWindow *)object;

  g_clear_pointer (&self->script_name, g_free);
  g_clear_pointer (&self->example_id, g_free);
  g_clear_pointer (&self->status, g_free);

  G_OBJECT_CLASS (ts_window_parent_class)->finalize (object);
}

static void
ts_window_class_init (TsWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = ts_window_dispose;
  object_class->finalize = ts_window_finalize;
  window_class->close_request = ts_window_close_request;

  g_type_ensure (TS_TYPE_CONSOLE);
  g_type_ensure (TS_TYPE_EDITOR);
  g_type_ensure (TS_TYPE_EXAMPLE_GALLERY);

  gtk_widget_class_set_template_from_resource (widget_class, TS_RESOURCE_PATH "/ts-window.ui");
  gtk_widget_class_bind_template_child (widget_class, TsWindow, header_bar);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, gallery_button);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, code_button);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, run_stack);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, run_button);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, stop_button);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, menu_button);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, sanitizer_button);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, sync_button);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, gpu_model_dropdown);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, gpu_count_spin);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, flap);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, gallery);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, main_paned);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, code_paned);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, explanation_revealer);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, explanation_title);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, explanation_label);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, editor);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, console);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, timeline_stack);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, timeline_placeholder);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, timeline_slot);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, status_spinner);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, status_label);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, trace_label);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, recent_menu);
  gtk_widget_class_bind_template_callback (widget_class, ts_window_hide_explanation_cb);
}

static void
ts_window_init (TsWindow *self)
{
  GtkDropTarget *drop;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = g_settings_new (TS_APPLICATION_ID);
  self->recent_manager = gtk_recent_manager_get_default ();

  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));

  /* The controller reads the trace; the window shows the run's state,
   * output and document. */
  self->run = ts_run_controller_new ();
  g_signal_connect_object (ts_window_runner (self), "notify::state",
                           G_CALLBACK (ts_window_runner_state_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (ts_window_runner (self), "notify::trace-size",
                           G_CALLBACK (ts_window_runner_trace_size_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (ts_window_runner (self), "output",
                           G_CALLBACK (ts_window_runner_output_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->run, "finished",
                           G_CALLBACK (ts_window_run_finished_cb), self, G_CONNECT_SWAPPED);
  _ts_window_trace_init (self);

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect_object (drop, "drop", G_CALLBACK (ts_window_drop_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  ts_window_bind_settings (self);
  _ts_window_gpu_init (self);
  _ts_window_actions_init (self);
  _ts_window_export_init (self);
  _ts_window_memory_init (self);
  _ts_window_update_recent (self);
  ts_window_set_status (self, _("Ready"));
}

TsWindow *
ts_window_new (TsApplication *application)
{
  return g_object_new (TS_TYPE_WINDOW, "application", application, NULL);
}

/**
 * ts_window_get_editor:
 * @self: a #TsWindow
 *
 * Returns: (transfer none): the editor
 */
TsEditor *
ts_window_get_editor (TsWindow *self)
{
  g_return_val_if_fail (TS_IS_WINDOW (self), NULL);

  return self->editor;
}

/**
 * ts_window_get_console:
 * @self: a #TsWindow
 *
 * Returns: (transfer none): the output pane
 */
TsConsole *
ts_window_get_console (TsWindow *self)
{
  g_return_val_if_fail (TS_IS_WINDOW (self), NULL);

  return self->console;
}

/**
 * ts_window_get_runner:
 * @self: a #TsWindow
 *
 * Returns: (transfer none): the runner of this window's workloads
 */
TsWorkloadRunner *
ts_window_get_runner (TsWindow *self)
{
  g_return_val_if_fail (TS_IS_WINDOW (self), NULL);

  return ts_window_runner (self);
}

/* The text of the status line. */
const char *
ts_window_get_status (TsWindow *self)
{
  g_return_val_if_fail (TS_IS_WINDOW (self), NULL);

  return self->status;
}

/**
 * ts_window_dup_trace:
 * @self: a #TsWindow
 *
 * Returns: (transfer full): the bytes of the last run's trace so far
 */
GBytes *
ts_window_dup_trace (TsWindow *self)
{
  g_return_val_if_fail (TS_IS_WINDOW (self), NULL);

  return ts_run_controller_dup_trace (self->run);
}

/**
 * ts_window_get_timeline:
 * @self: a #TsWindow
 *
 * Returns: (transfer none) (nullable): the widget set with
 *   ts_window_set_timeline()
 */
GtkWidget *
ts_window_get_timeline (TsWindow *self)
{
  g_return_val_if_fail (TS_IS_WINDOW (self), NULL);

  return adw_bin_get_child (self->timeline_slot);
}

/**
 * ts_window_set_timeline:
 * @self: a #TsWindow
 * @timeline: (nullable): the trace viewer, e.g. a TsTimeline
 *
 * Puts @timeline in the right-hand pane in place of the "Run a workload"
 * placeholder; %NULL brings the placeholder back.
 */
void
ts_window_set_timeline (TsWindow  *self,
                        GtkWidget *timeline)
{
  g_return_if_fail (TS_IS_WINDOW (self));
  g_return_if_fail (timeline == NULL || GTK_IS_WIDGET (timeline));

  adw_bin_set_child (self->timeline_slot, timeline);
  gtk_stack_set_visible_child_name (self->timeline_stack, timeline ? "timeline" : "empty");
}
