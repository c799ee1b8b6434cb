/* ts-test-trace.h: deterministic synthetic traces for tests and benchmarks
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A trace shaped like a small training loop, written straight into a
 * recorder: per step, NVTX ranges on the main thread, aten ops wrapping
 * their launches, kernels on a compute stream per device, copies on a copy
 * stream (host to device in, device to host out), a memset, an event
 * recorded after the copy and waited on by the compute stream, allocator
 * counters, and a stream synchronize that blocks the host. The same options
 * and seed always give the same records.
 */

#pragma once

#include "ts-allocator.h"
#include "ts-device-memory.h"
#include "ts-recorder.h"

G_BEGIN_DECLS

typedef struct
{
  guint   n_devices;          /* default 2 */
  guint   n_streams;          /* streams per device besides the default one; default 2 */
  guint   n_steps;            /* training steps; default 4 */
  guint   kernels_per_step;   /* kernels per device per step; default 8 */
  guint64 seed;               /* default 1 */
} TsTestTraceOptions;

/* Fills a new recorder; options may be NULL for the defaults. */
TsRecorder *ts_test_trace_new        (const TsTestTraceOptions *options);

/* How many records ts_test_trace_new() writes for these options (all kinds
 * together), so a benchmark can size a trace. */
guint64     ts_test_trace_count      (const TsTestTraceOptions *options);

/* Writes everything in recorder to a trace file at path. */
gboolean    ts_test_trace_write      (TsRecorder               *recorder,
                                      const char               *path,
                                      GError                  **error);

/* A TsAllocator backend over simulated device memory whose events have
 * always completed (deferred frees land at once); its clock reads `now`,
 * which the test sets. Pass &ts_test_memory_backend with a
 * TsTestMemory as user data. The allocator tests, which decide when
 * events complete, use test-fake-allocator-backend.h instead. */
typedef struct
{
  TsDeviceMemory *mem;
  TsTime          now;
} TsTestMemory;

extern const TsAllocatorBackend ts_test_memory_backend;

G_END_DECLS
