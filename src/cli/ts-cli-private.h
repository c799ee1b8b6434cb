/* ts-cli-private.h: the subcommands of tensorscope-cli
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <stdio.h>

#include "ts-memory-replay.h"
#include "ts-trace-document.h"

G_BEGIN_DECLS

void ts_cli_message  (const char *format, ...) G_GNUC_PRINTF (1, 2);

int  ts_cli_run_main (int argc, char **argv);
int  ts_cli_info_main (int argc, char **argv);
int  ts_cli_report_main (int argc, char **argv);
int  ts_cli_export_main (int argc, char **argv);
int  ts_cli_render_main (int argc, char **argv);
int  ts_cli_memory_main (int argc, char **argv);

/* What the reader said about a trace file, for `info`. */
typedef struct
{
  guint    format;      /* TsImportFormat */
  guint    major;
  guint    minor;
  gboolean cut_short;
  gint64   bad_offset;
  guint64  size;
  guint64  n_skipped;
  guint64  n_records;
} TsCliLoadInfo;

/* Parses the options of a command that takes one trace file (argv[1]);
 * on bad usage prints one line and returns FALSE: exit with status 2. */
gboolean         ts_cli_parse_trace_args (GOptionContext  *context,
                                          const char      *command,
                                          int             *argc,
                                          char          ***argv);
/* Adds the options of how files are imported (--no-clock-align); done
 * by ts_cli_parse_trace_args. */
void             ts_cli_add_import_options (GOptionContext *context);
/* Adds @entries and parses the options of a command that runs a program
 * (run, record), which stop at the program's name; on bad usage prints one
 * line and returns FALSE: exit with status 2. */
gboolean         ts_cli_parse_program_args (GOptionContext     *context,
                                            const GOptionEntry *entries,
                                            int                *argc,
                                            char             ***argv);
/* Loads a trace; on failure prints one line and returns NULL. */
TsTraceDocument *ts_cli_load_document  (const char    *path,
                                        TsCliLoadInfo *info);
void             ts_cli_warn_cut_short (const char    *path);
/* ts_cli_load_document, then the cut-short warning where it applies: how
 * the commands that show a trace's content open it. @info may be NULL. */
TsTraceDocument *ts_cli_open_trace     (const char    *path,
                                        TsCliLoadInfo *info);
/* "1500", "1.5us", "2ms", "0.25s" → nanoseconds. */
gboolean         ts_cli_parse_time     (const char    *text,
                                        TsTime        *out);
/* --range of a command: "START:END", two such times with END > START;
 * when bad prints one line and returns FALSE: exit with status 2. */
gboolean         ts_cli_parse_range    (const char    *command,
                                        const char    *text,
                                        TsTime        *begin,
                                        TsTime        *end);
int  ts_cli_record_main (int argc, char **argv);

/* Installs CUPTI as the session's activity source where the build has it. */
void ts_cli_install_activity_source (void);

/* --at for memory views: a time, "oom"/"oom:N" (just after the N-th OOM),
 * "#N" (after N allocator actions) or "end"/NULL. */
gboolean         ts_cli_resolve_instant (TsMemoryReplay *replay,
                                         const char     *at,
                                         gsize          *index);

G_END_DECLS
