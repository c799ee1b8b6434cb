/* test-hazards.c: cross-stream hazards from a trace's access records
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Small traces written straight into a recorder, one per ordering edge:
 * a kernel writes a buffer on the default stream (0), another reads it on
 * stream 4, and what comes between decides whether they are ordered. The
 * host's clock advances 1000 ns per call, as launches return.
 */

#include <glib.h>
#include <locale.h>

#include "ts-hazards.h"
#include "ts-recorder.h"

#define BUF   0x7f0000000000ull
#define SIZE  4096u
#define SIDE  4u

typedef struct
{
  TsRecorder *rec;
  TsTime      now;
  guint64     correlation;
} Trace;

static void
trace_init (Trace *t)
{
  TsStreamRecord s0 = { .stream = 0, .device = 0, .is_default = 1 };
  TsStreamRecord s4 = { .stream = SIDE, .device = 0, .handle = 0x1000 };

  t->rec = ts_recorder_new ();
  t->now = 0;
  t->correlation = 0;
  ts_recorder_append (t->rec, TS_RECORD_STREAM, &s0);
  ts_recorder_append (t->rec, TS_RECORD_STREAM, &s4);
}

static void
alloc (Trace     *t,
       guint32    action,
       guint64    addr,
       TsStreamId stream)
{
  TsAllocRecord a = { .time = t->now += 1000, .addr = addr, .size = SIZE, .requested = SIZE,
                      .stream = stream, .action = action };

  ts_recorder_append (t->rec, TS_RECORD_ALLOC, &a);
}

/* A kernel on stream touching [addr, addr + size); returns its correlation. */
static guint64
kernel (Trace      *t,
        const char *name,
        TsStreamId  stream,
        guint64     addr,
        guint64     size,
        guint32     mode)
{
  TsKernelRecord k = { .queued = t->now += 1000, .correlation = ++t->correlation, .stream = stream,
                       .name = ts_recorder_intern (t->rec, name) };
  TsApiCallRecord c = { .start = k.queued - 500, .end = k.queued, .correlation = k.correlation,
                        .name = k.name, .stream = TS_STREAM_NONE,
                        .loc = { ts_recorder_intern (t->rec, "race.py"), ts_recorder_intern (t->rec, "<module>"),
                                 (guint32) k.correlation } };
  TsAccessRecord x = { .time = k.queued, .correlation = k.correlation, .addr = addr, .size = size,
                       .stream = stream, .mode = mode };

  k.start = k.queued + 100;
  k.end = k.start + 5000;
  ts_recorder_append (t->rec, TS_RECORD_API_CALL, &c);
  ts_recorder_append (t->rec, TS_RECORD_KERNEL, &k);
  ts_recorder_append (t->rec, TS_RECORD_ACCESS, &x);
  return k.correlation;
}

static void
event_record (Trace     *t,
              guint64    event,
              TsStreamId stream)
{
  TsEventRecordRecord e = { .queued = t->now += 1000, .correlation = ++t->correlation, .event = event,
                            .stream = stream };

  ts_recorder_append (t->rec, TS_RECORD_EVENT_RECORD, &e);
}

static void
event_wait (Trace     *t,
            guint64    event,
            TsStreamId stream)
{
  TsEventWaitRecord w = { .queued = t->now += 1000, .correlation = ++t->correlation, .event = event,
                          .stream = stream };

  ts_recorder_append (t->rec, TS_RECORD_EVENT_WAIT, &w);
}

static void
sync (Trace     *t,
      guint32    kind,
      TsStreamId stream,
      guint64    event)
{
  TsSyncRecord s = { .start = t->now + 1, .end = t->now += 1000, .correlation = ++t->correlation,
                     .kind = kind, .device = kind == TS_SYNC_DEVICE ? 0 : -1, .stream = stream, .event = event };

  ts_recorder_append (t->rec, TS_RECORD_SYNC, &s);
}

static void
record_stream (Trace     *t,
               guint64    addr,
               TsStreamId stream)
{
  TsAccessRecord x = { .time = t->now, .addr = addr, .size = SIZE, .stream = stream,
                       .mode = TS_ACCESS_RECORD_STREAM };

  x.correlation = ts_recorder_get_count (t->rec, TS_RECORD_ALLOC);
  ts_recorder_append (t->rec, TS_RECORD_ACCESS, &x);
}

static guint
count (Trace *t)
{
  g_autoptr(GArray) hazards = ts_hazards_find (t->rec);

  g_clear_object (&t->rec);
  return hazards->len;
}

typedef enum
{
  EDGE_NONE,
  EDGE_EVENT_WAIT,
  EDGE_WAIT_BEFORE_RECORD,
  EDGE_WAIT_WRONG_STREAM_EVENT,
  EDGE_DEVICE_SYNC,
  EDGE_STREAM_SYNC,
  EDGE_OTHER_STREAM_SYNC,
  EDGE_EVENT_SYNC,
  EDGE_BLOCKING_COPY,
} Edge;

/* normal_ writes on the default stream, then the edge, then sum reads on
 * the side stream. */
static guint
write_then_read (Edge edge)
{
  Trace t;

  trace_init (&t);
  alloc (&t, TS_ALLOC_ACTION_ALLOC, BUF, 0);
  kernel (&t, "aten::normal_", 0, BUF, SIZE, TS_ACCESS_WRITE);
  switch (edge)
    {
    case EDGE_EVENT_WAIT: event_record (&t, 1, 0); event_wait (&t, 1, SIDE); break;
    case EDGE_WAIT_BEFORE_RECORD: event_wait (&t, 1, SIDE); event_record (&t, 1, 0); break;
    case EDGE_WAIT_WRONG_STREAM_EVENT: event_record (&t, 1, SIDE); event_wait (&t, 1, SIDE); break;
    case EDGE_DEVICE_SYNC: sync (&t, TS_SYNC_DEVICE, TS_STREAM_NONE, 0); break;
    case EDGE_STREAM_SYNC: sync (&t, TS_SYNC_STREAM, 0, 0); break;
    case EDGE_OTHER_STREAM_SYNC: sync (&t, TS_SYNC_STREAM, SIDE, 0); break;
    case EDGE_EVENT_SYNC: event_record (&t, 1, 0); sync (&t, TS_SYNC_EVENT, TS_STREAM_NONE, 1); break;
    case EDGE_BLOCKING_COPY: sync (&t, TS_SYNC_COPY, 0, 0); break;
    case EDGE_NONE:
    default:
      break;
    }
  kernel (&t, "aten::sum", SIDE, BUF, SIZE, TS_ACCESS_READ);
  return count (&t);
}

static void
test_edges (void)
{
  g_assert_cmpuint (write_then_read (EDGE_NONE), ==, 1);
  g_assert_cmpuint (write_then_read (EDGE_EVENT_WAIT), ==, 0);
  g_assert_cmpuint (write_then_read (EDGE_WAIT_BEFORE_RECORD), ==, 1);
  g_assert_cmpuint (write_then_read (EDGE_WAIT_WRONG_STREAM_EVENT), ==, 1);
  g_assert_cmpuint (write_then_read (EDGE_DEVICE_SYNC), ==, 0);
  g_assert_cmpuint (write_then_read (EDGE_STREAM_SYNC), ==, 0);
  g_assert_cmpuint (write_then_read (EDGE_OTHER_STREAM_SYNC), ==, 1);
  g_assert_cmpuint (write_then_read (EDGE_EVENT_SYNC), ==, 0);
  g_assert_cmpuint (write_then_read (EDGE_BLOCKING_COPY), ==, 0);
}

/* Reads never conflict; disjoint halves of one buffer neither; a write
 * after an unordered read does; stream order alone orders one stream. */
static void
test_access_kinds (void)
{
  Trace t;

  trace_init (&t);
  alloc (&t, TS_ALLOC_ACTION_ALLOC, BUF, 0);
  kernel (&t, "aten::sum", 0, BUF, SIZE, TS_ACCESS_READ);
  kernel (&t, "aten::sum", SIDE, BUF, SIZE, TS_ACCESS_READ);
  g_assert_cmpuint (count (&t), ==, 0);

  trace_init (&t);
  alloc (&t, TS_ALLOC_ACTION_ALLOC, BUF, 0);
  kernel (&t, "aten::fill_", 0, BUF, SIZE / 2, TS_ACCESS_WRITE);
  kernel (&t, "aten::fill_", SIDE, BUF + SIZE / 2, SIZE / 2, TS_ACCESS_WRITE);
  g_assert_cmpuint (count (&t), ==, 0);

  trace_init (&t);
  alloc (&t, TS_ALLOC_ACTION_ALLOC, BUF, 0);
  kernel (&t, "aten::sum", SIDE, BUF, SIZE, TS_ACCESS_READ);
  kernel (&t, "aten::fill_", 0, BUF + 8, 8, TS_ACCESS_WRITE);
  g_assert_cmpuint (count (&t), ==, 1);

  trace_init (&t);
  alloc (&t, TS_ALLOC_ACTION_ALLOC, BUF, 0);
  kernel (&t, "aten::fill_", 0, BUF, SIZE, TS_ACCESS_WRITE);
  kernel (&t, "aten::add_", 0, BUF, SIZE, TS_ACCESS_WRITE);
  kernel (&t, "aten::sum", 0, BUF, SIZE, TS_ACCESS_READ);
  g_assert_cmpuint (count (&t), ==, 0);
}

/* The race's two sides, and the words for it. */
static void
test_race_report (void)
{
  g_autoptr(GArray) hazards = NULL;
  g_autofree char *text = NULL;
  g_autofree char *title = NULL;
  const TsHazard *h;
  guint64 write, read;
  Trace t;

  trace_init (&t);
  alloc (&t, TS_ALLOC_ACTION_ALLOC, BUF, 0);
  write = kernel (&t, "aten::normal_", 0, BUF, SIZE, TS_ACCESS_WRITE);
  read = kernel (&t, "aten::sum", SIDE, BUF + 64, 128, TS_ACCESS_READ);
  hazards = ts_hazards_find (t.rec);
  g_assert_cmpuint (hazards->len, ==, 1);
  h = &g_array_index (hazards, TsHazard, 0);
  g_assert_cmpint (h->kind, ==, TS_HAZARD_RACE);
  g_assert_cmpuint (h->current.correlation, ==, read);
  g_assert_cmpuint (h->previous.correlation, ==, write);
  g_assert_cmpuint (h->current.stream, ==, SIDE);
  g_assert_cmpuint (h->previous.stream, ==, 0);
  g_assert_false (h->current.is_write);
  g_assert_true (h->previous.is_write);
  g_assert_cmpint (h->current.kind, ==, TS_RECORD_KERNEL);
  g_assert_cmpuint (h->current.record, ==, 1);
  g_assert_cmpuint (h->previous.record, ==, 0);
  g_assert_cmpuint (h->addr, ==, BUF + 64);
  g_assert_cmpuint (h->size, ==, 128);
  g_assert_cmpint (h->time, ==, 3100);
  g_assert_cmpuint (h->current.loc.line, ==, read);
  g_assert_cmpstr (ts_recorder_lookup (t.rec, h->current.op), ==, "aten::sum");
  text = ts_hazard_explain (h, t.rec);
  g_assert_cmpstr (text, ==,
                   "`sum` on stream 4 reads memory that `normal_` on the default stream writes, with nothing "
                   "ordering them. Fix: record an event after `normal_` and make stream 4 wait for it before "
                   "`sum` (s.wait_stream(torch.cuda.default_stream())).");
  title = ts_hazard_title (h, t.rec);
  g_assert_cmpstr (title, ==, "`sum` on stream 4 and `normal_` on the default stream");
  g_clear_object (&t.rec);
}

/* A block read on the side stream, freed and handed to the default
 * stream again: its new owner's write races with the old read, unless
 * record_stream told the allocator, or the host synchronized. */
static guint
reuse (gboolean recorded,
       gboolean synchronized)
{
  Trace t;

  trace_init (&t);
  alloc (&t, TS_ALLOC_ACTION_ALLOC, BUF, 0);
  kernel (&t, "aten::fill_", 0, BUF, SIZE, TS_ACCESS_WRITE);
  event_record (&t, 1, 0);
  event_wait (&t, 1, SIDE);
  kernel (&t, "aten::sum", SIDE, BUF, SIZE, TS_ACCESS_READ);
  if (recorded)
    record_stream (&t, BUF, SIDE);
  if (synchronized)
    sync (&t, TS_SYNC_DEVICE, TS_STREAM_NONE, 0);
  alloc (&t, TS_ALLOC_ACTION_FREE_REQUESTED, BUF, 0);
  alloc (&t, TS_ALLOC_ACTION_ALLOC, BUF, 0);
  kernel (&t, "aten::zero_", 0, BUF, SIZE, TS_ACCESS_WRITE);
  return count (&t);
}

static void
test_reuse (void)
{
  g_autoptr(GArray) hazards = NULL;
  Trace t;

  g_assert_cmpuint (reuse (FALSE, FALSE), ==, 1);
  g_assert_cmpuint (reuse (TRUE, FALSE), ==, 0);
  g_assert_cmpuint (reuse (FALSE, TRUE), ==, 0);

  /* the kind, and the fix it names */
  trace_init (&t);
  alloc (&t, TS_ALLOC_ACTION_ALLOC, BUF, 0);
  kernel (&t, "aten::sum", SIDE, BUF, SIZE, TS_ACCESS_READ);
  alloc (&t, TS_ALLOC_ACTION_FREE_REQUESTED, BUF, 0);
  alloc (&t, TS_ALLOC_ACTION_ALLOC, BUF, 0);
  kernel (&t, "aten::zero_", 0, BUF, SIZE, TS_ACCESS_READ);
  hazards = ts_hazards_find (t.rec);
  g_assert_cmpuint (hazards->len, ==, 1);
  g_assert_cmpint (g_array_index (hazards, TsHazard, 0).kind, ==, TS_HAZARD_REUSE);
  g_clear_object (&t.rec);
}

/* A trace from before format 2.1 has no access records: nothing to say. */
static void
test_no_access_records (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(GArray) hazards = ts_hazards_find (rec);

  g_assert_cmpuint (hazards->len, ==, 0);
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "C");
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hazards/edges", test_edges);
  g_test_add_func ("/hazards/access-kinds", test_access_kinds);
  g_test_add_func ("/hazards/race-report", test_race_report);
  g_test_add_func ("/hazards/reuse", test_reuse);
  g_test_add_func ("/hazards/no-access-records", test_no_access_records);
  return g_test_run ();
}
