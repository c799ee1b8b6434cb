/* ts-inject-cupti.c: CUDA API calls and device work of a recorded program
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CUDA driver, at cuInit, loads CUDA_INJECTION64_PATH and calls its
 * InitializeInjection. We then open libcupti with ts-cupti-loader.c (never
 * linked: the library must load where there is no driver, for NVTX), subscribe to the runtime
 * and driver API callbacks, and enable the activity kinds we translate.
 *
 * - API calls: one TsApiCallRecord per runtime call (and per driver call
 *   made outside a runtime call, for programs that use the driver API
 *   directly), timed on our clock at enter and exit.
 * - cudaMalloc/cudaFree (and cuMemAlloc/cuMemFree) become allocator
 *   segment records, as PyTorch's caching allocator gets its segments.
 * - Device work arrives later in activity buffers, translated by
 *   ts-cupti-translate.c and joined to the calls by correlation id. CUPTI
 *   is told to use our clock (cuptiActivityRegisterTimestampCallback) so
 *   that device and host times are comparable without conversion.
 * - At exit, buffers are flushed, and dropped and untranslated records are
 *   reported.
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#include "ts-cupti-loader.h"
#include "ts-cupti-translate.h"
#include "ts-inject-private.h"

#define MAX_NESTING 16
#define SMALL_SEGMENT_SIZE (2u << 20)   /* PyTorch's kSmallBuffer */

static TsCuptiFuncs cupti;

static TsCuptiTranslator   *translator;
static TsRecorder          *recorder;
static CUpti_SubscriberHandle subscriber;
static GMutex               segments_mutex;
static GHashTable          *segments;      /* device address -> size */

typedef struct
{
  TsTime  start[MAX_NESTING];
  int     depth;
} CallStack;

static __thread CallStack runtime_calls;
static __thread CallStack driver_calls;
static __thread void     *last_context;
static __thread gint32    last_device = -1;

static gboolean
load_cupti (void)
{
  g_autoptr(GError) error = NULL;

  if (ts_cupti_load (&cupti, &error))
    return TRUE;
  ts_inject_report ("CUDA work is not recorded: %s", error->message);
  return FALSE;
}

static uint64_t CUPTIAPI
timestamp (void)
{
  return ts_inject_clock ();
}

static gint32
context_device (void *context)
{
  uint32_t device;

  if (context == NULL)
    return -1;
  if (context == last_context)
    return last_device;
  if (cupti.cuptiGetDeviceId (context, &device) != CUPTI_SUCCESS)
    return -1;
  last_context = context;
  last_device = (gint32)device;
  return last_device;
}

static void
add_segment (guint64 addr,
             guint64 size,
             guint64 correlation,
             gint32  device,
             TsTime  time)
{
  TsAllocRecord rec = { 0 };

  g_mutex_lock (&segments_mutex);
  g_hash_table_insert (segments, GSIZE_TO_POINTER (addr), GSIZE_TO_POINTER (size));
  g_mutex_unlock (&segments_mutex);

  rec.time = time;
  rec.addr = addr;
  rec.size = size;
  rec.requested = size;
  rec.correlation = correlation;
  rec.device = device < 0 ? 0 : (guint32)device;
  rec.stream = TS_STREAM_NONE;
  rec.action = TS_ALLOC_ACTION_SEGMENT_ALLOC;
  /* A raw cudaMalloc has no pool; PyTorch's small pool is the one that
   * asks for segments of exactly kSmallBuffer. */
  rec.pool = size == SMALL_SEGMENT_SIZE ? 1 : 0;
  ts_recorder_append (recorder, TS_RECORD_ALLOC, &rec);
}

static void
remove_segment (guint64 addr,
                guint64 correlation,
                gint32  device,
                TsTime  time)
{
  TsAllocRecord rec = { 0 };
  gpointer size = NULL;
  gboolean found;

  if (addr == 0)
    return;
  g_mutex_lock (&segments_mutex);
  found = g_hash_table_steal_extended (segments, GSIZE_TO_POINTER (addr), NULL, &size);
  g_mutex_unlock (&segments_mutex);
  if (!found)
    return;

  rec.time = time;
  rec.addr = addr;
  rec.size = GPOINTER_TO_SIZE (size);
  rec.requested = rec.size;
  rec.correlation = correlation;
  rec.device = device < 0 ? 0 : (guint32)device;
  rec.stream = TS_STREAM_NONE;
  rec.action = TS_ALLOC_ACTION_SEGMENT_FREE;
  rec.pool = rec.size == SMALL_SEGMENT_SIZE ? 1 : 0;
  ts_recorder_append (recorder, TS_RECORD_ALLOC, &rec);
}

static void
track_memory (CUpti_CallbackDomain      domain,
              CUpti_CallbackId          cbid,
              const CUpti_CallbackData *cb,
              gint32                    device,
              TsTime                    time)
{
  gboolean ok;

  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
    {
      ok = cb->functionReturnValue == NULL || *(const int *)cb->functionReturnValue == 0;
      if (!ok)
        return;
      if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020)
        {
          const cudaMalloc_v3020_params *p = cb->functionParams;

          add_segment ((guint64)(gsize)*p->devPtr, p->size, cb->correlationId, device, time);
        }
      else if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020)
        {
          const cudaFree_v3020_params *p = cb->functionParams;

          remove_segment ((guint64)(gsize)p->devPtr, cb->correlationId, device, time);
        }
    }
  else
    {
      ok = cb->functionReturnValue == NULL || *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS;
      if (!ok)
        return;
      if (cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2)
        {
          const cuMemAlloc_v2_params *p = cb->functionParams;

          add_segment (*p->dptr, p->bytesize, cb->correlationId, device, time);
        }
      else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2)
        {
          const cuMemFree_v2_params *p = cb->functionParams;

          remove_segment (p->dptr, cb->correlationId, device, time);
        }
    }
}

static void CUPTIAPI
on_api_call (void                 *user_data,
             CUpti_CallbackDomain  domain,
             CUpti_CallbackId      cbid,
             const void           *data)
{
  const CUpti_CallbackData *cb = data;
  CallStack *calls;
  TsApiCallRecord rec = { 0 };

  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API)
    return;
  /* The driver calls a runtime call makes are part of it. */
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && runtime_calls.depth > 0)
    return;
  calls = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? &runtime_calls : &driver_calls;

  if (cb->callbackSite == CUPTI_API_ENTER)
    {
      if (calls->depth < MAX_NESTING)
        calls->start[calls->depth] = ts_inject_now ();
      calls->depth++;
      return;
    }

  if (calls->depth == 0)
    return;
  calls->depth--;
  rec.end = ts_inject_now ();
  rec.start = calls->depth < MAX_NESTING ? calls->start[calls->depth] : rec.end;
  rec.correlation = cb->correlationId;
  rec.thread = ts_inject_thread ();
  rec.name = ts_recorder_intern (recorder, cb->functionName);
  rec.device = context_device (cb->context);
  rec.stream = TS_STREAM_NONE;
  ts_cupti_translator_add_api_call (translator, &rec);
  track_memory (domain, cbid, cb, rec.device, rec.end);
}

static void CUPTIAPI
buffer_completed (CUcontext context,
                  uint32_t  stream_id,
                  uint8_t  *buffer,
                  size_t    size,
                  size_t    valid_size)
{
  ts_cupti_translator_complete_buffer (translator, context, stream_id, buffer, valid_size,
                                       cupti.cuptiActivityGetNextRecord, cupti.cuptiActivityGetNumDroppedRecords);
  g_aligned_free (buffer);
}

static void
finish (void)
{
  TsCuptiStats stats;

  cupti.cuptiActivityFlushAll (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  cupti.cuptiUnsubscribe (subscriber);
  ts_cupti_translator_get_stats (translator, &stats);
  if (stats.n_dropped > 0)
    ts_inject_report ("CUPTI dropped %" G_GUINT64_FORMAT " activity records (the trace misses that device work)",
                      stats.n_dropped);
  if (stats.n_unknown > 0)
    ts_inject_report ("%" G_GUINT64_FORMAT " CUPTI activity records of kinds Tensorscope does not translate were skipped",
                      stats.n_unknown);
}

static gboolean
check (CUptiResult  result,
       const char  *what)
{
  g_autofree char *text = NULL;

  if (result == CUPTI_SUCCESS)
    return TRUE;
  text = ts_cupti_result_text (&cupti, result);
  ts_inject_report ("CUPTI: %s failed: %s", what, text);
  return FALSE;
}

static const CUpti_ActivityKind activity_kinds[] = {
  CUPTI_ACTIVITY_KIND_DEVICE,
  CUPTI_ACTIVITY_KIND_CONTEXT,
  CUPTI_ACTIVITY_KIND_STREAM,
  CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
  CUPTI_ACTIVITY_KIND_MEMCPY,
  CUPTI_ACTIVITY_KIND_MEMCPY2,
  CUPTI_ACTIVITY_KIND_MEMSET,
  CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
  CUPTI_ACTIVITY_KIND_CUDA_EVENT,
};

int InitializeInjection (void);

__attribute__ ((visibility ("default"))) int
InitializeInjection (void)
{
  static gboolean done;

  if (done)
    return 1;
  done = TRUE;

  recorder = ts_inject_get_recorder ();
  if (recorder == NULL || !load_cupti ())
    return 0;

  segments = g_hash_table_new (NULL, NULL);
  translator = ts_cupti_translator_new (recorder, ts_inject_base ());

  if (!check (cupti.cuptiActivityRegisterTimestampCallback (timestamp), "using our clock") ||
      !check (cupti.cuptiActivityRegisterCallbacks (ts_cupti_buffer_requested, buffer_completed), "activity buffers") ||
      !check (cupti.cuptiSubscribe (&subscriber, on_api_call, NULL), "subscribing") ||
      !check (cupti.cuptiEnableDomain (1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API), "runtime API callbacks") ||
      !check (cupti.cuptiEnableDomain (1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API), "driver API callbacks"))
    return 0;
  for (guint i = 0; i < G_N_ELEMENTS (activity_kinds); i++)
    check (cupti.cuptiActivityEnable (activity_kinds[i]), "enabling an activity kind");
  check (cupti.cuptiActivityEnableCudaEventDeviceTimestamps (1), "CUDA event timestamps");

  ts_inject_add_finish_hook (finish);
  return 1;
}
