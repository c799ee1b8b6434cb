/* ts-gpu-profile.c: the GPU models the simulator knows
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Provenance of each figure, in the comment beside it:
 *   [datasheet]  NVIDIA's published figure (a ceiling, not what programs get)
 *   [measured]   measured on the real part with PyTorch 2.11 (the H100 SXM
 *                figures from the workplace's notes; the H200's by us)
 *   [reported]   commonly reported by users; not measured by us
 *   [assumed]    no source at hand: a modelling choice, explained
 * docs/simulation-model.md repeats the table and says how each is used.
 */

#include "config.h"

#include "ts-gpu-profile.h"

#define GB 1e9
#define TB 1e12
#define MiB ((guint64) 1 << 20)

static const TsGpuProfile profiles[] = {
  {
    .key = "h100",
    .label = "H100",
    .name = "NVIDIA H100 80GB HBM3",                 /* [measured] torch.cuda.get_device_name() */
    .cc_major = 9, .cc_minor = 0,                    /* [datasheet] */
    .sm_count = 132,                                 /* [datasheet] SXM5 */
    .max_threads_per_sm = 2048,                      /* [datasheet] */
    .max_blocks_per_sm = 32,                         /* [datasheet] */
    .warp_size = 32,
    .clock_khz = 1980000,                            /* [datasheet] boost clock */
    .total_memory = 81559 * MiB,                     /* [measured] nvidia-smi total, 79.6 GiB */
    .mem_bandwidth = 3.0 * TB,                       /* [measured] large copy, read + write; datasheet 3.35 */
    .fp32_flops = 67e12,                             /* [datasheet] non-tensor FP32 */
    .fp16_flops = 798e12,                            /* [measured] 8192^3 bf16 matmul; datasheet 989 */
    .tf32_flops = 399e12,                            /* [assumed] datasheet 495 dense, at the
                                                      * measured bf16 share of its datasheet (0.81) */
    .fp64_flops = 67e12,                             /* [datasheet] FP64 tensor core, dense */
    .pcie_pinned_bandwidth = 52 * GB,                /* [reported] 50-55 GB/s on PCIe Gen5 x16 */
    .pcie_pageable_bandwidth = 20 * GB,              /* [assumed] staging through a pinned buffer
                                                      * costs about 60%, as on the 1080 Ti */
    .peer_bandwidth = 360 * GB,                      /* [assumed] NVLink 4, 450 GB/s per direction
                                                      * nominal, taken at 80% */
    .copy_engines = 3,                               /* [assumed] H2D, D2H and peer concurrently;
                                                      * the part has more, three is all we model */
    .launch_latency_ns = 4000,                       /* [reported] 3-5 us per launch */
    .api_latency_ns = 500,                           /* [assumed] a cheap runtime call */
    .kernel_overhead_ns = 2500,                      /* [reported] smallest kernel 2-3 us */
    .copy_overhead_ns = 1500,                        /* [assumed] DMA set-up per copy */
    .least_priority = 0,
    .greatest_priority = -5,                         /* [measured] cudaDeviceGetStreamPriorityRange */
  },
  {
    .key = "gtx1080ti",
    .label = "GTX 1080 Ti",
    .name = "NVIDIA GeForce GTX 1080 Ti",            /* [reported] as the seed documents print it */
    .cc_major = 6, .cc_minor = 1,                    /* [datasheet] */
    .sm_count = 28,                                  /* [datasheet] */
    .max_threads_per_sm = 2048,                      /* [datasheet] */
    .max_blocks_per_sm = 32,                         /* [datasheet] */
    .warp_size = 32,
    .clock_khz = 1582000,                            /* [datasheet] boost clock */
    .total_memory = 11178 * MiB,                     /* [reported] torch total_memory=11178MB */
    .mem_bandwidth = 365 * GB,                       /* [reported] 350-380 GB/s copy; datasheet 484 */
    .fp32_flops = 11.3e12,                           /* [datasheet] */
    .fp16_flops = 11.3e12 / 64,                      /* [datasheet] FP16 at 1/64 rate, no tensor cores */
    .tf32_flops = 11.3e12,                           /* [datasheet] no TF32: float32 matmuls stay FP32 */
    .fp64_flops = 11.3e12 / 32,                      /* [datasheet] FP64 at 1/32 rate */
    .pcie_pinned_bandwidth = 12 * GB,                /* [reported] Gen3 x16, 15.75 nominal */
    .pcie_pageable_bandwidth = 7 * GB,               /* [reported] 6-8 GB/s */
    .peer_bandwidth = 10 * GB,                       /* [assumed] P2P over PCIe Gen3 */
    .copy_engines = 2,                               /* [datasheet] one per direction */
    .launch_latency_ns = 4000,                       /* [reported] 3-5 us per launch */
    .api_latency_ns = 500,                           /* [assumed] */
    .kernel_overhead_ns = 4000,                      /* [reported] smallest kernel 3-5 us */
    .copy_overhead_ns = 2000,                        /* [assumed] */
    .least_priority = 0,
    .greatest_priority = -1,                         /* [assumed] older parts report two levels */
  },
  {
    /* Every [measured] figure here was read on one H200 (driver 580.159.04,
     * CUDA 13.0, PyTorch 2.11) with tests/gpu/calibrate.py: CUDA-event
     * medians of ten, docs/gpu-measurements.md. */
    .key = "h200",
    .label = "H200",
    .name = "NVIDIA H200",                           /* [measured] torch.cuda.get_device_name() */
    .cc_major = 9, .cc_minor = 0,                    /* [measured] */
    .sm_count = 132,                                 /* [measured] multi_processor_count */
    .max_threads_per_sm = 2048,                      /* [datasheet] */
    .max_blocks_per_sm = 32,                         /* [datasheet] */
    .warp_size = 32,
    .clock_khz = 1980000,                            /* [measured] nvidia-smi clocks.max.sm */
    .total_memory = G_GUINT64_CONSTANT (150109880320), /* [measured] total_memory: 139.80 GiB */
    .mem_bandwidth = 4.2 * TB,                       /* [measured] 1 GiB device copy, read + write;
                                                      * datasheet 4.8 */
    .fp32_flops = 51e12,                             /* [measured] 8192^3 float32 mm (cuBLAS);
                                                      * datasheet 67 */
    .fp16_flops = 827e12,                            /* [measured] 8192^3 bf16 mm; fp16 790 */
    .tf32_flops = 424e12,                            /* [measured] 8192^3 float32 mm, allow_tf32 */
    .fp64_flops = 59.5e12,                           /* [measured] 4096^3 float64 mm */
    .pcie_pinned_bandwidth = 55 * GB,                /* [measured] 1 GiB, 55.3 H2D and 55.4 D2H */
    .pcie_pageable_bandwidth = 20 * GB,              /* [measured] 1 GiB, 23.1 H2D and 17.6 D2H:
                                                      * one figure for both, their mean */
    .peer_bandwidth = 360 * GB,                      /* [assumed] NVLink 4 as the H100's; one GPU
                                                      * was lent, no peer to measure */
    .copy_engines = 3,                               /* [assumed] as the H100 */
    .launch_latency_ns = 3900,                       /* [measured] 3864 ns per empty-kernel launch
                                                      * from C++; PyTorch's own dispatch adds ~2 us */
    .api_latency_ns = 500,                           /* [assumed] */
    .kernel_overhead_ns = 900,                       /* [measured] a one-element add: 904 ns on
                                                      * the profiler's device timeline */
    .copy_overhead_ns = 1500,                        /* [assumed] as the H100 */
    .op_dispatch_ns = 2100,                          /* [measured] x.add_(1) took 5990 ns of host
                                                      * time per op under PyTorch, less the
                                                      * launch's 3900 */
    /* [measured] read off a Kineto trace of two Adam steps of the 64-128-128-10
     * MLP on this H200 (tests/data/real/kineto_mlp.json) by
     * tests/gpu/host-time-breakdown.py: the second step's host time under each
     * construct (its Python, its ops' CPU time, its runtime calls), less the
     * 6.0 us per kernel launch charged above (dispatch + launch), each event
     * less the profiler's own cost, 7.7 us per recorded call: that one figure
     * is fitted, so that the step comes to the 1138 us it takes unprofiled.
     * The ops of a step cost more host time than the bare add_ loop's: each
     * is the first of its kind for a while, its dispatch path cold. */
    .host_cost_ns = {
      [TS_HOST_COST_MODULE_CALL] = 18400,            /* _call_impl, forward, F.linear and
                                                      * its ops: 110 us / 6 calls */
      [TS_HOST_COST_BACKWARD_ENTRY] = 128900,        /* Tensor.backward, _make_grads, the
                                                      * wake-up of the engine's thread and
                                                      * the return from it */
      [TS_HOST_COST_AUTOGRAD_NODE] = 18900,          /* evaluate_function, the node's C++
                                                      * and ops: 302 us / 16 nodes */
      [TS_HOST_COST_OPTIMIZER_STEP] = 273100,        /* step's wrappers (profiling hooks,
                                                      * dynamo checks), adam(), foreach
                                                      * grouping and its 7 foreach ops */
      [TS_HOST_COST_OPTIMIZER_PARAM] = 6200,         /* _init_group's loop, _get_value and
                                                      * the genexprs: 37 us / 6 parameters */
      [TS_HOST_COST_ZERO_GRAD] = 45100,              /* zero_grad with its dynamo and
                                                      * record_function wrappers, 6 params */
    },
    .least_priority = 0,
    .greatest_priority = -5,                         /* [assumed] as the H100 (same driver) */
  },
};

/* The names the Python package charges host costs by, in TsHostCost order. */
static const char *host_cost_names[TS_N_HOST_COSTS] = {
  [TS_HOST_COST_MODULE_CALL] = "module_call",
  [TS_HOST_COST_BACKWARD_ENTRY] = "backward_entry",
  [TS_HOST_COST_AUTOGRAD_NODE] = "autograd_node",
  [TS_HOST_COST_OPTIMIZER_STEP] = "optimizer_step",
  [TS_HOST_COST_OPTIMIZER_PARAM] = "optimizer_param",
  [TS_HOST_COST_ZERO_GRAD] = "zero_grad",
};

int
ts_host_cost_from_name (const char *name)
{
  g_return_val_if_fail (name != NULL, -1);

  for (int i = 0; i < TS_N_HOST_COSTS; i++)
    {
      if (g_strcmp0 (host_cost_names[i], name) == 0)
        return i;
    }

  return -1;
}

const TsGpuProfile *
ts_gpu_profile_lookup (const char *key)
{
  g_return_val_if_fail (key != NULL, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (profiles); i++)
    {
      if (g_ascii_strcasecmp (profiles[i].key, key) == 0)
        return &profiles[i];
    }

  return NULL;
}

const TsGpuProfile *
ts_gpu_profile_get_default (void)
{
  return &profiles[0];
}

const char **
ts_gpu_profile_list_keys (void)
{
  const char **keys = g_new0 (const char *, G_N_ELEMENTS (profiles) + 1);

  for (guint i = 0; i < G_N_ELEMENTS (profiles); i++)
    keys[i] = profiles[i].key;

  return keys;
}

guint
ts_gpu_profile_get_n_profiles (void)
{
  return G_N_ELEMENTS (profiles);
}

const TsGpuProfile *
ts_gpu_profile_get_nth (guint i)
{
  g_return_val_if_fail (i < G_N_ELEMENTS (profiles), NULL);

  return &profiles[i];
}

char *
ts_gpu_profile_dup_known (void)
{
  g_autofree const char **keys = ts_gpu_profile_list_keys ();

  return g_strjoinv (", ", (char **) keys);
}

void
ts_gpu_profile_get_torch_priority_range (const TsGpuProfile *self,
                                         int                *least,
                                         int                *greatest)
{
  g_return_if_fail (self != NULL);

  /* PyTorch compiles in four priority levels and never exposes more. */
  if (least != NULL)
    *least = self->least_priority;
  if (greatest != NULL)
    *greatest = MAX (-3, self->greatest_priority);
}
