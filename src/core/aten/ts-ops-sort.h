/* ts-ops-sort.h: sorting along a dim and scans (cumsum, cumprod)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-ops.h"

G_BEGIN_DECLS

/* A SORT op (sort, topk, kthvalue): sorts @self along @dim and returns
 * sorted positions [@start, @start + @n) as *values and int64 *indices,
 * shaped as @self with @n along @dim. */
gboolean   ts_ops_sort            (TsOpId           id,
                                   TsTensor        *self,
                                   int              dim,
                                   gboolean         descending,
                                   gint64           start,
                                   gint64           n,
                                   TsTensor       **values,
                                   TsTensor       **indices,
                                   GError         **error);
/* A SCAN op (cumsum, cumprod) along @dim into @dtype (UNDEFINED: @self's
 * floating dtype, else int64), into @out: NULL for a new tensor, or @self
 * (in place) or a tensor of @self's shape and that dtype. */
TsTensor  *ts_ops_scan            (TsOpId           id,
                                   TsTensor        *self,
                                   int              dim,
                                   TsDType          dtype,
                                   TsTensor        *out,
                                   GError         **error);

G_END_DECLS
