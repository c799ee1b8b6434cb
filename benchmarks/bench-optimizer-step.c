/* bench-optimizer-step.c: an Adam step on 100 CUDA parameters, per path
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs benchmarks/bench_optimizer_step.py under `tensorscope-cli run`: the
 * per-parameter loop (foreach=False), the multi-tensor path (foreach=True)
 * and fused=True, each printing its kernels per step, the simulated host
 * time of the step's launches, the simulated time until the device is
 * done, and the wall time Tensorscope takes per step.
 */

#include <glib.h>
#include <sys/wait.h>

int
main (int   argc,
      char *argv[])
{
  const char *script = TS_BENCH_SRCDIR "/bench_optimizer_step.py";
  const char *cli_argv[] = { TS_CLI_PATH, "run", "--gpus", "1", script, NULL };
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) cli_argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error) ||
      !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      g_printerr ("bench-optimizer-step: tensorscope-cli run failed%s%s\n", error ? ": " : "",
                  error ? error->message : "");
      return 1;
    }
  g_print ("Adam step, 100 parameters (50 x Linear(64, 64)) on a simulated GPU:\n%s", out);
  return 0;
}
