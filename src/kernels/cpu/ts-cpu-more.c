/* ts-cpu-more.c: CPU kernels of the ops of issue #14
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "ts-cpu-kernels.h"
#include "ts-cpu-kernels-private.h"
#include "ts-cpu-vector-private.h"

/* Element @i of @v in row-major order: direct for a contiguous view (the
 * common case, and ts_view_linear_ptr's divisions cost more than these
 * kernels' arithmetic), else through the strides. */
static inline gpointer
elem (const TsView *v,
      gboolean      contiguous,
      gint64        i)
{
  if (contiguous)
    return (char *) v->data + (v->offset + i) * (gint64) ts_dtype_size (v->dtype);
  return ts_view_linear_ptr (v, i);
}

/* A contiguous float32 view's first element. */
static inline float *
f32 (const TsView *v)
{
  return (float *) v->data + v->offset;
}

/* Whether every one of the @n views (NULL entries skipped) is contiguous. */
static gboolean
all_contiguous (const TsView **views,
                guint          n)
{
  for (guint i = 0; i < n; i++)
    if (views[i] != NULL && !ts_view_is_contiguous (views[i]))
      return FALSE;
  return TRUE;
}

/* Whether every one of views[1 .. n) (NULL entries skipped) has the dtype
 * and the element count of the output, views[0]. */
static gboolean
like_output (const TsView **views,
             guint          n)
{
  gint64 numel = ts_view_numel (views[0]);

  for (guint i = 1; i < n; i++)
    if (views[i] != NULL && (views[i]->dtype != views[0]->dtype || ts_view_numel (views[i]) != numel))
      return FALSE;
  return TRUE;
}

/* where: a copy of the chosen element, bit for bit (-0.0 and NaN
 * payloads included), as ATen's where_kernel does. */
gboolean
ts_cpu_where (const TsView  *out,
              const TsView  *cond,
              const TsView  *self,
              const TsView  *other,
              GError       **error)
{
  gsize size = ts_dtype_size (out->dtype);
  gint64 n = ts_view_numel (out);
  const TsView *views[4] = { out, self, other, cond };

  if (!like_output (views, 3) || cond->dtype != TS_DTYPE_BOOL || ts_view_numel (cond) != n)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE,
                           "where(): the condition or operands do not match the output");
  {
    gboolean dense = all_contiguous (views, 4);

    if (dense && size == 4)
      {
        const guint8 *c = (const guint8 *) cond->data + cond->offset;
        guint32 *o = (guint32 *) out->data + out->offset;
        const guint32 *x = (const guint32 *) self->data + self->offset;
        const guint32 *y = (const guint32 *) other->data + other->offset;

        /* both loaded, then selected: a conditional load kept the loop
         * scalar (the vectorized select is 5 times faster) */
        for (gint64 e = 0; e < n; e++)
          {
            guint32 xe = x[e], ye = y[e];

            o[e] = c[e] ? xe : ye;
          }
        return TRUE;
      }
    for (gint64 e = 0; e < n; e++)
      {
        const TsView *pick = *(const guint8 *) elem (cond, dense, e) ? self : other;

        memcpy (elem (out, dense, e), elem (pick, dense, e), size);
      }
  }
  return TRUE;
}

/* -- lerp and addcmul -----------------------------------------------------
 *
 * PyTorch's CPU kernels for these are scalar loops that GCC contracts
 * (-ffp-contract=fast on an FMA build): lerp is fma (w, end - self, self)
 * for w below 0.5 (negative ones too: the test is not on |w|) and
 * fma (-(end - self), 1 - w, end) from 0.5 up; addcmul is
 * fma (value * t1, t2, self). fmaf()/fma() here round as that build does;
 * the half types round after each operation, as c10::Half's operators do,
 * and integers compute in wrapping int64. */

static double
half_round (TsDType dtype,
            double  v)
{
  guint8 buf[8];

  ts_dtype_store (dtype, buf, v);
  return ts_dtype_load (dtype, buf);
}

/* addcdiv: self + value * t1 / t2, no multiply-add to fuse */
static void
addcdiv_one (TsDType       dtype,
             gpointer      dst,
             gconstpointer s,
             gconstpointer a,
             gconstpointer b,
             double        value)
{
  if (dtype == TS_DTYPE_FLOAT32)
    {
      float r = *(const float *) s + (float) value * *(const float *) a / *(const float *) b;

      memcpy (dst, &r, sizeof r);
    }
  else if (dtype == TS_DTYPE_FLOAT64)
    {
      double r = *(const double *) s + value * *(const double *) a / *(const double *) b;

      memcpy (dst, &r, sizeof r);
    }
  else
    {
      double v = half_round (dtype, value);
      double q = half_round (dtype, half_round (dtype, v * ts_dtype_load (dtype, a)) / ts_dtype_load (dtype, b));

      ts_dtype_store (dtype, dst, q + ts_dtype_load (dtype, s));
    }
}

static void
addcmul_one (TsDType  dtype,
             gpointer dst,
             gconstpointer s,
             gconstpointer a,
             gconstpointer b,
             double   value)
{
  if (dtype == TS_DTYPE_FLOAT32)
    {
      float r = fmaf ((float) value * *(const float *) a, *(const float *) b, *(const float *) s);

      memcpy (dst, &r, sizeof r);
    }
  else if (dtype == TS_DTYPE_FLOAT64)
    {
      double r = fma (value * *(const double *) a, *(const double *) b, *(const double *) s);

      memcpy (dst, &r, sizeof r);
    }
  else if (ts_dtype_is_floating (dtype))
    {
      double v = half_round (dtype, value);
      double p = half_round (dtype, half_round (dtype, v * ts_dtype_load (dtype, a)) * ts_dtype_load (dtype, b));

      ts_dtype_store (dtype, dst, p + ts_dtype_load (dtype, s));
    }
  else
    {
      guint64 v = (guint64) (gint64) value;
      guint64 r = (guint64) ts_dtype_load_int (dtype, s) +
                  v * (guint64) ts_dtype_load_int (dtype, a) * (guint64) ts_dtype_load_int (dtype, b);

      ts_dtype_store_int (dtype, dst, (gint64) r);
    }
}

/* The dense float32/float64 loops of addcmul_one and addcdiv_one (Adam's
 * updates): the same arithmetic, in a plain loop that vectorizes, the
 * fused multiply-adds one instruction each where the CPU has FMA. */
#define TERNARY_LOOP(NAME, T, EXPR)                                           \
static void                                                                   \
NAME (T *o, const T *s, const T *a, const T *b, T v, gint64 n)                \
{                                                                             \
  for (gint64 i = 0; i < n; i++)                                              \
    o[i] = EXPR;                                                              \
}
/* lerp as lerp_one computes it: self s, end a, weight w */
#define LERP(F, W, ONE)                                                       \
  ((W) < (ONE) / 2 ? F ((W), a[i] - s[i], s[i]) : F (-(a[i] - s[i]), (ONE) - (W), a[i]))
#define TERNARY_LOOPS(SUFFIX)                                                 \
  TERNARY_LOOP (addcmul_f32##SUFFIX, float, fmaf (v * a[i], b[i], s[i]))      \
  TERNARY_LOOP (addcmul_f64##SUFFIX, double, fma (v * a[i], b[i], s[i]))      \
  TERNARY_LOOP (addcdiv_f32##SUFFIX, float, s[i] + v * a[i] / b[i])           \
  TERNARY_LOOP (addcdiv_f64##SUFFIX, double, s[i] + v * a[i] / b[i])          \
  TERNARY_LOOP (lerp_f32##SUFFIX, float, LERP (fmaf, b[i], 1.0f))             \
  TERNARY_LOOP (lerp_f64##SUFFIX, double, LERP (fma, b[i], 1.0))              \
  TERNARY_LOOP (lerps_f32##SUFFIX, float, LERP (fmaf, v, 1.0f))               \
  TERNARY_LOOP (lerps_f64##SUFFIX, double, LERP (fma, v, 1.0))
TERNARY_LOOPS (_plain)
#pragma GCC push_options
#pragma GCC target ("avx2,fma")
TERNARY_LOOPS (_avx2)
#pragma GCC pop_options
#undef TERNARY_LOOPS
#undef TERNARY_LOOP
#undef LERP

/* The dense loops of one op: [float32, float64] x [plain, AVX2+FMA] */
typedef void (*TernaryF32) (float *o, const float *s, const float *a, const float *b, float v, gint64 n);
typedef void (*TernaryF64) (double *o, const double *s, const double *a, const double *b, double v, gint64 n);

/* Dense float32/float64 o = f(s, a, b, v) in one loop, the CPU's best
 * (FALSE: another dtype); @b may be NULL */
static gboolean
ternary_dense (const TsView      *out,
               const TsView      *s,
               const TsView      *a,
               const TsView      *b,
               double             v,
               gint64             n,
               const TernaryF32   f32[2],
               const TernaryF64   f64[2])
{
  guint avx2 = ts_cpu_have_avx2_fma () ? 1 : 0;

#define RUN(T, LOOP)                                                          \
  LOOP ((T *) out->data + out->offset, (const T *) s->data + s->offset,       \
        (const T *) a->data + a->offset, b != NULL ? (const T *) b->data + b->offset : NULL, (T) v, n)
  if (out->dtype == TS_DTYPE_FLOAT32)
    RUN (float, f32[avx2]);
  else if (out->dtype == TS_DTYPE_FLOAT64)
    RUN (double, f64[avx2]);
  else
    return FALSE;
#undef RUN
  return TRUE;
}

static double
lerp_one (TsDType dtype,
          double  s,
          double  e,
          double  w)
{
  if (dtype == TS_DTYPE_FLOAT32)
    {
      float fs = (float) s, fe = (float) e, fw = (float) w, d = fe - fs;

      return fw < 0.5f ? fmaf (fw, d, fs) : fmaf (-d, 1.0f - fw, fe);
    }
  if (dtype == TS_DTYPE_FLOAT64)
    {
      double d = e - s;

      return w < 0.5 ? fma (w, d, s) : fma (-d, 1.0 - w, e);
    }
  /* float16/bfloat16 (CUDA tensors: the opmath is float) */
  {
    float fs = (float) s, fe = (float) e, fw = (float) w, d = fe - fs;

    return fw < 0.5f ? fmaf (fw, d, fs) : fmaf (-d, 1.0f - fw, fe);
  }
}

gboolean
ts_cpu_lerp (const TsView  *out,
             const TsView  *self,
             const TsView  *end,
             const TsView  *weight,
             double         scalar_weight,
             GError       **error)
{
  gint64 n = ts_view_numel (out);
  const TsView *views[4] = { out, self, end, weight };

  if (!ts_dtype_is_floating (out->dtype) || !like_output (views, 4))
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE, "lerp(): the operands do not match the output");
  {
    gboolean dense = all_contiguous (views, 4);
    static const TernaryF32 tensor32[2] = { lerp_f32_plain, lerp_f32_avx2 };
    static const TernaryF32 number32[2] = { lerps_f32_plain, lerps_f32_avx2 };
    static const TernaryF64 tensor64[2] = { lerp_f64_plain, lerp_f64_avx2 };
    static const TernaryF64 number64[2] = { lerps_f64_plain, lerps_f64_avx2 };

    if (dense && ternary_dense (out, self, end, weight, scalar_weight, n, weight ? tensor32 : number32,
                                weight ? tensor64 : number64))
      return TRUE;
    for (gint64 i = 0; i < n; i++)
      {
        double w = weight != NULL ? ts_dtype_load (out->dtype, elem (weight, dense, i)) : scalar_weight;
        double r = lerp_one (out->dtype, ts_dtype_load (out->dtype, elem (self, dense, i)),
                             ts_dtype_load (out->dtype, elem (end, dense, i)), w);

        ts_dtype_store (out->dtype, elem (out, dense, i), r);
      }
  }
  return TRUE;
}

gboolean
ts_cpu_addcmul (const TsView  *out,
                const TsView  *self,
                const TsView  *tensor1,
                const TsView  *tensor2,
                double         value,
                gboolean       divide,
                GError       **error)
{
  gint64 n = ts_view_numel (out);
  const TsView *views[4] = { out, self, tensor1, tensor2 };

  if (!like_output (views, 4))
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE, "addcmul(): the operands do not match the output");
  {
    gboolean dense = all_contiguous (views, 4);
    void (*one) (TsDType, gpointer, gconstpointer, gconstpointer, gconstpointer, double) =
      divide ? addcdiv_one : addcmul_one;
    static const TernaryF32 mul32[2] = { addcmul_f32_plain, addcmul_f32_avx2 };
    static const TernaryF32 div32[2] = { addcdiv_f32_plain, addcdiv_f32_avx2 };
    static const TernaryF64 mul64[2] = { addcmul_f64_plain, addcmul_f64_avx2 };
    static const TernaryF64 div64[2] = { addcdiv_f64_plain, addcdiv_f64_avx2 };

    if (dense && ternary_dense (out, self, tensor1, tensor2, value, n, divide ? div32 : mul32,
                                divide ? div64 : mul64))
      return TRUE;
    for (gint64 i = 0; i < n; i++)
      one (out->dtype, elem (out, dense, i), elem (self, dense, i), elem (tensor1, dense, i),
           elem (tensor2, dense, i), value);
  }
  return TRUE;
}

/* -- clamp ------------------------------------------------------------------
 *
 * Both bounds numbers, rounded to the dtype as a wrapped number is. A NaN
 * element or bound gives NaN, and a tie keeps the element (PyTorch 1.13:
 * clamp(-0.0, 0, 1) is -0.0, where the binary kernels' clamp_min gives
 * the bound, 0.0). */

#define DEFINE_CLAMP_ONE(NAME, T)                                             \
static inline T                                                               \
NAME (T x, T lo, T hi)                                                        \
{                                                                             \
  T r = isnan (x) || isnan (lo) ? (T) NAN : (x < lo ? lo : x);                \
  return isnan (r) || isnan (hi) ? (T) NAN : (hi < r ? hi : r);               \
}

DEFINE_CLAMP_ONE (clamp_f32, float)
DEFINE_CLAMP_ONE (clamp_f64, double)

gboolean
ts_cpu_clamp (const TsView  *out,
              const TsView  *self,
              double         min,
              double         max,
              GError       **error)
{
  gint64 n = ts_view_numel (out);
  const TsView *views[2] = { out, self };
  gboolean dense;

  if ((out->dtype != TS_DTYPE_FLOAT32 && out->dtype != TS_DTYPE_FLOAT64) || !like_output (views, 2))
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE,
                           "clamp(): the operand does not match the output, or is not float32 or float64");
  dense = all_contiguous (views, 2);
  if (out->dtype == TS_DTYPE_FLOAT32)
    {
      float lo = (float) min, hi = (float) max;

      if (dense)
        {
          float *o = f32 (out), *a = f32 (self);

          for (gint64 i = 0; i < n; i++)
            o[i] = clamp_f32 (a[i], lo, hi);
          return TRUE;
        }
      for (gint64 i = 0; i < n; i++)
        *(float *) elem (out, FALSE, i) = clamp_f32 (*(const float *) elem (self, FALSE, i), lo, hi);
      return TRUE;
    }
  for (gint64 i = 0; i < n; i++)
    *(double *) elem (out, dense, i) = clamp_f64 (*(const double *) elem (self, dense, i), min, max);
  return TRUE;
}

/* -- mv ---------------------------------------------------------------------
 *
 * PyTorch's mv is BLAS gemv (its CPU result is bit for bit OpenBLAS's
 * sgemv/dgemv over the row-major matrix), not gemm with one column, whose
 * accumulation differs: float32/64 go to cblas_?gemv over a row-major (or
 * packed) matrix. Other dtypes sum in order in their opmath (float for the
 * half types, int64 for integers), as ATen's fallback gemv does. */

/* @v contiguous in row-major order, or a packed copy in *scratch. */
static gconstpointer
dense_or_packed (const TsView *v,
                 gpointer     *scratch)
{
  TsView packed;

  *scratch = NULL;
  if (ts_view_is_contiguous (v))
    return (const char *) v->data + v->offset * (gint64) ts_dtype_size (v->dtype);
  *scratch = g_malloc (ts_dtype_size (v->dtype) * (gsize) MAX (ts_view_numel (v), 1));
  ts_view_init (&packed, v->dtype, *scratch, v->ndim, v->shape, NULL, 0);
  ts_cpu_copy (&packed, v, NULL);
  return *scratch;
}

gboolean
ts_cpu_mv (const TsView  *out,
           const TsView  *mat,
           const TsView  *vec,
           GError       **error)
{
  gint64 m = mat->shape[0], k = mat->shape[1];
  g_autofree gpointer a_scratch = NULL;
  g_autofree gpointer x_scratch = NULL;
  gboolean col_major, row_major;
  blasint lda, incx;
  gconstpointer a, x;

  if (mat->ndim != 2 || vec->ndim != 1 || out->ndim != 1 || vec->shape[0] != k || out->shape[0] != m ||
      mat->dtype != vec->dtype || out->dtype != mat->dtype)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE, "mv(): the operands do not match");
  /* ATen's addmv: a column-major matrix goes as it is (gemv 'n', lda its
   * column stride), a row-major one too ('t', lda its row stride), any
   * other as a contiguous copy */
  col_major = mat->strides[0] == 1 && (k == 1 || mat->strides[1] >= MAX (m, 1));
  row_major = !col_major && mat->strides[1] == 1 && (m == 1 || mat->strides[0] >= MAX (k, 1));
  if (col_major || row_major)
    {
      a = (const char *) mat->data + mat->offset * (gint64) ts_dtype_size (mat->dtype);
      lda = (blasint) (col_major ? (k == 1 ? MAX (m, 1) : mat->strides[1]) : (m == 1 ? MAX (k, 1) : mat->strides[0]));
    }
  else
    {
      a = dense_or_packed (mat, &a_scratch);
      lda = (blasint) MAX (k, 1);
    }
  /* the vector with its stride, as ATen passes incx (OpenBLAS's sums
   * depend on it); a zero stride (expanded) packed */
  incx = vec->strides[0] > 0 ? (blasint) vec->strides[0] : 1;
  x = vec->strides[0] > 0 ? (const char *) vec->data + vec->offset * (gint64) ts_dtype_size (vec->dtype)
                          : dense_or_packed (vec, &x_scratch);
  for (gint64 i = 0; i < m && k == 0; i++)
    ts_dtype_store (out->dtype, ts_view_linear_ptr (out, i), 0.0);
  if (k == 0)
    return TRUE;
  if (mat->dtype == TS_DTYPE_FLOAT32 || mat->dtype == TS_DTYPE_FLOAT64)
    {
      gsize elem = ts_dtype_size (out->dtype);
      g_autofree gpointer y = g_malloc (elem * (gsize) MAX (m, 1));
      TsView vy;

      CBLAS_ORDER order = col_major ? CblasColMajor : CblasRowMajor;

      if (mat->dtype == TS_DTYPE_FLOAT32)
        cblas_sgemv (order, CblasNoTrans, (blasint) m, (blasint) k, 1.0f, a, lda, x, incx, 0.0f, y, 1);
      else
        cblas_dgemv (order, CblasNoTrans, (blasint) m, (blasint) k, 1.0, a, lda, x, incx, 0.0, y, 1);
      ts_view_init (&vy, out->dtype, y, 1, &m, NULL, 0);
      ts_cpu_copy (out, &vy, NULL);
      return TRUE;
    }
  /* the loop reads rows and the vector packed */
  g_clear_pointer (&a_scratch, g_free);
  g_clear_pointer (&x_scratch, g_free);
  a = dense_or_packed (mat, &a_scratch);
  x = dense_or_packed (vec, &x_scratch);
  for (gint64 i = 0; i < m; i++)
    {
      gsize elem = ts_dtype_size (mat->dtype);
      const char *row = (const char *) a + i * k * (gint64) elem;

      if (ts_dtype_is_floating (mat->dtype))
        {
          float sum = 0.0f;

          for (gint64 j = 0; j < k; j++)
            sum += (float) ts_dtype_load (mat->dtype, row + j * elem) *
                   (float) ts_dtype_load (mat->dtype, (const char *) x + j * elem);
          ts_dtype_store (out->dtype, ts_view_linear_ptr (out, i), sum);
        }
      else
        {
          guint64 sum = 0;

          for (gint64 j = 0; j < k; j++)
            sum += (guint64) ts_dtype_load_int (mat->dtype, row + j * elem) *
                   (guint64) ts_dtype_load_int (mat->dtype, (const char *) x + j * elem);
          ts_dtype_store_int (out->dtype, ts_view_linear_ptr (out, i), (gint64) sum);
        }
    }
  return TRUE;
}
