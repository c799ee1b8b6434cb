/* ts-cpu-linalg.c: the linear-algebra kernels over LAPACK
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * No factorization is written here: LAPACK does them (OpenBLAS's, which
 * the project links for BLAS already), and this file only moves each
 * row-major matrix of a batch into LAPACK's column-major layout and back.
 * The float32 and float64 copies are one body, ts-cpu-linalg-body.h.
 */

#include "config.h"

#include <cblas.h>
#include <string.h>

#include "ts-cpu-kernels-private.h"
#include "ts-cpu-lapack-private.h"
#include "ts-cpu-linalg.h"

static gboolean
lapack_argument_error (GError    **error,
                       const char *routine,
                       int         info)
{
  /* a bug of ours, not the user's: LAPACK refused argument -info */
  return ts_kernel_fail (error, TS_KERNEL_ERROR_ARGUMENT, "LAPACK %s: argument %d had an illegal value", routine,
                         -info);
}

static gboolean
lapack_converge_error (GError    **error,
                       const char *op,
                       int         info)
{
  return ts_kernel_fail (error, TS_KERNEL_ERROR_ARGUMENT,
                         "%s: The algorithm failed to converge because the input matrix is ill-conditioned or has "
                         "too many repeated singular values (error code: %d).", op, info);
}

#define T float
#define L(name) s##name##_
#define TRSM cblas_strsm
#define F(name) name##_f32
#include "ts-cpu-linalg-body.h"
#undef T
#undef L
#undef TRSM
#undef F

#define T double
#define L(name) d##name##_
#define TRSM cblas_dtrsm
#define F(name) name##_f64
#include "ts-cpu-linalg-body.h"
#undef T
#undef L
#undef TRSM
#undef F

gboolean
ts_cpu_linalg (TsLinalgKernel  kernel,
               const TsLinalg *p,
               const char     *op_name,
               const TsView   *views,
               guint           n_views,
               GError        **error)
{
  TsView v[5] = { 0 };

  g_return_val_if_fail (n_views <= G_N_ELEMENTS (v), FALSE);
  memcpy (v, views, n_views * sizeof *views);
  if (v[1].dtype == TS_DTYPE_FLOAT32)
    return run_f32 (kernel, p, v, op_name, error);
  if (v[1].dtype == TS_DTYPE_FLOAT64)
    return run_f64 (kernel, p, v, op_name, error);
  g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_DTYPE, "%s: Expected a floating point tensor as input. Got %s",
               op_name, ts_dtype_scalar_type_name (v[1].dtype));
  return FALSE;
}

double
ts_cpu_linalg_flops (TsLinalgKernel  kernel,
                     const TsLinalg *p)
{
  double m = (double) p->m, n = (double) p->n, k = (double) p->k, b = (double) p->batch;
  double lo = MIN (m, n), hi = MAX (m, n);

  switch (kernel)
    {
    case TS_LINALG_LU_FACTOR: return b * (hi * lo * lo - lo * lo * lo / 3);
    case TS_LINALG_LU_SOLVE: return b * 2 * n * n * k;
    case TS_LINALG_SOLVE_TRIANGULAR: return b * n * n * (p->flags & TS_LINALG_LEFT ? k : m);
    case TS_LINALG_CHOLESKY: return b * n * n * n / 3;
    case TS_LINALG_CHOLESKY_SOLVE: return b * 2 * n * n * k;
    case TS_LINALG_CHOLESKY_INVERSE: return b * 2 * n * n * n / 3;
    case TS_LINALG_GEQRF: return b * (2 * hi * lo * lo - 2 * lo * lo * lo / 3);
    case TS_LINALG_HOUSEHOLDER: return b * (4 * m * n * k - 2 * (m + n) * k * k + 4 * k * k * k / 3);
    case TS_LINALG_QR: return b * (4 * hi * lo * lo - 4 * lo * lo * lo / 3);
    case TS_LINALG_SVD: return b * (p->flags & TS_LINALG_VECTORS ? 4 * hi * lo * lo + 8 * lo * lo * lo
                                                               : 4 * hi * lo * lo - 4 * lo * lo * lo / 3);
    case TS_LINALG_EIGH: return b * (p->flags & TS_LINALG_VECTORS ? 9 * n * n * n : 4 * n * n * n / 3);
    case TS_LINALG_LSTSQ: return b * (2 * hi * lo * lo + 4 * hi * lo * k);
    default: return 0;
    }
}
