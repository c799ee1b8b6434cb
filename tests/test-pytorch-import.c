/* test-pytorch-import.c: PyTorch memory snapshots and profiler traces
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The files are in tests/data/pytorch (make-pytorch-data.py writes them
 * with Python's pickle and json, and torch 1.13's profiler where it can).
 */

#include "config.h"

#include <string.h>

#include "ts-memory-replay.h"
#include "ts-rank-stats.h"
#include "ts-trace-document.h"
#include "ts-trace-import.h"

static char *
data_path (const char *name)
{
  return g_build_filename (TS_TEST_SRCDIR, "data", "pytorch", name, NULL);
}

static TsRecorder *
import_with_flags (const char    *name,
                   TsImportFlags  flags)
{
  g_autofree char *path = data_path (name);
  const char *paths[] = { path };
  g_autoptr(GError) error = NULL;
  TsRecorder *rec = ts_recorder_new ();

  if (!ts_trace_import_open_with_flags (paths, 1, flags, rec, &error))
    g_error ("%s: %s", name, error->message);
  return rec;
}

static TsRecorder *
import (const char *name)
{
  return import_with_flags (name, TS_IMPORT_FLAGS_NONE);
}

static int
cmp_str (gconstpointer a,
         gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

/* The replay's final state, in the form of NAME.expected. */
static char *
final_state (TsRecorder *rec)
{
  g_autoptr(TsMemoryReplay) replay = ts_memory_replay_new (rec);
  g_autoptr(TsMemoryState) st = ts_memory_replay_state_at (replay, ts_memory_replay_get_n_actions (replay));
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  GString *out = g_string_new (NULL);

  g_assert_cmpuint (ts_memory_replay_get_n_skipped (replay), ==, 0);
  for (guint i = 0; i < st->segments->len; i++)
    {
      TsMemorySegment *s = &g_array_index (st->segments, TsMemorySegment, i);
      g_ptr_array_add (lines, g_strdup_printf ("segment %u %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
                                               s->device, s->address, s->total_size));
      for (guint j = 0; j < s->n_blocks; j++)
        {
          TsMemoryBlock *b = &g_array_index (st->blocks, TsMemoryBlock, s->first_block + j);
          if (b->state == TS_BLOCK_STATE_INACTIVE)
            continue;
          g_ptr_array_add (lines, g_strdup_printf ("block %u %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %s",
                                                   s->device, b->address, b->size,
                                                   ts_block_state_to_string (b->state)));
        }
    }
  g_ptr_array_sort (lines, cmp_str);
  for (guint i = 0; i < lines->len; i++)
    g_string_append_printf (out, "%s\n", (char *) lines->pdata[i]);
  return g_string_free (out, FALSE);
}

static gboolean
has_note (TsRecorder *rec,
          const char *needle)
{
  g_autoptr(GPtrArray) notes = ts_trace_import_get_notes (rec);

  for (guint i = 0; i < notes->len; i++)
    if (strstr (notes->pdata[i], needle) != NULL)
      return TRUE;
  return FALSE;
}

static void
check_snapshot (const char *file,
                const char *expected_name)
{
  g_autoptr(TsRecorder) rec = import (file);
  g_autofree char *expected_path = data_path (expected_name);
  g_autofree char *expected = NULL, *got = NULL;

  g_assert_true (g_file_get_contents (expected_path, &expected, NULL, NULL));
  got = final_state (rec);
  g_assert_cmpstr (got, ==, expected);
}

static void
test_snapshot_protocols (void)
{
  /* Python's pickler (protocols 2, 4, 5), torch::jit::Pickler's form
   * (protocol 2, BINPUT, one APPENDS per list), and JSON */
  const char *files[] = { "snapshot-v2.p2.pickle", "snapshot-v2.p4.pickle", "snapshot-v2.p5.pickle",
                          "snapshot-v2.jit.pickle", "snapshot-v2.json" };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autoptr(TsRecorder) rec = import (files[i]);
      g_autoptr(TsTraceDocument) doc = ts_trace_document_new (rec);

      check_snapshot (files[i], "snapshot-v2.expected");
      /* 20 entries: 1 oom, 1 snapshot, the rest rebuild state */
      g_assert_true (has_note (rec, "20 trace entries on 2 devices"));
      /* Blocks from before recording are said so: one freed in the trace
       * (an unmatched free), one never in it (a ghost). */
      g_assert_true (has_note (rec, "2 blocks were allocated before the trace starts (1 never appear"));
      g_assert_true (has_note (rec, "ring buffer overflowed (max_entries 25)"));
      g_assert_true (has_note (rec, "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"));
      g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_DEVICE), ==, 2);
      /* external_annotations: ProfilerStep#0 as one NVTX range */
      g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_NVTX), ==, 2);
      {
        g_autoptr(TsMemoryReplay) replay = ts_memory_replay_new (rec);
        const TsMemoryOom *oom;
        g_assert_cmpuint (ts_memory_replay_get_n_ooms (replay), ==, 1);
        oom = ts_memory_replay_get_oom (replay, 0);
        g_assert_cmpuint (oom->device_free, ==, 1048576);
        g_assert_cmpuint (oom->rounded_size, ==, G_GUINT64_CONSTANT (4294967296));
        /* frames: the innermost frame outside torch */
        g_assert_cmpstr (ts_recorder_lookup (rec, oom->loc.file), ==, "optim.py");
        g_assert_cmpuint (oom->loc.line, ==, 88);
      }
      /* time_us: the first kept entry is 7 µs after T0, the
       * reconstructed state just before it */
      {
        TsTime begin, end;
        ts_trace_document_get_time_span (doc, &begin, &end);
        g_assert_cmpint (begin, >=, 0);
        g_assert_cmpint (end - begin, >=, 100000);
      }
    }
}

static void
test_snapshot_host_memory (void)
{
  /* record_pinned_host_memory=True: the device part reads as without it,
   * the host part is counted and said to be left out */
  g_autoptr(TsRecorder) rec = import ("snapshot-v2-host.p4.pickle");
  g_autoptr(TsRecorder) plain = import ("snapshot-v2.p4.pickle");

  check_snapshot ("snapshot-v2-host.p4.pickle", "snapshot-v2.expected");
  g_assert_true (has_note (rec, "pinned host memory was recorded (1 host segments, 3 host trace entries): "
                           "not shown"));
  g_assert_false (has_note (plain, "pinned host memory"));
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_ALLOC), ==, ts_recorder_get_count (plain, TS_RECORD_ALLOC));
}

static void
test_snapshot_legacy (void)
{
  g_autoptr(TsRecorder) rec = NULL;

  check_snapshot ("snapshot-v1.13.p4.pickle", "snapshot-v1.13.expected");
  check_snapshot ("snapshot-v1.13.json", "snapshot-v1.13.expected");
  check_snapshot ("snapshot-v2.0.p4.pickle", "snapshot-v2.0.expected");
  rec = import ("snapshot-v1.13.p4.pickle");
  g_assert_true (has_note (rec, "PyTorch 1.13 form"));
  g_assert_true (has_note (rec, "no allocator history"));
  /* history[0].real_size is the request, history[0].frames the stack */
  {
    g_autoptr(TsMemoryReplay) replay = ts_memory_replay_new (rec);
    gboolean found = FALSE;
    for (guint i = 0; i < ts_memory_replay_get_n_allocations (replay); i++)
      {
        const TsMemoryAllocation *a = ts_memory_replay_get_allocation (replay, i);
        if (a->requested == 999999)
          {
            found = TRUE;
            g_assert_cmpstr (ts_recorder_lookup (rec, a->loc.function), ==, "loss");
            g_assert_cmpuint (a->loc.line, ==, 30);
          }
      }
    g_assert_true (found);
  }
}

static void
test_kineto (void)
{
  const char *files[] = { "ranks/rank0.pt.trace.json", "ranks/worker1.pt.trace.json.gz", "kineto-old-absolute.json" };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autoptr(TsRecorder) rec = import (files[f]);
      g_autoptr(TsTraceDocument) doc = ts_trace_document_new (rec);
      TsKernelRecord k;
      TsDeviceRecord d;
      guint32 api;
      TsApiCallRecord a;
      guint n_comm = 0;

      g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_KERNEL), ==, 4);
      g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_MEMCPY), ==, 2);
      g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_MEMSET), ==, 2);
      g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_SYNC), ==, 2);
      g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_API_CALL), ==, 14);
      /* ProfilerStep#0/1 on the host and on the GPU: 4 ranges */
      g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_NVTX), ==, 8);
      /* CUDA [memory] events only: 2 × (allocated, reserved) */
      g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_COUNTER), ==, 4);
      g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_DEVICE), ==, 1);
      ts_recorder_get (rec, TS_RECORD_DEVICE, 0, &d);
      g_assert_cmpstr (ts_recorder_lookup (rec, d.name), ==, "NVIDIA A100-PG509-200");
      g_assert_cmpuint (d.sm_count, ==, 108);
      g_assert_cmpuint (d.cc_major, ==, 8);

      ts_recorder_get (rec, TS_RECORD_KERNEL, 0, &k);
      g_assert_cmpstr (ts_recorder_lookup (rec, k.name), ==, "ampere_sgemm_128x64_tn");
      /* dur 200.123 µs (rank 1: +50) to the nanosecond */
      if (f < 2)
        g_assert_cmpint (k.end - k.start, ==, f == 1 ? 250123 : 200123);
      g_assert_cmpuint (k.grid[0], ==, 7);
      g_assert_cmpuint (k.block[0], ==, 256);
      /* launch → kernel by correlation */
      g_assert_true (ts_trace_document_find_api_call (doc, k.correlation, &api));
      ts_recorder_get (rec, TS_RECORD_API_CALL, api, &a);
      g_assert_cmpstr (ts_recorder_lookup (rec, a.name), ==, "cudaLaunchKernel");
      /* 30.5 - 20.001 µs; the old absolute form holds 16 digits of µs
       * in a double (as Kineto's did), so only to a few ns there */
      if (f < 2)
        g_assert_cmpint (k.start - a.start, ==, 10499);
      else
        g_assert_cmpint (ABS (k.start - a.start - 10499), <=, 5);

      for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_KERNEL); i++)
        {
          ts_recorder_get (rec, TS_RECORD_KERNEL, i, &k);
          n_comm += ts_kernel_name_is_communication (ts_recorder_lookup (rec, k.name));
        }
      g_assert_cmpuint (n_comm, ==, 2);
      g_assert_true (has_note (rec, "6 launch-to-kernel flows, 2 unmatched flow ends dropped"));
      {
        TsMemcpyRecord m;
        ts_recorder_get (rec, TS_RECORD_MEMCPY, 0, &m);
        g_assert_cmpuint (m.kind, ==, TS_COPY_HOST_TO_DEVICE);
        g_assert_cmpuint (m.flags, ==, TS_COPY_FLAG_PINNED);
        g_assert_cmpuint (m.bytes, ==, 1048576);
      }
    }
}

static void
test_kineto_legacy_profiler (void)
{
  /* What Debian's torch 1.13 (no Kineto) writes from torch.profiler. */
  g_autoptr(TsRecorder) rec = import ("kineto-cpu.json");

  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_API_CALL), >, 5);
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_THREAD), >=, 1);
  /* its ts count µs from the profiler's start: no date is made up */
  {
    gint64 epoch;
    g_assert_false (ts_trace_import_get_epoch (rec, &epoch));
    g_assert_true (has_note (rec, "clock: times count from the profiler's start, not a wall clock"));
    g_assert_false (has_note (rec, "timestamps taken as absolute"));
  }
}

static void
test_ranks (void)
{
  g_autoptr(TsRecorder) rec = import ("ranks");
  TsKernelRecord k0, k1;
  TsDeviceRecord d;
  guint64 c0 = 0, c1 = 0;

  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_DEVICE), ==, 2);
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_KERNEL), ==, 8);
  ts_recorder_get (rec, TS_RECORD_DEVICE, 1, &d);
  g_assert_cmpstr (ts_recorder_lookup (rec, d.model), ==, "kineto rank 1");
  ts_recorder_get (rec, TS_RECORD_KERNEL, 0, &k0);
  ts_recorder_get (rec, TS_RECORD_KERNEL, 4, &k1);
  g_assert_cmpuint (k0.device, ==, 0);
  g_assert_cmpuint (k1.device, ==, 1);
  /* same clock: rank 1's events are 3 µs later in the file */
  g_assert_cmpint (k1.start - k0.start, ==, 3000);
  /* correlation ids are per rank */
  c0 = k0.correlation;
  c1 = k1.correlation;
  g_assert_cmpuint (c0, !=, c1);
  g_assert_true (has_note (rec, "2 ranks"));

  /* the per-rank comparison */
  {
    g_autoptr(GArray) ranks = NULL;
    g_autoptr(GArray) steps = NULL;
    const TsRankStats *r0, *r1;
    g_assert_true (ts_rank_stats_compute (rec, &ranks, &steps));
    g_assert_cmpuint (ranks->len, ==, 2);
    r0 = &g_array_index (ranks, TsRankStats, 0);
    r1 = &g_array_index (ranks, TsRankStats, 1);
    g_assert_cmpint (r0->rank, ==, 0);
    g_assert_cmpuint (r0->n_steps, ==, 2);
    g_assert_cmpint (r0->step_max, ==, 900500);
    g_assert_cmpint (r1->step_max, ==, 1000500);
    /* NCCL [150, 450) µs under the sgemm [30.5, 230.623) µs */
    g_assert_cmpint (r0->comm, ==, 600000);
    g_assert_cmpint (r0->overlap, ==, 2 * 80623);
    /* rank 1's all-reduce [47, 447) µs (it waits for rank 0's to end) under
     * its sgemm [30.5, 280.623) µs */
    g_assert_cmpint (r1->overlap, ==, 2 * 233623);
    g_assert_cmpint (r0->idle, ==, r0->span - r0->busy);
    g_assert_cmpuint (steps->len, ==, 2);
    g_assert_cmpint (g_array_index (steps, TsRankStep, 1).slowest_rank, ==, 1);
    g_assert_cmpint (g_array_index (steps, TsRankStep, 1).slowest, ==, 1000500);
    g_assert_cmpint (g_array_index (steps, TsRankStep, 1).fastest_rank, ==, 0);
  }
  /* one file is not ranked */
  {
    g_autoptr(TsRecorder) one = import ("ranks/rank0.pt.trace.json");
    g_autoptr(GArray) ranks = NULL;
    g_autoptr(GArray) steps = NULL;
    g_assert_false (ts_rank_stats_compute (one, &ranks, &steps));
  }
}

/* The start of the first kernel of each rank's device (the compute
 * kernel every rank runs at the same true instant). */
static TsTime
first_kernel_start (TsRecorder *rec,
                    guint32     device)
{
  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_KERNEL); i++)
    {
      TsKernelRecord k;
      ts_recorder_get (rec, TS_RECORD_KERNEL, i, &k);
      if (k.device == device)
        return k.start;
    }
  g_assert_not_reached ();
}

/* ranks-skew and ranks-nocoll: make-pytorch-data.py (write_skewed_ranks)
 * writes them with known clock offsets. */
static void
test_skewed_directory (void)
{
  g_autoptr(TsRecorder) rec = import ("ranks-skew");
  g_autoptr(TsRecorder) raw = import_with_flags ("ranks-skew", TS_IMPORT_NO_CLOCK_ALIGN);
  TsTime t0 = first_kernel_start (rec, 0);

  /* rank 1's clock is 2500.25 µs ahead and its all-reduces end a median
   * 2 µs late: it moves back 2502.25 µs, so its compute kernel lands 2 µs
   * before rank 0's. Rank 2 (1234.567 µs behind, base 1 s later, no
   * collective with rank 0) is aligned through rank 1: the same 2 µs. */
  g_assert_true (has_note (rec, "clock: rank 1 shifted by -2502.250 µs onto rank 0's: its 5 collectives"));
  g_assert_true (has_note (rec, "clock: rank 2 shifted by +1232.567 µs onto rank 0's: its 3 collectives"));
  g_assert_true (has_note (rec, "clock: rank 2's baseTimeNanoseconds differs from the first trace's by 1000000000 ns: "
                           "its times were moved"));
  g_assert_cmpint (first_kernel_start (rec, 1) - t0, ==, -2000);
  g_assert_cmpint (first_kernel_start (rec, 2) - t0, ==, -2000);

  /* turned off: the times as written, and said so */
  t0 = first_kernel_start (raw, 0);
  g_assert_cmpint (first_kernel_start (raw, 1) - t0, ==, 2500250);
  g_assert_cmpint (first_kernel_start (raw, 2) - t0, ==, -1234567 - G_GINT64_CONSTANT (1000000000));
  g_assert_false (has_note (raw, "shifted by"));
  g_assert_true (has_note (raw, "clock: alignment on collectives turned off"));
  g_assert_true (has_note (raw, "clock: rank 2's baseTimeNanoseconds differs from the first trace's by 1000000000 ns: "
                           "this trace is not aligned"));
}

static void
test_agreeing_and_without_collectives (void)
{
  g_autoptr(TsRecorder) same = import ("ranks");
  g_autoptr(TsRecorder) none = import ("ranks-nocoll");

  /* one clock: the all-reduces end together, nothing moves (rank 1's
   * events are written 3 µs later) */
  g_assert_true (has_note (same, "clock: the ranks agree"));
  g_assert_false (has_note (same, "shifted by"));
  g_assert_cmpint (first_kernel_start (same, 1) - first_kernel_start (same, 0), ==, 3000);

  /* no collectives: left alone (rank 1 stays 5 ms later), and noted */
  g_assert_cmpint (first_kernel_start (none, 1) - first_kernel_start (none, 0), ==, 5000000);
  g_assert_true (has_note (none, "clock: rank 1 has fewer than 2 collectives in common with the other "
                           "ranks: left on its own clock"));
  g_assert_true (has_note (none, "their clocks could not be checked"));
  g_assert_false (has_note (none, "shifted by"));
}

static void
test_together (void)
{
  /* A snapshot and a trace of one run: memory under the timeline, on the
   * profiler's clock (time_us = baseTimeNanoseconds / 1000 + ts). */
  g_autoptr(TsRecorder) rec = import ("together");
  g_autoptr(TsTraceDocument) doc = ts_trace_document_new (rec);
  TsKernelRecord k;
  gboolean found = FALSE, memory_track = FALSE;

  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_DEVICE), ==, 1);
  ts_recorder_get (rec, TS_RECORD_KERNEL, 0, &k);
  g_assert_cmpint (k.start, ==, 30500);
  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_ALLOC); i++)
    {
      TsAllocRecord a;
      ts_recorder_get (rec, TS_RECORD_ALLOC, i, &a);
      if (a.action == TS_ALLOC_ACTION_SEGMENT_ALLOC && a.correlation != TS_IMPORT_SYNTHETIC_CORRELATION)
        {
          g_assert_cmpint (a.time, ==, 30000);
          g_assert_cmpuint (a.device, ==, k.device);
          found = TRUE;
        }
    }
  g_assert_true (found);
  /* the snapshot's counters only, not the trace's [memory] totals */
  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_COUNTER); i++)
    {
      TsCounterRecord c;
      ts_recorder_get (rec, TS_RECORD_COUNTER, i, &c);
      g_assert_cmpint (c.value, <=, 20 << 20);
    }
  for (guint i = 0; i < ts_trace_document_get_n_tracks (doc); i++)
    if (ts_trace_document_get_track (doc, i)->kind == TS_TRACK_MEMORY &&
        ts_trace_document_get_track (doc, i)->n_samples > 0)
      memory_track = TRUE;
  g_assert_true (memory_track);
  g_assert_true (has_note (rec, "memory comes from the snapshot"));
}

static void
check_fails (const char *name,
             const char *needle)
{
  g_autofree char *path = data_path (name);
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRecorder) rec = ts_recorder_new ();

  g_assert_false (ts_trace_import_open (path, rec, &error));
  g_assert_nonnull (error);
  g_assert_null (strchr (error->message, '\n'));
  if (strstr (error->message, needle) == NULL)
    g_error ("%s: \"%s\" lacks \"%s\"", name, error->message, needle);
}

static void
test_hostile (void)
{
  check_fails ("hostile-deep.json", "nested deeper");
  check_fails ("hostile-memo.pickle", "memo reference 7 out of range");
  check_fails ("hostile-biglen.pickle", "over the 256 MiB limit");
  check_fails ("hostile-deep.pickle", "not a memory snapshot");
  check_fails ("hostile-stack.pickle", "STOP with");
  check_fails ("hostile-global.pickle", "unsupported opcode");
}

/* Every prefix of each file, and bytes flipped: an error or a result,
 * never a crash (run under the sanitizers in CI). */
static void
test_truncated_and_garbage (void)
{
  const struct { const char *name; TsImportFormat format; } files[] = {
    { "snapshot-v2.p4.pickle", TS_IMPORT_FORMAT_SNAPSHOT_PICKLE },
    { "snapshot-v2.p2.pickle", TS_IMPORT_FORMAT_SNAPSHOT_PICKLE },
    { "snapshot-v2.jit.pickle", TS_IMPORT_FORMAT_SNAPSHOT_PICKLE },
    { "snapshot-v1.13.json", TS_IMPORT_FORMAT_SNAPSHOT_JSON },
    { "kineto-old-absolute.json", TS_IMPORT_FORMAT_KINETO_JSON },
    { "kineto-memory.json", TS_IMPORT_FORMAT_KINETO_JSON },
    { "snapshot-v2-host.p4.pickle", TS_IMPORT_FORMAT_SNAPSHOT_PICKLE },
  };
  GRand *rand = g_rand_new_with_seed (19);

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *path = data_path (files[f].name);
      g_autofree guint8 *data = NULL;
      gsize len;
      guint step;

      g_assert_true (g_file_get_contents (path, (char **) &data, &len, NULL));
      step = len > 4000 ? 7 : 1;
      for (gsize n = 0; n < len; n += step)
        {
          g_autoptr(TsRecorder) rec = ts_recorder_new ();
          g_autoptr(GError) error = NULL;
          gboolean ok = ts_trace_import_bytes (files[f].format, data, n, rec, &error);
          /* A prefix is never a whole file, except JSON that ends in the
           * last closing bracket's trailing space. */
          if (ok)
            g_assert_cmpuint (n, >=, len - 2);
          else
            g_assert_null (strchr (error->message, '\n'));
        }
      for (guint round = 0; round < 300; round++)
        {
          g_autofree guint8 *copy = g_memdup2 (data, len);
          g_autoptr(TsRecorder) rec = ts_recorder_new ();
          g_autoptr(GError) error = NULL;
          for (guint k = 0; k < 4; k++)
            copy[g_rand_int_range (rand, 0, (gint32) len)] = (guint8) g_rand_int (rand);
          if (!ts_trace_import_bytes (files[f].format, copy, len, rec, &error))
            g_assert_null (strchr (error->message, '\n'));
          else
            {
              /* whatever loaded must replay and index without trouble */
              g_autoptr(TsMemoryReplay) replay = ts_memory_replay_new (rec);
              g_autoptr(TsTraceDocument) doc = ts_trace_document_new (rec);
              (void) replay;
              (void) doc;
            }
        }
    }
  g_rand_free (rand);
}

static void
test_detect (void)
{
  const struct { const char *name; TsImportFormat format; } cases[] = {
    { "snapshot-v2.p2.pickle", TS_IMPORT_FORMAT_SNAPSHOT_PICKLE },
    { "snapshot-v2.json", TS_IMPORT_FORMAT_SNAPSHOT_JSON },
    { "snapshot-v1.13.json", TS_IMPORT_FORMAT_SNAPSHOT_JSON },
    { "kineto-cpu.json", TS_IMPORT_FORMAT_KINETO_JSON },
    { "ranks/worker1.pt.trace.json.gz", TS_IMPORT_FORMAT_KINETO_JSON },
    { "ranks", TS_IMPORT_FORMAT_RANK_DIRECTORY },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = data_path (cases[i].name);
      g_assert_cmpint (ts_trace_import_detect (path, NULL), ==, cases[i].format);
    }
}

/* Pages mapped before recording and unmapped in the trace: undoing the
 * unmap gives them back to the range beside them, so the state at the
 * start is one 40 MiB mapped range of the (0, 1) pool, as PyTorch reports
 * a contiguous mapped range, not a default-pool range next to it. */
static void
test_snapshot_unmap_before (void)
{
  static const char json[] =
    "{\"segments\": [{\"device\": 0, \"address\": 1073741824, \"total_size\": 20971520, "
    "\"stream\": 0, \"segment_type\": \"large\", \"segment_pool_id\": [0, 1], \"is_expandable\": true, "
    "\"blocks\": [{\"address\": 1073741824, \"size\": 20971520, \"state\": \"inactive\"}]}], "
    "\"device_traces\": [[{\"action\": \"segment_unmap\", \"addr\": 1094713344, \"size\": 20971520, "
    "\"stream\": 0, \"time_us\": 5}]]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(TsMemoryReplay) replay = NULL;
  g_autoptr(TsMemoryState) start = NULL, end = NULL;
  const TsMemorySegment *seg;

  g_assert_true (ts_trace_import_bytes (TS_IMPORT_FORMAT_SNAPSHOT_JSON, (const guint8 *) json, sizeof json - 1, rec, &error));
  g_assert_no_error (error);
  replay = ts_memory_replay_new (rec);
  g_assert_cmpuint (ts_memory_replay_get_n_skipped (replay), ==, 0);
  g_assert_cmpuint (ts_memory_replay_get_n_actions (replay), ==, 3);
  start = ts_memory_replay_state_at (replay, 2);
  g_assert_cmpuint (start->segments->len, ==, 1);
  seg = &g_array_index (start->segments, TsMemorySegment, 0);
  g_assert_cmpuint (seg->total_size, ==, 40 << 20);
  g_assert_true (seg->is_expandable);
  g_assert_cmpuint (seg->pool_id.first, ==, 0);
  g_assert_cmpuint (seg->pool_id.second, ==, 1);
  end = ts_memory_replay_state_at (replay, 3);
  g_assert_cmpuint (end->segments->len, ==, 1);
  seg = &g_array_index (end->segments, TsMemorySegment, 0);
  g_assert_cmpuint (seg->total_size, ==, 20 << 20);
  g_assert_cmpuint (seg->pool_id.second, ==, 1);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pytorch-import/detect", test_detect);
  g_test_add_func ("/pytorch-import/snapshot/protocols", test_snapshot_protocols);
  g_test_add_func ("/pytorch-import/snapshot/legacy", test_snapshot_legacy);
  g_test_add_func ("/pytorch-import/snapshot/host-memory", test_snapshot_host_memory);
  g_test_add_func ("/pytorch-import/snapshot/unmap-before", test_snapshot_unmap_before);
  g_test_add_func ("/pytorch-import/kineto/files", test_kineto);
  g_test_add_func ("/pytorch-import/kineto/legacy-profiler", test_kineto_legacy_profiler);
  g_test_add_func ("/pytorch-import/kineto/ranks", test_ranks);
  g_test_add_func ("/pytorch-import/kineto/ranks-clock-skew", test_skewed_directory);
  g_test_add_func ("/pytorch-import/kineto/ranks-clock-agree-or-unknown", test_agreeing_and_without_collectives);
  g_test_add_func ("/pytorch-import/together", test_together);
  g_test_add_func ("/pytorch-import/hostile", test_hostile);
  g_test_add_func ("/pytorch-import/truncated-and-garbage", test_truncated_and_garbage);
  return g_test_run ();
}
