/* ts-trace-stats.c: statistics of a trace over a time window
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-spans-private.h"
#include "ts-trace-stats.h"

typedef struct
{
  GArray     *array;          /* TsNameStats */
  GHashTable *index;          /* name → position + 1 */
} NameTable;

static void
name_table_init (NameTable *t)
{
  t->array = g_array_new (FALSE, TRUE, sizeof (TsNameStats));
  t->index = g_hash_table_new (NULL, NULL);
}

static void
name_table_add (NameTable  *t,
                TsStringId  name,
                TsTime      duration)
{
  guint pos = GPOINTER_TO_UINT (g_hash_table_lookup (t->index, GUINT_TO_POINTER (name)));
  TsNameStats *s;

  if (pos == 0)
    {
      TsNameStats fresh = { name, 0, 0, G_MAXINT64, G_MININT64 };

      g_array_append_val (t->array, fresh);
      pos = t->array->len;
      g_hash_table_insert (t->index, GUINT_TO_POINTER (name), GUINT_TO_POINTER (pos));
    }
  s = &g_array_index (t->array, TsNameStats, pos - 1);
  s->count++;
  s->total += duration;
  s->min = MIN (s->min, duration);
  s->max = MAX (s->max, duration);
}

static int
compare_names (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  const TsNameStats *x = a, *y = b;
  TsRecorder *rec = user_data;

  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  return strcmp (ts_recorder_lookup (rec, x->name), ts_recorder_lookup (rec, y->name));
}

static GArray *
name_table_finish (NameTable  *t,
                   TsRecorder *rec)
{
  g_hash_table_unref (t->index);
  g_array_sort_with_data (t->array, compare_names, rec);
  return t->array;
}

static gboolean
overlaps (TsTime s,
          TsTime e,
          TsTime begin,
          TsTime end)
{
  if (s == e)
    return s >= begin && s < end;
  return s < end && e > begin;
}

/* Adds [s, e) clipped to the window to a start-ordered union of spans. */
static TsTime
spans_add (GArray *spans,
           TsTime  s,
           TsTime  e,
           TsTime  begin,
           TsTime  end)
{
  TsSpan *last;

  s = MAX (s, begin);
  e = MIN (e, end);
  if (e <= s)
    return 0;
  last = spans->len > 0 ? &g_array_index (spans, TsSpan, spans->len - 1) : NULL;
  if (last != NULL && s <= last->end)
    {
      TsTime grown = MAX (0, e - last->end);
      last->end = MAX (last->end, e);
      return grown;
    }
  {
    TsSpan span = { s, e };
    g_array_append_val (spans, span);
  }
  return e - s;
}

static void
copy_add (GArray  *copies,
          guint32  kind,
          guint64  bytes,
          TsTime   duration)
{
  TsCopyStats *s = NULL;

  for (guint i = 0; i < copies->len; i++)
    if (g_array_index (copies, TsCopyStats, i).kind == kind)
      s = &g_array_index (copies, TsCopyStats, i);
  if (s == NULL)
    {
      TsCopyStats fresh = { kind, 0, 0, 0 };
      guint pos = 0;

      while (pos < copies->len && g_array_index (copies, TsCopyStats, pos).kind < kind)
        pos++;
      g_array_insert_val (copies, pos, fresh);
      s = &g_array_index (copies, TsCopyStats, pos);
    }
  s->count++;
  s->bytes += bytes;
  s->total += duration;
}

static void
memory_peak (TsTraceStats  *stats,
             const TsTrack *t)
{
  TsMemoryPeak peak = { t->device, 0, 0, 0 };
  guint k = 0;

  if (t->n_samples == 0)
    return;
  /* The value in force at the window's start counts, then every sample
   * inside the window. */
  while (k < t->n_samples && t->sample_times[k] <= stats->begin)
    k++;
  if (k > 0)
    {
      peak.peak_allocated = t->allocated[k - 1];
      peak.peak_allocated_time = stats->begin;
      peak.peak_reserved = t->reserved[k - 1];
    }
  for (; k < t->n_samples && t->sample_times[k] < stats->end; k++)
    {
      if (t->allocated[k] > peak.peak_allocated)
        {
          peak.peak_allocated = t->allocated[k];
          peak.peak_allocated_time = t->sample_times[k];
        }
      peak.peak_reserved = MAX (peak.peak_reserved, t->reserved[k]);
    }
  g_array_append_val (stats->memory, peak);
}

TsTraceStats *
ts_trace_stats_compute (TsTraceDocument *document,
                        TsTime           begin,
                        TsTime           end)
{
  TsRecorder *rec;
  TsTraceStats *stats;
  NameTable kernels, api, nvtx;
  g_autoptr(GPtrArray) busy = NULL;
  g_autoptr(GArray) blocked = g_array_new (FALSE, FALSE, sizeof (TsSpan));
  guint n_tracks;

  g_return_val_if_fail (TS_IS_TRACE_DOCUMENT (document), NULL);

  rec = ts_trace_document_get_recorder (document);
  stats = g_new0 (TsTraceStats, 1);
  stats->begin = begin;
  stats->end = MAX (begin, end);
  stats->copies = g_array_new (FALSE, TRUE, sizeof (TsCopyStats));
  stats->streams = g_array_new (FALSE, TRUE, sizeof (TsStreamStats));
  stats->overlaps = g_array_new (FALSE, TRUE, sizeof (TsStreamOverlap));
  stats->memory = g_array_new (FALSE, TRUE, sizeof (TsMemoryPeak));
  name_table_init (&kernels);
  name_table_init (&api);
  name_table_init (&nvtx);
  busy = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);

  n_tracks = ts_trace_document_get_n_tracks (document);
  for (guint ti = 0; ti < n_tracks; ti++)
    {
      const TsTrack *t = ts_trace_document_get_track (document, ti);
      TsStreamStats ss = { ti, t->stream, t->device, 0, 0 };
      GArray *spans = NULL;
      guint first, last;

      if (t->kind == TS_TRACK_MEMORY)
        {
          memory_peak (stats, t);
          continue;
        }
      if (t->kind == TS_TRACK_STREAM)
        spans = g_array_new (FALSE, FALSE, sizeof (TsSpan));

      ts_track_find_range (t, stats->begin, stats->end, &first, &last);
      for (guint i = first; i < last; i++)
        {
          TsTime s = t->starts[i], e = t->ends[i];

          if (!overlaps (s, e, stats->begin, stats->end))
            continue;
          switch ((TsItemKind) t->kinds[i])
            {
            case TS_ITEM_KERNEL:
              name_table_add (&kernels, t->labels[i], e - s);
              stats->kernel_total += e - s;
              break;
            case TS_ITEM_MEMCPY:
              {
                TsMemcpyRecord r;
                ts_recorder_get (rec, TS_RECORD_MEMCPY, t->records[i], &r);
                copy_add (stats->copies, r.kind, r.bytes, e - s);
              }
              break;
            case TS_ITEM_MEMSET:
              {
                TsMemsetRecord r;
                ts_recorder_get (rec, TS_RECORD_MEMSET, t->records[i], &r);
                stats->memsets.count++;
                stats->memsets.bytes += r.bytes;
                stats->memsets.total += e - s;
              }
              break;
            case TS_ITEM_API_CALL:
              name_table_add (&api, t->labels[i], e - s);
              break;
            case TS_ITEM_SYNC:
              {
                TsSpan span = { MAX (s, stats->begin), MIN (e, stats->end) };
                if (span.end > span.start)
                  g_array_append_val (blocked, span);
              }
              break;
            case TS_ITEM_NVTX_RANGE:
              name_table_add (&nvtx, t->labels[i], e - s);
              break;
            case TS_ITEM_NVTX_MARK:
            default:
              break;
            }
          if (spans != NULL)
            {
              ss.n_items++;
              ss.busy += spans_add (spans, s, e, stats->begin, stats->end);
            }
        }

      if (spans != NULL && ss.n_items > 0)
        {
          g_array_append_val (stats->streams, ss);
          g_ptr_array_add (busy, spans);
        }
      else if (spans != NULL)
        g_array_unref (spans);
    }

  /* Blocked spans of one thread do not overlap; different threads add up. */
  for (guint i = 0; i < blocked->len; i++)
    stats->host_blocked += g_array_index (blocked, TsSpan, i).end - g_array_index (blocked, TsSpan, i).start;

  for (guint a = 0; a < stats->streams->len; a++)
    for (guint b = a + 1; b < stats->streams->len; b++)
      {
        const TsStreamStats *x = &g_array_index (stats->streams, TsStreamStats, a);
        const TsStreamStats *y = &g_array_index (stats->streams, TsStreamStats, b);
        TsStreamOverlap o = { a, b, 0 };

        if (x->device != y->device)
          continue;
        o.overlap = ts_spans_intersection (g_ptr_array_index (busy, a), g_ptr_array_index (busy, b));
        g_array_append_val (stats->overlaps, o);
      }

  stats->kernels = name_table_finish (&kernels, rec);
  stats->api_calls = name_table_finish (&api, rec);
  stats->nvtx_ranges = name_table_finish (&nvtx, rec);
  return stats;
}

void
ts_trace_stats_free (TsTraceStats *stats)
{
  if (stats == NULL)
    return;
  g_clear_pointer (&stats->kernels, g_array_unref);
  g_clear_pointer (&stats->api_calls, g_array_unref);
  g_clear_pointer (&stats->nvtx_ranges, g_array_unref);
  g_clear_pointer (&stats->copies, g_array_unref);
  g_clear_pointer (&stats->streams, g_array_unref);
  g_clear_pointer (&stats->overlaps, g_array_unref);
  g_clear_pointer (&stats->memory, g_array_unref);
  g_free (stats);
}
