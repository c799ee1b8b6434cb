/* ts-memory-fragmentation.h: why memory is reserved but not usable
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Figures for one device at one instant of a TsMemoryReplay: reserved,
 * allocated, cached free, the largest free block per pool and stream
 * (free blocks are never shared between streams, so that is what a
 * request on a stream can get without a new cudaMalloc), non-releasable
 * bytes (free blocks inside split segments), internal waste (rounding:
 * block size minus requested size of live blocks), and sentences that say
 * which segments cannot be released and why, and why the last OOM failed
 * although enough was free in total.
 */

#pragma once

#include "ts-memory-replay.h"

G_BEGIN_DECLS

typedef struct
{
  gboolean    is_small;
  TsStreamId  stream;
  TsMemPoolId pool_id;          /* free blocks serve only their own pool's mallocs */
  guint64    largest_free;     /* the largest inactive block */
  guint64    total_free;       /* all inactive bytes of the pool on the stream */
  guint      n_free_blocks;
} TsMemoryFreeSpace;

typedef struct
{
  guint      device;
  gsize      index;            /* the instant (actions applied) */
  gint64     reserved;
  gint64     allocated;
  gint64     active;           /* allocated + pending free */
  gint64     pending_free;     /* freed, waiting on record_stream events */
  gint64     cached_free;      /* reserved - active: inactive blocks */
  gint64     non_releasable;   /* inactive_split_bytes.all.current */
  gint64     releasable;       /* whole free segments: empty_cache returns them */
  gint64     internal_waste;   /* sum of size - requested over live blocks */
  guint64    largest_free[2];  /* per pool: [0] large, [1] small, any stream */
  GArray    *free_space;       /* TsMemoryFreeSpace, by (pool, stream) */
  GPtrArray *explanations;     /* char *: plain-words sentences */
} TsMemoryFragmentation;

/* max_explanations bounds the per-segment sentences (the worst first). */
TsMemoryFragmentation *ts_memory_fragmentation_compute (TsMemoryReplay             *replay,
                                                        const TsMemoryState        *state,
                                                        guint                       device,
                                                        guint                       max_explanations);
void                   ts_memory_fragmentation_free    (TsMemoryFragmentation      *frag);
/* The figures and sentences as a text report, for the CLI. */
char                  *ts_memory_fragmentation_format  (const TsMemoryFragmentation *frag);

/* "20.0 MiB", "512 B", "1.5 GiB": sizes for sentences. */
char                  *ts_memory_format_bytes          (guint64                     bytes);
/* How the views and the CLI name a pool: "default pool", "graph pool (1, 0)"
 * (one a capture made for itself), "private pool (0, 1)" (graph_pool_handle
 * or MemPool). */
char                  *ts_memory_pool_name             (TsMemPoolId                 id);
/* "script.py:12" or "an unknown line". */
char                  *ts_memory_format_loc            (TsRecorder                 *recorder,
                                                        const TsSourceLoc          *loc);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsMemoryFragmentation, ts_memory_fragmentation_free)

G_END_DECLS
