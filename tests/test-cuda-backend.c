/* test-cuda-backend.c: the CUDA backend module loads where there is no GPU
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The module built by nvcc must load (its cudart and cuBLAS resolve) and
 * answer "no device" cleanly on a machine without a driver; on a machine
 * with a GPU it must find it. Kernels are checked on a GPU by
 * tests/gpu/check.sh.
 */

#include "config.h"

#include "ts-cuda-backend.h"

static void
test_open (void)
{
  g_autoptr(GError) error = NULL;
  TsCudaBackend *backend = ts_cuda_backend_open (NULL, &error);

  if (backend != NULL)
    {
      const TsCudaKernels *k = ts_cuda_backend_get_kernels (backend);

      g_test_message ("%d CUDA device(s)", ts_cuda_backend_get_n_devices (backend));
      g_assert_cmpint (ts_cuda_backend_get_n_devices (backend), >, 0);
      g_assert_cmpuint (k->abi_version, ==, TS_CUDA_ABI_VERSION);
      ts_cuda_backend_close (backend);
      return;
    }
  /* Loaded, but no driver or no GPU: the only acceptable failure. */
  g_test_message ("%s", error->message);
  g_assert_error (error, TS_CUDA_BACKEND_ERROR, TS_CUDA_BACKEND_ERROR_NO_DEVICE);
  g_assert_true (g_str_has_prefix (error->message, "No CUDA GPUs are available ("));
}

static void
test_bad_module (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_null (ts_cuda_backend_open ("/nonexistent/libtensorscope-cuda.so", &error));
  g_assert_error (error, TS_CUDA_BACKEND_ERROR, TS_CUDA_BACKEND_ERROR_LOAD_FAILED);
  g_clear_error (&error);
  /* A library that is not our module. */
  g_assert_null (ts_cuda_backend_open ("libm.so.6", &error));
  g_assert_error (error, TS_CUDA_BACKEND_ERROR, TS_CUDA_BACKEND_ERROR_ABI);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cuda/backend/open", test_open);
  g_test_add_func ("/cuda/backend/bad-module", test_bad_module);
  return g_test_run ();
}
