/* bench-graphs.c: a captured CUDA graph against the same kernels launched
 * eagerly
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A graph of 100 short kernels is captured once and replayed 10,000 times;
 * the same 100 kernels are launched eagerly 10,000 times on a runtime of
 * their own. Prints, for both, the simulated host time per iteration and
 * the simulated time per iteration including the devices' work (both from
 * the model: docs/simulation-model.md), and the simulator's own wall time
 * per iteration (a replay: one cudaGraphLaunch of 100 nodes). The kernels'
 * CPU work is empty here; the ratio is what a graph saves in the model.
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "ts-runtime.h"

#include "bench-util.h"

#define N_KERNELS 100
#define N_RUNS 3

static TsDeviceError
empty_start (gpointer data)
{
  return TS_DEVICE_ERROR_NONE;
}

static void
empty_finish (gpointer data)
{
}

static gpointer
same_data (gpointer data)
{
  return data;
}

typedef struct
{
  double host_ns;    /* simulated host time per iteration */
  double total_ns;   /* simulated, until the devices are done */
  double wall_us;    /* the simulator's wall time per iteration */
} Figures;

static Figures
run (guint    n_iters,
     gboolean graphed)
{
  TsRuntimeOptions options = { .gpu_model = "h100", .n_gpus = 1 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRuntime) rt = ts_runtime_new (&options, NULL, &error);
  TsKernelDesc desc = {
    .name = "elementwise_kernel",
    .grid = { 8, 1, 1 },
    .block = { 128, 1, 1 },
    .bytes = 8192,
    .flops = 1024,
    .work = { empty_start, empty_finish, NULL, NULL, NULL, same_data },
  };
  TsGraph *graph = NULL;
  TsStreamId stream;
  TsTime host0;
  gint64 begin;
  Figures f;

  g_assert_no_error (error);
  desc.name_id = ts_recorder_intern (ts_runtime_get_recorder (rt), desc.name);
  stream = ts_runtime_stream_new (rt, 0, 0, &error);
  g_assert_no_error (error);

  if (graphed)
    {
      g_assert_true (ts_runtime_capture_begin (rt, stream, &error));
      for (guint k = 0; k < N_KERNELS; k++)
        ts_runtime_launch_kernel (rt, stream, &desc, &error);
      graph = ts_runtime_capture_end (rt, stream, &error);
      g_assert_no_error (error);
    }

  host0 = ts_runtime_get_host_time (rt);
  begin = g_get_monotonic_time ();
  for (guint i = 0; i < n_iters; i++)
    {
      if (graphed)
        ts_runtime_graph_launch (rt, graph, stream, &error);
      else
        for (guint k = 0; k < N_KERNELS; k++)
          ts_runtime_launch_kernel (rt, stream, &desc, &error);
    }
  f.host_ns = (double) (ts_runtime_get_host_time (rt) - host0) / n_iters;
  ts_runtime_stream_synchronize (rt, stream, &error);
  f.wall_us = (double) (g_get_monotonic_time () - begin) / n_iters;
  f.total_ns = (double) (ts_runtime_get_host_time (rt) - host0) / n_iters;
  g_assert_no_error (error);

  ts_runtime_graph_free (rt, graph);
  return f;
}

int
main (int    argc,
      char **argv)
{
  guint n_iters = argc > 1 ? (guint) atoi (argv[1]) : 10000;
  double host[2][N_RUNS], total[2][N_RUNS], wall[2][N_RUNS];

  for (guint r = 0; r < N_RUNS; r++)
    for (guint g = 0; g < 2; g++)
      {
        Figures f = run (n_iters, g == 1);

        host[g][r] = f.host_ns;
        total[g][r] = f.total_ns;
        wall[g][r] = f.wall_us;
      }

  printf ("%u kernels per iteration, %u iterations, median of %d runs\n", N_KERNELS, n_iters, N_RUNS);
  for (guint g = 0; g < 2; g++)
    printf ("%-8s simulated host %9.1f us/iter, until done %9.1f us/iter, wall %8.2f us/iter\n",
            g ? "graph" : "eager", bench_median (host[g], N_RUNS) / 1000,
            bench_median (total[g], N_RUNS) / 1000, bench_median (wall[g], N_RUNS));
  printf ("graph saves %.1fx simulated host time, %.1fx until done\n",
          bench_median (host[0], N_RUNS) / bench_median (host[1], N_RUNS),
          bench_median (total[0], N_RUNS) / bench_median (total[1], N_RUNS));
  return 0;
}
