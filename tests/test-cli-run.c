/* test-cli-run.c: tensorscope-cli run as a user sees it
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <glib.h>

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

static void
run_cli (RunResult   *r,
         const char  *script,
         const char **extra)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  int wait_status = 0;

  g_ptr_array_add (args, g_strdup (TS_CLI_PATH));
  g_ptr_array_add (args, g_strdup ("run"));
  g_ptr_array_add (args, g_build_filename (TS_TEST_SRCDIR, "workloads", script, NULL));
  for (guint i = 0; extra && extra[i]; i++)
    g_ptr_array_add (args, g_strdup (extra[i]));
  g_ptr_array_add (args, NULL);

  g_spawn_sync (NULL, (char **) args->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                &r->out, &r->err, &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  r->status = WEXITSTATUS (wait_status);
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
  g_test_add_func ("/cli/run/uncaught-exception", test_uncaught_exception);
  g_test_add_func ("/cli/run/syntax-error", test_syntax_error);
  g_test_add_func ("/cli/run/torch-is-ours", test_torch_is_ours);
  g_test_add_func ("/cli/run/missing-script", test_missing_script);
  return g_test_run ();
}
