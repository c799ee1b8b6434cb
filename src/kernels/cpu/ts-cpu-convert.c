/* ts-cpu-convert.c: runs of elements to and from float32
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The element conversions are ts-dtype's (round to nearest even, c10's
 * NaN handling), with two exceptions for speed, where a call per element
 * would cost more than the op (the core and the kernels are separate
 * files, inlined only in LTO builds):
 *
 *  - dense float16 on x86 CPUs with F16C: vcvtph2ps/vcvtps2ph convert 8
 *    values per instruction and round the same way (IEEE round to nearest
 *    even, subnormals kept, NaNs quieted keeping their top payload bits);
 *  - bfloat16: the two conversions are a few integer operations, written
 *    here again inline, and with AVX2 for dense runs (8 at a time).
 *
 * test-cpu-kernels checks both against ts-dtype's functions on every
 * 16-bit value and on the floats around every rounding boundary. Written
 * by hand because no library we link has strided float16/bfloat16 <->
 * float32 runs (OpenBLAS 0.3.21 has no bfloat16 conversion API).
 */

#include "config.h"

#include <string.h>

#include "ts-cpu-convert.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_X86_TARGETS 1
#endif

gboolean
ts_cpu_dtype_is_half (TsDType dtype)
{
  return dtype == TS_DTYPE_FLOAT16 || dtype == TS_DTYPE_BFLOAT16;
}

/* The x86 vector conversions: each converts the dense prefix of a run, a
 * multiple of 8 long, and returns its length; the caller converts the
 * rest element by element. Elsewhere they convert nothing. */
#ifdef HAVE_X86_TARGETS
__attribute__ ((target ("avx,f16c")))
static gint64
f16_to_float_x86 (const char *src,
                  float      *dst,
                  gint64      n)
{
  gint64 i = 0;

  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps (dst + i, _mm256_cvtph_ps (_mm_loadu_si128 ((const void *)(src + 2 * i))));
  return i;
}

__attribute__ ((target ("avx,f16c")))
static gint64
f16_from_float_x86 (const float *src,
                    char        *dst,
                    gint64       n)
{
  gint64 i = 0;

  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128 ((void *)(dst + 2 * i),
                      _mm256_cvtps_ph (_mm256_loadu_ps (src + i),
                                       _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  return i;
}

/* bf16_to_float, 8 at a time: widen to 32 bits, shift into the top half. */
__attribute__ ((target ("avx2")))
static gint64
bf16_to_float_x86 (const char *src,
                   float      *dst,
                   gint64      n)
{
  gint64 i = 0;

  for (; i + 8 <= n; i += 8)
    {
      __m256i h = _mm256_cvtepu16_epi32 (_mm_loadu_si128 ((const void *)(src + 2 * i)));

      _mm256_storeu_ps (dst + i, _mm256_castsi256_ps (_mm256_slli_epi32 (h, 16)));
    }
  return i;
}

/* bf16_from_float, 8 at a time: the same integer rounding, NaNs replaced
 * by 0x7fc0, the 32-bit results packed to 16 bits (they are < 2^16). */
__attribute__ ((target ("avx2")))
static gint64
bf16_from_float_x86 (const float *src,
                     char        *dst,
                     gint64       n)
{
  const __m256i bias = _mm256_set1_epi32 (0x7fff);
  const __m256i one = _mm256_set1_epi32 (1);
  const __m256i abs_mask = _mm256_set1_epi32 (0x7fffffff);
  const __m256i inf = _mm256_set1_epi32 (0x7f800000);
  const __m256i qnan = _mm256_set1_epi32 (0x7fc0);
  gint64 i = 0;

  for (; i + 8 <= n; i += 8)
    {
      __m256i u = _mm256_castps_si256 (_mm256_loadu_ps (src + i));
      __m256i lsb = _mm256_and_si256 (_mm256_srli_epi32 (u, 16), one);
      __m256i r = _mm256_srli_epi32 (_mm256_add_epi32 (_mm256_add_epi32 (u, bias), lsb), 16);
      __m256i nan = _mm256_cmpgt_epi32 (_mm256_and_si256 (u, abs_mask), inf);

      r = _mm256_blendv_epi8 (r, qnan, nan);
      _mm_storeu_si128 ((void *)(dst + 2 * i),
                        _mm_packus_epi32 (_mm256_castsi256_si128 (r),
                                          _mm256_extracti128_si256 (r, 1)));
    }
  return i;
}

typedef struct
{
  gboolean f16c;
  gboolean avx2;
} CpuFeatures;

static const CpuFeatures *
cpu_features (void)
{
  static CpuFeatures features;
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      __builtin_cpu_init ();
      features.f16c = __builtin_cpu_supports ("avx") && __builtin_cpu_supports ("f16c");
      features.avx2 = __builtin_cpu_supports ("avx2");
      g_once_init_leave (&done, 1);
    }
  return &features;
}

/* The dense prefix of a run converted by a vector routine, if any. */
static gint64
to_float_vector (TsDType     dtype,
                 const char *src,
                 float      *dst,
                 gint64      n)
{
  if (dtype == TS_DTYPE_FLOAT16 && cpu_features ()->f16c)
    return f16_to_float_x86 (src, dst, n);
  if (dtype == TS_DTYPE_BFLOAT16 && cpu_features ()->avx2)
    return bf16_to_float_x86 (src, dst, n);
  return 0;
}

static gint64
from_float_vector (TsDType      dtype,
                   const float *src,
                   char        *dst,
                   gint64       n)
{
  if (dtype == TS_DTYPE_FLOAT16 && cpu_features ()->f16c)
    return f16_from_float_x86 (src, dst, n);
  if (dtype == TS_DTYPE_BFLOAT16 && cpu_features ()->avx2)
    return bf16_from_float_x86 (src, dst, n);
  return 0;
}
#else
static gint64
to_float_vector (TsDType     dtype,
                 const char *src,
                 float      *dst,
                 gint64      n)
{
  return 0;
}

static gint64
from_float_vector (TsDType      dtype,
                   const float *src,
                   char        *dst,
                   gint64       n)
{
  return 0;
}
#endif

/* ts_bfloat16_to_float: the 16 bits are the top half of the float. */
static inline float
bf16_to_float (guint16 b)
{
  guint32 u = (guint32)b << 16;
  float f;

  memcpy (&f, &u, sizeof f);
  return f;
}

/* ts_float_to_bfloat16: round to nearest even, NaN to c10's 0x7fc0. */
static inline guint16
bf16_from_float (float f)
{
  guint32 u;

  memcpy (&u, &f, sizeof u);
  if ((u & 0x7fffffff) > 0x7f800000)
    return 0x7fc0;
  return (guint16)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

static inline float
load_one (TsDType     dtype,
          const char *p)
{
  guint16 h;
  float f;

  switch (dtype)
    {
    case TS_DTYPE_FLOAT32: memcpy (&f, p, 4); return f;
    case TS_DTYPE_FLOAT16: memcpy (&h, p, 2); return ts_half_to_float (h);
    case TS_DTYPE_BFLOAT16: memcpy (&h, p, 2); return bf16_to_float (h);
    case TS_DTYPE_FLOAT64:
    case TS_DTYPE_INT64:
    case TS_DTYPE_INT32:
    case TS_DTYPE_UINT8:
    case TS_DTYPE_BOOL:
    case TS_DTYPE_INT8:
    case TS_DTYPE_INT16:
    case TS_N_DTYPES:
    case TS_DTYPE_UNDEFINED:
    default:
      return (float)ts_dtype_load (dtype, p);
    }
}

static inline void
store_one (TsDType  dtype,
           char    *p,
           float    f)
{
  guint16 h;

  switch (dtype)
    {
    case TS_DTYPE_FLOAT32: memcpy (p, &f, 4); return;
    case TS_DTYPE_FLOAT16: h = ts_float_to_half (f); memcpy (p, &h, 2); return;
    case TS_DTYPE_BFLOAT16: h = bf16_from_float (f); memcpy (p, &h, 2); return;
    case TS_DTYPE_FLOAT64:
    case TS_DTYPE_INT64:
    case TS_DTYPE_INT32:
    case TS_DTYPE_UINT8:
    case TS_DTYPE_BOOL:
    case TS_DTYPE_INT8:
    case TS_DTYPE_INT16:
    case TS_N_DTYPES:
    case TS_DTYPE_UNDEFINED:
    default:
      ts_dtype_store (dtype, p, f);
    }
}

void
ts_cpu_load_f32 (TsDType     dtype,
                 const char *src,
                 gint64      stride,
                 float      *dst,
                 gint64      n)
{
  gint64 i = 0;

  if (dtype == TS_DTYPE_FLOAT32 && stride == 4)
    {
      memcpy (dst, src, (gsize)n * sizeof (float));
      return;
    }
  if (stride == 2)
    i = to_float_vector (dtype, src, dst, n);
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
  gint64 i = 0;

  if (dtype == TS_DTYPE_FLOAT32 && stride == 4)
    {
      memcpy (dst, src, (gsize)n * sizeof (float));
      return;
    }
  if (stride == 2)
    i = from_float_vector (dtype, src, dst, n);
  for (; i < n; i++)
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
      values[i] = bf16_to_float (bf16_from_float (values[i]));
}
