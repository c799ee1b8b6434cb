/* ts-runtime.c: the simulated multi-GPU runtime
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The host half of the simulation. Each public call takes the lock, finds
 * the calling thread's state, brings the device simulation (TsScheduler) up
 * to that thread's clock, does its work, charges its modeled host cost and
 * records an API record [start, end) with the thread's current call site.
 * Blocking calls run the simulation until their condition holds and move
 * the host clock to that time, recording the blocked span.
 *
 * Host costs (virtual ns, from the profile): launches, copies and memsets
 * cost launch_latency_ns; every other runtime call api_latency_ns; NVTX and
 * stream/device bookkeeping (set_device, current stream, stream creation
 * from the pool) cost nothing and make no API record, as in PyTorch where
 * they either do not reach CUDA or happen once up front.
 */

#include "config.h"

#include <string.h>

#include "ts-callsite.h"
#include "ts-cuda-device-private.h"
#include "ts-device-side.h"
#include "ts-runtime.h"
#include "ts-nvtx-forward.h"
#include "ts-scheduler-private.h"

#define CUDA_ERROR_TRAILER \
  "\nCUDA kernel errors might be asynchronously reported at some other API call, " \
  "so the stacktrace below might be incorrect.\n" \
  "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"

/* What c10_retrieve_device_side_assertion_info() appends to every checked
 * CUDA error in a PyTorch built without TORCH_USE_CUDA_DSA (the releases). */
#define CUDA_DSA_TRAILER \
  "\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"

/* PyTorch's stream pool: four priority levels of 32 streams per device. */
#define POOL_LEVELS 4
#define POOL_SIZE 32

/* Handles look like pointers, as cuda_stream and cuda_event do in PyTorch,
 * but are a pure function of creation order. */
#define STREAM_HANDLE_BASE G_GUINT64_CONSTANT (0x7f3a00000000)
#define EVENT_HANDLE_BASE G_GUINT64_CONSTANT (0x7f3b00000000)

#define DEFAULT_N_GPUS 4

typedef struct
{
  guint64     correlation;
  TsStringId  name;
  TsTime      start;
  gint32      device;
  TsStreamId  stream;
  TsSourceLoc loc;
} Span;

typedef struct
{
  guint       id;
  GThread    *thread;        /* referenced, so its address is not reused */
  TsTime      clock;
  int         device;
  TsStreamId *current;       /* current stream, per device */
  GArray     *spans;         /* Span: open API spans of higher layers */
  GArray     *nvtx;          /* TsStringId: pushed NVTX ranges */
} HostThread;

typedef struct
{
  TsDeviceEvent base;        /* id; device and record from the first record on */
  TsEventFlags  flags;
  guint64       handle;      /* 0 until the first record */
} Event;

typedef struct
{
  guint        device;
  int          priority;
  guint64      handle;
} Stream;

/* One host call in progress. */
typedef struct
{
  HostThread *ht;
  TsStringId  name;
  TsTime      start;
  guint64     correlation;
  gint32      device;
  TsStreamId  stream;
  TsSourceLoc loc;
} Call;

enum
{
  API_LAUNCH_KERNEL,
  API_MEMCPY,
  API_MEMSET,
  API_STREAM_SYNCHRONIZE,
  API_STREAM_QUERY,
  API_STREAM_WAIT_EVENT,
  API_EVENT_RECORD,
  API_EVENT_QUERY,
  API_EVENT_SYNCHRONIZE,
  API_EVENT_ELAPSED_TIME,
  API_DEVICE_SYNCHRONIZE,
  N_API_NAMES
};

static const char *api_names[N_API_NAMES] = {
  "cudaLaunchKernel",
  "cudaMemcpyAsync",
  "cudaMemsetAsync",
  "cudaStreamSynchronize",
  "cudaStreamQuery",
  "cudaStreamWaitEvent",
  "cudaEventRecord",
  "cudaEventQuery",
  "cudaEventSynchronize",
  "cudaEventElapsedTime",
  "cudaDeviceSynchronize",
};

struct _TsRuntime
{
  GObject             parent_instance;

  GMutex              lock;
  guint64             serial;

  TsRecorder         *recorder;
  const TsGpuProfile *profile;
  TsDeviceSide        side;            /* the simulator, or a real GPU */
  gboolean            launch_blocking;

  guint               n_physical;
  guint               n_devices;
  int                *physical;        /* physical index per visible ordinal */
  char               *visible_note;
  gboolean           *fault_surfaced;  /* per device: the error record is written */

  GHashTable         *threads;         /* GThread* -> HostThread* */
  guint               n_threads;
  TsTime              max_host_time;

  GArray             *streams;         /* Stream, by TsStreamId */
  GHashTable         *events;          /* &Event.base.id -> Event* */
  guint64             last_event_id;
  guint64             last_event_handle;
  guint64             last_correlation;
  guint64             last_range_id;

  TsStreamId         *pool;            /* n_devices * POOL_LEVELS * POOL_SIZE */
  guint              *pool_next;       /* n_devices * POOL_LEVELS */

  TsStringId          api_ids[N_API_NAMES];
};

enum {
  PROP_0,
  PROP_RECORDER,
  PROP_N_DEVICES,
  PROP_GPU_MODEL,
  PROP_LAUNCH_BLOCKING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (TsRuntime, ts_runtime, G_TYPE_OBJECT)

G_DEFINE_QUARK (ts-runtime-error-quark, ts_runtime_error)

static gint last_serial;

/* The calling thread's state for the runtime it used last: a lookup in the
 * hash table only when it switches runtimes. The serial, not the pointer,
 * identifies the runtime, so a new runtime at a freed one's address misses. */
static __thread struct {
  guint64     serial;
  HostThread *ht;
} tls_cache;

const char *
ts_device_error_to_string (TsDeviceError error)
{
  switch (error)
    {
    case TS_DEVICE_ERROR_NONE:
      return "no error";
    case TS_DEVICE_ERROR_ILLEGAL_ADDRESS:
      return "an illegal memory access was encountered";
    case TS_DEVICE_ERROR_LAUNCH_OUT_OF_RESOURCES:
      return "too many resources requested for launch";
    case TS_DEVICE_ERROR_ASSERT:
      return "device-side assert triggered";
    case TS_DEVICE_ERROR_MISALIGNED_ADDRESS:
      return "misaligned address";
    case TS_DEVICE_ERROR_LAUNCH_FAILURE:
      return "unspecified launch failure";
    default:
      return "unknown error";
    }
}

/* ---------------------------------------------------------------- threads */

static void
host_thread_free (gpointer data)
{
  HostThread *ht = data;

  g_thread_unref (ht->thread);
  g_free (ht->current);
  g_array_unref (ht->spans);
  g_array_unref (ht->nvtx);
  g_free (ht);
}

/* On a real GPU a thread's clock is the real one, whatever it last read. */
static inline void
host_read_clock (TsRuntime  *self,
                 HostThread *ht)
{
  ht->clock = self->side.ops->host_time (self->side.impl, ht->clock);
}

static HostThread *
host_thread (TsRuntime *self)
{
  GThread *thread;
  HostThread *ht;

  if (G_LIKELY (tls_cache.serial == self->serial))
    {
      host_read_clock (self, tls_cache.ht);
      return tls_cache.ht;
    }

  thread = g_thread_self ();
  ht = g_hash_table_lookup (self->threads, thread);

  if (ht == NULL)
    {
      g_autofree char *name = NULL;
      TsThreadRecord rec;

      ht = g_new0 (HostThread, 1);
      ht->id = self->n_threads++;
      ht->thread = g_thread_ref (thread);
      /* A new thread starts when it first calls in; its clock cannot be
       * behind what the other threads have already done. */
      ht->clock = self->max_host_time;
      ht->current = g_new (TsStreamId, MAX (self->n_devices, 1));
      for (guint i = 0; i < self->n_devices; i++)
        ht->current[i] = i;
      ht->spans = g_array_new (FALSE, FALSE, sizeof (Span));
      ht->nvtx = g_array_new (FALSE, FALSE, sizeof (TsStringId));
      g_hash_table_insert (self->threads, thread, ht);

      name = ht->id == 0 ? g_strdup ("MainThread") : g_strdup_printf ("Thread-%u", ht->id);
      rec = (TsThreadRecord) {
        .thread = ht->id,
        .name = ts_recorder_intern (self->recorder, name),
      };
      TS_RECORDER_APPEND (self->recorder, TS_RECORD_THREAD, TsThreadRecord, &rec);
    }

  tls_cache.serial = self->serial;
  tls_cache.ht = ht;
  host_read_clock (self, ht);

  return ht;
}

/* Host work or a blocked span: the thread's clock moves on by ns (on a
 * real GPU, to the real time). */
static void
host_spend (TsRuntime  *self,
            HostThread *ht,
            TsTime      ns)
{
  ht->clock = self->side.ops->host_spend (self->side.impl, ht->clock, ns);
  self->max_host_time = MAX (self->max_host_time, ht->clock);
}

/* A call's modelled host cost (on a real GPU, nothing: real time passes by
 * itself and is read at the call's end). */
static void
host_charge (TsRuntime  *self,
             HostThread *ht,
             TsTime      ns)
{
  ht->clock = self->side.ops->host_charge (self->side.impl, ht->clock, ns);
  self->max_host_time = MAX (self->max_host_time, ht->clock);
}

/* ---------------------------------------------------------------- calls */

static guint64
next_correlation (TsRuntime *self)
{
  return ++self->last_correlation;
}

static void
call_begin (TsRuntime *self,
            Call      *call,
            guint      api)
{
  HostThread *ht = host_thread (self);

  call->ht = ht;
  call->name = self->api_ids[api];
  call->start = ht->clock;
  call->device = -1;
  call->stream = TS_STREAM_NONE;
  call->loc = ts_callsite_get ();

  /* Inside a higher layer's span ("aten::add") the call and its work share
   * the span's correlation id. */
  if (ht->spans->len > 0)
    call->correlation = g_array_index (ht->spans, Span, ht->spans->len - 1).correlation;
  else
    call->correlation = next_correlation (self);

  /* The device catches up with the host before the host acts. */
  self->side.ops->catch_up (self->side.impl, ht->clock);
}

static inline guint
stream_device (TsRuntime  *self,
               TsStreamId  stream)
{
  return g_array_index (self->streams, Stream, stream).device;
}

static void
call_set_stream (TsRuntime  *self,
                 Call       *call,
                 TsStreamId  stream)
{
  call->stream = stream;
  call->device = (gint32) stream_device (self, stream);
}

/* What the device side gets with an item this call submits: the host's
 * clock is when the device sees it. */
static inline TsSubmit
call_submission (const Call *call)
{
  return (TsSubmit) { call->stream, call->ht->clock, call->correlation, call->loc };
}

/* call_end without the append: the caller appends *rec. */
static void
call_end_deferred (TsRuntime       *self,
                   Call            *call,
                   TsApiCallRecord *rec)
{
  host_read_clock (self, call->ht);
  *rec = (TsApiCallRecord) {
    .start = call->start,
    .end = call->ht->clock,
    .correlation = call->correlation,
    .thread = call->ht->id,
    .name = call->name,
    .loc = call->loc,
    .device = call->device,
    .stream = call->stream,
  };
  self->max_host_time = MAX (self->max_host_time, call->ht->clock);
}

static void
call_end (TsRuntime *self,
          Call      *call)
{
  TsApiCallRecord rec;

  call_end_deferred (self, call, &rec);
  TS_RECORDER_APPEND (self->recorder, TS_RECORD_API_CALL, TsApiCallRecord, &rec);
}

/* Blocks the calling thread until `until` (if later) and records the span. */
static void
call_block (TsRuntime  *self,
            Call       *call,
            TsSyncKind  kind,
            gint32      device,
            TsStreamId  stream,
            guint64     event,
            TsTime      until)
{
  TsTime begin = call->ht->clock;
  TsSyncRecord rec = {
    .start = begin,
    .end = MAX (begin, until),
    .correlation = call->correlation,
    .thread = call->ht->id,
    .kind = kind,
    .device = device,
    .stream = stream,
    .event = event,
  };

  TS_RECORDER_APPEND (self->recorder, TS_RECORD_SYNC, TsSyncRecord, &rec);
  host_spend (self, call->ht, rec.end - begin);
}

/* Reports a device's sticky fault, if any, at this call. The first time it
 * surfaces, an error record links the faulting launch to this call. */
static gboolean
call_check_fault (TsRuntime  *self,
                  Call       *call,
                  guint       device,
                  GError    **error)
{
  const TsFault *fault = self->side.ops->get_fault (self->side.impl, device);
  g_autofree char *message = NULL;

  if (G_LIKELY (fault == NULL))
    return TRUE;

  /* PyTorch leaves out the "asynchronously reported" note when launches
   * are blocking: the stack is then the right one. */
  message = g_strdup_printf ("CUDA error: %s%s" CUDA_DSA_TRAILER,
                             ts_device_error_to_string (fault->code),
                             self->launch_blocking ? "" : CUDA_ERROR_TRAILER);

  if (!self->fault_surfaced[device])
    {
      TsErrorRecord rec = {
        .time = call->ht->clock,
        .kernel_correlation = fault->correlation,
        .surfaced_correlation = call->correlation,
        .device = device,
        .stream = fault->stream,
        .code = fault->code,
        .message = ts_recorder_intern (self->recorder, message),
        .launch_loc = fault->loc,
        .surfaced_loc = call->loc,
      };

      TS_RECORDER_APPEND (self->recorder, TS_RECORD_ERROR, TsErrorRecord, &rec);
      self->fault_surfaced[device] = TRUE;
    }

  g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_DEVICE_FAULT, message);
  return FALSE;
}

/* Interprets a result of the device side for the call (cudaErrorNotReady
 * is no error). A sticky error becomes the device's fault, reported here,
 * as CUDA returns it from the call that finds it, and by every later
 * call_check_fault; any other is a CUDA error. */
static gboolean
call_check_result (TsRuntime  *self,
                   Call       *call,
                   guint       device,
                   int         err,
                   GError    **error)
{
  if (G_LIKELY (err == 0 || err == TS_CUDA_ERROR_NOT_READY))
    return TRUE;
  if (self->side.ops->take_error (self->side.impl, device, err, call->correlation))
    return call_check_fault (self, call, device, error);
  g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_CUDA, "CUDA error: %s%s" CUDA_DSA_TRAILER,
               self->side.ops->error_string (self->side.impl, err),
               self->launch_blocking ? "" : CUDA_ERROR_TRAILER);
  return FALSE;
}

/* A query's answer err (cudaErrorNotReady: still busy) into *done. */
static gboolean
call_query (TsRuntime  *self,
            Call       *call,
            guint       device,
            int         err,
            gboolean   *done,
            GError    **error)
{
  if (!call_check_result (self, call, device, err, error) ||
      !call_check_fault (self, call, device, error))
    return FALSE;
  if (done != NULL)
    *done = err != TS_CUDA_ERROR_NOT_READY;
  return TRUE;
}

/* A blocking call once the wait is over (err is its result, until when it
 * ended): records the blocked span and reports any error. */
static gboolean
call_blocked (TsRuntime  *self,
              Call       *call,
              TsSyncKind  kind,
              guint       device,
              TsStreamId  stream,
              guint64     event,
              int         err,
              TsTime      until,
              GError    **error)
{
  call_block (self, call, kind, (gint32) device, stream, event, until);
  return call_check_result (self, call, device, err, error) &&
         call_check_fault (self, call, device, error);
}

/* ---------------------------------------------------------------- checks */

static gboolean
check_device (TsRuntime   *self,
              HostThread  *ht,
              int         *device,
              GError     **error)
{
  if (self->n_devices == 0)
    {
      g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_NO_DEVICE,
                           "No CUDA GPUs are available");
      return FALSE;
    }

  if (*device == -1)
    *device = ht->device;

  if (*device < 0 || (guint) *device >= self->n_devices)
    {
      g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_DEVICE,
                           "CUDA error: invalid device ordinal" CUDA_ERROR_TRAILER);
      return FALSE;
    }

  return TRUE;
}

static gboolean
check_stream (TsRuntime   *self,
              TsStreamId   stream,
              GError     **error)
{
  if (stream >= self->streams->len)
    {
      if (stream == TS_STREAM_NONE)
        g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_STREAM,
                             "No stream given");
      else
        g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_STREAM,
                     "Invalid stream %u: the runtime has no such stream", stream);
      return FALSE;
    }

  return TRUE;
}

static Event *
lookup_event (TsRuntime  *self,
              guint64     id,
              GError    **error)
{
  Event *ev = g_hash_table_lookup (self->events, &id);

  if (ev == NULL)
    g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_EVENT,
                 "Invalid event %" G_GUINT64_FORMAT ": it was freed or never created", id);

  return ev;
}

static void
destroy_work (const TsWork *work)
{
  if (work->destroy != NULL)
    work->destroy (work->data);
}

/* ---------------------------------------------------------------- object */

static void
ts_runtime_finalize (GObject *object)
{
  TsRuntime *self = (TsRuntime *) object;

  if (tls_cache.serial == self->serial)
    tls_cache = (typeof (tls_cache)) { 0 };

  g_clear_pointer (&self->events, g_hash_table_unref);
  g_clear_pointer (&self->threads, g_hash_table_unref);
  if (self->side.ops != NULL)
    self->side.ops->free (self->side.impl);
  self->side = (TsDeviceSide) { 0 };
  g_clear_pointer (&self->streams, g_array_unref);
  g_clear_object (&self->recorder);
  g_free (self->physical);
  g_free (self->visible_note);
  g_free (self->fault_surfaced);
  g_free (self->pool);
  g_free (self->pool_next);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (ts_runtime_parent_class)->finalize (object);
}

static void
ts_runtime_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  TsRuntime *self = TS_RUNTIME (object);

  switch (prop_id)
    {
    case PROP_RECORDER:
      g_value_set_object (value, self->recorder);
      break;

    case PROP_N_DEVICES:
      g_value_set_uint (value, self->n_devices);
      break;

    case PROP_GPU_MODEL:
      g_value_set_string (value, self->profile->key);
      break;

    case PROP_LAUNCH_BLOCKING:
      g_value_set_boolean (value, self->launch_blocking);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_runtime_class_init (TsRuntimeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ts_runtime_finalize;
  object_class->get_property = ts_runtime_get_property;

  properties[PROP_RECORDER] =
    g_param_spec_object ("recorder", NULL, NULL, TS_TYPE_RECORDER,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_DEVICES] =
    g_param_spec_uint ("n-devices", NULL, NULL, 0, TS_RUNTIME_MAX_GPUS, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_GPU_MODEL] =
    g_param_spec_string ("gpu-model", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_LAUNCH_BLOCKING] =
    g_param_spec_boolean ("launch-blocking", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ts_runtime_init (TsRuntime *self)
{
  g_mutex_init (&self->lock);
  self->serial = (guint64) (guint) g_atomic_int_add (&last_serial, 1) + 1;
  self->threads = g_hash_table_new_full (NULL, NULL, NULL, host_thread_free);
  self->streams = g_array_new (FALSE, FALSE, sizeof (Stream));
  self->events = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
}

/* ---------------------------------------------------------------- setup */

GArray *
ts_runtime_parse_visible_devices (const char  *value,
                                  guint        n_physical,
                                  char       **note)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (int));
  g_auto(GStrv) entries = NULL;

  if (note != NULL)
    *note = NULL;

  if (value == NULL)
    {
      for (guint i = 0; i < n_physical; i++)
        g_array_append_val (out, i);
      return out;
    }

  if (*value == '\0')
    {
      if (note != NULL)
        *note = g_strdup ("CUDA_VISIBLE_DEVICES is empty: no device is visible");
      return out;
    }

  if (g_str_has_prefix (value, "GPU-") || g_str_has_prefix (value, "MIG-"))
    {
      if (note != NULL)
        *note = g_strdup_printf ("CUDA_VISIBLE_DEVICES=%s: simulated devices have no UUIDs, "
                                 "so no device is visible", value);
      return out;
    }

  /* As CUDA (and torch.cuda's _parse_visible_devices): each entry is read
   * like strtoul, so "1gpu2" is 1; an entry with no number, a negative one
   * or one past the last device ends the list there; a repeated ordinal
   * hides every device. */
  entries = g_strsplit (value, ",", -1);
  for (guint i = 0; entries[i] != NULL; i++)
    {
      const char *entry = g_strstrip (entries[i]);
      const char *p = entry;
      gboolean negative = FALSE;
      guint64 ordinal = 0;
      guint n_digits = 0;

      if (*p == '+' || *p == '-')
        negative = *p++ == '-';
      for (; g_ascii_isdigit (*p); p++, n_digits++)
        ordinal = MIN (ordinal * 10 + (guint64) (*p - '0'), G_MAXINT);

      if (n_digits == 0 || negative)
        {
          if (note != NULL)
            *note = g_strdup_printf ("CUDA_VISIBLE_DEVICES=%s: “%s” is not a device ordinal; "
                                     "as in CUDA, it and every entry after it are ignored",
                                     value, entry);
          break;
        }

      if (ordinal >= n_physical)
        {
          if (note != NULL)
            *note = g_strdup_printf ("CUDA_VISIBLE_DEVICES=%s: there is no device %" G_GUINT64_FORMAT
                                     " (%u simulated); as in CUDA, it and every entry after it "
                                     "are ignored", value, ordinal, n_physical);
          break;
        }

      for (guint j = 0; j < out->len; j++)
        {
          if ((guint64) g_array_index (out, int, j) == ordinal)
            {
              if (note != NULL)
                *note = g_strdup_printf ("CUDA_VISIBLE_DEVICES=%s: device %" G_GUINT64_FORMAT
                                         " is listed twice; as in CUDA, no device is visible",
                                         value, ordinal);
              g_array_set_size (out, 0);
              return out;
            }
        }

      {
        int ordinal_int = (int) ordinal;
        g_array_append_val (out, ordinal_int);
      }
    }

  return out;
}

/* A stream of the device side, with the handle torch shows as cuda_stream
 * (a real GPU's own handle). */
static TsStreamId
add_stream (TsRuntime  *self,
            guint       device,
            int         priority,
            gboolean    is_default,
            GError    **error)
{
  TsStreamId id = self->streams->len;
  Stream stream = {
    .device = device,
    .priority = priority,
    .handle = is_default ? 0 : STREAM_HANDLE_BASE + (guint64) id * 0x200,
  };
  TsStreamRecord rec;

  if (!self->side.ops->add_stream (self->side.impl, id, device, priority, is_default,
                                   &stream.handle, error))
    return TS_STREAM_NONE;
  g_array_append_val (self->streams, stream);

  rec = (TsStreamRecord) {
    .stream = id,
    .device = device,
    .priority = priority,
    .is_default = is_default,
    .handle = stream.handle,
  };
  TS_RECORDER_APPEND (self->recorder, TS_RECORD_STREAM, TsStreamRecord, &rec);

  return id;
}

/* The device side on a real GPU: its devices are the CUDA module's (the
 * driver has applied CUDA_VISIBLE_DEVICES already), its profile the real
 * device's over the model's. */
static GArray *
open_gpu (TsRuntime               *self,
          const TsRuntimeOptions  *options,
          const TsGpuProfile     **profile,
          guint                   *n_physical,
          GError                 **error)
{
  TsCudaDevice *gpu = ts_cuda_device_open (options->hardware, options->activity, self->recorder,
                                           *profile, error);
  GArray *visible;

  if (gpu == NULL)
    return NULL;
  self->side = ts_cuda_device_get_side (gpu);
  *profile = ts_cuda_device_get_profile (gpu);
  *n_physical = ts_cuda_device_get_n_devices (gpu);
  visible = g_array_new (FALSE, FALSE, sizeof (int));
  for (int d = 0; d < (int) *n_physical; d++)
    g_array_append_val (visible, d);
  return visible;
}

static gboolean
resolve_n_gpus (const TsRuntimeOptions  *options,
                guint                   *n_gpus,
                GError                 **error)
{
  const char *env;
  guint64 n;
  g_autoptr(GError) local_error = NULL;

  if (options->n_gpus > 0)
    {
      if (options->n_gpus > TS_RUNTIME_MAX_GPUS)
        {
          g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_ARGUMENT,
                       "Cannot simulate %u GPUs: the number of GPUs must be from 1 to %u",
                       options->n_gpus, TS_RUNTIME_MAX_GPUS);
          return FALSE;
        }
      *n_gpus = options->n_gpus;
      return TRUE;
    }

  env = g_getenv ("TENSORSCOPE_GPUS");
  if (env == NULL || *env == '\0')
    {
      *n_gpus = DEFAULT_N_GPUS;
      return TRUE;
    }

  if (!g_ascii_string_to_unsigned (env, 10, 1, TS_RUNTIME_MAX_GPUS, &n, &local_error))
    {
      g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_ARGUMENT,
                   "TENSORSCOPE_GPUS=%s: the number of GPUs must be from 1 to %u",
                   env, TS_RUNTIME_MAX_GPUS);
      return FALSE;
    }

  *n_gpus = (guint) n;
  return TRUE;
}

/* The device side in virtual time: the model's devices, less those
 * CUDA_VISIBLE_DEVICES hides (*note says why, when it cut the list). */
static GArray *
open_simulator (TsRuntime               *self,
                const TsRuntimeOptions  *options,
                const TsGpuProfile      *profile,
                guint                   *n_physical,
                char                   **note,
                GError                 **error)
{
  GArray *visible;

  if (!resolve_n_gpus (options, n_physical, error))
    return NULL;
  visible = ts_runtime_parse_visible_devices (options->visible_devices, *n_physical, note);
  self->side = ts_scheduler_get_side (ts_scheduler_new (self->recorder, profile, visible->len));
  return visible;
}

TsRuntime *
ts_runtime_new (const TsRuntimeOptions  *options,
                TsRecorder              *recorder,
                GError                 **error)
{
  static const TsRuntimeOptions defaults = { 0 };
  g_autoptr(TsRuntime) self = NULL;
  const TsGpuProfile *profile;
  const char *model;
  guint n_physical;
  g_autoptr(GArray) visible = NULL;
  char *note = NULL;

  g_return_val_if_fail (recorder == NULL || TS_IS_RECORDER (recorder), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (options == NULL)
    options = &defaults;

  model = options->gpu_model != NULL ? options->gpu_model : ts_gpu_profile_get_default ()->key;
  profile = ts_gpu_profile_lookup (model);
  if (profile == NULL)
    {
      g_autofree char *known = ts_gpu_profile_dup_known ();

      g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_UNKNOWN_MODEL,
                   "Unknown GPU model “%s”; known models: %s", model, known);
      return NULL;
    }

  self = g_object_new (TS_TYPE_RUNTIME, NULL);
  self->recorder = recorder != NULL ? g_object_ref (recorder) : ts_recorder_new ();

  /* The one place that asks which device side there is: every call after
   * this goes through self->side. */
  if (options->hardware != NULL)
    visible = open_gpu (self, options, &profile, &n_physical, error);
  else
    visible = open_simulator (self, options, profile, &n_physical, &note, error);
  if (visible == NULL)
    return NULL;

  self->profile = profile;
  self->launch_blocking = !!options->launch_blocking;
  self->n_physical = n_physical;
  self->n_devices = visible->len;
  self->physical = g_new0 (int, MAX (visible->len, 1));
  if (visible->len > 0)
    memcpy (self->physical, visible->data, sizeof (int) * visible->len);
  self->visible_note = note;
  self->fault_surfaced = g_new0 (gboolean, MAX (visible->len, 1));
  self->pool = g_new (TsStreamId, MAX (visible->len, 1) * POOL_LEVELS * POOL_SIZE);
  for (guint i = 0; i < MAX (visible->len, 1) * POOL_LEVELS * POOL_SIZE; i++)
    self->pool[i] = TS_STREAM_NONE;
  self->pool_next = g_new0 (guint, MAX (visible->len, 1) * POOL_LEVELS);

  for (guint i = 0; i < N_API_NAMES; i++)
    self->api_ids[i] = ts_recorder_intern (self->recorder, api_names[i]);

  for (guint i = 0; i < self->n_devices; i++)
    {
      TsDeviceRecord rec = {
        .index = i,
        .name = ts_recorder_intern (self->recorder, profile->name),
        .model = ts_recorder_intern (self->recorder, profile->key),
        .sm_count = profile->sm_count,
        .cc_major = profile->cc_major,
        .cc_minor = profile->cc_minor,
        .total_memory = profile->total_memory,
      };

      TS_RECORDER_APPEND (self->recorder, TS_RECORD_DEVICE, TsDeviceRecord, &rec);
    }

  /* The default stream of device d is track d. */
  for (guint i = 0; i < self->n_devices; i++)
    if (add_stream (self, i, 0, TRUE, error) == TS_STREAM_NONE)
      return NULL;

  if (note != NULL)
    {
      TsOutputRecord rec = {
        .time = 0,
        .thread = 0,
        .kind = TS_OUTPUT_TOOL,
        .text = ts_recorder_intern (self->recorder, note),
      };

      TS_RECORDER_APPEND (self->recorder, TS_RECORD_OUTPUT, TsOutputRecord, &rec);
    }

  /* The creating thread is the main thread, thread 0. */
  host_thread (self);

  return g_steal_pointer (&self);
}

TsRecorder *
ts_runtime_get_recorder (TsRuntime *self)
{
  g_return_val_if_fail (TS_IS_RUNTIME (self), NULL);
  return self->recorder;
}

const TsGpuProfile *
ts_runtime_get_profile (TsRuntime *self)
{
  g_return_val_if_fail (TS_IS_RUNTIME (self), NULL);
  return self->profile;
}

guint
ts_runtime_get_n_devices (TsRuntime *self)
{
  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);
  return self->n_devices;
}

int
ts_runtime_get_physical_device (TsRuntime *self,
                                int        device)
{
  g_return_val_if_fail (TS_IS_RUNTIME (self), -1);

  if (device < 0 || (guint) device >= self->n_devices)
    return -1;
  return self->physical[device];
}

gboolean
ts_runtime_get_launch_blocking (TsRuntime *self)
{
  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);
  return self->launch_blocking;
}

const char *
ts_runtime_get_visible_devices_note (TsRuntime *self)
{
  g_return_val_if_fail (TS_IS_RUNTIME (self), NULL);
  return self->visible_note;
}

/* ---------------------------------------------------------------- host */

TsTime
ts_runtime_get_host_time (TsRuntime *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);

  /* A thread's clock only moves on that thread: once it is known here it
   * reads without the lock (the allocator asks for it on every action). */
  if (G_LIKELY (tls_cache.serial == self->serial))
    return self->side.ops->host_time (self->side.impl, tls_cache.ht->clock);

  locker = g_mutex_locker_new (&self->lock);
  return host_thread (self)->clock;
}

void
ts_runtime_host_advance (TsRuntime *self,
                         TsTime     ns)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_if_fail (TS_IS_RUNTIME (self));
  g_return_if_fail (ns >= 0);

  locker = g_mutex_locker_new (&self->lock);
  host_spend (self, host_thread (self), ns);
}

guint
ts_runtime_get_thread_id (TsRuntime *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);

  locker = g_mutex_locker_new (&self->lock);
  return host_thread (self)->id;
}

int
ts_runtime_get_device (TsRuntime *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);

  locker = g_mutex_locker_new (&self->lock);
  return host_thread (self)->device;
}

gboolean
ts_runtime_set_device (TsRuntime  *self,
                       int         device,
                       GError    **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  HostThread *ht;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  locker = g_mutex_locker_new (&self->lock);
  ht = host_thread (self);

  /* -1 means "current" elsewhere; here it is just not an ordinal. */
  if (device == -1)
    device = -2;
  if (!check_device (self, ht, &device, error))
    return FALSE;

  ht->device = device;
  return TRUE;
}

gboolean
ts_device_guard_init (TsDeviceGuard  *guard,
                      TsRuntime      *runtime,
                      int             device,
                      GError        **error)
{
  g_return_val_if_fail (guard != NULL, FALSE);
  g_return_val_if_fail (TS_IS_RUNTIME (runtime), FALSE);

  guard->runtime = NULL;
  guard->previous = ts_runtime_get_device (runtime);

  if (!ts_runtime_set_device (runtime, device, error))
    return FALSE;

  guard->runtime = g_object_ref (runtime);
  return TRUE;
}

void
ts_device_guard_clear (TsDeviceGuard *guard)
{
  g_autoptr(TsRuntime) runtime = NULL;
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_if_fail (guard != NULL);

  if (guard->runtime == NULL)
    return;

  runtime = g_steal_pointer (&guard->runtime);
  locker = g_mutex_locker_new (&runtime->lock);
  /* The previous device was valid when the guard was made and devices
   * never go away, so this cannot fail. */
  host_thread (runtime)->device = guard->previous;
}

/* ---------------------------------------------------------------- streams */

TsStreamId
ts_runtime_get_default_stream (TsRuntime  *self,
                               int         device,
                               GError    **error)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), TS_STREAM_NONE);

  locker = g_mutex_locker_new (&self->lock);
  if (!check_device (self, host_thread (self), &device, error))
    return TS_STREAM_NONE;

  return (TsStreamId) device;
}

TsStreamId
ts_runtime_stream_new (TsRuntime  *self,
                       int         device,
                       int         priority,
                       GError    **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  int least, greatest;
  guint level;
  guint slot;
  TsStreamId *entry;

  g_return_val_if_fail (TS_IS_RUNTIME (self), TS_STREAM_NONE);

  locker = g_mutex_locker_new (&self->lock);
  if (!check_device (self, host_thread (self), &device, error))
    return TS_STREAM_NONE;

  if (priority > 0)
    {
      g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_ARGUMENT,
                   "Expected cuda stream priority to be less than or equal to 0, got %d",
                   priority);
      return TS_STREAM_NONE;
    }

  /* PyTorch picks the pool by level (-priority, capped at its four levels)
   * and the device clamps the priority to what it supports. */
  ts_gpu_profile_get_torch_priority_range (self->profile, &least, &greatest);
  level = (guint) MIN (-(gint64) priority, POOL_LEVELS - 1);
  slot = self->pool_next[device * POOL_LEVELS + level]++ % POOL_SIZE;
  entry = &self->pool[(device * POOL_LEVELS + level) * POOL_SIZE + slot];

  if (*entry == TS_STREAM_NONE)
    *entry = add_stream (self, (guint) device, MAX (-(int) level, greatest), FALSE, error);

  return *entry;
}

TsStreamId
ts_runtime_get_current_stream (TsRuntime  *self,
                               int         device,
                               GError    **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  HostThread *ht;

  g_return_val_if_fail (TS_IS_RUNTIME (self), TS_STREAM_NONE);

  /* A thread's current streams change only on that thread: once it is
   * known here they read without the lock (every op asks). */
  if (G_LIKELY (tls_cache.serial == self->serial))
    ht = tls_cache.ht;
  else
    {
      locker = g_mutex_locker_new (&self->lock);
      ht = host_thread (self);
    }
  if (!check_device (self, ht, &device, error))
    return TS_STREAM_NONE;

  return ht->current[device];
}

gboolean
ts_runtime_set_current_stream (TsRuntime   *self,
                               TsStreamId   stream,
                               GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  locker = g_mutex_locker_new (&self->lock);
  if (!check_stream (self, stream, error))
    return FALSE;

  host_thread (self)->current[stream_device (self, stream)] = stream;
  return TRUE;
}

gboolean
ts_runtime_stream_is_valid (TsRuntime  *self,
                            TsStreamId  stream)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  locker = g_mutex_locker_new (&self->lock);
  return stream < self->streams->len;
}

int
ts_runtime_stream_get_device (TsRuntime  *self,
                              TsStreamId  stream)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), -1);

  locker = g_mutex_locker_new (&self->lock);
  if (stream >= self->streams->len)
    return -1;
  return (int) stream_device (self, stream);
}

int
ts_runtime_stream_get_priority (TsRuntime  *self,
                                TsStreamId  stream)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);

  locker = g_mutex_locker_new (&self->lock);
  if (stream >= self->streams->len)
    return 0;
  return g_array_index (self->streams, Stream, stream).priority;
}

guint64
ts_runtime_stream_get_handle (TsRuntime  *self,
                              TsStreamId  stream)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);

  locker = g_mutex_locker_new (&self->lock);
  if (stream >= self->streams->len)
    return 0;
  return g_array_index (self->streams, Stream, stream).handle;
}

gboolean
ts_runtime_stream_query (TsRuntime   *self,
                         TsStreamId   stream,
                         gboolean    *done,
                         GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean ret;
  int err;
  Call call;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  if (done != NULL)
    *done = FALSE;

  locker = g_mutex_locker_new (&self->lock);
  if (!check_stream (self, stream, error))
    return FALSE;

  call_begin (self, &call, API_STREAM_QUERY);
  call_set_stream (self, &call, stream);
  host_charge (self, call.ht, self->profile->api_latency_ns);
  err = self->side.ops->stream_query (self->side.impl, stream, call.ht->clock);
  ret = call_query (self, &call, call.device, err, done, error);
  call_end (self, &call);

  return ret;
}

gboolean
ts_runtime_stream_synchronize (TsRuntime   *self,
                               TsStreamId   stream,
                               GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean ret;
  TsTime until;
  int err;
  Call call;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  locker = g_mutex_locker_new (&self->lock);
  if (!check_stream (self, stream, error))
    return FALSE;

  call_begin (self, &call, API_STREAM_SYNCHRONIZE);
  call_set_stream (self, &call, stream);
  host_charge (self, call.ht, self->profile->api_latency_ns);
  err = self->side.ops->stream_sync (self->side.impl, stream, &until);
  ret = call_blocked (self, &call, TS_SYNC_STREAM, call.device, stream, 0, err, until, error);
  call_end (self, &call);

  return ret;
}

/* ---------------------------------------------------------------- events */

guint64
ts_runtime_event_new (TsRuntime    *self,
                      TsEventFlags  flags)
{
  g_autoptr(GMutexLocker) locker = NULL;
  Event *ev;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);

  locker = g_mutex_locker_new (&self->lock);

  ev = g_new0 (Event, 1);
  ev->base.id = ++self->last_event_id;
  ev->base.device = -1;
  ev->base.record = TS_ITEM_NONE;
  ev->flags = flags;
  g_hash_table_insert (self->events, &ev->base.id, ev);

  return ev->base.id;
}

gboolean
ts_runtime_event_free (TsRuntime  *self,
                       guint64     event,
                       GError    **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  Event *ev;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  locker = g_mutex_locker_new (&self->lock);
  if (!(ev = lookup_event (self, event, error)))
    return FALSE;

  self->side.ops->event_release (self->side.impl, &ev->base);
  g_hash_table_remove (self->events, &event);

  return TRUE;
}

static gboolean
event_record_locked (TsRuntime   *self,
                     Event       *ev,
                     TsStreamId   stream,
                     GError     **error)
{
  gboolean ret = FALSE;
  TsSubmit sub;
  int err;
  Call call;

  call_begin (self, &call, API_EVENT_RECORD);
  call_set_stream (self, &call, stream);

  if (ev->base.device >= 0 && ev->base.device != call.device)
    {
      g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_EVENT_DEVICE,
                   "Event device %d does not match recording stream's device %d.",
                   ev->base.device, call.device);
      goto out;
    }

  if (ev->handle == 0 &&
      (ev->flags & TS_EVENT_INTERPROCESS) != 0 &&
      (ev->flags & TS_EVENT_TIMING) != 0)
    {
      /* cudaEventCreateWithFlags refuses an interprocess event with timing. */
      g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_CUDA,
                           "CUDA error: invalid argument" CUDA_ERROR_TRAILER);
      goto out;
    }

  if (!call_check_fault (self, &call, call.device, error))
    goto out;

  /* Created lazily, on the stream's device, at the first record. */
  if (ev->handle == 0)
    {
      ev->handle = EVENT_HANDLE_BASE + ev->base.id * 0x40;
      ev->base.device = call.device;
    }

  host_charge (self, call.ht, self->profile->api_latency_ns);
  sub = call_submission (&call);
  err = self->side.ops->event_record (self->side.impl, &sub, &ev->base, ev->flags);
  ret = call_check_result (self, &call, call.device, err, error);

out:
  call_end (self, &call);
  return ret;
}

gboolean
ts_runtime_event_record (TsRuntime   *self,
                         guint64      event,
                         TsStreamId   stream,
                         GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  Event *ev;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  locker = g_mutex_locker_new (&self->lock);
  if (!(ev = lookup_event (self, event, error)) || !check_stream (self, stream, error))
    return FALSE;

  return event_record_locked (self, ev, stream, error);
}

gboolean
ts_runtime_event_query (TsRuntime   *self,
                        guint64      event,
                        gboolean    *done,
                        GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean ret;
  Event *ev;
  int err;
  Call call;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  if (done != NULL)
    *done = FALSE;

  locker = g_mutex_locker_new (&self->lock);
  if (!(ev = lookup_event (self, event, error)))
    return FALSE;

  /* Never recorded: no CUDA event exists yet, nothing to ask. */
  if (ev->base.record == TS_ITEM_NONE)
    {
      if (done != NULL)
        *done = TRUE;
      return TRUE;
    }

  call_begin (self, &call, API_EVENT_QUERY);
  call.device = ev->base.device;
  host_charge (self, call.ht, self->profile->api_latency_ns);
  err = self->side.ops->event_query (self->side.impl, &ev->base, call.ht->clock);
  ret = call_query (self, &call, ev->base.device, err, done, error);
  call_end (self, &call);

  return ret;
}

gboolean
ts_runtime_event_synchronize (TsRuntime   *self,
                              guint64      event,
                              GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean ret;
  TsTime until;
  Event *ev;
  int err;
  Call call;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  locker = g_mutex_locker_new (&self->lock);
  if (!(ev = lookup_event (self, event, error)))
    return FALSE;

  if (ev->base.record == TS_ITEM_NONE)
    return TRUE;

  call_begin (self, &call, API_EVENT_SYNCHRONIZE);
  call.device = ev->base.device;
  host_charge (self, call.ht, self->profile->api_latency_ns);
  err = self->side.ops->event_sync (self->side.impl, &ev->base, &until);
  ret = call_blocked (self, &call, TS_SYNC_EVENT, ev->base.device, TS_STREAM_NONE, ev->base.id,
                      err, until, error);
  call_end (self, &call);

  return ret;
}

static gboolean
event_wait_locked (TsRuntime   *self,
                   Event       *ev,
                   TsStreamId   stream,
                   GError     **error)
{
  gboolean ret = FALSE;
  TsSubmit sub;
  int err;
  Call call;

  /* Waiting for an event that was never recorded is a no-op. */
  if (ev->base.record == TS_ITEM_NONE)
    return TRUE;

  call_begin (self, &call, API_STREAM_WAIT_EVENT);
  call_set_stream (self, &call, stream);

  if (call_check_fault (self, &call, call.device, error))
    {
      host_charge (self, call.ht, self->profile->api_latency_ns);
      sub = call_submission (&call);
      err = self->side.ops->stream_wait_event (self->side.impl, &sub, &ev->base);
      ret = call_check_result (self, &call, call.device, err, error);
    }

  call_end (self, &call);
  return ret;
}

gboolean
ts_runtime_event_wait (TsRuntime   *self,
                       guint64      event,
                       TsStreamId   stream,
                       GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  Event *ev;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  locker = g_mutex_locker_new (&self->lock);
  if (!(ev = lookup_event (self, event, error)) || !check_stream (self, stream, error))
    return FALSE;

  return event_wait_locked (self, ev, stream, error);
}

gboolean
ts_runtime_stream_wait_event (TsRuntime   *self,
                              TsStreamId   stream,
                              guint64      event,
                              GError     **error)
{
  return ts_runtime_event_wait (self, event, stream, error);
}

gboolean
ts_runtime_stream_wait_stream (TsRuntime   *self,
                               TsStreamId   stream,
                               TsStreamId   other,
                               GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean ret;
  Event ev = { 0 };

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  locker = g_mutex_locker_new (&self->lock);
  if (!check_stream (self, stream, error) || !check_stream (self, other, error))
    return FALSE;

  /* As PyTorch: self.wait_event(other.record_event()), with an event that
   * lives only for this call (the wait keeps the record alive). */
  ev.base.id = ++self->last_event_id;
  ev.base.device = -1;
  ev.base.record = TS_ITEM_NONE;

  ret = event_record_locked (self, &ev, other, error) &&
        event_wait_locked (self, &ev, stream, error);

  self->side.ops->event_release (self->side.impl, &ev.base);

  return ret;
}

gboolean
ts_runtime_event_elapsed_time (TsRuntime   *self,
                               guint64      start,
                               guint64      end,
                               double      *ms,
                               GError     **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean ret = FALSE;
  float value = 0;
  Event *a, *b;
  int err;
  Call call;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  if (ms != NULL)
    *ms = 0;

  locker = g_mutex_locker_new (&self->lock);
  if (!(a = lookup_event (self, start, error)) || !(b = lookup_event (self, end, error)))
    return FALSE;

  /* The checks and their order are PyTorch's CUDAEvent::elapsed_time. */
  if ((a->flags & TS_EVENT_TIMING) == 0 || (b->flags & TS_EVENT_TIMING) == 0)
    {
      g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_EVENT_TIMING,
                           "Both events must be created with argument 'enable_timing=True'.");
      return FALSE;
    }

  if (a->base.record == TS_ITEM_NONE || b->base.record == TS_ITEM_NONE)
    {
      g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_EVENT_NOT_RECORDED,
                           "Both events must be recorded before calculating elapsed time.");
      return FALSE;
    }

  call_begin (self, &call, API_EVENT_ELAPSED_TIME);
  call.device = a->base.device;
  host_charge (self, call.ht, self->profile->api_latency_ns);
  err = self->side.ops->event_elapsed (self->side.impl, &a->base, &b->base, call.ht->clock, &value);

  if (err == TS_CUDA_ERROR_NOT_READY)
    {
      g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_EVENT_NOT_COMPLETED,
                           "Both events must be completed before calculating elapsed time.");
    }
  else if (err == TS_DEVICE_SIDE_OTHER_DEVICES)
    {
      /* cudaEventElapsedTime on events of two devices. */
      g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_CUDA,
                           "CUDA error: invalid resource handle" CUDA_ERROR_TRAILER);
    }
  else if (call_check_result (self, &call, (guint) a->base.device, err, error))
    {
      /* cudaEventElapsedTime returns a float. */
      if (ms != NULL)
        *ms = value;
      ret = TRUE;
    }

  call_end (self, &call);
  return ret;
}

gboolean
ts_runtime_event_is_valid (TsRuntime *self,
                           guint64    event)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  locker = g_mutex_locker_new (&self->lock);
  return g_hash_table_contains (self->events, &event);
}

int
ts_runtime_event_get_device (TsRuntime *self,
                             guint64    event)
{
  g_autoptr(GMutexLocker) locker = NULL;
  Event *ev;

  g_return_val_if_fail (TS_IS_RUNTIME (self), -1);

  locker = g_mutex_locker_new (&self->lock);
  ev = g_hash_table_lookup (self->events, &event);
  return ev != NULL ? ev->base.device : -1;
}

guint64
ts_runtime_event_get_handle (TsRuntime *self,
                             guint64    event)
{
  g_autoptr(GMutexLocker) locker = NULL;
  Event *ev;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);

  locker = g_mutex_locker_new (&self->lock);
  ev = g_hash_table_lookup (self->events, &event);
  return ev != NULL ? ev->handle : 0;
}

TsEventFlags
ts_runtime_event_get_flags (TsRuntime *self,
                            guint64    event)
{
  g_autoptr(GMutexLocker) locker = NULL;
  Event *ev;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);

  locker = g_mutex_locker_new (&self->lock);
  ev = g_hash_table_lookup (self->events, &event);
  return ev != NULL ? ev->flags : 0;
}

/* ---------------------------------------------------------------- device */

void
ts_runtime_finish_device_records (TsRuntime *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_if_fail (TS_IS_RUNTIME (self));

  locker = g_mutex_locker_new (&self->lock);
  self->side.ops->finish (self->side.impl);
}

gboolean
ts_runtime_device_synchronize (TsRuntime  *self,
                               int         device,
                               GError    **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean ret;
  TsTime until;
  int err;
  Call call;

  g_return_val_if_fail (TS_IS_RUNTIME (self), FALSE);

  locker = g_mutex_locker_new (&self->lock);
  if (!check_device (self, host_thread (self), &device, error))
    return FALSE;

  call_begin (self, &call, API_DEVICE_SYNCHRONIZE);
  call.device = device;
  host_charge (self, call.ht, self->profile->api_latency_ns);
  err = self->side.ops->device_sync (self->side.impl, (guint) device, &until);
  ret = call_blocked (self, &call, TS_SYNC_DEVICE, (guint) device, TS_STREAM_NONE, 0, err, until, error);
  call_end (self, &call);

  return ret;
}

/* ---------------------------------------------------------------- work */

/* Opens the call of a launch, copy or memset on @stream. A sticky fault on
 * the stream's device (or on @peer_device, the other end of a peer copy,
 * when not -1) refuses it: the work is destroyed and the call recorded.
 * Otherwise the launch's host cost is charged. */
static gboolean
call_begin_work (TsRuntime     *self,
                 Call          *call,
                 guint          api,
                 TsStreamId     stream,
                 int            peer_device,
                 const TsWork  *work,
                 GError       **error)
{
  call_begin (self, call, api);
  call_set_stream (self, call, stream);

  if (call_check_fault (self, call, call->device, error) &&
      (peer_device < 0 || call_check_fault (self, call, peer_device, error)))
    {
      host_charge (self, call->ht, self->profile->launch_latency_ns);
      return TRUE;
    }

  destroy_work (work);
  call_end (self, call);
  return FALSE;
}

/* Closes the call of work the device side took (err: its answer). The
 * host first waits for @item when @host_waits (blocking copies, launch
 * blocking), so that a fault surfaces at this call. With end_rec, a call
 * that succeeds leaves its API record there for the caller to append.
 * Returns the correlation id, or 0 on an error. */
static guint64
call_end_work (TsRuntime        *self,
               Call             *call,
               int               err,
               guint32           item,
               gboolean          host_waits,
               TsSyncKind        kind,
               TsApiCallRecord  *end_rec,
               GError          **error)
{
  gboolean ok = call_check_result (self, call, (guint) call->device, err, error);
  TsTime until;

  if (ok && host_waits)
    {
      err = self->side.ops->wait_item (self->side.impl, call->stream, item, &until);
      ok = call_blocked (self, call, kind, (guint) call->device, call->stream, 0, err, until, error);
    }
  if (ok && end_rec != NULL)
    {
      call_end_deferred (self, call, end_rec);
      return call->correlation;
    }
  call_end (self, call);
  return ok ? call->correlation : 0;
}

/* ts_runtime_launch_kernel with the lock held. With end_rec, a launch that
 * succeeds leaves its API record there for the caller to append. */
static guint64
launch_kernel_locked (TsRuntime           *self,
                      TsStreamId           stream,
                      const TsKernelDesc  *desc,
                      TsApiCallRecord     *end_rec,
                      GError             **error)
{
  TsStringId name;
  TsSubmit sub;
  guint32 item;
  int err;
  Call call;

  if (!check_stream (self, stream, error))
    {
      destroy_work (&desc->work);
      return 0;
    }

  if (!call_begin_work (self, &call, API_LAUNCH_KERNEL, stream, -1, &desc->work, error))
    return 0;

  name = desc->name_id != 0 ? desc->name_id
                            : ts_recorder_intern (self->recorder, desc->name != NULL ? desc->name : "kernel");
  sub = call_submission (&call);
  err = self->side.ops->launch (self->side.impl, &sub, desc, name, &item);

  return call_end_work (self, &call, err, item, self->launch_blocking, TS_SYNC_STREAM, end_rec, error);
}

guint64
ts_runtime_launch_kernel (TsRuntime           *self,
                          TsStreamId           stream,
                          const TsKernelDesc  *desc,
                          GError             **error)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);
  g_return_val_if_fail (desc != NULL, 0);

  locker = g_mutex_locker_new (&self->lock);
  return launch_kernel_locked (self, stream, desc, NULL, error);
}

static gboolean
check_copy (TsRuntime         *self,
            const TsCopyDesc  *desc,
            GError           **error)
{
  int on_device;
  gboolean ok;

  if (!check_stream (self, desc->stream, error))
    return FALSE;

  on_device = (int) stream_device (self, desc->stream);

  for (guint i = 0; i < 2; i++)
    {
      int d = i == 0 ? desc->src_device : desc->dst_device;

      if (d < -1 || d >= (int) self->n_devices)
        {
          g_set_error_literal (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_DEVICE,
                               "CUDA error: invalid device ordinal" CUDA_ERROR_TRAILER);
          return FALSE;
        }
    }

  switch (desc->kind)
    {
    case TS_COPY_HOST_TO_DEVICE:
      ok = desc->src_device == -1 && desc->dst_device >= 0;
      break;
    case TS_COPY_DEVICE_TO_HOST:
      ok = desc->src_device >= 0 && desc->dst_device == -1;
      break;
    case TS_COPY_DEVICE_TO_DEVICE:
      ok = desc->src_device >= 0 && desc->src_device == desc->dst_device;
      break;
    case TS_COPY_PEER:
      ok = desc->src_device >= 0 && desc->dst_device >= 0 && desc->src_device != desc->dst_device;
      break;
    case TS_COPY_HOST_TO_HOST:
    default:
      g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_ARGUMENT,
                   "Copy kind %d does not go through a device", (int) desc->kind);
      return FALSE;
    }

  if (!ok)
    {
      g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_ARGUMENT,
                   "Copy kind %d cannot go from device %d to device %d (-1 is the host)",
                   (int) desc->kind, desc->src_device, desc->dst_device);
      return FALSE;
    }

  if (on_device != desc->src_device && on_device != desc->dst_device)
    {
      g_set_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_STREAM,
                   "Stream %u is on device %d, but the copy goes from device %d to device %d",
                   desc->stream, on_device, desc->src_device, desc->dst_device);
      return FALSE;
    }

  return TRUE;
}

guint64
ts_runtime_memcpy (TsRuntime         *self,
                   const TsCopyDesc  *desc,
                   GError           **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean host_waits;
  int peer_device;
  TsSubmit sub;
  guint32 item;
  int err;
  Call call;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);
  g_return_val_if_fail (desc != NULL, 0);

  locker = g_mutex_locker_new (&self->lock);
  if (!check_copy (self, desc, error))
    {
      destroy_work (&desc->work);
      return 0;
    }

  /* A peer copy also stops at a fault of its other device. */
  peer_device = -1;
  if (desc->kind == TS_COPY_PEER)
    peer_device = desc->src_device + desc->dst_device - (int) stream_device (self, desc->stream);

  if (!call_begin_work (self, &call, API_MEMCPY, desc->stream, peer_device, &desc->work, error))
    return 0;

  /* A copy touching pageable host memory returns only once the device has
   * consumed or produced it; so does any copy asked to be synchronous.
   * Only pinned memory with non_blocking lets the host run ahead. Copies
   * between device memories never block the host. */
  host_waits = (desc->kind == TS_COPY_HOST_TO_DEVICE || desc->kind == TS_COPY_DEVICE_TO_HOST) &&
               !(desc->pinned && desc->non_blocking);

  sub = call_submission (&call);
  err = self->side.ops->copy (self->side.impl, &sub, desc, &item);

  return call_end_work (self, &call, err, item, host_waits || self->launch_blocking,
                        host_waits ? TS_SYNC_COPY : TS_SYNC_STREAM, NULL, error);
}

guint64
ts_runtime_memset (TsRuntime           *self,
                   const TsMemsetDesc  *desc,
                   GError             **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  TsSubmit sub;
  guint32 item;
  int err;
  Call call;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);
  g_return_val_if_fail (desc != NULL, 0);

  locker = g_mutex_locker_new (&self->lock);
  if (!check_stream (self, desc->stream, error))
    {
      destroy_work (&desc->work);
      return 0;
    }

  if (!call_begin_work (self, &call, API_MEMSET, desc->stream, -1, &desc->work, error))
    return 0;

  sub = call_submission (&call);
  err = self->side.ops->fill (self->side.impl, &sub, desc, &item);

  return call_end_work (self, &call, err, item, self->launch_blocking, TS_SYNC_STREAM, NULL, error);
}

/* ---------------------------------------------------------------- spans */

/* ts_runtime_api_begin with the lock held and the name interned. */
static guint64
api_begin_locked (TsRuntime  *self,
                  TsStringId  name,
                  int         device,
                  TsStreamId  stream)
{
  HostThread *ht = host_thread (self);
  Span span;

  span = (Span) {
    .correlation = next_correlation (self),
    .name = name,
    .start = ht->clock,
    .device = device,
    .stream = stream,
    .loc = ts_callsite_get (),
  };
  g_array_append_val (ht->spans, span);

  return span.correlation;
}

guint64
ts_runtime_api_begin (TsRuntime  *self,
                      const char *name,
                      int         device,
                      TsStreamId  stream)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);
  g_return_val_if_fail (name != NULL, 0);

  locker = g_mutex_locker_new (&self->lock);
  return api_begin_locked (self, ts_recorder_intern (self->recorder, name), device, stream);
}

/* ts_runtime_api_end with the lock held. A first record (the API record of
 * the span's last call), if given, goes in with the span's, under one
 * recorder lock. */
static void
api_end_locked (TsRuntime             *self,
                guint64                correlation,
                const TsApiCallRecord *first)
{
  HostThread *ht = host_thread (self);
  Span span;
  TsApiCallRecord rec;
  TsApiCallRecord pair[2];

  g_return_if_fail (ht->spans->len > 0);
  span = g_array_index (ht->spans, Span, ht->spans->len - 1);
  g_return_if_fail (span.correlation == correlation);
  g_array_set_size (ht->spans, ht->spans->len - 1);

  rec = (TsApiCallRecord) {
    .start = span.start,
    .end = ht->clock,
    .correlation = span.correlation,
    .thread = ht->id,
    .name = span.name,
    .loc = span.loc,
    .device = span.device,
    .stream = span.stream,
  };
  if (first != NULL)
    {
      pair[0] = *first;
      pair[1] = rec;
      ts_recorder_append_many (self->recorder, TS_RECORD_API_CALL, pair, 2);
    }
  else
    TS_RECORDER_APPEND (self->recorder, TS_RECORD_API_CALL, TsApiCallRecord, &rec);
}

void
ts_runtime_api_end (TsRuntime *self,
                    guint64    correlation)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_if_fail (TS_IS_RUNTIME (self));

  locker = g_mutex_locker_new (&self->lock);
  api_end_locked (self, correlation, NULL);
}

guint64
ts_runtime_launch_op (TsRuntime           *self,
                      TsStringId           name,
                      int                  device,
                      TsStreamId           stream,
                      const TsKernelDesc  *desc,
                      GError             **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  TsApiCallRecord launch_rec;
  guint64 span, ret;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);
  g_return_val_if_fail (desc != NULL, 0);

  locker = g_mutex_locker_new (&self->lock);
  span = api_begin_locked (self, name, device, TS_STREAM_NONE);
  ret = launch_kernel_locked (self, stream, desc, &launch_rec, error);
  /* a launch that succeeds ends right before the span: one append */
  api_end_locked (self, span, ret != 0 ? &launch_rec : NULL);
  return ret;
}

/* ---------------------------------------------------------------- NVTX */

static void
nvtx_append (TsRuntime  *self,
             HostThread *ht,
             TsNvtxKind  kind,
             TsStringId  message,
             int         depth,
             guint64     range_id)
{
  TsNvtxRecord rec = {
    .time = ht->clock,
    .range_id = range_id,
    .thread = ht->id,
    .kind = kind,
    .message = message,
    .depth = depth,
    .loc = ts_callsite_get (),
  };

  TS_RECORDER_APPEND (self->recorder, TS_RECORD_NVTX, TsNvtxRecord, &rec);
}

void
ts_runtime_nvtx_mark (TsRuntime  *self,
                      const char *message)
{
  g_autoptr(GMutexLocker) locker = NULL;
  HostThread *ht;

  g_return_if_fail (TS_IS_RUNTIME (self));

  locker = g_mutex_locker_new (&self->lock);
  ht = host_thread (self);
  nvtx_append (self, ht, TS_NVTX_MARK, ts_recorder_intern (self->recorder, message),
               (int) ht->nvtx->len, 0);
  ts_nvtx_forward_mark (message);
}

int
ts_runtime_nvtx_range_push (TsRuntime  *self,
                            const char *message)
{
  g_autoptr(GMutexLocker) locker = NULL;
  HostThread *ht;
  TsStringId id;
  int depth;

  g_return_val_if_fail (TS_IS_RUNTIME (self), -1);

  locker = g_mutex_locker_new (&self->lock);
  ht = host_thread (self);
  id = ts_recorder_intern (self->recorder, message);
  depth = (int) ht->nvtx->len;
  g_array_append_val (ht->nvtx, id);
  nvtx_append (self, ht, TS_NVTX_PUSH, id, depth, 0);
  ts_nvtx_forward_range_push (message);

  return depth;
}

int
ts_runtime_nvtx_range_pop (TsRuntime *self)
{
  g_autoptr(GMutexLocker) locker = NULL;
  HostThread *ht;
  TsStringId id;
  int depth;

  g_return_val_if_fail (TS_IS_RUNTIME (self), -1);

  locker = g_mutex_locker_new (&self->lock);
  ht = host_thread (self);
  if (ht->nvtx->len == 0)
    return -1;

  depth = (int) ht->nvtx->len - 1;
  id = g_array_index (ht->nvtx, TsStringId, depth);
  g_array_set_size (ht->nvtx, depth);
  nvtx_append (self, ht, TS_NVTX_POP, id, depth, 0);
  ts_nvtx_forward_range_pop ();

  return depth;
}

guint64
ts_runtime_nvtx_range_start (TsRuntime  *self,
                             const char *message)
{
  g_autoptr(GMutexLocker) locker = NULL;
  guint64 range_id;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);

  locker = g_mutex_locker_new (&self->lock);
  range_id = ++self->last_range_id;
  nvtx_append (self, host_thread (self), TS_NVTX_RANGE_START,
               ts_recorder_intern (self->recorder, message), 0, range_id);
  ts_nvtx_forward_range_start (range_id, message);

  return range_id;
}

void
ts_runtime_nvtx_range_end (TsRuntime *self,
                           guint64    range_id)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_if_fail (TS_IS_RUNTIME (self));

  locker = g_mutex_locker_new (&self->lock);
  nvtx_append (self, host_thread (self), TS_NVTX_RANGE_END, 0, 0, range_id);
  ts_nvtx_forward_range_end (range_id);
}
