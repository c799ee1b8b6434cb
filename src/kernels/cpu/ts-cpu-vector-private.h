/* ts-cpu-vector-private.h: the CPU's vector units, and PyTorch's AVX2 math
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PyTorch 1.13's CPU kernels, built for AVX2, compute float32 exp, log,
 * tanh... eight at a time with SLEEF (Vectorized<float>, vec256_float.h)
 * and only some leftover elements with libm. ts-cpu-sleef.c repeats their
 * arithmetic with the same library, so that our float32 values are
 * PyTorch's bit for bit; it is compiled for AVX2 and FMA, and runs only
 * where ts_cpu_have_avx2_fma () says the CPU has both (every other CPU
 * keeps the scalar libm loops). Each entry returns how many elements it
 * computed from the start, 0 for an op it does not vectorize; the caller
 * computes the rest with the scalar formula PyTorch's tail uses.
 */

#pragma once

#include <glib.h>

#include "ts-cpu-kernels.h"
#include "ts-cpu-pool.h"

G_BEGIN_DECLS

/* AVX2 and FMA, asked once (ts-cpu-convert.c, which is not compiled for
 * AVX2, so that asking runs on any x86-64 CPU); FALSE elsewhere. */
gboolean ts_cpu_have_avx2_fma          (void);

/* @contiguous: @x and @r are the dense operands of the op (a gathered run
 * of a strided tensor is not): the ops PyTorch runs through cpu_kernel_vec
 * vectorize only those, the VML ones (exp, log, ...) every run. */
gint64   ts_cpu_sleef_unary_f32        (TsUnaryOp    op,
                                        const float *x,
                                        float       *r,
                                        gint64       n,
                                        gboolean     contiguous);

/* pow (x, e), dense, in whole pairs of vectors (SLEEF's pow) */
gint64   ts_cpu_sleef_pow_f32          (const float *x,
                                        float       *r,
                                        gint64       n,
                                        float        e);
gint64   ts_cpu_sleef_pow_f64          (const double *x,
                                        double       *r,
                                        gint64        n,
                                        double        e);

/* A dense row along softmax's last dim: _vec_softmax_lastdim and
 * _vec_log_softmax_lastdim (SoftMaxKernel.cpp), all @n elements. */
void     ts_cpu_sleef_softmax_row_f32  (const float *x,
                                        float       *y,
                                        gint64       n,
                                        gboolean     as_log);

/* Dense rows along the last dim: _vec_host_softmax_backward_lastdim,
 * grad_input @o from grad_output @g and the forward's output @y */
void     ts_cpu_sleef_softmax_backward_row_f32 (const float *g,
                                                const float *y,
                                                float       *o,
                                                gint64       n,
                                                gboolean     as_log);

/* One float as a lane of @op's SLEEF vector computes it (an op of the
 * vml list: exp, log...), for kernels whose lanes are rows (softmax along
 * another dim than the last) */
float    ts_cpu_sleef_lane_f32         (TsUnaryOp    op,
                                        float        x);

/* The activations PyTorch vectorizes (elu/celu/selu, mish, log_sigmoid),
 * forward and (| TS_ACT_BACKWARD, from grad_output @g) backward, dense;
 * @ipt elu's input scale */
gint64   ts_cpu_sleef_act_f32          (TsActKernel  kind,
                                        float        p0,
                                        float        p1,
                                        float        ipt,
                                        const float *x,
                                        const float *g,
                                        float       *y,
                                        gint64       n);

G_END_DECLS
