/* bench-memory-replay.c: seeking the allocator state in a 1M-action trace
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A real TsAllocator (on simulated device memory) runs a training-like
 * workload with a recorder attached until one million allocator actions
 * are recorded: per step, parameters stay live, activations are allocated
 * layer by layer on the forward pass and freed in reverse on the backward
 * pass, gradients and temporaries come and go, some tensors are used on a
 * side stream (record_stream), and a few long-lived buffers accumulate.
 * Then TsMemoryReplay is built from the recorder alone and asked for the
 * state at random instants, in random order, as a user scrubbing would.
 * Printed: build time, median and max milliseconds per seek (the target
 * is under 50 ms), checkpoint memory, and as the baseline the cost of a
 * seek replayed from the start of the trace without checkpoints.
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "bench-memory-workload.h"
#include "ts-memory-replay.h"
#include "ts-memory-replay-private.h"

#include "bench-util.h"

#define MiB (G_GUINT64_CONSTANT (1) << 20)
#define GiB (G_GUINT64_CONSTANT (1) << 30)
#define N_ACTIONS 1000000
#define N_SEEKS   200

int
main (int    argc,
      char **argv)
{
  TsRecorder *rec;
  TsMemoryReplay *replay;
  GRand *rand = g_rand_new_with_seed (7);
  double times[N_SEEKS], base[9];
  gint64 t0;
  gsize n, n_live_max = 0;
  guint n_cp = 0;
  gsize cp_bytes;

  t0 = g_get_monotonic_time ();
  rec = bench_memory_workload (N_ACTIONS);
  n = ts_recorder_get_count (rec, TS_RECORD_ALLOC);
  printf ("memory replay: %" G_GSIZE_FORMAT " allocator actions recorded in %.0f ms\n",
          n, (g_get_monotonic_time () - t0) / 1000.0);

  t0 = g_get_monotonic_time ();
  replay = ts_memory_replay_new (rec);
  printf ("  build (one pass, checkpoints): %.0f ms, %u allocations, %u segments\n",
          (g_get_monotonic_time () - t0) / 1000.0,
          ts_memory_replay_get_n_allocations (replay), ts_memory_replay_get_n_segments (replay));
  cp_bytes = ts_memory_replay_get_checkpoint_bytes (replay, &n_cp);
  printf ("  checkpoints: %u, %.1f MiB (%.1f bytes per action)\n",
          n_cp, cp_bytes / 1048576.0, (double) cp_bytes / (double) n);

  for (guint k = 0; k < N_SEEKS; k++)
    {
      gsize at = (gsize) g_rand_double_range (rand, 0, (double) n);
      TsMemoryState *s;

      t0 = g_get_monotonic_time ();
      s = ts_memory_replay_state_at (replay, at);
      times[k] = (g_get_monotonic_time () - t0) / 1000.0;
      n_live_max = MAX (n_live_max, s->blocks->len);
      ts_memory_state_free (s);
    }
  bench_sort (times, N_SEEKS);
  printf ("  seek to a random instant (%d seeks, state has up to %" G_GSIZE_FORMAT " blocks): "
          "median %.3f ms, max %.3f ms (target < 50 ms)\n",
          N_SEEKS, n_live_max, times[N_SEEKS / 2], times[N_SEEKS - 1]);

  /* Baseline: no checkpoints, every seek replays from the start. */
  {
    TsMemoryReplay *flat = _ts_memory_replay_new_with_interval (rec, G_MAXSIZE / 4, FALSE);

    for (guint k = 0; k < G_N_ELEMENTS (base); k++)
      {
        gsize at = (gsize) g_rand_double_range (rand, 0, (double) n);
        TsMemoryState *s;

        ts_memory_state_free (ts_memory_replay_state_at (flat, 0));
        t0 = g_get_monotonic_time ();
        s = ts_memory_replay_state_at (flat, at);
        base[k] = (g_get_monotonic_time () - t0) / 1000.0;
        ts_memory_state_free (s);
      }
    bench_sort (base, G_N_ELEMENTS (base));
    printf ("  baseline, replay from the start: median %.2f ms (checkpoints are %.0fx faster)\n",
            base[G_N_ELEMENTS (base) / 2], base[G_N_ELEMENTS (base) / 2] / MAX (times[N_SEEKS / 2], 1e-6));
    g_object_unref (flat);
  }

  g_object_unref (replay);
  g_object_unref (rec);
  g_rand_free (rand);
  return 0;
}
