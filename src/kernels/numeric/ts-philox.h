/* ts-philox.h: Philox4x32-10 counter-based random numbers, as curand and
 * PyTorch's CUDA generator use them
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Three layers:
 *
 * 1. The block function ts_philox4x32_10(): Random123's Philox4x32 with 10
 *    rounds (the curand_Philox4x32_10 of curand): a 128-bit counter and a
 *    64-bit key give four 32-bit outputs.
 *
 * 2. TsPhiloxState, a copy of curandStatePhilox4_32_10_t: curand_init (seed,
 *    subsequence, offset) puts the key at the seed (low word first), the
 *    subsequence in counter words 2-3 and offset/4 in counter words 0-1
 *    (offset % 4 says which output word comes next). curand4 returns the
 *    current block and steps the counter by one. On top of it the
 *    distributions of curand: uniform floats in (0, 1] as
 *    `x * 2^-32 + 2^-33`, uniform doubles from two words
 *    (`_curand_uniform_double_hq`), and Box-Muller normals (two words give
 *    two floats; four words give two doubles).
 *
 * 3. TsPhiloxGenerator, the state PyTorch's CUDAGeneratorImpl keeps: a seed
 *    and a "philox offset per thread". get_state/set_state serialise it as
 *    16 bytes: the seed as little-endian uint64 then the offset as int64.
 *    Each random kernel reserves an offset increment, rounded up to a
 *    multiple of 4, and runs from the offset the generator had before.
 *
 * How a kernel of n elements maps elements to random numbers
 * ----------------------------------------------------------
 * This follows PyTorch's distribution_nullary_kernel and
 * distribution_elementwise_grid_stride_kernel (ATen/native/cuda/
 * DistributionTemplates.h) so that a future CUDA kernel that copies that
 * scheme, and real PyTorch on a GPU of the same SM count, draw the same
 * words:
 *
 *   block = 256 threads
 *   grid  = min (sm_count * (max_threads_per_sm / 256), ceil (n / 256))
 *   T     = block * grid                     (total threads)
 *   U     = values per philox call: 4 for float32/float16/bfloat16 (float4
 *           from curand_uniform4/normal4), 2 for float64 (double2)
 *   increment = ((n - 1) / (T * U) + 1) * 4  (generator offset advance)
 *
 * Thread t (0 <= t < T) calls curand_init (seed, t, offset) and then, for
 * k = 0, 1, ..., draws one block (one curand4) per iteration; lane u of
 * iteration k goes to element  i = k * T * U + u * T + t  when i < n.
 * Equivalently, element i is lane (i / T) % U of call number i / (T * U)
 * of subsequence i % T. Elements are numbered in row-major order of the
 * output's shape (PyTorch's TensorIterator numbers a non-contiguous output
 * in its own permuted order, which we do not reproduce).
 *
 * Bit-exactness: the 32-bit words are exact. Uniform floats and doubles
 * are exact too (a multiply by a power of two and an add). Normals need
 * log, sqrt, sin and cos: curand uses the GPU's fast __sincosf/logf, which
 * a CPU cannot reproduce bit for bit; we use the C library's, so normals
 * agree with a GPU's to a few ulp, not exactly.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define TS_RNG_ERROR (ts_rng_error_quark ())

typedef enum
{
  TS_RNG_ERROR_INVALID_STATE,
  TS_RNG_ERROR_INVALID_OFFSET,
} TsRngError;

GQuark ts_rng_error_quark (void);

/* c10's default_rng_seed_val: the seed of a generator nobody seeded. */
#define TS_PHILOX_DEFAULT_SEED G_GUINT64_CONSTANT (67280421310721)
/* Size of torch.cuda.get_rng_state(): seed + offset. */
#define TS_PHILOX_STATE_SIZE 16
/* Threads per block of PyTorch's distribution kernels. */
#define TS_PHILOX_BLOCK_SIZE 256

void ts_philox4x32_10 (const guint32 counter[4],
                       const guint32 key[2],
                       guint32       out[4]);

/* curandStatePhilox4_32_10_t. */
typedef struct
{
  guint32 counter[4];
  guint32 key[2];
  guint32 output[4];
  guint   word;        /* next word of output to hand out (curand's STATE) */
} TsPhiloxState;

void    ts_philox_state_init      (TsPhiloxState *state,
                                   guint64        seed,
                                   guint64        subsequence,
                                   guint64        offset);
guint32 ts_philox_next            (TsPhiloxState *state);       /* curand */
void    ts_philox_next4           (TsPhiloxState *state,
                                   guint32        out[4]);      /* curand4 */
void    ts_philox_uniform4        (TsPhiloxState *state,
                                   float          out[4]);      /* curand_uniform4 */
void    ts_philox_normal4         (TsPhiloxState *state,
                                   float          out[4]);      /* curand_normal4 */
void    ts_philox_uniform2_double (TsPhiloxState *state,
                                   double         out[2]);      /* curand_uniform2_double */
void    ts_philox_normal2_double  (TsPhiloxState *state,
                                   double         out[2]);      /* curand_normal2_double */

/* The word-to-value transforms on their own. */
float   ts_philox_word_to_uniform        (guint32 x);
double  ts_philox_words_to_uniform_double (guint32 x,
                                           guint32 y);
void    ts_philox_box_muller             (guint32 x,
                                          guint32 y,
                                          float   out[2]);
void    ts_philox_box_muller_double      (guint32 x0,
                                          guint32 x1,
                                          guint32 y0,
                                          guint32 y1,
                                          double  out[2]);

/* PyTorch's CUDA generator. */
typedef struct
{
  guint64 seed;
  guint64 offset;   /* philox_offset_per_thread, always a multiple of 4 */
} TsPhiloxGenerator;

void     ts_philox_generator_init       (TsPhiloxGenerator *gen,
                                         guint64            seed);
/* philox_cuda_state(increment): returns the offset to run from and
 * advances the generator by @increment rounded up to a multiple of 4. */
guint64  ts_philox_generator_reserve    (TsPhiloxGenerator *gen,
                                         guint64            increment);
void     ts_philox_generator_get_state  (const TsPhiloxGenerator *gen,
                                         guint8                   out[TS_PHILOX_STATE_SIZE]);
gboolean ts_philox_generator_set_state  (TsPhiloxGenerator *gen,
                                         const guint8      *bytes,
                                         gsize              n_bytes,
                                         GError           **error);
gboolean ts_philox_generator_set_offset (TsPhiloxGenerator *gen,
                                         guint64            offset,
                                         GError           **error);

/* The launch configuration of one random kernel (see the top comment). */
typedef struct
{
  guint32 block_size;
  guint32 grid_size;
  guint32 unroll;            /* values per philox call: 4 or 2 */
  guint64 offset_increment;  /* what the kernel reserves from the generator */
} TsPhiloxLaunch;

void ts_philox_launch_plan       (gint64                numel,
                                  guint                 unroll,
                                  guint                 sm_count,
                                  guint                 max_threads_per_sm,
                                  TsPhiloxLaunch       *plan);
/* Where element @index draws its value from. */
void ts_philox_element_position  (const TsPhiloxLaunch *plan,
                                  gint64                index,
                                  guint64              *subsequence,
                                  guint64              *call,
                                  guint                *lane);

G_END_DECLS
