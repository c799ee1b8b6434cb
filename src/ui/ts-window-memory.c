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
 * The panel gets the trace document of the run, rebuilt at most twice a
 * second while a run streams its trace, and once more at the end. A click
 * on a block of the segment map puts the editor on the line that
 * allocated it and selects the allocation's lifetime on the time axis.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ts-memory-panel.h"
#include "ts-trace-document.h"
#include "ts-trace-reader.h"
#include "ts-window-private.h"

/* Live runs: how often the memory views catch up with the trace. */
#define REFRESH_MS 500

struct _TsWindowMemory
{
  GtkStack      *view_stack;
  GtkWidget     *switcher;
  TsMemoryPanel *panel;

  /* The live trace, while no other part of the window loads it. */
  TsRecorder    *recorder;
  TsTraceReader *reader;
  gboolean       dirty;
  guint          refresh_source;
};

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
  g_clear_handle_id (&memory->refresh_source, g_source_remove);
  g_clear_object (&memory->reader);
  g_clear_object (&memory->recorder);
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
refresh (TsWindow *self)
{
  TsWindowMemory *memory = self->memory;
  g_autoptr(TsTraceDocument) document = NULL;

  memory->dirty = FALSE;
  if (memory->recorder == NULL)
    return;
  document = ts_trace_document_new (memory->recorder);
  _ts_window_memory_set_document (self, document);
}

static gboolean
refresh_cb (gpointer data)
{
  TsWindow *self = data;

  if (self->memory->dirty)
    {
      refresh (self);
      return G_SOURCE_CONTINUE;
    }
  self->memory->refresh_source = 0;
  return G_SOURCE_REMOVE;
}

void
_ts_window_memory_trace_begin (TsWindow *self)
{
  TsWindowMemory *memory = self->memory;

  g_clear_handle_id (&memory->refresh_source, g_source_remove);
  g_clear_object (&memory->reader);
  g_set_object (&memory->recorder, NULL);
  memory->recorder = ts_recorder_new ();
  memory->reader = ts_trace_reader_new (memory->recorder);
  memory->dirty = FALSE;
}

void
_ts_window_memory_trace_data (TsWindow *self,
                              GBytes   *bytes)
{
  TsWindowMemory *memory = self->memory;
  g_autoptr(GError) error = NULL;
  gsize size;
  const guint8 *data;

  if (memory->reader == NULL)
    return;
  data = g_bytes_get_data (bytes, &size);
  if (!ts_trace_reader_feed (memory->reader, data, size, &error))
    {
      g_debug ("Memory view: %s", error->message);
      g_clear_object (&memory->reader);
      return;
    }
  /* At most one rebuild per REFRESH_MS: a replay is one pass over the
   * allocator actions, cheap but not per chunk. */
  memory->dirty = TRUE;
  if (memory->refresh_source == 0)
    memory->refresh_source = g_timeout_add (REFRESH_MS, refresh_cb, self);
}

void
_ts_window_memory_trace_end (TsWindow *self)
{
  TsWindowMemory *memory = self->memory;

  g_clear_handle_id (&memory->refresh_source, g_source_remove);
  if (memory->reader != NULL)
    ts_trace_reader_finish (memory->reader, NULL);
  g_clear_object (&memory->reader);
  refresh (self);
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
