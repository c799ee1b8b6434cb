/* ts-cpu-pool.h: 2-d pooling and batch normalization kernels
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every view here is contiguous (the host makes it so) and float32 or
 * float64. Pooling works on the last two dims of its input (planes of
 * H x W, any number of them); batch norm on (N, C, S) with S the product
 * of the dims after C.
 */

#pragma once

#include "ts-cpu-kernels.h"

G_BEGIN_DECLS

/* The op table's KERNEL codes of the POOL family */
typedef enum
{
  TS_POOL_MAX = 0,
  TS_POOL_AVG,
  TS_POOL_ADAPTIVE_AVG,
  TS_POOL_ADAPTIVE_MAX,
  TS_POOL_MAX_BACKWARD,          /* max and adaptive max: by the indices */
  TS_POOL_AVG_BACKWARD,
  TS_POOL_ADAPTIVE_AVG_BACKWARD,
  TS_POOL_ADAPTIVE_MAX_BACKWARD,
} TsPoolKernel;

/* A window's geometry (ignored by the adaptive kinds, whose windows come
 * from the shapes) */
typedef struct
{
  int      kh, kw, sh, sw, ph, pw, dh, dw;
  gboolean count_include_pad;
  gint64   divisor;              /* avg: divisor_override, 0 for none */
} TsPool2d;

/* out (and indices, int64, for the max kinds) from in */
gboolean     ts_cpu_pool2d          (TsPoolKernel    kind,
                                     const TsPool2d *p,
                                     const TsView   *in,
                                     const TsView   *out,
                                     const TsView   *indices,
                                     GError        **error);
/* grad_in (zeroed here) from grad_out, through the forward's windows or
 * its indices */
gboolean     ts_cpu_pool2d_backward (TsPoolKernel    kind,
                                     const TsPool2d *p,
                                     const TsView   *grad_out,
                                     const TsView   *indices,
                                     const TsView   *grad_in,
                                     GError        **error);
TsKernelCost ts_cost_pool           (const TsView   *in,
                                     const TsView   *out,
                                     double          window);

/* The NORM family's phases (the job's dim) */
typedef enum
{
  TS_NORM_STATS = 0,        /* stats (2, C): mean, invstd of the batch; running stats updated */
  TS_NORM_STATS_RUNNING,    /* stats from running_mean, running_var (eval) */
  TS_NORM_AFFINE,           /* coef (2, C): alpha = invstd * w, beta = b - mean * alpha */
  TS_NORM_APPLY,            /* out = in * alpha + beta */
  TS_NORM_BACKWARD_REDUCE,  /* red (2, C): sum (dy), sum ((x - mean) * dy) */
  TS_NORM_BACKWARD_COEF,    /* bcoef (5, C): mean, k, grad_mean, invstd, w */
  TS_NORM_BACKWARD_APPLY,   /* dx = (dy - grad_mean - (x - mean) * k) * invstd * w */
  TS_NORM_GROUP_AFFINE,     /* coef (2, N * C) from group stats (2, N * G), w, b */
} TsNormPhase;

/* Per phase, which views it reads (a, b, c) and writes (out, and for
 * STATS the running stats in b and c); momentum < 0: cumulative average
 * is the caller's (it passes the factor) */
gboolean     ts_cpu_batch_norm      (TsNormPhase     phase,
                                     const TsView   *out,
                                     const TsView   *a,
                                     const TsView   *b,
                                     const TsView   *c,
                                     double          momentum,
                                     double          eps,
                                     GError        **error);
TsKernelCost ts_cost_batch_norm     (const TsView   *big,
                                     double          passes);

/* native_layer_norm over @rows rows of @x (ts-cpu-layer-norm.c): @y, and
 * each row's @mean and @rstd; @gamma, @beta may be NULL. Contiguous
 * float32 or float64 operands of one dtype. */
gboolean     ts_cpu_layer_norm      (const TsView   *x,
                                     const TsView   *gamma,
                                     const TsView   *beta,
                                     gint64          rows,
                                     double          eps,
                                     const TsView   *y,
                                     const TsView   *mean,
                                     const TsView   *rstd,
                                     GError        **error);
/* its backward: any of @dx, @dgamma, @dbeta may be NULL (not asked) */
gboolean     ts_cpu_layer_norm_backward (const TsView   *dy,
                                         const TsView   *x,
                                         const TsView   *mean,
                                         const TsView   *rstd,
                                         const TsView   *gamma,
                                         gint64          rows,
                                         const TsView   *dx,
                                         const TsView   *dgamma,
                                         const TsView   *dbeta,
                                         GError        **error);

G_END_DECLS

G_BEGIN_DECLS

/* Remaps: each output element copies one input element (or none), chosen
 * per trailing dim: padding and nearest upsampling. The op table's KERNEL
 * codes of the REMAP family; | TS_REMAP_BACKWARD: the adjoint, which adds
 * each output gradient into its source's. */
typedef enum
{
  TS_REMAP_CONSTANT = 0,    /* out of range: left as the fill wrote it */
  TS_REMAP_REFLECT,
  TS_REMAP_REPLICATE,
  TS_REMAP_CIRCULAR,
  TS_REMAP_NEAREST,
  TS_REMAP_LINEAR,          /* linear / bilinear: two sources per dim, weighted */
  TS_REMAP_CUBIC,           /* bicubic: four sources per dim (A = -0.75) */
  TS_REMAP_PIXEL_SHUFFLE,   /* pads[0] the upscale factor, negative: pixel_unshuffle */
  TS_REMAP_BACKWARD = 8,
} TsRemapKernel;

#define TS_REMAP_MAX_DIMS 4

/* k trailing dims remapped; pads[i] (before) or, for nearest, scales[i]
 * (PyTorch's float source scale, 0: input / output size) of dim
 * ndim - k + i */
typedef struct
{
  guint    k;
  gint64   pads[TS_REMAP_MAX_DIMS];
  float    scales[TS_REMAP_MAX_DIMS];
  gboolean align_corners;   /* linear */
} TsRemap;

/* any dtype forward (a copy); backward float32/float64, grad_in zeroed */
gboolean     ts_cpu_remap           (TsRemapKernel   kind,
                                     const TsRemap  *r,
                                     const TsView   *in,
                                     const TsView   *out,
                                     GError        **error);

G_END_DECLS

G_BEGIN_DECLS

/* Activations with parameters or a node of their own in PyTorch: the op
 * table's KERNEL codes of the ACT family; | TS_ACT_BACKWARD (16): grad_input
 * from grad_output and the input */
typedef enum
{
  TS_ACT_HARDTANH = 0,      /* p0 min, p1 max */
  TS_ACT_HARDSWISH,
  TS_ACT_HARDSIGMOID,
  TS_ACT_MISH,
  TS_ACT_LOG_SIGMOID,
  TS_ACT_THRESHOLD,         /* p0 threshold, p1 value */
  TS_ACT_ELU,               /* p0 alpha, p1 scale; flag: input_scale 1 / alpha (celu) */
  TS_ACT_PRELU,             /* the weight a tensor (one value, or one per channel, dim 1) */
  TS_ACT_GLU,               /* p0 the dim halved */
  TS_ACT_HARDSHRINK,        /* p0 lambda */
  TS_ACT_SOFTSHRINK,        /* p0 lambda */
  TS_ACT_CLAMP,             /* the job's factors min and max: ts_cpu_clamp */
  TS_ACT_SILU,
  TS_ACT_GELU,              /* p0 1: approximate='tanh', else the erf form */
  TS_ACT_BACKWARD = 16,
} TsActKernel;

typedef struct
{
  double   p0, p1;
  gboolean flag;
} TsAct;

/* float32/float64, contiguous: out from in (and prelu's @weight);
 * backward: grad_in from grad_out and in, or for prelu with a->flag the
 * weight's per-element share (x <= 0 ? x * g : 0), to be summed */
gboolean     ts_cpu_activation      (TsActKernel     kind,
                                     const TsAct    *a,
                                     const TsView   *in,
                                     const TsView   *grad_out,
                                     const TsView   *weight,
                                     const TsView   *out,
                                     GError        **error);

G_END_DECLS
