/* cuda-check.c: checks and times the CUDA backend's kernels on a real GPU
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Run by tests/gpu/check.sh (needs a GPU). Prints one line per check
 * ("ok"/"FAIL") and the bandwidth of large elementwise and reduction
 * kernels as a fraction of the device-to-device copy bandwidth measured in
 * the same run (medians of 7). Exit status 1 when a check fails.
 */

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ts-cuda-backend.h"

static const TsCudaKernels *k;
static int failures;

static void
view_1d (TsCudaView *v, int dtype, void *data, int64_t n)
{
  memset (v, 0, sizeof *v);
  v->dtype = dtype;
  v->ndim = 1;
  v->shape[0] = n;
  v->strides[0] = 1;
  v->data = data;
}

static void
report (const char *name, gboolean ok)
{
  printf ("%s %s\n", ok ? "ok  " : "FAIL", name);
  failures += !ok;
}

static void
check_small (void)
{
  float ha[6] = { 1, 2, 3, 4, 5, 6 }, hb[3] = { 10, 20, 30 }, hout[6], hsum = 0, hmax = 0;
  gint64 hidx[2] = { 1, 0 };
  float *a, *b, *out, *sum;
  gint64 *idx;
  TsCudaView va, vb, vo, vs, vi;

  k->malloc_device ((void **)&a, sizeof ha);
  k->malloc_device ((void **)&b, sizeof hb);
  k->malloc_device ((void **)&out, sizeof hout);
  k->malloc_device ((void **)&sum, sizeof (float));
  k->malloc_device ((void **)&idx, sizeof hidx);
  k->memcpy_async (a, ha, sizeof ha, NULL);
  k->memcpy_async (b, hb, sizeof hb, NULL);
  k->memcpy_async (idx, hidx, sizeof hidx, NULL);

  /* (2, 3) + (3,) broadcast. */
  view_1d (&va, TS_CUDA_FLOAT32, a, 6);
  va.ndim = 2; va.shape[0] = 2; va.shape[1] = 3; va.strides[0] = 3; va.strides[1] = 1;
  vo = va; vo.data = out;
  view_1d (&vb, TS_CUDA_FLOAT32, b, 3);
  k->binary (TS_CUDA_ADD, &vo, &va, &vb, NULL);
  k->memcpy_async (hout, out, sizeof hout, NULL);
  k->device_sync ();
  report ("add broadcast (2,3)+(3,)", hout[0] == 11 && hout[2] == 33 && hout[3] == 14 && hout[5] == 36);

  view_1d (&vs, TS_CUDA_FLOAT32, sum, 1);
  vs.ndim = 0;
  k->reduce (TS_CUDA_SUM, &vs, &va, 0, NULL);
  k->memcpy_async (&hsum, sum, sizeof hsum, NULL);
  k->reduce (TS_CUDA_AMAX, &vs, &va, 0, NULL);
  k->memcpy_async (&hmax, sum, sizeof hmax, NULL);
  k->device_sync ();
  report ("sum/max of 1..6", hsum == 21 && hmax == 6);

  /* index_select rows [1, 0] of the (2, 3) matrix. */
  view_1d (&vi, TS_CUDA_INT64, idx, 2);
  k->index_select (&vo, &va, 0, &vi, NULL);
  k->memcpy_async (hout, out, sizeof hout, NULL);
  k->device_sync ();
  report ("index_select dim 0", hout[0] == 4 && hout[3] == 1 && hout[5] == 3);

  k->fill (&vo, 2.5, NULL);
  k->unary (TS_CUDA_SQRT, &vo, &vo, NULL);
  k->memcpy_async (hout, out, sizeof hout, NULL);
  k->device_sync ();
  report ("fill + sqrt", fabsf (hout[4] - sqrtf (2.5f)) < 1e-6f);

  k->free_device (a); k->free_device (b); k->free_device (out); k->free_device (sum); k->free_device (idx);
}

static int
cmp_double (const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;

  return a < b ? -1 : a > b;
}

typedef enum { OP_COPY, OP_ADD, OP_SUM, OP_FILL } Op;

static double
time_op (Op op, TsCudaView *a, TsCudaView *b, TsCudaView *out, TsCudaView *scalar, gsize bytes)
{
  double times[7];

  for (int rep = -1; rep < 7; rep++)
    {
      gint64 start;

      k->device_sync ();
      start = g_get_monotonic_time ();
      switch (op)
        {
        case OP_COPY: k->memcpy_async (out->data, a->data, bytes, NULL); break;
        case OP_ADD: k->binary (TS_CUDA_ADD, out, a, b, NULL); break;
        case OP_SUM: k->reduce (TS_CUDA_SUM, scalar, a, 0, NULL); break;
        case OP_FILL: k->fill (out, 1.0, NULL); break;
        default: g_assert_not_reached ();
        }
      k->device_sync ();
      if (rep >= 0)
        times[rep] = (g_get_monotonic_time () - start) / 1e6;
    }
  qsort (times, 7, sizeof times[0], cmp_double);
  return times[3];
}

static void
bandwidth (void)
{
  const int64_t n = 256 << 20;   /* 1 GiB of float32 per tensor */
  gsize bytes = (gsize)n * 4;
  void *a, *b, *out, *s;
  TsCudaView va, vb, vo, vs;
  double copy, t;

  if (k->malloc_device (&a, bytes) || k->malloc_device (&b, bytes) || k->malloc_device (&out, bytes) ||
      k->malloc_device (&s, 8))
    {
      report ("bandwidth buffers (3 GiB)", FALSE);
      return;
    }
  view_1d (&va, TS_CUDA_FLOAT32, a, n);
  view_1d (&vb, TS_CUDA_FLOAT32, b, n);
  view_1d (&vo, TS_CUDA_FLOAT32, out, n);
  view_1d (&vs, TS_CUDA_FLOAT32, s, 1);
  vs.ndim = 0;
  k->fill (&va, 1.0, NULL);
  k->fill (&vb, 2.0, NULL);

  copy = 2.0 * bytes / time_op (OP_COPY, &va, &vb, &vo, &vs, bytes) / 1e9;
  printf ("bandwidth: D2D copy %.0f GB/s (read+write, the baseline)\n", copy);
  t = 3.0 * bytes / time_op (OP_ADD, &va, &vb, &vo, &vs, bytes) / 1e9;
  printf ("bandwidth: add     %.0f GB/s = %.0f%% of copy\n", t, 100 * t / copy);
  t = 1.0 * bytes / time_op (OP_SUM, &va, &vb, &vo, &vs, bytes) / 1e9;
  printf ("bandwidth: sum     %.0f GB/s = %.0f%% of copy\n", t, 100 * t / copy);
  t = 1.0 * bytes / time_op (OP_FILL, &va, &vb, &vo, &vs, bytes) / 1e9;
  printf ("bandwidth: fill    %.0f GB/s = %.0f%% of copy\n", t, 100 * t / copy);
  k->free_device (a); k->free_device (b); k->free_device (out); k->free_device (s);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  TsCudaBackend *backend = ts_cuda_backend_open (NULL, &error);
  char name[256];
  int sms, major, minor, threads;
  guint64 mem;

  if (backend == NULL)
    {
      fprintf (stderr, "cuda-check: %s\n", error->message);
      return 77;
    }
  k = ts_cuda_backend_get_kernels (backend);
  k->device_info (0, name, sizeof name, &sms, &major, &minor, &mem, &threads);
  printf ("device: %s, %d SMs, sm_%d%d, %" G_GUINT64_FORMAT " bytes\n", name, sms, major, minor, mem);
  check_small ();
  if (argc < 2 || strcmp (argv[1], "--no-bandwidth") != 0)
    bandwidth ();
  ts_cuda_backend_close (backend);
  return failures ? 1 : 0;
}
