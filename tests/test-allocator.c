/* test-allocator.c: the caching allocator against PyTorch's numbers
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A fake backend gives the allocator simulated device memory and events
 * whose completion the test decides. The expected values come from the
 * worked examples and upstream tests of the behavioural spec, computed by
 * hand from PyTorch's algorithm.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-allocator.h"
#include "ts-allocator-private.h"
#include "ts-device-memory.h"

#include "test-fake-allocator-backend.h"

#define KiB (G_GUINT64_CONSTANT (1) << 10)
#define MiB (G_GUINT64_CONSTANT (1) << 20)
#define GiB (G_GUINT64_CONSTANT (1) << 30)
#define H100_BYTES G_GUINT64_CONSTANT (85899345920)

/* Streams: the default stream of device d is d (as in ts-types.h);
 * created streams follow. */
#define S0 ((TsStreamId) 0)
#define S1 ((TsStreamId) 2)
#define S2 ((TsStreamId) 3)

static const TsAllocatorBackend fake_backend = { FAKE_BACKEND_FUNCS };

/* The same with virtual memory, for expandable segments. */
static const TsAllocatorBackend fake_vm_backend = { FAKE_BACKEND_FUNCS, FAKE_BACKEND_VM_FUNCS };

static TsAllocator *
new_allocator (Fake       *fake,
               guint       n_devices,
               const char *conf)
{
  TsAllocConfig config;

  ts_alloc_config_init (&config);
  if (conf)
    g_assert_true (ts_alloc_config_parse (&config, conf, NULL));
  return ts_allocator_new (n_devices, &config, config.expandable_segments ? &fake_vm_backend : &fake_backend,
                           fake);
}

static gint64
stat (TsAllocator *a,
      guint        device,
      const char  *key)
{
  TsMemoryStats stats;
  gint64 v = G_MININT64;

  g_assert_true (ts_allocator_get_stats (a, device, &stats));
  if (!ts_memory_stats_lookup (&stats, key, &v))
    g_error ("no stat %s", key);
  return v;
}

static guint64
must_malloc (TsAllocator *a,
             guint        device,
             guint64      size,
             TsStreamId   stream)
{
  g_autoptr(GError) error = NULL;
  guint64 addr = 0;

  g_assert_true (ts_allocator_malloc (a, device, size, stream, NULL, &addr, &error));
  g_assert_no_error (error);
  return addr;
}

static void
must_free (TsAllocator *a,
           guint64      addr)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (ts_allocator_free (a, addr, NULL, &error));
  g_assert_no_error (error);
}

/* The consistency check of upstream's test_memory_stats, from the
 * snapshot, plus every stat's own bookkeeping and the internal checks. */
static void
check_consistency (TsAllocator *a)
{
  g_autoptr(TsMemorySnapshot) snap = ts_allocator_snapshot (a);
  g_autoptr(GError) error = NULL;
  guint n = ts_allocator_get_n_devices (a), d, k;
  TsAllocConfig config;

  ts_allocator_get_config (a, &config);
  for (k = 0; k < snap->segments->len; k++)
    config.expandable_segments |= g_array_index (snap->segments, TsSnapshotSegment, k).is_expandable;
  if (!_ts_allocator_validate (a, &error))
    g_error ("allocator state: %s", error->message);

  for (d = 0; d < n; d++)
    {
      gint64 expected[3][9] = { { 0 } };  /* [pool type][metric] */
      TsMemoryStats stats;
      TsStat *all;
      guint m, t, n_stats;

      for (k = 0; k < snap->segments->len; k++)
        {
          const TsSnapshotSegment *seg = &g_array_index (snap->segments, TsSnapshotSegment, k);
          guint types[2] = { TS_STAT_TYPE_ALL, seg->is_small ? TS_STAT_TYPE_SMALL_POOL : TS_STAT_TYPE_LARGE_POOL };
          guint b, i;

          if (seg->device != d)
            continue;
          for (i = 0; i < 2; i++)
            {
              gint64 *e = expected[types[i]];

              /* upstream's check: an expandable segment's mapped ranges
               * count in neither segment nor inactive_split */
              e[0] += !seg->is_expandable;       /* segment */
              e[1] += seg->allocated_size;       /* allocated_bytes */
              e[2] += seg->total_size;           /* reserved_bytes */
              e[3] += seg->active_size;          /* active_bytes */
              e[4] += seg->requested_size;       /* requested_bytes */
              for (b = seg->first_block; b < seg->first_block + seg->n_blocks; b++)
                {
                  const TsSnapshotBlock *blk = &g_array_index (snap->blocks, TsSnapshotBlock, b);

                  if (blk->state == TS_BLOCK_STATE_ACTIVE_ALLOCATED)
                    e[5] += 1;                   /* allocation */
                  if (blk->state != TS_BLOCK_STATE_INACTIVE)
                    e[6] += 1;                   /* active */
                  if (blk->state == TS_BLOCK_STATE_INACTIVE && seg->n_blocks > 1 && !seg->is_expandable)
                    {
                      e[7] += 1;                 /* inactive_split */
                      e[8] += blk->size;         /* inactive_split_bytes */
                    }
                }
            }
        }

      g_assert_true (ts_allocator_get_stats (a, d, &stats));
      for (t = 0; t < TS_N_STAT_TYPES; t++)
        {
          gint64 *e = expected[t];

          g_assert_cmpint (stats.segment[t].current, ==, e[0]);
          g_assert_cmpint (stats.allocated_bytes[t].current, ==, e[1]);
          g_assert_cmpint (stats.reserved_bytes[t].current, ==, e[2]);
          g_assert_cmpint (stats.active_bytes[t].current, ==, e[3]);
          g_assert_cmpint (stats.requested_bytes[t].current, ==, e[4]);
          g_assert_cmpint (stats.allocation[t].current, ==, e[5]);
          g_assert_cmpint (stats.active[t].current, ==, e[6]);
          g_assert_cmpint (stats.inactive_split[t].current, ==, e[7]);
          g_assert_cmpint (stats.inactive_split_bytes[t].current, ==, e[8]);
        }

      /* Never reset in these tests: current = allocated - freed, and the
       * peak bounds it; the pools add up to the aggregate. */
      all = stats.allocation;
      n_stats = 9 * TS_N_STAT_TYPES + 2;
      for (m = 0; m < n_stats; m++)
        {
          g_assert_cmpint (all[m].current, ==, all[m].allocated - all[m].freed);
          g_assert_cmpint (all[m].peak, >=, all[m].current);
          g_assert_cmpint (all[m].current, >=, 0);
        }
      for (m = 0; m < 9; m++)
        {
          TsStat *s = &all[m * TS_N_STAT_TYPES];

          g_assert_cmpint (s[0].current, ==, s[1].current + s[2].current);
          g_assert_cmpint (s[0].allocated, ==, s[1].allocated + s[2].allocated);
        }
      /* (each map and unmap of pages counts too, not one to one) */
      if (!config.expandable_segments)
        g_assert_cmpint (stats.num_device_alloc - stats.num_device_free, ==, stats.segment[0].current);
    }
}

/* ------------------------------------------------------------------ */

static void
test_rounding (void)
{
  TsAllocConfig c;

  ts_alloc_config_init (&c);
  g_assert_cmpuint (ts_allocator_round_size (&c, 1), ==, 512);
  g_assert_cmpuint (ts_allocator_round_size (&c, 512), ==, 512);
  g_assert_cmpuint (ts_allocator_round_size (&c, 1000), ==, 1024);
  g_assert_cmpuint (ts_allocator_round_size (&c, 4000000), ==, 4000256);
  g_assert_cmpuint (ts_allocator_round_size (&c, 88080384), ==, 88080384);
  g_assert_cmpuint (ts_memory_allocation_size (1024), ==, 2 * MiB);
  g_assert_cmpuint (ts_memory_allocation_size (MiB), ==, 2 * MiB);
  g_assert_cmpuint (ts_memory_allocation_size (MiB + 512), ==, 20 * MiB);
  g_assert_cmpuint (ts_memory_allocation_size (10 * MiB - 512), ==, 20 * MiB);
  g_assert_cmpuint (ts_memory_allocation_size (10 * MiB), ==, 10 * MiB);
  g_assert_cmpuint (ts_memory_allocation_size (11534848), ==, 12582912);

  g_assert_true (ts_alloc_config_parse (&c, "roundup_power2_divisions:4", NULL));
  /* The spec's 1200 -> 1280 needs s > 512 * d to apply: with d = 4 a
   * request of 1200 bytes is only rounded to 512. */
  g_assert_cmpuint (ts_allocator_round_size (&c, 1200), ==, 1536);
  g_assert_cmpuint (ts_allocator_round_size (&c, 5000), ==, 5120);
  g_assert_cmpuint (ts_allocator_round_size (&c, 2049), ==, 2560);
  g_assert_cmpuint (ts_allocator_round_size (&c, 2048), ==, 2048);  /* 2048 = 512 * 4: not above */
  g_assert_cmpuint (ts_allocator_round_size (&c, 88080384), ==, 100663296);
  g_assert_cmpuint (ts_allocator_round_size (&c, 64 * MiB), ==, 64 * MiB);
  g_assert_true (ts_alloc_config_parse (&c, "roundup_power2_divisions:8", NULL));
  g_assert_cmpuint (ts_allocator_round_size (&c, 88080384), ==, 92274688);
  g_assert_true (ts_alloc_config_parse (&c, "roundup_power2_divisions:[64:8,128:2,256:2,512:2,1024:1,>:1]", NULL));
  g_assert_cmpuint (ts_allocator_round_size (&c, 419430400), ==, 536870912);

  {
    static const struct { guint64 size; const char *text; } cases[] = {
      { 0, "0 bytes" }, { 1024, "1024 bytes" }, { 1025, "1.00 KiB" }, { 1048576, "1024.00 KiB" },
      { 1048577, "1.00 MiB" }, { 1073741824, "1024.00 MiB" }, { 1073741825, "1.00 GiB" },
      { G_GUINT64_CONSTANT (858993459200000000), "800000000.00 GiB" }, { 85899345920, "80.00 GiB" },
    };
    guint k;

    for (k = 0; k < G_N_ELEMENTS (cases); k++)
      {
        g_autofree char *s = ts_memory_format_size (cases[k].size);
        g_assert_cmpstr (s, ==, cases[k].text);
      }
  }
}

/* §2's worked example: torch.empty(1000, dtype=uint8), del, empty_cache. */
static void
test_worked_example_1000 (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
  g_autoptr(TsMemorySnapshot) snap = NULL;
  const TsSnapshotSegment *seg;
  const TsSnapshotBlock *b;
  guint64 x;

  g_assert_cmpint (stat (a, 0, "max_split_size"), ==, -1);

  x = must_malloc (a, 0, 1000, S0);
  g_assert_cmphex (x, ==, TS_DEVICE_MEMORY_BASE);

  snap = ts_allocator_snapshot (a);
  g_assert_cmpuint (snap->segments->len, ==, 1);
  seg = &g_array_index (snap->segments, TsSnapshotSegment, 0);
  g_assert_cmpuint (seg->total_size, ==, 2097152);
  g_assert_true (seg->is_small);
  g_assert_cmpuint (seg->allocated_size, ==, 1024);
  g_assert_cmpuint (seg->active_size, ==, 1024);
  g_assert_cmpuint (seg->requested_size, ==, 1000);
  g_assert_cmpuint (seg->n_blocks, ==, 2);
  b = &g_array_index (snap->blocks, TsSnapshotBlock, 0);
  g_assert_cmpuint (b[0].size, ==, 1024);
  g_assert_cmpuint (b[0].requested_size, ==, 1000);
  g_assert_cmpint (b[0].state, ==, TS_BLOCK_STATE_ACTIVE_ALLOCATED);
  g_assert_cmpstr (ts_block_state_to_string (b[0].state), ==, "active_allocated");
  g_assert_cmpuint (b[1].size, ==, 2096128);
  g_assert_cmphex (b[1].address, ==, x + 1024);
  g_assert_cmpint (b[1].state, ==, TS_BLOCK_STATE_INACTIVE);

  g_assert_cmpint (stat (a, 0, "allocation.all.current"), ==, 1);
  g_assert_cmpint (stat (a, 0, "allocated_bytes.all.current"), ==, 1024);
  g_assert_cmpint (stat (a, 0, "allocated_bytes.small_pool.current"), ==, 1024);
  g_assert_cmpint (stat (a, 0, "allocated_bytes.large_pool.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "active_bytes.all.current"), ==, 1024);
  g_assert_cmpint (stat (a, 0, "requested_bytes.all.current"), ==, 1000);
  g_assert_cmpint (stat (a, 0, "segment.all.current"), ==, 1);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 2097152);
  g_assert_cmpint (stat (a, 0, "inactive_split.all.current"), ==, 1);
  g_assert_cmpint (stat (a, 0, "inactive_split_bytes.all.current"), ==, 2096128);
  g_assert_cmpint (stat (a, 0, "num_device_alloc"), ==, 1);
  check_consistency (a);

  must_free (a, x);
  g_assert_cmpint (stat (a, 0, "allocated_bytes.all.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "active_bytes.all.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "inactive_split.all.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "inactive_split.all.freed"), ==, 1);
  g_assert_cmpint (stat (a, 0, "inactive_split_bytes.all.freed"), ==, 2096128);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 2097152);
  check_consistency (a);

  ts_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, 0, "segment.all.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.peak"), ==, 2097152);
  g_assert_cmpint (stat (a, 0, "num_device_free"), ==, 1);
  g_assert_cmpint (stat (a, 0, "num_sync_all_streams"), ==, 1);
  check_consistency (a);
}

typedef struct
{
  guint64  size;
  guint64  segment;
  gboolean small;
  gboolean split;
  guint64  block;
} SizeCase;

static void
test_worked_example_sizes (void)
{
  static const SizeCase cases[] = {
    { MiB, 2 * MiB, TRUE, TRUE, MiB },
    { MiB + 1, 20 * MiB, FALSE, TRUE, 1049088 },
    { 5 * MiB, 20 * MiB, FALSE, TRUE, 5 * MiB },
    { 12 * MiB, 12 * MiB, FALSE, FALSE, 12 * MiB },
    { 11 * MiB + 1, 12582912, FALSE, FALSE, 12582912 },
    { 2 * MiB - 512, 20 * MiB, FALSE, TRUE, 2 * MiB - 512 },
    { MiB - 512, 2 * MiB, TRUE, TRUE, MiB - 512 },
  };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
      g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
      const SizeCase *c = &cases[k];
      const char *pool = c->small ? "small_pool" : "large_pool";
      g_autofree char *seg_key = g_strdup_printf ("reserved_bytes.%s.current", pool);
      guint64 x;

      x = must_malloc (a, 0, c->size, S0);
      g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, c->segment);
      g_assert_cmpint (stat (a, 0, seg_key), ==, c->segment);
      g_assert_cmpint (stat (a, 0, "allocated_bytes.all.current"), ==, c->block);
      g_assert_cmpint (stat (a, 0, "requested_bytes.all.current"), ==, c->size);
      g_assert_cmpint (stat (a, 0, "inactive_split.all.current"), ==, c->split ? 1 : 0);
      g_assert_cmpint (stat (a, 0, "inactive_split_bytes.all.current"), ==, c->split ? c->segment - c->block : 0);
      check_consistency (a);
      must_free (a, x);
      check_consistency (a);
    }
}

/* Best fit on (stream, size, address): smallest fitting block, lowest
 * address first, never another stream's block. */
static void
test_best_fit_and_streams (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
  guint64 b1, b2, b3, b4, b5, x, y;

  /* One 2 MiB small segment: carve 4 blocks, free two holes (2 KiB, 1 KiB). */
  b1 = must_malloc (a, 0, 2048, S0);
  b2 = must_malloc (a, 0, 512, S0);
  b3 = must_malloc (a, 0, 1024, S0);
  b4 = must_malloc (a, 0, 512, S0);
  g_assert_cmphex (b2, ==, b1 + 2048);
  g_assert_cmphex (b3, ==, b2 + 512);
  g_assert_cmphex (b4, ==, b3 + 1024);
  must_free (a, b1);
  must_free (a, b3);
  g_assert_cmpint (stat (a, 0, "inactive_split.all.current"), ==, 3);

  /* 1000 bytes round to 1024: the 1 KiB hole, not the 2 KiB one. */
  x = must_malloc (a, 0, 1000, S0);
  g_assert_cmphex (x, ==, b3);
  /* 1500 -> 1536: the 2 KiB hole, split, leaving 512 bytes there. */
  y = must_malloc (a, 0, 1500, S0);
  g_assert_cmphex (y, ==, b1);
  g_assert_cmpint (stat (a, 0, "inactive_split.all.current"), ==, 2);
  check_consistency (a);

  /* Another stream never gets this segment's free space. */
  b5 = must_malloc (a, 0, 512, S1);
  g_assert_cmphex (b5, ==, TS_DEVICE_MEMORY_BASE + 2 * MiB);
  g_assert_cmpint (stat (a, 0, "segment.all.current"), ==, 2);
  check_consistency (a);

  must_free (a, b2);
  must_free (a, b4);
  must_free (a, x);
  must_free (a, y);
  must_free (a, b5);
  check_consistency (a);
  g_assert_cmpint (stat (a, 0, "inactive_split.all.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "allocated_bytes.all.current"), ==, 0);
}

/* Split and merge stats, step by step (§1.4 step 7 and §1.5). */
static void
test_split_merge_stats (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
  guint64 x, y, z;

  x = must_malloc (a, 0, 4 * MiB, S0);      /* 20 MiB segment, fresh split: +1, +16 MiB */
  g_assert_cmpint (stat (a, 0, "inactive_split.large_pool.allocated"), ==, 1);
  g_assert_cmpint (stat (a, 0, "inactive_split_bytes.large_pool.allocated"), ==, 16 * MiB);
  y = must_malloc (a, 0, 6 * MiB, S0);      /* split of a split block: bytes -6 MiB, count same */
  g_assert_cmpint (stat (a, 0, "inactive_split.large_pool.current"), ==, 1);
  g_assert_cmpint (stat (a, 0, "inactive_split_bytes.large_pool.current"), ==, 10 * MiB);
  g_assert_cmpint (stat (a, 0, "inactive_split_bytes.large_pool.freed"), ==, 6 * MiB);
  z = must_malloc (a, 0, 10 * MiB - 512 * KiB, S0); /* 9.5 MiB of the 10 MiB rest: 0.5 MiB left, no split */
  g_assert_cmphex (z, ==, y + 6 * MiB);
  g_assert_cmpint (stat (a, 0, "allocated_bytes.all.current"), ==, 20 * MiB);
  g_assert_cmpint (stat (a, 0, "inactive_split.large_pool.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "inactive_split.large_pool.freed"), ==, 1);
  g_assert_cmpint (stat (a, 0, "inactive_split_bytes.large_pool.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "requested_bytes.all.current"), ==, 20 * MiB - 512 * KiB);
  check_consistency (a);

  /* Free the middle: no free neighbour, still split: +1, +6 MiB. */
  must_free (a, y);
  g_assert_cmpint (stat (a, 0, "inactive_split.large_pool.current"), ==, 1);
  g_assert_cmpint (stat (a, 0, "inactive_split_bytes.large_pool.current"), ==, 6 * MiB);
  /* Free the first: merges with the middle: net 0 blocks, +4 MiB. */
  must_free (a, x);
  g_assert_cmpint (stat (a, 0, "inactive_split.large_pool.current"), ==, 1);
  g_assert_cmpint (stat (a, 0, "inactive_split.large_pool.allocated"), ==, 2);
  g_assert_cmpint (stat (a, 0, "inactive_split_bytes.large_pool.current"), ==, 10 * MiB);
  /* Free the last: merges into one unsplit block: -1, -10 MiB. */
  must_free (a, z);
  g_assert_cmpint (stat (a, 0, "inactive_split.large_pool.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "inactive_split_bytes.large_pool.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "inactive_split_bytes.large_pool.freed"), ==, 26 * MiB);
  check_consistency (a);

  /* Taking a whole split block: -1 and -size. */
  x = must_malloc (a, 0, 15 * MiB, S0);
  y = must_malloc (a, 0, 5 * MiB, S0);
  g_assert_cmphex (y, ==, x + 15 * MiB);
  must_free (a, x);
  z = must_malloc (a, 0, 15 * MiB, S0);
  g_assert_cmphex (z, ==, x);
  g_assert_cmpint (stat (a, 0, "inactive_split.large_pool.current"), ==, 0);
  check_consistency (a);
}

static const char summary_1000[] =
  "|===========================================================================|\n"
  "|                  PyTorch CUDA memory summary, device ID 0                 |\n"
  "|---------------------------------------------------------------------------|\n"
  "|            CUDA OOMs: 0            |        cudaMalloc retries: 0         |\n"
  "|===========================================================================|\n"
  "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Allocated memory      |   1024 B   |   1024 B   |   1024 B   |      0 B   |\n"
  "|       from large pool |      0 B   |      0 B   |      0 B   |      0 B   |\n"
  "|       from small pool |   1024 B   |   1024 B   |   1024 B   |      0 B   |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Active memory         |   1024 B   |   1024 B   |   1024 B   |      0 B   |\n"
  "|       from large pool |      0 B   |      0 B   |      0 B   |      0 B   |\n"
  "|       from small pool |   1024 B   |   1024 B   |   1024 B   |      0 B   |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Requested memory      |   1000 B   |   1000 B   |   1000 B   |      0 B   |\n"
  "|       from large pool |      0 B   |      0 B   |      0 B   |      0 B   |\n"
  "|       from small pool |   1000 B   |   1000 B   |   1000 B   |      0 B   |\n"
  "|---------------------------------------------------------------------------|\n"
  "| GPU reserved memory   |   2048 KiB |   2048 KiB |   2048 KiB |      0 B   |\n"
  "|       from large pool |      0 KiB |      0 KiB |      0 KiB |      0 B   |\n"
  "|       from small pool |   2048 KiB |   2048 KiB |   2048 KiB |      0 B   |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Non-releasable memory |   2047 KiB |   2047 KiB |   2047 KiB |      0 B   |\n"
  "|       from large pool |      0 KiB |      0 KiB |      0 KiB |      0 B   |\n"
  "|       from small pool |   2047 KiB |   2047 KiB |   2047 KiB |      0 B   |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Allocations           |       1    |       1    |       1    |       0    |\n"
  "|       from large pool |       0    |       0    |       0    |       0    |\n"
  "|       from small pool |       1    |       1    |       1    |       0    |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Active allocs         |       1    |       1    |       1    |       0    |\n"
  "|       from large pool |       0    |       0    |       0    |       0    |\n"
  "|       from small pool |       1    |       1    |       1    |       0    |\n"
  "|---------------------------------------------------------------------------|\n"
  "| GPU reserved segments |       1    |       1    |       1    |       0    |\n"
  "|       from large pool |       0    |       0    |       0    |       0    |\n"
  "|       from small pool |       1    |       1    |       1    |       0    |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Non-releasable allocs |       1    |       1    |       1    |       0    |\n"
  "|       from large pool |       0    |       0    |       0    |       0    |\n"
  "|       from small pool |       1    |       1    |       1    |       0    |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Oversize allocations  |       0    |       0    |       0    |       0    |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Oversize GPU segments |       0    |       0    |       0    |       0    |\n"
  "|===========================================================================|\n";

/* Seed 06: a 1000x1000 float32 tensor, del, empty_cache, then
 * memory_summary(abbreviated=True); worked out by hand from the
 * formatter rules (values in KiB are floor-divided). */
static const char summary_seed06[] =
  "|===========================================================================|\n"
  "|                  PyTorch CUDA memory summary, device ID 1                 |\n"
  "|---------------------------------------------------------------------------|\n"
  "|            CUDA OOMs: 0            |        cudaMalloc retries: 0         |\n"
  "|===========================================================================|\n"
  "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Allocated memory      |      0 B   |   3906 KiB |   3906 KiB |   3906 KiB |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Active memory         |      0 B   |   3906 KiB |   3906 KiB |   3906 KiB |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Requested memory      |      0 B   |   3906 KiB |   3906 KiB |   3906 KiB |\n"
  "|---------------------------------------------------------------------------|\n"
  "| GPU reserved memory   |      0 B   |  20480 KiB |  20480 KiB |  20480 KiB |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Non-releasable memory |      0 B   |  16573 KiB |  16573 KiB |  16573 KiB |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Allocations           |       0    |       1    |       1    |       1    |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Active allocs         |       0    |       1    |       1    |       1    |\n"
  "|---------------------------------------------------------------------------|\n"
  "| GPU reserved segments |       0    |       1    |       1    |       1    |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Non-releasable allocs |       0    |       1    |       1    |       1    |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Oversize allocations  |       0    |       0    |       0    |       0    |\n"
  "|---------------------------------------------------------------------------|\n"
  "| Oversize GPU segments |       0    |       0    |       0    |       0    |\n"
  "|===========================================================================|\n";

static void
test_summary (void)
{
  g_autoptr(Fake) fake = fake_new (2, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 2, NULL);
  g_autofree char *s1 = NULL, *s2 = NULL;
  const char *line;
  guint64 x;

  x = must_malloc (a, 0, 1000, S0);
  s1 = ts_allocator_memory_summary (a, 0, FALSE);
  g_assert_cmpstr (s1, ==, summary_1000);
  for (line = s1; *line; line = strchr (line, '\n') + 1)
    g_assert_cmpint (strchr (line, '\n') - line, ==, 77);
  must_free (a, x);

  /* Seed 06 on device 1 (its default stream is 1). */
  x = must_malloc (a, 1, 4000000, 1);
  g_assert_cmpint (stat (a, 1, "allocated_bytes.all.current"), ==, 4000256);
  g_assert_cmpint (stat (a, 1, "reserved_bytes.all.current"), ==, 20971520);
  must_free (a, x);
  g_assert_cmpint (stat (a, 1, "allocated_bytes.all.current"), ==, 0);
  g_assert_cmpint (stat (a, 1, "reserved_bytes.all.current"), ==, 20971520);
  ts_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, 1, "reserved_bytes.all.current"), ==, 0);
  g_assert_cmpint (stat (a, 1, "allocated_bytes.all.peak"), ==, 4000256);
  g_assert_cmpint (stat (a, 1, "reserved_bytes.all.peak"), ==, 20971520);
  g_assert_cmpint (stat (a, 1, "allocation.all.allocated"), ==, 1);
  g_assert_cmpint (stat (a, 1, "segment.large_pool.freed"), ==, 1);
  s2 = ts_allocator_memory_summary (a, 1, TRUE);
  g_assert_cmpstr (s2, ==, summary_seed06);
}

/* Units: the "all" value of a column picks the unit for the three rows;
 * 80 GiB prints as 81920 MiB (the switch to the next unit happens at 768
 * of the current one), counts switch to K at 750000. */
static void
test_summary_units (void)
{
  TsMemoryStats stats;
  g_autofree char *s = NULL;

  ts_memory_stats_init (&stats, -1);
  stats.allocated_bytes[TS_STAT_TYPE_ALL].current = G_GINT64_CONSTANT (85899345920);
  stats.allocated_bytes[TS_STAT_TYPE_LARGE_POOL].current = G_GINT64_CONSTANT (85899345920) - 1024;
  stats.allocated_bytes[TS_STAT_TYPE_SMALL_POOL].current = 1024;
  stats.allocated_bytes[TS_STAT_TYPE_ALL].peak = 786431;
  stats.allocated_bytes[TS_STAT_TYPE_ALL].allocated = 786432;
  stats.allocated_bytes[TS_STAT_TYPE_ALL].freed = G_GINT64_CONSTANT (1) << 50;
  stats.allocation[TS_STAT_TYPE_ALL].current = 1000000;
  stats.allocation[TS_STAT_TYPE_SMALL_POOL].current = 999;
  stats.allocation[TS_STAT_TYPE_ALL].peak = 749999;
  stats.oversize_segments.current = 800000000;
  stats.num_ooms = 3;
  stats.num_alloc_retries = 12;

  s = ts_memory_stats_format_summary (&stats, 3, FALSE);
  g_assert_nonnull (strstr (s, "|            CUDA OOMs: 3            |        cudaMalloc retries: 12        |\n"));
  g_assert_nonnull (strstr (s, "device ID 3                 |\n"));
  g_assert_nonnull (strstr (s, "| Allocated memory      |  81920 MiB | 786431 B   |    768 KiB |   1024 TiB |\n"
                               "|       from large pool |  81919 MiB |      0 B   |      0 KiB |      0 TiB |\n"
                               "|       from small pool |      0 MiB |      0 B   |      0 KiB |      0 TiB |\n"));
  g_assert_nonnull (strstr (s, "| Allocations           |    1000 K  |  749999    |       0    |       0    |\n"
                               "|       from large pool |       0 K  |       0    |       0    |       0    |\n"
                               "|       from small pool |       0 K  |       0    |       0    |       0    |\n"));
  g_assert_nonnull (strstr (s, "| Oversize GPU segments |     800 M  |       0    |       0    |       0    |\n"));
}

static void
test_stats_keys (void)
{
  TsMemoryStats stats;
  guint k;

  ts_memory_stats_init (&stats, -1);
  g_assert_cmpstr (ts_memory_stats_key (0), ==, "active.all.allocated");
  g_assert_cmpstr (ts_memory_stats_key (TS_MEMORY_STATS_N_KEYS - 1), ==, "segment.small_pool.peak");
  for (k = 1; k < TS_MEMORY_STATS_N_KEYS; k++)
    g_assert_cmpint (strcmp (ts_memory_stats_key (k - 1), ts_memory_stats_key (k)), <, 0);

  /* Every key reads back its own field. */
  for (k = 0; k < TS_MEMORY_STATS_N_KEYS; k++)
    {
      gint64 v;

      memset (&stats, 0, sizeof stats);
      g_assert_true (ts_memory_stats_lookup (&stats, ts_memory_stats_key (k), &v));
      g_assert_cmpint (v, ==, 0);
    }
  stats.requested_bytes[TS_STAT_TYPE_SMALL_POOL].freed = 42;
  stats.num_device_free = 7;
  stats.max_split_size = -1;
  {
    gint64 v;
    guint seen = 0;

    g_assert_true (ts_memory_stats_lookup (&stats, "requested_bytes.small_pool.freed", &v));
    g_assert_cmpint (v, ==, 42);
    g_assert_true (ts_memory_stats_lookup (&stats, "num_device_free", &v));
    g_assert_cmpint (v, ==, 7);
    g_assert_true (ts_memory_stats_lookup (&stats, "max_split_size", &v));
    g_assert_cmpint (v, ==, -1);
    g_assert_false (ts_memory_stats_lookup (&stats, "allocated.all.current", &v));
    for (k = 0; k < TS_MEMORY_STATS_N_KEYS; k++)
      seen += ts_memory_stats_value (&stats, k) != 0;
    g_assert_cmpuint (seen, ==, 3);
  }
  g_assert_true (ts_memory_stats_lookup (&stats, "oversize_segments.peak", NULL));
  g_assert_true (ts_memory_stats_lookup (&stats, "num_oom", NULL) == FALSE);
}

/* Upstream test_memory_allocation and test_memory_stats (TestCuda). */
static void
test_upstream_memory_stats (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
  gint64 prev, prev_active, max_alloc, max_reserved;
  guint64 p, x;

  prev = stat (a, 0, "allocated_bytes.all.current");
  p = must_malloc (a, 0, 1, S0);                      /* caching_allocator_alloc(1) */
  g_assert_cmpint (stat (a, 0, "allocated_bytes.all.current"), ==, prev + 512);
  must_free (a, p);                                   /* caching_allocator_delete */
  g_assert_cmpint (stat (a, 0, "allocated_bytes.all.current"), ==, prev);

  ts_allocator_empty_cache (a);
  ts_allocator_reset_peak_stats (a, 0);
  ts_allocator_reset_accumulated_stats (a, 0);
  g_assert_cmpint (stat (a, 0, "num_sync_all_streams"), ==, 0);
  g_assert_cmpint (stat (a, 0, "allocated_bytes.all.current"), ==, stat (a, 0, "allocated_bytes.all.peak"));
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, stat (a, 0, "reserved_bytes.all.peak"));

  prev_active = stat (a, 0, "active_bytes.all.current");
  x = must_malloc (a, 0, 256 * 4, S0);                /* torch.randn(256) */
  g_assert_cmpint (stat (a, 0, "active_bytes.all.current"), ==, prev_active + 1024);
  g_assert_cmpint (stat (a, 0, "active_bytes.all.freed"), ==, 0);
  max_alloc = stat (a, 0, "allocated_bytes.all.peak");
  max_reserved = stat (a, 0, "reserved_bytes.all.peak");
  must_free (a, x);
  ts_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, 0, "active_bytes.all.current"), ==, prev_active);
  g_assert_cmpint (stat (a, 0, "active_bytes.all.freed"), ==, 1024);
  ts_allocator_reset_peak_stats (a, 0);
  g_assert_cmpint (stat (a, 0, "allocated_bytes.all.peak"), <, max_alloc);
  g_assert_cmpint (stat (a, 0, "allocated_bytes.all.peak"), ==, 0);
  g_assert_cmpint (max_reserved, ==, 2 * MiB);

  /* accumulated reset clears the counters too */
  g_assert_cmpint (stat (a, 0, "num_sync_all_streams"), ==, 1);
  ts_allocator_reset_accumulated_stats (a, 0);
  g_assert_cmpint (stat (a, 0, "num_sync_all_streams"), ==, 0);
  g_assert_cmpint (stat (a, 0, "num_device_alloc"), ==, 0);
  g_assert_cmpint (stat (a, 0, "active_bytes.all.freed"), ==, 0);
}

static void
assert_oom (TsAllocator *a,
            guint64      size,
            const char  *expected_prefix)
{
  g_autoptr(GError) error = NULL;
  guint64 addr = 1;

  g_assert_false (ts_allocator_malloc (a, 0, size, S0, NULL, &addr, &error));
  g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_OUT_OF_MEMORY);
  g_assert_cmpuint (addr, ==, 0);
  if (!g_str_has_prefix (error->message, expected_prefix))
    g_error ("message \"%s\" does not start with \"%s\"", error->message, expected_prefix);
}

typedef struct
{
  guint   calls;
  guint   device;
  guint64 alloc;
  guint64 allowed;
  guint64 device_free;
} OomSeen;

static void
on_oom (guint    device,
        guint64  alloc_size,
        guint64  device_allowed,
        guint64  device_free,
        gpointer user_data)
{
  OomSeen *seen = user_data;

  seen->calls++;
  seen->device = device;
  seen->alloc = alloc_size;
  seen->allowed = device_allowed;
  seen->device_free = device_free;
}

/* test_out_of_memory, test_out_of_memory_retry, test_raises_oom,
 * test_notifies_oom. */
static void
test_out_of_memory (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
  g_autoptr(TsMemorySnapshot) snap = NULL;
  g_autoptr(GError) error = NULL;
  OomSeen seen = { 0 };
  guint64 small, half, x, y;

  ts_allocator_record_history (a, TRUE, G_MAXSIZE, 0, FALSE);
  ts_allocator_add_oom_observer (a, on_oom, &seen);
  small = must_malloc (a, 0, 1024 * 4, S0);

  g_assert_false (ts_allocator_malloc (a, 0, G_GUINT64_CONSTANT (858993459200000000), S0, NULL, &x, &error));
  g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_OUT_OF_MEMORY);
  g_assert_cmpstr (error->message, ==,
                   "CUDA out of memory. Tried to allocate 800000000.00 GiB. GPU 0 has a total capacity of "
                   "80.00 GiB of which 79.50 GiB is free. Of the allocated memory 4.00 KiB is allocated by "
                   "PyTorch, and 2.00 MiB is reserved by PyTorch but unallocated. If reserved but unallocated "
                   "memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
                   "fragmentation.  See documentation for Memory Management  "
                   "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)");
  g_clear_error (&error);
  g_assert_cmpuint (seen.calls, ==, 1);
  g_assert_cmpuint (seen.device, ==, 0);
  g_assert_cmpuint (seen.alloc, ==, G_GUINT64_CONSTANT (858993459200000000));
  g_assert_cmpuint (seen.allowed, ==, H100_BYTES);
  g_assert_cmpuint (seen.device_free, ==, H100_BYTES - CONTEXT_RESERVE - 2 * MiB);
  g_assert_cmpint (stat (a, 0, "num_ooms"), ==, 1);
  g_assert_cmpint (stat (a, 0, "num_alloc_retries"), ==, 1);
  g_assert_cmpint (stat (a, 0, "num_sync_all_streams"), ==, 1);

  /* The last trace entry is the oom, with device_free and the rounded size. */
  snap = ts_allocator_snapshot (a);
  {
    GArray *trace = snap->device_traces[0];
    const TsAllocTraceEntry *e = &g_array_index (trace, TsAllocTraceEntry, trace->len - 1);

    g_assert_cmpint (e->action, ==, TS_ALLOC_ACTION_OOM);
    g_assert_cmpuint (e->addr, ==, H100_BYTES - CONTEXT_RESERVE - 2 * MiB);
    g_assert_cmpuint (e->size, ==, G_GUINT64_CONSTANT (858993459200000000));
  }

  /* 1 EiB and more: refused before the allocator runs. */
  assert_oom (a, G_GUINT64_CONSTANT (8589934592000000000), "CUDA out of memory. Tried to allocate more than 1EB memory.");
  assert_oom (a, G_GUINT64_CONSTANT (1) << 60, "CUDA out of memory. Tried to allocate more than 1EB memory.");
  assert_oom (a, G_MAXUINT64, "CUDA out of memory. Tried to allocate more than 1EB memory.");
  g_assert_cmpint (stat (a, 0, "num_ooms"), ==, 1);
  g_assert_cmpuint (seen.calls, ==, 1);

  /* test_raises_oom: 1024**4 floats. */
  assert_oom (a, G_GUINT64_CONSTANT (4) << 40, "CUDA out of memory. Tried to allocate 4096.00 GiB. GPU 0");
  g_assert_cmpuint (seen.calls, ==, 2);
  check_consistency (a);

  /* Later allocations still work. */
  x = must_malloc (a, 0, 4096, S0);
  must_free (a, x);

  /* test_out_of_memory_retry. */
  ts_allocator_empty_cache (a);
  half = H100_BYTES / 2;
  x = must_malloc (a, 0, half, S0);
  assert_oom (a, half, "CUDA out of memory. Tried to allocate 40.00 GiB. GPU 0 has a total capacity of 80.00 GiB of which 39.50 GiB is free.");
  must_free (a, x);
  y = must_malloc (a, 0, half, S0);
  g_assert_cmphex (y, ==, x);
  must_free (a, y);
  must_free (a, small);
  ts_allocator_empty_cache (a);
  check_consistency (a);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 0);
}

static void
test_raises_oom_max_split (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, "max_split_size_mb:1024");
  OomSeen seen = { 0 };

  g_assert_cmpint (stat (a, 0, "max_split_size"), ==, 1024 * MiB);
  ts_allocator_add_oom_observer (a, on_oom, &seen);
  assert_oom (a, G_GUINT64_CONSTANT (4) << 40, "CUDA out of memory. Tried to allocate 4096.00 GiB.");
  g_assert_cmpuint (seen.calls, ==, 1);
  check_consistency (a);
}

/* test_set_per_process_memory_fraction / test_get_per_process_memory_fraction. */
static void
test_memory_fraction (void)
{
  static const struct { double f; const char *text; } bad[] = {
    { -0.1, "Invalid fraction value: -0.1. Allowed range: 0~1" },
    { 2.0, "Invalid fraction value: 2.0. Allowed range: 0~1" },
    { 1.0000001, "Invalid fraction value: 1.0000001. Allowed range: 0~1" },
    { 1e20, "Invalid fraction value: 1e+20. Allowed range: 0~1" },
    { -1e-05, "Invalid fraction value: -1e-05. Allowed range: 0~1" },
    { -0.0001, "Invalid fraction value: -0.0001. Allowed range: 0~1" },
    { 1234567.0, "Invalid fraction value: 1234567.0. Allowed range: 0~1" },
    { NAN, "Invalid fraction value: nan. Allowed range: 0~1" },
    { -INFINITY, "Invalid fraction value: -inf. Allowed range: 0~1" },
  };
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
  guint64 tensor, tmp, application;
  double fractions[] = { 1.0, 0.0, 0.123456, 0.5, 0.987654321 };
  guint k;

  g_assert_cmpfloat (ts_allocator_get_memory_fraction (a, 0), ==, 1.0);
  for (k = 0; k < G_N_ELEMENTS (bad); k++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_false (ts_allocator_set_memory_fraction (a, 0, bad[k].f, &error));
      g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_INVALID_VALUE);
      g_assert_cmpstr (error->message, ==, bad[k].text);
    }
  g_assert_cmpstr (TS_ALLOCATOR_FRACTION_TYPE_ERROR, ==, "Invalid type for fraction argument, must be `float`");

  for (k = 0; k < G_N_ELEMENTS (fractions); k++)
    {
      g_assert_true (ts_allocator_set_memory_fraction (a, 0, fractions[k], NULL));
      g_assert_cmpfloat_with_epsilon (ts_allocator_get_memory_fraction (a, 0), fractions[k], 1e-9);
    }
  g_assert_true (ts_allocator_set_memory_fraction (a, 0, 1.0, NULL));
  g_assert_cmpfloat (ts_allocator_get_memory_fraction (a, 0), ==, 1.0);
  g_assert_true (ts_allocator_set_memory_fraction (a, 0, 0.0, NULL));
  g_assert_cmpfloat (ts_allocator_get_memory_fraction (a, 0), ==, 0.0);

  /* Fraction 0: not even a small segment is allowed. */
  assert_oom (a, 4096, "CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of "
              "80.00 GiB of which 79.50 GiB is free. 0 bytes allowed; Of the allocated memory 0 bytes "
              "is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated.");

  /* The upstream sequence. */
  g_assert_true (ts_allocator_set_memory_fraction (a, 0, 1.0, NULL));
  tensor = must_malloc (a, 0, 1024 * 4, S0);
  ts_allocator_empty_cache (a);
  g_assert_true (ts_allocator_set_memory_fraction (a, 0, 0.5, NULL));
  application = (guint64) (H100_BYTES * 0.499) - stat (a, 0, "reserved_bytes.all.peak");
  tmp = must_malloc (a, 0, application, S0);
  must_free (a, tmp);
  ts_allocator_empty_cache (a);
  application = (guint64) (H100_BYTES * 0.5);
  assert_oom (a, application, "CUDA out of memory. Tried to allocate 40.00 GiB. GPU 0 has a total capacity of "
              "80.00 GiB of which 79.50 GiB is free. 40.00 GiB allowed; Of the allocated memory 4.00 KiB "
              "is allocated by PyTorch, and 2.00 MiB is reserved by PyTorch but unallocated. If reserved");
  /* The limit is on reserved memory: the cudaMalloc was never tried. */
  g_assert_cmpint (stat (a, 0, "num_device_alloc"), ==, 2);
  g_assert_true (ts_allocator_lookup (a, tensor, NULL, NULL, NULL, NULL));
  must_free (a, tensor);
  check_consistency (a);
}

static gint64
allocated_delta_for (const char *conf,
                     guint64     nbytes,
                     const char *key)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, conf);
  gint64 before = stat (a, 0, key);
  guint64 x = must_malloc (a, 0, nbytes, S0);
  gint64 delta = stat (a, 0, key) - before;

  must_free (a, x);
  check_consistency (a);
  return delta;
}

/* test_allocator_settings, on one allocator whose settings change. */
static void
test_allocator_settings (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
  guint64 nbytes = 21 * MiB * 4, x;
  gint64 active, requested;
  TsAllocConfig c;

  g_assert_cmpint (allocated_delta_for (NULL, nbytes, "active_bytes.all.allocated"), ==, 88080384);
  g_assert_cmpint (allocated_delta_for ("roundup_power2_divisions:4", nbytes, "active_bytes.all.allocated"), ==, 100663296);
  g_assert_cmpint (allocated_delta_for ("roundup_power2_divisions:4", nbytes, "requested_bytes.all.allocated"), ==, 88080384);
  g_assert_cmpint (allocated_delta_for ("roundup_power2_divisions:[64:8,128:2,256:2,512:2,1024:1,>:1]", nbytes,
                                        "active_bytes.all.allocated"), ==, 92274688);
  g_assert_cmpint (allocated_delta_for ("roundup_power2_divisions:[64:8,128:2,256:2,512:2,1024:1,>:1]", 100 * MiB * 4,
                                        "active_bytes.all.allocated"), ==, 536870912);

  /* The same sequence with set_config between steps, blocks cached. */
  active = stat (a, 0, "active_bytes.all.allocated");
  x = must_malloc (a, 0, nbytes, S0);
  must_free (a, x);
  g_assert_cmpint (stat (a, 0, "active_bytes.all.allocated") - active, ==, 88080384);

  ts_allocator_get_config (a, &c);
  g_assert_true (ts_alloc_config_parse (&c, "roundup_power2_divisions:4", NULL));
  ts_allocator_set_config (a, &c);
  active = stat (a, 0, "active_bytes.all.allocated");
  requested = stat (a, 0, "requested_bytes.all.allocated");
  x = must_malloc (a, 0, nbytes, S0);
  must_free (a, x);
  g_assert_cmpint (stat (a, 0, "active_bytes.all.allocated") - active, ==, 100663296);
  g_assert_cmpint (stat (a, 0, "requested_bytes.all.allocated") - requested, ==, 88080384);

  g_assert_true (ts_alloc_config_parse (&c, "roundup_power2_divisions:[64:8,128:2,256:2,512:2,1024:1,>:1]", NULL));
  ts_allocator_set_config (a, &c);
  active = stat (a, 0, "active_bytes.all.allocated");
  x = must_malloc (a, 0, nbytes, S0);   /* served by splitting the cached 96 MiB block */
  must_free (a, x);
  g_assert_cmpint (stat (a, 0, "active_bytes.all.allocated") - active, ==, 92274688);
  active = stat (a, 0, "active_bytes.all.allocated");
  x = must_malloc (a, 0, 100 * MiB * 4, S0);
  must_free (a, x);
  g_assert_cmpint (stat (a, 0, "active_bytes.all.allocated") - active, ==, 536870912);
  check_consistency (a);
}

/* test_cachingAllocator_raw_alloc and PYTORCH_NO_CUDA_MEMORY_CACHING. */
static void
test_caching_disabled (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
  g_autoptr(GError) error = NULL;
  guint64 x, y, free_bytes;
  gint64 requested = stat (a, 0, "requested_bytes.all.allocated");

  x = must_malloc (a, 0, 1048576, S0);
  g_assert_cmpint (stat (a, 0, "requested_bytes.all.allocated") - requested, ==, 1048576);
  must_free (a, x);

  ts_allocator_set_caching_enabled (a, FALSE);
  requested = stat (a, 0, "requested_bytes.all.allocated");
  x = must_malloc (a, 0, 1048576, S0);
  y = must_malloc (a, 0, 100, S0);
  g_assert_cmpint (stat (a, 0, "requested_bytes.all.allocated") - requested, ==, 0);
  g_assert_cmpint (stat (a, 0, "segment.all.current"), ==, 1);   /* only the cached one */
  g_assert_true (ts_device_memory_get_info (fake->mem, 0, &free_bytes, NULL, NULL));
  g_assert_cmpuint (free_bytes, ==, H100_BYTES - CONTEXT_RESERVE - 6 * MiB);
  must_free (a, x);
  must_free (a, y);
  g_assert_false (ts_allocator_free (a, y, NULL, &error));
  g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_INVALID_POINTER);
  g_clear_error (&error);
  g_assert_false (ts_allocator_malloc (a, 0, 100 * GiB, S0, NULL, &x, &error));
  g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_OUT_OF_MEMORY);
  g_assert_cmpstr (error->message, ==, "CUDA error: out of memory");
  g_clear_error (&error);
  g_assert_true (ts_device_memory_get_info (fake->mem, 0, &free_bytes, NULL, NULL));
  g_assert_cmpuint (free_bytes, ==, H100_BYTES - CONTEXT_RESERVE - 2 * MiB);
  ts_allocator_set_caching_enabled (a, TRUE);
  check_consistency (a);
}

/* test_record_stream: a block freed on the side stream while the main
 * stream still uses it is not handed out again until that use is done. */
static void
test_record_stream (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
  g_autoptr(TsMemorySnapshot) snap = NULL;
  guint64 result, tmp, tmp2, tmp3;

  result = must_malloc (a, 0, 16, S0);
  tmp = must_malloc (a, 0, 16, S1);                 /* t.cuda(non_blocking) on the side stream */
  g_assert_true (ts_allocator_record_stream (a, tmp, S0));
  g_assert_true (ts_allocator_record_stream (a, tmp, S0));   /* a set: once */
  g_assert_true (ts_allocator_record_stream (a, tmp, S1));   /* own stream: ignored */
  must_free (a, tmp);
  g_assert_cmpuint (fake->events->len, ==, 1);
  g_assert_cmpuint (g_array_index (fake->events, FakeEvent, 0).stream, ==, S0);

  /* Freed but pending: out of allocation, still active. */
  g_assert_cmpint (stat (a, 0, "allocation.all.current"), ==, 1);
  g_assert_cmpint (stat (a, 0, "active.all.current"), ==, 2);
  g_assert_cmpint (stat (a, 0, "active_bytes.all.current"), ==, 1024);
  g_assert_cmpint (stat (a, 0, "requested_bytes.all.current"), ==, 32);
  snap = ts_allocator_snapshot (a);
  {
    const TsSnapshotSegment *seg = &g_array_index (snap->segments, TsSnapshotSegment, 1);
    const TsSnapshotBlock *b = &g_array_index (snap->blocks, TsSnapshotBlock, seg->first_block);

    g_assert_cmpuint (seg->stream, ==, S1);
    g_assert_cmpint (b->state, ==, TS_BLOCK_STATE_ACTIVE_PENDING_FREE);
    g_assert_cmpstr (ts_block_state_to_string (b->state), ==, "active_pending_free");
    g_assert_cmpuint (seg->active_size, ==, 512);
    g_assert_cmpuint (seg->allocated_size, ==, 0);
  }
  check_consistency (a);

  tmp2 = must_malloc (a, 0, 16, S1);
  g_assert_cmphex (tmp2, !=, tmp);

  /* current_stream().synchronize(): the event is done; reuse. */
  fake_complete_stream (fake, S0);
  tmp3 = must_malloc (a, 0, 16, S1);
  g_assert_cmphex (tmp3, ==, tmp);
  g_assert_true (g_array_index (fake->events, FakeEvent, 0).released);
  check_consistency (a);

  must_free (a, tmp2);
  must_free (a, tmp3);
  must_free (a, result);
  g_assert_false (ts_allocator_record_stream (a, tmp3, S0));  /* freed: ignored */
  g_assert_false (ts_allocator_record_stream (a, 0, S0));
  g_assert_false (ts_allocator_record_stream (a, 0xdead000, S0));
  check_consistency (a);
}

/* test_record_stream_on_shifted_view: the runtime passes the storage's
 * base; the whole block waits for the recording stream. */
static void
test_record_stream_shifted_view (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
  guint64 base, again;

  base = must_malloc (a, 0, 40, S1);
  g_assert_true (ts_allocator_record_stream (a, base, S2));
  must_free (a, base);
  again = must_malloc (a, 0, 40, S1);     /* stream_alloc.synchronize() does not help */
  g_assert_cmphex (again, !=, base);
  must_free (a, again);
  fake_complete_stream (fake, S2);
  again = must_malloc (a, 0, 40, S1);
  g_assert_cmphex (again, ==, base);
  must_free (a, again);
  check_consistency (a);
}

/* test_caching_allocator_record_stream_oom: on a 4 GiB device, 100 blocks
 * of 160 MiB each waiting for a stream that never gets queried done: the
 * OOM path synchronizes the events and the loop never fails. */
static void
test_record_stream_oom (void)
{
  g_autoptr(Fake) fake = fake_new (1, 4 * GiB, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
  guint64 y, x;
  guint k;

  y = must_malloc (a, 0, 160 * MiB, S1);
  for (k = 0; k < 100; k++)
    {
      x = must_malloc (a, 0, 160 * MiB, S0);
      g_assert_true (ts_allocator_record_stream (a, x, S1));
      must_free (a, x);
      check_consistency (a);
    }
  g_assert_cmpint (stat (a, 0, "num_ooms"), ==, 0);
  g_assert_cmpint (stat (a, 0, "num_alloc_retries"), >, 0);
  g_assert_cmpint (stat (a, 0, "num_sync_all_streams"), ==, stat (a, 0, "num_alloc_retries"));
  g_assert_cmpuint (fake->n_synchronized, >, 0);
  /* 3.5 GiB of room for 160 MiB blocks: 21 fit after y, and the 22nd
   * malloc of each round syncs; the round's blocks are all reused then. */
  g_assert_cmpint (stat (a, 0, "num_alloc_retries"), ==, 4);
  must_free (a, y);
  ts_allocator_empty_cache (a);
  check_consistency (a);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 0);
}

/* max_split_size: oversize blocks are not split, not given to small
 * requests, and large requests take them only within 20 MiB. */
static void
test_max_split_size (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, "max_split_size_mb:64");
  guint64 big, x, y;

  g_assert_cmpint (stat (a, 0, "max_split_size"), ==, 64 * MiB);

  big = must_malloc (a, 0, 100 * MiB, S0);
  g_assert_cmpint (stat (a, 0, "oversize_allocations.current"), ==, 1);
  g_assert_cmpint (stat (a, 0, "oversize_segments.current"), ==, 1);
  must_free (a, big);
  g_assert_cmpint (stat (a, 0, "oversize_allocations.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "oversize_segments.current"), ==, 1);

  /* (a) a 30 MiB request does not take the cached 100 MiB block. */
  x = must_malloc (a, 0, 30 * MiB, S0);
  g_assert_cmphex (x, !=, big);
  g_assert_cmpint (stat (a, 0, "segment.all.current"), ==, 2);
  must_free (a, x);

  /* (b) 90 MiB takes it (100 < 90 + 20), unsplit: 100 MiB allocated. */
  x = must_malloc (a, 0, 90 * MiB, S0);
  g_assert_cmphex (x, ==, big);
  g_assert_cmpint (stat (a, 0, "allocated_bytes.all.current"), ==, 100 * MiB);
  g_assert_cmpint (stat (a, 0, "inactive_split.all.current"), ==, 0);
  must_free (a, x);

  /* 70 MiB does not (100 >= 70 + 20): a new 70 MiB segment. */
  y = must_malloc (a, 0, 70 * MiB, S0);
  g_assert_cmphex (y, !=, big);
  g_assert_cmpint (stat (a, 0, "oversize_segments.current"), ==, 2);
  must_free (a, y);
  check_consistency (a);
  ts_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, 0, "oversize_segments.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "oversize_segments.freed"), ==, 2);
  check_consistency (a);
}

/* release_available_cached_blocks: with max_split_size set, a failing
 * cudaMalloc first frees cached oversize blocks of the stream, without
 * counting a retry. */
static void
test_release_available (void)
{
  g_autoptr(Fake) fake = fake_new (1, 2 * GiB, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, "max_split_size_mb:100");
  guint64 b[4], x;
  guint k;

  /* 1.5 GiB usable: four 300 MiB oversize segments, cached. */
  for (k = 0; k < 4; k++)
    b[k] = must_malloc (a, 0, 300 * MiB, S0);
  for (k = 0; k < 4; k++)
    must_free (a, b[k]);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 1200 * MiB);

  /* 600 MiB: no single cached block is enough, so the largest ones of
   * the stream go, largest (and highest address) first, until 600 MiB. */
  x = must_malloc (a, 0, 600 * MiB, S0);
  g_assert_cmpint (stat (a, 0, "num_alloc_retries"), ==, 0);
  g_assert_cmpint (stat (a, 0, "num_sync_all_streams"), ==, 0);
  g_assert_cmpint (stat (a, 0, "num_device_free"), ==, 2);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 1200 * MiB);
  g_assert_true (ts_allocator_lookup (a, b[0], NULL, NULL, NULL, NULL) == FALSE);
  check_consistency (a);

  /* 250 MiB: the first fit is a cached 300 MiB block (300 < 250 + 20 is
   * false, so no), so one cached 300 MiB block ≥ 250 is released. */
  must_free (a, x);
  x = must_malloc (a, 0, 250 * MiB, S0);
  g_assert_cmpint (stat (a, 0, "num_alloc_retries"), ==, 0);
  check_consistency (a);
  must_free (a, x);
}

static gboolean
free_cb (gpointer user_data)
{
  guint *calls = user_data;

  (*calls)++;
  return FALSE;
}

typedef struct
{
  TsAllocator *a;
  guint64      victim;
  guint        calls;
} FreeingCallback;

static gboolean
freeing_cb (gpointer user_data)
{
  FreeingCallback *fc = user_data;

  fc->calls++;
  if (fc->victim == 0)
    return FALSE;
  /* Called unlocked: it may free. */
  must_free (fc->a, fc->victim);
  fc->victim = 0;
  return TRUE;
}

static void
test_free_memory_callbacks (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
  FreeingCallback fc = { a, 0, 0 };
  guint calls = 0, id;
  guint64 x, y;

  id = ts_allocator_add_free_memory_callback (a, free_cb, &calls);
  ts_allocator_add_free_memory_callback (a, freeing_cb, &fc);

  x = must_malloc (a, 0, 30 * MiB, S0);
  g_assert_cmpuint (calls, ==, 1);           /* no cached block: callbacks run */
  fc.victim = x;
  y = must_malloc (a, 0, 30 * MiB, S0);       /* the callback frees x, found again */
  g_assert_cmphex (y, ==, x);
  g_assert_cmpuint (calls, ==, 2);
  g_assert_cmpuint (fc.calls, ==, 2);
  g_assert_cmpint (stat (a, 0, "segment.all.current"), ==, 1);
  must_free (a, y);
  x = must_malloc (a, 0, 30 * MiB, S0);       /* cached: no callback */
  g_assert_cmpuint (calls, ==, 2);
  must_free (a, x);
  ts_allocator_remove_callback (a, id);
  x = must_malloc (a, 0, 50 * MiB, S0);
  g_assert_cmpuint (calls, ==, 2);
  g_assert_cmpuint (fc.calls, ==, 3);
  must_free (a, x);
  check_consistency (a);
}

/* garbage_collection_threshold with a fraction: old unsplit cached large
 * blocks go before a cudaMalloc, without a retry or a sync. */
static void
test_garbage_collection (void)
{
  g_autoptr(Fake) fake = fake_new (1, 4 * GiB, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, "garbage_collection_threshold:0.5");
  guint64 b[3], x;
  guint k;

  g_assert_true (ts_allocator_set_memory_fraction (a, 0, 0.5, NULL));   /* 2 GiB allowed, GC above 1 GiB */
  for (k = 0; k < 3; k++)
    b[k] = must_malloc (a, 0, 400 * MiB, S0);
  for (k = 0; k < 3; k++)
    must_free (a, b[k]);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 1200 * MiB);

  /* 500 MiB: nothing cached fits; reserved 1200 MiB > 1024 MiB, so the GC
   * frees every block of at least the mean age (all three, same age). */
  x = must_malloc (a, 0, 500 * MiB, S0);
  g_assert_cmpint (stat (a, 0, "num_device_free"), ==, 3);
  g_assert_cmpint (stat (a, 0, "num_alloc_retries"), ==, 0);
  g_assert_cmpint (stat (a, 0, "num_sync_all_streams"), ==, 0);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 500 * MiB);
  must_free (a, x);
  check_consistency (a);
}

/* Bad input never corrupts the state. */
static void
test_bad_input (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
  GError *error = NULL;
  guint64 x, y;

  x = must_malloc (a, 0, 1000, S0);
  y = must_malloc (a, 0, 0, S0);
  g_assert_cmpuint (y, ==, 0);
  g_assert_true (ts_allocator_free (a, 0, NULL, &error));

  g_assert_false (ts_allocator_free (a, x + 512, NULL, &error));   /* interior pointer */
  g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_INVALID_POINTER);
  g_assert_cmpstr (error->message, ==, "invalid device pointer: 0x7f0000000200");
  g_clear_error (&error);
  g_assert_false (ts_allocator_free (a, 0x1234, NULL, &error));    /* foreign */
  g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_INVALID_POINTER);
  g_assert_cmpstr (error->message, ==, "invalid device pointer: 0x1234");
  g_clear_error (&error);
  must_free (a, x);
  g_assert_false (ts_allocator_free (a, x, NULL, &error));         /* twice */
  g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_INVALID_POINTER);
  g_clear_error (&error);

  g_assert_false (ts_allocator_malloc (a, 5, 10, S0, NULL, &x, &error));
  g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_INVALID_DEVICE);
  g_assert_cmpstr (error->message, ==, "Allocator not initialized for device 5: did you call init?");
  g_clear_error (&error);
  /* A negative Python size reaches C as a huge unsigned one: the 1 EiB check. */
  g_assert_false (ts_allocator_malloc (a, 0, (guint64) -8, S0, NULL, &x, &error));
  g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_OUT_OF_MEMORY);
  g_clear_error (&error);
  g_assert_false (ts_allocator_set_memory_fraction (a, 3, 0.5, &error));
  g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_INVALID_DEVICE);
  g_clear_error (&error);
  g_assert_false (ts_allocator_get_stats (a, 3, &(TsMemoryStats) { 0 }));
  g_assert_null (ts_allocator_memory_summary (a, 3, FALSE));

  g_assert_cmpint (stat (a, 0, "allocation.all.allocated"), ==, 1);
  g_assert_cmpint (stat (a, 0, "allocation.all.freed"), ==, 1);
  check_consistency (a);
}

/* History (the snapshot's device_traces) and the recorder. */
static void
test_history_and_recorder (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(TsMemorySnapshot) s1 = NULL, s2 = NULL, s3 = NULL;
  TsSourceLoc here = { 0 };
  static const TsAllocAction expected[] = {
    TS_ALLOC_ACTION_SEGMENT_ALLOC, TS_ALLOC_ACTION_ALLOC, TS_ALLOC_ACTION_FREE_REQUESTED,
    TS_ALLOC_ACTION_FREE_COMPLETED, TS_ALLOC_ACTION_SEGMENT_FREE, TS_ALLOC_ACTION_SEGMENT_ALLOC,
    TS_ALLOC_ACTION_ALLOC,
  };
  GArray *trace;
  guint64 x;
  guint k;

  here.file = ts_recorder_intern (rec, "test_cuda.py");
  here.function = ts_recorder_intern (rec, "test_memory_snapshot");
  here.line = 42;
  ts_allocator_set_recorder (a, rec);
  ts_allocator_record_history (a, TRUE, G_MAXSIZE, 0, FALSE);

  g_assert_true (ts_allocator_malloc (a, 0, 1000, S0, &here, &x, NULL));
  must_free (a, x);
  ts_allocator_empty_cache (a);
  g_assert_true (ts_allocator_malloc (a, 0, 311 * 411 * 4, S0, &here, &x, NULL));

  s1 = ts_allocator_snapshot (a);
  trace = s1->device_traces[0];
  g_assert_cmpuint (trace->len, ==, G_N_ELEMENTS (expected));
  for (k = 0; k < trace->len; k++)
    g_assert_cmpint (g_array_index (trace, TsAllocTraceEntry, k).action, ==, expected[k]);
  /* alloc and free entries carry the unrounded size, segments theirs. */
  g_assert_cmpuint (g_array_index (trace, TsAllocTraceEntry, 0).size, ==, 2 * MiB);
  g_assert_cmpuint (g_array_index (trace, TsAllocTraceEntry, 1).size, ==, 1000);
  g_assert_cmpuint (g_array_index (trace, TsAllocTraceEntry, 3).size, ==, 1000);
  g_assert_cmpuint (g_array_index (trace, TsAllocTraceEntry, 6).size, ==, 511284);
  g_assert_cmphex (g_array_index (trace, TsAllocTraceEntry, 6).addr, ==, x);
  g_assert_cmpuint (g_array_index (trace, TsAllocTraceEntry, 6).loc.line, ==, 42);
  g_assert_cmpint (g_array_index (trace, TsAllocTraceEntry, 6).time, >, g_array_index (trace, TsAllocTraceEntry, 0).time);
  {
    const TsSnapshotSegment *seg = &g_array_index (s1->segments, TsSnapshotSegment, 0);
    const TsSnapshotBlock *b = &g_array_index (s1->blocks, TsSnapshotBlock, seg->first_block);

    g_assert_cmpuint (b->requested_size, ==, 511284);
    g_assert_cmphex (b->address, ==, x);
    g_assert_cmpuint (b->loc.file, ==, here.file);
    g_assert_cmpuint (seg->loc.line, ==, 42);
    g_assert_cmpuint (b[1].loc.line, ==, 0);
  }

  /* The snapshot entry shows up in the next snapshot, after the copy. */
  s2 = ts_allocator_snapshot (a);
  trace = s2->device_traces[0];
  g_assert_cmpuint (trace->len, ==, G_N_ELEMENTS (expected) + 1);
  g_assert_cmpint (g_array_index (trace, TsAllocTraceEntry, trace->len - 1).action, ==, TS_ALLOC_ACTION_SNAPSHOT);
  g_assert_cmpuint (g_array_index (trace, TsAllocTraceEntry, trace->len - 1).size, ==, 511488);
  g_assert_cmpstr (ts_alloc_action_to_string (TS_ALLOC_ACTION_SNAPSHOT), ==, "snapshot");

  /* max_entries keeps the newest; skip_actions drops kinds. */
  ts_allocator_record_history (a, TRUE, 2, 1u << TS_ALLOC_ACTION_SNAPSHOT, FALSE);
  must_free (a, x);
  ts_allocator_empty_cache (a);
  s3 = ts_allocator_snapshot (a);
  trace = s3->device_traces[0];
  g_assert_cmpuint (trace->len, ==, 2);
  g_assert_cmpint (g_array_index (trace, TsAllocTraceEntry, 0).action, ==, TS_ALLOC_ACTION_FREE_COMPLETED);
  g_assert_cmpint (g_array_index (trace, TsAllocTraceEntry, 1).action, ==, TS_ALLOC_ACTION_SEGMENT_FREE);
  g_assert_cmpuint (s3->segments->len, ==, 0);

  /* The recorder saw everything, history or not, and the counters; it
   * also gets the settings when attached (one config record) and one
   * sync_all_streams per empty_cache, which the history never shows. */
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_ALLOC), ==, G_N_ELEMENTS (expected) + 2 + 3 + 1 + 1 + 2);
  {
    TsAllocRecord r;
    TsCounterRecord c;
    gsize n = ts_recorder_get_count (rec, TS_RECORD_COUNTER);

    g_assert_true (ts_recorder_get (rec, TS_RECORD_ALLOC, 0, &r));
    g_assert_cmpint (r.action, ==, TS_ALLOC_ACTION_CONFIG);
    g_assert_cmpuint (r.size, ==, G_MAXUINT64);
    g_assert_cmpint ((gint64) r.requested, ==, -1);
    g_assert_true (ts_recorder_get (rec, TS_RECORD_ALLOC, 2, &r));
    g_assert_cmpint (r.action, ==, TS_ALLOC_ACTION_ALLOC);
    g_assert_cmpuint (r.size, ==, 1024);
    g_assert_cmpuint (r.requested, ==, 1000);
    g_assert_cmpuint (r.pool, ==, 1);
    g_assert_cmpuint (r.loc.line, ==, 42);
    g_assert_cmpuint (r.stream, ==, S0);
    g_assert_cmpint (r.time, >, 0);

    /* alloc 1000: allocated, reserved; free: allocated; empty_cache:
     * reserved; alloc 511284: two; free: one; empty: one. No active
     * bytes: the alloc records give them. */
    g_assert_cmpuint (n, ==, 2 + 1 + 1 + 2 + 1 + 1);
    for (gsize i = 0; i < n; i++)
      {
        g_assert_true (ts_recorder_get (rec, TS_RECORD_COUNTER, i, &c));
        g_assert_cmpuint (c.counter, !=, TS_COUNTER_ACTIVE_BYTES);
      }
    g_assert_true (ts_recorder_get (rec, TS_RECORD_COUNTER, 1, &c));
    g_assert_cmpuint (c.counter, ==, TS_COUNTER_RESERVED_BYTES);
    g_assert_cmpint (c.value, ==, 2 * MiB);
    g_assert_true (ts_recorder_get (rec, TS_RECORD_COUNTER, n - 1, &c));
    g_assert_cmpuint (c.counter, ==, TS_COUNTER_RESERVED_BYTES);
    g_assert_cmpint (c.value, ==, 0);
  }

  ts_allocator_record_history (a, FALSE, G_MAXSIZE, 0, TRUE);
  ts_allocator_set_recorder (a, NULL);
}


/* ------------------------------------------------------------------ */
/* Expandable segments                                                */

/* The snapshot segment k of device 0, with a check of its block count. */
static const TsSnapshotSegment *
snap_segment (TsMemorySnapshot *snap,
              guint             k,
              guint64           address,
              guint64           total_size,
              guint             n_blocks)
{
  const TsSnapshotSegment *seg;

  g_assert_cmpuint (k, <, snap->segments->len);
  seg = &g_array_index (snap->segments, TsSnapshotSegment, k);
  g_assert_cmphex (seg->address, ==, address);
  g_assert_cmpuint (seg->total_size, ==, total_size);
  g_assert_cmpuint (seg->n_blocks, ==, n_blocks);
  return seg;
}

static void
check_trace_entry (GArray        *trace,
                   guint          k,
                   TsAllocAction  action,
                   guint64        addr,
                   guint64        size)
{
  const TsAllocTraceEntry *e;

  g_assert_cmpuint (k, <, trace->len);
  e = &g_array_index (trace, TsAllocTraceEntry, k);
  g_assert_cmpstr (ts_alloc_action_to_string (e->action), ==, ts_alloc_action_to_string (action));
  g_assert_cmphex (e->addr, ==, addr);
  g_assert_cmpuint (e->size, ==, size);
}

/* CUDACachingAllocator.cpp with expandable_segments:True. Sizes and
 * addresses follow from:
 * - find_expandable_block: a new ExpandableSegment reserves
 *   numSegments(totalGlobalMem + totalGlobalMem / 8) pages, pages being
 *   kSmallBuffer (2 MiB) in the small pool and kLargeBuffer (20 MiB) in
 *   the large one: 90 GiB for this 80 GiB device, either way;
 * - alloc_block -> try_allocate_expandable_block maps the pages under the
 *   rounded size (not get_allocation_size), map_block adds them to
 *   reserved_bytes and num_device_alloc, never to the segment stat, and
 *   traces segment_map;
 * - should_split is `remaining >= kMinBlockSize` for every pool, and
 *   alloc_found_block / free_block skip inactive_split for expandable
 *   blocks;
 * - release_blocks -> unmap_block gives back only the whole pages inside
 *   a free block (ExpandableSegment::unmap: segmentRight(ptr) ..
 *   segmentLeft(ptr + size)), and release_expandable_segment drops a
 *   segment left with no page mapped;
 * - snapshot() reports each mapped range as a segment, is_expandable. */
static void
test_expandable_segments (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, "expandable_segments:True");
  g_autoptr(TsMemorySnapshot) snap = NULL, snap2 = NULL;
  const guint64 base = TS_DEVICE_MEMORY_BASE, va = 90 * GiB, base2 = base + va;
  const TsSnapshotSegment *seg;
  const TsSnapshotBlock *b;
  guint64 x, y, z;
  GArray *trace;

  /* (check_consistency's snapshots stay out of the history) */
  ts_allocator_record_history (a, TRUE, G_MAXSIZE, 1u << TS_ALLOC_ACTION_SNAPSHOT, FALSE);

  /* 1000 B: one 2 MiB page of a small expandable segment, split. */
  x = must_malloc (a, 0, 1000, S0);
  g_assert_cmphex (x, ==, base);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 2097152);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.small_pool.current"), ==, 2097152);
  g_assert_cmpint (stat (a, 0, "segment.all.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "num_device_alloc"), ==, 1);
  g_assert_cmpint (stat (a, 0, "allocated_bytes.all.current"), ==, 1024);
  g_assert_cmpint (stat (a, 0, "requested_bytes.all.current"), ==, 1000);
  g_assert_cmpint (stat (a, 0, "inactive_split.all.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "inactive_split_bytes.all.current"), ==, 0);
  g_assert_cmpuint (fake->n_segment_mallocs, ==, 0);
  g_assert_cmpuint (fake->n_pages_mapped, ==, 2 * MiB);
  check_consistency (a);

  /* 5 MiB: a large segment at the next free address space, one 20 MiB
   * page, split 5 + 15 MiB. */
  y = must_malloc (a, 0, 5 * MiB, S0);
  g_assert_cmphex (y, ==, base2);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 23068672);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.large_pool.current"), ==, 20971520);
  g_assert_cmpint (stat (a, 0, "num_device_alloc"), ==, 2);

  /* 30 MiB: no free block is that large, so find_expandable_block starts
   * at the free 15 MiB block before the unmapped space, and one more page
   * makes it 35 MiB: the allocation spans two pages. */
  z = must_malloc (a, 0, 30 * MiB, S0);
  g_assert_cmphex (z, ==, base2 + 5 * MiB);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 44040192);
  g_assert_cmpint (stat (a, 0, "num_device_alloc"), ==, 3);
  g_assert_cmpint (stat (a, 0, "segment.all.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "allocated_bytes.all.current"), ==, 1024 + 5 * MiB + 30 * MiB);
  check_consistency (a);

  snap = ts_allocator_snapshot (a);
  g_assert_cmpuint (snap->segments->len, ==, 2);
  seg = snap_segment (snap, 0, base, 2 * MiB, 2);
  g_assert_true (seg->is_expandable && seg->is_small);
  g_assert_true (TS_MEM_POOL_ID_IS_NONE (seg->pool_id));
  seg = snap_segment (snap, 1, base2, 40 * MiB, 3);
  g_assert_true (seg->is_expandable && !seg->is_small);
  g_assert_cmpuint (seg->allocated_size, ==, 35 * MiB);
  b = &g_array_index (snap->blocks, TsSnapshotBlock, seg->first_block);
  g_assert_cmpuint (b[0].size, ==, 5 * MiB);
  g_assert_cmpuint (b[1].size, ==, 30 * MiB);
  g_assert_cmpuint (b[2].size, ==, 5 * MiB);
  g_assert_cmpint (b[2].state, ==, TS_BLOCK_STATE_INACTIVE);

  /* Free 5 MiB: no whole page inside either free block, so empty_cache
   * unmaps nothing. */
  must_free (a, y);
  ts_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 44040192);
  g_assert_cmpint (stat (a, 0, "num_device_free"), ==, 0);
  g_assert_cmpint (stat (a, 0, "num_sync_all_streams"), ==, 1);
  check_consistency (a);

  /* Free 30 MiB: the merged 40 MiB are two whole pages; they go, and the
   * large segment with them. */
  must_free (a, z);
  ts_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 2097152);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.large_pool.freed"), ==, 41943040);
  g_assert_cmpint (stat (a, 0, "num_device_free"), ==, 1);
  g_assert_cmpuint (fake->n_pages_mapped, ==, 2 * MiB);
  check_consistency (a);

  snap2 = ts_allocator_snapshot (a);
  trace = snap2->device_traces[0];
  check_trace_entry (trace, 0, TS_ALLOC_ACTION_SEGMENT_MAP, base, 2 * MiB);
  check_trace_entry (trace, 1, TS_ALLOC_ACTION_ALLOC, base, 1000);
  check_trace_entry (trace, 2, TS_ALLOC_ACTION_SEGMENT_MAP, base2, 20 * MiB);
  check_trace_entry (trace, 3, TS_ALLOC_ACTION_ALLOC, base2, 5 * MiB);
  check_trace_entry (trace, 4, TS_ALLOC_ACTION_SEGMENT_MAP, base2 + 20 * MiB, 20 * MiB);
  check_trace_entry (trace, 5, TS_ALLOC_ACTION_ALLOC, base2 + 5 * MiB, 30 * MiB);
  check_trace_entry (trace, 6, TS_ALLOC_ACTION_FREE_REQUESTED, base2, 5 * MiB);
  check_trace_entry (trace, 9, TS_ALLOC_ACTION_FREE_COMPLETED, base2 + 5 * MiB, 30 * MiB);
  check_trace_entry (trace, 10, TS_ALLOC_ACTION_SEGMENT_UNMAP, base2, 40 * MiB);
  g_assert_cmpuint (trace->len, ==, 11);
  g_assert_cmpstr (ts_alloc_action_to_string (TS_ALLOC_ACTION_SEGMENT_UNMAP), ==, "segment_unmap");

  /* The last block: the small segment goes too. */
  must_free (a, x);
  ts_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "num_device_free"), ==, 2);
  g_assert_cmpuint (fake->n_pages_mapped, ==, 0);
  check_consistency (a);
  {
    g_autoptr(TsMemorySnapshot) empty = ts_allocator_snapshot (a);
    g_assert_cmpuint (empty->segments->len, ==, 0);
  }
}

/* _set_allocator_settings: expandable segments can be turned on and off
 * while running (new memory follows; get_free_block skips expandable
 * blocks while off), and are refused by a backend without virtual memory,
 * as cudaMallocAsync is everywhere. */
static void
test_expandable_settings (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) plain = new_allocator (fake, 1, NULL);
  g_autoptr(TsAllocator) a = NULL;
  g_autoptr(TsMemorySnapshot) snap = NULL;
  g_autoptr(GError) error = NULL;
  TsAllocConfig config;
  guint64 x, y, z;

  g_assert_false (ts_allocator_apply_settings (plain, "expandable_segments:True", &error));
  g_assert_error (error, TS_ALLOC_CONFIG_ERROR, TS_ALLOC_CONFIG_ERROR_UNSUPPORTED);
  g_clear_error (&error);
  g_assert_false (ts_allocator_apply_settings (plain, "backend:cudaMallocAsync", &error));
  g_assert_error (error, TS_ALLOC_CONFIG_ERROR, TS_ALLOC_CONFIG_ERROR_UNSUPPORTED);
  g_assert_cmpstr (error->message, ==, "backend:cudaMallocAsync is not supported by Tensorscope: "
                                       "only the native caching allocator is modelled");
  g_clear_error (&error);
  ts_allocator_get_config (plain, &config);
  g_assert_false (config.expandable_segments);
  g_clear_object (&plain);

  /* A backend with virtual memory, starting with fixed segments. */
  {
    TsAllocConfig fixed;

    ts_alloc_config_init (&fixed);
    a = ts_allocator_new (1, &fixed, &fake_vm_backend, fake);
  }
  x = must_malloc (a, 0, 1000, S0);
  g_assert_true (ts_allocator_apply_settings (a, "expandable_segments:True", &error));
  g_assert_no_error (error);
  y = must_malloc (a, 0, 1000, S0);
  /* the fixed segment's free block is not expandable: best fit takes it */
  g_assert_cmphex (y, ==, x + 1024);
  must_free (a, y);
  z = must_malloc (a, 0, 3 * MiB, S0);
  g_assert_cmpint (stat (a, 0, "segment.all.current"), ==, 1);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.large_pool.current"), ==, 20 * MiB);
  g_assert_true (ts_allocator_apply_settings (a, "expandable_segments:False", &error));
  /* off again: the expandable block's free 17 MiB are passed over */
  y = must_malloc (a, 0, 3 * MiB, S0);
  g_assert_cmpint (stat (a, 0, "segment.all.current"), ==, 2);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.large_pool.current"), ==, 40 * MiB);
  snap = ts_allocator_snapshot (a);
  g_assert_cmpuint (snap->segments->len, ==, 3);
  g_assert_false (g_array_index (snap->segments, TsSnapshotSegment, 0).is_expandable);
  check_consistency (a);

  must_free (a, x);
  must_free (a, y);
  must_free (a, z);
  ts_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 0);
  check_consistency (a);
}

/* data/examples/fragmentation.py with and without expandable segments:
 * two streams each allocate six (long-lived, short-lived) pairs of 8 MiB
 * under a 256 MiB cap, the short-lived ones go, then 32 MiB is asked.
 * Fixed segments: each pair sits in its own 20 MiB segment (8 + 8 + 4
 * split), 240 MiB reserved, every segment split, so the request needs a
 * new 32 MiB segment and 240 + 32 > 256: out of memory. Expandable: each
 * stream's twelve blocks pack into five 20 MiB pages (100 MiB), 200 MiB
 * in all; the free 12 MiB at the end of stream 0's segment plus one more
 * page make 32 MiB (alloc_block's cap check is on get_allocation_size:
 * 200 + 32 <= 256). */
static void
test_expandable_fragmentation (void)
{
  static const char *confs[2] = { NULL, "expandable_segments:True" };
  guint c;

  for (c = 0; c < 2; c++)
    {
      g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
      g_autoptr(TsAllocator) a = new_allocator (fake, 1, confs[c]);
      g_autoptr(GError) error = NULL;
      guint64 live[12], temp[12], big = 0;
      guint i;

      g_assert_true (ts_allocator_set_memory_fraction (a, 0, (double) (256 * MiB) / (double) H100_BYTES, NULL));
      for (i = 0; i < 12; i++)
        {
          live[i] = must_malloc (a, 0, 8 * MiB, i % 2 ? S1 : S0);
          temp[i] = must_malloc (a, 0, 8 * MiB, i % 2 ? S1 : S0);
        }
      g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, c == 0 ? 240 * MiB : 200 * MiB);
      for (i = 12; i-- > 0;)
        must_free (a, temp[i]);
      check_consistency (a);

      if (c == 0)
        {
          g_assert_false (ts_allocator_malloc (a, 0, 32 * MiB, S0, NULL, &big, &error));
          g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_OUT_OF_MEMORY);
          g_assert_cmpint (stat (a, 0, "num_ooms"), ==, 1);
          g_assert_cmpint (stat (a, 0, "inactive_split.all.current"), ==, 12);
        }
      else
        {
          big = must_malloc (a, 0, 32 * MiB, S0);
          /* stream 0's segment: pages 0-4 hold 96 MiB, 88-100 was free */
          g_assert_cmphex (big, ==, live[0] + 88 * MiB);
          g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 220 * MiB);
          g_assert_cmpint (stat (a, 0, "num_device_alloc"), ==, 11);
          g_assert_cmpint (stat (a, 0, "num_ooms"), ==, 0);
          g_assert_cmpint (stat (a, 0, "inactive_split.all.current"), ==, 0);
          must_free (a, big);
        }
      check_consistency (a);
      for (i = 0; i < 12; i++)
        must_free (a, live[i]);
      ts_allocator_empty_cache (a);
      g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 0);
      check_consistency (a);
    }
}

/* ------------------------------------------------------------------ */
/* Private pools                                                      */

static gboolean
only_s1 (TsStreamId stream,
         gpointer   user_data)
{
  return stream == S1;
}

/* beginAllocateToPool / endAllocateToPool / releasePool of
 * CUDACachingAllocator.cpp: get_pool picks the private pool's small or
 * large BlockPool for a stream the filter takes; its free blocks serve
 * only later mallocs into it; releasePool drops use_count and at zero puts
 * the pool in graph_pools_freeable, whose unsplit blocks
 * release_cached_blocks frees, erasing the pool once cudaMalloc_count is
 * 0. The stats are the device's (get_stat_types_for_pool: all + small or
 * large), and snapshot() tags the segments with the pool's id. */
static void
test_private_pools (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
  g_autoptr(TsMemorySnapshot) snap = NULL;
  g_autoptr(GError) error = NULL;
  const guint64 base = TS_DEVICE_MEMORY_BASE;
  TsMemPoolId id, id2, gid;
  const TsSnapshotSegment *seg;
  guint64 x, y, z, w, v;

  /* MemPool::graph_pool_handle: (0, uid_++) for the user, (uuid_++, 0)
   * for a capture, both from 1. */
  id = ts_allocator_graph_pool_handle (a, TRUE);
  id2 = ts_allocator_graph_pool_handle (a, TRUE);
  gid = ts_allocator_graph_pool_handle (a, FALSE);
  g_assert_cmpuint (id.first, ==, 0);
  g_assert_cmpuint (id.second, ==, 1);
  g_assert_cmpuint (id2.second, ==, 2);
  g_assert_cmpuint (gid.first, ==, 1);
  g_assert_cmpuint (gid.second, ==, 0);

  x = must_malloc (a, 0, 1000, S0);
  g_assert_cmphex (x, ==, base);

  g_assert_true (ts_allocator_begin_allocate_to_pool (a, 0, id, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ts_allocator_get_pool_use_count (a, 0, id), ==, 1);
  g_assert_false (ts_allocator_begin_allocate_to_pool (a, 0, id, NULL, NULL, &error));
  g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_INVALID_POOL);
  g_assert_cmpstr (error->message, ==, "beginAllocateToPool: already recording to mempool_id");
  g_clear_error (&error);

  /* Into the pool: a segment of its own, though the default pool has
   * 2096128 free bytes. */
  y = must_malloc (a, 0, 1000, S0);
  g_assert_cmphex (y, ==, base + 2 * MiB);
  g_assert_cmpint (stat (a, 0, "segment.all.current"), ==, 2);
  g_assert_cmpint (stat (a, 0, "segment.small_pool.current"), ==, 2);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 4 * MiB);
  g_assert_cmpint (stat (a, 0, "inactive_split.all.current"), ==, 2);
  must_free (a, y);
  z = must_malloc (a, 0, 1000, S0);
  g_assert_cmphex (z, ==, y);
  check_consistency (a);

  snap = ts_allocator_snapshot (a);
  g_assert_cmpuint (snap->segments->len, ==, 2);
  seg = snap_segment (snap, 0, base, 2 * MiB, 2);
  g_assert_true (TS_MEM_POOL_ID_IS_NONE (seg->pool_id));
  seg = snap_segment (snap, 1, base + 2 * MiB, 2 * MiB, 2);
  g_assert_true (TS_MEM_POOL_ID_EQUAL (seg->pool_id, id));
  g_assert_false (seg->is_expandable);

  g_assert_true (ts_allocator_end_allocate_to_pool (a, 0, id, &error));
  g_assert_false (ts_allocator_end_allocate_to_pool (a, 0, id, &error));
  g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_INVALID_POOL);
  g_assert_cmpstr (error->message, ==, "endAllocatePool: not currently recording to mempool_id");
  g_clear_error (&error);

  /* After the capture: the default pool again, not the pool's free bytes. */
  must_free (a, z);
  w = must_malloc (a, 0, 1000, S0);
  g_assert_cmphex (w, ==, base + 1024);

  /* The pool is still in use: empty_cache keeps its segment. */
  ts_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 4 * MiB);
  g_assert_cmpint (stat (a, 0, "num_device_free"), ==, 0);

  /* Released: the next empty_cache frees it and forgets the pool. */
  g_assert_true (ts_allocator_release_pool (a, 0, id, &error));
  g_assert_cmpint (ts_allocator_get_pool_use_count (a, 0, id), ==, 0);
  g_assert_false (ts_allocator_release_pool (a, 0, id, &error));
  g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_INVALID_POOL);
  g_clear_error (&error);
  ts_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 2 * MiB);
  g_assert_cmpint (stat (a, 0, "segment.all.current"), ==, 1);
  g_assert_cmpint (stat (a, 0, "num_device_free"), ==, 1);
  check_consistency (a);
  /* Gone: the id may be created afresh. */
  g_assert_true (ts_allocator_create_or_incref_pool (a, 0, id, &error));
  g_assert_cmpint (ts_allocator_get_pool_use_count (a, 0, id), ==, 1);
  g_assert_true (ts_allocator_release_pool (a, 0, id, &error));

  /* A filter: only stream S1's allocations go to the pool. */
  g_assert_true (ts_allocator_begin_allocate_to_pool (a, 0, id2, only_s1, NULL, &error));
  v = must_malloc (a, 0, 1000, S0);
  g_assert_cmphex (v, ==, base + 2048);
  y = must_malloc (a, 0, 1000, S1);
  g_assert_cmphex (y, ==, base + 2 * MiB);
  g_assert_true (ts_allocator_end_allocate_to_pool (a, 0, id2, &error));
  {
    g_autoptr(TsMemorySnapshot) s2 = ts_allocator_snapshot (a);

    seg = snap_segment (s2, 1, base + 2 * MiB, 2 * MiB, 2);
    g_assert_true (TS_MEM_POOL_ID_EQUAL (seg->pool_id, id2));
    g_assert_cmpuint (seg->stream, ==, S1);
  }

  /* The pool's live block keeps its segment after release and
   * empty_cache; freeing it then lets the next empty_cache take it. */
  g_assert_true (ts_allocator_release_pool (a, 0, id2, &error));
  ts_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 4 * MiB);
  must_free (a, y);
  ts_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 2 * MiB);
  g_assert_cmpint (ts_allocator_get_pool_use_count (a, 0, id2), ==, 0);

  must_free (a, v);
  must_free (a, w);
  must_free (a, x);
  ts_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 0);
  check_consistency (a);
}

/* Upstream's test_graph_two_successive: two captures that share a pool
 * (the second begins with the first's id, use_count 2) reserve exactly
 * kSmallBuffer less than two with pools of their own, because the second
 * capture's temporaries reuse the blocks the first freed into the pool. */
static void
test_graph_pool_sharing (void)
{
  gint64 reserved[2];
  guint share;

  for (share = 0; share < 2; share++)
    {
      g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
      g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
      TsMemPoolId p0 = ts_allocator_graph_pool_handle (a, FALSE);
      TsMemPoolId p1 = share ? p0 : ts_allocator_graph_pool_handle (a, FALSE);
      TsMemPoolId pools[2] = { p0, p1 };
      guint64 in = must_malloc (a, 0, 4000, S0), out[2];
      guint g;

      for (g = 0; g < 2; g++)
        {
          guint64 t1, t2;

          g_assert_true (ts_allocator_begin_allocate_to_pool (a, 0, pools[g], only_s1, NULL, NULL));
          t1 = must_malloc (a, 0, 4000, S1);
          t2 = must_malloc (a, 0, 4000, S1);
          out[g] = must_malloc (a, 0, 4000, S1);
          must_free (a, t1);
          must_free (a, t2);
          g_assert_true (ts_allocator_end_allocate_to_pool (a, 0, pools[g], NULL));
        }
      g_assert_cmpint (ts_allocator_get_pool_use_count (a, 0, p0), ==, share ? 2 : 1);
      reserved[share] = stat (a, 0, "reserved_bytes.all.current");
      check_consistency (a);

      /* del a, b, g0, g1; empty_cache */
      must_free (a, in);
      must_free (a, out[0]);
      must_free (a, out[1]);
      g_assert_true (ts_allocator_release_pool (a, 0, p0, NULL));
      g_assert_true (ts_allocator_release_pool (a, 0, p1, NULL));
      ts_allocator_empty_cache (a);
      g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 0);
      g_assert_cmpint (stat (a, 0, "segment.all.current"), ==, 0);
      check_consistency (a);
    }
  g_assert_cmpint (reserved[0], ==, 3 * 2097152);
  g_assert_cmpint (reserved[0] - reserved[1], ==, 2097152);
}

/* free() during a capture of a block other streams used: PyTorch may not
 * record events then (needs_events_deferred_until_no_capture), so the
 * block waits, active_pending_free, until the first malloc after the
 * capture records them in process_events. */
static void
test_private_pool_deferred_events (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
  TsMemPoolId id = ts_allocator_graph_pool_handle (a, TRUE);
  guint64 x = must_malloc (a, 0, 1000, S0), y;

  g_assert_true (ts_allocator_record_stream (a, x, S1));
  g_assert_true (ts_allocator_begin_allocate_to_pool (a, 0, id, only_s1, NULL, NULL));
  must_free (a, x);
  g_assert_cmpuint (fake->events->len, ==, 0);
  g_assert_cmpint (stat (a, 0, "active.all.current"), ==, 1);
  g_assert_cmpint (stat (a, 0, "allocation.all.current"), ==, 0);
  check_consistency (a);
  /* a malloc during the capture does not record them either */
  y = must_malloc (a, 0, 1000, S0);
  g_assert_cmphex (y, ==, x + 1024);
  g_assert_cmpuint (fake->events->len, ==, 0);
  g_assert_true (ts_allocator_end_allocate_to_pool (a, 0, id, NULL));

  must_free (a, y);
  y = must_malloc (a, 0, 1000, S0);
  g_assert_cmpuint (fake->events->len, ==, 1);
  g_assert_cmphex (y, ==, x + 1024);
  fake_complete_stream (fake, S1);
  must_free (a, y);
  y = must_malloc (a, 0, 1000, S0);
  g_assert_cmphex (y, ==, x);

  /* empty_cache records deferred events too, then waits for them
   * (synchronize_and_free_events calls insert_events_deferred_until_no_capture). */
  g_assert_true (ts_allocator_record_stream (a, y, S1));
  g_assert_true (ts_allocator_begin_allocate_to_pool (a, 0, id, only_s1, NULL, NULL));
  must_free (a, y);
  g_assert_true (ts_allocator_end_allocate_to_pool (a, 0, id, NULL));
  g_assert_cmpuint (fake->events->len, ==, 1);
  g_assert_cmpint (stat (a, 0, "active.all.current"), ==, 1);
  g_assert_true (ts_allocator_release_pool (a, 0, id, NULL));
  ts_allocator_empty_cache (a);
  g_assert_cmpuint (fake->events->len, ==, 2);
  g_assert_cmpint (stat (a, 0, "active.all.current"), ==, 0);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 0);
  check_consistency (a);
}

/* A private pool with expandable segments: the pool gets segments of its
 * own (find_expandable_block searches the pool's unmapped blocks only),
 * tagged with its id; release + empty_cache unmap them. */
static void
test_expandable_private_pool (void)
{
  g_autoptr(Fake) fake = fake_new (1, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, "expandable_segments:True");
  g_autoptr(TsMemorySnapshot) snap = NULL;
  TsMemPoolId id = ts_allocator_graph_pool_handle (a, TRUE);
  const guint64 base = TS_DEVICE_MEMORY_BASE;
  const TsSnapshotSegment *seg;
  guint64 x, y;

  x = must_malloc (a, 0, 1000, S0);
  g_assert_true (ts_allocator_begin_allocate_to_pool (a, 0, id, NULL, NULL, NULL));
  y = must_malloc (a, 0, 1000, S0);
  g_assert_true (ts_allocator_end_allocate_to_pool (a, 0, id, NULL));
  g_assert_cmphex (x, ==, base);
  g_assert_cmphex (y, ==, base + 90 * GiB);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 4 * MiB);
  g_assert_cmpint (stat (a, 0, "num_device_alloc"), ==, 2);
  snap = ts_allocator_snapshot (a);
  seg = snap_segment (snap, 1, y, 2 * MiB, 2);
  g_assert_true (seg->is_expandable);
  g_assert_true (TS_MEM_POOL_ID_EQUAL (seg->pool_id, id));
  check_consistency (a);

  must_free (a, y);
  g_assert_true (ts_allocator_release_pool (a, 0, id, NULL));
  ts_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 2 * MiB);
  g_assert_cmpint (stat (a, 0, "num_device_free"), ==, 1);
  g_assert_cmpint (ts_allocator_get_pool_use_count (a, 0, id), ==, 0);
  must_free (a, x);
  ts_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, 0, "reserved_bytes.all.current"), ==, 0);
  check_consistency (a);
}

static void
test_multi_device (void)
{
  g_autoptr(Fake) fake = fake_new (2, H100_BYTES, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 2, NULL);
  g_autoptr(TsMemorySnapshot) snap = NULL;
  guint64 x0, x1;
  guint dev = 9;

  x0 = must_malloc (a, 0, 4096, 0);
  x1 = must_malloc (a, 1, 4096, 1);
  g_assert_cmphex (x1, ==, ts_device_memory_get_base (1));
  g_assert_true (ts_allocator_lookup (a, x1, &dev, NULL, NULL, NULL));
  g_assert_cmpuint (dev, ==, 1);
  g_assert_cmpint (stat (a, 0, "allocated_bytes.all.current"), ==, 4096);
  g_assert_cmpint (stat (a, 1, "allocated_bytes.all.current"), ==, 4096);
  snap = ts_allocator_snapshot (a);
  g_assert_cmpuint (snap->segments->len, ==, 2);
  g_assert_cmpuint (g_array_index (snap->segments, TsSnapshotSegment, 1).device, ==, 1);
  must_free (a, x1);     /* free needs only the pointer */
  must_free (a, x0);
  ts_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, 0, "num_sync_all_streams"), ==, 1);
  g_assert_cmpint (stat (a, 1, "num_sync_all_streams"), ==, 1);
  g_assert_cmpint (stat (a, 1, "num_device_free"), ==, 1);
  check_consistency (a);
}

/* ------------------------------------------------------------------ */
/* Randomized: thousands of steps, invariants checked after each.     */

typedef struct
{
  guint64 addr;
  guint   device;
} Live;

static guint64
random_size (GRand *rand)
{
  switch (g_rand_int_range (rand, 0, 20))
    {
    case 0:
      return 0;
    case 1:
      return g_rand_int_range (rand, 1, 600);
    case 2: case 3: case 4: case 5: case 6:
      return g_rand_int_range (rand, 1, 64 * 1024);
    case 7: case 8: case 9:
      return g_rand_int_range (rand, 64 * 1024, 1 << 20) + (g_rand_boolean (rand) ? 0 : 1);
    case 10: case 11: case 12:
      return g_rand_int_range (rand, 1 << 20, 10 << 20);
    case 13: case 14: case 15:
      return (guint64) g_rand_int_range (rand, 10, 200) * MiB + g_rand_int_range (rand, 0, 1 << 20);
    case 16:
      return (guint64) g_rand_int_range (rand, 200, 1200) * MiB;
    case 17:
      /* the MG test's shapes: (i, 4i) and (i, 7i, 9i, 11i) floats */
      {
        guint64 i = g_rand_int_range (rand, 1, 20);
        return g_rand_boolean (rand) ? i * 4 * i * 4 : i * 7 * i * 9 * i * 11 * i * 4;
      }
    case 18:
      return 5 * GiB;    /* more than the device has */
    default:
      return (G_GUINT64_CONSTANT (1) << 60) + g_rand_int (rand);
    }
}

static void
run_random (const char *conf,
            guint32     seed,
            guint       steps,
            gboolean    with_fraction,
            GString    *fingerprint)
{
  g_autoptr(Fake) fake = fake_new (2, 3 * GiB, 1000);
  g_autoptr(TsAllocator) a = new_allocator (fake, 2, conf);
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr(GArray) live = g_array_new (FALSE, FALSE, sizeof (Live));
  g_autoptr(GArray) dead = g_array_new (FALSE, FALSE, sizeof (guint64));
  TsStreamId streams[2][3] = { { 0, 2, 3 }, { 1, 4, 5 } };
  guint step, d;

  if (with_fraction)
    for (d = 0; d < 2; d++)
      g_assert_true (ts_allocator_set_memory_fraction (a, d, 0.6, NULL));
  ts_allocator_record_history (a, TRUE, 64, 0, FALSE);

  for (step = 0; step < steps; step++)
    {
      guint op = g_rand_int_range (rand, 0, 100);
      GError *error = NULL;

      if (op < 45 || live->len == 0)
        {
          Live l;
          guint64 size = random_size (rand);
          guint64 sync_before;
          TsMemoryStats before;

          l.device = g_rand_int_range (rand, 0, 2);
          g_assert_true (ts_allocator_get_stats (a, l.device, &before));
          sync_before = before.num_sync_all_streams;
          if (ts_allocator_malloc (a, l.device, size, streams[l.device][g_rand_int_range (rand, 0, 3)],
                                   NULL, &l.addr, &error))
            {
              g_assert_no_error (error);
              if (size == 0)
                g_assert_cmpuint (l.addr, ==, 0);
              else
                g_array_append_val (live, l);
            }
          else
            {
              g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_OUT_OF_MEMORY);
              g_assert_true (g_str_has_prefix (error->message, "CUDA out of memory. Tried to allocate "));
              g_clear_error (&error);
              /* a refused request synchronized at most once */
              g_assert_cmpint (stat (a, l.device, "num_sync_all_streams") - sync_before, <=, 1);
            }
        }
      else if (op < 80)
        {
          guint i = g_rand_int_range (rand, 0, live->len);
          Live l = g_array_index (live, Live, i);

          g_array_remove_index_fast (live, i);
          must_free (a, l.addr);
          g_array_append_val (dead, l.addr);
        }
      else if (op < 88)
        {
          Live l = g_array_index (live, Live, g_rand_int_range (rand, 0, live->len));

          g_assert_true (ts_allocator_record_stream (a, l.addr, streams[l.device][g_rand_int_range (rand, 0, 3)]));
        }
      else if (op < 93)
        {
          fake_complete_stream (fake, streams[g_rand_int_range (rand, 0, 2)][g_rand_int_range (rand, 0, 3)]);
        }
      else if (op < 95)
        {
          gint64 sync0 = stat (a, 0, "num_sync_all_streams");
          gint64 sync1 = stat (a, 1, "num_sync_all_streams");

          ts_allocator_empty_cache (a);
          g_assert_cmpint (stat (a, 0, "num_sync_all_streams"), ==, sync0 + 1);
          g_assert_cmpint (stat (a, 1, "num_sync_all_streams"), ==, sync1 + 1);
        }
      else if (op < 97 && dead->len > 0)
        {
          /* a double free (unless the address was handed out again) or a
           * pointer the allocator never gave */
          guint64 bad = g_rand_boolean (rand) ? g_array_index (dead, guint64, g_rand_int_range (rand, 0, dead->len))
                                              : TS_DEVICE_MEMORY_BASE + 3 + g_rand_int_range (rand, 0, 1 << 20) * 512;
          gboolean is_live = FALSE;
          guint k;

          for (k = 0; k < live->len; k++)
            is_live |= g_array_index (live, Live, k).addr == bad;
          if (!is_live)
            {
              g_assert_false (ts_allocator_free (a, bad, NULL, &error));
              g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_INVALID_POINTER);
              g_clear_error (&error);
              g_assert_false (ts_allocator_record_stream (a, bad, 0));
            }
        }
      else
        {
          d = g_rand_int_range (rand, 0, 2);
          if (g_rand_boolean (rand))
            {
              ts_allocator_reset_peak_stats (a, d);
              g_assert_cmpint (stat (a, d, "allocated_bytes.all.peak"), ==, stat (a, d, "allocated_bytes.all.current"));
              g_assert_cmpint (stat (a, d, "reserved_bytes.all.peak"), ==, stat (a, d, "reserved_bytes.all.current"));
            }
        }

      check_consistency (a);
    }

  g_test_message ("random %s seed %u: ooms %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT
                  ", retries %" G_GINT64_FORMAT ", segments %" G_GINT64_FORMAT ", events %u, live %u",
                  conf ? conf : "default", seed, stat (a, 0, "num_ooms"), stat (a, 1, "num_ooms"),
                  stat (a, 0, "num_alloc_retries"), stat (a, 0, "num_device_alloc"),
                  fake->events->len, live->len);

  /* Freeing everything gives the initial state back. */
  while (live->len > 0)
    {
      must_free (a, g_array_index (live, Live, live->len - 1).addr);
      g_array_set_size (live, live->len - 1);
    }
  ts_allocator_empty_cache (a);
  check_consistency (a);
  for (d = 0; d < 2; d++)
    {
      guint64 free_bytes;

      g_assert_cmpint (stat (a, d, "allocated_bytes.all.current"), ==, 0);
      g_assert_cmpint (stat (a, d, "active_bytes.all.current"), ==, 0);
      g_assert_cmpint (stat (a, d, "reserved_bytes.all.current"), ==, 0);
      g_assert_cmpint (stat (a, d, "num_device_alloc"), >=, 1);
      g_assert_true (ts_device_memory_get_info (fake->mem, d, &free_bytes, NULL, NULL));
      g_assert_cmpuint (free_bytes, ==, 3 * GiB - CONTEXT_RESERVE);
    }

  if (fingerprint)
    {
      g_autoptr(TsMemorySnapshot) snap = ts_allocator_snapshot (a);
      guint k;

      for (d = 0; d < 2; d++)
        {
          TsMemoryStats stats;

          g_assert_true (ts_allocator_get_stats (a, d, &stats));
          for (k = 0; k < TS_MEMORY_STATS_N_KEYS; k++)
            g_string_append_printf (fingerprint, "%" G_GINT64_FORMAT ",", ts_memory_stats_value (&stats, k));
          for (k = 0; k < snap->device_traces[d]->len; k++)
            {
              const TsAllocTraceEntry *e = &g_array_index (snap->device_traces[d], TsAllocTraceEntry, k);

              g_string_append_printf (fingerprint, "%d:%" G_GINT64_MODIFIER "x:%" G_GUINT64_FORMAT ";",
                                      e->action, e->addr, e->size);
            }
        }
    }
}

static void
test_randomized (void)
{
  run_random (NULL, 1234, 3000, FALSE, NULL);
}

static void
test_randomized_configs (void)
{
  run_random ("max_split_size_mb:64", 99, 1500, FALSE, NULL);
  run_random ("roundup_power2_divisions:[1:2,64:8,>:4]", 7, 1500, FALSE, NULL);
  run_random ("garbage_collection_threshold:0.5,max_split_size_mb:128", 4242, 1500, TRUE, NULL);
  /* expandable segments: the same invariants, pages mapped and unmapped */
  run_random ("expandable_segments:True", 17, 1500, FALSE, NULL);
  run_random ("expandable_segments:True,max_split_size_mb:64,roundup_power2_divisions:4", 23, 1500, TRUE, NULL);
}

static void
test_deterministic (void)
{
  g_autoptr(GString) f1 = g_string_new (NULL);
  g_autoptr(GString) f2 = g_string_new (NULL);

  run_random ("max_split_size_mb:64", 5, 800, FALSE, f1);
  run_random ("max_split_size_mb:64", 5, 800, FALSE, f2);
  g_assert_cmpuint (f1->len, >, 1000);
  g_assert_cmpstr (f1->str, ==, f2->str);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/allocator/rounding", test_rounding);
  g_test_add_func ("/allocator/expandable-segments", test_expandable_segments);
  g_test_add_func ("/allocator/expandable-fragmentation", test_expandable_fragmentation);
  g_test_add_func ("/allocator/expandable-settings", test_expandable_settings);
  g_test_add_func ("/allocator/expandable-private-pool", test_expandable_private_pool);
  g_test_add_func ("/allocator/private-pools", test_private_pools);
  g_test_add_func ("/allocator/graph-pool-sharing", test_graph_pool_sharing);
  g_test_add_func ("/allocator/private-pool-deferred-events", test_private_pool_deferred_events);
  g_test_add_func ("/allocator/worked-example-1000", test_worked_example_1000);
  g_test_add_func ("/allocator/worked-example-sizes", test_worked_example_sizes);
  g_test_add_func ("/allocator/best-fit-and-streams", test_best_fit_and_streams);
  g_test_add_func ("/allocator/split-merge-stats", test_split_merge_stats);
  g_test_add_func ("/allocator/summary", test_summary);
  g_test_add_func ("/allocator/summary-units", test_summary_units);
  g_test_add_func ("/allocator/stats-keys", test_stats_keys);
  g_test_add_func ("/allocator/upstream-memory-stats", test_upstream_memory_stats);
  g_test_add_func ("/allocator/out-of-memory", test_out_of_memory);
  g_test_add_func ("/allocator/raises-oom-max-split", test_raises_oom_max_split);
  g_test_add_func ("/allocator/memory-fraction", test_memory_fraction);
  g_test_add_func ("/allocator/allocator-settings", test_allocator_settings);
  g_test_add_func ("/allocator/caching-disabled", test_caching_disabled);
  g_test_add_func ("/allocator/record-stream", test_record_stream);
  g_test_add_func ("/allocator/record-stream-shifted-view", test_record_stream_shifted_view);
  g_test_add_func ("/allocator/record-stream-oom", test_record_stream_oom);
  g_test_add_func ("/allocator/max-split-size", test_max_split_size);
  g_test_add_func ("/allocator/release-available", test_release_available);
  g_test_add_func ("/allocator/free-memory-callbacks", test_free_memory_callbacks);
  g_test_add_func ("/allocator/garbage-collection", test_garbage_collection);
  g_test_add_func ("/allocator/bad-input", test_bad_input);
  g_test_add_func ("/allocator/history-and-recorder", test_history_and_recorder);
  g_test_add_func ("/allocator/multi-device", test_multi_device);
  g_test_add_func ("/allocator/randomized", test_randomized);
  g_test_add_func ("/allocator/randomized-configs", test_randomized_configs);
  g_test_add_func ("/allocator/deterministic", test_deterministic);
  return g_test_run ();
}
