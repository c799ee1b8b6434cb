/* test-memory-view-index.c: the memory view's per-replay index against a
 * brute-force scan
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A random workload on two devices (mallocs of mixed sizes, frees,
 * record_stream, and a side stream that catches up now and then, so frees
 * complete late) long enough for several live-allocation checkpoints.
 * Every query over random windows must give exactly what scanning all
 * allocations gives: the count alive in the window and the N largest
 * (ties: the earlier), in allocation order.
 */

#include "config.h"

#include <stdlib.h>

#include "ts-allocator.h"
#include "ts-counter-plot.h"
#include "ts-device-memory.h"
#include "ts-memory-replay.h"
#include "ts-memory-view-index.h"

#define MiB (G_GUINT64_CONSTANT (1) << 20)
#define GiB (G_GUINT64_CONSTANT (1) << 30)

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
  return ((Backend *) d)->now += 100;
}

static const TsAllocatorBackend backend = {
  b_malloc, b_free, b_info, b_record, b_query, b_sync, b_release, b_now, NULL,
};

typedef struct
{
  guint64 addr;
  guint   device;
} Live;

static TsRecorder *
record_workload (guint32 seed,
                 guint   steps)
{
  Backend b = { 0 };
  TsRecorder *rec = ts_recorder_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr(GArray) live = g_array_new (FALSE, FALSE, sizeof (Live));
  TsAllocator *a;

  b.mem = ts_device_memory_new ();
  b.done = g_array_new (FALSE, FALSE, sizeof (gboolean));
  ts_device_memory_add_device (b.mem, 16 * GiB, 512 * MiB, NULL);
  ts_device_memory_add_device (b.mem, 16 * GiB, 512 * MiB, NULL);
  a = ts_allocator_new (2, NULL, &backend, &b);
  ts_allocator_set_recorder (a, rec);

  for (guint step = 0; step < steps; step++)
    {
      guint op = g_rand_int_range (rand, 0, 100);

      /* Grows to a few hundred live blocks, then hovers. */
      if (op < (live->len < 400 ? 60 : 45) || live->len == 0)
        {
          Live l;
          /* Few distinct sizes: ties in the top N are common. */
          guint64 size = g_rand_boolean (rand) ? (guint64) g_rand_int_range (rand, 1, 8) * MiB
                                               : (guint64) g_rand_int_range (rand, 1, 4096) * 512;

          l.device = g_rand_int_range (rand, 0, 2);
          if (ts_allocator_malloc (a, l.device, size, 0, NULL, &l.addr, NULL))
            g_array_append_val (live, l);
        }
      else if (op < 92)
        {
          guint i = g_rand_int_range (rand, 0, live->len);
          Live l = g_array_index (live, Live, i);

          g_array_remove_index_fast (live, i);
          g_assert_true (ts_allocator_free (a, l.addr, NULL, NULL));
        }
      else if (op < 97)
        ts_allocator_record_stream (a, g_array_index (live, Live, g_rand_int_range (rand, 0, live->len)).addr, 2);
      else
        for (guint k = 0; k < b.done->len; k++)
          g_array_index (b.done, gboolean, k) = TRUE;
    }

  g_object_unref (a);
  g_object_unref (b.mem);
  g_array_unref (b.done);
  return rec;
}

static const TsMemoryReplay *sort_replay;

/* Larger first, then the earlier allocation. */
static int
compare_size (const void *a,
              const void *b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  guint64 sx = ts_memory_replay_get_allocation ((TsMemoryReplay *) sort_replay, x)->size;
  guint64 sy = ts_memory_replay_get_allocation ((TsMemoryReplay *) sort_replay, y)->size;

  if (sx != sy)
    return sx > sy ? -1 : 1;
  return (x > y) - (x < y);
}

static int
compare_id (const void *a,
            const void *b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return (x > y) - (x < y);
}

/* What the renderer did before the index: scan and sort everything. */
static guint
brute_force (TsMemoryReplay *replay,
             guint           device,
             gsize           first,
             gsize           last,
             guint           n_top,
             GArray         *top)
{
  guint count;

  g_array_set_size (top, 0);
  for (guint id = 0; id < ts_memory_replay_get_n_allocations (replay); id++)
    {
      const TsMemoryAllocation *a = ts_memory_replay_get_allocation (replay, id);

      if (a->device != device || a->alloc_action >= last)
        continue;
      if (a->free_completed_action != TS_MEMORY_REPLAY_NONE && a->free_completed_action < first)
        continue;
      g_array_append_val (top, id);
    }
  count = top->len;
  sort_replay = replay;
  qsort (top->data, top->len, sizeof (guint32), compare_size);
  g_array_set_size (top, MIN (top->len, n_top));
  qsort (top->data, top->len, sizeof (guint32), compare_id);
  return count;
}

static void
test_random_windows (void)
{
  g_autoptr(TsRecorder) rec = record_workload (7, 12000);
  g_autoptr(TsMemoryReplay) replay = ts_memory_replay_new (rec);
  g_autoptr(GRand) rand = g_rand_new_with_seed (3);
  g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) want = g_array_new (FALSE, FALSE, sizeof (guint32));
  static const guint tops[] = { 0, 1, 3, 40, 200, 100000 };
  gsize n = ts_memory_replay_get_n_actions (replay);
  TsMemoryViewIndex *index = ts_memory_view_index_new (replay);
  guint n_nonempty = 0, n_cut = 0;

  /* Long enough for several checkpoints, with hundreds live. */
  g_assert_cmpuint (n, >, 4 * 4096);
  g_assert_cmpuint (ts_memory_replay_get_n_devices (replay), ==, 2);

  for (guint q = 0; q < 600; q++)
    {
      gsize first = (gsize) g_rand_int_range (rand, 0, (gint32) n + 2);
      gsize last = first + (gsize) (q % 3 == 0 ? g_rand_int_range (rand, 0, 50) : g_rand_int_range (rand, 0, (gint32) n));
      guint device = g_rand_int_range (rand, 0, 2);
      guint n_top = tops[q % G_N_ELEMENTS (tops)];
      guint count = ts_memory_view_index_query (index, device, first, last, n_top, got);
      guint expect = brute_force (replay, device, first, last, n_top, want);

      g_assert_cmpuint (count, ==, expect);
      g_assert_cmpuint (got->len, ==, want->len);
      for (guint k = 0; k < got->len; k++)
        g_assert_cmpuint (g_array_index (got, guint32, k), ==, g_array_index (want, guint32, k));
      n_nonempty += count > 0;
      n_cut += n_top > 0 && count > n_top;
    }
  /* The windows did exercise both the selection and the cut. */
  g_assert_cmpuint (n_nonempty, >, 400);
  g_assert_cmpuint (n_cut, >, 100);

  /* Beyond the trace and for an unknown device: nothing. */
  g_assert_cmpuint (ts_memory_view_index_query (index, 7, 0, n, 10, got), ==, 0);
  g_assert_cmpuint (got->len, ==, 0);
  ts_memory_view_index_free (index);
}

static void
test_extremes_and_blocks (void)
{
  g_autoptr(TsRecorder) rec = record_workload (11, 3000);
  g_autoptr(TsMemoryReplay) replay = ts_memory_replay_new (rec);
  TsMemoryViewIndex *index = ts_memory_view_index_new (replay);

  for (guint d = 0; d < 2; d++)
    {
      const TsTime *times;
      const gint64 *series[3];
      const gint64 *bmin, *bmax;
      guint n = 0;
      gint64 max_reserved = -1, peak = -1, want_reserved = 0, want_peak = 0;

      g_assert_true (ts_memory_replay_get_usage (replay, d, &n, &times, &series[0], &series[1], &series[2]));
      g_assert_cmpuint (n, >, 2 * TS_COUNTER_PLOT_BLOCK);
      for (guint s = 0; s < n; s++)
        {
          want_reserved = MAX (want_reserved, series[2][s]);
          want_peak = MAX (want_peak, series[0][s]);
        }
      g_assert_true (ts_memory_view_index_get_extremes (index, d, &max_reserved, &peak));
      g_assert_cmpint (max_reserved, ==, want_reserved);
      g_assert_cmpint (peak, ==, want_peak);
      g_assert_cmpint (peak, >, 0);

      for (guint k = 0; k < 3; k++)
        {
          g_assert_true (ts_memory_view_index_get_blocks (index, d, k, &bmin, &bmax));
          for (guint b = 0; b * TS_COUNTER_PLOT_BLOCK < n; b++)
            {
              gint64 lo = G_MAXINT64, hi = G_MININT64;

              for (guint s = b * TS_COUNTER_PLOT_BLOCK; s < MIN (n, (b + 1) * TS_COUNTER_PLOT_BLOCK); s++)
                lo = MIN (lo, series[k][s]), hi = MAX (hi, series[k][s]);
              g_assert_cmpint (bmin[b], ==, lo);
              g_assert_cmpint (bmax[b], ==, hi);
            }
        }
    }
  g_assert_false (ts_memory_view_index_get_extremes (index, 2, NULL, NULL));
  ts_memory_view_index_free (index);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/memory-view-index/random-windows", test_random_windows);
  g_test_add_func ("/memory-view-index/extremes-and-blocks", test_extremes_and_blocks);
  return g_test_run ();
}
