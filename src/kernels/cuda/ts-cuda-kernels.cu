/* ts-cuda-kernels.cu: the CUDA backend's kernels and device calls
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One translation unit on purpose (compile time): elementwise ops with
 * broadcasting over strided views, reductions over any set of dims,
 * max/min along a dim, index_select and gather with PyTorch's device-side
 * asserts, Philox random numbers, fill, arange, casting copies, and
 * matmul/bmm through cuBLAS, and (ABI 4) the ops of a training step: add
 * with alpha, threshold (ReLU's backward), softmax and log_softmax with
 * their backwards, nll_loss, and im2col/col2im for convolutions as GEMMs,
 * exported as a TsCudaKernels table.
 *
 * The arithmetic mirrors the CPU kernels (src/kernels/cpu), which are the
 * reference: float16/bfloat16 compute in float and round once, floating
 * reductions accumulate in double and integer ones in int64, integers wrap,
 * float-to-integer conversions give INT64_MIN for NaN and out-of-range
 * values before wrapping (ts_dtype_store), and mul-adds are written with
 * __fmul_rn/__fadd_rn where the CPU rounds twice (nvcc would fuse them).
 * Transcendental functions (exp, log, sin, pow, ...) are CUDA's, which can
 * differ from glibc's by an ulp or two.
 *
 * Kernels are templates over the storage type with the op a run-time
 * argument (warp-uniform), switched once on the host: about a hundred
 * instantiations in all. The hottest binary ops (add, sub, mul, div) get
 * their own copy of the dense loop so the per-element op switch folds away.
 *
 * Bandwidth: every large kernel is a grid-stride loop over a grid sized to
 * fill the device once (blocks of 256, as many per SM as the occupancy
 * calculator says are resident: no second wave; the index kernels use
 * PyTorch's grids instead, so their asserts name PyTorch's threads), and the
 * contiguous cases move 16 bytes per load (float4-sized packs of any dtype)
 * when every pointer is aligned. Strided views fall back to per-element
 * offsets computed from the shape.
 */

#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cublas_v2.h>

#include "ts-cuda-kernels.h"

#define BLOCK 256
#define MAX_OPS 3

namespace {

/* ---- Launch configuration --------------------------------------------- */

int
sm_count (void)
{
  static int counts[64];
  int device = 0;

  cudaGetDevice (&device);
  if (device < 0 || device >= 64)
    return 80;
  if (counts[device] == 0)
    cudaDeviceGetAttribute (&counts[device], cudaDevAttrMultiProcessorCount, device);
  return counts[device] > 0 ? counts[device] : 80;
}

/* Resident blocks of BLOCK threads per SM for @kernel (registers and
 * shared memory decide), so that a grid never needs a second wave: a
 * grid-stride loop over more blocks than fit would run its last blocks
 * alone. */
int
blocks_per_sm (const void *kernel)
{
  int blocks = 0;

  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&blocks, kernel, BLOCK, 0) != cudaSuccess ||
      blocks < 1)
    {
      (void)cudaGetLastError ();
      return 4;
    }
  return blocks;
}

/* One block per BLOCK work items, at most what fills the device once. */
template <auto K>
unsigned
grid_of (int64_t work_items)
{
  static const int per_sm = blocks_per_sm ((const void *)K);
  int64_t blocks = (work_items + BLOCK - 1) / BLOCK;
  int64_t cap = (int64_t)sm_count () * per_sm;

  if (blocks < 1)
    blocks = 1;
  return (unsigned)(blocks < cap ? blocks : cap);
}

/* Kernel entries report their launch's error with cudaGetLastError, so
 * they first clear what an earlier failing call left there (that call
 * returned it to its own caller already). Sticky errors cannot be cleared
 * and are returned, as they should be. */
void
clear_stale_error (void)
{
  (void)cudaGetLastError ();
}

/* ---- Views and broadcasting ------------------------------------------- */

int64_t
numel (const TsCudaView *v)
{
  int64_t n = 1;

  for (int d = 0; d < v->ndim; d++)
    n *= v->shape[d];
  return n;
}

bool
is_contiguous (const TsCudaView *v)
{
  int64_t expected = 1;

  for (int d = v->ndim - 1; d >= 0; d--)
    {
      if (v->shape[d] != 1 && v->strides[d] != expected)
        return false;
      expected *= v->shape[d];
    }
  return true;
}

size_t
dtype_size (int dtype)
{
  switch (dtype)
    {
    case TS_CUDA_FLOAT64: case TS_CUDA_INT64: return 8;
    case TS_CUDA_FLOAT32: case TS_CUDA_INT32: return 4;
    case TS_CUDA_FLOAT16: case TS_CUDA_BFLOAT16: case TS_CUDA_INT16: return 2;
    default: return 1;
    }
}

/* The output's shape, and each operand's strides aligned to it (0 where an
 * operand is broadcast), passed by value to the kernels. */
struct Iter
{
  int     ndim;
  int     n_ops;
  int64_t numel;
  int64_t shape[TS_CUDA_MAX_DIMS];
  int64_t strides[MAX_OPS][TS_CUDA_MAX_DIMS];
  int64_t offset[MAX_OPS];
};

/* What iter_init and iter_init_exact take from the output: its rank,
 * shape and size. */
void
iter_init_shape (Iter *it, const TsCudaView *out, int n_ops)
{
  it->ndim = out->ndim;
  it->n_ops = n_ops;
  it->numel = numel (out);
  for (int d = 0; d < out->ndim; d++)
    it->shape[d] = out->shape[d];
}

/* Operand 0 is the output; the others broadcast to its shape (NumPy
 * rules: align trailing dimensions, size 1 repeats). */
bool
iter_init (Iter *it, const TsCudaView *const *ops, int n_ops)
{
  const TsCudaView *out = ops[0];

  iter_init_shape (it, out, n_ops);
  for (int k = 0; k < n_ops; k++)
    {
      const TsCudaView *v = ops[k];
      int lead = out->ndim - v->ndim;

      if (lead < 0)
        return false;
      it->offset[k] = v->offset;
      for (int d = 0; d < out->ndim; d++)
        {
          int vd = d - lead;

          if (vd < 0 || v->shape[vd] == 1)
            it->strides[k][d] = 0;
          else if (v->shape[vd] == out->shape[d])
            it->strides[k][d] = v->strides[vd];
          else
            return false;
        }
    }
  return true;
}

__device__ __forceinline__ void
iter_offsets (const Iter &it, int64_t linear, int64_t *off)
{
  for (int k = 0; k < it.n_ops; k++)
    off[k] = it.offset[k];
  for (int d = it.ndim - 1; d >= 0; d--)
    {
      int64_t idx = linear % it.shape[d];

      linear /= it.shape[d];
      for (int k = 0; k < it.n_ops; k++)
        off[k] += idx * it.strides[k][d];
    }
}

/* 16 bytes of T: one vector load or store. */
template <typename T>
struct alignas (16) Pack
{
  T v[16 / sizeof (T)];
};



/* N elements of T moved as one load or store of N * sizeof (T) bytes. */
template <typename T, int N>
struct alignas (sizeof (T) * N) Vec
{
  T v[N];
};

bool
aligned_to (const void *p, size_t bytes)
{
  return ((uintptr_t)p % bytes) == 0;
}

/* A scalar operand: ndim 0 and no data (the value is in the view). */
bool
is_scalar (const TsCudaView *v)
{
  return v->ndim == 0 && v->data == NULL;
}

/* ---- Storage types ---------------------------------------------------- */

/* bool as its own one-byte type, so that templates tell it from uint8. */
struct tsbool
{
  uint8_t v;
};

/* Tr<S>: the type S computes in (C: float for float32/16/bf16, double for
 * float64, int64 for integers and bool) and the conversions both ways.
 * Stores of integers wrap modulo 2^bits, bool stores truthiness. */
template <typename S> struct Tr;

template <> struct Tr<float>
{
  typedef float C;
  static constexpr bool fp = true;
  static __device__ __forceinline__ C load (float x) { return x; }
  static __device__ __forceinline__ float store (C c) { return c; }
};

template <> struct Tr<double>
{
  typedef double C;
  static constexpr bool fp = true;
  static __device__ __forceinline__ C load (double x) { return x; }
  static __device__ __forceinline__ double store (C c) { return c; }
};

template <> struct Tr<__half>
{
  typedef float C;
  static constexpr bool fp = true;
  static __device__ __forceinline__ C load (__half x) { return __half2float (x); }
  static __device__ __forceinline__ __half store (C c) { return __float2half_rn (c); }
};

template <> struct Tr<__nv_bfloat16>
{
  typedef float C;
  static constexpr bool fp = true;
  static __device__ __forceinline__ C load (__nv_bfloat16 x) { return __bfloat162float (x); }
  static __device__ __forceinline__ __nv_bfloat16 store (C c) { return __float2bfloat16_rn (c); }
};

template <typename I> struct TrInt
{
  typedef int64_t C;
  static constexpr bool fp = false;
  static __device__ __forceinline__ C load (I x) { return (int64_t)x; }
  static __device__ __forceinline__ I
  store (C c)
  {
    return (I)(typename std::make_unsigned<I>::type)(uint64_t)c;
  }
};

template <> struct Tr<int64_t> : TrInt<int64_t> {};
template <> struct Tr<int32_t> : TrInt<int32_t> {};
template <> struct Tr<int16_t> : TrInt<int16_t> {};
template <> struct Tr<int8_t> : TrInt<int8_t> {};
template <> struct Tr<uint8_t> : TrInt<uint8_t> {};

template <> struct Tr<tsbool>
{
  typedef int64_t C;
  static constexpr bool fp = false;
  static __device__ __forceinline__ C load (tsbool x) { return x.v != 0; }
  static __device__ __forceinline__ tsbool store (C c) { tsbool b; b.v = c != 0; return b; }
};

/* A computed value stored as O: O's own conversion, or truthiness for a
 * bool output of any op. */
template <typename O, typename C>
__device__ __forceinline__ O
to_out (C r)
{
  if constexpr (std::is_same<O, tsbool>::value)
    {
      tsbool b;

      b.v = r != C (0);
      return b;
    }
  else
    return Tr<O>::store ((typename Tr<O>::C)r);
}

/* Returns the expression with S the storage type of @dtype. */
#define DISPATCH_ALL(dtype, ...)                                                  \
  switch (dtype)                                                                   \
    {                                                                              \
    case TS_CUDA_FLOAT32:  { typedef float S; return __VA_ARGS__; }                       \
    case TS_CUDA_FLOAT64:  { typedef double S; return __VA_ARGS__; }                      \
    case TS_CUDA_FLOAT16:  { typedef __half S; return __VA_ARGS__; }                      \
    case TS_CUDA_BFLOAT16: { typedef __nv_bfloat16 S; return __VA_ARGS__; }               \
    case TS_CUDA_INT64:    { typedef int64_t S; return __VA_ARGS__; }                     \
    case TS_CUDA_INT32:    { typedef int32_t S; return __VA_ARGS__; }                     \
    case TS_CUDA_INT16:    { typedef int16_t S; return __VA_ARGS__; }                     \
    case TS_CUDA_INT8:     { typedef int8_t S; return __VA_ARGS__; }                      \
    case TS_CUDA_UINT8:    { typedef uint8_t S; return __VA_ARGS__; }                     \
    case TS_CUDA_BOOL:     { typedef tsbool S; return __VA_ARGS__; }                      \
    default:               return cudaErrorInvalidValue;                           \
    }

bool
dtype_is_floating (int dtype)
{
  return dtype == TS_CUDA_FLOAT32 || dtype == TS_CUDA_FLOAT64 || dtype == TS_CUDA_FLOAT16 ||
         dtype == TS_CUDA_BFLOAT16;
}

bool
dtype_is_valid (int dtype)
{
  return dtype >= TS_CUDA_FLOAT32 && dtype <= TS_CUDA_INT16;
}

/* ---- Loads and stores of a run-time dtype (copy, reductions' results) -- */

/* ts_dtype_store's float-to-integer conversion: NaN and values outside
 * int64 give INT64_MIN (x86's "integer indefinite"), the rest truncate. */
__host__ __device__ __forceinline__ int64_t
double_to_int64 (double v)
{
  if (v != v || v >= 9223372036854775808.0 || v < -9223372036854775808.0)
    return INT64_MIN;
  return (int64_t)v;
}

__device__ __forceinline__ double
load_double (int dtype, const void *base, int64_t i)
{
  switch (dtype)
    {
    case TS_CUDA_FLOAT32:  return ((const float *)base)[i];
    case TS_CUDA_FLOAT64:  return ((const double *)base)[i];
    case TS_CUDA_FLOAT16:  return __half2float (((const __half *)base)[i]);
    case TS_CUDA_BFLOAT16: return __bfloat162float (((const __nv_bfloat16 *)base)[i]);
    case TS_CUDA_INT64:    return (double)((const int64_t *)base)[i];
    case TS_CUDA_INT32:    return ((const int32_t *)base)[i];
    case TS_CUDA_UINT8:    return ((const uint8_t *)base)[i];
    case TS_CUDA_INT8:     return ((const int8_t *)base)[i];
    case TS_CUDA_INT16:    return ((const int16_t *)base)[i];
    default:               return ((const uint8_t *)base)[i] != 0;
    }
}

__device__ __forceinline__ bool
is_integral (int dtype)
{
  return dtype == TS_CUDA_INT64 || dtype == TS_CUDA_INT32 || dtype == TS_CUDA_INT16 ||
         dtype == TS_CUDA_INT8 || dtype == TS_CUDA_UINT8 || dtype == TS_CUDA_BOOL;
}

__device__ __forceinline__ int64_t
load_int (int dtype, const void *base, int64_t i)
{
  switch (dtype)
    {
    case TS_CUDA_INT64: return ((const int64_t *)base)[i];
    case TS_CUDA_INT32: return ((const int32_t *)base)[i];
    case TS_CUDA_UINT8: return ((const uint8_t *)base)[i];
    case TS_CUDA_INT8:  return ((const int8_t *)base)[i];
    case TS_CUDA_INT16: return ((const int16_t *)base)[i];
    default:            return ((const uint8_t *)base)[i] != 0;
    }
}

/* Integers stay integers (no trip through double for int64 above 2^53);
 * floats to integers as ts_dtype_store (double_to_int64, then wrap);
 * doubles to float16/bfloat16 through float, as the host rounds. */
__device__ __forceinline__ void
store_value (int dtype, void *base, int64_t i, double d, int64_t v, bool have_int)
{
  int64_t iv = have_int ? v : double_to_int64 (d);

  switch (dtype)
    {
    case TS_CUDA_FLOAT32:  ((float *)base)[i] = (float)d; break;
    case TS_CUDA_FLOAT64:  ((double *)base)[i] = d; break;
    case TS_CUDA_FLOAT16:  ((__half *)base)[i] = __float2half_rn ((float)d); break;
    case TS_CUDA_BFLOAT16: ((__nv_bfloat16 *)base)[i] = __float2bfloat16_rn ((float)d); break;
    case TS_CUDA_INT64:    ((int64_t *)base)[i] = iv; break;
    /* narrowing wraps modulo 2^bits, as on the host */
    case TS_CUDA_INT32:    ((int32_t *)base)[i] = (int32_t)(uint32_t)(uint64_t)iv; break;
    case TS_CUDA_UINT8:    ((uint8_t *)base)[i] = (uint8_t)(uint64_t)iv; break;
    case TS_CUDA_INT8:     ((int8_t *)base)[i] = (int8_t)(uint8_t)(uint64_t)iv; break;
    case TS_CUDA_INT16:    ((int16_t *)base)[i] = (int16_t)(uint16_t)(uint64_t)iv; break;
    default:               ((uint8_t *)base)[i] = have_int ? v != 0 : d != 0.0; break;
    }
}

/* The same conversion on the host, into the dtype's bytes (fill). */
void
encode_value (int dtype, double d, int64_t v, bool have_int, uint64_t *bits)
{
  int64_t iv = have_int ? v : double_to_int64 (d);

  *bits = 0;
  switch (dtype)
    {
    case TS_CUDA_FLOAT32:  { float f = have_int ? (float)(double)v : (float)d; memcpy (bits, &f, 4); break; }
    case TS_CUDA_FLOAT64:  { double x = have_int ? (double)v : d; memcpy (bits, &x, 8); break; }
    case TS_CUDA_FLOAT16:  { __half h = __float2half_rn (have_int ? (float)(double)v : (float)d); memcpy (bits, &h, 2); break; }
    case TS_CUDA_BFLOAT16: { __nv_bfloat16 h = __float2bfloat16_rn (have_int ? (float)(double)v : (float)d); memcpy (bits, &h, 2); break; }
    case TS_CUDA_INT64:    memcpy (bits, &iv, 8); break;
    case TS_CUDA_INT32:    { uint32_t x = (uint32_t)(uint64_t)iv; memcpy (bits, &x, 4); break; }
    case TS_CUDA_INT16:    { uint16_t x = (uint16_t)(uint64_t)iv; memcpy (bits, &x, 2); break; }
    case TS_CUDA_INT8:
    case TS_CUDA_UINT8:    { uint8_t x = (uint8_t)(uint64_t)iv; memcpy (bits, &x, 1); break; }
    default:               { uint8_t x = have_int ? v != 0 : d != 0.0; memcpy (bits, &x, 1); break; }
    }
}

/* ---- Elementwise math ------------------------------------------------- */

__device__ __forceinline__ float m_fmod (float a, float b) { return fmodf (a, b); }
__device__ __forceinline__ double m_fmod (double a, double b) { return fmod (a, b); }
__device__ __forceinline__ float m_floor (float a) { return floorf (a); }
__device__ __forceinline__ double m_floor (double a) { return floor (a); }
__device__ __forceinline__ float m_pow (float a, float b) { return powf (a, b); }
__device__ __forceinline__ double m_pow (double a, double b) { return pow (a, b); }
__device__ __forceinline__ float m_copysign (float a, float b) { return copysignf (a, b); }
__device__ __forceinline__ double m_copysign (double a, double b) { return copysign (a, b); }
__device__ __forceinline__ float m_exp (float a) { return expf (a); }
__device__ __forceinline__ double m_exp (double a) { return exp (a); }
__device__ __forceinline__ float m_log (float a) { return logf (a); }
__device__ __forceinline__ double m_log (double a) { return log (a); }
__device__ __forceinline__ float m_sqrt (float a) { return sqrtf (a); }
__device__ __forceinline__ double m_sqrt (double a) { return sqrt (a); }
__device__ __forceinline__ float m_sin (float a) { return sinf (a); }
__device__ __forceinline__ double m_sin (double a) { return sin (a); }
__device__ __forceinline__ float m_cos (float a) { return cosf (a); }
__device__ __forceinline__ double m_cos (double a) { return cos (a); }
__device__ __forceinline__ float m_tanh (float a) { return tanhf (a); }
__device__ __forceinline__ double m_tanh (double a) { return tanh (a); }
__device__ __forceinline__ float m_fabs (float a) { return fabsf (a); }
__device__ __forceinline__ double m_fabs (double a) { return fabs (a); }
__device__ __forceinline__ float m_nan (float) { return __int_as_float (0x7fc00000); }
__device__ __forceinline__ double m_nan (double) { return __longlong_as_double (0x7ff8000000000000ll); }

/* PyTorch's powi: integer powers, negative exponents give 0 except for
 * bases 1 and -1. */
__device__ __forceinline__ int64_t
powi (int64_t a, int64_t b)
{
  uint64_t result = 1;
  uint64_t base = (uint64_t)a;

  if (b < 0)
    {
      if (a == 1)
        return 1;
      if (a == -1)
        return (b & 1) ? -1 : 1;
      return 0;
    }
  while (b)
    {
      if (b & 1)
        result *= base;
      b >>= 1;
      base *= base;
    }
  return (int64_t)result;
}

/* One binary op in the compute type C; comparisons and logical ops give 0
 * or 1. The float branches are ts-cpu-elementwise.c's DEFINE_FLOAT_BINARY,
 * the integer ones its binary_int (integer math wraps through unsigned;
 * division by zero was ruled out by the caller, and gives 0 here rather
 * than anything undefined). Bitwise ops of floats never get here. */
template <typename C>
__device__ __forceinline__ C
binary_compute (int op, C a, C b)
{
  if constexpr (std::is_floating_point<C>::value)
    {
      switch (op)
        {
        case TS_CUDA_ADD: return a + b;
        case TS_CUDA_SUB: return a - b;
        case TS_CUDA_MUL: return a * b;
        case TS_CUDA_DIV: return a / b;
        case TS_CUDA_FLOOR_DIVIDE:
          {
            C mod, div, fl;

            if (b == C (0))
              return a / b;
            mod = m_fmod (a, b);
            div = (a - mod) / b;
            if (mod != C (0) && (b < C (0)) != (mod < C (0)))
              div -= C (1);
            if (div == C (0))
              return m_copysign (C (0), a / b);
            fl = m_floor (div);
            if (div - fl > C (0.5))
              fl += C (1);
            return fl;
          }
        case TS_CUDA_REMAINDER:
          {
            C mod = m_fmod (a, b);

            if (mod != C (0) && (b < C (0)) != (mod < C (0)))
              mod += b;
            return mod;
          }
        case TS_CUDA_POW: return m_pow (a, b);
        case TS_CUDA_MAXIMUM: return a != a || b != b ? m_nan (a) : (a > b ? a : b);
        case TS_CUDA_MINIMUM: return a != a || b != b ? m_nan (a) : (a < b ? a : b);
        case TS_CUDA_EQ: return a == b;
        case TS_CUDA_NE: return a != b;
        case TS_CUDA_LT: return a < b;
        case TS_CUDA_LE: return a <= b;
        case TS_CUDA_GT: return a > b;
        case TS_CUDA_GE: return a >= b;
        case TS_CUDA_LOGICAL_AND: return a != C (0) && b != C (0);
        case TS_CUDA_LOGICAL_OR: return a != C (0) || b != C (0);
        default: return C (0);
        }
    }
  else
    {
      switch (op)
        {
        case TS_CUDA_ADD: return (int64_t)((uint64_t)a + (uint64_t)b);
        case TS_CUDA_SUB: return (int64_t)((uint64_t)a - (uint64_t)b);
        case TS_CUDA_MUL: return (int64_t)((uint64_t)a * (uint64_t)b);
        case TS_CUDA_FLOOR_DIVIDE:
          {
            int64_t q, r;

            if (b == 0)
              return 0;
            if (b == -1)
              return (int64_t)(0 - (uint64_t)a);
            q = a / b;
            r = a % b;
            if (r != 0 && ((r < 0) != (b < 0)))
              q--;
            return q;
          }
        case TS_CUDA_REMAINDER:
          {
            int64_t r;

            if (b == 0 || b == -1)
              return 0;
            r = a % b;
            if (r != 0 && ((r < 0) != (b < 0)))
              r += b;
            return r;
          }
        case TS_CUDA_POW: return powi (a, b);
        case TS_CUDA_MAXIMUM: return a > b ? a : b;
        case TS_CUDA_MINIMUM: return a < b ? a : b;
        case TS_CUDA_EQ: return a == b;
        case TS_CUDA_NE: return a != b;
        case TS_CUDA_LT: return a < b;
        case TS_CUDA_LE: return a <= b;
        case TS_CUDA_GT: return a > b;
        case TS_CUDA_GE: return a >= b;
        case TS_CUDA_LOGICAL_AND: return a != 0 && b != 0;
        case TS_CUDA_LOGICAL_OR: return a != 0 || b != 0;
        case TS_CUDA_BITWISE_AND: return a & b;
        case TS_CUDA_BITWISE_OR: return a | b;
        case TS_CUDA_BITWISE_XOR: return a ^ b;
        default: return 0;   /* true division of integers: refused on the host */
        }
    }
}

/* ---- Binary ----------------------------------------------------------- */

/* The dense loop: out, a and b row-major over the same n elements, a or b
 * NULL for a scalar operand (its value in sa/sb). With @vector every
 * pointer is aligned to a whole pack. OP >= 0 fixes the op at compile
 * time; -1 reads @op. */
template <typename S, typename O, int OP>
__device__ __forceinline__ void
binary_dense (int op, O *__restrict__ out, const S *__restrict__ a, const S *__restrict__ b,
              typename Tr<S>::C sa, typename Tr<S>::C sb, int64_t n, bool vector)
{
  typedef typename Tr<S>::C C;
  constexpr int V = 16 / sizeof (S);
  const int the_op = OP >= 0 ? OP : op;
  int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  int64_t n_packs = vector ? n / V : 0;

  for (int64_t i = tid; i < n_packs; i += stride)
    {
      Vec<S, V> x, y;
      Vec<O, V> r;

      if (a)
        x = reinterpret_cast<const Vec<S, V> *> (a)[i];
      if (b)
        y = reinterpret_cast<const Vec<S, V> *> (b)[i];
#pragma unroll
      for (int j = 0; j < V; j++)
        r.v[j] = to_out<O, C> (binary_compute<C> (the_op, a ? Tr<S>::load (x.v[j]) : sa,
                                                  b ? Tr<S>::load (y.v[j]) : sb));
      reinterpret_cast<Vec<O, V> *> (out)[i] = r;
    }
  for (int64_t i = n_packs * V + tid; i < n; i += stride)
    out[i] = to_out<O, C> (binary_compute<C> (the_op, a ? Tr<S>::load (a[i]) : sa,
                                              b ? Tr<S>::load (b[i]) : sb));
}

template <typename S, typename O>
__global__ void
binary_dense_kernel (int op, O *out, const S *a, const S *b, typename Tr<S>::C sa,
                     typename Tr<S>::C sb, int64_t n, bool vector)
{
  if constexpr (std::is_same<S, O>::value && !std::is_same<S, tsbool>::value)
    {
      switch (op)
        {
        case TS_CUDA_ADD: binary_dense<S, O, TS_CUDA_ADD> (op, out, a, b, sa, sb, n, vector); return;
        case TS_CUDA_SUB: binary_dense<S, O, TS_CUDA_SUB> (op, out, a, b, sa, sb, n, vector); return;
        case TS_CUDA_MUL: binary_dense<S, O, TS_CUDA_MUL> (op, out, a, b, sa, sb, n, vector); return;
        case TS_CUDA_DIV: binary_dense<S, O, TS_CUDA_DIV> (op, out, a, b, sa, sb, n, vector); return;
        default: break;
        }
    }
  binary_dense<S, O, -1> (op, out, a, b, sa, sb, n, vector);
}

template <typename S, typename O>
__global__ void
binary_strided_kernel (int op, O *out, const S *a, const S *b, typename Tr<S>::C sa,
                       typename Tr<S>::C sb, Iter it)
{
  typedef typename Tr<S>::C C;
  int64_t stride = (int64_t)gridDim.x * blockDim.x;

  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.numel; i += stride)
    {
      int64_t off[MAX_OPS];

      iter_offsets (it, i, off);
      out[off[0]] = to_out<O, C> (binary_compute<C> (op, a ? Tr<S>::load (a[off[1]]) : sa,
                                                     b ? Tr<S>::load (b[off[2]]) : sb));
    }
}

/* A scalar operand's value as the CPU kernels see it: rounded to the
 * operands' dtype first (a float16 op with 0.1 uses half (0.1)), integers
 * wrapped to it, bool as truthiness. */
template <typename S>
typename Tr<S>::C
scalar_value (const TsCudaView *v)
{
  if constexpr (std::is_same<S, float>::value)
    return (float)v->dvalue;
  else if constexpr (std::is_same<S, double>::value)
    return v->dvalue;
  else if constexpr (std::is_same<S, __half>::value)
    return __half2float (__float2half_rn ((float)v->dvalue));
  else if constexpr (std::is_same<S, __nv_bfloat16>::value)
    return __bfloat162float (__float2bfloat16_rn ((float)v->dvalue));
  else if constexpr (std::is_same<S, tsbool>::value)
    return v->ivalue != 0;
  else
    return (int64_t)(S)(typename std::make_unsigned<S>::type)(uint64_t)v->ivalue;
}

template <typename S, typename O>
int
launch_binary (int op, const TsCudaView *out, const TsCudaView *a, const TsCudaView *b,
               cudaStream_t stream)
{
  typedef typename Tr<S>::C C;
  constexpr int V = 16 / sizeof (S);
  const TsCudaView *ops[] = { out, a, b };
  bool a_scalar = is_scalar (a), b_scalar = is_scalar (b);
  C sa = a_scalar ? scalar_value<S> (a) : C (0);
  C sb = b_scalar ? scalar_value<S> (b) : C (0);
  int64_t n = numel (out);
  Iter it;

  if (n == 0)
    return cudaSuccess;
  if (out->data == NULL || (!a_scalar && a->data == NULL) || (!b_scalar && b->data == NULL))
    return cudaErrorInvalidValue;
  if (is_contiguous (out) && (a_scalar || (is_contiguous (a) && numel (a) == n)) &&
      (b_scalar || (is_contiguous (b) && numel (b) == n)))
    {
      O *o = (O *)out->data + out->offset;
      const S *x = a_scalar ? NULL : (const S *)a->data + a->offset;
      const S *y = b_scalar ? NULL : (const S *)b->data + b->offset;
      bool vector = aligned_to (o, V * sizeof (O)) && aligned_to (x, 16) && aligned_to (y, 16);

      binary_dense_kernel<S, O><<<(grid_of<binary_dense_kernel<S, O>> (vector ? n / V + 1 : n)), BLOCK, 0, stream>>> (
          op, o, x, y, sa, sb, n, vector);
      return cudaGetLastError ();
    }
  if (!iter_init (&it, ops, 3))
    return cudaErrorInvalidValue;
  binary_strided_kernel<S, O><<<(grid_of<binary_strided_kernel<S, O>> (n)), BLOCK, 0, stream>>> (
      op, (O *)out->data, a_scalar ? NULL : (const S *)a->data, b_scalar ? NULL : (const S *)b->data,
      sa, sb, it);
  return cudaGetLastError ();
}

/* What ts_binary_check and the compute dtype rules leave to a kernel of
 * one dtype: bitwise ops need integers or bool, true division floats
 * (the caller casts integers), and bool has no subtraction. */
bool
binary_supported (int op, int dtype)
{
  bool floating = dtype_is_floating (dtype);

  if (op >= TS_CUDA_BITWISE_AND && op <= TS_CUDA_BITWISE_XOR)
    return !floating;
  if (op == TS_CUDA_DIV)
    return floating;
  if (op == TS_CUDA_SUB)
    return dtype != TS_CUDA_BOOL;
  return true;
}

template <typename S>
int
dispatch_binary (int op, const TsCudaView *out, const TsCudaView *a, const TsCudaView *b,
                 cudaStream_t stream)
{
  if (out->dtype == a->dtype)
    return launch_binary<S, S> (op, out, a, b, stream);
  if constexpr (!std::is_same<S, tsbool>::value)
    if (out->dtype == TS_CUDA_BOOL)
      return launch_binary<S, tsbool> (op, out, a, b, stream);
  return TS_CUDA_ERROR_NOT_SUPPORTED;
}

/* ---- Unary ------------------------------------------------------------ */

/* ts-cpu-elementwise.c's DEFINE_FLOAT_UNARY (floating C) and the integer
 * neg/abs/relu of its unary_loop (int64 C, wrapping). logical_not is x == 0
 * for every C (NaN is true, so its not is false). */
template <typename C>
__device__ __forceinline__ C
unary_compute (int op, C x)
{
  if (op == TS_CUDA_LOGICAL_NOT)
    return x == C (0);
  if constexpr (std::is_floating_point<C>::value)
    {
      switch (op)
        {
        case TS_CUDA_NEG:        return -x;
        case TS_CUDA_ABS:        return m_fabs (x);
        case TS_CUDA_EXP:        return m_exp (x);
        case TS_CUDA_LOG:        return m_log (x);
        case TS_CUDA_SQRT:       return m_sqrt (x);
        case TS_CUDA_SIN:        return m_sin (x);
        case TS_CUDA_COS:        return m_cos (x);
        case TS_CUDA_TANH:       return m_tanh (x);
        case TS_CUDA_SIGMOID:    return C (1) / (C (1) + m_exp (-x));
        case TS_CUDA_RELU:       return x != x ? x : (x > C (0) ? x : C (0));  /* NaN stays */
        default:                 return C (1) / x;                              /* reciprocal */
        }
    }
  else
    {
      switch (op)
        {
        case TS_CUDA_NEG: return (int64_t)(0 - (uint64_t)x);
        case TS_CUDA_ABS: return x < 0 ? (int64_t)(0 - (uint64_t)x) : x;
        default:          return x > 0 ? x : 0;   /* relu; the host refuses the rest */
        }
    }
}

template <typename S, typename O>
__global__ void
unary_dense_kernel (int op, O *__restrict__ out, const S *__restrict__ in, int64_t n, bool vector)
{
  typedef typename Tr<S>::C C;
  constexpr int V = 16 / sizeof (S);
  int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  int64_t n_packs = vector ? n / V : 0;

  for (int64_t i = tid; i < n_packs; i += stride)
    {
      Vec<S, V> x = reinterpret_cast<const Vec<S, V> *> (in)[i];
      Vec<O, V> r;

#pragma unroll
      for (int j = 0; j < V; j++)
        r.v[j] = to_out<O, C> (unary_compute<C> (op, Tr<S>::load (x.v[j])));
      reinterpret_cast<Vec<O, V> *> (out)[i] = r;
    }
  for (int64_t i = n_packs * V + tid; i < n; i += stride)
    out[i] = to_out<O, C> (unary_compute<C> (op, Tr<S>::load (in[i])));
}

template <typename S, typename O>
__global__ void
unary_strided_kernel (int op, O *out, const S *in, Iter it)
{
  typedef typename Tr<S>::C C;
  int64_t stride = (int64_t)gridDim.x * blockDim.x;

  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.numel; i += stride)
    {
      int64_t off[MAX_OPS];

      iter_offsets (it, i, off);
      out[off[0]] = to_out<O, C> (unary_compute<C> (op, Tr<S>::load (in[off[1]])));
    }
}

template <typename S, typename O>
int
launch_unary (int op, const TsCudaView *out, const TsCudaView *in, cudaStream_t stream)
{
  constexpr int V = 16 / sizeof (S);
  const TsCudaView *ops[] = { out, in };
  int64_t n = numel (out);
  Iter it;

  if (n == 0)
    return cudaSuccess;
  if (out->data == NULL || in->data == NULL)
    return cudaErrorInvalidValue;
  if (is_contiguous (out) && is_contiguous (in) && numel (in) == n)
    {
      O *o = (O *)out->data + out->offset;
      const S *x = (const S *)in->data + in->offset;
      bool vector = aligned_to (o, V * sizeof (O)) && aligned_to (x, 16);

      unary_dense_kernel<S, O><<<(grid_of<unary_dense_kernel<S, O>> (vector ? n / V + 1 : n)), BLOCK, 0, stream>>> (
          op, o, x, n, vector);
      return cudaGetLastError ();
    }
  if (!iter_init (&it, ops, 2))
    return cudaErrorInvalidValue;
  unary_strided_kernel<S, O><<<(grid_of<unary_strided_kernel<S, O>> (n)), BLOCK, 0, stream>>> (op, (O *)out->data,
                                                                  (const S *)in->data, it);
  return cudaGetLastError ();
}

template <typename S>
int
dispatch_unary (int op, const TsCudaView *out, const TsCudaView *in, cudaStream_t stream)
{
  if (op == TS_CUDA_LOGICAL_NOT)
    {
      if (out->dtype != TS_CUDA_BOOL)
        return TS_CUDA_ERROR_NOT_SUPPORTED;
      return launch_unary<S, tsbool> (op, out, in, stream);
    }
  if constexpr (std::is_same<S, tsbool>::value)
    return TS_CUDA_ERROR_NOT_SUPPORTED;   /* neg/abs/relu of bool: the host's error */
  else
    {
      if (out->dtype != in->dtype)
        return TS_CUDA_ERROR_NOT_SUPPORTED;
      if (!Tr<S>::fp && op != TS_CUDA_NEG && op != TS_CUDA_ABS && op != TS_CUDA_RELU)
        return TS_CUDA_ERROR_NOT_SUPPORTED;   /* the caller casts integers to float first */
      return launch_unary<S, S> (op, out, in, stream);
    }
}

/* ---- Fill, copy, arange ----------------------------------------------- */

/* Fills work on the value's bytes (encoded on the host), so one kernel per
 * element size serves every dtype. */
template <typename T>
__global__ void
fill_contiguous (T *out, T value, int64_t n, bool vector)
{
  constexpr int V = 16 / sizeof (T);
  int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  int64_t n_packs = vector ? n / V : 0;
  Pack<T> p;

#pragma unroll
  for (int j = 0; j < V; j++)
    p.v[j] = value;
  for (int64_t i = tid; i < n_packs; i += stride)
    reinterpret_cast<Pack<T> *> (out)[i] = p;
  for (int64_t i = n_packs * V + tid; i < n; i += stride)
    out[i] = value;
}

template <typename T>
__global__ void
fill_strided (T *out, T value, Iter it)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;

  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.numel; i += stride)
    {
      int64_t off[MAX_OPS];

      iter_offsets (it, i, off);
      out[off[0]] = value;
    }
}

template <typename T>
int
launch_fill (const TsCudaView *out, uint64_t bits, cudaStream_t stream)
{
  constexpr int V = 16 / sizeof (T);
  const TsCudaView *ops[] = { out };
  int64_t n = numel (out);
  T value;
  Iter it;

  memcpy (&value, &bits, sizeof value);   /* little-endian: the low bytes */
  if (n == 0)
    return cudaSuccess;
  if (out->data == NULL)
    return cudaErrorInvalidValue;
  if (is_contiguous (out))
    {
      T *o = (T *)out->data + out->offset;
      bool vector = aligned_to (o, 16);

      fill_contiguous<T><<<(grid_of<fill_contiguous<T>> (vector ? n / V + 1 : n)), BLOCK, 0, stream>>> (o, value, n, vector);
      return cudaGetLastError ();
    }
  iter_init (&it, ops, 1);
  fill_strided<T><<<(grid_of<fill_strided<T>> (n)), BLOCK, 0, stream>>> ((T *)out->data, value, it);
  return cudaGetLastError ();
}

int
fill_bits (const TsCudaView *out, uint64_t bits, cudaStream_t stream)
{
  switch (dtype_size (out->dtype))
    {
    case 8:  return launch_fill<uint64_t> (out, bits, stream);
    case 4:  return launch_fill<uint32_t> (out, bits, stream);
    case 2:  return launch_fill<uint16_t> (out, bits, stream);
    default: return launch_fill<uint8_t> (out, bits, stream);
    }
}

/* Any dtype to any dtype: integers through int64, floats through double
 * (every value of every dtype survives the trip), stored as the CPU's
 * ts_dtype_store / ts_dtype_store_int do. */
__global__ void
copy_kernel (int out_dtype, void *out, int in_dtype, const void *in, Iter it)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  bool ints = is_integral (in_dtype);

  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.numel; i += stride)
    {
      int64_t off[MAX_OPS];

      iter_offsets (it, i, off);
      if (ints)
        {
          int64_t v = load_int (in_dtype, in, off[1]);

          store_value (out_dtype, out, off[0], (double)v, v, true);
        }
      else
        store_value (out_dtype, out, off[0], load_double (in_dtype, in, off[1]), 0, false);
    }
}

/* A strided copy within one dtype: the bytes, one element size each. */
template <typename T>
__global__ void
copy_same_kernel (T *out, const T *in, Iter it)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;

  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.numel; i += stride)
    {
      int64_t off[MAX_OPS];

      iter_offsets (it, i, off);
      out[off[0]] = in[off[1]];
    }
}

/* out[i] = start + i * step as ts_cpu_arange: in double for float64, in
 * float for float32/16/bf16 (then rounded once), in wrapping int64 from the
 * truncated start and step for integers and bool. The explicit roundings
 * keep nvcc from fusing the multiply-add, which the host does not do. */
__global__ void
arange_kernel (int dtype, void *out, Iter it, bool contiguous, double start, double step)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  bool floating = dtype == TS_CUDA_FLOAT32 || dtype == TS_CUDA_FLOAT64 ||
                  dtype == TS_CUDA_FLOAT16 || dtype == TS_CUDA_BFLOAT16;
  int64_t s0 = floating ? 0 : (int64_t)start;
  int64_t st = floating ? 0 : (int64_t)step;

  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.numel; i += stride)
    {
      int64_t off[MAX_OPS] = { i + it.offset[0], 0, 0 };

      if (!contiguous)
        iter_offsets (it, i, off);
      if (dtype == TS_CUDA_FLOAT64)
        store_value (dtype, out, off[0], __dadd_rn (start, __dmul_rn (step, (double)i)), 0, false);
      else if (floating)
        store_value (dtype, out, off[0],
                     __fadd_rn ((float)start, __fmul_rn ((float)step, (float)i)), 0, false);
      else
        store_value (dtype, out, off[0], 0.0,
                     (int64_t)((uint64_t)s0 + (uint64_t)st * (uint64_t)i), true);
    }
}

/* ---- Reductions ------------------------------------------------------- */

/* Accumulators: double for floating inputs, int64 (wrapping) for integers
 * and bool, as ts_cpu_reduce. amax/amin propagate NaN: once the
 * accumulator is NaN it stays, and a NaN input replaces a number. */
template <typename S>
using AccOf = typename std::conditional<Tr<S>::fp, double, int64_t>::type;

template <typename A>
__device__ __forceinline__ A
red_identity (int op)
{
  if constexpr (std::is_same<A, double>::value)
    {
      switch (op)
        {
        case TS_CUDA_PROD: return 1.0;
        case TS_CUDA_AMAX: return __longlong_as_double (0xfff0000000000000ll);   /* -inf */
        case TS_CUDA_AMIN: return __longlong_as_double (0x7ff0000000000000ll);   /* +inf */
        default:           return 0.0;
        }
    }
  else
    {
      switch (op)
        {
        case TS_CUDA_PROD: return 1;
        case TS_CUDA_AMAX: return INT64_MIN;
        case TS_CUDA_AMIN: return INT64_MAX;
        default:           return 0;
        }
    }
}

template <typename A>
__device__ __forceinline__ A
red_combine (int op, A acc, A x)
{
  if constexpr (std::is_same<A, double>::value)
    {
      switch (op)
        {
        case TS_CUDA_PROD: return acc * x;
        case TS_CUDA_AMAX: return acc != acc ? acc : (x != x || x > acc ? x : acc);
        case TS_CUDA_AMIN: return acc != acc ? acc : (x != x || x < acc ? x : acc);
        default:           return acc + x;
        }
    }
  else
    {
      switch (op)
        {
        case TS_CUDA_PROD: return (int64_t)((uint64_t)acc * (uint64_t)x);
        case TS_CUDA_AMAX: return x > acc ? x : acc;
        case TS_CUDA_AMIN: return x < acc ? x : acc;
        default:           return (int64_t)((uint64_t)acc + (uint64_t)x);
        }
    }
}

/* The result into element @i of @out (any dtype: sum/prod of integers go
 * to int64, the rest to the input's dtype); mean divides by @count in
 * double (0 / 0 is NaN, as the CPU's count == 0 case). */
template <typename A>
__device__ __forceinline__ void
store_acc (int op, int dtype, void *out, int64_t i, A acc, int64_t count)
{
  if constexpr (std::is_same<A, double>::value)
    store_value (dtype, out, i, op == TS_CUDA_MEAN ? acc / (double)count : acc, 0, false);
  else
    store_value (dtype, out, i, (double)acc, acc, true);
}

/* Lane 0 gets the warp's result. The tree is fixed, so results do not
 * depend on timing. */
template <typename A>
__device__ __forceinline__ A
warp_reduce (int op, A value)
{
  for (int delta = 16; delta > 0; delta /= 2)
    value = red_combine<A> (op, value, __shfl_down_sync (0xffffffffu, value, delta));
  return value;
}

/* Thread 0 gets the block's result (blocks of BLOCK threads). */
template <typename A>
__device__ A
block_reduce (int op, A value)
{
  __shared__ A warp_results[BLOCK / 32];
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;

  value = warp_reduce<A> (op, value);
  if (lane == 0)
    warp_results[warp] = value;
  __syncthreads ();
  value = threadIdx.x < BLOCK / 32 ? warp_results[threadIdx.x] : red_identity<A> (op);
  if (warp == 0)
    value = warp_reduce<A> (op, value);
  return value;
}

/* Everything into one value, pass 1: each block reduces a grid-stride
 * share into partial[block]; 16-byte loads when contiguous and aligned. */
template <typename S>
__global__ void
reduce_all_pass1 (int op, const S *in, Iter it, bool contiguous, bool vector, AccOf<S> *partial)
{
  typedef AccOf<S> A;
  constexpr int V = 16 / sizeof (S);
  int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  int64_t n = it.numel;
  int64_t n_packs = vector ? n / V : 0;
  const S *base = in + it.offset[0];
  A acc = red_identity<A> (op);

  for (int64_t i = tid; i < n_packs; i += stride)
    {
      Vec<S, V> p = reinterpret_cast<const Vec<S, V> *> (base)[i];

#pragma unroll
      for (int j = 0; j < V; j++)
        acc = red_combine<A> (op, acc, (A)Tr<S>::load (p.v[j]));
    }
  for (int64_t i = n_packs * V + tid; i < n; i += stride)
    {
      int64_t off[MAX_OPS] = { i + it.offset[0], 0, 0 };

      if (!contiguous)
        iter_offsets (it, i, off);
      acc = red_combine<A> (op, acc, (A)Tr<S>::load (in[off[0]]));
    }
  acc = block_reduce<A> (op, acc);
  if (threadIdx.x == 0)
    partial[blockIdx.x] = acc;
}

/* Pass 2: one block reduces the partials in a fixed order. */
template <typename A>
__global__ void
reduce_all_pass2 (int op, const A *partial, int n_partial, int64_t count, int out_dtype, void *out,
                  int64_t out_offset)
{
  A acc = red_identity<A> (op);

  for (int i = threadIdx.x; i < n_partial; i += blockDim.x)
    acc = red_combine<A> (op, acc, partial[i]);
  acc = block_reduce<A> (op, acc);
  if (threadIdx.x == 0)
    store_acc<A> (op, out_dtype, out, out_offset, acc, count);
}

/* The reduced dims (merged where one steps evenly into the next), walked
 * by a linear index k < numel. */
struct Red
{
  int     ndim;
  int64_t numel;
  int64_t shape[TS_CUDA_MAX_DIMS];
  int64_t strides[TS_CUDA_MAX_DIMS];
};

__device__ __forceinline__ int64_t
red_offset (const Red &r, int64_t k)
{
  int64_t off = 0;

  if (r.ndim == 1)
    return k * r.strides[0];
  for (int d = r.ndim - 1; d >= 0; d--)
    {
      off += (k % r.shape[d]) * r.strides[d];
      k /= r.shape[d];
    }
  return off;
}

/* Reduced dims that include the input's fastest one: a warp per (output,
 * split of the reduced elements), lanes reading neighbours. Items are
 * output * splits + split. With one split the warp stores the result,
 * otherwise its partial. @kit walks the outputs: operand 0 is @out, 1 the
 * input at the output's coordinates. */
template <typename S>
__global__ void
reduce_inner_kernel (int op, const S *in, Iter kit, Red red, int64_t chunk, int64_t splits,
                     AccOf<S> *partial, int out_dtype, void *out)
{
  typedef AccOf<S> A;
  int lane = threadIdx.x % 32;
  int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int64_t n_warps = (int64_t)gridDim.x * blockDim.x / 32;
  int64_t items = kit.numel * splits;

  for (int64_t item = warp; item < items; item += n_warps)
    {
      int64_t m = item / splits, s = item % splits;
      int64_t lo = s * chunk, hi = lo + chunk < red.numel ? lo + chunk : red.numel;
      int64_t off[MAX_OPS];
      A acc = red_identity<A> (op);

      iter_offsets (kit, m, off);
      for (int64_t k = lo + lane; k < hi; k += 32)
        acc = red_combine<A> (op, acc, (A)Tr<S>::load (in[off[1] + red_offset (red, k)]));
      acc = warp_reduce<A> (op, acc);
      if (lane == 0)
        {
          if (splits == 1)
            store_acc<A> (op, out_dtype, out, off[0], acc, red.numel);
          else
            partial[item] = acc;
        }
    }
}

/* The fastest input dim is kept: a thread per (output, split), neighbours
 * reading neighbouring outputs' elements. Items are split * outputs +
 * output; partials are stored as output * splits + split. */
template <typename S>
__global__ void
reduce_outer_kernel (int op, const S *in, Iter kit, Red red, int64_t chunk, int64_t splits,
                     AccOf<S> *partial, int out_dtype, void *out)
{
  typedef AccOf<S> A;
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  int64_t items = kit.numel * splits;

  for (int64_t item = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; item < items; item += stride)
    {
      int64_t m = item % kit.numel, s = item / kit.numel;
      int64_t lo = s * chunk, hi = lo + chunk < red.numel ? lo + chunk : red.numel;
      int64_t off[MAX_OPS];
      A acc = red_identity<A> (op);

      iter_offsets (kit, m, off);
      for (int64_t k = lo; k < hi; k++)
        acc = red_combine<A> (op, acc, (A)Tr<S>::load (in[off[1] + red_offset (red, k)]));
      if (splits == 1)
        store_acc<A> (op, out_dtype, out, off[0], acc, red.numel);
      else
        partial[m * splits + s] = acc;
    }
}

/* The partials of each output in split order (fixed, so deterministic). */
template <typename A>
__global__ void
reduce_finish_kernel (int op, const A *partial, int64_t splits, Iter kit, int64_t count,
                      int out_dtype, void *out)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;

  for (int64_t m = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; m < kit.numel; m += stride)
    {
      int64_t off[MAX_OPS];
      A acc = red_identity<A> (op);

      for (int64_t s = 0; s < splits; s++)
        acc = red_combine<A> (op, acc, partial[m * splits + s]);
      iter_offsets (kit, m, off);
      store_acc<A> (op, out_dtype, out, off[0], acc, count);
    }
}

template <typename S>
int
launch_reduce_all (int op, const TsCudaView *out, const TsCudaView *in, cudaStream_t stream)
{
  typedef AccOf<S> A;
  constexpr int V = 16 / sizeof (S);
  const TsCudaView *ops[] = { in };
  bool contiguous = is_contiguous (in);
  bool vector = contiguous && aligned_to ((const S *)in->data + in->offset, 16);
  unsigned grid;
  A *partial = NULL;
  Iter it;
  int err;

  iter_init (&it, ops, 1);
  grid = grid_of<reduce_all_pass1<S>> (vector ? it.numel / V + 1 : it.numel);
  if ((err = cudaMallocAsync ((void **)&partial, grid * sizeof (A), stream)) != cudaSuccess)
    return err;
  reduce_all_pass1<S><<<grid, BLOCK, 0, stream>>> (op, (const S *)in->data, it, contiguous, vector,
                                                   partial);
  reduce_all_pass2<A><<<1, BLOCK, 0, stream>>> (op, partial, (int)grid, it.numel, out->dtype,
                                                out->data, out->offset);
  err = cudaGetLastError ();
  cudaFreeAsync (partial, stream);
  return err;
}

template <typename S>
int
launch_reduce_dims (int op, const TsCudaView *out, const TsCudaView *in, uint64_t mask,
                    cudaStream_t stream)
{
  typedef AccOf<S> A;
  TsCudaView in_kept = *in;
  const TsCudaView *ops[] = { out, &in_kept };
  int64_t fastest_stride = INT64_MAX, splits, chunk, target;
  bool inner = false;
  A *partial = NULL;
  Red red;
  Iter kit;
  int err;

  /* The reduced dims, outermost first, merged where contiguous. */
  red.ndim = 0;
  red.numel = 1;
  for (int d = 0; d < in->ndim; d++)
    {
      if (!(mask & (1ull << d)))
        continue;
      in_kept.shape[d] = 1;
      red.numel *= in->shape[d];
      if (in->shape[d] == 1)
        continue;
      if (red.ndim > 0 && red.strides[red.ndim - 1] == in->strides[d] * in->shape[d])
        {
          red.shape[red.ndim - 1] *= in->shape[d];
          red.strides[red.ndim - 1] = in->strides[d];
        }
      else
        {
          red.shape[red.ndim] = in->shape[d];
          red.strides[red.ndim] = in->strides[d];
          red.ndim++;
        }
    }
  if (red.ndim == 0)
    {
      red.ndim = 1;
      red.shape[0] = 1;
      red.strides[0] = 0;
    }
  /* Inner when the input's smallest stride (of a dim longer than 1) is a
   * reduced dim's. */
  for (int d = 0; d < in->ndim; d++)
    if (in->shape[d] > 1 && in->strides[d] < fastest_stride)
      {
        fastest_stride = in->strides[d];
        inner = (mask & (1ull << d)) != 0;
      }
  if (!iter_init (&kit, ops, 2))
    return cudaErrorInvalidValue;
  if (kit.numel == 0)
    return cudaSuccess;

  /* Split the reduced elements when there are too few outputs to fill the
   * device (with at least 1024 elements per warp split, 64 per thread). */
  if (inner)
    {
      target = (int64_t)sm_count () * 64;   /* resident warps */
      splits = (target + kit.numel - 1) / kit.numel;
      splits = splits < (red.numel + 1023) / 1024 ? splits : (red.numel + 1023) / 1024;
    }
  else
    {
      target = (int64_t)sm_count () * 2048;  /* resident threads */
      splits = (target + kit.numel - 1) / kit.numel;
      splits = splits < (red.numel + 63) / 64 ? splits : (red.numel + 63) / 64;
    }
  if (splits < 1)
    splits = 1;
  chunk = (red.numel + splits - 1) / splits;
  if (chunk < 1)
    chunk = 1;
  splits = (red.numel + chunk - 1) / chunk;
  if (splits < 1)
    splits = 1;

  if (splits > 1 &&
      (err = cudaMallocAsync ((void **)&partial, kit.numel * splits * sizeof (A), stream)) != cudaSuccess)
    return err;
  if (inner)
    reduce_inner_kernel<S><<<(grid_of<reduce_inner_kernel<S>> (kit.numel * splits * 32)), BLOCK, 0, stream>>> (
        op, (const S *)in->data, kit, red, chunk, splits, partial, out->dtype, out->data);
  else
    reduce_outer_kernel<S><<<(grid_of<reduce_outer_kernel<S>> (kit.numel * splits)), BLOCK, 0, stream>>> (
        op, (const S *)in->data, kit, red, chunk, splits, partial, out->dtype, out->data);
  if (splits > 1)
    reduce_finish_kernel<A><<<(grid_of<reduce_finish_kernel<A>> (kit.numel)), BLOCK, 0, stream>>> (
        op, partial, splits, kit, red.numel, out->dtype, out->data);
  err = cudaGetLastError ();
  if (partial != NULL)
    cudaFreeAsync (partial, stream);
  return err;
}

/* @out in the keepdim shape; a result without the reduced dims is given
 * them back (size 1, stride 0), as the CPU kernel accepts both. */
bool
reduce_out_kept (const TsCudaView *in, uint64_t mask, const TsCudaView *out, TsCudaView *kept)
{
  int n_kept = 0;

  for (int d = 0; d < in->ndim; d++)
    n_kept += !(mask & (1ull << d));
  *kept = *out;
  if (out->ndim == in->ndim)
    {
      for (int d = 0; d < in->ndim; d++)
        if (out->shape[d] != ((mask & (1ull << d)) ? 1 : in->shape[d]))
          return false;
      return true;
    }
  if (out->ndim != n_kept)
    return false;
  kept->ndim = in->ndim;
  for (int d = in->ndim - 1, j = out->ndim - 1; d >= 0; d--)
    {
      if (mask & (1ull << d))
        {
          kept->shape[d] = 1;
          kept->strides[d] = 0;
        }
      else
        {
          if (out->shape[j] != in->shape[d])
            return false;
          kept->shape[d] = out->shape[j];
          kept->strides[d] = out->strides[j];
          j--;
        }
    }
  return true;
}

template <typename S>
int
launch_reduce (int op, const TsCudaView *out, const TsCudaView *in, uint64_t dim_mask,
               cudaStream_t stream)
{
  uint64_t all = in->ndim >= 64 ? ~0ull : (1ull << in->ndim) - 1;
  uint64_t mask = dim_mask == 0 ? all : dim_mask & all;
  TsCudaView kept;
  int64_t kept_numel = 1;

  if (op == TS_CUDA_MEAN && !Tr<S>::fp)
    return TS_CUDA_ERROR_NOT_SUPPORTED;   /* the host raises mean()'s dtype error */
  if (!reduce_out_kept (in, mask, out, &kept) || (in->data == NULL && numel (in) != 0) ||
      (out->data == NULL && numel (out) != 0))
    return cudaErrorInvalidValue;
  for (int d = 0; d < in->ndim; d++)
    {
      if ((mask & (1ull << d)) && in->shape[d] == 0 && (op == TS_CUDA_AMAX || op == TS_CUDA_AMIN))
        return cudaErrorInvalidValue;   /* "Expected reduction dim ... non-zero size" */
      if (!(mask & (1ull << d)))
        kept_numel *= in->shape[d];
    }
  if (kept_numel == 0)
    return cudaSuccess;
  if (kept_numel == 1)
    {
      if (numel (in) == 0 && (op == TS_CUDA_AMAX || op == TS_CUDA_AMIN))
        return cudaErrorInvalidValue;
      return launch_reduce_all<S> (op, &kept, in, stream);
    }
  return launch_reduce_dims<S> (op, &kept, in, mask, stream);
}

/* ---- max/min along a dim ---------------------------------------------- */

/* A thread per output walks the dim in order, as ts_cpu_max_dim: a later
 * element wins only when strictly better, so the first extreme wins; a
 * NaN wins over numbers and stops the walk, so the first NaN wins.
 * Operands of @it: values, indices, the input at the outputs' coordinates. */
template <typename S>
__global__ void
max_dim_kernel (S *values, int64_t *indices, const S *in, Iter it, int64_t size, int64_t stride,
                bool is_min)
{
  typedef typename Tr<S>::C C;
  int64_t grid_stride = (int64_t)gridDim.x * blockDim.x;

  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.numel; i += grid_stride)
    {
      int64_t off[MAX_OPS];
      int64_t best = 0;
      C bv;

      iter_offsets (it, i, off);
      bv = Tr<S>::load (in[off[2]]);
      for (int64_t j = 1; j < size && bv == bv; j++)
        {
          C x = Tr<S>::load (in[off[2] + j * stride]);

          if (x != x || (is_min ? x < bv : x > bv))
            {
              bv = x;
              best = j;
            }
        }
      values[off[0]] = Tr<S>::store (bv);
      indices[off[1]] = best;
    }
}

/* A result in the keepdim shape, or without @dim (given back as size 1). */
bool
expand_reduced (const TsCudaView *in, int dim, const TsCudaView *reduced, TsCudaView *x)
{
  *x = *reduced;
  if (in->ndim == 0)
    return numel (reduced) == 1;
  if (reduced->ndim + 1 == in->ndim)
    {
      for (int d = in->ndim - 1; d > dim; d--)
        {
          x->shape[d] = reduced->shape[d - 1];
          x->strides[d] = reduced->strides[d - 1];
        }
      x->shape[dim] = 1;
      x->strides[dim] = 0;
      x->ndim = in->ndim;
    }
  if (x->ndim != in->ndim)
    return false;
  for (int d = 0; d < in->ndim; d++)
    if (x->shape[d] != (d == dim ? 1 : in->shape[d]))
      return false;
  return true;
}

template <typename S>
int
launch_max_dim (const TsCudaView *values, const TsCudaView *indices, const TsCudaView *in, int dim,
                bool is_min, cudaStream_t stream)
{
  TsCudaView vx, ix, rows = *in;
  const TsCudaView *ops[] = { &vx, &ix, &rows };
  int64_t size = 1, stride = 0;
  Iter it;

  if (!expand_reduced (in, dim, values, &vx) || !expand_reduced (in, dim, indices, &ix))
    return cudaErrorInvalidValue;
  if (in->ndim > 0)
    {
      size = in->shape[dim];
      stride = in->strides[dim];
      rows.shape[dim] = 1;
    }
  if (size == 0)
    return cudaErrorInvalidValue;   /* "Expected reduction dim ... non-zero size" */
  if (in->ndim == 0)
    {
      /* One element: every view is read and written at its offset. */
      vx.ndim = ix.ndim = 0;
    }
  if (!iter_init (&it, ops, 3))
    return cudaErrorInvalidValue;
  if (it.numel == 0)
    return cudaSuccess;
  if (in->data == NULL || values->data == NULL || indices->data == NULL)
    return cudaErrorInvalidValue;
  max_dim_kernel<S><<<(grid_of<max_dim_kernel<S>> (it.numel)), BLOCK, 0, stream>>> (
      (S *)values->data, (int64_t *)indices->data, (const S *)in->data, it, size, stride, is_min);
  return cudaGetLastError ();
}

/* ---- Index ops -------------------------------------------------------- */

/* A bad index fails as in PyTorch's own kernels: their CUDA_KERNEL_ASSERT
 * is assert(), which nvcc turns into this device call. It prints
 *
 *   FILE:LINE: FUNCTION: block: [x,y,z], thread: [x,y,z] Assertion `MESSAGE` failed.
 *
 * for the calling thread and stops the kernel; the context's error becomes
 * the sticky cudaErrorAssert (710). We pass PyTorch's file, line, kernel
 * and condition (those of PyTorch 2.1, as src/core/ts-device-assert.c
 * prints them for the simulated kernels) and launch with PyTorch's grids,
 * so a run here prints what PyTorch's would. CUDA's headers declare it
 * only for NVRTC. */
extern "C" __device__ void __assertfail (const char *message, const char *file, unsigned line,
                                         const char *function, size_t char_size);

#define INDEXING_FILE "../aten/src/ATen/native/cuda/Indexing.cu"
#define INDEX_SELECT_COND "srcIndex < srcSelectDimSize"
#define GATHER_FILE "../aten/src/ATen/native/cuda/ScatterGatherKernel.cu"
#define GATHER_LINE 144
#define GATHER_COND "idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\""

/* PyTorch's index kernels' threads per block; its index_select grids stop
 * at 8 blocks per SM (grid-stride loops past that). */
#define INDEX_BLOCK 128
#define INDEX_BLOCKS_PER_SM 8
/* index_select with at most this many indices: the small-index kernel. */
#define SMALL_INDEX_MAX 16
/* gather: each thread takes GATHER_WORK elements INDEX_BLOCK apart. */
#define GATHER_WORK 4

/* The output of index_select seen as (outer, n_index, inner), row-major:
 * the element of slice element @e (outer and inner coordinates merged) and
 * index @j. */
__device__ __forceinline__ int64_t
select_element (int64_t e, int64_t j, int64_t n_index, int64_t inner)
{
  return ((e / inner) * n_index + j) * inner + e % inner;
}

template <typename T>
__device__ __forceinline__ void
select_one (T *out, const T *in, const Iter &it, int64_t element, int64_t idx, int64_t in_dim_stride)
{
  int64_t off[MAX_OPS];

  iter_offsets (it, element, off);
  /* Operand 1 has stride 0 on the selected dim: add the selected row. */
  out[off[0]] = in[off[1] + idx * in_dim_stride];
}

/* indexSelectLargeIndex's loop: one thread per output element, the index
 * major (index j's slice is contiguous in the thread numbering) or minor
 * as PyTorch picks. The index is unsigned there: a negative one fails the
 * same check. */
template <typename T, typename I>
__global__ void
index_select_large_kernel (T *out, const T *in, const I *index, int64_t index_stride,
                           int64_t index_offset, Iter it, int64_t n_index, int64_t inner,
                           bool index_major, int64_t size, int64_t in_dim_stride)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  int64_t slice = it.numel / n_index;

  for (int64_t l = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; l < it.numel; l += stride)
    {
      int64_t j = index_major ? l / slice : l % n_index;
      int64_t e = index_major ? l % slice : l / n_index;
      int64_t idx = (int64_t)index[index_offset + j * index_stride];

      if (idx < 0 || idx >= size)
        {
          __assertfail (INDEX_SELECT_COND, INDEXING_FILE, 1292, "indexSelectLargeIndex", sizeof (char));
          return;
        }
      select_one<T> (out, in, it, select_element (e, j, n_index, inner), idx, in_dim_stride);
    }
}

/* indexSelectSmallIndex's loop: one thread per slice element, each
 * walking the (few) indices in order. */
template <typename T, typename I>
__global__ void
index_select_small_kernel (T *out, const T *in, const I *index, int64_t index_stride,
                           int64_t index_offset, Iter it, int64_t n_index, int64_t inner,
                           int64_t size, int64_t in_dim_stride)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  int64_t slice = it.numel / n_index;

  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < slice; e += stride)
    for (int64_t j = 0; j < n_index; j++)
      {
        int64_t idx = (int64_t)index[index_offset + j * index_stride];

        if (idx < 0 || idx >= size)
          {
            __assertfail (INDEX_SELECT_COND, INDEXING_FILE, 1236, "indexSelectSmallIndex", sizeof (char));
            return;
          }
        select_one<T> (out, in, it, select_element (e, j, n_index, inner), idx, in_dim_stride);
      }
}

/* PyTorch's elementwise gather: blocks of INDEX_BLOCK threads, thread t
 * of block b taking elements b * INDEX_BLOCK * GATHER_WORK + t + k *
 * INDEX_BLOCK, k < GATHER_WORK, in row-major order of the index. */
template <typename T, typename I>
__global__ void
gather_kernel (T *out, const T *in, const I *index, Iter it, int64_t size, int64_t in_dim_stride)
{
  int64_t e = (int64_t)blockIdx.x * (INDEX_BLOCK * GATHER_WORK) + threadIdx.x;

  for (int k = 0; k < GATHER_WORK && e < it.numel; k++, e += INDEX_BLOCK)
    {
      int64_t off[MAX_OPS];
      int64_t idx;

      iter_offsets (it, e, off);
      idx = (int64_t)index[off[2]];
      if (idx < 0 || idx >= size)
        {
          __assertfail (GATHER_COND, GATHER_FILE, GATHER_LINE, "operator()", sizeof (char));
          return;
        }
      out[off[0]] = in[off[1] + idx * in_dim_stride];
    }
}

/* The input seen at the output's coordinates, with @dim taken out (stride
 * 0) so the kernel adds index * stride itself. */
TsCudaView
without_dim (const TsCudaView *in, const TsCudaView *out, int dim)
{
  TsCudaView v = *in;

  for (int d = 0; d < v.ndim; d++)
    v.shape[d] = out->shape[d];
  v.strides[dim] = 0;
  return v;
}

bool
iter_init_exact (Iter *it, const TsCudaView *const *ops, int n_ops)
{
  /* Like iter_init but the operands' strides are taken as given (no
   * broadcasting rule: a zero stride is meant). */
  const TsCudaView *out = ops[0];

  iter_init_shape (it, out, n_ops);
  for (int k = 0; k < n_ops; k++)
    {
      if (ops[k]->ndim != out->ndim)
        return false;
      it->offset[k] = ops[k]->offset;
      for (int d = 0; d < out->ndim; d++)
        it->strides[k][d] = ops[k]->strides[d];
    }
  return true;
}

/* PyTorch's index_select grid for @n work items: blocks of up to
 * INDEX_BLOCK threads, at most INDEX_BLOCKS_PER_SM per SM. */
void
index_grid (int64_t n, unsigned *grid, unsigned *block)
{
  int64_t blocks = (n + INDEX_BLOCK - 1) / INDEX_BLOCK;
  int64_t cap = (int64_t)sm_count () * INDEX_BLOCKS_PER_SM;

  *grid = (unsigned)(blocks < cap ? blocks : cap);
  *block = (unsigned)(n < INDEX_BLOCK ? n : INDEX_BLOCK);
}

/* PyTorch's indexShouldBeMajor: the index is the major loop when some
 * other dim of the output is laid out tighter than the selected one. */
bool
index_is_major (const TsCudaView *out, int dim)
{
  for (int d = 0; d < out->ndim; d++)
    if (d != dim && out->shape[d] > 1 && out->strides[d] < out->strides[dim])
      return true;
  return false;
}

template <typename T, typename I>
int
launch_index_select (const TsCudaView *out, const TsCudaView *in, int dim, const TsCudaView *index,
                     cudaStream_t stream)
{
  TsCudaView src = without_dim (in, out, dim);
  const TsCudaView *ops[] = { out, &src };
  int64_t n_index = numel (index);
  int64_t index_stride = index->ndim == 1 ? index->strides[0] : 0;
  int64_t inner = 1;
  unsigned grid, block;
  Iter it;

  if (dim < 0 || dim >= in->ndim || index->ndim > 1 || out->ndim != in->ndim ||
      out->shape[dim] != n_index || !iter_init_exact (&it, ops, 2))
    return cudaErrorInvalidValue;
  for (int d = 0; d < in->ndim; d++)
    if (d != dim && out->shape[d] != in->shape[d])
      return cudaErrorInvalidValue;
  if (it.numel == 0)
    return cudaSuccess;
  for (int d = dim + 1; d < out->ndim; d++)
    inner *= out->shape[d];
  /* PyTorch's choice: few indices (and 32-bit index math) take the
   * small-index kernel, over the slice; the rest the large-index one. */
  if (n_index <= SMALL_INDEX_MAX && it.numel <= INT32_MAX && numel (in) <= INT32_MAX)
    {
      index_grid (it.numel / n_index, &grid, &block);
      index_select_small_kernel<T, I><<<grid, block, 0, stream>>> (
          (T *)out->data, (const T *)in->data, (const I *)index->data, index_stride, index->offset,
          it, n_index, inner, in->shape[dim], in->strides[dim]);
    }
  else
    {
      index_grid (it.numel, &grid, &block);
      index_select_large_kernel<T, I><<<grid, block, 0, stream>>> (
          (T *)out->data, (const T *)in->data, (const I *)index->data, index_stride, index->offset,
          it, n_index, inner, index_is_major (out, dim), in->shape[dim], in->strides[dim]);
    }
  return cudaGetLastError ();
}

template <typename T, typename I>
int
launch_gather (const TsCudaView *out, const TsCudaView *in, int dim, const TsCudaView *index,
               cudaStream_t stream)
{
  TsCudaView src = without_dim (in, out, dim);
  const TsCudaView *ops[] = { out, &src, index };
  const int64_t per_block = INDEX_BLOCK * GATHER_WORK;
  Iter it;

  if (dim < 0 || dim >= in->ndim || !iter_init_exact (&it, ops, 3))
    return cudaErrorInvalidValue;
  for (int d = 0; d < in->ndim; d++)
    if (out->shape[d] != index->shape[d] || (d != dim && index->shape[d] > in->shape[d]))
      return cudaErrorInvalidValue;
  if (it.numel == 0)
    return cudaSuccess;
  if ((it.numel + per_block - 1) / per_block > INT32_MAX)
    return cudaErrorInvalidConfiguration;
  gather_kernel<T, I><<<(unsigned)((it.numel + per_block - 1) / per_block), INDEX_BLOCK, 0, stream>>> (
      (T *)out->data, (const T *)in->data, (const I *)index->data, it, in->shape[dim],
      in->strides[dim]);
  return cudaGetLastError ();
}

/* The element size picks T (index ops move bytes), the index dtype I. */
template <typename T>
int
index_op (bool gather, const TsCudaView *out, const TsCudaView *in, int dim,
          const TsCudaView *index, cudaStream_t stream)
{
  if (out->dtype != in->dtype)
    return cudaErrorInvalidValue;
  if (index->dtype == TS_CUDA_INT64)
    return gather ? launch_gather<T, int64_t> (out, in, dim, index, stream)
                  : launch_index_select<T, int64_t> (out, in, dim, index, stream);
  if (index->dtype == TS_CUDA_INT32)
    return gather ? launch_gather<T, int32_t> (out, in, dim, index, stream)
                  : launch_index_select<T, int32_t> (out, in, dim, index, stream);
  return cudaErrorInvalidValue;   /* "Expected dtype int32/int64 for index" */
}

int
dispatch_index (bool gather, const TsCudaView *out, const TsCudaView *in, int dim,
                const TsCudaView *index, cudaStream_t stream)
{
  clear_stale_error ();
  if (in->ndim == 0)
    return TS_CUDA_ERROR_NOT_SUPPORTED;   /* 0-dim input: the host path */
  switch (dtype_size (in->dtype))
    {
    case 8:  return index_op<uint64_t> (gather, out, in, dim, index, stream);
    case 4:  return index_op<uint32_t> (gather, out, in, dim, index, stream);
    case 2:  return index_op<uint16_t> (gather, out, in, dim, index, stream);
    default: return index_op<uint8_t> (gather, out, in, dim, index, stream);
    }
}

/* ---- Philox4x32-10 (as src/core/ts-philox.c, i.e. curand) -------------- */

struct Philox
{
  uint32_t ctr[4];
  uint32_t key[2];
  uint32_t out[4];
  unsigned word;
};

__device__ __forceinline__ void
philox_block (const uint32_t ctr_in[4], const uint32_t key_in[2], uint32_t out[4])
{
  uint32_t c0 = ctr_in[0], c1 = ctr_in[1], c2 = ctr_in[2], c3 = ctr_in[3];
  uint32_t k0 = key_in[0], k1 = key_in[1];

#pragma unroll
  for (int round = 0; round < 10; round++)
    {
      uint32_t hi0 = __umulhi (0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
      uint32_t hi1 = __umulhi (0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;

      if (round > 0)
        {
          k0 += 0x9E3779B9u;
          k1 += 0xBB67AE85u;
        }
      c0 = hi1 ^ c1 ^ k0;
      c2 = hi0 ^ c3 ^ k1;
      c1 = lo1;
      c3 = lo0;
    }
  out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
}

__device__ __forceinline__ void
counter_add (uint32_t ctr[4], uint64_t n)
{
  uint32_t nlo = (uint32_t)n, nhi = (uint32_t)(n >> 32);

  ctr[0] += nlo;
  if (ctr[0] < nlo)
    nhi++;
  ctr[1] += nhi;
  if (nhi <= ctr[1])
    return;
  if (++ctr[2])
    return;
  ++ctr[3];
}

/* curand_init (seed, subsequence, offset). */
__device__ __forceinline__ void
philox_init (Philox *s, uint64_t seed, uint64_t subsequence, uint64_t offset)
{
  uint32_t nlo = (uint32_t)subsequence, nhi = (uint32_t)(subsequence >> 32);

  s->ctr[0] = s->ctr[1] = s->ctr[2] = s->ctr[3] = 0;
  s->key[0] = (uint32_t)seed;
  s->key[1] = (uint32_t)(seed >> 32);
  s->ctr[2] += nlo;
  if (s->ctr[2] < nlo)
    nhi++;
  s->ctr[3] += nhi;
  s->word = (unsigned)(offset & 3);
  counter_add (s->ctr, offset / 4);
  philox_block (s->ctr, s->key, s->out);
}

/* curand4: the current block (from the current word on), then step. */
__device__ __forceinline__ void
philox_next4 (Philox *s, uint32_t w[4])
{
  uint32_t old[4] = { s->out[0], s->out[1], s->out[2], s->out[3] };

  counter_add (s->ctr, 1);
  philox_block (s->ctr, s->key, s->out);
  for (unsigned i = 0; i < 4; i++)
    w[i] = s->word + i < 4 ? old[s->word + i] : s->out[s->word + i - 4];
}

#define TWO_POW32_INV      (2.3283064e-10f)
#define TWO_POW32_INV_2PI  (2.3283064e-10f * 6.2831855f)
#define TWO_POW53_INV      (1.1102230246251565e-16)

__global__ void
random_kernel (int dist, int dtype, void *out, Iter it, double a, double b,
               uint64_t seed, uint64_t offset, bool contiguous)
{
  int64_t threads = (int64_t)gridDim.x * blockDim.x;
  int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int unroll = dtype == TS_CUDA_FLOAT64 ? 2 : 4;
  int64_t n = it.numel;
  float from_f = (float)a, to_f = (float)b, range_f = (float)(b - a);
  Philox s;

  if (t >= n)
    return;
  philox_init (&s, seed, (uint64_t)t, offset);
  for (int64_t li0 = t; li0 < n; li0 += threads * unroll)
    {
      uint32_t w[4];
      double v[4];

      philox_next4 (&s, w);
      if (dtype == TS_CUDA_FLOAT64)
        {
          for (int j = 0; j < 2; j++)
            {
              uint64_t z = (uint64_t)w[2 * j] ^ ((uint64_t)w[2 * j + 1] << (53 - 32));

              v[j] = (double)z * TWO_POW53_INV + (TWO_POW53_INV / 2.0);
            }
          if (dist == TS_CUDA_NORMAL)
            {
              uint64_t zy = (uint64_t)w[2] ^ ((uint64_t)w[3] << (53 - 32));
              double u = v[0];
              double vv = (double)zy * (TWO_POW53_INV * 2.0) + TWO_POW53_INV;
              double r = sqrt (-2.0 * log (u));

              v[0] = sin (vv * 3.1415926535897932) * r * b + a;
              v[1] = cos (vv * 3.1415926535897932) * r * b + a;
            }
          else
            for (int j = 0; j < 2; j++)
              {
                double x = v[j] * (b - a) + a;

                v[j] = x == b ? a : x;
              }
        }
      else
        {
          if (dist == TS_CUDA_NORMAL)
            for (int j = 0; j < 4; j += 2)
              {
                float u = (float)w[j] * TWO_POW32_INV + (TWO_POW32_INV / 2);
                float vv = (float)w[j + 1] * TWO_POW32_INV_2PI + (TWO_POW32_INV_2PI / 2);
                float r = sqrtf (-2.0f * logf (u));

                v[j] = sinf (vv) * r * (float)b + (float)a;
                v[j + 1] = cosf (vv) * r * (float)b + (float)a;
              }
          else
            for (int j = 0; j < 4; j++)
              {
                float x = ((float)w[j] * TWO_POW32_INV + (TWO_POW32_INV / 2.0f)) * range_f + from_f;

                v[j] = x == to_f ? from_f : x;
              }
        }

      for (int u = 0; u < unroll; u++)
        {
          int64_t li = li0 + u * threads;
          int64_t off[MAX_OPS] = { li + it.offset[0], 0, 0 };

          if (li >= n)
            break;
          if (!contiguous)
            iter_offsets (it, li, off);
          store_value (dtype, out, off[0], v[u], 0, false);
        }
    }
}

/* ---- cuBLAS ----------------------------------------------------------- */

cublasHandle_t
blas_handle (void)
{
  static cublasHandle_t handles[64];
  int device = 0;

  cudaGetDevice (&device);
  if (device < 0 || device >= 64)
    return NULL;
  if (handles[device] == NULL && cublasCreate (&handles[device]) != CUBLAS_STATUS_SUCCESS)
    return NULL;
  return handles[device];
}

/* A row-major view seen by column-major cuBLAS: X (r x c) with strides
 * (ld, 1) is X^T with leading dimension ld; with strides (1, ld) it is X
 * itself, so we ask for its transpose. */
bool
blas_operand (const TsCudaView *v, cublasOperation_t *op, int *ld)
{
  if (v->strides[1] == 1 || v->shape[1] == 1)
    {
      *op = CUBLAS_OP_N;
      *ld = (int)(v->strides[0] > v->shape[1] ? v->strides[0] : v->shape[1]);
      return true;
    }
  if (v->strides[0] == 1 || v->shape[0] == 1)
    {
      *op = CUBLAS_OP_T;
      *ld = (int)(v->strides[1] > v->shape[0] ? v->strides[1] : v->shape[0]);
      return true;
    }
  return false;
}

/* ---- The exported table ----------------------------------------------- */

int k_device_count (int *count) { return cudaGetDeviceCount (count); }

int
k_device_info (int device, char *name, int name_len, int *sms, int *cc_major, int *cc_minor,
               uint64_t *total_memory, int *max_threads_per_sm)
{
  cudaDeviceProp prop;
  int err = cudaGetDeviceProperties (&prop, device);

  if (err != cudaSuccess)
    return err;
  snprintf (name, (size_t)name_len, "%s", prop.name);
  *sms = prop.multiProcessorCount;
  *cc_major = prop.major;
  *cc_minor = prop.minor;
  *total_memory = prop.totalGlobalMem;
  *max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  return cudaSuccess;
}

int k_set_device (int device) { return cudaSetDevice (device); }
int k_malloc_device (void **p, uint64_t size) { return cudaMalloc (p, size); }
int k_free_device (void *p) { return cudaFree (p); }
int k_malloc_host (void **p, uint64_t size) { return cudaHostAlloc (p, size, cudaHostAllocDefault); }
int k_free_host (void *p) { return cudaFreeHost (p); }
int k_stream_create (void **s, int priority)
{
  return cudaStreamCreateWithPriority ((cudaStream_t *)s, cudaStreamNonBlocking, priority);
}
int k_stream_destroy (void *s) { return cudaStreamDestroy ((cudaStream_t)s); }
int k_stream_sync (void *s) { return cudaStreamSynchronize ((cudaStream_t)s); }
int k_device_sync (void) { return cudaDeviceSynchronize (); }
int k_memcpy_async (void *dst, const void *src, uint64_t bytes, void *s)
{
  return cudaMemcpyAsync (dst, src, bytes, cudaMemcpyDefault, (cudaStream_t)s);
}
int k_memset_async (void *dst, int value, uint64_t bytes, void *s)
{
  return cudaMemsetAsync (dst, value, bytes, (cudaStream_t)s);
}
const char *k_error_string (int error) { return cudaGetErrorString ((cudaError_t)error); }

/* ---- Device calls (ABI 2) --------------------------------------------- */

int k_get_device (int *device) { return cudaGetDevice (device); }

int
k_mem_get_info (uint64_t *free_bytes, uint64_t *total_bytes)
{
  size_t f = 0, t = 0;
  int err = cudaMemGetInfo (&f, &t);

  *free_bytes = f;
  *total_bytes = t;
  return err;
}

int k_stream_priority_range (int *least, int *greatest)
{
  return cudaDeviceGetStreamPriorityRange (least, greatest);
}
int k_stream_query (void *s) { return cudaStreamQuery ((cudaStream_t)s); }
int k_stream_wait_event (void *s, void *e)
{
  return cudaStreamWaitEvent ((cudaStream_t)s, (cudaEvent_t)e, 0);
}

int
k_event_create (void **event, int flags)
{
  unsigned cuda_flags = cudaEventDefault;

  if (flags & ~(TS_CUDA_EVENT_BLOCKING_SYNC | TS_CUDA_EVENT_DISABLE_TIMING | TS_CUDA_EVENT_INTERPROCESS))
    return cudaErrorInvalidValue;
  if (flags & TS_CUDA_EVENT_BLOCKING_SYNC)
    cuda_flags |= cudaEventBlockingSync;
  if (flags & TS_CUDA_EVENT_DISABLE_TIMING)
    cuda_flags |= cudaEventDisableTiming;
  if (flags & TS_CUDA_EVENT_INTERPROCESS)
    cuda_flags |= cudaEventInterprocess;   /* CUDA requires DisableTiming with it */
  return cudaEventCreateWithFlags ((cudaEvent_t *)event, cuda_flags);
}

int k_event_destroy (void *e) { return cudaEventDestroy ((cudaEvent_t)e); }
int k_event_record (void *e, void *s) { return cudaEventRecord ((cudaEvent_t)e, (cudaStream_t)s); }
int k_event_query (void *e) { return cudaEventQuery ((cudaEvent_t)e); }
int k_event_sync (void *e) { return cudaEventSynchronize ((cudaEvent_t)e); }
int k_event_elapsed (float *ms, void *start, void *end)
{
  return cudaEventElapsedTime (ms, (cudaEvent_t)start, (cudaEvent_t)end);
}

int
k_memcpy_peer_async (void *dst, int dst_device, const void *src, int src_device, uint64_t bytes,
                     void *s)
{
  return cudaMemcpyPeerAsync (dst, dst_device, src, src_device, bytes, (cudaStream_t)s);
}

int k_memcpy_sync (void *dst, const void *src, uint64_t bytes)
{
  return cudaMemcpy (dst, src, bytes, cudaMemcpyDefault);
}

/* The context's error without clearing it. cudaPeekAtLastError reports
 * the last error a runtime call returned, and the sticky ones (a device-
 * side assert: 710, an illegal address: 700) once the faulting kernel has
 * trapped; until then there is nothing to report and 0 is right. So that
 * a trap that no call has met yet is seen too, we ask the driver with
 * cudaStreamQuery on the legacy default stream: it never blocks, and on a
 * poisoned context it returns the sticky error (which then also stays the
 * last error, as it would anyway). Its "not ready" is not an error: the
 * last error was 0 before it, so clearing leaves it as it was (barring a
 * race with another thread's failing call). The query initialises the
 * current device's context if nothing has yet. */
int
k_peek_error (void)
{
  cudaError_t err = cudaPeekAtLastError ();

  if (err != cudaSuccess)
    return err;
  err = cudaStreamQuery (0);
  if (err == cudaErrorNotReady)
    {
      (void)cudaGetLastError ();
      return cudaSuccess;
    }
  return err;
}

/* ---- The exported table: kernels -------------------------------------- */


int
k_fill (const TsCudaView *out, double value, void *stream)
{
  uint64_t bits;

  clear_stale_error ();

  if (!dtype_is_valid (out->dtype))
    return cudaErrorInvalidValue;
  encode_value (out->dtype, value, 0, false, &bits);
  return fill_bits (out, bits, (cudaStream_t)stream);
}

int
k_fill_int (const TsCudaView *out, int64_t value, void *stream)
{
  uint64_t bits;

  clear_stale_error ();

  if (!dtype_is_valid (out->dtype))
    return cudaErrorInvalidValue;
  encode_value (out->dtype, 0.0, value, true, &bits);
  return fill_bits (out, bits, (cudaStream_t)stream);
}

int
k_copy (const TsCudaView *out, const TsCudaView *in, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  const TsCudaView *ops[] = { out, in };
  size_t size = dtype_size (out->dtype);
  Iter it;

  clear_stale_error ();

  if (!dtype_is_valid (out->dtype) || !dtype_is_valid (in->dtype))
    return cudaErrorInvalidValue;
  if (out->dtype == in->dtype && is_contiguous (out) && is_contiguous (in) && numel (out) == numel (in))
    return numel (out) == 0 ? cudaSuccess
                            : cudaMemcpyAsync ((char *)out->data + out->offset * size,
                                               (const char *)in->data + in->offset * size,
                                               numel (out) * size, cudaMemcpyDeviceToDevice, s);
  if (!iter_init (&it, ops, 2))
    return cudaErrorInvalidValue;
  if (it.numel == 0)
    return cudaSuccess;
  if (out->dtype == in->dtype)
    {
      switch (size)
        {
        case 8: copy_same_kernel<uint64_t><<<(grid_of<copy_same_kernel<uint64_t>> (it.numel)), BLOCK, 0, s>>> ((uint64_t *)out->data, (const uint64_t *)in->data, it); break;
        case 4: copy_same_kernel<uint32_t><<<(grid_of<copy_same_kernel<uint32_t>> (it.numel)), BLOCK, 0, s>>> ((uint32_t *)out->data, (const uint32_t *)in->data, it); break;
        case 2: copy_same_kernel<uint16_t><<<(grid_of<copy_same_kernel<uint16_t>> (it.numel)), BLOCK, 0, s>>> ((uint16_t *)out->data, (const uint16_t *)in->data, it); break;
        default: copy_same_kernel<uint8_t><<<(grid_of<copy_same_kernel<uint8_t>> (it.numel)), BLOCK, 0, s>>> ((uint8_t *)out->data, (const uint8_t *)in->data, it); break;
        }
      return cudaGetLastError ();
    }
  copy_kernel<<<(grid_of<copy_kernel> (it.numel)), BLOCK, 0, s>>> (out->dtype, out->data, in->dtype, in->data, it);
  return cudaGetLastError ();
}

int
k_binary (int op, const TsCudaView *out, const TsCudaView *a, const TsCudaView *b, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;

  clear_stale_error ();

  if (op < 0 || op >= TS_CUDA_N_BINARY || a->dtype != b->dtype || !dtype_is_valid (out->dtype))
    return cudaErrorInvalidValue;
  if (!binary_supported (op, a->dtype))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  DISPATCH_ALL (a->dtype, dispatch_binary<S> (op, out, a, b, s))
}

int
k_unary (int op, const TsCudaView *out, const TsCudaView *in, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;

  clear_stale_error ();

  if (op < 0 || op >= TS_CUDA_N_UNARY || !dtype_is_valid (out->dtype))
    return cudaErrorInvalidValue;
  DISPATCH_ALL (in->dtype, dispatch_unary<S> (op, out, in, s))
}

int
k_reduce (int op, const TsCudaView *out, const TsCudaView *in, uint64_t dim_mask, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;

  clear_stale_error ();

  if (op < 0 || op >= TS_CUDA_N_REDUCE || !dtype_is_valid (out->dtype))
    return cudaErrorInvalidValue;
  DISPATCH_ALL (in->dtype, launch_reduce<S> (op, out, in, dim_mask, s))
}

int
k_max_dim (const TsCudaView *values, const TsCudaView *indices, const TsCudaView *in, int dim,
           int is_min, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;

  clear_stale_error ();

  if (indices->dtype != TS_CUDA_INT64 || (in->ndim > 0 && (dim < 0 || dim >= in->ndim)) ||
      (in->ndim == 0 && dim != 0 && dim != -1))
    return cudaErrorInvalidValue;
  if (values->dtype != in->dtype)
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  DISPATCH_ALL (in->dtype, launch_max_dim<S> (values, indices, in, dim, is_min != 0, s))
}

int
k_arange (const TsCudaView *out, double start, double step, void *stream)
{
  const TsCudaView *ops[] = { out };
  Iter it;

  clear_stale_error ();

  if (!dtype_is_valid (out->dtype))
    return cudaErrorInvalidValue;
  iter_init (&it, ops, 1);
  if (it.numel == 0)
    return cudaSuccess;
  if (out->data == NULL)
    return cudaErrorInvalidValue;
  arange_kernel<<<(grid_of<arange_kernel> (it.numel)), BLOCK, 0, (cudaStream_t)stream>>> (
      out->dtype, out->data, it, is_contiguous (out), start, step);
  return cudaGetLastError ();
}

int
k_index_select (const TsCudaView *out, const TsCudaView *in, int dim, const TsCudaView *index,
                void *stream)
{
  return dispatch_index (false, out, in, dim, index, (cudaStream_t)stream);
}

int
k_gather (const TsCudaView *out, const TsCudaView *in, int dim, const TsCudaView *index, void *stream)
{
  return dispatch_index (true, out, in, dim, index, (cudaStream_t)stream);
}

int
k_random (int dist, const TsCudaView *out, double a, double b, uint64_t seed, uint64_t offset,
          void *stream)
{
  const TsCudaView *ops[] = { out };
  int device = 0, max_threads = 2048;
  int64_t blocks, cap;
  Iter it;

  clear_stale_error ();
  if (out->dtype != TS_CUDA_FLOAT32 && out->dtype != TS_CUDA_FLOAT64)
    return cudaErrorInvalidValue;
  iter_init (&it, ops, 1);
  if (it.numel == 0)
    return cudaSuccess;
  /* ts_philox_launch_plan's grid: what PyTorch's distribution kernels use. */
  cudaGetDevice (&device);
  cudaDeviceGetAttribute (&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  blocks = (it.numel + BLOCK - 1) / BLOCK;
  cap = (int64_t)sm_count () * (max_threads / BLOCK);
  random_kernel<<<(unsigned)(blocks < cap ? blocks : cap), BLOCK, 0, (cudaStream_t)stream>>> (
      dist, out->dtype, out->data, it, a, b, seed, offset, is_contiguous (out));
  return cudaGetLastError ();
}

/* torch.backends.cuda.matmul.allow_tf32 as the caller last set it: float32
 * products then take TF32 tensor-core math (PyTorch sets
 * CUBLAS_TF32_TENSOR_OP_MATH on its handle; a compute type says the same). */
static int matmul_allow_tf32;

int
k_set_matmul_tf32 (int allow)
{
  matmul_allow_tf32 = allow != 0;
  return cudaSuccess;
}

/* One strided-batched GEMM for every dtype the matmuls take: float16 and
 * bfloat16 accumulate in float32, as PyTorch's cublasGemmEx calls do.
 * Column-major arguments (the callers swap a and b for row-major). */
static cublasStatus_t
gemm_strided (cublasHandle_t handle, int dtype, cublasOperation_t op_x, cublasOperation_t op_y,
              int n, int m, int k, const void *x, int ldx, long long sx,
              const void *y, int ldy, long long sy, void *out, int ldc, long long sc, int batch,
              bool accumulate)
{
  const float one_f = 1.0f, zero_f = 0.0f;
  const double one_d = 1.0, zero_d = 0.0;
  const void *one = &one_f, *beta = accumulate ? &one_f : &zero_f;
  cudaDataType_t type;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;

  switch (dtype)
    {
    case TS_CUDA_FLOAT32:
      type = CUDA_R_32F;
      if (matmul_allow_tf32)
        compute = CUBLAS_COMPUTE_32F_FAST_TF32;
      break;
    case TS_CUDA_FLOAT64:
      type = CUDA_R_64F;
      compute = CUBLAS_COMPUTE_64F;
      one = &one_d;
      beta = accumulate ? &one_d : &zero_d;
      break;
    case TS_CUDA_FLOAT16:  type = CUDA_R_16F; break;
    case TS_CUDA_BFLOAT16: type = CUDA_R_16BF; break;
    default:
      return CUBLAS_STATUS_NOT_SUPPORTED;
    }
  return cublasGemmStridedBatchedEx (handle, op_x, op_y, n, m, k, one, x, type, ldx, sx, y, type, ldy, sy,
                                     beta, out, type, ldc, sc, batch, compute, CUBLAS_GEMM_DEFAULT);
}

/* Bytes of one element of the dtypes gemm_strided takes. */
static size_t
gemm_elem_size (int dtype)
{
  return dtype == TS_CUDA_FLOAT64 ? 8 : dtype == TS_CUDA_FLOAT32 ? 4 : 2;
}

static int
matmul_2d (const TsCudaView *out, const TsCudaView *a, const TsCudaView *b, void *stream, bool accumulate)
{
  cublasHandle_t handle = blas_handle ();
  cublasOperation_t op_a, op_b;
  int lda, ldb;
  int m, n, k;
  cublasStatus_t status;

  if (handle == NULL)
    return cudaErrorNotSupported;
  if (out->ndim != 2 || a->ndim != 2 || b->ndim != 2 || a->dtype != out->dtype || b->dtype != out->dtype ||
      a->shape[1] != b->shape[0] || out->shape[0] != a->shape[0] || out->shape[1] != b->shape[1] ||
      (out->strides[1] != 1 && out->shape[1] != 1) ||
      !blas_operand (a, &op_a, &lda) || !blas_operand (b, &op_b, &ldb))
    return cudaErrorInvalidValue;
  m = (int)out->shape[0];
  n = (int)out->shape[1];
  k = (int)a->shape[1];
  cublasSetStream (handle, (cudaStream_t)stream);
  /* Row-major C = A B is column-major C^T = B^T A^T. */
  {
    size_t es = gemm_elem_size (out->dtype);

    status = gemm_strided (handle, out->dtype, op_b, op_a, n, m, k,
                           (const char *)b->data + b->offset * es, ldb, 0,
                           (const char *)a->data + a->offset * es, lda, 0,
                           (char *)out->data + out->offset * es,
                           (int)(out->strides[0] > n ? out->strides[0] : n), 0, 1, accumulate);
  }
  return status == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

int
k_matmul (const TsCudaView *out, const TsCudaView *a, const TsCudaView *b, void *stream)
{
  return matmul_2d (out, a, b, stream, false);
}

int
k_matmul_acc (const TsCudaView *out, const TsCudaView *a, const TsCudaView *b, void *stream)
{
  return matmul_2d (out, a, b, stream, true);
}


/* PyTorch's spin_kernel (aten/src/ATen/cuda/Sleep.cu): one thread reads
 * the SM's clock until @cycles have passed. */
__global__ void
spin_kernel (long long cycles)
{
  long long start = clock64 ();

  while (clock64 () - start < cycles)
    ;
}

int
k_spin (int64_t cycles, void *stream)
{
  clear_stale_error ();
  spin_kernel<<<1, 1, 0, (cudaStream_t)stream>>> ((long long)cycles);
  return (int)cudaGetLastError ();
}

/* Batched out[i] = a[i] @ b[i]: each batch's matrices as k_matmul sees
 * them (one stride of each is 1), the batch strides as given (0 repeats
 * one matrix of a or b). Row-major C = A B is column-major C^T = B^T A^T. */
int
k_bmm (const TsCudaView *out, const TsCudaView *a, const TsCudaView *b, void *stream)
{
  cublasHandle_t handle;
  TsCudaView a2, b2, o2;
  cublasOperation_t op_a, op_b;
  int lda, ldb, ldc;
  int batch, m, n, k;
  long long sa, sb, sc;
  cublasStatus_t status;

  if (out->ndim != 3 || a->ndim != 3 || b->ndim != 3 || a->dtype != out->dtype || b->dtype != out->dtype ||
      a->shape[0] != out->shape[0] || b->shape[0] != out->shape[0] || a->shape[2] != b->shape[1] ||
      out->shape[1] != a->shape[1] || out->shape[2] != b->shape[2])
    return cudaErrorInvalidValue;
  if (out->dtype != TS_CUDA_FLOAT32 && out->dtype != TS_CUDA_FLOAT64 &&
      out->dtype != TS_CUDA_FLOAT16 && out->dtype != TS_CUDA_BFLOAT16)
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  if (out->shape[0] > INT32_MAX || out->shape[1] > INT32_MAX || out->shape[2] > INT32_MAX ||
      a->shape[2] > INT32_MAX)
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  batch = (int)out->shape[0];
  m = (int)out->shape[1];
  n = (int)out->shape[2];
  k = (int)a->shape[2];
  if (batch == 0 || m == 0 || n == 0)
    return cudaSuccess;
  if (k == 0)
    return k_fill (out, 0.0, stream);   /* an empty sum: zeros, as torch.bmm */

  /* The matrices of one batch, for blas_operand. */
  a2 = *a; b2 = *b; o2 = *out;
  a2.ndim = b2.ndim = o2.ndim = 2;
  for (int d = 0; d < 2; d++)
    {
      a2.shape[d] = a->shape[d + 1]; a2.strides[d] = a->strides[d + 1];
      b2.shape[d] = b->shape[d + 1]; b2.strides[d] = b->strides[d + 1];
      o2.shape[d] = out->shape[d + 1]; o2.strides[d] = out->strides[d + 1];
    }
  if ((o2.strides[1] != 1 && o2.shape[1] != 1) || !blas_operand (&a2, &op_a, &lda) ||
      !blas_operand (&b2, &op_b, &ldb))
    return TS_CUDA_ERROR_NOT_SUPPORTED;   /* the caller makes them contiguous first */
  ldc = (int)(o2.strides[0] > n ? o2.strides[0] : n);
  /* A batch stride of 0 repeats a or b; out's batches must not overlap. */
  sa = a->shape[0] == 1 ? 0 : a->strides[0];
  sb = b->shape[0] == 1 ? 0 : b->strides[0];
  sc = out->shape[0] == 1 ? (long long)m * ldc : out->strides[0];
  if (batch > 1 && sc < (long long)m * ldc)
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  if ((handle = blas_handle ()) == NULL)
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  cublasSetStream (handle, (cudaStream_t)stream);
  {
    size_t es = gemm_elem_size (out->dtype);

    status = gemm_strided (handle, out->dtype, op_b, op_a, n, m, k,
                           (const char *)b->data + b->offset * es, ldb, sb,
                           (const char *)a->data + a->offset * es, lda, sa,
                           (char *)out->data + out->offset * es, ldc, sc, batch, false);
  }
  return status == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

/* ---- ABI 4: add with alpha, threshold, softmax, nll_loss -------------- */

/* The floating storage types, for the ABI 4 kernels (the others are
 * refused: the caller's dtype rules never send them). */
#define DISPATCH_FLOATING(dtype, ...)                                             \
  switch (dtype)                                                                   \
    {                                                                              \
    case TS_CUDA_FLOAT32:  { typedef float S; return __VA_ARGS__; }                \
    case TS_CUDA_FLOAT64:  { typedef double S; return __VA_ARGS__; }               \
    case TS_CUDA_FLOAT16:  { typedef __half S; return __VA_ARGS__; }               \
    case TS_CUDA_BFLOAT16: { typedef __nv_bfloat16 S; return __VA_ARGS__; }        \
    default:               return TS_CUDA_ERROR_NOT_SUPPORTED;                     \
    }

__device__ __forceinline__ float m_fma (float a, float b, float c) { return fmaf (a, b, c); }
__device__ __forceinline__ double m_fma (double a, double b, double c) { return fma (a, b, c); }
/* a product rounded on its own: no contraction into a later add, where
 * the CPU kernel rounds twice */
__device__ __forceinline__ float m_mul (float a, float b) { return __fmul_rn (a, b); }
__device__ __forceinline__ double m_mul (double a, double b) { return __dmul_rn (a, b); }

/* A host number as the kernel's scalar_t argument, in the compute type:
 * rounded to S first, as Scalar::to<scalar_t> does. */
template <typename S>
typename Tr<S>::C
number_as (double value)
{
  TsCudaView v;

  memset (&v, 0, sizeof v);
  v.dvalue = value;
  return scalar_value<S> (&v);
}

/* The offsets of element @i: row-major positions of contiguous operands,
 * else the iterator's. */
__device__ __forceinline__ void
element_offsets (const Iter &it, bool contiguous, int64_t i, int64_t *off)
{
  if (!contiguous)
    {
      iter_offsets (it, i, off);
      return;
    }
  for (int k = 0; k < it.n_ops; k++)
    off[k] = it.offset[k] + i;
}

bool
all_contiguous (const TsCudaView *const *ops, int n_ops)
{
  for (int k = 0; k < n_ops; k++)
    if (!is_contiguous (ops[k]) || numel (ops[k]) != numel (ops[0]))
      return false;
  return true;
}

/* Tensors of one dtype and shape, with device memory. */
bool
same_tensors (const TsCudaView *const *ops, int n_ops)
{
  for (int k = 0; k < n_ops; k++)
    {
      if (ops[k] == NULL || ops[k]->data == NULL || ops[k]->dtype != ops[0]->dtype ||
          ops[k]->ndim != ops[0]->ndim)
        return false;
      for (int d = 0; d < ops[0]->ndim; d++)
        if (ops[k]->shape[d] != ops[0]->shape[d])
          return false;
    }
  return true;
}

/* PyTorch's add_kernel (ufunc add: self + alpha * other in opmath_t,
 * which nvcc contracts into one fma); sub passes -alpha. */
template <typename S>
__global__ void
binary_alpha_kernel (S *out, const S *a, const S *b, typename Tr<S>::C alpha, Iter it,
                     bool contiguous)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;

  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.numel; i += stride)
    {
      int64_t off[MAX_OPS];

      element_offsets (it, contiguous, i, off);
      out[off[0]] = Tr<S>::store (m_fma (alpha, Tr<S>::load (b[off[2]]), Tr<S>::load (a[off[1]])));
    }
}

template <typename S>
int
launch_binary_alpha (const TsCudaView *out, const TsCudaView *a, const TsCudaView *b, double alpha,
                     cudaStream_t stream)
{
  const TsCudaView *ops[] = { out, a, b };
  Iter it;

  if (!iter_init (&it, ops, 3))
    return cudaErrorInvalidValue;
  if (it.numel == 0)
    return cudaSuccess;
  binary_alpha_kernel<S><<<(grid_of<binary_alpha_kernel<S>> (it.numel)), BLOCK, 0, stream>>> (
      (S *)out->data, (const S *)a->data, (const S *)b->data, number_as<S> (alpha), it,
      all_contiguous (ops, 3));
  return cudaGetLastError ();
}

/* PyTorch's threshold_kernel: x <= threshold ? value : other. */
template <typename S>
__global__ void
threshold_kernel (S *out, const S *x, const S *other, typename Tr<S>::C threshold,
                  typename Tr<S>::C value, Iter it, bool contiguous)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;

  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.numel; i += stride)
    {
      int64_t off[MAX_OPS];

      element_offsets (it, contiguous, i, off);
      out[off[0]] = Tr<S>::load (x[off[1]]) <= threshold ? Tr<S>::store (value) : other[off[2]];
    }
}

template <typename S>
int
launch_threshold (const TsCudaView *out, const TsCudaView *x, const TsCudaView *other,
                  double threshold, double value, cudaStream_t stream)
{
  const TsCudaView *ops[] = { out, x, other };
  Iter it;

  if (!iter_init (&it, ops, 3))
    return cudaErrorInvalidValue;
  if (it.numel == 0)
    return cudaSuccess;
  threshold_kernel<S><<<(grid_of<threshold_kernel<S>> (it.numel)), BLOCK, 0, stream>>> (
      (S *)out->data, (const S *)x->data, (const S *)other->data, number_as<S> (threshold),
      number_as<S> (value), it, all_contiguous (ops, 3));
  return cudaGetLastError ();
}

/* Softmax: one warp per row (rows are what remains of the shape without
 * the softmax's dim), its lanes striding over the row; the maximum (NaN
 * wins) and the sum combine across the warp with shuffles, so every lane
 * holds the same result. */
#define WARP 32

template <typename A>
__device__ __forceinline__ A
warp_max_nan (A v)
{
  for (int o = WARP / 2; o > 0; o /= 2)
    {
      A w = __shfl_xor_sync (0xffffffffu, v, o);

      if (w != w || w > v)
        v = w;
    }
  return v;
}

template <typename A>
__device__ __forceinline__ A
warp_sum (A v)
{
  for (int o = WARP / 2; o > 0; o /= 2)
    v += __shfl_xor_sync (0xffffffffu, v, o);
  return v;
}

/* The rows' iterator: the views with the dim's size set to 1. */
bool
rows_init (Iter *it, const TsCudaView *const *views, int n, int dim)
{
  TsCudaView rows[MAX_OPS];
  const TsCudaView *ops[MAX_OPS];

  for (int k = 0; k < n; k++)
    {
      rows[k] = *views[k];
      if (rows[k].ndim > 0)
        rows[k].shape[dim] = 1;
      ops[k] = &rows[k];
    }
  return iter_init (it, ops, n);
}

/* In the CPU kernel's arithmetic (ts-cpu-softmax.c), A float for every
 * dtype but float64; only the sums' order differs (per lane, then across
 * the warp). */
template <typename A>
__global__ void
softmax_kernel (int out_dtype, void *out, int in_dtype, const void *in, Iter rows, int64_t n,
                int64_t so, int64_t si, bool log)
{
  int lane = threadIdx.x % WARP;
  int64_t n_warps = (int64_t)gridDim.x * blockDim.x / WARP;

  for (int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / WARP; r < rows.numel; r += n_warps)
    {
      int64_t off[MAX_OPS];
      A m = -INFINITY, s = 0;

      iter_offsets (rows, r, off);
      for (int64_t k = lane; k < n; k += WARP)
        {
          A x = (A)load_double (in_dtype, in, off[1] + k * si);

          if (x != x || x > m)
            m = x;
        }
      m = warp_max_nan (m);
      for (int64_t k = lane; k < n; k += WARP)
        s += m_exp ((A)load_double (in_dtype, in, off[1] + k * si) - m);
      s = warp_sum (s);
      for (int64_t k = lane; k < n; k += WARP)
        {
          A x = (A)load_double (in_dtype, in, off[1] + k * si) - m;

          store_value (out_dtype, out, off[0] + k * so, (double)(log ? x - m_log (s) : m_exp (x) / s), 0,
                       false);
        }
    }
}

/* _softmax_backward_data: y * (g - sum (g * y)); the log form
 * g - exp (y) * sum (g). */
template <typename A>
__global__ void
softmax_backward_kernel (int dtype, void *out, const void *grad, const void *output, Iter rows,
                         int64_t n, int64_t so, int64_t sg, int64_t sy, bool log)
{
  int lane = threadIdx.x % WARP;
  int64_t n_warps = (int64_t)gridDim.x * blockDim.x / WARP;

  for (int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / WARP; r < rows.numel; r += n_warps)
    {
      int64_t off[MAX_OPS];
      A s = 0;

      iter_offsets (rows, r, off);
      for (int64_t k = lane; k < n; k += WARP)
        {
          A g = (A)load_double (dtype, grad, off[1] + k * sg);

          s += log ? g : m_mul (g, (A)load_double (dtype, output, off[2] + k * sy));
        }
      s = warp_sum (s);
      for (int64_t k = lane; k < n; k += WARP)
        {
          A g = (A)load_double (dtype, grad, off[1] + k * sg);
          A y = (A)load_double (dtype, output, off[2] + k * sy);

          store_value (dtype, out, off[0] + k * so, (double)(log ? g - m_mul (m_exp (y), s) : y * (g - s)), 0,
                       false);
        }
    }
}

/* The softmax's checks: floating views of one shape, a dim inside it. */
bool
softmax_views_ok (const TsCudaView *const *views, int n, int dim)
{
  for (int k = 0; k < n; k++)
    {
      if (views[k] == NULL || views[k]->data == NULL || !dtype_is_floating (views[k]->dtype) ||
          views[k]->ndim != views[0]->ndim)
        return false;
      for (int d = 0; d < views[0]->ndim; d++)
        if (views[k]->shape[d] != views[0]->shape[d])
          return false;
    }
  return views[0]->ndim == 0 ? dim == 0 : dim >= 0 && dim < views[0]->ndim;
}

int64_t
dim_size (const TsCudaView *v, int dim)
{
  return v->ndim == 0 ? 1 : v->shape[dim];
}

int64_t
dim_stride (const TsCudaView *v, int dim)
{
  return v->ndim == 0 ? 0 : v->strides[dim];
}

/* nll_loss: PyTorch's Loss.cu. Its reducing kernel is one block of
 * NLL_THREADS threads striding over the targets, thread 0 summing their
 * partial sums in order; the acc type is float but for float64. */
#define NLL_THREADS 32
#define LOSS_FILE "../aten/src/ATen/native/cuda/Loss.cu"
/* the line of one PyTorch 2.x release's assert (it moves between
 * releases: 240 to 271 in users' reports) */
#define NLL_LOSS_LINE 250
#define NLL_LOSS_COND "t >= 0 && t < n_classes"

__device__ __forceinline__ bool
nll_target_ok (const TsCudaNllLoss &p, int64_t t, const char *kernel)
{
  if (t >= 0 && t < p.c)
    return true;
  __assertfail (NLL_LOSS_COND, LOSS_FILE, NLL_LOSS_LINE, kernel, sizeof (char));
  return false;
}

/* The input element of sample @i (i = b * s + e) and class @t. */
__device__ __forceinline__ int64_t
nll_element (const TsCudaNllLoss &p, int64_t i, int64_t t)
{
  return ((i / p.s) * p.c + t) * p.s + i % p.s;
}

template <typename A>
__global__ void
nll_loss_none_kernel (TsCudaNllLoss p, int dtype, void *out, const void *self, const int64_t *target,
                      const void *weight)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;

  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n * p.s; i += stride)
    {
      int64_t t = target[i];
      A w;

      if (t == p.ignore_index)
        {
          store_value (dtype, out, i, 0.0, 0, false);
          continue;
        }
      if (!nll_target_ok (p, t, "nll_loss_forward_no_reduce_cuda_kernel"))
        return;
      w = weight != NULL ? (A)load_double (dtype, weight, t) : A (1);
      store_value (dtype, out, i, (double)(-(A)load_double (dtype, self, nll_element (p, i, t)) * w), 0, false);
    }
}

template <typename A>
__global__ void
nll_loss_reduce_kernel (TsCudaNllLoss p, int dtype, void *out, void *total_weight, const void *self,
                        const int64_t *target, const void *weight)
{
  __shared__ A sh_loss[NLL_THREADS], sh_weight[NLL_THREADS];
  A loss = 0, sum_w = 0;

  for (int64_t i = threadIdx.x; i < p.n * p.s; i += NLL_THREADS)
    {
      int64_t t = target[i];
      A w;

      if (t == p.ignore_index)
        continue;
      if (!nll_target_ok (p, t, "nll_loss_forward_reduce_cuda_kernel_2d"))
        return;
      w = weight != NULL ? (A)load_double (dtype, weight, t) : A (1);
      loss -= (A)load_double (dtype, self, nll_element (p, i, t)) * w;
      sum_w += w;
    }
  sh_loss[threadIdx.x] = loss;
  sh_weight[threadIdx.x] = sum_w;
  __syncthreads ();
  if (threadIdx.x == 0)
    {
      A l = 0, tw = 0;

      for (int k = 0; k < NLL_THREADS; k++)
        {
          l += sh_loss[k];
          tw += sh_weight[k];
        }
      /* mean: divided by the total weight, NaN when it is 0 */
      if (p.reduction == 1)
        l /= tw;
      store_value (dtype, out, 0, (double)l, 0, false);
      store_value (dtype, total_weight, 0, (double)tw, 0, false);
    }
}

/* PyTorch's nll_loss_backward kernels: grad_input was zeroed; each
 * sample's target element gets -weight * grad (the reduced grad divided
 * by the total weight for mean). */
template <typename A>
__global__ void
nll_loss_backward_kernel (TsCudaNllLoss p, int dtype, void *grad_input, const void *grad_output,
                          const int64_t *target, const void *weight, const void *total_weight)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  A grad = 0;

  if (p.reduction != 0)
    {
      A g = (A)load_double (dtype, grad_output, 0);

      grad = -(p.reduction == 1 ? g / (A)load_double (dtype, total_weight, 0) : g);
    }
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n * p.s; i += stride)
    {
      int64_t t = target[i];
      A w;

      /* the forward checked the targets */
      if (t == p.ignore_index || t < 0 || t >= p.c)
        continue;
      w = weight != NULL ? (A)load_double (dtype, weight, t) : A (1);
      store_value (dtype, grad_input, nll_element (p, i, t),
                   (double)(p.reduction == 0 ? -w * (A)load_double (dtype, grad_output, i) : w * grad), 0, false);
    }
}

/* The loss's views: contiguous, floating of one dtype, an int64 target of
 * n * s, a weight of c (or none). */
bool
nll_views_ok (const TsCudaNllLoss *p, const TsCudaView *x, const TsCudaView *target,
              const TsCudaView *weight, const TsCudaView *const *others, int n_others)
{
  if (p == NULL || p->n < 0 || p->c < 0 || p->s < 1 || p->reduction < 0 || p->reduction > 2 ||
      x == NULL || target == NULL || x->data == NULL || target->data == NULL ||
      !dtype_is_floating (x->dtype) || target->dtype != TS_CUDA_INT64 || !is_contiguous (x) ||
      !is_contiguous (target) || numel (target) != p->n * p->s)
    return false;
  if (weight != NULL && (weight->dtype != x->dtype || weight->data == NULL || !is_contiguous (weight) ||
                         numel (weight) != p->c))
    return false;
  for (int k = 0; k < n_others; k++)
    if (others[k] == NULL || others[k]->data == NULL || others[k]->dtype != x->dtype ||
        !is_contiguous (others[k]))
      return false;
  return true;
}

const void *
view_base (const TsCudaView *v)
{
  return v == NULL ? NULL : (const char *)v->data + v->offset * dtype_size (v->dtype);
}

template <typename A>
int
launch_nll_loss (const TsCudaNllLoss *p, const TsCudaView *out, const TsCudaView *total_weight,
                 const TsCudaView *self, const TsCudaView *target, const TsCudaView *weight,
                 cudaStream_t stream)
{
  void *o = (void *)view_base (out), *tw = (void *)view_base (total_weight);
  const int64_t *t = (const int64_t *)view_base (target);

  if (p->reduction == 0)
    {
      cudaError_t err = cudaMemsetAsync (tw, 0, dtype_size (self->dtype), stream);

      if (err != cudaSuccess || p->n * p->s == 0)
        return err;
      nll_loss_none_kernel<A><<<(grid_of<nll_loss_none_kernel<A>> (p->n * p->s)), BLOCK, 0, stream>>> (
          *p, self->dtype, o, view_base (self), t, view_base (weight));
      return cudaGetLastError ();
    }
  nll_loss_reduce_kernel<A><<<1, NLL_THREADS, 0, stream>>> (*p, self->dtype, o, tw, view_base (self), t,
                                                             view_base (weight));
  return cudaGetLastError ();
}

template <typename A>
int
launch_nll_loss_backward (const TsCudaNllLoss *p, const TsCudaView *grad_input,
                          const TsCudaView *grad_output, const TsCudaView *target,
                          const TsCudaView *weight, const TsCudaView *total_weight, cudaStream_t stream)
{
  /* zero is all-zero bits in every floating dtype */
  cudaError_t err = cudaMemsetAsync ((void *)view_base (grad_input), 0,
                                     numel (grad_input) * dtype_size (grad_input->dtype), stream);

  if (err != cudaSuccess || p->n * p->s == 0)
    return err;
  nll_loss_backward_kernel<A><<<(grid_of<nll_loss_backward_kernel<A>> (p->n * p->s)), BLOCK, 0, stream>>> (
      *p, grad_input->dtype, (void *)view_base (grad_input), view_base (grad_output),
      (const int64_t *)view_base (target), view_base (weight), view_base (total_weight));
  return cudaGetLastError ();
}

int
k_binary_alpha (int op, const TsCudaView *out, const TsCudaView *a, const TsCudaView *b, double alpha,
                void *stream)
{
  const TsCudaView *ops[] = { out, a, b };

  clear_stale_error ();

  if ((op != TS_CUDA_ADD && op != TS_CUDA_SUB) || !same_tensors (ops, 3))
    return cudaErrorInvalidValue;
  /* PyTorch's sub_kernel is add_kernel with -alpha */
  if (op == TS_CUDA_SUB)
    alpha = -alpha;
  DISPATCH_FLOATING (out->dtype, launch_binary_alpha<S> (out, a, b, alpha, (cudaStream_t)stream))
}

int
k_threshold (const TsCudaView *out, const TsCudaView *self, const TsCudaView *other, double threshold,
             double value, void *stream)
{
  const TsCudaView *ops[] = { out, self, other };

  clear_stale_error ();

  if (!same_tensors (ops, 3))
    return cudaErrorInvalidValue;
  DISPATCH_FLOATING (out->dtype, launch_threshold<S> (out, self, other, threshold, value, (cudaStream_t)stream))
}

int
k_softmax (const TsCudaView *out, const TsCudaView *in, int dim, int log, void *stream)
{
  const TsCudaView *views[] = { out, in };
  cudaStream_t s = (cudaStream_t)stream;
  Iter rows;

  clear_stale_error ();

  /* out has in's dtype, or float32 for a float16 in (half_to_float) */
  if (!softmax_views_ok (views, 2, dim) ||
      (out->dtype != in->dtype && !(in->dtype == TS_CUDA_FLOAT16 && out->dtype == TS_CUDA_FLOAT32)) ||
      !rows_init (&rows, views, 2, dim))
    return cudaErrorInvalidValue;
  if (rows.numel == 0 || dim_size (in, dim) == 0)
    return cudaSuccess;
  if (in->dtype == TS_CUDA_FLOAT64)
    softmax_kernel<double><<<(grid_of<softmax_kernel<double>> (rows.numel * WARP)), BLOCK, 0, s>>> (
        out->dtype, out->data, in->dtype, in->data, rows, dim_size (in, dim), dim_stride (out, dim),
        dim_stride (in, dim), log != 0);
  else
    softmax_kernel<float><<<(grid_of<softmax_kernel<float>> (rows.numel * WARP)), BLOCK, 0, s>>> (
        out->dtype, out->data, in->dtype, in->data, rows, dim_size (in, dim), dim_stride (out, dim),
        dim_stride (in, dim), log != 0);
  return cudaGetLastError ();
}

int
k_softmax_backward (const TsCudaView *out, const TsCudaView *grad, const TsCudaView *output, int dim,
                    int log, void *stream)
{
  const TsCudaView *views[] = { out, grad, output };
  cudaStream_t s = (cudaStream_t)stream;
  Iter rows;

  clear_stale_error ();

  if (!softmax_views_ok (views, 3, dim) || grad->dtype != out->dtype || output->dtype != out->dtype ||
      !rows_init (&rows, views, 3, dim))
    return cudaErrorInvalidValue;
  if (rows.numel == 0 || dim_size (out, dim) == 0)
    return cudaSuccess;
  if (out->dtype == TS_CUDA_FLOAT64)
    softmax_backward_kernel<double><<<(grid_of<softmax_backward_kernel<double>> (rows.numel * WARP)), BLOCK, 0, s>>> (
        out->dtype, out->data, grad->data, output->data, rows, dim_size (out, dim), dim_stride (out, dim),
        dim_stride (grad, dim), dim_stride (output, dim), log != 0);
  else
    softmax_backward_kernel<float><<<(grid_of<softmax_backward_kernel<float>> (rows.numel * WARP)), BLOCK, 0, s>>> (
        out->dtype, out->data, grad->data, output->data, rows, dim_size (out, dim), dim_stride (out, dim),
        dim_stride (grad, dim), dim_stride (output, dim), log != 0);
  return cudaGetLastError ();
}

int
k_nll_loss (const TsCudaNllLoss *p, const TsCudaView *out, const TsCudaView *total_weight,
            const TsCudaView *self, const TsCudaView *target, const TsCudaView *weight, void *stream)
{
  const TsCudaView *others[] = { out, total_weight };

  clear_stale_error ();

  if (!nll_views_ok (p, self, target, weight, others, 2) || numel (self) != p->n * p->c * p->s ||
      numel (out) != (p->reduction == 0 ? p->n * p->s : 1) || numel (total_weight) != 1)
    return cudaErrorInvalidValue;
  if (self->dtype == TS_CUDA_FLOAT64)
    return launch_nll_loss<double> (p, out, total_weight, self, target, weight, (cudaStream_t)stream);
  return launch_nll_loss<float> (p, out, total_weight, self, target, weight, (cudaStream_t)stream);
}

int
k_nll_loss_backward (const TsCudaNllLoss *p, const TsCudaView *grad_input, const TsCudaView *grad_output,
                     const TsCudaView *target, const TsCudaView *weight, const TsCudaView *total_weight,
                     void *stream)
{
  const TsCudaView *others[] = { grad_output, total_weight };

  clear_stale_error ();

  if (!nll_views_ok (p, grad_input, target, weight, others, 2) || numel (grad_input) != p->n * p->c * p->s ||
      numel (grad_output) != (p->reduction == 0 ? p->n * p->s : 1) || numel (total_weight) != 1)
    return cudaErrorInvalidValue;
  if (grad_input->dtype == TS_CUDA_FLOAT64)
    return launch_nll_loss_backward<double> (p, grad_input, grad_output, target, weight, total_weight,
                                             (cudaStream_t)stream);
  return launch_nll_loss_backward<float> (p, grad_input, grad_output, target, weight, total_weight,
                                          (cudaStream_t)stream);
}

/* Convolutions as GEMMs: im2col and its adjoint col2im, one thread per
 * element of the output (col, or the input's gradient), grid-stride. */
struct ConvGeom
{
  TsCudaConv p;
  int64_t    n, c, k, l;                       /* batch, channels, prod (kernel), prod (out) */
  int64_t    size[TS_CUDA_CONV_MAX_SPATIAL];   /* the input's spatial sizes */
};

/* Kernel offset @kk and output position @l (both row-major over their
 * dims) to the input position along each spatial dim; false when the
 * window is in the padding there. */
__device__ __forceinline__ bool
conv_source (const ConvGeom &g, int64_t kk, int64_t l, int64_t *pos)
{
  int64_t spatial = 0;

  for (int d = g.p.n_spatial - 1; d >= 0; d--)
    {
      int64_t kd = kk % g.p.kernel[d], od = l % g.p.out[d];
      int64_t x = od * g.p.stride[d] - g.p.pad[d] + kd * g.p.dilation[d];

      kk /= g.p.kernel[d];
      l /= g.p.out[d];
      if (x < 0 || x >= g.size[d])
        return false;
      pos[d] = x;
    }
  for (int d = 0; d < g.p.n_spatial; d++)
    spatial = spatial * g.size[d] + pos[d];
  *pos = spatial;
  return true;
}

template <typename S>
__global__ void
im2col_kernel (S *col, const S *in, ConvGeom g)
{
  int64_t total = g.n * g.c * g.k * g.l, stride = (int64_t)gridDim.x * blockDim.x;
  int64_t plane = 1;

  for (int d = 0; d < g.p.n_spatial; d++)
    plane *= g.size[d];
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride)
    {
      int64_t l = e % g.l, kk = (e / g.l) % g.k, nc = e / (g.l * g.k);
      int64_t pos[TS_CUDA_CONV_MAX_SPATIAL];

      col[e] = conv_source (g, kk, l, pos) ? in[nc * plane + pos[0]] : Tr<S>::store (0);
    }
}

/* The input element at spatial @x (row-major) receives col[kk][l] for
 * each kernel offset kk whose window position l lands on it. */
template <typename S>
__global__ void
col2im_kernel (S *in_grad, const S *col, ConvGeom g)
{
  typedef typename Tr<S>::C C;
  int64_t plane = 1, stride = (int64_t)gridDim.x * blockDim.x;

  for (int d = 0; d < g.p.n_spatial; d++)
    plane *= g.size[d];
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < g.n * g.c * plane; e += stride)
    {
      int64_t nc = e / plane;
      C sum = 0;

      for (int64_t kk = 0; kk < g.k; kk++)
        {
          int64_t x = e % plane, rest = kk, l = 0, scale = 1;
          bool hit = true;

          for (int d = g.p.n_spatial - 1; d >= 0 && hit; d--)
            {
              int64_t xd = x % g.size[d], kd = rest % g.p.kernel[d];
              int64_t t = xd + g.p.pad[d] - kd * g.p.dilation[d];

              x /= g.size[d];
              rest /= g.p.kernel[d];
              hit = t >= 0 && t % g.p.stride[d] == 0 && t / g.p.stride[d] < g.p.out[d];
              l += (t / g.p.stride[d]) * scale;
              scale *= g.p.out[d];
            }
          if (hit)
            sum += Tr<S>::load (col[(nc * g.k + kk) * g.l + l]);
        }
      in_grad[e] = Tr<S>::store (sum);
    }
}

/* The geometry from @p and the input's view @in (N, C, spatial...), and
 * whether @col is the (N, C * K, L) contiguous buffer it needs. */
bool
conv_geom (const TsCudaConv *p, const TsCudaView *in, const TsCudaView *col, ConvGeom *g)
{
  if (p == NULL || p->n_spatial < 1 || p->n_spatial > TS_CUDA_CONV_MAX_SPATIAL || in == NULL || col == NULL ||
      in->ndim != 2 + p->n_spatial || in->data == NULL || col->data == NULL || in->dtype != col->dtype ||
      !dtype_is_floating (in->dtype) || !is_contiguous (in) || !is_contiguous (col))
    return false;
  g->p = *p;
  g->n = in->shape[0];
  g->c = in->shape[1];
  g->k = g->l = 1;
  for (int d = 0; d < p->n_spatial; d++)
    {
      if (p->kernel[d] < 1 || p->stride[d] < 1 || p->dilation[d] < 1 || p->out[d] < 0 || p->pad[d] < 0)
        return false;
      g->size[d] = in->shape[2 + d];
      g->k *= p->kernel[d];
      g->l *= p->out[d];
    }
  return numel (col) == g->n * g->c * g->k * g->l;
}

template <typename S>
int
launch_im2col (const ConvGeom &g, const TsCudaView *col, const TsCudaView *in, cudaStream_t stream)
{
  int64_t total = g.n * g.c * g.k * g.l;

  if (total == 0)
    return cudaSuccess;
  im2col_kernel<S><<<(grid_of<im2col_kernel<S>> (total)), BLOCK, 0, stream>>> (
      (S *)col->data + col->offset, (const S *)in->data + in->offset, g);
  return cudaGetLastError ();
}

template <typename S>
int
launch_col2im (const ConvGeom &g, const TsCudaView *in_grad, const TsCudaView *col, cudaStream_t stream)
{
  int64_t total = numel (in_grad);

  if (total == 0)
    return cudaSuccess;
  col2im_kernel<S><<<(grid_of<col2im_kernel<S>> (total)), BLOCK, 0, stream>>> (
      (S *)in_grad->data + in_grad->offset, (const S *)col->data + col->offset, g);
  return cudaGetLastError ();
}

/* im2col (@to_col) and col2im: @in is the input, or its gradient */
int
conv_columns (bool to_col, const TsCudaConv *p, const TsCudaView *in, const TsCudaView *col, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  ConvGeom g;

  clear_stale_error ();

  if (!conv_geom (p, in, col, &g))
    return cudaErrorInvalidValue;
  DISPATCH_FLOATING (in->dtype, to_col ? launch_im2col<S> (g, col, in, s) : launch_col2im<S> (g, in, col, s))
}

int
k_im2col (const TsCudaConv *p, const TsCudaView *col, const TsCudaView *in, void *stream)
{
  return conv_columns (true, p, in, col, stream);
}

int
k_col2im (const TsCudaConv *p, const TsCudaView *in_grad, const TsCudaView *col, void *stream)
{
  return conv_columns (false, p, in_grad, col, stream);
}

constexpr TsCudaKernels kernels = {
  TS_CUDA_ABI_VERSION,
  sizeof (TsCudaKernels),
  k_device_count,
  k_device_info,
  k_set_device,
  k_malloc_device,
  k_free_device,
  k_malloc_host,
  k_free_host,
  k_stream_create,
  k_stream_destroy,
  k_stream_sync,
  k_device_sync,
  k_memcpy_async,
  k_memset_async,
  k_error_string,
  k_fill,
  k_copy,
  k_binary,
  k_unary,
  k_reduce,
  k_index_select,
  k_gather,
  k_random,
  k_matmul,
  /* ABI 2 */
  k_get_device,
  k_mem_get_info,
  k_stream_priority_range,
  k_stream_query,
  k_stream_wait_event,
  k_event_create,
  k_event_destroy,
  k_event_record,
  k_event_query,
  k_event_sync,
  k_event_elapsed,
  k_memcpy_peer_async,
  k_memcpy_sync,
  k_peek_error,
  k_arange,
  k_max_dim,
  k_fill_int,
  k_bmm,
  k_spin,
  k_set_matmul_tf32,
  k_matmul_acc,
  /* ABI 4 */
  k_binary_alpha,
  k_threshold,
  k_softmax,
  k_softmax_backward,
  k_nll_loss,
  k_nll_loss_backward,
  k_im2col,
  k_col2im,
};

/* Positional: a missing entry would be NULL, the last one is checked. */
static_assert (kernels.col2im != nullptr, "every TsCudaKernels entry is set");

} /* namespace */

extern "C" __attribute__ ((visibility ("default"))) const TsCudaKernels *
ts_cuda_kernels_get (void)
{
  return &kernels;
}
