/* bench-python-ops.c: the cost of one small CUDA-tensor addition from Python
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs benchmarks/bench_python_ops.py (100,000 `c = a + b` on 16-element
 * tensors) five times under `tensorscope-cli run` (CUDA tensors: dispatch,
 * caching allocator, a simulated kernel launch, records) and five times
 * under /usr/bin/python3 with Debian's python3-torch on the CPU (PyTorch's
 * eager overhead), and prints the medians and their ratio. Without
 * python3-torch the comparison is skipped with a message.
 */

#include <glib.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "bench-util.h"

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

static gboolean
median_of (const char * const *argv,
           double             *median)
{
  double samples[REPEATS];

  for (int i = 0; i < REPEATS; i++)
    if (!run_once (argv, &samples[i]))
      return FALSE;
  *median = bench_median (samples, REPEATS);
  return TRUE;
}

int
main (int   argc,
      char *argv[])
{
  const char *script = TS_BENCH_SRCDIR "/bench_python_ops.py";
  const char *ours_argv[] = { TS_CLI_PATH, "run", "--gpus", "1", script, "cuda", NULL };
  const char *torch_argv[] = { "/usr/bin/python3", script, "cpu", NULL };
  const char *check_argv[] = { "/usr/bin/python3", "-c", "import torch", NULL };
  double ours, theirs;
  int status = 0;

  if (!median_of (ours_argv, &ours))
    {
      g_printerr ("bench-python-ops: tensorscope-cli run failed\n");
      return 1;
    }
  g_print ("python loop, 100000 x (a + b), 16 floats on cuda (tensorscope): %.0f ns/op (median of %d)\n",
           ours, REPEATS);

  if (!g_spawn_sync (NULL, (char **) check_argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, NULL, NULL, &status, NULL) ||
      !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      g_print ("python3-torch is not installed: skipping the comparison "
               "(apt-get install python3-torch)\n");
      return 0;
    }
  if (!median_of (torch_argv, &theirs))
    {
      g_printerr ("bench-python-ops: python3-torch run failed\n");
      return 1;
    }
  g_print ("same loop on cpu (Debian python3-torch, eager): %.0f ns/op (median of %d)\n", theirs, REPEATS);
  g_print ("ratio tensorscope / pytorch-cpu: %.2f\n", ours / theirs);
  return 0;
}
