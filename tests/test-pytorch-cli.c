/* test-pytorch-cli.c: tensorscope-cli on PyTorch's files, and round trips
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CLI contract: info FILE, export FILE --format chrome -o OUT.json and
 * export FILE --format memory-snapshot -o OUT.pickle accept .pickle,
 * .json, .json.gz and a directory of per-rank traces. Python's own pickle
 * is the oracle for the snapshots we write (skipped without python3), and
 * torch's _memory_viz too where torch imports.
 */

#include "config.h"

#include <string.h>
#include <sys/wait.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "ts-memory-replay.h"
#include "ts-trace-import.h"

static char *tmp_dir;

static char *
data_path (const char *name)
{
  return g_build_filename (TS_TEST_SRCDIR, "data", "pytorch", name, NULL);
}

static int
run (const char * const *args,
     char              **out,
     char              **err)
{
  g_autoptr(GError) error = NULL;
  int status = 0;

  /* callers reuse their out/err strings */
  g_clear_pointer (out, g_free);
  g_clear_pointer (err, g_free);
  g_assert_true (g_spawn_sync (NULL, (char **) args, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               out, err, &status, &error));
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

static int
cli (const char *a1, const char *a2, const char *a3, const char *a4, const char *a5, const char *a6,
     char **out, char **err)
{
  const char *argv[] = { TS_CLI_PATH, a1, a2, a3, a4, a5, a6, NULL };
  return run (argv, out, err);
}

static void
test_info (void)
{
  const struct { const char *file; const char *format; } cases[] = {
    { "snapshot-v2.p2.pickle", "PyTorch memory snapshot (pickle)" },
    { "snapshot-v2.p5.pickle", "PyTorch memory snapshot (pickle)" },
    { "snapshot-v2.json", "PyTorch memory snapshot (JSON)" },
    { "snapshot-v1.13.p4.pickle", "PyTorch memory snapshot (pickle)" },
    { "kineto-cpu.json", "PyTorch profiler trace (Kineto JSON)" },
    { "ranks/worker1.pt.trace.json.gz", "PyTorch profiler trace (Kineto JSON)" },
    { "ranks", "directory of per-rank traces" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = data_path (cases[i].file);
      g_autofree char *out = NULL, *err = NULL;

      g_assert_cmpint (cli ("info", path, NULL, NULL, NULL, NULL, &out, &err), ==, 0);
      g_assert_nonnull (strstr (out, cases[i].format));
    }
  /* a snapshot does not carry the device's properties: unknown, not 0 */
  {
    g_autofree char *path = data_path ("snapshot-v2.p4.pickle");
    g_autofree char *out = NULL, *err = NULL;

    g_assert_cmpint (cli ("info", path, NULL, NULL, NULL, NULL, &out, &err), ==, 0);
    g_assert_nonnull (strstr (out, "(pytorch-snapshot, SMs unknown, compute capability unknown, memory unknown)"));
  }
  /* a gzip'd trace of our own, recorded from real PyTorch on an H200 */
  {
    g_autofree char *path = g_build_filename (TS_TEST_SRCDIR, "data", "real", "stream_race.real.trace.gz", NULL);
    g_autofree char *out = NULL, *err = NULL;

    g_assert_cmpint (cli ("info", path, NULL, NULL, NULL, NULL, &out, &err), ==, 0);
    /* g_format_size puts a no-break space before the unit */
    g_assert_nonnull (strstr (out, "NVIDIA H200 (132 SMs, compute capability 9.0, 139.8\xc2\xa0GiB)"));
    g_assert_nonnull (strstr (out, "  kernel         3\n"));
  }
  /* what memory_viz says about blocks from before recording, on screen */
  {
    g_autofree char *path = data_path ("snapshot-v2.p4.pickle");
    g_autofree char *out = NULL, *err = NULL;
    g_assert_cmpint (cli ("info", path, NULL, NULL, NULL, NULL, &out, &err), ==, 0);
    g_assert_nonnull (strstr (out, "allocated before recording started"));
    g_assert_nonnull (strstr (out, "ring buffer overflowed"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (cli ("memory", path, NULL, NULL, NULL, NULL, &out, &err), ==, 0);
    g_assert_nonnull (strstr (out, "Note: 2 blocks were allocated before the trace starts"));
    g_assert_nonnull (strstr (out, "Note: the trace ring buffer overflowed"));
  }
}

static void
test_bad_files (void)
{
  const char *files[] = { "hostile-deep.json", "hostile-memo.pickle", "hostile-biglen.pickle",
                          "hostile-deep.pickle", "hostile-stack.pickle", "hostile-global.pickle" };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = data_path (files[i]);
      g_autofree char *out = NULL, *err = NULL;
      g_autofree char *o = g_build_filename (tmp_dir, "bad.json", NULL);

      g_assert_cmpint (cli ("info", path, NULL, NULL, NULL, NULL, &out, &err), ==, 1);
      /* one line */
      g_assert_nonnull (strchr (err, '\n'));
      g_assert_null (strchr (err, '\n') + 1 < err + strlen (err) ? strchr (strchr (err, '\n') + 1, '\n') : NULL);
      g_assert_cmpint (cli ("export", path, "--format", "chrome", "-o", o, &out, &err), ==, 1);
      g_assert_false (g_file_test (o, G_FILE_TEST_EXISTS));
    }
}

static JsonNode *
parse_file (const char *path)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

static void
test_export_chrome_ranks (void)
{
  g_autofree char *dir = data_path ("ranks");
  g_autofree char *o = g_build_filename (tmp_dir, "ranks.json", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *events;
  g_autoptr(GHashTable) kernel_pids = g_hash_table_new (NULL, NULL);
  guint n_kernels = 0;
  gboolean exact = FALSE;

  g_assert_cmpint (cli ("export", dir, "--format", "chrome", "-o", o, &out, &err), ==, 0);
  root = parse_file (o);
  events = json_object_get_array_member (json_node_get_object (root), "traceEvents");
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *e = json_array_get_object_element (events, i);
      const char *cat = json_object_has_member (e, "cat") ? json_object_get_string_member (e, "cat") : "";
      if (g_str_equal (cat, "kernel"))
        {
          g_assert_cmpstr (json_object_get_string_member (e, "ph"), ==, "X");
          n_kernels++;
          g_hash_table_add (kernel_pids, GINT_TO_POINTER ((gint) json_object_get_int_member (e, "pid")));
          /* 200.123 µs to the nanosecond */
          if (g_str_equal (json_object_get_string_member (e, "name"), "ampere_sgemm_128x64_tn") &&
              ABS (json_object_get_double_member (e, "dur") - 200.123) < 1e-9)
            exact = TRUE;
        }
    }
  g_assert_cmpuint (n_kernels, ==, 8);
  /* report gains the per-rank comparison */
  {
    g_autofree char *rout = NULL, *rerr = NULL;
    g_assert_cmpint (cli ("report", dir, NULL, NULL, NULL, NULL, &rout, &rerr), ==, 0);
    g_assert_nonnull (strstr (rout, "Per-rank comparison"));
    g_assert_nonnull (strstr (rout, "Slowest rank per step"));
    g_assert_nonnull (strstr (rout, "ProfilerStep#1             1    1000500"));
  }
  /* each rank is its own pid */
  g_assert_cmpuint (g_hash_table_size (kernel_pids), ==, 2);
  g_assert_true (exact);
}

/* The ts of the first kernel of each pid in an exported Chrome trace. */
static void
first_kernel_ts (const char *path,
                 double      ts[3])
{
  g_autoptr(JsonNode) root = parse_file (path);
  JsonArray *events = json_object_get_array_member (json_node_get_object (root), "traceEvents");

  ts[0] = ts[1] = ts[2] = -1;
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *e = json_array_get_object_element (events, i);
      gint64 pid = json_object_get_int_member (e, "pid");
      if (json_object_has_member (e, "cat") && g_str_equal (json_object_get_string_member (e, "cat"), "kernel") &&
          g_str_equal (json_object_get_string_member (e, "name"), "ampere_sgemm_128x64_tn") &&
          pid >= 1 && pid <= 3 && ts[pid - 1] < 0)
        ts[pid - 1] = json_object_get_double_member (e, "ts");
    }
}

static void
test_rank_clocks (void)
{
  /* ranks-skew: rank 1's host clock is 2500.25 µs ahead, rank 2's
   * 1234.567 µs behind (make-pytorch-data.py); the compute kernels run at
   * the same instant, which the alignment recovers to 2 µs (the median
   * lateness of rank 1's all-reduces) */
  g_autofree char *dir = data_path ("ranks-skew");
  g_autofree char *o = g_build_filename (tmp_dir, "skew.json", NULL);
  g_autofree char *out = NULL, *err = NULL;
  double ts[3];

  g_assert_cmpint (cli ("export", dir, "--format", "chrome", "-o", o, &out, &err), ==, 0);
  first_kernel_ts (o, ts);
  g_assert_cmpfloat_with_epsilon (ts[1] - ts[0], -2.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (ts[2] - ts[0], -2.0, 1e-6);
  g_assert_cmpint (cli ("export", "--no-clock-align", dir, "-o", o, NULL, &out, &err), ==, 0);
  first_kernel_ts (o, ts);
  g_assert_cmpfloat_with_epsilon (ts[1] - ts[0], 2500.25, 1e-6);
  /* said in info and report */
  g_assert_cmpint (cli ("info", dir, NULL, NULL, NULL, NULL, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "clock: rank 1 shifted by -2502.250 µs onto rank 0's"));
  g_assert_cmpint (cli ("report", "-t", "Rank clocks", dir, NULL, NULL, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "\nrank 2 shifted by +1232.567 µs onto rank 0's"));
  g_assert_cmpint (cli ("report", "--no-clock-align", "-t", "Rank clocks", dir, NULL, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "alignment on collectives turned off (--no-clock-align)"));
  g_assert_null (strstr (out, "shifted by"));
}

static void
test_export_chrome_snapshot (void)
{
  g_autofree char *path = data_path ("ranks/worker1.pt.trace.json.gz");
  g_autofree char *o = g_build_filename (tmp_dir, "one.json", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonNode) root = NULL;

  g_assert_cmpint (cli ("export", path, "--format", "chrome", "-o", o, &out, &err), ==, 0);
  root = parse_file (o);
  g_assert_nonnull (json_object_get_array_member (json_node_get_object (root), "traceEvents"));
}

static char *
final_state (const char *path)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(TsMemoryReplay) replay = NULL;
  g_autoptr(TsMemoryState) st = NULL;
  GString *s = g_string_new (NULL);

  g_assert_true (ts_trace_import_open (path, rec, &error));
  replay = ts_memory_replay_new (rec);
  g_assert_cmpuint (ts_memory_replay_get_n_skipped (replay), ==, 0);
  st = ts_memory_replay_state_at (replay, ts_memory_replay_get_n_actions (replay));
  /* segments with their pool and kind, so round trips keep them */
  for (guint i = 0; i < st->segments->len; i++)
    {
      TsMemorySegment *sg = &g_array_index (st->segments, TsMemorySegment, i);
      g_string_append_printf (s, "segment %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %s%s pool (%"
                              G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ")\n", sg->address, sg->total_size,
                              sg->is_small ? "small" : "large", sg->is_expandable ? " expandable" : "",
                              sg->pool_id.first, sg->pool_id.second);
    }
  for (guint i = 0; i < st->blocks->len; i++)
    {
      TsMemoryBlock *b = &g_array_index (st->blocks, TsMemoryBlock, i);
      g_string_append_printf (s, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %d\n", b->address, b->size, b->state);
    }
  return g_string_free (s, FALSE);
}

static gboolean
have_python (void)
{
  const char *argv[] = { "python3", "-c", "import pickle", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *p = g_find_program_in_path ("python3");

  return p != NULL && run (argv, &out, &err) == 0;
}

/* pickle.load reads it; torch's _memory_viz (when torch imports) too. */
static void
python_check (const char *pickle_path)
{
  static const char script[] =
    "import pickle, sys\n"
    "d = pickle.load(open(sys.argv[1], 'rb'))\n"
    "assert set(d) >= {'segments', 'device_traces'}\n"
    "for s in d['segments']:\n"
    "    assert sum(b['size'] for b in s['blocks']) == s['total_size']\n"
    "for t in d['device_traces']:\n"
    "    for e in t:\n"
    "        assert e['action'] in ('alloc','free_requested','free_completed','segment_alloc',\n"
    "                               'segment_free','segment_map','segment_unmap','oom',\n"
    "                               'snapshot'), e\n"
    "try:\n"
    "    from torch.cuda import _memory_viz as mv\n"
    "except Exception:\n"
    "    print('no torch')\n"
    "else:\n"
    "    mv.segments(d['segments'], format_flamegraph=lambda x: x)\n"
    "    mv.memory(d['segments'], format_flamegraph=lambda x: x)\n"
    "    print('memory_viz ok')\n";
  const char *argv[] = { "python3", "-c", script, pickle_path, NULL };
  const char *argv_sys[] = { "/usr/bin/python3", "-c", script, pickle_path, NULL };
  g_autofree char *out = NULL, *err = NULL;

  if (run (argv, &out, &err) != 0)
    g_error ("python3 could not read %s: %s", pickle_path, err);
  /* Debian's python3-torch lives in the system interpreter */
  if (g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_clear_pointer (&out, g_free);
      g_clear_pointer (&err, g_free);
      if (run (argv_sys, &out, &err) != 0)
        g_error ("/usr/bin/python3 could not read %s: %s", pickle_path, err);
    }
}

static void
test_export_snapshot_round_trip (void)
{
  const char *files[] = { "snapshot-v2.p4.pickle", "snapshot-v2.json", "snapshot-v1.13.json",
                          "snapshot-v2.0.p4.pickle" };
  gboolean python = have_python ();

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = data_path (files[i]);
      g_autofree char *o = g_build_filename (tmp_dir, "out.pickle", NULL);
      g_autofree char *o2 = g_build_filename (tmp_dir, "out2.pickle", NULL);
      g_autofree char *out = NULL, *err = NULL, *a = NULL, *b = NULL, *c = NULL;
      g_autofree char *bytes = NULL;
      gsize len;

      g_assert_cmpint (cli ("export", path, "--format", "memory-snapshot", "-o", o, &out, &err), ==, 0);
      g_assert_true (g_file_get_contents (o, &bytes, &len, NULL));
      /* protocol 4, and never a 9-byte LONG1 */
      g_assert_cmpint ((guint8) bytes[0], ==, 0x80);
      g_assert_cmpint (bytes[1], ==, 4);
      g_assert_null (g_strstr_len (bytes, (gssize) len, "\x8a\x09"));
      a = final_state (path);
      b = final_state (o);
      g_assert_cmpstr (a, ==, b);
      /* and again: a fixed point */
      g_assert_cmpint (cli ("export", o, "--format", "memory-snapshot", "-o", o2, &out, &err), ==, 0);
      c = final_state (o2);
      g_assert_cmpstr (a, ==, c);
      if (python)
        python_check (o);
    }
}

/* A profile_memory=True trace without a snapshot: its [memory] events as
 * device_traces (PyTorch's form: a free is free_requested then
 * free_completed; time_us = baseTimeNanoseconds / 1000 + ts), and the
 * blocks live at the end as segments of their own. */
static void
test_export_snapshot_from_kineto (void)
{
  static const char script[] =
    "import pickle, sys\n"
    "d = pickle.load(open(sys.argv[1], 'rb'))\n"
    "for e in d['device_traces'][0]:\n"
    "    print(e['action'], e['addr'] - 139637976727552, e['size'], e['time_us'] - 1716423322984000)\n"
    "for s in d['segments']:\n"
    "    print(s['address'] - 139637976727552, s['total_size'], s['segment_type'],\n"
    "          *[(b['state'], b['size']) for b in s['blocks']])\n";
  static const char expected[] =
    "alloc 0 2097152 10\n"
    "alloc 8388608 512 20\n"
    "free_requested 0 2097152 30\n"
    "free_completed 0 2097152 30\n"
    "free_requested 16777216 1024 40\n"
    "free_completed 16777216 1024 40\n"
    "alloc 0 4194304 50\n"
    "0 4194304 large ('active_allocated', 4194304)\n"
    "8388608 512 small ('active_allocated', 512)\n";
  g_autofree char *path = data_path ("kineto-memory.json");
  g_autofree char *o = g_build_filename (tmp_dir, "kineto-memory.pickle", NULL);
  g_autofree char *out = NULL, *err = NULL;
  const char *argv[] = { "python3", "-c", script, o, NULL };

  g_assert_cmpint (cli ("export", path, "--format", "memory-snapshot", "-o", o, &out, &err), ==, 0);
  g_assert_nonnull (strstr (err, "warning: "));
  g_assert_nonnull (strstr (err, "written each in a segment of its own size"));
  if (!have_python ())
    {
      g_test_skip ("no python3 to read the snapshot");
      return;
    }
  g_assert_cmpint (run (argv, &out, &err), ==, 0);
  g_assert_cmpstr (out, ==, expected);
  python_check (o);
  /* the memory view says what is made up */
  g_assert_cmpint (cli ("memory", path, NULL, NULL, NULL, NULL, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "Note: 3 allocations and 2 frees from [memory] events"));
}

/* Private pools and expandable segments survive import -> export ->
 * import. The pool ids follow PyTorch's MempoolId_t: (n, 0) for a pool a
 * capture made for itself, (0, n) for graph_pool_handle / MemPool
 * (c10/cuda/MemPool and CUDAGraph::capture_begin); segment_pool_id is on
 * each segment (CUDACachingAllocator.cpp's SegmentInfo::owner_private_pool_id),
 * and an expandable segment is reported as its mapped ranges. */
static void
test_export_snapshot_pools (void)
{
  static const char json[] =
    "{\"segments\": ["
    " {\"device\": 0, \"address\": 139637976727552, \"total_size\": 2097152, \"allocated_size\": 512,"
    "  \"active_size\": 512, \"requested_size\": 500, \"stream\": 0, \"segment_type\": \"small\","
    "  \"segment_pool_id\": [1, 0], \"is_expandable\": false, \"frames\": [], \"blocks\": ["
    "   {\"address\": 139637976727552, \"size\": 512, \"requested_size\": 500, \"state\": \"active_allocated\", \"frames\": []},"
    "   {\"address\": 139637976728064, \"size\": 2096640, \"requested_size\": 0, \"state\": \"inactive\", \"frames\": []}]},"
    " {\"device\": 0, \"address\": 139637978824704, \"total_size\": 20971520, \"allocated_size\": 4194304,"
    "  \"active_size\": 4194304, \"requested_size\": 4000000, \"stream\": 0, \"segment_type\": \"large\","
    "  \"segment_pool_id\": [0, 1], \"is_expandable\": true, \"frames\": [], \"blocks\": ["
    "   {\"address\": 139637978824704, \"size\": 4194304, \"requested_size\": 4000000, \"state\": \"active_allocated\", \"frames\": []},"
    "   {\"address\": 139637983019008, \"size\": 16777216, \"requested_size\": 0, \"state\": \"inactive\", \"frames\": []}]}],"
    " \"device_traces\": [["
    "  {\"action\": \"segment_alloc\", \"addr\": 139637976727552, \"size\": 2097152, \"stream\": 0, \"time_us\": 1000},"
    "  {\"action\": \"alloc\", \"addr\": 139637976727552, \"size\": 512, \"stream\": 0, \"time_us\": 1001},"
    "  {\"action\": \"segment_map\", \"addr\": 139637978824704, \"size\": 41943040, \"stream\": 0, \"time_us\": 1002},"
    "  {\"action\": \"alloc\", \"addr\": 139637978824704, \"size\": 4194304, \"stream\": 0, \"time_us\": 1003},"
    "  {\"action\": \"segment_unmap\", \"addr\": 139637999796224, \"size\": 20971520, \"stream\": 0, \"time_us\": 1004}"
    " ]]}";
  static const char expected[] =
    "segment 139637976727552 2097152 small pool (1, 0)\n"
    "segment 139637978824704 20971520 large expandable pool (0, 1)\n"
    "139637976727552 512 1\n"
    "139637976728064 2096640 0\n"
    "139637978824704 4194304 1\n"
    "139637983019008 16777216 0\n";
  static const char script[] =
    "import pickle, sys\n"
    "d = pickle.load(open(sys.argv[1], 'rb'))\n"
    "s = sorted(d['segments'], key=lambda s: s['address'])\n"
    "assert [x['segment_pool_id'] for x in s] == [(1, 0), (0, 1)], s\n"
    "assert [x['is_expandable'] for x in s] == [False, True], s\n"
    "acts = [e['action'] for e in d['device_traces'][0]]\n"
    "assert acts == ['segment_alloc', 'alloc', 'segment_map', 'alloc', 'segment_unmap'], acts\n"
    "assert d['allocator_settings']['expandable_segments'] is True\n";
  g_autofree char *in = g_build_filename (tmp_dir, "pools.json", NULL);
  g_autofree char *o = g_build_filename (tmp_dir, "pools.pickle", NULL);
  g_autofree char *o2 = g_build_filename (tmp_dir, "pools2.pickle", NULL);
  g_autofree char *out = NULL, *err = NULL, *a = NULL, *b = NULL, *c = NULL;

  g_assert_true (g_file_set_contents (in, json, -1, NULL));
  a = final_state (in);
  g_assert_cmpstr (a, ==, expected);
  g_assert_cmpint (cli ("export", in, "--format", "memory-snapshot", "-o", o, &out, &err), ==, 0);
  b = final_state (o);
  g_assert_cmpstr (b, ==, expected);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli ("export", o, "--format", "memory-snapshot", "-o", o2, &out, &err), ==, 0);
  c = final_state (o2);
  g_assert_cmpstr (c, ==, expected);
  /* A malformed segment_pool_id (not a pair of ints) is the default pool. */
  {
    const char *bad[] = { "{\"a\": 1, \"b\": 2}", "\"x\"", "[1]", "[1.5, 2]", "[[1], 2]", "null" };

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_autofree char *path = g_build_filename (tmp_dir, "bad-pool.json", NULL);
        g_autofree char *doc = g_strdup_printf ("{\"segments\": [{\"device\": 0, \"address\": 4096, "
                                                "\"total_size\": 2097152, \"stream\": 0, \"segment_type\": "
                                                "\"small\", \"segment_pool_id\": %s, \"blocks\": []}], "
                                                "\"device_traces\": [[]]}", bad[i]);
        g_autofree char *state = NULL;

        g_assert_true (g_file_set_contents (path, doc, -1, NULL));
        state = final_state (path);
        g_assert_nonnull (strstr (state, "segment 4096 2097152 small pool (0, 0)\n"));
      }
  }
  /* memory names the pools */
  g_assert_cmpint (cli ("memory", o, NULL, NULL, NULL, NULL, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "  Pools on device 0:\n"
                                 "    graph pool (1, 0): 1 segment, 2.0 MiB reserved, 512 B allocated\n"
                                 "    private pool (0, 1): 1 segment, 20.0 MiB reserved, 4.0 MiB allocated "
                                 "(1 mapped range of expandable segments)\n"));
  /* free space is per pool: a private pool's blocks serve only its mallocs */
  g_assert_nonnull (strstr (out, "  large       0             1       16.0 MiB      16.0 MiB   private pool (0, 1)\n"
                                 "  small       0             1        2.0 MiB       2.0 MiB   graph pool (1, 0)\n"));
  if (have_python ())
    {
      const char *argv[] = { "python3", "-c", script, o, NULL };
      g_autofree char *pout = NULL, *perr = NULL;

      if (run (argv, &pout, &perr) != 0)
        g_error ("python3 on %s: %s", o, perr);
      python_check (o);
    }
}

static void
test_export_snapshot_from_run (void)
{
  g_autofree char *script = g_build_filename (TS_EXAMPLES_DIR, "fragmentation.py", NULL);
  g_autofree char *trace = g_build_filename (tmp_dir, "frag.tstrace", NULL);
  g_autofree char *o = g_build_filename (tmp_dir, "frag.pickle", NULL);
  g_autofree char *out = NULL, *err = NULL, *a = NULL, *b = NULL;

  cli ("run", "-o", trace, script, NULL, NULL, &out, &err);
  g_assert_true (g_file_test (trace, G_FILE_TEST_EXISTS));
  g_assert_cmpint (cli ("export", trace, "--format", "memory-snapshot", "-o", o, &out, &err), ==, 0);
  a = final_state (trace);
  b = final_state (o);
  g_assert_cmpstr (a, ==, b);
  if (have_python ())
    python_check (o);
  /* a directory with a trace and a snapshot of the run */
  {
    g_autofree char *dir = data_path ("together");
    g_autofree char *snap = data_path ("together/snapshot.pickle");
    g_autofree char *c = NULL, *d = NULL;
    g_assert_cmpint (cli ("export", dir, "--format", "memory-snapshot", "-o", o, &out, &err), ==, 0);
    c = final_state (snap);
    d = final_state (o);
    g_assert_cmpstr (c, ==, d);
  }
  /* a trace without allocator actions: one clear line */
  {
    g_autofree char *k = data_path ("kineto-cpu.json");
    g_assert_cmpint (cli ("export", k, "--format", "memory-snapshot", "-o", o, &out, &err), ==, 1);
    g_assert_nonnull (strstr (err, "no allocator actions"));
  }
}

int
main (int    argc,
      char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("ts-pytorch-XXXXXX", NULL);
  g_test_add_func ("/pytorch-cli/info", test_info);
  g_test_add_func ("/pytorch-cli/bad-files", test_bad_files);
  g_test_add_func ("/pytorch-cli/export/chrome-ranks", test_export_chrome_ranks);
  g_test_add_func ("/pytorch-cli/rank-clocks", test_rank_clocks);
  g_test_add_func ("/pytorch-cli/export/chrome-gz", test_export_chrome_snapshot);
  g_test_add_func ("/pytorch-cli/export/snapshot-round-trip", test_export_snapshot_round_trip);
  g_test_add_func ("/pytorch-cli/export/snapshot-from-run", test_export_snapshot_from_run);
  g_test_add_func ("/pytorch-cli/export/snapshot-from-kineto", test_export_snapshot_from_kineto);
  g_test_add_func ("/pytorch-cli/export/snapshot-pools", test_export_snapshot_pools);
  ret = g_test_run ();
  {
    g_autoptr(GDir) dir = g_dir_open (tmp_dir, 0, NULL);
    const char *name;
    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *p = g_build_filename (tmp_dir, name, NULL);
        g_remove (p);
      }
    g_rmdir (tmp_dir);
  }
  return ret;
}
