/* ts-record.h: the records a run produces, one plain struct per kind
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * These structs are what producers hand to the recorder and what readers get
 * back. Storage is columnar (see ts-recorder.c); the field tables below
 * describe every struct so that the recorder, the trace file and the
 * exporters walk fields generically instead of each spelling them out.
 *
 * Field types are fixed-width and naturally aligned; records carry no
 * pointers, only interned string ids, so they can be written as they are.
 */

#pragma once

#include "ts-types.h"

G_BEGIN_DECLS

typedef enum
{
  TS_RECORD_DEVICE = 0,
  TS_RECORD_STREAM,
  TS_RECORD_THREAD,
  TS_RECORD_API_CALL,
  TS_RECORD_KERNEL,
  TS_RECORD_MEMCPY,
  TS_RECORD_MEMSET,
  TS_RECORD_EVENT_RECORD,
  TS_RECORD_EVENT_WAIT,
  TS_RECORD_SYNC,
  TS_RECORD_NVTX,
  TS_RECORD_ALLOC,
  TS_RECORD_COUNTER,
  TS_RECORD_ERROR,
  TS_RECORD_SANITIZER,
  TS_RECORD_OUTPUT,
  TS_RECORD_ACCESS,         /* format 2.1 */
  TS_N_RECORD_KINDS
} TsRecordKind;

/* A simulated or real device, as the run saw it. */
typedef struct
{
  guint32    index;          /* the ordinal the workload uses (after CUDA_VISIBLE_DEVICES) */
  TsStringId name;           /* "NVIDIA H100 80GB HBM3" */
  TsStringId model;          /* profile key, "h100" */
  guint32    sm_count;
  guint32    cc_major;
  guint32    cc_minor;
  guint64    total_memory;
} TsDeviceRecord;

typedef struct
{
  TsStreamId stream;         /* track id, unique in the run */
  guint32    device;
  gint32     priority;       /* 0 lowest, negative is higher */
  guint32    is_default;
  guint64    handle;         /* torch's cuda_stream value; 0 for the default stream */
} TsStreamRecord;

typedef struct
{
  guint32    thread;         /* small id, 0 is the main thread */
  TsStringId name;
} TsThreadRecord;

/* A host-side API call ("cudaLaunchKernel", "aten::add", "cudaMemcpyAsync"). */
typedef struct
{
  TsTime      start;
  TsTime      end;
  guint64     correlation;   /* links to the device work it launched */
  guint32     thread;
  TsStringId  name;
  TsSourceLoc loc;
  gint32      device;        /* -1 when not tied to a device */
  TsStreamId  stream;        /* TS_STREAM_NONE when not tied to a stream */
  guint32     padding;       /* made explicit: the struct is 8-aligned */
} TsApiCallRecord;

typedef struct
{
  TsTime     start;
  TsTime     end;
  TsTime     queued;         /* host time of the launch */
  guint64    correlation;
  guint32    device;
  TsStreamId stream;
  TsStringId name;
  guint32    grid[3];
  guint32    block[3];
  guint32    sms;            /* SMs the kernel occupied */
  guint64    flops;
  guint64    bytes;
  guint32    error;          /* 0, or a TsDeviceError code: the kernel faulted */
  guint32    padding;
} TsKernelRecord;

typedef struct
{
  TsTime     start;
  TsTime     end;
  TsTime     queued;
  guint64    correlation;
  guint32    device;         /* the device whose engine ran it */
  TsStreamId stream;
  guint32    kind;           /* TsCopyKind */
  guint32    flags;          /* TsCopyFlags */
  gint32     src_device;     /* -1 for host */
  gint32     dst_device;     /* -1 for host */
  guint64    bytes;
} TsMemcpyRecord;

typedef struct
{
  TsTime     start;
  TsTime     end;
  TsTime     queued;
  guint64    correlation;
  guint32    device;
  TsStreamId stream;
  guint64    bytes;
  guint32    value;
  guint32    padding;
} TsMemsetRecord;

/* cudaEventRecord: the event completes when the stream reaches it. */
typedef struct
{
  TsTime     queued;         /* host time of the record call */
  TsTime     time;           /* device time at which the event completed */
  guint64    correlation;
  guint64    event;          /* event id, unique in the run */
  guint32    device;
  TsStreamId stream;
} TsEventRecordRecord;

/* cudaStreamWaitEvent: work queued on the stream after this point starts
 * no earlier than the event's completion. */
typedef struct
{
  TsTime     queued;         /* host time of the wait call */
  TsTime     time;           /* device time at which the stream was released */
  guint64    correlation;
  guint64    event;
  guint64    record_correlation; /* the record this wait waited for; 0 if never recorded */
  guint32    device;
  TsStreamId stream;
} TsEventWaitRecord;

/* A host thread blocked on the device: [start, end) is the blocked span. */
typedef struct
{
  TsTime     start;
  TsTime     end;
  guint64    correlation;
  guint32    thread;
  guint32    kind;           /* TsSyncKind */
  gint32     device;
  TsStreamId stream;         /* for TS_SYNC_STREAM, else TS_STREAM_NONE */
  guint64    event;          /* for TS_SYNC_EVENT, else 0 */
} TsSyncRecord;

typedef struct
{
  TsTime      time;
  guint64     range_id;      /* pairs RANGE_START with RANGE_END; 0 for push/pop/mark */
  guint32     thread;
  guint32     kind;          /* TsNvtxKind */
  TsStringId  message;
  gint32      depth;         /* nesting depth after a push, before a pop */
  TsSourceLoc loc;
  guint32     padding;       /* made explicit: the struct is 8-aligned */
} TsNvtxRecord;

/* One action of the caching allocator, as in PyTorch's device trace.
 * Per action: alloc / free_requested / free_completed carry the block's
 * address, its (rounded) size and the unrounded request; segment_alloc /
 * segment_free the segment (requested 0). With caching disabled a plain
 * cudaMalloc/cudaFree is recorded as a segment action with requested ==
 * size, so replays can tell it apart. oom: addr is the device's free
 * bytes, size the rounded request, requested the device's total bytes.
 * Actions from ALLOC_RETRY on are the recorder's only (see ts-types.h). */
typedef struct
{
  TsTime      time;
  guint64     addr;
  guint64     size;          /* block or segment size (see TsAllocAction) */
  guint64     requested;     /* the unrounded request, for alloc/free */
  guint64     correlation;
  guint32     device;
  TsStreamId  stream;
  guint32     action;        /* TsAllocAction */
  guint32     pool;          /* 0 large, 1 small */
  TsSourceLoc loc;
  /* Format 2.1: the private pool the block or segment belongs to
   * (PyTorch's segment_pool_id, a MempoolId_t); (0, 0) for the device's
   * own pools and for actions that name no block. Two u32 rather than two
   * u64: both parts are counters from 1, and every alloc record pays for
   * the field (see ts_alloc_record_set_pool_id). */
  guint32     pool_id_first;
  guint32     pool_id_second;
  guint32     padding;
} TsAllocRecord;

static inline TsMemPoolId
ts_alloc_record_get_pool_id (const TsAllocRecord *r)
{
  TsMemPoolId id = { r->pool_id_first, r->pool_id_second };
  return id;
}

/* A part past G_MAXUINT32 (never seen: 4 billion pools or captures) is
 * kept as G_MAXUINT32. */
static inline void
ts_alloc_record_set_pool_id (TsAllocRecord *r,
                             TsMemPoolId    id)
{
  r->pool_id_first = (guint32) MIN (id.first, (guint64) G_MAXUINT32);
  r->pool_id_second = (guint32) MIN (id.second, (guint64) G_MAXUINT32);
}

typedef struct
{
  TsTime  time;
  gint64  value;
  guint32 device;
  guint32 counter;           /* TsCounterKind */
} TsCounterRecord;

/* An error raised by the runtime: a faulting kernel (an asynchronous error)
 * and the place where the host found out about it. */
typedef struct
{
  TsTime      time;          /* when it surfaced on the host */
  guint64     kernel_correlation;   /* the work item that failed, 0 if none */
  guint64     surfaced_correlation; /* the API call that reported it */
  guint32     device;
  TsStreamId  stream;
  guint32     code;          /* TsDeviceError */
  TsStringId  message;
  TsSourceLoc launch_loc;
  TsSourceLoc surfaced_loc;
} TsErrorRecord;

/* A race found by the sanitizer: two accesses to the same memory from two
 * streams with no ordering between them. */
typedef struct
{
  TsTime      time;
  guint64     addr;
  guint64     correlation;        /* the current access */
  guint64     prev_correlation;   /* the earlier, unordered access */
  TsStreamId  stream;
  TsStreamId  prev_stream;
  guint32     is_write;
  guint32     prev_is_write;
  TsStringId  op;
  TsStringId  prev_op;
  TsSourceLoc loc;
  TsSourceLoc prev_loc;
  TsSourceLoc alloc_loc;
  TsStringId  report;             /* the full text as printed */
} TsSanitizerRecord;

typedef struct
{
  TsTime     time;
  guint32    thread;
  guint32    kind;           /* TsOutputKind */
  TsStringId text;
  guint32    padding;
} TsOutputRecord;

/* One memory range a launch reads or writes (format 2.1), so that any trace
 * can be checked for cross-stream hazards (ts-hazards.h) without the
 * sanitizer. A launch writes one record per range it touches, right after
 * it is queued; correlation is its device work's (kernel, memcpy or
 * memset). TS_ACCESS_RECORD_STREAM is tensor.record_stream (stream): no
 * launch, the allocator will not reuse [addr, addr + size) before that
 * stream's work queued so far is done; its correlation is the number of
 * alloc records before it (the two may share a time). */
typedef struct
{
  TsTime     time;           /* host time of the launch or call */
  guint64    correlation;
  guint64    addr;
  guint64    size;
  TsStreamId stream;
  guint32    mode;           /* TsAccessMode */
} TsAccessRecord;

/* Field descriptions, so generic code can walk any record. */
typedef enum
{
  TS_FIELD_U32 = 1,
  TS_FIELD_I32,
  TS_FIELD_U64,
  TS_FIELD_I64,
  TS_FIELD_TIME,    /* an i64 in virtual ns */
  TS_FIELD_STRING,  /* a u32 TsStringId */
  TS_FIELD_STREAM,  /* a u32 TsStreamId */
  TS_FIELD_PAD,     /* a u32 of padding, always 0 */
} TsFieldType;

typedef struct
{
  const char *name;
  TsFieldType type;
  guint16     offset;
  guint16     size;
} TsFieldInfo;

typedef struct
{
  TsRecordKind       kind;
  const char        *name;       /* "kernel", "memcpy", ... */
  gsize              struct_size;
  guint              n_fields;
  const TsFieldInfo *fields;
} TsRecordInfo;

#define TS_RECORD_MAX_SIZE 128   /* no record struct is larger */

#define TS_RECORD_DATA_ERROR (ts_record_data_error_quark ())

typedef enum
{
  TS_RECORD_DATA_ERROR_BAD_VALUE = 1,
} TsRecordDataError;

GQuark              ts_record_data_error_quark (void);

const TsRecordInfo *ts_record_info        (TsRecordKind  kind);
const TsRecordInfo *ts_record_info_lookup (const char   *name);
const TsFieldInfo  *ts_record_info_field  (const TsRecordInfo *info,
                                           const char         *name);

/* Checks the enum-typed fields of a record (copy kind, sync kind, NVTX kind,
 * allocator action, counter, output kind, copy flags): a loader refuses a
 * record whose values no producer can write. */
gboolean            ts_record_validate    (TsRecordKind   kind,
                                           const void    *record,
                                           GError       **error);

G_END_DECLS
