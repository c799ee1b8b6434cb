/* ts-cpu-pool.c: 2-d pooling and batch normalization
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Hand-written loops: no Debian library pools or batch-normalizes on the
 * CPU (oneDNN is not packaged for us, BLAS has no such routine). Each
 * follows PyTorch 1.13's CPU kernel for the contiguous layout, in its
 * order of operations, so that results agree to the last bit where they
 * can: max pooling keeps the first maximum (NaN wins), average pooling
 * sums in the input's type row by row, batch norm sums its statistics in
 * double (acc_type on the CPU) and transforms as in * alpha + beta.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-cpu-kernels-private.h"
#include "ts-cpu-pool.h"
#include "ts-cpu-vector-private.h"

#define AT(v, T) ((T *) (v)->data + (v)->offset)

static gboolean
check_float (const TsView *in,
             const char   *name,
             GError      **error)
{
  if (in->dtype == TS_DTYPE_FLOAT32 || in->dtype == TS_DTYPE_FLOAT64)
    return TRUE;
  return ts_kernel_fail_dispatch (error, name, in->dtype);
}

/* PyTorch's adaptive windows: [floor (o * n / m), ceil ((o + 1) * n / m)) */
static inline gint64
adaptive_start (gint64 o, gint64 m, gint64 n)
{
  return (o * n) / m;
}

static inline gint64
adaptive_end (gint64 o, gint64 m, gint64 n)
{
  return ((o + 1) * n + m - 1) / m;
}

/* An output's window of rows (or columns) [*lo, *hi) and, for average
 * pooling, its padded extent: PyTorch's cpu_avg_pool / cpu_max_pool */
typedef struct
{
  gint64 h0, h1, w0, w1;
  gint64 pool_size;     /* avg: the padded window's size */
} Window;

static inline void
window_at (TsPoolKernel    kind,
           const TsPool2d *p,
           gint64 oh, gint64 ow, gint64 OH, gint64 OW, gint64 H, gint64 W,
           Window         *win)
{
  switch (kind)
    {
    case TS_POOL_ADAPTIVE_AVG:
    case TS_POOL_ADAPTIVE_MAX:
    case TS_POOL_ADAPTIVE_AVG_BACKWARD:
    case TS_POOL_ADAPTIVE_MAX_BACKWARD:
      win->h0 = adaptive_start (oh, OH, H);
      win->h1 = adaptive_end (oh, OH, H);
      win->w0 = adaptive_start (ow, OW, W);
      win->w1 = adaptive_end (ow, OW, W);
      win->pool_size = (win->h1 - win->h0) * (win->w1 - win->w0);
      break;
    case TS_POOL_AVG:
    case TS_POOL_AVG_BACKWARD:
      win->h0 = oh * p->sh - p->ph;
      win->w0 = ow * p->sw - p->pw;
      win->h1 = MIN (win->h0 + p->kh, H + p->ph);
      win->w1 = MIN (win->w0 + p->kw, W + p->pw);
      win->pool_size = (win->h1 - win->h0) * (win->w1 - win->w0);
      win->h0 = MAX (win->h0, 0);
      win->w0 = MAX (win->w0, 0);
      win->h1 = MIN (win->h1, H);
      win->w1 = MIN (win->w1, W);
      break;
    default:
      win->h0 = oh * p->sh - p->ph;
      win->w0 = ow * p->sw - p->pw;
      win->h1 = MIN (win->h0 + (gint64) (p->kh - 1) * p->dh + 1, H);
      win->w1 = MIN (win->w0 + (gint64) (p->kw - 1) * p->dw + 1, W);
      while (win->h0 < 0)
        win->h0 += p->dh;
      while (win->w0 < 0)
        win->w0 += p->dw;
      win->pool_size = 0;
      break;
    }
}

static inline double
avg_divisor (TsPoolKernel kind, const TsPool2d *p, const Window *win)
{
  if (kind == TS_POOL_AVG || kind == TS_POOL_AVG_BACKWARD)
    {
      if (p->divisor != 0)
        return (double) p->divisor;
      if (p->count_include_pad)
        return (double) win->pool_size;
      return (double) ((win->h1 - win->h0) * (win->w1 - win->w0));
    }
  return 0;
}

#define DEFINE_POOL(NAME, T)                                                      \
static void                                                                       \
NAME (TsPoolKernel kind, const TsPool2d *p, const TsView *in, const TsView *out,  \
      const TsView *indices)                                                      \
{                                                                                 \
  gint64 H = in->shape[in->ndim - 2], W = in->shape[in->ndim - 1];                \
  gint64 OH = out->shape[out->ndim - 2], OW = out->shape[out->ndim - 1];          \
  gint64 planes = OH * OW == 0 ? 0 : ts_view_numel (out) / (OH * OW);             \
  gint64 dh = kind == TS_POOL_MAX ? p->dh : 1, dw = kind == TS_POOL_MAX ? p->dw : 1; \
  const T *x = AT (in, T);                                                        \
  T *y = AT (out, T);                                                             \
  gint64 *ind = indices != NULL && indices->data != NULL ? AT (indices, gint64) : NULL; \
                                                                                  \
  for (gint64 pl = 0; pl < planes; pl++)                                          \
    {                                                                             \
      const T *xp = x + pl * H * W;                                               \
      for (gint64 oh = 0; oh < OH; oh++)                                          \
        for (gint64 ow = 0; ow < OW; ow++)                                        \
          {                                                                       \
            Window win;                                                           \
            gint64 o = (pl * OH + oh) * OW + ow;                                  \
                                                                                  \
            window_at (kind, p, oh, ow, OH, OW, H, W, &win);                      \
            if (kind == TS_POOL_MAX || kind == TS_POOL_ADAPTIVE_MAX)              \
              {                                                                   \
                gint64 maxi = win.h0 * W + win.w0;                                \
                T maxv = -INFINITY;                                               \
                for (gint64 ih = win.h0; ih < win.h1; ih += dh)                   \
                  for (gint64 iw = win.w0; iw < win.w1; iw += dw)                 \
                    {                                                             \
                      T v = xp[ih * W + iw];                                      \
                      if (v > maxv || isnan (v))                                  \
                        {                                                         \
                          maxv = v;                                               \
                          maxi = ih * W + iw;                                     \
                        }                                                         \
                    }                                                             \
                y[o] = maxv;                                                      \
                if (ind != NULL)                                                  \
                  ind[o] = maxi;                                                  \
              }                                                                   \
            else                                                                  \
              {                                                                   \
                T sum = 0;                                                        \
                if (win.h0 >= win.h1 || win.w0 >= win.w1)                         \
                  {                                                               \
                    y[o] = 0;                                                     \
                    continue;                                                     \
                  }                                                               \
                for (gint64 ih = win.h0; ih < win.h1; ih++)                       \
                  for (gint64 iw = win.w0; iw < win.w1; iw++)                     \
                    sum += xp[ih * W + iw];                                       \
                if (kind == TS_POOL_AVG)                                          \
                  y[o] = sum / (T) avg_divisor (kind, p, &win);                   \
                else                                                              \
                  y[o] = sum / (T) (win.h1 - win.h0) / (T) (win.w1 - win.w0);     \
              }                                                                   \
          }                                                                       \
    }                                                                             \
}

DEFINE_POOL (pool_f32, float)
DEFINE_POOL (pool_f64, double)

gboolean
ts_cpu_pool2d (TsPoolKernel    kind,
               const TsPool2d *p,
               const TsView   *in,
               const TsView   *out,
               const TsView   *indices,
               GError        **error)
{
  g_return_val_if_fail (in->ndim >= 2 && out->ndim == in->ndim, FALSE);

  if (!check_float (in, kind == TS_POOL_AVG ? "avg_pool2d" : kind == TS_POOL_MAX ? "max_pool2d" :
                        kind == TS_POOL_ADAPTIVE_AVG ? "adaptive_avg_pool2d" : "adaptive_max_pool2d",
                    error))
    return FALSE;
  if (in->dtype == TS_DTYPE_FLOAT64)
    pool_f64 (kind, p, in, out, indices);
  else
    pool_f32 (kind, p, in, out, indices);
  return TRUE;
}

#define DEFINE_POOL_BACKWARD(NAME, T)                                             \
static void                                                                       \
NAME (TsPoolKernel kind, const TsPool2d *p, const TsView *gout,                   \
      const TsView *indices, const TsView *gin)                                   \
{                                                                                 \
  gint64 H = gin->shape[gin->ndim - 2], W = gin->shape[gin->ndim - 1];            \
  gint64 OH = gout->shape[gout->ndim - 2], OW = gout->shape[gout->ndim - 1];      \
  gint64 planes = OH * OW == 0 ? 0 : ts_view_numel (gout) / (OH * OW);            \
  const T *g = AT (gout, T);                                                      \
  T *gi = AT (gin, T);                                                            \
                                                                                  \
  memset (gi, 0, (gsize) ts_view_numel (gin) * sizeof (T));                       \
  for (gint64 pl = 0; pl < planes; pl++)                                          \
    {                                                                             \
      T *gp = gi + pl * H * W;                                                    \
      for (gint64 oh = 0; oh < OH; oh++)                                          \
        for (gint64 ow = 0; ow < OW; ow++)                                        \
          {                                                                       \
            gint64 o = (pl * OH + oh) * OW + ow;                                  \
            Window win;                                                           \
            T delta;                                                              \
                                                                                  \
            if (kind == TS_POOL_MAX_BACKWARD || kind == TS_POOL_ADAPTIVE_MAX_BACKWARD) \
              {                                                                   \
                gint64 at = AT (indices, gint64)[o];                              \
                if (at >= 0 && at < H * W)                                        \
                  gp[at] += g[o];                                                 \
                continue;                                                         \
              }                                                                   \
            window_at (kind, p, oh, ow, OH, OW, H, W, &win);                      \
            if (kind == TS_POOL_AVG_BACKWARD)                                     \
              delta = g[o] / (T) avg_divisor (kind, p, &win);                     \
            else                                                                  \
              delta = g[o] / (T) (win.h1 - win.h0) / (T) (win.w1 - win.w0);       \
            for (gint64 ih = win.h0; ih < win.h1; ih++)                           \
              for (gint64 iw = win.w0; iw < win.w1; iw++)                         \
                gp[ih * W + iw] += delta;                                         \
          }                                                                       \
    }                                                                             \
}

DEFINE_POOL_BACKWARD (pool_backward_f32, float)
DEFINE_POOL_BACKWARD (pool_backward_f64, double)

gboolean
ts_cpu_pool2d_backward (TsPoolKernel    kind,
                        const TsPool2d *p,
                        const TsView   *grad_out,
                        const TsView   *indices,
                        const TsView   *grad_in,
                        GError        **error)
{
  g_return_val_if_fail (grad_in->ndim >= 2 && grad_out->ndim == grad_in->ndim, FALSE);

  if (!check_float (grad_out, "pool2d_backward", error))
    return FALSE;
  if (grad_out->dtype == TS_DTYPE_FLOAT64)
    pool_backward_f64 (kind, p, grad_out, indices, grad_in);
  else
    pool_backward_f32 (kind, p, grad_out, indices, grad_in);
  return TRUE;
}

TsKernelCost
ts_cost_pool (const TsView *in,
              const TsView *out,
              double        window)
{
  TsKernelCost cost;
  gsize size = ts_dtype_size (in->dtype);

  /* each output reads its window (cached: the input once from memory) */
  cost.flops = window * (double) ts_view_numel (out);
  cost.bytes = (double) size * (double) (ts_view_numel (in) + ts_view_numel (out));
  return cost;
}

/* -- Batch norm ------------------------------------------------------------ */

static inline double
ld (const TsView *v, gint64 i, double absent)
{
  if (v == NULL || v->data == NULL)
    return absent;
  return ts_dtype_load (v->dtype, (const guint8 *) v->data + (v->offset + i) * (gint64) ts_dtype_size (v->dtype));
}

static inline void
st (const TsView *v, gint64 i, double value)
{
  ts_dtype_store (v->dtype, (guint8 *) v->data + (v->offset + i) * (gint64) ts_dtype_size (v->dtype), value);
}

/* (N, C, S) of an input of rank >= 2 */
static void
ncs (const TsView *in, gint64 *n, gint64 *c, gint64 *s)
{
  *n = in->shape[0];
  *c = in->shape[1];
  *s = 1;
  for (guint d = 2; d < in->ndim; d++)
    *s *= in->shape[d];
}

/* PyTorch's batch_norm_cpu_collect_stats_contiguous_impl: the mean in the
 * input's type, the squared deviations summed in double; then
 * batch_norm_cpu_update_stats_template's invstd and running stats */
#define DEFINE_STATS(NAME, T)                                                     \
static void                                                                       \
NAME (const TsView *stats, const TsView *in, const TsView *rmean,                 \
      const TsView *rvar, double momentum, double eps)                            \
{                                                                                 \
  gint64 N, C, S;                                                                 \
  const T *x = AT (in, T);                                                        \
                                                                                  \
  ncs (in, &N, &C, &S);                                                           \
  for (gint64 c = 0; c < C; c++)                                                  \
    {                                                                             \
      double sum = 0, var_sum = 0;                                                \
      gint64 M = N * S;                                                           \
      T mean;                                                                     \
      T var_sum_f;                                                                \
                                                                                  \
      for (gint64 n = 0; n < N; n++)                                              \
        for (gint64 i = 0; i < S; i++)                                            \
          sum += x[(n * C + c) * S + i];                                          \
      mean = (T) (sum / (double) M);                                              \
      for (gint64 n = 0; n < N; n++)                                              \
        for (gint64 i = 0; i < S; i++)                                            \
          {                                                                       \
            T d = x[(n * C + c) * S + i] - mean;                                  \
            var_sum += d * d;                                                     \
          }                                                                       \
      /* var_sum lands in a tensor of the parameters' dtype */                    \
      var_sum_f = (T) var_sum;                                                    \
      {                                                                           \
        T var = (T) var_sum_f / (T) M;                                            \
        double invstd = (var != 0 || eps != 0) ? 1.0 / sqrt ((double) var + eps) : 0; \
        st (stats, c, mean);                                                      \
        st (stats, C + c, invstd);                                                \
      }                                                                           \
      if (rmean != NULL && rmean->data != NULL)                                   \
        st (rmean, c, momentum * mean + (1 - momentum) * ld (rmean, c, 0));       \
      if (rvar != NULL && rvar->data != NULL)                                     \
        st (rvar, c, momentum * ((T) var_sum_f / (T) (M - 1)) + (1 - momentum) * ld (rvar, c, 0)); \
    }                                                                             \
}

DEFINE_STATS (stats_f32, float)
DEFINE_STATS (stats_f64, double)

#define DEFINE_APPLY(NAME, T)                                                     \
static void                                                                       \
NAME (const TsView *out, const TsView *in, const TsView *coef)                    \
{                                                                                 \
  gint64 N, C, S;                                                                 \
  const T *x = AT (in, T);                                                        \
  T *y = AT (out, T);                                                             \
                                                                                  \
  ncs (in, &N, &C, &S);                                                           \
  for (gint64 n = 0; n < N; n++)                                                  \
    for (gint64 c = 0; c < C; c++)                                                \
      {                                                                           \
        T alpha = (T) ld (coef, c, 0), beta = (T) ld (coef, C + c, 0);            \
        const T *xp = x + (n * C + c) * S;                                        \
        T *yp = y + (n * C + c) * S;                                              \
        for (gint64 i = 0; i < S; i++)                                            \
          yp[i] = xp[i] * alpha + beta;                                           \
      }                                                                           \
}

DEFINE_APPLY (apply_f32, float)
DEFINE_APPLY (apply_f64, double)

/* batch_norm_backward_cpu_template: per channel sum (dy) and
 * dot (x - mean, dy), in double */
#define DEFINE_BACKWARD_REDUCE(NAME, T)                                           \
static void                                                                       \
NAME (const TsView *red, const TsView *gout, const TsView *in, const TsView *stats) \
{                                                                                 \
  gint64 N, C, S;                                                                 \
  const T *x = AT (in, T), *g = AT (gout, T);                                     \
                                                                                  \
  ncs (in, &N, &C, &S);                                                           \
  for (gint64 c = 0; c < C; c++)                                                  \
    {                                                                             \
      double sum = 0, dotp = 0;                                                   \
      T mean = (T) ld (stats, c, 0);                                              \
      for (gint64 n = 0; n < N; n++)                                              \
        for (gint64 i = 0; i < S; i++)                                            \
          {                                                                       \
            gint64 at = (n * C + c) * S + i;                                      \
            sum += g[at];                                                         \
            dotp += (x[at] - mean) * g[at];                                       \
          }                                                                       \
      st (red, c, sum);                                                           \
      st (red, C + c, dotp);                                                      \
    }                                                                             \
}

DEFINE_BACKWARD_REDUCE (backward_reduce_f32, float)
DEFINE_BACKWARD_REDUCE (backward_reduce_f64, double)

#define DEFINE_BACKWARD_APPLY(NAME, T)                                            \
static void                                                                       \
NAME (const TsView *gin, const TsView *gout, const TsView *in, const TsView *bc)   \
{                                                                                 \
  gint64 N, C, S;                                                                 \
  const T *x = AT (in, T), *g = AT (gout, T);                                     \
  T *dx = AT (gin, T);                                                            \
                                                                                  \
  ncs (in, &N, &C, &S);                                                           \
  for (gint64 n = 0; n < N; n++)                                                  \
    for (gint64 c = 0; c < C; c++)                                                \
      {                                                                           \
        T mean = (T) ld (bc, c, 0), k = (T) ld (bc, C + c, 0);                    \
        T gm = (T) ld (bc, 2 * C + c, 0), invstd = (T) ld (bc, 3 * C + c, 0);     \
        T w = (T) ld (bc, 4 * C + c, 0);                                          \
        gint64 at = (n * C + c) * S;                                              \
        for (gint64 i = 0; i < S; i++)                                            \
          dx[at + i] = (g[at + i] - gm - (x[at + i] - mean) * k) * invstd * w;    \
      }                                                                           \
}

DEFINE_BACKWARD_APPLY (backward_apply_f32, float)
DEFINE_BACKWARD_APPLY (backward_apply_f64, double)

/* Per-channel steps: small, through ts_dtype_load/store; in the
 * parameters' type (float rounds each step as PyTorch's float math does) */
static inline double
rnd (const TsView *like, double x)
{
  return like->dtype == TS_DTYPE_FLOAT64 ? x : (double) (float) x;
}

static void
stats_running (const TsView *stats, const TsView *rmean, const TsView *rvar, double eps)
{
  gint64 C = ts_view_numel (rmean);

  for (gint64 c = 0; c < C; c++)
    {
      /* eval: 1 / std::sqrt (running_var + static_cast<param_t> (eps)) */
      double var = rnd (stats, ld (rvar, c, 1) + rnd (stats, eps));

      st (stats, c, ld (rmean, c, 0));
      st (stats, C + c, rnd (stats, 1.0 / rnd (stats, sqrt (var))));
    }
}

static void
affine (const TsView *coef, const TsView *stats, const TsView *w, const TsView *b)
{
  gint64 C = stats->shape[1];

  for (gint64 c = 0; c < C; c++)
    {
      double alpha = rnd (coef, ld (stats, C + c, 0) * ld (w, c, 1));

      st (coef, c, alpha);
      st (coef, C + c, rnd (coef, ld (b, c, 0) - rnd (coef, ld (stats, c, 0) * alpha)));
    }
}

/* group norm: channel j = n * C + c of group n * G + c / (C / G) */
static void
group_affine (const TsView *coef, const TsView *stats, const TsView *w, const TsView *b, gint64 C, gint64 G)
{
  gint64 NC = coef->shape[1], NG = stats->shape[1], D = C / MAX (G, 1);

  for (gint64 j = 0; j < NC; j++)
    {
      gint64 g = j / MAX (D, 1), c = j % C;
      double alpha = rnd (coef, ld (stats, NG + g, 0) * ld (w, c, 1));

      st (coef, j, alpha);
      st (coef, NC + j, rnd (coef, ld (b, c, 0) - rnd (coef, ld (stats, g, 0) * alpha)));
    }
}

/* training: k = dotp * invstd^2 / M, grad_mean = sum / M; eval: plain */
static void
backward_coef (const TsView *bc, const TsView *red, const TsView *stats, const TsView *w,
               double M, gboolean training)
{
  gint64 C = stats->shape[1];

  for (gint64 c = 0; c < C; c++)
    {
      double invstd = ld (stats, C + c, 0);
      double k = rnd (bc, rnd (bc, rnd (bc, ld (red, C + c, 0)) * invstd) * invstd);

      st (bc, c, training ? ld (stats, c, 0) : 0);
      st (bc, C + c, training ? k / M : 0);
      st (bc, 2 * C + c, training ? ld (red, c, 0) / M : 0);
      st (bc, 3 * C + c, invstd);
      st (bc, 4 * C + c, ld (w, c, 1));
    }
}

gboolean
ts_cpu_batch_norm (TsNormPhase   phase,
                   const TsView *out,
                   const TsView *a,
                   const TsView *b,
                   const TsView *c,
                   double        momentum,
                   double        eps,
                   GError      **error)
{
  gboolean f64;

  switch (phase)
    {
    case TS_NORM_STATS:
      if (!check_float (a, "batch_norm", error))
        return FALSE;
      if (a->dtype == TS_DTYPE_FLOAT64)
        stats_f64 (out, a, b, c, momentum, eps);
      else
        stats_f32 (out, a, b, c, momentum, eps);
      return TRUE;
    case TS_NORM_STATS_RUNNING:
      stats_running (out, a, b, eps);
      return TRUE;
    case TS_NORM_AFFINE:
      affine (out, a, b, c);
      return TRUE;
    case TS_NORM_APPLY:
      if (!check_float (a, "batch_norm", error))
        return FALSE;
      (a->dtype == TS_DTYPE_FLOAT64 ? apply_f64 : apply_f32) (out, a, b);
      return TRUE;
    case TS_NORM_BACKWARD_REDUCE:
      f64 = a->dtype == TS_DTYPE_FLOAT64;
      (f64 ? backward_reduce_f64 : backward_reduce_f32) (out, a, b, c);
      return TRUE;
    case TS_NORM_BACKWARD_COEF:
      /* momentum carries the element count per channel, eps whether training */
      backward_coef (out, a, b, c, momentum, eps != 0);
      return TRUE;
    case TS_NORM_GROUP_AFFINE:
      /* momentum carries C, eps G */
      group_affine (out, a, b, c, (gint64) momentum, (gint64) eps);
      return TRUE;
    case TS_NORM_BACKWARD_APPLY:
      f64 = a->dtype == TS_DTYPE_FLOAT64;
      (f64 ? backward_apply_f64 : backward_apply_f32) (out, a, b, c);
      return TRUE;
    default:
      g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_ARGUMENT, "no batch norm phase %d", phase);
      return FALSE;
    }
}

TsKernelCost
ts_cost_batch_norm (const TsView *big,
                    double        passes)
{
  TsKernelCost cost;

  cost.flops = 3.0 * passes * (double) ts_view_numel (big);
  cost.bytes = passes * (double) ts_dtype_size (big->dtype) * (double) ts_view_numel (big);
  return cost;
}

/* -- Remaps (padding, nearest upsampling) ---------------------------------- */

/* The input index that output index @o of a dim reads, or -1 for none:
 * PyTorch's reflection/replication/circular padding and nearest_idx */
static inline gint64
remap_source (TsRemapKernel mode, gint64 o, gint64 n_in, gint64 n_out, gint64 pad, float scale)
{
  gint64 i = o - pad;

  switch (mode)
    {
    case TS_REMAP_REFLECT:
      if (i < 0)
        i = -i;
      if (i >= n_in)
        i = 2 * (n_in - 1) - i;
      return i;
    case TS_REMAP_REPLICATE:
      return CLAMP (i, 0, n_in - 1);
    case TS_REMAP_CIRCULAR:
      return ((i % n_in) + n_in) % n_in;
    case TS_REMAP_NEAREST:
      if (n_out == n_in)
        return o;
      if (n_out == 2 * n_in)
        return o >> 1;
      if (scale <= 0)
        scale = (float) n_in / (float) n_out;
      return MIN ((gint64) floorf ((float) o * scale), n_in - 1);
    case TS_REMAP_CONSTANT:
    default:
      return i < 0 || i >= n_in ? -1 : i;
    }
}

/* Walks the output: for each element its source offset in the input (or
 * -1), over contiguous views; calls the typed body through a switch */
#define DEFINE_REMAP(NAME, T, BODY)                                               \
static void                                                                       \
NAME (TsRemapKernel mode, const TsRemap *r, const TsView *in, const TsView *out,  \
      T *x, T *y)                                                                 \
{                                                                                 \
  guint nd = out->ndim, k = r->k, lead = nd - k;                                  \
  gint64 inner = 1, outer = 1, n_out = ts_view_numel (out);                       \
  gint64 *maps[TS_REMAP_MAX_DIMS];                                                \
  gint64 in_strides[TS_MAX_DIMS];                                                 \
                                                                                  \
  if (n_out == 0)                                                                 \
    return;                                                                       \
  /* per remapped dim, each output index's source (-1: none) */                   \
  for (guint i = 0; i < k; i++)                                                   \
    {                                                                             \
      gint64 no = out->shape[lead + i], ni = in->shape[lead + i];                 \
      maps[i] = g_new (gint64, MAX (no, 1));                                      \
      for (gint64 o = 0; o < no; o++)                                             \
        maps[i][o] = remap_source (mode, o, ni, no, r->pads[i], r->scales[i]);    \
    }                                                                             \
  for (guint d = nd; d-- > 0;)                                                    \
    {                                                                             \
      in_strides[d] = d + 1 < nd ? in_strides[d + 1] * in->shape[d + 1] : 1;      \
      if (d >= lead)                                                              \
        inner *= out->shape[d];                                                   \
    }                                                                             \
  outer = n_out / inner;                                                          \
  for (gint64 b = 0; b < outer; b++)                                              \
    {                                                                             \
      /* the leading dims are not remapped: their input offset is b's */          \
      gint64 base = 0, rest = b;                                                  \
      gint64 W = out->shape[nd - 1], rows = inner / W;                            \
      for (guint d = lead; d-- > 0;)                                              \
        {                                                                         \
          base += (rest % out->shape[d]) * in_strides[d];                         \
          rest /= out->shape[d];                                                  \
        }                                                                         \
      /* row by row of the last dim, whose map the inner loop reads */            \
      for (gint64 row = 0; row < rows; row++)                                     \
        {                                                                         \
          gint64 src0 = base, q = row;                                            \
          gint64 *mw = maps[k - 1];                                               \
          for (guint i = k - 1; i-- > 0;)                                         \
            {                                                                     \
              gint64 no = out->shape[lead + i];                                   \
              gint64 s = maps[i][q % no];                                         \
              q /= no;                                                            \
              if (s < 0)                                                          \
                {                                                                 \
                  src0 = -1;                                                      \
                  break;                                                          \
                }                                                                 \
              src0 += s * in_strides[lead + i];                                   \
            }                                                                     \
          if (src0 < 0)                                                           \
            continue;                                                             \
          for (gint64 w = 0; w < W; w++)                                          \
            {                                                                     \
              gint64 oo = (b * rows + row) * W + w;                               \
              gint64 src;                                                         \
              if (mw[w] < 0)                                                      \
                continue;                                                         \
              src = src0 + mw[w];                                                 \
              BODY;                                                               \
            }                                                                     \
        }                                                                         \
    }                                                                             \
  for (guint i = 0; i < k; i++)                                                   \
    g_free (maps[i]);                                                             \
}

DEFINE_REMAP (remap_copy_1, guint8, y[oo] = x[src])
DEFINE_REMAP (remap_copy_2, guint16, y[oo] = x[src])
DEFINE_REMAP (remap_copy_4, guint32, y[oo] = x[src])
DEFINE_REMAP (remap_copy_8, guint64, y[oo] = x[src])
DEFINE_REMAP (remap_add_f32, float, x[src] += y[oo])
DEFINE_REMAP (remap_add_f64, double, x[src] += y[oo])

/* Linear interpolation: PyTorch's compute_source_index_and_lambda, in the
 * computation type T (float for float32, as PyTorch's opmath_t), over
 * (planes, H, W) with a unit H for 1-d; the output is
 * (x[h0][w0] * lw0 + x[h0][w1] * lw1) * lh0 + (...) * lh1, and the
 * backward adds each of the four products' share, output by output. */
#define DEFINE_LINEAR(NAME, T)                                                    \
static void                                                                       \
NAME##_weights (gint64 n_in, gint64 n_out, gboolean align, float given,           \
                gint64 *i0, gint64 *i1, T *l0, T *l1)                             \
{                                                                                 \
  T ratio;                                                                        \
                                                                                  \
  if (align)                                                                      \
    ratio = n_out > 1 ? (T) (n_in - 1) / (T) (n_out - 1) : 0;                     \
  else                                                                            \
    ratio = given > 0 ? (T) given : (T) n_in / (T) n_out;                         \
  for (gint64 o = 0; o < n_out; o++)                                              \
    {                                                                             \
      T src;                                                                      \
                                                                                  \
      if (n_out == n_in)                                                          \
        {                                                                         \
          i0[o] = i1[o] = o;                                                      \
          l0[o] = 1;                                                              \
          l1[o] = 0;                                                              \
          continue;                                                               \
        }                                                                         \
      if (align)                                                                  \
        src = ratio * (T) o;                                                      \
      else                                                                        \
        {                                                                         \
          src = ratio * ((T) o + (T) 0.5) - (T) 0.5;                              \
          if (src < 0)                                                            \
            src = 0;                                                              \
        }                                                                         \
      i0[o] = (gint64) src;                                                       \
      i1[o] = i0[o] + (i0[o] < n_in - 1 ? 1 : 0);                                 \
      l1[o] = MIN (MAX (src - (T) i0[o], (T) 0), (T) 1);                          \
      l0[o] = (T) 1 - l1[o];                                                      \
    }                                                                             \
}                                                                                 \
                                                                                  \
static void                                                                       \
NAME (const TsRemap *r, gboolean backward, const TsView *in, const TsView *out,   \
      T *x, T *y)                                                                 \
{                                                                                 \
  guint nd = in->ndim;                                                            \
  gint64 IH = r->k == 2 ? in->shape[nd - 2] : 1, IW = in->shape[nd - 1];          \
  gint64 OH = r->k == 2 ? out->shape[nd - 2] : 1, OW = out->shape[nd - 1];        \
  gint64 planes = OH * OW == 0 ? 0 : ts_view_numel (out) / (OH * OW);             \
  gint64 *h0 = g_new (gint64, OH), *h1 = g_new (gint64, OH);                      \
  gint64 *w0 = g_new (gint64, OW), *w1 = g_new (gint64, OW);                      \
  T *lh0 = g_new (T, OH), *lh1 = g_new (T, OH), *lw0 = g_new (T, OW), *lw1 = g_new (T, OW); \
                                                                                  \
  NAME##_weights (IH, OH, r->align_corners, r->k == 2 ? r->scales[0] : 0, h0, h1, lh0, lh1); \
  NAME##_weights (IW, OW, r->align_corners, r->scales[r->k - 1], w0, w1, lw0, lw1); \
  if (backward)                                                                   \
    {                                                                             \
      /* the gradient accumulates in double, then rounds once (as the      */   \
      /* oracle's float results show)                                      */   \
      gint64 n_in = ts_view_numel (in);                                           \
      double *acc = g_new0 (double, MAX (n_in, 1));                               \
      for (gint64 p = 0; p < planes; p++)                                         \
        {                                                                         \
          double *ap = acc + p * IH * IW;                                         \
          const T *yp = y + p * OH * OW;                                          \
          for (gint64 oh = 0; oh < OH; oh++)                                      \
            for (gint64 ow = 0; ow < OW; ow++)                                    \
              {                                                                   \
                double g = yp[oh * OW + ow];                                      \
                double *a = ap + h0[oh] * IW, *b = ap + h1[oh] * IW;              \
                a[w0[ow]] += (double) (lh0[oh] * lw0[ow]) * g;                    \
                a[w1[ow]] += (double) (lh0[oh] * lw1[ow]) * g;                    \
                b[w0[ow]] += (double) (lh1[oh] * lw0[ow]) * g;                    \
                b[w1[ow]] += (double) (lh1[oh] * lw1[ow]) * g;                    \
              }                                                                   \
        }                                                                         \
      for (gint64 i = 0; i < n_in; i++)                                           \
        x[i] = (T) acc[i];                                                        \
      g_free (acc);                                                               \
    }                                                                             \
  else                                                                            \
    for (gint64 p = 0; p < planes; p++)                                           \
      {                                                                           \
        const T *xp = x + p * IH * IW;                                            \
        T *yp = y + p * OH * OW;                                                  \
        for (gint64 oh = 0; oh < OH; oh++)                                        \
          for (gint64 ow = 0; ow < OW; ow++)                                      \
            {                                                                     \
              const T *a = xp + h0[oh] * IW, *b = xp + h1[oh] * IW;               \
              T t0 = a[w0[ow]] * lw0[ow] + a[w1[ow]] * lw1[ow];                   \
              T t1 = b[w0[ow]] * lw0[ow] + b[w1[ow]] * lw1[ow];                   \
              yp[oh * OW + ow] = t0 * lh0[oh] + t1 * lh1[oh];                     \
            }                                                                     \
      }                                                                           \
  g_free (h0); g_free (h1); g_free (w0); g_free (w1);                             \
  g_free (lh0); g_free (lh1); g_free (lw0); g_free (lw1);                         \
}

DEFINE_LINEAR (linear_f32, float)
DEFINE_LINEAR (linear_f64, double)

/* Bicubic interpolation: PyTorch's upsample_bicubic2d, its source index
 * unclamped (cubic) and its four taps clamped to the input; the output is
 * sum_j (sum_i x[y_j][x_i] * cx_i) * cy_j, and the backward adds
 * g * cy_j * cx_i into each tap, accumulated in double. */
#define DEFINE_CUBIC(NAME, T)                                                     \
static void                                                                       \
NAME##_taps (gint64 n_in, gint64 n_out, gboolean align, float given, gint64 o,    \
             gint64 *idx, T *c)                                                   \
{                                                                                 \
  const T A = (T) -0.75;                                                          \
  T ratio, src, t, u;                                                             \
  gint64 i0;                                                                      \
                                                                                  \
  if (align)                                                                      \
    ratio = n_out > 1 ? (T) (n_in - 1) / (T) (n_out - 1) : 0;                     \
  else                                                                            \
    ratio = given > 0 ? (T) given : (T) n_in / (T) n_out;                         \
  src = align ? ratio * (T) o : ratio * ((T) o + (T) 0.5) - (T) 0.5;              \
  i0 = (gint64) floor (src);                                                      \
  t = src - (T) i0;                                                               \
  /* get_cubic_upsample_coefficients: the far taps at t + 1 and (1 - t) + 1 */ \
  u = t + 1;                                                                      \
  c[0] = ((A * u - 5 * A) * u + 8 * A) * u - 4 * A;                               \
  c[1] = ((A + 2) * t - (A + 3)) * t * t + 1;                                     \
  t = 1 - t;                                                                      \
  c[2] = ((A + 2) * t - (A + 3)) * t * t + 1;                                     \
  u = t + 1;                                                                      \
  c[3] = ((A * u - 5 * A) * u + 8 * A) * u - 4 * A;                               \
  for (int k = 0; k < 4; k++)                                                     \
    idx[k] = CLAMP (i0 - 1 + k, 0, n_in - 1);                                     \
}                                                                                 \
                                                                                  \
static void                                                                       \
NAME (const TsRemap *r, gboolean backward, const TsView *in, const TsView *out,   \
      T *x, T *y)                                                                 \
{                                                                                 \
  guint nd = in->ndim;                                                            \
  gint64 IH = in->shape[nd - 2], IW = in->shape[nd - 1];                          \
  gint64 OH = out->shape[nd - 2], OW = out->shape[nd - 1];                        \
  gint64 planes = OH * OW == 0 ? 0 : ts_view_numel (out) / (OH * OW);             \
  gint64 n_in = ts_view_numel (in);                                               \
  gint64 *hi = g_new (gint64, 4 * OH), *wi = g_new (gint64, 4 * OW);              \
  T *hc = g_new (T, 4 * OH), *wc = g_new (T, 4 * OW);                             \
  double *acc = backward ? g_new0 (double, MAX (n_in, 1)) : NULL;                 \
                                                                                  \
  for (gint64 o = 0; o < OH; o++)                                                 \
    NAME##_taps (IH, OH, r->align_corners, r->scales[0], o, hi + 4 * o, hc + 4 * o); \
  for (gint64 o = 0; o < OW; o++)                                                 \
    NAME##_taps (IW, OW, r->align_corners, r->scales[1], o, wi + 4 * o, wc + 4 * o); \
  for (gint64 p = 0; p < planes; p++)                                             \
    for (gint64 oh = 0; oh < OH; oh++)                                            \
      for (gint64 ow = 0; ow < OW; ow++)                                          \
        {                                                                         \
          const gint64 *ih = hi + 4 * oh, *iw = wi + 4 * ow;                      \
          const T *ch = hc + 4 * oh, *cw = wc + 4 * ow;                           \
          gint64 o = (p * OH + oh) * OW + ow, base = p * IH * IW;                 \
                                                                                  \
          if (!backward)                                                          \
            {                                                                     \
              T sum = 0;                                                          \
              for (int j = 0; j < 4; j++)                                         \
                {                                                                 \
                  const T *row = x + base + ih[j] * IW;                           \
                  T t = row[iw[0]] * cw[0] + row[iw[1]] * cw[1] +                 \
                        row[iw[2]] * cw[2] + row[iw[3]] * cw[3];                  \
                  sum = j == 0 ? t * ch[0] : sum + t * ch[j];                     \
                }                                                                 \
              y[o] = sum;                                                         \
            }                                                                     \
          else                                                                    \
            for (int j = 0; j < 4; j++)                                           \
              for (int i = 0; i < 4; i++)                                         \
                acc[base + ih[j] * IW + iw[i]] += (double) (y[o] * ch[j] * cw[i]); \
        }                                                                         \
  if (backward)                                                                   \
    for (gint64 i = 0; i < n_in; i++)                                             \
      x[i] = (T) acc[i];                                                          \
  g_free (hi); g_free (wi); g_free (hc); g_free (wc); g_free (acc);               \
}

DEFINE_CUBIC (cubic_f32, float)
DEFINE_CUBIC (cubic_f64, double)

/* pixel_shuffle by r (> 0) of (..., C, H, W): out[c][h * r + i][w * r + j]
 * = in[c * r * r + i * r + j][h][w]; pixel_unshuffle by s = -r the
 * inverse, out[c * s * s + i * s + j][h][w] = in[c][h * s + i][w * s + j] */
static void
pixel_shuffle (gint64 r, gsize size, const TsView *in, const TsView *out, const guint8 *x, guint8 *y)
{
  gboolean up = r > 0;
  gint64 s = up ? r : -r, nd = out->ndim;
  /* the shuffled side's (C, H, W): the output's when up, else the input's */
  const TsView *big = up ? out : in;
  gint64 C = big->shape[nd - 3], H = big->shape[nd - 2], W = big->shape[nd - 1];
  gint64 batch = C * H * W == 0 ? 0 : ts_view_numel (big) / (C * H * W);

  for (gint64 b = 0; b < batch; b++)
    for (gint64 c = 0; c < C; c++)
      for (gint64 h = 0; h < H; h++)
        for (gint64 w = 0; w < W; w++)
          {
            gint64 i = h % s, j = w % s;
            gint64 packed = (((b * C + c) * s * s + i * s + j) * (H / s) + h / s) * (W / s) + w / s;
            gint64 plain = ((b * C + c) * H + h) * W + w;

            if (up)
              memcpy (y + plain * size, x + packed * size, size);
            else
              memcpy (y + packed * size, x + plain * size, size);
          }
}

gboolean
ts_cpu_remap (TsRemapKernel   kind,
              const TsRemap  *r,
              const TsView   *in,
              const TsView   *out,
              GError        **error)
{
  TsRemapKernel mode = kind & ~TS_REMAP_BACKWARD;
  gsize size = ts_dtype_size (in->dtype);
  guint8 *pi = (guint8 *) in->data + in->offset * (gint64) size;
  guint8 *po = (guint8 *) out->data + out->offset * (gint64) ts_dtype_size (out->dtype);

  g_return_val_if_fail (in->ndim == out->ndim && r->k <= MIN (in->ndim, TS_REMAP_MAX_DIMS), FALSE);

  if (mode == TS_REMAP_PIXEL_SHUFFLE)
    {
      g_return_val_if_fail (in->ndim >= 3 && r->pads[0] != 0, FALSE);
      pixel_shuffle (r->pads[0], size, in, out, pi, po);
      return TRUE;
    }
  if (mode == TS_REMAP_CUBIC)
    {
      gboolean backward = (kind & TS_REMAP_BACKWARD) != 0;

      g_return_val_if_fail (r->k == 2, FALSE);
      if (!check_float (in, "upsample_bicubic2d", error))
        return FALSE;
      if (in->dtype == TS_DTYPE_FLOAT64)
        cubic_f64 (r, backward, in, out, (double *) pi, (double *) po);
      else
        cubic_f32 (r, backward, in, out, (float *) pi, (float *) po);
      return TRUE;
    }
  if (mode == TS_REMAP_LINEAR)
    {
      gboolean backward = (kind & TS_REMAP_BACKWARD) != 0;

      g_return_val_if_fail (r->k == 1 || r->k == 2, FALSE);
      if (!check_float (in, "upsample_linear", error))
        return FALSE;
      if (in->dtype == TS_DTYPE_FLOAT64)
        linear_f64 (r, backward, in, out, (double *) pi, (double *) po);
      else
        linear_f32 (r, backward, in, out, (float *) pi, (float *) po);
      return TRUE;
    }

  if (kind & TS_REMAP_BACKWARD)
    {
      /* @in is the gradient of the input (written), @out the output's */
      if (!check_float (in, "remap_backward", error))
        return FALSE;
      memset (pi, 0, (gsize) ts_view_numel (in) * size);
      if (in->dtype == TS_DTYPE_FLOAT64)
        remap_add_f64 (mode, r, in, out, (double *) pi, (double *) po);
      else
        remap_add_f32 (mode, r, in, out, (float *) pi, (float *) po);
      return TRUE;
    }
  switch (size)
    {
    case 1:
      remap_copy_1 (mode, r, in, out, pi, po);
      return TRUE;
    case 2:
      remap_copy_2 (mode, r, in, out, (guint16 *) pi, (guint16 *) po);
      return TRUE;
    case 4:
      remap_copy_4 (mode, r, in, out, (guint32 *) pi, (guint32 *) po);
      return TRUE;
    case 8:
      remap_copy_8 (mode, r, in, out, (guint64 *) pi, (guint64 *) po);
      return TRUE;
    default:
      return ts_kernel_fail_dispatch (error, "pad", in->dtype);
    }
}

/* -- Activations --------------------------------------------------------------- */

/* std::max and std::min, whose NaN handling PyTorch's formulas inherit
 * (the first operand wins a comparison with NaN) */
#define STD_MAX(a, b) ((a) < (b) ? (b) : (a))
#define STD_MIN(a, b) ((b) < (a) ? (b) : (a))

/* PyTorch 1.13's CPU formulas, in the opmath type T (float for float32);
 * hardtanh is clamp's (NaN passes through) */
#define DEFINE_ACT(NAME, T, S, VECTOR_RUN)                                        \
/* GeluKernel.cpp's scalar formulas: the value, and with @d the derivative   \
 * GeluBackward multiplies the gradient by */                                  \
static inline T                                                                   \
NAME##_gelu_erf (T x, T *d)                                                       \
{                                                                                 \
  const T alpha = (T) M_SQRT1_2, beta = (T) (M_2_SQRTPI * M_SQRT1_2 * 0.5);     \
  T cdf = (T) 0.5 * ((T) 1 + erf##S (x * alpha));                                 \
  if (d != NULL)                                                                  \
    *d = cdf + x * (beta * exp##S (x * x * (T) -0.5));                            \
  return x * (T) 0.5 * ((T) 1 + erf##S (x * alpha));                              \
}                                                                                 \
                                                                                  \
static inline T                                                                   \
NAME##_gelu_tanh (T x, T *d)                                                      \
{                                                                                 \
  const T beta = (T) (M_SQRT2 * M_2_SQRTPI * 0.5), kappa = (T) 0.044715;          \
  T x_sq = x * x, inner = beta * (x + kappa * (x_sq * x));                        \
  T t = tanh##S (inner);                                                          \
  if (d != NULL)                                                                  \
    *d = (T) 0.5 * ((T) 1 + t) +                                                  \
         (T) 0.5 * x * ((T) 1 - t * t) * (beta * ((T) 1 + (T) 3 * kappa * x_sq)); \
  return (T) 0.5 * x * ((T) 1 + t);                                               \
}                                                                                 \
                                                                                  \
static inline T                                                                   \
NAME##_forward (TsActKernel kind, T x, T p0, T p1, T ipt)                         \
{                                                                                 \
  switch (kind)                                                                   \
    {                                                                             \
    case TS_ACT_HARDTANH:                                                         \
      return isnan (x) ? x : STD_MIN (STD_MAX (x, p0), p1);                                     \
    case TS_ACT_HARDSWISH:                                                        \
      return x * STD_MIN (STD_MAX (x + (T) 3, (T) 0), (T) 6) / (T) 6;                     \
    case TS_ACT_HARDSIGMOID:                                                      \
      return STD_MIN (STD_MAX (x + (T) 3, (T) 0), (T) 6) / (T) 6;                         \
    case TS_ACT_MISH:                                                             \
      return x * tanh##S (log1p##S (exp##S (x)));                                 \
    case TS_ACT_LOG_SIGMOID:                                                      \
      return STD_MIN (x, (T) 0) - log1p##S (exp##S (-fabs##S (x)));                   \
    case TS_ACT_THRESHOLD:                                                        \
      return x <= p0 ? p1 : x;                                                    \
    case TS_ACT_HARDSHRINK:                                                       \
      return x >= -p0 && x <= p0 ? (T) 0 : x;                                     \
    case TS_ACT_SOFTSHRINK:                                                       \
      return x > p0 ? x - p0 : (x < -p0 ? x + p0 : (T) 0);                        \
    case TS_ACT_SILU:                                                             \
      return x / ((T) 1 + exp##S (-x));                                           \
    case TS_ACT_GELU:                                                             \
      return p0 != 0 ? NAME##_gelu_tanh (x, NULL) : NAME##_gelu_erf (x, NULL);    \
    case TS_ACT_ELU:                                                              \
    default:                                                                      \
      return x <= 0 ? (exp##S (x * ipt) - (T) 1) * (p0 * p1) : x * p1;           \
    }                                                                             \
}                                                                                 \
                                                                                  \
static inline T                                                                   \
NAME##_backward (TsActKernel kind, T g, T x, T p0, T p1, T ipt)                   \
{                                                                                 \
  switch (kind)                                                                   \
    {                                                                             \
    case TS_ACT_HARDTANH:                                                         \
      return x <= p0 || x >= p1 ? (T) 0 : g;                                      \
    case TS_ACT_HARDSWISH:                                                        \
      return x < (T) -3 ? (T) 0 : (x < (T) 3 ? g * (x / (T) 3 + (T) 0.5) : g);   \
    case TS_ACT_HARDSIGMOID:                                                      \
      return x > (T) -3 && x < (T) 3 ? g / (T) 6 : (T) 0;                         \
    case TS_ACT_MISH:                                                             \
      {                                                                           \
        T sig = (T) 1 / ((T) 1 + exp##S (-x));                                    \
        T t = tanh##S (log1p##S (exp##S (x)));                                    \
        return g * (t + x * sig * ((T) 1 - t * t));                               \
      }                                                                           \
    case TS_ACT_LOG_SIGMOID:                                                      \
      {                                                                           \
        T z = exp##S (-fabs##S (x));                                              \
        T max_deriv = x < 0 ? (T) 1 : (T) 0, sign = x < 0 ? (T) 1 : (T) -1;       \
        return g * (max_deriv - sign * (z / ((T) 1 + z)));                        \
      }                                                                           \
    case TS_ACT_THRESHOLD:                                                        \
      return x <= p0 ? (T) 0 : g;                                                 \
    case TS_ACT_HARDSHRINK:                                                       \
    case TS_ACT_SOFTSHRINK:                                                       \
      return x >= -p0 && x <= p0 ? (T) 0 : g;                                     \
    case TS_ACT_SILU:                                                             \
      {                                                                           \
        T sig = (T) 1 / ((T) 1 + exp##S (-x));                                    \
        return g * sig * ((T) 1 + x * ((T) 1 - sig));                            \
      }                                                                           \
    case TS_ACT_GELU:                                                             \
      {                                                                           \
        T d;                                                                      \
        if (p0 != 0)                                                              \
          NAME##_gelu_tanh (x, &d);                                               \
        else                                                                      \
          NAME##_gelu_erf (x, &d);                                                \
        return g * d;                                                             \
      }                                                                           \
    case TS_ACT_ELU:                                                              \
    default:                                                                      \
      return x <= 0 ? g * ipt * (p0 * p1) * exp##S (x * ipt) : g * p1;            \
    }                                                                             \
}                                                                                 \
                                                                                  \
static void                                                                       \
NAME (TsActKernel kind, const TsAct *a, const T *x, const T *g, T *y, gint64 n)   \
{                                                                                 \
  T p0 = (T) a->p0, p1 = (T) a->p1;                                               \
  /* celu's input_scale: 1. / alpha in double, then the Scalar's cast */         \
  T ipt = a->flag ? (T) (1.0 / a->p0) : (T) 1;                                    \
  TsActKernel k = kind & ~TS_ACT_BACKWARD;                                        \
  gint64 done = 0;                                                                \
                                                                                  \
  /* relu's backward (threshold_backward) on its own: the loop over the        \
   * switch is not unswitched, and a conv net runs it on every activation.     \
   * g[i] is read whatever x[i] is, so that the select vectorizes to a mask:  \
   * a branch on ReLU's signs mispredicts half the time. */                     \
  if (kind == (TS_ACT_THRESHOLD | TS_ACT_BACKWARD))                               \
    {                                                                             \
      for (gint64 i = 0; i < n; i++)                                              \
        {                                                                         \
          T gi = g[i];                                                            \
                                                                                  \
          y[i] = x[i] <= p0 ? (T) 0 : gi;                                         \
        }                                                                         \
      return;                                                                     \
    }                                                                             \
  done = VECTOR_RUN (kind, p0, p1, ipt, x, g, y, n);                              \
  if (kind & TS_ACT_BACKWARD)                                                     \
    for (gint64 i = done; i < n; i++)                                             \
      y[i] = NAME##_backward (k, g[i], x[i], p0, p1, ipt);                        \
  else                                                                            \
    for (gint64 i = done; i < n; i++)                                             \
      y[i] = NAME##_forward (k, x[i], p0, p1, ipt);                               \
}

/* float32: PyTorch's AVX2 kernels where the CPU has AVX2, the elements
 * they leave (if any) with libm */
#define ACT_RUN_F32(k, p0, p1, ipt, x, g, y, n) \
  (ts_cpu_have_avx2_fma () ? ts_cpu_sleef_act_f32 (k, p0, p1, ipt, x, g, y, n) : 0)
#define ACT_RUN_NONE(k, p0, p1, ipt, x, g, y, n) 0
DEFINE_ACT (act_f32, float, f, ACT_RUN_F32)
DEFINE_ACT (act_f64, double, , ACT_RUN_NONE)
#undef ACT_RUN_F32
#undef ACT_RUN_NONE

/* prelu: input > 0 ? input : w * input, w per channel (dim 1) or one;
 * backward: x > 0 ? g : w * g, or the weight's share x <= 0 ? x * g : 0 */
#define DEFINE_PRELU(NAME, T)                                                     \
static void                                                                       \
NAME (gboolean backward, gboolean share, const TsView *in, const T *x, const T *g, \
      const T *w, gint64 nw, T *y)                                                \
{                                                                                 \
  gint64 n = ts_view_numel (in), S = 1;                                           \
                                                                                  \
  for (guint d = 2; d < in->ndim; d++)                                            \
    S *= in->shape[d];                                                            \
  for (gint64 i = 0; i < n; i++)                                                  \
    {                                                                             \
      T wi = nw == 1 ? w[0] : w[(i / S) % nw];                                    \
      if (!backward)                                                              \
        y[i] = x[i] > 0 ? x[i] : wi * x[i];                                       \
      else if (!share)                                                            \
        y[i] = x[i] > 0 ? g[i] : wi * g[i];                                       \
      else                                                                        \
        y[i] = x[i] > 0 ? (T) 0 : x[i] * g[i];                                    \
    }                                                                             \
}

DEFINE_PRELU (prelu_f32, float)
DEFINE_PRELU (prelu_f64, double)

/* glu along @dim: a * (1 / (1 + exp (-b))) of the halves a, b; backward
 * (PyTorch's glu_backward): sig * g for a, (1 - sig) * sig * a * g for b */
#define DEFINE_GLU(NAME, T, S)                                                    \
static void                                                                       \
NAME (gboolean backward, const TsView *in, int dim, const T *x, const T *g, T *y) \
{                                                                                 \
  gint64 O = 1, I = 1, H = in->shape[dim] / 2;                                    \
                                                                                  \
  for (int d = 0; d < dim; d++)                                                   \
    O *= in->shape[d];                                                            \
  for (guint d = (guint) dim + 1; d < in->ndim; d++)                              \
    I *= in->shape[d];                                                            \
  for (gint64 o = 0; o < O; o++)                                                  \
    for (gint64 h = 0; h < H; h++)                                                \
      for (gint64 i = 0; i < I; i++)                                              \
        {                                                                         \
          gint64 ia = (o * 2 * H + h) * I + i, ib = ia + H * I;                   \
          gint64 io = (o * H + h) * I + i;                                        \
          T sig = (T) 1 / ((T) 1 + exp##S (-x[ib]));                              \
          if (!backward)                                                          \
            y[io] = x[ia] * sig;                                                  \
          else                                                                    \
            {                                                                     \
              y[ia] = sig * g[io];                                                \
              y[ib] = ((T) 1 - sig) * sig * x[ia] * g[io];                        \
            }                                                                     \
        }                                                                         \
}

DEFINE_GLU (glu_f32, float, f)
DEFINE_GLU (glu_f64, double, )

gboolean
ts_cpu_activation (TsActKernel    kind,
                   const TsAct   *a,
                   const TsView  *in,
                   const TsView  *grad_out,
                   const TsView  *weight,
                   const TsView  *out,
                   GError       **error)
{
  gint64 n = ts_view_numel (in);

  if (!check_float (in, "activation", error))
    return FALSE;
  if ((kind & ~TS_ACT_BACKWARD) == TS_ACT_GLU)
    {
      gboolean backward = (kind & TS_ACT_BACKWARD) != 0;
      int dim = (int) a->p0;

      g_return_val_if_fail (dim >= 0 && (guint) dim < in->ndim, FALSE);
      if (in->dtype == TS_DTYPE_FLOAT64)
        glu_f64 (backward, in, dim, AT (in, double), backward ? AT (grad_out, double) : NULL, AT (out, double));
      else
        glu_f32 (backward, in, dim, AT (in, float), backward ? AT (grad_out, float) : NULL, AT (out, float));
      return TRUE;
    }
  if ((kind & ~TS_ACT_BACKWARD) == TS_ACT_PRELU)
    {
      gboolean backward = (kind & TS_ACT_BACKWARD) != 0;
      gint64 nw = MAX (ts_view_numel (weight), 1);

      if (in->dtype == TS_DTYPE_FLOAT64)
        prelu_f64 (backward, a->flag, in, AT (in, double), backward ? AT (grad_out, double) : NULL,
                   AT (weight, double), nw, AT (out, double));
      else
        prelu_f32 (backward, a->flag, in, AT (in, float), backward ? AT (grad_out, float) : NULL,
                   AT (weight, float), nw, AT (out, float));
      return TRUE;
    }
  if (in->dtype == TS_DTYPE_FLOAT64)
    act_f64 (kind, a, AT (in, double), grad_out != NULL ? AT (grad_out, double) : NULL, AT (out, double), n);
  else
    act_f32 (kind, a, AT (in, float), grad_out != NULL ? AT (grad_out, float) : NULL, AT (out, float), n);
  return TRUE;
}
