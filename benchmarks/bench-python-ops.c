/* bench-python-ops.c: Python workloads against Debian's python3-torch
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs benchmarks/bench_python_ops.py (100,000 `c = a + b` on 16-element
 * tensors) five times under `tensorscope-cli run` (CUDA tensors: dispatch,
 * caching allocator, a simulated kernel launch, records) and five times
 * under /usr/bin/python3 with Debian's python3-torch on the CPU (PyTorch's
 * eager overhead), and prints the medians and their ratio. Then the same
 * for benchmarks/bench_conv.py (a Conv2d 3->16->32 training step on 16
 * 32x32 images, CPU tensors on both sides: our im2col + OpenBLAS kernels
 * against PyTorch's). Without python3-torch the comparisons are skipped
 * with a message.
 */

#include <glib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bench-util.h"

#define REPEATS 5

static gboolean
run_once (const char * const *argv,
          const char         *key,
          double             *value)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  const char *line;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error) ||
      !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    return FALSE;
  line = g_strstr_len (out, -1, key);
  if (line == NULL)
    return FALSE;
  *value = g_ascii_strtod (line + strlen (key), NULL);
  return TRUE;
}

static gboolean
median_of (const char * const *argv,
           const char         *key,
           double             *median)
{
  double samples[REPEATS];

  for (int i = 0; i < REPEATS; i++)
    if (!run_once (argv, key, &samples[i]))
      return FALSE;
  *median = bench_median (samples, REPEATS);
  return TRUE;
}

static gboolean
have_torch (void)
{
  const char *check_argv[] = { "/usr/bin/python3", "-c", "import torch", NULL };
  int status = 0;

  return g_spawn_sync (NULL, (char **) check_argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                       NULL, NULL, NULL, NULL, &status, NULL) &&
         WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

/* a Conv2d 3->16->32 training step (@what "net"), or its second layer's
 * forward and backward alone ("layer"), both sides on CPU tensors */
static int
bench_conv (const char *what)
{
  const char *script = TS_BENCH_SRCDIR "/bench_conv.py";
  const char *ours_argv[] = { TS_CLI_PATH, "run", script, "cpu", what, NULL };
  const char *torch_argv[] = { "/usr/bin/python3", script, "cpu", what, NULL };
  static const char *const keys[] = { "ms_per_step ", "cpu_ms_per_step " };
  double ours, theirs;

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      if (!median_of (ours_argv, keys[i], &ours) || !median_of (torch_argv, keys[i], &theirs))
        {
          g_printerr ("bench-python-ops: bench_conv.py failed\n");
          return 1;
        }
      g_print ("%s (%s), forward + backward, cpu (tensorscope): %.2f ms (median of %d)\n",
               strcmp (what, "layer") == 0 ? "conv layer, Conv2d 16->32 on 16x16x32x32"
                                           : "conv net step, Conv2d 3->16->32 on 16x3x32x32",
               i ? "process CPU time" : "wall", ours, REPEATS);
      g_print ("same step on cpu (Debian python3-torch, eager): %.2f ms (median of %d)\n", theirs, REPEATS);
      g_print ("ratio tensorscope / pytorch-cpu: %.2f\n", ours / theirs);
    }
  return 0;
}

int
main (int   argc,
      char *argv[])
{
  const char *script = TS_BENCH_SRCDIR "/bench_python_ops.py";
  const char *ours_argv[] = { TS_CLI_PATH, "run", "--gpus", "1", script, "cuda", NULL };
  const char *torch_argv[] = { "/usr/bin/python3", script, "cpu", NULL };
  double ours, theirs;

  if (!median_of (ours_argv, "ns_per_op ", &ours))
    {
      g_printerr ("bench-python-ops: tensorscope-cli run failed\n");
      return 1;
    }
  g_print ("python loop, 100000 x (a + b), 16 floats on cuda (tensorscope): %.0f ns/op (median of %d)\n",
           ours, REPEATS);

  if (!have_torch ())
    {
      g_print ("python3-torch is not installed: skipping the comparisons "
               "(apt-get install python3-torch)\n");
      return 0;
    }
  if (!median_of (torch_argv, "ns_per_op ", &theirs))
    {
      g_printerr ("bench-python-ops: python3-torch run failed\n");
      return 1;
    }
  g_print ("same loop on cpu (Debian python3-torch, eager): %.0f ns/op (median of %d)\n", theirs, REPEATS);
  g_print ("ratio tensorscope / pytorch-cpu: %.2f\n", ours / theirs);
  return bench_conv ("net") || bench_conv ("layer");
}
