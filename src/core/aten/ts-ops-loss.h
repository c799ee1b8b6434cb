/* ts-ops-loss.h: the negative log-likelihood loss as PyTorch's ops
 * (nll_loss_forward, nll_loss2d_forward and their backwards)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-cpu-loss.h"
#include "ts-tensor.h"

G_BEGIN_DECLS

/* A loss node's attributes (ts-autograd-formulas-pool.c): the backward
 * op's arguments and the saved tensors' slots (weight_slot -1 without
 * class weights) */
typedef struct
{
  TsReduction reduction;
  gint64      ignore_index;
  int         self_slot;
  int         target_slot;
  int         weight_slot;
  int         total_weight_slot;
} TsNllLossAttrs;

/* nll_loss_forward for a (C) or (N, C) @self, nll_loss2d_forward for an
 * (N, C, H, W) one, with @weight (NULL: ones): @output and @total_weight,
 * new references, the node NllLossBackward0 (NllLoss2DBackward0) on
 * @output, with PyTorch 1.13's checks and messages */
gboolean  ts_ops_nll_loss          (TsTensor     *self,
                                    TsTensor     *target,
                                    TsTensor     *weight,
                                    TsReduction   reduction,
                                    gint64        ignore_index,
                                    TsTensor    **output,
                                    TsTensor    **total_weight,
                                    GError      **error);
/* nll_loss_backward (nll_loss2d_backward): the gradient of @self, zeros
 * but at the targets; with grad mode on and @grad_output requiring grad
 * it records NllLossBackwardBackward0, linear in @grad_output */
TsTensor *ts_ops_nll_loss_backward (TsTensor     *grad_output,
                                    TsTensor     *self,
                                    TsTensor     *target,
                                    TsTensor     *weight,
                                    TsReduction   reduction,
                                    gint64        ignore_index,
                                    TsTensor     *total_weight,
                                    GError      **error);

G_END_DECLS
