/* ts-autograd-formulas.c: reference backward formulas (PyTorch's
 * tools/autograd/derivatives.yaml for a few ops) and the differentiable
 * ops that record them
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-autograd-formulas.h"
#include "ts-ops.h"

/* Saved-tensor slots of a binary op, -1 when not saved: PyTorch saves an
 * operand only when the other one's gradient needs it. */
typedef struct
{
  int self_slot;
  int other_slot;
} BinaryAttrs;

typedef struct
{
  int      dims[TS_MAX_DIMS];
  guint    n_dims;
  gboolean keepdim;
} ReduceAttrs;

typedef struct
{
  double value;
} ScalarAttrs;

/* Records node (name, backward) for out = op (a[, b]) and hands back out;
 * *node_out (may be NULL) gets the node or NULL. */
static TsTensor *
record (TsTensor      *out,
        const char    *name,
        TsBackwardFn   backward,
        gsize          attrs_size,
        TsTensor      *a,
        TsTensor      *b,
        TsGradNode   **node_out)
{
  TsTensor *inputs[2] = { a, b };
  TsGradNode *node = NULL;

  if (out != NULL)
    node = ts_autograd_record (name, backward, attrs_size, inputs, b != NULL ? 2 : 1, &out, 1);
  if (node_out != NULL)
    *node_out = node;
  else if (node != NULL)
    ts_grad_node_unref (node);
  return out;
}

static int
save_if (TsGradNode *node,
         TsTensor   *tensor,
         gboolean    needed)
{
  return needed ? (int) ts_grad_node_save (node, tensor) : -1;
}

/* Records a binary op that saves self when other requires grad and other
 * when self does (mul, mm); div also saves other for self. */
static TsTensor *
record_binary (TsTensor     *out,
               const char   *name,
               TsBackwardFn  backward,
               TsTensor     *a,
               TsTensor     *b,
               gboolean      other_for_both)
{
  TsGradNode *node;
  BinaryAttrs *attrs;

  record (out, name, backward, sizeof (BinaryAttrs), a, b, &node);
  if (node == NULL)
    return out;
  attrs = ts_grad_node_get_attrs (node);
  attrs->self_slot = save_if (node, a, ts_autograd_requires_grad (b));
  attrs->other_slot = save_if (node, b, ts_autograd_requires_grad (a) ||
                                        (other_for_both && ts_autograd_requires_grad (b)));
  ts_grad_node_unref (node);
  return out;
}

/* Records a unary op that saves one tensor (its input or its result). */
static TsTensor *
record_saving (TsTensor     *out,
               const char   *name,
               TsBackwardFn  backward,
               TsTensor     *a,
               TsTensor     *saved_is_result_else_input)
{
  TsGradNode *node;

  record (out, name, backward, 0, a, NULL, &node);
  if (node != NULL)
    {
      ts_grad_node_save (node, saved_is_result_else_input != NULL ? out : a);
      ts_grad_node_unref (node);
    }
  return out;
}

static TsTensor *
unpack (TsGradNode  *node,
        int          slot,
        GError     **error)
{
  return ts_grad_node_unpack_saved (node, (guint) slot, error);
}

/* ------------------------------------------------------------------ */
/* Formulas. Each computes grad_inputs[i] only where needed; the engine
 * sums broadcast results down to the input's shape. */

TS_BACKWARD_FN (ts_autograd_backward_identity)
{
  for (guint i = 0; i < n_inputs; i++)
    if (ts_grad_node_needs_input_grad (node, i))
      grad_inputs[i] = ts_tensor_ref (grad_outputs[0]);
  return TRUE;
}

/* sub: self: grad, other: -grad */
static TS_BACKWARD_FN (sub_backward)
{
  if (ts_grad_node_needs_input_grad (node, 0))
    grad_inputs[0] = ts_tensor_ref (grad_outputs[0]);
  if (ts_grad_node_needs_input_grad (node, 1) &&
      (grad_inputs[1] = ts_autograd_neg (grad_outputs[0], error)) == NULL)
    return FALSE;
  return TRUE;
}

/* mul: self: grad * other, other: grad * self */
static TS_BACKWARD_FN (mul_backward)
{
  BinaryAttrs *attrs = ts_grad_node_get_attrs (node);

  for (guint i = 0; i < 2; i++)
    if (ts_grad_node_needs_input_grad (node, i))
      {
        g_autoptr(TsTensor) factor = unpack (node, i == 0 ? attrs->other_slot : attrs->self_slot,
                                             error);

        if (factor == NULL ||
            (grad_inputs[i] = ts_autograd_mul (grad_outputs[0], factor, error)) == NULL)
          return FALSE;
      }
  return TRUE;
}

/* div: self: grad / other, other: -grad * self / (other * other) */
static TS_BACKWARD_FN (div_backward)
{
  BinaryAttrs *attrs = ts_grad_node_get_attrs (node);
  TsTensor *grad = grad_outputs[0];
  g_autoptr(TsTensor) other = unpack (node, attrs->other_slot, error);

  if (other == NULL)
    return FALSE;
  if (ts_grad_node_needs_input_grad (node, 0) &&
      (grad_inputs[0] = ts_autograd_div (grad, other, error)) == NULL)
    return FALSE;
  if (ts_grad_node_needs_input_grad (node, 1))
    {
      g_autoptr(TsTensor) self = unpack (node, attrs->self_slot, error);
      g_autoptr(TsTensor) neg = NULL;
      g_autoptr(TsTensor) num = NULL;
      g_autoptr(TsTensor) den = NULL;

      if (self == NULL ||
          (neg = ts_autograd_neg (grad, error)) == NULL ||
          (num = ts_autograd_mul (neg, self, error)) == NULL ||
          (den = ts_autograd_mul (other, other, error)) == NULL ||
          (grad_inputs[1] = ts_autograd_div (num, den, error)) == NULL)
        return FALSE;
    }
  return TRUE;
}

/* div by a number: self: grad / other */
static TS_BACKWARD_FN (div_scalar_backward)
{
  ScalarAttrs *attrs = ts_grad_node_get_attrs (node);

  grad_inputs[0] = ts_autograd_div_scalar (grad_outputs[0], attrs->value, error);
  return grad_inputs[0] != NULL;
}

/* neg: self: grad.neg() */
static TS_BACKWARD_FN (neg_backward)
{
  grad_inputs[0] = ts_autograd_neg (grad_outputs[0], error);
  return grad_inputs[0] != NULL;
}

/* exp: self: grad * result */
static TS_BACKWARD_FN (exp_backward)
{
  g_autoptr(TsTensor) result = unpack (node, 0, error);

  return result != NULL &&
         (grad_inputs[0] = ts_autograd_mul (grad_outputs[0], result, error)) != NULL;
}

/* log: self: grad.div(self) */
static TS_BACKWARD_FN (log_backward)
{
  g_autoptr(TsTensor) self = unpack (node, 0, error);

  return self != NULL &&
         (grad_inputs[0] = ts_autograd_div (grad_outputs[0], self, error)) != NULL;
}

/* relu: self: threshold_backward(grad, result, 0), here grad * (result > 0) */
static TS_BACKWARD_FN (relu_backward)
{
  TsScalar zero = { TS_DTYPE_INT64, 0, 0 };
  g_autoptr(TsTensor) result = unpack (node, 0, error);
  g_autoptr(TsTensor) mask = NULL;

  if (result == NULL ||
      (mask = ts_ops_binary (TS_BINARY_GT, result, NULL, &zero, FALSE, NULL, error)) == NULL)
    return FALSE;
  grad_inputs[0] = ts_autograd_mul (grad_outputs[0], mask, error);
  return grad_inputs[0] != NULL;
}

/* sum(), mean(): self: grad.expand(self.sizes()) [/ self.numel()] */
static gboolean
expand_to_input (TsGradNode  *node,
                 TsTensor    *grad,
                 TsTensor   **out,
                 GError     **error)
{
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);
  const ReduceAttrs *attrs = ts_grad_node_get_attrs (node);
  g_autoptr(TsTensor) kept = NULL;

  if (attrs != NULL && !attrs->keepdim && attrs->n_dims > 0)
    {
      /* sum(dims) without keepdim: put the reduced dims back as 1s */
      gint64 shape[TS_MAX_DIMS];

      memcpy (shape, info->shape, info->ndim * sizeof (gint64));
      for (guint i = 0; i < attrs->n_dims; i++)
        shape[attrs->dims[i]] = 1;
      if ((kept = ts_autograd_reshape (grad, info->ndim, shape, error)) == NULL)
        return FALSE;
      grad = kept;
    }
  *out = ts_autograd_expand (grad, info->ndim, info->shape, error);
  return *out != NULL;
}

static TS_BACKWARD_FN (sum_backward)
{
  return expand_to_input (node, grad_outputs[0], &grad_inputs[0], error);
}

static TS_BACKWARD_FN (mean_backward)
{
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);
  g_autoptr(TsTensor) expanded = NULL;
  gint64 numel = 1;

  for (guint i = 0; i < info->ndim; i++)
    numel *= info->shape[i];
  if (!expand_to_input (node, grad_outputs[0], &expanded, error))
    return FALSE;
  grad_inputs[0] = ts_autograd_div_scalar (expanded, (double) numel, error);
  return grad_inputs[0] != NULL;
}

/* mm: self: grad.mm(mat2.t()), mat2: self.t().mm(grad) */
static TS_BACKWARD_FN (mm_backward)
{
  BinaryAttrs *attrs = ts_grad_node_get_attrs (node);

  for (guint i = 0; i < 2; i++)
    if (ts_grad_node_needs_input_grad (node, i))
      {
        g_autoptr(TsTensor) other = unpack (node, i == 0 ? attrs->other_slot : attrs->self_slot,
                                            error);
        g_autoptr(TsTensor) other_t = NULL;

        if (other == NULL || (other_t = ts_autograd_t (other, error)) == NULL)
          return FALSE;
        grad_inputs[i] = i == 0 ? ts_autograd_mm (grad_outputs[0], other_t, error)
                                : ts_autograd_mm (other_t, grad_outputs[0], error);
        if (grad_inputs[i] == NULL)
          return FALSE;
      }
  return TRUE;
}

/* t: self: grad.t() */
static TS_BACKWARD_FN (t_backward)
{
  grad_inputs[0] = ts_autograd_t (grad_outputs[0], error);
  return grad_inputs[0] != NULL;
}

/* expand: self: at::sum_to(grad, self.sizes()) */
static TS_BACKWARD_FN (expand_backward)
{
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);

  grad_inputs[0] = ts_autograd_sum_to (grad_outputs[0], info->ndim, info->shape, error);
  return grad_inputs[0] != NULL;
}

/* view/reshape: self: grad.reshape(self.sizes()) */
static TS_BACKWARD_FN (view_backward)
{
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);

  grad_inputs[0] = ts_autograd_reshape (grad_outputs[0], info->ndim, info->shape, error);
  return grad_inputs[0] != NULL;
}

/* ------------------------------------------------------------------ */
/* Differentiable ops */

static TsTensor *
binary (TsBinaryOp  op,
        TsTensor   *a,
        TsTensor   *b,
        GError    **error)
{
  return ts_ops_binary (op, a, b, NULL, FALSE, NULL, error);
}

TsTensor *
ts_autograd_add (TsTensor  *a,
                 TsTensor  *b,
                 GError   **error)
{
  return record (binary (TS_BINARY_ADD, a, b, error), "AddBackward0",
                 ts_autograd_backward_identity, 0, a, b, NULL);
}

TsTensor *
ts_autograd_sub (TsTensor  *a,
                 TsTensor  *b,
                 GError   **error)
{
  return record (binary (TS_BINARY_SUB, a, b, error), "SubBackward0", sub_backward, 0, a, b,
                 NULL);
}

TsTensor *
ts_autograd_mul (TsTensor  *a,
                 TsTensor  *b,
                 GError   **error)
{
  return record_binary (binary (TS_BINARY_MUL, a, b, error), "MulBackward0", mul_backward,
                        a, b, FALSE);
}

TsTensor *
ts_autograd_div (TsTensor  *a,
                 TsTensor  *b,
                 GError   **error)
{
  return record_binary (binary (TS_BINARY_DIV, a, b, error), "DivBackward0", div_backward,
                        a, b, TRUE);
}

TsTensor *
ts_autograd_div_scalar (TsTensor  *a,
                        double     value,
                        GError   **error)
{
  TsScalar scalar = { TS_DTYPE_FLOAT64, value, (gint64) value };
  TsGradNode *node;
  TsTensor *out;

  out = record (ts_ops_binary (TS_BINARY_DIV, a, NULL, &scalar, FALSE, NULL, error),
                "DivBackward1", div_scalar_backward, sizeof (ScalarAttrs), a, NULL, &node);
  if (node != NULL)
    {
      ((ScalarAttrs *) ts_grad_node_get_attrs (node))->value = value;
      ts_grad_node_unref (node);
    }
  return out;
}

TsTensor *
ts_autograd_neg (TsTensor  *a,
                 GError   **error)
{
  return record (ts_ops_unary (TS_UNARY_NEG, a, error), "NegBackward0", neg_backward, 0, a,
                 NULL, NULL);
}

TsTensor *
ts_autograd_exp (TsTensor  *a,
                 GError   **error)
{
  return record_saving (ts_ops_unary (TS_UNARY_EXP, a, error), "ExpBackward0", exp_backward,
                        a, a);
}

TsTensor *
ts_autograd_log (TsTensor  *a,
                 GError   **error)
{
  return record_saving (ts_ops_unary (TS_UNARY_LOG, a, error), "LogBackward0", log_backward,
                        a, NULL);
}

TsTensor *
ts_autograd_relu (TsTensor  *a,
                  GError   **error)
{
  return record_saving (ts_ops_unary (TS_UNARY_RELU, a, error), "ReluBackward0", relu_backward,
                        a, a);
}

TsTensor *
ts_autograd_sum (TsTensor  *a,
                 GError   **error)
{
  return record (ts_ops_sum (a, NULL, 0, FALSE, TS_DTYPE_UNDEFINED, error), "SumBackward0",
                 sum_backward, 0, a, NULL, NULL);
}

TsTensor *
ts_autograd_sum_dims (TsTensor   *a,
                      const int  *dims,
                      guint       n_dims,
                      gboolean    keepdim,
                      GError    **error)
{
  TsGradNode *node;
  ReduceAttrs *attrs;
  TsTensor *out;

  g_return_val_if_fail (n_dims > 0 && n_dims <= TS_MAX_DIMS, NULL);

  out = record (ts_ops_sum (a, dims, n_dims, keepdim, TS_DTYPE_UNDEFINED, error),
                "SumBackward1", sum_backward, sizeof (ReduceAttrs), a, NULL, &node);
  if (node == NULL)
    return out;
  attrs = ts_grad_node_get_attrs (node);
  for (guint i = 0; i < n_dims; i++)
    {
      attrs->dims[i] = dims[i];
      ts_tensor_wrap_dim ((int) a->ndim, &attrs->dims[i], NULL);
    }
  attrs->n_dims = n_dims;
  attrs->keepdim = keepdim;
  ts_grad_node_unref (node);
  return out;
}

TsTensor *
ts_autograd_mean (TsTensor  *a,
                  GError   **error)
{
  return record (ts_ops_mean (a, NULL, 0, FALSE, TS_DTYPE_UNDEFINED, error), "MeanBackward0",
                 mean_backward, 0, a, NULL, NULL);
}

TsTensor *
ts_autograd_mm (TsTensor  *a,
                TsTensor  *b,
                GError   **error)
{
  return record_binary (ts_ops_matmul (a, b, error), "MmBackward0", mm_backward, a, b, FALSE);
}

TsTensor *
ts_autograd_t (TsTensor  *a,
               GError   **error)
{
  return record (ts_tensor_transpose (a, 0, a->ndim > 1 ? 1 : 0, error), "TBackward0",
                 t_backward, 0, a, NULL, NULL);
}

TsTensor *
ts_autograd_expand (TsTensor      *a,
                    guint          ndim,
                    const gint64  *shape,
                    GError       **error)
{
  return record (ts_tensor_expand (a, ndim, shape, error), "ExpandBackward0", expand_backward,
                 0, a, NULL, NULL);
}

TsTensor *
ts_autograd_reshape (TsTensor      *a,
                     guint          ndim,
                     const gint64  *shape,
                     GError       **error)
{
  g_autoptr(TsTensor) contiguous = ts_ops_contiguous (a, error);

  if (contiguous == NULL)
    return NULL;
  return record (ts_tensor_view (contiguous, ndim, shape, error), "ViewBackward0", view_backward,
                 0, a, NULL, NULL);
}

TsTensor *
ts_autograd_sum_to (TsTensor      *a,
                    guint          ndim,
                    const gint64  *shape,
                    GError       **error)
{
  int dims[TS_MAX_DIMS];
  guint n_dims = 0;
  guint lead = a->ndim - ndim;
  g_autoptr(TsTensor) summed = NULL;

  g_return_val_if_fail (a->ndim >= ndim, NULL);

  for (guint i = 0; i < a->ndim; i++)
    if (i < lead || (shape[i - lead] == 1 && a->shape[i] != 1))
      dims[n_dims++] = (int) i;
  if (n_dims == 0)
    return ts_tensor_ref (a);
  summed = ts_autograd_sum_dims (a, dims, n_dims, TRUE, error);
  if (summed == NULL)
    return NULL;
  return ts_autograd_reshape (summed, ndim, shape, error);
}
