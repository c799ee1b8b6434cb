/* test-nvtx-record.c: `tensorscope-cli record` on a program using NVTX
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Records nvtx-program (built with the tests, header-only nvtx3) through
 * NVTX_INJECTION64_PATH, loads the trace and checks every NVTX record:
 * names, kinds, nesting depths, range ids, threads and order. No GPU is
 * involved: the injection library loads CUPTI only for CUDA programs.
 */

#include "config.h"

#include <glib/gstdio.h>

#include "ts-trace-reader.h"

typedef struct
{
  TsNvtxKind  kind;
  const char *message;
  gint32      depth;
  guint64     range_id;
  guint32     thread;
} Expected;

static char *
record (const char * const *program_args,
        int                *exit_status,
        char              **err)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *dir = g_dir_make_tmp ("ts-nvtx-XXXXXX", &error);
  char *trace;
  int wait_status = 0;

  g_assert_no_error (error);
  trace = g_build_filename (dir, "out.trace", NULL);
  g_ptr_array_add (argv, (char *)TS_CLI_PATH);
  g_ptr_array_add (argv, (char *)"record");
  g_ptr_array_add (argv, (char *)"-o");
  g_ptr_array_add (argv, trace);
  g_ptr_array_add (argv, (char *)"--");
  for (guint i = 0; program_args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *)program_args[i]);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, err,
                &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  *exit_status = WEXITSTATUS (wait_status);
  return trace;
}

static void
remove_trace (const char *trace)
{
  g_autofree char *dir = g_path_get_dirname (trace);

  g_unlink (trace);
  g_rmdir (dir);
}

static void
test_ranges (void)
{
  const char * const args[] = { TS_NVTX_PROGRAM, NULL };
  const Expected expected[] = {
    { TS_NVTX_PUSH, "outer", 0, 0, 0 },
    { TS_NVTX_PUSH, "middle", 1, 0, 0 },
    { TS_NVTX_PUSH, "inner", 2, 0, 0 },
    { TS_NVTX_MARK, "tick", 3, 0, 0 },
    { TS_NVTX_POP, "inner", 2, 0, 0 },
    { TS_NVTX_POP, "middle", 1, 0, 0 },
    { TS_NVTX_RANGE_START, "a", 0, 1, 0 },
    { TS_NVTX_RANGE_START, "b", 0, 2, 0 },
    { TS_NVTX_RANGE_END, "", 0, 1, 0 },
    { TS_NVTX_POP, "outer", 0, 0, 0 },
    { TS_NVTX_RANGE_END, "", 0, 2, 0 },
    { TS_NVTX_PUSH, "worker", 0, 0, 1 },
    { TS_NVTX_POP, "worker", 0, 0, 1 },
    { TS_NVTX_PUSH, "registered", 0, 0, 0 },
    { TS_NVTX_POP, "registered", 0, 0, 0 },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRecorder) recorder = NULL;
  g_autofree char *err = NULL;
  g_autofree char *trace = NULL;
  gboolean cut_short = TRUE;
  TsTime last = 0;
  int status = -1;
  gboolean seen_worker = FALSE;

  trace = record (args, &status, &err);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (err, "trace written to"));

  recorder = ts_trace_load (trace, &cut_short, &error);
  g_assert_no_error (error);
  g_assert_false (cut_short);

  g_assert_cmpuint (ts_recorder_get_count (recorder, TS_RECORD_NVTX), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      TsNvtxRecord rec;

      g_assert_true (ts_recorder_get (recorder, TS_RECORD_NVTX, i, &rec));
      g_test_message ("record %u: kind %u '%s' depth %d", i, rec.kind,
                      ts_recorder_lookup (recorder, rec.message), rec.depth);
      g_assert_cmpuint (rec.kind, ==, expected[i].kind);
      g_assert_cmpstr (ts_recorder_lookup (recorder, rec.message), ==, expected[i].message);
      g_assert_cmpint (rec.depth, ==, expected[i].depth);
      g_assert_cmpuint (rec.range_id, ==, expected[i].range_id);
      g_assert_cmpuint (rec.thread, ==, expected[i].thread);
      /* One process, one clock: times never go back. */
      g_assert_cmpint (rec.time, >=, last);
      last = rec.time;
    }

  /* Both threads announced, the worker by the name it gave itself. */
  for (gsize i = 0; i < ts_recorder_get_count (recorder, TS_RECORD_THREAD); i++)
    {
      TsThreadRecord t;

      g_assert_true (ts_recorder_get (recorder, TS_RECORD_THREAD, i, &t));
      if (t.thread == 1)
        {
          g_assert_cmpstr (ts_recorder_lookup (recorder, t.name), ==, "nvtx-worker");
          seen_worker = TRUE;
        }
    }
  g_assert_true (seen_worker);
  /* No CUDA in this program: no CUDA records. */
  g_assert_cmpuint (ts_recorder_get_count (recorder, TS_RECORD_API_CALL), ==, 0);

  remove_trace (trace);
}

/* A workload's torch.cuda.nvtx calls reach the NVTX tool attached to the
 * workload process (Nsight in real life; here a small logging tool, since
 * our own injection library can't be loaded into our own process twice). */
static void
test_workload_forwards (void)
{
  g_autofree char *script = g_build_filename (TS_TEST_SRCDIR, "workloads", "nvtx-ranges.py", NULL);
  g_autofree char *dir = g_dir_make_tmp ("ts-nvtx-fwd-XXXXXX", NULL);
  g_autofree char *log = g_build_filename (dir, "nvtx.log", NULL);
  g_autofree char *contents = NULL;
  const char *argv[] = { TS_CLI_PATH, "run", script, NULL };
  g_auto(GStrv) envp = g_get_environ ();
  g_autoptr(GError) error = NULL;
  int wait_status = 0;

  envp = g_environ_setenv (envp, "NVTX_INJECTION64_PATH", TS_NVTX_LOG_INJECT, TRUE);
  envp = g_environ_setenv (envp, "NVTX_LOG_FILE", log, TRUE);
  g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status) && WEXITSTATUS (wait_status) == 0);

  g_assert_true (g_file_get_contents (log, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==,
                   "push outer\npush inner\nmark tick\npop\npop\npush scoped\npop\n");
  g_unlink (log);
  g_rmdir (dir);
}

static void
test_exit_status (void)
{
  const char * const args[] = { TS_NVTX_PROGRAM, "7", NULL };
  g_autofree char *err = NULL;
  g_autofree char *trace = NULL;
  int status = -1;

  trace = record (args, &status, &err);
  g_assert_cmpint (status, ==, 7);
  g_assert_nonnull (strstr (err, "exited with status 7"));
  g_assert_true (g_file_test (trace, G_FILE_TEST_EXISTS));
  remove_trace (trace);
}

static void
test_no_nvtx (void)
{
  const char * const args[] = { "true", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRecorder) recorder = NULL;
  g_autofree char *err = NULL;
  g_autofree char *trace = NULL;
  int status = -1;

  trace = record (args, &status, &err);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (err, "made no CUDA or NVTX calls"));
  recorder = ts_trace_load (trace, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ts_recorder_get_count (recorder, TS_RECORD_NVTX), ==, 0);
  remove_trace (trace);
}

static void
test_missing_program (void)
{
  const char * const args[] = { "/nonexistent/program", NULL };
  g_autofree char *err = NULL;
  g_autofree char *trace = NULL;
  int status = -1;

  trace = record (args, &status, &err);
  g_assert_cmpint (status, ==, 127);
  g_assert_nonnull (strstr (err, "cannot run '/nonexistent/program': No such file or directory"));
  g_assert_false (g_file_test (trace, G_FILE_TEST_EXISTS));
  remove_trace (trace);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/record/nvtx/ranges", test_ranges);
  g_test_add_func ("/record/nvtx/exit-status", test_exit_status);
  g_test_add_func ("/record/nvtx/workload-forwards", test_workload_forwards);
  g_test_add_func ("/record/nvtx/no-nvtx", test_no_nvtx);
  g_test_add_func ("/record/missing-program", test_missing_program);
  return g_test_run ();
}
