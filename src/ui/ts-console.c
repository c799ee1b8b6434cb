/* ts-console.c: the output pane of a workload run
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A read-only GtkTextView. stderr lines carry a red tag whose colour
 * follows the light/dark style; the view sticks to the bottom while the
 * user has not scrolled up, and the oldest lines go once there are more
 * than max-lines, so a chatty workload cannot grow the buffer forever.
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "ts-console.h"

#define DEFAULT_MAX_LINES 20000

struct _TsConsole
{
  GtkTextView  parent_instance;

  GtkTextTag  *stderr_tag;
  GtkTextTag  *info_tag;
  GtkTextMark *end_mark;
  guint        max_lines;
};

G_DEFINE_FINAL_TYPE (TsConsole, ts_console, GTK_TYPE_TEXT_VIEW)

enum {
  PROP_0,
  PROP_MAX_LINES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
ts_console_update_colors (TsConsole *self)
{
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());

  /* libadwaita's error colours for each style. */
  g_object_set (self->stderr_tag, "foreground", dark ? "#ff7b63" : "#c01c28", NULL);
  g_object_set (self->info_tag, "foreground", dark ? "#9a9996" : "#77767b", NULL);
}

static gboolean
ts_console_is_at_bottom (TsConsole *self)
{
  GtkAdjustment *vadj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self));

  if (vadj == NULL)
    return TRUE;

  return gtk_adjustment_get_value (vadj) + gtk_adjustment_get_page_size (vadj)
         >= gtk_adjustment_get_upper (vadj) - 1.0;
}

static void
ts_console_trim (TsConsole *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self));
  int n_lines = gtk_text_buffer_get_line_count (buffer);
  GtkTextIter begin, end;

  /* The buffer always ends with an empty line after the last newline. */
  if (self->max_lines == 0 || (guint)n_lines <= self->max_lines + 1)
    return;

  gtk_text_buffer_get_start_iter (buffer, &begin);
  gtk_text_buffer_get_iter_at_line (buffer, &end, n_lines - 1 - self->max_lines);
  gtk_text_buffer_delete (buffer, &begin, &end);
}

static void
ts_console_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  TsConsole *self = TS_CONSOLE (object);

  switch (prop_id)
    {
    case PROP_MAX_LINES:
      g_value_set_uint (value, self->max_lines);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_console_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  TsConsole *self = TS_CONSOLE (object);

  switch (prop_id)
    {
    case PROP_MAX_LINES:
      ts_console_set_max_lines (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_console_class_init (TsConsoleClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = ts_console_get_property;
  object_class->set_property = ts_console_set_property;

  /* 0 keeps every line. */
  properties[PROP_MAX_LINES] =
    g_param_spec_uint ("max-lines", NULL, NULL, 0, G_MAXUINT, DEFAULT_MAX_LINES,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "console");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_TEXT_BOX);
}

static void
ts_console_init (TsConsole *self)
{
  GtkTextView *view = GTK_TEXT_VIEW (self);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  GtkTextIter end;

  self->max_lines = DEFAULT_MAX_LINES;

  gtk_text_view_set_editable (view, FALSE);
  gtk_text_view_set_cursor_visible (view, FALSE);
  gtk_text_view_set_monospace (view, TRUE);
  gtk_text_view_set_wrap_mode (view, GTK_WRAP_WORD_CHAR);
  gtk_text_view_set_left_margin (view, 8);
  gtk_text_view_set_right_margin (view, 8);
  gtk_text_view_set_top_margin (view, 6);
  gtk_text_view_set_bottom_margin (view, 6);

  self->stderr_tag = gtk_text_buffer_create_tag (buffer, "stderr", NULL);
  self->info_tag = gtk_text_buffer_create_tag (buffer, "info", "style", PANGO_STYLE_ITALIC, NULL);
  gtk_text_buffer_get_end_iter (buffer, &end);
  self->end_mark = gtk_text_buffer_create_mark (buffer, NULL, &end, FALSE);

  ts_console_update_colors (self);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (ts_console_update_colors), self,
                           G_CONNECT_SWAPPED);

  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Workload output"),
                                  GTK_ACCESSIBLE_PROPERTY_READ_ONLY, TRUE,
                                  -1);
}

GtkWidget *
ts_console_new (void)
{
  return g_object_new (TS_TYPE_CONSOLE, NULL);
}

/**
 * ts_console_append_line:
 * @self: a #TsConsole
 * @style: how to show the line
 * @line: the text, without a trailing newline
 *
 * Appends a line, and keeps the view at the bottom if it was there.
 */
void
ts_console_append_line (TsConsole      *self,
                        TsConsoleStyle  style,
                        const char     *line)
{
  GtkTextBuffer *buffer;
  GtkTextTag *tag = NULL;
  GtkTextIter end;
  gboolean at_bottom;

  g_return_if_fail (TS_IS_CONSOLE (self));
  g_return_if_fail (line != NULL);

  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self));
  at_bottom = ts_console_is_at_bottom (self);

  if (style == TS_CONSOLE_STDERR)
    tag = self->stderr_tag;
  else if (style == TS_CONSOLE_INFO)
    tag = self->info_tag;

  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert_with_tags (buffer, &end, line, -1, tag, NULL);
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, "\n", 1);

  ts_console_trim (self);

  if (at_bottom)
    {
      gtk_text_buffer_get_end_iter (buffer, &end);
      gtk_text_buffer_move_mark (buffer, self->end_mark, &end);
      gtk_text_view_scroll_mark_onscreen (GTK_TEXT_VIEW (self), self->end_mark);
    }
}

void
ts_console_clear (TsConsole *self)
{
  g_return_if_fail (TS_IS_CONSOLE (self));

  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self)), "", 0);
}

/**
 * ts_console_dup_text:
 * @self: a #TsConsole
 *
 * Returns: (transfer full): everything shown
 */
char *
ts_console_dup_text (TsConsole *self)
{
  GtkTextBuffer *buffer;
  GtkTextIter begin, end;

  g_return_val_if_fail (TS_IS_CONSOLE (self), NULL);

  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self));
  gtk_text_buffer_get_bounds (buffer, &begin, &end);
  return gtk_text_buffer_get_text (buffer, &begin, &end, FALSE);
}

/**
 * ts_console_dup_lines:
 * @self: a #TsConsole
 * @style: which lines
 *
 * Returns: (transfer full): the lines shown with @style, each ending in a
 *   newline (tests use it to check what went to stderr)
 */
char *
ts_console_dup_lines (TsConsole      *self,
                      TsConsoleStyle  style)
{
  GtkTextBuffer *buffer;
  GString *str;
  GtkTextIter iter;

  g_return_val_if_fail (TS_IS_CONSOLE (self), NULL);

  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self));
  str = g_string_new (NULL);

  for (gtk_text_buffer_get_start_iter (buffer, &iter);
       !gtk_text_iter_is_end (&iter);
       gtk_text_iter_forward_line (&iter))
    {
      GtkTextIter line_end = iter;
      gboolean is_stderr = gtk_text_iter_has_tag (&iter, self->stderr_tag);
      gboolean is_info = gtk_text_iter_has_tag (&iter, self->info_tag);
      TsConsoleStyle line_style = is_stderr ? TS_CONSOLE_STDERR : is_info ? TS_CONSOLE_INFO : TS_CONSOLE_STDOUT;
      g_autofree char *text = NULL;

      if (gtk_text_iter_ends_line (&iter) || line_style != style)
        continue;

      gtk_text_iter_forward_to_line_end (&line_end);
      text = gtk_text_iter_get_text (&iter, &line_end);
      g_string_append (str, text);
      g_string_append_c (str, '\n');
    }

  return g_string_free (str, FALSE);
}

guint
ts_console_get_max_lines (TsConsole *self)
{
  g_return_val_if_fail (TS_IS_CONSOLE (self), 0);

  return self->max_lines;
}

void
ts_console_set_max_lines (TsConsole *self,
                          guint      max_lines)
{
  g_return_if_fail (TS_IS_CONSOLE (self));

  if (self->max_lines != max_lines)
    {
      self->max_lines = max_lines;
      ts_console_trim (self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_LINES]);
    }
}
