/* tensorscope-cli.c: the command line: run | info | report | export | render | memory
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <stdlib.h>
#include <glib.h>

#include "ts-cli-private.h"

typedef struct
{
  const char *name;
  const char *summary;
  int (*main) (int argc, char **argv);
} TsCliCommand;

static const TsCliCommand commands[] = {
  { "run", "Run a Python workload on the simulated GPUs and record it", ts_cli_run_main },
  { "info", "Show what a trace holds: devices, streams, record counts, time span", ts_cli_info_main },
  { "report", "Print statistics tables of a trace, like nsys stats", ts_cli_report_main },
  { "export", "Convert a trace to Chrome Trace Event JSON (Perfetto)", ts_cli_export_main },
  { "render", "Draw a trace's timeline, memory or segment view to PNG, SVG or PDF", ts_cli_render_main },
  { "memory", "The allocator's state at an instant: fragmentation, memory_stats, memory_summary", ts_cli_memory_main },
  { "record", "Record an unmodified CUDA program (CUPTI and NVTX)", ts_cli_record_main },
};

static void
print_usage (FILE *out)
{
  fprintf (out, "Usage: tensorscope-cli COMMAND [OPTIONS...]\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-8s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "\nRun 'tensorscope-cli COMMAND --help' for a command's options.\n");
}

void
ts_cli_message (const char *format,
                ...)
{
  va_list args;

  /* The tool's own messages go to stderr with a prefix, so they never mix
   * with what the workload prints on stdout. */
  va_start (args, format);
  fputs ("tensorscope: ", stderr);
  vfprintf (stderr, format, args);
  fputc ('\n', stderr);
  va_end (args);
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");

  if (argc < 2 || g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h"))
    {
      print_usage (argc < 2 ? stderr : stdout);
      return argc < 2 ? 2 : 0;
    }

  if (g_str_equal (argv[1], "--version"))
    {
      printf ("tensorscope-cli %s\n", PACKAGE_VERSION);
      return 0;
    }

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (argv[1], commands[i].name))
      return commands[i].main (argc - 1, argv + 1);

  ts_cli_message ("unknown command '%s'", argv[1]);
  print_usage (stderr);
  return 2;
}
