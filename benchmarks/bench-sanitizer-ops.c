/* bench-sanitizer-ops.c: what the race sanitizer costs per op
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs benchmarks/bench_sanitizer_ops.py (20,000 small CUDA additions from
 * Python, plus an in-place write every 100) under `tensorscope-cli run`,
 * five times without and five times with --sanitize, alternating so that
 * both see the same machine load, and prints the median ns/op of each and
 * their ratio. The sanitizer's share is the Python stack walk at every op
 * (its reports quote the script's lines), CSAN's vector-clock checks, and
 * the reads kept since the last write of a tensor.
 */

#include <glib.h>
#include <stdlib.h>
#include <sys/wait.h>

#define REPEATS 5

static gboolean
run_once (const char * const *argv,
          double             *ns_per_op)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  const char *line;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error) ||
      !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    return FALSE;
  line = g_strstr_len (out, -1, "ns_per_op ");
  if (line == NULL)
    return FALSE;
  *ns_per_op = g_ascii_strtod (line + 10, NULL);
  return TRUE;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

int
main (int   argc,
      char *argv[])
{
  const char *script = TS_BENCH_SRCDIR "/bench_sanitizer_ops.py";
  const char *plain_argv[] = { TS_CLI_PATH, "run", "--gpus", "1", script, NULL };
  const char *csan_argv[] = { TS_CLI_PATH, "run", "--gpus", "1", "--sanitize", script, NULL };
  double plain[REPEATS], csan[REPEATS];

  for (int i = 0; i < REPEATS; i++)
    if (!run_once (plain_argv, &plain[i]) || !run_once (csan_argv, &csan[i]))
      {
        g_printerr ("bench-sanitizer-ops: tensorscope-cli run failed\n");
        return 1;
      }
  qsort (plain, REPEATS, sizeof (double), compare_doubles);
  qsort (csan, REPEATS, sizeof (double), compare_doubles);
  g_print ("python loop of small cuda ops, without the sanitizer: %.0f ns/op (median of %d)\n",
           plain[REPEATS / 2], REPEATS);
  g_print ("same loop with --sanitize: %.0f ns/op (median of %d)\n", csan[REPEATS / 2], REPEATS);
  g_print ("ratio sanitize / plain: %.2f\n", csan[REPEATS / 2] / plain[REPEATS / 2]);
  return 0;
}
