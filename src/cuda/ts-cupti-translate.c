/* ts-cupti-translate.c: CUPTI activity records to Tensorscope records
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-cupti-translate.h"

/* Beyond this many API calls waiting for their device work, the oldest
 * joins are given up (calls that launch nothing would pile up forever). */
#define MAX_PENDING_CALLS (1u << 22)
/* The same bound for CUPTI-to-our correlation mappings (one per API call
 * made between a push and a pop, used by zero or more device records). */
#define MAX_MAPPINGS (1u << 22)
/* Device records waiting for their mapping: beyond this many, the mapping
 * is taken never to come (work launched outside any push) and they are
 * given up as unmapped. */
#define MAX_WAITING (1u << 20)

typedef struct
{
  TsTime  start;
  guint32 thread;
} PendingCall;

/* A translated device record waiting for its external correlation. */
typedef struct
{
  TsRecordKind kind;
  guint64      data[TS_RECORD_MAX_SIZE / sizeof (guint64)];
} WaitingRecord;

typedef struct
{
  guint32 device;
  guint32 null_stream;
  guint   has_null_stream : 1;
} ContextInfo;

struct _TsCuptiTranslator
{
  TsRecorder   *recorder;
  guint64       time_base;
  GMutex        mutex;
  GHashTable   *pending;      /* correlation -> PendingCall */
  GHashTable   *contexts;     /* context id -> ContextInfo */
  GHashTable   *streams;      /* (context << 32 | stream) -> TsStreamId + 1 */
  GHashTable   *priorities;   /* (context << 32 | stream) -> priority */
  TsStreamId    next_stream;
  int           external_kind; /* CUpti_ExternalCorrelationKind, or -1 */
  GHashTable   *mappings;     /* CUPTI correlation -> guint64 of ours */
  GHashTable   *waiting;      /* CUPTI correlation -> GPtrArray of WaitingRecord */
  TsCuptiStats  stats;
};

TsCuptiTranslator *
ts_cupti_translator_new (TsRecorder *recorder,
                         guint64     time_base)
{
  TsCuptiTranslator *self;

  g_return_val_if_fail (TS_IS_RECORDER (recorder), NULL);

  self = g_new0 (TsCuptiTranslator, 1);
  self->recorder = g_object_ref (recorder);
  self->time_base = time_base;
  g_mutex_init (&self->mutex);
  self->pending = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  self->contexts = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->streams = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->priorities = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->external_kind = -1;
  self->mappings = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->waiting = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify)g_ptr_array_unref);
  return self;
}

void
ts_cupti_translator_free (TsCuptiTranslator *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->pending);
  g_hash_table_unref (self->contexts);
  g_hash_table_unref (self->streams);
  g_hash_table_unref (self->priorities);
  g_hash_table_unref (self->mappings);
  g_hash_table_unref (self->waiting);
  g_mutex_clear (&self->mutex);
  g_object_unref (self->recorder);
  g_free (self);
}

TsTime
ts_cupti_translator_time (TsCuptiTranslator *self,
                          guint64            timestamp)
{
  g_return_val_if_fail (self != NULL, 0);

  /* A record without a timestamp (0) stays at the start of the run. */
  if (timestamp <= self->time_base)
    return 0;
  return (TsTime)(timestamp - self->time_base);
}

static guint64 *
key64_new (guint64 value)
{
  guint64 *key = g_new (guint64, 1);

  *key = value;
  return key;
}

void
ts_cupti_translator_set_external_kind (TsCuptiTranslator             *self,
                                       CUpti_ExternalCorrelationKind  kind)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (kind > CUPTI_EXTERNAL_CORRELATION_KIND_INVALID &&
                    kind < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE);

  g_mutex_lock (&self->mutex);
  self->external_kind = (int)kind;
  g_mutex_unlock (&self->mutex);
}

void
ts_cupti_translator_add_api_call (TsCuptiTranslator     *self,
                                  const TsApiCallRecord *record)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (record != NULL);

  ts_recorder_append (self->recorder, TS_RECORD_API_CALL, record);
  ts_cupti_translator_note_call (self, record);
}

void
ts_cupti_translator_note_call (TsCuptiTranslator     *self,
                               const TsApiCallRecord *record)
{
  PendingCall *call;

  g_return_if_fail (self != NULL);
  g_return_if_fail (record != NULL);

  if (record->correlation == 0)
    return;

  call = g_new (PendingCall, 1);
  call->start = record->start;
  call->thread = record->thread;
  g_mutex_lock (&self->mutex);
  if (g_hash_table_size (self->pending) >= MAX_PENDING_CALLS)
    g_hash_table_remove_all (self->pending);
  g_hash_table_replace (self->pending, key64_new (record->correlation), call);
  g_mutex_unlock (&self->mutex);
}

static ContextInfo *
context_lookup (TsCuptiTranslator *self,
                guint32            context_id,
                gboolean           create)
{
  ContextInfo *info = g_hash_table_lookup (self->contexts, GUINT_TO_POINTER (context_id));

  if (info == NULL && create)
    {
      info = g_new0 (ContextInfo, 1);
      info->device = G_MAXUINT32;
      g_hash_table_insert (self->contexts, GUINT_TO_POINTER (context_id), info);
    }
  return info;
}

static void
note_context_locked (TsCuptiTranslator *self,
                     guint32            context_id,
                     guint32            device)
{
  context_lookup (self, context_id, TRUE)->device = device;
}

void
ts_cupti_translator_note_context (TsCuptiTranslator *self,
                                  guint32            context_id,
                                  guint32            device)
{
  g_return_if_fail (self != NULL);

  g_mutex_lock (&self->mutex);
  note_context_locked (self, context_id, device);
  g_mutex_unlock (&self->mutex);
}

static gint32
context_device (TsCuptiTranslator *self,
                guint32            context_id)
{
  ContextInfo *info = context_lookup (self, context_id, FALSE);

  return info != NULL && info->device != G_MAXUINT32 ? (gint32)info->device : -1;
}

/* Our track for a CUPTI stream; the first sight of a stream announces it
 * with a TsStreamRecord. */
static TsStreamId
stream_lookup (TsCuptiTranslator *self,
               guint32            context_id,
               guint32            stream_id,
               guint32            device)
{
  guint64 key = ((guint64)context_id << 32) | stream_id;
  gpointer value = g_hash_table_lookup (self->streams, &key);
  gpointer priority = NULL;
  ContextInfo *info;
  TsStreamRecord rec = { 0 };

  if (value != NULL)
    return GPOINTER_TO_UINT (value) - 1;

  rec.stream = self->next_stream++;
  rec.device = device;
  if (g_hash_table_lookup_extended (self->priorities, &key, NULL, &priority))
    rec.priority = GPOINTER_TO_INT (priority);
  info = context_lookup (self, context_id, FALSE);
  rec.is_default = info != NULL && info->has_null_stream && info->null_stream == stream_id;
  rec.handle = stream_id;
  g_hash_table_insert (self->streams, key64_new (key), GUINT_TO_POINTER (rec.stream + 1));
  ts_recorder_append (self->recorder, TS_RECORD_STREAM, &rec);
  return rec.stream;
}

/* The host side of device work: its thread and launch time. */
static gboolean
join (TsCuptiTranslator *self,
      guint64            correlation,
      gboolean           consume,
      PendingCall       *out)
{
  PendingCall *call = g_hash_table_lookup (self->pending, &correlation);

  if (call == NULL)
    {
      self->stats.n_unjoined++;
      return FALSE;
    }
  *out = *call;
  if (consume)
    g_hash_table_remove (self->pending, &correlation);
  return TRUE;
}

static TsTime
queued_time (TsCuptiTranslator *self,
             guint64            correlation,
             TsTime             fallback)
{
  PendingCall call;

  return join (self, correlation, TRUE, &call) ? call.start : fallback;
}

static gpointer
field_at (gpointer           rec,
          const TsFieldInfo *field)
{
  return (char *)rec + field->offset;
}

/* Gives a device record its correlation (ours) and what the join with its
 * API call brings: the launch time of work that has a "queued" field, or
 * the thread of a blocking call. Without a correlation there is nothing to
 * join. The fields are found by name in the record's layout, so every kind
 * with them is handled alike. */
static void
complete (TsCuptiTranslator *self,
          TsRecordKind       kind,
          gpointer           rec,
          guint64            correlation)
{
  const TsRecordInfo *info = ts_record_info (kind);
  const TsFieldInfo *corr = ts_record_info_field (info, "correlation");
  const TsFieldInfo *queued = ts_record_info_field (info, "queued");
  const TsFieldInfo *thread = ts_record_info_field (info, "thread");
  PendingCall call;

  g_assert (corr != NULL);
  *(guint64 *)field_at (rec, corr) = correlation;
  if (correlation == 0)
    return;
  if (queued != NULL)
    {
      TsTime *t = field_at (rec, queued);

      *t = queued_time (self, correlation, *t);
    }
  /* A blocking call may be followed by more work of the same call (a
   * synchronous copy): that join is not consumed. */
  else if (thread != NULL && join (self, correlation, FALSE, &call))
    *(guint32 *)field_at (rec, thread) = call.thread;
}

static void
append_completed (TsCuptiTranslator *self,
                  TsRecordKind       kind,
                  gpointer           rec,
                  guint64            correlation)
{
  complete (self, kind, rec, correlation);
  /* Only device work (a record with a "queued" time: kernels, copies,
   * memsets) missing its op is worth a word: synchronization records come
   * from calls the runtime makes outside any op, such as
   * torch.cuda.synchronize(), and have no op to join (on an H200, 86 of
   * the workloads printed a count of those alone). */
  if (correlation == 0 && self->external_kind >= 0 &&
      ts_record_info_field (ts_record_info (kind), "queued") != NULL)
    self->stats.n_unmapped++;
  ts_recorder_append (self->recorder, kind, rec);
}

static void
give_up_waiting (TsCuptiTranslator *self)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->waiting);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      GPtrArray *records = value;

      for (guint i = 0; i < records->len; i++)
        {
          WaitingRecord *w = g_ptr_array_index (records, i);

          append_completed (self, w->kind, w->data, 0);
        }
    }
  g_hash_table_remove_all (self->waiting);
  self->stats.n_waiting = 0;
}

static void
wait_for_mapping (TsCuptiTranslator *self,
                  TsRecordKind       kind,
                  gconstpointer      rec,
                  guint32            cupti_correlation)
{
  gpointer key = GUINT_TO_POINTER (cupti_correlation);
  GPtrArray *records = g_hash_table_lookup (self->waiting, key);
  WaitingRecord *w;

  if (self->stats.n_waiting >= MAX_WAITING)
    give_up_waiting (self);
  if (records == NULL)
    {
      records = g_ptr_array_new_with_free_func (g_free);
      g_hash_table_insert (self->waiting, key, records);
    }
  w = g_new0 (WaitingRecord, 1);
  w->kind = kind;
  memcpy (w->data, rec, ts_record_info (kind)->struct_size);
  g_ptr_array_add (records, w);
  self->stats.n_waiting++;
}

/* A translated device record, still with CUPTI's correlation id: appended
 * at once, or, with external correlation, once CUPTI's id maps to ours. */
static void
emit (TsCuptiTranslator *self,
      TsRecordKind       kind,
      gpointer           rec,
      guint32            cupti_correlation)
{
  guint64 *ours;

  g_assert (ts_record_info (kind)->struct_size <= TS_RECORD_MAX_SIZE);

  if (self->external_kind < 0)
    {
      append_completed (self, kind, rec, cupti_correlation);
      return;
    }
  /* Work with no API call behind it can never be mapped. */
  if (cupti_correlation == 0)
    {
      append_completed (self, kind, rec, 0);
      return;
    }
  ours = g_hash_table_lookup (self->mappings, GUINT_TO_POINTER (cupti_correlation));
  if (ours != NULL)
    append_completed (self, kind, rec, *ours);
  else
    wait_for_mapping (self, kind, rec, cupti_correlation);
}

/* CUPTI's correlation id of an API call made while our id was pushed: the
 * records waiting for it are appended now, later ones at once. */
static gboolean
translate_external (TsCuptiTranslator *self,
                    gconstpointer      record)
{
  const CUpti_ActivityExternalCorrelation *e = record;
  gpointer key = GUINT_TO_POINTER (e->correlationId);
  guint64 *ours;
  GPtrArray *records = NULL;

  if (self->external_kind < 0 || (int)e->externalKind != self->external_kind)
    return FALSE;

  if (g_hash_table_size (self->mappings) >= MAX_MAPPINGS)
    g_hash_table_remove_all (self->mappings);
  ours = g_new (guint64, 1);
  *ours = e->externalId;
  g_hash_table_replace (self->mappings, key, ours);

  if (g_hash_table_steal_extended (self->waiting, key, NULL, (gpointer *)&records))
    {
      for (guint i = 0; i < records->len; i++)
        {
          WaitingRecord *w = g_ptr_array_index (records, i);

          append_completed (self, w->kind, w->data, *ours);
        }
      self->stats.n_waiting -= records->len;
      g_ptr_array_unref (records);
    }
  return TRUE;
}

/* Kernels, copies and memsets: CUPTI's records of work on a stream name
 * their context, device, stream and span with the same fields, and ours
 * store them with the same names, though the types on both sides differ. */
#define FILL_STREAM_WORK(self, rec, m)                                              \
  G_STMT_START {                                                                    \
    note_context_locked ((self), (m)->contextId, (m)->deviceId);                    \
    (rec).start = ts_cupti_translator_time ((self), (m)->start);                    \
    (rec).end = ts_cupti_translator_time ((self), (m)->end);                        \
    (rec).queued = (rec).start;                                                     \
    (rec).device = (m)->deviceId;                                                   \
    (rec).stream = stream_lookup ((self), (m)->contextId, (m)->streamId, (m)->deviceId); \
  } G_STMT_END

static gboolean
translate_kernel (TsCuptiTranslator *self,
                  gconstpointer      record)
{
  const CUpti_ActivityKernel10 *k = record;
  TsKernelRecord rec = { 0 };

  FILL_STREAM_WORK (self, rec, k);
  rec.name = ts_recorder_intern (self->recorder, k->name);
  rec.grid[0] = (guint32)k->gridX;
  rec.grid[1] = (guint32)k->gridY;
  rec.grid[2] = (guint32)k->gridZ;
  rec.block[0] = (guint32)k->blockX;
  rec.block[1] = (guint32)k->blockY;
  rec.block[2] = (guint32)k->blockZ;
  emit (self, TS_RECORD_KERNEL, &rec, k->correlationId);
  return TRUE;
}

static gboolean
copy_kind (guint8      cupti_kind,
           TsCopyKind *kind)
{
  switch (cupti_kind)
    {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      *kind = TS_COPY_HOST_TO_DEVICE;
      return TRUE;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      *kind = TS_COPY_DEVICE_TO_HOST;
      return TRUE;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
      *kind = TS_COPY_DEVICE_TO_DEVICE;
      return TRUE;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      *kind = TS_COPY_HOST_TO_HOST;
      return TRUE;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      *kind = TS_COPY_PEER;
      return TRUE;
    default:
      return FALSE;
    }
}

static guint32
copy_flags (guint8 flags,
            guint8 src_kind,
            guint8 dst_kind)
{
  guint32 ret = TS_COPY_FLAG_NONE;

  if (src_kind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED || dst_kind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED)
    ret |= TS_COPY_FLAG_PINNED;
  if (flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC)
    ret |= TS_COPY_FLAG_ASYNC;
  return ret;
}

static gboolean
translate_memcpy (TsCuptiTranslator *self,
                  gconstpointer      record)
{
  const CUpti_ActivityMemcpy6 *m = record;
  TsMemcpyRecord rec = { 0 };
  TsCopyKind kind;

  if (!copy_kind (m->copyKind, &kind))
    return FALSE;

  FILL_STREAM_WORK (self, rec, m);
  rec.kind = kind;
  rec.flags = copy_flags (m->flags, m->srcKind, m->dstKind);
  rec.src_device = kind == TS_COPY_HOST_TO_DEVICE || kind == TS_COPY_HOST_TO_HOST ? -1 : (gint32)m->deviceId;
  rec.dst_device = kind == TS_COPY_DEVICE_TO_HOST || kind == TS_COPY_HOST_TO_HOST ? -1 : (gint32)m->deviceId;
  rec.bytes = m->bytes;
  emit (self, TS_RECORD_MEMCPY, &rec, m->correlationId);
  return TRUE;
}

static gboolean
translate_peer_copy (TsCuptiTranslator *self,
                     gconstpointer      record)
{
  const CUpti_ActivityMemcpyPtoP4 *m = record;
  TsMemcpyRecord rec = { 0 };

  FILL_STREAM_WORK (self, rec, m);
  rec.kind = TS_COPY_PEER;
  rec.flags = copy_flags (m->flags, m->srcKind, m->dstKind);
  rec.src_device = (gint32)m->srcDeviceId;
  rec.dst_device = (gint32)m->dstDeviceId;
  rec.bytes = m->bytes;
  emit (self, TS_RECORD_MEMCPY, &rec, m->correlationId);
  return TRUE;
}

static gboolean
translate_memset (TsCuptiTranslator *self,
                  gconstpointer      record)
{
  const CUpti_ActivityMemset4 *m = record;
  TsMemsetRecord rec = { 0 };

  FILL_STREAM_WORK (self, rec, m);
  rec.bytes = m->bytes;
  rec.value = m->value;
  emit (self, TS_RECORD_MEMSET, &rec, m->correlationId);
  return TRUE;
}

/* A host thread blocked on the device; a stream waiting on an event is not
 * a host block and becomes an event-wait record. */
static gboolean
translate_sync (TsCuptiTranslator *self,
                gconstpointer      record)
{
  const CUpti_ActivitySynchronization2 *s = record;
  gint32 device = context_device (self, s->contextId);
  guint32 kind;

  switch (s->type)
    {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
      kind = TS_SYNC_EVENT;
      break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
      kind = TS_SYNC_STREAM;
      break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
      kind = TS_SYNC_DEVICE;
      break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
      {
        TsEventWaitRecord wait = { 0 };

        wait.queued = ts_cupti_translator_time (self, s->start);
        wait.time = ts_cupti_translator_time (self, s->end);
        wait.event = s->cudaEventId;
        wait.device = device < 0 ? 0 : (guint32)device;
        wait.stream = stream_lookup (self, s->contextId, s->streamId, wait.device);
        emit (self, TS_RECORD_EVENT_WAIT, &wait, s->correlationId);
        return TRUE;
      }
    default:
      return FALSE;
    }

  {
    TsSyncRecord rec = { 0 };

    rec.start = ts_cupti_translator_time (self, s->start);
    rec.end = ts_cupti_translator_time (self, s->end);
    rec.kind = kind;
    rec.device = device;
    rec.stream = kind == TS_SYNC_STREAM && device >= 0
      ? stream_lookup (self, s->contextId, s->streamId, (guint32)device)
      : TS_STREAM_NONE;
    rec.event = kind == TS_SYNC_EVENT ? s->cudaEventId : 0;
    emit (self, TS_RECORD_SYNC, &rec, s->correlationId);
  }
  return TRUE;
}

static gboolean
translate_cuda_event (TsCuptiTranslator *self,
                      gconstpointer      record)
{
  const CUpti_ActivityCudaEvent2 *e = record;
  TsEventRecordRecord rec = { 0 };

  note_context_locked (self, e->contextId, e->deviceId);
  rec.time = ts_cupti_translator_time (self, e->deviceTimestamp);
  rec.queued = rec.time;
  rec.event = e->eventId;
  rec.device = e->deviceId;
  rec.stream = stream_lookup (self, e->contextId, e->streamId, e->deviceId);
  emit (self, TS_RECORD_EVENT_RECORD, &rec, e->correlationId);
  return TRUE;
}

static gboolean
translate_device (TsCuptiTranslator *self,
                  gconstpointer      record)
{
  const CUpti_ActivityDevice5 *d = record;
  TsDeviceRecord rec = { 0 };

  rec.index = d->id;
  rec.name = ts_recorder_intern (self->recorder, d->name);
  rec.sm_count = d->numMultiprocessors;
  rec.cc_major = d->computeCapabilityMajor;
  rec.cc_minor = d->computeCapabilityMinor;
  rec.total_memory = d->globalMemorySize;
  ts_recorder_append (self->recorder, TS_RECORD_DEVICE, &rec);
  return TRUE;
}

static gboolean
translate_context (TsCuptiTranslator *self,
                   gconstpointer      record)
{
  const CUpti_ActivityContext3 *c = record;
  ContextInfo *info = context_lookup (self, c->contextId, TRUE);

  info->device = c->deviceId;
  info->null_stream = c->nullStreamId;
  info->has_null_stream = TRUE;
  return TRUE;
}

static gboolean
translate_stream (TsCuptiTranslator *self,
                  gconstpointer      record)
{
  const CUpti_ActivityStream *s = record;
  guint64 key = ((guint64)s->contextId << 32) | s->streamId;

  /* Priorities are small negative numbers that CUPTI stores unsigned. */
  g_hash_table_replace (self->priorities, key64_new (key), GINT_TO_POINTER ((gint32)s->priority));
  return TRUE;
}

/* CUPTI's activity kinds that become records, and who translates each. */
static const struct
{
  CUpti_ActivityKind kind;
  gboolean         (*translate) (TsCuptiTranslator *self,
                                 gconstpointer      record);
} translators[] = {
  { CUPTI_ACTIVITY_KIND_KERNEL, translate_kernel },
  { CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, translate_kernel },
  { CUPTI_ACTIVITY_KIND_MEMCPY, translate_memcpy },
  { CUPTI_ACTIVITY_KIND_MEMCPY2, translate_peer_copy },
  { CUPTI_ACTIVITY_KIND_MEMSET, translate_memset },
  { CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, translate_sync },
  { CUPTI_ACTIVITY_KIND_CUDA_EVENT, translate_cuda_event },
  { CUPTI_ACTIVITY_KIND_DEVICE, translate_device },
  { CUPTI_ACTIVITY_KIND_CONTEXT, translate_context },
  { CUPTI_ACTIVITY_KIND_STREAM, translate_stream },
  { CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, translate_external },
};

static gboolean
translate_locked (TsCuptiTranslator    *self,
                  const CUpti_Activity *record)
{
  for (guint i = 0; i < G_N_ELEMENTS (translators); i++)
    {
      if (translators[i].kind == record->kind)
        return translators[i].translate (self, record);
    }
  return FALSE;
}

gboolean
ts_cupti_translator_translate (TsCuptiTranslator    *self,
                               const CUpti_Activity *record)
{
  gboolean ret;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (record != NULL, FALSE);

  g_mutex_lock (&self->mutex);
  self->stats.n_records++;
  ret = translate_locked (self, record);
  if (ret)
    self->stats.n_translated++;
  else if (record->kind == CUPTI_ACTIVITY_KIND_RUNTIME || record->kind == CUPTI_ACTIVITY_KIND_DRIVER)
    self->stats.n_api++;
  else
    self->stats.n_unknown++;
  g_mutex_unlock (&self->mutex);
  return ret;
}

gsize
ts_cupti_translator_translate_buffer (TsCuptiTranslator     *self,
                                      uint8_t               *buffer,
                                      gsize                  valid_size,
                                      TsCuptiNextRecordFunc  next)
{
  CUpti_Activity *record = NULL;
  gsize n = 0;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (buffer != NULL || valid_size == 0, 0);

  if (next == NULL)
    next = ts_cupti_walk_buffer;
  while (next (buffer, valid_size, &record) == CUPTI_SUCCESS)
    {
      ts_cupti_translator_translate (self, record);
      n++;
    }
  return n;
}

void
ts_cupti_translator_add_dropped (TsCuptiTranslator *self,
                                 guint64            n_dropped)
{
  g_return_if_fail (self != NULL);

  g_mutex_lock (&self->mutex);
  self->stats.n_dropped += n_dropped;
  g_mutex_unlock (&self->mutex);
}

void
ts_cupti_translator_complete_buffer (TsCuptiTranslator     *self,
                                     CUcontext              context,
                                     uint32_t               stream_id,
                                     uint8_t               *buffer,
                                     gsize                  valid_size,
                                     TsCuptiNextRecordFunc  next,
                                     TsCuptiDroppedFunc     dropped)
{
  size_t n_dropped = 0;

  g_return_if_fail (self != NULL);

  if (valid_size > 0)
    ts_cupti_translator_translate_buffer (self, buffer, valid_size, next);
  if (dropped (context, stream_id, &n_dropped) == CUPTI_SUCCESS && n_dropped > 0)
    ts_cupti_translator_add_dropped (self, n_dropped);
}

void
ts_cupti_translator_finish (TsCuptiTranslator *self)
{
  g_return_if_fail (self != NULL);

  g_mutex_lock (&self->mutex);
  give_up_waiting (self);
  g_mutex_unlock (&self->mutex);
}

void
ts_cupti_translator_get_stats (TsCuptiTranslator *self,
                               TsCuptiStats      *stats)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (stats != NULL);

  g_mutex_lock (&self->mutex);
  *stats = self->stats;
  g_mutex_unlock (&self->mutex);
}

gsize
ts_cupti_record_size (CUpti_ActivityKind kind)
{
  switch ((int)kind)
    {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return sizeof (CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return sizeof (CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      return sizeof (CUpti_ActivityMemcpyPtoP4);
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return sizeof (CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return sizeof (CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
      return sizeof (CUpti_ActivityCudaEvent2);
    case CUPTI_ACTIVITY_KIND_DEVICE:
      return sizeof (CUpti_ActivityDevice5);
    case CUPTI_ACTIVITY_KIND_CONTEXT:
      return sizeof (CUpti_ActivityContext3);
    case CUPTI_ACTIVITY_KIND_STREAM:
      return sizeof (CUpti_ActivityStream);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      return sizeof (CUpti_ActivityExternalCorrelation);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      return sizeof (CUpti_ActivityAPI);
    default:
      return 0;
    }
}

CUptiResult
ts_cupti_walk_buffer (uint8_t         *buffer,
                      size_t           valid_size,
                      CUpti_Activity **record)
{
  gsize offset = 0;
  gsize size;
  CUpti_ActivityKind kind;

  if (*record != NULL)
    {
      offset = (gsize)((uint8_t *)*record - buffer);
      size = ts_cupti_record_size ((*record)->kind);
      if (size == 0)
        return CUPTI_ERROR_INVALID_KIND;
      offset += (size + 7) & ~(gsize)7;
    }
  if (offset + sizeof (CUpti_ActivityKind) > valid_size)
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  memcpy (&kind, buffer + offset, sizeof kind);
  size = ts_cupti_record_size (kind);
  if (size != 0 && offset + size > valid_size)
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = (CUpti_Activity *)(gpointer)(buffer + offset);
  return CUPTI_SUCCESS;
}
