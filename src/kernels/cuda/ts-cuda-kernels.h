/* ts-cuda-kernels.h: the CUDA backend module's C interface
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libtensorscope-cuda.so (built by nvcc from ts-cuda-kernels.cu, linked to
 * cudart and cuBLAS) is never linked by our programs: the loader
 * (src/cuda/ts-cuda-backend.c) dlopens it and asks for this table, so one
 * build runs on machines with and without a GPU driver. Plain C, no CUDA
 * types: streams are opaque pointers (cudaStream_t), results are
 * cudaError_t values (0 is success).
 *
 * Tensors are strided views like the CPU kernels' TsView (dtype codes are
 * TsDType's), with at most TS_CUDA_MAX_DIMS dimensions and device pointers.
 * The ops mirror the CPU kernels (src/kernels/cpu) one to one, with one
 * simplification the caller handles: binary ops take operands of one
 * dtype (the caller casts with copy first, as the common dtype says).
 */

#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TS_CUDA_ABI_VERSION 1
#define TS_CUDA_MAX_DIMS 8

/* TsDType's values. */
enum
{
  TS_CUDA_FLOAT32 = 0,
  TS_CUDA_FLOAT64 = 1,
  TS_CUDA_FLOAT16 = 2,
  TS_CUDA_BFLOAT16 = 3,
  TS_CUDA_INT64 = 4,
  TS_CUDA_INT32 = 5,
  TS_CUDA_UINT8 = 6,
  TS_CUDA_BOOL = 7,
  TS_CUDA_INT8 = 8,
  TS_CUDA_INT16 = 9,
};

/* TsBinaryOp / TsUnaryOp values (the subset the device implements). */
enum { TS_CUDA_ADD = 0, TS_CUDA_SUB = 1, TS_CUDA_MUL = 2, TS_CUDA_DIV = 3 };
enum
{
  TS_CUDA_NEG = 0, TS_CUDA_ABS = 1, TS_CUDA_EXP = 2, TS_CUDA_LOG = 3, TS_CUDA_SQRT = 4,
  TS_CUDA_SIN = 5, TS_CUDA_COS = 6, TS_CUDA_TANH = 7, TS_CUDA_SIGMOID = 8, TS_CUDA_RELU = 9,
  TS_CUDA_RECIPROCAL = 10,
};
enum { TS_CUDA_SUM = 0, TS_CUDA_MEAN = 1, TS_CUDA_MAX = 2 };
enum { TS_CUDA_UNIFORM = 0, TS_CUDA_NORMAL = 1 };

typedef struct
{
  int32_t dtype;
  int32_t ndim;
  int64_t shape[TS_CUDA_MAX_DIMS];
  int64_t strides[TS_CUDA_MAX_DIMS];   /* in elements */
  int64_t offset;                      /* in elements */
  void   *data;                        /* device pointer */
} TsCudaView;

typedef struct
{
  uint32_t abi_version;                /* TS_CUDA_ABI_VERSION */
  uint32_t struct_size;

  /* Device management, through the runtime. */
  int (*device_count)   (int *count);
  int (*device_info)    (int device, char *name, int name_len, int *sm_count,
                         int *cc_major, int *cc_minor, uint64_t *total_memory,
                         int *max_threads_per_sm);
  int (*set_device)     (int device);
  int (*malloc_device)  (void **ptr, uint64_t size);
  int (*free_device)    (void *ptr);
  int (*malloc_host)    (void **ptr, uint64_t size);    /* pinned */
  int (*free_host)      (void *ptr);
  int (*stream_create)  (void **stream, int priority);
  int (*stream_destroy) (void *stream);
  int (*stream_sync)    (void *stream);
  int (*device_sync)    (void);
  int (*memcpy_async)   (void *dst, const void *src, uint64_t bytes, void *stream);
  int (*memset_async)   (void *dst, int value, uint64_t bytes, void *stream);
  const char *(*error_string) (int error);

  /* Kernels; all asynchronous on @stream. */
  int (*fill)         (const TsCudaView *out, double value, void *stream);
  int (*copy)         (const TsCudaView *out, const TsCudaView *in, void *stream);  /* casts */
  int (*binary)       (int op, const TsCudaView *out, const TsCudaView *a,
                       const TsCudaView *b, void *stream);                        /* broadcasts */
  int (*unary)        (int op, const TsCudaView *out, const TsCudaView *in, void *stream);
  /* Reduces @in over dimension @dim (or everything when @dim is -1) into
   * @out, which has the kept shape (the reduced dimension of size 1) or
   * is a scalar. */
  int (*reduce)       (int op, const TsCudaView *out, const TsCudaView *in, int dim, void *stream);
  /* out = in.index_select (dim, index); index is int64. An index out of
   * range fires a device-side assert naming it. */
  int (*index_select) (const TsCudaView *out, const TsCudaView *in, int dim,
                       const TsCudaView *index, void *stream);
  /* out = in.gather (dim, index). */
  int (*gather)       (const TsCudaView *out, const TsCudaView *in, int dim,
                       const TsCudaView *index, void *stream);
  /* Philox4x32-10 as PyTorch's distribution kernels use it (ts-philox.h):
   * grid = min (sm_count * max_threads_per_sm / 256, ceil (n / 256)) blocks
   * of 256; float32 draws float4 per call, float64 double2. */
  int (*random)       (int dist, const TsCudaView *out, double a, double b,
                       uint64_t seed, uint64_t offset, void *stream);
  /* out = a @ b for 2-d float32/float64 views (any strides cuBLAS takes:
   * one of each view's strides must be 1). */
  int (*matmul)       (const TsCudaView *out, const TsCudaView *a, const TsCudaView *b,
                       void *stream);
} TsCudaKernels;

/* The module's one entry point. */
const TsCudaKernels *ts_cuda_kernels_get (void);

#ifdef __cplusplus
}
#endif
