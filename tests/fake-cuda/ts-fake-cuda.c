/* ts-fake-cuda.c: a host implementation of the CUDA backend module's table
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A TEST DOUBLE, built into libtensorscope-fake-cuda.so whether or not the
 * CUDA toolkit is installed, so that CI machines without a GPU can drive
 * the runtime's whole real-GPU path (ts_cuda_backend_open() and the
 * TsCudaKernels table of ts-cuda-kernels.h) with CUDA's semantics:
 *
 * Devices: $TS_FAKE_CUDA_DEVICES devices (default 2; 0 means device_count
 * fails with cudaErrorNoDevice), each an H100 ("Fake CUDA Device (H100)",
 * 132 SMs, cc 9.0, 2048 threads/SM) with $TS_FAKE_CUDA_MEMORY bytes
 * (default 85520809984), fewer if CUDA_VISIBLE_DEVICES hides some. All are
 * read once, on the first call. Device
 * memory is host memory (256-byte aligned); usage is counted per device in
 * exact bytes, and an allocation past the total fails with
 * cudaErrorMemoryAllocation.
 *
 * Execution: work runs at once, on the calling thread, in issue order:
 * a legal CUDA schedule, since it respects stream order and every event.
 * Time is virtual and deterministic: each stream has a clock (picoseconds,
 * starting at 0) that each kernel, copy or memset on it advances by
 *
 *   2 us + device bytes / (2 TB/s) + host bytes / (25 GB/s) + flops / (50 TFLOP/s)
 *
 * (integer picoseconds: 2000000 + ceil (device_bytes / 2) + host_bytes * 40
 * + ceil (flops / 50)). A kernel's device bytes are the sizes of all its
 * tensor operands (scalars count 0, each operand once, broadcast or not);
 * a copy's are its byte count, as host bytes when either side is not
 * device memory (pageable or pinned host); only matmul and bmm have flops
 * (2 m n k per matrix). event_record stamps an event with its stream's
 * clock, stream_wait_event moves a stream's clock up to the event's time,
 * event_elapsed is the difference in ms.
 *
 * The host has a virtual clock too, so that asynchrony shows as on a GPU:
 * each submission (kernel, copy, memset, event record) and each query
 * costs the host 1 us; work on an idle stream starts at the host's time
 * (an event recorded on an idle stream completes then); a query says
 * "not ready" while the stream's or event's time is ahead of the host's; a
 * synchronization moves the host's clock up to the time waited for. The
 * work itself still runs at once (its results are there early; only what
 * the program can observe through CUDA's calls is timed).
 *
 * Kernels run the CPU kernels (src/kernels/cpu) on the same views, so
 * results are the CPU backend's bit for bit (random numbers included: the
 * same Philox mapping with this device's SM count). An out-of-range index
 * in index_select/gather prints the simulator's lines on stderr
 * (ts-device-assert.h: PyTorch's assert, one line per failing thread of
 * PyTorch's grid), writes nothing, and leaves the sticky error 710, as
 * does 700 for a kernel operand outside every live allocation: the launch
 * itself succeeds; every later sync, query, allocation and launch returns
 * it.
 *
 * One mutex serializes everything.
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "ts-cpu-kernels.h"
#include "ts-cpu-loss.h"
#include "ts-cuda-kernels.h"
#include "ts-op-table.h"
#include "ts-runtime.h"
#include "ts-device-assert.h"
#include "ts-fake-cuda.h"

#define EXPORT __attribute__ ((visibility ("default")))

#define DEFAULT_N_DEVICES     2
#define DEFAULT_MEMORY        G_GUINT64_CONSTANT (85520809984)
#define MAX_DEVICES           64
#define SM_COUNT              132
#define MAX_THREADS_PER_SM    2048
#define ALIGNMENT             256
#define LEAST_PRIORITY        0
#define GREATEST_PRIORITY     (-5)

/* The timing model, in picoseconds. */
#define LAUNCH_PS             G_GUINT64_CONSTANT (2000000)
#define HOST_PS_PER_BYTE      40    /* 25 GB/s */
#define DEVICE_BYTES_PER_PS   2     /* 2 TB/s */
#define FLOPS_PER_PS          50    /* 50 TFLOP/s */

#define PINNED                (-1)  /* Alloc.device of malloc_host memory */
#define FAULT                 (-1)  /* map_view: the kernel must not run */

#define ERROR_INVALID_RESOURCE_HANDLE 400

typedef struct
{
  int     device;
  int     priority;
  guint64 clock;
} FakeStream;

typedef struct
{
  int      device;
  int      flags;
  gboolean recorded;
  guint64  time;
} FakeEvent;

typedef struct
{
  int     device;   /* PINNED for pinned host memory */
  guint64 size;
} Alloc;

/* A scalar operand's value, stored in its dtype for a 0-dim TsView. */
typedef union
{
  double  d;
  gint64  i;
  guint8  bytes[16];
} Scalar;

static GMutex lock;
static gsize initialized;
static int n_devices;
static guint64 total_memory;
static guint64 used[MAX_DEVICES];
static FakeStream legacy[MAX_DEVICES];   /* the legacy default streams */
static GTree *allocs;                    /* base address -> Alloc */
static GHashTable *streams;              /* created streams */
static GHashTable *events;
static int sticky;                       /* 0, 700 or 710: never cleared */
static TsFakeCudaCounters counters;
static _Thread_local int current_device;

static int
compare_addresses (gconstpointer a,
                   gconstpointer b,
                   gpointer      user_data)
{
  return (guintptr)a < (guintptr)b ? -1 : (guintptr)a > (guintptr)b;
}

static GMutexLocker *
enter (void)
{
  if (g_once_init_enter (&initialized))
    {
      const char *devices = g_getenv ("TS_FAKE_CUDA_DEVICES");
      const char *memory = g_getenv ("TS_FAKE_CUDA_MEMORY");

      n_devices = devices != NULL ? (int)CLAMP (g_ascii_strtoll (devices, NULL, 10), 0, MAX_DEVICES)
                                  : DEFAULT_N_DEVICES;
      total_memory = memory != NULL ? g_ascii_strtoull (memory, NULL, 10) : DEFAULT_MEMORY;
      /* the driver applies CUDA_VISIBLE_DEVICES (the devices are alike,
       * so only their number changes) */
      if (g_getenv ("CUDA_VISIBLE_DEVICES") != NULL)
        {
          g_autoptr(GArray) visible =
            ts_runtime_parse_visible_devices (g_getenv ("CUDA_VISIBLE_DEVICES"), (guint) n_devices, NULL);

          n_devices = (int) visible->len;
        }
      for (int d = 0; d < MAX_DEVICES; d++)
        legacy[d].device = d;
      allocs = g_tree_new_full (compare_addresses, NULL, NULL, g_free);
      streams = g_hash_table_new (NULL, NULL);
      events = g_hash_table_new (NULL, NULL);
      g_once_init_leave (&initialized, 1);
    }
  return g_mutex_locker_new (&lock);
}

/* What every call but the device queries checks first. */
static int
usable (void)
{
  if (n_devices == 0)
    return TS_CUDA_ERROR_NO_DEVICE;
  return sticky;
}

/* The live allocation holding @p, or NULL. */
static Alloc *
find_alloc (const void *p,
            char      **base)
{
  GTreeNode *node = g_tree_upper_bound (allocs, p);   /* the first base above p */
  Alloc *a;

  node = node != NULL ? g_tree_node_previous (node) : g_tree_node_last (allocs);
  if (node == NULL)
    return NULL;
  a = g_tree_node_value (node);
  *base = g_tree_node_key (node);
  return (const char *)p < *base + a->size ? a : NULL;
}

/* Whether [p, p + bytes) lies inside one live allocation (pinned host
 * memory too, unless @device_only). */
static gboolean
inside_alloc (const void *p,
              guint64     bytes,
              gboolean    device_only)
{
  char *base;
  Alloc *a = find_alloc (p, &base);

  return a != NULL && (!device_only || a->device != PINNED) &&
         (guint64)((const char *)p - base) + bytes <= a->size;
}

/* A copy operand: host memory anywhere, or device memory that must fit. */
static gboolean
copy_operand_ok (const void *p,
                 guint64     bytes,
                 gboolean   *on_device)
{
  char *base;
  Alloc *a = find_alloc (p, &base);

  *on_device = a != NULL && a->device != PINNED;
  return a == NULL || (guint64)((const char *)p - base) + bytes <= a->size;
}

static FakeStream *
resolve_stream (void *stream)
{
  if (stream == NULL)
    return &legacy[current_device];
  return g_hash_table_contains (streams, stream) ? stream : NULL;
}

static guint64
duration_ps (guint64 device_bytes,
             guint64 host_bytes,
             guint64 flops)
{
  return LAUNCH_PS + (device_bytes + DEVICE_BYTES_PER_PS - 1) / DEVICE_BYTES_PER_PS +
         host_bytes * HOST_PS_PER_BYTE + (flops + FLOPS_PER_PS - 1) / FLOPS_PER_PS;
}

static gint64
view_numel (const TsCudaView *v)
{
  gint64 n = 1;

  for (int d = 0; d < v->ndim; d++)
    n *= v->shape[d];
  return n;
}

static guint64
view_bytes (const TsCudaView *v)
{
  if (v->ndim == 0 && v->data == NULL)
    return 0;
  return (guint64)view_numel (v) * ts_dtype_size ((TsDType)v->dtype);
}

/* A sticky error, as the GPU raises one: the launch already returned. */
static void
fault (int error)
{
  if (sticky == 0)
    sticky = error;
}

/* TsCudaView -> TsView. Scalars (ndim 0, data NULL) need @scalar, where
 * their value is stored in their dtype. FAULT: an operand outside every
 * live allocation (an illegal address; the kernel must not run). */
static int
map_view (const TsCudaView *cv,
          TsView           *v,
          Scalar           *scalar)
{
  gint64 extent = 0;
  gsize esize;

  if (cv == NULL || cv->ndim < 0 || cv->ndim > TS_CUDA_MAX_DIMS || cv->offset < 0 ||
      !ts_dtype_is_valid ((TsDType)cv->dtype))
    return TS_CUDA_ERROR_INVALID_VALUE;
  if (cv->ndim == 0 && cv->data == NULL)
    {
      if (scalar == NULL)
        return TS_CUDA_ERROR_INVALID_VALUE;
      memset (scalar, 0, sizeof *scalar);
      if (ts_dtype_is_floating ((TsDType)cv->dtype))
        ts_dtype_store ((TsDType)cv->dtype, scalar->bytes, cv->dvalue);
      else
        ts_dtype_store_int ((TsDType)cv->dtype, scalar->bytes, cv->ivalue);
      ts_view_init_scalar (v, (TsDType)cv->dtype, scalar->bytes);
      return 0;
    }
  for (int d = 0; d < cv->ndim; d++)
    {
      if (cv->shape[d] < 0 || cv->strides[d] < 0)
        return TS_CUDA_ERROR_INVALID_VALUE;
      if (cv->shape[d] == 0)
        extent = -1;
      else if (extent >= 0)
        extent += (cv->shape[d] - 1) * cv->strides[d];
    }
  ts_view_init (v, (TsDType)cv->dtype, cv->data, (guint)cv->ndim, cv->shape, cv->strides,
                cv->offset);
  esize = ts_dtype_size ((TsDType)cv->dtype);
  if (extent >= 0 &&
      (cv->data == NULL ||
       !inside_alloc ((char *)cv->data + cv->offset * esize, (guint64)(extent + 1) * esize, FALSE)))
    {
      fprintf (stderr, "ts-fake-cuda: a kernel operand at %p (offset %" G_GINT64_FORMAT
               ") is outside every live allocation: illegal address\n",
               cv->data, cv->offset);
      fault (TS_CUDA_ERROR_ILLEGAL_ADDRESS);
      return FAULT;
    }
  return 0;
}

/* Maps an operand or returns from the kernel: a bad view is an error of
 * the launch, an illegal address is not (it surfaces later, sticky). */
#define MAP(cv, v, scalar) G_STMT_START {                                \
    int map_err_ = map_view ((cv), (v), (scalar));                       \
    if (map_err_ != 0)                                                   \
      return map_err_ == FAULT ? TS_CUDA_SUCCESS : map_err_;             \
  } G_STMT_END

/* The stream a kernel runs on: on the current device, as CUDA requires. */
static int
launch_prepare (void        *stream,
                FakeStream **s)
{
  int err = usable ();

  if (err != 0)
    return err;
  *s = resolve_stream (stream);
  if (*s == NULL || (*s)->device != current_device)
    return ERROR_INVALID_RESOURCE_HANDLE;
  return 0;
}

/* The host's virtual clock (ps), see the header comment. */
#define HOST_STEP_PS G_GUINT64_CONSTANT (1000000)
#define EVENT_PS     G_GUINT64_CONSTANT (1000)
static guint64 host_clock;
static guint64 device_busy_until[64];   /* latest work end per device */

/* Work of @duration ps on s: it starts when both the stream and the host
 * are there. */
static void
stream_advance (FakeStream *s,
                guint64     duration)
{
  s->clock = MAX (s->clock, host_clock) + duration;
  host_clock += HOST_STEP_PS;
  if (s->device >= 0 && s->device < (int) G_N_ELEMENTS (device_busy_until))
    device_busy_until[s->device] = MAX (device_busy_until[s->device], s->clock);
}

static int
launch_finish (FakeStream *s,
               gboolean    ok,
               GError     *error,
               guint64     bytes,
               guint64     flops)
{
  if (!ok)
    {
      g_debug ("ts-fake-cuda: launch refused: %s", error != NULL ? error->message : "?");
      return error != NULL && error->domain == TS_KERNEL_ERROR && error->code == TS_KERNEL_ERROR_DTYPE
             ? TS_CUDA_ERROR_NOT_SUPPORTED : TS_CUDA_ERROR_INVALID_VALUE;
    }
  stream_advance (s, duration_ps (bytes, 0, flops));
  counters.launches++;
  return TS_CUDA_SUCCESS;
}

/* ---- Devices and memory ------------------------------------------------ */

static int
k_device_count (int *count)
{
  g_autoptr(GMutexLocker) locker = enter ();

  if (count == NULL)
    return TS_CUDA_ERROR_INVALID_VALUE;
  *count = n_devices;
  return n_devices == 0 ? TS_CUDA_ERROR_NO_DEVICE : TS_CUDA_SUCCESS;
}

static int
k_device_info (int device, char *name, int name_len, int *sm_count, int *cc_major,
               int *cc_minor, uint64_t *total, int *max_threads_per_sm)
{
  g_autoptr(GMutexLocker) locker = enter ();

  if (n_devices == 0)
    return TS_CUDA_ERROR_NO_DEVICE;
  if (device < 0 || device >= n_devices)
    return TS_CUDA_ERROR_INVALID_DEVICE;
  if (name != NULL && name_len > 0)
    {
      /* TS_FAKE_CUDA_NAME: tests that compare with a real H100's output */
      const char *env = g_getenv ("TS_FAKE_CUDA_NAME");

      g_strlcpy (name, env != NULL ? env : "Fake CUDA Device (H100)", (gsize)name_len);
    }
  *sm_count = SM_COUNT;
  *cc_major = 9;
  *cc_minor = 0;
  *total = total_memory;
  *max_threads_per_sm = MAX_THREADS_PER_SM;
  return TS_CUDA_SUCCESS;
}

static int
k_set_device (int device)
{
  g_autoptr(GMutexLocker) locker = enter ();

  if (n_devices == 0)
    return TS_CUDA_ERROR_NO_DEVICE;
  if (device < 0 || device >= n_devices)
    return TS_CUDA_ERROR_INVALID_DEVICE;
  current_device = device;
  return TS_CUDA_SUCCESS;
}

static int
k_get_device (int *device)
{
  g_autoptr(GMutexLocker) locker = enter ();

  if (n_devices == 0)
    return TS_CUDA_ERROR_NO_DEVICE;
  *device = current_device;
  return TS_CUDA_SUCCESS;
}

static int
allocate (void **ptr, uint64_t size, int device)
{
  void *p = NULL;
  Alloc *a;
  int err = usable ();

  if (ptr == NULL)
    return TS_CUDA_ERROR_INVALID_VALUE;
  *ptr = NULL;
  if (err != 0)
    return err;
  if (size == 0)
    return TS_CUDA_SUCCESS;
  if ((device != PINNED && size > total_memory - used[device]) ||
      posix_memalign (&p, ALIGNMENT, size) != 0)
    return TS_CUDA_ERROR_MEMORY_ALLOCATION;
  a = g_new (Alloc, 1);
  a->device = device;
  a->size = size;
  g_tree_insert (allocs, p, a);
  if (device != PINNED)
    {
      used[device] += size;
      counters.mallocs++;
    }
  *ptr = p;
  return TS_CUDA_SUCCESS;
}

/* A sticky error does not keep memory: the process may go on to exit. */
static int
release (void *ptr, gboolean pinned)
{
  Alloc *a;

  if (ptr == NULL)
    return usable ();
  a = g_tree_lookup (allocs, ptr);
  if (a == NULL || (a->device == PINNED) != pinned)
    return sticky != 0 ? sticky : TS_CUDA_ERROR_INVALID_VALUE;
  if (!pinned)
    {
      used[a->device] -= a->size;
      counters.frees++;
    }
  g_tree_remove (allocs, ptr);
  free (ptr);
  return usable ();
}

static int
k_malloc_device (void **ptr, uint64_t size)
{
  g_autoptr(GMutexLocker) locker = enter ();

  return allocate (ptr, size, current_device);
}

static int
k_free_device (void *ptr)
{
  g_autoptr(GMutexLocker) locker = enter ();

  return release (ptr, FALSE);
}

static int
k_malloc_host (void **ptr, uint64_t size)
{
  g_autoptr(GMutexLocker) locker = enter ();

  return allocate (ptr, size, PINNED);
}

static int
k_free_host (void *ptr)
{
  g_autoptr(GMutexLocker) locker = enter ();

  return release (ptr, TRUE);
}

static int
k_mem_get_info (uint64_t *free_bytes, uint64_t *total_bytes)
{
  g_autoptr(GMutexLocker) locker = enter ();
  int err = usable ();

  if (err != 0)
    return err;
  *free_bytes = total_memory - used[current_device];
  *total_bytes = total_memory;
  return TS_CUDA_SUCCESS;
}

/* ---- Streams and events ------------------------------------------------ */

static int
k_stream_create (void **stream, int priority)
{
  g_autoptr(GMutexLocker) locker = enter ();
  FakeStream *s;
  int err = usable ();

  if (err != 0)
    return err;
  s = g_new0 (FakeStream, 1);
  s->device = current_device;
  /* cudaStreamCreateWithPriority clamps to the device's range. */
  s->priority = CLAMP (priority, GREATEST_PRIORITY, LEAST_PRIORITY);
  g_hash_table_add (streams, s);
  *stream = s;
  return TS_CUDA_SUCCESS;
}

static int
k_stream_destroy (void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();

  if (stream == NULL || !g_hash_table_remove (streams, stream))
    return ERROR_INVALID_RESOURCE_HANDLE;
  g_free (stream);
  return usable ();
}

/* sync and query: all work is done, unless the device is lost. */
static int
k_stream_sync (void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  int err = usable ();

  FakeStream *s;

  if (err != 0)
    return err;
  if ((s = resolve_stream (stream)) == NULL)
    return ERROR_INVALID_RESOURCE_HANDLE;
  host_clock = MAX (host_clock, s->clock);
  return TS_CUDA_SUCCESS;
}

static int
k_device_sync (void)
{
  g_autoptr(GMutexLocker) locker = enter ();

  if (current_device >= 0 && current_device < (int) G_N_ELEMENTS (device_busy_until))
    host_clock = MAX (host_clock, device_busy_until[current_device]);
  return usable ();
}

static int
k_stream_priority_range (int *least, int *greatest)
{
  *least = LEAST_PRIORITY;
  *greatest = GREATEST_PRIORITY;
  return TS_CUDA_SUCCESS;
}

static int
k_event_create (void **event, int flags)
{
  g_autoptr(GMutexLocker) locker = enter ();
  FakeEvent *e;
  int err = usable ();

  if (err != 0)
    return err;
  /* Interprocess events must not time (cudaEventCreateWithFlags). */
  if ((flags & ~7) != 0 ||
      ((flags & TS_CUDA_EVENT_INTERPROCESS) != 0 && (flags & TS_CUDA_EVENT_DISABLE_TIMING) == 0))
    return TS_CUDA_ERROR_INVALID_VALUE;
  e = g_new0 (FakeEvent, 1);
  e->device = current_device;
  e->flags = flags;
  g_hash_table_add (events, e);
  *event = e;
  return TS_CUDA_SUCCESS;
}

static int
k_event_destroy (void *event)
{
  g_autoptr(GMutexLocker) locker = enter ();

  if (event == NULL || !g_hash_table_remove (events, event))
    return ERROR_INVALID_RESOURCE_HANDLE;
  g_free (event);
  return usable ();
}

static int
k_event_record (void *event, void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  FakeEvent *e = event;
  FakeStream *s;
  int err = usable ();

  if (err != 0)
    return err;
  s = resolve_stream (stream);
  if (s == NULL || !g_hash_table_contains (events, event) || e->device != s->device)
    return ERROR_INVALID_RESOURCE_HANDLE;
  /* the stream's front end takes a moment (1 ns) per event, so two events
   * recorded back to back are not at the same time */
  e->recorded = TRUE;
  s->clock = MAX (s->clock, host_clock) + EVENT_PS;
  e->time = s->clock;
  host_clock += HOST_STEP_PS;
  return TS_CUDA_SUCCESS;
}

static int
k_stream_wait_event (void *stream, void *event)
{
  g_autoptr(GMutexLocker) locker = enter ();
  FakeEvent *e = event;
  FakeStream *s;
  int err = usable ();

  if (err != 0)
    return err;
  s = resolve_stream (stream);
  if (s == NULL || !g_hash_table_contains (events, event))
    return ERROR_INVALID_RESOURCE_HANDLE;
  /* Waiting on an event never recorded waits for nothing. */
  if (e->recorded)
    s->clock = MAX (s->clock, e->time);
  return TS_CUDA_SUCCESS;
}

static int
k_stream_query (void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  int err = usable ();
  FakeStream *s;
  gboolean done;

  if (err != 0)
    return err;
  if ((s = resolve_stream (stream)) == NULL)
    return ERROR_INVALID_RESOURCE_HANDLE;
  done = s->clock <= host_clock;
  host_clock += HOST_STEP_PS;
  return done ? TS_CUDA_SUCCESS : TS_CUDA_ERROR_NOT_READY;
}

static int
k_event_sync (void *event)
{
  g_autoptr(GMutexLocker) locker = enter ();
  FakeEvent *e = event;
  int err = usable ();

  if (err != 0)
    return err;
  if (!g_hash_table_contains (events, event))
    return ERROR_INVALID_RESOURCE_HANDLE;
  if (e->recorded)
    host_clock = MAX (host_clock, e->time);
  return TS_CUDA_SUCCESS;
}

static int
k_event_query (void *event)
{
  g_autoptr(GMutexLocker) locker = enter ();
  FakeEvent *e = event;
  int err = usable ();
  gboolean done;

  if (err != 0)
    return err;
  if (!g_hash_table_contains (events, event))
    return ERROR_INVALID_RESOURCE_HANDLE;
  done = !e->recorded || e->time <= host_clock;
  host_clock += HOST_STEP_PS;
  return done ? TS_CUDA_SUCCESS : TS_CUDA_ERROR_NOT_READY;
}

/* cudaEventElapsedTime: 400 for an event that does not time or was never
 * recorded (as documented); 600 cannot happen, work is always done. */
static int
k_event_elapsed (float *ms, void *start, void *end)
{
  g_autoptr(GMutexLocker) locker = enter ();
  FakeEvent *a = start, *b = end;
  int err = usable ();

  if (err != 0)
    return err;
  if (ms == NULL)
    return TS_CUDA_ERROR_INVALID_VALUE;
  if (!g_hash_table_contains (events, start) || !g_hash_table_contains (events, end) ||
      ((a->flags | b->flags) & TS_CUDA_EVENT_DISABLE_TIMING) != 0 ||
      !a->recorded || !b->recorded || a->device != b->device)
    return ERROR_INVALID_RESOURCE_HANDLE;
  /* both must have completed by the host's time, as on a GPU */
  if (a->time > host_clock || b->time > host_clock)
    return TS_CUDA_ERROR_NOT_READY;
  *ms = (float)((double)((gint64)b->time - (gint64)a->time) / 1e9);
  return TS_CUDA_SUCCESS;
}

static int
k_peek_error (void)
{
  g_autoptr(GMutexLocker) locker = enter ();

  return sticky;
}

/* ---- Copies ------------------------------------------------------------ */

static int
copy_on (FakeStream *s, void *dst, const void *src, uint64_t bytes)
{
  gboolean dst_dev, src_dev;

  if (bytes == 0)
    return TS_CUDA_SUCCESS;
  if (dst == NULL || src == NULL ||
      !copy_operand_ok (dst, bytes, &dst_dev) || !copy_operand_ok (src, bytes, &src_dev))
    return TS_CUDA_ERROR_INVALID_VALUE;
  memmove (dst, src, bytes);
  stream_advance (s, dst_dev && src_dev ? duration_ps (bytes, 0, 0) : duration_ps (0, bytes, 0));
  counters.copies++;
  return TS_CUDA_SUCCESS;
}

static int
k_memcpy_async (void *dst, const void *src, uint64_t bytes, void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  FakeStream *s;
  int err = usable ();

  if (err != 0)
    return err;
  if ((s = resolve_stream (stream)) == NULL)
    return ERROR_INVALID_RESOURCE_HANDLE;
  return copy_on (s, dst, src, bytes);
}

/* cudaMemcpy runs on the legacy default stream of the current device. */
static int
k_memcpy_sync (void *dst, const void *src, uint64_t bytes)
{
  g_autoptr(GMutexLocker) locker = enter ();
  int err = usable ();

  if (err != 0)
    return err;
  if ((err = copy_on (&legacy[current_device], dst, src, bytes)) == 0)
    host_clock = MAX (host_clock, legacy[current_device].clock);
  return err;
}

static int
k_memcpy_peer_async (void *dst, int dst_device, const void *src, int src_device,
                     uint64_t bytes, void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  char *dst_base, *src_base;
  Alloc *d, *sa;
  FakeStream *s;
  int err = usable ();

  if (err != 0)
    return err;
  if (dst_device < 0 || dst_device >= n_devices || src_device < 0 || src_device >= n_devices)
    return TS_CUDA_ERROR_INVALID_DEVICE;
  if ((s = resolve_stream (stream)) == NULL)
    return ERROR_INVALID_RESOURCE_HANDLE;
  if (bytes == 0)
    return TS_CUDA_SUCCESS;
  d = dst != NULL ? find_alloc (dst, &dst_base) : NULL;
  sa = src != NULL ? find_alloc (src, &src_base) : NULL;
  if (d == NULL || sa == NULL || d->device != dst_device || sa->device != src_device)
    return TS_CUDA_ERROR_INVALID_VALUE;
  return copy_on (s, dst, src, bytes);
}

static int
k_memset_async (void *dst, int value, uint64_t bytes, void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  FakeStream *s;
  int err = usable ();

  if (err != 0)
    return err;
  if ((s = resolve_stream (stream)) == NULL)
    return ERROR_INVALID_RESOURCE_HANDLE;
  if (bytes == 0)
    return TS_CUDA_SUCCESS;
  if (dst == NULL || !inside_alloc (dst, bytes, TRUE))
    return TS_CUDA_ERROR_INVALID_VALUE;
  memset (dst, value, bytes);
  stream_advance (s, duration_ps (bytes, 0, 0));
  counters.memsets++;
  return TS_CUDA_SUCCESS;
}

static const char *
k_error_string (int error)
{
  switch (error)
    {
    case TS_CUDA_SUCCESS:                 return "no error";
    case TS_CUDA_ERROR_INVALID_VALUE:     return "invalid argument";
    case TS_CUDA_ERROR_MEMORY_ALLOCATION: return "out of memory";
    case TS_CUDA_ERROR_NO_DEVICE:         return "no CUDA-capable device is detected";
    case TS_CUDA_ERROR_INVALID_DEVICE:    return "invalid device ordinal";
    case ERROR_INVALID_RESOURCE_HANDLE:   return "invalid resource handle";
    case TS_CUDA_ERROR_NOT_READY:         return "device not ready";
    case TS_CUDA_ERROR_ILLEGAL_ADDRESS:   return "an illegal memory access was encountered";
    case TS_CUDA_ERROR_ASSERT:            return "device-side assert triggered";
    case TS_CUDA_ERROR_NOT_SUPPORTED:     return "operation not supported";
    default:                              return "unrecognized error code";
    }
}

/* ---- Kernels ----------------------------------------------------------- */

static int
k_fill (const TsCudaView *out, double value, void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  FakeStream *s;
  TsView o;
  int err;

  if ((err = launch_prepare (stream, &s)) != 0)
    return err;
  MAP (out, &o, NULL);
  ts_cpu_fill (&o, value);
  return launch_finish (s, TRUE, NULL, view_bytes (out), 0);
}

static int
k_fill_int (const TsCudaView *out, int64_t value, void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  FakeStream *s;
  TsView o;
  int err;

  if ((err = launch_prepare (stream, &s)) != 0)
    return err;
  MAP (out, &o, NULL);
  ts_cpu_fill_int (&o, value);
  return launch_finish (s, TRUE, NULL, view_bytes (out), 0);
}

static int
k_arange (const TsCudaView *out, double start, double step, void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  FakeStream *s;
  TsView o;
  int err;

  if ((err = launch_prepare (stream, &s)) != 0)
    return err;
  MAP (out, &o, NULL);
  ts_cpu_arange (&o, start, step);
  return launch_finish (s, TRUE, NULL, view_bytes (out), 0);
}

static int
k_copy (const TsCudaView *out, const TsCudaView *in, void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  g_autoptr(GError) error = NULL;
  FakeStream *s;
  TsView o, i;
  gboolean ok;
  int err;

  if ((err = launch_prepare (stream, &s)) != 0)
    return err;
  MAP (out, &o, NULL);
  MAP (in, &i, NULL);
  ok = ts_cpu_copy (&o, &i, &error);
  return launch_finish (s, ok, error, view_bytes (out) + view_bytes (in), 0);
}

static gboolean
is_bool_op (int op)
{
  return op >= TS_CUDA_EQ && op <= TS_CUDA_LOGICAL_OR;
}

/* The module's op ids are an ABI of their own: the op table says which
 * CPU kernel code each one is (-1: none). */
static int
cpu_kernel_of (TsOpFamily family,
               int        op)
{
  const TsOpDesc *desc = ts_op_for_cuda (family, op);

  return desc != NULL ? desc->kernel : -1;
}

/* Reductions are the exception: TsReduceOp is written out by hand, as the
 * module's ids, prod included (no op of the table uses it). */
G_STATIC_ASSERT ((int) TS_CUDA_SUM == (int) TS_REDUCE_SUM);
G_STATIC_ASSERT ((int) TS_CUDA_MEAN == (int) TS_REDUCE_MEAN);
G_STATIC_ASSERT ((int) TS_CUDA_PROD == (int) TS_REDUCE_PROD);
G_STATIC_ASSERT ((int) TS_CUDA_AMAX == (int) TS_REDUCE_AMAX);
G_STATIC_ASSERT ((int) TS_CUDA_AMIN == (int) TS_REDUCE_AMIN);
/* ...and norm's, the last, has no device kernel (TS_OP_CUDA_HOST) */
G_STATIC_ASSERT ((int) TS_CUDA_N_REDUCE == (int) TS_REDUCE_NORM2 && TS_REDUCE_NORM2 + 1 == TS_N_REDUCE_OPS);

static int
k_binary (int op, const TsCudaView *out, const TsCudaView *a, const TsCudaView *b, void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  g_autoptr(GError) error = NULL;
  Scalar sa, sb;
  FakeStream *s;
  TsView o, va, vb;
  gboolean ok;
  int err, kernel = cpu_kernel_of (TS_OP_FAMILY_BINARY, op);

  if ((err = launch_prepare (stream, &s)) != 0)
    return err;
  /* One common dtype in; it or bool out (the caller casts first). */
  if (kernel < 0 || out == NULL || a == NULL || b == NULL ||
      a->dtype != b->dtype || out->dtype != (is_bool_op (op) ? TS_CUDA_BOOL : a->dtype))
    return TS_CUDA_ERROR_INVALID_VALUE;
  MAP (out, &o, NULL);
  MAP (a, &va, &sa);
  MAP (b, &vb, &sb);
  ok = ts_cpu_binary ((TsBinaryOp)kernel, &va, &vb, (TsDType)a->dtype, &o, &error);
  return launch_finish (s, ok, error, view_bytes (out) + view_bytes (a) + view_bytes (b), 0);
}

static int
k_unary (int op, const TsCudaView *out, const TsCudaView *in, void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  g_autoptr(GError) error = NULL;
  FakeStream *s;
  TsView o, i;
  gboolean ok;
  int err, kernel = cpu_kernel_of (TS_OP_FAMILY_UNARY, op);

  if ((err = launch_prepare (stream, &s)) != 0)
    return err;
  if (kernel < 0 || out == NULL || in == NULL ||
      out->dtype != (op == TS_CUDA_LOGICAL_NOT ? TS_CUDA_BOOL : in->dtype))
    return TS_CUDA_ERROR_INVALID_VALUE;
  MAP (out, &o, NULL);
  MAP (in, &i, NULL);
  ok = ts_cpu_unary ((TsUnaryOp)kernel, &i, &o, &error);
  return launch_finish (s, ok, error, view_bytes (out) + view_bytes (in), 0);
}

/* Whether @r has @in's shape with the dims of @mask (0: all) of size 1. */
static gboolean
keepdim_shape (const TsCudaView *in,
               const TsCudaView *r,
               guint64           mask)
{
  if (r == NULL || in->ndim < 0 || in->ndim > TS_CUDA_MAX_DIMS || r->ndim != in->ndim ||
      (mask >> in->ndim) != 0)
    return FALSE;
  for (int d = 0; d < in->ndim; d++)
    if (r->shape[d] != ((mask == 0 || (mask >> d) & 1) ? 1 : in->shape[d]))
      return FALSE;
  return TRUE;
}

static int
k_reduce (int op, const TsCudaView *out, const TsCudaView *in, uint64_t dim_mask, void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  g_autoptr(GError) error = NULL;
  FakeStream *s;
  TsDType result;
  TsView o, i;
  gboolean ok;
  int err;

  if ((err = launch_prepare (stream, &s)) != 0)
    return err;
  if (op < 0 || op >= TS_CUDA_N_REDUCE || in == NULL || !keepdim_shape (in, out, dim_mask))
    return TS_CUDA_ERROR_INVALID_VALUE;
  if (!ts_reduce_result_dtype ((TsReduceOp)op, (TsDType)in->dtype, &result, &error))
    return launch_finish (s, FALSE, error, 0, 0);
  if ((int)result != out->dtype)
    return TS_CUDA_ERROR_INVALID_VALUE;
  MAP (out, &o, NULL);
  MAP (in, &i, NULL);
  /* The CPU kernel takes any output of the kept elements' count, in order. */
  ok = ts_cpu_reduce ((TsReduceOp)op, &i, dim_mask, &o, &error);
  return launch_finish (s, ok, error, view_bytes (out) + view_bytes (in), 0);
}

static int
k_max_dim (const TsCudaView *values, const TsCudaView *indices, const TsCudaView *in, int dim,
           int is_min, void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  g_autoptr(GError) error = NULL;
  FakeStream *s;
  TsView v, ix, i;
  guint64 mask;
  gboolean ok;
  int err;

  if ((err = launch_prepare (stream, &s)) != 0)
    return err;
  if (in == NULL || dim < 0 || dim >= MAX (in->ndim, 1))
    return TS_CUDA_ERROR_INVALID_VALUE;
  mask = in->ndim > 0 ? G_GUINT64_CONSTANT (1) << dim : 0;
  if (!keepdim_shape (in, values, mask) || !keepdim_shape (in, indices, mask) ||
      values->dtype != in->dtype || indices->dtype != TS_CUDA_INT64)
    return TS_CUDA_ERROR_INVALID_VALUE;
  MAP (values, &v, NULL);
  MAP (indices, &ix, NULL);
  MAP (in, &i, NULL);
  ok = ts_cpu_max_dim (&i, (guint)dim, is_min != 0, &v, &ix, &error);
  return launch_finish (s, ok, error, view_bytes (values) + view_bytes (indices) + view_bytes (in), 0);
}

static int
index_kernel (gboolean select, const TsCudaView *out, const TsCudaView *in, int dim,
              const TsCudaView *index, void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  g_autoptr(GError) error = NULL;
  TsIndexFailure failure = { 0, 0, -1 };
  FakeStream *s;
  TsView o, i, ix;
  gboolean ok;
  int err;

  if ((err = launch_prepare (stream, &s)) != 0)
    return err;
  if (out == NULL || in == NULL || index == NULL || dim < 0 || dim >= in->ndim ||
      index->dtype != TS_CUDA_INT64 || out->dtype != in->dtype ||
      (select && (index->ndim > 1 || out->ndim != in->ndim)))
    return TS_CUDA_ERROR_INVALID_VALUE;   /* what the real module refuses */
  MAP (out, &o, NULL);
  MAP (in, &i, NULL);
  MAP (index, &ix, NULL);
  if (select)
    ok = ts_cpu_index_select (&i, (guint)dim, &ix, &o, &failure, &error);
  else
    ok = ts_cpu_gather (&i, (guint)dim, &ix, &o, &failure, &error);
  if (!ok && failure.dim_size >= 0 && g_error_matches (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_INDEX))
    {
      /* The lines the simulated kernels print (PyTorch's, in its grid),
       * so that a run on this module reads as one on the simulator. */
      if (select)
        {
          gint64 n = view_numel (index);

          ts_device_assert_index_select (failure.position, n, view_numel (out) / MAX (n, 1));
        }
      else
        ts_device_assert_gather (&ix, failure.dim_size);
      fault (TS_CUDA_ERROR_ASSERT);
      ok = TRUE;   /* the launch succeeded; the error is the device's */
    }
  return launch_finish (s, ok, error, view_bytes (out) + view_bytes (in) + view_bytes (index), 0);
}

static int
k_index_select (const TsCudaView *out, const TsCudaView *in, int dim, const TsCudaView *index,
                void *stream)
{
  return index_kernel (TRUE, out, in, dim, index, stream);
}

static int
k_gather (const TsCudaView *out, const TsCudaView *in, int dim, const TsCudaView *index,
          void *stream)
{
  return index_kernel (FALSE, out, in, dim, index, stream);
}

static int
k_random (int dist, const TsCudaView *out, double a, double b, uint64_t seed, uint64_t offset,
          void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  g_autoptr(GError) error = NULL;
  TsPhiloxLaunch plan;
  FakeStream *s;
  TsView o;
  gboolean ok;
  int err;

  if ((err = launch_prepare (stream, &s)) != 0)
    return err;
  if (dist != TS_CUDA_UNIFORM && dist != TS_CUDA_NORMAL)
    return TS_CUDA_ERROR_INVALID_VALUE;
  MAP (out, &o, NULL);
  /* The grid of the CUDA module's random kernel on this device. */
  ts_cpu_random_plan (&o, SM_COUNT, MAX_THREADS_PER_SM, &plan);
  if (dist == TS_CUDA_UNIFORM)
    ok = ts_cpu_uniform (&o, a, b, seed, offset, &plan, &error);
  else
    ok = ts_cpu_normal (&o, a, b, seed, offset, &plan, &error);
  return launch_finish (s, ok, error, view_bytes (out), 0);
}

/* matmul (@ndim 2) and bmm (@ndim 3) of float32/float64, as cuBLAS. */
static int
matmul_kernel (int ndim, const TsCudaView *out, const TsCudaView *a, const TsCudaView *b,
               void *stream, gboolean accumulate)
{
  g_autoptr(GMutexLocker) locker = enter ();
  g_autoptr(GError) error = NULL;
  FakeStream *s;
  TsView o, va, vb;
  guint64 flops;
  gboolean ok;
  int err;

  if ((err = launch_prepare (stream, &s)) != 0)
    return err;
  if (out == NULL || a == NULL || b == NULL || out->ndim != ndim || a->ndim != ndim ||
      b->ndim != ndim || a->dtype != out->dtype || b->dtype != out->dtype ||
      (out->dtype != TS_CUDA_FLOAT32 && out->dtype != TS_CUDA_FLOAT64 &&
       out->dtype != TS_CUDA_FLOAT16 && out->dtype != TS_CUDA_BFLOAT16))
    return TS_CUDA_ERROR_INVALID_VALUE;
  MAP (out, &o, NULL);
  MAP (a, &va, NULL);
  MAP (b, &vb, NULL);
  /* out += a @ b: addmm reads each element of out before writing it */
  if (accumulate)
    ok = ts_cpu_addmm (&o, &va, &vb, 1.0, 1.0, &o, &error);
  else
    ok = ndim == 2 ? ts_cpu_mm (&va, &vb, &o, &error) : ts_cpu_bmm (&va, &vb, &o, &error);
  /* 2 m n k per matrix: out's elements times 2 k. */
  flops = (guint64)view_numel (out) * 2 * (guint64)a->shape[ndim - 1];
  return launch_finish (s, ok, error, view_bytes (out) + view_bytes (a) + view_bytes (b), flops);
}

static int
k_matmul (const TsCudaView *out, const TsCudaView *a, const TsCudaView *b, void *stream)
{
  return matmul_kernel (2, out, a, b, stream, FALSE);
}

static int
k_matmul_acc (const TsCudaView *out, const TsCudaView *a, const TsCudaView *b, void *stream)
{
  return matmul_kernel (2, out, a, b, stream, TRUE);
}

static int
k_bmm (const TsCudaView *out, const TsCudaView *a, const TsCudaView *b, void *stream)
{
  return matmul_kernel (3, out, a, b, stream, FALSE);
}

/* The fake computes float32 products exactly either way; the flag is kept
 * for tests that ask what the caller set. */
static int fake_matmul_tf32;

static int
k_set_matmul_tf32 (int allow)
{
  fake_matmul_tf32 = allow != 0;
  return 0;
}

/* The fake device has no clock to spin on: the spin completes at once. */
static int
k_spin (int64_t cycles, void *stream)
{
  return cycles < 0 ? 1 /* cudaErrorInvalidValue */ : 0;
}

/* ---- ABI 4: add with alpha, threshold, softmax, nll_loss ---------------- */

static int
k_binary_alpha (int op, const TsCudaView *out, const TsCudaView *a, const TsCudaView *b, double alpha,
                void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  g_autoptr(GError) error = NULL;
  FakeStream *s;
  TsView o, va, vb;
  gboolean ok;
  int err, kernel = cpu_kernel_of (TS_OP_FAMILY_BINARY, op);

  if ((err = launch_prepare (stream, &s)) != 0)
    return err;
  if ((op != TS_CUDA_ADD && op != TS_CUDA_SUB) || out == NULL || a == NULL || b == NULL)
    return TS_CUDA_ERROR_INVALID_VALUE;
  MAP (out, &o, NULL);
  MAP (a, &va, NULL);
  MAP (b, &vb, NULL);
  /* the CPU kernel: float32/float64 round once, as the real module's fma;
   * float16/bfloat16 round b * alpha first where the module computes in
   * float (docs/cuda.md) */
  ok = ts_cpu_binary_alpha ((TsBinaryOp)kernel, &va, &vb, alpha, &o, &error);
  return launch_finish (s, ok, error, view_bytes (out) + view_bytes (a) + view_bytes (b), 0);
}

/* A number as the dtype holds it (Scalar::to<scalar_t>). */
static double
dtype_round (TsDType dtype,
             double  value)
{
  guint64 bits = 0;

  ts_dtype_store (dtype, &bits, value);
  return ts_dtype_load (dtype, &bits);
}

static int
k_threshold (const TsCudaView *out, const TsCudaView *self, const TsCudaView *other, double threshold,
             double value, void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  FakeStream *s;
  TsView o, x, y;
  TsDType dt;
  gint64 n;
  int err;

  if ((err = launch_prepare (stream, &s)) != 0)
    return err;
  if (out == NULL || self == NULL || other == NULL || self->dtype != out->dtype || other->dtype != out->dtype ||
      !ts_dtype_is_floating ((TsDType)out->dtype))
    return TS_CUDA_ERROR_INVALID_VALUE;
  MAP (out, &o, NULL);
  MAP (self, &x, NULL);
  MAP (other, &y, NULL);
  n = ts_view_numel (&o);
  if (ts_view_numel (&x) != n || ts_view_numel (&y) != n)
    return TS_CUDA_ERROR_INVALID_VALUE;
  /* the selected element is copied as it is: the CPU kernel's values */
  dt = o.dtype;
  threshold = dtype_round (dt, threshold);
  value = dtype_round (dt, value);
  for (gint64 i = 0; i < n; i++)
    {
      double v = ts_dtype_load (dt, ts_view_linear_ptr (&x, i));

      ts_dtype_store (dt, ts_view_linear_ptr (&o, i), v <= threshold ? value : ts_dtype_load (dt, ts_view_linear_ptr (&y, i)));
    }
  return launch_finish (s, TRUE, NULL, view_bytes (out) + view_bytes (self) + view_bytes (other), 0);
}

/* softmax, or (@grad not NULL) its backward from @grad and the forward's
 * output @in */
static int
softmax_kernel (const TsCudaView *out, const TsCudaView *in, const TsCudaView *grad, int dim, int log,
                void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  g_autoptr(GError) error = NULL;
  FakeStream *s;
  TsView o, i, g;
  gboolean ok;
  int err;

  if ((err = launch_prepare (stream, &s)) != 0)
    return err;
  if (out == NULL || in == NULL || in->ndim != out->ndim || (grad != NULL && grad->ndim != out->ndim) ||
      dim < 0 || dim >= MAX (out->ndim, 1))
    return TS_CUDA_ERROR_INVALID_VALUE;
  MAP (out, &o, NULL);
  MAP (in, &i, NULL);
  if (grad == NULL)
    ok = ts_cpu_softmax (&i, (guint)dim, log != 0, &o, &error);
  else
    {
      MAP (grad, &g, NULL);
      ok = ts_cpu_softmax_backward (&g, &i, (guint)dim, log != 0, &o, &error);
    }
  return launch_finish (s, ok, error, view_bytes (out) + view_bytes (in) + (grad != NULL ? view_bytes (grad) : 0), 0);
}

static int
k_softmax (const TsCudaView *out, const TsCudaView *in, int dim, int log, void *stream)
{
  return softmax_kernel (out, in, NULL, dim, log, stream);
}

static int
k_softmax_backward (const TsCudaView *out, const TsCudaView *grad, const TsCudaView *output, int dim,
                    int log, void *stream)
{
  return softmax_kernel (out, output, grad, dim, log, stream);
}

static TsNllLoss
nll_params (const TsCudaNllLoss *p)
{
  return (TsNllLoss) { .n = p->n, .c = p->c, .s = p->s, .reduction = (TsReduction)p->reduction,
                       .ignore_index = p->ignore_index };
}

/* nll_loss_forward (@out, @total_weight written; @in is self) or, with
 * @backward, nll_loss_backward (@out is grad_input, @in grad_output) */
static int
nll_kernel (gboolean             backward,
            const TsCudaNllLoss *p,
            const TsCudaView    *out,
            const TsCudaView    *in,
            const TsCudaView    *target,
            const TsCudaView    *weight,
            const TsCudaView    *total_weight,
            void                *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  g_autoptr(GError) error = NULL;
  TsIndexFailure failure = { -1, 0 };
  TsNllLoss np;
  FakeStream *s;
  TsView o, i, t, w, tw;
  gboolean ok;
  int err;

  if ((err = launch_prepare (stream, &s)) != 0)
    return err;
  if (p == NULL || p->reduction < 0 || p->reduction > 2 || out == NULL || in == NULL || target == NULL ||
      total_weight == NULL || target->dtype != TS_CUDA_INT64 || view_numel (target) != p->n * p->s ||
      view_numel (backward ? out : in) != p->n * p->c * p->s)
    return TS_CUDA_ERROR_INVALID_VALUE;
  MAP (out, &o, NULL);
  MAP (in, &i, NULL);
  MAP (target, &t, NULL);
  MAP (total_weight, &tw, NULL);
  if (weight != NULL)
    MAP (weight, &w, NULL);
  np = nll_params (p);
  if (backward)
    ok = ts_cpu_nll_loss_backward (&np, &i, &t, weight != NULL ? &w : NULL, &tw, &o, &error);
  else
    ok = ts_cpu_nll_loss (&np, &i, &t, weight != NULL ? &w : NULL, &o, &tw, &failure, &error);
  if (!ok && failure.position >= 0)
    {
      /* PyTorch's assert line, as the simulator prints it */
      ts_device_assert_nll_loss (failure.position);
      fault (TS_CUDA_ERROR_ASSERT);
      ok = TRUE;   /* the launch succeeded; the error is the device's */
    }
  return launch_finish (s, ok, error, view_bytes (out) + view_bytes (in) + view_bytes (target) +
                        (weight != NULL ? view_bytes (weight) : 0), 0);
}

static int
k_nll_loss (const TsCudaNllLoss *p, const TsCudaView *out, const TsCudaView *total_weight,
            const TsCudaView *self, const TsCudaView *target, const TsCudaView *weight, void *stream)
{
  return nll_kernel (FALSE, p, out, self, target, weight, total_weight, stream);
}

static int
k_nll_loss_backward (const TsCudaNllLoss *p, const TsCudaView *grad_input, const TsCudaView *grad_output,
                     const TsCudaView *target, const TsCudaView *weight, const TsCudaView *total_weight,
                     void *stream)
{
  return nll_kernel (TRUE, p, grad_input, grad_output, target, weight, total_weight, stream);
}

/* im2col and col2im as the module's (a gather in kernel order), over
 * contiguous views, through ts_dtype_load/store: a reference, not fast. */
static gboolean
conv_geometry (const TsCudaConv *p,
               const TsCudaView *in,
               const TsCudaView *col,
               gint64           *k,
               gint64           *l)
{
  if (p == NULL || p->n_spatial < 1 || p->n_spatial > TS_CUDA_CONV_MAX_SPATIAL || in == NULL || col == NULL ||
      in->ndim != 2 + p->n_spatial || in->dtype != col->dtype || !ts_dtype_is_floating ((TsDType)in->dtype))
    return FALSE;
  *k = *l = 1;
  for (int d = 0; d < p->n_spatial; d++)
    {
      if (p->kernel[d] < 1 || p->stride[d] < 1 || p->dilation[d] < 1 || p->out[d] < 0 || p->pad[d] < 0)
        return FALSE;
      *k *= p->kernel[d];
      *l *= p->out[d];
    }
  return view_numel (col) == in->shape[0] * in->shape[1] * *k * *l;
}

/* The input's spatial offset (row-major) that kernel offset @kk reads at
 * output position @l, or -1 in the padding. */
static gint64
conv_source (const TsCudaConv *p,
             const gint64     *size,
             gint64            kk,
             gint64            l)
{
  gint64 pos[TS_CUDA_CONV_MAX_SPATIAL], spatial = 0;

  for (int d = p->n_spatial - 1; d >= 0; d--)
    {
      gint64 x = (l % p->out[d]) * p->stride[d] - p->pad[d] + (kk % p->kernel[d]) * p->dilation[d];

      kk /= p->kernel[d];
      l /= p->out[d];
      if (x < 0 || x >= size[d])
        return -1;
      pos[d] = x;
    }
  for (int d = 0; d < p->n_spatial; d++)
    spatial = spatial * size[d] + pos[d];
  return spatial;
}

/* conv_source's inverse: the output position (row-major) at which kernel
 * offset @kk reads the input's spatial offset @x, or -1 if none does. */
static gint64
conv_target (const TsCudaConv *p,
             const gint64     *size,
             gint64            kk,
             gint64            x)
{
  gint64 l = 0, scale = 1;

  for (int d = p->n_spatial - 1; d >= 0; d--)
    {
      gint64 t = x % size[d] + p->pad[d] - (kk % p->kernel[d]) * p->dilation[d];

      x /= size[d];
      kk /= p->kernel[d];
      if (t < 0 || t % p->stride[d] != 0 || t / p->stride[d] >= p->out[d])
        return -1;
      l += (t / p->stride[d]) * scale;
      scale *= p->out[d];
    }
  return l;
}

static int
conv_copy (gboolean          to_col,
           const TsCudaConv *p,
           const TsCudaView *in,
           const TsCudaView *col,
           void             *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  FakeStream *s;
  TsView vi, vc;
  TsDType dt;
  gint64 k, l, plane = 1, nc;
  int err;

  if ((err = launch_prepare (stream, &s)) != 0)
    return err;
  if (!conv_geometry (p, in, col, &k, &l))
    return TS_CUDA_ERROR_INVALID_VALUE;
  MAP (in, &vi, NULL);
  MAP (col, &vc, NULL);
  if (!ts_view_is_contiguous (&vi) || !ts_view_is_contiguous (&vc))
    return TS_CUDA_ERROR_INVALID_VALUE;
  dt = vi.dtype;
  for (int d = 0; d < p->n_spatial; d++)
    plane *= in->shape[2 + d];
  nc = in->shape[0] * in->shape[1];
  if (to_col)
    for (gint64 e = 0; e < nc * k * l; e++)
      {
        gint64 src = conv_source (p, in->shape + 2, (e / l) % k, e % l);

        ts_dtype_store (dt, ts_view_linear_ptr (&vc, e),
                        src < 0 ? 0.0 : ts_dtype_load (dt, ts_view_linear_ptr (&vi, (e / (l * k)) * plane + src)));
      }
  else
    for (gint64 e = 0; e < nc * plane; e++)
      {
        /* the float sum of the module (double for float64) */
        double sum = 0;

        for (gint64 kk = 0; kk < k; kk++)
          {
            gint64 j = conv_target (p, in->shape + 2, kk, e % plane);
            double v;

            if (j < 0)
              continue;
            v = ts_dtype_load (dt, ts_view_linear_ptr (&vc, ((e / plane) * k + kk) * l + j));
            sum = dt == TS_DTYPE_FLOAT64 ? sum + v : (double) ((float) sum + (float) v);
          }
        ts_dtype_store (dt, ts_view_linear_ptr (&vi, e), sum);
      }
  return launch_finish (s, TRUE, NULL, view_bytes (in) + view_bytes (col), 0);
}

static int
k_im2col (const TsCudaConv *p, const TsCudaView *col, const TsCudaView *in, void *stream)
{
  return conv_copy (TRUE, p, in, col, stream);
}

static int
k_col2im (const TsCudaConv *p, const TsCudaView *in_grad, const TsCudaView *col, void *stream)
{
  return conv_copy (FALSE, p, in_grad, col, stream);
}

/* ---- The exported table ------------------------------------------------ */

static const TsCudaKernels kernels = {
  .abi_version = TS_CUDA_ABI_VERSION,
  .struct_size = sizeof (TsCudaKernels),
  .device_count = k_device_count,
  .device_info = k_device_info,
  .set_device = k_set_device,
  .malloc_device = k_malloc_device,
  .free_device = k_free_device,
  .malloc_host = k_malloc_host,
  .free_host = k_free_host,
  .stream_create = k_stream_create,
  .stream_destroy = k_stream_destroy,
  .stream_sync = k_stream_sync,
  .device_sync = k_device_sync,
  .memcpy_async = k_memcpy_async,
  .memset_async = k_memset_async,
  .error_string = k_error_string,
  .fill = k_fill,
  .copy = k_copy,
  .binary = k_binary,
  .unary = k_unary,
  .reduce = k_reduce,
  .index_select = k_index_select,
  .gather = k_gather,
  .random = k_random,
  .matmul = k_matmul,
  .get_device = k_get_device,
  .mem_get_info = k_mem_get_info,
  .stream_priority_range = k_stream_priority_range,
  .stream_query = k_stream_query,
  .stream_wait_event = k_stream_wait_event,
  .event_create = k_event_create,
  .event_destroy = k_event_destroy,
  .event_record = k_event_record,
  .event_query = k_event_query,
  .event_sync = k_event_sync,
  .event_elapsed = k_event_elapsed,
  .memcpy_peer_async = k_memcpy_peer_async,
  .memcpy_sync = k_memcpy_sync,
  .peek_error = k_peek_error,
  .arange = k_arange,
  .max_dim = k_max_dim,
  .fill_int = k_fill_int,
  .bmm = k_bmm,
  .spin = k_spin,
  .set_matmul_tf32 = k_set_matmul_tf32,
  .matmul_acc = k_matmul_acc,
  .binary_alpha = k_binary_alpha,
  .threshold = k_threshold,
  .softmax = k_softmax,
  .softmax_backward = k_softmax_backward,
  .nll_loss = k_nll_loss,
  .nll_loss_backward = k_nll_loss_backward,
  .im2col = k_im2col,
  .col2im = k_col2im,
};

EXPORT const TsCudaKernels *
ts_cuda_kernels_get (void)
{
  return &kernels;
}

EXPORT void
ts_fake_cuda_get_counters (TsFakeCudaCounters *out)
{
  g_autoptr(GMutexLocker) locker = enter ();

  *out = counters;
}

EXPORT uint64_t
ts_fake_cuda_get_stream_time (void *stream)
{
  g_autoptr(GMutexLocker) locker = enter ();
  FakeStream *s = n_devices > 0 ? resolve_stream (stream) : NULL;

  return s != NULL ? s->clock : 0;
}
