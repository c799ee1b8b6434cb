/* bench-allocator.c: the caching allocator's hot path and a long replay
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Prints, each as the median of several repetitions:
 *  - ns per malloc+free pair served from the cache (small and large pool,
 *    plain, with history on, with a recorder attached), against a
 *    g_malloc+g_free pair of the same size measured in the same run;
 *  - the time to replay one million mixed operations (alloc, free,
 *    record_stream, event completion, empty_cache) on two devices.
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "ts-allocator.h"
#include "ts-device-memory.h"

#include "bench-util.h"

#define MiB (G_GUINT64_CONSTANT (1) << 20)
#define GiB (G_GUINT64_CONSTANT (1) << 30)
#define REPS 7

typedef struct
{
  TsDeviceMemory *mem;
  GArray         *done;      /* gboolean per event */
  guint64         completed_up_to;
} Bench;

static gboolean
b_segment_malloc (gpointer user_data, guint device, guint64 size, guint64 *addr)
{
  return ts_device_memory_segment_malloc (((Bench *) user_data)->mem, device, size, addr, NULL);
}

static void
b_segment_free (gpointer user_data, guint device, guint64 addr, guint64 size)
{
  ts_device_memory_segment_free (((Bench *) user_data)->mem, addr, NULL);
}

static void
b_mem_get_info (gpointer user_data, guint device, guint64 *free_bytes, guint64 *total)
{
  ts_device_memory_get_info (((Bench *) user_data)->mem, device, free_bytes, total, NULL);
}

static guint64
b_event_record (gpointer user_data, TsStreamId stream)
{
  Bench *b = user_data;

  g_array_set_size (b->done, b->done->len + 1);
  return b->done->len;
}

static gboolean
b_event_query (gpointer user_data, guint64 event)
{
  return event <= ((Bench *) user_data)->completed_up_to;
}

static void
b_event_nop (gpointer user_data, guint64 event)
{
}

static TsTime
b_now (gpointer user_data)
{
  static TsTime t;

  return t += 100;
}

static const TsAllocatorBackend backend = {
  b_segment_malloc, b_segment_free, b_mem_get_info, b_event_record,
  b_event_query, b_event_nop, b_event_nop, b_now, NULL,
};

static Bench *
bench_new (guint n_devices)
{
  Bench *b = g_new0 (Bench, 1);
  guint d;

  b->mem = ts_device_memory_new ();
  for (d = 0; d < n_devices; d++)
    ts_device_memory_add_device (b->mem, 80 * GiB, 512 * MiB, NULL);
  b->done = g_array_new (FALSE, TRUE, sizeof (gboolean));
  return b;
}

static void
bench_free (Bench *b)
{
  g_object_unref (b->mem);
  g_array_unref (b->done);
  g_free (b);
}

typedef enum { MODE_PLAIN, MODE_HISTORY, MODE_RECORDER } Mode;

/* ns per malloc+free of size from a warm cache. */
static double
pair_ns (guint64 size, Mode mode)
{
  const guint n = 1000000;
  double samples[REPS];
  guint r, i;

  for (r = 0; r < REPS; r++)
    {
      Bench *b = bench_new (1);
      TsAllocator *a = ts_allocator_new (1, NULL, &backend, b);
      TsRecorder *rec = NULL;
      guint64 addr, keep;
      gint64 t0, t1;

      if (mode == MODE_HISTORY)
        ts_allocator_record_history (a, TRUE, 100000, 0, FALSE);
      if (mode == MODE_RECORDER)
        {
          rec = ts_recorder_new ();
          ts_allocator_set_recorder (a, rec);
        }
      /* A live neighbour keeps the segment split, as in a real program. */
      ts_allocator_malloc (a, 0, size, 0, NULL, &keep, NULL);
      ts_allocator_malloc (a, 0, size, 0, NULL, &addr, NULL);
      ts_allocator_free (a, addr, NULL, NULL);

      t0 = g_get_monotonic_time ();
      for (i = 0; i < n; i++)
        {
          ts_allocator_malloc (a, 0, size, 0, NULL, &addr, NULL);
          ts_allocator_free (a, addr, NULL, NULL);
        }
      t1 = g_get_monotonic_time ();
      samples[r] = (t1 - t0) * 1000.0 / n;

      ts_allocator_free (a, keep, NULL, NULL);
      g_object_unref (a);
      g_clear_object (&rec);
      bench_free (b);
    }
  return bench_median (samples, REPS);
}

static double
baseline_ns (gsize size)
{
  const guint n = 1000000;
  double samples[REPS];
  guint r, i;

  for (r = 0; r < REPS; r++)
    {
      gint64 t0 = g_get_monotonic_time ();

      for (i = 0; i < n; i++)
        {
          volatile char *p = g_malloc (size);
          p[0] = 1;
          g_free ((gpointer) p);
        }
      samples[r] = (g_get_monotonic_time () - t0) * 1000.0 / n;
    }
  return bench_median (samples, REPS);
}

/* One million operations, generated up front so the replay times only
 * the allocator. */
typedef struct
{
  guint8   kind;      /* 0 alloc, 1 free, 2 record_stream, 3 complete, 4 empty_cache */
  guint8   device;
  guint8   stream;
  guint32  slot;
  guint64  size;
} Op;

static GArray *
make_ops (guint n)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (2026);
  GArray *ops = g_array_sized_new (FALSE, TRUE, sizeof (Op), n);
  guint live = 0, i;

  for (i = 0; i < n; i++)
    {
      Op op = { 0 };
      guint x = g_rand_int_range (rand, 0, 1000);

      op.device = g_rand_int_range (rand, 0, 2);
      op.stream = g_rand_int_range (rand, 0, 3);
      if (live < 64 || (x < 480 && live < 4000))
        {
          guint s = g_rand_int_range (rand, 0, 10);

          op.kind = 0;
          op.size = s < 6 ? (guint64) g_rand_int_range (rand, 1, 1 << 20)
                  : s < 9 ? (guint64) g_rand_int_range (rand, 1 << 20, 10 << 20)
                  : (guint64) g_rand_int_range (rand, 10, 100) * MiB;
          live++;
        }
      else if (x < 940)
        {
          op.kind = 1;
          op.slot = g_rand_int_range (rand, 0, live);
          live--;
        }
      else if (x < 990)
        {
          op.kind = 2;
          op.slot = g_rand_int_range (rand, 0, live);
        }
      else if (x < 999)
        op.kind = 3;
      else
        op.kind = 4;
      g_array_append_val (ops, op);
    }
  return ops;
}

static double
replay_ms (GArray *ops)
{
  double samples[5];
  guint r, i;

  for (r = 0; r < G_N_ELEMENTS (samples); r++)
    {
      Bench *b = bench_new (2);
      TsAllocator *a = ts_allocator_new (2, NULL, &backend, b);
      g_autoptr(GArray) live = g_array_new (FALSE, FALSE, sizeof (guint64));
      TsStreamId streams[2][3] = { { 0, 2, 3 }, { 1, 4, 5 } };
      gint64 t0 = g_get_monotonic_time ();

      for (i = 0; i < ops->len; i++)
        {
          const Op *op = &g_array_index (ops, Op, i);
          guint64 addr;

          switch (op->kind)
            {
            case 0:
              /* A refused request leaves 0, which free ignores. */
              if (!ts_allocator_malloc (a, op->device, op->size, streams[op->device][op->stream], NULL, &addr, NULL))
                addr = 0;
              g_array_append_val (live, addr);
              break;
            case 1:
              ts_allocator_free (a, g_array_index (live, guint64, op->slot), NULL, NULL);
              g_array_index (live, guint64, op->slot) = g_array_index (live, guint64, live->len - 1);
              g_array_set_size (live, live->len - 1);
              break;
            case 2:
              ts_allocator_record_stream (a, g_array_index (live, guint64, op->slot),
                                          streams[op->device][op->stream]);
              break;
            case 3:
              b->completed_up_to = b->done->len;
              break;
            default:
              ts_allocator_empty_cache (a);
              break;
            }
        }
      samples[r] = (g_get_monotonic_time () - t0) / 1000.0;

      g_object_unref (a);
      bench_free (b);
    }
  return bench_median (samples, G_N_ELEMENTS (samples));
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GArray) ops = NULL;
  double small, large, hist, rec, base_small, base_large, replay;

  small = pair_ns (4096, MODE_PLAIN);
  large = pair_ns (30 * MiB, MODE_PLAIN);
  hist = pair_ns (4096, MODE_HISTORY);
  rec = pair_ns (4096, MODE_RECORDER);
  base_small = baseline_ns (4096);
  base_large = baseline_ns (64 * 1024);

  printf ("bench-allocator: malloc+free pair from the cache, median of %d x 1e6 pairs\n", REPS);
  printf ("  small pool (4 KiB)            %7.1f ns   (g_malloc+g_free 4 KiB:  %5.1f ns, ratio %.2f)\n",
          small, base_small, small / base_small);
  printf ("  large pool (30 MiB)           %7.1f ns   (g_malloc+g_free 64 KiB: %5.1f ns, ratio %.2f)\n",
          large, base_large, large / base_large);
  printf ("  small, history on             %7.1f ns   (ratio to plain %.2f)\n", hist, hist / small);
  printf ("  small, recorder attached      %7.1f ns   (ratio to plain %.2f)\n", rec, rec / small);

  ops = make_ops (1000000);
  replay = replay_ms (ops);
  printf ("bench-allocator: replay of 1e6 mixed operations (2 devices, 3 streams each), median of 5\n");
  printf ("  replay                        %7.1f ms   (%.0f ns per operation)\n",
          replay, replay * 1e6 / ops->len);
  return 0;
}
