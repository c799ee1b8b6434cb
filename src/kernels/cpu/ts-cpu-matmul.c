/* ts-cpu-matmul.c: mm, bmm, addmm and matmul (OpenBLAS for the floating dtypes)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * float16 and bfloat16 multiply as a GPU's tensor cores do: the operands
 * are converted to float32 (exactly), multiplied with cblas_sgemm
 * accumulating in float32, and the product is rounded once to the output
 * dtype, to nearest even. Debian 12's OpenBLAS 0.3.21 exports no
 * cblas_sbgemm (nor shgemm), hence the conversion for bfloat16 too.
 */

#include "config.h"

#include <cblas.h>
#include <string.h>

#include "ts-cpu-kernels.h"
#include "ts-cpu-kernels-private.h"
#include "ts-cpu-convert.h"

/* How BLAS sees one operand: a pointer, a leading dimension and whether it
 * is stored transposed; @scratch owns a packed copy when the strides suit
 * neither layout. */
typedef struct
{
  gconstpointer   ptr;
  blasint         ld;
  enum CBLAS_TRANSPOSE trans;
  gpointer        scratch;
} BlasOperand;

static void
blas_operand (const TsView *v,
              BlasOperand  *op)
{
  gint64 rows = v->shape[0], cols = v->shape[1];
  gint64 s0 = v->strides[0], s1 = v->strides[1];
  gsize elem = ts_dtype_size (v->dtype);
  char *base = (char *)v->data + v->offset * (gint64)elem;

  op->scratch = NULL;
  op->ptr = base;
  if ((cols == 1 || s1 == 1) && (rows == 1 || s0 >= cols))
    {
      op->trans = CblasNoTrans;
      op->ld = (blasint)(rows == 1 ? MAX (cols, 1) : MAX (s0, 1));
      return;
    }
  if ((rows == 1 || s0 == 1) && (cols == 1 || s1 >= rows))
    {
      op->trans = CblasTrans;
      op->ld = (blasint)(cols == 1 ? MAX (rows, 1) : MAX (s1, 1));
      return;
    }

  /* Pack into a row-major copy. */
  {
    TsView packed;
    gint64 shape[2] = { rows, cols };

    op->scratch = g_malloc (elem * (gsize)MAX (rows * cols, 1));
    ts_view_init (&packed, v->dtype, op->scratch, 2, shape, NULL, 0);
    ts_cpu_copy (&packed, v, NULL);
    op->ptr = op->scratch;
    op->trans = CblasNoTrans;
    op->ld = (blasint)MAX (cols, 1);
  }
}

static gboolean
out_is_blas_writable (const TsView *out,
                      TsDType       dtype)
{
  gint64 m = out->shape[0], n = out->shape[1];

  return out->dtype == dtype &&
         (n == 1 || out->strides[1] == 1) &&
         (m == 1 || out->strides[0] >= n);
}

static void
mm_blas (const TsView *a,
         const TsView *b,
         const TsView *out)
{
  BlasOperand oa, ob;
  gint64 m = a->shape[0], k = a->shape[1], n = b->shape[1];
  gsize elem = ts_dtype_size (a->dtype);
  gpointer c;
  blasint ldc;
  gpointer scratch = NULL;
  TsView tmp_view;

  if (out_is_blas_writable (out, a->dtype))
    {
      c = (char *)out->data + out->offset * (gint64)elem;
      ldc = (blasint)(m == 1 ? MAX (n, 1) : out->strides[0]);
    }
  else
    {
      gint64 shape[2] = { m, n };

      scratch = g_malloc (elem * (gsize)(m * n));
      ts_view_init (&tmp_view, a->dtype, scratch, 2, shape, NULL, 0);
      c = scratch;
      ldc = (blasint)MAX (n, 1);
    }

  if (k == 0)
    {
      TsView zero;
      gint64 shape[2] = { m, n };
      gint64 strides[2] = { ldc, 1 };

      ts_view_init (&zero, a->dtype, c, 2, shape, strides, 0);
      ts_cpu_fill (&zero, 0.0);
    }
  else
    {
      blas_operand (a, &oa);
      blas_operand (b, &ob);
      if (a->dtype == TS_DTYPE_FLOAT32)
        cblas_sgemm (CblasRowMajor, oa.trans, ob.trans, (blasint)m, (blasint)n, (blasint)k,
                     1.0f, oa.ptr, oa.ld, ob.ptr, ob.ld, 0.0f, c, ldc);
      else
        cblas_dgemm (CblasRowMajor, oa.trans, ob.trans, (blasint)m, (blasint)n, (blasint)k,
                     1.0, oa.ptr, oa.ld, ob.ptr, ob.ld, 0.0, c, ldc);
      g_free (oa.scratch);
      g_free (ob.scratch);
    }

  if (scratch)
    {
      ts_cpu_copy (out, &tmp_view, NULL);
      g_free (scratch);
    }
}

/* A contiguous m x n scratch matrix of @dtype; free ->data with g_free. */
static void
scratch_matrix (TsDType  dtype,
                gint64   m,
                gint64   n,
                TsView  *v)
{
  gint64 shape[2] = { m, n };

  ts_view_init (v, dtype, g_malloc (ts_dtype_size (dtype) * (gsize)MAX (m * n, 1)), 2, shape,
                NULL, 0);
}

/* A float32 scratch copy of the 2-D @v, column-major when @v is (a
 * transposed operand stays a transposed one for BLAS), row-major
 * otherwise. */
static void
to_float32 (const TsView *v,
            TsView       *f32)
{
  gint64 rows = v->shape[0], cols = v->shape[1];
  gboolean col_major = rows > 1 && cols > 1 && v->strides[0] == 1 && v->strides[1] != 1;
  TsView src = *v, dst;

  scratch_matrix (TS_DTYPE_FLOAT32, rows, cols, f32);
  dst = *f32;
  if (col_major)
    {
      f32->strides[0] = dst.strides[0] = 1;
      f32->strides[1] = dst.strides[1] = rows;
      /* copy with the innermost loop over the dense dim of both */
      ts_view_transpose (&src, 0, 1);
      ts_view_transpose (&dst, 0, 1);
    }
  ts_cpu_copy (&dst, &src, NULL);
}

/* The unrounded product of float16/bfloat16 @a and @b into the float32
 * @product: the operands converted exactly, then sgemm. */
static void
mm_half_f32 (const TsView *a,
             const TsView *b,
             const TsView *product)
{
  TsView fa, fb;

  to_float32 (a, &fa);
  to_float32 (b, &fb);
  mm_blas (&fa, &fb, product);
  g_free (fa.data);
  g_free (fb.data);
}

/* out (float16/bfloat16) = a @ b in float32, rounded once. */
static void
mm_half (const TsView *a,
         const TsView *b,
         const TsView *out)
{
  TsView product;

  scratch_matrix (TS_DTYPE_FLOAT32, a->shape[0], b->shape[1], &product);
  mm_half_f32 (a, b, &product);
  ts_cpu_copy (out, &product, NULL);   /* the one rounding, to nearest even */
  g_free (product.data);
}

/* Other dtypes: a plain triple loop, accumulating in double (floats) or
 * int64 (integers), rounded once per output element. */
static void
mm_loop (const TsView *a,
         const TsView *b,
         const TsView *out)
{
  gint64 m = a->shape[0], k = a->shape[1], n = b->shape[1];
  gboolean floating = ts_dtype_is_floating (a->dtype);

  for (gint64 i = 0; i < m; i++)
    for (gint64 j = 0; j < n; j++)
      {
        gint64 oi[2] = { i, j };
        double facc = 0.0;
        guint64 iacc = 0;

        for (gint64 p = 0; p < k; p++)
          {
            gint64 ai[2] = { i, p };
            gint64 bi[2] = { p, j };
            gconstpointer pa = ts_view_element_ptr (a, ai);
            gconstpointer pb = ts_view_element_ptr (b, bi);

            if (floating)
              facc += ts_dtype_load (a->dtype, pa) * ts_dtype_load (b->dtype, pb);
            else
              iacc += (guint64)ts_dtype_load_int (a->dtype, pa) *
                      (guint64)ts_dtype_load_int (b->dtype, pb);
          }
        if (floating)
          ts_dtype_store (out->dtype, ts_view_element_ptr (out, oi), facc);
        else
          ts_dtype_store_int (out->dtype, ts_view_element_ptr (out, oi), (gint64)iacc);
      }
}

static gboolean
check_mm_dtypes (const TsView  *a,
                 const TsView  *b,
                 GError       **error)
{
  if (a->dtype != b->dtype)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_DTYPE,
                           "expected scalar type %s but found %s",
                           ts_dtype_scalar_type_name (a->dtype), ts_dtype_scalar_type_name (b->dtype));
  if (a->dtype == TS_DTYPE_BOOL)
    return ts_kernel_fail_dispatch (error, "addmm_impl_cpu_", a->dtype);
  return TRUE;
}

/* The 2-D product without shape checks. */
static void
mm_unchecked (const TsView *a,
              const TsView *b,
              const TsView *out)
{
  if (a->shape[0] == 0 || b->shape[1] == 0)
    return;
  if (a->dtype == TS_DTYPE_FLOAT32 || a->dtype == TS_DTYPE_FLOAT64)
    mm_blas (a, b, out);
  else if (ts_cpu_dtype_is_half (a->dtype))
    mm_half (a, b, out);
  else
    mm_loop (a, b, out);
}

static gboolean
check_mm (const TsView  *a,
          const TsView  *b,
          const TsView  *out,
          GError       **error)
{
  if (a->ndim != 2 || b->ndim != 2)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE,
                           a->ndim != 2 ? "self must be a matrix" : "mat2 must be a matrix");
  if (a->shape[1] != b->shape[0])
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE,
                           "mat1 and mat2 shapes cannot be multiplied (%" G_GINT64_FORMAT "x%"
                           G_GINT64_FORMAT " and %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT ")",
                           a->shape[0], a->shape[1], b->shape[0], b->shape[1]);
  if (!check_mm_dtypes (a, b, error))
    return FALSE;
  if (out->ndim != 2 || out->shape[0] != a->shape[0] || out->shape[1] != b->shape[1])
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE, "output shape does not match the product");
  return TRUE;
}

gboolean
ts_cpu_mm (const TsView *a,
           const TsView *b,
           const TsView *out,
           GError      **error)
{
  g_return_val_if_fail (a != NULL && b != NULL && out != NULL, FALSE);

  if (!check_mm (a, b, out, error))
    return FALSE;
  mm_unchecked (a, b, out);
  return TRUE;
}

typedef struct
{
  TsDType input;
  TsDType out;
  TsDType compute;   /* the product's dtype: float32 or float64 */
  double  beta;
  double  alpha;
} AddmmCtx;

/* The float32 case a Linear layer's forward is, with no buffers in
 * between: dense output and product, the bias a row (its run dense) or
 * one value (broadcast down a column); the same float arithmetic as the
 * general loop below. FALSE for any other layout. */
static gboolean
addmm_run_f32 (const AddmmCtx *ctx,
               char * const   *ptrs,
               const gint64   *strides,
               gint64          n)
{
  float alpha = (float) ctx->alpha, beta = (float) ctx->beta;
  float *o = (float *)(gpointer) ptrs[0];
  const float *p = (const float *)(gconstpointer) ptrs[2];
  const float *in = (const float *)(gconstpointer) ptrs[1];

  if (ctx->compute != TS_DTYPE_FLOAT32 || ctx->out != TS_DTYPE_FLOAT32 ||
      strides[0] != sizeof (float) || strides[2] != sizeof (float))
    return FALSE;
  if (beta == 0)
    {
      for (gint64 i = 0; i < n; i++)
        o[i] = alpha * p[i];
      return TRUE;
    }
  if (ctx->input != TS_DTYPE_FLOAT32)
    return FALSE;
  if (strides[1] == 0)
    {
      float b = beta * in[0];

      for (gint64 i = 0; i < n; i++)
        o[i] = b + alpha * p[i];
      return TRUE;
    }
  if (strides[1] != sizeof (float))
    return FALSE;
  for (gint64 i = 0; i < n; i++)
    o[i] = beta * in[i] + alpha * p[i];
  return TRUE;
}

/* out = beta * input + alpha * product over runs of (out, input,
 * product): in float32 for float32/float16/bfloat16 (the product is
 * float32 then), in double for float64; input is ignored when beta is 0,
 * as PyTorch does (its NaNs do not propagate). */
static void
addmm_loop (char         **ptrs,
            const gint64  *strides,
            gint64         n,
            gpointer       user_data)
{
  AddmmCtx *ctx = user_data;
  float in[TS_CPU_RUN], p[TS_CPU_RUN], r[TS_CPU_RUN];
  float alpha = (float)ctx->alpha, beta = (float)ctx->beta;

  if (ctx->compute == TS_DTYPE_FLOAT64)
    {
      for (gint64 i = 0; i < n; i++)
        {
          double x = ts_dtype_load (TS_DTYPE_FLOAT64, ptrs[2] + i * strides[2]) * ctx->alpha;

          if (ctx->beta != 0)
            x += ctx->beta * ts_dtype_load (ctx->input, ptrs[1] + i * strides[1]);
          ts_dtype_store (ctx->out, ptrs[0] + i * strides[0], x);
        }
      return;
    }

  if (addmm_run_f32 (ctx, ptrs, strides, n))
    return;
  for (gint64 done = 0; done < n; done += TS_CPU_RUN)
    {
      gint64 len = MIN (n - done, TS_CPU_RUN);

      ts_cpu_load_f32 (TS_DTYPE_FLOAT32, ptrs[2] + done * strides[2], strides[2], p, len);
      if (beta != 0)
        ts_cpu_load_f32 (ctx->input, ptrs[1] + done * strides[1], strides[1], in, len);
      for (gint64 i = 0; i < len; i++)
        r[i] = beta != 0 ? beta * in[i] + alpha * p[i] : alpha * p[i];
      ts_cpu_store_f32 (ctx->out, r, ptrs[0] + done * strides[0], strides[0], len);
    }
}

gboolean
ts_cpu_addmm (const TsView *input,
              const TsView *a,
              const TsView *b,
              double        beta,
              double        alpha,
              const TsView *out,
              GError      **error)
{
  const TsView *operands[3];
  AddmmCtx ctx = { input->dtype, out->dtype, TS_DTYPE_FLOAT32, beta, alpha };
  TsView product;
  TsIter iter;

  g_return_val_if_fail (input != NULL && a != NULL && b != NULL && out != NULL, FALSE);

  if (!check_mm (a, b, out, error) || !check_mm_dtypes (a, input, error))
    return FALSE;
  if (!ts_dtype_is_floating (a->dtype))
    return ts_kernel_fail (error, TS_KERNEL_ERROR_DTYPE,
                           "addmm of %s is not supported", ts_dtype_scalar_type_name (a->dtype));
  if (out->shape[0] == 0 || out->shape[1] == 0)
    return TRUE;

  if (a->dtype == TS_DTYPE_FLOAT64)
    ctx.compute = TS_DTYPE_FLOAT64;
  scratch_matrix (ctx.compute, out->shape[0], out->shape[1], &product);
  operands[0] = out;
  operands[1] = input;
  operands[2] = &product;
  if (!ts_iter_init (&iter, 2, out->shape, operands, 3, NULL))
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_SHAPE,
                           "input of addmm does not broadcast to the shape of the product");
      g_free (product.data);
      return FALSE;
    }
  if (ts_cpu_dtype_is_half (a->dtype))
    mm_half_f32 (a, b, &product);
  else
    mm_blas (a, b, &product);
  ts_iter_for_each (&iter, addmm_loop, &ctx);
  g_free (product.data);
  return TRUE;
}

/* Drops the leading batch dim of @v at batch @i. */
static void
batch_slice (const TsView *v,
             gint64        i,
             TsView       *slice)
{
  ts_view_init (slice, v->dtype, v->data, v->ndim - 1, v->shape + 1, v->strides + 1,
                v->offset + i * v->strides[0]);
}

gboolean
ts_cpu_bmm (const TsView *a,
            const TsView *b,
            const TsView *out,
            GError      **error)
{
  g_return_val_if_fail (a != NULL && b != NULL && out != NULL, FALSE);

  if (a->ndim != 3 || b->ndim != 3)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE,
                           a->ndim != 3 ? "batch1 must be a 3D tensor" : "batch2 must be a 3D tensor");
  if (b->shape[0] != a->shape[0] || b->shape[1] != a->shape[2])
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE,
                           "Expected size for first two dimensions of batch2 tensor to be: [%"
                           G_GINT64_FORMAT ", %" G_GINT64_FORMAT "] but got: [%" G_GINT64_FORMAT
                           ", %" G_GINT64_FORMAT "].",
                           a->shape[0], a->shape[2], b->shape[0], b->shape[1]);
  if (!check_mm_dtypes (a, b, error))
    return FALSE;
  if (out->ndim != 3 || out->shape[0] != a->shape[0] || out->shape[1] != a->shape[1] ||
      out->shape[2] != b->shape[2])
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE, "output shape does not match the product");

  for (gint64 i = 0; i < a->shape[0]; i++)
    {
      TsView sa, sb, so;

      batch_slice (a, i, &sa);
      batch_slice (b, i, &sb);
      batch_slice (out, i, &so);
      mm_unchecked (&sa, &sb, &so);
    }
  return TRUE;
}

/* Both operands as (batch..., rows, cols) views, 1-D ones expanded. */
typedef struct
{
  TsView  a;
  TsView  b;
  guint   batch_ndim;
  gint64  batch_shape[TS_MAX_DIMS];
} MatmulPlan;

static gboolean
matmul_plan (const TsView  *a,
             const TsView  *b,
             MatmulPlan    *plan,
             GError       **error)
{
  if (a->ndim == 0 || b->ndim == 0)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE,
                           "both arguments to matmul need to be at least 1D, but they are %uD and %uD",
                           a->ndim, b->ndim);
  if (a->ndim == 1 && b->ndim == 1 && a->shape[0] != b->shape[0])
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE,
                           "inconsistent tensor size, expected tensor [%" G_GINT64_FORMAT "] and src [%"
                           G_GINT64_FORMAT "] to have the same number of elements, but got %"
                           G_GINT64_FORMAT " and %" G_GINT64_FORMAT " elements respectively",
                           a->shape[0], b->shape[0], a->shape[0], b->shape[0]);
  if (a->ndim == 2 && b->ndim == 1 && a->shape[1] != b->shape[0])
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE,
                           "size mismatch, got %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "x%"
                           G_GINT64_FORMAT ",%" G_GINT64_FORMAT,
                           a->shape[0], a->shape[0], a->shape[1], b->shape[0]);

  plan->a = *a;
  plan->b = *b;
  if (a->ndim == 1)
    {
      /* (k) -> (1, k) */
      plan->a.ndim = 2;
      plan->a.shape[1] = a->shape[0];
      plan->a.strides[1] = a->strides[0];
      plan->a.shape[0] = 1;
      plan->a.strides[0] = 0;
    }
  if (b->ndim == 1)
    {
      /* (k) -> (k, 1) */
      plan->b.ndim = 2;
      plan->b.shape[1] = 1;
      plan->b.strides[1] = 0;
    }

  if (plan->a.shape[plan->a.ndim - 1] != plan->b.shape[plan->b.ndim - 2])
    {
      if (a->ndim <= 2 && b->ndim <= 2)
        g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_SHAPE,
                     "mat1 and mat2 shapes cannot be multiplied (%" G_GINT64_FORMAT "x%"
                     G_GINT64_FORMAT " and %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT ")",
                     plan->a.shape[0], plan->a.shape[1], plan->b.shape[0], plan->b.shape[1]);
      else
        g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_SHAPE,
                     "Expected size for first two dimensions of batch2 tensor to be: [%"
                     G_GINT64_FORMAT ", %" G_GINT64_FORMAT "] but got: [%" G_GINT64_FORMAT
                     ", %" G_GINT64_FORMAT "].",
                     plan->a.ndim > 2 ? plan->a.shape[0] : 1, plan->a.shape[plan->a.ndim - 1],
                     plan->b.ndim > 2 ? plan->b.shape[0] : 1, plan->b.shape[plan->b.ndim - 2]);
      return FALSE;
    }

  return ts_broadcast_shapes (plan->a.ndim - 2, plan->a.shape, plan->b.ndim - 2, plan->b.shape,
                              &plan->batch_ndim, plan->batch_shape, error);
}

gboolean
ts_matmul_shape (const TsView *a,
                 const TsView *b,
                 guint        *out_ndim,
                 gint64       *out_shape,
                 GError      **error)
{
  MatmulPlan plan;
  guint n;

  g_return_val_if_fail (a != NULL && b != NULL && out_ndim != NULL && out_shape != NULL, FALSE);

  if (!matmul_plan (a, b, &plan, error))
    return FALSE;
  n = plan.batch_ndim;
  memcpy (out_shape, plan.batch_shape, n * sizeof (gint64));
  if (a->ndim > 1)
    out_shape[n++] = plan.a.shape[plan.a.ndim - 2];
  if (b->ndim > 1)
    out_shape[n++] = plan.b.shape[plan.b.ndim - 1];
  *out_ndim = n;
  return TRUE;
}

/* The matrix at batch index @bi (broadcast) of a (batch..., r, c) view. */
static void
batch_matrix (const TsView  *v,
              guint          batch_ndim,
              const gint64  *bi,
              TsView        *m)
{
  guint vb = v->ndim - 2;
  gint64 offset = v->offset;

  for (guint d = 0; d < vb; d++)
    {
      gint64 i = bi[batch_ndim - vb + d];

      if (v->shape[d] != 1)
        offset += i * v->strides[d];
    }
  ts_view_init (m, v->dtype, v->data, 2, v->shape + vb, v->strides + vb, offset);
}

gboolean
ts_cpu_matmul (const TsView *a,
               const TsView *b,
               const TsView *out,
               GError      **error)
{
  MatmulPlan plan;
  TsView out_x;
  gint64 out_shape[TS_MAX_DIMS];
  gint64 bi[TS_MAX_DIMS] = { 0 };
  gint64 n_batches = 1;
  guint out_ndim;

  g_return_val_if_fail (a != NULL && b != NULL && out != NULL, FALSE);

  if (!ts_matmul_shape (a, b, &out_ndim, out_shape, error) ||
      !matmul_plan (a, b, &plan, error) ||
      !check_mm_dtypes (a, b, error))
    return FALSE;
  if (out->ndim != out_ndim || memcmp (out->shape, out_shape, out_ndim * sizeof (gint64)) != 0)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE, "output shape does not match the product");

  /* The output as (batch..., m, n) with the dims 1-D operands lack put
   * back with stride 0. */
  out_x = *out;
  out_x.ndim = plan.batch_ndim + 2;
  for (guint d = 0; d < plan.batch_ndim; d++)
    n_batches *= plan.batch_shape[d];
  {
    guint src = plan.batch_ndim;
    guint d = plan.batch_ndim;

    out_x.shape[d] = plan.a.shape[plan.a.ndim - 2];
    out_x.strides[d] = a->ndim > 1 ? out->strides[src++] : 0;
    out_x.shape[d + 1] = plan.b.shape[plan.b.ndim - 1];
    out_x.strides[d + 1] = b->ndim > 1 ? out->strides[src] : 0;
  }

  for (gint64 i = 0; i < n_batches; i++)
    {
      TsView ma, mb, mo;
      gint64 rem = i;

      for (guint d = plan.batch_ndim; d-- > 0;)
        {
          bi[d] = rem % plan.batch_shape[d];
          rem /= plan.batch_shape[d];
        }
      batch_matrix (&plan.a, plan.batch_ndim, bi, &ma);
      batch_matrix (&plan.b, plan.batch_ndim, bi, &mb);
      batch_matrix (&out_x, plan.batch_ndim, bi, &mo);
      mm_unchecked (&ma, &mb, &mo);
    }
  return TRUE;
}
