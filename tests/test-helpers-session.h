/* test-helpers-session.h: the simulated session the tensor-level tests run in
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-session.h"

/* g_test_init, then a session of n_gpus simulated devices with CUDA
 * initialized, whatever the environment says about visible devices,
 * the allocator and launch blocking. */
static inline void
test_session_init (int    *argc,
                   char ***argv,
                   int     n_gpus)
{
  TsSessionOptions options = { .n_gpus = n_gpus };
  g_autoptr(GError) error = NULL;

  g_test_init (argc, argv, NULL);
  g_unsetenv ("CUDA_VISIBLE_DEVICES");
  g_unsetenv ("PYTORCH_CUDA_ALLOC_CONF");
  g_unsetenv ("CUDA_LAUNCH_BLOCKING");
  ts_session_configure (&options);
  if (!ts_session_cuda_init (&error))
    g_error ("%s", error->message);
}
