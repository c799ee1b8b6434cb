/* ts-op-access.c: every op's accesses, fed to the race sanitizer
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ts-op-access.h"
#include "ts-session.h"

G_DEFINE_QUARK (ts-op-access-error-quark, ts_op_access_error)

static struct
{
  gboolean          enabled;
  TsSanitizer      *sanitizer;
  TsOpAccessHooks   hooks;
  TsSanitizerArgs  *args;
  const char       *schema;    /* of the op between begin and end */
  gboolean          sanitize;  /* between begin and end: feed the sanitizer */
  /* The launch's ranges for the trace, while a recorder is on: a plain
   * array, as this runs on every launch (one g_array call costs more than
   * the classification) */
  gboolean          tracing;
  TsAccessRecord   *ranges;
  guint             n_ranges;
  guint             max_ranges;
} state;

void
ts_op_access_enable (void)
{
  state.enabled = TRUE;
}

gboolean
ts_op_access_is_enabled (void)
{
  return state.enabled;
}

void
ts_op_access_set_hooks (const TsOpAccessHooks *hooks)
{
  if (hooks != NULL)
    state.hooks = *hooks;
  else
    memset (&state.hooks, 0, sizeof state.hooks);
}

/* Made at the first CUDA use: it needs the number of devices. */
TsSanitizer *
ts_op_access_get_sanitizer (void)
{
  TsRuntime *runtime;

  if (G_LIKELY (state.sanitizer != NULL) || !state.enabled)
    return state.sanitizer;
  runtime = ts_session_get_runtime ();
  if (runtime == NULL)
    return NULL;
  state.sanitizer = ts_sanitizer_new (ts_runtime_get_n_devices (runtime));
  ts_sanitizer_set_recorder (state.sanitizer, ts_session_get_recorder ());
  state.args = ts_sanitizer_args_new ();
  return state.sanitizer;
}

/* Whether this session sanitizes, the sanitizer made at the first use:
 * the condition of every forward to it below. */
static gboolean
sanitizing (void)
{
  return state.enabled && ts_op_access_get_sanitizer () != NULL;
}

/* CSAN prints the schema of the overload that ran (the op table's). */
const char *
ts_op_access_schema (const TsOpDesc *desc,
                     gboolean        inplace,
                     gboolean        over_dims)
{
  g_return_val_if_fail (desc != NULL, NULL);

  if (desc->functional == NULL || (inplace && desc->inplace != NULL))
    return desc->inplace;
  if (over_dims && desc->over_dims != NULL)
    return desc->over_dims;
  return desc->functional;
}

static const TsSanitizerFrame *
current_stack (guint *n_frames)
{
  *n_frames = 0;
  if (state.hooks.get_stack == NULL)
    return NULL;
  return state.hooks.get_stack (n_frames, state.hooks.user_data);
}

static gboolean
is_device_tensor (const TsTensor *t)
{
  return t != NULL && t->storage->device.type == TS_DEVICE_CUDA;
}

/* One range of the launch for the trace: from the view's first element to
 * its last, so that two views of one storage that do not overlap stay
 * apart. A pointer both read and written is written, as the sanitizer
 * counts it. */
static void
note_range (const TsTensor *t,
            gboolean        write)
{
  gsize esize = ts_dtype_size (t->dtype);
  guint64 addr = t->storage->addr, size;
  gint64 last = 0;

  if (addr == 0)
    return;
  addr += t->offset * esize;
  for (guint d = 0; d < t->ndim; d++)
    {
      if (t->shape[d] == 0)
        return;
      last += (t->shape[d] - 1) * ABS (t->strides[d]);
    }
  size = (guint64) (last + 1) * esize;
  for (guint i = 0; i < state.n_ranges; i++)
    if (state.ranges[i].addr == addr && state.ranges[i].size == size)
      {
        if (write)
          state.ranges[i].mode = TS_ACCESS_WRITE;
        return;
      }
  if (G_UNLIKELY (state.n_ranges == state.max_ranges))
    {
      state.max_ranges = MAX (8, 2 * state.max_ranges);
      state.ranges = g_renew (TsAccessRecord, state.ranges, state.max_ranges);
    }
  state.ranges[state.n_ranges++] = (TsAccessRecord) { .addr = addr, .size = size,
                                                      .mode = write ? TS_ACCESS_WRITE : TS_ACCESS_READ };
}

/* Both consumers of the classification: the sanitizer (when on) and the
 * trace's access records (when recording). */
static void
note_input (const TsTensor     *t,
            const char         *name,
            TsSanitizerArgKind  kind)
{
  if (state.sanitize)
    ts_sanitizer_args_add_input (state.args, ts_tensor_data_ptr (t), name, kind);
  if (state.tracing)
    note_range (t, kind == TS_SANITIZER_ARG_WRITE);
}

static void
note_output (const TsTensor *t)
{
  if (state.sanitize)
    ts_sanitizer_args_add_output (state.args, ts_tensor_data_ptr (t), TS_SANITIZER_ARG_WRITE);
  if (state.tracing)
    note_range (t, TRUE);
}

/* The accesses of one op's tensors, added to those of the launch. */
/* Whether @desc's schema takes a tensor list (cat's Tensor[] tensors),
 * whose every slot after the output is that argument: asked once an op,
 * as the answer is a scan of the schema's text. */
static gboolean
takes_list (const TsOpDesc *desc)
{
  static gint8 answers[TS_N_OPS];   /* 0: not asked yet, 1: no, 2: yes */

  if (G_UNLIKELY (answers[desc->id] == 0))
    answers[desc->id] = desc->functional != NULL && strstr (desc->functional, "Tensor[] ") != NULL ? 2 : 1;
  return answers[desc->id] == 2;
}

static void
add_args (const TsOpDesc  *desc,
          TsTensor *const *tensors,
          guint            n_tensors,
          guint            out_mask,
          gboolean         inplace)
{
  TsTensor *out = tensors[0];

  if (inplace && is_device_tensor (out))
    note_input (out, "self", TS_SANITIZER_ARG_WRITE);
  for (guint i = 1; i < n_tensors; i++)
    {
      const TsTensor *t = tensors[i];
      const char *name = i <= G_N_ELEMENTS (desc->args) ? desc->args[i - 1] : NULL;

      if (!is_device_tensor (t) || (inplace && i == 1 && desc->functional != NULL))
        continue;
      /* a reversed binary op (2 - t) leaves slot 1 empty: t is self */
      if (i == 2 && tensors[1] == NULL)
        name = desc->args[0];
      /* a list argument (cat's Tensor[] tensors) fills every slot after the output */
      if (name == NULL && takes_list (desc))
        name = desc->args[0];
      if (out_mask & (1u << i))
        note_output (t);
      else
        note_input (t, name, TS_SANITIZER_ARG_READ);
    }
  if (is_device_tensor (out))
    note_output (out);
}

static gboolean
job_is_inplace (const TsOpDesc  *desc,
                TsTensor *const *tensors,
                guint            n_tensors)
{
  TsTensor *out = tensors[0];

  /* An in-place op writes its first input: the job's output is self. */
  return desc->functional == NULL ||
         (desc->inplace != NULL && n_tensors > 1 && tensors[1] != NULL &&
          out != NULL && ts_tensor_data_ptr (out) == ts_tensor_data_ptr (tensors[1]));
}

/* Who listens to this launch: the sanitizer, the trace, or no one. */
static gboolean
begin_launch (void)
{
  state.sanitize = sanitizing ();
  if (state.sanitize)
    ts_sanitizer_args_reset (state.args);
  state.tracing = ts_session_get_recorder () != NULL;
  state.n_ranges = 0;
  return state.sanitize || state.tracing;
}

/* The op's arguments classified from its schema's alias annotations:
 * args[i] names the tensor in slot i + 1 of the op's job (slot 0 is the
 * output, or self for an in-place op). */
gboolean
ts_op_access_begin (const TsOpDesc  *desc,
                    TsTensor *const *tensors,
                    guint            n_tensors,
                    guint            out_mask)
{
  gboolean inplace;

  if (n_tensors == 0)
    {
      /* nothing of a failed launch before may reach this one's trace */
      state.n_ranges = 0;
      return state.sanitize = FALSE;
    }
  if (!begin_launch ())
    return FALSE;

  inplace = job_is_inplace (desc, tensors, n_tensors);
  if (state.sanitize)
    state.schema = ts_op_access_schema (desc, inplace, tensors[0] != NULL && tensors[0]->ndim > 0);
  add_args (desc, tensors, n_tensors, out_mask, inplace);
  return state.sanitize;
}

gboolean
ts_op_access_begin_list (const TsOpDesc *desc,
                         gboolean        inplace)
{
  if (!begin_launch ())
    return FALSE;
  if (state.sanitize)
    state.schema = ts_op_access_schema (desc, inplace, FALSE);
  return state.sanitize;
}

void
ts_op_access_add (const TsOpDesc  *desc,
                  TsTensor *const *tensors,
                  guint            n_tensors,
                  guint            out_mask)
{
  if ((state.sanitize || state.tracing) && n_tensors > 0)
    add_args (desc, tensors, n_tensors, out_mask, job_is_inplace (desc, tensors, n_tensors));
}

void
ts_op_access_trace (TsStreamId stream,
                    guint64    correlation)
{
  TsRecorder *recorder = ts_session_get_recorder ();
  TsTime now;
  guint n;

  if ((n = state.n_ranges) == 0 || recorder == NULL)
    return;
  now = ts_runtime_get_host_time (ts_session_get_runtime ());
  for (guint i = 0; i < n; i++)
    {
      state.ranges[i].time = now;
      state.ranges[i].correlation = correlation;
      state.ranges[i].stream = stream;
    }
  /* the launch's ranges under one lock */
  ts_recorder_append_many (recorder, TS_RECORD_ACCESS, state.ranges, n);
  state.n_ranges = 0;
}

static void
show_report (const char *text)
{
  if (state.hooks.report != NULL)
    state.hooks.report (text, state.hooks.user_data);
  else
    fprintf (stderr, "%s\n", text);
}

gboolean
ts_op_access_end (TsStreamId   stream,
                  guint64      correlation,
                  gboolean     launched,
                  GError     **error)
{
  g_autofree char *message = NULL;
  const TsSanitizerAccess *accesses;
  TsSanitizerOp op = { 0 };
  guint n_accesses, n_reports, total;

  if (!launched || state.sanitizer == NULL)
    return launched;

  accesses = ts_sanitizer_args_get_accesses (state.args, &n_accesses);
  op.schema = state.schema;
  op.correlation = correlation;
  op.time = ts_runtime_get_host_time (ts_session_get_runtime ());
  op.frames = current_stack (&op.n_frames);
  n_reports = ts_sanitizer_kernel (state.sanitizer, stream, accesses, n_accesses, &op);
  if (n_reports == 0)
    return TRUE;

  total = ts_sanitizer_get_n_reports (state.sanitizer);
  for (guint i = total - n_reports; i < total; i++)
    {
      g_autofree char *text = ts_sanitizer_report_format (ts_sanitizer_get_report (state.sanitizer, i));
      show_report (text);
    }
  message = ts_sanitizer_format_errors (n_reports);
  g_set_error_literal (error, TS_OP_ACCESS_ERROR, TS_OP_ACCESS_ERROR_RACES, message);
  return FALSE;
}

/* Memory ----------------------------------------------------------------- */

void
ts_op_access_alloc (guint64    addr,
                    guint64    size,
                    TsStreamId stream)
{
  const TsSanitizerFrame *frames;
  guint n_frames;

  if (!sanitizing ())
    return;
  frames = current_stack (&n_frames);
  ts_sanitizer_alloc (state.sanitizer, addr, size, stream, frames, n_frames);
}

void
ts_op_access_free (guint64 addr)
{
  const TsSanitizerFrame *frames;
  guint n_frames;

  if (state.sanitizer == NULL)
    return;
  frames = current_stack (&n_frames);
  ts_sanitizer_free (state.sanitizer, addr, frames, n_frames);
}

void
ts_op_access_record_stream (guint64    addr,
                            guint64    size,
                            TsStreamId stream)
{
  TsRecorder *recorder = ts_session_get_recorder ();

  if (state.sanitizer != NULL)
    ts_sanitizer_record_stream (state.sanitizer, addr, stream);
  /* the hazard analysis of the trace needs it as much as the sanitizer */
  if (recorder != NULL && ts_session_get_runtime () != NULL)
    {
      TsAccessRecord r = { .addr = addr, .size = size, .stream = stream, .mode = TS_ACCESS_RECORD_STREAM };

      /* its place among the allocator's records, which may share its time */
      r.correlation = ts_recorder_get_count (recorder, TS_RECORD_ALLOC);
      r.time = ts_runtime_get_host_time (ts_session_get_runtime ());
      ts_recorder_append (recorder, TS_RECORD_ACCESS, &r);
    }
}

/* Streams and events ---------------------------------------------------- */

void
ts_op_access_stream_created (TsStreamId stream)
{
  TsRuntime *runtime = ts_session_get_runtime ();

  if (!sanitizing ())
    return;
  ts_sanitizer_stream_created (state.sanitizer, stream,
                               ts_runtime_stream_get_device (runtime, stream),
                               ts_runtime_stream_get_handle (runtime, stream));
}

void
ts_op_access_event_created (guint64 event)
{
  if (sanitizing ())
    ts_sanitizer_event_created (state.sanitizer, event);
}

void
ts_op_access_event_destroyed (guint64 event)
{
  if (state.sanitizer != NULL)
    ts_sanitizer_event_destroyed (state.sanitizer, event);
}

void
ts_op_access_event_record (guint64    event,
                           TsStreamId stream)
{
  if (sanitizing ())
    ts_sanitizer_event_record (state.sanitizer, event, stream);
}

void
ts_op_access_stream_wait_event (TsStreamId stream,
                                guint64    event)
{
  if (sanitizing ())
    ts_sanitizer_stream_wait_event (state.sanitizer, stream, event);
}

void
ts_op_access_stream_wait_stream (TsStreamId waiter,
                                 TsStreamId waitee)
{
  if (sanitizing ())
    ts_sanitizer_stream_wait_stream (state.sanitizer, waiter, waitee);
}

void
ts_op_access_event_synchronize (guint64 event)
{
  if (sanitizing ())
    ts_sanitizer_event_synchronize (state.sanitizer, event);
}

void
ts_op_access_stream_synchronize (TsStreamId stream)
{
  if (sanitizing ())
    ts_sanitizer_stream_synchronize (state.sanitizer, stream);
}

/* torch.cuda.synchronize() reaches CSAN without its device: every stream. */
void
ts_op_access_device_synchronize (void)
{
  if (sanitizing ())
    ts_sanitizer_device_synchronize (state.sanitizer, -1);
}
