/* ts-trace-view.c: the timeline with its toolbar, search and panels
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The widgets are in ts-trace-view.ui; here they follow the timeline.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ts-application.h"
#include "ts-time-ruler.h"
#include "ts-timeline-legend.h"
#include "ts-trace-describe.h"
#include "ts-trace-view.h"

struct _TsTraceView
{
  AdwBin           parent_instance;

  TsTimeline      *timeline;
  GtkLabel        *status_label;
  GtkLabel        *range_label;
  GtkSearchBar    *search_bar;
  GtkSearchEntry  *search_entry;
  GtkLabel        *match_label;
  GtkLabel        *details_label;
  GtkButton       *source_button;
  GtkLabel        *stats_label;
  GtkToggleButton *idle_button;
  GtkPaned        *split_paned;
  GtkPaned        *details_paned;
  GtkGrid         *legend_grid;

  TsSourceLoc      source;
  char            *source_file;
  guint            stats_idle;
};

G_DEFINE_FINAL_TYPE (TsTraceView, ts_trace_view, ADW_TYPE_BIN)

enum {
  GOTO_SOURCE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* --- panels -------------------------------------------------------------- */

static void
update_details (TsTraceView *self)
{
  TsTimelineRenderer *renderer = ts_timeline_get_renderer (self->timeline);
  TsTraceDocument *document = ts_timeline_get_document (self->timeline);
  g_autofree char *markup = NULL;
  guint track, item;

  self->source = TS_SOURCE_LOC_NONE;
  g_clear_pointer (&self->source_file, g_free);

  if (!ts_timeline_get_selected_item (self->timeline, &track, &item) || renderer == NULL)
    {
      gtk_label_set_markup (self->details_label,
                            _("<span alpha=\"70%\">Click an item to see its details. "
                              "Drag with Shift (or on the ruler) to select a range.</span>"));
      gtk_widget_set_visible (GTK_WIDGET (self->source_button), FALSE);
      return;
    }

  markup = ts_trace_describe_item (renderer, track, item);
  gtk_label_set_markup (self->details_label, markup);

  if (ts_trace_item_source (document, track, item, &self->source))
    {
      TsRecorder *recorder = ts_trace_document_get_recorder (document);
      g_autofree char *label = NULL;

      self->source_file = g_strdup (self->source.file ? ts_recorder_lookup (recorder, self->source.file) : "");
      /* Translators: a button that shows a line of the script in the editor */
      label = g_strdup_printf (_("Show Line %u"), self->source.line);
      gtk_button_set_label (self->source_button, label);
      gtk_widget_set_visible (GTK_WIDGET (self->source_button), TRUE);
    }
  else
    gtk_widget_set_visible (GTK_WIDGET (self->source_button), FALSE);
}

static gboolean
update_stats_idle (gpointer data)
{
  TsTraceView *self = data;
  TsTraceDocument *document = ts_timeline_get_document (self->timeline);
  TsTime begin, end;

  self->stats_idle = 0;
  ts_timeline_get_selected_range (self->timeline, &begin, &end);
  if (document == NULL || end <= begin)
    {
      gtk_label_set_markup (self->stats_label,
                            _("<span alpha=\"70%\">No range selected.</span>"));
    }
  else
    {
      g_autoptr(TsTraceStats) stats = ts_trace_stats_compute (document, begin, end);
      g_autofree char *markup = ts_trace_describe_stats (document, stats);

      gtk_label_set_markup (self->stats_label, markup);
    }
  return G_SOURCE_REMOVE;
}

/* Dragging updates the range on every motion: the statistics follow at
 * idle priority, once per burst. */
static void
range_changed_cb (TsTraceView *self)
{
  if (self->stats_idle == 0)
    self->stats_idle = g_idle_add_full (G_PRIORITY_LOW, update_stats_idle, self, NULL);
}

static void
visible_changed_cb (TsTraceView *self)
{
  TsTime begin, end;
  g_autofree char *b = NULL;
  g_autofree char *span = NULL;
  g_autofree char *text = NULL;

  ts_timeline_get_visible_range (self->timeline, &begin, &end);
  b = ts_time_format_duration (MAX (begin, 0));
  span = ts_time_format_duration (end - begin);
  /* Translators: the visible window: "300 µs from 1.20 ms" */
  text = g_strdup_printf (_("%s from %s"), span, b);
  gtk_label_set_label (self->range_label, ts_timeline_get_document (self->timeline) ? text : "");
}

/* The toggle says how many devices it hides or shows, and is there only
 * when some did no work. */
static void
update_idle_button (TsTraceView *self)
{
  TsTimelineRenderer *renderer = ts_timeline_get_renderer (self->timeline);
  guint n = renderer != NULL ? ts_timeline_renderer_get_n_idle_groups (renderer) : 0;
  g_autofree char *label = NULL;

  /* Translators: a toggle button of the timeline's toolbar */
  label = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u Idle Device", "%u Idle Devices", n), n);
  gtk_button_set_label (GTK_BUTTON (self->idle_button), label);
  gtk_widget_set_visible (GTK_WIDGET (self->idle_button), n > 0);
}

static void
source_clicked_cb (TsTraceView *self)
{
  if (self->source.line > 0)
    g_signal_emit (self, signals[GOTO_SOURCE], 0, self->source_file, self->source.line);
}

/* --- search -------------------------------------------------------------- */

static void
update_match_label (TsTraceView *self)
{
  guint n = ts_timeline_get_n_matches (self->timeline);
  guint pos = ts_timeline_get_match_position (self->timeline);
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  g_autofree char *label = NULL;

  if (*text == '\0')
    label = g_strdup ("");
  else if (n == 0)
    label = g_strdup (_("No match"));
  else if (pos == 0)
    label = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u match", "%u matches", n), n);
  else
    /* Translators: "3 of 12" matches */
    label = g_strdup_printf (_("%u of %u"), pos, n);
  gtk_label_set_label (self->match_label, label);
}

static void
search_changed_cb (TsTraceView *self)
{
  ts_timeline_find (self->timeline, gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));
  update_match_label (self);
}

static void
search_next_cb (TsTraceView *self)
{
  ts_timeline_find_next (self->timeline, FALSE);
  update_match_label (self);
}

static void
search_previous_cb (TsTraceView *self)
{
  ts_timeline_find_next (self->timeline, TRUE);
  update_match_label (self);
}

static void
search_stop_cb (TsTraceView *self)
{
  gtk_search_bar_set_search_mode (self->search_bar, FALSE);
  gtk_widget_grab_focus (GTK_WIDGET (self->timeline));
}

void
ts_trace_view_start_search (TsTraceView *self,
                            const char  *text)
{
  g_return_if_fail (TS_IS_TRACE_VIEW (self));

  gtk_search_bar_set_search_mode (self->search_bar, TRUE);
  if (text != NULL)
    gtk_editable_set_text (GTK_EDITABLE (self->search_entry), text);
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

/**
 * ts_trace_view_find_next:
 * @self: a #TsTraceView
 * @backwards: the previous match instead of the next
 *
 * Moves to the next (previous) match of the search, as Ctrl+G (Shift+Ctrl+G)
 * do from anywhere in the window.
 */
void
ts_trace_view_find_next (TsTraceView *self,
                         gboolean     backwards)
{
  g_return_if_fail (TS_IS_TRACE_VIEW (self));

  if (backwards)
    search_previous_cb (self);
  else
    search_next_cb (self);
}

static gboolean
find_shortcut_cb (GtkWidget *widget,
                  GVariant  *args,
                  gpointer   user_data)
{
  ts_trace_view_start_search (TS_TRACE_VIEW (widget), NULL);
  return TRUE;
}

/* --- legend ------------------------------------------------------------- */

static void
draw_swatch_cb (GtkDrawingArea *area,
                cairo_t        *cr,
                int             width,
                int             height,
                gpointer        entry)
{
  const TsRenderPalette *palette = ts_render_palette_get (adw_style_manager_get_dark (adw_style_manager_get_default ()));

  ts_timeline_legend_draw_swatch (cr, entry, palette, width, height);
}

/* A row per mark, its swatch drawn by the renderer's own code. */
static void
fill_legend (TsTraceView *self)
{
  for (guint i = 0; i < ts_timeline_legend_get_n_entries (); i++)
    {
      const TsTimelineLegendEntry *entry = ts_timeline_legend_get_entry (i);
      GtkWidget *swatch = gtk_drawing_area_new ();
      GtkWidget *label = gtk_label_new (ts_timeline_legend_entry_get_label (entry));

      gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (swatch), 24);
      gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (swatch), 12);
      gtk_widget_set_valign (swatch, GTK_ALIGN_CENTER);
      gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (swatch), draw_swatch_cb, (gpointer) entry, NULL);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_grid_attach (self->legend_grid, swatch, 0, i, 1, 1);
      gtk_grid_attach (self->legend_grid, label, 1, i, 1, 1);
    }
}

/* --- construction -------------------------------------------------------- */

/* The zoom buttons: about the middle of the view (not the pointer, which
 * is on the button), and the user's choice of window ends following. */
static void
zoom_about_middle (TsTraceView *self,
                   double       factor)
{
  TsTimelineView view;

  ts_timeline_get_view (self->timeline, &view);
  ts_timeline_set_follow (self->timeline, FALSE);
  ts_timeline_zoom_at (self->timeline, (ts_timeline_renderer_get_label_width (ts_timeline_get_renderer (self->timeline)) + view.width) / 2, factor);
}

static void
zoom_in_cb (TsTraceView *self)
{
  zoom_about_middle (self, 0.5);
}

static void
zoom_out_cb (TsTraceView *self)
{
  zoom_about_middle (self, 2.0);
}

static void
zoom_fit_cb (TsTraceView *self)
{
  ts_timeline_zoom_to_fit (self->timeline);
}

static void
ts_trace_view_dispose (GObject *object)
{
  TsTraceView *self = TS_TRACE_VIEW (object);

  g_clear_handle_id (&self->stats_idle, g_source_remove);
  g_clear_pointer (&self->source_file, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), TS_TYPE_TRACE_VIEW);

  G_OBJECT_CLASS (ts_trace_view_parent_class)->dispose (object);
}

static void
ts_trace_view_class_init (TsTraceViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ts_trace_view_dispose;

  /**
   * TsTraceView::goto-source:
   * @file: the script's path as the trace recorded it
   * @line: 1-based
   */
  signals[GOTO_SOURCE] = g_signal_new ("goto-source", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                       0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_UINT);

  gtk_widget_class_add_binding (widget_class, GDK_KEY_f, GDK_CONTROL_MASK, find_shortcut_cb, NULL);
  gtk_widget_class_set_css_name (widget_class, "traceview");

  g_type_ensure (TS_TYPE_TIMELINE);
  gtk_widget_class_set_template_from_resource (widget_class, TS_RESOURCE_PATH "/ts-trace-view.ui");
  gtk_widget_class_bind_template_child (widget_class, TsTraceView, timeline);
  gtk_widget_class_bind_template_child (widget_class, TsTraceView, status_label);
  gtk_widget_class_bind_template_child (widget_class, TsTraceView, range_label);
  gtk_widget_class_bind_template_child (widget_class, TsTraceView, search_bar);
  gtk_widget_class_bind_template_child (widget_class, TsTraceView, search_entry);
  gtk_widget_class_bind_template_child (widget_class, TsTraceView, match_label);
  gtk_widget_class_bind_template_child (widget_class, TsTraceView, details_label);
  gtk_widget_class_bind_template_child (widget_class, TsTraceView, source_button);
  gtk_widget_class_bind_template_child (widget_class, TsTraceView, stats_label);
  gtk_widget_class_bind_template_child (widget_class, TsTraceView, idle_button);
  gtk_widget_class_bind_template_child (widget_class, TsTraceView, split_paned);
  gtk_widget_class_bind_template_child (widget_class, TsTraceView, details_paned);
  gtk_widget_class_bind_template_child (widget_class, TsTraceView, legend_grid);
  /* Offset 0: only for gtk_widget_get_template_child() in init. */
  gtk_widget_class_bind_template_child_full (widget_class, "scrollbar", FALSE, 0);
  gtk_widget_class_bind_template_callback (widget_class, zoom_in_cb);
  gtk_widget_class_bind_template_callback (widget_class, zoom_out_cb);
  gtk_widget_class_bind_template_callback (widget_class, zoom_fit_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_next_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_previous_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_stop_cb);
  gtk_widget_class_bind_template_callback (widget_class, source_clicked_cb);
}

static void
ts_trace_view_init (TsTraceView *self)
{
  GObject *scrollbar;

  gtk_widget_init_template (GTK_WIDGET (self));

  /* What the .ui file cannot say: the timeline's own adjustment, and the
   * entry the search bar types into. */
  scrollbar = gtk_widget_get_template_child (GTK_WIDGET (self), TS_TYPE_TRACE_VIEW, "scrollbar");
  gtk_scrollbar_set_adjustment (GTK_SCROLLBAR (scrollbar), ts_timeline_get_vadjustment (self->timeline));
  gtk_search_bar_connect_entry (self->search_bar, GTK_EDITABLE (self->search_entry));

  g_signal_connect_object (self->timeline, "notify::selected-item", G_CALLBACK (update_details), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->timeline, "notify::document", G_CALLBACK (update_details), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->timeline, "notify::range-begin", G_CALLBACK (range_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->timeline, "notify::range-end", G_CALLBACK (range_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->timeline, "notify::document", G_CALLBACK (range_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->timeline, "notify::begin", G_CALLBACK (visible_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->timeline, "notify::end", G_CALLBACK (visible_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->timeline, "notify::document", G_CALLBACK (search_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->timeline, "notify::document", G_CALLBACK (update_idle_button), self, G_CONNECT_SWAPPED);
  g_object_bind_property (ts_timeline_get_view_state (self->timeline), "show-idle-devices",
                          self->idle_button, "active", G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);

  fill_legend (self);
  update_details (self);
  update_stats_idle (self);
}

/* A pane's position is remembered once the user can see it: while the
 * view is not mapped GtkPaned clamps the position to whatever size it has
 * been given so far, which a plain binding would store. */
static void
paned_position_cb (GtkPaned   *paned,
                   GParamSpec *pspec,
                   GSettings  *settings)
{
  const char *key = g_object_get_data (G_OBJECT (paned), "ts-settings-key");

  if (gtk_widget_get_mapped (GTK_WIDGET (paned)) && gtk_widget_get_width (GTK_WIDGET (paned)) > 0)
    g_settings_set_int (settings, key, gtk_paned_get_position (paned));
}

static void
bind_paned_position (GSettings  *settings,
                     const char *key,
                     GtkPaned   *paned)
{
  g_object_set_data_full (G_OBJECT (paned), "ts-settings-key", g_strdup (key), g_free);
  gtk_paned_set_position (paned, g_settings_get_int (settings, key));
  g_signal_connect_object (paned, "notify::position", G_CALLBACK (paned_position_cb), settings, 0);
}

/**
 * ts_trace_view_bind_settings:
 * @self: a #TsTraceView
 * @settings: the application's settings
 *
 * Remembers the pane sizes and whether idle devices are shown.
 */
void
ts_trace_view_bind_settings (TsTraceView *self,
                             GSettings   *settings)
{
  g_return_if_fail (TS_IS_TRACE_VIEW (self));
  g_return_if_fail (G_IS_SETTINGS (settings));

  g_settings_bind (settings, "show-idle-devices", ts_timeline_get_view_state (self->timeline),
                   "show-idle-devices", G_SETTINGS_BIND_DEFAULT);
  bind_paned_position (settings, "timeline-split", self->split_paned);
  bind_paned_position (settings, "details-width", self->details_paned);
}

GtkWidget *
ts_trace_view_new (void)
{
  return g_object_new (TS_TYPE_TRACE_VIEW, NULL);
}

TsTimeline *
ts_trace_view_get_timeline (TsTraceView *self)
{
  g_return_val_if_fail (TS_IS_TRACE_VIEW (self), NULL);
  return self->timeline;
}

void
ts_trace_view_set_document (TsTraceView     *self,
                            TsTraceDocument *document)
{
  g_return_if_fail (TS_IS_TRACE_VIEW (self));
  ts_timeline_set_document (self->timeline, document);
}

TsTraceDocument *
ts_trace_view_get_document (TsTraceView *self)
{
  g_return_val_if_fail (TS_IS_TRACE_VIEW (self), NULL);
  return ts_timeline_get_document (self->timeline);
}

void
ts_trace_view_set_status (TsTraceView *self,
                          const char  *status)
{
  g_return_if_fail (TS_IS_TRACE_VIEW (self));
  gtk_label_set_label (self->status_label, status ? status : "");
}

char *
ts_trace_view_dup_details_text (TsTraceView *self)
{
  g_return_val_if_fail (TS_IS_TRACE_VIEW (self), NULL);
  return g_strdup (gtk_label_get_text (self->details_label));
}

/* Statistics are computed at idle: this brings them up to date first. */
char *
ts_trace_view_dup_stats_text (TsTraceView *self)
{
  g_return_val_if_fail (TS_IS_TRACE_VIEW (self), NULL);

  if (self->stats_idle != 0)
    {
      g_clear_handle_id (&self->stats_idle, g_source_remove);
      update_stats_idle (self);
    }
  return g_strdup (gtk_label_get_text (self->stats_label));
}

guint
ts_trace_view_get_source_line (TsTraceView *self)
{
  g_return_val_if_fail (TS_IS_TRACE_VIEW (self), 0);
  return self->source.line;
}
