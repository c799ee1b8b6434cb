/* ts-ops-sort.h: sorting along a dim, scans (cumsum, cumprod), scatter
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-ops.h"

G_BEGIN_DECLS

/* A SORT op (sort, topk, kthvalue): sorts @self along @dim and returns
 * sorted positions [@start, @start + @n) as *values and int64 *indices,
 * shaped as @self with @n along @dim. Also the SCAN ops with indices
 * (cummax, cummin: @start 0, @n the dim's size). */
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

/* self.scatter_ (dim, index, src), or scatter_add_ (@add): in place, the
 * arguments checked (dtypes, ranks, sizes, with PyTorch's messages); an
 * index out of range fails on the CPU, and writes nothing on a device. */
gboolean   ts_ops_scatter_        (TsTensor        *self,
                                   int              dim,
                                   TsTensor        *index,
                                   TsTensor        *src,
                                   gboolean         add,
                                   GError         **error);
/* A SCATTER op @id (index_add_, index_copy_) with its arguments already
 * checked and @index of @src's shape (a view of the index vector) */
gboolean   ts_ops_scatter_launch  (TsOpId           id,
                                   TsTensor        *self,
                                   int              dim,
                                   TsTensor        *index,
                                   TsTensor        *src,
                                   GError         **error);

G_END_DECLS
