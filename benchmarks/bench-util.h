/* bench-util.h: the statistics every benchmark prints
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

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

/* Runs argv (a tensorscope-cli run) and returns its stdout; a run that
 * fails ends the benchmark with @what in the message. */
static inline char *
bench_spawn (const char *what,
             char      **argv,
             char      **envp)
{
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, argv, envp, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                     &status, &error) || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      g_printerr ("%s failed: %s\n", what, error ? error->message : "the run did not finish");
      exit (1);
    }
  return out;
}

/* The number after "KEY " in a workload's output, or -1. */
static inline double
bench_field (const char *out,
             const char *key)
{
  const char *line = strstr (out, key);

  return line ? g_ascii_strtod (line + strlen (key), NULL) : -1;
}
