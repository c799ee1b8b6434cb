/* ts-segment-map-renderer.h: the allocator's segments at one instant
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each segment (one cudaMalloc) is a bar split into its blocks, coloured
 * by state: allocated, rounding waste inside an allocated block (size -
 * requested, drawn as a darker strip at its end), pending free (freed,
 * waiting on record_stream events), free inside a split segment (cannot
 * be released) and whole free segments (empty_cache would release them).
 * Bars are grouped by device, pool and stream, and packed left to right
 * with one bytes-per-pixel scale for the whole map, so sizes compare;
 * tiny segments get a minimum width and their own scale.
 *
 * Hit testing uses the geometry of the last draw(), so the GTK widget can
 * show the block under the pointer and jump to its allocation.
 */

#pragma once

#include <cairo.h>
#include <glib-object.h>

#include "ts-memory-replay.h"

G_BEGIN_DECLS

typedef enum
{
  TS_SEGMENT_MAP_HIT_NONE = 0,
  TS_SEGMENT_MAP_HIT_GROUP,       /* a group header: device, pool_id, is_small, stream */
  TS_SEGMENT_MAP_HIT_BLOCK,       /* a block: every field */
  TS_SEGMENT_MAP_HIT_UNMAPPED,    /* pages of an expandable segment not mapped: the
                                   * group's fields, address and size */
} TsSegmentMapHitKind;

typedef struct
{
  TsSegmentMapHitKind kind;
  guint        device;
  gboolean     is_small;
  TsStreamId   stream;
  TsMemPoolId  pool_id;          /* (0, 0): the device's own pools */
  gboolean     is_expandable;    /* the segment is a mapped range */
  guint        segment;          /* index into the state's segments */
  guint        block;            /* index into the state's blocks */
  guint64      segment_address;
  guint64      segment_size;
  guint64      address;          /* the block's */
  guint64      size;
  guint64      requested_size;   /* 0 when inactive */
  TsBlockState state;
  gboolean     in_waste;         /* the pointer is on the rounding waste */
  guint32      allocation;       /* TS_MEMORY_REPLAY_NONE when inactive */
  TsSourceLoc  loc;              /* of the allocation */
  guint64      correlation;      /* of the allocation (the API call) */
  TsTime       alloc_time;       /* the allocation's span, for the timeline */
  TsTime       free_time;        /* G_MAXINT64 while still live at the end */
} TsSegmentMapHit;

#define TS_TYPE_SEGMENT_MAP_RENDERER (ts_segment_map_renderer_get_type ())

G_DECLARE_FINAL_TYPE (TsSegmentMapRenderer, ts_segment_map_renderer, TS, SEGMENT_MAP_RENDERER, GObject)

TsSegmentMapRenderer *ts_segment_map_renderer_new        (TsMemoryReplay        *replay);
void                  ts_segment_map_renderer_set_dark   (TsSegmentMapRenderer  *self,
                                                          gboolean               dark);
/* The instant (an action index of the replay). */
void                  ts_segment_map_renderer_set_index  (TsSegmentMapRenderer  *self,
                                                          gsize                  index);
gsize                 ts_segment_map_renderer_get_index  (TsSegmentMapRenderer  *self);
/* -1 (the default) for every device. */
void                  ts_segment_map_renderer_set_device (TsSegmentMapRenderer  *self,
                                                          gint                   device);
/* The state drawn (rebuilt when the instant changes). */
const TsMemoryState  *ts_segment_map_renderer_get_state  (TsSegmentMapRenderer  *self);

/* Draws into [x, x + width) x [y, y + height): a title, the legend, then
 * the groups. Paints its own background. */
void                  ts_segment_map_renderer_draw       (TsSegmentMapRenderer  *self,
                                                          cairo_t               *cr,
                                                          double                 x,
                                                          double                 y,
                                                          double                 width,
                                                          double                 height);
gboolean              ts_segment_map_renderer_hit_test   (TsSegmentMapRenderer  *self,
                                                          double                 x,
                                                          double                 y,
                                                          TsSegmentMapHit       *hit);
/* Hover text for a hit: "Block 0x… 5.0 MiB (requested …) allocated at
 * script.py:12, stream 0" and the segment it is in. */
char                 *ts_segment_map_hit_describe        (TsSegmentMapRenderer  *self,
                                                          const TsSegmentMapHit *hit);

/* The colour of an allocation site, shared with the memory-over-time
 * bands so a band and its block match. */
/* The unmapped address ranges the map draws between the mapped ranges of
 * an expandable segment, for the map's segment order: one per hole, as
 * (address, size) pairs of guint64. */
GArray               *ts_segment_map_renderer_get_unmapped (TsSegmentMapRenderer *self);

void                  ts_memory_site_color               (const TsSourceLoc     *loc,
                                                          gboolean               dark,
                                                          double                *r,
                                                          double                *g,
                                                          double                *b);

G_END_DECLS
