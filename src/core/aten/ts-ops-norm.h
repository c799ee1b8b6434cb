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

/* A layer norm node's attributes */
typedef struct
{
  gint64 rows;                 /* the product of the dims before the normalized ones */
  double eps;
  int    input_slot, mean_slot, rstd_slot, weight_slot;
} TsLayerNormAttrs;

/* native_layer_norm over the last @n_normalized dims: @out, and each
 * row's @mean and @rstd (may be NULL: not wanted), one launch */
gboolean  ts_ops_native_layer_norm (TsTensor   *input,
                                    guint       n_normalized,
                                    TsTensor   *weight,
                                    TsTensor   *bias,
                                    double      eps,
                                    TsTensor  **out,
                                    TsTensor  **mean,
                                    TsTensor  **rstd,
                                    GError    **error);
/* its backward: grads[0..2] for input, weight, bias where @mask's bits 0..2
 * ask for them (the weight's and bias's need @weight) */
gboolean  ts_ops_native_layer_norm_backward (TsTensor   *grad,
                                             TsTensor   *input,
                                             TsTensor   *mean,
                                             TsTensor   *rstd,
                                             TsTensor   *weight,
                                             gint64      rows,
                                             guint       mask,
                                             TsTensor  **grads,
                                             GError    **error);

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
