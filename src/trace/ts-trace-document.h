/* ts-trace-document.h: a recorded run, indexed for viewing
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The document turns the recorder's per-kind tables into what a viewer
 * scans: tracks (a host thread's API calls, its NVTX ranges, one track per
 * stream, a memory counter track per device), each with its items in
 * columns sorted by start time, a nesting depth, and a running maximum of
 * end times so that the items overlapping any window are found with two
 * binary searches. Nothing here allocates per record beyond the columns.
 */

#pragma once

#include <glib-object.h>

#include "ts-recorder.h"
#include "ts-hazards.h"

G_BEGIN_DECLS

#define TS_TYPE_TRACE_DOCUMENT (ts_trace_document_get_type ())

G_DECLARE_FINAL_TYPE (TsTraceDocument, ts_trace_document, TS, TRACE_DOCUMENT, GObject)

typedef enum
{
  TS_TRACK_HOST_THREAD = 1,  /* API calls and the spans the host was blocked */
  TS_TRACK_NVTX,             /* one thread's NVTX ranges and marks */
  TS_TRACK_STREAM,           /* kernels, copies and memsets of one stream */
  TS_TRACK_MEMORY,           /* allocated / reserved counters of one device */
} TsTrackKind;

/* What an item of a track is; `record` indexes the recorder's table of the
 * matching TsRecordKind. */
typedef enum
{
  TS_ITEM_API_CALL = 1,
  TS_ITEM_SYNC,
  TS_ITEM_KERNEL,
  TS_ITEM_MEMCPY,
  TS_ITEM_MEMSET,
  TS_ITEM_NVTX_RANGE,
  TS_ITEM_NVTX_MARK,
} TsItemKind;

typedef struct
{
  TsTrackKind   kind;
  gint32        device;       /* -1 for host tracks */
  guint32       thread;       /* host and NVTX tracks */
  TsStreamId    stream;       /* stream tracks, else TS_STREAM_NONE */
  gint32        priority;     /* stream tracks */
  gboolean      is_default;   /* the device's default stream */
  char         *title;        /* "Stream 7 (priority -1)", "Thread 0", ... */
  guint         max_depth;    /* deepest nesting level + 1 */

  /* Items, sorted by (start, longer first). All columns have n_items. */
  guint         n_items;
  TsTime       *starts;
  TsTime       *ends;
  TsTime       *max_ends;     /* max of ends[0..i]: makes window queries exact */
  guint8       *kinds;        /* TsItemKind */
  guint8       *depths;
  guint32      *records;      /* index into the recorder's table for the kind */
  TsStringId   *labels;

  /* Items per nesting depth: lane d holds lane_items[lane_offsets[d] ..
   * lane_offsets[d + 1]), indices into the columns above in start order.
   * Items of one depth never overlap (they nest), so within a lane the ends
   * are sorted too: the renderer walks a lane left to right with binary
   * searches. NULL when the track has a single depth (lane 0 is then all
   * items, in order). Read them through ts_track_get_lane(). */
  guint        *lane_offsets;
  guint32      *lane_items;

  /* Memory tracks only: the counter samples, in time order. */
  guint         n_samples;
  TsTime       *sample_times;
  gint64       *allocated;
  gint64       *reserved;
} TsTrack;

/* An arrow from one place to another (an event record to a wait on it). */
typedef struct
{
  guint32 from_record;        /* TS_RECORD_EVENT_RECORD index */
  guint32 to_record;          /* TS_RECORD_EVENT_WAIT index */
} TsEventLink;

/* The recorder table an item's `record` indexes. */
TsRecordKind     ts_item_kind_get_record_kind     (TsItemKind        kind);

TsTraceDocument *ts_trace_document_new            (TsRecorder       *recorder);

TsRecorder      *ts_trace_document_get_recorder   (TsTraceDocument  *self);
void             ts_trace_document_get_time_span  (TsTraceDocument  *self,
                                                   TsTime           *begin,
                                                   TsTime           *end);
guint            ts_trace_document_get_n_tracks   (TsTraceDocument  *self);
const TsTrack   *ts_trace_document_get_track      (TsTraceDocument  *self,
                                                   guint             index);
const TsEventLink *ts_trace_document_get_event_links (TsTraceDocument *self,
                                                      guint           *n_links);
/* The trace's cross-stream hazards (ts-hazards.h), found once. */
const TsHazard  *ts_trace_document_get_hazards    (TsTraceDocument  *self,
                                                   guint            *n_hazards);

/* The API call that launched a piece of device work, and the reverse. */
gboolean         ts_trace_document_find_api_call  (TsTraceDocument  *self,
                                                   guint64           correlation,
                                                   guint32          *record);
gboolean         ts_trace_document_find_device_work (TsTraceDocument *self,
                                                     guint64          correlation,
                                                     TsItemKind      *kind,
                                                     guint32         *record);
/* Where a track's item for a record sits, for jumping to it. */
gboolean         ts_trace_document_locate_item    (TsTraceDocument  *self,
                                                   TsItemKind        kind,
                                                   guint32           record,
                                                   guint            *track,
                                                   guint            *item);

/* Items of a track that overlap [begin, end): *first is the first index
 * whose item may overlap, *last one past the last; items in between that
 * end before `begin` are possible only on nesting tracks (check ends). */
void             ts_track_find_range              (const TsTrack    *track,
                                                   TsTime            begin,
                                                   TsTime            end,
                                                   guint            *first,
                                                   guint            *last);

/* One nesting depth of a track; see TsTrack.lane_items. */
typedef struct
{
  const guint32 *items;       /* NULL: the k-th item of the lane is item k */
  guint          n_items;
} TsTrackLane;

static inline guint
ts_track_lane_item (const TsTrackLane *lane,
                    guint              k)
{
  return lane->items != NULL ? lane->items[k] : k;
}

void             ts_track_get_lane                (const TsTrack    *track,
                                                   guint             depth,
                                                   TsTrackLane      *lane);
/* The first position k in the lane whose item ends after `time` (or, for a
 * zero-length item, is at or after it); lane->n_items when none. */
guint            ts_track_lane_find               (const TsTrack     *track,
                                                   const TsTrackLane *lane,
                                                   TsTime             time);

G_END_DECLS
