/* ts-memory-panel.c: the Memory page of the window
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The widgets are in ts-memory-panel.ui; the rows of figures, the stats
 * table's models and columns are made here.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ts-application.h"
#include "ts-memory-fragmentation.h"
#include "ts-memory-panel.h"
#include "ts-trace-import.h"
#include "ts-memory-stat-item.h"
#include "ts-memory-stats.h"
#include "ts-util-private.h"

/* The figures of the fragmentation page, in display order. */
enum {
  FIG_RESERVED,
  FIG_ALLOCATED,
  FIG_ACTIVE,
  FIG_PENDING,
  FIG_CACHED_FREE,
  FIG_LARGEST_LARGE,
  FIG_LARGEST_SMALL,
  FIG_NON_RELEASABLE,
  FIG_RELEASABLE,
  FIG_WASTE,
  N_FIGURES
};

static const char * const figure_names[N_FIGURES] = {
  N_("Reserved"),
  N_("Allocated"),
  N_("Active (allocated + pending free)"),
  N_("Pending free (record_stream)"),
  N_("Cached free (reserved − active)"),
  N_("Largest free block, large pool"),
  N_("Largest free block, small pool"),
  N_("Non-releasable (inactive_split_bytes)"),
  N_("Releasable by empty_cache()"),
  N_("Internal waste (rounding)"),
};

struct _TsMemoryPanel
{
  GtkWidget        parent_instance;

  TsTraceDocument *document;
  TsMemoryReplay  *replay;
  gsize            instant;
  /* The instant was placed for the user (peak or OOM), not by the user:
   * a rebuilt document places it again. */
  gboolean         instant_auto;
  gboolean         by_events;      /* the replay's axis */
  guint            device;
  guint            update_source;

  GtkWidget       *box;
  GtkAdjustment   *adjustment;
  GtkWidget       *scale;
  GtkWidget       *instant_label;
  GtkWidget       *oom_button;
  GtkWidget       *events_button;
  GtkDropDown     *device_dropdown;
  GtkStringList   *device_names;
  GtkAdjustment   *detail_adjustment;
  TsMemoryView    *view;
  TsSegmentMap    *map;
  GtkStack        *side_stack;
  GtkWidget       *figure_values[N_FIGURES];
  GtkWidget       *free_space_label;
  GtkWidget       *explanation_label;
  GListStore      *stats_store;
  GtkFilterListModel *stats_filtered;
  GtkSortListModel *stats_sorted;
  GtkColumnView   *stats_view;
  GtkWidget       *search_entry;
  GtkStringFilter *filter;
  GtkTextBuffer   *summary_buffer;
  char            *summary_text;     /* what summary_buffer holds */
};

G_DEFINE_FINAL_TYPE (TsMemoryPanel, ts_memory_panel, GTK_TYPE_WIDGET)

/* The side pages (fragmentation, 122 stats rows, summary) follow the
 * instant once the slider has rested this long: computed and laid out in
 * the frame right after a slider move, they delayed the map's next frame
 * by tens of milliseconds, and nobody reads them mid-scrub. */
#define SIDE_UPDATE_DELAY_MS 100

static gboolean update_timeout_cb (gpointer data);

static void
queue_update (TsMemoryPanel *self)
{
  g_clear_handle_id (&self->update_source, g_source_remove);
  self->update_source = g_timeout_add_full (G_PRIORITY_DEFAULT_IDLE, SIDE_UPDATE_DELAY_MS,
                                            update_timeout_cb, self, NULL);
}

/* The formats below use %lld and %lu, never G_GINT64_FORMAT or
 * G_GSIZE_FORMAT: xgettext cuts a msgid at a macro, so such a string
 * would never be looked up in the catalogue. */
static void
set_figure (TsMemoryPanel *self,
            guint          figure,
            gint64         bytes,
            GString       *text)
{
  g_autofree char *s = ts_memory_format_bytes ((guint64) MAX (bytes, 0));
  g_autofree char *full = g_strdup_printf (_("%s (%lld bytes)"), s, (long long) bytes);

  gtk_label_set_text (GTK_LABEL (self->figure_values[figure]), full);
  g_string_append_printf (text, "%s: %s\n", _(figure_names[figure]), full);
}

static void
update_fragmentation (TsMemoryPanel       *self,
                      const TsMemoryState *state)
{
  g_autoptr(TsMemoryFragmentation) frag = NULL;
  g_autoptr(GString) free_text = g_string_new (NULL);
  g_autoptr(GString) why = g_string_new (NULL);
  g_autoptr(GString) all = g_string_new (NULL);

  if (self->device >= state->n_devices)
    {
      for (guint k = 0; k < N_FIGURES; k++)
        gtk_label_set_text (GTK_LABEL (self->figure_values[k]), "—");
      gtk_label_set_text (GTK_LABEL (self->free_space_label), "");
      gtk_label_set_text (GTK_LABEL (self->explanation_label), _("No allocator actions on this device yet."));
      return;
    }

  frag = ts_memory_fragmentation_compute (self->replay, state, self->device, 8);
  set_figure (self, FIG_RESERVED, frag->reserved, all);
  set_figure (self, FIG_ALLOCATED, frag->allocated, all);
  set_figure (self, FIG_ACTIVE, frag->active, all);
  set_figure (self, FIG_PENDING, frag->pending_free, all);
  set_figure (self, FIG_CACHED_FREE, frag->cached_free, all);
  set_figure (self, FIG_LARGEST_LARGE, (gint64) frag->largest_free[0], all);
  set_figure (self, FIG_LARGEST_SMALL, (gint64) frag->largest_free[1], all);
  set_figure (self, FIG_NON_RELEASABLE, frag->non_releasable, all);
  set_figure (self, FIG_RELEASABLE, frag->releasable, all);
  set_figure (self, FIG_WASTE, frag->internal_waste, all);

  for (guint k = 0; k < frag->free_space->len; k++)
    {
      const TsMemoryFreeSpace *fs = &g_array_index (frag->free_space, TsMemoryFreeSpace, k);
      g_autofree char *largest = ts_memory_format_bytes (fs->largest_free);
      g_autofree char *total = ts_memory_format_bytes (fs->total_free);

      g_string_append_printf (free_text, _("%s pool, stream %u: largest free block %s of %s free in %u blocks\n"),
                              fs->is_small ? _("Small") : _("Large"), fs->stream, largest, total,
                              fs->n_free_blocks);
      /* A private pool's free blocks serve only its own mallocs. */
      if (!TS_MEM_POOL_ID_IS_NONE (fs->pool_id))
        {
          g_autofree char *pool = ts_memory_pool_name (fs->pool_id);

          g_string_truncate (free_text, free_text->len - 1);
          g_string_append_printf (free_text, " (%s)\n", pool);
        }
    }
  if (free_text->len > 0)
    g_string_truncate (free_text, free_text->len - 1);
  gtk_label_set_text (GTK_LABEL (self->free_space_label), free_text->str);
  g_string_append_printf (all, "%s\n", free_text->str);

  for (guint k = 0; k < frag->explanations->len; k++)
    {
      g_autofree char *text = _ts_hide_run_dir (g_ptr_array_index (frag->explanations, k));

      g_string_append_printf (why, "%s• %s", k ? "\n\n" : "", text);
    }
  gtk_label_set_text (GTK_LABEL (self->explanation_label), why->str);
}

static void
update_stats (TsMemoryPanel       *self,
              const TsMemoryState *state)
{
  g_autofree char *summary = NULL;
  TsMemoryStats empty;
  const TsMemoryStats *stats;

  if (self->device < state->n_devices)
    stats = &state->stats[self->device];
  else
    {
      ts_memory_stats_init (&empty, -1);
      stats = &empty;
    }

  /* The rows stay and their values change in place: the cells of a bound
   * row follow "value", and only a changed value re-sorts. Replacing the
   * 122 rows made the filter, sort and table models redo everything (and
   * replacing the changed ones one by one cost as much). */
  if (g_list_model_get_n_items (G_LIST_MODEL (self->stats_store)) != TS_MEMORY_STATS_N_KEYS)
    {
      g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

      for (guint k = 0; k < TS_MEMORY_STATS_N_KEYS; k++)
        g_ptr_array_add (items, ts_memory_stat_item_new (ts_memory_stats_key (k), ts_memory_stats_value (stats, k)));
      g_list_store_splice (self->stats_store, 0, g_list_model_get_n_items (G_LIST_MODEL (self->stats_store)),
                           items->pdata, items->len);
    }
  else
    {
      gboolean changed = FALSE;

      for (guint k = 0; k < TS_MEMORY_STATS_N_KEYS; k++)
        {
          g_autoptr(TsMemoryStatItem) item = g_list_model_get_item (G_LIST_MODEL (self->stats_store), k);

          changed |= ts_memory_stat_item_set_value (item, ts_memory_stats_value (stats, k));
        }
      /* The sort model does not watch the items; with no sort column the
       * order stays and nothing is re-bound. */
      if (changed)
        gtk_sorter_changed (gtk_column_view_get_sorter (self->stats_view), GTK_SORTER_CHANGE_DIFFERENT);
    }

  summary = ts_memory_stats_format_summary (stats, (int) self->device, FALSE);
  /* The text view re-validates all its lines on set_text. */
  if (g_strcmp0 (summary, self->summary_text) != 0)
    {
      gtk_text_buffer_set_text (self->summary_buffer, summary, -1);
      g_free (self->summary_text);
      self->summary_text = g_steal_pointer (&summary);
    }
}

static void
update_instant_label (TsMemoryPanel *self)
{
  g_autofree char *text = NULL;
  gsize n = self->replay ? ts_memory_replay_get_n_actions (self->replay) : 0;
  TsTime t = self->instant > 0 && self->replay ? ts_memory_replay_get_trace_time (self->replay, self->instant - 1) : 0;

  if (t < 1000000)
    text = g_strdup_printf (_("After action %lu of %lu · %.3f µs"),
                            (gulong) self->instant, (gulong) n, (double) t / 1e3);
  else
    text = g_strdup_printf (_("After action %lu of %lu · %.3f ms"),
                            (gulong) self->instant, (gulong) n, (double) t / 1e6);
  gtk_label_set_text (GTK_LABEL (self->instant_label), text);
}

void
ts_memory_panel_update_now (TsMemoryPanel *self)
{
  const TsMemoryState *state;

  g_return_if_fail (TS_IS_MEMORY_PANEL (self));

  g_clear_handle_id (&self->update_source, g_source_remove);
  update_instant_label (self);
  state = ts_segment_map_get_state (self->map);
  if (state == NULL)
    {
      TsMemoryState none = { 0 };

      g_list_store_remove_all (self->stats_store);
      gtk_text_buffer_set_text (self->summary_buffer, "", -1);
      g_clear_pointer (&self->summary_text, g_free);
      update_fragmentation (self, &none);
      return;
    }
  update_fragmentation (self, state);
  update_stats (self, state);
}

static gboolean
update_timeout_cb (gpointer data)
{
  TsMemoryPanel *self = data;

  self->update_source = 0;
  ts_memory_panel_update_now (self);
  return G_SOURCE_REMOVE;
}

static void
scale_changed_cb (TsMemoryPanel *self,
                  GtkAdjustment *adjustment)
{
  ts_memory_panel_set_instant (self, (gsize) gtk_adjustment_get_value (adjustment));
}

static void
view_instant_cb (TsMemoryPanel *self)
{
  ts_memory_panel_set_instant (self, ts_memory_view_get_instant (self->view));
}

static void events_toggled_cb (TsMemoryPanel *self);

static void
oom_clicked_cb (TsMemoryPanel *self)
{
  guint n = self->replay ? ts_memory_replay_get_n_ooms (self->replay) : 0;

  /* The next OOM after the instant, wrapping around. */
  for (guint k = 0; k < n; k++)
    if (ts_memory_replay_get_oom (self->replay, k)->action > self->instant)
      {
        ts_memory_panel_show_oom (self, k);
        return;
      }
  if (n > 0)
    ts_memory_panel_show_oom (self, 0);
}

static void
step_back_cb (TsMemoryPanel *self)
{
  if (self->instant > 0)
    ts_memory_panel_set_instant (self, self->instant - 1);
}

static void
step_forward_cb (TsMemoryPanel *self)
{
  ts_memory_panel_set_instant (self, self->instant + 1);
}

static void
device_changed_cb (TsMemoryPanel *self)
{
  guint d = gtk_drop_down_get_selected (self->device_dropdown);

  if (d != GTK_INVALID_LIST_POSITION)
    ts_memory_panel_set_device (self, d);
}

static void
detail_changed_cb (TsMemoryPanel *self,
                   GtkAdjustment *adjustment)
{
  ts_memory_view_set_detail (self->view, (guint) gtk_adjustment_get_value (adjustment));
}

static void
search_changed_cb (TsMemoryPanel  *self,
                   GtkSearchEntry *entry)
{
  gtk_string_filter_set_search (self->filter, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

/* Column cells: a label set on bind. */
static void
setup_label_cb (GtkSignalListItemFactory *factory,
                GtkListItem              *item,
                gpointer                  xalign)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), GPOINTER_TO_INT (xalign) ? 1.0 : 0.0);
  gtk_widget_add_css_class (label, "monospace");
  gtk_list_item_set_child (item, label);
}

static void
bind_key_cb (GtkSignalListItemFactory *factory,
             GtkListItem              *item)
{
  TsMemoryStatItem *stat = gtk_list_item_get_item (item);

  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)), ts_memory_stat_item_get_key (stat));
}

static void
show_value (TsMemoryStatItem *stat,
            GParamSpec       *pspec,
            GtkLabel         *label)
{
  char text[32];

  g_snprintf (text, sizeof text, "%" G_GINT64_FORMAT, ts_memory_stat_item_get_value (stat));
  gtk_label_set_text (label, text);
}

static void
show_readable (TsMemoryStatItem *stat,
               GParamSpec       *pspec,
               GtkLabel         *label)
{
  g_autofree char *text = ts_memory_stat_item_format (stat);

  gtk_label_set_text (label, text);
}

/* The value cells follow the item while bound: values change in place
 * when the instant moves. */
static void
bind_value_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               gpointer                  show)
{
  TsMemoryStatItem *stat = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);

  ((void (*) (TsMemoryStatItem *, GParamSpec *, GtkLabel *)) show) (stat, NULL, GTK_LABEL (label));
  g_signal_connect_object (stat, "notify::value", G_CALLBACK (show), label, 0);
}

static void
unbind_value_cb (GtkSignalListItemFactory *factory,
                 GtkListItem              *item,
                 gpointer                  show)
{
  g_signal_handlers_disconnect_by_func (gtk_list_item_get_item (item), show, gtk_list_item_get_child (item));
}

static void
add_column (TsMemoryPanel *self,
            const char    *title,
            GCallback      bind,
            GCallback      show,
            gboolean       right,
            GtkSorter     *sorter,
            gboolean       expand)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *column;

  g_signal_connect (factory, "setup", G_CALLBACK (setup_label_cb), GINT_TO_POINTER (right));
  if (show != NULL)
    {
      g_signal_connect (factory, "bind", G_CALLBACK (bind_value_cb), show);
      g_signal_connect (factory, "unbind", G_CALLBACK (unbind_value_cb), show);
    }
  else
    g_signal_connect (factory, "bind", bind, NULL);
  column = gtk_column_view_column_new (title, factory);
  gtk_column_view_column_set_sorter (column, sorter);
  gtk_column_view_column_set_expand (column, expand);
  gtk_column_view_column_set_resizable (column, TRUE);
  gtk_column_view_append_column (self->stats_view, column);
  g_clear_object (&sorter);
  g_object_unref (column);
}

/* One row per figure: its name, and its value as the instant moves. */
static void
add_figures (TsMemoryPanel *self)
{
  GObject *grid = gtk_widget_get_template_child (GTK_WIDGET (self), TS_TYPE_MEMORY_PANEL, "figures_grid");

  for (guint k = 0; k < N_FIGURES; k++)
    {
      GtkWidget *name = gtk_label_new (_(figure_names[k]));

      gtk_label_set_xalign (GTK_LABEL (name), 0);
      gtk_widget_add_css_class (name, "dim-label");
      self->figure_values[k] = gtk_label_new ("—");
      gtk_label_set_xalign (GTK_LABEL (self->figure_values[k]), 0);
      gtk_label_set_selectable (GTK_LABEL (self->figure_values[k]), TRUE);
      gtk_widget_add_css_class (self->figure_values[k], "numeric");
      gtk_grid_attach (GTK_GRID (grid), name, 0, k, 1, 1);
      gtk_grid_attach (GTK_GRID (grid), self->figure_values[k], 1, k, 1, 1);
    }
}

/* The table of memory_stats(): filtered by the search entry, sorted by
 * the clicked column. */
static void
setup_stats (TsMemoryPanel *self)
{
  GtkSelectionModel *selection;

  self->stats_store = g_list_store_new (TS_TYPE_MEMORY_STAT_ITEM);
  self->filter = gtk_string_filter_new (gtk_property_expression_new (TS_TYPE_MEMORY_STAT_ITEM, NULL, "key"));
  gtk_string_filter_set_match_mode (self->filter, GTK_STRING_FILTER_MATCH_MODE_SUBSTRING);
  gtk_string_filter_set_ignore_case (self->filter, TRUE);
  self->stats_filtered = gtk_filter_list_model_new (G_LIST_MODEL (g_object_ref (self->stats_store)),
                                                    GTK_FILTER (g_object_ref (self->filter)));
  self->stats_sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (self->stats_filtered)),
                                                g_object_ref (gtk_column_view_get_sorter (self->stats_view)));
  selection = GTK_SELECTION_MODEL (gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->stats_sorted))));
  gtk_single_selection_set_autoselect (GTK_SINGLE_SELECTION (selection), FALSE);
  gtk_column_view_set_model (self->stats_view, selection);
  g_object_unref (selection);

  add_column (self, _("Key"), G_CALLBACK (bind_key_cb), NULL, FALSE,
              GTK_SORTER (gtk_string_sorter_new (gtk_property_expression_new (TS_TYPE_MEMORY_STAT_ITEM, NULL, "key"))),
              TRUE);
  add_column (self, _("Value"), NULL, G_CALLBACK (show_value), TRUE,
              GTK_SORTER (gtk_numeric_sorter_new (gtk_property_expression_new (TS_TYPE_MEMORY_STAT_ITEM, NULL, "value"))),
              FALSE);
  add_column (self, _("Bytes"), NULL, G_CALLBACK (show_readable), TRUE,
              GTK_SORTER (gtk_numeric_sorter_new (gtk_property_expression_new (TS_TYPE_MEMORY_STAT_ITEM, NULL, "value"))),
              FALSE);
}

static void
ts_memory_panel_dispose (GObject *object)
{
  TsMemoryPanel *self = (TsMemoryPanel *) object;

  g_clear_handle_id (&self->update_source, g_source_remove);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  gtk_widget_dispose_template (GTK_WIDGET (self), TS_TYPE_MEMORY_PANEL);
  g_clear_object (&self->stats_store);
  g_clear_object (&self->stats_filtered);
  g_clear_object (&self->stats_sorted);
  g_clear_object (&self->filter);
  g_clear_object (&self->replay);
  g_clear_object (&self->document);
  g_clear_pointer (&self->summary_text, g_free);
  G_OBJECT_CLASS (ts_memory_panel_parent_class)->dispose (object);
}

static void
ts_memory_panel_class_init (TsMemoryPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ts_memory_panel_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "memorypanel");

  g_type_ensure (TS_TYPE_MEMORY_VIEW);
  g_type_ensure (TS_TYPE_SEGMENT_MAP);
  gtk_widget_class_set_template_from_resource (widget_class, TS_RESOURCE_PATH "/ts-memory-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, TsMemoryPanel, box);
  gtk_widget_class_bind_template_child (widget_class, TsMemoryPanel, adjustment);
  gtk_widget_class_bind_template_child (widget_class, TsMemoryPanel, scale);
  gtk_widget_class_bind_template_child (widget_class, TsMemoryPanel, instant_label);
  gtk_widget_class_bind_template_child (widget_class, TsMemoryPanel, oom_button);
  gtk_widget_class_bind_template_child (widget_class, TsMemoryPanel, events_button);
  gtk_widget_class_bind_template_child (widget_class, TsMemoryPanel, device_dropdown);
  gtk_widget_class_bind_template_child (widget_class, TsMemoryPanel, device_names);
  gtk_widget_class_bind_template_child (widget_class, TsMemoryPanel, detail_adjustment);
  gtk_widget_class_bind_template_child (widget_class, TsMemoryPanel, view);
  gtk_widget_class_bind_template_child (widget_class, TsMemoryPanel, map);
  gtk_widget_class_bind_template_child (widget_class, TsMemoryPanel, side_stack);
  gtk_widget_class_bind_template_child (widget_class, TsMemoryPanel, free_space_label);
  gtk_widget_class_bind_template_child (widget_class, TsMemoryPanel, explanation_label);
  gtk_widget_class_bind_template_child (widget_class, TsMemoryPanel, stats_view);
  gtk_widget_class_bind_template_child (widget_class, TsMemoryPanel, search_entry);
  gtk_widget_class_bind_template_child (widget_class, TsMemoryPanel, summary_buffer);
  /* Offset 0: only for gtk_widget_get_template_child() in init. */
  gtk_widget_class_bind_template_child_full (widget_class, "figures_grid", FALSE, 0);
  gtk_widget_class_bind_template_callback (widget_class, scale_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, step_back_cb);
  gtk_widget_class_bind_template_callback (widget_class, step_forward_cb);
  gtk_widget_class_bind_template_callback (widget_class, oom_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, events_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, device_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, detail_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, view_instant_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
}

static void
ts_memory_panel_init (TsMemoryPanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  add_figures (self);
  setup_stats (self);
  ts_memory_panel_update_now (self);
}

GtkWidget *
ts_memory_panel_new (void)
{
  return g_object_new (TS_TYPE_MEMORY_PANEL, NULL);
}

static void
update_devices (TsMemoryPanel *self)
{
  guint n = self->replay ? ts_memory_replay_get_n_devices (self->replay) : 0;
  guint old = g_list_model_get_n_items (G_LIST_MODEL (self->device_names));
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  if (n == old)
    return;
  for (guint d = 0; d < n; d++)
    g_ptr_array_add (names, g_strdup_printf (_("Device %u"), d));
  g_ptr_array_add (names, NULL);
  gtk_string_list_splice (self->device_names, 0, old, (const char * const *) names->pdata);
  gtk_widget_set_visible (GTK_WIDGET (self->device_dropdown), n > 1);
  if (self->device < n)
    gtk_drop_down_set_selected (self->device_dropdown, self->device);
}

/* Where a trace is worth opening: just after its first OOM, else at the
 * highest allocated bytes of any device (the end of a trace has usually
 * freed everything, which shows nothing). */
static gsize
ts_memory_panel_opening_instant (TsMemoryPanel *self)
{
  gint64 best = -1;
  TsTime best_time = 0;

  if (self->replay == NULL)
    return 0;
  if (ts_memory_replay_get_n_ooms (self->replay) > 0)
    return ts_memory_replay_get_oom (self->replay, 0)->action + 1;

  for (guint d = 0; d < ts_memory_replay_get_n_devices (self->replay); d++)
    {
      const TsTime *times;
      const gint64 *allocated, *active, *reserved;
      guint n;

      if (!ts_memory_replay_get_usage (self->replay, d, &n, &times, &allocated, &active, &reserved))
        continue;
      for (guint i = 0; i < n; i++)
        if (allocated[i] > best)
          best = allocated[i], best_time = times[i];
    }
  return best < 0 ? ts_memory_replay_get_n_actions (self->replay)
                  : ts_memory_replay_index_at_time (self->replay, best_time);
}

static void ts_memory_panel_move_instant (TsMemoryPanel *self,
                                          gsize          instant);

/* A memory snapshot has allocator actions and nothing else: its times are
 * only an order, so it opens on the events axis, as memory_viz shows it. */
static gboolean
is_snapshot (TsTraceDocument *document)
{
  TsRecorder *recorder = ts_trace_document_get_recorder (document);
  g_autoptr(GPtrArray) notes = NULL;

  if (ts_recorder_get_count (recorder, TS_RECORD_ALLOC) == 0 ||
      ts_recorder_get_count (recorder, TS_RECORD_KERNEL) > 0 ||
      ts_recorder_get_count (recorder, TS_RECORD_API_CALL) > 0)
    return FALSE;
  notes = ts_trace_import_get_notes (recorder);   /* an import says what it read */
  return notes->len > 0;
}

/* (Re)builds the replay on the axis the button asks for and hands it to
 * the view and the map; the instant (an action index) means the same on
 * both axes, so it is kept. */
static void
attach_replay (TsMemoryPanel *self,
               gboolean       first)
{
  gboolean by_events = gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (self->events_button));
  gsize old_n, old_instant, n;
  gboolean at_end;

  old_n = self->replay ? ts_memory_replay_get_n_actions (self->replay) : 0;
  old_instant = self->instant;
  at_end = old_instant >= old_n;
  g_clear_object (&self->replay);
  if (self->document != NULL)
    {
      TsRecorder *recorder = ts_trace_document_get_recorder (self->document);

      self->replay = by_events ? ts_memory_replay_new_by_events (recorder) : ts_memory_replay_new (recorder);
    }
  n = self->replay ? ts_memory_replay_get_n_actions (self->replay) : 0;

  ts_memory_view_set_document (self->view, self->document, self->replay);
  ts_segment_map_set_replay (self->map, self->replay);
  update_devices (self);
  gtk_widget_set_sensitive (self->oom_button, self->replay && ts_memory_replay_get_n_ooms (self->replay) > 0);

  /* The slider spans the actions. A new trace opens at its first OOM or
   * its peak, and a rebuilt one moves there too until the user moved the
   * instant; then it stays, or follows the end when it was there. */
  gtk_adjustment_set_upper (self->adjustment, (double) n);
  gtk_adjustment_set_page_increment (self->adjustment, MAX (1.0, (double) n / 20));
  if (first || at_end || self->instant_auto || by_events != self->by_events)
    ts_memory_view_zoom_to_fit (self->view);
  self->by_events = by_events;
  if (first)
    self->instant_auto = TRUE;
  self->instant = G_MAXSIZE;   /* forces the update below */
  if (!self->instant_auto)
    ts_memory_panel_move_instant (self, at_end ? n : MIN (old_instant, n));
  else
    {
      ts_memory_panel_move_instant (self, ts_memory_panel_opening_instant (self));
      if (self->replay != NULL && ts_memory_replay_get_n_ooms (self->replay) > 0)
        ts_memory_panel_set_device (self, ts_memory_replay_get_oom (self->replay, 0)->device);
    }
}

static void
events_toggled_cb (TsMemoryPanel *self)
{
  if (self->document != NULL)
    attach_replay (self, FALSE);
}

void
ts_memory_panel_set_document (TsMemoryPanel   *self,
                              TsTraceDocument *document)
{
  gboolean first;

  g_return_if_fail (TS_IS_MEMORY_PANEL (self));
  g_return_if_fail (document == NULL || TS_IS_TRACE_DOCUMENT (document));

  first = self->document == NULL;
  if (!g_set_object (&self->document, document))
    return;
  /* Each new file picks its axis; a rerun of the same script keeps the user's. */
  if (first && document != NULL)
    {
      g_signal_handlers_block_by_func (self->events_button, events_toggled_cb, self);
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->events_button), is_snapshot (document));
      g_signal_handlers_unblock_by_func (self->events_button, events_toggled_cb, self);
    }
  attach_replay (self, first);
}

TsTraceDocument *
ts_memory_panel_get_document (TsMemoryPanel *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_PANEL (self), NULL);
  return self->document;
}

TsMemoryReplay *
ts_memory_panel_get_replay (TsMemoryPanel *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_PANEL (self), NULL);
  return self->replay;
}

gsize
ts_memory_panel_get_instant (TsMemoryPanel *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_PANEL (self), 0);
  return self->instant;
}

static void
ts_memory_panel_move_instant (TsMemoryPanel *self,
                              gsize          instant)
{
  gsize n = self->replay ? ts_memory_replay_get_n_actions (self->replay) : 0;

  instant = MIN (instant, n);
  if (instant == self->instant)
    return;
  self->instant = instant;
  /* The map first: it is what the user watches while scrubbing. */
  ts_segment_map_set_instant (self->map, instant);
  ts_memory_view_set_instant (self->view, instant);
  if ((gsize) gtk_adjustment_get_value (self->adjustment) != instant)
    gtk_adjustment_set_value (self->adjustment, (double) instant);
  update_instant_label (self);
  queue_update (self);
}

/* Moved by the user (or for them, by a caller): a rebuilt document keeps
 * the instant rather than jumping to its peak. */
void
ts_memory_panel_set_instant (TsMemoryPanel *self,
                             gsize          instant)
{
  gsize n;

  g_return_if_fail (TS_IS_MEMORY_PANEL (self));

  n = self->replay ? ts_memory_replay_get_n_actions (self->replay) : 0;
  if (MIN (instant, n) == self->instant)
    return;
  self->instant_auto = FALSE;
  ts_memory_panel_move_instant (self, instant);
}

void
ts_memory_panel_set_instant_time (TsMemoryPanel *self,
                                  TsTime         time)
{
  g_return_if_fail (TS_IS_MEMORY_PANEL (self));

  if (self->replay != NULL)
    ts_memory_panel_set_instant (self, ts_memory_replay_index_at_time (self->replay, time));
}

gboolean
ts_memory_panel_show_oom (TsMemoryPanel *self,
                          guint          n)
{
  const TsMemoryOom *oom;

  g_return_val_if_fail (TS_IS_MEMORY_PANEL (self), FALSE);

  if (self->replay == NULL || n >= ts_memory_replay_get_n_ooms (self->replay))
    return FALSE;
  oom = ts_memory_replay_get_oom (self->replay, n);
  ts_memory_panel_set_device (self, oom->device);
  /* Just after the OOM action, like `tensorscope-cli memory --at oom`:
   * the segments are those the request failed on, and num_ooms counts it. */
  ts_memory_panel_set_instant (self, oom->action + 1);
  return TRUE;
}

guint
ts_memory_panel_get_device (TsMemoryPanel *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_PANEL (self), 0);
  return self->device;
}

void
ts_memory_panel_set_device (TsMemoryPanel *self,
                            guint          device)
{
  g_return_if_fail (TS_IS_MEMORY_PANEL (self));

  if (device == self->device)
    return;
  self->device = device;
  if (device < g_list_model_get_n_items (G_LIST_MODEL (self->device_names)))
    gtk_drop_down_set_selected (self->device_dropdown, device);
  /* One device's map when there are several. */
  if (ts_segment_map_get_renderer (self->map) != NULL && ts_memory_replay_get_n_devices (self->replay) > 1)
    {
      ts_segment_map_renderer_set_device (ts_segment_map_get_renderer (self->map), (gint) device);
      gtk_widget_queue_draw (GTK_WIDGET (self->map));
    }
  queue_update (self);
}

TsMemoryView *
ts_memory_panel_get_memory_view (TsMemoryPanel *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_PANEL (self), NULL);
  return self->view;
}

TsSegmentMap *
ts_memory_panel_get_segment_map (TsMemoryPanel *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_PANEL (self), NULL);
  return self->map;
}

/**
 * ts_memory_panel_set_by_events:
 *
 * Plots memory against allocator events (one step per action) instead of
 * time: the "Events axis" button.
 */
void
ts_memory_panel_set_by_events (TsMemoryPanel *self,
                               gboolean       by_events)
{
  g_return_if_fail (TS_IS_MEMORY_PANEL (self));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->events_button), by_events);
}

gboolean
ts_memory_panel_get_by_events (TsMemoryPanel *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_PANEL (self), FALSE);
  return self->by_events;
}

GtkRange *
ts_memory_panel_get_scale (TsMemoryPanel *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_PANEL (self), NULL);
  return GTK_RANGE (self->scale);
}

GtkEditable *
ts_memory_panel_get_search_entry (TsMemoryPanel *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_PANEL (self), NULL);
  return GTK_EDITABLE (self->search_entry);
}

GListModel *
ts_memory_panel_get_stats_model (TsMemoryPanel *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_PANEL (self), NULL);
  return G_LIST_MODEL (self->stats_sorted);
}

GtkColumnView *
ts_memory_panel_get_stats_view (TsMemoryPanel *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_PANEL (self), NULL);
  return self->stats_view;
}

char *
ts_memory_panel_dup_summary_text (TsMemoryPanel *self)
{
  GtkTextIter begin, end;

  g_return_val_if_fail (TS_IS_MEMORY_PANEL (self), NULL);

  gtk_text_buffer_get_bounds (self->summary_buffer, &begin, &end);
  return gtk_text_buffer_get_text (self->summary_buffer, &begin, &end, FALSE);
}

char *
ts_memory_panel_dup_fragmentation_text (TsMemoryPanel *self)
{
  GString *s;

  g_return_val_if_fail (TS_IS_MEMORY_PANEL (self), NULL);

  s = g_string_new (NULL);
  for (guint k = 0; k < N_FIGURES; k++)
    g_string_append_printf (s, "%s: %s\n", _(figure_names[k]), gtk_label_get_text (GTK_LABEL (self->figure_values[k])));
  g_string_append_printf (s, "%s\n%s\n", gtk_label_get_text (GTK_LABEL (self->free_space_label)),
                          gtk_label_get_text (GTK_LABEL (self->explanation_label)));
  return g_string_free (s, FALSE);
}

void
ts_memory_panel_show_page (TsMemoryPanel *self,
                           const char    *name)
{
  g_return_if_fail (TS_IS_MEMORY_PANEL (self));
  gtk_stack_set_visible_child_name (self->side_stack, name);
}
