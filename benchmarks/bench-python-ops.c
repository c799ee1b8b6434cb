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
 * for benchmarks/bench_python_ops_mix.py, about 25 common small ops (16x16
 * floats: elementwise, reductions, matmul, softmax, where, cat, sort,
 * einsum, ...), each op's median and ratio on its own line; and the same
 * for benchmarks/bench_conv.py (a Conv2d 3->16->32 training step on 16
 * 32x32 images, CPU tensors on both sides: our im2col + OpenBLAS kernels
 * against PyTorch's), and for benchmarks/bench_train_step.py (the MLP
 * training step of #15/#16, SGD with momentum and Adam), and for
 * benchmarks/bench_requires_grad.py (a few ops' cost without and with
 * requires_grad, each side in one process), and for
 * benchmarks/bench_linalg.py (torch.linalg on CPU tensors, LAPACK on both
 * sides), and for benchmarks/bench_transcendental.py (float32 exp,
 * softmax, sigmoid, tanh, log_softmax at 16x16 and 1024x1024: SLEEF on
 * both sides). Without
 * python3-torch the comparisons are skipped
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

#define MAX_OPS 64
#define MIX_TITLE "op mix, 1000 calls each, 16x16 floats"

typedef struct
{
  char   *names[MAX_OPS];
  double  samples[MAX_OPS][REPEATS];
  guint   n_ops;
} OpTimes;

/* One run of the mix script: its "op NAME NS" lines into column @rep. */
static gboolean
mix_once (const char * const *argv,
          OpTimes            *times,
          guint               rep)
{
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  int status = 0;
  guint n = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status,
                     NULL) ||
      !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    return FALSE;
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL && n < MAX_OPS; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], " ", 3);

      if (g_strv_length (f) != 3 || strcmp (f[0], "op") != 0)
        continue;
      if (rep == 0)
        times->names[n] = g_strdup (f[1]);
      else if (n >= times->n_ops || strcmp (times->names[n], f[1]) != 0)
        return FALSE;
      times->samples[n++][rep] = g_ascii_strtod (f[2], NULL);
    }
  times->n_ops = n;
  return n > 0;
}

static gboolean
mix_medians (const char * const *argv,
             OpTimes            *times,
             double             *medians)
{
  for (guint rep = 0; rep < REPEATS; rep++)
    if (!mix_once (argv, times, rep))
      return FALSE;
  for (guint i = 0; i < times->n_ops; i++)
    medians[i] = bench_median (times->samples[i], REPEATS);
  return TRUE;
}

/* A script of "op NAME NS" lines: per-op medians under tensorscope (on
 * @device) and, with @with_torch, under python3-torch (CPU), and their
 * ratios, under @title. */
static int
run_ops (const char *script,
         const char *device,
         const char *title,
         gboolean    with_torch)
{
  const char *ours_argv[] = { TS_CLI_PATH, "run", "--gpus", "1", script, device, NULL };
  const char *torch_argv[] = { "/usr/bin/python3", script, "cpu", NULL };
  OpTimes ours = { 0 }, theirs = { 0 };
  double ours_med[MAX_OPS], theirs_med[MAX_OPS];
  g_autofree double *ratios = NULL;
  int rc = 0;

  if (!mix_medians (ours_argv, &ours, ours_med))
    {
      g_printerr ("bench-python-ops: tensorscope-cli run of %s failed\n", script);
      return 1;
    }
  if (with_torch && (!mix_medians (torch_argv, &theirs, theirs_med) || theirs.n_ops != ours.n_ops))
    {
      g_printerr ("bench-python-ops: python3-torch run of %s failed\n", script);
      rc = 1;
      with_torch = FALSE;
    }
  g_print ("%s (median of %d, ns/call):\n", title, REPEATS);
  g_print ("  %-18s %12s %12s %8s\n", "op", "tensorscope", "pytorch-cpu", "ratio");
  ratios = g_new (double, MAX (ours.n_ops, 1));
  for (guint i = 0; i < ours.n_ops; i++)
    {
      if (with_torch)
        {
          ratios[i] = ours_med[i] / theirs_med[i];
          g_print ("  %-18s %12.0f %12.0f %8.2f\n", ours.names[i], ours_med[i], theirs_med[i], ratios[i]);
        }
      else
        g_print ("  %-18s %12.0f\n", ours.names[i], ours_med[i]);
    }
  if (with_torch)
    g_print ("  median ratio tensorscope / pytorch-cpu: %.2f\n", bench_median (ratios, ours.n_ops));
  for (guint i = 0; i < ours.n_ops; i++)
    {
      g_free (ours.names[i]);
      g_free (theirs.names[i]);
    }
  return rc;
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

/* The launch-bound MLP training step of issues #15 and #16 (64-128-128-10,
 * batch 32): simulated CUDA under tensorscope against PyTorch's CPU eager. */
static int
bench_train_step (const char *optimizer)
{
  const char *script = TS_BENCH_SRCDIR "/bench_train_step.py";
  const char *ours_argv[] = { TS_CLI_PATH, "run", "--gpus", "1", script, "cuda", optimizer, NULL };
  const char *torch_argv[] = { "/usr/bin/python3", script, "cpu", optimizer, NULL };
  double ours, theirs;

  if (!median_of (ours_argv, "us_per_step ", &ours) || !median_of (torch_argv, "us_per_step ", &theirs))
    {
      g_printerr ("bench-python-ops: bench_train_step.py failed\n");
      return 1;
    }
  g_print ("MLP training step (64-128-128-10, batch 32, %s) on cuda (tensorscope): %.0f us (median of %d)\n",
           optimizer, ours, REPEATS);
  g_print ("same step on cpu (Debian python3-torch, eager): %.0f us (median of %d)\n", theirs, REPEATS);
  g_print ("ratio tensorscope / pytorch-cpu: %.2f\n", ours / theirs);
  return 0;
}

/* The per-op cost of requires_grad (#15): bench_requires_grad.py times
 * each op without and with requires_grad in one process (medians of 7,
 * interleaved) and prints "grad_op NAME PLAIN GRAD RATIO"; here its lines
 * for both sides, ours on simulated CUDA, PyTorch's on the CPU. */
static gboolean
print_grad_ops (const char * const *argv,
                const char         *label)
{
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status, NULL) ||
      !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    return FALSE;
  g_print ("per-op cost with and without requires_grad, 16x16 floats, %s (median of 7, ns/call):\n", label);
  g_print ("  %-14s %10s %10s %8s\n", "op", "plain", "grad", "ratio");
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], " ", -1);

      if (g_strv_length (f) == 5 && strcmp (f[0], "grad_op") == 0)
        g_print ("  %-14s %10s %10s %8s\n", f[1], f[2], f[3], f[4]);
    }
  return TRUE;
}

static int
bench_requires_grad (void)
{
  const char *script = TS_BENCH_SRCDIR "/bench_requires_grad.py";
  const char *ours_argv[] = { TS_CLI_PATH, "run", "--gpus", "1", script, "cuda", NULL };
  const char *torch_argv[] = { "/usr/bin/python3", script, "cpu", NULL };

  if (!print_grad_ops (ours_argv, "cuda (tensorscope)") ||
      !print_grad_ops (torch_argv, "cpu (Debian python3-torch, eager)"))
    {
      g_printerr ("bench-python-ops: bench_requires_grad.py failed\n");
      return 1;
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
      return run_ops (TS_BENCH_SRCDIR "/bench_python_ops_mix.py", "cuda", MIX_TITLE, FALSE);
    }
  if (!median_of (torch_argv, "ns_per_op ", &theirs))
    {
      g_printerr ("bench-python-ops: python3-torch run failed\n");
      return 1;
    }
  g_print ("same loop on cpu (Debian python3-torch, eager): %.0f ns/op (median of %d)\n", theirs, REPEATS);
  g_print ("ratio tensorscope / pytorch-cpu: %.2f\n", ours / theirs);
  {
    int mix = run_ops (TS_BENCH_SRCDIR "/bench_python_ops_mix.py", "cuda", MIX_TITLE, TRUE);
    gboolean conv_failed = bench_conv ("net") || bench_conv ("layer");
    gboolean step_failed = bench_train_step ("sgd") || bench_train_step ("adam");
    gboolean grad_failed = bench_requires_grad () != 0;
    gboolean linalg_failed = run_ops (TS_BENCH_SRCDIR "/bench_linalg.py", "cpu",
                                      "torch.linalg on cpu tensors, float64", TRUE) != 0;
    gboolean math_failed = run_ops (TS_BENCH_SRCDIR "/bench_transcendental.py", "cuda",
                                    "float32 transcendentals, 16x16 (1000 calls) and 1024x1024 (20 calls)",
                                    TRUE) != 0;

    return mix != 0 || conv_failed || step_failed || grad_failed || linalg_failed || math_failed;
  }
}
