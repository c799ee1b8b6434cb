/* test-memory-views.c: the fragmentation scenario, its figures and drawings
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The C-level twin of tests/workloads/memory/fragmentation_two_streams.py, on a
 * GTX 1080 Ti sized device (11178 MiB): interleaved lifetimes on two
 * streams leave every cached segment split, then a 2 GiB request fails
 * although far more than 2 GiB is free in total. The test checks the OOM
 * message, the fragmentation figures to the byte, the explanations, the
 * memory and segment drawings (hit testing, the detail fold), and the CLI
 * (`memory` and `render --view segments`) on the written trace. The PNGs
 * stay in the build directory for people to look at.
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "ts-allocator.h"
#include "ts-device-memory.h"
#include "ts-gpu-profile.h"
#include "ts-memory-fragmentation.h"
#include "ts-memory-renderer.h"
#include "ts-memory-replay.h"
#include "ts-render-export.h"
#include "ts-segment-map-renderer.h"
#include "ts-test-trace.h"
#include "ts-trace-document.h"
#include "ts-trace-writer.h"

#define MiB (G_GUINT64_CONSTANT (1) << 20)
#define GiB (G_GUINT64_CONSTANT (1) << 30)
#define CONTEXT_RESERVE (300 * MiB)
#define S0 ((TsStreamId) 0)
#define S1 ((TsStreamId) 1)

typedef struct
{
  TsRecorder *rec;
  char       *oom_message;
  guint64     big;          /* the failed request */
} Scenario;

/* The example, step by step; every step advances virtual time 1 ms. */
static void
run_scenario (Scenario *sc)
{
  const TsGpuProfile *gpu = ts_gpu_profile_lookup ("gtx1080ti");
  TsTestMemory fake = { 0 };
  g_autoptr(TsAllocator) a = NULL;
  g_autoptr(GError) error = NULL;
  guint64 big_blocks[16], keep[16], small[8], x;
  TsSourceLoc l_act, l_keep, l_small, l_big;

  g_assert_nonnull (gpu);
  sc->rec = ts_recorder_new ();
  fake.mem = ts_device_memory_new ();
  g_assert_cmpuint (ts_device_memory_add_device (fake.mem, gpu->total_memory, CONTEXT_RESERVE, NULL), ==, 0);
  a = ts_allocator_new (1, NULL, &ts_test_memory_backend, &fake);
  ts_allocator_set_recorder (a, sc->rec);

  l_act.file = l_keep.file = l_small.file = l_big.file = ts_recorder_intern (sc->rec, "fragmentation_two_streams.py");
  l_act.function = l_keep.function = l_small.function = l_big.function = ts_recorder_intern (sc->rec, "main");
  l_act.line = 31;
  l_keep.line = 38;
  l_small.line = 40;
  l_big.line = 47;

  /* 1. Sixteen 600 MiB activations, alternating streams. */
  for (guint k = 0; k < 16; k++)
    {
      fake.now += 1000000;
      g_assert_true (ts_allocator_malloc (a, 0, 600 * MiB, k % 2 ? S1 : S0, &l_act, &big_blocks[k], NULL));
    }
  /* 2. Each is freed and a 350 MiB result takes its place on the same
   * stream (the cached 600 MiB block is split: a 250 MiB tail stays
   * free), with a 4 MiB side tensor on the other stream now and then. */
  for (guint k = 0; k < 16; k++)
    {
      fake.now += 1000000;
      g_assert_true (ts_allocator_free (a, big_blocks[k], NULL, NULL));
      fake.now += 1000000;
      g_assert_true (ts_allocator_malloc (a, 0, 350 * MiB, k % 2 ? S1 : S0, &l_keep, &keep[k], NULL));
      if (k % 2 == 0)
        {
          fake.now += 1000000;
          g_assert_true (ts_allocator_malloc (a, 0, 4 * MiB, k % 4 ? S0 : S1, &l_small, &small[k / 2], NULL));
        }
    }
  /* 3. The big request. */
  fake.now += 1000000;
  sc->big = 2 * GiB;
  g_assert_false (ts_allocator_malloc (a, 0, sc->big, S0, &l_big, &x, &error));
  g_assert_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_OUT_OF_MEMORY);
  sc->oom_message = g_strdup (error->message);
  /* 4. The script catches it and carries on briefly. */
  fake.now += 1000000;
  for (guint k = 0; k < 8; k++)
    g_assert_true (ts_allocator_free (a, small[k], NULL, NULL));
  fake.now += 1000000;

  /* The allocator gives its segments back to the device first. */
  g_clear_object (&a);
  g_object_unref (fake.mem);
}

static void
scenario_clear (Scenario *sc)
{
  g_clear_object (&sc->rec);
  g_clear_pointer (&sc->oom_message, g_free);
}

typedef struct
{
  TsMemoryRenderer     *memory;
  TsSegmentMapRenderer *map;
  TsTime                begin, end;
} Draw;

static void
draw_memory (cairo_t *cr, int width, int height, gpointer user_data)
{
  Draw *d = user_data;
  TsTimelineView view = { d->begin, d->end, width, height, 0 };

  ts_memory_renderer_draw (d->memory, cr, &view);
}

static void
draw_map (cairo_t *cr, int width, int height, gpointer user_data)
{
  Draw *d = user_data;

  ts_segment_map_renderer_draw (d->map, cr, 0, 0, width, height);
}

static void
test_fragmentation (void)
{
  Scenario sc = { 0 };
  g_autoptr(TsMemoryReplay) replay = NULL;
  g_autoptr(TsMemoryState) state = NULL;
  g_autoptr(TsMemoryFragmentation) frag = NULL;
  g_autofree char *replayed_message = NULL;
  g_autofree char *report = NULL;
  const TsMemoryOom *oom;
  guint64 device_free;

  run_scenario (&sc);
  replay = ts_memory_replay_new (sc.rec);
  g_assert_cmpuint (ts_memory_replay_get_n_skipped (replay), ==, 0);
  g_assert_cmpuint (ts_memory_replay_get_n_ooms (replay), ==, 1);
  oom = ts_memory_replay_get_oom (replay, 0);

  /* The OOM message rebuilt from the trace is the allocator's. */
  replayed_message = ts_memory_replay_format_oom (replay, 0);
  g_assert_cmpstr (replayed_message, ==, sc.oom_message);
  g_assert_true (g_str_has_prefix (sc.oom_message, "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 10.92 GiB"));

  /* Just after the OOM: 16 segments of 600 MiB with a live 350 MiB block
   * and a 250 MiB tail each; the 4 MiB side tensors on stream 0 were cut
   * from the first such tail (best fit on the stream), those on stream 1
   * got a 20 MiB segment. */
  state = ts_memory_replay_state_at (replay, oom->action + 1);
  frag = ts_memory_fragmentation_compute (replay, state, 0, 3);
  g_assert_cmpint (frag->reserved, ==, (gint64) (16 * 600 * MiB + 20 * MiB));
  g_assert_cmpint (frag->allocated, ==, (gint64) (16 * 350 * MiB + 8 * 4 * MiB));
  g_assert_cmpint (frag->cached_free, ==, (gint64) (16 * 250 * MiB + 20 * MiB - 8 * 4 * MiB));
  g_assert_cmpint (frag->non_releasable, ==, frag->cached_free);
  g_assert_cmpint (frag->releasable, ==, 0);
  g_assert_cmpint (frag->internal_waste, ==, 0);
  g_assert_cmpuint (frag->largest_free[0], ==, 250 * MiB);
  g_assert_cmpuint (frag->free_space->len, ==, 2);
  g_assert_cmpuint (g_array_index (frag->free_space, TsMemoryFreeSpace, 0).stream, ==, S0);
  g_assert_cmpuint (g_array_index (frag->free_space, TsMemoryFreeSpace, 0).largest_free, ==, 250 * MiB);
  g_assert_cmpuint (g_array_index (frag->free_space, TsMemoryFreeSpace, 0).n_free_blocks, ==, 8);
  device_free = 10 * GiB + 938 * MiB - 300 * MiB - (guint64) frag->reserved;
  g_assert_cmpuint (oom->device_free, ==, device_free);
  g_assert_cmpuint (oom->rounded_size, ==, 2 * GiB);

  report = ts_memory_fragmentation_format (frag);
  g_test_message ("%s", report);
  g_assert_true (strstr (report, "A request of 2.0 GiB on stream 0 (at fragmentation_two_streams.py:47) failed "
                                 "although 5.1 GiB is free in total (3.9 GiB cached by the allocator plus "
                                 "1.2 GiB never reserved), because the largest free block on stream 0 is 250.0 MiB") != NULL);
  g_assert_true (strstr (report, "The binding limit is the device's capacity: of its 10.9 GiB, 1.2 GiB is free, "
                                 "so cudaMalloc of a new 2.0 GiB segment fails.") != NULL);
  /* The fifteen segments stuck alike are one bullet. */
  g_assert_true (strstr (report, "15 segments (600.0 MiB each, large pool, streams 0, 1; the first at ") != NULL);
  g_assert_true (strstr (report, "each hold 1 live block of 350.0 MiB at offset 0 allocated at "
                                 "fragmentation_two_streams.py:38; its 250.0 MiB free tail can't be returned "
                                 "to the device until that block is freed (empty_cache only releases whole "
                                 "unused segments).") != NULL);
  g_assert_true (strstr (report, "Large cached blocks (up to 600.0 MiB) are being split by smaller requests. "
                                 "PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:512 ") != NULL);
  /* Grouped, all 17 stuck segments fit in three bullets: nothing is left
   * over for a "more split segments" line. */
  g_assert_null (strstr (report, "more split segments"));

  /* Drawings: the memory view and the segment map at the OOM. */
  {
    g_autoptr(TsTraceDocument) doc = ts_trace_document_new (sc.rec);
    g_autoptr(TsMemoryRenderer) memory = ts_memory_renderer_new (doc);
    g_autoptr(TsSegmentMapRenderer) map = ts_segment_map_renderer_new (replay);
    g_autofree char *png_mem = g_build_filename (g_getenv ("G_TEST_BUILDDIR") ? g_getenv ("G_TEST_BUILDDIR") : ".",
                                                 "fragmentation-memory.png", NULL);
    g_autofree char *png_map = g_build_filename (g_getenv ("G_TEST_BUILDDIR") ? g_getenv ("G_TEST_BUILDDIR") : ".",
                                                 "fragmentation-segments.png", NULL);
    g_autofree char *png_dark = g_build_filename (g_getenv ("G_TEST_BUILDDIR") ? g_getenv ("G_TEST_BUILDDIR") : ".",
                                                  "fragmentation-segments-dark.png", NULL);
    Draw d = { memory, map, 0, 0 };
    TsMemoryDrawStats ds;
    TsSegmentMapHit hit;
    gboolean found = FALSE;
    guint oom_index = 99;

    ts_trace_document_get_time_span (doc, &d.begin, &d.end);
    d.end += 1000000;
    ts_memory_renderer_set_replay (memory, replay);
    ts_memory_renderer_set_instant (memory, oom->action + 1);
    g_assert_true (ts_render_to_file (png_mem, 1400, 500, draw_memory, &d, NULL));
    ts_memory_renderer_get_draw_stats (memory, &ds);
    g_assert_cmpuint (ds.n_bands, ==, 16 + 16 + 8);
    g_assert_cmpuint (ds.n_folded, ==, 0);
    g_assert_cmpuint (ds.n_ooms, ==, 1);

    /* The OOM mark is where the time axis says. */
    {
      double x = 90 + (double) (oom->time - d.begin) * (1400 - 10 - 90) / (double) (d.end - d.begin);
      g_assert_true (ts_memory_renderer_hit_oom (memory, x, 200, &oom_index));
      g_assert_cmpuint (oom_index, ==, 0);
      g_assert_false (ts_memory_renderer_hit_oom (memory, x + 40, 200, NULL));
    }

    /* Detail 10: the ten largest keep their bands, the rest fold. */
    ts_memory_renderer_set_detail (memory, 10);
    {
      cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 800, 300);
      cairo_t *cr = cairo_create (s);
      TsTimelineView view = { d.begin, d.end, 800, 300, 0 };

      ts_memory_renderer_draw (memory, cr, &view);
      cairo_destroy (cr);
      cairo_surface_destroy (s);
    }
    ts_memory_renderer_get_draw_stats (memory, &ds);
    g_assert_cmpuint (ds.n_bands, ==, 10);
    g_assert_cmpuint (ds.n_folded, ==, 30);

    ts_segment_map_renderer_set_index (map, oom->action + 1);
    g_assert_true (ts_render_to_file (png_map, 1400, 520, draw_map, &d, NULL));
    ts_segment_map_renderer_set_dark (map, TRUE);
    g_assert_true (ts_render_to_file (png_dark, 1400, 520, draw_map, &d, NULL));

    /* Hit testing: scan a row of points for a live block and a tail. */
    for (double y = 40; y < 520 && !found; y += 2)
      for (double x = 8; x < 1392 && !found; x += 3)
        if (ts_segment_map_renderer_hit_test (map, x, y, &hit) && hit.kind == TS_SEGMENT_MAP_HIT_BLOCK &&
            hit.state == TS_BLOCK_STATE_ACTIVE_ALLOCATED && hit.size == 350 * MiB)
          found = TRUE;
    g_assert_true (found);
    g_assert_cmpuint (hit.segment_size, ==, 600 * MiB);
    g_assert_cmphex (hit.address, ==, hit.segment_address);
    g_assert_cmpuint (hit.requested_size, ==, 350 * MiB);
    g_assert_cmpuint (hit.loc.line, ==, 38);
    g_assert_cmpint (hit.alloc_time, ==, ts_memory_replay_get_allocation (replay, hit.allocation)->time);
    g_assert_cmpint (hit.free_time, ==, G_MAXINT64);
    {
      g_autofree char *text = ts_segment_map_hit_describe (map, &hit);
      g_assert_true (g_str_has_prefix (strchr (text, ':'), ": 350.0 MiB block, 367001600 bytes requested (0 bytes of rounding)\n"
                                                           "allocated at fragmentation_two_streams.py:38 in main"));
    }
    /* A little further right is its free tail. */
    {
      TsSegmentMapHit tail;
      guint64 seg = hit.segment_address;
      gboolean got = FALSE;

      for (double x = 8; x < 1392 && !got; x += 1)
        for (double y = 40; y < 520 && !got; y += 4)
          if (ts_segment_map_renderer_hit_test (map, x, y, &tail) && tail.kind == TS_SEGMENT_MAP_HIT_BLOCK &&
              tail.segment_address == seg && tail.state == TS_BLOCK_STATE_INACTIVE)
            got = TRUE;
      g_assert_true (got);
      /* The tail ends the segment (the first one also lends 16 MiB of
       * its tail to the side tensors). */
      g_assert_cmphex (tail.address + tail.size, ==, seg + 600 * MiB);
      g_assert_cmphex (tail.address, >=, seg + 350 * MiB);
      g_assert_cmpuint (tail.allocation, ==, TS_MEMORY_REPLAY_NONE);
    }
  }

  /* The CLI on the trace file. */
  {
    g_autofree char *dir = g_dir_make_tmp ("ts-memory-XXXXXX", NULL);
    g_autofree char *trace = g_build_filename (dir, "frag.tstrace", NULL);
    g_autofree char *png = g_build_filename (dir, "segments.png", NULL);
    g_autoptr(TsTraceWriter) w = ts_trace_writer_new_for_path (trace, NULL);
    g_autofree char *out = NULL, *err = NULL;
    int status = -1;
    const char *argv_mem[] = { TS_CLI_PATH, "memory", trace, "--at", "oom", "--summary", "--stats", NULL };
    const char *argv_render[] = { TS_CLI_PATH, "render", trace, "--view", "segments", "--at", "oom", "-o", png, NULL };
    const char *argv_bad[] = { TS_CLI_PATH, "memory", trace, "--at", "oom:2", NULL };

    g_assert_nonnull (w);
    g_assert_true (ts_trace_writer_attach (w, sc.rec, NULL));
    g_assert_true (ts_trace_writer_close (w, NULL));

    g_assert_true (g_spawn_sync (NULL, (char **) argv_mem, NULL, 0, NULL, NULL, &out, &err, &status, NULL));
    g_assert_cmpint (status, ==, 0);
    g_assert_true (strstr (out, "failed although 5.1 GiB is free in total") != NULL);
    g_assert_true (strstr (out, "|            CUDA OOMs: 1            |        cudaMalloc retries: 1         |") != NULL);
    g_assert_true (strstr (out, "num_ooms                                                    1") != NULL);
    g_assert_true (strstr (out, "| GPU reserved memory   |   9620 MiB |   9620 MiB |   9620 MiB |      0 B   |") != NULL);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);

    g_assert_true (g_spawn_sync (NULL, (char **) argv_render, NULL, 0, NULL, NULL, &out, &err, &status, NULL));
    g_assert_cmpint (status, ==, 0);
    g_assert_true (g_file_test (png, G_FILE_TEST_EXISTS));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);

    g_assert_true (g_spawn_sync (NULL, (char **) argv_bad, NULL, 0, NULL, NULL, &out, &err, &status, NULL));
    g_assert_cmpint (status, !=, 0);
    g_assert_true (strstr (err, "the trace has 1 OOM") != NULL);

    g_remove (png);
    g_remove (trace);
    g_rmdir (dir);
  }

  scenario_clear (&sc);
}

/* Private pools and expandable segments in the segment map, from
 * hand-written allocator actions: an expandable segment of the default
 * pool mapped with three 20 MiB pages whose middle page was unmapped
 * (PyTorch's release of free pages: segment_unmap), and a 2 MiB small
 * segment of a graph's own pool, MempoolId_t (1, 0) as
 * CUDAGraph::capture_begin makes it. */
static void
test_pools_and_pages (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(TsMemoryReplay) replay = NULL;
  g_autoptr(TsSegmentMapRenderer) map = NULL;
  g_autoptr(GArray) unmapped = NULL;
  g_autofree char *png = g_build_filename (g_getenv ("G_TEST_BUILDDIR") ? g_getenv ("G_TEST_BUILDDIR") : ".",
                                           "pools-segments.png", NULL);
  const guint64 A = G_GUINT64_CONSTANT (0x7f0000000000), B = A + GiB;
  const TsMemPoolId graph = { 1, 0 };
  const struct { TsAllocAction action; guint64 addr, size; guint32 small; TsMemPoolId pool; } acts[] = {
    { TS_ALLOC_ACTION_SEGMENT_MAP, A, 60 * MiB, 0, { 0, 0 } },
    { TS_ALLOC_ACTION_ALLOC, A, 10 * MiB, 0, { 0, 0 } },
    { TS_ALLOC_ACTION_ALLOC, A + 10 * MiB, 30 * MiB, 0, { 0, 0 } },
    { TS_ALLOC_ACTION_ALLOC, A + 40 * MiB, 20 * MiB, 0, { 0, 0 } },
    { TS_ALLOC_ACTION_FREE_REQUESTED, A + 10 * MiB, 30 * MiB, 0, { 0, 0 } },
    { TS_ALLOC_ACTION_FREE_COMPLETED, A + 10 * MiB, 30 * MiB, 0, { 0, 0 } },
    { TS_ALLOC_ACTION_SEGMENT_UNMAP, A + 20 * MiB, 20 * MiB, 0, { 0, 0 } },
    { TS_ALLOC_ACTION_SEGMENT_ALLOC, B, 2 * MiB, 1, { 1, 0 } },
    { TS_ALLOC_ACTION_ALLOC, B, 512, 1, { 1, 0 } },
  };
  Draw d = { NULL, NULL, 0, 0 };
  TsSegmentMapHit hit;
  gboolean got_hole = FALSE, got_group = FALSE, got_block = FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (acts); i++)
    {
      TsAllocRecord r = { 0 };

      r.time = (TsTime) (i + 1) * 1000;
      r.action = acts[i].action;
      r.addr = acts[i].addr;
      r.size = acts[i].size;
      r.requested = acts[i].action <= TS_ALLOC_ACTION_FREE_COMPLETED ? acts[i].size : 0;
      r.pool = acts[i].small;
      ts_alloc_record_set_pool_id (&r, acts[i].pool);
      ts_recorder_append (rec, TS_RECORD_ALLOC, &r);
    }
  replay = ts_memory_replay_new (rec);
  g_assert_cmpuint (ts_memory_replay_get_n_skipped (replay), ==, 0);
  map = ts_segment_map_renderer_new (replay);

  {
    const TsMemoryState *st = ts_segment_map_renderer_get_state (map);

    g_assert_cmpuint (st->segments->len, ==, 3);
    for (guint k = 0; k < 3; k++)
      {
        const TsMemorySegment *seg = &g_array_index (st->segments, TsMemorySegment, k);

        g_assert_cmpint (seg->is_expandable, ==, seg->address != B);
        g_assert_true (TS_MEM_POOL_ID_EQUAL (seg->pool_id, graph) == (seg->address == B));
      }
  }
  /* The hole between the two mapped ranges, and the rest of the
   * reservation after the last; the graph's segment has none. */
  unmapped = ts_segment_map_renderer_get_unmapped (map);
  g_assert_cmpuint (unmapped->len, ==, 4);
  g_assert_cmphex (g_array_index (unmapped, guint64, 0), ==, A + 20 * MiB);
  g_assert_cmpuint (g_array_index (unmapped, guint64, 1), ==, 20 * MiB);
  g_assert_cmphex (g_array_index (unmapped, guint64, 2), ==, A + 60 * MiB);
  g_assert_cmpuint (g_array_index (unmapped, guint64, 3), ==, 0);

  d.map = map;
  g_assert_true (ts_render_to_file (png, 1000, 300, draw_map, &d, NULL));
  for (double y = 40; y < 300; y += 2)
    for (double x = 8; x < 992; x += 2)
      if (ts_segment_map_renderer_hit_test (map, x, y, &hit))
        {
          if (hit.kind == TS_SEGMENT_MAP_HIT_UNMAPPED && hit.size == 20 * MiB)
            {
              g_autofree char *text = ts_segment_map_hit_describe (map, &hit);
              g_assert_cmphex (hit.address, ==, A + 20 * MiB);
              g_assert_true (g_str_has_prefix (text, "0x7f0001400000: 20.0 MiB of an expandable segment without pages"));
              got_hole = TRUE;
            }
          else if (hit.kind == TS_SEGMENT_MAP_HIT_BLOCK && hit.address == A + 10 * MiB)
            {
              g_autofree char *text = ts_segment_map_hit_describe (map, &hit);
              g_assert_true (g_str_has_suffix (text, "\nof the default pool, a mapped range of an expandable segment"));
              got_block = TRUE;
            }
          else if (hit.kind == TS_SEGMENT_MAP_HIT_GROUP && TS_MEM_POOL_ID_EQUAL (hit.pool_id, graph))
            {
              g_autofree char *text = ts_segment_map_hit_describe (map, &hit);
              g_assert_cmpstr (text, ==, "Device 0, small pool, stream 0 (graph pool (1, 0))");
              got_group = TRUE;
            }
        }
  g_assert_true (got_hole);
  g_assert_true (got_group);
  g_assert_true (got_block);
  {
    TsMemPoolId user = { 0, 1 }, none = { 0, 0 };
    g_autofree char *a = ts_memory_pool_name (user);
    g_autofree char *b = ts_memory_pool_name (none);

    g_assert_cmpstr (a, ==, "private pool (0, 1)");
    g_assert_cmpstr (b, ==, "default pool");
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/memory-views/fragmentation", test_fragmentation);
  g_test_add_func ("/memory-views/pools-and-pages", test_pools_and_pages);

  return g_test_run ();
}
