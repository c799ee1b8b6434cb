/* ts-block-sizer.c: block sizes for a snapshot's trace entries
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Per device, the live segments (for expandable segments: the contiguous
 * mapped ranges, as the snapshot shows them) and the live blocks, both
 * in GTrees by address. A block always starts a free run: PyTorch takes
 * the start of the best-fitting free block and merges free neighbours, so
 * the free block an alloc takes runs to the next live block or the end of
 * its segment.
 */

#include "config.h"

#include "ts-block-sizer-private.h"
#include "ts-memory-snapshot.h"

typedef struct
{
  guint64  size;
  gboolean is_small;
  gboolean mapped;    /* pages of an expandable segment */
} Range;

typedef struct
{
  GTree *ranges;   /* addr -> Range* */
  GTree *blocks;   /* addr -> size */
} Device;

struct _TsBlockSizer
{
  TsBlockSizerConfig config;
  Device            *devices[64];
};

#define KEY(a)   GSIZE_TO_POINTER ((gsize) (a))
#define ADDR(k)  ((guint64) GPOINTER_TO_SIZE (k))

G_STATIC_ASSERT (sizeof (gpointer) >= sizeof (guint64));

static gint
cmp_addr (gconstpointer a,
          gconstpointer b,
          gpointer      user_data)
{
  guint64 x = ADDR (a), y = ADDR (b);
  return x < y ? -1 : x > y;
}

TsBlockSizer *
ts_block_sizer_new (const TsBlockSizerConfig *config)
{
  TsBlockSizer *self = g_new0 (TsBlockSizer, 1);

  self->config = *config;
  return self;
}

void
ts_block_sizer_free (TsBlockSizer *self)
{
  if (self == NULL)
    return;
  for (guint d = 0; d < G_N_ELEMENTS (self->devices); d++)
    if (self->devices[d] != NULL)
      {
        g_tree_unref (self->devices[d]->ranges);
        g_tree_unref (self->devices[d]->blocks);
        g_free (self->devices[d]);
      }
  g_free (self);
}

static Device *
device_get (TsBlockSizer *self,
            guint         device)
{
  Device *d;

  if (device >= G_N_ELEMENTS (self->devices))
    return NULL;
  if ((d = self->devices[device]) == NULL)
    {
      d = self->devices[device] = g_new0 (Device, 1);
      d->ranges = g_tree_new_full (cmp_addr, NULL, NULL, g_free);
      d->blocks = g_tree_new_full (cmp_addr, NULL, NULL, NULL);
    }
  return d;
}

/* The last node with a key at or below addr, or NULL. */
static GTreeNode *
node_at_or_before (GTree   *tree,
                   guint64  addr)
{
  GTreeNode *n = g_tree_upper_bound (tree, KEY (addr));

  return n != NULL ? g_tree_node_previous (n) : g_tree_node_last (tree);
}

static guint64
round_size (TsBlockSizer *self,
            guint64       size)
{
  /* Intervals start at 1 MiB; everything below shares the first. */
  gint index = size == 0 ? 0 : (63 - __builtin_clzll (size)) - 20;

  index = CLAMP (index, 0, TS_ROUNDUP_INTERVALS - 1);
  return ts_memory_round_size (size, self->config.divisions[index]);
}

guint64
ts_block_sizer_alloc_size (TsBlockSizer *self,
                           guint         device,
                           guint64       addr,
                           guint64       requested)
{
  Device *d = device_get (self, device);
  guint64 rounded = round_size (self, requested), end, remaining;
  GTreeNode *n;
  const Range *r;
  gboolean split;

  if (d == NULL || (n = node_at_or_before (d->ranges, addr)) == NULL)
    return rounded;
  r = g_tree_node_value (n);
  end = ADDR (g_tree_node_key (n)) + r->size;
  if (addr >= end)
    return rounded;
  if ((n = g_tree_upper_bound (d->blocks, KEY (addr))) != NULL)
    end = MIN (end, ADDR (g_tree_node_key (n)));
  if (end - addr < rounded)
    return rounded;   /* does not fit: the replay says so */
  remaining = end - addr - rounded;
  /* should_split as of PyTorch 2.9 (before, a large block at or above
   * max_split_size was never split: such a block differs by less than
   * 20 MiB, the most an oversize request may waste) */
  if (r->is_small || r->mapped || self->config.expandable)
    split = remaining >= TS_ALLOCATOR_MIN_BLOCK_SIZE;
  else
    split = remaining > TS_ALLOCATOR_SMALL_SIZE;
  return split ? rounded : end - addr;
}

guint64
ts_block_sizer_block_size (TsBlockSizer *self,
                           guint         device,
                           guint64       addr,
                           guint64       requested)
{
  Device *d = device_get (self, device);
  gpointer size;

  if (d != NULL && g_tree_lookup_extended (d->blocks, KEY (addr), NULL, &size))
    return ADDR (size);
  return round_size (self, requested);
}

static void
range_insert (Device  *d,
              guint64  addr,
              guint64  size,
              gboolean is_small,
              gboolean mapped)
{
  Range *r = g_new (Range, 1);

  r->size = size;
  r->is_small = is_small;
  r->mapped = mapped;
  g_tree_replace (d->ranges, KEY (addr), r);
}

/* Pages mapped next to a range grow it (the snapshot reports each
 * contiguous mapped range as one segment). */
static void
map_pages (Device   *d,
           guint64   addr,
           guint64   size,
           gboolean  is_small)
{
  GTreeNode *n = node_at_or_before (d->ranges, addr);
  Range *before = NULL;
  gpointer after = NULL;

  if (n != NULL && ((Range *) g_tree_node_value (n))->mapped &&
      ADDR (g_tree_node_key (n)) + ((Range *) g_tree_node_value (n))->size == addr)
    before = g_tree_node_value (n);
  if (g_tree_lookup_extended (d->ranges, KEY (addr + size), NULL, &after) && !((Range *) after)->mapped)
    after = NULL;
  if (before != NULL)
    before->size += size;
  else
    range_insert (d, addr, size, is_small, TRUE);
  if (after != NULL)
    {
      guint64 more = ((Range *) after)->size;
      g_tree_remove (d->ranges, KEY (addr + size));
      if (before != NULL)
        before->size += more;
      else
        ((Range *) g_tree_lookup (d->ranges, KEY (addr)))->size += more;
    }
}

/* Unmapped pages leave what is left of their range on either side. */
static void
unmap_pages (Device  *d,
             guint64  addr,
             guint64  size)
{
  GTreeNode *n = node_at_or_before (d->ranges, addr);
  Range r;
  guint64 start, end = addr + size;

  if (n == NULL)
    return;
  r = *(Range *) g_tree_node_value (n);
  start = ADDR (g_tree_node_key (n));
  if (addr >= start + r.size)
    return;
  g_tree_remove (d->ranges, KEY (start));
  if (start < addr)
    range_insert (d, start, addr - start, r.is_small, r.mapped);
  if (end < start + r.size)
    range_insert (d, end, start + r.size - end, r.is_small, r.mapped);
}

void
ts_block_sizer_apply (TsBlockSizer *self,
                      guint         device,
                      guint         action,
                      guint64       addr,
                      guint64       size,
                      gboolean      is_small)
{
  Device *d = device_get (self, device);

  if (d == NULL)
    return;
  switch (action)
    {
    case TS_ALLOC_ACTION_ALLOC:
      g_tree_replace (d->blocks, KEY (addr), KEY (size));
      break;
    case TS_ALLOC_ACTION_FREE_COMPLETED:
      /* a pending block still holds its place until the free completes */
      g_tree_remove (d->blocks, KEY (addr));
      break;
    case TS_ALLOC_ACTION_SEGMENT_ALLOC:
      range_insert (d, addr, size, is_small, FALSE);
      break;
    case TS_ALLOC_ACTION_SEGMENT_FREE:
      g_tree_remove (d->ranges, KEY (addr));
      break;
    case TS_ALLOC_ACTION_SEGMENT_MAP:
      if (size > 0 && addr + size > addr)
        map_pages (d, addr, size, is_small);
      break;
    case TS_ALLOC_ACTION_SEGMENT_UNMAP:
      if (size > 0 && addr + size > addr)
        unmap_pages (d, addr, size);
      break;
    default:
      break;
    }
}
