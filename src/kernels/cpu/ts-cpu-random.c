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

#include "ts-cpu-kernels.h"

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
    {
      g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_DTYPE,
                   "\"%s\" not implemented for '%s'", op, ts_dtype_scalar_type_name (out->dtype));
      return FALSE;
    }
  if (plan->unroll != (out->dtype == TS_DTYPE_FLOAT64 ? 2u : 4u) || plan->block_size == 0 ||
      plan->grid_size == 0)
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_ARGUMENT,
                           "launch plan does not fit the output (use ts_cpu_random_plan)");
      return FALSE;
    }
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
    {
      g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_ARGUMENT,
                   "uniform_ expects to return a [from, to) range, but found from=%g > to=%g",
                   from, to);
      return FALSE;
    }
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
    {
      g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_ARGUMENT,
                   "normal expects std >= 0.0, but found std %g", std);
      return FALSE;
    }
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
    {
      g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_ARGUMENT,
                   "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
      return FALSE;
    }
  args.dtype = out->dtype;
  random_fill (out, &args, seed, offset, plan);
  return TRUE;
}
