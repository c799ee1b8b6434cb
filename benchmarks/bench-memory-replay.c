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

#include "ts-allocator.h"
#include "ts-device-memory.h"
#include "ts-memory-replay.h"
#include "ts-memory-replay-private.h"

#include "bench-util.h"

#define MiB (G_GUINT64_CONSTANT (1) << 20)
#define GiB (G_GUINT64_CONSTANT (1) << 30)
#define N_ACTIONS 1000000
#define N_SEEKS   200

typedef struct
{
  TsDeviceMemory *mem;
  GArray         *done;     /* gboolean per event */
  TsTime          now;
} Backend;

static gboolean
b_malloc (gpointer d, guint dev, guint64 size, guint64 *addr)
{
  return ts_device_memory_segment_malloc (((Backend *) d)->mem, dev, size, addr, NULL);
}

static void
b_free (gpointer d, guint dev, guint64 addr, guint64 size)
{
  ts_device_memory_segment_free (((Backend *) d)->mem, addr, NULL);
}

static void
b_info (gpointer d, guint dev, guint64 *f, guint64 *t)
{
  ts_device_memory_get_info (((Backend *) d)->mem, dev, f, t, NULL);
}

static guint64
b_record (gpointer d, TsStreamId s)
{
  gboolean no = FALSE;
  g_array_append_val (((Backend *) d)->done, no);
  return ((Backend *) d)->done->len;
}

static gboolean
b_query (gpointer d, guint64 e)
{
  return g_array_index (((Backend *) d)->done, gboolean, e - 1);
}

static void
b_sync (gpointer d, guint64 e)
{
  g_array_index (((Backend *) d)->done, gboolean, e - 1) = TRUE;
}

static void
b_release (gpointer d, guint64 e)
{
}

static TsTime
b_now (gpointer d)
{
  return ((Backend *) d)->now += 250;
}

static const TsAllocatorBackend backend = {
  b_malloc, b_free, b_info, b_record, b_query, b_sync, b_release, b_now, NULL,
};

static void
must (TsAllocator *a, guint64 size, TsStreamId s, GArray *into)
{
  guint64 addr = 0;

  if (ts_allocator_malloc (a, 0, size, s, NULL, &addr, NULL))
    g_array_append_val (into, addr);
}

static void
free_all (TsAllocator *a, GArray *arr, gboolean reverse)
{
  for (guint k = 0; k < arr->len; k++)
    ts_allocator_free (a, g_array_index (arr, guint64, reverse ? arr->len - 1 - k : k), NULL, NULL);
  g_array_set_size (arr, 0);
}

static TsRecorder *
record_workload (void)
{
  Backend b = { 0 };
  TsAllocator *a;
  TsRecorder *rec = ts_recorder_new ();
  GRand *rand = g_rand_new_with_seed (42);
  GArray *params = g_array_new (FALSE, FALSE, sizeof (guint64));
  GArray *acts = g_array_new (FALSE, FALSE, sizeof (guint64));
  GArray *tmp = g_array_new (FALSE, FALSE, sizeof (guint64));
  GArray *kept = g_array_new (FALSE, FALSE, sizeof (guint64));

  b.mem = ts_device_memory_new ();
  b.done = g_array_new (FALSE, FALSE, sizeof (gboolean));
  ts_device_memory_add_device (b.mem, 80 * GiB, 512 * MiB, NULL);
  a = ts_allocator_new (1, NULL, &backend, &b);
  ts_allocator_set_recorder (a, rec);

  /* 300 parameter tensors of 4 KiB to 24 MiB. */
  for (guint k = 0; k < 300; k++)
    must (a, (guint64) g_rand_int_range (rand, 4096, 24 << 20), 0, params);

  while (ts_recorder_get_count (rec, TS_RECORD_ALLOC) < N_ACTIONS)
    {
      /* forward: 120 layers, activations live until backward */
      for (guint l = 0; l < 120; l++)
        {
          must (a, (guint64) g_rand_int_range (rand, 64 << 10, 48 << 20), 0, acts);
          must (a, (guint64) g_rand_int_range (rand, 512, 256 << 10), 0, tmp);
          if (g_rand_int_range (rand, 0, 8) == 0)
            ts_allocator_record_stream (a, g_array_index (acts, guint64, acts->len - 1), 2);
        }
      free_all (a, tmp, FALSE);
      /* backward: gradients as temporaries, activations freed in reverse */
      for (guint l = 0; l < 120; l++)
        {
          must (a, (guint64) g_rand_int_range (rand, 4096, 24 << 20), 0, tmp);
          ts_allocator_free (a, g_array_index (acts, guint64, acts->len - 1), NULL, NULL);
          g_array_set_size (acts, acts->len - 1);
        }
      free_all (a, tmp, TRUE);
      /* the side stream catches up now and then */
      if (g_rand_int_range (rand, 0, 3) == 0)
        for (guint k = 0; k < b.done->len; k++)
          g_array_index (b.done, gboolean, k) = TRUE;
      /* a few buffers that stay (metrics, caches), bounded */
      must (a, (guint64) g_rand_int_range (rand, 512, 2 << 20), 0, kept);
      if (kept->len > 2000)
        free_all (a, kept, FALSE);
    }

  g_object_unref (a);
  g_object_unref (b.mem);
  g_array_unref (b.done);
  g_array_unref (params);
  g_array_unref (acts);
  g_array_unref (tmp);
  g_array_unref (kept);
  g_rand_free (rand);
  return rec;
}

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
  rec = record_workload ();
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
    TsMemoryReplay *flat = _ts_memory_replay_new_with_interval (rec, G_MAXSIZE / 4);

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
