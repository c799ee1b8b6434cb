/* ts-window-memory.c: the Memory view of the window
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The right-hand pane becomes a GtkStack with two pages, "Timeline" (the
 * timeline stack of ts-window.ui, untouched) and "Memory" (a
 * TsMemoryPanel), switched from the header bar. Built here rather than in
 * the .ui file so that the window's template stays the timeline's.
 *
 * The panel follows the timeline: it shows the timeline's document (the
 * window rebuilds it a few times a second during a run, and once at the
 * end), and its memory view is bound to the timeline's visible window and
 * selected range, so zooming, panning and selecting in either moves both.
 * Selecting an item on the timeline sets the instant to the item's start.
 * A click on a block of the segment map puts the editor on the line that
 * allocated it and selects the allocation's lifetime on the time axis.
 * The replay is only rebuilt while the Memory page is shown.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ts-memory-panel.h"
#include "ts-trace-document.h"
#include "ts-timeline.h"
#include "ts-window-private.h"

struct _TsWindowMemory
{
  GtkStack      *view_stack;
  GtkWidget     *switcher;
  TsMemoryPanel *panel;

  TsTimeline    *timeline;
  /* The timeline's document, handed to the panel when it is shown. */
  gboolean       pending;
};

static void visible_page_cb (TsWindow *self);

static void
block_activated_cb (TsWindow              *self,
                    const TsSegmentMapHit *hit,
                    TsSegmentMap          *map)
{
  TsMemoryView *view = ts_memory_panel_get_memory_view (self->memory->panel);
  TsTraceDocument *document = ts_memory_panel_get_document (self->memory->panel);
  TsMemoryReplay *replay = ts_memory_panel_get_replay (self->memory->panel);
  TsTime begin = 0, end = 0;

  if (hit->loc.line > 0)
    ts_editor_goto_line (self->editor, hit->loc.line);

  /* The allocation's span: from its malloc to its free, or to the end of
   * the trace (its last record or allocator action) while it lives. */
  if (document != NULL)
    ts_trace_document_get_time_span (document, &begin, &end);
  if (replay != NULL && ts_memory_replay_get_n_actions (replay) > 0)
    end = MAX (end, ts_memory_replay_get_action_time (replay, ts_memory_replay_get_n_actions (replay) - 1));
  ts_memory_view_set_selected_range (view, hit->alloc_time,
                                     hit->free_time == G_MAXINT64 ? end : hit->free_time);
}

void
_ts_window_memory_init (TsWindow *self)
{
  TsWindowMemory *memory = g_new0 (TsWindowMemory, 1);
  GtkWidget *timeline = GTK_WIDGET (self->timeline_stack);
  GtkWidget *paned = gtk_widget_get_parent (timeline);

  g_assert (GTK_IS_PANED (paned));
  g_assert (gtk_paned_get_end_child (GTK_PANED (paned)) == timeline);

  self->memory = memory;
  memory->view_stack = GTK_STACK (gtk_stack_new ());
  gtk_stack_set_transition_type (memory->view_stack, GTK_STACK_TRANSITION_TYPE_CROSSFADE);
  gtk_widget_set_hexpand (GTK_WIDGET (memory->view_stack), TRUE);
  /* Only the page shown counts for the window's minimum size. */
  gtk_stack_set_hhomogeneous (memory->view_stack, FALSE);
  gtk_stack_set_vhomogeneous (memory->view_stack, FALSE);

  g_object_ref (timeline);
  gtk_paned_set_end_child (GTK_PANED (paned), NULL);
  gtk_stack_add_titled (memory->view_stack, timeline, "timeline", _("Timeline"));
  g_object_unref (timeline);

  memory->panel = TS_MEMORY_PANEL (ts_memory_panel_new ());
  gtk_stack_add_titled (memory->view_stack, GTK_WIDGET (memory->panel), "memory", _("Memory"));
  gtk_paned_set_end_child (GTK_PANED (paned), GTK_WIDGET (memory->view_stack));

  g_signal_connect_object (ts_memory_panel_get_segment_map (memory->panel), "block-activated",
                           G_CALLBACK (block_activated_cb), self, G_CONNECT_SWAPPED);

  g_signal_connect_object (memory->view_stack, "notify::visible-child", G_CALLBACK (visible_page_cb),
                           self, G_CONNECT_SWAPPED);

  memory->switcher = gtk_stack_switcher_new ();
  gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (memory->switcher), memory->view_stack);
  gtk_widget_set_tooltip_text (memory->switcher, _("Switch between the timeline and the memory views"));
  adw_header_bar_pack_start (self->header_bar, memory->switcher);
}

void
_ts_window_memory_dispose (TsWindow *self)
{
  TsWindowMemory *memory = self->memory;

  if (memory == NULL)
    return;
  /* The timeline's handlers read self->memory: they go before it does. */
  if (memory->timeline != NULL)
    g_signal_handlers_disconnect_by_data (memory->timeline, self);
  g_clear_weak_pointer (&memory->timeline);
  g_clear_pointer (&self->memory, g_free);
}

void
_ts_window_memory_set_document (TsWindow        *self,
                                TsTraceDocument *document)
{
  g_assert (TS_IS_WINDOW (self));

  ts_memory_panel_set_document (self->memory->panel, document);
}

static void
sync_document (TsWindow *self)
{
  TsWindowMemory *memory = self->memory;

  if (!memory->pending || memory->timeline == NULL)
    return;
  if (g_strcmp0 (gtk_stack_get_visible_child_name (memory->view_stack), "memory") != 0)
    return;
  memory->pending = FALSE;
  _ts_window_memory_set_document (self, ts_timeline_get_document (memory->timeline));
}

static void
timeline_document_cb (TsWindow *self)
{
  self->memory->pending = TRUE;
  sync_document (self);
}

/* A click on the timeline: the instant of the item's start. */
static void
timeline_selected_cb (TsWindow *self)
{
  TsWindowMemory *memory = self->memory;
  TsTraceDocument *document = ts_timeline_get_document (memory->timeline);
  guint track, item;

  if (document == NULL || !ts_timeline_get_selected_item (memory->timeline, &track, &item))
    return;
  sync_document (self);
  ts_memory_panel_set_instant_time (memory->panel, ts_trace_document_get_track (document, track)->starts[item]);
}

/**
 * _ts_window_memory_attach_timeline:
 *
 * Called once the window has its TsTimeline: the memory view shares its
 * time axis and selection from then on.
 */
void
_ts_window_memory_attach_timeline (TsWindow   *self,
                                   TsTimeline *timeline)
{
  TsWindowMemory *memory = self->memory;
  TsMemoryView *view = ts_memory_panel_get_memory_view (memory->panel);
  const GBindingFlags flags = G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE;

  g_assert (TS_IS_TIMELINE (timeline));
  g_assert (memory->timeline == NULL);

  /* Weak: the window's template owns the timeline and may drop it first. */
  g_set_weak_pointer (&memory->timeline, timeline);
  g_object_bind_property (timeline, "begin", view, "visible-begin", flags);
  g_object_bind_property (timeline, "end", view, "visible-end", flags);
  g_object_bind_property (timeline, "range-begin", view, "selection-begin", flags);
  g_object_bind_property (timeline, "range-end", view, "selection-end", flags);
  g_signal_connect_object (timeline, "notify::document", G_CALLBACK (timeline_document_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (timeline, "notify::selected-item", G_CALLBACK (timeline_selected_cb), self, G_CONNECT_SWAPPED);
  timeline_document_cb (self);
}

/**
 * ts_window_get_memory_panel:
 * @self: a #TsWindow
 *
 * Returns: (transfer none): the Memory page (a #TsMemoryPanel)
 */
GtkWidget *
ts_window_get_memory_panel (TsWindow *self)
{
  g_return_val_if_fail (TS_IS_WINDOW (self), NULL);
  return GTK_WIDGET (self->memory->panel);
}

/**
 * ts_window_show_view:
 * @self: a #TsWindow
 * @name: "timeline" or "memory"
 *
 * Shows one of the two views of the right-hand pane.
 */
void
ts_window_show_view (TsWindow   *self,
                     const char *name)
{
  g_return_if_fail (TS_IS_WINDOW (self));
  g_return_if_fail (name != NULL);

  gtk_stack_set_visible_child_name (self->memory->view_stack, name);
}

static void
visible_page_cb (TsWindow *self)
{
  sync_document (self);
}
