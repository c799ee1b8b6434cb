/* bench-document.c: indexing a recorded run into a TsTraceDocument
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Builds the synthetic training loop of bench-render (tests/ts-test-trace)
 * at 1M and 10M records (TS_BENCH_RECORDS=N for one size only) and times
 * ts_trace_document_new() on it: the median and min of REPEATS builds.
 * The app pays this on every trace load and on every live rebuild.
 *
 * It also prints a digest of everything the document exposes (every
 * track's columns and lanes, every item location, every correlation
 * lookup, the event links), so two builds of the library can be checked
 * for identical results: run both and compare the digest lines.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts-test-trace.h"
#include "ts-trace-document.h"

#include "bench-util.h"

#define REPEATS 5

static void
digest_add (GChecksum  *sum,
            const void *data,
            gsize       size)
{
  if (size > 0)
    g_checksum_update (sum, data, size);
}

static char *
document_digest (TsTraceDocument *doc)
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  TsRecorder *rec = ts_trace_document_get_recorder (doc);
  const TsEventLink *links;
  guint n_links;
  TsTime span[2];
  guint64 max_corr = 0;

  ts_trace_document_get_time_span (doc, &span[0], &span[1]);
  digest_add (sum, span, sizeof span);
  for (guint ti = 0; ti < ts_trace_document_get_n_tracks (doc); ti++)
    {
      const TsTrack *t = ts_trace_document_get_track (doc, ti);
      guint n = t->n_items;
      gint32 head[6] = { t->kind, t->device, (gint32) t->thread, (gint32) t->stream, t->priority, t->is_default };

      digest_add (sum, head, sizeof head);
      digest_add (sum, t->title, strlen (t->title));
      digest_add (sum, &t->max_depth, sizeof t->max_depth);
      digest_add (sum, &n, sizeof n);
      digest_add (sum, t->starts, n * sizeof (TsTime));
      digest_add (sum, t->ends, n * sizeof (TsTime));
      digest_add (sum, t->max_ends, n * sizeof (TsTime));
      digest_add (sum, t->kinds, n);
      digest_add (sum, t->depths, n);
      digest_add (sum, t->records, n * sizeof (guint32));
      digest_add (sum, t->labels, n * sizeof (TsStringId));
      for (guint d = 0; d < t->max_depth; d++)
        {
          TsTrackLane lane;

          ts_track_get_lane (t, d, &lane);
          digest_add (sum, &lane.n_items, sizeof lane.n_items);
          for (guint k = 0; k < lane.n_items; k++)
            {
              guint32 i = ts_track_lane_item (&lane, k);
              digest_add (sum, &i, sizeof i);
            }
        }
      digest_add (sum, &t->n_samples, sizeof t->n_samples);
      digest_add (sum, t->sample_times, t->n_samples * sizeof (TsTime));
      digest_add (sum, t->allocated, t->n_samples * sizeof (gint64));
      digest_add (sum, t->reserved, t->n_samples * sizeof (gint64));
    }

  for (TsItemKind k = TS_ITEM_API_CALL; k <= TS_ITEM_NVTX_MARK; k++)
    {
      static const TsRecordKind rk[] = {
        [TS_ITEM_API_CALL] = TS_RECORD_API_CALL, [TS_ITEM_SYNC] = TS_RECORD_SYNC,
        [TS_ITEM_KERNEL] = TS_RECORD_KERNEL, [TS_ITEM_MEMCPY] = TS_RECORD_MEMCPY,
        [TS_ITEM_MEMSET] = TS_RECORD_MEMSET, [TS_ITEM_NVTX_RANGE] = TS_RECORD_NVTX,
        [TS_ITEM_NVTX_MARK] = TS_RECORD_NVTX,
      };
      gsize n = ts_recorder_get_count (rec, rk[k]);

      for (gsize r = 0; r <= n; r++)
        {
          guint where[2] = { G_MAXUINT, G_MAXUINT };

          ts_trace_document_locate_item (doc, k, r, &where[0], &where[1]);
          digest_add (sum, where, sizeof where);
        }
    }

  /* Correlations of the synthetic trace are dense from 1. */
  max_corr = ts_recorder_get_count (rec, TS_RECORD_API_CALL) + 16;
  for (guint64 c = 0; c <= max_corr; c++)
    {
      guint32 v[3] = { G_MAXUINT32, G_MAXUINT32, G_MAXUINT32 };
      TsItemKind kind = 0;

      ts_trace_document_find_api_call (doc, c, &v[0]);
      if (ts_trace_document_find_device_work (doc, c, &kind, &v[1]))
        v[2] = kind;
      digest_add (sum, v, sizeof v);
    }

  links = ts_trace_document_get_event_links (doc, &n_links);
  digest_add (sum, links, n_links * sizeof *links);

  return g_strdup (g_checksum_get_string (sum));
}

static void
run (guint64 target)
{
  TsTestTraceOptions o = { 2, 2, 1, 1000, 1 };
  g_autoptr(TsRecorder) rec = NULL;
  g_autofree char *digest = NULL;
  double s[REPEATS];
  guint n_tracks = 0;

  o.n_steps = MAX (1, target / ts_test_trace_count (&o));
  rec = ts_test_trace_new (&o);

  for (guint i = 0; i < REPEATS; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr(TsTraceDocument) doc = ts_trace_document_new (rec);

      s[i] = (g_get_monotonic_time () - t0) / 1e6;
      n_tracks = ts_trace_document_get_n_tracks (doc);
      if (i == REPEATS - 1 && g_getenv ("TS_BENCH_DIGEST") != NULL)
        digest = document_digest (doc);
    }
  bench_sort (s, REPEATS);
  printf ("%10" G_GUINT64_FORMAT " records %4u tracks   median %.3f s   min %.3f s\n",
          ts_test_trace_count (&o), n_tracks, s[REPEATS / 2], s[0]);
  if (digest != NULL)
    printf ("digest %" G_GUINT64_FORMAT ": %s\n", ts_test_trace_count (&o), digest);
}

int
main (int    argc,
      char **argv)
{
  const char *env = g_getenv ("TS_BENCH_RECORDS");

  printf ("ts_trace_document_new() on the synthetic training loop, %d builds each\n", REPEATS);
  if (env != NULL)
    run (g_ascii_strtoull (env, NULL, 10));
  else
    {
      run (1000000);
      run (10000000);
    }
  printf ("target: 10M records well under 1 s\n");
  return 0;
}
