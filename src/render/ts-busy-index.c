/* ts-busy-index.c: how busy a set of spans keeps its owner, per window
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>

#include "ts-busy-index.h"
#include "ts-counter-plot.h"

struct _TsBusyIndex
{
  guint   n;
  TsTime *starts;               /* disjoint, sorted */
  TsTime *ends;
  TsTime *before;               /* before[i]: total length of intervals < i; n + 1 entries */
};

typedef struct
{
  TsTime start;
  TsTime end;
} Span;

static int
compare_spans (const void *a,
               const void *b)
{
  TsTime x = ((const Span *) a)->start, y = ((const Span *) b)->start;

  return x < y ? -1 : x > y;
}

TsBusyIndex *
ts_busy_index_new (const TsTime *starts,
                   const TsTime *ends,
                   gsize         n)
{
  TsBusyIndex *self = g_new0 (TsBusyIndex, 1);
  Span *spans = g_new (Span, MAX (n, 1));
  gsize m = 0;
  guint k = 0;

  for (gsize i = 0; i < n; i++)
    if (ends[i] > starts[i])
      spans[m].start = starts[i], spans[m].end = ends[i], m++;
  qsort (spans, m, sizeof (Span), compare_spans);

  /* Merge overlapping spans in place. */
  for (gsize i = 0; i < m; i++)
    {
      if (k > 0 && spans[i].start <= spans[k - 1].end)
        spans[k - 1].end = MAX (spans[k - 1].end, spans[i].end);
      else
        spans[k++] = spans[i];
    }

  self->n = k;
  self->starts = g_new (TsTime, MAX (k, 1));
  self->ends = g_new (TsTime, MAX (k, 1));
  self->before = g_new (TsTime, k + 1);
  self->before[0] = 0;
  for (guint i = 0; i < k; i++)
    {
      self->starts[i] = spans[i].start;
      self->ends[i] = spans[i].end;
      self->before[i + 1] = self->before[i] + (spans[i].end - spans[i].start);
    }
  g_free (spans);
  return self;
}

void
ts_busy_index_free (TsBusyIndex *self)
{
  if (self == NULL)
    return;
  g_free (self->starts);
  g_free (self->ends);
  g_free (self->before);
  g_free (self);
}

TsTime
ts_busy_index_busy (const TsBusyIndex *self,
                    TsTime             begin,
                    TsTime             end)
{
  guint i, j;
  TsTime busy;

  g_return_val_if_fail (self != NULL, 0);

  if (end <= begin || self->n == 0)
    return 0;
  /* Intervals i .. j-1 overlap the window: the first ending after begin,
   * up to the last starting before end. */
  i = ts_counter_plot_gallop (self->ends, self->n, 0, begin + 1);
  j = ts_counter_plot_gallop (self->starts, self->n, 0, end);
  if (i >= j)
    return 0;
  busy = self->before[j] - self->before[i];
  if (self->starts[i] < begin)
    busy -= begin - self->starts[i];
  if (self->ends[j - 1] > end)
    busy -= self->ends[j - 1] - end;
  return busy;
}
