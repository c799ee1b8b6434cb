/* ts-cpu-loss.h: the negative log-likelihood loss kernels
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every view here is contiguous (the host makes it so). The input is read
 * as (N, C, S): N samples, C classes, S spatial positions (S = 1 for
 * nll_loss, H * W for nll_loss2d; a 1-d input is one sample). Floating
 * views may be float32, float64, float16 or bfloat16; the target is int64.
 */

#pragma once

#include "ts-cpu-kernels.h"

G_BEGIN_DECLS

/* PyTorch's Reduction enum, as the schemas number it */
typedef enum
{
  TS_REDUCTION_NONE = 0,
  TS_REDUCTION_MEAN = 1,
  TS_REDUCTION_SUM = 2,
} TsReduction;

/* The op table's KERNEL codes of the LOSS family */
typedef enum
{
  TS_LOSS_NLL = 0,
  TS_LOSS_NLL_BACKWARD = 1,
} TsLossKernel;

typedef struct
{
  gint64      n, c, s;         /* the input read as (n, c, s) */
  TsReduction reduction;
  gint64      ignore_index;
} TsNllLoss;

/* @out (n * s values for NONE, else one) and @total_weight (one value)
 * from @self, @target (n * s) and @weight (c values, or NULL for ones).
 * A target outside [0, c) that is not ignore_index fails with PyTorch's
 * "Target T is out of bounds." (TS_KERNEL_ERROR_INDEX) and fills
 * @failure (nullable) with its position. */
gboolean ts_cpu_nll_loss          (const TsNllLoss *p,
                                   const TsView    *self,
                                   const TsView    *target,
                                   const TsView    *weight,
                                   const TsView    *out,
                                   const TsView    *total_weight,
                                   TsIndexFailure  *failure,
                                   GError         **error);
/* @grad_input (n * c * s, written in full: zeros but at the targets) from
 * @grad_output (n * s values for NONE, else one), @target, @weight and
 * the forward's @total_weight */
gboolean ts_cpu_nll_loss_backward (const TsNllLoss *p,
                                   const TsView    *grad_output,
                                   const TsView    *target,
                                   const TsView    *weight,
                                   const TsView    *total_weight,
                                   const TsView    *grad_input,
                                   GError         **error);

G_END_DECLS
