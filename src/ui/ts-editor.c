/* ts-editor.c: the workload editor
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A GtkSourceView set up for Python: highlighting, line numbers, the
 * current line, a monospace font and a style scheme that follows the
 * light/dark style. Lines can carry marks (an exception, a race) with a
 * message shown as the tooltip of the mark in the gutter. Lines are
 * numbered from 1 in this API, as in tracebacks.
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "ts-editor.h"

struct _TsEditor
{
  GtkSourceView  parent_instance;
};

G_DEFINE_FINAL_TYPE (TsEditor, ts_editor, GTK_SOURCE_TYPE_VIEW)

static const char *mark_categories[] = {
  [TS_EDITOR_MARK_ERROR] = "ts-error",
  [TS_EDITOR_MARK_RACE] = "ts-race",
};

static void
ts_editor_update_scheme (TsEditor *self)
{
  GtkSourceStyleSchemeManager *manager = gtk_source_style_scheme_manager_get_default ();
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  GtkSourceStyleScheme *scheme;
  GtkSourceBuffer *buffer;

  scheme = gtk_source_style_scheme_manager_get_scheme (manager, dark ? "Adwaita-dark" : "Adwaita");
  if (scheme == NULL)
    scheme = gtk_source_style_scheme_manager_get_scheme (manager, dark ? "classic-dark" : "classic");

  buffer = GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self)));
  gtk_source_buffer_set_style_scheme (buffer, scheme);
}

static char *
ts_editor_query_tooltip_cb (GtkSourceMarkAttributes *attributes,
                            GtkSourceMark           *mark,
                            gpointer                 user_data)
{
  return g_strdup (g_object_get_data (G_OBJECT (mark), "ts-message"));
}

static void
ts_editor_add_mark_attributes (TsEditor     *self,
                               TsEditorMark  kind,
                               const char   *icon_name,
                               const char   *background,
                               int           priority)
{
  g_autoptr(GtkSourceMarkAttributes) attributes = gtk_source_mark_attributes_new ();
  GdkRGBA rgba;

  gdk_rgba_parse (&rgba, background);
  gtk_source_mark_attributes_set_background (attributes, &rgba);
  gtk_source_mark_attributes_set_icon_name (attributes, icon_name);
  g_signal_connect (attributes, "query-tooltip-text",
                    G_CALLBACK (ts_editor_query_tooltip_cb), NULL);
  gtk_source_view_set_mark_attributes (GTK_SOURCE_VIEW (self),
                                       mark_categories[kind],
                                       attributes, priority);
}

/* The buffer is set up here rather than in init: GtkSourceView's own
 * constructed() expects the buffer it created itself. */
static void
ts_editor_constructed (GObject *object)
{
  TsEditor *self = TS_EDITOR (object);
  GtkSourceLanguageManager *languages = gtk_source_language_manager_get_default ();
  GtkSourceBuffer *buffer;

  G_OBJECT_CLASS (ts_editor_parent_class)->constructed (object);

  buffer = GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self)));
  gtk_source_buffer_set_language (buffer, gtk_source_language_manager_get_language (languages, "python3"));
  gtk_source_buffer_set_highlight_syntax (buffer, TRUE);
  ts_editor_update_scheme (self);
}

static void
ts_editor_class_init (TsEditorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = ts_editor_constructed;

  gtk_widget_class_set_css_name (widget_class, "editor");
}

static void
ts_editor_init (TsEditor *self)
{
  GtkSourceView *view = GTK_SOURCE_VIEW (self);

  gtk_source_view_set_show_line_numbers (view, TRUE);
  gtk_source_view_set_show_line_marks (view, TRUE);
  gtk_source_view_set_highlight_current_line (view, TRUE);
  gtk_source_view_set_auto_indent (view, TRUE);
  gtk_source_view_set_indent_on_tab (view, TRUE);
  gtk_source_view_set_insert_spaces_instead_of_tabs (view, TRUE);
  gtk_source_view_set_tab_width (view, 4);
  gtk_source_view_set_indent_width (view, 4);
  gtk_source_view_set_smart_backspace (view, TRUE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (self), TRUE);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (self), 6);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (self), 6);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (self), 6);

  ts_editor_add_mark_attributes (self, TS_EDITOR_MARK_ERROR, "dialog-error-symbolic",
                                 "rgba(224,27,36,0.18)", 20);
  ts_editor_add_mark_attributes (self, TS_EDITOR_MARK_RACE, "dialog-warning-symbolic",
                                 "rgba(255,120,0,0.18)", 10);

  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (ts_editor_update_scheme), self,
                           G_CONNECT_SWAPPED);

  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Workload script"),
                                  -1);
}

GtkWidget *
ts_editor_new (void)
{
  return g_object_new (TS_TYPE_EDITOR, NULL);
}

/* A new script starts at its first column: the old horizontal scroll
 * would hide the beginning of every line. */
static void
ts_editor_scroll_home (TsEditor *self)
{
  GtkAdjustment *h = gtk_scrollable_get_hadjustment (GTK_SCROLLABLE (self));
  GtkAdjustment *v = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self));

  if (h != NULL)
    gtk_adjustment_set_value (h, gtk_adjustment_get_lower (h));
  if (v != NULL)
    gtk_adjustment_set_value (v, gtk_adjustment_get_lower (v));
}

/**
 * ts_editor_set_text:
 * @self: a #TsEditor
 * @text: the new script
 *
 * Replaces the script; the buffer is unmodified afterwards. Marks are
 * dropped and the view scrolls back to the top left. Replacing a script
 * can be undone (the first text cannot: there is nothing to go back to).
 */
void
ts_editor_set_text (TsEditor   *self,
                    const char *text)
{
  GtkSourceBuffer *buffer;
  GtkTextIter begin, end;
  gboolean first;

  g_return_if_fail (TS_IS_EDITOR (self));
  g_return_if_fail (text != NULL);

  buffer = GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self)));
  ts_editor_clear_marks (self);
  first = gtk_text_buffer_get_char_count (GTK_TEXT_BUFFER (buffer)) == 0;
  /* One user action is one undo step: Ctrl+Z brings the old script back. */
  if (first)
    gtk_text_buffer_begin_irreversible_action (GTK_TEXT_BUFFER (buffer));
  else
    gtk_text_buffer_begin_user_action (GTK_TEXT_BUFFER (buffer));
  gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (buffer), &begin, &end);
  gtk_text_buffer_delete (GTK_TEXT_BUFFER (buffer), &begin, &end);
  gtk_text_buffer_insert (GTK_TEXT_BUFFER (buffer), &begin, text, -1);
  if (first)
    gtk_text_buffer_end_irreversible_action (GTK_TEXT_BUFFER (buffer));
  else
    gtk_text_buffer_end_user_action (GTK_TEXT_BUFFER (buffer));
  gtk_text_buffer_get_start_iter (GTK_TEXT_BUFFER (buffer), &begin);
  gtk_text_buffer_place_cursor (GTK_TEXT_BUFFER (buffer), &begin);
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (buffer), FALSE);
  ts_editor_scroll_home (self);
}

/**
 * ts_editor_dup_text:
 * @self: a #TsEditor
 *
 * Returns: (transfer full): the script
 */
char *
ts_editor_dup_text (TsEditor *self)
{
  GtkTextBuffer *buffer;
  GtkTextIter begin, end;

  g_return_val_if_fail (TS_IS_EDITOR (self), NULL);

  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self));
  gtk_text_buffer_get_bounds (buffer, &begin, &end);
  return gtk_text_buffer_get_text (buffer, &begin, &end, TRUE);
}

gboolean
ts_editor_get_modified (TsEditor *self)
{
  g_return_val_if_fail (TS_IS_EDITOR (self), FALSE);

  return gtk_text_buffer_get_modified (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self)));
}

void
ts_editor_set_modified (TsEditor *self,
                        gboolean  modified)
{
  g_return_if_fail (TS_IS_EDITOR (self));

  gtk_text_buffer_set_modified (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self)), modified);
}

/**
 * ts_editor_goto_line:
 * @self: a #TsEditor
 * @line: a line number, from 1
 *
 * Puts the cursor at the start of @line and scrolls it into the middle.
 *
 * Returns: %FALSE if the script has no such line
 */
gboolean
ts_editor_goto_line (TsEditor *self,
                     guint     line)
{
  GtkTextBuffer *buffer;
  GtkTextIter iter;

  g_return_val_if_fail (TS_IS_EDITOR (self), FALSE);

  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self));
  if (line == 0 || line > (guint)gtk_text_buffer_get_line_count (buffer))
    return FALSE;

  gtk_text_buffer_get_iter_at_line (buffer, &iter, line - 1);
  gtk_text_buffer_place_cursor (buffer, &iter);
  gtk_text_view_scroll_to_mark (GTK_TEXT_VIEW (self),
                                gtk_text_buffer_get_insert (buffer),
                                0.0, TRUE, 0.0, 0.5);
  return TRUE;
}

/**
 * ts_editor_get_cursor_line:
 * @self: a #TsEditor
 *
 * Returns: the line of the cursor, from 1
 */
guint
ts_editor_get_cursor_line (TsEditor *self)
{
  GtkTextBuffer *buffer;
  GtkTextIter iter;

  g_return_val_if_fail (TS_IS_EDITOR (self), 0);

  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self));
  gtk_text_buffer_get_iter_at_mark (buffer, &iter, gtk_text_buffer_get_insert (buffer));
  return gtk_text_iter_get_line (&iter) + 1;
}

/**
 * ts_editor_mark_line:
 * @self: a #TsEditor
 * @line: a line number, from 1
 * @kind: what happened on that line
 * @message: (nullable): shown as the tooltip of the mark
 *
 * Highlights @line and puts an icon in the gutter. Lines past the end
 * are ignored.
 */
void
ts_editor_mark_line (TsEditor     *self,
                     guint         line,
                     TsEditorMark  kind,
                     const char   *message)
{
  GtkSourceBuffer *buffer;
  GtkSourceMark *mark;
  GtkTextIter iter;

  g_return_if_fail (TS_IS_EDITOR (self));
  g_return_if_fail (kind <= TS_EDITOR_MARK_RACE);

  buffer = GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self)));
  if (line == 0 || line > (guint)gtk_text_buffer_get_line_count (GTK_TEXT_BUFFER (buffer)))
    return;

  gtk_text_buffer_get_iter_at_line (GTK_TEXT_BUFFER (buffer), &iter, line - 1);
  mark = gtk_source_buffer_create_source_mark (buffer, NULL, mark_categories[kind], &iter);
  g_object_set_data_full (G_OBJECT (mark), "ts-message", g_strdup (message), g_free);
}

/**
 * ts_editor_count_marks:
 * @self: a #TsEditor
 * @kind: a kind of mark
 *
 * Returns: how many lines carry a mark of @kind
 */
guint
ts_editor_count_marks (TsEditor     *self,
                       TsEditorMark  kind)
{
  GtkSourceBuffer *buffer;
  GtkTextIter begin, end;
  GSList *marks;
  guint n;

  g_return_val_if_fail (TS_IS_EDITOR (self), 0);
  g_return_val_if_fail (kind <= TS_EDITOR_MARK_RACE, 0);

  buffer = GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self)));
  gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (buffer), &begin, &end);
  marks = gtk_source_buffer_get_source_marks_at_iter (buffer, &begin, mark_categories[kind]);
  n = g_slist_length (marks);
  g_slist_free (marks);

  while (gtk_source_buffer_forward_iter_to_source_mark (buffer, &begin, mark_categories[kind]))
    {
      marks = gtk_source_buffer_get_source_marks_at_iter (buffer, &begin, mark_categories[kind]);
      n += g_slist_length (marks);
      g_slist_free (marks);
    }

  return n;
}

void
ts_editor_clear_marks (TsEditor *self)
{
  GtkSourceBuffer *buffer;
  GtkTextIter begin, end;

  g_return_if_fail (TS_IS_EDITOR (self));

  buffer = GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self)));
  gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (buffer), &begin, &end);
  gtk_source_buffer_remove_source_marks (buffer, &begin, &end, NULL);
}
