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

double
ts_binary_op_flops (TsBinaryOp op)
{
  switch (op)
    {
    case TS_BINARY_DIV:
    case TS_BINARY_FLOOR_DIVIDE:
    case TS_BINARY_REMAINDER:
      return 4.0;
    case TS_BINARY_POW:
      return 20.0;
    case TS_BINARY_ADD:
    case TS_BINARY_SUB:
    case TS_BINARY_MUL:
    case TS_BINARY_MAXIMUM:
    case TS_BINARY_MINIMUM:
    case TS_BINARY_EQ:
    case TS_BINARY_NE:
    case TS_BINARY_LT:
    case TS_BINARY_LE:
    case TS_BINARY_GT:
    case TS_BINARY_GE:
    case TS_BINARY_LOGICAL_AND:
    case TS_BINARY_LOGICAL_OR:
    case TS_BINARY_BITWISE_AND:
    case TS_BINARY_BITWISE_OR:
    case TS_BINARY_BITWISE_XOR:
    case TS_N_BINARY_OPS:
    default:
      return 1.0;
    }
}

double
ts_unary_op_flops (TsUnaryOp op)
{
  switch (op)
    {
    case TS_UNARY_EXP:
    case TS_UNARY_LOG:
    case TS_UNARY_SIN:
    case TS_UNARY_COS:
      return 8.0;
    case TS_UNARY_TANH:
    case TS_UNARY_SIGMOID:
      return 10.0;
    case TS_UNARY_SQRT:
    case TS_UNARY_RECIPROCAL:
      return 4.0;
    case TS_UNARY_NEG:
    case TS_UNARY_ABS:
    case TS_UNARY_RELU:
    case TS_UNARY_LOGICAL_NOT:
    case TS_N_UNARY_OPS:
    default:
      return 1.0;
    }
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
