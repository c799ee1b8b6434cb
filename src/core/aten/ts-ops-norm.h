/* ts-ops-norm.h: batch and group norm ops (the NORM family)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * torch/nn/_normalization.py checks the arguments with PyTorch's messages;
 * these run the kernels and record the nodes.
 */

#pragma once

#include "ts-cpu-pool.h"
#include "ts-tensor.h"

G_BEGIN_DECLS

/* A batch norm node's attributes */
typedef struct
{
  gboolean training;
  int      groups;             /* group norm: G; batch norm: 0 */
  int      input_slot, weight_slot, stats_slot;
  double   eps;                /* for the double backward's recomputed statistics */
} TsNormAttrs;

/* native_batch_norm: out, and the (2, C) statistics (mean, invstd) it
 * normalized with; running_mean/running_var (may be NULL) updated with
 * @momentum when training */
gboolean  ts_ops_native_batch_norm (TsTensor   *input,
                                    TsTensor   *weight,
                                    TsTensor   *bias,
                                    TsTensor   *running_mean,
                                    TsTensor   *running_var,
                                    gboolean    training,
                                    double      momentum,
                                    double      eps,
                                    TsTensor  **out,
                                    TsTensor  **stats,
                                    GError    **error);
/* native_group_norm over @groups groups of channels: out, and the
 * (2, N * groups) statistics (mean, rstd) */
gboolean  ts_ops_native_group_norm (TsTensor   *input,
                                    TsTensor   *weight,
                                    TsTensor   *bias,
                                    int         groups,
                                    double      eps,
                                    TsTensor  **out,
                                    TsTensor  **stats,
                                    GError    **error);
/* native_batch_norm_backward (@groups 0) or native_group_norm_backward:
 * in grads[0..2] the gradients @mask asks for (bit 0 input, 1 weight, 2
 * bias), NULL elsewhere */
gboolean  ts_ops_norm_backward     (TsTensor   *grad,
                                    TsTensor   *input,
                                    TsTensor   *weight,
                                    TsTensor   *stats,
                                    gboolean    training,
                                    int         groups,
                                    guint       mask,
                                    TsTensor  **grads,
                                    GError    **error);

G_END_DECLS
