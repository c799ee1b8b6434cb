/* ts-render-format.h: sizes and counts as people read them
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One unit system for memory everywhere (KiB, MiB, GiB: the allocator
 * works in powers of two, and PyTorch prints them so), and FLOP counts
 * with SI prefixes. Times are in ts-time-ruler.h.
 */

#pragma once

#include <glib.h>

#include "ts-trace-document.h"

G_BEGIN_DECLS

/* "812 bytes", "1.5 KiB", "40.0 MiB". */
char   *ts_render_format_bytes      (guint64 bytes);

/* A step for a byte axis: a power of two of B, KiB, MiB or GiB giving at
 * most `lines` grid lines up to `max`, so labels read 256 KiB, 512 KiB,
 * 768 KiB, 1 MiB rather than 500.0 KiB, 1000.0 KiB. */
gint64  ts_render_byte_step         (gint64  max,
                                     int     lines);

/* A label on such an axis: no more decimals than the value needs. */
char   *ts_render_format_axis_bytes (gint64  value);

/* "2.15 GFLOP", "512 FLOP". */
char   *ts_render_format_flops      (guint64 flops);

/* A track's name in the user's language ("Stream 4", "Default stream
 * (cuda:0)"); the document's own titles are English, for files and logs. */
char   *ts_render_track_title       (TsRecorder    *recorder,
                                     const TsTrack *track);

G_END_DECLS
