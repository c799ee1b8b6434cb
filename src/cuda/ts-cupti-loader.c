/* ts-cupti-loader.c: libcupti, opened at run time
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <dlfcn.h>
#include <time.h>

#include "ts-cupti-loader.h"

#define TS_CUPTI_BUFFER_SIZE (8u << 20)

#ifndef TS_CUDA_ROOT
#define TS_CUDA_ROOT "/usr/local/cuda"
#endif

G_DEFINE_QUARK (ts-cupti-error-quark, ts_cupti_error)

static const char *const cupti_candidates[] = {
  "libcupti.so.13",
  "libcupti.so",
  TS_CUDA_ROOT "/lib64/libcupti.so",
  TS_CUDA_ROOT "/extras/CUPTI/lib64/libcupti.so",
};

static void *
open_library (GError **error)
{
  const char *override = g_getenv (TS_CUPTI_ENV_PATH);
  g_autofree char *first_error = NULL;
  void *handle;

  if (override != NULL && *override != '\0')
    {
      handle = dlopen (override, RTLD_NOW | RTLD_GLOBAL);
      if (handle == NULL)
        g_set_error (error, TS_CUPTI_ERROR, TS_CUPTI_ERROR_LOAD,
                     "could not load libcupti from %s=%s: %s",
                     TS_CUPTI_ENV_PATH, override, dlerror ());
      return handle;
    }

  for (guint i = 0; i < G_N_ELEMENTS (cupti_candidates); i++)
    {
      handle = dlopen (cupti_candidates[i], RTLD_NOW | RTLD_GLOBAL);
      if (handle != NULL)
        return handle;
      /* The first failure says the most (the soname the system lacks). */
      if (first_error == NULL)
        first_error = g_strdup (dlerror ());
    }
  g_set_error (error, TS_CUPTI_ERROR, TS_CUPTI_ERROR_LOAD,
               "could not load libcupti (%s); set %s to its path",
               first_error, TS_CUPTI_ENV_PATH);
  return NULL;
}

gboolean
ts_cupti_load (TsCuptiFuncs  *funcs,
               GError       **error)
{
  TsCuptiFuncs loaded = { 0 };
  void *handle;

  g_return_val_if_fail (funcs != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  handle = open_library (error);
  if (handle == NULL)
    return FALSE;

#define TS_CUPTI_RESOLVE(name) \
  if ((*(void **)&loaded.name = dlsym (handle, #name)) == NULL) \
    { \
      g_set_error (error, TS_CUPTI_ERROR, TS_CUPTI_ERROR_LOAD, \
                   "could not load libcupti: it has no %s (a CUPTI older than CUDA 13?)", #name); \
      dlclose (handle); \
      return FALSE; \
    }
  TS_CUPTI_FUNCS (TS_CUPTI_RESOLVE)
#undef TS_CUPTI_RESOLVE

  *funcs = loaded;
  return TRUE;
}

char *
ts_cupti_result_text (const TsCuptiFuncs *funcs,
                      CUptiResult         result)
{
  const char *text = NULL;

  g_return_val_if_fail (funcs != NULL, NULL);

  if (funcs->cuptiGetResultString == NULL ||
      funcs->cuptiGetResultString (result, &text) != CUPTI_SUCCESS ||
      text == NULL)
    return g_strdup_printf ("CUPTI error %d", (int)result);
  return g_strdup (text);
}

guint64
ts_cupti_clock (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64)ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + (guint64)ts.tv_nsec;
}

void CUPTIAPI
ts_cupti_buffer_requested (uint8_t **buffer,
                           size_t   *size,
                           size_t   *max_num_records)
{
  *buffer = g_aligned_alloc (1, TS_CUPTI_BUFFER_SIZE, 8);
  *size = TS_CUPTI_BUFFER_SIZE;
  *max_num_records = 0;
}
