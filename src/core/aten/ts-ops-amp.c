/* ts-ops-amp.c: GradScaler's ops, the AMP family
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The host parts of _amp_foreach_non_finite_check_and_unscale_ and
 * _amp_update_scale_ with PyTorch 1.13's checks (AmpKernels.cu); the
 * kernels are src/kernels/cpu/ts-cpu-amp.c. Both run where their tensors
 * are, so on a GPU they are launches on the current stream and nothing
 * here waits for them: GradScaler.step's found_inf.item() does.
 */

#include "config.h"

#include "ts-op-table.h"
#include "ts-ops-amp.h"
#include "ts-ops-private.h"

gboolean
ts_ops_amp_job (TsOpJob  *job,
                GError  **error)
{
  TsView v[4];
  TsOpJobArgs args;

  ts_op_job_unpack (job, v, &args);
  if (ts_op_job_desc (job)->kernel == 0)
    return ts_cpu_amp_unscale (&v[0], &v[1], &v[2], error);
  return ts_cpu_amp_update_scale (&v[0], &v[1], &v[2], args.p0, args.p1, args.arg, error);
}

static gboolean
check (gboolean    ok,
       const char *message,
       GError    **error)
{
  if (!ok)
    g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME, message);
  return ok;
}

/* reads and writes its slot 0 */
static TsKernelCost
self_cost (TsOpJob *job)
{
  TsView v;

  ts_op_job_view (job, 0, &v);
  return ts_cost_copy (&v, &v);
}

static gboolean
unscale_each (TsTensor *const *grads,
              guint            n_grads,
              TsTensor        *found_inf,
              TsTensor        *inv_scale,
              GError         **error)
{
  for (guint i = 0; i < n_grads; i++)
    {
      TsTensor *operands[3] = { grads[i], found_inf, inv_scale };
      TsDevice device;
      TsOpJob *job;

      if (!ts_ops_common_device (operands, 3, &device, error) ||
          !check (ts_dtype_is_floating (grads[i]->dtype), "scaled_grads must be floating point tensors.", error))
        return FALSE;
      ts_ops_multi_tensor_next (grads[i]);
      if (ts_tensor_numel (grads[i]) == 0)
        continue;
      job = ts_op_job_new (TS_OP_AMP_UNSCALE);
      ts_op_job_set (job, 0, grads[i]);
      ts_op_job_set_output (job, 1, found_inf);
      ts_op_job_set (job, 2, inv_scale);
      if (!ts_op_job_dispatch (job, device, self_cost (job), error))
        return FALSE;
    }
  return TRUE;
}

/* One multi-tensor launch per chunk of the gradients, as PyTorch's
 * multi_tensor_apply (depth 1) */
gboolean
ts_ops_amp_unscale_ (TsTensor *const *grads,
                     guint            n_grads,
                     TsTensor        *found_inf,
                     TsTensor        *inv_scale,
                     GError         **error)
{
  gboolean ok;

  if (!check (ts_tensor_numel (inv_scale) == 1, "inv_scale must be a 1-element tensor.", error) ||
      !check (ts_tensor_numel (found_inf) == 1, "found_inf must be a 1-element tensor.", error) ||
      !check (inv_scale->dtype == TS_DTYPE_FLOAT32, "inv_scale must be a float tensor.", error) ||
      !check (found_inf->dtype == TS_DTYPE_FLOAT32, "found_inf must be a float tensor.", error))
    return FALSE;

  if (!ts_ops_multi_tensor_begin ("_amp_foreach_non_finite_check_and_unscale_", 1, error))
    return FALSE;
  ok = unscale_each (grads, n_grads, found_inf, inv_scale, error);
  /* what was queued before a failing gradient still runs, as in PyTorch */
  return ts_ops_multi_tensor_end (ok ? error : NULL) && ok;
}

gboolean
ts_ops_amp_update_scale_ (TsTensor  *scale,
                          TsTensor  *growth_tracker,
                          TsTensor  *found_inf,
                          double     growth_factor,
                          double     backoff_factor,
                          gint64     growth_interval,
                          GError   **error)
{
  TsTensor *operands[3] = { scale, growth_tracker, found_inf };
  TsDevice device;
  TsOpJob *job;

  if (!check (ts_tensor_numel (scale) == 1, "current_scale must be a 1-element tensor.", error) ||
      !check (ts_tensor_numel (growth_tracker) == 1, "growth_tracker must be a 1-element tensor.", error) ||
      !check (ts_tensor_numel (found_inf) == 1, "found_inf must be a 1-element tensor.", error) ||
      !check (scale->dtype == TS_DTYPE_FLOAT32, "current_scale must be a float tensor.", error) ||
      !check (growth_tracker->dtype == TS_DTYPE_INT32, "growth_tracker must be an int tensor.", error) ||
      !check (found_inf->dtype == TS_DTYPE_FLOAT32, "found_inf must be a float tensor.", error) ||
      !ts_ops_common_device (operands, 3, &device, error))
    return FALSE;

  job = ts_op_job_new (TS_OP_AMP_UPDATE_SCALE);
  ts_op_job_set (job, 0, scale);
  ts_op_job_set_output (job, 1, growth_tracker);
  ts_op_job_set (job, 2, found_inf);
  ts_op_job_set_args (job, growth_interval, 0, 0);
  ts_op_job_set_factors (job, growth_factor, backoff_factor);
  return ts_op_job_dispatch (job, device, self_cost (job), error);
}
