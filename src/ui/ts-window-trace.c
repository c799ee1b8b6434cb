/* ts-window-trace.c: where the window meets the trace viewer
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The run controller (ts-run-controller.c) reads the trace of a run as it
 * streams in and rebuilds its document a few times a second; here the
 * window shows each document in its TsTraceView, says when the trace is
 * damaged, and at the end of a run zooms to fit and marks the lines the
 * trace blames in the editor. Opening and saving .tstrace files go through
 * the controller too, in threads.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ts-trace-describe.h"
#include "ts-trace-import.h"
#include "ts-window-private.h"

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
      ts_trace_view_bind_settings (self->trace_view, self->settings);
      g_signal_connect_object (self->trace_view, "goto-source",
                               G_CALLBACK (ts_window_goto_source_cb), self, G_CONNECT_SWAPPED);
      ts_window_set_timeline (self, GTK_WIDGET (self->trace_view));
      _ts_window_memory_attach_timeline (self, ts_trace_view_get_timeline (self->trace_view));
    }
  return self->trace_view;
}

static void
ts_window_document_cb (TsWindow *self)
{
  ts_trace_view_set_document (ts_window_ensure_view (self), ts_run_controller_get_document (self->run));
  _ts_window_update_actions (self);
}

static void
ts_window_trace_damaged_cb (TsWindow   *self,
                            const char *message)
{
  _ts_window_toast (self, message);
  if (self->trace_view != NULL)
    ts_trace_view_set_status (self->trace_view, message);
}

static void
ts_window_set_import_flags (TsWindow *self)
{
  gboolean align = g_settings_get_boolean (self->settings, "align-rank-clocks");

  ts_run_controller_set_import_flags (self->run, align ? TS_IMPORT_FLAGS_NONE : TS_IMPORT_NO_CLOCK_ALIGN);
}

/* The toggle applies to the per-rank traces shown now: they are read
 * again with it. */
static void
ts_window_align_clocks_changed_cb (TsWindow *self)
{
  g_autoptr(GFile) file = NULL;

  if (self->opened_trace == NULL || ts_workload_runner_get_running (ts_run_controller_get_runner (self->run)))
    return;
  file = g_object_ref (self->opened_trace);
  ts_window_open_trace (self, file);
}

void
_ts_window_trace_init (TsWindow *self)
{
  g_signal_connect_object (self->run, "notify::document",
                           G_CALLBACK (ts_window_document_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->run, "trace-damaged",
                           G_CALLBACK (ts_window_trace_damaged_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::align-rank-clocks",
                           G_CALLBACK (ts_window_align_clocks_changed_cb), self, G_CONNECT_SWAPPED);
}

/* A selection belongs to the trace it was made on: a new run or file
 * starts without one (the folded groups stay, by title). */
static void
ts_window_forget_selection (TsWindow *self)
{
  TsTimeline *timeline = ts_trace_view_get_timeline (self->trace_view);

  ts_timeline_set_selected_range (timeline, 0, 0);
  ts_timeline_unselect_item (timeline);
}

/* Whether any stream ran anything: a run that failed in Python before its
 * first launch leaves an empty timeline, which says nothing. */
static gboolean
ts_window_has_device_work (TsTraceDocument *document)
{
  guint n = document != NULL ? ts_trace_document_get_n_tracks (document) : 0;

  for (guint i = 0; i < n; i++)
    {
      const TsTrack *t = ts_trace_document_get_track (document, i);

      if (t->kind == TS_TRACK_STREAM && t->n_items > 0)
        return TRUE;
    }
  return FALSE;
}

/* In place of an empty timeline: why it is empty. */
static void
ts_window_show_no_device_work (TsWindow *self)
{
  const char *last = ts_run_controller_get_last_stderr (self->run);
  g_autofree char *description = NULL;

  if (last != NULL && *last != '\0')
    /* Translators: %s is the last line the workload wrote to stderr */
    description = g_strdup_printf (_("The workload ended before it ran anything on a GPU:\n%s"), last);
  else
    description = g_strdup (_("The workload ended before it ran anything on a GPU. Its output says what it did."));
  adw_status_page_set_title (self->timeline_placeholder, _("No GPU Work Recorded"));
  adw_status_page_set_description (self->timeline_placeholder, description);
  gtk_stack_set_visible_child_name (self->timeline_stack, "empty");
}

void
_ts_window_trace_begin (TsWindow *self)
{
  g_assert (TS_IS_WINDOW (self));

  ts_window_ensure_view (self);
  ts_window_forget_selection (self);
  g_clear_object (&self->opened_trace);   /* a run replaces the file shown */
  gtk_stack_set_visible_child_name (self->timeline_stack, "timeline");
  ts_trace_view_set_document (self->trace_view, NULL);
  ts_trace_view_set_status (self->trace_view, _("Live"));
  ts_timeline_set_follow (ts_trace_view_get_timeline (self->trace_view), TRUE);
  _ts_window_update_actions (self);
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
  file = loc->file != 0 ? ts_recorder_lookup (ts_run_controller_get_recorder (self->run), loc->file) : NULL;
  if (file == NULL || *file == '\0' || self->script_name == NULL)
    return TRUE;
  base = g_path_get_basename (file);
  return g_str_equal (base, self->script_name);
}

static void
ts_window_mark_hazards (TsWindow   *self,
                        TsRecorder *rec)
{
  TsTraceDocument *document = ts_run_controller_get_document (self->run);
  const TsHazard *hazards;
  guint n;

  if (document == NULL)
    return;
  hazards = ts_trace_document_get_hazards (document, &n);
  for (guint i = 0; i < n; i++)
    {
      const TsHazard *h = &hazards[i];
      g_autofree char *why = ts_hazard_explain (h, rec);

      if (ts_window_loc_in_editor (self, &h->current.loc))
        ts_editor_mark_line (self->editor, h->current.loc.line, TS_EDITOR_MARK_RACE, why);
      if (ts_window_loc_in_editor (self, &h->previous.loc) && h->previous.loc.line != h->current.loc.line)
        ts_editor_mark_line (self->editor, h->previous.loc.line, TS_EDITOR_MARK_RACE, why);
    }
}

/* Marks the lines the trace blames: where a failed kernel was launched and
 * where its error surfaced; both sides of each race. After a run and when
 * a trace file is opened (then only lines of the script in the editor). */
static void
ts_window_mark_problems (TsWindow *self)
{
  TsRecorder *rec = ts_run_controller_get_recorder (self->run);
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
      g_autofree char *report = NULL;

      ts_recorder_get (rec, TS_RECORD_SANITIZER, i, &r);
      report = ts_trace_name_streams (rec, r.report != 0 ? ts_recorder_lookup (rec, r.report)
                                                         : _("A data race between streams"));
      if (ts_window_loc_in_editor (self, &r.loc))
        ts_editor_mark_line (self->editor, r.loc.line, TS_EDITOR_MARK_RACE, report);
      if (ts_window_loc_in_editor (self, &r.prev_loc) && r.prev_loc.line != r.loc.line)
        ts_editor_mark_line (self->editor, r.prev_loc.line, TS_EDITOR_MARK_RACE, report);
    }
  /* without the sanitizer, the hazards of the trace's access records */
  if (n == 0)
    ts_window_mark_hazards (self, rec);
}

/* After the controller built the run's last document. */
void
_ts_window_trace_end (TsWindow *self)
{
  TsTimeline *timeline;

  g_assert (TS_IS_WINDOW (self));

  if (ts_run_controller_get_recorder (self->run) != NULL && self->trace_view != NULL)
    {
      timeline = ts_trace_view_get_timeline (self->trace_view);
      ts_timeline_set_follow (timeline, FALSE);
      ts_timeline_zoom_to_fit (timeline);
      if (ts_run_controller_get_damaged (self->run))
        ;  /* the status says what went wrong */
      else if (ts_run_controller_get_cut_short (self->run))
        ts_trace_view_set_status (self->trace_view, _("Cut short: the run ended before its trace did"));
      else
        ts_trace_view_set_status (self->trace_view, self->script_name);
      ts_window_mark_problems (self);
    }
  if (!ts_window_has_device_work (ts_run_controller_get_document (self->run)))
    ts_window_show_no_device_work (self);

  _ts_window_update_actions (self);
}

/* --- opening files --------------------------------------------------------- */

/* What an import of PyTorch's files guessed or changed (ranks moved onto
 * one clock, blocks from before recording, ...) goes to the console; a
 * rank whose times were shifted also gets a toast, since every
 * cross-rank comparison on screen depends on it. */
static void
ts_window_show_import_notes (TsWindow *self)
{
  TsRecorder *recorder = ts_run_controller_get_recorder (self->run);
  g_autoptr(GPtrArray) notes = NULL;
  gboolean shifted = FALSE;

  if (recorder == NULL)
    return;
  notes = ts_trace_import_get_notes (recorder);
  for (guint i = 0; i < notes->len; i++)
    {
      const char *note = notes->pdata[i];

      ts_console_append_line (self->console, TS_CONSOLE_INFO, note);
      shifted |= g_str_has_prefix (note, TS_IMPORT_CLOCK_NOTE "rank ") && strstr (note, " shifted by ") != NULL;
    }
  if (shifted)
    _ts_window_toast (self, _("The ranks’ clocks disagreed: ranks were shifted onto one clock from their "
                              "collectives (the console says by how much; the main menu’s “Align Ranks’ "
                              "Clocks” turns it off)"));
}

static void
ts_window_load_done_cb (GObject      *object,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  g_autoptr(TsWindowFileOp) op = user_data;
  TsWindow *self = op->self;
  g_autoptr(GError) error = NULL;
  g_autofree char *basename = g_file_get_basename (op->file);
  g_autofree char *status = NULL;
  gboolean cut_short = FALSE;

  /* A closed window's controller cancels its load. */
  if (!ts_run_controller_load_trace_finish (TS_RUN_CONTROLLER (object), result, &cut_short, &error))
    {
      g_autofree char *message = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      message = g_strdup_printf (_("Could not open “%s”: %s"), basename, error->message);
      _ts_window_toast (self, message);
      ts_console_append_line (self->console, TS_CONSOLE_STDERR, message);
      return;
    }

  /* The document is shown already (notify::document). */
  gtk_stack_set_visible_child_name (self->timeline_stack, "timeline");
  _ts_window_focus_timeline (self, FALSE);
  /* The title names what is shown: the file, not the script in the editor. */
  adw_window_title_set_subtitle (self->window_title, basename);
  ts_timeline_zoom_to_fit (ts_trace_view_get_timeline (self->trace_view));
  status = cut_short
           ? g_strdup_printf (_("%s (cut short: the run ended before its trace did)"), basename)
           : g_strdup (basename);
  ts_trace_view_set_status (self->trace_view, status);
  if (cut_short)
    _ts_window_toast (self, _("This trace was cut short; it shows what was recorded"));
  ts_window_show_import_notes (self);
  ts_editor_clear_marks (self->editor);
  ts_window_mark_problems (self);
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
  g_return_if_fail (TS_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  _ts_window_add_recent (self, file);
  if (self->trace_view != NULL)
    ts_window_forget_selection (self);
  g_set_object (&self->opened_trace, file);
  ts_window_set_import_flags (self);
  ts_run_controller_load_trace_async (self->run, file, ts_window_load_done_cb, _ts_window_file_op_new (self, file));
}

/* --- saving ---------------------------------------------------------------- */

static void
ts_window_save_done_cb (GObject      *object,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  g_autoptr(TsWindowFileOp) op = user_data;
  g_autoptr(GError) error = NULL;

  ts_run_controller_save_trace_finish (TS_RUN_CONTROLLER (object), result, &error);
  _ts_window_saved (op->self, op->file, error);
}

/* Writes what the timeline shows: the recorder of the run or the file. */
void
_ts_window_save_trace (TsWindow *self,
                       GFile    *file)
{
  g_assert (TS_IS_WINDOW (self));
  g_return_if_fail (ts_run_controller_get_recorder (self->run) != NULL);

  ts_run_controller_save_trace_async (self->run, file, ts_window_save_done_cb, _ts_window_file_op_new (self, file));
}
