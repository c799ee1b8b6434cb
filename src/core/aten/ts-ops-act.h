/* ts-ops-act.h: activations with a kernel and a node of their own (the
 * ACT family)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * torch/nn/_activation_more.py calls these for floating tensors.
 */

#pragma once

#include "ts-cpu-pool.h"
#include "ts-tensor.h"

G_BEGIN_DECLS

/* An activation node's attributes (ts-autograd-formulas-pool.c) */
typedef struct
{
  TsActKernel kind;
  TsAct       a;
  int         input_slot;
  int         weight_slot;     /* prelu */
} TsActAttrs;

/* op @name (an ACT row: "hardtanh", "celu", ...) of @self */
TsTensor *ts_ops_activation          (const char    *name,
                                      TsTensor      *self,
                                      const TsAct   *a,
                                      GError       **error);
/* its backward: grad_input from @grad and the forward's @self */
TsTensor *ts_ops_activation_backward (TsActKernel    kind,
                                      const TsAct   *a,
                                      TsTensor      *grad,
                                      TsTensor      *self,
                                      GError       **error);

TsTensor *ts_ops_glu                 (TsTensor      *self,
                                      int            dim,
                                      GError       **error);
TsTensor *ts_ops_prelu               (TsTensor      *self,
                                      TsTensor      *weight,
                                      GError       **error);
gboolean  ts_ops_prelu_backward      (TsTensor      *grad,
                                      TsTensor      *self,
                                      TsTensor      *weight,
                                      guint          mask,
                                      TsTensor     **grads,
                                      GError       **error);

G_END_DECLS
