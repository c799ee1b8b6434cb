/* ts-ops-conv.h: convolutions (aten::convolution, convolution_backward)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-cpu-conv.h"
#include "ts-ops.h"

G_BEGIN_DECLS

/* aten::convolution: @input (N, C, *spatial), @weight (Cout, C / groups,
 * *kernel) or transposed (C, Cout / groups, *kernel), @bias NULL or
 * (Cout,); the arguments checked with PyTorch's messages, in its order.
 * Records ConvolutionBackward0. */
TsTensor  *ts_ops_convolution          (TsTensor           *input,
                                        TsTensor           *weight,
                                        TsTensor           *bias,
                                        const TsConvParams *p,
                                        GError            **error);
/* aten::convolution_backward: the gradients @mask asks for (input,
 * weight, bias), the others left NULL. */
gboolean   ts_ops_convolution_backward (TsTensor           *grad_output,
                                        TsTensor           *input,
                                        TsTensor           *weight,
                                        const TsConvParams *p,
                                        const gboolean      mask[3],
                                        TsTensor          **grad_input,
                                        TsTensor          **grad_weight,
                                        TsTensor          **grad_bias,
                                        GError            **error);

G_END_DECLS
