/* ts-trace-stats.h: statistics of a trace over a time window
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What `tensorscope-cli report` prints for the whole run and what the app
 * shows for a selected range, computed the same way: per-name statistics
 * of kernels, API calls and NVTX ranges, copies by kind, per-stream busy
 * time and the overlap between streams of a device, peak memory.
 *
 * Window semantics: an item is counted when it overlaps [begin, end) (a
 * zero-length one when begin <= t < end), with its whole duration, as
 * Perfetto's area selection does; busy and overlap times are clipped to the
 * window, so busy / (end - begin) is a utilisation.
 */

#pragma once

#include "ts-trace-document.h"

G_BEGIN_DECLS

typedef struct
{
  TsStringId name;
  guint64    count;
  TsTime     total;
  TsTime     min;
  TsTime     max;
} TsNameStats;

typedef struct
{
  guint32    kind;            /* TsCopyKind; 0 for memsets */
  guint64    count;
  guint64    bytes;
  TsTime     total;
} TsCopyStats;

typedef struct
{
  guint      track;           /* document track index */
  TsStreamId stream;
  gint32     device;
  guint64    n_items;
  TsTime     busy;            /* union of the items' spans, clipped */
} TsStreamStats;

typedef struct
{
  guint      a;               /* indices into TsTraceStats.streams */
  guint      b;
  TsTime     overlap;         /* time both were busy, clipped */
} TsStreamOverlap;

typedef struct
{
  gint32     device;
  gint64     peak_allocated;
  TsTime     peak_allocated_time;
  gint64     peak_reserved;
} TsMemoryPeak;

typedef struct
{
  TsTime  begin;
  TsTime  end;
  GArray *kernels;            /* TsNameStats, by total time descending, then name */
  GArray *api_calls;          /* TsNameStats */
  GArray *nvtx_ranges;        /* TsNameStats */
  GArray *copies;             /* TsCopyStats, one per kind seen, by kind */
  TsCopyStats memsets;
  TsTime  kernel_total;       /* all kernels' time: the base of "% of GPU time" */
  TsTime  host_blocked;       /* host time blocked in syncs, clipped */
  GArray *streams;            /* TsStreamStats of streams with work, in track order */
  GArray *overlaps;           /* TsStreamOverlap, every pair of streams of one device */
  GArray *memory;             /* TsMemoryPeak, by device */
} TsTraceStats;

/* Statistics of the items overlapping [begin, end). */
TsTraceStats *ts_trace_stats_compute (TsTraceDocument *document,
                                      TsTime           begin,
                                      TsTime           end);
void          ts_trace_stats_free    (TsTraceStats    *stats);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsTraceStats, ts_trace_stats_free)

G_END_DECLS
