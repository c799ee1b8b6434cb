/* ts-autograd-formulas-math.c: the formulas of the inverse trigonometric
 * and hyperbolic functions, erfinv, remainder, fmod, prod and cumprod
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PyTorch 1.13's derivatives.yaml and FunctionsManual.cpp, written with
 * the differentiable ops so that create_graph records a graph. prod and
 * cumprod keep PyTorch's care for zeros in the input: the quotient
 * result / input is used only when no element is zero.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-autograd-formulas-private.h"
#include "ts-autograd-private.h"
#include "ts-ops-shape.h"
#include "ts-ops-sort.h"

/* 1 - self^2 */
static TsTensor *
one_minus_square (TsTensor  *self,
                  GError   **error)
{
  g_autoptr(TsTensor) sq = ts_autograd_mul (self, self, error);

  return sq != NULL ? ts_autograd_binary_scalar (TS_BINARY_SUB, sq, 1, TRUE, error) : NULL;
}

/* asin: grad * (-self * self + 1).rsqrt() */
static TsTensor *
asin_factor (TsTensor *self, GError **error)
{
  g_autoptr(TsTensor) d = one_minus_square (self, error);

  return d != NULL ? ts_ops_unary (TS_UNARY_RSQRT, d, error) : NULL;
}

/* acos: grad * -((-self * self + 1).rsqrt()) */
static TsTensor *
acos_factor (TsTensor *self, GError **error)
{
  g_autoptr(TsTensor) r = asin_factor (self, error);

  return r != NULL ? ts_autograd_neg (r, error) : NULL;
}

/* acosh: grad * (self.pow(2) - 1).rsqrt() */
static TsTensor *
acosh_factor (TsTensor *self, GError **error)
{
  g_autoptr(TsTensor) sq = ts_autograd_mul (self, self, error);
  g_autoptr(TsTensor) d = sq != NULL ? ts_autograd_binary_scalar (TS_BINARY_SUB, sq, 1, FALSE, error) : NULL;

  return d != NULL ? ts_ops_unary (TS_UNARY_RSQRT, d, error) : NULL;
}

/* atanh: grad * 1 / (1 - self.pow(2)) */
static TsTensor *
atanh_factor (TsTensor *self, GError **error)
{
  g_autoptr(TsTensor) d = one_minus_square (self, error);

  return d != NULL ? ts_autograd_binary_scalar (TS_BINARY_DIV, d, 1, TRUE, error) : NULL;
}

/* erfinv: 0.5 * sqrt(M_PI) * exp(self.erfinv().pow(2)) * grad */
static TsTensor *
erfinv_factor (TsTensor *self, GError **error)
{
  g_autoptr(TsTensor) inv = ts_ops_unary (TS_UNARY_ERFINV, self, error);
  g_autoptr(TsTensor) sq = inv != NULL ? ts_autograd_mul (inv, inv, error) : NULL;
  g_autoptr(TsTensor) e = sq != NULL ? ts_autograd_exp (sq, error) : NULL;

  return e != NULL ? ts_autograd_binary_scalar (TS_BINARY_MUL, e, 0.5 * sqrt (G_PI), FALSE, error) : NULL;
}

FACTOR_FORMULA (asin, self_slot)
FACTOR_FORMULA (acos, self_slot)
FACTOR_FORMULA (acosh, self_slot)
FACTOR_FORMULA (atanh, self_slot)
FACTOR_FORMULA (erfinv, self_slot)

/* lgamma: grad * digamma(self); digamma: grad * polygamma(1, self) */
static TsTensor *
lgamma_factor (TsTensor *self, GError **error)
{
  return ts_ops_unary (TS_UNARY_DIGAMMA, self, error);
}

static TsTensor *
digamma_factor (TsTensor *self, GError **error)
{
  return ts_ops_unary (TS_UNARY_TRIGAMMA, self, error);
}

FACTOR_FORMULA (lgamma, self_slot)
FACTOR_FORMULA (digamma, self_slot)

/* remainder, fmod: self: grad; other: -grad * self.div(other,
 * rounding_mode="floor" / "trunc"). A number on the left (2 % x) has no
 * derivative in PyTorch either. */
static gboolean
modulo_backward (TsGradNode  *node,
                 TsTensor    *grad,
                 gboolean     floor_mode,
                 TsTensor   **grad_inputs,
                 GError     **error)
{
  const Attrs *attrs = ATTRS;
  g_autoptr(TsTensor) self = NULL;
  g_autoptr(TsTensor) other = NULL;
  g_autoptr(TsTensor) rounded = NULL;
  g_autoptr(TsTensor) prod = NULL;

  if (attrs->reversed)
    {
      /* remainder.Scalar_Tensor's other: "not_implemented" in derivatives.yaml,
       * whose message (a RuntimeError) this is */
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "derivative for aten::%s is not implemented", floor_mode ? "remainder" : "fmod");
      return FALSE;
    }
  if (ts_grad_node_needs_input_grad (node, 0))
    grad_inputs[0] = ts_tensor_ref (grad);
  if (attrs->has_scalar || !ts_grad_node_needs_input_grad (node, 1))
    return TRUE;
  if ((self = ts_autograd_saved (node, attrs->self_slot, error)) == NULL ||
      (other = ts_autograd_saved (node, attrs->other_slot, error)) == NULL)
    return FALSE;
  /* one aten::div with its rounding mode, as PyTorch's formula */
  rounded = ts_ops_binary (floor_mode ? TS_BINARY_DIV_FLOOR : TS_BINARY_DIV_TRUNC, self, other, NULL, FALSE,
                           NULL, error);
  if (rounded == NULL || (prod = ts_autograd_mul (grad, rounded, error)) == NULL)
    return FALSE;
  return (grad_inputs[1] = ts_autograd_neg (prod, error)) != NULL;
}

TS_BACKWARD_FN (ts_backward_remainder)
{
  return modulo_backward (node, GRAD, TRUE, grad_inputs, error);
}

TS_BACKWARD_FN (ts_backward_fmod)
{
  return modulo_backward (node, GRAD, FALSE, grad_inputs, error);
}

/* How many elements of @t are zero (a host read, as PyTorch's item()) */
static gboolean
count_zeros (TsTensor  *t,
             gint64    *count,
             GError   **error)
{
  g_autoptr(TsTensor) zero = ts_autograd_binary_scalar (TS_BINARY_EQ, t, 0, FALSE, error);
  g_autoptr(TsTensor) n = zero != NULL ? ts_ops_sum (zero, NULL, 0, FALSE, TS_DTYPE_UNDEFINED, error) : NULL;
  g_autoptr(TsTensor) host = n != NULL ? ts_ops_to_host (n, error) : NULL;

  if (host == NULL)
    return FALSE;
  *count = ts_tensor_get_int (host, 0);
  return TRUE;
}

/* A tensor of @like's shape with size 1 along @dim, filled with @value */
static TsTensor *
filled_slab (TsTensor  *like,
             int        dim,
             double     value,
             GError   **error)
{
  gint64 shape[TS_MAX_DIMS];
  TsScalar v = { TS_DTYPE_FLOAT64, value, (gint64) value };

  memcpy (shape, like->shape, like->ndim * sizeof (gint64));
  shape[dim] = 1;
  return ts_autograd_new_full (ts_tensor_get_device (like), like->dtype, like->ndim, shape, &v, error);
}

/* t.narrow(dim, start, length), differentiable */
static TsTensor *
narrow (TsTensor  *t,
        int        dim,
        gint64     start,
        gint64     length,
        GError   **error)
{
  TsViewArgs args = { .kind = TS_VIEW_SLICE, .dim0 = dim, .start = start, .stop = start + length, .step = 1 };

  return ts_autograd_view_op (t, &args, error);
}

/* at::cat({a, b}, dim), differentiable */
static TsTensor *
cat2 (TsTensor  *a,
      TsTensor  *b,
      int        dim,
      GError   **error)
{
  TsTensor *parts[2] = { a, b };
  gint64 shape[TS_MAX_DIMS];
  g_autoptr(TsTensor) out = NULL;

  memcpy (shape, a->shape, a->ndim * sizeof (gint64));
  shape[dim] += b->shape[dim];
  out = ts_tensor_new_empty (ts_tensor_get_device (a), a->dtype, a->ndim, shape, FALSE, error);
  if (out == NULL || !ts_ops_cat (TS_OP_CAT, parts, 2, dim, out, TRUE, error))
    return NULL;
  return g_steal_pointer (&out);
}

static TsTensor *
flip_dim (TsTensor  *t,
          int        dim,
          GError   **error)
{
  return ts_ops_flip (t, G_GUINT64_CONSTANT (1) << dim, error);
}

/* exclusive cumprod of @t along @dim: cat({ones, t[:-1]}).cumprod(dim) */
static TsTensor *
exclusive_cumprod (TsTensor  *t,
                   int        dim,
                   GError   **error)
{
  g_autoptr(TsTensor) ones = filled_slab (t, dim, 1, error);
  g_autoptr(TsTensor) head = ones != NULL ? narrow (t, dim, 0, t->shape[dim] - 1, error) : NULL;
  g_autoptr(TsTensor) shifted = head != NULL ? cat2 (ones, head, dim, error) : NULL;

  return shifted != NULL ? ts_ops_scan (TS_OP_CUMPROD, shifted, dim, TS_DTYPE_UNDEFINED, NULL, error) : NULL;
}

/* prod_safe_zeros_backward: grad times the product of every other
 * element along dim, as the products before and after each one */
static TsTensor *
prod_safe_zeros_backward (TsTensor  *grad,
                          TsTensor  *input,
                          int        dim,
                          GError   **error)
{
  g_autoptr(TsTensor) before = NULL;
  g_autoptr(TsTensor) reversed = NULL;
  g_autoptr(TsTensor) after_rev = NULL;
  g_autoptr(TsTensor) after = NULL;
  g_autoptr(TsTensor) others = NULL;

  if (ts_tensor_numel (input) == 0)
    return ts_autograd_expand (grad, input->ndim, input->shape, error);
  if ((before = exclusive_cumprod (input, dim, error)) == NULL ||
      (reversed = flip_dim (input, dim, error)) == NULL ||
      (after_rev = exclusive_cumprod (reversed, dim, error)) == NULL ||
      (after = flip_dim (after_rev, dim, error)) == NULL ||
      (others = ts_autograd_mul (before, after, error)) == NULL)
    return NULL;
  return ts_autograd_mul (grad, others, error);
}

/* prod: self: prod_backward (grad, self, result) (all elements) or
 * prod_backward (grad, self, result, dim, keepdim) */
TS_BACKWARD_FN (ts_backward_prod)
{
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);
  const Attrs *attrs = ATTRS;
  g_autoptr(TsTensor) self = ts_autograd_saved (node, attrs->self_slot, error);
  g_autoptr(TsTensor) result = NULL;
  g_autoptr(TsTensor) kept = NULL;
  g_autoptr(TsTensor) grad = NULL;
  g_autoptr(TsTensor) q = NULL;
  gint64 shape[TS_MAX_DIMS];
  gint64 zeros;

  if (self == NULL)
    return FALSE;
  if (info->ndim == 0)
    RETURN_GRAD (ts_tensor_ref (GRAD));
  if (!count_zeros (self, &zeros, error))
    return FALSE;
  if (attrs->n_dims == 0 && zeros > 0)
    {
      g_autoptr(TsTensor) dense = NULL;
      g_autoptr(TsTensor) flat = NULL;
      g_autoptr(TsTensor) g = NULL;
      gint64 n = ts_tensor_numel (self);
      TsScalar zero = { TS_DTYPE_INT64, 0, 0 };

      /* two zeros or more: every product has a zero (1.13 returns plain
       * zeros, under create_graph too) */
      if (zeros > 1)
        {
          g_autoptr(TsTensor) z = ts_autograd_new_full (info->device, GRAD->dtype, info->ndim, info->shape,
                                                        &zero, error);

          if (z == NULL)
            return FALSE;
          RETURN_GRAD (g_steal_pointer (&z));
        }
      if ((dense = ts_autograd_reshape (self, 1, &n, error)) == NULL ||
          (g = prod_safe_zeros_backward (GRAD, dense, 0, error)) == NULL)
        return FALSE;
      RETURN_GRAD (ts_autograd_reshape (g, info->ndim, info->shape, error));
    }
  /* grad and result with the reduced dim kept */
  memcpy (shape, info->shape, info->ndim * sizeof (gint64));
  for (guint i = 0; i < info->ndim; i++)
    if (attrs->n_dims == 0 || (int) i == attrs->dims[0])
      shape[i] = 1;
  if ((grad = ts_autograd_reshape (GRAD, info->ndim, shape, error)) == NULL)
    return FALSE;
  if (zeros > 0)
    RETURN_GRAD (prod_safe_zeros_backward (grad, self, attrs->dims[0], error));
  if ((result = ts_autograd_saved (node, attrs->result_slot, error)) == NULL ||
      (kept = ts_autograd_reshape (result, info->ndim, shape, error)) == NULL ||
      (q = ts_autograd_div (kept, self, error)) == NULL)
    return FALSE;
  RETURN_GRAD (ts_autograd_mul (grad, q, error));
}

/* w.flip(dim).cumsum(dim).flip(dim) */
static TsTensor *
reversed_cumsum (TsTensor  *w,
                 int        dim,
                 GError   **error)
{
  g_autoptr(TsTensor) f = flip_dim (w, dim, error);
  g_autoptr(TsTensor) c = f != NULL ? ts_ops_scan (TS_OP_CUMSUM, f, dim, TS_DTYPE_UNDEFINED, NULL, error) : NULL;

  return c != NULL ? flip_dim (c, dim, error) : NULL;
}

/* cumprod with zeros in the input (FunctionsManual's differentiable
 * O(n^2) branch): input k's gradient is sum over j >= k of grad_j times
 * the product of input_i for i <= j, i != k */
static TsTensor *
cumprod_backward_zeros (TsTensor  *grad,
                        TsTensor  *input,
                        int        dim,
                        GError   **error)
{
  gint64 n = input->shape[dim];
  g_autoptr(TsTensor) ones = filled_slab (input, dim, 1, error);
  g_autoptr(TsTensor) grad_input = NULL;

  if (ones == NULL)
    return NULL;
  for (gint64 k = 0; k < n; k++)
    {
      g_autoptr(TsTensor) omitted = NULL;
      g_autoptr(TsTensor) head = NULL;
      g_autoptr(TsTensor) until_k = NULL;
      g_autoptr(TsTensor) from_k1 = NULL;
      g_autoptr(TsTensor) tail = NULL;
      g_autoptr(TsTensor) grad_tail = NULL;
      g_autoptr(TsTensor) prod = NULL;
      g_autoptr(TsTensor) slice = NULL;

      if (k > 0 && ((head = narrow (input, dim, 0, k, error)) == NULL ||
                    (until_k = ts_ops_reduce (TS_OP_PROD, head, &dim, 1, TRUE, TS_DTYPE_UNDEFINED, error)) == NULL))
        return NULL;
      if (k < n - 1 && ((tail = narrow (input, dim, k + 1, n - k - 1, error)) == NULL ||
                        (from_k1 = ts_ops_scan (TS_OP_CUMPROD, tail, dim, TS_DTYPE_UNDEFINED, NULL, error)) == NULL))
        return NULL;
      if (k == 0)
        omitted = cat2 (ones, from_k1, dim, error);
      else if (k == n - 1)
        omitted = ts_tensor_ref (until_k);
      else
        {
          g_autoptr(TsTensor) scaled = ts_autograd_mul (until_k, from_k1, error);

          omitted = scaled != NULL ? cat2 (until_k, scaled, dim, error) : NULL;
        }
      if (omitted == NULL || (grad_tail = narrow (grad, dim, k, n - k, error)) == NULL ||
          (prod = ts_autograd_mul (grad_tail, omitted, error)) == NULL ||
          (slice = ts_autograd_sum_dims (prod, &dim, 1, TRUE, error)) == NULL)
        return NULL;
      if (k == 0)
        grad_input = g_steal_pointer (&slice);
      else if ((grad_input = cat2 (g_steal_pointer (&grad_input), slice, dim, error)) == NULL)
        return NULL;
    }
  return g_steal_pointer (&grad_input);
}

/* cumprod: self: cumprod_backward (grad, self, dim, result) */
TS_BACKWARD_FN (ts_backward_cumprod)
{
  const Attrs *attrs = ATTRS;
  int dim = attrs->n_dims > 0 ? attrs->dims[0] : 0;
  g_autoptr(TsTensor) self = ts_autograd_saved (node, attrs->self_slot, error);
  g_autoptr(TsTensor) result = NULL;
  g_autoptr(TsTensor) w = NULL;
  g_autoptr(TsTensor) rc = NULL;
  gint64 zeros;

  if (self == NULL)
    return FALSE;
  if (ts_tensor_numel (self) <= 1 || self->ndim == 0 || self->shape[dim] == 1)
    RETURN_GRAD (ts_tensor_ref (GRAD));
  if (!count_zeros (self, &zeros, error))
    return FALSE;
  if (zeros > 0)
    RETURN_GRAD (cumprod_backward_zeros (GRAD, self, dim, error));
  if ((result = ts_autograd_saved (node, attrs->result_slot, error)) == NULL ||
      (w = ts_autograd_mul (result, GRAD, error)) == NULL ||
      (rc = reversed_cumsum (w, dim, error)) == NULL)
    return FALSE;
  RETURN_GRAD (ts_autograd_div (rc, self, error));
}
