/* ts-ops-pool.h: pooling and batch norm ops (the POOL and NORM families)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * torch/nn/_pooling.py and _normalization.py check the arguments with
 * PyTorch's messages and compute output sizes; these run the kernels and
 * record the nodes.
 */

#pragma once

#include "ts-cpu-pool.h"
#include "ts-tensor.h"

G_BEGIN_DECLS

/* A pooling node's attributes (ts-autograd-formulas-pool.c reads them) */
typedef struct
{
  TsPoolKernel kind;
  TsPool2d     p;
  int          indices_slot;   /* the max kinds' saved indices */
} TsPoolAttrs;

/* A batch norm node's attributes */
typedef struct
{
  gboolean training;
  int      groups;             /* group norm: G; batch norm: 0 */
  int      input_slot, weight_slot, stats_slot;
} TsNormAttrs;

/* out (*indices for the max kinds, else NULL) of shape (..., oh, ow) */
gboolean  ts_ops_pool2d          (TsPoolKernel    kind,
                                  TsTensor       *self,
                                  const TsPool2d *p,
                                  gint64          oh,
                                  gint64          ow,
                                  TsTensor      **out,
                                  TsTensor      **indices,
                                  GError        **error);
/* grad_input of shape @shape from grad_output (kind: a backward one) */
TsTensor *ts_ops_pool2d_backward (TsPoolKernel    kind,
                                  TsTensor       *grad,
                                  TsTensor       *indices,
                                  const TsPool2d *p,
                                  guint           ndim,
                                  const gint64   *shape,
                                  GError        **error);

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
gboolean  ts_ops_native_group_norm_backward (TsTensor   *grad,
                                             TsTensor   *input,
                                             TsTensor   *weight,
                                             TsTensor   *stats,
                                             int         groups,
                                             guint       mask,
                                             TsTensor  **grad_input,
                                             TsTensor  **grad_weight,
                                             TsTensor  **grad_bias,
                                             GError    **error);
/* native_batch_norm_backward: the gradients @mask asks for (bit 0 input,
 * 1 weight, 2 bias), NULL elsewhere */
gboolean  ts_ops_native_batch_norm_backward (TsTensor   *grad,
                                             TsTensor   *input,
                                             TsTensor   *weight,
                                             TsTensor   *stats,
                                             gboolean    training,
                                             guint       mask,
                                             TsTensor  **grad_input,
                                             TsTensor  **grad_weight,
                                             TsTensor  **grad_bias,
                                             GError    **error);

G_END_DECLS

G_BEGIN_DECLS

/* A remap node's attributes */
typedef struct
{
  TsRemapKernel mode;
  TsRemap       r;
} TsRemapAttrs;

/* out of @shape from @self: mode CONSTANT pads (negative pads crop) with
 * @value, REFLECT/REPLICATE pad, NEAREST upsamples; r->k trailing dims */
TsTensor *ts_ops_remap          (TsRemapKernel    mode,
                                 TsTensor        *self,
                                 const TsRemap   *r,
                                 const gint64    *shape,
                                 double           value,
                                 GError         **error);
/* the backward of a REFLECT/REPLICATE/NEAREST remap into @shape */
TsTensor *ts_ops_remap_backward (TsRemapKernel    mode,
                                 TsTensor        *grad,
                                 const TsRemap   *r,
                                 guint            ndim,
                                 const gint64    *shape,
                                 GError         **error);

G_END_DECLS
