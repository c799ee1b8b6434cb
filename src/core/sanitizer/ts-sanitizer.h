/* ts-sanitizer.h: the stream race sanitizer (PyTorch's CSAN, in C)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * TsSanitizer finds kernels on different streams that touch the same memory
 * with nothing ordering them. It is fed plain facts by whoever dispatches
 * ops (the torch layer): kernel launches with the data pointers they read
 * and write, event records and waits, the three host synchronizations,
 * allocations and frees. It knows nothing of tensors or of the runtime.
 *
 * The algorithm is CSAN's (torch/cuda/_sanitizer.py), step for step:
 *
 * - A global sequence number counts kernels. Each stream has a vector
 *   clock, stream → the newest sequence number of that stream known to be
 *   finished before work queued now on this stream starts; the host has one
 *   too. A stream created later starts with host[s] = 0 and a copy of the
 *   host's clock. Missing entries read as -1.
 * - A kernel on stream s takes seq = ++seq_num and sets current[s][s] = seq.
 *   An earlier access (prev_seq, prev_stream) is ordered before it when
 *   prev_seq <= current[s][prev_stream].
 * - For every data pointer the kernel only reads: check the last write, then
 *   append the read. For every pointer it writes: check every read since the
 *   last write if there are any, else the last write; then the write becomes
 *   the last write and the reads are cleared. Reads are handled before
 *   writes, each in the order given.
 * - event record: recorded[e] = copy (current[s]).
 *   stream wait_event: current[s] = max (current[s], recorded[e]).
 *   event synchronize: every stream and the host take max with recorded[e].
 *   stream synchronize: every stream and the host take max with current[s].
 *   device synchronize: host[s] = current[s][s] for every stream s, then
 *   every stream takes max with the host.
 * - Allocation creates a fresh entry for the pointer with its allocation
 *   stack; a free (at the free *request*, not when the allocator reuses the
 *   block) deletes it. Streams, events and pointers never announced are
 *   created on first use, with an info message, as CSAN back-fills them.
 *
 * What the caller must classify (CSAN's rules, applied to the op's schema):
 * - an argument whose type has a writing alias, `Tensor(a!)` (in-place self,
 *   out=), is written;
 * - an argument with a non-writing alias, `Tensor(a)` (views), and every
 *   tensor argument of a factory op is metadata only: no access at all;
 * - every other CUDA tensor argument (Tensor, Tensor?, Tensor[]) is read;
 * - outputs are written unless metadata only (a view return, a factory);
 * - a pointer both read and written is only written (reads = read - written);
 * - the same pointer in several arguments is one access listing all names;
 * - `aten::record_stream` is not a kernel: call ts_sanitizer_record_stream()
 *   instead of ts_sanitizer_kernel();
 * - a factory op is one whose qualified schema name matches CSAN's pattern
 *   `(new_.*|.*_like)` with Python's re.match, i.e. contains "_like"
 *   (upstream matches against "aten::new_zeros", so `new_*` ops are in fact
 *   treated as reading self; we keep that).
 * TsSanitizerArgs below applies these rules; the schema helpers classify an
 * argument or a return from the schema text.
 *
 * What CSAN misses and we add: memory freed while a kernel on another stream
 * may still use it (no record_stream), then handed out again by the caching
 * allocator. The allocator reuses a block at once for its own stream, so the
 * new tensor's kernels can overwrite memory the old kernel still reads. At a
 * free we keep the pointer's last accesses as a "freed range"
 * [ptr, ptr + size); an allocation overlapping freed ranges inherits their
 * accesses; the new tensor's first kernel access checks them with the write
 * rule (whatever it does, the old access must be finished), skipping
 * accesses on streams the old tensor was record_stream'ed to (the allocator
 * itself delays reuse past those). A finding is a TS_SANITIZER_REUSE report.
 * Freed ranges whose accesses the host has synchronized past are dropped.
 *
 * Cost: as in CSAN, the reads since a pointer's last write are all kept (a
 * later write reports each unordered one), so a tensor read forever and
 * never written (weights) holds every reading kernel's copied stack.
 *
 * Not thread-safe: the caller serializes calls (the torch layer holds the
 * GIL). Streams are TsStreamId tracks; the first n_devices tracks are the
 * default streams (handle 0), present from the start.
 */

#pragma once

#include <glib-object.h>

#include "ts-recorder.h"
#include "ts-types.h"

G_BEGIN_DECLS

#define TS_TYPE_SANITIZER (ts_sanitizer_get_type ())

G_DECLARE_FINAL_TYPE (TsSanitizer, ts_sanitizer, TS, SANITIZER, GObject)

/* One frame of a Python-style stack, outermost first (as CSAN prints). */
typedef struct
{
  const char *file;
  guint       line;
  const char *function;
  const char *text;      /* the source line, or NULL; printed stripped */
} TsSanitizerFrame;

/* The kernel being launched. Strings and frames are copied. */
typedef struct
{
  const char             *schema;      /* "aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor" */
  guint64                 correlation;
  TsTime                  time;        /* host time of the launch, for the record */
  const TsSanitizerFrame *frames;
  guint                   n_frames;
} TsSanitizerOp;

/* One data pointer the kernel touches. */
typedef struct
{
  guint64     data_ptr;   /* device address; CSAN uses id() for a null pointer */
  gboolean    is_write;
  gboolean    is_output;  /* also (or only) an output of the op */
  const char *names;      /* argument names joined with ", ", or NULL/"" */
} TsSanitizerAccess;

typedef enum
{
  TS_SANITIZER_RACE = 1,   /* CSAN's UnsynchronizedAccessError */
  TS_SANITIZER_REUSE = 2,  /* freed without record_stream and reused */
} TsSanitizerReportKind;

/* One side of a report. Strings and frames live as long as the report. */
typedef struct
{
  TsStreamId              stream;
  guint64                 stream_handle;   /* torch's cuda_stream, as printed */
  gboolean                is_write;
  gboolean                is_output;
  const char             *names;           /* "" when none */
  const char             *schema;
  guint64                 correlation;
  TsTime                  time;
  const TsSanitizerFrame *frames;
  guint                   n_frames;
} TsSanitizerSide;

typedef struct
{
  TsSanitizerReportKind   kind;
  guint64                 data_ptr;
  TsSanitizerSide         current;
  TsSanitizerSide         previous;
  /* n_alloc_frames == 0: "Trace for tensor allocation not found." */
  const TsSanitizerFrame *alloc_frames;
  guint                   n_alloc_frames;
  /* TS_SANITIZER_REUSE only: the freed tensor (its pointer and where it was
   * freed); the current tensor's allocation is alloc_frames. */
  guint64                 freed_ptr;
  const TsSanitizerFrame *free_frames;
  guint                   n_free_frames;
} TsSanitizerReport;

TsSanitizer *ts_sanitizer_new              (guint                    n_devices);

/* Streams. handle is torch's cuda_stream value (printed in reports). */
void         ts_sanitizer_stream_created   (TsSanitizer             *self,
                                            TsStreamId               stream,
                                            gint                     device,
                                            guint64                  handle);

/* A kernel: returns how many reports it produced (0 when all is ordered);
 * they are the last ones of ts_sanitizer_get_report(). */
guint        ts_sanitizer_kernel           (TsSanitizer             *self,
                                            TsStreamId               stream,
                                            const TsSanitizerAccess *accesses,
                                            guint                    n_accesses,
                                            const TsSanitizerOp     *op);

/* Events, by a run-wide id. */
void         ts_sanitizer_event_created    (TsSanitizer             *self,
                                            guint64                  event);
void         ts_sanitizer_event_destroyed  (TsSanitizer             *self,
                                            guint64                  event);
void         ts_sanitizer_event_record     (TsSanitizer             *self,
                                            guint64                  event,
                                            TsStreamId               stream);
void         ts_sanitizer_stream_wait_event (TsSanitizer            *self,
                                            TsStreamId               stream,
                                            guint64                  event);
/* waiter.wait_stream (waitee): a record on waitee and a wait, with no event
 * left behind. */
void         ts_sanitizer_stream_wait_stream (TsSanitizer           *self,
                                            TsStreamId               waiter,
                                            TsStreamId               waitee);

/* Host synchronizations. device -1 is CSAN's form (every stream); a device
 * index limits the first step to that device's streams. */
void         ts_sanitizer_event_synchronize  (TsSanitizer           *self,
                                            guint64                  event);
void         ts_sanitizer_stream_synchronize (TsSanitizer           *self,
                                            TsStreamId               stream);
void         ts_sanitizer_device_synchronize (TsSanitizer           *self,
                                            gint                     device);

/* Memory. Frames may be NULL (no allocation trace). size may be 0 when
 * unknown (the freed range is then the pointer alone). */
void         ts_sanitizer_alloc            (TsSanitizer             *self,
                                            guint64                  data_ptr,
                                            guint64                  size,
                                            TsStreamId               stream,
                                            const TsSanitizerFrame  *frames,
                                            guint                    n_frames);
void         ts_sanitizer_free             (TsSanitizer             *self,
                                            guint64                  data_ptr,
                                            const TsSanitizerFrame  *frames,
                                            guint                    n_frames);
/* tensor.record_stream (stream): the allocator will not reuse the block
 * before stream's work queued up to the free is done. */
void         ts_sanitizer_record_stream    (TsSanitizer             *self,
                                            guint64                  data_ptr,
                                            TsStreamId               stream);

/* Optional: every report is also appended to the recorder as a
 * TsSanitizerRecord (locations are the innermost frames, report is the
 * formatted text). */
TsRecorder  *ts_sanitizer_get_recorder     (TsSanitizer             *self);
void         ts_sanitizer_set_recorder     (TsSanitizer             *self,
                                            TsRecorder              *recorder);

guint                    ts_sanitizer_get_n_reports (TsSanitizer *self);
const TsSanitizerReport *ts_sanitizer_get_report    (TsSanitizer *self,
                                                     guint        index);

/* Number of info messages for back-filled streams, events and pointers. */
guint        ts_sanitizer_get_n_backfills  (TsSanitizer             *self);

/* The report as str(error) gives it in PyTorch (print() adds one "\n"). */
char        *ts_sanitizer_report_format    (const TsSanitizerReport *report);
/* Python's traceback.StackSummary.format(), joined. */
char        *ts_sanitizer_format_stack     (const TsSanitizerFrame  *frames,
                                            guint                    n_frames);
/* str(CUDASanitizerErrors): "detected N errors". */
char        *ts_sanitizer_format_errors    (guint                    n_errors);

/* Helpers for the caller's classification. */
typedef enum
{
  TS_SANITIZER_ARG_READ = 1,   /* Tensor, Tensor?, Tensor[] */
  TS_SANITIZER_ARG_WRITE,      /* Tensor(a!) */
  TS_SANITIZER_ARG_METADATA,   /* Tensor(a), or any argument of a factory op */
  TS_SANITIZER_ARG_NONE,       /* not a tensor, or no such argument */
} TsSanitizerArgKind;

/* Whether CSAN counts the op as a factory (its pattern, see above). */
gboolean           ts_sanitizer_schema_is_factory (const char *schema);
/* The kind of argument `name` of the schema text (factory rule applied). */
TsSanitizerArgKind ts_sanitizer_schema_arg_kind   (const char *schema,
                                                   const char *name);
/* The kind CSAN gives every output tensor (WRITE, METADATA or NONE):
 * upstream pairs only the schema's first return with the whole result, so
 * the first return's annotation applies to all outputs. */
TsSanitizerArgKind ts_sanitizer_schema_output_kind (const char *schema);

/* Collects an op's tensors and produces its accesses by CSAN's rules:
 * merges pointers, joins names, drops reads of written pointers and
 * metadata-only tensors. Reusable: reset between ops. */
typedef struct _TsSanitizerArgs TsSanitizerArgs;

TsSanitizerArgs         *ts_sanitizer_args_new          (void);
void                     ts_sanitizer_args_free         (TsSanitizerArgs    *args);
void                     ts_sanitizer_args_reset        (TsSanitizerArgs    *args);
void                     ts_sanitizer_args_add_input    (TsSanitizerArgs    *args,
                                                         guint64             data_ptr,
                                                         const char         *name,
                                                         TsSanitizerArgKind  kind);
void                     ts_sanitizer_args_add_output   (TsSanitizerArgs    *args,
                                                         guint64             data_ptr,
                                                         TsSanitizerArgKind  kind);
/* Reads first, then writes. Valid until the next change to args. */
const TsSanitizerAccess *ts_sanitizer_args_get_accesses (TsSanitizerArgs    *args,
                                                         guint              *n_accesses);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsSanitizerArgs, ts_sanitizer_args_free)

G_END_DECLS
