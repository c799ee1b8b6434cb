/* bench-memory-workload.c: a training-like allocator workload, recorded
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "bench-memory-workload.h"
#include "ts-allocator.h"
#include "ts-device-memory.h"

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

TsRecorder *
bench_memory_workload (gsize n_actions)
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

  while (ts_recorder_get_count (rec, TS_RECORD_ALLOC) < n_actions)
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

