/* test-debug.c: asynchronous errors, the synchronous mode and the sanitizer,
 * end to end through `tensorscope-cli run`
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each case runs a script of tests/workloads with some options and compares
 * its stdout with STEM.expected and its stderr with STEM.stderr (empty when
 * there is no such file), line by line; `{{*}}` in an expected line matches
 * any run of characters (pointers, stream handles, the checkout's path).
 * The trace cases write the trace (-o) and read back the error and race
 * records: where the kernel was launched and where the error surfaced.
 */

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#include "ts-hazards.h"
#include "ts-record.h"
#include "ts-recorder.h"
#include "ts-trace-reader.h"
#include "ts-test-workloads.h"

typedef struct
{
  const char *path;      /* test path */
  const char *script;    /* under tests/workloads */
  const char *option;    /* one CLI option, or NULL */
  const char *env;       /* KEY=VALUE, or NULL */
  const char *stem;      /* expected files, under tests/workloads */
  int         status;
} Case;

/* Only for the agreement test: the allocator's reuse without record_stream
 * (the sanitizer's own addition to CSAN), and the same with it. */
static const Case reuse_cases[] = {
  { "/debug/hazards/agree/reuse", "debug/race_reuse.py", "--sanitize", NULL, NULL, 1 },
  { "/debug/hazards/agree/reuse-record-stream", "debug/race_reuse_fixed.py", "--sanitize", NULL, NULL, 0 },
};

static const Case cases[] = {
  { "/debug/sanitize/seed-04-race", "seeds/04_stream_race.py", "--sanitize", NULL, "debug/04_stream_race.sanitize", 1 },
  { "/debug/sanitize/seed-05-fixed", "seeds/05_stream_race_fixed.py", "--sanitize", NULL, "seeds/05_stream_race_fixed", 0 },
  { "/debug/sanitize/env-variable", "seeds/04_stream_race.py", NULL, "TORCH_CUDA_SANITIZER=1", "debug/04_stream_race.sanitize", 1 },
  { "/debug/sanitize/off", "seeds/04_stream_race.py", NULL, NULL, "seeds/04_stream_race", 0 },
  { "/debug/sanitize/event-wait", "debug/sync_event_wait.py", "--sanitize", NULL, "debug/sync_ok", 0 },
  { "/debug/sanitize/wait-stream", "debug/sync_wait_stream.py", "--sanitize", NULL, "debug/sync_ok", 0 },
  { "/debug/sanitize/stream-synchronize", "debug/sync_stream_synchronize.py", "--sanitize", NULL, "debug/sync_ok", 0 },
  { "/debug/sanitize/event-synchronize", "debug/sync_event_synchronize.py", "--sanitize", NULL, "debug/sync_ok", 0 },
  { "/debug/sanitize/device-synchronize", "debug/sync_device_synchronize.py", "--sanitize", NULL, "debug/sync_ok", 0 },
  { "/debug/sanitize/event-wrong-stream", "debug/race_event_wrong_stream.py", "--sanitize", NULL, "debug/race_event_wrong_stream", 1 },
  { "/debug/sanitize/wait-before-record", "debug/race_wait_before_record.py", "--sanitize", NULL, "debug/race_wait_before_record", 1 },
  { "/debug/async/default", "debug/async_index.py", NULL, NULL, "debug/async_index", 1 },
  { "/debug/async/sync-option", "debug/async_index.py", "--sync", NULL, "debug/async_index.sync", 1 },
  { "/debug/async/launch-blocking", "debug/async_index.py", NULL, "CUDA_LAUNCH_BLOCKING=1", "debug/async_index.sync", 1 },
  { "/debug/async/sticky", "debug/sticky_error.py", NULL, NULL, "debug/sticky_error", 0 },
  { "/debug/cpu-index-error", "debug/cpu_index_error.py", NULL, NULL, "debug/cpu_index_error", 0 },
  { "/debug/gather/cpu-errors", "debug/gather_cpu_error.py", NULL, NULL, "debug/gather_cpu_error", 0 },
  { "/debug/gather/async-default", "debug/gather_async.py", NULL, NULL, "debug/gather_async", 1 },
  { "/debug/gather/async-sync", "debug/gather_async.py", "--sync", NULL, "debug/gather_async.sync", 1 },
  { "/debug/index/async-default", "debug/index_async.py", NULL, NULL, "debug/index_async", 1 },
  { "/debug/nll-loss/async-default", "debug/nll_loss_async.py", NULL, NULL, "debug/nll_loss_async", 1 },
  { "/debug/embedding/sticky", "debug/embedding_sticky.py", NULL, NULL, "debug/embedding_sticky", 0 },
  { "/debug/sanitize/embedding-race", "debug/race_embedding.py", "--sanitize", NULL, "debug/race_embedding", 1 },
  { "/debug/sanitize/index-put-race", "debug/race_index_put.py", "--sanitize", NULL, "debug/race_index_put", 1 },
  { "/debug/sanitize/index-indices-race", "debug/race_index_indices.py", "--sanitize", NULL,
    "debug/race_index_indices", 0 },
  { "/debug/illegal-access/default", "debug/illegal_access.py", NULL, NULL, "debug/illegal_access", 1 },
  { "/debug/illegal-access/sync-option", "debug/illegal_access.py", "--sync", NULL, "debug/illegal_access.sync", 1 },
  { "/debug/illegal-access/launch-blocking", "debug/illegal_access.py", NULL, "CUDA_LAUNCH_BLOCKING=1",
    "debug/illegal_access.sync", 1 },
  { "/debug/caching-allocator", "debug/caching_allocator.py", NULL, NULL, "debug/caching_allocator", 0 },
};

static gboolean
line_matches (const char *pattern,
              const char *line)
{
  g_auto(GStrv) parts = g_strsplit (pattern, "{{*}}", -1);
  GString *re = g_string_new ("^");
  g_autoptr(GRegex) regex = NULL;

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
  return g_regex_match (regex, line, 0, NULL);
}

static void
compare_text (const char *what,
              const char *expected,
              const char *got_text)
{
  g_auto(GStrv) want = g_strsplit (expected, "\n", -1);
  g_auto(GStrv) got = g_strsplit (got_text, "\n", -1);
  guint n_want = g_strv_length (want), n_got = g_strv_length (got);

  for (guint i = 0; i < MIN (n_want, n_got); i++)
    if (!line_matches (want[i], got[i]))
      {
        g_test_message ("%s line %u: expected \"%s\", got \"%s\"", what, i + 1, want[i], got[i]);
        g_assert_cmpstr (got[i], ==, want[i]);
      }
  if (n_got != n_want)
    g_test_message ("%s: got\n%s", what, got_text);
  g_assert_cmpuint (n_got, ==, n_want);
}

/* Runs the CLI; out/err may be NULL. Returns the exit status. */
static int
run_cli (const char  *script,
         const char  *option,
         const char  *env,
         const char  *trace,
         char       **out,
         char       **err)
{
  g_autofree char *script_path = ts_test_workload_path (script);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) envp = g_get_environ ();
  g_autoptr(GError) error = NULL;
  int wait_status = 0;

  envp = g_environ_unsetenv (envp, "CUDA_LAUNCH_BLOCKING");
  envp = g_environ_unsetenv (envp, "TORCH_CUDA_SANITIZER");
  if (env != NULL)
    {
      g_auto(GStrv) kv = g_strsplit (env, "=", 2);
      envp = g_environ_setenv (envp, kv[0], kv[1], TRUE);
    }
  g_ptr_array_add (argv, (gpointer) TS_CLI_PATH);
  g_ptr_array_add (argv, (gpointer) "run");
  g_ptr_array_add (argv, (gpointer) "--gpus");
  g_ptr_array_add (argv, (gpointer) "4");
  if (option != NULL)
    g_ptr_array_add (argv, (gpointer) option);
  if (trace != NULL)
    {
      g_ptr_array_add (argv, (gpointer) "-o");
      g_ptr_array_add (argv, (gpointer) trace);
    }
  g_ptr_array_add (argv, script_path);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL,
                               out, err, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  return WEXITSTATUS (wait_status);
}

static void
run_case (gconstpointer data)
{
  const Case *c = data;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *want_out = NULL;
  g_autofree char *want_err = NULL;
  g_autofree char *stem = g_build_filename (TS_TEST_SRCDIR, "workloads", c->stem, NULL);
  g_autofree char *out_path = g_strconcat (stem, ".expected", NULL);
  g_autofree char *err_path = g_strconcat (stem, ".stderr", NULL);
  int status;

  g_assert_true (g_file_get_contents (out_path, &want_out, NULL, NULL));
  if (!g_file_get_contents (err_path, &want_err, NULL, NULL))
    want_err = g_strdup ("");
  status = run_cli (c->script, c->option, c->env, NULL, &out, &err);
  compare_text ("stdout", want_out, out);
  compare_text ("stderr", want_err, err);
  g_assert_cmpint (status, ==, c->status);
}

static TsRecorder *
run_for_trace (const char *script,
               const char *option,
               int         want_status)
{
  g_autofree char *dir = g_dir_make_tmp ("ts-debug-XXXXXX", NULL);
  g_autofree char *trace = g_build_filename (dir, "run.tstrace", NULL);
  g_autoptr(GError) error = NULL;
  TsRecorder *recorder;
  gboolean cut_short = TRUE;

  g_autofree char *out = NULL, *err = NULL;

  g_assert_nonnull (dir);
  /* captured: the script's prints must not reach the TAP stream */
  g_assert_cmpint (run_cli (script, option, NULL, trace, &out, &err), ==, want_status);
  recorder = ts_trace_load (trace, &cut_short, &error);
  g_assert_no_error (error);
  g_assert_false (cut_short);
  g_unlink (trace);
  g_rmdir (dir);
  return recorder;
}

static void
check_loc (TsRecorder        *recorder,
           const TsSourceLoc *loc,
           guint              line,
           const char        *file_suffix,
           const char        *function)
{
  g_assert_cmpuint (loc->line, ==, line);
  g_assert_true (g_str_has_suffix (ts_recorder_lookup (recorder, loc->file), file_suffix));
  g_assert_cmpstr (ts_recorder_lookup (recorder, loc->function), ==, function);
}

/* The fault record links the index_select launch (line 7) to the call that
 * reported it: .item() at line 10, or line 7 itself when launches block. */
static void
test_trace_error (gconstpointer data)
{
  gboolean sync_mode = GPOINTER_TO_INT (data);
  g_autoptr(TsRecorder) recorder = run_for_trace ("debug/async_index.py", sync_mode ? "--sync" : NULL, 1);
  TsErrorRecord rec;

  g_assert_cmpuint (ts_recorder_get_count (recorder, TS_RECORD_ERROR), ==, 1);
  g_assert_true (ts_recorder_get (recorder, TS_RECORD_ERROR, 0, &rec));
  g_assert_cmpuint (rec.code, ==, 710);
  g_assert_cmpuint (rec.device, ==, 0);
  g_assert_cmpuint (rec.kernel_correlation, !=, 0);
  g_assert_true (g_str_has_prefix (ts_recorder_lookup (recorder, rec.message),
                                   "CUDA error: device-side assert triggered\n"));
  check_loc (recorder, &rec.launch_loc, 7, "/async_index.py", "<module>");
  /* Without --sync the multiplication's launch, one line on, finds the
   * fault: the kernel has faulted by the end of that launch's host cost. */
  check_loc (recorder, &rec.surfaced_loc, sync_mode ? 7 : 8, "/async_index.py", "<module>");
  if (sync_mode)
    g_assert_cmpuint (rec.surfaced_correlation, ==, rec.kernel_correlation);
  else
    g_assert_cmpuint (rec.surfaced_correlation, >, rec.kernel_correlation);
}

/* The illegal access: the sum over freed and released memory launched at
 * line 24 faults; the addition's launch on that line reports it, or the
 * sum's own launch when launches block. */
static void
test_trace_illegal_access (gconstpointer data)
{
  gboolean sync_mode = GPOINTER_TO_INT (data);
  g_autoptr(TsRecorder) recorder = run_for_trace ("debug/illegal_access.py", sync_mode ? "--sync" : NULL, 1);
  TsErrorRecord rec;
  const char *message;

  g_assert_cmpuint (ts_recorder_get_count (recorder, TS_RECORD_ERROR), ==, 1);
  g_assert_true (ts_recorder_get (recorder, TS_RECORD_ERROR, 0, &rec));
  g_assert_cmpuint (rec.code, ==, 700);
  g_assert_cmpuint (rec.device, ==, 0);
  g_assert_cmpuint (rec.kernel_correlation, !=, 0);
  message = ts_recorder_lookup (recorder, rec.message);
  if (sync_mode)
    g_assert_cmpstr (message, ==, "CUDA error: an illegal memory access was encountered\n"
                                  "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n");
  else
    g_assert_cmpstr (message, ==, "CUDA error: an illegal memory access was encountered\n"
                                  "CUDA kernel errors might be asynchronously reported at some other API "
                                  "call, so the stacktrace below might be incorrect.\n"
                                  "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
                                  "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n");
  check_loc (recorder, &rec.launch_loc, 24, "/illegal_access.py", "<module>");
  /* Without --sync a later launch of the same line (the addition) finds
   * the fault: a later call, the same line. */
  check_loc (recorder, &rec.surfaced_loc, 24, "/illegal_access.py", "<module>");
  if (sync_mode)
    g_assert_cmpuint (rec.surfaced_correlation, ==, rec.kernel_correlation);
  else
    g_assert_cmpuint (rec.surfaced_correlation, >, rec.kernel_correlation);
}

/* gather's assert: launched at line 7, surfaced by print() at line 9. */
static void
test_trace_gather (void)
{
  g_autoptr(TsRecorder) recorder = run_for_trace ("debug/gather_async.py", NULL, 1);
  TsErrorRecord rec;

  g_assert_cmpuint (ts_recorder_get_count (recorder, TS_RECORD_ERROR), ==, 1);
  g_assert_true (ts_recorder_get (recorder, TS_RECORD_ERROR, 0, &rec));
  g_assert_cmpuint (rec.code, ==, 710);
  check_loc (recorder, &rec.launch_loc, 7, "/gather_async.py", "<module>");
  check_loc (recorder, &rec.surfaced_loc, 9, "/gather_async.py", "<module>");
}

/* The race record: the read at line 18 against the write at line 15. */
static void
test_trace_race (void)
{
  g_autoptr(TsRecorder) recorder = run_for_trace ("seeds/04_stream_race.py", "--sanitize", 1);
  TsSanitizerRecord rec;
  const char *report;

  g_assert_cmpuint (ts_recorder_get_count (recorder, TS_RECORD_SANITIZER), ==, 1);
  g_assert_true (ts_recorder_get (recorder, TS_RECORD_SANITIZER, 0, &rec));
  check_loc (recorder, &rec.loc, 23, "/stream_race.py", "<module>");
  check_loc (recorder, &rec.prev_loc, 20, "/stream_race.py", "<module>");
  check_loc (recorder, &rec.alloc_loc, 20, "/stream_race.py", "<module>");
  g_assert_false (rec.is_write);
  g_assert_true (rec.prev_is_write);
  g_assert_cmpuint (rec.stream, !=, rec.prev_stream);
  g_assert_cmpuint (rec.correlation, !=, 0);
  g_assert_cmpuint (rec.prev_correlation, !=, 0);
  g_assert_cmpuint (rec.prev_correlation, <, rec.correlation);
  g_assert_cmpstr (ts_recorder_lookup (recorder, rec.op), ==,
                   "aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor");
  report = ts_recorder_lookup (recorder, rec.report);
  g_assert_true (g_str_has_prefix (report, "============================\nCSAN detected a possible data race"));
}

/* The hazard analysis of the trace (no sanitizer needed) and the sanitizer
 * agree: on every --sanitize case, the trace of the same run, which has
 * both the sanitizer's records and the access records, gives the same
 * pairs of launches (the sanitizer may report one pair once per pointer);
 * and the run without --sanitize finds hazards exactly when the sanitizer
 * reports races. */
static gboolean
has_pair (GArray  *hazards,
          guint64  prev,
          guint64  cur)
{
  for (guint i = 0; i < hazards->len; i++)
    {
      const TsHazard *h = &g_array_index (hazards, TsHazard, i);

      if (h->previous.correlation == prev && h->current.correlation == cur)
        return TRUE;
    }
  return FALSE;
}

static void
test_hazards_agree (gconstpointer data)
{
  const Case *c = data;
  g_autoptr(TsRecorder) sanitized = run_for_trace (c->script, c->option, c->status);
  g_autoptr(TsRecorder) plain = NULL;
  g_autoptr(GArray) hazards = ts_hazards_find (sanitized);
  g_autoptr(GArray) plain_hazards = NULL;
  gsize n = ts_recorder_get_count (sanitized, TS_RECORD_SANITIZER);

  g_assert_cmpuint (ts_recorder_get_count (sanitized, TS_RECORD_ACCESS), >, 0);
  for (gsize i = 0; i < n; i++)
    {
      TsSanitizerRecord r;

      g_assert_true (ts_recorder_get (sanitized, TS_RECORD_SANITIZER, i, &r));
      g_assert_true (has_pair (hazards, r.prev_correlation, r.correlation));
    }
  for (guint i = 0; i < hazards->len; i++)
    {
      const TsHazard *h = &g_array_index (hazards, TsHazard, i);
      gboolean found = FALSE;

      for (gsize k = 0; k < n && !found; k++)
        {
          TsSanitizerRecord r;

          ts_recorder_get (sanitized, TS_RECORD_SANITIZER, k, &r);
          found = r.prev_correlation == h->previous.correlation && r.correlation == h->current.correlation &&
                  r.stream == h->current.stream && r.prev_stream == h->previous.stream;
        }
      g_assert_true (found);
    }

  /* without the sanitizer the script runs on past the race: at least it */
  plain = run_for_trace (c->script, NULL, 0);
  plain_hazards = ts_hazards_find (plain);
  g_assert_cmpuint (plain_hazards->len > 0, ==, n > 0);
  for (guint i = 0; i < hazards->len; i++)
    g_assert_true (has_pair (plain_hazards, g_array_index (hazards, TsHazard, i).previous.correlation,
                             g_array_index (hazards, TsHazard, i).current.correlation));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_test_add_data_func (cases[i].path, &cases[i], run_case);
  g_test_add_data_func ("/debug/trace/error-default", GINT_TO_POINTER (FALSE), test_trace_error);
  g_test_add_data_func ("/debug/trace/error-sync", GINT_TO_POINTER (TRUE), test_trace_error);
  g_test_add_func ("/debug/trace/race", test_trace_race);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    if (g_strcmp0 (cases[i].option, "--sanitize") == 0)
      {
        g_autofree char *path = g_strdup_printf ("/debug/hazards/agree/%s",
                                                 strrchr (cases[i].path, '/') + 1);

        g_test_add_data_func (path, &cases[i], test_hazards_agree);
      }
  for (guint i = 0; i < G_N_ELEMENTS (reuse_cases); i++)
    g_test_add_data_func (reuse_cases[i].path, &reuse_cases[i], test_hazards_agree);
  g_test_add_data_func ("/debug/trace/illegal-access-default", GINT_TO_POINTER (FALSE), test_trace_illegal_access);
  g_test_add_data_func ("/debug/trace/illegal-access-sync", GINT_TO_POINTER (TRUE), test_trace_illegal_access);
  g_test_add_func ("/debug/trace/gather", test_trace_gather);
  return g_test_run ();
}
