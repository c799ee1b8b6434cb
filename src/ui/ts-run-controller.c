/* ts-run-controller.c: the lifecycle of a run and of the trace it shows
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
 * A bad frame stops the reading (::trace-damaged); what came before stays.
 * At the end of the run the last records are read, the document is built
 * once more, and ::finished says so.
 *
 * Files: a .tstrace is loaded (and its document built) in a GTask thread.
 * Saving writes the recorder with the trace writer, also in a thread.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "ts-run-controller.h"
#include "ts-trace-import.h"
#include "ts-trace-reader.h"
#include "ts-trace-writer.h"
#include "ts-util-private.h"

#define REBUILD_HZ    10
#define REBUILD_RATIO 9     /* idle time per unit of rebuild time */

struct _TsRunController
{
  GObject           parent_instance;

  TsWorkloadRunner *runner;
  char             *run_dir;          /* private folder, made on first use */
  char             *run_script_path;

  /* What the last run's stderr says about its script. */
  guint             error_line;
  char             *last_stderr;

  /* The trace shown: the bytes of the run so far (empty for a file), the
   * recorder the reader feeds, and the document built from it. */
  GByteArray       *trace;
  TsRecorder       *recorder;
  TsTraceReader    *reader;
  TsTraceDocument  *document;
  gboolean          damaged;

  /* The throttled live rebuild. */
  guint             rebuild_source;
  gint64            last_rebuild;
  gint64            rebuild_usec;     /* what the last rebuild cost */
  guint64           built_records;

  GCancellable     *load_cancellable;
  TsImportFlags     import_flags;     /* for the next load */
};

G_DEFINE_FINAL_TYPE (TsRunController, ts_run_controller, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_DOCUMENT,
  N_PROPS
};

enum {
  TRACE_DAMAGED,
  FINISHED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* --- the document ---------------------------------------------------------- */

static void
set_document (TsRunController *self,
              TsTraceDocument *document)
{
  if (g_set_object (&self->document, document))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
}

static guint64
count_records (TsRunController *self)
{
  guint64 n = 0;

  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    n += ts_recorder_get_count (self->recorder, k);
  return n;
}

static void
rebuild (TsRunController *self)
{
  g_autoptr(TsTraceDocument) document = NULL;
  guint64 n;
  gint64 start;

  if (self->recorder == NULL)
    return;
  n = count_records (self);
  if (n == self->built_records && self->document != NULL)
    return;

  self->built_records = n;
  start = g_get_monotonic_time ();
  document = ts_trace_document_new (self->recorder);
  set_document (self, document);
  self->last_rebuild = g_get_monotonic_time ();
  self->rebuild_usec = self->last_rebuild - start;
  g_debug ("Rebuilt the live document: %" G_GUINT64_FORMAT " records in %.1f ms",
           n, self->rebuild_usec / 1000.0);
}

static gboolean
rebuild_cb (gpointer data)
{
  TsRunController *self = data;

  self->rebuild_source = 0;
  rebuild (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_rebuild (TsRunController *self)
{
  gint64 next, now;

  if (self->rebuild_source != 0)
    return;
  now = g_get_monotonic_time ();
  next = self->last_rebuild + MAX (G_USEC_PER_SEC / REBUILD_HZ, REBUILD_RATIO * self->rebuild_usec);
  self->rebuild_source = g_timeout_add (next > now ? (guint) ((next - now) / 1000) : 0,
                                        rebuild_cb, self);
}

/* Drops what is shown: a new run or a file replaces it. */
static void
reset_trace (TsRunController *self,
             TsRecorder      *recorder)
{
  g_byte_array_set_size (self->trace, 0);
  g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);
  g_clear_handle_id (&self->rebuild_source, g_source_remove);
  g_clear_object (&self->reader);
  g_set_object (&self->recorder, recorder);
  self->damaged = FALSE;
  self->built_records = 0;
  self->last_rebuild = 0;
  self->rebuild_usec = 0;
}

/* --- the runner ------------------------------------------------------------ */

static void
reader_failed (TsRunController *self,
               const GError    *error)
{
  g_autofree char *message = NULL;

  self->damaged = TRUE;
  message = g_strdup_printf (_("The trace is damaged, the timeline shows what came before: %s"), error->message);
  g_signal_emit (self, signals[TRACE_DAMAGED], 0, message);
}

static void
runner_trace_data_cb (TsRunController  *self,
                      GBytes           *bytes,
                      TsWorkloadRunner *runner)
{
  g_autoptr(GError) error = NULL;
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);

  g_byte_array_append (self->trace, data, size);
  if (self->reader == NULL || self->damaged)
    return;
  if (!ts_trace_reader_feed (self->reader, data, size, &error))
    reader_failed (self, error);
  schedule_rebuild (self);
}

/* Remembers where a Python traceback points inside our script: the last
 * `File "…/name.py", line N` wins, as it is the innermost frame. */
static void
scan_traceback (TsRunController *self,
                const char      *line)
{
  g_autofree char *script_base = NULL;
  const char *file;
  const char *end;
  const char *line_key;

  _ts_set_str (&self->last_stderr, line);

  if (self->run_script_path == NULL ||
      !(file = strstr (line, "File \"")) ||
      !(end = strchr (file + 6, '"')) ||
      !(line_key = strstr (end, "\", line ")))
    return;

  script_base = g_path_get_basename (self->run_script_path);
  file += 6;
  if ((gsize)(end - file) < strlen (script_base) ||
      strncmp (end - strlen (script_base), script_base, strlen (script_base)) != 0)
    return;

  self->error_line = (guint)g_ascii_strtoull (line_key + 8, NULL, 10);
}

static void
runner_output_cb (TsRunController  *self,
                  TsWorkloadStream  stream,
                  const char       *line,
                  TsWorkloadRunner *runner)
{
  if (stream == TS_WORKLOAD_STDERR)
    scan_traceback (self, line);
}

/* The run is over: read what is left, build the last document. */
static void
run_finished (TsRunController *self)
{
  g_autoptr(GError) error = NULL;

  /* Cleared while it ran: the run belongs to a script no longer shown. */
  if (self->recorder == NULL)
    return;

  if (self->reader != NULL && !self->damaged && self->trace->len > 0 &&
      !ts_trace_reader_finish (self->reader, &error))
    reader_failed (self, error);

  g_clear_handle_id (&self->rebuild_source, g_source_remove);
  self->built_records = G_MAXUINT64;   /* always rebuild */
  rebuild (self);
  g_signal_emit (self, signals[FINISHED], 0);
}

static void
runner_state_cb (TsRunController  *self,
                 GParamSpec       *pspec,
                 TsWorkloadRunner *runner)
{
  if (ts_workload_runner_get_state (runner) == TS_WORKLOAD_STATE_FINISHED)
    run_finished (self);
}

TsWorkloadRunner *
ts_run_controller_get_runner (TsRunController *self)
{
  g_return_val_if_fail (TS_IS_RUN_CONTROLLER (self), NULL);
  return self->runner;
}

char *
ts_run_controller_write_script (TsRunController  *self,
                                const char       *name,
                                const char       *text,
                                GError          **error)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (TS_IS_RUN_CONTROLLER (self), NULL);
  g_return_val_if_fail (name != NULL && text != NULL, NULL);

  if (self->run_dir == NULL &&
      !(self->run_dir = g_dir_make_tmp ("tensorscope-XXXXXX", error)))
    return NULL;

  path = g_build_filename (self->run_dir, name, NULL);
  if (!g_file_set_contents (path, text, -1, error))
    return NULL;
  return g_steal_pointer (&path);
}

gboolean
ts_run_controller_start (TsRunController  *self,
                         const char       *script_path,
                         GError          **error)
{
  g_autoptr(TsRecorder) recorder = NULL;
  g_autoptr(GFile) script = NULL;

  g_return_val_if_fail (TS_IS_RUN_CONTROLLER (self), FALSE);
  g_return_val_if_fail (script_path != NULL, FALSE);

  _ts_set_str (&self->run_script_path, script_path);
  self->error_line = 0;
  g_clear_pointer (&self->last_stderr, g_free);

  recorder = ts_recorder_new ();
  reset_trace (self, recorder);
  self->reader = ts_trace_reader_new (recorder);
  set_document (self, NULL);

  script = g_file_new_for_path (script_path);
  return ts_workload_runner_start (self->runner, script, error);
}

/* Forgets the trace shown (another script is in the editor); a run in
 * progress is stopped first, as its trace would belong to the old one. */
void
ts_run_controller_clear (TsRunController *self)
{
  g_return_if_fail (TS_IS_RUN_CONTROLLER (self));

  ts_workload_runner_stop (self->runner);
  reset_trace (self, NULL);
  self->error_line = 0;
  g_clear_pointer (&self->last_stderr, g_free);
  set_document (self, NULL);
}

void
ts_run_controller_stop (TsRunController *self)
{
  g_return_if_fail (TS_IS_RUN_CONTROLLER (self));
  ts_workload_runner_stop (self->runner);
}

/* --- what is shown --------------------------------------------------------- */

TsTraceDocument *
ts_run_controller_get_document (TsRunController *self)
{
  g_return_val_if_fail (TS_IS_RUN_CONTROLLER (self), NULL);
  return self->document;
}

TsRecorder *
ts_run_controller_get_recorder (TsRunController *self)
{
  g_return_val_if_fail (TS_IS_RUN_CONTROLLER (self), NULL);
  return self->recorder;
}

gboolean
ts_run_controller_has_trace (TsRunController *self)
{
  g_return_val_if_fail (TS_IS_RUN_CONTROLLER (self), FALSE);
  return self->recorder != NULL && count_records (self) > 0;
}

/**
 * ts_run_controller_dup_trace:
 *
 * Returns: (transfer full): the bytes of the last run's trace so far
 */
GBytes *
ts_run_controller_dup_trace (TsRunController *self)
{
  g_return_val_if_fail (TS_IS_RUN_CONTROLLER (self), NULL);
  return g_bytes_new (self->trace->data, self->trace->len);
}

gboolean
ts_run_controller_get_damaged (TsRunController *self)
{
  g_return_val_if_fail (TS_IS_RUN_CONTROLLER (self), FALSE);
  return self->damaged;
}

gboolean
ts_run_controller_get_cut_short (TsRunController *self)
{
  g_return_val_if_fail (TS_IS_RUN_CONTROLLER (self), FALSE);
  return self->reader != NULL && ts_trace_reader_get_cut_short (self->reader);
}

guint
ts_run_controller_get_error_line (TsRunController *self)
{
  g_return_val_if_fail (TS_IS_RUN_CONTROLLER (self), 0);
  return self->error_line;
}

const char *
ts_run_controller_get_last_stderr (TsRunController *self)
{
  g_return_val_if_fail (TS_IS_RUN_CONTROLLER (self), NULL);
  return self->last_stderr;
}

/* --- loading --------------------------------------------------------------- */

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

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LoadResult, load_result_free)

/* What a load thread is given: the file and how to import it. */
typedef struct
{
  GFile        *file;
  TsImportFlags flags;
} LoadRequest;

static void
load_request_free (gpointer data)
{
  LoadRequest *request = data;

  g_object_unref (request->file);
  g_free (request);
}

void
ts_run_controller_set_import_flags (TsRunController *self,
                                    TsImportFlags    flags)
{
  g_return_if_fail (TS_IS_RUN_CONTROLLER (self));

  self->import_flags = flags;
}

/* Our own trace, or what PyTorch writes: memory snapshots, profiler traces
 * and directories of per-rank traces. */
static TsRecorder *
load_any (const char     *path,
          TsImportFlags   flags,
          gboolean       *cut_short,
          GError        **error)
{
  g_autoptr(TsRecorder) recorder = NULL;
  TsImportFormat format = ts_trace_import_detect (path, error);

  if (format == TS_IMPORT_FORMAT_UNKNOWN)
    return NULL;
  if (format == TS_IMPORT_FORMAT_TENSORSCOPE)
    return ts_trace_load (path, cut_short, error);

  recorder = ts_recorder_new ();
  if (!ts_trace_import_open_with_flags (&path, 1, flags, recorder, error))
    return NULL;
  *cut_short = FALSE;
  return g_steal_pointer (&recorder);
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  LoadRequest *request = task_data;
  g_autofree char *path = g_file_get_path (request->file);
  GError *error = NULL;
  LoadResult *r;

  if (path == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("Only local files can be opened"));
      return;
    }

  r = g_new0 (LoadResult, 1);
  if (!(r->recorder = load_any (path, request->flags, &r->cut_short, &error)))
    {
      load_result_free (r);
      g_task_return_error (task, error);
      return;
    }
  r->document = ts_trace_document_new (r->recorder);
  g_task_return_pointer (task, r, (GDestroyNotify) load_result_free);
}

void
ts_run_controller_load_trace_async (TsRunController     *self,
                                    GFile               *file,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  LoadRequest *request;

  g_return_if_fail (TS_IS_RUN_CONTROLLER (self));
  g_return_if_fail (G_IS_FILE (file));

  g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);
  self->load_cancellable = g_cancellable_new ();

  task = g_task_new (self, self->load_cancellable, callback, user_data);
  g_task_set_source_tag (task, ts_run_controller_load_trace_async);
  request = g_new0 (LoadRequest, 1);
  request->file = g_object_ref (file);
  request->flags = self->import_flags;
  g_task_set_task_data (task, request, load_request_free);
  g_task_run_in_thread (task, load_thread);
}

gboolean
ts_run_controller_load_trace_finish (TsRunController  *self,
                                     GAsyncResult     *result,
                                     gboolean         *cut_short,
                                     GError          **error)
{
  g_autoptr(LoadResult) r = NULL;

  g_return_val_if_fail (TS_IS_RUN_CONTROLLER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  if (!(r = g_task_propagate_pointer (G_TASK (result), error)))
    return FALSE;

  reset_trace (self, r->recorder);
  self->built_records = count_records (self);
  set_document (self, r->document);
  if (cut_short != NULL)
    *cut_short = r->cut_short;
  return TRUE;
}

/* --- saving ---------------------------------------------------------------- */

static void
save_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  g_autofree char *path = g_file_get_path (g_object_get_data (G_OBJECT (task), "ts-file"));
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

void
ts_run_controller_save_trace_async (TsRunController     *self,
                                    GFile               *file,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (TS_IS_RUN_CONTROLLER (self));
  g_return_if_fail (G_IS_FILE (file));
  g_return_if_fail (self->recorder != NULL);

  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, ts_run_controller_save_trace_async);
  g_task_set_task_data (task, g_object_ref (self->recorder), g_object_unref);
  g_object_set_data_full (G_OBJECT (task), "ts-file", g_object_ref (file), g_object_unref);
  g_task_run_in_thread (task, save_thread);
}

gboolean
ts_run_controller_save_trace_finish (TsRunController  *self,
                                     GAsyncResult     *result,
                                     GError          **error)
{
  g_return_val_if_fail (TS_IS_RUN_CONTROLLER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* --- GObject --------------------------------------------------------------- */

static void
ts_run_controller_dispose (GObject *object)
{
  TsRunController *self = TS_RUN_CONTROLLER (object);

  if (self->runner != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->runner, self);
      ts_workload_runner_stop (self->runner);
    }
  g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);
  g_clear_handle_id (&self->rebuild_source, g_source_remove);
  g_clear_object (&self->reader);
  g_clear_object (&self->recorder);
  g_clear_object (&self->document);
  g_clear_object (&self->runner);

  G_OBJECT_CLASS (ts_run_controller_parent_class)->dispose (object);
}

/* The private folder holds at most the copy of the script. */
static void
remove_run_dir (const char *run_dir)
{
  g_autoptr(GDir) dir = g_dir_open (run_dir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)))
    {
      g_autofree char *path = g_build_filename (run_dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (run_dir);
}

static void
ts_run_controller_finalize (GObject *object)
{
  TsRunController *self = TS_RUN_CONTROLLER (object);

  if (self->run_dir != NULL)
    remove_run_dir (self->run_dir);
  g_clear_pointer (&self->run_dir, g_free);
  g_clear_pointer (&self->run_script_path, g_free);
  g_clear_pointer (&self->last_stderr, g_free);
  g_clear_pointer (&self->trace, g_byte_array_unref);

  G_OBJECT_CLASS (ts_run_controller_parent_class)->finalize (object);
}

static void
ts_run_controller_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  TsRunController *self = TS_RUN_CONTROLLER (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      g_value_set_object (value, self->document);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_run_controller_class_init (TsRunControllerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ts_run_controller_dispose;
  object_class->finalize = ts_run_controller_finalize;
  object_class->get_property = ts_run_controller_get_property;

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, TS_TYPE_TRACE_DOCUMENT,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * TsRunController::trace-damaged:
   * @message: what went wrong, for the user
   *
   * A bad frame stopped the reading of the run's trace.
   */
  signals[TRACE_DAMAGED] =
    g_signal_new ("trace-damaged", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * TsRunController::finished:
   *
   * The run ended and its last document is built.
   */
  signals[FINISHED] =
    g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
ts_run_controller_init (TsRunController *self)
{
  self->trace = g_byte_array_new ();
  self->runner = ts_workload_runner_new ();
  g_signal_connect_object (self->runner, "notify::state",
                           G_CALLBACK (runner_state_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runner, "output",
                           G_CALLBACK (runner_output_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runner, "trace-data",
                           G_CALLBACK (runner_trace_data_cb), self, G_CONNECT_SWAPPED);
}

TsRunController *
ts_run_controller_new (void)
{
  return g_object_new (TS_TYPE_RUN_CONTROLLER, NULL);
}
