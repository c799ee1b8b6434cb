/* test-gallery-traces.c: the gallery's examples write the traces they wrote
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Virtual time makes a run deterministic, so a trace is a fingerprint of
 * everything the core did: every record, time and string. This test runs
 * each example of data/examples as `tensorscope-cli run` from the source
 * root (the trace keeps the script's path as given) and compares the trace's
 * SHA-256 with tests/data/gallery-traces.sha256, recorded before the core
 * moved into its layers. A refactoring must leave every hash as it is; a
 * change that means to alter traces regenerates the list with
 * build-aux/gallery-traces.sh and says why in its commit.
 */

#include <glib.h>
#include <glib/gstdio.h>

static char *
trace_digest (const char *example)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ts-gallery-XXXXXX", &error);
  g_autofree char *trace = NULL;
  g_autofree char *script = g_strdup_printf ("data/examples/%s.py", example);
  g_autofree char *contents = NULL;
  g_auto(GStrv) envp = g_get_environ ();
  gsize len;
  int wait_status = 0;

  g_assert_no_error (error);
  trace = g_build_filename (dir, "run.tstrace", NULL);
  {
    const char *argv[] = { TS_CLI_PATH, "run", "-o", trace, script, NULL };

    /* The examples' own settings only: nothing from the caller's shell. */
    for (const char *const *v = (const char *const[]) {
           "CUDA_VISIBLE_DEVICES", "PYTORCH_CUDA_ALLOC_CONF", "CUDA_LAUNCH_BLOCKING",
           "TORCH_CUDA_SANITIZER", "TENSORSCOPE_BACKEND", "TENSORSCOPE_NO_DATA",
           "TENSORSCOPE_HOST_MEMORY_LIMIT", "CUBLAS_WORKSPACE_CONFIG", "CUBLASLT_WORKSPACE_SIZE",
           "TORCH_CUBLASLT_UNIFIED_WORKSPACE", "DISABLE_ADDMM_CUDA_LT", NULL };
         *v != NULL; v++)
      envp = g_environ_unsetenv (envp, *v);
    g_spawn_sync (TS_SOURCE_ROOT, (char **) argv, envp, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                  NULL, NULL, NULL, NULL, &wait_status, &error);
  }
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  g_file_get_contents (trace, &contents, &len, &error);
  g_assert_no_error (error);
  g_unlink (trace);
  g_rmdir (dir);

  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, len);
}

static void
test_example (gconstpointer data)
{
  g_auto(GStrv) fields = g_strsplit (data, "  ", 2);
  g_autofree char *digest = trace_digest (fields[1]);

  g_assert_cmpstr (digest, ==, fields[0]);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *list = NULL;
  g_auto(GStrv) lines = NULL;

  g_test_init (&argc, &argv, NULL);

  g_file_get_contents (TS_TEST_SRCDIR "/data/gallery-traces.sha256", &list, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (g_strstrip (list), "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *path = NULL;
      const char *name = strstr (lines[i], "  ");

      g_assert_nonnull (name);
      path = g_strdup_printf ("/gallery-traces/%s", name + 2);
      g_test_add_data_func (path, lines[i], test_example);
    }

  return g_test_run ();
}
