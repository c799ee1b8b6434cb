/* ts-autograd-formulas.h: reference backward formulas and the
 * differentiable ops they are written with
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each ts_autograd_OP computes the op through ts_ops_* and, when grad mode
 * is on and an operand requires grad, records PyTorch's node for it
 * (AddBackward0, MulBackward0, MmBackward0, ...) with its TsBackwardFn
 * and the tensors it saves. The formulas are written with these same ops,
 * so a backward pass with create_graph records a graph of its own (double
 * backward). They are examples of the op table's backward slot and what
 * the engine is tested with; once the op table carries a TsBackwardFn per
 * op, its dispatcher records the node the same way (docs/autograd.md).
 *
 * Every function returns a new reference, or NULL with error set.
 */

#pragma once

#include "ts-autograd.h"

G_BEGIN_DECLS

TsTensor *ts_autograd_add        (TsTensor *a, TsTensor *b, GError **error);
TsTensor *ts_autograd_sub        (TsTensor *a, TsTensor *b, GError **error);
TsTensor *ts_autograd_mul        (TsTensor *a, TsTensor *b, GError **error);
TsTensor *ts_autograd_div        (TsTensor *a, TsTensor *b, GError **error);
/* a / value (DivBackward1) */
TsTensor *ts_autograd_div_scalar (TsTensor *a, double value, GError **error);
TsTensor *ts_autograd_neg        (TsTensor *a, GError **error);
TsTensor *ts_autograd_exp        (TsTensor *a, GError **error);
TsTensor *ts_autograd_log        (TsTensor *a, GError **error);
TsTensor *ts_autograd_relu       (TsTensor *a, GError **error);
/* sum() (SumBackward0), sum(dims, keepdim) (SumBackward1), mean() */
TsTensor *ts_autograd_sum        (TsTensor *a, GError **error);
TsTensor *ts_autograd_sum_dims   (TsTensor *a, const int *dims, guint n_dims,
                                  gboolean keepdim, GError **error);
TsTensor *ts_autograd_mean       (TsTensor *a, GError **error);
/* torch.mm of two 2-D tensors; t() of a 2-D tensor */
TsTensor *ts_autograd_mm         (TsTensor *a, TsTensor *b, GError **error);
TsTensor *ts_autograd_t          (TsTensor *a, GError **error);
TsTensor *ts_autograd_expand     (TsTensor *a, guint ndim, const gint64 *shape,
                                  GError **error);
/* reshape: a view of a contiguous tensor, else of a contiguous copy */
TsTensor *ts_autograd_reshape    (TsTensor *a, guint ndim, const gint64 *shape,
                                  GError **error);
/* at::sum_to: sums a broadcast gradient down to shape (the engine's
 * validate_outputs uses it); a new reference to a when nothing to sum. */
TsTensor *ts_autograd_sum_to     (TsTensor *a, guint ndim, const gint64 *shape,
                                  GError **error);

/* The gradient passes through unchanged to every input that needs it
 * (CopyBackwards, CloneBackward0, and AddBackward0's shape). */
gboolean  ts_autograd_backward_identity (TsGradNode  *node,
                                         TsTensor   **grad_outputs,
                                         guint        n_outputs,
                                         TsTensor   **grad_inputs,
                                         guint        n_inputs,
                                         GError     **error);

G_END_DECLS
