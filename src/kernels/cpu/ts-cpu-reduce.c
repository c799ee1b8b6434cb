/* ts-cpu-reduce.c: sum, mean, prod, amax/amin and max/min along a dim
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reductions accumulate into a scratch array of doubles (floating inputs)
 * or int64s (integers), one per output element, by iterating the input
 * together with a view of the scratch array whose reduced dims have stride
 * 0. The result is rounded into the output once at the end.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-cpu-kernels.h"
#include "ts-cpu-kernels-private.h"
#include "ts-cpu-convert.h"

gboolean
ts_reduce_result_dtype (TsReduceOp  op,
                        TsDType     input,
                        TsDType    *result,
                        GError    **error)
{
  g_return_val_if_fail (ts_dtype_is_valid (input), FALSE);
  g_return_val_if_fail (result != NULL, FALSE);

  switch (op)
    {
    case TS_REDUCE_SUM:
    case TS_REDUCE_PROD:
      *result = ts_dtype_is_floating (input) || ts_dtype_is_complex (input) ? input : TS_DTYPE_INT64;
      return TRUE;
    case TS_REDUCE_MEAN:
      if (!ts_dtype_is_floating (input) && !ts_dtype_is_complex (input))
        return ts_kernel_fail (error, TS_KERNEL_ERROR_DTYPE,
                               "mean(): could not infer output dtype. Input dtype must be either "
                               "a floating point or complex dtype. Got: %s", ts_dtype_scalar_type_name (input));
      *result = input;
      return TRUE;
    case TS_REDUCE_AMAX:
    case TS_REDUCE_AMIN:
      if (ts_dtype_is_complex (input))
        return ts_kernel_fail_dispatch (error, op == TS_REDUCE_AMAX ? "max_all" : "min_all", input);
      *result = input;
      return TRUE;
    case TS_REDUCE_NORM2:
      if (input != TS_DTYPE_FLOAT32 && input != TS_DTYPE_FLOAT64)
        return ts_kernel_fail (error, TS_KERNEL_ERROR_DTYPE,
                               "norm(): one launch only for float32 and float64, not %s",
                               ts_dtype_scalar_type_name (input));
      *result = input;
      return TRUE;
    case TS_N_REDUCE_OPS:
    default:
      g_return_val_if_reached (FALSE);
    }
}

static gboolean
dim_reduced (guint64 dim_mask,
             guint   d)
{
  return dim_mask == 0 || (dim_mask & (G_GUINT64_CONSTANT (1) << d)) != 0;
}

void
ts_reduce_shape (const TsView *in,
                 guint64       dim_mask,
                 gboolean      keepdim,
                 guint        *out_ndim,
                 gint64       *out_shape)
{
  guint n = 0;

  g_return_if_fail (in != NULL && out_ndim != NULL && out_shape != NULL);

  for (guint d = 0; d < in->ndim; d++)
    {
      if (!dim_reduced (dim_mask, d))
        out_shape[n++] = in->shape[d];
      else if (keepdim)
        out_shape[n++] = 1;
    }
  *out_ndim = n;
}

typedef struct
{
  TsReduceOp op;
  TsDType    dtype;
  gboolean   floating;
} ReduceCtx;

/* One floating element into its double accumulator. */
static inline void
accumulate (TsReduceOp  op,
            double     *acc,
            double      x)
{
  switch (op)
    {
    case TS_REDUCE_SUM:
    case TS_REDUCE_MEAN: *acc += x; break;
    case TS_REDUCE_PROD: *acc *= x; break;
    case TS_REDUCE_AMAX: if (isnan (x) || x > *acc) *acc = isnan (*acc) ? *acc : x; break;
    case TS_REDUCE_AMIN: if (isnan (x) || x < *acc) *acc = isnan (*acc) ? *acc : x; break;
    case TS_REDUCE_NORM2: *acc += x * x; break;   /* float64: the square a double */
    case TS_N_REDUCE_OPS:
    default: g_assert_not_reached ();
    }
}

/* A product in PyTorch's order (binary_kernel_reduce_vec, in the dtype
 * itself, where sums use a double accumulator here): a dense run goes in
 * blocks of four vectors of W lanes, the vectors multiplied lane by lane
 * block after block, then combined as (v0 v1)(v2 v3) and their lanes
 * folded in order into @acc; the tail, and any strided run, one element
 * after the other. W is the AVX2 vector's: 8 floats, 4 doubles (checked
 * against python3-torch: det([[1, 2], [3, 4]]) is -2, where the double
 * product rounded once gave -1.9999999). */
#define DEFINE_PROD_RUN(NAME, T, W)                                           \
static T                                                                      \
NAME (T acc, const char *p, gint64 stride, gint64 n)                          \
{                                                                             \
  gint64 done = 0;                                                            \
                                                                              \
  if (stride == sizeof (T) && n >= 4 * (W))                                   \
    {                                                                         \
      const T *x = (const T *)(gconstpointer) p;                              \
      T v[4 * (W)], lanes;                                                    \
                                                                              \
      memcpy (v, x, sizeof v);                                                \
      for (done = 4 * (W); done + 4 * (W) <= n; done += 4 * (W))              \
        for (guint j = 0; j < 4 * (W); j++)                                   \
          v[j] *= x[done + j];                                                \
      for (guint j = 0; j < (W); j++)                                         \
        v[j] = (v[j] * v[(W) + j]) * (v[2 * (W) + j] * v[3 * (W) + j]);       \
      lanes = v[0];                                                           \
      for (guint j = 1; j < (W); j++)                                         \
        lanes *= v[j];                                                        \
      acc *= lanes;                                                           \
    }                                                                         \
  for (p += done * stride; done < n; done++, p += stride)                     \
    acc *= *(const T *)(gconstpointer) p;                                     \
  return acc;                                                                 \
}
DEFINE_PROD_RUN (prod_run_f32, float, 8)
DEFINE_PROD_RUN (prod_run_f64, double, 4)
#undef DEFINE_PROD_RUN

/* float32 or float64 products, in their own dtype: a run into one
 * accumulator, or each element into its own (the double accumulators
 * hold values of the dtype). Returns FALSE for anything else. */
static gboolean
reduce_prod (const ReduceCtx *ctx,
             char * const    *ptrs,
             const gint64    *strides,
             gint64           n)
{
  double *acc = (double *)(gpointer) ptrs[1];
  const char *pi = ptrs[0];

  if (ctx->op != TS_REDUCE_PROD || (ctx->dtype != TS_DTYPE_FLOAT32 && ctx->dtype != TS_DTYPE_FLOAT64))
    return FALSE;
  if (strides[1] == 0)
    *acc = ctx->dtype == TS_DTYPE_FLOAT32 ? prod_run_f32 ((float) *acc, pi, strides[0], n)
                                          : prod_run_f64 (*acc, pi, strides[0], n);
  else
    for (gint64 i = 0; i < n; i++, pi += strides[0], acc = (double *)(gpointer)((char *) acc + strides[1]))
      *acc = ctx->dtype == TS_DTYPE_FLOAT32 ? (double) ((float) *acc * *(const float *)(gconstpointer) pi)
                                            : *acc * *(const double *)(gconstpointer) pi;
  return TRUE;
}

/* float32/float16/bfloat16: the input converted to float32 a buffer at a
 * time rather than with a dtype switch per element; a run summed into one
 * accumulator (the common case) in a plain loop. norm's squares are
 * rounded to float32 before they are summed, as the x * x then sum it
 * stands for rounds them (the same values as those two launches). */
static void
reduce_runs_f32 (const ReduceCtx *ctx,
                 char * const    *ptrs,
                 const gint64    *strides,
                 gint64           n)
{
  gboolean one_sum = strides[1] == 0 && (ctx->op == TS_REDUCE_SUM || ctx->op == TS_REDUCE_MEAN ||
                                         ctx->op == TS_REDUCE_NORM2);
  float buf[TS_CPU_RUN];

  /* float32 into one max or min: accumulate ()'s comparisons, typed and
   * read in place (through buf and its switch an element, a.amax (1) of
   * 512x512 cost 15 times PyTorch's) */
  if (strides[1] == 0 && ctx->dtype == TS_DTYPE_FLOAT32 &&
      (ctx->op == TS_REDUCE_AMAX || ctx->op == TS_REDUCE_AMIN))
    {
      double *acc = (double *)(gpointer) ptrs[1];
      double m = *acc;
      const char *p = ptrs[0];

      for (gint64 i = 0; i < n && !isnan (m); i++, p += strides[0])
        {
          float x = *(const float *)(gconstpointer) p;

          if (isnan (x) || (ctx->op == TS_REDUCE_AMAX ? x > m : x < m))
            m = x;
        }
      *acc = m;
      return;
    }

  /* dense float32 into one sum: the same additions in the same order,
   * read in place rather than copied through buf first */
  if (one_sum && ctx->dtype == TS_DTYPE_FLOAT32 && strides[0] == sizeof (float))
    {
      const float *x = (const float *)(gconstpointer) ptrs[0];
      double *acc = (double *)(gpointer) ptrs[1];
      double s = *acc;

      if (ctx->op == TS_REDUCE_NORM2)
        for (gint64 i = 0; i < n; i++)
          {
            float square = x[i] * x[i];   /* rounded to float32, as below */

            s += square;
          }
      else
        for (gint64 i = 0; i < n; i++)
          s += x[i];
      *acc = s;
      return;
    }

  /* dense float32 into a row of sums (a bias gradient: the batch summed
   * away): each element into its own accumulator, a loop that vectorizes */
  if (!one_sum && (ctx->op == TS_REDUCE_SUM || ctx->op == TS_REDUCE_MEAN) &&
      ctx->dtype == TS_DTYPE_FLOAT32 && strides[0] == sizeof (float) && strides[1] == sizeof (double))
    {
      const float *x = (const float *)(gconstpointer) ptrs[0];
      double *acc = (double *)(gpointer) ptrs[1];

      for (gint64 i = 0; i < n; i++)
        acc[i] += x[i];
      return;
    }

  for (gint64 done = 0; done < n; done += TS_CPU_RUN)
    {
      gint64 len = MIN (n - done, TS_CPU_RUN);
      char *pa = ptrs[1] + done * strides[1];

      ts_cpu_load_f32 (ctx->dtype, ptrs[0] + done * strides[0], strides[0], buf, len);
      if (ctx->op == TS_REDUCE_NORM2)
        for (gint64 i = 0; i < len; i++)
          buf[i] = buf[i] * buf[i];
      if (one_sum)
        {
          double *acc = (double *)(gpointer)pa;
          double s = *acc;

          for (gint64 i = 0; i < len; i++)
            s += buf[i];
          *acc = s;
        }
      else
        for (gint64 i = 0; i < len; i++)
          accumulate (ctx->op == TS_REDUCE_NORM2 ? TS_REDUCE_SUM : ctx->op,
                      (double *)(gpointer)(pa + i * strides[1]), buf[i]);
    }
}

static void
reduce_loop (char         **ptrs,
             const gint64  *strides,
             gint64         n,
             gpointer       user_data)
{
  ReduceCtx *ctx = user_data;
  char *pi = ptrs[0], *pa = ptrs[1];

  if (reduce_prod (ctx, ptrs, strides, n))
    return;
  if (ctx->floating && ctx->dtype != TS_DTYPE_FLOAT64)
    {
      reduce_runs_f32 (ctx, ptrs, strides, n);
      return;
    }

  /* float64 summed into one accumulator, without the dtype switch */
  if (strides[1] == 0 && (ctx->op == TS_REDUCE_SUM || ctx->op == TS_REDUCE_MEAN) && ctx->floating)
    {
      double *acc = (double *)(gpointer)pa;
      double s = *acc;

      for (gint64 i = 0; i < n; i++, pi += strides[0])
        s += *(const double *)(gconstpointer)pi;
      *acc = s;
      return;
    }
  if (strides[1] == 0 && ctx->op == TS_REDUCE_NORM2)
    {
      double *acc = (double *)(gpointer)pa;
      double s = *acc;

      for (gint64 i = 0; i < n; i++, pi += strides[0])
        {
          double x = *(const double *)(gconstpointer)pi;

          s += x * x;
        }
      *acc = s;
      return;
    }

  for (gint64 i = 0; i < n; i++, pi += strides[0], pa += strides[1])
    {
      if (ctx->floating)
        accumulate (ctx->op, (double *)(gpointer)pa, ts_dtype_load (ctx->dtype, pi));
      else
        {
          gint64 x = ts_dtype_load_int (ctx->dtype, pi);
          gint64 *acc = (gint64 *)(gpointer)pa;

          switch (ctx->op)
            {
            case TS_REDUCE_SUM: *acc = (gint64)((guint64)*acc + (guint64)x); break;
            case TS_REDUCE_PROD: *acc = (gint64)((guint64)*acc * (guint64)x); break;
            case TS_REDUCE_AMAX: *acc = MAX (*acc, x); break;
            case TS_REDUCE_AMIN: *acc = MIN (*acc, x); break;
            case TS_REDUCE_MEAN:
            case TS_N_REDUCE_OPS:
            default: g_assert_not_reached ();
            }
        }
    }
}

static gboolean
check_reduce_sizes (TsReduceOp     op,
                    const TsView  *in,
                    guint64        dim_mask,
                    GError       **error)
{
  if (op != TS_REDUCE_AMAX && op != TS_REDUCE_AMIN)
    return TRUE;
  if (dim_mask == 0 && ts_view_numel (in) == 0)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_INDEX,
                           "%s(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.",
                           op == TS_REDUCE_AMAX ? "max" : "min");
  for (guint d = 0; d < in->ndim; d++)
    {
      if (dim_reduced (dim_mask, d) && in->shape[d] == 0)
        return ts_kernel_fail (error, TS_KERNEL_ERROR_INDEX,
                               "%s(): Expected reduction dim %u to have non-zero size.",
                               op == TS_REDUCE_AMAX ? "amax" : "amin", d);
    }
  return TRUE;
}

/* @view's real components, with a last dim of 2: sums and means of
 * complex numbers are those of their real and imaginary parts */
static void
complex_as_real (const TsView *view,
                 TsView       *real)
{
  *real = *view;
  real->dtype = ts_dtype_to_real (view->dtype);
  real->offset = 2 * view->offset;
  for (guint d = 0; d < view->ndim; d++)
    real->strides[d] = 2 * view->strides[d];
  real->shape[view->ndim] = 2;
  real->strides[view->ndim] = 1;
  real->ndim = view->ndim + 1;
}

static gboolean
reduce_complex (TsReduceOp    op,
                const TsView *in,
                guint64       dim_mask,
                const TsView *out,
                GError      **error)
{
  TsView rin, rout;
  TsDType unused;

  if (op != TS_REDUCE_SUM && op != TS_REDUCE_MEAN)
    {
      if (!ts_reduce_result_dtype (op, in->dtype, &unused, error))
        return FALSE;
      g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_DTYPE,
                   "prod of %s tensors is not modeled by Tensorscope yet", ts_dtype_scalar_type_name (in->dtype));
      return FALSE;
    }
  if (in->ndim >= TS_MAX_DIMS || !ts_dtype_is_complex (out->dtype))
    return ts_kernel_fail (error, TS_KERNEL_ERROR_DTYPE,
                           "sum/mean of a complex tensor: Tensorscope needs a complex output of fewer than %d dims",
                           TS_MAX_DIMS);
  complex_as_real (in, &rin);
  complex_as_real (out, &rout);
  /* mask 0 means every dim: name them, the components' dim is kept */
  if (dim_mask == 0)
    dim_mask = (G_GUINT64_CONSTANT (1) << in->ndim) - 1;
  return ts_cpu_reduce (op, &rin, dim_mask, &rout, error);
}

/* A float32 or float64 sum or mean in PyTorch's order and precision
 * (ts-cpu-sum.c): the mean is that sum divided by the count in the dtype,
 * as ATen's CPU mean is sum ().div_ (n). */
static gboolean
sum_in_order (TsReduceOp    op,
              const TsView *in,
              const gint64 *acc_strides,
              gint64        count,
              gint64        out_numel,
              const TsView *out)
{
  g_autofree char *acc = g_malloc0 (ts_dtype_size (in->dtype) * (gsize) MAX (out_numel, 1));

  ts_cpu_sum_cascade (in, acc_strides, acc);
  for (gint64 i = 0; i < out_numel; i++)
    {
      gpointer dst = ts_view_linear_ptr (out, i);

      if (in->dtype == TS_DTYPE_FLOAT32)
        {
          float v = ((float *) (gpointer) acc)[i];

          if (op == TS_REDUCE_MEAN)
            v = v / (float) count;
          memcpy (dst, &v, sizeof v);
        }
      else
        {
          double v = ((double *) (gpointer) acc)[i];

          if (op == TS_REDUCE_MEAN)
            v = v / (double) count;
          memcpy (dst, &v, sizeof v);
        }
    }
  return TRUE;
}

gboolean
ts_cpu_reduce (TsReduceOp    op,
               const TsView *in,
               guint64       dim_mask,
               const TsView *out,
               GError      **error)
{
  const TsView *operands[2];
  g_autofree gint64 *acc = NULL;
  gint64 acc_shape[TS_MAX_DIMS];
  gint64 acc_strides[TS_MAX_DIMS];
  gint64 out_numel = 1;
  gint64 count = 1;
  gint64 stride = 1;
  TsView acc_view;
  ReduceCtx ctx;
  TsIter iter;

  g_return_val_if_fail (op < TS_N_REDUCE_OPS, FALSE);
  g_return_val_if_fail (in != NULL && out != NULL, FALSE);

  if (ts_dtype_is_complex (in->dtype))
    return reduce_complex (op, in, dim_mask, out, error);
  if (!check_reduce_sizes (op, in, dim_mask, error))
    return FALSE;

  /* The scratch array is laid out in the order of the kept dims. */
  for (guint d = in->ndim; d-- > 0;)
    {
      acc_shape[d] = in->shape[d];
      if (dim_reduced (dim_mask, d))
        {
          acc_strides[d] = 0;
          count *= in->shape[d];
        }
      else
        {
          acc_strides[d] = stride;
          stride *= MAX (in->shape[d], 1);
          out_numel *= in->shape[d];
        }
    }
  if (ts_view_numel (out) != out_numel)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE, "output size does not match the reduced shape");

  ctx.op = op;
  ctx.dtype = in->dtype;
  ctx.floating = ts_dtype_is_floating (in->dtype);
  if ((op == TS_REDUCE_MEAN && !ctx.floating) || 
      (op == TS_REDUCE_NORM2 && in->dtype != TS_DTYPE_FLOAT32 && in->dtype != TS_DTYPE_FLOAT64))
    {
      TsDType unused;
      return ts_reduce_result_dtype (op, in->dtype, &unused, error);
    }

  if ((op == TS_REDUCE_SUM || op == TS_REDUCE_MEAN) && in->dtype == out->dtype &&
      (in->dtype == TS_DTYPE_FLOAT32 || in->dtype == TS_DTYPE_FLOAT64))
    return sum_in_order (op, in, acc_strides, count, out_numel, out);

  acc = g_new (gint64, MAX (out_numel, 1));
  for (gint64 i = 0; i < out_numel; i++)
    {
      double *f = (double *)(gpointer)&acc[i];

      switch (op)
        {
        case TS_REDUCE_SUM:
        case TS_REDUCE_NORM2:
        case TS_REDUCE_MEAN: if (ctx.floating) *f = 0.0; else acc[i] = 0; break;
        case TS_REDUCE_PROD: if (ctx.floating) *f = 1.0; else acc[i] = 1; break;
        case TS_REDUCE_AMAX: if (ctx.floating) *f = -INFINITY; else acc[i] = G_MININT64; break;
        case TS_REDUCE_AMIN: if (ctx.floating) *f = INFINITY; else acc[i] = G_MAXINT64; break;
        case TS_N_REDUCE_OPS:
        default: g_assert_not_reached ();
        }
    }

  ts_view_init (&acc_view, ctx.floating ? TS_DTYPE_FLOAT64 : TS_DTYPE_INT64, acc,
                in->ndim, acc_shape, acc_strides, 0);
  operands[0] = in;
  operands[1] = &acc_view;
  if (!ts_iter_init (&iter, in->ndim, in->shape, operands, 2, error))
    return FALSE;
  ts_iter_for_each (&iter, reduce_loop, &ctx);

  for (gint64 i = 0; i < out_numel; i++)
    {
      gpointer dst = ts_view_linear_ptr (out, i);

      if (ctx.floating)
        {
          double v = *(double *)(gpointer)&acc[i];

          if (op == TS_REDUCE_MEAN)
            v = count > 0 ? v / (double)count : NAN;
          /* the sum rounded to the dtype, then its square root: the
           * sum's and sqrt's launches it stands for */
          if (op == TS_REDUCE_NORM2)
            v = sqrt (out->dtype == TS_DTYPE_FLOAT32 ? (double) (float) v : v);
          ts_dtype_store (out->dtype, dst, v);
        }
      else
        ts_dtype_store_int (out->dtype, dst, acc[i]);
    }
  return TRUE;
}

typedef struct
{
  TsDType  dtype;
  gint64   size;       /* length of the reduced dim */
  gint64   stride;     /* its stride in bytes */
  gboolean is_min;
  TsDType  values_dtype;
} MaxDimCtx;

/* One float32 row, compared as float32 (the same order as through
 * double: a float converts exactly), without the per-element load switch
 * that made the generic loop five times a small max(dim)'s launch cost.
 * The first NaN wins, as in PyTorch. */
#define MAX_DIM_ROW_F32(NAME, BETTER)                                         \
static gint64                                                                 \
NAME (const char *row,                                                        \
      gint64      size,                                                       \
      gint64      stride,                                                     \
      float      *value)                                                      \
{                                                                             \
  float bv;                                                                   \
  gint64 best = 0;                                                            \
                                                                              \
  memcpy (&bv, row, sizeof bv);                                               \
  if (isnan (bv))  /* a NaN first element wins */                             \
    {                                                                         \
      *value = bv;                                                            \
      return 0;                                                               \
    }                                                                         \
  for (gint64 j = 1; j < size; j++)                                           \
    {                                                                         \
      float x;                                                                \
                                                                              \
      memcpy (&x, row + j * stride, sizeof x);                                \
      if (BETTER (x, bv))                                                     \
        {                                                                     \
          bv = x;                                                             \
          best = j;                                                           \
        }                                                                     \
      else if (G_UNLIKELY (isnan (x)))  /* false in BETTER: the first wins */ \
        {                                                                     \
          bv = x;                                                             \
          best = j;                                                           \
          break;                                                              \
        }                                                                     \
    }                                                                         \
  *value = bv;                                                                \
  return best;                                                                \
}
/* One float32 row, compared as float32 (the same order as through
 * double: a float converts exactly), without the per-element load switch
 * that made the generic loop five times a small max(dim)'s launch cost;
 * max and min each get their loop. The first NaN wins, as in PyTorch. */
#define GREATER(x, y) ((x) > (y))
#define LESS(x, y) ((x) < (y))
MAX_DIM_ROW_F32 (max_row_f32, GREATER)
MAX_DIM_ROW_F32 (min_row_f32, LESS)
#undef GREATER
#undef LESS
#undef MAX_DIM_ROW_F32

static void
max_dim_loop (char         **ptrs,
              const gint64  *strides,
              gint64         n,
              gpointer       user_data)
{
  MaxDimCtx *ctx = user_data;
  gboolean floating = ts_dtype_is_floating (ctx->dtype);
  gboolean f32 = ctx->dtype == TS_DTYPE_FLOAT32 && ctx->values_dtype == TS_DTYPE_FLOAT32;

  for (gint64 i = 0; i < n; i++)
    {
      const char *row = ptrs[0] + i * strides[0];
      char *value_out = ptrs[1] + i * strides[1];
      gint64 *index_out = (gint64 *)(gpointer)(ptrs[2] + i * strides[2]);
      gint64 best = 0;

      if (f32)
        {
          float v;

          best = ctx->is_min ? min_row_f32 (row, ctx->size, ctx->stride, &v)
                             : max_row_f32 (row, ctx->size, ctx->stride, &v);
          memcpy (value_out, &v, sizeof v);
        }
      else if (floating)
        {
          double bv = ts_dtype_load (ctx->dtype, row);

          for (gint64 j = 1; j < ctx->size && !isnan (bv); j++)
            {
              double x = ts_dtype_load (ctx->dtype, row + j * ctx->stride);

              if (isnan (x) || (ctx->is_min ? x < bv : x > bv))
                {
                  bv = x;
                  best = j;
                }
            }
          ts_dtype_store (ctx->values_dtype, value_out, bv);
        }
      else
        {
          gint64 bv = ts_dtype_load_int (ctx->dtype, row);

          for (gint64 j = 1; j < ctx->size; j++)
            {
              gint64 x = ts_dtype_load_int (ctx->dtype, row + j * ctx->stride);

              if (ctx->is_min ? x < bv : x > bv)
                {
                  bv = x;
                  best = j;
                }
            }
          ts_dtype_store_int (ctx->values_dtype, value_out, bv);
        }
      memcpy (index_out, &best, sizeof best);
    }
}

/* A view of a reduced result with the reduced dim put back as size 1. */
static gboolean
expand_reduced (const TsView  *in,
                guint          dim,
                const TsView  *reduced,
                TsView        *expanded,
                GError       **error)
{
  *expanded = *reduced;
  if (reduced->ndim + 1 == in->ndim)
    {
      for (guint d = in->ndim - 1; d > dim; d--)
        {
          expanded->shape[d] = reduced->shape[d - 1];
          expanded->strides[d] = reduced->strides[d - 1];
        }
      expanded->shape[dim] = 1;
      expanded->strides[dim] = 0;
      expanded->ndim = in->ndim;
    }
  else if (reduced->ndim != in->ndim || (in->ndim > 0 && reduced->shape[dim] != 1))
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE, "output shape does not match the reduced shape");
  return TRUE;
}

gboolean
ts_cpu_max_dim (const TsView *in,
                guint         dim,
                gboolean      is_min,
                const TsView *values,
                const TsView *indices,
                GError      **error)
{
  const TsView *operands[3];
  gint64 shape[TS_MAX_DIMS];
  TsView in_rows, values_x, indices_x;
  MaxDimCtx ctx;
  TsIter iter;

  g_return_val_if_fail (in != NULL && values != NULL && indices != NULL, FALSE);
  g_return_val_if_fail (indices->dtype == TS_DTYPE_INT64, FALSE);

  if (in->ndim == 0)
    {
      /* max of a 0-dim tensor along dim 0/-1 is the value itself */
      gint64 zero = 0;

      if (dim != 0)
        return ts_wrap_dim (dim, 0, NULL, error);
      ts_dtype_store (values->dtype, ts_view_linear_ptr (values, 0),
                      ts_dtype_load (in->dtype, ts_view_linear_ptr (in, 0)));
      memcpy (ts_view_linear_ptr (indices, 0), &zero, sizeof zero);
      return TRUE;
    }
  if (dim >= in->ndim)
    return ts_wrap_dim (dim, in->ndim, NULL, error);
  if (in->shape[dim] == 0)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_INDEX,
                           "%s(): Expected reduction dim %u to have non-zero size.",
                           is_min ? "min" : "max", dim);

  if (!expand_reduced (in, dim, values, &values_x, error) ||
      !expand_reduced (in, dim, indices, &indices_x, error))
    return FALSE;

  memcpy (shape, in->shape, sizeof shape);
  shape[dim] = 1;
  in_rows = *in;
  in_rows.shape[dim] = 1;

  ctx.dtype = in->dtype;
  ctx.size = in->shape[dim];
  ctx.stride = in->strides[dim] * (gint64)ts_dtype_size (in->dtype);
  ctx.is_min = is_min;
  ctx.values_dtype = values->dtype;

  operands[0] = &in_rows;
  operands[1] = &values_x;
  operands[2] = &indices_x;
  if (!ts_iter_init (&iter, in->ndim, shape, operands, 3, error))
    return FALSE;
  ts_iter_for_each (&iter, max_dim_loop, &ctx);
  return TRUE;
}

/* The element offsets (in elements, from the view's start) of the
 * @n_dims dims in @dims, row-major, for index @i. */
static gint64
dims_offset (const TsView *v,
             const guint  *dims,
             guint         n_dims,
             gint64        i)
{
  gint64 off = 0;

  for (guint k = n_dims; k-- > 0;)
    {
      off += (i % v->shape[dims[k]]) * v->strides[dims[k]];
      i /= v->shape[dims[k]];
    }
  return off;
}

gboolean
ts_cpu_var (const TsView  *in,
            guint64        dim_mask,
            double         correction,
            gboolean       take_sqrt,
            const TsView  *out,
            GError       **error)
{
  guint kept[TS_MAX_DIMS], reduced[TS_MAX_DIMS], n_kept = 0, n_reduced = 0;
  gsize elem = ts_dtype_size (in->dtype);
  gint64 n = 1, n_out = ts_view_numel (out);

  if (!ts_dtype_is_floating (in->dtype) || !ts_dtype_is_floating (out->dtype))
    return ts_kernel_fail (error, TS_KERNEL_ERROR_DTYPE,
                           "std and var only support floating point and complex dtypes");
  for (guint d = 0; d < in->ndim; d++)
    if (dim_mask == 0 || (dim_mask & (G_GUINT64_CONSTANT (1) << d)))
      {
        reduced[n_reduced++] = d;
        n *= in->shape[d];
      }
    else
      kept[n_kept++] = d;
  for (gint64 o = 0; o < n_out; o++)
    {
      const char *base = (const char *) in->data + (in->offset + dims_offset (in, kept, n_kept, o)) * (gint64) elem;
      double sum = 0, squares = 0, mean;

      for (gint64 r = 0; r < n; r++)
        sum += ts_dtype_load (in->dtype, base + dims_offset (in, reduced, n_reduced, r) * (gint64) elem);
      mean = sum / (double) n;
      for (gint64 r = 0; r < n; r++)
        {
          double dev = ts_dtype_load (in->dtype, base + dims_offset (in, reduced, n_reduced, r) * (gint64) elem) - mean;

          squares += dev * dev;
        }
      {
        /* std: the square root in double too, then one rounding */
        double v = squares / MAX (0.0, (double) n - correction);

        ts_dtype_store (out->dtype, ts_view_linear_ptr (out, o), take_sqrt ? sqrt (v) : v);
      }
    }
  return TRUE;
}
