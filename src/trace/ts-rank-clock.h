/* ts-rank-clock.h: per-rank clock offsets from matched collectives
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Per-rank profiler traces of one job taken on several hosts carry each
 * host's clock, and those disagree by the hosts' NTP skew (often a few
 * milliseconds, more than a whole step of a fast model). A collective
 * ends at nearly the same instant on every rank that takes part, since
 * none can finish before the last one joins, so the end times of the same
 * collective on two ranks differ by their clock offset plus a few µs.
 *
 * A TsRankClock is given each rank's collective kernels (a key naming the
 * process group and collective, the instance number when the trace says
 * it, and the end time on that rank's clock), matches the N-th instance of
 * a key across ranks, and takes the median of the end-time differences as
 * the offset: robust to the few collectives a slow rank ends late.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Offsets below this are what matched NCCL kernels differ by on one
 * clock (same host): they are left alone. */
#define TS_RANK_CLOCK_THRESHOLD_NS G_GINT64_CONSTANT (20000)
/* Fewer matched collectives than this give no offset. */
#define TS_RANK_CLOCK_MIN_MATCHES  2

typedef struct _TsRankClock TsRankClock;

TsRankClock *ts_rank_clock_new   (void);
void         ts_rank_clock_free  (TsRankClock *self);

/* One collective kernel of a rank: key names the collective within its
 * process group ("pg 0 allreduce", or the kernel name when the trace has
 * no collective args); seq its instance number (-1: unknown, the
 * instances are then numbered in order of end time per key). */
void         ts_rank_clock_add   (TsRankClock *self,
                                  gint         rank,
                                  const char  *key,
                                  gint64       seq,
                                  gint64       end_ns);

/* The rank's end times are on a scale that starts base_ns later than the
 * other ranks' (Kineto's baseTimeNanoseconds): added to them. */
void         ts_rank_clock_set_base (TsRankClock *self,
                                     gint         rank,
                                     gint64       base_ns);

/* Matches the collectives and estimates every rank's offset against the
 * lowest rank (through a chain of ranks that share collectives when a
 * rank shares none with it). */
void         ts_rank_clock_solve (TsRankClock *self);

/* After solve: how much rank's clock is ahead of the reference rank's
 * (subtract it from the rank's times), and over how many matched
 * collectives (of the rank it was matched with). FALSE when the rank
 * had too few collectives in common with any aligned rank. */
gboolean     ts_rank_clock_get_offset (TsRankClock *self,
                                       gint         rank,
                                       gint64      *offset_ns,
                                       guint       *n_matched);
/* The reference rank (the lowest one given), -1 when none. */
gint         ts_rank_clock_get_reference (TsRankClock *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsRankClock, ts_rank_clock_free)

G_END_DECLS
