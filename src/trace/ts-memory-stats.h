/* ts-memory-stats.h: torch.cuda.memory_stats() and memory_summary()
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The caching allocator's counters for one device, as PyTorch keeps them
 * (DeviceStats), the flattened "a.b.c" key names in the order Python returns
 * them (sorted by key, 122 keys), and the memory_summary() table, byte for
 * byte.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* increase(n): current += n, peak = max(peak, current), allocated += n.
 * decrease(n): current -= n, freed += n. */
typedef struct
{
  gint64 current;
  gint64 peak;
  gint64 allocated;
  gint64 freed;
} TsStat;

typedef enum
{
  TS_STAT_TYPE_ALL = 0,       /* "all" */
  TS_STAT_TYPE_LARGE_POOL,    /* "large_pool" */
  TS_STAT_TYPE_SMALL_POOL,    /* "small_pool" */
  TS_N_STAT_TYPES
} TsStatType;

typedef struct
{
  TsStat allocation[TS_N_STAT_TYPES];           /* allocated blocks */
  TsStat segment[TS_N_STAT_TYPES];              /* cudaMalloc'd segments */
  TsStat active[TS_N_STAT_TYPES];               /* allocated or pending-free blocks */
  TsStat inactive_split[TS_N_STAT_TYPES];       /* free blocks in split segments */
  TsStat allocated_bytes[TS_N_STAT_TYPES];
  TsStat reserved_bytes[TS_N_STAT_TYPES];
  TsStat active_bytes[TS_N_STAT_TYPES];
  TsStat inactive_split_bytes[TS_N_STAT_TYPES];
  TsStat requested_bytes[TS_N_STAT_TYPES];      /* unrounded sizes of active blocks */
  TsStat oversize_allocations;
  TsStat oversize_segments;
  gint64 num_alloc_retries;
  gint64 num_ooms;
  gint64 max_split_size;                        /* -1 when unset */
  gint64 num_sync_all_streams;
  gint64 num_device_alloc;
  gint64 num_device_free;
} TsMemoryStats;

#define TS_MEMORY_STATS_N_KEYS 122

static inline void
ts_stat_increase (TsStat *stat,
                  gint64  amount)
{
  stat->current += amount;
  if (stat->current > stat->peak)
    stat->peak = stat->current;
  stat->allocated += amount;
}

static inline void
ts_stat_decrease (TsStat *stat,
                  gint64  amount)
{
  stat->current -= amount;
  stat->freed += amount;
}

/* Fresh stats: all zero, max_split_size as given (-1 when unset). */
void        ts_memory_stats_init              (TsMemoryStats       *stats,
                                               gint64               max_split_size);

/* Key number index (0 to 121) in Python's order, e.g. "active.all.allocated". */
const char *ts_memory_stats_key               (guint                index);
gint64      ts_memory_stats_value             (const TsMemoryStats *stats,
                                               guint                index);
/* The value of a key by name; FALSE for an unknown key. */
gboolean    ts_memory_stats_lookup            (const TsMemoryStats *stats,
                                               const char          *key,
                                               gint64              *value);

/* reset_peak_memory_stats / reset_accumulated_memory_stats. */
void        ts_memory_stats_reset_peak        (TsMemoryStats       *stats);
void        ts_memory_stats_reset_accumulated (TsMemoryStats       *stats);

/* torch.cuda.memory_summary(device, abbreviated): the whole table, ending
 * in a newline. */
char       *ts_memory_stats_format_summary    (const TsMemoryStats *stats,
                                               int                  device,
                                               gboolean             abbreviated);

/* The Python helpers: memory_allocated, max_memory_allocated,
 * memory_reserved (and memory_cached), max_memory_reserved (and
 * max_memory_cached). */
#define ts_memory_stats_memory_allocated(s)     ((s)->allocated_bytes[TS_STAT_TYPE_ALL].current)
#define ts_memory_stats_max_memory_allocated(s) ((s)->allocated_bytes[TS_STAT_TYPE_ALL].peak)
#define ts_memory_stats_memory_reserved(s)      ((s)->reserved_bytes[TS_STAT_TYPE_ALL].current)
#define ts_memory_stats_max_memory_reserved(s)  ((s)->reserved_bytes[TS_STAT_TYPE_ALL].peak)

G_END_DECLS
