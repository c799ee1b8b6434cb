/* test-trace-document.c: tracks, nesting, window queries and links
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <string.h>

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

/* The document's items of one track, as the test expects them. */
typedef struct
{
  TsTime  start;
  TsTime  end;
  guint8  kind;
  guint32 record;
  guint32 label;
} Expected;

static int
compare_expected (gconstpointer a,
                  gconstpointer b)
{
  const Expected *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->end != y->end)
    return x->end > y->end ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  return x->record < y->record ? -1 : x->record > y->record;
}

static void
expect (GArray     *items,
        TsItemKind  kind,
        TsTime      start,
        TsTime      end,
        guint32     record,
        guint32     label)
{
  Expected e = { start, end, kind, record, label };

  g_array_append_val (items, e);
}

/* Checks a track against the items it should hold: sorted by (start,
 * longer first, kind, record), depths from a nesting stack, running max
 * of ends, lanes, and the location of every item. */
static void
check_track (TsTraceDocument *doc,
             guint            index,
             GArray          *items)
{
  const TsTrack *t = ts_trace_document_get_track (doc, index);
  TsTime stack[64], max_end = G_MININT64;
  guint depth = 0, max_depth = 0;
  g_autofree guint *in_lane = NULL;

  g_array_sort (items, compare_expected);
  g_assert_cmpuint (t->n_items, ==, items->len);
  in_lane = g_new0 (guint, 64);
  for (guint i = 0; i < items->len; i++)
    {
      const Expected *e = &g_array_index (items, Expected, i);
      TsTrackLane lane;
      guint track, item;

      while (depth > 0 && stack[depth - 1] <= e->start)
        depth--;
      max_end = MAX (max_end, e->end);
      max_depth = MAX (max_depth, depth + 1);

      g_assert_cmpint (t->starts[i], ==, e->start);
      g_assert_cmpint (t->ends[i], ==, e->end);
      g_assert_cmpint (t->max_ends[i], ==, max_end);
      g_assert_cmpuint (t->kinds[i], ==, e->kind);
      g_assert_cmpuint (t->records[i], ==, e->record);
      g_assert_cmpuint (t->labels[i], ==, e->label);
      g_assert_cmpuint (t->depths[i], ==, depth);

      /* The lanes list the items of each depth in order. */
      ts_track_get_lane (t, depth, &lane);
      g_assert_cmpuint (ts_track_lane_item (&lane, in_lane[depth]++), ==, i);

      g_assert_true (ts_trace_document_locate_item (doc, e->kind, e->record, &track, &item));
      g_assert_cmpuint (track, ==, index);
      g_assert_cmpuint (item, ==, i);

      stack[depth++] = e->end;
    }
  g_assert_cmpuint (t->max_depth, ==, max_depth);
  for (guint d = 0; d < max_depth; d++)
    {
      TsTrackLane lane;

      ts_track_get_lane (t, d, &lane);
      g_assert_cmpuint (lane.n_items, ==, in_lane[d]);
    }
}

/* Records in the orders a real run produces them: API calls appended when
 * they return (an enclosing call after the calls it encloses), syncs and
 * device work of several kinds on one track, a thread whose calls come
 * backwards (too far out of order to insert: sorted outright), and
 * correlations out of order, some shared. The document must come out as
 * if everything had been sorted from scratch. */
static void
test_out_of_order (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(TsTraceDocument) doc = NULL;
  g_autoptr(GArray) host0 = g_array_new (FALSE, FALSE, sizeof (Expected));
  g_autoptr(GArray) host1 = g_array_new (FALSE, FALSE, sizeof (Expected));
  g_autoptr(GArray) stream5 = g_array_new (FALSE, FALSE, sizeof (Expected));
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  TsStringId name = ts_recorder_intern (rec, "call");
  TsStringId kname = ts_recorder_intern (rec, "kernel");
  TsStringId copy = ts_recorder_intern (rec, "Memcpy HtoD");
  TsStringId fill = ts_recorder_intern (rec, "Memset");
  const guint n = 500, n_back = 70000;   /* over 64k records: the two-thread path */
  guint32 n_api = 0;
  guint32 record;
  TsItemKind kind;

  for (guint j = 0; j < n; j++)
    {
      TsTime base = 1000 * (TsTime) j;
      /* Post-order: inner calls, then the middle one, then the outer. */
      static const TsTime spans[][2] = { { 20, 30 }, { 40, 50 }, { 10, 80 }, { 0, 100 } };

      for (guint k = 0; k < G_N_ELEMENTS (spans); k++)
        {
          TsApiCallRecord r = { 0 };

          r.start = base + spans[k][0];
          r.end = base + spans[k][1];
          /* Correlations 1..4n, shuffled within a step; the outer call
           * shares its correlation with the middle one. */
          r.correlation = k == 3 ? 4 * j + 3 : 4 * j + 1 + (k + j) % 3;
          r.name = name;
          r.stream = TS_STREAM_NONE;
          ts_recorder_append (rec, TS_RECORD_API_CALL, &r);
          expect (host0, TS_ITEM_API_CALL, r.start, r.end, n_api++, name);
        }
    }
  for (guint j = 0; j < n_back; j++)
    {
      TsApiCallRecord r = { 0 };

      r.start = 100000000 - 10 * (TsTime) j;
      r.end = r.start + 5;
      r.thread = 1;
      r.name = name;
      r.stream = TS_STREAM_NONE;
      ts_recorder_append (rec, TS_RECORD_API_CALL, &r);
      expect (host1, TS_ITEM_API_CALL, r.start, r.end, n_api++, name);
    }
  /* Syncs inside the middle calls, recorded after all the calls. */
  for (guint j = 0; j < n; j++)
    {
      TsSyncRecord r = { 0 };

      r.start = 1000 * (TsTime) j + 60;
      r.end = r.start + (j % 2 ? 10 : 0);
      r.stream = TS_STREAM_NONE;
      ts_recorder_append (rec, TS_RECORD_SYNC, &r);
      expect (host0, TS_ITEM_SYNC, r.start, r.end, j, 0);
    }
  /* Kernels, copies and memsets interleaved on one stream; a memset with
   * the span of a kernel goes after it (kind breaks the tie). */
  for (guint j = 0; j < n; j++)
    {
      TsTime base = 1000 * (TsTime) j + 200;
      TsKernelRecord kr = { 0 };
      TsMemcpyRecord cr = { 0 };
      TsMemsetRecord mr = { 0 };

      kr.start = base, kr.end = base + 50, kr.stream = 5, kr.name = kname;
      kr.correlation = 100000 + g_rand_int_range (rand, 0, 2 * n);
      ts_recorder_append (rec, TS_RECORD_KERNEL, &kr);
      expect (stream5, TS_ITEM_KERNEL, kr.start, kr.end, j, kname);

      cr.start = base + 50, cr.end = base + 60, cr.stream = 5, cr.kind = TS_COPY_HOST_TO_DEVICE;
      cr.correlation = 100000 + g_rand_int_range (rand, 0, 2 * n);
      ts_recorder_append (rec, TS_RECORD_MEMCPY, &cr);
      expect (stream5, TS_ITEM_MEMCPY, cr.start, cr.end, j, copy);

      mr.start = j % 3 ? base + 60 : base, mr.end = j % 3 ? base + 70 : base + 50, mr.stream = 5;
      mr.correlation = 100000 + g_rand_int_range (rand, 0, 2 * n);
      ts_recorder_append (rec, TS_RECORD_MEMSET, &mr);
      expect (stream5, TS_ITEM_MEMSET, mr.start, mr.end, j, fill);
    }

  doc = ts_trace_document_new (rec);
  g_assert_cmpuint (ts_trace_document_get_n_tracks (doc), ==, 3);
  check_track (doc, 0, host0);
  check_track (doc, 1, host1);
  check_track (doc, 2, stream5);
  g_assert_cmpuint (ts_trace_document_get_track (doc, 0)->max_depth, ==, 3);

  /* A shared correlation finds the first record that has it. */
  for (guint j = 0; j < n; j++)
    {
      g_assert_true (ts_trace_document_find_api_call (doc, 4 * j + 3, &record));
      g_assert_cmpuint (record, ==, 4 * j + (5 - j % 3) % 3);
      g_assert_false (ts_trace_document_find_api_call (doc, 4 * j + 4, &record));
    }
  for (guint c = 0; c < 2 * n; c++)
    {
      guint64 want = G_MAXUINT64;
      gboolean found;

      /* The smallest (kind, record) with the correlation wins. */
      for (TsItemKind k = TS_ITEM_KERNEL; k <= TS_ITEM_MEMSET && want == G_MAXUINT64; k++)
        {
          TsRecordKind rk = k == TS_ITEM_KERNEL ? TS_RECORD_KERNEL : k == TS_ITEM_MEMCPY ? TS_RECORD_MEMCPY : TS_RECORD_MEMSET;

          for (guint32 i = 0; i < n && want == G_MAXUINT64; i++)
            {
              TsKernelRecord r;

              G_STATIC_ASSERT (G_STRUCT_OFFSET (TsKernelRecord, correlation) == G_STRUCT_OFFSET (TsMemcpyRecord, correlation));
              G_STATIC_ASSERT (G_STRUCT_OFFSET (TsKernelRecord, correlation) == G_STRUCT_OFFSET (TsMemsetRecord, correlation));
              if (rk == TS_RECORD_KERNEL)
                ts_recorder_get (rec, rk, i, &r);
              else
                {
                  guint64 buf[TS_RECORD_MAX_SIZE / 8];
                  ts_recorder_get (rec, rk, i, buf);
                  memcpy (&r.correlation, (guint8 *) buf + G_STRUCT_OFFSET (TsKernelRecord, correlation), sizeof r.correlation);
                }
              if (r.correlation == 100000 + c)
                want = ((guint64) k << 32) | i;
            }
        }
      found = ts_trace_document_find_device_work (doc, 100000 + c, &kind, &record);
      g_assert_cmpint (found, ==, want != G_MAXUINT64);
      if (found)
        {
          g_assert_cmpuint (kind, ==, want >> 32);
          g_assert_cmpuint (record, ==, (guint32) want);
        }
    }
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
  g_test_add_func ("/document/out-of-order", test_out_of_order);
  return g_test_run ();
}
