/* bench-nodata.c: workloads bigger than this machine, with --no-data
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs benchmarks/bench_nodata.py under `tensorscope-cli run --no-data`:
 * a training-like step of an MLP of width 8192, batch 4096 and 4 layers
 * (wall time per step, launches per second, peak RSS: the target is under
 * 1 GiB), then torch.zeros(40000, 40000, device="cuda").sum() and
 * torch.empty(80000, 80000, device="cuda:1").fill_(1.0), with --no-data
 * (fast and small) and without it, under a 4 GiB host-memory limit (they
 * must raise the clear RuntimeError, not die). (docs/no-data.md)
 */

#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bench-util.h"
#include "ts-recorder.h"
#include "ts-trace-reader.h"

#define STEPS 20

static char *
run (const char *what,
     int         steps,
     gboolean    no_data,
     const char *trace)
{
  g_autofree char *n = g_strdup_printf ("%d", steps);
  const char *argv[] = { TS_CLI_PATH, "run", "-o", trace, TS_BENCH_SRCDIR "/bench_nodata.py", what, n, NULL, NULL };
  g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "TENSORSCOPE_HOST_MEMORY_LIMIT", "4G", TRUE);
  g_autofree char *label = g_strdup_printf ("bench-nodata: %s%s", what, no_data ? " --no-data" : "");

  if (no_data)
    {
      memmove (argv + 3, argv + 2, 5 * sizeof *argv);
      argv[2] = "--no-data";
    }
  envp = g_environ_unsetenv (envp, "TENSORSCOPE_NO_DATA");
  return bench_spawn (label, (char **) argv, envp);
}

static gsize
count_kernels (const char *trace)
{
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  g_autoptr(TsTraceReader) reader = ts_trace_reader_new (recorder);
  g_autoptr(GError) error = NULL;

  if (!ts_trace_reader_load_file (reader, trace, &error))
    return 0;
  return ts_recorder_get_count (recorder, TS_RECORD_KERNEL);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *dir = g_dir_make_tmp ("ts-bench-nodata-XXXXXX", NULL);
  g_autofree char *trace = g_build_filename (dir, "run.tstrace", NULL);
  g_autofree char *one = run ("mlp", 1, TRUE, trace);
  gsize kernels_one = count_kernels (trace);
  g_autofree char *mlp = run ("mlp", STEPS + 1, TRUE, trace);
  gsize kernels = count_kernels (trace) - kernels_one;  /* STEPS steps' worth */
  double step_ms = bench_field (mlp, "step_ms ");

  g_print ("MLP 8192 wide, batch 4096, 4 layers, SGD, --no-data: %.2f ms/step (median of %d steps), "
           "%" G_GSIZE_FORMAT " kernels/step, %.0f launches/s, peak RSS %.0f MiB, "
           "max_memory_allocated %.2f GiB\n",
           step_ms, STEPS + 1, kernels / STEPS, kernels / STEPS / (step_ms / 1e3),
           bench_field (mlp, "peak_rss_kib ") / 1024, bench_field (mlp, "max_memory_allocated ") / (1 << 30));
  for (guint i = 0; i < 2; i++)
    {
      const char *what = i == 0 ? "zeros" : "fill";
      const char *label = i == 0 ? "zeros(40000, 40000).sum()" : "empty(80000, 80000, cuda:1).fill_(1.0)";
      g_autofree char *with = run (what, 0, TRUE, trace);
      g_autofree char *without = run (what, 0, FALSE, trace);

      g_print ("%s --no-data: %s, %.1f ms, peak RSS %.0f MiB\n", label,
               strstr (with, "ran") ? "ran" : "FAILED", bench_field (with, "wall_ms "),
               bench_field (with, "peak_rss_kib ") / 1024);
      g_print ("%s without (4 GiB host limit): %s, %.1f ms, peak RSS %.0f MiB\n", label,
               strstr (without, "RuntimeError: not enough host memory") ? "raised the host-memory error" : "DID NOT RAISE",
               bench_field (without, "wall_ms "), bench_field (without, "peak_rss_kib ") / 1024);
    }
  g_unlink (trace);
  g_rmdir (dir);
  return 0;
}
