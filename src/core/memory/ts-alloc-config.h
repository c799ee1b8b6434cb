/* ts-alloc-config.h: PYTORCH_CUDA_ALLOC_CONF, parsed as PyTorch parses it
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The string is a comma-separated list of key:value options, for example
 * "max_split_size_mb:128,roundup_power2_divisions:[64:8,>:1]". The lexer,
 * the accepted keys, the value checks and the error texts follow
 * c10/cuda/CUDAAllocatorConfig.cpp, so that a user who pastes the setting of
 * a real run gets the same allocator behaviour, or the same error.
 *
 * Error mapping for the Python layer: every TS_ALLOC_CONFIG_ERROR_INVALID is
 * a ValueError with the GError's message; TS_ALLOC_CONFIG_ERROR_UNSUPPORTED
 * (an option PyTorch accepts but Tensorscope does not model) is a
 * RuntimeError.
 */

#pragma once

#include <glib.h>

#include "ts-memory-snapshot.h"

G_BEGIN_DECLS

#define TS_ALLOC_CONFIG_ERROR (ts_alloc_config_error_quark ())

typedef enum
{
  TS_ALLOC_CONFIG_ERROR_INVALID,      /* ValueError */
  TS_ALLOC_CONFIG_ERROR_UNSUPPORTED,  /* RuntimeError: valid, but out of scope */
} TsAllocConfigError;

typedef enum
{
  TS_ALLOC_BACKEND_NATIVE = 0,
  TS_ALLOC_BACKEND_CUDA_MALLOC_ASYNC = 1,
} TsAllocBackendKind;

/* Sizes from 1 MiB up are split into 16 power-of-two intervals for
 * roundup_power2_divisions: [1,2) MiB, [2,4) MiB, ... and [32 GiB, ∞). */
#define TS_ALLOC_CONFIG_N_ROUNDUP_INTERVALS 16

/* "Unset" for max_split_size, as SIZE_MAX is in PyTorch. */
#define TS_ALLOC_CONFIG_MAX_SPLIT_UNSET TS_MEMORY_MAX_SPLIT_UNSET

typedef struct
{
  guint64            max_split_size;               /* bytes; TS_ALLOC_CONFIG_MAX_SPLIT_UNSET */
  guint64            max_non_split_rounding_size;  /* bytes; 20 MiB */
  guint64            roundup_power2_divisions[TS_ALLOC_CONFIG_N_ROUNDUP_INTERVALS]; /* 0 = off */
  double             garbage_collection_threshold; /* 0 = off, else in (0, 1) */
  gboolean           expandable_segments;
  gboolean           release_lock_on_cudamalloc;
  gboolean           pinned_use_cuda_host_register;
  guint              pinned_num_register_threads;  /* power of 2, at most 128; 1 */
  TsAllocBackendKind backend;
} TsAllocConfig;

GQuark   ts_alloc_config_error_quark        (void);

/* Fills in PyTorch's defaults. */
void     ts_alloc_config_init               (TsAllocConfig       *config);

/* Applies a PYTORCH_CUDA_ALLOC_CONF string the way PyTorch's parseArgs does:
 * max_split_size, max_non_split_rounding, roundup_power2_divisions and
 * garbage_collection_threshold go back to their defaults first, then every
 * option in the string is applied; the other options keep their earlier
 * values unless the string names them. NULL only resets those four.
 *
 * Unlike PyTorch, which leaves the options before a bad one applied, a
 * failed parse leaves *config untouched. */
gboolean ts_alloc_config_parse              (TsAllocConfig       *config,
                                             const char          *str,
                                             GError             **error);
/* The same for a string of len bytes that need not be NUL-terminated (the
 * fuzz target's entry point). */
gboolean ts_alloc_config_parse_len          (TsAllocConfig       *config,
                                             const char          *str,
                                             gsize                len,
                                             GError             **error);

/* The divisions that apply to a request of size bytes (0 or 1: none). */
guint64  ts_alloc_config_roundup_divisions  (const TsAllocConfig *config,
                                             guint64              size);

/* Most register threads pinned_num_register_threads may ask for. */
#define TS_ALLOC_CONFIG_MAX_REGISTER_THREADS 128

G_END_DECLS
