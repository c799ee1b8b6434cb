/* test-cublas-config.c: the cuBLAS workspace sizes from the environment
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The figures are PyTorch 2.11's (aten/src/ATen/cuda/CublasHandlePool.cpp):
 * the defaults by compute capability, what its regex search and std::stoi
 * make of odd strings, and its warnings word for word.
 */

#include "config.h"

#include "ts-cublas-config.h"

#define KiB G_GUINT64_CONSTANT (1024)
#define MiB (KiB * KiB)

/* Parses @env for a GPU of @cc_major.@cc_minor; the warnings joined by
 * '|' into *warned (NULL: none expected). */
static TsCublasConfig
parse (const TsCublasEnv *env,
       guint              cc_major,
       guint              cc_minor,
       const char        *warned)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *joined = NULL;
  TsCublasConfig config;

  g_assert_true (ts_cublas_config_parse (&config, env, cc_major, cc_minor, warnings, &error));
  g_assert_no_error (error);
  g_ptr_array_add (warnings, NULL);
  joined = g_strjoinv ("|", (char **) warnings->pdata);
  g_assert_cmpstr (joined, ==, warned != NULL ? warned : "");
  return config;
}

static void
test_defaults (void)
{
  TsCublasEnv env = { NULL };
  TsCublasConfig c;

  /* sm_90: 4096 KiB x 8, what the H200 measurement allocated */
  c = parse (&env, 9, 0, NULL);
  g_assert_cmpuint (c.workspace_size, ==, 33554432);
  g_assert_cmpuint (c.lt_workspace_size, ==, 1048576);
  g_assert_false (c.lt_shared);
  g_assert_true (c.addmm_lt);
  /* every other GPU: ":4096:2:16:8"; a GTX 1080 Ti (6.1), Ada (8.9),
   * Blackwell (10.0) alike */
  c = parse (&env, 6, 1, NULL);
  g_assert_cmpuint (c.workspace_size, ==, 8519680);
  g_assert_cmpuint (parse (&env, 8, 9, NULL).workspace_size, ==, 8519680);
  g_assert_cmpuint (parse (&env, 10, 0, NULL).workspace_size, ==, 8519680);
}

static void
test_workspace_config (void)
{
  /* the Lt size uncapped: no warning about it below 1 MiB */
  TsCublasEnv env = { .lt_unified = "0" };

  env.workspace_config = ":4096:2";
  g_assert_cmpuint (parse (&env, 9, 0, NULL).workspace_size, ==, 8 * MiB);
  env.workspace_config = ":4096:2:16:8";
  g_assert_cmpuint (parse (&env, 9, 0, NULL).workspace_size, ==, 8519680);
  /* a search, not a full match: text around and between pairs is skipped,
   * and an odd number left over is no pair */
  env.workspace_config = "x:16:8y :1:1:7";
  g_assert_cmpuint (parse (&env, 9, 0, NULL).workspace_size, ==, 129 * KiB);
  env.workspace_config = ":0:8";
  g_assert_cmpuint (parse (&env, 9, 0, NULL).workspace_size, ==, 0);
  /* size_t arithmetic wraps: 2^54 KiB is 2^64 bytes */
  env.workspace_config = ":18014398509481984:1";
  g_assert_cmpuint (parse (&env, 9, 0, NULL).workspace_size, ==, 0);
  env.workspace_config = "4096:8";
  g_assert_cmpuint (parse (&env, 6, 1,
                           "Could not parse CUBLAS_WORKSPACE_CONFIG, using default workspace size of "
                           "8519680 bytes.").workspace_size, ==, 8519680);
  env.workspace_config = "";
  g_assert_cmpuint (parse (&env, 9, 0,
                           "Could not parse CUBLAS_WORKSPACE_CONFIG, using default workspace size of "
                           "33554432 bytes.").workspace_size, ==, 32 * MiB);
}

static void
test_workspace_config_out_of_range (void)
{
  TsCublasEnv env = { .workspace_config = ":4096:8:18446744073709551616:1" };
  g_autoptr(GError) error = NULL;
  TsCublasConfig c;

  g_assert_false (ts_cublas_config_parse (&c, &env, 9, 0, NULL, &error));
  g_assert_error (error, TS_CUBLAS_CONFIG_ERROR, TS_CUBLAS_CONFIG_ERROR_OUT_OF_RANGE);
  g_assert_cmpstr (error->message, ==, "stoull");
}

static void
test_lt_size (void)
{
  TsCublasEnv env = { NULL };

  /* std::stoi: leading space and sign, trailing text ignored */
  env.lt_workspace_size = " +4096KiB";
  g_assert_cmpuint (parse (&env, 9, 0, NULL).lt_workspace_size, ==, 4 * MiB);
  env.lt_workspace_size = "lots";
  g_assert_cmpuint (parse (&env, 9, 0, "invalid CUBLASLT_WORKSPACE_SIZE, using default workspace size of "
                           "1024 KiB.").lt_workspace_size, ==, MiB);
  env.lt_workspace_size = "4294967296";
  g_assert_cmpuint (parse (&env, 9, 0, "CUBLASLT_WORKSPACE_SIZE out of range, using default workspace size "
                           "of 1024 KiB.").lt_workspace_size, ==, MiB);
  /* bigger than the cuBLAS workspace: capped to it, unless the flag is 0;
   * a negative size wraps to a huge size_t, capped the same way */
  env.workspace_config = ":4096:2";
  env.lt_workspace_size = "16384";
  g_assert_cmpuint (parse (&env, 9, 0, "Requested unified CUBLASLT workspace size of 16777216 bytes exceeds "
                           "CUBLAS workspace size of 8388608 bytes. Please increase CUBLAS workspace size via "
                           "CUBLAS_WORKSPACE_CONFIG or decrease requested CUBLASLT_WORKSPACE_SIZE. Otherwise "
                           "CUBLASLT workspace size will be limited to the CUBLAS workspace size.")
                    .lt_workspace_size, ==, 8 * MiB);
  env.lt_unified = "0";
  g_assert_cmpuint (parse (&env, 9, 0, NULL).lt_workspace_size, ==, 16 * MiB);
  env.lt_workspace_size = "-1";
  g_assert_cmpuint (parse (&env, 9, 0, NULL).lt_workspace_size, ==, (guint64) -1024);
}

static void
test_flags (void)
{
  TsCublasEnv env = { NULL };
  TsCublasConfig c;

  env.lt_unified = "1";
  g_assert_true (parse (&env, 9, 0, NULL).lt_shared);
  env.lt_unified = "true";
  c = parse (&env, 9, 0, "Ignoring invalid value for boolean flag TORCH_CUBLASLT_UNIFIED_WORKSPACE: "
             "truevalid values are 0 or 1.");
  g_assert_false (c.lt_shared);
  env.disable_addmm_lt = "1";
  g_assert_false (parse (&env, 9, 0, "Ignoring invalid value for boolean flag TORCH_CUBLASLT_UNIFIED_WORKSPACE: "
                         "truevalid values are 0 or 1.").addmm_lt);
  env.lt_unified = NULL;
  env.disable_addmm_lt = "yes";
  g_assert_true (parse (&env, 9, 0, NULL).addmm_lt);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cublas-config/defaults", test_defaults);
  g_test_add_func ("/cublas-config/workspace-config", test_workspace_config);
  g_test_add_func ("/cublas-config/workspace-config-out-of-range", test_workspace_config_out_of_range);
  g_test_add_func ("/cublas-config/lt-size", test_lt_size);
  g_test_add_func ("/cublas-config/flags", test_flags);
  return g_test_run ();
}
