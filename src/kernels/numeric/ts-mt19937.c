/* ts-mt19937.c: PyTorch's CPU generator (mt19937 + cached normals)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-mt19937.h"
#include "ts-philox.h"

#define MT_M      397
#define MATRIX_A  0x9908b0dfu
#define UMASK     0x80000000u
#define LMASK     0x7fffffffu

/* Byte offsets of PyTorch's CPUGeneratorImplState (x86-64 layout): the
 * legacy TH struct { u64 the_initial_seed; int left; int seeded; u64 next;
 * u64 state[624]; double normal_x, normal_y, normal_rho; int
 * normal_is_valid; } (5048 bytes with padding), then { float
 * next_float_normal_sample; bool is_next_float_normal_sample_valid; }. */
#define OFF_SEED          0
#define OFF_LEFT          8
#define OFF_SEEDED        12
#define OFF_NEXT          16
#define OFF_STATE         24
#define OFF_NORMAL_X      5016
#define OFF_NORMAL_Y      5024
#define OFF_NORMAL_RHO    5032
#define OFF_NORMAL_VALID  5040
#define OFF_FLOAT_NORMAL  5048
#define OFF_FLOAT_VALID   5052

void
ts_cpu_generator_init (TsCpuGenerator *gen,
                       guint64         seed)
{
  g_return_if_fail (gen != NULL);

  memset (gen, 0, sizeof *gen);
  gen->seed = seed;
  gen->seeded = TRUE;
  gen->state[0] = (guint32)seed;
  for (guint32 j = 1; j < TS_MT19937_N; j++)
    gen->state[j] = 1812433253u * (gen->state[j - 1] ^ (gen->state[j - 1] >> 30)) + j;
  gen->left = 1;
  gen->next = 0;
}

guint64
ts_cpu_generator_initial_seed (const TsCpuGenerator *gen)
{
  g_return_val_if_fail (gen != NULL, 0);
  return gen->seed;
}

static inline guint32
twist (guint32 u,
       guint32 v)
{
  return (((u & UMASK) | (v & LMASK)) >> 1) ^ ((v & 1) ? MATRIX_A : 0);
}

static void
next_state (TsCpuGenerator *gen)
{
  guint32 *s = gen->state;
  guint j;

  gen->left = TS_MT19937_N;
  gen->next = 0;
  for (j = 0; j < TS_MT19937_N - MT_M; j++)
    s[j] = s[j + MT_M] ^ twist (s[j], s[j + 1]);
  for (; j < TS_MT19937_N - 1; j++)
    s[j] = s[j + MT_M - TS_MT19937_N] ^ twist (s[j], s[j + 1]);
  s[j] = s[j + MT_M - TS_MT19937_N] ^ twist (s[j], s[0]);
}

guint32
ts_cpu_generator_random (TsCpuGenerator *gen)
{
  guint32 y;

  if (--gen->left == 0)
    next_state (gen);
  y = gen->state[gen->next++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

guint64
ts_cpu_generator_random64 (TsCpuGenerator *gen)
{
  guint64 hi = ts_cpu_generator_random (gen);
  guint64 lo = ts_cpu_generator_random (gen);

  return hi << 32 | lo;
}

float
ts_cpu_generator_uniform_float (TsCpuGenerator *gen)
{
  return (float)(ts_cpu_generator_random (gen) & ((1u << 24) - 1)) * (1.0f / (1 << 24));
}

double
ts_cpu_generator_uniform_double (TsCpuGenerator *gen)
{
  return (double)(ts_cpu_generator_random64 (gen) & ((G_GUINT64_CONSTANT (1) << 53) - 1)) *
         (1.0 / (double)(G_GUINT64_CONSTANT (1) << 53));
}

double
ts_cpu_generator_normal_double (TsCpuGenerator *gen,
                                double          mean,
                                double          std)
{
  double u1, u2, r, theta;

  if (gen->has_double_normal)
    {
      gen->has_double_normal = FALSE;
      return gen->double_normal * std + mean;
    }
  u1 = ts_cpu_generator_uniform_double (gen);
  u2 = ts_cpu_generator_uniform_double (gen);
  r = sqrt (-2.0 * log (1.0 - u2));
  theta = 2.0 * G_PI * u1;
  gen->has_double_normal = TRUE;
  gen->double_normal = r * sin (theta);
  return r * cos (theta) * std + mean;
}

static void
put_u64 (guint8 *p, guint64 v)
{
  v = GUINT64_TO_LE (v);
  memcpy (p, &v, 8);
}

static void
put_u32 (guint8 *p, guint32 v)
{
  v = GUINT32_TO_LE (v);
  memcpy (p, &v, 4);
}

static guint64
get_u64 (const guint8 *p)
{
  guint64 v;

  memcpy (&v, p, 8);
  return GUINT64_FROM_LE (v);
}

static guint32
get_u32 (const guint8 *p)
{
  guint32 v;

  memcpy (&v, p, 4);
  return GUINT32_FROM_LE (v);
}

static double
get_double (const guint8 *p)
{
  guint64 bits = get_u64 (p);
  double v;

  memcpy (&v, &bits, 8);
  return v;
}

void
ts_cpu_generator_get_state (const TsCpuGenerator *gen,
                            guint8                out[TS_CPU_RNG_STATE_SIZE])
{
  g_return_if_fail (gen != NULL && out != NULL);

  /* PyTorch zero-fills the struct, padding included, and writes 0.0 to
   * the unused normal_x/normal_rho; normal_y holds the cached double. */
  memset (out, 0, TS_CPU_RNG_STATE_SIZE);
  put_u64 (out + OFF_SEED, gen->seed);
  put_u32 (out + OFF_LEFT, (guint32)gen->left);
  put_u32 (out + OFF_SEEDED, gen->seeded ? 1 : 0);
  put_u64 (out + OFF_NEXT, gen->next);
  for (guint j = 0; j < TS_MT19937_N; j++)
    put_u64 (out + OFF_STATE + 8 * j, gen->state[j]);
  if (gen->has_double_normal)
    {
      guint64 bits;

      memcpy (&bits, &gen->double_normal, 8);
      put_u64 (out + OFF_NORMAL_Y, bits);
      put_u32 (out + OFF_NORMAL_VALID, 1);
    }
  if (gen->has_float_normal)
    {
      guint32 bits;

      memcpy (&bits, &gen->float_normal, 4);
      put_u32 (out + OFF_FLOAT_NORMAL, bits);
      out[OFF_FLOAT_VALID] = 1;
    }
}

gboolean
ts_cpu_generator_set_state (TsCpuGenerator *gen,
                            const guint8   *bytes,
                            gsize           n_bytes,
                            GError        **error)
{
  TsCpuGenerator tmp;

  g_return_val_if_fail (gen != NULL, FALSE);
  g_return_val_if_fail (bytes != NULL || n_bytes == 0, FALSE);

  if (n_bytes != TS_CPU_RNG_STATE_SIZE && n_bytes != TS_CPU_RNG_LEGACY_STATE_SIZE)
    {
      g_set_error (error, TS_RNG_ERROR, TS_RNG_ERROR_INVALID_STATE,
                   "Expected either a CPUGeneratorImplStateLegacy of size %d or a "
                   "CPUGeneratorImplState of size %d but found the input RNG state size to be %"
                   G_GSIZE_FORMAT, TS_CPU_RNG_LEGACY_STATE_SIZE, TS_CPU_RNG_STATE_SIZE, n_bytes);
      return FALSE;
    }

  memset (&tmp, 0, sizeof tmp);
  tmp.seed = get_u64 (bytes + OFF_SEED);
  tmp.left = (gint32)get_u32 (bytes + OFF_LEFT);
  tmp.seeded = get_u32 (bytes + OFF_SEEDED) != 0;
  tmp.next = (guint32)get_u64 (bytes + OFF_NEXT);
  /* the legacy layout kept 64-bit words; the engine keeps their low half */
  for (guint j = 0; j < TS_MT19937_N; j++)
    tmp.state[j] = (guint32)get_u64 (bytes + OFF_STATE + 8 * j);

  if (get_u32 (bytes + OFF_NORMAL_VALID) != 0)
    {
      tmp.has_double_normal = TRUE;
      if (n_bytes == TS_CPU_RNG_LEGACY_STATE_SIZE)
        /* TH kept the Box-Muller inputs; PyTorch rebuilds the sine sample */
        tmp.double_normal = get_double (bytes + OFF_NORMAL_RHO) *
                            sin (2.0 * G_PI * get_double (bytes + OFF_NORMAL_X));
      else
        tmp.double_normal = get_double (bytes + OFF_NORMAL_Y);
    }
  if (n_bytes == TS_CPU_RNG_STATE_SIZE && bytes[OFF_FLOAT_VALID] != 0)
    {
      guint32 bits = get_u32 (bytes + OFF_FLOAT_NORMAL);

      tmp.has_float_normal = TRUE;
      memcpy (&tmp.float_normal, &bits, 4);
    }

  if (!(tmp.seeded && tmp.left > 0 && tmp.left <= TS_MT19937_N && tmp.next <= TS_MT19937_N))
    {
      g_set_error_literal (error, TS_RNG_ERROR, TS_RNG_ERROR_INVALID_STATE,
                           "Invalid mt19937 state");
      return FALSE;
    }
  *gen = tmp;
  return TRUE;
}
