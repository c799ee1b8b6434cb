/* ts-memory-view-index.c: what the memory-over-time drawing precomputes
 * once per replay
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>

#include "ts-counter-plot.h"
#include "ts-memory-view-index.h"

/* Checkpoints of the live allocations are at least this many actions
 * apart (and at least twice the live count). */
#define MIN_CHECKPOINT_INTERVAL 4096

typedef struct
{
  guint    n;              /* allocations of the device */
  guint32 *ids;            /* allocation ids, allocation order ("positions") */
  guint32 *start;          /* alloc_action per position, increasing */
  guint32 *end;            /* free_completed_action per position */
  guint64 *size;           /* block size per position */
  guint32 *block_order;    /* per block: its positions, largest first */

  GArray  *cp_instant;     /* guint32: checkpoint instants, increasing */
  GArray  *cp_offset;      /* guint32: into cp_live, one more than cp_instant */
  GArray  *cp_live;        /* guint32: positions live at each checkpoint */

  gboolean have_usage;
  gint64   max_reserved;
  gint64   peak_allocated;
  gint64  *block_min[3];
  gint64  *block_max[3];
} Device;

struct _TsMemoryViewIndex
{
  TsMemoryReplay *replay;
  guint           n_devices;
  Device         *devices;
};

/* Candidates of the top-N: larger first, then the earlier position. */
typedef struct
{
  guint64 size;
  guint32 pos;
} Cand;

static inline gboolean
cand_better (const Cand *a,
             const Cand *b)
{
  return a->size > b->size || (a->size == b->size && a->pos < b->pos);
}

static const Device *sort_device;

static int
compare_pos_by_size (const void *a,
                     const void *b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  guint64 sx = sort_device->size[x], sy = sort_device->size[y];

  if (sx != sy)
    return sx > sy ? -1 : 1;
  return x < y ? -1 : x > y;
}

/* The live set at instants spaced so that rebuilding it from the previous
 * one costs no more than the actions in between. */
static void
build_checkpoints (Device *d,
                   gsize   n_actions)
{
  g_autoptr(GArray) live = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint p = 0;
  guint64 c = 0;

  d->cp_instant = g_array_new (FALSE, FALSE, sizeof (guint32));
  d->cp_offset = g_array_new (FALSE, FALSE, sizeof (guint32));
  d->cp_live = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (;;)
    {
      guint32 instant = (guint32) c, kept = 0, offset = d->cp_live->len;

      /* Alive at c: started before it, not completely freed before it. */
      for (; p < d->n && d->start[p] < instant; p++)
        g_array_append_val (live, p);
      for (guint k = 0; k < live->len; k++)
        {
          guint32 q = g_array_index (live, guint32, k);
          if (d->end[q] >= instant)
            g_array_index (live, guint32, kept++) = q;
        }
      g_array_set_size (live, kept);
      g_array_append_val (d->cp_instant, instant);
      g_array_append_val (d->cp_offset, offset);
      g_array_append_vals (d->cp_live, live->data, live->len);
      if (c >= n_actions)
        break;
      c += MAX (MIN_CHECKPOINT_INTERVAL, 2 * (guint64) live->len);
      c = MIN (c, MAX (n_actions, 1));
      if (c > G_MAXUINT32 - 1)
        break;
    }
  {
    guint32 total = d->cp_live->len;
    g_array_append_val (d->cp_offset, total);
  }
}

static void
build_usage (Device         *d,
             TsMemoryReplay *replay,
             guint           device)
{
  const TsTime *times;
  const gint64 *series[3];
  guint n = 0, n_blocks;

  if (!ts_memory_replay_get_usage (replay, device, &n, &times, &series[0], &series[1], &series[2]) || n == 0)
    return;
  d->have_usage = TRUE;
  d->max_reserved = 0;
  d->peak_allocated = 0;
  for (guint s = 0; s < n; s++)
    {
      d->max_reserved = MAX (d->max_reserved, series[2][s]);
      d->peak_allocated = MAX (d->peak_allocated, series[0][s]);
    }
  n_blocks = (n + TS_COUNTER_PLOT_BLOCK - 1) / TS_COUNTER_PLOT_BLOCK;
  for (guint k = 0; k < 3; k++)
    {
      d->block_min[k] = g_new (gint64, n_blocks);
      d->block_max[k] = g_new (gint64, n_blocks);
      ts_counter_plot_build_blocks (series[k], n, d->block_min[k], d->block_max[k]);
    }
}

TsMemoryViewIndex *
ts_memory_view_index_new (TsMemoryReplay *replay)
{
  TsMemoryViewIndex *self;
  guint n_alloc;
  gsize n_actions;
  g_autofree guint *fill = NULL;

  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (replay), NULL);

  self = g_new0 (TsMemoryViewIndex, 1);
  self->replay = replay;
  self->n_devices = ts_memory_replay_get_n_devices (replay);
  self->devices = g_new0 (Device, MAX (1, self->n_devices));
  n_alloc = ts_memory_replay_get_n_allocations (replay);
  n_actions = ts_memory_replay_get_n_actions (replay);

  /* Two passes: count per device, then fill in allocation order. */
  for (guint id = 0; id < n_alloc; id++)
    {
      const TsMemoryAllocation *a = ts_memory_replay_get_allocation (replay, id);
      if (a->device < self->n_devices)
        self->devices[a->device].n++;
    }
  for (guint dv = 0; dv < self->n_devices; dv++)
    {
      Device *d = &self->devices[dv];

      d->ids = g_new (guint32, MAX (1, d->n));
      d->start = g_new (guint32, MAX (1, d->n));
      d->end = g_new (guint32, MAX (1, d->n));
      d->size = g_new (guint64, MAX (1, d->n));
      d->block_order = g_new (guint32, MAX (1, d->n));
    }
  fill = g_new0 (guint, MAX (1, self->n_devices));
  for (guint id = 0; id < n_alloc; id++)
    {
      const TsMemoryAllocation *a = ts_memory_replay_get_allocation (replay, id);
      Device *d;
      guint p;

      if (a->device >= self->n_devices)
        continue;
      d = &self->devices[a->device];
      p = fill[a->device]++;
      d->ids[p] = id;
      d->start[p] = a->alloc_action;
      d->end[p] = a->free_completed_action;
      d->size[p] = a->size;
      g_assert (p == 0 || d->start[p] > d->start[p - 1]);
    }

  for (guint dv = 0; dv < self->n_devices; dv++)
    {
      Device *d = &self->devices[dv];

      for (guint p = 0; p < d->n; p++)
        d->block_order[p] = p;
      sort_device = d;
      for (guint b = 0; b < d->n; b += TS_MEMORY_VIEW_INDEX_BLOCK)
        qsort (d->block_order + b, MIN (TS_MEMORY_VIEW_INDEX_BLOCK, d->n - b), sizeof (guint32),
               compare_pos_by_size);
      sort_device = NULL;
      build_checkpoints (d, n_actions);
      build_usage (d, replay, dv);
    }
  return self;
}

void
ts_memory_view_index_free (TsMemoryViewIndex *self)
{
  if (self == NULL)
    return;
  for (guint dv = 0; dv < self->n_devices; dv++)
    {
      Device *d = &self->devices[dv];

      g_free (d->ids);
      g_free (d->start);
      g_free (d->end);
      g_free (d->size);
      g_free (d->block_order);
      g_clear_pointer (&d->cp_instant, g_array_unref);
      g_clear_pointer (&d->cp_offset, g_array_unref);
      g_clear_pointer (&d->cp_live, g_array_unref);
      for (guint k = 0; k < 3; k++)
        {
          g_free (d->block_min[k]);
          g_free (d->block_max[k]);
        }
    }
  g_free (self->devices);
  g_free (self);
}

/* The first position whose alloc action is >= instant. */
static guint
lower_bound (const Device *d,
             gsize         instant)
{
  guint lo = 0, hi = d->n;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (d->start[mid] < instant)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* A bounded min-heap of the best n_top candidates: the root is the worst
 * one kept. */
typedef struct
{
  Cand *c;
  guint n, cap;
} Heap;

static void
heap_sift_down (Heap *h,
                guint i)
{
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, worst = i;
      Cand tmp;

      if (l < h->n && cand_better (&h->c[worst], &h->c[l]))
        worst = l;
      if (r < h->n && cand_better (&h->c[worst], &h->c[r]))
        worst = r;
      if (worst == i)
        return;
      tmp = h->c[i], h->c[i] = h->c[worst], h->c[worst] = tmp;
      i = worst;
    }
}

/* Offers a candidate; FALSE when the heap is full and it is no better
 * than the worst kept (so neither is anything smaller). */
static gboolean
heap_offer (Heap        *h,
            const Cand  *c)
{
  if (h->n < h->cap)
    {
      guint i = h->n++;

      h->c[i] = *c;
      while (i > 0 && cand_better (&h->c[(i - 1) / 2], &h->c[i]))
        {
          Cand tmp = h->c[i];
          h->c[i] = h->c[(i - 1) / 2];
          h->c[(i - 1) / 2] = tmp;
          i = (i - 1) / 2;
        }
      return TRUE;
    }
  if (h->cap == 0 || !cand_better (c, &h->c[0]))
    return FALSE;
  h->c[0] = *c;
  heap_sift_down (h, 0);
  return TRUE;
}

static inline void
offer_pos (Heap         *h,
           const Device *d,
           guint32       pos)
{
  Cand c = { d->size[pos], pos };
  heap_offer (h, &c);
}

static int
compare_u32 (const void *a,
             const void *b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return (x > y) - (x < y);
}

guint
ts_memory_view_index_query (TsMemoryViewIndex *self,
                            guint              device,
                            gsize              first,
                            gsize              last,
                            guint              n_top,
                            GArray            *top)
{
  const Device *d;
  const guint B = TS_MEMORY_VIEW_INDEX_BLOCK;
  guint cp, lo, hi, p_cp, p_first, p_last, count = 0;
  guint32 instant;
  g_autofree Cand *cands = NULL;
  Heap heap;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (n_top == 0 || top != NULL, 0);

  if (top != NULL)
    g_array_set_size (top, 0);
  if (device >= self->n_devices || self->devices[device].n == 0)
    return 0;
  d = &self->devices[device];
  first = MIN (first, G_MAXUINT32);
  last = MAX (first, MIN (last, G_MAXUINT32));

  heap.cap = MIN (n_top, d->n);
  heap.n = 0;
  cands = g_new (Cand, MAX (1, heap.cap));
  heap.c = cands;

  /* The last checkpoint at or before `first`. */
  lo = 0, hi = d->cp_instant->len;
  while (hi - lo > 1)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (d->cp_instant, guint32, mid) <= first)
        lo = mid;
      else
        hi = mid;
    }
  cp = lo;
  instant = g_array_index (d->cp_instant, guint32, cp);

  /* Alive when the window opens: the checkpoint's live ones still live
   * then, and those started since the checkpoint still live then. */
  for (guint k = g_array_index (d->cp_offset, guint32, cp); k < g_array_index (d->cp_offset, guint32, cp + 1); k++)
    {
      guint32 q = g_array_index (d->cp_live, guint32, k);
      if (d->end[q] >= first)
        count++, offer_pos (&heap, d, q);
    }
  p_cp = lower_bound (d, instant);
  p_first = lower_bound (d, first);
  for (guint q = p_cp; q < p_first; q++)
    if (d->end[q] >= first)
      count++, offer_pos (&heap, d, q);

  /* Started inside the window: a range of positions. */
  p_last = lower_bound (d, last);
  if (p_last > p_first)
    {
      guint q = p_first;

      count += p_last - p_first;
      for (; q < p_last && q % B != 0; q++)
        offer_pos (&heap, d, q);
      for (; q + B <= p_last; q += B)
        for (guint k = 0; k < B; k++)
          {
            guint32 pos = d->block_order[q + k];
            Cand c = { d->size[pos], pos };

            if (!heap_offer (&heap, &c))
              break;
          }
      for (; q < p_last; q++)
        offer_pos (&heap, d, q);
    }

  if (top != NULL)
    {
      g_array_set_size (top, heap.n);
      for (guint k = 0; k < heap.n; k++)
        g_array_index (top, guint32, k) = heap.c[k].pos;
      /* An empty GArray may have no buffer at all: qsort wants one. */
      if (top->len > 1)
        qsort (top->data, top->len, sizeof (guint32), compare_u32);
      for (guint k = 0; k < top->len; k++)
        g_array_index (top, guint32, k) = d->ids[g_array_index (top, guint32, k)];
    }
  return count;
}

gboolean
ts_memory_view_index_get_extremes (TsMemoryViewIndex *self,
                                   guint              device,
                                   gint64            *max_reserved,
                                   gint64            *peak_allocated)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (device >= self->n_devices || !self->devices[device].have_usage)
    return FALSE;
  if (max_reserved)
    *max_reserved = self->devices[device].max_reserved;
  if (peak_allocated)
    *peak_allocated = self->devices[device].peak_allocated;
  return TRUE;
}

gboolean
ts_memory_view_index_get_blocks (TsMemoryViewIndex  *self,
                                 guint               device,
                                 TsMemoryViewSeries  series,
                                 const gint64      **block_min,
                                 const gint64      **block_max)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail ((guint) series < 3, FALSE);

  if (device >= self->n_devices || !self->devices[device].have_usage)
    return FALSE;
  *block_min = self->devices[device].block_min[series];
  *block_max = self->devices[device].block_max[series];
  return TRUE;
}
