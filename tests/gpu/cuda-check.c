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

/* Small tensors in and out, synchronously (memcpy_sync). */
static void *
upload (const void *host, gsize bytes)
{
  void *dev = NULL;

  k->malloc_device (&dev, bytes);
  k->memcpy_sync (dev, host, bytes);
  return dev;
}

static void
view_nd (TsCudaView *v, int dtype, void *data, int ndim, const int64_t *shape)
{
  int64_t stride = 1;

  memset (v, 0, sizeof *v);
  v->dtype = dtype;
  v->ndim = ndim;
  v->data = data;
  for (int d = ndim - 1; d >= 0; d--)
    {
      v->shape[d] = shape[d];
      v->strides[d] = stride;
      stride *= shape[d];
    }
}

static void
scalar_view (TsCudaView *v, int dtype, double dvalue, int64_t ivalue)
{
  memset (v, 0, sizeof *v);
  v->dtype = dtype;
  v->dvalue = dvalue;
  v->ivalue = ivalue;
}

static gboolean
same_floats (const float *got, const float *want, int n)
{
  for (int i = 0; i < n; i++)
    if (!(got[i] == want[i] || (isnan (got[i]) && isnan (want[i]))))
      {
        printf ("     [%d] = %.9g, expected %.9g\n", i, got[i], want[i]);
        return FALSE;
      }
  return TRUE;
}

static gboolean
same_int64s (const gint64 *got, const gint64 *want, int n)
{
  for (int i = 0; i < n; i++)
    if (got[i] != want[i])
      {
        printf ("     [%d] = %" G_GINT64_FORMAT ", expected %" G_GINT64_FORMAT "\n", i, got[i], want[i]);
        return FALSE;
      }
  return TRUE;
}

/* Events, elapsed time, and a second stream waiting on the first's event:
 * the waiting stream's copy must see the last of the first stream's 32
 * fills of a 256 MiB buffer (without the wait it would run first and see 0). */
static void
check_events (void)
{
  const int64_t n = 64 << 20;
  void *s1 = NULL, *s2 = NULL, *start = NULL, *end = NULL, *ev = NULL;
  float *x = NULL, *y = NULL, hy = -1, ms = -1;
  int least = 1, greatest = 1, device = -1, err;
  guint64 free_bytes = 0, total_bytes = 0;
  TsCudaView vx, vlast, vy;

  report ("get_device", k->get_device (&device) == 0 && device == 0);
  report ("mem_get_info", k->mem_get_info (&free_bytes, &total_bytes) == 0 && free_bytes > 0 &&
                          free_bytes <= total_bytes);
  report ("stream_priority_range", k->stream_priority_range (&least, &greatest) == 0 && least == 0 &&
                                   greatest < 0);
  k->stream_create (&s1, 0);
  k->stream_create (&s2, greatest);
  report ("event_create (default, disable timing, bad flags)",
          k->event_create (&start, TS_CUDA_EVENT_DEFAULT) == 0 &&
          k->event_create (&end, TS_CUDA_EVENT_BLOCKING_SYNC) == 0 &&
          k->event_create (&ev, TS_CUDA_EVENT_DISABLE_TIMING) == 0 &&
          k->event_create (&ev, 64) == TS_CUDA_ERROR_INVALID_VALUE);
  k->malloc_device ((void **)&x, n * sizeof (float));
  k->malloc_device ((void **)&y, sizeof (float));
  view_1d (&vx, TS_CUDA_FLOAT32, x, n);
  vlast = vx; vlast.shape[0] = 1; vlast.offset = n - 1;
  view_1d (&vy, TS_CUDA_FLOAT32, y, 1);
  k->fill (&vx, 0.0, NULL);
  k->device_sync ();

  k->event_record (start, s1);
  for (int i = 1; i <= 32; i++)
    k->fill (&vx, i, s1);
  k->event_record (end, s1);
  k->event_record (ev, s1);
  report ("stream_query busy", k->stream_query (s1) == TS_CUDA_ERROR_NOT_READY);
  k->stream_wait_event (s2, ev);
  k->copy (&vy, &vlast, s2);
  k->stream_sync (s2);
  k->memcpy_sync (&hy, y, sizeof hy);
  report ("stream_wait_event orders the copy after the fills", hy == 32);
  report ("event_sync/event_query", k->event_sync (end) == 0 && k->event_query (end) == 0 &&
                                    k->stream_query (s1) == 0);
  err = k->event_elapsed (&ms, start, end);
  printf ("     32 fills of 256 MiB: %.3f ms\n", ms);
  report ("event_elapsed", err == 0 && ms > 0 && ms < 10000);
  report ("event_elapsed without timing fails", k->event_elapsed (&ms, start, ev) != 0);

  k->event_destroy (start); k->event_destroy (end); k->event_destroy (ev);
  k->stream_destroy (s1); k->stream_destroy (s2);
  k->free_device (x); k->free_device (y);
}

static void
check_binary (void)
{
  float ha[6] = { -7, 7, -7, 7, 5.5f, NAN }, hb[6] = { 2, -2, -2, 2, 2, 1 }, hf[6];
  gint32 ia[4] = { -7, 7, 2, 12 }, ib[4] = { 2, -2, 10, 10 }, hi[4];
  guint8 hbool[6];
  guint16 h16[2] = { 0x3e00, 0x3400 }, h16out[2];   /* float16 1.5, 0.25 */
  int64_t shape6[1] = { 6 }, shape4[1] = { 4 }, shape2[1] = { 2 };
  void *a = upload (ha, sizeof ha), *b = upload (hb, sizeof hb), *o, *ob;
  void *ai = upload (ia, sizeof ia), *bi = upload (ib, sizeof ib), *oi;
  void *a16 = upload (h16, sizeof h16), *o16;
  TsCudaView va, vb, vo, vob, vs, vai, vbi, voi, v16, vo16;

  k->malloc_device (&o, sizeof hf);
  k->malloc_device (&ob, sizeof hbool);
  k->malloc_device (&oi, sizeof hi);
  k->malloc_device (&o16, sizeof h16out);
  view_nd (&va, TS_CUDA_FLOAT32, a, 1, shape6);
  view_nd (&vb, TS_CUDA_FLOAT32, b, 1, shape6);
  view_nd (&vo, TS_CUDA_FLOAT32, o, 1, shape6);
  view_nd (&vob, TS_CUDA_BOOL, ob, 1, shape6);

  {
    float want[6] = { -4, -4, 3, 3, 2, NAN };
    report ("floor_divide float32 (Python signs)",
            k->binary (TS_CUDA_FLOOR_DIVIDE, &vo, &va, &vb, NULL) == 0 &&
            k->memcpy_sync (hf, o, sizeof hf) == 0 && same_floats (hf, want, 6));
  }
  {
    float want[6] = { 1, -1, -1, 1, 1.5f, NAN };
    report ("remainder float32 (sign of the divisor)",
            k->binary (TS_CUDA_REMAINDER, &vo, &va, &vb, NULL) == 0 &&
            k->memcpy_sync (hf, o, sizeof hf) == 0 && same_floats (hf, want, 6));
  }
  {
    float want[6] = { 2, 7, -2, 7, 5.5f, NAN };
    report ("maximum float32 (NaN propagates)",
            k->binary (TS_CUDA_MAXIMUM, &vo, &va, &vb, NULL) == 0 &&
            k->memcpy_sync (hf, o, sizeof hf) == 0 && same_floats (hf, want, 6));
  }
  {
    /* scalar on the left: 10 - a */
    float want[6] = { 17, 3, 17, 3, 4.5f, NAN };
    scalar_view (&vs, TS_CUDA_FLOAT32, 10.0, 0);
    report ("sub float32, scalar - tensor",
            k->binary (TS_CUDA_SUB, &vo, &vs, &va, NULL) == 0 &&
            k->memcpy_sync (hf, o, sizeof hf) == 0 && same_floats (hf, want, 6));
  }
  {
    /* a < 0 (scalar on the right) into bool; NaN compares false */
    guint8 want[6] = { 1, 0, 1, 0, 0, 0 };
    scalar_view (&vs, TS_CUDA_FLOAT32, 0.0, 0);
    report ("lt float32 tensor < scalar -> bool",
            k->binary (TS_CUDA_LT, &vob, &va, &vs, NULL) == 0 &&
            k->memcpy_sync (hbool, ob, sizeof hbool) == 0 && memcmp (hbool, want, 6) == 0);
  }
  {
    guint8 want[6] = { 0, 0, 0, 0, 0, 1 };
    report ("ne float32 a != a -> bool (NaN only)",
            k->binary (TS_CUDA_NE, &vob, &va, &va, NULL) == 0 &&
            k->memcpy_sync (hbool, ob, sizeof hbool) == 0 && memcmp (hbool, want, 6) == 0);
  }

  view_nd (&vai, TS_CUDA_INT32, ai, 1, shape4);
  view_nd (&vbi, TS_CUDA_INT32, bi, 1, shape4);
  view_nd (&voi, TS_CUDA_INT32, oi, 1, shape4);
  {
    gint32 want[4] = { -4, -4, 0, 1 };
    report ("floor_divide int32",
            k->binary (TS_CUDA_FLOOR_DIVIDE, &voi, &vai, &vbi, NULL) == 0 &&
            k->memcpy_sync (hi, oi, sizeof hi) == 0 && memcmp (hi, want, sizeof want) == 0);
  }
  {
    gint32 want[4] = { 1, -1, 2, 2 };
    report ("remainder int32",
            k->binary (TS_CUDA_REMAINDER, &voi, &vai, &vbi, NULL) == 0 &&
            k->memcpy_sync (hi, oi, sizeof hi) == 0 && memcmp (hi, want, sizeof want) == 0);
  }
  {
    /* 12^10 = 61917364224 wraps to 61917364224 - 14 * 2^32 */
    gint32 want[4] = { 49, 0, 1024, 1787822080 };
    report ("pow int32 (negative exponent 0, wrapping)",
            k->binary (TS_CUDA_POW, &voi, &vai, &vbi, NULL) == 0 &&
            k->memcpy_sync (hi, oi, sizeof hi) == 0 && memcmp (hi, want, sizeof want) == 0);
  }
  {
    gint32 want[4] = { -7 ^ 3, 7 ^ 3, 2 ^ 3, 12 ^ 3 };
    scalar_view (&vs, TS_CUDA_INT32, 0, 3);
    report ("bitwise_xor int32 with a scalar",
            k->binary (TS_CUDA_BITWISE_XOR, &voi, &vai, &vs, NULL) == 0 &&
            k->memcpy_sync (hi, oi, sizeof hi) == 0 && memcmp (hi, want, sizeof want) == 0);
  }
  report ("div of int32 is not supported (the caller casts)",
          k->binary (TS_CUDA_DIV, &voi, &vai, &vbi, NULL) == TS_CUDA_ERROR_NOT_SUPPORTED);

  view_nd (&v16, TS_CUDA_FLOAT16, a16, 1, shape2);
  view_nd (&vo16, TS_CUDA_FLOAT16, o16, 1, shape2);
  scalar_view (&vs, TS_CUDA_FLOAT16, 0.25, 0);
  report ("add float16 + scalar (1.75, 0.5)",
          k->binary (TS_CUDA_ADD, &vo16, &v16, &vs, NULL) == 0 &&
          k->memcpy_sync (h16out, o16, sizeof h16out) == 0 && h16out[0] == 0x3f00 && h16out[1] == 0x3800);

  k->free_device (a); k->free_device (b); k->free_device (o); k->free_device (ob);
  k->free_device (ai); k->free_device (bi); k->free_device (oi);
  k->free_device (a16); k->free_device (o16);
}

static void
check_reduce (void)
{
  gint32 hx[24];
  float hf[24], hmean[6], hamax[8];
  gint64 hsum[3];
  int64_t shape[3] = { 2, 3, 4 }, kept_sum[3] = { 1, 3, 1 }, kept_mean[3] = { 2, 3, 1 };
  int64_t kept_amax[3] = { 2, 1, 4 };
  void *x, *xf, *osum, *omean, *oamax;
  TsCudaView vx, vxf, vsum, vmean, vamax;

  for (int i = 0; i < 24; i++)
    {
      hx[i] = i;
      hf[i] = i;
    }
  hf[5] = NAN;   /* (0, 1, 1) */
  x = upload (hx, sizeof hx);
  xf = upload (hf, sizeof hf);
  k->malloc_device (&osum, sizeof hsum);
  k->malloc_device (&omean, sizeof hmean);
  k->malloc_device (&oamax, sizeof hamax);
  view_nd (&vx, TS_CUDA_INT32, x, 3, shape);
  view_nd (&vxf, TS_CUDA_FLOAT32, xf, 3, shape);
  view_nd (&vsum, TS_CUDA_INT64, osum, 3, kept_sum);
  view_nd (&vmean, TS_CUDA_FLOAT32, omean, 3, kept_mean);
  view_nd (&vamax, TS_CUDA_FLOAT32, oamax, 3, kept_amax);
  {
    /* sum over dims 0 and 2 of 12 i + 4 j + k: 60 + 32 j, into int64 */
    gint64 want[3] = { 60, 92, 124 };
    report ("sum int32 over dims {0, 2} -> int64",
            k->reduce (TS_CUDA_SUM, &vsum, &vx, 0x5, NULL) == 0 &&
            k->memcpy_sync (hsum, osum, sizeof hsum) == 0 && same_int64s (hsum, want, 3));
  }
  {
    float want[6] = { 1.5f, NAN, 9.5f, 13.5f, 17.5f, 21.5f };
    report ("mean float32 over dim 2 (NaN row)",
            k->reduce (TS_CUDA_MEAN, &vmean, &vxf, 0x4, NULL) == 0 &&
            k->memcpy_sync (hmean, omean, sizeof hmean) == 0 && same_floats (hmean, want, 6));
  }
  {
    float want[8] = { 8, NAN, 10, 11, 20, 21, 22, 23 };
    report ("amax float32 over dim 1 (NaN propagates)",
            k->reduce (TS_CUDA_AMAX, &vamax, &vxf, 0x2, NULL) == 0 &&
            k->memcpy_sync (hamax, oamax, sizeof hamax) == 0 && same_floats (hamax, want, 8));
  }
  k->free_device (x); k->free_device (xf); k->free_device (osum); k->free_device (omean);
  k->free_device (oamax);

  /* Long reductions split across warps/threads: (4, 300001) over dim 1
   * (inner) and (300001, 4) over dim 0 (outer), of ones: exact counts. */
  {
    const int64_t len = 300001;
    int64_t rows[2] = { 4, len }, rows_kept[2] = { 4, 1 }, cols[2] = { len, 4 }, cols_kept[2] = { 1, 4 };
    float hr[4];
    float want[4] = { len, len, len, len };
    void *big, *r;
    TsCudaView vbig, vr;

    k->malloc_device (&big, 4 * len * sizeof (float));
    k->malloc_device (&r, sizeof hr);
    view_nd (&vbig, TS_CUDA_FLOAT32, big, 2, rows);
    k->fill (&vbig, 1.0, NULL);
    view_nd (&vr, TS_CUDA_FLOAT32, r, 2, rows_kept);
    report ("sum over a long inner dim (split)",
            k->reduce (TS_CUDA_SUM, &vr, &vbig, 0x2, NULL) == 0 &&
            k->memcpy_sync (hr, r, sizeof hr) == 0 && same_floats (hr, want, 4));
    view_nd (&vbig, TS_CUDA_FLOAT32, big, 2, cols);
    view_nd (&vr, TS_CUDA_FLOAT32, r, 2, cols_kept);
    report ("sum over a long outer dim (split)",
            k->reduce (TS_CUDA_SUM, &vr, &vbig, 0x1, NULL) == 0 &&
            k->memcpy_sync (hr, r, sizeof hr) == 0 && same_floats (hr, want, 4));
    k->free_device (big); k->free_device (r);
  }
}

static void
check_max_dim_arange_bmm (void)
{
  float hx[8] = { 1, 5, 5, 2, 3, NAN, 7, NAN }, hv[2];
  gint64 hi[2];
  int64_t shape[2] = { 2, 4 }, kept[2] = { 2, 1 };
  void *x = upload (hx, sizeof hx), *v, *i;
  TsCudaView vx, vv, vi;

  k->malloc_device (&v, sizeof hv);
  k->malloc_device (&i, sizeof hi);
  view_nd (&vx, TS_CUDA_FLOAT32, x, 2, shape);
  view_nd (&vv, TS_CUDA_FLOAT32, v, 2, kept);
  view_nd (&vi, TS_CUDA_INT64, i, 2, kept);
  {
    float want_v[2] = { 5, NAN };
    gint64 want_i[2] = { 1, 1 };
    report ("max_dim: first max, first NaN",
            k->max_dim (&vv, &vi, &vx, 1, 0, NULL) == 0 &&
            k->memcpy_sync (hv, v, sizeof hv) == 0 && k->memcpy_sync (hi, i, sizeof hi) == 0 &&
            same_floats (hv, want_v, 2) && same_int64s (hi, want_i, 2));
  }
  {
    float want_v[2] = { 1, NAN };
    gint64 want_i[2] = { 0, 1 };
    report ("max_dim is_min",
            k->max_dim (&vv, &vi, &vx, 1, 1, NULL) == 0 &&
            k->memcpy_sync (hv, v, sizeof hv) == 0 && k->memcpy_sync (hi, i, sizeof hi) == 0 &&
            same_floats (hv, want_v, 2) && same_int64s (hi, want_i, 2));
  }
  k->free_device (x); k->free_device (v); k->free_device (i);

  {
    float hf[5], want_f[5] = { 0.5f, 0.75f, 1.0f, 1.25f, 1.5f };
    gint64 hl[4], want_l[4] = { -3, -1, 1, 3 }, big = (G_GINT64_CONSTANT (1) << 62) + 1, hbig[2];
    void *f, *l;
    TsCudaView vf, vl;

    k->malloc_device (&f, sizeof hf);
    k->malloc_device (&l, sizeof hl);
    view_1d (&vf, TS_CUDA_FLOAT32, f, 5);
    view_1d (&vl, TS_CUDA_INT64, l, 4);
    report ("arange float32 0.5:0.25",
            k->arange (&vf, 0.5, 0.25, NULL) == 0 && k->memcpy_sync (hf, f, sizeof hf) == 0 &&
            same_floats (hf, want_f, 5));
    report ("arange int64 -3:2",
            k->arange (&vl, -3, 2, NULL) == 0 && k->memcpy_sync (hl, l, sizeof hl) == 0 &&
            same_int64s (hl, want_l, 4));
    vl.shape[0] = 2;
    report ("fill_int int64 2^62 + 1",
            k->fill_int (&vl, big, NULL) == 0 && k->memcpy_sync (hbig, l, sizeof hbig) == 0 &&
            hbig[0] == big && hbig[1] == big);
    k->free_device (f); k->free_device (l);
  }

  {
    /* 2 batches of (2 x 3) @ (3 x 2) */
    float ha[12] = { 1, 2, 3, 4, 5, 6,   1, 0, 0, 0, 1, 0 };
    float hb[12] = { 1, 2, 3, 4, 5, 6,   7, 8, 9, 10, 11, 12 };
    float hc[8], want[8] = { 22, 28, 49, 64,   7, 8, 9, 10 };
    int64_t sa[3] = { 2, 2, 3 }, sb[3] = { 2, 3, 2 }, sc[3] = { 2, 2, 2 };
    void *a = upload (ha, sizeof ha), *b = upload (hb, sizeof hb), *c;
    TsCudaView va, vb, vc;

    k->malloc_device (&c, sizeof hc);
    view_nd (&va, TS_CUDA_FLOAT32, a, 3, sa);
    view_nd (&vb, TS_CUDA_FLOAT32, b, 3, sb);
    view_nd (&vc, TS_CUDA_FLOAT32, c, 3, sc);
    report ("bmm float32 (2 batches)",
            k->bmm (&vc, &va, &vb, NULL) == 0 && k->memcpy_sync (hc, c, sizeof hc) == 0 &&
            same_floats (hc, want, 8));
    k->free_device (a); k->free_device (b); k->free_device (c);
  }
}

/* index_select with int32 indices, then one out of range: the device-side
 * assert poisons the context, so this runs last. */
static void
check_index_assert (void)
{
  float hx[6] = { 1, 2, 3, 4, 5, 6 }, ho[6];
  gint32 hidx[2] = { 1, 0 }, hbad[2] = { 0, 7 };
  int64_t shape[2] = { 2, 3 };
  void *x = upload (hx, sizeof hx), *idx = upload (hidx, sizeof hidx), *bad = upload (hbad, sizeof hbad), *o;
  TsCudaView vx, vo, vi;
  int sync_err, peek;

  k->malloc_device (&o, sizeof ho);
  view_nd (&vx, TS_CUDA_FLOAT32, x, 2, shape);
  view_nd (&vo, TS_CUDA_FLOAT32, o, 2, shape);
  view_1d (&vi, TS_CUDA_INT32, idx, 2);
  {
    float want[6] = { 4, 5, 6, 1, 2, 3 };
    report ("index_select int32 indices",
            k->index_select (&vo, &vx, 0, &vi, NULL) == 0 && k->memcpy_sync (ho, o, sizeof ho) == 0 &&
            same_floats (ho, want, 6));
  }
  report ("peek_error before the assert", k->peek_error () == 0);
  vi.data = bad;
  k->index_select (&vo, &vx, 0, &vi, NULL);
  sync_err = k->device_sync ();
  peek = k->peek_error ();
  printf ("     device_sync: %d, peek_error: %d (%s)\n", sync_err, peek, k->error_string (peek));
  report ("out-of-range index: device-side assert 710, sticky",
          sync_err == TS_CUDA_ERROR_ASSERT && peek == TS_CUDA_ERROR_ASSERT &&
          k->peek_error () == TS_CUDA_ERROR_ASSERT);
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
  check_events ();
  check_binary ();
  check_reduce ();
  check_max_dim_arange_bmm ();
  if (argc < 2 || strcmp (argv[1], "--no-bandwidth") != 0)
    bandwidth ();
  check_index_assert ();   /* last: poisons the context */
  ts_cuda_backend_close (backend);
  return failures ? 1 : 0;
}
