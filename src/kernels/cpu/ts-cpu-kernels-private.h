/* ts-cpu-kernels-private.h: what the CPU kernels share among themselves
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-cpu-kernels.h"

G_BEGIN_DECLS

/* Sets @error in TS_KERNEL_ERROR from @format (PyTorch's words where it
 * has them); returns FALSE, for `return ts_kernel_fail (...)` in a check. */
gboolean ts_kernel_fail (GError        **error,
                         TsKernelError   code,
                         const char     *format,
                         ...) G_GNUC_PRINTF (3, 4);
/* ts_kernel_fail() with PyTorch's AT_DISPATCH message for a dtype that
 * @kernel (PyTorch's name for it) has no case for. */
gboolean ts_kernel_fail_dispatch (GError        **error,
                                  const char     *kernel,
                                  TsDType         dtype);

/* gather's and scatter's bounds check of @index (int64 or int32) against
 * @size, the extent of @dim: FALSE at the first element outside [0, size),
 * in row-major order, with PyTorch's "index 5 is out of bounds for
 * dimension 0 with size 3" in @error under @code, and @failure (nullable)
 * filled. */
gboolean ts_cpu_check_index_bounds (const TsView    *index,
                                    guint            dim,
                                    gint64           size,
                                    TsKernelError    code,
                                    TsIndexFailure  *failure,
                                    GError         **error);

G_END_DECLS
