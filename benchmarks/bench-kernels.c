/* bench-kernels.c: throughput of the CPU kernels
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Elementwise add and sum in GB/s (bytes read + written), matmul in
 * GFLOP/s, each the median of several runs. Baselines from the same run:
 * memcpy of the same bytes for add, a plain C loop for sum, and the
 * generic (converting) path of the add kernel for the typed fast path.
 * Half precision: add, mul, exp, relu and sum in ns per element and mm
 * in GFLOP/s on float32, float16 and bfloat16, each with its ratio to
 * float32, and Debian's python3-torch timing float32 and bfloat16 mm of
 * the same sizes in a subprocess (skipped when `import torch` fails, as
 * bench-python-ops does).
 * Ops along a dim (float32, rows of 1024, bytes read + written, next to a
 * memcpy of the same bytes): sum over the last dim, cumsum, sort
 * (values and int64 indices), and scatter_add along the last dim (src,
 * int64 index, out read and written).
 */

#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

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

/* -- Per dtype: float32 against float16 and bfloat16 ----------------------- */

static const TsDType bench_dtypes[] = { TS_DTYPE_FLOAT32, TS_DTYPE_FLOAT16, TS_DTYPE_BFLOAT16 };
#define N_BENCH_DTYPES G_N_ELEMENTS (bench_dtypes)

/* A contiguous tensor of @dtype holding @values (rounded to nearest even). */
static TsView
dtype_view (TsDType       dtype,
            const float  *values,
            guint         ndim,
            const gint64 *shape)
{
  TsView src, dst;
  gint64 n = 1;

  for (guint d = 0; d < ndim; d++)
    n *= shape[d];
  ts_view_init (&src, TS_DTYPE_FLOAT32, (gpointer) values, ndim, shape, NULL, 0);
  ts_view_init (&dst, dtype, g_malloc (ts_dtype_size (dtype) * (gsize) MAX (n, 1)), ndim, shape, NULL, 0);
  ts_cpu_copy (&dst, &src, NULL);
  return dst;
}

typedef enum { OP_ADD, OP_MUL, OP_EXP, OP_RELU, OP_SUM, N_OPS } ElemOp;
static const char *elem_op_names[N_OPS] = { "add", "mul", "exp", "relu", "sum" };

typedef struct
{
  ElemOp op;
  TsView a, b, out, sum;
} ElemBench;

static void
run_elem (gpointer data)
{
  ElemBench *e = data;

  switch (e->op)
    {
    case OP_ADD: ts_cpu_binary (TS_BINARY_ADD, &e->a, &e->b, e->a.dtype, &e->out, NULL); break;
    case OP_MUL: ts_cpu_binary (TS_BINARY_MUL, &e->a, &e->b, e->a.dtype, &e->out, NULL); break;
    case OP_EXP: ts_cpu_unary (TS_UNARY_EXP, &e->a, &e->out, NULL); break;
    case OP_RELU: ts_cpu_unary (TS_UNARY_RELU, &e->a, &e->out, NULL); break;
    case OP_SUM: ts_cpu_reduce (TS_REDUCE_SUM, &e->a, 0, &e->sum, NULL); break;
    case N_OPS:
    default: g_assert_not_reached ();
    }
}

/* ns per element of each op on each dtype, and the ratio to float32: the
 * half-precision paths should stay within 2x of float32. */
static void
bench_elementwise_dtypes (const float *va,
                          const float *vb,
                          gint64       n)
{
  ElemBench e[N_BENCH_DTYPES];
  double sum_storage[N_BENCH_DTYPES];

  for (guint d = 0; d < N_BENCH_DTYPES; d++)
    {
      e[d].a = dtype_view (bench_dtypes[d], va, 1, &n);
      e[d].b = dtype_view (bench_dtypes[d], vb, 1, &n);
      e[d].out = dtype_view (bench_dtypes[d], vb, 1, &n);
      ts_view_init (&e[d].sum, bench_dtypes[d], &sum_storage[d], 0, NULL, NULL, 0);
    }
  for (ElemOp op = 0; op < N_OPS; op++)
    {
      double ns_f32 = 0;

      for (guint d = 0; d < N_BENCH_DTYPES; d++)
        {
          double ns;

          e[d].op = op;
          ns = median_time (run_elem, &e[d]) / (double) n * 1e9;
          if (d == 0)
            ns_f32 = ns;
          printf ("%-4s %-8s %" G_GINT64_FORMAT " elements: %6.3f ns/element (%.2fx float32)\n",
                  elem_op_names[op], ts_dtype_short_name (bench_dtypes[d]), n, ns, ns / ns_f32);
        }
    }
  for (guint d = 0; d < N_BENCH_DTYPES; d++)
    {
      g_free (e[d].a.data);
      g_free (e[d].b.data);
      g_free (e[d].out.data);
    }
}

typedef struct
{
  TsView a, b, out;
} MmBench;

static void
run_mm (gpointer data)
{
  MmBench *m = data;

  ts_cpu_mm (&m->a, &m->b, &m->out, NULL);
}

/* Debian's python3-torch timing the same products on the CPU: one line
 * "SIZE DTYPE MEDIAN_SECONDS" per product. */
static const char torch_mm_script[] =
  "import sys, time, torch\n"
  "torch.set_num_threads(int(sys.argv[1]))\n"
  "print('version', torch.__version__)\n"
  "for n in (512, 1024, 2048):\n"
  "    for name in ('float32', 'bfloat16'):\n"
  "        dt = getattr(torch, name)\n"
  "        a = torch.randn(n, n).to(dt); b = torch.randn(n, n).to(dt)\n"
  "        a @ b\n"
  "        ts = []\n"
  "        for _ in range(9):\n"
  "            t0 = time.perf_counter(); a @ b; ts.append(time.perf_counter() - t0)\n"
  "        print(n, name, sorted(ts)[4], flush=True)\n";

static void
bench_torch_mm (void)
{
  g_autofree char *threads = g_strdup_printf ("%u", g_get_num_processors ());
  const char *check_argv[] = { "/usr/bin/python3", "-c", "import torch", NULL };
  const char *torch_argv[] = { "/usr/bin/python3", "-c", torch_mm_script, threads, NULL };
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  const char *version = "?";
  double t_f32 = 0;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) check_argv, NULL,
                     G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, NULL, NULL, &status, NULL) ||
      !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      printf ("python3-torch is not installed: skipping the PyTorch matmul comparison "
              "(apt-get install python3-torch)\n");
      return;
    }
  if (!g_spawn_sync (NULL, (char **) torch_argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, &out, NULL, &status, NULL) ||
      !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      printf ("python3-torch matmul run failed: skipping the comparison\n");
      return;
    }
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      gint64 size;
      char name[16];
      double t;

      if (g_str_has_prefix (lines[i], "version "))
        version = lines[i] + 8;
      if (sscanf (lines[i], "%" G_GINT64_FORMAT " %15s %lf", &size, name, &t) != 3)
        continue;
      if (strcmp (name, "float32") == 0)
        t_f32 = t;   /* printed before bfloat16 of the same size */
      printf ("mm %-8s %4" G_GINT64_FORMAT "x%-4" G_GINT64_FORMAT " pytorch %s cpu, %s threads: "
              "%7.2f GFLOP/s (%8.2f ms), %.2fx its float32 GFLOP/s\n",
              name, size, size, version, threads,
              2.0 * size * size * size / t / 1e9, t * 1e3, t_f32 / t);
    }
}

/* GFLOP/s of square products per dtype, with the ratio to float32 (the
 * target for half precision: at least 0.5x). */
static void
bench_mm_dtypes (void)
{
  for (gint64 size = 512; size <= 2048; size *= 2)
    {
      gint64 shape[2] = { size, size };
      g_autofree float *fa = g_new (float, size * size);
      g_autofree float *fb = g_new (float, size * size);
      double t_f32 = 0;

      for (gint64 i = 0; i < size * size; i++)
        {
          fa[i] = (float)(i % 7) - 3;
          fb[i] = (float)(i % 5) - 2;
        }
      for (guint d = 0; d < N_BENCH_DTYPES; d++)
        {
          TsDType dtype = bench_dtypes[d];
          MmBench mb = { dtype_view (dtype, fa, 2, shape), dtype_view (dtype, fb, 2, shape),
                         dtype_view (dtype, fa, 2, shape) };
          double t = median_time (run_mm, &mb);

          if (d == 0)
            t_f32 = t;
          printf ("mm %-8s %4" G_GINT64_FORMAT "x%-4" G_GINT64_FORMAT " tensorscope: "
                  "%7.2f GFLOP/s (%8.2f ms), %.2fx float32 GFLOP/s\n",
                  ts_dtype_short_name (dtype), size, size,
                  2.0 * size * size * size / t / 1e9, t * 1e3, t_f32 / t);

          /* through a transposed (BLAS-native) operand */
          if (size == 1024)
            {
              ts_view_transpose (&mb.b, 0, 1);
              t = median_time (run_mm, &mb);
              printf ("mm %-8s %4" G_GINT64_FORMAT " with b transposed: %.2f GFLOP/s\n",
                      ts_dtype_short_name (dtype), size, 2.0 * size * size * size / t / 1e9);
            }
          g_free (mb.a.data);
          g_free (mb.b.data);
          g_free (mb.out.data);
        }
    }
  bench_torch_mm ();
}

typedef struct
{
  TsView in, out, indices;
} DimBench;

static void
run_dim_sum (gpointer data)
{
  DimBench *b = data;

  ts_cpu_reduce (TS_REDUCE_SUM, &b->in, G_GUINT64_CONSTANT (1) << 1, &b->out, NULL);
}

static void
run_cumsum (gpointer data)
{
  DimBench *b = data;

  ts_cpu_scan (TS_SCAN_CUMSUM, &b->in, 1, &b->out, NULL, NULL);
}

static void
run_sort (gpointer data)
{
  DimBench *b = data;

  ts_cpu_sort (&b->in, 1, FALSE, 0, &b->out, &b->indices, NULL);
}

static void
run_scatter_add (gpointer data)
{
  DimBench *b = data;

  ts_cpu_scatter (&b->out, 1, &b->indices, &b->in, TRUE, NULL, NULL);
}

/* One line per op: its GB/s (bytes read + written) and a memcpy's of the
 * same bytes. @fa and @fo hold 16 @n floats, @fi room for n int64s. */
static void
bench_dim_ops (float  *fa,
               float  *fo,
               gint64 *fi,
               gint64  n)
{
  gint64 shape[2] = { n / 1024, 1024 }, rows[2] = { n / 1024, 1 };
  struct { const char *name; BenchFunc func; gboolean full_out; gboolean indices; } ops[] = {
    { "sum over dim 1", run_dim_sum, FALSE, FALSE },
    { "cumsum dim 1", run_cumsum, TRUE, FALSE },
    { "sort dim 1", run_sort, TRUE, TRUE },
    /* after sort: the indices are a permutation of each row; out is
     * read and written (counted once more below) */
    { "scatter_add dim 1", run_scatter_add, TRUE, TRUE },
  };
  DimBench b;
  AddBench copy = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      double bytes = (double)n * 4 + (ops[i].full_out ? (double)n * 4 : (double)shape[0] * 4) +
                     (ops[i].indices ? (double)n * 8 : 0) + (ops[i].func == run_scatter_add ? (double)n * 4 : 0);
      double t, t_copy;

      ts_view_init (&b.in, TS_DTYPE_FLOAT32, fa, 2, shape, NULL, 0);
      ts_view_init (&b.out, TS_DTYPE_FLOAT32, fo, 2, ops[i].full_out ? shape : rows, NULL, 0);
      ts_view_init (&b.indices, TS_DTYPE_INT64, fi, 2, shape, NULL, 0);
      t = median_time (ops[i].func, &b);
      /* memcpy of the same bytes (the caller's fa and fo hold 16 n floats) */
      copy.n = (gint64) (bytes / 2 / sizeof (float));
      copy.fa = fa;
      copy.fo = fo;
      t_copy = median_time (run_memcpy, &copy);
      printf ("%s float32, %" G_GINT64_FORMAT " elements: %.2f GB/s (%.2f ms); memcpy of the same bytes "
              "%.2f GB/s\n", ops[i].name, n, bytes / t / 1e9, t * 1e3, bytes / t_copy / 1e9);
    }
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

  {
    gint64 *fi = g_new0 (gint64, n / 16);

    bench_dim_ops (ab.fa, ab.fo, fi, n / 16);
    g_free (fi);
  }
  bench_elementwise_dtypes (ab.fa, ab.fb, n / 4);
  bench_mm_dtypes ();

  g_free (ab.fa);
  g_free (ab.fb);
  g_free (ab.fo);
  return 0;
}
