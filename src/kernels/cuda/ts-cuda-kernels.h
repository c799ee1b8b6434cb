/* ts-cuda-kernels.h: the CUDA backend module's C interface
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libtensorscope-cuda.so (built by nvcc from ts-cuda-kernels.cu, linked to
 * cudart and cuBLAS) is never linked by our programs: the loader
 * (src/kernels/cuda/ts-cuda-backend.c) dlopens it and asks for this table, so one
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

#define TS_CUDA_ABI_VERSION 4
#define TS_CUDA_MAX_DIMS 8

/* TsDType's values (static asserts in src/core/aten/ts-op-table.c). */
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
  /* no kernel takes these: every complex op runs on the host fallback
   * (dtype_is_valid in the module stops at INT16) */
  TS_CUDA_COMPLEX64 = 10,
  TS_CUDA_COMPLEX128 = 11,
};

/* The module's op ids, an ABI: append, never renumber. The op list's CUDA
 * column (src/kernels/ts-op-list.def) names each op's id; an op the module
 * lacks says TS_OP_CUDA_HOST there and runs on the host fallback. */
enum
{
  TS_CUDA_ADD = 0, TS_CUDA_SUB, TS_CUDA_MUL, TS_CUDA_DIV, TS_CUDA_FLOOR_DIVIDE,
  TS_CUDA_REMAINDER, TS_CUDA_POW, TS_CUDA_MAXIMUM, TS_CUDA_MINIMUM,
  TS_CUDA_EQ, TS_CUDA_NE, TS_CUDA_LT, TS_CUDA_LE, TS_CUDA_GT, TS_CUDA_GE,
  TS_CUDA_LOGICAL_AND, TS_CUDA_LOGICAL_OR,
  TS_CUDA_BITWISE_AND, TS_CUDA_BITWISE_OR, TS_CUDA_BITWISE_XOR,
  TS_CUDA_N_BINARY
};
enum
{
  TS_CUDA_NEG = 0, TS_CUDA_ABS, TS_CUDA_EXP, TS_CUDA_LOG, TS_CUDA_SQRT,
  TS_CUDA_SIN, TS_CUDA_COS, TS_CUDA_TANH, TS_CUDA_SIGMOID, TS_CUDA_RELU,
  TS_CUDA_RECIPROCAL, TS_CUDA_LOGICAL_NOT,
  TS_CUDA_N_UNARY
};
enum { TS_CUDA_SUM = 0, TS_CUDA_MEAN, TS_CUDA_PROD, TS_CUDA_AMAX, TS_CUDA_AMIN, TS_CUDA_N_REDUCE };

/* cudaError_t values the callers look at. */
enum
{
  TS_CUDA_SUCCESS = 0,
  TS_CUDA_ERROR_INVALID_VALUE = 1,
  TS_CUDA_ERROR_MEMORY_ALLOCATION = 2,
  TS_CUDA_ERROR_NOT_SUPPORTED = 801,     /* this op/dtype pair has no device kernel */
  TS_CUDA_ERROR_NO_DEVICE = 100,
  TS_CUDA_ERROR_INVALID_DEVICE = 101,
  TS_CUDA_ERROR_NOT_READY = 600,
  TS_CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  TS_CUDA_ERROR_ASSERT = 710,
};

/* Event flags (cudaEventDefault / cudaEventBlockingSync / cudaEventDisableTiming
 * / cudaEventInterprocess). */
enum
{
  TS_CUDA_EVENT_DEFAULT = 0,
  TS_CUDA_EVENT_BLOCKING_SYNC = 1,
  TS_CUDA_EVENT_DISABLE_TIMING = 2,
  TS_CUDA_EVENT_INTERPROCESS = 4,
};
enum { TS_CUDA_UNIFORM = 0, TS_CUDA_NORMAL = 1 };

/* ABI 4: nll_loss's arguments. The input is read as (n, c, s): n samples,
 * c classes, s spatial positions (1 for nll_loss, H * W for nll_loss2d);
 * every view of the loss is contiguous. reduction is PyTorch's enum: 0
 * none, 1 mean, 2 sum. */
typedef struct
{
  int64_t n, c, s;
  int64_t ignore_index;
  int32_t reduction;
  int32_t padding;
} TsCudaNllLoss;

/* ABI 4: a convolution's geometry for im2col/col2im (up to 3 spatial
 * dims): kernel sizes, strides, paddings, dilations and the output's
 * spatial sizes; the input's sizes are its view's. */
#define TS_CUDA_CONV_MAX_SPATIAL 3
typedef struct
{
  int32_t n_spatial;
  int32_t padding_;
  int64_t kernel[TS_CUDA_CONV_MAX_SPATIAL];
  int64_t stride[TS_CUDA_CONV_MAX_SPATIAL];
  int64_t pad[TS_CUDA_CONV_MAX_SPATIAL];
  int64_t dilation[TS_CUDA_CONV_MAX_SPATIAL];
  int64_t out[TS_CUDA_CONV_MAX_SPATIAL];
} TsCudaConv;

typedef struct
{
  int32_t dtype;
  int32_t ndim;
  int64_t shape[TS_CUDA_MAX_DIMS];
  int64_t strides[TS_CUDA_MAX_DIMS];   /* in elements */
  int64_t offset;                      /* in elements */
  void   *data;                        /* device pointer */
  /* ABI 2: a scalar operand (a Python number, or a 0-dim CPU tensor, which
   * PyTorch passes as a kernel argument): ndim 0 and data NULL; the value
   * is in dvalue for floating dtypes, ivalue for integers and bool. Only
   * binary's operands may be scalars. */
  double  dvalue;
  int64_t ivalue;
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
  /* out = a OP b with broadcasting. a and b have one dtype (the common
   * dtype: the caller casts with copy first); out has that dtype, or bool
   * for comparisons and logical ops. Either operand may be a scalar view. */
  int (*binary)       (int op, const TsCudaView *out, const TsCudaView *a,
                       const TsCudaView *b, void *stream);
  /* out = OP (in); out has in's dtype (bool for logical_not; the float
   * ops take floating inputs: the caller casts integers first). */
  int (*unary)        (int op, const TsCudaView *out, const TsCudaView *in, void *stream);
  /* Reduces @in over the dims in @dim_mask (bit d = dim d; 0 = all) into
   * @out, which has in's ndim with the reduced dims of size 1 (keepdim
   * shape). Floating inputs accumulate in double (float32: float is
   * allowed where the order is fixed), integers in int64; out's dtype is
   * ts_reduce_result_dtype's. */
  int (*reduce)       (int op, const TsCudaView *out, const TsCudaView *in, uint64_t dim_mask,
                       void *stream);
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
  /* out = a @ b for 2-d float32/float64 (float16/bfloat16: ABI 3) views (any strides cuBLAS takes:
   * one of each view's strides must be 1). */
  int (*matmul)       (const TsCudaView *out, const TsCudaView *a, const TsCudaView *b,
                       void *stream);

  /* ABI 2: what the runtime's hardware device needs beyond ABI 1. Every
   * call acts on the calling thread's current device (set_device), as the
   * CUDA runtime does. A stream of NULL is the legacy default stream. */
  int (*get_device)        (int *device);
  int (*mem_get_info)      (uint64_t *free_bytes, uint64_t *total_bytes);
  /* cudaDeviceGetStreamPriorityRange: least is 0, greatest negative. */
  int (*stream_priority_range) (int *least, int *greatest);
  int (*stream_query)      (void *stream);             /* 0 idle, NOT_READY busy */
  int (*stream_wait_event) (void *stream, void *event);
  int (*event_create)      (void **event, int flags);  /* TS_CUDA_EVENT_* */
  int (*event_destroy)     (void *event);
  int (*event_record)      (void *event, void *stream);
  int (*event_query)       (void *event);              /* 0 done, NOT_READY pending */
  int (*event_sync)        (void *event);
  int (*event_elapsed)     (float *ms, void *start, void *end);
  /* cudaMemcpyPeerAsync; dst/src are device pointers on those devices. */
  int (*memcpy_peer_async) (void *dst, int dst_device, const void *src, int src_device,
                            uint64_t bytes, void *stream);
  /* cudaMemcpy (synchronous, any direction, pageable host memory allowed). */
  int (*memcpy_sync)       (void *dst, const void *src, uint64_t bytes);
  /* cudaPeekAtLastError: a sticky error (device-side assert, illegal
   * address) stays until the process ends; 0 when none. */
  int (*peek_error)        (void);
  /* out[i] = start + i * step, for out of any real dtype (contiguous). */
  int (*arange)        (const TsCudaView *out, double start, double step, void *stream);
  /* values/indices = in.max (dim) or in.min (dim): values and int64
   * indices in the keepdim shape; the first index of the extreme wins,
   * the first NaN wins over numbers, as the CPU kernel. */
  int (*max_dim)       (const TsCudaView *values, const TsCudaView *indices,
                        const TsCudaView *in, int dim, int is_min, void *stream);
  /* fill for integer dtypes whose values a double cannot hold. */
  int (*fill_int)      (const TsCudaView *out, int64_t value, void *stream);
  /* Batched out[b] = a[b] @ b[b] for 3-d float32/float64 views. */
  int (*bmm)           (const TsCudaView *out, const TsCudaView *a, const TsCudaView *b,
                        void *stream);
  /* torch.cuda._sleep: one thread busy-waits @cycles clock cycles. */
  int (*spin)          (int64_t cycles, void *stream);

  /* ABI 3. Whether float32 matmul/bmm may use TF32 tensor cores from now on
   * (torch.backends.cuda.matmul.allow_tf32); matmul and bmm also take
   * float16 and bfloat16 (float32 accumulation) from ABI 3. */
  int (*set_matmul_tf32) (int allow);
  /* out += a @ b (cuBLAS with beta = 1), as k->matmul takes its views:
   * addmm's device path after copying self into out, as PyTorch's
   * non-Lt addmm does. */
  int (*matmul_acc)      (const TsCudaView *out, const TsCudaView *a, const TsCudaView *b,
                          void *stream);

  /* ABI 4: the ops of a training step that took the host fallback.
   * add/sub with alpha (@op TS_CUDA_ADD or TS_CUDA_SUB), as PyTorch's
   * add_kernel: out = a + alpha * b (sub: alpha negated) in the op-math
   * type (float for float32/float16/bfloat16, double for float64) with one
   * rounding (a fused multiply-add), for floating a, b and out of one
   * dtype and shape. */
  int (*binary_alpha)      (int op, const TsCudaView *out, const TsCudaView *a,
                            const TsCudaView *b, double alpha, void *stream);
  /* PyTorch's threshold_kernel: out = self <= threshold ? value : other,
   * threshold and value rounded to the dtype first. threshold (x, t, v)
   * is (out, x, x, t, v); threshold_backward (grad, x, t) is (out, x,
   * grad, t, 0). Floating views of one dtype and shape. */
  int (*threshold)         (const TsCudaView *out, const TsCudaView *self,
                            const TsCudaView *other, double threshold, double value,
                            void *stream);
  /* softmax (log_softmax where @log) of @in along @dim into @out (in's
   * shape; float32 out of a float16 in is allowed, PyTorch's half_to_float),
   * PyTorch's stable form accumulated in float (double for float64). */
  int (*softmax)           (const TsCudaView *out, const TsCudaView *in, int dim, int log,
                            void *stream);
  /* _softmax_backward_data (log: _log_softmax_backward_data): out from
   * grad_output and the forward's output, all of one shape and dtype. */
  int (*softmax_backward)  (const TsCudaView *out, const TsCudaView *grad,
                            const TsCudaView *output, int dim, int log, void *stream);
  /* nll_loss_forward (and nll_loss2d's): @out (n * s values for
   * reduction none, else one) and @total_weight (one value) from @self,
   * the int64 @target (n * s) and @weight (c values; NULL for ones). A
   * target outside [0, c) that is not ignore_index fires PyTorch's
   * device-side assert `t >= 0 && t < n_classes`. */
  int (*nll_loss)          (const TsCudaNllLoss *p, const TsCudaView *out,
                            const TsCudaView *total_weight, const TsCudaView *self,
                            const TsCudaView *target, const TsCudaView *weight, void *stream);
  /* nll_loss_backward: @grad_input (n * c * s, zeros but at the targets)
   * from @grad_output, @target, @weight (NULL for ones) and the forward's
   * @total_weight. */
  int (*nll_loss_backward) (const TsCudaNllLoss *p, const TsCudaView *grad_input,
                            const TsCudaView *grad_output, const TsCudaView *target,
                            const TsCudaView *weight, const TsCudaView *total_weight,
                            void *stream);
  /* Convolutions as GEMMs (PyTorch uses cuDNN): im2col writes @col
   * (N, C * prod (kernel), prod (out)), contiguous, from the contiguous
   * @in (N, C, spatial...), zeros where the window is in the padding;
   * col2im is its adjoint: each element of the contiguous @in_grad is the
   * sum (in float, double for float64) of the @col elements it fed, in
   * kernel order (a gather: no atomics). Floating dtypes, one for both. */
  int (*im2col)            (const TsCudaConv *p, const TsCudaView *col, const TsCudaView *in,
                            void *stream);
  int (*col2im)            (const TsCudaConv *p, const TsCudaView *in_grad, const TsCudaView *col,
                            void *stream);
} TsCudaKernels;

/* The module's one entry point. */
const TsCudaKernels *ts_cuda_kernels_get (void);

#ifdef __cplusplus
}
#endif
