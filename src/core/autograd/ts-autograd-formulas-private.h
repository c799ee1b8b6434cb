/* ts-autograd-formulas-private.h: what the formula files share
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-autograd-formulas.h"
#include "ts-ops.h"

G_BEGIN_DECLS

typedef TsOpGradAttrs Attrs;

#define ATTRS ((Attrs *) ts_grad_node_get_attrs (node))
#define GRAD  (grad_outputs[0])
/* grad_inputs[0] = expr, for a one-input formula */
#define RETURN_GRAD(expr) return (grad_inputs[0] = (expr)) != NULL

/* The saved tensor in @slot (-1: not saved, an error), unpacked */
TsTensor *ts_autograd_saved (TsGradNode  *node,
                             int          slot,
                             GError     **error);

/* a op value, or value op a when reversed */
TsTensor *ts_autograd_binary_scalar (TsBinaryOp  op,
                                     TsTensor   *a,
                                     double      value,
                                     gboolean    reversed,
                                     GError    **error);

/* mm's gradient for matrix operand @i (0: mat1, 1: mat2) from @grad and
 * the other operand @other, times @alpha, in the operand's layout. */
TsTensor *ts_autograd_mm_operand_grad (TsTensor  *grad,
                                       TsTensor  *other,
                                       guint      i,
                                       gboolean   column_major,
                                       double     alpha,
                                       GError   **error);

/* The unary math family: *out = grad * factor (t), t the saved tensor in
 * @slot (self or result). */
typedef TsTensor *(*TsFactorFn) (TsTensor  *t,
                                 GError   **error);
gboolean  ts_autograd_grad_times_factor (TsGradNode  *node,
                                         TsTensor    *grad,
                                         int          slot,
                                         TsFactorFn   factor,
                                         TsTensor   **out,
                                         GError     **error);

#define FACTOR_FORMULA(formula, slot)                                                         \
  TS_BACKWARD_FN (ts_backward_##formula)                                                      \
  {                                                                                           \
    return ts_autograd_grad_times_factor (node, GRAD, ATTRS->slot, formula##_factor,           \
                                          &grad_inputs[0], error);                            \
  }

G_END_DECLS
