/* ts-memory-replay.h: the caching allocator's state at any instant, from
 * its recorded actions alone
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A trace loaded from a file has no allocator object, only the
 * TsAllocRecords the allocator wrote. They are enough: a segment_alloc
 * makes a segment, an alloc takes the front of the free gap it starts in
 * (the allocator always splits the front off a best-fit free block, and
 * free blocks are always merged with free neighbours, so every free block
 * is a maximal gap between live blocks), free_requested turns the block
 * pending, free_completed drops it and the gap merges. Inactive blocks are
 * therefore "the segment minus its live blocks", and every counter of
 * memory_stats follows from the same steps the allocator takes, including
 * the allocated/freed columns of inactive_split.
 *
 * What is rebuilt exactly: segments (address, size, pool, stream, the
 * line that made them), blocks (address, size, state, and for live blocks
 * the requested size, line and correlation of their allocation) and all
 * 122 keys of memory_stats, provided the recorder was attached before the
 * allocator's first malloc. num_alloc_retries, num_sync_all_streams, the
 * stat resets, max_split_size and the memory fraction come from the
 * recorder-only actions (TS_ALLOC_ACTION_ALLOC_RETRY and following). Not
 * rebuilt: the stale requested_size PyTorch leaves on inactive blocks
 * (reported as 0 here), and plain cudaMallocs made with caching disabled
 * (they are outside the allocator's state, as in PyTorch's snapshot).
 *
 * An instant is an action index: "after the first `index` allocator
 * actions of the trace" (all devices interleaved, in record order). A
 * first pass replays the whole trace once, numbering allocations and
 * segments and keeping a compact checkpoint (live segment and block ids,
 * and the stats) every so many actions; state_at() restores the nearest
 * checkpoint at or before the instant and replays forward from it. The
 * interval grows with the live state (at least TS_MEMORY_REPLAY_MIN_INTERVAL
 * actions, and at least twice the live blocks and segments), so restoring
 * never costs more than replaying, and checkpoints take O(actions) words
 * in total whatever the live state.
 *
 * Bad input (a free of an unknown address, a record for an absurd device)
 * is skipped and counted, never trusted: see get_n_skipped().
 */

#pragma once

#include <glib-object.h>

#include "ts-memory-snapshot.h"
#include "ts-recorder.h"
#include "ts-memory-stats.h"
#include "ts-recorder.h"

G_BEGIN_DECLS

#define TS_MEMORY_REPLAY_MIN_INTERVAL 2048
#define TS_MEMORY_REPLAY_MAX_DEVICES  64
#define TS_MEMORY_REPLAY_NONE         G_MAXUINT32

/* One allocation (an alloc action) and its lifetime, in action indices:
 * active at instant i when alloc_action < i <= free_completed_action
 * (NONE counts as infinite), allocated while i <= free_requested_action. */
typedef struct
{
  guint64     addr;
  guint64     size;              /* block size (rounded, or the whole gap) */
  guint64     requested;         /* unrounded request */
  guint64     correlation;       /* the API call that asked for it */
  TsTime      time;              /* of the alloc action */
  TsSourceLoc loc;
  guint32     device;
  TsStreamId  stream;
  guint32     segment;           /* segment id */
  guint32     alloc_action;
  guint32     free_requested_action;  /* TS_MEMORY_REPLAY_NONE: never */
  guint32     free_completed_action;  /* TS_MEMORY_REPLAY_NONE: never */
  gboolean    is_small;
} TsMemoryAllocation;

typedef struct
{
  guint64     addr;
  guint64     size;
  guint64     correlation;
  TsTime      time;
  TsSourceLoc loc;               /* the malloc that made it */
  guint32     device;
  TsStreamId  stream;
  guint32     alloc_action;
  guint32     free_action;       /* TS_MEMORY_REPLAY_NONE: never freed */
  gboolean    is_small;
  gboolean    is_expandable;     /* a mapped range of an expandable segment */
  TsMemPoolId pool_id;           /* (0, 0): the device's own pools */
} TsMemorySegmentInfo;

/* An OOM, with what the allocator's message needs. */
typedef struct
{
  TsTime      time;
  guint32     action;
  guint32     device;
  TsStreamId  stream;
  TsSourceLoc loc;
  guint64     correlation;
  guint64     rounded_size;      /* the request, rounded */
  guint64     alloc_size;        /* what cudaMalloc was asked for */
  guint64     device_free;
  guint64     device_total;
  guint64     allowed;           /* 0 without a memory fraction */
  gint64      allocated;         /* allocated_bytes.all.current at the OOM */
  gint64      reserved;
  gint64      active;
  gboolean    is_small;
  TsMemPoolId pool_id;           /* the private pool the malloc was for */
} TsMemoryOom;

/* The state at an instant, laid out like TsMemorySnapshot. */
typedef struct
{
  guint64      address;
  guint64      size;
  guint64      requested_size;   /* 0 for inactive blocks */
  TsBlockState state;
  guint32      allocation;       /* allocation id; TS_MEMORY_REPLAY_NONE when inactive */
  guint32      segment;          /* index into TsMemoryState.segments */
} TsMemoryBlock;

typedef struct
{
  guint        device;
  guint32      id;               /* segment id (ts_memory_replay_get_segment) */
  TsStreamId   stream;
  guint64      address;
  guint64      total_size;
  guint64      allocated_size;
  guint64      active_size;
  guint64      requested_size;
  gboolean     is_small;
  TsSourceLoc  loc;
  guint        first_block;      /* into TsMemoryState.blocks */
  guint        n_blocks;
  gboolean     is_expandable;    /* one mapped range of an expandable segment */
  TsMemPoolId  pool_id;          /* segment_pool_id; (0, 0): the default pool */
} TsMemorySegment;

typedef struct
{
  gsize          index;          /* actions applied */
  TsTime         time;           /* time of the last applied action (0 if none) */
  guint          n_devices;
  TsMemoryStats *stats;          /* n_devices */
  guint64       *max_split_size; /* n_devices: the split limit in force */
  guint64       *allowed;        /* n_devices: memory fraction bytes, 0 if none */
  GArray        *segments;       /* TsMemorySegment: device order, then address */
  GArray        *blocks;         /* TsMemoryBlock */
} TsMemoryState;

#define TS_TYPE_MEMORY_REPLAY (ts_memory_replay_get_type ())

G_DECLARE_FINAL_TYPE (TsMemoryReplay, ts_memory_replay, TS, MEMORY_REPLAY, GObject)

/* Reads every TS_RECORD_ALLOC of the recorder (one pass). */
TsMemoryReplay            *ts_memory_replay_new                (TsRecorder      *recorder);
/* Times are the actions' ordinals (0, 1, 2, ...) instead of trace times:
 * the allocator-events axis. */
TsMemoryReplay            *ts_memory_replay_new_by_events      (TsRecorder      *recorder);
gboolean                   ts_memory_replay_get_by_events      (TsMemoryReplay  *self);
/* An action's time on the trace's clock, whichever the replay's axis. */
TsTime                     ts_memory_replay_get_trace_time     (TsMemoryReplay  *self,
                                                                gsize            action);
TsRecorder                *ts_memory_replay_get_recorder       (TsMemoryReplay  *self);

gsize                      ts_memory_replay_get_n_actions      (TsMemoryReplay  *self);
guint                      ts_memory_replay_get_n_devices      (TsMemoryReplay  *self);
gsize                      ts_memory_replay_get_n_skipped      (TsMemoryReplay  *self);
/* Plain cudaMalloc/cudaFree records (requested == size: with caching
 * disabled, or a CUPTI recording of a program whose allocator left no
 * trace): left out of the state, and not counted as skipped. */
gsize                      ts_memory_replay_get_n_plain        (TsMemoryReplay  *self);
TsTime                     ts_memory_replay_get_action_time    (TsMemoryReplay  *self,
                                                                gsize            action);
/* The instant just after every action at or before `time`. */
gsize                      ts_memory_replay_index_at_time      (TsMemoryReplay  *self,
                                                                TsTime           time);

guint                      ts_memory_replay_get_n_allocations  (TsMemoryReplay  *self);
const TsMemoryAllocation  *ts_memory_replay_get_allocation     (TsMemoryReplay  *self,
                                                                guint            id);
guint                      ts_memory_replay_get_n_segments     (TsMemoryReplay  *self);
const TsMemorySegmentInfo *ts_memory_replay_get_segment        (TsMemoryReplay  *self,
                                                                guint            id);
guint                      ts_memory_replay_get_n_ooms         (TsMemoryReplay  *self);
const TsMemoryOom         *ts_memory_replay_get_oom            (TsMemoryReplay  *self,
                                                                guint            index);
/* The allocator's exception text for an OOM, as PyTorch words it. */
char                      *ts_memory_replay_format_oom         (TsMemoryReplay  *self,
                                                                guint            index);

/* Allocated, active and reserved bytes (all pools) of a device after each
 * action that changed them, one sample per distinct time (the last value
 * at that time). The arrays belong to the replay. FALSE for a device with
 * no actions. */
gboolean                   ts_memory_replay_get_usage          (TsMemoryReplay  *self,
                                                                guint            device,
                                                                guint           *n_samples,
                                                                const TsTime   **times,
                                                                const gint64   **allocated,
                                                                const gint64   **active,
                                                                const gint64   **reserved);

/* The allocator's state after `index` actions (clamped to the trace). */
TsMemoryState             *ts_memory_replay_state_at           (TsMemoryReplay  *self,
                                                                gsize            index);
/* Bytes held by the checkpoints, and how many there are. */
gsize                      ts_memory_replay_get_checkpoint_bytes (TsMemoryReplay *self,
                                                                  guint          *n_checkpoints);

void                       ts_memory_state_free                (TsMemoryState   *state);
/* The device's segments: *first into state->segments, *n of them. */
void                       ts_memory_state_device_segments     (const TsMemoryState *state,
                                                                guint            device,
                                                                guint           *first,
                                                                guint           *n);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsMemoryState, ts_memory_state_free)

G_END_DECLS
