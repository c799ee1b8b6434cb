/* ts-autograd-formulas-private.h: what the formula files share
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-autograd-formulas.h"

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

G_END_DECLS
