/* ts-hazards.h: cross-stream hazards found in a trace, without the sanitizer
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The sanitizer (--sanitize) watches a run as it happens. This finds the
 * same mistakes afterwards in any trace that has access records (format
 * 2.1, TsAccessRecord): which memory each launch read and wrote. It knows
 * nothing of the simulator: it replays the host's order of calls and the
 * device's ordering rules.
 *
 * Happens-before, as vector clocks over streams (one clock per stream, one
 * for the host, one per recorded event):
 * - stream order: each launch on a stream follows the earlier ones;
 * - cudaEventRecord copies its stream's clock into the event,
 *   cudaStreamWaitEvent merges the event's latest record into the stream
 *   (wait_stream is a record and a wait, and leaves both in the trace);
 * - host synchronizations (device, stream, event, and blocking copies,
 *   TsSyncRecord) merge what they waited for into the host's clock, and
 *   every later launch merges the host's clock: the host only queued it
 *   after that work was done;
 * - the legacy default stream's implicit synchronization is not modelled,
 *   as the runtime does not model it: PyTorch creates its streams with
 *   cudaStreamNonBlocking.
 * Two accesses to overlapping memory from two streams, at least one a
 * write, that no chain of these orders are a TS_HAZARD_RACE.
 *
 * Allocator reuse: a block freed (free_requested) while a launch on another
 * stream may still use it, and handed out again: the new owner's first
 * access must be ordered after the old one whatever either does
 * (TS_HAZARD_REUSE). Accesses on the block's own stream are left out (the
 * caching allocator only reuses a block for work on that stream, which is
 * ordered after them), and so are streams given to record_stream() (the
 * allocator waits for those) and accesses the host has synchronized past.
 *
 * Each unordered pair of launches is reported once, at its first
 * overlapping range. Launches replayed from a CUDA graph have no access
 * records and are not checked.
 */

#pragma once

#include "ts-record.h"
#include "ts-recorder.h"

G_BEGIN_DECLS

typedef enum
{
  TS_HAZARD_RACE = 1,
  TS_HAZARD_REUSE = 2,
} TsHazardKind;

/* One launch of a hazard's pair. */
typedef struct
{
  TsRecordKind kind;         /* TS_RECORD_KERNEL, _MEMCPY or _MEMSET */
  guint32      record;       /* its index among the records of its kind */
  guint64      correlation;
  TsStreamId   stream;
  gboolean     is_write;
  TsStringId   op;           /* the operator ("aten::sum") or the kernel's name; 0 for a copy */
  TsSourceLoc  loc;          /* the user's line that launched it */
} TsHazardSide;

typedef struct
{
  TsHazardKind kind;
  TsTime       time;         /* when the later launch starts on the device */
  guint64      addr;         /* the first overlapping range */
  guint64      size;
  TsHazardSide current;      /* the later launch, in the host's order */
  TsHazardSide previous;     /* the earlier, unordered one */
} TsHazard;

/* The hazards of the trace, in the host's order of their later launch.
 * Empty for a trace without access records. */
GArray *ts_hazards_find     (TsRecorder     *recorder);

/* What went wrong and the fix, a sentence or two for people. */
char   *ts_hazard_explain   (const TsHazard *hazard,
                             TsRecorder     *recorder);
/* "`sum` (stream 4) and `normal_` (default stream)": for short lists. */
char   *ts_hazard_title     (const TsHazard *hazard,
                             TsRecorder     *recorder);

G_END_DECLS
