/* fuzz-cublas-config.c: libFuzzer target for the cuBLAS workspace settings
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * CUBLAS_WORKSPACE_CONFIG, CUBLASLT_WORKSPACE_SIZE,
 * TORCH_CUBLASLT_UNIFIED_WORKSPACE and DISABLE_ADDMM_CUDA_LT come from the
 * user's environment. The first byte of the input picks the compute
 * capability (its high nibble the major, the low one the minor); the rest
 * is split at newlines into the four strings, in that order (a missing one
 * is unset). Whatever they are, the parser gives sizes or the one error
 * PyTorch raises ("stoull"), and each warning names the variable.
 */

#include "config.h"

#include <stdint.h>
#include <string.h>

#include "ts-cublas-config.h"

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) fields = NULL;
  TsCublasEnv env = { NULL };
  TsCublasConfig config;
  guint n;

  if (size == 0)
    return 0;
  /* the environment holds C strings: a NUL ends one */
  text = g_strndup ((const char *) data + 1, size - 1);
  fields = g_strsplit (text, "\n", 4);
  n = g_strv_length (fields);
  env.workspace_config = n > 0 ? fields[0] : NULL;
  env.lt_workspace_size = n > 1 ? fields[1] : NULL;
  env.lt_unified = n > 2 ? fields[2] : NULL;
  env.disable_addmm_lt = n > 3 ? fields[3] : NULL;

  if (ts_cublas_config_parse (&config, &env, data[0] >> 4, data[0] & 15, warnings, &error))
    {
      g_assert (error == NULL);
      g_assert (config.addmm_lt == (g_strcmp0 (env.disable_addmm_lt, "1") != 0));
      g_assert (config.lt_shared == (g_strcmp0 (env.lt_unified, "1") == 0));
      /* capped to the cuBLAS workspace unless the flag says "0" */
      g_assert (g_strcmp0 (env.lt_unified, "0") == 0 || config.lt_workspace_size <= config.workspace_size);
      if (env.workspace_config == NULL)
        g_assert (config.workspace_size == 33554432 || config.workspace_size == 8519680);
    }
  else
    {
      g_assert (error != NULL && error->domain == TS_CUBLAS_CONFIG_ERROR);
      g_assert (g_str_equal (error->message, "stoull"));
    }
  for (guint i = 0; i < warnings->len; i++)
    {
      const char *w = warnings->pdata[i];

      g_assert (strstr (w, "CUBLAS") != NULL);
    }
  return 0;
}
