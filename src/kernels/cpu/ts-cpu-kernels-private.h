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

G_END_DECLS
