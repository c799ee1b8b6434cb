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
 * weight. The gradients come from aten::convolution_backward, which has
 * no formula of its own yet (ConvolutionBackwardBackward0): a double
 * backward through a convolution fails loudly.
 */

#include "config.h"

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
