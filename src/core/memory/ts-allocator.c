/* ts-allocator.c: PyTorch's CUDA caching allocator
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The algorithm is PyTorch's DeviceCachingAllocator (c10/cuda/
 * CUDACachingAllocator.cpp, native backend, with expandable segments and
 * private pools; stream capture is the runtime's), step for step, because
 * the point is that the numbers a user sees here equal the ones a real run
 * prints. Where PyTorch iterates a hash container (the streams with
 * pending events, a block's stream uses), we go in stream id order so that
 * runs are deterministic; only the order of trace entries inside one call
 * can differ from a real run, never a count or a size.
 *
 * Data: a segment is a doubly linked list of blocks in address order. The
 * free blocks of each pool (small, large) sit in an intrusive treap keyed
 * by (stream, size, address), so best fit is a lower bound and no node is
 * allocated on the hot path; block structs are recycled through a free
 * list, and an open-addressing table maps pointers to allocated blocks.
 *
 * Expandable segments: one Segment spans the whole virtual reservation;
 * its blocks are mapped (in the pool's treap when free) or unmapped (in
 * the pool's unmapped array, by stream and address), and the snapshot
 * shows each run of mapped blocks as a segment, as PyTorch's does.
 * Private pools (PyTorch's graph_pools) are per device, each with a small
 * and a large Pool of its own; a block always goes back to its own pool.
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ts-allocator.h"
#include "ts-allocator-private.h"

#define kMinBlockSize  TS_ALLOCATOR_MIN_BLOCK_SIZE
#define kSmallSize     TS_ALLOCATOR_SMALL_SIZE
#define kSmallBuffer   TS_ALLOCATOR_SMALL_BUFFER
#define kLargeBuffer   TS_ALLOCATOR_LARGE_BUFFER
#define kMinLargeAlloc TS_ALLOCATOR_MIN_LARGE_ALLOC
#define kRoundLarge    TS_ALLOCATOR_ROUND_LARGE

typedef struct _Block   Block;
typedef struct _Segment Segment;
typedef struct _Pool    Pool;
typedef struct _PrivatePool PrivatePool;

struct _Block
{
  guint64     addr;
  guint64     size;
  guint64     requested_size;
  Block      *prev;            /* neighbours in the segment */
  Block      *next;
  Block      *left;            /* pool treap */
  Block      *right;
  Segment    *segment;
  Pool       *pool;
  guint64     gc_count_base;
  TsStreamId *stream_uses;     /* sorted, distinct; NULL when none */
  guint       n_stream_uses;
  guint       event_count;
  TsStreamId  stream;
  guint32     prio;
  gboolean    allocated;
  gboolean    unmapped;        /* expandable: address space without pages */
  TsSourceLoc loc;
};

struct _Segment
{
  guint64     addr;
  guint64     size;
  Block      *head;
  guint       device;
  guint       index;           /* in the device's segment array */
  TsStreamId  stream;
  TsSourceLoc loc;
  /* PyTorch's ExpandableSegment: [addr, addr + size) is address space,
   * mapped in pages of page_size (blocks with !unmapped). */
  gboolean    expandable;
  guint64     page_size;
};

struct _Pool
{
  Block       *root;
  guint        n_blocks;
  gboolean     is_small;
  guint64      get_free_blocks_call_count;
  GPtrArray   *unmapped;       /* Block *, by (stream, addr): PyTorch's BlockPool::unmapped */
  PrivatePool *owner;          /* NULL for the device's own pools */
};

/* PyTorch's PrivatePool: the pools of a CUDA graph or a MemPool. */
struct _PrivatePool
{
  TsMemPoolId id;
  gint        use_count;           /* graphs / pools using it */
  gint        cuda_malloc_count;   /* its segments not yet freed */
  gboolean    freeable;            /* in graph_pools_freeable */
  Pool        small_pool;
  Pool        large_pool;
};

/* captures_underway: allocations on streams the filter accepts go to the
 * pool (no filter: every stream). */
typedef struct
{
  TsMemPoolId           id;
  TsAllocatorPoolFilter filter;
  gpointer              user_data;
} Capture;

typedef struct
{
  guint64  event;
  Block   *block;
} PendingEvent;

typedef struct
{
  TsStreamId  stream;
  GArray     *queue;           /* PendingEvent, FIFO from head */
  guint       head;
} StreamEvents;

typedef struct
{
  TsMemoryStats stats;
  Pool          small_pool;
  Pool          large_pool;
  GPtrArray    *segments;      /* Segment * */
  GArray       *streams;       /* StreamEvents, sorted by stream */
  guint         n_pending;     /* events not yet processed */
  guint64       total_allocated_memory;   /* PyTorch's name for reserved */
  gboolean      set_fraction;
  guint64       allowed_memory_maximum;
  GArray       *trace;         /* TsAllocTraceEntry ring */
  gsize         trace_next;    /* where the next entry goes once full */
  gint64        last_counter[2];
  GPtrArray    *private_pools; /* PrivatePool *: graph_pools */
  GArray       *captures;      /* Capture: captures_underway */
  GPtrArray    *deferred_frees;/* Block *: needs_events_deferred_until_no_capture */
} Device;

typedef struct
{
  guint    device;
  guint64  size;
} Uncached;

typedef struct
{
  guint     id;
  gboolean  is_observer;
  gpointer  func;
  gpointer  user_data;
} Callback;

/* addr -> Block*, linear probing, deletion by backward shift. */
typedef struct
{
  guint64 *keys;               /* 0 = empty: no block lives at address 0 */
  Block  **values;
  gsize    mask;
  gsize    count;
} BlockMap;

struct _TsAllocator
{
  GObject             parent_instance;

  GMutex              lock;
  guint               n_devices;
  Device             *devices;
  TsAllocConfig       config;
  TsAllocatorBackend  backend;
  gpointer            backend_data;
  TsRecorder         *recorder;
  gboolean            caching_enabled;

  BlockMap            allocated;
  GHashTable         *uncached;       /* addr -> Uncached */
  Block              *spare_blocks;   /* recycled structs, linked by next */
  GArray             *callbacks;      /* Callback */
  guint               last_callback_id;

  gboolean            record_history;
  gsize               max_entries;
  guint               skip_actions;

  /* MemPool::uid_ and uuid_: the next ids handed out. */
  guint64             next_user_pool_id;
  guint64             next_graph_pool_id;

  /* While set (a malloc or free that reaches emit_counters with no backend
   * call in between), action records wait here and go in with the
   * counters, under one recorder lock. */
  gboolean            defer_actions;
  guint               n_deferred;
  TsAllocRecord       deferred[2];
};

G_DEFINE_FINAL_TYPE (TsAllocator, ts_allocator, G_TYPE_OBJECT)

G_DEFINE_QUARK (ts-allocator-error-quark, ts_allocator_error)

/* ------------------------------------------------------------------ */
/* Block map                                                          */

static inline gsize
map_slot (const BlockMap *map,
          guint64         addr)
{
  return (gsize) ((addr >> 9) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15) >> 20) & map->mask;
}

static void
map_init (BlockMap *map,
          gsize     capacity)
{
  map->keys = g_new0 (guint64, capacity);
  map->values = g_new0 (Block *, capacity);
  map->mask = capacity - 1;
  map->count = 0;
}

static void map_insert (BlockMap *map, Block *block);

static void
map_grow (BlockMap *map)
{
  BlockMap old = *map;
  gsize k;

  map_init (map, (old.mask + 1) * 2);
  for (k = 0; k <= old.mask; k++)
    if (old.keys[k] != 0)
      map_insert (map, old.values[k]);
  g_free (old.keys);
  g_free (old.values);
}

static void
map_insert (BlockMap *map,
            Block    *block)
{
  gsize i;

  if ((map->count + 1) * 4 > (map->mask + 1) * 3)
    map_grow (map);
  for (i = map_slot (map, block->addr); map->keys[i] != 0; i = (i + 1) & map->mask)
    g_assert (map->keys[i] != block->addr);
  map->keys[i] = block->addr;
  map->values[i] = block;
  map->count++;
}

static Block *
map_lookup (const BlockMap *map,
            guint64         addr)
{
  gsize i;

  if (addr == 0)
    return NULL;
  for (i = map_slot (map, addr); map->keys[i] != 0; i = (i + 1) & map->mask)
    if (map->keys[i] == addr)
      return map->values[i];
  return NULL;
}

static Block *
map_remove (BlockMap *map,
            guint64   addr)
{
  Block *found;
  gsize i, j;

  if (addr == 0)
    return NULL;
  for (i = map_slot (map, addr); map->keys[i] != addr; i = (i + 1) & map->mask)
    if (map->keys[i] == 0)
      return NULL;

  found = map->values[i];
  map->count--;

  /* Backward shift: move later members of the cluster into the hole when
   * their home slot does not lie cyclically in (i, j]. */
  for (j = (i + 1) & map->mask; map->keys[j] != 0; j = (j + 1) & map->mask)
    {
      gsize home = map_slot (map, map->keys[j]);

      if (((j - home) & map->mask) >= ((j - i) & map->mask))
        {
          map->keys[i] = map->keys[j];
          map->values[i] = map->values[j];
          i = j;
        }
    }
  map->keys[i] = 0;
  map->values[i] = NULL;
  return found;
}

/* ------------------------------------------------------------------ */
/* Pools: treaps ordered by (stream, size, addr)                      */

static inline int
key_compare (TsStreamId   stream,
             guint64      size,
             guint64      addr,
             const Block *b)
{
  if (stream != b->stream)
    return stream < b->stream ? -1 : 1;
  if (size != b->size)
    return size < b->size ? -1 : 1;
  if (addr != b->addr)
    return addr < b->addr ? -1 : 1;
  return 0;
}

static inline gboolean
block_less (const Block *a,
            const Block *b)
{
  return key_compare (a->stream, a->size, a->addr, b) < 0;
}

static guint32
block_priority (guint64 addr)
{
  /* A fixed mix of the address: deterministic, and random enough to keep
   * the treap balanced whatever the allocation pattern. */
  addr ^= addr >> 33;
  addr *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  addr ^= addr >> 33;
  addr *= G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  addr ^= addr >> 33;
  return (guint32) addr;
}

/* Splits t into the nodes less than key (l) and the others (r). */
static void
treap_split (Block       *t,
             const Block *key,
             Block      **l,
             Block      **r)
{
  while (t != NULL)
    {
      if (block_less (t, key))
        {
          *l = t;
          l = &t->right;
          t = t->right;
        }
      else
        {
          *r = t;
          r = &t->left;
          t = t->left;
        }
    }
  *l = NULL;
  *r = NULL;
}

/* Joins a and b, every node of a being less than every node of b. */
static Block *
treap_merge (Block *a,
             Block *b)
{
  Block *root = NULL;
  Block **link = &root;

  while (a != NULL && b != NULL)
    {
      if (a->prio >= b->prio)
        {
          *link = a;
          link = &a->right;
          a = a->right;
        }
      else
        {
          *link = b;
          link = &b->left;
          b = b->left;
        }
    }
  *link = a != NULL ? a : b;
  return root;
}

static void
pool_insert (Pool  *pool,
             Block *block)
{
  Block **link = &pool->root;

  g_assert (block->pool == pool);
  block->prio = block_priority (block->addr);
  while (*link != NULL && (*link)->prio >= block->prio)
    link = block_less (block, *link) ? &(*link)->left : &(*link)->right;
  treap_split (*link, block, &block->left, &block->right);
  *link = block;
  pool->n_blocks++;
}

static void
pool_remove (Pool  *pool,
             Block *block)
{
  Block **link = &pool->root;

  while (*link != block)
    {
      g_assert (*link != NULL);
      link = block_less (block, *link) ? &(*link)->left : &(*link)->right;
    }
  *link = treap_merge (block->left, block->right);
  block->left = block->right = NULL;
  pool->n_blocks--;
}

/* The first block whose key is >= (stream, size, addr). */
static Block *
pool_lower_bound (const Pool *pool,
                  TsStreamId  stream,
                  guint64     size,
                  guint64     addr)
{
  Block *n = pool->root, *found = NULL;

  while (n != NULL)
    {
      if (key_compare (stream, size, addr, n) <= 0)
        {
          found = n;
          n = n->left;
        }
      else
        n = n->right;
    }
  return found;
}

/* The last block whose key is < (stream, size, addr). */
static Block *
pool_before (const Pool *pool,
             TsStreamId  stream,
             guint64     size,
             guint64     addr)
{
  Block *n = pool->root, *found = NULL;

  while (n != NULL)
    {
      if (key_compare (stream, size, addr, n) > 0)
        {
          found = n;
          n = n->right;
        }
      else
        n = n->left;
    }
  return found;
}

static void
collect_in_order (Block     *n,
                  GPtrArray *out)
{
  while (n != NULL)
    {
      collect_in_order (n->left, out);
      g_ptr_array_add (out, n);
      n = n->right;
    }
}

/* The unmapped blocks of a pool, ordered by (stream, addr); few, so a
 * sorted array does. */
static guint
unmapped_lower_bound (const Pool *pool,
                      TsStreamId  stream,
                      guint64     addr)
{
  guint lo = 0, hi = pool->unmapped->len;

  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      const Block *b = g_ptr_array_index (pool->unmapped, mid);

      if (b->stream < stream || (b->stream == stream && b->addr < addr))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static void
unmapped_insert (Pool  *pool,
                 Block *block)
{
  g_assert (block->unmapped && block->pool == pool);
  g_ptr_array_insert (pool->unmapped, unmapped_lower_bound (pool, block->stream, block->addr), block);
}

static void
unmapped_remove (Pool  *pool,
                 Block *block)
{
  guint k = unmapped_lower_bound (pool, block->stream, block->addr);

  g_assert (k < pool->unmapped->len && g_ptr_array_index (pool->unmapped, k) == block);
  g_ptr_array_remove_index (pool->unmapped, k);
}

static void
pool_init (Pool        *pool,
           gboolean     is_small,
           PrivatePool *owner)
{
  pool->is_small = is_small;
  pool->owner = owner;
  pool->unmapped = g_ptr_array_new ();
}

/* ------------------------------------------------------------------ */
/* Small helpers                                                      */

static inline gboolean
block_is_split (const Block *b)
{
  return b->prev != NULL || b->next != NULL;
}

static inline gboolean
block_is_expandable (const Block *b)
{
  return b->segment->expandable;
}

/* Free and unused: neither allocated nor waiting on events. */
static inline gboolean
block_is_free (const Block *b)
{
  return b != NULL && !b->allocated && b->event_count == 0 && b->n_stream_uses == 0;
}

/* pool.insert_into_blocks: the block's age for garbage collection starts. */
static void
pool_insert_free (Pool  *pool,
                  Block *block)
{
  block->gc_count_base = pool->get_free_blocks_call_count;
  pool_insert (pool, block);
}

static inline TsStatType
pool_stat_type (const Pool *pool)
{
  return pool->is_small ? TS_STAT_TYPE_SMALL_POOL : TS_STAT_TYPE_LARGE_POOL;
}

/* PyTorch updates the aggregate and the block's pool for every stat. */
#define STAT_INCREASE(arr, pool, n) \
  G_STMT_START { ts_stat_increase (&(arr)[TS_STAT_TYPE_ALL], (n)); \
                 ts_stat_increase (&(arr)[pool_stat_type (pool)], (n)); } G_STMT_END
#define STAT_DECREASE(arr, pool, n) \
  G_STMT_START { ts_stat_decrease (&(arr)[TS_STAT_TYPE_ALL], (n)); \
                 ts_stat_decrease (&(arr)[pool_stat_type (pool)], (n)); } G_STMT_END

static inline Device *
block_device (TsAllocator *self,
              const Block *b)
{
  return &self->devices[b->segment->device];
}

static Block *
block_new (TsAllocator *self)
{
  Block *b = self->spare_blocks;

  if (b != NULL)
    {
      self->spare_blocks = b->next;
      memset (b, 0, sizeof *b);
    }
  else
    b = g_new0 (Block, 1);
  return b;
}

static void
block_recycle (TsAllocator *self,
               Block       *b)
{
  g_free (b->stream_uses);
  b->stream_uses = NULL;
  b->next = self->spare_blocks;
  self->spare_blocks = b;
}

/* ------------------------------------------------------------------ */
/* Sizes                                                              */

/* The arithmetic is the trace layer's (ts_memory_round_size): the
 * snapshot importer turns a trace's request sizes into block sizes with
 * it too. */
guint64
ts_allocator_round_size (const TsAllocConfig *config,
                         guint64              size)
{
  g_return_val_if_fail (config != NULL, 0);

  return ts_memory_round_size (size, ts_alloc_config_roundup_divisions (config, size));
}



/* Python's repr() of a float, for the fraction ValueError's text. */
static char *
python_float_repr (double v)
{
  char buf[64], digits[32];
  GString *out;
  int precision, exp10, decpt, n = 0;
  const char *p;

  if (isnan (v))
    return g_strdup ("nan");
  if (isinf (v))
    return g_strdup (v < 0 ? "-inf" : "inf");

  /* The shortest %e form that reads back as the same double. */
  for (precision = 0; precision < 17; precision++)
    {
      g_snprintf (buf, sizeof buf, "%.*e", precision, v);
      if (g_ascii_strtod (buf, NULL) == v)
        break;
    }

  out = g_string_new (NULL);
  p = buf;
  if (*p == '-')
    {
      g_string_append_c (out, '-');
      p++;
    }
  for (; *p != 'e'; p++)
    if (*p != '.')
      digits[n++] = *p;
  while (n > 1 && digits[n - 1] == '0')
    n--;
  digits[n] = '\0';
  exp10 = atoi (p + 1);
  decpt = exp10 + 1;

  if (decpt > -4 && decpt <= 16)
    {
      if (decpt <= 0)
        {
          g_string_append (out, "0.");
          for (int k = 0; k < -decpt; k++)
            g_string_append_c (out, '0');
          g_string_append (out, digits);
        }
      else if (decpt >= n)
        {
          g_string_append (out, digits);
          for (int k = n; k < decpt; k++)
            g_string_append_c (out, '0');
          g_string_append (out, ".0");
        }
      else
        {
          g_string_append_len (out, digits, decpt);
          g_string_append_c (out, '.');
          g_string_append (out, digits + decpt);
        }
    }
  else
    {
      g_string_append_c (out, digits[0]);
      if (n > 1)
        {
          g_string_append_c (out, '.');
          g_string_append (out, digits + 1);
        }
      g_string_append_printf (out, "e%c%02d", exp10 < 0 ? '-' : '+', ABS (exp10));
    }

  return g_string_free (out, FALSE);
}

/* ------------------------------------------------------------------ */
/* Trace and recorder                                                 */



/* One allocator action: into the device's history when it is on, and to
 * the recorder when there is one. requested is the unrounded size for
 * alloc/free entries; PyTorch's trace shows that one as the size. */
static void
flush_deferred (TsAllocator *self)
{
  ts_recorder_append_many (self->recorder, TS_RECORD_ALLOC, self->deferred, self->n_deferred);
  self->n_deferred = 0;
}

static void
record_action (TsAllocator       *self,
               guint              device,
               TsAllocAction      action,
               guint64            addr,
               guint64            size,
               guint64            requested,
               TsStreamId         stream,
               const Pool        *pool,
               const TsSourceLoc *loc)
{
  gboolean to_history = self->record_history && !(self->skip_actions & (1u << action)) &&
                        (action <= TS_ALLOC_ACTION_SNAPSHOT ||
                         action == TS_ALLOC_ACTION_SEGMENT_MAP ||
                         action == TS_ALLOC_ACTION_SEGMENT_UNMAP);
  TsTime now;

  if (!to_history && self->recorder == NULL)
    return;

  now = self->backend.now ? self->backend.now (self->backend_data) : 0;

  if (to_history)
    {
      Device *dev = &self->devices[device];
      TsAllocTraceEntry e = { 0 };

      e.time = now;
      e.addr = addr;
      e.size = (action == TS_ALLOC_ACTION_ALLOC ||
                action == TS_ALLOC_ACTION_FREE_REQUESTED ||
                action == TS_ALLOC_ACTION_FREE_COMPLETED) ? requested : size;
      e.stream = stream;
      e.action = action;
      if (loc)
        e.loc = *loc;

      if (dev->trace->len < self->max_entries)
        g_array_append_val (dev->trace, e);
      else
        {
          g_array_index (dev->trace, TsAllocTraceEntry, dev->trace_next) = e;
          dev->trace_next = (dev->trace_next + 1) % self->max_entries;
        }
    }

  if (self->recorder != NULL)
    {
      TsAllocRecord r = { 0 };

      r.time = now;
      r.addr = addr;
      r.size = size;
      r.requested = requested;
      r.correlation = self->backend.correlation ? self->backend.correlation (self->backend_data) : 0;
      r.device = device;
      r.stream = stream;
      r.action = action;
      /* The pool (NULL: none, as for the actions that name no block)
       * and, for a private pool's, its MempoolId_t: PyTorch tags each
       * segment with the id of the pool it was made for
       * (Segment::owner_private_pool, reported as segment_pool_id). */
      r.pool = pool != NULL && pool->is_small ? 1 : 0;
      if (pool != NULL && pool->owner != NULL)
        ts_alloc_record_set_pool_id (&r, pool->owner->id);
      if (loc)
        r.loc = *loc;
      if (self->defer_actions)
        {
          if (self->n_deferred == G_N_ELEMENTS (self->deferred))
            flush_deferred (self);
          self->deferred[self->n_deferred++] = r;
        }
      else
        ts_recorder_append (self->recorder, TS_RECORD_ALLOC, &r);
    }
}

/* Counter records for allocated and reserved bytes, when changed. Active
 * bytes are not written: no view reads them, the alloc records give them
 * (a block is active from its alloc to its free_completed), and two
 * records fewer for each op were an eighth of a small op's trace. */
static void
emit_counters (TsAllocator *self,
               guint        device)
{
  static const TsCounterKind kinds[2] = {
    TS_COUNTER_ALLOCATED_BYTES, TS_COUNTER_RESERVED_BYTES,
  };
  Device *dev = &self->devices[device];
  gint64 values[2];
  TsCounterRecord recs[2];
  guint n_recs = 0;
  TsTime now = 0;
  gboolean have_now = FALSE;
  guint k;

  if (self->recorder == NULL)
    return;

  values[0] = dev->stats.allocated_bytes[TS_STAT_TYPE_ALL].current;
  values[1] = dev->stats.reserved_bytes[TS_STAT_TYPE_ALL].current;

  for (k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      TsCounterRecord *r = &recs[n_recs];

      if (values[k] == dev->last_counter[k])
        continue;
      if (!have_now)
        {
          now = self->backend.now ? self->backend.now (self->backend_data) : 0;
          have_now = TRUE;
        }
      dev->last_counter[k] = values[k];
      memset (r, 0, sizeof *r);
      r->time = now;
      r->value = values[k];
      r->device = device;
      r->counter = kinds[k];
      n_recs++;
    }
  /* the deferred actions and the changed counters under one lock */
  if (self->n_deferred > 0)
    {
      TsRecordKind rec_kinds[G_N_ELEMENTS (self->deferred) + G_N_ELEMENTS (kinds)];
      const void *records[G_N_ELEMENTS (self->deferred) + G_N_ELEMENTS (kinds)];
      guint n = 0;

      for (k = 0; k < self->n_deferred; k++, n++)
        {
          rec_kinds[n] = TS_RECORD_ALLOC;
          records[n] = &self->deferred[k];
        }
      for (k = 0; k < n_recs; k++, n++)
        {
          rec_kinds[n] = TS_RECORD_COUNTER;
          records[n] = &recs[k];
        }
      ts_recorder_append_records (self->recorder, n, rec_kinds, records);
      self->n_deferred = 0;
    }
  else if (n_recs > 0)
    ts_recorder_append_many (self->recorder, TS_RECORD_COUNTER, recs, n_recs);
}

/* ------------------------------------------------------------------ */
/* Segments                                                           */

static void
segment_remove (Device  *dev,
                Segment *seg)
{
  Segment *last = g_ptr_array_index (dev->segments, dev->segments->len - 1);

  g_assert (g_ptr_array_index (dev->segments, seg->index) == seg);
  g_ptr_array_index (dev->segments, seg->index) = last;
  last->index = seg->index;
  g_ptr_array_set_size (dev->segments, dev->segments->len - 1);
  g_free (seg);
}

/* cudaFree of an unsplit free block: PyTorch's release_block. */
static void
release_block (TsAllocator *self,
               Block       *block)
{
  Segment *seg = block->segment;
  Device *dev = &self->devices[seg->device];
  Pool *pool = block->pool;

  g_assert (!block_is_split (block) && !block->allocated && !block_is_expandable (block));

  if (pool->owner != NULL && pool->owner->cuda_malloc_count > 0)
    pool->owner->cuda_malloc_count--;
  dev->stats.num_device_free++;
  record_action (self, seg->device, TS_ALLOC_ACTION_SEGMENT_FREE, block->addr, block->size, 0,
                 block->stream, pool, NULL);
  self->backend.segment_free (self->backend_data, seg->device, block->addr, block->size);
  dev->total_allocated_memory -= block->size;

  STAT_DECREASE (dev->stats.segment, pool, 1);
  STAT_DECREASE (dev->stats.reserved_bytes, pool, block->size);
  if (block->size >= self->config.max_split_size)
    ts_stat_decrease (&dev->stats.oversize_segments, 1);

  pool_remove (pool, block);
  segment_remove (dev, seg);
  block_recycle (self, block);
}

static void unmap_block (TsAllocator *self, Block *block);
static void release_expandable_segment (TsAllocator *self, Block *block);

/* Frees every unsplit cached block of a pool, in pool order; the free
 * blocks of expandable segments give back their whole pages, and a
 * segment left with no page mapped goes (release_blocks upstream). */
static void
release_blocks (TsAllocator *self,
                Pool        *pool)
{
  g_autoptr(GPtrArray) blocks = g_ptr_array_sized_new (pool->n_blocks);
  g_autoptr(GPtrArray) to_unmap = g_ptr_array_new ();
  guint k;

  collect_in_order (pool->root, blocks);
  for (k = 0; k < blocks->len; k++)
    {
      Block *b = g_ptr_array_index (blocks, k);

      if (block_is_expandable (b))
        g_ptr_array_add (to_unmap, b);
      else if (!block_is_split (b))
        release_block (self, b);
    }
  for (k = 0; k < to_unmap->len; k++)
    {
      Block *b = g_ptr_array_index (to_unmap, k);

      unmap_block (self, b);
      if (!block_is_split (b))
        release_expandable_segment (self, b);
    }
}

/* ------------------------------------------------------------------ */
/* free_block and events                                              */

/* Merges src into dst when src is free; returns the bytes taken over. */
static guint64
try_merge_blocks (TsAllocator *self,
                  Block       *dst,
                  Block       *src)
{
  guint64 subsumed;

  if (!block_is_free (src) || src->unmapped != dst->unmapped)
    return 0;

  g_assert (block_is_split (dst) && block_is_split (src));

  if (dst->prev == src)
    {
      dst->addr = src->addr;
      dst->prev = src->prev;
      if (dst->prev)
        dst->prev->next = dst;
      else
        dst->segment->head = dst;
    }
  else
    {
      dst->next = src->next;
      if (dst->next)
        dst->next->prev = dst;
    }

  subsumed = src->size;
  dst->size += subsumed;
  if (src->unmapped)
    unmapped_remove (src->pool, src);
  else
    pool_remove (src->pool, src);
  block_recycle (self, src);
  return subsumed;
}

static void
free_block (TsAllocator *self,
            Block       *block)
{
  Device *dev = block_device (self, block);
  Pool *pool = block->pool;
  guint64 original_size = block->size;
  guint64 requested_size = block->requested_size;
  gint64 net_blocks = 0, net_size = 0;
  Block *candidates[2];
  guint k;

  g_assert (!block->allocated && block->event_count == 0 && block->n_stream_uses == 0);

  record_action (self, block->segment->device, TS_ALLOC_ACTION_FREE_COMPLETED, block->addr,
                 block->size, block->requested_size, block->stream, pool, &block->loc);
  block->loc = TS_SOURCE_LOC_NONE;

  candidates[0] = block->prev;
  candidates[1] = block->next;
  for (k = 0; k < 2; k++)
    {
      guint64 subsumed = try_merge_blocks (self, block, candidates[k]);

      if (subsumed > 0)
        {
          net_blocks -= 1;
          net_size -= (gint64) subsumed;
        }
    }

  pool_insert_free (pool, block);

  if (block_is_split (block))
    {
      net_blocks += 1;
      net_size += (gint64) block->size;
    }
  /* PyTorch leaves expandable segments out of inactive_split: their free
   * pages can always be given back. */
  if (block_is_expandable (block))
    net_blocks = net_size = 0;

  /* PyTorch applies the net change once, which is what the allocated and
   * freed columns of inactive_split show. */
  if (net_blocks > 0)
    STAT_INCREASE (dev->stats.inactive_split, pool, net_blocks);
  else if (net_blocks < 0)
    STAT_DECREASE (dev->stats.inactive_split, pool, -net_blocks);
  if (net_size > 0)
    STAT_INCREASE (dev->stats.inactive_split_bytes, pool, net_size);
  else if (net_size < 0)
    STAT_DECREASE (dev->stats.inactive_split_bytes, pool, -net_size);

  STAT_DECREASE (dev->stats.active, pool, 1);
  STAT_DECREASE (dev->stats.active_bytes, pool, original_size);
  STAT_DECREASE (dev->stats.requested_bytes, pool, requested_size);
}

static StreamEvents *
stream_events (Device     *dev,
               TsStreamId  stream)
{
  StreamEvents se = { 0 };
  guint lo = 0, hi = dev->streams->len;

  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      TsStreamId s = g_array_index (dev->streams, StreamEvents, mid).stream;

      if (s == stream)
        return &g_array_index (dev->streams, StreamEvents, mid);
      if (s < stream)
        lo = mid + 1;
      else
        hi = mid;
    }

  se.stream = stream;
  se.queue = g_array_new (FALSE, FALSE, sizeof (PendingEvent));
  g_array_insert_val (dev->streams, lo, se);
  return &g_array_index (dev->streams, StreamEvents, lo);
}

/* free() of a block that other streams used: one event per stream, and the
 * block waits (active_pending_free) until all of them have completed. */
static void
insert_events (TsAllocator *self,
               Block       *block)
{
  Device *dev = block_device (self, block);
  TsStreamId *streams = block->stream_uses;
  guint n = block->n_stream_uses, k;

  block->stream_uses = NULL;
  block->n_stream_uses = 0;

  for (k = 0; k < n; k++)
    {
      PendingEvent pe;

      pe.event = self->backend.event_record (self->backend_data, streams[k]);
      pe.block = block;
      block->event_count++;
      g_array_append_val (stream_events (dev, streams[k])->queue, pe);
      dev->n_pending++;
    }

  g_free (streams);
}

static void
event_done (TsAllocator  *self,
            Device       *dev,
            PendingEvent *pe)
{
  self->backend.event_release (self->backend_data, pe->event);
  dev->n_pending--;
  pe->block->event_count--;
  if (pe->block->event_count == 0)
    free_block (self, pe->block);
}

static void
compact_stream_events (Device *dev)
{
  guint k = 0;

  while (k < dev->streams->len)
    {
      StreamEvents *se = &g_array_index (dev->streams, StreamEvents, k);

      if (se->head == se->queue->len)
        {
          g_array_unref (se->queue);
          g_array_remove_index (dev->streams, k);
        }
      else
        {
          if (se->head > 0)
            {
              g_array_remove_range (se->queue, 0, se->head);
              se->head = 0;
            }
          k++;
        }
    }
}

/* The events of blocks freed while a capture was under way
 * (insert_events_deferred_until_no_capture). */
static void
insert_deferred_events (TsAllocator *self,
                        Device      *dev)
{
  guint k;

  for (k = 0; G_UNLIKELY (k < dev->deferred_frees->len); k++)
    insert_events (self, g_ptr_array_index (dev->deferred_frees, k));
  g_ptr_array_set_size (dev->deferred_frees, 0);
}

/* Start of every malloc: completed events free their blocks, per stream
 * in order, stopping at a stream's first event that is not done. */
static void
process_events (TsAllocator *self,
                Device      *dev)
{
  guint k;

  insert_deferred_events (self, dev);
  if (G_LIKELY (dev->n_pending == 0))
    return;

  for (k = 0; k < dev->streams->len; k++)
    {
      StreamEvents *se = &g_array_index (dev->streams, StreamEvents, k);

      while (se->head < se->queue->len)
        {
          PendingEvent pe = g_array_index (se->queue, PendingEvent, se->head);

          if (!self->backend.event_query (self->backend_data, pe.event))
            break;
          se->head++;
          event_done (self, dev, &pe);
          /* free_block never adds streams, so se stays valid. */
          se = &g_array_index (dev->streams, StreamEvents, k);
        }
    }
  compact_stream_events (dev);
}

static void
synchronize_and_free_events (TsAllocator *self,
                             Device      *dev)
{
  guint k;

  dev->stats.num_sync_all_streams++;
  record_action (self, (guint) (dev - self->devices), TS_ALLOC_ACTION_SYNC_ALL_STREAMS, 0, 0, 0,
                 TS_STREAM_NONE, NULL, NULL);
  insert_deferred_events (self, dev);

  for (k = 0; k < dev->streams->len; k++)
    {
      StreamEvents *se = &g_array_index (dev->streams, StreamEvents, k);

      while (se->head < se->queue->len)
        {
          PendingEvent pe = g_array_index (se->queue, PendingEvent, se->head);

          se->head++;
          self->backend.event_synchronize (self->backend_data, pe.event);
          event_done (self, dev, &pe);
          se = &g_array_index (dev->streams, StreamEvents, k);
        }
    }
  compact_stream_events (dev);
  g_assert (dev->n_pending == 0);
}

static void
private_pool_free (PrivatePool *pp)
{
  g_ptr_array_unref (pp->small_pool.unmapped);
  g_ptr_array_unref (pp->large_pool.unmapped);
  g_free (pp);
}

/* The released private pools give back their unused segments; a pool
 * with none left is forgotten (release_cached_blocks upstream). */
static void
release_freeable_pools (TsAllocator *self,
                        Device      *dev)
{
  guint k = 0;

  while (k < dev->private_pools->len)
    {
      PrivatePool *pp = g_ptr_array_index (dev->private_pools, k);

      if (!pp->freeable)
        {
          k++;
          continue;
        }
      g_assert (pp->use_count == 0);
      release_blocks (self, &pp->small_pool);
      release_blocks (self, &pp->large_pool);
      if (pp->cuda_malloc_count == 0)
        {
          g_ptr_array_remove_index (dev->private_pools, k);
          private_pool_free (pp);
        }
      else
        k++;
    }
}

static void
release_cached_blocks (TsAllocator *self,
                       Device      *dev)
{
  synchronize_and_free_events (self, dev);
  release_blocks (self, &dev->large_pool);
  release_blocks (self, &dev->small_pool);
  release_freeable_pools (self, dev);
}

/* ------------------------------------------------------------------ */
/* Expandable segments (PyTorch >= 2.1)                               */

static guint64
reserved_bytes_of (const Segment *seg)
{
  const Block *b;
  guint64 n = 0;

  if (!seg->expandable)
    return seg->size;
  for (b = seg->head; b != NULL; b = b->next)
    if (!b->unmapped)
      n += b->size;
  return n;
}

/* A new block of seg at [addr, addr + size), linked between prev and next
 * (Block::splice). */
static Block *
block_splice_new (TsAllocator *self,
                  const Block *like,
                  guint64      addr,
                  guint64      size,
                  Block       *prev,
                  Block       *next)
{
  Block *b = block_new (self);

  b->addr = addr;
  b->size = size;
  b->stream = like->stream;
  b->pool = like->pool;
  b->segment = like->segment;
  b->prev = prev;
  b->next = next;
  if (prev)
    prev->next = b;
  else
    b->segment->head = b;
  if (next)
    next->prev = b;
  return b;
}

/* Gives back the whole pages inside a free block (ExpandableSegment::unmap
 * and unmap_block upstream): the pages become an unmapped block, the
 * partial pages at either end stay free blocks. */
static void
unmap_block (TsAllocator *self,
             Block       *block)
{
  Segment *seg = block->segment;
  Device *dev = &self->devices[seg->device];
  Pool *pool = block->pool;
  guint64 page = seg->page_size;
  guint64 begin = (block->addr - seg->addr + page - 1) / page;
  guint64 end = (block->addr + block->size - seg->addr) / page;
  guint64 ptr, size, before, after;

  if (begin >= end)
    return;
  ptr = seg->addr + begin * page;
  size = (end - begin) * page;
  self->backend.va_unmap (self->backend_data, seg->device, seg->stream, ptr, size);

  pool_remove (pool, block);
  before = ptr - block->addr;
  after = block->size - before - size;
  if (before > 0)
    pool_insert_free (pool, block_splice_new (self, block, block->addr, before, block->prev, block));
  if (after > 0)
    pool_insert_free (pool, block_splice_new (self, block, ptr + size, after, block, block->next));

  block->addr = ptr;
  block->size = size;
  block->unmapped = TRUE;
  try_merge_blocks (self, block, block->prev);
  try_merge_blocks (self, block, block->next);
  unmapped_insert (pool, block);

  dev->total_allocated_memory -= size;
  STAT_DECREASE (dev->stats.reserved_bytes, pool, size);
  if (pool->owner != NULL && pool->owner->cuda_malloc_count > 0)
    pool->owner->cuda_malloc_count--;
  dev->stats.num_device_free++;
  record_action (self, seg->device, TS_ALLOC_ACTION_SEGMENT_UNMAP, ptr, size, 0, block->stream,
                 pool, NULL);
}

/* An expandable segment with no page mapped goes (its one block spans it). */
static void
release_expandable_segment (TsAllocator *self,
                            Block       *block)
{
  Segment *seg = block->segment;

  g_assert (block->unmapped && block->addr == seg->addr && block->size == seg->size);
  unmapped_remove (block->pool, block);
  self->backend.va_release (self->backend_data, seg->device, seg->addr, seg->size);
  segment_remove (&self->devices[seg->device], seg);
  block_recycle (self, block);
}

/* Maps the pages under the first size bytes of an unmapped block and
 * merges them with the free neighbours (map_block upstream). */
static gboolean
map_block (TsAllocator       *self,
           Block             *to_map,
           guint64            size,
           const TsSourceLoc *loc)
{
  Segment *seg = to_map->segment;
  Device *dev = &self->devices[seg->device];
  Pool *pool = to_map->pool;
  guint64 page = seg->page_size;
  guint64 begin = (to_map->addr - seg->addr) / page;
  guint64 end = (to_map->addr + size - seg->addr + page - 1) / page;
  guint64 ptr = to_map->addr, mapped = (end - begin) * page;

  g_assert (to_map->unmapped && size <= to_map->size && seg->addr + begin * page == ptr);
  if (mapped == 0)
    return TRUE;
  if (!self->backend.va_map (self->backend_data, seg->device, ptr, mapped))
    return FALSE;

  unmapped_remove (pool, to_map);
  to_map->unmapped = FALSE;
  if (mapped < to_map->size)
    {
      Block *remaining = block_splice_new (self, to_map, ptr + mapped, to_map->size - mapped,
                                           to_map, to_map->next);

      remaining->unmapped = TRUE;
      unmapped_insert (pool, remaining);
      to_map->size = mapped;
    }
  try_merge_blocks (self, to_map, to_map->prev);
  try_merge_blocks (self, to_map, to_map->next);
  pool_insert_free (pool, to_map);

  dev->total_allocated_memory += mapped;
  STAT_INCREASE (dev->stats.reserved_bytes, pool, mapped);
  dev->stats.num_device_alloc++;
  record_action (self, seg->device, TS_ALLOC_ACTION_SEGMENT_MAP, ptr, mapped, 0, to_map->stream,
                 pool, loc);
  return TRUE;
}

/* Free and unmapped blocks from b on, in address order, add up to size. */
static gboolean
has_available_address_space (const Block *b,
                             guint64      size)
{
  guint64 bytes = 0;

  while (bytes < size && block_is_free (b))
    {
      bytes += b->size;
      b = b->next;
    }
  return bytes >= size;
}

/* The lowest-addressed room of this stream's expandable segments in the
 * pool (an unmapped block, with the free block before it), or a new
 * segment reserving 1 1/8 of the device's memory (find_expandable_block). */
static Block *
find_expandable_block (TsAllocator *self,
                       guint        device,
                       TsStreamId   stream,
                       Pool        *pool,
                       guint64      size,
                       const TsSourceLoc *loc)
{
  Device *dev = &self->devices[device];
  guint64 free_bytes = 0, total = 0, page, va_size, addr = 0;
  Segment *seg;
  Block *b;
  guint k;

  for (k = unmapped_lower_bound (pool, stream, 0); k < pool->unmapped->len; k++)
    {
      Block *c = g_ptr_array_index (pool->unmapped, k);

      if (c->stream != stream)
        break;
      if (block_is_free (c->prev))
        c = c->prev;
      if (has_available_address_space (c, size))
        return c;
    }

  page = TS_ALLOCATOR_EXPANDABLE_PAGE (pool->is_small);
  self->backend.mem_get_info (self->backend_data, device, &free_bytes, &total);
  va_size = page * ((total + total / 8 + page - 1) / page);
  if (!self->backend.va_reserve (self->backend_data, device, va_size, &addr))
    return NULL;

  seg = g_new0 (Segment, 1);
  seg->addr = addr;
  seg->size = va_size;
  seg->device = device;
  seg->stream = stream;
  seg->index = dev->segments->len;
  seg->expandable = TRUE;
  seg->page_size = page;
  if (loc)
    seg->loc = *loc;
  g_ptr_array_add (dev->segments, seg);

  b = block_new (self);
  b->addr = addr;
  b->size = va_size;
  b->stream = stream;
  b->pool = pool;
  b->segment = seg;
  b->unmapped = TRUE;
  seg->head = b;
  unmapped_insert (pool, b);
  return b;
}

/* alloc_block with expandable segments: map pages until a free block of
 * size bytes exists, and take it out of the pool. */
static Block *
try_allocate_expandable_block (TsAllocator       *self,
                               guint              device,
                               TsStreamId         stream,
                               Pool              *pool,
                               guint64            size,
                               const TsSourceLoc *loc)
{
  Block *candidate = find_expandable_block (self, device, stream, pool, size, loc);

  if (candidate == NULL)
    return NULL;
  if (candidate->unmapped && !map_block (self, candidate, MIN (candidate->size, size), loc))
    return NULL;
  g_assert (!candidate->unmapped);

  while (candidate->size < size)
    {
      Block *next = candidate->next;

      if (!map_block (self, next, MIN (size - candidate->size, next->size), loc))
        return NULL;
      candidate = next;
    }
  pool_remove (pool, candidate);
  return candidate;
}

/* ------------------------------------------------------------------ */
/* malloc                                                             */

typedef struct
{
  guint       device;
  Device     *dev;
  guint64     size;         /* rounded */
  guint64     alloc_size;   /* segment size if a cudaMalloc is needed */
  TsStreamId  stream;
  Pool       *pool;
  Block      *block;
  const TsSourceLoc *loc;
} AllocParams;

static guint64
expandable_size (const Block *b)
{
  return b->size + (b->next != NULL && b->next->unmapped ? b->next->size : 0);
}

/* The pool a malloc of size bytes on stream draws from: the private pool
 * of the first active one whose filter takes the stream, else the
 * device's own. */
static Pool *
get_pool (Device     *dev,
          guint64     size,
          TsStreamId  stream)
{
  guint k, j;

  for (k = 0; G_UNLIKELY (k < dev->captures->len); k++)
    {
      const Capture *c = &g_array_index (dev->captures, Capture, k);

      if (c->filter != NULL && !c->filter (stream, c->user_data))
        continue;
      for (j = 0; j < dev->private_pools->len; j++)
        {
          PrivatePool *pp = g_ptr_array_index (dev->private_pools, j);

          if (TS_MEM_POOL_ID_EQUAL (pp->id, c->id))
            return size <= kSmallSize ? &pp->small_pool : &pp->large_pool;
        }
      g_assert_not_reached ();
    }
  return size <= kSmallSize ? &dev->small_pool : &dev->large_pool;
}

static gboolean
get_free_block (TsAllocator *self,
                AllocParams *p)
{
  Pool *pool = p->pool;
  guint64 max_split = self->config.max_split_size;
  Block *b;

  if (G_UNLIKELY (p->dev->set_fraction && self->config.garbage_collection_threshold > 0))
    pool->get_free_blocks_call_count++;

  b = pool_lower_bound (pool, p->stream, p->size, 0);
  if (b == NULL || b->stream != p->stream)
    return FALSE;

  if (block_is_expandable (b))
    {
      if (self->config.expandable_segments)
        {
          /* Best fit counts an expandable block at the size it can grow
           * to (with the unmapped block after it): walk on while the next
           * candidate would grow less. */
          Block *next = pool_lower_bound (pool, b->stream, b->size, b->addr + 1);

          while (block_is_expandable (b) && next != NULL && next->stream == p->stream &&
                 expandable_size (next) < expandable_size (b))
            {
              b = next;
              next = pool_lower_bound (pool, b->stream, b->size, b->addr + 1);
            }
        }
      else
        {
          /* Expandable segments were turned off since: only fixed ones. */
          do
            b = pool_lower_bound (pool, b->stream, b->size, b->addr + 1);
          while (b != NULL && block_is_expandable (b) && b->stream == p->stream);
          if (b == NULL || b->stream != p->stream)
            return FALSE;
        }
    }

  /* No oversize block for a small request, and no much larger one for a
   * large request. */
  if (p->size < max_split && b->size >= max_split)
    return FALSE;
  if (p->size >= max_split && b->size >= p->size + self->config.max_non_split_rounding_size)
    return FALSE;

  pool_remove (pool, b);
  p->block = b;
  return TRUE;
}

static gboolean
trigger_free_memory_callbacks (TsAllocator *self)
{
  g_autoptr(GArray) copy = NULL;
  gboolean freed = FALSE;
  guint k;

  if (self->callbacks->len == 0)
    return FALSE;

  copy = g_array_copy (self->callbacks);
  g_mutex_unlock (&self->lock);
  for (k = 0; k < copy->len; k++)
    {
      Callback *cb = &g_array_index (copy, Callback, k);

      if (!cb->is_observer)
        freed |= ((TsAllocatorFreeMemoryFunc) cb->func) (cb->user_data);
    }
  g_mutex_lock (&self->lock);
  return freed;
}

static void
garbage_collect_cached_blocks (TsAllocator *self,
                               Device      *dev)
{
  Pool *pool = &dev->large_pool;
  guint64 gc_threshold = (guint64) (self->config.garbage_collection_threshold *
                                    (double) dev->allowed_memory_maximum);
  guint64 target_size, gc_reclaimed = 0, total_age = 0;
  guint freeable = 0, k;
  gboolean block_freed = TRUE;

  if (dev->total_allocated_memory <= gc_threshold)
    return;
  target_size = dev->total_allocated_memory - gc_threshold;

  {
    g_autoptr(GPtrArray) blocks = g_ptr_array_new ();

    collect_in_order (pool->root, blocks);
    for (k = 0; k < blocks->len; k++)
      {
        Block *b = g_ptr_array_index (blocks, k);

        if (!block_is_split (b))
          {
            total_age += pool->get_free_blocks_call_count - b->gc_count_base;
            freeable++;
          }
      }
  }
  if (freeable == 0)
    return;

  /* Free the blocks at least as old as the mean age, until enough is
   * reclaimed or nothing more goes. */
  while (gc_reclaimed < target_size && block_freed && freeable > 0)
    {
      double age_threshold = (double) total_age / freeable;
      g_autoptr(GPtrArray) blocks = g_ptr_array_new ();

      block_freed = FALSE;
      collect_in_order (pool->root, blocks);
      for (k = 0; k < blocks->len; k++)
        {
          Block *b = g_ptr_array_index (blocks, k);
          guint64 age = pool->get_free_blocks_call_count - b->gc_count_base;

          if (!block_is_split (b) && !block_is_expandable (b) && (double) age >= age_threshold)
            {
              block_freed = TRUE;
              gc_reclaimed += b->size;
              total_age -= age;
              freeable--;
              release_block (self, b);
            }
        }
    }
}

static gboolean
alloc_block (TsAllocator *self,
             AllocParams *p,
             gboolean     is_retry)
{
  Device *dev = p->dev;
  guint64 size = p->alloc_size, addr = 0;
  Segment *seg;
  Block *b;

  if (is_retry)
    {
      dev->stats.num_alloc_retries++;
      record_action (self, p->device, TS_ALLOC_ACTION_ALLOC_RETRY, 0, p->alloc_size, 0, p->stream,
                     p->pool, p->loc);
    }

  if (dev->set_fraction && dev->total_allocated_memory + size > dev->allowed_memory_maximum)
    return FALSE;
  if (self->config.expandable_segments)
    {
      /* Pages for the rounded size, not a whole segment. */
      p->block = try_allocate_expandable_block (self, p->device, p->stream, p->pool, p->size, p->loc);
      if (p->block != NULL && p->pool->owner != NULL)
        p->pool->owner->cuda_malloc_count++;
      return p->block != NULL;
    }
  if (!self->backend.segment_malloc (self->backend_data, p->device, size, &addr))
    return FALSE;
  if (p->pool->owner != NULL)
    p->pool->owner->cuda_malloc_count++;
  g_assert (addr != 0);

  dev->total_allocated_memory += size;

  seg = g_new0 (Segment, 1);
  seg->addr = addr;
  seg->size = size;
  seg->device = p->device;
  seg->stream = p->stream;
  seg->index = dev->segments->len;
  if (p->loc)
    seg->loc = *p->loc;
  g_ptr_array_add (dev->segments, seg);

  b = block_new (self);
  b->addr = addr;
  b->size = size;
  b->stream = p->stream;
  b->pool = p->pool;
  b->segment = seg;
  seg->head = b;
  p->block = b;

  STAT_INCREASE (dev->stats.segment, p->pool, 1);
  STAT_INCREASE (dev->stats.reserved_bytes, p->pool, size);
  if (size >= self->config.max_split_size)
    ts_stat_increase (&dev->stats.oversize_segments, 1);
  dev->stats.num_device_alloc++;

  record_action (self, p->device, TS_ALLOC_ACTION_SEGMENT_ALLOC, addr, size, 0, p->stream,
                 p->pool, p->loc);
  return TRUE;
}

/* With max_split_size set: free one cached oversize block big enough, or
 * else the largest ones of this stream until enough is freed. */
static gboolean
release_available_cached_blocks (TsAllocator *self,
                                 AllocParams *p)
{
  guint64 max_split = self->config.max_split_size;
  guint64 key_size, released = 0;
  Pool *pool = p->pool;
  Block *b;

  if (max_split == TS_ALLOC_CONFIG_MAX_SPLIT_UNSET)
    return FALSE;

  key_size = MAX (p->size, max_split);
  b = pool_lower_bound (pool, p->stream, key_size, 0);
  if (b != NULL && b->stream == p->stream && !block_is_expandable (b) && !block_is_split (b))
    {
      release_block (self, b);
      return TRUE;
    }

  b = pool_before (pool, p->stream, key_size, 0);
  while (b != NULL && released < key_size && b->size >= max_split && b->stream == p->stream)
    {
      Block *before = pool_before (pool, b->stream, b->size, b->addr);

      /* PyTorch would cudaFree a split block here (a corner it never
       * reaches in practice); we skip it to keep the segment intact. */
      if (!block_is_split (b) && !block_is_expandable (b))
        {
          released += b->size;
          release_block (self, b);
        }
      b = before;
    }
  return released >= key_size;
}

static gboolean
should_split (TsAllocator *self,
              const Block *block,
              guint64      size)
{
  guint64 remaining = block->size - size;

  if (block->pool->is_small || self->config.expandable_segments)
    return remaining >= kMinBlockSize;
  return size < self->config.max_split_size && remaining > kSmallSize;
}

static Block *
alloc_found_block (TsAllocator *self,
                   AllocParams *p,
                   guint64      orig_size)
{
  Device *dev = p->dev;
  Pool *pool = p->pool;
  Block *block = p->block;
  gboolean already_split = block_is_split (block);

  if (should_split (self, block, p->size))
    {
      Block *remaining = block;

      block = block_new (self);
      block->addr = remaining->addr;
      block->size = p->size;
      block->stream = p->stream;
      block->pool = pool;
      block->segment = remaining->segment;
      block->prev = remaining->prev;
      if (block->prev)
        block->prev->next = block;
      else
        block->segment->head = block;
      block->next = remaining;

      remaining->prev = block;
      remaining->addr += p->size;
      remaining->size -= p->size;
      pool_insert_free (pool, remaining);

      if (block_is_expandable (block))
        ;  /* no inactive_split accounting for expandable segments */
      else if (already_split)
        {
          /* An inactive split block shrinks by size bytes. */
          STAT_DECREASE (dev->stats.inactive_split_bytes, pool, block->size);
        }
      else
        {
          STAT_INCREASE (dev->stats.inactive_split_bytes, pool, remaining->size);
          STAT_INCREASE (dev->stats.inactive_split, pool, 1);
        }
    }
  else if (already_split && !block_is_expandable (block))
    {
      STAT_DECREASE (dev->stats.inactive_split_bytes, pool, block->size);
      STAT_DECREASE (dev->stats.inactive_split, pool, 1);
    }

  block->allocated = TRUE;
  block->requested_size = orig_size;
  block->loc = p->loc ? *p->loc : TS_SOURCE_LOC_NONE;

  record_action (self, p->device, TS_ALLOC_ACTION_ALLOC, block->addr, block->size, orig_size,
                 block->stream, pool, p->loc);

  map_insert (&self->allocated, block);

  STAT_INCREASE (dev->stats.allocation, pool, 1);
  STAT_INCREASE (dev->stats.allocated_bytes, pool, block->size);
  STAT_INCREASE (dev->stats.active, pool, 1);
  STAT_INCREASE (dev->stats.active_bytes, pool, block->size);
  STAT_INCREASE (dev->stats.requested_bytes, pool, orig_size);
  if (block->size >= self->config.max_split_size)
    ts_stat_increase (&dev->stats.oversize_allocations, 1);

  return block;
}

/* Out of memory: trace, count, observers (unlocked), then the error. */
static void
report_oom (TsAllocator *self,
            AllocParams *p,
            GError     **error)
{
  Device *dev = p->dev;
  guint64 device_free = 0, device_total = 0;
  gint64 allocated, reserved;
  g_autoptr(GArray) observers = NULL;
  g_autofree char *s_alloc = NULL, *s_total = NULL, *s_free = NULL;
  g_autofree char *s_allowed = NULL, *s_allocated = NULL, *s_unallocated = NULL;
  gboolean set_fraction = dev->set_fraction;
  guint64 allowed = dev->allowed_memory_maximum;
  guint k;

  self->backend.mem_get_info (self->backend_data, p->device, &device_free, &device_total);

  record_action (self, p->device, TS_ALLOC_ACTION_OOM, device_free, p->size, device_total,
                 p->stream, p->pool, p->loc);
  dev->stats.num_ooms++;
  allocated = dev->stats.allocated_bytes[TS_STAT_TYPE_ALL].current;
  reserved = dev->stats.reserved_bytes[TS_STAT_TYPE_ALL].current;
  emit_counters (self, p->device);

  observers = g_array_copy (self->callbacks);
  g_mutex_unlock (&self->lock);
  for (k = 0; k < observers->len; k++)
    {
      Callback *cb = &g_array_index (observers, Callback, k);

      if (cb->is_observer)
        ((TsAllocatorOomObserver) cb->func) (p->device, p->alloc_size,
                                             set_fraction ? allowed : device_total,
                                             device_free, cb->user_data);
    }
  g_mutex_lock (&self->lock);

  s_alloc = ts_memory_format_size (p->alloc_size);
  s_total = ts_memory_format_size (device_total);
  s_free = ts_memory_format_size (device_free);
  s_allowed = set_fraction ? ts_memory_format_size (allowed) : NULL;
  s_allocated = ts_memory_format_size (allocated);
  s_unallocated = ts_memory_format_size (reserved - allocated);

  /* There is no NVML in the simulation, so the per-process part is empty,
   * as it is in PyTorch when NVML is missing. */
  g_set_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_OUT_OF_MEMORY,
               "CUDA out of memory. Tried to allocate %s. GPU %u has a total capacity of %s "
               "of which %s is free. %s%sOf the allocated memory %s is allocated by PyTorch, "
               "and %s is reserved by PyTorch but unallocated. If reserved but unallocated "
               "memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
               "to avoid fragmentation.  See documentation for Memory Management  "
               "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
               s_alloc, p->device, s_total, s_free,
               s_allowed ? s_allowed : "", s_allowed ? " allowed; " : "",
               s_allocated, s_unallocated);
}

static gboolean
malloc_uncached (TsAllocator *self,
                 guint        device,
                 guint64      size,
                 TsStreamId   stream,
                 const TsSourceLoc *loc,
                 guint64     *addr,
                 GError     **error)
{
  Uncached *u;

  if (!self->backend.segment_malloc (self->backend_data, device, size, addr))
    {
      g_set_error_literal (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_OUT_OF_MEMORY,
                           "CUDA error: out of memory");
      return FALSE;
    }
  u = g_new0 (Uncached, 1);
  u->device = device;
  u->size = size;
  g_hash_table_insert (self->uncached, GSIZE_TO_POINTER (*addr), u);
  /* PyTorch keeps no trace here; the recorder still sees the cudaMalloc. */
  if (self->recorder)
    {
      gboolean saved = self->record_history;

      self->record_history = FALSE;
      record_action (self, device, TS_ALLOC_ACTION_SEGMENT_ALLOC, *addr, size, size, stream,
                     NULL, loc);
      self->record_history = saved;
    }
  return TRUE;
}

gboolean
ts_allocator_malloc (TsAllocator       *self,
                     guint              device,
                     guint64            orig_size,
                     TsStreamId         stream,
                     const TsSourceLoc *loc,
                     guint64           *addr,
                     GError           **error)
{
  AllocParams p = { 0 };
  gboolean found;

  g_return_val_if_fail (TS_IS_ALLOCATOR (self), FALSE);
  g_return_val_if_fail (addr != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  *addr = 0;

  if (orig_size >= TS_ALLOCATOR_ONE_EXA_BYTE)
    {
      g_set_error_literal (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_OUT_OF_MEMORY,
                           "CUDA out of memory. Tried to allocate more than 1EB memory.");
      return FALSE;
    }
  if (device >= self->n_devices)
    {
      g_set_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_INVALID_DEVICE,
                   "Allocator not initialized for device %u: did you call init?", device);
      return FALSE;
    }
  if (orig_size == 0)
    return TRUE;

  g_mutex_lock (&self->lock);

  if (!self->caching_enabled)
    {
      found = malloc_uncached (self, device, orig_size, stream, loc, addr, error);
      g_mutex_unlock (&self->lock);
      return found;
    }

  p.device = device;
  p.dev = &self->devices[device];
  p.stream = stream;
  p.loc = loc;

  /* No event queries while a capture may be under way. */
  if (G_LIKELY (p.dev->captures->len == 0))
    process_events (self, p.dev);

  p.size = ts_allocator_round_size (&self->config, orig_size);
  p.pool = get_pool (p.dev, p.size, stream);
  p.alloc_size = ts_memory_allocation_size (p.size);

  found = get_free_block (self, &p) ||
          (trigger_free_memory_callbacks (self) && get_free_block (self, &p));

  if (!found)
    {
      if (G_UNLIKELY (p.dev->set_fraction && self->config.garbage_collection_threshold > 0))
        garbage_collect_cached_blocks (self, p.dev);

      found = alloc_block (self, &p, FALSE) ||
              (release_available_cached_blocks (self, &p) && alloc_block (self, &p, FALSE)) ||
              (G_LIKELY (p.dev->captures->len == 0) &&
               (release_cached_blocks (self, p.dev), alloc_block (self, &p, TRUE)));
    }

  if (!found)
    {
      report_oom (self, &p, error);
      g_mutex_unlock (&self->lock);
      return FALSE;
    }

  /* nothing between the action and the counters calls the backend */
  self->defer_actions = TRUE;
  *addr = alloc_found_block (self, &p, orig_size)->addr;
  emit_counters (self, device);
  self->defer_actions = FALSE;
  g_assert (self->n_deferred == 0);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* free                                                               */

static void
free_allocated (TsAllocator       *self,
                Block             *block,
                const TsSourceLoc *loc)
{
  Device *dev = block_device (self, block);
  Pool *pool = block->pool;

  block->allocated = FALSE;

  STAT_DECREASE (dev->stats.allocation, pool, 1);
  STAT_DECREASE (dev->stats.allocated_bytes, pool, block->size);

  record_action (self, block->segment->device, TS_ALLOC_ACTION_FREE_REQUESTED, block->addr,
                 block->size, block->requested_size, block->stream, pool,
                 loc ? loc : &block->loc);

  if (block->size >= self->config.max_split_size)
    ts_stat_decrease (&dev->stats.oversize_allocations, 1);

  if (block->n_stream_uses > 0)
    {
      /* No events may be recorded for the allocator while a capture may
       * be under way: the next process_events after it records them. */
      if (G_UNLIKELY (dev->captures->len > 0))
        g_ptr_array_add (dev->deferred_frees, block);
      else
        insert_events (self, block);
    }
  else
    free_block (self, block);
}

gboolean
ts_allocator_free (TsAllocator       *self,
                   guint64            addr,
                   const TsSourceLoc *loc,
                   GError           **error)
{
  Block *block;
  Uncached *u;

  g_return_val_if_fail (TS_IS_ALLOCATOR (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (addr == 0)
    return TRUE;

  g_mutex_lock (&self->lock);

  if ((block = map_remove (&self->allocated, addr)) != NULL)
    {
      guint device = block->segment->device;

      /* a block with stream uses records events (backend calls) first */
      self->defer_actions = block->n_stream_uses == 0;
      free_allocated (self, block, loc);
      emit_counters (self, device);
      self->defer_actions = FALSE;
      g_assert (self->n_deferred == 0);
      g_mutex_unlock (&self->lock);
      return TRUE;
    }

  if ((u = g_hash_table_lookup (self->uncached, GSIZE_TO_POINTER (addr))) != NULL)
    {
      self->backend.segment_free (self->backend_data, u->device, addr, u->size);
      if (self->recorder)
        {
          gboolean saved = self->record_history;

          self->record_history = FALSE;
          record_action (self, u->device, TS_ALLOC_ACTION_SEGMENT_FREE, addr, u->size, u->size,
                         TS_STREAM_NONE, NULL, loc);
          self->record_history = saved;
        }
      g_hash_table_remove (self->uncached, GSIZE_TO_POINTER (addr));
      g_mutex_unlock (&self->lock);
      return TRUE;
    }

  g_mutex_unlock (&self->lock);
  g_set_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_INVALID_POINTER,
               "invalid device pointer: 0x%" G_GINT64_MODIFIER "x", addr);
  return FALSE;
}

gboolean
ts_allocator_record_stream (TsAllocator *self,
                            guint64      addr,
                            TsStreamId   stream)
{
  Block *block;
  guint lo, hi;

  g_return_val_if_fail (TS_IS_ALLOCATOR (self), FALSE);

  g_mutex_lock (&self->lock);
  block = map_lookup (&self->allocated, addr);
  if (block == NULL)
    {
      g_mutex_unlock (&self->lock);
      return FALSE;
    }

  /* Uses on the allocation stream need no synchronization. */
  if (stream != block->stream)
    {
      lo = 0;
      hi = block->n_stream_uses;
      while (lo < hi)
        {
          guint mid = (lo + hi) / 2;

          if (block->stream_uses[mid] < stream)
            lo = mid + 1;
          else
            hi = mid;
        }
      if (lo == block->n_stream_uses || block->stream_uses[lo] != stream)
        {
          block->stream_uses = g_renew (TsStreamId, block->stream_uses, block->n_stream_uses + 1);
          memmove (&block->stream_uses[lo + 1], &block->stream_uses[lo],
                   (block->n_stream_uses - lo) * sizeof (TsStreamId));
          block->stream_uses[lo] = stream;
          block->n_stream_uses++;
        }
    }

  g_mutex_unlock (&self->lock);
  return TRUE;
}

gboolean
ts_allocator_lookup (TsAllocator *self,
                     guint64      addr,
                     guint       *device,
                     guint64     *block_size,
                     guint64     *requested_size,
                     TsStreamId  *stream)
{
  Block *block;

  g_return_val_if_fail (TS_IS_ALLOCATOR (self), FALSE);

  g_mutex_lock (&self->lock);
  block = map_lookup (&self->allocated, addr);
  if (block != NULL)
    {
      if (device)
        *device = block->segment->device;
      if (block_size)
        *block_size = block->size;
      if (requested_size)
        *requested_size = block->requested_size;
      if (stream)
        *stream = block->stream;
    }
  g_mutex_unlock (&self->lock);
  return block != NULL;
}

/* Every device: release_cached_blocks, or (pools_only) just the released
 * private pools' part of it. */
static void
empty_caches (TsAllocator *self,
              gboolean     pools_only)
{
  guint d;

  g_return_if_fail (TS_IS_ALLOCATOR (self));

  g_mutex_lock (&self->lock);
  for (d = 0; d < self->n_devices; d++)
    {
      if (pools_only)
        release_freeable_pools (self, &self->devices[d]);
      else
        release_cached_blocks (self, &self->devices[d]);
      emit_counters (self, d);
    }
  g_mutex_unlock (&self->lock);
}

void
ts_allocator_empty_cache (TsAllocator *self)
{
  empty_caches (self, FALSE);
}

void
ts_allocator_empty_cache_pools (TsAllocator *self)
{
  empty_caches (self, TRUE);
}

/* ------------------------------------------------------------------ */
/* Private pools                                                      */

TsMemPoolId
ts_allocator_graph_pool_handle (TsAllocator *self,
                                gboolean     is_user_created)
{
  TsMemPoolId id = { 0, 0 };

  g_return_val_if_fail (TS_IS_ALLOCATOR (self), id);

  g_mutex_lock (&self->lock);
  if (is_user_created)
    id.second = self->next_user_pool_id++;
  else
    id.first = self->next_graph_pool_id++;
  g_mutex_unlock (&self->lock);
  return id;
}

static gboolean check_device (TsAllocator *self, guint device, GError **error);

static PrivatePool *
find_private_pool (Device      *dev,
                   TsMemPoolId  id)
{
  guint k;

  for (k = 0; k < dev->private_pools->len; k++)
    {
      PrivatePool *pp = g_ptr_array_index (dev->private_pools, k);

      if (TS_MEM_POOL_ID_EQUAL (pp->id, id))
        return pp;
    }
  return NULL;
}

static gboolean
pool_error (GError    **error,
            const char *format,
            ...) G_GNUC_PRINTF (2, 3);

static gboolean
pool_error (GError    **error,
            const char *format,
            ...)
{
  va_list args;

  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_INVALID_POOL,
                                                format, args));
  va_end (args);
  return FALSE;
}

/* create_or_incref_pool upstream; the lock is held. */
static gboolean
create_or_incref_pool (Device      *dev,
                       TsMemPoolId  id,
                       GError     **error)
{
  PrivatePool *pp;

  if (TS_MEM_POOL_ID_IS_NONE (id))
    return pool_error (error, "mempool_id (0, 0) is the default pool, not a private one");
  pp = find_private_pool (dev, id);
  if (pp == NULL)
    {
      pp = g_new0 (PrivatePool, 1);
      pp->id = id;
      pp->use_count = 1;
      pool_init (&pp->small_pool, TRUE, pp);
      pool_init (&pp->large_pool, FALSE, pp);
      g_ptr_array_add (dev->private_pools, pp);
      return TRUE;
    }
  /* A pool released by every user may not come back to life. */
  if (pp->use_count <= 0)
    return pool_error (error, "mempool_id (%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                       ") was released", id.first, id.second);
  pp->use_count++;
  return TRUE;
}

/* The device, with the lock taken; NULL (unlocked) for a bad index. */
static Device *
lock_device (TsAllocator  *self,
             guint         device,
             GError      **error)
{
  if (!check_device (self, device, error))
    return NULL;
  g_mutex_lock (&self->lock);
  return &self->devices[device];
}

gboolean
ts_allocator_create_or_incref_pool (TsAllocator  *self,
                                    guint         device,
                                    TsMemPoolId   id,
                                    GError      **error)
{
  Device *dev;
  gboolean ok;

  g_return_val_if_fail (TS_IS_ALLOCATOR (self), FALSE);

  if ((dev = lock_device (self, device, error)) == NULL)
    return FALSE;
  ok = create_or_incref_pool (dev, id, error);
  g_mutex_unlock (&self->lock);
  return ok;
}

gboolean
ts_allocator_begin_allocate_to_pool (TsAllocator            *self,
                                     guint                   device,
                                     TsMemPoolId             id,
                                     TsAllocatorPoolFilter   filter,
                                     gpointer                user_data,
                                     GError                **error)
{
  Capture c = { id, filter, user_data };
  Device *dev;
  gboolean ok = TRUE;
  guint k;

  g_return_val_if_fail (TS_IS_ALLOCATOR (self), FALSE);

  if ((dev = lock_device (self, device, error)) == NULL)
    return FALSE;
  for (k = 0; ok && k < dev->captures->len; k++)
    if (TS_MEM_POOL_ID_EQUAL (g_array_index (dev->captures, Capture, k).id, id))
      ok = pool_error (error, "beginAllocateToPool: already recording to mempool_id");
  if (ok)
    ok = create_or_incref_pool (dev, id, error);
  if (ok)
    g_array_append_val (dev->captures, c);
  g_mutex_unlock (&self->lock);
  return ok;
}

gboolean
ts_allocator_end_allocate_to_pool (TsAllocator  *self,
                                   guint         device,
                                   TsMemPoolId   id,
                                   GError      **error)
{
  Device *dev;
  guint k;

  g_return_val_if_fail (TS_IS_ALLOCATOR (self), FALSE);

  if ((dev = lock_device (self, device, error)) == NULL)
    return FALSE;
  for (k = 0; k < dev->captures->len; k++)
    if (TS_MEM_POOL_ID_EQUAL (g_array_index (dev->captures, Capture, k).id, id))
      {
        g_array_remove_index (dev->captures, k);
        g_mutex_unlock (&self->lock);
        return TRUE;
      }
  g_mutex_unlock (&self->lock);
  return pool_error (error, "endAllocatePool: not currently recording to mempool_id");
}

gboolean
ts_allocator_release_pool (TsAllocator  *self,
                           guint         device,
                           TsMemPoolId   id,
                           GError      **error)
{
  PrivatePool *pp;
  Device *dev;

  g_return_val_if_fail (TS_IS_ALLOCATOR (self), FALSE);

  if ((dev = lock_device (self, device, error)) == NULL)
    return FALSE;
  pp = find_private_pool (dev, id);
  if (pp == NULL || pp->use_count <= 0)
    {
      g_mutex_unlock (&self->lock);
      return pool_error (error, "releasePool: mempool_id (%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                         ") is not a live private pool", id.first, id.second);
    }
  /* At zero, empty_cache may cudaFree the pool's unused segments. */
  if (--pp->use_count == 0)
    pp->freeable = TRUE;
  g_mutex_unlock (&self->lock);
  return TRUE;
}

gint
ts_allocator_get_pool_use_count (TsAllocator *self,
                                 guint        device,
                                 TsMemPoolId  id)
{
  PrivatePool *pp;
  gint n;

  g_return_val_if_fail (TS_IS_ALLOCATOR (self), 0);
  g_return_val_if_fail (device < self->n_devices, 0);

  g_mutex_lock (&self->lock);
  pp = find_private_pool (&self->devices[device], id);
  n = pp ? pp->use_count : 0;
  g_mutex_unlock (&self->lock);
  return n;
}

/* ------------------------------------------------------------------ */
/* Settings, stats, callbacks                                         */

/* What a replay needs to know of the settings: per device, the split
 * limit (oversize stats) and, when attaching, the memory fraction (the
 * OOM message's "allowed" part). */
static void
record_settings (TsAllocator *self,
                 gboolean     with_fraction)
{
  guint d;

  for (d = 0; d < self->n_devices; d++)
    {
      Device *dev = &self->devices[d];

      record_action (self, d, TS_ALLOC_ACTION_CONFIG, 0, self->config.max_split_size,
                     (guint64) dev->stats.max_split_size, TS_STREAM_NONE, NULL, NULL);
      if (with_fraction && dev->set_fraction)
        record_action (self, d, TS_ALLOC_ACTION_MEMORY_FRACTION, 0, dev->allowed_memory_maximum,
                       0, TS_STREAM_NONE, NULL, NULL);
    }
}

static gboolean
check_device (TsAllocator *self,
              guint        device,
              GError     **error)
{
  if (device < self->n_devices)
    return TRUE;
  g_set_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_INVALID_DEVICE,
               "Invalid device argument %u: the allocator has %u devices", device, self->n_devices);
  return FALSE;
}

gboolean
ts_allocator_set_memory_fraction (TsAllocator *self,
                                  guint        device,
                                  double       fraction,
                                  GError     **error)
{
  guint64 free_bytes = 0, total = 0;
  Device *dev;

  g_return_val_if_fail (TS_IS_ALLOCATOR (self), FALSE);

  if (!check_device (self, device, error))
    return FALSE;
  if (isnan (fraction) || fraction < 0 || fraction > 1)
    {
      g_autofree char *repr = python_float_repr (fraction);

      g_set_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_INVALID_VALUE,
                   "Invalid fraction value: %s. Allowed range: 0~1", repr);
      return FALSE;
    }

  g_mutex_lock (&self->lock);
  dev = &self->devices[device];
  self->backend.mem_get_info (self->backend_data, device, &free_bytes, &total);
  dev->allowed_memory_maximum = (guint64) (fraction * (double) total);
  dev->set_fraction = TRUE;
  record_action (self, device, TS_ALLOC_ACTION_MEMORY_FRACTION, 0, dev->allowed_memory_maximum, 0,
                 TS_STREAM_NONE, NULL, NULL);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

double
ts_allocator_get_memory_fraction (TsAllocator *self,
                                  guint        device)
{
  guint64 free_bytes = 0, total = 0;
  double fraction = 1.0;
  Device *dev;

  g_return_val_if_fail (TS_IS_ALLOCATOR (self), 1.0);
  g_return_val_if_fail (device < self->n_devices, 1.0);

  g_mutex_lock (&self->lock);
  dev = &self->devices[device];
  if (dev->set_fraction)
    {
      self->backend.mem_get_info (self->backend_data, device, &free_bytes, &total);
      fraction = total ? (double) dev->allowed_memory_maximum / (double) total : 0;
    }
  g_mutex_unlock (&self->lock);
  return fraction;
}

gboolean
ts_allocator_get_stats (TsAllocator   *self,
                        guint          device,
                        TsMemoryStats *stats)
{
  g_return_val_if_fail (TS_IS_ALLOCATOR (self), FALSE);
  g_return_val_if_fail (stats != NULL, FALSE);

  if (device >= self->n_devices)
    return FALSE;
  g_mutex_lock (&self->lock);
  *stats = self->devices[device].stats;
  g_mutex_unlock (&self->lock);
  return TRUE;
}

void
ts_allocator_reset_peak_stats (TsAllocator *self,
                               guint        device)
{
  g_return_if_fail (TS_IS_ALLOCATOR (self));
  g_return_if_fail (device < self->n_devices);

  g_mutex_lock (&self->lock);
  ts_memory_stats_reset_peak (&self->devices[device].stats);
  record_action (self, device, TS_ALLOC_ACTION_RESET_PEAK, 0, 0, 0, TS_STREAM_NONE, NULL, NULL);
  g_mutex_unlock (&self->lock);
}

void
ts_allocator_reset_accumulated_stats (TsAllocator *self,
                                      guint        device)
{
  g_return_if_fail (TS_IS_ALLOCATOR (self));
  g_return_if_fail (device < self->n_devices);

  g_mutex_lock (&self->lock);
  ts_memory_stats_reset_accumulated (&self->devices[device].stats);
  record_action (self, device, TS_ALLOC_ACTION_RESET_ACCUMULATED, 0, 0, 0, TS_STREAM_NONE, NULL,
                 NULL);
  g_mutex_unlock (&self->lock);
}

char *
ts_allocator_memory_summary (TsAllocator *self,
                             guint        device,
                             gboolean     abbreviated)
{
  TsMemoryStats stats;

  g_return_val_if_fail (TS_IS_ALLOCATOR (self), NULL);

  if (!ts_allocator_get_stats (self, device, &stats))
    return NULL;
  return ts_memory_stats_format_summary (&stats, (int) device, abbreviated);
}

/* cudaMallocAsync is refused by ts_alloc_config_parse; expandable segments
 * need a backend with virtual memory. */
static gboolean
config_supported (const TsAllocConfig      *config,
                  const TsAllocatorBackend *backend)
{
  return config->backend == TS_ALLOC_BACKEND_NATIVE &&
         (!config->expandable_segments ||
          (backend->va_reserve != NULL && backend->va_map != NULL &&
           backend->va_unmap != NULL && backend->va_release != NULL));
}

void
ts_allocator_set_config (TsAllocator         *self,
                         const TsAllocConfig *config)
{
  g_return_if_fail (TS_IS_ALLOCATOR (self));
  g_return_if_fail (config != NULL);
  g_return_if_fail (config_supported (config, &self->backend));

  g_mutex_lock (&self->lock);
  self->config = *config;
  record_settings (self, FALSE);
  g_mutex_unlock (&self->lock);
}

gboolean
ts_allocator_apply_settings (TsAllocator  *self,
                             const char   *settings,
                             GError      **error)
{
  TsAllocConfig config;

  g_return_val_if_fail (TS_IS_ALLOCATOR (self), FALSE);

  ts_allocator_get_config (self, &config);
  if (!ts_alloc_config_parse (&config, settings, error))
    return FALSE;
  if (!config_supported (&config, &self->backend))
    {
      g_set_error_literal (error, TS_ALLOC_CONFIG_ERROR, TS_ALLOC_CONFIG_ERROR_UNSUPPORTED,
                           "expandable_segments:True is not supported on this device: "
                           "it has no virtual memory management in Tensorscope");
      return FALSE;
    }
  ts_allocator_set_config (self, &config);
  return TRUE;
}

void
ts_allocator_get_config (TsAllocator   *self,
                         TsAllocConfig *config)
{
  g_return_if_fail (TS_IS_ALLOCATOR (self));
  g_return_if_fail (config != NULL);

  g_mutex_lock (&self->lock);
  *config = self->config;
  g_mutex_unlock (&self->lock);
}

void
ts_allocator_set_caching_enabled (TsAllocator *self,
                                  gboolean     enabled)
{
  g_return_if_fail (TS_IS_ALLOCATOR (self));

  g_mutex_lock (&self->lock);
  self->caching_enabled = !!enabled;
  g_mutex_unlock (&self->lock);
}

void
ts_allocator_set_recorder (TsAllocator *self,
                           TsRecorder  *recorder)
{
  g_return_if_fail (TS_IS_ALLOCATOR (self));
  g_return_if_fail (recorder == NULL || TS_IS_RECORDER (recorder));

  g_mutex_lock (&self->lock);
  g_set_object (&self->recorder, recorder);
  record_settings (self, TRUE);
  g_mutex_unlock (&self->lock);
}

guint
ts_allocator_get_n_devices (TsAllocator *self)
{
  g_return_val_if_fail (TS_IS_ALLOCATOR (self), 0);

  return self->n_devices;
}

static guint
add_callback (TsAllocator *self,
              gboolean     is_observer,
              gpointer     func,
              gpointer     user_data)
{
  Callback cb;

  g_mutex_lock (&self->lock);
  cb.id = ++self->last_callback_id;
  cb.is_observer = is_observer;
  cb.func = func;
  cb.user_data = user_data;
  g_array_append_val (self->callbacks, cb);
  g_mutex_unlock (&self->lock);
  return cb.id;
}

guint
ts_allocator_add_oom_observer (TsAllocator            *self,
                               TsAllocatorOomObserver  observer,
                               gpointer                user_data)
{
  g_return_val_if_fail (TS_IS_ALLOCATOR (self), 0);
  g_return_val_if_fail (observer != NULL, 0);

  return add_callback (self, TRUE, (gpointer) observer, user_data);
}

guint
ts_allocator_add_free_memory_callback (TsAllocator               *self,
                                       TsAllocatorFreeMemoryFunc  func,
                                       gpointer                   user_data)
{
  g_return_val_if_fail (TS_IS_ALLOCATOR (self), 0);
  g_return_val_if_fail (func != NULL, 0);

  return add_callback (self, FALSE, (gpointer) func, user_data);
}

void
ts_allocator_remove_callback (TsAllocator *self,
                              guint        id)
{
  guint k;

  g_return_if_fail (TS_IS_ALLOCATOR (self));

  g_mutex_lock (&self->lock);
  for (k = 0; k < self->callbacks->len; k++)
    if (g_array_index (self->callbacks, Callback, k).id == id)
      {
        g_array_remove_index (self->callbacks, k);
        break;
      }
  g_mutex_unlock (&self->lock);
}

/* ------------------------------------------------------------------ */
/* History and snapshot                                               */

void
ts_allocator_record_history (TsAllocator *self,
                             gboolean     enabled,
                             gsize        max_entries,
                             guint        skip_actions,
                             gboolean     clear)
{
  guint d;

  g_return_if_fail (TS_IS_ALLOCATOR (self));

  g_mutex_lock (&self->lock);
  max_entries = MAX (max_entries, 1);
  for (d = 0; d < self->n_devices; d++)
    {
      Device *dev = &self->devices[d];

      /* Keep the newest entries, in order, when the ring changes size. */
      if (clear)
        g_array_set_size (dev->trace, 0);
      else if (dev->trace_next != 0 || dev->trace->len > max_entries)
        {
          GArray *ordered = g_array_sized_new (FALSE, FALSE, sizeof (TsAllocTraceEntry), dev->trace->len);
          guint k, skip;

          for (k = 0; k < dev->trace->len; k++)
            g_array_append_val (ordered, g_array_index (dev->trace, TsAllocTraceEntry,
                                                        (dev->trace_next + k) % dev->trace->len));
          skip = ordered->len > max_entries ? ordered->len - max_entries : 0;
          g_array_remove_range (ordered, 0, skip);
          g_array_unref (dev->trace);
          dev->trace = ordered;
        }
      dev->trace_next = 0;
    }
  self->record_history = enabled;
  self->max_entries = max_entries;
  self->skip_actions = skip_actions;
  g_mutex_unlock (&self->lock);
}

static int
compare_segments (gconstpointer a,
                  gconstpointer b)
{
  const Segment *sa = *(Segment * const *) a;
  const Segment *sb = *(Segment * const *) b;

  return sa->addr < sb->addr ? -1 : sa->addr > sb->addr;
}

static TsBlockState
block_state (const Block *b)
{
  if (b->allocated)
    return TS_BLOCK_STATE_ACTIVE_ALLOCATED;
  if (b->event_count > 0 || b->n_stream_uses > 0)
    return TS_BLOCK_STATE_ACTIVE_PENDING_FREE;
  return TS_BLOCK_STATE_INACTIVE;
}

TsMemorySnapshot *
ts_allocator_snapshot (TsAllocator *self)
{
  TsMemorySnapshot *snap;
  guint d, k;

  g_return_val_if_fail (TS_IS_ALLOCATOR (self), NULL);

  snap = g_new0 (TsMemorySnapshot, 1);
  snap->segments = g_array_new (FALSE, FALSE, sizeof (TsSnapshotSegment));
  snap->blocks = g_array_new (FALSE, FALSE, sizeof (TsSnapshotBlock));
  snap->n_devices = self->n_devices;
  snap->device_traces = g_new0 (GArray *, self->n_devices);

  g_mutex_lock (&self->lock);
  for (d = 0; d < self->n_devices; d++)
    {
      Device *dev = &self->devices[d];
      g_autoptr(GPtrArray) sorted = g_ptr_array_sized_new (dev->segments->len);
      GArray *trace = g_array_sized_new (FALSE, FALSE, sizeof (TsAllocTraceEntry), dev->trace->len);
      guint64 total_active = 0;

      for (k = 0; k < dev->trace->len; k++)
        g_array_append_val (trace, g_array_index (dev->trace, TsAllocTraceEntry,
                                                  (dev->trace_next + k) % dev->trace->len));
      snap->device_traces[d] = trace;

      for (k = 0; k < dev->segments->len; k++)
        g_ptr_array_add (sorted, g_ptr_array_index (dev->segments, k));
      g_ptr_array_sort (sorted, compare_segments);

      for (k = 0; k < sorted->len; k++)
        {
          const Segment *seg = g_ptr_array_index (sorted, k);
          const Block *head;

          /* An expandable segment shows as one segment per mapped range. */
          for (head = seg->head; head != NULL; head = head->next)
            {
              TsSnapshotSegment ss = { 0 };
              const Block *b;

              if (head->unmapped || (head->prev != NULL && !head->prev->unmapped))
                continue;
              ss.device = d;
              ss.stream = head->stream;
              ss.address = head->addr;
              ss.is_small = head->pool->is_small;
              ss.is_expandable = seg->expandable;
              if (head->pool->owner != NULL)
                ss.pool_id = head->pool->owner->id;
              /* context_when_segment_allocated: only the first block of
               * an expandable segment has the line that made it. */
              ss.loc = head->prev == NULL ? seg->loc : TS_SOURCE_LOC_NONE;
              ss.first_block = snap->blocks->len;

              for (b = head; b != NULL && !b->unmapped; b = b->next)
            {
              TsSnapshotBlock sb = { 0 };

              sb.address = b->addr;
              sb.size = b->size;
              sb.requested_size = b->requested_size;
              sb.state = block_state (b);
              sb.loc = b->loc;
              g_array_append_val (snap->blocks, sb);

              ss.total_size += b->size;
              if (sb.state == TS_BLOCK_STATE_ACTIVE_ALLOCATED)
                ss.allocated_size += b->size;
              if (sb.state != TS_BLOCK_STATE_INACTIVE)
                {
                  ss.active_size += b->size;
                  ss.requested_size += b->requested_size;
                }
              ss.n_blocks++;
            }
              total_active += ss.active_size;
              g_array_append_val (snap->segments, ss);
            }
        }

      if (self->record_history)
        record_action (self, d, TS_ALLOC_ACTION_SNAPSHOT, 0, total_active, 0, TS_STREAM_NONE,
                       NULL, NULL);
    }
  g_mutex_unlock (&self->lock);

  return snap;
}


/* ------------------------------------------------------------------ */
/* Validation (tests)                                                 */

static gboolean
validate_treap (const Block  *n,
                const Block  *lo,
                const Block  *hi,
                const Pool   *pool,
                guint        *count,
                GError      **error)
{
  for (; n != NULL; n = n->right)
    {
      if ((lo && !block_less (lo, n)) || (hi && !block_less (n, hi)) ||
          (n->left && n->left->prio > n->prio) || (n->right && n->right->prio > n->prio) ||
          n->pool != pool || n->allocated || n->event_count > 0)
        {
          g_set_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_BACKEND,
                       "pool treap broken at block 0x%" G_GINT64_MODIFIER "x", n->addr);
          return FALSE;
        }
      (*count)++;
      if (!validate_treap (n->left, lo, n, pool, count, error))
        return FALSE;
      lo = n;
    }
  return TRUE;
}

gboolean
_ts_allocator_validate (TsAllocator *self,
                        GError     **error)
{
  gboolean ok = TRUE;
  guint d, k;

  g_return_val_if_fail (TS_IS_ALLOCATOR (self), FALSE);

  g_mutex_lock (&self->lock);
  for (d = 0; ok && d < self->n_devices; d++)
    {
      Device *dev = &self->devices[d];
      g_autoptr(GPtrArray) pools = g_ptr_array_new ();
      guint in_pools = 0, free_blocks = 0, in_unmapped = 0, unmapped_blocks = 0, p;
      guint64 reserved = 0;

      g_ptr_array_add (pools, &dev->small_pool);
      g_ptr_array_add (pools, &dev->large_pool);
      for (p = 0; p < dev->private_pools->len; p++)
        {
          PrivatePool *pp = g_ptr_array_index (dev->private_pools, p);

          g_ptr_array_add (pools, &pp->small_pool);
          g_ptr_array_add (pools, &pp->large_pool);
        }
      for (p = 0; p < pools->len; p++)
        {
          Pool *pool = g_ptr_array_index (pools, p);
          guint j;

          for (j = 0; j < pool->unmapped->len; j++)
            {
              const Block *u = g_ptr_array_index (pool->unmapped, j);
              const Block *before = j > 0 ? g_ptr_array_index (pool->unmapped, j - 1) : NULL;

              if (!u->unmapped || u->pool != pool || !block_is_free (u) ||
                  (before && (before->stream > u->stream ||
                              (before->stream == u->stream && before->addr >= u->addr))))
                {
                  g_set_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_BACKEND,
                               "unmapped set broken at block 0x%" G_GINT64_MODIFIER "x", u->addr);
                  ok = FALSE;
                }
            }
          in_unmapped += pool->unmapped->len;
        }

      for (p = 0; ok && p < pools->len; p++)
        {
          guint count = 0;

          Pool *pool = g_ptr_array_index (pools, p);

          ok = validate_treap (pool->root, NULL, NULL, pool, &count, error);
          if (ok && count != pool->n_blocks)
            {
              g_set_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_BACKEND,
                           "pool counts %u blocks but holds %u", pool->n_blocks, count);
              ok = FALSE;
            }
          in_pools += count;
        }

      for (k = 0; ok && k < dev->segments->len; k++)
        {
          Segment *seg = g_ptr_array_index (dev->segments, k);
          guint64 expect = seg->addr;
          const Block *b, *prev = NULL;

          for (b = seg->head; ok && b != NULL; prev = b, b = b->next)
            {
              if (b->addr != expect || b->prev != prev || b->segment != seg || b->size == 0 ||
                  (b->allocated && map_lookup (&self->allocated, b->addr) != b) ||
                  (!b->allocated && map_lookup (&self->allocated, b->addr) != NULL) ||
                  (b->unmapped && !seg->expandable) ||
                  (b->unmapped && (b->allocated || (b->addr - seg->addr) % seg->page_size != 0 ||
                                   b->size % seg->page_size != 0)) ||
                  (prev && block_state (prev) == TS_BLOCK_STATE_INACTIVE &&
                   block_state (b) == TS_BLOCK_STATE_INACTIVE && prev->unmapped == b->unmapped))
                {
                  g_set_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_BACKEND,
                               "segment 0x%" G_GINT64_MODIFIER "x broken at block 0x%"
                               G_GINT64_MODIFIER "x", seg->addr, b->addr);
                  ok = FALSE;
                }
              expect += b->size;
              if (b->unmapped)
                unmapped_blocks++;
              else if (block_state (b) == TS_BLOCK_STATE_INACTIVE)
                free_blocks++;
            }
          if (ok && expect != seg->addr + seg->size)
            {
              g_set_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_BACKEND,
                           "segment 0x%" G_GINT64_MODIFIER "x blocks do not cover it", seg->addr);
              ok = FALSE;
            }
          reserved += reserved_bytes_of (seg);
        }

      if (ok && (free_blocks != in_pools || unmapped_blocks != in_unmapped ||
                 reserved != dev->total_allocated_memory))
        {
          g_set_error (error, TS_ALLOCATOR_ERROR, TS_ALLOCATOR_ERROR_BACKEND,
                       "device %u: %u free blocks, %u in pools; reserved %" G_GUINT64_FORMAT
                       " vs %" G_GUINT64_FORMAT, d, free_blocks, in_pools, reserved,
                       dev->total_allocated_memory);
          ok = FALSE;
        }
    }
  g_mutex_unlock (&self->lock);
  return ok;
}

/* ------------------------------------------------------------------ */
/* GObject                                                            */

static void
ts_allocator_finalize (GObject *object)
{
  TsAllocator *self = TS_ALLOCATOR (object);
  GHashTableIter iter;
  gpointer key, value;
  guint d, k;

  for (d = 0; d < self->n_devices; d++)
    {
      Device *dev = &self->devices[d];

      /* Give every segment back: a run that ends with live tensors
       * still leaves the device memory clean. */
      for (k = 0; k < dev->streams->len; k++)
        {
          StreamEvents *se = &g_array_index (dev->streams, StreamEvents, k);
          guint e;

          for (e = se->head; e < se->queue->len; e++)
            self->backend.event_release (self->backend_data,
                                         g_array_index (se->queue, PendingEvent, e).event);
          g_array_unref (se->queue);
        }
      g_array_unref (dev->streams);

      for (k = 0; k < dev->segments->len; k++)
        {
          Segment *seg = g_ptr_array_index (dev->segments, k);
          Block *b = seg->head;

          if (seg->expandable)
            self->backend.va_release (self->backend_data, d, seg->addr, seg->size);
          else
            self->backend.segment_free (self->backend_data, d, seg->addr, seg->size);
          while (b != NULL)
            {
              Block *next = b->next;

              g_free (b->stream_uses);
              g_free (b);
              b = next;
            }
          g_free (seg);
        }
      g_ptr_array_unref (dev->segments);
      g_array_unref (dev->trace);
      g_ptr_array_unref (dev->small_pool.unmapped);
      g_ptr_array_unref (dev->large_pool.unmapped);
      for (k = 0; k < dev->private_pools->len; k++)
        private_pool_free (g_ptr_array_index (dev->private_pools, k));
      g_ptr_array_unref (dev->private_pools);
      g_array_unref (dev->captures);
      g_ptr_array_unref (dev->deferred_frees);
    }
  g_free (self->devices);

  g_hash_table_iter_init (&iter, self->uncached);
  while (g_hash_table_iter_next (&iter, &key, &value))
    self->backend.segment_free (self->backend_data, ((Uncached *) value)->device,
                                GPOINTER_TO_SIZE (key), ((Uncached *) value)->size);
  g_hash_table_unref (self->uncached);

  while (self->spare_blocks != NULL)
    {
      Block *b = self->spare_blocks;

      self->spare_blocks = b->next;
      g_free (b);
    }
  g_free (self->allocated.keys);
  g_free (self->allocated.values);
  g_array_unref (self->callbacks);
  g_clear_object (&self->recorder);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (ts_allocator_parent_class)->finalize (object);
}

static void
ts_allocator_class_init (TsAllocatorClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ts_allocator_finalize;
}

static void
ts_allocator_init (TsAllocator *self)
{
  g_mutex_init (&self->lock);
  self->caching_enabled = TRUE;
  self->max_entries = G_MAXSIZE;
  self->next_user_pool_id = 1;
  self->next_graph_pool_id = 1;
  map_init (&self->allocated, 1024);
  self->uncached = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->callbacks = g_array_new (FALSE, FALSE, sizeof (Callback));
}

TsAllocator *
ts_allocator_new (guint                     n_devices,
                  const TsAllocConfig      *config,
                  const TsAllocatorBackend *backend,
                  gpointer                  backend_data)
{
  TsAllocator *self;
  guint d;

  g_return_val_if_fail (n_devices > 0, NULL);
  g_return_val_if_fail (backend != NULL, NULL);
  g_return_val_if_fail (backend->segment_malloc != NULL && backend->segment_free != NULL &&
                        backend->mem_get_info != NULL && backend->event_record != NULL &&
                        backend->event_query != NULL && backend->event_synchronize != NULL &&
                        backend->event_release != NULL, NULL);
  g_return_val_if_fail (config == NULL || config_supported (config, backend), NULL);

  self = g_object_new (TS_TYPE_ALLOCATOR, NULL);
  if (config)
    self->config = *config;
  else
    ts_alloc_config_init (&self->config);
  self->backend = *backend;
  self->backend_data = backend_data;
  self->n_devices = n_devices;
  self->devices = g_new0 (Device, n_devices);

  for (d = 0; d < n_devices; d++)
    {
      Device *dev = &self->devices[d];

      /* SIZE_MAX read as an int64 is -1, which is what Python shows. */
      ts_memory_stats_init (&dev->stats, (gint64) self->config.max_split_size);
      pool_init (&dev->small_pool, TRUE, NULL);
      pool_init (&dev->large_pool, FALSE, NULL);
      dev->private_pools = g_ptr_array_new ();
      dev->captures = g_array_new (FALSE, FALSE, sizeof (Capture));
      dev->deferred_frees = g_ptr_array_new ();
      dev->segments = g_ptr_array_new ();
      dev->streams = g_array_new (FALSE, FALSE, sizeof (StreamEvents));
      dev->trace = g_array_new (FALSE, FALSE, sizeof (TsAllocTraceEntry));
    }

  return self;
}
