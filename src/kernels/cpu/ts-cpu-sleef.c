/* ts-cpu-sleef.c: float32 math eight at a time, as PyTorch's AVX2 kernels
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Compiled with -mavx2 -mfma (src/kernels/meson.build); called only after
 * ts_cpu_have_avx2_fma (). The functions are SLEEF's, the ones PyTorch
 * 1.13's Vectorized<float> calls (vec256_float.h): a library rather than
 * our own polynomials, because matching PyTorch bit for bit means running
 * its approximations, and Debian's PyTorch links this very libsleef.
 *
 * Two loop shapes, as PyTorch's:
 *  - vml (vml.h, vec::map): every element through SLEEF, the last partial
 *    vector loaded zero-padded; strided tensors are gathered into runs and
 *    vectorized too.
 *  - kernel_vec (cpu/Loops.h, vectorized_loop): blocks of two vectors
 *    through the vector formula, the n % 16 elements left (and every
 *    element of a strided tensor) through the scalar formula with libm:
 *    these entries leave them to the caller.
 * Softmax's sums keep vec::reduce_all's lanes and shuffles.
 *
 * GCC builds PyTorch's AVX2 kernels with -mfma in GNU C++ mode, and so
 * fuses a multiply feeding an add (vector or scalar) into one FMA; this
 * file is compiled with -ffp-contract=off and writes exactly those FMAs
 * by hand (fmadd, fnmadd, fmaf), so that its roundings are PyTorch's
 * whatever the compiler.
 */

#include "config.h"

#include "ts-cpu-vector-private.h"

#ifdef __AVX2__

#include <math.h>
#include <string.h>

#include <immintrin.h>
#include <sleef.h>

typedef __m256 (*VecFunc) (__m256);

/* SLEEF's functions as VecFuncs: sleef.h declares them returning a const
 * __m256 for clang, a type no VecFunc of ours can share */
#define SLEEF_FUNC(NAME)                                                      \
static __m256                                                                 \
NAME (__m256 x)                                                               \
{                                                                             \
  return Sleef_##NAME (x);                                                    \
}
SLEEF_FUNC (expf8_u10)
SLEEF_FUNC (expm1f8_u10)
SLEEF_FUNC (logf8_u10)
SLEEF_FUNC (log2f8_u10)
SLEEF_FUNC (log10f8_u10)
SLEEF_FUNC (log1pf8_u10)
SLEEF_FUNC (sinf8_u10)
SLEEF_FUNC (cosf8_u10)
SLEEF_FUNC (tanf8_u10)
SLEEF_FUNC (tanhf8_u10)
SLEEF_FUNC (asinf8_u10)
SLEEF_FUNC (acosf8_u10)
SLEEF_FUNC (atanf8_u10)
SLEEF_FUNC (erff8_u10)
SLEEF_FUNC (erfcf8_u15)
SLEEF_FUNC (lgammaf8_u10)
SLEEF_FUNC (sinhf8_u10)
SLEEF_FUNC (coshf8_u10)
#undef SLEEF_FUNC

/* Vectorized<float>::loadu (p, k) and store (p, k): a partial vector */
static inline __m256
load_part (const float *p,
           gint64       k)
{
  float t[8] = { 0 };

  memcpy (t, p, (gsize) k * sizeof (float));
  return _mm256_loadu_ps (t);
}

static inline void
store_part (float  *p,
            __m256  v,
            gint64  k)
{
  float t[8];

  _mm256_storeu_ps (t, v);
  memcpy (p, t, (gsize) k * sizeof (float));
}

/* vec::map: the tail is one more vector, zero-padded */
static void
map_all (VecFunc      f,
         const float *x,
         float       *r,
         gint64       n)
{
  gint64 i = 0;

  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps (r + i, f (_mm256_loadu_ps (x + i)));
  if (i < n)
    store_part (r + i, f (load_part (x + i, n - i)), n - i);
}

/* vectorized_loop: whole pairs of vectors only */
static gint64
map_pairs (VecFunc      f,
           const float *x,
           float       *r,
           gint64       n)
{
  gint64 i = 0;

  for (; i + 16 <= n; i += 16)
    {
      __m256 a = _mm256_loadu_ps (x + i), b = _mm256_loadu_ps (x + i + 8);

      a = f (a);
      b = f (b);
      _mm256_storeu_ps (r + i, a);
      _mm256_storeu_ps (r + i + 8, b);
    }
  return i;
}

static inline __m256
vneg (__m256 a)
{
  return _mm256_xor_ps (_mm256_set1_ps (-0.f), a);
}

/* vec::maximum and vec::minimum: IEEE 754-2019, a NaN lane all ones */
static inline __m256
vmaximum (__m256 a,
          __m256 b)
{
  return _mm256_or_ps (_mm256_max_ps (a, b), _mm256_cmp_ps (a, b, _CMP_UNORD_Q));
}

static inline __m256
vminimum (__m256 a,
          __m256 b)
{
  return _mm256_or_ps (_mm256_min_ps (a, b), _mm256_cmp_ps (a, b, _CMP_UNORD_Q));
}

static inline __m256
vadd (__m256 a,
      __m256 b)
{
  return _mm256_add_ps (a, b);
}

/* sigmoid's vector formula (UnaryOpsKernel.cpp): (1 + exp (0 - a))
 * .reciprocal (), reciprocal a division of ones */
static __m256
sigmoid8 (__m256 a)
{
  a = _mm256_sub_ps (_mm256_setzero_ps (), a);
  a = Sleef_expf8_u10 (a);
  a = _mm256_add_ps (a, _mm256_set1_ps (1.f));
  return _mm256_div_ps (_mm256_set1_ps (1.f), a);
}

/* the ops whose CPU kernels go through at::vml: PyTorch's own erfinv and
 * the inverse hyperbolics are scalar, and stay ours */
static VecFunc
vml_func (TsUnaryOp op)
{
  switch ((int) op)
    {
    case TS_UNARY_EXP: return expf8_u10;
    case TS_UNARY_EXPM1: return expm1f8_u10;
    case TS_UNARY_LOG: return logf8_u10;
    case TS_UNARY_LOG2: return log2f8_u10;
    case TS_UNARY_LOG10: return log10f8_u10;
    case TS_UNARY_LOG1P: return log1pf8_u10;
    case TS_UNARY_SIN: return sinf8_u10;
    case TS_UNARY_COS: return cosf8_u10;
    case TS_UNARY_TAN: return tanf8_u10;
    case TS_UNARY_TANH: return tanhf8_u10;
    case TS_UNARY_ASIN: return asinf8_u10;
    case TS_UNARY_ACOS: return acosf8_u10;
    case TS_UNARY_ATAN: return atanf8_u10;
    case TS_UNARY_ERF: return erff8_u10;
    case TS_UNARY_ERFC: return erfcf8_u15;
    case TS_UNARY_LGAMMA: return lgammaf8_u10;
    default: return NULL;
    }
}

/* the ops whose kernels are cpu_kernel_vec with SLEEF in the vector half */
static VecFunc
kernel_vec_func (TsUnaryOp op)
{
  switch ((int) op)
    {
    case TS_UNARY_SIGMOID: return sigmoid8;
    case TS_UNARY_SINH: return sinhf8_u10;
    case TS_UNARY_COSH: return coshf8_u10;
    default: return NULL;
    }
}

/* pow (x, e) of float32 or float64 in cpu_kernel_vec's vector half:
 * whole pairs of vectors through SLEEF's pow, as Vectorized::pow */
gint64
ts_cpu_sleef_pow_f32 (const float *x,
                      float       *r,
                      gint64       n,
                      float        e)
{
  __m256 ve = _mm256_set1_ps (e);
  gint64 i = 0;

  for (; i + 16 <= n; i += 16)
    {
      __m256 a = Sleef_powf8_u10 (_mm256_loadu_ps (x + i), ve);
      __m256 b = Sleef_powf8_u10 (_mm256_loadu_ps (x + i + 8), ve);

      _mm256_storeu_ps (r + i, a);
      _mm256_storeu_ps (r + i + 8, b);
    }
  return i;
}

gint64
ts_cpu_sleef_pow_f64 (const double *x,
                      double       *r,
                      gint64        n,
                      double        e)
{
  __m256d ve = _mm256_set1_pd (e);
  gint64 i = 0;

  for (; i + 8 <= n; i += 8)
    {
      __m256d a = Sleef_powd4_u10 (_mm256_loadu_pd (x + i), ve);
      __m256d b = Sleef_powd4_u10 (_mm256_loadu_pd (x + i + 4), ve);

      _mm256_storeu_pd (r + i, a);
      _mm256_storeu_pd (r + i + 4, b);
    }
  return i;
}

gint64
ts_cpu_sleef_unary_f32 (TsUnaryOp    op,
                        const float *x,
                        float       *r,
                        gint64       n,
                        gboolean     contiguous)
{
  VecFunc f;

  if ((f = vml_func (op)) != NULL)
    {
      map_all (f, x, r, n);
      return n;
    }
  if (contiguous && (f = kernel_vec_func (op)) != NULL)
    return map_pairs (f, x, r, n);
  return 0;
}

/* vec_reduce_all: the lanes of @acc folded by @op, in the shuffles of
 * PyTorch's AVX2 specialization (halves, then pairs, then neighbours) */
static float
fold_lanes (__m256 (*op) (__m256, __m256),
            __m256 v)
{
  v = op (v, _mm256_permute2f128_ps (v, v, 0x1));
  v = op (v, _mm256_shuffle_ps (v, v, 0x4E));
  v = op (v, _mm256_shuffle_ps (v, v, 0xB1));
  return _mm256_cvtss_f32 (v);
}

/* What map_reduce maps each vector of its input to */
typedef enum
{
  MAP_NONE,       /* x itself: vec::reduce_all */
  MAP_EXP_SUB,    /* exp (x - bias): softmax's map_reduce_all */
  MAP_MUL,        /* x * x2: softmax backward's map2_reduce_all */
} MapKind;

static inline __m256
mapped (MapKind kind,
        __m256  v,
        __m256  v2,
        __m256  bias)
{
  switch (kind)
    {
    case MAP_EXP_SUB: return Sleef_expf8_u10 (_mm256_sub_ps (v, bias));
    case MAP_MUL: return _mm256_mul_ps (v, v2);
    case MAP_NONE:
    default: return v;
    }
}

/* One step of a reduction: acc op mapped (v, v2). GCC builds PyTorch's
 * AVX2 kernels with -mfma and contracts acc + v * v2 (the intrinsics are
 * plain vector arithmetic to it) into one fused multiply-add. */
static inline __m256
step (MapKind kind,
      __m256  (*op) (__m256, __m256),
      __m256  acc,
      __m256  v,
      __m256  v2,
      __m256  bias)
{
  if (kind == MAP_MUL && op == vadd)
    return _mm256_fmadd_ps (v, v2, acc);
  return op (acc, mapped (kind, v, v2, bias));
}

/* vec::reduce_all, map_reduce_all and map2_reduce_all over @n floats of
 * @x (and @x2 for MAP_MUL) */
static float
map_reduce (MapKind      kind,
            __m256     (*op) (__m256, __m256),
            __m256       bias,
            const float *x,
            const float *x2,
            gint64       n)
{
  __m256 acc;
  gint64 d = 8;

  x2 = kind == MAP_MUL ? x2 : x;
  if (n < 8)
    {
      /* the slow vec_reduce_all: lane 0 meets each other lane in turn */
      float lanes[8];

      acc = mapped (kind, load_part (x, n), load_part (x2, n), bias);
      _mm256_storeu_ps (lanes, acc);
      for (gint64 i = 1; i < n; i++)
        acc = op (acc, _mm256_setr_ps (lanes[i], 0, 0, 0, 0, 0, 0, 0));
      return _mm256_cvtss_f32 (acc);
    }
  acc = mapped (kind, _mm256_loadu_ps (x), _mm256_loadu_ps (x2), bias);
  for (; d + 8 <= n; d += 8)
    acc = step (kind, op, acc, _mm256_loadu_ps (x + d), _mm256_loadu_ps (x2 + d), bias);
  if (d < n)
    {
      /* Vectorized::set: only the first n - d lanes take the last step */
      __m256 last = step (kind, op, acc, load_part (x + d, n - d), load_part (x2 + d, n - d), bias);
      __m256i lane = _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7);
      __m256 take = _mm256_castsi256_ps (_mm256_cmpgt_epi32 (_mm256_set1_epi32 ((int) (n - d)), lane));

      acc = _mm256_blendv_ps (acc, last, take);
    }
  return fold_lanes (op, acc);
}

void
ts_cpu_sleef_softmax_row_f32 (const float *x,
                              float       *y,
                              gint64       n,
                              gboolean     as_log)
{
  float max = map_reduce (MAP_NONE, vmaximum, _mm256_setzero_ps (), x, NULL, n);
  __m256 vmax = _mm256_set1_ps (max);
  gint64 i = 0;

  if (as_log)
    {
      /* the log of the sum through vec::map too, then x - max - log_sum
       * in that order (issue 11752) */
      float s = map_reduce (MAP_EXP_SUB, vadd, vmax, x, NULL, n);
      __m256 vlog = Sleef_logf8_u10 (_mm256_set1_ps (s));

      for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps (y + i, _mm256_sub_ps (_mm256_sub_ps (_mm256_loadu_ps (x + i), vmax), vlog));
      if (i < n)
        store_part (y + i, _mm256_sub_ps (_mm256_sub_ps (load_part (x + i, n - i), vmax), vlog), n - i);
      return;
    }

  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps (y + i, Sleef_expf8_u10 (_mm256_sub_ps (_mm256_loadu_ps (x + i), vmax)));
  if (i < n)
    store_part (y + i, Sleef_expf8_u10 (_mm256_sub_ps (load_part (x + i, n - i), vmax)), n - i);
  {
    /* the sum of the stored exps, then a product by its reciprocal */
    __m256 inv = _mm256_set1_ps (1.f / map_reduce (MAP_NONE, vadd, _mm256_setzero_ps (), y, NULL, n));

    for (i = 0; i + 8 <= n; i += 8)
      _mm256_storeu_ps (y + i, _mm256_mul_ps (_mm256_loadu_ps (y + i), inv));
    if (i < n)
      store_part (y + i, _mm256_mul_ps (load_part (y + i, n - i), inv), n - i);
  }
}

/* _vec_host_softmax_backward_lastdim: the sum by reduce_all (of g) or
 * map2_reduce_all (of g * y), then g - exp (y) * sum or (g - sum) * y
 * in vec::map2, a partial vector last */
void
ts_cpu_sleef_softmax_backward_row_f32 (const float *g,
                                       const float *y,
                                       float       *o,
                                       gint64       n,
                                       gboolean     as_log)
{
  float s = map_reduce (as_log ? MAP_NONE : MAP_MUL, vadd, _mm256_setzero_ps (), g, y, n);
  __m256 vs = _mm256_set1_ps (s);

  for (gint64 i = 0; i < n; i += 8)
    {
      gint64 k = MIN (n - i, 8);
      __m256 vg = k == 8 ? _mm256_loadu_ps (g + i) : load_part (g + i, k);
      __m256 vy = k == 8 ? _mm256_loadu_ps (y + i) : load_part (y + i, k);
      __m256 r = as_log ? _mm256_fnmadd_ps (Sleef_expf8_u10 (vy), vs, vg)
                        : _mm256_mul_ps (_mm256_sub_ps (vg, vs), vy);

      if (k == 8)
        _mm256_storeu_ps (o + i, r);
      else
        store_part (o + i, r, k);
    }
}

float
ts_cpu_sleef_lane_f32 (TsUnaryOp op,
                       float     x)
{
  return _mm256_cvtss_f32 (vml_func (op) (_mm256_set1_ps (x)));
}

/* mish (cpu_kernel_vec): x * tanh (log1p (exp (x))) */
static __m256
mish8 (__m256 x)
{
  return _mm256_mul_ps (x, Sleef_tanhf8_u10 (Sleef_log1pf8_u10 (Sleef_expf8_u10 (x))));
}

/* log_sigmoid (its own loop, every element vectorized): minimum (x, 0)
 * - log1p (exp (-|x|)) */
static __m256
log_sigmoid8 (__m256 x)
{
  __m256 z = Sleef_expf8_u10 (vneg (_mm256_andnot_ps (_mm256_set1_ps (-0.f), x)));

  return _mm256_sub_ps (vminimum (x, _mm256_setzero_ps ()), Sleef_log1pf8_u10 (z));
}

/* elu (cpu_kernel_vec): x > 0 ? x * scale
 * : (exp (x * input_scale) - 1) * (alpha * scale), in those roundings;
 * backward (is_result false) x > 0 ? g * scale
 * : g * input_scale * (alpha * scale) * exp (x * input_scale) */
static gint64
elu_pairs (float        negcoef,
           float        poscoef,
           float        negipt,
           const float *x,
           const float *g,
           float       *y,
           gint64       n)
{
  __m256 vneg_coef = _mm256_set1_ps (negcoef), vpos = _mm256_set1_ps (poscoef);
  __m256 vipt = _mm256_set1_ps (negipt), one = _mm256_set1_ps (1.f);
  gint64 i = 0;

  for (; i + 16 <= n; i += 16)
    for (int h = 0; h < 16; h += 8)
      {
        __m256 a = _mm256_loadu_ps (x + i + h);
        __m256 e = Sleef_expf8_u10 (_mm256_mul_ps (a, vipt));
        __m256 pos, neg;

        if (g == NULL)
          {
            pos = _mm256_mul_ps (a, vpos);
            neg = _mm256_mul_ps (_mm256_sub_ps (e, one), vneg_coef);
          }
        else
          {
            __m256 vg = _mm256_loadu_ps (g + i + h);

            pos = _mm256_mul_ps (vg, vpos);
            neg = _mm256_mul_ps (_mm256_mul_ps (_mm256_mul_ps (vg, vipt), vneg_coef), e);
          }
        _mm256_storeu_ps (y + i + h, _mm256_blendv_ps (neg, pos, _mm256_cmp_ps (a, _mm256_setzero_ps (), _CMP_GT_OQ)));
      }
  return i;
}

/* mish_backward: dy * (t + x * sigmoid * (1 - t * t)), t = tanh (log1p
 * (exp (x))), sigmoid = 1 / (1 + exp (-x)). GCC contracts both the
 * vector formula and the scalar one of PyTorch's AVX2 build into two fused
 * multiply-adds (1 - t * t, then t + ... * ...): the tail is computed
 * here, with libm and fmaf, all @n elements. */
static void
mish_backward (const float *x,
               const float *g,
               float       *y,
               gint64       n)
{
  __m256 one = _mm256_set1_ps (1.f);
  gint64 i = 0;

  for (; i + 16 <= n; i += 16)
    for (int h = 0; h < 16; h += 8)
      {
        __m256 a = _mm256_loadu_ps (x + i + h);
        __m256 sig = _mm256_div_ps (one, _mm256_add_ps (one, Sleef_expf8_u10 (vneg (a))));
        __m256 t = Sleef_tanhf8_u10 (Sleef_log1pf8_u10 (Sleef_expf8_u10 (a)));
        __m256 inner = _mm256_fmadd_ps (_mm256_mul_ps (a, sig), _mm256_fnmadd_ps (t, t, one), t);

        _mm256_storeu_ps (y + i + h, _mm256_mul_ps (_mm256_loadu_ps (g + i + h), inner));
      }
  for (; i < n; i++)
    {
      float sig = 1.f / (1.f + expf (-x[i]));
      float t = tanhf (log1pf (expf (x[i])));

      y[i] = g[i] * fmaf (x[i] * sig, fmaf (-t, t, 1.f), t);
    }
}

/* log_sigmoid_backward: (max_deriv - sign * (z / (1 + z))) * g, z the
 * forward's buffer exp (-|x|), which its loop computes with SLEEF for
 * every element */
static void
log_sigmoid_backward (const float *x,
                      const float *g,
                      float       *y,
                      gint64       n)
{
  __m256 one = _mm256_set1_ps (1.f), zero = _mm256_setzero_ps ();

  for (gint64 i = 0; i < n; i += 8)
    {
      gint64 k = MIN (n - i, 8);
      __m256 a = load_part (x + i, k), vg = load_part (g + i, k);
      __m256 z = Sleef_expf8_u10 (vneg (_mm256_andnot_ps (_mm256_set1_ps (-0.f), a)));
      __m256 neg = _mm256_cmp_ps (a, zero, _CMP_LT_OQ);
      __m256 max_deriv = _mm256_blendv_ps (zero, one, neg);
      __m256 sign = _mm256_blendv_ps (vneg (one), one, neg);
      __m256 q = _mm256_div_ps (z, _mm256_add_ps (one, z));

      store_part (y + i, _mm256_mul_ps (_mm256_fnmadd_ps (sign, q, max_deriv), vg), k);
    }
}

gint64
ts_cpu_sleef_act_f32 (TsActKernel  kind,
                      float        p0,
                      float        p1,
                      float        ipt,
                      const float *x,
                      const float *g,
                      float       *y,
                      gint64       n)
{
  switch ((int) kind)
    {
    case TS_ACT_MISH:
      return map_pairs (mish8, x, y, n);
    case TS_ACT_MISH | TS_ACT_BACKWARD:
      mish_backward (x, g, y, n);
      return n;
    case TS_ACT_LOG_SIGMOID:
      map_all (log_sigmoid8, x, y, n);
      return n;
    case TS_ACT_LOG_SIGMOID | TS_ACT_BACKWARD:
      log_sigmoid_backward (x, g, y, n);
      return n;
    case TS_ACT_ELU:
      return elu_pairs (p0 * p1, p1, ipt, x, NULL, y, n);
    case TS_ACT_ELU | TS_ACT_BACKWARD:
      return elu_pairs (p0 * p1, p1, ipt, x, g, y, n);
    default:
      return 0;
    }
}

#else /* !__AVX2__: ts_cpu_have_avx2_fma () is FALSE, nothing calls these */

gint64
ts_cpu_sleef_pow_f32 (G_GNUC_UNUSED const float *x,
                      G_GNUC_UNUSED float       *r,
                      G_GNUC_UNUSED gint64       n,
                      G_GNUC_UNUSED float        e)
{
  g_assert_not_reached ();
}

gint64
ts_cpu_sleef_pow_f64 (G_GNUC_UNUSED const double *x,
                      G_GNUC_UNUSED double       *r,
                      G_GNUC_UNUSED gint64        n,
                      G_GNUC_UNUSED double        e)
{
  g_assert_not_reached ();
}

gint64
ts_cpu_sleef_unary_f32 (G_GNUC_UNUSED TsUnaryOp    op,
                        G_GNUC_UNUSED const float *x,
                        G_GNUC_UNUSED float       *r,
                        G_GNUC_UNUSED gint64       n,
                        G_GNUC_UNUSED gboolean     contiguous)
{
  g_assert_not_reached ();
}

void
ts_cpu_sleef_softmax_row_f32 (G_GNUC_UNUSED const float *x,
                              G_GNUC_UNUSED float       *y,
                              G_GNUC_UNUSED gint64       n,
                              G_GNUC_UNUSED gboolean     as_log)
{
  g_assert_not_reached ();
}

void
ts_cpu_sleef_softmax_backward_row_f32 (G_GNUC_UNUSED const float *g,
                                       G_GNUC_UNUSED const float *y,
                                       G_GNUC_UNUSED float       *o,
                                       G_GNUC_UNUSED gint64       n,
                                       G_GNUC_UNUSED gboolean     as_log)
{
  g_assert_not_reached ();
}

float
ts_cpu_sleef_lane_f32 (G_GNUC_UNUSED TsUnaryOp op,
                       G_GNUC_UNUSED float     x)
{
  g_assert_not_reached ();
}

gint64
ts_cpu_sleef_act_f32 (G_GNUC_UNUSED TsActKernel  kind,
                      G_GNUC_UNUSED float        p0,
                      G_GNUC_UNUSED float        p1,
                      G_GNUC_UNUSED float        ipt,
                      G_GNUC_UNUSED const float *x,
                      G_GNUC_UNUSED const float *g,
                      G_GNUC_UNUSED float       *y,
                      G_GNUC_UNUSED gint64       n)
{
  g_assert_not_reached ();
}

#endif
