/* ts-trace-import.c: one entry point for every file Tensorscope opens
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ts-import-private.h"
#include "ts-rank-clock.h"
#include "ts-trace-format-private.h"
#include "ts-trace-reader.h"

#define SNIFF_BYTES (64u * 1024)
#define EPOCH_NOTE  CLOCK_NOTE "time 0 is "

gboolean
ts_trace_import_get_epoch (TsRecorder *rec,
                           gint64     *epoch_ns)
{
  g_autoptr(GPtrArray) notes = ts_trace_import_get_notes (rec);

  for (guint i = 0; i < notes->len; i++)
    if (g_str_has_prefix (notes->pdata[i], EPOCH_NOTE))
      {
        *epoch_ns = g_ascii_strtoll ((const char *) notes->pdata[i] + strlen (EPOCH_NOTE), NULL, 10);
        return TRUE;
      }
  return FALSE;
}

static gint
rank_prefix (const char *s,
             const char *prefix)
{
  char *end = NULL;
  gint64 v;

  if (!g_str_has_prefix (s, prefix))
    return -1;
  v = g_ascii_strtoll (s + strlen (prefix), &end, 10);
  return end != s + strlen (prefix) && v >= 0 && v < 1000000 ? (gint) v : -1;
}

gint
ts_trace_import_device_rank (TsRecorder *rec,
                             guint32     device)
{
  gsize n = ts_recorder_get_count (rec, TS_RECORD_DEVICE);

  for (gsize i = 0; i < n; i++)
    {
      TsDeviceRecord d;
      ts_recorder_get (rec, TS_RECORD_DEVICE, i, &d);
      if (d.index == device)
        return rank_prefix (ts_recorder_lookup (rec, d.model), "kineto rank ");
    }
  return -1;
}

gint
ts_trace_import_thread_rank (TsRecorder *rec,
                             guint32     thread)
{
  gsize n = ts_recorder_get_count (rec, TS_RECORD_THREAD);

  for (gsize i = 0; i < n; i++)
    {
      TsThreadRecord t;
      ts_recorder_get (rec, TS_RECORD_THREAD, i, &t);
      if (t.thread == thread)
        return rank_prefix (ts_recorder_lookup (rec, t.name), "rank ");
    }
  return -1;
}

/* id + 1 -> rank + 1, for an id that has a rank. */
static void
insert_rank (GHashTable *map,
             guint32     id,
             gint        rank)
{
  if (rank >= 0)
    g_hash_table_insert (map, GUINT_TO_POINTER (id + 1), GINT_TO_POINTER (rank + 1));
}

void
ts_trace_import_rank_maps (TsRecorder  *rec,
                           GHashTable **device_rank,
                           GHashTable **thread_rank)
{
  *device_rank = g_hash_table_new (NULL, NULL);
  *thread_rank = g_hash_table_new (NULL, NULL);
  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_DEVICE); i++)
    {
      TsDeviceRecord d;

      ts_recorder_get (rec, TS_RECORD_DEVICE, i, &d);
      insert_rank (*device_rank, d.index, ts_trace_import_device_rank (rec, d.index));
    }
  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_THREAD); i++)
    {
      TsThreadRecord t;

      ts_recorder_get (rec, TS_RECORD_THREAD, i, &t);
      insert_rank (*thread_rank, t.thread, ts_trace_import_thread_rank (rec, t.thread));
    }
}

const char *
ts_import_format_name (TsImportFormat format)
{
  switch (format)
    {
    case TS_IMPORT_FORMAT_TENSORSCOPE: return "Tensorscope trace";
    case TS_IMPORT_FORMAT_SNAPSHOT_PICKLE: return "PyTorch memory snapshot (pickle)";
    case TS_IMPORT_FORMAT_SNAPSHOT_JSON: return "PyTorch memory snapshot (JSON)";
    case TS_IMPORT_FORMAT_KINETO_JSON: return "PyTorch profiler trace (Kineto JSON)";
    case TS_IMPORT_FORMAT_RANK_DIRECTORY: return "directory of per-rank traces";
    case TS_IMPORT_FORMAT_UNKNOWN:
    default: return "unknown";
    }
}

void
ts_import_note (TsImportContext *ctx,
                const char      *format,
                ...)
{
  va_list args;
  g_autofree char *text = NULL;
  TsOutputRecord r = { 0 };

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  r.kind = TS_OUTPUT_TOOL;
  r.text = ts_recorder_intern (ctx->rec, text);
  ts_recorder_append (ctx->rec, TS_RECORD_OUTPUT, &r);
}

GPtrArray *
ts_trace_import_get_notes (TsRecorder *rec)
{
  GPtrArray *notes = g_ptr_array_new_with_free_func (g_free);
  gsize n = ts_recorder_get_count (rec, TS_RECORD_OUTPUT);

  for (gsize i = 0; i < n; i++)
    {
      TsOutputRecord r;
      if (ts_recorder_get (rec, TS_RECORD_OUTPUT, i, &r) && r.kind == TS_OUTPUT_TOOL)
        g_ptr_array_add (notes, g_strdup (ts_recorder_lookup (rec, r.text)));
    }
  return notes;
}

static gboolean
contains (const guint8 *data,
          gsize         len,
          const char   *needle)
{
  return g_strstr_len ((const char *) data, (gssize) len, needle) != NULL;
}

static TsImportFormat
sniff (const guint8 *data,
       gsize         len)
{
  gsize i = 0;

  if (len >= TS_TRACE_MAGIC_LEN && memcmp (data, TS_TRACE_MAGIC, TS_TRACE_MAGIC_LEN) == 0)
    return TS_IMPORT_FORMAT_TENSORSCOPE;
  if (len >= 2 && data[0] == 0x80 && data[1] >= 2 && data[1] <= 5)
    return TS_IMPORT_FORMAT_SNAPSHOT_PICKLE;
  if (len >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf)
    i = 3;   /* a UTF-8 byte order mark */
  while (i < len && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t'))
    i++;
  if (i >= len || (data[i] != '{' && data[i] != '['))
    return TS_IMPORT_FORMAT_UNKNOWN;
  if (contains (data, len, "\"traceEvents\"") || contains (data, len, "\"schemaVersion\"") ||
      contains (data, len, "\"deviceProperties\"") || contains (data, len, "\"ph\""))
    return TS_IMPORT_FORMAT_KINETO_JSON;
  if (contains (data, len, "\"segments\"") || contains (data, len, "\"device_traces\"") ||
      contains (data, len, "\"total_size\"") || data[i] == '[')
    return TS_IMPORT_FORMAT_SNAPSHOT_JSON;
  return TS_IMPORT_FORMAT_UNKNOWN;
}

/* gzip'd traces open as they are (the trace reader and the importers
 * inflate them), so each name has its .gz form too. */
const char * const ts_trace_import_patterns[] = {
  "*.tstrace", "*.tstrace.gz", "*.trace", "*.trace.gz", "*.pickle", "*.pickle.gz", "*.pkl",
  "*.json", "*.json.gz", NULL
};

gboolean
ts_trace_import_has_trace_name (const char *name)
{
  g_return_val_if_fail (name != NULL, FALSE);

  for (guint i = 0; ts_trace_import_patterns[i] != NULL; i++)
    if (g_str_has_suffix (name, ts_trace_import_patterns[i] + 1))
      return TRUE;
  return FALSE;
}

TsImportFormat
ts_trace_import_detect (const char  *path,
                        GError     **error)
{
  g_autoptr(TsImportInput) in = NULL;
  gsize n;

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    return TS_IMPORT_FORMAT_RANK_DIRECTORY;
  in = ts_import_input_open (path, error);
  if (in == NULL)
    return TS_IMPORT_FORMAT_UNKNOWN;
  n = ts_import_input_fill (in, SNIFF_BYTES);
  if (ts_import_input_failed (in, error))
    return TS_IMPORT_FORMAT_UNKNOWN;
  if (n == 0)
    {
      g_set_error (error, TS_IMPORT_ERROR, TS_IMPORT_ERROR_FORMAT, "the file is empty");
      return TS_IMPORT_FORMAT_UNKNOWN;
    }
  {
    TsImportFormat f = sniff (in->data + in->pos, n);
    if (f == TS_IMPORT_FORMAT_UNKNOWN)
      g_set_error (error, TS_IMPORT_ERROR, TS_IMPORT_ERROR_FORMAT,
                   "not a trace Tensorscope knows (neither a Tensorscope trace, a PyTorch memory "
                   "snapshot nor a PyTorch profiler trace)");
    return f;
  }
}

static gboolean
import_input (TsImportContext *ctx,
              TsImportFormat   format,
              TsImportInput   *in,
              GError         **error)
{
  switch (format)
    {
    case TS_IMPORT_FORMAT_SNAPSHOT_PICKLE:
      return ts_snapshot_import (ctx, in, TRUE, error);
    case TS_IMPORT_FORMAT_SNAPSHOT_JSON:
      return ts_snapshot_import (ctx, in, FALSE, error);
    case TS_IMPORT_FORMAT_KINETO_JSON:
      return ts_kineto_import (ctx, in, error);
    default:
      g_set_error (error, TS_IMPORT_ERROR, TS_IMPORT_ERROR_FORMAT, "not an importable format");
      return FALSE;
    }
}

static gboolean
import_file (TsImportContext *ctx,
             const char      *path,
             TsImportFormat   format,
             GError         **error)
{
  g_autoptr(TsImportInput) in = NULL;

  if (format == TS_IMPORT_FORMAT_TENSORSCOPE)
    {
      g_autoptr(TsTraceReader) reader = NULL;

      if (ts_recorder_get_n_strings (ctx->rec) > 0 || ts_recorder_get_count (ctx->rec, TS_RECORD_DEVICE) > 0)
        {
          g_set_error (error, TS_IMPORT_ERROR, TS_IMPORT_ERROR_FORMAT,
                       "a Tensorscope trace opens only on its own, not with other files");
          return FALSE;
        }
      reader = ts_trace_reader_new (ctx->rec);
      return ts_trace_reader_load_file (reader, path, error);
    }
  in = ts_import_input_open (path, error);
  if (in == NULL)
    return FALSE;
  return import_input (ctx, format, in, error);
}

static void
context_init (TsImportContext *ctx,
              TsRecorder      *rec)
{
  memset (ctx, 0, sizeof *ctx);
  ctx->rec = rec;
  ctx->rank = -1;
}

/* A rank from a file name: the last number in it ("rank3.json", "trace_07.pt.trace.json"). */
static gint
rank_from_name (const char *name)
{
  gint rank = -1;

  for (const char *p = name; *p; p++)
    if (g_ascii_isdigit (*p) && (p == name || !g_ascii_isdigit (p[-1])))
      {
        gint64 v = g_ascii_strtoll (p, NULL, 10);
        if (v >= 0 && v < 100000)
          rank = (gint) v;
      }
  return rank;
}

typedef struct
{
  char          *path;
  TsImportFormat format;
  gint           rank;
  gint64         shift_ns;   /* added to the rank's times (clock alignment) */
} Member;

static int
cmp_member (gconstpointer a,
            gconstpointer b)
{
  const Member *x = a, *y = b;
  gboolean xs = x->format != TS_IMPORT_FORMAT_KINETO_JSON, ys = y->format != TS_IMPORT_FORMAT_KINETO_JSON;

  /* Profiler traces first (they set the clock), by rank; snapshots after. */
  if (xs != ys)
    return xs - ys;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return strcmp (x->path, y->path);
}

static void
member_clear (gpointer p)
{
  g_free (((Member *) p)->path);
}

/* Says how a rank's clock was corrected (or why it was not); TRUE when
 * its times move. */
static gboolean
note_rank_offset (TsImportContext *ctx,
                  TsRankClock     *clock,
                  const Member    *m)
{
  gint64 offset;
  guint n;
  gint ref = ts_rank_clock_get_reference (clock);

  if (!ts_rank_clock_get_offset (clock, m->rank, &offset, &n))
    {
      ts_import_note (ctx, CLOCK_NOTE "rank %d has fewer than %d collectives in common with the other ranks: "
                      "left on its own clock", m->rank, TS_RANK_CLOCK_MIN_MATCHES);
      return FALSE;
    }
  if (m->rank == ref || ABS (offset) < TS_RANK_CLOCK_THRESHOLD_NS)
    return FALSE;
  ts_import_note (ctx, CLOCK_NOTE "rank %d shifted by %+.3f µs onto rank %d's: its %u collectives matched with "
                  "the other ranks end that much later than theirs (median; NCCL kernels of one "
                  "collective end together); --no-clock-align keeps the times as written",
                  m->rank, -offset / 1000.0, ref, n);
  return TRUE;
}

/* Per-rank traces from several hosts carry several clocks: a pre-pass
 * reads every rank's collectives and base time, and each rank's shift
 * puts it on the lowest rank's clock (ts-rank-clock.h). It reads every
 * file twice; TS_IMPORT_NO_CLOCK_ALIGN skips it. */
static gboolean
align_clocks (TsImportContext *ctx,
              GArray          *members,
              GError         **error)
{
  g_autoptr(TsRankClock) clock = ts_rank_clock_new ();
  g_autoptr(GArray) bases = g_array_new (FALSE, TRUE, sizeof (gint64));
  guint n_shifted = 0, n_ranks = 0, n_checked = 0;
  gint64 first_base = 0;

  g_array_set_size (bases, members->len);
  for (guint i = 0; i < members->len; i++)
    {
      Member *m = &g_array_index (members, Member, i);
      g_autoptr(GError) local = NULL;

      if (m->format != TS_IMPORT_FORMAT_KINETO_JSON)
        continue;
      ctx->rank = m->rank;
      if (!ts_kineto_scan_collectives (ctx, m->path, clock, &g_array_index (bases, gint64, i), &local))
        {
          g_set_error (error, local->domain, local->code, "%s: %s", m->path, local->message);
          return FALSE;
        }
      if (n_ranks++ == 0)
        first_base = g_array_index (bases, gint64, i);
    }
  ts_rank_clock_solve (clock);
  for (guint i = 0; i < members->len; i++)
    {
      Member *m = &g_array_index (members, Member, i);
      gint64 offset;
      guint n;

      if (m->format != TS_IMPORT_FORMAT_KINETO_JSON)
        continue;
      m->shift_ns = g_array_index (bases, gint64, i) - first_base;
      if (m->rank != ts_rank_clock_get_reference (clock) && ts_rank_clock_get_offset (clock, m->rank, &offset, &n))
        n_checked++;
      if (note_rank_offset (ctx, clock, m) && ts_rank_clock_get_offset (clock, m->rank, &offset, &n))
        {
          m->shift_ns -= offset;
          n_shifted++;
        }
    }
  if (n_checked == 0)
    ts_import_note (ctx, CLOCK_NOTE "no two ranks have collectives in common: their clocks could not be "
                    "checked, times are as written");
  else if (n_shifted == 0)
    ts_import_note (ctx, CLOCK_NOTE "the ranks agree: collectives matched across ranks end within %d µs of "
                    "each other, so no rank was shifted", (int) (TS_RANK_CLOCK_THRESHOLD_NS / 1000));
  ctx->clock_aligned = TRUE;
  return TRUE;
}

static gboolean
import_members (TsImportContext *ctx,
                GArray          *members,
                gboolean         group_ranks,
                GError         **error)
{
  guint n_kineto = 0;

  for (guint i = 0; i < members->len; i++)
    {
      Member *m = &g_array_index (members, Member, i);
      if (m->format == TS_IMPORT_FORMAT_TENSORSCOPE && members->len > 1)
        {
          g_set_error (error, TS_IMPORT_ERROR, TS_IMPORT_ERROR_FORMAT,
                       "%s: a Tensorscope trace opens only on its own", m->path);
          return FALSE;
        }
      if (m->format == TS_IMPORT_FORMAT_KINETO_JSON)
        {
          m->rank = ts_kineto_peek_rank (m->path);
          if (m->rank < 0)
            {
              g_autofree char *base = g_path_get_basename (m->path);
              m->rank = rank_from_name (base);
            }
          n_kineto++;
        }
    }
  g_array_sort (members, cmp_member);
  for (guint i = 0; i < members->len; i++)
    {
      Member *m = &g_array_index (members, Member, i);
      if (n_kineto > 0 && (m->format == TS_IMPORT_FORMAT_SNAPSHOT_PICKLE || m->format == TS_IMPORT_FORMAT_SNAPSHOT_JSON))
        {
          ctx->skip_memory_counters = TRUE;
          ts_import_note (ctx, "a memory snapshot and a profiler trace together: memory comes from the snapshot, "
                          "on the profiler's clock");
          break;
        }
    }
  /* Ranks missing from both the file and its name, or repeated: number
   * them in order after the known ones. */
  if (n_kineto > 1)
    {
      g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
      gint next = 0;
      for (guint i = 0; i < members->len; i++)
        {
          Member *m = &g_array_index (members, Member, i);
          if (m->format == TS_IMPORT_FORMAT_KINETO_JSON && m->rank >= 0)
            {
              if (g_hash_table_contains (seen, GINT_TO_POINTER (m->rank + 1)))
                {
                  ts_import_note (ctx, "%s: rank %d appears twice; renumbered", m->path, m->rank);
                  m->rank = -1;
                }
              else
                {
                  g_hash_table_add (seen, GINT_TO_POINTER (m->rank + 1));
                  next = MAX (next, m->rank + 1);
                }
            }
        }
      for (guint i = 0; i < members->len; i++)
        {
          Member *m = &g_array_index (members, Member, i);
          if (m->format == TS_IMPORT_FORMAT_KINETO_JSON && m->rank < 0)
            m->rank = next++;
        }
      g_array_sort (members, cmp_member);
      if (group_ranks && !(ctx->flags & TS_IMPORT_NO_CLOCK_ALIGN) && !align_clocks (ctx, members, error))
        return FALSE;
    }

  for (guint i = 0; i < members->len; i++)
    {
      Member *m = &g_array_index (members, Member, i);
      g_autoptr(GError) local = NULL;

      ctx->rank = (group_ranks && n_kineto > 1 && m->format == TS_IMPORT_FORMAT_KINETO_JSON) ? m->rank : -1;
      ctx->device_base = 0;
      ctx->clock_shift_ns = m->format == TS_IMPORT_FORMAT_KINETO_JSON ? m->shift_ns : 0;
      if (!import_file (ctx, m->path, m->format, &local))
        {
          if (members->len > 1)
            g_set_error (error, local->domain, local->code, "%s: %s", m->path, local->message);
          else
            g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
    }
  ctx->clock_shift_ns = 0;
  if (n_kineto > 1)
    ts_import_note (ctx, "%u ranks", n_kineto);
  if (n_kineto > 1 && !ctx->clock_aligned)
    ts_import_note (ctx, CLOCK_NOTE "alignment on collectives turned off (--no-clock-align): every rank's times "
                    "as written");
  if (ctx->have_epoch)
    {
      g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (ctx->epoch_ns / G_GINT64_CONSTANT (1000000000));
      g_autofree char *when = dt != NULL ? g_date_time_format_iso8601 (dt) : g_strdup ("?");
      ts_import_note (ctx, EPOCH_NOTE "%" G_GINT64_FORMAT " ns since the Unix epoch (%s)", ctx->epoch_ns, when);
    }
  return TRUE;
}

static int
cmp_name (gconstpointer a,
          gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

static gboolean
list_directory (const char  *path,
                GArray      *members,
                GError     **error)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, error);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (dir == NULL)
    return FALSE;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".json") || g_str_has_suffix (name, ".json.gz") ||
        g_str_has_suffix (name, ".pickle") || g_str_has_suffix (name, ".pkl"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, cmp_name);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *full = g_build_filename (path, names->pdata[i], NULL);
      g_autoptr(GError) local = NULL;
      Member m = { 0 };

      if (!g_file_test (full, G_FILE_TEST_IS_REGULAR))
        continue;
      m.format = ts_trace_import_detect (full, &local);
      if (m.format == TS_IMPORT_FORMAT_UNKNOWN || m.format == TS_IMPORT_FORMAT_TENSORSCOPE)
        continue;
      m.path = g_steal_pointer (&full);
      m.rank = -1;
      g_array_append_val (members, m);
    }
  if (members->len == 0)
    {
      g_set_error (error, TS_IMPORT_ERROR, TS_IMPORT_ERROR_FORMAT,
                   "the directory holds no profiler traces or memory snapshots (*.json, *.json.gz, *.pickle)");
      return FALSE;
    }
  return TRUE;
}

gboolean
ts_trace_import_open_many (const char * const *paths,
                           guint               n_paths,
                           TsRecorder         *recorder,
                           GError            **error)
{
  return ts_trace_import_open_with_flags (paths, n_paths, TS_IMPORT_FLAGS_NONE, recorder, error);
}

gboolean
ts_trace_import_open_with_flags (const char * const *paths,
                                 guint               n_paths,
                                 TsImportFlags       flags,
                                 TsRecorder         *recorder,
                                 GError            **error)
{
  g_autoptr(GArray) members = g_array_new (FALSE, TRUE, sizeof (Member));
  TsImportContext ctx;

  g_array_set_clear_func (members, member_clear);
  context_init (&ctx, recorder);
  ctx.flags = flags;
  for (guint i = 0; i < n_paths; i++)
    {
      g_autoptr(GError) local = NULL;
      TsImportFormat f = ts_trace_import_detect (paths[i], &local);

      if (f == TS_IMPORT_FORMAT_UNKNOWN)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      if (f == TS_IMPORT_FORMAT_RANK_DIRECTORY)
        {
          if (!list_directory (paths[i], members, error))
            return FALSE;
        }
      else
        {
          Member m = { g_strdup (paths[i]), f, -1, 0 };
          g_array_append_val (members, m);
        }
    }
  return import_members (&ctx, members, TRUE, error);
}

gboolean
ts_trace_import_open (const char  *path,
                      TsRecorder  *recorder,
                      GError     **error)
{
  const char *paths[] = { path };

  return ts_trace_import_open_many (paths, 1, recorder, error);
}

gboolean
ts_trace_import_bytes (TsImportFormat  format,
                       const guint8   *data,
                       gsize           len,
                       TsRecorder     *recorder,
                       GError        **error)
{
  g_autoptr(TsImportInput) in = ts_import_input_new_bytes (data, len);
  TsImportContext ctx;

  context_init (&ctx, recorder);
  return import_input (&ctx, format, in, error);
}
