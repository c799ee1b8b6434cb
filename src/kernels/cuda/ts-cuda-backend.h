/* ts-cuda-backend.h: loads the CUDA backend module at run time
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The kernels and device calls live in libtensorscope-cuda.so, which links
 * cudart and cuBLAS; nothing else does. Opening it here finds out, without
 * a hard dependency, whether this machine can run the real backend.
 */

#pragma once

#include <glib.h>

#include "ts-cuda-kernels.h"

G_BEGIN_DECLS

#define TS_CUDA_BACKEND_ERROR (ts_cuda_backend_error_quark ())

typedef enum
{
  TS_CUDA_BACKEND_ERROR_LOAD_FAILED = 1,  /* the module is missing or does not load */
  TS_CUDA_BACKEND_ERROR_ABI,              /* the module is from another build */
  TS_CUDA_BACKEND_ERROR_NO_DEVICE,   /* no driver or no GPU */
} TsCudaBackendError;

typedef struct _TsCudaBackend TsCudaBackend;

GQuark               ts_cuda_backend_error_quark          (void);

/* @module_path NULL: $TENSORSCOPE_CUDA_MODULE, the build tree, then the
 * installed module. */
TsCudaBackend       *ts_cuda_backend_open         (const char     *module_path,
                                                   GError        **error);
void                 ts_cuda_backend_close        (TsCudaBackend  *self);
const TsCudaKernels *ts_cuda_backend_get_kernels  (TsCudaBackend  *self);
int                  ts_cuda_backend_get_n_devices (TsCudaBackend *self);

G_END_DECLS
