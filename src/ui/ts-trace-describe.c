/* ts-trace-describe.c: words for what the timeline shows
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ts-time-ruler.h"
#include "ts-render-format.h"
#include "ts-trace-describe.h"

#define STATS_NAME_W   30      /* characters of a name in the tables */
#define STATS_MAX_ROWS 12

static const char *
copy_kind_name (guint32 kind)
{
  switch (kind)
    {
    case TS_COPY_HOST_TO_DEVICE: return _("Host to device");
    case TS_COPY_DEVICE_TO_HOST: return _("Device to host");
    case TS_COPY_DEVICE_TO_DEVICE: return _("Device to device");
    case TS_COPY_PEER: return _("Peer (device to device)");
    case TS_COPY_HOST_TO_HOST: return _("Host to host");
    default: return _("Memset");
    }
}

static const char *
item_kind_name (TsItemKind kind)
{
  switch (kind)
    {
    case TS_ITEM_API_CALL: return _("CUDA API call");
    case TS_ITEM_SYNC: return _("Host blocked");
    case TS_ITEM_KERNEL: return _("Kernel");
    case TS_ITEM_MEMCPY: return _("Copy");
    case TS_ITEM_MEMSET: return _("Memset");
    case TS_ITEM_NVTX_RANGE: return _("NVTX range");
    case TS_ITEM_NVTX_MARK: return _("NVTX mark");
    default: return "?";
    }
}

/* The API call id that ties an item to its launch, read through its
 * record's field table rather than a case per record type; NVTX records
 * have none. */
static guint64
item_correlation (TsRecorder    *recorder,
                  const TsTrack *t,
                  guint          item)
{
  TsRecordKind kind = ts_item_kind_get_record_kind ((TsItemKind) t->kinds[item]);
  const TsFieldInfo *field = ts_record_info_field (ts_record_info (kind), "correlation");
  guint64 buf[TS_RECORD_MAX_SIZE / sizeof (guint64)];
  guint64 corr;

  if (field == NULL || !ts_recorder_get (recorder, kind, t->records[item], buf))
    return 0;
  g_assert (field->type == TS_FIELD_U64);
  memcpy (&corr, (const guint8 *) buf + field->offset, sizeof corr);
  return corr;
}

gboolean
ts_trace_item_source (TsTraceDocument *document,
                      guint            track,
                      guint            item,
                      TsSourceLoc     *loc)
{
  TsRecorder *recorder;
  const TsTrack *t;
  guint32 record;
  guint64 corr;

  g_return_val_if_fail (TS_IS_TRACE_DOCUMENT (document), FALSE);
  g_return_val_if_fail (track < ts_trace_document_get_n_tracks (document), FALSE);
  g_return_val_if_fail (loc != NULL, FALSE);

  recorder = ts_trace_document_get_recorder (document);
  t = ts_trace_document_get_track (document, track);
  g_return_val_if_fail (item < t->n_items, FALSE);

  *loc = TS_SOURCE_LOC_NONE;
  switch ((TsItemKind) t->kinds[item])
    {
    case TS_ITEM_API_CALL:
      {
        TsApiCallRecord r;
        if (ts_recorder_get (recorder, TS_RECORD_API_CALL, t->records[item], &r))
          *loc = r.loc;
      }
      break;
    case TS_ITEM_NVTX_RANGE:
    case TS_ITEM_NVTX_MARK:
      {
        TsNvtxRecord r;
        if (ts_recorder_get (recorder, TS_RECORD_NVTX, t->records[item], &r))
          *loc = r.loc;
      }
      break;
    case TS_ITEM_KERNEL:
    case TS_ITEM_MEMCPY:
    case TS_ITEM_MEMSET:
    case TS_ITEM_SYNC:
    default:
      corr = item_correlation (recorder, t, item);
      if (corr != 0 && ts_trace_document_find_api_call (document, corr, &record))
        {
          TsApiCallRecord r;
          if (ts_recorder_get (recorder, TS_RECORD_API_CALL, record, &r))
            *loc = r.loc;
        }
      break;
    }
  return loc->line > 0;
}

static void
append_row (GString    *s,
            const char *key,
            const char *value)
{
  g_autofree char *escaped = g_markup_escape_text (value, -1);

  g_string_append_printf (s, "<span alpha=\"70%%\">%s</span>  %s\n", key, escaped);
}

static char *
format_loc (TsRecorder        *recorder,
            const TsSourceLoc *loc)
{
  g_autofree char *base = NULL;

  if (loc->line == 0)
    return g_strdup (_("unknown"));
  base = loc->file != 0 ? g_path_get_basename (ts_recorder_lookup (recorder, loc->file)) : g_strdup ("?");
  if (loc->function != 0)
    return g_strdup_printf ("%s:%u (%s)", base, loc->line, ts_recorder_lookup (recorder, loc->function));
  return g_strdup_printf ("%s:%u", base, loc->line);
}

static void
describe_kind_fields (GString       *s,
                      TsRecorder    *recorder,
                      const TsTrack *t,
                      guint          item)
{
  guint32 record = t->records[item];
  char buf[128];

  switch ((TsItemKind) t->kinds[item])
    {
    case TS_ITEM_KERNEL:
      {
        TsKernelRecord r;
        g_autofree char *bytes = NULL;

        if (!ts_recorder_get (recorder, TS_RECORD_KERNEL, record, &r))
          break;
        g_snprintf (buf, sizeof buf, "(%u, %u, %u) × (%u, %u, %u)",
                    r.grid[0], r.grid[1], r.grid[2], r.block[0], r.block[1], r.block[2]);
        append_row (s, _("Grid × block"), buf);
        g_snprintf (buf, sizeof buf, "%u", r.sms);
        append_row (s, _("SMs"), buf);
        bytes = ts_render_format_bytes (r.bytes);
        append_row (s, _("Bytes"), bytes);
        if (r.flops > 0)
          {
            g_autofree char *flops = ts_render_format_flops (r.flops);
            append_row (s, _("FLOPs"), flops);
          }
        if (r.error != 0)
          {
            g_snprintf (buf, sizeof buf, _("failed (error %u)"), r.error);
            append_row (s, _("Status"), buf);
          }
      }
      break;
    case TS_ITEM_MEMCPY:
      {
        TsMemcpyRecord r;
        g_autofree char *bytes = NULL;
        TsTime d;

        if (!ts_recorder_get (recorder, TS_RECORD_MEMCPY, record, &r))
          break;
        append_row (s, _("Direction"), copy_kind_name (r.kind));
        bytes = ts_render_format_bytes (r.bytes);
        append_row (s, _("Bytes"), bytes);
        d = r.end - r.start;
        if (d > 0)
          {
            g_snprintf (buf, sizeof buf, "%.2f GB/s", (double) r.bytes / (double) d);
            append_row (s, _("Bandwidth"), buf);
          }
        append_row (s, _("Host memory"), (r.flags & TS_COPY_FLAG_PINNED) ? _("pinned") : _("pageable"));
        append_row (s, _("Asynchronous"), (r.flags & TS_COPY_FLAG_ASYNC) ? _("yes") : _("no"));
      }
      break;
    case TS_ITEM_MEMSET:
      {
        TsMemsetRecord r;
        g_autofree char *bytes = NULL;

        if (!ts_recorder_get (recorder, TS_RECORD_MEMSET, record, &r))
          break;
        bytes = ts_render_format_bytes (r.bytes);
        append_row (s, _("Bytes"), bytes);
        g_snprintf (buf, sizeof buf, "%u", r.value);
        append_row (s, _("Value"), buf);
      }
      break;
    case TS_ITEM_API_CALL:
    case TS_ITEM_SYNC:
    case TS_ITEM_NVTX_RANGE:
    case TS_ITEM_NVTX_MARK:
    default:
      break;
    }
}

static void
describe_partner (GString            *s,
                  TsTimelineRenderer *renderer,
                  const TsTrack      *t,
                  guint               item)
{
  TsTraceDocument *document = ts_timeline_renderer_get_document (renderer);
  TsRecorder *recorder = ts_trace_document_get_recorder (document);
  guint64 corr = item_correlation (recorder, t, item);
  guint pt, pi;
  gboolean is_api = t->kinds[item] == TS_ITEM_API_CALL;
  const TsTrack *p;
  g_autofree char *text = NULL;

  if (corr == 0 || !ts_timeline_renderer_locate_correlation (renderer, corr, !is_api, &pt, &pi))
    return;
  p = ts_trace_document_get_track (document, pt);
  if (p == t && pi == item)
    return;
  /* Translators: "cudaLaunchKernel on MainThread", "gemm on Stream 7" */
  text = g_strdup_printf (_("%s on %s"), ts_recorder_lookup (recorder, p->labels[pi]), p->title);
  append_row (s, is_api ? _("Device work") : _("Launched by"), text);
}

/* A hazard of the trace: what and why, the fix, and where each side was
 * launched. */
static void
describe_hazard (GString         *s,
                 TsTraceDocument *document,
                 guint            index,
                 gboolean         earlier)
{
  TsRecorder *recorder = ts_trace_document_get_recorder (document);
  guint n;
  const TsHazard *h = ts_trace_document_get_hazards (document, &n);
  g_autofree char *why = NULL, *text = NULL, *cur = NULL, *prev = NULL;

  g_return_if_fail (index < n);
  h = &h[index];
  why = ts_hazard_explain (h, recorder);
  text = g_markup_escape_text (why, -1);
  cur = format_loc (recorder, &h->current.loc);
  prev = format_loc (recorder, &h->previous.loc);
  g_string_append_printf (s, "\n<span foreground=\"#e01b24\"><b>%s</b></span>\n%s\n",
                          earlier ? _("Hazard: a later kernel on another stream is not ordered after this one")
                                  : _("Hazard: this kernel is not ordered after an earlier one on another stream"),
                          text);
  append_row (s, _("Later launch"), cur);
  append_row (s, _("Earlier launch"), prev);
}

static void
describe_problems (GString            *s,
                   TsTimelineRenderer *renderer,
                   guint               track,
                   guint               item)
{
  TsTraceDocument *document = ts_timeline_renderer_get_document (renderer);
  TsRecorder *recorder = ts_trace_document_get_recorder (document);

  for (guint i = 0; i < ts_timeline_renderer_get_n_problems (renderer); i++)
    {
      const TsTimelineProblem *p = ts_timeline_renderer_get_problem (renderer, i);
      gboolean from = p->has_from && p->from_track == track && p->from_item == item;
      gboolean to = p->has_to && p->to_track == track && p->to_item == item;

      if (!from && !to)
        continue;

      if (p->kind == TS_TIMELINE_PROBLEM_HAZARD)
        {
          describe_hazard (s, document, p->record, from);
          continue;
        }
      if (p->kind == TS_TIMELINE_PROBLEM_ERROR)
        {
          TsErrorRecord e;
          g_autofree char *launch = NULL;
          g_autofree char *surfaced = NULL;
          g_autofree char *message = NULL;

          ts_recorder_get (recorder, TS_RECORD_ERROR, p->record, &e);
          launch = format_loc (recorder, &e.launch_loc);
          surfaced = format_loc (recorder, &e.surfaced_loc);
          message = g_markup_escape_text (e.message != 0 ? ts_recorder_lookup (recorder, e.message) : "", -1);
          g_string_append_printf (s, "\n<span foreground=\"#e01b24\"><b>%s</b></span>\n%s\n",
                                  from ? _("This kernel failed") : _("A kernel’s error surfaced here"),
                                  message);
          append_row (s, _("Launched at"), launch);
          append_row (s, _("Surfaced at"), surfaced);
        }
      else
        {
          TsSanitizerRecord r;
          g_autofree char *named = NULL;
          g_autofree char *report = NULL;

          ts_recorder_get (recorder, TS_RECORD_SANITIZER, p->record, &r);
          named = ts_trace_name_streams (recorder, r.report != 0 ? ts_recorder_lookup (recorder, r.report) : "");
          report = g_markup_escape_text (named, -1);
          g_string_append_printf (s, "\n<span foreground=\"#e01b24\"><b>%s</b></span>\n<tt><small>%s</small></tt>\n",
                                  _("Data race found by the sanitizer"), report);
        }
    }
}

char *
ts_trace_describe_item (TsTimelineRenderer *renderer,
                        guint               track,
                        guint               item)
{
  TsTraceDocument *document;
  TsRecorder *recorder;
  const TsTrack *t;
  g_autoptr(GString) s = g_string_new (NULL);
  g_autofree char *name = NULL;
  g_autofree char *start = NULL;
  g_autofree char *end = NULL;
  g_autofree char *duration = NULL;
  TsSourceLoc loc;

  g_return_val_if_fail (TS_IS_TIMELINE_RENDERER (renderer), NULL);

  document = ts_timeline_renderer_get_document (renderer);
  g_return_val_if_fail (track < ts_trace_document_get_n_tracks (document), NULL);
  t = ts_trace_document_get_track (document, track);
  g_return_val_if_fail (item < t->n_items, NULL);
  recorder = ts_trace_document_get_recorder (document);

  name = g_markup_escape_text (ts_recorder_lookup (recorder, t->labels[item]), -1);
  g_string_append_printf (s, "<b>%s</b>\n", name);
  /* The host's calls are CUDA's or PyTorch's operators (aten::…), nested
   * under them: not all "API calls". */
  append_row (s, _("Kind"), t->kinds[item] == TS_ITEM_API_CALL &&
                            g_str_has_prefix (ts_recorder_lookup (recorder, t->labels[item]), "aten::")
                            ? _("ATen operator") : item_kind_name (t->kinds[item]));
  append_row (s, _("Track"), ts_timeline_renderer_get_track_title (renderer, track));
  start = ts_time_format_at (t->starts[item], t->ends[item] - t->starts[item]);
  end = ts_time_format_at (t->ends[item], t->ends[item] - t->starts[item]);
  duration = ts_time_format_duration (t->ends[item] - t->starts[item]);
  {
    /* Translators: "5.297 µs, 158.8 µs → 164.1 µs" */
    g_autofree char *times = g_strdup_printf (_("%s, %s → %s"), duration, start, end);
    append_row (s, _("Duration"), times);
  }
  describe_kind_fields (s, recorder, t, item);
  describe_partner (s, renderer, t, item);
  if (ts_trace_item_source (document, track, item, &loc))
    {
      g_autofree char *where = format_loc (recorder, &loc);
      append_row (s, _("Source"), where);
    }
  describe_problems (s, renderer, track, item);

  if (s->len > 0 && s->str[s->len - 1] == '\n')
    g_string_truncate (s, s->len - 1);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* A fixed-width name cell: long kernel names are cut in the middle of
 * nothing but their end. */
static char *
name_cell (const char *name)
{
  g_autofree char *cut = NULL;
  g_autoptr(GString) s = NULL;
  glong len = g_utf8_strlen (name, -1);

  if (len > STATS_NAME_W)
    {
      cut = g_utf8_substring (name, 0, STATS_NAME_W - 1);
      s = g_string_new (cut);
      g_string_append (s, "…");
    }
  else
    {
      s = g_string_new (name);
      for (glong i = len; i < STATS_NAME_W; i++)
        g_string_append_c (s, ' ');
    }
  return g_markup_escape_text (s->str, -1);
}

static void
append_name_table (GString    *s,
                   TsRecorder *recorder,
                   const char *title,
                   GArray     *rows)
{
  g_autofree char *header = NULL;

  if (rows == NULL || rows->len == 0)
    return;

  header = name_cell (title);
  g_string_append_printf (s, "\n<b>%s</b> %6s %10s %10s\n", header, _("count"), _("total"), _("mean"));
  for (guint i = 0; i < rows->len && i < STATS_MAX_ROWS; i++)
    {
      const TsNameStats *n = &g_array_index (rows, TsNameStats, i);
      g_autofree char *cell = name_cell (ts_recorder_lookup (recorder, n->name));
      g_autofree char *total = ts_time_format_duration (n->total);
      g_autofree char *mean = ts_time_format_duration (n->count > 0 ? n->total / (TsTime) n->count : 0);

      g_string_append_printf (s, "%s %6" G_GUINT64_FORMAT " %10s %10s\n", cell, n->count, total, mean);
    }
  if (rows->len > STATS_MAX_ROWS)
    g_string_append_printf (s, "<span alpha=\"70%%\">%s</span>\n",
                            /* Translators: more rows of a table not shown */
                            g_dngettext (GETTEXT_PACKAGE, "… and %u more", "… and %u more",
                                         rows->len - STATS_MAX_ROWS));
}

char *
ts_trace_describe_stats (TsTraceDocument    *document,
                         const TsTraceStats *stats)
{
  g_autoptr(GString) s = g_string_new ("<tt>");
  g_autofree char *span = NULL;
  g_autofree char *b = NULL;
  g_autofree char *e = NULL;
  TsRecorder *recorder;
  TsTime window;

  g_return_val_if_fail (TS_IS_TRACE_DOCUMENT (document), NULL);
  g_return_val_if_fail (stats != NULL, NULL);

  recorder = ts_trace_document_get_recorder (document);
  window = MAX (1, stats->end - stats->begin);
  b = ts_time_format_duration (stats->begin);
  e = ts_time_format_duration (stats->end);
  span = ts_time_format_duration (stats->end - stats->begin);
  g_string_append_printf (s, "<b>%s</b> %s – %s (%s)\n", _("Range"), b, e, span);

  if (stats->streams != NULL && stats->streams->len > 0)
    {
      g_autofree char *header = name_cell (_("Streams"));

      g_string_append_printf (s, "\n<b>%s</b> %6s %10s %10s\n", header, _("items"), _("busy"), _("busy %"));
      for (guint i = 0; i < stats->streams->len; i++)
        {
          const TsStreamStats *st = &g_array_index (stats->streams, TsStreamStats, i);
          const TsTrack *t = ts_trace_document_get_track (document, st->track);
          g_autofree char *title = strstr (t->title, "cuda:") != NULL
                                   ? g_strdup (t->title)
                                   : g_strdup_printf ("%s (cuda:%d)", t->title, st->device);
          g_autofree char *cell = name_cell (title);
          g_autofree char *busy = ts_time_format_duration (st->busy);

          g_string_append_printf (s, "%s %6" G_GUINT64_FORMAT " %10s %9.1f%%\n", cell, st->n_items, busy,
                                  100.0 * (double) st->busy / (double) window);
        }
    }

  if (stats->overlaps != NULL && stats->overlaps->len > 0)
    {
      g_autofree char *header = name_cell (_("Overlap"));
      gboolean any = FALSE;

      for (guint i = 0; i < stats->overlaps->len; i++)
        {
          const TsStreamOverlap *o = &g_array_index (stats->overlaps, TsStreamOverlap, i);
          const TsStreamStats *a = &g_array_index (stats->streams, TsStreamStats, o->a);
          const TsStreamStats *bs = &g_array_index (stats->streams, TsStreamStats, o->b);
          g_autofree char *pair = NULL;
          g_autofree char *cell = NULL;
          g_autofree char *time = NULL;

          if (o->overlap <= 0)
            continue;
          if (!any)
            g_string_append_printf (s, "\n<b>%s</b> %6s %10s %10s\n", header, "", _("both busy"), _("of range"));
          any = TRUE;
          pair = g_strdup_printf ("cuda:%d stream %u ↔ %u", a->device, a->stream, bs->stream);
          cell = name_cell (pair);
          time = ts_time_format_duration (o->overlap);
          g_string_append_printf (s, "%s %6s %10s %9.1f%%\n", cell, "", time,
                                  100.0 * (double) o->overlap / (double) window);
        }
    }

  append_name_table (s, recorder, _("Kernels"), stats->kernels);

  if ((stats->copies != NULL && stats->copies->len > 0) || stats->memsets.count > 0)
    {
      g_autofree char *header = name_cell (_("Copies"));

      g_string_append_printf (s, "\n<b>%s</b> %6s %10s %10s\n", header, _("count"), _("total"), _("bytes"));
      for (guint i = 0; stats->copies != NULL && i <= stats->copies->len; i++)
        {
          const TsCopyStats *c = i < stats->copies->len ? &g_array_index (stats->copies, TsCopyStats, i) : &stats->memsets;
          g_autofree char *cell = NULL;
          g_autofree char *total = NULL;
          g_autofree char *bytes = NULL;

          if (c->count == 0)
            continue;
          cell = name_cell (copy_kind_name (i < stats->copies->len ? c->kind : 0));
          total = ts_time_format_duration (c->total);
          bytes = ts_render_format_bytes (c->bytes);
          g_string_append_printf (s, "%s %6" G_GUINT64_FORMAT " %10s %10s\n", cell, c->count, total, bytes);
        }
    }

  append_name_table (s, recorder, _("API calls"), stats->api_calls);
  append_name_table (s, recorder, _("NVTX ranges"), stats->nvtx_ranges);

  if (stats->host_blocked > 0)
    {
      g_autofree char *blocked = ts_time_format_duration (stats->host_blocked);
      g_string_append_printf (s, "\n%s %s\n", _("Host blocked:"), blocked);
    }

  while (s->len > 0 && s->str[s->len - 1] == '\n')
    g_string_truncate (s, s->len - 1);
  g_string_append (s, "</tt>");
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/**
 * ts_trace_name_streams:
 * @recorder: the trace the text is about
 * @text: a report of PyTorch's, e.g. the sanitizer's
 *
 * PyTorch names a stream by its cuda_stream handle ("stream
 * 139887084831232"), the timeline by its id ("Stream 4"): the text with
 * the handles of the trace's streams replaced by their ids, so that the
 * report, the details and the tracks agree. The default stream is 0 in
 * both.
 *
 * Returns: (transfer full): the text
 */
char *
ts_trace_name_streams (TsRecorder *recorder,
                       const char *text)
{
  g_autoptr(GString) named = g_string_new (text);
  gsize n = recorder != NULL ? ts_recorder_get_count (recorder, TS_RECORD_STREAM) : 0;

  for (gsize i = 0; i < n && strstr (named->str, "stream ") != NULL; i++)
    {
      TsStreamRecord r;
      g_autofree char *handle = NULL;
      g_autofree char *id = NULL;

      ts_recorder_get (recorder, TS_RECORD_STREAM, i, &r);
      if (r.handle == 0)
        continue;
      handle = g_strdup_printf ("stream %" G_GUINT64_FORMAT, r.handle);
      id = g_strdup_printf ("stream %u", (guint) r.stream);
      g_string_replace (named, handle, id, 0);
    }
  return g_string_free (g_steal_pointer (&named), FALSE);
}
