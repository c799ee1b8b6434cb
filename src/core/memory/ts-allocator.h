/* ts-allocator.h: PyTorch's CUDA caching allocator, exact to the byte
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One TsAllocator serves every device of a run, the way PyTorch's
 * NativeCachingAllocator holds one DeviceCachingAllocator per device: each
 * device has its own pools, segments, stats and history, while the
 * configuration (PYTORCH_CUDA_ALLOC_CONF is process-wide) and the map from
 * pointer to block are shared, so free() and record_stream() need only the
 * pointer, as torch's deleters do. Device addresses are unique across
 * devices (see ts-device-memory.h), so the one map is unambiguous.
 *
 * The allocator talks to the runtime through TsAllocatorBackend, a table of
 * functions: it asks for segments (cudaMalloc), free memory
 * (cudaMemGetInfo), events on streams (record_stream's deferred frees) and
 * the virtual clock for its trace. It never calls the runtime otherwise.
 *
 * Locking: one mutex guards the allocator. Backend functions are called
 * with it held and must not call back into the allocator. Free-memory
 * callbacks and OOM observers are called with it released (they may free).
 *
 * Errors (TS_ALLOCATOR_ERROR) and the Python exception each maps to:
 *   OUT_OF_MEMORY   torch.OutOfMemoryError (torch.cuda.OutOfMemoryError)
 *   INVALID_VALUE   ValueError     (memory fraction out of [0, 1])
 *   INVALID_POINTER RuntimeError   ("invalid device pointer: 0x...")
 *   INVALID_DEVICE  RuntimeError   (a device index the allocator lacks)
 *   INVALID_POOL    RuntimeError   (a private pool misused: not active, unknown)
 *   BACKEND         RuntimeError   (the backend failed otherwise)
 * The TypeError of set_per_process_memory_fraction for a non-float is the
 * Python layer's to raise, with TS_ALLOCATOR_FRACTION_TYPE_ERROR as text.
 */

#pragma once

#include <glib-object.h>

#include "ts-alloc-config.h"
#include "ts-memory-snapshot.h"
#include "ts-memory-stats.h"
#include "ts-recorder.h"
#include "ts-types.h"

G_BEGIN_DECLS

#define TS_ALLOCATOR_ERROR (ts_allocator_error_quark ())

typedef enum
{
  TS_ALLOCATOR_ERROR_OUT_OF_MEMORY,
  TS_ALLOCATOR_ERROR_INVALID_VALUE,
  TS_ALLOCATOR_ERROR_INVALID_POINTER,
  TS_ALLOCATOR_ERROR_INVALID_DEVICE,
  TS_ALLOCATOR_ERROR_BACKEND,
  TS_ALLOCATOR_ERROR_INVALID_POOL,
} TsAllocatorError;

#define TS_ALLOCATOR_FRACTION_TYPE_ERROR "Invalid type for fraction argument, must be `float`"


typedef struct
{
  /* cudaMalloc on a device: FALSE means out of memory. */
  gboolean (*segment_malloc)    (gpointer user_data, guint device, guint64 size, guint64 *addr);
  void     (*segment_free)      (gpointer user_data, guint device, guint64 addr, guint64 size);
  /* cudaMemGetInfo. */
  void     (*mem_get_info)      (gpointer user_data, guint device, guint64 *free_bytes, guint64 *total_bytes);
  /* A timing-disabled event recorded on stream now; returns its id (not 0). */
  guint64  (*event_record)      (gpointer user_data, TsStreamId stream);
  /* TRUE once the stream has reached the event. */
  gboolean (*event_query)       (gpointer user_data, guint64 event);
  /* Blocks the host until the event completes. */
  void     (*event_synchronize) (gpointer user_data, guint64 event);
  /* The allocator is done with the event. */
  void     (*event_release)     (gpointer user_data, guint64 event);
  /* Virtual time for trace records. */
  TsTime   (*now)               (gpointer user_data);
  /* Optional: the correlation id of the API call under way (0 if none). */
  guint64  (*correlation)       (gpointer user_data);
  /* Virtual memory, needed for expandable_segments:True (NULL: refused).
   * cuMemAddressReserve: FALSE when no address space is left. */
  gboolean (*va_reserve)        (gpointer user_data, guint device, guint64 size, guint64 *addr);
  /* cuMemCreate + cuMemMap of whole pages: FALSE means out of memory. */
  gboolean (*va_map)            (gpointer user_data, guint device, guint64 addr, guint64 size);
  /* cuMemUnmap + cuMemRelease, after synchronizing the segment's stream
   * (ExpandableSegment::unmapHandles). */
  void     (*va_unmap)          (gpointer user_data, guint device, TsStreamId stream,
                                 guint64 addr, guint64 size);
  /* cuMemAddressFree of a reservation with no page mapped. */
  void     (*va_release)        (gpointer user_data, guint device, guint64 addr, guint64 size);
} TsAllocatorBackend;

/* Which streams' allocations go to a private pool while it is active
 * (PyTorch's filter of beginAllocateToPool): TRUE to take it. It is
 * called with the allocator's lock held and must not call back into it. */
typedef gboolean (*TsAllocatorPoolFilter)      (TsStreamId stream,
                                                gpointer   user_data);

/* OOM observer: (device, alloc_size, allowed or total bytes, device_free). */
typedef void     (*TsAllocatorOomObserver)     (guint    device,
                                                guint64  alloc_size,
                                                guint64  device_allowed,
                                                guint64  device_free,
                                                gpointer user_data);
/* Free-memory callback: returns TRUE if it freed something. */
typedef gboolean (*TsAllocatorFreeMemoryFunc)  (gpointer user_data);


#define TS_TYPE_ALLOCATOR (ts_allocator_get_type ())

G_DECLARE_FINAL_TYPE (TsAllocator, ts_allocator, TS, ALLOCATOR, GObject)

GQuark       ts_allocator_error_quark             (void);

/* config: NULL for the defaults. The max_split_size stat is taken from it
 * here, as PyTorch takes it when the device allocator is built. */
TsAllocator *ts_allocator_new                     (guint                      n_devices,
                                                   const TsAllocConfig       *config,
                                                   const TsAllocatorBackend  *backend,
                                                   gpointer                   backend_data);
guint        ts_allocator_get_n_devices           (TsAllocator               *self);

/* Every action then also goes to the recorder (TsAllocRecord, and
 * TsCounterRecord for allocated/reserved/active bytes when they change). */
void         ts_allocator_set_recorder            (TsAllocator               *self,
                                                   TsRecorder                *recorder);

/* _set_allocator_settings: behaviour follows the new settings at once. */
void         ts_allocator_set_config              (TsAllocator               *self,
                                                   const TsAllocConfig       *config);
/* torch.cuda.memory._set_allocator_settings: a PYTORCH_CUDA_ALLOC_CONF
 * string applied over the current settings (ts_alloc_config_parse's
 * rules); TS_ALLOC_CONFIG_ERROR when invalid or unsupported here. */
gboolean     ts_allocator_apply_settings          (TsAllocator               *self,
                                                   const char                *settings,
                                                   GError                   **error);
void         ts_allocator_get_config              (TsAllocator               *self,
                                                   TsAllocConfig             *config);
/* caching_allocator_enable(); FALSE is PYTORCH_NO_CUDA_MEMORY_CACHING=1:
 * every malloc is a plain cudaMalloc and no stat moves. */
void         ts_allocator_set_caching_enabled     (TsAllocator               *self,
                                                   gboolean                   enabled);

/* Allocates size bytes for stream (a stream of device). Size 0 gives
 * address 0 and changes nothing. loc is the script line asking. */
gboolean     ts_allocator_malloc                  (TsAllocator               *self,
                                                   guint                      device,
                                                   guint64                    size,
                                                   TsStreamId                 stream,
                                                   const TsSourceLoc         *loc,
                                                   guint64                   *addr,
                                                   GError                   **error);
/* Frees what malloc returned (0 is a no-op). */
gboolean     ts_allocator_free                    (TsAllocator               *self,
                                                   guint64                    addr,
                                                   const TsSourceLoc         *loc,
                                                   GError                   **error);
/* Tensor.record_stream: addr is the allocation's base. Returns FALSE (and
 * does nothing) for a pointer the allocator did not hand out. */
gboolean     ts_allocator_record_stream           (TsAllocator               *self,
                                                   guint64                    addr,
                                                   TsStreamId                 stream);
/* The live allocation starting at addr. */
gboolean     ts_allocator_lookup                  (TsAllocator               *self,
                                                   guint64                    addr,
                                                   guint                     *device,
                                                   guint64                   *block_size,
                                                   guint64                   *requested_size,
                                                   TsStreamId                *stream);

/* torch.cuda.empty_cache() for every device. */
void         ts_allocator_empty_cache             (TsAllocator               *self);

gboolean     ts_allocator_set_memory_fraction     (TsAllocator               *self,
                                                   guint                      device,
                                                   double                     fraction,
                                                   GError                   **error);
double       ts_allocator_get_memory_fraction     (TsAllocator               *self,
                                                   guint                      device);

gboolean     ts_allocator_get_stats               (TsAllocator               *self,
                                                   guint                      device,
                                                   TsMemoryStats             *stats);
void         ts_allocator_reset_peak_stats        (TsAllocator               *self,
                                                   guint                      device);
void         ts_allocator_reset_accumulated_stats (TsAllocator               *self,
                                                   guint                      device);
char        *ts_allocator_memory_summary          (TsAllocator               *self,
                                                   guint                      device,
                                                   gboolean                   abbreviated);

/* _record_memory_history: enabled, at most max_entries entries per device
 * (G_MAXSIZE: no limit; 0 is read as 1), skip_actions a mask of
 * 1 << TsAllocAction, clear to drop what was kept. */
void         ts_allocator_record_history          (TsAllocator               *self,
                                                   gboolean                   enabled,
                                                   gsize                      max_entries,
                                                   guint                      skip_actions,
                                                   gboolean                   clear);
/* _snapshot(): the traces are copied first, then, if history is on, a
 * "snapshot" entry is recorded, which the next snapshot shows. */
TsMemorySnapshot *ts_allocator_snapshot           (TsAllocator               *self);

guint        ts_allocator_add_oom_observer        (TsAllocator               *self,
                                                   TsAllocatorOomObserver     observer,
                                                   gpointer                   user_data);
guint        ts_allocator_add_free_memory_callback (TsAllocator              *self,
                                                   TsAllocatorFreeMemoryFunc  func,
                                                   gpointer                   user_data);
void         ts_allocator_remove_callback         (TsAllocator               *self,
                                                   guint                      id);

/* Private pools (CUDA graphs, torch.cuda.MemPool), as PyTorch's
 * allocator keeps them per device. A pool is made with use count 1 by
 * create_or_incref_pool or by the first begin_allocate_to_pool of its id,
 * and each further one adds a use. While a pool is active (begin ... end),
 * mallocs on a stream its filter takes (NULL: every stream) come from the
 * pool's own segments, and blocks freed into it serve only later mallocs
 * into it. release_pool drops a use; at zero, empty_cache may free its
 * unused segments, and forgets the pool once none is left.
 *
 * graph_pool_handle hands out MemPool's ids: (0, n) for a pool the user
 * makes, (n, 0) for one a capture makes for itself, n counting from 1. */
TsMemPoolId  ts_allocator_graph_pool_handle       (TsAllocator               *self,
                                                   gboolean                   is_user_created);
gboolean     ts_allocator_create_or_incref_pool   (TsAllocator               *self,
                                                   guint                      device,
                                                   TsMemPoolId                id,
                                                   GError                   **error);
gboolean     ts_allocator_begin_allocate_to_pool  (TsAllocator               *self,
                                                   guint                      device,
                                                   TsMemPoolId                id,
                                                   TsAllocatorPoolFilter      filter,
                                                   gpointer                   user_data,
                                                   GError                   **error);
gboolean     ts_allocator_end_allocate_to_pool    (TsAllocator               *self,
                                                   guint                      device,
                                                   TsMemPoolId                id,
                                                   GError                   **error);
gboolean     ts_allocator_release_pool            (TsAllocator               *self,
                                                   guint                      device,
                                                   TsMemPoolId                id,
                                                   GError                   **error);
/* The pool's use count; 0 if there is no such pool. */
gint         ts_allocator_get_pool_use_count      (TsAllocator               *self,
                                                   guint                      device,
                                                   TsMemPoolId                id);
/* emptyCache(mempool_id) of newer PyTorch: frees the unused segments of
 * the released private pools only (no synchronization), every device. */
void         ts_allocator_empty_cache_pools       (TsAllocator               *self);

/* PyTorch's size helpers, exposed for tests and the UI's "what if". */
guint64      ts_allocator_round_size              (const TsAllocConfig       *config,
                                                   guint64                    size);


G_END_DECLS
