/* ts-spans-private.h: unions of time spans, for the trace statistics
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-types.h"

G_BEGIN_DECLS

/* [start, end) on the trace's clock. */
typedef struct
{
  TsTime start;
  TsTime end;
} TsSpan;

/* Sorts a GArray of TsSpan by start and merges overlapping and touching
 * spans in place (empty ones dropped); returns the length covered. */
TsTime  ts_spans_merge         (GArray *spans);

/* The length covered by both of two start-ordered lists of disjoint
 * spans (what ts_spans_merge leaves). */
TsTime  ts_spans_intersection  (GArray *a,
                                GArray *b);

G_END_DECLS
