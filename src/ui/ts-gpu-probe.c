/* ts-gpu-probe.c: whether this machine has a GPU that can run workloads
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The header bar offers this machine's GPU next to the simulated models
 * when the CUDA module loads and finds a device. Opening the module loads
 * cudart and the driver, which takes a good part of a second on a GPU
 * machine, so it happens once per process, in a worker thread: the probe
 * opens the module, keeps the device count and device 0's name (or why
 * there is no usable GPU), and closes it again; the workloads themselves
 * run in the CLI's process.
 *
 * The worker hands its answer over under a mutex, and the main context
 * then publishes it and notifies #TsGpuProbe:done. ts_gpu_probe_wait()
 * publishes it at once for a caller that cannot wait for the main loop
 * (a run started before the answer came).
 */

#include "config.h"

#include <gio/gio.h>

#include "ts-cuda-backend.h"
#include "ts-gpu-probe.h"

#define DEVICE_NAME_LEN 256

typedef struct
{
  gboolean  available;
  guint     n_devices;
  char     *device_name;
  char     *error_message;
} ProbeResult;

struct _TsGpuProbe
{
  GObject      parent_instance;

  char        *module_path;

  /* Written by the worker, under the mutex. */
  GMutex       mutex;
  GCond        cond;
  ProbeResult  result;
  gboolean     answered;

  /* Main thread only: what the getters return once done. */
  gboolean     done;
  gboolean     available;
  guint        n_devices;
  char        *device_name;
  char        *error_message;
};

G_DEFINE_FINAL_TYPE (TsGpuProbe, ts_gpu_probe, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_MODULE_PATH,
  PROP_DONE,
  PROP_AVAILABLE,
  PROP_N_DEVICES,
  PROP_DEVICE_NAME,
  PROP_ERROR_MESSAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Runs in the worker: the only place the module is opened. */
static void
probe_result_fill (ProbeResult *result,
                   const char  *module_path)
{
  g_autoptr(GError) error = NULL;
  const TsCudaKernels *kernels;
  TsCudaBackend *backend;
  char name[DEVICE_NAME_LEN] = "";
  int sm_count, cc_major, cc_minor, max_threads_per_sm;
  uint64_t total_memory;

  if (!(backend = ts_cuda_backend_open (module_path, &error)))
    {
      result->error_message = g_strdup (error->message);
      return;
    }

  kernels = ts_cuda_backend_get_kernels (backend);
  result->available = TRUE;
  result->n_devices = (guint)ts_cuda_backend_get_n_devices (backend);
  /* A device that answers the count but not its name is still usable. */
  if (kernels->device_info (0, name, sizeof name, &sm_count, &cc_major, &cc_minor,
                            &total_memory, &max_threads_per_sm) == 0 && name[0] != '\0')
    result->device_name = g_utf8_make_valid (name, -1);
  else
    result->device_name = g_strdup ("CUDA GPU");

  ts_cuda_backend_close (backend);
}

/* Main thread: copies the worker's answer into the public fields. */
static void
ts_gpu_probe_publish (TsGpuProbe *self)
{
  g_assert (self->answered);

  if (self->done)
    return;

  self->done = TRUE;
  self->available = self->result.available;
  self->n_devices = self->result.n_devices;
  self->device_name = g_steal_pointer (&self->result.device_name);
  self->error_message = g_steal_pointer (&self->result.error_message);

  g_object_freeze_notify (G_OBJECT (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AVAILABLE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_DEVICES]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DEVICE_NAME]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR_MESSAGE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DONE]);
  g_object_thaw_notify (G_OBJECT (self));
}

static void
ts_gpu_probe_worker (GTask        *task,
                     gpointer      source_object,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  TsGpuProbe *self = source_object;
  ProbeResult result = { 0 };

  probe_result_fill (&result, self->module_path);

  g_mutex_lock (&self->mutex);
  self->result = result;
  self->answered = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);

  g_task_return_boolean (task, TRUE);
}

static void
ts_gpu_probe_done_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  TsGpuProbe *self = TS_GPU_PROBE (object);

  g_task_propagate_boolean (G_TASK (result), NULL);
  ts_gpu_probe_publish (self);
}

static void
ts_gpu_probe_constructed (GObject *object)
{
  TsGpuProbe *self = (TsGpuProbe *)object;
  g_autoptr(GTask) task = NULL;

  G_OBJECT_CLASS (ts_gpu_probe_parent_class)->constructed (object);

  /* The task holds the probe until the answer is published. */
  task = g_task_new (self, NULL, ts_gpu_probe_done_cb, NULL);
  g_task_set_source_tag (task, ts_gpu_probe_constructed);
  g_task_run_in_thread (task, ts_gpu_probe_worker);
}

static void
ts_gpu_probe_finalize (GObject *object)
{
  TsGpuProbe *self = (TsGpuProbe *)object;

  g_clear_pointer (&self->module_path, g_free);
  g_clear_pointer (&self->result.device_name, g_free);
  g_clear_pointer (&self->result.error_message, g_free);
  g_clear_pointer (&self->device_name, g_free);
  g_clear_pointer (&self->error_message, g_free);
  g_mutex_clear (&self->mutex);
  g_cond_clear (&self->cond);

  G_OBJECT_CLASS (ts_gpu_probe_parent_class)->finalize (object);
}

static void
ts_gpu_probe_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  TsGpuProbe *self = TS_GPU_PROBE (object);

  switch (prop_id)
    {
    case PROP_MODULE_PATH:
      g_value_set_string (value, self->module_path);
      break;
    case PROP_DONE:
      g_value_set_boolean (value, self->done);
      break;
    case PROP_AVAILABLE:
      g_value_set_boolean (value, self->available);
      break;
    case PROP_N_DEVICES:
      g_value_set_uint (value, self->n_devices);
      break;
    case PROP_DEVICE_NAME:
      g_value_set_string (value, self->device_name);
      break;
    case PROP_ERROR_MESSAGE:
      g_value_set_string (value, self->error_message);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_gpu_probe_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  TsGpuProbe *self = TS_GPU_PROBE (object);

  switch (prop_id)
    {
    case PROP_MODULE_PATH:
      self->module_path = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_gpu_probe_class_init (TsGpuProbeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = ts_gpu_probe_constructed;
  object_class->finalize = ts_gpu_probe_finalize;
  object_class->get_property = ts_gpu_probe_get_property;
  object_class->set_property = ts_gpu_probe_set_property;

  /* NULL: $TENSORSCOPE_CUDA_MODULE, the build tree, the installed module. */
  properties[PROP_MODULE_PATH] =
    g_param_spec_string ("module-path", NULL, NULL, NULL,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
  properties[PROP_DONE] =
    g_param_spec_boolean ("done", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_AVAILABLE] =
    g_param_spec_boolean ("available", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_N_DEVICES] =
    g_param_spec_uint ("n-devices", NULL, NULL, 0, G_MAXUINT, 0,
                       (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_DEVICE_NAME] =
    g_param_spec_string ("device-name", NULL, NULL, NULL,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_ERROR_MESSAGE] =
    g_param_spec_string ("error-message", NULL, NULL, NULL,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ts_gpu_probe_init (TsGpuProbe *self)
{
  g_mutex_init (&self->mutex);
  g_cond_init (&self->cond);
}

/**
 * ts_gpu_probe_new:
 * @module_path: (nullable): the CUDA module, or %NULL for the default
 *
 * Starts probing in a worker thread; the answer arrives in the
 * thread-default main context of the caller.
 *
 * Returns: (transfer full): a new #TsGpuProbe
 */
TsGpuProbe *
ts_gpu_probe_new (const char *module_path)
{
  return g_object_new (TS_TYPE_GPU_PROBE, "module-path", module_path, NULL);
}

/**
 * ts_gpu_probe_get_default:
 *
 * The probe of the default CUDA module, started on the first call. Call it
 * from the main thread.
 *
 * Returns: (transfer none): the process's #TsGpuProbe
 */
TsGpuProbe *
ts_gpu_probe_get_default (void)
{
  static TsGpuProbe *instance;

  if (instance == NULL)
    instance = ts_gpu_probe_new (NULL);

  return instance;
}

/**
 * ts_gpu_probe_wait:
 * @self: a #TsGpuProbe
 *
 * Blocks until the worker has answered, and publishes the answer (with
 * its notifications) if the main context has not yet.
 */
void
ts_gpu_probe_wait (TsGpuProbe *self)
{
  g_return_if_fail (TS_IS_GPU_PROBE (self));

  if (self->done)
    return;

  g_mutex_lock (&self->mutex);
  while (!self->answered)
    g_cond_wait (&self->cond, &self->mutex);
  g_mutex_unlock (&self->mutex);

  ts_gpu_probe_publish (self);
}

gboolean
ts_gpu_probe_get_done (TsGpuProbe *self)
{
  g_return_val_if_fail (TS_IS_GPU_PROBE (self), FALSE);

  return self->done;
}

/* Whether a workload can run on this machine's GPUs; FALSE until done. */
gboolean
ts_gpu_probe_get_available (TsGpuProbe *self)
{
  g_return_val_if_fail (TS_IS_GPU_PROBE (self), FALSE);

  return self->available;
}

guint
ts_gpu_probe_get_n_devices (TsGpuProbe *self)
{
  g_return_val_if_fail (TS_IS_GPU_PROBE (self), 0);

  return self->n_devices;
}

/* Device 0's name as the driver gives it, e.g. "NVIDIA H100 80GB HBM3". */
const char *
ts_gpu_probe_get_device_name (TsGpuProbe *self)
{
  g_return_val_if_fail (TS_IS_GPU_PROBE (self), NULL);

  return self->device_name;
}

/* Why no GPU is usable (the loader's message), or NULL. */
const char *
ts_gpu_probe_get_error_message (TsGpuProbe *self)
{
  g_return_val_if_fail (TS_IS_GPU_PROBE (self), NULL);

  return self->error_message;
}
