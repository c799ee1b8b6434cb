/* test-memory-replay.c: the allocator's state rebuilt from its records
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A TsAllocator on a fake backend (simulated device memory, events whose
 * completion the test decides) runs random workloads with a recorder
 * attached. At random steps the test takes the allocator's own snapshot
 * and stats and notes how many actions had been recorded; afterwards a
 * TsMemoryReplay built from the recorder alone must give the very same
 * segments, blocks and all 122 stats at each of those instants, in any
 * seek order.
 */

#include "config.h"

#include <string.h>

#include "ts-allocator.h"
#include "ts-allocator-private.h"
#include "ts-device-memory.h"
#include "ts-memory-fragmentation.h"
#include "ts-memory-replay.h"
#include "ts-memory-replay-private.h"

#include "test-fake-allocator-backend.h"

#define KiB (G_GUINT64_CONSTANT (1) << 10)
#define MiB (G_GUINT64_CONSTANT (1) << 20)
#define GiB (G_GUINT64_CONSTANT (1) << 30)

static guint64
fake_correlation (gpointer user_data)
{
  Fake *fake = user_data;
  return (guint64) fake->now / 10;
}

static const TsAllocatorBackend fake_backend = {
  FAKE_BACKEND_FUNCS,
  .correlation = fake_correlation,
};

static const TsAllocatorBackend fake_vm_backend = {
  FAKE_BACKEND_FUNCS,
  FAKE_BACKEND_VM_FUNCS,
  .correlation = fake_correlation,
};

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

/* ------------------------------------------------------------------ */
/* Comparing a replayed state with the allocator's snapshot            */

typedef struct
{
  gsize             index;      /* actions recorded when it was taken */
  TsMemorySnapshot *snapshot;
  TsMemoryStats     stats[2];
} Probe;

static void
probe_clear (gpointer data)
{
  Probe *p = data;
  ts_memory_snapshot_free (p->snapshot);
}

static void
compare_state (TsMemoryReplay *replay,
               const Probe    *probe,
               guint           n_devices)
{
  g_autoptr(TsMemoryState) state = ts_memory_replay_state_at (replay, probe->index);
  const TsMemorySnapshot *snap = probe->snapshot;

  g_assert_cmpuint (state->index, ==, probe->index);
  g_assert_cmpuint (state->segments->len, ==, snap->segments->len);
  g_assert_cmpuint (state->blocks->len, ==, snap->blocks->len);

  for (guint k = 0; k < snap->segments->len; k++)
    {
      const TsSnapshotSegment *e = &g_array_index (snap->segments, TsSnapshotSegment, k);
      const TsMemorySegment *g = &g_array_index (state->segments, TsMemorySegment, k);

      g_assert_cmpuint (g->device, ==, e->device);
      g_assert_cmphex (g->address, ==, e->address);
      g_assert_cmpuint (g->total_size, ==, e->total_size);
      g_assert_cmpuint (g->allocated_size, ==, e->allocated_size);
      g_assert_cmpuint (g->active_size, ==, e->active_size);
      g_assert_cmpuint (g->requested_size, ==, e->requested_size);
      g_assert_cmpuint (g->stream, ==, e->stream);
      g_assert_cmpint (g->is_small, ==, e->is_small);
      /* The pool comes from the segment's own actions (segment_alloc or
       * segment_map carry it), as PyTorch's Segment keeps
       * owner_private_pool and reports it as segment_pool_id. */
      g_assert_cmpint (g->is_expandable, ==, e->is_expandable);
      g_assert_cmpuint (g->pool_id.first, ==, e->pool_id.first);
      g_assert_cmpuint (g->pool_id.second, ==, e->pool_id.second);
      /* A mapped range's line is the map's that began it in the replay,
       * the segment's first malloc in the allocator (or none). */
      if (!e->is_expandable)
        {
          g_assert_cmpuint (g->loc.line, ==, e->loc.line);
          g_assert_cmpuint (g->loc.file, ==, e->loc.file);
        }
      g_assert_cmpuint (g->n_blocks, ==, e->n_blocks);
      g_assert_cmpuint (g->first_block, ==, e->first_block);

      for (guint j = 0; j < e->n_blocks; j++)
        {
          const TsSnapshotBlock *eb = &g_array_index (snap->blocks, TsSnapshotBlock, e->first_block + j);
          const TsMemoryBlock *gb = &g_array_index (state->blocks, TsMemoryBlock, g->first_block + j);

          g_assert_cmphex (gb->address, ==, eb->address);
          g_assert_cmpuint (gb->size, ==, eb->size);
          g_assert_cmpint (gb->state, ==, eb->state);
          g_assert_cmpuint (gb->segment, ==, k);
          if (eb->state != TS_BLOCK_STATE_INACTIVE)
            {
              const TsMemoryAllocation *a = ts_memory_replay_get_allocation (replay, gb->allocation);

              /* Inactive blocks keep a stale requested size in PyTorch;
               * live ones must match exactly. */
              g_assert_cmpuint (gb->requested_size, ==, eb->requested_size);
              g_assert_cmpuint (a->loc.line, ==, eb->loc.line);
              g_assert_cmpuint (a->loc.file, ==, eb->loc.file);
              g_assert_cmpuint (a->stream, ==, e->stream);
              g_assert_cmpuint (a->addr, ==, eb->address);
            }
          else
            g_assert_cmpuint (gb->allocation, ==, TS_MEMORY_REPLAY_NONE);
        }
    }

  for (guint d = 0; d < n_devices; d++)
    for (guint k = 0; k < TS_MEMORY_STATS_N_KEYS; k++)
      {
        gint64 want = ts_memory_stats_value (&probe->stats[d], k);
        gint64 got = ts_memory_stats_value (&state->stats[d], k);

        if (want != got)
          g_error ("device %u at action %" G_GSIZE_FORMAT ": %s is %" G_GINT64_FORMAT
                   ", the allocator says %" G_GINT64_FORMAT,
                   d, probe->index, ts_memory_stats_key (k), got, want);
      }
}

typedef struct
{
  guint64 addr;
  guint   device;
} Live;

static guint64
random_size (GRand *rand)
{
  switch (g_rand_int_range (rand, 0, 16))
    {
    case 0:
      return g_rand_int_range (rand, 1, 600);
    case 1: case 2: case 3: case 4:
      return g_rand_int_range (rand, 1, 64 * 1024);
    case 5: case 6: case 7:
      return g_rand_int_range (rand, 64 * 1024, 1 << 20) + (g_rand_boolean (rand) ? 0 : 1);
    case 8: case 9: case 10:
      return g_rand_int_range (rand, 1 << 20, 10 << 20);
    case 11: case 12: case 13:
      return (guint64) g_rand_int_range (rand, 10, 200) * MiB + g_rand_int_range (rand, 0, 1 << 20);
    case 14:
      return (guint64) g_rand_int_range (rand, 200, 900) * MiB;
    default:
      return 4 * GiB;    /* more than the device has: an OOM */
    }
}

/* Runs `steps` random steps on two devices, probing now and then, then
 * checks every probe against the replay in a shuffled order. */
static void
run_random (const char *conf,
            guint32     seed,
            guint       steps,
            gboolean    with_fraction)
{
  g_autoptr(Fake) fake = fake_new (2, 3 * GiB, 0);
  g_autoptr(TsAllocator) a = new_allocator (fake, 2, conf);
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(TsMemoryReplay) replay = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr(GArray) live = g_array_new (FALSE, FALSE, sizeof (Live));
  g_autoptr(GArray) probes = g_array_new (FALSE, FALSE, sizeof (Probe));
  TsStreamId streams[2][3] = { { 0, 2, 3 }, { 1, 4, 5 } };
  TsSourceLoc locs[4];
  guint n_pending_seen = 0, n_ooms = 0, n_pool_segments = 0;
  /* Per device: two private pools (a user's, a capture's), and the one
   * mallocs go to now (-1: the device's own). */
  TsMemPoolId pools[2][2];
  gint active[2] = { -1, -1 };

  g_array_set_clear_func (probes, probe_clear);
  for (guint k = 0; k < G_N_ELEMENTS (locs); k++)
    {
      g_autofree char *fn = g_strdup_printf ("step%u", k);
      locs[k].file = ts_recorder_intern (rec, "script.py");
      locs[k].function = ts_recorder_intern (rec, fn);
      locs[k].line = 10 + k;
    }

  ts_allocator_set_recorder (a, rec);
  for (guint d = 0; d < 2; d++)
    for (guint k = 0; k < 2; k++)
      pools[d][k] = ts_allocator_graph_pool_handle (a, k == 0);
  if (with_fraction)
    for (guint d = 0; d < 2; d++)
      g_assert_true (ts_allocator_set_memory_fraction (a, d, 0.6, NULL));
  ts_allocator_record_history (a, TRUE, 16, 0, FALSE);

  for (guint step = 0; step < steps; step++)
    {
      guint op = g_rand_int_range (rand, 0, 100);
      GError *error = NULL;

      fake->now += 1000;
      /* Now and then a private pool starts or stops taking a device's
       * mallocs (beginAllocateToPool / endAllocateToPool). */
      if (g_rand_int_range (rand, 0, 40) == 0)
        {
          guint d = g_rand_int_range (rand, 0, 2);

          if (active[d] < 0)
            {
              active[d] = g_rand_int_range (rand, 0, 2);
              g_assert_true (ts_allocator_begin_allocate_to_pool (a, d, pools[d][active[d]], NULL, NULL, NULL));
            }
          else
            {
              g_assert_true (ts_allocator_end_allocate_to_pool (a, d, pools[d][active[d]], NULL));
              active[d] = -1;
            }
        }
      if (op < 45 || live->len == 0)
        {
          Live l;
          guint64 size = random_size (rand);

          l.device = g_rand_int_range (rand, 0, 2);
          if (ts_allocator_malloc (a, l.device, size, streams[l.device][g_rand_int_range (rand, 0, 3)],
                                   &locs[g_rand_int_range (rand, 0, 4)], &l.addr, &error))
            g_array_append_val (live, l);
          else
            {
              g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_OUT_OF_MEMORY);
              g_clear_error (&error);
              n_ooms++;
            }
        }
      else if (op < 78)
        {
          guint i = g_rand_int_range (rand, 0, live->len);
          Live l = g_array_index (live, Live, i);

          g_array_remove_index_fast (live, i);
          g_assert_true (ts_allocator_free (a, l.addr, NULL, NULL));
        }
      else if (op < 88)
        {
          Live l = g_array_index (live, Live, g_rand_int_range (rand, 0, live->len));

          g_assert_true (ts_allocator_record_stream (a, l.addr, streams[l.device][g_rand_int_range (rand, 0, 3)]));
        }
      else if (op < 94)
        fake_complete_stream (fake, streams[g_rand_int_range (rand, 0, 2)][g_rand_int_range (rand, 0, 3)]);
      else if (op < 96)
        ts_allocator_empty_cache (a);
      else if (op < 97)
        ts_allocator_reset_peak_stats (a, g_rand_int_range (rand, 0, 2));
      else if (op < 98)
        ts_allocator_reset_accumulated_stats (a, g_rand_int_range (rand, 0, 2));
      else if (op < 99 && conf != NULL)
        {
          /* _set_allocator_settings half way: oversize counting follows. */
          TsAllocConfig config;

          ts_allocator_get_config (a, &config);
          config.max_split_size = config.max_split_size == TS_ALLOC_CONFIG_MAX_SPLIT_UNSET ? 64 * MiB
                                                                                           : TS_ALLOC_CONFIG_MAX_SPLIT_UNSET;
          ts_allocator_set_config (a, &config);
        }

      if (g_rand_int_range (rand, 0, 20) == 0)
        {
          Probe p = { 0 };

          p.index = ts_recorder_get_count (rec, TS_RECORD_ALLOC);
          g_assert_true (ts_allocator_get_stats (a, 0, &p.stats[0]));
          g_assert_true (ts_allocator_get_stats (a, 1, &p.stats[1]));
          p.snapshot = ts_allocator_snapshot (a);
          for (guint k = 0; k < p.snapshot->segments->len; k++)
            n_pool_segments += !TS_MEM_POOL_ID_IS_NONE (g_array_index (p.snapshot->segments, TsSnapshotSegment, k).pool_id);
          for (guint k = 0; k < p.snapshot->blocks->len; k++)
            n_pending_seen += g_array_index (p.snapshot->blocks, TsSnapshotBlock, k).state ==
                              TS_BLOCK_STATE_ACTIVE_PENDING_FREE;
          g_array_append_val (probes, p);
        }
    }

  /* The end state too. */
  {
    Probe p = { 0 };

    p.index = ts_recorder_get_count (rec, TS_RECORD_ALLOC);
    g_assert_true (ts_allocator_get_stats (a, 0, &p.stats[0]));
    g_assert_true (ts_allocator_get_stats (a, 1, &p.stats[1]));
    p.snapshot = ts_allocator_snapshot (a);
    g_array_append_val (probes, p);
  }

  /* Forward, then shuffled (backward seeks restore checkpoints), with
   * the default interval and with a checkpoint every few actions. */
  for (guint pass = 0; pass < 2; pass++)
    {
      g_clear_object (&replay);
      replay = pass == 0 ? _ts_memory_replay_new_with_interval (rec, 16, FALSE) : ts_memory_replay_new (rec);
      g_assert_cmpuint (ts_memory_replay_get_n_devices (replay), ==, 2);
      g_assert_cmpuint (ts_memory_replay_get_n_skipped (replay), ==, 0);

      for (guint k = 0; k < probes->len; k++)
        compare_state (replay, &g_array_index (probes, Probe, k), 2);
      for (guint k = 0; k < probes->len; k++)
        compare_state (replay, &g_array_index (probes, Probe, g_rand_int_range (rand, 0, probes->len)), 2);
    }

  {
    guint n_cp = 0;

    ts_memory_replay_get_checkpoint_bytes (replay, &n_cp);
    g_test_message ("seed %u (%s): %" G_GSIZE_FORMAT " actions, %u probes, %u pending blocks seen, "
                    "%u OOMs, %u checkpoints, %u private pool segments seen",
                    seed, conf ? conf : "default", ts_memory_replay_get_n_actions (replay), probes->len,
                    n_pending_seen, n_ooms, n_cp, n_pool_segments);
    /* The workload must have exercised what it claims to. */
    g_assert_cmpuint (n_pending_seen, >, 0);
    g_assert_cmpuint (n_pool_segments, >, 0);
    g_assert_cmpuint (n_ooms, >, 0);
    g_assert_cmpuint (ts_memory_replay_get_n_ooms (replay), ==, n_ooms);
    g_assert_cmpuint (n_cp, >, 1);
  }
}

static void
test_random_default (void)
{
  run_random (NULL, 1, 4000, FALSE);
  run_random (NULL, 2, 4000, FALSE);
}

static void
test_random_configs (void)
{
  run_random ("max_split_size_mb:64", 3, 3000, FALSE);
  run_random ("roundup_power2_divisions:4", 4, 3000, TRUE);
  run_random ("garbage_collection_threshold:0.5,max_split_size_mb:128", 5, 3000, TRUE);
  /* segment_map / segment_unmap: mapped ranges grow, join and split */
  run_random ("expandable_segments:True", 6, 3000, FALSE);
  run_random ("expandable_segments:True,max_split_size_mb:64", 7, 3000, TRUE);
}

/* The 1000-byte worked example, step by step, with exact values. */
static void
test_worked_example (void)
{
  g_autoptr(Fake) fake = fake_new (1, 8 * GiB, 0);
  g_autoptr(TsAllocator) a = new_allocator (fake, 1, NULL);
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(TsMemoryReplay) replay = NULL;
  g_autoptr(TsMemoryState) s1 = NULL, s2 = NULL, s3 = NULL;
  guint64 x;

  ts_allocator_set_recorder (a, rec);
  fake->now = 5000;
  g_assert_true (ts_allocator_malloc (a, 0, 1000, 0, NULL, &x, NULL));
  fake->now = 6000;
  g_assert_true (ts_allocator_free (a, x, NULL, NULL));
  fake->now = 7000;
  ts_allocator_empty_cache (a);

  replay = ts_memory_replay_new (rec);
  /* config, segment_alloc, alloc | free_requested, free_completed |
   * sync_all_streams, segment_free */
  g_assert_cmpuint (ts_memory_replay_get_n_actions (replay), ==, 7);
  g_assert_cmpuint (ts_memory_replay_index_at_time (replay, 5000), ==, 3);
  g_assert_cmpuint (ts_memory_replay_index_at_time (replay, 4999), ==, 1);
  g_assert_cmpuint (ts_memory_replay_index_at_time (replay, G_MAXINT64), ==, 7);

  s1 = ts_memory_replay_state_at (replay, 3);
  g_assert_cmpuint (s1->segments->len, ==, 1);
  g_assert_cmpuint (s1->blocks->len, ==, 2);
  g_assert_cmpuint (g_array_index (s1->blocks, TsMemoryBlock, 0).size, ==, 1024);
  g_assert_cmpuint (g_array_index (s1->blocks, TsMemoryBlock, 0).requested_size, ==, 1000);
  g_assert_cmpuint (g_array_index (s1->blocks, TsMemoryBlock, 1).size, ==, 2096128);
  g_assert_cmpint (s1->stats[0].inactive_split_bytes[TS_STAT_TYPE_SMALL_POOL].current, ==, 2096128);
  g_assert_cmpint (s1->stats[0].requested_bytes[TS_STAT_TYPE_ALL].current, ==, 1000);
  g_assert_cmpint (s1->time, ==, 5000);

  s2 = ts_memory_replay_state_at (replay, 5);
  g_assert_cmpuint (s2->blocks->len, ==, 1);
  g_assert_cmpint (s2->stats[0].inactive_split[TS_STAT_TYPE_ALL].current, ==, 0);
  g_assert_cmpint (s2->stats[0].inactive_split[TS_STAT_TYPE_ALL].freed, ==, 1);
  g_assert_cmpint (s2->stats[0].reserved_bytes[TS_STAT_TYPE_ALL].current, ==, 2097152);

  s3 = ts_memory_replay_state_at (replay, 7);
  g_assert_cmpuint (s3->segments->len, ==, 0);
  g_assert_cmpint (s3->stats[0].num_sync_all_streams, ==, 1);
  g_assert_cmpint (s3->stats[0].num_device_free, ==, 1);
  g_assert_cmpint (s3->stats[0].max_split_size, ==, -1);
  {
    g_autofree char *summary = ts_memory_stats_format_summary (&s1->stats[0], 0, FALSE);
    g_autofree char *want = NULL;
    TsMemoryStats st;

    /* The replayed summary equals the allocator's own after the malloc
     * (rebuilt: same stats give the same table). */
    ts_memory_stats_init (&st, -1);
    g_assert_true (strstr (summary, "| Requested memory      |   1000 B   |   1000 B   |   1000 B   |      0 B   |") != NULL);
    g_assert_true (strstr (summary, "| Non-releasable memory |   2047 KiB |   2047 KiB |   2047 KiB |      0 B   |") != NULL);
    (void) want;
  }
}

/* Records that do not fit the state are skipped, not trusted. */
static void
test_bad_records (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(TsMemoryReplay) replay = NULL;
  g_autoptr(TsMemoryState) s = NULL;
  TsAllocRecord r = { 0 };

  r.action = TS_ALLOC_ACTION_FREE_REQUESTED;  /* of nothing */
  r.addr = 0x1000;
  ts_recorder_append (rec, TS_RECORD_ALLOC, &r);
  r.action = TS_ALLOC_ACTION_SEGMENT_ALLOC;
  r.addr = 0x200000;
  r.size = 2 * MiB;
  r.pool = 1;
  ts_recorder_append (rec, TS_RECORD_ALLOC, &r);
  r.addr = 0x300000;                          /* overlaps the first */
  ts_recorder_append (rec, TS_RECORD_ALLOC, &r);
  r.action = TS_ALLOC_ACTION_ALLOC;
  r.addr = 0x200200;                          /* not at a gap's start */
  r.size = 512;
  ts_recorder_append (rec, TS_RECORD_ALLOC, &r);
  r.addr = 0x200000;
  r.size = 4 * MiB;                           /* larger than the gap */
  ts_recorder_append (rec, TS_RECORD_ALLOC, &r);
  r.size = 512;
  r.requested = 500;
  ts_recorder_append (rec, TS_RECORD_ALLOC, &r);
  r.action = TS_ALLOC_ACTION_SEGMENT_FREE;    /* still in use */
  r.size = 2 * MiB;
  r.requested = 0;
  ts_recorder_append (rec, TS_RECORD_ALLOC, &r);
  r.action = TS_ALLOC_ACTION_FREE_COMPLETED;  /* never requested */
  ts_recorder_append (rec, TS_RECORD_ALLOC, &r);
  r.device = 1000;                            /* no such device */
  r.action = TS_ALLOC_ACTION_OOM;
  ts_recorder_append (rec, TS_RECORD_ALLOC, &r);
  /* a plain cudaMalloc and its cudaFree (requested == size, as CUPTI
   * sees PyTorch's segments): not the allocator's, not "skipped" */
  r.device = 0;
  r.action = TS_ALLOC_ACTION_SEGMENT_ALLOC;
  r.addr = 0x4000000;
  r.size = r.requested = 2 * MiB;
  ts_recorder_append (rec, TS_RECORD_ALLOC, &r);
  r.action = TS_ALLOC_ACTION_SEGMENT_FREE;
  ts_recorder_append (rec, TS_RECORD_ALLOC, &r);

  replay = ts_memory_replay_new (rec);
  g_assert_cmpuint (ts_memory_replay_get_n_devices (replay), ==, 1);
  g_assert_cmpuint (ts_memory_replay_get_n_skipped (replay), ==, 7);
  g_assert_cmpuint (ts_memory_replay_get_n_plain (replay), ==, 2);
  s = ts_memory_replay_state_at (replay, 1000);
  g_assert_cmpuint (s->index, ==, 11);
  g_assert_cmpuint (s->segments->len, ==, 1);
  g_assert_cmpuint (s->blocks->len, ==, 2);
  g_assert_cmpint (s->stats[0].allocated_bytes[TS_STAT_TYPE_ALL].current, ==, 512);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/memory-replay/worked-example", test_worked_example);
  g_test_add_func ("/memory-replay/random-default", test_random_default);
  g_test_add_func ("/memory-replay/random-configs", test_random_configs);
  g_test_add_func ("/memory-replay/bad-records", test_bad_records);

  return g_test_run ();
}
