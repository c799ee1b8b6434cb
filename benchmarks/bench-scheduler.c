/* bench-scheduler.c: how fast the simulated runtime schedules work
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Prints, as medians over several runs, the simulated kernel launches per
 * second of wall time (the kernels' CPU work excluded: their callbacks are
 * empty), for one stream and for several streams on several devices, and
 * launch+synchronize cycles per second. The baseline is the recorder alone
 * appending the same records (an API record and a kernel record per
 * launch): the ratio says what the scheduler adds on top of recording.
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "ts-runtime.h"

#include "bench-util.h"

#define N_RUNS 5

static TsDeviceError
empty_start (gpointer data)
{
  return TS_DEVICE_ERROR_NONE;
}

static void
empty_finish (gpointer data)
{
}

static TsRuntime *
make_runtime (guint n_gpus)
{
  TsRuntimeOptions options = { .gpu_model = "h100", .n_gpus = n_gpus };
  g_autoptr(GError) error = NULL;
  TsRuntime *rt = ts_runtime_new (&options, NULL, &error);

  g_assert_no_error (error);
  return rt;
}

/* Launches n kernels spread over n_streams streams of n_gpus devices, then
 * synchronizes every device; returns the launches per second. */
static double
run_launches (guint    n,
              guint    n_gpus,
              guint    n_streams,
              gboolean intern_names)
{
  g_autoptr(TsRuntime) rt = make_runtime (n_gpus);
  TsStreamId streams[64];
  TsKernelDesc desc = {
    .name = "elementwise_kernel",
    .grid = { 64, 1, 1 },
    .block = { 256, 1, 1 },
    .bytes = 1 << 20,
    .flops = 1 << 18,
    .work = { empty_start, empty_finish, NULL, NULL },
  };
  gint64 begin, end;

  g_assert (n_streams <= G_N_ELEMENTS (streams));

  if (!intern_names)
    desc.name_id = ts_recorder_intern (ts_runtime_get_recorder (rt), desc.name);

  for (guint i = 0; i < n_streams; i++)
    streams[i] = i < n_gpus ? (TsStreamId) i
                            : ts_runtime_stream_new (rt, (int) (i % n_gpus), -(int) (i % 2), NULL);

  begin = g_get_monotonic_time ();
  for (guint i = 0; i < n; i++)
    ts_runtime_launch_kernel (rt, streams[i % n_streams], &desc, NULL);
  for (guint d = 0; d < n_gpus; d++)
    ts_runtime_device_synchronize (rt, (int) d, NULL);
  end = g_get_monotonic_time ();

  g_assert_cmpuint (ts_recorder_get_count (ts_runtime_get_recorder (rt), TS_RECORD_KERNEL), ==, n);

  return n / ((end - begin) / 1e6);
}

static double
run_cycles (guint n)
{
  g_autoptr(TsRuntime) rt = make_runtime (1);
  TsKernelDesc desc = { .grid = { 64, 1, 1 }, .bytes = 1 << 20 };
  gint64 begin, end;

  desc.name_id = ts_recorder_intern (ts_runtime_get_recorder (rt), "k");

  begin = g_get_monotonic_time ();
  for (guint i = 0; i < n; i++)
    {
      ts_runtime_launch_kernel (rt, 0, &desc, NULL);
      ts_runtime_stream_synchronize (rt, 0, NULL);
    }
  end = g_get_monotonic_time ();

  return n / ((end - begin) / 1e6);
}

/* The floor: the records a launch produces, appended with nothing else. */
static double
run_recorder_only (guint n)
{
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  TsApiCallRecord api = { .name = ts_recorder_intern (recorder, "cudaLaunchKernel") };
  TsKernelRecord kernel = { .name = ts_recorder_intern (recorder, "k"), .sms = 64 };
  gint64 begin, end;

  begin = g_get_monotonic_time ();
  for (guint i = 0; i < n; i++)
    {
      api.start = i * 4000;
      api.end = api.start + 4000;
      api.correlation = i + 1;
      ts_recorder_append (recorder, TS_RECORD_API_CALL, &api);
      kernel.start = api.end;
      kernel.end = kernel.start + 3000;
      kernel.correlation = i + 1;
      ts_recorder_append (recorder, TS_RECORD_KERNEL, &kernel);
    }
  end = g_get_monotonic_time ();

  return n / ((end - begin) / 1e6);
}

typedef double (*BenchFunc) (gpointer data);

static void
report (const char *label,
        double      values[N_RUNS],
        double      baseline)
{
  double m = bench_median (values, N_RUNS);

  if (baseline > 0)
    printf ("  %-52s %12.0f /s   (%.2fx the recorder-only rate)\n", label, m, m / baseline);
  else
    printf ("  %-52s %12.0f /s\n", label, m);
}

int
main (int   argc,
      char *argv[])
{
  guint n = 1000000;
  double base[N_RUNS], one[N_RUNS], one_intern[N_RUNS], multi[N_RUNS], cycles[N_RUNS];
  double baseline;

  if (argc > 1)
    n = (guint) g_ascii_strtoull (argv[1], NULL, 10);
  if (n == 0)
    n = 1000000;

  printf ("bench-scheduler: %u launches per run, median of %d runs (H100 model)\n", n, N_RUNS);

  for (guint r = 0; r < N_RUNS; r++)
    {
      base[r] = run_recorder_only (n);
      one[r] = run_launches (n, 1, 1, FALSE);
      one_intern[r] = run_launches (n, 1, 1, TRUE);
      multi[r] = run_launches (n, 4, 16, FALSE);
      cycles[r] = run_cycles (n / 5);
    }

  baseline = bench_median (base, N_RUNS);
  report ("recorder only (2 records per launch, baseline)", base, 0);
  report ("launches, 1 stream, name id given", one, baseline);
  report ("launches, 1 stream, name interned per launch", one_intern, baseline);
  report ("launches, 16 streams on 4 devices", multi, baseline);
  report ("launch + stream synchronize cycles", cycles, 0);

  return 0;
}
