/* ts-device-assert.h: what a faulting simulated kernel prints
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A CUDA_KERNEL_ASSERT that fails on a real GPU prints one line per failing
 * thread from the device, as the kernel runs, long before the host hears of
 * the error:
 *
 *   FILE:LINE: KERNEL: block: [B,0,0], thread: [T,0,0] Assertion `COND` failed.
 *
 * The simulated kernels print the same lines (on stderr) when they start on
 * the device. The file, line and condition are those of the PyTorch 2.x
 * kernels; the block and thread are the ones that would own the element in
 * that kernel's one-dimensional launch of 128 threads per block.
 */

#pragma once

#include <glib.h>

#include "ts-cpu-kernels.h"

G_BEGIN_DECLS

/* Threads per block of PyTorch's indexing kernels (indexSelectLargeIndex). */
#define TS_DEVICE_ASSERT_BLOCK 128

/* One line per element of the failing index's slice: the index at
 * position `position` of n_indices was out of range; every output slice has
 * slice_size elements. */
void  ts_device_assert_index_select (gint64 position,
                                     gint64 n_indices,
                                     gint64 slice_size);

/* gather's lines: one per thread holding an element of index outside
 * [0, dim_size), in row-major order of index. */
void  ts_device_assert_gather       (const TsView *index,
                                     gint64        dim_size);

/* The indexing kernel's line (index, index_put_ and their kin) for the
 * first bad index, at @position of the n_stacked (*B, k) stacked indices
 * (one line only: see the definition). */
void  ts_device_assert_index        (gint64 position,
                                     gint64 n_stacked);

/* nll_loss's kernel: the line of the thread holding the bad target at
 * @position (of the (N * S) targets). */
void  ts_device_assert_nll_loss     (gint64 position);

/* The line of one failing thread, without the newline. */
char *ts_device_assert_format       (const char *where,
                                     const char *kernel,
                                     guint64     linear_thread,
                                     const char *condition);

G_END_DECLS
