/* ts-cpu-shape.c: kernels that move elements by position (tril, triu, flip)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Both walk the output in row-major order and copy whole elements as
 * bytes, so every dtype is the same loop; a zero of any dtype is all zero
 * bits. @in and @out have the same shape and dtype.
 */

#include "config.h"

#include <string.h>

#include "ts-cpu-kernels.h"
#include "ts-cpu-kernels-private.h"

static gboolean
check_same (const TsView  *in,
            const TsView  *out,
            GError       **error)
{
  if (in->dtype != out->dtype || in->ndim != out->ndim ||
      memcmp (in->shape, out->shape, in->ndim * sizeof (gint64)) != 0)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE, "the output's shape and dtype must be the input's");
  return TRUE;
}

gboolean
ts_view_next_index (guint         ndim,
                    const gint64 *shape,
                    gint64       *idx)
{
  for (guint d = ndim; d-- > 0;)
    {
      if (++idx[d] < shape[d])
        return TRUE;
      idx[d] = 0;
    }
  return FALSE;
}

gboolean
ts_cpu_triangle (const TsView *in,
                 const TsView *out,
                 gint64        diagonal,
                 gboolean      upper,
                 GError      **error)
{
  gsize esize = ts_dtype_size (in->dtype);
  gint64 idx[TS_MAX_DIMS] = { 0 };
  guint r = in->ndim - 2, c = in->ndim - 1;

  g_return_val_if_fail (in != NULL && out != NULL && in->ndim >= 2, FALSE);

  if (!check_same (in, out, error))
    return FALSE;
  if (ts_view_numel (out) == 0)
    return TRUE;
  if (in->strides[c] == 1 && out->strides[c] == 1)
    {
      /* rows of dense elements: each a kept run and a zero run (an
       * element at a time cost 11 times PyTorch's tril at 512x512) */
      gint64 ncols = out->shape[c];

      do
        {
          /* the row's first kept column (triu) or its first zero one (tril) */
          gint64 edge = CLAMP (idx[r] + diagonal + (upper ? 0 : 1), 0, ncols);
          gint64 keep0 = upper ? edge : 0, nkeep = upper ? ncols - edge : edge;
          guint8 *dst = ts_view_element_ptr (out, idx);
          const guint8 *src = ts_view_element_ptr (in, idx);

          if (src != dst)
            memcpy (dst + keep0 * (gint64) esize, src + keep0 * (gint64) esize, nkeep * esize);
          memset (dst + (upper ? 0 : edge) * (gint64) esize, 0, (ncols - nkeep) * esize);
          idx[c] = ncols - 1;
        }
      while (ts_view_next_index (out->ndim, out->shape, idx));
      return TRUE;
    }
  do
    {
      gint64 off = idx[c] - idx[r];
      gboolean keep = upper ? off >= diagonal : off <= diagonal;
      guint8 *dst = ts_view_element_ptr (out, idx);

      /* in place (tril_), kept elements are already there */
      if (!keep)
        memset (dst, 0, esize);
      else if (in->data != out->data || in->offset != out->offset ||
               memcmp (in->strides, out->strides, in->ndim * sizeof (gint64)) != 0)
        memcpy (dst, ts_view_element_ptr (in, idx), esize);
    }
  while (ts_view_next_index (out->ndim, out->shape, idx));
  return TRUE;
}

gboolean
ts_cpu_flip (const TsView *in,
             const TsView *out,
             guint64       dim_mask,
             GError      **error)
{
  TsView reversed;

  g_return_val_if_fail (in != NULL && out != NULL, FALSE);

  if (!check_same (in, out, error))
    return FALSE;
  if (ts_view_numel (out) == 0)
    return TRUE;
  /* a copy from @in walked backwards along the flipped dims: a negative
   * stride from the last element on (an element at a time through
   * ts_view_element_ptr cost 14 times PyTorch's flip at 512x512) */
  reversed = *in;
  for (guint d = 0; d < in->ndim; d++)
    if (dim_mask & (G_GUINT64_CONSTANT (1) << d))
      {
        reversed.offset += (in->shape[d] - 1) * in->strides[d];
        reversed.strides[d] = -in->strides[d];
      }
  return ts_cpu_copy (out, &reversed, error);
}

gboolean
ts_cpu_cat (const TsView *inputs,
            guint         n_inputs,
            const TsView *out,
            int           dim,
            gint64        start,
            GError      **error)
{
  g_return_val_if_fail (out != NULL && dim >= 0 && (guint) dim < out->ndim, FALSE);

  for (guint i = 0; i < n_inputs; i++)
    {
      TsView part = *out;
      gint64 n = inputs[i].shape[dim];

      /* out narrowed to this input's slice */
      part.offset += start * out->strides[dim];
      part.shape[dim] = n;
      start += n;
      if (ts_view_numel (&inputs[i]) != 0 && !ts_cpu_copy (&part, &inputs[i], error))
        return FALSE;
    }
  return TRUE;
}
