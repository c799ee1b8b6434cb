/* ts-fake-cuda.h: test-only introspection of the fake CUDA module
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libtensorscope-fake-cuda.so is a test double of the CUDA backend module
 * (see ts-fake-cuda.c). Besides ts_cuda_kernels_get() it exports these
 * two symbols, which a test looks up with g_module_symbol() on the same
 * module path; nothing else may rely on them.
 */

#pragma once

#include <stdint.h>

typedef struct
{
  uint64_t launches;   /* kernels that ran (including ones that asserted) */
  uint64_t copies;     /* memcpy_async, memcpy_sync, memcpy_peer_async */
  uint64_t memsets;
  uint64_t mallocs;    /* successful malloc_device calls */
  uint64_t frees;      /* successful free_device calls */
} TsFakeCudaCounters;

typedef void (*TsFakeCudaGetCounters)   (TsFakeCudaCounters *counters);
/* The virtual clock of @stream (NULL: the current device's legacy default
 * stream), in picoseconds; 0 when the stream is unknown. */
typedef uint64_t (*TsFakeCudaGetStreamTime) (void *stream);

void     ts_fake_cuda_get_counters    (TsFakeCudaCounters *counters);
uint64_t ts_fake_cuda_get_stream_time (void               *stream);
