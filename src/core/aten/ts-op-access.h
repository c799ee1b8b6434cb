/* ts-op-access.h: what every op reads and writes, fed to the race sanitizer
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The glue between the tensor layer and TsSanitizer (PyTorch's CSAN). When
 * the sanitizer is on (`--sanitize`, TORCH_CUDA_SANITIZER, or
 * torch.cuda._sanitizer.enable_cuda_sanitizer()), every device op tells it
 * which data pointers it reads and writes, classified by CSAN's rules from
 * the op's ATen schema (the op table's, ts-op-table.h); allocations, frees,
 * record_stream, stream creation, event record/wait and the host
 * synchronizations are forwarded as they happen.
 *
 * The core cannot see Python: the torch binding installs hooks that return
 * the user's Python stack at the op (the stack traces of the reports) and
 * that print a report as CSAN does (to sys.stderr). A kernel whose accesses
 * race fails with TS_OP_ACCESS_ERROR_RACES, "detected N errors": the
 * binding raises torch.cuda._sanitizer.CUDASanitizerErrors from it, after
 * the kernel was queued, as CSAN raises after running the op.
 *
 * Everything here runs under the caller's serialization (the GIL); with the
 * sanitizer off each hook is one load and a branch.
 */

#pragma once

#include "ts-op-table.h"
#include "ts-sanitizer.h"
#include "ts-tensor.h"

G_BEGIN_DECLS

#define TS_OP_ACCESS_ERROR (ts_op_access_error_quark ())

typedef enum
{
  TS_OP_ACCESS_ERROR_RACES,   /* torch.cuda._sanitizer.CUDASanitizerErrors */
} TsOpAccessError;

GQuark ts_op_access_error_quark (void);

typedef struct
{
  /* The stack at this moment, outermost first; valid until the next call. */
  const TsSanitizerFrame *(*get_stack) (guint    *n_frames,
                                        gpointer  user_data);
  /* One report, as str(error) gives it; print (error, file=sys.stderr). */
  void                    (*report)    (const char *text,
                                        gpointer    user_data);
  gpointer                  user_data;
} TsOpAccessHooks;

/* Turns the sanitizer on for the rest of the run (it cannot be turned off,
 * as in PyTorch). The sanitizer itself is made at the first CUDA use. */
void         ts_op_access_enable         (void);
gboolean     ts_op_access_is_enabled     (void);
void         ts_op_access_set_hooks      (const TsOpAccessHooks *hooks);
/* NULL while off or before CUDA is initialized. */
TsSanitizer *ts_op_access_get_sanitizer  (void);

/* The schema CSAN would print for the op in its in-place or functional
 * form, and for reductions over some dims. */
const char  *ts_op_access_schema         (const TsOpDesc *desc,
                                          gboolean        inplace,
                                          gboolean        over_dims);

/* A device op: begin before the launch (tensors[0] is the op's output,
 * out_mask says which tensors are written), end after it with whether the
 * launch worked (correlation: the launch's, for the trace). begin returns
 * FALSE when the sanitizer is off; it still classifies the tensors for the
 * trace's access records when a recorder is on (ts_op_access_trace). */
gboolean     ts_op_access_begin          (const TsOpDesc  *desc,
                                          TsTensor *const *tensors,
                                          guint            n_tensors,
                                          guint            out_mask);
/* A multi-tensor launch (ts-ops-foreach.c): begin_list with the list op
 * (CSAN prints its schema), then each per-tensor kernel's tensors, then
 * end. */
gboolean     ts_op_access_begin_list     (const TsOpDesc  *desc,
                                          gboolean         inplace);
void         ts_op_access_add            (const TsOpDesc  *desc,
                                          TsTensor *const *tensors,
                                          guint            n_tensors,
                                          guint            out_mask);
/* After a launch that worked (sanitizer on or not): appends the ranges
 * classified since begin to the trace as TsAccessRecords of @stream, with
 * @correlation, the launch's work's. */
void         ts_op_access_trace          (TsStreamId       stream,
                                          guint64          correlation);
gboolean     ts_op_access_end            (TsStreamId       stream,
                                          guint64          correlation,
                                          gboolean         launched,
                                          GError         **error);

/* Memory. */
void         ts_op_access_alloc          (guint64     addr,
                                          guint64     size,
                                          TsStreamId  stream);
void         ts_op_access_free           (guint64     addr);
void         ts_op_access_record_stream  (guint64     addr,
                                          guint64     size,
                                          TsStreamId  stream);

/* Streams, events, synchronizations (after the runtime call succeeded). */
void         ts_op_access_stream_created     (TsStreamId  stream);
void         ts_op_access_event_created      (guint64     event);
void         ts_op_access_event_destroyed    (guint64     event);
void         ts_op_access_event_record       (guint64     event,
                                              TsStreamId  stream);
void         ts_op_access_stream_wait_event  (TsStreamId  stream,
                                              guint64     event);
void         ts_op_access_stream_wait_stream (TsStreamId  waiter,
                                              TsStreamId  waitee);
void         ts_op_access_event_synchronize  (guint64     event);
void         ts_op_access_stream_synchronize (TsStreamId  stream);
void         ts_op_access_device_synchronize (void);

G_END_DECLS
