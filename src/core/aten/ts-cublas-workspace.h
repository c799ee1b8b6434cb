/* ts-cublas-workspace.h: the workspaces PyTorch gives cuBLAS
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Real PyTorch hands cuBLAS a workspace from the caching allocator the
 * first time a (cuBLAS handle, stream) pair runs a GEMM, and cuBLASLt a
 * second one the first time that pair runs an Lt GEMM (addmm's bias
 * epilogue). They are ordinary allocations: they count in
 * memory_allocated, the peaks, memory_stats, snapshots and OOM messages,
 * and live until torch._C._cuda_clearCublasWorkspaces() or the end of the
 * process. A handle belongs to a host thread and a device (PyTorch's
 * thread-local handle pool), so a new stream, a new thread and the
 * autograd engine's device thread each get their own workspace. Sizes:
 * ts-cublas-config.h.
 */

#pragma once

#include <glib.h>

#include "ts-types.h"

G_BEGIN_DECLS

/* Before an op the BLAS column marks runs on @device's @stream: the
 * calling thread's handle on the device gets its workspace for the
 * stream, and with @lt its Lt workspace, unless it has them. Fails as the
 * allocation does (out of memory), or with the RuntimeError a bad
 * CUBLAS_WORKSPACE_CONFIG makes. */
gboolean ts_cublas_workspace_take       (int          device,
                                         TsStreamId   stream,
                                         gboolean     lt,
                                         GError     **error);
/* Whether addmm may take the Lt path (DISABLE_ADDMM_CUDA_LT). */
gboolean ts_cublas_workspace_addmm_lt   (void);
/* torch._C._cuda_clearCublasWorkspaces(): frees them all. The handles
 * stay with their threads. */
void     ts_cublas_workspace_clear      (void);

/* The autograd engine runs a CUDA node on that device's engine thread
 * (one per device, for the whole process), whose handles are not the
 * caller's: between enter (@device) and leave (its return) this thread
 * takes that thread's handles. A @device of -1 (a CPU node) runs where
 * the engine already is: the caller's thread, or the device thread of a
 * reentrant backward. */
int      ts_cublas_workspace_enter_engine (int        device);
void     ts_cublas_workspace_leave_engine (int        previous);

/* Where PyTorch's TORCH_WARN goes (Python's warnings module); NULL: to
 * stderr. Called with the GIL held, from an op. */
typedef void (*TsCublasWarnFunc) (const char *message);
void     ts_cublas_workspace_set_warn_func (TsCublasWarnFunc func);

G_END_DECLS
