/* ts-cli-run.c: `tensorscope-cli run`, the workload process
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib.h>

#include "ts-cli-private.h"
#include "ts-gpu-profile.h"
#include "ts-host-data.h"
#include "ts-op-access.h"
#include "ts-session.h"
#include "ts-trace-writer.h"
#include "ts-workload.h"

/* Where our `torch` package lives: an explicit override, the source tree
 * when running uninstalled, or the installed copy. */
static const char *
find_python_path (void)
{
  const char *env = g_getenv ("TENSORSCOPE_PYTHONPATH");

  if (env != NULL && *env != '\0')
    return env;
  if (g_file_test (TS_SOURCE_PYTHON_DIR "/torch/__init__.py", G_FILE_TEST_EXISTS))
    return TS_SOURCE_PYTHON_DIR;
  return TS_INSTALLED_PYTHON_DIR;
}

int
ts_cli_run_main (int    argc,
                 char **argv)
{
  int n_gpus = -1;   /* not given: TENSORSCOPE_GPUS or 4 */
  int trace_fd = -1;
  gboolean sync_mode = FALSE;
  gboolean sanitize = FALSE;
  gboolean no_data = FALSE;
  g_autofree char *gpu_model = NULL;
  g_autofree char *backend = NULL;
  g_autofree char *output = NULL;
  g_auto(GStrv) rest = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GOptionContext) context = NULL;
  TsWorkloadOptions options = { 0 };
  TsSessionOptions session_options = { 0 };
  g_autoptr(TsTraceWriter) writer = NULL;
  g_autofree char *known_models = ts_gpu_profile_dup_known ();
  g_autofree char *gpu_model_help = g_strdup_printf ("GPU model to simulate (%s)", known_models);
  int status = 0;
  const GOptionEntry entries[] = {
    { "gpus", 0, 0, G_OPTION_ARG_INT, &n_gpus, "Number of simulated GPUs (default 4)", "N" },
    { "gpu-model", 0, 0, G_OPTION_ARG_STRING, &gpu_model, gpu_model_help, "NAME" },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend,
      "sim: the simulated GPUs (default); cuda: this machine's GPUs ($TENSORSCOPE_BACKEND)", "NAME" },
    { "sync", 0, 0, G_OPTION_ARG_NONE, &sync_mode, "Synchronous launches, as CUDA_LAUNCH_BLOCKING=1", NULL },
    { "sanitize", 0, 0, G_OPTION_ARG_NONE, &sanitize, "Check for races between streams", NULL },
    { "no-data", 0, 0, G_OPTION_ARG_NONE, &no_data,
      "Tensors without values: shapes, memory, streams and time as usual, no kernel computed, "
      "nothing stored; what needs values fails ($TENSORSCOPE_NO_DATA=1; docs/no-data.md)", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the trace to FILE", "FILE" },
    { "trace-fd", 0, 0, G_OPTION_ARG_INT, &trace_fd, "Stream the trace to file descriptor N", "N" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest, NULL, "SCRIPT.py [-- ARGS...]" },
    { NULL }
  };

  context = g_option_context_new ("SCRIPT.py [-- ARGS...]");
  g_option_context_set_summary (context, "Run a Python workload on the simulated GPUs, or on this "
                                "machine's GPUs with --backend=cuda, and record it.\n\n"
                                "The simulated GPUs' data lives in this machine's memory, within "
                                "$TENSORSCOPE_HOST_MEMORY_LIMIT (bytes, or 512M, 8G; default: the memory "
                                "available); a workload bigger than that runs with --no-data.");
  if (!ts_cli_parse_program_args (context, entries, &argc, &argv))
    return 2;

  if (rest == NULL || rest[0] == NULL)
    {
      ts_cli_message ("run: no script given");
      return 2;
    }

  if (gpu_model != NULL && ts_gpu_profile_lookup (gpu_model) == NULL)
    {
      g_autofree char *known = ts_gpu_profile_dup_known ();
      ts_cli_message ("run: unknown GPU model “%s”; known models: %s", gpu_model, known);
      return 2;
    }
  if (backend != NULL)
    {
      gboolean hardware;

      if (!ts_session_parse_backend (backend, &hardware, &error))
        {
          ts_cli_message ("run: %s", error->message);
          return 2;
        }
      if (hardware && (n_gpus != -1 || gpu_model != NULL))
        {
          ts_cli_message ("run: --gpus and --gpu-model choose simulated GPUs; with --backend=cuda "
                          "the GPUs are this machine's (CUDA_VISIBLE_DEVICES selects them)");
          return 2;
        }
    }
  if (!ts_host_data_configure_from_env (&error))
    {
      ts_cli_message ("run: %s", error->message);
      return 2;
    }
  no_data = no_data || ts_host_data_no_data ();
  if (no_data && (backend != NULL ? g_str_equal (backend, "cuda") : ts_session_is_hardware ()))
    {
      ts_cli_message ("run: --no-data models the simulated GPUs; it cannot run on this machine's GPUs");
      return 2;
    }
  if (n_gpus == 0 || n_gpus < -1 || n_gpus > TS_RUNTIME_MAX_GPUS)
    {
      ts_cli_message ("run: --gpus must be from 1 to %d", TS_RUNTIME_MAX_GPUS);
      return 2;
    }

  session_options.n_gpus = MAX (n_gpus, 0);
  session_options.gpu_model = gpu_model;
  session_options.sync = sync_mode;
  session_options.sanitize = sanitize;
  session_options.no_data = no_data;
  session_options.backend = backend;
  ts_cli_install_activity_source ();
  ts_session_configure (&session_options);
  if (sanitize)
    ts_op_access_enable ();

  /* The writer attaches before the script starts so that a live reader
   * (--trace-fd) sees records as they happen. */
  if (output != NULL)
    writer = ts_trace_writer_new_for_path (output, &error);
  else if (trace_fd >= 0)
    writer = ts_trace_writer_new_for_fd (trace_fd, TRUE);
  if ((output != NULL || trace_fd >= 0) &&
      (writer == NULL || !ts_trace_writer_attach (writer, ts_session_get_recorder (), &error)))
    {
      ts_cli_message ("run: cannot write the trace: %s", error->message);
      return 2;
    }
  /* The file or pipe has every record, and a run without one has no
   * reader of its records after the script: either way the process keeps
   * only the newest few, so an endless run's memory stays flat (the
   * recorder grew by ~600 bytes a small op, ~170 MB/s in a tight loop, and
   * each fresh 2 MiB of it stalled the script 0.3 to 7 ms on a VM). What
   * reads records during the run holds them (torch.profiler: _trace_hold).
   * Without a file or pipe the newest are not even stored, only counted. */
  ts_recorder_set_keep_records (ts_session_get_recorder (), FALSE);
  ts_recorder_set_discard (ts_session_get_recorder (), writer == NULL);

  options.script = rest[0];
  /* A `--` right after the script only separates; drop it. */
  options.argv = (const char * const *) (rest[1] && g_str_equal (rest[1], "--") ? rest + 2 : rest + 1);
  options.python_path = find_python_path ();

  if (!ts_workload_run (&options, &status, &error))
    {
      ts_cli_message ("%s", error->message);
      status = 1;
      g_clear_error (&error);
    }

  /* Whatever way the script ended (normally, sys.exit, an exception, an
   * interrupt), the devices drain and the trace gets its footer. */
  ts_session_shutdown ();
  if (writer != NULL && !ts_trace_writer_close (writer, &error))
    {
      ts_cli_message ("run: writing the trace failed: %s", error->message);
      if (status == 0)
        status = 1;
    }

  return status;
}
