/* ts-window-export.c: exporting from the window
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What tensorscope-cli exports, from the app: the timeline as it is shown
 * (the visible window, every unfolded row) as PNG, SVG or PDF, drawn by
 * the same renderer into the file; and the trace as Chrome Trace Event
 * JSON or its allocator actions as a PyTorch memory snapshot (a pickle
 * that memory_viz opens), which are the CLI's `export` (the code lives
 * there): the trace is written to a temporary file and the CLI converts it.
 */

#include "config.h"

#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "ts-render-export.h"
#include "ts-window-private.h"

typedef struct
{
  TsTimelineRenderer *renderer;
  TsTimelineView      view;
} ExportView;

static void
ts_window_export_draw_cb (cairo_t  *cr,
                          int       width,
                          int       height,
                          gpointer  user_data)
{
  ExportView *e = user_data;

  ts_timeline_renderer_draw (e->renderer, cr, &e->view);
}

/**
 * ts_window_export_view:
 * @self: a #TsWindow
 * @path: a .png, .svg or .pdf file name
 * @error: a location for a #GError
 *
 * Draws the timeline's visible window to @path: as wide as the widget,
 * as tall as all its unfolded rows (not only those scrolled into view).
 */
gboolean
ts_window_export_view (TsWindow    *self,
                       const char  *path,
                       GError     **error)
{
  TsTimeline *timeline;
  ExportView e = { 0 };

  g_return_val_if_fail (TS_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (self->trace_view == NULL ||
      !(e.renderer = ts_timeline_get_renderer (timeline = ts_trace_view_get_timeline (self->trace_view))))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("There is no timeline to export"));
      return FALSE;
    }
  ts_timeline_get_view (timeline, &e.view);
  e.view.width = MAX (e.view.width, 400);
  e.view.height = (int) (ts_timeline_renderer_get_ruler_height (e.renderer) +
                         ts_timeline_renderer_get_content_height (e.renderer)) + 1;
  e.view.scroll_y = 0;
  return ts_render_to_file (path, e.view.width, e.view.height, ts_window_export_draw_cb, &e, error);
}

/* --- Chrome JSON and memory snapshots through the CLI ------------------ */

typedef struct
{
  char *trace_path;          /* the temporary .tstrace, removed at the end */
  char *output_path;
  char *format;              /* the CLI's --format */
} TraceExport;

static void
trace_export_free (gpointer data)
{
  TraceExport *c = data;

  if (c->trace_path != NULL)
    g_unlink (c->trace_path);
  g_free (c->trace_path);
  g_free (c->output_path);
  g_free (c->format);
  g_free (c);
}

static void
ts_window_export_trace_done_cb (GObject      *object,
                                 GAsyncResult *result,
                                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *stderr_text = NULL;
  GSubprocess *subprocess = G_SUBPROCESS (object);

  if (!g_subprocess_communicate_utf8_finish (subprocess, result, NULL, &stderr_text, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else if (!g_subprocess_get_successful (subprocess))
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s",
                             stderr_text != NULL && *stderr_text ? g_strstrip (stderr_text)
                                                                 : _("tensorscope-cli export failed"));
  else
    g_task_return_boolean (task, TRUE);
}

static void
ts_window_export_trace_saved_cb (GObject      *object,
                                  GAsyncResult *result,
                                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  TsWindow *self = g_task_get_source_object (task);
  TraceExport *c = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) subprocess = NULL;
  g_autofree char *cli = NULL;
  g_autofree char *format = NULL;
  TsWorkloadRunner *runner = ts_run_controller_get_runner (self->run);
  GCancellable *cancellable;

  if (!ts_run_controller_save_trace_finish (TS_RUN_CONTROLLER (object), result, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  cli = ts_workload_runner_get_cli_path (runner) != NULL ? g_strdup (ts_workload_runner_get_cli_path (runner))
                                                          : ts_workload_runner_find_cli ();
  if (cli == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("tensorscope-cli was not found"));
      return;
    }
  format = g_strconcat ("--format=", c->format, NULL);
  subprocess = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error,
                                 cli, "export", format, "-o", c->output_path, c->trace_path, NULL);
  if (subprocess == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  cancellable = g_task_get_cancellable (task);
  g_subprocess_communicate_utf8_async (subprocess, NULL, cancellable,
                                       ts_window_export_trace_done_cb, g_steal_pointer (&task));
}

/**
 * ts_window_export_trace_async:
 * @self: a #TsWindow
 * @format: `tensorscope-cli export`'s format: "chrome" (Chrome Trace
 *   Event JSON, which Perfetto opens) or "memory-snapshot" (PyTorch's
 *   memory snapshot pickle, which memory_viz opens)
 * @file: the file to write
 *
 * Writes the trace shown in @format with `tensorscope-cli export`; the
 * CLI's own message is the error when it refuses (a trace without
 * allocator actions has no snapshot).
 */
void
ts_window_export_trace_async (TsWindow            *self,
                              const char          *format,
                              GFile               *file,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) trace = NULL;
  TraceExport *c;
  int fd;

  g_return_if_fail (TS_IS_WINDOW (self));
  g_return_if_fail (format != NULL);
  g_return_if_fail (G_IS_FILE (file));

  task = g_task_new (self, NULL, callback, user_data);
  c = g_new0 (TraceExport, 1);
  g_task_set_task_data (task, c, trace_export_free);
  c->output_path = g_file_get_path (file);
  c->format = g_strdup (format);
  if (ts_run_controller_get_recorder (self->run) == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("There is no trace to export"));
      return;
    }
  if ((fd = g_file_open_tmp ("tensorscope-export-XXXXXX.tstrace", &c->trace_path, &error)) < 0)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  close (fd);
  trace = g_file_new_for_path (c->trace_path);
  ts_run_controller_save_trace_async (self->run, trace, ts_window_export_trace_saved_cb, g_steal_pointer (&task));
}

gboolean
ts_window_export_trace_finish (TsWindow      *self,
                               GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* --- actions ------------------------------------------------------------- */

static void
ts_window_export_trace_cb (GObject      *object,
                           GAsyncResult *result,
                           gpointer      user_data)
{
  g_autoptr(GFile) file = user_data;
  g_autoptr(GError) error = NULL;

  ts_window_export_trace_finish (TS_WINDOW (object), result, &error);
  _ts_window_saved (TS_WINDOW (object), file, error);
}

/* What each export action writes: the view's image, or the trace in a
 * CLI format; one row per action, so that adding an export is one line. */
typedef struct
{
  const char *action;        /* the window action's name */
  const char *format;        /* NULL: the view as an image */
  const char *title;         /* the file dialog's */
  const char *suffix;        /* appended to the suggested file name */
  const char *filter_name;
  const char *patterns[4];
} ExportKind;

static const ExportKind export_kinds[] = {
  { "export-view", NULL, N_("Export the Timeline"), "-timeline.png",
    N_("Images (PNG, SVG, PDF)"), { "*.png", "*.svg", "*.pdf", NULL } },
  { "export-chrome", "chrome", N_("Export the Trace as Chrome JSON"), ".json",
    N_("Chrome Trace Event JSON"), { "*.json", NULL } },
  { "export-snapshot", "memory-snapshot", N_("Export the Memory as a PyTorch Snapshot"), "-memory.pickle",
    N_("PyTorch memory snapshot"), { "*.pickle", NULL } },
};

static void
ts_window_export_response_cb (GtkNativeDialog *dialog,
                              int              response,
                              TsWindow        *self)
{
  const ExportKind *kind = g_object_get_data (G_OBJECT (dialog), "ts-export-kind");

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);
      g_autoptr(GError) error = NULL;

      if (kind->format != NULL)
        ts_window_export_trace_async (self, kind->format, file, ts_window_export_trace_cb, g_object_ref (file));
      else
        {
          ts_window_export_view (self, path, &error);
          _ts_window_saved (self, file, error);
        }
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
ts_window_action_export (GSimpleAction *action,
                         GVariant      *param,
                         gpointer       user_data)
{
  TsWindow *self = user_data;
  const char *name = g_action_get_name (G_ACTION (action));

  for (guint i = 0; i < G_N_ELEMENTS (export_kinds); i++)
    {
      const ExportKind *kind = &export_kinds[i];
      g_autofree char *suggested = NULL;
      GtkFileChooser *chooser;

      if (!g_str_equal (kind->action, name))
        continue;
      suggested = _ts_window_suggest_name (self, kind->suffix);
      chooser = _ts_window_save_chooser (self, _(kind->title), _("_Export"), suggested, _(kind->filter_name),
                                         (const char **) kind->patterns,
                                         G_CALLBACK (ts_window_export_response_cb));
      g_object_set_data (G_OBJECT (chooser), "ts-export-kind", (gpointer) kind);
      return;
    }
  g_assert_not_reached ();
}

void
_ts_window_export_init (TsWindow *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (export_kinds); i++)
    {
      g_autoptr(GSimpleAction) action = g_simple_action_new (export_kinds[i].action, NULL);

      g_signal_connect (action, "activate", G_CALLBACK (ts_window_action_export), self);
      g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (action));
    }
  _ts_window_update_actions (self);
}
