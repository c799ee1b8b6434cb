/* ts-timeline-renderer.c: draws a trace document's timeline with cairo
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <pango/pangocairo.h>

#include "ts-busy-index.h"
#include "ts-counter-plot.h"
#include "ts-gallop-private.h"
#include "ts-render-format.h"
#include "ts-render-i18n-private.h"
#include "ts-render-palette.h"
#include "ts-time-ruler.h"
#include "ts-timeline-renderer.h"

#define RULER_H          26.0
#define GROUP_H          22.0
#define LANE_H           18.0
#define TRACK_PAD        3.0
#define MEMORY_H         64.0
#define DEFAULT_LABEL_W  210.0
#define LABEL_MIN_PX     28.0     /* narrower items show no text */
#define MAX_ARROWS       4096     /* per frame; arrows are deduplicated per pixel first */
#define MARKER_SIZE      5.0
#define FLAG_SIZE        5.0      /* half the width of an error or OOM flag */

typedef struct
{
  char     *title;
  guint     first_track;          /* a group's tracks are contiguous in the document */
  guint     n_tracks;
  gboolean  idle;                 /* a device that ran nothing and allocated nothing */
  TsBusyIndex *busy;              /* device groups: all their streams' work, built when drawn */
} Group;

/* An event record → wait arrow, indexed like a track: sorted by its left
 * end with a running maximum of its right end. */
typedef struct
{
  TsTime  t0;                     /* MIN (record time, wait time) */
  TsTime  t1;
  TsTime  max_t1;
  TsTime  from_time;
  TsTime  to_time;
  guint   from_track;
  guint   to_track;
} Link;

typedef TsTimelineProblem Problem;

static gboolean locate_correlation (TsTimelineRenderer *self,
                                    guint64             correlation,
                                    gboolean            prefer_api,
                                    guint              *track,
                                    guint              *item);

static const TsBusyIndex *group_busy (TsTimelineRenderer *self,
                                      Group              *g);

typedef struct _BreakIndex BreakIndex;
static void break_index_free (BreakIndex *bi);

/* Event markers of one stream track, in time order, with the index of the
 * gaps between them (for merging dense markers). */
typedef struct
{
  GArray     *records;            /* TsTime */
  GArray     *waits;              /* TsTime */
  BreakIndex *record_breaks;
  BreakIndex *wait_breaks;
} Markers;

struct _TsTimelineRenderer
{
  GObject          parent_instance;

  TsTraceDocument *document;
  TsRecorder      *recorder;
  gboolean         dark;
  double           label_width;

  GArray          *groups;        /* Group */
  char           **track_titles;  /* per track, in the user's language */
  TsBusyIndex    **track_busy;    /* per track, built when a fold of it is drawn */
  GArray          *rows;          /* TsTimelineRow */
  gint            *track_rows;    /* per track: its row, or -1 when collapsed */
  double           content_height;

  Markers         *markers;       /* per track */
  BreakIndex    ***lane_breaks;   /* per track, per depth: where folds end */
  GArray          *links;         /* Link */
  gint64          *memory_max;    /* per track: the largest counter value */
  gint64         **memory_blocks; /* per memory track: reserved min, max, allocated min, max per block */
  GArray          *problems;      /* Problem */
  GArray          *flags;         /* TsTimelineFlag, by time */
  GHashTable      *failed_kernels; /* kernel record index + 1 of kernels with error != 0 */

  /* Selection and folded groups: shared with the widget, if any. */
  TsTimelineViewState *state;

  cairo_pattern_t *hatch[2];      /* light, dark */
  TsTimelineDrawStats stats;
};

G_DEFINE_FINAL_TYPE (TsTimelineRenderer, ts_timeline_renderer, G_TYPE_OBJECT)

/* Everything one draw() needs, so helpers take one pointer. */
typedef struct
{
  TsTimelineRenderer    *self;
  cairo_t               *cr;
  PangoLayout           *layout;
  const TsRenderPalette *p;
  const TsTimelineView  *view;
  TsTime                 begin;
  TsTime                 end;
  double                 x0;      /* the track area, in surface pixels */
  double                 x1;
  double                 top;
  double                 bottom;
  double                 scale;   /* pixels per nanosecond */
} Frame;

static void
group_clear (gpointer data)
{
  Group *g = data;

  g_free (g->title);
  g_clear_pointer (&g->busy, ts_busy_index_free);
}

static void
ts_timeline_renderer_finalize (GObject *object)
{
  TsTimelineRenderer *self = (TsTimelineRenderer *) object;
  guint n_tracks = ts_trace_document_get_n_tracks (self->document);

  for (guint i = 0; i < n_tracks; i++)
    {
      g_clear_pointer (&self->markers[i].records, g_array_unref);
      g_clear_pointer (&self->markers[i].waits, g_array_unref);
      g_clear_pointer (&self->markers[i].record_breaks, break_index_free);
      g_clear_pointer (&self->markers[i].wait_breaks, break_index_free);
      if (self->lane_breaks[i] != NULL)
        {
          const TsTrack *t = ts_trace_document_get_track (self->document, i);
          for (guint d = 0; d < MAX (1, t->max_depth); d++)
            break_index_free (self->lane_breaks[i][d]);
          g_free (self->lane_breaks[i]);
        }
    }
  g_free (self->lane_breaks);
  g_free (self->markers);
  g_free (self->track_rows);
  g_strfreev (self->track_titles);
  for (guint i = 0; self->track_busy != NULL && i < n_tracks; i++)
    ts_busy_index_free (self->track_busy[i]);
  g_free (self->track_busy);
  for (guint i = 0; self->memory_blocks != NULL && i < n_tracks; i++)
    g_free (self->memory_blocks[i]);
  g_free (self->memory_blocks);
  g_free (self->memory_max);
  g_clear_pointer (&self->groups, g_array_unref);
  g_clear_pointer (&self->rows, g_array_unref);
  g_clear_pointer (&self->links, g_array_unref);
  g_clear_pointer (&self->problems, g_array_unref);
  g_clear_pointer (&self->flags, g_array_unref);
  g_clear_pointer (&self->failed_kernels, g_hash_table_unref);
  g_clear_pointer (&self->hatch[0], cairo_pattern_destroy);
  g_clear_pointer (&self->hatch[1], cairo_pattern_destroy);
  g_clear_object (&self->state);
  g_clear_object (&self->document);

  G_OBJECT_CLASS (ts_timeline_renderer_parent_class)->finalize (object);
}

static void
ts_timeline_renderer_class_init (TsTimelineRendererClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ts_timeline_renderer_finalize;
}

static void
ts_timeline_renderer_init (TsTimelineRenderer *self)
{
  self->label_width = DEFAULT_LABEL_W;
  self->groups = g_array_new (FALSE, TRUE, sizeof (Group));
  g_array_set_clear_func (self->groups, group_clear);
  self->rows = g_array_new (FALSE, TRUE, sizeof (TsTimelineRow));
  self->links = g_array_new (FALSE, TRUE, sizeof (Link));
  self->problems = g_array_new (FALSE, TRUE, sizeof (Problem));
  self->flags = g_array_new (FALSE, TRUE, sizeof (TsTimelineFlag));
  self->failed_kernels = g_hash_table_new (NULL, NULL);
}

/* --- break index -------------------------------------------------------- */

/* A max-tree over a key per position (a lane's item widths and the gaps
 * before them, or the gaps between a track's event markers), answering
 * "the first position p >= k whose key reaches thr" in O(log n). Folded
 * runs and merged markers end exactly at such positions, so a zoomed-out
 * frame costs a few tree walks per lane instead of one search per pixel
 * column. Leaves are blocks of BREAK_BLOCK positions whose keys are
 * recomputed from the columns when needed; only the levels above are
 * stored (about a word per 32 items). */
#define BREAK_BLOCK  32
#define BREAK_FANOUT 16

typedef TsTime (*BreakKeyFunc) (gconstpointer data,
                                guint         p);

struct _BreakIndex
{
  guint    n;
  guint    n_levels;
  guint   *level_len;
  TsTime **levels;
};

typedef struct
{
  const TsTrack *t;
  TsTrackLane    lane;
} LaneKeyData;

/* An item's key: its length, or the gap after the previous item when that
 * is larger. A fold breaks only where one of them reaches FOLD_PX. */
static TsTime
lane_key (gconstpointer data,
          guint         p)
{
  const LaneKeyData *d = data;
  guint i = ts_track_lane_item (&d->lane, p);
  TsTime key = d->t->ends[i] - d->t->starts[i];

  if (p > 0)
    {
      guint prev = ts_track_lane_item (&d->lane, p - 1);
      key = MAX (key, d->t->starts[i] - d->t->ends[prev]);
    }
  return key;
}

static TsTime
times_key (gconstpointer data,
           guint         p)
{
  const TsTime *times = data;

  return p > 0 ? times[p] - times[p - 1] : 0;
}

static BreakIndex *
break_index_new (BreakKeyFunc  key,
                 gconstpointer data,
                 guint         n)
{
  BreakIndex *bi = g_new0 (BreakIndex, 1);
  guint len = (n + BREAK_BLOCK - 1) / BREAK_BLOCK;

  bi->n = n;
  bi->n_levels = 1;
  for (guint l = len; l > 1; l = (l + BREAK_FANOUT - 1) / BREAK_FANOUT)
    bi->n_levels++;
  bi->level_len = g_new (guint, bi->n_levels);
  bi->levels = g_new (TsTime *, bi->n_levels);

  bi->level_len[0] = len;
  bi->levels[0] = g_new (TsTime, MAX (len, 1));
  for (guint b = 0; b < len; b++)
    {
      TsTime m = G_MININT64;
      guint end = MIN (n, (b + 1) * BREAK_BLOCK);

      for (guint p = b * BREAK_BLOCK; p < end; p++)
        m = MAX (m, key (data, p));
      bi->levels[0][b] = m;
    }
  for (guint l = 1; l < bi->n_levels; l++)
    {
      guint below = bi->level_len[l - 1];

      len = (below + BREAK_FANOUT - 1) / BREAK_FANOUT;
      bi->level_len[l] = len;
      bi->levels[l] = g_new (TsTime, len);
      for (guint i = 0; i < len; i++)
        {
          TsTime m = G_MININT64;
          guint end = MIN (below, (i + 1) * BREAK_FANOUT);

          for (guint c = i * BREAK_FANOUT; c < end; c++)
            m = MAX (m, bi->levels[l - 1][c]);
          bi->levels[l][i] = m;
        }
    }
  return bi;
}

static void
break_index_free (BreakIndex *bi)
{
  if (bi == NULL)
    return;
  for (guint l = 0; l < bi->n_levels; l++)
    g_free (bi->levels[l]);
  g_free (bi->levels);
  g_free (bi->level_len);
  g_free (bi);
}

/* The first position p in [k, limit) with key (p) >= thr, else limit. */
static guint
break_index_find (const BreakIndex *bi,
                  BreakKeyFunc      key,
                  gconstpointer     data,
                  guint             k,
                  guint             limit,
                  TsTime            thr)
{
  guint n = MIN (bi->n, limit);
  guint block_end = MIN (n, (k / BREAK_BLOCK + 1) * BREAK_BLOCK);
  guint64 span = BREAK_BLOCK;
  guint l = 0, i;

  /* The rest of k's block, key by key. */
  for (; k < block_end; k++)
    if (key (data, k) >= thr)
      return k;
  if (k >= n)
    return n;

  /* Right and up while whole subtrees stay below thr... */
  i = k / BREAK_BLOCK;
  for (;;)
    {
      if (i >= bi->level_len[l] || (guint64) i * span >= n)
        return n;
      if (bi->levels[l][i] >= thr)
        break;
      if ((i + 1) % BREAK_FANOUT == 0 && l + 1 < bi->n_levels)
        {
          i = (i + 1) / BREAK_FANOUT;
          l++;
          span *= BREAK_FANOUT;
        }
      else
        i++;
    }

  /* ...then down to the leftmost block that reaches it. */
  while (l > 0)
    {
      l--;
      i *= BREAK_FANOUT;
      while (bi->levels[l][i] < thr)
        i++;
    }
  for (k = i * BREAK_BLOCK; k < n; k++)
    if (key (data, k) >= thr)
      return k;
  return n;
}

/* --- building ----------------------------------------------------------- */

static char *
device_group_title (TsRecorder *rec,
                    gint32      device)
{
  gsize n = ts_recorder_get_count (rec, TS_RECORD_DEVICE);

  for (gsize i = 0; i < n; i++)
    {
      TsDeviceRecord r;

      ts_recorder_get (rec, TS_RECORD_DEVICE, i, &r);
      if ((gint32) r.index == device && r.name != 0)
        return g_strdup_printf ("cuda:%d · %s", device, ts_recorder_lookup (rec, r.name));
    }
  return g_strdup_printf ("cuda:%d", device);
}

static char *
thread_group_title (TsRecorder *rec,
                    guint32     thread)
{
  const char *name = ts_recorder_get_thread_name (rec, thread);

  if (name != NULL)
    /* Translators: a group of the timeline: "Host thread 0 · MainThread" */
    return g_strdup_printf (_("Host thread %u · %s"), thread, name);
  return g_strdup_printf (_("Host thread %u"), thread);
}

/* A device group did no work when its streams have no items and its
 * memory counter never rose: the spare GPUs of a one-GPU example. */
static gboolean
group_is_idle (TsTimelineRenderer *self,
               const Group        *g)
{
  const TsTrack *first = ts_trace_document_get_track (self->document, g->first_track);

  if (first->device < 0)
    return FALSE;
  for (guint k = 0; k < g->n_tracks; k++)
    {
      const TsTrack *t = ts_trace_document_get_track (self->document, g->first_track + k);

      if (t->n_items > 0)
        return FALSE;
      for (guint i = 0; i < t->n_samples; i++)
        if (t->allocated[i] > 0 || t->reserved[i] > 0)
          return FALSE;
    }
  return TRUE;
}

static void
build_titles (TsTimelineRenderer *self)
{
  guint n = ts_trace_document_get_n_tracks (self->document);

  self->track_titles = g_new0 (char *, n + 1);
  for (guint i = 0; i < n; i++)
    self->track_titles[i] = ts_render_track_title (self->recorder, ts_trace_document_get_track (self->document, i));
}

static void
build_groups (TsTimelineRenderer *self)
{
  guint n = ts_trace_document_get_n_tracks (self->document);

  for (guint i = 0; i < n; i++)
    {
      const TsTrack *t = ts_trace_document_get_track (self->document, i);
      Group *last = self->groups->len > 0 ? &g_array_index (self->groups, Group, self->groups->len - 1) : NULL;
      const TsTrack *lt = last != NULL ? ts_trace_document_get_track (self->document, last->first_track) : NULL;
      gboolean same;

      if (lt == NULL)
        same = FALSE;
      else if (t->device < 0)
        same = lt->device < 0 && lt->thread == t->thread;
      else
        same = lt->device == t->device;

      if (same)
        {
          last->n_tracks++;
          continue;
        }

      {
        Group g = { 0 };

        g.first_track = i;
        g.n_tracks = 1;
        g.title = t->device < 0 ? thread_group_title (self->recorder, t->thread)
                                : device_group_title (self->recorder, t->device);
        g_array_append_val (self->groups, g);
      }
    }

  for (guint gi = 0; gi < self->groups->len; gi++)
    {
      Group *g = &g_array_index (self->groups, Group, gi);
      g->idle = group_is_idle (self, g);
    }
}

static double
track_height (const TsTrack *t)
{
  if (t->kind == TS_TRACK_MEMORY)
    return MEMORY_H;
  return MAX (1, t->max_depth) * LANE_H + 2 * TRACK_PAD;
}

static void
build_rows (TsTimelineRenderer *self)
{
  double y = 0;
  guint n_tracks = ts_trace_document_get_n_tracks (self->document);
  gboolean show_idle = ts_timeline_view_state_get_show_idle_devices (self->state);

  g_array_set_size (self->rows, 0);
  for (guint i = 0; i < n_tracks; i++)
    self->track_rows[i] = -1;

  for (guint gi = 0; gi < self->groups->len; gi++)
    {
      const Group *g = &g_array_index (self->groups, Group, gi);
      TsTimelineRow header = { TS_TIMELINE_ROW_GROUP, gi, G_MAXUINT, y, GROUP_H };

      if (g->idle && !show_idle)
        continue;
      g_array_append_val (self->rows, header);
      y += GROUP_H;
      if (ts_timeline_view_state_get_group_folded (self->state, g->title))
        continue;
      for (guint k = 0; k < g->n_tracks; k++)
        {
          guint ti = g->first_track + k;
          const TsTrack *t = ts_trace_document_get_track (self->document, ti);
          TsTimelineRow row = { TS_TIMELINE_ROW_TRACK, gi, ti, y, track_height (t) };

          self->track_rows[ti] = self->rows->len;
          g_array_append_val (self->rows, row);
          y += row.height;
        }
    }
  self->content_height = y;
}

static int
compare_times (gconstpointer a,
               gconstpointer b)
{
  TsTime x = *(const TsTime *) a, y = *(const TsTime *) b;

  return x < y ? -1 : x > y;
}

static int
compare_links (gconstpointer a,
               gconstpointer b)
{
  const Link *x = a, *y = b;

  return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* The times of one kind of event record (records, waits), by the stream
 * track they sit on: the kinds share "stream" and "time" fields, read
 * through the record's field table. */
static void
collect_markers (TsTimelineRenderer *self,
                 GHashTable         *by_stream,
                 TsRecordKind        kind,
                 glong               member)
{
  const TsRecordInfo *info = ts_record_info (kind);
  const TsFieldInfo *stream = ts_record_info_field (info, "stream");
  const TsFieldInfo *time = ts_record_info_field (info, "time");
  gsize n = ts_recorder_get_count (self->recorder, kind);
  guint8 buf[TS_RECORD_MAX_SIZE];

  for (gsize i = 0; i < n; i++)
    {
      guint ti;
      GArray **times;

      ts_recorder_get (self->recorder, kind, i, buf);
      ti = GPOINTER_TO_UINT (g_hash_table_lookup (by_stream, GUINT_TO_POINTER (*(guint32 *) (buf + stream->offset))));
      if (ti == 0)
        continue;
      times = G_STRUCT_MEMBER_P (&self->markers[ti - 1], member);
      if (*times == NULL)
        *times = g_array_new (FALSE, FALSE, sizeof (TsTime));
      g_array_append_vals (*times, buf + time->offset, 1);
    }
}

/* Markers and arrows are not tracks of the document: index them here once,
 * by stream track and time, so drawing them is a window query too. */
static void
build_events (TsTimelineRenderer *self)
{
  guint n_tracks = ts_trace_document_get_n_tracks (self->document);
  g_autoptr(GHashTable) by_stream = g_hash_table_new (NULL, NULL);
  const TsEventLink *links;
  guint n_links;
  TsTime max_t1 = G_MININT64;

  self->markers = g_new0 (Markers, n_tracks);
  for (guint i = 0; i < n_tracks; i++)
    {
      const TsTrack *t = ts_trace_document_get_track (self->document, i);
      if (t->kind == TS_TRACK_STREAM)
        g_hash_table_insert (by_stream, GUINT_TO_POINTER (t->stream), GUINT_TO_POINTER (i + 1));
    }

  collect_markers (self, by_stream, TS_RECORD_EVENT_RECORD, G_STRUCT_OFFSET (Markers, records));
  collect_markers (self, by_stream, TS_RECORD_EVENT_WAIT, G_STRUCT_OFFSET (Markers, waits));

  for (guint i = 0; i < n_tracks; i++)
    {
      if (self->markers[i].records != NULL)
        g_array_sort (self->markers[i].records, compare_times);
      if (self->markers[i].waits != NULL)
        g_array_sort (self->markers[i].waits, compare_times);
      if (self->markers[i].records != NULL)
        self->markers[i].record_breaks = break_index_new (times_key, self->markers[i].records->data,
                                                          self->markers[i].records->len);
      if (self->markers[i].waits != NULL)
        self->markers[i].wait_breaks = break_index_new (times_key, self->markers[i].waits->data,
                                                        self->markers[i].waits->len);
    }

  links = ts_trace_document_get_event_links (self->document, &n_links);
  for (guint i = 0; i < n_links; i++)
    {
      TsEventRecordRecord r;
      TsEventWaitRecord w;
      Link l = { 0 };
      guint from, to;

      ts_recorder_get (self->recorder, TS_RECORD_EVENT_RECORD, links[i].from_record, &r);
      ts_recorder_get (self->recorder, TS_RECORD_EVENT_WAIT, links[i].to_record, &w);
      from = GPOINTER_TO_UINT (g_hash_table_lookup (by_stream, GUINT_TO_POINTER (r.stream)));
      to = GPOINTER_TO_UINT (g_hash_table_lookup (by_stream, GUINT_TO_POINTER (w.stream)));
      if (from == 0 || to == 0)
        continue;
      l.from_track = from - 1;
      l.to_track = to - 1;
      l.from_time = r.time;
      l.to_time = w.time;
      l.t0 = MIN (r.time, w.time);
      l.t1 = MAX (r.time, w.time);
      g_array_append_val (self->links, l);
    }
  g_array_sort (self->links, compare_links);
  for (guint i = 0; i < self->links->len; i++)
    {
      Link *l = &g_array_index (self->links, Link, i);
      max_t1 = MAX (max_t1, l->t1);
      l->max_t1 = max_t1;
    }
}

static void
build_lane_breaks (TsTimelineRenderer *self)
{
  guint n_tracks = ts_trace_document_get_n_tracks (self->document);

  self->lane_breaks = g_new0 (BreakIndex **, MAX (1, n_tracks));
  for (guint i = 0; i < n_tracks; i++)
    {
      const TsTrack *t = ts_trace_document_get_track (self->document, i);
      guint n_depths = MAX (1, t->max_depth);

      if (t->kind == TS_TRACK_MEMORY)
        continue;
      self->lane_breaks[i] = g_new0 (BreakIndex *, n_depths);
      for (guint d = 0; d < n_depths; d++)
        {
          LaneKeyData data = { t, { NULL, 0 } };

          ts_track_get_lane (t, d, &data.lane);
          self->lane_breaks[i][d] = break_index_new (lane_key, &data, data.lane.n_items);
        }
    }
}

static void
build_memory_max (TsTimelineRenderer *self)
{
  guint n_tracks = ts_trace_document_get_n_tracks (self->document);

  self->memory_max = g_new0 (gint64, MAX (1, n_tracks));
  self->memory_blocks = g_new0 (gint64 *, MAX (1, n_tracks));
  for (guint i = 0; i < n_tracks; i++)
    {
      const TsTrack *t = ts_trace_document_get_track (self->document, i);
      guint nb = (t->n_samples + TS_COUNTER_PLOT_BLOCK - 1) / TS_COUNTER_PLOT_BLOCK;
      gint64 *b;

      for (guint s = 0; s < t->n_samples; s++)
        self->memory_max[i] = MAX (self->memory_max[i], MAX (t->allocated[s], t->reserved[s]));
      if (t->n_samples == 0)
        continue;
      b = self->memory_blocks[i] = g_new (gint64, 4 * (gsize) nb);
      ts_counter_plot_build_blocks (t->reserved, t->n_samples, b, b + nb);
      ts_counter_plot_build_blocks (t->allocated, t->n_samples, b + 2 * nb, b + 3 * nb);
    }
}

/* The item of the device work with this correlation id, or else of the API
 * call: a sanitizer access names its launch, which may have no work item. */
static gboolean
locate_correlation (TsTimelineRenderer *self,
                    guint64             correlation,
                    gboolean            prefer_api,
                    guint              *track,
                    guint              *item)
{
  TsItemKind kind;
  guint32 record;

  if (correlation == 0)
    return FALSE;
  if (!prefer_api &&
      ts_trace_document_find_device_work (self->document, correlation, &kind, &record) &&
      ts_trace_document_locate_item (self->document, kind, record, track, item))
    return TRUE;
  if (ts_trace_document_find_api_call (self->document, correlation, &record) &&
      ts_trace_document_locate_item (self->document, TS_ITEM_API_CALL, record, track, item))
    return TRUE;
  if (prefer_api &&
      ts_trace_document_find_device_work (self->document, correlation, &kind, &record) &&
      ts_trace_document_locate_item (self->document, kind, record, track, item))
    return TRUE;
  return FALSE;
}

static TsItemKind
item_kind (TsRecordKind kind)
{
  return kind == TS_RECORD_MEMCPY ? TS_ITEM_MEMCPY : kind == TS_RECORD_MEMSET ? TS_ITEM_MEMSET : TS_ITEM_KERNEL;
}

static gboolean
same_items (const Problem *a,
            const Problem *b)
{
  return a->has_from == b->has_from && a->has_to == b->has_to &&
         (!a->has_from || (a->from_track == b->from_track && a->from_item == b->from_item)) &&
         (!a->has_to || (a->to_track == b->to_track && a->to_item == b->to_item));
}

/* The trace's hazards, except those the sanitizer already reported on the
 * same two items: one mark per mistake. */
static void
build_hazards (TsTimelineRenderer *self)
{
  guint n, n_before = self->problems->len;
  const TsHazard *hazards = ts_trace_document_get_hazards (self->document, &n);

  for (guint i = 0; i < n; i++)
    {
      const TsHazard *h = &hazards[i];
      Problem p = { .kind = TS_TIMELINE_PROBLEM_HAZARD, .record = i };
      gboolean known = FALSE;

      p.has_from = ts_trace_document_locate_item (self->document, item_kind (h->previous.kind), h->previous.record,
                                                  &p.from_track, &p.from_item);
      p.has_to = ts_trace_document_locate_item (self->document, item_kind (h->current.kind), h->current.record,
                                                &p.to_track, &p.to_item);
      for (guint k = 0; k < n_before && !known; k++)
        known = same_items (&g_array_index (self->problems, Problem, k), &p);
      if ((p.has_from || p.has_to) && !known)
        g_array_append_val (self->problems, p);
    }
}

static void
build_problems (TsTimelineRenderer *self)
{
  gsize n = ts_recorder_get_count (self->recorder, TS_RECORD_KERNEL);

  /* Failed kernels are rare: a set of them keeps item_color() cheap. */
  for (gsize i = 0; i < n; i++)
    {
      TsKernelRecord k;

      ts_recorder_get (self->recorder, TS_RECORD_KERNEL, i, &k);
      if (k.error != 0)
        g_hash_table_add (self->failed_kernels, GUINT_TO_POINTER (i + 1));
    }

  n = ts_recorder_get_count (self->recorder, TS_RECORD_ERROR);
  for (gsize i = 0; i < n; i++)
    {
      TsErrorRecord e;
      Problem p = { .kind = TS_TIMELINE_PROBLEM_ERROR, .record = (guint) i };

      ts_recorder_get (self->recorder, TS_RECORD_ERROR, i, &e);
      p.has_from = locate_correlation (self, e.kernel_correlation, FALSE, &p.from_track, &p.from_item);
      p.has_to = locate_correlation (self, e.surfaced_correlation, TRUE, &p.to_track, &p.to_item);
      if (p.has_from || p.has_to)
        g_array_append_val (self->problems, p);
    }

  n = ts_recorder_get_count (self->recorder, TS_RECORD_SANITIZER);
  for (gsize i = 0; i < n; i++)
    {
      TsSanitizerRecord r;
      Problem p = { .kind = TS_TIMELINE_PROBLEM_RACE, .record = (guint) i };

      ts_recorder_get (self->recorder, TS_RECORD_SANITIZER, i, &r);
      p.has_from = locate_correlation (self, r.prev_correlation, FALSE, &p.from_track, &p.from_item);
      p.has_to = locate_correlation (self, r.correlation, FALSE, &p.to_track, &p.to_item);
      if (p.has_from || p.has_to)
        g_array_append_val (self->problems, p);
    }
  build_hazards (self);
}

static int
compare_flags (gconstpointer a,
               gconstpointer b)
{
  TsTime x = ((const TsTimelineFlag *) a)->time, y = ((const TsTimelineFlag *) b)->time;

  return x < y ? -1 : x > y;
}

/* Errors and OOMs get a flag on the ruler and a line down the tracks:
 * they happen at an instant, and a red outline alone is lost at fit zoom. */
static void
build_flags (TsTimelineRenderer *self)
{
  gsize n = ts_recorder_get_count (self->recorder, TS_RECORD_ERROR);

  for (gsize i = 0; i < n; i++)
    {
      TsErrorRecord e;
      TsTimelineFlag flag = { TS_TIMELINE_FLAG_ERROR, 0, i };

      ts_recorder_get (self->recorder, TS_RECORD_ERROR, i, &e);
      flag.time = e.time;
      g_array_append_val (self->flags, flag);
    }

  n = ts_recorder_get_count (self->recorder, TS_RECORD_ALLOC);
  for (gsize i = 0; i < n; i++)
    {
      TsAllocRecord a;
      TsTimelineFlag flag = { TS_TIMELINE_FLAG_OOM, 0, i };

      ts_recorder_get (self->recorder, TS_RECORD_ALLOC, i, &a);
      if (a.action != TS_ALLOC_ACTION_OOM)
        continue;
      flag.time = a.time;
      g_array_append_val (self->flags, flag);
    }
  g_array_sort (self->flags, compare_flags);
}

static void
folded_changed_cb (TsTimelineRenderer *self)
{
  build_rows (self);
}

TsTimelineRenderer *
ts_timeline_renderer_new (TsTraceDocument *document)
{
  return ts_timeline_renderer_new_for_state (document, NULL);
}

/**
 * ts_timeline_renderer_new_for_state:
 * @document: the trace document to draw
 * @state: (nullable): the view state to read, shared with a widget; %NULL
 *   for one of the renderer's own
 */
TsTimelineRenderer *
ts_timeline_renderer_new_for_state (TsTraceDocument     *document,
                                    TsTimelineViewState *state)
{
  TsTimelineRenderer *self;

  g_return_val_if_fail (TS_IS_TRACE_DOCUMENT (document), NULL);
  g_return_val_if_fail (state == NULL || TS_IS_TIMELINE_VIEW_STATE (state), NULL);

  self = g_object_new (TS_TYPE_TIMELINE_RENDERER, NULL);
  self->document = g_object_ref (document);
  self->recorder = ts_trace_document_get_recorder (document);
  self->state = state != NULL ? g_object_ref (state) : ts_timeline_view_state_new ();
  g_signal_connect_object (self->state, "folded-changed",
                           G_CALLBACK (folded_changed_cb), self, G_CONNECT_SWAPPED);
  self->track_rows = g_new (gint, MAX (1, ts_trace_document_get_n_tracks (document)));
  self->track_busy = g_new0 (TsBusyIndex *, MAX (1, ts_trace_document_get_n_tracks (document)));
  _ts_render_i18n_init ();
  build_titles (self);
  build_groups (self);
  build_rows (self);
  build_events (self);
  build_lane_breaks (self);
  build_memory_max (self);
  build_problems (self);
  build_flags (self);
  return self;
}

/**
 * ts_timeline_renderer_get_view_state:
 *
 * Returns: (transfer none): the selection and folded groups it draws
 */
TsTimelineViewState *
ts_timeline_renderer_get_view_state (TsTimelineRenderer *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), NULL);
  return self->state;
}

/* --- simple accessors --------------------------------------------------- */

TsTraceDocument *
ts_timeline_renderer_get_document (TsTimelineRenderer *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), NULL);
  return self->document;
}

void
ts_timeline_renderer_set_dark (TsTimelineRenderer *self,
                               gboolean            dark)
{
  g_return_if_fail (TS_IS_TIMELINE_RENDERER (self));
  self->dark = !!dark;
}

gboolean
ts_timeline_renderer_get_dark (TsTimelineRenderer *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), FALSE);
  return self->dark;
}

void
ts_timeline_renderer_set_label_width (TsTimelineRenderer *self,
                                      double              width)
{
  g_return_if_fail (TS_IS_TIMELINE_RENDERER (self));
  self->label_width = MAX (0, width);
}

double
ts_timeline_renderer_get_label_width (TsTimelineRenderer *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), 0);
  return self->label_width;
}

double
ts_timeline_renderer_get_ruler_height (TsTimelineRenderer *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), 0);
  return RULER_H;
}

guint
ts_timeline_renderer_get_n_groups (TsTimelineRenderer *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), 0);
  return self->groups->len;
}

const char *
ts_timeline_renderer_get_group_title (TsTimelineRenderer *self,
                                      guint               group)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), NULL);
  g_return_val_if_fail (group < self->groups->len, NULL);
  return g_array_index (self->groups, Group, group).title;
}

void
ts_timeline_renderer_set_group_collapsed (TsTimelineRenderer *self,
                                          guint               group,
                                          gboolean            collapsed)
{
  g_return_if_fail (TS_IS_TIMELINE_RENDERER (self));
  g_return_if_fail (group < self->groups->len);
  /* The state's ::folded-changed lays the rows out again. */
  ts_timeline_view_state_set_group_folded (self->state, g_array_index (self->groups, Group, group).title, collapsed);
}

gboolean
ts_timeline_renderer_get_group_collapsed (TsTimelineRenderer *self,
                                          guint               group)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), FALSE);
  g_return_val_if_fail (group < self->groups->len, FALSE);
  return ts_timeline_view_state_get_group_folded (self->state, g_array_index (self->groups, Group, group).title);
}

guint
ts_timeline_renderer_get_n_flags (TsTimelineRenderer *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), 0);
  return self->flags->len;
}

const TsTimelineFlag *
ts_timeline_renderer_get_flag (TsTimelineRenderer *self,
                               guint               index)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), NULL);
  g_return_val_if_fail (index < self->flags->len, NULL);
  return &g_array_index (self->flags, TsTimelineFlag, index);
}

/* A track's name as drawn, in the user's language. */
const char *
ts_timeline_renderer_get_track_title (TsTimelineRenderer *self,
                                      guint               track)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), NULL);
  g_return_val_if_fail (track < ts_trace_document_get_n_tracks (self->document), NULL);
  return self->track_titles[track];
}

/* The share of [begin, end) any stream of a device group was running
 * something; -1 for a host group. */
double
ts_timeline_renderer_get_group_busy (TsTimelineRenderer *self,
                                     guint               group,
                                     TsTime              begin,
                                     TsTime              end)
{
  const TsBusyIndex *busy;

  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), -1);
  g_return_val_if_fail (group < self->groups->len, -1);

  if (!(busy = group_busy (self, &g_array_index (self->groups, Group, group))))
    return -1;
  if (end <= begin)
    return 0;
  return (double) ts_busy_index_busy (busy, begin, end) / (double) (end - begin);
}

/* The API call behind an event marker (cudaEventRecord for a record,
 * cudaStreamWaitEvent for a wait), found by its stream and device time. */
gboolean
ts_timeline_renderer_locate_event_call (TsTimelineRenderer  *self,
                                        const TsTimelineHit *hit,
                                        guint               *track,
                                        guint               *item)
{
  const TsTrack *t;
  gboolean record;
  gsize n;

  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), FALSE);
  g_return_val_if_fail (hit != NULL, FALSE);

  record = hit->kind == TS_TIMELINE_HIT_EVENT_RECORD;
  if (!record && hit->kind != TS_TIMELINE_HIT_EVENT_WAIT)
    return FALSE;
  t = ts_trace_document_get_track (self->document, hit->track);
  n = ts_recorder_get_count (self->recorder, record ? TS_RECORD_EVENT_RECORD : TS_RECORD_EVENT_WAIT);
  for (gsize i = 0; i < n; i++)
    {
      TsEventRecordRecord r;
      TsEventWaitRecord w;
      TsStreamId stream;
      TsTime time;
      guint64 correlation;

      if (record)
        ts_recorder_get (self->recorder, TS_RECORD_EVENT_RECORD, i, &r),
          stream = r.stream, time = r.time, correlation = r.correlation;
      else
        ts_recorder_get (self->recorder, TS_RECORD_EVENT_WAIT, i, &w),
          stream = w.stream, time = w.time, correlation = w.correlation;
      if (stream == t->stream && time == hit->time)
        return locate_correlation (self, correlation, TRUE, track, item);
    }
  return FALSE;
}

/* How many device groups did no work (shown or not). */
guint
ts_timeline_renderer_get_n_idle_groups (TsTimelineRenderer *self)
{
  guint n = 0;

  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), 0);
  for (guint gi = 0; gi < self->groups->len; gi++)
    n += g_array_index (self->groups, Group, gi).idle;
  return n;
}

guint
ts_timeline_renderer_get_n_rows (TsTimelineRenderer *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), 0);
  return self->rows->len;
}

const TsTimelineRow *
ts_timeline_renderer_get_row (TsTimelineRenderer *self,
                              guint               row)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), NULL);
  g_return_val_if_fail (row < self->rows->len, NULL);
  return &g_array_index (self->rows, TsTimelineRow, row);
}

gboolean
ts_timeline_renderer_get_track_row (TsTimelineRenderer *self,
                                    guint               track,
                                    TsTimelineRow      *row)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), FALSE);
  g_return_val_if_fail (track < ts_trace_document_get_n_tracks (self->document), FALSE);

  if (self->track_rows[track] < 0)
    return FALSE;
  if (row != NULL)
    *row = g_array_index (self->rows, TsTimelineRow, self->track_rows[track]);
  return TRUE;
}

double
ts_timeline_renderer_get_content_height (TsTimelineRenderer *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), 0);
  return self->content_height;
}

double
ts_timeline_renderer_time_to_x (TsTimelineRenderer   *self,
                                const TsTimelineView *view,
                                TsTime                time)
{
  double w;

  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), 0);
  g_return_val_if_fail (view != NULL, 0);

  w = MAX (1.0, view->width - self->label_width);
  return self->label_width + (double) (time - view->begin) * w / (double) MAX (1, view->end - view->begin);
}

TsTime
ts_timeline_renderer_x_to_time (TsTimelineRenderer   *self,
                                const TsTimelineView *view,
                                double                x)
{
  double w;

  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), 0);
  g_return_val_if_fail (view != NULL, 0);

  w = MAX (1.0, view->width - self->label_width);
  return view->begin + (TsTime) floor ((x - self->label_width) * (double) MAX (1, view->end - view->begin) / w);
}

guint
ts_timeline_renderer_get_n_problems (TsTimelineRenderer *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), 0);
  return self->problems->len;
}

const TsTimelineProblem *
ts_timeline_renderer_get_problem (TsTimelineRenderer *self,
                                  guint               index)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), NULL);
  g_return_val_if_fail (index < self->problems->len, NULL);
  return &g_array_index (self->problems, TsTimelineProblem, index);
}

/* The track and item of a record, for the UI to outline correlated work. */
gboolean
ts_timeline_renderer_locate_correlation (TsTimelineRenderer *self,
                                         guint64             correlation,
                                         gboolean            prefer_api,
                                         guint              *track,
                                         guint              *item)
{
  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), FALSE);
  g_return_val_if_fail (track != NULL && item != NULL, FALSE);
  return locate_correlation (self, correlation, prefer_api, track, item);
}

void
ts_timeline_renderer_get_draw_stats (TsTimelineRenderer  *self,
                                     TsTimelineDrawStats *stats)
{
  g_return_if_fail (TS_IS_TIMELINE_RENDERER (self));
  g_return_if_fail (stats != NULL);
  *stats = self->stats;
}

/* --- geometry helpers --------------------------------------------------- */

static inline double
frame_x (const Frame *f,
         TsTime       t)
{
  return f->x0 + (double) (t - f->begin) * f->scale;
}

/* The first time whose x is at or right of `x`. */
static inline TsTime
frame_time_at (const Frame *f,
               double       x)
{
  return f->begin + (TsTime) ceil ((x - f->x0) / f->scale);
}

static double
row_top (const Frame         *f,
         const TsTimelineRow *row)
{
  return RULER_H + row->y - f->view->scroll_y;
}

static void
frame_init (Frame                *f,
            TsTimelineRenderer   *self,
            const TsTimelineView *view)
{
  memset (f, 0, sizeof *f);
  f->self = self;
  f->view = view;
  f->p = ts_render_palette_get (self->dark);
  f->begin = view->begin;
  f->end = MAX (view->end, view->begin + 1);
  f->x0 = self->label_width;
  f->x1 = MAX (f->x0 + 1, (double) view->width);
  f->top = RULER_H;
  f->bottom = view->height;
  f->scale = (f->x1 - f->x0) / (double) (f->end - f->begin);
}

typedef struct
{
  const TsTrack     *t;
  const TsTrackLane *lane;
  TsTime             limit;
} LaneBefore;

static gboolean
lane_starts_before (gconstpointer data,
                    guint         i)
{
  const LaneBefore *b = data;

  return b->t->starts[ts_track_lane_item (b->lane, i)] < b->limit;
}

/* First position p >= k of the lane whose item starts at or after `limit`,
 * galloping: a run of m items costs O(log m) however long the lane. */
static guint
lane_gallop (const TsTrack     *t,
             const TsTrackLane *lane,
             guint              k,
             TsTime             limit)
{
  LaneBefore b = { t, lane, limit };

  if (k >= lane->n_items || !lane_starts_before (&b, k))
    return k;
  return _ts_gallop_past (k, lane->n_items, lane_starts_before, &b);
}

/* --- items -------------------------------------------------------------- */

static const TsRenderColor *
item_color (const Frame   *f,
            const TsTrack *t,
            guint          i)
{
  const TsRenderPalette *p = f->p;

  switch ((TsItemKind) t->kinds[i])
    {
    case TS_ITEM_KERNEL:
      if (g_hash_table_size (f->self->failed_kernels) > 0 &&
          g_hash_table_contains (f->self->failed_kernels, GUINT_TO_POINTER (t->records[i] + 1)))
        return &p->kernel_error;
      return &p->kernel[t->labels[i] % TS_RENDER_N_KERNEL_COLORS];
    case TS_ITEM_MEMCPY:
      {
        TsMemcpyRecord r;

        if (!ts_recorder_get (f->self->recorder, TS_RECORD_MEMCPY, t->records[i], &r))
          return &p->copy_htoh;
        switch (r.kind)
          {
          case TS_COPY_HOST_TO_DEVICE: return &p->copy_htod;
          case TS_COPY_DEVICE_TO_HOST: return &p->copy_dtoh;
          case TS_COPY_DEVICE_TO_DEVICE: return &p->copy_dtod;
          case TS_COPY_PEER: return &p->copy_peer;
          default: return &p->copy_htoh;
          }
      }
    case TS_ITEM_MEMSET:
      return &p->memset;
    case TS_ITEM_API_CALL:
      return t->depths[i] == 0 ? &p->api : &p->api_nested;
    case TS_ITEM_SYNC:
      return &p->sync;
    case TS_ITEM_NVTX_RANGE:
      return &p->nvtx[t->labels[i] % TS_RENDER_N_NVTX_COLORS];
    case TS_ITEM_NVTX_MARK:
      return &p->mark;
    default:
      return &p->fold;
    }
}

static cairo_pattern_t *
hatch_pattern (Frame *f)
{
  cairo_pattern_t **slot = &f->self->hatch[f->self->dark ? 1 : 0];

  if (*slot == NULL)
    {
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 8, 8);
      cairo_t *cr = cairo_create (surface);

      ts_render_set_color (cr, &f->p->sync_hatch);
      cairo_set_line_width (cr, 1.5);
      cairo_move_to (cr, -1, 9);
      cairo_line_to (cr, 9, -1);
      cairo_move_to (cr, -1, 1);
      cairo_line_to (cr, 1, -1);
      cairo_move_to (cr, 7, 9);
      cairo_line_to (cr, 9, 7);
      cairo_stroke (cr);
      cairo_destroy (cr);
      *slot = cairo_pattern_create_for_surface (surface);
      cairo_pattern_set_extend (*slot, CAIRO_EXTEND_REPEAT);
      cairo_surface_destroy (surface);
    }
  return *slot;
}

static char *
item_text (const Frame   *f,
           const TsTrack *t,
           guint          i)
{
  if (t->kinds[i] == TS_ITEM_SYNC)
    {
      static const char * const names[] = {
        [TS_SYNC_DEVICE] = N_("Blocked: device synchronize"),
        [TS_SYNC_STREAM] = N_("Blocked: stream synchronize"),
        [TS_SYNC_EVENT] = N_("Blocked: event synchronize"),
        [TS_SYNC_COPY] = N_("Blocked: synchronous copy"),
      };
      TsSyncRecord r;

      if (ts_recorder_get (f->self->recorder, TS_RECORD_SYNC, t->records[i], &r) &&
          r.kind < G_N_ELEMENTS (names) && names[r.kind] != NULL)
        return g_strdup (_(names[r.kind]));
      return g_strdup (_("Blocked"));
    }
  return g_strdup (ts_recorder_lookup (f->self->recorder, t->labels[i]));
}

static void
draw_label (Frame               *f,
            const char          *text,
            const TsRenderColor *color,
            double               x,
            double               y,
            double               w,
            double               h)
{
  int th;

  pango_layout_set_text (f->layout, text, -1);
  pango_layout_set_width (f->layout, (int) (w * PANGO_SCALE));
  pango_layout_get_pixel_size (f->layout, NULL, &th);
  ts_render_set_color (f->cr, color);
  cairo_move_to (f->cr, x, y + floor ((h - th) / 2));
  pango_cairo_show_layout (f->cr, f->layout);
}

static void
draw_mark (Frame               *f,
           const TsRenderColor *color,
           double               x,
           double               y,
           double               h)
{
  cairo_t *cr = f->cr;
  double cx = floor (x) + 0.5;

  ts_render_set_color (cr, color);
  cairo_rectangle (cr, cx - 0.5, y + 1, 1, h - 2);
  cairo_fill (cr);
  cairo_move_to (cr, cx, y + 1);
  cairo_line_to (cr, cx + 4, y + 5);
  cairo_line_to (cr, cx, y + 9);
  cairo_line_to (cr, cx - 4, y + 5);
  cairo_close_path (cr);
  cairo_fill (cr);
}

static void
draw_item (Frame         *f,
           const TsTrack *t,
           guint          i,
           double         xs,
           double         xe,
           double         y,
           double         h)
{
  cairo_t *cr = f->cr;
  const TsRenderColor *color = item_color (f, t, i);
  double x0 = MAX (xs, f->x0 - 2);
  double x1 = MIN (MAX (xe, xs + 1), f->x1 + 2);
  double w = x1 - x0;

  f->self->stats.n_items++;

  if (t->kinds[i] == TS_ITEM_NVTX_MARK)
    {
      draw_mark (f, color, xs, y, h);
      return;
    }

  ts_render_set_color (cr, color);
  cairo_rectangle (cr, x0, y + 1, w, h - 2);
  if (t->kinds[i] == TS_ITEM_SYNC)
    {
      cairo_fill_preserve (cr);
      cairo_set_source (cr, hatch_pattern (f));
    }
  cairo_fill (cr);

  /* A darker edge tells back-to-back items apart. */
  if (w >= 5)
    {
      cairo_set_source_rgba (cr, 0, 0, 0, 0.25);
      cairo_rectangle (cr, x0, y + 1, 1, h - 2);
      cairo_fill (cr);
    }

  if (w >= LABEL_MIN_PX)
    {
      g_autofree char *text = item_text (f, t, i);
      const TsRenderColor *fg = t->kinds[i] == TS_ITEM_SYNC ? &f->p->foreground : ts_render_text_color_on (color);
      /* The label stays in view when the item starts left of the window. */
      double lx = MAX (x0, f->x0) + 3;
      double lw = x1 - lx - 3;

      if (lw >= LABEL_MIN_PX - 6)
        {
          draw_label (f, text, fg, lx, y, lw, h);
          f->self->stats.n_labels++;
        }
    }
}

/* A track's items as one busy index: folds of its top lane are shaded by
 * how much of each pixel column they fill. */
static const TsBusyIndex *
track_busy (TsTimelineRenderer *self,
            guint               track)
{
  if (self->track_busy[track] == NULL)
    {
      const TsTrack *t = ts_trace_document_get_track (self->document, track);
      self->track_busy[track] = ts_busy_index_new (t->starts, t->ends, t->n_items);
    }
  return self->track_busy[track];
}

/* The work of all the streams of a device group, for its utilization. */
static const TsBusyIndex *
group_busy (TsTimelineRenderer *self,
            Group              *g)
{
  const TsTrack *first = ts_trace_document_get_track (self->document, g->first_track);

  if (first->device < 0)
    return NULL;
  if (g->busy == NULL)
    {
      g_autoptr(GArray) starts = g_array_new (FALSE, FALSE, sizeof (TsTime));
      g_autoptr(GArray) ends = g_array_new (FALSE, FALSE, sizeof (TsTime));

      for (guint k = 0; k < g->n_tracks; k++)
        {
          const TsTrack *t = ts_trace_document_get_track (self->document, g->first_track + k);

          if (t->kind != TS_TRACK_STREAM)
            continue;
          g_array_append_vals (starts, t->starts, t->n_items);
          g_array_append_vals (ends, t->ends, t->n_items);
        }
      g->busy = ts_busy_index_new ((const TsTime *) (gpointer) starts->data,
                                   (const TsTime *) (gpointer) ends->data, starts->len);
    }
  return g->busy;
}

/* The busy fraction of each pixel column of [x0, x1), in eighths: drawn
 * as `color` at 0.3 of its alpha when idle up to all of it when full, or,
 * when `bars`, as a bar of that height from the bottom of [y, y + h) (an
 * idle column draws nothing). Runs of columns of one level are one
 * rectangle. */
static void
draw_density (Frame               *f,
              const TsBusyIndex   *busy,
              const TsRenderColor *color,
              double               x0,
              double               x1,
              double               y,
              double               h,
              gboolean             bars)
{
  cairo_t *cr = f->cr;
  double run_x = x0;
  int run_level = -1;

  x0 = MAX (floor (x0), f->x0);
  x1 = MIN (ceil (x1), f->x1);
  for (double x = x0; x <= x1; x++)
    {
      int level = -1;

      if (x < x1)
        {
          TsTime a = frame_time_at (f, x), b = MAX (frame_time_at (f, x + 1), a + 1);
          double frac = (double) ts_busy_index_busy (busy, a, b) / (double) (b - a);

          level = (int) round (CLAMP (frac, 0, 1) * 8);
        }
      if (level == run_level)
        continue;
      if (run_level > 0 || (run_level == 0 && !bars))
        {
          double v = run_level / 8.0;

          if (bars)
            {
              ts_render_set_color (cr, color);
              cairo_rectangle (cr, run_x, y + h - v * h, x - run_x, v * h);
            }
          else
            {
              cairo_set_source_rgba (cr, color->r, color->g, color->b, color->a * (0.3 + 0.7 * v));
              cairo_rectangle (cr, run_x, y, x - run_x, h);
            }
          cairo_fill (cr);
        }
      run_x = x;
      run_level = level;
    }
}

static void
draw_fold (Frame             *f,
           const TsBusyIndex *busy,
           double             x0,
           double             x1,
           double             y,
           double             h,
           guint              count)
{
  cairo_t *cr = f->cr;
  double w = MAX (1, x1 - x0);

  f->self->stats.n_folds++;
  /* Shaded by density where the lane's coverage is known (its top lane):
   * a launch-bound loop reads pale, a busy stream dark. */
  if (busy != NULL && w >= 2)
    draw_density (f, busy, &f->p->fold, x0, x0 + w, y + 1, h - 2, FALSE);
  else
    {
      ts_render_set_color (cr, &f->p->fold);
      cairo_rectangle (cr, x0, y + 1, w, h - 2);
      cairo_fill (cr);
    }

  if (w >= 46)
    {
      char text[32];

      g_snprintf (text, sizeof text, g_dngettext (GETTEXT_PACKAGE, "%u item", "%u items", count), count);
      draw_label (f, text, &f->p->fold_text, MAX (x0, f->x0) + 3, y, MIN (x1, f->x1) - MAX (x0, f->x0) - 6, h);
      f->self->stats.n_labels++;
    }
}

/* The item length or gap, in ns, below which nothing can reach FOLD_PX:
 * slightly under the exact value so that rounding never hides a break
 * (candidates are checked in pixels). */
static TsTime
fold_threshold (const Frame *f,
                double       px)
{
  return MAX (0, (TsTime) floor (px / f->scale * 0.999) - 1);
}

/* One past the end of the fold that starts at lane position k: the first
 * later item that is wide itself or starts FOLD_PX or more after the run's
 * right edge. Candidates come from the lane's break index, so a run of a
 * million items costs a few tree walks. */
static guint
fold_run_end (Frame             *f,
              const TsTrack     *t,
              const TsTrackLane *lane,
              const BreakIndex  *bi,
              guint              k,
              guint              limit)
{
  LaneKeyData data = { t, *lane };
  TsTime thr = fold_threshold (f, TS_TIMELINE_FOLD_PX);
  guint p = k + 1;

  for (;;)
    {
      guint prev, cur;
      double pxs, run_x1, nxs, nxe;

      p = break_index_find (bi, lane_key, &data, p, limit, thr);
      f->self->stats.n_searches++;
      if (p >= limit)
        return limit;
      prev = ts_track_lane_item (lane, p - 1);
      cur = ts_track_lane_item (lane, p);
      pxs = frame_x (f, t->starts[prev]);
      run_x1 = MAX (floor (pxs) + 1, frame_x (f, t->ends[prev]));
      nxs = frame_x (f, t->starts[cur]);
      nxe = frame_x (f, t->ends[cur]);
      if (nxe - nxs >= TS_TIMELINE_FOLD_PX || nxs >= run_x1 + TS_TIMELINE_FOLD_PX)
        return p;
      p++;
    }
}

/* Walks one nesting depth of a track (see the header): wide items are
 * drawn, runs of narrow ones folded. */
static void
draw_lane (Frame             *f,
           const TsTrack     *t,
           const BreakIndex  *bi,
           const TsBusyIndex *busy,
           guint              depth,
           double             y,
           double             h)
{
  TsTrackLane lane;
  guint k, n;

  ts_track_get_lane (t, depth, &lane);
  k = ts_track_lane_find (t, &lane, f->begin);
  n = lane_gallop (t, &lane, k, f->end);
  f->self->stats.n_searches += 2;

  while (k < n)
    {
      guint i = ts_track_lane_item (&lane, k);
      guint first = k, last;
      double xs = frame_x (f, t->starts[i]);
      double xe = frame_x (f, t->ends[i]);
      double run_x0, run_x1;

      if (xe - xs >= TS_TIMELINE_FOLD_PX)
        {
          draw_item (f, t, i, xs, xe, y, h);
          k++;
          continue;
        }

      k = fold_run_end (f, t, &lane, bi, k, n);
      if (k - first == 1)
        {
          draw_item (f, t, i, xs, xe, y, h);
          continue;
        }
      last = ts_track_lane_item (&lane, k - 1);
      run_x0 = MAX (floor (xs), f->x0 - 2);
      run_x1 = MAX (floor (frame_x (f, t->starts[last])) + 1, frame_x (f, t->ends[last]));
      draw_fold (f, busy, run_x0, MIN (run_x1, f->x1 + 2), y, h, k - first);
    }
}

/* --- memory tracks ------------------------------------------------------ */

static void
draw_memory_track (Frame         *f,
                   guint          ti,
                   const TsTrack *t,
                   double         y,
                   double         h)
{
  gint64 max = f->self->memory_max[ti];
  double top = y + 14;
  double ch = h - 18;
  g_autofree char *label = NULL;

  if (t->n_samples == 0)
    return;
  {
    guint nb = (t->n_samples + TS_COUNTER_PLOT_BLOCK - 1) / TS_COUNTER_PLOT_BLOCK;
    const gint64 *b = f->self->memory_blocks[ti];
    TsCounterPlot plot = { t->sample_times, t->reserved, t->n_samples, f->begin, f->end,
                           f->x0, f->x1, top, ch, max, b, b + nb };

    f->self->stats.n_samples += ts_counter_plot_draw (f->cr, &plot, &f->p->reserved);
    plot.values = t->allocated;
    plot.block_min = b + 2 * nb;
    plot.block_max = b + 3 * nb;
    f->self->stats.n_samples += ts_counter_plot_draw (f->cr, &plot, &f->p->allocated);
  }

  label = ts_render_format_bytes ((guint64) MAX (0, max));
  pango_layout_set_width (f->layout, -1);
  pango_layout_set_text (f->layout, label, -1);
  ts_render_set_color (f->cr, &f->p->dim_text);
  cairo_move_to (f->cr, f->x0 + 4, y + 1);
  pango_cairo_show_layout (f->cr, f->layout);
}

/* --- markers and arrows ------------------------------------------------- */

/* Markers closer than MARKER_SIZE pixels merge into one shape (a
 * trapezoid from the first to the last tip): in a zoomed-out frame of a
 * long run a track's thousands of markers become a few paths. */
static void
draw_marker_list (Frame               *f,
                  GArray              *times,
                  const BreakIndex    *bi,
                  const TsRenderColor *color,
                  double               tip,
                  double               base)
{
  const TsTime *v;
  TsTime thr;
  guint n, k;
  double w = MARKER_SIZE * 0.8;

  if (times == NULL)
    return;
  v = (const TsTime *) (gpointer) times->data;
  k = ts_counter_plot_gallop (v, times->len, 0, f->begin);
  n = ts_counter_plot_gallop (v, times->len, k, f->end);
  f->self->stats.n_searches += 2;
  thr = fold_threshold (f, MARKER_SIZE);
  ts_render_set_color (f->cr, color);
  while (k < n)
    {
      guint last = break_index_find (bi, times_key, v, k + 1, n, thr) - 1;
      double x = frame_x (f, v[k]), xl = frame_x (f, v[last]);

      f->self->stats.n_searches++;
      cairo_move_to (f->cr, x - w, base);
      cairo_line_to (f->cr, x, tip);
      cairo_line_to (f->cr, xl, tip);
      cairo_line_to (f->cr, xl + w, base);
      cairo_close_path (f->cr);
      f->self->stats.n_markers++;
      k = last + 1;
    }
  cairo_fill (f->cr);
}

/* Arrow heads are collected and filled in one go after the curves are
 * stroked in one go: thousands of separate strokes cost far more. */
static void
arrow_curve (cairo_t *cr,
             double   x0,
             double   y0,
             double   x1,
             double   y1)
{
  double dy = (y1 - y0) / 2;

  cairo_move_to (cr, x0, y0);
  cairo_curve_to (cr, x0, y0 + dy, x1, y1 - dy, x1, y1);
}

static void
arrow_head (cairo_t *cr,
            double   x0,
            double   y0,
            double   x1,
            double   y1)
{
  double angle = fabs (y1 - y0) > 1 ? (y1 > y0 ? G_PI / 2 : -G_PI / 2) : (x1 >= x0 ? 0 : G_PI);

  cairo_move_to (cr, x1, y1);
  cairo_line_to (cr, x1 - 7 * cos (angle - 0.45), y1 - 7 * sin (angle - 0.45));
  cairo_line_to (cr, x1 - 7 * cos (angle + 0.45), y1 - 7 * sin (angle + 0.45));
  cairo_close_path (cr);
}

static void
draw_links (Frame *f)
{
  GArray *links = f->self->links;
  guint lo = 0, hi = links->len;
  g_autoptr(GHashTable) seen = NULL;
  g_autoptr(GArray) ends = g_array_new (FALSE, FALSE, sizeof (double));

  /* The first link whose right end reaches the window. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (links, Link, mid).max_t1 >= f->begin)
        hi = mid;
      else
        lo = mid + 1;
    }
  f->self->stats.n_searches++;
  if (lo >= links->len)
    return;
  seen = g_hash_table_new (g_int64_hash, g_int64_equal);

  cairo_new_path (f->cr);
  for (guint i = lo; i < links->len && f->self->stats.n_arrows < MAX_ARROWS; i++)
    {
      const Link *l = &g_array_index (links, Link, i);
      gint from_row, to_row;
      const TsTimelineRow *from, *to;
      double x0, x1, y0, y1;
      gint64 *key;

      if (l->t0 >= f->end)
        break;
      if (l->t1 < f->begin)
        continue;
      from_row = f->self->track_rows[l->from_track];
      to_row = f->self->track_rows[l->to_track];
      if (from_row < 0 || to_row < 0)
        continue;
      from = &g_array_index (f->self->rows, TsTimelineRow, from_row);
      to = &g_array_index (f->self->rows, TsTimelineRow, to_row);
      x0 = floor (frame_x (f, l->from_time));
      x1 = floor (frame_x (f, l->to_time));

      /* One arrow per (pixel, pixel, rows): more would draw over it. */
      key = g_newa (gint64, 1);
      *key = ((gint64) CLAMP (x0 + 4096, 0, 65535) << 48) | ((gint64) CLAMP (x1 + 4096, 0, 65535) << 32) |
             ((gint64) (from_row & 0xffff) << 16) | (to_row & 0xffff);
      if (g_hash_table_contains (seen, key))
        continue;
      key = g_memdup2 (key, sizeof *key);
      g_hash_table_add (seen, key);

      if (to->y > from->y)
        y0 = row_top (f, from) + from->height - 2, y1 = row_top (f, to) + 2;
      else if (to->y < from->y)
        y0 = row_top (f, from) + 2, y1 = row_top (f, to) + to->height - 2;
      else
        y0 = y1 = row_top (f, from) + from->height / 2;
      /* Between neighbouring rows the edge-to-edge gap is a few pixels,
       * shorter than the head: join the rows' middles instead, so the
       * arrow reads at any zoom. */
      if (fabs (y1 - y0) < 14 && to->y != from->y)
        {
          y0 = row_top (f, from) + from->height / 2;
          y1 = row_top (f, to) + to->height / 2;
        }
      arrow_curve (f->cr, x0 + 0.5, y0, x1 + 0.5, y1);
      {
        double e[4] = { x0 + 0.5, y0, x1 + 0.5, y1 };
        g_array_append_vals (ends, e, 4);
      }
      f->self->stats.n_arrows++;
      /* Past the limit below nothing is drawn: stop looking. */
      if (f->self->stats.n_arrows > (f->x1 - f->x0) / 8)
        break;
    }

  /* More than one arrow per 8 pixels is a hatch, not information (and
   * stroking thousands of curves costs most of a frame): zoomed out that
   * far, the markers stay and the arrows wait for a closer zoom. */
  if (f->self->stats.n_arrows > (f->x1 - f->x0) / 8)
    {
      cairo_new_path (f->cr);
      f->self->stats.n_arrows = 0;
      goto out;
    }

  ts_render_set_color (f->cr, &f->p->arrow);
  cairo_set_line_width (f->cr, 1.2);
  cairo_stroke (f->cr);
  for (guint i = 0; i + 3 < ends->len; i += 4)
    {
      const double *e = &g_array_index (ends, double, i);
      arrow_head (f->cr, e[0], e[1], e[2], e[3]);
    }
  cairo_fill (f->cr);

out:
  /* The keys were g_memdup2'd; free them with the table. */
  {
    GHashTableIter iter;
    gpointer k;

    g_hash_table_iter_init (&iter, seen);
    while (g_hash_table_iter_next (&iter, &k, NULL))
      g_free (k);
  }
}

/* --- selection ---------------------------------------------------------- */

static void
draw_arrow (cairo_t *cr,
            double   x0,
            double   y0,
            double   x1,
            double   y1)
{
  arrow_curve (cr, x0, y0, x1, y1);
  cairo_stroke (cr);
  arrow_head (cr, x0, y0, x1, y1);
  cairo_fill (cr);
}

static gboolean
item_box (Frame   *f,
          guint    track,
          guint    item,
          double  *x0,
          double  *x1,
          double  *y,
          double  *h)
{
  const TsTrack *t = ts_trace_document_get_track (f->self->document, track);
  TsTimelineRow row;

  if (!ts_timeline_renderer_get_track_row (f->self, track, &row))
    return FALSE;
  *x0 = frame_x (f, t->starts[item]);
  *x1 = MAX (*x0 + 1, frame_x (f, t->ends[item]));
  *y = row_top (f, &row) + TRACK_PAD + t->depths[item] * LANE_H;
  *h = LANE_H;
  return TRUE;
}

/* The partner of a selected item through its correlation id. */
static gboolean
find_partner (TsTimelineRenderer *self,
              guint               track,
              guint               item,
              guint              *partner_track,
              guint              *partner_item)
{
  const TsTrack *t = ts_trace_document_get_track (self->document, track);
  guint32 record = t->records[item];
  guint64 corr = 0;

  switch ((TsItemKind) t->kinds[item])
    {
    case TS_ITEM_KERNEL:
      {
        TsKernelRecord r;
        ts_recorder_get (self->recorder, TS_RECORD_KERNEL, record, &r);
        corr = r.correlation;
      }
      break;
    case TS_ITEM_MEMCPY:
      {
        TsMemcpyRecord r;
        ts_recorder_get (self->recorder, TS_RECORD_MEMCPY, record, &r);
        corr = r.correlation;
      }
      break;
    case TS_ITEM_MEMSET:
      {
        TsMemsetRecord r;
        ts_recorder_get (self->recorder, TS_RECORD_MEMSET, record, &r);
        corr = r.correlation;
      }
      break;
    case TS_ITEM_API_CALL:
      {
        TsApiCallRecord r;
        TsItemKind kind;
        guint32 work;

        ts_recorder_get (self->recorder, TS_RECORD_API_CALL, record, &r);
        if (r.correlation == 0 ||
            !ts_trace_document_find_device_work (self->document, r.correlation, &kind, &work))
          return FALSE;
        return ts_trace_document_locate_item (self->document, kind, work, partner_track, partner_item);
      }
    default:
      return FALSE;
    }

  if (corr == 0 || !ts_trace_document_find_api_call (self->document, corr, &record))
    return FALSE;
  return ts_trace_document_locate_item (self->document, TS_ITEM_API_CALL, record, partner_track, partner_item);
}

static void
draw_selection (Frame *f)
{
  TsTimelineRenderer *self = f->self;
  cairo_t *cr = f->cr;
  double x0, x1, y, h;
  guint track, item, pt, pi;

  /* The state may still hold an item of the document before this one. */
  if (!ts_timeline_view_state_get_selected_item (self->state, &track, &item) ||
      track >= ts_trace_document_get_n_tracks (self->document) ||
      item >= ts_trace_document_get_track (self->document, track)->n_items ||
      !item_box (f, track, item, &x0, &x1, &y, &h))
    return;

  ts_render_set_color (cr, &f->p->selection);
  cairo_set_line_width (cr, 2);
  cairo_rectangle (cr, x0 - 1, y, x1 - x0 + 2, h);
  cairo_stroke (cr);

  if (find_partner (self, track, item, &pt, &pi))
    {
      double px0, px1, py, ph;

      if (item_box (f, pt, pi, &px0, &px1, &py, &ph))
        {
          gboolean down = py > y;

          ts_render_set_color (cr, &f->p->correlation);
          cairo_set_line_width (cr, 1.5);
          cairo_rectangle (cr, px0 - 1, py, px1 - px0 + 2, ph);
          cairo_stroke (cr);
          /* The arrow goes from the API call to the work it launched. */
          if (self->document != NULL && ts_trace_document_get_track (self->document, pt)->kinds[pi] == TS_ITEM_API_CALL)
            draw_arrow (cr, px0, down ? py : py + ph, x0, down ? y : y + h);
          else
            draw_arrow (cr, x0, down ? y + h : y, px0, down ? py : py + ph);
        }
    }
}

static const double hazard_dash[] = { 4, 2 };

/* "Unordered" beside a hazard's later item, white on red, so that the two
 * marked items read as one finding at any zoom (the tooltip says the
 * rest): right of it, or left where the view ends. */
static void
draw_hazard_label (Frame  *f,
                   double  x0,
                   double  x1,
                   double  y)
{
  cairo_t *cr = f->cr;
  double x;
  int tw, th;

  cairo_save (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  pango_layout_set_width (f->layout, -1);
  pango_layout_set_text (f->layout, _("Unordered"), -1);
  pango_layout_get_pixel_size (f->layout, &tw, &th);
  x = x1 + 4 + tw + 8 <= f->x1 ? x1 + 4 : x0 - 4 - tw - 8;
  x = CLAMP (x, f->x0, MAX (f->x0, f->x1 - tw - 8));
  y -= th / 2.0 + 1;
  ts_render_set_color (cr, &f->p->kernel_error);
  cairo_rectangle (cr, x, y, tw + 8, th + 2);
  cairo_fill (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_move_to (cr, x + 4, y + 1);
  pango_cairo_show_layout (cr, f->layout);
  cairo_restore (cr);
}

/* Problems are few and matter most: each is drawn, whatever the zoom, as
 * red outlines on its items (at least a few pixels wide, so a failed
 * kernel inside a fold still shows) and a red arrow between them. */
static void
draw_problems (Frame *f)
{
  TsTimelineRenderer *self = f->self;
  cairo_t *cr = f->cr;

  if (self->problems->len == 0)
    return;

  ts_render_set_color (cr, &f->p->kernel_error);
  for (guint i = 0; i < self->problems->len; i++)
    {
      const Problem *p = &g_array_index (self->problems, Problem, i);
      double ax0 = 0, ax1 = 0, ay = 0, ah = 0, bx0 = 0, bx1 = 0, by = 0, bh = 0;
      gboolean a, b;

      a = p->has_from && item_box (f, p->from_track, p->from_item, &ax0, &ax1, &ay, &ah);
      b = p->has_to && item_box (f, p->to_track, p->to_item, &bx0, &bx1, &by, &bh);
      if (a && ax1 - ax0 < 4)
        ax0 -= 2, ax1 += 2;
      if (b && bx1 - bx0 < 4)
        bx0 -= 2, bx1 += 2;

      /* a hazard is what the trace shows could happen, not what the
       * sanitizer saw: dashed */
      cairo_set_dash (cr, hazard_dash, p->kind == TS_TIMELINE_PROBLEM_HAZARD ? G_N_ELEMENTS (hazard_dash) : 0, 0);
      cairo_set_line_width (cr, 2);
      if (a)
        {
          cairo_rectangle (cr, ax0, ay + 0.5, ax1 - ax0, ah - 1);
          self->stats.n_problems++;
        }
      if (b && !(a && p->from_track == p->to_track && p->from_item == p->to_item))
        {
          cairo_rectangle (cr, bx0, by + 0.5, bx1 - bx0, bh - 1);
          self->stats.n_problems++;
        }
      cairo_stroke (cr);

      if (a && b && !(p->from_track == p->to_track && p->from_item == p->to_item))
        {
          gboolean down = by > ay;
          double fx = p->kind == TS_TIMELINE_PROBLEM_ERROR ? ax1 : (ax0 + ax1) / 2;
          double tx = p->kind == TS_TIMELINE_PROBLEM_ERROR ? bx0 : (bx0 + bx1) / 2;

          cairo_set_line_width (cr, 1.8);
          if (by == ay)
            draw_arrow (cr, fx, ay + ah / 2, tx, by + bh / 2);
          else
            draw_arrow (cr, fx, down ? ay + ah : ay, tx, down ? by : by + bh);
          self->stats.n_arrows++;
          if (p->kind == TS_TIMELINE_PROBLEM_HAZARD)
            draw_hazard_label (f, bx0, bx1, by + bh / 2);
        }
    }
  cairo_set_dash (cr, NULL, 0, 0);
}

/* A red flag hanging from the ruler per error or OOM, and a dashed line
 * down through the tracks, so they are found at any zoom. */
static void
draw_flags (Frame *f)
{
  cairo_t *cr = f->cr;

  for (guint i = 0; i < f->self->flags->len; i++)
    {
      const TsTimelineFlag *flag = &g_array_index (f->self->flags, TsTimelineFlag, i);
      double x = floor (frame_x (f, flag->time)) + 0.5;
      static const double dash[] = { 3, 3 };

      if (x < f->x0 - FLAG_SIZE || x > f->x1 + FLAG_SIZE)
        continue;
      ts_render_set_color (cr, &f->p->kernel_error);
      cairo_move_to (cr, x - FLAG_SIZE, RULER_H - 2 * FLAG_SIZE);
      cairo_line_to (cr, x + FLAG_SIZE, RULER_H - 2 * FLAG_SIZE);
      cairo_line_to (cr, x, RULER_H);
      cairo_close_path (cr);
      cairo_fill (cr);

      cairo_save (cr);
      cairo_rectangle (cr, f->x0, f->top, f->x1 - f->x0, f->bottom - f->top);
      cairo_clip (cr);
      cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
      cairo_set_line_width (cr, 1);
      cairo_move_to (cr, x, RULER_H);
      cairo_line_to (cr, x, f->bottom);
      cairo_stroke (cr);
      cairo_restore (cr);
    }
}

static void
draw_range (Frame *f)
{
  TsTime begin, end;
  double x0, x1;

  ts_timeline_view_state_get_selected_range (f->self->state, &begin, &end);
  if (end <= begin)
    return;
  x0 = MAX (f->x0, frame_x (f, begin));
  x1 = MIN (f->x1, frame_x (f, end));
  if (x1 <= x0)
    return;

  ts_render_set_color (f->cr, &f->p->range_shade);
  cairo_rectangle (f->cr, x0, 0, x1 - x0, f->bottom);
  cairo_fill (f->cr);
  ts_render_set_color (f->cr, &f->p->selection);
  cairo_rectangle (f->cr, floor (x0), 0, 1, f->bottom);
  cairo_rectangle (f->cr, floor (x1), 0, 1, f->bottom);
  cairo_fill (f->cr);
}

/* --- rows and labels ---------------------------------------------------- */

static void
draw_track (Frame               *f,
            const TsTimelineRow *row,
            guint                index)
{
  const TsTrack *t = ts_trace_document_get_track (f->self->document, row->track);
  double y = row_top (f, row);

  if (index % 2 == 1)
    {
      ts_render_set_color (f->cr, &f->p->row_alt);
      cairo_rectangle (f->cr, f->x0, y, f->x1 - f->x0, row->height);
      cairo_fill (f->cr);
    }

  if (t->kind == TS_TRACK_MEMORY)
    {
      draw_memory_track (f, row->track, t, y, row->height);
      return;
    }

  for (guint d = 0; d < MAX (1, t->max_depth); d++)
    {
      double ly = y + TRACK_PAD + d * LANE_H;

      if (ly > f->bottom || ly + LANE_H < f->top)
        continue;
      draw_lane (f, t, f->self->lane_breaks[row->track][d], d == 0 ? track_busy (f->self, row->track) : NULL,
                 d, ly, LANE_H);
    }

  if (t->kind == TS_TRACK_STREAM)
    {
      const Markers *m = &f->self->markers[row->track];

      draw_marker_list (f, m->records, m->record_breaks, &f->p->event_record, y + MARKER_SIZE + 1, y + 1);
      draw_marker_list (f, m->waits, m->wait_breaks, &f->p->event_wait,
                        y + row->height - MARKER_SIZE - 1, y + row->height - 1);
    }
}

static void
draw_row_labels (Frame               *f,
                 const TsTimelineRow *row)
{
  TsTimelineRenderer *self = f->self;
  cairo_t *cr = f->cr;
  double y = row_top (f, row);
  double w = self->label_width;

  if (row->kind == TS_TIMELINE_ROW_GROUP)
    {
      const Group *g = &g_array_index (self->groups, Group, row->group);
      g_autofree char *markup = NULL;

      const TsBusyIndex *busy;

      ts_render_set_color (cr, &f->p->group_bg);
      cairo_rectangle (cr, 0, y, f->x1, row->height);
      cairo_fill (cr);
      /* A device's header is its utilization row: how much of each pixel
       * column any of its streams was running something. */
      if ((busy = group_busy (self, (Group *) g)) != NULL)
        draw_density (f, busy, &f->p->utilization, f->x0, f->x1, y + 2, row->height - 3, TRUE);

      /* The disclosure triangle. */
      ts_render_set_color (cr, &f->p->foreground);
      if (ts_timeline_view_state_get_group_folded (self->state, g->title))
        {
          cairo_move_to (cr, 8, y + 6);
          cairo_line_to (cr, 14, y + 11);
          cairo_line_to (cr, 8, y + 16);
        }
      else
        {
          cairo_move_to (cr, 6, y + 8);
          cairo_line_to (cr, 16, y + 8);
          cairo_line_to (cr, 11, y + 14);
        }
      cairo_close_path (cr);
      cairo_fill (cr);

      markup = g_markup_printf_escaped ("<b>%s</b>", g->title);
      pango_layout_set_width (f->layout, (int) ((f->x1 - 28) * PANGO_SCALE));
      pango_layout_set_markup (f->layout, markup, -1);
      if (busy != NULL)
        {
          int tw, th;

          /* The title stays readable where it reaches over the bars,
           * which still show through. */
          pango_layout_get_pixel_size (f->layout, &tw, &th);
          cairo_set_source_rgba (cr, f->p->group_bg.r, f->p->group_bg.g, f->p->group_bg.b, 0.75);
          cairo_rectangle (cr, f->x0, y, MAX (0, 22 + tw + 6 - f->x0), row->height);
          cairo_fill (cr);
          ts_render_set_color (cr, &f->p->foreground);
        }
      cairo_move_to (cr, 22, y + 3);
      pango_cairo_show_layout (cr, f->layout);
      pango_layout_set_attributes (f->layout, NULL);
      return;
    }

  {
    const TsTrack *t = ts_trace_document_get_track (self->document, row->track);

    ts_render_set_color (cr, &f->p->label_bg);
    cairo_rectangle (cr, 0, y, w, row->height);
    cairo_fill (cr);
    ts_render_set_color (cr, &f->p->separator);
    cairo_rectangle (cr, 0, y + row->height - 1, f->x1, 1);
    cairo_rectangle (cr, w - 1, y, 1, row->height);
    cairo_fill (cr);

    pango_layout_set_width (f->layout, (int) ((w - 24) * PANGO_SCALE));
    pango_layout_set_text (f->layout, f->self->track_titles[row->track], -1);
    ts_render_set_color (cr, &f->p->foreground);
    cairo_move_to (cr, 18, y + 3);
    pango_cairo_show_layout (cr, f->layout);

    if (t->kind == TS_TRACK_MEMORY)
      {
        /* A legend in the series' colours. */
        pango_layout_set_text (f->layout, _("allocated"), -1);
        ts_render_set_color (cr, &f->p->allocated);
        cairo_move_to (cr, 18, y + 21);
        pango_cairo_show_layout (cr, f->layout);
        pango_layout_set_text (f->layout, _("reserved"), -1);
        ts_render_set_color (cr, &f->p->reserved);
        cairo_move_to (cr, 18, y + 37);
        pango_cairo_show_layout (cr, f->layout);
      }
  }
}

void
ts_timeline_renderer_draw (TsTimelineRenderer   *self,
                           cairo_t              *cr,
                           const TsTimelineView *view)
{
  g_autoptr(PangoFontDescription) font = NULL;
  Frame f;

  g_return_if_fail (TS_IS_TIMELINE_RENDERER (self));
  g_return_if_fail (cr != NULL);
  g_return_if_fail (view != NULL);

  memset (&self->stats, 0, sizeof self->stats);
  frame_init (&f, self, view);
  f.cr = cr;
  f.layout = pango_cairo_create_layout (cr);
  font = pango_font_description_from_string ("Sans 8");
  pango_layout_set_font_description (f.layout, font);
  pango_layout_set_ellipsize (f.layout, PANGO_ELLIPSIZE_END);
  pango_layout_set_single_paragraph_mode (f.layout, TRUE);

  cairo_save (cr);
  ts_render_set_color (cr, &f.p->background);
  cairo_paint (cr);

  /* Tracks, clipped to the track area under the ruler. */
  cairo_save (cr);
  cairo_rectangle (cr, f.x0, f.top, f.x1 - f.x0, f.bottom - f.top);
  cairo_clip (cr);
  for (guint r = 0; r < self->rows->len; r++)
    {
      const TsTimelineRow *row = &g_array_index (self->rows, TsTimelineRow, r);
      double y = row_top (&f, row);

      if (y + row->height < f.top || y > f.bottom)
        continue;
      if (row->kind == TS_TIMELINE_ROW_TRACK)
        draw_track (&f, row, r);
    }
  draw_links (&f);
  draw_problems (&f);
  draw_selection (&f);
  cairo_restore (cr);

  /* Group headers span the whole width; track labels fill the left column. */
  cairo_save (cr);
  cairo_rectangle (cr, 0, f.top, f.x1, f.bottom - f.top);
  cairo_clip (cr);
  for (guint r = 0; r < self->rows->len; r++)
    {
      const TsTimelineRow *row = &g_array_index (self->rows, TsTimelineRow, r);
      double y = row_top (&f, row);

      if (y + row->height < f.top || y > f.bottom)
        continue;
      draw_row_labels (&f, row);
    }
  cairo_restore (cr);

  ts_time_ruler_draw (cr, f.layout, f.p, TS_RULER_TIME, f.x0, 0, f.x1 - f.x0, RULER_H, f.bottom, f.begin, f.end);
  ts_render_set_color (cr, &f.p->ruler_bg);
  cairo_rectangle (cr, 0, 0, f.x0, RULER_H);
  cairo_fill (cr);
  ts_render_set_color (cr, &f.p->separator);
  cairo_rectangle (cr, 0, RULER_H - 1, f.x0, 1);
  cairo_fill (cr);

  draw_range (&f);
  draw_flags (&f);
  cairo_restore (cr);
  g_object_unref (f.layout);
}

/* --- hit testing -------------------------------------------------------- */

static gboolean
hit_lane (Frame         *f,
          const TsTrack *t,
          guint          depth,
          TsTime         time,
          TsTimelineHit *hit)
{
  TsTrackLane lane;
  TsTime tol = (TsTime) ceil (2.0 / f->scale);  /* two pixels either side */
  guint k, j, i;

  ts_track_get_lane (t, depth, &lane);
  k = ts_track_lane_find (t, &lane, time - tol);
  if (k >= lane.n_items)
    return FALSE;
  i = ts_track_lane_item (&lane, k);
  if (t->starts[i] > time + tol)
    return FALSE;

  /* Prefer the item that contains the time over a neighbour in tolerance. */
  if (t->ends[i] <= time && k + 1 < lane.n_items)
    {
      guint i2 = ts_track_lane_item (&lane, k + 1);
      if (t->starts[i2] <= time)
        i = i2, k++;
    }

  if (frame_x (f, t->ends[i]) - frame_x (f, t->starts[i]) >= TS_TIMELINE_FOLD_PX)
    {
      hit->kind = TS_TIMELINE_HIT_ITEM;
      hit->item = i;
      hit->n_items = 1;
      return TRUE;
    }

  /* Narrow: part of a fold when neighbours share the pixels. */
  k = ts_track_lane_find (t, &lane, time - tol);
  j = lane_gallop (t, &lane, k, time + tol + 1);
  hit->kind = j - k > 1 ? TS_TIMELINE_HIT_FOLD : TS_TIMELINE_HIT_ITEM;
  hit->item = j - k > 1 ? ts_track_lane_item (&lane, k) : i;
  hit->n_items = MAX (1, j - k);
  return TRUE;
}

static gboolean
hit_flag (Frame         *f,
          double         x,
          double         y,
          TsTimelineHit *hit)
{
  if (y < RULER_H - 2 * FLAG_SIZE - 2)
    return FALSE;
  for (guint i = 0; i < f->self->flags->len; i++)
    {
      const TsTimelineFlag *flag = &g_array_index (f->self->flags, TsTimelineFlag, i);

      if (fabs (frame_x (f, flag->time) - x) <= FLAG_SIZE + 1)
        {
          hit->kind = TS_TIMELINE_HIT_FLAG;
          hit->item = i;
          return TRUE;
        }
    }
  return FALSE;
}

/* The marker of `times` nearest to x, within a marker's width. */
static gboolean
nearest_marker (Frame  *f,
                GArray *times,
                double  x,
                guint  *index)
{
  const TsTime *v;
  guint k;

  if (times == NULL || times->len == 0)
    return FALSE;
  v = (const TsTime *) (gpointer) times->data;
  k = ts_counter_plot_gallop (v, times->len, 0, ts_timeline_renderer_x_to_time (f->self, f->view, x - MARKER_SIZE));
  if (k < times->len && fabs (frame_x (f, v[k]) - x) <= MARKER_SIZE)
    {
      *index = k;
      return TRUE;
    }
  return FALSE;
}

/* Event record markers hang from the top of a stream's row, waits stand
 * on its bottom: a point within a marker's height of either edge. */
static gboolean
hit_marker (Frame         *f,
            guint          track,
            double         x,
            double         ry,
            double         height,
            TsTimelineHit *hit)
{
  const Markers *m = &f->self->markers[track];
  guint index;

  if (ry <= MARKER_SIZE + 2 && nearest_marker (f, m->records, x, &index))
    hit->kind = TS_TIMELINE_HIT_EVENT_RECORD;
  else if (ry >= height - MARKER_SIZE - 2 && nearest_marker (f, m->waits, x, &index))
    hit->kind = TS_TIMELINE_HIT_EVENT_WAIT;
  else
    return FALSE;
  hit->item = index;
  hit->time = g_array_index (hit->kind == TS_TIMELINE_HIT_EVENT_RECORD ? m->records : m->waits, TsTime, index);
  return TRUE;
}

gboolean
ts_timeline_renderer_hit_test (TsTimelineRenderer   *self,
                               const TsTimelineView *view,
                               double                x,
                               double                y,
                               TsTimelineHit        *hit)
{
  const TsTimelineRow *row = NULL;
  const TsTrack *t;
  double cy;
  guint lo = 0, hi;
  Frame f;

  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (self), FALSE);
  g_return_val_if_fail (view != NULL, FALSE);
  g_return_val_if_fail (hit != NULL, FALSE);

  memset (hit, 0, sizeof *hit);
  frame_init (&f, self, view);
  hit->time = ts_timeline_renderer_x_to_time (self, view, x);

  if (y < RULER_H)
    {
      hit->kind = TS_TIMELINE_HIT_RULER;
      hit_flag (&f, x, y, hit);
      return TRUE;
    }

  /* The last row starting at or above the point. */
  cy = y - RULER_H + view->scroll_y;
  hi = self->rows->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (self->rows, TsTimelineRow, mid).y <= cy)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return FALSE;
  row = &g_array_index (self->rows, TsTimelineRow, lo - 1);
  if (cy >= row->y + row->height)
    return FALSE;

  hit->group = row->group;
  if (row->kind == TS_TIMELINE_ROW_GROUP)
    {
      hit->kind = TS_TIMELINE_HIT_GROUP;
      return TRUE;
    }

  hit->track = row->track;
  if (x < self->label_width)
    {
      hit->kind = TS_TIMELINE_HIT_LABEL;
      return TRUE;
    }

  t = ts_trace_document_get_track (self->document, row->track);
  hit->kind = TS_TIMELINE_HIT_TRACK;
  if (t->kind == TS_TRACK_MEMORY)
    {
      guint k = ts_counter_plot_gallop (t->sample_times, t->n_samples, 0, hit->time + 1);
      if (k > 0)
        {
          hit->kind = TS_TIMELINE_HIT_SAMPLE;
          hit->item = k - 1;
        }
      return TRUE;
    }

  if (t->kind == TS_TRACK_STREAM && hit_marker (&f, row->track, x, cy - row->y, row->height, hit))
    return TRUE;

  {
    double ly = cy - row->y - TRACK_PAD;
    guint depth;

    if (ly < 0)
      return TRUE;
    depth = (guint) (ly / LANE_H);
    if (depth >= MAX (1, t->max_depth))
      return TRUE;
    hit->depth = depth;
    hit_lane (&f, t, depth, hit->time, hit);
  }
  return TRUE;
}
