/* ts-cpu-convert.c: runs of elements to and from float32
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The element conversions are ts-dtype's (round to nearest even, c10's
 * NaN handling). Dense runs of float16 and bfloat16 on x86 CPUs with AVX2
 * and F16C are converted 8 at a time instead, because a call per element
 * into ts-dtype (another file, inlined only in LTO builds) cost more than
 * the op itself: vcvtph2ps/vcvtps2ph round as ts_float_to_half does (IEEE
 * round to nearest even, subnormals kept, NaNs quieted keeping their top
 * payload bits), and bfloat16 repeats ts_float_to_bfloat16's integer
 * rounding in AVX2. test-cpu-half checks both against ts-dtype on every
 * 16-bit value and around every rounding boundary. Written by hand because
 * no library we link converts float16/bfloat16 runs (Debian 12's OpenBLAS
 * 0.3.21 has no bfloat16 API).
 */

#include "config.h"

#include <string.h>

#include "ts-cpu-convert.h"
#include "ts-cpu-vector-private.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_X86_TARGETS 1
#endif

gboolean
ts_cpu_dtype_is_half (TsDType dtype)
{
  return dtype == TS_DTYPE_FLOAT16 || dtype == TS_DTYPE_BFLOAT16;
}

/* The x86 vector conversions (AVX2 and F16C, which every AVX2 CPU has):
 * each converts the dense prefix of a run of float16 or bfloat16, a
 * multiple of 8 long, and returns its length; the caller converts the
 * rest element by element. */
#ifdef HAVE_X86_TARGETS
/* bfloat16 is the top half of a float: widen to 32 bits and shift. */
__attribute__ ((target ("avx2,f16c")))
static gint64
to_float_x86 (TsDType     dtype,
              const char *src,
              float      *dst,
              gint64      n)
{
  gint64 i = 0;

  for (; i + 8 <= n; i += 8)
    {
      __m128i h = _mm_loadu_si128 ((const void *)(src + 2 * i));

      _mm256_storeu_ps (dst + i, dtype == TS_DTYPE_FLOAT16
                                 ? _mm256_cvtph_ps (h)
                                 : _mm256_castsi256_ps (_mm256_slli_epi32 (_mm256_cvtepu16_epi32 (h), 16)));
    }
  return i;
}

/* ts_float_to_bfloat16 on 8 floats: the same integer rounding to nearest
 * even, NaNs replaced by 0x7fc0; the results (< 2^16) packed to 16 bits. */
__attribute__ ((target ("avx2")))
static __m128i
bf16_from_float8 (__m256 f)
{
  const __m256i bias = _mm256_set1_epi32 (0x7fff);
  const __m256i one = _mm256_set1_epi32 (1);
  const __m256i abs_mask = _mm256_set1_epi32 (0x7fffffff);
  const __m256i inf = _mm256_set1_epi32 (0x7f800000);
  const __m256i qnan = _mm256_set1_epi32 (0x7fc0);
  __m256i u = _mm256_castps_si256 (f);
  __m256i lsb = _mm256_and_si256 (_mm256_srli_epi32 (u, 16), one);
  __m256i r = _mm256_srli_epi32 (_mm256_add_epi32 (_mm256_add_epi32 (u, bias), lsb), 16);
  __m256i nan = _mm256_cmpgt_epi32 (_mm256_and_si256 (u, abs_mask), inf);

  r = _mm256_blendv_epi8 (r, qnan, nan);
  return _mm_packus_epi32 (_mm256_castsi256_si128 (r), _mm256_extracti128_si256 (r, 1));
}

/* float16: vcvtps2ph, IEEE round to nearest even like ts_float_to_half. */
__attribute__ ((target ("avx2,f16c")))
static gint64
from_float_x86 (TsDType      dtype,
                const float *src,
                char        *dst,
                gint64       n)
{
  gint64 i = 0;

  for (; i + 8 <= n; i += 8)
    {
      __m256 f = _mm256_loadu_ps (src + i);

      _mm_storeu_si128 ((void *)(dst + 2 * i),
                        dtype == TS_DTYPE_FLOAT16
                        ? _mm256_cvtps_ph (f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
                        : bf16_from_float8 (f));
    }
  return i;
}

/* F16C from CPUID leaf 1 (ECX): clang's __builtin_cpu_supports knows no
 * "f16c", which stopped the clang (libFuzzer) build */
static gboolean
have_f16c (void)
{
  unsigned int eax, ebx, ecx, edx;

  return __get_cpuid (1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
}

/* AVX2 with FMA: PyTorch's CPU capability AVX2, which its vectorized
 * kernels (and so ours in ts-cpu-sleef.c) need */
gboolean
ts_cpu_have_avx2_fma (void)
{
  static gsize result = 0;

  if (g_once_init_enter (&result))
    {
      __builtin_cpu_init ();
      g_once_init_leave (&result, __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma") ? 2 : 1);
    }
  return result == 2;
}

static gboolean
have_x86_vectors (void)
{
  static gsize result = 0;

  if (g_once_init_enter (&result))
    {
      __builtin_cpu_init ();
      g_once_init_leave (&result, __builtin_cpu_supports ("avx2") && have_f16c () ? 2 : 1);
    }
  return result == 2;
}

#else

gboolean
ts_cpu_have_avx2_fma (void)
{
  return FALSE;
}

#endif

/* The dense prefix of a run converted at once (float32 copied, float16
 * and bfloat16 with vector instructions), if any, from @src to @dst, one
 * of them float32 (@to_f32 says which): its length. */
static gint64
convert_dense (TsDType     dtype,
               gboolean    to_f32,
               const char *src,
               char       *dst,
               gint64      stride,
               gint64      n)
{
  if (dtype == TS_DTYPE_FLOAT32 && stride == 4)
    {
      memcpy (dst, src, (gsize)n * sizeof (float));
      return n;
    }
#ifdef HAVE_X86_TARGETS
  if (ts_cpu_dtype_is_half (dtype) && stride == 2 && have_x86_vectors ())
    return to_f32 ? to_float_x86 (dtype, src, (float *)(gpointer)dst, n)
                  : from_float_x86 (dtype, (const float *)(gconstpointer)src, dst, n);
#endif
  return 0;
}

static inline float
load_one (TsDType     dtype,
          const char *p)
{
  guint16 h;
  float f;

  if (dtype == TS_DTYPE_FLOAT32)
    {
      memcpy (&f, p, sizeof f);
      return f;
    }
  if (!ts_cpu_dtype_is_half (dtype))
    return (float)ts_dtype_load (dtype, p);
  memcpy (&h, p, sizeof h);
  return dtype == TS_DTYPE_FLOAT16 ? ts_half_to_float (h) : ts_bfloat16_to_float (h);
}

static inline void
store_one (TsDType  dtype,
           char    *p,
           float    f)
{
  guint16 h;

  if (dtype == TS_DTYPE_FLOAT32)
    memcpy (p, &f, sizeof f);
  else if (dtype == TS_DTYPE_BOOL)
    *(guint8 *)p = f != 0.f;   /* comparisons: NaN is true, as ts_dtype_store */
  else if (!ts_cpu_dtype_is_half (dtype))
    ts_dtype_store (dtype, p, f);
  else
    {
      h = dtype == TS_DTYPE_FLOAT16 ? ts_float_to_half (f) : ts_float_to_bfloat16 (f);
      memcpy (p, &h, sizeof h);
    }
}

/* The real dtypes read as a double and rounded once, in typed loops (a
 * dtype switch an element made `.float ()` of an int tensor cost 4 to 13
 * times PyTorch's); an int64 rounds straight to float32, as c10's
 * static_cast (through a double, 2^62 + 2^38 + 1 rounded twice came out
 * one ulp off). FALSE for the half types, load_one's. */
static gboolean
load_typed (TsDType     dtype,
            const char *src,
            gint64      stride,
            float      *dst,
            gint64      n)
{
#define LOAD_LOOP(T, EXPR)                                                    \
  for (gint64 i = 0; i < n; i++, src += stride)                               \
    {                                                                         \
      T x;                                                                    \
      memcpy (&x, src, sizeof x);                                             \
      dst[i] = (float) (EXPR);                                                \
    }                                                                         \
  return TRUE
  switch (dtype)
    {
    case TS_DTYPE_FLOAT32: LOAD_LOOP (float, x);
    case TS_DTYPE_FLOAT64: LOAD_LOOP (double, x);
    case TS_DTYPE_INT64: LOAD_LOOP (gint64, x);
    case TS_DTYPE_INT32: LOAD_LOOP (gint32, x);
    case TS_DTYPE_INT16: LOAD_LOOP (gint16, x);
    case TS_DTYPE_INT8: LOAD_LOOP (gint8, x);
    case TS_DTYPE_UINT8: LOAD_LOOP (guint8, x);
    case TS_DTYPE_BOOL: LOAD_LOOP (guint8, x != 0);
    default: return FALSE;
    }
#undef LOAD_LOOP
}

void
ts_cpu_load_f32 (TsDType     dtype,
                 const char *src,
                 gint64      stride,
                 float      *dst,
                 gint64      n)
{
  gint64 i = convert_dense (dtype, TRUE, src, (char *)dst, stride, n);

  if (load_typed (dtype, src + i * stride, stride, dst + i, n - i))
    return;
  for (; i < n; i++)
    dst[i] = load_one (dtype, src + i * stride);
}

void
ts_cpu_store_f32 (TsDType      dtype,
                  const float *src,
                  char        *dst,
                  gint64       stride,
                  gint64       n)
{
  for (gint64 i = convert_dense (dtype, FALSE, (const char *)src, dst, stride, n); i < n; i++)
    store_one (dtype, dst + i * stride, src[i]);
}

void
ts_cpu_round_f32 (TsDType  dtype,
                  float   *values,
                  gint64   n)
{
  if (dtype == TS_DTYPE_FLOAT16)
    for (gint64 i = 0; i < n; i++)
      values[i] = ts_half_to_float (ts_float_to_half (values[i]));
  else if (dtype == TS_DTYPE_BFLOAT16)
    for (gint64 i = 0; i < n; i++)
      values[i] = ts_bfloat16_to_float (ts_float_to_bfloat16 (values[i]));
}
