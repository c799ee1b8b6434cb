/* ts-ops-linalg.c: the LINALG family: PyTorch's LAPACK-backed ATen ops
 * (linalg_lu_factor_ex, linalg_lu_solve, linalg_cholesky_ex, _linalg_svd,
 * _linalg_eigh, linalg_qr, linalg_lstsq, ...)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One launch per op, as PyTorch's CPU backend makes one LAPACK call per
 * matrix of the batch. Each kernel's tensors sit in fixed job slots
 * (ts-cpu-linalg.h); the table below says, per kernel, which slots are
 * inputs and what shape each output has, so that one function builds
 * every op's job. On a CUDA device PyTorch calls cuSOLVER or MAGMA; we
 * have no device kernels for them, so a real GPU runs the host fallback
 * (docs/cuda.md) and the simulator times the launch from the
 * factorization's flops (ts_cpu_linalg_flops).
 */

#include "config.h"

#include <string.h>

#include "ts-op-table.h"
#include "ts-ops-linalg.h"
#include "ts-ops-private.h"

#define N_SLOTS 5

/* How one output slot is shaped: the batch dims, then up to two of the
 * sizes below */
typedef enum
{
  SIZE_NONE,  /* no such dim */
  SIZE_M,
  SIZE_N,
  SIZE_K,
  SIZE_MIN,   /* min (m, n) */
  SIZE_Q,     /* QR's Q columns, SVD's U columns: m when full, else min */
  SIZE_R,     /* QR's R rows, SVD's Vh rows: m (n for Vh) when full, else min */
} Size;

typedef enum
{
  SLOT_UNUSED,
  SLOT_INPUT,
  SLOT_OUT,        /* the input's dtype */
  SLOT_OUT_INT32,  /* pivots, info */
  SLOT_OUT_INT64,  /* lstsq's rank */
  SLOT_OUT_VECTORS, /* an output only with TS_LINALG_VECTORS */
  SLOT_OUT_SV,     /* lstsq's singular values: gelsd and gelss only */
} SlotKind;

typedef struct
{
  SlotKind kind;
  Size     dims[2];
} Slot;

#define IN              { SLOT_INPUT, { SIZE_NONE, SIZE_NONE } }
#define UNUSED          { SLOT_UNUSED, { SIZE_NONE, SIZE_NONE } }
#define OUT(a, b)       { SLOT_OUT, { SIZE_##a, SIZE_##b } }
#define OUT_I32(a)      { SLOT_OUT_INT32, { SIZE_##a, SIZE_NONE } }

static const Slot slots[][N_SLOTS] = {
  [TS_LINALG_LU_FACTOR] = { OUT (M, N), IN, OUT_I32 (MIN), OUT_I32 (NONE), UNUSED },
  [TS_LINALG_LU_SOLVE] = { OUT (N, K), IN, IN, IN, UNUSED },
  [TS_LINALG_SOLVE_TRIANGULAR] = { OUT (M, K), IN, IN, UNUSED, UNUSED },
  [TS_LINALG_CHOLESKY] = { OUT (N, N), IN, UNUSED, OUT_I32 (NONE), UNUSED },
  [TS_LINALG_CHOLESKY_SOLVE] = { OUT (N, K), IN, IN, UNUSED, UNUSED },
  [TS_LINALG_CHOLESKY_INVERSE] = { OUT (N, N), IN, UNUSED, UNUSED, UNUSED },
  [TS_LINALG_GEQRF] = { OUT (M, N), IN, OUT (MIN, NONE), UNUSED, UNUSED },
  [TS_LINALG_HOUSEHOLDER] = { OUT (M, N), IN, IN, UNUSED, UNUSED },
  [TS_LINALG_QR] = { OUT (R, N), IN, { SLOT_OUT_VECTORS, { SIZE_M, SIZE_Q } }, UNUSED, UNUSED },
  [TS_LINALG_SVD] = { OUT (MIN, NONE), IN, { SLOT_OUT_VECTORS, { SIZE_M, SIZE_Q } },
                      { SLOT_OUT_VECTORS, { SIZE_R, SIZE_N } }, UNUSED },
  [TS_LINALG_EIGH] = { OUT (N, NONE), IN, { SLOT_OUT_VECTORS, { SIZE_N, SIZE_N } }, UNUSED, UNUSED },
  [TS_LINALG_LSTSQ] = { OUT (N, K), IN, IN, { SLOT_OUT_INT64, { SIZE_NONE, SIZE_NONE } },
                        { SLOT_OUT_SV, { SIZE_MIN, SIZE_NONE } } },
};

static gint64
size_of (Size            size,
         guint           which,
         const TsLinalg *p)
{
  gboolean full = (p->flags & TS_LINALG_FULL) != 0;

  switch (size)
    {
    case SIZE_M: return p->m;
    case SIZE_N: return p->n;
    case SIZE_K: return p->k;
    case SIZE_MIN: return MIN (p->m, p->n);
    case SIZE_Q: return full ? p->m : MIN (p->m, p->n);
    /* R's rows (QR's slot 0): m when complete; Vh's rows (SVD's slot 3): n */
    case SIZE_R: return full ? (which == 3 ? p->n : p->m) : MIN (p->m, p->n);
    case SIZE_NONE:
    default: return -1;
    }
}

gboolean
ts_ops_linalg_job (TsOpJob  *job,
                   GError  **error)
{
  const TsOpDesc *desc = ts_op_job_desc (job);
  TsView v[N_SLOTS] = { 0 };
  TsOpJobArgs args;
  TsLinalg p;
  const TsLinalg *params = ts_op_job_get_params (job);

  memcpy (&p, params, sizeof p);
  ts_op_job_unpack (job, v, &args);
  /* lstsq's singular values, the one fifth slot, when the driver gives them */
  if (desc->kernel == TS_LINALG_LSTSQ && (p.driver == TS_LINALG_GELSD || p.driver == TS_LINALG_GELSS) &&
      p.batch * MIN (p.m, p.n) > 0)
    ts_op_job_view (job, 4, &v[4]);
  return ts_cpu_linalg ((TsLinalgKernel) desc->kernel, &p, desc->name, v, N_SLOTS, error);
}

/* The output of @slot, with @batch_ndim dims of @batch first; NULL for a
 * slot the flags leave out (its result is an empty tensor) */
static gboolean
new_output (const Slot      *slot,
            guint            index,
            const TsLinalg  *p,
            TsDevice         device,
            TsDType          dtype,
            guint            batch_ndim,
            const gint64    *batch,
            TsTensor       **out,
            GError         **error)
{
  gint64 shape[TS_MAX_DIMS];
  guint ndim = batch_ndim;
  TsDType t = slot->kind == SLOT_OUT_INT32 ? TS_DTYPE_INT32 : slot->kind == SLOT_OUT_INT64 ? TS_DTYPE_INT64 : dtype;
  gboolean absent = (slot->kind == SLOT_OUT_VECTORS && !(p->flags & TS_LINALG_VECTORS)) ||
                    (slot->kind == SLOT_OUT_SV && p->driver != TS_LINALG_GELSD && p->driver != TS_LINALG_GELSS) ||
                    (slot->kind == SLOT_OUT_INT64 && p->driver == TS_LINALG_GELS);

  if (absent)
    {
      gint64 zero = 0;

      *out = ts_tensor_new_empty (device, t, 1, &zero, FALSE, error);
      return *out != NULL;
    }
  memcpy (shape, batch, batch_ndim * sizeof (gint64));
  for (guint d = 0; d < 2; d++)
    if (slot->dims[d] != SIZE_NONE)
      shape[ndim++] = size_of (slot->dims[d], index, p);
  *out = ts_tensor_new_empty (device, t, ndim, shape, FALSE, error);
  return *out != NULL;
}

static double
tensor_bytes (const TsTensor *t)
{
  return (double) ts_tensor_numel (t) * (double) ts_dtype_size (t->dtype);
}

gboolean
ts_ops_linalg (TsOpId           id,
               TsTensor *const *inputs,
               guint            n_inputs,
               const TsLinalg  *params,
               TsTensor       **outputs,
               guint           *n_outputs,
               GError         **error)
{
  const TsOpDesc *desc = ts_op_get (id);
  const Slot *kernel_slots;
  TsTensor *dense[N_SLOTS] = { NULL };
  TsTensor *results[N_SLOTS] = { NULL };
  TsLinalg p = *params;
  TsDevice device;
  TsOpJob *job;
  TsKernelCost cost = { 0, 0 };
  guint batch_ndim, next_input = 0, n_out = 0;
  gboolean ok = FALSE;

  g_return_val_if_fail (desc->family == TS_OP_FAMILY_LINALG && n_inputs > 0, FALSE);
  kernel_slots = slots[desc->kernel];
  if (!ts_ops_common_device ((TsTensor **) inputs, n_inputs, &device, error))
    return FALSE;
  if (inputs[0]->dtype != TS_DTYPE_FLOAT32 && inputs[0]->dtype != TS_DTYPE_FLOAT64)
    return ts_ops_fail (error, "%s: Low precision dtypes not supported. Got %s", desc->name,
                        ts_dtype_scalar_type_name (inputs[0]->dtype));
  batch_ndim = inputs[0]->ndim >= 2 ? inputs[0]->ndim - 2 : 0;
  p.batch = 1;
  for (guint d = 0; d < batch_ndim; d++)
    p.batch *= inputs[0]->shape[d];

  /* the inputs, contiguous, in the kernel's input slots */
  for (guint s = 0; s < N_SLOTS && next_input < n_inputs; s++)
    if (kernel_slots[s].kind == SLOT_INPUT &&
        (dense[s] = ts_ops_dense (inputs[next_input++], error)) == NULL)
      goto out;
  for (guint s = 0; s < N_SLOTS; s++)
    if (kernel_slots[s].kind != SLOT_INPUT && kernel_slots[s].kind != SLOT_UNUSED &&
        !new_output (&kernel_slots[s], s, &p, device, inputs[0]->dtype, batch_ndim, inputs[0]->shape,
                     &results[s], error))
      goto out;

  /* nothing to compute (an empty batch or matrix): no launch, as PyTorch;
   * the infos say success */
  if (ts_tensor_numel (results[0]) == 0 || p.batch == 0)
    {
      TsScalar zero = { TS_DTYPE_INT64, 0, 0 };

      for (guint s = 1; s < N_SLOTS; s++)
        if (kernel_slots[s].kind == SLOT_OUT_INT32 && !ts_ops_fill (results[s], &zero, error))
          goto out;
      goto done;
    }
  job = ts_op_job_new (id);
  ts_op_job_set_params (job, &p, sizeof p);
  for (guint s = 0; s < N_SLOTS; s++)
    {
      TsTensor *t = dense[s] != NULL ? dense[s] : results[s];

      if (t == NULL || ts_tensor_numel (t) == 0)
        continue;
      /* an absent result is (0) and stays out of the job */
      if (s == 0)
        ts_op_job_set (job, 0, t);
      else if (dense[s] != NULL)
        ts_op_job_set (job, s, t);
      else
        ts_op_job_set_output (job, s, t);
      cost.bytes += tensor_bytes (t);
    }
  cost.flops = ts_cpu_linalg_flops ((TsLinalgKernel) desc->kernel, &p);
  if (!ts_op_job_dispatch (job, device, cost, error))
    goto out;
done:
  for (guint s = 0; s < N_SLOTS; s++)
    if (results[s] != NULL)
      outputs[n_out++] = g_steal_pointer (&results[s]);
  *n_outputs = n_out;
  ok = TRUE;
out:
  for (guint s = 0; s < N_SLOTS; s++)
    {
      g_clear_pointer (&dense[s], ts_tensor_unref);
      g_clear_pointer (&results[s], ts_tensor_unref);
    }
  return ok;
}
