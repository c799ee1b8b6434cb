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

/* An event's record on the GPU only says that it was recorded: the CUDA
 * event itself is looked up by id. */
#define RECORDED (TS_ITEM_NONE - 1)

/* What a submission is, for its record. */
typedef enum
{
  ITEM_KERNEL,
  ITEM_MEMCPY,
  ITEM_MEMSET,
} ItemKind;

typedef struct
{
  ItemKind       kind;
  TsStreamId     stream;
  guint          device;
  guint64        correlation;
  TsTime         queued;
  TsStringId     name;          /* kernels */
  guint32        grid[3];
  guint32        block[3];
  guint64        flops;
  guint64        bytes;
  guint32        copy_kind;     /* memcpy: TsCopyKind */
  guint32        copy_flags;    /* memcpy: TsCopyFlags */
  gint32         src_device;
  gint32         dst_device;
  guint32        value;         /* memset */
} Item;

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
  Item item;
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
  TsGpuProfile            profile;     /* device 0's */
  TsFault                *faults;      /* per device; code 0: none */
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

static TsCudaDevice *
cuda_device_new (const TsCudaKernels     *kernels,
                 const TsActivitySource  *activity,
                 TsRecorder              *recorder,
                 guint                    n_devices)
{
  TsCudaDevice *self;

  self = g_new0 (TsCudaDevice, 1);
  self->k = kernels;
  self->recorder = g_object_ref (recorder);
  self->n_devices = n_devices;
  self->devices = g_new0 (DeviceState, MAX (n_devices, 1));
  self->faults = g_new0 (TsFault, MAX (n_devices, 1));
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

/* Device 0's name, SMs, memory and priority range over the base profile. */
static gboolean
get_info (TsCudaDevice  *self,
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

  /* The trace's model names the backend, not the simulated model whose
   * other figures stand in (a real H200 read "(h100, ...)" in `info`). */
  profile->key = "cuda";
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

TsCudaDevice *
ts_cuda_device_open (const TsCudaKernels     *kernels,
                     const TsActivitySource  *activity,
                     TsRecorder              *recorder,
                     const TsGpuProfile      *base,
                     GError                 **error)
{
  TsCudaDevice *self;
  int count = 0;
  int err;

  g_return_val_if_fail (kernels != NULL, NULL);
  g_return_val_if_fail (TS_IS_RECORDER (recorder), NULL);

  err = kernels->device_count (&count);
  if (err != 0 || count <= 0)
    {
      g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_NO_DEVICE,
                   "No CUDA GPUs are available (%s)",
                   err != 0 ? kernels->error_string (err) : "no device");
      return NULL;
    }

  self = cuda_device_new (kernels, activity, recorder, (guint) MIN (count, TS_RUNTIME_MAX_GPUS));
  self->profile = *base;
  if (!get_info (self, 0, &self->profile, error))
    {
      ts_cuda_device_free (self);
      return NULL;
    }
  return self;
}

guint
ts_cuda_device_get_n_devices (TsCudaDevice *self)
{
  return self->n_devices;
}

const TsGpuProfile *
ts_cuda_device_get_profile (TsCudaDevice *self)
{
  return &self->profile;
}

/* ------------------------------------------------------------ streams */

static gboolean
add_stream (gpointer     impl,
            TsStreamId   stream,
            guint        device,
            int          priority,
            gboolean     is_default,
            guint64     *handle,
            GError     **error)
{
  TsCudaDevice *self = impl;
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

static int
stream_query (gpointer   impl,
              TsStreamId stream,
              TsTime     host)
{
  TsCudaDevice *self = impl;
  int err;
  gpointer s = use_stream (self, stream, &err);

  return err != 0 ? err : self->k->stream_query (s);
}

static void collect (TsCudaDevice *self);

static int
stream_sync (gpointer    impl,
             TsStreamId  stream,
             TsTime     *until)
{
  TsCudaDevice *self = impl;
  int err;
  gpointer s = use_stream (self, stream, &err);

  if (err == 0)
    err = self->k->stream_sync (s);
  collect (self);
  *until = ts_cuda_device_now ();
  return err;
}

static int
device_sync (gpointer  impl,
             guint     device,
             TsTime   *until)
{
  TsCudaDevice *self = impl;
  int err = self->k->set_device ((int) device);

  if (err == 0)
    err = self->k->device_sync ();
  collect (self);
  *until = ts_cuda_device_now ();
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
write_record (TsCudaDevice *self,
              const Item   *it,
              TsTime        start,
              TsTime        end)
{
  switch (it->kind)
    {
    case ITEM_KERNEL:
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
    case ITEM_MEMCPY:
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
    case ITEM_MEMSET:
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

static void
collect (TsCudaDevice *self)
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

/* With CUPTI, what the call puts on the device (kernels, copies, memsets,
 * event records and waits) carries the correlation of its API call, so
 * that the translator joins it to the call. */
static void
push_correlation (TsCudaDevice   *self,
                  const TsSubmit *sub)
{
  if (self->activity != NULL)
    self->activity->push_correlation (self->source, sub->correlation);
}

static void
pop_correlation (TsCudaDevice *self)
{
  if (self->activity != NULL)
    self->activity->pop_correlation (self->source);
}

/* Enqueues work->on_device on the item's stream and times it. The work's
 * data is destroyed before this returns. There is no item to wait for:
 * wait_item waits for the stream. */
static int
submit (TsCudaDevice   *self,
        Item           *item,
        const TsSubmit *sub,
        const TsWork   *work,
        guint32        *wait)
{
  Pending p = { { 0 }, NULL, NULL };
  gpointer stream;
  int err;

  *wait = TS_ITEM_NONE;
  item->stream = sub->stream;
  item->device = g_array_index (self->streams, Stream, sub->stream).device;
  item->correlation = sub->correlation;
  item->queued = sub->ready;
  p.item = *item;

  stream = use_stream (self, item->stream, &err);
  if (err == 0 && work->on_device == NULL)
    err = TS_CUDA_ERROR_NOT_SUPPORTED;

  if (err == 0 && self->activity != NULL)
    {
      push_correlation (self, sub);
      err = work->on_device (work->data, stream);
      pop_correlation (self);
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

static int
launch (gpointer            impl,
        const TsSubmit     *sub,
        const TsKernelDesc *desc,
        TsStringId          name,
        guint32            *item)
{
  Item it = {
    .kind = ITEM_KERNEL, .name = name,
    .flops = desc->flops, .bytes = desc->bytes,
  };

  for (guint i = 0; i < 3; i++)
    {
      it.grid[i] = MAX (desc->grid[i], 1);
      it.block[i] = MAX (desc->block[i], 1);
    }
  return submit (impl, &it, sub, &desc->work, item);
}

static int
copy (gpointer          impl,
      const TsSubmit   *sub,
      const TsCopyDesc *desc,
      guint32          *item)
{
  Item it = {
    .kind = ITEM_MEMCPY, .bytes = desc->bytes, .copy_kind = desc->kind,
    .copy_flags = (desc->pinned ? TS_COPY_FLAG_PINNED : 0) |
                  (desc->non_blocking ? TS_COPY_FLAG_ASYNC : 0),
    .src_device = desc->src_device, .dst_device = desc->dst_device,
  };

  return submit (impl, &it, sub, &desc->work, item);
}

static int
fill (gpointer            impl,
      const TsSubmit     *sub,
      const TsMemsetDesc *desc,
      guint32            *item)
{
  Item it = { .kind = ITEM_MEMSET, .bytes = desc->bytes, .value = desc->value };

  return submit (impl, &it, sub, &desc->work, item);
}

/* The GPU does not say which item failed: the host waits for the whole
 * stream, so that an error surfaces at this call. */
static int
wait_item (gpointer    impl,
           TsStreamId  stream,
           guint32     item,
           TsTime     *until)
{
  return stream_sync (impl, stream, until);
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

static Event *
lookup (TsCudaDevice *self,
        guint64       event)
{
  return g_hash_table_lookup (self->events, &event);
}

/* The CUDA event is created at the first record, on the stream's device. */
static int
event_record (gpointer        impl,
              const TsSubmit *sub,
              TsDeviceEvent  *event,
              TsEventFlags    flags)
{
  TsCudaDevice *self = impl;
  Event *ev = lookup (self, event->id);
  gpointer s;
  int err;

  s = use_stream (self, sub->stream, &err);
  if (err != 0)
    return err;
  if (ev == NULL)
    {
      gint64 *key = g_new (gint64, 1);

      ev = g_new0 (Event, 1);
      ev->device = g_array_index (self->streams, Stream, sub->stream).device;
      err = self->k->event_create (&ev->event, event_flags (flags));
      if (err != 0)
        {
          g_free (ev);
          g_free (key);
          return err;
        }
      *key = (gint64) event->id;
      g_hash_table_insert (self->events, key, ev);
    }
  push_correlation (self, sub);
  err = self->k->event_record (ev->event, s);
  pop_correlation (self);
  if (err == 0)
    event->record = RECORDED;
  return err;
}

static int
event_query (gpointer             impl,
             const TsDeviceEvent *event,
             TsTime               host)
{
  TsCudaDevice *self = impl;
  Event *ev = lookup (self, event->id);

  return ev == NULL ? 0 : self->k->event_query (ev->event);
}

static int
event_sync (gpointer             impl,
            const TsDeviceEvent *event,
            TsTime              *until)
{
  TsCudaDevice *self = impl;
  Event *ev = lookup (self, event->id);
  int err = ev == NULL ? 0 : self->k->event_sync (ev->event);

  collect (self);
  *until = ts_cuda_device_now ();
  return err;
}

/* A device that has faulted answers with its fault, as every CUDA call
 * does once the context has a sticky error. */
static int
event_elapsed (gpointer             impl,
               const TsDeviceEvent *start,
               const TsDeviceEvent *end,
               TsTime               host,
               float               *ms)
{
  TsCudaDevice *self = impl;
  Event *a = lookup (self, start->id);
  Event *b = lookup (self, end->id);
  int err;

  if (start->device != end->device)
    return TS_DEVICE_SIDE_OTHER_DEVICES;
  if (a == NULL || b == NULL)
    return TS_CUDA_ERROR_INVALID_VALUE;
  err = self->k->event_elapsed (ms, a->event, b->event);
  if (err == 0 && self->faults[start->device].code != 0)
    return (int) self->faults[start->device].code;
  return err;
}

static int
stream_wait_event (gpointer             impl,
                   const TsSubmit      *sub,
                   const TsDeviceEvent *event)
{
  TsCudaDevice *self = impl;
  Event *ev = lookup (self, event->id);
  gpointer s;
  int err;

  if (ev == NULL)
    return 0;
  s = use_stream (self, sub->stream, &err);
  if (err != 0)
    return err;
  push_correlation (self, sub);
  err = self->k->stream_wait_event (s, ev->event);
  pop_correlation (self);
  return err;
}

static void
event_release (gpointer             impl,
               const TsDeviceEvent *event)
{
  TsCudaDevice *self = impl;
  Event *ev = lookup (self, event->id);

  if (ev != NULL)
    {
      self->k->event_destroy (ev->event);
      g_hash_table_remove (self->events, &event->id);
    }
}

/* ------------------------------------------------------------ errors */

static const TsFault *
get_fault (gpointer impl,
           guint    device)
{
  TsCudaDevice *self = impl;

  return self->faults[device].code != 0 ? &self->faults[device] : NULL;
}

/* cudaErrorIllegalAddress .. cudaErrorLaunchFailure, less the launch
 * configuration errors: what leaves the context unusable. */
static gboolean
is_sticky_error (int err)
{
  return err >= 700 && err <= 720 && err != 701 && err != 709;
}

/* The GPU does not say which kernel failed: the fault's correlation is the
 * call that found out (with launch blocking, the launch itself). */
static gboolean
take_error (gpointer impl,
            guint    device,
            int      err,
            guint64  correlation)
{
  TsCudaDevice *self = impl;

  if (!is_sticky_error (err))
    return FALSE;
  if (self->faults[device].code == 0)
    self->faults[device] = (TsFault) {
      .code = (TsDeviceError) err,
      .correlation = correlation,
      .stream = TS_STREAM_NONE,
    };
  return TRUE;
}

static const char *
error_string (gpointer impl,
              int      err)
{
  TsCudaDevice *self = impl;

  return self->k->error_string (err);
}

/* ------------------------------------------------------------ clock */

/* The host clock is the real one: it reads now, whatever was charged. */
static TsTime
host_time (gpointer impl,
           TsTime   clock)
{
  return MAX (clock, ts_cuda_device_now ());
}

static TsTime
host_charge (gpointer impl,
             TsTime   clock,
             TsTime   ns)
{
  return clock;
}

static TsTime
host_spend (gpointer impl,
            TsTime   clock,
            TsTime   ns)
{
  return ts_cuda_device_now ();
}

static void
catch_up (gpointer impl,
          TsTime   host)
{
}

/* ------------------------------------------------------------ end */

static void
finish (gpointer impl)
{
  TsCudaDevice *self = impl;

  /* Whatever is still queued finishes first, so that every item is timed. */
  for (guint d = 0; d < self->n_devices; d++)
    if (self->k->set_device ((int) d) == 0)
      self->k->device_sync ();
  collect (self);
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

  finish (self);

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
  g_free (self->faults);
  g_object_unref (self->recorder);
  g_free (self);
}

static void
free_ (gpointer impl)
{
  ts_cuda_device_free (impl);
}

static const TsDeviceSideOps cuda_device_ops = {
  .host_time = host_time,
  .host_charge = host_charge,
  .host_spend = host_spend,
  .catch_up = catch_up,
  .add_stream = add_stream,
  .launch = launch,
  .copy = copy,
  .fill = fill,
  .wait_item = wait_item,
  .stream_query = stream_query,
  .stream_sync = stream_sync,
  .device_sync = device_sync,
  .event_record = event_record,
  .event_query = event_query,
  .event_sync = event_sync,
  .stream_wait_event = stream_wait_event,
  .event_elapsed = event_elapsed,
  .event_release = event_release,
  .get_fault = get_fault,
  .take_error = take_error,
  .error_string = error_string,
  .finish = finish,
  .free = free_,
};

TsDeviceSide
ts_cuda_device_get_side (TsCudaDevice *self)
{
  return (TsDeviceSide) { &cuda_device_ops, self };
}
