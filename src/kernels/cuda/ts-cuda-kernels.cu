/* ts-cuda-kernels.cu: the CUDA backend's kernels and device calls
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One translation unit on purpose (compile time): elementwise ops with
 * broadcasting over strided views, sum/mean/max reductions, index_select
 * and gather with device-side asserts, Philox random numbers, fill, casting
 * copies, and matmul through cuBLAS, exported as a TsCudaKernels table.
 *
 * Bandwidth: every large kernel is a grid-stride loop over a grid sized to
 * fill the device (blocks of 256, at most 8 per SM resident), and the
 * contiguous cases move 16 bytes per load and store (float4-sized packs of
 * any dtype) when every pointer is 16-byte aligned. Strided views fall back
 * to per-element offsets computed from the shape.
 */

#include <assert.h>
#include <stdio.h>
#include <stdint.h>

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

unsigned
grid_for (int64_t work_items)
{
  int64_t blocks = (work_items + BLOCK - 1) / BLOCK;
  int64_t cap = (int64_t)sm_count () * 8;

  if (blocks < 1)
    blocks = 1;
  return (unsigned)(blocks < cap ? blocks : cap);
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

/* Operand 0 is the output; the others broadcast to its shape (NumPy
 * rules: align trailing dimensions, size 1 repeats). */
bool
iter_init (Iter *it, const TsCudaView *const *ops, int n_ops)
{
  const TsCudaView *out = ops[0];

  it->ndim = out->ndim;
  it->n_ops = n_ops;
  it->numel = numel (out);
  for (int d = 0; d < out->ndim; d++)
    it->shape[d] = out->shape[d];
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

bool
aligned16 (const void *p)
{
  return ((uintptr_t)p & 15) == 0;
}

/* ---- Elementwise ------------------------------------------------------ */

template <typename T>
__device__ __forceinline__ T
binary_op (int op, T a, T b)
{
  switch (op)
    {
    case TS_CUDA_ADD: return a + b;
    case TS_CUDA_SUB: return a - b;
    case TS_CUDA_MUL: return a * b;
    default:          return a / b;
    }
}

template <typename T>
__global__ void
binary_contiguous (int op, T *__restrict__ out, const T *__restrict__ a,
                   const T *__restrict__ b, int64_t n, bool vector)
{
  constexpr int V = 16 / sizeof (T);
  int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  int64_t n_packs = vector ? n / V : 0;

  for (int64_t i = tid; i < n_packs; i += stride)
    {
      Pack<T> x = reinterpret_cast<const Pack<T> *> (a)[i];
      Pack<T> y = reinterpret_cast<const Pack<T> *> (b)[i];
      Pack<T> r;

#pragma unroll
      for (int j = 0; j < V; j++)
        r.v[j] = binary_op<T> (op, x.v[j], y.v[j]);
      reinterpret_cast<Pack<T> *> (out)[i] = r;
    }
  for (int64_t i = n_packs * V + tid; i < n; i += stride)
    out[i] = binary_op<T> (op, a[i], b[i]);
}

template <typename T>
__global__ void
binary_strided (int op, T *out, const T *a, const T *b, Iter it)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;

  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.numel; i += stride)
    {
      int64_t off[MAX_OPS];

      iter_offsets (it, i, off);
      out[off[0]] = binary_op<T> (op, a[off[1]], b[off[2]]);
    }
}

template <typename T>
int
launch_binary (int op, const TsCudaView *out, const TsCudaView *a, const TsCudaView *b,
               cudaStream_t stream)
{
  const TsCudaView *ops[] = { out, a, b };
  T *o = (T *)out->data + out->offset;
  const T *x = (const T *)a->data + a->offset;
  const T *y = (const T *)b->data + b->offset;
  int64_t n = numel (out);
  Iter it;

  if (n == 0)
    return cudaSuccess;
  if (is_contiguous (out) && is_contiguous (a) && is_contiguous (b) && numel (a) == n && numel (b) == n)
    {
      bool vector = aligned16 (o) && aligned16 (x) && aligned16 (y);
      int64_t items = vector ? n / (16 / sizeof (T)) + 1 : n;

      binary_contiguous<T><<<grid_for (items), BLOCK, 0, stream>>> (op, o, x, y, n, vector);
      return cudaGetLastError ();
    }
  if (!iter_init (&it, ops, 3))
    return cudaErrorInvalidValue;
  binary_strided<T><<<grid_for (n), BLOCK, 0, stream>>> (op, (T *)out->data, (const T *)a->data,
                                                         (const T *)b->data, it);
  return cudaGetLastError ();
}

template <typename T>
__device__ __forceinline__ T
unary_op (int op, T x)
{
  switch (op)
    {
    case TS_CUDA_NEG:        return -x;
    case TS_CUDA_ABS:        return x < T (0) ? -x : x;
    case TS_CUDA_EXP:        return exp (x);
    case TS_CUDA_LOG:        return log (x);
    case TS_CUDA_SQRT:       return sqrt (x);
    case TS_CUDA_SIN:        return sin (x);
    case TS_CUDA_COS:        return cos (x);
    case TS_CUDA_TANH:       return tanh (x);
    case TS_CUDA_SIGMOID:    return T (1) / (T (1) + exp (-x));
    case TS_CUDA_RELU:       return x != x ? x : (x > T (0) ? x : T (0));  /* NaN stays */
    default:                 return T (1) / x;
    }
}

template <typename T>
__global__ void
unary_kernel (int op, T *out, const T *in, Iter it, bool contiguous)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;

  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.numel; i += stride)
    {
      int64_t off[MAX_OPS] = { i + it.offset[0], i + it.offset[1], 0 };

      if (!contiguous)
        iter_offsets (it, i, off);
      out[off[0]] = unary_op<T> (op, in[off[1]]);
    }
}

template <typename T>
int
launch_unary (int op, const TsCudaView *out, const TsCudaView *in, cudaStream_t stream)
{
  const TsCudaView *ops[] = { out, in };
  Iter it;

  if (!iter_init (&it, ops, 2))
    return cudaErrorInvalidValue;
  if (it.numel == 0)
    return cudaSuccess;
  unary_kernel<T><<<grid_for (it.numel), BLOCK, 0, stream>>> (
      op, (T *)out->data, (const T *)in->data, it,
      is_contiguous (out) && is_contiguous (in) && numel (in) == it.numel);
  return cudaGetLastError ();
}

/* ---- Loads and stores of any dtype (fill, copy) ------------------------ */

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
 * floats to integers truncate, as a C cast (PyTorch's .to()). */
__device__ __forceinline__ void
store_value (int dtype, void *base, int64_t i, double d, int64_t v, bool have_int)
{
  switch (dtype)
    {
    case TS_CUDA_FLOAT32:  ((float *)base)[i] = (float)d; break;
    case TS_CUDA_FLOAT64:  ((double *)base)[i] = d; break;
    case TS_CUDA_FLOAT16:  ((__half *)base)[i] = __double2half (d); break;
    case TS_CUDA_BFLOAT16: ((__nv_bfloat16 *)base)[i] = __float2bfloat16_rn ((float)d); break;
    case TS_CUDA_INT64:    ((int64_t *)base)[i] = have_int ? v : (int64_t)d; break;
    case TS_CUDA_INT32:    ((int32_t *)base)[i] = (int32_t)(have_int ? v : (int64_t)d); break;
    case TS_CUDA_UINT8:    ((uint8_t *)base)[i] = (uint8_t)(have_int ? v : (int64_t)d); break;
    /* narrowing wraps modulo 2^bits, as on the host */
    case TS_CUDA_INT8:     ((int8_t *)base)[i] = (int8_t)(uint8_t)(have_int ? v : (int64_t)d); break;
    case TS_CUDA_INT16:    ((int16_t *)base)[i] = (int16_t)(uint16_t)(have_int ? v : (int64_t)d); break;
    default:               ((uint8_t *)base)[i] = have_int ? v != 0 : d != 0.0; break;
    }
}

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

__global__ void
fill_strided (int dtype, void *out, double value, Iter it)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;

  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.numel; i += stride)
    {
      int64_t off[MAX_OPS];

      iter_offsets (it, i, off);
      store_value (dtype, out, off[0], value, (int64_t)value, false);
    }
}

/* ---- Reductions ------------------------------------------------------- */

/* float32 sums accumulate in float, as PyTorch's CUDA sum does. */
template <typename T> struct Acc { typedef T type; };

template <typename A>
__device__ __forceinline__ A
combine (int op, A a, A b)
{
  if (op != TS_CUDA_AMAX)
    return a + b;
  /* NaN wins, as torch.max. */
  if (a != a)
    return a;
  if (b != b)
    return b;
  return a > b ? a : b;
}

template <typename A> __device__ __forceinline__ A neg_infinity (void);
template <> __device__ __forceinline__ float neg_infinity<float> (void) { return __int_as_float (0xff800000); }
template <> __device__ __forceinline__ double neg_infinity<double> (void) { return __longlong_as_double (0xfff0000000000000ll); }

template <typename A>
__device__ __forceinline__ A
identity (int op)
{
  return op == TS_CUDA_AMAX ? neg_infinity<A> () : A (0);
}

template <typename A>
__device__ A
block_reduce (int op, A value)
{
  __shared__ A warp_results[BLOCK / 32];
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;

  for (int delta = 16; delta > 0; delta /= 2)
    value = combine<A> (op, value, __shfl_down_sync (0xffffffffu, value, delta));
  if (lane == 0)
    warp_results[warp] = value;
  __syncthreads ();
  value = threadIdx.x < BLOCK / 32 ? warp_results[threadIdx.x] : identity<A> (op);
  if (warp == 0)
    for (int delta = 16; delta > 0; delta /= 2)
      value = combine<A> (op, value, __shfl_down_sync (0xffffffffu, value, delta));
  return value;
}

/* Pass 1: each block reduces a grid-stride share into partial[block]. */
template <typename T>
__global__ void
reduce_all_pass1 (int op, const T *in, Iter it, bool contiguous, bool vector,
                  typename Acc<T>::type *partial)
{
  typedef typename Acc<T>::type A;
  constexpr int V = 16 / sizeof (T);
  int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  int64_t n = it.numel;
  int64_t n_packs = vector ? n / V : 0;
  const T *base = in + it.offset[1];
  A acc = identity<A> (op);

  for (int64_t i = tid; i < n_packs; i += stride)
    {
      Pack<T> p = reinterpret_cast<const Pack<T> *> (base)[i];

#pragma unroll
      for (int j = 0; j < V; j++)
        acc = combine<A> (op, acc, (A)p.v[j]);
    }
  for (int64_t i = n_packs * V + tid; i < n; i += stride)
    {
      int64_t off[MAX_OPS] = { 0, i + it.offset[1], 0 };

      if (!contiguous)
        iter_offsets (it, i, off);
      acc = combine<A> (op, acc, (A)in[off[1]]);
    }
  acc = block_reduce<A> (op, acc);
  if (threadIdx.x == 0)
    partial[blockIdx.x] = acc;
}

/* Pass 2: one block reduces the partials in a fixed order (the result does
 * not depend on timing) and stores the result. */
template <typename T>
__global__ void
reduce_all_pass2 (int op, const typename Acc<T>::type *partial, int n_partial, int64_t count,
                  T *out)
{
  typedef typename Acc<T>::type A;
  A acc = identity<A> (op);

  for (int i = threadIdx.x; i < n_partial; i += blockDim.x)
    acc = combine<A> (op, acc, partial[i]);
  acc = block_reduce<A> (op, acc);
  if (threadIdx.x == 0)
    *out = op == TS_CUDA_MEAN ? (T)(acc / (A)count) : (T)acc;
}

/* One thread per output: walks the reduced dimension. Adjacent threads
 * read adjacent inner elements when the input is row-major. */
template <typename T>
__global__ void
reduce_dim_kernel (int op, T *out, const T *in, Iter it, int64_t size, int64_t in_stride)
{
  typedef typename Acc<T>::type A;
  int64_t stride = (int64_t)gridDim.x * blockDim.x;

  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.numel; i += stride)
    {
      int64_t off[MAX_OPS];
      A acc = identity<A> (op);

      iter_offsets (it, i, off);
      for (int64_t r = 0; r < size; r++)
        acc = combine<A> (op, acc, (A)in[off[1] + r * in_stride]);
      out[off[0]] = op == TS_CUDA_MEAN ? (T)(acc / (A)size) : (T)acc;
    }
}

template <typename T>
int
launch_reduce (int op, const TsCudaView *out, const TsCudaView *in, int dim, cudaStream_t stream)
{
  typedef typename Acc<T>::type A;
  Iter it;

  if (dim < 0)
    {
      const TsCudaView *ops[] = { in, in };
      bool contiguous = is_contiguous (in);
      const T *base = (const T *)in->data + in->offset;
      bool vector = contiguous && aligned16 (base);
      unsigned grid;
      A *partial = NULL;
      int err;

      iter_init (&it, ops, 2);
      if (it.numel == 0 && op == TS_CUDA_AMAX)
        return cudaErrorInvalidValue;  /* max of an empty tensor */
      grid = grid_for (vector ? it.numel / (16 / sizeof (T)) + 1 : it.numel);
      if ((err = cudaMallocAsync ((void **)&partial, grid * sizeof (A), stream)) != cudaSuccess)
        return err;
      reduce_all_pass1<T><<<grid, BLOCK, 0, stream>>> (op, (const T *)in->data, it, contiguous, vector, partial);
      reduce_all_pass2<T><<<1, BLOCK, 0, stream>>> (op, partial, (int)grid, it.numel,
                                                    (T *)out->data + out->offset);
      cudaFreeAsync (partial, stream);
      return cudaGetLastError ();
    }

  {
    /* Iterate over the output (kept shape); the input is read at the same
     * coordinates, the reduced dimension walked in the kernel. */
    TsCudaView in_kept = *in;
    const TsCudaView *ops[] = { out, &in_kept };

    if (dim >= in->ndim || out->ndim != in->ndim)
      return cudaErrorInvalidValue;
    in_kept.shape[dim] = 1;
    if (!iter_init (&it, ops, 2))
      return cudaErrorInvalidValue;
    if (it.numel == 0)
      return cudaSuccess;
    reduce_dim_kernel<T><<<grid_for (it.numel), BLOCK, 0, stream>>> (
        op, (T *)out->data, (const T *)in->data, it, in->shape[dim], in->strides[dim]);
    return cudaGetLastError ();
  }
}

/* ---- Index ops -------------------------------------------------------- */

/* The coordinate of dimension @dim of row-major linear index @linear. */
__device__ __forceinline__ int64_t
coordinate (const Iter &it, int64_t linear, int dim)
{
  for (int d = it.ndim - 1; d > dim; d--)
    linear /= it.shape[d];
  return linear % it.shape[dim];
}

/* PyTorch's CUDA index kernels assert "index out of bounds"; the printf
 * before it names the index, which the assert's own line cannot. */
__device__ __forceinline__ void
check_index (const char *op, int64_t index, int dim, int64_t size)
{
  if (index < 0 || index >= size)
    {
      printf ("%s: index %lld is out of bounds for dimension %d with size %lld\n",
              op, (long long)index, dim, (long long)size);
      assert (index >= 0 && index < size && "index out of bounds");
    }
}

template <typename T>
__global__ void
index_select_kernel (T *out, const T *in, const int64_t *index, int64_t index_stride,
                     int64_t index_offset, Iter it, int dim, int64_t size, int64_t in_dim_stride)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;

  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.numel; i += stride)
    {
      int64_t off[MAX_OPS];
      int64_t j = coordinate (it, i, dim);
      int64_t idx = index[index_offset + j * index_stride];

      check_index ("index_select", idx, dim, size);
      iter_offsets (it, i, off);
      /* Operand 1 has stride 0 on @dim: add the selected row. */
      out[off[0]] = in[off[1] + idx * in_dim_stride];
    }
}

template <typename T>
__global__ void
gather_kernel (T *out, const T *in, const int64_t *index, Iter it, int dim, int64_t size,
               int64_t in_dim_stride)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;

  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.numel; i += stride)
    {
      int64_t off[MAX_OPS];
      int64_t idx;

      iter_offsets (it, i, off);
      idx = index[off[2]];
      check_index ("gather", idx, dim, size);
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

  it->ndim = out->ndim;
  it->n_ops = n_ops;
  it->numel = numel (out);
  for (int d = 0; d < out->ndim; d++)
    it->shape[d] = out->shape[d];
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

template <typename T>
int
launch_index_select (const TsCudaView *out, const TsCudaView *in, int dim, const TsCudaView *index,
                     cudaStream_t stream)
{
  TsCudaView src = without_dim (in, out, dim);
  const TsCudaView *ops[] = { out, &src };
  Iter it;

  if (dim < 0 || dim >= in->ndim || index->dtype != TS_CUDA_INT64 || index->ndim > 1 ||
      !iter_init_exact (&it, ops, 2))
    return cudaErrorInvalidValue;
  if (it.numel == 0)
    return cudaSuccess;
  index_select_kernel<T><<<grid_for (it.numel), BLOCK, 0, stream>>> (
      (T *)out->data, (const T *)in->data, (const int64_t *)index->data,
      index->ndim == 1 ? index->strides[0] : 0, index->offset, it, dim, in->shape[dim],
      in->strides[dim]);
  return cudaGetLastError ();
}

template <typename T>
int
launch_gather (const TsCudaView *out, const TsCudaView *in, int dim, const TsCudaView *index,
               cudaStream_t stream)
{
  TsCudaView src = without_dim (in, out, dim);
  const TsCudaView *ops[] = { out, &src, index };
  Iter it;

  if (dim < 0 || dim >= in->ndim || index->dtype != TS_CUDA_INT64 || !iter_init_exact (&it, ops, 3))
    return cudaErrorInvalidValue;
  if (it.numel == 0)
    return cudaSuccess;
  gather_kernel<T><<<grid_for (it.numel), BLOCK, 0, stream>>> (
      (T *)out->data, (const T *)in->data, (const int64_t *)index->data, it, dim, in->shape[dim],
      in->strides[dim]);
  return cudaGetLastError ();
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

int
k_fill (const TsCudaView *out, double value, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  int64_t n = numel (out);
  const TsCudaView *ops[] = { out };
  Iter it;

  if (n == 0)
    return cudaSuccess;
  if (is_contiguous (out) && out->dtype == TS_CUDA_FLOAT32)
    {
      float *o = (float *)out->data + out->offset;

      fill_contiguous<float><<<grid_for (n / 4 + 1), BLOCK, 0, s>>> (o, (float)value, n, aligned16 (o));
      return cudaGetLastError ();
    }
  if (is_contiguous (out) && out->dtype == TS_CUDA_FLOAT64)
    {
      double *o = (double *)out->data + out->offset;

      fill_contiguous<double><<<grid_for (n / 2 + 1), BLOCK, 0, s>>> (o, value, n, aligned16 (o));
      return cudaGetLastError ();
    }
  iter_init (&it, ops, 1);
  fill_strided<<<grid_for (n), BLOCK, 0, s>>> (out->dtype, out->data, value, it);
  return cudaGetLastError ();
}

int
k_copy (const TsCudaView *out, const TsCudaView *in, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  const TsCudaView *ops[] = { out, in };
  Iter it;

  if (out->dtype == in->dtype && is_contiguous (out) && is_contiguous (in) && numel (out) == numel (in))
    return cudaMemcpyAsync ((char *)out->data + out->offset * dtype_size (out->dtype),
                            (const char *)in->data + in->offset * dtype_size (in->dtype),
                            numel (out) * dtype_size (out->dtype), cudaMemcpyDeviceToDevice, s);
  if (!iter_init (&it, ops, 2))
    return cudaErrorInvalidValue;
  if (it.numel == 0)
    return cudaSuccess;
  copy_kernel<<<grid_for (it.numel), BLOCK, 0, s>>> (out->dtype, out->data, in->dtype, in->data, it);
  return cudaGetLastError ();
}

int
k_binary (int op, const TsCudaView *out, const TsCudaView *a, const TsCudaView *b, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;

  if (a->dtype != out->dtype || b->dtype != out->dtype)
    return cudaErrorInvalidValue;
  switch (out->dtype)
    {
    case TS_CUDA_FLOAT32: return launch_binary<float> (op, out, a, b, s);
    case TS_CUDA_FLOAT64: return launch_binary<double> (op, out, a, b, s);
    case TS_CUDA_INT64:   return launch_binary<int64_t> (op, out, a, b, s);
    case TS_CUDA_INT32:   return launch_binary<int32_t> (op, out, a, b, s);
    /* int8/int16 arithmetic happens in int and wraps on the store */
    case TS_CUDA_INT16:   return launch_binary<int16_t> (op, out, a, b, s);
    case TS_CUDA_INT8:    return launch_binary<int8_t> (op, out, a, b, s);
    default:              return cudaErrorInvalidValue;
    }
}

int
k_unary (int op, const TsCudaView *out, const TsCudaView *in, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;

  if (in->dtype != out->dtype)
    return cudaErrorInvalidValue;
  switch (out->dtype)
    {
    case TS_CUDA_FLOAT32: return launch_unary<float> (op, out, in, s);
    case TS_CUDA_FLOAT64: return launch_unary<double> (op, out, in, s);
    default:              return cudaErrorInvalidValue;
    }
}

int
k_reduce (int op, const TsCudaView *out, const TsCudaView *in, uint64_t dim_mask, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  int dim = dim_mask == 0 ? -1 : __builtin_ctzll (dim_mask);

  if (dim_mask != 0 && (dim_mask & (dim_mask - 1)) != 0)
    return TS_CUDA_ERROR_NOT_SUPPORTED;

  if (in->dtype != out->dtype)
    return cudaErrorInvalidValue;
  switch (in->dtype)
    {
    case TS_CUDA_FLOAT32: return launch_reduce<float> (op, out, in, dim, s);
    case TS_CUDA_FLOAT64: return launch_reduce<double> (op, out, in, dim, s);
    default:              return cudaErrorInvalidValue;
    }
}

int
k_index_select (const TsCudaView *out, const TsCudaView *in, int dim, const TsCudaView *index,
                void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;

  switch (dtype_size (in->dtype))
    {
    case 8:  return launch_index_select<uint64_t> (out, in, dim, index, s);
    case 4:  return launch_index_select<uint32_t> (out, in, dim, index, s);
    case 2:  return launch_index_select<uint16_t> (out, in, dim, index, s);
    default: return launch_index_select<uint8_t> (out, in, dim, index, s);
    }
}

int
k_gather (const TsCudaView *out, const TsCudaView *in, int dim, const TsCudaView *index, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;

  switch (dtype_size (in->dtype))
    {
    case 8:  return launch_gather<uint64_t> (out, in, dim, index, s);
    case 4:  return launch_gather<uint32_t> (out, in, dim, index, s);
    case 2:  return launch_gather<uint16_t> (out, in, dim, index, s);
    default: return launch_gather<uint8_t> (out, in, dim, index, s);
    }
}

int
k_random (int dist, const TsCudaView *out, double a, double b, uint64_t seed, uint64_t offset,
          void *stream)
{
  const TsCudaView *ops[] = { out };
  int device = 0, max_threads = 2048;
  int64_t blocks, cap;
  Iter it;

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

int
k_matmul (const TsCudaView *out, const TsCudaView *a, const TsCudaView *b, void *stream)
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
  if (out->dtype == TS_CUDA_FLOAT32)
    {
      const float one = 1.0f, zero = 0.0f;

      status = cublasSgemm (handle, op_b, op_a, n, m, k, &one,
                            (const float *)b->data + b->offset, ldb,
                            (const float *)a->data + a->offset, lda, &zero,
                            (float *)out->data + out->offset,
                            (int)(out->strides[0] > n ? out->strides[0] : n));
    }
  else if (out->dtype == TS_CUDA_FLOAT64)
    {
      const double one = 1.0, zero = 0.0;

      status = cublasDgemm (handle, op_b, op_a, n, m, k, &one,
                            (const double *)b->data + b->offset, ldb,
                            (const double *)a->data + a->offset, lda, &zero,
                            (double *)out->data + out->offset,
                            (int)(out->strides[0] > n ? out->strides[0] : n));
    }
  else
    return cudaErrorInvalidValue;
  return status == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

const TsCudaKernels kernels = {
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
};

} /* namespace */

extern "C" __attribute__ ((visibility ("default"))) const TsCudaKernels *
ts_cuda_kernels_get (void)
{
  return &kernels;
}
