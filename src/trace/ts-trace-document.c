/* ts-trace-document.c: a recorded run, indexed for viewing
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ts-trace-document.h"

struct _TsTraceDocument
{
  GObject     parent_instance;

  TsRecorder *recorder;
  GPtrArray  *tracks;           /* TsTrack*, in display order */
  GArray     *event_links;      /* TsEventLink */
  GArray     *hazards;          /* TsHazard, found at the first request */
  GArray     *api_by_corr;      /* CorrEntry sorted by correlation: API record */
  GArray     *work_by_corr;     /* CorrEntry: (item kind << 32) | record */
  /* Per item kind, indexed by record: (track << 32) | item, or G_MAXUINT64.
   * Dense arrays rather than hash tables: a 10M-record trace fills them in
   * one pass without an allocation per record. */
  guint64    *locations[TS_ITEM_NVTX_MARK + 1];
  gsize       n_locations[TS_ITEM_NVTX_MARK + 1];
  TsTime      begin;
  TsTime      end;
};

G_DEFINE_FINAL_TYPE (TsTraceDocument, ts_trace_document, G_TYPE_OBJECT)

/* An item of the slow sorting path (a run that arrived far out of order). */
typedef struct
{
  TsTime     start;
  TsTime     end;
  guint32    record;
  TsStringId label;
  guint8     kind;
} PendingItem;

/* Items reach a track from up to six sources (API calls, syncs, kernels,
 * copies, memsets, NVTX), one source after the other: each source's items
 * form a run of the columns. Runs mostly arrive sorted (a stream runs its
 * work in order); those that do not are sorted alone, then the runs are
 * merged in place. */
#define MAX_RUNS 8

typedef struct
{
  TsTrack *track;
  guint    n_alloc;             /* room in the item columns */
  guint    n_expected;          /* items counted before allocating */
  guint    n_runs;
  guint    runs[MAX_RUNS + 1];  /* run r is [runs[r], runs[r + 1]) */
  guint32  unsorted;            /* bit r: run r is out of order */
  guint8   source;              /* the source of the last item */
  GArray  *samples;             /* MemorySample, memory tracks only */
} TrackBuilder;

typedef struct
{
  TsTime time;
  gint64 allocated;
  gint64 reserved;
} MemorySample;

typedef struct
{
  guint64 correlation;
  guint64 value;
} CorrEntry;

static void
track_free (TsTrack *track)
{
  g_free (track->title);
  g_free (track->starts);
  g_free (track->ends);
  g_free (track->max_ends);
  g_free (track->kinds);
  g_free (track->depths);
  g_free (track->records);
  g_free (track->labels);
  g_free (track->lane_offsets);
  g_free (track->lane_items);
  g_free (track->sample_times);
  g_free (track->allocated);
  g_free (track->reserved);
  g_free (track);
}

static void
ts_trace_document_finalize (GObject *object)
{
  TsTraceDocument *self = (TsTraceDocument *) object;

  g_clear_pointer (&self->tracks, g_ptr_array_unref);
  g_clear_pointer (&self->event_links, g_array_unref);
  g_clear_pointer (&self->hazards, g_array_unref);
  g_clear_pointer (&self->api_by_corr, g_array_unref);
  g_clear_pointer (&self->work_by_corr, g_array_unref);
  for (guint k = 0; k < G_N_ELEMENTS (self->locations); k++)
    g_clear_pointer (&self->locations[k], g_free);
  g_clear_object (&self->recorder);

  G_OBJECT_CLASS (ts_trace_document_parent_class)->finalize (object);
}

static void
ts_trace_document_class_init (TsTraceDocumentClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ts_trace_document_finalize;
}

static void
ts_trace_document_init (TsTraceDocument *self)
{
  self->tracks = g_ptr_array_new_with_free_func ((GDestroyNotify) track_free);
  self->event_links = g_array_new (FALSE, FALSE, sizeof (TsEventLink));
  self->api_by_corr = g_array_new (FALSE, FALSE, sizeof (CorrEntry));
  self->work_by_corr = g_array_new (FALSE, FALSE, sizeof (CorrEntry));
}

static void
span_extend (TsTraceDocument *self,
             TsTime           start,
             TsTime           end)
{
  self->begin = MIN (self->begin, start);
  self->end = MAX (self->end, end);
}

static TrackBuilder *
builder_new (TsTrackKind kind)
{
  TrackBuilder *b = g_new0 (TrackBuilder, 1);

  b->track = g_new0 (TsTrack, 1);
  b->track->kind = kind;
  b->track->device = -1;
  b->track->stream = TS_STREAM_NONE;
  return b;
}

/* The item columns, sized once (to the counted items) or, for the few
 * sources not counted ahead (NVTX), grown by doubling. */
static void
builder_reserve (TrackBuilder *b,
                 guint         n_alloc)
{
  TsTrack *t = b->track;

  g_assert (n_alloc >= t->n_items);
  t->starts = g_renew (TsTime, t->starts, n_alloc);
  t->ends = g_renew (TsTime, t->ends, n_alloc);
  t->kinds = g_renew (guint8, t->kinds, n_alloc);
  t->records = g_renew (guint32, t->records, n_alloc);
  t->labels = g_renew (TsStringId, t->labels, n_alloc);
  b->n_alloc = n_alloc;
}

/* The order of compare_items(), on values: start, then the enclosing
 * (longer) item first so that nesting depths come out right, then kind and
 * record (unique together), so the order is total. */
static inline int
item_cmp (TsTime  s1,
          TsTime  e1,
          guint8  k1,
          guint32 r1,
          TsTime  s2,
          TsTime  e2,
          guint8  k2,
          guint32 r2)
{
  if (s1 != s2)
    return s1 < s2 ? -1 : 1;
  if (e1 != e2)
    return e1 > e2 ? -1 : 1;
  if (k1 != k2)
    return k1 < k2 ? -1 : 1;
  return r1 < r2 ? -1 : r1 > r2;
}

static inline int
column_cmp (const TsTrack *t,
            guint          i,
            guint          j)
{
  return item_cmp (t->starts[i], t->ends[i], t->kinds[i], t->records[i],
                   t->starts[j], t->ends[j], t->kinds[j], t->records[j]);
}

static inline void
builder_add (TrackBuilder *b,
             TsItemKind    kind,
             TsTime        start,
             TsTime        end,
             guint32       record,
             TsStringId    label)
{
  TsTrack *t = b->track;
  guint8 source = kind == TS_ITEM_NVTX_MARK ? TS_ITEM_NVTX_RANGE : kind;
  guint i = t->n_items;

  if G_UNLIKELY (i == b->n_alloc)
    builder_reserve (b, MAX (64, b->n_alloc * 2));

  t->starts[i] = start;
  t->ends[i] = MAX (start, end);
  t->kinds[i] = kind;
  t->records[i] = record;
  t->labels[i] = label;
  t->n_items = i + 1;

  if (source != b->source)
    {
      g_assert (b->n_runs < MAX_RUNS);
      b->runs[b->n_runs++] = i;
      b->source = source;
    }
  else if (column_cmp (t, i - 1, i) > 0)
    b->unsorted |= 1u << (b->n_runs - 1);
}

static int
compare_items (gconstpointer a,
               gconstpointer b)
{
  const PendingItem *x = a, *y = b;

  return item_cmp (x->start, x->end, x->kind, x->record, y->start, y->end, y->kind, y->record);
}

static inline void
column_move (TsTrack *t,
             guint    to,
             guint    from,
             guint    n)
{
  memmove (t->starts + to, t->starts + from, n * sizeof (TsTime));
  memmove (t->ends + to, t->ends + from, n * sizeof (TsTime));
  memmove (t->kinds + to, t->kinds + from, n * sizeof (guint8));
  memmove (t->records + to, t->records + from, n * sizeof (guint32));
  memmove (t->labels + to, t->labels + from, n * sizeof (TsStringId));
}

/* Any order: through an array of structs and qsort(). */
static void
sort_run_slow (TsTrack *t,
               guint    lo,
               guint    hi)
{
  g_autofree PendingItem *items = g_new (PendingItem, hi - lo);

  for (guint i = lo; i < hi; i++)
    items[i - lo] = (PendingItem) { t->starts[i], t->ends[i], t->records[i], t->labels[i], t->kinds[i] };
  qsort (items, hi - lo, sizeof (PendingItem), compare_items);
  for (guint i = lo; i < hi; i++)
    {
      const PendingItem *item = &items[i - lo];

      t->starts[i] = item->start;
      t->ends[i] = item->end;
      t->kinds[i] = item->kind;
      t->records[i] = item->record;
      t->labels[i] = item->label;
    }
}

/* A run that is nearly in order: host API calls are recorded when they
 * return, so an enclosing call comes right after the calls it encloses.
 * Insertion (a binary search in the sorted prefix, then one move) costs
 * the number of items an item jumps over; past a budget, sort outright. */
static void
sort_run (TsTrack *t,
          guint    lo,
          guint    hi)
{
  guint64 budget = 8 * (guint64) (hi - lo) + 65536;
  guint64 moved = 0;

  for (guint i = lo + 1; i < hi; i++)
    {
      TsTime s = t->starts[i], e = t->ends[i];
      guint8 k = t->kinds[i];
      guint32 r = t->records[i], label = t->labels[i];
      guint a = lo, z = i;

      if (column_cmp (t, i - 1, i) < 0)
        continue;
      /* The first item of the sorted prefix [lo, i) that goes after it. */
      while (a < z)
        {
          guint mid = a + (z - a) / 2;

          if (item_cmp (t->starts[mid], t->ends[mid], t->kinds[mid], t->records[mid], s, e, k, r) < 0)
            a = mid + 1;
          else
            z = mid;
        }
      moved += i - a;
      if (moved > budget)
        {
          sort_run_slow (t, lo, hi);
          return;
        }
      column_move (t, a + 1, a, i - a);
      t->starts[a] = s;
      t->ends[a] = e;
      t->kinds[a] = k;
      t->records[a] = r;
      t->labels[a] = label;
    }
}

/* Merges the sorted run [mid, hi) into the sorted items [0, mid), from
 * the back, through a copy of the run: no second set of columns. */
static void
merge_runs (TsTrack *t,
            guint    mid,
            guint    hi)
{
  guint n = hi - mid;
  g_autofree TsTime *s = NULL, *e = NULL;
  g_autofree guint8 *k = NULL;
  g_autofree guint32 *r = NULL, *l = NULL;
  guint i, j, out;

  if (mid == 0 || n == 0 || column_cmp (t, mid - 1, mid) < 0)
    return;

  s = g_memdup2 (t->starts + mid, n * sizeof (TsTime));
  e = g_memdup2 (t->ends + mid, n * sizeof (TsTime));
  k = g_memdup2 (t->kinds + mid, n * sizeof (guint8));
  r = g_memdup2 (t->records + mid, n * sizeof (guint32));
  l = g_memdup2 (t->labels + mid, n * sizeof (TsStringId));

  i = mid, j = n, out = hi;
  while (j > 0)
    {
      out--;
      if (i > 0 && item_cmp (t->starts[i - 1], t->ends[i - 1], t->kinds[i - 1], t->records[i - 1],
                             s[j - 1], e[j - 1], k[j - 1], r[j - 1]) > 0)
        {
          i--;
          t->starts[out] = t->starts[i];
          t->ends[out] = t->ends[i];
          t->kinds[out] = t->kinds[i];
          t->records[out] = t->records[i];
          t->labels[out] = t->labels[i];
        }
      else
        {
          j--;
          t->starts[out] = s[j];
          t->ends[out] = e[j];
          t->kinds[out] = k[j];
          t->records[out] = r[j];
          t->labels[out] = l[j];
        }
    }
}

static void
builder_sort (TrackBuilder *b)
{
  TsTrack *t = b->track;

  b->runs[b->n_runs] = t->n_items;
  for (guint r = 0; r < b->n_runs; r++)
    if (b->unsorted & (1u << r))
      sort_run (t, b->runs[r], b->runs[r + 1]);
  for (guint r = 1; r < b->n_runs; r++)
    merge_runs (t, b->runs[r], b->runs[r + 1]);
}

/* Gives each item its nesting depth (items on one track may nest, as an
 * aten op around its cudaLaunchKernel, but never cross), the running max
 * of ends and its place in the document's location tables, all in one
 * pass; then splits the items by depth into lanes (a counting sort keeps
 * start order within each depth). Tracks without nesting need no lanes. */
static void
track_index (TsTrack  *t,
             guint     track_index_,
             guint64 **locations,
             gsize    *n_locations)
{
  TsTime stack[256];
  guint depth = 0;
  guint n = t->n_items;
  TsTime max_end = G_MININT64;
  guint histogram[G_MAXUINT8 + 1] = { 0 };
  guint64 where = (guint64) track_index_ << 32;
  guint *fill;

  t->max_ends = g_new (TsTime, n);
  t->depths = g_new (guint8, n);
  for (guint i = 0; i < n; i++)
    {
      TsTime start = t->starts[i], end = t->ends[i];
      guint8 d;
      guint k = t->kinds[i];

      /* Pop the enclosing items that ended by the time this one starts. */
      while (depth > 0 && stack[depth - 1] <= start)
        depth--;

      max_end = MAX (max_end, end);
      t->max_ends[i] = max_end;
      d = MIN (depth, G_MAXUINT8);
      t->depths[i] = d;
      histogram[d]++;
      if (t->records[i] < n_locations[k])
        locations[k][t->records[i]] = where | i;

      if (depth < G_N_ELEMENTS (stack))
        stack[depth++] = end;
    }

  for (guint d = 0; d <= G_MAXUINT8; d++)
    if (histogram[d] != 0)
      t->max_depth = d + 1;
  if (t->max_depth <= 1)
    return;

  t->lane_offsets = g_new (guint, t->max_depth + 1);
  t->lane_offsets[0] = 0;
  for (guint d = 0; d < t->max_depth; d++)
    t->lane_offsets[d + 1] = t->lane_offsets[d] + histogram[d];

  t->lane_items = g_new (guint32, n);
  fill = g_memdup2 (t->lane_offsets, sizeof (guint) * t->max_depth);
  for (guint i = 0; i < n; i++)
    t->lane_items[fill[t->depths[i]]++] = i;
  g_free (fill);
}

/* Sorts the items and turns the memory samples into columns. */
static TsTrack *
builder_finish (TrackBuilder *b)
{
  TsTrack *t = b->track;

  builder_sort (b);

  if (b->samples != NULL)
    {
      guint m = b->samples->len;

      t->n_samples = m;
      t->sample_times = g_new (TsTime, m);
      t->allocated = g_new (gint64, m);
      t->reserved = g_new (gint64, m);
      for (guint i = 0; i < m; i++)
        {
          const MemorySample *s = &g_array_index (b->samples, MemorySample, i);
          t->sample_times[i] = s->time;
          t->allocated[i] = s->allocated;
          t->reserved[i] = s->reserved;
        }
      g_array_unref (b->samples);
    }

  g_free (b);
  return t;
}

static TrackBuilder *
lookup_builder (GHashTable  *builders,
                TsTrackKind  kind,
                guint32      id)
{
  guint64 key = ((guint64) kind << 32) | id;
  TrackBuilder *b = g_hash_table_lookup (builders, &key);

  if (b == NULL)
    {
      guint64 *stored = g_new (guint64, 1);

      *stored = key;
      b = builder_new (kind);
      g_hash_table_insert (builders, stored, b);
    }
  return b;
}

static inline gboolean
corr_less (const CorrEntry *x,
           const CorrEntry *y)
{
  return x->correlation != y->correlation ? x->correlation < y->correlation : x->value < y->value;
}

static void
corr_merge (const CorrEntry *a,
            gsize            na,
            const CorrEntry *b,
            gsize            nb,
            CorrEntry       *out)
{
  gsize i = 0, j = 0;

  while (i < na && j < nb)
    *out++ = corr_less (&b[j], &a[i]) ? b[j++] : a[i++];
  memcpy (out, a + i, (na - i) * sizeof (CorrEntry));
  memcpy (out + (na - i), b + j, (nb - j) * sizeof (CorrEntry));
}

/* Sorted once after collection, by (correlation, value): the first entry
 * of a correlation wins. The entries come as a few sorted runs (one per
 * record kind, each mostly in correlation order), so a natural merge sort:
 * find the runs, merge neighbours until one is left. */
static void
corr_sort (GArray *entries)
{
  CorrEntry *src = (CorrEntry *) (gpointer) entries->data;
  g_autofree CorrEntry *tmp = NULL;
  g_autoptr(GArray) runs = NULL;
  g_autoptr(GArray) next = NULL;
  CorrEntry *dst;
  gsize n = entries->len;
  gsize r = 0;
  gboolean sorted = TRUE;

  for (gsize i = 1; i < n && sorted; i++)
    sorted = !corr_less (&src[i], &src[i - 1]);
  if (sorted)
    return;

  runs = g_array_new (FALSE, FALSE, sizeof (gsize));
  next = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_array_append_val (runs, r);
  for (gsize i = 1; i < n; i++)
    if (corr_less (&src[i], &src[i - 1]))
      g_array_append_val (runs, i);
  g_array_append_val (runs, n);

  tmp = g_new (CorrEntry, n);
  dst = tmp;
  while (runs->len > 2)
    {
      const gsize *b = (const gsize *) (gpointer) runs->data;
      guint k;

      g_array_set_size (next, 0);
      for (k = 0; k + 2 < runs->len; k += 2)
        {
          corr_merge (src + b[k], b[k + 1] - b[k], src + b[k + 1], b[k + 2] - b[k + 1], dst + b[k]);
          g_array_append_val (next, b[k]);
        }
      if (k + 1 < runs->len)
        {
          /* An odd run out: carried over as it is. */
          memcpy (dst + b[k], src + b[k], (b[k + 1] - b[k]) * sizeof (CorrEntry));
          g_array_append_val (next, b[k]);
        }
      g_array_append_val (next, n);
      { GArray *swap = runs; runs = next; next = swap; }
      { CorrEntry *swap = src; src = dst; dst = swap; }
    }
  if (src != (CorrEntry *) (gpointer) entries->data)
    memcpy (entries->data, src, n * sizeof (CorrEntry));
}

static gboolean
corr_lookup (GArray  *entries,
             guint64  correlation,
             guint64 *value)
{
  const CorrEntry *e = (const CorrEntry *) (gpointer) entries->data;
  guint lo = 0, hi = entries->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (e[mid].correlation < correlation)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == entries->len || e[lo].correlation != correlation)
    return FALSE;
  *value = e[lo].value;
  return TRUE;
}

/* Bulk reads: the columns the document needs, CHUNK records at a time
 * through ts_recorder_copy_column() (one lock per column and chunk rather
 * than a lock and a whole-record copy per record). */
#define CHUNK 4096

typedef struct
{
  TsTime  start[CHUNK];
  TsTime  end[CHUNK];
  guint64 correlation[CHUNK];
  guint32 owner[CHUNK];         /* the device (work) or thread (API calls) */
  guint32 stream[CHUNK];
  guint32 label[CHUNK];         /* the name, or the copy kind of a memcpy */
} Columns;

static guint
field_at (TsRecordKind kind,
          gsize        offset)
{
  const TsRecordInfo *info = ts_record_info (kind);

  for (guint f = 0; f < info->n_fields; f++)
    if (info->fields[f].offset == offset)
      return f;
  g_assert_not_reached ();
}

static gsize
read_columns (TsRecorder   *rec,
              TsRecordKind  kind,
              gsize         first,
              gsize         n_wanted,
              Columns      *c,
              gsize         o_start,
              gsize         o_end,
              gsize         o_corr,
              gsize         o_owner,
              gssize        o_stream,
              gssize        o_label)
{
  gsize n = ts_recorder_copy_column (rec, kind, field_at (kind, o_start), first, n_wanted, c->start);

  ts_recorder_copy_column (rec, kind, field_at (kind, o_end), first, n, c->end);
  ts_recorder_copy_column (rec, kind, field_at (kind, o_corr), first, n, c->correlation);
  ts_recorder_copy_column (rec, kind, field_at (kind, o_owner), first, n, c->owner);
  if (o_stream >= 0)
    ts_recorder_copy_column (rec, kind, field_at (kind, o_stream), first, n, c->stream);
  if (o_label >= 0)
    ts_recorder_copy_column (rec, kind, field_at (kind, o_label), first, n, c->label);
  return n;
}

/* Consecutive records mostly go to the same track: remember the last. */
typedef struct
{
  GHashTable   *builders;
  TsTrackKind   kind;
  guint32       id;
  TrackBuilder *b;
  gboolean      frozen;         /* look up only: other threads read the table */
} BuilderCache;

static TrackBuilder *
cached_builder (BuilderCache *c,
                TsTrackKind   kind,
                guint32       id)
{
  if (c->b == NULL || c->kind != kind || c->id != id)
    {
      if (c->frozen)
        {
          guint64 key = ((guint64) kind << 32) | id;

          /* Counted before, from the same records: it exists. */
          c->b = g_hash_table_lookup (c->builders, &key);
          g_assert (c->b != NULL);
        }
      else
        c->b = lookup_builder (c->builders, kind, id);
      c->kind = kind;
      c->id = id;
    }
  return c->b;
}

/* Counts the items of one big source per track, reading only the column
 * that picks the track, so the columns are allocated once at their size. */
static void
count_items (TsRecorder   *rec,
             GHashTable   *builders,
             TsRecordKind  kind,
             gsize         n,
             TsTrackKind   track_kind,
             gsize         o_owner,
             guint32      *buffer)
{
  BuilderCache cache = { builders, 0, 0, NULL };
  guint field = field_at (kind, o_owner);

  for (gsize first = 0; first < n; first += CHUNK)
    {
      gsize m = ts_recorder_copy_column (rec, kind, field, first, MIN (CHUNK, n - first), buffer);

      if (m == 0)
        break;
      for (gsize j = 0; j < m; j++)
        cached_builder (&cache, track_kind, buffer[j])->n_expected++;
    }
}

static void
count_all (TsTraceDocument *self,
           GHashTable      *builders,
           const gsize     *n)
{
  g_autofree guint32 *buffer = g_new (guint32, CHUNK);
  GHashTableIter iter;
  gpointer value;

  count_items (self->recorder, builders, TS_RECORD_API_CALL, n[TS_RECORD_API_CALL], TS_TRACK_HOST_THREAD,
               G_STRUCT_OFFSET (TsApiCallRecord, thread), buffer);
  count_items (self->recorder, builders, TS_RECORD_SYNC, n[TS_RECORD_SYNC], TS_TRACK_HOST_THREAD,
               G_STRUCT_OFFSET (TsSyncRecord, thread), buffer);
  count_items (self->recorder, builders, TS_RECORD_KERNEL, n[TS_RECORD_KERNEL], TS_TRACK_STREAM,
               G_STRUCT_OFFSET (TsKernelRecord, stream), buffer);
  count_items (self->recorder, builders, TS_RECORD_MEMCPY, n[TS_RECORD_MEMCPY], TS_TRACK_STREAM,
               G_STRUCT_OFFSET (TsMemcpyRecord, stream), buffer);
  count_items (self->recorder, builders, TS_RECORD_MEMSET, n[TS_RECORD_MEMSET], TS_TRACK_STREAM,
               G_STRUCT_OFFSET (TsMemsetRecord, stream), buffer);

  g_hash_table_iter_init (&iter, builders);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      TrackBuilder *b = value;

      if (b->n_expected > 0)
        builder_reserve (b, b->n_expected);
    }
}

/* Room for n entries, filled through the returned pointer; corr_end()
 * then sets the length to what was used. No growth, no call per entry. */
static CorrEntry *
corr_begin (GArray *entries,
            gsize   n)
{
  gsize len = entries->len;

  g_array_set_size (entries, len + n);
  /* an array that never held an entry has no data: no arithmetic on NULL
   * (UBSan's "applying zero offset to null pointer", found by libFuzzer) */
  return entries->data != NULL ? (CorrEntry *) (gpointer) entries->data + len : NULL;
}

static void
corr_end (GArray    *entries,
          CorrEntry *end)
{
  g_array_set_size (entries, end != NULL ? end - (CorrEntry *) (gpointer) entries->data : 0);
}

static void
collect_host (TsTraceDocument *self,
              GHashTable      *builders,
              const gsize     *n_records,
              TsTime          *span)
{
  TsRecorder *rec = self->recorder;
  gsize n = n_records[TS_RECORD_API_CALL];
  g_autofree Columns *c = g_new (Columns, 1);
  BuilderCache cache = { builders, 0, 0, NULL, TRUE };
  CorrEntry *corr = corr_begin (self->api_by_corr, n);
  TsTime begin = span[0], end = span[1];

  for (gsize first = 0; first < n; first += CHUNK)
    {
      gsize m = read_columns (rec, TS_RECORD_API_CALL, first, MIN (CHUNK, n - first), c,
                              G_STRUCT_OFFSET (TsApiCallRecord, start), G_STRUCT_OFFSET (TsApiCallRecord, end),
                              G_STRUCT_OFFSET (TsApiCallRecord, correlation), G_STRUCT_OFFSET (TsApiCallRecord, thread),
                              -1, G_STRUCT_OFFSET (TsApiCallRecord, name));

      if (m == 0)
        break;
      for (gsize j = 0; j < m; j++)
        {
          TrackBuilder *b = cached_builder (&cache, TS_TRACK_HOST_THREAD, c->owner[j]);

          b->track->thread = c->owner[j];
          builder_add (b, TS_ITEM_API_CALL, c->start[j], c->end[j], first + j, c->label[j]);
          begin = MIN (begin, c->start[j]);
          end = MAX (end, c->end[j]);
          if (c->correlation[j] != 0)
            *corr++ = (CorrEntry) { c->correlation[j], first + j };
        }
    }
  corr_end (self->api_by_corr, corr);

  n = n_records[TS_RECORD_SYNC];
  for (gsize first = 0; first < n; first += CHUNK)
    {
      gsize m = read_columns (rec, TS_RECORD_SYNC, first, MIN (CHUNK, n - first), c,
                              G_STRUCT_OFFSET (TsSyncRecord, start), G_STRUCT_OFFSET (TsSyncRecord, end),
                              G_STRUCT_OFFSET (TsSyncRecord, correlation), G_STRUCT_OFFSET (TsSyncRecord, thread),
                              -1, -1);

      if (m == 0)
        break;
      for (gsize j = 0; j < m; j++)
        {
          TrackBuilder *b = cached_builder (&cache, TS_TRACK_HOST_THREAD, c->owner[j]);

          b->track->thread = c->owner[j];
          builder_add (b, TS_ITEM_SYNC, c->start[j], c->end[j], first + j, 0);
          begin = MIN (begin, c->start[j]);
          end = MAX (end, c->end[j]);
        }
    }
  span[0] = begin;
  span[1] = end;
}

/* NVTX push/pop pair up per thread through a stack; start/end pair up by
 * range id. A range still open when the trace ends runs to its end. */
static void
collect_nvtx (TsTraceDocument *self,
              GHashTable      *builders)
{
  TsRecorder *rec = self->recorder;
  gsize n = ts_recorder_get_count (rec, TS_RECORD_NVTX);
  g_autoptr(GHashTable) stacks = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_array_unref);
  g_autoptr(GHashTable) open_ranges = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GArray) open = g_array_new (FALSE, FALSE, sizeof (guint32));
  GHashTableIter iter;
  gpointer key, value;

  for (gsize i = 0; i < n; i++)
    {
      TsNvtxRecord r;
      TrackBuilder *b;
      GArray *stack;

      ts_recorder_get (rec, TS_RECORD_NVTX, i, &r);
      span_extend (self, r.time, r.time);
      b = lookup_builder (builders, TS_TRACK_NVTX, r.thread);
      b->track->thread = r.thread;

      switch ((TsNvtxKind) r.kind)
        {
        case TS_NVTX_MARK:
          builder_add (b, TS_ITEM_NVTX_MARK, r.time, r.time, i, r.message);
          break;

        case TS_NVTX_PUSH:
          stack = g_hash_table_lookup (stacks, GUINT_TO_POINTER (r.thread));
          if (stack == NULL)
            {
              stack = g_array_new (FALSE, FALSE, sizeof (guint32));
              g_hash_table_insert (stacks, GUINT_TO_POINTER (r.thread), stack);
            }
          g_array_append_val (stack, i);
          break;

        case TS_NVTX_POP:
          stack = g_hash_table_lookup (stacks, GUINT_TO_POINTER (r.thread));
          if (stack != NULL && stack->len > 0)
            {
              guint32 opener = g_array_index (stack, guint32, stack->len - 1);
              TsNvtxRecord o;

              g_array_set_size (stack, stack->len - 1);
              ts_recorder_get (rec, TS_RECORD_NVTX, opener, &o);
              builder_add (b, TS_ITEM_NVTX_RANGE, o.time, r.time, opener, o.message);
            }
          break;

        case TS_NVTX_RANGE_START:
          {
            gint64 *id = g_new (gint64, 1);
            *id = (gint64) r.range_id;
            g_hash_table_replace (open_ranges, id, GUINT_TO_POINTER (i + 1));
          }
          break;

        case TS_NVTX_RANGE_END:
          {
            gint64 id = (gint64) r.range_id;
            guint32 opener = GPOINTER_TO_UINT (g_hash_table_lookup (open_ranges, &id));

            if (opener != 0)
              {
                TsNvtxRecord o;

                ts_recorder_get (rec, TS_RECORD_NVTX, opener - 1, &o);
                /* A start/end range belongs to the thread that started it. */
                b = lookup_builder (builders, TS_TRACK_NVTX, o.thread);
                b->track->thread = o.thread;
                builder_add (b, TS_ITEM_NVTX_RANGE, o.time, r.time, opener - 1, o.message);
                g_hash_table_remove (open_ranges, &id);
              }
          }
          break;

        default:
          break;
        }
    }

  /* Whatever is still open ends with the trace. */
  g_hash_table_iter_init (&iter, stacks);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GArray *stack = value;
      for (guint j = 0; j < stack->len; j++)
        g_array_append_val (open, g_array_index (stack, guint32, j));
    }
  g_hash_table_iter_init (&iter, open_ranges);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      guint32 idx = GPOINTER_TO_UINT (value) - 1;
      g_array_append_val (open, idx);
    }
  for (guint j = 0; j < open->len; j++)
    {
      guint32 idx = g_array_index (open, guint32, j);
      TsNvtxRecord o;
      TrackBuilder *b;

      ts_recorder_get (rec, TS_RECORD_NVTX, idx, &o);
      b = lookup_builder (builders, TS_TRACK_NVTX, o.thread);
      b->track->thread = o.thread;
      builder_add (b, TS_ITEM_NVTX_RANGE, o.time, MAX (o.time, self->end), idx, o.message);
    }
}

static TrackBuilder *
stream_builder (GHashTable *builders,
                TsStreamId  stream,
                guint32     device)
{
  TrackBuilder *b = lookup_builder (builders, TS_TRACK_STREAM, stream);

  b->track->stream = stream;
  b->track->device = device;
  return b;
}

static TsStringId
copy_label (TsRecorder           *rec,
            const TsMemcpyRecord *r)
{
  static const char * const names[] = {
    [TS_COPY_HOST_TO_DEVICE] = "Memcpy HtoD",
    [TS_COPY_DEVICE_TO_HOST] = "Memcpy DtoH",
    [TS_COPY_DEVICE_TO_DEVICE] = "Memcpy DtoD",
    [TS_COPY_PEER] = "Memcpy PtoP",
    [TS_COPY_HOST_TO_HOST] = "Memcpy HtoH",
  };
  const char *name = r->kind < G_N_ELEMENTS (names) && names[r->kind] ? names[r->kind] : "Memcpy";

  return ts_recorder_intern (rec, name);
}

/* Kernels, copies or memsets into their stream tracks. The three record
 * types share the offsets of start, end, correlation, device and stream
 * (checked below); the label is the kernel's name, the copy's direction,
 * or "Memset". */
static void
collect_work_kind (TsTraceDocument *self,
                   GHashTable      *builders,
                   TsItemKind       kind,
                   const gsize     *n_records,
                   TsTime          *span)
{
  TsRecorder *rec = self->recorder;
  TsRecordKind rk = kind == TS_ITEM_KERNEL ? TS_RECORD_KERNEL : kind == TS_ITEM_MEMCPY ? TS_RECORD_MEMCPY : TS_RECORD_MEMSET;
  gsize n = n_records[rk];
  gssize o_label = kind == TS_ITEM_KERNEL ? (gssize) G_STRUCT_OFFSET (TsKernelRecord, name)
                 : kind == TS_ITEM_MEMCPY ? (gssize) G_STRUCT_OFFSET (TsMemcpyRecord, kind) : -1;
  TsStringId memset_label = ts_recorder_intern (rec, "Memset");
  TsStringId copy_labels[TS_COPY_HOST_TO_HOST + 2];
  g_autofree Columns *c = NULL;
  BuilderCache cache = { builders, 0, 0, NULL, TRUE };
  CorrEntry *corr;
  TsTime begin = span[0], end = span[1];

  G_STATIC_ASSERT (G_STRUCT_OFFSET (TsKernelRecord, stream) == G_STRUCT_OFFSET (TsMemcpyRecord, stream));
  G_STATIC_ASSERT (G_STRUCT_OFFSET (TsKernelRecord, stream) == G_STRUCT_OFFSET (TsMemsetRecord, stream));
  G_STATIC_ASSERT (G_STRUCT_OFFSET (TsKernelRecord, device) == G_STRUCT_OFFSET (TsMemsetRecord, device));
  G_STATIC_ASSERT (G_STRUCT_OFFSET (TsKernelRecord, device) == G_STRUCT_OFFSET (TsMemcpyRecord, device));
  G_STATIC_ASSERT (G_STRUCT_OFFSET (TsKernelRecord, correlation) == G_STRUCT_OFFSET (TsMemcpyRecord, correlation));
  G_STATIC_ASSERT (G_STRUCT_OFFSET (TsKernelRecord, correlation) == G_STRUCT_OFFSET (TsMemsetRecord, correlation));

  if (n == 0)
    return;
  for (guint k = 0; k < G_N_ELEMENTS (copy_labels); k++)
    {
      TsMemcpyRecord r = { 0 };
      r.kind = k;
      copy_labels[k] = copy_label (rec, &r);
    }

  c = g_new (Columns, 1);
  corr = corr_begin (self->work_by_corr, n);
  for (gsize first = 0; first < n; first += CHUNK)
    {
      gsize m = read_columns (rec, rk, first, MIN (CHUNK, n - first), c,
                              G_STRUCT_OFFSET (TsKernelRecord, start), G_STRUCT_OFFSET (TsKernelRecord, end),
                              G_STRUCT_OFFSET (TsKernelRecord, correlation), G_STRUCT_OFFSET (TsKernelRecord, device),
                              G_STRUCT_OFFSET (TsKernelRecord, stream), o_label);

      if (m == 0)
        break;
      for (gsize j = 0; j < m; j++)
        {
          TrackBuilder *b = cached_builder (&cache, TS_TRACK_STREAM, c->stream[j]);
          TsStringId label = kind == TS_ITEM_KERNEL ? c->label[j]
                           : kind == TS_ITEM_MEMSET ? memset_label
                           : copy_labels[MIN (c->label[j], G_N_ELEMENTS (copy_labels) - 1)];

          b->track->stream = c->stream[j];
          b->track->device = c->owner[j];
          builder_add (b, kind, c->start[j], c->end[j], first + j, label);
          begin = MIN (begin, c->start[j]);
          end = MAX (end, c->end[j]);
          if (c->correlation[j] != 0)
            *corr++ = (CorrEntry) { c->correlation[j], ((guint64) kind << 32) | (first + j) };
        }
    }
  corr_end (self->work_by_corr, corr);
  span[0] = begin;
  span[1] = end;
}

/* Streams get a track even without work, so before the work is read. */
static void
collect_streams (TsTraceDocument *self,
                 GHashTable      *builders)
{
  TsRecorder *rec = self->recorder;
  gsize n = ts_recorder_get_count (rec, TS_RECORD_STREAM);

  for (gsize i = 0; i < n; i++)
    {
      TsStreamRecord r;
      TrackBuilder *b;

      ts_recorder_get (rec, TS_RECORD_STREAM, i, &r);
      b = stream_builder (builders, r.stream, r.device);
      b->track->priority = r.priority;
      b->track->is_default = r.is_default != 0;
    }
}

/* The two big collections touch disjoint tracks (host threads against
 * streams) and disjoint correlation tables, and only look builders up:
 * with 2 cores, device work is read on a second thread. */
typedef struct
{
  TsTraceDocument *self;
  GHashTable      *builders;
  const gsize     *n_records;
  TsTime           span[2];
} WorkJob;

static gpointer
collect_device_work (gpointer data)
{
  WorkJob *job = data;

  collect_work_kind (job->self, job->builders, TS_ITEM_KERNEL, job->n_records, job->span);
  collect_work_kind (job->self, job->builders, TS_ITEM_MEMCPY, job->n_records, job->span);
  collect_work_kind (job->self, job->builders, TS_ITEM_MEMSET, job->n_records, job->span);
  return NULL;
}

static void
collect_memory (TsTraceDocument *self,
                GHashTable      *builders)
{
  TsRecorder *rec = self->recorder;
  gsize n = ts_recorder_get_count (rec, TS_RECORD_COUNTER);
  g_autoptr(GHashTable) last = g_hash_table_new_full (NULL, NULL, NULL, g_free);

  for (gsize i = 0; i < n; i++)
    {
      TsCounterRecord r;
      TrackBuilder *b;
      MemorySample *prev, sample;

      ts_recorder_get (rec, TS_RECORD_COUNTER, i, &r);
      if (r.counter != TS_COUNTER_ALLOCATED_BYTES && r.counter != TS_COUNTER_RESERVED_BYTES)
        continue;

      b = lookup_builder (builders, TS_TRACK_MEMORY, r.device);
      b->track->device = r.device;
      if (b->samples == NULL)
        b->samples = g_array_new (FALSE, FALSE, sizeof (MemorySample));

      /* Each sample carries both series: the one that changed takes the
       * new value, the other keeps its last one. */
      prev = g_hash_table_lookup (last, GUINT_TO_POINTER (r.device));
      if (prev == NULL)
        {
          prev = g_new0 (MemorySample, 1);
          g_hash_table_insert (last, GUINT_TO_POINTER (r.device), prev);
        }
      prev->time = r.time;
      if (r.counter == TS_COUNTER_ALLOCATED_BYTES)
        prev->allocated = r.value;
      else
        prev->reserved = r.value;

      sample = *prev;
      if (b->samples->len > 0 &&
          g_array_index (b->samples, MemorySample, b->samples->len - 1).time == r.time)
        g_array_index (b->samples, MemorySample, b->samples->len - 1) = sample;
      else
        g_array_append_val (b->samples, sample);
      span_extend (self, r.time, r.time);
    }
}

static void
collect_event_links (TsTraceDocument *self)
{
  TsRecorder *rec = self->recorder;
  gsize n_records = ts_recorder_get_count (rec, TS_RECORD_EVENT_RECORD);
  gsize n_waits = ts_recorder_get_count (rec, TS_RECORD_EVENT_WAIT);
  g_autoptr(GHashTable) by_corr = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  for (gsize i = 0; i < n_records; i++)
    {
      TsEventRecordRecord r;
      gint64 *key = g_new (gint64, 1);

      ts_recorder_get (rec, TS_RECORD_EVENT_RECORD, i, &r);
      *key = (gint64) r.correlation;
      g_hash_table_replace (by_corr, key, GUINT_TO_POINTER (i + 1));
      span_extend (self, r.queued, r.time);
    }

  for (gsize i = 0; i < n_waits; i++)
    {
      TsEventWaitRecord w;
      gint64 key;
      guint32 from;

      ts_recorder_get (rec, TS_RECORD_EVENT_WAIT, i, &w);
      key = (gint64) w.record_correlation;
      from = GPOINTER_TO_UINT (g_hash_table_lookup (by_corr, &key));
      if (from != 0)
        {
          TsEventLink link = { from - 1, i };
          g_array_append_val (self->event_links, link);
        }
    }
}

static int
compare_tracks (gconstpointer a,
                gconstpointer b)
{
  const TsTrack *x = *(const TsTrack * const *) a;
  const TsTrack *y = *(const TsTrack * const *) b;

  /* Host threads (API then NVTX) first, then each device: its streams,
   * default stream first, then its memory. */
  if ((x->device < 0) != (y->device < 0))
    return x->device < 0 ? -1 : 1;
  if (x->device < 0)
    {
      if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
      return (int) x->kind - (int) y->kind;
    }
  if (x->device != y->device)
    return x->device < y->device ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind == TS_TRACK_STREAM ? -1 : 1;
  if (x->is_default != y->is_default)
    return x->is_default ? -1 : 1;
  return x->stream < y->stream ? -1 : x->stream > y->stream;
}

static char *
track_title (TsRecorder    *rec,
             const TsTrack *t)
{
  switch (t->kind)
    {
    case TS_TRACK_HOST_THREAD:
      {
        const char *name = ts_recorder_get_thread_name (rec, t->thread);

        return name != NULL ? g_strdup (name) : g_strdup_printf ("Thread %u", t->thread);
      }
    case TS_TRACK_NVTX:
      return g_strdup_printf ("NVTX (thread %u)", t->thread);
    case TS_TRACK_STREAM:
      if (t->is_default)
        return g_strdup_printf ("Default stream (cuda:%d)", t->device);
      if (t->priority != 0)
        return g_strdup_printf ("Stream %u (priority %d)", t->stream, t->priority);
      return g_strdup_printf ("Stream %u", t->stream);
    case TS_TRACK_MEMORY:
      return g_strdup_printf ("Memory (cuda:%d)", t->device);
    default:
      g_assert_not_reached ();
    }
}

TsRecordKind
ts_item_kind_get_record_kind (TsItemKind kind)
{
  switch (kind)
    {
    case TS_ITEM_API_CALL: return TS_RECORD_API_CALL;
    case TS_ITEM_SYNC: return TS_RECORD_SYNC;
    case TS_ITEM_KERNEL: return TS_RECORD_KERNEL;
    case TS_ITEM_MEMCPY: return TS_RECORD_MEMCPY;
    case TS_ITEM_MEMSET: return TS_RECORD_MEMSET;
    case TS_ITEM_NVTX_RANGE:
    case TS_ITEM_NVTX_MARK: return TS_RECORD_NVTX;
    default: g_assert_not_reached ();
    }
}

/* The dense location tables, one per item kind. Every record of the big
 * kinds becomes an item, so their tables are written whole by
 * track_index(): only NVTX (whose pops, range ends and marks have no range
 * item) and records no longer held need the "nowhere" fill. */
static void
alloc_locations (TsTraceDocument *self,
                 const gsize     *n_records)
{
  for (guint k = TS_ITEM_API_CALL; k <= TS_ITEM_NVTX_MARK; k++)
    {
      TsRecordKind rk = ts_item_kind_get_record_kind (k);
      gsize n = rk == TS_RECORD_NVTX ? ts_recorder_get_count (self->recorder, rk) : n_records[rk];

      self->n_locations[k] = n;
      self->locations[k] = g_new (guint64, MAX (n, 1));
      if (rk == TS_RECORD_NVTX || ts_recorder_get_n_retained (self->recorder, rk) < n)
        memset (self->locations[k], 0xff, MAX (n, 1) * sizeof (guint64));
    }
}

static int
compare_builders (gconstpointer a,
                  gconstpointer b)
{
  const TrackBuilder *x = *(const TrackBuilder * const *) a;
  const TrackBuilder *y = *(const TrackBuilder * const *) b;

  return compare_tracks (&x->track, &y->track);
}

/* Below this many records, a second thread costs more than it saves. */
#define PARALLEL_MIN 65536

/* Sorting and indexing tracks, and sorting the two correlation tables,
 * are independent jobs: split between two threads by size. Tracks write
 * disjoint entries of the location tables (a record is on one track). */
typedef struct
{
  TsTraceDocument  *self;
  TrackBuilder    **builders;     /* in display order */
  TsTrack         **tracks;
  guint8           *owner;        /* per track: the thread (0 or 1) */
  guint             n;
  guint8            corr_owner[2];
} FinishJob;

typedef struct
{
  FinishJob *job;
  guint8     who;
} FinishPart;

static gpointer
finish_part (gpointer data)
{
  FinishPart *part = data;
  FinishJob *job = part->job;
  TsTraceDocument *self = job->self;

  for (guint i = 0; i < job->n; i++)
    if (job->owner[i] == part->who)
      {
        job->tracks[i] = builder_finish (job->builders[i]);
        track_index (job->tracks[i], i, self->locations, self->n_locations);
      }
  if (job->corr_owner[0] == part->who)
    corr_sort (self->api_by_corr);
  if (job->corr_owner[1] == part->who)
    corr_sort (self->work_by_corr);
  return NULL;
}

static void
finish_all (TsTraceDocument *self,
            GPtrArray       *order,
            gboolean         parallel)
{
  FinishJob job = { self, (TrackBuilder **) order->pdata, NULL, NULL, order->len, { 0, 0 } };
  FinishPart main_part = { &job, 0 }, worker_part = { &job, 1 };
  g_autofree TsTrack **tracks = g_new0 (TsTrack *, order->len);
  g_autofree guint8 *owner = g_new0 (guint8, order->len);
  guint64 load[2] = { 0, 0 };
  GThread *worker = NULL;

  job.tracks = tracks;
  job.owner = owner;
  if (parallel)
    {
      /* Greedy by size: each job, biggest first, to the less loaded
       * thread. Sorting and indexing cost about the same per item as a
       * correlation entry costs to sort. */
      g_autofree guint64 *sizes = g_new (guint64, order->len + 2);
      guint n_jobs = order->len + 2;

      for (guint i = 0; i < order->len; i++)
        sizes[i] = ((TrackBuilder *) order->pdata[i])->track->n_items;
      sizes[order->len] = self->api_by_corr->len;
      sizes[order->len + 1] = self->work_by_corr->len;
      for (guint done = 0; done < n_jobs; done++)
        {
          guint best = 0;
          guint8 who;

          for (guint j = 1; j < n_jobs; j++)
            if (sizes[j] != G_MAXUINT64 && (sizes[best] == G_MAXUINT64 || sizes[j] > sizes[best]))
              best = j;
          who = load[1] < load[0];
          load[who] += sizes[best];
          if (best < order->len)
            owner[best] = who;
          else
            job.corr_owner[best - order->len] = who;
          sizes[best] = G_MAXUINT64;
        }
      worker = g_thread_new ("ts-document", finish_part, &worker_part);
    }

  finish_part (&main_part);
  if (worker != NULL)
    g_thread_join (worker);

  for (guint i = 0; i < order->len; i++)
    {
      tracks[i]->title = track_title (self->recorder, tracks[i]);
      g_ptr_array_add (self->tracks, tracks[i]);
    }
}

TsTraceDocument *
ts_trace_document_new (TsRecorder *recorder)
{
  TsTraceDocument *self;
  g_autoptr(GHashTable) builders = NULL;
  g_autoptr(GPtrArray) order = NULL;
  gsize n_records[TS_N_RECORD_KINDS];
  gsize n_total = 0;
  gboolean parallel;
  WorkJob work;
  TsTime host_span[2] = { G_MAXINT64, G_MININT64 };
  GHashTableIter iter;
  gpointer value;

  g_return_val_if_fail (TS_IS_RECORDER (recorder), NULL);

  self = g_object_new (TS_TYPE_TRACE_DOCUMENT, NULL);
  self->recorder = g_object_ref (recorder);
  self->begin = G_MAXINT64;
  self->end = G_MININT64;

  /* One count per kind for the whole build, so that records appended
   * meanwhile (a live run) do not make the counting and filling passes
   * disagree. */
  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    {
      n_records[k] = ts_recorder_get_count (recorder, k);
      n_total += n_records[k];
    }
  parallel = n_total >= PARALLEL_MIN && g_get_num_processors () > 1;

  builders = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  collect_streams (self, builders);
  count_all (self, builders, n_records);

  work = (WorkJob) { self, builders, n_records, { G_MAXINT64, G_MININT64 } };
  if (parallel)
    {
      GThread *worker = g_thread_new ("ts-document", collect_device_work, &work);

      collect_host (self, builders, n_records, host_span);
      g_thread_join (worker);
    }
  else
    {
      collect_host (self, builders, n_records, host_span);
      collect_device_work (&work);
    }
  span_extend (self, host_span[0], host_span[1]);
  span_extend (self, work.span[0], work.span[1]);

  collect_event_links (self);
  collect_memory (self, builders);
  collect_nvtx (self, builders);

  if (self->begin > self->end)
    self->begin = self->end = 0;

  /* Display order first, so that each track knows its index while it
   * fills the location tables. */
  order = g_ptr_array_new ();
  g_hash_table_iter_init (&iter, builders);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (order, value);
  g_ptr_array_sort (order, compare_builders);

  alloc_locations (self, n_records);
  finish_all (self, order, parallel);

  return self;
}

TsRecorder *
ts_trace_document_get_recorder (TsTraceDocument *self)
{
  g_return_val_if_fail (TS_IS_TRACE_DOCUMENT (self), NULL);
  return self->recorder;
}

void
ts_trace_document_get_time_span (TsTraceDocument *self,
                                 TsTime          *begin,
                                 TsTime          *end)
{
  g_return_if_fail (TS_IS_TRACE_DOCUMENT (self));
  if (begin)
    *begin = self->begin;
  if (end)
    *end = self->end;
}

guint
ts_trace_document_get_n_tracks (TsTraceDocument *self)
{
  g_return_val_if_fail (TS_IS_TRACE_DOCUMENT (self), 0);
  return self->tracks->len;
}

const TsTrack *
ts_trace_document_get_track (TsTraceDocument *self,
                             guint            index)
{
  g_return_val_if_fail (TS_IS_TRACE_DOCUMENT (self), NULL);
  g_return_val_if_fail (index < self->tracks->len, NULL);
  return g_ptr_array_index (self->tracks, index);
}

const TsEventLink *
ts_trace_document_get_event_links (TsTraceDocument *self,
                                   guint           *n_links)
{
  g_return_val_if_fail (TS_IS_TRACE_DOCUMENT (self), NULL);
  *n_links = self->event_links->len;
  return (const TsEventLink *) (gpointer) self->event_links->data;
}

const TsHazard *
ts_trace_document_get_hazards (TsTraceDocument *self,
                               guint           *n_hazards)
{
  g_return_val_if_fail (TS_IS_TRACE_DOCUMENT (self), NULL);
  /* a replay of the whole trace: only for those who show hazards */
  if (self->hazards == NULL)
    self->hazards = ts_hazards_find (self->recorder);
  *n_hazards = self->hazards->len;
  return (const TsHazard *) (gpointer) self->hazards->data;
}

gboolean
ts_trace_document_find_api_call (TsTraceDocument *self,
                                 guint64          correlation,
                                 guint32         *record)
{
  guint64 value;

  g_return_val_if_fail (TS_IS_TRACE_DOCUMENT (self), FALSE);
  if (!corr_lookup (self->api_by_corr, correlation, &value))
    return FALSE;
  *record = (guint32) value;
  return TRUE;
}

gboolean
ts_trace_document_find_device_work (TsTraceDocument *self,
                                    guint64          correlation,
                                    TsItemKind      *kind,
                                    guint32         *record)
{
  guint64 value;

  g_return_val_if_fail (TS_IS_TRACE_DOCUMENT (self), FALSE);
  if (!corr_lookup (self->work_by_corr, correlation, &value))
    return FALSE;
  *kind = (TsItemKind) (value >> 32);
  *record = (guint32) value;
  return TRUE;
}

gboolean
ts_trace_document_locate_item (TsTraceDocument *self,
                               TsItemKind       kind,
                               guint32          record,
                               guint           *track,
                               guint           *item)
{
  guint64 value;

  g_return_val_if_fail (TS_IS_TRACE_DOCUMENT (self), FALSE);
  if (kind < TS_ITEM_API_CALL || kind > TS_ITEM_NVTX_MARK ||
      record >= self->n_locations[kind] || self->locations[kind][record] == G_MAXUINT64)
    return FALSE;
  value = self->locations[kind][record];
  *track = (guint) (value >> 32);
  *item = (guint) value;
  return TRUE;
}

void
ts_track_find_range (const TsTrack *track,
                     TsTime         begin,
                     TsTime         end,
                     guint         *first,
                     guint         *last)
{
  guint lo = 0, hi;

  g_return_if_fail (track != NULL);

  /* First item whose running max end passes `begin`: nothing before it
   * can reach into the window. */
  hi = track->n_items;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (track->max_ends[mid] > begin)
        hi = mid;
      else
        lo = mid + 1;
    }
  *first = lo;

  /* One past the last item that starts before `end`. */
  hi = track->n_items;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (track->starts[mid] < end)
        lo = mid + 1;
      else
        hi = mid;
    }
  *last = lo;
}

void
ts_track_get_lane (const TsTrack *track,
                   guint          depth,
                   TsTrackLane   *lane)
{
  g_return_if_fail (track != NULL);
  g_return_if_fail (lane != NULL);

  if (track->lane_offsets == NULL)
    {
      lane->items = NULL;
      lane->n_items = depth == 0 ? track->n_items : 0;
      return;
    }
  if (depth >= track->max_depth)
    {
      lane->items = NULL;
      lane->n_items = 0;
      return;
    }
  lane->items = track->lane_items + track->lane_offsets[depth];
  lane->n_items = track->lane_offsets[depth + 1] - track->lane_offsets[depth];
}

guint
ts_track_lane_find (const TsTrack     *track,
                    const TsTrackLane *lane,
                    TsTime             time)
{
  guint lo = 0, hi = lane->n_items;

  g_return_val_if_fail (track != NULL, 0);

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      guint i = ts_track_lane_item (lane, mid);
      TsTime e = track->ends[i];

      /* A zero-length item (a mark) counts as ending just after its time. */
      if (e > time || (e == track->starts[i] && e >= time))
        hi = mid;
      else
        lo = mid + 1;
    }
  return lo;
}
