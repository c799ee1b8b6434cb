/* ts-ops-shape.h: ops that move elements by position (tril, triu, flip)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-ops.h"

G_BEGIN_DECLS

/* tril (@upper FALSE) / triu of a tensor of 2 or more dims, into @out:
 * NULL for a new tensor, @self for the in-place form, or a tensor of
 * @self's shape and dtype (out=). Returns a new reference. */
TsTensor  *ts_ops_triangle        (TsTensor        *self,
                                   gint64           diagonal,
                                   gboolean         upper,
                                   TsTensor        *out,
                                   GError         **error);
/* flip: a new tensor, @self reversed along the dims set in @dim_mask */
TsTensor  *ts_ops_flip            (TsTensor        *self,
                                   guint64          dim_mask,
                                   GError         **error);
/* cat (@id TS_OP_CAT) or stack (TS_OP_STACK, each input unsqueezed at
 * @dim) of the @n @tensors into @out, which has the result's shape and
 * dtype (the caller checked the shapes, with PyTorch's messages); records
 * CatBackward0 / StackBackward0 when @record (not for out=). */
gboolean   ts_ops_cat             (TsOpId           id,
                                   TsTensor       **tensors,
                                   guint            n,
                                   int              dim,
                                   TsTensor        *out,
                                   gboolean         record,
                                   GError         **error);

G_END_DECLS
