/* ts-cpu-fft.h: discrete Fourier transforms of strided tensors, by FFTW
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The three ATen kernels torch.fft is built from: _fft_c2c, _fft_r2c and
 * _fft_c2r, over any set of dims of a tensor of any strides, with
 * PyTorch's normalization modes. FFTW (Debian's libfftw3) computes them:
 * its guru interface takes the transform dims and the batch dims with
 * their strides, so no operand is copied first (but c2r's, which FFTW
 * overwrites). complex64 and float32 use FFTW's single precision.
 */

#pragma once

#include "ts-cpu-kernels.h"

G_BEGIN_DECLS

typedef enum
{
  TS_FFT_C2C = 0,
  TS_FFT_R2C,
  TS_FFT_C2R,
} TsFftKind;

/* PyTorch's fft_norm_mode: the scale of the result */
typedef enum
{
  TS_FFT_NORM_NONE = 0,     /* 1 */
  TS_FFT_NORM_BY_ROOT_N,    /* 1 / sqrt (n) */
  TS_FFT_NORM_BY_N,         /* 1 / n */
} TsFftNorm;

typedef struct
{
  TsFftKind kind;
  guint     n_dims;
  int       dims[TS_MAX_DIMS];  /* the transformed dims; r2c and c2r halve the last one */
  TsFftNorm norm;
  /* c2c: forward (e^-i) or not; r2c: onesided (only the first n/2 + 1
   * outputs of the last dim) or the full, Hermitian, output */
  gboolean  flag;
} TsFftDesc;

/* The output shape of @desc over @in's shape (c2r: the last dim's real
 * size is @last_dim_size); FALSE with a message for an empty transform. */
gboolean ts_fft_output_shape (const TsFftDesc *desc,
                              guint            ndim,
                              const gint64    *in_shape,
                              gint64           last_dim_size,
                              gint64          *out_shape,
                              GError         **error);
/* The flops of one transform of @desc (5 n log2 n per complex transform
 * of n points, half that for a real one), for the cost model. */
double   ts_fft_flops        (const TsFftDesc *desc,
                              const TsView    *in,
                              const TsView    *out);
/* out = the transform of in; out has the shape ts_fft_output_shape gives
 * and the complex (c2c, r2c) or real (c2r) dtype of in's precision. */
gboolean ts_cpu_fft          (const TsFftDesc *desc,
                              const TsView    *in,
                              const TsView    *out,
                              GError         **error);

G_END_DECLS
