/* ts-cpu-cost.c: flops and bytes of each kernel, for the scheduler
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The simulated device turns these into durations (a roofline: the larger
 * of flops / peak flops and bytes / bandwidth, plus launch overhead). Bytes
 * count every operand once: a broadcast input is read at its own size,
 * which is what a cache-friendly kernel achieves.
 */

#include "config.h"

#include "ts-cpu-kernels.h"

static double
view_bytes (const TsView *v)
{
  return (double)ts_view_numel (v) * (double)ts_dtype_size (v->dtype);
}

/* Flops per output element, from the op list's COST column. */
static const double binary_flops[TS_N_BINARY_OPS] = {
#define TS_OP(ID, FAMILY, name, RULE, KERNEL, COST, ...) TS_OP_ELEMENTWISE_##FAMILY (TS_OP_INIT (KERNEL, COST), )
#include "ts-op-list.def"
};

static const double unary_flops[TS_N_UNARY_OPS] = {
#define TS_OP(ID, FAMILY, name, RULE, KERNEL, COST, ...) TS_OP_ELEMENTWISE_##FAMILY (, TS_OP_INIT (KERNEL, COST))
#include "ts-op-list.def"
};

double
ts_binary_op_flops (TsBinaryOp op)
{
  g_return_val_if_fail (op < TS_N_BINARY_OPS, 1.0);
  return binary_flops[op];
}

double
ts_unary_op_flops (TsUnaryOp op)
{
  g_return_val_if_fail (op < TS_N_UNARY_OPS, 1.0);
  return unary_flops[op];
}

TsKernelCost
ts_cost_binary (TsBinaryOp    op,
                const TsView *a,
                const TsView *b,
                const TsView *out)
{
  TsKernelCost cost;

  cost.flops = ts_binary_op_flops (op) * (double)ts_view_numel (out);
  cost.bytes = view_bytes (a) + view_bytes (b) + view_bytes (out);
  return cost;
}

TsKernelCost
ts_cost_unary (TsUnaryOp     op,
               const TsView *in,
               const TsView *out)
{
  TsKernelCost cost;

  cost.flops = ts_unary_op_flops (op) * (double)ts_view_numel (out);
  cost.bytes = view_bytes (in) + view_bytes (out);
  return cost;
}

TsKernelCost
ts_cost_fill (const TsView *out)
{
  TsKernelCost cost = { 0.0, view_bytes (out) };

  return cost;
}

TsKernelCost
ts_cost_copy (const TsView *dst,
              const TsView *src)
{
  TsKernelCost cost = { 0.0, view_bytes (dst) + view_bytes (src) };

  return cost;
}

/* three passes over the input (max, sum of exps, result), an exp in two */
TsKernelCost
ts_cost_softmax (const TsView *in,
                 const TsView *out)
{
  TsKernelCost cost;

  cost.flops = 20.0 * (double)ts_view_numel (in);
  cost.bytes = 3 * view_bytes (in) + view_bytes (out);
  return cost;
}

TsKernelCost
ts_cost_reduce (const TsView *in,
                const TsView *out)
{
  TsKernelCost cost;

  cost.flops = (double)ts_view_numel (in);
  cost.bytes = view_bytes (in) + view_bytes (out);
  return cost;
}

TsKernelCost
ts_cost_matmul (gint64  batch,
                gint64  m,
                gint64  n,
                gint64  k,
                TsDType dtype)
{
  TsKernelCost cost;
  double elem = (double)ts_dtype_size (dtype);

  cost.flops = 2.0 * (double)batch * (double)m * (double)n * (double)k;
  cost.bytes = (double)batch * elem * ((double)m * (double)k + (double)k * (double)n +
                                       (double)m * (double)n);
  return cost;
}

TsKernelCost
ts_cost_index (const TsView *index,
               const TsView *out)
{
  TsKernelCost cost;

  /* every output element is read once from the input and written once */
  cost.flops = 0.0;
  cost.bytes = view_bytes (index) + 2.0 * view_bytes (out);
  return cost;
}

TsKernelCost
ts_cost_random (const TsView *out,
                gboolean      normal)
{
  TsKernelCost cost;
  double n = (double)ts_view_numel (out);

  /* a Philox block is 10 rounds of 2 multiplies and 4 xors per 4 words */
  cost.flops = n * (15.0 + (normal ? 10.0 : 1.0));
  cost.bytes = view_bytes (out);
  return cost;
}
