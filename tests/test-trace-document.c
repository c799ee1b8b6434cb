/* test-trace-document.c: tracks, nesting, window queries and links
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "ts-trace-document.h"

static void
add_api (TsRecorder *rec,
         const char *name,
         TsTime      start,
         TsTime      end,
         guint64     corr)
{
  TsApiCallRecord r = { 0 };

  r.start = start;
  r.end = end;
  r.correlation = corr;
  r.name = ts_recorder_intern (rec, name);
  r.device = 0;
  r.stream = TS_STREAM_NONE;
  ts_recorder_append (rec, TS_RECORD_API_CALL, &r);
}

static void
add_kernel (TsRecorder *rec,
            TsStreamId  stream,
            TsTime      start,
            TsTime      end,
            guint64     corr)
{
  TsKernelRecord r = { 0 };

  r.start = start;
  r.end = end;
  r.correlation = corr;
  r.stream = stream;
  r.device = 0;
  r.name = ts_recorder_intern (rec, "kernel");
  ts_recorder_append (rec, TS_RECORD_KERNEL, &r);
}

static void
add_nvtx (TsRecorder *rec,
          TsNvtxKind  kind,
          TsTime      time,
          const char *message)
{
  TsNvtxRecord r = { 0 };

  r.time = time;
  r.kind = kind;
  r.message = ts_recorder_intern (rec, message);
  ts_recorder_append (rec, TS_RECORD_NVTX, &r);
}

static TsRecorder *
make_trace (void)
{
  TsRecorder *rec = ts_recorder_new ();
  TsStreamRecord s0 = { 0, 0, 0, 1, 0 };
  TsStreamRecord s4 = { 4, 0, -1, 0, 0x1234 };
  TsCounterRecord c1 = { 100, 1024, 0, TS_COUNTER_ALLOCATED_BYTES };
  TsCounterRecord c2 = { 100, 2097152, 0, TS_COUNTER_RESERVED_BYTES };
  TsCounterRecord c3 = { 900, 0, 0, TS_COUNTER_ALLOCATED_BYTES };
  TsEventRecordRecord er = { 0 };
  TsEventWaitRecord ew = { 0 };

  ts_recorder_append (rec, TS_RECORD_STREAM, &s4);
  ts_recorder_append (rec, TS_RECORD_STREAM, &s0);

  /* aten::add encloses the launch it makes. */
  add_api (rec, "aten::add", 100, 200, 0);
  add_api (rec, "cudaLaunchKernel", 120, 180, 7);
  add_api (rec, "cudaMemcpyAsync", 300, 320, 8);
  add_kernel (rec, 4, 500, 800, 8);
  add_kernel (rec, 0, 200, 400, 7);
  add_kernel (rec, 0, 400, 450, 9);

  add_nvtx (rec, TS_NVTX_PUSH, 50, "outer");
  add_nvtx (rec, TS_NVTX_PUSH, 60, "inner");
  add_nvtx (rec, TS_NVTX_MARK, 70, "mark");
  add_nvtx (rec, TS_NVTX_POP, 90, NULL);
  add_nvtx (rec, TS_NVTX_POP, 95, NULL);
  add_nvtx (rec, TS_NVTX_PUSH, 96, "left open");

  ts_recorder_append (rec, TS_RECORD_COUNTER, &c1);
  ts_recorder_append (rec, TS_RECORD_COUNTER, &c2);
  ts_recorder_append (rec, TS_RECORD_COUNTER, &c3);

  er.correlation = 20;
  er.queued = 410;
  er.time = 450;
  er.stream = 0;
  ts_recorder_append (rec, TS_RECORD_EVENT_RECORD, &er);
  ew.correlation = 21;
  ew.record_correlation = 20;
  ew.queued = 420;
  ew.time = 450;
  ew.stream = 4;
  ts_recorder_append (rec, TS_RECORD_EVENT_WAIT, &ew);
  return rec;
}

static void
test_tracks (void)
{
  g_autoptr(TsRecorder) rec = make_trace ();
  g_autoptr(TsTraceDocument) doc = ts_trace_document_new (rec);
  const TsTrack *t;
  TsTime begin, end;

  ts_trace_document_get_time_span (doc, &begin, &end);
  g_assert_cmpint (begin, ==, 50);
  g_assert_cmpint (end, ==, 900);

  /* Host, NVTX, default stream, stream 4, memory. */
  g_assert_cmpuint (ts_trace_document_get_n_tracks (doc), ==, 5);

  t = ts_trace_document_get_track (doc, 0);
  g_assert_cmpint (t->kind, ==, TS_TRACK_HOST_THREAD);
  g_assert_cmpstr (t->title, ==, "Thread 0");
  g_assert_cmpuint (t->n_items, ==, 3);
  g_assert_cmpuint (t->max_depth, ==, 2);
  g_assert_cmpint (t->starts[1], ==, 120);
  g_assert_cmpuint (t->depths[0], ==, 0);
  g_assert_cmpuint (t->depths[1], ==, 1);
  g_assert_cmpuint (t->depths[2], ==, 0);

  t = ts_trace_document_get_track (doc, 1);
  g_assert_cmpint (t->kind, ==, TS_TRACK_NVTX);
  g_assert_cmpuint (t->n_items, ==, 4);
  g_assert_cmpstr (ts_recorder_lookup (rec, t->labels[0]), ==, "outer");
  g_assert_cmpint (t->ends[0], ==, 95);
  g_assert_cmpstr (ts_recorder_lookup (rec, t->labels[1]), ==, "inner");
  g_assert_cmpuint (t->depths[1], ==, 1);
  g_assert_cmpint (t->kinds[2], ==, TS_ITEM_NVTX_MARK);
  g_assert_cmpuint (t->depths[2], ==, 2);
  /* An unclosed range runs to the end of the trace. */
  g_assert_cmpstr (ts_recorder_lookup (rec, t->labels[3]), ==, "left open");
  g_assert_cmpint (t->ends[3], ==, 900);

  t = ts_trace_document_get_track (doc, 2);
  g_assert_cmpint (t->kind, ==, TS_TRACK_STREAM);
  g_assert_true (t->is_default);
  g_assert_cmpstr (t->title, ==, "Default stream (cuda:0)");
  g_assert_cmpuint (t->n_items, ==, 2);

  t = ts_trace_document_get_track (doc, 3);
  g_assert_cmpuint (t->stream, ==, 4);
  g_assert_cmpstr (t->title, ==, "Stream 4 (priority -1)");

  t = ts_trace_document_get_track (doc, 4);
  g_assert_cmpint (t->kind, ==, TS_TRACK_MEMORY);
  /* Two counters at one time make one sample carrying both. */
  g_assert_cmpuint (t->n_samples, ==, 2);
  g_assert_cmpint (t->allocated[0], ==, 1024);
  g_assert_cmpint (t->reserved[0], ==, 2097152);
  g_assert_cmpint (t->allocated[1], ==, 0);
  g_assert_cmpint (t->reserved[1], ==, 2097152);
}

static void
test_find_range (void)
{
  g_autoptr(TsRecorder) rec = make_trace ();
  g_autoptr(TsTraceDocument) doc = ts_trace_document_new (rec);
  const TsTrack *host = ts_trace_document_get_track (doc, 0);
  guint first, last;

  ts_track_find_range (host, 150, 310, &first, &last);
  g_assert_cmpuint (first, ==, 0);
  g_assert_cmpuint (last, ==, 3);

  ts_track_find_range (host, 200, 300, &first, &last);
  /* [100,200) and [120,180) end by 200; [300,320) starts at the end. */
  g_assert_cmpuint (first, ==, 2);
  g_assert_cmpuint (last, ==, 2);

  ts_track_find_range (host, 0, 100, &first, &last);
  g_assert_cmpuint (last - first, ==, 0);
}

static void
test_links (void)
{
  g_autoptr(TsRecorder) rec = make_trace ();
  g_autoptr(TsTraceDocument) doc = ts_trace_document_new (rec);
  const TsEventLink *links;
  guint n_links, track, item;
  guint32 record;
  TsItemKind kind;

  g_assert_true (ts_trace_document_find_api_call (doc, 8, &record));
  g_assert_cmpuint (record, ==, 2);
  g_assert_false (ts_trace_document_find_api_call (doc, 99, &record));

  g_assert_true (ts_trace_document_find_device_work (doc, 7, &kind, &record));
  g_assert_cmpint (kind, ==, TS_ITEM_KERNEL);
  g_assert_cmpuint (record, ==, 1);

  g_assert_true (ts_trace_document_locate_item (doc, TS_ITEM_KERNEL, 1, &track, &item));
  g_assert_cmpuint (track, ==, 2);
  g_assert_cmpuint (item, ==, 0);

  links = ts_trace_document_get_event_links (doc, &n_links);
  g_assert_cmpuint (n_links, ==, 1);
  g_assert_cmpuint (links[0].from_record, ==, 0);
  g_assert_cmpuint (links[0].to_record, ==, 0);
}

static void
test_empty (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(TsTraceDocument) doc = ts_trace_document_new (rec);
  TsTime begin, end;

  g_assert_cmpuint (ts_trace_document_get_n_tracks (doc), ==, 0);
  ts_trace_document_get_time_span (doc, &begin, &end);
  g_assert_cmpint (begin, ==, 0);
  g_assert_cmpint (end, ==, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/document/tracks", test_tracks);
  g_test_add_func ("/document/find-range", test_find_range);
  g_test_add_func ("/document/links", test_links);
  g_test_add_func ("/document/empty", test_empty);
  return g_test_run ();
}
