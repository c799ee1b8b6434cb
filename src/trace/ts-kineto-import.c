/* ts-kineto-import.c: torch.profiler (Kineto) Chrome traces as records
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Streams "traceEvents" with the hand-written tokenizer (ts-json-reader.c)
 * and parses each event into a fixed struct, reading only the args it
 * maps and skipping the rest without allocating, so memory is the records
 * kept. Mapping:
 *
 *   kernel                       -> TS_RECORD_KERNEL on (device, stream)
 *   gpu_memcpy / gpu_memset      -> TS_RECORD_MEMCPY / TS_RECORD_MEMSET
 *   gpu_user_annotation          -> NVTX ranges on a per-stream thread "cuda:D stream S"
 *   cuda_sync                    -> TS_RECORD_SYNC on that thread
 *   cpu_op, cuda_runtime, cuda_driver, python_function
 *                                -> TS_RECORD_API_CALL on the host thread (pid, tid),
 *                                   with a call site where with_stack gave
 *                                   Python frames: the user's function
 *                                   that called into torch
 *   user_annotation              -> NVTX ranges on the host thread (ProfilerStep#N included)
 *   [memory] instants (CUDA)     -> allocated / reserved counters of the device,
 *                                   and allocations in time order (Kineto
 *                                   writes them grouped by thread, not sorted)
 *   ac2g flows                   -> counted: launches and kernels are linked by
 *                                   args.correlation, so an arrow exists only
 *                                   where both ends do (unmatched ends dropped)
 *   deviceProperties             -> TS_RECORD_DEVICE
 *   baseTimeNanoseconds          -> the clock: absolute ns = base + ts * 1000;
 *                                   without it ts is absolute µs (older files)
 *
 * Device, stream and thread ids are the file's; with several ranks each
 * rank gets its own devices, threads ("rank R: ...") and correlation ids.
 */

#include "config.h"

#include <string.h>

#include "ts-import-private.h"
#include "ts-json-reader.h"
#include "ts-rank-clock.h"

enum
{
  CAT_OTHER = 0,
  CAT_KERNEL,
  CAT_MEMCPY,
  CAT_MEMSET,
  CAT_GPU_ANNOTATION,
  CAT_SYNC,
  CAT_CPU_OP,
  CAT_USER_ANNOTATION,
  CAT_RUNTIME,
  CAT_DRIVER,
  CAT_PYTHON,
  CAT_INSTANT,
  CAT_FLOW,
};

typedef struct
{
  char     ph;
  guint8   cat;
  gboolean has_cat;
  GString *pid_str;
  gboolean pid_is_int, tid_is_int;
  gint64   pid, tid;
  gboolean has_ts, has_dur;
  gint64   ts, dur;
  gint64   id;
  GString *name;
  /* args */
  gint64   correlation, device, stream, bytes;
  gboolean has_correlation, has_device, has_stream;
  guint32  grid[3], block[3];
  gint64   dev_type, dev_id, total_allocated, total_reserved;
  gboolean has_totals;
  gint64   addr;
  gboolean has_addr;
  gint64   from_device, to_device;
  GString *sync_kind;
  gboolean is_collective;
  /* a collective's identity across ranks (ts-rank-clock.h) */
  GString *coll_name, *pg_name;
  gint64   seq;
  gboolean has_seq;
} Event;

/* A with_stack Python frame ("file.py(12): func", the function's first
 * line), kept until the whole trace is read. */
typedef struct
{
  guint32     thread;
  gboolean    in_torch;
  TsTime      start, end;
  TsSourceLoc loc;
  gint        parent;     /* the frame around it, -1: none */
} PyFrame;

/* A CUDA [memory] event, kept until the whole trace is read. */
typedef struct
{
  TsTime   time;
  guint    seq;        /* file order, for equal times */
  guint32  device;
  gboolean has_addr;
  gint64   addr, bytes;
  gint64   total_allocated, total_reserved;
} MemEvent;

typedef struct
{
  TsImportContext *ctx;
  TsRecorder      *rec;
  TsJsonReader     r;
  Event            ev;
  GHashTable      *threads;      /* "pid:tid" -> thread + 1 */
  GHashTable      *streams;      /* device << 32 | stream -> TsStreamId + 1 */
  GHashTable      *gpu_threads;  /* device << 32 | stream -> thread + 1 */
  GHashTable      *devices;      /* file device id + 1 -> our index + 1 */
  GHashTable      *props;        /* file device id + 1 -> TsValue* */
  GHashTable      *flows_s, *flows_f;
  guint64          corr_offset;
  gint64           base_ns;
  gboolean         have_base;
  guint            n_events, n_skipped, n_cpu_memory, n_oom, n_unknown_cat;
  guint            n_kernels, n_comm;
  guint            n_flows_matched, n_flows_unmatched;
  /* The clock pre-pass: collectives go here, nothing to the recorder. */
  TsRankClock     *scan_clock;
  /* Host calls, written once the Python frames around them are known */
  GArray          *calls;        /* TsApiCallRecord */
  GArray          *py_frames;    /* PyFrame */
  /* [memory] events, replayed in time order once all are read */
  GArray          *mem_events;   /* MemEvent */
  /* [memory] blocks live now: device << 56 ^ addr -> size */
  GHashTable      *live_blocks;
  guint            n_mem_allocs, n_mem_frees, n_mem_unknown, n_mem_before;
  guint64          mem_before_bytes;
} Importer;

static gboolean
key_is (const char *key,
        gsize       len,
        const char *lit)
{
  gsize n = strlen (lit);
  return len == n && memcmp (key, lit, n) == 0;
}

static guint8
category (const char *s,
          gsize       n)
{
  static const struct { const char *name; guint8 cat; } cats[] = {
    { "kernel", CAT_KERNEL }, { "gpu_memcpy", CAT_MEMCPY }, { "gpu_memset", CAT_MEMSET },
    { "gpu_user_annotation", CAT_GPU_ANNOTATION }, { "cuda_sync", CAT_SYNC },
    { "cpu_op", CAT_CPU_OP }, { "user_annotation", CAT_USER_ANNOTATION },
    { "cuda_runtime", CAT_RUNTIME }, { "cuda_driver", CAT_DRIVER },
    { "python_function", CAT_PYTHON }, { "cpu_instant_event", CAT_INSTANT },
    { "ac2g", CAT_FLOW }, { "Kernel", CAT_KERNEL }, { "Memcpy", CAT_MEMCPY },
    { "Memset", CAT_MEMSET }, { "Runtime", CAT_RUNTIME }, { "Operator", CAT_CPU_OP },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cats); i++)
    if (key_is (s, n, cats[i].name))
      return cats[i].cat;
  return CAT_OTHER;
}

/* An int, or a string holding one; FALSE (and skipped) for anything else. */
static gboolean
read_int_loose (Importer *im,
                gint64   *out,
                gboolean *is_int,
                GError  **error)
{
  int c = ts_json_peek (&im->r);

  *is_int = FALSE;
  if (c == '"')
    {
      const char *s;
      gsize len;
      char buf[32];
      char *end;
      if (!ts_json_read_string (&im->r, &s, &len, error))
        return FALSE;
      if (len > 0 && len < sizeof buf)
        {
          memcpy (buf, s, len);
          buf[len] = '\0';
          *out = g_ascii_strtoll (buf, &end, 10);
          *is_int = *end == '\0';
        }
      return TRUE;
    }
  if (c == '-' || (c >= '0' && c <= '9'))
    {
      double d;
      gboolean exact;
      if (!ts_json_read_number (&im->r, out, &d, &exact, error))
        return FALSE;
      *is_int = TRUE;
      return TRUE;
    }
  return ts_json_skip (&im->r, error);
}

static gboolean
read_dim3 (Importer *im,
           guint32   out[3],
           GError  **error)
{
  gboolean first = TRUE, more;
  guint k = 0;

  if (ts_json_peek (&im->r) != '[')
    return ts_json_skip (&im->r, error);
  if (!ts_json_begin_array (&im->r, error))
    return FALSE;
  for (;;)
    {
      gint64 v;
      gboolean ok;
      if (!ts_json_array_next (&im->r, &first, &more, error))
        return FALSE;
      if (!more)
        return TRUE;
      if (!read_int_loose (im, &v, &ok, error))
        return FALSE;
      if (ok && k < 3)
        out[k] = (guint32) CLAMP (v, 0, G_MAXUINT32);
      k++;
    }
}

/* The integer args an event may carry: where each goes in the Event, and
 * the flag that says it was there (offset 0: no flag). */
static const struct
{
  const char *key;
  gsize       value;
  gsize       present;
} int_args[] = {
  { "correlation", G_STRUCT_OFFSET (Event, correlation), G_STRUCT_OFFSET (Event, has_correlation) },
  { "device", G_STRUCT_OFFSET (Event, device), G_STRUCT_OFFSET (Event, has_device) },
  { "stream", G_STRUCT_OFFSET (Event, stream), G_STRUCT_OFFSET (Event, has_stream) },
  { "bytes", G_STRUCT_OFFSET (Event, bytes), 0 },
  { "Bytes", G_STRUCT_OFFSET (Event, bytes), 0 },
  { "Device Type", G_STRUCT_OFFSET (Event, dev_type), 0 },
  { "Device Id", G_STRUCT_OFFSET (Event, dev_id), 0 },
  { "Total Allocated", G_STRUCT_OFFSET (Event, total_allocated), G_STRUCT_OFFSET (Event, has_totals) },
  { "Total Reserved", G_STRUCT_OFFSET (Event, total_reserved), 0 },
  { "fromDevice", G_STRUCT_OFFSET (Event, from_device), 0 },
  { "toDevice", G_STRUCT_OFFSET (Event, to_device), 0 },
  { "Seq", G_STRUCT_OFFSET (Event, seq), G_STRUCT_OFFSET (Event, has_seq) },
  { "Addr", G_STRUCT_OFFSET (Event, addr), G_STRUCT_OFFSET (Event, has_addr) },
};

/* Reads the value of key into the Event when it is one of int_args. */
static gboolean
read_int_arg (Importer    *im,
              const char  *key,
              gsize        len,
              gboolean    *handled,
              GError     **error)
{
  guint8 *ev = (guint8 *) &im->ev;

  *handled = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (int_args); i++)
    if (key_is (key, len, int_args[i].key))
      {
        gboolean ok, *present = int_args[i].present ? (gboolean *) (ev + int_args[i].present) : &ok;

        *handled = TRUE;
        if (!read_int_loose (im, (gint64 *) (ev + int_args[i].value), present, error))
          return FALSE;
        /* "Total Allocated" marks the totals as present even when loose */
        if (int_args[i].present == G_STRUCT_OFFSET (Event, has_totals))
          *present = TRUE;
        return TRUE;
      }
  return TRUE;
}

/* A string value, or any other value skipped (got is FALSE then). */
static gboolean
read_string_or_skip (Importer    *im,
                     const char **s,
                     gsize       *n,
                     gboolean    *got,
                     GError     **error)
{
  *got = ts_json_peek (&im->r) == '"';
  if (!*got)
    return ts_json_skip (&im->r, error);
  return ts_json_read_string (&im->r, s, n, error);
}

static gboolean
read_args (Importer *im,
           GError  **error)
{
  Event *ev = &im->ev;
  gboolean first = TRUE, more, handled;
  const char *key;
  gsize len;

  if (ts_json_peek (&im->r) != '{')
    return ts_json_skip (&im->r, error);
  if (!ts_json_begin_object (&im->r, error))
    return FALSE;
  for (;;)
    {
      if (!ts_json_object_next (&im->r, &first, &key, &len, &more, error))
        return FALSE;
      if (!more)
        return TRUE;
      if (!read_int_arg (im, key, len, &handled, error))
        return FALSE;
      if (handled)
        continue;
      if (key_is (key, len, "grid"))
        {
          if (!read_dim3 (im, ev->grid, error))
            return FALSE;
        }
      else if (key_is (key, len, "block"))
        {
          if (!read_dim3 (im, ev->block, error))
            return FALSE;
        }
      else if (key_is (key, len, "cuda_sync_kind") && ts_json_peek (&im->r) == '"')
        {
          const char *s;
          gsize n;
          if (!ts_json_read_string (&im->r, &s, &n, error))
            return FALSE;
          g_string_assign (ev->sync_kind, "");
          g_string_append_len (ev->sync_kind, s, (gssize) n);
        }
      else if (key_is (key, len, "Collective name") || key_is (key, len, "Process Group Name"))
        {
          gboolean coll = key[0] == 'C', got;
          const char *s;
          gsize n;

          ev->is_collective |= coll;
          if (!read_string_or_skip (im, &s, &n, &got, error))
            return FALSE;
          if (got)
            g_string_append_len (coll ? ev->coll_name : ev->pg_name, s, (gssize) MIN (n, 256));
        }
      else if (key_is (key, len, "name") && im->ev.ph == 'M' && ts_json_peek (&im->r) == '"')
        {
          /* process_name / thread_name: not used (rows are named from ids) */
          if (!ts_json_skip (&im->r, error))
            return FALSE;
        }
      else if (!ts_json_skip (&im->r, error))
        return FALSE;
    }
}

static gboolean
read_event (Importer *im,
            GError  **error)
{
  Event *ev = &im->ev;
  gboolean first = TRUE, more, ok;
  const char *key;
  gsize len;

  ev->ph = 0;
  ev->cat = CAT_OTHER;
  ev->has_cat = FALSE;
  g_string_truncate (ev->pid_str, 0);
  ev->pid_is_int = ev->tid_is_int = FALSE;
  ev->has_ts = ev->has_dur = FALSE;
  ev->ts = ev->dur = ev->id = 0;
  ev->pid = ev->tid = 0;
  g_string_truncate (ev->name, 0);
  ev->correlation = ev->device = ev->stream = ev->bytes = 0;
  ev->has_correlation = ev->has_device = ev->has_stream = FALSE;
  memset (ev->grid, 0, sizeof ev->grid);
  memset (ev->block, 0, sizeof ev->block);
  ev->dev_type = ev->dev_id = ev->total_allocated = ev->total_reserved = 0;
  ev->has_totals = FALSE;
  ev->addr = 0;
  ev->has_addr = FALSE;
  ev->from_device = ev->to_device = -1;
  g_string_truncate (ev->sync_kind, 0);
  ev->is_collective = FALSE;
  g_string_truncate (ev->coll_name, 0);
  g_string_truncate (ev->pg_name, 0);
  ev->seq = 0;
  ev->has_seq = FALSE;

  if (ts_json_peek (&im->r) != '{')
    return ts_json_skip (&im->r, error);
  if (!ts_json_begin_object (&im->r, error))
    return FALSE;
  for (;;)
    {
      if (!ts_json_object_next (&im->r, &first, &key, &len, &more, error))
        return FALSE;
      if (!more)
        return TRUE;
      if (len == 2 && key[0] == 'p' && key[1] == 'h')
        {
          const char *s;
          gsize n;
          gboolean got;

          if (!read_string_or_skip (im, &s, &n, &got, error))
            return FALSE;
          if (!got)
            continue;
          ev->ph = n == 1 ? s[0] : '?';
        }
      else if (key_is (key, len, "cat"))
        {
          const char *s;
          gsize n;
          gboolean got;

          if (!read_string_or_skip (im, &s, &n, &got, error))
            return FALSE;
          if (!got)
            continue;
          ev->cat = category (s, n);
          ev->has_cat = TRUE;
        }
      else if (key_is (key, len, "name"))
        {
          const char *s;
          gsize n;
          gboolean got;

          if (!read_string_or_skip (im, &s, &n, &got, error))
            return FALSE;
          if (!got)
            continue;
          g_string_append_len (ev->name, s, (gssize) n);
        }
      else if (key_is (key, len, "pid"))
        {
          if (ts_json_peek (&im->r) == '"')
            {
              const char *s;
              gsize n;
              char *end = NULL;
              if (!ts_json_read_string (&im->r, &s, &n, error))
                return FALSE;
              g_string_append_len (ev->pid_str, s, (gssize) MIN (n, 256));
              ev->pid = g_ascii_strtoll (ev->pid_str->str, &end, 10);
              ev->pid_is_int = ev->pid_str->len > 0 && *end == '\0';
            }
          else if (!read_int_loose (im, &ev->pid, &ev->pid_is_int, error))
            return FALSE;
        }
      else if (key_is (key, len, "tid"))
        {
          if (!read_int_loose (im, &ev->tid, &ev->tid_is_int, error))
            return FALSE;
        }
      else if (key_is (key, len, "ts"))
        {
          if (!ts_json_read_us_as_ns (&im->r, &ev->ts, error))
            return FALSE;
          ev->has_ts = TRUE;
        }
      else if (key_is (key, len, "dur"))
        {
          if (!ts_json_read_us_as_ns (&im->r, &ev->dur, error))
            return FALSE;
          ev->has_dur = TRUE;
        }
      else if (key_is (key, len, "id"))
        {
          if (!read_int_loose (im, &ev->id, &ok, error))
            return FALSE;
        }
      else if (key_is (key, len, "args"))
        {
          if (!read_args (im, error))
            return FALSE;
        }
      else if (!ts_json_skip (&im->r, error))
        return FALSE;
    }
}

/* Times before 2001 are not Unix times: the legacy profiler (torch
 * 1.13 without Kineto) counts µs from its own start. */
#define UNIX_2001_NS G_GINT64_CONSTANT (978307200000000000)

/* ts of a hostile file are bounded (±4e18 ns, ±126 years) so that
 * differences cannot overflow. */
#define MAX_TS_NS G_GINT64_CONSTANT (4000000000000000000)

static TsTime
event_time (Importer *im,
            gint64    ts)
{
  TsImportContext *ctx = im->ctx;

  /* the rank's clock correction (zero but for a multi-rank import) */
  ts = CLAMP (ts, -MAX_TS_NS, MAX_TS_NS) + ctx->clock_shift_ns;
  if (!ctx->have_origin)
    {
      ctx->have_origin = TRUE;
      ctx->origin_ns = ts - ts % 1000;   /* a whole µs */
    }
  return ts - ctx->origin_ns;
}

static char *
rank_prefix (Importer *im)
{
  return im->ctx->rank >= 0 ? g_strdup_printf ("rank %d: ", im->ctx->rank) : g_strdup ("");
}

static guint32
device_index (Importer *im,
              gint64    id,
              gboolean *ok)
{
  gpointer v;
  TsDeviceRecord d = { 0 };
  TsValue *props;
  g_autofree char *prefix = NULL, *name = NULL;
  gint64 x;
  guint32 index;

  *ok = FALSE;
  if (id < 0 || id >= 1024)
    return 0;
  v = g_hash_table_lookup (im->devices, GINT_TO_POINTER ((gint) id + 1));
  if (v != NULL)
    {
      *ok = TRUE;
      return GPOINTER_TO_UINT (v) - 1;
    }
  if (im->ctx->rank < 0)
    index = (guint32) id;
  else
    index = im->ctx->n_devices_used;
  if (index >= 64)
    return 0;
  im->ctx->n_devices_used = MAX (im->ctx->n_devices_used, index + 1);
  g_hash_table_insert (im->devices, GINT_TO_POINTER ((gint) id + 1), GUINT_TO_POINTER (index + 1));

  props = g_hash_table_lookup (im->props, GINT_TO_POINTER ((gint) id + 1));
  prefix = rank_prefix (im);
  name = g_strdup_printf ("%s%s", prefix, ts_value_get_str (props, "name") != NULL ? ts_value_get_str (props, "name") : "GPU");
  d.index = index;
  d.name = ts_recorder_intern (im->rec, name);
  if (im->ctx->rank >= 0)
    {
      g_autofree char *model = g_strdup_printf ("kineto rank %d", im->ctx->rank);
      d.model = ts_recorder_intern (im->rec, model);
    }
  else
    d.model = ts_recorder_intern (im->rec, "kineto");
  if (ts_value_get_int (props, "numSms", &x)) d.sm_count = (guint32) CLAMP (x, 0, G_MAXUINT32);
  if (ts_value_get_int (props, "computeMajor", &x)) d.cc_major = (guint32) CLAMP (x, 0, 1000);
  if (ts_value_get_int (props, "computeMinor", &x)) d.cc_minor = (guint32) CLAMP (x, 0, 1000);
  if (ts_value_get_int (props, "totalGlobalMem", &x)) d.total_memory = (guint64) MAX (x, 0);
  ts_recorder_append (im->rec, TS_RECORD_DEVICE, &d);
  *ok = TRUE;
  return index;
}

/* A new thread record NAME, remembered in TABLE under KEY (which the table
 * takes) as its id + 1, so that 0 means "not seen yet". */
static guint32
new_thread (Importer   *im,
            GHashTable *table,
            gpointer    key,
            const char *name)
{
  TsThreadRecord t = { 0 };

  t.thread = im->ctx->n_threads_used++;
  t.name = ts_recorder_intern (im->rec, name);
  ts_recorder_append (im->rec, TS_RECORD_THREAD, &t);
  g_hash_table_insert (table, key, GUINT_TO_POINTER (t.thread + 1));
  return t.thread;
}

/* The table key of a device's stream (or, for gpu_thread, -1: none). */
static inline gpointer
stream_key (guint32 device,
            gint64  stream)
{
  return GSIZE_TO_POINTER (((gsize) device << 32) | (guint32) stream);
}

static guint32
host_thread (Importer *im)
{
  Event *ev = &im->ev;
  g_autofree char *key = ev->pid_is_int ? g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, ev->pid, ev->tid)
                                         : g_strdup_printf ("%s:%" G_GINT64_FORMAT, ev->pid_str->str, ev->tid);
  gpointer v = g_hash_table_lookup (im->threads, key);
  g_autofree char *prefix = NULL, *name = NULL;

  if (v != NULL)
    return GPOINTER_TO_UINT (v) - 1;
  prefix = rank_prefix (im);
  if (ev->pid_is_int)
    name = g_strdup_printf ("%sthread %" G_GINT64_FORMAT " (pid %" G_GINT64_FORMAT ")", prefix, ev->tid, ev->pid);
  else
    name = g_strdup_printf ("%sthread %" G_GINT64_FORMAT " (%s)", prefix, ev->tid, ev->pid_str->str);
  return new_thread (im, im->threads, g_steal_pointer (&key), name);
}

static TsStreamId
stream_track (Importer *im,
              guint32   device,
              gint64    stream)
{
  gpointer k = stream_key (device, stream);
  gpointer v = g_hash_table_lookup (im->streams, k);
  TsStreamRecord s = { 0 };

  if (v != NULL)
    return GPOINTER_TO_UINT (v) - 1;
  s.stream = im->ctx->next_stream++;
  s.device = device;
  s.is_default = stream == 7;   /* PyTorch's default stream as CUPTI numbers it */
  s.handle = (guint64) stream;
  ts_recorder_append (im->rec, TS_RECORD_STREAM, &s);
  g_hash_table_insert (im->streams, k, GUINT_TO_POINTER (s.stream + 1));
  return s.stream;
}

static guint32
gpu_thread (Importer *im,
            guint32   device,
            gint64    stream)
{
  gpointer k = stream_key (device, stream);
  gpointer v = g_hash_table_lookup (im->gpu_threads, k);
  g_autofree char *prefix = NULL, *name = NULL;

  if (v != NULL)
    return GPOINTER_TO_UINT (v) - 1;
  prefix = rank_prefix (im);
  if (stream >= 0)
    name = g_strdup_printf ("%scuda:%u stream %" G_GINT64_FORMAT " (annotations, syncs)", prefix, device, stream);
  else
    name = g_strdup_printf ("%scuda:%u (syncs)", prefix, device);
  return new_thread (im, im->gpu_threads, k, name);
}

static void
add_range (Importer *im,
           guint32   thread,
           TsTime    start,
           TsTime    end,
           TsStringId name)
{
  TsNvtxRecord r = { 0 };

  r.range_id = ++im->ctx->next_range_id;
  r.thread = thread;
  r.message = name;
  r.kind = TS_NVTX_RANGE_START;
  r.time = start;
  ts_recorder_append (im->rec, TS_RECORD_NVTX, &r);
  r.kind = TS_NVTX_RANGE_END;
  r.time = end;
  ts_recorder_append (im->rec, TS_RECORD_NVTX, &r);
}

static void
append_alloc (Importer *im,
              guint32   device,
              TsTime    time,
              gint64    addr,
              guint32   action,
              guint64   size,
              gboolean  synthetic)
{
  TsAllocRecord a = { 0 };

  a.time = time;
  a.addr = (guint64) addr;
  a.size = size;
  /* a segment's requested stays 0: requested == size marks a plain
   * cudaMalloc, which the replay leaves out */
  a.requested = action == TS_ALLOC_ACTION_SEGMENT_ALLOC || action == TS_ALLOC_ACTION_SEGMENT_FREE ? 0 : size;
  a.correlation = synthetic ? TS_IMPORT_SYNTHETIC_CORRELATION : 0;
  a.device = device;
  a.stream = TS_STREAM_NONE;
  a.action = action;
  a.pool = size <= 1048576 ? 1 : 0;   /* PyTorch's small pool: requests up to 1 MiB */
  ts_recorder_append (im->rec, TS_RECORD_ALLOC, &a);
}

/* A CUDA [memory] event with Addr: an allocation (Bytes > 0) or a free
 * (Bytes < 0) of the caching allocator, reported with the block's size.
 * Kineto does not say which segment a block is in, so each allocation
 * gets a segment of its own (synthetic: exporters leave it out), which
 * lets the replay and the Memory view show the blocks. */
static gpointer
block_key (guint32 device,
           gint64  addr)
{
  return GSIZE_TO_POINTER ((gsize) addr ^ ((gsize) device << 56));
}

static void
memory_action (Importer       *im,
               const MemEvent *ev)
{
  guint32 device = ev->device;
  TsTime time = ev->time;
  gpointer key = block_key (device, ev->addr);
  gpointer live = NULL;
  gboolean known = g_hash_table_lookup_extended (im->live_blocks, key, NULL, &live);

  if (ev->bytes > 0)
    {
      guint64 size = (guint64) ev->bytes;

      im->n_mem_allocs++;
      if (known)
        {
          /* the same block twice: its free was not traced */
          im->n_mem_unknown++;
          append_alloc (im, device, time, ev->addr, TS_ALLOC_ACTION_ALLOC, size, FALSE);
          return;
        }
      append_alloc (im, device, time, ev->addr, TS_ALLOC_ACTION_SEGMENT_ALLOC, size, TRUE);
      append_alloc (im, device, time, ev->addr, TS_ALLOC_ACTION_ALLOC, size, FALSE);
      g_hash_table_insert (im->live_blocks, key, GSIZE_TO_POINTER ((gsize) size));
    }
  else
    {
      guint64 size = ev->bytes == G_MININT64 ? G_MAXINT64 : (guint64) -ev->bytes;

      im->n_mem_frees++;
      /* PyTorch's trace says free_requested then free_completed (at once
       * when no other stream used the block) */
      append_alloc (im, device, time, ev->addr, TS_ALLOC_ACTION_FREE_REQUESTED, size, FALSE);
      append_alloc (im, device, time, ev->addr, TS_ALLOC_ACTION_FREE_COMPLETED, size, FALSE);
      if (!known)
        {
          im->n_mem_unknown++;
          return;
        }
      append_alloc (im, device, time, ev->addr, TS_ALLOC_ACTION_SEGMENT_FREE, GPOINTER_TO_SIZE (live), TRUE);
      g_hash_table_remove (im->live_blocks, key);
    }
}

/* "torch/nn/modules/module.py(1783): _call_impl" -> a frame; built-ins
 * ("<built-in method ...>") are not frames. */
static void
add_py_frame (Importer              *im,
              const TsApiCallRecord *call)
{
  const char *name = im->ev.name->str, *sep = strstr (name, "): "), *open = sep;
  g_autofree char *line_str = NULL;
  PyFrame f = { 0 };
  guint64 line;
  gsize file_len;

  if (sep == NULL)
    return;
  while (open > name && open[-1] != '(')
    open--;
  if (open == name)
    return;
  file_len = (gsize) (open - 1 - name);
  line_str = g_strndup (open, (gsize) (sep - open));
  if (file_len < 3 || memcmp (name + file_len - 3, ".py", 3) != 0 ||
      !g_ascii_string_to_unsigned (line_str, 10, 1, G_MAXUINT32, &line, NULL))
    return;
  f.thread = call->thread;
  f.start = call->start;
  f.end = call->end;
  f.in_torch = g_str_has_prefix (name, "torch/") || g_strstr_len (name, (gssize) file_len, "/torch/") != NULL;
  f.loc.file = ts_recorder_intern_len (im->rec, name, file_len);
  f.loc.function = ts_recorder_intern (im->rec, sep + 3);
  f.loc.line = (guint32) line;
  g_array_append_val (im->py_frames, f);
}

static void
handle_event (Importer *im)
{
  Event *ev = &im->ev;
  TsTime start, end;
  guint64 corr = ev->has_correlation ? (guint64) ev->correlation + im->corr_offset : 0;
  gboolean gpu = ev->cat == CAT_KERNEL || ev->cat == CAT_MEMCPY || ev->cat == CAT_MEMSET ||
                 ev->cat == CAT_GPU_ANNOTATION || ev->cat == CAT_SYNC;
  guint32 device = 0;
  gint64 stream = -1;
  gboolean ok;

  im->n_events++;
  if (ev->ph == 's' || ev->ph == 'f')
    {
      /* Only ends still waiting for their partner are kept. */
      if (ev->cat == CAT_FLOW || g_str_equal (ev->name->str, "ac2g"))
        {
          GHashTable *mine = ev->ph == 's' ? im->flows_s : im->flows_f;
          GHashTable *other = ev->ph == 's' ? im->flows_f : im->flows_s;
          gpointer id = GSIZE_TO_POINTER ((gsize) ev->id);

          if (g_hash_table_remove (other, id))
            im->n_flows_matched++;
          else if (!g_hash_table_add (mine, id))
            im->n_flows_unmatched++;   /* a repeated id: the earlier end is dropped */
        }
      return;
    }
  if (ev->ph == 'i' || ev->ph == 'I')
    {
      if (!ev->has_ts)
        return;
      if (g_str_equal (ev->name->str, "[memory]") && ev->has_totals && !im->ctx->skip_memory_counters)
        {
          MemEvent m = { 0 };

          if (ev->dev_type != 1)
            {
              im->n_cpu_memory++;
              return;
            }

          device = device_index (im, ev->dev_id, &ok);
          if (!ok)
            return;
          m.time = event_time (im, ev->ts);
          m.seq = im->mem_events->len;
          m.device = device;
          m.has_addr = ev->has_addr;
          m.addr = ev->addr;
          m.bytes = ev->bytes;
          m.total_allocated = ev->total_allocated;
          m.total_reserved = ev->total_reserved;
          g_array_append_val (im->mem_events, m);
        }
      else if (g_str_equal (ev->name->str, "[OutOfMemory]"))
        im->n_oom++;
      return;
    }
  if (ev->ph != 'X' || !ev->has_ts)
    {
      if (ev->ph != 'M')
        im->n_skipped++;
      return;
    }
  start = event_time (im, ev->ts);
  end = start + CLAMP (ev->dur, 0, G_GINT64_CONSTANT (1000000000000000));   /* at most 11.6 days */

  if (gpu)
    {
      gint64 dev_id = ev->has_device ? ev->device : ev->pid;
      if (!ev->has_device && !ev->pid_is_int)
        {
          im->n_skipped++;
          return;
        }
      device = device_index (im, dev_id, &ok);
      if (!ok)
        {
          im->n_skipped++;
          return;
        }
      stream = ev->has_stream ? ev->stream : (ev->tid_is_int ? ev->tid : -1);
    }
  else if (!ev->has_cat && ev->tid_is_int)
    {
      /* The legacy profiler's form (no "cat", pid "CPU functions"): ops. */
      ev->cat = CAT_CPU_OP;
    }
  else if (ev->cat != CAT_OTHER && (!ev->pid_is_int || !ev->tid_is_int))
    {
      im->n_skipped++;
      return;
    }

  switch (ev->cat)
    {
    case CAT_KERNEL:
      {
        TsKernelRecord k = { 0 };
        k.start = start;
        k.end = end;
        k.queued = start;
        k.correlation = corr;
        k.device = device;
        k.stream = stream_track (im, device, stream);
        k.name = ts_recorder_intern_len (im->rec, ev->name->str, ev->name->len);
        memcpy (k.grid, ev->grid, sizeof k.grid);
        memcpy (k.block, ev->block, sizeof k.block);
        ts_recorder_append (im->rec, TS_RECORD_KERNEL, &k);
        im->n_kernels++;
        if (ev->is_collective || ts_kernel_name_is_communication (ev->name->str))
          im->n_comm++;
      }
      break;
    case CAT_MEMCPY:
      {
        TsMemcpyRecord m = { 0 };
        const char *n = ev->name->str;
        m.start = start;
        m.end = end;
        m.queued = start;
        m.correlation = corr;
        m.device = device;
        m.stream = stream_track (im, device, stream);
        m.bytes = (guint64) MAX (ev->bytes, 0);
        m.flags = strstr (n, "Pinned") != NULL ? TS_COPY_FLAG_PINNED : 0;
        if (strstr (n, "HtoD") != NULL)
          m.kind = TS_COPY_HOST_TO_DEVICE, m.src_device = -1, m.dst_device = (gint32) device;
        else if (strstr (n, "DtoH") != NULL)
          m.kind = TS_COPY_DEVICE_TO_HOST, m.src_device = (gint32) device, m.dst_device = -1;
        else if (strstr (n, "HtoH") != NULL)
          m.kind = TS_COPY_HOST_TO_HOST, m.src_device = -1, m.dst_device = -1;
        else if (strstr (n, "PtoP") != NULL || strstr (n, "Peer") != NULL)
          {
            gboolean ok1 = FALSE, ok2 = FALSE;
            guint32 from = ev->from_device >= 0 ? device_index (im, ev->from_device, &ok1) : 0;
            guint32 to = ev->to_device >= 0 ? device_index (im, ev->to_device, &ok2) : 0;
            m.kind = TS_COPY_PEER;
            m.src_device = ok1 ? (gint32) from : (gint32) device;
            m.dst_device = ok2 ? (gint32) to : (gint32) device;
          }
        else
          m.kind = TS_COPY_DEVICE_TO_DEVICE, m.src_device = m.dst_device = (gint32) device;
        ts_recorder_append (im->rec, TS_RECORD_MEMCPY, &m);
      }
      break;
    case CAT_MEMSET:
      {
        TsMemsetRecord m = { 0 };
        m.start = start;
        m.end = end;
        m.queued = start;
        m.correlation = corr;
        m.device = device;
        m.stream = stream_track (im, device, stream);
        m.bytes = (guint64) MAX (ev->bytes, 0);
        ts_recorder_append (im->rec, TS_RECORD_MEMSET, &m);
      }
      break;
    case CAT_GPU_ANNOTATION:
      add_range (im, gpu_thread (im, device, stream), start, end,
                 ts_recorder_intern_len (im->rec, ev->name->str, ev->name->len));
      break;
    case CAT_SYNC:
      {
        TsSyncRecord s = { 0 };
        const char *kind = ev->sync_kind->len > 0 ? ev->sync_kind->str : ev->name->str;
        s.start = start;
        s.end = end;
        s.correlation = corr;
        s.thread = gpu_thread (im, device, stream >= 1000000 ? stream - 1000000 : stream);
        s.device = (gint32) device;
        s.stream = TS_STREAM_NONE;
        if (strstr (kind, "Stream Sync") != NULL)
          {
            s.kind = TS_SYNC_STREAM;
            if (stream >= 0)
              s.stream = stream_track (im, device, stream >= 1000000 ? stream - 1000000 : stream);
          }
        else if (strstr (kind, "Event") != NULL)
          s.kind = TS_SYNC_EVENT;
        else
          s.kind = TS_SYNC_DEVICE;
        ts_recorder_append (im->rec, TS_RECORD_SYNC, &s);
      }
      break;
    case CAT_CPU_OP:
    case CAT_RUNTIME:
    case CAT_DRIVER:
    case CAT_PYTHON:
      {
        TsApiCallRecord a = { 0 };
        a.start = start;
        a.end = end;
        a.correlation = ev->cat == CAT_RUNTIME || ev->cat == CAT_DRIVER ? corr : 0;
        a.thread = host_thread (im);
        a.name = ts_recorder_intern_len (im->rec, ev->name->str, ev->name->len);
        a.device = -1;
        a.stream = TS_STREAM_NONE;
        g_array_append_val (im->calls, a);
        if (ev->cat == CAT_PYTHON)
          add_py_frame (im, &a);
      }
      break;
    case CAT_USER_ANNOTATION:
      add_range (im, host_thread (im), start, end,
                 ts_recorder_intern_len (im->rec, ev->name->str, ev->name->len));
      break;
    default:
      im->n_unknown_cat++;
      break;
    }
}

static int
cmp_int (gconstpointer a,
         gconstpointer b)
{
  return *(const gint *) a - *(const gint *) b;
}

/* The clock pre-pass: a collective kernel's identity and end time. The
 * key is the process group and collective name where Kineto copied them
 * from record_param_comms, else the kernel's name without its arguments. */
/* Point-to-point transfers (pipeline send/recv) end when their one peer
 * is done, not with the group: no clock reference. An all-to-all also
 * runs as NCCL SendRecv kernels but is a collective: its name says so. */
static gboolean
is_point_to_point (const Event *ev)
{
  if (ev->coll_name->len > 0)
    return g_ascii_strcasecmp (ev->coll_name->str, "send") == 0 || g_ascii_strcasecmp (ev->coll_name->str, "recv") == 0 ||
           g_ascii_strcasecmp (ev->coll_name->str, "isend") == 0 || g_ascii_strcasecmp (ev->coll_name->str, "irecv") == 0 ||
           strstr (ev->coll_name->str, "send_recv") != NULL || strstr (ev->coll_name->str, "isend_irecv") != NULL;
  return strstr (ev->name->str, "SendRecv") != NULL || strstr (ev->name->str, "_Send") != NULL ||
         strstr (ev->name->str, "_Recv") != NULL;
}

static void
scan_event (Importer *im)
{
  Event *ev = &im->ev;
  g_autoptr(GString) key = NULL;
  gint64 end;

  if (ev->ph != 'X' || !ev->has_ts || ev->cat != CAT_KERNEL ||
      (!ev->is_collective && !ts_kernel_name_is_communication (ev->name->str)) || is_point_to_point (ev))
    return;
  key = g_string_new (ev->pg_name->str);
  g_string_append_c (key, '|');
  if (ev->coll_name->len > 0)
    g_string_append (key, ev->coll_name->str);
  else
    g_string_append_len (key, ev->name->str, (gssize) strcspn (ev->name->str, "("));
  end = CLAMP (ev->ts, -MAX_TS_NS, MAX_TS_NS) + CLAMP (ev->dur, 0, G_GINT64_CONSTANT (1000000000000000));
  ts_rank_clock_add (im->scan_clock, im->ctx->rank, key->str, ev->has_seq ? ev->seq : -1, end);
}

static gboolean
read_events (Importer *im,
             GError  **error)
{
  gboolean first = TRUE, more;

  if (!ts_json_begin_array (&im->r, error))
    return FALSE;
  for (;;)
    {
      if (!ts_json_array_next (&im->r, &first, &more, error))
        return FALSE;
      if (!more)
        return TRUE;
      if (!read_event (im, error))
        return FALSE;
      if (im->scan_clock != NULL)
        scan_event (im);
      else
        handle_event (im);
    }
}

static gboolean
read_device_properties (Importer *im,
                        GError  **error)
{
  gboolean first = TRUE, more;

  if (ts_json_peek (&im->r) != '[')
    return ts_json_skip (&im->r, error);
  if (!ts_json_begin_array (&im->r, error))
    return FALSE;
  for (;;)
    {
      TsValue *v = NULL;
      gint64 id;
      if (!ts_json_array_next (&im->r, &first, &more, error))
        return FALSE;
      if (!more)
        return TRUE;
      if (!ts_json_read_value (&im->r, &v, error))
        return FALSE;
      if (ts_value_get_int (v, "id", &id) && id >= 0 && id < 1024)
        g_hash_table_replace (im->props, GINT_TO_POINTER ((gint) id + 1), v);
      else
        ts_value_unref (v);
    }
}

static void
importer_init (Importer        *im,
               TsImportContext *ctx,
               TsImportInput   *in)
{
  memset (im, 0, sizeof *im);
  im->ctx = ctx;
  im->rec = ctx->rec;
  ts_json_reader_init (&im->r, in);
  im->ev.name = g_string_sized_new (128);
  im->ev.sync_kind = g_string_new (NULL);
  im->ev.pid_str = g_string_new (NULL);
  im->ev.coll_name = g_string_new (NULL);
  im->ev.pg_name = g_string_new (NULL);
  im->threads = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  im->streams = g_hash_table_new (NULL, NULL);
  im->gpu_threads = g_hash_table_new (NULL, NULL);
  im->devices = g_hash_table_new (NULL, NULL);
  im->props = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) ts_value_unref);
  im->flows_s = g_hash_table_new (NULL, NULL);
  im->flows_f = g_hash_table_new (NULL, NULL);
  im->live_blocks = g_hash_table_new (NULL, NULL);
  im->mem_events = g_array_new (FALSE, FALSE, sizeof (MemEvent));
  im->calls = g_array_new (FALSE, FALSE, sizeof (TsApiCallRecord));
  im->py_frames = g_array_new (FALSE, FALSE, sizeof (PyFrame));
  if (ctx->rank >= 0)
    im->corr_offset = (guint64) (ctx->rank + 1) << 40;
}

static void
importer_clear (Importer *im)
{
  ts_json_reader_clear (&im->r);
  g_string_free (im->ev.name, TRUE);
  g_string_free (im->ev.sync_kind, TRUE);
  g_string_free (im->ev.pid_str, TRUE);
  g_string_free (im->ev.coll_name, TRUE);
  g_string_free (im->ev.pg_name, TRUE);
  g_hash_table_unref (im->threads);
  g_hash_table_unref (im->streams);
  g_hash_table_unref (im->gpu_threads);
  g_hash_table_unref (im->devices);
  g_hash_table_unref (im->props);
  g_hash_table_unref (im->flows_s);
  g_hash_table_unref (im->flows_f);
  g_hash_table_unref (im->live_blocks);
  g_array_unref (im->mem_events);
  g_array_unref (im->calls);
  g_array_unref (im->py_frames);
}

static gboolean
read_base_time (Importer *im,
                GError  **error)
{
  gint64 i;
  double d;
  gboolean is_int;
  int c = ts_json_peek (&im->r);

  if (c == '"' || c == '{' || c == '[')
    return ts_json_skip (&im->r, error);
  if (!ts_json_read_number (&im->r, &i, &d, &is_int, error))
    return FALSE;
  im->base_ns = CLAMP (is_int ? i : (d >= -4e18 && d <= 4e18 ? (gint64) d : 0), -MAX_TS_NS, MAX_TS_NS);
  im->have_base = TRUE;
  return TRUE;
}

/* The whole file: the Kineto envelope or the bare array of events. */
static gboolean
read_document (Importer *im,
               GError  **error)
{
  gboolean first = TRUE, more, saw_events = FALSE;

  if (ts_json_peek (&im->r) == '[')
    {
      /* The bare array form of the Chrome trace format. */
      if (!read_events (im, error))
        return FALSE;
      saw_events = TRUE;
    }
  else
    {
      if (!ts_json_begin_object (&im->r, error))
        return FALSE;
      for (;;)
        {
          const char *key;
          gsize len;
          gboolean ok;

          if (!ts_json_object_next (&im->r, &first, &key, &len, &more, error))
            return FALSE;
          if (!more)
            break;
          if (key_is (key, len, "traceEvents"))
            {
              ok = read_events (im, error);
              saw_events = TRUE;
            }
          else if (key_is (key, len, "deviceProperties"))
            ok = read_device_properties (im, error);
          else if (key_is (key, len, "baseTimeNanoseconds"))
            ok = read_base_time (im, error);
          else
            ok = ts_json_skip (&im->r, error);
          if (!ok)
            return FALSE;
        }
    }
  if (ts_json_peek (&im->r) >= 0)
    {
      ts_json_error (&im->r, error, TS_IMPORT_ERROR_CORRUPT, "data after the end of the trace");
      return FALSE;
    }
  if (!saw_events)
    {
      g_set_error (error, TS_IMPORT_ERROR, TS_IMPORT_ERROR_FORMAT, "not a profiler trace: no \"traceEvents\"");
      return FALSE;
    }
  return TRUE;
}

static int
cmp_py_frame (gconstpointer a,
              gconstpointer b)
{
  const PyFrame *x = a, *y = b;

  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->end > y->end ? -1 : x->end < y->end;   /* the outer one first */
}

/* A call's site: of the frames around it, the innermost outside torch
 * that no torch frame is around: the user's function that called into
 * torch (stdlib frames torch calls do not count). */
static TsSourceLoc
call_site (GArray                *frames,
           const TsApiCallRecord *c)
{
  const PyFrame *fr = (const PyFrame *) (gpointer) frames->data;
  TsSourceLoc site = TS_SOURCE_LOC_NONE;
  gboolean have = FALSE;
  guint lo = 0, hi = frames->len;
  gint f;

  /* the last frame of the thread that starts at or before the call */
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      if (fr[mid].thread < c->thread || (fr[mid].thread == c->thread && fr[mid].start <= c->start))
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0 || fr[lo - 1].thread != c->thread)
    return site;
  /* frames nest: the innermost one around the call is that one or one of
   * the frames around it */
  for (f = (gint) lo - 1; f >= 0 && !(c->start < fr[f].end); f = fr[f].parent)
    ;
  for (; f >= 0; f = fr[f].parent)
    {
      if (fr[f].in_torch)
        have = FALSE;
      else if (!have)
        site = fr[f].loc, have = TRUE;
    }
  return have ? site : TS_SOURCE_LOC_NONE;
}

/* The host calls, each with its call site, once every frame is known. */
static void
emit_calls (Importer *im)
{
  GArray *frames = im->py_frames;
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (gint));

  g_array_sort (frames, cmp_py_frame);
  for (guint i = 0; i < frames->len; i++)
    {
      PyFrame *f = &g_array_index (frames, PyFrame, i);
      gint index = (gint) i;

      if (i > 0 && g_array_index (frames, PyFrame, i - 1).thread != f->thread)
        g_array_set_size (stack, 0);
      while (stack->len > 0 &&
             g_array_index (frames, PyFrame, g_array_index (stack, gint, stack->len - 1)).end <= f->start)
        g_array_set_size (stack, stack->len - 1);
      f->parent = stack->len > 0 ? g_array_index (stack, gint, stack->len - 1) : -1;
      g_array_append_val (stack, index);
    }
  for (guint i = 0; i < im->calls->len; i++)
    {
      TsApiCallRecord *c = &g_array_index (im->calls, TsApiCallRecord, i);
      c->loc = call_site (frames, c);
    }
  if (im->calls->len > 0)
    ts_recorder_append_many (im->rec, TS_RECORD_API_CALL, im->calls->data, im->calls->len);
}

static int
cmp_mem_event (gconstpointer a,
               gconstpointer b)
{
  const MemEvent *x = a, *y = b;

  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A block live from the start (synthetic: in no exported trace). */
static void
add_before_block (Importer *im,
                  guint32   device,
                  TsTime    time,
                  gint64    addr,
                  guint64   size)
{
  append_alloc (im, device, time, addr, TS_ALLOC_ACTION_SEGMENT_ALLOC, size, TRUE);
  append_alloc (im, device, time, addr, TS_ALLOC_ACTION_ALLOC, size, TRUE);
  g_hash_table_insert (im->live_blocks, block_key (device, addr), GSIZE_TO_POINTER ((gsize) size));
  im->n_mem_before++;
  im->mem_before_bytes += size;
}

/* Memory allocated before the profiler started: a device's first [memory]
 * event says how much (its Total Allocated less its own Bytes). A block
 * the trace frees without having seen it allocated is put in place at
 * its address and size; the rest is one block at address 0, which no
 * allocation has. So the replay's allocated memory follows Kineto's
 * Total Allocated, not just what the profiled steps allocated. */
static void
emit_before (Importer *im)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) baseline = g_hash_table_new (NULL, NULL);   /* device + 1 -> bytes + 1 */
  g_autoptr(GArray) devices = g_array_new (FALSE, FALSE, sizeof (guint32));
  TsTime start;

  if (im->mem_events->len == 0)
    return;
  start = g_array_index (im->mem_events, MemEvent, 0).time;
  for (guint i = 0; i < im->mem_events->len; i++)
    {
      const MemEvent *m = &g_array_index (im->mem_events, MemEvent, i);
      gpointer key = block_key (m->device, m->addr);
      gpointer dkey = GUINT_TO_POINTER (m->device + 1);

      if (!g_hash_table_contains (baseline, dkey))
        {
          gint64 before = m->total_allocated - (m->has_addr ? m->bytes : 0);
          g_hash_table_insert (baseline, dkey, GSIZE_TO_POINTER ((gsize) MAX (before, 0) + 1));
          g_array_append_val (devices, m->device);
        }
      if (!m->has_addr || m->bytes == 0)
        continue;
      if (m->bytes > 0)
        g_hash_table_add (seen, key);
      else if (!g_hash_table_remove (seen, key) && m->bytes != G_MININT64 &&
               !g_hash_table_contains (im->live_blocks, key))
        {
          guint64 size = (guint64) -m->bytes;
          gsize rest = GPOINTER_TO_SIZE (g_hash_table_lookup (baseline, dkey)) - 1;

          add_before_block (im, m->device, start, m->addr, size);
          g_hash_table_insert (baseline, dkey, GSIZE_TO_POINTER ((rest > size ? rest - size : 0) + 1));
        }
    }
  for (guint i = 0; i < devices->len; i++)
    {
      guint32 d = g_array_index (devices, guint32, i);
      gsize rest = GPOINTER_TO_SIZE (g_hash_table_lookup (baseline, GUINT_TO_POINTER (d + 1))) - 1;

      if (rest > 0 && !g_hash_table_contains (im->live_blocks, block_key (d, 0)))
        add_before_block (im, d, start, 0, rest);
    }
}

/* The [memory] events as counters and allocations, in time order: each
 * event's totals are the allocator's just after it, and a free must come
 * after its allocation for the replay to match them. */
static void
emit_memory (Importer *im)
{
  g_array_sort (im->mem_events, cmp_mem_event);
  emit_before (im);
  for (guint i = 0; i < im->mem_events->len; i++)
    {
      const MemEvent *m = &g_array_index (im->mem_events, MemEvent, i);
      TsCounterRecord c = { 0 };

      c.time = m->time;
      c.device = m->device;
      c.counter = TS_COUNTER_ALLOCATED_BYTES;
      c.value = m->total_allocated;
      ts_recorder_append (im->rec, TS_RECORD_COUNTER, &c);
      c.counter = TS_COUNTER_RESERVED_BYTES;
      c.value = m->total_reserved;
      ts_recorder_append (im->rec, TS_RECORD_COUNTER, &c);
      if (m->has_addr && m->bytes != 0)
        memory_action (im, m);
    }
}

gboolean
ts_kineto_import (TsImportContext *ctx,
                  TsImportInput   *in,
                  GError         **error)
{
  Importer im;
  gboolean ok = FALSE;
  guint n_matched = 0, n_unmatched = 0;

  importer_init (&im, ctx, in);
  if (!read_document (&im, error))
    goto out;
  emit_calls (&im);
  emit_memory (&im);

  /* Devices listed but without work still appear (single file only: with
   * ranks, each lists the node's GPUs but uses one). */
  if (ctx->rank < 0)
    {
      g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint));
      GHashTableIter it;
      gpointer k;
      g_hash_table_iter_init (&it, im.props);
      while (g_hash_table_iter_next (&it, &k, NULL))
        {
          gint id = GPOINTER_TO_INT (k) - 1;
          g_array_append_val (ids, id);
        }
      g_array_sort (ids, cmp_int);
      for (guint i = 0; i < ids->len; i++)
        {
          gboolean dok;
          device_index (&im, g_array_index (ids, gint, i), &dok);
        }
    }

  n_matched = im.n_flows_matched;
  n_unmatched = im.n_flows_unmatched + g_hash_table_size (im.flows_s) + g_hash_table_size (im.flows_f);

  /* The clock. */
  {
    gint64 base = im.have_base ? im.base_ns : 0;
    if (!ctx->have_kineto_base)
      {
        ctx->have_kineto_base = TRUE;
        ctx->kineto_base_ns = base;
        if (!ctx->have_epoch && ctx->have_origin && base + ctx->origin_ns >= UNIX_2001_NS)
          {
            ctx->have_epoch = TRUE;
            ctx->epoch_ns = base + ctx->origin_ns;
          }
        else if (!ctx->have_epoch && ctx->have_origin)
          ts_import_note (ctx, CLOCK_NOTE "times count from the profiler's start, not a wall clock (the legacy "
                          "profiler's form): no date, and traces of several ranks are not on one clock");
      }
    else if (base != ctx->kineto_base_ns && ctx->clock_aligned)
      ts_import_note (ctx, CLOCK_NOTE "rank %d's baseTimeNanoseconds differs from the first trace's by %"
                      G_GINT64_FORMAT " ns: its times were moved onto the first trace's base", ctx->rank,
                      base - ctx->kineto_base_ns);
    else if (base != ctx->kineto_base_ns)
      ts_import_note (ctx, CLOCK_NOTE "rank %d's baseTimeNanoseconds differs from the first trace's by %"
                      G_GINT64_FORMAT " ns: this trace is not aligned with the others", ctx->rank,
                      base - ctx->kineto_base_ns);
  }

  {
    g_autofree char *prefix = rank_prefix (&im);
    ts_import_note (ctx, "%sprofiler trace: %u events, %u kernels (%u NCCL communication), "
                    "%u launch-to-kernel flows, %u unmatched flow ends dropped%s",
                    prefix, im.n_events, im.n_kernels, im.n_comm, n_matched, n_unmatched,
                    im.have_base || ctx->origin_ns < UNIX_2001_NS ? "" : "; no baseTimeNanoseconds: timestamps taken as absolute µs");
    if (im.n_mem_allocs + im.n_mem_frees > 0)
      ts_import_note (ctx, TS_IMPORT_SYNTHETIC_SEGMENTS_NOTE "%s%u allocations and %u frees from [memory] events "
                      "(%u of them free or allocate again a block the trace did not see allocated: left out of the "
                      "replay); allocated before the profiler started, shown from the start: %u blocks, %"
                      G_GUINT64_FORMAT " bytes; "
                      "the trace has no segments, so each allocation is shown in a segment of its own size "
                      "(reserved memory in the Memory view and in an exported snapshot is the allocated memory, "
                      "not Kineto's Total Reserved)", prefix, im.n_mem_allocs, im.n_mem_frees, im.n_mem_unknown, im.n_mem_before,
                      im.mem_before_bytes);
    if (im.n_cpu_memory > 0 || im.n_oom > 0)
      ts_import_note (ctx, "%sprofiler trace: %u host-memory [memory] events not shown; %u [OutOfMemory] events",
                      prefix, im.n_cpu_memory, im.n_oom);
  }
  ok = TRUE;

out:
  importer_clear (&im);
  return ok;
}

gboolean
ts_kineto_scan_collectives (TsImportContext *ctx,
                            const char      *path,
                            TsRankClock     *clock,
                            gint64          *base_ns,
                            GError         **error)
{
  g_autoptr(TsImportInput) in = ts_import_input_open (path, error);
  Importer im;
  gboolean ok;

  if (in == NULL)
    return FALSE;
  importer_init (&im, ctx, in);
  im.scan_clock = clock;
  ok = read_document (&im, error);
  *base_ns = im.have_base ? im.base_ns : 0;
  ts_rank_clock_set_base (clock, ctx->rank, *base_ns);
  importer_clear (&im);
  return ok;
}

gint
ts_kineto_peek_rank (const char *path)
{
  g_autoptr(TsImportInput) in = ts_import_input_open (path, NULL);
  const char *p, *end, *q;
  gsize n;

  if (in == NULL)
    return -1;
  n = ts_import_input_fill (in, 4u << 20);
  p = g_strstr_len ((const char *) in->data + in->pos, (gssize) n, "\"distributedInfo\"");
  if (p == NULL)
    return -1;
  end = (const char *) in->data + in->pos + n;
  q = g_strstr_len (p, MIN (end - p, 4096), "\"rank\"");
  if (q == NULL)
    return -1;
  q += 6;
  while (q < end && (*q == ' ' || *q == ':' || *q == '\n' || *q == '\t' || *q == '\r'))
    q++;
  if (q < end && g_ascii_isdigit (*q))
    {
      gint64 v = 0;
      while (q < end && g_ascii_isdigit (*q) && v < 1000000)
        v = v * 10 + (*q++ - '0');
      return v < 1000000 ? (gint) v : -1;
    }
  return -1;
}

/* NCCL (and RCCL/HCCL) kernels, named as HTA's is_comm_kernel matches
 * them plus the newer ncclDevKernel_ names. */
gboolean
ts_kernel_name_is_communication (const char *name)
{
  if (name == NULL)
    return FALSE;
  return g_str_has_prefix (name, "nccl") || g_str_has_prefix (name, "hccl") || g_str_has_prefix (name, "rccl") ||
         strstr (name, "ncclKernel") != NULL || strstr (name, "ncclDevKernel") != NULL;
}
