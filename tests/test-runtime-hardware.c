/* test-runtime-hardware.c: TsRuntime driving a GPU through the CUDA module's table
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The module here is the fake one (tests/fake-cuda): a host implementation
 * of the table with CUDA's semantics and a deterministic clock per stream
 * (2 us + bytes / 2 TB/s per kernel on device memory, + bytes / 25 GB/s
 * for host memory). So the hardware paths of the runtime (real streams and
 * events, CUDA's answers to queries and syncs, times read back from timing
 * events, sticky errors) run in CI and their numbers are exact.
 */

#include "config.h"

#include <string.h>

#include "ts-cuda-backend.h"
#include "ts-runtime.h"

static const TsCudaKernels *k;

static TsRuntime *
hardware_runtime (gboolean launch_blocking)
{
  static TsCudaBackend *backend;
  g_autoptr(GError) error = NULL;
  TsRuntimeOptions options = { 0 };
  TsRuntime *rt;

  if (backend == NULL)
    {
      backend = ts_cuda_backend_open (NULL, &error);
      g_assert_no_error (error);
      k = ts_cuda_backend_get_kernels (backend);
    }
  options.hardware = k;
  options.launch_blocking = launch_blocking;
  /* ignored on hardware: the devices are the module's */
  options.n_gpus = 7;
  options.gpu_model = "gtx1080ti";
  rt = ts_runtime_new (&options, NULL, &error);
  g_assert_no_error (error);
  return rt;
}

/* A device buffer of floats, on the current device. */
static float *
device_buffer (int     device,
               gsize   n)
{
  void *ptr = NULL;

  g_assert_cmpint (k->set_device (device), ==, 0);
  g_assert_cmpint (k->malloc_device (&ptr, n * sizeof (float)), ==, 0);
  return ptr;
}

static void
view_1d (TsCudaView *view,
         float      *data,
         gint64      n)
{
  memset (view, 0, sizeof *view);
  view->dtype = TS_CUDA_FLOAT32;
  view->ndim = 1;
  view->shape[0] = n;
  view->strides[0] = 1;
  view->data = data;
}

typedef struct
{
  float *data;
  gint64 n;
  float  value;
} Fill;

static int
fill_on_device (gpointer data,
                gpointer stream)
{
  Fill *f = data;
  TsCudaView out;

  view_1d (&out, f->data, f->n);
  return k->fill (&out, f->value, stream);
}

typedef struct
{
  float  *out;
  float  *in;
  gint64 *index;
} Select;

static int
select_on_device (gpointer data,
                  gpointer stream)
{
  Select *s = data;
  TsCudaView out, in, index;

  view_1d (&out, s->out, 1);
  view_1d (&in, s->in, 4);
  view_1d (&index, (float *) s->index, 1);
  index.dtype = TS_CUDA_INT64;
  return k->index_select (&out, &in, 0, &index, stream);
}

static guint64
launch_fill (TsRuntime  *rt,
             TsStreamId  stream,
             float      *data,
             gint64      n,
             float       value,
             GError    **error)
{
  TsKernelDesc desc = { .name = "fill", .grid = { 4 }, .block = { 128 } };
  Fill *f = g_new (Fill, 1);

  *f = (Fill) { data, n, value };
  desc.work = (TsWork) { .on_device = fill_on_device, .destroy = g_free, .data = f };
  return ts_runtime_launch_kernel (rt, stream, &desc, error);
}

/* The kernel records in the recorder, in order. */
static GArray *
kernel_records (TsRuntime *rt)
{
  TsRecorder *recorder = ts_runtime_get_recorder (rt);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (TsKernelRecord));
  gsize n = ts_recorder_get_count (recorder, TS_RECORD_KERNEL);

  for (gsize i = 0; i < n; i++)
    {
      TsKernelRecord rec;

      g_assert_true (ts_recorder_get (recorder, TS_RECORD_KERNEL, i, &rec));
      g_array_append_val (out, rec);
    }
  return out;
}

/* Times read back from events are float milliseconds: exact to 1 ns. */
static void
assert_near (TsTime got,
             TsTime want)
{
  if (got < want - 1 || got > want + 1)
    g_error ("got %" G_GINT64_FORMAT " ns, want %" G_GINT64_FORMAT " ns (within 1 ns)", got, want);
}

static void
test_devices (void)
{
  g_autoptr(TsRuntime) rt = hardware_runtime (FALSE);
  const TsGpuProfile *profile = ts_runtime_get_profile (rt);
  g_autoptr(GError) error = NULL;
  TsStreamId s;

  /* the module's devices, not the options' 7 simulated GTX 1080 Ti */
  g_assert_cmpuint (ts_runtime_get_n_devices (rt), ==, 2);
  g_assert_cmpstr (profile->name, ==, "Fake CUDA Device (H100)");
  /* the trace's model is the backend, not the simulated model */
  g_assert_cmpstr (profile->key, ==, "cuda");
  g_assert_cmpuint (profile->sm_count, ==, 132);
  g_assert_cmpuint (profile->total_memory, ==, 64 << 20);
  g_assert_cmpint (profile->greatest_priority, ==, -5);

  /* the default stream is the legacy one (handle 0); a pool stream is a
   * real stream with a real handle */
  g_assert_cmpuint (ts_runtime_stream_get_handle (rt, ts_runtime_get_default_stream (rt, 1, NULL)), ==, 0);
  s = ts_runtime_stream_new (rt, 1, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (ts_runtime_stream_get_device (rt, s), ==, 1);
  g_assert_cmpint (ts_runtime_stream_get_priority (rt, s), ==, -1);
  g_assert_cmpuint (ts_runtime_stream_get_handle (rt, s), !=, 0);
}

static void
test_kernel_times (void)
{
  g_autoptr(TsRuntime) rt = hardware_runtime (FALSE);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) kernels = NULL;
  float *buf = device_buffer (0, 1 << 20);
  TsKernelRecord *a, *b;
  float host[4];
  guint64 c1, c2;

  c1 = launch_fill (rt, 0, buf, 1 << 20, 1.5f, &error);
  c2 = launch_fill (rt, 0, buf, 1 << 19, 2.5f, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (c1, !=, 0);
  g_assert_cmpuint (c2, >, c1);

  /* the items are timed once the device has passed them */
  g_assert_true (ts_runtime_device_synchronize (rt, 0, &error));
  g_assert_no_error (error);
  kernels = kernel_records (rt);
  g_assert_cmpuint (kernels->len, ==, 2);
  a = &g_array_index (kernels, TsKernelRecord, 0);
  b = &g_array_index (kernels, TsKernelRecord, 1);
  g_assert_cmpuint (a->correlation, ==, c1);
  g_assert_cmpuint (b->correlation, ==, c2);
  g_assert_cmpuint (a->grid[0], ==, 4);
  g_assert_cmpuint (a->block[0], ==, 128);
  g_assert_cmpuint (a->grid[1], ==, 1);
  /* The kernels take 2 us + 4 MiB / 2 TB/s and 2 us + 2 MiB / 2 TB/s.
   * Timed by events, the first one also counts its launch gap: its start
   * event completes on the idle stream when recorded, the kernel starts
   * when launched, 1 us of the fake's host time later (CUPTI would not
   * count it). The second is queued behind the first: only the 1 ns each
   * event takes on the fake separates them. Float milliseconds from the
   * base event give the times to within a nanosecond. */
  assert_near (a->end - a->start, 999 + 4097 + 1);
  assert_near (b->start - a->end, 1);
  assert_near (b->end - b->start, 3049);
  g_assert_cmpint (a->queued, <=, b->queued);

  /* the results are the device's */
  g_assert_cmpint (k->memcpy_sync (host, buf, sizeof host), ==, 0);
  g_assert_cmpfloat (host[0], ==, 2.5f);
  g_assert_cmpint (k->memcpy_sync (host, buf + (1 << 19), sizeof host), ==, 0);
  g_assert_cmpfloat (host[0], ==, 1.5f);
  k->free_device (buf);
}

static void
test_events (void)
{
  g_autoptr(TsRuntime) rt = hardware_runtime (FALSE);
  g_autoptr(GError) error = NULL;
  float *buf = device_buffer (0, 1 << 20);
  guint64 start = ts_runtime_event_new (rt, TS_EVENT_TIMING);
  guint64 end = ts_runtime_event_new (rt, TS_EVENT_TIMING);
  guint64 untimed = ts_runtime_event_new (rt, TS_EVENT_DEFAULT);
  TsStreamId side = ts_runtime_stream_new (rt, 0, 0, &error);
  gboolean done = FALSE;
  double ms = 0;

  /* a never-recorded event is done, as in PyTorch */
  g_assert_true (ts_runtime_event_query (rt, start, &done, &error));
  g_assert_true (done);
  g_assert_false (ts_runtime_event_elapsed_time (rt, start, end, &ms, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_EVENT_NOT_RECORDED);
  g_clear_error (&error);

  g_assert_true (ts_runtime_event_record (rt, start, 0, &error));
  launch_fill (rt, 0, buf, 1 << 20, 1.0f, &error);
  g_assert_true (ts_runtime_event_record (rt, end, 0, &error));
  g_assert_true (ts_runtime_event_synchronize (rt, end, &error));
  g_assert_no_error (error);
  g_assert_true (ts_runtime_event_elapsed_time (rt, start, end, &ms, &error));
  g_assert_no_error (error);
  /* cudaEventElapsedTime's float. The fill takes 2 us + 4 MiB at 2 TB/s
   * (4.097152 us); the stream was idle, so it starts when launched, and
   * the fake charges the host 1 us per call: 3 calls come between the
   * user's start event and the launch (the device's time base, the first
   * time it times work, and the kernel's own start event, both recorded
   * on this stream). Three events in between take 1 ns each. */
  g_assert_cmpfloat (ms, ==, (double) (float) 0.007098152);

  g_assert_true (ts_runtime_event_record (rt, untimed, 0, &error));
  g_assert_false (ts_runtime_event_elapsed_time (rt, start, untimed, &ms, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_EVENT_TIMING);
  g_clear_error (&error);

  /* a wait moves the side stream's clock past the main stream's work:
   * its kernel starts where the fill ended */
  g_assert_true (ts_runtime_stream_wait_event (rt, side, end, &error));
  launch_fill (rt, side, buf, 1 << 10, 3.0f, &error);
  g_assert_true (ts_runtime_stream_synchronize (rt, side, &error));
  g_assert_true (ts_runtime_stream_query (rt, side, &done, &error));
  g_assert_no_error (error);
  g_assert_true (done);
  {
    g_autoptr(GArray) kernels = kernel_records (rt);
    TsKernelRecord *fill = &g_array_index (kernels, TsKernelRecord, 0);
    TsKernelRecord *after = &g_array_index (kernels, TsKernelRecord, 1);

    g_assert_cmpuint (kernels->len, ==, 2);
    g_assert_cmpuint (after->stream, ==, side);
    g_assert_cmpint (after->start, >=, fill->end);
  }
  /* an event of device 1 cannot be timed against one of device 0 */
  {
    guint64 other = ts_runtime_event_new (rt, TS_EVENT_TIMING);

    g_assert_true (ts_runtime_event_record (rt, other, ts_runtime_get_default_stream (rt, 1, NULL), &error));
    g_assert_false (ts_runtime_event_elapsed_time (rt, start, other, &ms, &error));
    g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_CUDA);
    g_clear_error (&error);
  }
  g_assert_true (ts_runtime_event_free (rt, start, &error));
  k->free_device (buf);
}

static void
test_no_device_function (void)
{
  g_autoptr(TsRuntime) rt = hardware_runtime (FALSE);
  g_autoptr(GError) error = NULL;
  TsKernelDesc desc = { .name = "cpu_only" };

  /* a work item with only a CPU function cannot run on a GPU */
  g_assert_cmpuint (ts_runtime_launch_kernel (rt, 0, &desc, &error), ==, 0);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_CUDA);
  g_assert_true (g_str_has_prefix (error->message, "CUDA error: operation not supported"));
}

static guint64
launch_bad_select (TsRuntime  *rt,
                   GError    **error)
{
  TsKernelDesc desc = { .name = "index_select" };
  float *in = device_buffer (0, 4);
  gint64 *index = (gint64 *) device_buffer (0, 2);
  gint64 bad = 7;
  Select *s = g_new (Select, 1);

  g_assert_cmpint (k->memcpy_sync (index, &bad, sizeof bad), ==, 0);
  *s = (Select) { device_buffer (0, 1), in, index };
  desc.work = (TsWork) { .on_device = select_on_device, .destroy = g_free, .data = s };
  return ts_runtime_launch_kernel (rt, 0, &desc, error);
}

/* A device-side assert is sticky: it surfaces at the next call that
 * looks at the device, with PyTorch's text, and stays. */
static void
test_sticky_error_subprocess (void)
{
  g_autoptr(TsRuntime) rt = hardware_runtime (FALSE);
  g_autoptr(GError) error = NULL;
  TsRecorder *recorder = ts_runtime_get_recorder (rt);
  guint64 launch;

  launch = launch_bad_select (rt, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (launch, !=, 0);

  g_assert_false (ts_runtime_device_synchronize (rt, 0, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_DEVICE_FAULT);
  g_assert_true (g_str_has_prefix (error->message, "CUDA error: device-side assert triggered\n"
                                   "CUDA kernel errors might be asynchronously reported"));
  g_clear_error (&error);
  g_assert_cmpuint (ts_recorder_get_count (recorder, TS_RECORD_ERROR), ==, 1);

  /* later work is refused with the same error */
  g_assert_cmpuint (launch_fill (rt, 0, NULL, 0, 0, &error), ==, 0);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_DEVICE_FAULT);
  g_clear_error (&error);
  /* the error is the process's: CUDA's sticky errors leave every
   * device unusable until the process ends */
  g_assert_false (ts_runtime_stream_synchronize (rt, ts_runtime_get_default_stream (rt, 1, NULL), &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_DEVICE_FAULT);
}

/* With launch blocking the launch itself reports it, without the
 * "asynchronously reported" note, and the error record points at it. */
static void
test_sticky_error_blocking_subprocess (void)
{
  g_autoptr(TsRuntime) rt = hardware_runtime (TRUE);
  g_autoptr(GError) error = NULL;
  TsRecorder *recorder = ts_runtime_get_recorder (rt);
  TsErrorRecord rec;

  g_assert_cmpuint (launch_bad_select (rt, &error), ==, 0);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_DEVICE_FAULT);
  g_assert_null (strstr (error->message, "asynchronously"));
  g_assert_cmpuint (ts_recorder_get_count (recorder, TS_RECORD_ERROR), ==, 1);
  g_assert_true (ts_recorder_get (recorder, TS_RECORD_ERROR, 0, &rec));
  g_assert_cmpuint (rec.code, ==, TS_DEVICE_ERROR_ASSERT);
  g_assert_cmpuint (rec.kernel_correlation, ==, rec.surfaced_correlation);
}

static void
test_sticky_error (void)
{
  g_test_trap_subprocess ("/runtime-hardware/sticky-error/subprocess", 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*../aten/src/ATen/native/cuda/Indexing.cu:1236: indexSelectSmallIndex: "
                             "block: [0,0,0], thread: [0,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n*");
  g_test_trap_subprocess ("/runtime-hardware/sticky-error-blocking/subprocess", 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/runtime-hardware/devices", test_devices);
  g_test_add_func ("/runtime-hardware/kernel-times", test_kernel_times);
  g_test_add_func ("/runtime-hardware/events", test_events);
  g_test_add_func ("/runtime-hardware/no-device-function", test_no_device_function);
  g_test_add_func ("/runtime-hardware/sticky-error", test_sticky_error);
  g_test_add_func ("/runtime-hardware/sticky-error/subprocess", test_sticky_error_subprocess);
  g_test_add_func ("/runtime-hardware/sticky-error-blocking/subprocess", test_sticky_error_blocking_subprocess);

  return g_test_run ();
}
