/* test-trace-stats.c: exact statistics of a small known trace
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "ts-test-trace.h"
#include "ts-trace-stats.h"

static void
kernel (TsRecorder *rec,
        TsStreamId  stream,
        const char *name,
        TsTime      start,
        TsTime      end)
{
  TsKernelRecord r = { 0 };

  r.start = start, r.end = end, r.stream = stream;
  r.name = ts_recorder_intern (rec, name);
  ts_recorder_append (rec, TS_RECORD_KERNEL, &r);
}

static void
api (TsRecorder *rec,
     const char *name,
     TsTime      start,
     TsTime      end)
{
  TsApiCallRecord r = { 0 };

  r.start = start, r.end = end, r.stream = TS_STREAM_NONE;
  r.name = ts_recorder_intern (rec, name);
  ts_recorder_append (rec, TS_RECORD_API_CALL, &r);
}

static void
copy (TsRecorder *rec,
      TsStreamId  stream,
      TsCopyKind  kind,
      TsTime      start,
      TsTime      end,
      guint64     bytes)
{
  TsMemcpyRecord r = { 0 };

  r.start = start, r.end = end, r.stream = stream, r.kind = kind, r.bytes = bytes;
  ts_recorder_append (rec, TS_RECORD_MEMCPY, &r);
}

static void
nvtx (TsRecorder *rec,
      TsNvtxKind  kind,
      TsTime      time,
      const char *message)
{
  TsNvtxRecord r = { 0 };

  r.time = time, r.kind = kind;
  r.message = ts_recorder_intern (rec, message);
  ts_recorder_append (rec, TS_RECORD_NVTX, &r);
}

static void
counter (TsRecorder    *rec,
         TsCounterKind  kind,
         TsTime         time,
         gint64         value)
{
  TsCounterRecord r = { time, value, 0, kind };

  ts_recorder_append (rec, TS_RECORD_COUNTER, &r);
}

/* Stream 0 (default) and stream 1 (high priority) of device 0:
 *   s0: a [0,100)  a [200,260)  DtoH [400,450) 500 B  memset [600,610) 64 B
 *   s1: b [50,250)  HtoD [300,400) 1000 B  HtoD [500,600) 3000 B
 * API: aten::mm [0,50) around launches [0,10) [20,30) [40,45).
 * NVTX: fwd [0,300), fwd [400,500), a mark at 350.
 * Memory: allocated 100 @0, 300 @100, 50 @500; reserved 200 @0, 400 @100. */
static TsTraceDocument *
known_document (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  TsStreamRecord s0 = { 0, 0, 0, 1, 0 }, s1 = { 1, 0, -1, 0, 0x10 };
  TsMemsetRecord ms = { 0 };

  ts_recorder_append (rec, TS_RECORD_STREAM, &s0);
  ts_recorder_append (rec, TS_RECORD_STREAM, &s1);
  kernel (rec, 0, "a", 0, 100);
  kernel (rec, 0, "a", 200, 260);
  kernel (rec, 1, "b", 50, 250);
  copy (rec, 0, TS_COPY_DEVICE_TO_HOST, 400, 450, 500);
  copy (rec, 1, TS_COPY_HOST_TO_DEVICE, 300, 400, 1000);
  copy (rec, 1, TS_COPY_HOST_TO_DEVICE, 500, 600, 3000);
  ms.start = 600, ms.end = 610, ms.stream = 0, ms.bytes = 64;
  ts_recorder_append (rec, TS_RECORD_MEMSET, &ms);
  api (rec, "aten::mm", 0, 50);
  api (rec, "cudaLaunchKernel", 0, 10);
  api (rec, "cudaLaunchKernel", 20, 30);
  api (rec, "cudaLaunchKernel", 40, 45);
  nvtx (rec, TS_NVTX_PUSH, 0, "fwd");
  nvtx (rec, TS_NVTX_POP, 300, NULL);
  nvtx (rec, TS_NVTX_MARK, 350, "here");
  nvtx (rec, TS_NVTX_PUSH, 400, "fwd");
  nvtx (rec, TS_NVTX_POP, 500, NULL);
  counter (rec, TS_COUNTER_ALLOCATED_BYTES, 0, 100);
  counter (rec, TS_COUNTER_RESERVED_BYTES, 0, 200);
  counter (rec, TS_COUNTER_ALLOCATED_BYTES, 100, 300);
  counter (rec, TS_COUNTER_RESERVED_BYTES, 100, 400);
  counter (rec, TS_COUNTER_ALLOCATED_BYTES, 500, 50);
  return ts_trace_document_new (rec);
}

static void
check_name (TsTraceDocument *doc,
            GArray          *names,
            guint            index,
            const char      *name,
            guint64          count,
            TsTime           total,
            TsTime           min,
            TsTime           max)
{
  const TsNameStats *s;

  g_assert_cmpuint (index, <, names->len);
  s = &g_array_index (names, TsNameStats, index);
  g_assert_cmpstr (ts_recorder_lookup (ts_trace_document_get_recorder (doc), s->name), ==, name);
  g_assert_cmpuint (s->count, ==, count);
  g_assert_cmpint (s->total, ==, total);
  g_assert_cmpint (s->min, ==, min);
  g_assert_cmpint (s->max, ==, max);
}

static void
test_whole (void)
{
  g_autoptr(TsTraceDocument) doc = known_document ();
  g_autoptr(TsTraceStats) s = ts_trace_stats_compute (doc, 0, 610);
  const TsCopyStats *c;
  const TsStreamStats *st;
  const TsMemoryPeak *m;

  /* Kernels by total time: b 200, then a 160 (2 of them). */
  g_assert_cmpuint (s->kernels->len, ==, 2);
  check_name (doc, s->kernels, 0, "b", 1, 200, 200, 200);
  check_name (doc, s->kernels, 1, "a", 2, 160, 60, 100);
  g_assert_cmpint (s->kernel_total, ==, 360);

  g_assert_cmpuint (s->api_calls->len, ==, 2);
  check_name (doc, s->api_calls, 0, "aten::mm", 1, 50, 50, 50);
  check_name (doc, s->api_calls, 1, "cudaLaunchKernel", 3, 25, 5, 10);

  g_assert_cmpuint (s->nvtx_ranges->len, ==, 1);
  check_name (doc, s->nvtx_ranges, 0, "fwd", 2, 400, 100, 300);

  g_assert_cmpuint (s->copies->len, ==, 2);
  c = &g_array_index (s->copies, TsCopyStats, 0);
  g_assert_cmpuint (c->kind, ==, TS_COPY_HOST_TO_DEVICE);
  g_assert_cmpuint (c->count, ==, 2);
  g_assert_cmpuint (c->bytes, ==, 4000);
  g_assert_cmpint (c->total, ==, 200);
  c = &g_array_index (s->copies, TsCopyStats, 1);
  g_assert_cmpuint (c->kind, ==, TS_COPY_DEVICE_TO_HOST);
  g_assert_cmpuint (c->bytes, ==, 500);
  g_assert_cmpint (c->total, ==, 50);
  g_assert_cmpuint (s->memsets.count, ==, 1);
  g_assert_cmpuint (s->memsets.bytes, ==, 64);
  g_assert_cmpint (s->memsets.total, ==, 10);

  /* Busy: s0 100+60+50+10, s1 200+100+100; both busy over [50,100) and
   * [200,250). */
  g_assert_cmpuint (s->streams->len, ==, 2);
  st = &g_array_index (s->streams, TsStreamStats, 0);
  g_assert_cmpuint (st->stream, ==, 0);
  g_assert_cmpuint (st->n_items, ==, 4);
  g_assert_cmpint (st->busy, ==, 220);
  st = &g_array_index (s->streams, TsStreamStats, 1);
  g_assert_cmpuint (st->stream, ==, 1);
  g_assert_cmpint (st->busy, ==, 400);
  g_assert_cmpuint (s->overlaps->len, ==, 1);
  g_assert_cmpint (g_array_index (s->overlaps, TsStreamOverlap, 0).overlap, ==, 100);

  g_assert_cmpuint (s->memory->len, ==, 1);
  m = &g_array_index (s->memory, TsMemoryPeak, 0);
  g_assert_cmpint (m->peak_allocated, ==, 300);
  g_assert_cmpint (m->peak_allocated_time, ==, 100);
  g_assert_cmpint (m->peak_reserved, ==, 400);
}

static void
test_window (void)
{
  g_autoptr(TsTraceDocument) doc = known_document ();
  g_autoptr(TsTraceStats) s = ts_trace_stats_compute (doc, 90, 310);
  g_autoptr(TsTraceStats) none = ts_trace_stats_compute (doc, 1000, 2000);

  /* Items overlapping the window count whole. */
  check_name (doc, s->kernels, 0, "b", 1, 200, 200, 200);
  check_name (doc, s->kernels, 1, "a", 2, 160, 60, 100);
  g_assert_cmpuint (s->api_calls->len, ==, 0);
  g_assert_cmpuint (s->copies->len, ==, 1);
  g_assert_cmpuint (g_array_index (s->copies, TsCopyStats, 0).bytes, ==, 1000);
  g_assert_cmpuint (s->memsets.count, ==, 0);

  /* Busy and overlap are clipped: s0 [90,100)+[200,260), s1 [90,250)+[300,310). */
  g_assert_cmpint (g_array_index (s->streams, TsStreamStats, 0).busy, ==, 70);
  g_assert_cmpint (g_array_index (s->streams, TsStreamStats, 1).busy, ==, 170);
  g_assert_cmpint (g_array_index (s->overlaps, TsStreamOverlap, 0).overlap, ==, 60);
  g_assert_cmpint (g_array_index (s->memory, TsMemoryPeak, 0).peak_allocated, ==, 300);

  g_assert_cmpuint (none->kernels->len, ==, 0);
  g_assert_cmpuint (none->streams->len, ==, 0);
  /* The value in force after the last sample. */
  g_assert_cmpint (g_array_index (none->memory, TsMemoryPeak, 0).peak_allocated, ==, 50);
  g_assert_cmpint (g_array_index (none->memory, TsMemoryPeak, 0).peak_reserved, ==, 400);
}

/* On the synthetic training loop: every kernel is counted once, and a
 * stream's busy time never exceeds its items' total. */
static void
test_synthetic (void)
{
  TsTestTraceOptions o = { 2, 3, 5, 10, 7 };
  g_autoptr(TsRecorder) rec = ts_test_trace_new (&o);
  g_autoptr(TsTraceDocument) doc = ts_trace_document_new (rec);
  TsTime begin, end;
  g_autoptr(TsTraceStats) s = NULL;
  guint64 n = 0;

  ts_trace_document_get_time_span (doc, &begin, &end);
  s = ts_trace_stats_compute (doc, begin, end + 1);
  for (guint i = 0; i < s->kernels->len; i++)
    n += g_array_index (s->kernels, TsNameStats, i).count;
  g_assert_cmpuint (n, ==, ts_recorder_get_count (rec, TS_RECORD_KERNEL));
  g_assert_cmpuint (n, ==, 2 * 5 * 10);
  /* Copy in and out per device per step. */
  g_assert_cmpuint (s->copies->len, ==, 2);
  g_assert_cmpuint (g_array_index (s->copies, TsCopyStats, 0).count, ==, 10);
  /* Two devices: created streams with work (2 compute, 1 copy) each. */
  g_assert_cmpuint (s->streams->len, ==, 6);
  g_assert_cmpuint (s->overlaps->len, ==, 2 * 3);
  g_assert_cmpint (s->host_blocked, >, 0);
  g_assert_cmpuint (ts_test_trace_count (&o), ==, 2 + 2 * 4 + 2 +
                    ts_recorder_get_count (rec, TS_RECORD_API_CALL) +
                    ts_recorder_get_count (rec, TS_RECORD_KERNEL) +
                    ts_recorder_get_count (rec, TS_RECORD_MEMCPY) +
                    ts_recorder_get_count (rec, TS_RECORD_MEMSET) +
                    ts_recorder_get_count (rec, TS_RECORD_EVENT_RECORD) +
                    ts_recorder_get_count (rec, TS_RECORD_EVENT_WAIT) +
                    ts_recorder_get_count (rec, TS_RECORD_SYNC) +
                    ts_recorder_get_count (rec, TS_RECORD_NVTX) +
                    ts_recorder_get_count (rec, TS_RECORD_COUNTER));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/stats/whole", test_whole);
  g_test_add_func ("/stats/window", test_window);
  g_test_add_func ("/stats/synthetic", test_synthetic);
  return g_test_run ();
}
