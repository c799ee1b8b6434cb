/* ts-cublas-config.h: the sizes of the cuBLAS workspaces, from the environment
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PyTorch gives every (cuBLAS handle, stream) pair a workspace from the
 * caching allocator (aten/src/ATen/cuda/CublasHandlePool.cpp), sized by
 * CUBLAS_WORKSPACE_CONFIG, and the cuBLASLt calls a second one sized by
 * CUBLASLT_WORKSPACE_SIZE; TORCH_CUBLASLT_UNIFIED_WORKSPACE=1 makes the Lt
 * calls share the first, and DISABLE_ADDMM_CUDA_LT=1 keeps addmm off the
 * Lt path. This parser reads the four strings the way PyTorch 2.11 reads
 * them, so a user who pastes a real run's settings gets the same sizes,
 * the same warnings, or the same error:
 *
 *   CUBLAS_WORKSPACE_CONFIG  every ":SIZE:COUNT" found anywhere in the
 *     string (a regex search, so text around and between them is skipped)
 *     adds SIZE * COUNT KiB, in 64-bit arithmetic that wraps as size_t
 *     does; a string with none warns and keeps the default: 32 MiB on
 *     compute capability 9.0 exactly, 4096 KiB x 2 + 16 KiB x 8 = 8519680
 *     bytes on every other GPU. A number too big for 64 bits is
 *     std::stoull's out_of_range, which reaches Python as RuntimeError
 *     "stoull" at every cuBLAS call.
 *   CUBLASLT_WORKSPACE_SIZE  KiB, read by std::stoi (leading space, a
 *     sign, leading digits; the rest ignored). No digits, or a value out of
 *     int's range, warns and keeps 1024. A negative value wraps to a huge
 *     size_t, as in PyTorch.
 *   TORCH_CUBLASLT_UNIFIED_WORKSPACE  "1": the Lt calls use the cuBLAS
 *     workspace (no second allocation); "0": a separate Lt workspace of
 *     the full size; unset, or anything else (which warns): a separate
 *     one, capped at the cuBLAS workspace's size (with a warning when it
 *     is capped).
 *   DISABLE_ADDMM_CUDA_LT  "1" and nothing else turns addmm's Lt path off.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define TS_CUBLAS_CONFIG_ERROR (ts_cublas_config_error_quark ())

typedef enum
{
  TS_CUBLAS_CONFIG_ERROR_OUT_OF_RANGE,  /* RuntimeError "stoull" */
} TsCublasConfigError;

/* The strings as the environment holds them; NULL: unset. */
typedef struct
{
  const char *workspace_config;   /* CUBLAS_WORKSPACE_CONFIG */
  const char *lt_workspace_size;  /* CUBLASLT_WORKSPACE_SIZE */
  const char *lt_unified;         /* TORCH_CUBLASLT_UNIFIED_WORKSPACE */
  const char *disable_addmm_lt;   /* DISABLE_ADDMM_CUDA_LT */
} TsCublasEnv;

typedef struct
{
  guint64  workspace_size;     /* bytes, per (handle, stream); 0: none is allocated */
  guint64  lt_workspace_size;  /* bytes, per (handle, stream), when !lt_shared */
  gboolean lt_shared;          /* the Lt calls use the cuBLAS workspace */
  gboolean addmm_lt;           /* addmm may take the Lt path */
} TsCublasConfig;

GQuark   ts_cublas_config_error_quark (void);

/* Reads the current process environment into @env (pointers into it). */
void     ts_cublas_env_get            (TsCublasEnv          *env);

/* The sizes for a GPU of compute capability @cc_major.@cc_minor. Each
 * warning PyTorch would print is added to @warnings (strings, owned by
 * the array; NULL: dropped). */
gboolean ts_cublas_config_parse       (TsCublasConfig       *config,
                                       const TsCublasEnv    *env,
                                       guint                 cc_major,
                                       guint                 cc_minor,
                                       GPtrArray            *warnings,
                                       GError              **error);

G_END_DECLS
