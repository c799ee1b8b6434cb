/* ts-session.h: the process-wide state of a workload run
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One session per process, as one CUDA context per device per process. The
 * CLI configures it before the script starts; the devices come to life at
 * the first CUDA call (CUDA's lazy initialization), which is also when
 * CUDA_VISIBLE_DEVICES, CUDA_LAUNCH_BLOCKING and PYTORCH_CUDA_ALLOC_CONF
 * are read, as PyTorch reads them.
 *
 * The session is the seam between the tensor layer and the simulated
 * machine: devices, streams, events, virtual time, device memory and the
 * trace. Callers see only this API.
 */

#pragma once

#include <glib.h>

#include "ts-gpu-profile.h"
#include "ts-recorder.h"
#include "ts-allocator.h"
#include "ts-runtime.h"
#include "ts-types.h"
#include "ts-cuda-kernels.h"

G_BEGIN_DECLS

#define TS_SESSION_ERROR (ts_session_error_quark ())

typedef enum
{
  TS_SESSION_ERROR_NO_DEVICE,        /* RuntimeError */
  TS_SESSION_ERROR_INVALID_DEVICE,   /* RuntimeError: invalid device ordinal */
  TS_SESSION_ERROR_OUT_OF_MEMORY,    /* torch.cuda.OutOfMemoryError */
  TS_SESSION_ERROR_INVALID_VALUE,    /* ValueError */
  TS_SESSION_ERROR_FAILED,
} TsSessionError;

GQuark ts_session_error_quark (void);

typedef struct
{
  int          n_gpus;      /* 0: the default (4) */
  const char  *gpu_model;   /* NULL: the default profile */
  gboolean     sync;        /* as CUDA_LAUNCH_BLOCKING=1 */
  gboolean     sanitize;
  const char  *backend;     /* "sim" (NULL) or "cuda": a real GPU through the CUDA module */
  gboolean     no_data;     /* --no-data: tensors without values (ts-host-data.h) */
} TsSessionOptions;

/* "sim" or "cuda" (TsSessionOptions.backend, $TENSORSCOPE_BACKEND). */
gboolean             ts_session_parse_backend      (const char   *name,
                                                    gboolean     *hardware,
                                                    GError      **error);
/* TRUE when the session runs (or will run) on this machine's GPUs. */
gboolean             ts_session_is_hardware        (void);
/* CUPTI, for a real GPU's device records; programs that link the CUDA
 * parts install it before the first CUDA call. */
void                 ts_session_set_activity_source (const TsActivitySource *source);

/* Before the first CUDA call; later calls are ignored with a warning. */
void                 ts_session_configure          (const TsSessionOptions *options);
/* Flushes and drops everything: the end of the run. */
void                 ts_session_shutdown           (void);

/* Lazy initialization. Cheap once done. */
gboolean             ts_session_cuda_init          (GError    **error);
gboolean             ts_session_is_initialized     (void);
/* Visible devices, from CUDA_VISIBLE_DEVICES and --gpus; no init needed. */
int                  ts_session_device_count       (void);
const TsGpuProfile  *ts_session_get_profile        (int         device);
/* PyTorch's dispatcher before an op's launch on @device: the profile's
 * op_dispatch_ns of host time on the simulated devices (on a real GPU the
 * time passes by itself). */
void                 ts_session_charge_dispatch    (int         device);
/* count times the current profile's host cost of a Python construct
 * (nn.Module.__call__, an autograd node...) on the calling thread's clock */
void                 ts_session_charge_host        (TsHostCost  what,
                                                    guint       count);
gboolean             ts_session_check_device       (int         device,
                                                    GError    **error);

/* Per host thread. */
int                  ts_session_current_device     (void);
gboolean             ts_session_set_device         (int         device,
                                                    GError    **error);

/* On a real GPU (the "cuda" backend): the CUDA module's table, through
 * which device work is enqueued; NULL on the simulator or before
 * ts_session_cuda_init(). Device storage then holds no host bytes
 * (TsStorage.data is NULL, addr is the device pointer). */
const TsCudaKernels *ts_session_get_device_kernels (void);

/* The simulated machine; NULL before ts_session_cuda_init(). */
TsRuntime           *ts_session_get_runtime        (void);
/* The trace every record goes to; created on first use, before CUDA. */
TsRecorder          *ts_session_get_recorder       (void);

/* The calling thread's current stream of a device (initializes CUDA). */
TsStreamId           ts_session_current_stream     (int         device);

/* Device work: a kernel, or a copy when is_copy is set. The job's compute
 * runs when the item starts on the device (it reads its inputs then). */
typedef void (*TsSessionWorkFunc) (gpointer user_data);
/* A kernel that faults on the device (a device-side assert, an illegal
 * address) says so by returning the error; the device is then faulted. */
typedef TsDeviceError (*TsSessionStartFunc) (gpointer user_data);
/* On a real GPU: enqueue the work on stream (a cudaStream_t), see TsWork. */
typedef int (*TsSessionDeviceFunc) (gpointer user_data,
                                    gpointer stream);

typedef struct
{
  const char        *name;        /* kernel name */
  TsStreamId         stream;
  guint64            flops;
  guint64            bytes;
  guint32            grid;        /* launch shape of a kernel; 0: from bytes */
  guint32            block;
  TsTime             duration;    /* > 0: runs this long, not the cost model's time */
  TsPrecision        precision;   /* of a kernel's math: which flops rate applies */
  gboolean           is_copy;
  TsCopyKind         copy_kind;
  gboolean           pinned;
  gboolean           non_blocking;
  int                src_device;  /* -1 host */
  int                dst_device;
  TsSessionStartFunc run;         /* when the item starts on the device */
  TsSessionWorkFunc  finish;      /* when it ends */
  TsSessionDeviceFunc device_run; /* on a real GPU instead of run/finish */
  gpointer           user_data;
  GDestroyNotify     destroy;
  TsWorkCloneFunc    clone;       /* user_data afresh, for CUDA graph replays */
  TsSessionStartFunc run_at_once; /* optional: run and finish in one (TsWork.on_run) */
} TsSessionWork;

gboolean             ts_session_launch             (const TsSessionWork *work,
                                                    GError             **error);
/* An operator's span (ts_session_api_begin (work->name, device)) around
 * the launch of its one kernel, in one runtime call: the same records as
 * the three calls. Kernels only. */
gboolean             ts_session_launch_op          (int                  device,
                                                    const TsSessionWork *work,
                                                    GError             **error);
/* The correlation id of the last launch that worked: what its device work
 * records carry (the span's, for ts_session_launch_op). */
guint64              ts_session_get_last_correlation (void);
/* Peer copies order the two devices' streams around the copy. */
void                 ts_session_stream_wait_stream (TsStreamId  stream,
                                                    TsStreamId  other);

/* API-call scope ("aten::add") with the current callsite; work launched
 * inside inherits its correlation. No-ops before CUDA is initialized. */
guint64              ts_session_api_begin          (const char *name,
                                                    int         device);
void                 ts_session_api_end            (guint64     correlation);

/* Device memory (the caching allocator of the device). */
gboolean             ts_session_malloc             (int          device,
                                                    gsize        size,
                                                    TsStreamId   stream,
                                                    guint64     *addr,
                                                    guint8     **host,
                                                    gpointer    *block,
                                                    GError     **error);
void                 ts_session_free               (gpointer     block);
void                 ts_session_record_stream      (gpointer     block,
                                                    TsStreamId   stream);
/* Pinned host memory. */
gboolean             ts_session_host_malloc        (gsize        size,
                                                    guint64     *addr,
                                                    guint8     **host,
                                                    gpointer    *block,
                                                    GError     **error);
void                 ts_session_host_free          (gpointer     block);
/* A non_blocking copy on stream uses the pinned block holding ptr: the
 * pinned allocator must not reuse it before the stream gets there. */
void                 ts_session_host_record_stream (gconstpointer ptr,
                                                    TsStreamId    stream);
gboolean             ts_session_host_is_pinned     (gconstpointer ptr);
/* NULL before CUDA is initialized. */
TsAllocator         *ts_session_get_allocator      (void);
/* The host bytes behind device addresses [addr, addr + size), or NULL
 * when they do not lie in one live segment (what would be an illegal
 * address on a GPU). */
/* Whether simulated device memory [addr, addr + size) is live, without
 * mapping host bytes behind it (--no-data has none). */
gboolean             ts_session_address_valid      (guint64      addr,
                                                    gsize        size);
gpointer             ts_session_translate          (guint64      addr,
                                                    gsize        size);

/* Host access to device bytes (an element of a device tensor, item()),
 * after the devices have finished their queued work, as cudaMemcpy. On a
 * real GPU this is the only way to them. */
gboolean             ts_session_read_device        (guint64        addr,
                                                    gsize          size,
                                                    gpointer       dst,
                                                    GError       **error);
gboolean             ts_session_write_device       (guint64        addr,
                                                    gconstpointer  src,
                                                    gsize          size,
                                                    GError       **error);

/* The memory API of torch.cuda. The stats table is PyTorch's keys. */
GHashTable          *ts_session_memory_stats       (int          device);
void                 ts_session_reset_peak_stats   (int          device);
void                 ts_session_reset_accumulated_stats (int     device);
void                 ts_session_empty_cache        (void);
char                *ts_session_memory_summary     (int          device,
                                                    gboolean     abbreviated);
gboolean             ts_session_set_memory_fraction (int         device,
                                                     double      fraction,
                                                     GError    **error);
void                 ts_session_mem_get_info       (int          device,
                                                    guint64     *free_bytes,
                                                    guint64     *total_bytes);

G_END_DECLS
