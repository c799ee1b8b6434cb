/* ts-rank-stats.h: per-rank comparison of a multi-rank import
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-recorder.h"

G_BEGIN_DECLS

typedef struct
{
  gint    rank;
  guint   n_steps;
  TsTime  step_total;       /* sum of ProfilerStep#N durations */
  TsTime  step_max;
  TsTime  span;             /* first to last GPU activity */
  TsTime  busy;             /* union of kernels, copies and memsets */
  TsTime  compute;          /* union of non-communication kernels */
  TsTime  comm;             /* union of NCCL kernels */
  TsTime  overlap;          /* communication time under compute */
  TsTime  idle;             /* span - busy */
} TsRankStats;

typedef struct
{
  guint   step;             /* N of ProfilerStep#N */
  gint    slowest_rank;
  TsTime  slowest;
  gint    fastest_rank;
  TsTime  fastest;
} TsRankStep;

/* Computes the per-rank figures; FALSE when the recorder holds no ranks.
 * ranks: TsRankStats by rank; steps: TsRankStep by step number. */
gboolean ts_rank_stats_compute (TsRecorder  *recorder,
                                GArray     **ranks,
                                GArray     **steps);

G_END_DECLS
