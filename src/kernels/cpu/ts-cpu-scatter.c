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

/* float32 and float64 scatter and scatter_add, in index order as the
 * loop below, with typed loads and the three offsets summed from one
 * odometer (the loop below, through element pointers and a dtype switch
 * an element, cost 21 times PyTorch's scatter_add_ at 512x512). An add in
 * the dtype is the double sum rounded once: the same value. */
#define DEFINE_SCATTER_TYPED(NAME, T)                                         \
static void                                                                   \
NAME (const TsView *out, guint dim, const TsView *index, const TsView *src,   \
      gboolean add, gint64 n)                                                 \
{                                                                             \
  T *o = (T *) out->data + out->offset;                                       \
  const T *sv = (const T *) src->data + src->offset;                          \
  const gint64 *iv = (const gint64 *) index->data + index->offset;            \
  gint64 pos[TS_MAX_DIMS] = { 0 }, shape[TS_MAX_DIMS];                        \
  gint64 istr[TS_MAX_DIMS], sstr[TS_MAX_DIMS], ostr[TS_MAX_DIMS];             \
  guint nd = index->ndim;                                                     \
  gint64 odim;                                                                \
                                                                              \
  /* locals, which the stores into @o cannot be taken to change */           \
  for (guint d = 0; d < nd; d++)                                              \
    {                                                                         \
      shape[d] = index->shape[d];                                             \
      istr[d] = index->strides[d];                                            \
      sstr[d] = src->strides[d];                                              \
      ostr[d] = d == dim ? 0 : out->strides[d];                               \
    }                                                                         \
  odim = out->strides[dim];                                                   \
  for (gint64 p = 0; p < n; p++)                                              \
    {                                                                         \
      gint64 io = 0, so = 0, oo = 0;                                          \
                                                                              \
      for (guint d = 0; d < nd; d++)                                          \
        {                                                                     \
          io += pos[d] * istr[d];                                             \
          so += pos[d] * sstr[d];                                             \
          oo += pos[d] * ostr[d];                                             \
        }                                                                     \
      oo += iv[io] * odim;                                                    \
      if (add)                                                                \
        o[oo] += sv[so];                                                      \
      else                                                                    \
        o[oo] = sv[so];                                                       \
      for (guint d = nd; d-- > 0;)                                            \
        {                                                                     \
          if (++pos[d] < shape[d])                                            \
            break;                                                            \
          pos[d] = 0;                                                         \
        }                                                                     \
    }                                                                         \
}
DEFINE_SCATTER_TYPED (scatter_f32, float)
DEFINE_SCATTER_TYPED (scatter_f64, double)
#undef DEFINE_SCATTER_TYPED

static gboolean
scatter_typed (const TsView *out,
               guint         dim,
               const TsView *index,
               const TsView *src,
               gboolean      add)
{
  if ((out->dtype != TS_DTYPE_FLOAT32 && out->dtype != TS_DTYPE_FLOAT64) || out->ndim == 0 ||
      index->ndim != out->ndim || src->ndim < index->ndim)
    return FALSE;
  if (out->dtype == TS_DTYPE_FLOAT32)
    scatter_f32 (out, dim, index, src, add, ts_view_numel (index));
  else
    scatter_f64 (out, dim, index, src, add, ts_view_numel (index));
  return TRUE;
}

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
  /* a RuntimeError, where gather's is an IndexError */
  if (!ts_cpu_check_index_bounds (index, dim, size, TS_KERNEL_ERROR_ARGUMENT, failure, error))
    return FALSE;
  if (scatter_typed (out, dim, index, src, add))
    return TRUE;
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
