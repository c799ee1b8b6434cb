/* ts-host-allocator.h: PyTorch's pinned host caching allocator
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What pin_memory() and DataLoader(pin_memory=True) use: sizes are rounded
 * up to a power of two, freed blocks go to a free list per power of two
 * and the most recently freed one is reused first; there is no splitting.
 * A block used by an asynchronous copy (record_event) is reusable only
 * after an event recorded on each such stream at free time has completed,
 * which is checked lazily, at the next allocate and at empty_cache.
 *
 * The memory is real host memory (the simulated kernels and copies read
 * and write it). is_pinned() answers for any address inside a block the
 * allocator owns, in use or cached, and inside ranges registered with
 * ts_host_allocator_register (cudaHostRegister).
 *
 * Errors (TS_HOST_ALLOCATOR_ERROR) are RuntimeErrors in Python, with the
 * GError's message.
 */

#pragma once

#include <glib-object.h>

#include "ts-memory-stats.h"
#include "ts-types.h"

G_BEGIN_DECLS

#define TS_HOST_ALLOCATOR_ERROR (ts_host_allocator_error_quark ())

typedef enum
{
  TS_HOST_ALLOCATOR_ERROR_OUT_OF_MEMORY,       /* cudaErrorMemoryAllocation */
  TS_HOST_ALLOCATOR_ERROR_INVALID_POINTER,     /* not a block this allocator handed out */
  TS_HOST_ALLOCATOR_ERROR_ALREADY_REGISTERED,  /* cudaErrorHostMemoryAlreadyRegistered */
  TS_HOST_ALLOCATOR_ERROR_NOT_REGISTERED,      /* cudaErrorHostMemoryNotRegistered */
} TsHostAllocatorError;

typedef struct
{
  guint64  (*event_record)  (gpointer user_data, TsStreamId stream);
  gboolean (*event_query)   (gpointer user_data, guint64 event);
  void     (*event_release) (gpointer user_data, guint64 event);
  /* Optional: virtual time, for host_alloc_time / host_free_time. */
  TsTime   (*now)           (gpointer user_data);
  /* Optional: cudaHostAlloc / cudaFreeHost (the runtime may charge time
   * here); by default page-aligned host memory. */
  gpointer (*host_alloc)    (gpointer user_data, gsize size);
  void     (*host_free)     (gpointer user_data, gpointer ptr, gsize size);
} TsHostAllocatorBackend;

typedef struct
{
  gint64 total;
  gint64 max;
  gint64 min;
  gint64 count;
} TsDurationStat;

/* host_memory_stats(): the Python names. allocations / allocated_bytes
 * count the blocks the allocator owns (in use and cached, rounded sizes),
 * active_requests / active_bytes the blocks in use (summed over the size
 * buckets, peaks included, as PyTorch does). Times are in microseconds. */
typedef struct
{
  TsStat         allocations;
  TsStat         allocated_bytes;
  TsStat         active_requests;
  TsStat         active_bytes;
  gint64         num_host_alloc;
  gint64         num_host_free;
  TsDurationStat host_alloc_time;
  TsDurationStat host_free_time;
} TsHostMemoryStats;

#define TS_HOST_MEMORY_STATS_N_KEYS 28

#define TS_TYPE_HOST_ALLOCATOR (ts_host_allocator_get_type ())

G_DECLARE_FINAL_TYPE (TsHostAllocator, ts_host_allocator, TS, HOST_ALLOCATOR, GObject)

GQuark           ts_host_allocator_error_quark          (void);

TsHostAllocator *ts_host_allocator_new                  (const TsHostAllocatorBackend *backend,
                                                         gpointer                      backend_data);

/* Size 0 gives NULL and no error. */
gpointer         ts_host_allocator_allocate             (TsHostAllocator  *self,
                                                         gsize             size,
                                                         GError          **error);
/* Frees what allocate returned (NULL is a no-op). */
gboolean         ts_host_allocator_free                 (TsHostAllocator  *self,
                                                         gpointer          ptr,
                                                         GError          **error);
/* A non_blocking copy on stream uses the block holding ptr (base or
 * interior). FALSE, and nothing done, when ptr is not in a live block. */
gboolean         ts_host_allocator_record_event         (TsHostAllocator  *self,
                                                         gconstpointer     ptr,
                                                         TsStreamId        stream);
/* torch._C._host_emptyCache(). */
void             ts_host_allocator_empty_cache          (TsHostAllocator  *self);

gboolean         ts_host_allocator_is_pinned            (TsHostAllocator  *self,
                                                         gconstpointer     ptr);
/* cudaHostRegister / cudaHostUnregister of memory the caller owns. */
gboolean         ts_host_allocator_register             (TsHostAllocator  *self,
                                                         gpointer          ptr,
                                                         gsize             size,
                                                         GError          **error);
gboolean         ts_host_allocator_unregister           (TsHostAllocator  *self,
                                                         gpointer          ptr,
                                                         GError          **error);

void             ts_host_allocator_get_stats            (TsHostAllocator   *self,
                                                         TsHostMemoryStats *stats);
void             ts_host_allocator_reset_peak_stats     (TsHostAllocator   *self);
void             ts_host_allocator_reset_accumulated_stats (TsHostAllocator *self);

/* Key number index in Python's order ("active_bytes.allocated" first). */
const char      *ts_host_memory_stats_key               (guint                    index);
gint64           ts_host_memory_stats_value             (const TsHostMemoryStats *stats,
                                                         guint                    index);
gboolean         ts_host_memory_stats_lookup            (const TsHostMemoryStats *stats,
                                                         const char              *key,
                                                         gint64                  *value);

G_END_DECLS
