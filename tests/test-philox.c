/* test-philox.c: Philox4x32-10 known answers, curand state semantics and
 * the CUDA generator's state and offsets
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-philox.h"

/* Random123's kat_vectors, the three philox4x32 10 lines:
 * counter (4 words), key (2 words), expected output (4 words). */
static void
test_known_answers (void)
{
  static const struct { guint32 ctr[4]; guint32 key[2]; guint32 out[4]; } kat[] = {
    { { 0, 0, 0, 0 }, { 0, 0 },
      { 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 } },
    { { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff }, { 0xffffffff, 0xffffffff },
      { 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd } },
    { { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344 }, { 0xa4093822, 0x299f31d0 },
      { 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (kat); i++)
    {
      guint32 out[4];

      ts_philox4x32_10 (kat[i].ctr, kat[i].key, out);
      for (guint j = 0; j < 4; j++)
        g_assert_cmphex (out[j], ==, kat[i].out[j]);
    }
}

/* curand_init puts the seed in the key, the subsequence in counter words
 * 2-3 and offset / 4 in words 0-1. */
static void
test_state_layout (void)
{
  TsPhiloxState s;
  guint32 expect[4];
  guint32 got[4];
  /* the pi-digits key and counter, with counter word 1 cut to 30 bits so
   * that offset = 4 * (words 0-1) fits in 64 bits */
  guint32 ctr[4] = { 0x243f6a88, 0x05a308d3, 0x13198a2e, 0x03707344 };
  guint32 key[2] = { 0xa4093822, 0x299f31d0 };
  guint64 seed = ((guint64)key[1] << 32) | key[0];
  guint64 subseq = ((guint64)ctr[3] << 32) | ctr[2];
  guint64 offset = (((guint64)ctr[1] << 32) | ctr[0]) * 4;

  ts_philox4x32_10 (ctr, key, expect);
  ts_philox_state_init (&s, seed, subseq, offset);
  ts_philox_next4 (&s, got);
  g_assert_cmpmem (got, sizeof got, expect, sizeof expect);

  /* seed 0 from the start: the all-zero vector, word by word */
  ts_philox_state_init (&s, 0, 0, 0);
  g_assert_cmphex (ts_philox_next (&s), ==, 0x6627e8d5);
  g_assert_cmphex (ts_philox_next (&s), ==, 0xe169c58d);
  g_assert_cmphex (ts_philox_next (&s), ==, 0xbc57ac4c);
  g_assert_cmphex (ts_philox_next (&s), ==, 0x9b00dbd8);

  /* then counter 1 */
  {
    guint32 c1[4] = { 1, 0, 0, 0 };
    guint32 k0[2] = { 0, 0 };

    ts_philox4x32_10 (c1, k0, expect);
    g_assert_cmphex (ts_philox_next (&s), ==, expect[0]);
  }

  /* an offset that is not a multiple of 4 starts inside a block, and
   * curand4 then straddles two blocks */
  ts_philox_state_init (&s, 0, 0, 2);
  ts_philox_next4 (&s, got);
  g_assert_cmphex (got[0], ==, 0xbc57ac4c);
  g_assert_cmphex (got[1], ==, 0x9b00dbd8);
  g_assert_cmphex (got[2], ==, expect[0]);
  g_assert_cmphex (got[3], ==, expect[1]);

  /* the subsequence lands in words 2-3; a block step carries from word 0
   * into word 1 */
  {
    guint32 c[4] = { 0, 0, 1, 0 };
    guint32 k[2] = { 7, 0 };

    ts_philox4x32_10 (c, k, expect);
    ts_philox_state_init (&s, 7, 1, 0);
    ts_philox_next4 (&s, got);
    g_assert_cmphex (got[0], ==, expect[0]);

    c[0] = 0; c[1] = 1; c[2] = 0;
    ts_philox4x32_10 (c, k, expect);
    ts_philox_state_init (&s, 7, 0, G_GUINT64_CONSTANT (0xffffffff) * 4);
    ts_philox_next4 (&s, got);
    ts_philox_next4 (&s, got);
    g_assert_cmphex (got[0], ==, expect[0]);
    g_assert_cmphex (got[3], ==, expect[3]);
  }
}

static void
test_uniform_transform (void)
{
  /* x * 2^-32 + 2^-33 in float: (0, 1], 0xffffffff rounds to exactly 1 */
  g_assert_cmpfloat (ts_philox_word_to_uniform (0), ==, 0x1p-33f);
  g_assert_cmpfloat (ts_philox_word_to_uniform (0xffffffff), ==, 1.0f);
  g_assert_cmpfloat (ts_philox_word_to_uniform (0x80000000), ==, 0.5f);
  g_assert_cmpfloat (ts_philox_words_to_uniform_double (0, 0), ==, 0x1p-54);
  /* the words overlap in bits 21-31 and are xor-ed there */
  g_assert_cmpfloat (ts_philox_words_to_uniform_double (0xffffffff, 0xffffffff),
                     ==, (double)(G_GUINT64_CONSTANT (0x1fffff001fffff)) * 0x1p-53 + 0x1p-54);
  g_assert_cmpfloat (ts_philox_words_to_uniform_double (0xffffffff, 0xfffff800),
                     ==, 1.0 - 0x1p-54);
}

static void
test_normal_transform (void)
{
  float f[2];
  double d[2];

  /* u = 0.5, v = pi: sin ~ 0, cos = -1 -> (~0, -sqrt (2 ln 2)) */
  ts_philox_box_muller (0x80000000, 0x80000000, f);
  g_assert_cmpfloat_with_epsilon (f[0], 0.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (f[1], -sqrt (2.0 * log (2.0)), 1e-6);
  ts_philox_box_muller_double (0, 0x80000000u >> 11 << 11, 0, 0, d);
  g_assert_true (isfinite (d[0]) && isfinite (d[1]));

  /* a million normals look normal */
  {
    TsPhiloxState s;
    double sum = 0, sum2 = 0;
    int n = 1 << 18;

    ts_philox_state_init (&s, 42, 0, 0);
    for (int i = 0; i < n; i += 4)
      {
        float v[4];

        ts_philox_normal4 (&s, v);
        for (int j = 0; j < 4; j++)
          {
            sum += v[j];
            sum2 += (double)v[j] * v[j];
          }
      }
    g_assert_cmpfloat (fabs (sum / n), <, 0.01);
    g_assert_cmpfloat (fabs (sum2 / n - 1.0), <, 0.01);
  }
}

static void
test_generator_state (void)
{
  TsPhiloxGenerator gen;
  TsPhiloxGenerator other;
  guint8 state[TS_PHILOX_STATE_SIZE];
  static const guint8 expected[TS_PHILOX_STATE_SIZE] = {
    42, 0, 0, 0, 0, 0, 0, 0,   /* seed 42, little-endian */
    12, 0, 0, 0, 0, 0, 0, 0,   /* offset 12 */
  };
  g_autoptr(GError) error = NULL;

  ts_philox_generator_init (&gen, 42);
  g_assert_cmpuint (ts_philox_generator_reserve (&gen, 4), ==, 0);
  /* increments round up to a multiple of 4 */
  g_assert_cmpuint (ts_philox_generator_reserve (&gen, 5), ==, 4);
  g_assert_cmpuint (gen.offset, ==, 12);
  ts_philox_generator_get_state (&gen, state);
  g_assert_cmpmem (state, sizeof state, expected, sizeof expected);

  ts_philox_generator_init (&other, TS_PHILOX_DEFAULT_SEED);
  g_assert_true (ts_philox_generator_set_state (&other, state, sizeof state, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (other.seed, ==, 42);
  g_assert_cmpuint (other.offset, ==, 12);

  g_assert_false (ts_philox_generator_set_state (&other, state, 15, &error));
  g_assert_error (error, TS_RNG_ERROR, TS_RNG_ERROR_INVALID_STATE);
  g_assert_cmpstr (error->message, ==, "RNG state is wrong size");
  g_clear_error (&error);

  g_assert_false (ts_philox_generator_set_offset (&other, 6, &error));
  g_assert_cmpstr (error->message, ==, "offset must be a multiple of 4");
  g_assert_cmpuint (other.offset, ==, 12);
  g_clear_error (&error);

  /* a state with a bad offset is refused whole */
  state[8] = 5;
  g_assert_false (ts_philox_generator_set_state (&other, state, sizeof state, &error));
  g_assert_cmpuint (other.seed, ==, 42);
}

static void
test_launch_plan (void)
{
  TsPhiloxLaunch plan;
  guint64 sub, call;
  guint lane;

  /* an H100: 132 SMs x 2048 threads -> at most 132 * 8 = 1056 blocks */
  ts_philox_launch_plan (3, 4, 132, 2048, &plan);
  g_assert_cmpuint (plan.block_size, ==, 256);
  g_assert_cmpuint (plan.grid_size, ==, 1);
  g_assert_cmpuint (plan.offset_increment, ==, 4);

  ts_philox_launch_plan (1000000, 4, 132, 2048, &plan);
  g_assert_cmpuint (plan.grid_size, ==, 1056);
  /* 270336 threads x 4 values cover a million in one round... */
  g_assert_cmpuint (plan.offset_increment, ==, 4);
  /* ...but not with 2 doubles per call */
  ts_philox_launch_plan (1000000, 2, 132, 2048, &plan);
  g_assert_cmpuint (plan.offset_increment, ==, 8);
  ts_philox_launch_plan (10000000, 4, 132, 2048, &plan);
  g_assert_cmpuint (plan.offset_increment, ==, 10 * 4);

  /* exactly one round */
  ts_philox_launch_plan (1056 * 256 * 4, 4, 132, 2048, &plan);
  g_assert_cmpuint (plan.offset_increment, ==, 4);
  ts_philox_launch_plan (1056 * 256 * 4 + 1, 4, 132, 2048, &plan);
  g_assert_cmpuint (plan.offset_increment, ==, 8);

  /* element i: subsequence i % T, lane (i / T) % U, call i / (T U) */
  ts_philox_launch_plan (1000000, 4, 132, 2048, &plan);
  ts_philox_element_position (&plan, 270336 * 5 + 17, &sub, &call, &lane);
  g_assert_cmpuint (sub, ==, 17);
  g_assert_cmpuint (lane, ==, 1);
  g_assert_cmpuint (call, ==, 1);

  /* a GTX 1080 Ti: 28 SMs x 2048 threads */
  ts_philox_launch_plan (1 << 24, 4, 28, 2048, &plan);
  g_assert_cmpuint (plan.grid_size, ==, 224);
  g_assert_cmpuint (plan.offset_increment, ==, ((1u << 24) - 1) / (224 * 256 * 4) * 4 + 4);
}

/* Replaying a saved state gives the same draws (what
 * torch.cuda.set_rng_state(get_rng_state()) promises). */
static void
test_replay (void)
{
  TsPhiloxGenerator gen;
  guint8 saved[TS_PHILOX_STATE_SIZE];
  guint32 first[8], second[8];

  ts_philox_generator_init (&gen, 42);
  ts_philox_generator_reserve (&gen, 8);
  ts_philox_generator_get_state (&gen, saved);

  for (int round = 0; round < 2; round++)
    {
      guint32 *dst = round == 0 ? first : second;
      guint64 offset = ts_philox_generator_reserve (&gen, 8);
      TsPhiloxState s;

      ts_philox_state_init (&s, gen.seed, 3, offset);
      ts_philox_next4 (&s, dst);
      ts_philox_next4 (&s, dst + 4);
      g_assert_true (ts_philox_generator_set_state (&gen, saved, sizeof saved, NULL));
    }
  g_assert_cmpmem (first, sizeof first, second, sizeof second);
  g_assert_cmpuint (gen.offset, ==, 8);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/philox/known-answers", test_known_answers);
  g_test_add_func ("/philox/state-layout", test_state_layout);
  g_test_add_func ("/philox/uniform", test_uniform_transform);
  g_test_add_func ("/philox/normal", test_normal_transform);
  g_test_add_func ("/philox/generator-state", test_generator_state);
  g_test_add_func ("/philox/launch-plan", test_launch_plan);
  g_test_add_func ("/philox/replay", test_replay);
  return g_test_run ();
}
