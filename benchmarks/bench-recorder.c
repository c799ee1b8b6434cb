/* bench-recorder.c: cost of appending records to a TsRecorder
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Prints nanoseconds per kernel record appended, single-threaded and with
 * two threads appending at once, as medians over several runs, next to a
 * baseline: a plain memcpy of the record into a preallocated array (the
 * floor any recorder has to pay), and the interning of a known string.
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ts-recorder.h"

#include "bench-util.h"

#define N_RECORDS 1000000
#define N_RUNS    7

static void
append_kernels (TsRecorder *recorder,
                guint       n,
                guint       tag)
{
  TsKernelRecord k = { .device = tag, .grid = { 128, 1, 1 }, .block = { 256, 1, 1 }, .name = 1 };

  for (guint i = 0; i < n; i++)
    {
      k.start = i * 10;
      k.end = k.start + 7;
      k.queued = k.start - 2;
      k.correlation = i;
      ts_recorder_append (recorder, TS_RECORD_KERNEL, &k);
    }
}

static double
run_single (void)
{
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  gint64 t0, t1;

  ts_recorder_intern (recorder, "gemm");
  t0 = g_get_monotonic_time ();
  append_kernels (recorder, N_RECORDS, 0);
  t1 = g_get_monotonic_time ();
  g_assert (ts_recorder_get_count (recorder, TS_RECORD_KERNEL) == N_RECORDS);

  return (t1 - t0) * 1000.0 / N_RECORDS;
}

static gpointer
thread_main (gpointer data)
{
  append_kernels (data, N_RECORDS / 2, 1);
  return NULL;
}

static double
run_two_threads (void)
{
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  GThread *thread;
  gint64 t0, t1;

  t0 = g_get_monotonic_time ();
  thread = g_thread_new ("producer", thread_main, recorder);
  append_kernels (recorder, N_RECORDS / 2, 0);
  g_thread_join (thread);
  t1 = g_get_monotonic_time ();
  g_assert (ts_recorder_get_count (recorder, TS_RECORD_KERNEL) == N_RECORDS);

  return (t1 - t0) * 1000.0 / N_RECORDS;
}

static double
run_memcpy_baseline (void)
{
  g_autofree TsKernelRecord *array = g_new (TsKernelRecord, N_RECORDS);
  TsKernelRecord k = { .grid = { 128, 1, 1 } };
  gint64 t0, t1;

  memset (array, 0, sizeof (TsKernelRecord) * N_RECORDS);  /* fault the pages in first */
  t0 = g_get_monotonic_time ();
  for (guint i = 0; i < N_RECORDS; i++)
    {
      k.start = i * 10;
      k.correlation = i;
      memcpy (&array[i], &k, sizeof k);
      __asm__ volatile ("" ::: "memory");  /* keep the loop from being folded */
    }
  t1 = g_get_monotonic_time ();

  return (t1 - t0) * 1000.0 / N_RECORDS;
}

static double
run_intern_known (void)
{
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  gint64 t0, t1;

  for (guint i = 0; i < 1000; i++)
    {
      char name[32];
      g_snprintf (name, sizeof name, "aten::op_%u", i);
      ts_recorder_intern (recorder, name);
    }

  t0 = g_get_monotonic_time ();
  for (guint i = 0; i < N_RECORDS; i++)
    ts_recorder_intern (recorder, "aten::op_517");
  t1 = g_get_monotonic_time ();

  return (t1 - t0) * 1000.0 / N_RECORDS;
}

int
main (int   argc,
      char *argv[])
{
  double single[N_RUNS], two[N_RUNS], base[N_RUNS], intern[N_RUNS];
  double m_single, m_two, m_base, m_intern;

  for (guint r = 0; r < N_RUNS; r++)
    {
      single[r] = run_single ();
      two[r] = run_two_threads ();
      base[r] = run_memcpy_baseline ();
      intern[r] = run_intern_known ();
    }

  m_single = bench_median (single, N_RUNS);
  m_two = bench_median (two, N_RUNS);
  m_base = bench_median (base, N_RUNS);
  m_intern = bench_median (intern, N_RUNS);

  printf ("bench-recorder: %u kernel records per run, median of %u runs\n", N_RECORDS, N_RUNS);
  printf ("  append, 1 thread:           %6.1f ns/record  (%.1f M records/s)\n", m_single, 1000.0 / m_single);
  printf ("  append, 2 threads (total):  %6.1f ns/record  (%.1f M records/s)\n", m_two, 1000.0 / m_two);
  printf ("  baseline memcpy to array:   %6.1f ns/record  (recorder is %.1fx)\n", m_base, m_single / m_base);
  printf ("  intern a known string:      %6.1f ns/call\n", m_intern);
  printf ("  target: under 50 ns/record single-threaded: %s\n", m_single < 50.0 ? "met" : "NOT met");

  return 0;
}
