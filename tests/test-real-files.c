/* test-real-files.c: the files real PyTorch 2.11 wrote on an H200
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tests/data/real (its README says how each file was made). Every figure
 * here was worked out from the files themselves by read-real.py, with
 * Python's pickle and json only: the final allocator state of each
 * snapshot (NAME.expected, every segment and block), allocated, reserved
 * and peak, the free space per pool, and the Kineto trace's counts.
 */

#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include <glib/gstdio.h>

#include "ts-memory-replay.h"
#include "ts-snapshot-export.h"
#include "ts-trace-import.h"
#include "ts-trace-reader.h"

static char *
real_path (const char *name)
{
  return g_build_filename (TS_TEST_SRCDIR, "data", "real", name, NULL);
}

static TsRecorder *
import_path (const char *path)
{
  const char *paths[] = { path };
  g_autoptr(GError) error = NULL;
  TsRecorder *rec = ts_recorder_new ();

  if (!ts_trace_import_open_with_flags (paths, 1, TS_IMPORT_FLAGS_NONE, rec, &error))
    g_error ("%s: %s", path, error->message);
  return rec;
}

static TsRecorder *
import (const char *name)
{
  g_autofree char *path = real_path (name);

  return import_path (path);
}


/* The replay's final state in read-real.py's layout form. */
static char *
layout (const TsMemoryState *st)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < st->segments->len; i++)
    {
      const TsMemorySegment *s = &g_array_index (st->segments, TsMemorySegment, i);

      g_string_append_printf (out, "segment %u 0x%" G_GINT64_MODIFIER "x %" G_GUINT64_FORMAT " %s pool %"
                              G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT "%s\n", s->device, s->address,
                              s->total_size, s->is_small ? "small" : "large", s->pool_id.first,
                              s->pool_id.second, s->is_expandable ? " expandable" : "");
      for (guint j = 0; j < s->n_blocks; j++)
        {
          const TsMemoryBlock *b = &g_array_index (st->blocks, TsMemoryBlock, s->first_block + j);

          g_string_append_printf (out, "  block 0x%" G_GINT64_MODIFIER "x %" G_GUINT64_FORMAT " %s",
                                  b->address, b->size, ts_block_state_to_string (b->state));
          if (b->state != TS_BLOCK_STATE_INACTIVE)
            g_string_append_printf (out, " requested %" G_GUINT64_FORMAT, b->requested_size);
          g_string_append_c (out, '\n');
        }
    }
  return g_string_free (out, FALSE);
}

/* The final layout of a recorder's replay, checked to replay whole. */
static char *
final_layout (TsRecorder *rec)
{
  g_autoptr(TsMemoryReplay) replay = ts_memory_replay_new (rec);
  g_autoptr(TsMemoryState) st = ts_memory_replay_state_at (replay, ts_memory_replay_get_n_actions (replay));

  g_assert_cmpuint (ts_memory_replay_get_n_skipped (replay), ==, 0);
  return layout (st);
}

/* Free bytes in the segments of one pool (private pool id, small/large). */
static guint64
pool_free (const TsMemoryState *st,
           guint64              pool,
           gboolean             small)
{
  guint64 bytes = 0;

  for (guint i = 0; i < st->segments->len; i++)
    {
      const TsMemorySegment *s = &g_array_index (st->segments, TsMemorySegment, i);
      if (s->pool_id.first == pool && s->is_small == small)
        bytes += s->total_size - s->active_size;
    }
  return bytes;
}

/* The last sample of a counter (the importers write them in time order). */
static gint64
last_counter (TsRecorder *rec,
              guint32     counter)
{
  gint64 value = -1;

  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_COUNTER); i++)
    {
      TsCounterRecord c;
      ts_recorder_get (rec, TS_RECORD_COUNTER, i, &c);
      if (c.counter == counter)
        value = c.value;
    }
  return value;
}

typedef struct
{
  const char *file;
  const char *expected;
  gint64      allocated, reserved, peak;
  guint       n_segments, n_small, n_private;   /* n_private: in graph pool (1, 0) */
  guint64     free_small, free_large, free_private_small;
} SnapshotCase;

static void
test_snapshots (void)
{
  /* At dump time real PyTorch printed memory_allocated() and
   * memory_reserved(): the same allocated and reserved figures. */
  const SnapshotCase cases[] = {
    { "snapshot_plain.pickle", "snapshot_plain.expected", 68481024, 69206016, 68691456,
      3, 1, 0, 724992, 0, 0 },
    { "snapshot_expandable.pickle", "snapshot_expandable.expected", 68481024, 85983232, 68691456,
      2, 1, 0, 724992, 16777216, 0 },
    { "snapshot_graph.pickle", "snapshot_graph.expected", 171276800, 385875968, 380992000,
      10, 4, 2, 3869696, 209715200, 1014272 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const SnapshotCase *c = &cases[i];
      g_autoptr(TsRecorder) rec = import (c->file);
      g_autoptr(TsMemoryReplay) replay = ts_memory_replay_new (rec);
      g_autoptr(TsMemoryState) st = ts_memory_replay_state_at (replay, ts_memory_replay_get_n_actions (replay));
      g_autofree char *expected_path = real_path (c->expected);
      g_autofree char *expected = NULL, *got = NULL;
      const TsMemoryStats *stats = &st->stats[0];
      guint n_small = 0, n_private = 0;
      TsDeviceRecord dev;

      g_test_message ("%s", c->file);
      /* every trace entry fits the allocator's state */
      g_assert_cmpuint (ts_memory_replay_get_n_skipped (replay), ==, 0);
      g_assert_cmpint (stats->allocated_bytes[TS_STAT_TYPE_ALL].current, ==, c->allocated);
      g_assert_cmpint (stats->reserved_bytes[TS_STAT_TYPE_ALL].current, ==, c->reserved);
      g_assert_cmpint (stats->allocated_bytes[TS_STAT_TYPE_ALL].peak, ==, c->peak);
      g_assert_cmpint (last_counter (rec, TS_COUNTER_ALLOCATED_BYTES), ==, c->allocated);
      g_assert_cmpint (last_counter (rec, TS_COUNTER_RESERVED_BYTES), ==, c->reserved);

      /* the whole layout, block by block, free blocks included */
      g_assert_true (g_file_get_contents (expected_path, &expected, NULL, NULL));
      got = layout (st);
      g_assert_cmpstr (got, ==, expected);
      g_assert_cmpuint (st->segments->len, ==, c->n_segments);
      for (guint s = 0; s < st->segments->len; s++)
        {
          const TsMemorySegment *seg = &g_array_index (st->segments, TsMemorySegment, s);
          n_small += seg->is_small;
          n_private += seg->pool_id.first == 1 && seg->pool_id.second == 0;
        }
      g_assert_cmpuint (n_small, ==, c->n_small);
      g_assert_cmpuint (n_private, ==, c->n_private);
      g_assert_cmpuint (pool_free (st, 0, TRUE), ==, c->free_small);
      g_assert_cmpuint (pool_free (st, 0, FALSE), ==, c->free_large);
      g_assert_cmpuint (pool_free (st, 1, TRUE), ==, c->free_private_small);

      /* a snapshot does not say what the device is */
      g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_DEVICE), ==, 1);
      ts_recorder_get (rec, TS_RECORD_DEVICE, 0, &dev);
      g_assert_cmpuint (dev.sm_count, ==, 0);
      g_assert_cmpuint (dev.total_memory, ==, 0);

      /* exported as PyTorch writes it (trace sizes are requests) and
       * imported again: the same layout */
      {
        g_autofree char *tmp = NULL;
        g_autoptr(GError) error = NULL;
        g_autoptr(TsRecorder) again = NULL;
        g_autofree char *again_layout = NULL;
        int fd = g_file_open_tmp ("real-files-XXXXXX.pickle", &tmp, &error);
        FILE *out;

        g_assert_no_error (error);
        out = fdopen (fd, "wb");
        g_assert_cmpint (ts_memory_snapshot_write_pickle (rec, out, &error), ==,
                         (gint64) (i == 2 ? 538 : 269));
        g_assert_no_error (error);
        fclose (out);
        again = import_path (tmp);
        again_layout = final_layout (again);
        g_assert_cmpstr (again_layout, ==, expected);
        g_unlink (tmp);
      }
    }
}

static void
test_kineto (void)
{
  g_autoptr(TsRecorder) rec = import ("kineto_mlp.json");
  g_autoptr(TsMemoryReplay) replay = ts_memory_replay_new (rec);
  g_autoptr(TsMemoryState) st = ts_memory_replay_state_at (replay, ts_memory_replay_get_n_actions (replay));
  TsKernelRecord first = { 0 };
  TsStreamRecord stream = { 0 };
  TsDeviceRecord dev;
  gint64 peak = 0;

  /* 72 kernels, 6 memsets; cpu_op 348 + python_function 898 +
   * cuda_runtime 82 + cuda_driver 4 host calls */
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_KERNEL), ==, 72);
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_MEMSET), ==, 6);
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_API_CALL), ==, 1332);
  first.start = G_MAXINT64;
  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_KERNEL); i++)
    {
      TsKernelRecord k;
      ts_recorder_get (rec, TS_RECORD_KERNEL, i, &k);
      if (k.start < first.start)
        first = k;
    }
  g_assert_cmpstr (ts_recorder_lookup (rec, first.name), ==,
                   "void scal_kernel<float, float, 1, true, 6, 5, 5, 3>(cublasTransposeParams<float>, "
                   "float const*, float*, float const*)");
  /* every kernel is on CUPTI's stream 7, the legacy default stream */
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_STREAM), ==, 1);
  ts_recorder_get (rec, TS_RECORD_STREAM, 0, &stream);
  g_assert_cmpuint (first.stream, ==, stream.stream);
  g_assert_true (stream.is_default);

  /* with_stack's Python frames: each host call's site is the user's
   * function that called into torch (Kineto names a function by its first
   * line): mlp_step (real-files.py:10) for 988 calls, the module's code
   * (line 53) for 122; the autograd thread's 222 calls have none */
  {
    guint n_step = 0, n_module = 0, n_other = 0;

    for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_API_CALL); i++)
      {
        TsApiCallRecord a;
        const char *file, *function;

        ts_recorder_get (rec, TS_RECORD_API_CALL, i, &a);
        if (a.loc.file == 0)
          continue;
        file = ts_recorder_lookup (rec, a.loc.file);
        function = ts_recorder_lookup (rec, a.loc.function);
        if (g_str_equal (file, "real-files.py") && a.loc.line == 10 && g_str_equal (function, "mlp_step"))
          n_step++;
        else if (g_str_equal (file, "real-files.py") && a.loc.line == 53 && g_str_equal (function, "<module>"))
          n_module++;
        else
          n_other++;
      }
    g_assert_cmpuint (n_step, ==, 988);
    g_assert_cmpuint (n_module, ==, 122);
    g_assert_cmpuint (n_other, ==, 0);
  }

  /* deviceProperties */
  ts_recorder_get (rec, TS_RECORD_DEVICE, 0, &dev);
  g_assert_cmpstr (ts_recorder_lookup (rec, dev.name), ==, "NVIDIA H200");
  g_assert_cmpuint (dev.sm_count, ==, 132);
  g_assert_cmpuint (dev.cc_major, ==, 9);
  g_assert_cmpuint (dev.cc_minor, ==, 0);
  g_assert_cmpuint (dev.total_memory, ==, G_GUINT64_CONSTANT (150109880320));

  /* 108 CUDA [memory] events: two counters each, and the replay follows
   * their Total Allocated, the 68481024 bytes from before the profiler
   * included (max Total Allocated 68691456) */
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_COUNTER), ==, 216);
  g_assert_cmpint (last_counter (rec, TS_COUNTER_ALLOCATED_BYTES), ==, 68481024);
  g_assert_cmpint (last_counter (rec, TS_COUNTER_RESERVED_BYTES), ==, 69206016);
  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_COUNTER); i++)
    {
      TsCounterRecord c;
      ts_recorder_get (rec, TS_RECORD_COUNTER, i, &c);
      if (c.counter == TS_COUNTER_ALLOCATED_BYTES)
        peak = MAX (peak, c.value);
    }
  g_assert_cmpint (peak, ==, 68691456);
  g_assert_cmpuint (ts_memory_replay_get_n_skipped (replay), ==, 0);
  g_assert_cmpint (st->stats[0].allocated_bytes[TS_STAT_TYPE_ALL].current, ==, 68481024);
  g_assert_cmpint (st->stats[0].allocated_bytes[TS_STAT_TYPE_ALL].peak, ==, 68691456);
}

/* The file inflated through a GConverterInputStream: another path than
 * the reader's own. */
static GBytes *
inflate_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GInputStream) raw = G_INPUT_STREAM (g_file_read (file, NULL, &error));
  g_autoptr(GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr(GInputStream) in = g_converter_input_stream_new (raw, G_CONVERTER (z));
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();

  g_assert_no_error (error);
  g_output_stream_splice (out, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &error);
  g_assert_no_error (error);
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
}

static void
test_gzip_trace (void)
{
  g_autofree char *path = real_path ("stream_race.real.trace.gz");
  g_autoptr(GBytes) plain = inflate_file (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRecorder) loaded = NULL;
  g_autoptr(TsRecorder) reference = ts_recorder_new ();
  g_autoptr(TsTraceReader) reader = ts_trace_reader_new (reference);
  TsTraceSummary summary;
  gboolean cut_short = TRUE;
  gsize len;
  const guint8 *data = g_bytes_get_data (plain, &len);

  /* `tensorscope-cli record` of stream_race.py on the H200, gzip'd */
  loaded = ts_trace_load (path, &cut_short, &error);
  g_assert_no_error (error);
  g_assert_false (cut_short);
  g_assert_true (ts_trace_reader_load_data (reader, data, len, &error));
  g_assert_no_error (error);
  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    g_assert_cmpuint (ts_recorder_get_count (loaded, k), ==, ts_recorder_get_count (reference, k));
  g_assert_cmpuint (ts_recorder_get_count (loaded, TS_RECORD_KERNEL), ==, 3);
  g_assert_cmpuint (ts_recorder_get_count (loaded, TS_RECORD_API_CALL), ==, 711);

  g_assert_true (ts_trace_read_summary (path, &summary, &error));
  g_assert_no_error (error);
  g_assert_true (summary.complete);
  g_assert_cmpuint (summary.n_records[TS_RECORD_KERNEL], ==, 3);

  /* the detector sends it to our reader, not to an importer */
  g_assert_cmpint (ts_trace_import_detect (path, NULL), ==, TS_IMPORT_FORMAT_TENSORSCOPE);
}

static void
test_gzip_cut (void)
{
  g_autofree char *path = real_path ("stream_race.real.trace.gz");
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(TsTraceReader) reader = ts_trace_reader_new (rec);
  gsize len;

  /* A gzip stream cut in the middle gives what it holds: a cut-short
   * trace, as a killed run leaves. */
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_true (ts_trace_reader_load_data (reader, (const guint8 *) contents, len / 2, &error));
  g_assert_no_error (error);
  g_assert_true (ts_trace_reader_get_cut_short (reader));
  g_assert_cmpuint (ts_trace_reader_get_n_records (reader), <, 720);

  /* damaged bytes are an error that says so, not a crash */
  {
    g_autoptr(TsRecorder) rec2 = ts_recorder_new ();
    g_autoptr(TsTraceReader) reader2 = ts_trace_reader_new (rec2);
    g_autoptr(GError) error2 = NULL;

    for (gsize i = 12; i < 40; i++)
      contents[i] ^= 0x5a;
    g_assert_false (ts_trace_reader_load_data (reader2, (const guint8 *) contents, len, &error2));
    g_assert_error (error2, TS_TRACE_READER_ERROR, TS_TRACE_READER_ERROR_CORRUPT);
    g_assert_nonnull (strstr (error2->message, "gzip"));
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/real-files/snapshots", test_snapshots);
  g_test_add_func ("/real-files/kineto", test_kineto);
  g_test_add_func ("/real-files/gzip-trace", test_gzip_trace);
  g_test_add_func ("/real-files/gzip-cut", test_gzip_cut);

  return g_test_run ();
}
