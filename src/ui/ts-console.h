/* ts-console.h: the output pane of a workload run
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef enum
{
  TS_CONSOLE_STDOUT,
  TS_CONSOLE_STDERR,
  TS_CONSOLE_INFO,   /* our own notes: the command line, the exit status */
} TsConsoleStyle;

#define TS_TYPE_CONSOLE (ts_console_get_type ())

G_DECLARE_FINAL_TYPE (TsConsole, ts_console, TS, CONSOLE, GtkTextView)

GtkWidget *ts_console_new          (void);
void       ts_console_append_line  (TsConsole      *self,
                                    TsConsoleStyle  style,
                                    const char     *line);
void       ts_console_clear        (TsConsole      *self);
char      *ts_console_dup_text     (TsConsole      *self);
char      *ts_console_dup_lines    (TsConsole      *self,
                                    TsConsoleStyle  style);
guint      ts_console_get_max_lines (TsConsole     *self);
void       ts_console_set_max_lines (TsConsole     *self,
                                     guint          max_lines);

G_END_DECLS
