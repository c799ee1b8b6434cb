/* ts-cpu-kernels.h: CPU compute kernels over raw strided buffers
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The compute layer under the tensors of the simulated backend. Every
 * kernel takes TsViews: a dtype, a shape, strides in elements (any sign is
 * not supported: strides are >= 0, as PyTorch's) and a storage offset over
 * a raw buffer. Kernels never allocate their outputs: the caller (the
 * tensor layer) computes the output shape and dtype with the helpers here,
 * allocates, then calls the kernel, so that allocation stays visible to the
 * caching allocator and the kernel can run later in virtual time.
 *
 * Dtypes follow PyTorch: binary ops compute in the "common dtype" the
 * caller gets from ts_dtype_result_type() (Python scalars are passed as
 * 0-dim views of a float64, int64 or bool value), float16 and bfloat16
 * compute in float32 and round once, integers wrap. Errors are GErrors in
 * TS_KERNEL_ERROR with PyTorch's messages where it has one; nothing here
 * aborts on bad input.
 *
 * Each op family also has a cost helper (ts_cost_*) giving the flops and
 * bytes the scheduler turns into a modelled duration.
 */

#pragma once

#include <glib.h>

#include "ts-dtype.h"
#include "ts-philox.h"
#include "ts-mt19937.h"

G_BEGIN_DECLS

#define TS_MAX_DIMS 16

#define TS_KERNEL_ERROR (ts_kernel_error_quark ())

typedef enum
{
  TS_KERNEL_ERROR_SHAPE,          /* shapes do not broadcast / multiply */
  TS_KERNEL_ERROR_DTYPE,          /* dtype not supported by the op */
  TS_KERNEL_ERROR_INDEX,          /* an index out of range (see TsIndexFailure) */
  TS_KERNEL_ERROR_DIM,            /* a dimension out of range */
  TS_KERNEL_ERROR_ZERO_DIVISION,  /* integer division by zero */
  TS_KERNEL_ERROR_ARGUMENT,       /* any other bad argument */
} TsKernelError;

GQuark ts_kernel_error_quark (void);

/* A strided view of a buffer. Element (i0, i1, ...) lives at
 * data + (offset + sum ik * strides[k]) * ts_dtype_size (dtype). */
typedef struct
{
  TsDType  dtype;
  guint    ndim;
  gint64   shape[TS_MAX_DIMS];
  gint64   strides[TS_MAX_DIMS];
  gint64   offset;
  gpointer data;
} TsView;

/* @strides NULL means contiguous (row-major). */
void     ts_view_init              (TsView       *view,
                                    TsDType       dtype,
                                    gpointer      data,
                                    guint         ndim,
                                    const gint64 *shape,
                                    const gint64 *strides,
                                    gint64        offset);
/* A 0-dim view of one value (for Python scalars). */
void     ts_view_init_scalar       (TsView       *view,
                                    TsDType       dtype,
                                    gpointer      data);
/* Inline: every kernel asks it of each operand. */
static inline gint64
ts_view_numel (const TsView *view)
{
  gint64 n = 1;

  for (guint i = 0; i < view->ndim; i++)
    n *= view->shape[i];
  return n;
}
gboolean ts_view_is_contiguous     (const TsView *view);
gpointer ts_view_element_ptr       (const TsView *view,
                                    const gint64 *index);
/* The element at row-major linear index @linear. */
gpointer ts_view_linear_ptr        (const TsView *view,
                                    gint64        linear);
void     ts_view_transpose         (TsView       *view,
                                    guint         dim0,
                                    guint         dim1);
void     ts_contiguous_strides     (guint         ndim,
                                    const gint64 *shape,
                                    gint64       *strides);

/* maybe_wrap_dim: -1 means the last dim. 0-dim tensors accept -1 and 0.
 * "Dimension out of range (expected to be in range of [-2, 1], but got 2)" */
gboolean ts_wrap_dim               (gint64        dim,
                                    guint         ndim,
                                    guint        *wrapped,
                                    GError      **error);
/* NumPy broadcasting; "The size of tensor a (3) must match the size of
 * tensor b (4) at non-singleton dimension 1". */
gboolean ts_broadcast_shapes       (guint         a_ndim,
                                    const gint64 *a_shape,
                                    guint         b_ndim,
                                    const gint64 *b_shape,
                                    guint        *out_ndim,
                                    gint64       *out_shape,
                                    GError      **error);

/* -- Strided N-d iteration over up to 4 operands ------------------------ */

#define TS_ITER_MAX_OPERANDS 4

/* Operands broadcast to one shape; dimensions that are contiguous for all
 * operands are merged, so the innermost loop is as long as possible. */
typedef struct
{
  guint   ndim;
  guint   n_operands;
  gint64  numel;
  gint64  shape[TS_MAX_DIMS];                             /* innermost last */
  gint64  strides[TS_ITER_MAX_OPERANDS][TS_MAX_DIMS];     /* bytes */
  char   *base[TS_ITER_MAX_OPERANDS];
} TsIter;

/* One innermost run of @n elements: operand k's j-th element is at
 * ptrs[k] + j * strides[k]. */
typedef void (*TsIterLoop) (char         **ptrs,
                            const gint64  *strides,
                            gint64         n,
                            gpointer       user_data);

gboolean ts_iter_init     (TsIter        *iter,
                           guint          ndim,
                           const gint64  *shape,
                           const TsView **operands,
                           guint          n_operands,
                           GError       **error);
void     ts_iter_for_each (const TsIter  *iter,
                           TsIterLoop     loop,
                           gpointer       user_data);
/* TensorIterator's reorder_dimensions: @perm gets the dims of @shape
 * from the fastest to the slowest, sorted by the strides of @n operands
 * (@strides[k], broadcast to @shape, 0 where broadcast): the first
 * operand that orders a pair decides it, equal strides put the smaller
 * dim first, and a pair no operand orders keeps the C order.
 * @reduction: operand 0 is a reduction's output, whose 0 strides mark
 * the reduced dims, which go first. */
void     ts_iter_order    (guint          ndim,
                           const gint64  *shape,
                           const gint64 (*strides)[TS_MAX_DIMS],
                           guint          n,
                           gboolean       reduction,
                           guint         *perm);
/* ATen's CPU sum of a float32 or float64 @in (ts-cpu-sum.c): into @acc,
 * zeroed elements of @in's dtype laid out by @acc_strides (0 on the
 * reduced dims), in the order and precision of PyTorch's cascade_sum.
 * FALSE for another dtype. */
gboolean ts_cpu_sum_cascade (const TsView  *in,
                             const gint64  *acc_strides,
                             gpointer       acc);

/* -- Elementwise ---------------------------------------------------------- */

/* The elementwise ops come from the op list (ts-op-list.def): each line's
 * KERNEL column is the enumerator, in the list's order. */

/* An op's dtype rule (the list's RULE column). */
typedef enum
{
  TS_OP_RULE_NONE = 0,      /* not elementwise: the family's code has it */
  TS_OP_RULE_PROMOTE,       /* the promoted common dtype */
  TS_OP_RULE_TRUE_DIVIDE,   /* promoted, integers give the default float */
  TS_OP_RULE_COMPARE,       /* promoted, a bool result */
  TS_OP_RULE_LOGICAL,       /* computes in bool, a bool result */
  TS_OP_RULE_BITWISE,       /* integers and bool only: `&`, `|`, `^` */
  TS_OP_RULE_SAME,          /* unary: the input's dtype */
  TS_OP_RULE_FLOAT,         /* unary: integers give the default float */
  TS_OP_RULE_BOOL_RESULT,   /* unary: any dtype in, bool out */
} TsOpDtypeRule;

/* Expanding the list: TS_OP_ELEMENTWISE_##FAMILY (b, u) keeps b of the
 * binary lines and u of the unary ones, nothing of the others;
 * TS_OP_INIT (k, v) is one "[k] = v," of an array initializer. */
#define TS_OP_ELEMENTWISE_BINARY(b, u)        b
#define TS_OP_ELEMENTWISE_UNARY(b, u)         u
#define TS_OP_ELEMENTWISE_REDUCE(b, u)
#define TS_OP_ELEMENTWISE_MAX_DIM(b, u)
#define TS_OP_ELEMENTWISE_FILL(b, u)
#define TS_OP_ELEMENTWISE_COPY(b, u)
#define TS_OP_ELEMENTWISE_MATMUL(b, u)
#define TS_OP_ELEMENTWISE_INDEX_SELECT(b, u)
#define TS_OP_ELEMENTWISE_GATHER(b, u)
#define TS_OP_ELEMENTWISE_INDEX(b, u)
#define TS_OP_ELEMENTWISE_INDEX_PUT(b, u)
#define TS_OP_ELEMENTWISE_NONZERO(b, u)
#define TS_OP_ELEMENTWISE_MASKED_FILL(b, u)
#define TS_OP_ELEMENTWISE_ARANGE(b, u)
#define TS_OP_ELEMENTWISE_RANDOM(b, u)
#define TS_OP_ELEMENTWISE_SOFTMAX(b, u)
#define TS_OP_ELEMENTWISE_SHAPE(b, u)
#define TS_OP_ELEMENTWISE_SORT(b, u)
#define TS_OP_ELEMENTWISE_SCAN(b, u)
#define TS_OP_ELEMENTWISE_SCATTER(b, u)
#define TS_OP_ELEMENTWISE_AMP(b, u)
#define TS_OP_ELEMENTWISE_WHERE(b, u)
#define TS_OP_ELEMENTWISE_TERNARY(b, u)
#define TS_OP_ELEMENTWISE_MV(b, u)
#define TS_OP_ELEMENTWISE_CONV(b, u)
#define TS_OP_ELEMENTWISE_POOL(b, u)
#define TS_OP_ELEMENTWISE_NORM(b, u)
#define TS_OP_ELEMENTWISE_REMAP(b, u)
#define TS_OP_ELEMENTWISE_ACT(b, u)
#define TS_OP_ELEMENTWISE_LOSS(b, u)
#define TS_OP_ELEMENTWISE_LINALG(b, u)
#define TS_OP_ELEMENTWISE_FOREACH(b, u)
#define TS_OP_ELEMENTWISE_VAR(b, u)
#define TS_OP_ELEMENTWISE_FFT(b, u)
#define TS_OP_ENUM_ITEM(k)                    k,
#define TS_OP_INIT(k, v)                      [k] = v,

typedef enum
{
#define TS_OP(ID, FAMILY, name, RULE, KERNEL, ...) TS_OP_ELEMENTWISE_##FAMILY (TS_OP_ENUM_ITEM (KERNEL), )
#include "ts-op-list.def"
  TS_N_BINARY_OPS
} TsBinaryOp;

typedef enum
{
#define TS_OP(ID, FAMILY, name, RULE, KERNEL, ...) TS_OP_ELEMENTWISE_##FAMILY (, TS_OP_ENUM_ITEM (KERNEL))
#include "ts-op-list.def"
  TS_N_UNARY_OPS
} TsUnaryOp;

const char *ts_binary_op_name          (TsBinaryOp op);   /* "add", "eq", ... */
const char *ts_unary_op_name           (TsUnaryOp  op);

/* The dtype the op computes in, given the promoted common dtype: the
 * common dtype itself, except that true division of integers computes in
 * the default float dtype and logical ops compute in bool. */
TsDType  ts_binary_compute_dtype       (TsBinaryOp op,
                                        TsDType    common);
/* The dtype of the result tensor: bool for comparisons and logical ops. */
TsDType  ts_binary_result_dtype        (TsBinaryOp op,
                                        TsDType    common);
/* Integer inputs of float functions (exp, sin, ...) give the default dtype. */
TsDType  ts_unary_result_dtype         (TsUnaryOp  op,
                                        TsDType    input);

/* The dtype rules of an op that need no data (the caller checks before it
 * allocates or launches): "Subtraction, the `-` operator, with two bool
 * tensors...", bitwise ops on floats, negation/abs/relu of bools. */
gboolean ts_binary_check     (TsBinaryOp    op,
                              TsDType       common,
                              GError      **error);
gboolean ts_unary_check      (TsUnaryOp     op,
                              TsDType       input,
                              GError      **error);

/* out = a OP b with broadcasting; @out has the broadcast shape and any
 * dtype (values are converted on store). @common is the promoted dtype of
 * the inputs (ts_dtype_result_type). */
/* torch.pow (@x, @e) with a number exponent, float32 or float64, @out of
 * @x's dtype and shape, as ATen computes it (0, 1, 0.5, -0.5, -1, 2, 3
 * and -2 are special forms); FALSE, writing nothing, for other operands */
gboolean ts_cpu_pow_scalar   (const TsView *x,
                              double        e,
                              const TsView *out);
gboolean ts_cpu_binary       (TsBinaryOp    op,
                              const TsView *a,
                              const TsView *b,
                              TsDType       common,
                              const TsView *out,
                              GError      **error);
/* add/sub with alpha (@op TS_BINARY_ADD or TS_BINARY_SUB): out = a op
 * alpha * b for contiguous @a, @b and @out of one floating dtype and
 * shape. float32 and float64 round once (a fused multiply-add, as
 * PyTorch's vectorized add_kernel and its CUDA kernel do); float16 and
 * bfloat16 round b * alpha to the dtype first, as PyTorch 1.13's CPU
 * kernel does. */
gboolean ts_cpu_binary_alpha (TsBinaryOp    op,
                              const TsView *a,
                              const TsView *b,
                              double        alpha,
                              const TsView *out,
                              GError      **error);
/* out = OP (in), computed in ts_unary_result_dtype (in->dtype). */
gboolean ts_cpu_unary        (TsUnaryOp     op,
                              const TsView *in,
                              const TsView *out,
                              GError      **error);
void     ts_cpu_fill         (const TsView *out,
                              double        value);
void     ts_cpu_fill_int     (const TsView *out,
                              gint64        value);
/* dst = src, src broadcast to dst's shape, converting dtypes. */
gboolean ts_cpu_copy         (const TsView *dst,
                              const TsView *src,
                              GError      **error);

/* -- Ranges --------------------------------------------------------------- */

/* torch.arange's length; "step must be nonzero", "upper bound and larger
 * bound inconsistent with step sign". */
gboolean ts_arange_numel     (double        start,
                              double        end,
                              double        step,
                              gint64       *numel,
                              GError      **error);
/* out[i] = start + i * step, computed as the CUDA kernel does: in float for
 * float32/16/bf16 outputs, double for float64, int64 for integers. */
void     ts_cpu_arange       (const TsView *out,
                              double        start,
                              double        step);
/* torch.linspace with steps = numel (out), the halfway-symmetric formula
 * of PyTorch's kernels: the first half counts up from start, the second
 * half down from end, so both ends are exact. */
void     ts_cpu_linspace     (const TsView *out,
                              double        start,
                              double        end);

/* -- Reductions ----------------------------------------------------------- */

typedef enum
{
  TS_REDUCE_SUM = 0,
  TS_REDUCE_MEAN,
  TS_REDUCE_PROD,
  TS_REDUCE_AMAX,     /* also max() / min() without a dim */
  TS_REDUCE_AMIN,
  TS_REDUCE_NORM2,    /* sqrt of the sum of squares, float32 or float64 */
  TS_N_REDUCE_OPS
} TsReduceOp;

/* sum/prod of integers and bool give int64; mean needs a floating input. */
gboolean ts_reduce_result_dtype (TsReduceOp    op,
                                 TsDType       input,
                                 TsDType      *result,
                                 GError      **error);
/* Shape of the result of reducing the dims in @dim_mask (bit d = dim d;
 * 0 means all dims). */
void     ts_reduce_shape        (const TsView *in,
                                 guint64       dim_mask,
                                 gboolean      keepdim,
                                 guint        *out_ndim,
                                 gint64       *out_shape);
/* Floating inputs accumulate in double, integers in int64; the result is
 * rounded once into @out (so float16 never accumulates in float16). */
gboolean ts_cpu_reduce          (TsReduceOp    op,
                                 const TsView *in,
                                 guint64       dim_mask,
                                 const TsView *out,
                                 GError      **error);
/* var over the dims in @dim_mask (0: all) of a floating @in into @out
 * (the reduced shape, with or without keepdim): the mean, then the sum of
 * squared deviations divided by max (0, n - @correction), both passes in
 * double and rounded once, as torch.var's two-pass form. */
gboolean ts_cpu_var             (const TsView *in,
                                 guint64       dim_mask,
                                 double        correction,
                                 gboolean      take_sqrt,
                                 const TsView *out,
                                 GError      **error);
/* torch.max(x, dim) / torch.min(x, dim): values and int64 indices; the
 * first occurrence wins, NaN wins over numbers (first NaN). @values and
 * @indices have the reduced shape (with or without keepdim: only the
 * element count and order matter). */
/* softmax (log_softmax where @log) of @in along @dim (in range) into
 * @out of the same shape; floating dtypes only. */
gboolean ts_softmax_check       (TsDType       dtype,
                                 gboolean      lastdim,
                                 gboolean      log,
                                 GError      **error);
gboolean ts_cpu_softmax         (const TsView *in,
                                 guint         dim,
                                 gboolean      log,
                                 const TsView *out,
                                 GError      **error);
/* _softmax_backward_data (_log_softmax_backward_data where @log): @out
 * from the incoming @grad and the forward's @output, all of one shape */
gboolean ts_cpu_softmax_backward (const TsView *grad,
                                  const TsView *output,
                                  guint         dim,
                                  gboolean      log,
                                  const TsView *out,
                                  GError      **error);
gboolean ts_cpu_max_dim         (const TsView *in,
                                 guint         dim,
                                 gboolean      is_min,
                                 const TsView *values,
                                 const TsView *indices,
                                 GError      **error);

/* -- Matrix products ------------------------------------------------------ */

/* out (m x n) = a (m x k) @ b (k x n). float32/float64 go to OpenBLAS
 * (copying operands whose strides BLAS cannot take); float16/bfloat16 are
 * converted to float32 for sgemm, accumulate in float32 and are rounded
 * once to nearest even, as tensor cores do; other dtypes loop. */
gboolean ts_cpu_mm              (const TsView *a,
                                 const TsView *b,
                                 const TsView *out,
                                 GError      **error);
/* out (B x m x n) = a (B x m x k) @ b (B x k x n). */
gboolean ts_cpu_bmm             (const TsView *a,
                                 const TsView *b,
                                 const TsView *out,
                                 GError      **error);
/* torch.addmm: out (m x n) = beta * input + alpha * (a @ b), @input
 * broadcast to (m, n) and of a's dtype, floating dtypes only. The product
 * and the sum are computed in float32 for float16/bfloat16 (PyTorch's
 * opmath, cuBLAS's compute type) and rounded once into @out; @input is
 * not read when @beta is 0. @out must not overlap the operands. */
gboolean ts_cpu_addmm           (const TsView *input,
                                 const TsView *a,
                                 const TsView *b,
                                 double        beta,
                                 double        alpha,
                                 const TsView *out,
                                 GError      **error);
/* torch.matmul's shape: 1-D operands get a dim prepended/appended and
 * removed again, batch dims broadcast. */
gboolean ts_matmul_shape        (const TsView *a,
                                 const TsView *b,
                                 guint        *out_ndim,
                                 gint64       *out_shape,
                                 GError      **error);
gboolean ts_cpu_matmul          (const TsView *a,
                                 const TsView *b,
                                 const TsView *out,
                                 GError      **error);

/* -- Moving elements by position (ts-cpu-shape.c) ------------------------ */

/* Steps the row-major index @idx of @shape; FALSE past the end */
gboolean ts_view_next_index     (guint         ndim,
                                 const gint64 *shape,
                                 gint64       *idx);

/* The op codes of the SHAPE family (the op list's KERNEL column). */
typedef enum
{
  TS_SHAPE_TRIL,
  TS_SHAPE_TRIU,
  TS_SHAPE_FLIP,
  TS_SHAPE_CAT,
} TsShapeOp;

/* tril (@upper FALSE) / triu: @out = @in with the elements of each matrix
 * (the last two dims) below / above diagonal @diagonal zeroed; @out may
 * be @in itself (tril_). */
gboolean ts_cpu_triangle        (const TsView *in,
                                 const TsView *out,
                                 gint64        diagonal,
                                 gboolean      upper,
                                 GError      **error);
/* cat: copies the @n_inputs views @inputs one after the other along @dim
 * into @out, the first at index @start (a launch copies a batch of the
 * inputs); the inputs have @out's shape but along @dim. */
gboolean ts_cpu_cat             (const TsView *inputs,
                                 guint         n_inputs,
                                 const TsView *out,
                                 int           dim,
                                 gint64        start,
                                 GError      **error);
/* flip: @out = @in reversed along each dim d with bit d of @dim_mask set;
 * @out must not overlap @in. */
gboolean ts_cpu_flip            (const TsView *in,
                                 const TsView *out,
                                 guint64       dim_mask,
                                 GError      **error);

/* -- Sorting and scans along a dim (ts-cpu-sort.c, ts-cpu-scan.c) ------- */

/* The index in @v of the start of slice @slice along @dim (the other dims
 * row-major; @idx[@dim] left as it is) */
void     ts_slice_index         (const TsView *v,
                                 guint         dim,
                                 gint64        slice,
                                 gint64       *idx);

/* The op codes of the SORT family (the op list's KERNEL column) */
typedef enum
{
  TS_SORT_SORT,
  TS_SORT_TOPK,
  TS_SORT_KTHVALUE,
} TsSortOp;

/* Sorts each slice of @in along @dim (stable; NaN largest) and writes
 * sorted positions [@start, @start + n) to @values (@in's dtype) and
 * @indices (int64), n their size along @dim. */
gboolean ts_cpu_sort            (const TsView *in,
                                 guint         dim,
                                 gboolean      descending,
                                 gint64        start,
                                 const TsView *values,
                                 const TsView *indices,
                                 GError      **error);

typedef enum
{
  TS_SCAN_CUMSUM,
  TS_SCAN_CUMPROD,
  TS_SCAN_CUMMAX,
  TS_SCAN_CUMMIN,
  TS_N_SCAN_OPS
} TsScanOp;

/* @out = the running sum/product of @in along @dim, in @out's dtype; or
 * the running max/min (@out of @in's dtype, ties to the later element,
 * NaN kept from the first one) with its int64 position in @indices
 * (NULL for sums and products) */
gboolean ts_cpu_scan            (TsScanOp      op,
                                 const TsView *in,
                                 guint         dim,
                                 const TsView *out,
                                 const TsView *indices,
                                 GError      **error);

/* -- Mixed precision (GradScaler) ---------------------------------------- */

/* _amp_foreach_non_finite_check_and_unscale_ over one gradient: @grad
 * (floating) times @inv_scale (a float element) in place, and @found_inf
 * (a float element) set to 1 when any element was inf or NaN. */
gboolean ts_cpu_amp_unscale      (const TsView  *grad,
                                  const TsView  *found_inf,
                                  const TsView  *inv_scale,
                                  GError       **error);
/* _amp_update_scale_: @scale (float) backs off after an inf, or grows
 * after @growth_interval good steps (@growth_tracker, int32, counts). */
gboolean ts_cpu_amp_update_scale (const TsView  *scale,
                                  const TsView  *growth_tracker,
                                  const TsView  *found_inf,
                                  double         growth_factor,
                                  double         backoff_factor,
                                  gint64         growth_interval,
                                  GError       **error);

/* -- Indexing ------------------------------------------------------------- */

/* The first out-of-range index a kernel met, so that the runtime can turn
 * it into a device-side assert of the right kernel and thread. */
typedef struct
{
  gint64 index;      /* the offending value */
  gint64 position;   /* its row-major position in the index tensor */
  gint64 dim_size;   /* the size it had to be below */
} TsIndexFailure;

/* out.scatter_ (dim, index, src) (@add FALSE) or scatter_add_: @index
 * int64 of @out's rank, @src of @out's dtype; out-of-range indices write
 * nothing, fail with PyTorch's message and fill @failure (nullable). */
gboolean ts_cpu_scatter         (const TsView   *out,
                                 guint           dim,
                                 const TsView   *index,
                                 const TsView   *src,
                                 gboolean        add,
                                 TsIndexFailure *failure,
                                 GError        **error);

/* out = in.index_select (dim, index); index is int64 or int32, 0-dim or
 * 1-D. Nothing is written when an index is out of range: the error is
 * "index out of range in self" and @failure (nullable) says which. */
gboolean ts_cpu_index_select    (const TsView   *in,
                                 guint           dim,
                                 const TsView   *index,
                                 const TsView   *out,
                                 TsIndexFailure *failure,
                                 GError        **error);
/* out = torch.gather (in, dim, index); out has index's shape.
 * "index 5 is out of bounds for dimension 0 with size 3". */
gboolean ts_cpu_gather          (const TsView   *in,
                                 guint           dim,
                                 const TsView   *index,
                                 const TsView   *out,
                                 TsIndexFailure *failure,
                                 GError        **error);

/* PyTorch's index (index_put_ writes values there): the k indexed dims
 * of in are dims pos .. pos + k - 1, index is an integer tensor of shape
 * (*B, k) stacking one index per dim (negative ones wrap), and out has
 * shape in.shape[:pos] + B + in.shape[pos + k:]. A bad index writes
 * nothing: "index 5 is out of bounds for dimension 0 with size 3" (the
 * dimension is j, the index's place among the k) and @failure says which
 * (its position is in the stacked tensor). */
gboolean ts_cpu_index           (const TsView   *in,
                                 guint           pos,
                                 const TsView   *index,
                                 const TsView   *out,
                                 TsIndexFailure *failure,
                                 GError        **error);
gboolean ts_cpu_index_put       (const TsView   *self,
                                 guint           pos,
                                 const TsView   *index,
                                 const TsView   *values,
                                 gboolean        accumulate,
                                 TsIndexFailure *failure,
                                 GError        **error);
/* nonzero: out is (ts_cpu_count_nonzero (in), in.ndim) int64, the
 * positions of in's nonzero elements in row-major order. */
gint64   ts_cpu_count_nonzero   (const TsView   *in);
gboolean ts_cpu_nonzero         (const TsView   *in,
                                 const TsView   *out,
                                 GError        **error);
/* self[mask] = value: mask is bool with self's element count (broadcast
 * by the caller), value one element of self's dtype. */
gboolean ts_cpu_masked_fill     (const TsView   *self,
                                 const TsView   *mask,
                                 const TsView   *value,
                                 GError        **error);

/* -- Random fills (see ts-philox.h for the element mapping) ---------------- */

/* The launch plan of a random fill of @out on a device with @sm_count SMs
 * of @max_threads_per_sm threads: 4 values per philox call, 2 for float64. */
void     ts_cpu_random_plan     (const TsView   *out,
                                 guint           sm_count,
                                 guint           max_threads_per_sm,
                                 TsPhiloxLaunch *plan);
/* The fills draw from (seed, offset), the offset the generator returned
 * from ts_philox_generator_reserve (gen, plan->offset_increment). */
gboolean ts_cpu_uniform         (const TsView         *out,
                                 double                from,
                                 double                to,
                                 guint64               seed,
                                 guint64               offset,
                                 const TsPhiloxLaunch *plan,
                                 GError              **error);
gboolean ts_cpu_normal          (const TsView         *out,
                                 double                mean,
                                 double                std,
                                 guint64               seed,
                                 guint64               offset,
                                 const TsPhiloxLaunch *plan,
                                 GError              **error);
/* bernoulli_(p) with a scalar p: out = uniform < p, any output dtype. */
gboolean ts_cpu_bernoulli       (const TsView         *out,
                                 double                p,
                                 guint64               seed,
                                 guint64               offset,
                                 const TsPhiloxLaunch *plan,
                                 GError              **error);

/* -- CPU random fills from the mt19937 generator (PyTorch's CPU kernels) -- */

/* uniform_kernel: one uniform_real_distribution<scalar_t> draw per element,
 * serially, in TensorIterator order. */
gboolean ts_cpu_uniform_mt     (const TsView   *out,
                                double          from,
                                double          to,
                                TsCpuGenerator *gen,
                                GError        **error);
/* normal_kernel: normal_fill (uniforms, then Box-Muller in blocks of 16,
 * the AVX2 variant for float32) when @out is contiguous with >= 16
 * elements, otherwise serial normal_distribution<double>. */
gboolean ts_cpu_normal_mt      (const TsView   *out,
                                double          mean,
                                double          std,
                                TsCpuGenerator *gen,
                                GError        **error);
/* bernoulli_kernel with a scalar p: uniform double < p, serially. */
gboolean ts_cpu_bernoulli_mt   (const TsView   *out,
                                double          p,
                                TsCpuGenerator *gen,
                                GError        **error);

/* random_(from, to): one draw per element modulo to - from (@range), plus
 * from; 32-bit draws for a range below 2^32, 64-bit ones otherwise. */
gboolean ts_cpu_random_from_to_mt (const TsView   *out,
                                   gint64          from,
                                   guint64         range,
                                   TsCpuGenerator *gen,
                                   GError        **error);
/* randperm: a Fisher-Yates shuffle of 0..n-1 over a 1-d @out. */
gboolean ts_cpu_randperm_mt    (const TsView   *out,
                                TsCpuGenerator *gen,
                                GError        **error);

/* where: out[i] = cond[i] ? self[i] : other[i], all four of one shape (the
 * caller broadcasts), self, other and out of one dtype, cond bool. */
gboolean ts_cpu_where          (const TsView   *out,
                                const TsView   *cond,
                                const TsView   *self,
                                const TsView   *other,
                                GError        **error);

/* lerp (self, end, weight): weight a view of out's shape, or NULL for
 * @scalar_weight; addcmul: self + value * tensor1 * tensor2 (@divide:
 * addcdiv, self + value * tensor1 / tensor2, floating types). All operands
 * of out's shape and dtype (the caller broadcasts and casts); PyTorch's
 * CPU rounding, fused multiply-adds included (ts-cpu-more.c). */
gboolean ts_cpu_lerp           (const TsView   *out,
                                const TsView   *self,
                                const TsView   *end,
                                const TsView   *weight,
                                double          scalar_weight,
                                GError        **error);
/* clamp (self, min, max) of float32 or float64: clamp_min, then
 * clamp_max, in one pass */
gboolean ts_cpu_clamp          (const TsView   *out,
                                const TsView   *self,
                                double          min,
                                double          max,
                                GError        **error);
gboolean ts_cpu_addcmul        (const TsView   *out,
                                const TsView   *self,
                                const TsView   *tensor1,
                                const TsView   *tensor2,
                                double          value,
                                gboolean        divide,
                                GError        **error);

/* mv: out (m) = mat (m x k) @ vec (k), PyTorch's gemv (ts-cpu-more.c). */
gboolean ts_cpu_mv             (const TsView   *out,
                                const TsView   *mat,
                                const TsView   *vec,
                                GError        **error);

/* -- Cost model inputs ----------------------------------------------------- */

typedef struct
{
  double flops;   /* arithmetic operations */
  double bytes;   /* bytes read plus bytes written in device memory */
} TsKernelCost;

/* Flops per output element of each op (transcendentals count as several). */
double       ts_binary_op_flops (TsBinaryOp op);
double       ts_unary_op_flops  (TsUnaryOp  op);
TsKernelCost ts_cost_binary     (TsBinaryOp    op,
                                 const TsView *a,
                                 const TsView *b,
                                 const TsView *out);
TsKernelCost ts_cost_unary      (TsUnaryOp     op,
                                 const TsView *in,
                                 const TsView *out);
/* fill, arange, linspace: writes only. */
TsKernelCost ts_cost_fill       (const TsView *out);
TsKernelCost ts_cost_copy       (const TsView *dst,
                                 const TsView *src);
TsKernelCost ts_cost_softmax    (const TsView *in,
                                 const TsView *out);
TsKernelCost ts_cost_reduce     (const TsView *in,
                                 const TsView *out);
/* 2 * batch * m * n * k flops; each operand read once, out written once. */
TsKernelCost ts_cost_matmul     (gint64        batch,
                                 gint64        m,
                                 gint64        n,
                                 gint64        k,
                                 TsDType       dtype);
TsKernelCost ts_cost_index      (const TsView *index,
                                 const TsView *out);
/* Philox: ~10 rounds of 2 multiplies per 4 values, plus the transform. */
TsKernelCost ts_cost_random     (const TsView *out,
                                 gboolean      normal);

G_END_DECLS
