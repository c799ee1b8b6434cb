/* ts-gpu-profile.h: the numbers that describe a simulated GPU model
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A profile is a constant table entry: the simulator reads it to size the
 * engines and to turn bytes and flops into virtual nanoseconds. The table
 * lives in the trace library, beside the records that name a device,
 * because the app and the CLI list the models from it too: this table is
 * the one list of GPU models. Every
 * figure says in ts-gpu-profile.c whether it is a datasheet value, a
 * measurement, a commonly reported figure or a modelling assumption;
 * docs/simulation-model.md has the same table in prose.
 */

#pragma once

#include <glib.h>

#include "ts-types.h"

G_BEGIN_DECLS

/* The host time PyTorch's Python (and its autograd engine) spends between
 * ops, per construct: what a launch-bound training step is mostly made of.
 * Charged on the host clock where the construct runs (torch/nn, torch/optim,
 * torch/autograd, the engine per node); each profile's figures and their
 * provenance are in ts-gpu-profile.c. */
typedef enum
{
  TS_HOST_COST_MODULE_CALL,          /* one nn.Module.__call__, its forward's Python */
  TS_HOST_COST_BACKWARD_ENTRY,       /* one backward(): _make_grads, hand-off to the engine */
  TS_HOST_COST_AUTOGRAD_NODE,        /* one node the engine evaluates */
  TS_HOST_COST_OPTIMIZER_STEP,       /* one param group of Optimizer.step() */
  TS_HOST_COST_OPTIMIZER_PARAM,      /* one parameter of that group */
  TS_HOST_COST_ZERO_GRAD,            /* one zero_grad() call */
  TS_N_HOST_COSTS
} TsHostCost;

/* "module_call" -> TS_HOST_COST_MODULE_CALL; -1 when unknown. */
int                  ts_host_cost_from_name    (const char  *name);

typedef struct
{
  const char *key;                   /* "h100": what --gpu-model takes */
  const char *label;                 /* "H100": the app's GPU model list */
  const char *name;                  /* as torch.cuda.get_device_name() prints it */
  guint       cc_major;
  guint       cc_minor;
  guint       sm_count;
  guint       max_threads_per_sm;
  guint       max_blocks_per_sm;
  guint       warp_size;
  guint       clock_khz;             /* boost clock, for cycle-based sleeps */
  guint64     total_memory;          /* bytes, as cudaMemGetInfo reports it */

  /* Throughputs, in bytes or flops per second. */
  double      mem_bandwidth;         /* effective DRAM bandwidth, read + write */
  double      fp32_flops;
  double      fp16_flops;            /* dense FP16/BF16, tensor cores when present */
  double      tf32_flops;            /* dense TF32 on tensor cores (float32 matmuls that
                                      * allow it); fp32_flops where there are none */
  double      fp64_flops;            /* dense FP64 matmuls: on tensor cores where
                                      * the part has FP64 ones (cuBLAS uses them) */
  double      pcie_pinned_bandwidth; /* per direction */
  double      pcie_pageable_bandwidth;
  double      peer_bandwidth;        /* device to device over NVLink or PCIe */

  guint       copy_engines;          /* DMA engines usable concurrently with compute */

  /* Fixed costs, in virtual ns. */
  TsTime      launch_latency_ns;     /* host side of cudaLaunchKernel / cudaMemcpyAsync */
  TsTime      api_latency_ns;        /* host side of a cheap runtime call (event record, query) */
  TsTime      kernel_overhead_ns;    /* device side: the shortest kernel */
  TsTime      copy_overhead_ns;      /* device side: DMA set-up of one copy */
  TsTime      op_dispatch_ns;        /* host side of PyTorch's dispatcher before an op's
                                      * launch (0: folded into launch_latency_ns) */
  TsTime      host_cost_ns[TS_N_HOST_COSTS]; /* host time between ops, per construct
                                              * (all 0: not modelled) */

  /* cudaDeviceGetStreamPriorityRange: least (0) and greatest (negative). */
  int         least_priority;
  int         greatest_priority;
} TsGpuProfile;

const TsGpuProfile  *ts_gpu_profile_lookup     (const char  *key);
const TsGpuProfile  *ts_gpu_profile_get_default (void);
/* Every known key, NULL-terminated; the caller frees the array only. */
const char         **ts_gpu_profile_list_keys  (void);
/* The models in the order the app lists them, the default first. */
guint                ts_gpu_profile_get_n_profiles (void);
const TsGpuProfile  *ts_gpu_profile_get_nth    (guint        i);
/* "h100, gtx1080ti, h200": for error messages. */
char                *ts_gpu_profile_dup_known  (void);

/* The priority range PyTorch exposes for this model: at most four levels,
 * (0, max (-3, greatest)), as torch.cuda.Stream.priority_range() reports. */
void                 ts_gpu_profile_get_torch_priority_range (const TsGpuProfile *self,
                                                              int                *least,
                                                              int                *greatest);

G_END_DECLS
