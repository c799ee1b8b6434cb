/* ts-busy-index.h: how busy a set of spans keeps its owner, per window
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The union of some spans (a device's kernels, copies and memsets on all
 * its streams; one track's items), merged into disjoint intervals with a
 * running sum of their lengths, so that the busy time in any window is
 * two binary searches: what a utilization row asks per pixel column, at
 * any zoom, without walking the items.
 */

#pragma once

#include "ts-types.h"

G_BEGIN_DECLS

typedef struct _TsBusyIndex TsBusyIndex;

/* Spans in any order; those with end <= start are ignored. */
TsBusyIndex *ts_busy_index_new   (const TsTime *starts,
                                  const TsTime *ends,
                                  gsize         n);
void         ts_busy_index_free  (TsBusyIndex  *self);

/* Nanoseconds of [begin, end) covered by at least one span. */
TsTime       ts_busy_index_busy  (const TsBusyIndex *self,
                                  TsTime             begin,
                                  TsTime             end);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsBusyIndex, ts_busy_index_free)

G_END_DECLS
