/* bench-hazards.c: the hazard replay of a trace's access records
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A producer/consumer loop written straight into a recorder: per step a
 * kernel on the default stream writes one of 64 buffers, an event is
 * recorded and waited for on a side stream, a kernel there reads the
 * buffer and writes a result, another event orders the default stream
 * after it, and every 1,000 steps the host synchronizes.
 * Times ts_hazards_find() (what the timeline and `report` pay once per
 * trace): the median and min of REPEATS runs, at 100,000 and 1,000,000
 * steps (TS_BENCH_STEPS=N for one size only). It finds no hazard (without
 * the second event it finds 936 per 1,000 steps: the default stream
 * overwrites a buffer 64 steps after s4 read it).
 */

#include <stdio.h>
#include <stdlib.h>

#include "ts-hazards.h"

#include "bench-util.h"

#define REPEATS  5
#define BUFFERS  64
#define BUF_SIZE 4096

static void
add_kernel (TsRecorder *rec,
            TsTime     *now,
            guint64     correlation,
            TsStreamId  stream,
            guint64     addr,
            guint32     mode,
            guint64     out)
{
  TsKernelRecord k = { .queued = *now += 1000, .correlation = correlation, .stream = stream };
  TsAccessRecord a = { .time = k.queued, .correlation = correlation, .addr = addr, .size = BUF_SIZE,
                       .stream = stream, .mode = mode };

  k.start = k.queued + 100;
  k.end = k.start + 500;
  ts_recorder_append (rec, TS_RECORD_KERNEL, &k);
  ts_recorder_append (rec, TS_RECORD_ACCESS, &a);
  if (out != 0)
    {
      a.addr = out;
      a.mode = TS_ACCESS_WRITE;
      ts_recorder_append (rec, TS_RECORD_ACCESS, &a);
    }
}

static TsRecorder *
loop_trace (guint n_steps)
{
  TsRecorder *rec = ts_recorder_new ();
  TsStreamRecord s0 = { .stream = 0, .is_default = 1 }, s4 = { .stream = 4, .handle = 1 };
  guint64 correlation = 0;
  TsTime now = 0;

  ts_recorder_append (rec, TS_RECORD_STREAM, &s0);
  ts_recorder_append (rec, TS_RECORD_STREAM, &s4);
  for (guint b = 0; b <= BUFFERS; b++)
    {
      TsAllocRecord a = { .time = now += 10, .addr = 0x7f0000000000ull + b * BUF_SIZE, .size = BUF_SIZE,
                          .action = TS_ALLOC_ACTION_ALLOC };

      ts_recorder_append (rec, TS_RECORD_ALLOC, &a);
    }
  for (guint i = 0; i < n_steps; i++)
    {
      guint64 buf = 0x7f0000000000ull + (i % BUFFERS) * BUF_SIZE;
      TsEventRecordRecord er = { .event = 1, .stream = 0 };
      TsEventWaitRecord ew = { .event = 1, .stream = 4 };

      add_kernel (rec, &now, ++correlation, 0, buf, TS_ACCESS_WRITE, 0);
      er.queued = now += 1000;
      er.correlation = ++correlation;
      ts_recorder_append (rec, TS_RECORD_EVENT_RECORD, &er);
      ew.queued = now += 1000;
      ew.correlation = ++correlation;
      ts_recorder_append (rec, TS_RECORD_EVENT_WAIT, &ew);
      add_kernel (rec, &now, ++correlation, 4, buf, TS_ACCESS_READ, 0x7f0000000000ull + BUFFERS * BUF_SIZE);
      /* and back: the default stream overwrites buffers s4 read */
      er = (TsEventRecordRecord) { .queued = now += 1000, .correlation = ++correlation, .event = 2, .stream = 4 };
      ts_recorder_append (rec, TS_RECORD_EVENT_RECORD, &er);
      ew = (TsEventWaitRecord) { .queued = now += 1000, .correlation = ++correlation, .event = 2, .stream = 0 };
      ts_recorder_append (rec, TS_RECORD_EVENT_WAIT, &ew);
      if (i % 1000 == 999)
        {
          TsSyncRecord s = { .start = now + 1, .end = now += 1000, .kind = TS_SYNC_DEVICE, .device = -1 };

          ts_recorder_append (rec, TS_RECORD_SYNC, &s);
        }
    }
  return rec;
}

static void
run (guint n_steps)
{
  g_autoptr(TsRecorder) rec = loop_trace (n_steps);
  double s[REPEATS];
  guint n_hazards = 0;

  for (guint i = 0; i < REPEATS; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr(GArray) hazards = ts_hazards_find (rec);

      s[i] = (g_get_monotonic_time () - t0) / 1e6;
      n_hazards = hazards->len;
    }
  bench_sort (s, REPEATS);
  printf ("%8u steps %9" G_GSIZE_FORMAT " access records %u hazards   median %.3f s   min %.3f s\n",
          n_steps, ts_recorder_get_count (rec, TS_RECORD_ACCESS), n_hazards, s[REPEATS / 2], s[0]);
}

int
main (int    argc,
      char **argv)
{
  const char *env = g_getenv ("TS_BENCH_STEPS");

  printf ("ts_hazards_find() on a producer/consumer loop over two streams, %d runs each\n", REPEATS);
  if (env != NULL)
    run ((guint) g_ascii_strtoull (env, NULL, 10));
  else
    {
      run (100000);
      run (1000000);
    }
  return 0;
}
