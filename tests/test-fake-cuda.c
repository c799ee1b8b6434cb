/* test-fake-cuda.c: the fake CUDA module, through the core's loader
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The module (tests/fake-cuda/ts-fake-cuda.c) stands in for a GPU in the
 * runtime's tests, so this checks it keeps CUDA's semantics and its timing
 * model's exact numbers: 2 us + bytes / (2 TB/s) per kernel on device
 * memory, + bytes / (25 GB/s) for copies touching host memory, + flops /
 * (50 TFLOP/s). Values are exact: the kernels are the CPU kernels.
 */

#include "config.h"

#include <string.h>

#include <gmodule.h>

#include "ts-cpu-kernels.h"
#include "ts-cuda-backend.h"
#include "ts-fake-cuda.h"

#define N_DEVICES 3
#define MEMORY    G_GUINT64_CONSTANT (67108864)   /* 64 MiB per device */
#define MEGA      1000000

static const TsCudaKernels *k;
static TsFakeCudaGetCounters get_counters;
static TsFakeCudaGetStreamTime get_stream_time;

static const char *
module_path (void)
{
  return g_getenv ("TENSORSCOPE_CUDA_MODULE");
}

/* Opens the module once per process, as the runtime does. */
static gboolean
open_module (void)
{
  static TsCudaBackend *backend;
  static GModule *hooks;
  g_autoptr(GError) error = NULL;

  if (module_path () == NULL)
    {
      g_test_skip ("TENSORSCOPE_CUDA_MODULE is not set");
      return FALSE;
    }
  if (backend != NULL)
    return TRUE;
  backend = ts_cuda_backend_open (module_path (), &error);
  g_assert_no_error (error);
  g_assert_cmpint (ts_cuda_backend_get_n_devices (backend), ==, N_DEVICES);
  k = ts_cuda_backend_get_kernels (backend);
  /* The same library again: its test hooks. */
  hooks = g_module_open (module_path (), G_MODULE_BIND_LOCAL);
  g_assert_nonnull (hooks);
  g_assert_true (g_module_symbol (hooks, "ts_fake_cuda_get_counters", (gpointer *)&get_counters));
  g_assert_true (g_module_symbol (hooks, "ts_fake_cuda_get_stream_time", (gpointer *)&get_stream_time));
  g_assert_cmpint (k->set_device (0), ==, 0);
  return TRUE;
}

/* A contiguous view. */
static TsCudaView
view (int dtype, void *data, int ndim, const int64_t *shape)
{
  TsCudaView v;
  int64_t stride = 1;

  memset (&v, 0, sizeof v);
  v.dtype = dtype;
  v.ndim = ndim;
  v.data = data;
  for (int d = ndim - 1; d >= 0; d--)
    {
      v.shape[d] = shape[d];
      v.strides[d] = stride;
      stride *= shape[d];
    }
  return v;
}

static TsCudaView
scalar (int dtype, double dvalue, int64_t ivalue)
{
  TsCudaView v;

  memset (&v, 0, sizeof v);
  v.dtype = dtype;
  v.dvalue = dvalue;
  v.ivalue = ivalue;
  return v;
}

static void *
upload (const void *host, gsize bytes)
{
  void *p = NULL;

  g_assert_cmpint (k->malloc_device (&p, bytes), ==, 0);
  g_assert_cmpint (k->memcpy_sync (p, host, bytes), ==, 0);
  return p;
}

static void
download (void *host, const void *device, gsize bytes)
{
  g_assert_cmpint (k->memcpy_sync (host, device, bytes), ==, 0);
}

static void
test_devices (void)
{
  char name[64];
  int count = -1, sms, major, minor, threads, device = -1, least, greatest;
  uint64_t total;

  if (!open_module ())
    return;
  g_assert_cmpint (k->device_count (&count), ==, 0);
  g_assert_cmpint (count, ==, N_DEVICES);
  g_assert_cmpint (k->device_info (2, name, sizeof name, &sms, &major, &minor, &total, &threads), ==, 0);
  g_assert_cmpstr (name, ==, "Fake CUDA Device (H100)");
  g_assert_cmpint (sms, ==, 132);
  g_assert_cmpint (major, ==, 9);
  g_assert_cmpint (minor, ==, 0);
  g_assert_cmpuint (total, ==, MEMORY);
  g_assert_cmpint (threads, ==, 2048);
  g_assert_cmpint (k->device_info (3, name, sizeof name, &sms, &major, &minor, &total, &threads), ==, 101);
  g_assert_cmpint (k->set_device (3), ==, 101);
  g_assert_cmpint (k->set_device (2), ==, 0);
  g_assert_cmpint (k->get_device (&device), ==, 0);
  g_assert_cmpint (device, ==, 2);
  g_assert_cmpint (k->set_device (0), ==, 0);
  g_assert_cmpint (k->stream_priority_range (&least, &greatest), ==, 0);
  g_assert_cmpint (least, ==, 0);
  g_assert_cmpint (greatest, ==, -5);
  g_assert_cmpstr (k->error_string (710), ==, "device-side assert triggered");
  g_assert_cmpstr (k->error_string (2), ==, "out of memory");
  g_assert_cmpstr (k->error_string (100), ==, "no CUDA-capable device is detected");
  g_assert_cmpstr (k->error_string (600), ==, "device not ready");
  g_assert_cmpstr (k->error_string (1), ==, "invalid argument");
  g_assert_cmpstr (k->error_string (801), ==, "operation not supported");
  g_assert_cmpstr (k->error_string (400), ==, "invalid resource handle");
}

static gpointer
other_thread_device (gpointer data)
{
  int device = -1;

  g_assert_cmpint (k->get_device (&device), ==, 0);
  return GINT_TO_POINTER (device + 1);
}

/* cudaSetDevice is per host thread. */
static void
test_device_per_thread (void)
{
  GThread *thread;

  if (!open_module ())
    return;
  g_assert_cmpint (k->set_device (1), ==, 0);
  thread = g_thread_new ("other", other_thread_device, NULL);
  g_assert_cmpint (GPOINTER_TO_INT (g_thread_join (thread)), ==, 0 + 1);
  g_assert_cmpint (k->set_device (0), ==, 0);
}

static void
test_no_device (void)
{
  if (module_path () == NULL)
    {
      g_test_skip ("TENSORSCOPE_CUDA_MODULE is not set");
      return;
    }
  if (g_test_subprocess ())
    {
      g_autoptr(GError) error = NULL;
      TsCudaBackend *backend = ts_cuda_backend_open (module_path (), &error);

      g_assert_null (backend);
      g_assert_error (error, TS_CUDA_BACKEND_ERROR, TS_CUDA_BACKEND_ERROR_NO_DEVICE);
      g_assert_cmpstr (error->message, ==, "No CUDA GPUs are available (no CUDA-capable device is detected)");
      return;
    }
  /* The child inherits the environment; the module reads it once. */
  g_setenv ("TS_FAKE_CUDA_DEVICES", "0", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_setenv ("TS_FAKE_CUDA_DEVICES", G_STRINGIFY (N_DEVICES), TRUE);
  g_test_trap_assert_passed ();
}

static void
test_memory (void)
{
  TsFakeCudaCounters before, after;
  uint64_t free_bytes, total;
  void *p = NULL, *q = (void *)1, *host = NULL;
  int on_stack;

  if (!open_module ())
    return;
  get_counters (&before);
  g_assert_cmpint (k->set_device (1), ==, 0);
  g_assert_cmpint (k->mem_get_info (&free_bytes, &total), ==, 0);
  g_assert_cmpuint (free_bytes, ==, MEMORY);
  g_assert_cmpuint (total, ==, MEMORY);

  g_assert_cmpint (k->malloc_device (&p, 1000), ==, 0);
  g_assert_nonnull (p);
  g_assert_cmpuint ((guintptr)p % 256, ==, 0);
  g_assert_cmpint (k->mem_get_info (&free_bytes, &total), ==, 0);
  g_assert_cmpuint (free_bytes, ==, MEMORY - 1000);
  /* Another device's memory is its own. */
  g_assert_cmpint (k->set_device (0), ==, 0);
  g_assert_cmpint (k->mem_get_info (&free_bytes, &total), ==, 0);
  g_assert_cmpuint (free_bytes, ==, MEMORY);
  g_assert_cmpint (k->set_device (1), ==, 0);

  /* Past what is free: out of memory, nothing taken. */
  g_assert_cmpint (k->malloc_device (&q, MEMORY - 999), ==, 2);
  g_assert_null (q);
  g_assert_cmpint (k->malloc_device (&q, MEMORY - 1000), ==, 0);
  g_assert_cmpint (k->mem_get_info (&free_bytes, &total), ==, 0);
  g_assert_cmpuint (free_bytes, ==, 0);
  g_assert_cmpint (k->free_device (q), ==, 0);

  /* Freed from another current device, as CUDA allows. */
  g_assert_cmpint (k->set_device (0), ==, 0);
  g_assert_cmpint (k->free_device (p), ==, 0);
  g_assert_cmpint (k->free_device (p), ==, 1);
  g_assert_cmpint (k->free_device (&on_stack), ==, 1);
  g_assert_cmpint (k->free_device (NULL), ==, 0);
  g_assert_cmpint (k->set_device (1), ==, 0);
  g_assert_cmpint (k->mem_get_info (&free_bytes, &total), ==, 0);
  g_assert_cmpuint (free_bytes, ==, MEMORY);

  g_assert_cmpint (k->malloc_host (&host, 4096), ==, 0);
  g_assert_cmpint (k->free_device (host), ==, 1);
  g_assert_cmpint (k->mem_get_info (&free_bytes, &total), ==, 0);
  g_assert_cmpuint (free_bytes, ==, MEMORY);
  g_assert_cmpint (k->free_host (host), ==, 0);
  g_assert_cmpint (k->set_device (0), ==, 0);

  get_counters (&after);
  g_assert_cmpuint (after.mallocs - before.mallocs, ==, 2);
  g_assert_cmpuint (after.frees - before.frees, ==, 2);
}

/* A float32 fill of a million elements: 2 us + 4 MB / (2 TB/s) = 4 us. */
static int
fill_mega (void *buffer, void *stream)
{
  int64_t n = MEGA;
  TsCudaView v = view (TS_CUDA_FLOAT32, buffer, 1, &n);

  return k->fill (&v, 1.5, stream);
}

static void
test_event_timing (void)
{
  void *stream, *start, *end, *no_timing, *unrecorded, *buffer, *host;
  float ms = -1, first;
  guint64 t0;

  if (!open_module ())
    return;
  g_assert_cmpint (k->stream_create (&stream, -10), ==, 0);
  g_assert_cmpuint (get_stream_time (stream), ==, 0);
  g_assert_cmpint (k->malloc_device (&buffer, 4 * MEGA), ==, 0);
  g_assert_cmpint (k->event_create (&start, TS_CUDA_EVENT_DEFAULT), ==, 0);
  g_assert_cmpint (k->event_create (&end, TS_CUDA_EVENT_BLOCKING_SYNC), ==, 0);
  g_assert_cmpint (k->event_create (&no_timing, TS_CUDA_EVENT_DISABLE_TIMING), ==, 0);
  g_assert_cmpint (k->event_create (&unrecorded, TS_CUDA_EVENT_DEFAULT), ==, 0);
  g_assert_cmpint (k->event_create (&unrecorded, TS_CUDA_EVENT_INTERPROCESS), ==, 1);

  /* The stream is idle: the start event completes at the host's time
   * (plus the 1 ns an event takes), and the first fill starts when it is
   * launched, 1 us of host time after the record call. */
  g_assert_cmpint (k->event_record (start, stream), ==, 0);
  t0 = get_stream_time (stream);
  g_assert_cmpint (fill_mega (buffer, stream), ==, 0);
  g_assert_cmpint (fill_mega (buffer, stream), ==, 0);
  g_assert_cmpint (k->event_record (end, stream), ==, 0);
  g_assert_cmpint (k->event_record (no_timing, stream), ==, 0);
  /* 999 ns launch gap + two fills of 4 us + two events of 1 ns */
  g_assert_cmpuint (get_stream_time (stream), ==, t0 + 999000 + 8 * MEGA + 2000);
  /* the host has done 4 calls since: the work is not done yet */
  g_assert_cmpint (k->event_query (end), ==, 600);
  g_assert_cmpint (k->event_elapsed (&ms, start, end), ==, 600);
  g_assert_cmpint (k->stream_query (stream), ==, 600);
  g_assert_cmpint (k->event_sync (end), ==, 0);
  g_assert_cmpint (k->event_query (end), ==, 0);
  g_assert_cmpint (k->stream_sync (stream), ==, 0);
  g_assert_cmpint (k->stream_query (stream), ==, 0);
  g_assert_cmpint (k->event_elapsed (&ms, start, end), ==, 0);
  g_assert_cmpfloat (ms, ==, 0.009f);
  g_assert_cmpint (k->event_elapsed (&ms, end, start), ==, 0);
  g_assert_cmpfloat (ms, ==, -0.009f);
  first = ms;

  /* cudaEventElapsedTime's documented errors. */
  g_assert_cmpint (k->event_elapsed (&ms, start, no_timing), ==, 400);
  g_assert_cmpint (k->event_elapsed (&ms, start, unrecorded), ==, 400);
  g_assert_cmpfloat (ms, ==, first);

  /* A copy from host memory: 2 us + 1 MB / (25 GB/s) = 42 us. */
  /* (after a fill, so that the stream is busy and the copy follows it
   * rather than the host's clock) */
  host = g_malloc0 (MEGA);
  g_assert_cmpint (fill_mega (buffer, stream), ==, 0);
  t0 = get_stream_time (stream);
  g_assert_cmpint (k->memcpy_async (buffer, host, MEGA, stream), ==, 0);
  g_assert_cmpuint (get_stream_time (stream), ==, t0 + 42 * MEGA);
  /* Device to device: 2 us + 1 MB / (2 TB/s). */
  g_assert_cmpint (k->memcpy_async ((char *)buffer + MEGA, buffer, MEGA, stream), ==, 0);
  g_assert_cmpuint (get_stream_time (stream), ==, t0 + 42 * MEGA + 2 * MEGA + MEGA / 2);
  /* Past the end of an allocation. */
  g_assert_cmpint (k->memcpy_async ((char *)buffer + 3 * MEGA + 1, host, MEGA, stream), ==, 1);
  g_free (host);

  /* A kernel on a stream of another device. */
  g_assert_cmpint (k->set_device (1), ==, 0);
  g_assert_cmpint (fill_mega (buffer, stream), ==, 400);
  g_assert_cmpint (k->set_device (0), ==, 0);

  g_assert_cmpint (k->event_destroy (start), ==, 0);
  g_assert_cmpint (k->event_destroy (start), ==, 400);
  g_assert_cmpint (k->event_destroy (end), ==, 0);
  g_assert_cmpint (k->event_destroy (no_timing), ==, 0);
  g_assert_cmpint (k->event_destroy (unrecorded), ==, 0);
  g_assert_cmpint (k->stream_destroy (stream), ==, 0);
  g_assert_cmpint (k->stream_destroy (NULL), ==, 400);
  g_assert_cmpint (k->free_device (buffer), ==, 0);
}

static void
test_stream_wait (void)
{
  void *a, *b, *other, *ev, *b0, *b1, *unrecorded, *ev1, *buffer;
  float ms = -1;
  guint64 ta;

  if (!open_module ())
    return;
  g_assert_cmpint (k->malloc_device (&buffer, 4 * MEGA), ==, 0);
  g_assert_cmpint (k->stream_create (&a, 0), ==, 0);
  g_assert_cmpint (k->stream_create (&b, -1), ==, 0);
  g_assert_cmpint (k->event_create (&ev, 0), ==, 0);
  g_assert_cmpint (k->event_create (&b0, 0), ==, 0);
  g_assert_cmpint (k->event_create (&b1, 0), ==, 0);
  g_assert_cmpint (k->event_create (&unrecorded, 0), ==, 0);

  /* ev completes after a's fill (ta); b0, recorded on the idle stream b
   * two host calls (2 us) after the fill was launched, 2 us before it */
  g_assert_cmpint (fill_mega (buffer, a), ==, 0);
  g_assert_cmpint (k->event_record (ev, a), ==, 0);
  ta = get_stream_time (a);
  g_assert_cmpint (k->event_record (b0, b), ==, 0);
  g_assert_cmpint (k->stream_wait_event (b, ev), ==, 0);
  g_assert_cmpint (k->event_record (b1, b), ==, 0);
  g_assert_cmpuint (get_stream_time (b), ==, ta + 1000);
  g_assert_cmpint (k->event_elapsed (&ms, b0, b1), ==, 600);
  g_assert_cmpint (k->stream_sync (b), ==, 0);
  g_assert_cmpint (k->event_elapsed (&ms, b0, b1), ==, 0);
  g_assert_cmpfloat (ms, ==, 0.002001f);

  /* A wait never moves a clock back; an unrecorded event waits for nothing. */
  g_assert_cmpint (fill_mega (buffer, b), ==, 0);
  g_assert_cmpint (k->stream_wait_event (b, ev), ==, 0);
  g_assert_cmpint (k->stream_wait_event (b, unrecorded), ==, 0);
  g_assert_cmpuint (get_stream_time (b), ==, ta + 1000 + 4 * MEGA);
  g_assert_cmpuint (get_stream_time (a), ==, ta);

  /* Streams of other devices may wait on the event; recording it on one is
   * an error (another device's event). */
  g_assert_cmpint (k->set_device (1), ==, 0);
  g_assert_cmpint (k->stream_create (&other, 0), ==, 0);
  g_assert_cmpint (k->event_create (&ev1, 0), ==, 0);
  g_assert_cmpint (k->stream_wait_event (other, ev), ==, 0);
  g_assert_cmpuint (get_stream_time (other), ==, ta);
  g_assert_cmpint (k->event_record (ev, other), ==, 400);
  g_assert_cmpint (k->event_record (ev1, other), ==, 0);
  g_assert_cmpint (k->event_elapsed (&ms, ev, ev1), ==, 400);
  g_assert_cmpint (k->event_destroy (ev1), ==, 0);
  g_assert_cmpint (k->stream_destroy (other), ==, 0);
  g_assert_cmpint (k->set_device (0), ==, 0);

  g_assert_cmpint (k->event_destroy (ev), ==, 0);
  g_assert_cmpint (k->event_destroy (b0), ==, 0);
  g_assert_cmpint (k->event_destroy (b1), ==, 0);
  g_assert_cmpint (k->event_destroy (unrecorded), ==, 0);
  g_assert_cmpint (k->stream_destroy (a), ==, 0);
  g_assert_cmpint (k->stream_destroy (b), ==, 0);
  g_assert_cmpint (k->free_device (buffer), ==, 0);
}

static void
test_binary (void)
{
  const float a_host[6] = { 1, 2, 3, 4, 5, 6 };
  const float b_host[3] = { 10, 20, 30 };
  const int64_t shape[2] = { 2, 3 };
  const int64_t row = 3;
  const int64_t i_host[3] = { G_GINT64_CONSTANT (1) << 40, -1, 7 };
  float out_host[6];
  int64_t i_out[3];
  guint8 bools[6];
  void *a, *b, *out, *mask, *ia, *iout;
  TsCudaView va, vb, vout, vmask, s, via, viout;
  TsFakeCudaCounters before, after;

  if (!open_module ())
    return;
  get_counters (&before);
  a = upload (a_host, sizeof a_host);
  b = upload (b_host, sizeof b_host);
  g_assert_cmpint (k->malloc_device (&out, sizeof out_host), ==, 0);
  g_assert_cmpint (k->malloc_device (&mask, sizeof bools), ==, 0);
  va = view (TS_CUDA_FLOAT32, a, 2, shape);
  vb = view (TS_CUDA_FLOAT32, b, 1, &row);
  vout = view (TS_CUDA_FLOAT32, out, 2, shape);
  vmask = view (TS_CUDA_BOOL, mask, 2, shape);

  /* [2, 3] + [3], broadcast. */
  g_assert_cmpint (k->binary (TS_CUDA_ADD, &vout, &va, &vb, NULL), ==, 0);
  download (out_host, out, sizeof out_host);
  g_assert_cmpfloat (out_host[0], ==, 11);
  g_assert_cmpfloat (out_host[2], ==, 33);
  g_assert_cmpfloat (out_host[3], ==, 14);
  g_assert_cmpfloat (out_host[5], ==, 36);

  /* Scalar operands, either side. */
  s = scalar (TS_CUDA_FLOAT32, 2.5, 0);
  g_assert_cmpint (k->binary (TS_CUDA_MUL, &vout, &vout, &s, NULL), ==, 0);
  download (out_host, out, sizeof out_host);
  g_assert_cmpfloat (out_host[0], ==, 27.5);
  g_assert_cmpfloat (out_host[5], ==, 90);
  s = scalar (TS_CUDA_FLOAT32, 100, 0);
  g_assert_cmpint (k->binary (TS_CUDA_SUB, &vout, &s, &va, NULL), ==, 0);
  download (out_host, out, sizeof out_host);
  g_assert_cmpfloat (out_host[0], ==, 99);
  g_assert_cmpfloat (out_host[5], ==, 94);

  /* Comparisons write bool. */
  s = scalar (TS_CUDA_FLOAT32, 3, 0);
  g_assert_cmpint (k->binary (TS_CUDA_GT, &vmask, &va, &s, NULL), ==, 0);
  download (bools, mask, sizeof bools);
  g_assert_cmpmem (bools, sizeof bools, ((guint8[]){ 0, 0, 0, 1, 1, 1 }), 6);
  /* ... and only bool; operands of one dtype only. */
  g_assert_cmpint (k->binary (TS_CUDA_GT, &vout, &va, &s, NULL), ==, 1);
  s = scalar (TS_CUDA_FLOAT64, 3, 0);
  g_assert_cmpint (k->binary (TS_CUDA_ADD, &vout, &va, &s, NULL), ==, 1);

  /* int64 scalars travel in ivalue, exactly. */
  ia = upload (i_host, sizeof i_host);
  g_assert_cmpint (k->malloc_device (&iout, sizeof i_out), ==, 0);
  via = view (TS_CUDA_INT64, ia, 1, &row);
  viout = view (TS_CUDA_INT64, iout, 1, &row);
  s = scalar (TS_CUDA_INT64, 0, (G_GINT64_CONSTANT (1) << 53) + 1);
  g_assert_cmpint (k->binary (TS_CUDA_ADD, &viout, &via, &s, NULL), ==, 0);
  download (i_out, iout, sizeof i_out);
  g_assert_cmpint (i_out[0], ==, (G_GINT64_CONSTANT (1) << 53) + (G_GINT64_CONSTANT (1) << 40) + 1);
  g_assert_cmpint (i_out[1], ==, G_GINT64_CONSTANT (1) << 53);

  /* unary */
  g_assert_cmpint (k->unary (TS_CUDA_NEG, &vout, &va, NULL), ==, 0);
  download (out_host, out, sizeof out_host);
  g_assert_cmpfloat (out_host[4], ==, -5);
  g_assert_cmpint (k->unary (TS_CUDA_LOGICAL_NOT, &vmask, &va, NULL), ==, 0);
  g_assert_cmpint (k->unary (TS_CUDA_NEG, &vmask, &va, NULL), ==, 1);

  get_counters (&after);
  g_assert_cmpuint (after.launches - before.launches, ==, 7);

  g_assert_cmpint (k->free_device (a), ==, 0);
  g_assert_cmpint (k->free_device (b), ==, 0);
  g_assert_cmpint (k->free_device (out), ==, 0);
  g_assert_cmpint (k->free_device (mask), ==, 0);
  g_assert_cmpint (k->free_device (ia), ==, 0);
  g_assert_cmpint (k->free_device (iout), ==, 0);
}

static void
test_reduce (void)
{
  const int64_t shape[3] = { 2, 3, 4 };
  const int64_t kept[3] = { 1, 3, 1 };
  const int64_t flat = 3;
  const int64_t all[3] = { 1, 1, 1 };
  float out_host[3];
  void *in, *out;
  TsCudaView vin, vout;

  if (!open_module ())
    return;
  g_assert_cmpint (k->malloc_device (&in, 24 * sizeof (float)), ==, 0);
  g_assert_cmpint (k->malloc_device (&out, sizeof out_host), ==, 0);
  vin = view (TS_CUDA_FLOAT32, in, 3, shape);
  g_assert_cmpint (k->arange (&vin, 0, 1, NULL), ==, 0);

  /* x[i, j, k] = 12 i + 4 j + k summed over i and k: 60 + 32 j. */
  vout = view (TS_CUDA_FLOAT32, out, 3, kept);
  g_assert_cmpint (k->reduce (TS_CUDA_SUM, &vout, &vin, 0x5, NULL), ==, 0);
  download (out_host, out, sizeof out_host);
  g_assert_cmpfloat (out_host[0], ==, 60);
  g_assert_cmpfloat (out_host[1], ==, 92);
  g_assert_cmpfloat (out_host[2], ==, 124);
  /* The keepdim shape only. */
  vout = view (TS_CUDA_FLOAT32, out, 1, &flat);
  g_assert_cmpint (k->reduce (TS_CUDA_SUM, &vout, &vin, 0x5, NULL), ==, 1);

  vout = view (TS_CUDA_FLOAT32, out, 3, all);
  g_assert_cmpint (k->reduce (TS_CUDA_MEAN, &vout, &vin, 0, NULL), ==, 0);
  download (out_host, out, sizeof (float));
  g_assert_cmpfloat (out_host[0], ==, 11.5);
  g_assert_cmpint (k->reduce (TS_CUDA_AMAX, &vout, &vin, 0, NULL), ==, 0);
  download (out_host, out, sizeof (float));
  g_assert_cmpfloat (out_host[0], ==, 23);

  g_assert_cmpint (k->free_device (in), ==, 0);
  g_assert_cmpint (k->free_device (out), ==, 0);
}

static void
test_max_dim (void)
{
  const float in_host[6] = { 3, 7, 7, -1, 5, 2 };
  const int64_t shape[2] = { 2, 3 };
  const int64_t rows[2] = { 2, 1 };
  const int64_t cols[2] = { 1, 3 };
  float values[3];
  int64_t indices[3];
  void *in, *v, *ix;
  TsCudaView vin, vv, vix;

  if (!open_module ())
    return;
  in = upload (in_host, sizeof in_host);
  g_assert_cmpint (k->malloc_device (&v, sizeof values), ==, 0);
  g_assert_cmpint (k->malloc_device (&ix, sizeof indices), ==, 0);
  vin = view (TS_CUDA_FLOAT32, in, 2, shape);

  /* The first index of the extreme wins. */
  vv = view (TS_CUDA_FLOAT32, v, 2, rows);
  vix = view (TS_CUDA_INT64, ix, 2, rows);
  g_assert_cmpint (k->max_dim (&vv, &vix, &vin, 1, FALSE, NULL), ==, 0);
  download (values, v, 2 * sizeof (float));
  download (indices, ix, 2 * sizeof (int64_t));
  g_assert_cmpfloat (values[0], ==, 7);
  g_assert_cmpfloat (values[1], ==, 5);
  g_assert_cmpint (indices[0], ==, 1);
  g_assert_cmpint (indices[1], ==, 1);

  vv = view (TS_CUDA_FLOAT32, v, 2, cols);
  vix = view (TS_CUDA_INT64, ix, 2, cols);
  g_assert_cmpint (k->max_dim (&vv, &vix, &vin, 0, TRUE, NULL), ==, 0);
  download (values, v, sizeof values);
  download (indices, ix, sizeof indices);
  g_assert_cmpfloat (values[0], ==, -1);
  g_assert_cmpfloat (values[1], ==, 5);
  g_assert_cmpfloat (values[2], ==, 2);
  g_assert_cmpint (indices[0], ==, 1);
  g_assert_cmpint (indices[1], ==, 1);
  g_assert_cmpint (indices[2], ==, 1);
  g_assert_cmpint (k->max_dim (&vv, &vix, &vin, 2, TRUE, NULL), ==, 1);

  g_assert_cmpint (k->free_device (in), ==, 0);
  g_assert_cmpint (k->free_device (v), ==, 0);
  g_assert_cmpint (k->free_device (ix), ==, 0);
}

static void
test_matmul (void)
{
  const float a_host[6] = { 1, 2, 3, 4, 5, 6 };
  const float b_host[6] = { 1, 0, 0, 1, 1, 1 };
  const int64_t as[2] = { 2, 3 }, bs[2] = { 3, 2 }, os[2] = { 2, 2 };
  float out_host[4];
  void *a, *b, *out, *stream;
  TsCudaView va, vb, vout;
  guint64 t0, t1;

  if (!open_module ())
    return;
  a = upload (a_host, sizeof a_host);
  b = upload (b_host, sizeof b_host);
  g_assert_cmpint (k->malloc_device (&out, sizeof out_host), ==, 0);
  g_assert_cmpint (k->stream_create (&stream, 0), ==, 0);
  va = view (TS_CUDA_FLOAT32, a, 2, as);
  vb = view (TS_CUDA_FLOAT32, b, 2, bs);
  vout = view (TS_CUDA_FLOAT32, out, 2, os);
  /* busy first (a 1 MB copy), so that the matmul starts when it ends */
  g_assert_cmpint (k->memcpy_async (out, a, sizeof out_host, stream), ==, 0);
  t0 = get_stream_time (stream);
  g_assert_cmpint (k->matmul (&vout, &va, &vb, stream), ==, 0);
  t1 = get_stream_time (stream);
  download (out_host, out, sizeof out_host);
  g_assert_cmpmem (out_host, sizeof out_host, ((float[]){ 4, 5, 10, 11 }), 4 * sizeof (float));
  /* 2 us + 64 bytes / (2 TB/s) + 24 flops / (50 TFLOP/s), in ps. */
  g_assert_cmpuint (t1 - t0, ==, 2000000 + 32 + 1);

  g_assert_cmpint (k->stream_destroy (stream), ==, 0);
  g_assert_cmpint (k->free_device (a), ==, 0);
  g_assert_cmpint (k->free_device (b), ==, 0);
  g_assert_cmpint (k->free_device (out), ==, 0);
}

static void
test_copies (void)
{
  const int64_t n = 4;
  const int64_t big = (G_GINT64_CONSTANT (1) << 62) + 1;
  guint8 bytes[16];
  int64_t ints[4];
  void *d0, *d1, *f, *i;
  TsCudaView vf, vi;
  int on_stack;

  if (!open_module ())
    return;
  g_assert_cmpint (k->malloc_device (&d0, 16), ==, 0);
  g_assert_cmpint (k->set_device (2), ==, 0);
  g_assert_cmpint (k->malloc_device (&d1, 16), ==, 0);
  g_assert_cmpint (k->set_device (0), ==, 0);

  g_assert_cmpint (k->memset_async (d0, 0xab, 16, NULL), ==, 0);
  g_assert_cmpint (k->memset_async (&on_stack, 0, sizeof on_stack, NULL), ==, 1);
  g_assert_cmpint (k->memset_async (d0, 0, 17, NULL), ==, 1);
  g_assert_cmpint (k->memcpy_peer_async (d1, 2, d0, 0, 16, NULL), ==, 0);
  g_assert_cmpint (k->memcpy_peer_async (d1, 1, d0, 0, 16, NULL), ==, 1);
  g_assert_cmpint (k->memcpy_peer_async (d1, 3, d0, 0, 16, NULL), ==, 101);
  download (bytes, d1, sizeof bytes);
  g_assert_cmpuint (bytes[0], ==, 0xab);
  g_assert_cmpuint (bytes[15], ==, 0xab);

  /* copy casts; fill_int keeps what a double cannot. */
  g_assert_cmpint (k->malloc_device (&f, n * sizeof (float)), ==, 0);
  g_assert_cmpint (k->malloc_device (&i, n * sizeof (int64_t)), ==, 0);
  vf = view (TS_CUDA_FLOAT32, f, 1, &n);
  vi = view (TS_CUDA_INT64, i, 1, &n);
  g_assert_cmpint (k->arange (&vf, -1, 0.75, NULL), ==, 0);
  g_assert_cmpint (k->copy (&vi, &vf, NULL), ==, 0);
  download (ints, i, sizeof ints);
  g_assert_cmpmem (ints, sizeof ints, ((int64_t[]){ -1, 0, 0, 1 }), 4 * sizeof (int64_t));
  g_assert_cmpint (k->fill_int (&vi, big, NULL), ==, 0);
  download (ints, i, sizeof ints);
  g_assert_cmpint (ints[3], ==, big);

  g_assert_cmpint (k->free_device (d0), ==, 0);
  g_assert_cmpint (k->free_device (d1), ==, 0);
  g_assert_cmpint (k->free_device (f), ==, 0);
  g_assert_cmpint (k->free_device (i), ==, 0);
}

/* The CPU kernels' Philox fill with this device's SM count, and, on its
 * own, curand's first words: element 0 is lane 0 of thread 0's first
 * draw, element 1 lane 0 of thread 1's (a grid of 4 x 256 threads). */
static void
test_random (void)
{
  const int64_t n = 1000;
  const guint64 seed = 42, offset = 8;
  g_autofree float *got = g_new (float, n);
  g_autofree float *want = g_new (float, n);
  g_autoptr(GError) error = NULL;
  TsPhiloxLaunch plan;
  TsPhiloxState state;
  float u[4];
  TsCudaView v;
  TsView host;
  void *d;

  if (!open_module ())
    return;
  g_assert_cmpint (k->malloc_device (&d, n * sizeof (float)), ==, 0);
  v = view (TS_CUDA_FLOAT32, d, 1, &n);
  ts_view_init (&host, TS_DTYPE_FLOAT32, want, 1, &n, NULL, 0);
  ts_cpu_random_plan (&host, 132, 2048, &plan);
  g_assert_cmpuint (plan.grid_size, ==, 4);

  g_assert_cmpint (k->random (TS_CUDA_UNIFORM, &v, 0, 1, seed, offset, NULL), ==, 0);
  download (got, d, n * sizeof (float));
  g_assert_true (ts_cpu_uniform (&host, 0, 1, seed, offset, &plan, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (got, n * sizeof (float), want, n * sizeof (float));
  ts_philox_state_init (&state, seed, 0, offset);
  ts_philox_uniform4 (&state, u);
  g_assert_cmpfloat (got[0], ==, u[0]);
  ts_philox_state_init (&state, seed, 1, offset);
  ts_philox_uniform4 (&state, u);
  g_assert_cmpfloat (got[1], ==, u[0]);

  g_assert_cmpint (k->random (TS_CUDA_NORMAL, &v, 1, 2, seed, offset + 4, NULL), ==, 0);
  download (got, d, n * sizeof (float));
  g_assert_true (ts_cpu_normal (&host, 1, 2, seed, offset + 4, &plan, &error));
  g_assert_cmpmem (got, n * sizeof (float), want, n * sizeof (float));

  g_assert_cmpint (k->free_device (d), ==, 0);
}

static void
test_index (void)
{
  const float in_host[6] = { 0, 1, 10, 11, 20, 21 };
  const int64_t index_host[4] = { 2, 0, 1, 1 };
  const int64_t in_shape[2] = { 3, 2 }, out_shape[2] = { 2, 2 }, n_index = 2;
  float out_host[4];
  void *in, *index, *out;
  TsCudaView vin, vindex, vout;

  if (!open_module ())
    return;
  in = upload (in_host, sizeof in_host);
  index = upload (index_host, sizeof index_host);
  g_assert_cmpint (k->malloc_device (&out, sizeof out_host), ==, 0);
  vin = view (TS_CUDA_FLOAT32, in, 2, in_shape);
  vout = view (TS_CUDA_FLOAT32, out, 2, out_shape);

  vindex = view (TS_CUDA_INT64, index, 1, &n_index);
  g_assert_cmpint (k->index_select (&vout, &vin, 0, &vindex, NULL), ==, 0);
  download (out_host, out, sizeof out_host);
  g_assert_cmpmem (out_host, sizeof out_host, ((float[]){ 20, 21, 0, 1 }), 4 * sizeof (float));

  /* out[i][j] = in[index[i][j]][j] */
  vindex = view (TS_CUDA_INT64, index, 2, out_shape);
  g_assert_cmpint (k->gather (&vout, &vin, 0, &vindex, NULL), ==, 0);
  download (out_host, out, sizeof out_host);
  g_assert_cmpmem (out_host, sizeof out_host, ((float[]){ 20, 1, 10, 11 }), 4 * sizeof (float));
  g_assert_cmpint (k->peek_error (), ==, 0);

  g_assert_cmpint (k->free_device (in), ==, 0);
  g_assert_cmpint (k->free_device (index), ==, 0);
  g_assert_cmpint (k->free_device (out), ==, 0);
}

/* In a child: a device-side assert poisons the process. */
static void
index_out_of_range (gboolean select)
{
  const float in_host[6] = { 0, 1, 10, 11, 20, 21 };
  const int64_t index_host[4] = { 1, 7, 0, -1 };
  const int64_t in_shape[2] = { 3, 2 }, out_shape[2] = { 2, 2 }, n_index = 2;
  float out_host[4];
  void *in, *index, *out, *p = NULL, *stream = NULL;
  uint64_t free_bytes, total;
  TsCudaView vin, vindex, vout;

  in = upload (in_host, sizeof in_host);
  index = upload (index_host, sizeof index_host);
  g_assert_cmpint (k->malloc_device (&out, sizeof out_host), ==, 0);
  vin = view (TS_CUDA_FLOAT32, in, 2, in_shape);
  vout = view (TS_CUDA_FLOAT32, out, 2, out_shape);
  g_assert_cmpint (k->fill (&vout, -1, NULL), ==, 0);

  if (select)
    {
      vindex = view (TS_CUDA_INT64, index, 1, &n_index);
      g_assert_cmpint (k->index_select (&vout, &vin, 0, &vindex, NULL), ==, 0);
    }
  else
    {
      vindex = view (TS_CUDA_INT64, (int64_t *)index + 2, 2, (int64_t[]){ 1, 2 });
      vout.shape[0] = 1;
      g_assert_cmpint (k->gather (&vout, &vin, 1, &vindex, NULL), ==, 0);
    }
  /* Sticky: everything says so from now on. */
  g_assert_cmpint (k->peek_error (), ==, 710);
  g_assert_cmpint (k->peek_error (), ==, 710);
  g_assert_cmpint (k->device_sync (), ==, 710);
  g_assert_cmpint (k->stream_sync (NULL), ==, 710);
  g_assert_cmpint (k->stream_query (NULL), ==, 710);
  g_assert_cmpint (k->stream_create (&stream, 0), ==, 710);
  g_assert_cmpint (k->malloc_device (&p, 16), ==, 710);
  g_assert_cmpint (k->mem_get_info (&free_bytes, &total), ==, 710);
  g_assert_cmpint (k->fill (&vout, 0, NULL), ==, 710);
  g_assert_cmpint (k->memcpy_sync (out_host, out, sizeof out_host), ==, 710);
  /* Nothing was written: read the host memory behind the fake device. */
  memcpy (out_host, out, sizeof out_host);
  g_assert_cmpfloat (out_host[0], ==, -1);
  g_assert_cmpfloat (out_host[1], ==, -1);
  g_assert_cmpint (k->free_device (in), ==, 710);
  g_assert_cmpint (k->free_device (index), ==, 710);
  g_assert_cmpint (k->free_device (out), ==, 710);
}

static void
test_index_select_assert (void)
{
  if (!open_module ())
    return;
  if (g_test_subprocess ())
    {
      index_out_of_range (TRUE);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  /* The simulator's lines: with 16 indices or fewer PyTorch runs
   * indexSelectSmallIndex, whose threads each own an element of the slice
   * (2 here) and walk every index: both threads meet index 7. */
  g_test_trap_assert_stderr ("../aten/src/ATen/native/cuda/Indexing.cu:1236: indexSelectSmallIndex: "
                             "block: [0,0,0], thread: [0,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n"
                             "../aten/src/ATen/native/cuda/Indexing.cu:1236: indexSelectSmallIndex: "
                             "block: [0,0,0], thread: [1,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n");
}

static void
test_gather_assert (void)
{
  if (!open_module ())
    return;
  if (g_test_subprocess ())
    {
      index_out_of_range (FALSE);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  /* Element 1 of the index (-1) belongs to thread 1 of block 0. */
  g_test_trap_assert_stderr ("../aten/src/ATen/native/cuda/ScatterGatherKernel.cu:144: operator(): "
                             "block: [0,0,0], thread: [1,0,0] Assertion `idx_dim >= 0 && idx_dim < "
                             "index_size && \"index out of bounds\"` failed.\n");
}

/* A kernel over memory the device never allocated: 700, sticky. */
static void
test_illegal_address (void)
{
  if (!open_module ())
    return;
  if (g_test_subprocess ())
    {
      float on_stack[4] = { 0 };
      int64_t n = 4;
      TsCudaView v = view (TS_CUDA_FLOAT32, on_stack, 1, &n);

      g_assert_cmpint (k->fill (&v, 1, NULL), ==, 0);
      g_assert_cmpfloat (on_stack[0], ==, 0);
      g_assert_cmpint (k->peek_error (), ==, 700);
      g_assert_cmpint (k->device_sync (), ==, 700);
      g_assert_cmpstr (k->error_string (700), ==, "an illegal memory access was encountered");
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*outside every live allocation*");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  /* Children inherit the parent's (see test_no_device); the module reads
   * them on its first call. */
  if (!g_test_subprocess ())
    {
      g_setenv ("TS_FAKE_CUDA_DEVICES", G_STRINGIFY (N_DEVICES), TRUE);
      g_setenv ("TS_FAKE_CUDA_MEMORY", "67108864", TRUE);
    }

  g_test_add_func ("/fake-cuda/devices", test_devices);
  g_test_add_func ("/fake-cuda/device-per-thread", test_device_per_thread);
  g_test_add_func ("/fake-cuda/no-device", test_no_device);
  g_test_add_func ("/fake-cuda/memory", test_memory);
  g_test_add_func ("/fake-cuda/event-timing", test_event_timing);
  g_test_add_func ("/fake-cuda/stream-wait", test_stream_wait);
  g_test_add_func ("/fake-cuda/binary", test_binary);
  g_test_add_func ("/fake-cuda/reduce", test_reduce);
  g_test_add_func ("/fake-cuda/max-dim", test_max_dim);
  g_test_add_func ("/fake-cuda/matmul", test_matmul);
  g_test_add_func ("/fake-cuda/copies", test_copies);
  g_test_add_func ("/fake-cuda/random", test_random);
  g_test_add_func ("/fake-cuda/index", test_index);
  g_test_add_func ("/fake-cuda/index-select-assert", test_index_select_assert);
  g_test_add_func ("/fake-cuda/gather-assert", test_gather_assert);
  g_test_add_func ("/fake-cuda/illegal-address", test_illegal_address);

  return g_test_run ();
}
