/* test-scheduler.c: virtual-time behaviour of the simulated devices
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every time below follows from the H100 profile: a launch or copy costs the
 * host 4000 ns (launch_latency_ns), any other runtime call 500 ns
 * (api_latency_ns); a launched item becomes visible to the device when its
 * call returns. Kernels are given fixed durations so the arithmetic is
 * plain; the duration model itself is tested at the end.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-callsite.h"
#include "ts-scheduler-private.h"

#include "test-helpers-runtime.h"

#define LAUNCH 4000
#define API 500
#define ALL_SMS 132

static void
test_fifo_within_stream (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  guint64 k1 = launch (rt, 0, 10000, 1);
  guint64 k2 = launch (rt, 0, 10000, 1);
  guint64 k3 = launch (rt, 0, 1000, 1);
  TsKernelRecord r1, r2, r3;
  TsSyncRecord sync;

  sync_device (rt, 0);

  r1 = get_kernel (rt, k1);
  r2 = get_kernel (rt, k2);
  r3 = get_kernel (rt, k3);

  /* Same stream: each starts when the previous one ends, even though SMs
   * are free, and the short one cannot overtake. */
  g_assert_cmpint (r1.queued, ==, LAUNCH);
  g_assert_cmpint (r1.start, ==, LAUNCH);
  g_assert_cmpint (r1.end, ==, LAUNCH + 10000);
  g_assert_cmpint (r2.queued, ==, 2 * LAUNCH);
  g_assert_cmpint (r2.start, ==, r1.end);
  g_assert_cmpint (r2.end, ==, r1.end + 10000);
  g_assert_cmpint (r3.start, ==, r2.end);
  g_assert_cmpint (r3.end, ==, 25000);
  g_assert_cmpuint (r1.sms, ==, 1);

  /* The host blocked from the end of the sync call's own cost to the end of
   * the last kernel. */
  get_last (rt, TS_RECORD_SYNC, &sync);
  g_assert_cmpuint (sync.kind, ==, TS_SYNC_DEVICE);
  g_assert_cmpint (sync.start, ==, 3 * LAUNCH + API);
  g_assert_cmpint (sync.end, ==, 25000);
  g_assert_cmpint (ts_runtime_get_host_time (rt), ==, 25000);
}

static void
test_two_streams_overlap (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  TsStreamId s1 = new_stream (rt, 0, 0);
  TsStreamId s2 = new_stream (rt, 0, 0);
  guint64 k1, k2, k3, k4;
  TsKernelRecord r1, r2, r3, r4;

  g_assert_cmpuint (s1, !=, s2);

  /* Small kernels on two streams run side by side. */
  k1 = launch (rt, s1, 10000, 4);
  k2 = launch (rt, s2, 10000, 4);
  sync_device (rt, 0);
  r1 = get_kernel (rt, k1);
  r2 = get_kernel (rt, k2);
  g_assert_cmpint (r1.start, ==, LAUNCH);
  g_assert_cmpint (r2.start, ==, 2 * LAUNCH);
  g_assert_cmpint (r2.start, <, r1.end);

  /* Kernels that fill every SM cannot: the second waits for the SMs. */
  k3 = launch (rt, s1, 10000, 1000);
  k4 = launch (rt, s2, 10000, 1000);
  sync_device (rt, 0);
  r3 = get_kernel (rt, k3);
  r4 = get_kernel (rt, k4);
  g_assert_cmpuint (r3.sms, ==, ALL_SMS);
  g_assert_cmpint (r4.queued, ==, r3.queued + LAUNCH);
  g_assert_cmpint (r4.start, ==, r3.end);
}

static void
test_wait_event_orders (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  g_autoptr(GError) error = NULL;
  TsStreamId s1 = new_stream (rt, 0, 0);
  TsStreamId s2 = new_stream (rt, 0, 0);
  guint64 ev = ts_runtime_event_new (rt, TS_EVENT_DEFAULT);
  guint64 k1, k2;
  TsKernelRecord r1, r2;
  TsEventRecordRecord rec;
  TsEventWaitRecord wait;

  k1 = launch (rt, s1, 10000, 1);                         /* host 0 -> 4000 */
  g_assert_true (ts_runtime_event_record (rt, ev, s1, &error));   /* -> 4500 */
  g_assert_true (ts_runtime_stream_wait_event (rt, s2, ev, &error)); /* -> 5000 */
  g_assert_no_error (error);
  k2 = launch (rt, s2, 10000, 1);                         /* -> 9000 */
  sync_device (rt, 0);

  r1 = get_kernel (rt, k1);
  r2 = get_kernel (rt, k2);
  g_assert_cmpint (r1.end, ==, 14000);
  /* Without the wait k2 would start at 9000; it starts when k1 is done. */
  g_assert_cmpint (r2.queued, ==, 9000);
  g_assert_cmpint (r2.start, ==, 14000);

  get_last (rt, TS_RECORD_EVENT_RECORD, &rec);
  g_assert_cmpuint (rec.event, ==, ev);
  g_assert_cmpuint (rec.stream, ==, s1);
  g_assert_cmpint (rec.queued, ==, 4500);
  g_assert_cmpint (rec.time, ==, 14000);

  get_last (rt, TS_RECORD_EVENT_WAIT, &wait);
  g_assert_cmpuint (wait.stream, ==, s2);
  g_assert_cmpint (wait.queued, ==, 5000);
  g_assert_cmpint (wait.time, ==, 14000);
  g_assert_cmpuint (wait.record_correlation, ==, rec.correlation);
}

static void
test_wait_stream_orders (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  g_autoptr(GError) error = NULL;
  TsStreamId s1 = new_stream (rt, 0, 0);
  TsStreamId s2 = new_stream (rt, 0, 0);
  guint64 k1, k2, k3;
  TsKernelRecord r2, r3;

  k1 = launch (rt, s1, 20000, 1);                  /* [4000, 24000) */
  g_assert_true (ts_runtime_stream_wait_stream (rt, s2, s1, &error)); /* record + wait: 5000 */
  g_assert_no_error (error);
  k2 = launch (rt, s2, 1000, 1);                   /* queued 9000 */
  k3 = launch (rt, s1, 1000, 1);                   /* after k1 on s1 */
  sync_device (rt, 0);

  r2 = get_kernel (rt, k2);
  r3 = get_kernel (rt, k3);
  g_assert_cmpint (get_kernel (rt, k1).end, ==, 24000);
  g_assert_cmpint (r2.queued, ==, 9000);
  g_assert_cmpint (r2.start, ==, 24000);
  /* The wait covers only work submitted before it: k3 (later on s1) does
   * not delay k2, and both start at 24000 side by side. */
  g_assert_cmpint (r3.start, ==, 24000);
  g_assert_cmpuint (count_records (rt, TS_RECORD_EVENT_WAIT), ==, 1);
}

static void
test_cross_device_wait (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 2);
  g_autoptr(GError) error = NULL;
  guint64 ev = ts_runtime_event_new (rt, TS_EVENT_DEFAULT);
  guint64 k0, k1;

  k0 = launch (rt, 0, 30000, 1);                               /* dev 0: [4000, 34000) */
  g_assert_true (ts_runtime_event_record (rt, ev, 0, &error));  /* 4500 */
  g_assert_true (ts_runtime_event_wait (rt, ev, 1, &error));    /* dev 1 default: 5000 */
  g_assert_no_error (error);
  k1 = launch (rt, 1, 1000, 1);
  sync_device (rt, 1);

  g_assert_cmpint (get_kernel (rt, k0).end, ==, 34000);
  g_assert_cmpint (get_kernel (rt, k1).start, ==, 34000);
  g_assert_cmpuint (get_kernel (rt, k1).device, ==, 1);
  /* Synchronizing device 1 waited for device 0's kernel through the event. */
  g_assert_cmpint (ts_runtime_get_host_time (rt), ==, 35000);
}

static void
test_priorities_under_contention (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  TsStreamId low_a = new_stream (rt, 0, 0);
  TsStreamId low_b = new_stream (rt, 0, 0);
  TsStreamId high = new_stream (rt, 0, -1);
  guint64 l1, l2, h;
  TsKernelRecord rl2, rh;

  g_assert_cmpint (ts_runtime_stream_get_priority (rt, high), ==, -1);

  l1 = launch (rt, low_a, 10000, ALL_SMS);   /* runs [4000, 14000) */
  l2 = launch (rt, low_b, 10000, ALL_SMS);   /* ready at 8000, waits for SMs */
  h = launch (rt, high, 10000, ALL_SMS);     /* ready at 12000, waits for SMs */
  sync_device (rt, 0);

  rl2 = get_kernel (rt, l2);
  rh = get_kernel (rt, h);
  g_assert_cmpint (get_kernel (rt, l1).end, ==, 14000);
  /* When the SMs free up, the high-priority kernel goes first although the
   * low-priority one was ready earlier. */
  g_assert_cmpint (rh.start, ==, 14000);
  g_assert_cmpint (rl2.start, ==, 24000);
}

static void
test_equal_priorities_first_ready (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  TsStreamId a = new_stream (rt, 0, 0);
  TsStreamId b = new_stream (rt, 0, 0);
  TsStreamId c = new_stream (rt, 0, 0);
  guint64 k2, k3;

  launch (rt, a, 10000, ALL_SMS);
  k2 = launch (rt, b, 10000, ALL_SMS);   /* ready 8000 */
  k3 = launch (rt, c, 10000, ALL_SMS);   /* ready 12000 */
  sync_device (rt, 0);

  g_assert_cmpint (get_kernel (rt, k2).start, ==, 14000);
  g_assert_cmpint (get_kernel (rt, k3).start, ==, 24000);
}

static void
test_sm_sharing (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  TsStreamId a = new_stream (rt, 0, 0);
  TsStreamId b = new_stream (rt, 0, 0);
  TsStreamId c = new_stream (rt, 0, 0);
  guint64 k2, k3;

  /* 100 + 32 SMs fit together; a third kernel of 1 SM must wait. */
  launch (rt, a, 10000, 100);
  k2 = launch (rt, b, 10000, 32);
  k3 = launch (rt, c, 10000, 1);
  sync_device (rt, 0);

  g_assert_cmpint (get_kernel (rt, k2).start, ==, 8000);
  g_assert_cmpint (get_kernel (rt, k3).start, ==, 14000);
  g_assert_cmpuint (get_kernel (rt, k2).sms, ==, 32);
}

typedef struct
{
  int *src;
  int *dst;
  int  staged;
} CopyJob;

static TsDeviceError
copy_job_start (gpointer data)
{
  CopyJob *job = data;

  job->staged = *job->src;
  return TS_DEVICE_ERROR_NONE;
}

static void
copy_job_finish (gpointer data)
{
  CopyJob *job = data;

  *job->dst = job->staged;
}

static TsWork
copy_work (int *src,
           int *dst)
{
  CopyJob *job = g_new0 (CopyJob, 1);

  job->src = src;
  job->dst = dst;
  return (TsWork) { copy_job_start, copy_job_finish, g_free, job };
}

static void
test_stale_read_without_sync (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  g_autoptr(GError) error = NULL;
  TsStreamId s = new_stream (rt, 0, 0);
  int two = 2;
  int a = 1;
  int b = 0;
  guint64 ev;

  /* The seed's bug: a writer on the default stream, a reader on a side
   * stream with no synchronization. The reader starts before the writer
   * ends and sees the old value. */
  launch_full (rt, 0, 10000, 1, copy_work (&two, &a));    /* writes a=2 at 14000 */
  launch_full (rt, s, 1000, 1, copy_work (&a, &b));       /* reads a at 8000 */
  sync_device (rt, 0);
  g_assert_cmpint (a, ==, 2);
  g_assert_cmpint (b, ==, 1);

  /* Fixed with wait_event: the reader sees the new value. */
  a = 1;
  b = 0;
  ev = ts_runtime_event_new (rt, TS_EVENT_DEFAULT);
  launch_full (rt, 0, 10000, 1, copy_work (&two, &a));
  g_assert_true (ts_runtime_event_record (rt, ev, 0, &error));
  g_assert_true (ts_runtime_stream_wait_event (rt, s, ev, &error));
  g_assert_no_error (error);
  launch_full (rt, s, 1000, 1, copy_work (&a, &b));
  sync_device (rt, 0);
  g_assert_cmpint (b, ==, 2);
}

static void
test_pageable_copy_blocks_host (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  g_autoptr(GError) error = NULL;
  TsCopyDesc desc = {
    .kind = TS_COPY_HOST_TO_DEVICE,
    .src_device = -1,
    .dst_device = 0,
    .bytes = 20000000,         /* 1 ms at the 20 GB/s pageable rate */
    .stream = 0,
    .pinned = FALSE,
    .non_blocking = TRUE,      /* asked, but pageable memory cannot honour it */
  };
  guint64 corr;
  TsMemcpyRecord m;
  TsSyncRecord sync;

  corr = ts_runtime_memcpy (rt, &desc, &error);
  g_assert_no_error (error);
  m = get_memcpy (rt, corr);
  g_assert_cmpint (m.start, ==, LAUNCH);
  g_assert_cmpint (m.end, ==, LAUNCH + 1500 + 1000000);
  g_assert_cmpuint (m.flags, ==, TS_COPY_FLAG_ASYNC);
  /* The host returned only when the copy was done. */
  g_assert_cmpint (ts_runtime_get_host_time (rt), ==, m.end);
  get_last (rt, TS_RECORD_SYNC, &sync);
  g_assert_cmpuint (sync.kind, ==, TS_SYNC_COPY);
  g_assert_cmpint (sync.start, ==, LAUNCH);
  g_assert_cmpint (sync.end, ==, m.end);
}

static void
test_pinned_async_copy_does_not_block (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  g_autoptr(GError) error = NULL;
  TsCopyDesc desc = {
    .kind = TS_COPY_HOST_TO_DEVICE,
    .src_device = -1,
    .dst_device = 0,
    .bytes = 52000000,         /* 1 ms at the 52 GB/s pinned rate */
    .stream = 0,
    .pinned = TRUE,
    .non_blocking = TRUE,
  };
  guint64 corr;
  gboolean done = TRUE;

  corr = ts_runtime_memcpy (rt, &desc, &error);
  g_assert_no_error (error);
  g_assert_cmpint (ts_runtime_get_host_time (rt), ==, LAUNCH);
  g_assert_cmpuint (count_records (rt, TS_RECORD_SYNC), ==, 0);
  g_assert_true (ts_runtime_stream_query (rt, 0, &done, &error));
  g_assert_false (done);

  sync_device (rt, 0);
  g_assert_cmpint (get_memcpy (rt, corr).end, ==, LAUNCH + 1500 + 1000000);
  g_assert_cmpuint (get_memcpy (rt, corr).flags, ==, TS_COPY_FLAG_PINNED | TS_COPY_FLAG_ASYNC);

  /* Pinned but synchronous (non_blocking=False): the host waits. */
  desc.non_blocking = FALSE;
  corr = ts_runtime_memcpy (rt, &desc, &error);
  g_assert_no_error (error);
  g_assert_cmpint (ts_runtime_get_host_time (rt), ==, get_memcpy (rt, corr).end);
}

static void
test_copy_engines (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 2);
  g_autoptr(GError) error = NULL;
  TsStreamId a = new_stream (rt, 0, 0);
  TsStreamId b = new_stream (rt, 0, 0);
  TsStreamId c = new_stream (rt, 0, 0);
  TsCopyDesc h2d = { TS_COPY_HOST_TO_DEVICE, -1, 0, 52000000, a, TRUE, TRUE, { 0 } };
  TsCopyDesc h2d_b = { TS_COPY_HOST_TO_DEVICE, -1, 0, 52000000, b, TRUE, TRUE, { 0 } };
  TsCopyDesc d2h = { TS_COPY_DEVICE_TO_HOST, 0, -1, 52000000, c, TRUE, TRUE, { 0 } };
  TsCopyDesc peer = { TS_COPY_PEER, 0, 1, 360000000, 0, FALSE, FALSE, { 0 } };
  guint64 c1, c2, c3, c4, k;

  c1 = ts_runtime_memcpy (rt, &h2d, &error);     /* [4000, 1005500) */
  c2 = ts_runtime_memcpy (rt, &h2d_b, &error);   /* same engine: after c1 */
  c3 = ts_runtime_memcpy (rt, &d2h, &error);     /* the other direction: at once */
  c4 = ts_runtime_memcpy (rt, &peer, &error);    /* the peer engine; host goes on */
  g_assert_no_error (error);
  g_assert_cmpint (ts_runtime_get_host_time (rt), ==, 4 * LAUNCH);
  k = launch (rt, a, 1000, 1);                   /* compute overlaps with copies */
  sync_device (rt, 0);

  g_assert_cmpint (get_memcpy (rt, c1).start, ==, LAUNCH);
  g_assert_cmpint (get_memcpy (rt, c2).start, ==, get_memcpy (rt, c1).end);
  g_assert_cmpint (get_memcpy (rt, c3).start, ==, 3 * LAUNCH);
  g_assert_cmpint (get_memcpy (rt, c4).start, ==, 4 * LAUNCH);
  g_assert_cmpint (get_memcpy (rt, c4).end, ==, 4 * LAUNCH + 1500 + 1000000);
  g_assert_cmpint (get_memcpy (rt, c4).src_device, ==, 0);
  g_assert_cmpint (get_memcpy (rt, c4).dst_device, ==, 1);
  g_assert_cmpuint (get_memcpy (rt, c4).kind, ==, TS_COPY_PEER);
  /* k is FIFO behind c1 on stream a, not behind the copy engines. */
  g_assert_cmpint (get_kernel (rt, k).start, ==, get_memcpy (rt, c1).end);
}

static void
test_two_engines_share_peer (void)
{
  /* The 1080 Ti has two copy engines: peer copies share the D2H one. */
  g_autoptr(TsRuntime) rt = make_runtime ("gtx1080ti", 2);
  g_autoptr(GError) error = NULL;
  TsStreamId a = new_stream (rt, 0, 0);
  TsCopyDesc d2h = { TS_COPY_DEVICE_TO_HOST, 0, -1, 12000000, a, TRUE, TRUE, { 0 } };
  TsCopyDesc peer = { TS_COPY_PEER, 0, 1, 10000000, 0, FALSE, FALSE, { 0 } };
  guint64 c1, c2;

  c1 = ts_runtime_memcpy (rt, &d2h, &error);
  c2 = ts_runtime_memcpy (rt, &peer, &error);
  g_assert_no_error (error);
  sync_device (rt, 0);

  g_assert_cmpint (get_memcpy (rt, c1).end, ==, LAUNCH + 2000 + 1000000);
  g_assert_cmpint (get_memcpy (rt, c2).start, ==, get_memcpy (rt, c1).end);
}

static void
test_memset_and_d2d_use_sms (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  g_autoptr(GError) error = NULL;
  TsStreamId s = new_stream (rt, 0, 0);
  TsMemsetDesc ms = { .stream = 0, .bytes = 3000000000, .value = 0 };
  TsCopyDesc d2d = { TS_COPY_DEVICE_TO_DEVICE, 0, 0, 1500000000, 0, FALSE, FALSE, { 0 } };
  TsMemsetRecord mrec;
  guint64 corr, k;

  /* 3 GB written at 3 TB/s on every SM: 1 ms plus the kernel overhead. */
  corr = ts_runtime_memset (rt, &ms, &error);
  g_assert_no_error (error);
  k = launch (rt, s, 1000, 1);
  sync_device (rt, 0);
  get_last (rt, TS_RECORD_MEMSET, &mrec);
  g_assert_cmpuint (mrec.correlation, ==, corr);
  g_assert_cmpint (mrec.start, ==, LAUNCH);
  g_assert_cmpint (mrec.end, ==, LAUNCH + 2500 + 1000000);
  /* The memset holds every SM: the side stream's kernel waits. */
  g_assert_cmpint (get_kernel (rt, k).start, ==, mrec.end);

  /* A same-device copy reads and writes each byte. */
  corr = ts_runtime_memcpy (rt, &d2d, &error);
  g_assert_no_error (error);
  sync_device (rt, 0);
  g_assert_cmpint (get_memcpy (rt, corr).end - get_memcpy (rt, corr).start, ==, 2500 + 1000000);
}

static void
test_duration_model (void)
{
  const TsGpuProfile *h100 = ts_gpu_profile_lookup ("h100");
  const TsGpuProfile *gtx = ts_gpu_profile_lookup ("gtx1080ti");
  TsKernelDesc desc = { .grid = { 132, 1, 1 }, .bytes = 3000000000 };
  guint32 sms = 0;

  /* Bandwidth-bound on the whole device. */
  g_assert_cmpint (ts_scheduler_kernel_duration (h100, &desc, &sms), ==, 2500 + 1000000);
  g_assert_cmpuint (sms, ==, 132);

  /* Half the SMs, half the bandwidth. */
  desc.grid[0] = 66;
  g_assert_cmpint (ts_scheduler_kernel_duration (h100, &desc, &sms), ==, 2500 + 2000000);
  g_assert_cmpuint (sms, ==, 66);

  /* Compute-bound: 67 TFLOP at FP32 is one second; FP16 is faster. */
  desc = (TsKernelDesc) { .grid = { 100000, 1, 1 }, .flops = 67000000000000 };
  g_assert_cmpint (ts_scheduler_kernel_duration (h100, &desc, &sms), ==, 2500 + 1000000000);
  desc.precision = TS_PRECISION_FP16;
  g_assert_cmpint (ts_scheduler_kernel_duration (h100, &desc, &sms), ==,
                   2500 + (TsTime) ceil (67e12 * 1e9 / 798e12));
  /* Without tensor cores FP16 is 64 times slower than FP32. */
  desc.flops = 11300000000000 / 64;
  g_assert_cmpint (ts_scheduler_kernel_duration (gtx, &desc, &sms), ==, 4000 + 1000000000);
  g_assert_cmpuint (sms, ==, 28);
  /* ... and FP64 32 times. */
  desc.precision = TS_PRECISION_FP64;
  desc.flops = 11300000000000 / 32;
  g_assert_cmpint (ts_scheduler_kernel_duration (gtx, &desc, &sms), ==, 4000 + 1000000000);

  /* An empty kernel costs the overhead; a given duration wins. */
  desc = (TsKernelDesc) { 0 };
  g_assert_cmpint (ts_scheduler_kernel_duration (h100, &desc, &sms), ==, 2500);
  g_assert_cmpuint (sms, ==, 1);
  desc.duration = 7;
  g_assert_cmpint (ts_scheduler_kernel_duration (h100, &desc, &sms), ==, 7);
}

/* A workload touching every kind of record. */
static TsRecorder *
run_workload (void)
{
  TsRecorder *recorder = ts_recorder_new ();
  TsRuntimeOptions options = { .gpu_model = "h100", .n_gpus = 2 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRuntime) rt = ts_runtime_new (&options, recorder, &error);
  TsSourceLoc loc = { ts_recorder_intern (recorder, "w.py"), ts_recorder_intern (recorder, "main"), 7 };
  TsStreamId s1 = new_stream (rt, 0, -1);
  TsStreamId s2 = new_stream (rt, 1, 0);
  guint64 e1 = ts_runtime_event_new (rt, TS_EVENT_TIMING);
  guint64 e2 = ts_runtime_event_new (rt, TS_EVENT_TIMING);
  TsCopyDesc h2d = { TS_COPY_HOST_TO_DEVICE, -1, 0, 1 << 20, 0, TRUE, TRUE, { 0 } };
  TsCopyDesc p2p = { TS_COPY_PEER, 0, 1, 1 << 22, s2, FALSE, FALSE, { 0 } };
  TsMemsetDesc ms = { s1, 4096, 0, { 0 } };
  double ms_elapsed;
  guint64 span;

  ts_callsite_set (&loc);
  ts_runtime_nvtx_range_push (rt, "step");
  g_assert_true (ts_runtime_event_record (rt, e1, 0, &error));
  ts_runtime_memcpy (rt, &h2d, &error);
  for (guint i = 0; i < 50; i++)
    {
      TsKernelDesc k = { .name = i % 2 ? "odd" : "even", .grid = { 1 + i * 7, 1, 1 },
                         .bytes = 100000 * i, .flops = 1000000 * i };

      loc.line = 10 + i;
      ts_callsite_set (&loc);
      span = ts_runtime_api_begin (rt, "aten::add", 0, i % 3 ? 0 : s1);
      ts_runtime_launch_kernel (rt, i % 3 ? 0 : s1, &k, &error);
      ts_runtime_host_advance (rt, 700);
      ts_runtime_api_end (rt, span);
      ts_runtime_nvtx_mark (rt, "tick");
    }
  ts_runtime_memset (rt, &ms, &error);
  ts_runtime_stream_wait_stream (rt, s2, s1, &error);
  ts_runtime_memcpy (rt, &p2p, &error);
  g_assert_true (ts_runtime_event_record (rt, e2, 0, &error));
  g_assert_true (ts_runtime_event_synchronize (rt, e2, &error));
  g_assert_true (ts_runtime_event_elapsed_time (rt, e1, e2, &ms_elapsed, &error));
  g_assert_no_error (error);
  ts_runtime_nvtx_range_pop (rt);
  sync_device (rt, 1);
  ts_callsite_set (NULL);

  return recorder;
}

static void
assert_recorders_equal (TsRecorder *a,
                        TsRecorder *b)
{
  guint64 ra[TS_RECORD_MAX_SIZE / 8];
  guint64 rb[TS_RECORD_MAX_SIZE / 8];

  g_assert_cmpuint (ts_recorder_get_n_strings (a), ==, ts_recorder_get_n_strings (b));
  for (guint i = 0; i < ts_recorder_get_n_strings (a); i++)
    g_assert_cmpstr (ts_recorder_lookup (a, i), ==, ts_recorder_lookup (b, i));

  for (guint kind = 0; kind < TS_N_RECORD_KINDS; kind++)
    {
      gsize size = ts_record_info (kind)->struct_size;

      g_assert_cmpuint (ts_recorder_get_count (a, kind), ==, ts_recorder_get_count (b, kind));
      for (gsize i = 0; i < ts_recorder_get_count (a, kind); i++)
        {
          memset (ra, 0, sizeof ra);
          memset (rb, 0, sizeof rb);
          ts_recorder_get (a, kind, i, ra);
          ts_recorder_get (b, kind, i, rb);
          g_assert_cmpmem (ra, size, rb, size);
        }
    }
}

static void
test_determinism (void)
{
  g_autoptr(TsRecorder) a = run_workload ();
  g_autoptr(TsRecorder) b = run_workload ();

  /* Not a vacuous comparison: the workload recorded real work. */
  g_assert_cmpuint (ts_recorder_get_count (a, TS_RECORD_KERNEL), ==, 50);
  g_assert_cmpuint (ts_recorder_get_count (a, TS_RECORD_MEMCPY), ==, 2);
  g_assert_cmpuint (ts_recorder_get_count (a, TS_RECORD_MEMSET), ==, 1);
  g_assert_cmpuint (ts_recorder_get_count (a, TS_RECORD_EVENT_WAIT), ==, 1);
  g_assert_cmpuint (ts_recorder_get_count (a, TS_RECORD_NVTX), ==, 52);
  g_assert_cmpuint (ts_recorder_get_count (a, TS_RECORD_SYNC), ==, 2);

  assert_recorders_equal (a, b);
}

/* ---------------------------------------------------------------- invariants */

typedef struct
{
  guint64    correlation;
  TsStreamId stream;
  guint32    device;
  guint32    sms;          /* compute items; 0 for copies and markers */
  gint32     lane;         /* copy engine, or -1 */
  TsTime     queued;
  TsTime     start;
  TsTime     end;
} Span;

static int
compare_span (gconstpointer a,
              gconstpointer b)
{
  const Span *x = a;
  const Span *y = b;

  if (x->stream != y->stream)
    return x->stream < y->stream ? -1 : 1;
  return x->correlation < y->correlation ? -1 : x->correlation > y->correlation;
}

static GArray *
collect_spans (TsRecorder *rec)
{
  GArray *spans = g_array_new (FALSE, FALSE, sizeof (Span));

  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_KERNEL); i++)
    {
      TsKernelRecord r;
      Span s;

      ts_recorder_get (rec, TS_RECORD_KERNEL, i, &r);
      s = (Span) { r.correlation, r.stream, r.device, r.sms, -1, r.queued, r.start, r.end };
      g_array_append_val (spans, s);
    }
  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_MEMSET); i++)
    {
      TsMemsetRecord r;
      Span s;

      ts_recorder_get (rec, TS_RECORD_MEMSET, i, &r);
      s = (Span) { r.correlation, r.stream, r.device, 132, -1, r.queued, r.start, r.end };
      if (r.bytes < 132 * 65536)
        s.sms = (guint32) ((r.bytes + 65535) / 65536);
      g_array_append_val (spans, s);
    }
  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_MEMCPY); i++)
    {
      TsMemcpyRecord r;
      Span s;

      ts_recorder_get (rec, TS_RECORD_MEMCPY, i, &r);
      s = (Span) { r.correlation, r.stream, r.device, 0, (gint32) r.kind, r.queued, r.start, r.end };
      g_array_append_val (spans, s);
    }
  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_EVENT_RECORD); i++)
    {
      TsEventRecordRecord r;
      Span s;

      ts_recorder_get (rec, TS_RECORD_EVENT_RECORD, i, &r);
      s = (Span) { r.correlation, r.stream, r.device, 0, -1, r.queued, r.time, r.time };
      g_array_append_val (spans, s);
    }
  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_EVENT_WAIT); i++)
    {
      TsEventWaitRecord r;
      Span s;

      ts_recorder_get (rec, TS_RECORD_EVENT_WAIT, i, &r);
      s = (Span) { r.correlation, r.stream, r.device, 0, -1, r.queued, r.time, r.time };
      g_array_append_val (spans, s);
    }

  g_array_sort (spans, compare_span);
  return spans;
}

static void
test_random_invariants (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 3);
  g_autoptr(GError) error = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (20260101);
  g_autoptr(GArray) spans = NULL;
  TsRecorder *rec = ts_runtime_get_recorder (rt);
  TsStreamId streams[12];
  guint64 events[8];
  guint n_work = 0;
  guint n_streams = 0;
  guint n_delayed = 0;
  guint max_used = 0;

  for (guint d = 0; d < 3; d++)
    {
      streams[n_streams++] = d;
      for (int p = 0; p < 3; p++)
        streams[n_streams++] = new_stream (rt, (int) d, -p);
    }
  for (guint i = 0; i < G_N_ELEMENTS (events); i++)
    events[i] = ts_runtime_event_new (rt, TS_EVENT_TIMING);

  for (guint op = 0; op < 3000; op++)
    {
      TsStreamId s = streams[g_rand_int_range (rand, 0, n_streams)];
      int dev = ts_runtime_stream_get_device (rt, s);
      guint choice = (guint) g_rand_int_range (rand, 0, 100);

      if (choice < 45)
        {
          launch (rt, s, g_rand_int_range (rand, 1000, 60000), (guint32) g_rand_int_range (rand, 1, 200));
          n_work++;
        }
      else if (choice < 52)
        {
          TsMemsetDesc ms = { s, (guint64) g_rand_int_range (rand, 1, 20000000), 0, { 0 } };

          g_assert_cmpuint (ts_runtime_memset (rt, &ms, &error), !=, 0);
          n_work++;
        }
      else if (choice < 62)
        {
          gboolean h2d = g_rand_boolean (rand);
          TsCopyDesc c = {
            h2d ? TS_COPY_HOST_TO_DEVICE : TS_COPY_DEVICE_TO_HOST,
            h2d ? -1 : dev, h2d ? dev : -1,
            (guint64) g_rand_int_range (rand, 1, 5000000), s, TRUE, TRUE, { 0 }
          };

          g_assert_cmpuint (ts_runtime_memcpy (rt, &c, &error), !=, 0);
          n_work++;
        }
      else if (choice < 67)
        {
          TsCopyDesc c = { TS_COPY_PEER, dev, (dev + 1) % 3,
                           (guint64) g_rand_int_range (rand, 1, 50000000), s, FALSE, FALSE, { 0 } };

          g_assert_cmpuint (ts_runtime_memcpy (rt, &c, &error), !=, 0);
          n_work++;
        }
      else if (choice < 80)
        {
          guint64 ev = events[g_rand_int_range (rand, 0, G_N_ELEMENTS (events))];
          int ev_dev = ts_runtime_event_get_device (rt, ev);

          /* Events stay on the device of their first record. */
          if (ev_dev == -1 || ev_dev == dev)
            g_assert_true (ts_runtime_event_record (rt, ev, s, &error));
        }
      else if (choice < 92)
        {
          g_assert_true (ts_runtime_stream_wait_event (rt, s, events[g_rand_int_range (rand, 0, 8)], &error));
        }
      else if (choice < 97)
        {
          ts_runtime_host_advance (rt, g_rand_int_range (rand, 0, 20000));
        }
      else if (choice < 99)
        {
          g_assert_true (ts_runtime_stream_synchronize (rt, s, &error));
        }
      else
        {
          sync_device (rt, dev);
        }
      g_assert_no_error (error);
    }

  for (int d = 0; d < 3; d++)
    sync_device (rt, d);

  /* Everything ran. */
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_KERNEL) +
                    ts_recorder_get_count (rec, TS_RECORD_MEMSET) +
                    ts_recorder_get_count (rec, TS_RECORD_MEMCPY), ==, n_work);

  spans = collect_spans (rec);

  /* FIFO per stream, and nothing before its submitting call returned. */
  for (guint i = 0; i < spans->len; i++)
    {
      const Span *cur = &g_array_index (spans, Span, i);

      g_assert_cmpint (cur->start, >=, cur->queued);
      g_assert_cmpint (cur->end, >=, cur->start);
      if (i > 0 && g_array_index (spans, Span, i - 1).stream == cur->stream)
        g_assert_cmpint (cur->start, >=, g_array_index (spans, Span, i - 1).end);
    }

  /* A wait releases its stream no earlier than the record it waited for. */
  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_EVENT_WAIT); i++)
    {
      TsEventWaitRecord w;

      ts_recorder_get (rec, TS_RECORD_EVENT_WAIT, i, &w);
      for (guint j = 0; j < spans->len; j++)
        {
          const Span *r = &g_array_index (spans, Span, j);

          if (r->correlation == w.record_correlation)
            g_assert_cmpint (w.time, >=, r->end);
        }
      if (w.time > w.queued)
        n_delayed++;
    }

  /* SMs never oversubscribed, copy engines never shared: check at every
   * start, where usage can only have grown. */
  for (guint i = 0; i < spans->len; i++)
    {
      const Span *a = &g_array_index (spans, Span, i);
      guint used = 0;

      if (a->end == a->start)
        continue;

      for (guint j = 0; j < spans->len; j++)
        {
          const Span *b = &g_array_index (spans, Span, j);

          if (b->device != a->device || b->start > a->start || b->end <= a->start || b->end == b->start)
            continue;
          if (a->lane < 0)
            used += b->sms;
          else if (j != i && b->lane == a->lane)
            g_assert_not_reached ();
        }
      g_assert_cmpuint (used, <=, 132);
      max_used = MAX (max_used, used);
    }

  /* Not vacuous: kernels did share the device, waits did hold streams. */
  g_test_message ("%u spans, %" G_GSIZE_FORMAT " waits, %u delayed, peak %u SMs",
                  spans->len, ts_recorder_get_count (rec, TS_RECORD_EVENT_WAIT), n_delayed, max_used);
  g_assert_cmpuint (max_used, >, 100);
  g_assert_cmpuint (n_delayed, >, 10);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/scheduler/fifo-within-stream", test_fifo_within_stream);
  g_test_add_func ("/scheduler/two-streams-overlap", test_two_streams_overlap);
  g_test_add_func ("/scheduler/wait-event", test_wait_event_orders);
  g_test_add_func ("/scheduler/wait-stream", test_wait_stream_orders);
  g_test_add_func ("/scheduler/cross-device-wait", test_cross_device_wait);
  g_test_add_func ("/scheduler/priorities", test_priorities_under_contention);
  g_test_add_func ("/scheduler/equal-priorities", test_equal_priorities_first_ready);
  g_test_add_func ("/scheduler/sm-sharing", test_sm_sharing);
  g_test_add_func ("/scheduler/stale-read", test_stale_read_without_sync);
  g_test_add_func ("/scheduler/pageable-copy-blocks", test_pageable_copy_blocks_host);
  g_test_add_func ("/scheduler/pinned-async-copy", test_pinned_async_copy_does_not_block);
  g_test_add_func ("/scheduler/copy-engines", test_copy_engines);
  g_test_add_func ("/scheduler/two-copy-engines", test_two_engines_share_peer);
  g_test_add_func ("/scheduler/memset-d2d-sms", test_memset_and_d2d_use_sms);
  g_test_add_func ("/scheduler/duration-model", test_duration_model);
  g_test_add_func ("/scheduler/determinism", test_determinism);
  g_test_add_func ("/scheduler/random-invariants", test_random_invariants);

  return g_test_run ();
}
