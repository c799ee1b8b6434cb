/* ts-ops-complex.h: which ops take complex tensors
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-op-table.h"
#include "ts-tensor.h"

G_BEGIN_DECLS

/* FALSE, naming the op, when one of @tensors (NULLs skipped) is complex
 * and @desc's kernel would read it through a real number, or when one of
 * @caller (the caller's tensors behind them, which carry the autograd
 * state) requires grad: checked at every launch, so no op gives a wrong
 * value or gradient for a complex operand. */
gboolean ts_ops_check_complex (const TsOpDesc   *desc,
                               TsTensor *const  *tensors,
                               TsTensor *const  *caller,
                               guint             n_tensors,
                               GError          **error);

G_END_DECLS
