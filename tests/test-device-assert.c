/* test-device-assert.c: the lines a faulting index kernel prints, as PyTorch's
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PyTorch's index_select runs indexSelectSmallIndex for up to 16 indices
 * (each thread owns elements of the slice and walks every index, so every
 * thread with an element asserts) and indexSelectLargeIndex beyond (one
 * thread per (index, element): only the bad index's threads assert).
 */

#include "config.h"

#include "ts-device-assert.h"

#define SMALL "../aten/src/ATen/native/cuda/Indexing.cu:1236: indexSelectSmallIndex: "
#define LARGE "../aten/src/ATen/native/cuda/Indexing.cu:1292: indexSelectLargeIndex: "
#define COND  " Assertion `srcIndex < srcSelectDimSize` failed.\n"

static void
test_small_index_subprocess (void)
{
  /* 16 indices, the bad one at 5, rows of 3 elements */
  ts_device_assert_index_select (5, 16, 3);
}

static void
test_large_index_subprocess (void)
{
  /* 17 indices, the bad one at 5, rows of 3: threads 15, 16, 17 */
  ts_device_assert_index_select (5, 17, 3);
}

static void
test_large_index_blocks_subprocess (void)
{
  /* rows of 100: the bad row's elements 100..199 cross into block 1 */
  ts_device_assert_index_select (1, 20, 100);
}

static void
test_index_select (void)
{
  g_test_trap_subprocess ("/device-assert/small/subprocess", 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr (SMALL "block: [0,0,0], thread: [0,0,0]" COND
                             SMALL "block: [0,0,0], thread: [1,0,0]" COND
                             SMALL "block: [0,0,0], thread: [2,0,0]" COND);

  g_test_trap_subprocess ("/device-assert/large/subprocess", 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr (LARGE "block: [0,0,0], thread: [15,0,0]" COND
                             LARGE "block: [0,0,0], thread: [16,0,0]" COND
                             LARGE "block: [0,0,0], thread: [17,0,0]" COND);

  g_test_trap_subprocess ("/device-assert/large-blocks/subprocess", 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr (LARGE "block: [0,0,0], thread: [100,0,0]" COND "*"
                             LARGE "block: [0,0,0], thread: [127,0,0]" COND
                             LARGE "block: [1,0,0], thread: [0,0,0]" COND "*"
                             LARGE "block: [1,0,0], thread: [71,0,0]" COND);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/device-assert/index-select", test_index_select);
  g_test_add_func ("/device-assert/small/subprocess", test_small_index_subprocess);
  g_test_add_func ("/device-assert/large/subprocess", test_large_index_subprocess);
  g_test_add_func ("/device-assert/large-blocks/subprocess", test_large_index_blocks_subprocess);

  return g_test_run ();
}
