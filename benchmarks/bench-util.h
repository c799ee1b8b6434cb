/* bench-util.h: the statistics every benchmark prints
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <stdlib.h>

#include <glib.h>

static inline int
bench_compare_doubles (const void *a,
                       const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Sorts the samples in place, smallest first (for a median and a min or max). */
static inline void
bench_sort (double *v,
            gsize   n)
{
  qsort (v, n, sizeof (double), bench_compare_doubles);
}

/* Sorts the samples in place and returns their median: the middle one, or
 * the mean of the two middle ones when n is even. */
static inline double
bench_median (double *v,
              gsize   n)
{
  g_assert (n > 0);

  bench_sort (v, n);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
