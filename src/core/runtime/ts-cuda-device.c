/* ts-cuda-device.c: the runtime's device side on a real GPU
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * See ts-cuda-device-private.h for what this is. Everything goes through
 * the CUDA module's table, so a host implementation of that table (the
 * tests' fake module) drives this file exactly as a GPU does.
 */

#include "config.h"

#include <string.h>
#include <time.h>

#include "ts-cuda-device-private.h"

typedef struct
{
  gpointer stream;         /* cudaStream_t; NULL: the legacy default stream */
  guint    device;
  gboolean created;        /* ours to destroy */
} Stream;

typedef struct
{
  gpointer     event;      /* cudaEvent_t */
  guint        device;
} Event;

/* A submitted item waiting for its timing events to complete. */
typedef struct
{
  TsCudaItem item;
  gpointer   start;
  gpointer   end;
} Pending;

typedef struct
{
  gboolean   ready;
  gpointer   base;         /* timing event recorded at base_time */
  TsTime     base_time;
  GPtrArray *spare;        /* timing events to reuse */
} DeviceState;

struct _TsCudaDevice
{
  const TsCudaKernels    *k;
  const TsActivitySource *activity;
  gpointer                source;      /* the started activity source, or NULL */
  TsRecorder             *recorder;
  guint                   n_devices;
  DeviceState            *devices;
  GArray                 *streams;     /* Stream, by TsStreamId */
  GHashTable             *events;      /* guint64 id -> Event */
  GArray                 *pending;     /* Pending, in submission order */
  guint64                 untimed;     /* items lost to a sticky error */
};

static TsTime
monotonic_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (TsTime) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + (TsTime) ts.tv_nsec;
}

/* From the first call on, so that a trace starts near 0 as a simulated
 * one does (and CUPTI's records, on the same clock, line up). */
TsTime
ts_cuda_device_now (void)
{
  static gsize origin;

  if (g_once_init_enter (&origin))
    g_once_init_leave (&origin, (gsize) (monotonic_ns () - 1));
  return monotonic_ns () - (TsTime) origin;
}

static void
output (TsCudaDevice *self,
        const char   *text)
{
  TsOutputRecord rec = {
    .time = ts_cuda_device_now (),
    .kind = TS_OUTPUT_TOOL,
    .text = ts_recorder_intern (self->recorder, text),
  };

  TS_RECORDER_APPEND (self->recorder, TS_RECORD_OUTPUT, TsOutputRecord, &rec);
}

TsCudaDevice *
ts_cuda_device_new (const TsCudaKernels     *kernels,
                    const TsActivitySource  *activity,
                    TsRecorder              *recorder,
                    guint                    n_devices,
                    GError                 **error)
{
  TsCudaDevice *self;

  g_return_val_if_fail (kernels != NULL, NULL);
  g_return_val_if_fail (TS_IS_RECORDER (recorder), NULL);

  self = g_new0 (TsCudaDevice, 1);
  self->k = kernels;
  self->recorder = g_object_ref (recorder);
  self->n_devices = n_devices;
  self->devices = g_new0 (DeviceState, MAX (n_devices, 1));
  self->streams = g_array_new (FALSE, TRUE, sizeof (Stream));
  self->events = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  self->pending = g_array_new (FALSE, FALSE, sizeof (Pending));

  if (activity != NULL)
    {
      g_autoptr(GError) local_error = NULL;

      self->source = activity->start (recorder, &local_error);
      if (self->source != NULL)
        self->activity = activity;
      else
        {
          g_autofree char *text =
            g_strdup_printf ("GPU activity records are not available (%s): kernels, copies "
                             "and memsets are timed with CUDA events instead",
                             local_error->message);
          output (self, text);
        }
    }
  return self;
}

const TsCudaKernels *
ts_cuda_device_get_kernels (TsCudaDevice *self)
{
  return self->k;
}

const char *
ts_cuda_device_error_string (TsCudaDevice *self,
                             int           error)
{
  return self->k->error_string (error);
}

int
ts_cuda_device_peek_error (TsCudaDevice *self)
{
  return self->k->peek_error ();
}

gboolean
ts_cuda_device_get_info (TsCudaDevice  *self,
                         guint          device,
                         TsGpuProfile  *profile,
                         GError       **error)
{
  char name[256] = "";
  int sms = 0, major = 0, minor = 0, threads = 0, least = 0, greatest = 0;
  guint64 total = 0, free_bytes = 0;
  int err;

  err = self->k->device_info ((int) device, name, sizeof name, &sms, &major, &minor, &total, &threads);
  if (err == 0)
    err = self->k->set_device ((int) device);
  if (err == 0)
    err = self->k->stream_priority_range (&least, &greatest);
  if (err == 0)
    err = self->k->mem_get_info (&free_bytes, &total);
  if (err != 0)
    {
      g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_CUDA,
                   "CUDA error: %s", self->k->error_string (err));
      return FALSE;
    }

  profile->name = g_intern_string (name);
  profile->sm_count = (guint) sms;
  profile->cc_major = (guint) major;
  profile->cc_minor = (guint) minor;
  profile->max_threads_per_sm = (guint) threads;
  profile->total_memory = total;
  profile->least_priority = least;
  profile->greatest_priority = greatest;
  return TRUE;
}

/* ------------------------------------------------------------ streams */

gboolean
ts_cuda_device_add_stream (TsCudaDevice  *self,
                           TsStreamId     stream,
                           guint          device,
                           int            priority,
                           gboolean       is_default,
                           guint64       *handle,
                           GError       **error)
{
  Stream s = { NULL, device, FALSE };
  int err = 0;

  g_assert (stream == self->streams->len);

  if (!is_default)
    {
      err = self->k->set_device ((int) device);
      if (err == 0)
        err = self->k->stream_create (&s.stream, priority);
      s.created = err == 0;
    }
  if (err != 0)
    {
      g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_CUDA,
                   "CUDA error: %s", self->k->error_string (err));
      return FALSE;
    }
  g_array_append_val (self->streams, s);
  *handle = GPOINTER_TO_SIZE (s.stream);
  return TRUE;
}

gpointer
ts_cuda_device_get_stream (TsCudaDevice *self,
                           TsStreamId    stream)
{
  return g_array_index (self->streams, Stream, stream).stream;
}

/* Selects the stream's device and returns the stream. */
static gpointer
use_stream (TsCudaDevice *self,
            TsStreamId    stream,
            int          *err)
{
  const Stream *s = &g_array_index (self->streams, Stream, stream);

  *err = self->k->set_device ((int) s->device);
  return s->stream;
}

int
ts_cuda_device_stream_query (TsCudaDevice *self,
                             TsStreamId    stream)
{
  int err;
  gpointer s = use_stream (self, stream, &err);

  return err != 0 ? err : self->k->stream_query (s);
}

int
ts_cuda_device_stream_sync (TsCudaDevice *self,
                            TsStreamId    stream)
{
  int err;
  gpointer s = use_stream (self, stream, &err);

  if (err == 0)
    err = self->k->stream_sync (s);
  ts_cuda_device_collect (self);
  return err;
}

int
ts_cuda_device_device_sync (TsCudaDevice *self,
                            guint         device)
{
  int err = self->k->set_device ((int) device);

  if (err == 0)
    err = self->k->device_sync ();
  ts_cuda_device_collect (self);
  return err;
}

/* ------------------------------------------------------------ timing */

/* The device's time base: a timing event the GPU has passed, and the host
 * time at which the host saw it pass (a few µs late: the sync's latency). */
static int
ensure_base (TsCudaDevice *self,
             guint         device)
{
  DeviceState *ds = &self->devices[device];
  int err;

  if (ds->ready)
    return 0;
  err = self->k->event_create (&ds->base, TS_CUDA_EVENT_DEFAULT);
  if (err == 0)
    err = self->k->event_record (ds->base, NULL);
  if (err == 0)
    err = self->k->event_sync (ds->base);
  if (err != 0)
    return err;
  ds->base_time = ts_cuda_device_now ();
  ds->spare = g_ptr_array_new ();
  ds->ready = TRUE;
  return 0;
}

static int
timing_event (TsCudaDevice *self,
              guint         device,
              gpointer     *event)
{
  DeviceState *ds = &self->devices[device];

  if (ds->spare->len > 0)
    {
      *event = g_ptr_array_steal_index_fast (ds->spare, ds->spare->len - 1);
      return 0;
    }
  return self->k->event_create (event, TS_CUDA_EVENT_DEFAULT);
}

static void
release_timing (TsCudaDevice *self,
                guint         device,
                gpointer      event)
{
  if (event != NULL)
    g_ptr_array_add (self->devices[device].spare, event);
}

/* Host time of a timing event the GPU has passed. */
static gboolean
event_time (TsCudaDevice *self,
            guint         device,
            gpointer      event,
            TsTime       *time)
{
  DeviceState *ds = &self->devices[device];
  float ms = 0;

  if (self->k->event_elapsed (&ms, ds->base, event) != 0)
    return FALSE;
  *time = ds->base_time + (TsTime) MAX ((double) ms * 1e6, 0.0);
  return TRUE;
}

static void
write_record (TsCudaDevice     *self,
              const TsCudaItem *it,
              TsTime            start,
              TsTime            end)
{
  switch (it->kind)
    {
    case TS_CUDA_ITEM_KERNEL:
      {
        TsKernelRecord rec = {
          .start = start, .end = end, .queued = it->queued,
          .correlation = it->correlation, .device = it->device, .stream = it->stream,
          .name = it->name, .flops = it->flops, .bytes = it->bytes,
        };

        memcpy (rec.grid, it->grid, sizeof rec.grid);
        memcpy (rec.block, it->block, sizeof rec.block);
        TS_RECORDER_APPEND (self->recorder, TS_RECORD_KERNEL, TsKernelRecord, &rec);
        break;
      }
    case TS_CUDA_ITEM_MEMCPY:
      {
        TsMemcpyRecord rec = {
          .start = start, .end = end, .queued = it->queued,
          .correlation = it->correlation, .device = it->device, .stream = it->stream,
          .kind = it->copy_kind, .flags = it->copy_flags,
          .src_device = it->src_device, .dst_device = it->dst_device, .bytes = it->bytes,
        };

        TS_RECORDER_APPEND (self->recorder, TS_RECORD_MEMCPY, TsMemcpyRecord, &rec);
        break;
      }
    case TS_CUDA_ITEM_MEMSET:
    default:
      {
        TsMemsetRecord rec = {
          .start = start, .end = end, .queued = it->queued,
          .correlation = it->correlation, .device = it->device, .stream = it->stream,
          .bytes = it->bytes, .value = it->value,
        };

        TS_RECORDER_APPEND (self->recorder, TS_RECORD_MEMSET, TsMemsetRecord, &rec);
        break;
      }
    }
}

void
ts_cuda_device_collect (TsCudaDevice *self)
{
  guint kept = 0;

  if (self->activity != NULL)
    self->activity->flush (self->source);

  for (guint i = 0; i < self->pending->len; i++)
    {
      Pending *p = &g_array_index (self->pending, Pending, i);
      TsTime start, end;
      int err = self->k->event_query (p->end);

      if (err == TS_CUDA_ERROR_NOT_READY)
        {
          g_array_index (self->pending, Pending, kept++) = *p;
          continue;
        }
      if (err == 0 && event_time (self, p->item.device, p->start, &start) &&
          event_time (self, p->item.device, p->end, &end))
        write_record (self, &p->item, start, MAX (start, end));
      else
        self->untimed++;
      release_timing (self, p->item.device, p->start);
      release_timing (self, p->item.device, p->end);
    }
  g_array_set_size (self->pending, kept);
}

/* ------------------------------------------------------------ work */

int
ts_cuda_device_submit (TsCudaDevice     *self,
                       const TsCudaItem *item,
                       const TsWork     *work)
{
  Pending p = { *item, NULL, NULL };
  gpointer stream;
  int err;

  stream = use_stream (self, item->stream, &err);
  if (err == 0 && work->on_device == NULL)
    err = TS_CUDA_ERROR_NOT_SUPPORTED;

  if (err == 0 && self->activity != NULL)
    {
      self->activity->push_correlation (self->source, item->correlation);
      err = work->on_device (work->data, stream);
      self->activity->pop_correlation (self->source);
    }
  else if (err == 0)
    {
      err = ensure_base (self, item->device);
      if (err == 0)
        err = timing_event (self, item->device, &p.start);
      if (err == 0)
        err = timing_event (self, item->device, &p.end);
      if (err == 0)
        err = self->k->event_record (p.start, stream);
      if (err == 0)
        err = work->on_device (work->data, stream);
      /* the end event is recorded even after a failed enqueue, so that
       * both events are in a known state when they go back to the pool */
      if (p.start != NULL && p.end != NULL && self->k->event_record (p.end, stream) == 0 && err == 0)
        g_array_append_val (self->pending, p);
      else if (self->devices[item->device].ready)
        {
          release_timing (self, item->device, p.start);
          release_timing (self, item->device, p.end);
        }
    }

  if (work->destroy != NULL)
    work->destroy (work->data);
  return err;
}

/* ------------------------------------------------------------ events */

static int
event_flags (TsEventFlags flags)
{
  int cuda = 0;

  if (!(flags & TS_EVENT_TIMING))
    cuda |= TS_CUDA_EVENT_DISABLE_TIMING;
  if (flags & TS_EVENT_BLOCKING)
    cuda |= TS_CUDA_EVENT_BLOCKING_SYNC;
  if (flags & TS_EVENT_INTERPROCESS)
    cuda |= TS_CUDA_EVENT_INTERPROCESS | TS_CUDA_EVENT_DISABLE_TIMING;
  return cuda;
}

int
ts_cuda_device_event_record (TsCudaDevice *self,
                             guint64       event,
                             TsEventFlags  flags,
                             TsStreamId    stream)
{
  Event *ev = g_hash_table_lookup (self->events, &event);
  gpointer s;
  int err;

  s = use_stream (self, stream, &err);
  if (err != 0)
    return err;
  if (ev == NULL)
    {
      gint64 *key = g_new (gint64, 1);

      ev = g_new0 (Event, 1);
      ev->device = g_array_index (self->streams, Stream, stream).device;
      err = self->k->event_create (&ev->event, event_flags (flags));
      if (err != 0)
        {
          g_free (ev);
          g_free (key);
          return err;
        }
      *key = (gint64) event;
      g_hash_table_insert (self->events, key, ev);
    }
  return self->k->event_record (ev->event, s);
}

static Event *
lookup (TsCudaDevice *self,
        guint64       event)
{
  return g_hash_table_lookup (self->events, &event);
}

int
ts_cuda_device_event_query (TsCudaDevice *self,
                            guint64       event)
{
  Event *ev = lookup (self, event);

  return ev == NULL ? 0 : self->k->event_query (ev->event);
}

int
ts_cuda_device_event_sync (TsCudaDevice *self,
                           guint64       event)
{
  Event *ev = lookup (self, event);
  int err = ev == NULL ? 0 : self->k->event_sync (ev->event);

  ts_cuda_device_collect (self);
  return err;
}

int
ts_cuda_device_event_elapsed (TsCudaDevice *self,
                              guint64       start,
                              guint64       end,
                              float        *ms)
{
  Event *a = lookup (self, start);
  Event *b = lookup (self, end);

  if (a == NULL || b == NULL)
    return TS_CUDA_ERROR_INVALID_VALUE;
  return self->k->event_elapsed (ms, a->event, b->event);
}

int
ts_cuda_device_stream_wait_event (TsCudaDevice *self,
                                  TsStreamId    stream,
                                  guint64       event)
{
  Event *ev = lookup (self, event);
  gpointer s;
  int err;

  if (ev == NULL)
    return 0;
  s = use_stream (self, stream, &err);
  return err != 0 ? err : self->k->stream_wait_event (s, ev->event);
}

void
ts_cuda_device_event_free (TsCudaDevice *self,
                           guint64       event)
{
  Event *ev = lookup (self, event);

  if (ev != NULL)
    {
      self->k->event_destroy (ev->event);
      g_hash_table_remove (self->events, &event);
    }
}

/* ------------------------------------------------------------ end */

void
ts_cuda_device_finish (TsCudaDevice *self)
{
  /* Whatever is still queued finishes first, so that every item is timed. */
  for (guint d = 0; d < self->n_devices; d++)
    if (self->k->set_device ((int) d) == 0)
      self->k->device_sync ();
  ts_cuda_device_collect (self);
  if (self->untimed > 0)
    {
      g_autofree char *text =
        g_strdup_printf ("%" G_GUINT64_FORMAT " device items have no times: the CUDA context "
                         "failed before they completed", self->untimed);
      output (self, text);
      self->untimed = 0;
    }
  /* stopping CUPTI flushes its last buffers; later work is timed with
   * events */
  if (self->activity != NULL)
    self->activity->stop (self->source);
  self->activity = NULL;
  self->source = NULL;
}

void
ts_cuda_device_free (TsCudaDevice *self)
{
  GHashTableIter iter;
  gpointer value;

  if (self == NULL)
    return;

  ts_cuda_device_finish (self);

  g_hash_table_iter_init (&iter, self->events);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    self->k->event_destroy (((Event *) value)->event);
  for (guint d = 0; d < self->n_devices; d++)
    {
      DeviceState *ds = &self->devices[d];

      if (!ds->ready)
        continue;
      for (guint i = 0; i < ds->spare->len; i++)
        self->k->event_destroy (g_ptr_array_index (ds->spare, i));
      self->k->event_destroy (ds->base);
      g_ptr_array_unref (ds->spare);
    }
  for (guint i = 0; i < self->streams->len; i++)
    {
      Stream *s = &g_array_index (self->streams, Stream, i);

      if (s->created)
        self->k->stream_destroy (s->stream);
    }

  g_hash_table_unref (self->events);
  g_array_unref (self->streams);
  g_array_unref (self->pending);
  g_free (self->devices);
  g_object_unref (self->recorder);
  g_free (self);
}
