/* ts-autograd-formulas-pool.c: the backward formulas of pooling and batch
 * norm (derivatives.yaml: max_pool2d_with_indices_backward,
 * avg_pool2d_backward, _adaptive_avg_pool2d_backward,
 * adaptive_max_pool2d_backward, native_batch_norm_backward) and of the
 * negative log-likelihood loss (nll_loss_forward, nll_loss_backward)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The nodes are recorded by ts-ops-pool.c with their own attributes
 * (TsPoolAttrs, TsNormAttrs). The backward ops record no graph: a double
 * backward through a pooling or a batch norm is not modeled yet.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-autograd-formulas.h"
#include "ts-autograd-formulas-private.h"
#include "ts-autograd-private.h"
#include "ts-ops.h"
#include "ts-ops-act.h"
#include "ts-ops-loss.h"
#include "ts-ops-norm.h"
#include "ts-ops-pool.h"

/* The backward ops record no graph: a create_graph pass through one fails
 * loudly rather than give a gradient without its own history. */
static gboolean
first_order_only (TsGradNode  *node,
                  GError     **error)
{
  if (!ts_autograd_is_grad_enabled ())
    return TRUE;
  g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_NOT_IMPLEMENTED,
               "a double backward (create_graph=True) through %s is not modeled by Tensorscope yet",
               ts_grad_node_get_name (node));
  return FALSE;
}

static const TsPoolKernel backward_kind[] = {
  [TS_POOL_MAX] = TS_POOL_MAX_BACKWARD,
  [TS_POOL_AVG] = TS_POOL_AVG_BACKWARD,
  [TS_POOL_ADAPTIVE_AVG] = TS_POOL_ADAPTIVE_AVG_BACKWARD,
  [TS_POOL_ADAPTIVE_MAX] = TS_POOL_ADAPTIVE_MAX_BACKWARD,
};

/* The pooling backward ops are linear in grad_output (derivatives.yaml:
 * grad_output: the pooling of the incoming gradient, or its gather by the
 * max's indices; self: zeros): with create_graph their node records
 * that. */
static const char *const double_names[] = {
  [TS_POOL_MAX] = "MaxPool2DWithIndicesBackwardBackward0",
  [TS_POOL_AVG] = "AvgPool2DBackwardBackward0",
  [TS_POOL_ADAPTIVE_AVG] = "AdaptiveAvgPool2DBackwardBackward0",
  [TS_POOL_ADAPTIVE_MAX] = "AdaptiveMaxPool2DBackwardBackward0",
};

static TS_BACKWARD_FN (pool_double_backward);

static void
record_pool_backward (const TsPoolAttrs *attrs,
                      TsTensor          *grad_output,
                      TsTensor          *self,
                      TsTensor          *indices,
                      TsTensor          *grad_input)
{
  TsTensor *inputs[2] = { grad_output, self };
  g_autoptr(TsGradNode) node = ts_autograd_record (double_names[attrs->kind], pool_double_backward,
                                                   sizeof (TsPoolAttrs), inputs, 2, &grad_input, 1);
  TsPoolAttrs *a;

  if (node == NULL)
    return;
  a = ts_grad_node_get_attrs (node);
  *a = *attrs;
  a->indices_slot = indices != NULL ? (int) ts_grad_node_save (node, indices) : -1;
  a->self_slot = -1;
}

/* max_pool_double_backward: the incoming gradient read at each output's
 * argmax (the indices count within a plane) */
static TsTensor *
gather_planes (TsTensor  *grad,
               TsTensor  *indices,
               GError   **error)
{
  gint64 shape[TS_MAX_DIMS];
  gint64 ishape[TS_MAX_DIMS];
  guint n = grad->ndim;
  g_autoptr(TsTensor) flat = NULL;
  g_autoptr(TsTensor) iflat = NULL;
  g_autoptr(TsTensor) picked = NULL;

  memcpy (shape, grad->shape, n * sizeof (gint64));
  memcpy (ishape, indices->shape, n * sizeof (gint64));
  shape[n - 2] *= shape[n - 1];
  ishape[n - 2] *= ishape[n - 1];
  if ((flat = ts_autograd_reshape (grad, n - 1, shape, error)) == NULL ||
      (iflat = ts_autograd_reshape (indices, n - 1, ishape, error)) == NULL ||
      (picked = ts_ops_gather (flat, (int) n - 2, iflat, error)) == NULL)
    return NULL;
  return ts_autograd_reshape (picked, n, indices->shape, error);
}

static TS_BACKWARD_FN (pool_double_backward)
{
  const TsPoolAttrs *attrs = ts_grad_node_get_attrs (node);
  const TsGradTensorInfo *go = ts_grad_node_get_input_info (node, 0);
  g_autoptr(TsTensor) indices = NULL;
  g_autoptr(TsTensor) indices_out = NULL;

  if (ts_grad_node_needs_input_grad (node, 1) &&
      (grad_inputs[1] = ts_autograd_new_filled (ts_grad_node_get_input_info (node, 1), 0, error)) == NULL)
    return FALSE;
  if (!ts_grad_node_needs_input_grad (node, 0))
    return TRUE;
  if (attrs->indices_slot >= 0)
    {
      if ((indices = ts_grad_node_unpack_saved (node, (guint) attrs->indices_slot, error)) == NULL)
        return FALSE;
      grad_inputs[0] = gather_planes (grad_outputs[0], indices, error);
      return grad_inputs[0] != NULL;
    }
  return ts_ops_pool2d (attrs->kind, grad_outputs[0], &attrs->p, go->shape[go->ndim - 2], go->shape[go->ndim - 1],
                        &grad_inputs[0], &indices_out, error);
}

/* every pooling: the kernel of its backward op, through the windows or
 * the saved indices */
static gboolean
pool_backward (TsGradNode  *node,
               TsTensor   **grad_outputs,
               TsTensor   **grad_inputs,
               GError     **error)
{
  const TsPoolAttrs *attrs = ts_grad_node_get_attrs (node);
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);
  g_autoptr(TsTensor) indices = NULL;

  if (!ts_grad_node_needs_input_grad (node, 0))
    return TRUE;
  if (attrs->indices_slot >= 0 &&
      (indices = ts_grad_node_unpack_saved (node, (guint) attrs->indices_slot, error)) == NULL)
    return FALSE;
  grad_inputs[0] = ts_ops_pool2d_backward (backward_kind[attrs->kind], grad_outputs[0], indices, &attrs->p,
                                           info->ndim, info->shape, error);
  if (grad_inputs[0] != NULL && ts_autograd_is_grad_enabled ())
    {
      g_autoptr(TsTensor) self = ts_grad_node_unpack_saved (node, (guint) attrs->self_slot, error);

      if (self == NULL)
        return FALSE;
      record_pool_backward (attrs, grad_outputs[0], self, indices, grad_inputs[0]);
    }
  return grad_inputs[0] != NULL;
}

TS_BACKWARD_FN (ts_backward_max_pool2d)
{
  return pool_backward (node, grad_outputs, grad_inputs, error);
}

TS_BACKWARD_FN (ts_backward_avg_pool2d)
{
  return pool_backward (node, grad_outputs, grad_inputs, error);
}

TS_BACKWARD_FN (ts_backward_adaptive_avg_pool2d)
{
  return pool_backward (node, grad_outputs, grad_inputs, error);
}

/* Gradients computed in float32 for float16/bfloat16 inputs, cast back */
static gboolean
in_input_dtypes (TsGradNode  *node,
                 TsTensor   **grad_inputs,
                 guint        n,
                 GError     **error)
{
  for (guint i = 0; i < n; i++)
    {
      const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, i);
      TsTensor *cast;

      if (grad_inputs[i] == NULL || grad_inputs[i]->dtype == info->dtype)
        continue;
      cast = ts_ops_to (grad_inputs[i], info->device, info->dtype, FALSE, FALSE, error);
      ts_tensor_unref (grad_inputs[i]);
      if ((grad_inputs[i] = cast) == NULL)
        return FALSE;
    }
  return TRUE;
}

/* A normalization's statistics over @dims of @x from recorded ops (the
 * double backwards differentiate their dependence on the input): the
 * centered input @xc and invstd = (var + eps)^-1/2, as exp (-log/2) */
static gboolean
recorded_stats (TsTensor   *x,
                const int  *dims,
                guint       n_dims,
                double      count,
                double      eps,
                TsTensor  **xc,
                TsTensor  **invstd,
                GError    **error)
{
  g_autoptr(TsTensor) sum = NULL, mu = NULL, sq = NULL, sqsum = NULL, var = NULL, shifted = NULL, logv = NULL;
  g_autoptr(TsTensor) half = NULL;

  return (sum = ts_autograd_sum_dims (x, dims, n_dims, TRUE, error)) != NULL &&
         (mu = ts_autograd_div_scalar (sum, count, error)) != NULL &&
         (*xc = ts_autograd_sub (x, mu, error)) != NULL && (sq = ts_autograd_mul (*xc, *xc, error)) != NULL &&
         (sqsum = ts_autograd_sum_dims (sq, dims, n_dims, TRUE, error)) != NULL &&
         (var = ts_autograd_div_scalar (sqsum, count, error)) != NULL &&
         (shifted = ts_autograd_binary_scalar (TS_BINARY_ADD, var, eps, FALSE, error)) != NULL &&
         (logv = ts_autograd_log (shifted, error)) != NULL &&
         (half = ts_autograd_binary_scalar (TS_BINARY_MUL, logv, -0.5, FALSE, error)) != NULL &&
         (*invstd = ts_autograd_exp (half, error)) != NULL;
}

/* The normalized input's gradient over @dims, from recorded ops:
 * invstd * (gh - mean (gh) - xhat * mean (gh * xhat)) */
static TsTensor *
recorded_input_grad (TsTensor   *gh,
                     TsTensor   *xhat,
                     TsTensor   *invstd,
                     const int  *dims,
                     guint       n_dims,
                     double      count,
                     GError    **error)
{
  g_autoptr(TsTensor) s1 = NULL, m1 = NULL, p = NULL, s2 = NULL, m2 = NULL, t = NULL, d1 = NULL, d2 = NULL;

  if ((s1 = ts_autograd_sum_dims (gh, dims, n_dims, TRUE, error)) == NULL ||
      (m1 = ts_autograd_div_scalar (s1, count, error)) == NULL || (p = ts_autograd_mul (gh, xhat, error)) == NULL ||
      (s2 = ts_autograd_sum_dims (p, dims, n_dims, TRUE, error)) == NULL ||
      (m2 = ts_autograd_div_scalar (s2, count, error)) == NULL || (t = ts_autograd_mul (xhat, m2, error)) == NULL ||
      (d1 = ts_autograd_sub (gh, m1, error)) == NULL || (d2 = ts_autograd_sub (d1, t, error)) == NULL)
    return NULL;
  return ts_autograd_mul (d2, invstd, error);
}

/* The input-gradient mask of a node's @n inputs, and its saved optional
 * tensor in @slot (-1: none) */
static guint
input_grad_mask (TsGradNode *node,
                 guint       n)
{
  guint mask = 0;

  for (guint i = 0; i < n; i++)
    if (ts_grad_node_needs_input_grad (node, i))
      mask |= 1u << i;
  return mask;
}

static gboolean
unpack_optional (TsGradNode  *node,
                 int          slot,
                 TsTensor   **out,
                 GError     **error)
{
  *out = NULL;
  return slot < 0 || (*out = ts_grad_node_unpack_saved (node, (guint) slot, error)) != NULL;
}

/* A batch norm (groups 0) or group norm backward written with recorded
 * ops, for create_graph: its gradients then have their own history (the
 * statistics recomputed from the input, so that their dependence on it is
 * differentiated too, as PyTorch's batchnorm_double_backward does). The
 * input is read as (N, K, R): batch norm reduces over N and R per channel
 * K = C; group norm over R per (N, group), K = groups. Eval-mode batch
 * norm normalizes with the saved running statistics, constants. */
static gboolean
norm_backward_composite (const TsNormAttrs *attrs,
                         TsTensor          *grad,
                         TsTensor          *input,
                         TsTensor          *weight,
                         TsTensor          *stats,
                         guint              mask,
                         TsTensor         **grads,
                         GError           **error)
{
  gint64 n = input->shape[0], c = input->shape[1];
  gint64 s = ts_tensor_numel (input) / MAX (n * c, 1);
  gint64 k = attrs->groups > 0 ? attrs->groups : c;
  gint64 ncs[3] = { n, c, s };
  gint64 nkr[3] = { n, k, c * s / k };
  gint64 chan[3] = { 1, c, 1 };
  static const int batch_dims[2] = { 0, 2 };
  static const int group_dims[1] = { 2 };
  const int *dims = attrs->groups > 0 ? group_dims : batch_dims;
  guint n_dims = attrs->groups > 0 ? 1 : 2;
  double count = attrs->groups > 0 ? (double) nkr[2] : (double) (n * s);
  g_autoptr(TsTensor) g = NULL, x = NULL, mu = NULL, xc = NULL, invstd = NULL, xhat = NULL;
  g_autoptr(TsTensor) xhat_c = NULL, gh = NULL;

  if ((g = ts_autograd_reshape (grad, 3, ncs, error)) == NULL ||
      (x = ts_autograd_reshape (input, 3, attrs->groups > 0 ? nkr : ncs, error)) == NULL)
    return FALSE;
  if (attrs->training)
    {
      if (!recorded_stats (x, dims, n_dims, count, attrs->eps, &xc, &invstd, error))
        return FALSE;
    }
  else
    {
      /* rows 0 and 1 of the (2, C) statistics, as (1, C, 1) constants */
      g_autoptr(TsTensor) st = ts_autograd_reshape (stats, 3, (const gint64[]) { 2, c, 1 }, error);
      g_autoptr(TsTensor) m = NULL;
      g_autoptr(TsTensor) is = NULL;

      if (st == NULL || (m = ts_tensor_select (st, 0, 0, error)) == NULL ||
          (is = ts_tensor_select (st, 0, 1, error)) == NULL ||
          (mu = ts_autograd_reshape (m, 3, chan, error)) == NULL ||
          (invstd = ts_autograd_reshape (is, 3, chan, error)) == NULL || (xc = ts_autograd_sub (x, mu, error)) == NULL)
        return FALSE;
    }
  if ((xhat = ts_autograd_mul (xc, invstd, error)) == NULL ||
      (xhat_c = ts_autograd_reshape (xhat, 3, ncs, error)) == NULL)
    return FALSE;
  if (mask & 2)
    {
      g_autoptr(TsTensor) prod = ts_autograd_mul (g, xhat_c, error);
      g_autoptr(TsTensor) red = prod != NULL ? ts_autograd_sum_dims (prod, batch_dims, 2, FALSE, error) : NULL;

      if (red == NULL)
        return FALSE;
      grads[1] = g_steal_pointer (&red);
    }
  if ((mask & 4) && (grads[2] = ts_autograd_sum_dims (g, batch_dims, 2, FALSE, error)) == NULL)
    return FALSE;
  if (!(mask & 1))
    return TRUE;
  if (weight != NULL)
    {
      g_autoptr(TsTensor) w = ts_autograd_reshape (weight, 3, chan, error);

      if (w == NULL || (gh = ts_autograd_mul (g, w, error)) == NULL)
        return FALSE;
    }
  else
    gh = ts_tensor_ref (g);
  {
    g_autoptr(TsTensor) ghk = ts_autograd_reshape (gh, 3, attrs->groups > 0 ? nkr : ncs, error);
    g_autoptr(TsTensor) scaled = NULL, gx = NULL;

    if (ghk == NULL)
      return FALSE;
    if (attrs->training)
      {
        if ((scaled = recorded_input_grad (ghk, xhat, invstd, dims, n_dims, count, error)) == NULL)
          return FALSE;
      }
    else if ((scaled = ts_autograd_mul (ghk, invstd, error)) == NULL)
      return FALSE;
    if ((gx = ts_autograd_reshape (scaled, input->ndim, input->shape, error)) == NULL)
      return FALSE;
    grads[0] = g_steal_pointer (&gx);
  }
  return TRUE;
}

/* native_batch_norm: input, weight, bias: native_batch_norm_backward;
 * native_group_norm: native_group_norm_backward */
TS_BACKWARD_FN (ts_backward_native_batch_norm)
{
  const TsNormAttrs *attrs = ts_grad_node_get_attrs (node);
  g_autoptr(TsTensor) input = ts_grad_node_unpack_saved (node, (guint) attrs->input_slot, error);
  g_autoptr(TsTensor) stats = input != NULL ? ts_grad_node_unpack_saved (node, (guint) attrs->stats_slot, error)
                                            : NULL;
  g_autoptr(TsTensor) weight = NULL;
  guint mask = input_grad_mask (node, 3);

  if (stats == NULL || !unpack_optional (node, attrs->weight_slot, &weight, error))
    return FALSE;
  if (ts_autograd_is_grad_enabled ())
    {
      /* create_graph: the same gradients from differentiable ops */
      if (!norm_backward_composite (attrs, grad_outputs[0], input, weight, stats, mask, grad_inputs, error))
        return FALSE;
    }
  else if (!ts_ops_norm_backward (grad_outputs[0], input, weight, stats, attrs->training, attrs->groups, mask,
                                  grad_inputs, error))
    return FALSE;
  return in_input_dtypes (node, grad_inputs, 3, error);
}

TS_BACKWARD_FN (ts_backward_native_group_norm)
{
  return ts_backward_native_batch_norm (node, grad_outputs, n_outputs, grad_inputs, n_inputs, error);
}

/* layer norm's gradients from recorded ops, for create_graph: with
 * x2 = input as (rows, N), xhat = (x2 - mean) * rstd (both recomputed),
 * gh = grad * weight:
 * input: rstd * (gh - mean (gh) - xhat * mean (gh * xhat)) over each row;
 * weight: sum over rows of grad * xhat; bias: of grad */
static gboolean
layer_norm_backward_composite (const TsLayerNormAttrs  *attrs,
                               TsTensor                *grad,
                               TsTensor                *input,
                               TsTensor                *weight,
                               guint                    mask,
                               TsTensor               **grads,
                               GError                 **error)
{
  gint64 rows = attrs->rows, n = rows > 0 ? ts_tensor_numel (input) / rows : 0;
  const gint64 flat[2] = { rows, n }, line[2] = { 1, n };
  const int by_row[1] = { 1 }, by_col[1] = { 0 };
  g_autoptr(TsTensor) g2 = ts_autograd_reshape (grad, 2, flat, error);
  g_autoptr(TsTensor) x2 = g2 != NULL ? ts_autograd_reshape (input, 2, flat, error) : NULL;
  g_autoptr(TsTensor) xc = NULL, r = NULL, xhat = NULL, gh = NULL;

  /* the statistics recomputed from the input (the saved mean and rstd
   * are constants) */
  if (x2 == NULL || !recorded_stats (x2, by_row, 1, (double) n, attrs->eps, &xc, &r, error) ||
      (xhat = ts_autograd_mul (xc, r, error)) == NULL)
    return FALSE;
  if ((mask & 2) && weight != NULL)
    {
      g_autoptr(TsTensor) p = ts_autograd_mul (g2, xhat, error);
      g_autoptr(TsTensor) s = p != NULL ? ts_autograd_sum_dims (p, by_col, 1, FALSE, error) : NULL;

      if (s == NULL || (grads[1] = ts_autograd_reshape (s, weight->ndim, weight->shape, error)) == NULL)
        return FALSE;
    }
  if (!(mask & 1))
    return TRUE;
  if (weight != NULL)
    {
      g_autoptr(TsTensor) w = ts_autograd_reshape (weight, 2, line, error);

      if (w == NULL || (gh = ts_autograd_mul (g2, w, error)) == NULL)
        return FALSE;
    }
  else
    gh = ts_tensor_ref (g2);
  {
    g_autoptr(TsTensor) scaled = recorded_input_grad (gh, xhat, r, by_row, 1, (double) n, error);

    return scaled != NULL && (grads[0] = ts_autograd_reshape (scaled, input->ndim, input->shape, error)) != NULL;
  }
}

/* native_layer_norm: input, weight, bias: native_layer_norm_backward */
TS_BACKWARD_FN (ts_backward_native_layer_norm)
{
  const TsLayerNormAttrs *attrs = ts_grad_node_get_attrs (node);
  g_autoptr(TsTensor) input = ts_grad_node_unpack_saved (node, (guint) attrs->input_slot, error);
  g_autoptr(TsTensor) mean = input != NULL ? ts_grad_node_unpack_saved (node, (guint) attrs->mean_slot, error)
                                           : NULL;
  g_autoptr(TsTensor) rstd = mean != NULL ? ts_grad_node_unpack_saved (node, (guint) attrs->rstd_slot, error)
                                          : NULL;
  g_autoptr(TsTensor) weight = NULL;
  guint mask = input_grad_mask (node, 3);

  if (rstd == NULL || !unpack_optional (node, attrs->weight_slot, &weight, error))
    return FALSE;
  if (ts_autograd_is_grad_enabled ()
      ? !layer_norm_backward_composite (attrs, grad_outputs[0], input, weight, mask, grad_inputs, error)
      : !ts_ops_native_layer_norm_backward (grad_outputs[0], input, mean, rstd, weight, attrs->rows, mask,
                                            grad_inputs, error))
    return FALSE;
  /* a bias without a weight: its gradient is the rows' sum of grad */
  if ((mask & 4) && grad_inputs[2] == NULL)
    {
      const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 2);
      gint64 n = info->ndim > 0 ? ts_tensor_numel (grad_outputs[0]) / MAX (attrs->rows, 1) : 1;
      const gint64 flat[2] = { attrs->rows, n };
      const int by_col[1] = { 0 };
      g_autoptr(TsTensor) g2 = ts_autograd_reshape (grad_outputs[0], 2, flat, error);
      g_autoptr(TsTensor) s = g2 != NULL ? ts_autograd_sum_dims (g2, by_col, 1, FALSE, error) : NULL;

      if (s == NULL || (grad_inputs[2] = ts_autograd_reshape (s, info->ndim, info->shape, error)) == NULL)
        return FALSE;
    }
  return in_input_dtypes (node, grad_inputs, 3, error);
}

/* constant_pad_nd: self: constant_pad_nd (grad, -pad); pixel_shuffle:
 * pixel_unshuffle (grad) and back; the others: their _backward ops (a
 * scatter-add through the same index map) */
TS_BACKWARD_FN (ts_backward_remap)
{
  const TsRemapAttrs *attrs = ts_grad_node_get_attrs (node);
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);

  if (!ts_grad_node_needs_input_grad (node, 0))
    return TRUE;
  if (attrs->mode == TS_REMAP_CONSTANT || attrs->mode == TS_REMAP_PIXEL_SHUFFLE)
    {
      TsRemap back = attrs->r;

      for (guint i = 0; i < back.k; i++)
        back.pads[i] = -back.pads[i];
      grad_inputs[0] = ts_ops_remap (attrs->mode, grad_outputs[0], &back, info->shape, 0, error);
    }
  else if (first_order_only (node, error))
    grad_inputs[0] = ts_ops_remap_backward (attrs->mode, grad_outputs[0], &attrs->r, info->ndim, info->shape,
                                            error);
  return grad_inputs[0] != NULL;
}

/* a op v for a number v (v op a when @reverse): one node under create_graph */
static TsTensor *
with_number (TsBinaryOp   op,
             TsTensor    *a,
             double       v,
             gboolean     reverse,
             GError     **error)
{
  TsScalar s = { TS_DTYPE_FLOAT64, v, 0 };

  return ts_ops_binary (op, a, NULL, &s, reverse, NULL, error);
}

static TsTensor *
combine (TsBinaryOp   op,
         TsTensor    *a,
         TsTensor    *b,
         GError     **error)
{
  return ts_ops_binary (op, a, b, NULL, FALSE, NULL, error);
}

/* each step a new tensor, or NULL (the error set) ending the formula */
#define STEP(var, expr) G_STMT_START { if (((var) = (expr)) == NULL) return NULL; } G_STMT_END

/* silu's and gelu's derivative (the factor their _backward ops multiply
 * grad_output by) from differentiable ops, for a double backward: PyTorch
 * differentiates silu_backward and gelu_backward; a graph of the same
 * formulas has the same second derivatives. */
static TsTensor *
silu_derivative (TsTensor  *x,
                 GError   **error)
{
  g_autoptr(TsTensor) sig = NULL, one_minus = NULL, xs = NULL, sum = NULL;

  /* sig * (1 + x * (1 - sig)) */
  STEP (sig, ts_ops_unary (TS_UNARY_SIGMOID, x, error));
  STEP (one_minus, with_number (TS_BINARY_SUB, sig, 1.0, TRUE, error));
  STEP (xs, combine (TS_BINARY_MUL, x, one_minus, error));
  STEP (sum, with_number (TS_BINARY_ADD, xs, 1.0, FALSE, error));
  return combine (TS_BINARY_MUL, sig, sum, error);
}

static TsTensor *
gelu_erf_derivative (TsTensor  *x,
                     GError   **error)
{
  g_autoptr(TsTensor) scaled = NULL, e = NULL, e1 = NULL, cdf = NULL;
  g_autoptr(TsTensor) sq = NULL, half_sq = NULL, g = NULL, pdf = NULL, xpdf = NULL;

  /* 0.5 (1 + erf (x / sqrt 2)) + x exp (-x^2 / 2) / sqrt (2 pi) */
  STEP (scaled, with_number (TS_BINARY_MUL, x, M_SQRT1_2, FALSE, error));
  STEP (e, ts_ops_unary (TS_UNARY_ERF, scaled, error));
  STEP (e1, with_number (TS_BINARY_ADD, e, 1.0, FALSE, error));
  STEP (cdf, with_number (TS_BINARY_MUL, e1, 0.5, FALSE, error));
  STEP (sq, combine (TS_BINARY_MUL, x, x, error));
  STEP (half_sq, with_number (TS_BINARY_MUL, sq, -0.5, FALSE, error));
  STEP (g, ts_ops_unary (TS_UNARY_EXP, half_sq, error));
  STEP (pdf, with_number (TS_BINARY_MUL, g, M_2_SQRTPI * M_SQRT1_2 * 0.5, FALSE, error));
  STEP (xpdf, combine (TS_BINARY_MUL, x, pdf, error));
  return combine (TS_BINARY_ADD, cdf, xpdf, error);
}

static TsTensor *
gelu_tanh_derivative (TsTensor  *x,
                      GError   **error)
{
  const double beta = M_SQRT2 * M_2_SQRTPI * 0.5, kappa = 0.044715;
  g_autoptr(TsTensor) sq = NULL, cube = NULL, kc = NULL, sum = NULL, inner = NULL, t = NULL;
  g_autoptr(TsTensor) t1 = NULL, left = NULL, t2 = NULL, dtanh = NULL, sq3 = NULL, dinner = NULL;
  g_autoptr(TsTensor) half_x = NULL, r = NULL, right = NULL;

  /* 0.5 (1 + t) + 0.5 x (1 - t^2) beta (1 + 3 kappa x^2),
   * t = tanh (beta (x + kappa x^3)) */
  STEP (sq, combine (TS_BINARY_MUL, x, x, error));
  STEP (cube, combine (TS_BINARY_MUL, sq, x, error));
  STEP (kc, with_number (TS_BINARY_MUL, cube, kappa, FALSE, error));
  STEP (sum, combine (TS_BINARY_ADD, x, kc, error));
  STEP (inner, with_number (TS_BINARY_MUL, sum, beta, FALSE, error));
  STEP (t, ts_ops_unary (TS_UNARY_TANH, inner, error));
  STEP (t1, with_number (TS_BINARY_ADD, t, 1.0, FALSE, error));
  STEP (left, with_number (TS_BINARY_MUL, t1, 0.5, FALSE, error));
  STEP (t2, combine (TS_BINARY_MUL, t, t, error));
  STEP (dtanh, with_number (TS_BINARY_SUB, t2, 1.0, TRUE, error));
  STEP (sq3, with_number (TS_BINARY_MUL, sq, 3 * kappa * beta, FALSE, error));
  STEP (dinner, with_number (TS_BINARY_ADD, sq3, beta, FALSE, error));
  STEP (half_x, with_number (TS_BINARY_MUL, x, 0.5, FALSE, error));
  STEP (r, combine (TS_BINARY_MUL, half_x, dtanh, error));
  STEP (right, combine (TS_BINARY_MUL, r, dinner, error));
  return combine (TS_BINARY_ADD, left, right, error);
}
#undef STEP

/* grad_output times the derivative, recorded (create_graph) */
static TsTensor *
act_double_backward (const TsActAttrs  *attrs,
                     TsTensor          *grad,
                     TsTensor          *x,
                     GError           **error)
{
  g_autoptr(TsTensor) d = attrs->kind == TS_ACT_SILU ? silu_derivative (x, error)
                        : attrs->a.p0 != 0 ? gelu_tanh_derivative (x, error) : gelu_erf_derivative (x, error);

  return d == NULL ? NULL : combine (TS_BINARY_MUL, grad, d, error);
}

/* hardtanh, hardswish, ..., elu, celu: their _backward ops, from the
 * saved input */
TS_BACKWARD_FN (ts_backward_activation)
{
  const TsActAttrs *attrs = ts_grad_node_get_attrs (node);
  g_autoptr(TsTensor) self = NULL;

  if (!ts_grad_node_needs_input_grad (node, 0) &&
      (attrs->kind != TS_ACT_PRELU || !ts_grad_node_needs_input_grad (node, 1)))
    return TRUE;
  if ((attrs->kind == TS_ACT_SILU || attrs->kind == TS_ACT_GELU) && ts_autograd_is_grad_enabled ())
    {
      if ((self = ts_grad_node_unpack_saved (node, (guint) attrs->input_slot, error)) == NULL)
        return FALSE;
      grad_inputs[0] = act_double_backward (attrs, grad_outputs[0], self, error);
      return grad_inputs[0] != NULL;
    }
  if (!first_order_only (node, error) ||
      (self = ts_grad_node_unpack_saved (node, (guint) attrs->input_slot, error)) == NULL)
    return FALSE;
  if (attrs->kind == TS_ACT_PRELU)
    {
      g_autoptr(TsTensor) weight = ts_grad_node_unpack_saved (node, (guint) attrs->weight_slot, error);
      guint mask = (ts_grad_node_needs_input_grad (node, 0) ? 1 : 0) |
                   (ts_grad_node_needs_input_grad (node, 1) ? 2 : 0);

      return weight != NULL && ts_ops_prelu_backward (grad_outputs[0], self, weight, mask, grad_inputs, error) &&
             in_input_dtypes (node, grad_inputs, 2, error);
    }
  grad_inputs[0] = ts_ops_activation_backward (attrs->kind, &attrs->a, grad_outputs[0], self, error);
  return grad_inputs[0] != NULL;
}

/* the loss nodes' saved target and class weights (NULL when none) */
static gboolean
unpack_target_weight (TsGradNode            *node,
                      const TsNllLossAttrs  *attrs,
                      TsTensor             **target,
                      TsTensor             **weight,
                      GError               **error)
{
  return (*target = ts_grad_node_unpack_saved (node, (guint) attrs->target_slot, error)) != NULL &&
         (attrs->weight_slot < 0 ||
          (*weight = ts_grad_node_unpack_saved (node, (guint) attrs->weight_slot, error)) != NULL);
}

/* nll_loss_forward, nll_loss2d_forward: self's gradient is
 * nll_loss_backward of the saved self, target, weight and total_weight */
TS_BACKWARD_FN (ts_backward_nll_loss)
{
  const TsNllLossAttrs *attrs = ts_grad_node_get_attrs (node);
  g_autoptr(TsTensor) self = NULL;
  g_autoptr(TsTensor) target = NULL;
  g_autoptr(TsTensor) weight = NULL;
  g_autoptr(TsTensor) total_weight = NULL;

  if (!ts_grad_node_needs_input_grad (node, 0))
    return TRUE;
  if ((self = ts_grad_node_unpack_saved (node, (guint) attrs->self_slot, error)) == NULL ||
      !unpack_target_weight (node, attrs, &target, &weight, error) ||
      (total_weight = ts_grad_node_unpack_saved (node, (guint) attrs->total_weight_slot, error)) == NULL)
    return FALSE;
  grad_inputs[0] = ts_ops_nll_loss_backward (grad_outputs[0], self, target, weight, attrs->reduction,
                                             attrs->ignore_index, total_weight, error);
  return grad_inputs[0] != NULL;
}

/* nll_loss_backward: linear in grad_output, whose gradient is the forward
 * loss of the incoming gradient; self's is zeros (left undefined) */
TS_BACKWARD_FN (ts_backward_nll_loss_backward)
{
  const TsNllLossAttrs *attrs = ts_grad_node_get_attrs (node);
  g_autoptr(TsTensor) target = NULL;
  g_autoptr(TsTensor) weight = NULL;
  g_autoptr(TsTensor) total_weight = NULL;

  if (!ts_grad_node_needs_input_grad (node, 0))
    return TRUE;
  if (!unpack_target_weight (node, attrs, &target, &weight, error))
    return FALSE;
  return ts_ops_nll_loss (grad_outputs[0], target, weight, attrs->reduction, attrs->ignore_index, &grad_inputs[0],
                          &total_weight, error);
}
