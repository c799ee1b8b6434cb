/* ts-types.h: small value types shared by every part of the core
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Virtual time in nanoseconds since the start of the run. Signed so that
 * differences need no casts; a run would need 292 years to overflow it. */
typedef gint64 TsTime;

/* A string interned in a recorder's string table; 0 always means "none". */
typedef guint32 TsStringId;

/* A stream, numbered across all devices of a runtime (a "track").
 * The default stream of device d is track d; created streams follow. */
typedef guint32 TsStreamId;

#define TS_STREAM_NONE G_MAXUINT32

/* Where in the user's script a call came from. Interned strings, so a
 * location is three integers and copying it is free. */
typedef struct
{
  TsStringId file;
  TsStringId function;
  guint32    line;
} TsSourceLoc;

#define TS_SOURCE_LOC_NONE ((TsSourceLoc) { 0, 0, 0 })

/* A private memory pool's id, PyTorch's MempoolId_t: (0, n) for a pool the
 * user made (graph_pool_handle, MemPool), (n, 0) for one a graph capture
 * made for itself, (0, 0) for none. */
typedef struct
{
  guint64 first;
  guint64 second;
} TsMemPoolId;

#define TS_MEM_POOL_ID_IS_NONE(id) ((id).first == 0 && (id).second == 0)
#define TS_MEM_POOL_ID_EQUAL(a, b) ((a).first == (b).first && (a).second == (b).second)

typedef enum
{
  TS_COPY_HOST_TO_DEVICE = 1,
  TS_COPY_DEVICE_TO_HOST = 2,
  TS_COPY_DEVICE_TO_DEVICE = 3, /* same device */
  TS_COPY_PEER = 4,             /* between two devices */
  TS_COPY_HOST_TO_HOST = 5,
} TsCopyKind;

/* Flags of a memcpy record. */
typedef enum
{
  TS_COPY_FLAG_NONE = 0,
  TS_COPY_FLAG_PINNED = 1 << 0,  /* the host side is page-locked */
  TS_COPY_FLAG_ASYNC = 1 << 1,   /* non_blocking=True was asked for */
} TsCopyFlags;

typedef enum
{
  TS_SYNC_DEVICE = 1,
  TS_SYNC_STREAM = 2,
  TS_SYNC_EVENT = 3,
  TS_SYNC_COPY = 4,       /* a blocking (pageable or synchronous) copy */
} TsSyncKind;

typedef enum
{
  TS_NVTX_MARK = 1,
  TS_NVTX_PUSH = 2,
  TS_NVTX_POP = 3,
  TS_NVTX_RANGE_START = 4,
  TS_NVTX_RANGE_END = 5,
} TsNvtxKind;

/* The allocator's trace actions, named as PyTorch's memory snapshot does. */
typedef enum
{
  TS_ALLOC_ACTION_ALLOC = 1,
  TS_ALLOC_ACTION_FREE_REQUESTED = 2,
  TS_ALLOC_ACTION_FREE_COMPLETED = 3,
  TS_ALLOC_ACTION_SEGMENT_ALLOC = 4,
  TS_ALLOC_ACTION_SEGMENT_FREE = 5,
  TS_ALLOC_ACTION_OOM = 6,
  TS_ALLOC_ACTION_SNAPSHOT = 7,
  /* Recorder-only actions (never in PyTorch's history): what memory_stats
   * counts that the actions above do not show, so that a trace alone
   * rebuilds every counter (see ts-memory-replay.h). */
  TS_ALLOC_ACTION_ALLOC_RETRY = 8,       /* num_alloc_retries += 1 */
  TS_ALLOC_ACTION_SYNC_ALL_STREAMS = 9,  /* num_sync_all_streams += 1 */
  TS_ALLOC_ACTION_RESET_PEAK = 10,       /* reset_peak_memory_stats */
  TS_ALLOC_ACTION_RESET_ACCUMULATED = 11,/* reset_accumulated_memory_stats */
  TS_ALLOC_ACTION_CONFIG = 12,           /* size: max_split_size now (G_MAXUINT64 unset);
                                          * requested: the max_split_size stat (as guint64) */
  TS_ALLOC_ACTION_MEMORY_FRACTION = 13,  /* size: the allowed bytes (0: no fraction) */
  /* Expandable segments (PyTorch's history has these two): pages of a
   * virtual segment mapped or unmapped; addr and size are the pages'. */
  TS_ALLOC_ACTION_SEGMENT_MAP = 14,
  TS_ALLOC_ACTION_SEGMENT_UNMAP = 15,
} TsAllocAction;

typedef enum
{
  TS_COUNTER_ALLOCATED_BYTES = 1,
  TS_COUNTER_RESERVED_BYTES = 2,
  TS_COUNTER_ACTIVE_BYTES = 3,   /* read, but no longer written: the alloc records give it */
} TsCounterKind;

typedef enum
{
  TS_OUTPUT_STDOUT = 1,
  TS_OUTPUT_STDERR = 2,
  TS_OUTPUT_TOOL = 3,   /* Tensorscope's own messages */
} TsOutputKind;

/* What an access record says a launch does to its range. */
typedef enum
{
  TS_ACCESS_READ = 1,
  TS_ACCESS_WRITE = 2,
  TS_ACCESS_RECORD_STREAM = 3,
} TsAccessMode;

G_END_DECLS
