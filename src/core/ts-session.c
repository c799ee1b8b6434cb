/* ts-session.c: the process-wide state of a workload run
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * This file is the only place that knows how the simulated machine is put
 * together: the runtime (devices, streams, events, virtual time, the
 * recorder) is created at the first CUDA call, as CUDA initializes lazily,
 * with the environment as it is at that moment. Device memory comes from
 * PyTorch's caching allocator (src/core/memory/ts-allocator.c) over the
 * device side's segments: simulated device memory, or cudaMalloc on a GPU.
 */

#include "config.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "ts-callsite.h"
#include "ts-allocator.h"
#include "ts-device-memory.h"
#include "ts-host-allocator.h"
#include "ts-host-data.h"
#include "ts-memory-stats.h"
#include "ts-session.h"
#include "ts-cuda-backend.h"

G_DEFINE_QUARK (ts-session-error-quark, ts_session_error)

/* OpenBLAS (pthreads build): stops the worker thread pool. */
extern int blas_thread_shutdown_ (void);

#define DEFAULT_N_GPUS 4
#define MAX_DEVICES 64

typedef struct
{
  GMutex               lock;
  TsSessionOptions     options;
  char                *gpu_model;
  gboolean             initialized;
  int                  n_devices;        /* visible */
  const TsGpuProfile  *profile;
  TsRecorder          *recorder;
  TsRuntime           *runtime;
  guint64              last_correlation;  /* of the last launch */
  TsDeviceMemory      *memory;
  TsAllocator         *allocator;
  TsHostAllocator     *host_allocator;
  const TsCudaKernels *kernels;          /* a real GPU; NULL on the simulator */
  TsCudaBackend       *cuda;             /* the loaded CUDA module */
  const TsActivitySource *activity;      /* CUPTI, when the program has it */
  char                *backend;
} Session;

static Session session = { .options = { .n_gpus = 0 } };
static gsize session_inited;


static void
session_ensure (void)
{
  if (g_once_init_enter (&session_inited))
    {
      g_mutex_init (&session.lock);
      g_once_init_leave (&session_inited, 1);
    }
}

void
ts_session_configure (const TsSessionOptions *options)
{
  g_return_if_fail (options != NULL);

  session_ensure ();
  if (session.initialized)
    {
      g_warning ("The session is already initialized; options ignored");
      return;
    }
  session.options = *options;
  if (options->no_data)
    ts_host_data_set_no_data (TRUE);
  /* The simulated devices compute on this thread; OpenBLAS's worker
   * threads, started when the library loads, would only spin (sched_yield)
   * against the workload on a small machine: one thread, workers stopped. */
  openblas_set_num_threads (1);
  blas_thread_shutdown_ ();
  g_free (session.gpu_model);
  session.gpu_model = g_strdup (options->gpu_model);
  session.options.gpu_model = session.gpu_model;
  g_free (session.backend);
  session.backend = g_strdup (options->backend);
  session.options.backend = session.backend;
}

void
ts_session_set_activity_source (const TsActivitySource *source)
{
  session_ensure ();
  session.activity = source;
}

/* --backend, else $TENSORSCOPE_BACKEND, else the simulator. */
static const char *
backend_name (void)
{
  const char *env = g_getenv ("TENSORSCOPE_BACKEND");

  if (session.options.backend != NULL)
    return session.options.backend;
  return env != NULL && *env != '\0' ? env : "sim";
}

gboolean
ts_session_parse_backend (const char  *name,
                          gboolean    *hardware,
                          GError     **error)
{
  if (g_strcmp0 (name, "sim") == 0 || g_strcmp0 (name, "cuda") == 0)
    {
      *hardware = g_str_equal (name, "cuda");
      return TRUE;
    }
  g_set_error (error, TS_SESSION_ERROR, TS_SESSION_ERROR_INVALID_VALUE,
               "Unknown backend “%s”: expected “sim” (the simulated GPUs) or “cuda” (this "
               "machine's GPUs)", name);
  return FALSE;
}

/* Opens the CUDA module once, for the "cuda" backend. */
static gboolean
open_hardware (GError **error)
{
  gboolean hardware = FALSE;

  if (!ts_session_parse_backend (backend_name (), &hardware, error))
    return FALSE;
  if (hardware && session.cuda == NULL)
    {
      session.cuda = ts_cuda_backend_open (NULL, error);
      if (session.cuda == NULL)
        return FALSE;
    }
  return TRUE;
}

gboolean
ts_session_is_hardware (void)
{
  session_ensure ();
  return session.cuda != NULL || g_strcmp0 (backend_name (), "cuda") == 0;
}

static int
physical_gpu_count (void)
{
  return session.options.n_gpus > 0 ? session.options.n_gpus : DEFAULT_N_GPUS;
}

static gboolean init_memory (GError **error);

static int
visible_device_count (void)
{
  g_autoptr(GArray) visible = ts_runtime_parse_visible_devices (g_getenv ("CUDA_VISIBLE_DEVICES"),
                                                                physical_gpu_count (), NULL);
  return MIN ((int) visible->len, MAX_DEVICES);
}

int
ts_session_device_count (void)
{
  session_ensure ();
  if (session.initialized)
    return session.n_devices;
  /* As torch.cuda.device_count(): no context is created. */
  if (ts_session_is_hardware ())
    {
      g_autoptr(GError) error = NULL;

      g_mutex_lock (&session.lock);
      if (!open_hardware (&error))
        g_debug ("%s", error->message);
      g_mutex_unlock (&session.lock);
      return session.cuda != NULL ? MIN (ts_cuda_backend_get_n_devices (session.cuda), MAX_DEVICES) : 0;
    }
  return visible_device_count ();
}

static const TsGpuProfile *
choose_profile (void)
{
  const TsGpuProfile *profile = NULL;

  if (session.options.gpu_model != NULL)
    profile = ts_gpu_profile_lookup (session.options.gpu_model);
  return profile ? profile : ts_gpu_profile_get_default ();
}

TsRecorder *
ts_session_get_recorder (void)
{
  TsRecorder *recorder = g_atomic_pointer_get (&session.recorder);

  /* set once and kept to the end: every op asks, no lock once it is there */
  if (G_LIKELY (recorder != NULL))
    return recorder;
  session_ensure ();
  g_mutex_lock (&session.lock);
  if (session.recorder == NULL)
    g_atomic_pointer_set (&session.recorder, ts_recorder_new ());
  g_mutex_unlock (&session.lock);
  return session.recorder;
}

TsRuntime *
ts_session_get_runtime (void)
{
  return session.runtime;
}

G_GNUC_NO_INLINE static gboolean session_cuda_init_slow (GError **error);

/* Asked by every op (devices, streams, allocations): the answer once
 * known costs a load, not the setup of the slow path's locals. */
gboolean
ts_session_cuda_init (GError **error)
{
  if (G_LIKELY (session.initialized))
    return TRUE;
  return session_cuda_init_slow (error);
}

static gboolean
session_cuda_init_slow (GError **error)
{
  TsRuntimeOptions options = { 0 };
  const char *blocking;
  TsRecorder *recorder;
  TsRuntime *runtime;

  session_ensure ();
  if (G_LIKELY (session.initialized))
    return TRUE;

  recorder = ts_session_get_recorder ();
  g_mutex_lock (&session.lock);
  if (!session.initialized)
    {
      if (!open_hardware (error))
        {
          g_mutex_unlock (&session.lock);
          return FALSE;
        }
      if (session.cuda != NULL)
        {
          options.hardware = ts_cuda_backend_get_kernels (session.cuda);
          options.activity = session.activity;
        }
      blocking = g_getenv ("CUDA_LAUNCH_BLOCKING");
      options.gpu_model = session.options.gpu_model;
      options.n_gpus = physical_gpu_count ();
      options.visible_devices = g_getenv ("CUDA_VISIBLE_DEVICES");
      options.launch_blocking = session.options.sync ||
                                (blocking != NULL && g_str_equal (blocking, "1"));
      runtime = ts_runtime_new (&options, recorder, error);
      if (runtime == NULL)
        {
          g_mutex_unlock (&session.lock);
          return FALSE;
        }
      session.n_devices = MIN ((int) ts_runtime_get_n_devices (runtime), MAX_DEVICES);
      session.profile = ts_runtime_get_profile (runtime);
      /* CUDA silently stops at a bad CUDA_VISIBLE_DEVICES entry; we do the
       * same, but say so, since a typo there hides GPUs. */
      if (ts_runtime_get_visible_devices_note (runtime) != NULL)
        g_printerr ("tensorscope: %s\n", ts_runtime_get_visible_devices_note (runtime));
      if (session.n_devices == 0)
        {
          g_object_unref (runtime);
          g_mutex_unlock (&session.lock);
          g_set_error_literal (error, TS_SESSION_ERROR, TS_SESSION_ERROR_NO_DEVICE,
                               "No CUDA GPUs are available");
          return FALSE;
        }
      session.runtime = runtime;
      session.kernels = options.hardware;
      if (!init_memory (error))
        {
          session.runtime = NULL;
          session.kernels = NULL;
          g_clear_object (&session.allocator);
          g_clear_object (&session.host_allocator);
          g_clear_object (&session.memory);
          g_object_unref (runtime);
          g_mutex_unlock (&session.lock);
          return FALSE;
        }
      session.runtime = runtime;
      session.kernels = options.hardware;
      session.initialized = TRUE;
    }
  g_mutex_unlock (&session.lock);
  return TRUE;
}

gboolean
ts_session_is_initialized (void)
{
  session_ensure ();
  return session.initialized;
}

const TsGpuProfile *
ts_session_get_profile (int device)
{
  session_ensure ();
  return session.profile ? session.profile : choose_profile ();
}

/* Host time on the simulated devices' virtual clock only: on the CUDA
 * backend the host clock is the real one, and the time passes by itself. */
static void
charge_host_ns (TsTime ns)
{
  if (ns > 0 && session.kernels == NULL && session.runtime != NULL)
    ts_runtime_host_advance (session.runtime, ns);
}

void
ts_session_charge_dispatch (int device)
{
  charge_host_ns (ts_session_get_profile (device)->op_dispatch_ns);
}

void
ts_session_charge_host (TsHostCost what,
                        guint      count)
{
  g_return_if_fail (what < TS_N_HOST_COSTS);

  charge_host_ns (ts_session_get_profile (-1)->host_cost_ns[what] * count);
}

gboolean
ts_session_check_device (int      device,
                         GError **error)
{
  if (!ts_session_cuda_init (error))
    return FALSE;
  if (device < 0 || device >= session.n_devices)
    {
      g_set_error (error, TS_SESSION_ERROR, TS_SESSION_ERROR_INVALID_DEVICE,
                   "CUDA error: invalid device ordinal\n"
                   "CUDA kernel errors might be asynchronously reported at some other API call, "
                   "so the stacktrace below might be incorrect.\n"
                   "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
                   "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n");
      return FALSE;
    }
  return TRUE;
}

void
ts_session_shutdown (void)
{
  /* Let the devices finish what was queued, so the trace shows it. */
  if (session.runtime != NULL)
    {
      for (int d = 0; d < session.n_devices; d++)
        ts_runtime_device_synchronize (session.runtime, d, NULL);
      ts_runtime_finish_device_records (session.runtime);
    }
}

int
ts_session_current_device (void)
{
  if (session.runtime == NULL)
    return 0;
  return ts_runtime_get_device (session.runtime);
}

gboolean
ts_session_set_device (int      device,
                       GError **error)
{
  if (!ts_session_check_device (device, error))
    return FALSE;
  return ts_runtime_set_device (session.runtime, device, error);
}

TsStreamId
ts_session_current_stream (int device)
{
  if (!ts_session_cuda_init (NULL))
    return TS_STREAM_NONE;
  return ts_runtime_get_current_stream (session.runtime, device, NULL);
}

void
ts_session_stream_wait_stream (TsStreamId stream,
                               TsStreamId other)
{
  ts_runtime_stream_wait_stream (session.runtime, stream, other, NULL);
}

static TsDeviceError
work_start (gpointer data)
{
  TsSessionWork *work = data;

  if (work->run != NULL)
    return work->run (work->user_data);
  return TS_DEVICE_ERROR_NONE;
}

static void
work_finish (gpointer data)
{
  TsSessionWork *work = data;

  if (work->finish != NULL)
    work->finish (work->user_data);
}

static TsDeviceError
work_run_at_once (gpointer data)
{
  TsSessionWork *work = data;

  return work->run_at_once (work->user_data);
}

static int
work_device (gpointer data,
             gpointer stream)
{
  TsSessionWork *work = data;

  if (work->device_run == NULL)
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  return work->device_run (work->user_data, stream);
}

static void
work_destroy (gpointer data)
{
  TsSessionWork *work = data;

  if (work->destroy != NULL)
    work->destroy (work->user_data);
  g_free (work);
}

/* A captured item runs once per graph replay, each time on a fresh copy. */
static gpointer
work_clone (gpointer data)
{
  TsSessionWork *work = g_memdup2 (data, sizeof *work);

  if (work->user_data != NULL)
    work->user_data = work->clone (work->user_data);
  return work;
}

/* The work of a session item as the runtime takes it. */
static TsWork
session_work (TsSessionWork *copy)
{
  TsWork w = { work_start, work_finish, work_destroy, copy, work_device, NULL };

  if (copy->clone != NULL || copy->user_data == NULL)
    w.clone = work_clone;
  if (copy->run_at_once != NULL)
    w.on_run = work_run_at_once;
  return w;
}

/* Kernel names are a handful of static strings: intern each once, keyed
 * by its address, instead of hashing the text on every launch. */
static TsStringId
kernel_name_id (const char *name)
{
  static struct { const char *name; TsStringId id; } cache[64];
  guint slot = (GPOINTER_TO_SIZE (name) >> 3) % G_N_ELEMENTS (cache);
  TsStringId id;

  g_mutex_lock (&session.lock);
  if (cache[slot].name != name)
    {
      cache[slot].id = ts_recorder_intern (session.recorder, name);
      cache[slot].name = name;
    }
  id = cache[slot].id;
  g_mutex_unlock (&session.lock);
  return id;
}

static void
kernel_desc_init (TsKernelDesc         *desc,
                  const TsSessionWork  *work,
                  const TsWork         *w)
{
  gint64 threads = MAX ((gint64) work->bytes / 4, 1);

  memset (desc, 0, sizeof *desc);
  desc->name_id = kernel_name_id (work->name);
  desc->block[0] = work->block ? work->block : 256;
  desc->grid[0] = work->grid ? work->grid : (guint32) MIN ((threads + 255) / 256, G_MAXUINT32);
  desc->flops = work->flops;
  desc->bytes = work->bytes;
  desc->duration = work->duration;
  desc->precision = work->precision;
  desc->work = *w;
}

gboolean
ts_session_launch (const TsSessionWork  *work,
                   GError              **error)
{
  TsWork w = session_work (g_memdup2 (work, sizeof *work));

  if (work->is_copy)
    {
      TsCopyDesc desc = { 0 };

      desc.kind = work->copy_kind;
      desc.src_device = work->src_device;
      desc.dst_device = work->dst_device;
      desc.bytes = work->bytes;
      desc.stream = work->stream;
      desc.pinned = work->pinned;
      desc.non_blocking = work->non_blocking;
      desc.work = w;
      return (session.last_correlation = ts_runtime_memcpy (session.runtime, &desc, error)) != 0;
    }
  else
    {
      TsKernelDesc desc;

      kernel_desc_init (&desc, work, &w);
      return (session.last_correlation = ts_runtime_launch_kernel (session.runtime, work->stream, &desc, error)) != 0;
    }
}

gboolean
ts_session_launch_op (int                   device,
                      const TsSessionWork  *work,
                      GError              **error)
{
  TsKernelDesc desc;
  TsWork w;

  g_assert (!work->is_copy);

  if (session.runtime == NULL)
    {
      guint64 correlation = ts_session_api_begin (work->name, device);
      gboolean ok = ts_session_launch (work, error);

      ts_session_api_end (correlation);
      return ok;
    }

  if (work->run != NULL && work->finish != NULL && work->destroy != NULL)
    {
      /* the caller's callbacks fit the runtime's as they are: no copy */
      w = (TsWork) { work->run, work->finish, work->destroy, work->user_data, work->device_run, work->clone,
                     work->run_at_once };
    }
  else
    w = session_work (g_memdup2 (work, sizeof *work));
  kernel_desc_init (&desc, work, &w);
  /* the span and the kernel share the operator's name */
  session.last_correlation = ts_runtime_launch_op (session.runtime, desc.name_id, device, work->stream, &desc, error);
  return session.last_correlation != 0;
}

guint64
ts_session_get_last_correlation (void)
{
  return session.last_correlation;
}

const TsCudaKernels *
ts_session_get_device_kernels (void)
{
  return session.kernels;
}

guint64
ts_session_api_begin (const char *name,
                      int         device)
{
  if (session.runtime == NULL)
    return 0;
  return ts_runtime_api_begin (session.runtime, name, device, TS_STREAM_NONE);
}

void
ts_session_api_end (guint64 correlation)
{
  if (correlation != 0 && session.runtime != NULL)
    ts_runtime_api_end (session.runtime, correlation);
}

/* Memory ------------------------------------------------------------- */

/* The allocators' view of the machine: segments come from the simulated
 * address space, events and time from the runtime. */

/* Fresh device memory is filled with 0xff bytes (NaN as floats) up to
 * this many bytes per segment, so reading memory nobody wrote shows. */
#define POISON_LIMIT ((guint64) 64 << 20)

static void
poison (guint64 addr,
        guint64 size)
{
  guint8 *host;

  if (ts_host_data_no_data ())
    return;  /* no bytes to fill */
  host = ts_device_memory_translate (session.memory, addr, MIN (size, POISON_LIMIT), NULL);
  if (host != NULL)
    memset (host, 0xff, MIN (size, POISON_LIMIT));
}

static gboolean
backend_segment_malloc (gpointer  user_data,
                        guint     device,
                        guint64   size,
                        guint64  *addr)
{
  if (!ts_device_memory_segment_malloc (session.memory, device, size, addr, NULL))
    return FALSE;
  poison (*addr, size);
  return TRUE;
}

static void
backend_segment_free (gpointer user_data,
                      guint    device,
                      guint64  addr,
                      guint64  size)
{
  /* cudaFree synchronizes the device: queued work may still use it. */
  ts_runtime_device_synchronize (session.runtime, device, NULL);
  ts_device_memory_segment_free (session.memory, addr, NULL);
}

/* Expandable segments: virtual reservations of the simulated memory. */
static gboolean
backend_va_reserve (gpointer  user_data,
                    guint     device,
                    guint64   size,
                    guint64  *addr)
{
  return ts_device_memory_reserve (session.memory, device, size, addr, NULL);
}

static gboolean
backend_va_map (gpointer user_data,
                guint    device,
                guint64  addr,
                guint64  size)
{
  if (!ts_device_memory_map (session.memory, addr, size, NULL))
    return FALSE;
  poison (addr, size);
  return TRUE;
}

static void
backend_va_unmap (gpointer   user_data,
                  guint      device,
                  TsStreamId stream,
                  guint64    addr,
                  guint64    size)
{
  /* Unmapping does not synchronize by itself: PyTorch waits for the
   * segment's stream first (ExpandableSegment::unmapHandles). */
  ts_runtime_stream_synchronize (session.runtime, stream, NULL);
  ts_device_memory_unmap (session.memory, addr, size, NULL);
}

static void
backend_va_release (gpointer user_data,
                    guint    device,
                    guint64  addr,
                    guint64  size)
{
  ts_device_memory_release (session.memory, addr, NULL);
}

static void
backend_mem_get_info (gpointer  user_data,
                      guint     device,
                      guint64  *free_bytes,
                      guint64  *total_bytes)
{
  ts_device_memory_get_info (session.memory, device, free_bytes, total_bytes, NULL);
}

static guint64
backend_event_record (gpointer   user_data,
                      TsStreamId stream)
{
  guint64 event = ts_runtime_event_new (session.runtime, TS_EVENT_DEFAULT);

  ts_runtime_event_record (session.runtime, event, stream, NULL);
  return event;
}

static gboolean
backend_event_query (gpointer user_data,
                     guint64  event)
{
  gboolean done = TRUE;

  ts_runtime_event_query (session.runtime, event, &done, NULL);
  return done;
}

static void
backend_event_synchronize (gpointer user_data,
                           guint64  event)
{
  ts_runtime_event_synchronize (session.runtime, event, NULL);
}

static void
backend_event_release (gpointer user_data,
                       guint64  event)
{
  ts_runtime_event_free (session.runtime, event, NULL);
}

static TsTime
backend_now (gpointer user_data)
{
  return ts_runtime_get_host_time (session.runtime);
}

/* On a real GPU: segments from cudaMalloc, pinned memory from
 * cudaHostAlloc, through the CUDA module. */
static gboolean
hw_segment_malloc (gpointer  user_data,
                   guint     device,
                   guint64   size,
                   guint64  *addr)
{
  const TsCudaKernels *k = user_data;
  void *ptr = NULL;

  if (k->set_device ((int) device) != 0 || k->malloc_device (&ptr, size) != 0)
    return FALSE;
  *addr = GPOINTER_TO_SIZE (ptr);
  return TRUE;
}

static void
hw_segment_free (gpointer user_data,
                 guint    device,
                 guint64  addr,
                 guint64  size)
{
  const TsCudaKernels *k = user_data;

  /* cudaFree synchronizes the device; doing it through the runtime first
   * puts the wait in the trace and collects the finished items' times. */
  ts_runtime_device_synchronize (session.runtime, (int) device, NULL);
  k->set_device ((int) device);
  k->free_device (GSIZE_TO_POINTER (addr));
}

static void
hw_mem_get_info (gpointer  user_data,
                 guint     device,
                 guint64  *free_bytes,
                 guint64  *total_bytes)
{
  const TsCudaKernels *k = user_data;

  *free_bytes = *total_bytes = 0;
  if (k->set_device ((int) device) == 0)
    k->mem_get_info (free_bytes, total_bytes);
}

static gpointer
hw_host_alloc (gpointer user_data,
               gsize    size)
{
  const TsCudaKernels *k = user_data;
  void *ptr = NULL;

  return k->malloc_host (&ptr, size) == 0 ? ptr : NULL;
}

static void
hw_host_free (gpointer user_data,
              gpointer ptr,
              gsize    size)
{
  const TsCudaKernels *k = user_data;

  k->free_host (ptr);
}

/* Simulated pinned memory: page-aligned host memory inside the data
 * budget, or in --no-data mode an address only. */
static gpointer
sim_host_alloc (gpointer user_data,
                gsize    size)
{
  gpointer p = NULL;

  if (ts_host_data_no_data ())
    return GSIZE_TO_POINTER ((ts_host_data_fake_address (size + 4096) + 4095) & ~(guint64) 4095);
  if (!ts_host_data_charge (size, NULL))
    return NULL;
  if (posix_memalign (&p, 4096, size) != 0)
    {
      ts_host_data_release (size);
      return NULL;
    }
  return p;
}

static void
sim_host_free (gpointer user_data,
               gpointer ptr,
               gsize    size)
{
  if (ts_host_data_no_data ())
    return;
  free (ptr);
  ts_host_data_release (size);
}

static gboolean
init_memory (GError **error)
{
  static const TsAllocatorBackend backend = {
    backend_segment_malloc, backend_segment_free, backend_mem_get_info,
    backend_event_record, backend_event_query, backend_event_synchronize,
    backend_event_release, backend_now, NULL,
    backend_va_reserve, backend_va_map, backend_va_unmap, backend_va_release,
  };
  static const TsHostAllocatorBackend host_backend = {
    backend_event_record, backend_event_query, backend_event_release, backend_now,
    sim_host_alloc, sim_host_free,
  };
  TsAllocConfig config;

  ts_alloc_config_init (&config);
  if (!ts_alloc_config_parse (&config, g_getenv ("PYTORCH_CUDA_ALLOC_CONF"), error))
    return FALSE;

  if (session.kernels != NULL && config.expandable_segments)
    {
      g_set_error_literal (error, TS_ALLOC_CONFIG_ERROR, TS_ALLOC_CONFIG_ERROR_UNSUPPORTED,
                           "expandable_segments:True is not supported on a real GPU yet: "
                           "only the simulated devices model it");
      return FALSE;
    }
  if (session.kernels != NULL)
    {
      /* The same caching allocators over the real device's memory. */
      static const TsAllocatorBackend hw_backend = {
        hw_segment_malloc, hw_segment_free, hw_mem_get_info,
        backend_event_record, backend_event_query, backend_event_synchronize,
        backend_event_release, backend_now, NULL,
      };
      static const TsHostAllocatorBackend hw_host_backend = {
        backend_event_record, backend_event_query, backend_event_release, backend_now,
        hw_host_alloc, hw_host_free,
      };

      session.allocator = ts_allocator_new (session.n_devices, &config, &hw_backend,
                                            (gpointer) session.kernels);
      session.host_allocator = ts_host_allocator_new (&hw_host_backend, (gpointer) session.kernels);
    }
  else
    {
      session.memory = ts_device_memory_new ();
      for (int d = 0; d < session.n_devices; d++)
        if (ts_device_memory_add_device (session.memory, session.profile->total_memory, 0, error) == G_MAXUINT)
          return FALSE;
      session.allocator = ts_allocator_new (session.n_devices, &config, &backend, NULL);
      session.host_allocator = ts_host_allocator_new (&host_backend, NULL);
    }
  ts_allocator_set_recorder (session.allocator, session.recorder);
  return TRUE;
}

gboolean
ts_session_malloc (int          device,
                   gsize        size,
                   TsStreamId   stream,
                   guint64     *addr,
                   guint8     **host,
                   gpointer    *block_out,
                   GError     **error)
{
  TsSourceLoc loc = ts_callsite_get ();

  if (!ts_session_check_device (device, error))
    return FALSE;
  if (!ts_allocator_malloc (session.allocator, device, size, stream, &loc, addr, error))
    return FALSE;
  if (session.kernels != NULL)
    {
      /* a real GPU's memory: no host bytes behind it */
      *host = NULL;
      *block_out = GSIZE_TO_POINTER (*addr);
      return TRUE;
    }
  if (ts_host_data_no_data ())
    {
      /* a block without bytes: the kernels are not computed */
      *host = NULL;
      *block_out = GSIZE_TO_POINTER (*addr);
      return TRUE;
    }
  *host = ts_device_memory_translate (session.memory, *addr, MAX (size, 1), error);
  if (*host == NULL)
    {
      /* no host memory to back it: the segment goes back too, or the next
       * allocation carved from it would fail the same way */
      ts_allocator_free (session.allocator, *addr, &loc, NULL);
      ts_allocator_empty_cache (session.allocator);
      return FALSE;
    }
  *block_out = GSIZE_TO_POINTER (*addr);
  return TRUE;
}

void
ts_session_free (gpointer block)
{
  TsSourceLoc loc = ts_callsite_get ();

  if (block != NULL && session.allocator != NULL)
    ts_allocator_free (session.allocator, GPOINTER_TO_SIZE (block), &loc, NULL);
}

void
ts_session_record_stream (gpointer   block,
                          TsStreamId stream)
{
  if (block != NULL && session.allocator != NULL)
    ts_allocator_record_stream (session.allocator, GPOINTER_TO_SIZE (block), stream);
}

gboolean
ts_session_host_malloc (gsize      size,
                        guint64   *addr,
                        guint8   **host,
                        gpointer  *block,
                        GError   **error)
{
  gpointer p;

  if (!ts_session_cuda_init (error))
    return FALSE;
  if (size == 0)
    {
      *addr = 0;
      *host = NULL;
      *block = NULL;
      return TRUE;
    }
  p = ts_host_allocator_allocate (session.host_allocator, size, error);
  if (p == NULL)
    return FALSE;
  *addr = GPOINTER_TO_SIZE (p);
  *host = ts_host_data_no_data () ? NULL : p;
  *block = p;
  return TRUE;
}

void
ts_session_host_free (gpointer block)
{
  if (block != NULL && session.host_allocator != NULL)
    ts_host_allocator_free (session.host_allocator, block, NULL);
}

void
ts_session_host_record_stream (gconstpointer ptr,
                               TsStreamId    stream)
{
  if (session.host_allocator != NULL)
    ts_host_allocator_record_event (session.host_allocator, ptr, stream);
}

gboolean
ts_session_host_is_pinned (gconstpointer ptr)
{
  return session.host_allocator != NULL && ts_host_allocator_is_pinned (session.host_allocator, ptr);
}

void
ts_session_empty_cache (void)
{
  session_ensure ();
  if (session.allocator != NULL)
    ts_allocator_empty_cache (session.allocator);
}

GHashTable *
ts_session_memory_stats (int device)
{
  GHashTable *table = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  TsMemoryStats stats;

  session_ensure ();
  if (session.allocator == NULL || device < 0 || device >= session.n_devices ||
      !ts_allocator_get_stats (session.allocator, device, &stats))
    return table;
  for (guint i = 0; i < TS_MEMORY_STATS_N_KEYS; i++)
    {
      gint64 v = ts_memory_stats_value (&stats, i);
      g_hash_table_insert (table, (gpointer) ts_memory_stats_key (i), g_memdup2 (&v, sizeof v));
    }
  return table;
}

void
ts_session_reset_peak_stats (int device)
{
  if (session.allocator != NULL && device >= 0 && device < session.n_devices)
    ts_allocator_reset_peak_stats (session.allocator, device);
}

void
ts_session_reset_accumulated_stats (int device)
{
  if (session.allocator != NULL && device >= 0 && device < session.n_devices)
    ts_allocator_reset_accumulated_stats (session.allocator, device);
}

char *
ts_session_memory_summary (int      device,
                           gboolean abbreviated)
{
  TsMemoryStats stats;

  if (session.allocator != NULL && device >= 0 && device < session.n_devices)
    return ts_allocator_memory_summary (session.allocator, device, abbreviated);
  ts_memory_stats_init (&stats, -1);
  return ts_memory_stats_format_summary (&stats, MAX (device, 0), abbreviated);
}

gboolean
ts_session_set_memory_fraction (int      device,
                                double   fraction,
                                GError **error)
{
  if (!ts_session_check_device (device, error))
    return FALSE;
  return ts_allocator_set_memory_fraction (session.allocator, device, fraction, error);
}

void
ts_session_mem_get_info (int      device,
                         guint64 *free_bytes,
                         guint64 *total_bytes)
{
  *free_bytes = *total_bytes = 0;
  if (session.kernels != NULL)
    hw_mem_get_info ((gpointer) session.kernels, (guint) device, free_bytes, total_bytes);
  else if (session.memory != NULL)
    ts_device_memory_get_info (session.memory, device, free_bytes, total_bytes, NULL);
}

TsAllocator *
ts_session_get_allocator (void)
{
  return session.allocator;
}

gpointer
ts_session_translate (guint64 addr,
                      gsize   size)
{
  if (session.memory == NULL)
    return NULL;
  return ts_device_memory_translate (session.memory, addr, size, NULL);
}

gboolean
ts_session_address_valid (guint64 addr,
                          gsize   size)
{
  return session.memory != NULL && ts_device_memory_contains (session.memory, addr, size);
}

/* Host access to device bytes ------------------------------------------ */

/* What the host reads or writes goes after the work queued so far, as a
 * cudaMemcpy on the legacy default stream does: every device is
 * synchronized first (through the runtime, so the wait is recorded and a
 * sticky error surfaces here with PyTorch's text). */
static gboolean
sync_all_devices (GError **error)
{
  if (session.runtime == NULL)
    {
      g_set_error_literal (error, TS_SESSION_ERROR, TS_SESSION_ERROR_FAILED,
                           "CUDA is not initialized");
      return FALSE;
    }
  for (int d = 0; d < session.n_devices; d++)
    if (!ts_runtime_device_synchronize (session.runtime, d, error))
      return FALSE;
  return TRUE;
}

/* The host bytes behind simulated device memory. */
static gpointer
device_bytes (guint64   addr,
              gsize     size,
              GError  **error)
{
  gpointer host = ts_session_translate (addr, size);

  if (host == NULL)
    g_set_error_literal (error, TS_SESSION_ERROR, TS_SESSION_ERROR_FAILED,
                         "CUDA error: an illegal memory access was encountered");
  return host;
}

/* Copies between host memory and device bytes at addr, either way. */
static gboolean
device_transfer (guint64    addr,
                 gpointer   host,
                 gsize      size,
                 gboolean   to_device,
                 GError   **error)
{
  gpointer dev;
  int err;

  if (ts_host_data_no_data ())
    return ts_host_data_refuse (to_device ? "Writing device memory from the host"
                                          : "Reading device memory on the host", error);
  if (!sync_all_devices (error))
    return FALSE;
  if (session.kernels == NULL)
    {
      if ((dev = device_bytes (addr, size, error)) == NULL)
        return FALSE;
      memcpy (to_device ? dev : host, to_device ? host : dev, size);
      return TRUE;
    }
  dev = GSIZE_TO_POINTER (addr);
  err = session.kernels->memcpy_sync (to_device ? dev : host, to_device ? host : dev, size);
  if (err == 0)
    return TRUE;
  g_set_error (error, TS_SESSION_ERROR, TS_SESSION_ERROR_FAILED, "CUDA error: %s",
               session.kernels->error_string (err));
  return FALSE;
}

gboolean
ts_session_read_device (guint64    addr,
                        gsize      size,
                        gpointer   dst,
                        GError   **error)
{
  return device_transfer (addr, dst, size, FALSE, error);
}

gboolean
ts_session_write_device (guint64        addr,
                         gconstpointer  src,
                         gsize          size,
                         GError       **error)
{
  /* read only: device_transfer copies from it when to_device */
  return device_transfer (addr, (gpointer) src, size, TRUE, error);
}
