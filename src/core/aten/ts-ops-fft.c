/* ts-ops-fft.c: aten::_fft_c2c, _fft_r2c, _fft_c2r and cuFFT's plan cache
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One launch per op (the FFT family of the op list), computed by FFTW
 * (ts-cpu-fft.c) on the CPU, inside simulated device work, and on the
 * host fallback on a real GPU (no cuFFT in the CUDA module).
 *
 * The plan cache: PyTorch keeps one LRU cache of cuFFT plans per device
 * (aten/src/ATen/native/cuda/CuFFTPlanCache.h), 4096 plans at most by
 * default on CUDA >= 10, and looks every CUDA transform up in it: a miss
 * creates a plan (cufftMakePlan) and evicts the least recently used one
 * when the cache is full; with max_size 0 nothing is cached and every
 * call creates its plan. The key here is what cuFFT's plan depends on as
 * PyTorch builds it: the transform type, the dtype, the signal sizes,
 * the batch and the layout (the operands' strides). The time a plan takes
 * to make is not charged: there is no measured figure for it in the GPU
 * profiles yet, so only the cache's state and its count of created plans
 * tell a changing transform shape from a steady one.
 */

#include "config.h"

#include <string.h>

#include "ts-op-table.h"
#include "ts-ops-fft.h"
#include "ts-ops-private.h"

/* CUFFT_DEFAULT_CACHE_SIZE */
#define PLAN_CACHE_DEFAULT_MAX 4096

typedef struct
{
  GQueue      usage;     /* keys, most recently used first */
  GHashTable *plans;     /* key -> its link in usage */
  gint64      max_size;
  gint64      created;
} PlanCache;

static GMutex caches_lock;
static GHashTable *caches;   /* device index -> PlanCache */

static void
plan_cache_free (gpointer data)
{
  PlanCache *cache = data;

  g_queue_clear_full (&cache->usage, g_free);
  g_hash_table_unref (cache->plans);
  g_free (cache);
}

/* with caches_lock held */
static PlanCache *
plan_cache_get (int device)
{
  PlanCache *cache;

  if (caches == NULL)
    caches = g_hash_table_new_full (NULL, NULL, NULL, plan_cache_free);
  cache = g_hash_table_lookup (caches, GINT_TO_POINTER (device));
  if (cache == NULL)
    {
      cache = g_new0 (PlanCache, 1);
      g_queue_init (&cache->usage);
      cache->plans = g_hash_table_new (g_str_hash, g_str_equal);
      cache->max_size = PLAN_CACHE_DEFAULT_MAX;
      g_hash_table_insert (caches, GINT_TO_POINTER (device), cache);
    }
  return cache;
}

static void
plan_cache_trim (PlanCache *cache,
                 gint64     max_size)
{
  while ((gint64) cache->usage.length > max_size)
    {
      char *key = g_queue_pop_tail (&cache->usage);

      g_hash_table_remove (cache->plans, key);
      g_free (key);
    }
}

/* PyTorch's lookup: a hit moves the plan to the front; a miss makes one */
static void
plan_cache_lookup (int         device,
                   const char *key)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&caches_lock);
  PlanCache *cache = plan_cache_get (device);
  GList *link;

  if (cache->max_size == 0)
    {
      cache->created++;  /* an uncached plan, made for this call */
      return;
    }
  link = g_hash_table_lookup (cache->plans, key);
  if (link != NULL)
    {
      g_queue_unlink (&cache->usage, link);
      g_queue_push_head_link (&cache->usage, link);
      return;
    }
  plan_cache_trim (cache, cache->max_size - 1);
  g_queue_push_head (&cache->usage, g_strdup (key));
  g_hash_table_insert (cache->plans, cache->usage.head->data, cache->usage.head);
  cache->created++;
}

gint64
ts_ops_fft_plan_cache_size (int device)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&caches_lock);

  return plan_cache_get (device)->usage.length;
}

gint64
ts_ops_fft_plan_cache_max_size (int device)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&caches_lock);

  return plan_cache_get (device)->max_size;
}

gint64
ts_ops_fft_plans_created (int device)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&caches_lock);

  return plan_cache_get (device)->created;
}

gboolean
ts_ops_fft_plan_cache_set_max_size (int      device,
                                    gint64   max_size,
                                    GError **error)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&caches_lock);
  PlanCache *cache;

  /* CUFFT_MAX_PLAN_NUM is SIZE_MAX on CUDA >= 10: only the sign is checked */
  if (max_size < 0)
    return ts_ops_fail (error, "cuFFT plan cache size must be non-negative, but got %" G_GINT64_FORMAT, max_size);
  cache = plan_cache_get (device);
  cache->max_size = max_size;
  plan_cache_trim (cache, max_size);
  return TRUE;
}

void
ts_ops_fft_plan_cache_clear (int device)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&caches_lock);

  plan_cache_trim (plan_cache_get (device), 0);
}

/* The plan's key: what cuFFT's plan depends on */
static char *
plan_key (const TsFftDesc *desc,
          const TsTensor  *in,
          const TsTensor  *out)
{
  GString *key = g_string_new (NULL);

  g_string_append_printf (key, "%d:%d:%d", desc->kind, in->dtype, desc->flag);
  for (guint d = 0; d < in->ndim; d++)
    g_string_append_printf (key, ":%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "/%d",
                            in->shape[d], in->strides[d], out->strides[d], desc->dims[0] == (int) d);
  for (guint i = 0; i < desc->n_dims; i++)
    g_string_append_printf (key, ",%d", desc->dims[i]);
  return g_string_free (key, FALSE);
}

/* The job ------------------------------------------------------------------ */

gboolean
ts_ops_fft_job (TsOpJob  *job,
                GError  **error)
{
  TsView v[TS_OP_JOB_N_VIEWS];
  TsOpJobArgs args;

  /* slots: output, self; the TsFftDesc in the params */
  ts_op_job_unpack (job, v, &args);
  return ts_cpu_fft (ts_op_job_get_params (job), &v[1], &v[0], error);
}

static const TsOpId kind_ops[] = {
  [TS_FFT_C2C] = TS_OP_FFT_C2C,
  [TS_FFT_R2C] = TS_OP_FFT_R2C,
  [TS_FFT_C2R] = TS_OP_FFT_C2R,
};

/* The input dtype each kind takes, and its output's; FALSE when @self's
 * dtype is not one (torch/fft.py promotes first: this is the ATen op's
 * own check) */
static gboolean
fft_dtypes (TsFftKind  kind,
            TsDType    in,
            TsDType   *out,
            GError   **error)
{
  gboolean complex_in = kind != TS_FFT_R2C;
  gboolean ok = complex_in ? ts_dtype_is_complex (in) : (in == TS_DTYPE_FLOAT32 || in == TS_DTYPE_FLOAT64);

  if (!ok)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME, "%s: unsupported dtype %s",
                   ts_op_get (kind_ops[kind])->name, ts_dtype_scalar_type_name (in));
      return FALSE;
    }
  *out = kind == TS_FFT_C2C ? in : kind == TS_FFT_R2C ? ts_dtype_to_complex (in) : ts_dtype_to_real (in);
  return TRUE;
}

static gboolean
fft_desc (TsFftKind   kind,
          TsTensor   *self,
          const int  *dims,
          guint       n_dims,
          TsFftNorm   norm,
          gboolean    flag,
          TsFftDesc  *desc,
          GError    **error)
{
  memset (desc, 0, sizeof *desc);
  desc->kind = kind;
  desc->norm = norm;
  desc->flag = flag;
  if (n_dims == 0 || n_dims > self->ndim)
    return ts_ops_fail (error,
                        "%s: expected 1 to %u dims, got %u", ts_op_get (kind_ops[kind])->name, self->ndim, n_dims);
  for (guint i = 0; i < n_dims; i++)
    {
      int d = dims[i];

      if (!ts_tensor_wrap_dim ((int) self->ndim, &d, error))
        return FALSE;
      for (guint j = 0; j < i; j++)
        if (desc->dims[j] == d)
          return ts_ops_fail (error, "FFT dims must be unique");
      desc->dims[desc->n_dims++] = d;
    }
  return TRUE;
}

static TsKernelCost
fft_cost (const TsFftDesc *desc,
          const TsView    *in,
          const TsView    *out)
{
  TsKernelCost cost;

  cost.flops = ts_fft_flops (desc, in, out);
  cost.bytes = (double) ts_view_numel (in) * (double) ts_dtype_size (in->dtype) +
               (double) ts_view_numel (out) * (double) ts_dtype_size (out->dtype);
  return cost;
}

TsTensor *
ts_ops_fft (TsFftKind   kind,
            TsTensor   *self,
            const int  *dims,
            guint       n_dims,
            TsFftNorm   norm,
            gboolean    flag,
            gint64      last_dim_size,
            GError    **error)
{
  gint64 shape[TS_MAX_DIMS];
  TsFftDesc desc;
  TsDType dtype;
  TsTensor *out;
  TsOpJob *job;
  TsView vin, vout;

  g_return_val_if_fail (self != NULL && kind <= TS_FFT_C2R, NULL);

  if (!fft_dtypes (kind, self->dtype, &dtype, error) ||
      !fft_desc (kind, self, dims, n_dims, norm, flag, &desc, error) ||
      !ts_fft_output_shape (&desc, self->ndim, self->shape, last_dim_size, shape, error))
    return NULL;
  out = ts_tensor_new_empty (ts_tensor_get_device (self), dtype, self->ndim, shape, FALSE, error);
  if (out == NULL)
    return NULL;
  if (ts_tensor_numel (out) > 0)
    {
      job = ts_op_job_new (kind_ops[kind]);
      ts_op_job_set_params (job, &desc, sizeof desc);
      ts_op_job_set (job, 0, out);
      ts_op_job_set (job, 1, self);
      ts_op_job_view (job, 0, &vout);
      ts_op_job_view (job, 1, &vin);
      if (ts_op_job_dispatch_new (job, ts_tensor_get_device (self), fft_cost (&desc, &vin, &vout), out,
                                  error) == NULL)
        return NULL;
    }
  if (ts_tensor_is_cuda (self))
    {
      g_autofree char *key = plan_key (&desc, self, out);

      plan_cache_lookup (ts_tensor_get_device (self).index, key);
    }
  return out;
}
