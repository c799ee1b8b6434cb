/* ts-runtime-private.h: what the runtime's files share
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * TsRuntime is split by concern:
 *
 *   ts-runtime.c          the object: options, visible devices, the device
 *                         side it picks, the host clock, current devices,
 *                         device synchronization
 *   ts-runtime-calls.c    host threads and what every call does (API and
 *                         sync records, faults, results, checks), API spans
 *   ts-runtime-streams.c  streams: the pool, current streams, query, sync
 *   ts-runtime-events.c   events, and waits between streams
 *   ts-runtime-work.c     kernel launches, copies, memsets
 *   ts-runtime-nvtx.c     NVTX marks and ranges
 *   ts-runtime-graphs.c   CUDA graphs: stream capture and replay
 *
 * Every device-side action goes through self->side (ts-device-side.h),
 * the simulator's or a real GPU's: no file asks which it is.
 *
 * Functions named _ts_runtime_* and the inline helpers below expect the
 * runtime's lock to be held.
 */

#pragma once

#include "ts-callsite.h"
#include "ts-device-side.h"
#include "ts-runtime.h"

G_BEGIN_DECLS

#define CUDA_ERROR_TRAILER \
  "\nCUDA kernel errors might be asynchronously reported at some other API call, " \
  "so the stacktrace below might be incorrect.\n" \
  "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"

/* What c10_retrieve_device_side_assertion_info() appends to every checked
 * CUDA error in a PyTorch built without TORCH_USE_CUDA_DSA (the releases). */
#define CUDA_DSA_TRAILER \
  "\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"

/* PyTorch's stream pool: four priority levels of 32 streams per device. */
#define POOL_LEVELS 4
#define POOL_SIZE 32

/* Handles look like pointers, as cuda_stream and cuda_event do in PyTorch,
 * but are a pure function of creation order. */
#define STREAM_HANDLE_BASE G_GUINT64_CONSTANT (0x7f3a00000000)
#define EVENT_HANDLE_BASE G_GUINT64_CONSTANT (0x7f3b00000000)

typedef struct
{
  guint64     correlation;
  TsStringId  name;
  TsTime      start;
  gint32      device;
  TsStreamId  stream;
  TsSourceLoc loc;
} Span;

typedef struct
{
  guint       id;
  GThread    *thread;        /* referenced, so its address is not reused */
  TsTime      clock;
  int         device;
  TsStreamId *current;       /* current stream, per device */
  GArray     *spans;         /* Span: open API spans of higher layers */
  GArray     *nvtx;          /* TsStringId: pushed NVTX ranges */
} HostThread;

typedef struct
{
  TsDeviceEvent base;        /* id; device and record from the first record on */
  TsEventFlags  flags;
  guint64       handle;      /* 0 until the first record */
  TsGraph      *capture;     /* last recorded into this capture, or NULL */
  TsStreamId    capture_from; /* ... on this stream, */
  guint         capture_mark; /* ... after its capture_last node */
} Event;

typedef struct
{
  guint        device;
  int          priority;
  guint64      handle;
  TsGraph     *capture;      /* the capture this stream records into */
  guint        capture_last; /* 1 + its last node there; 0: none */
  guint        capture_joined; /* capture_last when another stream last joined it */
} Stream;

/* One host call in progress. */
typedef struct
{
  HostThread *ht;
  TsStringId  name;
  TsTime      start;
  guint64     correlation;
  gint32      device;
  TsStreamId  stream;
  TsSourceLoc loc;
} Call;

enum
{
  API_LAUNCH_KERNEL,
  API_MEMCPY,
  API_MEMSET,
  API_STREAM_SYNCHRONIZE,
  API_STREAM_QUERY,
  API_STREAM_WAIT_EVENT,
  API_EVENT_RECORD,
  API_EVENT_QUERY,
  API_EVENT_SYNCHRONIZE,
  API_EVENT_ELAPSED_TIME,
  API_DEVICE_SYNCHRONIZE,
  N_API_NAMES
};

struct _TsRuntime
{
  GObject             parent_instance;

  GMutex              lock;
  guint64             serial;

  TsRecorder         *recorder;
  const TsGpuProfile *profile;
  TsDeviceSide        side;            /* the simulator, or a real GPU */
  gboolean            launch_blocking;

  guint               n_physical;
  guint               n_devices;
  int                *physical;        /* physical index per visible ordinal */
  char               *visible_note;
  gboolean           *fault_surfaced;  /* per device: the error record is written */

  GHashTable         *threads;         /* GThread* -> HostThread* */
  guint               n_threads;
  TsTime              max_host_time;

  GArray             *streams;         /* Stream, by TsStreamId */
  GHashTable         *events;          /* &Event.base.id -> Event* */
  guint64             last_event_id;
  guint64             last_correlation;
  guint64             last_range_id;
  guint64             last_capture_id;

  TsStreamId         *pool;            /* n_devices * POOL_LEVELS * POOL_SIZE */
  guint              *pool_next;       /* n_devices * POOL_LEVELS */

  TsStringId          api_ids[N_API_NAMES];
};

/* The calling thread's state for the runtime it used last: a lookup in the
 * hash table only when it switches runtimes. The serial, not the pointer,
 * identifies the runtime, so a new runtime at a freed one's address misses. */
typedef struct
{
  guint64     serial;
  HostThread *ht;
} ThreadCache;

extern __thread ThreadCache _ts_runtime_tls;

/* ts-runtime-calls.c */
void          _ts_runtime_host_thread_free   (gpointer          data);
HostThread   *_ts_runtime_host_thread_lookup (TsRuntime        *self);
void          _ts_runtime_call_begin         (TsRuntime        *self,
                                              Call             *call,
                                              guint             api);
void          _ts_runtime_call_begin_api     (TsRuntime        *self,
                                              Call             *call,
                                              guint             api,
                                              int               device,
                                              TsStreamId        stream);
void          _ts_runtime_call_end_deferred  (TsRuntime        *self,
                                              Call             *call,
                                              TsApiCallRecord  *rec);
void          _ts_runtime_call_end           (TsRuntime        *self,
                                              Call             *call);
gboolean      _ts_runtime_call_check_fault   (TsRuntime        *self,
                                              Call             *call,
                                              guint             device,
                                              GError          **error);
gboolean      _ts_runtime_call_check_error   (TsRuntime        *self,
                                              Call             *call,
                                              int               err,
                                              GError          **error);
gboolean      _ts_runtime_call_query         (TsRuntime        *self,
                                              Call             *call,
                                              int               err,
                                              gboolean         *done,
                                              GError          **error);
gboolean      _ts_runtime_call_blocked       (TsRuntime        *self,
                                              Call             *call,
                                              TsSyncKind        kind,
                                              guint64           event,
                                              int               err,
                                              TsTime            until,
                                              GError          **error);
gboolean      _ts_runtime_call_finish        (TsRuntime        *self,
                                              Call             *call,
                                              gboolean          ok);
gboolean      _ts_runtime_check_device       (TsRuntime        *self,
                                              HostThread       *ht,
                                              int              *device,
                                              GError          **error);
gboolean      _ts_runtime_check_stream       (TsRuntime        *self,
                                              TsStreamId        stream,
                                              GError          **error);
guint64       _ts_runtime_api_begin_locked   (TsRuntime        *self,
                                              TsStringId        name,
                                              int               device,
                                              TsStreamId        stream);
void          _ts_runtime_api_end_locked     (TsRuntime        *self,
                                              guint64           correlation,
                                              const TsApiCallRecord *first);

/* ts-runtime-streams.c */
TsStreamId    _ts_runtime_add_stream         (TsRuntime        *self,
                                              guint             device,
                                              int               priority,
                                              gboolean          is_default,
                                              GError          **error);

/* ts-runtime-graphs.c */
#define CAPTURE_NOT_PERMITTED \
  "CUDA error: operation not permitted when stream is capturing" CUDA_ERROR_TRAILER

typedef enum
{
  NODE_KERNEL,
  NODE_COPY,
  NODE_MEMSET,
} NodeKind;

/* Records work submitted to a capturing stream as a node of its graph;
 * the call's API record stays. Takes the work. */
gboolean      _ts_runtime_capture_work       (TsRuntime        *self,
                                              Call             *call,
                                              NodeKind          kind,
                                              gconstpointer     desc,
                                              TsStringId        name,
                                              GError          **error);
/* A rule broken during the capture of graph (may be NULL): capture_end
 * will fail. Sets CUDA's error and returns FALSE. */
gboolean      _ts_runtime_capture_refuse     (TsGraph          *graph,
                                              GError          **error);
/* stream waits on ev, recorded during a capture: it joins the capture,
 * and the work of ev's stream up to the record is joined. */
void          _ts_runtime_capture_join       (TsRuntime        *self,
                                              Event            *ev,
                                              TsStreamId        stream);
/* FALSE with CUDA's error when a capture is under way on stream (or, for
 * TS_STREAM_NONE, on any stream of device; -1: any device). */
gboolean      _ts_runtime_check_not_capturing (TsRuntime       *self,
                                               TsStreamId       stream,
                                               int              device,
                                               GError         **error);

static inline TsGraph *
stream_capture (TsRuntime  *self,
                TsStreamId  stream)
{
  return g_array_index (self->streams, Stream, stream).capture;
}

/* On a real GPU a thread's clock is the real one, whatever it last read. */
static inline void
host_read_clock (TsRuntime  *self,
                 HostThread *ht)
{
  ht->clock = self->side.ops->host_time (self->side.impl, ht->clock);
}

/* The calling thread's state; made (with its record) on its first call. */
static inline HostThread *
host_thread (TsRuntime *self)
{
  if (G_LIKELY (_ts_runtime_tls.serial == self->serial))
    {
      host_read_clock (self, _ts_runtime_tls.ht);
      return _ts_runtime_tls.ht;
    }
  return _ts_runtime_host_thread_lookup (self);
}

/* A new thread starts no earlier than max_host_time. */
static inline void
host_set_clock (TsRuntime  *self,
                HostThread *ht,
                TsTime      clock)
{
  ht->clock = clock;
  self->max_host_time = MAX (self->max_host_time, clock);
}

/* Host work or a blocked span: the thread's clock moves on by ns (on a
 * real GPU, to the real time). */
static inline void
host_spend (TsRuntime  *self,
            HostThread *ht,
            TsTime      ns)
{
  host_set_clock (self, ht, self->side.ops->host_spend (self->side.impl, ht->clock, ns));
}

/* A call's modelled host cost (on a real GPU, nothing: real time passes by
 * itself and is read at the call's end). */
static inline void
host_charge (TsRuntime  *self,
             HostThread *ht,
             TsTime      ns)
{
  host_set_clock (self, ht, self->side.ops->host_charge (self->side.impl, ht->clock, ns));
}

static inline guint
stream_device (TsRuntime  *self,
               TsStreamId  stream)
{
  return g_array_index (self->streams, Stream, stream).device;
}

static inline void
call_set_stream (TsRuntime  *self,
                 Call       *call,
                 TsStreamId  stream)
{
  call->stream = stream;
  call->device = (gint32) stream_device (self, stream);
}

/* What the device side gets with an item this call submits: the host's
 * clock is when the device sees it. */
static inline TsSubmit
call_submission (const Call *call)
{
  return (TsSubmit) { call->stream, call->ht->clock, call->correlation, call->loc };
}

/* Interprets a result of the device side for the call: 0 and
 * cudaErrorNotReady are no error. */
static inline gboolean
_ts_runtime_call_check_result (TsRuntime  *self,
                               Call       *call,
                               int         err,
                               GError    **error)
{
  if (G_LIKELY (err == 0 || err == TS_CUDA_ERROR_NOT_READY))
    return TRUE;
  return _ts_runtime_call_check_error (self, call, err, error);
}

G_END_DECLS
