/* test-cupti-activity.c: the workload runner's CUPTI activity source
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Starts the source for real: libcupti is opened and asked to collect. On
 * a machine without the NVIDIA driver CUPTI refuses, and start must say so
 * with a GError (no crash, nothing left claimed: a second start gives the
 * same answer); on a machine with a GPU start succeeds, the device work of
 * CUDA calls made between a push and a pop carries our correlation id, and
 * stop works. A libcupti that cannot be loaded, or a library that is not
 * libcupti, gives "could not load". The translation itself is tested on
 * synthetic buffers in test-cupti-translate.c.
 */

#include "config.h"

#include <dlfcn.h>
#include <string.h>

#include "ts-cupti-activity.h"

static gboolean
have_driver (void)
{
  void *handle = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

  if (handle == NULL)
    return FALSE;
  dlclose (handle);
  return TRUE;
}

static void
assert_no_records (TsRecorder *rec)
{
  for (guint kind = 0; kind < TS_N_RECORD_KINDS; kind++)
    g_assert_cmpuint (ts_recorder_get_count (rec, kind), ==, 0);
}

typedef int (*MallocFunc) (void **ptr, size_t size);
typedef int (*MemsetFunc) (void *ptr, int value, size_t size);
typedef int (*SyncFunc) (void);
typedef int (*FreeFunc) (void *ptr);

/* Only on a GPU: a memset made between push (4242) and pop, to come back
 * from the hardware with our id. cudart is dlopened: nothing here links a
 * CUDA library. FALSE when there is no cudart to call. */
static gboolean
memset_on_gpu (TsCuptiActivity *activity)
{
  void *cudart = dlopen ("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
  MallocFunc cuda_malloc;
  MemsetFunc cuda_memset;
  SyncFunc cuda_sync;
  FreeFunc cuda_free;
  void *ptr = NULL;

  if (cudart == NULL)
    cudart = dlopen (TS_CUDA_ROOT "/lib64/libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
  if (cudart == NULL)
    {
      g_test_message ("no libcudart: %s", dlerror ());
      return FALSE;
    }
  cuda_malloc = (MallocFunc)dlsym (cudart, "cudaMalloc");
  cuda_memset = (MemsetFunc)dlsym (cudart, "cudaMemset");
  cuda_sync = (SyncFunc)dlsym (cudart, "cudaDeviceSynchronize");
  cuda_free = (FreeFunc)dlsym (cudart, "cudaFree");
  g_assert_nonnull (cuda_malloc);
  g_assert_nonnull (cuda_memset);
  g_assert_nonnull (cuda_sync);
  g_assert_nonnull (cuda_free);

  g_assert_cmpint (cuda_malloc (&ptr, 4096), ==, 0);
  ts_cupti_activity_push_correlation (activity, 4242);
  g_assert_cmpint (cuda_memset (ptr, 0xab, 4096), ==, 0);
  ts_cupti_activity_pop_correlation (activity);
  g_assert_cmpint (cuda_sync (), ==, 0);
  ts_cupti_activity_flush (activity);
  g_assert_cmpint (cuda_free (ptr), ==, 0);
  return TRUE;
}

static void
check_memset (TsRecorder *rec)
{
  gboolean found = FALSE;

  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_MEMSET); i++)
    {
      TsMemsetRecord m;

      g_assert_true (ts_recorder_get (rec, TS_RECORD_MEMSET, i, &m));
      if (m.correlation == 4242)
        {
          g_assert_cmpuint (m.bytes, ==, 4096);
          g_assert_cmpuint (m.value, ==, 0xab);
          g_assert_cmpint (m.end, >=, m.start);
          found = TRUE;
        }
    }
  g_assert_true (found);
}

static void
test_start (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) again = NULL;
  TsCuptiActivity *activity;

  activity = ts_cupti_activity_start (rec, &error);
  if (activity != NULL)
    {
      g_autoptr(TsRecorder) other = ts_recorder_new ();
      g_autoptr(GError) busy = NULL;

      g_test_message ("CUPTI started: a GPU is present");
      g_assert_no_error (error);
      /* One source per process: CUPTI's callbacks are global. */
      g_assert_null (ts_cupti_activity_start (other, &busy));
      g_assert_error (busy, TS_CUPTI_ERROR, TS_CUPTI_ERROR_BUSY);
      g_assert_cmpuint (ts_cupti_activity_get_dropped (activity), ==, 0);
      g_assert_cmpint (ts_cupti_activity_now (activity), >=, 0);
      if (memset_on_gpu (activity))
        {
          /* Translated by the flush or by stop's forced flush. */
          ts_cupti_activity_stop (activity);
          check_memset (rec);
        }
      else
        ts_cupti_activity_stop (activity);
      /* Stopped: a new source may start. */
      activity = ts_cupti_activity_start (other, &again);
      g_assert_no_error (again);
      g_assert_nonnull (activity);
      ts_cupti_activity_stop (activity);
      return;
    }

  g_test_message ("%s", error->message);
  if (!have_driver ())
    {
      /* This build machine: the toolkit, no driver. */
      g_assert_error (error, TS_CUPTI_ERROR, TS_CUPTI_ERROR_NO_DRIVER);
      g_assert_true (g_str_has_prefix (error->message, "CUPTI could not "));
      g_assert_nonnull (strstr (error->message, ": there is no NVIDIA driver (libcuda.so.1: "));
    }
  else
    {
      /* A driver and no usable GPU: CUPTI's own answer. */
      g_assert_error (error, TS_CUPTI_ERROR, TS_CUPTI_ERROR_FAILED);
      g_assert_true (g_str_has_prefix (error->message, "CUPTI could not "));
    }
  /* Nothing was written, and nothing stays claimed or enabled. */
  assert_no_records (rec);
  g_assert_null (ts_cupti_activity_start (rec, &again));
  g_assert_error (again, error->domain, error->code);
  g_assert_cmpstr (again->message, ==, error->message);
}

static void
test_missing_library (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(GError) error = NULL;

  /* A path the user names is the only one tried. */
  g_setenv (TS_CUPTI_ENV_PATH, "/nonexistent/libcupti.so.13", TRUE);
  g_assert_null (ts_cupti_activity_start (rec, &error));
  g_assert_error (error, TS_CUPTI_ERROR, TS_CUPTI_ERROR_LOAD);
  g_assert_true (g_str_has_prefix (error->message,
                                   "could not load libcupti from TENSORSCOPE_CUPTI_PATH=/nonexistent/libcupti.so.13: "));
  g_assert_nonnull (strstr (error->message, "No such file or directory"));
  g_clear_error (&error);

  /* A library that is not libcupti. */
  g_setenv (TS_CUPTI_ENV_PATH, "libm.so.6", TRUE);
  g_assert_null (ts_cupti_activity_start (rec, &error));
  g_assert_error (error, TS_CUPTI_ERROR, TS_CUPTI_ERROR_LOAD);
  g_assert_cmpstr (error->message, ==, "could not load libcupti: it has no cuptiSubscribe (a CUPTI older than CUDA 13?)");
  g_unsetenv (TS_CUPTI_ENV_PATH);
  assert_no_records (rec);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cupti/activity/start", test_start);
  g_test_add_func ("/cupti/activity/missing-library", test_missing_library);
  return g_test_run ();
}
