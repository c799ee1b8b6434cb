/* test-alloc-config.c: PYTORCH_CUDA_ALLOC_CONF parsing
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ts-alloc-config.h"

#define MiB (G_GUINT64_CONSTANT (1) << 20)

static void
test_defaults (void)
{
  TsAllocConfig c;
  guint k;

  ts_alloc_config_init (&c);
  g_assert_cmpuint (c.max_split_size, ==, G_MAXUINT64);
  g_assert_cmpuint (c.max_non_split_rounding_size, ==, 20 * MiB);
  for (k = 0; k < TS_ALLOC_CONFIG_N_ROUNDUP_INTERVALS; k++)
    g_assert_cmpuint (c.roundup_power2_divisions[k], ==, 0);
  g_assert_cmpfloat (c.garbage_collection_threshold, ==, 0.0);
  g_assert_false (c.expandable_segments);
  g_assert_false (c.release_lock_on_cudamalloc);
  g_assert_false (c.pinned_use_cuda_host_register);
  g_assert_cmpuint (c.pinned_num_register_threads, ==, 1);
  g_assert_cmpint (c.backend, ==, TS_ALLOC_BACKEND_NATIVE);
}

static void
test_valid (void)
{
  g_autoptr(GError) error = NULL;
  TsAllocConfig c;
  guint k;

  ts_alloc_config_init (&c);
  g_assert_true (ts_alloc_config_parse (&c, " max_split_size_mb : 128 , garbage_collection_threshold:0.6,"
                                        "release_lock_on_cudamalloc:True,pinned_use_cuda_host_register:True,"
                                        "pinned_num_register_threads:8,backend:native,expandable_segments:False,"
                                        "max_non_split_rounding_mb:64", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (c.max_split_size, ==, 128 * MiB);
  g_assert_cmpuint (c.max_non_split_rounding_size, ==, 64 * MiB);
  g_assert_cmpfloat (c.garbage_collection_threshold, ==, 0.6);
  g_assert_true (c.release_lock_on_cudamalloc);
  g_assert_true (c.pinned_use_cuda_host_register);
  g_assert_cmpuint (c.pinned_num_register_threads, ==, 8);

  /* Expandable segments are modelled (PyTorch >= 2.1); the key stays set
   * across later strings that do not name it, as parseArgs leaves it. */
  g_assert_false (c.expandable_segments);
  g_assert_true (ts_alloc_config_parse (&c, "expandable_segments:True", &error));
  g_assert_no_error (error);
  g_assert_true (c.expandable_segments);
  g_assert_true (ts_alloc_config_parse (&c, "expandable_segments:False", &error));
  g_assert_false (c.expandable_segments);

  /* Scalar form: every interval. */
  g_assert_true (ts_alloc_config_parse (&c, "roundup_power2_divisions:4", &error));
  for (k = 0; k < TS_ALLOC_CONFIG_N_ROUNDUP_INTERVALS; k++)
    g_assert_cmpuint (c.roundup_power2_divisions[k], ==, 4);
  /* A new string resets max_split_size and friends, not the rest. */
  g_assert_cmpuint (c.max_split_size, ==, G_MAXUINT64);
  g_assert_cmpfloat (c.garbage_collection_threshold, ==, 0.0);
  g_assert_true (c.release_lock_on_cudamalloc);
  g_assert_cmpuint (c.pinned_num_register_threads, ==, 8);

  /* Array form of test_allocator_settings. */
  g_assert_true (ts_alloc_config_parse (&c, "roundup_power2_divisions:[64:8,128:2,256:2,512:2,1024:1,>:1]", &error));
  g_assert_no_error (error);
  {
    static const guint64 expected[16] = { 8, 8, 8, 8, 8, 8, 8, 2, 2, 2, 1, 1, 1, 1, 1, 1 };
    for (k = 0; k < 16; k++)
      g_assert_cmpuint (c.roundup_power2_divisions[k], ==, expected[k]);
  }
  g_assert_cmpuint (ts_alloc_config_roundup_divisions (&c, 88080384), ==, 8);
  g_assert_cmpuint (ts_alloc_config_roundup_divisions (&c, 419430400), ==, 2);
  g_assert_cmpuint (ts_alloc_config_roundup_divisions (&c, 512), ==, 8);
  g_assert_cmpuint (ts_alloc_config_roundup_divisions (&c, G_GUINT64_CONSTANT (1) << 50), ==, 1);

  /* CUDAAllocatorConfig::parseRoundUpPower2Divisions fills ">" from the
   * last interval named, that one included: 512:2 is overwritten by >:8. */
  g_assert_true (ts_alloc_config_parse (&c, "roundup_power2_divisions:[256:1,512:2,>:8]", &error));
  g_assert_no_error (error);
  {
    static const guint64 expected[16] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 8, 8, 8, 8, 8, 8, 8 };
    for (k = 0; k < 16; k++)
      g_assert_cmpuint (c.roundup_power2_divisions[k], ==, expected[k]);
  }

  /* ">" first fills everything; an unclosed list ends with the string. */
  g_assert_true (ts_alloc_config_parse (&c, "roundup_power2_divisions:[>:2]", &error));
  for (k = 0; k < 16; k++)
    g_assert_cmpuint (c.roundup_power2_divisions[k], ==, 2);
  g_assert_true (ts_alloc_config_parse (&c, "roundup_power2_divisions:[2:4", &error));
  g_assert_cmpuint (c.roundup_power2_divisions[0], ==, 4);
  g_assert_cmpuint (c.roundup_power2_divisions[1], ==, 4);
  g_assert_cmpuint (c.roundup_power2_divisions[2], ==, 0);
  g_assert_true (ts_alloc_config_parse (&c, "roundup_power2_divisions:[]", &error));
  g_assert_cmpuint (c.roundup_power2_divisions[0], ==, 0);

  /* stoi reads leading digits only, as PyTorch does. */
  g_assert_true (ts_alloc_config_parse (&c, "max_split_size_mb:100abc", &error));
  g_assert_cmpuint (c.max_split_size, ==, 100 * MiB);

  /* Empty and NULL strings reset to defaults. */
  g_assert_true (ts_alloc_config_parse (&c, "", &error));
  g_assert_cmpuint (c.max_split_size, ==, G_MAXUINT64);
  g_assert_true (ts_alloc_config_parse (&c, NULL, &error));
  g_assert_no_error (error);
}

typedef struct
{
  const char *str;
  int         code;
  const char *message;
} BadCase;

static void
test_invalid (void)
{
  static const BadCase cases[] = {
    /* test_allocator_settings */
    { "foo:1,bar:2", TS_ALLOC_CONFIG_ERROR_INVALID, "Unrecognized CachingAllocator option: foo" },
    { "garbage_collection_threshold:1.2", TS_ALLOC_CONFIG_ERROR_INVALID, "garbage_collect_threshold too big, set it 0.0~1.0" },
    { "max_split_size_mb:2", TS_ALLOC_CONFIG_ERROR_INVALID, "CachingAllocator option max_split_size_mb too small, must be > 20" },
    { "release_lock_on_cudamalloc:none", TS_ALLOC_CONFIG_ERROR_INVALID, "Expected a single True/False argument for release_lock_on_cudamalloc" },
    { "pinned_num_register_threads:1024", TS_ALLOC_CONFIG_ERROR_INVALID, "Number of register threads should be less than or equal to 128" },
    /* the rest of PyTorch's checks */
    { "max_split_size_mb:20", TS_ALLOC_CONFIG_ERROR_INVALID, "CachingAllocator option max_split_size_mb too small, must be > 20" },
    { "max_split_size_mb:-5", TS_ALLOC_CONFIG_ERROR_INVALID, "CachingAllocator option max_split_size_mb too small, must be > 20" },
    { "max_split_size_mb", TS_ALLOC_CONFIG_ERROR_INVALID, "Error parsing CachingAllocator settings, expected :" },
    { "max_split_size_mb:", TS_ALLOC_CONFIG_ERROR_INVALID, "Error, expecting max_split_size_mb value" },
    { "max_split_size_mb:abc", TS_ALLOC_CONFIG_ERROR_INVALID, "Error parsing CachingAllocator settings, expected an integer for max_split_size_mb, got \"abc\"" },
    { "max_split_size_mb:99999999999", TS_ALLOC_CONFIG_ERROR_INVALID, "Error parsing CachingAllocator settings, max_split_size_mb value \"99999999999\" is out of range" },
    { "max_split_size_mb:100:5", TS_ALLOC_CONFIG_ERROR_INVALID, "Error parsing CachingAllocator settings, expected ," },
    { "max_non_split_rounding_mb:1", TS_ALLOC_CONFIG_ERROR_INVALID, "CachingAllocator option max_non_split_rounding_mb too small, must be > 20" },
    { "garbage_collection_threshold:0", TS_ALLOC_CONFIG_ERROR_INVALID, "garbage_collect_threshold too small, set it 0.0~1.0" },
    { "garbage_collection_threshold:nan", TS_ALLOC_CONFIG_ERROR_INVALID, "garbage_collect_threshold too small, set it 0.0~1.0" },
    { "garbage_collection_threshold:", TS_ALLOC_CONFIG_ERROR_INVALID, "Error, expecting garbage_collection_threshold value" },
    { "roundup_power2_divisions:3", TS_ALLOC_CONFIG_ERROR_INVALID, "For roundups, the divisons has to be power of 2 " },
    { "roundup_power2_divisions:[64:3]", TS_ALLOC_CONFIG_ERROR_INVALID, "For roundups, the divisons has to be power of 2 or 0 to disable roundup " },
    { "roundup_power2_divisions:[63:2]", TS_ALLOC_CONFIG_ERROR_INVALID, "For roundups, the intervals have to be power of 2 " },
    { "roundup_power2_divisions:[64:2;128:4]", TS_ALLOC_CONFIG_ERROR_INVALID, "Error parsing CachingAllocator settings, expected ," },
    { "roundup_power2_divisions:[64:]", TS_ALLOC_CONFIG_ERROR_INVALID, "Error parsing CachingAllocator settings, expected an integer for roundup_power2_divisions, got \"]\"" },
    { "roundup_power2_divisions:[64", TS_ALLOC_CONFIG_ERROR_INVALID, "Error parsing CachingAllocator settings, expected :" },
    { "roundup_power2_divisions", TS_ALLOC_CONFIG_ERROR_INVALID, "Error parsing CachingAllocator settings, expected :" },
    { "expandable_segments:yes", TS_ALLOC_CONFIG_ERROR_INVALID, "Expected a single True/False argument for expandable_segments" },
    { "expandable_segments:", TS_ALLOC_CONFIG_ERROR_INVALID, "Expected a single True/False argument for expandable_segments" },
    { "pinned_use_cuda_host_register:", TS_ALLOC_CONFIG_ERROR_INVALID, "Error, expecting pinned_use_cuda_host_register value" },
    { "pinned_use_cuda_host_register:1", TS_ALLOC_CONFIG_ERROR_INVALID, "Expected a single True/False argument for pinned_use_cuda_host_register" },
    { "pinned_num_register_threads:3", TS_ALLOC_CONFIG_ERROR_INVALID, "Number of register threads has to be power of 2 " },
    { "backend:magic", TS_ALLOC_CONFIG_ERROR_INVALID, "Unknown allocator backend, options are native and cudaMallocAsync" },
    { ",", TS_ALLOC_CONFIG_ERROR_INVALID, "Unrecognized CachingAllocator option: ," },
    /* accepted by PyTorch, refused here */
    { "backend:cudaMallocAsync", TS_ALLOC_CONFIG_ERROR_UNSUPPORTED,
      "backend:cudaMallocAsync is not supported by Tensorscope: only the native caching allocator is modelled" },
  };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr(GError) error = NULL;
      TsAllocConfig c, before;

      ts_alloc_config_init (&c);
      g_assert_true (ts_alloc_config_parse (&c, "max_split_size_mb:64,pinned_num_register_threads:4", NULL));
      before = c;
      g_assert_false (ts_alloc_config_parse (&c, cases[k].str, &error));
      g_assert_error (error, TS_ALLOC_CONFIG_ERROR, cases[k].code);
      g_assert_cmpstr (error->message, ==, cases[k].message);
      /* A failed parse changes nothing. */
      g_assert_cmpmem (&c, sizeof c, &before, sizeof before);
    }
}

static void
test_non_terminated (void)
{
  TsAllocConfig c;
  const char buf[] = { 'm', 'a', 'x', '_', 's', 'p', 'l', 'i', 't', '_', 's', 'i', 'z', 'e', '_', 'm', 'b', ':', '3', '2', '9' };

  ts_alloc_config_init (&c);
  /* Only the first 20 bytes: "max_split_size_mb:32". */
  g_assert_true (ts_alloc_config_parse_len (&c, buf, 20, NULL));
  g_assert_cmpuint (c.max_split_size, ==, 32 * MiB);
  g_assert_true (ts_alloc_config_parse_len (&c, NULL, 0, NULL));
  g_assert_cmpuint (c.max_split_size, ==, G_MAXUINT64);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/alloc-config/defaults", test_defaults);
  g_test_add_func ("/alloc-config/valid", test_valid);
  g_test_add_func ("/alloc-config/invalid", test_invalid);
  g_test_add_func ("/alloc-config/non-terminated", test_non_terminated);
  return g_test_run ();
}
