/* ts-cpu-sort.c: sort along a dim (sort, argsort, topk, kthvalue, msort)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each slice along the dim is sorted as (key, index) pairs, ties broken
 * by the index: the stable order of PyTorch's CPU sort. NaN sorts as the
 * largest value (last ascending, first descending), as in PyTorch.
 * Keys are int64: integers as they are (exact beyond 2^53), floating
 * values (exact as doubles for every floating dtype) mapped to integers
 * of the same order (ordered_key).
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-cpu-kernels.h"
#include "ts-cpu-kernels-private.h"

typedef struct
{
  gint64 key;     /* integer keys, floating ones by ordered_key */
  gint64 index;
} Item;

/* The keys' order alone, negated when descending */
static inline int
compare_keys (const Item *a,
              const Item *b,
              gboolean    descending)
{
  int c = (a->key > b->key) - (a->key < b->key);

  return descending ? -c : c;
}

static int
compare (gconstpointer pa,
         gconstpointer pb,
         gpointer      data)
{
  const Item *a = pa, *b = pb;
  const gboolean *descending = data;
  int c = compare_keys (a, b, *descending);

  return c != 0 ? c : (a->index > b->index) - (a->index < b->index);
}

/* Short slices (a 16-wide row): an insertion sort, which is stable, so
 * ties stay in index order as compare() orders them; g_qsort_with_data's
 * merge sort costs several times more there (a call per comparison, a
 * copy through a buffer). */
#define INSERTION_SORT_MAX 32

/* Inlined with a constant flag, so each order gets its own loop without
 * the flag test per comparison */
G_ALWAYS_INLINE static inline void
insertion_sort (Item     *items,
                gint64    n,
                gboolean  descending)
{
  for (gint64 k = 1; k < n; k++)
    {
      Item item = items[k];
      gint64 j = k;

      /* strictly before: equal keys keep their index order */
      while (j > 0 && (descending ? item.key > items[j - 1].key : item.key < items[j - 1].key))
        {
          items[j] = items[j - 1];
          j--;
        }
      items[j] = item;
    }
}

static void
sort_items (Item     *items,
            gint64    n,
            gboolean  descending)
{
  if (n > INSERTION_SORT_MAX)
    g_qsort_with_data (items, (gint) n, sizeof (Item), compare, &descending);
  else if (descending)
    insertion_sort (items, n, TRUE);
  else
    insertion_sort (items, n, FALSE);
}

void
ts_slice_index (const TsView *v,
                guint         dim,
                gint64        slice,
                gint64       *idx)
{
  for (guint d = v->ndim; d-- > 0;)
    {
      if (d == dim)
        continue;
      idx[d] = slice % v->shape[d];
      slice /= v->shape[d];
    }
}

/* A floating key as an integer of the same order: -0.0 and 0.0 one value
 * (equal, so their ties go by index) and every NaN one value above +inf,
 * then the IEEE bits with negatives flipped, made signed. An integer
 * comparison sorts them as compare_keys would the doubles, without the
 * NaN tests in each comparison. */
static inline gint64
ordered_key (double d)
{
  guint64 b;

  if (G_UNLIKELY (isnan (d)))
    d = NAN;
  d += 0.0;   /* -0.0 + 0.0 is 0.0; any other value is itself */
  memcpy (&b, &d, sizeof b);
  b = b >> 63 ? ~b : b | G_GUINT64_CONSTANT (0x8000000000000000);
  return (gint64) (b ^ G_GUINT64_CONSTANT (0x8000000000000000));
}

/* A slice's keys with their positions, all as integers (floating ones by
 * ordered_key); float32, float64 and int64 read directly (a load switch
 * per element was a tenth of a small sort) */
static void
load_keys (TsDType       dtype,
           const guint8 *src,
           gint64        step,
           gint64        n,
           gboolean      floating,
           Item         *items)
{
  for (gint64 k = 0; k < n; k++)
    {
      const void *p = src + k * step;

      if (dtype == TS_DTYPE_FLOAT32)
        {
          float f;

          memcpy (&f, p, sizeof f);
          items[k].key = ordered_key (f);
        }
      else if (dtype == TS_DTYPE_FLOAT64)
        {
          double d;

          memcpy (&d, p, sizeof d);
          items[k].key = ordered_key (d);
        }
      else if (dtype == TS_DTYPE_INT64)
        memcpy (&items[k].key, p, sizeof (gint64));
      else if (floating)
        items[k].key = ordered_key (ts_dtype_load (dtype, p));
      else
        items[k].key = ts_dtype_load_int (dtype, p);
      items[k].index = k;
    }
}

/* One element's bytes, fixed sizes inline */
static inline void
copy_element (guint8       *dst,
              const guint8 *src,
              gsize         esize)
{
  if (esize == 4)
    memcpy (dst, src, 4);
  else if (esize == 8)
    memcpy (dst, src, 8);
  else
    memcpy (dst, src, esize);
}

gboolean
ts_cpu_sort (const TsView *in,
             guint         dim,
             gboolean      descending,
             gint64        start,
             const TsView *values,
             const TsView *indices,
             GError      **error)
{
  gboolean floating = ts_dtype_is_floating (in->dtype);
  gsize esize = ts_dtype_size (in->dtype);
  gint64 size = in->ndim ? in->shape[dim] : 1;
  gint64 n_out = values->ndim ? values->shape[dim] : 1;
  gint64 idx[TS_MAX_DIMS] = { 0 };
  gint64 n_slices = 1;
  Item *items;

  g_return_val_if_fail (in != NULL && values != NULL && indices != NULL, FALSE);

  if (values->dtype != in->dtype || indices->dtype != TS_DTYPE_INT64 ||
      start < 0 || start + n_out > size)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_ARGUMENT, "sort: the outputs do not fit the input");
  for (guint d = 0; d < in->ndim; d++)
    if (d != dim)
      n_slices *= in->shape[d];
  if (n_slices == 0 || n_out == 0)
    return TRUE;

  items = g_new (Item, MAX (size, 1));
  for (gint64 s = 0; s < n_slices; s++)
    {
      ts_slice_index (in, dim, s, idx);
      {
        const guint8 *src;
        guint8 *vdst, *idst;
        gint64 in_step, v_step, i_step;

        if (in->ndim)
          idx[dim] = 0;
        src = ts_view_element_ptr (in, idx);
        vdst = ts_view_element_ptr (values, idx);
        idst = ts_view_element_ptr (indices, idx);
        in_step = in->ndim ? in->strides[dim] * (gint64) esize : 0;
        v_step = values->ndim ? values->strides[dim] * (gint64) esize : 0;
        i_step = indices->ndim ? indices->strides[dim] * 8 : 0;
        load_keys (in->dtype, src, in_step, size, floating, items);
        sort_items (items, size, descending);
        for (gint64 k = 0; k < n_out; k++)
          {
            gint64 j = items[start + k].index;

            copy_element (vdst + k * v_step, src + j * in_step, esize);
            memcpy (idst + k * i_step, &j, sizeof j);
          }
      }
    }
  g_free (items);
  return TRUE;
}
