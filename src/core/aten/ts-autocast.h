/* ts-autocast.h: torch.autocast's state and its casts
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Autocast is a per-thread, per-device-type state (enabled, the lower
 * precision dtype) plus a cast cache; each op's policy is its AUTOCAST
 * column in src/kernels/ts-op-list.def. ts_autocast_operands is the one
 * place the policy is applied: an op's host part hands it its tensor
 * operands before it promotes dtypes, and computes over what comes back.
 * docs/amp.md tells the whole story.
 */

#pragma once

#include "ts-op-table.h"
#include "ts-tensor.h"

G_BEGIN_DECLS

/* The state of device_type @device on this thread (torch.is_autocast_
 * enabled, torch.get_autocast_gpu_dtype, ...). The dtypes start as
 * PyTorch's: float16 for CUDA, bfloat16 for the CPU. */
gboolean ts_autocast_is_enabled        (TsAutocastDevice device);
void     ts_autocast_set_enabled       (TsAutocastDevice device,
                                        gboolean         enabled);
TsDType  ts_autocast_get_dtype         (TsAutocastDevice device);
void     ts_autocast_set_dtype         (TsAutocastDevice device,
                                        TsDType          dtype);
gboolean ts_autocast_is_cache_enabled  (void);
void     ts_autocast_set_cache_enabled (gboolean         enabled);
/* The autocast context managers' nesting; leaving the outermost clears
 * the cache. */
int      ts_autocast_increment_nesting (void);
int      ts_autocast_decrement_nesting (void);
void     ts_autocast_clear_cache       (void);

/* Inside an op that autocast already cast (a composite op of our torch
 * package), its inner ops run as called, as PyTorch excludes the
 * Autocast dispatch key below an autocast kernel. Returns the previous
 * value, to restore. */
gboolean ts_autocast_set_excluded      (gboolean         excluded);

/* The policy @op has for its operands now: NONE outside a region of the
 * operands' device type. */
TsAutocastPolicy ts_autocast_policy    (const TsOpDesc  *op,
                                        TsTensor *const *operands,
                                        guint            n);

/* @t cast to @to as autocast casts an operand of a region of @device
 * (through the cache), or @t itself when autocast leaves it (not
 * floating, float64, another device): a new reference either way. For
 * the composite ops of our torch package (torch.amp's policy helper). */
TsTensor *ts_autocast_cast             (TsTensor        *t,
                                        TsAutocastDevice device,
                                        TsDType          to,
                                        GError         **error);

/* PyTorch's fp32_set_opt_dtype policy for a reduction whose kernel reads
 * its input in one dtype and accumulates into another (sum, prod): the
 * dtype to pass it, float32 inside a region where its policy is FP32,
 * TS_DTYPE_UNDEFINED (as called) otherwise. No cast is launched. */
TsDType   ts_autocast_opt_dtype        (const TsOpDesc  *op,
                                        TsTensor        *self);

/* The casts an op's call made, held until it returns. */
typedef struct
{
  TsTensor *casts[2];
} TsAutocastScope;

void     ts_autocast_scope_clear       (TsAutocastScope *scope);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TsAutocastScope, ts_autocast_scope_clear)

/* Applies @op's policy to a functional call's tensor operands *@self and
 * *@other (@other NULL or *@other NULL: none): each one it casts is
 * replaced by its cast (aten::to's copy, or the cache's), which @scope
 * holds until the caller returns. FALSE with @error when a cast fails. */
gboolean ts_autocast_operands          (const TsOpDesc   *op,
                                        TsAutocastScope  *scope,
                                        TsTensor        **self,
                                        TsTensor        **other,
                                        GError          **error);

G_END_DECLS
