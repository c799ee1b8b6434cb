/* ts-session.c: the process-wide state of a workload run
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * This file is the only place that knows how the simulated machine is put
 * together: the runtime (devices, streams, events, virtual time, the
 * recorder) is created at the first CUDA call, as CUDA initializes lazily,
 * with the environment as it is at that moment. Device memory is a compact
 * caching allocator with PyTorch's rounding and segment sizes until the
 * allocator part is merged; only this file changes then.
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ts-callsite.h"
#include "ts-session.h"

G_DEFINE_QUARK (ts-session-error-quark, ts_session_error)

#define DEFAULT_N_GPUS 4
#define MAX_DEVICES 64
#define KiB ((gsize) 1 << 10)
#define MiB ((gsize) 1 << 20)

typedef struct
{
  int        device;
  guint64    addr;
  gsize      size;        /* rounded block size */
  gsize      requested;
  gsize      segment_size;
  gboolean   small;
  TsStreamId stream;
  guint8    *host;
  gboolean   in_use;
} Block;

typedef struct
{
  /* the counters memory_stats reports, [0] all, [1] small, [2] large */
  gint64 allocated_bytes[3], allocated_bytes_peak[3];
  gint64 allocated_bytes_alloc[3], allocated_bytes_freed[3];
  gint64 reserved_bytes[3], reserved_bytes_peak[3];
  gint64 reserved_bytes_alloc[3], reserved_bytes_freed[3];
  gint64 active_bytes[3], active_bytes_peak[3];
  gint64 requested_bytes[3], requested_bytes_peak[3];
  gint64 requested_bytes_alloc[3], requested_bytes_freed[3];
  gint64 allocation[3], allocation_peak[3], allocation_alloc[3], allocation_freed[3];
  gint64 segment[3], segment_peak[3], segment_alloc[3], segment_freed[3];
  gint64 active[3], active_peak[3], active_alloc[3], active_freed[3];
  gint64 num_alloc_retries, num_ooms, num_device_alloc, num_device_free;
} MemStats;

typedef struct
{
  GPtrArray *free_blocks;      /* cached Blocks, not in use */
  guint64    next_addr;
  guint64    used;             /* bytes of segments held */
  double     fraction;
  MemStats   stats;
} DeviceMem;

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
  DeviceMem            mem[MAX_DEVICES];
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
  g_free (session.gpu_model);
  session.gpu_model = g_strdup (options->gpu_model);
  session.options.gpu_model = session.gpu_model;
}

static int
physical_gpu_count (void)
{
  return session.options.n_gpus > 0 ? session.options.n_gpus : DEFAULT_N_GPUS;
}

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
  session_ensure ();
  g_mutex_lock (&session.lock);
  if (session.recorder == NULL)
    session.recorder = ts_recorder_new ();
  g_mutex_unlock (&session.lock);
  return session.recorder;
}

TsRuntime *
ts_session_get_runtime (void)
{
  return session.runtime;
}

gboolean
ts_session_cuda_init (GError **error)
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
      if (session.n_devices == 0)
        {
          g_object_unref (runtime);
          g_mutex_unlock (&session.lock);
          g_set_error_literal (error, TS_SESSION_ERROR, TS_SESSION_ERROR_NO_DEVICE,
                               "No CUDA GPUs are available");
          return FALSE;
        }
      for (int d = 0; d < session.n_devices; d++)
        {
          session.mem[d].free_blocks = g_ptr_array_new ();
          /* Device address spaces far apart, as cudaMalloc's are. */
          session.mem[d].next_addr = G_GUINT64_CONSTANT (0x7f0000000000) +
                                     ((guint64) d << 36);
          session.mem[d].fraction = 1.0;
        }
      session.runtime = runtime;
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
                   "For debugging consider passing CUDA_LAUNCH_BLOCKING=1");
      return FALSE;
    }
  return TRUE;
}

void
ts_session_shutdown (void)
{
  /* Let the devices finish what was queued, so the trace shows it. */
  if (session.runtime != NULL)
    for (int d = 0; d < session.n_devices; d++)
      ts_runtime_device_synchronize (session.runtime, d, NULL);
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
    work->run (work->user_data);
  return TS_DEVICE_ERROR_NONE;
}

static void
work_destroy (gpointer data)
{
  TsSessionWork *work = data;

  if (work->destroy != NULL)
    work->destroy (work->user_data);
  g_free (work);
}

gboolean
ts_session_launch (const TsSessionWork  *work,
                   GError              **error)
{
  TsSessionWork *copy = g_memdup2 (work, sizeof *work);
  TsWork w = { work_start, NULL, work_destroy, copy };

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
      return ts_runtime_memcpy (session.runtime, &desc, error) != 0;
    }
  else
    {
      TsKernelDesc desc = { 0 };
      gint64 threads = MAX ((gint64) work->bytes / 4, 1);

      desc.name = work->name;
      desc.block[0] = 256;
      desc.grid[0] = (guint32) MIN ((threads + 255) / 256, G_MAXUINT32);
      desc.flops = work->flops;
      desc.bytes = work->bytes;
      desc.work = w;
      return ts_runtime_launch_kernel (session.runtime, work->stream, &desc, error) != 0;
    }
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

static void
stat_add (gint64 *cur,
          gint64 *peak,
          gint64 *alloc,
          int     pool,
          gint64  amount)
{
  int idx[2] = { 0, pool };

  for (int i = 0; i < 2; i++)
    {
      cur[idx[i]] += amount;
      peak[idx[i]] = MAX (peak[idx[i]], cur[idx[i]]);
      alloc[idx[i]] += amount;
    }
}

static void
stat_sub (gint64 *cur,
          gint64 *freed,
          int     pool,
          gint64  amount)
{
  int idx[2] = { 0, pool };

  for (int i = 0; i < 2; i++)
    {
      cur[idx[i]] -= amount;
      freed[idx[i]] += amount;
    }
}

static gsize
round_size (gsize size)
{
  if (size < 512)
    return 512;
  return (size + 511) & ~(gsize) 511;
}

static gsize
segment_size_for (gsize size)
{
  if (size <= MiB)
    return 2 * MiB;
  if (size < 10 * MiB)
    return 20 * MiB;
  return (size + 2 * MiB - 1) & ~(2 * MiB - 1);
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
  DeviceMem *mem;
  MemStats *st;
  Block *block = NULL;
  gsize rounded = round_size (size);
  int pool;

  if (!ts_session_check_device (device, error))
    return FALSE;
  mem = &session.mem[device];
  st = &mem->stats;

  for (guint i = 0; i < mem->free_blocks->len; i++)
    {
      Block *b = g_ptr_array_index (mem->free_blocks, i);
      if (b->stream == stream && b->size == rounded)
        {
          block = b;
          g_ptr_array_remove_index_fast (mem->free_blocks, i);
          break;
        }
    }

  if (block == NULL)
    {
      gsize seg = segment_size_for (rounded);
      guint64 total = ts_session_get_profile (device)->total_memory;

      if (mem->used + seg > (guint64) (total * mem->fraction))
        {
          ts_session_empty_cache ();
          if (mem->used + seg > (guint64) (total * mem->fraction))
            {
              st->num_ooms++;
              g_set_error (error, TS_SESSION_ERROR, TS_SESSION_ERROR_OUT_OF_MEMORY,
                           "CUDA out of memory. Tried to allocate %s. GPU %d has a total "
                           "capacity of %s",
                           g_format_size_full (rounded, G_FORMAT_SIZE_IEC_UNITS), device,
                           g_format_size_full (total, G_FORMAT_SIZE_IEC_UNITS));
              return FALSE;
            }
        }

      block = g_new0 (Block, 1);
      block->device = device;
      block->size = rounded;
      block->segment_size = seg;
      block->small = rounded <= MiB;
      block->stream = stream;
      block->addr = mem->next_addr;
      mem->next_addr += seg;
      mem->used += seg;
      /* Fresh device memory holds garbage; a fixed pattern (NaN for floats)
       * makes reads of uninitialized memory visible. */
      block->host = g_malloc (seg);
      memset (block->host, 0xff, rounded);
      st->num_device_alloc++;
      pool = block->small ? 1 : 2;
      stat_add (st->reserved_bytes, st->reserved_bytes_peak, st->reserved_bytes_alloc, pool, seg);
      stat_add (st->segment, st->segment_peak, st->segment_alloc, pool, 1);
    }

  pool = block->small ? 1 : 2;
  block->in_use = TRUE;
  block->requested = size;
  stat_add (st->allocated_bytes, st->allocated_bytes_peak, st->allocated_bytes_alloc, pool, rounded);
  st->active_bytes[0] += rounded; st->active_bytes[pool] += rounded;
  st->active_bytes_peak[0] = MAX (st->active_bytes_peak[0], st->active_bytes[0]);
  st->active_bytes_peak[pool] = MAX (st->active_bytes_peak[pool], st->active_bytes[pool]);
  stat_add (st->requested_bytes, st->requested_bytes_peak, st->requested_bytes_alloc, pool, size);
  stat_add (st->allocation, st->allocation_peak, st->allocation_alloc, pool, 1);
  stat_add (st->active, st->active_peak, st->active_alloc, pool, 1);

  *addr = block->addr;
  *host = block->host;
  *block_out = block;
  return TRUE;
}

void
ts_session_free (gpointer block_ptr)
{
  Block *block = block_ptr;
  DeviceMem *mem;
  MemStats *st;
  int pool;

  if (block == NULL)
    return;
  mem = &session.mem[block->device];
  st = &mem->stats;
  pool = block->small ? 1 : 2;
  block->in_use = FALSE;
  stat_sub (st->allocated_bytes, st->allocated_bytes_freed, pool, block->size);
  st->active_bytes[0] -= block->size; st->active_bytes[pool] -= block->size;
  stat_sub (st->requested_bytes, st->requested_bytes_freed, pool, block->requested);
  stat_sub (st->allocation, st->allocation_freed, pool, 1);
  stat_sub (st->active, st->active_freed, pool, 1);
  g_ptr_array_add (mem->free_blocks, block);
}

void
ts_session_record_stream (gpointer   block,
                          TsStreamId stream)
{
  /* Recorded for the allocator; the compact model frees synchronously. */
}

gboolean
ts_session_host_malloc (gsize      size,
                        guint64   *addr,
                        guint8   **host,
                        gpointer  *block,
                        GError   **error)
{
  guint8 *p = g_malloc0 (MAX (size, 1));

  *addr = GPOINTER_TO_SIZE (p);
  *host = p;
  *block = p;
  return TRUE;
}

void
ts_session_host_free (gpointer block)
{
  g_free (block);
}

void
ts_session_empty_cache (void)
{
  session_ensure ();
  for (int d = 0; d < session.n_devices; d++)
    {
      DeviceMem *mem = &session.mem[d];
      MemStats *st = &mem->stats;

      for (guint i = 0; i < mem->free_blocks->len; i++)
        {
          Block *b = g_ptr_array_index (mem->free_blocks, i);
          int pool = b->small ? 1 : 2;

          stat_sub (st->reserved_bytes, st->reserved_bytes_freed, pool, b->segment_size);
          stat_sub (st->segment, st->segment_freed, pool, 1);
          st->num_device_free++;
          mem->used -= b->segment_size;
          g_free (b->host);
          g_free (b);
        }
      g_ptr_array_set_size (mem->free_blocks, 0);
    }
}

static void
put_stat (GHashTable  *table,
          const char  *name,
          const gint64 *cur,
          const gint64 *peak,
          const gint64 *alloc,
          const gint64 *freed)
{
  static const char *pools[3] = { "all", "small_pool", "large_pool" };

  for (int i = 0; i < 3; i++)
    {
      g_hash_table_insert (table, g_strdup_printf ("%s.%s.current", name, pools[i]),
                           g_memdup2 (&cur[i], sizeof (gint64)));
      g_hash_table_insert (table, g_strdup_printf ("%s.%s.peak", name, pools[i]),
                           g_memdup2 (&peak[i], sizeof (gint64)));
      g_hash_table_insert (table, g_strdup_printf ("%s.%s.allocated", name, pools[i]),
                           g_memdup2 (&alloc[i], sizeof (gint64)));
      g_hash_table_insert (table, g_strdup_printf ("%s.%s.freed", name, pools[i]),
                           g_memdup2 (&freed[i], sizeof (gint64)));
    }
}

GHashTable *
ts_session_memory_stats (int device)
{
  GHashTable *table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  MemStats zero = { 0 };
  const MemStats *st = &zero;
  gint64 zeros[3] = { 0 };

  session_ensure ();
  if (session.initialized && device >= 0 && device < session.n_devices)
    st = &session.mem[device].stats;

  put_stat (table, "allocation", st->allocation, st->allocation_peak, st->allocation_alloc, st->allocation_freed);
  put_stat (table, "segment", st->segment, st->segment_peak, st->segment_alloc, st->segment_freed);
  put_stat (table, "active", st->active, st->active_peak, st->active_alloc, st->active_freed);
  put_stat (table, "inactive_split", zeros, zeros, zeros, zeros);
  put_stat (table, "allocated_bytes", st->allocated_bytes, st->allocated_bytes_peak,
            st->allocated_bytes_alloc, st->allocated_bytes_freed);
  put_stat (table, "reserved_bytes", st->reserved_bytes, st->reserved_bytes_peak,
            st->reserved_bytes_alloc, st->reserved_bytes_freed);
  put_stat (table, "active_bytes", st->active_bytes, st->active_bytes_peak,
            st->allocated_bytes_alloc, st->allocated_bytes_freed);
  put_stat (table, "inactive_split_bytes", zeros, zeros, zeros, zeros);
  put_stat (table, "requested_bytes", st->requested_bytes, st->requested_bytes_peak,
            st->requested_bytes_alloc, st->requested_bytes_freed);
  g_hash_table_insert (table, g_strdup ("num_alloc_retries"), g_memdup2 (&st->num_alloc_retries, 8));
  g_hash_table_insert (table, g_strdup ("num_ooms"), g_memdup2 (&st->num_ooms, 8));
  g_hash_table_insert (table, g_strdup ("num_device_alloc"), g_memdup2 (&st->num_device_alloc, 8));
  g_hash_table_insert (table, g_strdup ("num_device_free"), g_memdup2 (&st->num_device_free, 8));
  g_hash_table_insert (table, g_strdup ("num_sync_all_streams"), g_memdup2 (&zeros[0], 8));
  g_hash_table_insert (table, g_strdup ("max_split_size"), g_memdup2 (&(gint64) { -1 }, 8));
  g_hash_table_insert (table, g_strdup ("oversize_allocations.current"), g_memdup2 (&zeros[0], 8));
  g_hash_table_insert (table, g_strdup ("oversize_allocations.peak"), g_memdup2 (&zeros[0], 8));
  g_hash_table_insert (table, g_strdup ("oversize_allocations.allocated"), g_memdup2 (&zeros[0], 8));
  g_hash_table_insert (table, g_strdup ("oversize_allocations.freed"), g_memdup2 (&zeros[0], 8));
  g_hash_table_insert (table, g_strdup ("oversize_segments.current"), g_memdup2 (&zeros[0], 8));
  g_hash_table_insert (table, g_strdup ("oversize_segments.peak"), g_memdup2 (&zeros[0], 8));
  g_hash_table_insert (table, g_strdup ("oversize_segments.allocated"), g_memdup2 (&zeros[0], 8));
  g_hash_table_insert (table, g_strdup ("oversize_segments.freed"), g_memdup2 (&zeros[0], 8));
  return table;
}

static void
reset_peaks (gint64 *cur,
             gint64 *peak)
{
  for (int i = 0; i < 3; i++)
    peak[i] = cur[i];
}

void
ts_session_reset_peak_stats (int device)
{
  MemStats *st;

  if (!session.initialized || device < 0 || device >= session.n_devices)
    return;
  st = &session.mem[device].stats;
  reset_peaks (st->allocated_bytes, st->allocated_bytes_peak);
  reset_peaks (st->reserved_bytes, st->reserved_bytes_peak);
  reset_peaks (st->active_bytes, st->active_bytes_peak);
  reset_peaks (st->requested_bytes, st->requested_bytes_peak);
  reset_peaks (st->allocation, st->allocation_peak);
  reset_peaks (st->segment, st->segment_peak);
  reset_peaks (st->active, st->active_peak);
}

void
ts_session_reset_accumulated_stats (int device)
{
  MemStats *st;

  if (!session.initialized || device < 0 || device >= session.n_devices)
    return;
  st = &session.mem[device].stats;
  memset (st->allocated_bytes_alloc, 0, sizeof st->allocated_bytes_alloc);
  memset (st->allocated_bytes_freed, 0, sizeof st->allocated_bytes_freed);
  memset (st->reserved_bytes_alloc, 0, sizeof st->reserved_bytes_alloc);
  memset (st->reserved_bytes_freed, 0, sizeof st->reserved_bytes_freed);
  memset (st->requested_bytes_alloc, 0, sizeof st->requested_bytes_alloc);
  memset (st->requested_bytes_freed, 0, sizeof st->requested_bytes_freed);
  memset (st->allocation_alloc, 0, sizeof st->allocation_alloc);
  memset (st->allocation_freed, 0, sizeof st->allocation_freed);
  memset (st->segment_alloc, 0, sizeof st->segment_alloc);
  memset (st->segment_freed, 0, sizeof st->segment_freed);
  memset (st->active_alloc, 0, sizeof st->active_alloc);
  memset (st->active_freed, 0, sizeof st->active_freed);
  st->num_alloc_retries = st->num_ooms = 0;
}

/* PyTorch's _format_size: B, KiB, MiB, GiB with the integer part only. */
static char *
format_size (gint64 n)
{
  static const char *units[] = { "B  ", "KiB", "MiB", "GiB", "TiB", "PiB" };
  int u = 0;

  while (u < 5 && (n >= 2048 || n <= -2048) && u < 5)
    {
      n /= 1024;
      u++;
    }
  return g_strdup_printf ("%6" G_GINT64_FORMAT " %s", n, units[u]);
}

static char *
format_count (gint64 n)
{
  static const char *units[] = { " ", "K", "M" };
  int u = 0;

  while (u < 2 && (n >= 2000 || n <= -2000))
    {
      n /= 1000;
      u++;
    }
  return g_strdup_printf ("%7" G_GINT64_FORMAT " %s", n, units[u]);
}

static void
summary_row (GString     *out,
             const char  *label,
             const gint64 *cur,
             const gint64 *peak,
             const gint64 *alloc,
             const gint64 *freed,
             gboolean     bytes,
             gboolean     abbreviated)
{
  static const char *sub[3] = { "", "      from large pool", "      from small pool" };
  int order[3] = { 0, 2, 1 };

  for (int k = 0; k < (abbreviated ? 1 : 3); k++)
    {
      int i = order[k];
      g_autofree char *a = bytes ? format_size (cur[i]) : format_count (cur[i]);
      g_autofree char *b = bytes ? format_size (peak[i]) : format_count (peak[i]);
      g_autofree char *c = bytes ? format_size (alloc[i]) : format_count (alloc[i]);
      g_autofree char *d = bytes ? format_size (freed[i]) : format_count (freed[i]);

      g_string_append_printf (out, "|%-*s| %s | %s | %s | %s |\n",
                              33, k == 0 ? label : sub[k], a, b, c, d);
    }
}

char *
ts_session_memory_summary (int      device,
                           gboolean abbreviated)
{
  GString *out = g_string_new (NULL);
  MemStats zero = { 0 };
  const MemStats *st = &zero;
  gint64 zeros[3] = { 0 };
  const char *sep = "|===========================================================================|\n";
  const char *line = "|---------------------------------------------------------------------------|\n";

  session_ensure ();
  if (session.initialized && device >= 0 && device < session.n_devices)
    st = &session.mem[device].stats;

  g_string_append (out, sep);
  g_string_append_printf (out, "|%s|\n", "                  PyTorch CUDA memory summary, device ID 0                 ");
  g_string_append (out, line);
  g_string_append (out, "|            CUDA OOMs: 0            |        cudaMalloc retries: 0         |\n");
  g_string_append (out, sep);
  g_string_append (out, "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\n");
  g_string_append (out, line);
  summary_row (out, " Allocated memory      ", st->allocated_bytes, st->allocated_bytes_peak,
               st->allocated_bytes_alloc, st->allocated_bytes_freed, TRUE, abbreviated);
  g_string_append (out, line);
  summary_row (out, " Active memory         ", st->active_bytes, st->active_bytes_peak,
               st->allocated_bytes_alloc, st->allocated_bytes_freed, TRUE, abbreviated);
  g_string_append (out, line);
  summary_row (out, " Requested memory      ", st->requested_bytes, st->requested_bytes_peak,
               st->requested_bytes_alloc, st->requested_bytes_freed, TRUE, abbreviated);
  g_string_append (out, line);
  summary_row (out, " GPU reserved memory   ", st->reserved_bytes, st->reserved_bytes_peak,
               st->reserved_bytes_alloc, st->reserved_bytes_freed, TRUE, abbreviated);
  g_string_append (out, line);
  summary_row (out, " Non-releasable memory ", zeros, zeros, zeros, zeros, TRUE, abbreviated);
  g_string_append (out, line);
  summary_row (out, " Allocations           ", st->allocation, st->allocation_peak,
               st->allocation_alloc, st->allocation_freed, FALSE, abbreviated);
  g_string_append (out, line);
  summary_row (out, " Active allocs         ", st->active, st->active_peak,
               st->active_alloc, st->active_freed, FALSE, abbreviated);
  g_string_append (out, line);
  summary_row (out, " GPU reserved segments ", st->segment, st->segment_peak,
               st->segment_alloc, st->segment_freed, FALSE, abbreviated);
  g_string_append (out, line);
  summary_row (out, " Non-releasable allocs ", zeros, zeros, zeros, zeros, FALSE, abbreviated);
  g_string_append (out, line);
  summary_row (out, " Oversize allocations  ", zeros, zeros, zeros, zeros, FALSE, TRUE);
  g_string_append (out, line);
  summary_row (out, " Oversize GPU segments ", zeros, zeros, zeros, zeros, FALSE, TRUE);
  g_string_append (out, sep);
  return g_string_free (out, FALSE);
}

gboolean
ts_session_set_memory_fraction (int      device,
                                double   fraction,
                                GError **error)
{
  if (fraction < 0 || fraction > 1)
    {
      g_set_error (error, TS_SESSION_ERROR, TS_SESSION_ERROR_INVALID_VALUE,
                   "Invalid fraction value: %g. Allowed range: 0~1", fraction);
      return FALSE;
    }
  if (!ts_session_check_device (device, error))
    return FALSE;
  session.mem[device].fraction = fraction;
  return TRUE;
}

void
ts_session_mem_get_info (int      device,
                         guint64 *free_bytes,
                         guint64 *total_bytes)
{
  const TsGpuProfile *p = ts_session_get_profile (device);

  *total_bytes = p->total_memory;
  *free_bytes = p->total_memory - (session.initialized ? session.mem[device].used : 0);
}

