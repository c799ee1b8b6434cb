/* ts-host-allocator.c: pinned host caching allocator
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Follows aten/src/ATen/core/CachingHostAllocator.h: power-of-two buckets
 * with LIFO free lists, one event per stream that used a block, recorded
 * at free time; the pending (event, block) pairs form one queue, new ones
 * at the front, checked from the back (oldest first), stopping at the
 * first event not yet complete.
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ts-host-allocator.h"

#define N_BUCKETS 64
#define MAX_SIZE (G_GUINT64_CONSTANT (1) << 62)

typedef struct
{
  guint8     *ptr;
  gsize       size;          /* a power of two */
  gboolean    allocated;
  guint       event_count;
  TsStreamId *streams;       /* sorted, distinct */
  guint       n_streams;
} HostBlock;

/* A pinned range: a block, or memory registered by the user. */
typedef struct
{
  guint8    *start;
  gsize      size;
  HostBlock *block;          /* NULL for a registered range */
} Range;

typedef struct
{
  guint64    event;
  HostBlock *block;
} PendingEvent;

typedef struct
{
  TsStat allocations;        /* PyTorch's HostStats "segment" */
  TsStat allocated_bytes;    /* "reserved_bytes" */
  TsStat active[N_BUCKETS];  /* "allocation", per bucket */
  TsStat active_bytes[N_BUCKETS];
  TsDurationStat host_alloc_time;
  TsDurationStat host_free_time;
} Stats;

struct _TsHostAllocator
{
  GObject                 parent_instance;
  GMutex                  lock;
  TsHostAllocatorBackend  backend;
  gpointer                backend_data;
  GTree                  *ranges;              /* start -> Range */
  GPtrArray              *free_lists[N_BUCKETS];
  GQueue                  events;              /* PendingEvent *, newest at head */
  Stats                   stats;
};

G_DEFINE_FINAL_TYPE (TsHostAllocator, ts_host_allocator, G_TYPE_OBJECT)

G_DEFINE_QUARK (ts-host-allocator-error-quark, ts_host_allocator_error)

static guint
size_index (gsize size)
{
  /* ceil(log2 size): the bucket of a power-of-two size is its log2. */
  return size <= 1 ? 0 : 64 - __builtin_clzll ((guint64) size - 1);
}

static void
duration_increase (TsDurationStat *d,
                   gint64          amount)
{
  d->total += amount;
  d->count += 1;
  d->max = MAX (d->max, amount);
  d->min = d->min == 0 ? amount : MIN (d->min, amount);
}

static TsTime
now (TsHostAllocator *self)
{
  return self->backend.now ? self->backend.now (self->backend_data) : 0;
}

static int
compare_ptrs (gconstpointer a,
              gconstpointer b,
              gpointer      user_data)
{
  guintptr x = (guintptr) a, y = (guintptr) b;

  return x < y ? -1 : x > y;
}

/* The range holding ptr, or NULL. */
static Range *
find_range (TsHostAllocator *self,
            gconstpointer    ptr)
{
  GTreeNode *node = g_tree_upper_bound (self->ranges, ptr);
  Range *r;

  node = node ? g_tree_node_previous (node) : g_tree_node_last (self->ranges);
  if (node == NULL)
    return NULL;
  r = g_tree_node_value (node);
  return (guintptr) ptr - (guintptr) r->start < r->size ? r : NULL;
}

static gpointer
default_host_alloc (gsize size)
{
  gpointer p = NULL;

  if (posix_memalign (&p, 4096, size) != 0)
    return NULL;
  return p;
}

static void
release_block (TsHostAllocator *self,
               HostBlock       *block)
{
  TsTime t0 = now (self);

  if (self->backend.host_free)
    self->backend.host_free (self->backend_data, block->ptr, block->size);
  else
    free (block->ptr);
  duration_increase (&self->stats.host_free_time, (now (self) - t0) / 1000);
  ts_stat_decrease (&self->stats.allocations, 1);
  ts_stat_decrease (&self->stats.allocated_bytes, block->size);
  g_tree_remove (self->ranges, block->ptr);
  g_free (block->streams);
  g_free (block);
}

static void
make_available (TsHostAllocator *self,
                HostBlock       *block)
{
  guint index = size_index (block->size);

  g_ptr_array_add (self->free_lists[index], block);
  ts_stat_decrease (&self->stats.active[index], 1);
  ts_stat_decrease (&self->stats.active_bytes[index], block->size);
}

static void
process_events (TsHostAllocator *self)
{
  PendingEvent *pe;

  while ((pe = g_queue_peek_tail (&self->events)) != NULL)
    {
      if (!self->backend.event_query (self->backend_data, pe->event))
        return;
      g_queue_pop_tail (&self->events);
      self->backend.event_release (self->backend_data, pe->event);
      g_assert (!pe->block->allocated);
      if (--pe->block->event_count == 0)
        make_available (self, pe->block);
      g_free (pe);
    }
}

gpointer
ts_host_allocator_allocate (TsHostAllocator  *self,
                            gsize             size,
                            GError          **error)
{
  HostBlock *block;
  Range *range;
  GPtrArray *list;
  gsize round;
  guint index;
  TsTime t0;

  g_return_val_if_fail (TS_IS_HOST_ALLOCATOR (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (size == 0)
    return NULL;
  if (size > MAX_SIZE)
    {
      g_set_error_literal (error, TS_HOST_ALLOCATOR_ERROR, TS_HOST_ALLOCATOR_ERROR_OUT_OF_MEMORY,
                           "CUDA error: out of memory");
      return NULL;
    }

  g_mutex_lock (&self->lock);
  process_events (self);

  index = size_index (size);
  round = (gsize) 1 << index;
  list = self->free_lists[index];

  if (list->len > 0)
    {
      block = g_ptr_array_steal_index (list, list->len - 1);
      block->allocated = TRUE;
      ts_stat_increase (&self->stats.active[index], 1);
      ts_stat_increase (&self->stats.active_bytes[index], round);
      g_mutex_unlock (&self->lock);
      return block->ptr;
    }

  block = g_new0 (HostBlock, 1);
  t0 = now (self);
  block->ptr = self->backend.host_alloc ? self->backend.host_alloc (self->backend_data, round)
                                        : default_host_alloc (round);
  if (block->ptr == NULL)
    {
      g_mutex_unlock (&self->lock);
      g_free (block);
      g_set_error_literal (error, TS_HOST_ALLOCATOR_ERROR, TS_HOST_ALLOCATOR_ERROR_OUT_OF_MEMORY,
                           "CUDA error: out of memory");
      return NULL;
    }
  duration_increase (&self->stats.host_alloc_time, (now (self) - t0) / 1000);
  block->size = round;
  block->allocated = TRUE;

  range = g_new0 (Range, 1);
  range->start = block->ptr;
  range->size = round;
  range->block = block;
  g_tree_insert (self->ranges, block->ptr, range);

  ts_stat_increase (&self->stats.allocations, 1);
  ts_stat_increase (&self->stats.allocated_bytes, round);
  ts_stat_increase (&self->stats.active[index], 1);
  ts_stat_increase (&self->stats.active_bytes[index], round);

  g_mutex_unlock (&self->lock);
  return block->ptr;
}

gboolean
ts_host_allocator_free (TsHostAllocator  *self,
                        gpointer          ptr,
                        GError          **error)
{
  HostBlock *block;
  Range *range;
  guint k;

  g_return_val_if_fail (TS_IS_HOST_ALLOCATOR (self), FALSE);

  if (ptr == NULL)
    return TRUE;

  g_mutex_lock (&self->lock);
  range = g_tree_lookup (self->ranges, ptr);
  block = range ? range->block : NULL;
  if (block == NULL || !block->allocated)
    {
      g_mutex_unlock (&self->lock);
      g_set_error (error, TS_HOST_ALLOCATOR_ERROR, TS_HOST_ALLOCATOR_ERROR_INVALID_POINTER,
                   "invalid pinned host pointer: %p", ptr);
      return FALSE;
    }

  block->allocated = FALSE;
  if (block->n_streams == 0)
    make_available (self, block);
  else
    {
      for (k = 0; k < block->n_streams; k++)
        {
          PendingEvent *pe = g_new0 (PendingEvent, 1);

          pe->event = self->backend.event_record (self->backend_data, block->streams[k]);
          pe->block = block;
          block->event_count++;
          g_queue_push_head (&self->events, pe);
        }
      g_clear_pointer (&block->streams, g_free);
      block->n_streams = 0;
    }

  g_mutex_unlock (&self->lock);
  return TRUE;
}

gboolean
ts_host_allocator_record_event (TsHostAllocator *self,
                                gconstpointer    ptr,
                                TsStreamId       stream)
{
  HostBlock *block;
  Range *range;
  guint k;

  g_return_val_if_fail (TS_IS_HOST_ALLOCATOR (self), FALSE);

  g_mutex_lock (&self->lock);
  range = find_range (self, ptr);
  block = range ? range->block : NULL;
  if (block == NULL || !block->allocated)
    {
      g_mutex_unlock (&self->lock);
      return FALSE;
    }

  for (k = 0; k < block->n_streams && block->streams[k] < stream; k++)
    ;
  if (k == block->n_streams || block->streams[k] != stream)
    {
      block->streams = g_renew (TsStreamId, block->streams, block->n_streams + 1);
      memmove (&block->streams[k + 1], &block->streams[k], (block->n_streams - k) * sizeof (TsStreamId));
      block->streams[k] = stream;
      block->n_streams++;
    }

  g_mutex_unlock (&self->lock);
  return TRUE;
}

void
ts_host_allocator_empty_cache (TsHostAllocator *self)
{
  guint i;

  g_return_if_fail (TS_IS_HOST_ALLOCATOR (self));

  g_mutex_lock (&self->lock);
  process_events (self);
  for (i = 0; i < N_BUCKETS; i++)
    {
      GPtrArray *list = self->free_lists[i];

      while (list->len > 0)
        release_block (self, g_ptr_array_steal_index (list, list->len - 1));
    }
  g_mutex_unlock (&self->lock);
}

gboolean
ts_host_allocator_is_pinned (TsHostAllocator *self,
                             gconstpointer    ptr)
{
  gboolean pinned;

  g_return_val_if_fail (TS_IS_HOST_ALLOCATOR (self), FALSE);

  if (ptr == NULL)
    return FALSE;
  g_mutex_lock (&self->lock);
  pinned = find_range (self, ptr) != NULL;
  g_mutex_unlock (&self->lock);
  return pinned;
}

gboolean
ts_host_allocator_register (TsHostAllocator  *self,
                            gpointer          ptr,
                            gsize             size,
                            GError          **error)
{
  GTreeNode *next;
  Range *range;

  g_return_val_if_fail (TS_IS_HOST_ALLOCATOR (self), FALSE);

  if (ptr == NULL || size == 0)
    {
      g_set_error_literal (error, TS_HOST_ALLOCATOR_ERROR, TS_HOST_ALLOCATOR_ERROR_INVALID_POINTER,
                           "invalid argument");
      return FALSE;
    }

  g_mutex_lock (&self->lock);
  next = g_tree_lower_bound (self->ranges, ptr);
  if (find_range (self, ptr) != NULL ||
      (next != NULL && (guintptr) g_tree_node_key (next) - (guintptr) ptr < size))
    {
      g_mutex_unlock (&self->lock);
      g_set_error_literal (error, TS_HOST_ALLOCATOR_ERROR, TS_HOST_ALLOCATOR_ERROR_ALREADY_REGISTERED,
                           "part or all of the requested memory range is already mapped");
      return FALSE;
    }
  range = g_new0 (Range, 1);
  range->start = ptr;
  range->size = size;
  g_tree_insert (self->ranges, ptr, range);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

gboolean
ts_host_allocator_unregister (TsHostAllocator  *self,
                              gpointer          ptr,
                              GError          **error)
{
  Range *range;

  g_return_val_if_fail (TS_IS_HOST_ALLOCATOR (self), FALSE);

  g_mutex_lock (&self->lock);
  range = ptr ? g_tree_lookup (self->ranges, ptr) : NULL;
  if (range == NULL || range->block != NULL)
    {
      g_mutex_unlock (&self->lock);
      g_set_error_literal (error, TS_HOST_ALLOCATOR_ERROR, TS_HOST_ALLOCATOR_ERROR_NOT_REGISTERED,
                           "pointer does not correspond to a registered memory region");
      return FALSE;
    }
  g_tree_remove (self->ranges, ptr);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static void
add_bucket (TsStat       *acc,
            const TsStat *other)
{
  acc->current += other->current;
  acc->peak += other->peak;     /* an estimate, as in PyTorch */
  acc->allocated += other->allocated;
  acc->freed += other->freed;
}

void
ts_host_allocator_get_stats (TsHostAllocator   *self,
                             TsHostMemoryStats *out)
{
  guint i;

  g_return_if_fail (TS_IS_HOST_ALLOCATOR (self));
  g_return_if_fail (out != NULL);

  memset (out, 0, sizeof *out);
  g_mutex_lock (&self->lock);
  out->allocations = self->stats.allocations;
  out->allocated_bytes = self->stats.allocated_bytes;
  out->num_host_alloc = self->stats.allocations.allocated;
  out->num_host_free = self->stats.allocations.freed;
  for (i = 0; i < N_BUCKETS; i++)
    {
      add_bucket (&out->active_requests, &self->stats.active[i]);
      add_bucket (&out->active_bytes, &self->stats.active_bytes[i]);
    }
  out->host_alloc_time = self->stats.host_alloc_time;
  out->host_free_time = self->stats.host_free_time;
  g_mutex_unlock (&self->lock);
}

void
ts_host_allocator_reset_peak_stats (TsHostAllocator *self)
{
  guint i;

  g_return_if_fail (TS_IS_HOST_ALLOCATOR (self));

  g_mutex_lock (&self->lock);
  self->stats.allocations.peak = self->stats.allocations.current;
  self->stats.allocated_bytes.peak = self->stats.allocated_bytes.current;
  for (i = 0; i < N_BUCKETS; i++)
    {
      self->stats.active[i].peak = self->stats.active[i].current;
      self->stats.active_bytes[i].peak = self->stats.active_bytes[i].current;
    }
  self->stats.host_alloc_time.max = self->stats.host_alloc_time.min = 0;
  self->stats.host_free_time.max = self->stats.host_free_time.min = 0;
  g_mutex_unlock (&self->lock);
}

static void
reset_accumulated (TsStat *s)
{
  s->allocated = s->freed = 0;
}

void
ts_host_allocator_reset_accumulated_stats (TsHostAllocator *self)
{
  guint i;

  g_return_if_fail (TS_IS_HOST_ALLOCATOR (self));

  g_mutex_lock (&self->lock);
  reset_accumulated (&self->stats.allocations);
  reset_accumulated (&self->stats.allocated_bytes);
  for (i = 0; i < N_BUCKETS; i++)
    {
      reset_accumulated (&self->stats.active[i]);
      reset_accumulated (&self->stats.active_bytes[i]);
    }
  self->stats.host_alloc_time.total = self->stats.host_alloc_time.count = 0;
  self->stats.host_free_time.total = self->stats.host_free_time.count = 0;
  g_mutex_unlock (&self->lock);
}

/* Keys, already in Python's sorted order. "avg" is computed. */
static const struct
{
  const char *name;
  gssize      offset;    /* -1: host_alloc_time.avg, -2: host_free_time.avg */
} host_keys[TS_HOST_MEMORY_STATS_N_KEYS] = {
#define STAT_KEYS(field) \
  { #field ".allocated", G_STRUCT_OFFSET (TsHostMemoryStats, field.allocated) }, \
  { #field ".current", G_STRUCT_OFFSET (TsHostMemoryStats, field.current) }, \
  { #field ".freed", G_STRUCT_OFFSET (TsHostMemoryStats, field.freed) }, \
  { #field ".peak", G_STRUCT_OFFSET (TsHostMemoryStats, field.peak) }
#define DURATION_KEYS(field, avg) \
  { #field ".avg", avg }, \
  { #field ".count", G_STRUCT_OFFSET (TsHostMemoryStats, field.count) }, \
  { #field ".max", G_STRUCT_OFFSET (TsHostMemoryStats, field.max) }, \
  { #field ".min", G_STRUCT_OFFSET (TsHostMemoryStats, field.min) }, \
  { #field ".total", G_STRUCT_OFFSET (TsHostMemoryStats, field.total) }
  STAT_KEYS (active_bytes),
  STAT_KEYS (active_requests),
  STAT_KEYS (allocated_bytes),
  STAT_KEYS (allocations),
  DURATION_KEYS (host_alloc_time, -1),
  DURATION_KEYS (host_free_time, -2),
  { "num_host_alloc", G_STRUCT_OFFSET (TsHostMemoryStats, num_host_alloc) },
  { "num_host_free", G_STRUCT_OFFSET (TsHostMemoryStats, num_host_free) },
#undef STAT_KEYS
#undef DURATION_KEYS
};

const char *
ts_host_memory_stats_key (guint index)
{
  g_return_val_if_fail (index < TS_HOST_MEMORY_STATS_N_KEYS, NULL);

  return host_keys[index].name;
}

static gint64
duration_avg (const TsDurationStat *d)
{
  return d->count == 0 ? 0 : d->total / d->count;
}

gint64
ts_host_memory_stats_value (const TsHostMemoryStats *stats,
                            guint                    index)
{
  g_return_val_if_fail (stats != NULL, 0);
  g_return_val_if_fail (index < TS_HOST_MEMORY_STATS_N_KEYS, 0);

  if (host_keys[index].offset == -1)
    return duration_avg (&stats->host_alloc_time);
  if (host_keys[index].offset == -2)
    return duration_avg (&stats->host_free_time);
  return G_STRUCT_MEMBER (gint64, stats, host_keys[index].offset);
}

gboolean
ts_host_memory_stats_lookup (const TsHostMemoryStats *stats,
                             const char              *key,
                             gint64                  *value)
{
  guint k;

  g_return_val_if_fail (stats != NULL, FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  for (k = 0; k < TS_HOST_MEMORY_STATS_N_KEYS; k++)
    if (strcmp (host_keys[k].name, key) == 0)
      {
        if (value)
          *value = ts_host_memory_stats_value (stats, k);
        return TRUE;
      }
  return FALSE;
}

static void
ts_host_allocator_finalize (GObject *object)
{
  TsHostAllocator *self = TS_HOST_ALLOCATOR (object);
  PendingEvent *pe;
  GTreeNode *node;
  guint i;

  while ((pe = g_queue_pop_tail (&self->events)) != NULL)
    {
      self->backend.event_release (self->backend_data, pe->event);
      g_free (pe);
    }
  /* Every block, in use or cached, goes back to the host. */
  for (node = g_tree_node_first (self->ranges); node; node = g_tree_node_next (node))
    {
      Range *r = g_tree_node_value (node);

      if (r->block == NULL)
        continue;
      if (self->backend.host_free)
        self->backend.host_free (self->backend_data, r->block->ptr, r->block->size);
      else
        free (r->block->ptr);
      g_free (r->block->streams);
      g_free (r->block);
    }
  g_tree_unref (self->ranges);
  for (i = 0; i < N_BUCKETS; i++)
    g_ptr_array_unref (self->free_lists[i]);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (ts_host_allocator_parent_class)->finalize (object);
}

static void
ts_host_allocator_class_init (TsHostAllocatorClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ts_host_allocator_finalize;
}

static void
ts_host_allocator_init (TsHostAllocator *self)
{
  guint i;

  g_mutex_init (&self->lock);
  self->ranges = g_tree_new_full (compare_ptrs, NULL, NULL, g_free);
  for (i = 0; i < N_BUCKETS; i++)
    self->free_lists[i] = g_ptr_array_new ();
  g_queue_init (&self->events);
}

TsHostAllocator *
ts_host_allocator_new (const TsHostAllocatorBackend *backend,
                       gpointer                      backend_data)
{
  TsHostAllocator *self;

  g_return_val_if_fail (backend != NULL, NULL);
  g_return_val_if_fail (backend->event_record && backend->event_query && backend->event_release, NULL);
  g_return_val_if_fail ((backend->host_alloc == NULL) == (backend->host_free == NULL), NULL);

  self = g_object_new (TS_TYPE_HOST_ALLOCATOR, NULL);
  self->backend = *backend;
  self->backend_data = backend_data;
  return self;
}
