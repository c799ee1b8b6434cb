/* bench-memory-workload.h: a training-like allocator workload, recorded
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shared by bench-memory-replay and bench-memory-scrub.
 */

#pragma once

#include "ts-recorder.h"

G_BEGIN_DECLS

/* A real TsAllocator on simulated device memory, with a recorder attached,
 * runs steps of a training-like loop until n_actions allocator actions
 * are recorded: parameters stay, activations are allocated layer by layer
 * and freed in reverse, temporaries come and go, some tensors are used on
 * a side stream (record_stream), a few buffers accumulate. */
TsRecorder *bench_memory_workload (gsize n_actions);

G_END_DECLS
