/* ts-autocast.c: torch.autocast's state and its casts
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PyTorch 1.13's aten/src/ATen/autocast_mode.cpp, in C: the state lives
 * per thread (its dispatch keys are thread-local), the casts are real
 * aten::to calls (so the trace shows their copies where PyTorch launches
 * them), and the cache keeps the lower-precision copy of each float32
 * leaf that requires grad (the model's weights) for the rest of the
 * outermost region, so a weight used by several ops is cast once.
 */

#include "config.h"

#include "ts-autocast.h"
#include "ts-autograd.h"
#include "ts-ops.h"
#include "ts-session.h"

typedef struct
{
  gboolean enabled;
  TsDType  dtype;
} DeviceState;

static _Thread_local DeviceState state[TS_AUTOCAST_N_DEVICES] = {
  [TS_AUTOCAST_CUDA] = { FALSE, TS_DTYPE_FLOAT16 },
  [TS_AUTOCAST_CPU] = { FALSE, TS_DTYPE_BFLOAT16 },
};
static _Thread_local gboolean cache_disabled;
static _Thread_local gboolean excluded;
static _Thread_local int nesting;
/* source TsTensor* (a reference) -> its cast (a reference) */
static _Thread_local GHashTable *cache;

gboolean
ts_autocast_is_enabled (TsAutocastDevice device)
{
  g_return_val_if_fail (device < TS_AUTOCAST_N_DEVICES, FALSE);
  return state[device].enabled;
}

void
ts_autocast_set_enabled (TsAutocastDevice device,
                         gboolean         enabled)
{
  g_return_if_fail (device < TS_AUTOCAST_N_DEVICES);
  state[device].enabled = enabled;
}

TsDType
ts_autocast_get_dtype (TsAutocastDevice device)
{
  g_return_val_if_fail (device < TS_AUTOCAST_N_DEVICES, TS_DTYPE_FLOAT32);
  return state[device].dtype;
}

void
ts_autocast_set_dtype (TsAutocastDevice device,
                       TsDType          dtype)
{
  g_return_if_fail (device < TS_AUTOCAST_N_DEVICES);
  state[device].dtype = dtype;
}

gboolean
ts_autocast_is_cache_enabled (void)
{
  return !cache_disabled;
}

void
ts_autocast_set_cache_enabled (gboolean enabled)
{
  cache_disabled = !enabled;
}

int
ts_autocast_increment_nesting (void)
{
  return ++nesting;
}

int
ts_autocast_decrement_nesting (void)
{
  return --nesting;
}

void
ts_autocast_clear_cache (void)
{
  g_clear_pointer (&cache, g_hash_table_unref);
}

gboolean
ts_autocast_set_excluded (gboolean value)
{
  gboolean was = excluded;

  excluded = value;
  return was;
}

/* The device type of an op over @operands: CUDA when any is (a CPU 0-dim
 * operand rides along with a device op), else the CPU. FALSE: none. */
static gboolean
operands_device (TsTensor *const  *operands,
                 guint             n,
                 TsAutocastDevice *device)
{
  gboolean any = FALSE;

  *device = TS_AUTOCAST_CPU;
  for (guint i = 0; i < n; i++)
    if (operands[i] != NULL)
      {
        any = TRUE;
        if (ts_tensor_is_cuda (operands[i]))
          *device = TS_AUTOCAST_CUDA;
      }
  return any;
}

TsAutocastPolicy
ts_autocast_policy (const TsOpDesc  *op,
                    TsTensor *const *operands,
                    guint            n)
{
  TsAutocastDevice device;

  /* the common case first: no region anywhere on this thread */
  if (G_LIKELY (!state[TS_AUTOCAST_CUDA].enabled && !state[TS_AUTOCAST_CPU].enabled))
    return TS_AUTOCAST_NONE;
  if (excluded || !operands_device (operands, n, &device) || !state[device].enabled)
    return TS_AUTOCAST_NONE;
  return op->autocast[device];
}

/* PyTorch's is_eligible: a floating tensor of the region's device type,
 * and never float64 (autocast does not touch double math). */
static gboolean
is_eligible (const TsTensor  *t,
             TsAutocastDevice device)
{
  return t != NULL && ts_dtype_is_floating (t->dtype) && t->dtype != TS_DTYPE_FLOAT64 &&
         (ts_tensor_is_cuda (t) ? TS_AUTOCAST_CUDA : TS_AUTOCAST_CPU) == device;
}

/* PyTorch caches only the lower-precision casts of float32 leaves that
 * require grad: the weights, cast once per region rather than per use. */
static gboolean
can_cache (TsTensor        *t,
           TsDType          to,
           TsAutocastDevice device)
{
  return !cache_disabled && to == state[device].dtype && t->dtype == TS_DTYPE_FLOAT32 &&
         ts_autograd_requires_grad (t) && ts_autograd_is_leaf (t);
}

/* arg.to (to_type): its copy inside PyTorch's aten::to and aten::_to_copy
 * spans, as the profiler shows an autocast cast */
static TsTensor *
to_copy (TsTensor  *t,
         TsDType    to,
         GError   **error)
{
  TsDevice device = ts_tensor_get_device (t);
  guint64 to_span = 0, to_copy_span = 0;
  TsTensor *out;

  if (device.type == TS_DEVICE_CUDA)
    {
      to_span = ts_session_api_begin ("aten::to", device.index);
      to_copy_span = ts_session_api_begin ("aten::_to_copy", device.index);
    }
  out = ts_ops_to (t, device, to, FALSE, FALSE, error);
  ts_session_api_end (to_copy_span);
  ts_session_api_end (to_span);
  return out;
}

static TsTensor *
cast (TsTensor        *t,
      TsDType          to,
      TsAutocastDevice device,
      GError         **error)
{
  TsTensor *out;

  if (can_cache (t, to, device))
    {
      out = cache != NULL ? g_hash_table_lookup (cache, t) : NULL;
      if (out != NULL && out->dtype == to)
        return ts_tensor_ref (out);
    }
  out = to_copy (t, to, error);
  if (out != NULL && can_cache (t, to, device))
    {
      if (cache == NULL)
        cache = g_hash_table_new_full (NULL, NULL, (GDestroyNotify) ts_tensor_unref,
                                       (GDestroyNotify) ts_tensor_unref);
      g_hash_table_replace (cache, ts_tensor_ref (t), ts_tensor_ref (out));
    }
  return out;
}

TsTensor *
ts_autocast_cast (TsTensor        *t,
                  TsAutocastDevice device,
                  TsDType          to,
                  GError         **error)
{
  if (!is_eligible (t, device) || t->dtype == to)
    return ts_tensor_ref (t);
  return cast (t, to, device, error);
}

TsDType
ts_autocast_opt_dtype (const TsOpDesc *op,
                       TsTensor       *self)
{
  TsAutocastDevice device;

  if (ts_autocast_policy (op, &self, 1) != TS_AUTOCAST_FP32 || !operands_device (&self, 1, &device) ||
      !is_eligible (self, device) || self->dtype == TS_DTYPE_FLOAT32)
    return TS_DTYPE_UNDEFINED;
  return TS_DTYPE_FLOAT32;
}

/* The dtype @policy casts the eligible operands to. */
static TsDType
target_dtype (TsAutocastPolicy  policy,
              TsAutocastDevice  device,
              TsTensor *const  *operands,
              guint             n)
{
  TsDType widest = TS_DTYPE_UNDEFINED;

  switch (policy)
    {
    case TS_AUTOCAST_LOWER:
      return state[device].dtype;
    case TS_AUTOCAST_FP32:
      return TS_DTYPE_FLOAT32;
    case TS_AUTOCAST_PROMOTE:
      for (guint i = 0; i < n; i++)
        if (is_eligible (operands[i], device))
          widest = widest == TS_DTYPE_UNDEFINED ? operands[i]->dtype
                                                : ts_dtype_promote (widest, operands[i]->dtype);
      return widest;
    case TS_AUTOCAST_NONE:
    default:
      return TS_DTYPE_UNDEFINED;
    }
}

gboolean
ts_autocast_operands (const TsOpDesc   *op,
                      TsAutocastScope  *scope,
                      TsTensor        **self,
                      TsTensor        **other,
                      GError          **error)
{
  TsTensor **slots[2] = { self, other };
  TsTensor *operands[2] = { *self, other != NULL ? *other : NULL };
  TsAutocastPolicy policy = ts_autocast_policy (op, operands, 2);
  TsAutocastDevice device;
  TsDType to;

  if (policy == TS_AUTOCAST_NONE || !operands_device (operands, 2, &device))
    return TRUE;
  to = target_dtype (policy, device, operands, 2);
  for (guint i = 0; i < 2; i++)
    {
      if (!is_eligible (operands[i], device) || operands[i]->dtype == to)
        continue;
      g_clear_pointer (&scope->casts[i], ts_tensor_unref);
      scope->casts[i] = cast (operands[i], to, device, error);
      if (scope->casts[i] == NULL)
        return FALSE;
      *slots[i] = scope->casts[i];
    }
  return TRUE;
}

void
ts_autocast_scope_clear (TsAutocastScope *scope)
{
  for (guint i = 0; i < G_N_ELEMENTS (scope->casts); i++)
    g_clear_pointer (&scope->casts[i], ts_tensor_unref);
}
