/* test-cupti-translate.c: CUPTI activity buffers to our records
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Builds activity buffers by hand from the CUPTI headers' structs, as CUPTI
 * lays them out, and checks the records the translator makes, field by
 * field. Needs the headers only: no libcupti, no GPU.
 */

#include "config.h"

#include <string.h>

#include "ts-cupti-translate.h"

#define BASE G_GUINT64_CONSTANT (1000000000)

typedef struct
{
  guint8 *data;
  gsize   len;
  gsize   cap;
} Buffer;

static void
buffer_add (Buffer     *buf,
            const void *record,
            gsize       size)
{
  gsize padded = (size + 7) & ~(gsize)7;

  if (buf->len + padded > buf->cap)
    {
      buf->cap = MAX (buf->cap * 2, buf->len + padded + 256);
      buf->data = g_realloc (buf->data, buf->cap);
    }
  memset (buf->data + buf->len, 0, padded);
  memcpy (buf->data + buf->len, record, size);
  buf->len += padded;
}

static void
add_api_call (TsCuptiTranslator *tr,
              TsRecorder        *rec,
              const char        *name,
              guint64            correlation,
              TsTime             start,
              guint32            thread)
{
  TsApiCallRecord api = { 0 };

  api.start = start;
  api.end = start + 5;
  api.correlation = correlation;
  api.thread = thread;
  api.name = ts_recorder_intern (rec, name);
  api.device = 0;
  api.stream = TS_STREAM_NONE;
  ts_cupti_translator_add_api_call (tr, &api);
}

static void
add_context (Buffer *buf)
{
  CUpti_ActivityContext3 c;

  memset (&c, 0, sizeof c);
  c.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  c.contextId = 1;
  c.deviceId = 0;
  c.nullStreamId = 7;
  buffer_add (buf, &c, sizeof c);
}

static void
add_device (Buffer *buf)
{
  CUpti_ActivityDevice5 d;

  memset (&d, 0, sizeof d);
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = 0;
  d.name = "NVIDIA H100 80GB HBM3";
  d.numMultiprocessors = 132;
  d.computeCapabilityMajor = 9;
  d.computeCapabilityMinor = 0;
  d.globalMemorySize = G_GUINT64_CONSTANT (85029158912);
  buffer_add (buf, &d, sizeof d);
}

static void
add_stream (Buffer *buf)
{
  CUpti_ActivityStream s;

  memset (&s, 0, sizeof s);
  s.kind = CUPTI_ACTIVITY_KIND_STREAM;
  s.contextId = 1;
  s.streamId = 13;
  s.priority = (uint32_t)-1;
  buffer_add (buf, &s, sizeof s);
}

static void
add_kernel (Buffer     *buf,
            guint32     stream,
            guint32     correlation,
            guint64     start,
            const char *name)
{
  CUpti_ActivityKernel10 k;

  memset (&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = BASE + start;
  k.end = BASE + start + 1500;
  k.deviceId = 0;
  k.contextId = 1;
  k.streamId = stream;
  k.gridX = 1024;
  k.gridY = 2;
  k.gridZ = 1;
  k.blockX = 256;
  k.blockY = 1;
  k.blockZ = 1;
  k.correlationId = correlation;
  k.name = name;
  buffer_add (buf, &k, sizeof k);
}

static void
test_kernels_streams_devices (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  TsCuptiTranslator *tr = ts_cupti_translator_new (rec, BASE);
  Buffer buf = { 0 };
  TsKernelRecord k;
  TsStreamRecord s;
  TsDeviceRecord d;
  TsCuptiStats stats;

  add_api_call (tr, rec, "cudaLaunchKernel", 41, 100, 0);
  add_api_call (tr, rec, "cudaLaunchKernel", 42, 200, 1);
  add_context (&buf);
  add_device (&buf);
  add_stream (&buf);
  add_kernel (&buf, 7, 41, 1000, "vectorAdd");
  add_kernel (&buf, 13, 42, 3000, "_Z6reducePfi");
  add_kernel (&buf, 7, 99, 6000, "orphan");

  g_assert_cmpuint (ts_cupti_translator_translate_buffer (tr, buf.data, buf.len, NULL), ==, 6);

  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_DEVICE), ==, 1);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_DEVICE, 0, &d));
  g_assert_cmpuint (d.index, ==, 0);
  g_assert_cmpstr (ts_recorder_lookup (rec, d.name), ==, "NVIDIA H100 80GB HBM3");
  g_assert_cmpuint (d.sm_count, ==, 132);
  g_assert_cmpuint (d.cc_major, ==, 9);
  g_assert_cmpuint (d.cc_minor, ==, 0);
  g_assert_cmpuint (d.total_memory, ==, G_GUINT64_CONSTANT (85029158912));

  /* Two streams, announced at first use: the context's null stream is the
   * default one; the created stream keeps its priority. */
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_STREAM), ==, 2);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_STREAM, 0, &s));
  g_assert_cmpuint (s.stream, ==, 0);
  g_assert_cmpuint (s.device, ==, 0);
  g_assert_cmpuint (s.is_default, ==, 1);
  g_assert_cmpint (s.priority, ==, 0);
  g_assert_cmpuint (s.handle, ==, 7);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_STREAM, 1, &s));
  g_assert_cmpuint (s.stream, ==, 1);
  g_assert_cmpuint (s.is_default, ==, 0);
  g_assert_cmpint (s.priority, ==, -1);
  g_assert_cmpuint (s.handle, ==, 13);

  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_KERNEL), ==, 3);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_KERNEL, 0, &k));
  g_assert_cmpint (k.start, ==, 1000);
  g_assert_cmpint (k.end, ==, 2500);
  g_assert_cmpint (k.queued, ==, 100);
  g_assert_cmpuint (k.correlation, ==, 41);
  g_assert_cmpuint (k.device, ==, 0);
  g_assert_cmpuint (k.stream, ==, 0);
  g_assert_cmpstr (ts_recorder_lookup (rec, k.name), ==, "vectorAdd");
  g_assert_cmpuint (k.grid[0], ==, 1024);
  g_assert_cmpuint (k.grid[1], ==, 2);
  g_assert_cmpuint (k.grid[2], ==, 1);
  g_assert_cmpuint (k.block[0], ==, 256);
  g_assert_cmpuint (k.block[1], ==, 1);
  g_assert_cmpuint (k.error, ==, 0);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_KERNEL, 1, &k));
  g_assert_cmpint (k.start, ==, 3000);
  g_assert_cmpint (k.queued, ==, 200);
  g_assert_cmpuint (k.stream, ==, 1);
  g_assert_cmpstr (ts_recorder_lookup (rec, k.name), ==, "_Z6reducePfi");
  /* No API call to join: launched "when it started". */
  g_assert_true (ts_recorder_get (rec, TS_RECORD_KERNEL, 2, &k));
  g_assert_cmpint (k.queued, ==, 6000);
  g_assert_cmpuint (k.correlation, ==, 99);

  ts_cupti_translator_get_stats (tr, &stats);
  g_assert_cmpuint (stats.n_records, ==, 6);
  g_assert_cmpuint (stats.n_translated, ==, 6);
  g_assert_cmpuint (stats.n_unknown, ==, 0);
  g_assert_cmpuint (stats.n_unjoined, ==, 1);
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_API_CALL), ==, 2);

  ts_cupti_translator_free (tr);
  g_free (buf.data);
}

static void
test_copies (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  TsCuptiTranslator *tr = ts_cupti_translator_new (rec, BASE);
  Buffer buf = { 0 };
  CUpti_ActivityMemcpy6 m;
  CUpti_ActivityMemcpyPtoP4 p;
  CUpti_ActivityMemset4 ms;
  TsMemcpyRecord c;
  TsMemsetRecord s;

  add_api_call (tr, rec, "cudaMemcpyAsync", 5, 50, 0);
  add_context (&buf);

  memset (&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
  m.bytes = 4096;
  m.start = BASE + 700;
  m.end = BASE + 900;
  m.deviceId = 0;
  m.contextId = 1;
  m.streamId = 7;
  m.correlationId = 5;
  buffer_add (&buf, &m, sizeof m);

  /* A pageable, synchronous device-to-host copy. */
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  m.flags = 0;
  m.bytes = 100;
  m.start = BASE + 1000;
  m.end = BASE + 1010;
  m.correlationId = 6;
  buffer_add (&buf, &m, sizeof m);

  /* A copy of a kind we cannot name is not guessed at. */
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN;
  m.correlationId = 8;
  buffer_add (&buf, &m, sizeof m);

  memset (&p, 0, sizeof p);
  p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  p.bytes = 1 << 20;
  p.start = BASE + 2000;
  p.end = BASE + 2100;
  p.deviceId = 1;
  p.contextId = 2;
  p.streamId = 20;
  p.srcDeviceId = 1;
  p.dstDeviceId = 0;
  p.correlationId = 7;
  buffer_add (&buf, &p, sizeof p);

  memset (&ms, 0, sizeof ms);
  ms.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  ms.value = 0xab;
  ms.bytes = 512;
  ms.start = BASE + 3000;
  ms.end = BASE + 3004;
  ms.deviceId = 0;
  ms.contextId = 1;
  ms.streamId = 7;
  ms.correlationId = 9;
  buffer_add (&buf, &ms, sizeof ms);

  g_assert_cmpuint (ts_cupti_translator_translate_buffer (tr, buf.data, buf.len, NULL), ==, 6);

  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_MEMCPY), ==, 3);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_MEMCPY, 0, &c));
  g_assert_cmpint (c.start, ==, 700);
  g_assert_cmpint (c.end, ==, 900);
  g_assert_cmpint (c.queued, ==, 50);
  g_assert_cmpuint (c.correlation, ==, 5);
  g_assert_cmpuint (c.kind, ==, TS_COPY_HOST_TO_DEVICE);
  g_assert_cmpuint (c.flags, ==, TS_COPY_FLAG_PINNED | TS_COPY_FLAG_ASYNC);
  g_assert_cmpint (c.src_device, ==, -1);
  g_assert_cmpint (c.dst_device, ==, 0);
  g_assert_cmpuint (c.bytes, ==, 4096);
  g_assert_cmpuint (c.stream, ==, 0);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_MEMCPY, 1, &c));
  g_assert_cmpuint (c.kind, ==, TS_COPY_DEVICE_TO_HOST);
  g_assert_cmpuint (c.flags, ==, TS_COPY_FLAG_NONE);
  g_assert_cmpint (c.src_device, ==, 0);
  g_assert_cmpint (c.dst_device, ==, -1);
  g_assert_cmpuint (c.bytes, ==, 100);
  g_assert_cmpint (c.queued, ==, 1000);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_MEMCPY, 2, &c));
  g_assert_cmpuint (c.kind, ==, TS_COPY_PEER);
  g_assert_cmpuint (c.device, ==, 1);
  g_assert_cmpint (c.src_device, ==, 1);
  g_assert_cmpint (c.dst_device, ==, 0);
  g_assert_cmpuint (c.bytes, ==, 1 << 20);
  g_assert_cmpuint (c.stream, ==, 1);
  g_assert_cmpint (c.start, ==, 2000);
  g_assert_cmpint (c.end, ==, 2100);

  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_MEMSET), ==, 1);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_MEMSET, 0, &s));
  g_assert_cmpint (s.start, ==, 3000);
  g_assert_cmpint (s.end, ==, 3004);
  g_assert_cmpuint (s.bytes, ==, 512);
  g_assert_cmpuint (s.value, ==, 0xab);
  g_assert_cmpuint (s.stream, ==, 0);
  g_assert_cmpuint (s.correlation, ==, 9);

  {
    TsCuptiStats stats;

    ts_cupti_translator_get_stats (tr, &stats);
    g_assert_cmpuint (stats.n_records, ==, 6);
    g_assert_cmpuint (stats.n_translated, ==, 5);
    g_assert_cmpuint (stats.n_unknown, ==, 1);
  }

  ts_cupti_translator_free (tr);
  g_free (buf.data);
}

static void
add_sync (Buffer  *buf,
          guint32  type,
          guint32  stream,
          guint32  event,
          guint32  correlation,
          guint64  start,
          guint64  end)
{
  CUpti_ActivitySynchronization2 s;

  memset (&s, 0, sizeof s);
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = type;
  s.start = BASE + start;
  s.end = BASE + end;
  s.correlationId = correlation;
  s.contextId = 1;
  s.streamId = stream;
  s.cudaEventId = event;
  buffer_add (buf, &s, sizeof s);
}

static void
test_syncs_and_events (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  TsCuptiTranslator *tr = ts_cupti_translator_new (rec, BASE);
  Buffer buf = { 0 };
  CUpti_ActivityCudaEvent2 e;
  TsSyncRecord s;
  TsEventRecordRecord er;
  TsEventWaitRecord ew;

  add_api_call (tr, rec, "cudaEventRecord", 10, 300, 0);
  add_api_call (tr, rec, "cudaStreamSynchronize", 11, 400, 2);
  add_api_call (tr, rec, "cudaDeviceSynchronize", 12, 500, 3);
  add_api_call (tr, rec, "cudaEventSynchronize", 13, 600, 2);
  add_context (&buf);

  memset (&e, 0, sizeof e);
  e.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
  e.correlationId = 10;
  e.contextId = 1;
  e.streamId = 7;
  e.eventId = 3;
  e.deviceId = 0;
  e.deviceTimestamp = BASE + 350;
  buffer_add (&buf, &e, sizeof e);

  add_sync (&buf, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 7, 0, 11, 400, 450);
  add_sync (&buf, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, 0, 0, 12, 500, 560);
  add_sync (&buf, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, 0, 3, 13, 600, 610);
  add_sync (&buf, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, 7, 3, 14, 700, 702);

  g_assert_cmpuint (ts_cupti_translator_translate_buffer (tr, buf.data, buf.len, NULL), ==, 6);

  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_EVENT_RECORD), ==, 1);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_EVENT_RECORD, 0, &er));
  g_assert_cmpint (er.queued, ==, 300);
  g_assert_cmpint (er.time, ==, 350);
  g_assert_cmpuint (er.correlation, ==, 10);
  g_assert_cmpuint (er.event, ==, 3);
  g_assert_cmpuint (er.device, ==, 0);
  g_assert_cmpuint (er.stream, ==, 0);

  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_SYNC), ==, 3);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_SYNC, 0, &s));
  g_assert_cmpint (s.start, ==, 400);
  g_assert_cmpint (s.end, ==, 450);
  g_assert_cmpuint (s.kind, ==, TS_SYNC_STREAM);
  g_assert_cmpuint (s.thread, ==, 2);
  g_assert_cmpint (s.device, ==, 0);
  g_assert_cmpuint (s.stream, ==, 0);
  g_assert_cmpuint (s.event, ==, 0);
  g_assert_cmpuint (s.correlation, ==, 11);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_SYNC, 1, &s));
  g_assert_cmpuint (s.kind, ==, TS_SYNC_DEVICE);
  g_assert_cmpuint (s.thread, ==, 3);
  g_assert_cmpuint (s.stream, ==, TS_STREAM_NONE);
  g_assert_cmpint (s.end, ==, 560);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_SYNC, 2, &s));
  g_assert_cmpuint (s.kind, ==, TS_SYNC_EVENT);
  g_assert_cmpuint (s.event, ==, 3);
  g_assert_cmpuint (s.thread, ==, 2);
  g_assert_cmpuint (s.stream, ==, TS_STREAM_NONE);

  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_EVENT_WAIT), ==, 1);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_EVENT_WAIT, 0, &ew));
  g_assert_cmpint (ew.queued, ==, 700);
  g_assert_cmpint (ew.time, ==, 702);
  g_assert_cmpuint (ew.event, ==, 3);
  g_assert_cmpuint (ew.stream, ==, 0);
  g_assert_cmpuint (ew.correlation, ==, 14);

  ts_cupti_translator_free (tr);
  g_free (buf.data);
}

/* A walker that, like CUPTI's, knows the size of a kind we do not. */
#define FAKE_KIND_SIZE 24

static CUptiResult
walk_with_overhead (uint8_t         *buffer,
                    size_t           valid_size,
                    CUpti_Activity **record)
{
  if (*record != NULL && (*record)->kind == CUPTI_ACTIVITY_KIND_OVERHEAD)
    {
      uint8_t *next = (uint8_t *)*record + FAKE_KIND_SIZE;

      if ((gsize)(next - buffer) >= valid_size)
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
      *record = (CUpti_Activity *)(gpointer)next;
      return CUPTI_SUCCESS;
    }
  return ts_cupti_walk_buffer (buffer, valid_size, record);
}

static void
test_unknown_and_dropped (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  TsCuptiTranslator *tr = ts_cupti_translator_new (rec, BASE);
  Buffer buf = { 0 };
  guint8 overhead[FAKE_KIND_SIZE] = { 0 };
  CUpti_ActivityKind kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  TsCuptiStats stats;

  memcpy (overhead, &kind, sizeof kind);
  add_context (&buf);
  buffer_add (&buf, overhead, sizeof overhead);
  add_kernel (&buf, 7, 1, 10, "after_unknown");
  buffer_add (&buf, overhead, sizeof overhead);

  /* CUPTI's walker (here a stand-in) steps over kinds we do not know:
   * they are counted and the records after them still translate. */
  g_assert_cmpuint (ts_cupti_translator_translate_buffer (tr, buf.data, buf.len, walk_with_overhead), ==, 4);
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_KERNEL), ==, 1);
  ts_cupti_translator_add_dropped (tr, 17);
  ts_cupti_translator_get_stats (tr, &stats);
  g_assert_cmpuint (stats.n_records, ==, 4);
  g_assert_cmpuint (stats.n_translated, ==, 2);
  g_assert_cmpuint (stats.n_unknown, ==, 2);
  g_assert_cmpuint (stats.n_dropped, ==, 17);

  /* Our own walker cannot step over a kind it does not know: it stops
   * there, having counted it. */
  g_assert_cmpuint (ts_cupti_translator_translate_buffer (tr, buf.data, buf.len, NULL), ==, 2);
  ts_cupti_translator_get_stats (tr, &stats);
  g_assert_cmpuint (stats.n_records, ==, 6);
  g_assert_cmpuint (stats.n_unknown, ==, 3);

  /* An empty buffer, and one cut inside a record, give nothing more. */
  g_assert_cmpuint (ts_cupti_translator_translate_buffer (tr, buf.data, 0, NULL), ==, 0);
  g_assert_cmpuint (ts_cupti_translator_translate_buffer (tr, buf.data, sizeof (CUpti_ActivityContext3) - 4, NULL), ==, 0);

  ts_cupti_translator_free (tr);
  g_free (buf.data);
}

static void
add_mapping (Buffer                        *buf,
             CUpti_ExternalCorrelationKind  kind,
             guint32                        cupti_correlation,
             guint64                        ours)
{
  CUpti_ActivityExternalCorrelation e;

  memset (&e, 0, sizeof e);
  e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  e.externalKind = kind;
  e.externalId = ours;
  e.correlationId = cupti_correlation;
  buffer_add (buf, &e, sizeof e);
}

static void
add_api_record (Buffer  *buf,
                guint32  correlation)
{
  CUpti_ActivityAPI a;

  memset (&a, 0, sizeof a);
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.correlationId = correlation;
  a.start = BASE + 10;
  a.end = BASE + 20;
  buffer_add (buf, &a, sizeof a);
}

static void
note_call (TsCuptiTranslator *tr,
           guint64            correlation,
           TsTime             start,
           guint32            thread)
{
  TsApiCallRecord api = { 0 };

  api.start = start;
  api.end = start + 5;
  api.correlation = correlation;
  api.thread = thread;
  api.stream = TS_STREAM_NONE;
  ts_cupti_translator_note_call (tr, &api);
}

/* The workload runner's join: our ids pushed as CUSTOM0 external
 * correlations, the mappings coming before or after the device work. */
static void
test_external_correlation (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  TsCuptiTranslator *tr = ts_cupti_translator_new (rec, BASE);
  Buffer api_buf = { 0 };
  Buffer work_buf = { 0 };
  Buffer late_buf = { 0 };
  CUpti_ActivityMemset4 ms;
  TsKernelRecord k;
  TsSyncRecord sync;
  TsMemsetRecord m;
  TsCuptiStats stats;

  ts_cupti_translator_set_external_kind (tr, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
  /* Our runtime appended its API calls itself: noted, not appended. */
  note_call (tr, 1001, 100, 0);
  note_call (tr, 1002, 200, 3);
  note_call (tr, 1003, 300, 4);

  /* The API-side buffer first: 41 -> 1001, with CUPTI's API record (only
   * there because external correlation needs it) and a mapping of a kind
   * that is not ours. */
  add_mapping (&api_buf, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 41, 1001);
  add_api_record (&api_buf, 41);
  add_mapping (&api_buf, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, 42, 777);
  g_assert_cmpuint (ts_cupti_translator_translate_buffer (tr, api_buf.data, api_buf.len, NULL), ==, 3);

  /* The device buffer: 41 is known; 42's mapping is still to come, 99's
   * never comes; CUPTI's correlation 0 can never be mapped. */
  add_context (&work_buf);
  add_kernel (&work_buf, 7, 41, 1000, "mapped_before");
  add_kernel (&work_buf, 7, 42, 3000, "mapped_after");
  add_sync (&work_buf, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 7, 0, 43, 3100, 4600);
  add_kernel (&work_buf, 7, 99, 5000, "never_mapped");
  memset (&ms, 0, sizeof ms);
  ms.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  ms.bytes = 64;
  ms.start = BASE + 6000;
  ms.end = BASE + 6010;
  ms.contextId = 1;
  ms.streamId = 7;
  ms.correlationId = 0;
  buffer_add (&work_buf, &ms, sizeof ms);
  g_assert_cmpuint (ts_cupti_translator_translate_buffer (tr, work_buf.data, work_buf.len, NULL), ==, 6);

  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_KERNEL), ==, 1);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_KERNEL, 0, &k));
  g_assert_cmpuint (k.correlation, ==, 1001);
  g_assert_cmpint (k.queued, ==, 100);
  g_assert_cmpint (k.start, ==, 1000);
  g_assert_cmpstr (ts_recorder_lookup (rec, k.name), ==, "mapped_before");
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_SYNC), ==, 0);
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_MEMSET), ==, 1);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_MEMSET, 0, &m));
  g_assert_cmpuint (m.correlation, ==, 0);
  g_assert_cmpint (m.queued, ==, 6000);
  g_assert_cmpuint (m.bytes, ==, 64);
  ts_cupti_translator_get_stats (tr, &stats);
  g_assert_cmpuint (stats.n_waiting, ==, 3);
  g_assert_cmpuint (stats.n_unmapped, ==, 1);
  g_assert_cmpuint (stats.n_api, ==, 1);
  g_assert_cmpuint (stats.n_unknown, ==, 1);

  /* 42's and 43's mappings, in a later buffer: the kernel and the sync
   * waiting for them are appended, with our ids and what the noted calls
   * give (the launch time; the blocked thread). */
  add_mapping (&late_buf, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 42, 1002);
  add_mapping (&late_buf, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 43, 1003);
  g_assert_cmpuint (ts_cupti_translator_translate_buffer (tr, late_buf.data, late_buf.len, NULL), ==, 2);
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_KERNEL), ==, 2);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_KERNEL, 1, &k));
  g_assert_cmpuint (k.correlation, ==, 1002);
  g_assert_cmpint (k.queued, ==, 200);
  g_assert_cmpint (k.start, ==, 3000);
  g_assert_cmpint (k.end, ==, 4500);
  g_assert_cmpuint (k.stream, ==, 0);
  g_assert_cmpstr (ts_recorder_lookup (rec, k.name), ==, "mapped_after");
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_SYNC), ==, 1);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_SYNC, 0, &sync));
  g_assert_cmpuint (sync.correlation, ==, 1003);
  g_assert_cmpuint (sync.thread, ==, 4);
  g_assert_cmpuint (sync.kind, ==, TS_SYNC_STREAM);
  g_assert_cmpint (sync.start, ==, 3100);
  g_assert_cmpint (sync.end, ==, 4600);
  ts_cupti_translator_get_stats (tr, &stats);
  g_assert_cmpuint (stats.n_waiting, ==, 1);

  /* A mapping stays: later work of the same call is appended at once. */
  g_free (work_buf.data);
  memset (&work_buf, 0, sizeof work_buf);
  add_kernel (&work_buf, 7, 41, 8000, "mapped_before_again");
  /* A synchronization whose call was made outside any op: never mapped,
   * but not device work, so not counted as unmapped below. */
  add_sync (&work_buf, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, 0, 0, 99, 8100, 8200);
  g_assert_cmpuint (ts_cupti_translator_translate_buffer (tr, work_buf.data, work_buf.len, NULL), ==, 2);
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_KERNEL), ==, 3);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_KERNEL, 2, &k));
  g_assert_cmpuint (k.correlation, ==, 1001);
  /* The launch was joined (consumed) by the first kernel. */
  g_assert_cmpint (k.queued, ==, 8000);

  /* The end: what still waits is appended with no correlation. */
  ts_cupti_translator_finish (tr);
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_KERNEL), ==, 4);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_KERNEL, 3, &k));
  g_assert_cmpuint (k.correlation, ==, 0);
  g_assert_cmpint (k.queued, ==, 5000);
  g_assert_cmpstr (ts_recorder_lookup (rec, k.name), ==, "never_mapped");
  ts_cupti_translator_get_stats (tr, &stats);
  g_assert_cmpuint (stats.n_waiting, ==, 0);
  g_assert_cmpuint (stats.n_unmapped, ==, 2);
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_SYNC), ==, 2);
  g_assert_cmpuint (stats.n_unjoined, ==, 1);
  g_assert_cmpuint (stats.n_records, ==, 13);
  g_assert_cmpuint (stats.n_translated, ==, 11);
  /* Nothing of ours was appended for the API calls. */
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_API_CALL), ==, 0);
  ts_cupti_translator_finish (tr);
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_KERNEL), ==, 4);

  ts_cupti_translator_free (tr);
  g_free (api_buf.data);
  g_free (work_buf.data);
  g_free (late_buf.data);
}

/* Without external correlation (the injection), mappings are not used and
 * CUPTI's own ids stay. */
static void
test_external_ignored (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  TsCuptiTranslator *tr = ts_cupti_translator_new (rec, BASE);
  Buffer buf = { 0 };
  TsKernelRecord k;
  TsCuptiStats stats;

  add_kernel (&buf, 7, 41, 1000, "k");
  add_mapping (&buf, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 41, 1001);
  g_assert_cmpuint (ts_cupti_translator_translate_buffer (tr, buf.data, buf.len, NULL), ==, 2);
  ts_cupti_translator_finish (tr);
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_KERNEL), ==, 1);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_KERNEL, 0, &k));
  g_assert_cmpuint (k.correlation, ==, 41);
  ts_cupti_translator_get_stats (tr, &stats);
  g_assert_cmpuint (stats.n_unknown, ==, 1);
  g_assert_cmpuint (stats.n_unmapped, ==, 0);
  ts_cupti_translator_free (tr);
  g_free (buf.data);
}

static void
test_time_base (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  TsCuptiTranslator *tr = ts_cupti_translator_new (rec, BASE);

  g_assert_cmpint (ts_cupti_translator_time (tr, BASE + 12345), ==, 12345);
  /* Timestamps from before the run (or missing ones) clamp to 0. */
  g_assert_cmpint (ts_cupti_translator_time (tr, 0), ==, 0);
  g_assert_cmpint (ts_cupti_translator_time (tr, BASE - 1), ==, 0);
  ts_cupti_translator_free (tr);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cupti/kernels-streams-devices", test_kernels_streams_devices);
  g_test_add_func ("/cupti/copies", test_copies);
  g_test_add_func ("/cupti/syncs-and-events", test_syncs_and_events);
  g_test_add_func ("/cupti/unknown-and-dropped", test_unknown_and_dropped);
  g_test_add_func ("/cupti/time-base", test_time_base);
  g_test_add_func ("/cupti/external-correlation", test_external_correlation);
  g_test_add_func ("/cupti/external-ignored", test_external_ignored);
  return g_test_run ();
}
