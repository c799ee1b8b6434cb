/* test-gpu-profile.c: the GPU model table
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-gpu-profile.h"

static void
test_lookup (void)
{
  const TsGpuProfile *h100 = ts_gpu_profile_lookup ("h100");
  const TsGpuProfile *gtx = ts_gpu_profile_lookup ("GTX1080Ti");
  const TsGpuProfile *h200 = ts_gpu_profile_lookup ("h200");

  g_assert_nonnull (h100);
  g_assert_true (h100 == ts_gpu_profile_get_default ());
  g_assert_cmpstr (h100->name, ==, "NVIDIA H100 80GB HBM3");
  g_assert_cmpuint (h100->cc_major, ==, 9);
  g_assert_cmpuint (h100->cc_minor, ==, 0);
  g_assert_cmpuint (h100->sm_count, ==, 132);
  g_assert_cmpuint (h100->total_memory, ==, G_GUINT64_CONSTANT (81559) << 20);
  g_assert_cmpuint (h100->copy_engines, ==, 3);

  g_assert_nonnull (gtx);
  g_assert_cmpstr (gtx->key, ==, "gtx1080ti");
  g_assert_cmpstr (gtx->name, ==, "NVIDIA GeForce GTX 1080 Ti");
  g_assert_cmpuint (gtx->cc_major, ==, 6);
  g_assert_cmpuint (gtx->cc_minor, ==, 1);
  g_assert_cmpuint (gtx->sm_count, ==, 28);
  g_assert_cmpuint (gtx->copy_engines, ==, 2);
  g_assert_cmpfloat (gtx->fp16_flops * 64, ==, gtx->fp32_flops);
  g_assert_cmpfloat (gtx->fp64_flops * 32, ==, gtx->fp32_flops);

  /* The H200's figures are the ones measured with tests/gpu/calibrate.py. */
  g_assert_nonnull (h200);
  g_assert_cmpstr (h200->name, ==, "NVIDIA H200");
  g_assert_cmpuint (h200->total_memory, ==, G_GUINT64_CONSTANT (150109880320));
  g_assert_cmpfloat (h200->fp32_flops, ==, 51e12);
  g_assert_cmpfloat (h200->tf32_flops, ==, 424e12);
  g_assert_cmpint (h200->kernel_overhead_ns, ==, 900);

  g_assert_null (ts_gpu_profile_lookup ("a100"));
  g_assert_null (ts_gpu_profile_lookup (""));
}

static void
test_sanity (void)
{
  g_autofree const char **keys = ts_gpu_profile_list_keys ();

  /* Every model's numbers are usable by the scheduler. */
  for (guint i = 0; keys[i] != NULL; i++)
    {
      const TsGpuProfile *p = ts_gpu_profile_lookup (keys[i]);

      g_assert_nonnull (p);
      g_assert_cmpuint (p->sm_count, >, 0);
      g_assert_cmpuint (p->copy_engines, >=, 1);
      g_assert_cmpfloat (p->mem_bandwidth, >, 0);
      g_assert_cmpfloat (p->fp32_flops, >, 0);
      g_assert_cmpfloat (p->fp16_flops, >, 0);
      g_assert_cmpfloat (p->tf32_flops, >, 0);
      g_assert_cmpfloat (p->fp64_flops, >, 0);
      g_assert_cmpfloat (p->pcie_pinned_bandwidth, >, p->pcie_pageable_bandwidth);
      g_assert_cmpfloat (p->peer_bandwidth, >, 0);
      g_assert_cmpint (p->launch_latency_ns, >, 0);
      g_assert_cmpint (p->kernel_overhead_ns, >, 0);
      g_assert_cmpint (p->greatest_priority, <, p->least_priority);
    }
}

static void
test_known_list (void)
{
  g_autofree char *known = ts_gpu_profile_dup_known ();
  g_autofree const char **keys = ts_gpu_profile_list_keys ();

  g_assert_cmpstr (known, ==, "h100, gtx1080ti, h200");
  g_assert_cmpstr (keys[0], ==, "h100");
  g_assert_cmpstr (keys[1], ==, "gtx1080ti");
  g_assert_cmpstr (keys[2], ==, "h200");
  g_assert_null (keys[3]);
}

static void
test_torch_priority_range (void)
{
  int least = 1, greatest = 1;

  /* The H100 reports -5; PyTorch exposes four levels, (0, -3). */
  ts_gpu_profile_get_torch_priority_range (ts_gpu_profile_lookup ("h100"), &least, &greatest);
  g_assert_cmpint (least, ==, 0);
  g_assert_cmpint (greatest, ==, -3);

  ts_gpu_profile_get_torch_priority_range (ts_gpu_profile_lookup ("gtx1080ti"), &least, &greatest);
  g_assert_cmpint (least, ==, 0);
  g_assert_cmpint (greatest, ==, -1);
}

static void
test_host_costs (void)
{
  static const char *names[] = { "module_call", "backward_entry", "autograd_node",
                                 "optimizer_step", "optimizer_param", "zero_grad" };
  const TsGpuProfile *h200 = ts_gpu_profile_lookup ("h200");

  /* The Python package charges each construct by its name: one each. */
  G_STATIC_ASSERT (G_N_ELEMENTS (names) == TS_N_HOST_COSTS);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_assert_cmpint (ts_host_cost_from_name (names[i]), ==, i);
  g_assert_cmpint (ts_host_cost_from_name ("forward"), ==, -1);
  g_assert_cmpint (ts_host_cost_from_name (""), ==, -1);

  /* Only the H200 measured them: the other models' predictions do not move. */
  for (guint i = 0; i < TS_N_HOST_COSTS; i++)
    {
      g_assert_cmpint (ts_gpu_profile_lookup ("h100")->host_cost_ns[i], ==, 0);
      g_assert_cmpint (ts_gpu_profile_lookup ("gtx1080ti")->host_cost_ns[i], ==, 0);
      g_assert_cmpint (h200->host_cost_ns[i], >, 0);
    }
  /* tests/gpu/host-time-breakdown.py's figures for the real Kineto trace */
  g_assert_cmpint (h200->host_cost_ns[TS_HOST_COST_MODULE_CALL], ==, 18400);
  g_assert_cmpint (h200->host_cost_ns[TS_HOST_COST_AUTOGRAD_NODE], ==, 18900);
  g_assert_cmpint (h200->host_cost_ns[TS_HOST_COST_OPTIMIZER_PARAM], ==, 6200);
}

/* The H200's figures are what tests/gpu/host-time-breakdown.py reads off
 * the real Kineto trace, to the 100 ns the table keeps: a change to the
 * script or the table that parts them fails here. */
static void
test_host_costs_from_trace (void)
{
  const TsGpuProfile *h200 = ts_gpu_profile_lookup ("h200");
  g_autofree char *script = g_build_filename (TS_TEST_SRCDIR, "gpu", "host-time-breakdown.py", NULL);
  g_autofree char *trace = g_build_filename (TS_TEST_SRCDIR, "data", "real", "kineto_mlp.json", NULL);
  const char *argv[] = { "python3", script, trace, NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;
  gboolean in_figures = FALSE;
  guint seen = 0;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err,
                &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) words = NULL;
      int what;

      if (g_str_has_prefix (lines[i], "host-cost figures"))
        {
          in_figures = TRUE;
          continue;
        }
      if (!in_figures || !g_str_has_prefix (lines[i], "  ") || strchr (lines[i], '(') != NULL)
        continue;
      words = g_strsplit_set (g_strstrip (lines[i]), " ", -1);
      what = ts_host_cost_from_name (words[0]);
      g_assert_cmpint (what, >=, 0);
      g_assert_cmpint (h200->host_cost_ns[what], ==,
                       100 * (gint64) ((g_ascii_strtod (words[g_strv_length (words) - 1], NULL) + 50) / 100));
      seen++;
    }
  g_assert_cmpuint (seen, ==, TS_N_HOST_COSTS);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gpu-profile/lookup", test_lookup);
  g_test_add_func ("/gpu-profile/sanity", test_sanity);
  g_test_add_func ("/gpu-profile/known-list", test_known_list);
  g_test_add_func ("/gpu-profile/torch-priority-range", test_torch_priority_range);
  g_test_add_func ("/gpu-profile/host-costs", test_host_costs);
  g_test_add_func ("/gpu-profile/host-costs-from-trace", test_host_costs_from_trace);

  return g_test_run ();
}
