/* ts-nvtx-forward.h: a workload's NVTX calls, also sent to the real NVTX
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Each forwards to the nvtx3 API when the build has the CUDA toolkit's
 * headers, so Nsight Systems (or `tensorscope-cli record`) sees the ranges
 * a workload marks through torch.cuda.nvtx; otherwise they do nothing.
 * Without an NVTX tool attached, nvtx3 makes each call a test and return. */
void ts_nvtx_forward_mark        (const char *message);
void ts_nvtx_forward_range_push  (const char *message);
void ts_nvtx_forward_range_pop   (void);
void ts_nvtx_forward_range_start (guint64     range_id,
                                  const char *message);
void ts_nvtx_forward_range_end   (guint64     range_id);

G_END_DECLS
