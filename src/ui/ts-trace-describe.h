/* ts-trace-describe.h: words for what the timeline shows
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The details of one item and the statistics of a range, as Pango markup
 * for the trace view's panels (and as the same text for the tests).
 */

#pragma once

#include "ts-timeline-renderer.h"
#include "ts-trace-stats.h"

G_BEGIN_DECLS

/* Where in the script an item comes from: its own location (API calls,
 * NVTX) or that of the API call that launched it (device work, syncs).
 * FALSE when the trace does not say. */
gboolean  ts_trace_item_source      (TsTraceDocument    *document,
                                     guint               track,
                                     guint               item,
                                     TsSourceLoc        *loc);

/* The details panel: name, kind, times, track, the kind's own fields, the
 * correlated API call or device work, the source line and any error or
 * race report that involves the item. */
char     *ts_trace_describe_item    (TsTimelineRenderer *renderer,
                                     guint               track,
                                     guint               item);

/* The statistics panel for a range: per-name count/total/mean of kernels,
 * API calls and NVTX ranges, copies, busy % per stream and overlap between
 * streams of a device. */
char     *ts_trace_name_streams     (TsRecorder         *recorder,
                                     const char         *text);
char     *ts_trace_describe_stats   (TsTraceDocument    *document,
                                     const TsTraceStats *stats);

G_END_DECLS
