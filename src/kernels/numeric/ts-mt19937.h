/* ts-mt19937.h: PyTorch's CPU generator (mt19937 + cached normals)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A bit-exact copy of ATen's CPUGeneratorImpl, so that a seed gives the
 * numbers PyTorch prints on the CPU:
 *
 * - The engine is the 32-bit Mersenne Twister (624 words), seeded the
 *   way at::mt19937 seeds it: word 0 is the low 32 bits of the seed, then
 *   w[j] = 1812433253 * (w[j-1] ^ (w[j-1] >> 30)) + j. The full 64-bit seed
 *   is kept for initial_seed(). "left" starts at 1, so the first draw
 *   regenerates the whole block.
 * - random() is one tempered word; random64() is two, the first in the
 *   high half.
 * - Box-Muller makes two normals and keeps the sine one for the next call;
 *   there is one cache for float and one for double samples, both dropped
 *   by manual_seed.
 * - get_state()/set_state() use PyTorch's 5056-byte layout (the old TH
 *   struct of 5048 bytes followed by the float cache): see ts-mt19937.c.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define TS_MT19937_N 624
/* sizeof (CPUGeneratorImplState) and sizeof (CPUGeneratorImplStateLegacy) */
#define TS_CPU_RNG_STATE_SIZE        5056
#define TS_CPU_RNG_LEGACY_STATE_SIZE 5048
/* c10::default_rng_seed_val */
#define TS_CPU_RNG_DEFAULT_SEED G_GUINT64_CONSTANT (67280421310721)

typedef struct
{
  guint64  seed;
  gint32   left;
  gboolean seeded;
  guint32  next;
  guint32  state[TS_MT19937_N];
  gboolean has_float_normal;
  float    float_normal;
  gboolean has_double_normal;
  double   double_normal;
} TsCpuGenerator;

void     ts_cpu_generator_init          (TsCpuGenerator       *gen,
                                         guint64               seed);
guint64  ts_cpu_generator_initial_seed  (const TsCpuGenerator *gen);
guint32  ts_cpu_generator_random        (TsCpuGenerator       *gen);
guint64  ts_cpu_generator_random64      (TsCpuGenerator       *gen);

/* at::uniform_real_distribution<float> (0, 1) and <double> (0, 1): 24
 * bits of random() times 2^-24, 53 bits of random64() times 2^-53. */
float    ts_cpu_generator_uniform_float  (TsCpuGenerator *gen);
double   ts_cpu_generator_uniform_double (TsCpuGenerator *gen);
/* at::normal_distribution<double> (mean, std), with its cache. */
double   ts_cpu_generator_normal_double  (TsCpuGenerator *gen,
                                          double          mean,
                                          double          std);

void     ts_cpu_generator_get_state     (const TsCpuGenerator *gen,
                                         guint8                out[TS_CPU_RNG_STATE_SIZE]);
gboolean ts_cpu_generator_set_state     (TsCpuGenerator       *gen,
                                         const guint8         *bytes,
                                         gsize                 n_bytes,
                                         GError              **error);

G_END_DECLS
