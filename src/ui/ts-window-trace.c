/* ts-window-trace.c: where the window meets the trace viewer
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * HOOKS FOR THE TRACE VIEWER. The window keeps the bytes of the last
 * run's trace (for "Save Trace As") and calls these functions; the trace
 * document and the timeline widget plug in here:
 *
 *  - _ts_window_trace_begin(): a run starts; a live loader would be
 *    created here (or take the pipe with
 *    ts_workload_runner_take_trace_stream() in a notify::state handler);
 *  - _ts_window_trace_data(): the next bytes of the live trace;
 *  - _ts_window_trace_end(): the run is over, every byte has arrived;
 *  - ts_window_open_trace(): a .tstrace file was opened.
 *
 * To show a trace, build the TsTimeline and hand it to
 * ts_window_set_timeline().
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ts-window-private.h"

void
_ts_window_trace_begin (TsWindow *self)
{
  g_assert (TS_IS_WINDOW (self));

  g_byte_array_set_size (self->trace, 0);
  _ts_window_memory_trace_begin (self);
  _ts_window_update_actions (self);
}

void
_ts_window_trace_data (TsWindow *self,
                       GBytes   *bytes)
{
  gsize size;
  const guint8 *data;

  g_assert (TS_IS_WINDOW (self));

  data = g_bytes_get_data (bytes, &size);
  g_byte_array_append (self->trace, data, size);
  _ts_window_memory_trace_data (self, bytes);
}

void
_ts_window_trace_end (TsWindow *self)
{
  g_assert (TS_IS_WINDOW (self));

  /* The trace document loader is wired here (issue 6). */
  _ts_window_memory_trace_end (self);
  _ts_window_update_actions (self);
}

/**
 * ts_window_open_trace:
 * @self: a #TsWindow
 * @file: a .tstrace file
 *
 * Opens a saved trace. Loading traces belongs to the trace viewer, which
 * this build does not have yet: it says so instead.
 */
void
ts_window_open_trace (TsWindow *self,
                      GFile    *file)
{
  g_autofree char *basename = NULL;
  g_autofree char *message = NULL;

  g_return_if_fail (TS_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  basename = g_file_get_basename (file);
  _ts_window_add_recent (self, file);
  message = g_strdup_printf (_("Cannot show “%s”: this build has no trace viewer yet"), basename);
  _ts_window_toast (self, message);
}
