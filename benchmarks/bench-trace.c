/* bench-trace.c: writing and loading a trace of ten million kernel records
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The records look like a training loop's: 40 kernel names, each with its
 * own launch shape, FLOPs and bytes; launches a few microseconds apart on
 * 4 devices x 8 streams; durations that depend on the kernel, with jitter;
 * correlations that grow by one or two. Prints:
 *  - write: a writer attached to the full recorder (the replay), closed;
 *    MB/s of file written and the file's bytes per record,
 *  - load: ts_trace_load of the file (mapped, decoded, appended), and the
 *    summary `tensorscope-cli info` reads from the index footer,
 *  - append: ns per kernel appended with a writer attached and without one
 *    (1 M records, the writer thread encoding and writing meanwhile).
 * Each a median of N_RUNS. The file goes in the temporary directory (set
 * TMPDIR for another disk); the page cache is warm, so these are CPU
 * figures, not disk ones.
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "ts-trace-reader.h"
#include "ts-trace-writer.h"

#include "bench-util.h"

#define N_RECORDS    10000000
#define N_APPEND     1000000
#define N_RUNS       3
#define N_NAMES      40
#define N_STREAMS    32

static guint64
next_random (guint64 *state)
{
  /* xorshift64*: the same sequence on every machine. */
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 2685821657736338717ull;
}

typedef struct
{
  TsStringId name;
  guint32    grid[3];
  guint32    block[3];
  guint32    sms;
  guint64    flops;
  guint64    bytes;
  TsTime     duration;
} KernelShape;

static void
append_kernels (TsRecorder *recorder,
                guint       n)
{
  static const guint32 grids[] = { 1, 2, 8, 64, 108, 132, 256, 1024, 4096, 16384 };
  static const guint32 blocks[] = { 64, 128, 256, 512, 1024 };
  KernelShape shapes[N_NAMES];
  TsTime stream_free[N_STREAMS] = { 0 };
  guint64 state = 0x9e3779b97f4a7c15ull;
  TsTime host = 1000000;
  guint64 correlation = 1;

  for (guint i = 0; i < N_NAMES; i++)
    {
      KernelShape *s = &shapes[i];
      char name[64];

      g_snprintf (name, sizeof name, "void at::native::kernel_%u<float, %u>(...)", i, i * 7);
      s->name = ts_recorder_intern (recorder, name);
      s->grid[0] = grids[next_random (&state) % G_N_ELEMENTS (grids)];
      s->grid[1] = 1 + next_random (&state) % 2;
      s->grid[2] = 1;
      s->block[0] = blocks[next_random (&state) % G_N_ELEMENTS (blocks)];
      s->block[1] = s->block[2] = 1;
      s->sms = MIN (s->grid[0], 132);
      s->flops = 100000 + next_random (&state) % 100000000000ull;
      s->bytes = 10000 + next_random (&state) % 1000000000ull;
      s->duration = 3000 + next_random (&state) % 300000;
    }

  for (guint i = 0; i < n; i++)
    {
      guint64 r = next_random (&state);
      /* Mostly the loop's order, sometimes another kernel. */
      const KernelShape *s = &shapes[(r & 7) < 2 ? (r >> 8) % N_NAMES : i % N_NAMES];
      guint stream = (r >> 20) % N_STREAMS;
      TsTime start, duration = s->duration + (TsTime) ((r >> 32) % 2000);
      TsKernelRecord k;

      host += 2000 + (r >> 40) % 6000;
      correlation += 1 + ((r >> 50) & 1);
      start = MAX (stream_free[stream], host + 5000);
      stream_free[stream] = start + duration;

      k = (TsKernelRecord) {
        .start = start, .end = start + duration, .queued = host, .correlation = correlation,
        .device = stream / 8, .stream = stream, .name = s->name,
        .grid = { s->grid[0], s->grid[1], s->grid[2] },
        .block = { s->block[0], s->block[1], s->block[2] },
        .sms = s->sms, .flops = s->flops, .bytes = s->bytes,
      };
      ts_recorder_append (recorder, TS_RECORD_KERNEL, &k);
    }
}

static double
seconds_since (gint64 t0)
{
  return (g_get_monotonic_time () - t0) / 1e6;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(TsRecorder) full = ts_recorder_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *live_path = NULL;
  double write_s[N_RUNS], load_s[N_RUNS], summary_s[N_RUNS], live_s[N_RUNS], plain_s[N_RUNS];
  double w, l, p, r, s, mb;
  guint64 size = 0;
  int fd;

  fd = g_file_open_tmp ("bench-trace-XXXXXX", &path, &error);
  g_assert_no_error (error);
  close (fd);
  fd = g_file_open_tmp ("bench-trace-live-XXXXXX", &live_path, &error);
  g_assert_no_error (error);
  close (fd);

  append_kernels (full, N_RECORDS);

  for (guint run = 0; run < N_RUNS; run++)
    {
      g_autoptr(TsTraceWriter) writer = NULL;
      g_autoptr(TsRecorder) loaded = NULL;
      TsTraceSummary summary;
      gboolean cut_short = TRUE;
      gint64 t0;

      /* Replay the full recorder into a file. */
      t0 = g_get_monotonic_time ();
      writer = ts_trace_writer_new_for_path (path, &error);
      g_assert_no_error (error);
      ts_trace_writer_attach (writer, full, &error);
      g_assert_no_error (error);
      ts_trace_writer_close (writer, &error);
      g_assert_no_error (error);
      write_s[run] = seconds_since (t0);
      size = ts_trace_writer_get_offset (writer);
      g_clear_object (&writer);

      /* Load it back. */
      t0 = g_get_monotonic_time ();
      loaded = ts_trace_load (path, &cut_short, &error);
      g_assert_no_error (error);
      load_s[run] = seconds_since (t0);
      g_assert (!cut_short);
      g_assert (ts_recorder_get_count (loaded, TS_RECORD_KERNEL) == N_RECORDS);
      for (gsize i = 0; i < N_RECORDS; i += 99991)
        {
          TsKernelRecord a, b;
          ts_recorder_get (full, TS_RECORD_KERNEL, i, &a);
          ts_recorder_get (loaded, TS_RECORD_KERNEL, i, &b);
          g_assert (memcmp (&a, &b, sizeof a) == 0);
        }
      g_clear_object (&loaded);

      /* What info reads: the index footer only. */
      t0 = g_get_monotonic_time ();
      ts_trace_read_summary (path, &summary, &error);
      g_assert_no_error (error);
      summary_s[run] = seconds_since (t0);
      g_assert (summary.from_index && summary.n_records[TS_RECORD_KERNEL] == N_RECORDS);
    }

  for (guint run = 0; run < N_RUNS; run++)
    {
      g_autoptr(TsRecorder) live = ts_recorder_new ();
      g_autoptr(TsRecorder) plain = ts_recorder_new ();
      g_autoptr(TsTraceWriter) writer = NULL;
      gint64 t0;

      t0 = g_get_monotonic_time ();
      append_kernels (plain, N_APPEND);
      plain_s[run] = seconds_since (t0);

      /* The appends only: attach before, close after the clock stops. */
      writer = ts_trace_writer_new_for_path (live_path, &error);
      ts_trace_writer_attach (writer, live, &error);
      g_assert_no_error (error);
      t0 = g_get_monotonic_time ();
      append_kernels (live, N_APPEND);
      live_s[run] = seconds_since (t0);
      ts_trace_writer_close (writer, &error);
      g_assert_no_error (error);
    }

  g_unlink (path);
  g_unlink (live_path);

  w = bench_median (write_s, N_RUNS);
  l = bench_median (load_s, N_RUNS);
  s = bench_median (summary_s, N_RUNS);
  p = bench_median (plain_s, N_RUNS);
  r = bench_median (live_s, N_RUNS);
  mb = size / 1e6;

  printf ("bench-trace: %u kernel records, %.1f MB file, %.2f bytes/record, median of %u runs\n",
          N_RECORDS, mb, (double) size / N_RECORDS, N_RUNS);
  printf ("  write (replay + close):   %8.1f ms  %7.0f MB/s  %6.1f M records/s\n",
          w * 1e3, mb / w, N_RECORDS / w / 1e6);
  printf ("  load (map + decode):      %8.1f ms  %7.0f MB/s  %6.1f M records/s\n",
          l * 1e3, mb / l, N_RECORDS / l / 1e6);
  printf ("  summary from the index:   %8.3f ms\n", s * 1e3);
  printf ("  append, no writer:        %8.1f ns/record  (%u records)\n", p * 1e9 / N_APPEND, N_APPEND);
  printf ("  append, writer attached:  %8.1f ns/record  (%.2fx)\n", r * 1e9 / N_APPEND, r / p);

  return 0;
}
