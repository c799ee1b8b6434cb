/* ts-ops-sort.c: the SORT (sort, topk, kthvalue), SCAN (cumsum,
 * cumprod) and SCATTER (scatter_, scatter_add_) families
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Python side checks the arguments with PyTorch's messages (k, the
 * out= tensors); what reaches here is well formed, or fails with a plain
 * message. No device kernels yet (TS_OP_CUDA_HOST): on a real GPU the host
 * fallback computes them.
 */

#include "config.h"

#include "ts-autocast.h"

#include <math.h>
#include <string.h>

#include "ts-autograd-formulas.h"
#include "ts-op-table.h"
#include "ts-ops-private.h"
#include "ts-ops-sort.h"

gboolean
ts_ops_sort_job (TsOpJob  *job,
                 GError  **error)
{
  TsView v[4];
  TsOpJobArgs args;

  /* slots: values, input, indices; arg: the first sorted position */
  ts_op_job_unpack (job, v, &args);
  return ts_cpu_sort (&v[1], (guint) args.dim, args.mask != 0, args.arg, &v[0], &v[2], error);
}

gboolean
ts_ops_scan_job (TsOpJob  *job,
                 GError  **error)
{
  TsView v[4];
  TsOpJobArgs args;

  /* slots: output, input, and for cummax/cummin the indices */
  ts_op_job_unpack (job, v, &args);
  return ts_cpu_scan ((TsScanOp) ts_op_job_desc (job)->kernel, &v[1], (guint) args.dim, &v[0],
                      v[2].data != NULL ? &v[2] : NULL, error);
}

/* The values' gradient goes back to the positions the indices name:
 * gather's formula (a scatter_add into zeros) */
static void
record_sort (TsOpId     id,
             TsTensor  *self,
             int        dim,
             TsTensor  *values,
             TsTensor  *indices)
{
  TsOpGradAttrs grad = { .dims = { dim }, .n_dims = 1, .save_extra = indices };

  ts_autograd_record_op (ts_op_get (id), TS_OP_GRAD_TENSOR, &self, 1, values, &grad);
}

gboolean
ts_ops_sort (TsOpId      id,
             TsTensor   *self,
             int         dim,
             gboolean    descending,
             gint64      start,
             gint64      n,
             TsTensor  **values,
             TsTensor  **indices,
             GError    **error)
{
  TsDevice device = ts_tensor_get_device (self);
  gint64 shape[TS_MAX_DIMS];
  gint64 size;
  TsView vin, vout;
  TsKernelCost cost;
  TsOpJob *job;

  g_return_val_if_fail (self != NULL && values != NULL && indices != NULL, FALSE);

  *values = *indices = NULL;
  if (!ts_tensor_wrap_dim (self->ndim, &dim, error))
    return FALSE;
  size = self->ndim ? self->shape[dim] : 1;
  if (start < 0 || n < 0 || start + n > size)
    return ts_ops_fail (error, "sort: positions out of range");
  memcpy (shape, self->shape, self->ndim * sizeof (gint64));
  if (self->ndim)
    shape[dim] = n;
  /* sort's results have self's dense strides, or ones inferred from its
   * (ATen's sort meta); topk's are contiguous */
  if (id == TS_OP_SORT)
    {
      *values = ts_tensor_new_output (device, self->dtype, self->ndim, shape, &self, 1, FALSE, error);
      if (*values != NULL)
        *indices = ts_tensor_new_empty_strided (device, TS_DTYPE_INT64, self->ndim, shape, (*values)->strides, error);
    }
  else
    {
      *values = ts_tensor_new_empty (device, self->dtype, self->ndim, shape, FALSE, error);
      if (*values != NULL)
        *indices = ts_tensor_new_empty (device, TS_DTYPE_INT64, self->ndim, shape, FALSE, error);
    }
  if (*indices == NULL)
    {
      g_clear_pointer (values, ts_tensor_unref);
      return FALSE;
    }
  if (ts_tensor_numel (*values) == 0)
    return TRUE;
  job = ts_op_job_new (id);
  ts_op_job_set_args (job, start, dim, descending);
  ts_op_job_set (job, 0, *values);
  ts_op_job_set (job, 1, self);
  ts_op_job_set_output (job, 2, *indices);
  ts_op_job_view (job, 1, &vin);
  ts_op_job_view (job, 0, &vout);
  /* reads the input, writes values and int64 indices; n log n compares */
  cost = ts_cost_copy (&vout, &vin);
  cost.bytes += (double) ts_tensor_numel (*indices) * 8;
  cost.flops = (double) ts_tensor_numel (self) * MAX (log2 ((double) size), 1.0);
  if (!ts_op_job_dispatch (job, device, cost, error))
    {
      g_clear_pointer (values, ts_tensor_unref);
      g_clear_pointer (indices, ts_tensor_unref);
      return FALSE;
    }
  record_sort (id, self, dim, *values, *indices);
  return TRUE;
}

TsTensor *
ts_ops_scan (TsOpId      id,
             TsTensor   *self,
             int         dim,
             TsDType     dtype,
             TsTensor   *out,
             GError    **error)
{
  g_auto(TsAutocastScope) scope = { { NULL } };
  g_autoptr(TsTensor) original = NULL;

  g_return_val_if_fail (self != NULL, NULL);

  /* autocast: functional calls without an explicit dtype */
  if (out == NULL && dtype == TS_DTYPE_UNDEFINED &&
      !ts_autocast_operands (ts_op_get (id), &scope, &self, NULL, error))
    return NULL;
  if (!ts_tensor_wrap_dim (self->ndim, &dim, error))
    return NULL;
  if (dtype == TS_DTYPE_UNDEFINED)
    dtype = ts_dtype_is_floating (self->dtype) ? self->dtype : TS_DTYPE_INT64;
  /* cumprod_'s formula reads self as it was */
  original = ts_autograd_original_self (ts_op_get (id), &self, 1, out);
  out = ts_ops_launch_like (id, self, out, dtype, 0, dim, 0, error);
  /* cumsum and cumprod have formulas over dim; cummax and cummin record
   * with their indices (ts_ops_sort) */
  if (id != TS_OP_CUMSUM && id != TS_OP_CUMPROD)
    return out;
  return ts_ops_record_like (out, id, self, 0, self->ndim > 0 ? G_GUINT64_CONSTANT (1) << dim : 0, original);
}

gboolean
ts_ops_scatter_job (TsOpJob  *job,
                    GError  **error)
{
  TsView v[4];
  TsOpJobArgs args;

  /* slots: self (written), index, src; kernel code 1 adds */
  ts_op_job_unpack (job, v, &args);
  return ts_cpu_scatter (&v[0], (guint) args.dim, &v[1], &v[2], ts_op_job_desc (job)->kernel == 1, NULL, error);
}

gboolean
ts_ops_scatter_ (TsTensor  *self,
                 int        dim,
                 TsTensor  *index,
                 TsTensor  *src,
                 gboolean   add,
                 GError   **error)
{
  TsTensor *operands[3] = { self, index, src };
  TsDevice device;

  g_return_val_if_fail (self != NULL && index != NULL && src != NULL, FALSE);

  if (!ts_tensor_wrap_dim (self->ndim, &dim, error) ||
      !ts_ops_common_device (operands, 3, &device, error))
    return FALSE;
  if (index->dtype != TS_DTYPE_INT64)
    return ts_ops_fail (error, "scatter(): Expected dtype int64 for index");
  if (src->dtype != self->dtype)
    return ts_ops_fail (error, "scatter(): Expected self.dtype to be equal to src.dtype");
  if (ts_tensor_numel (index) == 0)
    return TRUE;
  if (MAX (index->ndim, 1) != MAX (self->ndim, 1))
    return ts_ops_fail (error, "Index tensor must have the same number of dimensions as self tensor");
  for (guint d = 0; d < index->ndim; d++)
    if (index->shape[d] > (d < src->ndim ? src->shape[d] : 1) ||
        ((int) d != dim && index->shape[d] > self->shape[d]))
      {
        g_autofree char *si = ts_shape_to_string (index->ndim, index->shape);
        g_autofree char *ss = ts_shape_to_string (self->ndim, self->shape);
        g_autofree char *sr = ts_shape_to_string (src->ndim, src->shape);

        g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                     "Expected index %s to be smaller than self %s apart from dimension %d and to be "
                     "smaller size than src %s", si, ss, dim, sr);
        return FALSE;
      }
  return ts_ops_scatter_launch (add ? TS_OP_SCATTER_ADD : TS_OP_SCATTER, self, dim, index, src, error);
}

gboolean
ts_ops_scatter_launch (TsOpId      id,
                       TsTensor   *self,
                       int         dim,
                       TsTensor   *index,
                       TsTensor   *src,
                       GError    **error)
{
  TsTensor *operands[3] = { self, index, src };
  TsDevice device;
  TsView vindex, vself;
  TsOpJob *job;

  g_return_val_if_fail (self != NULL && index != NULL && src != NULL, FALSE);

  if (!ts_tensor_wrap_dim (self->ndim, &dim, error) ||
      !ts_ops_common_device (operands, 3, &device, error))
    return FALSE;
  if (ts_tensor_numel (index) == 0)
    return TRUE;
  if (!ts_autograd_check_inplace (self, error) || !ts_autograd_check_inplace_view (self, error))
    return FALSE;
  job = ts_op_job_new (id);
  ts_op_job_set_args (job, 0, dim, 0);
  ts_op_job_set (job, 0, self);
  ts_op_job_set (job, 1, index);
  ts_op_job_set (job, 2, src);
  ts_op_job_view (job, 1, &vindex);
  ts_op_job_view (job, 0, &vself);
  if (!ts_op_job_dispatch (job, device, ts_cost_index (&vindex, &vself), error))
    return FALSE;
  ts_autograd_bump_version (self);
  {
    /* in place: self's history continues; src's gradient is gathered at
     * index */
    TsTensor *inputs[2] = { self, src };
    TsOpGradAttrs grad = { .dims = { dim }, .n_dims = 1, .save_extra = index };

    ts_autograd_record_op (ts_op_get (id), TS_OP_GRAD_TENSOR, inputs, 2, self, &grad);
  }
  return TRUE;
}
