/* ts-editor.h: the workload editor
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtksourceview/gtksource.h>

G_BEGIN_DECLS

typedef enum
{
  TS_EDITOR_MARK_ERROR, /* where an exception was raised */
  TS_EDITOR_MARK_RACE,  /* a line in a race the sanitizer found */
} TsEditorMark;

#define TS_TYPE_EDITOR (ts_editor_get_type ())

G_DECLARE_FINAL_TYPE (TsEditor, ts_editor, TS, EDITOR, GtkSourceView)

GtkWidget *ts_editor_new          (void);
void       ts_editor_set_text     (TsEditor     *self,
                                   const char   *text);
char      *ts_editor_dup_text     (TsEditor     *self);
gboolean   ts_editor_get_modified (TsEditor     *self);
void       ts_editor_set_modified (TsEditor     *self,
                                   gboolean      modified);
gboolean   ts_editor_goto_line    (TsEditor     *self,
                                   guint         line);
guint      ts_editor_get_cursor_line (TsEditor  *self);
void       ts_editor_mark_line    (TsEditor     *self,
                                   guint         line,
                                   TsEditorMark  kind,
                                   const char   *message);
guint      ts_editor_count_marks  (TsEditor     *self,
                                   TsEditorMark  kind);
void       ts_editor_clear_marks  (TsEditor     *self);

G_END_DECLS
