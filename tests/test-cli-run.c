/* test-cli-run.c: tensorscope-cli run as a user sees it
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

typedef struct
{
  char *out;
  char *err;
  int   status;
} RunResult;

static void
run_result_clear (RunResult *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

static gboolean
is_run_option (const char *arg)
{
  return g_str_has_prefix (arg, "--gpus") || g_str_has_prefix (arg, "--backend");
}

static void
run_cli_env (RunResult   *r,
             const char  *script,
             const char **extra,
             const char  *env)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  int wait_status = 0;

  g_auto(GStrv) envp = g_get_environ ();

  envp = g_environ_unsetenv (envp, "CUDA_VISIBLE_DEVICES");
  if (env != NULL)
    {
      g_auto(GStrv) kv = g_strsplit (env, "=", 2);
      envp = g_environ_setenv (envp, kv[0], kv[1], TRUE);
    }
  g_ptr_array_add (args, g_strdup (TS_CLI_PATH));
  g_ptr_array_add (args, g_strdup ("run"));
  /* Options of `run` come before the script; the script's after it. */
  for (guint i = 0; extra && extra[i] && is_run_option (extra[i]); i++)
    g_ptr_array_add (args, g_strdup (extra[i]));
  g_ptr_array_add (args, g_build_filename (TS_TEST_SRCDIR, "workloads", script, NULL));
  for (guint i = 0; extra && extra[i]; i++)
    if (!is_run_option (extra[i]))
      g_ptr_array_add (args, g_strdup (extra[i]));
  g_ptr_array_add (args, NULL);

  g_spawn_sync (NULL, (char **) args->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL,
                &r->out, &r->err, &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  r->status = WEXITSTATUS (wait_status);
}

static void
run_cli (RunResult   *r,
         const char  *script,
         const char **extra)
{
  run_cli_env (r, script, extra, NULL);
}

static void
test_visible_devices_note (void)
{
  RunResult r = { 0 };

  /* CUDA stops at a bad entry and so do we, but we say so on stderr. */
  run_cli_env (&r, "uses-cuda.py", NULL, "CUDA_VISIBLE_DEVICES=1,x,2");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "1\n");
  g_assert_cmpstr (r.err, ==, "tensorscope: CUDA_VISIBLE_DEVICES=1,x,2: “x” is not a device ordinal; "
                              "as in CUDA, it and every entry after it are ignored\n");
  run_result_clear (&r);

  run_cli_env (&r, "uses-cuda.py", NULL, "CUDA_VISIBLE_DEVICES=3,1");
  g_assert_cmpstr (r.out, ==, "2\n");
  g_assert_cmpstr (r.err, ==, "");
  run_result_clear (&r);
}

static void
test_gpu_count_option (void)
{
  RunResult r = { 0 };
  const char *zero[] = { "--gpus=0", NULL };
  const char *two[] = { "--gpus=2", NULL };
  const char *many[] = { "--gpus=17", NULL };

  run_cli (&r, "uses-cuda.py", zero);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.err, ==, "tensorscope: run: --gpus must be from 1 to 16\n");
  run_result_clear (&r);

  run_cli (&r, "uses-cuda.py", many);
  g_assert_cmpint (r.status, ==, 2);
  run_result_clear (&r);

  run_cli (&r, "uses-cuda.py", two);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "2\n");
  run_result_clear (&r);
}

/* --backend / TENSORSCOPE_BACKEND: a bad name or simulator options with
 * the GPU backend are usage errors; a machine without a usable GPU makes
 * the first CUDA call raise, with the reason. */
static void
test_backend_option (void)
{
  RunResult r = { 0 };
  const char *bad[] = { "--backend=tpu", NULL };
  const char *mixed[] = { "--backend=cuda", "--gpus=2", NULL };
  const char *cuda[] = { "--backend=cuda", NULL };

  run_cli (&r, "uses-cuda.py", bad);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.err, ==, "tensorscope: run: Unknown backend “tpu”: expected “sim” (the simulated "
                              "GPUs) or “cuda” (this machine's GPUs)\n");
  run_result_clear (&r);

  run_cli (&r, "uses-cuda.py", mixed);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_true (g_str_has_prefix (r.err, "tensorscope: run: --gpus and --gpu-model choose simulated GPUs"));
  run_result_clear (&r);

  run_cli_env (&r, "uses-cuda.py", cuda, "TENSORSCOPE_CUDA_MODULE=/nonexistent/libtensorscope-cuda.so");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "\nRuntimeError: Could not load the CUDA backend: /nonexistent/libtensorscope-cuda.so"));
  run_result_clear (&r);

  run_cli_env (&r, "uses-cuda.py", NULL, "TENSORSCOPE_BACKEND=quantum");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "\nValueError: Unknown backend “quantum”"));
  run_result_clear (&r);
}

/* Same workload, same trace, byte for byte: virtual time and deterministic
 * addresses leave nothing in the file that depends on the machine. */
static void
test_trace_is_deterministic (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ts-det-XXXXXX", NULL);
  g_autofree char *a = g_build_filename (dir, "a.tstrace", NULL);
  g_autofree char *b = g_build_filename (dir, "b.tstrace", NULL);
  g_autofree char *bytes_a = NULL, *bytes_b = NULL;
  gsize len_a = 0, len_b = 0;
  RunResult r = { 0 };
  const char *args_a[] = { "--gpus=2", "-o", a, NULL };
  const char *args_b[] = { "--gpus=2", "-o", b, NULL };

  for (guint i = 0; i < 2; i++)
    {
      const char * const *args = i == 0 ? args_a : args_b;
      g_autoptr(GPtrArray) argv = g_ptr_array_new ();
      g_autofree char *script = g_build_filename (TS_TEST_SRCDIR, "workloads", "uses-cuda.py", NULL);
      int wait_status = 0;

      g_ptr_array_add (argv, (gpointer) TS_CLI_PATH);
      g_ptr_array_add (argv, (gpointer) "run");
      for (guint j = 0; args[j]; j++)
        g_ptr_array_add (argv, (gpointer) args[j]);
      g_ptr_array_add (argv, script);
      g_ptr_array_add (argv, NULL);
      g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                                   &r.out, &r.err, &wait_status, NULL));
      g_assert_true (WIFEXITED (wait_status) && WEXITSTATUS (wait_status) == 0);
      run_result_clear (&r);
    }

  g_assert_true (g_file_get_contents (a, &bytes_a, &len_a, NULL));
  g_assert_true (g_file_get_contents (b, &bytes_b, &len_b, NULL));
  g_assert_cmpuint (len_a, >, 100);
  g_assert_cmpmem (bytes_a, len_a, bytes_b, len_b);
  g_unlink (a);
  g_unlink (b);
  g_rmdir (dir);
}

/* Host memory running out (here: the simulated device's bytes and a
 * kernel's staging, under an address-space limit the script sets) is an
 * exception in the workload, which goes on: the run ends normally and its
 * trace is complete. */
static void
test_host_memory_exhaustion_keeps_trace (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ts-oom-XXXXXX", NULL);
  g_autofree char *trace = g_build_filename (dir, "oom.tstrace", NULL);
  g_autofree char *script = g_build_filename (TS_TEST_SRCDIR, "workloads", "sim", "device_host_memory.py", NULL);
  const char *run_argv[] = { TS_CLI_PATH, "run", "-o", trace, script, NULL };
  const char *info_argv[] = { TS_CLI_PATH, "info", trace, NULL };
  g_autofree char *out = NULL, *err = NULL, *info = NULL;
  g_autofree char *asan = g_strconcat (g_getenv ("ASAN_OPTIONS") ? g_getenv ("ASAN_OPTIONS") : "",
                                       ":allocator_may_return_null=1", NULL);
  g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "ASAN_OPTIONS", asan, TRUE);
  int wait_status = 0;

  /* under AddressSanitizer, a failed allocation returns NULL as malloc's does */
  g_assert_true (g_spawn_sync (NULL, (char **) run_argv, envp, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &err, &wait_status, NULL));
  g_assert_true (WIFEXITED (wait_status));
  g_assert_cmpint (WEXITSTATUS (wait_status), ==, 0);
  g_assert_nonnull (strstr (out, "RuntimeError: CUDA error: out of memory"));
  g_assert_nonnull (strstr (out, "the workload goes on 3.0"));
  g_assert_true (g_spawn_sync (NULL, (char **) info_argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &info, NULL, &wait_status, NULL));
  g_assert_true (WIFEXITED (wait_status) && WEXITSTATUS (wait_status) == 0);
  g_assert_nonnull (strstr (info, "Complete:    yes"));
  g_unlink (trace);
  g_rmdir (dir);
}

static void
test_exit_status_and_args (void)
{
  RunResult r = { 0 };
  const char *args[] = { "--", "7", "--flag", "x y", NULL };

  run_cli (&r, "exit-code.py", args);
  g_assert_cmpint (r.status, ==, 7);
  /* Options after the script belong to the script, `--` is only a separator. */
  g_assert_cmpstr (r.out, ==, "args: 7 --flag x y\n");
  g_assert_cmpstr (r.err, ==, "");
  run_result_clear (&r);

  run_cli (&r, "exit-code.py", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "args: \n");
  run_result_clear (&r);
}

static void
test_uncaught_exception (void)
{
  RunResult r = { 0 };

  run_cli (&r, "raises.py", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "Traceback (most recent call last):\n"));
  g_assert_nonnull (strstr (r.err, "raises.py\", line 6, in <module>\n"));
  g_assert_nonnull (strstr (r.err, "raises.py\", line 3, in inner\n"));
  g_assert_true (g_str_has_suffix (r.err, "ValueError: boom\n"));
  run_result_clear (&r);
}

static void
test_syntax_error (void)
{
  RunResult r = { 0 };

  run_cli (&r, "syntax-error.py", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "syntax-error.py\", line 3\n"));
  g_assert_nonnull (strstr (r.err, "SyntaxError: "));
  run_result_clear (&r);
}

static void
test_torch_is_ours (void)
{
  RunResult r = { 0 };

  run_cli (&r, "imports-torch.py", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "True\n");
  run_result_clear (&r);
}

static void
test_missing_script (void)
{
  RunResult r = { 0 };

  run_cli (&r, "does-not-exist.py", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "tensorscope: Cannot read the workload script: "));
  run_result_clear (&r);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/run/exit-status-and-args", test_exit_status_and_args);
  g_test_add_func ("/cli/run/backend-option", test_backend_option);
  g_test_add_func ("/cli/run/uncaught-exception", test_uncaught_exception);
  g_test_add_func ("/cli/run/syntax-error", test_syntax_error);
  g_test_add_func ("/cli/run/torch-is-ours", test_torch_is_ours);
  g_test_add_func ("/cli/run/missing-script", test_missing_script);
  g_test_add_func ("/cli/run/visible-devices-note", test_visible_devices_note);
  g_test_add_func ("/cli/run/gpu-count-option", test_gpu_count_option);
  g_test_add_func ("/cli/run/trace-is-deterministic", test_trace_is_deterministic);
  g_test_add_func ("/cli/run/host-memory-exhaustion-keeps-trace", test_host_memory_exhaustion_keeps_trace);
  return g_test_run ();
}
