/* bench-sanitizer.c: cost of the race sanitizer per kernel
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A synthetic op stream: ops go round-robin over the streams; each op reads
 * tensors - 1 inputs (half from a pool shared by all streams and never
 * written, half from the stream's own pool) and writes one output of its own
 * pool, with a three-frame stack and a real schema. No access races, so the
 * figures are the checking path, not report building. Also timed: the
 * caller's classification with TsSanitizerArgs, and an alloc/free pair.
 *
 * Prints medians over REPS runs of N_OPS ops, ns per kernel and per access,
 * and each case as a ratio to the cheapest one (1 tensor, 2 streams).
 */

#include <stdio.h>

#include "ts-sanitizer.h"

#include "bench-util.h"

#define N_OPS        200000
#define REPS         5
#define POOL         64      /* tensors per stream pool and in the shared pool */

static const char *schema =
  "aten::addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor";

static const TsSanitizerFrame frames[] = {
  { "train.py", 120, "<module>", "main()" },
  { "train.py", 97, "main", "    loss = step(model, batch)" },
  { "train.py", 44, "step", "        y = torch.addcmul(x, w, b)" },
};

static guint64
tensor_ptr (guint pool,
            guint index)
{
  return 0x7f0000000000ull + ((guint64) pool * POOL + index) * 4096;
}

static TsSanitizer *
setup (guint n_streams)
{
  TsSanitizer *san = ts_sanitizer_new (1);

  for (guint s = 1; s < n_streams; s++)
    ts_sanitizer_stream_created (san, s, 0, 0x5000 + s);
  /* pool 0 is shared; pool s + 1 belongs to stream s */
  for (guint p = 0; p <= n_streams; p++)
    for (guint i = 0; i < POOL; i++)
      ts_sanitizer_alloc (san, tensor_ptr (p, i), 4096, 0, frames, 1);

  return san;
}

/* ns per kernel for one configuration; with_args also times building the
 * accesses through TsSanitizerArgs as the torch layer would. */
static double
run_kernels (guint    n_tensors,
             guint    n_streams,
             gboolean with_args)
{
  g_autoptr(TsSanitizer) san = setup (n_streams);
  g_autoptr(TsSanitizerArgs) args = ts_sanitizer_args_new ();
  TsSanitizerAccess accesses[16];
  static const char *const names[] = { "self", "tensor1", "tensor2", "other" };
  TsSanitizerOp op = { schema, 0, 0, frames, G_N_ELEMENTS (frames) };
  guint32 rng = 12345;
  gint64 start;
  gint64 end;

  start = g_get_monotonic_time ();
  for (guint k = 0; k < N_OPS; k++)
    {
      guint s = k % n_streams;
      const TsSanitizerAccess *a = accesses;
      guint n = n_tensors;

      op.correlation = k + 1;
      for (guint i = 0; i < n_tensors; i++)
        {
          guint pool = (i == n_tensors - 1 || i % 2 == 1) ? s + 1 : 0;

          rng = rng * 1664525 + 1013904223;
          accesses[i].data_ptr = tensor_ptr (pool, (rng >> 8) % POOL);
          accesses[i].is_write = i == n_tensors - 1;
          accesses[i].is_output = accesses[i].is_write;
          accesses[i].names = accesses[i].is_write ? NULL : names[i % 4];
        }

      if (with_args)
        {
          ts_sanitizer_args_reset (args);
          for (guint i = 0; i + 1 < n_tensors; i++)
            ts_sanitizer_args_add_input (args, accesses[i].data_ptr, accesses[i].names,
                                         TS_SANITIZER_ARG_READ);
          ts_sanitizer_args_add_output (args, accesses[n_tensors - 1].data_ptr,
                                        TS_SANITIZER_ARG_WRITE);
          a = ts_sanitizer_args_get_accesses (args, &n);
        }

      ts_sanitizer_kernel (san, s, a, n, &op);
    }
  end = g_get_monotonic_time ();

  if (ts_sanitizer_get_n_reports (san) != 0)
    g_error ("unexpected reports: %u", ts_sanitizer_get_n_reports (san));

  return (end - start) * 1000.0 / N_OPS;
}

/* ns per alloc + kernel + free of a short-lived tensor on a side stream. */
static double
run_alloc_free (void)
{
  g_autoptr(TsSanitizer) san = setup (2);
  TsSanitizerOp op = { schema, 0, 0, frames, G_N_ELEMENTS (frames) };
  gint64 start;
  gint64 end;

  start = g_get_monotonic_time ();
  for (guint k = 0; k < N_OPS; k++)
    {
      TsSanitizerAccess a = { 0x100000000ull + (k % 8) * 4096, TRUE, TRUE, NULL };

      ts_sanitizer_alloc (san, a.data_ptr, 4096, 1, frames, G_N_ELEMENTS (frames));
      ts_sanitizer_kernel (san, 1, &a, 1, &op);
      ts_sanitizer_free (san, a.data_ptr, frames, G_N_ELEMENTS (frames));
    }
  end = g_get_monotonic_time ();

  return (end - start) * 1000.0 / N_OPS;
}

int
main (int   argc,
      char *argv[])
{
  static const guint tensors[] = { 1, 4, 16 };
  static const guint streams[] = { 2, 8, 32 };
  double base = 0;
  double v[REPS];

  printf ("bench-sanitizer: %d ops per run, median of %d runs\n", N_OPS, REPS);
  printf ("%-8s %-8s %12s %12s %8s %16s\n",
          "tensors", "streams", "ns/kernel", "ns/access", "ratio", "ns/op with args");

  for (guint t = 0; t < G_N_ELEMENTS (tensors); t++)
    for (guint s = 0; s < G_N_ELEMENTS (streams); s++)
      {
        double ns;
        double ns_args;

        for (guint r = 0; r < REPS; r++)
          v[r] = run_kernels (tensors[t], streams[s], FALSE);
        ns = bench_median (v, REPS);
        for (guint r = 0; r < REPS; r++)
          v[r] = run_kernels (tensors[t], streams[s], TRUE);
        ns_args = bench_median (v, REPS);
        if (base == 0)
          base = ns;

        printf ("%-8u %-8u %12.1f %12.1f %8.2f %16.1f\n",
                tensors[t], streams[s], ns, ns / tensors[t], ns / base, ns_args);
      }

  for (guint r = 0; r < REPS; r++)
    v[r] = run_alloc_free ();
  printf ("alloc + 1-tensor kernel + free on a side stream: %.1f ns\n", bench_median (v, REPS));

  return 0;
}
