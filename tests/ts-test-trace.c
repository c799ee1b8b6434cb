/* ts-test-trace.c: deterministic synthetic traces for tests and benchmarks
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "ts-test-trace.h"
#include "ts-trace-writer.h"

#define US 1000

typedef struct
{
  TsRecorder *rec;
  GRand      *rand;
  TsTestTraceOptions opt;
  TsTime      now;            /* host time of thread 0 */
  guint64     next_corr;
  guint64     next_event;
  TsTime     *ready;          /* per stream id: when the stream is free */
  gint64     *allocated;      /* per device */
  gint64     *reserved;
  TsStringId  kernel_names[6];
  TsStringId  op_names[6];
  TsStringId  launch, memcpy_async, memset_async, event_record, wait_event, dev_sync;
  TsStringId  autograd, mm_backward;
  TsStringId  step, forward, backward, checkpoint;
} Gen;

static const char * const kernel_names[] = {
  "ampere_sgemm_128x64_nn",
  "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>",
  "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper<float>>>",
  "softmax_warp_forward",
  "layer_norm_kernel",
  "ncclKernel_AllReduce_RING_LL_Sum_float",
};

static const char * const op_names[] = {
  "aten::mm", "aten::add", "aten::sum", "aten::softmax", "aten::layer_norm", "c10d::allreduce_",
};

static void
options_resolve (const TsTestTraceOptions *in,
                 TsTestTraceOptions       *out)
{
  static const TsTestTraceOptions defaults = { 2, 2, 4, 8, 1 };

  *out = in != NULL ? *in : defaults;
  if (out->n_devices == 0)
    out->n_devices = defaults.n_devices;
  if (out->n_streams == 0)
    out->n_streams = defaults.n_streams;
  if (out->n_steps == 0)
    out->n_steps = defaults.n_steps;
  if (out->kernels_per_step == 0)
    out->kernels_per_step = defaults.kernels_per_step;
}

/* Stream ids: the default stream of device d is d, then per device its
 * created streams: 0 is the compute stream (high priority), 1 the copy
 * stream, more are extra compute streams. */
static TsStreamId
stream_id (const Gen *g,
           guint      device,
           guint      k)
{
  return g->opt.n_devices + device * g->opt.n_streams + k;
}

static TsStreamId
copy_stream (const Gen *g,
             guint      device)
{
  return stream_id (g, device, g->opt.n_streams > 1 ? 1 : 0);
}

static void
api (Gen        *g,
     guint       thread,
     TsStringId  name,
     TsTime      start,
     TsTime      end,
     guint64     corr,
     gint32      device,
     TsStreamId  stream)
{
  TsApiCallRecord r = { 0 };

  r.start = start;
  r.end = end;
  r.correlation = corr;
  r.thread = thread;
  r.name = name;
  r.loc.line = 10 + (guint32) (corr % 50);
  r.device = device;
  r.stream = stream;
  ts_recorder_append (g->rec, TS_RECORD_API_CALL, &r);
}

static void
nvtx (Gen        *g,
      TsNvtxKind  kind,
      TsStringId  message,
      gint32      depth)
{
  TsNvtxRecord r = { 0 };

  r.time = g->now;
  r.kind = kind;
  r.message = message;
  r.depth = depth;
  ts_recorder_append (g->rec, TS_RECORD_NVTX, &r);
  g->now += 1 * US;
}

static void
counter (Gen           *g,
         guint          device,
         TsCounterKind  kind,
         gint64         value)
{
  TsCounterRecord r = { g->now, value, device, kind };

  ts_recorder_append (g->rec, TS_RECORD_COUNTER, &r);
}

static void
copy (Gen        *g,
      guint       device,
      TsCopyKind  kind,
      TsStreamId  stream,
      guint64     bytes)
{
  TsMemcpyRecord r = { 0 };
  guint64 corr = g->next_corr++;
  TsTime api_end = g->now + 4 * US;

  api (g, 0, g->memcpy_async, g->now, api_end, corr, device, stream);
  r.queued = g->now;
  r.start = MAX (g->ready[stream], api_end + 2 * US);
  r.end = r.start + (TsTime) (bytes / 25);   /* 25 bytes/ns: pinned PCIe */
  r.correlation = corr;
  r.device = device;
  r.stream = stream;
  r.kind = kind;
  r.flags = TS_COPY_FLAG_PINNED | TS_COPY_FLAG_ASYNC;
  r.src_device = kind == TS_COPY_HOST_TO_DEVICE ? -1 : (gint32) device;
  r.dst_device = kind == TS_COPY_DEVICE_TO_HOST ? -1 : (gint32) device;
  r.bytes = bytes;
  ts_recorder_append (g->rec, TS_RECORD_MEMCPY, &r);
  g->ready[stream] = r.end;
  g->now = api_end + 1 * US;
}

/* Records an event on `from` and makes `to` wait for it. */
static void
record_and_wait (Gen        *g,
                 guint       device,
                 TsStreamId  from,
                 TsStreamId  to)
{
  TsEventRecordRecord rec = { 0 };
  TsEventWaitRecord wait = { 0 };
  guint64 event = ++g->next_event;

  rec.queued = g->now;
  rec.time = g->ready[from];
  rec.correlation = g->next_corr++;
  rec.event = event;
  rec.device = device;
  rec.stream = from;
  api (g, 0, g->event_record, g->now, g->now + 2 * US, rec.correlation, device, from);
  ts_recorder_append (g->rec, TS_RECORD_EVENT_RECORD, &rec);
  g->now += 3 * US;

  wait.queued = g->now;
  wait.time = MAX (g->ready[to], rec.time);
  wait.correlation = g->next_corr++;
  wait.event = event;
  wait.record_correlation = rec.correlation;
  wait.device = device;
  wait.stream = to;
  api (g, 0, g->wait_event, g->now, g->now + 2 * US, wait.correlation, device, to);
  ts_recorder_append (g->rec, TS_RECORD_EVENT_WAIT, &wait);
  g->ready[to] = wait.time;
  g->now += 3 * US;
}

static void
launch (Gen   *g,
        guint  device,
        guint  k)
{
  TsKernelRecord r = { 0 };
  guint which = g_rand_int_range (g->rand, 0, G_N_ELEMENTS (kernel_names));
  guint n_compute = g->opt.n_streams > 1 ? g->opt.n_streams - 1 : 1;
  guint slot = k % n_compute;
  TsStreamId stream = stream_id (g, device, slot == 0 ? 0 : slot + 1);
  guint64 corr = g->next_corr++;
  TsTime op_start = g->now;
  TsTime launch_start = op_start + 3 * US;
  TsTime launch_end = launch_start + 5 * US;

  api (g, 0, g->op_names[which], op_start, launch_end + 2 * US, 0, device, TS_STREAM_NONE);
  api (g, 0, g->launch, launch_start, launch_end, corr, device, stream);

  r.queued = launch_start;
  r.start = MAX (g->ready[stream], launch_end + 1 * US);
  r.end = r.start + g_rand_int_range (g->rand, 20, 200) * US + g_rand_int_range (g->rand, 0, 1000);
  r.correlation = corr;
  r.device = device;
  r.stream = stream;
  r.name = g->kernel_names[which];
  r.grid[0] = 128 * (which + 1);
  r.grid[1] = r.grid[2] = 1;
  r.block[0] = 256;
  r.block[1] = r.block[2] = 1;
  r.sms = 132;
  ts_recorder_append (g->rec, TS_RECORD_KERNEL, &r);
  g->ready[stream] = r.end;
  g->now = launch_end + 3 * US;
}

static void
memset_async (Gen   *g,
              guint  device)
{
  TsMemsetRecord r = { 0 };
  TsStreamId stream = stream_id (g, device, 0);
  guint64 corr = g->next_corr++;

  api (g, 0, g->memset_async, g->now, g->now + 3 * US, corr, device, stream);
  r.queued = g->now;
  r.start = MAX (g->ready[stream], g->now + 4 * US);
  r.end = r.start + 8 * US;
  r.correlation = corr;
  r.device = device;
  r.stream = stream;
  r.bytes = 1 << 20;
  ts_recorder_append (g->rec, TS_RECORD_MEMSET, &r);
  g->ready[stream] = r.end;
  g->now += 4 * US;
}

static void
device_sync (Gen *g)
{
  TsSyncRecord r = { 0 };
  TsTime done = g->now;
  guint n_tracks = g->opt.n_devices * (1 + g->opt.n_streams);
  guint64 corr = g->next_corr++;

  for (guint s = 0; s < n_tracks; s++)
    done = MAX (done, g->ready[s]);

  r.start = g->now + 1 * US;
  r.end = MAX (r.start, done);
  r.correlation = corr;
  r.thread = 0;
  r.kind = TS_SYNC_DEVICE;
  r.device = 0;
  r.stream = TS_STREAM_NONE;
  api (g, 0, g->dev_sync, g->now, r.end + 1 * US, corr, 0, TS_STREAM_NONE);
  ts_recorder_append (g->rec, TS_RECORD_SYNC, &r);
  g->now = r.end + 2 * US;
}

static void
phase (Gen   *g,
       guint  first,
       guint  last)
{
  for (guint d = 0; d < g->opt.n_devices; d++)
    for (guint k = first; k < last; k++)
      launch (g, d, k);
}

static void
run_step (Gen   *g,
          guint  s)
{
  guint half = g->opt.kernels_per_step / 2;

  nvtx (g, TS_NVTX_PUSH, g->step, 0);
  nvtx (g, TS_NVTX_PUSH, g->forward, 1);
  for (guint d = 0; d < g->opt.n_devices; d++)
    {
      gint64 batch = (gint64) (64 + 16 * d) << 20;

      g->allocated[d] += batch;
      counter (g, d, TS_COUNTER_ALLOCATED_BYTES, g->allocated[d]);
      g->reserved[d] = MAX (g->reserved[d], g->allocated[d] + (2 << 20) * (gint64) (s + 1));
      counter (g, d, TS_COUNTER_RESERVED_BYTES, g->reserved[d]);
      copy (g, d, TS_COPY_HOST_TO_DEVICE, copy_stream (g, d), (4u << 20) + 4096 * (guint64) s);
      record_and_wait (g, d, copy_stream (g, d), stream_id (g, d, 0));
    }
  phase (g, 0, half);
  nvtx (g, TS_NVTX_POP, 0, 1);

  nvtx (g, TS_NVTX_PUSH, g->backward, 1);
  api (g, 1, g->autograd, g->now, g->now + 40 * US, 0, -1, TS_STREAM_NONE);
  api (g, 1, g->mm_backward, g->now + 5 * US, g->now + 30 * US, 0, -1, TS_STREAM_NONE);
  phase (g, half, g->opt.kernels_per_step);
  for (guint d = 0; d < g->opt.n_devices; d++)
    {
      memset_async (g, d);
      record_and_wait (g, d, stream_id (g, d, 0), copy_stream (g, d));
      copy (g, d, TS_COPY_DEVICE_TO_HOST, copy_stream (g, d), 1u << 20);
    }
  nvtx (g, TS_NVTX_POP, 0, 1);
  nvtx (g, TS_NVTX_MARK, g->checkpoint, 1);

  device_sync (g);
  for (guint d = 0; d < g->opt.n_devices; d++)
    {
      g->allocated[d] -= (gint64) (64 + 16 * d) << 20;
      counter (g, d, TS_COUNTER_ALLOCATED_BYTES, g->allocated[d]);
    }
  nvtx (g, TS_NVTX_POP, 0, 0);
}

static void
write_topology (Gen *g)
{
  static const char * const thread_names[] = { "MainThread", "pt_autograd_0" };

  for (guint d = 0; d < g->opt.n_devices; d++)
    {
      TsDeviceRecord r = { d, 0, 0, 132, 9, 0, G_GUINT64_CONSTANT (80) << 30 };

      r.name = ts_recorder_intern (g->rec, "NVIDIA H100 80GB HBM3");
      r.model = ts_recorder_intern (g->rec, "h100");
      ts_recorder_append (g->rec, TS_RECORD_DEVICE, &r);
    }
  for (guint d = 0; d < g->opt.n_devices; d++)
    {
      TsStreamRecord r = { d, d, 0, 1, 0 };

      ts_recorder_append (g->rec, TS_RECORD_STREAM, &r);
      for (guint k = 0; k < g->opt.n_streams; k++)
        {
          TsStreamRecord c = { stream_id (g, d, k), d, k == 0 ? -1 : 0, 0, 0x5000 + stream_id (g, d, k) };
          ts_recorder_append (g->rec, TS_RECORD_STREAM, &c);
        }
    }
  for (guint t = 0; t < G_N_ELEMENTS (thread_names); t++)
    {
      TsThreadRecord r = { t, ts_recorder_intern (g->rec, thread_names[t]) };
      ts_recorder_append (g->rec, TS_RECORD_THREAD, &r);
    }
}

TsRecorder *
ts_test_trace_new (const TsTestTraceOptions *options)
{
  Gen g = { 0 };
  guint n_tracks;

  options_resolve (options, &g.opt);
  g.rec = ts_recorder_new ();
  g.rand = g_rand_new_with_seed ((guint32) (g.opt.seed ^ (g.opt.seed >> 32)));
  g.now = 10 * US;
  g.next_corr = 1;
  n_tracks = g.opt.n_devices * (1 + g.opt.n_streams);
  g.ready = g_new0 (TsTime, n_tracks);
  g.allocated = g_new0 (gint64, g.opt.n_devices);
  g.reserved = g_new0 (gint64, g.opt.n_devices);

  for (guint i = 0; i < G_N_ELEMENTS (kernel_names); i++)
    {
      g.kernel_names[i] = ts_recorder_intern (g.rec, kernel_names[i]);
      g.op_names[i] = ts_recorder_intern (g.rec, op_names[i]);
    }
  g.launch = ts_recorder_intern (g.rec, "cudaLaunchKernel");
  g.memcpy_async = ts_recorder_intern (g.rec, "cudaMemcpyAsync");
  g.memset_async = ts_recorder_intern (g.rec, "cudaMemsetAsync");
  g.event_record = ts_recorder_intern (g.rec, "cudaEventRecord");
  g.wait_event = ts_recorder_intern (g.rec, "cudaStreamWaitEvent");
  g.dev_sync = ts_recorder_intern (g.rec, "cudaDeviceSynchronize");
  g.autograd = ts_recorder_intern (g.rec, "autograd::engine::evaluate_function");
  g.mm_backward = ts_recorder_intern (g.rec, "aten::mm_backward");
  g.step = ts_recorder_intern (g.rec, "step");
  g.forward = ts_recorder_intern (g.rec, "forward");
  g.backward = ts_recorder_intern (g.rec, "backward");
  g.checkpoint = ts_recorder_intern (g.rec, "checkpoint \"A\"\t\x01");

  write_topology (&g);
  for (guint s = 0; s < g.opt.n_steps; s++)
    run_step (&g, s);

  g_rand_free (g.rand);
  g_free (g.ready);
  g_free (g.allocated);
  g_free (g.reserved);
  return g.rec;
}

guint64
ts_test_trace_count (const TsTestTraceOptions *options)
{
  TsTestTraceOptions o;
  guint64 per_device_step, per_step;

  options_resolve (options, &o);
  /* copy in (2), record+wait (4), kernels (3 each), memset (2), record+wait
   * (4), copy out (2), counters (3). */
  per_device_step = 2 + 4 + 3 * (guint64) o.kernels_per_step + 2 + 4 + 2 + 3;
  /* NVTX (7), autograd thread (2), device sync (2). */
  per_step = 7 + 2 + 2 + o.n_devices * per_device_step;
  return o.n_devices + (guint64) o.n_devices * (1 + o.n_streams) + 2 + o.n_steps * per_step;
}

gboolean
ts_test_trace_write (TsRecorder  *recorder,
                     const char  *path,
                     GError     **error)
{
  g_autoptr(TsTraceWriter) writer = ts_trace_writer_new_for_path (path, error);

  if (writer == NULL)
    return FALSE;
  if (!ts_trace_writer_attach (writer, recorder, error))
    return FALSE;
  return ts_trace_writer_close (writer, error);
}

/* --- an allocator backend for the memory views ----------------------------- */

static gboolean
memory_segment_malloc (gpointer  user_data,
                       guint     device,
                       guint64   size,
                       guint64  *addr)
{
  TsTestMemory *memory = user_data;

  return ts_device_memory_segment_malloc (memory->mem, device, size, addr, NULL);
}

static void
memory_segment_free (gpointer user_data,
                     guint    device,
                     guint64  addr,
                     guint64  size)
{
  TsTestMemory *memory = user_data;

  g_assert_true (ts_device_memory_segment_free (memory->mem, addr, NULL));
}

static void
memory_get_info (gpointer  user_data,
                 guint     device,
                 guint64  *free_bytes,
                 guint64  *total_bytes)
{
  TsTestMemory *memory = user_data;

  g_assert_true (ts_device_memory_get_info (memory->mem, device, free_bytes, total_bytes, NULL));
}

static guint64
memory_event_record (gpointer   user_data,
                     TsStreamId stream)
{
  return 1;
}

static gboolean
memory_event_query (gpointer user_data,
                    guint64  event)
{
  return TRUE;
}

static void
memory_event_nop (gpointer user_data,
                  guint64  event)
{
}

static TsTime
memory_now (gpointer user_data)
{
  return ((TsTestMemory *) user_data)->now;
}

const TsAllocatorBackend ts_test_memory_backend = {
  memory_segment_malloc, memory_segment_free, memory_get_info, memory_event_record,
  memory_event_query, memory_event_nop, memory_event_nop, memory_now, NULL,
};
