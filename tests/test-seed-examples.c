/* test-seed-examples.c: every seed example and API workload prints what it must
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For each tests/workloads/{seeds,api,sim}/NAME.expected, the script NAME.py
 * (for seeds, the gallery's copy: see ts-test-workloads.h) runs under
 * `tensorscope-cli run --gpus 4` and its stdout is compared line by line. In
 * an expected line `{{*}}` matches any run of characters (random values,
 * addresses, ids); everything else must match exactly. The exit status
 * must be 0 and nothing may go to stderr, unless NAME.status says another
 * status (then stderr is free) or NAME.stderr gives what stderr must hold
 * (matched like stdout: PyTorch's own warnings, such as the FutureWarning
 * of a deprecated call, go there). NAME.env holds KEY=VALUE lines to add
 * to the environment of that run, NAME.args more arguments of `run` (one a
 * line, before the script; a later --gpus wins). sim/ holds what only the
 * simulator does, left out on the cuda backend; NAME.nohw skips one case
 * there too. NAME.gpus gives the GPUs a case needs (default 1): with
 * TS_TEST_GPUS=N (the simulator then runs --gpus N; on the cuda backend, the
 * machine's count) a case that needs more is skipped. nodata/ holds the workloads bigger than this machine that
 * only --no-data runs (their .args say so): the test-nodata-workloads row
 * runs them (TS_TEST_WORKLOAD_DIRS=nodata).
 */

#include <glib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "ts-test-workloads.h"

typedef struct
{
  char *script;
  char *expected;
} Case;

static gboolean
line_matches (const char *pattern,
              const char *line)
{
  g_auto(GStrv) parts = g_strsplit (pattern, "{{*}}", -1);
  GString *re = g_string_new ("^");
  g_autoptr(GRegex) regex = NULL;
  gboolean ok;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_autofree char *escaped = g_regex_escape_string (parts[i], -1);
      if (i > 0)
        g_string_append (re, ".*");
      g_string_append (re, escaped);
    }
  g_string_append_c (re, '$');
  regex = g_regex_new (re->str, 0, 0, NULL);
  g_string_free (re, TRUE);
  g_assert_nonnull (regex);
  ok = g_regex_match (regex, line, 0, NULL);
  return ok;
}

/* On a GPU a stream's cuda_stream is a real pointer, not the simulator's
 * reproducible one: on the cuda backend both sides show a placeholder. */
static char *
mask_handles (const char *text)
{
  g_autoptr(GRegex) regex = g_regex_new ("cuda_stream=0x(?:[0-9a-f]+|\\{\\{\\*\\}\\})", 0, 0, NULL);

  return g_regex_replace_literal (regex, text, -1, 0, "cuda_stream=<handle>", 0, NULL);
}

static void
compare_lines (const char *expected,
               const char *text)
{
  g_auto(GStrv) want = g_strsplit (expected, "\n", -1);
  g_auto(GStrv) got = g_strsplit (text, "\n", -1);
  guint n_want = g_strv_length (want);
  guint n_got = g_strv_length (got);

  for (guint i = 0; i < MIN (n_want, n_got); i++)
    {
      if (!line_matches (want[i], got[i]))
        {
          g_test_message ("line %u: expected \"%s\", got \"%s\"", i + 1, want[i], got[i]);
          g_assert_cmpstr (got[i], ==, want[i]);
        }
    }
  g_assert_cmpuint (n_got, ==, n_want);
}

/* NAME.SUFFIX beside the case's NAME.expected (newly allocated). */
static char *
case_file (const Case *c,
           const char *suffix)
{
  return g_strdup_printf ("%.*s%s", (int) (strlen (c->expected) - strlen (".expected")), c->expected, suffix);
}

/* TS_TEST_GPUS: the GPUs the cases may use (4 unless set). */
static int
test_gpus (void)
{
  const char *env = g_getenv ("TS_TEST_GPUS");
  gint64 n;

  if (env == NULL || !g_ascii_string_to_signed (env, 10, 1, 64, &n, NULL))
    return 4;
  return (int) n;
}

/* NAME.gpus: how many GPUs the case needs (1 unless it says). */
static int
case_gpus (const Case *c)
{
  g_autofree char *path = case_file (c, ".gpus");
  g_autofree char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return 1;
  return atoi (text);
}

static void
run_case (gconstpointer data)
{
  const Case *c = data;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *status_path = NULL;
  g_autofree char *status_text = NULL;
  g_autofree char *env_path = NULL;
  g_autofree char *env_text = NULL;
  g_autofree char *stderr_path = NULL;
  g_autofree char *stderr_text = NULL;
  g_auto(GStrv) envp = NULL;
  g_autoptr(GError) error = NULL;
  int wait_status = 0;
  int want_status = 0;
  g_autofree char *args_path = NULL;
  g_autofree char *args_text = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  const char *hw_argv[] = { TS_CLI_PATH, "run", "--backend=cuda", c->script, NULL };
  g_autofree char *gpus_arg = g_strdup_printf ("%d", test_gpus ());
  gboolean hardware = g_strcmp0 (g_getenv ("TS_TEST_BACKEND"), "cuda") == 0;

  g_assert_true (g_file_get_contents (c->expected, &expected, NULL, &error));
  if (case_gpus (c) > test_gpus ())
    {
      g_test_skip ("needs more GPUs than TS_TEST_GPUS");
      return;
    }
  /* NAME.nohw: a feature only the simulated devices model. */
  if (hardware)
    {
      g_autofree char *nohw_path = case_file (c, ".nohw");

      if (g_file_test (nohw_path, G_FILE_TEST_EXISTS))
        {
          g_test_skip ("simulated devices only");
          return;
        }
    }
  g_ptr_array_add (argv, (char *) TS_CLI_PATH);
  g_ptr_array_add (argv, (char *) "run");
  g_ptr_array_add (argv, (char *) "--gpus");
  g_ptr_array_add (argv, gpus_arg);
  args_path = case_file (c, ".args");
  if (g_file_get_contents (args_path, &args_text, NULL, NULL))
    {
      g_strchomp (args_text);
      for (char *line = strtok (args_text, "\n"); line != NULL; line = strtok (NULL, "\n"))
        g_ptr_array_add (argv, line);
    }
  g_ptr_array_add (argv, c->script);
  g_ptr_array_add (argv, NULL);

  /* NAME.status and NAME.env sit beside NAME.expected. */
  status_path = case_file (c, ".status");
  if (g_file_get_contents (status_path, &status_text, NULL, NULL))
    want_status = atoi (status_text);

  env_path = case_file (c, ".env");
  envp = g_get_environ ();
  if (g_file_get_contents (env_path, &env_text, NULL, NULL))
    {
      g_auto(GStrv) lines = g_strsplit (env_text, "\n", -1);
      for (guint i = 0; lines[i] != NULL; i++)
        {
          char *eq = strchr (lines[i], '=');
          if (eq == NULL)
            continue;
          *eq = '\0';
          envp = g_environ_setenv (envp, lines[i], eq + 1, TRUE);
        }
    }
  g_assert_true (g_spawn_sync (NULL, (char **) (hardware ? hw_argv : (const char **) argv->pdata), envp, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &err, &wait_status, &error));
  g_assert_no_error (error);
  stderr_path = case_file (c, ".stderr");
  if (g_file_get_contents (stderr_path, &stderr_text, NULL, NULL))
    compare_lines (stderr_text, err);
  else if (want_status == 0)
    {
      if (err[0] != '\0')
        g_test_message ("stderr: %s", err);
      g_assert_cmpstr (err, ==, "");
    }
  g_assert_true (WIFEXITED (wait_status));
  g_assert_cmpint (WEXITSTATUS (wait_status), ==, want_status);

  if (hardware)
    {
      g_autofree char *masked_expected = mask_handles (expected);
      g_autofree char *masked_out = mask_handles (out);

      compare_lines (masked_expected, masked_out);
    }
  else
    compare_lines (expected, out);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

static void
case_free (gpointer data)
{
  Case *c = data;

  g_free (c->script);
  g_free (c->expected);
  g_free (c);
}

static void
add_dir (const char *sub)
{
  g_autofree char *dir_path = g_build_filename (TS_TEST_SRCDIR, "workloads", sub, NULL);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".expected"))
      g_ptr_array_add (names, g_strndup (name, strlen (name) - strlen (".expected")));
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      const char *stem = g_ptr_array_index (names, i);
      g_autofree char *relative = g_strdup_printf ("%s/%s.py", sub, stem);
      g_autofree char *expected_name = g_strconcat (stem, ".expected", NULL);
      g_autofree char *test_path = g_strdup_printf ("/workloads/%s/%s", sub, stem);
      Case *c = g_new0 (Case, 1);

      c->script = ts_test_workload_path (relative);
      c->expected = g_build_filename (dir_path, expected_name, NULL);
      g_test_add_data_func_full (test_path, c, run_case, case_free);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_unsetenv ("CUDA_VISIBLE_DEVICES");
  /* TS_TEST_WORKLOAD_DIRS: a comma-separated list (a second suite row
   * runs nodata/ apart, so neither program comes near its timeout) */
  if (g_getenv ("TS_TEST_WORKLOAD_DIRS") != NULL)
    {
      g_auto(GStrv) dirs = g_strsplit (g_getenv ("TS_TEST_WORKLOAD_DIRS"), ",", -1);

      for (guint i = 0; dirs[i] != NULL; i++)
        add_dir (dirs[i]);
      return g_test_run ();
    }
  add_dir ("seeds");
  add_dir ("api");
  /* what only the simulator does: its devices' bytes are host memory */
  if (g_strcmp0 (g_getenv ("TS_TEST_BACKEND"), "cuda") != 0)
    add_dir ("sim");
  return g_test_run ();
}
