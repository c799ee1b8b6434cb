/* fuzz-alloc-config.c: libFuzzer target for the PYTORCH_CUDA_ALLOC_CONF parser
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The input is the raw setting string (no NUL needed). Whatever it is, the
 * parser must either succeed with a configuration that keeps its
 * invariants, or fail with a message and leave the configuration as it was.
 */

#include "config.h"

#include <stdint.h>
#include <string.h>

#include "ts-alloc-config.h"

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  TsAllocConfig config, before;
  GError *error = NULL;
  guint k;

  ts_alloc_config_init (&config);
  before = config;

  if (ts_alloc_config_parse_len (&config, (const char *) data, size, &error))
    {
      g_assert_no_error (error);
      g_assert (config.max_split_size == TS_ALLOC_CONFIG_MAX_SPLIT_UNSET ||
                config.max_split_size > 20 * 1048576);
      g_assert (config.max_non_split_rounding_size > 20 * 1048576 ||
                config.max_non_split_rounding_size == 20 * 1048576);
      g_assert (config.garbage_collection_threshold == 0 ||
                (config.garbage_collection_threshold > 0 && config.garbage_collection_threshold < 1));
      g_assert (config.pinned_num_register_threads >= 1 &&
                config.pinned_num_register_threads <= TS_ALLOC_CONFIG_MAX_REGISTER_THREADS &&
                (config.pinned_num_register_threads & (config.pinned_num_register_threads - 1)) == 0);
      /* expandable_segments is modelled now; cudaMallocAsync is not */
      g_assert (config.backend == TS_ALLOC_BACKEND_NATIVE);
      for (k = 0; k < TS_ALLOC_CONFIG_N_ROUNDUP_INTERVALS; k++)
        {
          guint64 d = config.roundup_power2_divisions[k];
          g_assert ((d & (d - 1)) == 0);
        }
    }
  else
    {
      g_assert (error != NULL);
      g_assert (error->domain == TS_ALLOC_CONFIG_ERROR);
      g_assert (error->message != NULL && error->message[0] != '\0');
      g_assert (memcmp (&config, &before, sizeof config) == 0);
      g_clear_error (&error);
    }

  return 0;
}
