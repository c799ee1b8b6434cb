/* ts-cpu-scatter.c: scatter and scatter_add along a dim
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * out[i][index[i][j]] = src[i][j] (dim 1; += for scatter_add), visiting
 * index in row-major order, so that with repeated indices the last write
 * wins, as PyTorch's CPU kernel. Every index is checked before anything is
 * written; the first bad one is reported. Sums go through double
 * (floating) or int64.
 */

#include "config.h"

#include <string.h>

#include "ts-cpu-kernels.h"
#include "ts-cpu-kernels-private.h"

gboolean
ts_cpu_scatter (const TsView    *out,
                guint            dim,
                const TsView    *index,
                const TsView    *src,
                gboolean         add,
                TsIndexFailure  *failure,
                GError         **error)
{
  gint64 idx[TS_MAX_DIMS] = { 0 }, dst[TS_MAX_DIMS];
  gint64 size = out->ndim ? out->shape[dim] : 1;
  gint64 n = ts_view_numel (index);
  gsize esize = ts_dtype_size (out->dtype);
  gboolean floating = ts_dtype_is_floating (out->dtype);

  g_return_val_if_fail (out != NULL && index != NULL && src != NULL, FALSE);

  if (index->dtype != TS_DTYPE_INT64 || src->dtype != out->dtype)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_DTYPE,
                           "scatter(): int64 index and src of self's dtype expected");
  if (n == 0)
    return TRUE;
  for (gint64 p = 0; p < n; p++)
    {
      gint64 k = ts_dtype_load_int (TS_DTYPE_INT64, ts_view_linear_ptr (index, p));

      if (k < 0 || k >= size)
        {
          if (failure != NULL)
            {
              failure->position = p;
              failure->dim_size = size;
            }
          g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_ARGUMENT,  /* a RuntimeError */
                       "index %" G_GINT64_FORMAT " is out of bounds for dimension %u with size %"
                       G_GINT64_FORMAT, k, dim, size);
          return FALSE;
        }
    }
  do
    {
      const void *s = ts_view_element_ptr (src, idx);
      void *d;

      memcpy (dst, idx, index->ndim * sizeof (gint64));
      if (out->ndim)
        dst[dim] = ts_dtype_load_int (TS_DTYPE_INT64, ts_view_element_ptr (index, idx));
      d = ts_view_element_ptr (out, dst);
      if (!add)
        memcpy (d, s, esize);
      else if (floating)
        ts_dtype_store (out->dtype, d, ts_dtype_load (out->dtype, d) + ts_dtype_load (out->dtype, s));
      else
        ts_dtype_store_int (out->dtype, d, (gint64) ((guint64) ts_dtype_load_int (out->dtype, d) +
                                                     (guint64) ts_dtype_load_int (out->dtype, s)));
    }
  while (ts_view_next_index (index->ndim, index->shape, idx));
  return TRUE;
}
