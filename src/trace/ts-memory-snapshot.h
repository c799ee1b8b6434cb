/* ts-memory-snapshot.h: the caching allocator's state at an instant
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What PyTorch's torch.cuda.memory_snapshot() describes: segments split
 * into blocks, and each device's allocator history. The live allocator
 * (src/core/memory) fills one, and so does the memory replay of a trace;
 * both, and the segment map that draws one, need only this file, so it
 * lives in the trace library with the allocator's size rules that a replay
 * needs to say what an out-of-memory request would have asked for.
 */

#pragma once

#include <glib.h>

#include "ts-types.h"

G_BEGIN_DECLS

/* PyTorch's constants (bytes). */
#define TS_ALLOCATOR_MIN_BLOCK_SIZE   G_GUINT64_CONSTANT (512)
#define TS_ALLOCATOR_SMALL_SIZE       G_GUINT64_CONSTANT (1048576)
#define TS_ALLOCATOR_SMALL_BUFFER     G_GUINT64_CONSTANT (2097152)
#define TS_ALLOCATOR_LARGE_BUFFER     G_GUINT64_CONSTANT (20971520)
#define TS_ALLOCATOR_MIN_LARGE_ALLOC  G_GUINT64_CONSTANT (10485760)
#define TS_ALLOCATOR_ROUND_LARGE      G_GUINT64_CONSTANT (2097152)
#define TS_ALLOCATOR_ONE_EXA_BYTE     (G_GUINT64_CONSTANT (1) << 60)
/* max_split_size_mb not set. */
#define TS_MEMORY_MAX_SPLIT_UNSET     G_MAXUINT64

/* Expandable segments map their virtual space in pages of this size. */
#define TS_ALLOCATOR_EXPANDABLE_PAGE(is_small) \
  ((is_small) ? TS_ALLOCATOR_SMALL_BUFFER : TS_ALLOCATOR_LARGE_BUFFER)

/* Snapshot (torch.cuda.memory_snapshot / _snapshot). */
typedef enum
{
  TS_BLOCK_STATE_INACTIVE = 0,
  TS_BLOCK_STATE_ACTIVE_ALLOCATED,
  TS_BLOCK_STATE_ACTIVE_PENDING_FREE,
} TsBlockState;

typedef struct
{
  guint64      address;
  guint64      size;
  guint64      requested_size;   /* stale for inactive blocks, as in PyTorch */
  TsBlockState state;
  TsSourceLoc  loc;              /* of the allocation; none when inactive */
} TsSnapshotBlock;

typedef struct
{
  guint        device;
  TsStreamId   stream;
  guint64      address;
  guint64      total_size;
  guint64      allocated_size;
  guint64      active_size;
  guint64      requested_size;
  gboolean     is_small;         /* segment_type "small" rather than "large" */
  TsSourceLoc  loc;              /* of the malloc that made the segment */
  guint        first_block;      /* into TsMemorySnapshot.blocks */
  guint        n_blocks;
  /* One mapped range of an expandable segment (PyTorch reports each
   * contiguous mapped range as a segment of its own). */
  gboolean     is_expandable;
  TsMemPoolId  pool_id;          /* segment_pool_id; (0, 0) is the default pool */
} TsSnapshotSegment;

/* One entry of a device's trace (the history). For OOM, addr holds the
 * device's free bytes (PyTorch's "device_free"). */
typedef struct
{
  TsTime        time;
  guint64       addr;
  guint64       size;
  TsStreamId    stream;
  TsAllocAction action;
  TsSourceLoc   loc;
} TsAllocTraceEntry;

typedef struct
{
  GArray  *segments;       /* TsSnapshotSegment: device order, then address */
  GArray  *blocks;         /* TsSnapshotBlock */
  guint    n_devices;
  GArray **device_traces;  /* per device, TsAllocTraceEntry, oldest first */
} TsMemorySnapshot;

const char  *ts_block_state_to_string   (TsBlockState      state);
const char  *ts_alloc_action_to_string  (TsAllocAction     action);
void         ts_memory_snapshot_free    (TsMemorySnapshot *snapshot);

/* The segment size PyTorch's allocator asks cudaMalloc for, for a request
 * already rounded by round_size. */
guint64      ts_memory_allocation_size  (guint64           rounded_size);
/* round_size: the block size PyTorch's allocator gives a request, with
 * the roundup_power2_divisions of the request's size interval (0 or 1:
 * none, multiples of 512 bytes). */
guint64      ts_memory_round_size       (guint64           size,
                                         guint64           divisions);
/* format_size of the OOM message: "N bytes", "%.2f KiB", "%.2f MiB", "%.2f GiB". */
char        *ts_memory_format_size      (guint64           size);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsMemorySnapshot, ts_memory_snapshot_free)

G_END_DECLS
