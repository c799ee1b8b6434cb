/* ts-memory-view-index.h: what the memory-over-time drawing precomputes
 * once per replay
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A frame of the memory view needs, per device, the allocations alive
 * somewhere in the visible window, how many there are and the `detail`
 * largest of them, and the usage lines sampled per pixel column. Done
 * naively that walks every allocation of the trace and sorts them all on
 * each frame (a million-action trace has a third of a million). This index
 * answers the same questions exactly from what it builds once:
 *
 * - Each device's allocations in allocation order (their alloc actions are
 *   increasing), cut into blocks of TS_MEMORY_VIEW_INDEX_BLOCK, each block
 *   also listed largest first. The allocations that start inside the
 *   window are a range of that order: whole blocks give their candidates
 *   largest first, so picking the top N stops early in each block.
 * - The allocations live at checkpoint instants (spaced at least twice
 *   the live count apart, so all checkpoints take O(allocations) words).
 *   Those alive when the window opens are the checkpoint's, still live
 *   then, plus the few that started between the checkpoint and the window.
 * - The peak of allocated and the maximum of reserved bytes, and the
 *   minimum and maximum of each series per block of samples
 *   (ts_counter_plot_build_blocks), so a zoomed-out pixel column reads a
 *   few blocks instead of thousands of samples.
 *
 * A frame then costs about (live allocations + blocks in the window + N
 * log N), whatever the length of the trace.
 */

#pragma once

#include <glib.h>

#include "ts-memory-replay.h"

G_BEGIN_DECLS

#define TS_MEMORY_VIEW_INDEX_BLOCK 128

typedef struct _TsMemoryViewIndex TsMemoryViewIndex;

/* The replay must stay alive (and unchanged) as long as the index. */
TsMemoryViewIndex *ts_memory_view_index_new          (TsMemoryReplay    *replay);
void               ts_memory_view_index_free         (TsMemoryViewIndex *self);

/* The allocations of `device` alive at some instant of the window that
 * opens after `first` actions and closes after `last`: alloc_action < last
 * and free_completed_action >= first (never freed counts as infinite).
 * Returns how many there are; `top` (guint32 allocation ids, may be NULL
 * when n_top is 0) receives the n_top largest of them by block size (ties:
 * the earlier allocation), in allocation order. */
guint              ts_memory_view_index_query        (TsMemoryViewIndex *self,
                                                      guint              device,
                                                      gsize              first,
                                                      gsize              last,
                                                      guint              n_top,
                                                      GArray            *top);

/* The largest reserved and allocated bytes of the device over the trace.
 * FALSE without samples. */
gboolean           ts_memory_view_index_get_extremes (TsMemoryViewIndex *self,
                                                      guint              device,
                                                      gint64            *max_reserved,
                                                      gint64            *peak_allocated);

typedef enum
{
  TS_MEMORY_VIEW_SERIES_ALLOCATED,
  TS_MEMORY_VIEW_SERIES_ACTIVE,
  TS_MEMORY_VIEW_SERIES_RESERVED,
} TsMemoryViewSeries;

/* Per block of TS_COUNTER_PLOT_BLOCK samples of the device's usage
 * (ts_memory_replay_get_usage), the minimum and maximum of the series.
 * FALSE without samples. */
gboolean           ts_memory_view_index_get_blocks   (TsMemoryViewIndex *self,
                                                      guint              device,
                                                      TsMemoryViewSeries series,
                                                      const gint64     **block_min,
                                                      const gint64     **block_max);

G_END_DECLS
