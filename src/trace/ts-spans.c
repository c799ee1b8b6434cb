/* ts-spans.c: unions of time spans, for the trace statistics
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window statistics (busy and blocked time) and the per-rank ones
 * (compute, communication and their overlap) both measure unions of spans
 * and how much two unions share.
 */

#include "config.h"

#include "ts-spans-private.h"

static int
cmp_span (gconstpointer x,
          gconstpointer y)
{
  const TsSpan *p = x, *q = y;

  return p->start < q->start ? -1 : p->start > q->start;
}

TsTime
ts_spans_merge (GArray *spans)
{
  guint out = 0;
  TsTime total = 0;

  g_array_sort (spans, cmp_span);
  for (guint i = 0; i < spans->len; i++)
    {
      TsSpan s = g_array_index (spans, TsSpan, i);

      if (s.end <= s.start)
        continue;
      if (out > 0 && s.start <= g_array_index (spans, TsSpan, out - 1).end)
        {
          TsSpan *last = &g_array_index (spans, TsSpan, out - 1);

          last->end = MAX (last->end, s.end);
        }
      else
        g_array_index (spans, TsSpan, out++) = s;
    }
  g_array_set_size (spans, out);
  for (guint i = 0; i < out; i++)
    total += g_array_index (spans, TsSpan, i).end - g_array_index (spans, TsSpan, i).start;
  return total;
}

TsTime
ts_spans_intersection (GArray *a,
                       GArray *b)
{
  guint i = 0, j = 0;
  TsTime total = 0;

  while (i < a->len && j < b->len)
    {
      const TsSpan *x = &g_array_index (a, TsSpan, i);
      const TsSpan *y = &g_array_index (b, TsSpan, j);
      TsTime s = MAX (x->start, y->start), e = MIN (x->end, y->end);

      if (e > s)
        total += e - s;
      if (x->end < y->end)
        i++;
      else
        j++;
    }
  return total;
}
