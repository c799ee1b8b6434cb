/* ts-ops-fft.h: torch.fft's ATen ops and the simulated cuFFT plan cache
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-cpu-fft.h"
#include "ts-tensor.h"

G_BEGIN_DECLS

/* aten::_fft_c2c (@flag: forward), _fft_r2c (@flag: onesided) and
 * _fft_c2r (@last_dim_size: the real size of the last of @dims) of
 * @self over @dims, one launch each; torch/fft.py does the rest of
 * PyTorch's SpectralOps (n, s, padding, promotion, conj). */
TsTensor *ts_ops_fft                       (TsFftKind   kind,
                                            TsTensor   *self,
                                            const int  *dims,
                                            guint       n_dims,
                                            TsFftNorm   norm,
                                            gboolean    flag,
                                            gint64      last_dim_size,
                                            GError    **error);

/* torch.backends.cuda.cufft_plan_cache[device] */
gint64    ts_ops_fft_plan_cache_size       (int         device);
gint64    ts_ops_fft_plan_cache_max_size   (int         device);
gboolean  ts_ops_fft_plan_cache_set_max_size (int       device,
                                            gint64      max_size,
                                            GError    **error);
void      ts_ops_fft_plan_cache_clear      (int         device);
/* how many plans the device's cache has created (misses), for tests and
 * the trace's story of a changing transform shape */
gint64    ts_ops_fft_plans_created         (int         device);

G_END_DECLS
