/* ts-rank-stats.c: per-rank comparison of a multi-rank import
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What HTA's temporal breakdown and comm/compute overlap give per rank, and
 * the straggler of each step: step times from the ProfilerStep#N ranges of
 * the rank's host threads; GPU busy, compute and communication time as
 * unions of intervals on the rank's devices (NCCL kernels by name, see
 * ts_kernel_name_is_communication); overlap = communication time during
 * which a compute kernel also ran; idle = span - busy.
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ts-rank-stats.h"
#include "ts-spans-private.h"
#include "ts-trace-import.h"

typedef struct
{
  GArray     *compute, *comm, *busy;
  GHashTable *steps;   /* step + 1 -> TsTime* */
  TsTime      first, last;
} Work;

static void
work_free (gpointer p)
{
  Work *w = p;
  g_array_unref (w->compute);
  g_array_unref (w->comm);
  g_array_unref (w->busy);
  g_hash_table_unref (w->steps);
  g_free (w);
}

static Work *
work_for (GHashTable *works,
          gint        rank)
{
  Work *w = g_hash_table_lookup (works, GINT_TO_POINTER (rank + 1));

  if (w == NULL)
    {
      w = g_new0 (Work, 1);
      w->compute = g_array_new (FALSE, FALSE, sizeof (TsSpan));
      w->comm = g_array_new (FALSE, FALSE, sizeof (TsSpan));
      w->busy = g_array_new (FALSE, FALSE, sizeof (TsSpan));
      w->steps = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      w->first = G_MAXINT64;
      w->last = G_MININT64;
      g_hash_table_insert (works, GINT_TO_POINTER (rank + 1), w);
    }
  return w;
}

static void
add_busy (Work  *w,
          TsTime a,
          TsTime b)
{
  TsSpan s = { a, b };
  g_array_append_val (w->busy, s);
  w->first = MIN (w->first, a);
  w->last = MAX (w->last, b);
}

/* The rank of a device or thread, -1 for none: MAP holds key + 1 -> rank + 1. */
#define RANK_OF(map, key) (GPOINTER_TO_INT (g_hash_table_lookup ((map), GUINT_TO_POINTER ((key) + 1))) - 1)

/* Copies and memsets: busy time of their device's rank, neither compute
 * nor communication. */
static void
add_device_busy (GHashTable *works,
                 GHashTable *dev_rank,
                 guint32     device,
                 TsTime      start,
                 TsTime      end)
{
  gint r = RANK_OF (dev_rank, device);

  if (r >= 0)
    add_busy (work_for (works, r), start, end);
}

static int
cmp_rank (gconstpointer a,
          gconstpointer b)
{
  return ((const TsRankStats *) a)->rank - ((const TsRankStats *) b)->rank;
}

static int
cmp_step (gconstpointer a,
          gconstpointer b)
{
  guint x = ((const TsRankStep *) a)->step, y = ((const TsRankStep *) b)->step;
  return x < y ? -1 : x > y;
}

gboolean
ts_rank_stats_compute (TsRecorder  *rec,
                       GArray     **ranks_out,
                       GArray     **steps_out)
{
  g_autoptr(GHashTable) works = g_hash_table_new_full (NULL, NULL, NULL, work_free);
  g_autoptr(GHashTable) dev_rank = NULL;
  g_autoptr(GHashTable) thread_rank = NULL;
  g_autoptr(GHashTable) open = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  GArray *ranks, *steps;
  gsize n;

  ts_trace_import_rank_maps (rec, &dev_rank, &thread_rank);
  if (g_hash_table_size (dev_rank) == 0 && g_hash_table_size (thread_rank) == 0)
    return FALSE;

  n = ts_recorder_get_count (rec, TS_RECORD_KERNEL);
  for (gsize i = 0; i < n; i++)
    {
      TsKernelRecord k;
      gint r;
      Work *w;
      TsSpan s;
      ts_recorder_get (rec, TS_RECORD_KERNEL, i, &k);
      if ((r = RANK_OF (dev_rank, k.device)) < 0)
        continue;
      w = work_for (works, r);
      s.start = k.start;
      s.end = k.end;
      add_busy (w, k.start, k.end);
      if (ts_kernel_name_is_communication (ts_recorder_lookup (rec, k.name)))
        g_array_append_val (w->comm, s);
      else
        g_array_append_val (w->compute, s);
    }
  n = ts_recorder_get_count (rec, TS_RECORD_MEMCPY);
  for (gsize i = 0; i < n; i++)
    {
      TsMemcpyRecord m;
      ts_recorder_get (rec, TS_RECORD_MEMCPY, i, &m);
      add_device_busy (works, dev_rank, m.device, m.start, m.end);
    }
  n = ts_recorder_get_count (rec, TS_RECORD_MEMSET);
  for (gsize i = 0; i < n; i++)
    {
      TsMemsetRecord m;
      ts_recorder_get (rec, TS_RECORD_MEMSET, i, &m);
      add_device_busy (works, dev_rank, m.device, m.start, m.end);
    }
  /* ProfilerStep#N ranges of the host threads */
  n = ts_recorder_get_count (rec, TS_RECORD_NVTX);
  for (gsize i = 0; i < n; i++)
    {
      TsNvtxRecord v;
      const char *msg;
      gint r;
      ts_recorder_get (rec, TS_RECORD_NVTX, i, &v);
      if ((r = RANK_OF (thread_rank, v.thread)) < 0 || v.range_id == 0)
        continue;
      msg = ts_recorder_lookup (rec, v.message);
      if (!g_str_has_prefix (msg, "ProfilerStep#"))
        continue;
      if (v.kind == 4 /* TS_NVTX_RANGE_START */)
        g_hash_table_insert (open, GSIZE_TO_POINTER (v.range_id), g_memdup2 (&v.time, sizeof v.time));
      else if (v.kind == 5 /* TS_NVTX_RANGE_END */)
        {
          TsTime *start = g_hash_table_lookup (open, GSIZE_TO_POINTER (v.range_id));
          guint64 step = g_ascii_strtoull (msg + strlen ("ProfilerStep#"), NULL, 10);
          Work *w = work_for (works, r);
          if (start == NULL || step > G_MAXUINT32 - 1)
            continue;
          /* The longest range per step and rank: the host's
           * ProfilerStep (the GPU's projection covers only its kernels) */
          {
            TsTime *have = g_hash_table_lookup (w->steps, GUINT_TO_POINTER ((guint) step + 1));
            TsTime d = v.time - *start;
            if (have == NULL || d > *have)
              g_hash_table_insert (w->steps, GUINT_TO_POINTER ((guint) step + 1), g_memdup2 (&d, sizeof d));
          }
        }
    }

  ranks = g_array_new (FALSE, TRUE, sizeof (TsRankStats));
  steps = g_array_new (FALSE, TRUE, sizeof (TsRankStep));
  {
    GHashTableIter it;
    gpointer k, v;
    g_autoptr(GHashTable) by_step = g_hash_table_new_full (NULL, NULL, NULL, g_free);

    g_hash_table_iter_init (&it, works);
    while (g_hash_table_iter_next (&it, &k, &v))
      {
        Work *w = v;
        TsRankStats s = { 0 };
        GHashTableIter si;
        gpointer sk, sv;

        s.rank = GPOINTER_TO_INT (k) - 1;
        s.busy = ts_spans_merge (w->busy);
        s.compute = ts_spans_merge (w->compute);
        s.comm = ts_spans_merge (w->comm);
        s.overlap = ts_spans_intersection (w->comm, w->compute);
        s.span = w->last > w->first ? w->last - w->first : 0;
        s.idle = s.span - s.busy;
        g_hash_table_iter_init (&si, w->steps);
        while (g_hash_table_iter_next (&si, &sk, &sv))
          {
            TsTime d = *(TsTime *) sv;
            guint step = GPOINTER_TO_UINT (sk) - 1;
            TsRankStep *rs = g_hash_table_lookup (by_step, sk);
            s.n_steps++;
            s.step_total += d;
            s.step_max = MAX (s.step_max, d);
            if (rs == NULL)
              {
                rs = g_new0 (TsRankStep, 1);
                rs->step = step;
                rs->slowest_rank = rs->fastest_rank = s.rank;
                rs->slowest = rs->fastest = d;
                g_hash_table_insert (by_step, sk, rs);
              }
            else
              {
                if (d > rs->slowest || (d == rs->slowest && s.rank < rs->slowest_rank))
                  rs->slowest = d, rs->slowest_rank = s.rank;
                if (d < rs->fastest || (d == rs->fastest && s.rank < rs->fastest_rank))
                  rs->fastest = d, rs->fastest_rank = s.rank;
              }
          }
        g_array_append_val (ranks, s);
      }
    g_hash_table_iter_init (&it, by_step);
    while (g_hash_table_iter_next (&it, NULL, &v))
      g_array_append_val (steps, *(TsRankStep *) v);
  }
  g_array_sort (ranks, cmp_rank);
  g_array_sort (steps, cmp_step);
  *ranks_out = ranks;
  *steps_out = steps;
  return TRUE;
#undef RANK_OF
}
