/* ts-workload-runner.c: runs `tensorscope-cli run` and streams what it says
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The workload runs in its own process so that a crash, an endless loop or
 * a sticky device error never takes the UI down. Everything here is
 * asynchronous: stdout and stderr are read line by line, the trace pipe
 * (fd 3 in the child) chunk by chunk, and the exit status arrives through
 * g_subprocess_wait_async(). The run is FINISHED only once the process has
 * exited *and* every pipe is drained, so no output line arrives after it.
 */

#include "config.h"

#include <signal.h>
#include <unistd.h>
#include <glib/gi18n.h>
#include <glib-unix.h>
#include <gio/gunixinputstream.h>

#include "ts-util-private.h"
#include "ts-workload-runner.h"

/* Read size of the trace pipe; a pipe holds 64 KiB on Linux. */
#define TRACE_CHUNK_SIZE (64 * 1024)
/* After the process exits, how long a grandchild may keep our pipes open
 * before we stop reading them. */
#define DRAIN_TIMEOUT_MS 2000
#define DEFAULT_KILL_TIMEOUT_MS 3000

struct _TsWorkloadRunner
{
  GObject          parent_instance;

  char            *cli_path;
  char            *gpu_model;
  char            *backend;
  guint            gpu_count;
  guint            kill_timeout_ms;
  guint            synchronous : 1;
  guint            sanitize : 1;
  guint            no_data : 1;
  guint            stop_requested : 1;

  TsWorkloadState  state;
  GSubprocess     *subprocess;
  GCancellable    *cancellable;
  GInputStream    *trace_stream;
  guint            n_pending;
  guint            kill_source;
  guint            drain_source;
  int              exit_code;
  int              term_signal;
  guint64          trace_size;
};

G_DEFINE_FINAL_TYPE (TsWorkloadRunner, ts_workload_runner, G_TYPE_OBJECT)

G_DEFINE_ENUM_TYPE (TsWorkloadState, ts_workload_state,
  G_DEFINE_ENUM_VALUE (TS_WORKLOAD_STATE_IDLE, "idle"),
  G_DEFINE_ENUM_VALUE (TS_WORKLOAD_STATE_RUNNING, "running"),
  G_DEFINE_ENUM_VALUE (TS_WORKLOAD_STATE_STOPPING, "stopping"),
  G_DEFINE_ENUM_VALUE (TS_WORKLOAD_STATE_FINISHED, "finished"))

G_DEFINE_ENUM_TYPE (TsWorkloadStream, ts_workload_stream,
  G_DEFINE_ENUM_VALUE (TS_WORKLOAD_STDOUT, "stdout"),
  G_DEFINE_ENUM_VALUE (TS_WORKLOAD_STDERR, "stderr"))

enum {
  PROP_0,
  PROP_CLI_PATH,
  PROP_GPU_MODEL,
  PROP_BACKEND,
  PROP_GPU_COUNT,
  PROP_SYNCHRONOUS,
  PROP_SANITIZE,
  PROP_KILL_TIMEOUT,
  PROP_STATE,
  PROP_RUNNING,
  PROP_EXIT_CODE,
  PROP_TERM_SIGNAL,
  PROP_TRACE_SIZE,
  N_PROPS
};

enum {
  OUTPUT,
  TRACE_DATA,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
ts_workload_runner_set_state (TsWorkloadRunner *self,
                              TsWorkloadState   state)
{
  gboolean was_running = ts_workload_runner_get_running (self);

  if (self->state == state)
    return;

  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
  if (was_running != ts_workload_runner_get_running (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

static void
ts_workload_runner_pending_done (TsWorkloadRunner *self)
{
  g_assert (self->n_pending > 0);

  if (--self->n_pending > 0)
    return;

  g_clear_handle_id (&self->drain_source, g_source_remove);
  g_clear_object (&self->trace_stream);
  g_clear_object (&self->subprocess);
  ts_workload_runner_set_state (self, TS_WORKLOAD_STATE_FINISHED);
}

static void ts_workload_runner_read_line_cb (GObject      *object,
                                             GAsyncResult *result,
                                             gpointer      user_data);

static void
ts_workload_runner_read_line (TsWorkloadRunner *self,
                              GDataInputStream *stream)
{
  g_data_input_stream_read_line_async (stream,
                                       G_PRIORITY_DEFAULT,
                                       self->cancellable,
                                       ts_workload_runner_read_line_cb,
                                       g_object_ref (self));
}

static void
ts_workload_runner_read_line_cb (GObject      *object,
                                 GAsyncResult *result,
                                 gpointer      user_data)
{
  GDataInputStream *stream = G_DATA_INPUT_STREAM (object);
  g_autoptr(TsWorkloadRunner) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  g_autofree char *valid = NULL;
  TsWorkloadStream which;
  gsize len = 0;

  line = g_data_input_stream_read_line_finish (stream, result, &len, &error);
  if (line == NULL)
    {
      if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("Reading workload output failed: %s", error->message);
      ts_workload_runner_pending_done (self);
      return;
    }

  if (len > 0 && line[len - 1] == '\r')
    line[--len] = '\0';

  /* Scripts may print anything; the console wants UTF-8. */
  valid = g_utf8_make_valid (line, len);
  which = GPOINTER_TO_INT (g_object_get_data (object, "ts-workload-stream"));
  g_signal_emit (self, signals[OUTPUT], 0, which, valid);

  ts_workload_runner_read_line (self, stream);
}

static void
ts_workload_runner_watch_lines (TsWorkloadRunner *self,
                                GInputStream     *pipe,
                                TsWorkloadStream  which)
{
  g_autoptr(GDataInputStream) stream = g_data_input_stream_new (pipe);

  g_data_input_stream_set_newline_type (stream, G_DATA_STREAM_NEWLINE_TYPE_LF);
  g_object_set_data (G_OBJECT (stream), "ts-workload-stream", GINT_TO_POINTER (which));
  self->n_pending++;
  ts_workload_runner_read_line (self, stream);
}

static void
ts_workload_runner_read_trace_cb (GObject      *object,
                                  GAsyncResult *result,
                                  gpointer      user_data)
{
  GInputStream *stream = G_INPUT_STREAM (object);
  g_autoptr(TsWorkloadRunner) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;

  bytes = g_input_stream_read_bytes_finish (stream, result, &error);
  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("Reading the trace pipe failed: %s", error->message);
      ts_workload_runner_pending_done (self);
      return;
    }

  self->trace_size += g_bytes_get_size (bytes);
  g_signal_emit (self, signals[TRACE_DATA], 0, bytes);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRACE_SIZE]);

  g_input_stream_read_bytes_async (stream, TRACE_CHUNK_SIZE, G_PRIORITY_DEFAULT,
                                   self->cancellable,
                                   ts_workload_runner_read_trace_cb,
                                   g_object_ref (self));
}

static gboolean
ts_workload_runner_drain_timeout_cb (gpointer user_data)
{
  TsWorkloadRunner *self = user_data;

  /* A grandchild still holds a pipe open: stop waiting for it. */
  self->drain_source = 0;
  g_cancellable_cancel (self->cancellable);
  return G_SOURCE_REMOVE;
}

static void
ts_workload_runner_wait_cb (GObject      *object,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  GSubprocess *subprocess = G_SUBPROCESS (object);
  g_autoptr(TsWorkloadRunner) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_subprocess_wait_finish (subprocess, result, &error))
    g_debug ("Waiting for the workload failed: %s", error->message);

  g_clear_handle_id (&self->kill_source, g_source_remove);

  if (g_subprocess_get_if_exited (subprocess))
    self->exit_code = g_subprocess_get_exit_status (subprocess);
  else if (g_subprocess_get_if_signaled (subprocess))
    self->term_signal = g_subprocess_get_term_sig (subprocess);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXIT_CODE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TERM_SIGNAL]);

  if (self->n_pending > 1)
    self->drain_source = g_timeout_add (DRAIN_TIMEOUT_MS, ts_workload_runner_drain_timeout_cb, self);

  ts_workload_runner_pending_done (self);
}

static gboolean
ts_workload_runner_kill_timeout_cb (gpointer user_data)
{
  TsWorkloadRunner *self = user_data;

  self->kill_source = 0;
  if (self->subprocess != NULL)
    g_subprocess_force_exit (self->subprocess);
  return G_SOURCE_REMOVE;
}

static void
ts_workload_runner_dispose (GObject *object)
{
  TsWorkloadRunner *self = (TsWorkloadRunner *)object;

  if (self->subprocess != NULL)
    g_subprocess_force_exit (self->subprocess);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);

  g_clear_handle_id (&self->kill_source, g_source_remove);
  g_clear_handle_id (&self->drain_source, g_source_remove);
  g_clear_object (&self->subprocess);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->trace_stream);

  G_OBJECT_CLASS (ts_workload_runner_parent_class)->dispose (object);
}

static void
ts_workload_runner_finalize (GObject *object)
{
  TsWorkloadRunner *self = (TsWorkloadRunner *)object;

  g_clear_pointer (&self->cli_path, g_free);
  g_clear_pointer (&self->gpu_model, g_free);
  g_clear_pointer (&self->backend, g_free);

  G_OBJECT_CLASS (ts_workload_runner_parent_class)->finalize (object);
}

static void
ts_workload_runner_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  TsWorkloadRunner *self = TS_WORKLOAD_RUNNER (object);

  switch (prop_id)
    {
    case PROP_CLI_PATH:
      g_value_set_string (value, self->cli_path);
      break;
    case PROP_GPU_MODEL:
      g_value_set_string (value, self->gpu_model);
      break;
    case PROP_BACKEND:
      g_value_set_string (value, self->backend);
      break;
    case PROP_GPU_COUNT:
      g_value_set_uint (value, self->gpu_count);
      break;
    case PROP_SYNCHRONOUS:
      g_value_set_boolean (value, self->synchronous);
      break;
    case PROP_SANITIZE:
      g_value_set_boolean (value, self->sanitize);
      break;
    case PROP_KILL_TIMEOUT:
      g_value_set_uint (value, self->kill_timeout_ms);
      break;
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    case PROP_RUNNING:
      g_value_set_boolean (value, ts_workload_runner_get_running (self));
      break;
    case PROP_EXIT_CODE:
      g_value_set_int (value, self->exit_code);
      break;
    case PROP_TERM_SIGNAL:
      g_value_set_int (value, self->term_signal);
      break;
    case PROP_TRACE_SIZE:
      g_value_set_uint64 (value, self->trace_size);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_workload_runner_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  TsWorkloadRunner *self = TS_WORKLOAD_RUNNER (object);

  switch (prop_id)
    {
    case PROP_CLI_PATH:
      ts_workload_runner_set_cli_path (self, g_value_get_string (value));
      break;
    case PROP_GPU_MODEL:
      ts_workload_runner_set_gpu_model (self, g_value_get_string (value));
      break;
    case PROP_BACKEND:
      ts_workload_runner_set_backend (self, g_value_get_string (value));
      break;
    case PROP_GPU_COUNT:
      ts_workload_runner_set_gpu_count (self, g_value_get_uint (value));
      break;
    case PROP_SYNCHRONOUS:
      ts_workload_runner_set_synchronous (self, g_value_get_boolean (value));
      break;
    case PROP_SANITIZE:
      ts_workload_runner_set_sanitize (self, g_value_get_boolean (value));
      break;
    case PROP_KILL_TIMEOUT:
      ts_workload_runner_set_kill_timeout (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_workload_runner_class_init (TsWorkloadRunnerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ts_workload_runner_dispose;
  object_class->finalize = ts_workload_runner_finalize;
  object_class->get_property = ts_workload_runner_get_property;
  object_class->set_property = ts_workload_runner_set_property;

  /* NULL means: look for tensorscope-cli with ts_workload_runner_find_cli(). */
  properties[PROP_CLI_PATH] =
    g_param_spec_string ("cli-path", NULL, NULL, NULL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_GPU_MODEL] =
    g_param_spec_string ("gpu-model", NULL, NULL, NULL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  /* "sim" or "cuda" (this machine's GPUs); NULL lets the CLI pick. */
  properties[PROP_BACKEND] =
    g_param_spec_string ("backend", NULL, NULL, NULL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  /* 0 lets the CLI pick its default. */
  properties[PROP_GPU_COUNT] =
    g_param_spec_uint ("gpu-count", NULL, NULL, 0, 16, 0,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_SYNCHRONOUS] =
    g_param_spec_boolean ("synchronous", NULL, NULL, FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_SANITIZE] =
    g_param_spec_boolean ("sanitize", NULL, NULL, FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  /* How long Stop waits after SIGTERM before sending SIGKILL. */
  properties[PROP_KILL_TIMEOUT] =
    g_param_spec_uint ("kill-timeout", NULL, NULL, 0, G_MAXUINT, DEFAULT_KILL_TIMEOUT_MS,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL,
                       TS_TYPE_WORKLOAD_STATE, TS_WORKLOAD_STATE_IDLE,
                       (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  /* -1 until the process exits normally. */
  properties[PROP_EXIT_CODE] =
    g_param_spec_int ("exit-code", NULL, NULL, -1, 255, -1,
                      (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  /* The signal that ended the process, or 0. */
  properties[PROP_TERM_SIGNAL] =
    g_param_spec_int ("term-signal", NULL, NULL, 0, G_MAXINT, 0,
                      (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_TRACE_SIZE] =
    g_param_spec_uint64 ("trace-size", NULL, NULL, 0, G_MAXUINT64, 0,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * TsWorkloadRunner::output:
   * @stream: which pipe the line came from
   * @line: one line, UTF-8, without its newline
   */
  signals[OUTPUT] =
    g_signal_new ("output",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, TS_TYPE_WORKLOAD_STREAM, G_TYPE_STRING);

  /**
   * TsWorkloadRunner::trace-data:
   * @bytes: the next bytes of the trace, in order
   *
   * Emitted while the workload writes its trace, unless a consumer took
   * the stream with ts_workload_runner_take_trace_stream().
   */
  signals[TRACE_DATA] =
    g_signal_new ("trace-data",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_BYTES);
}

static void
ts_workload_runner_init (TsWorkloadRunner *self)
{
  self->kill_timeout_ms = DEFAULT_KILL_TIMEOUT_MS;
  self->exit_code = -1;
}

TsWorkloadRunner *
ts_workload_runner_new (void)
{
  return g_object_new (TS_TYPE_WORKLOAD_RUNNER, NULL);
}

/**
 * ts_workload_runner_find_cli:
 *
 * Looks for `tensorscope-cli`: $TENSORSCOPE_CLI, then next to the running
 * executable (installed side by side, or the uninstalled build tree where
 * the app is in src/ui/ and the CLI in src/cli/), the configured bindir,
 * and $PATH.
 *
 * Returns: (transfer full) (nullable): the path, or %NULL
 */
char *
ts_workload_runner_find_cli (void)
{
  const char *env = g_getenv ("TENSORSCOPE_CLI");
  g_autofree char *exe = NULL;
  g_autofree char *exe_dir = NULL;

  if (env != NULL && *env != '\0')
    return g_strdup (env);

  exe = g_file_read_link ("/proc/self/exe", NULL);
  if (exe != NULL)
    {
      const char *relative[] = { "tensorscope-cli", "../cli/tensorscope-cli" };

      exe_dir = g_path_get_dirname (exe);
      for (guint i = 0; i < G_N_ELEMENTS (relative); i++)
        {
          g_autofree char *path = g_build_filename (exe_dir, relative[i], NULL);

          if (g_file_test (path, G_FILE_TEST_IS_EXECUTABLE) &&
              !g_file_test (path, G_FILE_TEST_IS_DIR))
            return g_canonicalize_filename (path, NULL);
        }
    }

  if (g_file_test (TS_BINDIR "/tensorscope-cli", G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup (TS_BINDIR "/tensorscope-cli");

  return g_find_program_in_path ("tensorscope-cli");
}

const char *
ts_workload_runner_get_cli_path (TsWorkloadRunner *self)
{
  g_return_val_if_fail (TS_IS_WORKLOAD_RUNNER (self), NULL);

  return self->cli_path;
}

void
ts_workload_runner_set_cli_path (TsWorkloadRunner *self,
                                 const char       *cli_path)
{
  g_return_if_fail (TS_IS_WORKLOAD_RUNNER (self));

  if (_ts_set_str (&self->cli_path, cli_path))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CLI_PATH]);
}

const char *
ts_workload_runner_get_gpu_model (TsWorkloadRunner *self)
{
  g_return_val_if_fail (TS_IS_WORKLOAD_RUNNER (self), NULL);

  return self->gpu_model;
}

void
ts_workload_runner_set_gpu_model (TsWorkloadRunner *self,
                                  const char       *gpu_model)
{
  g_return_if_fail (TS_IS_WORKLOAD_RUNNER (self));

  if (gpu_model != NULL && *gpu_model == '\0')
    gpu_model = NULL;

  if (_ts_set_str (&self->gpu_model, gpu_model))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_GPU_MODEL]);
}

/* Whether the run goes to this machine's GPUs rather than simulated ones. */
static gboolean
ts_workload_runner_is_hardware (TsWorkloadRunner *self)
{
  return self->backend != NULL && !g_str_equal (self->backend, "sim");
}

const char *
ts_workload_runner_get_backend (TsWorkloadRunner *self)
{
  g_return_val_if_fail (TS_IS_WORKLOAD_RUNNER (self), NULL);

  return self->backend;
}

/**
 * ts_workload_runner_set_backend:
 * @self: a #TsWorkloadRunner
 * @backend: (nullable): "sim", "cuda", or %NULL for the CLI's default
 *
 * With "cuda" the workload runs on this machine's GPUs: the command line
 * then carries neither the GPU count nor the model, which the CLI refuses
 * for real devices.
 */
void
ts_workload_runner_set_backend (TsWorkloadRunner *self,
                                const char       *backend)
{
  g_return_if_fail (TS_IS_WORKLOAD_RUNNER (self));

  if (backend != NULL && *backend == '\0')
    backend = NULL;

  if (_ts_set_str (&self->backend, backend))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BACKEND]);
}

guint
ts_workload_runner_get_gpu_count (TsWorkloadRunner *self)
{
  g_return_val_if_fail (TS_IS_WORKLOAD_RUNNER (self), 0);

  return self->gpu_count;
}

void
ts_workload_runner_set_gpu_count (TsWorkloadRunner *self,
                                  guint             gpu_count)
{
  g_return_if_fail (TS_IS_WORKLOAD_RUNNER (self));
  g_return_if_fail (gpu_count <= 16);

  if (self->gpu_count != gpu_count)
    {
      self->gpu_count = gpu_count;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_GPU_COUNT]);
    }
}

gboolean
ts_workload_runner_get_synchronous (TsWorkloadRunner *self)
{
  g_return_val_if_fail (TS_IS_WORKLOAD_RUNNER (self), FALSE);

  return self->synchronous;
}

void
ts_workload_runner_set_synchronous (TsWorkloadRunner *self,
                                    gboolean          synchronous)
{
  g_return_if_fail (TS_IS_WORKLOAD_RUNNER (self));

  synchronous = !!synchronous;
  if (self->synchronous != synchronous)
    {
      self->synchronous = synchronous;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SYNCHRONOUS]);
    }
}

gboolean
ts_workload_runner_get_sanitize (TsWorkloadRunner *self)
{
  g_return_val_if_fail (TS_IS_WORKLOAD_RUNNER (self), FALSE);

  return self->sanitize;
}

void
ts_workload_runner_set_sanitize (TsWorkloadRunner *self,
                                 gboolean          sanitize)
{
  g_return_if_fail (TS_IS_WORKLOAD_RUNNER (self));

  sanitize = !!sanitize;
  if (self->sanitize != sanitize)
    {
      self->sanitize = sanitize;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SANITIZE]);
    }
}

/* --no-data (docs/no-data.md): tensors without values, for workloads
 * bigger than this machine. Read at the next start, as the others. */
void
ts_workload_runner_set_no_data (TsWorkloadRunner *self,
                                gboolean          no_data)
{
  g_return_if_fail (TS_IS_WORKLOAD_RUNNER (self));

  self->no_data = !!no_data;
}

guint
ts_workload_runner_get_kill_timeout (TsWorkloadRunner *self)
{
  g_return_val_if_fail (TS_IS_WORKLOAD_RUNNER (self), 0);

  return self->kill_timeout_ms;
}

void
ts_workload_runner_set_kill_timeout (TsWorkloadRunner *self,
                                     guint             kill_timeout_ms)
{
  g_return_if_fail (TS_IS_WORKLOAD_RUNNER (self));

  if (self->kill_timeout_ms != kill_timeout_ms)
    {
      self->kill_timeout_ms = kill_timeout_ms;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_KILL_TIMEOUT]);
    }
}

/**
 * ts_workload_runner_build_argv:
 * @self: a #TsWorkloadRunner
 * @cli_path: the tensorscope-cli executable
 * @script_path: the workload script
 *
 * The command line of a run with the current settings:
 * `tensorscope-cli run [--gpus N] [--gpu-model NAME] [--backend=NAME] [--sync]
 * [--sanitize] [--no-data] --trace-fd 3 SCRIPT.py`. Options go before the script:
 * everything after it belongs to the script. A backend set is always
 * passed, "sim" included, so that $TENSORSCOPE_BACKEND in our environment
 * cannot turn a simulated run into a real one; on "cuda" the devices are
 * the machine's, and the count and model are left out.
 *
 * Returns: (transfer full): a %NULL-terminated argv
 */
char **
ts_workload_runner_build_argv (TsWorkloadRunner *self,
                               const char       *cli_path,
                               const char       *script_path)
{
  g_autoptr(GStrvBuilder) builder = NULL;
  g_autofree char *gpus = NULL;
  g_autofree char *backend = NULL;

  g_return_val_if_fail (TS_IS_WORKLOAD_RUNNER (self), NULL);
  g_return_val_if_fail (cli_path != NULL, NULL);
  g_return_val_if_fail (script_path != NULL, NULL);

  builder = g_strv_builder_new ();
  g_strv_builder_add_many (builder, cli_path, "run", NULL);
  if (self->gpu_count > 0 && !ts_workload_runner_is_hardware (self))
    {
      gpus = g_strdup_printf ("%u", self->gpu_count);
      g_strv_builder_add_many (builder, "--gpus", gpus, NULL);
    }
  if (self->gpu_model != NULL && !ts_workload_runner_is_hardware (self))
    g_strv_builder_add_many (builder, "--gpu-model", self->gpu_model, NULL);
  if (self->backend != NULL)
    {
      backend = g_strconcat ("--backend=", self->backend, NULL);
      g_strv_builder_add (builder, backend);
    }
  if (self->synchronous)
    g_strv_builder_add (builder, "--sync");
  if (self->sanitize)
    g_strv_builder_add (builder, "--sanitize");
  if (self->no_data)
    g_strv_builder_add (builder, "--no-data");
  g_strv_builder_add_many (builder, "--trace-fd", G_STRINGIFY (TS_WORKLOAD_TRACE_FD), NULL);
  g_strv_builder_add (builder, script_path);

  return g_strv_builder_end (builder);
}

static GSubprocess *
ts_workload_runner_spawn (TsWorkloadRunner  *self,
                          const char        *script_path,
                          GInputStream     **trace_stream,
                          GError           **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) subprocess = NULL;
  g_autofree char *cli = NULL;
  g_autofree char *cwd = NULL;
  g_auto(GStrv) argv = NULL;
  int fds[2];

  cli = self->cli_path != NULL ? g_strdup (self->cli_path) : ts_workload_runner_find_cli ();
  if (cli == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           _("tensorscope-cli was not found next to the application. "
                             "Build it, or set TENSORSCOPE_CLI to its path."));
      return NULL;
    }

  if (!g_unix_open_pipe (fds, FD_CLOEXEC, error))
    return NULL;

  argv = ts_workload_runner_build_argv (self, cli, script_path);
  cwd = g_path_get_dirname (script_path);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                        G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  /* Line by line output needs an unbuffered interpreter. */
  g_subprocess_launcher_setenv (launcher, "PYTHONUNBUFFERED", "1", TRUE);
  g_subprocess_launcher_set_cwd (launcher, cwd);
  g_subprocess_launcher_take_fd (launcher, fds[1], TS_WORKLOAD_TRACE_FD);

  subprocess = g_subprocess_launcher_spawnv (launcher, (const char * const *)argv, error);
  /* Our copy of the write end must go, or the pipe never reaches EOF. */
  g_subprocess_launcher_close (launcher);

  if (subprocess == NULL)
    {
      close (fds[0]);
      return NULL;
    }

  *trace_stream = g_unix_input_stream_new (fds[0], TRUE);
  return g_steal_pointer (&subprocess);
}

/**
 * ts_workload_runner_start:
 * @self: a #TsWorkloadRunner
 * @script: the workload script, a local file
 * @error: a location for a #GError
 *
 * Starts the workload and returns at once. Output arrives through
 * #TsWorkloadRunner::output and #TsWorkloadRunner::trace-data; the run is
 * over when #TsWorkloadRunner:state becomes %TS_WORKLOAD_STATE_FINISHED.
 *
 * A consumer that wants the trace as a #GInputStream calls
 * ts_workload_runner_take_trace_stream() from a notify::state handler
 * when the state becomes %TS_WORKLOAD_STATE_RUNNING.
 *
 * Returns: %TRUE if the process was started
 */
gboolean
ts_workload_runner_start (TsWorkloadRunner  *self,
                          GFile             *script,
                          GError           **error)
{
  g_autoptr(GSubprocess) subprocess = NULL;
  g_autoptr(GInputStream) trace_stream = NULL;
  g_autofree char *script_path = NULL;
  GOutputStream *stdin_pipe;

  g_return_val_if_fail (TS_IS_WORKLOAD_RUNNER (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (script), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (ts_workload_runner_get_running (self))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PENDING,
                           _("A workload is already running"));
      return FALSE;
    }

  script_path = g_file_get_path (script);
  if (script_path == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("Only local scripts can be run"));
      return FALSE;
    }

  if (!(subprocess = ts_workload_runner_spawn (self, script_path, &trace_stream, error)))
    return FALSE;

  /* Scripts that read stdin get end-of-file instead of hanging. */
  stdin_pipe = g_subprocess_get_stdin_pipe (subprocess);
  g_output_stream_close (stdin_pipe, NULL, NULL);

  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  g_set_object (&self->subprocess, subprocess);
  g_set_object (&self->trace_stream, trace_stream);
  self->stop_requested = FALSE;
  self->exit_code = -1;
  self->term_signal = 0;
  self->trace_size = 0;
  self->n_pending = 1; /* the process itself */

  g_subprocess_wait_async (subprocess, NULL,
                           ts_workload_runner_wait_cb,
                           g_object_ref (self));
  ts_workload_runner_watch_lines (self, g_subprocess_get_stdout_pipe (subprocess), TS_WORKLOAD_STDOUT);
  ts_workload_runner_watch_lines (self, g_subprocess_get_stderr_pipe (subprocess), TS_WORKLOAD_STDERR);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXIT_CODE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TERM_SIGNAL]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRACE_SIZE]);
  ts_workload_runner_set_state (self, TS_WORKLOAD_STATE_RUNNING);

  /* Nobody took the trace stream in notify::state: read it ourselves. */
  if (self->trace_stream != NULL)
    {
      self->n_pending++;
      g_input_stream_read_bytes_async (self->trace_stream, TRACE_CHUNK_SIZE, G_PRIORITY_DEFAULT,
                                       self->cancellable,
                                       ts_workload_runner_read_trace_cb,
                                       g_object_ref (self));
    }

  return TRUE;
}

/**
 * ts_workload_runner_stop:
 * @self: a #TsWorkloadRunner
 *
 * Asks the workload to end with SIGTERM, and kills it with SIGKILL if it
 * is still there after #TsWorkloadRunner:kill-timeout milliseconds.
 */
void
ts_workload_runner_stop (TsWorkloadRunner *self)
{
  g_return_if_fail (TS_IS_WORKLOAD_RUNNER (self));

  if (self->state != TS_WORKLOAD_STATE_RUNNING || self->subprocess == NULL)
    return;

  self->stop_requested = TRUE;
  ts_workload_runner_set_state (self, TS_WORKLOAD_STATE_STOPPING);
  g_subprocess_send_signal (self->subprocess, SIGTERM);
  self->kill_source = g_timeout_add (self->kill_timeout_ms,
                                     ts_workload_runner_kill_timeout_cb,
                                     self);
}

/**
 * ts_workload_runner_take_trace_stream:
 * @self: a #TsWorkloadRunner
 *
 * Hands the read end of the trace pipe to the caller, who then reads it
 * (the trace document's live loader); #TsWorkloadRunner::trace-data is not
 * emitted for this run. Only possible from a notify::state handler as the
 * run starts.
 *
 * Returns: (transfer full) (nullable): the stream, or %NULL if it is
 *   already being read
 */
GInputStream *
ts_workload_runner_take_trace_stream (TsWorkloadRunner *self)
{
  g_return_val_if_fail (TS_IS_WORKLOAD_RUNNER (self), NULL);

  if (self->trace_stream == NULL || g_input_stream_has_pending (self->trace_stream))
    return NULL;

  return g_steal_pointer (&self->trace_stream);
}

TsWorkloadState
ts_workload_runner_get_state (TsWorkloadRunner *self)
{
  g_return_val_if_fail (TS_IS_WORKLOAD_RUNNER (self), TS_WORKLOAD_STATE_IDLE);

  return self->state;
}

gboolean
ts_workload_runner_get_running (TsWorkloadRunner *self)
{
  g_return_val_if_fail (TS_IS_WORKLOAD_RUNNER (self), FALSE);

  return self->state == TS_WORKLOAD_STATE_RUNNING ||
         self->state == TS_WORKLOAD_STATE_STOPPING;
}

gboolean
ts_workload_runner_get_stop_requested (TsWorkloadRunner *self)
{
  g_return_val_if_fail (TS_IS_WORKLOAD_RUNNER (self), FALSE);

  return self->stop_requested;
}

int
ts_workload_runner_get_exit_code (TsWorkloadRunner *self)
{
  g_return_val_if_fail (TS_IS_WORKLOAD_RUNNER (self), -1);

  return self->exit_code;
}

int
ts_workload_runner_get_term_signal (TsWorkloadRunner *self)
{
  g_return_val_if_fail (TS_IS_WORKLOAD_RUNNER (self), 0);

  return self->term_signal;
}

guint64
ts_workload_runner_get_trace_size (TsWorkloadRunner *self)
{
  g_return_val_if_fail (TS_IS_WORKLOAD_RUNNER (self), 0);

  return self->trace_size;
}
