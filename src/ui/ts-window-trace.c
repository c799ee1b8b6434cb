/* ts-window-trace.c: where the window meets the trace viewer
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Live runs: the runner hands us the trace bytes as they come on the main
 * loop (in pipe-sized pieces, never blocking); they go into an incremental
 * TsTraceReader that appends whole frames to a fresh TsRecorder. The trace
 * document is rebuilt from the recorder at most REBUILD_HZ times a second,
 * and only when records arrived, so a busy workload cannot starve the UI.
 * A rebuild costs time linear in the records, so the pause after one is
 * also at least REBUILD_RATIO times what it took: on a long run rebuilding
 * stays under a tenth of the wall time (a 10M-record document takes about
 * 1.7 s to build, so such a run refreshes every ~17 s, a short one 10 times
 * a second).
 * A bad frame stops the reading with a message; what came before stays.
 * At the end of the run the last records are read, the document is built
 * once more and the timeline zooms to fit.
 *
 * Files: a .tstrace is loaded (and its document built) in a GTask thread,
 * then shown. Saving writes the recorder with the trace writer, also in a
 * thread.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ts-trace-writer.h"
#include "ts-window-private.h"

#define REBUILD_HZ    10
#define REBUILD_RATIO 9     /* idle time per unit of rebuild time */

static void
ts_window_goto_source_cb (TsWindow    *self,
                          const char  *file,
                          guint        line,
                          TsTraceView *view)
{
  g_autofree char *base = file != NULL && *file ? g_path_get_basename (file) : NULL;

  /* The trace names the file the run executed: the script itself, or the
   * private copy of the editor, which has the same name. */
  if (base == NULL || self->script_name == NULL || g_str_equal (base, self->script_name))
    {
      ts_editor_goto_line (self->editor, line);
      gtk_widget_grab_focus (GTK_WIDGET (self->editor));
    }
  else
    {
      g_autofree char *message = g_strdup_printf (_("Line %u is in “%s”, which is not in the editor"), line, base);
      _ts_window_toast (self, message);
    }
}

static TsTraceView *
ts_window_ensure_view (TsWindow *self)
{
  if (self->trace_view == NULL)
    {
      self->trace_view = TS_TRACE_VIEW (ts_trace_view_new ());
      g_signal_connect_object (self->trace_view, "goto-source",
                               G_CALLBACK (ts_window_goto_source_cb), self, G_CONNECT_SWAPPED);
      ts_window_set_timeline (self, GTK_WIDGET (self->trace_view));
      _ts_window_memory_attach_timeline (self, ts_trace_view_get_timeline (self->trace_view));
    }
  return self->trace_view;
}

static void
ts_window_show_recorder (TsWindow   *self,
                         TsRecorder *recorder)
{
  g_autoptr(TsTraceDocument) document = ts_trace_document_new (recorder);

  ts_trace_view_set_document (ts_window_ensure_view (self), document);
}

static guint64
ts_window_count_records (TsWindow *self)
{
  guint64 n = 0;

  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    n += ts_recorder_get_count (self->recorder, k);
  return n;
}

static void
ts_window_rebuild (TsWindow *self)
{
  guint64 n;
  gint64 start;

  if (self->recorder == NULL)
    return;
  n = ts_window_count_records (self);
  if (n == self->built_records && self->trace_view != NULL &&
      ts_trace_view_get_document (self->trace_view) != NULL)
    return;

  self->built_records = n;
  start = g_get_monotonic_time ();
  ts_window_show_recorder (self, self->recorder);
  self->last_rebuild = g_get_monotonic_time ();
  self->rebuild_usec = self->last_rebuild - start;
  g_debug ("Rebuilt the live document: %" G_GUINT64_FORMAT " records in %.1f ms",
           n, self->rebuild_usec / 1000.0);
}

static gboolean
ts_window_rebuild_cb (gpointer data)
{
  TsWindow *self = data;

  self->rebuild_source = 0;
  ts_window_rebuild (self);
  return G_SOURCE_REMOVE;
}

static void
ts_window_schedule_rebuild (TsWindow *self)
{
  gint64 next, now;

  if (self->rebuild_source != 0)
    return;
  now = g_get_monotonic_time ();
  next = self->last_rebuild + MAX (G_USEC_PER_SEC / REBUILD_HZ, REBUILD_RATIO * self->rebuild_usec);
  self->rebuild_source = g_timeout_add (next > now ? (guint) ((next - now) / 1000) : 0,
                                        ts_window_rebuild_cb, self);
}

static void
ts_window_reader_failed (TsWindow     *self,
                         const GError *error)
{
  g_autofree char *message = NULL;

  self->reader_failed = TRUE;
  message = g_strdup_printf (_("The trace is damaged, the timeline shows what came before: %s"), error->message);
  _ts_window_toast (self, message);
  if (self->trace_view != NULL)
    ts_trace_view_set_status (self->trace_view, message);
}

void
_ts_window_trace_begin (TsWindow *self)
{
  g_assert (TS_IS_WINDOW (self));

  g_byte_array_set_size (self->trace, 0);
  g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);
  g_clear_handle_id (&self->rebuild_source, g_source_remove);

  g_clear_object (&self->reader);
  g_clear_object (&self->recorder);
  self->recorder = ts_recorder_new ();
  self->reader = ts_trace_reader_new (self->recorder);
  self->reader_failed = FALSE;
  self->built_records = 0;
  self->last_rebuild = 0;
  self->rebuild_usec = 0;

  ts_window_ensure_view (self);
  ts_trace_view_set_document (self->trace_view, NULL);
  ts_trace_view_set_status (self->trace_view, _("Live"));
  ts_timeline_set_follow (ts_trace_view_get_timeline (self->trace_view), TRUE);
  _ts_window_update_actions (self);
}

void
_ts_window_trace_data (TsWindow *self,
                       GBytes   *bytes)
{
  g_autoptr(GError) error = NULL;
  gsize size;
  const guint8 *data;

  g_assert (TS_IS_WINDOW (self));

  data = g_bytes_get_data (bytes, &size);
  g_byte_array_append (self->trace, data, size);

  if (self->reader == NULL || self->reader_failed)
    return;
  if (!ts_trace_reader_feed (self->reader, data, size, &error))
    ts_window_reader_failed (self, error);
  ts_window_schedule_rebuild (self);
}

/* Whether a line of the trace is a line of the script in the editor: the
 * trace names the file the run executed (the script itself or the
 * editor's private copy, which has the same name). */
static gboolean
ts_window_loc_in_editor (TsWindow          *self,
                         const TsSourceLoc *loc)
{
  const char *file;
  g_autofree char *base = NULL;

  if (loc->line == 0)
    return FALSE;
  file = loc->file != 0 ? ts_recorder_lookup (self->recorder, loc->file) : NULL;
  if (file == NULL || *file == '\0' || self->script_name == NULL)
    return TRUE;
  base = g_path_get_basename (file);
  return g_str_equal (base, self->script_name);
}

/* Marks the lines the trace blames: where a failed kernel was launched and
 * where its error surfaced; both sides of each race. After a run and when
 * a trace file is opened (then only lines of the script in the editor). */
static void
ts_window_mark_problems (TsWindow *self)
{
  TsRecorder *rec = self->recorder;
  gsize n;

  n = ts_recorder_get_count (rec, TS_RECORD_ERROR);
  for (gsize i = 0; i < n; i++)
    {
      TsErrorRecord e;
      const char *message;

      ts_recorder_get (rec, TS_RECORD_ERROR, i, &e);
      message = e.message != 0 ? ts_recorder_lookup (rec, e.message) : _("A kernel failed");
      if (ts_window_loc_in_editor (self, &e.launch_loc))
        {
          g_autofree char *text = g_strdup_printf (_("The failing kernel was launched here: %s"), message);
          ts_editor_mark_line (self->editor, e.launch_loc.line, TS_EDITOR_MARK_ERROR, text);
        }
      if (ts_window_loc_in_editor (self, &e.surfaced_loc) && e.surfaced_loc.line != e.launch_loc.line)
        {
          g_autofree char *text = g_strdup_printf (_("The error surfaced here: %s"), message);
          ts_editor_mark_line (self->editor, e.surfaced_loc.line, TS_EDITOR_MARK_ERROR, text);
        }
    }

  n = ts_recorder_get_count (rec, TS_RECORD_SANITIZER);
  for (gsize i = 0; i < n; i++)
    {
      TsSanitizerRecord r;
      const char *report;

      ts_recorder_get (rec, TS_RECORD_SANITIZER, i, &r);
      report = r.report != 0 ? ts_recorder_lookup (rec, r.report) : _("A data race between streams");
      if (ts_window_loc_in_editor (self, &r.loc))
        ts_editor_mark_line (self->editor, r.loc.line, TS_EDITOR_MARK_RACE, report);
      if (ts_window_loc_in_editor (self, &r.prev_loc) && r.prev_loc.line != r.loc.line)
        ts_editor_mark_line (self->editor, r.prev_loc.line, TS_EDITOR_MARK_RACE, report);
    }
}

void
_ts_window_trace_end (TsWindow *self)
{
  g_autoptr(GError) error = NULL;
  TsTimeline *timeline;

  g_assert (TS_IS_WINDOW (self));

  if (self->reader != NULL && !self->reader_failed && self->trace->len > 0 &&
      !ts_trace_reader_finish (self->reader, &error))
    ts_window_reader_failed (self, error);

  g_clear_handle_id (&self->rebuild_source, g_source_remove);
  if (self->recorder != NULL && self->trace_view != NULL)
    {
      self->built_records = G_MAXUINT64;   /* always rebuild */
      ts_window_rebuild (self);
      timeline = ts_trace_view_get_timeline (self->trace_view);
      ts_timeline_set_follow (timeline, FALSE);
      ts_timeline_zoom_to_fit (timeline);
      if (self->reader_failed)
        ;  /* the status says what went wrong */
      else if (self->reader != NULL && ts_trace_reader_get_cut_short (self->reader))
        ts_trace_view_set_status (self->trace_view, _("Cut short: the run ended before its trace did"));
      else
        ts_trace_view_set_status (self->trace_view, self->script_name);
      ts_window_mark_problems (self);
    }

  _ts_window_update_actions (self);
}

void
_ts_window_trace_dispose (TsWindow *self)
{
  g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);
  g_clear_handle_id (&self->rebuild_source, g_source_remove);
  g_clear_object (&self->reader);
  g_clear_object (&self->recorder);
}

gboolean
_ts_window_has_trace (TsWindow *self)
{
  return self->recorder != NULL && ts_window_count_records (self) > 0;
}

/* --- opening files --------------------------------------------------------- */

typedef struct
{
  TsRecorder      *recorder;
  TsTraceDocument *document;
  gboolean         cut_short;
} LoadResult;

static void
load_result_free (LoadResult *r)
{
  g_clear_object (&r->recorder);
  g_clear_object (&r->document);
  g_free (r);
}

static void
ts_window_load_thread (GTask        *task,
                       gpointer      source_object,
                       gpointer      task_data,
                       GCancellable *cancellable)
{
  g_autofree char *path = g_file_get_path (task_data);
  GError *error = NULL;
  LoadResult *r;

  if (path == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("Only local files can be opened"));
      return;
    }

  r = g_new0 (LoadResult, 1);
  if (!(r->recorder = ts_trace_load (path, &r->cut_short, &error)))
    {
      load_result_free (r);
      g_task_return_error (task, error);
      return;
    }
  r->document = ts_trace_document_new (r->recorder);
  g_task_return_pointer (task, r, (GDestroyNotify) load_result_free);
}

static void
ts_window_load_done_cb (GObject      *object,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  TsWindow *self = TS_WINDOW (object);
  GTask *task = G_TASK (result);
  GFile *file = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *basename = g_file_get_basename (file);
  g_autofree char *status = NULL;
  LoadResult *r;

  if (!(r = g_task_propagate_pointer (task, &error)))
    {
      g_autofree char *message = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      message = g_strdup_printf (_("Could not open “%s”: %s"), basename, error->message);
      _ts_window_toast (self, message);
      ts_console_append_line (self->console, TS_CONSOLE_STDERR, message);
      return;
    }

  g_clear_object (&self->reader);
  g_set_object (&self->recorder, r->recorder);
  g_byte_array_set_size (self->trace, 0);
  self->built_records = ts_window_count_records (self);
  ts_trace_view_set_document (ts_window_ensure_view (self), r->document);
  ts_timeline_zoom_to_fit (ts_trace_view_get_timeline (self->trace_view));
  status = r->cut_short
           ? g_strdup_printf (_("%s (cut short: the run ended before its trace did)"), basename)
           : g_strdup (basename);
  ts_trace_view_set_status (self->trace_view, status);
  if (r->cut_short)
    _ts_window_toast (self, _("This trace was cut short; it shows what was recorded"));
  ts_editor_clear_marks (self->editor);
  ts_window_mark_problems (self);
  load_result_free (r);
  _ts_window_update_actions (self);
}

/**
 * ts_window_open_trace:
 * @self: a #TsWindow
 * @file: a .tstrace file
 *
 * Loads a saved trace in a thread and shows it; a missing or damaged file
 * gets a message in the window.
 */
void
ts_window_open_trace (TsWindow *self,
                      GFile    *file)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (TS_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  _ts_window_add_recent (self, file);
  g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);
  self->load_cancellable = g_cancellable_new ();

  task = g_task_new (self, self->load_cancellable, ts_window_load_done_cb, NULL);
  g_task_set_source_tag (task, ts_window_open_trace);
  g_task_set_task_data (task, g_object_ref (file), g_object_unref);
  g_task_run_in_thread (task, ts_window_load_thread);
}

/* --- saving ---------------------------------------------------------------- */

static void
ts_window_save_thread (GTask        *task,
                       gpointer      source_object,
                       gpointer      task_data,
                       GCancellable *cancellable)
{
  GFile *file = g_object_get_data (G_OBJECT (task), "ts-file");
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(TsTraceWriter) writer = NULL;
  GError *error = NULL;

  if (path == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("Only local files can be written"));
      return;
    }
  if (!(writer = ts_trace_writer_new_for_path (path, &error)) ||
      !ts_trace_writer_attach (writer, task_data, &error) ||
      !ts_trace_writer_close (writer, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

static void
ts_window_save_done_cb (GObject      *object,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  TsWindow *self = TS_WINDOW (object);
  GFile *file = g_object_get_data (G_OBJECT (result), "ts-file");
  g_autofree char *basename = g_file_get_basename (file);
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    message = g_strdup_printf (_("Could not save “%s”: %s"), basename, error->message);
  else
    {
      message = g_strdup_printf (_("Saved “%s”"), basename);
      _ts_window_add_recent (self, file);
    }
  _ts_window_toast (self, message);
}

/* Writes what the timeline shows: the recorder of the run or the file. */
void
_ts_window_save_trace (TsWindow *self,
                       GFile    *file)
{
  g_autoptr(GTask) task = NULL;

  g_assert (TS_IS_WINDOW (self));
  g_return_if_fail (self->recorder != NULL);

  task = g_task_new (self, NULL, ts_window_save_done_cb, NULL);
  g_task_set_source_tag (task, _ts_window_save_trace);
  g_task_set_task_data (task, g_object_ref (self->recorder), g_object_unref);
  g_object_set_data_full (G_OBJECT (task), "ts-file", g_object_ref (file), g_object_unref);
  g_task_run_in_thread (task, ts_window_save_thread);
}
