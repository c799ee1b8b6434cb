/* ts-cpu-conv.h: convolutions (im2col + OpenBLAS gemm)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * aten::convolution's arithmetic over 1, 2 or 3 spatial dims: the input
 * is (N, C, *spatial), the weight (Cout, Cin / groups, *kernel), or for a
 * transposed convolution (Cin, Cout / groups, *kernel). The caller (the
 * core's ts-ops-conv.c) checks the shapes with PyTorch's messages and
 * allocates the outputs; these check only what they need to run safely.
 */

#pragma once

#include "ts-cpu-kernels.h"

G_BEGIN_DECLS

#define TS_CONV_MAX_SPATIAL 3

/* aten::convolution's int[] arguments, one entry per spatial dim */
typedef struct _TsConvParams
{
  guint    n_spatial;
  gint64   stride[TS_CONV_MAX_SPATIAL];
  gint64   padding[TS_CONV_MAX_SPATIAL];
  gint64   dilation[TS_CONV_MAX_SPATIAL];
  gint64   output_padding[TS_CONV_MAX_SPATIAL];
  gint64   groups;
  gboolean transposed;
} TsConvParams;

/* The output's spatial size along spatial dim d of an input of size
 * @in_size and a kernel of size @k (may be <= 0: the caller's error). */
gint64   ts_conv_output_size    (const TsConvParams *p,
                                 guint               d,
                                 gint64              in_size,
                                 gint64              k);

/* out = convolution (in, weight) + bias; @bias NULL or with data NULL:
 * none. float32/float64; float16/bfloat16 in float32, rounded once. */
gboolean ts_cpu_conv            (const TsConvParams *p,
                                 const TsView       *in,
                                 const TsView       *weight,
                                 const TsView       *bias,
                                 const TsView       *out,
                                 GError            **error);
/* grad_in from grad_out and weight (the transposed arithmetic) */
gboolean ts_cpu_conv_backward_input  (const TsConvParams *p,
                                      const TsView       *grad_out,
                                      const TsView       *weight,
                                      const TsView       *grad_in,
                                      GError            **error);
/* grad_weight from grad_out and in, and grad_bias (the sum of grad_out
 * over all but its channel dim) where @grad_bias has data */
gboolean ts_cpu_conv_backward_weight (const TsConvParams *p,
                                      const TsView       *grad_out,
                                      const TsView       *in,
                                      const TsView       *grad_weight,
                                      const TsView       *grad_bias,
                                      GError            **error);

/* 2 * N * Cout * prod (out spatial) * Cin / groups * prod kernel flops
 * (the transposed arithmetic: the same with the roles of input and output
 * swapped); in, weight and out each moved once. */
TsKernelCost ts_cost_conv       (const TsConvParams *p,
                                 const TsView       *in,
                                 const TsView       *weight,
                                 const TsView       *out);

G_END_DECLS
