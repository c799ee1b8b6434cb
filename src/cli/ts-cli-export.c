/* ts-cli-export.c: `tensorscope-cli export TRACE --format chrome -o OUT.json`
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Chrome Trace Event JSON, as Perfetto and chrome://tracing import it:
 * process "Host" (pid 0) with one thread per host thread and per NVTX
 * track, one process per device (pid device + 1) with one thread per
 * stream (tid = stream id) and a "Memory" counter; "X" complete events,
 * "M" names and sort order, "s"/"f" flows (bp "e") from each API call to
 * the work it launched (cat "ac2g", id the correlation, as Kineto writes
 * them) and from each event record to its waits (cat "event").
 *
 * The writer streams: a 10-million-record trace would be a DOM of tens of
 * millions of JsonNodes (gigabytes) with JsonBuilder, while here memory
 * stays flat and output runs at buffered-stdio speed. Strings are escaped
 * as json-glib's generator does: quote, backslash and every control
 * character (U+0000-U+001F as \b \f \n \r \t or \u00XX), plus U+007F;
 * invalid UTF-8 from a hostile trace is replaced first, so the output is
 * always valid JSON. Times are µs with three decimals: exact nanoseconds.
 */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "ts-cli-private.h"
#include "ts-snapshot-export.h"
#include "ts-trace-import.h"

#define HOST_PID        0
#define NVTX_TID_BASE   1000000u   /* NVTX tracks sit beside their thread's API track */
#define STREAM_TID_BASE 2000000u   /* a rank's streams, beside its host threads */
#define EVENT_FLOW_BASE (G_GUINT64_CONSTANT (1) << 48)

typedef struct
{
  FILE       *out;
  TsRecorder *rec;
  gboolean    first;
  /* Several ranks (an imported directory): each rank is one process,
   * pid rank + 1, holding its host threads and its GPU streams. */
  gboolean    by_rank;
  GHashTable *device_rank;   /* device + 1 -> rank + 1 */
  GHashTable *thread_rank;   /* thread + 1 -> rank + 1 */
} Writer;

static Writer *the_writer;   /* for track_pid/track_tid, which have no writer argument */

static gint
lookup_rank (GHashTable *map,
             guint32     key)
{
  gpointer v = map != NULL ? g_hash_table_lookup (map, GUINT_TO_POINTER (key + 1)) : NULL;
  return v != NULL ? GPOINTER_TO_INT (v) - 1 : -1;
}

static void
write_string (Writer     *w,
              const char *s)
{
  g_autofree char *valid = NULL;
  FILE *out = w->out;

  if (!g_utf8_validate (s, -1, NULL))
    s = valid = g_utf8_make_valid (s, -1);

  putc ('"', out);
  for (const guchar *p = (const guchar *) s; *p; p++)
    {
      switch (*p)
        {
        case '"': fputs ("\\\"", out); break;
        case '\\': fputs ("\\\\", out); break;
        case '\b': fputs ("\\b", out); break;
        case '\f': fputs ("\\f", out); break;
        case '\n': fputs ("\\n", out); break;
        case '\r': fputs ("\\r", out); break;
        case '\t': fputs ("\\t", out); break;
        default:
          if (*p < 0x20 || *p == 0x7f)
            fprintf (out, "\\u%04x", *p);
          else
            putc (*p, out);
        }
    }
  putc ('"', out);
}

/* µs with exact ns: 1234567 ns → 1234.567 */
static void
write_time (Writer *w,
            TsTime  t)
{
  guint64 a = t < 0 ? (guint64) -(t + 1) + 1 : (guint64) t;

  fprintf (w->out, "%s%" G_GUINT64_FORMAT ".%03u", t < 0 ? "-" : "", a / 1000, (guint) (a % 1000));
}

static void
begin_event (Writer     *w,
             const char *ph,
             guint       pid,
             guint64     tid)
{
  fputs (w->first ? "\n" : ",\n", w->out);
  w->first = FALSE;
  fprintf (w->out, "{\"ph\":\"%s\",\"pid\":%u,\"tid\":%" G_GUINT64_FORMAT, ph, pid, tid);
}

static void
write_metadata (Writer     *w,
                const char *name,
                guint       pid,
                guint64     tid,
                const char *value,
                gint64      sort_index)
{
  begin_event (w, "M", pid, tid);
  fprintf (w->out, ",\"name\":\"%s\",\"args\":{", name);
  if (value != NULL)
    {
      fputs ("\"name\":", w->out);
      write_string (w, value);
    }
  else
    fprintf (w->out, "\"sort_index\":%" G_GINT64_FORMAT, sort_index);
  fputs ("}}", w->out);
}

static guint
track_pid (const TsTrack *t)
{
  if (the_writer != NULL && the_writer->by_rank)
    {
      gint rank = t->device >= 0 ? lookup_rank (the_writer->device_rank, (guint32) t->device)
                                 : lookup_rank (the_writer->thread_rank, t->thread);
      if (rank >= 0)
        return (guint) rank + 1;
    }
  return t->device < 0 ? HOST_PID : (guint) t->device + 1;
}

static guint64
track_tid (const TsTrack *t)
{
  switch (t->kind)
    {
    case TS_TRACK_STREAM:
      return the_writer != NULL && the_writer->by_rank ? STREAM_TID_BASE + t->stream : t->stream;
    case TS_TRACK_NVTX: return NVTX_TID_BASE + t->thread;
    case TS_TRACK_MEMORY: return 0;
    case TS_TRACK_HOST_THREAD:
    default: return t->thread;
    }
}

static void
write_names (Writer          *w,
             TsTraceDocument *doc)
{
  gsize n_devices = ts_recorder_get_count (w->rec, TS_RECORD_DEVICE);
  guint n = ts_trace_document_get_n_tracks (doc);
  g_autoptr(GHashTable) named = g_hash_table_new (NULL, NULL);

  write_metadata (w, "process_name", HOST_PID, 0, "Host", 0);
  write_metadata (w, "process_sort_index", HOST_PID, 0, NULL, 0);
  if (w->by_rank)
    {
      GHashTableIter it;
      gpointer v;
      g_autoptr(GHashTable) ranks = g_hash_table_new (NULL, NULL);
      g_hash_table_iter_init (&it, w->device_rank);
      while (g_hash_table_iter_next (&it, NULL, &v))
        g_hash_table_add (ranks, v);
      g_hash_table_iter_init (&it, w->thread_rank);
      while (g_hash_table_iter_next (&it, NULL, &v))
        g_hash_table_add (ranks, v);
      g_hash_table_iter_init (&it, ranks);
      while (g_hash_table_iter_next (&it, &v, NULL))
        {
          gint rank = GPOINTER_TO_INT (v) - 1;
          g_autofree char *name = g_strdup_printf ("rank %d", rank);
          write_metadata (w, "process_name", (guint) rank + 1, 0, name, 0);
          write_metadata (w, "process_sort_index", (guint) rank + 1, 0, NULL, rank + 1);
          g_hash_table_add (named, GUINT_TO_POINTER ((guint) rank + 1));
        }
    }
  for (gsize i = 0; i < n_devices && !w->by_rank; i++)
    {
      TsDeviceRecord d;
      g_autofree char *name = NULL;

      ts_recorder_get (w->rec, TS_RECORD_DEVICE, i, &d);
      name = g_strdup_printf ("cuda:%u %s", d.index, ts_recorder_lookup (w->rec, d.name));
      write_metadata (w, "process_name", d.index + 1, 0, name, 0);
      write_metadata (w, "process_sort_index", d.index + 1, 0, NULL, d.index + 1);
      g_hash_table_add (named, GUINT_TO_POINTER (d.index + 1));
    }

  for (guint i = 0; i < n; i++)
    {
      const TsTrack *t = ts_trace_document_get_track (doc, i);
      guint pid = track_pid (t);

      /* Devices with work but no device record still get a name. */
      if (pid != HOST_PID && !g_hash_table_contains (named, GUINT_TO_POINTER (pid)))
        {
          g_autofree char *name = g_strdup_printf ("cuda:%d", t->device);
          write_metadata (w, "process_name", pid, 0, name, 0);
          write_metadata (w, "process_sort_index", pid, 0, NULL, pid);
          g_hash_table_add (named, GUINT_TO_POINTER (pid));
        }
      if (t->kind == TS_TRACK_MEMORY)
        continue;
      write_metadata (w, "thread_name", pid, track_tid (t), t->title, 0);
      write_metadata (w, "thread_sort_index", pid, track_tid (t), NULL, i);
    }
}

static void
write_item_args (Writer        *w,
                 const TsTrack *t,
                 guint          i)
{
  FILE *out = w->out;

  switch ((TsItemKind) t->kinds[i])
    {
    case TS_ITEM_KERNEL:
      {
        TsKernelRecord r;
        ts_recorder_get (w->rec, TS_RECORD_KERNEL, t->records[i], &r);
        fprintf (out, ",\"args\":{\"correlation\":%" G_GUINT64_FORMAT ",\"device\":%u,\"stream\":%u,"
                 "\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],\"sms\":%u}",
                 r.correlation, r.device, r.stream, r.grid[0], r.grid[1], r.grid[2],
                 r.block[0], r.block[1], r.block[2], r.sms);
      }
      break;
    case TS_ITEM_MEMCPY:
      {
        TsMemcpyRecord r;
        ts_recorder_get (w->rec, TS_RECORD_MEMCPY, t->records[i], &r);
        fprintf (out, ",\"args\":{\"correlation\":%" G_GUINT64_FORMAT ",\"bytes\":%" G_GUINT64_FORMAT
                 ",\"pinned\":%s,\"src_device\":%d,\"dst_device\":%d}",
                 r.correlation, r.bytes, (r.flags & TS_COPY_FLAG_PINNED) ? "true" : "false",
                 r.src_device, r.dst_device);
      }
      break;
    case TS_ITEM_MEMSET:
      {
        TsMemsetRecord r;
        ts_recorder_get (w->rec, TS_RECORD_MEMSET, t->records[i], &r);
        fprintf (out, ",\"args\":{\"correlation\":%" G_GUINT64_FORMAT ",\"bytes\":%" G_GUINT64_FORMAT "}",
                 r.correlation, r.bytes);
      }
      break;
    case TS_ITEM_API_CALL:
      {
        TsApiCallRecord r;
        ts_recorder_get (w->rec, TS_RECORD_API_CALL, t->records[i], &r);
        fprintf (out, ",\"args\":{\"correlation\":%" G_GUINT64_FORMAT, r.correlation);
        if (r.loc.file != 0)
          {
            fputs (",\"file\":", out);
            write_string (w, ts_recorder_lookup (w->rec, r.loc.file));
            fprintf (out, ",\"line\":%u", r.loc.line);
          }
        fputs ("}", out);
      }
      break;
    case TS_ITEM_SYNC:
    case TS_ITEM_NVTX_RANGE:
    case TS_ITEM_NVTX_MARK:
    default:
      break;
    }
}

static const char *
item_category (guint8 kind)
{
  switch ((TsItemKind) kind)
    {
    case TS_ITEM_KERNEL: return "kernel";
    case TS_ITEM_MEMCPY: return "gpu_memcpy";
    case TS_ITEM_MEMSET: return "gpu_memset";
    case TS_ITEM_API_CALL: return "cuda_runtime";
    case TS_ITEM_SYNC: return "sync";
    case TS_ITEM_NVTX_RANGE:
    case TS_ITEM_NVTX_MARK: return "nvtx";
    default: return "other";
    }
}

static void
write_items (Writer          *w,
             TsTraceDocument *doc)
{
  guint n = ts_trace_document_get_n_tracks (doc);

  for (guint ti = 0; ti < n; ti++)
    {
      const TsTrack *t = ts_trace_document_get_track (doc, ti);
      guint pid = track_pid (t);
      guint64 tid = track_tid (t);

      for (guint i = 0; i < t->n_items; i++)
        {
          gboolean mark = t->kinds[i] == TS_ITEM_NVTX_MARK;

          begin_event (w, mark ? "i" : "X", pid, tid);
          fputs (",\"name\":", w->out);
          write_string (w, t->kinds[i] == TS_ITEM_SYNC ? "Blocked (synchronize)"
                                                      : ts_recorder_lookup (w->rec, t->labels[i]));
          fprintf (w->out, ",\"cat\":\"%s\",\"ts\":", item_category (t->kinds[i]));
          write_time (w, t->starts[i]);
          if (mark)
            fputs (",\"s\":\"t\"", w->out);
          else
            {
              fputs (",\"dur\":", w->out);
              write_time (w, t->ends[i] - t->starts[i]);
            }
          write_item_args (w, t, i);
          fputs ("}", w->out);
        }
    }
}

static void
write_flow (Writer     *w,
            const char *ph,
            const char *cat,
            guint64     id,
            guint       pid,
            guint64     tid,
            TsTime      ts)
{
  begin_event (w, ph, pid, tid);
  fprintf (w->out, ",\"name\":\"%s\",\"cat\":\"%s\",\"id\":%" G_GUINT64_FORMAT ",\"ts\":", cat, cat, id);
  write_time (w, ts);
  if (ph[0] == 'f')
    fputs (",\"bp\":\"e\"", w->out);
  fputs ("}", w->out);
}

/* API call → kernel/copy/memset, bound to the slices at their starts. */
static void
write_launch_flows (Writer          *w,
                    TsTraceDocument *doc)
{
  gsize n = ts_recorder_get_count (w->rec, TS_RECORD_API_CALL);

  for (gsize i = 0; i < n; i++)
    {
      TsApiCallRecord api;
      TsItemKind kind;
      guint32 record;
      guint track, item;
      const TsTrack *t;

      ts_recorder_get (w->rec, TS_RECORD_API_CALL, i, &api);
      if (api.correlation == 0 ||
          !ts_trace_document_find_device_work (doc, api.correlation, &kind, &record) ||
          !ts_trace_document_locate_item (doc, kind, record, &track, &item))
        continue;
      t = ts_trace_document_get_track (doc, track);
      write_flow (w, "s", "ac2g", api.correlation,
                  w->by_rank && lookup_rank (w->thread_rank, api.thread) >= 0
                    ? (guint) lookup_rank (w->thread_rank, api.thread) + 1 : HOST_PID,
                  api.thread, api.start);
      write_flow (w, "f", "ac2g", api.correlation, track_pid (t), track_tid (t), t->starts[item]);
    }
}

/* Event record → wait. The record and the wait are instants on their
 * streams, often between slices, so each gets a zero-length slice to bind
 * its end of the flow to. */
static void
write_event_flows (Writer          *w,
                   TsTraceDocument *doc)
{
  const TsEventLink *links;
  guint n_links;

  links = ts_trace_document_get_event_links (doc, &n_links);
  for (guint i = 0; i < n_links; i++)
    {
      TsEventRecordRecord r;
      TsEventWaitRecord wt;
      guint64 id = EVENT_FLOW_BASE + i;

      ts_recorder_get (w->rec, TS_RECORD_EVENT_RECORD, links[i].from_record, &r);
      ts_recorder_get (w->rec, TS_RECORD_EVENT_WAIT, links[i].to_record, &wt);

      begin_event (w, "X", r.device + 1, r.stream);
      fprintf (w->out, ",\"name\":\"cudaEventRecord\",\"cat\":\"event\",\"dur\":0,"
               "\"args\":{\"event\":%" G_GUINT64_FORMAT "},\"ts\":", r.event);
      write_time (w, r.time);
      fputs ("}", w->out);
      begin_event (w, "X", wt.device + 1, wt.stream);
      fprintf (w->out, ",\"name\":\"cudaStreamWaitEvent\",\"cat\":\"event\",\"dur\":0,"
               "\"args\":{\"event\":%" G_GUINT64_FORMAT "},\"ts\":", wt.event);
      write_time (w, wt.time);
      fputs ("}", w->out);

      write_flow (w, "s", "event", id, r.device + 1, r.stream, r.time);
      write_flow (w, "f", "event", id, wt.device + 1, wt.stream, wt.time);
    }
}

static void
write_counters (Writer          *w,
                TsTraceDocument *doc)
{
  guint n = ts_trace_document_get_n_tracks (doc);

  for (guint ti = 0; ti < n; ti++)
    {
      const TsTrack *t = ts_trace_document_get_track (doc, ti);

      for (guint s = 0; s < t->n_samples; s++)
        {
          begin_event (w, "C", track_pid (t), 0);
          fputs (",\"name\":\"Memory\",\"ts\":", w->out);
          write_time (w, t->sample_times[s]);
          fprintf (w->out, ",\"args\":{\"allocated\":%" G_GINT64_FORMAT ",\"reserved\":%" G_GINT64_FORMAT "}}",
                   t->allocated[s], t->reserved[s]);
        }
    }
}

static int finish_output (Writer     *wp,
                          const char *output,
                          const char *tmp_path,
                          gboolean    to_stdout);

/* A profiler trace's [memory] events have no segments: say that the
 * snapshot's segments are made up (one per allocation). */
static void
warn_synthetic_segments (TsRecorder *rec,
                         const char *path)
{
  g_autoptr(GPtrArray) notes = ts_trace_import_get_notes (rec);

  for (guint i = 0; i < notes->len; i++)
    if (g_str_has_prefix (notes->pdata[i], TS_IMPORT_SYNTHETIC_SEGMENTS_NOTE))
      {
        ts_cli_message ("export: warning: %s: a profiler trace has no segments: the allocations and frees of its "
                        "[memory] events (addresses, sizes, times) are written each in a segment of its own size",
                        path);
        return;
      }
}

int
ts_cli_export_main (int    argc,
                    char **argv)
{
  g_autofree char *format = NULL;
  g_autofree char *output = NULL;
  const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format,
      "Output format: chrome (the default) or memory-snapshot (a PyTorch snapshot pickle)", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE ('-' for stdout)", "FILE" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("TRACE");
  g_autoptr(TsTraceDocument) doc = NULL;
  g_autofree char *tmp_path = NULL;
  TsCliLoadInfo info = { 0 };
  Writer w = { 0 };
  gboolean to_stdout;
  int saved_errno;

  g_option_context_set_summary (context, "Convert a trace to Chrome Trace Event JSON (opens in Perfetto).");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!ts_cli_parse_trace_args (context, "export", &argc, &argv))
    return 2;
  if (format != NULL && !g_str_equal (format, "chrome") && !g_str_equal (format, "memory-snapshot"))
    {
      ts_cli_message ("export: unknown format '%s' (chrome or memory-snapshot)", format);
      return 2;
    }
  if (output == NULL)
    {
      ts_cli_message ("export: no output file given (use -o OUT.json)");
      return 2;
    }

  doc = ts_cli_open_trace (argv[1], &info);
  if (doc == NULL)
    return 1;

  /* Write next to the target and rename at the end, so a failed export
   * never leaves a half-written file under the real name. */
  to_stdout = g_str_equal (output, "-");
  if (to_stdout)
    w.out = stdout;
  else
    {
      tmp_path = g_strdup_printf ("%s.tmp-%d", output, (int) getpid ());
      w.out = fopen (tmp_path, "w");
      if (w.out == NULL)
        {
          saved_errno = errno;
          ts_cli_message ("export: cannot write %s: %s", output, g_strerror (saved_errno));
          return 1;
        }
    }
  setvbuf (w.out, NULL, _IOFBF, 1 << 20);
  w.rec = ts_trace_document_get_recorder (doc);
  w.first = TRUE;

  if (format != NULL && g_str_equal (format, "memory-snapshot"))
    {
      g_autoptr(GError) error = NULL;
      warn_synthetic_segments (w.rec, argv[1]);
      if (ts_memory_snapshot_write_pickle (w.rec, w.out, &error) < 0)
        {
          ts_cli_message ("export: %s: %s", argv[1], error->message);
          if (!to_stdout)
            {
              fclose (w.out);
              g_unlink (tmp_path);
            }
          return 1;
        }
      return finish_output (&w, output, tmp_path, to_stdout);
    }

  /* Ranks of an imported directory. */
  ts_trace_import_rank_maps (w.rec, &w.device_rank, &w.thread_rank);
  w.by_rank = g_hash_table_size (w.device_rank) + g_hash_table_size (w.thread_rank) > 0;
  the_writer = &w;

  fputs ("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"tensorscope " PACKAGE_VERSION "\"", w.out);
  fprintf (w.out, ",\"cut_short\":%s},\"traceEvents\":[", info.cut_short ? "true" : "false");
  write_names (&w, doc);
  write_items (&w, doc);
  write_launch_flows (&w, doc);
  write_event_flows (&w, doc);
  write_counters (&w, doc);
  fputs ("\n]}\n", w.out);
  the_writer = NULL;
  g_hash_table_unref (w.device_rank);
  g_hash_table_unref (w.thread_rank);
  return finish_output (&w, output, tmp_path, to_stdout);
}

static int
finish_output (Writer     *wp,
               const char *output,
               const char *tmp_path,
               gboolean    to_stdout)
{
  Writer w = *wp;
  int saved_errno;

  if (fflush (w.out) != 0 || ferror (w.out) || (!to_stdout && fclose (w.out) != 0))
    {
      saved_errno = errno;
      ts_cli_message ("export: cannot write %s: %s", output, g_strerror (saved_errno));
      if (tmp_path != NULL)
        g_unlink (tmp_path);
      return 1;
    }
  if (tmp_path != NULL && g_rename (tmp_path, output) != 0)
    {
      saved_errno = errno;
      ts_cli_message ("export: cannot write %s: %s", output, g_strerror (saved_errno));
      g_unlink (tmp_path);
      return 1;
    }
  return 0;
}
