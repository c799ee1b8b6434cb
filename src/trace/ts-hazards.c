/* ts-hazards.c: cross-stream hazards found in a trace, without the sanitizer
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Written by hand: no Debian library replays CUDA's ordering rules over a
 * trace of ours. The records are merged into the host's order (their host
 * times, a launch's being when its call returned; at one instant the
 * launch comes first, then its accesses, the allocator's actions in their
 * own order, then the other calls), then replayed with vector clocks.
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ts-hazards.h"
#include "ts-trace-i18n-private.h"

/* A block's accesses kept for checking: how many before the oldest reads go
 * (a weight read by every step would otherwise grow without end). */
#define MAX_ENTRIES 256
/* Freed blocks' accesses waiting for their memory to be handed out again. */
#define MAX_GHOSTS  4096

typedef struct
{
  TsTime       time;
  guint8       prio;
  guint64      sub;           /* order among equal (time, prio) */
  TsRecordKind kind;
  guint32      index;
} Step;

/* Where a launch was queued, to put its accesses right after it. */
typedef struct
{
  guint64    correlation;
  TsStreamId stream;
  TsTime     queued;
} Queued;

/* One launch, as the replay knows it. */
typedef struct
{
  TsRecordKind kind;
  guint32      record;
  guint64      correlation;
  guint32      number;        /* launches replayed before it, + 1 */
} Work;

/* One access kept in a block's shadow. */
typedef struct
{
  guint64  addr;
  guint64  size;
  guint    stream;            /* dense index */
  guint32  seq;               /* the launch's place on its stream */
  gboolean write;
  gboolean inherited;         /* from a freed block this memory was part of */
  Work     work;
} Entry;

typedef struct
{
  guint64  addr;
  guint64  size;
  gint     stream;            /* dense index of the allocating stream, -1 unknown */
  GArray  *entries;           /* Entry */
  GArray  *recorded;          /* guint: streams given to record_stream; NULL for none */
} Block;

/* The three kinds of device work, read as one. */
typedef union
{
  TsKernelRecord k;
  TsMemcpyRecord c;
  TsMemsetRecord m;
} WorkRecord;

typedef struct
{
  TsRecorder *rec;
  GHashTable *dense;          /* TsStreamId + 1 → dense index + 1 */
  GArray     *streams;        /* TsStreamId by dense index */
  GArray     *devices;        /* gint32 device by dense index, -1 unknown */
  GPtrArray  *clocks;         /* guint32[n_streams] by dense index */
  GArray     *seqs;           /* guint32 by dense index */
  GArray     *current;        /* Work by dense index: its latest launch */
  guint32    *host;
  GHashTable *events;         /* event id → guint32[n_streams] */
  GTree      *blocks;         /* addr → Block */
  GArray     *ghosts;         /* Entry */
  guint       n_streams;
  guint32     n_works;
  guint32     reported_for;   /* the launch whose pairs are in reported */
  GHashTable *reported;       /* earlier launch number → 1 */
  GHashTable *ops;            /* correlation → api-call index + 1 */
  GArray     *queued;         /* Queued, sorted by correlation once the launches are in */
  gboolean    queued_sorted;
  GArray     *hazards;
} Replay;

/* Streams --------------------------------------------------------------- */

static void
add_stream (Replay     *r,
            TsStreamId  id,
            gint32      device)
{
  gpointer slot = g_hash_table_lookup (r->dense, GUINT_TO_POINTER (id + 1));

  if (slot != NULL)
    {
      if (device >= 0)
        g_array_index (r->devices, gint32, GPOINTER_TO_UINT (slot) - 1) = device;
      return;
    }
  g_hash_table_insert (r->dense, GUINT_TO_POINTER (id + 1), GUINT_TO_POINTER (r->streams->len + 1));
  g_array_append_val (r->streams, id);
  g_array_append_val (r->devices, device);
}

/* Every stream any record names, before the clocks are sized. */
static void
collect_streams (Replay *r)
{
  static const TsRecordKind kinds[] = { TS_RECORD_KERNEL, TS_RECORD_MEMCPY, TS_RECORD_MEMSET,
                                        TS_RECORD_ACCESS, TS_RECORD_EVENT_RECORD, TS_RECORD_EVENT_WAIT };
  gsize n = ts_recorder_get_count (r->rec, TS_RECORD_STREAM);

  for (gsize i = 0; i < n; i++)
    {
      TsStreamRecord s;

      ts_recorder_get (r->rec, TS_RECORD_STREAM, i, &s);
      add_stream (r, s.stream, (gint32) s.device);
    }
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      const TsFieldInfo *field = ts_record_info_field (ts_record_info (kinds[k]), "stream");

      n = ts_recorder_get_count (r->rec, kinds[k]);
      for (gsize i = 0; i < n; i++)
        {
          guint8 buf[TS_RECORD_MAX_SIZE];
          TsStreamId id;

          ts_recorder_get (r->rec, kinds[k], i, buf);
          memcpy (&id, buf + field->offset, sizeof id);
          if (id != TS_STREAM_NONE)
            add_stream (r, id, -1);
        }
    }
  r->n_streams = r->streams->len;
}

static gint
dense (Replay     *r,
       TsStreamId  id)
{
  gpointer slot = g_hash_table_lookup (r->dense, GUINT_TO_POINTER (id + 1));

  return slot == NULL ? -1 : (gint) GPOINTER_TO_UINT (slot) - 1;
}

static void
merge (Replay        *r,
       guint32       *into,
       const guint32 *from)
{
  for (guint i = 0; i < r->n_streams; i++)
    into[i] = MAX (into[i], from[i]);
}

static guint32 *
clock_of (Replay *r,
          guint   d)
{
  return g_ptr_array_index (r->clocks, d);
}

/* Steps ----------------------------------------------------------------- */

static void
note_queued (Replay     *r,
             guint64     correlation,
             TsStreamId  stream,
             TsTime      queued)
{
  Queued q = { correlation, stream, queued };

  g_array_append_val (r->queued, q);
}

static int
compare_queued (gconstpointer a,
                gconstpointer b)
{
  const Queued *x = a, *y = b;

  if (x->correlation != y->correlation)
    return x->correlation < y->correlation ? -1 : 1;
  return x->queued < y->queued ? -1 : x->queued > y->queued;
}

/* An access is recorded once its launch returned; it takes the place of
 * that launch (the latest of its correlation and stream queued before it),
 * as nothing the host does comes between the two. */
static gboolean
access_time (Replay               *r,
             const TsAccessRecord *a,
             TsTime               *time)
{
  const Queued *q = (const Queued *) (gpointer) r->queued->data;
  guint lo = 0, hi = r->queued->len;
  gboolean found = FALSE;

  if (!r->queued_sorted)
    {
      g_array_sort (r->queued, compare_queued);
      r->queued_sorted = TRUE;
    }
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (q[mid].correlation < a->correlation)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (; lo < r->queued->len && q[lo].correlation == a->correlation; lo++)
    if (q[lo].stream == a->stream && q[lo].queued <= a->time)
      {
        *time = q[lo].queued;
        found = TRUE;
      }
  return found;
}

static void
add_steps (Replay       *r,
           GArray       *steps,
           TsRecordKind  kind)
{
  gsize n = ts_recorder_get_count (r->rec, kind);

  for (gsize i = 0; i < n; i++)
    {
      union { WorkRecord w; TsEventRecordRecord e; TsEventWaitRecord ew; TsSyncRecord s; TsAllocRecord a;
              TsAccessRecord x; } u;
      Step step = { .kind = kind, .index = (guint32) i, .sub = i, .prio = 4 };

      ts_recorder_get (r->rec, kind, i, &u);
      switch (kind)
        {
        case TS_RECORD_KERNEL: step.time = u.w.k.queued; step.prio = 1; note_queued (r, u.w.k.correlation, u.w.k.stream, step.time); break;
        case TS_RECORD_MEMCPY: step.time = u.w.c.queued; step.prio = 1; note_queued (r, u.w.c.correlation, u.w.c.stream, step.time); break;
        case TS_RECORD_MEMSET: step.time = u.w.m.queued; step.prio = 1; note_queued (r, u.w.m.correlation, u.w.m.stream, step.time); break;
        case TS_RECORD_EVENT_RECORD: step.time = u.e.queued; break;
        case TS_RECORD_EVENT_WAIT: step.time = u.ew.queued; break;
        case TS_RECORD_SYNC: step.time = u.s.start; break;
        case TS_RECORD_ACCESS:
          /* record_stream goes among the allocator's actions: its
           * correlation counts those before it */
          step.time = u.x.time;
          if (u.x.mode == TS_ACCESS_RECORD_STREAM)
            {
              step.prio = 3;
              step.sub = 2 * u.x.correlation;
            }
          else if (access_time (r, &u.x, &step.time))
            step.prio = 2;
          else
            continue;   /* its launch left no work record (a graph capture) */
          break;
        case TS_RECORD_ALLOC:
          if (u.a.action != TS_ALLOC_ACTION_ALLOC && u.a.action != TS_ALLOC_ACTION_FREE_REQUESTED)
            continue;
          /* a launch's time is when its call returned: an allocation for
           * it comes earlier, a free at the same instant after it */
          step.time = u.a.time;
          step.prio = 3;
          step.sub = 2 * (guint64) i + 1;
          break;
        default:
          g_assert_not_reached ();
        }
      g_array_append_val (steps, step);
    }
}

static int
compare_steps (gconstpointer a,
               gconstpointer b)
{
  const Step *x = a, *y = b;

  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  if (x->prio != y->prio)
    return x->prio < y->prio ? -1 : 1;
  if (x->sub != y->sub)
    return x->sub < y->sub ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Blocks ---------------------------------------------------------------- */

static int
compare_addr (gconstpointer a,
              gconstpointer b,
              gpointer      user_data)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

static void
block_free (gpointer data)
{
  Block *b = data;

  g_array_unref (b->entries);
  if (b->recorded != NULL)
    g_array_unref (b->recorded);
  g_free (b);
}

static Block *
block_new (Replay  *r,
           guint64  addr,
           guint64  size,
           gint     stream)
{
  Block *b = g_new0 (Block, 1);

  b->addr = addr;
  b->size = size;
  b->stream = stream;
  b->entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  g_tree_replace (r->blocks, &b->addr, b);
  return b;
}

/* The block holding addr, or NULL. */
static Block *
block_at (Replay  *r,
          guint64  addr)
{
  GTreeNode *node = g_tree_upper_bound (r->blocks, &addr);
  Block *b;

  node = node != NULL ? g_tree_node_previous (node) : g_tree_node_last (r->blocks);
  if (node == NULL)
    return NULL;
  b = g_tree_node_value (node);
  return addr - b->addr < MAX (b->size, 1) ? b : NULL;
}

static gboolean
overlaps (guint64 a,
          guint64 an,
          guint64 b,
          guint64 bn)
{
  return a < b + bn && b < a + an;
}

static gboolean
host_passed (Replay      *r,
             const Entry *e)
{
  return e->seq <= r->host[e->stream];
}

/* The memory is free: what may still use it waits for its next owner. */
static void
block_release (Replay *r,
               Block  *b)
{
  for (guint i = 0; i < b->entries->len; i++)
    {
      Entry e = g_array_index (b->entries, Entry, i);
      gboolean recorded = FALSE;

      for (guint k = 0; b->recorded != NULL && k < b->recorded->len; k++)
        recorded |= g_array_index (b->recorded, guint, k) == e.stream;
      if (recorded || (gint) e.stream == b->stream || host_passed (r, &e))
        continue;
      e.inherited = TRUE;
      if (r->ghosts->len >= MAX_GHOSTS)
        g_array_remove_index (r->ghosts, 0);
      g_array_append_val (r->ghosts, e);
    }
  g_tree_remove (r->blocks, &b->addr);
}

static void
block_take (Replay              *r,
            const TsAllocRecord *a)
{
  Block *b = block_new (r, a->addr, a->size, dense (r, a->stream));

  for (guint i = 0; i < r->ghosts->len; )
    {
      Entry *e = &g_array_index (r->ghosts, Entry, i);

      if (host_passed (r, e))
        g_array_remove_index (r->ghosts, i);
      else if (overlaps (e->addr, e->size, a->addr, MAX (a->size, 1)))
        {
          g_array_append_val (b->entries, *e);
          g_array_remove_index (r->ghosts, i);
        }
      else
        i++;
    }
}

/* Checking -------------------------------------------------------------- */

static void
side_init (Replay       *r,
           TsHazardSide *side,
           const Work   *w,
           guint         stream,
           gboolean      write)
{
  side->kind = w->kind;
  side->record = w->record;
  side->correlation = w->correlation;
  side->stream = g_array_index (r->streams, TsStreamId, stream);
  side->is_write = write;
}

static void
report (Replay       *r,
        const Entry  *prev,
        const Entry  *cur)
{
  TsHazard h = { .kind = prev->inherited ? TS_HAZARD_REUSE : TS_HAZARD_RACE };
  WorkRecord u;
  guint64 lo = MAX (prev->addr, cur->addr), hi = MIN (prev->addr + prev->size, cur->addr + cur->size);

  if (r->reported_for != cur->work.number)
    {
      g_hash_table_remove_all (r->reported);
      r->reported_for = cur->work.number;
    }
  if (g_hash_table_contains (r->reported, GUINT_TO_POINTER (prev->work.number)))
    return;
  g_hash_table_add (r->reported, GUINT_TO_POINTER (prev->work.number));

  h.addr = lo;
  h.size = hi - lo;
  side_init (r, &h.current, &cur->work, cur->stream, cur->write);
  side_init (r, &h.previous, &prev->work, prev->stream, prev->write);
  if (ts_recorder_get (r->rec, cur->work.kind, cur->work.record, &u))
    h.time = cur->work.kind == TS_RECORD_KERNEL ? u.k.start : cur->work.kind == TS_RECORD_MEMCPY ? u.c.start : u.m.start;
  g_array_append_val (r->hazards, h);
}

static void
check_entries (Replay      *r,
               GArray      *entries,
               const Entry *x)
{
  const guint32 *clock = clock_of (r, x->stream);

  for (guint i = 0; i < entries->len; i++)
    {
      const Entry *e = &g_array_index (entries, Entry, i);

      if (e->stream == x->stream || e->seq <= clock[e->stream] ||
          !overlaps (e->addr, e->size, x->addr, x->size))
        continue;
      if (x->write || e->write || e->inherited)
        report (r, e, x);
    }
}

/* What stays in the shadow after x: a write replaces everything it covers
 * (each was checked against it); a read replaces its stream's reads it
 * covers (a later access ordered after x is ordered after them). Inherited
 * accesses are checked by the first access only. */
static void
update_entries (GArray      *entries,
                const Entry *x)
{
  for (guint i = 0; i < entries->len; )
    {
      const Entry *e = &g_array_index (entries, Entry, i);
      gboolean covered = e->addr >= x->addr && e->addr + e->size <= x->addr + x->size;

      if ((e->inherited && overlaps (e->addr, e->size, x->addr, x->size)) ||
          (covered && (x->write || (e->stream == x->stream && !e->write))))
        g_array_remove_index (entries, i);
      else
        i++;
    }
  if (entries->len >= MAX_ENTRIES)
    g_array_remove_index (entries, 0);
  g_array_append_val (entries, *x);
}

static void
replay_access (Replay               *r,
               const TsAccessRecord *a)
{
  gint d = dense (r, a->stream);
  Block *b;
  Entry x;

  if (d < 0 || a->size == 0)
    return;
  b = block_at (r, a->addr);
  if (a->mode == TS_ACCESS_RECORD_STREAM)
    {
      if (b != NULL && b->recorded == NULL)
        b->recorded = g_array_new (FALSE, FALSE, sizeof (guint));
      if (b != NULL)
        g_array_append_val (b->recorded, d);
      return;
    }
  x = (Entry) { .addr = a->addr, .size = a->size, .stream = (guint) d, .write = a->mode == TS_ACCESS_WRITE,
                .work = g_array_index (r->current, Work, d) };
  if (x.work.number == 0)
    return;
  x.seq = g_array_index (r->seqs, guint32, d);
  /* memory no allocation of the trace covers (imported, external) */
  if (b == NULL)
    b = block_new (r, a->addr, a->size, -1);
  check_entries (r, b->entries, &x);
  update_entries (b->entries, &x);
}

/* Replay ---------------------------------------------------------------- */

static void
replay_work (Replay       *r,
             TsRecordKind  kind,
             guint32       index)
{
  WorkRecord u;
  guint64 correlation;
  TsStreamId stream;
  guint32 *clock;
  gint d;

  ts_recorder_get (r->rec, kind, index, &u);
  correlation = kind == TS_RECORD_KERNEL ? u.k.correlation : kind == TS_RECORD_MEMCPY ? u.c.correlation : u.m.correlation;
  stream = kind == TS_RECORD_KERNEL ? u.k.stream : kind == TS_RECORD_MEMCPY ? u.c.stream : u.m.stream;
  if ((d = dense (r, stream)) < 0)
    return;
  clock = clock_of (r, d);
  /* the host queued it after everything it had waited for */
  merge (r, clock, r->host);
  clock[d] = ++g_array_index (r->seqs, guint32, d);
  g_array_index (r->current, Work, d) = (Work) { kind, index, correlation, ++r->n_works };
}

static void
sync_stream (Replay     *r,
             TsStreamId  stream)
{
  gint d = dense (r, stream);

  if (d >= 0)
    merge (r, r->host, clock_of (r, d));
}

static void
replay_sync (Replay             *r,
             const TsSyncRecord *s)
{
  const guint32 *recorded;

  switch (s->kind)
    {
    case TS_SYNC_DEVICE:
      for (guint d = 0; d < r->n_streams; d++)
        {
          gint32 device = g_array_index (r->devices, gint32, d);

          if (s->device < 0 || device < 0 || device == s->device)
            merge (r, r->host, clock_of (r, d));
        }
      break;
    case TS_SYNC_STREAM:
    case TS_SYNC_COPY:
      sync_stream (r, s->stream);
      break;
    case TS_SYNC_EVENT:
      if ((recorded = g_hash_table_lookup (r->events, &s->event)) != NULL)
        merge (r, r->host, recorded);
      break;
    default:
      break;
    }
}

static void
replay_step (Replay     *r,
             const Step *step)
{
  union { TsEventRecordRecord e; TsEventWaitRecord w; TsSyncRecord s; TsAllocRecord a; TsAccessRecord x; } u;
  const guint32 *recorded;
  Block *b;
  gint d;

  if (step->kind == TS_RECORD_KERNEL || step->kind == TS_RECORD_MEMCPY || step->kind == TS_RECORD_MEMSET)
    {
      replay_work (r, step->kind, step->index);
      return;
    }
  ts_recorder_get (r->rec, step->kind, step->index, &u);
  switch (step->kind)
    {
    case TS_RECORD_ACCESS:
      replay_access (r, &u.x);
      break;
    case TS_RECORD_EVENT_RECORD:
      if ((d = dense (r, u.e.stream)) >= 0)
        g_hash_table_replace (r->events, g_memdup2 (&u.e.event, sizeof u.e.event),
                              g_memdup2 (clock_of (r, d), r->n_streams * sizeof (guint32)));
      break;
    case TS_RECORD_EVENT_WAIT:
      if ((d = dense (r, u.w.stream)) >= 0 && (recorded = g_hash_table_lookup (r->events, &u.w.event)) != NULL)
        merge (r, clock_of (r, d), recorded);
      break;
    case TS_RECORD_SYNC:
      replay_sync (r, &u.s);
      break;
    case TS_RECORD_ALLOC:
      if (u.a.action == TS_ALLOC_ACTION_ALLOC)
        block_take (r, &u.a);
      else if ((b = g_tree_lookup (r->blocks, &u.a.addr)) != NULL)
        block_release (r, b);
      break;
    default:
      g_assert_not_reached ();
    }
}

/* An operator's span ("aten::sum") names a launch better than the runtime
 * call inside it (cudaLaunchKernel), which shares its correlation id. */
static gboolean
better_op (TsRecorder            *rec,
           const TsApiCallRecord *c,
           const TsApiCallRecord *old)
{
  gboolean c_runtime = g_str_has_prefix (ts_recorder_lookup (rec, c->name), "cuda");
  gboolean old_runtime = g_str_has_prefix (ts_recorder_lookup (rec, old->name), "cuda");

  if (c_runtime != old_runtime)
    return old_runtime;
  return c->start < old->start || (c->start == old->start && c->end > old->end);
}

/* Each kind's records come in about the host's order already: a run per
 * kind, sorted on its own (a check when it is in order), then merged by
 * picking the least head of the few runs, rather than sorting them all
 * together (a third of the time on a million steps). */
static void
replay_merged (Replay      *r,
               GArray      *steps,
               guint       *runs,
               guint        n_runs)
{
  Step *all = (Step *) (gpointer) steps->data;
  guint heads[16];

  g_assert (n_runs <= G_N_ELEMENTS (heads));
  for (guint k = 0; k < n_runs; k++)
    {
      heads[k] = runs[k];
      for (guint i = runs[k] + 1; i < runs[k + 1]; i++)
        if (compare_steps (&all[i - 1], &all[i]) > 0)
          {
            qsort (all + runs[k], runs[k + 1] - runs[k], sizeof (Step), compare_steps);
            break;
          }
    }
  for (;;)
    {
      gint best = -1;

      for (guint k = 0; k < n_runs; k++)
        if (heads[k] < runs[k + 1] && (best < 0 || compare_steps (&all[heads[k]], &all[heads[best]]) < 0))
          best = (gint) k;
      if (best < 0)
        break;
      replay_step (r, &all[heads[best]++]);
    }
}

/* The operator each correlation id belongs to. */
static void
index_ops (Replay *r)
{
  gsize n = ts_recorder_get_count (r->rec, TS_RECORD_API_CALL);

  r->ops = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  for (gsize i = 0; i < n; i++)
    {
      TsApiCallRecord c, old;
      gpointer slot;

      ts_recorder_get (r->rec, TS_RECORD_API_CALL, i, &c);
      if (c.correlation == 0)
        continue;
      slot = g_hash_table_lookup (r->ops, &c.correlation);
      if (slot != NULL && ts_recorder_get (r->rec, TS_RECORD_API_CALL, GPOINTER_TO_SIZE (slot) - 1, &old) &&
          !better_op (r->rec, &c, &old))
        continue;
      g_hash_table_replace (r->ops, g_memdup2 (&c.correlation, sizeof c.correlation), GSIZE_TO_POINTER (i + 1));
    }
}

static void
side_name (Replay       *r,
           TsHazardSide *side)
{
  gpointer slot = g_hash_table_lookup (r->ops, &side->correlation);
  TsApiCallRecord c;
  TsKernelRecord k;

  if (slot != NULL && ts_recorder_get (r->rec, TS_RECORD_API_CALL, GPOINTER_TO_SIZE (slot) - 1, &c))
    {
      side->op = c.name;
      side->loc = c.loc;
    }
  else if (side->kind == TS_RECORD_KERNEL && ts_recorder_get (r->rec, TS_RECORD_KERNEL, side->record, &k))
    side->op = k.name;
}

static void
replay_clear (Replay *r)
{
  g_clear_pointer (&r->dense, g_hash_table_unref);
  g_clear_pointer (&r->streams, g_array_unref);
  g_clear_pointer (&r->devices, g_array_unref);
  g_clear_pointer (&r->clocks, g_ptr_array_unref);
  g_clear_pointer (&r->seqs, g_array_unref);
  g_clear_pointer (&r->current, g_array_unref);
  g_clear_pointer (&r->host, g_free);
  g_clear_pointer (&r->events, g_hash_table_unref);
  g_clear_pointer (&r->blocks, g_tree_unref);
  g_clear_pointer (&r->ghosts, g_array_unref);
  g_clear_pointer (&r->reported, g_hash_table_unref);
  g_clear_pointer (&r->ops, g_hash_table_unref);
  g_clear_pointer (&r->queued, g_array_unref);
}

GArray *
ts_hazards_find (TsRecorder *recorder)
{
  static const TsRecordKind kinds[] = { TS_RECORD_KERNEL, TS_RECORD_MEMCPY, TS_RECORD_MEMSET, TS_RECORD_ACCESS,
                                        TS_RECORD_EVENT_RECORD, TS_RECORD_EVENT_WAIT, TS_RECORD_SYNC,
                                        TS_RECORD_ALLOC };
  g_autoptr(GArray) steps = NULL;
  guint runs[G_N_ELEMENTS (kinds) + 1];
  Replay r = { .rec = recorder };

  g_return_val_if_fail (TS_IS_RECORDER (recorder), NULL);

  r.hazards = g_array_new (FALSE, TRUE, sizeof (TsHazard));
  if (ts_recorder_get_count (recorder, TS_RECORD_ACCESS) == 0)
    return r.hazards;

  r.dense = g_hash_table_new (NULL, NULL);
  r.streams = g_array_new (FALSE, FALSE, sizeof (TsStreamId));
  r.devices = g_array_new (FALSE, FALSE, sizeof (gint32));
  collect_streams (&r);
  r.clocks = g_ptr_array_new_with_free_func (g_free);
  for (guint d = 0; d < r.n_streams; d++)
    g_ptr_array_add (r.clocks, g_new0 (guint32, r.n_streams));
  r.seqs = g_array_set_size (g_array_new (FALSE, TRUE, sizeof (guint32)), r.n_streams);
  r.current = g_array_set_size (g_array_new (FALSE, TRUE, sizeof (Work)), r.n_streams);
  r.host = g_new0 (guint32, MAX (r.n_streams, 1));
  r.events = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  r.blocks = g_tree_new_full (compare_addr, NULL, NULL, block_free);
  r.ghosts = g_array_new (FALSE, FALSE, sizeof (Entry));
  r.reported = g_hash_table_new (NULL, NULL);
  r.queued = g_array_new (FALSE, FALSE, sizeof (Queued));

  steps = g_array_new (FALSE, FALSE, sizeof (Step));
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      runs[k] = steps->len;
      add_steps (&r, steps, kinds[k]);
    }
  runs[G_N_ELEMENTS (kinds)] = steps->len;
  replay_merged (&r, steps, runs, G_N_ELEMENTS (kinds));

  if (r.hazards->len > 0)
    {
      index_ops (&r);
      for (guint i = 0; i < r.hazards->len; i++)
        {
          TsHazard *h = &g_array_index (r.hazards, TsHazard, i);

          side_name (&r, &h->current);
          side_name (&r, &h->previous);
        }
    }
  replay_clear (&r);
  return r.hazards;
}

/* Explanations ---------------------------------------------------------- */

static gboolean
stream_is_default (TsRecorder *recorder,
                   TsStreamId  stream)
{
  gsize n = ts_recorder_get_count (recorder, TS_RECORD_STREAM);

  for (gsize i = 0; i < n; i++)
    {
      TsStreamRecord s;

      if (ts_recorder_get (recorder, TS_RECORD_STREAM, i, &s) && s.stream == stream)
        return s.is_default != 0;
    }
  return FALSE;
}

static char *
stream_name (TsRecorder *recorder,
             TsStreamId  stream)
{
  if (stream_is_default (recorder, stream))
    return g_strdup (_("the default stream"));
  return g_strdup_printf (_("stream %u"), stream);
}

/* The Python that names the stream in the fix. */
static char *
stream_code (TsRecorder *recorder,
             TsStreamId  stream,
             TsStreamId  other)
{
  if (stream_is_default (recorder, stream))
    return g_strdup ("torch.cuda.default_stream()");
  if (stream_is_default (recorder, other))
    return g_strdup ("s");
  return g_strdup_printf ("s%u", stream);
}

static char *
op_name (TsRecorder         *recorder,
         const TsHazardSide *side)
{
  const char *name = side->op != 0 ? ts_recorder_lookup (recorder, side->op) : NULL;

  if (name == NULL || *name == '\0')
    return g_strdup (side->kind == TS_RECORD_MEMCPY ? _("a copy") : _("a kernel"));
  if (g_str_has_prefix (name, "aten::"))
    name += strlen ("aten::");
  return g_strdup_printf ("`%s`", name);
}

char *
ts_hazard_title (const TsHazard *hazard,
                 TsRecorder     *recorder)
{
  g_autofree char *cur = NULL, *prev = NULL, *cur_stream = NULL, *prev_stream = NULL;

  g_return_val_if_fail (hazard != NULL, NULL);
  g_return_val_if_fail (TS_IS_RECORDER (recorder), NULL);

  _ts_trace_i18n_init ();
  cur = op_name (recorder, &hazard->current);
  prev = op_name (recorder, &hazard->previous);
  cur_stream = stream_name (recorder, hazard->current.stream);
  prev_stream = stream_name (recorder, hazard->previous.stream);
  /* TRANSLATORS: "`sum` on stream 4 and `normal_` on the default stream" */
  return g_strdup_printf (_("%s on %s and %s on %s"), cur, cur_stream, prev, prev_stream);
}

char *
ts_hazard_explain (const TsHazard *hazard,
                   TsRecorder     *recorder)
{
  g_autofree char *cur = NULL, *prev = NULL, *cur_stream = NULL, *prev_stream = NULL;
  g_autofree char *waiter = NULL, *waitee = NULL;
  const TsHazardSide *c, *p;
  GString *s;

  g_return_val_if_fail (hazard != NULL, NULL);
  g_return_val_if_fail (TS_IS_RECORDER (recorder), NULL);

  _ts_trace_i18n_init ();
  c = &hazard->current;
  p = &hazard->previous;
  cur = op_name (recorder, c);
  prev = op_name (recorder, p);
  cur_stream = stream_name (recorder, c->stream);
  prev_stream = stream_name (recorder, p->stream);
  waiter = stream_code (recorder, c->stream, p->stream);
  waitee = stream_code (recorder, p->stream, c->stream);
  s = g_string_new (NULL);

  if (hazard->kind == TS_HAZARD_REUSE)
    {
      /* TRANSLATORS: "`add` on the default stream uses memory that was freed and
       * handed out again while `sum` on stream 4 may still use it ..." */
      g_string_append_printf (s, _("%s on %s uses memory that was freed and handed out again while %s on %s "
                                   "may still use it, with nothing ordering them."),
                              cur, cur_stream, prev, prev_stream);
      g_string_append_c (s, ' ');
      g_string_append_printf (s, _("Fix: call record_stream(%s) on the tensor %s used before freeing it, "
                                   "or keep the tensor alive until %s has passed %s."),
                              waitee, prev, prev_stream, prev);
      return g_string_free (s, FALSE);
    }

  if (c->is_write && p->is_write)
    g_string_append_printf (s, _("%s on %s and %s on %s both write the same memory, with nothing ordering them."),
                            cur, cur_stream, prev, prev_stream);
  else if (c->is_write)
    g_string_append_printf (s, _("%s on %s writes memory that %s on %s reads, with nothing ordering them."),
                            cur, cur_stream, prev, prev_stream);
  else
    g_string_append_printf (s, _("%s on %s reads memory that %s on %s writes, with nothing ordering them."),
                            cur, cur_stream, prev, prev_stream);
  g_string_append_c (s, ' ');
  /* TRANSLATORS: "Fix: record an event after `normal_` and make stream 4 wait for it before `sum`
   * (s.wait_stream(torch.cuda.default_stream()))." */
  g_string_append_printf (s, _("Fix: record an event after %s and make %s wait for it before %s (%s.wait_stream(%s))."),
                          prev, cur_stream, cur, waiter, waitee);
  return g_string_free (s, FALSE);
}
