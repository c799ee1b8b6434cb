/* bench-fft.c: torch.fft's transforms against Debian's python3-torch
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs benchmarks/bench_fft.py (a few transforms of CPU tensors, 200 calls
 * each) five times under tensorscope-cli and under /usr/bin/python3 with
 * python3-torch, and prints each case's median time per call on both and
 * their ratio. Both compute on the host (FFTW here, pocketfft or MKL in
 * PyTorch): the figure is the transform plus the per-call overhead.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <glib.h>

#include "bench-util.h"

#define REPEATS 5
#define MAX_CASES 16

static const char *const cases[] = { "rfft_64x1024", "irfft_64x1024", "fft_c64_64x1024", "fft2_8x128x128",
                                     "rfft_small_16" };

/* per case, the REPEATS times of @argv's runs */
static void
collect (const char *what,
         char      **argv,
         double      times[][REPEATS])
{
  for (int r = 0; r < REPEATS; r++)
    {
      g_autofree char *out = bench_spawn (what, argv, NULL);

      for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
        {
          g_autofree char *key = g_strdup_printf ("op %s ", cases[i]);

          times[i][r] = bench_field (out, key);
        }
    }
}

int
main (void)
{
  const char *script = TS_BENCH_SRCDIR "/bench_fft.py";
  const char *ours_argv[] = { TS_CLI_PATH, "run", script, NULL };
  const char *torch_argv[] = { "/usr/bin/python3", script, NULL };
  double ours[MAX_CASES][REPEATS], theirs[MAX_CASES][REPEATS];
  gboolean with_torch = g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE);

  collect ("tensorscope-cli run bench_fft.py", (char **) ours_argv, ours);
  if (with_torch)
    collect ("python3-torch bench_fft.py", (char **) torch_argv, theirs);
  g_print ("torch.fft on CPU tensors, 200 calls each (median of %d runs, us/call):\n", REPEATS);
  g_print ("  %-18s %12s %12s %8s\n", "case", "tensorscope", "pytorch-cpu", "ratio");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double a = bench_median (ours[i], REPEATS) / 1000, b = with_torch ? bench_median (theirs[i], REPEATS) / 1000 : 0;

      if (b > 0)
        g_print ("  %-18s %12.1f %12.1f %8.2f\n", cases[i], a, b, a / b);
      else
        g_print ("  %-18s %12.1f\n", cases[i], a);
    }
  return 0;
}
