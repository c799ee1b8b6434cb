/* test-workload-runner.c: TsWorkloadRunner against a fake tensorscope-cli
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <signal.h>
#include <glib/gstdio.h>

#include "ts-workload-runner.h"
#include "ts-ui-test-util.h"

#define FAKE_CLI TS_TEST_SRCDIR "/fake-tensorscope-cli.sh"
#define TRACE_SIZE (7 + 100000)

typedef struct
{
  GPtrArray *stdout_lines;
  GPtrArray *stderr_lines;
  GByteArray *trace;
  GArray *states;
  guint n_trace_signals;
  char *dir;
  GFile *script;
} Fixture;

static void
fixture_output_cb (TsWorkloadRunner *runner,
                   TsWorkloadStream  stream,
                   const char       *line,
                   Fixture          *fixture)
{
  g_ptr_array_add (stream == TS_WORKLOAD_STDOUT ? fixture->stdout_lines : fixture->stderr_lines,
                   g_strdup (line));
}

static void
fixture_trace_cb (TsWorkloadRunner *runner,
                  GBytes           *bytes,
                  Fixture          *fixture)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);

  fixture->n_trace_signals++;
  g_byte_array_append (fixture->trace, data, size);
}

static void
fixture_state_cb (TsWorkloadRunner *runner,
                  GParamSpec       *pspec,
                  Fixture          *fixture)
{
  TsWorkloadState state = ts_workload_runner_get_state (runner);

  g_array_append_val (fixture->states, state);
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autofree char *path = NULL;

  fixture->stdout_lines = g_ptr_array_new_with_free_func (g_free);
  fixture->stderr_lines = g_ptr_array_new_with_free_func (g_free);
  fixture->trace = g_byte_array_new ();
  fixture->states = g_array_new (FALSE, FALSE, sizeof (TsWorkloadState));
  fixture->dir = g_dir_make_tmp ("test-runner-XXXXXX", NULL);
  g_assert_nonnull (fixture->dir);
  path = g_build_filename (fixture->dir, "work load.py", NULL);
  g_assert_true (g_file_set_contents (path, "print('hi')\n", -1, NULL));
  fixture->script = g_file_new_for_path (path);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autofree char *path = g_file_get_path (fixture->script);

  g_unlink (path);
  g_rmdir (fixture->dir);
  g_free (fixture->dir);
  g_object_unref (fixture->script);
  g_ptr_array_unref (fixture->stdout_lines);
  g_ptr_array_unref (fixture->stderr_lines);
  g_byte_array_unref (fixture->trace);
  g_array_unref (fixture->states);
  g_unsetenv ("FAKE_CLI_MODE");
}

static TsWorkloadRunner *
fixture_runner (Fixture *fixture)
{
  TsWorkloadRunner *runner = ts_workload_runner_new ();

  ts_workload_runner_set_cli_path (runner, FAKE_CLI);
  g_signal_connect (runner, "output", G_CALLBACK (fixture_output_cb), fixture);
  g_signal_connect (runner, "trace-data", G_CALLBACK (fixture_trace_cb), fixture);
  g_signal_connect (runner, "notify::state", G_CALLBACK (fixture_state_cb), fixture);
  return runner;
}

static void
wait_for_state (TsWorkloadRunner *runner,
                TsWorkloadState   state)
{
  guint timeout = ts_ui_test_deadline (20, "the workload");

  while (ts_workload_runner_get_state (runner) != state)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout);
}

static void
wait_for_line (TsWorkloadRunner *runner,
               GPtrArray        *lines,
               const char       *line)
{
  guint timeout = ts_ui_test_deadline (20, "a line of output");

  while (lines->len == 0 || !g_str_equal (g_ptr_array_index (lines, lines->len - 1), line))
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout);
}

static void
count_notify (guint *count)
{
  (*count)++;
}

static void
test_argv (void)
{
  g_autoptr(TsWorkloadRunner) runner = ts_workload_runner_new ();
  g_auto(GStrv) plain = NULL;
  g_auto(GStrv) full = NULL;
  g_autofree char *plain_str = NULL;
  g_autofree char *full_str = NULL;

  plain = ts_workload_runner_build_argv (runner, "/bin/cli", "/tmp/a.py");
  plain_str = g_strjoinv (" ", plain);
  g_assert_cmpstr (plain_str, ==, "/bin/cli run --trace-fd 3 /tmp/a.py");

  ts_workload_runner_set_gpu_count (runner, 8);
  ts_workload_runner_set_gpu_model (runner, "gtx1080ti");
  ts_workload_runner_set_synchronous (runner, TRUE);
  ts_workload_runner_set_sanitize (runner, TRUE);
  ts_workload_runner_set_no_data (runner, TRUE);
  full = ts_workload_runner_build_argv (runner, "/bin/cli", "/tmp/a.py");
  full_str = g_strjoinv (" ", full);
  g_assert_cmpstr (full_str, ==,
                   "/bin/cli run --gpus 8 --gpu-model gtx1080ti --sync --sanitize --no-data --trace-fd 3 /tmp/a.py");
  ts_workload_runner_set_no_data (runner, FALSE);

  /* An empty model means the CLI's default. */
  ts_workload_runner_set_gpu_model (runner, "");
  g_assert_null (ts_workload_runner_get_gpu_model (runner));
}

static void
test_argv_backend (void)
{
  g_autoptr(TsWorkloadRunner) runner = ts_workload_runner_new ();
  g_auto(GStrv) sim = NULL;
  g_auto(GStrv) cuda = NULL;
  g_auto(GStrv) back = NULL;
  g_autofree char *sim_str = NULL;
  g_autofree char *cuda_str = NULL;
  g_autofree char *back_str = NULL;
  guint notified = 0;

  g_assert_null (ts_workload_runner_get_backend (runner));

  /* "sim" is passed too: $TENSORSCOPE_BACKEND must not override the window. */
  ts_workload_runner_set_gpu_count (runner, 4);
  ts_workload_runner_set_gpu_model (runner, "h100");
  ts_workload_runner_set_backend (runner, "sim");
  sim = ts_workload_runner_build_argv (runner, "/bin/cli", "/tmp/a.py");
  sim_str = g_strjoinv (" ", sim);
  g_assert_cmpstr (sim_str, ==, "/bin/cli run --gpus 4 --gpu-model h100 --backend=sim --trace-fd 3 /tmp/a.py");

  /* On the machine's GPUs the CLI refuses --gpus and --gpu-model. */
  g_object_set (runner, "backend", "cuda", NULL);
  g_assert_cmpstr (ts_workload_runner_get_backend (runner), ==, "cuda");
  ts_workload_runner_set_synchronous (runner, TRUE);
  cuda = ts_workload_runner_build_argv (runner, "/bin/cli", "/tmp/a.py");
  cuda_str = g_strjoinv (" ", cuda);
  g_assert_cmpstr (cuda_str, ==, "/bin/cli run --backend=cuda --sync --trace-fd 3 /tmp/a.py");
  /* The simulated settings are kept for when the user goes back. */
  g_assert_cmpuint (ts_workload_runner_get_gpu_count (runner), ==, 4);
  g_assert_cmpstr (ts_workload_runner_get_gpu_model (runner), ==, "h100");

  g_signal_connect_swapped (runner, "notify::backend", G_CALLBACK (count_notify), &notified);
  ts_workload_runner_set_backend (runner, "cuda");
  g_assert_cmpuint (notified, ==, 0);
  /* An empty backend means the CLI's default, like an empty model. */
  ts_workload_runner_set_backend (runner, "");
  g_assert_cmpuint (notified, ==, 1);
  g_assert_null (ts_workload_runner_get_backend (runner));
  back = ts_workload_runner_build_argv (runner, "/bin/cli", "/tmp/a.py");
  back_str = g_strjoinv (" ", back);
  g_assert_cmpstr (back_str, ==, "/bin/cli run --gpus 4 --gpu-model h100 --sync --trace-fd 3 /tmp/a.py");
}

static void
test_find_cli (void)
{
  g_autofree char *found = NULL;

  g_setenv ("TENSORSCOPE_CLI", "/opt/somewhere/tensorscope-cli", TRUE);
  found = ts_workload_runner_find_cli ();
  g_assert_cmpstr (found, ==, "/opt/somewhere/tensorscope-cli");
  g_unsetenv ("TENSORSCOPE_CLI");
}

static void
test_run_ok (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(TsWorkloadRunner) runner = fixture_runner (fixture);
  g_autoptr(GError) error = NULL;

  ts_workload_runner_set_gpu_count (runner, 2);
  ts_workload_runner_set_gpu_model (runner, "h100");
  g_assert_cmpint (ts_workload_runner_get_state (runner), ==, TS_WORKLOAD_STATE_IDLE);
  g_assert_true (ts_workload_runner_start (runner, fixture->script, &error));
  g_assert_no_error (error);
  g_assert_true (ts_workload_runner_get_running (runner));

  wait_for_state (runner, TS_WORKLOAD_STATE_FINISHED);

  g_assert_cmpuint (fixture->stdout_lines->len, ==, 4);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (fixture->stdout_lines, 0),
                                   "argv: run --gpus 2 --gpu-model h100 --trace-fd 3 "));
  g_assert_true (g_str_has_suffix (g_ptr_array_index (fixture->stdout_lines, 0), "/work load.py"));
  g_assert_cmpstr (g_ptr_array_index (fixture->stdout_lines, 1), ==, "script: work load.py");
  g_assert_cmpstr (g_ptr_array_index (fixture->stdout_lines, 2), ==, "line 1 to stdout");
  g_assert_cmpstr (g_ptr_array_index (fixture->stdout_lines, 3), ==, "line 3 to stdout");
  g_assert_cmpuint (fixture->stderr_lines->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (fixture->stderr_lines, 0), ==, "line 2 to stderr");

  g_assert_cmpuint (fixture->trace->len, ==, TRACE_SIZE);
  g_assert_cmpmem (fixture->trace->data, 7, "TSTRACE", 7);
  g_assert_cmpuint (ts_workload_runner_get_trace_size (runner), ==, TRACE_SIZE);
  /* 100007 bytes cannot come in one 64 KiB read. */
  g_assert_cmpuint (fixture->n_trace_signals, >=, 2);

  g_assert_cmpint (ts_workload_runner_get_exit_code (runner), ==, 0);
  g_assert_cmpint (ts_workload_runner_get_term_signal (runner), ==, 0);
  g_assert_false (ts_workload_runner_get_stop_requested (runner));
  g_assert_false (ts_workload_runner_get_running (runner));

  g_assert_cmpuint (fixture->states->len, ==, 2);
  g_assert_cmpint (g_array_index (fixture->states, TsWorkloadState, 0), ==, TS_WORKLOAD_STATE_RUNNING);
  g_assert_cmpint (g_array_index (fixture->states, TsWorkloadState, 1), ==, TS_WORKLOAD_STATE_FINISHED);
}

static void
test_exit_code (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(TsWorkloadRunner) runner = fixture_runner (fixture);
  g_autoptr(GError) error = NULL;

  g_setenv ("FAKE_CLI_MODE", "fail", TRUE);
  g_assert_true (ts_workload_runner_start (runner, fixture->script, &error));
  wait_for_state (runner, TS_WORKLOAD_STATE_FINISHED);

  g_assert_cmpint (ts_workload_runner_get_exit_code (runner), ==, 3);
  g_assert_cmpint (ts_workload_runner_get_term_signal (runner), ==, 0);
  g_assert_cmpuint (fixture->stderr_lines->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (fixture->stderr_lines, 2), ==, "RuntimeError: boom");
}

static void
test_many_lines (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(TsWorkloadRunner) runner = fixture_runner (fixture);
  g_autoptr(GError) error = NULL;

  g_setenv ("FAKE_CLI_MODE", "lines", TRUE);
  g_assert_true (ts_workload_runner_start (runner, fixture->script, &error));
  wait_for_state (runner, TS_WORKLOAD_STATE_FINISHED);

  /* argv, script, then 1000 lines in order. */
  g_assert_cmpuint (fixture->stdout_lines->len, ==, 1002);
  for (guint i = 0; i < 1000; i++)
    {
      g_autofree char *expected = g_strdup_printf ("line %u", i + 1);
      g_assert_cmpstr (g_ptr_array_index (fixture->stdout_lines, i + 2), ==, expected);
    }
}

static void
test_stop_term (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(TsWorkloadRunner) runner = fixture_runner (fixture);
  g_autoptr(GError) error = NULL;

  g_setenv ("FAKE_CLI_MODE", "hang", TRUE);
  g_assert_true (ts_workload_runner_start (runner, fixture->script, &error));
  wait_for_line (runner, fixture->stdout_lines, "ready");

  ts_workload_runner_stop (runner);
  g_assert_cmpint (ts_workload_runner_get_state (runner), ==, TS_WORKLOAD_STATE_STOPPING);
  g_assert_true (ts_workload_runner_get_running (runner));
  wait_for_state (runner, TS_WORKLOAD_STATE_FINISHED);

  g_assert_true (ts_workload_runner_get_stop_requested (runner));
  g_assert_cmpint (ts_workload_runner_get_term_signal (runner), ==, SIGTERM);
  g_assert_cmpint (ts_workload_runner_get_exit_code (runner), ==, -1);
}

static void
test_stop_kill (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(TsWorkloadRunner) runner = fixture_runner (fixture);
  g_autoptr(GError) error = NULL;
  gint64 begin;

  g_setenv ("FAKE_CLI_MODE", "ignore-term", TRUE);
  ts_workload_runner_set_kill_timeout (runner, 200);
  g_assert_true (ts_workload_runner_start (runner, fixture->script, &error));
  wait_for_line (runner, fixture->stdout_lines, "ready");

  begin = g_get_monotonic_time ();
  ts_workload_runner_stop (runner);
  wait_for_state (runner, TS_WORKLOAD_STATE_FINISHED);

  /* SIGTERM was ignored, so SIGKILL ended it after the timeout. */
  g_assert_cmpint (ts_workload_runner_get_term_signal (runner), ==, SIGKILL);
  g_assert_cmpint (g_get_monotonic_time () - begin, >=, 200 * 1000);
}

static void
take_stream_cb (TsWorkloadRunner  *runner,
                GParamSpec        *pspec,
                GInputStream     **taken)
{
  if (ts_workload_runner_get_state (runner) == TS_WORKLOAD_STATE_RUNNING)
    *taken = ts_workload_runner_take_trace_stream (runner);
}

static void
splice_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  gssize *spliced = user_data;
  g_autoptr(GError) error = NULL;

  *spliced = g_output_stream_splice_finish (G_OUTPUT_STREAM (object), result, &error);
  g_assert_no_error (error);
}

static void
test_take_trace_stream (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(TsWorkloadRunner) runner = fixture_runner (fixture);
  g_autoptr(GInputStream) taken = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) all = NULL;
  g_autoptr(GOutputStream) memory = NULL;
  gssize spliced = -2;

  g_signal_connect (runner, "notify::state", G_CALLBACK (take_stream_cb), &taken);
  g_assert_true (ts_workload_runner_start (runner, fixture->script, &error));
  g_assert_nonnull (taken);
  /* Only one consumer. */
  g_assert_null (ts_workload_runner_take_trace_stream (runner));

  /* The consumer must read while the workload writes: a pipe holds 64 KiB. */
  memory = g_memory_output_stream_new_resizable ();
  g_output_stream_splice_async (memory, taken, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
                                G_PRIORITY_DEFAULT, NULL, splice_done_cb, &spliced);
  wait_for_state (runner, TS_WORKLOAD_STATE_FINISHED);
  while (spliced == -2)
    g_main_context_iteration (NULL, TRUE);

  g_assert_cmpuint (fixture->n_trace_signals, ==, 0);
  g_assert_cmpuint (ts_workload_runner_get_trace_size (runner), ==, 0);
  g_assert_cmpint (spliced, ==, TRACE_SIZE);
  all = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (memory));
  g_assert_cmpmem (g_bytes_get_data (all, NULL), 7, "TSTRACE", 7);
}

static void
test_errors (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(TsWorkloadRunner) runner = fixture_runner (fixture);
  g_autoptr(GError) error = NULL;

  ts_workload_runner_set_cli_path (runner, "/nonexistent/tensorscope-cli");
  g_assert_false (ts_workload_runner_start (runner, fixture->script, &error));
  g_assert_nonnull (error);
  g_assert_cmpint (ts_workload_runner_get_state (runner), ==, TS_WORKLOAD_STATE_IDLE);
  g_clear_error (&error);

  /* A second start while running is refused. */
  g_setenv ("FAKE_CLI_MODE", "hang", TRUE);
  ts_workload_runner_set_cli_path (runner, FAKE_CLI);
  g_assert_true (ts_workload_runner_start (runner, fixture->script, &error));
  g_assert_false (ts_workload_runner_start (runner, fixture->script, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PENDING);
  ts_workload_runner_stop (runner);
  wait_for_state (runner, TS_WORKLOAD_STATE_FINISHED);

  /* And a finished runner starts again. */
  g_unsetenv ("FAKE_CLI_MODE");
  g_clear_error (&error);
  g_ptr_array_set_size (fixture->stdout_lines, 0);
  g_assert_true (ts_workload_runner_start (runner, fixture->script, &error));
  wait_for_state (runner, TS_WORKLOAD_STATE_FINISHED);
  g_assert_cmpint (ts_workload_runner_get_exit_code (runner), ==, 0);
  g_assert_false (ts_workload_runner_get_stop_requested (runner));
  g_assert_cmpuint (ts_workload_runner_get_trace_size (runner), ==, TRACE_SIZE);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/TsWorkloadRunner/argv", test_argv);
  g_test_add_func ("/TsWorkloadRunner/argv-backend", test_argv_backend);
  g_test_add_func ("/TsWorkloadRunner/find-cli", test_find_cli);
  g_test_add ("/TsWorkloadRunner/run-ok", Fixture, NULL, fixture_setup, test_run_ok, fixture_teardown);
  g_test_add ("/TsWorkloadRunner/exit-code", Fixture, NULL, fixture_setup, test_exit_code, fixture_teardown);
  g_test_add ("/TsWorkloadRunner/many-lines", Fixture, NULL, fixture_setup, test_many_lines, fixture_teardown);
  g_test_add ("/TsWorkloadRunner/stop-term", Fixture, NULL, fixture_setup, test_stop_term, fixture_teardown);
  g_test_add ("/TsWorkloadRunner/stop-kill", Fixture, NULL, fixture_setup, test_stop_kill, fixture_teardown);
  g_test_add ("/TsWorkloadRunner/take-trace-stream", Fixture, NULL, fixture_setup, test_take_trace_stream, fixture_teardown);
  g_test_add ("/TsWorkloadRunner/errors", Fixture, NULL, fixture_setup, test_errors, fixture_teardown);

  return g_test_run ();
}
