/* ts-cpu-conv.c: convolutions as im2col + OpenBLAS gemm
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every convolution here is one of three products over an "image" side
 * (the tensor with the kernel's receptive fields: the input of a
 * convolution, the output of a transposed one) and a "columns" side (one
 * column per kernel position, L of them), group by group:
 *
 *   gather   cols side = W_g   @ im2col (image side)      (forward; the
 *                                                          transposed one's
 *                                                          input gradient)
 *   scatter  image side = col2im (W_g^T @ cols side)       (the transposed
 *                                                          forward; the
 *                                                          input gradient)
 *   weight   grad W_g = sum_n cols side @ im2col (image side)^T
 *
 * W_g is the group's rows of the weight seen as (weight.size (0), c * K)
 * with c = weight.size (1) the image side's channels per group and K the
 * kernel's positions, in both layouts. im2col and col2im are ours (a few
 * loops); the products are cblas_sgemm / cblas_dgemm, as PyTorch's slow
 * (non-mkldnn) CPU path does. 1-d and 2-d convolutions are 3-d ones with
 * leading spatial dims of size 1. float16/bfloat16 compute in float32 and
 * round once into the output, as the matmul kernels do.
 */

#include "config.h"

#include <cblas.h>
#include <string.h>

#include "ts-cpu-conv.h"
#include "ts-cpu-convert.h"
#include "ts-cpu-kernels-private.h"

/* The arithmetic's shapes, spatial dims padded to 3 with leading 1s */
typedef struct
{
  gint64   c;                /* image side's channels per group */
  gint64   img[3], col[3];   /* spatial sizes */
  gint64   k[3], s[3], p[3], d[3];
  gint64   K, L, img_n;      /* kernel positions, columns, image positions */
  gint64   n, groups, m;     /* batch, groups, cols side's channels per group */
  gboolean dbl;              /* float64: dgemm; else float32 */
  gsize    es;               /* the compute element's size */
} Geo;

gint64
ts_conv_output_size (const TsConvParams *p,
                     guint               d,
                     gint64              in_size,
                     gint64              k)
{
  if (p->transposed)
    return (in_size - 1) * p->stride[d] - 2 * p->padding[d] + p->dilation[d] * (k - 1) +
           p->output_padding[d] + 1;
  return (in_size + 2 * p->padding[d] - p->dilation[d] * (k - 1) - 1) / p->stride[d] + 1;
}

/* @image and @cols: the image side's and columns side's views (N, C, *sp) */
static void
geo_init (Geo                *g,
          const TsConvParams *p,
          const TsView       *image,
          const TsView       *cols,
          const TsView       *weight,
          gint64              groups)
{
  guint lead = 3 - p->n_spatial;

  memset (g, 0, sizeof *g);
  for (guint i = 0; i < 3; i++)
    {
      gboolean real = i >= lead;
      guint d = i - lead;

      g->img[i] = real ? image->shape[2 + d] : 1;
      g->col[i] = real ? cols->shape[2 + d] : 1;
      g->k[i] = real ? weight->shape[2 + d] : 1;
      g->s[i] = real ? p->stride[d] : 1;
      g->p[i] = real ? p->padding[d] : 0;
      g->d[i] = real ? p->dilation[d] : 1;
    }
  g->c = weight->shape[1];
  g->K = g->k[0] * g->k[1] * g->k[2];
  g->L = g->col[0] * g->col[1] * g->col[2];
  g->img_n = g->img[0] * g->img[1] * g->img[2];
  g->n = image->shape[0];
  g->groups = groups;
  g->m = weight->shape[0] / groups;
  g->dbl = weight->dtype == TS_DTYPE_FLOAT64;
  g->es = g->dbl ? sizeof (double) : sizeof (float);
}

/* im2col of a 1x1 kernel without stride or padding is the image itself */
static gboolean
geo_is_identity (const Geo *g)
{
  for (guint i = 0; i < 3; i++)
    if (g->k[i] != 1 || g->s[i] != 1 || g->p[i] != 0 || g->col[i] != g->img[i])
      return FALSE;
  return TRUE;
}

/* The columns ow in [*lo, *hi) whose input position iw0 + ow * s lies in
 * [0, size): outside it im2col reads padding. */
static void
valid_range (gint64  iw0,
             gint64  s,
             gint64  size,
             gint64  n,
             gint64 *lo,
             gint64 *hi)
{
  *lo = iw0 >= 0 ? 0 : (-iw0 + s - 1) / s;
  *hi = iw0 > size - 1 ? 0 : MIN (n, (size - 1 - iw0) / s + 1);
  *lo = MIN (*lo, n);
  *hi = MAX (*hi, *lo);
}

/* im2col (@fold FALSE: col = the image's element or 0) and col2im (@fold:
 * the image's element += col) of one group's c channels; the innermost
 * run is split at the padding once, so that it is a memcpy (stride 1) or a
 * plain strided loop. */
#define DEFINE_IM2COL(NAME, T)                                                        \
static void                                                                          \
NAME (const Geo *g, T *img, T *col, gboolean fold)                                   \
{                                                                                    \
  gint64 ow_n = g->col[2], sw = g->s[2];                                             \
                                                                                     \
  for (gint64 c = 0; c < g->c; c++)                                                  \
    for (gint64 kd = 0; kd < g->k[0]; kd++)                                          \
      for (gint64 kh = 0; kh < g->k[1]; kh++)                                        \
        for (gint64 kw = 0; kw < g->k[2]; kw++)                                      \
          {                                                                          \
            T *row = col + (((c * g->k[0] + kd) * g->k[1] + kh) * g->k[2] + kw) * g->L; \
            T *plane = img + c * g->img_n;                                           \
            gint64 iw0 = kw * g->d[2] - g->p[2], lo, hi;                             \
                                                                                     \
            valid_range (iw0, sw, g->img[2], ow_n, &lo, &hi);                        \
            for (gint64 od = 0; od < g->col[0]; od++)                                \
              {                                                                      \
                gint64 id = od * g->s[0] - g->p[0] + kd * g->d[0];                   \
                                                                                     \
                for (gint64 oh = 0; oh < g->col[1]; oh++)                            \
                  {                                                                  \
                    gint64 ih = oh * g->s[1] - g->p[1] + kh * g->d[1];               \
                    T *out = row + (od * g->col[1] + oh) * ow_n;                     \
                    gboolean inside = id >= 0 && id < g->img[0] && ih >= 0 && ih < g->img[1]; \
                    /* line[ow * sw] is the input of column ow (lo <= ow < hi) */ \
                    T *line = inside ? plane + (id * g->img[1] + ih) * g->img[2] + iw0 : NULL; \
                                                                                     \
                    if (fold)                                                        \
                      {                                                              \
                        if (inside && sw == 1)                                       \
                          for (gint64 ow = lo; ow < hi; ow++)                        \
                            line[ow] += out[ow];                                     \
                        else if (inside)                                             \
                          for (gint64 ow = lo; ow < hi; ow++)                        \
                            line[ow * sw] += out[ow];                                \
                        continue;                                                    \
                      }                                                              \
                    if (!inside)                                                     \
                      {                                                              \
                        memset (out, 0, sizeof (T) * (gsize) ow_n);                  \
                        continue;                                                    \
                      }                                                              \
                    if (lo > 0)                                                      \
                      memset (out, 0, sizeof (T) * (gsize) lo);                      \
                    if (sw == 1)                                                     \
                      memcpy (out + lo, line + lo, sizeof (T) * (gsize) (hi - lo));  \
                    else                                                             \
                      for (gint64 ow = lo; ow < hi; ow++)                            \
                        out[ow] = line[ow * sw];                                     \
                    if (hi < ow_n)                                                   \
                      memset (out + hi, 0, sizeof (T) * (gsize) (ow_n - hi));        \
                  }                                                                  \
              }                                                                      \
          }                                                                          \
}

DEFINE_IM2COL (im2col_f32, float)
DEFINE_IM2COL (im2col_f64, double)

static void
im2col (const Geo *g,
        gpointer   img,
        gpointer   col,
        gboolean   fold)
{
  if (g->dbl)
    im2col_f64 (g, img, col, fold);
  else
    im2col_f32 (g, img, col, fold);
}

static void
gemm (const Geo            *g,
      enum CBLAS_TRANSPOSE  ta,
      enum CBLAS_TRANSPOSE  tb,
      gint64                m,
      gint64                n,
      gint64                k,
      gconstpointer         a,
      gint64                lda,
      gconstpointer         b,
      gint64                ldb,
      double                beta,
      gpointer              c,
      gint64                ldc)
{
  if (g->dbl)
    cblas_dgemm (CblasRowMajor, ta, tb, (blasint) m, (blasint) n, (blasint) k, 1.0, a, (blasint) lda,
                 b, (blasint) ldb, beta, c, (blasint) ldc);
  else
    cblas_sgemm (CblasRowMajor, ta, tb, (blasint) m, (blasint) n, (blasint) k, 1.0f, a, (blasint) lda,
                 b, (blasint) ldb, (float) beta, c, (blasint) ldc);
}

/* rows of @n elements at @y (@rows of them), each plus bias[row] */
static void
add_bias (const Geo     *g,
          gpointer       y,
          gconstpointer  bias,
          gint64         rows,
          gint64         n)
{
  for (gint64 r = 0; r < rows; r++)
    if (g->dbl)
      {
        double *p = (double *) y + r * n, b = ((const double *) bias)[r];

        for (gint64 i = 0; i < n; i++)
          p[i] += b;
      }
    else
      {
        float *p = (float *) y + r * n, b = ((const float *) bias)[r];

        for (gint64 i = 0; i < n; i++)
          p[i] += b;
      }
}

/* The columns' buffer, kept per thread between calls: a fresh one of
 * these sizes (a few MB) is a fresh mmap whose pages fault in on every
 * call, which costs as much as an im2col. */
typedef struct
{
  gpointer data[3];
  gsize    size[3];
} Scratch;

static void
scratch_free (gpointer data)
{
  Scratch *s = data;

  for (guint i = 0; i < G_N_ELEMENTS (s->data); i++)
    g_free (s->data[i]);
  g_free (s);
}

static GPrivate scratch_key = G_PRIVATE_INIT (scratch_free);

/* this thread's buffer @slot (0: columns; 1, 2: the shifted products'),
 * of at least @elems elements */
static gpointer
scratch_buffer (const Geo *g,
                guint      slot,
                gint64     elems)
{
  Scratch *s = g_private_get (&scratch_key);
  gsize size = g->es * (gsize) MAX (elems, 1);

  if (s == NULL)
    {
      s = g_new0 (Scratch, 1);
      g_private_set (&scratch_key, s);
    }
  if (s->size[slot] < size)
    {
      g_free (s->data[slot]);
      s->data[slot] = g_malloc (size);
      s->size[slot] = size;
    }
  return s->data[slot];
}

static gpointer
cols_buffer (const Geo *g)
{
  return scratch_buffer (g, 0, g->c * g->K * g->L);
}

#define AT(base, elems) ((char *) (base) + (gsize) (elems) * g->es)

/* -- Stride 1 without im2col ------------------------------------------
 *
 * Over the zero-padded image (Dp, Hp, Wp), kernel position k's columns
 * are the padded image itself shifted by off_k: a strided view gemm reads
 * directly. The columns side lives in rows of the padded width (span
 * positions from the first output to the last), whose last columns are
 * junk (cropped) or zero (read). This skips im2col's copy of K times the
 * image; OpenBLAS packs what it reads either way. */

typedef struct
{
  gint64 pd[3];    /* the padded image's sizes */
  gint64 pimg;     /* its positions */
  gint64 span;     /* the columns side's positions in padded rows */
  /* this thread's buffers: the padded image (zeroed), the columns side
   * in padded rows (m x span), the weight by offset (groups, K, m, c) */
  gpointer xpad, rows, wk;
} Padded;

static gboolean
gather_is_shifted (const Geo *g)
{
  return g->s[0] == 1 && g->s[1] == 1 && g->s[2] == 1 && g->K > 1 && g->L > 0;
}

static void
padded_init (const Geo *g,
             Padded    *pad)
{
  for (guint i = 0; i < 3; i++)
    pad->pd[i] = g->img[i] + 2 * g->p[i];
  pad->pimg = pad->pd[0] * pad->pd[1] * pad->pd[2];
  pad->span = ((g->col[0] - 1) * pad->pd[1] + g->col[1] - 1) * pad->pd[2] + g->col[2];
  pad->xpad = scratch_buffer (g, 0, g->c * pad->pimg);
  pad->rows = scratch_buffer (g, 1, g->m * pad->span);
  pad->wk = scratch_buffer (g, 2, g->groups * g->K * g->m * g->c);
  memset (pad->xpad, 0, g->es * (gsize) (g->c * pad->pimg));
}

/* kernel position k's shift in the padded image */
static gint64
padded_offset (const Geo    *g,
               const Padded *pad,
               gint64        k)
{
  gint64 kw = k % g->k[2], kh = (k / g->k[2]) % g->k[1], kd = k / (g->k[2] * g->k[1]);

  return (kd * g->d[0] * pad->pd[1] + kh * g->d[1]) * pad->pd[2] + kw * g->d[2];
}

/* The image @xg into the padded one's interior (the border stays 0) */
static void
pad_image (const Geo    *g,
           const Padded *pad,
           const char   *xg,
           gpointer      xpad)
{
  for (gint64 c = 0; c < g->c; c++)
    for (gint64 d = 0; d < g->img[0]; d++)
      for (gint64 h = 0; h < g->img[1]; h++)
        memcpy (AT (xpad, c * pad->pimg + ((d + g->p[0]) * pad->pd[1] + h + g->p[1]) * pad->pd[2] + g->p[2]),
                xg + (gsize) (((c * g->img[0] + d) * g->img[1] + h) * g->img[2]) * g->es,
                g->es * (gsize) g->img[2]);
}

/* The columns side's m rows between dense (@dense) and padded rows
 * (@rows): into the padded ones where @to_padded, else cropped back */
static void
move_rows (const Geo    *g,
           const Padded *pad,
           char         *dense,
           gpointer      rows,
           gboolean      to_padded)
{
  for (gint64 mo = 0; mo < g->m; mo++)
    for (gint64 od = 0; od < g->col[0]; od++)
      for (gint64 oh = 0; oh < g->col[1]; oh++)
        {
          char *a = dense + (gsize) (((mo * g->col[0] + od) * g->col[1] + oh) * g->col[2]) * g->es;
          char *b = AT (rows, mo * pad->span + (od * pad->pd[1] + oh) * pad->pd[2]);

          memcpy (to_padded ? b : a, to_padded ? a : b, g->es * (gsize) g->col[2]);
        }
}

/* the weight (groups * m, c, K) to (groups, K, m, c), or back */
static void
weight_by_offset (const Geo *g,
                  gpointer   w,
                  gpointer   wk,
                  gboolean   back)
{
  for (gint64 gr = 0; gr < g->groups; gr++)
    for (gint64 mo = 0; mo < g->m; mo++)
      for (gint64 ci = 0; ci < g->c; ci++)
        for (gint64 k = 0; k < g->K; k++)
          {
            char *a = AT (w, ((gr * g->m + mo) * g->c + ci) * g->K + k);
            char *b = AT (wk, ((gr * g->K + k) * g->m + mo) * g->c + ci);

            memcpy (back ? a : b, back ? b : a, g->es);
          }
}

/* run_gather: y_g = sum_k W_g[:, :, k] @ shifted_k (xpad), cropped */
static void
run_gather_shifted (const Geo     *g,
                    gconstpointer  w,
                    gpointer       x,
                    gconstpointer  bias,
                    gpointer       y)
{
  Padded pad;

  padded_init (g, &pad);
  weight_by_offset (g, (gpointer) w, pad.wk, FALSE);
  for (gint64 n = 0; n < g->n; n++)
    for (gint64 gr = 0; gr < g->groups; gr++)
      {
        char *yg = AT (y, (n * g->groups + gr) * g->m * g->L);

        pad_image (g, &pad, AT (x, (n * g->groups + gr) * g->c * g->img_n), pad.xpad);
        for (gint64 k = 0; k < g->K; k++)
          gemm (g, CblasNoTrans, CblasNoTrans, g->m, pad.span, g->c, AT (pad.wk, (gr * g->K + k) * g->m * g->c),
                g->c, AT (pad.xpad, padded_offset (g, &pad, k)), pad.pimg, k == 0 ? 0.0 : 1.0, pad.rows, pad.span);
        move_rows (g, &pad, yg, pad.rows, FALSE);
        if (bias != NULL)
          add_bias (g, yg, AT (bias, gr * g->m), g->m, g->L);
      }
}

/* cols side @y (N, groups * m, L) = W_g @ im2col (@x (N, groups * c, img)) + bias */
static void
run_gather (const Geo     *g,
            gconstpointer  w,
            gpointer       x,
            gconstpointer  bias,
            gpointer       y)
{
  gboolean identity = geo_is_identity (g);
  gpointer cols;
  gint64 ck = g->c * g->K;

  if (!identity && gather_is_shifted (g))
    {
      run_gather_shifted (g, w, x, bias, y);
      return;
    }
  cols = identity ? NULL : cols_buffer (g);
  for (gint64 n = 0; n < g->n; n++)
    for (gint64 gr = 0; gr < g->groups; gr++)
      {
        gpointer xg = AT (x, (n * g->groups + gr) * g->c * g->img_n);
        gpointer yg = AT (y, (n * g->groups + gr) * g->m * g->L);

        if (!identity)
          im2col (g, xg, cols, FALSE);
        gemm (g, CblasNoTrans, CblasNoTrans, g->m, g->L, ck, AT (w, gr * g->m * ck), ck,
              identity ? xg : cols, g->L, 0.0, yg, g->L);
        if (bias != NULL)
          add_bias (g, yg, AT (bias, gr * g->m), g->m, g->L);
      }
}

/* image side @y (N, groups * c, img) = col2im (W_g^T @ @x (N, groups * m, L)) + bias */
static void
run_scatter (const Geo     *g,
             gconstpointer  w,
             gconstpointer  x,
             gconstpointer  bias,
             gpointer       y)
{
  gboolean identity = geo_is_identity (g);
  gpointer cols = identity ? NULL : cols_buffer (g);
  gint64 ck = g->c * g->K;

  for (gint64 n = 0; n < g->n; n++)
    for (gint64 gr = 0; gr < g->groups; gr++)
      {
        gconstpointer xg = AT (x, (n * g->groups + gr) * g->m * g->L);
        gpointer yg = AT (y, (n * g->groups + gr) * g->c * g->img_n);

        gemm (g, CblasTrans, CblasNoTrans, ck, g->L, g->m, AT (w, gr * g->m * ck), ck, xg, g->L, 0.0,
              identity ? yg : cols, g->L);
        if (!identity)
          {
            memset (yg, 0, g->es * (gsize) (g->c * g->img_n));
            im2col (g, yg, cols, TRUE);
          }
        if (bias != NULL)
          add_bias (g, yg, AT (bias, gr * g->c), g->c, g->img_n);
      }
}

/* run_weight: grad W_g[:, :, k] = sum_n z (padded rows, zero past the
 * output's) @ shifted_k (xpad)^T */
static void
run_weight_shifted (const Geo     *g,
                    gconstpointer  z,
                    gpointer       x,
                    gpointer       gw)
{
  Padded pad;

  padded_init (g, &pad);
  memset (pad.rows, 0, g->es * (gsize) (g->m * pad.span));
  memset (pad.wk, 0, g->es * (gsize) (g->groups * g->K * g->m * g->c));
  for (gint64 n = 0; n < g->n; n++)
    for (gint64 gr = 0; gr < g->groups; gr++)
      {
        pad_image (g, &pad, AT (x, (n * g->groups + gr) * g->c * g->img_n), pad.xpad);
        move_rows (g, &pad, AT (z, (n * g->groups + gr) * g->m * g->L), pad.rows, TRUE);
        for (gint64 k = 0; k < g->K; k++)
          gemm (g, CblasNoTrans, CblasTrans, g->m, g->c, pad.span, pad.rows, pad.span,
                AT (pad.xpad, padded_offset (g, &pad, k)), pad.pimg, 1.0,
                AT (pad.wk, (gr * g->K + k) * g->m * g->c), g->c);
      }
  weight_by_offset (g, gw, pad.wk, TRUE);
}

/* @gw (groups * m, c, K) = sum_n @z (N, groups * m, L) @ im2col (@x)^T */
static void
run_weight (const Geo     *g,
            gconstpointer  z,
            gpointer       x,
            gpointer       gw)
{
  gboolean identity = geo_is_identity (g);
  gpointer cols;
  gint64 ck = g->c * g->K;

  if (!identity && gather_is_shifted (g))
    {
      run_weight_shifted (g, z, x, gw);
      return;
    }
  cols = identity ? NULL : cols_buffer (g);
  if (g->n == 0)
    memset (gw, 0, g->es * (gsize) (g->groups * g->m * ck));
  for (gint64 gr = 0; gr < g->groups; gr++)
    for (gint64 n = 0; n < g->n; n++)
      {
        gpointer xg = AT (x, (n * g->groups + gr) * g->c * g->img_n);

        if (!identity)
          im2col (g, xg, cols, FALSE);
        gemm (g, CblasNoTrans, CblasTrans, g->m, ck, g->L, AT (z, (n * g->groups + gr) * g->m * g->L), g->L,
              identity ? xg : cols, g->L, n == 0 ? 0.0 : 1.0, AT (gw, gr * g->m * ck), ck);
      }
}

/* -- Operands in the compute dtype ------------------------------------- */

typedef struct
{
  TsView   view;      /* dense, compute dtype */
  gpointer data;      /* its first element */
  gboolean owned;
} Dense;

static TsDType
compute_dtype (TsDType dtype)
{
  return dtype == TS_DTYPE_FLOAT64 ? TS_DTYPE_FLOAT64 : TS_DTYPE_FLOAT32;
}

/* Copies dims [d, ndim) of the strided @src (elements of @es bytes) to the
 * dense @dst; returns the end of what it wrote. The generic ts_cpu_copy
 * converts element by element: this one moves bytes, with a fill for the
 * stride-0 dims of an expanded gradient (sum ().backward ()) and a memcpy
 * for dense rows. */
static char *
gather_dense (const TsView *src,
              guint         d,
              const char   *from,
              char         *dst,
              gsize         es)
{
  gint64 n = src->shape[d], stride = src->strides[d] * (gint64) es;

  if (d + 1 < src->ndim)
    {
      for (gint64 i = 0; i < n; i++)
        dst = gather_dense (src, d + 1, from + i * stride, dst, es);
      return dst;
    }
  if (stride == (gint64) es)
    memcpy (dst, from, es * (gsize) n);
  else if (stride == 0 && es == sizeof (float))
    {
      float v, *out = (float *) dst;

      memcpy (&v, from, sizeof v);
      for (gint64 i = 0; i < n; i++)
        out[i] = v;
    }
  else if (es == sizeof (float))
    for (gint64 i = 0; i < n; i++)
      memcpy (dst + i * es, from + i * stride, sizeof (float));
  else
    for (gint64 i = 0; i < n; i++)
      memcpy (dst + i * es, from + i * stride, sizeof (double));
  return dst + es * (gsize) n;
}

/* @v as a dense buffer of @dtype: itself when it is one, else a copy
 * (@load FALSE: an output, uninitialized) */
static void
dense_new (Dense        *d,
           const TsView *v,
           TsDType       dtype,
           gboolean      load)
{
  if (v->dtype == dtype && ts_view_is_contiguous (v))
    {
      d->view = *v;
      d->data = (char *) v->data + v->offset * (gint64) ts_dtype_size (dtype);
      d->owned = FALSE;
      return;
    }
  d->data = g_malloc (ts_dtype_size (dtype) * (gsize) MAX (ts_view_numel (v), 1));
  d->owned = TRUE;
  ts_view_init (&d->view, dtype, d->data, v->ndim, v->shape, NULL, 0);
  if (load && v->dtype == dtype && v->ndim > 0 && ts_view_numel (v) > 0)
    gather_dense (v, 0, (const char *) v->data + v->offset * (gint64) ts_dtype_size (dtype), d->data,
                  ts_dtype_size (dtype));
  else if (load)
    ts_cpu_copy (&d->view, v, NULL);
}

/* the output's values to @out (rounded there once), and the buffer freed */
static void
dense_finish (Dense        *d,
              const TsView *out)
{
  if (!d->owned)
    return;
  if (out != NULL)
    ts_cpu_copy (out, &d->view, NULL);
  g_free (d->data);
}

static gboolean
check_dtype (const TsView  *v,
             GError       **error)
{
  if (v->dtype == TS_DTYPE_FLOAT32 || v->dtype == TS_DTYPE_FLOAT64 || ts_cpu_dtype_is_half (v->dtype))
    return TRUE;
  return ts_kernel_fail_dispatch (error, "slow_conv2d_cpu", v->dtype);
}

static gboolean
check_params (const TsConvParams  *p,
              const TsView        *weight,
              GError             **error)
{
  if (p->n_spatial < 1 || p->n_spatial > TS_CONV_MAX_SPATIAL || weight->ndim != p->n_spatial + 2 ||
      p->groups < 1 || weight->shape[0] % p->groups != 0)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE, "convolution: bad arguments");
  return check_dtype (weight, error);
}

/* A scatter with stride 1 is a gather over the other side: the columns
 * side padded by d * (k - 1) - p, with the kernel flipped and its two
 * channel dims swapped group by group. One gemm with the longer inner
 * dim (c * K instead of m) and no col2im's read-modify-write: cheaper
 * than the scatter, and the usual case (stride-1 layers' input
 * gradients). Needs d * (k - 1) >= p. */
static gboolean
scatter_as_gather (const TsConvParams *p,
                   const TsView       *weight,
                   TsConvParams       *q,
                   TsView             *flipped)
{
  *q = *p;
  for (guint d = 0; d < p->n_spatial; d++)
    {
      gint64 reach = p->dilation[d] * (weight->shape[2 + d] - 1);

      if (p->stride[d] != 1 || reach < p->padding[d])
        return FALSE;
      q->padding[d] = reach - p->padding[d];
    }
  *flipped = *weight;
  flipped->shape[0] = weight->shape[1] * p->groups;
  flipped->shape[1] = weight->shape[0] / p->groups;
  ts_contiguous_strides (flipped->ndim, flipped->shape, flipped->strides);
  flipped->offset = 0;
  return TRUE;
}

/* @w (groups * m, c, K) dense into @out (groups * c, m, K), K reversed */
static void
flip_weight (const Geo     *g,
             gconstpointer  w,
             gpointer       out)
{
  for (gint64 gr = 0; gr < g->groups; gr++)
    for (gint64 mo = 0; mo < g->m; mo++)
      for (gint64 ci = 0; ci < g->c; ci++)
        for (gint64 k = 0; k < g->K; k++)
          memcpy (AT (out, ((gr * g->c + ci) * g->m + mo) * g->K + g->K - 1 - k),
                  AT (w, ((gr * g->m + mo) * g->c + ci) * g->K + k), g->es);
}

/* gather from @src (the image side) into @dst, or scatter from @src (the
 * columns side) into @dst (the image side) */
static void
run_product (const TsConvParams *p,
             gboolean            gather,
             const TsView       *src,
             const TsView       *weight,
             const TsView       *bias,
             const TsView       *dst)
{
  TsDType ct = compute_dtype (weight->dtype);
  Dense ds, dw, db = { 0 }, dd;
  TsConvParams q;
  TsView flipped;
  gpointer wf = NULL;
  Geo g;

  geo_init (&g, p, gather ? src : dst, gather ? dst : src, weight, p->groups);
  dense_new (&ds, src, ct, TRUE);
  dense_new (&dw, weight, ct, TRUE);
  if (bias != NULL && bias->data != NULL)
    dense_new (&db, bias, ct, TRUE);
  dense_new (&dd, dst, ct, FALSE);
  if (!gather && scatter_as_gather (p, weight, &q, &flipped))
    {
      wf = g_malloc (g.es * (gsize) MAX (ts_view_numel (weight), 1));
      flip_weight (&g, dw.data, wf);
      geo_init (&g, &q, src, dst, &flipped, p->groups);
      run_gather (&g, wf, ds.data, db.data, dd.data);
      g_free (wf);
    }
  else if (gather)
    run_gather (&g, dw.data, ds.data, db.data, dd.data);
  else
    run_scatter (&g, dw.data, ds.data, db.data, dd.data);
  dense_finish (&dd, dst);
  dense_finish (&ds, NULL);
  dense_finish (&dw, NULL);
  if (db.data != NULL)
    dense_finish (&db, NULL);
}

/* run_product after the checks, into a @dst with elements */
static gboolean
checked_product (const TsConvParams  *p,
                 gboolean             gather,
                 const TsView        *src,
                 const TsView        *weight,
                 const TsView        *bias,
                 const TsView        *dst,
                 GError             **error)
{
  if (!check_params (p, weight, error))
    return FALSE;
  if (ts_view_numel (dst) > 0)
    run_product (p, gather, src, weight, bias, dst);
  return TRUE;
}

gboolean
ts_cpu_conv (const TsConvParams *p,
             const TsView       *in,
             const TsView       *weight,
             const TsView       *bias,
             const TsView       *out,
             GError            **error)
{
  g_return_val_if_fail (p != NULL && in != NULL && weight != NULL && out != NULL, FALSE);

  return checked_product (p, !p->transposed, in, weight, bias, out, error);
}

gboolean
ts_cpu_conv_backward_input (const TsConvParams *p,
                            const TsView       *grad_out,
                            const TsView       *weight,
                            const TsView       *grad_in,
                            GError            **error)
{
  g_return_val_if_fail (p != NULL && grad_out != NULL && weight != NULL && grad_in != NULL, FALSE);

  return checked_product (p, p->transposed, grad_out, weight, NULL, grad_in, error);
}

/* The sum of @n values at @p in double, four running sums (the
 * dependency chain of one would be the loop's bound) */
#define DEFINE_SUM_RUN(NAME, T)                                   \
static double                                                    \
NAME (const T *p, gint64 n)                                      \
{                                                                \
  double a0 = 0, a1 = 0, a2 = 0, a3 = 0;                         \
  gint64 i = 0;                                                  \
                                                                 \
  for (; i + 4 <= n; i += 4)                                     \
    {                                                            \
      a0 += p[i];                                                \
      a1 += p[i + 1];                                            \
      a2 += p[i + 2];                                            \
      a3 += p[i + 3];                                            \
    }                                                            \
  for (; i < n; i++)                                             \
    a0 += p[i];                                                  \
  return (a0 + a1) + (a2 + a3);                                  \
}

DEFINE_SUM_RUN (sum_run_f32, float)
DEFINE_SUM_RUN (sum_run_f64, double)

/* grad_bias[c] = sum of grad_out[:, c], accumulated in double */
static void
bias_grad (const Dense  *gout,
           const TsView *grad_bias)
{
  const TsView *v = &gout->view;
  gint64 n = v->shape[0], c = v->shape[1], inner = ts_view_numel (v) / MAX (n * c, 1);

  for (gint64 ch = 0; ch < c; ch++)
    {
      double acc = 0;
      gint64 i = ch;

      for (gint64 b = 0; b < n; b++)
        acc += v->dtype == TS_DTYPE_FLOAT64 ? sum_run_f64 ((const double *) gout->data + (b * c + ch) * inner, inner)
                                            : sum_run_f32 ((const float *) gout->data + (b * c + ch) * inner, inner);
      ts_dtype_store (grad_bias->dtype, ts_view_element_ptr (grad_bias, &i), acc);
    }
}

gboolean
ts_cpu_conv_backward_weight (const TsConvParams *p,
                             const TsView       *grad_out,
                             const TsView       *in,
                             const TsView       *grad_weight,
                             const TsView       *grad_bias,
                             GError            **error)
{
  gboolean weight = grad_weight != NULL && grad_weight->data != NULL;
  TsDType ct = compute_dtype (grad_out->dtype);
  Dense dx, dgo, dgw;
  Geo g;

  g_return_val_if_fail (p != NULL && grad_out != NULL && in != NULL, FALSE);

  if ((weight && !check_params (p, grad_weight, error)) || !check_dtype (grad_out, error))
    return FALSE;
  dense_new (&dgo, grad_out, ct, TRUE);
  if (weight && ts_view_numel (grad_weight) > 0)
    {
      geo_init (&g, p, p->transposed ? grad_out : in, p->transposed ? in : grad_out, grad_weight, p->groups);
      dense_new (&dx, in, ct, TRUE);
      dense_new (&dgw, grad_weight, ct, FALSE);
      run_weight (&g, p->transposed ? dx.data : dgo.data, p->transposed ? dgo.data : dx.data, dgw.data);
      dense_finish (&dgw, grad_weight);
      dense_finish (&dx, NULL);
    }
  if (grad_bias != NULL && grad_bias->data != NULL)
    bias_grad (&dgo, grad_bias);
  dense_finish (&dgo, NULL);
  return TRUE;
}

TsKernelCost
ts_cost_conv (const TsConvParams *p,
              const TsView       *in,
              const TsView       *weight,
              const TsView       *out)
{
  const TsView *cols = p->transposed ? in : out;
  double elem = (double) ts_dtype_size (out->dtype);
  TsKernelCost cost;

  /* weight's numel is Cout * Cin / groups * prod kernel either way */
  cost.flops = 2.0 * (double) ts_view_numel (weight) * (double) ts_view_numel (cols) /
               (double) MAX (cols->shape[1], 1);
  cost.bytes = elem * ((double) ts_view_numel (in) + (double) ts_view_numel (weight) +
                       (double) ts_view_numel (out));
  return cost;
}
