/* ts-device-assert.c: CUDA's device-side assert lines
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>

#include "ts-device-assert.h"
#include "ts-cpu-kernels.h"

/* index_select's kernel for many indices (PyTorch 2.1's Indexing.cu): it
 * only checks the upper bound, on an unsigned index, so a negative index
 * fails the same way. */
#define INDEX_SELECT_WHERE "../aten/src/ATen/native/cuda/Indexing.cu:1292"
#define INDEX_SELECT_KERNEL "indexSelectLargeIndex"
#define INDEX_SELECT_SMALL_WHERE "../aten/src/ATen/native/cuda/Indexing.cu:1236"
#define INDEX_SELECT_SMALL_KERNEL "indexSelectSmallIndex"
#define SMALL_INDEX_LIMIT 16
#define INDEX_SELECT_COND "srcIndex < srcSelectDimSize"

/* gather's elementwise kernel (ScatterGatherKernel.cu): 128 threads a
 * block, each thread taking 4 elements 128 apart, so element e belongs to
 * block e / 512 and thread e % 128. The assert checks both bounds. */
#define GATHER_WHERE "../aten/src/ATen/native/cuda/ScatterGatherKernel.cu:144"
#define GATHER_KERNEL "operator()"
#define GATHER_COND "idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\""
#define GATHER_THREADS 128
#define GATHER_WORK 4

char *
ts_device_assert_format (const char *where,
                         const char *kernel,
                         guint64     linear_thread,
                         const char *condition)
{
  return g_strdup_printf ("%s: %s: block: [%" G_GUINT64_FORMAT ",0,0], thread: [%" G_GUINT64_FORMAT
                          ",0,0] Assertion `%s` failed.",
                          where, kernel,
                          linear_thread / TS_DEVICE_ASSERT_BLOCK,
                          linear_thread % TS_DEVICE_ASSERT_BLOCK,
                          condition);
}

void
ts_device_assert_index_select (gint64 position,
                               gint64 n_indices,
                               gint64 slice_size)
{
  g_return_if_fail (position >= 0 && position < n_indices);

  /* The device's printf buffer goes straight to the process's stderr,
   * whatever Python has buffered; lines of one kernel come out together.
   * PyTorch picks indexSelectSmallIndex for up to 16 indices: each thread
   * owns elements of the slice and walks every index, so every thread
   * with an element asserts, once. Otherwise indexSelectLargeIndex: one
   * thread per (index, element), and only the bad index's threads do. */
  for (gint64 j = 0; j < MAX (slice_size, 1); j++)
    {
      gboolean small = n_indices <= SMALL_INDEX_LIMIT;
      g_autofree char *line =
        ts_device_assert_format (small ? INDEX_SELECT_SMALL_WHERE : INDEX_SELECT_WHERE,
                                 small ? INDEX_SELECT_SMALL_KERNEL : INDEX_SELECT_KERNEL,
                                 (guint64) (small ? j : position * slice_size + j),
                                 INDEX_SELECT_COND);
      fprintf (stderr, "%s\n", line);
    }
  fflush (stderr);
}

void
ts_device_assert_gather (const TsView *index,
                         gint64        dim_size)
{
  g_autoptr(GHashTable) stopped = g_hash_table_new (NULL, NULL);
  gint64 n = ts_view_numel (index);

  /* A thread stops at its first failing assert: it prints one line even
   * when several of its elements are bad. */
  for (gint64 e = 0; e < n; e++)
    {
      gint64 v = ts_dtype_load_int (index->dtype, ts_view_linear_ptr (index, e));
      guint64 block = (guint64) e / (GATHER_THREADS * GATHER_WORK);
      guint64 thread = (guint64) e % GATHER_THREADS;
      gpointer key = GSIZE_TO_POINTER (block * GATHER_THREADS + thread + 1);

      if ((v >= 0 && v < dim_size) || g_hash_table_contains (stopped, key))
        continue;
      g_hash_table_add (stopped, key);
      fprintf (stderr, "%s: %s: block: [%" G_GUINT64_FORMAT ",0,0], thread: [%" G_GUINT64_FORMAT
               ",0,0] Assertion `%s` failed.\n", GATHER_WHERE, GATHER_KERNEL, block, thread, GATHER_COND);
    }
  fflush (stderr);
}

/* PyTorch's index and index_put_ kernels (IndexKernel.cu, gpu_index_kernel)
 * check each index as they compute the offset. */
#define INDEX_WHERE "../aten/src/ATen/native/cuda/IndexKernel.cu:92"
#define INDEX_KERNEL "operator()"
#define INDEX_COND "-sizes[i] <= index && index < sizes[i] && \"index out of bounds\""

void
ts_device_assert_index (gint64 position,
                        gint64 n_stacked)
{
  g_autofree char *line = NULL;

  g_return_if_fail (position >= 0 && position < n_stacked);
  /* PyTorch runs one thread per result element, and each thread of the
   * bad index's row asserts; the simulator prints one line, numbered by
   * the index's position (a simplification: the block and thread are not
   * those of the real launch) */
  line = ts_device_assert_format (INDEX_WHERE, INDEX_KERNEL, (guint64) position, INDEX_COND);
  fprintf (stderr, "%s\n", line);
  fflush (stderr);
}

/* PyTorch's nll_loss CUDA kernels (Loss.cu, NLLLoss2d.cu) check each
 * target with CUDA_KERNEL_ASSERT; the reducing kernel runs one block whose
 * threads stride over the targets. The file's line is not reproduced (it
 * moves between releases). */
#define NLL_LOSS_WHERE "../aten/src/ATen/native/cuda/Loss.cu"
#define NLL_LOSS_KERNEL "nll_loss_forward_reduce_cuda_kernel_2d"
#define NLL_LOSS_COND "t >= 0 && t < n_classes"

void
ts_device_assert_nll_loss (gint64 position)
{
  g_autofree char *line = NULL;

  g_return_if_fail (position >= 0);
  line = ts_device_assert_format (NLL_LOSS_WHERE, NLL_LOSS_KERNEL, (guint64) position, NLL_LOSS_COND);
  fprintf (stderr, "%s\n", line);
  fflush (stderr);
}
