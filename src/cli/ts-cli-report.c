/* ts-cli-report.c: `tensorscope-cli report TRACE`
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tables in the spirit of `nsys stats` (cuda_gpu_kern_sum, cuda_api_sum,
 * cuda_gpu_mem_size_sum, nvtx_sum), plus stream busy time, overlap between
 * the streams of a device and peak memory. Times are printed in ns, as
 * nsys does, so columns sort and compare as integers; --format csv prints
 * the same tables as CSV, each after a "# Title" line and a blank line
 * between them (or one table alone with --table).
 */

#include "config.h"

#include <string.h>

#include "ts-cli-private.h"
#include "ts-rank-stats.h"
#include "ts-trace-import.h"
#include "ts-trace-stats.h"

typedef struct
{
  gboolean    csv;
  const char *only;
  gboolean    first;
  GPtrArray  *rows;           /* of GStrv; rows[0] is the header */
  const char *title;
} Table;

static void
table_begin (Table      *t,
             const char *title,
             const char *const *header)
{
  t->title = title;
  t->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_ptr_array_add (t->rows, g_strdupv ((char **) header));
}

static void
table_row (Table *t,
           ...)
{
  GPtrArray *cells = g_ptr_array_new ();
  va_list args;
  const char *cell;

  va_start (args, t);
  while ((cell = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (cells, g_strdup (cell));
  va_end (args);
  g_ptr_array_add (cells, NULL);
  g_ptr_array_add (t->rows, g_ptr_array_free (cells, FALSE));
}

static void
csv_cell (const char *s)
{
  if (strpbrk (s, ",\"\n\r") == NULL)
    {
      fputs (s, stdout);
      return;
    }
  putchar ('"');
  for (; *s; s++)
    {
      if (*s == '"')
        putchar ('"');
      putchar (*s);
    }
  putchar ('"');
}

/* Names can hold anything a script wrote; keep the table to one line a row. */
static char *
printable (const char *s)
{
  g_autofree char *valid = g_utf8_make_valid (s, -1);
  GString *out = g_string_new (NULL);

  for (const char *p = valid; *p; p++)
    g_string_append_c (out, (guchar) *p < 0x20 || *p == 0x7f ? ' ' : *p);
  return g_string_free (out, FALSE);
}

static void
table_end (Table *t)
{
  guint n_cols = g_strv_length (g_ptr_array_index (t->rows, 0));
  g_autofree guint *width = g_new0 (guint, n_cols);

  if (t->only != NULL && g_ascii_strcasecmp (t->only, t->title) != 0)
    goto out;

  if (!t->first && t->only == NULL)
    putchar ('\n');
  t->first = FALSE;

  if (t->csv)
    {
      if (t->only == NULL)
        printf ("# %s\n", t->title);
      for (guint r = 0; r < t->rows->len; r++)
        {
          char **row = g_ptr_array_index (t->rows, r);
          for (guint c = 0; c < n_cols; c++)
            {
              if (c > 0)
                putchar (',');
              csv_cell (row[c]);
            }
          putchar ('\n');
        }
      goto out;
    }

  for (guint r = 0; r < t->rows->len; r++)
    {
      char **row = g_ptr_array_index (t->rows, r);
      for (guint c = 0; c < n_cols; c++)
        width[c] = MAX (width[c], (guint) g_utf8_strlen (row[c], -1));
    }
  printf ("%s\n\n", t->title);
  for (guint r = 0; r < t->rows->len; r++)
    {
      char **row = g_ptr_array_index (t->rows, r);
      for (guint c = 0; c < n_cols; c++)
        {
          guint pad = width[c] - g_utf8_strlen (row[c], -1);
          /* Numbers right-aligned, the last (name) column left-aligned. */
          if (c + 1 < n_cols)
            printf ("%*s%s  ", pad, "", row[c]);
          else
            printf ("%s", row[c]);
        }
      putchar ('\n');
      if (r == 0)
        {
          for (guint c = 0; c < n_cols; c++)
            {
              for (guint k = 0; k < width[c]; k++)
                putchar ('-');
              if (c + 1 < n_cols)
                fputs ("  ", stdout);
            }
          putchar ('\n');
        }
    }
  if (t->rows->len == 1)
    printf ("(none)\n");

out:
  g_clear_pointer (&t->rows, g_ptr_array_unref);
}

#define FMT_I64(buf, v) (g_snprintf ((buf), sizeof (buf), "%" G_GINT64_FORMAT, (gint64) (v)), (buf))
#define FMT_U64(buf, v) (g_snprintf ((buf), sizeof (buf), "%" G_GUINT64_FORMAT, (guint64) (v)), (buf))
#define FMT_F(buf, v)   (g_snprintf ((buf), sizeof (buf), "%.1f", (double) (v)), (buf))

static void
name_table (Table        *t,
            TsRecorder   *rec,
            const char   *title,
            GArray       *names,
            TsTime        base)
{
  static const char * const header[] = { "Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Min (ns)", "Max (ns)", "Name", NULL };

  table_begin (t, title, header);
  for (guint i = 0; i < names->len; i++)
    {
      const TsNameStats *s = &g_array_index (names, TsNameStats, i);
      char pct[32], total[32], count[32], avg[32], min[32], max[32];
      g_autofree char *name = printable (ts_recorder_lookup (rec, s->name));

      table_row (t, FMT_F (pct, base > 0 ? 100.0 * s->total / base : 0), FMT_I64 (total, s->total),
                 FMT_U64 (count, s->count), FMT_F (avg, (double) s->total / s->count),
                 FMT_I64 (min, s->min), FMT_I64 (max, s->max), name, NULL);
    }
  table_end (t);
}

static TsTime
names_total (GArray *names)
{
  TsTime total = 0;

  for (guint i = 0; i < names->len; i++)
    total += g_array_index (names, TsNameStats, i).total;
  return total;
}

static const char *
copy_kind_name (guint32 kind)
{
  switch (kind)
    {
    case TS_COPY_HOST_TO_DEVICE: return "[CUDA memcpy Host-to-Device]";
    case TS_COPY_DEVICE_TO_HOST: return "[CUDA memcpy Device-to-Host]";
    case TS_COPY_DEVICE_TO_DEVICE: return "[CUDA memcpy Device-to-Device]";
    case TS_COPY_PEER: return "[CUDA memcpy Peer-to-Peer]";
    case TS_COPY_HOST_TO_HOST: return "[CUDA memcpy Host-to-Host]";
    case 0: return "[CUDA memset]";
    default: return "[CUDA memcpy]";
    }
}

static void
copy_row (Table             *t,
          const TsCopyStats *c)
{
  char count[32], bytes[32], total[32], rate[32];
  double gbps = c->total > 0 ? (double) c->bytes / (double) c->total : 0;   /* bytes/ns = GB/s */

  table_row (t, FMT_U64 (count, c->count), FMT_U64 (bytes, c->bytes), FMT_I64 (total, c->total),
             (g_snprintf (rate, sizeof rate, "%.3f", gbps), rate), copy_kind_name (c->kind), NULL);
}

static void
stream_tables (Table           *t,
               TsTraceDocument *doc,
               TsTraceStats    *s)
{
  static const char * const busy_header[] = { "Busy (%)", "Busy (ns)", "Items", "Device", "Stream", NULL };
  static const char * const overlap_header[] = { "Overlap (%)", "Overlap (ns)", "Device", "Streams", NULL };
  TsTime span = MAX (1, s->end - s->begin);

  table_begin (t, "Stream busy time", busy_header);
  for (guint i = 0; i < s->streams->len; i++)
    {
      const TsStreamStats *st = &g_array_index (s->streams, TsStreamStats, i);
      const TsTrack *track = ts_trace_document_get_track (doc, st->track);
      char pct[32], busy[32], items[32], dev[32];

      g_snprintf (dev, sizeof dev, "cuda:%d", st->device);
      table_row (t, FMT_F (pct, 100.0 * st->busy / span), FMT_I64 (busy, st->busy),
                 FMT_U64 (items, st->n_items), dev, track->title, NULL);
    }
  table_end (t);

  /* Overlap as a share of the less busy stream: 100% means it never ran
   * alone. */
  table_begin (t, "Stream overlap", overlap_header);
  for (guint i = 0; i < s->overlaps->len; i++)
    {
      const TsStreamOverlap *o = &g_array_index (s->overlaps, TsStreamOverlap, i);
      const TsStreamStats *a = &g_array_index (s->streams, TsStreamStats, o->a);
      const TsStreamStats *b = &g_array_index (s->streams, TsStreamStats, o->b);
      TsTime less = MAX (1, MIN (a->busy, b->busy));
      char pct[32], ns[32], dev[32];
      g_autofree char *pair = g_strdup_printf ("%s ↔ %s",
                                               ts_trace_document_get_track (doc, a->track)->title,
                                               ts_trace_document_get_track (doc, b->track)->title);

      g_snprintf (dev, sizeof dev, "cuda:%d", a->device);
      table_row (t, FMT_F (pct, 100.0 * o->overlap / less), FMT_I64 (ns, o->overlap), dev, pair, NULL);
    }
  table_end (t);
}

static void
memory_table (Table        *t,
              TsTraceStats *s)
{
  static const char * const header[] = { "Peak allocated (B)", "At (ns)", "Peak reserved (B)", "Device", NULL };

  table_begin (t, "Peak memory", header);
  for (guint i = 0; i < s->memory->len; i++)
    {
      const TsMemoryPeak *m = &g_array_index (s->memory, TsMemoryPeak, i);
      char alloc[32], at[32], res[32], dev[32];

      g_snprintf (dev, sizeof dev, "cuda:%d", m->device);
      table_row (t, FMT_I64 (alloc, m->peak_allocated), FMT_I64 (at, m->peak_allocated_time),
                 FMT_I64 (res, m->peak_reserved), dev, NULL);
    }
  table_end (t);
}

/* How the ranks' clocks were put together (shifted from matched
 * collectives, or why not): the figures below depend on it. */
static void
clock_table (Table      *t,
             TsRecorder *rec)
{
  static const char * const header[] = { "Clock", NULL };
  g_autoptr(GPtrArray) notes = ts_trace_import_get_notes (rec);

  table_begin (t, "Rank clocks", header);
  for (guint i = 0; i < notes->len; i++)
    if (g_str_has_prefix (notes->pdata[i], TS_IMPORT_CLOCK_NOTE))
      table_row (t, (const char *) notes->pdata[i] + strlen (TS_IMPORT_CLOCK_NOTE), NULL);
  table_end (t);
}

/* "write by `normal_` on the default stream at stream_race.py:20" */
static char *
hazard_side (TsRecorder         *rec,
             const TsHazardSide *side)
{
  const char *op = side->op != 0 ? ts_recorder_lookup (rec, side->op) : NULL;
  const char *file = side->loc.file != 0 ? ts_recorder_lookup (rec, side->loc.file) : NULL;
  g_autofree char *base = file != NULL ? g_path_get_basename (file) : NULL;
  g_autofree char *where = base != NULL ? g_strdup_printf (" at %s:%u", base, side->loc.line) : g_strdup ("");

  return g_strdup_printf ("%s by %s on stream %u%s", side->is_write ? "write" : "read",
                          op != NULL ? op : side->kind == TS_RECORD_MEMCPY ? "a copy" : "a kernel",
                          side->stream, where);
}

/* Unordered cross-stream accesses, from the trace's access records: what
 * `run --sanitize` reports, for any trace. */
static void
hazard_table (Table           *t,
              TsTraceDocument *doc)
{
  static const char * const header[] = { "Time (ns)", "Kind", "Access", "Unordered with", "Address",
                                         "Size (B)", "Explanation", NULL };
  TsRecorder *rec = ts_trace_document_get_recorder (doc);
  const TsHazard *hazards;
  guint n;

  hazards = ts_trace_document_get_hazards (doc, &n);
  table_begin (t, "Stream hazards", header);
  for (guint i = 0; i < n; i++)
    {
      const TsHazard *h = &hazards[i];
      g_autofree char *cur = hazard_side (rec, &h->current);
      g_autofree char *prev = hazard_side (rec, &h->previous);
      g_autofree char *why = ts_hazard_explain (h, rec);
      char time[32], addr[32], size[32];

      g_snprintf (addr, sizeof addr, "0x%" G_GINT64_MODIFIER "x", h->addr);
      table_row (t, FMT_I64 (time, h->time), h->kind == TS_HAZARD_REUSE ? "reuse" : "race", cur, prev,
                 addr, FMT_I64 (size, (gint64) h->size), why, NULL);
    }
  table_end (t);
}

/* A directory of per-rank traces: step times, compute/communication
 * overlap, idle time per rank, and the slowest rank of each step. */
static void
rank_tables (Table      *t,
             TsRecorder *rec)
{
  static const char * const header[] = { "Rank", "Steps", "Mean step (ns)", "Max step (ns)", "GPU busy (ns)",
                                          "Compute (ns)", "Communication (ns)", "Comm overlapped (%)",
                                          "Idle (ns)", "Idle (%)", NULL };
  static const char * const step_header[] = { "Step", "Slowest rank", "Time (ns)", "Fastest rank", "Time (ns)",
                                               "Spread (%)", NULL };
  g_autoptr(GArray) ranks = NULL;
  g_autoptr(GArray) steps = NULL;

  if (!ts_rank_stats_compute (rec, &ranks, &steps))
    return;
  table_begin (t, "Per-rank comparison", header);
  for (guint i = 0; i < ranks->len; i++)
    {
      const TsRankStats *r = &g_array_index (ranks, TsRankStats, i);
      char rank[32], n[32], mean[32], max[32], busy[32], comp[32], comm[32], ov[32], idle[32], idlep[32];

      g_snprintf (rank, sizeof rank, "%d", r->rank);
      g_snprintf (n, sizeof n, "%u", r->n_steps);
      table_row (t, rank, n, FMT_I64 (mean, r->n_steps > 0 ? r->step_total / r->n_steps : 0),
                 FMT_I64 (max, r->step_max), FMT_I64 (busy, r->busy), FMT_I64 (comp, r->compute),
                 FMT_I64 (comm, r->comm), FMT_F (ov, r->comm > 0 ? 100.0 * r->overlap / r->comm : 0.0),
                 FMT_I64 (idle, r->idle), FMT_F (idlep, r->span > 0 ? 100.0 * r->idle / r->span : 0.0), NULL);
    }
  table_end (t);
  clock_table (t, rec);
  table_begin (t, "Slowest rank per step", step_header);
  for (guint i = 0; i < steps->len; i++)
    {
      const TsRankStep *s = &g_array_index (steps, TsRankStep, i);
      char step[32], sr[32], st[32], fr[32], ft[32], spread[32];

      g_snprintf (step, sizeof step, "ProfilerStep#%u", s->step);
      g_snprintf (sr, sizeof sr, "%d", s->slowest_rank);
      g_snprintf (fr, sizeof fr, "%d", s->fastest_rank);
      table_row (t, step, sr, FMT_I64 (st, s->slowest), fr, FMT_I64 (ft, s->fastest),
                 FMT_F (spread, s->fastest > 0 ? 100.0 * (s->slowest - s->fastest) / s->fastest : 0.0), NULL);
    }
  table_end (t);
}

int
ts_cli_report_main (int    argc,
                    char **argv)
{
  g_autofree char *format = NULL;
  g_autofree char *range = NULL;
  g_autofree char *only = NULL;
  const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "Output format: table (default) or csv", "FORMAT" },
    { "range", 'r', 0, G_OPTION_ARG_STRING, &range, "Only [START, END), e.g. 1ms:2.5ms", "START:END" },
    { "table", 't', 0, G_OPTION_ARG_STRING, &only, "Print only the table with this title", "TITLE" },
    { NULL }
  };
  static const char * const copy_header[] = { "Count", "Total (B)", "Total Time (ns)", "Throughput (GB/s)", "Operation", NULL };
  g_autoptr(GOptionContext) context = g_option_context_new ("TRACE");
  g_autoptr(TsTraceDocument) doc = NULL;
  g_autoptr(TsTraceStats) stats = NULL;
  TsRecorder *rec;
  TsTime begin, end;
  Table t = { 0 };

  g_option_context_set_summary (context, "Print statistics tables of a trace.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!ts_cli_parse_trace_args (context, "report", &argc, &argv))
    return 2;
  if (format != NULL && !g_str_equal (format, "table") && !g_str_equal (format, "csv"))
    {
      ts_cli_message ("report: unknown format '%s' (use table or csv)", format);
      return 2;
    }

  doc = ts_cli_open_trace (argv[1], NULL);
  if (doc == NULL)
    return 1;
  rec = ts_trace_document_get_recorder (doc);

  ts_trace_document_get_time_span (doc, &begin, &end);
  end++;   /* the window is half-open; include items ending at the last time */
  if (range != NULL && !ts_cli_parse_range ("report", range, &begin, &end))
    return 2;
  stats = ts_trace_stats_compute (doc, begin, end);

  t.csv = format != NULL && g_str_equal (format, "csv");
  t.only = only;
  t.first = TRUE;

  name_table (&t, rec, "CUDA GPU kernel summary", stats->kernels, stats->kernel_total);
  name_table (&t, rec, "CUDA API summary", stats->api_calls, names_total (stats->api_calls));

  table_begin (&t, "GPU memory operations", copy_header);
  for (guint i = 0; i < stats->copies->len; i++)
    copy_row (&t, &g_array_index (stats->copies, TsCopyStats, i));
  if (stats->memsets.count > 0)
    copy_row (&t, &stats->memsets);
  table_end (&t);

  name_table (&t, rec, "NVTX range summary", stats->nvtx_ranges, names_total (stats->nvtx_ranges));
  stream_tables (&t, doc, stats);
  memory_table (&t, stats);
  hazard_table (&t, doc);
  rank_tables (&t, rec);

  if (fflush (stdout) != 0 || ferror (stdout))
    {
      ts_cli_message ("report: could not write the output");
      return 1;
    }
  return 0;
}
