/* ts-autograd-anomaly.c: anomaly mode (torch.autograd.detect_anomaly)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PyTorch's AnomalyMode: one process-wide flag. With it on, every node
 * keeps where its forward ran (the binding's capture hook: a Python
 * traceback), an error in a node's backward reports it (the report hook:
 * PyTorch's "Error detected in X. Traceback of forward call that caused
 * the error:" warning), and with check_nan each result of a formula is
 * read back and a NaN fails the pass. Reading back synchronizes a device,
 * as PyTorch's isnan().any().item() does.
 */

#include "config.h"

#include <math.h>

#include "ts-autograd-private.h"
#include "ts-ops.h"

static gboolean anomaly_enabled, anomaly_check_nan;
static TsAutogradAnomalyHooks anomaly_hooks;

void
ts_autograd_set_anomaly_enabled (gboolean enabled,
                                 gboolean check_nan)
{
  anomaly_enabled = enabled;
  anomaly_check_nan = check_nan;
}

gboolean
ts_autograd_is_anomaly_enabled (void)
{
  return anomaly_enabled;
}

gboolean
ts_autograd_is_anomaly_check_nan_enabled (void)
{
  return anomaly_check_nan;
}

void
ts_autograd_set_anomaly_hooks (const TsAutogradAnomalyHooks *hooks)
{
  anomaly_hooks = *hooks;
}

void
ts_autograd_anomaly_capture (TsGradNode *node)
{
  if (anomaly_enabled && anomaly_hooks.capture != NULL)
    node->anomaly = anomaly_hooks.capture ();
}

void
ts_autograd_anomaly_free (gpointer metadata)
{
  if (anomaly_hooks.free != NULL)
    anomaly_hooks.free (metadata);
}

void
ts_autograd_anomaly_report (TsGradNode *node)
{
  if (anomaly_enabled && anomaly_hooks.report != NULL)
    anomaly_hooks.report (node->name, node->anomaly);
}

static gboolean
has_nan (TsTensor *t)
{
  g_autoptr(TsTensor) host = NULL;
  gint64 n = ts_tensor_numel (t);

  if (!ts_dtype_is_floating (t->dtype) || (host = ts_ops_to_host (t, NULL)) == NULL)
    return FALSE;
  for (gint64 i = 0; i < n; i++)
    if (isnan (ts_tensor_get_double (host, i)))
      return TRUE;
  return FALSE;
}

gboolean
ts_autograd_anomaly_check (TsGradNode  *node,
                           TsTensor   **results,
                           guint        n_results,
                           GError     **error)
{
  if (!anomaly_enabled || !anomaly_check_nan)
    return TRUE;
  for (guint i = 0; i < n_results; i++)
    if (results[i] != NULL && has_nan (results[i]))
      {
        g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                     "Function '%s' returned nan values in its %uth output.", node->name, i);
        return FALSE;
      }
  return TRUE;
}
