/* ts-ops-more.c: the float32 matmul precision the cost model reads
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * torch.set_float32_matmul_precision ("high" or "medium") and
 * torch.backends.cuda.matmul.allow_tf32 = True let cuBLAS run float32
 * matmuls on TF32 tensor cores. The values are unchanged here (the
 * kernels compute in float32); the flops rate of the launch is the GPU
 * profile's tf32_flops instead of fp32_flops (docs/simulation-model.md).
 */

#include "config.h"

#include "ts-ops.h"

static gboolean float32_matmul_tf32;

void
ts_ops_set_float32_matmul_tf32 (gboolean allow)
{
  float32_matmul_tf32 = !!allow;
}

gboolean
ts_ops_get_float32_matmul_tf32 (void)
{
  return float32_matmul_tf32;
}

/* The math a matmul (mm, bmm) of @dtype runs: half types on the FP16/BF16
 * tensor cores, float32 on TF32 ones when allowed, else plain FP32 (and
 * float64, whose rate the profiles do not model apart). */
TsPrecision
ts_ops_matmul_precision (TsDType dtype)
{
  if (dtype == TS_DTYPE_FLOAT16 || dtype == TS_DTYPE_BFLOAT16)
    return TS_PRECISION_FP16;
  if (dtype == TS_DTYPE_FLOAT32 && float32_matmul_tf32)
    return TS_PRECISION_TF32;
  return TS_PRECISION_FP32;
}
