/* ts-cpu-iter.c: strided views, broadcasting and N-d iteration
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-cpu-kernels.h"
#include "ts-cpu-kernels-private.h"

G_DEFINE_QUARK (ts-kernel-error-quark, ts_kernel_error)

gboolean
ts_kernel_fail (GError        **error,
                TsKernelError   code,
                const char     *format,
                ...)
{
  va_list args;

  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (TS_KERNEL_ERROR, code, format, args));
  va_end (args);
  return FALSE;
}

gboolean
ts_kernel_fail_dispatch (GError     **error,
                         const char  *kernel,
                         TsDType      dtype)
{
  return ts_kernel_fail (error, TS_KERNEL_ERROR_DTYPE, "\"%s\" not implemented for '%s'", kernel,
                         ts_dtype_scalar_type_name (dtype));
}

void
ts_contiguous_strides (guint         ndim,
                       const gint64 *shape,
                       gint64       *strides)
{
  gint64 stride = 1;

  for (guint i = ndim; i-- > 0;)
    {
      strides[i] = stride;
      stride *= MAX (shape[i], 1);
    }
}

void
ts_view_init (TsView       *view,
              TsDType       dtype,
              gpointer      data,
              guint         ndim,
              const gint64 *shape,
              const gint64 *strides,
              gint64        offset)
{
  g_return_if_fail (view != NULL);
  g_return_if_fail (ndim <= TS_MAX_DIMS);
  g_return_if_fail (ndim == 0 || shape != NULL);

  memset (view, 0, sizeof *view);
  view->dtype = dtype;
  view->ndim = ndim;
  view->data = data;
  view->offset = offset;
  for (guint i = 0; i < ndim; i++)
    view->shape[i] = shape[i];
  if (strides != NULL)
    memcpy (view->strides, strides, ndim * sizeof (gint64));
  else
    ts_contiguous_strides (ndim, view->shape, view->strides);
}

void
ts_view_init_scalar (TsView   *view,
                     TsDType   dtype,
                     gpointer  data)
{
  ts_view_init (view, dtype, data, 0, NULL, NULL, 0);
}

/* PyTorch's is_contiguous: size-1 dims may have any stride. */
gboolean
ts_view_is_contiguous (const TsView *view)
{
  gint64 expected = 1;

  g_return_val_if_fail (view != NULL, FALSE);

  if (ts_view_numel (view) == 0)
    return TRUE;
  for (guint i = view->ndim; i-- > 0;)
    {
      if (view->shape[i] == 1)
        continue;
      if (view->strides[i] != expected)
        return FALSE;
      expected *= view->shape[i];
    }
  return TRUE;
}

gpointer
ts_view_element_ptr (const TsView *view,
                     const gint64 *index)
{
  gint64 off;

  g_return_val_if_fail (view != NULL, NULL);

  off = view->offset;
  for (guint i = 0; i < view->ndim; i++)
    off += index[i] * view->strides[i];
  return (char *)view->data + off * (gint64)ts_dtype_size (view->dtype);
}

gpointer
ts_view_linear_ptr (const TsView *view,
                    gint64        linear)
{
  gint64 off;

  g_return_val_if_fail (view != NULL, NULL);

  off = view->offset;
  for (guint i = view->ndim; i-- > 0;)
    {
      gint64 size = view->shape[i];

      off += (linear % size) * view->strides[i];
      linear /= size;
    }
  return (char *)view->data + off * (gint64)ts_dtype_size (view->dtype);
}

void
ts_view_transpose (TsView *view,
                   guint   dim0,
                   guint   dim1)
{
  gint64 tmp;

  g_return_if_fail (view != NULL);
  g_return_if_fail (dim0 < view->ndim && dim1 < view->ndim);

  tmp = view->shape[dim0];
  view->shape[dim0] = view->shape[dim1];
  view->shape[dim1] = tmp;
  tmp = view->strides[dim0];
  view->strides[dim0] = view->strides[dim1];
  view->strides[dim1] = tmp;
}

gboolean
ts_wrap_dim (gint64   dim,
             guint    ndim,
             guint   *wrapped,
             GError **error)
{
  gint64 n = MAX ((gint64)ndim, 1);  /* a 0-dim tensor takes dims -1 and 0 */

  if (dim < -n || dim >= n)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_DIM,
                           "Dimension out of range (expected to be in range of [%" G_GINT64_FORMAT
                           ", %" G_GINT64_FORMAT "], but got %" G_GINT64_FORMAT ")",
                           -n, n - 1, dim);
  if (wrapped)
    *wrapped = (guint)(dim < 0 ? dim + n : dim);
  return TRUE;
}

gboolean
ts_broadcast_shapes (guint         a_ndim,
                     const gint64 *a_shape,
                     guint         b_ndim,
                     const gint64 *b_shape,
                     guint        *out_ndim,
                     gint64       *out_shape,
                     GError      **error)
{
  guint ndim = MAX (a_ndim, b_ndim);

  g_return_val_if_fail (ndim <= TS_MAX_DIMS, FALSE);

  /* Walk from the right; fill out_shape at the end so that it may alias
   * either input. */
  {
    gint64 result[TS_MAX_DIMS];

    for (guint i = 0; i < ndim; i++)
      {
        gint64 a = i < a_ndim ? a_shape[a_ndim - 1 - i] : 1;
        gint64 b = i < b_ndim ? b_shape[b_ndim - 1 - i] : 1;

        if (a != b && a != 1 && b != 1)
          return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE,
                                 "The size of tensor a (%" G_GINT64_FORMAT ") must match the size of "
                                 "tensor b (%" G_GINT64_FORMAT ") at non-singleton dimension %u",
                                 a, b, ndim - 1 - i);
        result[ndim - 1 - i] = a == 1 ? b : a;
      }
    memcpy (out_shape, result, ndim * sizeof (gint64));
  }
  *out_ndim = ndim;
  return TRUE;
}

gboolean
ts_iter_init (TsIter        *iter,
              guint          ndim,
              const gint64  *shape,
              const TsView **operands,
              guint          n_operands,
              GError       **error)
{
  guint out_dim;

  g_return_val_if_fail (iter != NULL, FALSE);
  g_return_val_if_fail (ndim <= TS_MAX_DIMS, FALSE);
  g_return_val_if_fail (n_operands >= 1 && n_operands <= TS_ITER_MAX_OPERANDS, FALSE);

  memset (iter, 0, sizeof *iter);
  iter->n_operands = n_operands;
  iter->numel = 1;
  for (guint d = 0; d < ndim; d++)
    iter->numel *= shape[d];

  /* Broadcast every operand (right-aligned) to @shape, in bytes. */
  for (guint k = 0; k < n_operands; k++)
    {
      const TsView *v = operands[k];
      gint64 elem = (gint64)ts_dtype_size (v->dtype);

      if (v->ndim > ndim)
        goto mismatch;
      iter->base[k] = (char *)v->data + v->offset * elem;
      for (guint d = 0; d < ndim; d++)
        {
          gint64 vd = (gint64)d - (gint64)(ndim - v->ndim);

          if (vd < 0)
            iter->strides[k][d] = 0;
          else if (v->shape[vd] == shape[d])
            iter->strides[k][d] = shape[d] == 1 ? 0 : v->strides[vd] * elem;
          else if (v->shape[vd] == 1)
            iter->strides[k][d] = 0;
          else
            goto mismatch;
        }
    }

  /* Drop size-1 dims and merge a dim into the next inner one when every
   * operand steps through both as one run. */
  out_dim = 0;
  for (guint d = 0; d < ndim; d++)
    {
      gboolean merge = out_dim > 0;

      if (shape[d] == 1)
        continue;
      for (guint k = 0; merge && k < n_operands; k++)
        {
          /* outer (out_dim - 1) stride == inner stride * inner size */
          if (iter->strides[k][out_dim - 1] != iter->strides[k][d] * shape[d])
            merge = FALSE;
        }
      if (merge)
        {
          iter->shape[out_dim - 1] *= shape[d];
          for (guint k = 0; k < n_operands; k++)
            iter->strides[k][out_dim - 1] = iter->strides[k][d];
        }
      else
        {
          iter->shape[out_dim] = shape[d];
          for (guint k = 0; k < n_operands; k++)
            iter->strides[k][out_dim] = iter->strides[k][d];
          out_dim++;
        }
    }
  iter->ndim = out_dim;
  return TRUE;

mismatch:
  g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_SHAPE,
                       "operand shapes do not broadcast to the iteration shape");
  return FALSE;
}

void
ts_iter_for_each (const TsIter *iter,
                  TsIterLoop    loop,
                  gpointer      user_data)
{
  gint64 counter[TS_MAX_DIMS] = { 0 };
  gint64 inner_strides[TS_ITER_MAX_OPERANDS] = { 0 };
  char *ptrs[TS_ITER_MAX_OPERANDS];
  guint n = iter->n_operands;
  gint64 inner;
  gint outer_dims;

  g_return_if_fail (iter != NULL && loop != NULL);

  if (iter->numel == 0)
    return;
  for (guint k = 0; k < n; k++)
    ptrs[k] = iter->base[k];
  if (iter->ndim == 0)
    {
      loop (ptrs, inner_strides, 1, user_data);
      return;
    }

  inner = iter->shape[iter->ndim - 1];
  for (guint k = 0; k < n; k++)
    inner_strides[k] = iter->strides[k][iter->ndim - 1];
  outer_dims = (gint)iter->ndim - 1;

  for (;;)
    {
      gint d;

      loop (ptrs, inner_strides, inner, user_data);

      /* Odometer over the outer dims, moving the pointers incrementally. */
      for (d = outer_dims - 1; d >= 0; d--)
        {
          counter[d]++;
          for (guint k = 0; k < n; k++)
            ptrs[k] += iter->strides[k][d];
          if (counter[d] < iter->shape[d])
            break;
          for (guint k = 0; k < n; k++)
            ptrs[k] -= iter->strides[k][d] * iter->shape[d];
          counter[d] = 0;
        }
      if (d < 0)
        return;
    }
}

/* reorder_dimensions' comparison of dims @d0 and @d1 (@d0 the faster so
 * far): 1 to swap them, -1 to keep them, 0 when no operand says */
static int
order_compare (const gint64  *shape,
               const gint64 (*strides)[TS_MAX_DIMS],
               guint          n,
               gboolean       reduction,
               guint          d0,
               guint          d1)
{
  for (guint k = 0; k < n; k++)
    {
      gint64 s0 = strides[k][d0], s1 = strides[k][d1];

      /* a reduction's output: its reduced dims (stride 0) to the front */
      if (reduction && k == 0 && (s0 == 0) != (s1 == 0))
        return s1 == 0 ? 1 : -1;
      if (s0 == 0 || s1 == 0)
        continue;
      if (s0 != s1)
        return s0 < s1 ? -1 : 1;
      /* equal strides: the smaller dim goes first */
      if (shape[d0] > shape[d1])
        return 1;
    }
  return 0;
}

void
ts_iter_order (guint          ndim,
               const gint64  *shape,
               const gint64 (*strides)[TS_MAX_DIMS],
               guint          n,
               gboolean       reduction,
               guint         *perm)
{
  /* from ndim-1 .. 0, then an insertion sort that passes over ambiguous
   * pairs */
  for (guint i = 0; i < ndim; i++)
    perm[i] = ndim - 1 - i;
  for (guint i = 1; i < ndim; i++)
    {
      guint d1 = i;

      for (int d0 = (int) i - 1; d0 >= 0; d0--)
        {
          int cmp = order_compare (shape, strides, n, reduction, perm[d0], perm[d1]);
          guint tmp;

          if (cmp < 0)
            break;
          if (cmp == 0)
            continue;
          tmp = perm[d0];
          perm[d0] = perm[d1];
          perm[d1] = tmp;
          d1 = (guint) d0;
        }
    }
}
