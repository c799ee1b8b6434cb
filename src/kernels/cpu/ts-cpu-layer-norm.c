/* ts-cpu-layer-norm.c: native_layer_norm and its backward
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The forward replays ATen's CPU kernel (native/cpu/layer_norm_kernel.cpp
 * and moments_utils.h's RowwiseMoments): each row's moments by Welford
 * updates over chunks of sixteen vectors of AVX2 lanes (eight floats, four
 * doubles), the chunks merged on a binary stack, the lanes merged last with
 * the leftover elements; then y = (x * rstd - rstd * mean) * gamma + beta.
 * All in the dtype. The moments round every operation; y's two steps are
 * fused multiply-adds (fmaf/fma), as python3-torch's AVX2 build computes
 * them: both found by comparing every bit of the results with it
 * (api/layer_norm_native), so a layer norm's values are PyTorch's. Written
 * by hand: no library computes moments in this order.
 *
 * The backward follows the same formulas (dx from per-row sums of dy * x *
 * gamma and dy * gamma; dgamma, dbeta summed over the rows in order), in
 * the dtype; its per-row sums add in order rather than in ATen's vector
 * tree, so their last bits can differ.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-cpu-kernels.h"
#include "ts-cpu-kernels-private.h"
#include "ts-cpu-pool.h"

#define CHUNK 16
#define MAX_DEPTH 64

#define DEFINE_LAYER_NORM(T, SUF, LANES, FMA, SQRT)                                             \
/* AddMoments: (m0_add, m1_add, m2_add) merged into (m0, m1, m2), lane by lane */                \
static void                                                                                      \
add_moments_##SUF (gint64 m0_add, const T *m1_add, const T *m2_add, gint64 *m0, T *m1, T *m2,   \
                   int lanes)                                                                    \
{                                                                                                \
  gint64 n = *m0 + m0_add;                                                                       \
  T c = n == 0 ? 0 : (T) m0_add / (T) n;                                                         \
                                                                                                 \
  for (int l = 0; l < lanes; l++)                                                                \
    {                                                                                            \
      T delta = m1_add[l] - m1[l];                                                               \
                                                                                                 \
      m1[l] = c * delta + m1[l];                                                                 \
      m2[l] = m2[l] + (m2_add[l] + delta * delta * c * (T) *m0);                           \
    }                                                                                            \
  *m0 = n;                                                                                       \
}                                                                                                \
                                                                                                 \
/* RowwiseMoments: a row's mean and biased variance */                                           \
static void                                                                                      \
moments_##SUF (const T *x, gint64 N, T *mean, T *var)                                            \
{                                                                                                \
  gint64 n = N / LANES, m = (n + CHUNK - 1) / CHUNK, depth = m <= 2 ? 1 : 64 - __builtin_clzll ((guint64) m - 1); \
  gint64 m0_stk[MAX_DEPTH] = { 0 }, m0 = 0;                                                      \
  T m1_stk[MAX_DEPTH][LANES], m2_stk[MAX_DEPTH][LANES], m1 = 0, m2 = 0;                          \
                                                                                                 \
  memset (m1_stk, 0, depth * sizeof m1_stk[0]);                                                  \
  memset (m2_stk, 0, depth * sizeof m2_stk[0]);                                                  \
  for (gint64 i = 0; i < m; i++)                                                                 \
    {                                                                                            \
      const T *p = x + i * CHUNK * LANES;                                                        \
      gint64 rows = MIN ((gint64) CHUNK, n - i * CHUNK), mask = i + 1;                          \
      T v1[LANES] = { 0 }, v2[LANES] = { 0 };                                                    \
                                                                                                 \
      /* UpdateMomentsVec: Welford over the chunk's vectors, 1 / (j + 1) */                      \
      for (gint64 j = 0; j < rows; j++)                                                          \
        for (int l = 0; l < LANES; l++)                                                          \
          {                                                                                      \
            T xv = p[j * LANES + l], delta = xv - v1[l];                                         \
                                                                                                 \
            v1[l] = v1[l] + delta * ((T) 1 / (T) (j + 1));                                 \
            v2[l] = v2[l] + delta * (xv - v1[l]);                                          \
          }                                                                                      \
      add_moments_##SUF (rows, v1, v2, &m0_stk[0], m1_stk[0], m2_stk[0], LANES);                 \
      for (gint64 j = 1; j < depth && (mask & 1) == 0; j++)                                      \
        {                                                                                        \
          add_moments_##SUF (m0_stk[j - 1], m1_stk[j - 1], m2_stk[j - 1], &m0_stk[j], m1_stk[j], \
                             m2_stk[j], LANES);                                                  \
          m0_stk[j - 1] = 0;                                                                     \
          memset (m1_stk[j - 1], 0, sizeof m1_stk[0]);                                           \
          memset (m2_stk[j - 1], 0, sizeof m2_stk[0]);                                           \
          mask >>= 1;                                                                            \
        }                                                                                        \
    }                                                                                            \
  for (gint64 i = 1; i < depth; i++)                                                             \
    add_moments_##SUF (m0_stk[i], m1_stk[i], m2_stk[i], &m0_stk[0], m1_stk[0], m2_stk[0], LANES); \
  /* the leftover elements, one Welford update each, then the lanes */                           \
  for (gint64 i = n * LANES; i < N; i++)                                                         \
    {                                                                                            \
      T xv = x[i], delta = xv - m1;                                                              \
                                                                                                 \
      m0++;                                                                                      \
      m1 += delta / (T) m0;                                                                      \
      m2 = m2 + delta * (xv - m1);                                                        \
    }                                                                                            \
  for (int l = 0; l < LANES; l++)                                                                \
    add_moments_##SUF (n, &m1_stk[0][l], &m2_stk[0][l], &m0, &m1, &m2, 1);                       \
  *mean = m1;                                                                                    \
  *var = m2 / (T) N;                                                                             \
}                                                                                                \
                                                                                                 \
static void                                                                                      \
forward_##SUF (const T *x, const T *gamma, const T *beta, T eps, gint64 M, gint64 N, T *y,      \
               T *mean, T *rstd)                                                                 \
{                                                                                                \
  for (gint64 i = 0; i < M; i++)                                                                 \
    {                                                                                            \
      const T *xr = x + i * N;                                                                   \
      T *yr = y + i * N;                                                                         \
      T mu, var, r, bias;                                                                        \
                                                                                                 \
      moments_##SUF (xr, N, &mu, &var);                                                          \
      r = (T) 1 / SQRT (var + eps);                                                              \
      bias = -r * mu;                                                                            \
      for (gint64 j = 0; j < N; j++)                                                             \
        yr[j] = FMA (FMA (xr[j], r, bias), gamma != NULL ? gamma[j] : 1, beta != NULL ? beta[j] : 0); \
      mean[i] = mu;                                                                              \
      rstd[i] = r;                                                                               \
    }                                                                                            \
}                                                                                                \
                                                                                                 \
/* dx = rstd * dy * gamma + b * x + c, b and c from the row's sums */                            \
static void                                                                                      \
backward_input_##SUF (const T *dy, const T *x, const T *mean, const T *rstd, const T *gamma,    \
                      gint64 M, gint64 N, T *dx)                                                 \
{                                                                                                \
  T scale = (T) 1 / (T) N;                                                                       \
                                                                                                 \
  for (gint64 i = 0; i < M; i++)                                                                 \
    {                                                                                            \
      const T *g = dy + i * N, *xr = x + i * N;                                                  \
      T ds = 0, db = 0, a = rstd[i], b, c;                                                       \
                                                                                                 \
      for (gint64 j = 0; j < N; j++)                                                             \
        {                                                                                        \
          T gw = gamma != NULL ? gamma[j] : 1;                                                   \
                                                                                                 \
          ds = FMA (g[j] * xr[j], gw, ds);                                                       \
          db = FMA (g[j], gw, db);                                                               \
        }                                                                                        \
      b = (db * mean[i] - ds) * a * a * a * scale;                                               \
      c = -b * mean[i] - db * a * scale;                                                         \
      for (gint64 j = 0; j < N; j++)                                                             \
        dx[i * N + j] = FMA (a * g[j], gamma != NULL ? gamma[j] : 1, FMA (b, xr[j], c));         \
    }                                                                                            \
}                                                                                                \
                                                                                                 \
/* dgamma = sum over rows of dy * (rstd * x - rstd * mean), dbeta of dy */                       \
static void                                                                                      \
backward_affine_##SUF (const T *dy, const T *x, const T *mean, const T *rstd, gint64 M,        \
                       gint64 N, T *dgamma, T *dbeta)                                            \
{                                                                                                \
  if (dgamma != NULL)                                                                            \
    memset (dgamma, 0, N * sizeof (T));                                                          \
  if (dbeta != NULL)                                                                             \
    memset (dbeta, 0, N * sizeof (T));                                                           \
  for (gint64 i = 0; i < M; i++)                                                                 \
    {                                                                                            \
      T a = rstd[i], b = -a * mean[i];                                                           \
                                                                                                 \
      for (gint64 j = 0; j < N; j++)                                                             \
        {                                                                                        \
          if (dgamma != NULL)                                                                    \
            dgamma[j] = FMA (dy[i * N + j], FMA (a, x[i * N + j], b), dgamma[j]);               \
          if (dbeta != NULL)                                                                     \
            dbeta[j] = dbeta[j] + dy[i * N + j];                                                 \
        }                                                                                        \
    }                                                                                            \
}

/* AVX2: Vectorized<float> has eight lanes, Vectorized<double> four */
DEFINE_LAYER_NORM (float, f32, 8, fmaf, sqrtf)
DEFINE_LAYER_NORM (double, f64, 4, fma, sqrt)

/* a dense float32/float64 view's first element */
static gpointer
base_of (const TsView *v)
{
  return v == NULL || v->data == NULL ? NULL : (char *) v->data + v->offset * (gint64) ts_dtype_size (v->dtype);
}

static gboolean
check_dense (const TsView  *v,
             TsDType        dtype,
             GError       **error)
{
  if (v == NULL || v->data == NULL || (v->dtype == dtype && ts_view_is_contiguous (v)))
    return TRUE;
  return ts_kernel_fail (error, TS_KERNEL_ERROR_DTYPE,
                         "layer_norm: the kernel reads contiguous operands of one floating dtype");
}

gboolean
ts_cpu_layer_norm (const TsView  *x,
                   const TsView  *gamma,
                   const TsView  *beta,
                   gint64         rows,
                   double         eps,
                   const TsView  *y,
                   const TsView  *mean,
                   const TsView  *rstd,
                   GError       **error)
{
  gint64 N = rows > 0 ? ts_view_numel (x) / rows : 0;

  const TsView *all[] = { x, gamma, beta, y, mean, rstd };

  if (x->dtype != TS_DTYPE_FLOAT32 && x->dtype != TS_DTYPE_FLOAT64)
    return ts_kernel_fail_dispatch (error, "LayerNormKernelImpl", x->dtype);
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    if (!check_dense (all[i], x->dtype, error))
      return FALSE;
  if (N == 0)
    return TRUE;
  if (x->dtype == TS_DTYPE_FLOAT32)
    forward_f32 (base_of (x), base_of (gamma), base_of (beta), (float) eps, rows, N, base_of (y),
                 base_of (mean), base_of (rstd));
  else
    forward_f64 (base_of (x), base_of (gamma), base_of (beta), eps, rows, N, base_of (y), base_of (mean),
                 base_of (rstd));
  return TRUE;
}

gboolean
ts_cpu_layer_norm_backward (const TsView  *dy,
                            const TsView  *x,
                            const TsView  *mean,
                            const TsView  *rstd,
                            const TsView  *gamma,
                            gint64         rows,
                            const TsView  *dx,
                            const TsView  *dgamma,
                            const TsView  *dbeta,
                            GError       **error)
{
  gint64 N = rows > 0 ? ts_view_numel (x) / rows : 0;
  gboolean f32 = x->dtype == TS_DTYPE_FLOAT32;
  const TsView *all[] = { dy, mean, rstd, gamma, dx, dgamma, dbeta };

  if (!f32 && x->dtype != TS_DTYPE_FLOAT64)
    return ts_kernel_fail_dispatch (error, "LayerNormBackwardKernelImpl", x->dtype);
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    if (!check_dense (all[i], x->dtype, error))
      return FALSE;
  if (rows == 0 || N == 0)
    {
      /* no rows: the weight's and bias's gradients are zeros */
      if (base_of (dgamma) != NULL)
        memset (base_of (dgamma), 0, ts_view_numel (dgamma) * ts_dtype_size (x->dtype));
      if (base_of (dbeta) != NULL)
        memset (base_of (dbeta), 0, ts_view_numel (dbeta) * ts_dtype_size (x->dtype));
      return TRUE;
    }
  if (base_of (dx) != NULL && f32)
    backward_input_f32 (base_of (dy), base_of (x), base_of (mean), base_of (rstd), base_of (gamma), rows, N,
                        base_of (dx));
  else if (base_of (dx) != NULL)
    backward_input_f64 (base_of (dy), base_of (x), base_of (mean), base_of (rstd), base_of (gamma), rows, N,
                        base_of (dx));
  if (base_of (dgamma) != NULL || base_of (dbeta) != NULL)
    {
      if (f32)
        backward_affine_f32 (base_of (dy), base_of (x), base_of (mean), base_of (rstd), rows, N, base_of (dgamma),
                             base_of (dbeta));
      else
        backward_affine_f64 (base_of (dy), base_of (x), base_of (mean), base_of (rstd), rows, N, base_of (dgamma),
                             base_of (dbeta));
    }
  return TRUE;
}
