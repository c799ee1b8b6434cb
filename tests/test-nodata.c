/* test-nodata.c: a --no-data run records what a normal run records
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs gallery examples and test workloads twice through `tensorscope-cli
 * run`, with and without --no-data, and compares the two traces record by
 * record, field by field: the allocator's records (every block, segment
 * and stat), the kernels, copies, memsets, events, syncs, NVTX ranges, API
 * calls and counters must be the same, times included, under the race
 * sanitizer and with CUDA graphs too. Only the output records may differ:
 * printed tensors show "..." for their values.
 * (docs/no-data.md)
 */

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#include "ts-recorder.h"
#include "ts-trace-reader.h"

/* A script, and "--sanitize" for a run under the race sanitizer. */
typedef struct
{
  const char *script;
  const char *option;
} Case;

static TsRecorder *
run (const Case *c,
     gboolean    no_data,
     int        *status)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ts-nodata-XXXXXX", &error);
  g_autofree char *trace = g_build_filename (dir, "run.tstrace", NULL);
  const char *argv[8] = { TS_CLI_PATH, "run", "-o", trace };  /* NULL-padded */
  g_auto(GStrv) envp = g_get_environ ();
  g_autoptr(TsTraceReader) reader = NULL;
  TsRecorder *recorder = ts_recorder_new ();
  int wait_status = 0;
  guint n = 4;

  if (no_data)
    argv[n++] = "--no-data";
  if (c->option != NULL)
    argv[n++] = c->option;
  argv[n] = c->script;

  g_assert_no_error (error);
  for (const char *const *v = (const char *const[]) {
         "CUDA_VISIBLE_DEVICES", "PYTORCH_CUDA_ALLOC_CONF", "CUDA_LAUNCH_BLOCKING",
         "TORCH_CUDA_SANITIZER", "TENSORSCOPE_BACKEND", "TENSORSCOPE_NO_DATA",
         "TENSORSCOPE_HOST_MEMORY_LIMIT", NULL };
       *v != NULL; v++)
    envp = g_environ_unsetenv (envp, *v);
  g_assert_true (g_spawn_sync (TS_SOURCE_ROOT, (char **) argv, envp,
                               G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, NULL, NULL, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  *status = WEXITSTATUS (wait_status);
  reader = ts_trace_reader_new (recorder);
  ts_trace_reader_load_file (reader, trace, &error);
  g_assert_no_error (error);
  g_unlink (trace);
  g_rmdir (dir);
  return recorder;
}

/* A string field is an id into each trace's own string table. */
static gboolean
field_equal (TsRecorder        *a,
             TsRecorder        *b,
             const TsFieldInfo *field,
             const guint8      *ra,
             const guint8      *rb)
{
  if (field->type == TS_FIELD_STRING)
    {
      TsStringId sa, sb;

      memcpy (&sa, ra + field->offset, sizeof sa);
      memcpy (&sb, rb + field->offset, sizeof sb);
      return g_strcmp0 (ts_recorder_lookup (a, sa), ts_recorder_lookup (b, sb)) == 0;
    }
  return memcmp (ra + field->offset, rb + field->offset, field->size) == 0;
}

static void
compare_kind (TsRecorder   *normal,
              TsRecorder   *no_data,
              TsRecordKind  kind)
{
  const TsRecordInfo *info = ts_record_info (kind);
  gsize n = ts_recorder_get_count (normal, kind);

  if (ts_recorder_get_count (no_data, kind) != n)
    g_error ("%s records: %" G_GSIZE_FORMAT " in the normal run, %" G_GSIZE_FORMAT " with --no-data",
             info->name, n, ts_recorder_get_count (no_data, kind));
  for (gsize i = 0; i < n; i++)
    {
      guint8 ra[TS_RECORD_MAX_SIZE] __attribute__ ((aligned (8))) = { 0 };
      guint8 rb[TS_RECORD_MAX_SIZE] __attribute__ ((aligned (8))) = { 0 };

      g_assert_true (ts_recorder_get (normal, kind, i, ra));
      g_assert_true (ts_recorder_get (no_data, kind, i, rb));
      for (guint f = 0; f < info->n_fields; f++)
        if (!field_equal (normal, no_data, &info->fields[f], ra, rb))
          g_error ("%s record %" G_GSIZE_FORMAT ": field %s differs", info->name, i, info->fields[f].name);
    }
}

static void
test_script (gconstpointer data)
{
  const Case *c = data;
  int status_normal, status_no_data;
  g_autoptr(TsRecorder) normal = run (c, FALSE, &status_normal);
  g_autoptr(TsRecorder) no_data = run (c, TRUE, &status_no_data);

  g_assert_cmpint (status_no_data, ==, status_normal);
  if (c->option == NULL)
    g_assert_cmpint (status_normal, ==, 0);

  g_assert_cmpuint (ts_recorder_get_count (normal, TS_RECORD_ALLOC), >, 0);
  for (TsRecordKind kind = 0; kind < TS_N_RECORD_KINDS; kind++)
    if (kind != TS_RECORD_OUTPUT)
      compare_kind (normal, no_data, kind);
}

/* Settings from outside are checked: a bad value stops the run at once,
 * with a message that names the variable. */
static void
test_bad_settings (void)
{
  static const char *const settings[][2] = {
    { "TENSORSCOPE_NO_DATA", "2" },
    { "TENSORSCOPE_NO_DATA", "yes please" },
    { "TENSORSCOPE_HOST_MEMORY_LIMIT", "" },
    { "TENSORSCOPE_HOST_MEMORY_LIMIT", "0" },
    { "TENSORSCOPE_HOST_MEMORY_LIMIT", "-1" },
    { "TENSORSCOPE_HOST_MEMORY_LIMIT", "12Q" },
    { "TENSORSCOPE_HOST_MEMORY_LIMIT", "64MBs" },
    { "TENSORSCOPE_HOST_MEMORY_LIMIT", "99999999999999999999" },
    { "TENSORSCOPE_HOST_MEMORY_LIMIT", "99999999999T" },
  };
  g_autofree char *script = g_build_filename (TS_TEST_SRCDIR, "workloads", "nodata", "training_step.py", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (settings); i++)
    {
      const char *argv[] = { TS_CLI_PATH, "run", script, NULL };
      g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), settings[i][0], settings[i][1], TRUE);
      g_autofree char *err = NULL;
      g_autoptr(GError) error = NULL;
      int wait_status = 0;

      g_assert_true (g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                                   NULL, &err, &wait_status, &error));
      g_assert_no_error (error);
      g_assert_true (WIFEXITED (wait_status));
      g_assert_cmpint (WEXITSTATUS (wait_status), ==, 2);
      g_assert_nonnull (strstr (err, settings[i][0]));
    }
}

/* A real GPU's op without a device kernel computes on the host over
 * copies of its device operands: those copies are data buffers too, and
 * the launch says when they do not fit (the fake CUDA module's GPU). */
static void
test_host_fallback (void)
{
  g_autofree char *script = g_build_filename (TS_TEST_SRCDIR, "workloads", "nodata", "host_fallback.py", NULL);
  const char *argv[] = { TS_CLI_PATH, "run", "--backend=cuda", script, NULL };
  g_auto(GStrv) envp = g_get_environ ();
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  int wait_status = 0;

  if (g_getenv ("TENSORSCOPE_CUDA_MODULE") == NULL)
    {
      g_test_skip ("needs the fake CUDA module");
      return;
    }
  envp = g_environ_setenv (envp, "TENSORSCOPE_HOST_MEMORY_LIMIT", "64M", TRUE);
  envp = g_environ_setenv (envp, "TS_FAKE_CUDA_DEVICES", "1", TRUE);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                               &out, NULL, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  g_assert_cmpint (WEXITSTATUS (wait_status), ==, 0);
  g_assert_nonnull (strstr (out, "RuntimeError: not enough host memory for "));
  g_assert_nonnull (strstr (out, "the workload goes on 3"));
}

int
main (int   argc,
      char *argv[])
{
  /* scripts that read no values, relative to the source root (a
   * sanitized run may fail, with its report: the same both ways) */
  static const Case cases[] = {
    { "data/examples/copies_between_devices.py" },
    { "data/examples/fragmentation.py" },
    { "data/examples/fragmentation_expandable.py" },
    { "data/examples/memory_management.py" },
    { "data/examples/overlap_copy_compute.py" },
    { "data/examples/pinned_memory.py" },
    { "data/examples/stream_race.py" },
    { "data/examples/stream_race.py", "--sanitize" },
    { "data/examples/streams_events_api.py" },
    { "data/examples/streams_events_api.py", "--sanitize" },
    { "tests/workloads/nodata/training_step.py" },
    { "tests/workloads/nodata/graphs.py" },
    { "tests/workloads/api/cublas_workspace.py" },
  };

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/nodata/bad-settings", test_bad_settings);
  g_test_add_func ("/nodata/host-fallback", test_host_fallback);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_path_get_basename (cases[i].script);
      g_autofree char *path = g_strdup_printf ("/nodata/same-trace/%s%s", name,
                                               cases[i].option ? cases[i].option + 1 : "");

      g_test_add_data_func (path, &cases[i], test_script);
    }
  return g_test_run ();
}
