/* ts-render-format.c: sizes and counts as people read them
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-render-format.h"
#include "ts-render-i18n-private.h"

#define KiB G_GINT64_CONSTANT (1024)

char *
ts_render_format_bytes (guint64 bytes)
{
  return g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
}

gint64
ts_render_byte_step (gint64 max,
                     int    lines)
{
  gint64 unit = 1;

  max = MAX (max, 1);
  lines = MAX (lines, 1);
  for (guint u = 0; u < 5; u++, unit *= KiB)
    for (gint64 m = 1; m < KiB; m *= 2)
      if (unit * m * lines >= max)
        return unit * m;
  return unit;
}

/* Trailing zeros of "%.2f" go, and the point with them. */
static void
trim_decimals (char *number)
{
  char *end;

  if (strchr (number, '.') == NULL)
    return;
  end = number + strlen (number) - 1;
  while (*end == '0')
    *end-- = '\0';
  if (*end == '.')
    *end = '\0';
}

char *
ts_render_format_axis_bytes (gint64 value)
{
  /* "bytes" is a word, translated; the binary units are symbols */
  const char *units[] = { NULL, "KiB", "MiB", "GiB", "TiB" };
  double v = (double) MAX (value, 0);
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  guint u = 0;

  _ts_render_i18n_init ();
  units[0] = _("bytes");
  while (v >= 1024 && u + 1 < G_N_ELEMENTS (units))
    v /= 1024, u++;
  g_snprintf (number, sizeof number, "%.2f", v);
  trim_decimals (number);
  return g_strdup_printf ("%s %s", number, units[u]);
}

char *
ts_render_format_flops (guint64 flops)
{
  static const char *prefixes[] = { "", "k", "M", "G", "T", "P", "E" };
  double v = (double) flops;
  guint p = 0;

  while (v >= 1000 && p + 1 < G_N_ELEMENTS (prefixes))
    v /= 1000, p++;
  if (p == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " FLOP", flops);
  return g_strdup_printf ("%.*f %sFLOP", v < 10 ? 2 : v < 100 ? 1 : 0, v, prefixes[p]);
}

void
_ts_render_i18n_init (void)
{
  _ts_trace_i18n_init ();
}

char *
ts_render_track_title (TsRecorder    *recorder,
                       const TsTrack *t)
{
  g_return_val_if_fail (t != NULL, NULL);

  _ts_render_i18n_init ();
  switch (t->kind)
    {
    case TS_TRACK_HOST_THREAD:
      {
        /* A named thread keeps its name: it is the program's. */
        const char *name = recorder != NULL ? ts_recorder_get_thread_name (recorder, t->thread) : NULL;

        return name != NULL ? g_strdup (name) : g_strdup_printf (_("Thread %u"), t->thread);
      }
    case TS_TRACK_NVTX:
      return g_strdup_printf (_("NVTX (thread %u)"), t->thread);
    case TS_TRACK_STREAM:
      if (t->is_default)
        return g_strdup_printf (_("Default stream (cuda:%d)"), t->device);
      if (t->priority != 0)
        return g_strdup_printf (_("Stream %u (priority %d)"), t->stream, t->priority);
      return g_strdup_printf (_("Stream %u"), t->stream);
    case TS_TRACK_MEMORY:
      return g_strdup_printf (_("Memory (cuda:%d)"), t->device);
    default:
      return g_strdup (t->title);
    }
}
