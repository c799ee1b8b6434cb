/* ts-cuda-device-private.h: the runtime's device side on a real GPU
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * On the simulator the runtime's device side (ts-device-side.h) is the
 * TsScheduler. On a real GPU it is this: the runtime keeps its bookkeeping
 * (stream ids, events, API records, correlation ids, NVTX) and hands the
 * device side to the CUDA module's table (ts-cuda-kernels.h). Host time is
 * the real monotonic clock.
 *
 * Device records (kernels, copies, memsets) come from the hardware, timed
 * one of two ways:
 *  - an activity source (CUPTI, installed by the caller): the device
 *    pushes each launch's correlation id around the launch, and the source
 *    writes the records with GPU timestamps;
 *  - without one, a pair of CUDA events around each item, read back once
 *    the item has completed (what PyTorch's legacy profiler did). Each
 *    item's times are its events' offsets from a base event recorded when
 *    the device started, plus the host time of that base.
 *
 * Not thread-safe: the runtime's lock covers it.
 */

#pragma once

#include "ts-cuda-kernels.h"
#include "ts-device-side.h"
#include "ts-recorder.h"
#include "ts-runtime.h"

G_BEGIN_DECLS

typedef struct _TsCudaDevice TsCudaDevice;

/* Opens the GPUs behind the CUDA module's table: their count, and a
 * profile of device 0 over base, with its real name, SMs, memory and
 * priority range (all devices are taken to be alike, as the simulator's
 * are). NULL with an error when there is no device or it cannot be asked. */
TsCudaDevice       *ts_cuda_device_open          (const TsCudaKernels     *kernels,
                                                  const TsActivitySource  *activity,
                                                  TsRecorder              *recorder,
                                                  const TsGpuProfile      *base,
                                                  GError                 **error);
/* Waits for every device and writes every pending record (stopping the
 * activity source, whose last buffers come only then), then frees. */
void                ts_cuda_device_free          (TsCudaDevice            *self);
guint               ts_cuda_device_get_n_devices (TsCudaDevice            *self);
const TsGpuProfile *ts_cuda_device_get_profile   (TsCudaDevice            *self);
/* The runtime's device side; its free frees self. */
TsDeviceSide        ts_cuda_device_get_side      (TsCudaDevice            *self);

G_END_DECLS
