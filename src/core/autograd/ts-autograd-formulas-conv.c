/* ts-autograd-formulas-conv.c: ConvolutionBackward0
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * derivatives.yaml's convolution entry: input, weight, bias:
 * convolution_backward (grad, input, weight, bias->sizes (), stride,
 * padding, dilation, transposed, output_padding, groups,
 * grad_input_mask). The node has three inputs, bias an empty edge when
 * there is none, as PyTorch's next_functions show; it saves input and
 * weight. The gradients come from aten::convolution_backward, whose own
 * node, ConvolutionBackwardBackward0, gives the double backward as
 * PyTorch's _convolution_double_backward does: the three gradients are
 * bilinear in (grad_output, input, weight), so each incoming gradient
 * (ggI, ggW, ggb) maps back through a convolution or its backward.
 */

#include "config.h"

#include <string.h>

#include "ts-autograd-formulas.h"
#include "ts-ops-conv.h"

typedef struct
{
  TsConvParams p;
  guint        input_slot;
  guint        weight_slot;
} ConvAttrs;

void
ts_autograd_record_convolution (TsTensor           *input,
                                TsTensor           *weight,
                                TsTensor           *bias,
                                const TsConvParams *params,
                                TsTensor           *out)
{
  TsTensor *inputs[3] = { input, weight, bias };
  const TsOpDesc *desc = ts_op_get (TS_OP_CONVOLUTION);
  TsGradNode *node;
  ConvAttrs *a;

  node = ts_autograd_record (desc->grad_names[TS_OP_GRAD_TENSOR], desc->backward, sizeof (ConvAttrs), inputs, 3,
                             &out, 1);
  if (node == NULL)
    return;
  a = ts_grad_node_get_attrs (node);
  a->p = *params;
  a->input_slot = ts_grad_node_save (node, input);
  a->weight_slot = ts_grad_node_save (node, weight);
  ts_grad_node_unref (node);
}

TS_BACKWARD_FN (ts_backward_convolution)
{
  ConvAttrs *a = ts_grad_node_get_attrs (node);
  gboolean mask[3];
  g_autoptr(TsTensor) input = NULL;
  g_autoptr(TsTensor) weight = NULL;

  for (guint i = 0; i < 3; i++)
    mask[i] = ts_grad_node_needs_input_grad (node, i);
  if (!mask[0] && !mask[1] && !mask[2])
    return TRUE;
  if ((input = ts_grad_node_unpack_saved (node, a->input_slot, error)) == NULL ||
      (weight = ts_grad_node_unpack_saved (node, a->weight_slot, error)) == NULL)
    return FALSE;
  return ts_ops_convolution_backward (grad_outputs[0], input, weight, &a->p, mask, &grad_inputs[0],
                                      &grad_inputs[1], &grad_inputs[2], error);
}

typedef struct
{
  TsConvParams p;
  guint        grad_output_slot;
  guint        input_slot;
  guint        weight_slot;
  int          output_of[3];    /* grad_input, grad_weight, grad_bias: the node's output, or -1 */
} ConvBackwardAttrs;

void
ts_autograd_record_convolution_backward (TsTensor           *grad_output,
                                         TsTensor           *input,
                                         TsTensor           *weight,
                                         const TsConvParams *params,
                                         TsTensor           *grads[3])
{
  TsTensor *inputs[3] = { grad_output, input, weight };
  const TsOpDesc *desc = ts_op_get (TS_OP_CONVOLUTION_BACKWARD_INPUT);
  TsTensor *outputs[3];
  guint n = 0;
  int output_of[3];
  TsGradNode *node;
  ConvBackwardAttrs *a;

  for (guint i = 0; i < 3; i++)
    {
      output_of[i] = grads[i] != NULL ? (int) n : -1;
      if (grads[i] != NULL)
        outputs[n++] = grads[i];
    }
  if (n == 0)
    return;
  node = ts_autograd_record (desc->grad_names[TS_OP_GRAD_TENSOR], desc->backward, sizeof (ConvBackwardAttrs),
                             inputs, 3, outputs, n);
  if (node == NULL)
    return;
  a = ts_grad_node_get_attrs (node);
  a->p = *params;
  a->grad_output_slot = ts_grad_node_save (node, grad_output);
  a->input_slot = ts_grad_node_save (node, input);
  a->weight_slot = ts_grad_node_save (node, weight);
  memcpy (a->output_of, output_of, sizeof output_of);
  ts_grad_node_unref (node);
}

/* the incoming gradient of gradient @i (grad_input, grad_weight,
 * grad_bias), borrowed; NULL when it was not computed or got none */
static TsTensor *
incoming (const ConvBackwardAttrs *a,
          TsTensor               **grad_outputs,
          guint                    i)
{
  return a->output_of[i] >= 0 ? grad_outputs[a->output_of[i]] : NULL;
}

/* grad_output's gradient: conv (ggI, W) + conv (x, ggW) + ggb over the
 * channels, each term where its incoming gradient exists */
static TsTensor *
grad_output_grad (const ConvBackwardAttrs *a,
                  TsTensor                *ggi,
                  TsTensor                *ggw,
                  TsTensor                *ggb,
                  TsTensor                *go,
                  TsTensor                *input,
                  TsTensor                *weight,
                  GError                 **error)
{
  g_autoptr(TsTensor) sum = NULL;

  if (ggi != NULL && (sum = ts_ops_convolution (ggi, weight, NULL, &a->p, error)) == NULL)
    return NULL;
  if (ggw != NULL)
    {
      g_autoptr(TsTensor) term = ts_ops_convolution (input, ggw, NULL, &a->p, error);

      if (term == NULL)
        return NULL;
      if (sum == NULL)
        sum = g_steal_pointer (&term);
      else
        {
          g_autoptr(TsTensor) both = ts_autograd_add (sum, term, error);

          if (both == NULL)
            return NULL;
          g_clear_pointer (&sum, ts_tensor_unref);
          sum = g_steal_pointer (&both);
        }
    }
  if (ggb != NULL)
    {
      /* the bias's gradient as (1, C, 1, ...), broadcast over the rest */
      gint64 shape[TS_MAX_DIMS];
      g_autoptr(TsTensor) column = NULL;
      g_autoptr(TsTensor) b = NULL;

      for (guint d = 0; d < go->ndim; d++)
        shape[d] = d == 1 ? go->shape[1] : 1;
      if ((column = ts_autograd_reshape (ggb, go->ndim, shape, error)) == NULL ||
          (b = ts_autograd_expand (column, go->ndim, go->shape, error)) == NULL)
        return NULL;
      if (sum == NULL)
        return g_steal_pointer (&b);
      return ts_autograd_add (sum, b, error);
    }
  return g_steal_pointer (&sum);
}

TS_BACKWARD_FN (ts_backward_convolution_backward)
{
  ConvBackwardAttrs *a = ts_grad_node_get_attrs (node);
  TsTensor *ggi = incoming (a, grad_outputs, 0);
  TsTensor *ggw = incoming (a, grad_outputs, 1);
  TsTensor *ggb = incoming (a, grad_outputs, 2);
  g_autoptr(TsTensor) go = NULL;
  g_autoptr(TsTensor) input = NULL;
  g_autoptr(TsTensor) weight = NULL;
  TsTensor *unused[2] = { NULL, NULL };

  if ((go = ts_grad_node_unpack_saved (node, a->grad_output_slot, error)) == NULL ||
      (input = ts_grad_node_unpack_saved (node, a->input_slot, error)) == NULL ||
      (weight = ts_grad_node_unpack_saved (node, a->weight_slot, error)) == NULL)
    return FALSE;
  if (ts_grad_node_needs_input_grad (node, 0) && (ggi != NULL || ggw != NULL || ggb != NULL) &&
      (grad_inputs[0] = grad_output_grad (a, ggi, ggw, ggb, go, input, weight, error)) == NULL)
    return FALSE;
  /* input's: d<ggW, B_W(gO, x)>/dx = B_I(gO, ggW) */
  if (ts_grad_node_needs_input_grad (node, 1) && ggw != NULL)
    {
      const gboolean mask[3] = { TRUE, FALSE, FALSE };

      if (!ts_ops_convolution_backward (go, input, ggw, &a->p, mask, &grad_inputs[1], &unused[0], &unused[1],
                                        error))
        return FALSE;
    }
  /* weight's: d<ggI, B_I(gO, W)>/dW = B_W(gO, ggI) */
  if (ts_grad_node_needs_input_grad (node, 2) && ggi != NULL)
    {
      const gboolean mask[3] = { FALSE, TRUE, FALSE };

      if (!ts_ops_convolution_backward (go, ggi, weight, &a->p, mask, &unused[0], &grad_inputs[2], &unused[1],
                                        error))
        return FALSE;
    }
  return TRUE;
}
