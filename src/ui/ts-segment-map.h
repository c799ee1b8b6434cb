/* ts-segment-map.h: the allocator's segments at one instant, as a widget
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A GtkWidget around TsSegmentMapRenderer: every segment a bar split into
 * its blocks, coloured by state, at the instant given by the "instant"
 * property (an action index of the replay; cheap to change thanks to the
 * replay's checkpoints). Hovering a block shows the renderer's description
 * (address, size, requested size, stream, the line that allocated it);
 * clicking a live block emits ::block-activated with the hit, so the
 * window can jump to the line and select the allocation's span.
 */

#pragma once

#include <gtk/gtk.h>

#include "ts-memory-replay.h"
#include "ts-segment-map-renderer.h"

G_BEGIN_DECLS

#define TS_TYPE_SEGMENT_MAP (ts_segment_map_get_type ())

G_DECLARE_FINAL_TYPE (TsSegmentMap, ts_segment_map, TS, SEGMENT_MAP, GtkWidget)

GtkWidget            *ts_segment_map_new          (void);
void                  ts_segment_map_set_replay   (TsSegmentMap    *self,
                                                   TsMemoryReplay  *replay);
TsSegmentMapRenderer *ts_segment_map_get_renderer (TsSegmentMap    *self);
gsize                 ts_segment_map_get_instant  (TsSegmentMap    *self);
void                  ts_segment_map_set_instant  (TsSegmentMap    *self,
                                                   gsize            instant);
/* The state at the instant (NULL without a replay); owned by the map. */
const TsMemoryState  *ts_segment_map_get_state    (TsSegmentMap    *self);
/* Hover text at (x, y) in widget coordinates, NULL over nothing. Uses the
 * geometry of the last frame. */
char                 *ts_segment_map_describe_at  (TsSegmentMap    *self,
                                                   double           x,
                                                   double           y);
/* What a click at (x, y) does: emits ::block-activated for a block with
 * an allocation and returns TRUE. */
gboolean              ts_segment_map_click        (TsSegmentMap    *self,
                                                   double           x,
                                                   double           y);
/* Microseconds the last frame took (state rebuild and drawing). */
gint64                ts_segment_map_get_last_draw_time (TsSegmentMap *self);
/* Frames drawn so far, for waiting on the next one. */
guint                 ts_segment_map_get_n_draws  (TsSegmentMap    *self);

G_END_DECLS
