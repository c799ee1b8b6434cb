/* ts-cpu-sort.c: sort along a dim (sort, argsort, topk, kthvalue, msort)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each slice along the dim is sorted as (key, index) pairs, ties broken
 * by the index: the stable order of PyTorch's CPU sort. NaN sorts as the
 * largest value (last ascending, first descending), as in PyTorch.
 * Floating keys are doubles (exact for every floating dtype), integer
 * keys int64 (exact beyond 2^53).
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-cpu-kernels.h"

typedef struct
{
  union { double f; gint64 i; } key;
  gint64 index;
} Item;

/* The keys' order alone: NaN largest, then negated when descending */
static inline int
compare_keys (const Item *a,
              const Item *b,
              gboolean    floating,
              gboolean    descending)
{
  int c;

  if (floating)
    {
      gboolean na = isnan (a->key.f), nb = isnan (b->key.f);

      c = na || nb ? (na && nb ? 0 : na ? 1 : -1)
                   : (a->key.f > b->key.f) - (a->key.f < b->key.f);
    }
  else
    c = (a->key.i > b->key.i) - (a->key.i < b->key.i);
  return descending ? -c : c;
}

static int
compare (gconstpointer pa,
         gconstpointer pb,
         gpointer      data)
{
  const Item *a = pa, *b = pb;
  const int *how = data;        /* how[0]: floating, how[1]: descending */
  int c = compare_keys (a, b, how[0], how[1]);

  return c != 0 ? c : (a->index > b->index) - (a->index < b->index);
}

/* Short slices (a 16-wide row): an insertion sort, which is stable, so
 * ties stay in index order as compare() orders them; g_qsort_with_data's
 * merge sort costs several times more there (a call per comparison, a
 * copy through a buffer). */
#define INSERTION_SORT_MAX 32

/* Inlined with constant flags, so each of the four orders gets its own
 * loop without the flag tests per comparison */
G_ALWAYS_INLINE static inline void
insertion_sort (Item     *items,
                gint64    n,
                gboolean  floating,
                gboolean  descending)
{
  for (gint64 k = 1; k < n; k++)
    {
      Item item = items[k];
      gint64 j = k;

      while (j > 0 && compare_keys (&item, &items[j - 1], floating, descending) < 0)
        {
          items[j] = items[j - 1];
          j--;
        }
      items[j] = item;
    }
}

static void
sort_items (Item      *items,
            gint64     n,
            const int *how)
{
  if (n > INSERTION_SORT_MAX)
    g_qsort_with_data (items, (gint) n, sizeof (Item), compare, (gpointer) how);
  else if (how[0] && !how[1])
    insertion_sort (items, n, TRUE, FALSE);
  else if (how[0])
    insertion_sort (items, n, TRUE, TRUE);
  else if (!how[1])
    insertion_sort (items, n, FALSE, FALSE);
  else
    insertion_sort (items, n, FALSE, TRUE);
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

gboolean
ts_cpu_sort (const TsView *in,
             guint         dim,
             gboolean      descending,
             gint64        start,
             const TsView *values,
             const TsView *indices,
             GError      **error)
{
  int how[2] = { ts_dtype_is_floating (in->dtype), descending };
  gsize esize = ts_dtype_size (in->dtype);
  gint64 size = in->ndim ? in->shape[dim] : 1;
  gint64 n_out = values->ndim ? values->shape[dim] : 1;
  gint64 idx[TS_MAX_DIMS] = { 0 };
  gint64 n_slices = 1;
  Item *items;

  g_return_val_if_fail (in != NULL && values != NULL && indices != NULL, FALSE);

  if (values->dtype != in->dtype || indices->dtype != TS_DTYPE_INT64 ||
      start < 0 || start + n_out > size)
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_ARGUMENT,
                           "sort: the outputs do not fit the input");
      return FALSE;
    }
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
        for (gint64 k = 0; k < size; k++)
          {
            const void *p = src + k * in_step;

            if (how[0])
              items[k].key.f = ts_dtype_load (in->dtype, p);
            else
              items[k].key.i = ts_dtype_load_int (in->dtype, p);
            items[k].index = k;
          }
        sort_items (items, size, how);
        for (gint64 k = 0; k < n_out; k++)
          {
            gint64 j = items[start + k].index;

            memcpy (vdst + k * v_step, src + j * in_step, esize);
            ts_dtype_store_int (TS_DTYPE_INT64, idst + k * i_step, j);
          }
      }
    }
  g_free (items);
  return TRUE;
}
