/* ts-philox.c: Philox4x32-10 counter-based random numbers
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-philox.h"

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

/* curand's constants, spelled as curand spells them (2^-32 as a float
 * literal rounds to exactly 2^-32). */
#define TWO_POW32_INV      (2.3283064e-10f)
#define TWO_POW32_INV_2PI  (2.3283064e-10f * 6.2831855f)
#define TWO_POW53_INV      (1.1102230246251565e-16)
#define PI_DOUBLE          (3.1415926535897932)

G_DEFINE_QUARK (ts-rng-error-quark, ts_rng_error)

static inline void
philox_round (guint32       ctr[4],
              const guint32 key[2])
{
  guint64 p0 = (guint64)PHILOX_M0 * ctr[0];
  guint64 p1 = (guint64)PHILOX_M1 * ctr[2];
  guint32 out0 = (guint32)(p1 >> 32) ^ ctr[1] ^ key[0];
  guint32 out2 = (guint32)(p0 >> 32) ^ ctr[3] ^ key[1];

  ctr[0] = out0;
  ctr[1] = (guint32)p1;
  ctr[2] = out2;
  ctr[3] = (guint32)p0;
}

void
ts_philox4x32_10 (const guint32 counter[4],
                  const guint32 key[2],
                  guint32       out[4])
{
  guint32 c[4] = { counter[0], counter[1], counter[2], counter[3] };
  guint32 k[2] = { key[0], key[1] };

  for (int round = 0; round < 10; round++)
    {
      if (round > 0)
        {
          k[0] += PHILOX_W0;
          k[1] += PHILOX_W1;
        }
      philox_round (c, k);
    }
  memcpy (out, c, sizeof c);
}

/* The add both of curand's increments make: n onto the 64 bits of
 * words[0] (low) and words[1]; TRUE when it carries out of words[1], by
 * curand's test (nhi > words[1] after the add). */
static inline gboolean
add_64 (guint32 words[2],
        guint64 n)
{
  guint32 nlo = (guint32)n;
  guint32 nhi = (guint32)(n >> 32);

  words[0] += nlo;
  if (words[0] < nlo)
    nhi++;
  words[1] += nhi;
  return nhi > words[1];
}

/* Philox_State_Incr(state, n): 128-bit counter += n. */
static void
counter_add (guint32 ctr[4],
             guint64 n)
{
  if (add_64 (ctr, n) && ++ctr[2] == 0)
    ++ctr[3];
}

/* Philox_State_Incr_hi(state, n): the upper 64 bits += n. */
static void
counter_add_hi (guint32 ctr[4],
                guint64 n)
{
  add_64 (ctr + 2, n);
}

static inline void
state_refresh (TsPhiloxState *state)
{
  ts_philox4x32_10 (state->counter, state->key, state->output);
}

void
ts_philox_state_init (TsPhiloxState *state,
                      guint64        seed,
                      guint64        subsequence,
                      guint64        offset)
{
  g_return_if_fail (state != NULL);

  memset (state, 0, sizeof *state);
  state->key[0] = (guint32)seed;
  state->key[1] = (guint32)(seed >> 32);
  counter_add_hi (state->counter, subsequence);
  /* skipahead (offset): whole blocks go to the counter, the rest says
   * which word of the block comes first. */
  state->word = (guint)(offset & 3);
  counter_add (state->counter, offset / 4);
  state_refresh (state);
}

guint32
ts_philox_next (TsPhiloxState *state)
{
  guint32 ret = state->output[state->word++];

  if (state->word == 4)
    {
      counter_add (state->counter, 1);
      state_refresh (state);
      state->word = 0;
    }
  return ret;
}

void
ts_philox_next4 (TsPhiloxState *state,
                 guint32        out[4])
{
  guint32 tmp[4];
  guint word = state->word;

  memcpy (tmp, state->output, sizeof tmp);
  counter_add (state->counter, 1);
  state_refresh (state);
  /* A misaligned state hands out the tail of the old block and the head
   * of the new one, as curand4 does. */
  for (guint i = 0; i < 4; i++)
    out[i] = word + i < 4 ? tmp[word + i] : state->output[word + i - 4];
}

float
ts_philox_word_to_uniform (guint32 x)
{
  return (float)x * TWO_POW32_INV + (TWO_POW32_INV / 2.0f);
}

double
ts_philox_words_to_uniform_double (guint32 x,
                                   guint32 y)
{
  guint64 z = (guint64)x ^ ((guint64)y << (53 - 32));

  return (double)z * TWO_POW53_INV + (TWO_POW53_INV / 2.0);
}

void
ts_philox_box_muller (guint32 x,
                      guint32 y,
                      float   out[2])
{
  float u = (float)x * TWO_POW32_INV + (TWO_POW32_INV / 2);
  float v = (float)y * TWO_POW32_INV_2PI + (TWO_POW32_INV_2PI / 2);
  float s = sqrtf (-2.0f * logf (u));

  out[0] = sinf (v) * s;
  out[1] = cosf (v) * s;
}

void
ts_philox_box_muller_double (guint32 x0,
                             guint32 x1,
                             guint32 y0,
                             guint32 y1,
                             double  out[2])
{
  guint64 zx = (guint64)x0 ^ ((guint64)x1 << (53 - 32));
  guint64 zy = (guint64)y0 ^ ((guint64)y1 << (53 - 32));
  double u = (double)zx * TWO_POW53_INV + (TWO_POW53_INV / 2.0);
  double v = (double)zy * (TWO_POW53_INV * 2.0) + TWO_POW53_INV;
  double s = sqrt (-2.0 * log (u));

  /* The device code uses sincospi (v); the host path of curand multiplies
   * by pi first, which is what we can do here. */
  out[0] = sin (v * PI_DOUBLE) * s;
  out[1] = cos (v * PI_DOUBLE) * s;
}

void
ts_philox_uniform4 (TsPhiloxState *state,
                    float          out[4])
{
  guint32 w[4];

  ts_philox_next4 (state, w);
  for (guint i = 0; i < 4; i++)
    out[i] = ts_philox_word_to_uniform (w[i]);
}

void
ts_philox_normal4 (TsPhiloxState *state,
                   float          out[4])
{
  guint32 w[4];

  ts_philox_next4 (state, w);
  ts_philox_box_muller (w[0], w[1], out);
  ts_philox_box_muller (w[2], w[3], out + 2);
}

void
ts_philox_uniform2_double (TsPhiloxState *state,
                           double         out[2])
{
  guint32 w[4];

  ts_philox_next4 (state, w);
  out[0] = ts_philox_words_to_uniform_double (w[0], w[1]);
  out[1] = ts_philox_words_to_uniform_double (w[2], w[3]);
}

void
ts_philox_normal2_double (TsPhiloxState *state,
                          double         out[2])
{
  guint32 w[4];

  ts_philox_next4 (state, w);
  ts_philox_box_muller_double (w[0], w[1], w[2], w[3], out);
}

/* torch.cuda.manual_seed: a new seed restarts the offset. */
void
ts_philox_generator_init (TsPhiloxGenerator *gen,
                          guint64            seed)
{
  g_return_if_fail (gen != NULL);

  gen->seed = seed;
  gen->offset = 0;
}

guint64
ts_philox_generator_reserve (TsPhiloxGenerator *gen,
                             guint64            increment)
{
  guint64 offset;

  g_return_val_if_fail (gen != NULL, 0);

  offset = gen->offset;
  gen->offset += ((increment + 3) / 4) * 4;
  return offset;
}

void
ts_philox_generator_get_state (const TsPhiloxGenerator *gen,
                               guint8                   out[TS_PHILOX_STATE_SIZE])
{
  guint64 seed_le;
  guint64 offset_le;

  g_return_if_fail (gen != NULL);

  seed_le = GUINT64_TO_LE (gen->seed);
  offset_le = GUINT64_TO_LE (gen->offset);
  memcpy (out, &seed_le, 8);
  memcpy (out + 8, &offset_le, 8);
}

gboolean
ts_philox_generator_set_offset (TsPhiloxGenerator *gen,
                                guint64            offset,
                                GError           **error)
{
  g_return_val_if_fail (gen != NULL, FALSE);

  if (offset % 4 != 0)
    {
      g_set_error_literal (error, TS_RNG_ERROR, TS_RNG_ERROR_INVALID_OFFSET,
                           "offset must be a multiple of 4");
      return FALSE;
    }
  gen->offset = offset;
  return TRUE;
}

gboolean
ts_philox_generator_set_state (TsPhiloxGenerator *gen,
                               const guint8      *bytes,
                               gsize              n_bytes,
                               GError           **error)
{
  guint64 seed;
  guint64 offset;

  g_return_val_if_fail (gen != NULL, FALSE);
  g_return_val_if_fail (bytes != NULL || n_bytes == 0, FALSE);

  if (n_bytes != TS_PHILOX_STATE_SIZE)
    {
      g_set_error_literal (error, TS_RNG_ERROR, TS_RNG_ERROR_INVALID_STATE,
                           "RNG state is wrong size");
      return FALSE;
    }

  memcpy (&seed, bytes, 8);
  memcpy (&offset, bytes + 8, 8);
  offset = GUINT64_FROM_LE (offset);
  if (!ts_philox_generator_set_offset (gen, offset, error))
    return FALSE;
  gen->seed = GUINT64_FROM_LE (seed);
  return TRUE;
}

void
ts_philox_launch_plan (gint64          numel,
                       guint           unroll,
                       guint           sm_count,
                       guint           max_threads_per_sm,
                       TsPhiloxLaunch *plan)
{
  guint64 n;
  guint64 blocks;
  guint64 max_blocks;
  guint64 per_round;

  g_return_if_fail (plan != NULL);
  g_return_if_fail (unroll == 2 || unroll == 4);
  g_return_if_fail (sm_count > 0);
  g_return_if_fail (max_threads_per_sm >= TS_PHILOX_BLOCK_SIZE);

  n = numel > 0 ? (guint64)numel : 1;
  blocks = (n + TS_PHILOX_BLOCK_SIZE - 1) / TS_PHILOX_BLOCK_SIZE;
  max_blocks = (guint64)sm_count * (max_threads_per_sm / TS_PHILOX_BLOCK_SIZE);
  plan->block_size = TS_PHILOX_BLOCK_SIZE;
  plan->grid_size = (guint32)MIN (blocks, max_blocks);
  plan->unroll = unroll;
  per_round = (guint64)plan->block_size * plan->grid_size * unroll;
  plan->offset_increment = ((n - 1) / per_round + 1) * 4;
}

void
ts_philox_element_position (const TsPhiloxLaunch *plan,
                            gint64                index,
                            guint64              *subsequence,
                            guint64              *call,
                            guint                *lane)
{
  guint64 threads;
  guint64 i;

  g_return_if_fail (plan != NULL);
  g_return_if_fail (index >= 0);

  threads = (guint64)plan->block_size * plan->grid_size;
  i = (guint64)index;
  if (subsequence)
    *subsequence = i % threads;
  if (call)
    *call = i / (threads * plan->unroll);
  if (lane)
    *lane = (guint)((i / threads) % plan->unroll);
}
