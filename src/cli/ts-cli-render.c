/* ts-cli-render.c: `tensorscope-cli render TRACE --view timeline|memory|segments -o OUT`
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The app's own drawing code into a PNG, SVG or PDF, for looking at a run
 * without a display. With no --height the timeline is as tall as its
 * tracks, so nothing is cut off. --at picks the instant of the memory
 * view's marker and of the segment map.
 */

#include "config.h"

#include "ts-cli-private.h"
#include "ts-memory-renderer.h"
#include "ts-render-export.h"
#include "ts-segment-map-renderer.h"
#include "ts-timeline-renderer.h"

#define MAX_SIDE 16384

typedef struct
{
  TsTimelineRenderer *timeline;
  TsMemoryRenderer   *memory;
  TsSegmentMapRenderer *segments;
  TsTime              begin;
  TsTime              end;
} RenderData;

static void
draw (cairo_t  *cr,
      int       width,
      int       height,
      gpointer  user_data)
{
  RenderData *d = user_data;
  TsTimelineView view = { d->begin, d->end, width, height, 0 };

  if (d->timeline != NULL)
    ts_timeline_renderer_draw (d->timeline, cr, &view);
  else if (d->segments != NULL)
    ts_segment_map_renderer_draw (d->segments, cr, 0, 0, width, height);
  else
    ts_memory_renderer_draw (d->memory, cr, &view);
}

int
ts_cli_render_main (int    argc,
                    char **argv)
{
  g_autofree char *view_name = NULL;
  g_autofree char *output = NULL;
  g_autofree char *range = NULL;
  g_autofree char *at = NULL;
  int detail = 200;
  int width = 1600, height = 0;
  gboolean dark = FALSE;
  const GOptionEntry entries[] = {
    { "view", 0, 0, G_OPTION_ARG_STRING, &view_name, "What to draw: timeline (default), memory or segments", "VIEW" },
    { "at", 0, 0, G_OPTION_ARG_STRING, &at, "Instant for memory/segments: a time, oom, oom:N, #N or end", "WHEN" },
    { "detail", 0, 0, G_OPTION_ARG_INT, &detail, "Memory view: allocations drawn as their own band (default 200)", "N" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Image to write: .png, .svg or .pdf", "FILE" },
    { "range", 'r', 0, G_OPTION_ARG_STRING, &range, "Time window, e.g. 1ms:2.5ms (default: all)", "START:END" },
    { "width", 'W', 0, G_OPTION_ARG_INT, &width, "Width in pixels (default 1600)", "W" },
    { "height", 'H', 0, G_OPTION_ARG_INT, &height, "Height in pixels (default: fit the tracks)", "H" },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, "Use the dark palette", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("TRACE");
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTraceDocument) doc = NULL;
  g_autoptr(TsTimelineRenderer) timeline = NULL;
  g_autoptr(TsMemoryRenderer) memory = NULL;
  g_autoptr(TsSegmentMapRenderer) segments = NULL;
  g_autoptr(TsMemoryReplay) replay = NULL;
  gsize instant = 0;
  TsRenderFormat format;
  RenderData d = { 0 };

  g_option_context_set_summary (context, "Draw a trace's timeline or memory view to an image.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!ts_cli_parse_trace_args (context, "render", &argc, &argv))
    return 2;
  if (output == NULL)
    {
      ts_cli_message ("render: no output file given (use -o OUT.png, .svg or .pdf)");
      return 2;
    }
  if (!ts_render_format_for_path (output, &format, &error))
    {
      ts_cli_message ("render: %s", error->message);
      return 2;
    }
  if (view_name != NULL && !g_str_equal (view_name, "timeline") && !g_str_equal (view_name, "memory") &&
      !g_str_equal (view_name, "segments"))
    {
      ts_cli_message ("render: unknown view '%s' (use timeline, memory or segments)", view_name);
      return 2;
    }
  if (width < 320 || width > MAX_SIDE || height < 0 || height > MAX_SIDE || (height > 0 && height < 100))
    {
      ts_cli_message ("render: size out of range (width 320 to %d, height 100 to %d)", MAX_SIDE, MAX_SIDE);
      return 2;
    }

  doc = ts_cli_open_trace (argv[1], NULL);
  if (doc == NULL)
    return 1;

  ts_trace_document_get_time_span (doc, &d.begin, &d.end);
  /* A little air on the right so the last item is not cut by the edge. */
  d.end += MAX (1, (d.end - d.begin) / 100);
  if (range != NULL && !ts_cli_parse_range ("render", range, &d.begin, &d.end))
    return 2;

  if (view_name == NULL || g_str_equal (view_name, "timeline"))
    {
      timeline = ts_timeline_renderer_new (doc);
      ts_timeline_renderer_set_dark (timeline, dark);
      if (height == 0)
        height = CLAMP ((int) (ts_timeline_renderer_get_ruler_height (timeline) +
                               ts_timeline_renderer_get_content_height (timeline)) + 8, 200, MAX_SIDE);
      d.timeline = timeline;
    }
  else
    {
      replay = ts_memory_replay_new (ts_trace_document_get_recorder (doc));
      if (!ts_cli_resolve_instant (replay, at, &instant))
        {
          ts_cli_message ("render: bad instant '%s' (use a time such as 12ms, oom, oom:N, #N or end)", at);
          return 2;
        }
      if (g_str_equal (view_name, "segments"))
        {
          segments = ts_segment_map_renderer_new (replay);
          ts_segment_map_renderer_set_dark (segments, dark);
          ts_segment_map_renderer_set_index (segments, instant);
          if (height == 0)
            height = 600;
          d.segments = segments;
        }
      else
        {
          memory = ts_memory_renderer_new (doc);
          ts_memory_renderer_set_replay (memory, replay);
          ts_memory_renderer_set_dark (memory, dark);
          ts_memory_renderer_set_detail (memory, (guint) CLAMP (detail, 0, 100000));
          if (at != NULL)
            ts_memory_renderer_set_instant (memory, instant);
          if (height == 0)
            height = 600;
          d.memory = memory;
        }
    }

  if (!ts_render_to_file (output, width, height, draw, &d, &error))
    {
      ts_cli_message ("render: %s", error->message);
      return 1;
    }
  return 0;
}
