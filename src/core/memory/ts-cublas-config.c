/* ts-cublas-config.c: the sizes of the cuBLAS workspaces, from the environment
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PyTorch finds the ":SIZE:COUNT" pairs with std::regex; GRegex does the
 * same search here (a leftmost match, then the next from its end). The
 * numbers are read as std::stoull and std::stoi read them, because that
 * decides which strings PyTorch accepts and what it makes of them.
 */

#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "ts-cublas-config.h"

#define KiB G_GUINT64_CONSTANT (1024)
#define LT_DEFAULT_KIB 1024

G_DEFINE_QUARK (ts-cublas-config-error-quark, ts_cublas_config_error)

void
ts_cublas_env_get (TsCublasEnv *env)
{
  env->workspace_config = g_getenv ("CUBLAS_WORKSPACE_CONFIG");
  env->lt_workspace_size = g_getenv ("CUBLASLT_WORKSPACE_SIZE");
  env->lt_unified = g_getenv ("TORCH_CUBLASLT_UNIFIED_WORKSPACE");
  env->disable_addmm_lt = g_getenv ("DISABLE_ADDMM_CUDA_LT");
}

static void
warn (GPtrArray  *warnings,
      char       *message)
{
  if (warnings != NULL)
    g_ptr_array_add (warnings, message);
  else
    g_free (message);
}

/* Hopper (9.0) gets 32 MiB; the sum of the default ":4096:2:16:8" on the
 * others, Blackwell included, as in PyTorch's parseChosenWorkspaceSize. */
static guint64
default_workspace_size (guint cc_major,
                        guint cc_minor)
{
  if (cc_major == 9 && cc_minor == 0)
    return 4096 * 8 * KiB;
  return 4096 * 2 * KiB + 16 * 8 * KiB;
}

/* std::stoull of a run of digits: only too many of them fails. */
static gboolean
stoull (const char *digits,
        guint64    *value,
        GError    **error)
{
  if (g_ascii_string_to_unsigned (digits, 10, 0, G_MAXUINT64, value, NULL))
    return TRUE;
  g_set_error_literal (error, TS_CUBLAS_CONFIG_ERROR, TS_CUBLAS_CONFIG_ERROR_OUT_OF_RANGE, "stoull");
  return FALSE;
}

static gboolean
parse_workspace_config (const char *str,
                        guint64     fallback,
                        guint64    *size,
                        GPtrArray  *warnings,
                        GError    **error)
{
  static GRegex *pair;
  g_autoptr(GMatchInfo) match = NULL;
  guint64 total = 0;

  if (str == NULL)
    {
      *size = fallback;
      return TRUE;
    }
  if (g_once_init_enter (&pair))
    g_once_init_leave (&pair, g_regex_new (":([0-9]+):([0-9]+)", G_REGEX_OPTIMIZE | G_REGEX_RAW, 0, NULL));
  if (!g_regex_match (pair, str, 0, &match))
    {
      warn (warnings, g_strdup_printf ("Could not parse CUBLAS_WORKSPACE_CONFIG, using default workspace "
                                       "size of %" G_GUINT64_FORMAT " bytes.", fallback));
      *size = fallback;
      return TRUE;
    }
  for (; g_match_info_matches (match); g_match_info_next (match, NULL))
    {
      g_autofree char *size_kib = g_match_info_fetch (match, 1);
      g_autofree char *count = g_match_info_fetch (match, 2);
      guint64 s, c;

      if (!stoull (size_kib, &s, error) || !stoull (count, &c, error))
        return FALSE;
      total += s * KiB * c;  /* size_t arithmetic: wraps */
    }
  *size = total;
  return TRUE;
}

/* std::stoi, then the KiB in size_t: a negative value wraps. */
static guint64
parse_lt_size (const char *str,
               GPtrArray  *warnings)
{
  const char *problem = NULL;
  gint64 kib = LT_DEFAULT_KIB;

  if (str != NULL)
    {
      char *end = NULL;
      gint64 v;

      errno = 0;
      v = g_ascii_strtoll (str, &end, 10);
      if (end == str)
        problem = "invalid CUBLASLT_WORKSPACE_SIZE,";
      else if (errno == ERANGE || v < G_MININT || v > G_MAXINT)
        problem = "CUBLASLT_WORKSPACE_SIZE out of range,";
      else
        kib = v;
    }
  if (problem != NULL)
    warn (warnings, g_strdup_printf ("%s using default workspace size of %d KiB.", problem, LT_DEFAULT_KIB));
  return (guint64) kib * KiB;
}

/* c10::utils::check_env: "1" TRUE, "0" FALSE, unset or else (which
 * warns) neither. */
static int
check_env (const char *name,
           const char *value,
           GPtrArray  *warnings)
{
  if (value == NULL)
    return -1;
  if (g_str_equal (value, "0"))
    return FALSE;
  if (g_str_equal (value, "1"))
    return TRUE;
  warn (warnings, g_strdup_printf ("Ignoring invalid value for boolean flag %s: %svalid values are 0 or 1.",
                                   name, value));
  return -1;
}

gboolean
ts_cublas_config_parse (TsCublasConfig    *config,
                        const TsCublasEnv *env,
                        guint              cc_major,
                        guint              cc_minor,
                        GPtrArray         *warnings,
                        GError           **error)
{
  guint64 workspace, lt;
  int unified;

  if (!parse_workspace_config (env->workspace_config, default_workspace_size (cc_major, cc_minor), &workspace,
                               warnings, error))
    return FALSE;
  /* PyTorch's order at the first Lt GEMM: getCUDABlasLtWorkspace checks
   * the flag before it sizes the new workspace */
  unified = check_env ("TORCH_CUBLASLT_UNIFIED_WORKSPACE", env->lt_unified, warnings);
  lt = parse_lt_size (env->lt_workspace_size, warnings);
  /* PyTorch caps the Lt size unless the flag is "0" (its size function
   * reads unset as on), but shares the workspace only when it is "1" */
  if (unified != FALSE && workspace < lt)
    {
      warn (warnings, g_strdup_printf ("Requested unified CUBLASLT workspace size of %" G_GUINT64_FORMAT
                                       " bytes exceeds CUBLAS workspace size of %" G_GUINT64_FORMAT
                                       " bytes. Please increase CUBLAS workspace size via "
                                       "CUBLAS_WORKSPACE_CONFIG or decrease requested CUBLASLT_WORKSPACE_SIZE. "
                                       "Otherwise CUBLASLT workspace size will be limited to the CUBLAS "
                                       "workspace size.", lt, workspace));
      lt = workspace;
    }
  config->workspace_size = workspace;
  config->lt_workspace_size = lt;
  config->lt_shared = unified == TRUE;
  config->addmm_lt = g_strcmp0 (env->disable_addmm_lt, "1") != 0;
  return TRUE;
}
