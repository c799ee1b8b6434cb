/* ts-device-assert.c: CUDA's device-side assert lines
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>

#include "ts-device-assert.h"

/* index_select's kernel for many indices (PyTorch 2.1's Indexing.cu): it
 * only checks the upper bound, on an unsigned index, so a negative index
 * fails the same way. */
#define INDEX_SELECT_WHERE "../aten/src/ATen/native/cuda/Indexing.cu:1292"
#define INDEX_SELECT_KERNEL "indexSelectLargeIndex"
#define INDEX_SELECT_COND "srcIndex < srcSelectDimSize"

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
   * whatever Python has buffered; lines of one kernel come out together. */
  for (gint64 j = 0; j < MAX (slice_size, 1); j++)
    {
      g_autofree char *line = ts_device_assert_format (INDEX_SELECT_WHERE, INDEX_SELECT_KERNEL,
                                                       (guint64) (position * slice_size + j),
                                                       INDEX_SELECT_COND);
      fprintf (stderr, "%s\n", line);
    }
  fflush (stderr);
}
