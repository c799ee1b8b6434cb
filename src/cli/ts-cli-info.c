/* ts-cli-info.c: `tensorscope-cli info TRACE`
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ts-cli-private.h"
#include "ts-trace-import.h"
#include "ts-time-ruler.h"

/* A file that does not carry the device's properties (a memory snapshot,
 * a trace without deviceProperties) leaves them 0: said as unknown, not
 * as a device with no SMs. */
static char *
device_properties (const TsDeviceRecord *d)
{
  g_autofree char *sms = d->sm_count > 0 ? g_strdup_printf ("%u SMs", d->sm_count) : g_strdup ("SMs unknown");
  g_autofree char *cc = d->cc_major > 0 ? g_strdup_printf ("compute capability %u.%u", d->cc_major, d->cc_minor)
                                        : g_strdup ("compute capability unknown");
  g_autofree char *mem = d->total_memory > 0 ? g_format_size_full (d->total_memory, G_FORMAT_SIZE_IEC_UNITS)
                                             : g_strdup ("memory unknown");

  return g_strdup_printf ("%s, %s, %s", sms, cc, mem);
}

static void
print_devices (TsRecorder *rec)
{
  gsize n = ts_recorder_get_count (rec, TS_RECORD_DEVICE);

  printf ("Devices:     %" G_GSIZE_FORMAT "\n", n);
  for (gsize i = 0; i < n; i++)
    {
      TsDeviceRecord d;
      g_autofree char *props = NULL;
      const char *model;

      ts_recorder_get (rec, TS_RECORD_DEVICE, i, &d);
      props = device_properties (&d);
      model = ts_recorder_lookup (rec, d.model);
      /* a recorded trace leaves the model empty: the name says it */
      printf ("  cuda:%u  %s (%s%s%s)\n", d.index, ts_recorder_lookup (rec, d.name),
              model != NULL ? model : "", model != NULL && *model != '\0' ? ", " : "", props);
    }
}

static void
print_streams (TsTraceDocument *doc)
{
  guint n = ts_trace_document_get_n_tracks (doc), n_streams = 0;

  for (guint i = 0; i < n; i++)
    if (ts_trace_document_get_track (doc, i)->kind == TS_TRACK_STREAM)
      n_streams++;
  printf ("Streams:     %u\n", n_streams);
  for (guint i = 0; i < n; i++)
    {
      const TsTrack *t = ts_trace_document_get_track (doc, i);

      if (t->kind != TS_TRACK_STREAM)
        continue;
      printf ("  stream %-4u cuda:%d  priority %-3d %s %u items\n",
              t->stream, t->device, t->priority, t->is_default ? "default " : "        ", t->n_items);
    }
}

int
ts_cli_info_main (int    argc,
                  char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("TRACE");
  g_autoptr(TsTraceDocument) doc = NULL;
  g_autofree char *span = NULL, *b = NULL, *e = NULL;
  TsCliLoadInfo info = { 0 };
  TsRecorder *rec;
  TsTime begin, end;

  g_option_context_set_summary (context, "Show what a trace holds.");
  if (!ts_cli_parse_trace_args (context, "info", &argc, &argv))
    return 2;

  doc = ts_cli_load_document (argv[1], &info);
  if (doc == NULL)
    return 1;
  rec = ts_trace_document_get_recorder (doc);
  ts_trace_document_get_time_span (doc, &begin, &end);
  span = ts_time_format_duration (end - begin);
  b = ts_time_format_duration (begin);
  e = ts_time_format_duration (end);

  printf ("File:        %s\n", argv[1]);
  if (info.format != TS_IMPORT_FORMAT_TENSORSCOPE)
    printf ("Format:      %s (imported)\n", ts_import_format_name (info.format));
  else
    printf ("Format:      version %u.%u, %" G_GUINT64_FORMAT " bytes read\n", info.major, info.minor, info.size);
  if (info.format != TS_IMPORT_FORMAT_TENSORSCOPE)
    ;
  else if (info.cut_short)
    printf ("Complete:    no, cut short (the run ended before the index was written); "
            "loaded up to offset %" G_GUINT64_FORMAT "\n", info.size);
  else
    printf ("Complete:    yes\n");
  if (info.n_skipped > 0)
    printf ("Skipped:     %" G_GUINT64_FORMAT " frames of kinds this version does not know\n", info.n_skipped);
  printf ("Time span:   %s to %s (%s)\n", b, e, span);
  print_devices (rec);
  print_streams (doc);
  printf ("Threads:     %" G_GSIZE_FORMAT "\n", ts_recorder_get_count (rec, TS_RECORD_THREAD));
  printf ("Records:     %" G_GUINT64_FORMAT "\n", info.n_records);
  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    {
      gsize count = ts_recorder_get_count (rec, k);
      if (count > 0)
        printf ("  %-14s %" G_GSIZE_FORMAT "\n", ts_record_info (k)->name, count);
    }
  if (info.format != TS_IMPORT_FORMAT_TENSORSCOPE)
  {
    g_autoptr(GPtrArray) notes = ts_trace_import_get_notes (rec);
    if (notes->len > 0)
      printf ("Notes:\n");
    for (guint i = 0; i < notes->len; i++)
      printf ("  %s\n", (const char *) notes->pdata[i]);
  }
  return 0;
}
