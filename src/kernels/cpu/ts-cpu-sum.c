/* ts-cpu-sum.c: float32 and float64 sums in PyTorch's order
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * ATen's CPU sum (native/cpu/SumKernel.cpp, cascade_sum) does not add the
 * elements one after the other: it keeps four levels of partial sums and
 * folds each level into the next every 2^k rows, runs four of them side by
 * side (instruction-level parallelism), and with AVX2 eight float lanes
 * (four double ones) at a time, adding the lanes last. All of it in the
 * dtype itself (float for float32). A sequential sum, in a double
 * accumulator or not, rounds differently: loss.item() of an MSE printed
 * other last digits than PyTorch's.
 *
 * So this file replays that arithmetic: TensorIterator's layout of the
 * reduction (reduced dims first, dims sorted by stride and coalesced), one
 * thread's 2-D loops (the serial path, as at::get_num_threads () == 1 or a
 * tensor under the grain size runs), and for each 2-D block the same
 * choice among the inner/outer, vectorized/scalar sums. Written by hand:
 * no library sums in this order, and the order is what it is for. The
 * vector lanes are independent sums, so they are plain arrays here that
 * GCC vectorizes.
 */

#include "config.h"

#include <string.h>

#include "ts-cpu-kernels.h"
#include "ts-cpu-kernels-private.h"

#define LEVELS 4
#define ILP 4
#define MAX_ACC (ILP * 8)    /* four vectors of eight float lanes */

/* c10's CeilLog2 (ATen/native/cpu/utils.h) */
static gint64
ceil_log2 (gint64 x)
{
  if (x <= 2)
    return 1;
  return 64 - __builtin_clzll ((guint64) x - 1);
}

/* The layout of one 2-D block: @v vectors of @lanes elements per row,
 * element (row i, vector r, lane l) at base + i * row + r * vec + l * lane
 * (bytes). */
typedef struct
{
  gint64   row, vec, lane;
  int      v, lanes;
  gboolean packed;    /* rows_packed () */
} Rows;

#define DEFINE_SUMS(T, SUF, VLANES)                                                              \
/* multi_row_sum: v * lanes independent cascades over @size rows */                            \
static void                                                                                      \
multi_row_sum_##SUF (const char *base, const Rows *r, gint64 size, T *out)                      \
{                                                                                                \
  gint64 level_power = MAX ((gint64) 4, ceil_log2 (size) / LEVELS);                             \
  gint64 level_step = (gint64) 1 << level_power, level_mask = level_step - 1;                   \
  Rows rp = *r;                                                                                  \
  int n = r->v * r->lanes;                                                                       \
  T acc[LEVELS][MAX_ACC];                                                                        \
  gint64 i = 0;                                                                                  \
                                                                                                 \
  memset (acc, 0, sizeof acc);                                                                   \
  rp.packed = rows_packed (r, sizeof (T));                                                       \
  r = &rp;                                                                                       \
  while (i + level_step <= size)                                                                 \
    {                                                                                            \
      for (gint64 j = 0; j < level_step; j++, i++)                                               \
        add_row_##SUF (base + i * r->row, r, acc[0]);                                            \
      for (int j = 1; j < LEVELS; j++)                                                           \
        {                                                                                        \
          for (int k = 0; k < n; k++)                                                            \
            {                                                                                    \
              acc[j][k] += acc[j - 1][k];                                                        \
              acc[j - 1][k] = 0;                                                                 \
            }                                                                                    \
          if ((i & (level_mask << (j * level_power))) != 0)                                      \
            break;                                                                               \
        }                                                                                        \
    }                                                                                            \
  for (; i < size; i++)                                                                          \
    add_row_##SUF (base + i * r->row, r, acc[0]);                                                \
  for (int j = 1; j < LEVELS; j++)                                                               \
    for (int k = 0; k < n; k++)                                                                  \
      acc[0][k] += acc[j][k];                                                                    \
  memcpy (out, acc[0], n * sizeof (T));                                                          \
}                                                                                                \
                                                                                                 \
/* row_sum: @size steps of @lanes lanes, @step bytes apart, as ILP                              \
 * interleaved cascades, the leftover steps into the first, then folded */                       \
static void                                                                                      \
row_sum_##SUF (const char *base, gint64 step, gint64 lane, int lanes, gint64 size, T *out)      \
{                                                                                                \
  Rows r = { .row = step * ILP, .vec = step, .lane = lane, .v = ILP, .lanes = lanes };          \
  gint64 size_ilp = size / ILP;                                                                  \
  T partial[MAX_ACC];                                                                            \
                                                                                                 \
  multi_row_sum_##SUF (base, &r, size_ilp, partial);                                             \
  for (gint64 i = size_ilp * ILP; i < size; i++)                                                 \
    for (int l = 0; l < lanes; l++)                                                              \
      partial[l] += load_##SUF (base + i * step + l * lane);                                     \
  for (int k = 1; k < ILP; k++)                                                                  \
    for (int l = 0; l < lanes; l++)                                                              \
      partial[l] += partial[k * lanes + l];                                                      \
  memcpy (out, partial, lanes * sizeof (T));                                                     \
}                                                                                                \
                                                                                                 \
/* CastStoreAccumulate: the output element plus the sum, in the dtype */                        \
static inline void                                                                               \
store_add_##SUF (char *out, gint64 stride, gint64 index, T value)                                \
{                                                                                                \
  T *p = (T *) (gpointer) (out + index * stride);                                                \
                                                                                                 \
  *p = *p + value;                                                                               \
}                                                                                                \
                                                                                                 \
/* vectorized_inner_sum: each of @size1 rows contiguous over the reduced                        \
 * dim: vectors, the leftover elements, then the lanes */                                        \
static void                                                                                      \
inner_vec_##SUF (char *out, const char *in, gint64 in_stride1, gint64 out_stride,               \
                 gint64 size0, gint64 size1)                                                     \
{                                                                                                \
  gint64 vec_size = size0 / VLANES;                                                              \
                                                                                                 \
  for (gint64 j = 0; j < size1; j++)                                                             \
    {                                                                                            \
      const char *row = in + j * in_stride1;                                                     \
      T lanes[VLANES], acc = 0;                                                                  \
                                                                                                 \
      row_sum_##SUF (row, VLANES * sizeof (T), sizeof (T), VLANES, vec_size, lanes);            \
      for (gint64 k = vec_size * VLANES; k < size0; k++)                                         \
        acc += load_##SUF (row + k * (gint64) sizeof (T));                                       \
      for (int k = 0; k < VLANES; k++)                                                           \
        acc += lanes[k];                                                                         \
      store_add_##SUF (out, out_stride, j, acc);                                                 \
    }                                                                                            \
}                                                                                                \
                                                                                                 \
/* vectorized_outer_sum: the kept dim contiguous: 32 (float) columns at a                       \
 * time, then a vector's worth, then one at a time */                                            \
static void                                                                                      \
outer_vec_##SUF (char *out, const char *in, gint64 in_stride0, gint64 out_stride,               \
                 gint64 size0, gint64 size1)                                                     \
{                                                                                                \
  T sums[MAX_ACC];                                                                               \
  gint64 j = 0;                                                                                  \
                                                                                                 \
  for (; j + ILP * VLANES <= size1; j += ILP * VLANES)                                           \
    {                                                                                            \
      Rows r = { .row = in_stride0, .vec = VLANES * sizeof (T), .lane = sizeof (T),              \
                 .v = ILP, .lanes = VLANES };                                                    \
                                                                                                 \
      multi_row_sum_##SUF (in + j * (gint64) sizeof (T), &r, size0, sums);                       \
      for (int k = 0; k < ILP * VLANES; k++)                                                     \
        store_add_##SUF (out, out_stride, j + k, sums[k]);                                       \
    }                                                                                            \
  for (; j + VLANES <= size1; j += VLANES)                                                       \
    {                                                                                            \
      row_sum_##SUF (in + j * (gint64) sizeof (T), in_stride0, sizeof (T), VLANES, size0, sums); \
      for (int k = 0; k < VLANES; k++)                                                           \
        store_add_##SUF (out, out_stride, j + k, sums[k]);                                       \
    }                                                                                            \
  for (; j < size1; j++)                                                                         \
    {                                                                                            \
      row_sum_##SUF (in + j * (gint64) sizeof (T), in_stride0, 0, 1, size0, sums);              \
      store_add_##SUF (out, out_stride, j, sums[0]);                                             \
    }                                                                                            \
}                                                                                                \
                                                                                                 \
/* scalar_inner_sum and scalar_outer_sum: strided both ways */                                   \
static void                                                                                      \
scalar_sums_##SUF (char *out, const char *in, const gint64 *in_strides, gint64 out_stride,      \
                   gint64 size0, gint64 size1)                                                   \
{                                                                                                \
  T sums[MAX_ACC];                                                                               \
  gint64 j = 0;                                                                                  \
                                                                                                 \
  if (in_strides[0] >= in_strides[1])                                                           \
    for (; j + ILP - 1 < size1; j += ILP)                                                        \
      {                                                                                          \
        Rows r = { .row = in_strides[0], .vec = in_strides[1], .lane = 0, .v = ILP, .lanes = 1 }; \
                                                                                                 \
        multi_row_sum_##SUF (in + j * in_strides[1], &r, size0, sums);                           \
        for (int k = 0; k < ILP; k++)                                                            \
          store_add_##SUF (out, out_stride, j + k, sums[k]);                                     \
      }                                                                                          \
  for (; j < size1; j++)                                                                         \
    {                                                                                            \
      row_sum_##SUF (in + j * in_strides[1], in_strides[0], 0, 1, size0, sums);                 \
      store_add_##SUF (out, out_stride, j, sums[0]);                                             \
    }                                                                                            \
}                                                                                                \
                                                                                                 \
/* cascade_sum's 2-D loop: data, strides (output then input, dim 0 then                        \
 * dim 1, bytes) */                                                                              \
static void                                                                                      \
block_##SUF (char *out, const char *in, const gint64 *strides, gint64 size0, gint64 size1)      \
{                                                                                                \
  gint64 in_s[2] = { strides[1], strides[3] }, out_s[2] = { strides[0], strides[2] };           \
                                                                                                 \
  /* the reduction to be the first dim */                                                        \
  if (out_s[0] != 0 && out_s[1] == 0)                                                            \
    {                                                                                            \
      gint64 t;                                                                                  \
                                                                                                 \
      t = in_s[0], in_s[0] = in_s[1], in_s[1] = t;                                               \
      t = out_s[0], out_s[0] = out_s[1], out_s[1] = t;                                           \
      t = size0, size0 = size1, size1 = t;                                                       \
    }                                                                                            \
  /* no dim reduced here: an elementwise add */                                                  \
  if (out_s[0] != 0 && out_s[1] != 0)                                                            \
    {                                                                                            \
      for (gint64 j = 0; j < size1; j++)                                                         \
        for (gint64 i = 0; i < size0; i++)                                                       \
          store_add_##SUF (out + j * out_s[1], out_s[0], i,                                      \
                           load_##SUF (in + j * in_s[1] + i * in_s[0]));                         \
      return;                                                                                    \
    }                                                                                            \
  if (in_s[0] == (gint64) sizeof (T) && size0 >= VLANES)                                         \
    inner_vec_##SUF (out, in, in_s[1], out_s[1], size0, size1);                                  \
  else if (in_s[1] == (gint64) sizeof (T) && size1 >= VLANES)                                    \
    outer_vec_##SUF (out, in, in_s[0], out_s[1], size0, size1);                                  \
  else                                                                                           \
    scalar_sums_##SUF (out, in, in_s, out_s[1], size0, size1);                                   \
}

static inline float
load_f32 (const char *p)
{
  float v;

  memcpy (&v, p, sizeof v);
  return v;
}

static inline double
load_f64 (const char *p)
{
  double v;

  memcpy (&v, p, sizeof v);
  return v;
}

/* a row of four vectors side by side, 32 floats (16 doubles) in a row:
 * one fixed-length loop that GCC vectorizes */
static gboolean
rows_packed (const Rows *r,
             gsize       size)
{
  return r->v == ILP && r->lanes * size * ILP == MAX_ACC * sizeof (float) &&
         r->lane == (gint64) size && r->vec == r->lanes * (gint64) size;
}

static inline void
add_row_f32 (const char *row, const Rows *r, float *acc)
{
  if (r->packed)
    {
      const float *p = (const float *) (gconstpointer) row;

      for (int k = 0; k < MAX_ACC; k++)
        acc[k] += p[k];
      return;
    }
  for (int v = 0; v < r->v; v++)
    for (int l = 0; l < r->lanes; l++)
      acc[v * r->lanes + l] += load_f32 (row + v * r->vec + l * r->lane);
}

static inline void
add_row_f64 (const char *row, const Rows *r, double *acc)
{
  if (r->packed)
    {
      const double *p = (const double *) (gconstpointer) row;

      for (int k = 0; k < MAX_ACC / 2; k++)
        acc[k] += p[k];
      return;
    }
  for (int v = 0; v < r->v; v++)
    for (int l = 0; l < r->lanes; l++)
      acc[v * r->lanes + l] += load_f64 (row + v * r->vec + l * r->lane);
}

/* AVX2: Vectorized<float> has eight lanes, Vectorized<double> four */
DEFINE_SUMS (float, f32, 8)
DEFINE_SUMS (double, f64, 4)

/* TensorIterator's layout of the reduction of @in into @acc (the kept dims
 * contiguous, @acc_strides 0 on the reduced ones, elements): dims sorted
 * with the reduced ones first (reorder_dimensions), then coalesced
 * (coalesce_dimensions). Fills @shape and @strides (output then input,
 * bytes, per dim) and returns the number of dims. */
static guint
reduction_layout (const TsView *in,
                  const gint64 *acc_strides,
                  gint64       *shape,
                  gint64      (*strides)[2])
{
  gint64 s[2][TS_MAX_DIMS];
  guint perm[TS_MAX_DIMS], nd = in->ndim, prev = 0;
  gint64 es = (gint64) ts_dtype_size (in->dtype);

  for (guint d = 0; d < nd; d++)
    {
      s[0][d] = acc_strides[d] * es;
      s[1][d] = in->strides[d] * es;
    }
  ts_iter_order (nd, in->shape, (const gint64 (*)[TS_MAX_DIMS]) s, 2, TRUE, perm);
  for (guint i = 0; i < nd; i++)
    {
      shape[i] = in->shape[perm[i]];
      strides[i][0] = s[0][perm[i]];
      strides[i][1] = s[1][perm[i]];
    }
  if (nd <= 1)
    return nd;
  for (guint d = 1; d < nd; d++)
    {
      gboolean merge = shape[prev] == 1 || shape[d] == 1 ||
                       (shape[prev] * strides[prev][0] == strides[d][0] &&
                        shape[prev] * strides[prev][1] == strides[d][1]);

      if (merge)
        {
          if (shape[prev] == 1)
            memcpy (strides[prev], strides[d], sizeof strides[d]);
          shape[prev] *= shape[d];
        }
      else if (++prev != d)
        {
          memcpy (strides[prev], strides[d], sizeof strides[d]);
          shape[prev] = shape[d];
        }
    }
  return prev + 1;
}

gboolean
ts_cpu_sum_cascade (const TsView *in,
                    const gint64 *acc_strides,
                    gpointer      acc)
{
  gint64 shape[TS_MAX_DIMS], strides[TS_MAX_DIMS][2], index[TS_MAX_DIMS] = { 0 };
  gint64 block[4];
  const char *base = (const char *) in->data + in->offset * (gint64) ts_dtype_size (in->dtype);
  guint nd;

  if (in->dtype != TS_DTYPE_FLOAT32 && in->dtype != TS_DTYPE_FLOAT64)
    return FALSE;
  if (ts_view_numel (in) == 0)
    return TRUE;
  nd = reduction_layout (in, acc_strides, shape, strides);
  /* serial_for_each: 2-D blocks, the dims past the second counted with
   * the third fastest */
  block[0] = nd > 0 ? strides[0][0] : 0;
  block[1] = nd > 0 ? strides[0][1] : 0;
  block[2] = nd > 1 ? strides[1][0] : 0;
  block[3] = nd > 1 ? strides[1][1] : 0;
  for (;;)
    {
      gint64 out_off = 0, in_off = 0;
      guint d;

      for (d = 2; d < nd; d++)
        {
          out_off += index[d] * strides[d][0];
          in_off += index[d] * strides[d][1];
        }
      if (in->dtype == TS_DTYPE_FLOAT32)
        block_f32 ((char *) acc + out_off, base + in_off, block, nd > 0 ? shape[0] : 1, nd > 1 ? shape[1] : 1);
      else
        block_f64 ((char *) acc + out_off, base + in_off, block, nd > 0 ? shape[0] : 1, nd > 1 ? shape[1] : 1);
      for (d = 2; d < nd && ++index[d] == shape[d]; d++)
        index[d] = 0;
      if (d >= nd)
        return TRUE;
    }
}
