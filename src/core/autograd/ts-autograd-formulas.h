/* ts-autograd-formulas.h: reference backward formulas and the
 * differentiable ops they are written with
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The op table's BACKWARD column names a ts_backward_* formula per op;
 * ts-ops.c records the node through ts_autograd_record_op once it has
 * computed an op's output, so every ts_ops_* call with grad mode on and an
 * operand that requires grad builds the graph. The formulas are written
 * with those same ops, so a backward pass with create_graph records a
 * graph of its own (double backward). Views are not table ops: the
 * ts_autograd_t/expand/reshape below record their nodes themselves.
 *
 * Every function returns a new reference, or NULL with error set.
 */

#pragma once

#include "ts-autograd.h"
#include "ts-op-table.h"

G_BEGIN_DECLS

/* The attributes of every node the op table records: what the formulas
 * read besides saved tensors. */
typedef struct
{
  int      self_slot;    /* saved-tensor slots, -1: not saved */
  int      other_slot;
  int      result_slot;
  gboolean has_scalar;   /* a binary op with a number for other */
  gboolean reversed;     /* ...on the left: 2 - x */
  double   scalar;
  double   scalar2;      /* addmm's beta (scalar: its alpha) */
  /* mm, addmm: bit i set when matrix operand i (mat1, mat2) was a
   * transposed contiguous one, strides (1, rows): its gradient is computed
   * transposed so that it lands in that layout, as PyTorch's
   * mm_mat1_backward and mm_mat2_backward do (an nn.Linear weight's
   * gradient is then contiguous, and AccumulateGrad takes it uncopied) */
  guint    column_major;
  int      dims[TS_MAX_DIMS];  /* reductions over dims (wrapped); none: all */
  guint    n_dims;
  gboolean keepdim;
  gboolean no_formula;   /* a form the op's formula does not cover */
  /* one more tensor to save (max.dim's indices), in extra_slot */
  TsTensor *save_extra;
  int      extra_slot;
  /* an in-place op: self as it was (ts_autograd_original_self), saved
   * where the formula reads self */
  TsTensor *save_self;
} TsOpGradAttrs;

/* After an op computed out from inputs (n_inputs of the op's tensor
 * operands, NULL entries skipped): when grad mode is on and an input
 * requires grad, records desc's node named by form, with attrs (may be
 * NULL: none) and the tensors desc->saves names. */
void      ts_autograd_record_op  (const TsOpDesc       *desc,
                                  TsOpGradForm          form,
                                  TsTensor             *const *inputs,
                                  guint                 n_inputs,
                                  TsTensor             *out,
                                  const TsOpGradAttrs  *attrs);

/* matmul of a matrix or a vector with a vector, computed as mm into
 * @out: records MvBackward0 or DotBackward0 on (a, b)
 * (ts-autograd-formulas-join.c) */
void      ts_autograd_record_mv_dot (TsTensor             *a,
                                     TsTensor             *b,
                                     TsTensor             *out);

/* Before an in-place op (out is inputs[0]) whose formula reads self: a
 * copy of self, which the op is about to overwrite (PyTorch saves
 * self.clone()), for TsOpGradAttrs.save_self; NULL when the node will not
 * save self. */
TsTensor *ts_autograd_original_self (const TsOpDesc       *desc,
                                     TsTensor             *const *inputs,
                                     guint                 n_inputs,
                                     TsTensor             *out);

/* Bit @i of TsOpGradAttrs.column_major for matrix @t. */
guint     ts_autograd_column_major_bit (const TsTensor *t,
                                        guint           i);

/* The op table's formulas (the BACKWARD column's ts_backward_<formula>). */
#define TS_BACKWARD_DECLARE(formula) TS_BACKWARD_FN (ts_backward_##formula);
TS_BACKWARD_DECLARE (add)
TS_BACKWARD_DECLARE (where)
TS_BACKWARD_DECLARE (lerp)
TS_BACKWARD_DECLARE (addcmul)
TS_BACKWARD_DECLARE (addcdiv)
TS_BACKWARD_DECLARE (mv)
TS_BACKWARD_DECLARE (addmm)
TS_BACKWARD_DECLARE (sub)
TS_BACKWARD_DECLARE (mul)
TS_BACKWARD_DECLARE (div)
TS_BACKWARD_DECLARE (pow)
TS_BACKWARD_DECLARE (maximum)
TS_BACKWARD_DECLARE (atan2)
TS_BACKWARD_DECLARE (hypot)
TS_BACKWARD_DECLARE (copysign)
TS_BACKWARD_DECLARE (minimum)
TS_BACKWARD_DECLARE (neg)
TS_BACKWARD_DECLARE (abs)
TS_BACKWARD_DECLARE (exp)
TS_BACKWARD_DECLARE (log)
TS_BACKWARD_DECLARE (sqrt)
TS_BACKWARD_DECLARE (sin)
TS_BACKWARD_DECLARE (cos)
TS_BACKWARD_DECLARE (tanh)
TS_BACKWARD_DECLARE (sigmoid)
TS_BACKWARD_DECLARE (relu)
TS_BACKWARD_DECLARE (reciprocal)
TS_BACKWARD_DECLARE (to_copy)
TS_BACKWARD_DECLARE (sum)
TS_BACKWARD_DECLARE (mean)
TS_BACKWARD_DECLARE (var)
TS_BACKWARD_DECLARE (amax)
TS_BACKWARD_DECLARE (max_dim)
TS_BACKWARD_DECLARE (mm)
TS_BACKWARD_DECLARE (softmax)
TS_BACKWARD_DECLARE (log_softmax)
/* ts-autograd-formulas-pool.c */
TS_BACKWARD_DECLARE (max_pool2d)
TS_BACKWARD_DECLARE (avg_pool2d)
TS_BACKWARD_DECLARE (adaptive_avg_pool2d)
TS_BACKWARD_DECLARE (native_batch_norm)
TS_BACKWARD_DECLARE (native_group_norm)
TS_BACKWARD_DECLARE (native_layer_norm)
TS_BACKWARD_DECLARE (remap)
TS_BACKWARD_DECLARE (activation)
TS_BACKWARD_DECLARE (nll_loss)
TS_BACKWARD_DECLARE (nll_loss_backward)
/* ts-autograd-formulas-conv.c */
TS_BACKWARD_DECLARE (convolution_backward)
TS_BACKWARD_DECLARE (tan)
TS_BACKWARD_DECLARE (atan)
TS_BACKWARD_DECLARE (asinh)
TS_BACKWARD_DECLARE (sinh)
TS_BACKWARD_DECLARE (cosh)
TS_BACKWARD_DECLARE (expm1)
TS_BACKWARD_DECLARE (exp2)
TS_BACKWARD_DECLARE (log2)
TS_BACKWARD_DECLARE (log10)
TS_BACKWARD_DECLARE (log1p)
TS_BACKWARD_DECLARE (rsqrt)
TS_BACKWARD_DECLARE (erf)
TS_BACKWARD_DECLARE (erfc)
TS_BACKWARD_DECLARE (zero)
TS_BACKWARD_DECLARE (frac)
TS_BACKWARD_DECLARE (gather)
TS_BACKWARD_DECLARE (index_select)
TS_BACKWARD_DECLARE (tril)
TS_BACKWARD_DECLARE (triu)
TS_BACKWARD_DECLARE (flip)
TS_BACKWARD_DECLARE (cumsum)
TS_BACKWARD_DECLARE (clamp_min)
TS_BACKWARD_DECLARE (clamp_max)
TS_BACKWARD_DECLARE (clamp)
TS_BACKWARD_DECLARE (norm2)
TS_BACKWARD_DECLARE (std)
TS_BACKWARD_DECLARE (masked_fill)
/* ts-autograd-formulas-join.c */
TS_BACKWARD_DECLARE (cat)
TS_BACKWARD_DECLARE (stack)
TS_BACKWARD_DECLARE (bmm)
/* ts-autograd-formulas-math.c */
TS_BACKWARD_DECLARE (asin)
TS_BACKWARD_DECLARE (acos)
TS_BACKWARD_DECLARE (acosh)
TS_BACKWARD_DECLARE (atanh)
TS_BACKWARD_DECLARE (erfinv)
TS_BACKWARD_DECLARE (lgamma)
TS_BACKWARD_DECLARE (digamma)
TS_BACKWARD_DECLARE (remainder)
TS_BACKWARD_DECLARE (fmod)
TS_BACKWARD_DECLARE (prod)
TS_BACKWARD_DECLARE (cumprod)
/* ts-autograd-formulas-index.c */
TS_BACKWARD_DECLARE (index)
TS_BACKWARD_DECLARE (index_put)
TS_BACKWARD_DECLARE (scatter)
TS_BACKWARD_DECLARE (scatter_add)
TS_BACKWARD_DECLARE (embedding)
/* ts-autograd-formulas-conv.c */
TS_BACKWARD_DECLARE (convolution)

/* After aten::convolution computed out: records ConvolutionBackward0
 * (inputs input, weight, bias; bias may be NULL), saving input and weight
 * as PyTorch does. */
struct _TsConvParams;
void      ts_autograd_record_convolution (TsTensor                   *input,
                                          TsTensor                   *weight,
                                          TsTensor                   *bias,
                                          const struct _TsConvParams *params,
                                          TsTensor                   *out);

/* After aten::convolution_backward: its node ConvolutionBackwardBackward0
 * (inputs grad_output, input, weight; outputs the gradients computed, in
 * that order, NULL for those not asked) */
void      ts_autograd_record_convolution_backward (TsTensor                   *grad_output,
                                                   TsTensor                   *input,
                                                   TsTensor                   *weight,
                                                   const struct _TsConvParams *params,
                                                   TsTensor                   *grads[3]);

TsTensor *ts_autograd_add        (TsTensor *a, TsTensor *b, GError **error);
TsTensor *ts_autograd_sub        (TsTensor *a, TsTensor *b, GError **error);
TsTensor *ts_autograd_mul        (TsTensor *a, TsTensor *b, GError **error);
TsTensor *ts_autograd_div        (TsTensor *a, TsTensor *b, GError **error);
/* a / value (DivBackward1) */
TsTensor *ts_autograd_div_scalar (TsTensor *a, double value, GError **error);
TsTensor *ts_autograd_neg        (TsTensor *a, GError **error);
TsTensor *ts_autograd_exp        (TsTensor *a, GError **error);
TsTensor *ts_autograd_log        (TsTensor *a, GError **error);
TsTensor *ts_autograd_relu       (TsTensor *a, GError **error);
/* sum() (SumBackward0), sum(dims, keepdim) (SumBackward1), mean() */
TsTensor *ts_autograd_sum        (TsTensor *a, GError **error);
TsTensor *ts_autograd_sum_dims   (TsTensor *a, const int *dims, guint n_dims,
                                  gboolean keepdim, GError **error);
TsTensor *ts_autograd_mean       (TsTensor *a, GError **error);
/* torch.mm of two 2-D tensors; t() of a 2-D tensor */
TsTensor *ts_autograd_mm         (TsTensor *a, TsTensor *b, GError **error);
TsTensor *ts_autograd_t          (TsTensor *a, GError **error);
TsTensor *ts_autograd_expand     (TsTensor *a, guint ndim, const gint64 *shape,
                                  GError **error);
/* reshape: a view of a contiguous tensor, else of a contiguous copy */
TsTensor *ts_autograd_reshape    (TsTensor *a, guint ndim, const gint64 *shape,
                                  GError **error);
/* The views Python takes (not table ops: no kernel runs), recorded as
 * PyTorch's ViewBackward0, ExpandBackward0, TransposeBackward0,
 * UnsqueezeBackward0, SelectBackward0 and SliceBackward0. */
typedef enum
{
  TS_VIEW_VIEW,
  TS_VIEW_EXPAND,
  TS_VIEW_TRANSPOSE,
  TS_VIEW_UNSQUEEZE,
  TS_VIEW_SELECT,
  TS_VIEW_SLICE,
  /* at::_unsafe_view (matmul's result): a reshape that is not a view to
   * autograd (no base), UnsafeViewBackward0 */
  TS_VIEW_UNSAFE_VIEW,
  /* matmul's squeeze_ of a vector-matrix product: SqueezeBackward3, not a
   * view either */
  TS_VIEW_SQUEEZE_INPLACE,
  TS_VIEW_SQUEEZE,    /* one size-1 dim dropped: squeeze(dim) */
  /* reshape when strides allow a view (at::_reshape_alias):
   * ReshapeAliasBackward0 */
  TS_VIEW_RESHAPE_ALIAS,
  TS_VIEW_T,          /* t(): transpose of dims 0 and 1, TBackward0 */
} TsViewKind;

typedef struct
{
  TsViewKind kind;
  guint      ndim;               /* view, expand */
  gint64     shape[TS_MAX_DIMS];
  int        dim0, dim1;         /* transpose; dim0 of the others */
  gint64     start, stop, step;  /* select (start), slice */
} TsViewArgs;

TsTensor *ts_autograd_view_op    (TsTensor *self, const TsViewArgs *args, GError **error);
/* Before an in-place write with grad mode on: a view that has a history
 * cannot be written (its base's grad_fn is not rebased: no CopySlices),
 * FALSE with a not-modeled error rather than a wrong gradient. */
gboolean  ts_autograd_check_inplace_view (const TsTensor *tensor, GError **error);

/* at::sum_to: sums a broadcast gradient down to shape (the engine's
 * validate_outputs uses it); a new reference to a when nothing to sum. */
TsTensor *ts_autograd_sum_to     (TsTensor *a, guint ndim, const gint64 *shape,
                                  GError **error);

/* The gradient passes through unchanged to every input that needs it
 * (CopyBackwards, CloneBackward0, and AddBackward0's shape). */
gboolean  ts_autograd_backward_identity (TsGradNode  *node,
                                         TsTensor   **grad_outputs,
                                         guint        n_outputs,
                                         TsTensor   **grad_inputs,
                                         guint        n_inputs,
                                         GError     **error);

G_END_DECLS
