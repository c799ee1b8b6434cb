/* ts-cli-load.c: parsing the commands' arguments; opening a trace for the read-side commands
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-cli-private.h"
#include "ts-trace-import.h"
#include "ts-trace-reader.h"

/* Every failure is one line on stderr: messages from the reader may carry
 * newlines from hostile bytes, so they are flattened. */
static void
report_error (const char   *path,
              const GError *error)
{
  g_autofree char *flat = g_strdup (error->message);

  g_strdelimit (flat, "\r\n", ' ');
  ts_cli_message ("%s: %s", path, flat);
}

static gboolean no_clock_align;

void
ts_cli_add_import_options (GOptionContext *context)
{
  static const GOptionEntry entries[] = {
    { "no-clock-align", 0, 0, G_OPTION_ARG_NONE, &no_clock_align,
      "Per-rank traces: keep every rank's times as written (no clock correction from matched collectives)", NULL },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, NULL);
}

/* g_option_context_parse, its error printed as the commands print theirs */
static gboolean
parse_args (GOptionContext   *context,
            int              *argc,
            char           ***argv)
{
  g_autoptr(GError) error = NULL;

  if (!g_option_context_parse (context, argc, argv, &error))
    {
      ts_cli_message ("%s", error->message);
      return FALSE;
    }
  return TRUE;
}

gboolean
ts_cli_parse_program_args (GOptionContext      *context,
                           const GOptionEntry  *entries,
                           int                 *argc,
                           char              ***argv)
{
  g_option_context_add_main_entries (context, entries, NULL);
  /* Options after the program's name belong to the program. */
  g_option_context_set_strict_posix (context, TRUE);
  return parse_args (context, argc, argv);
}

gboolean
ts_cli_parse_trace_args (GOptionContext   *context,
                         const char       *command,
                         int              *argc,
                         char           ***argv)
{
  ts_cli_add_import_options (context);
  if (!parse_args (context, argc, argv))
    return FALSE;
  if (*argc != 2)
    {
      ts_cli_message ("%s: give exactly one trace file", command);
      return FALSE;
    }
  return TRUE;
}

TsTraceDocument *
ts_cli_load_document (const char  *path,
                      TsCliLoadInfo *info)
{
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  g_autoptr(TsTraceReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  TsImportFormat format;

  /* PyTorch's files (memory snapshots, profiler traces, a directory of
   * per-rank traces) go through the importers; our own through the
   * reader, which says more about a cut-short file. */
  format = ts_trace_import_detect (path, &error);
  if (format == TS_IMPORT_FORMAT_UNKNOWN && !g_error_matches (error, TS_IMPORT_ERROR, TS_IMPORT_ERROR_FORMAT))
    {
      report_error (path, error);
      return NULL;
    }
  if (format != TS_IMPORT_FORMAT_TENSORSCOPE && format != TS_IMPORT_FORMAT_UNKNOWN)
    {
      const char *paths[] = { path };

      if (!ts_trace_import_open_with_flags (paths, 1, no_clock_align ? TS_IMPORT_NO_CLOCK_ALIGN : TS_IMPORT_FLAGS_NONE,
                                            recorder, &error))
        {
          report_error (path, error);
          return NULL;
        }
      if (info != NULL)
        {
          memset (info, 0, sizeof *info);
          info->format = format;
          info->n_records = 0;
          for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
            info->n_records += ts_recorder_get_count (recorder, k);
        }
      return ts_trace_document_new (recorder);
    }
  g_clear_error (&error);
  reader = ts_trace_reader_new (recorder);

  if (!ts_trace_reader_load_file (reader, path, &error))
    {
      report_error (path, error);
      return NULL;
    }

  /* The reader takes a file that ends inside its header for a run killed
   * at once (nothing recorded, cut short). There is nothing to show, and
   * an empty file is far more often a mistake: refuse it. */
  if (ts_trace_reader_get_offset (reader) == 0)
    {
      ts_cli_message ("%s: not a usable trace: the file is empty or ends inside the trace header", path);
      return NULL;
    }

  if (info != NULL)
    {
      info->format = TS_IMPORT_FORMAT_TENSORSCOPE;
      info->major = ts_trace_reader_get_major (reader);
      info->minor = ts_trace_reader_get_minor (reader);
      info->cut_short = ts_trace_reader_get_cut_short (reader);
      info->bad_offset = ts_trace_reader_get_bad_offset (reader);
      info->size = ts_trace_reader_get_offset (reader);
      info->n_skipped = ts_trace_reader_get_n_skipped (reader);
      info->n_records = ts_trace_reader_get_n_records (reader);
    }
  return ts_trace_document_new (recorder);
}

void
ts_cli_warn_cut_short (const char *path)
{
  ts_cli_message ("warning: %s was cut short (the run did not finish writing it); "
                  "showing what was recorded", path);
}

TsTraceDocument *
ts_cli_open_trace (const char    *path,
                   TsCliLoadInfo *info)
{
  TsCliLoadInfo local = { 0 };
  TsTraceDocument *doc;

  if (info == NULL)
    info = &local;

  doc = ts_cli_load_document (path, info);
  if (doc != NULL && info->cut_short)
    ts_cli_warn_cut_short (path);
  return doc;
}

gboolean
ts_cli_parse_time (const char *text,
                   TsTime     *out)
{
  static const struct { const char *suffix; double scale; } units[] = {
    { "ns", 1 }, { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
  };
  char *end = NULL;
  double value;

  value = g_ascii_strtod (text, &end);
  if (end == text)
    return FALSE;
  if (*end == '\0')
    {
      *out = (TsTime) value;
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (g_str_equal (end, units[i].suffix))
      {
        *out = (TsTime) (value * units[i].scale + (value >= 0 ? 0.5 : -0.5));
        return TRUE;
      }
  return FALSE;
}

gboolean
ts_cli_parse_range (const char *command,
                    const char *text,
                    TsTime     *begin,
                    TsTime     *end)
{
  g_auto(GStrv) parts = g_strsplit (text, ":", 2);

  if (g_strv_length (parts) == 2 && ts_cli_parse_time (parts[0], begin) &&
      ts_cli_parse_time (parts[1], end) && *end > *begin)
    return TRUE;
  ts_cli_message ("%s: bad range '%s' (use START:END with END > START, e.g. 1ms:2ms)", command, text);
  return FALSE;
}
