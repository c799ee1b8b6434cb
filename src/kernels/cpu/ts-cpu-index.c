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
#include "ts-cpu-kernels-private.h"

static gboolean
check_index_dtype (const TsView  *index,
                   const char    *op,
                   GError       **error)
{
  if (index->dtype != TS_DTYPE_INT64 && index->dtype != TS_DTYPE_INT32)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_DTYPE, "%s(): Expected dtype int32/int64 for index", op);
  return TRUE;
}

/* The first index outside [0, size) (negative indices are not wrapped:
 * PyTorch's index_select, gather and scatter reject them). */
static gboolean
find_bad_index (const TsView   *index,
                gint64          size,
                TsIndexFailure *failure)
{
  gint64 n = ts_view_numel (index);
  const gint64 *dense = index->dtype == TS_DTYPE_INT64 && ts_view_is_contiguous (index)
                        ? (const gint64 *) index->data + index->offset : NULL;

  gint64 i = 0;

  /* a dense int64 index is scanned without a branch per element first */
  if (dense != NULL)
    {
      gboolean bad = FALSE;

      for (gint64 k = 0; k < n; k++)
        bad |= (guint64) dense[k] >= (guint64) size;
      if (!bad)
        return FALSE;
    }
  for (; i < n; i++)
    {
      gint64 v = dense != NULL ? dense[i] : ts_dtype_load_int (index->dtype, ts_view_linear_ptr (index, i));

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
ts_cpu_check_index_bounds (const TsView    *index,
                           guint            dim,
                           gint64           size,
                           TsKernelError    code,
                           TsIndexFailure  *failure,
                           GError         **error)
{
  TsIndexFailure f;

  if (!find_bad_index (index, size, &f))
    return TRUE;
  if (failure != NULL)
    *failure = f;
  g_set_error (error, TS_KERNEL_ERROR, code,
               "index %" G_GINT64_FORMAT " is out of bounds for dimension %u with size %" G_GINT64_FORMAT,
               f.index, dim, size);
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
    return ts_kernel_fail (error, TS_KERNEL_ERROR_INDEX, "index_select(): Index is supposed to be a vector");
  if (dim >= MAX (in->ndim, 1))
    return ts_wrap_dim (dim, in->ndim, NULL, error);

  size = in->ndim == 0 ? 1 : in->shape[dim];
  n_index = ts_view_numel (index);
  if (find_bad_index (index, size, failure))
    return ts_kernel_fail (error, TS_KERNEL_ERROR_INDEX, "index out of range in self");
  if (ts_view_numel (out) != ts_view_numel (in) / MAX (size, 1) * n_index ||
      out->dtype != in->dtype)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE,
                           "index_select(): output shape or dtype does not match");

  /* out[o, j, i] = in[o, index[j], i] over row-major (outer, dim, inner). */
  for (guint d = 0; d < in->ndim; d++)
    {
      if (d < dim)
        outer *= in->shape[d];
      else if (d > dim)
        inner *= in->shape[d];
    }
  elem = ts_dtype_size (in->dtype);
  if (ts_view_is_contiguous (in) && ts_view_is_contiguous (out))
    {
      /* the common case: each picked slice is inner elements in a row of
       * both, one copy (locating every element divided per dim, 80% of a
       * small index_select) */
      const guint8 *src = (const guint8 *) in->data + in->offset * (gint64) elem;
      guint8 *dst = (guint8 *) out->data + out->offset * (gint64) elem;
      gsize row = (gsize) inner * elem;

      for (gint64 o = 0; o < outer; o++)
        for (gint64 j = 0; j < n_index; j++, dst += row)
          {
            gint64 src_row = ts_dtype_load_int (index->dtype, ts_view_linear_ptr (index, j));

            memcpy (dst, src + ((o * size + src_row) * inner) * (gint64) elem, row);
          }
      return TRUE;
    }
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
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE,
                           "Index tensor must have the same number of dimensions as input tensor");
  for (guint d = 0; d < index->ndim; d++)
    {
      if (d != dim && index->shape[d] > in->shape[d])
        return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE,
                               "Size does not match at dimension %u expected index [%" G_GINT64_FORMAT
                               "] to be smaller than self [%" G_GINT64_FORMAT "] apart from dimension %u",
                               d, index->shape[d], in->shape[d], dim);
    }

  size = in->ndim == 0 ? 1 : in->shape[dim];
  if (!ts_cpu_check_index_bounds (index, dim, size, TS_KERNEL_ERROR_INDEX, failure, error))
    return FALSE;
  n = ts_view_numel (index);
  if (ts_view_numel (out) != n || out->dtype != in->dtype)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE,
                           "gather(): output shape or dtype does not match the index");

  elem = ts_dtype_size (in->dtype);
  if (index->ndim > 0 && index->ndim == in->ndim && index->dtype == TS_DTYPE_INT64 &&
      ts_view_is_contiguous (index) && ts_view_is_contiguous (out))
    {
      /* the common case: the index and output walked in order, the
       * position kept as an odometer instead of divided out per element */
      const gint64 *ip = (const gint64 *) index->data + index->offset;
      const guint8 *base = (const guint8 *) in->data + in->offset * (gint64) elem;
      guint8 *op = (guint8 *) out->data + out->offset * (gint64) elem;
      gint64 pos[TS_MAX_DIMS] = { 0 }, strides[TS_MAX_DIMS], shape[TS_MAX_DIMS];
      guint nd = in->ndim;

      /* locals, which the stores into out cannot be taken to change (read
       * through the views, they were loaded again each element: 12 times
       * PyTorch's gather at 512x512) */
      for (guint d = 0; d < nd; d++)
        {
          strides[d] = d == dim ? 0 : in->strides[d];
          shape[d] = index->shape[d];
        }
      for (gint64 i = 0; i < n; i++)
        {
          gint64 off = ip[i] * in->strides[dim];

          for (guint d = 0; d < nd; d++)
            off += pos[d] * strides[d];
          /* fixed sizes copy inline; a libc call per element cost more */
          if (elem == 4)
            memcpy (op + i * 4, base + off * 4, 4);
          else if (elem == 8)
            memcpy (op + i * 8, base + off * 8, 8);
          else
            memcpy (op + i * (gint64) elem, base + off * (gint64) elem, elem);
          for (guint d = nd; d-- > 0;)
            {
              if (++pos[d] < shape[d])
                break;
              pos[d] = 0;
            }
        }
      return TRUE;
    }
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

/* -- Advanced indexing ------------------------------------------------------
 *
 * PyTorch's index and index_put_ after its restriding: the k indexed dims
 * of self are adjacent, from dim pos on, and the indices come stacked as
 * one integer tensor of shape (*B, k) (index[b][j] indexes dim pos + j). The
 * result has shape self.shape[:pos] + B + self.shape[pos + k:]. */

typedef struct
{
  const TsView *self;
  const TsView *index;
  guint         pos;
  guint         k;
  gint64        n_b;     /* elements of B */
  gint64        inner;   /* elements of self.shape[pos + k:] */
} IndexWalk;

static gboolean
index_walk_init (IndexWalk     *walk,
                 const TsView  *self,
                 guint          pos,
                 const TsView  *index,
                 GError       **error)
{
  walk->self = self;
  walk->index = index;
  walk->pos = pos;
  walk->k = index->ndim ? (guint) index->shape[index->ndim - 1] : 0;
  if (!check_index_dtype (index, "index", error))
    return FALSE;
  if (index->ndim == 0 || pos + walk->k > self->ndim)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE,
                           "index: the stacked indices do not fit the indexed tensor");
  walk->n_b = 1;
  for (guint d = 0; d + 1 < index->ndim; d++)
    walk->n_b *= index->shape[d];
  walk->inner = 1;
  for (guint d = pos + walk->k; d < self->ndim; d++)
    walk->inner *= self->shape[d];
  return TRUE;
}

/* Whether self's dims after the indexed ones are one dense block */
static gboolean
index_walk_inner_dense (const IndexWalk *walk)
{
  gint64 expected = 1;

  for (guint d = walk->self->ndim; d-- > walk->pos + walk->k;)
    {
      if (walk->self->shape[d] != 1 && walk->self->strides[d] != expected)
        return FALSE;
      expected *= walk->self->shape[d];
    }
  return walk->inner > 0;
}

/* The result's element count (the product of its shape). */
static gint64
index_walk_numel (const IndexWalk *walk)
{
  gint64 outer = 1;

  for (guint d = 0; d < walk->pos; d++)
    outer *= walk->self->shape[d];
  return outer * walk->n_b * walk->inner;
}

/* The first index outside [-size, size) of its dim, in row-major order of
 * the stacked indices, as PyTorch's CPU index kernel checks it. */
static gboolean
index_walk_find_bad (const IndexWalk *walk,
                     TsIndexFailure  *failure)
{
  for (gint64 i = 0; i < walk->n_b * walk->k; i++)
    {
      gint64 size = walk->self->shape[walk->pos + i % walk->k];
      gint64 v = ts_dtype_load_int (walk->index->dtype, ts_view_linear_ptr (walk->index, i));

      if (v < -size || v >= size)
        {
          failure->index = v;
          failure->position = i;
          failure->dim_size = size;
          return TRUE;
        }
    }
  return FALSE;
}

/* The element of self that result element e reads or writes. */
static gpointer
index_walk_self_ptr (const IndexWalk *walk,
                     gint64           e)
{
  gint64 at[TS_MAX_DIMS];
  gint64 post = e % walk->inner;
  gint64 b = (e / walk->inner) % MAX (walk->n_b, 1);
  gint64 pre = e / walk->inner / MAX (walk->n_b, 1);
  const TsView *self = walk->self;

  for (guint d = self->ndim; d-- > walk->pos + walk->k;)
    {
      at[d] = post % self->shape[d];
      post /= self->shape[d];
    }
  for (guint j = 0; j < walk->k; j++)
    {
      gint64 v = ts_dtype_load_int (walk->index->dtype, ts_view_linear_ptr (walk->index, b * walk->k + j));

      at[walk->pos + j] = v < 0 ? v + self->shape[walk->pos + j] : v;
    }
  for (guint d = walk->pos; d-- > 0;)
    {
      at[d] = pre % self->shape[d];
      pre /= self->shape[d];
    }
  return ts_view_element_ptr (self, at);
}

static gboolean
index_walk_check (const IndexWalk *walk,
                  const TsView    *other,
                  TsIndexFailure  *failure,
                  GError         **error)
{
  TsIndexFailure f;

  if (index_walk_find_bad (walk, &f))
    {
      if (failure)
        *failure = f;
      g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_INDEX,
                   "index %" G_GINT64_FORMAT " is out of bounds for dimension %" G_GINT64_FORMAT
                   " with size %" G_GINT64_FORMAT, f.index, f.position % MAX (walk->k, 1), f.dim_size);
      return FALSE;
    }
  if (ts_view_numel (other) != index_walk_numel (walk) || other->dtype != walk->self->dtype)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE, "index: the result's shape or dtype does not match");
  return TRUE;
}

gboolean
ts_cpu_index (const TsView   *in,
              guint           pos,
              const TsView   *index,
              const TsView   *out,
              TsIndexFailure *failure,
              GError        **error)
{
  IndexWalk walk;
  gsize elem = ts_dtype_size (in->dtype);

  if (!index_walk_init (&walk, in, pos, index, error) || !index_walk_check (&walk, out, failure, error))
    return FALSE;
  if (index_walk_inner_dense (&walk) && ts_view_is_contiguous (out))
    {
      /* a block of self's trailing dims a copy (a[idx] of 512 rows of
       * 512 floats: 4.6 ms an element at a time, PyTorch 33 us) */
      gsize block = (gsize) walk.inner * elem;
      guint8 *dst = (guint8 *) out->data + out->offset * (gint64) elem;

      for (gint64 e = 0; e < ts_view_numel (out); e += walk.inner, dst += block)
        memcpy (dst, index_walk_self_ptr (&walk, e), block);
      return TRUE;
    }
  for (gint64 e = 0; e < ts_view_numel (out); e++)
    memcpy (ts_view_linear_ptr (out, e), index_walk_self_ptr (&walk, e), elem);
  return TRUE;
}

/* Accumulation adds in the element's own dtype: integers exactly, floats
 * through double (as the half types' CPU kernels do through float). */
static void
accumulate_element (TsDType       dtype,
                    gpointer      dst,
                    gconstpointer src)
{
  if (ts_dtype_is_floating (dtype))
    ts_dtype_store (dtype, dst, ts_dtype_load (dtype, dst) + ts_dtype_load (dtype, src));
  else if (dtype == TS_DTYPE_BOOL)
    ts_dtype_store_int (dtype, dst, ts_dtype_load_int (dtype, dst) || ts_dtype_load_int (dtype, src));
  else
    ts_dtype_store_int (dtype, dst, (gint64) ((guint64) ts_dtype_load_int (dtype, dst) +
                                              (guint64) ts_dtype_load_int (dtype, src)));
}

gboolean
ts_cpu_index_put (const TsView   *self,
                  guint           pos,
                  const TsView   *index,
                  const TsView   *values,
                  gboolean        accumulate,
                  TsIndexFailure *failure,
                  GError        **error)
{
  IndexWalk walk;
  gsize elem = ts_dtype_size (self->dtype);

  if (!index_walk_init (&walk, self, pos, index, error) || !index_walk_check (&walk, values, failure, error))
    return FALSE;
  /* in order: with repeated indices and no accumulation the last write
   * wins, as PyTorch's serial CPU kernel leaves it */
  for (gint64 e = 0; e < ts_view_numel (values); e++)
    {
      gpointer dst = index_walk_self_ptr (&walk, e);

      if (accumulate)
        accumulate_element (self->dtype, dst, ts_view_linear_ptr (values, e));
      else
        memcpy (dst, ts_view_linear_ptr (values, e), elem);
    }
  return TRUE;
}

gint64
ts_cpu_count_nonzero (const TsView *in)
{
  gint64 n = 0;

  for (gint64 e = 0; e < ts_view_numel (in); e++)
    n += ts_dtype_load (in->dtype, ts_view_linear_ptr (in, e)) != 0;
  return n;
}

gboolean
ts_cpu_nonzero (const TsView  *in,
                const TsView  *out,
                GError       **error)
{
  gint64 row = 0;

  if (out->ndim != 2 || out->dtype != TS_DTYPE_INT64 || out->shape[1] != in->ndim ||
      out->shape[0] != ts_cpu_count_nonzero (in))
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE, "nonzero(): the output is not (count, ndim) int64");
  for (gint64 e = 0; e < ts_view_numel (in); e++)
    {
      gint64 rem = e;

      if (ts_dtype_load (in->dtype, ts_view_linear_ptr (in, e)) == 0)
        continue;
      for (guint d = in->ndim; d-- > 0;)
        {
          gint64 at[2] = { row, d };

          ts_dtype_store_int (TS_DTYPE_INT64, ts_view_element_ptr (out, at), rem % in->shape[d]);
          rem /= in->shape[d];
        }
      row++;
    }
  return TRUE;
}

gboolean
ts_cpu_masked_fill (const TsView  *self,
                    const TsView  *mask,
                    const TsView  *value,
                    GError       **error)
{
  gsize elem = ts_dtype_size (self->dtype);
  gconstpointer fill;
  gint64 n;

  if (mask->dtype != TS_DTYPE_BOOL || value->dtype != self->dtype ||
      ts_view_numel (mask) != ts_view_numel (self) || ts_view_numel (value) != 1)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_SHAPE,
                           "masked_fill_(): the mask or value does not match self");
  n = ts_view_numel (self);
  fill = ts_view_linear_ptr (value, 0);
  /* dense self and mask (the common case: masked_fill's clone and a mask
   * of its shape) walk plain pointers; ts_view_linear_ptr's divisions
   * per element cost several times the fill itself */
  if (ts_view_is_contiguous (self) && ts_view_is_contiguous (mask))
    {
      char *dst = (char *) self->data + self->offset * (gint64) elem;
      const guint8 *m = (const guint8 *) mask->data + mask->offset;

      /* elements of 1, 2, 4 or 8 bytes as integers of that width, a select
       * per element (a memcpy call per masked element was 7 calls in 8 of
       * a small fill's time) */
#define SELECT_FILL(T)                                                        \
      {                                                                       \
        T v, *d = (T *)(gpointer) dst;                                        \
        memcpy (&v, fill, sizeof v);                                          \
        for (gint64 e = 0; e < n; e++)                                        \
          d[e] = m[e] ? v : d[e];                                             \
        return TRUE;                                                          \
      }
      if (elem == 4 && (guintptr) dst % 4 == 0)
        SELECT_FILL (guint32)
      if (elem == 8 && (guintptr) dst % 8 == 0)
        SELECT_FILL (guint64)
      if (elem == 2 && (guintptr) dst % 2 == 0)
        SELECT_FILL (guint16)
      if (elem == 1)
        SELECT_FILL (guint8)
#undef SELECT_FILL
      for (gint64 e = 0; e < n; e++)
        if (m[e])
          memcpy (dst + e * (gint64) elem, fill, elem);
      return TRUE;
    }
  for (gint64 e = 0; e < n; e++)
    if (*(const guint8 *) ts_view_linear_ptr (mask, e))
      memcpy (ts_view_linear_ptr (self, e), fill, elem);
  return TRUE;
}
