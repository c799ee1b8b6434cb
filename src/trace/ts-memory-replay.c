/* ts-memory-replay.c: the caching allocator's state at any instant
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The working state is, per device, the live segments sorted by address,
 * each with its live blocks (allocated or pending free) sorted by address
 * as allocation ids (the top bit marks pending). Everything else about a
 * block or a segment sits in the id tables built by the first pass, so a
 * checkpoint is a list of 32-bit ids plus the stats, and replaying an
 * action needs only its kind and its id (two arrays), not the record.
 *
 * Expandable segments are replayed the way PyTorch's snapshot shows them:
 * each contiguous mapped range is a segment. A segment_map makes a new
 * range version (joining the ranges it touches), a segment_unmap replaces
 * its range with what is left on either side; the live blocks move over.
 * A range's line is that of the map that began it.
 */

#include "config.h"

#include <string.h>

#include "ts-memory-replay.h"
#include "ts-memory-replay-private.h"

#define PENDING_BIT 0x80000000u
#define ID_MASK     0x7fffffffu

/* The replay's own action kinds: what apply() does. */
typedef enum
{
  OP_SKIP = 0,
  OP_ALLOC,
  OP_FREE_REQUESTED,
  OP_FREE_COMPLETED,
  OP_SEGMENT_ALLOC,
  OP_SEGMENT_FREE,
  OP_OOM,
  OP_RETRY,              /* id: device */
  OP_SYNC_ALL,           /* id: device */
  OP_RESET_PEAK,         /* id: device */
  OP_RESET_ACCUMULATED,  /* id: device */
  OP_CONFIG,             /* id: into settings */
  OP_FRACTION,           /* id: into settings */
  OP_REMAP,              /* id: into remaps (segment_map / segment_unmap) */
} Op;

/* A segment_map or segment_unmap: the range versions it retires and the
 * ones it makes (TS_MEMORY_REPLAY_NONE where there is none). */
typedef struct
{
  guint32  device;
  guint32  retire[2];
  guint32  create[2];
  guint64  size;
  gboolean map;
  gboolean is_small;
} Remap;

typedef struct
{
  guint32 device;
  guint64 size;
  guint64 requested;
} Setting;

typedef struct
{
  guint32  id;           /* segment id */
  guint32  n_blocks;
  guint32  cap;
  guint32 *blocks;       /* allocation ids | PENDING_BIT, by address */
} WSeg;

typedef struct
{
  TsMemoryStats stats;
  guint64       max_split;
  guint64       allowed;
  GArray       *segs;    /* WSeg, by address */
} WDevice;

typedef struct
{
  gsize   index;
  gsize   words;         /* offset into checkpoint_words */
  gsize   stats;         /* offset into checkpoint_stats (n_devices entries) */
} Checkpoint;

typedef struct
{
  GArray *times;
  GArray *allocated;
  GArray *active;
  GArray *reserved;
} Usage;

struct _TsMemoryReplay
{
  GObject     parent_instance;

  TsRecorder *recorder;
  gsize       n_actions;
  guint       n_devices;
  gsize       n_skipped;
  gsize       n_plain;           /* plain cudaMalloc/cudaFree: not the allocator's */
  guint8     *ops;
  guint32    *ids;
  TsTime     *times;

  GArray     *allocations;       /* TsMemoryAllocation */
  GArray     *segments;          /* TsMemorySegmentInfo */
  GArray     *ooms;              /* TsMemoryOom */
  GArray     *settings;          /* Setting */
  GArray     *remaps;            /* Remap */
  GByteArray *expandable;        /* per segment id: a mapped range */
  Usage      *usage;             /* n_devices */

  GArray     *checkpoints;       /* Checkpoint */
  GArray     *checkpoint_words;  /* guint32 */
  GArray     *checkpoint_stats;  /* TsMemoryStats, then per device max_split, allowed below */
  GArray     *checkpoint_limits; /* guint64 pairs (max_split, allowed) per device */

  /* The working state and the instant it is at. */
  WDevice    *work;
  gsize       work_index;
  gsize       min_interval;
  gboolean    by_events;   /* the clock is the action's ordinal, not its time */
  TsTime     *trace_times; /* with by_events: the actions' times on the trace's clock */
};

G_DEFINE_FINAL_TYPE (TsMemoryReplay, ts_memory_replay, G_TYPE_OBJECT)

/* ------------------------------------------------------------------ */
/* Working state                                                       */

static inline const TsMemoryAllocation *
alloc_info (TsMemoryReplay *self,
            guint32         id)
{
  return &g_array_index (self->allocations, TsMemoryAllocation, id & ID_MASK);
}

static inline const TsMemorySegmentInfo *
seg_info (TsMemoryReplay *self,
          guint32         id)
{
  return &g_array_index (self->segments, TsMemorySegmentInfo, id);
}

static inline gboolean
seg_is_expandable (TsMemoryReplay *self,
                   guint32         id)
{
  return id < self->expandable->len && self->expandable->data[id];
}

static void
work_clear (TsMemoryReplay *self)
{
  for (guint d = 0; d < self->n_devices; d++)
    {
      WDevice *w = &self->work[d];

      for (guint k = 0; k < w->segs->len; k++)
        g_free (g_array_index (w->segs, WSeg, k).blocks);
      g_array_set_size (w->segs, 0);
      ts_memory_stats_init (&w->stats, -1);
      w->max_split = TS_MEMORY_MAX_SPLIT_UNSET;
      w->allowed = 0;
    }
  self->work_index = 0;
}

/* The position of the segment holding addr, or -1. */
static gint
find_seg (TsMemoryReplay *self,
          WDevice        *w,
          guint64         addr)
{
  guint lo = 0, hi = w->segs->len;

  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;

      if (seg_info (self, g_array_index (w->segs, WSeg, mid).id)->addr <= addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return -1;
  {
    const TsMemorySegmentInfo *s = seg_info (self, g_array_index (w->segs, WSeg, lo - 1).id);

    if (addr >= s->addr + s->size)
      return -1;
  }
  return (gint) lo - 1;
}

/* The first block position at or after addr. */
static guint
block_lower_bound (TsMemoryReplay *self,
                   const WSeg     *s,
                   guint64         addr)
{
  guint lo = 0, hi = s->n_blocks;

  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;

      if (alloc_info (self, s->blocks[mid])->addr < addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The free gap around position pos of a segment: [*start, *end). */
static void
gap_at (TsMemoryReplay *self,
        const WSeg     *s,
        guint           before,
        guint           after,
        guint64        *start,
        guint64        *end)
{
  const TsMemorySegmentInfo *si = seg_info (self, s->id);

  if (before == 0)
    *start = si->addr;
  else
    {
      const TsMemoryAllocation *a = alloc_info (self, s->blocks[before - 1]);
      *start = a->addr + a->size;
    }
  *end = after < s->n_blocks ? alloc_info (self, s->blocks[after])->addr : si->addr + si->size;
}

#define POOL(small) ((small) ? TS_STAT_TYPE_SMALL_POOL : TS_STAT_TYPE_LARGE_POOL)

static void
stat_inc (TsStat  *arr,
          gboolean small,
          gint64   n)
{
  ts_stat_increase (&arr[TS_STAT_TYPE_ALL], n);
  ts_stat_increase (&arr[POOL (small)], n);
}

static void
stat_dec (TsStat  *arr,
          gboolean small,
          gint64   n)
{
  ts_stat_decrease (&arr[TS_STAT_TYPE_ALL], n);
  ts_stat_decrease (&arr[POOL (small)], n);
}

static void
apply_alloc (TsMemoryReplay *self,
             guint32         id)
{
  const TsMemoryAllocation *a = alloc_info (self, id);
  WDevice *w = &self->work[a->device];
  const TsMemorySegmentInfo *si = seg_info (self, a->segment);
  gint sp = find_seg (self, w, a->addr);
  WSeg *s;
  guint pos;
  guint64 start, end, gap;
  gboolean small = a->is_small, already_split;
  TsMemoryStats *st = &w->stats;

  g_assert (sp >= 0);
  s = &g_array_index (w->segs, WSeg, sp);
  pos = block_lower_bound (self, s, a->addr);
  gap_at (self, s, pos, pos, &start, &end);
  gap = end - start;
  already_split = gap != si->size;

  /* The allocator splits the front off the free block; the rest stays.
   * (No inactive_split accounting for expandable segments.) */
  if (seg_is_expandable (self, a->segment))
    ;
  else if (a->size < gap)
    {
      if (already_split)
        stat_dec (st->inactive_split_bytes, small, (gint64) a->size);
      else
        {
          stat_inc (st->inactive_split_bytes, small, (gint64) (gap - a->size));
          stat_inc (st->inactive_split, small, 1);
        }
    }
  else if (already_split)
    {
      stat_dec (st->inactive_split_bytes, small, (gint64) gap);
      stat_dec (st->inactive_split, small, 1);
    }

  if (s->n_blocks == s->cap)
    {
      s->cap = MAX (4, s->cap * 2);
      s->blocks = g_renew (guint32, s->blocks, s->cap);
    }
  memmove (&s->blocks[pos + 1], &s->blocks[pos], (s->n_blocks - pos) * sizeof (guint32));
  s->blocks[pos] = id;
  s->n_blocks++;

  stat_inc (st->allocation, small, 1);
  stat_inc (st->allocated_bytes, small, (gint64) a->size);
  stat_inc (st->active, small, 1);
  stat_inc (st->active_bytes, small, (gint64) a->size);
  stat_inc (st->requested_bytes, small, (gint64) a->requested);
  if (a->size >= w->max_split)
    ts_stat_increase (&st->oversize_allocations, 1);
}

/* The segment and position of a live block. */
static WSeg *
find_block (TsMemoryReplay *self,
            guint32         id,
            guint          *pos)
{
  const TsMemoryAllocation *a = alloc_info (self, id);
  WDevice *w = &self->work[a->device];
  gint sp = find_seg (self, w, a->addr);
  WSeg *s;

  g_assert (sp >= 0);
  s = &g_array_index (w->segs, WSeg, sp);
  *pos = block_lower_bound (self, s, a->addr);
  g_assert (*pos < s->n_blocks && (s->blocks[*pos] & ID_MASK) == id);
  return s;
}

static void
apply_free_requested (TsMemoryReplay *self,
                      guint32         id)
{
  const TsMemoryAllocation *a = alloc_info (self, id);
  WDevice *w = &self->work[a->device];
  guint pos;
  WSeg *s = find_block (self, id, &pos);

  s->blocks[pos] |= PENDING_BIT;
  stat_dec (w->stats.allocation, a->is_small, 1);
  stat_dec (w->stats.allocated_bytes, a->is_small, (gint64) a->size);
  if (a->size >= w->max_split)
    ts_stat_decrease (&w->stats.oversize_allocations, 1);
}

static void
apply_free_completed (TsMemoryReplay *self,
                      guint32         id)
{
  const TsMemoryAllocation *a = alloc_info (self, id);
  WDevice *w = &self->work[a->device];
  TsMemoryStats *st = &w->stats;
  gboolean small = a->is_small;
  guint pos;
  WSeg *s = find_block (self, id, &pos);
  guint64 start, end;
  gint64 net_blocks = 0, net_size = 0;

  /* Free neighbours merge into the block; the net change of the
   * inactive_split stats is applied once, as the allocator does. */
  gap_at (self, s, pos, pos + 1, &start, &end);
  if (start < a->addr)
    net_blocks--, net_size -= (gint64) (a->addr - start);
  if (end > a->addr + a->size)
    net_blocks--, net_size -= (gint64) (end - a->addr - a->size);
  if (end - start != seg_info (self, s->id)->size)
    net_blocks++, net_size += (gint64) (end - start);
  if (seg_is_expandable (self, s->id))
    net_blocks = net_size = 0;

  memmove (&s->blocks[pos], &s->blocks[pos + 1], (s->n_blocks - pos - 1) * sizeof (guint32));
  s->n_blocks--;

  if (net_blocks > 0)
    stat_inc (st->inactive_split, small, net_blocks);
  else if (net_blocks < 0)
    stat_dec (st->inactive_split, small, -net_blocks);
  if (net_size > 0)
    stat_inc (st->inactive_split_bytes, small, net_size);
  else if (net_size < 0)
    stat_dec (st->inactive_split_bytes, small, -net_size);

  stat_dec (st->active, small, 1);
  stat_dec (st->active_bytes, small, (gint64) a->size);
  stat_dec (st->requested_bytes, small, (gint64) a->requested);
}

/* The position a segment starting at addr takes in w->segs. */
static guint
seg_insert_pos (TsMemoryReplay *self,
                WDevice        *w,
                guint64         addr)
{
  guint lo = 0, hi = w->segs->len;

  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;

      if (seg_info (self, g_array_index (w->segs, WSeg, mid).id)->addr < addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static void
apply_segment_alloc (TsMemoryReplay *self,
                     guint32         id)
{
  const TsMemorySegmentInfo *si = seg_info (self, id);
  WDevice *w = &self->work[si->device];
  WSeg s = { id, 0, 0, NULL };

  g_array_insert_val (w->segs, seg_insert_pos (self, w, si->addr), s);

  stat_inc (w->stats.segment, si->is_small, 1);
  stat_inc (w->stats.reserved_bytes, si->is_small, (gint64) si->size);
  if (si->size >= w->max_split)
    ts_stat_increase (&w->stats.oversize_segments, 1);
  w->stats.num_device_alloc++;
}

static void
apply_segment_free (TsMemoryReplay *self,
                    guint32         id)
{
  const TsMemorySegmentInfo *si = seg_info (self, id);
  WDevice *w = &self->work[si->device];
  gint sp = find_seg (self, w, si->addr);

  g_assert (sp >= 0 && g_array_index (w->segs, WSeg, sp).id == id);
  g_free (g_array_index (w->segs, WSeg, sp).blocks);
  g_array_remove_index (w->segs, sp);

  stat_dec (w->stats.segment, si->is_small, 1);
  stat_dec (w->stats.reserved_bytes, si->is_small, (gint64) si->size);
  if (si->size >= w->max_split)
    ts_stat_decrease (&w->stats.oversize_segments, 1);
  w->stats.num_device_free++;
}

static void
apply_remap (TsMemoryReplay *self,
             guint32         id)
{
  const Remap *m = &g_array_index (self->remaps, Remap, id);
  WDevice *w = &self->work[m->device];
  g_autoptr(GArray) moving = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint k, from = 0;

  for (k = 0; k < 2; k++)
    {
      gint sp;
      WSeg *ws;

      if (m->retire[k] == TS_MEMORY_REPLAY_NONE)
        continue;
      sp = find_seg (self, w, seg_info (self, m->retire[k])->addr);
      g_assert (sp >= 0);
      ws = &g_array_index (w->segs, WSeg, sp);
      g_assert (ws->id == m->retire[k]);
      g_array_append_vals (moving, ws->blocks, ws->n_blocks);
      g_free (ws->blocks);
      g_array_remove_index (w->segs, sp);
    }
  /* The retired ranges were in address order, so are their blocks. */
  for (k = 0; k < 2; k++)
    {
      const TsMemorySegmentInfo *si;
      WSeg ws = { 0 };

      if (m->create[k] == TS_MEMORY_REPLAY_NONE)
        continue;
      si = seg_info (self, m->create[k]);
      ws.id = m->create[k];
      while (from + ws.n_blocks < moving->len &&
             alloc_info (self, g_array_index (moving, guint32, from + ws.n_blocks))->addr < si->addr + si->size)
        ws.n_blocks++;
      ws.cap = MAX (4, ws.n_blocks);
      ws.blocks = g_new (guint32, ws.cap);
      /* an empty array has no data to point into */
      if (ws.n_blocks > 0)
        memcpy (ws.blocks, &g_array_index (moving, guint32, from), ws.n_blocks * sizeof (guint32));
      from += ws.n_blocks;
      g_array_insert_val (w->segs, seg_insert_pos (self, w, si->addr), ws);
    }
  g_assert (from == moving->len);

  if (m->map)
    {
      stat_inc (w->stats.reserved_bytes, m->is_small, (gint64) m->size);
      w->stats.num_device_alloc++;
    }
  else
    {
      stat_dec (w->stats.reserved_bytes, m->is_small, (gint64) m->size);
      w->stats.num_device_free++;
    }
}

static void
apply (TsMemoryReplay *self,
       gsize           action)
{
  guint32 id = self->ids[action];

  switch ((Op) self->ops[action])
    {
    case OP_SKIP:
      break;
    case OP_ALLOC:
      apply_alloc (self, id);
      break;
    case OP_FREE_REQUESTED:
      apply_free_requested (self, id);
      break;
    case OP_FREE_COMPLETED:
      apply_free_completed (self, id);
      break;
    case OP_SEGMENT_ALLOC:
      apply_segment_alloc (self, id);
      break;
    case OP_SEGMENT_FREE:
      apply_segment_free (self, id);
      break;
    case OP_REMAP:
      apply_remap (self, id);
      break;
    case OP_OOM:
      self->work[g_array_index (self->ooms, TsMemoryOom, id).device].stats.num_ooms++;
      break;
    case OP_RETRY:
      self->work[id].stats.num_alloc_retries++;
      break;
    case OP_SYNC_ALL:
      self->work[id].stats.num_sync_all_streams++;
      break;
    case OP_RESET_PEAK:
      ts_memory_stats_reset_peak (&self->work[id].stats);
      break;
    case OP_RESET_ACCUMULATED:
      ts_memory_stats_reset_accumulated (&self->work[id].stats);
      break;
    case OP_CONFIG:
      {
        const Setting *s = &g_array_index (self->settings, Setting, id);
        self->work[s->device].max_split = s->size;
        self->work[s->device].stats.max_split_size = (gint64) s->requested;
      }
      break;
    case OP_FRACTION:
      {
        const Setting *s = &g_array_index (self->settings, Setting, id);
        self->work[s->device].allowed = s->size;
      }
      break;
    default:
      g_assert_not_reached ();
    }
}

/* ------------------------------------------------------------------ */
/* Checkpoints                                                         */

static gsize
work_size (TsMemoryReplay *self)
{
  gsize n = 0;

  for (guint d = 0; d < self->n_devices; d++)
    {
      GArray *segs = self->work[d].segs;

      n += segs->len;
      for (guint k = 0; k < segs->len; k++)
        n += g_array_index (segs, WSeg, k).n_blocks;
    }
  return n;
}

/* Layout per device: n_segments, then per segment id, n_blocks, blocks. */
static void
checkpoint_take (TsMemoryReplay *self)
{
  Checkpoint cp;

  cp.index = self->work_index;
  cp.words = self->checkpoint_words->len;
  cp.stats = self->checkpoint_stats->len;

  for (guint d = 0; d < self->n_devices; d++)
    {
      WDevice *w = &self->work[d];
      guint32 n = w->segs->len;
      guint64 limits[2] = { w->max_split, w->allowed };

      g_array_append_val (self->checkpoint_words, n);
      for (guint k = 0; k < w->segs->len; k++)
        {
          WSeg *s = &g_array_index (w->segs, WSeg, k);

          g_array_append_val (self->checkpoint_words, s->id);
          g_array_append_val (self->checkpoint_words, s->n_blocks);
          g_array_append_vals (self->checkpoint_words, s->blocks, s->n_blocks);
        }
      g_array_append_val (self->checkpoint_stats, w->stats);
      g_array_append_vals (self->checkpoint_limits, limits, 2);
    }
  g_array_append_val (self->checkpoints, cp);
}

static void
checkpoint_restore (TsMemoryReplay   *self,
                    const Checkpoint *cp)
{
  const guint32 *words = &g_array_index (self->checkpoint_words, guint32, cp->words);

  work_clear (self);
  for (guint d = 0; d < self->n_devices; d++)
    {
      WDevice *w = &self->work[d];
      guint32 n = *words++;

      g_array_set_size (w->segs, n);
      for (guint k = 0; k < n; k++)
        {
          WSeg *s = &g_array_index (w->segs, WSeg, k);

          s->id = *words++;
          s->n_blocks = *words++;
          s->cap = MAX (4, s->n_blocks);
          s->blocks = g_new (guint32, s->cap);
          memcpy (s->blocks, words, s->n_blocks * sizeof (guint32));
          words += s->n_blocks;
        }
      w->stats = g_array_index (self->checkpoint_stats, TsMemoryStats, cp->stats + d);
      w->max_split = g_array_index (self->checkpoint_limits, guint64, 2 * (cp->stats + d));
      w->allowed = g_array_index (self->checkpoint_limits, guint64, 2 * (cp->stats + d) + 1);
    }
  self->work_index = cp->index;
}

/* Brings the working state to `index`. */
static void
seek (TsMemoryReplay *self,
      gsize           index)
{
  guint lo = 0, hi = self->checkpoints->len;
  const Checkpoint *cp;

  index = MIN (index, self->n_actions);

  /* The last checkpoint at or before index. */
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;

      if (g_array_index (self->checkpoints, Checkpoint, mid).index <= index)
        lo = mid + 1;
      else
        hi = mid;
    }
  g_assert (lo > 0);
  cp = &g_array_index (self->checkpoints, Checkpoint, lo - 1);

  /* Going forward from where we are beats restoring when it is closer. */
  if (!(self->work_index <= index && self->work_index >= cp->index))
    checkpoint_restore (self, cp);

  while (self->work_index < index)
    apply (self, self->work_index++);
}

/* ------------------------------------------------------------------ */
/* The first pass                                                      */

static void
usage_sample (TsMemoryReplay *self,
              guint           device,
              TsTime          time)
{
  Usage *u = &self->usage[device];
  const TsMemoryStats *st = &self->work[device].stats;
  gint64 al = st->allocated_bytes[TS_STAT_TYPE_ALL].current;
  gint64 ac = st->active_bytes[TS_STAT_TYPE_ALL].current;
  gint64 re = st->reserved_bytes[TS_STAT_TYPE_ALL].current;
  guint n = u->times->len;

  if (n > 0 && g_array_index (u->allocated, gint64, n - 1) == al &&
      g_array_index (u->active, gint64, n - 1) == ac &&
      g_array_index (u->reserved, gint64, n - 1) == re)
    return;
  if (n > 0 && g_array_index (u->times, TsTime, n - 1) >= time)
    {
      g_array_index (u->allocated, gint64, n - 1) = al;
      g_array_index (u->active, gint64, n - 1) = ac;
      g_array_index (u->reserved, gint64, n - 1) = re;
      return;
    }
  g_array_append_val (u->times, time);
  g_array_append_val (u->allocated, al);
  g_array_append_val (u->active, ac);
  g_array_append_val (u->reserved, re);
}

/* The live block of a device at addr (its position in *seg). */
static gboolean
lookup_live (TsMemoryReplay *self,
             guint           device,
             guint64         addr,
             guint32        *id)
{
  WDevice *w = &self->work[device];
  gint sp = find_seg (self, w, addr);
  WSeg *s;
  guint pos;

  if (sp < 0)
    return FALSE;
  s = &g_array_index (w->segs, WSeg, sp);
  pos = block_lower_bound (self, s, addr);
  if (pos >= s->n_blocks || alloc_info (self, s->blocks[pos])->addr != addr)
    return FALSE;
  *id = s->blocks[pos];
  return TRUE;
}

/* A new range version of an expandable segment. */
static guint32
new_range (TsMemoryReplay      *self,
           gsize                i,
           const TsAllocRecord *r,
           guint64              addr,
           guint64              size,
           const TsSourceLoc   *loc,
           TsMemPoolId          pool_id)
{
  TsMemorySegmentInfo s = { 0 };
  guint8 one = 1;
  guint32 id = self->segments->len;

  s.addr = addr;
  s.size = size;
  s.correlation = r->correlation;
  s.time = r->time;
  s.loc = *loc;
  s.device = r->device;
  s.stream = r->stream;
  s.alloc_action = (guint32) i;
  s.free_action = TS_MEMORY_REPLAY_NONE;
  s.is_small = r->pool == 1;
  s.is_expandable = TRUE;
  s.pool_id = pool_id;
  g_array_append_val (self->segments, s);
  g_byte_array_set_size (self->expandable, id);
  g_byte_array_append (self->expandable, &one, 1);
  return id;
}

/* A live mapped range of the same stream and pool that ends at addr
 * (ends = TRUE) or starts there, or -1. */
static gint
neighbour_range (TsMemoryReplay      *self,
                 WDevice             *w,
                 const TsAllocRecord *r,
                 guint64              addr,
                 gboolean             ends)
{
  gint sp = find_seg (self, w, ends ? addr - 1 : addr);
  const TsMemorySegmentInfo *si;

  if (sp < 0)
    return -1;
  si = seg_info (self, g_array_index (w->segs, WSeg, sp).id);
  if (!seg_is_expandable (self, g_array_index (w->segs, WSeg, sp).id) || si->stream != r->stream ||
      si->is_small != (r->pool == 1) || !TS_MEM_POOL_ID_EQUAL (si->pool_id, ts_alloc_record_get_pool_id (r)) ||
      (ends ? si->addr + si->size != addr : si->addr != addr))
    return -1;
  return sp;
}

/* segment_map joins the ranges around it; segment_unmap must cover free
 * bytes of one range, which it splits. */
static gboolean
classify_remap (TsMemoryReplay      *self,
                WDevice             *w,
                gsize                i,
                const TsAllocRecord *r,
                guint32             *id)
{
  Remap m = { r->device, { TS_MEMORY_REPLAY_NONE, TS_MEMORY_REPLAY_NONE },
              { TS_MEMORY_REPLAY_NONE, TS_MEMORY_REPLAY_NONE }, r->size,
              r->action == TS_ALLOC_ACTION_SEGMENT_MAP, r->pool == 1 };
  guint64 end = r->addr + r->size;

  if (r->size == 0 || end < r->addr)
    return FALSE;

  if (m.map)
    {
      gint left = neighbour_range (self, w, r, r->addr, TRUE);
      gint right = neighbour_range (self, w, r, end, FALSE);
      guint64 start = r->addr, stop = end;
      TsSourceLoc loc = r->loc;

      /* Nothing live in the new pages. */
      if (find_seg (self, w, r->addr) >= 0 || find_seg (self, w, end - 1) >= 0)
        return FALSE;
      {
        guint pos = seg_insert_pos (self, w, r->addr);

        if (pos < w->segs->len && seg_info (self, g_array_index (w->segs, WSeg, pos).id)->addr < end &&
            (gint) pos != right)
          return FALSE;
      }
      if (left >= 0)
        {
          const TsMemorySegmentInfo *si = seg_info (self, g_array_index (w->segs, WSeg, left).id);

          m.retire[0] = g_array_index (w->segs, WSeg, left).id;
          start = si->addr;
          loc = si->loc;
        }
      if (right >= 0)
        {
          const TsMemorySegmentInfo *si = seg_info (self, g_array_index (w->segs, WSeg, right).id);

          m.retire[1] = g_array_index (w->segs, WSeg, right).id;
          stop = si->addr + si->size;
        }
      m.create[0] = new_range (self, i, r, start, stop - start, &loc, ts_alloc_record_get_pool_id (r));
    }
  else
    {
      gint sp = find_seg (self, w, r->addr);
      const WSeg *ws;
      TsMemorySegmentInfo si;
      guint pos;

      if (sp < 0)
        return FALSE;
      ws = &g_array_index (w->segs, WSeg, sp);
      si = *seg_info (self, ws->id);
      if (!seg_is_expandable (self, ws->id) || end > si.addr + si.size)
        return FALSE;
      /* No live block may overlap the pages. */
      pos = block_lower_bound (self, ws, r->addr);
      if (pos > 0)
        {
          const TsMemoryAllocation *a = alloc_info (self, ws->blocks[pos - 1]);
          if (a->addr + a->size > r->addr)
            return FALSE;
        }
      if (pos < ws->n_blocks && alloc_info (self, ws->blocks[pos])->addr < end)
        return FALSE;

      m.retire[0] = ws->id;
      if (r->addr > si.addr)
        m.create[0] = new_range (self, i, r, si.addr, r->addr - si.addr, &si.loc, si.pool_id);
      if (end < si.addr + si.size)
        m.create[1] = new_range (self, i, r, end, si.addr + si.size - end, &TS_SOURCE_LOC_NONE, si.pool_id);
    }

  for (guint k = 0; k < 2; k++)
    if (m.retire[k] != TS_MEMORY_REPLAY_NONE)
      g_array_index (self->segments, TsMemorySegmentInfo, m.retire[k]).free_action = (guint32) i;
  *id = self->remaps->len;
  g_array_append_val (self->remaps, m);
  return TRUE;
}

/* Decides what action `i` (record r) does to the state, checking it
 * against the state so that a bad trace is skipped rather than trusted. */
static void
classify (TsMemoryReplay      *self,
          gsize                i,
          const TsAllocRecord *r)
{
  guint8 op = OP_SKIP;
  guint32 id = TS_MEMORY_REPLAY_NONE;
  WDevice *w = r->device < self->n_devices ? &self->work[r->device] : NULL;

  if (w == NULL)
    goto out;

  switch (r->action)
    {
    case TS_ALLOC_ACTION_ALLOC:
      {
        gint sp = find_seg (self, w, r->addr);
        TsMemoryAllocation a = { 0 };
        const TsMemorySegmentInfo *si;
        WSeg *s;
        guint pos;
        guint64 start, end;

        if (sp < 0 || r->size == 0)
          break;
        s = &g_array_index (w->segs, WSeg, sp);
        si = seg_info (self, s->id);
        pos = block_lower_bound (self, s, r->addr);
        gap_at (self, s, pos, pos, &start, &end);
        /* It must start a free gap and fit in it. */
        if (start != r->addr || r->size > end - start)
          break;
        a.addr = r->addr;
        a.size = r->size;
        a.requested = r->requested;
        a.correlation = r->correlation;
        a.time = r->time;
        a.loc = r->loc;
        a.device = r->device;
        a.stream = si->stream;
        a.segment = s->id;
        a.alloc_action = (guint32) i;
        a.free_requested_action = TS_MEMORY_REPLAY_NONE;
        a.free_completed_action = TS_MEMORY_REPLAY_NONE;
        a.is_small = si->is_small;
        id = self->allocations->len;
        g_array_append_val (self->allocations, a);
        op = OP_ALLOC;
      }
      break;

    case TS_ALLOC_ACTION_FREE_REQUESTED:
    case TS_ALLOC_ACTION_FREE_COMPLETED:
      {
        gboolean requested = r->action == TS_ALLOC_ACTION_FREE_REQUESTED;
        guint32 live;
        TsMemoryAllocation *a;

        if (!lookup_live (self, r->device, r->addr, &live))
          break;
        /* free_requested needs an allocated block, free_completed a
         * pending one. */
        if (requested == !!(live & PENDING_BIT))
          break;
        a = &g_array_index (self->allocations, TsMemoryAllocation, live & ID_MASK);
        if (requested)
          a->free_requested_action = (guint32) i;
        else
          a->free_completed_action = (guint32) i;
        id = live & ID_MASK;
        op = requested ? OP_FREE_REQUESTED : OP_FREE_COMPLETED;
      }
      break;

    case TS_ALLOC_ACTION_SEGMENT_ALLOC:
      {
        TsMemorySegmentInfo s = { 0 };
        gint sp;

        /* A plain cudaMalloc (caching disabled, or seen by CUPTI without
         * PyTorch's trace) is not the allocator's: left out, counted apart. */
        if (r->requested == r->size && r->size != 0)
          goto plain;
        if (r->size == 0 || r->addr + r->size < r->addr)
          break;
        /* No overlap with a live segment: nothing live at its first
         * byte, and the next segment starts after its last. */
        sp = find_seg (self, w, r->addr);
        if (sp >= 0 || find_seg (self, w, r->addr + r->size - 1) >= 0)
          break;
        {
          guint lo = 0, hi = w->segs->len;

          while (lo < hi)
            {
              guint mid = (lo + hi) / 2;
              if (seg_info (self, g_array_index (w->segs, WSeg, mid).id)->addr <= r->addr)
                lo = mid + 1;
              else
                hi = mid;
            }
          if (lo < w->segs->len &&
              seg_info (self, g_array_index (w->segs, WSeg, lo).id)->addr < r->addr + r->size)
            break;
        }
        s.addr = r->addr;
        s.size = r->size;
        s.correlation = r->correlation;
        s.time = r->time;
        s.loc = r->loc;
        s.device = r->device;
        s.stream = r->stream;
        s.alloc_action = (guint32) i;
        s.free_action = TS_MEMORY_REPLAY_NONE;
        s.is_small = r->pool == 1;
        s.pool_id = ts_alloc_record_get_pool_id (r);
        id = self->segments->len;
        g_array_append_val (self->segments, s);
        op = OP_SEGMENT_ALLOC;
      }
      break;

    case TS_ALLOC_ACTION_SEGMENT_FREE:
      {
        gint sp;
        WSeg *s;
        TsMemorySegmentInfo *si;

        if (r->requested == r->size && r->size != 0)
          goto plain;
        sp = find_seg (self, w, r->addr);
        if (sp < 0)
          break;
        s = &g_array_index (w->segs, WSeg, sp);
        si = &g_array_index (self->segments, TsMemorySegmentInfo, s->id);
        /* Only a whole, unused segment goes back. */
        if (si->addr != r->addr || s->n_blocks > 0)
          break;
        si->free_action = (guint32) i;
        id = s->id;
        op = OP_SEGMENT_FREE;
      }
      break;

    case TS_ALLOC_ACTION_OOM:
      {
        TsMemoryOom o = { 0 };
        const TsMemoryStats *st = &w->stats;

        o.time = r->time;
        o.action = (guint32) i;
        o.device = r->device;
        o.stream = r->stream;
        o.loc = r->loc;
        o.correlation = r->correlation;
        o.rounded_size = r->size;
        o.alloc_size = ts_memory_allocation_size (r->size);
        o.device_free = r->addr;
        o.device_total = r->requested;
        o.allowed = w->allowed;
        o.allocated = st->allocated_bytes[TS_STAT_TYPE_ALL].current;
        o.reserved = st->reserved_bytes[TS_STAT_TYPE_ALL].current;
        o.active = st->active_bytes[TS_STAT_TYPE_ALL].current;
        o.is_small = r->pool == 1;
        o.pool_id = ts_alloc_record_get_pool_id (r);
        id = self->ooms->len;
        g_array_append_val (self->ooms, o);
        op = OP_OOM;
      }
      break;

    case TS_ALLOC_ACTION_ALLOC_RETRY:
      op = OP_RETRY, id = r->device;
      break;
    case TS_ALLOC_ACTION_SYNC_ALL_STREAMS:
      op = OP_SYNC_ALL, id = r->device;
      break;
    case TS_ALLOC_ACTION_RESET_PEAK:
      op = OP_RESET_PEAK, id = r->device;
      break;
    case TS_ALLOC_ACTION_RESET_ACCUMULATED:
      op = OP_RESET_ACCUMULATED, id = r->device;
      break;
    case TS_ALLOC_ACTION_CONFIG:
    case TS_ALLOC_ACTION_MEMORY_FRACTION:
      {
        Setting s = { r->device, r->size, r->requested };

        id = self->settings->len;
        g_array_append_val (self->settings, s);
        op = r->action == TS_ALLOC_ACTION_CONFIG ? OP_CONFIG : OP_FRACTION;
      }
      break;

    case TS_ALLOC_ACTION_SEGMENT_MAP:
    case TS_ALLOC_ACTION_SEGMENT_UNMAP:
      op = classify_remap (self, w, i, r, &id) ? OP_REMAP : OP_SKIP;
      break;

    case TS_ALLOC_ACTION_SNAPSHOT:
      /* Not a change of state. */
      self->ops[i] = OP_SKIP;
      self->ids[i] = TS_MEMORY_REPLAY_NONE;
      return;

    default:
      break;
    }

out:
  if (op == OP_SKIP)
    self->n_skipped++;
  self->ops[i] = op;
  self->ids[i] = id;
  return;
plain:
  self->n_plain++;
  self->ops[i] = OP_SKIP;
  self->ids[i] = TS_MEMORY_REPLAY_NONE;
}

static void
first_pass (TsMemoryReplay *self)
{
  gsize n = ts_recorder_get_count (self->recorder, TS_RECORD_ALLOC);
  guint max_device = 0;
  gboolean any = FALSE;
  gsize last_checkpoint = 0, next_check = self->min_interval;

  self->n_actions = n;
  self->ops = g_new0 (guint8, MAX (n, 1));
  self->ids = g_new (guint32, MAX (n, 1));
  self->times = g_new0 (TsTime, MAX (n, 1));
  if (self->by_events)
    self->trace_times = g_new0 (TsTime, MAX (n, 1));

  /* The devices: every record's, up to a sane limit. */
  {
    guint32 *devices = g_new (guint32, MAX (n, 1));
    guint device_field = 5;   /* TsAllocRecord.device in the field table */

    g_assert (g_str_equal (ts_record_info (TS_RECORD_ALLOC)->fields[device_field].name, "device"));
    ts_recorder_copy_column (self->recorder, TS_RECORD_ALLOC, device_field, 0, n, devices);
    for (gsize i = 0; i < n; i++)
      if (devices[i] < TS_MEMORY_REPLAY_MAX_DEVICES)
        {
          max_device = MAX (max_device, devices[i]);
          any = TRUE;
        }
    g_free (devices);
  }
  self->n_devices = any ? max_device + 1 : 0;
  self->work = g_new0 (WDevice, MAX (self->n_devices, 1));
  self->usage = g_new0 (Usage, MAX (self->n_devices, 1));
  for (guint d = 0; d < self->n_devices; d++)
    {
      self->work[d].segs = g_array_new (FALSE, FALSE, sizeof (WSeg));
      self->usage[d].times = g_array_new (FALSE, FALSE, sizeof (TsTime));
      self->usage[d].allocated = g_array_new (FALSE, FALSE, sizeof (gint64));
      self->usage[d].active = g_array_new (FALSE, FALSE, sizeof (gint64));
      self->usage[d].reserved = g_array_new (FALSE, FALSE, sizeof (gint64));
    }
  work_clear (self);
  checkpoint_take (self);

  for (gsize i = 0; i < n; i++)
    {
      TsAllocRecord r;

      /* Checkpoints get sparser as the live state grows: restoring one
       * then costs no more than replaying up to the next. */
      if (i == next_check)
        {
          gsize wanted = MAX (self->min_interval, 2 * work_size (self));

          if (i - last_checkpoint >= wanted)
            {
              checkpoint_take (self);
              last_checkpoint = i;
              next_check = i + self->min_interval;
            }
          else
            next_check = last_checkpoint + wanted;
        }

      ts_recorder_get (self->recorder, TS_RECORD_ALLOC, i, &r);
      if (self->by_events)
        {
          self->trace_times[i] = i > 0 ? MAX (r.time, self->trace_times[i - 1]) : r.time;
          r.time = (TsTime) i;
        }
      /* Times never go back, even if a record says so. */
      self->times[i] = i > 0 ? MAX (r.time, self->times[i - 1]) : r.time;
      classify (self, i, &r);
      apply (self, i);
      self->work_index = i + 1;
      if (self->ops[i] != OP_SKIP && r.device < self->n_devices)
        usage_sample (self, r.device, self->times[i]);
    }
}

/* ------------------------------------------------------------------ */
/* Public API                                                          */

static void
ts_memory_replay_finalize (GObject *object)
{
  TsMemoryReplay *self = (TsMemoryReplay *) object;

  if (self->work != NULL)
    {
      for (guint d = 0; d < self->n_devices; d++)
        {
          WDevice *w = &self->work[d];

          for (guint k = 0; k < w->segs->len; k++)
            g_free (g_array_index (w->segs, WSeg, k).blocks);
          g_array_unref (w->segs);
          g_array_unref (self->usage[d].times);
          g_array_unref (self->usage[d].allocated);
          g_array_unref (self->usage[d].active);
          g_array_unref (self->usage[d].reserved);
        }
      g_free (self->work);
      g_free (self->usage);
    }
  g_free (self->ops);
  g_free (self->ids);
  g_free (self->times);
  g_free (self->trace_times);
  g_clear_pointer (&self->allocations, g_array_unref);
  g_clear_pointer (&self->segments, g_array_unref);
  g_clear_pointer (&self->ooms, g_array_unref);
  g_clear_pointer (&self->settings, g_array_unref);
  g_clear_pointer (&self->remaps, g_array_unref);
  g_clear_pointer (&self->expandable, g_byte_array_unref);
  g_clear_pointer (&self->checkpoints, g_array_unref);
  g_clear_pointer (&self->checkpoint_words, g_array_unref);
  g_clear_pointer (&self->checkpoint_stats, g_array_unref);
  g_clear_pointer (&self->checkpoint_limits, g_array_unref);
  g_clear_object (&self->recorder);

  G_OBJECT_CLASS (ts_memory_replay_parent_class)->finalize (object);
}

static void
ts_memory_replay_class_init (TsMemoryReplayClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ts_memory_replay_finalize;
}

static void
ts_memory_replay_init (TsMemoryReplay *self)
{
  self->allocations = g_array_new (FALSE, FALSE, sizeof (TsMemoryAllocation));
  self->segments = g_array_new (FALSE, FALSE, sizeof (TsMemorySegmentInfo));
  self->ooms = g_array_new (FALSE, FALSE, sizeof (TsMemoryOom));
  self->settings = g_array_new (FALSE, FALSE, sizeof (Setting));
  self->remaps = g_array_new (FALSE, FALSE, sizeof (Remap));
  self->expandable = g_byte_array_new ();
  self->checkpoints = g_array_new (FALSE, FALSE, sizeof (Checkpoint));
  self->checkpoint_words = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->checkpoint_stats = g_array_new (FALSE, FALSE, sizeof (TsMemoryStats));
  self->checkpoint_limits = g_array_new (FALSE, FALSE, sizeof (guint64));
}

TsMemoryReplay *
_ts_memory_replay_new_with_interval (TsRecorder *recorder,
                                     gsize       min_interval,
                                     gboolean    by_events)
{
  TsMemoryReplay *self;

  g_return_val_if_fail (TS_IS_RECORDER (recorder), NULL);
  g_return_val_if_fail (min_interval > 0, NULL);

  self = g_object_new (TS_TYPE_MEMORY_REPLAY, NULL);
  self->recorder = g_object_ref (recorder);
  self->min_interval = min_interval;
  self->by_events = by_events;
  first_pass (self);
  return self;
}

TsMemoryReplay *
ts_memory_replay_new (TsRecorder *recorder)
{
  return _ts_memory_replay_new_with_interval (recorder, TS_MEMORY_REPLAY_MIN_INTERVAL, FALSE);
}

/* The same replay on an axis of allocator events, as memory_viz plots:
 * every action, the frees and the OOM of one virtual instant included,
 * takes one step, so "allocated drops while reserved stays" is a stretch
 * to look at rather than one vertical edge. */
TsMemoryReplay *
ts_memory_replay_new_by_events (TsRecorder *recorder)
{
  return _ts_memory_replay_new_with_interval (recorder, TS_MEMORY_REPLAY_MIN_INTERVAL, TRUE);
}

TsTime
ts_memory_replay_get_trace_time (TsMemoryReplay *self,
                                 gsize           action)
{
  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), 0);
  g_return_val_if_fail (action < self->n_actions, 0);
  return self->by_events ? self->trace_times[action] : self->times[action];
}

gboolean
ts_memory_replay_get_by_events (TsMemoryReplay *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), FALSE);
  return self->by_events;
}

TsRecorder *
ts_memory_replay_get_recorder (TsMemoryReplay *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), NULL);
  return self->recorder;
}

gsize
ts_memory_replay_get_n_actions (TsMemoryReplay *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), 0);
  return self->n_actions;
}

guint
ts_memory_replay_get_n_devices (TsMemoryReplay *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), 0);
  return self->n_devices;
}

gsize
ts_memory_replay_get_n_skipped (TsMemoryReplay *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), 0);
  return self->n_skipped;
}

gsize
ts_memory_replay_get_n_plain (TsMemoryReplay *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), 0);
  return self->n_plain;
}

TsTime
ts_memory_replay_get_action_time (TsMemoryReplay *self,
                                  gsize           action)
{
  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), 0);
  g_return_val_if_fail (action < self->n_actions, 0);
  return self->times[action];
}

gsize
ts_memory_replay_index_at_time (TsMemoryReplay *self,
                                TsTime          time)
{
  gsize lo = 0, hi;

  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), 0);

  hi = self->n_actions;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (self->times[mid] <= time)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

guint
ts_memory_replay_get_n_allocations (TsMemoryReplay *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), 0);
  return self->allocations->len;
}

const TsMemoryAllocation *
ts_memory_replay_get_allocation (TsMemoryReplay *self,
                                 guint           id)
{
  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), NULL);
  g_return_val_if_fail (id < self->allocations->len, NULL);
  return &g_array_index (self->allocations, TsMemoryAllocation, id);
}

guint
ts_memory_replay_get_n_segments (TsMemoryReplay *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), 0);
  return self->segments->len;
}

const TsMemorySegmentInfo *
ts_memory_replay_get_segment (TsMemoryReplay *self,
                              guint           id)
{
  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), NULL);
  g_return_val_if_fail (id < self->segments->len, NULL);
  return &g_array_index (self->segments, TsMemorySegmentInfo, id);
}

guint
ts_memory_replay_get_n_ooms (TsMemoryReplay *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), 0);
  return self->ooms->len;
}

const TsMemoryOom *
ts_memory_replay_get_oom (TsMemoryReplay *self,
                          guint           index)
{
  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), NULL);
  g_return_val_if_fail (index < self->ooms->len, NULL);
  return &g_array_index (self->ooms, TsMemoryOom, index);
}

char *
ts_memory_replay_format_oom (TsMemoryReplay *self,
                             guint           index)
{
  const TsMemoryOom *o;
  g_autofree char *s_alloc = NULL, *s_total = NULL, *s_free = NULL;
  g_autofree char *s_allowed = NULL, *s_allocated = NULL, *s_unallocated = NULL;

  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), NULL);
  g_return_val_if_fail (index < self->ooms->len, NULL);

  o = &g_array_index (self->ooms, TsMemoryOom, index);
  s_alloc = ts_memory_format_size (o->alloc_size);
  s_total = ts_memory_format_size (o->device_total);
  s_free = ts_memory_format_size (o->device_free);
  s_allowed = o->allowed ? ts_memory_format_size (o->allowed) : NULL;
  s_allocated = ts_memory_format_size ((guint64) o->allocated);
  s_unallocated = ts_memory_format_size ((guint64) (o->reserved - o->allocated));

  /* The same words as the allocator's report_oom(). */
  return g_strdup_printf ("CUDA out of memory. Tried to allocate %s. GPU %u has a total capacity of %s "
                          "of which %s is free. %s%sOf the allocated memory %s is allocated by PyTorch, "
                          "and %s is reserved by PyTorch but unallocated. If reserved but unallocated "
                          "memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
                          "to avoid fragmentation.  See documentation for Memory Management  "
                          "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
                          s_alloc, o->device, s_total, s_free,
                          s_allowed ? s_allowed : "", s_allowed ? " allowed; " : "",
                          s_allocated, s_unallocated);
}

gboolean
ts_memory_replay_get_usage (TsMemoryReplay  *self,
                            guint            device,
                            guint           *n_samples,
                            const TsTime   **times,
                            const gint64   **allocated,
                            const gint64   **active,
                            const gint64   **reserved)
{
  Usage *u;

  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), FALSE);

  if (device >= self->n_devices || self->usage[device].times->len == 0)
    {
      if (n_samples)
        *n_samples = 0;
      return FALSE;
    }
  u = &self->usage[device];
  if (n_samples)
    *n_samples = u->times->len;
  if (times)
    *times = (const TsTime *) (gpointer) u->times->data;
  if (allocated)
    *allocated = (const gint64 *) (gpointer) u->allocated->data;
  if (active)
    *active = (const gint64 *) (gpointer) u->active->data;
  if (reserved)
    *reserved = (const gint64 *) (gpointer) u->reserved->data;
  return TRUE;
}

static void
emit_gap (GArray  *blocks,
          guint64  start,
          guint64  end,
          guint    segment)
{
  TsMemoryBlock b = { 0 };

  if (end <= start)
    return;
  b.address = start;
  b.size = end - start;
  b.state = TS_BLOCK_STATE_INACTIVE;
  b.allocation = TS_MEMORY_REPLAY_NONE;
  b.segment = segment;
  g_array_append_val (blocks, b);
}

TsMemoryState *
ts_memory_replay_state_at (TsMemoryReplay *self,
                           gsize           index)
{
  TsMemoryState *state;

  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), NULL);

  seek (self, index);

  state = g_new0 (TsMemoryState, 1);
  state->index = self->work_index;
  state->time = self->work_index > 0 ? self->times[self->work_index - 1] : 0;
  state->n_devices = self->n_devices;
  state->stats = g_new0 (TsMemoryStats, MAX (self->n_devices, 1));
  state->max_split_size = g_new0 (guint64, MAX (self->n_devices, 1));
  state->allowed = g_new0 (guint64, MAX (self->n_devices, 1));
  state->segments = g_array_new (FALSE, FALSE, sizeof (TsMemorySegment));
  state->blocks = g_array_new (FALSE, FALSE, sizeof (TsMemoryBlock));

  for (guint d = 0; d < self->n_devices; d++)
    {
      WDevice *w = &self->work[d];

      state->stats[d] = w->stats;
      state->max_split_size[d] = w->max_split;
      state->allowed[d] = w->allowed;

      for (guint k = 0; k < w->segs->len; k++)
        {
          const WSeg *ws = &g_array_index (w->segs, WSeg, k);
          const TsMemorySegmentInfo *si = seg_info (self, ws->id);
          TsMemorySegment seg = { 0 };
          guint index_in_state = state->segments->len;
          guint64 cursor = si->addr;

          seg.device = d;
          seg.id = ws->id;
          seg.stream = si->stream;
          seg.address = si->addr;
          seg.total_size = si->size;
          seg.is_small = si->is_small;
          seg.loc = si->loc;
          seg.is_expandable = si->is_expandable;
          seg.pool_id = si->pool_id;
          seg.first_block = state->blocks->len;

          for (guint j = 0; j < ws->n_blocks; j++)
            {
              const TsMemoryAllocation *a = alloc_info (self, ws->blocks[j]);
              TsMemoryBlock b = { 0 };

              emit_gap (state->blocks, cursor, a->addr, index_in_state);
              b.address = a->addr;
              b.size = a->size;
              b.requested_size = a->requested;
              b.state = (ws->blocks[j] & PENDING_BIT) ? TS_BLOCK_STATE_ACTIVE_PENDING_FREE
                                                      : TS_BLOCK_STATE_ACTIVE_ALLOCATED;
              b.allocation = ws->blocks[j] & ID_MASK;
              b.segment = index_in_state;
              g_array_append_val (state->blocks, b);
              cursor = a->addr + a->size;

              if (b.state == TS_BLOCK_STATE_ACTIVE_ALLOCATED)
                seg.allocated_size += a->size;
              seg.active_size += a->size;
              seg.requested_size += a->requested;
            }
          emit_gap (state->blocks, cursor, si->addr + si->size, index_in_state);
          seg.n_blocks = state->blocks->len - seg.first_block;
          g_array_append_val (state->segments, seg);
        }
    }
  return state;
}

gsize
ts_memory_replay_get_checkpoint_bytes (TsMemoryReplay *self,
                                       guint          *n_checkpoints)
{
  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (self), 0);

  if (n_checkpoints)
    *n_checkpoints = self->checkpoints->len;
  return self->checkpoints->len * sizeof (Checkpoint) +
         self->checkpoint_words->len * sizeof (guint32) +
         self->checkpoint_stats->len * sizeof (TsMemoryStats) +
         self->checkpoint_limits->len * sizeof (guint64);
}

void
ts_memory_state_free (TsMemoryState *state)
{
  if (state == NULL)
    return;
  g_free (state->stats);
  g_free (state->max_split_size);
  g_free (state->allowed);
  g_array_unref (state->segments);
  g_array_unref (state->blocks);
  g_free (state);
}

void
ts_memory_state_device_segments (const TsMemoryState *state,
                                 guint                device,
                                 guint               *first,
                                 guint               *n)
{
  guint k = 0, start;

  g_return_if_fail (state != NULL);

  while (k < state->segments->len && g_array_index (state->segments, TsMemorySegment, k).device < device)
    k++;
  start = k;
  while (k < state->segments->len && g_array_index (state->segments, TsMemorySegment, k).device == device)
    k++;
  if (first)
    *first = start;
  if (n)
    *n = k - start;
}
