/* ts-cupti-activity.c: device work of our own runtime, timed by CUPTI
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * CUPTI hands activity buffers back through process-wide callbacks with no
 * user data, possibly on a thread of its own: the running source is a
 * static pointer, guarded by a mutex that the buffer callback holds while
 * it translates (so that stop cannot free the source under it).
 */

#include "config.h"

#include <dlfcn.h>
#include <stdio.h>

#include "ts-cupti-activity.h"
#include "ts-runtime.h"
#include "ts-cupti-translate.h"

#define EXTERNAL_KIND CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0

struct _TsCuptiActivity
{
  TsRecorder         *recorder;
  TsCuptiTranslator  *translator;
  TsCuptiFuncs        cupti;
  guint64             time_base;
  guint               n_enabled;
  CUpti_ActivityKind  enabled[16];
};

typedef struct
{
  CUpti_ActivityKind kind;
  const char        *name;
} ActivityKind;

/* RUNTIME and DRIVER give API records we do not translate, but CUPTI
 * writes external correlation records only next to API records of an
 * enabled kind: without them no device record could be mapped. */
static const ActivityKind activity_kinds[] = {
  { CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE" },
  { CUPTI_ACTIVITY_KIND_CONTEXT, "CONTEXT" },
  { CUPTI_ACTIVITY_KIND_STREAM, "STREAM" },
  { CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL" },
  { CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY" },
  { CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2" },
  { CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET" },
  { CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION" },
  { CUPTI_ACTIVITY_KIND_CUDA_EVENT, "CUDA_EVENT" },
  { CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION" },
  { CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME" },
  { CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER" },
};

G_STATIC_ASSERT (G_N_ELEMENTS (activity_kinds) <= 16);

static GMutex           active_mutex;
static TsCuptiActivity *active;

static uint64_t CUPTIAPI
timestamp (void)
{
  return ts_cupti_clock ();
}

static void CUPTIAPI
buffer_completed (CUcontext context,
                  uint32_t  stream_id,
                  uint8_t  *buffer,
                  size_t    size,
                  size_t    valid_size)
{
  g_mutex_lock (&active_mutex);
  /* A buffer CUPTI returns after stop (or after a failed start) has no
   * source to go to. */
  if (active != NULL)
    ts_cupti_translator_complete_buffer (active->translator, context, stream_id, buffer, valid_size,
                                         active->cupti.cuptiActivityGetNextRecord,
                                         active->cupti.cuptiActivityGetNumDroppedRecords);
  g_mutex_unlock (&active_mutex);
  g_aligned_free (buffer);
}

/* CUPTI says CUPTI_ERROR_UNKNOWN when there is no driver at all: asking
 * the loader for the driver tells that case apart. */
static char *
missing_driver (void)
{
  void *handle = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

  if (handle != NULL)
    {
      dlclose (handle);
      return NULL;
    }
  return g_strdup (dlerror ());
}

static gboolean
check (TsCuptiActivity  *self,
       CUptiResult       result,
       const char       *what,
       GError          **error)
{
  g_autofree char *text = NULL;
  g_autofree char *no_driver = NULL;

  if (result == CUPTI_SUCCESS)
    return TRUE;
  text = ts_cupti_result_text (&self->cupti, result);
  no_driver = missing_driver ();
  if (no_driver != NULL)
    g_set_error (error, TS_CUPTI_ERROR, TS_CUPTI_ERROR_NO_DRIVER,
                 "CUPTI could not %s: %s: there is no NVIDIA driver (%s)", what, text, no_driver);
  else
    g_set_error (error, TS_CUPTI_ERROR, TS_CUPTI_ERROR_FAILED,
                 "CUPTI could not %s: %s", what, text);
  return FALSE;
}

static void
disable_all (TsCuptiActivity *self)
{
  while (self->n_enabled > 0)
    self->cupti.cuptiActivityDisable (self->enabled[--self->n_enabled]);
}

static gboolean
enable_all (TsCuptiActivity  *self,
            GError          **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (activity_kinds); i++)
    {
      g_autofree char *what = g_strdup_printf ("enable %s activity records", activity_kinds[i].name);

      if (!check (self, self->cupti.cuptiActivityEnable (activity_kinds[i].kind), what, error))
        {
          disable_all (self);
          return FALSE;
        }
      self->enabled[self->n_enabled++] = activity_kinds[i].kind;
    }
  /* Without it CUDA_EVENT records have no device time; not worth failing. */
  self->cupti.cuptiActivityEnableCudaEventDeviceTimestamps (1);
  return TRUE;
}

static void
free_source (TsCuptiActivity *self)
{
  ts_cupti_translator_free (self->translator);
  g_object_unref (self->recorder);
  g_free (self);
}

static gboolean
claim (TsCuptiActivity  *self,
       GError          **error)
{
  gboolean ok;

  g_mutex_lock (&active_mutex);
  ok = active == NULL;
  if (ok)
    active = self;
  g_mutex_unlock (&active_mutex);
  if (!ok)
    g_set_error_literal (error, TS_CUPTI_ERROR, TS_CUPTI_ERROR_BUSY,
                         "a CUPTI activity source is already running in this process");
  return ok;
}

static void
release (TsCuptiActivity *self)
{
  g_mutex_lock (&active_mutex);
  g_assert (active == self);
  active = NULL;
  g_mutex_unlock (&active_mutex);
}

TsCuptiActivity *
ts_cupti_activity_start (TsRecorder  *recorder,
                         GError     **error)
{
  TsCuptiActivity *self;

  g_return_val_if_fail (TS_IS_RECORDER (recorder), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = g_new0 (TsCuptiActivity, 1);
  self->recorder = g_object_ref (recorder);
  /* The runtime's host clock (ts_cuda_device_now) is CLOCK_MONOTONIC from
   * its own origin: the same origin here puts both sides on one axis. */
  self->time_base = ts_cupti_clock () - ts_cuda_device_now ();
  self->translator = ts_cupti_translator_new (recorder, self->time_base);
  ts_cupti_translator_set_external_kind (self->translator, EXTERNAL_KIND);

  if (!ts_cupti_load (&self->cupti, error))
    {
      free_source (self);
      return NULL;
    }
  if (!claim (self, error))
    {
      free_source (self);
      return NULL;
    }
  if (!check (self, self->cupti.cuptiActivityRegisterTimestampCallback (timestamp), "use our clock", error) ||
      !check (self, self->cupti.cuptiActivityRegisterCallbacks (ts_cupti_buffer_requested, buffer_completed),
              "take activity buffers", error) ||
      !enable_all (self, error))
    {
      release (self);
      free_source (self);
      return NULL;
    }
  return self;
}

void
ts_cupti_activity_push_correlation (TsCuptiActivity *self,
                                    guint64          correlation)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (correlation != 0);

  self->cupti.cuptiActivityPushExternalCorrelationId (EXTERNAL_KIND, correlation);
}

void
ts_cupti_activity_pop_correlation (TsCuptiActivity *self)
{
  uint64_t last = 0;

  g_return_if_fail (self != NULL);

  self->cupti.cuptiActivityPopExternalCorrelationId (EXTERNAL_KIND, &last);
}

void
ts_cupti_activity_note_call (TsCuptiActivity       *self,
                             const TsApiCallRecord *record)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (record != NULL);

  ts_cupti_translator_note_call (self->translator, record);
}

void
ts_cupti_activity_flush (TsCuptiActivity *self)
{
  g_return_if_fail (self != NULL);

  self->cupti.cuptiActivityFlushAll (0);
}

guint64
ts_cupti_activity_get_dropped (TsCuptiActivity *self)
{
  TsCuptiStats stats;

  g_return_val_if_fail (self != NULL, 0);

  ts_cupti_translator_get_stats (self->translator, &stats);
  return stats.n_dropped;
}

guint64
ts_cupti_activity_get_unmapped (TsCuptiActivity *self)
{
  TsCuptiStats stats;

  g_return_val_if_fail (self != NULL, 0);

  ts_cupti_translator_get_stats (self->translator, &stats);
  return stats.n_unmapped;
}

guint64
ts_cupti_activity_get_time_base (TsCuptiActivity *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->time_base;
}

TsTime
ts_cupti_activity_now (TsCuptiActivity *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return ts_cupti_translator_time (self->translator, ts_cupti_clock ());
}

static void
report (TsCuptiActivity *self,
        const char      *format,
        ...) G_GNUC_PRINTF (2, 3);

/* A message for the user: on stderr and in the trace as tool output. */
static void
report (TsCuptiActivity *self,
        const char      *format,
        ...)
{
  g_autofree char *text = NULL;
  TsOutputRecord rec = { 0 };
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);

  fprintf (stderr, "tensorscope: %s\n", text);
  rec.time = ts_cupti_activity_now (self);
  rec.thread = 0;
  rec.kind = TS_OUTPUT_TOOL;
  rec.text = ts_recorder_intern (self->recorder, text);
  ts_recorder_append (self->recorder, TS_RECORD_OUTPUT, &rec);
}

void
ts_cupti_activity_stop (TsCuptiActivity *self)
{
  TsCuptiStats stats;

  g_return_if_fail (self != NULL);

  /* Forced: buffers with unfinished records too. After it no mapping can
   * still be on its way (an API call's mapping is written before the call
   * returns), so what still waits never gets one. */
  self->cupti.cuptiActivityFlushAll (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  disable_all (self);
  release (self);

  ts_cupti_translator_finish (self->translator);
  ts_cupti_translator_get_stats (self->translator, &stats);
  if (stats.n_dropped > 0)
    report (self, "CUPTI dropped %" G_GUINT64_FORMAT " activity records (the trace misses that device work)",
            stats.n_dropped);
  if (stats.n_unmapped > 0)
    report (self, "%" G_GUINT64_FORMAT " device records could not be joined to the API call that made them "
            "(CUDA work outside a correlation push); they have no correlation",
            stats.n_unmapped);
  if (stats.n_unknown > 0)
    report (self, "%" G_GUINT64_FORMAT " CUPTI activity records of kinds Tensorscope does not translate were skipped",
            stats.n_unknown);
  free_source (self);
}
