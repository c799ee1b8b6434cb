/* ts-cpu-index.c: index_select and gather with bounds checks
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Both kernels validate every index before writing anything, and report
 * the first bad one (in row-major order of the index tensor) so that the
 * runtime can raise it as a device-side assert at the right place.
 */

#include "config.h"

#include <string.h>

#include "ts-cpu-kernels.h"

static gboolean
check_index_dtype (const TsView  *index,
                   const char    *op,
                   GError       **error)
{
  if (index->dtype != TS_DTYPE_INT64 && index->dtype != TS_DTYPE_INT32)
    {
      g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_DTYPE,
                   "%s(): Expected dtype int32/int64 for index", op);
      return FALSE;
    }
  return TRUE;
}

/* The first index outside [0, size) (negative indices are not wrapped:
 * PyTorch's index_select and gather reject them). */
static gboolean
find_bad_index (const TsView   *index,
                gint64          size,
                TsIndexFailure *failure)
{
  gint64 n = ts_view_numel (index);

  for (gint64 i = 0; i < n; i++)
    {
      gint64 v = ts_dtype_load_int (index->dtype, ts_view_linear_ptr (index, i));

      if (v < 0 || v >= size)
        {
          if (failure)
            {
              failure->index = v;
              failure->position = i;
              failure->dim_size = size;
            }
          return TRUE;
        }
    }
  return FALSE;
}

gboolean
ts_cpu_index_select (const TsView   *in,
                     guint           dim,
                     const TsView   *index,
                     const TsView   *out,
                     TsIndexFailure *failure,
                     GError        **error)
{
  gint64 size;
  gint64 n_index;
  gint64 outer = 1, inner = 1;
  gsize elem;

  g_return_val_if_fail (in != NULL && index != NULL && out != NULL, FALSE);

  if (!check_index_dtype (index, "index_select", error))
    return FALSE;
  if (index->ndim > 1)
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_INDEX,
                           "index_select(): Index is supposed to be a vector");
      return FALSE;
    }
  if (dim >= MAX (in->ndim, 1))
    return ts_wrap_dim (dim, in->ndim, NULL, error);

  size = in->ndim == 0 ? 1 : in->shape[dim];
  n_index = ts_view_numel (index);
  if (find_bad_index (index, size, failure))
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_INDEX,
                           "index out of range in self");
      return FALSE;
    }
  if (ts_view_numel (out) != ts_view_numel (in) / MAX (size, 1) * n_index ||
      out->dtype != in->dtype)
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_SHAPE,
                           "index_select(): output shape or dtype does not match");
      return FALSE;
    }

  /* out[o, j, i] = in[o, index[j], i] over row-major (outer, dim, inner). */
  for (guint d = 0; d < in->ndim; d++)
    {
      if (d < dim)
        outer *= in->shape[d];
      else if (d > dim)
        inner *= in->shape[d];
    }
  elem = ts_dtype_size (in->dtype);
  for (gint64 o = 0; o < outer; o++)
    for (gint64 j = 0; j < n_index; j++)
      {
        gint64 src_row = ts_dtype_load_int (index->dtype, ts_view_linear_ptr (index, j));

        for (gint64 i = 0; i < inner; i++)
          {
            gint64 src = (o * size + src_row) * inner + i;
            gint64 dst = (o * n_index + j) * inner + i;

            memcpy (ts_view_linear_ptr (out, dst), ts_view_linear_ptr (in, src), elem);
          }
      }
  return TRUE;
}

gboolean
ts_cpu_gather (const TsView   *in,
               guint           dim,
               const TsView   *index,
               const TsView   *out,
               TsIndexFailure *failure,
               GError        **error)
{
  gint64 n;
  gint64 size;
  gsize elem;

  g_return_val_if_fail (in != NULL && index != NULL && out != NULL, FALSE);

  if (!check_index_dtype (index, "gather", error))
    return FALSE;
  if (dim >= MAX (in->ndim, 1))
    return ts_wrap_dim (dim, in->ndim, NULL, error);
  if (MAX (index->ndim, 1) != MAX (in->ndim, 1))
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_SHAPE,
                           "Index tensor must have the same number of dimensions as input tensor");
      return FALSE;
    }
  for (guint d = 0; d < index->ndim; d++)
    {
      if (d != dim && index->shape[d] > in->shape[d])
        {
          g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_SHAPE,
                       "Size does not match at dimension %u expected index [%" G_GINT64_FORMAT
                       "] to be smaller than self [%" G_GINT64_FORMAT "] apart from dimension %u",
                       d, index->shape[d], in->shape[d], dim);
          return FALSE;
        }
    }

  size = in->ndim == 0 ? 1 : in->shape[dim];
  if (find_bad_index (index, size, failure))
    {
      gint64 bad = 0;
      TsIndexFailure f;

      find_bad_index (index, size, &f);
      bad = f.index;
      g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_INDEX,
                   "index %" G_GINT64_FORMAT " is out of bounds for dimension %u with size %"
                   G_GINT64_FORMAT, bad, dim, size);
      return FALSE;
    }
  n = ts_view_numel (index);
  if (ts_view_numel (out) != n || out->dtype != in->dtype)
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_SHAPE,
                           "gather(): output shape or dtype does not match the index");
      return FALSE;
    }

  elem = ts_dtype_size (in->dtype);
  for (gint64 i = 0; i < n; i++)
    {
      gint64 pos[TS_MAX_DIMS];
      gint64 rem = i;

      for (guint d = index->ndim; d-- > 0;)
        {
          pos[d] = rem % index->shape[d];
          rem /= index->shape[d];
        }
      if (index->ndim > 0)
        pos[dim] = ts_dtype_load_int (index->dtype, ts_view_linear_ptr (index, i));
      memcpy (ts_view_linear_ptr (out, i), ts_view_element_ptr (in, pos), elem);
    }
  return TRUE;
}
