/* ts-runtime.h: the simulated multi-GPU runtime (devices, streams, events)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * TsRuntime models what the CUDA runtime does as PyTorch uses it: N devices
 * of one model, a default stream per device and pooled created streams,
 * events, synchronization, and kernels, copies and memsets that run on the
 * devices' engines in deterministic virtual time. Every call and every
 * piece of device work goes into a TsRecorder. The model (what is timed how,
 * what is left out) is described in docs/simulation-model.md.
 *
 * Threading: every function may be called from any thread; the runtime
 * serializes them with one lock. Per host thread state (host clock, current
 * device, current stream per device, NVTX stack, open API spans) is kept per
 * calling thread. Work callbacks run with that lock held and must not call
 * back into the runtime.
 *
 * Errors: calls that can fail take a GError. The codes say which Python
 * exception the binding raises (see TsRuntimeError); messages are PyTorch's
 * where PyTorch has one.
 */

#pragma once

#include <glib-object.h>

#include "ts-cuda-kernels.h"
#include "ts-gpu-profile.h"
#include "ts-recorder.h"

G_BEGIN_DECLS

#define TS_RUNTIME_ERROR (ts_runtime_error_quark ())

typedef enum
{
  TS_RUNTIME_ERROR_INVALID_ARGUMENT,    /* ValueError: bad option or parameter */
  TS_RUNTIME_ERROR_UNKNOWN_MODEL,       /* ValueError: the message lists the known models */
  TS_RUNTIME_ERROR_NO_DEVICE,           /* RuntimeError: "No CUDA GPUs are available" */
  TS_RUNTIME_ERROR_INVALID_DEVICE,      /* RuntimeError: "CUDA error: invalid device ordinal..." */
  TS_RUNTIME_ERROR_INVALID_STREAM,      /* RuntimeError: unknown stream, or a stream of the wrong device */
  TS_RUNTIME_ERROR_INVALID_EVENT,       /* RuntimeError: unknown or freed event */
  TS_RUNTIME_ERROR_EVENT_DEVICE,        /* RuntimeError: "Event device X does not match recording stream's device Y." */
  TS_RUNTIME_ERROR_EVENT_TIMING,        /* ValueError: "Both events must be created with argument 'enable_timing=True'." */
  TS_RUNTIME_ERROR_EVENT_NOT_RECORDED,  /* ValueError: "Both events must be recorded before calculating elapsed time." */
  TS_RUNTIME_ERROR_EVENT_NOT_COMPLETED, /* RuntimeError: "Both events must be completed before calculating elapsed time." */
  TS_RUNTIME_ERROR_CUDA,                /* RuntimeError: a synchronous CUDA error, "CUDA error: ..." */
  TS_RUNTIME_ERROR_DEVICE_FAULT,        /* RuntimeError: a sticky asynchronous error of a device */
  TS_RUNTIME_ERROR_CAPTURE,             /* RuntimeError: a CUDA graph capture rule broken */
} TsRuntimeError;

GQuark ts_runtime_error_quark (void);

/* What a kernel's on_start may report; CUDA's cudaError_t values. A fault
 * is sticky: the device refuses all later work (see ts_runtime_launch_kernel). */
typedef enum
{
  TS_DEVICE_ERROR_NONE = 0,
  TS_DEVICE_ERROR_ILLEGAL_ADDRESS = 700,
  TS_DEVICE_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  TS_DEVICE_ERROR_ASSERT = 710,
  TS_DEVICE_ERROR_MISALIGNED_ADDRESS = 716,
  TS_DEVICE_ERROR_LAUNCH_FAILURE = 719,
} TsDeviceError;

/* "device-side assert triggered", as cudaGetErrorString says it. */
const char *ts_device_error_to_string (TsDeviceError error);

/* Where a runtime on a real GPU gets device records with GPU timestamps
 * (CUPTI's Activity API, src/cuda/ts-cupti-activity.h). start returns the
 * source, or NULL with an error (the runtime then times with events).
 * Every CUDA call made between push and pop belongs to that correlation. */
typedef struct
{
  gpointer (*start)            (TsRecorder  *recorder,
                                GError     **error);
  void     (*push_correlation) (gpointer     source,
                                guint64      correlation);
  void     (*pop_correlation)  (gpointer     source);
  void     (*flush)            (gpointer     source);
  void     (*stop)             (gpointer     source);
} TsActivitySource;

/* Options of a runtime; zero-initialize, then set what you need. */
typedef struct
{
  const char *gpu_model;        /* profile key; NULL: "h100" */
  guint       n_gpus;           /* physical devices; 0: $TENSORSCOPE_GPUS, else 4 */
  const char *visible_devices;  /* CUDA_VISIBLE_DEVICES as the user set it; NULL: all */
  gboolean    launch_blocking;  /* CUDA_LAUNCH_BLOCKING=1: every launch waits for its work */
  /* A real GPU: the CUDA module's table (ts_cuda_backend_open). The
   * devices are then the module's (the driver has applied
   * CUDA_VISIBLE_DEVICES; gpu_model, n_gpus and visible_devices are
   * ignored), host time is real, and device work runs through
   * TsWork.on_device. NULL: the simulator. */
  const TsCudaKernels    *hardware;
  const TsActivitySource *activity;   /* optional, with hardware */
} TsRuntimeOptions;

#define TS_RUNTIME_MAX_GPUS 16

/* Device work carries a CPU function that computes the real result. on_start
 * runs when the item starts in virtual time (read the inputs into a staging
 * area; return an error code to make the kernel fault), on_finish when it
 * ends (write the outputs). destroy frees data once the item is retired,
 * whatever happened, including when the call that submits it fails: the
 * runtime always takes ownership of data. Any of the three may be NULL. */
typedef TsDeviceError (*TsWorkStartFunc) (gpointer data);
typedef void          (*TsWorkFinishFunc) (gpointer data);
/* On a real GPU (a runtime with a hardware device, see ts-device-backend.h)
 * on_start and on_finish are never called: on_device enqueues the work on
 * @stream (the backend's stream handle, a cudaStream_t) when the runtime
 * submits it, and returns a cudaError_t value (0 on success;
 * TS_CUDA_ERROR_NOT_SUPPORTED when it has no device implementation). */
typedef int           (*TsWorkDeviceFunc) (gpointer data,
                                           gpointer stream);
/* CUDA graphs: a fresh copy of data, as it was before any on_start, for
 * each replay of a captured item; NULL: the work cannot be captured. */
typedef gpointer      (*TsWorkCloneFunc)  (gpointer data);

typedef struct
{
  TsWorkStartFunc  on_start;
  TsWorkFinishFunc on_finish;
  GDestroyNotify   destroy;
  gpointer         data;
  TsWorkDeviceFunc on_device;
  TsWorkCloneFunc  clone;
  /* Optional: on_start and on_finish at once, called at the item's end
   * instead when nothing else started or ended on any device since the
   * item started (nothing could see its inputs change or its results
   * land early), so the results may go straight into place. */
  TsWorkStartFunc  on_run;
} TsWork;

typedef enum
{
  TS_PRECISION_FP32 = 0,
  TS_PRECISION_FP16 = 1,       /* FP16/BF16 math: tensor cores where the model has them */
  TS_PRECISION_TF32 = 2,       /* float32 matmuls allowed TF32 (torch.backends.cuda.matmul.allow_tf32) */
  TS_PRECISION_FP64 = 3,       /* float64 matmuls */
} TsPrecision;

typedef struct
{
  const char  *name;           /* interned per launch; or set name_id */
  TsStringId   name_id;        /* if nonzero, used instead of name (faster) */
  guint32      grid[3];        /* zeros are read as 1 */
  guint32      block[3];
  guint64      flops;
  guint64      bytes;          /* bytes read plus written */
  TsPrecision  precision;
  TsTime       duration;       /* > 0: this duration instead of the model's */
  TsWork       work;
} TsKernelDesc;

typedef struct
{
  TsCopyKind   kind;           /* H2D, D2H, D2D (same device) or PEER; not H2H */
  int          src_device;     /* -1 for host */
  int          dst_device;     /* -1 for host */
  guint64      bytes;
  TsStreamId   stream;         /* must belong to src or dst device */
  gboolean     pinned;         /* the host side is page-locked */
  gboolean     non_blocking;   /* pinned + non_blocking: the host does not wait */
  TsWork       work;
} TsCopyDesc;

typedef struct
{
  TsStreamId   stream;
  guint64      bytes;
  guint32      value;
  TsWork       work;
} TsMemsetDesc;

typedef enum
{
  TS_EVENT_DEFAULT = 0,
  TS_EVENT_TIMING = 1 << 0,        /* enable_timing=True */
  TS_EVENT_BLOCKING = 1 << 1,      /* blocking=True: no timing difference in virtual time */
  TS_EVENT_INTERPROCESS = 1 << 2,  /* interprocess=True: needs timing disabled, as in CUDA */
} TsEventFlags;

#define TS_TYPE_RUNTIME (ts_runtime_get_type ())

G_DECLARE_FINAL_TYPE (TsRuntime, ts_runtime, TS, RUNTIME, GObject)

/* recorder may be NULL: the runtime then makes its own. */
TsRuntime          *ts_runtime_new                  (const TsRuntimeOptions *options,
                                                     TsRecorder             *recorder,
                                                     GError                **error);
TsRecorder         *ts_runtime_get_recorder         (TsRuntime              *self);
const TsGpuProfile *ts_runtime_get_profile          (TsRuntime              *self);
/* Visible devices (after CUDA_VISIBLE_DEVICES); may be 0. */
guint               ts_runtime_get_n_devices        (TsRuntime              *self);
/* The physical index behind a visible ordinal, or -1. */
int                 ts_runtime_get_physical_device  (TsRuntime              *self,
                                                     int                     device);
gboolean            ts_runtime_get_launch_blocking  (TsRuntime              *self);
/* "CUDA_VISIBLE_DEVICES=...: ..." when the value was cut short, else NULL. */
const char         *ts_runtime_get_visible_devices_note (TsRuntime          *self);

/* Parses a CUDA_VISIBLE_DEVICES value as CUDA and PyTorch do (see
 * docs/simulation-model.md): returns the physical ordinals made visible, in
 * order, and sets *note (may be NULL) when it stopped early and why. */
GArray             *ts_runtime_parse_visible_devices (const char            *value,
                                                      guint                  n_physical,
                                                      char                 **note);

/* Host clock of the calling thread, in virtual ns. */
TsTime              ts_runtime_get_host_time        (TsRuntime              *self);
/* Models host work (Python, CPU kernels): the calling thread's clock moves on. */
void                ts_runtime_host_advance         (TsRuntime              *self,
                                                     TsTime                  ns);
/* The calling thread's small id in records (0 for the first thread). */
guint               ts_runtime_get_thread_id        (TsRuntime              *self);

/* Current device of the calling thread (0 initially). */
int                 ts_runtime_get_device           (TsRuntime              *self);
gboolean            ts_runtime_set_device           (TsRuntime              *self,
                                                     int                     device,
                                                     GError                **error);

/* Sets the device for a scope and puts the previous one back. */
typedef struct
{
  TsRuntime *runtime;
  int        previous;
} TsDeviceGuard;

gboolean            ts_device_guard_init            (TsDeviceGuard          *guard,
                                                     TsRuntime              *runtime,
                                                     int                     device,
                                                     GError                **error);
void                ts_device_guard_clear           (TsDeviceGuard          *guard);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TsDeviceGuard, ts_device_guard_clear)

/* Streams. device -1 means the calling thread's current device. */
TsStreamId          ts_runtime_get_default_stream   (TsRuntime              *self,
                                                     int                     device,
                                                     GError                **error);
/* torch.cuda.Stream(device, priority): a stream from the device's pool,
 * 32 per priority level handed out round-robin, so two calls can return the
 * same stream. priority > 0 is an error; below the greatest it is clamped. */
TsStreamId          ts_runtime_stream_new           (TsRuntime              *self,
                                                     int                     device,
                                                     int                     priority,
                                                     GError                **error);
/* The calling thread's current stream of a device. */
TsStreamId          ts_runtime_get_current_stream   (TsRuntime              *self,
                                                     int                     device,
                                                     GError                **error);
/* Makes stream current for its device (not the current device). */
gboolean            ts_runtime_set_current_stream   (TsRuntime              *self,
                                                     TsStreamId              stream,
                                                     GError                **error);
gboolean            ts_runtime_stream_is_valid      (TsRuntime              *self,
                                                     TsStreamId              stream);
int                 ts_runtime_stream_get_device    (TsRuntime              *self,
                                                     TsStreamId              stream);
int                 ts_runtime_stream_get_priority  (TsRuntime              *self,
                                                     TsStreamId              stream);
/* torch's cuda_stream: 0 for a default stream, unique and nonzero otherwise. */
guint64             ts_runtime_stream_get_handle    (TsRuntime              *self,
                                                     TsStreamId              stream);
/* *done: TRUE when every item submitted to the stream has finished. */
gboolean            ts_runtime_stream_query         (TsRuntime              *self,
                                                     TsStreamId              stream,
                                                     gboolean               *done,
                                                     GError                **error);
gboolean            ts_runtime_stream_synchronize   (TsRuntime              *self,
                                                     TsStreamId              stream,
                                                     GError                **error);
gboolean            ts_runtime_stream_wait_event    (TsRuntime              *self,
                                                     TsStreamId              stream,
                                                     guint64                 event,
                                                     GError                **error);
/* stream waits for everything submitted to other so far. */
gboolean            ts_runtime_stream_wait_stream   (TsRuntime              *self,
                                                     TsStreamId              stream,
                                                     TsStreamId              other,
                                                     GError                **error);

/* Events: ids are unique in the run and never reused. */
guint64             ts_runtime_event_new            (TsRuntime              *self,
                                                     TsEventFlags            flags);
gboolean            ts_runtime_event_free           (TsRuntime              *self,
                                                     guint64                 event,
                                                     GError                **error);
gboolean            ts_runtime_event_record         (TsRuntime              *self,
                                                     guint64                 event,
                                                     TsStreamId              stream,
                                                     GError                **error);
/* TRUE in *done when never recorded or when the last record has completed. */
gboolean            ts_runtime_event_query          (TsRuntime              *self,
                                                     guint64                 event,
                                                     gboolean               *done,
                                                     GError                **error);
gboolean            ts_runtime_event_synchronize    (TsRuntime              *self,
                                                     guint64                 event,
                                                     GError                **error);
/* A no-op when the event was never recorded, as in PyTorch. */
gboolean            ts_runtime_event_wait           (TsRuntime              *self,
                                                     guint64                 event,
                                                     TsStreamId              stream,
                                                     GError                **error);
/* Milliseconds from start's completion to end's, rounded to a float as
 * cudaEventElapsedTime returns it. */
gboolean            ts_runtime_event_elapsed_time   (TsRuntime              *self,
                                                     guint64                 start,
                                                     guint64                 end,
                                                     double                 *ms,
                                                     GError                **error);
gboolean            ts_runtime_event_is_valid       (TsRuntime              *self,
                                                     guint64                 event);
/* -1 before the first record. */
int                 ts_runtime_event_get_device     (TsRuntime              *self,
                                                     guint64                 event);
/* torch's cuda_event / event_id: 0 before the first record (lazy creation). */
guint64             ts_runtime_event_get_handle     (TsRuntime              *self,
                                                     guint64                 event);
TsEventFlags        ts_runtime_event_get_flags      (TsRuntime              *self,
                                                     guint64                 event);

/* The end of a run on a real GPU: waits for every device and writes the
 * device records still pending (CUPTI's last buffers come only when it
 * stops). A no-op on the simulator, whose records are written as the
 * devices run. */
void                ts_runtime_finish_device_records (TsRuntime          *self);

/* torch.cuda.synchronize(device): device -1 is the current device. */
gboolean            ts_runtime_device_synchronize   (TsRuntime              *self,
                                                     int                     device,
                                                     GError                **error);

/* Device work. Each returns the correlation id (nonzero), or 0 and sets
 * error; in both cases the runtime owns the work's data from then on. A
 * device with a sticky fault refuses work with that fault's error. */
guint64             ts_runtime_launch_kernel        (TsRuntime              *self,
                                                     TsStreamId              stream,
                                                     const TsKernelDesc     *desc,
                                                     GError                **error);
guint64             ts_runtime_memcpy               (TsRuntime              *self,
                                                     const TsCopyDesc       *desc,
                                                     GError                **error);
guint64             ts_runtime_memset               (TsRuntime              *self,
                                                     const TsMemsetDesc     *desc,
                                                     GError                **error);

/* API spans of higher layers ("aten::add"): work launched inside a span
 * shares its correlation id; nested runtime calls record their own API
 * records with the same id. device -1 and TS_STREAM_NONE when not tied to
 * one. Spans nest per thread and end in reverse order. */
guint64             ts_runtime_api_begin            (TsRuntime              *self,
                                                     const char             *name,
                                                     int                     device,
                                                     TsStreamId              stream);
void                ts_runtime_api_end              (TsRuntime              *self,
                                                     guint64                 correlation);
/* An operator that launches one kernel: ts_runtime_api_begin (name,
 * device), ts_runtime_launch_kernel (stream, desc), ts_runtime_api_end in
 * a row under one lock, with the same records. name is interned in the
 * runtime's recorder. Returns what the launch returns. */
guint64             ts_runtime_launch_op            (TsRuntime              *self,
                                                     TsStringId              name,
                                                     int                     device,
                                                     TsStreamId              stream,
                                                     const TsKernelDesc     *desc,
                                                     GError                **error);

/* CUDA graphs (ts-runtime-graphs.c). While a stream captures, the
 * launches, copies and memsets submitted to it (and to the streams that
 * joined it through an event recorded during the capture) are recorded
 * into the graph instead of being run; synchronizing or querying them is
 * refused with CUDA's "operation not permitted when stream is capturing".
 * A replay submits the recorded work again, as one cudaGraphLaunch, on
 * the stream given, with the same addresses. */
typedef struct _TsGraph TsGraph;

gboolean            ts_runtime_capture_begin        (TsRuntime              *self,
                                                     TsStreamId              stream,
                                                     GError                **error);
/* Returns the graph, or NULL when the capture was invalidated. */
TsGraph            *ts_runtime_capture_end          (TsRuntime              *self,
                                                     TsStreamId              stream,
                                                     GError                **error);
gboolean            ts_runtime_stream_is_capturing  (TsRuntime              *self,
                                                     TsStreamId              stream);
/* The id of the capture under way on stream (PyTorch's CaptureId_t,
 * unique in the run), 0 when it is not capturing. */
guint64             ts_runtime_stream_get_capture_id (TsRuntime             *self,
                                                     TsStreamId              stream);
guint               ts_runtime_graph_get_n_nodes    (TsGraph                *graph);
gboolean            ts_runtime_graph_launch         (TsRuntime              *self,
                                                     TsGraph                *graph,
                                                     TsStreamId              stream,
                                                     GError                **error);
void                ts_runtime_graph_free           (TsRuntime              *self,
                                                     TsGraph                *graph);

/* NVTX. push returns the zero-based depth of the range just pushed; pop
 * returns the depth of the range that ended, or -1 if none was open. The
 * records' depth field holds the same value (for a mark: the number of
 * ranges open on the thread). range_start/end are not nested and may end on
 * another thread; start returns the range id. */
void                ts_runtime_nvtx_mark            (TsRuntime              *self,
                                                     const char             *message);
int                 ts_runtime_nvtx_range_push      (TsRuntime              *self,
                                                     const char             *message);
int                 ts_runtime_nvtx_range_pop       (TsRuntime              *self);
guint64             ts_runtime_nvtx_range_start     (TsRuntime              *self,
                                                     const char             *message);
void                ts_runtime_nvtx_range_end       (TsRuntime              *self,
                                                     guint64                 range_id);

/* CLOCK_MONOTONIC in ns since the first call (never 0): the host clock of
 * every record on a real GPU, which an activity source (CUPTI) aligns its
 * device timestamps to. */
TsTime        ts_cuda_device_now           (void);

G_END_DECLS
