/* ts-ops-complex.c: which ops take complex tensors
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The kernels of most families read elements through double
 * (ts_dtype_load), which holds a complex number's real part only. The
 * families below know complex numbers: the elementwise ones (which refuse
 * the ops PyTorch refuses, with its messages), sum and mean, copies and
 * fills, torch.fft's, and those that move elements as bytes (views,
 * shape ops, gathers, where). Any other launch with a complex operand
 * fails here, naming the op, rather than compute a wrong value.
 */

#include "config.h"

#include "ts-autograd.h"
#include "ts-cpu-kernels.h"
#include "ts-ops-complex.h"

static gboolean
family_takes_complex (const TsOpDesc *desc)
{
  switch (desc->family)
    {
    case TS_OP_FAMILY_BINARY:
    case TS_OP_FAMILY_UNARY:
    case TS_OP_FAMILY_FILL:
    case TS_OP_FAMILY_COPY:
    case TS_OP_FAMILY_INDEX_SELECT:
    case TS_OP_FAMILY_GATHER:
    case TS_OP_FAMILY_INDEX:
    case TS_OP_FAMILY_SHAPE:
    case TS_OP_FAMILY_WHERE:
    case TS_OP_FAMILY_FFT:
      return TRUE;
    default:
      return FALSE;
    }
}

static gboolean
any_complex (TsTensor *const *tensors,
             guint            n_tensors)
{
  for (guint i = 0; i < n_tensors; i++)
    if (tensors[i] != NULL && ts_dtype_is_complex (tensors[i]->dtype))
      return TRUE;
  return FALSE;
}

/* A graph through complex numbers needs Wirtinger formulas, which no
 * formula here has: refuse the op rather than record a graph that drops
 * or miscomputes the gradient. */
static gboolean
check_complex_grad (const TsOpDesc   *desc,
                    TsTensor *const  *tensors,
                    TsTensor *const  *caller,
                    guint             n_tensors,
                    GError          **error)
{
  if (!ts_autograd_is_grad_enabled () || !any_complex (tensors, n_tensors))
    return TRUE;
  for (guint i = 0; i < n_tensors; i++)
    if (caller[i] != NULL && ts_autograd_requires_grad (caller[i]))
      {
        g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_NOT_IMPLEMENTED,
                     "%s with a complex operand or result on a tensor that requires grad: autograd of complex "
                     "tensors is not modeled by Tensorscope yet (the derivative for '%s' is not implemented); "
                     "run it under torch.no_grad() or on detached tensors", desc->aten_name, desc->name);
        return FALSE;
      }
  return TRUE;
}

gboolean
ts_ops_check_complex (const TsOpDesc   *desc,
                      TsTensor *const  *tensors,
                      TsTensor *const  *caller,
                      guint             n_tensors,
                      GError          **error)
{
  if (!check_complex_grad (desc, tensors, caller, n_tensors, error))
    return FALSE;
  if (family_takes_complex (desc))
    return TRUE;
  for (guint i = 0; i < n_tensors; i++)
    if (tensors[i] != NULL && ts_dtype_is_complex (tensors[i]->dtype))
      {
        TsDType unused;

        if (desc->family == TS_OP_FAMILY_REDUCE &&
            (desc->kernel == TS_REDUCE_SUM || desc->kernel == TS_REDUCE_MEAN))
          return TRUE;
        /* max and min: PyTorch's message */
        if (desc->family == TS_OP_FAMILY_REDUCE &&
            !ts_reduce_result_dtype (desc->kernel, tensors[i]->dtype, &unused, error))
          return FALSE;
        g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_NOT_IMPLEMENTED,
                     "%s of %s tensors is not modeled by Tensorscope yet (complex tensors support "
                     "arithmetic, exp, log, trigonometry, abs, angle, conj, sum, mean, copies, views, "
                     "indexing and torch.fft)", desc->aten_name, ts_dtype_scalar_type_name (tensors[i]->dtype));
        return FALSE;
      }
  return TRUE;
}
