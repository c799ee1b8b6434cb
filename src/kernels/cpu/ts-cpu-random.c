/* ts-cpu-random.c: uniform_, normal_ and bernoulli_ from Philox
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs PyTorch's grid-stride distribution kernel thread by thread: thread
 * t seeds a Philox state at (seed, subsequence t, offset) and writes lane u
 * of its k-th draw to element k * T * U + u * T + t (see ts-philox.h).
 * The transforms are those of DistributionTemplates.h, in float for the
 * float32/float16/bfloat16 outputs and in double for float64.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-cpu-kernels.h"
#include "ts-cpu-kernels-private.h"

typedef enum
{
  DIST_UNIFORM,
  DIST_NORMAL,
  DIST_BERNOULLI,
} Dist;

typedef struct
{
  Dist    dist;
  TsDType dtype;
  double  a;      /* from / mean / p */
  double  b;      /* to / std */
  float   from_f, to_f, range_f;
} DistArgs;

void
ts_cpu_random_plan (const TsView   *out,
                    guint           sm_count,
                    guint           max_threads_per_sm,
                    TsPhiloxLaunch *plan)
{
  g_return_if_fail (out != NULL && plan != NULL);

  ts_philox_launch_plan (ts_view_numel (out), out->dtype == TS_DTYPE_FLOAT64 ? 2 : 4,
                         sm_count, max_threads_per_sm, plan);
}

/* A double rounded to @dtype and back (how `static_cast<scalar_t>` of a
 * double argument behaves for the narrow float types). */
static float
as_scalar_t (TsDType dtype,
             double  v)
{
  guint8 buf[8];

  if (!ts_dtype_is_floating (dtype))
    return (float)v;
  ts_dtype_store (dtype, buf, v);
  return (float)ts_dtype_load (dtype, buf);
}

static double
transform_float (const DistArgs *args,
                 float           r)
{
  switch (args->dist)
    {
    case DIST_UNIFORM:
      {
        /* value = (scalar_t)(rand * range + from); curand's (0, 1] is
         * turned into [0, 1) by mapping `to` back to `from`. */
        float value = as_scalar_t (args->dtype, r * args->range_f + args->from_f);

        return value == args->to_f ? args->from_f : value;
      }
    case DIST_NORMAL:
      return r * (float)args->b + (float)args->a;
    case DIST_BERNOULLI:
      return r < (float)args->a;
    default:
      g_assert_not_reached ();
    }
}

static double
transform_double (const DistArgs *args,
                  double          r)
{
  switch (args->dist)
    {
    case DIST_UNIFORM:
      {
        double value = r * (args->b - args->a) + args->a;

        return value == args->b ? args->a : value;
      }
    case DIST_NORMAL:
      return r * args->b + args->a;
    case DIST_BERNOULLI:
      return r < args->a;
    default:
      g_assert_not_reached ();
    }
}

static void
random_fill (const TsView         *out,
             const DistArgs       *args,
             guint64               seed,
             guint64               offset,
             const TsPhiloxLaunch *plan)
{
  gint64 n = ts_view_numel (out);
  gint64 threads = (gint64)plan->block_size * plan->grid_size;
  gint64 step = threads * plan->unroll;
  gboolean contiguous = ts_view_is_contiguous (out);
  gsize elem = ts_dtype_size (out->dtype);
  char *base = (char *)out->data + out->offset * (gint64)elem;
  /* float64 outputs draw double2 (uniform2_double / normal2_double);
   * every other dtype, integers included, draws float4. */
  gboolean doubles = out->dtype == TS_DTYPE_FLOAT64;

  for (gint64 t = 0; t < MIN (threads, n); t++)
    {
      TsPhiloxState state;

      ts_philox_state_init (&state, seed, (guint64)t, offset);
      for (gint64 li0 = t; li0 < n; li0 += step)
        {
          double values[4];

          if (doubles)
            {
              double d[2];

              if (args->dist == DIST_NORMAL)
                ts_philox_normal2_double (&state, d);
              else
                ts_philox_uniform2_double (&state, d);
              values[0] = transform_double (args, d[0]);
              values[1] = transform_double (args, d[1]);
            }
          else
            {
              float f[4];

              if (args->dist == DIST_NORMAL)
                ts_philox_normal4 (&state, f);
              else
                ts_philox_uniform4 (&state, f);
              for (guint u = 0; u < 4; u++)
                values[u] = transform_float (args, f[u]);
            }

          for (guint u = 0; u < plan->unroll; u++)
            {
              gint64 li = li0 + (gint64)u * threads;
              gpointer p;

              if (li >= n)
                break;
              p = contiguous ? base + li * (gint64)elem : ts_view_linear_ptr (out, li);
              ts_dtype_store (out->dtype, p, values[u]);
            }
        }
    }
}

static gboolean
check_plan (const TsView          *out,
            const TsPhiloxLaunch  *plan,
            gboolean               floating_only,
            const char            *op,
            GError               **error)
{
  if (floating_only && !ts_dtype_is_floating (out->dtype))
    return ts_kernel_fail_dispatch (error, op, out->dtype);
  if (plan->unroll != (out->dtype == TS_DTYPE_FLOAT64 ? 2u : 4u) || plan->block_size == 0 ||
      plan->grid_size == 0)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_ARGUMENT,
                           "launch plan does not fit the output (use ts_cpu_random_plan)");
  return TRUE;
}

gboolean
ts_cpu_uniform (const TsView         *out,
                double                from,
                double                to,
                guint64               seed,
                guint64               offset,
                const TsPhiloxLaunch *plan,
                GError              **error)
{
  DistArgs args = { DIST_UNIFORM, 0, from, to, 0, 0, 0 };

  g_return_val_if_fail (out != NULL && plan != NULL, FALSE);

  if (!check_plan (out, plan, TRUE, "check_uniform_bounds", error))
    return FALSE;
  if (!(from <= to))
    return ts_kernel_fail (error, TS_KERNEL_ERROR_ARGUMENT,
                           "uniform_ expects to return a [from, to) range, but found from=%g > to=%g",
                           from, to);
  args.dtype = out->dtype;
  args.from_f = as_scalar_t (out->dtype, from);
  args.to_f = as_scalar_t (out->dtype, to);
  args.range_f = as_scalar_t (out->dtype, (double)args.to_f - (double)args.from_f);
  random_fill (out, &args, seed, offset, plan);
  return TRUE;
}

gboolean
ts_cpu_normal (const TsView         *out,
               double                mean,
               double                std,
               guint64               seed,
               guint64               offset,
               const TsPhiloxLaunch *plan,
               GError              **error)
{
  DistArgs args = { DIST_NORMAL, 0, mean, std, 0, 0, 0 };

  g_return_val_if_fail (out != NULL && plan != NULL, FALSE);

  if (!check_plan (out, plan, TRUE, "normal_kernel_cuda", error))
    return FALSE;
  if (!(std >= 0.0))
    return ts_kernel_fail (error, TS_KERNEL_ERROR_ARGUMENT,
                           "normal expects std >= 0.0, but found std %g", std);
  args.dtype = out->dtype;
  random_fill (out, &args, seed, offset, plan);
  return TRUE;
}

gboolean
ts_cpu_bernoulli (const TsView         *out,
                  double                p,
                  guint64               seed,
                  guint64               offset,
                  const TsPhiloxLaunch *plan,
                  GError              **error)
{
  DistArgs args = { DIST_BERNOULLI, 0, p, 0, 0, 0, 0 };

  g_return_val_if_fail (out != NULL && plan != NULL, FALSE);

  if (!check_plan (out, plan, FALSE, "bernoulli", error))
    return FALSE;
  if (!(p >= 0.0 && p <= 1.0))
    return ts_kernel_fail (error, TS_KERNEL_ERROR_ARGUMENT,
                           "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
  args.dtype = out->dtype;
  random_fill (out, &args, seed, offset, plan);
  return TRUE;
}

/* -- CPU fills from the mt19937 generator ----------------------------------
 *
 * These copy ATen's CPU kernels (native/cpu/DistributionTemplates.h) as
 * the AVX2 build of PyTorch runs them: that build compiles with FMA and
 * GCC's default -ffp-contract=fast, so every `a * b + c` whose product
 * has no other use is one fused multiply-add. fmaf()/fma() below mark
 * exactly those spots; everything else rounds after each operation. */

typedef double (*DrawFn) (TsCpuGenerator *gen,
                          gconstpointer   args);
/* A draw that stores itself: integer results beyond 2^53 must not pass
 * through a double. */
typedef void (*StoreFn) (TsCpuGenerator *gen,
                         gconstpointer   args,
                         TsDType         dtype,
                         void           *dst);

typedef struct
{
  DrawFn        draw;
  gconstpointer args;
} Drawn;

static void
store_drawn (TsCpuGenerator *gen,
             gconstpointer   args,
             TsDType         dtype,
             void           *dst)
{
  const Drawn *d = args;

  ts_dtype_store (dtype, dst, d->draw (gen, d->args));
}

/* cpu_serial_kernel: one draw per element, in TensorIterator order. */
static void
serial_store (const TsView   *out,
              TsCpuGenerator *gen,
              StoreFn         store,
              gconstpointer   args)
{
  gint64 n = ts_view_numel (out);
  gsize elem = ts_dtype_size (out->dtype);
  char *base = (char *)out->data + out->offset * (gint64)elem;
  guint perm[TS_MAX_DIMS];
  gint64 idx[TS_MAX_DIMS] = { 0 };
  gint64 pos = 0;

  /* TensorIterator's order for the one output */
  ts_iter_order (out->ndim, out->shape, (const gint64 (*)[TS_MAX_DIMS]) &out->strides, 1, FALSE, perm);
  for (gint64 i = 0; i < n; i++)
    {
      store (gen, args, out->dtype, base + pos * (gint64)elem);
      /* step the odometer, perm[0] fastest */
      for (guint k = 0; k < out->ndim; k++)
        {
          guint d = perm[k];

          pos += out->strides[d];
          if (++idx[d] < out->shape[d])
            break;
          pos -= out->strides[d] * out->shape[d];
          idx[d] = 0;
        }
    }
}

static void
serial_fill (const TsView   *out,
             TsCpuGenerator *gen,
             DrawFn          draw,
             gconstpointer   args)
{
  Drawn d = { draw, args };

  serial_store (out, gen, store_drawn, &d);
}

/* static_cast<Half/BFloat16> of a float: the float is rounded once more. */
static double
narrow (TsDType dtype,
        float   v)
{
  guint8 buf[8];

  if (dtype != TS_DTYPE_FLOAT16 && dtype != TS_DTYPE_BFLOAT16)
    return v;
  ts_dtype_store (dtype, buf, v);
  return ts_dtype_load (dtype, buf);
}

typedef struct
{
  TsDType dtype;
  double  from, to;        /* float64 */
  float   from_f, range_f; /* the narrow types, already rounded to scalar_t */
  guint32 mask;            /* 2^digits - 1 */
  float   divisor;         /* 2^-digits */
} UniformArgs;

static double
draw_uniform (TsCpuGenerator *gen,
              gconstpointer   data)
{
  const UniformArgs *a = data;

  if (a->dtype == TS_DTYPE_FLOAT64)
    {
      double x = (double)(ts_cpu_generator_random64 (gen) & ((G_GUINT64_CONSTANT (1) << 53) - 1)) *
                 (1.0 / 9007199254740992.0);

      return fma (x, a->to - a->from, a->from);
    }
  else
    {
      float x = (float)(ts_cpu_generator_random (gen) & a->mask) * a->divisor;

      return narrow (a->dtype, fmaf (x, a->range_f, a->from_f));
    }
}

static void
uniform_args_init (UniformArgs *a,
                   TsDType      dtype,
                   double       from,
                   double       to)
{
  guint digits = dtype == TS_DTYPE_FLOAT16 ? 11 : dtype == TS_DTYPE_BFLOAT16 ? 8 : 24;
  float to_f;

  a->dtype = dtype;
  a->from = from;
  a->to = to;
  a->mask = (1u << digits) - 1;
  a->divisor = 1.0f / (float)(1u << digits);
  /* scalar_t from/to; `to - from` is a scalar_t again */
  a->from_f = (float)narrow (dtype, (float)from);
  to_f = (float)narrow (dtype, (float)to);
  a->range_f = (float)narrow (dtype, to_f - a->from_f);
}

gboolean
ts_cpu_uniform_mt (const TsView   *out,
                   double          from,
                   double          to,
                   TsCpuGenerator *gen,
                   GError        **error)
{
  UniformArgs args;

  g_return_val_if_fail (out != NULL && gen != NULL, FALSE);

  if (!ts_dtype_is_floating (out->dtype))
    return ts_kernel_fail_dispatch (error, "check_uniform_bounds", out->dtype);
  if (!(from <= to))
    return ts_kernel_fail (error, TS_KERNEL_ERROR_ARGUMENT,
                           "uniform_ expects to return a [from, to) range, but found from=%g > to=%g",
                           from, to);
  uniform_args_init (&args, out->dtype, from, to);
  serial_fill (out, gen, draw_uniform, &args);
  return TRUE;
}

/* avx_mathfun.h's log256_ps and sincos256_ps (Cephes polynomials), one
 * lane at a time, for positive finite inputs (all normal_fill feeds them:
 * u1 in (0, 1], theta in [0, 2 pi)). */
static float
bits_to_float (guint32 b)
{
  float f;

  memcpy (&f, &b, 4);
  return f;
}

static guint32
float_to_bits (float f)
{
  guint32 b;

  memcpy (&b, &f, 4);
  return b;
}

static float
cephes_logf (float x)
{
  float one = 1.0f;
  float invalid = x <= 0.0f;
  gint32 imm0;
  float e, tmp, z, y;
  gboolean mask;

  x = MAX (x, bits_to_float (0x00800000u));
  imm0 = (gint32)(float_to_bits (x) >> 23);
  x = bits_to_float ((float_to_bits (x) & ~0x7f800000u) | float_to_bits (0.5f));
  imm0 -= 0x7f;
  e = (float)imm0 + one;
  mask = x < 0.707106781186547524f;
  tmp = mask ? x : 0.0f;
  x = x - one;
  e = e - (mask ? one : 0.0f);
  x = x + tmp;
  z = x * x;
  y = fmaf (7.0376836292E-2f, x, -1.1514610310E-1f);
  y = fmaf (y, x, 1.1676998740E-1f);
  y = fmaf (y, x, -1.2420140846E-1f);
  y = fmaf (y, x, +1.4249322787E-1f);
  y = fmaf (y, x, -1.6668057665E-1f);
  y = fmaf (y, x, +2.0000714765E-1f);
  y = fmaf (y, x, -2.4999993993E-1f);
  y = fmaf (y, x, +3.3333331174E-1f);
  y = y * x;
  y = fmaf (y, z, e * -2.12194440e-4f);
  y = fmaf (-z, 0.5f, y);
  x = fmaf (e, 0.693359375f, x + y);
  return invalid ? NAN : x;
}

static void
cephes_sincosf (float  x,
                float *s,
                float *c)
{
  guint32 sign_sin = float_to_bits (x) & 0x80000000u;
  gint32 j, j4;
  guint32 swap_sin, sign_cos;
  gboolean poly;
  float y, z, y2, ysin1, ysin2;

  x = bits_to_float (float_to_bits (x) & 0x7fffffffu);
  y = x * 1.27323954473516f;
  j = (gint32)y;
  j = (j + 1) & ~1;
  y = (float)j;
  j4 = j;
  swap_sin = ((guint32)j & 4u) << 29;
  poly = (j & 2) == 0;
  x = fmaf (y, -0.78515625f, x);
  x = fmaf (y, -2.4187564849853515625e-4f, x);
  x = fmaf (y, -3.77489497744594108e-8f, x);
  j4 -= 2;
  sign_cos = (~(guint32)j4 & 4u) << 29;
  sign_sin ^= swap_sin;

  z = x * x;
  y = fmaf (2.443315711809948E-005f, z, -1.388731625493765E-003f);
  y = fmaf (y, z, 4.166664568298827E-002f);
  y = y * z;
  y = fmaf (y, z, -(z * 0.5f));
  y = y + 1.0f;

  y2 = fmaf (-1.9515295891E-4f, z, 8.3321608736E-3f);
  y2 = fmaf (y2, z, -1.6666654611E-1f);
  y2 = y2 * z;
  y2 = fmaf (y2, x, x);

  ysin2 = poly ? y2 : 0.0f;
  ysin1 = poly ? 0.0f : y;
  y2 = y2 - ysin2;
  y = y - ysin1;
  *s = bits_to_float (float_to_bits (ysin1 + ysin2) ^ sign_sin);
  *c = bits_to_float (float_to_bits (y + y2) ^ sign_cos);
}

/* normal_fill_16_AVX2 */
static void
normal_fill_16_avx2 (float *data,
                     float  mean,
                     float  std)
{
  const float two_pi = (float)(2.0 * G_PI);

  for (guint j = 0; j < 8; j++)
    {
      float u1 = 1.0f - data[j];
      float u2 = data[j + 8];
      float radius = sqrtf (-2.0f * cephes_logf (u1));
      float theta = two_pi * u2;
      float s, c;

      cephes_sincosf (theta, &s, &c);
      data[j] = fmaf (radius * c, std, mean);
      data[j + 8] = fmaf (radius * s, std, mean);
    }
}

/* normal_fill_16<double> */
static void
normal_fill_16_double (double *data,
                       double  mean,
                       double  std)
{
  for (guint j = 0; j < 8; j++)
    {
      double u1 = 1 - data[j];
      double u2 = data[j + 8];
      double radius = sqrt (-2 * log (u1));
      double theta = 2.0 * G_PI * u2;

      data[j] = fma (radius * cos (theta), std, mean);
      data[j + 8] = fma (radius * sin (theta), std, mean);
    }
}

/* normal_fill_16<Half/BFloat16>: scalar_t locals. Half has no math
 * overloads, so its expressions run in float (and fuse); c10 gives
 * BFloat16 std::log/sqrt/sin/cos and BFloat16 operators, so there every
 * step rounds to bfloat16. */
static void
normal_fill_16_narrow (TsDType dtype,
                       float  *data,
                       float   mean,
                       float   std)
{
  for (guint j = 0; j < 8; j++)
    {
      float u1 = (float)narrow (dtype, 1.0f - data[j]);
      float u2 = data[j + 8];
      float theta = (float)narrow (dtype, (float)(2.0 * G_PI * (double)u2));

      if (dtype == TS_DTYPE_BFLOAT16)
        {
#define BF(x) ((float)narrow (TS_DTYPE_BFLOAT16, (x)))
          float radius = BF (sqrtf (BF (-2.0f * BF (logf (u1)))));

          data[j] = BF (BF (BF (radius * BF (cosf (theta))) * std) + mean);
          data[j + 8] = BF (BF (BF (radius * BF (sinf (theta))) * std) + mean);
#undef BF
        }
      else
        {
          float radius = (float)narrow (dtype, sqrtf (-2.0f * logf (u1)));

          data[j] = (float)narrow (dtype, fmaf (radius * cosf (theta), std, mean));
          data[j + 8] = (float)narrow (dtype, fmaf (radius * sinf (theta), std, mean));
        }
    }
}

static void
normal_fill_block (TsDType dtype,
                   void   *block,
                   double  mean,
                   double  std)
{
  if (dtype == TS_DTYPE_FLOAT32)
    normal_fill_16_avx2 (block, (float)mean, (float)std);
  else if (dtype == TS_DTYPE_FLOAT64)
    normal_fill_16_double (block, mean, std);
  else
    normal_fill_16_narrow (dtype, block, (float)narrow (dtype, (float)mean),
                           (float)narrow (dtype, (float)std));
}

static void
uniform01 (TsCpuGenerator    *gen,
           const UniformArgs *u,
           TsDType            dtype,
           void              *slot)
{
  double v = draw_uniform (gen, u);

  if (dtype == TS_DTYPE_FLOAT64)
    *(double *)slot = v;
  else
    *(float *)slot = (float)v;
}

/* normal_fill: uniforms for every element, Box-Muller over each whole
 * block of 16, then, when n % 16 != 0, 16 fresh uniforms for the last 16
 * elements (overlapping the previous block) and one more block. Narrow
 * types are staged as floats (each value already rounded to scalar_t). */
static void
normal_fill (const TsView   *out,
             double          mean,
             double          std,
             TsCpuGenerator *gen)
{
  gint64 n = ts_view_numel (out);
  gsize elem = ts_dtype_size (out->dtype);
  char *base = (char *)out->data + out->offset * (gint64)elem;
  gboolean staged = out->dtype != TS_DTYPE_FLOAT32 && out->dtype != TS_DTYPE_FLOAT64;
  gsize slot = out->dtype == TS_DTYPE_FLOAT64 ? 8 : 4;
  char *data = staged ? g_malloc ((gsize)n * slot) : base;
  UniformArgs u;

  uniform_args_init (&u, out->dtype, 0, 1);
  for (gint64 i = 0; i < n; i++)
    uniform01 (gen, &u, out->dtype, data + i * (gint64)slot);
  for (gint64 i = 0; i < n - 15; i += 16)
    normal_fill_block (out->dtype, data + i * (gint64)slot, mean, std);
  if (n % 16 != 0)
    {
      char *tail = data + (n - 16) * (gint64)slot;

      for (gint64 i = 0; i < 16; i++)
        uniform01 (gen, &u, out->dtype, tail + i * (gint64)slot);
      normal_fill_block (out->dtype, tail, mean, std);
    }
  if (staged)
    {
      for (gint64 i = 0; i < n; i++)
        ts_dtype_store (out->dtype, base + i * (gint64)elem, ((float *)data)[i]);
      g_free (data);
    }
}

typedef struct
{
  TsDType dtype;
  double  mean, std;
} NormalArgs;

static double
draw_normal (TsCpuGenerator *gen,
             gconstpointer   data)
{
  const NormalArgs *a = data;
  double v;

  /* normal_distribution<double>: ret = r cos (theta), then
   * transformation::normal (ret, mean, std) = ret * std + mean */
  if (gen->has_double_normal)
    {
      gen->has_double_normal = FALSE;
      v = fma (gen->double_normal, a->std, a->mean);
    }
  else
    {
      double u1 = ts_cpu_generator_uniform_double (gen);
      double u2 = ts_cpu_generator_uniform_double (gen);
      double r = sqrt (-2.0 * log (1.0 - u2));
      double theta = 2.0 * G_PI * u1;

      gen->has_double_normal = TRUE;
      gen->double_normal = r * sin (theta);
      v = fma (r * cos (theta), a->std, a->mean);
    }
  /* static_cast<scalar_t> (double): narrow types go through float */
  return a->dtype == TS_DTYPE_FLOAT64 ? v : narrow (a->dtype, (float)v);
}

gboolean
ts_cpu_normal_mt (const TsView   *out,
                  double          mean,
                  double          std,
                  TsCpuGenerator *gen,
                  GError        **error)
{
  NormalArgs args = { out ? out->dtype : 0, mean, std };

  g_return_val_if_fail (out != NULL && gen != NULL, FALSE);

  if (!ts_dtype_is_floating (out->dtype))
    return ts_kernel_fail_dispatch (error, "normal_kernel_cpu", out->dtype);
  if (!(std >= 0.0))
    return ts_kernel_fail (error, TS_KERNEL_ERROR_ARGUMENT,
                           "normal expects std >= 0.0, but found std %g", std);
  if (ts_view_numel (out) >= 16 && ts_view_is_contiguous (out))
    normal_fill (out, mean, std, gen);
  else
    serial_fill (out, gen, draw_normal, &args);
  return TRUE;
}

static double
draw_bernoulli (TsCpuGenerator *gen,
                gconstpointer   data)
{
  return ts_cpu_generator_uniform_double (gen) < *(const double *)data;
}

gboolean
ts_cpu_bernoulli_mt (const TsView   *out,
                     double          p,
                     TsCpuGenerator *gen,
                     GError        **error)
{
  g_return_val_if_fail (out != NULL && gen != NULL, FALSE);

  if (!(p >= 0.0 && p <= 1.0))
    return ts_kernel_fail (error, TS_KERNEL_ERROR_ARGUMENT,
                           "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
  serial_fill (out, gen, draw_bernoulli, &p);
  return TRUE;
}

/* random_(from, to): random_from_to_kernel. A range that fits 32 bits
 * takes one 32-bit draw per element, a wider one a 64-bit draw; either is
 * reduced modulo the range (uniform_int_from_to), serially. */
typedef struct
{
  gint64  base;
  guint64 range;
} FromToArgs;

static void
store_from_to (TsCpuGenerator *gen,
               gconstpointer   data,
               TsDType         dtype,
               void           *dst)
{
  const FromToArgs *a = data;
  guint64 v = a->range >= (G_GUINT64_CONSTANT (1) << 32) ? ts_cpu_generator_random64 (gen)
                                                         : ts_cpu_generator_random (gen);
  gint64 r = (gint64)(v % a->range + (guint64)a->base);

  if (ts_dtype_is_floating (dtype))
    ts_dtype_store (dtype, dst, (double) r);
  else
    ts_dtype_store_int (dtype, dst, r);
}

gboolean
ts_cpu_random_from_to_mt (const TsView   *out,
                          gint64          from,
                          guint64         range,
                          TsCpuGenerator *gen,
                          GError        **error)
{
  FromToArgs args = { from, range };

  g_return_val_if_fail (out != NULL && gen != NULL, FALSE);

  if (range == 0)
    return ts_kernel_fail (error, TS_KERNEL_ERROR_ARGUMENT,
                           "random_ expects 'from' to be less than 'to', but got from=%" G_GINT64_FORMAT
                           " >= to=%" G_GINT64_FORMAT, from, from);
  serial_store (out, gen, store_from_to, &args);
  return TRUE;
}

/* randperm_cpu (PyTorch 1.13): the identity, then a Fisher-Yates shuffle
 * whose i-th swap partner is i + random() % (n - i). Written here because
 * the draws must be this generator's, one per step, in this order. */
gboolean
ts_cpu_randperm_mt (const TsView   *out,
                    TsCpuGenerator *gen,
                    GError        **error)
{
  gint64 n = ts_view_numel (out);
  gsize elem = ts_dtype_size (out->dtype);
  char *base = (char *)out->data + out->offset * (gint64)elem;
  gint64 stride = out->ndim ? out->strides[0] : 1;
  g_autofree double *r = g_new (double, MAX (n, 1));

  g_return_val_if_fail (out != NULL && gen != NULL && out->ndim <= 1, FALSE);

  for (gint64 i = 0; i < n; i++)
    r[i] = (double)i;
  for (gint64 i = 0; i < n - 1; i++)
    {
      gint64 z = (gint64)(ts_cpu_generator_random (gen) % (guint64)(n - i));
      double sav = r[i];

      r[i] = r[z + i];
      r[z + i] = sav;
    }
  for (gint64 i = 0; i < n; i++)
    ts_dtype_store (out->dtype, base + i * stride * (gint64)elem, r[i]);
  return TRUE;
}
