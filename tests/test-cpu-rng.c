/* test-cpu-rng.c: the CPU generator and fills are PyTorch's, bit for bit
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Expected values come from Debian's python3-torch 1.13 (see
 * test-cpu-rng-vectors.h); nothing here needs PyTorch at run time.
 */

#include "config.h"

#include <string.h>

#include "ts-cpu-kernels.h"
#include "ts-mt19937.h"
#include "ts-philox.h"

typedef struct
{
  guint64 seed;
  TsDType dtype;
  gint64  n;
  guint   n_check;
  guint64 rand_bits[8];
  guint64 randn_bits[8];
} RngCase;

#include "test-cpu-rng-vectors.h"

static void
test_mt19937_vectors (void)
{
  TsCpuGenerator gen;
  guint32 v = 0;

  /* std::mt19937 with its default seed 5489: the first word, and the
   * 10000th that the C++ standard names. */
  ts_cpu_generator_init (&gen, 5489);
  g_assert_cmpuint (ts_cpu_generator_random (&gen), ==, 3499211612u);
  ts_cpu_generator_init (&gen, 5489);
  for (guint i = 0; i < 10000; i++)
    v = ts_cpu_generator_random (&gen);
  g_assert_cmpuint (v, ==, 4123659995u);

  /* random64: the first word is the high half */
  ts_cpu_generator_init (&gen, 5489);
  g_assert_cmpuint (ts_cpu_generator_random64 (&gen), ==,
                    (guint64)3499211612u << 32 | 581869302u);
  /* only the low 32 bits seed the engine; initial_seed keeps all 64 */
  ts_cpu_generator_init (&gen, G_GUINT64_CONSTANT (0x100001571));
  g_assert_cmpuint (ts_cpu_generator_random (&gen), ==, 3499211612u);
  g_assert_cmpuint (ts_cpu_generator_initial_seed (&gen), ==, G_GUINT64_CONSTANT (0x100001571));
}

static guint64
value_bits (const TsView *v,
            gint64        i)
{
  if (v->dtype == TS_DTYPE_FLOAT64)
    {
      guint64 b;

      memcpy (&b, (double *)v->data + i, 8);
      return b;
    }
  else
    {
      guint32 b;

      memcpy (&b, (float *)v->data + i, 4);
      return b;
    }
}

static void
test_fills_match_pytorch (void)
{
  for (guint c = 0; c < G_N_ELEMENTS (rng_cases); c++)
    {
      const RngCase *rc = &rng_cases[c];
      gsize elem = rc->dtype == TS_DTYPE_FLOAT64 ? 8 : 4;
      g_autofree void *a = g_malloc0 (rc->n * elem);
      g_autofree void *b = g_malloc0 (rc->n * elem);
      TsCpuGenerator gen;
      TsView va, vb;
      g_autoptr(GError) error = NULL;

      ts_view_init (&va, rc->dtype, a, 1, &rc->n, NULL, 0);
      ts_view_init (&vb, rc->dtype, b, 1, &rc->n, NULL, 0);
      ts_cpu_generator_init (&gen, rc->seed);
      g_assert_true (ts_cpu_uniform_mt (&va, 0, 1, &gen, &error));
      g_assert_true (ts_cpu_normal_mt (&vb, 0, 1, &gen, &error));
      g_assert_no_error (error);
      for (guint i = 0; i < rc->n_check; i++)
        {
          if (value_bits (&va, i) != rc->rand_bits[i] || value_bits (&vb, i) != rc->randn_bits[i])
            g_test_message ("case %u (seed %" G_GUINT64_FORMAT ", n %" G_GINT64_FORMAT ") element %u",
                            c, rc->seed, rc->n, i);
          g_assert_cmphex (value_bits (&va, i), ==, rc->rand_bits[i]);
          g_assert_cmphex (value_bits (&vb, i), ==, rc->randn_bits[i]);
        }
    }
}

/* A transposed (non-contiguous) output is filled serially in memory
 * order, with mean/std applied as one fused multiply-add. */
static void
test_normal_strided (void)
{
  static const guint32 want[4] = { 0x400ac62b, 0x3fb8231f, 0x400ec5e5, 0x40041f35 };
  float data[12];
  gint64 shape[2] = { 4, 3 };
  gint64 strides[2] = { 1, 4 };
  TsCpuGenerator gen;
  TsView v;
  g_autoptr(GError) error = NULL;

  ts_view_init (&v, TS_DTYPE_FLOAT32, data, 2, shape, strides, 0);
  ts_cpu_generator_init (&gen, 42);
  g_assert_true (ts_cpu_normal_mt (&v, 2.0, 0.5, &gen, &error));
  /* x.flatten()[:4] in PyTorch: row 0 of the transposed view */
  for (guint i = 0; i < 4; i++)
    {
      guint32 b;

      memcpy (&b, &data[(i % 3) * 4 + i / 3], 4);
      g_assert_cmphex (b, ==, want[i]);
    }
}

static void
test_state (void)
{
  static const char *want_sha = "42def9c22e961088b0772e4385578c0f8a10463e8a9f35c5bc2e6af0c9726180";
  TsCpuGenerator gen, back;
  guint8 state[TS_CPU_RNG_STATE_SIZE];
  guint8 again[TS_CPU_RNG_STATE_SIZE];
  g_autofree char *sha = NULL;
  double a[5], b[3];
  gint64 n5 = 5, n3 = 3;
  TsView v;
  g_autoptr(GError) error = NULL;

  /* manual_seed(42); rand(5, float64); randn(3, float64): the state bytes
   * (cached normal included) hash as PyTorch's do */
  ts_cpu_generator_init (&gen, 42);
  ts_view_init (&v, TS_DTYPE_FLOAT64, a, 1, &n5, NULL, 0);
  g_assert_true (ts_cpu_uniform_mt (&v, 0, 1, &gen, NULL));
  ts_view_init (&v, TS_DTYPE_FLOAT64, b, 1, &n3, NULL, 0);
  g_assert_true (ts_cpu_normal_mt (&v, 0, 1, &gen, NULL));
  g_assert_true (gen.has_double_normal);
  ts_cpu_generator_get_state (&gen, state);
  sha = g_compute_checksum_for_data (G_CHECKSUM_SHA256, state, sizeof state);
  g_assert_cmpstr (sha, ==, want_sha);

  /* round trip: same state, same next numbers (the cache too) */
  ts_cpu_generator_init (&back, 7);
  g_assert_true (ts_cpu_generator_set_state (&back, state, sizeof state, &error));
  g_assert_no_error (error);
  ts_cpu_generator_get_state (&back, again);
  g_assert_cmpmem (state, sizeof state, again, sizeof again);
  g_assert_cmpfloat (ts_cpu_generator_normal_double (&back, 0, 1), ==,
                     ts_cpu_generator_normal_double (&gen, 0, 1));
  g_assert_cmpuint (ts_cpu_generator_random (&back), ==, ts_cpu_generator_random (&gen));

  /* PyTorch's errors */
  g_assert_false (ts_cpu_generator_set_state (&back, state, 10, &error));
  g_assert_error (error, TS_RNG_ERROR, TS_RNG_ERROR_INVALID_STATE);
  g_assert_cmpstr (error->message, ==,
                   "Expected either a CPUGeneratorImplStateLegacy of size 5048 or a "
                   "CPUGeneratorImplState of size 5056 but found the input RNG state size to be 10");
  g_clear_error (&error);
  memset (again, 0, sizeof again);
  g_assert_false (ts_cpu_generator_set_state (&back, again, sizeof again, &error));
  g_assert_cmpstr (error->message, ==, "Invalid mt19937 state");
  /* a failed set_state leaves the generator as it was */
  g_assert_cmpuint (ts_cpu_generator_initial_seed (&back), ==, 42);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cpu-rng/mt19937", test_mt19937_vectors);
  g_test_add_func ("/cpu-rng/fills-match-pytorch", test_fills_match_pytorch);
  g_test_add_func ("/cpu-rng/normal-strided", test_normal_strided);
  g_test_add_func ("/cpu-rng/state", test_state);
  return g_test_run ();
}
