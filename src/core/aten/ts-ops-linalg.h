/* ts-ops-linalg.h: the LINALG family, PyTorch's LAPACK-backed ATen ops
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-cpu-linalg.h"
#include "ts-op-table.h"
#include "ts-tensor.h"

G_BEGIN_DECLS

/* At most this many tensors go in and come out of one linalg op */
#define TS_OPS_LINALG_MAX 4

/* Runs LINALG row @id over @inputs (float32 or float64, one device; the
 * leading dims of the first are the batch, which the others share):
 * @outputs gets the op's results in the kernel's slot order (see
 * TsLinalgKernel: slot 0, then the output slots above the inputs), new
 * references; @n_outputs their number. A result the flags leave out
 * (compute_uv=False's U and Vh, eigvalsh's eigenvectors, qr's mode "r"
 * Q) is an empty tensor of shape (0). The checks PyTorch makes before
 * its kernel (square matrices, shapes that match) are the caller's,
 * torch/linalg.py, which has the op's message; here only the dtype and
 * the device. @p's batch is computed here. No node is recorded: the
 * Python layer records PyTorch's. */
gboolean  ts_ops_linalg (TsOpId          id,
                         TsTensor *const *inputs,
                         guint           n_inputs,
                         const TsLinalg *p,
                         TsTensor      **outputs,
                         guint          *n_outputs,
                         GError        **error);

G_END_DECLS
