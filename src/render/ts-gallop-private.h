/* ts-gallop-private.h: galloping search over a sorted run, for src/render
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Whether position i still comes before the place searched for. */
typedef gboolean (*TsGallopBefore) (gconstpointer data,
                                    guint         i);

/* The first position p in (k, n) for which before (data, p) is FALSE, or
 * n, where `before` holds for a prefix of [k, n) that k is in: exponential
 * steps from k, then a binary search, so skipping m positions costs
 * O(log m) however long the run. Inline so that a `before` known at the
 * call inlines too (these searches are on the drawing path). */
static inline guint
_ts_gallop_past (guint           k,
                 guint           n,
                 TsGallopBefore  before,
                 gconstpointer   data)
{
  guint lo = k, step = 1, hi;

  while (lo + step < n && before (data, lo + step))
    {
      lo += step;
      step *= 2;
    }
  hi = MIN (lo + step, n);
  lo++;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (before (data, mid))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

G_END_DECLS
