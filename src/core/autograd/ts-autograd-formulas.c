/* ts-autograd-formulas.c: reference backward formulas (PyTorch's
 * tools/autograd/derivatives.yaml for a few ops) and the differentiable
 * ops that record them
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-autograd-formulas.h"
#include "ts-autograd-private.h"
#include "ts-autograd-formulas-private.h"
#include "ts-ops-act.h"
#include "ts-ops.h"
#include "ts-ops-act.h"
#include "ts-ops-shape.h"
#include "ts-ops-sort.h"


/* Records node (name, backward) for out = op (a[, b]) and hands back out:
 * the views, which are not table ops. */
static TsTensor *
record (TsTensor      *out,
        const char    *name,
        TsBackwardFn   backward,
        TsTensor      *a)
{
  TsGradNode *node = NULL;

  if (out != NULL)
    node = ts_autograd_record (name, backward, 0, &a, 1, &out, 1);
  if (node != NULL)
    ts_grad_node_unref (node);
  return out;
}

static int
save_if (TsGradNode *node,
         TsTensor   *tensor,
         gboolean    needed)
{
  return needed && tensor != NULL ? (int) ts_grad_node_save (node, tensor) : -1;
}

static gboolean
saves_self (const TsOpDesc *desc,
            TsTensor       *self,
            TsTensor       *other)
{
  TsOpSave saves = desc->saves;

  return saves == TS_OP_SAVE_SELF || saves == TS_OP_SAVE_SELF_RESULT ||
         saves == TS_OP_SAVE_OPERANDS || saves == TS_OP_SAVE_OPERANDS_RESULT ||
         (saves == TS_OP_SAVE_CROSS && other != NULL && ts_autograd_requires_grad (other));
}

TsTensor *
ts_autograd_original_self (const TsOpDesc  *desc,
                           TsTensor        *const *inputs,
                           guint            n_inputs,
                           TsTensor        *out)
{
  TsTensor *other = n_inputs > 1 ? inputs[1] : NULL;
  TsTensor *copy;
  gboolean previous;

  if (out == NULL || out != inputs[0] || desc->backward == NULL || !ts_autograd_is_grad_enabled () ||
      !ts_autograd_any_requires_grad (inputs, other != NULL ? 2 : 1) || !saves_self (desc, inputs[0], other))
    return NULL;
  previous = ts_autograd_set_grad_enabled (FALSE);
  copy = ts_ops_clone (inputs[0], NULL);
  ts_autograd_set_grad_enabled (previous);
  return copy;
}

void
ts_autograd_record_op (const TsOpDesc       *desc,
                       TsOpGradForm          form,
                       TsTensor             *const *inputs,
                       guint                 n_inputs,
                       TsTensor             *out,
                       const TsOpGradAttrs  *attrs)
{
  TsTensor *in[3] = { NULL, NULL, NULL };   /* lerp and addcmul have three */
  guint n = 0;
  TsTensor *self, *other;
  TsGradNode *node;
  Attrs *a;
  TsOpSave saves = desc->saves;
  const char *name = desc->grad_names[form];

  if (!desc->differentiable || !ts_autograd_is_grad_enabled ())
    return;
  for (guint i = 0; i < n_inputs && n < G_N_ELEMENTS (in); i++)
    if (inputs[i] != NULL)
      in[n++] = inputs[i];
  if (!ts_autograd_any_requires_grad (in, n))
    return;
  /* a form without a formula still records a node: backward through it
   * fails with PyTorch's "the derivative for ... is not implemented." */
  node = ts_autograd_record (name, attrs != NULL && attrs->no_formula ? NULL : desc->backward,
                             sizeof (Attrs), in, n, &out, 1);
  if (node == NULL)
    return;
  a = ts_grad_node_get_attrs (node);
  if (attrs != NULL)
    *a = *attrs;
  self = in[0];
  other = n > 1 ? in[1] : NULL;
  a->self_slot = save_if (node, a->save_self != NULL ? a->save_self : self, saves_self (desc, self, other));
  a->save_self = NULL;
  a->other_slot = save_if (node, other,
                           saves == TS_OP_SAVE_OPERANDS || saves == TS_OP_SAVE_OPERANDS_RESULT ||
                           (saves == TS_OP_SAVE_CROSS && ts_autograd_requires_grad (self)));
  a->result_slot = save_if (node, out,
                            saves == TS_OP_SAVE_RESULT || saves == TS_OP_SAVE_SELF_RESULT ||
                            saves == TS_OP_SAVE_OPERANDS_RESULT);
  a->extra_slot = save_if (node, a->save_extra, TRUE);
  a->save_extra = NULL;
  ts_grad_node_unref (node);
}

static TsTensor *
unpack (TsGradNode  *node,
        int          slot,
        GError     **error)
{
  return ts_grad_node_unpack_saved (node, (guint) slot, error);
}

/* ------------------------------------------------------------------ */
/* Formulas (PyTorch's derivatives.yaml). Each computes grad_inputs[i]
 * only where needed; the engine sums broadcast results down to the
 * input's shape. */

static TsTensor *
binary (TsBinaryOp  op,
        TsTensor   *a,
        TsTensor   *b,
        GError    **error)
{
  return ts_ops_binary (op, a, b, NULL, FALSE, NULL, error);
}

/* a op value, or value op a when reversed */
TsTensor *
ts_autograd_binary_scalar (TsBinaryOp  op,
                           TsTensor   *a,
                           double      value,
                           gboolean    reversed,
                           GError    **error)
{
  TsScalar scalar = { TS_DTYPE_FLOAT64, value, (gint64) value };

  return ts_ops_binary (op, a, NULL, &scalar, reversed, NULL, error);
}

TsTensor *
ts_autograd_saved (TsGradNode  *node,
                   int          slot,
                   GError     **error)
{
  if (slot < 0)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "%s: a tensor its formula needs was not saved", ts_grad_node_get_name (node));
      return NULL;
    }
  return unpack (node, slot, error);
}

TS_BACKWARD_FN (ts_autograd_backward_identity)
{
  for (guint i = 0; i < n_inputs; i++)
    if (ts_grad_node_needs_input_grad (node, i))
      grad_inputs[i] = ts_tensor_ref (grad_outputs[0]);
  return TRUE;
}

TS_BACKWARD_FN (ts_backward_add)
{
  return ts_autograd_backward_identity (node, grad_outputs, n_outputs, grad_inputs, n_inputs, error);
}

/* sub: self: grad, other: -grad; rsub (2 - x): self: -grad */
TS_BACKWARD_FN (ts_backward_sub)
{
  if (ts_grad_node_needs_input_grad (node, 0))
    grad_inputs[0] = ATTRS->reversed ? ts_autograd_neg (GRAD, error) : ts_tensor_ref (GRAD);
  if (n_inputs > 1 && ts_grad_node_needs_input_grad (node, 1))
    grad_inputs[1] = ts_autograd_neg (GRAD, error);
  return (grad_inputs[0] != NULL || !ts_grad_node_needs_input_grad (node, 0)) &&
         (n_inputs < 2 || grad_inputs[1] != NULL || !ts_grad_node_needs_input_grad (node, 1));
}

/* mul: self: grad * other, other: grad * self */
TS_BACKWARD_FN (ts_backward_mul)
{
  Attrs *attrs = ATTRS;

  if (attrs->has_scalar)
    RETURN_GRAD (ts_autograd_binary_scalar (TS_BINARY_MUL, GRAD, attrs->scalar, FALSE, error));
  for (guint i = 0; i < 2; i++)
    if (ts_grad_node_needs_input_grad (node, i))
      {
        g_autoptr(TsTensor) factor = ts_autograd_saved (node, i == 0 ? attrs->other_slot
                                                                        : attrs->self_slot, error);

        if (factor == NULL || (grad_inputs[i] = ts_autograd_mul (GRAD, factor, error)) == NULL)
          return FALSE;
      }
  return TRUE;
}

/* -grad * num / (den * den) */
static TsTensor *
quotient_grad (TsTensor  *grad,
               TsTensor  *num,
               TsTensor  *den,
               GError   **error)
{
  g_autoptr(TsTensor) neg = NULL;
  g_autoptr(TsTensor) top = NULL;
  g_autoptr(TsTensor) square = NULL;

  if ((neg = ts_autograd_neg (grad, error)) == NULL ||
      (top = num != NULL ? ts_autograd_mul (neg, num, error) : ts_tensor_ref (neg)) == NULL ||
      (square = ts_autograd_mul (den, den, error)) == NULL)
    return NULL;
  return ts_autograd_div (top, square, error);
}

/* div: self: grad / other, other: -grad * self / (other * other);
 * by a number: grad / other; a number by self: -grad * other / self^2 */
TS_BACKWARD_FN (ts_backward_div)
{
  Attrs *attrs = ATTRS;
  g_autoptr(TsTensor) self = NULL;
  g_autoptr(TsTensor) other = NULL;

  if (attrs->has_scalar && !attrs->reversed)
    RETURN_GRAD (ts_autograd_div_scalar (GRAD, attrs->scalar, error));
  if (attrs->has_scalar)
    {
      g_autoptr(TsTensor) q = NULL;

      if ((self = ts_autograd_saved (node, attrs->self_slot, error)) == NULL ||
          (q = quotient_grad (GRAD, NULL, self, error)) == NULL)
        return FALSE;
      RETURN_GRAD (ts_autograd_binary_scalar (TS_BINARY_MUL, q, attrs->scalar, FALSE, error));
    }
  if ((other = ts_autograd_saved (node, attrs->other_slot, error)) == NULL)
    return FALSE;
  if (ts_grad_node_needs_input_grad (node, 0) &&
      (grad_inputs[0] = ts_autograd_div (GRAD, other, error)) == NULL)
    return FALSE;
  if (ts_grad_node_needs_input_grad (node, 1) &&
      ((self = ts_autograd_saved (node, attrs->self_slot, error)) == NULL ||
       (grad_inputs[1] = quotient_grad (GRAD, self, other, error)) == NULL))
    return FALSE;
  return TRUE;
}

/* pow: self: grad * exponent * self^(exponent - 1),
 * exponent: grad * result * log(self) */
TS_BACKWARD_FN (ts_backward_pow)
{
  Attrs *attrs = ATTRS;
  g_autoptr(TsTensor) self = ts_autograd_saved (node, attrs->self_slot, error);
  g_autoptr(TsTensor) result = NULL;

  if (self == NULL)
    return FALSE;
  if (attrs->has_scalar && attrs->reversed)
    {
      /* value ** self: grad * result * log(value) */
      g_autoptr(TsTensor) gr = NULL;

      if ((result = ts_autograd_saved (node, attrs->result_slot, error)) == NULL ||
          (gr = ts_autograd_mul (GRAD, result, error)) == NULL)
        return FALSE;
      RETURN_GRAD (ts_autograd_binary_scalar (TS_BINARY_MUL, gr, log (attrs->scalar), FALSE, error));
    }
  if (attrs->has_scalar)
    {
      g_autoptr(TsTensor) p = NULL;
      g_autoptr(TsTensor) gp = NULL;

      if (attrs->scalar == 0.0)
        RETURN_GRAD (ts_autograd_binary_scalar (TS_BINARY_MUL, GRAD, 0.0, FALSE, error));
      if ((p = ts_autograd_binary_scalar (TS_BINARY_POW, self, attrs->scalar - 1, FALSE, error)) == NULL ||
          (gp = ts_autograd_mul (GRAD, p, error)) == NULL)
        return FALSE;
      RETURN_GRAD (ts_autograd_binary_scalar (TS_BINARY_MUL, gp, attrs->scalar, FALSE, error));
    }
  {
    g_autoptr(TsTensor) exponent = ts_autograd_saved (node, attrs->other_slot, error);

    if (exponent == NULL)
      return FALSE;
    if (ts_grad_node_needs_input_grad (node, 0))
      {
        g_autoptr(TsTensor) e1 = NULL;
        g_autoptr(TsTensor) p = NULL;
        g_autoptr(TsTensor) gp = NULL;

        if ((e1 = ts_autograd_binary_scalar (TS_BINARY_SUB, exponent, 1, FALSE, error)) == NULL ||
            (p = binary (TS_BINARY_POW, self, e1, error)) == NULL ||
            (gp = ts_autograd_mul (GRAD, p, error)) == NULL ||
            (grad_inputs[0] = ts_autograd_mul (gp, exponent, error)) == NULL)
          return FALSE;
      }
    if (ts_grad_node_needs_input_grad (node, 1))
      {
        g_autoptr(TsTensor) lg = NULL;
        g_autoptr(TsTensor) gr = NULL;

        if ((result = ts_autograd_saved (node, attrs->result_slot, error)) == NULL ||
            (lg = ts_autograd_log (self, error)) == NULL ||
            (gr = ts_autograd_mul (GRAD, result, error)) == NULL ||
            (grad_inputs[1] = ts_autograd_mul (gr, lg, error)) == NULL)
          return FALSE;
      }
  }
  return TRUE;
}

/* grad where mask, plus half of it where self == other (ties split, as
 * PyTorch's at::where(self == other, grad / 2, grad) does) */
static TsTensor *
select_grad (TsTensor    *grad,
             TsTensor    *mask,
             TsTensor    *ties,
             GError     **error)
{
  g_autoptr(TsTensor) picked = NULL;
  g_autoptr(TsTensor) tied = NULL;
  g_autoptr(TsTensor) half = NULL;

  if ((picked = ts_autograd_mul (grad, mask, error)) == NULL ||
      (tied = ts_autograd_mul (grad, ties, error)) == NULL ||
      (half = ts_autograd_binary_scalar (TS_BINARY_MUL, tied, 0.5, FALSE, error)) == NULL)
    return NULL;
  return ts_autograd_add (picked, half, error);
}

/* A binary node's other operand: saved, or with a number, that number as
 * a 0-dim tensor of self's dtype */
static TsTensor *
saved_other (TsGradNode  *node,
             TsTensor    *self,
             GError     **error)
{
  Attrs *attrs = ATTRS;
  TsScalar value = { TS_DTYPE_FLOAT64, attrs->scalar, (gint64) attrs->scalar };
  g_autoptr(TsTensor) other = NULL;

  if (!attrs->has_scalar)
    return ts_autograd_saved (node, attrs->other_slot, error);
  other = ts_tensor_new_empty (ts_tensor_get_device (self), self->dtype, 0, NULL, FALSE, error);
  if (other == NULL || !ts_ops_fill (other, &value, error))
    return NULL;
  return g_steal_pointer (&other);
}

/* maximum (wins: GT) and minimum (LT): each input gets the gradient where
 * it was picked, half of it on ties */
static gboolean
extremum_backward (TsGradNode  *node,
                   TsTensor    *grad,
                   TsBinaryOp   wins,
                   TsTensor   **grad_inputs,
                   guint        n_inputs,
                   GError     **error)
{
  g_autoptr(TsTensor) self = ts_autograd_saved (node, ATTRS->self_slot, error);
  g_autoptr(TsTensor) other = self != NULL ? saved_other (node, self, error) : NULL;
  g_autoptr(TsTensor) ties = NULL;

  if (other == NULL || (ties = binary (TS_BINARY_EQ, self, other, error)) == NULL)
    return FALSE;
  for (guint i = 0; i < n_inputs; i++)
    if (ts_grad_node_needs_input_grad (node, i))
      {
        g_autoptr(TsTensor) mask = i == 0 ? binary (wins, self, other, error)
                                          : binary (wins, other, self, error);

        if (mask == NULL || (grad_inputs[i] = select_grad (grad, mask, ties, error)) == NULL)
          return FALSE;
      }
  return TRUE;
}

TS_BACKWARD_FN (ts_backward_maximum)
{
  return extremum_backward (node, GRAD, TS_BINARY_GT, grad_inputs, n_inputs, error);
}

TS_BACKWARD_FN (ts_backward_minimum)
{
  return extremum_backward (node, GRAD, TS_BINARY_LT, grad_inputs, n_inputs, error);
}

/* A number as self (2 op x): PyTorch has no such form of these ops; the
 * node is torch::autograd::NotImplemented's, with its message */
static gboolean
refuse_reversed (TsGradNode  *node,
                 const char  *op,
                 GError     **error)
{
  if (!ATTRS->reversed)
    return FALSE;
  g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME, "derivative for aten::%s is not implemented", op);
  return TRUE;
}

/* atan2: with recip = 1 / (self^2 + other^2), self: grad * other * recip,
 * other: grad * -self * recip (derivatives.yaml's atan2_backward) */
TS_BACKWARD_FN (ts_backward_atan2)
{
  g_autoptr(TsTensor) self = NULL;
  g_autoptr(TsTensor) other = NULL;
  g_autoptr(TsTensor) ss = NULL;
  g_autoptr(TsTensor) oo = NULL;
  g_autoptr(TsTensor) sum = NULL;
  g_autoptr(TsTensor) recip = NULL;

  if (refuse_reversed (node, "atan2", error) ||
      (self = ts_autograd_saved (node, ATTRS->self_slot, error)) == NULL ||
      (other = saved_other (node, self, error)) == NULL ||
      (ss = ts_autograd_mul (self, self, error)) == NULL ||
      (oo = ts_autograd_mul (other, other, error)) == NULL ||
      (sum = ts_autograd_add (ss, oo, error)) == NULL ||
      (recip = ts_autograd_binary_scalar (TS_BINARY_DIV, sum, 1, TRUE, error)) == NULL)
    return FALSE;
  for (guint i = 0; i < MIN (n_inputs, 2); i++)
    if (ts_grad_node_needs_input_grad (node, i))
      {
        g_autoptr(TsTensor) factor = i == 0 ? ts_tensor_ref (other) : ts_autograd_neg (self, error);
        g_autoptr(TsTensor) g = factor != NULL ? ts_autograd_mul (GRAD, factor, error) : NULL;

        if (g == NULL || (grad_inputs[i] = ts_autograd_mul (g, recip, error)) == NULL)
          return FALSE;
      }
  return TRUE;
}

/* hypot: self: grad * self / result, other: grad * other / result */
TS_BACKWARD_FN (ts_backward_hypot)
{
  g_autoptr(TsTensor) self = NULL;
  g_autoptr(TsTensor) other = NULL;
  g_autoptr(TsTensor) result = NULL;

  if (refuse_reversed (node, "hypot", error) ||
      (self = ts_autograd_saved (node, ATTRS->self_slot, error)) == NULL ||
      (other = saved_other (node, self, error)) == NULL ||
      (result = ts_autograd_saved (node, ATTRS->result_slot, error)) == NULL)
    return FALSE;
  for (guint i = 0; i < MIN (n_inputs, 2); i++)
    if (ts_grad_node_needs_input_grad (node, i))
      {
        g_autoptr(TsTensor) g = ts_autograd_mul (GRAD, i == 0 ? self : other, error);

        if (g == NULL || (grad_inputs[i] = ts_autograd_div (g, result, error)) == NULL)
          return FALSE;
      }
  return TRUE;
}

/* copysign: self: grad * (result / self), 0 where self is 0; other: zeros
 * (copysign_tensor_self_backward) */
TS_BACKWARD_FN (ts_backward_copysign)
{
  TsScalar zero = { TS_DTYPE_INT64, 0, 0 };
  g_autoptr(TsTensor) self = NULL;
  g_autoptr(TsTensor) result = NULL;
  g_autoptr(TsTensor) ratio = NULL;
  g_autoptr(TsTensor) at_zero = NULL;

  if (refuse_reversed (node, "copysign", error) ||
      (self = ts_autograd_saved (node, ATTRS->self_slot, error)) == NULL ||
      (result = ts_autograd_saved (node, ATTRS->result_slot, error)) == NULL)
    return FALSE;
  if (ts_grad_node_needs_input_grad (node, 0) &&
      ((ratio = ts_autograd_div (result, self, error)) == NULL ||
       (at_zero = ts_autograd_binary_scalar (TS_BINARY_EQ, self, 0, FALSE, error)) == NULL ||
       !ts_ops_masked_fill_ (ratio, at_zero, &zero, error) ||
       (grad_inputs[0] = ts_autograd_mul (GRAD, ratio, error)) == NULL))
    return FALSE;
  if (n_inputs > 1 && ts_grad_node_needs_input_grad (node, 1) &&
      (grad_inputs[1] = ts_autograd_binary_scalar (TS_BINARY_MUL, GRAD, 0, FALSE, error)) == NULL)
    return FALSE;
  return TRUE;
}

/* neg: self: grad.neg() */
TS_BACKWARD_FN (ts_backward_neg)
{
  RETURN_GRAD (ts_autograd_neg (GRAD, error));
}

/* abs: self: grad * self.sgn(), as grad * (self > 0) - grad * (self < 0) */
TS_BACKWARD_FN (ts_backward_abs)
{
  TsScalar zero = { TS_DTYPE_INT64, 0, 0 };
  g_autoptr(TsTensor) self = ts_autograd_saved (node, ATTRS->self_slot, error);
  g_autoptr(TsTensor) pos = NULL;
  g_autoptr(TsTensor) neg = NULL;
  g_autoptr(TsTensor) gpos = NULL;
  g_autoptr(TsTensor) gneg = NULL;

  if (self == NULL ||
      (pos = ts_ops_binary (TS_BINARY_GT, self, NULL, &zero, FALSE, NULL, error)) == NULL ||
      (neg = ts_ops_binary (TS_BINARY_LT, self, NULL, &zero, FALSE, NULL, error)) == NULL ||
      (gpos = ts_autograd_mul (GRAD, pos, error)) == NULL ||
      (gneg = ts_autograd_mul (GRAD, neg, error)) == NULL)
    return FALSE;
  RETURN_GRAD (ts_autograd_sub (gpos, gneg, error));
}

/* exp: self: grad * result */
TS_BACKWARD_FN (ts_backward_exp)
{
  g_autoptr(TsTensor) result = ts_autograd_saved (node, ATTRS->result_slot, error);

  return result != NULL && (grad_inputs[0] = ts_autograd_mul (GRAD, result, error)) != NULL;
}

/* log: self: grad.div(self) */
TS_BACKWARD_FN (ts_backward_log)
{
  g_autoptr(TsTensor) self = ts_autograd_saved (node, ATTRS->self_slot, error);

  return self != NULL && (grad_inputs[0] = ts_autograd_div (GRAD, self, error)) != NULL;
}

/* sqrt: self: grad / (2 * result) */
TS_BACKWARD_FN (ts_backward_sqrt)
{
  g_autoptr(TsTensor) result = ts_autograd_saved (node, ATTRS->result_slot, error);
  g_autoptr(TsTensor) twice = NULL;

  if (result == NULL || (twice = ts_autograd_binary_scalar (TS_BINARY_MUL, result, 2, FALSE, error)) == NULL)
    return FALSE;
  RETURN_GRAD (ts_autograd_div (GRAD, twice, error));
}

/* grad * f(self), f a unary op; negated for cos */
static gboolean
grad_times_unary (TsGradNode  *node,
                  TsTensor    *grad,
                  TsUnaryOp    op,
                  gboolean     negate,
                  TsTensor   **out,
                  GError     **error)
{
  g_autoptr(TsTensor) self = ts_autograd_saved (node, ATTRS->self_slot, error);
  g_autoptr(TsTensor) f = NULL;
  g_autoptr(TsTensor) gf = NULL;

  if (self == NULL || (f = ts_ops_unary (op, self, error)) == NULL ||
      (gf = ts_autograd_mul (grad, f, error)) == NULL)
    return FALSE;
  *out = negate ? ts_autograd_neg (gf, error) : g_steal_pointer (&gf);
  return *out != NULL;
}

/* sin: self: grad * self.cos() */
TS_BACKWARD_FN (ts_backward_sin)
{
  return grad_times_unary (node, GRAD, TS_UNARY_COS, FALSE, &grad_inputs[0], error);
}

/* cos: self: grad * -self.sin() */
TS_BACKWARD_FN (ts_backward_cos)
{
  return grad_times_unary (node, GRAD, TS_UNARY_SIN, TRUE, &grad_inputs[0], error);
}

gboolean
ts_autograd_grad_times_factor (TsGradNode  *node,
                               TsTensor    *grad,
                               int          slot,
                               TsFactorFn   factor,
                               TsTensor   **out,
                               GError     **error)
{
  g_autoptr(TsTensor) t = ts_autograd_saved (node, slot, error);
  g_autoptr(TsTensor) f = NULL;

  if (t == NULL || (f = factor (t, error)) == NULL)
    return FALSE;
  *out = ts_autograd_mul (grad, f, error);
  return *out != NULL;
}

/* t * t + c */
static TsTensor *
square_plus (TsTensor  *t,
             double     c,
             GError   **error)
{
  g_autoptr(TsTensor) tt = ts_autograd_mul (t, t, error);

  return tt != NULL ? ts_autograd_binary_scalar (TS_BINARY_ADD, tt, c, FALSE, error) : NULL;
}

/* tan: grad * (1 + result^2) */
static TsTensor *
tan_factor (TsTensor *result, GError **error)
{
  return square_plus (result, 1, error);
}

/* atan: grad / (1 + self^2) */
static TsTensor *
atan_factor (TsTensor *self, GError **error)
{
  g_autoptr(TsTensor) sp = square_plus (self, 1, error);

  return sp != NULL ? ts_autograd_binary_scalar (TS_BINARY_DIV, sp, 1, TRUE, error) : NULL;
}

/* asinh: grad * (self^2 + 1).rsqrt() */
static TsTensor *
asinh_factor (TsTensor *self, GError **error)
{
  g_autoptr(TsTensor) sp = square_plus (self, 1, error);

  return sp != NULL ? ts_ops_unary (TS_UNARY_RSQRT, sp, error) : NULL;
}

/* sinh: grad * self.cosh(); cosh: grad * self.sinh() */
static TsTensor *
sinh_factor (TsTensor *self, GError **error)
{
  return ts_ops_unary (TS_UNARY_COSH, self, error);
}

static TsTensor *
cosh_factor (TsTensor *self, GError **error)
{
  return ts_ops_unary (TS_UNARY_SINH, self, error);
}

/* expm1: grad * (result + 1); exp2: grad * result * ln 2 */
static TsTensor *
expm1_factor (TsTensor *result, GError **error)
{
  return ts_autograd_binary_scalar (TS_BINARY_ADD, result, 1, FALSE, error);
}

static TsTensor *
exp2_factor (TsTensor *result, GError **error)
{
  return ts_autograd_binary_scalar (TS_BINARY_MUL, result, M_LN2, FALSE, error);
}

/* log2: grad / (self * ln 2); log10: grad / (self * ln 10); log1p:
 * grad / (self + 1) */
static TsTensor *
log2_factor (TsTensor *self, GError **error)
{
  return ts_autograd_binary_scalar (TS_BINARY_DIV, self, 1 / M_LN2, TRUE, error);
}

static TsTensor *
log10_factor (TsTensor *self, GError **error)
{
  return ts_autograd_binary_scalar (TS_BINARY_DIV, self, 1 / M_LN10, TRUE, error);
}

static TsTensor *
log1p_factor (TsTensor *self, GError **error)
{
  g_autoptr(TsTensor) plus = ts_autograd_binary_scalar (TS_BINARY_ADD, self, 1, FALSE, error);

  return plus != NULL ? ts_autograd_binary_scalar (TS_BINARY_DIV, plus, 1, TRUE, error) : NULL;
}

/* rsqrt: grad * -0.5 * result^3 */
static TsTensor *
rsqrt_factor (TsTensor *result, GError **error)
{
  g_autoptr(TsTensor) rr = ts_autograd_mul (result, result, error);
  g_autoptr(TsTensor) rrr = rr != NULL ? ts_autograd_mul (rr, result, error) : NULL;

  return rrr != NULL ? ts_autograd_binary_scalar (TS_BINARY_MUL, rrr, -0.5, FALSE, error) : NULL;
}

/* erf: grad * 2 / sqrt(pi) * exp(-self^2); erfc: its negation */
static TsTensor *
erf_scaled (TsTensor *self, double scale, GError **error)
{
  g_autoptr(TsTensor) sq = ts_autograd_mul (self, self, error);
  g_autoptr(TsTensor) neg = sq != NULL ? ts_autograd_neg (sq, error) : NULL;
  g_autoptr(TsTensor) e = neg != NULL ? ts_autograd_exp (neg, error) : NULL;

  return e != NULL ? ts_autograd_binary_scalar (TS_BINARY_MUL, e, scale * M_2_SQRTPI, FALSE, error) : NULL;
}

static TsTensor *
erf_factor (TsTensor *self, GError **error)
{
  return erf_scaled (self, 1, error);
}

static TsTensor *
erfc_factor (TsTensor *self, GError **error)
{
  return erf_scaled (self, -1, error);
}

FACTOR_FORMULA (tan, result_slot)
FACTOR_FORMULA (atan, self_slot)
FACTOR_FORMULA (asinh, self_slot)
FACTOR_FORMULA (sinh, self_slot)
FACTOR_FORMULA (cosh, self_slot)
FACTOR_FORMULA (expm1, result_slot)
FACTOR_FORMULA (exp2, result_slot)
FACTOR_FORMULA (log2, self_slot)
FACTOR_FORMULA (log10, self_slot)
FACTOR_FORMULA (log1p, self_slot)
FACTOR_FORMULA (rsqrt, result_slot)
FACTOR_FORMULA (erf, self_slot)
FACTOR_FORMULA (erfc, self_slot)

/* floor, ceil, round, trunc, sign, and div with a rounding mode (each of
 * its tensor inputs): grad * 0, piecewise constant */
TS_BACKWARD_FN (ts_backward_zero)
{
  for (guint i = 0; i < n_inputs; i++)
    if ((n_inputs == 1 || ts_grad_node_needs_input_grad (node, i)) &&
        (grad_inputs[i] = ts_autograd_binary_scalar (TS_BINARY_MUL, GRAD, 0, FALSE, error)) == NULL)
      return FALSE;
  return TRUE;
}

/* frac: self: grad */
TS_BACKWARD_FN (ts_backward_frac)
{
  RETURN_GRAD (ts_tensor_ref (GRAD));
}

/* grad * (1 - result * result) for tanh, grad * result * (1 - result) for
 * sigmoid */
static gboolean
result_polynomial (TsGradNode  *node,
                   TsTensor    *grad,
                   gboolean     square,
                   TsTensor   **out,
                   GError     **error)
{
  g_autoptr(TsTensor) result = ts_autograd_saved (node, ATTRS->result_slot, error);
  g_autoptr(TsTensor) rr = NULL;
  g_autoptr(TsTensor) one_minus = NULL;
  g_autoptr(TsTensor) g = NULL;

  if (result == NULL ||
      (rr = square ? ts_autograd_mul (result, result, error) : ts_tensor_ref (result)) == NULL ||
      (one_minus = ts_autograd_binary_scalar (TS_BINARY_SUB, rr, 1, TRUE, error)) == NULL ||
      (g = ts_autograd_mul (grad, one_minus, error)) == NULL)
    return FALSE;
  *out = square ? g_steal_pointer (&g) : ts_autograd_mul (g, result, error);
  return *out != NULL;
}

TS_BACKWARD_FN (ts_backward_tanh)
{
  return result_polynomial (node, GRAD, TRUE, &grad_inputs[0], error);
}

TS_BACKWARD_FN (ts_backward_sigmoid)
{
  return result_polynomial (node, GRAD, FALSE, &grad_inputs[0], error);
}

/* relu: self: threshold_backward(grad, result, 0): one launch of that
 * kernel, as PyTorch's. Under create_graph (grad mode on) it is
 * grad * (result > 0), whose ops record their own nodes; so are the half
 * types, which the activation kernels would convert there and back. */
TS_BACKWARD_FN (ts_backward_relu)
{
  TsScalar zero = { TS_DTYPE_INT64, 0, 0 };
  g_autoptr(TsTensor) result = ts_autograd_saved (node, ATTRS->result_slot, error);
  g_autoptr(TsTensor) mask = NULL;

  if (result == NULL)
    return FALSE;
  /* PyTorch's threshold_backward (grad, result, 0): one kernel and one
   * allocation, where a mask and a product would hold a second tensor
   * (float16/bfloat16 keep the mask: the kernel computes in float copies) */
  if (!ts_autograd_is_grad_enabled () && GRAD->dtype == result->dtype &&
      (result->dtype == TS_DTYPE_FLOAT32 || result->dtype == TS_DTYPE_FLOAT64))
    {
      TsAct threshold = { 0 };

      RETURN_GRAD (ts_ops_activation_backward (TS_ACT_THRESHOLD, &threshold, GRAD, result, error));
    }
  if ((mask = ts_ops_binary (TS_BINARY_GT, result, NULL, &zero, FALSE, NULL, error)) == NULL)
    return FALSE;
  RETURN_GRAD (ts_autograd_mul (GRAD, mask, error));
}

/* reciprocal: self: -grad * (result * result) */
TS_BACKWARD_FN (ts_backward_reciprocal)
{
  g_autoptr(TsTensor) result = ts_autograd_saved (node, ATTRS->result_slot, error);
  g_autoptr(TsTensor) rr = NULL;
  g_autoptr(TsTensor) neg = NULL;

  if (result == NULL || (rr = ts_autograd_mul (result, result, error)) == NULL ||
      (neg = ts_autograd_neg (GRAD, error)) == NULL)
    return FALSE;
  RETURN_GRAD (ts_autograd_mul (neg, rr, error));
}

/* to, clone, contiguous: self: grad.to(self's device and dtype);
 * self.copy_(src) (inputs self, src): self: zeros (none), src: the same
 * for src */
TS_BACKWARD_FN (ts_backward_to_copy)
{
  guint src = n_inputs - 1;
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, src);

  if (!ts_grad_node_needs_input_grad (node, src))
    return TRUE;
  grad_inputs[src] = ts_ops_to (GRAD, info->device, info->dtype, FALSE, FALSE, error);
  return grad_inputs[src] != NULL;
}

/* sum(), mean(): self: grad.expand(self.sizes()) [/ self.numel()] */
static gboolean
expand_to_input (TsGradNode  *node,
                 TsTensor    *grad,
                 TsTensor   **out,
                 GError     **error)
{
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);
  const Attrs *attrs = ATTRS;
  g_autoptr(TsTensor) kept = NULL;

  if (!attrs->keepdim && attrs->n_dims > 0)
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

TS_BACKWARD_FN (ts_backward_sum)
{
  return expand_to_input (node, GRAD, &grad_inputs[0], error);
}

/* The number of elements a reduction's node reduced into each of its */
static gint64
reduced_numel (TsGradNode *node)
{
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);
  const Attrs *attrs = ATTRS;
  gint64 numel = 1;

  if (attrs->n_dims == 0)
    for (guint i = 0; i < info->ndim; i++)
      numel *= info->shape[i];
  for (guint i = 0; i < attrs->n_dims; i++)
    numel *= info->shape[attrs->dims[i]];
  return numel;
}

/* mean: sum's, divided by the number of elements reduced */
TS_BACKWARD_FN (ts_backward_mean)
{
  g_autoptr(TsTensor) expanded = NULL;

  if (!expand_to_input (node, GRAD, &expanded, error))
    return FALSE;
  RETURN_GRAD (ts_autograd_div_scalar (expanded, (double) reduced_numel (node), error));
}

/* var: self: (2 / (n - correction)) * grad * (self - self.mean (dims,
 * keepdim)), grad expanded as sum's (PyTorch's var_backward); the
 * correction is the node's scalar */
static gboolean
var_backward (TsGradNode  *node,
              TsTensor    *grad,
              TsTensor   **grad_input,
              GError     **error)
{
  const Attrs *attrs = ATTRS;
  g_autoptr(TsTensor) self = ts_autograd_saved (node, attrs->self_slot, error);
  g_autoptr(TsTensor) mean = NULL;
  g_autoptr(TsTensor) centered = NULL;
  g_autoptr(TsTensor) expanded = NULL;
  g_autoptr(TsTensor) scaled = NULL;
  gint64 n = reduced_numel (node);

  if (self == NULL)
    return FALSE;
  if ((mean = ts_ops_reduce (TS_OP_MEAN, self, attrs->dims, attrs->n_dims, TRUE, TS_DTYPE_UNDEFINED, error)) == NULL ||
      (centered = ts_autograd_sub (self, mean, error)) == NULL ||
      !expand_to_input (node, grad, &expanded, error) ||
      (scaled = ts_autograd_binary_scalar (TS_BINARY_MUL, expanded, 2.0 / ((double) n - attrs->scalar), FALSE,
                                           error)) == NULL)
    return FALSE;
  return (*grad_input = ts_autograd_mul (scaled, centered, error)) != NULL;
}

TS_BACKWARD_FN (ts_backward_var)
{
  return var_backward (node, GRAD, &grad_inputs[0], error);
}

/* num / den, 0 where @at is 0: the masked_fill_ (at == 0, 0) of
 * PyTorch's norm and std backward formulas */
static TsTensor *
quotient_zero_at_zero (TsTensor  *num,
                       TsTensor  *den,
                       TsTensor  *at,
                       GError   **error)
{
  g_autoptr(TsTensor) quotient = NULL;
  g_autoptr(TsTensor) is_zero = NULL;
  g_autoptr(TsTensor) zero = NULL;
  TsScalar nought = { TS_DTYPE_FLOAT64, 0.0, 0 };

  if ((quotient = ts_autograd_div (num, den, error)) == NULL ||
      (is_zero = ts_autograd_binary_scalar (TS_BINARY_EQ, at, 0.0, FALSE, error)) == NULL ||
      (zero = ts_autograd_new_full (ts_tensor_get_device (quotient), quotient->dtype, 0, NULL, &nought,
                                    error)) == NULL)
    return NULL;
  return ts_ops_where (is_zero, zero, quotient, error);
}

/* std: var's with grad / (2 * result), 0 where the result is 0 (PyTorch's
 * std_backward) */
TS_BACKWARD_FN (ts_backward_std)
{
  g_autoptr(TsTensor) result = ts_autograd_saved (node, ATTRS->result_slot, error);
  g_autoptr(TsTensor) twice = NULL;
  g_autoptr(TsTensor) grad_var = NULL;

  if (result == NULL ||
      (twice = ts_autograd_binary_scalar (TS_BINARY_MUL, result, 2.0, FALSE, error)) == NULL ||
      (grad_var = quotient_zero_at_zero (GRAD, twice, result, error)) == NULL)
    return FALSE;
  return var_backward (node, grad_var, &grad_inputs[0], error);
}

/* softmax: self: _softmax_backward_data (grad, result, dim), which is
 * result * (grad - (grad * result).sum (dim, keepdim)) */
TS_BACKWARD_FN (ts_backward_softmax)
{
  g_autoptr(TsTensor) result = ts_autograd_saved (node, ATTRS->result_slot, error);
  g_autoptr(TsTensor) gy = NULL;
  g_autoptr(TsTensor) dot = NULL;
  g_autoptr(TsTensor) centered = NULL;

  if (result == NULL)
    return FALSE;
  /* Without a graph to record, PyTorch's one _softmax_backward_data
   * kernel: one allocation of the input's size */
  if (!ts_autograd_is_grad_enabled () && GRAD->dtype == result->dtype)
    RETURN_GRAD (ts_ops_softmax_backward (GRAD, result, ATTRS->dims[0], FALSE, error));
  if ((gy = ts_autograd_mul (GRAD, result, error)) == NULL ||
      (dot = ts_autograd_sum_dims (gy, ATTRS->dims, 1, TRUE, error)) == NULL ||
      (centered = ts_autograd_sub (GRAD, dot, error)) == NULL)
    return FALSE;
  RETURN_GRAD (ts_autograd_mul (result, centered, error));
}

/* log_softmax: self: _log_softmax_backward_data (grad, result, dim), which
 * is grad - result.exp () * grad.sum (dim, keepdim) */
TS_BACKWARD_FN (ts_backward_log_softmax)
{
  g_autoptr(TsTensor) result = ts_autograd_saved (node, ATTRS->result_slot, error);
  g_autoptr(TsTensor) p = NULL;
  g_autoptr(TsTensor) total = NULL;
  g_autoptr(TsTensor) share = NULL;

  if (result == NULL)
    return FALSE;
  /* Without a graph to record, PyTorch's one _log_softmax_backward_data
   * kernel: one allocation of the input's size (a composition held three:
   * for a 50257-class loss, three 1.5 GiB blocks) */
  if (!ts_autograd_is_grad_enabled () && GRAD->dtype == result->dtype)
    RETURN_GRAD (ts_ops_softmax_backward (GRAD, result, ATTRS->dims[0], TRUE, error));
  if ((p = ts_autograd_exp (result, error)) == NULL ||
      (total = ts_autograd_sum_dims (GRAD, ATTRS->dims, 1, TRUE, error)) == NULL ||
      (share = ts_autograd_mul (p, total, error)) == NULL)
    return FALSE;
  RETURN_GRAD (ts_autograd_sub (GRAD, share, error));
}

/* The index gathering ops give their gradient back with scatter_add_
 * into zeros of the input's shape, at the positions read. */
static gboolean
scatter_add_back (TsGradNode  *node,
                  TsTensor    *grad,
                  TsTensor    *index,
                  TsTensor   **out,
                  GError     **error)
{
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);
  g_autoptr(TsTensor) zeros = ts_autograd_new_filled (info, 0, error);

  if (zeros == NULL || !ts_ops_scatter_ (zeros, ATTRS->dims[0], index, grad, TRUE, error))
    return FALSE;
  *out = g_steal_pointer (&zeros);
  return TRUE;
}

/* gather: self: gather_backward (grad, self, dim, index), a scatter_add of
 * grad at index */
TS_BACKWARD_FN (ts_backward_gather)
{
  g_autoptr(TsTensor) index = ts_autograd_saved (node, ATTRS->extra_slot, error);

  return index != NULL && scatter_add_back (node, GRAD, index, &grad_inputs[0], error);
}

/* index_select: self: index_select_backward, index_add of grad along dim;
 * here a scatter_add with the index vector spread over grad's shape (a
 * view moving along dim only) */
TS_BACKWARD_FN (ts_backward_index_select)
{
  g_autoptr(TsTensor) index = ts_autograd_saved (node, ATTRS->extra_slot, error);
  g_autoptr(TsTensor) i64 = NULL;
  g_autoptr(TsTensor) spread = NULL;
  gint64 strides[TS_MAX_DIMS] = { 0 };

  if (index == NULL ||
      (i64 = index->dtype == TS_DTYPE_INT64 ? ts_tensor_ref (index)
                                            : ts_ops_to (index, ts_tensor_get_device (index), TS_DTYPE_INT64,
                                                         FALSE, TRUE, error)) == NULL)
    return FALSE;
  if (GRAD->ndim > 0)
    strides[ATTRS->dims[0]] = i64->ndim > 0 ? i64->strides[0] : 0;
  spread = ts_tensor_new_view (i64->storage, TS_DTYPE_INT64, GRAD->ndim, GRAD->shape, strides, i64->offset);
  return scatter_add_back (node, GRAD, spread, &grad_inputs[0], error);
}

/* clamp_min: self: where (self >= min, grad, 0), min: where (self < min,
 * grad, 0); clamp_max the same with <= and >: ties go to self */
static gboolean
clamp_backward (TsGradNode  *node,
                TsTensor    *grad,
                TsBinaryOp   keeps,
                TsBinaryOp   passes,
                TsTensor   **grad_inputs,
                guint        n_inputs,
                GError     **error)
{
  g_autoptr(TsTensor) self = ts_autograd_saved (node, ATTRS->self_slot, error);
  g_autoptr(TsTensor) other = self != NULL ? saved_other (node, self, error) : NULL;

  if (other == NULL)
    return FALSE;
  for (guint i = 0; i < n_inputs; i++)
    if (ts_grad_node_needs_input_grad (node, i))
      {
        g_autoptr(TsTensor) mask = binary (i == 0 ? keeps : passes, self, other, error);

        if (mask == NULL || (grad_inputs[i] = ts_autograd_mul (grad, mask, error)) == NULL)
          return FALSE;
      }
  return TRUE;
}

TS_BACKWARD_FN (ts_backward_clamp_min)
{
  return clamp_backward (node, GRAD, TS_BINARY_GE, TS_BINARY_LT, grad_inputs, n_inputs, error);
}

TS_BACKWARD_FN (ts_backward_clamp_max)
{
  return clamp_backward (node, GRAD, TS_BINARY_LE, TS_BINARY_GT, grad_inputs, n_inputs, error);
}

/* clamp with number bounds (ClampBackward1): self: grad where
 * min <= self <= max, else 0 (a NaN self too), as clamp_backward */
TS_BACKWARD_FN (ts_backward_clamp)
{
  g_autoptr(TsTensor) self = ts_autograd_saved (node, ATTRS->self_slot, error);
  g_autoptr(TsTensor) above = NULL;
  g_autoptr(TsTensor) below = NULL;
  g_autoptr(TsTensor) mask = NULL;

  if (self == NULL ||
      (above = ts_autograd_binary_scalar (TS_BINARY_GE, self, ATTRS->scalar, FALSE, error)) == NULL ||
      (below = ts_autograd_binary_scalar (TS_BINARY_LE, self, ATTRS->scalar2, FALSE, error)) == NULL ||
      (mask = binary (TS_BINARY_LOGICAL_AND, above, below, error)) == NULL)
    return FALSE;
  RETURN_GRAD (ts_autograd_mul (GRAD, mask, error));
}

/* A reduction's saved self, and its saved result and @grad_out reshaped
 * with the reduced dims (all where none are named) restored as size 1,
 * so that they broadcast over self */
static gboolean
reduced_operands (TsGradNode  *node,
                  TsTensor    *grad_out,
                  TsTensor   **self,
                  TsTensor   **kept,
                  TsTensor   **grad,
                  GError     **error)
{
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);
  const Attrs *attrs = ATTRS;
  g_autoptr(TsTensor) result = NULL;
  gint64 shape[TS_MAX_DIMS];

  memcpy (shape, info->shape, info->ndim * sizeof (gint64));
  for (guint i = 0; i < info->ndim; i++)
    if (attrs->n_dims == 0)
      shape[i] = 1;
  for (guint i = 0; i < attrs->n_dims; i++)
    shape[attrs->dims[i]] = 1;
  return (*self = ts_autograd_saved (node, attrs->self_slot, error)) != NULL &&
         (result = ts_autograd_saved (node, attrs->result_slot, error)) != NULL &&
         (*kept = ts_autograd_reshape (result, info->ndim, shape, error)) != NULL &&
         (*grad = ts_autograd_reshape (grad_out, info->ndim, shape, error)) != NULL;
}

/* norm with p 2 (NormBackward1): self * (grad / norm), 0 where the norm
 * is 0, as norm_backward */
TS_BACKWARD_FN (ts_backward_norm2)
{
  g_autoptr(TsTensor) self = NULL;
  g_autoptr(TsTensor) kept = NULL;
  g_autoptr(TsTensor) grad = NULL;
  g_autoptr(TsTensor) scaled = NULL;

  if (!reduced_operands (node, GRAD, &self, &kept, &grad, error) ||
      (scaled = quotient_zero_at_zero (grad, kept, kept, error)) == NULL)
    return FALSE;
  RETURN_GRAD (ts_autograd_mul (self, scaled, error));
}

/* max(), min() of all elements (evenly_distribute_backward) and amax,
 * amin over dims (scale_grad_by_count): the gradient shared evenly by the
 * elements equal to the result */
TS_BACKWARD_FN (ts_backward_amax)
{
  const Attrs *attrs = ATTRS;
  g_autoptr(TsTensor) self = NULL;
  g_autoptr(TsTensor) kept = NULL;
  g_autoptr(TsTensor) grad = NULL;
  g_autoptr(TsTensor) mask = NULL;
  g_autoptr(TsTensor) count = NULL;
  g_autoptr(TsTensor) masked = NULL;

  if (!reduced_operands (node, GRAD, &self, &kept, &grad, error) ||
      (mask = binary (TS_BINARY_EQ, self, kept, error)) == NULL ||
      (count = attrs->n_dims > 0 ? ts_ops_sum (mask, attrs->dims, attrs->n_dims, TRUE, TS_DTYPE_UNDEFINED, error)
                                 : ts_ops_sum (mask, NULL, 0, FALSE, TS_DTYPE_UNDEFINED, error)) == NULL ||
      (masked = ts_autograd_mul (mask, grad, error)) == NULL)
    return FALSE;
  RETURN_GRAD (ts_autograd_div (masked, count, error));
}

/* masked_fill_: self: grad.masked_fill (mask, 0), the filled positions
 * no longer depend on self */
TS_BACKWARD_FN (ts_backward_masked_fill)
{
  TsScalar zero = { TS_DTYPE_FLOAT64, 0, 0 };
  g_autoptr(TsTensor) mask = ts_autograd_saved (node, ATTRS->extra_slot, error);
  g_autoptr(TsTensor) grad = mask != NULL ? ts_ops_clone (GRAD, error) : NULL;

  if (grad == NULL || !ts_ops_masked_fill_ (grad, mask, &zero, error))
    return FALSE;
  grad_inputs[0] = g_steal_pointer (&grad);
  return TRUE;
}

/* tril, triu: self: grad.tril (diagonal), grad.triu (diagonal) */
TS_BACKWARD_FN (ts_backward_tril)
{
  RETURN_GRAD (ts_ops_triangle (GRAD, (gint64) ATTRS->scalar, FALSE, NULL, error));
}

TS_BACKWARD_FN (ts_backward_triu)
{
  RETURN_GRAD (ts_ops_triangle (GRAD, (gint64) ATTRS->scalar, TRUE, NULL, error));
}

/* flip: self: grad.flip (dims) */
TS_BACKWARD_FN (ts_backward_flip)
{
  guint64 mask = 0;

  for (guint i = 0; i < ATTRS->n_dims; i++)
    mask |= G_GUINT64_CONSTANT (1) << ATTRS->dims[i];
  RETURN_GRAD (ts_ops_flip (GRAD, mask, error));
}

/* cumsum: self: cumsum_backward (grad, dim), the reversed cumulative sum
 * grad.flip (dim).cumsum (dim).flip (dim) */
TS_BACKWARD_FN (ts_backward_cumsum)
{
  int dim = ATTRS->dims[0];
  guint64 mask = GRAD->ndim > 0 ? G_GUINT64_CONSTANT (1) << dim : 0;
  g_autoptr(TsTensor) flipped = ts_ops_flip (GRAD, mask, error);
  g_autoptr(TsTensor) sums = NULL;

  if (flipped == NULL ||
      (sums = ts_ops_scan (TS_OP_CUMSUM, flipped, dim, GRAD->dtype, NULL, error)) == NULL)
    return FALSE;
  RETURN_GRAD (ts_ops_flip (sums, mask, error));
}

/* max(dim), min(dim): value_selecting_reduction_backward, the gradient
 * put where indices point: grad * (arange(size) == indices) along dim */
TS_BACKWARD_FN (ts_backward_max_dim)
{
  const Attrs *attrs = ATTRS;
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);
  int dim = attrs->dims[0];
  gint64 shape[TS_MAX_DIMS];
  g_autoptr(TsTensor) indices = ts_autograd_saved (node, attrs->extra_slot, error);
  g_autoptr(TsTensor) kept = NULL;
  g_autoptr(TsTensor) grad = NULL;
  g_autoptr(TsTensor) range = NULL;
  g_autoptr(TsTensor) positions = NULL;
  g_autoptr(TsTensor) onehot = NULL;
  TsViewArgs unsqueeze = { .kind = TS_VIEW_UNSQUEEZE, .dim0 = dim };

  if (indices == NULL)
    return FALSE;
  if (info->ndim == 0)
    RETURN_GRAD (ts_tensor_ref (GRAD));
  /* without keepdim, put the reduced dim back */
  kept = attrs->keepdim ? ts_tensor_ref (indices) : ts_tensor_unsqueeze (indices, dim, error);
  grad = attrs->keepdim ? ts_tensor_ref (GRAD) : ts_autograd_view_op (GRAD, &unsqueeze, error);
  if (kept == NULL || grad == NULL)
    return FALSE;
  for (guint i = 0; i < info->ndim; i++)
    shape[i] = (int) i == dim ? info->shape[i] : 1;
  if ((range = ts_ops_arange (0, (double) info->shape[dim], 1, TS_DTYPE_INT64, info->device,
                              error)) == NULL ||
      (positions = ts_tensor_view (range, info->ndim, shape, error)) == NULL ||
      (onehot = binary (TS_BINARY_EQ, positions, kept, error)) == NULL)
    return FALSE;
  RETURN_GRAD (ts_autograd_mul (grad, onehot, error));
}

/* mm: self: grad.mm(mat2.t()), mat2: self.t().mm(grad) */
guint
ts_autograd_column_major_bit (const TsTensor *t,
                              guint           i)
{
  return t->ndim == 2 && t->strides[0] == 1 && t->strides[1] == t->shape[0] ? 1u << i : 0;
}

TsTensor *
ts_autograd_mm_operand_grad (TsTensor  *grad,
                             TsTensor  *other,
                             guint      i,
                             gboolean   column_major,
                             double     alpha,
                             GError   **error)
{
  g_autoptr(TsTensor) a = NULL;
  g_autoptr(TsTensor) b = NULL;
  g_autoptr(TsTensor) product = NULL;
  g_autoptr(TsTensor) laid = NULL;

  /* mat1: grad @ mat2^T, or (mat2 @ grad^T)^T; mat2: mat1^T @ grad, or
   * (grad^T @ mat1)^T */
  if (column_major)
    {
      a = i == 0 ? ts_tensor_ref (other) : ts_autograd_t (grad, error);
      b = a == NULL ? NULL : i == 0 ? ts_autograd_t (grad, error) : ts_tensor_ref (other);
    }
  else
    {
      a = i == 0 ? ts_tensor_ref (grad) : ts_autograd_t (other, error);
      b = a == NULL ? NULL : i == 0 ? ts_autograd_t (other, error) : ts_tensor_ref (grad);
    }
  if (b == NULL || (product = ts_autograd_mm (a, b, error)) == NULL ||
      (laid = column_major ? ts_autograd_t (product, error) : ts_tensor_ref (product)) == NULL)
    return NULL;
  if (alpha == 1)
    return g_steal_pointer (&laid);
  return ts_autograd_binary_scalar (TS_BINARY_MUL, laid, alpha, FALSE, error);
}

TS_BACKWARD_FN (ts_backward_mm)
{
  Attrs *attrs = ATTRS;

  for (guint i = 0; i < 2; i++)
    if (ts_grad_node_needs_input_grad (node, i))
      {
        g_autoptr(TsTensor) other = ts_autograd_saved (node, i == 0 ? attrs->other_slot
                                                                       : attrs->self_slot, error);

        if (other == NULL ||
            (grad_inputs[i] = ts_autograd_mm_operand_grad (GRAD, other, i, (attrs->column_major >> i) & 1, 1,
                                                           error)) == NULL)
          return FALSE;
      }
  return TRUE;
}

/* t: self: grad.t() */
static TS_BACKWARD_FN (t_backward)
{
  RETURN_GRAD (ts_autograd_t (GRAD, error));
}

/* expand: self: at::sum_to(grad, self.sizes()) */
static TS_BACKWARD_FN (expand_backward)
{
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);

  RETURN_GRAD (ts_autograd_sum_to (GRAD, info->ndim, info->shape, error));
}

/* view/reshape: self: grad.reshape(self.sizes()) */
static TS_BACKWARD_FN (view_backward)
{
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);

  RETURN_GRAD (ts_autograd_reshape (GRAD, info->ndim, info->shape, error));
}

/* transpose: self: grad.transpose(dim0, dim1) */
static TS_BACKWARD_FN (transpose_backward)
{
  const TsViewArgs *args = ts_grad_node_get_attrs (node);

  RETURN_GRAD (ts_autograd_view_op (GRAD, args, error));
}

/* the view again, recorded (SelectBackward0, SliceBackward0) */
static TS_BACKWARD_FN (index_view_double_backward)
{
  RETURN_GRAD (ts_autograd_view_op (GRAD, ts_grad_node_get_attrs (node), error));
}

/* select, slice: self: zeros of self's shape with grad in the view */
static TS_BACKWARD_FN (index_view_backward)
{
  const TsViewArgs *args = ts_grad_node_get_attrs (node);
  const TsGradTensorInfo *info = ts_grad_node_get_input_info (node, 0);
  TsScalar zero = { TS_DTYPE_INT64, 0, 0 };
  g_autoptr(TsTensor) zeros = NULL;
  g_autoptr(TsTensor) part = NULL;

  gboolean was = ts_autograd_set_grad_enabled (FALSE);
  gboolean ok;

  if ((zeros = ts_autograd_new_full (info->device, GRAD->dtype, info->ndim, info->shape, &zero, error)) == NULL)
    return FALSE;
  part = args->kind == TS_VIEW_SELECT
         ? ts_tensor_select (zeros, args->dim0, args->start, error)
         : ts_tensor_slice (zeros, args->dim0, args->start, args->stop, args->step, error);
  ok = part != NULL && ts_ops_copy (part, GRAD, FALSE, error);
  ts_autograd_set_grad_enabled (was);
  if (!ok)
    return FALSE;
  /* create_graph: select_backward / slice_backward are linear in grad,
   * their own gradient the view of the incoming one (derivatives.yaml) */
  {
    TsTensor *in = GRAD;
    g_autoptr(TsGradNode) twice = ts_autograd_record (args->kind == TS_VIEW_SELECT ? "SelectBackwardBackward0"
                                                                                   : "SliceBackwardBackward0",
                                                      index_view_double_backward, sizeof (TsViewArgs), &in, 1,
                                                      &zeros, 1);

    if (twice != NULL)
      *(TsViewArgs *) ts_grad_node_get_attrs (twice) = *args;
  }
  grad_inputs[0] = g_steal_pointer (&zeros);
  return TRUE;
}

static TsTensor *
take_view (TsTensor          *self,
           const TsViewArgs  *args,
           GError           **error)
{
  switch (args->kind)
    {
    case TS_VIEW_VIEW:
    case TS_VIEW_UNSAFE_VIEW:
    case TS_VIEW_SQUEEZE_INPLACE:
    case TS_VIEW_RESHAPE_ALIAS:
      return ts_tensor_view (self, args->ndim, args->shape, error);
    case TS_VIEW_EXPAND:
      return ts_tensor_expand (self, args->ndim, args->shape, error);
    case TS_VIEW_TRANSPOSE:
    case TS_VIEW_T:
      return ts_tensor_transpose (self, args->dim0, args->dim1, error);
    case TS_VIEW_UNSQUEEZE:
      return ts_tensor_unsqueeze (self, args->dim0, error);
    case TS_VIEW_SELECT:
      return ts_tensor_select (self, args->dim0, args->start, error);
    case TS_VIEW_SQUEEZE:
      /* index 0 of a size-1 dim drops it, strides kept */
      return ts_tensor_select (self, args->dim0, 0, error);
    case TS_VIEW_SLICE:
    default:
      return ts_tensor_slice (self, args->dim0, args->start, args->stop, args->step, error);
    }
}

/* _unsafe_view and squeeze_ of an op's fresh result: the result is not a
 * view of anything (no base, in-place ops on it need no CopySlices), and
 * the gradient is reshaped back as a view's is */
static TS_BACKWARD_FN (reshaped_result_backward)
{
  return view_backward (node, grad_outputs, n_outputs, grad_inputs, n_inputs, error);
}

gboolean
ts_autograd_check_inplace_view (const TsTensor  *tensor,
                                GError         **error)
{
  TsGradNode *node = ts_autograd_get_grad_fn (tensor, NULL);
  TsBackwardFn fn = node != NULL ? ts_grad_node_get_backward (node) : NULL;

  if (!ts_autograd_check_view_mode (tensor, error))
    return FALSE;
  /* a view that knows its base is rebased (CopySlices, ts-autograd-views.c) */
  if (!ts_autograd_is_grad_enabled () || ts_autograd_get_view_base (tensor) != NULL ||
      (fn != view_backward && fn != expand_backward && fn != transpose_backward &&
       fn != index_view_backward))
    return TRUE;
  g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_NOT_IMPLEMENTED,
               "an in-place operation on a view (output of %s) of a tensor that requires grad "
               "is not modeled by Tensorscope yet (PyTorch rebases the base's history with "
               "CopySlices)", ts_grad_node_get_name (node));
  return FALSE;
}

TsTensor *
ts_autograd_view_op (TsTensor          *self,
                     const TsViewArgs  *args,
                     GError           **error)
{
  static const struct { const char *name; TsBackwardFn backward; } nodes[] = {
    [TS_VIEW_VIEW] = { "ViewBackward0", view_backward },
    [TS_VIEW_EXPAND] = { "ExpandBackward0", expand_backward },
    [TS_VIEW_TRANSPOSE] = { "TransposeBackward0", transpose_backward },
    [TS_VIEW_UNSQUEEZE] = { "UnsqueezeBackward0", view_backward },
    [TS_VIEW_SELECT] = { "SelectBackward0", index_view_backward },
    [TS_VIEW_SLICE] = { "SliceBackward0", index_view_backward },
    [TS_VIEW_UNSAFE_VIEW] = { "UnsafeViewBackward0", reshaped_result_backward },
    [TS_VIEW_SQUEEZE_INPLACE] = { "SqueezeBackward3", reshaped_result_backward },
    [TS_VIEW_SQUEEZE] = { "SqueezeBackward1", view_backward },
    [TS_VIEW_RESHAPE_ALIAS] = { "ReshapeAliasBackward0", view_backward },
    [TS_VIEW_T] = { "TBackward0", transpose_backward },
  };
  TsTensor *out = take_view (self, args, error);
  TsGradNode *node;

  if (out == NULL)
    return NULL;
  if (args->kind != TS_VIEW_UNSAFE_VIEW && args->kind != TS_VIEW_SQUEEZE_INPLACE)
    ts_autograd_set_view_base (out, self);
  node = ts_autograd_record (nodes[args->kind].name, nodes[args->kind].backward,
                             sizeof (TsViewArgs), &self, 1, &out, 1);
  if (node != NULL)
    {
      TsViewArgs *attrs = ts_grad_node_get_attrs (node);

      *attrs = *args;
      /* select and slice keep their dim wrapped for the backward */
      ts_tensor_wrap_dim ((int) self->ndim, &attrs->dim0, NULL);
      ts_grad_node_unref (node);
    }
  return out;
}

/* ------------------------------------------------------------------ */
/* Differentiable ops: the op table records the ts_ops_* ones */

TsTensor *
ts_autograd_add (TsTensor  *a,
                 TsTensor  *b,
                 GError   **error)
{
  return binary (TS_BINARY_ADD, a, b, error);
}

TsTensor *
ts_autograd_sub (TsTensor  *a,
                 TsTensor  *b,
                 GError   **error)
{
  return binary (TS_BINARY_SUB, a, b, error);
}

TsTensor *
ts_autograd_mul (TsTensor  *a,
                 TsTensor  *b,
                 GError   **error)
{
  return binary (TS_BINARY_MUL, a, b, error);
}

TsTensor *
ts_autograd_div (TsTensor  *a,
                 TsTensor  *b,
                 GError   **error)
{
  return binary (TS_BINARY_DIV, a, b, error);
}

TsTensor *
ts_autograd_div_scalar (TsTensor  *a,
                        double     value,
                        GError   **error)
{
  return ts_autograd_binary_scalar (TS_BINARY_DIV, a, value, FALSE, error);
}

TsTensor *
ts_autograd_neg (TsTensor  *a,
                 GError   **error)
{
  return ts_ops_unary (TS_UNARY_NEG, a, error);
}

TsTensor *
ts_autograd_exp (TsTensor  *a,
                 GError   **error)
{
  return ts_ops_unary (TS_UNARY_EXP, a, error);
}

TsTensor *
ts_autograd_log (TsTensor  *a,
                 GError   **error)
{
  return ts_ops_unary (TS_UNARY_LOG, a, error);
}

TsTensor *
ts_autograd_relu (TsTensor  *a,
                  GError   **error)
{
  return ts_ops_unary (TS_UNARY_RELU, a, error);
}

TsTensor *
ts_autograd_sum (TsTensor  *a,
                 GError   **error)
{
  return ts_ops_sum (a, NULL, 0, FALSE, TS_DTYPE_UNDEFINED, error);
}

TsTensor *
ts_autograd_sum_dims (TsTensor   *a,
                      const int  *dims,
                      guint       n_dims,
                      gboolean    keepdim,
                      GError    **error)
{
  g_return_val_if_fail (n_dims > 0 && n_dims <= TS_MAX_DIMS, NULL);

  return ts_ops_sum (a, dims, n_dims, keepdim, TS_DTYPE_UNDEFINED, error);
}

TsTensor *
ts_autograd_mean (TsTensor  *a,
                  GError   **error)
{
  return ts_ops_mean (a, NULL, 0, FALSE, TS_DTYPE_UNDEFINED, error);
}

TsTensor *
ts_autograd_mm (TsTensor  *a,
                TsTensor  *b,
                GError   **error)
{
  return ts_ops_matmul (a, b, error);
}

TsTensor *
ts_autograd_t (TsTensor  *a,
               GError   **error)
{
  return record (ts_tensor_transpose (a, 0, a->ndim > 1 ? 1 : 0, error), "TBackward0",
                 t_backward, a);
}

TsTensor *
ts_autograd_expand (TsTensor      *a,
                    guint          ndim,
                    const gint64  *shape,
                    GError       **error)
{
  return record (ts_tensor_expand (a, ndim, shape, error), "ExpandBackward0", expand_backward, a);
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
                 contiguous);
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
