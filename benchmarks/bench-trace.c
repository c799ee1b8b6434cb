/* bench-trace.c: writing and loading a trace of a million kernel records
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Prints, as medians over several runs:
 *  - write: a writer attached to a full recorder (the replay) and closed,
 *  - live: appends with a writer attached, against appends without one,
 *  - load: ts_trace_load of the file (mapped, parsed, appended),
 * in MB/s and records/s, and the file's bytes per record. The file goes in
 * the temporary directory (set TMPDIR to measure another disk); the page
 * cache is warm, so these are CPU figures, not disk ones.
 */

#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "ts-trace-reader.h"
#include "ts-trace-writer.h"

#define N_RECORDS 1000000
#define N_RUNS    5

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v)
{
  qsort (v, N_RUNS, sizeof *v, compare_doubles);
  return v[N_RUNS / 2];
}

static void
append_kernels (TsRecorder *recorder)
{
  TsStringId names[8];

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      char name[32];
      g_snprintf (name, sizeof name, "kernel_%u", i);
      names[i] = ts_recorder_intern (recorder, name);
    }

  for (guint i = 0; i < N_RECORDS; i++)
    {
      TsKernelRecord k = {
        .start = i * 10, .end = i * 10 + 7, .queued = i * 10 - 3, .correlation = i,
        .device = i % 4, .stream = i % 16, .name = names[i % 8],
        .grid = { 128, 1, 1 }, .block = { 256, 1, 1 }, .sms = 132,
        .flops = 1 << 20, .bytes = 1 << 16,
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
  double write_s[N_RUNS], live_s[N_RUNS], plain_s[N_RUNS], load_s[N_RUNS];
  double w, l, p, r, mb;
  guint64 size = 0;
  int fd;

  fd = g_file_open_tmp ("bench-trace-XXXXXX", &path, &error);
  g_assert_no_error (error);
  close (fd);

  append_kernels (full);

  for (guint run = 0; run < N_RUNS; run++)
    {
      g_autoptr(TsTraceWriter) writer = NULL;
      g_autoptr(TsRecorder) live = ts_recorder_new ();
      g_autoptr(TsRecorder) plain = ts_recorder_new ();
      g_autoptr(TsRecorder) loaded = NULL;
      gboolean cut_short = TRUE;
      gint64 t0;

      /* Replay a full recorder into a file. */
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

      /* Appends with a writer attached, against appends alone. */
      t0 = g_get_monotonic_time ();
      append_kernels (plain);
      plain_s[run] = seconds_since (t0);

      t0 = g_get_monotonic_time ();
      writer = ts_trace_writer_new_for_path (path, &error);
      ts_trace_writer_attach (writer, live, &error);
      append_kernels (live);
      ts_trace_writer_close (writer, &error);
      g_assert_no_error (error);
      live_s[run] = seconds_since (t0);
    }

  g_unlink (path);

  w = median (write_s);
  l = median (load_s);
  p = median (plain_s);
  r = median (live_s);
  mb = size / 1e6;

  printf ("bench-trace: %u kernel records, %.1f MB file (%.1f bytes/record), median of %u runs\n",
          N_RECORDS, mb, (double) size / N_RECORDS, N_RUNS);
  printf ("  write (replay + close):  %7.1f ms  %7.0f MB/s  %6.1f M records/s\n",
          w * 1e3, mb / w, N_RECORDS / w / 1e6);
  printf ("  load (map + parse):      %7.1f ms  %7.0f MB/s  %6.1f M records/s\n",
          l * 1e3, mb / l, N_RECORDS / l / 1e6);
  printf ("  append, no writer:       %7.1f ns/record\n", p * 1e9 / N_RECORDS);
  printf ("  append, writer attached: %7.1f ns/record  (%.2fx)\n", r * 1e9 / N_RECORDS, r / p);

  return 0;
}
