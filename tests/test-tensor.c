/* test-tensor.c: the tensor layer over the simulated devices
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <glib.h>
#include <math.h>
#include <string.h>

#include "ts-ops.h"
#include "ts-session.h"

#define CPU TS_DEVICE_CPU_VALUE
#define CUDA(i) ((TsDevice) { TS_DEVICE_CUDA, (i) })

static TsTensor *
new_filled (TsDevice      device,
            TsDType       dtype,
            guint         ndim,
            const gint64 *shape,
            double        value)
{
  g_autoptr(GError) error = NULL;
  TsTensor *t = ts_tensor_new_empty (device, dtype, ndim, shape, FALSE, &error);
  TsScalar s = { TS_DTYPE_FLOAT64, value, (gint64) value };

  g_assert_no_error (error);
  g_assert_true (ts_ops_fill (t, &s, &error));
  g_assert_no_error (error);
  return t;
}

static TsTensor *
host_copy (TsTensor *t)
{
  g_autoptr(GError) error = NULL;
  TsTensor *h = ts_ops_to_host (t, &error);

  g_assert_no_error (error);
  return h;
}

static void
test_views (void)
{
  gint64 shape[2] = { 2, 3 };
  gint64 bad[1] = { 5 };
  gint64 flat[1] = { 6 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) a = ts_tensor_new_empty (CPU, TS_DTYPE_FLOAT32, 2, shape, FALSE, &error);
  g_autoptr(TsTensor) t = NULL;
  g_autoptr(TsTensor) row = NULL;
  g_autoptr(TsTensor) v = NULL;

  g_assert_no_error (error);
  for (int i = 0; i < 6; i++)
    ((float *) ts_tensor_data (a))[i] = (float) i;

  t = ts_tensor_transpose (a, 0, 1, &error);
  g_assert_true (t->storage == a->storage);
  g_assert_cmpint (t->shape[0], ==, 3);
  g_assert_cmpint (t->strides[0], ==, 1);
  g_assert_cmpint (t->strides[1], ==, 3);
  g_assert_false (ts_tensor_is_contiguous (t));
  g_assert_cmpfloat (ts_tensor_get_double (t, 1), ==, 3.0);  /* t[0][1] = a[1][0] */

  row = ts_tensor_select (a, 0, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (row->offset, ==, 3);
  g_assert_cmpfloat (ts_tensor_get_double (row, 2), ==, 5.0);

  g_assert_null (ts_tensor_view (a, 1, bad, &error));
  g_assert_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME);
  g_assert_cmpstr (error->message, ==, "shape '[5]' is invalid for input of size 6");
  g_clear_error (&error);

  g_assert_null (ts_tensor_view (t, 1, flat, &error));
  g_assert_true (g_str_has_prefix (error->message, "view size is not compatible"));
  g_clear_error (&error);

  g_assert_null (ts_tensor_select (a, 2, 0, &error));
  g_assert_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_INDEX);
  g_assert_cmpstr (error->message, ==, "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  g_clear_error (&error);

  v = ts_tensor_view (a, 1, flat, &error);
  g_assert_no_error (error);
  g_assert_true (v->storage == a->storage);
}

static void
test_cpu_ops (void)
{
  gint64 s23[2] = { 2, 3 }, s3[1] = { 3 }, s4[1] = { 4 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) a = new_filled (CPU, TS_DTYPE_INT64, 2, s23, 2);
  g_autoptr(TsTensor) b = new_filled (CPU, TS_DTYPE_FLOAT32, 1, s3, 0.5);
  g_autoptr(TsTensor) c = NULL;
  g_autoptr(TsTensor) sum = NULL;
  g_autoptr(TsTensor) d = NULL;
  g_autoptr(TsTensor) e = new_filled (CPU, TS_DTYPE_FLOAT32, 1, s4, 1);
  TsScalar half = { TS_DTYPE_FLOAT64, 0.5, 0 };
  int dim1 = 1;

  /* int64 tensor + float32 tensor: float32, broadcast over rows */
  c = ts_ops_binary (TS_BINARY_ADD, a, b, NULL, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (c->dtype, ==, TS_DTYPE_FLOAT32);
  g_assert_cmpint (c->ndim, ==, 2);
  g_assert_cmpfloat (ts_tensor_get_double (c, 5), ==, 2.5);

  sum = ts_ops_sum (c, &dim1, 1, FALSE, TS_DTYPE_UNDEFINED, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sum->ndim, ==, 1);
  g_assert_cmpfloat (ts_tensor_get_double (sum, 0), ==, 7.5);

  /* int64 tensor / Python float scalar: the default float dtype */
  d = ts_ops_binary (TS_BINARY_DIV, a, NULL, &half, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (d->dtype, ==, TS_DTYPE_FLOAT32);
  g_assert_cmpfloat (ts_tensor_get_double (d, 0), ==, 4.0);

  g_assert_null (ts_ops_binary (TS_BINARY_ADD, a, e, NULL, FALSE, NULL, &error));
  g_assert_cmpstr (error->message, ==,
                   "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
  g_clear_error (&error);

  g_assert_null (ts_ops_mean (a, NULL, 0, FALSE, TS_DTYPE_UNDEFINED, &error));
  g_assert_cmpstr (error->message, ==,
                   "mean(): could not infer output dtype. Input dtype must be either a floating point "
                   "or complex dtype. Got: Long");
}

/* Kernel records are written when the kernel completes: drain first. */
static guint64
last_kernel (TsRecorder     *recorder,
             TsKernelRecord *out)
{
  gsize n;

  g_assert_true (ts_runtime_device_synchronize (ts_session_get_runtime (), -1, NULL));
  n = ts_recorder_get_count (recorder, TS_RECORD_KERNEL);

  g_assert_cmpuint (n, >, 0);
  g_assert_true (ts_recorder_get (recorder, TS_RECORD_KERNEL, n - 1, out));
  return n;
}

static void
test_cuda_work_items (void)
{
  gint64 shape[1] = { 256 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) a = new_filled (CUDA (0), TS_DTYPE_FLOAT32, 1, shape, 1);
  g_autoptr(TsTensor) b = new_filled (CUDA (0), TS_DTYPE_FLOAT32, 1, shape, 2);
  g_autoptr(TsTensor) c = NULL;
  g_autoptr(TsTensor) d = NULL;
  g_autoptr(TsTensor) host = NULL;
  TsRecorder *recorder = ts_session_get_recorder ();
  TsRuntime *runtime = ts_session_get_runtime ();
  TsKernelRecord k;
  TsStreamId side;
  gsize before;

  g_assert_true (ts_runtime_device_synchronize (runtime, -1, NULL));
  before = ts_recorder_get_count (recorder, TS_RECORD_KERNEL);
  c = ts_ops_binary (TS_BINARY_ADD, a, b, NULL, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ts_tensor_is_cuda (c));
  g_assert_cmpint (ts_tensor_get_device (c).index, ==, 0);
  g_assert_cmpuint (last_kernel (recorder, &k), ==, before + 1);
  g_assert_cmpstr (ts_recorder_lookup (recorder, k.name), ==, "aten::add");
  g_assert_cmpuint (k.stream, ==, ts_runtime_get_default_stream (runtime, 0, NULL));
  g_assert_cmpuint (k.bytes, ==, 3 * 256 * 4);

  /* on a created stream made current: the kernel goes there */
  side = ts_runtime_stream_new (runtime, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_true (ts_runtime_set_current_stream (runtime, side, &error));
  d = ts_ops_binary (TS_BINARY_MUL, c, b, NULL, FALSE, NULL, &error);
  g_assert_no_error (error);
  last_kernel (recorder, &k);
  g_assert_cmpstr (ts_recorder_lookup (recorder, k.name), ==, "aten::mul");
  g_assert_cmpuint (k.stream, ==, side);
  /* the output was allocated on the stream it is produced on */
  g_assert_cmpuint (d->storage->stream, ==, side);
  host = host_copy (d);
  g_assert_cmpfloat (ts_tensor_get_double (host, 255), ==, 6.0);
  g_assert_true (ts_runtime_set_current_stream (runtime, ts_runtime_get_default_stream (runtime, 0, NULL), &error));
}

static void
test_stale_read (void)
{
  gint64 shape[2] = { 1024, 1024 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) x = new_filled (CUDA (1), TS_DTYPE_FLOAT32, 2, shape, 1);
  g_autoptr(TsTensor) y = NULL;
  g_autoptr(TsTensor) racy = NULL;
  g_autoptr(TsTensor) ordered = NULL;
  g_autoptr(TsTensor) h1 = NULL;
  g_autoptr(TsTensor) h2 = NULL;
  TsRuntime *runtime = ts_session_get_runtime ();
  TsStreamId def = ts_runtime_get_default_stream (runtime, 1, NULL);
  TsStreamId side = ts_runtime_stream_new (runtime, 1, 0, NULL);

  g_assert_true (ts_runtime_device_synchronize (runtime, 1, NULL));
  /* a long matmul on the default stream writes y ... */
  y = ts_ops_matmul (x, x, &error);
  g_assert_no_error (error);
  /* ... and a sum on a side stream reads it with nothing in between */
  g_assert_true (ts_runtime_set_current_stream (runtime, side, NULL));
  racy = ts_ops_sum (y, NULL, 0, FALSE, TS_DTYPE_UNDEFINED, &error);
  g_assert_no_error (error);
  h1 = host_copy (racy);
  /* y's block was never written when the sum ran: fresh memory is poison */
  g_test_message ("racy sum: %g", ts_tensor_get_double (h1, 0));
  g_assert_true (isnan (ts_tensor_get_double (h1, 0)));

  /* ordered after the matmul, the same sum sees the result */
  g_assert_true (ts_runtime_stream_wait_stream (runtime, side, def, NULL));
  ordered = ts_ops_sum (y, NULL, 0, FALSE, TS_DTYPE_UNDEFINED, &error);
  g_assert_no_error (error);
  h2 = host_copy (ordered);
  g_assert_cmpfloat (ts_tensor_get_double (h2, 0), ==, 1024.0 * 1024.0 * 1024.0);
  g_assert_true (ts_runtime_set_current_stream (runtime, def, NULL));
}

static void
test_cross_device (void)
{
  gint64 shape[1] = { 4 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) a = new_filled (CUDA (0), TS_DTYPE_FLOAT32, 1, shape, 1);
  g_autoptr(TsTensor) b = new_filled (CUDA (1), TS_DTYPE_FLOAT32, 1, shape, 0);
  g_autoptr(TsTensor) c = new_filled (CPU, TS_DTYPE_FLOAT32, 1, shape, 0);
  g_autoptr(TsTensor) h = NULL;

  g_assert_null (ts_ops_binary (TS_BINARY_ADD, a, b, NULL, FALSE, NULL, &error));
  g_assert_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME);
  g_assert_cmpstr (error->message, ==,
                   "Expected all tensors to be on the same device, but found at least two devices, "
                   "cuda:0 and cuda:1!");
  g_clear_error (&error);

  g_assert_null (ts_ops_binary (TS_BINARY_ADD, c, a, NULL, FALSE, NULL, &error));
  g_assert_cmpstr (error->message, ==,
                   "Expected all tensors to be on the same device, but found at least two devices, "
                   "cuda:0 and cpu!");
  g_clear_error (&error);

  /* copies cross devices */
  g_assert_true (ts_ops_copy (b, a, FALSE, &error));
  g_assert_no_error (error);
  h = host_copy (b);
  g_assert_cmpfloat (ts_tensor_get_double (h, 3), ==, 1.0);
}

/* Records are written at completion: drain first. */
static void
find_last_copy (TsMemcpyRecord *out)
{
  TsRecorder *recorder = ts_session_get_recorder ();
  gsize n;

  g_assert_true (ts_runtime_device_synchronize (ts_session_get_runtime (), -1, NULL));
  n = ts_recorder_get_count (recorder, TS_RECORD_MEMCPY);

  g_assert_cmpuint (n, >, 0);
  g_assert_true (ts_recorder_get (recorder, TS_RECORD_MEMCPY, n - 1, out));
}

static void
test_copies_blocking (void)
{
  gint64 shape[1] = { 1 << 20 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) host = new_filled (CPU, TS_DTYPE_FLOAT32, 1, shape, 3);
  g_autoptr(TsTensor) pinned = NULL;
  g_autoptr(TsTensor) d1 = NULL;
  g_autoptr(TsTensor) d2 = NULL;
  TsRuntime *runtime = ts_session_get_runtime ();
  TsMemcpyRecord copy;
  TsTime after;

  /* pageable: the host waits for the copy */
  d1 = ts_ops_to (host, CUDA (0), TS_DTYPE_UNDEFINED, TRUE, FALSE, &error);
  g_assert_no_error (error);
  after = ts_runtime_get_host_time (runtime);
  find_last_copy (&copy);
  g_assert_cmpuint (copy.kind, ==, TS_COPY_HOST_TO_DEVICE);
  g_assert_cmpuint (copy.bytes, ==, 4 << 20);
  g_assert_false (copy.flags & TS_COPY_FLAG_PINNED);
  g_assert_cmpint (after, >=, copy.end);

  /* pinned + non_blocking: it does not */
  pinned = ts_ops_pin_memory (host, &error);
  g_assert_no_error (error);
  g_assert_true (ts_session_host_is_pinned (ts_tensor_data (pinned) + 16));
  d2 = ts_ops_to (pinned, CUDA (0), TS_DTYPE_UNDEFINED, TRUE, FALSE, &error);
  g_assert_no_error (error);
  after = ts_runtime_get_host_time (runtime);
  find_last_copy (&copy);
  g_assert_true (copy.flags & TS_COPY_FLAG_PINNED);
  g_assert_cmpint (after, <, copy.end);
  g_assert_cmpint (ts_runtime_get_host_time (runtime), >=, copy.end);
}

static void
test_rng_replay (void)
{
  gint64 shape[1] = { 1000 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) a = ts_tensor_new_empty (CUDA (0), TS_DTYPE_FLOAT32, 1, shape, FALSE, &error);
  g_autoptr(TsTensor) b = ts_tensor_new_empty (CUDA (0), TS_DTYPE_FLOAT32, 1, shape, FALSE, &error);
  g_autoptr(TsTensor) ha = NULL;
  g_autoptr(TsTensor) hb = NULL;
  g_autoptr(GBytes) state = NULL;

  ts_rng_manual_seed (0, 42);
  g_assert_cmpuint (ts_rng_initial_seed (0), ==, 42);
  state = ts_rng_get_state (0);
  g_assert_cmpuint (g_bytes_get_size (state), ==, 16);
  g_assert_true (ts_ops_normal_ (a, 0, 1, &error));
  g_assert_true (ts_rng_set_state (0, state, &error));
  g_assert_true (ts_ops_normal_ (b, 0, 1, &error));
  ha = host_copy (a);
  hb = host_copy (b);
  g_assert_cmpmem (ts_tensor_data (ha), 4000, ts_tensor_data (hb), 4000);
  /* and the generator moved on: a third draw differs */
  g_assert_true (ts_ops_normal_ (b, 0, 1, &error));
  g_clear_pointer (&hb, ts_tensor_unref);
  hb = host_copy (b);
  g_assert_true (memcmp (ts_tensor_data (ha), ts_tensor_data (hb), 4000) != 0);
}

int
main (int   argc,
      char *argv[])
{
  TsSessionOptions options = { .n_gpus = 2 };
  g_autoptr(GError) error = NULL;

  g_test_init (&argc, &argv, NULL);
  g_unsetenv ("CUDA_VISIBLE_DEVICES");
  g_unsetenv ("PYTORCH_CUDA_ALLOC_CONF");
  g_unsetenv ("CUDA_LAUNCH_BLOCKING");
  ts_session_configure (&options);
  if (!ts_session_cuda_init (&error))
    g_error ("%s", error->message);

  g_test_add_func ("/tensor/views", test_views);
  g_test_add_func ("/tensor/cpu-ops", test_cpu_ops);
  g_test_add_func ("/tensor/cuda-work-items", test_cuda_work_items);
  g_test_add_func ("/tensor/stale-read", test_stale_read);
  g_test_add_func ("/tensor/cross-device", test_cross_device);
  g_test_add_func ("/tensor/copies-blocking", test_copies_blocking);
  g_test_add_func ("/tensor/rng-replay", test_rng_replay);
  return g_test_run ();
}
