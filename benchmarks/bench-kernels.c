/* bench-kernels.c: throughput of the CPU kernels
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Elementwise add and sum in GB/s (bytes read + written), matmul in
 * GFLOP/s, each the median of several runs. Baselines from the same run:
 * memcpy of the same bytes for add, a plain C loop for sum, and the
 * generic (converting) path of the add kernel for the typed fast path.
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ts-cpu-kernels.h"

#include "bench-util.h"

#define REPS 9

typedef void (*BenchFunc) (gpointer data);

/* Median seconds of REPS runs after one warm-up. */
static double
median_time (BenchFunc func,
             gpointer  data)
{
  double t[REPS];

  func (data);
  for (int i = 0; i < REPS; i++)
    {
      gint64 start = g_get_monotonic_time ();

      func (data);
      t[i] = (double)(g_get_monotonic_time () - start) / 1e6;
    }
  return bench_median (t, REPS);
}

typedef struct
{
  TsView a, b, out;
  float *fa, *fb, *fo;
  gint64 n;
  double result;
} AddBench;

static void
run_add (gpointer data)
{
  AddBench *b = data;

  ts_cpu_binary (TS_BINARY_ADD, &b->a, &b->b, TS_DTYPE_FLOAT32, &b->out, NULL);
}

/* The same add with a float64 output, which takes the generic loop. */
static void
run_add_generic (gpointer data)
{
  AddBench *b = data;
  TsView out64 = b->out;

  out64.dtype = TS_DTYPE_FLOAT64;   /* fo is large enough: allocated 2x */
  ts_cpu_binary (TS_BINARY_ADD, &b->a, &b->b, TS_DTYPE_FLOAT32, &out64, NULL);
}

static void
run_memcpy (gpointer data)
{
  AddBench *b = data;

  memcpy (b->fo, b->fa, (gsize)b->n * sizeof (float));
}

static void
run_sum (gpointer data)
{
  AddBench *b = data;
  float s;
  TsView vs;

  ts_view_init (&vs, TS_DTYPE_FLOAT32, &s, 0, NULL, NULL, 0);
  ts_cpu_reduce (TS_REDUCE_SUM, &b->a, 0, &vs, NULL);
  b->result = s;
}

static void
run_sum_loop (gpointer data)
{
  AddBench *b = data;
  double s = 0;

  for (gint64 i = 0; i < b->n; i++)
    s += b->fa[i];
  b->result = s;
}

typedef struct
{
  TsView a, b, out;
  gint64 n;
} MmBench;

static void
run_mm (gpointer data)
{
  MmBench *m = data;

  ts_cpu_mm (&m->a, &m->b, &m->out, NULL);
}

int
main (int    argc,
      char **argv)
{
  gint64 n = 1 << 24;   /* 16 Mi floats, 64 MiB per operand */
  AddBench ab = { 0 };
  double t_add, t_generic, t_copy, t_sum, t_loop;
  double bytes_add, bytes_sum;

  ab.n = n;
  ab.fa = g_new (float, n);
  ab.fb = g_new (float, n);
  ab.fo = g_new (float, 2 * n);
  for (gint64 i = 0; i < n; i++)
    {
      ab.fa[i] = (float)(i % 1000) * 0.5f;
      ab.fb[i] = 1.0f;
    }
  memset (ab.fo, 0, (gsize)(2 * n) * sizeof (float));
  ts_view_init (&ab.a, TS_DTYPE_FLOAT32, ab.fa, 1, &n, NULL, 0);
  ts_view_init (&ab.b, TS_DTYPE_FLOAT32, ab.fb, 1, &n, NULL, 0);
  ts_view_init (&ab.out, TS_DTYPE_FLOAT32, ab.fo, 1, &n, NULL, 0);

  t_add = median_time (run_add, &ab);
  t_generic = median_time (run_add_generic, &ab);
  t_copy = median_time (run_memcpy, &ab);
  bytes_add = 3.0 * (double)n * 4;
  printf ("add float32, %" G_GINT64_FORMAT " elements: %.2f GB/s (%.2f ms); "
          "memcpy of one operand %.2f GB/s; generic converting path %.2f GB/s (fast path %.1fx)\n",
          n, bytes_add / t_add / 1e9, t_add * 1e3,
          2.0 * (double)n * 4 / t_copy / 1e9,
          (2.0 * n * 4 + n * 8) / t_generic / 1e9, t_generic / t_add);

  t_sum = median_time (run_sum, &ab);
  t_loop = median_time (run_sum_loop, &ab);
  bytes_sum = (double)n * 4;
  printf ("sum float32, %" G_GINT64_FORMAT " elements: %.2f GB/s (%.2f ms); plain C loop %.2f GB/s "
          "(kernel/loop time %.2fx)\n",
          n, bytes_sum / t_sum / 1e9, t_sum * 1e3, bytes_sum / t_loop / 1e9, t_sum / t_loop);

  for (gint64 size = 256; size <= 1024; size *= 2)
    {
      MmBench mb;
      gint64 shape[2] = { size, size };
      float *fa = g_new (float, size * size);
      float *fb = g_new (float, size * size);
      float *fc = g_new (float, size * size);
      double t;

      for (gint64 i = 0; i < size * size; i++)
        {
          fa[i] = (float)(i % 7) - 3;
          fb[i] = (float)(i % 5) - 2;
        }
      ts_view_init (&mb.a, TS_DTYPE_FLOAT32, fa, 2, shape, NULL, 0);
      ts_view_init (&mb.b, TS_DTYPE_FLOAT32, fb, 2, shape, NULL, 0);
      ts_view_init (&mb.out, TS_DTYPE_FLOAT32, fc, 2, shape, NULL, 0);
      mb.n = size;
      t = median_time (run_mm, &mb);
      printf ("mm float32 %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT ": %.2f GFLOP/s (%.2f ms)\n",
              size, size, 2.0 * size * size * size / t / 1e9, t * 1e3);

      /* through a transposed (BLAS-native) and a strided (packed) operand */
      if (size == 1024)
        {
          ts_view_transpose (&mb.b, 0, 1);
          t = median_time (run_mm, &mb);
          printf ("mm float32 %" G_GINT64_FORMAT " with b transposed: %.2f GFLOP/s\n",
                  size, 2.0 * size * size * size / t / 1e9);
        }
      g_free (fa);
      g_free (fb);
      g_free (fc);
    }

  g_free (ab.fa);
  g_free (ab.fb);
  g_free (ab.fo);
  return 0;
}
