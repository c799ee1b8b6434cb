/* ts-runtime.c: the simulated multi-GPU runtime
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The host half of the runtime. Each public call takes the lock, finds the
 * calling thread's state, lets the device side (the simulation, or a real
 * GPU: ts-device-side.h) catch up with that thread's clock, does its work,
 * charges its modeled host cost and records an API record [start, end)
 * with the thread's current call site. Blocking calls wait on the device
 * side until their condition holds and move the host clock to that time,
 * recording the blocked span.
 *
 * Host costs (virtual ns, from the profile): launches, copies and memsets
 * cost launch_latency_ns; every other runtime call api_latency_ns; NVTX and
 * stream/device bookkeeping (set_device, current stream, stream creation
 * from the pool) cost nothing and make no API record, as in PyTorch where
 * they either do not reach CUDA or happen once up front.
 *
 * This file has the object itself: its options and visible devices, the
 * device side it picks (the one place that asks which), the host clock,
 * current devices and device synchronization. ts-runtime-private.h lists
 * the other files.
 */

#include "config.h"

#include <string.h>

#include "ts-cuda-device-private.h"
#include "ts-runtime-private.h"
#include "ts-scheduler-private.h"

#define DEFAULT_N_GPUS 4

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

/* ---------------------------------------------------------------- object */

static void
ts_runtime_finalize (GObject *object)
{
  TsRuntime *self = (TsRuntime *) object;

  if (_ts_runtime_tls.serial == self->serial)
    _ts_runtime_tls = (ThreadCache) { 0 };

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
  self->threads = g_hash_table_new_full (NULL, NULL, NULL, _ts_runtime_host_thread_free);
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
    if (_ts_runtime_add_stream (self, i, 0, TRUE, error) == TS_STREAM_NONE)
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

G_GNUC_NO_INLINE static TsTime
host_time_locked_path (TsRuntime *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (TS_IS_RUNTIME (self), 0);

  locker = g_mutex_locker_new (&self->lock);
  return host_thread (self)->clock;
}

TsTime
ts_runtime_get_host_time (TsRuntime *self)
{
  /* A thread's clock only moves on that thread: once it is known here it
   * reads without the lock (the allocator asks for it on every action, an
   * op about five times, so the type check waits for the slow path). */
  if (G_LIKELY (self != NULL && _ts_runtime_tls.serial == self->serial))
    return self->side.ops->host_time (self->side.impl, _ts_runtime_tls.ht->clock);

  return host_time_locked_path (self);
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

/* ---------------------------------------------------------------- devices */

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
  if (!_ts_runtime_check_device (self, ht, &device, error))
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
  if (!_ts_runtime_check_device (self, host_thread (self), &device, error) ||
      !_ts_runtime_check_not_capturing (self, TS_STREAM_NONE, device, error))
    return FALSE;

  _ts_runtime_call_begin_api (self, &call, API_DEVICE_SYNCHRONIZE, device, TS_STREAM_NONE);
  err = self->side.ops->device_sync (self->side.impl, (guint) device, &until);
  ret = _ts_runtime_call_blocked (self, &call, TS_SYNC_DEVICE, 0, err, until, error);
  return _ts_runtime_call_finish (self, &call, ret);
}
