/* ts-ops-conv.c: the CONV family: aten::convolution and
 * aten::convolution_backward
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The arguments are checked here with PyTorch 1.13's messages, in the
 * order its _convolution checks them (the Python side has already checked
 * the lengths of the int lists and the input's rank for conv1d/2d/3d).
 * A job holds four tensors, so convolution_backward runs as up to two
 * jobs under its one name: the input's gradient, then the weight's with
 * the bias's. On a real GPU the module runs them as GEMMs (PyTorch runs
 * cuDNN): im2col, one batched cuBLAS product, col2im, sums (see
 * ts_ops_conv_device); grouped and transposed convolutions and the half
 * types take the host fallback.
 */

#include "config.h"

#include <stdarg.h>
#include <string.h>

#include "ts-autocast.h"
#include "ts-autograd-formulas.h"
#include "ts-op-table.h"
#include "ts-ops-conv.h"
#include "ts-ops-private.h"

G_STATIC_ASSERT (sizeof (TsConvParams) <= TS_OP_JOB_N_PARAMS * sizeof (gint64));

gboolean
ts_ops_conv_job (TsOpJob  *job,
                 GError  **error)
{
  const TsConvParams *p = ts_op_job_get_params (job);
  TsView v[4];
  TsOpJobArgs args;

  ts_op_job_unpack (job, v, &args);
  switch (ts_op_job_desc (job)->kernel)
    {
    case 0:   /* out, input, weight, bias */
      return ts_cpu_conv (p, &v[1], &v[2], &v[3], &v[0], error);
    case 1:   /* grad_input, grad_output, weight */
      return ts_cpu_conv_backward_input (p, &v[1], &v[2], &v[0], error);
    default:  /* grad_weight, grad_output, input, grad_bias; arg 1: slot 0 is grad_bias alone */
      if (args.arg == 1)
        return ts_cpu_conv_backward_weight (p, &v[1], &v[2], NULL, &v[0], error);
      return ts_cpu_conv_backward_weight (p, &v[1], &v[2], &v[0], &v[3], error);
    }
}

/* Convolutions on a real GPU ---------------------------------------------- */

/* What the device path takes: groups 1, not transposed, float32 or
 * float64, contiguous operands; the rest takes the host fallback. */
typedef struct
{
  TsCudaConv geom;
  gint64     n, c, oc, k, l;   /* batch, channels in and out, prod (kernel), prod (out) */
  gsize      esize;
  gboolean   copy_grad;        /* a backward's grad_output is not contiguous */
} ConvPlan;

/* The job's slots: forward out, input, weight, bias; backward input
 * grad_input, grad_output, weight; backward weight grad_weight,
 * grad_output, input, grad_bias (arg 1: slot 0 is grad_bias alone). */
static gboolean
conv_plan (const TsOpJob *job,
           ConvPlan      *plan)
{
  const TsConvParams *p = ts_op_job_get_params (job);
  int kernel = ts_op_job_desc (job)->kernel;
  TsView v[TS_OP_JOB_N_VIEWS];
  TsOpJobArgs args;
  const TsView *in, *w, *go;

  ts_op_job_unpack (job, v, &args);
  if (p->groups != 1 || p->transposed || p->n_spatial < 1 || p->n_spatial > TS_CUDA_CONV_MAX_SPATIAL ||
      (kernel == 2 && args.arg == 1))
    return FALSE;
  in = kernel == 0 ? &v[1] : kernel == 1 ? &v[0] : &v[2];
  w = kernel == 2 ? &v[0] : &v[2];
  go = kernel == 0 ? &v[0] : &v[1];
  if ((in->dtype != TS_DTYPE_FLOAT32 && in->dtype != TS_DTYPE_FLOAT64) || w->dtype != in->dtype ||
      go->dtype != in->dtype || !ts_view_is_contiguous (in) || !ts_view_is_contiguous (w) ||
      (kernel == 0 && !ts_view_is_contiguous (go)) || (v[3].data != NULL && !ts_view_is_contiguous (&v[3])))
    return FALSE;
  memset (plan, 0, sizeof *plan);
  plan->copy_grad = !ts_view_is_contiguous (go);
  plan->geom.n_spatial = (int32_t) p->n_spatial;
  plan->n = in->shape[0];
  plan->c = in->shape[1];
  plan->oc = go->shape[1];
  plan->k = plan->l = 1;
  for (guint d = 0; d < p->n_spatial; d++)
    {
      plan->geom.kernel[d] = w->shape[2 + d];
      plan->geom.stride[d] = p->stride[d];
      plan->geom.pad[d] = p->padding[d];
      plan->geom.dilation[d] = p->dilation[d];
      plan->geom.out[d] = go->shape[2 + d];
      plan->k *= w->shape[2 + d];
      plan->l *= go->shape[2 + d];
    }
  plan->esize = ts_dtype_size (in->dtype);
  /* an empty product: the host fallback writes its zeros */
  return plan->n * plan->c * plan->k * plan->l > 0 && plan->oc > 0;
}

void
ts_ops_conv_device_temps (const TsOpJob *job,
                          gsize         *sizes)
{
  ConvPlan plan;

  if (!conv_plan (job, &plan))
    return;
  /* the columns; the backward weight's per-sample products besides */
  sizes[0] = (gsize) (plan.n * plan.c * plan.k * plan.l) * plan.esize;
  if (ts_op_job_desc (job)->kernel == 2)
    sizes[1] = (gsize) (plan.n * plan.oc * plan.c * plan.k) * plan.esize;
  if (plan.copy_grad)
    sizes[2] = (gsize) (plan.n * plan.oc * plan.l) * plan.esize;
}

/* A 3-d view of @base's memory (its dtype, data and offset, or a
 * temporary's when @temp is not 0) */
static void
view3 (TsCudaView       *v,
       const TsCudaView *base,
       guint64           temp,
       const gint64      shape[3],
       const gint64      strides[3])
{
  TsCudaView b = *base;

  memset (v, 0, sizeof *v);
  v->dtype = b.dtype;
  v->ndim = 3;
  v->data = temp != 0 ? GSIZE_TO_POINTER (temp) : b.data;
  v->offset = temp != 0 ? 0 : b.offset;
  memcpy (v->shape, shape, 3 * sizeof (gint64));
  memcpy (v->strides, strides, 3 * sizeof (gint64));
}

/* grad_bias (oc) = grad_output (n, oc, spatial...), any strides, summed
 * over all dims but the channels' */
static int
conv_bias_grad (const TsCudaKernels *k,
                const TsCudaView    *grad_bias,
                const TsCudaView    *grad_output,
                gpointer             stream)
{
  TsCudaView gb = *grad_bias;

  gb.ndim = grad_output->ndim;
  for (int d = 0; d < gb.ndim; d++)
    {
      gb.shape[d] = d == 1 ? grad_output->shape[1] : 1;
      gb.strides[d] = d == 1 ? grad_bias->strides[0] : 0;
    }
  return k->reduce (TS_CUDA_SUM, &gb, grad_output, ((G_GUINT64_CONSTANT (1) << gb.ndim) - 1) & ~G_GUINT64_CONSTANT (2),
                    stream);
}

/* A contiguous copy of @v in the temporary at @temp (PyTorch's cuDNN
 * path makes grad_output contiguous too: `sum ().backward ()` gives an
 * expanded one) */
static int
conv_dense_copy (const TsCudaKernels *k,
                 TsCudaView          *v,
                 guint64              temp,
                 gpointer             stream)
{
  TsCudaView dense = *v;
  gint64 stride = 1;

  for (int d = v->ndim; d-- > 0;)
    {
      dense.strides[d] = stride;
      stride *= v->shape[d];
    }
  dense.data = GSIZE_TO_POINTER (temp);
  dense.offset = 0;
  {
    int err = k->copy (&dense, v, stream);

    *v = dense;
    return err;
  }
}

/* PyTorch runs cuDNN; here a convolution is im2col and one batched GEMM
 * (the weight repeated by a batch stride of 0), plus the bias; its input
 * gradient a GEMM with the weight transposed and col2im; its weight
 * gradient im2col, a GEMM per sample and their sum. The GEMMs run in full
 * float32 (cuDNN would use TF32 where torch.backends.cudnn.allow_tf32, its
 * default, allows it). */
int
ts_ops_conv_device (TsOpJob              *job,
                    const TsCudaKernels  *k,
                    gpointer              stream)
{
  int kernel = ts_op_job_desc (job)->kernel;
  TsCudaView t0, t1, t2, t3, a, b, c, col, prod;
  TsView v[TS_OP_JOB_N_VIEWS];
  TsOpJobArgs args;
  ConvPlan plan;
  gint64 n, ck, oc, l;
  int err;

  ts_op_job_unpack (job, v, &args);
  if (!ts_op_job_cuda_view (job, 0, &t0) || !ts_op_job_cuda_view (job, 1, &t1))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  if (kernel == 2 && args.arg == 1)
    return conv_bias_grad (k, &t0, &t1, stream);
  if (!conv_plan (job, &plan) || !ts_op_job_cuda_view (job, 2, &t2))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  n = plan.n, ck = plan.c * plan.k, oc = plan.oc, l = plan.l;
  if (plan.copy_grad && (err = conv_dense_copy (k, &t1, ts_op_job_temp (job, 2), stream)) != 0)
    return err;
  view3 (&col, &t0, ts_op_job_temp (job, 0), (gint64[3]) { n, ck, l }, (gint64[3]) { ck * l, l, 1 });
  if ((err = k->set_matmul_tf32 (FALSE)) != 0)
    return err;
  switch (kernel)
    {
    case 0:   /* out (n, oc, l) = weight (oc, ck) @ col[n], + bias */
      view3 (&a, &t2, 0, (gint64[3]) { n, oc, ck }, (gint64[3]) { 0, ck, 1 });
      view3 (&c, &t0, 0, (gint64[3]) { n, oc, l }, (gint64[3]) { oc * l, l, 1 });
      if ((err = k->im2col (&plan.geom, &col, &t1, stream)) != 0 || (err = k->bmm (&c, &a, &col, stream)) != 0 ||
          !ts_op_job_cuda_view (job, 3, &t3))
        return err;
      /* the bias as (oc, 1), broadcast over the batch and the positions */
      t3.ndim = 2;
      t3.shape[1] = 1;
      t3.strides[1] = 0;
      return k->binary (TS_CUDA_ADD, &c, &c, &t3, stream);
    case 1:   /* col[n] = weight^T (ck, oc) @ grad_output[n]; grad_input = col2im (col) */
      view3 (&a, &t2, 0, (gint64[3]) { n, ck, oc }, (gint64[3]) { 0, 1, ck });
      view3 (&b, &t1, 0, (gint64[3]) { n, oc, l }, (gint64[3]) { oc * l, l, 1 });
      if ((err = k->bmm (&col, &a, &b, stream)) != 0)
        return err;
      return k->col2im (&plan.geom, &t0, &col, stream);
    default:  /* grad_weight = sum over n of grad_output[n] (oc, l) @ col[n]^T (l, ck) */
      view3 (&prod, &t0, ts_op_job_temp (job, 1), (gint64[3]) { n, oc, ck }, (gint64[3]) { oc * ck, ck, 1 });
      view3 (&a, &t1, 0, (gint64[3]) { n, oc, l }, (gint64[3]) { oc * l, l, 1 });
      view3 (&b, &col, 0, (gint64[3]) { n, l, ck }, (gint64[3]) { ck * l, 1, l });
      view3 (&c, &t0, 0, (gint64[3]) { 1, oc, ck }, (gint64[3]) { oc * ck, ck, 1 });
      if ((err = k->im2col (&plan.geom, &col, &t2, stream)) != 0 || (err = k->bmm (&prod, &a, &b, stream)) != 0 ||
          (err = k->reduce (TS_CUDA_SUM, &c, &prod, 1, stream)) != 0 || !ts_op_job_cuda_view (job, 3, &t3))
        return err;
      return conv_bias_grad (k, &t3, &t1, stream);
    }
}

static char *
list_to_string (const gint64 *values,
                guint         n)
{
  return ts_shape_to_string (n, values);
}

static gboolean
check_params (const TsConvParams  *p,
              GError             **error)
{
  g_autofree char *dilation = list_to_string (p->dilation, p->n_spatial);

  if (p->groups <= 0)
    return ts_ops_fail (error, "non-positive groups is not supported");
  for (guint d = 0; d < p->n_spatial; d++)
    if (p->padding[d] < 0)
      return ts_ops_fail (error, "negative padding is not supported");
  for (guint d = 0; d < p->n_spatial; d++)
    if (p->output_padding[d] < 0)
      return ts_ops_fail (error, "negative output_padding is not supported");
  for (guint d = 0; d < p->n_spatial; d++)
    if (p->stride[d] <= 0)
      return ts_ops_fail (error, "non-positive stride is not supported");
  for (guint d = 0; d < p->n_spatial; d++)
    if (p->dilation[d] <= 0)
      return ts_ops_fail (error, "dilation should be greater than zero, but got %s", dilation);
  return TRUE;
}

/* check_shape_forward's checks for a convolution (not transposed); @ws
 * and @is: the weight's and the input's shapes as printed */
static gboolean
check_forward_shape (TsTensor            *input,
                     TsTensor            *weight,
                     TsTensor            *bias,
                     const TsConvParams  *p,
                     const char          *ws,
                     const char          *is,
                     GError             **error)
{
  g_autoptr(GString) padded = g_string_new (NULL);
  g_autoptr(GString) kernel = g_string_new (NULL);
  gboolean too_big = FALSE;

  if (input->shape[1] != weight->shape[1] * p->groups)
    return ts_ops_fail (error, "Given groups=%" G_GINT64_FORMAT ", weight of size %s, expected input%s to have %"
                 G_GINT64_FORMAT " channels, but got %" G_GINT64_FORMAT " channels instead", p->groups, ws, is,
                 weight->shape[1] * p->groups, input->shape[1]);
  if (bias != NULL && (bias->ndim != 1 || bias->shape[0] != weight->shape[0]))
    {
      g_autofree char *bs = ts_shape_to_string (bias->ndim, bias->shape);

      return ts_ops_fail (error, "Given weight of size %s, expected bias to be 1-dimensional with %" G_GINT64_FORMAT
                   " elements, but got bias of size %s instead", ws, weight->shape[0], bs);
    }
  for (guint d = 0; d < p->n_spatial; d++)
    {
      gint64 in = input->shape[2 + d] + 2 * p->padding[d];
      gint64 k = p->dilation[d] * (weight->shape[2 + d] - 1) + 1;

      g_string_append_printf (padded, "%s%" G_GINT64_FORMAT, d ? " x " : "", in);
      g_string_append_printf (kernel, "%s%" G_GINT64_FORMAT, d ? " x " : "", k);
      too_big |= in < k;
    }
  if (too_big)
    return ts_ops_fail (error, "Calculated padded input size per channel: (%s). Kernel size: (%s). Kernel size can't be "
                 "greater than actual input size", padded->str, kernel->str);
  return TRUE;
}

/* slow_conv_transpose's: output_padding < stride or < dilation */
static gboolean
check_output_padding (const TsConvParams  *p,
                      GError             **error)
{
  static const char *const names[] = { "depth", "height", "width" };
  const char *const *dims = p->n_spatial == 3 ? names : names + 1;
  guint n = MAX (p->n_spatial, 2), lead = n - p->n_spatial;
  g_autoptr(GString) pad = g_string_new (NULL);
  g_autoptr(GString) stride = g_string_new (NULL);
  g_autoptr(GString) dilation = g_string_new (NULL);
  gboolean ok = TRUE;

  for (guint i = 0; i < n; i++)
    {
      /* conv_transpose1d is a 2-d one of height 1 */
      gint64 op = i < lead ? 0 : p->output_padding[i - lead];
      gint64 s = i < lead ? 1 : p->stride[i - lead];
      gint64 dl = i < lead ? 1 : p->dilation[i - lead];

      ok &= op < s || op < dl;
      g_string_append_printf (pad, "output_padding_%s: %" G_GINT64_FORMAT " ", dims[i], op);
      g_string_append_printf (stride, "stride_%s: %" G_GINT64_FORMAT " ", dims[i], s);
      g_string_append_printf (dilation, "%sdilation_%s: %" G_GINT64_FORMAT, i ? " " : "", dims[i], dl);
    }
  if (!ok)
    return ts_ops_fail (error, "output padding must be smaller than either stride or dilation, but got %s%s%s",
                 pad->str, stride->str, dilation->str);
  return TRUE;
}

static gboolean
check_transposed_shape (TsTensor            *input,
                        TsTensor            *weight,
                        TsTensor            *bias,
                        const TsConvParams  *p,
                        const char          *ws,
                        const char          *is,
                        GError             **error)
{
  if (input->shape[1] != weight->shape[0])
    return ts_ops_fail (error, "Given transposed=1, weight of size %s, expected input%s to have %" G_GINT64_FORMAT
                 " channels, but got %" G_GINT64_FORMAT " channels instead", ws, is, weight->shape[0],
                 input->shape[1]);
  if (bias != NULL && (bias->ndim != 1 || bias->shape[0] != weight->shape[1] * p->groups))
    {
      g_autofree char *bs = ts_shape_to_string (bias->ndim, bias->shape);

      return ts_ops_fail (error, "Given transposed=1, weight of size %s, expected bias to be 1-dimensional with %"
                   G_GINT64_FORMAT " elements, but got bias of size %s instead", ws, weight->shape[1] * p->groups,
                   bs);
    }
  return check_output_padding (p, error);
}

/* PyTorch's C type names in "Input type (float) and bias type (double)" */
static const char *
c_type_name (TsDType dtype)
{
  switch (dtype)
    {
    case TS_DTYPE_FLOAT32: return "float";
    case TS_DTYPE_FLOAT64: return "double";
    case TS_DTYPE_FLOAT16: return "c10::Half";
    case TS_DTYPE_BFLOAT16: return "c10::BFloat16";
    default: return ts_dtype_name (dtype);
    }
}

static gboolean
check_dtypes (TsTensor  *input,
              TsTensor  *weight,
              TsTensor  *bias,
              TsDevice   device,
              GError   **error)
{
  if (weight->dtype != input->dtype)
    return ts_ops_fail (error, "expected scalar type %s but found %s", ts_dtype_scalar_type_name (input->dtype),
                 ts_dtype_scalar_type_name (weight->dtype));
  if (bias != NULL && bias->dtype != input->dtype)
    return ts_ops_fail (error, "Input type (%s) and bias type (%s) should be the same", c_type_name (input->dtype),
                 c_type_name (bias->dtype));
  /* PyTorch's CPU convolutions have no float16 kernel (its GPUs do) */
  if (device.type == TS_DEVICE_CPU && input->dtype == TS_DTYPE_FLOAT16)
    return ts_ops_fail (error, "\"slow_conv2d_cpu\" not implemented for 'Half'");
  if (!ts_dtype_is_floating (input->dtype))
    return ts_ops_fail (error, "convolution of %s tensors is not modeled yet",
                 ts_dtype_scalar_type_name (input->dtype));
  return TRUE;
}

static gboolean
check_convolution (TsTensor            *input,
                   TsTensor            *weight,
                   TsTensor            *bias,
                   const TsConvParams  *p,
                   TsDevice            *device,
                   GError             **error)
{
  TsTensor *operands[3] = { input, weight, bias };
  g_autofree char *ws = ts_shape_to_string (weight->ndim, weight->shape);
  g_autofree char *is = ts_shape_to_string (input->ndim, input->shape);

  if (weight->ndim < 3)
    return ts_ops_fail (error, "weight should have at least three dimensions");
  if (weight->ndim - 2 != p->n_spatial || p->n_spatial > TS_CONV_MAX_SPATIAL)
    return ts_ops_fail (error, "convolution: %u spatial dims given for a %u-dimensional weight", p->n_spatial,
                 weight->ndim);
  if (!check_params (p, error))
    return FALSE;
  if (input->ndim != weight->ndim)
    return ts_ops_fail (error, "Expected %u-dimensional input for %u-dimensional weight %s, but got %u-dimensional "
                 "input of size %s instead", weight->ndim, weight->ndim, ws, input->ndim, is);
  if (weight->shape[0] < p->groups)
    return ts_ops_fail (error, "Given groups=%" G_GINT64_FORMAT ", expected weight to be at least %" G_GINT64_FORMAT
                 " at dimension 0, but got weight of size %s instead", p->groups, p->groups, ws);
  if (weight->shape[0] % p->groups != 0)
    return ts_ops_fail (error, "Given groups=%" G_GINT64_FORMAT ", expected weight to be divisible by %" G_GINT64_FORMAT
                 " at dimension 0, but got weight of size [%s] instead", p->groups, p->groups, ws);
  if (!(p->transposed ? check_transposed_shape (input, weight, bias, p, ws, is, error)
                      : check_forward_shape (input, weight, bias, p, ws, is, error)))
    return FALSE;
  return ts_ops_common_device (operands, bias != NULL ? 3 : 2, device, error) &&
         check_dtypes (input, weight, bias, *device, error);
}

/* for the cost model: shapes only */
static void
shape_view (const TsTensor *t,
            TsView         *view)
{
  ts_view_init (view, t->dtype, NULL, t->ndim, t->shape, NULL, 0);
}

TsTensor *
ts_ops_convolution (TsTensor           *input,
                    TsTensor           *weight,
                    TsTensor           *bias,
                    const TsConvParams *p,
                    GError            **error)
{
  gint64 shape[TS_MAX_DIMS];
  TsDevice device;
  TsView vin, vw, vout;
  TsTensor *out;
  TsOpJob *job;
  g_auto(TsAutocastScope) scope = { { NULL } };
  g_auto(TsAutocastScope) bias_scope = { { NULL } };

  g_return_val_if_fail (input != NULL && weight != NULL && p != NULL, NULL);

  /* autocast: a convolution runs in the region's lower precision, bias too */
  if (!ts_autocast_operands (ts_op_get (TS_OP_CONVOLUTION), &scope, &input, &weight, error) ||
      (bias != NULL && !ts_autocast_operands (ts_op_get (TS_OP_CONVOLUTION), &bias_scope, &bias, NULL, error)))
    return NULL;
  if (!check_convolution (input, weight, bias, p, &device, error))
    return NULL;
  shape[0] = input->shape[0];
  shape[1] = p->transposed ? weight->shape[1] * p->groups : weight->shape[0];
  for (guint d = 0; d < p->n_spatial; d++)
    shape[2 + d] = ts_conv_output_size (p, d, input->shape[2 + d], weight->shape[2 + d]);
  out = ts_tensor_new_empty (device, input->dtype, input->ndim, shape, FALSE, error);
  if (out == NULL)
    return NULL;
  if (ts_tensor_numel (out) > 0)
    {
      job = ts_op_job_new (TS_OP_CONVOLUTION);
      ts_op_job_set_params (job, p, sizeof *p);
      ts_op_job_set (job, 0, out);
      ts_op_job_set (job, 1, input);
      ts_op_job_set (job, 2, weight);
      if (bias != NULL)
        ts_op_job_set (job, 3, bias);
      shape_view (input, &vin);
      shape_view (weight, &vw);
      shape_view (out, &vout);
      if (ts_op_job_dispatch_new (job, device, ts_cost_conv (p, &vin, &vw, &vout), out, error) == NULL)
        return NULL;
    }
  ts_autograd_record_convolution (input, weight, bias, p, out);
  return out;
}

static TsTensor *
new_like (TsTensor  *like,
          guint      ndim,
          gint64    *shape,
          GError   **error)
{
  return ts_tensor_new_empty (ts_tensor_get_device (like), like->dtype, ndim, shape, FALSE, error);
}

static gboolean
launch_backward (TsOpId              id,
                 const TsConvParams *p,
                 TsTensor           *out,
                 TsTensor           *grad_output,
                 TsTensor           *operand,
                 TsTensor           *extra,
                 gint64              arg,
                 TsKernelCost        cost,
                 GError            **error)
{
  TsOpJob *job;

  if (ts_tensor_numel (out) == 0)
    return TRUE;
  job = ts_op_job_new (id);
  ts_op_job_set_params (job, p, sizeof *p);
  ts_op_job_set_args (job, arg, 0, 0);
  ts_op_job_set (job, 0, out);
  ts_op_job_set (job, 1, grad_output);
  ts_op_job_set (job, 2, operand);
  if (extra != NULL)
    ts_op_job_set_output (job, 3, extra);
  return ts_op_job_dispatch (job, ts_tensor_get_device (out), cost, error);
}

gboolean
ts_ops_convolution_backward (TsTensor           *grad_output,
                             TsTensor           *input,
                             TsTensor           *weight,
                             const TsConvParams *p,
                             const gboolean      mask[3],
                             TsTensor          **grad_input,
                             TsTensor          **grad_weight,
                             TsTensor          **grad_bias,
                             GError            **error)
{
  TsTensor *operands[3] = { grad_output, input, weight };
  gint64 bias_shape[1] = { grad_output->shape[1] };
  TsView vin, vw, vgo;
  TsKernelCost cost;
  TsDevice device;

  g_return_val_if_fail (grad_output != NULL && input != NULL && weight != NULL, FALSE);

  *grad_input = *grad_weight = *grad_bias = NULL;
  if (!ts_ops_common_device (operands, 3, &device, error))
    return FALSE;
  shape_view (input, &vin);
  shape_view (weight, &vw);
  shape_view (grad_output, &vgo);
  /* each product costs what the forward does */
  cost = ts_cost_conv (p, &vin, &vw, &vgo);
  if (mask[0] && ((*grad_input = new_like (input, input->ndim, input->shape, error)) == NULL ||
                  !launch_backward (TS_OP_CONVOLUTION_BACKWARD_INPUT, p, *grad_input, grad_output, weight, NULL,
                                    0, cost, error)))
    goto failed;
  if (mask[2] && (*grad_bias = new_like (grad_output, 1, bias_shape, error)) == NULL)
    goto failed;
  if (mask[1] && (*grad_weight = new_like (weight, weight->ndim, weight->shape, error)) == NULL)
    goto failed;
  if (mask[1] && !launch_backward (TS_OP_CONVOLUTION_BACKWARD_WEIGHT, p, *grad_weight, grad_output, input,
                                   *grad_bias, 0, cost, error))
    goto failed;
  /* the bias's gradient alone: a sum over all but the channels */
  if (!mask[1] && mask[2])
    {
      cost.flops = (double) ts_tensor_numel (grad_output);
      if (!launch_backward (TS_OP_CONVOLUTION_BACKWARD_WEIGHT, p, *grad_bias, grad_output, input, NULL, 1, cost,
                            error))
        goto failed;
    }
  {
    TsTensor *grads[3] = { *grad_input, *grad_weight, *grad_bias };

    ts_autograd_record_convolution_backward (grad_output, input, weight, p, grads);
  }
  return TRUE;

failed:
  g_clear_pointer (grad_input, ts_tensor_unref);
  g_clear_pointer (grad_weight, ts_tensor_unref);
  g_clear_pointer (grad_bias, ts_tensor_unref);
  return FALSE;
}
