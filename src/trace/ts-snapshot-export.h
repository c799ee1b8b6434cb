/* ts-snapshot-export.h: a PyTorch memory snapshot from allocator records
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <stdio.h>

#include "ts-recorder.h"

G_BEGIN_DECLS

/* Writes what torch.cuda.memory._dump_snapshot() writes, from the
 * TS_RECORD_ALLOC records of any trace (a recorded run or an import):
 * "segments" (the state after the last action), "device_traces" (every
 * PyTorch action, with time_us and a one-frame stack where known) and
 * "allocator_settings". Pickle protocol 4 as pickle.load, torch's
 * _memory_viz and the memory_viz page read it: keys and frame lists
 * memoized, ints never wider than 8 bytes. Returns the number of trace
 * entries written, or -1 with `error` set. */
gint64   ts_memory_snapshot_write_pickle (TsRecorder  *recorder,
                                          FILE        *out,
                                          GError     **error);

G_END_DECLS
