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

/* One row per dispatch name: CSAN prints the schema of the overload that
 * ran, and classifies the arguments from its alias annotations. arg[i]
 * names the tensor in slot i + 1 of the op's job (slot 0 is the output, or
 * self for an in-place op). */
typedef struct
{
  const char *op;
  const char *functional;   /* NULL: only in-place */
  const char *inplace;      /* NULL: no in-place form */
  const char *over_dims;    /* NULL: same as functional */
  const char *arg[3];
} OpRow;

#define BINARY(name, ovl, ovl_, extra) \
  { "aten::" name, \
    "aten::" name ovl "(Tensor self, Tensor other" extra ") -> Tensor", \
    "aten::" name "_" ovl_ "(Tensor(a!) self, Tensor other" extra ") -> Tensor(a!)", \
    NULL, { "self", "other", NULL } }
#define UNARY(name) \
  { "aten::" name, "aten::" name "(Tensor self) -> Tensor", \
    "aten::" name "_(Tensor(a!) self) -> Tensor(a!)", NULL, { "self", NULL, NULL } }
#define ALPHA ", *, Scalar alpha=1"

static const OpRow op_table[] = {
  BINARY ("add", ".Tensor", ".Tensor", ALPHA),
  BINARY ("sub", ".Tensor", ".Tensor", ALPHA),
  BINARY ("mul", ".Tensor", ".Tensor", ""),
  BINARY ("div", ".Tensor", ".Tensor", ""),
  BINARY ("floor_divide", "", ".Tensor", ""),
  BINARY ("remainder", ".Tensor", ".Tensor", ""),
  { "aten::pow", "aten::pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
    "aten::pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)", NULL, { "self", "exponent", NULL } },
  { "aten::maximum", "aten::maximum(Tensor self, Tensor other) -> Tensor", NULL, NULL, { "self", "other", NULL } },
  { "aten::minimum", "aten::minimum(Tensor self, Tensor other) -> Tensor", NULL, NULL, { "self", "other", NULL } },
  BINARY ("eq", ".Tensor", ".Tensor", ""),
  BINARY ("ne", ".Tensor", ".Tensor", ""),
  BINARY ("lt", ".Tensor", ".Tensor", ""),
  BINARY ("le", ".Tensor", ".Tensor", ""),
  BINARY ("gt", ".Tensor", ".Tensor", ""),
  BINARY ("ge", ".Tensor", ".Tensor", ""),
  BINARY ("bitwise_and", ".Tensor", ".Tensor", ""),
  BINARY ("bitwise_or", ".Tensor", ".Tensor", ""),
  BINARY ("bitwise_xor", ".Tensor", ".Tensor", ""),
  UNARY ("neg"), UNARY ("abs"), UNARY ("exp"), UNARY ("log"), UNARY ("sqrt"),
  UNARY ("relu"), UNARY ("sigmoid"), UNARY ("tanh"), UNARY ("sin"), UNARY ("cos"),
  UNARY ("logical_not"),
  { "aten::fill_", NULL, "aten::fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", NULL,
    { NULL, NULL, NULL } },
  { "aten::copy_", NULL, "aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)", NULL,
    { "src", NULL, NULL } },
  { "aten::sum", "aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", NULL,
    "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    { "self", NULL, NULL } },
  { "aten::mean", "aten::mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", NULL,
    "aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    { "self", NULL, NULL } },
  { "aten::max", "aten::max(Tensor self) -> Tensor", NULL,
    "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    { "self", NULL, NULL } },
  { "aten::min", "aten::min(Tensor self) -> Tensor", NULL,
    "aten::min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    { "self", NULL, NULL } },
  { "aten::mm", "aten::mm(Tensor self, Tensor mat2) -> Tensor", NULL, NULL, { "self", "mat2", NULL } },
  { "aten::index_select", "aten::index_select(Tensor self, int dim, Tensor index) -> Tensor", NULL, NULL,
    { "self", "index", NULL } },
  { "aten::gather", "aten::gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
    NULL, NULL, { "self", "index", NULL } },
  { "aten::embedding",
    "aten::embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, "
    "bool sparse=False) -> Tensor", NULL, NULL, { "weight", "indices", NULL } },
  { "aten::arange",
    "aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", NULL, NULL,
    { NULL, NULL, NULL } },
  { "aten::normal_", NULL,
    "aten::normal_(Tensor(a!) self, float mean=0., float std=1., *, Generator? generator=None) -> Tensor(a!)",
    NULL, { NULL, NULL, NULL } },
  { "aten::uniform_", NULL,
    "aten::uniform_(Tensor(a!) self, float from=0., float to=1., *, Generator? generator=None) -> Tensor(a!)",
    NULL, { NULL, NULL, NULL } },
};

static struct
{
  gboolean          enabled;
  TsSanitizer      *sanitizer;
  TsOpAccessHooks   hooks;
  GHashTable       *rows;      /* op name → OpRow */
  TsSanitizerArgs  *args;
  const char       *schema;    /* of the op between begin and end */
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

static const OpRow *
lookup_row (const char *op)
{
  if (state.rows == NULL)
    {
      state.rows = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < G_N_ELEMENTS (op_table); i++)
        g_hash_table_insert (state.rows, (gpointer) op_table[i].op, (gpointer) &op_table[i]);
    }
  return g_hash_table_lookup (state.rows, op);
}

const char *
ts_op_access_schema (const char *op,
                     gboolean    inplace,
                     gboolean    over_dims)
{
  const OpRow *row;

  g_return_val_if_fail (op != NULL, NULL);

  row = lookup_row (op);
  if (row == NULL)
    return NULL;
  if (row->functional == NULL || (inplace && row->inplace != NULL))
    return row->inplace;
  if (over_dims && row->over_dims != NULL)
    return row->over_dims;
  return row->functional;
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

gboolean
ts_op_access_begin (const char      *op,
                    TsTensor *const *tensors,
                    guint            n_tensors,
                    guint            out_mask)
{
  const OpRow *row;
  TsTensor *out;
  gboolean inplace;

  if (!state.enabled || ts_op_access_get_sanitizer () == NULL || n_tensors == 0)
    return FALSE;

  row = lookup_row (op);
  out = tensors[0];
  /* An in-place op writes its first input: the job's output is self. */
  inplace = row != NULL && (row->functional == NULL ||
                            (row->inplace != NULL && n_tensors > 1 && tensors[1] != NULL &&
                             out != NULL && ts_tensor_data_ptr (out) == ts_tensor_data_ptr (tensors[1])));
  state.schema = row == NULL ? op
               : ts_op_access_schema (op, inplace, out != NULL && out->ndim > 0);

  ts_sanitizer_args_reset (state.args);
  if (inplace && is_device_tensor (out))
    ts_sanitizer_args_add_input (state.args, ts_tensor_data_ptr (out), "self", TS_SANITIZER_ARG_WRITE);
  for (guint i = 1; i < n_tensors; i++)
    {
      const TsTensor *t = tensors[i];
      const char *name = row != NULL && i <= G_N_ELEMENTS (row->arg) ? row->arg[i - 1] : NULL;

      if (!is_device_tensor (t) || (inplace && i == 1 && row->functional != NULL))
        continue;
      /* a reversed binary op (2 - t) leaves slot 1 empty: t is self */
      if (i == 2 && tensors[1] == NULL && row != NULL)
        name = row->arg[0];
      if (out_mask & (1u << i))
        ts_sanitizer_args_add_output (state.args, ts_tensor_data_ptr (t), TS_SANITIZER_ARG_WRITE);
      else
        ts_sanitizer_args_add_input (state.args, ts_tensor_data_ptr (t), name, TS_SANITIZER_ARG_READ);
    }
  if (is_device_tensor (out))
    ts_sanitizer_args_add_output (state.args, ts_tensor_data_ptr (out), TS_SANITIZER_ARG_WRITE);
  return TRUE;
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

  if (!state.enabled || ts_op_access_get_sanitizer () == NULL)
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
                            TsStreamId stream)
{
  if (state.sanitizer != NULL)
    ts_sanitizer_record_stream (state.sanitizer, addr, stream);
}

/* Streams and events ---------------------------------------------------- */

void
ts_op_access_stream_created (TsStreamId stream)
{
  TsRuntime *runtime = ts_session_get_runtime ();

  if (!state.enabled || ts_op_access_get_sanitizer () == NULL)
    return;
  ts_sanitizer_stream_created (state.sanitizer, stream,
                               ts_runtime_stream_get_device (runtime, stream),
                               ts_runtime_stream_get_handle (runtime, stream));
}

void
ts_op_access_event_created (guint64 event)
{
  if (state.enabled && ts_op_access_get_sanitizer () != NULL)
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
  if (state.enabled && ts_op_access_get_sanitizer () != NULL)
    ts_sanitizer_event_record (state.sanitizer, event, stream);
}

void
ts_op_access_stream_wait_event (TsStreamId stream,
                                guint64    event)
{
  if (state.enabled && ts_op_access_get_sanitizer () != NULL)
    ts_sanitizer_stream_wait_event (state.sanitizer, stream, event);
}

void
ts_op_access_stream_wait_stream (TsStreamId waiter,
                                 TsStreamId waitee)
{
  if (state.enabled && ts_op_access_get_sanitizer () != NULL)
    ts_sanitizer_stream_wait_stream (state.sanitizer, waiter, waitee);
}

void
ts_op_access_event_synchronize (guint64 event)
{
  if (state.enabled && ts_op_access_get_sanitizer () != NULL)
    ts_sanitizer_event_synchronize (state.sanitizer, event);
}

void
ts_op_access_stream_synchronize (TsStreamId stream)
{
  if (state.enabled && ts_op_access_get_sanitizer () != NULL)
    ts_sanitizer_stream_synchronize (state.sanitizer, stream);
}

/* torch.cuda.synchronize() reaches CSAN without its device: every stream. */
void
ts_op_access_device_synchronize (void)
{
  if (state.enabled && ts_op_access_get_sanitizer () != NULL)
    ts_sanitizer_device_synchronize (state.sanitizer, -1);
}
