/* ts-ops-pool.h: pooling, padding and upsampling ops (the POOL and REMAP
 * families)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * torch/nn/_pooling.py and _padding.py check the arguments with PyTorch's
 * messages and compute output sizes; these run the kernels and record the
 * nodes.
 */

#pragma once

#include "ts-cpu-pool.h"
#include "ts-tensor.h"

G_BEGIN_DECLS

/* A pooling node's attributes (ts-autograd-formulas-pool.c reads them) */
typedef struct
{
  TsPoolKernel kind;
  TsPool2d     p;
  int          indices_slot;   /* the max kinds' saved indices */
  int          self_slot;      /* the input, saved as PyTorch's nodes save it (-1 in the double backward's) */
} TsPoolAttrs;

/* out (*indices for the max kinds, else NULL) of shape (..., oh, ow) */
gboolean  ts_ops_pool2d          (TsPoolKernel    kind,
                                  TsTensor       *self,
                                  const TsPool2d *p,
                                  gint64          oh,
                                  gint64          ow,
                                  TsTensor      **out,
                                  TsTensor      **indices,
                                  GError        **error);
/* grad_input of shape @shape from grad_output (kind: a backward one) */
TsTensor *ts_ops_pool2d_backward (TsPoolKernel    kind,
                                  TsTensor       *grad,
                                  TsTensor       *indices,
                                  const TsPool2d *p,
                                  guint           ndim,
                                  const gint64   *shape,
                                  GError        **error);

G_END_DECLS

G_BEGIN_DECLS

/* A remap node's attributes */
typedef struct
{
  TsRemapKernel mode;
  TsRemap       r;
} TsRemapAttrs;

/* out of @shape from @self: mode CONSTANT pads (negative pads crop) with
 * @value, REFLECT/REPLICATE pad, NEAREST upsamples; r->k trailing dims */
TsTensor *ts_ops_remap          (TsRemapKernel    mode,
                                 TsTensor        *self,
                                 const TsRemap   *r,
                                 const gint64    *shape,
                                 double           value,
                                 GError         **error);
/* the backward of a REFLECT/REPLICATE/NEAREST remap into @shape */
TsTensor *ts_ops_remap_backward (TsRemapKernel    mode,
                                 TsTensor        *grad,
                                 const TsRemap   *r,
                                 guint            ndim,
                                 const gint64    *shape,
                                 GError         **error);

G_END_DECLS
