/* ts-gpu-probe.h: whether this machine has a GPU that can run workloads
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define TS_TYPE_GPU_PROBE (ts_gpu_probe_get_type ())

G_DECLARE_FINAL_TYPE (TsGpuProbe, ts_gpu_probe, TS, GPU_PROBE, GObject)

TsGpuProbe *ts_gpu_probe_get_default        (void);
TsGpuProbe *ts_gpu_probe_new                (const char *module_path);
gboolean    ts_gpu_probe_get_done           (TsGpuProbe *self);
void        ts_gpu_probe_wait               (TsGpuProbe *self);
gboolean    ts_gpu_probe_get_available      (TsGpuProbe *self);
guint       ts_gpu_probe_get_n_devices      (TsGpuProbe *self);
const char *ts_gpu_probe_get_device_name    (TsGpuProbe *self);
const char *ts_gpu_probe_get_error_message  (TsGpuProbe *self);

G_END_DECLS
