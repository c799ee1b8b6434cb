/* bench-gpt2-step.c: a GPT-2-small training step under --no-data, and what
 * each launch costs
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs benchmarks/bench_gpt2_step.py (12 layers of width 768, batch 8 of
 * 1024 tokens, bf16 autocast, AdamW, one simulated H100) under
 * `tensorscope-cli run --no-data -o TRACE` for 1 and for 1 + STEPS steps:
 * the difference of the two traces is STEPS steady steps (the first one
 * also creates AdamW's state). Prints the median wall time of a step, peak
 * RSS (target: under 1 GiB), launches per step and per second of wall time,
 * and then splits a launch's wall time, at this scale's mix of records:
 *
 * - simulator: the step's kernels launched again on a bare runtime with
 *   their recorded grid and duration (scheduling, the device queue, and
 *   the API and kernel records a launch makes);
 * - recorder: every record of the step appended again to a new recorder;
 * - trace writer: the same appends with a writer attached, minus the
 *   recorder alone;
 * - the rest: Python, the ops layer, autograd and the caching allocator.
 *
 * Each of the three is the median of RUNS replays. (docs/no-data.md)
 */

#include "config.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bench-util.h"
#include "ts-recorder.h"
#include "ts-runtime.h"
#include "ts-trace-reader.h"
#include "ts-trace-writer.h"

#define STEPS 10
#define RUNS 5

/* Every record of a trace, in one array per kind. */
typedef struct
{
  guint8 *records[TS_N_RECORD_KINDS];
  gsize   n[TS_N_RECORD_KINDS];
} Records;

static char *
run (int         steps,
     const char *trace)
{
  g_autofree char *n = g_strdup_printf ("%d", steps);
  const char *argv[] = { TS_CLI_PATH, "run", "--no-data", "-o", trace,
                         TS_BENCH_SRCDIR "/bench_gpt2_step.py", n, NULL };
  g_auto(GStrv) envp = g_environ_unsetenv (g_get_environ (), "TENSORSCOPE_NO_DATA");
  g_autofree char *label = g_strdup_printf ("bench-gpt2-step: the %d-step run", steps);

  return bench_spawn (label, (char **) argv, envp);
}

static TsRecorder *
load (const char *trace)
{
  TsRecorder *recorder = ts_recorder_new ();
  g_autoptr(TsTraceReader) reader = ts_trace_reader_new (recorder);
  g_autoptr(GError) error = NULL;

  if (!ts_trace_reader_load_file (reader, trace, &error))
    {
      g_printerr ("bench-gpt2-step: %s\n", error->message);
      exit (1);
    }
  return recorder;
}

static gsize
launches (TsRecorder *recorder)
{
  return ts_recorder_get_count (recorder, TS_RECORD_KERNEL)
       + ts_recorder_get_count (recorder, TS_RECORD_MEMCPY)
       + ts_recorder_get_count (recorder, TS_RECORD_MEMSET);
}

static gsize
all_records (TsRecorder *recorder)
{
  gsize n = 0;

  for (TsRecordKind kind = 0; kind < TS_N_RECORD_KINDS; kind++)
    n += ts_recorder_get_count (recorder, kind);
  return n;
}

static void
records_load (Records    *self,
              TsRecorder *recorder)
{
  for (TsRecordKind kind = 0; kind < TS_N_RECORD_KINDS; kind++)
    {
      gsize size = ts_record_info (kind)->struct_size;

      self->n[kind] = ts_recorder_get_count (recorder, kind);
      self->records[kind] = g_malloc0 (MAX (self->n[kind], 1) * size);
      for (gsize i = 0; i < self->n[kind]; i++)
        ts_recorder_get (recorder, kind, i, self->records[kind] + i * size);
    }
}

static void
records_clear (Records *self)
{
  for (TsRecordKind kind = 0; kind < TS_N_RECORD_KINDS; kind++)
    g_free (self->records[kind]);
}

/* Seconds to append every record one by one (as producers do), with a
 * trace writer streaming them to @path when it is not NULL. */
static double
append_all (const Records *records,
            const char    *path)
{
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  g_autoptr(TsTraceWriter) writer = NULL;
  g_autoptr(GError) error = NULL;
  gint64 begin;

  if (path != NULL)
    {
      writer = ts_trace_writer_new_for_path (path, &error);
      g_assert_no_error (error);
      ts_trace_writer_attach (writer, recorder, &error);
      g_assert_no_error (error);
    }
  begin = g_get_monotonic_time ();
  for (TsRecordKind kind = 0; kind < TS_N_RECORD_KINDS; kind++)
    {
      gsize size = ts_record_info (kind)->struct_size;

      for (gsize i = 0; i < records->n[kind]; i++)
        ts_recorder_append (recorder, kind, records->records[kind] + i * size);
    }
  if (writer != NULL)
    {
      ts_trace_writer_close (writer, &error);
      g_assert_no_error (error);
    }
  return (g_get_monotonic_time () - begin) / 1e6;
}

/* Seconds to launch every kernel of @records again on a bare runtime of
 * one H100, with its recorded grid, stream and duration. */
static double
launch_all (const Records *records)
{
  TsRuntimeOptions options = { .gpu_model = "h100", .n_gpus = 1 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRuntime) rt = ts_runtime_new (&options, NULL, &error);
  const TsKernelRecord *kernels = (const TsKernelRecord *) records->records[TS_RECORD_KERNEL];
  TsKernelDesc desc = { 0 };
  gint64 begin;

  g_assert_no_error (error);
  desc.name_id = ts_recorder_intern (ts_runtime_get_recorder (rt), "kernel");
  begin = g_get_monotonic_time ();
  for (gsize i = 0; i < records->n[TS_RECORD_KERNEL]; i++)
    {
      memcpy (desc.grid, kernels[i].grid, sizeof desc.grid);
      memcpy (desc.block, kernels[i].block, sizeof desc.block);
      desc.duration = MAX (kernels[i].end - kernels[i].start, 1);
      ts_runtime_launch_kernel (rt, 0, &desc, NULL);
    }
  ts_runtime_device_synchronize (rt, 0, NULL);
  return (g_get_monotonic_time () - begin) / 1e6;
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *dir = g_dir_make_tmp ("ts-bench-gpt2-XXXXXX", NULL);
  g_autofree char *trace = g_build_filename (dir, "run.tstrace", NULL);
  g_autofree char *copy = g_build_filename (dir, "copy.tstrace", NULL);
  g_autofree char *one = run (1, trace);
  g_autoptr(TsRecorder) first = load (trace);
  g_autofree char *out = run (1 + STEPS, trace);
  g_autoptr(TsRecorder) all = load (trace);
  double step_s = bench_field (out, "step_ms ") / 1e3;
  double per_step = (double) (launches (all) - launches (first)) / STEPS;
  double records_per_launch = (double) (all_records (all) - all_records (first)) / STEPS / per_step;
  gsize n_records = all_records (all);
  double sim[RUNS], rec[RUNS], written[RUNS];
  double sim_ns, rec_ns, writer_ns, total_ns;
  Records records = { 0 };

  records_load (&records, all);
  for (guint r = 0; r < RUNS; r++)
    {
      sim[r] = launch_all (&records) / records.n[TS_RECORD_KERNEL] * 1e9;
      rec[r] = append_all (&records, NULL) / n_records * 1e9 * records_per_launch;
      written[r] = append_all (&records, copy) / n_records * 1e9 * records_per_launch;
    }
  sim_ns = bench_median (sim, RUNS);
  rec_ns = bench_median (rec, RUNS);
  writer_ns = bench_median (written, RUNS) - rec_ns;
  total_ns = step_s * 1e9 / per_step;

  g_print ("GPT-2 small (124M), batch 8 x 1024, bf16 autocast, AdamW, one H100, --no-data:\n");
  g_print ("  %.1f ms/step wall (median of %d steps; %.1f ms of virtual time), peak RSS %.0f MiB, "
           "max_memory_allocated %.2f GiB\n",
           step_s * 1e3, 1 + STEPS, bench_field (out, "virtual_step_ms "), bench_field (out, "peak_rss_kib ") / 1024,
           bench_field (out, "max_memory_allocated ") / (1 << 30));
  g_print ("  %.0f launches/step (kernels, copies, memsets), %.0f launches/s, %.1f records/launch\n",
           per_step, per_step / step_s, records_per_launch);
  g_print ("  per launch: %.0f ns in all; simulator %.0f ns, recorder %.0f ns, trace writer %.0f ns, "
           "the rest (Python, ops, autograd, allocator) %.0f ns (medians of %d replays)\n",
           total_ns, sim_ns, rec_ns, writer_ns, total_ns - sim_ns - rec_ns - writer_ns, RUNS);
  records_clear (&records);
  g_unlink (copy);
  g_unlink (trace);
  g_rmdir (dir);
  return 0;
}
