/* ts-cpu-linalg.h: the linear-algebra kernels (LAPACK from OpenBLAS)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every view here is contiguous and row-major (the host makes it so), a
 * batch of matrices over the leading dims, float32 or float64 (pivots and
 * infos int32, lstsq's ranks int64, as PyTorch's). The kernels copy each
 * matrix into a column-major buffer, call LAPACK as PyTorch's CPU backend
 * does (BatchLinearAlgebra.cpp) and copy the results back: the numbers
 * are LAPACK's, signs of singular and eigen vectors included. Nothing is
 * raised for a singular or indefinite matrix: the info outputs say it and
 * the caller raises PyTorch's error, as at::_linalg_check_errors does.
 */

#pragma once

#include "ts-cpu-kernels.h"

G_BEGIN_DECLS

/* The op table's KERNEL codes of the LINALG family, and each one's slots
 * (0 is the op's first output, the job's output) */
typedef enum
{
  TS_LINALG_LU_FACTOR = 0,     /* LU (m,n) | A | pivots (min) | info */
  TS_LINALG_LU_SOLVE = 1,      /* X (n,k) | LU (n,n) | pivots (n) | B (n,k) */
  TS_LINALG_SOLVE_TRIANGULAR = 2, /* X (m,k) | A | B (m,k) */
  TS_LINALG_CHOLESKY = 3,      /* L (n,n) | A | - | info */
  TS_LINALG_CHOLESKY_SOLVE = 4, /* X (n,k) | B | L (n,n) */
  TS_LINALG_CHOLESKY_INVERSE = 5, /* X (n,n) | L */
  TS_LINALG_GEQRF = 6,         /* a (m,n) | A | tau (min) */
  TS_LINALG_HOUSEHOLDER = 7,   /* Q (m,n) | A (m,n) | tau (k) */
  TS_LINALG_QR = 8,            /* R | A (m,n) | Q */
  TS_LINALG_SVD = 9,           /* S (min) | A (m,n) | U | Vh */
  TS_LINALG_EIGH = 10,         /* eigenvalues (n) | A | eigenvectors (n,n) */
  TS_LINALG_LSTSQ = 11,        /* X (n,k) | A (m,n) | B (m,k) | rank | singular values (min) */
} TsLinalgKernel;

/* TsLinalg.flags */
enum
{
  TS_LINALG_UPPER = 1 << 0,          /* the upper triangle (UPLO='U', upper=True) */
  TS_LINALG_LEFT = 1 << 1,           /* solve_triangular: A X = B (else X A = B) */
  TS_LINALG_UNIT = 1 << 2,           /* unitriangular */
  TS_LINALG_FULL = 1 << 3,           /* svd's full_matrices, qr's 'complete' */
  TS_LINALG_VECTORS = 1 << 4,        /* svd's compute_uv, eigh's eigenvectors, qr's Q */
  TS_LINALG_ADJOINT = 1 << 5,        /* lu_solve: A^T X = B */
};

/* lstsq's driver */
typedef enum
{
  TS_LINALG_GELSY = 0,
  TS_LINALG_GELSD = 1,
  TS_LINALG_GELSS = 2,
  TS_LINALG_GELS = 3,
} TsLinalgDriver;

typedef struct
{
  gint64 batch;    /* matrices */
  gint64 m, n;     /* A's rows and columns (a square A: n, n) */
  gint64 k;        /* right-hand sides (B's columns; householder: tau's length) */
  gint64 flags;
  gint64 driver;   /* TsLinalgDriver */
  double rcond;    /* lstsq */
} TsLinalg;

/* Runs @kernel over the views (NULL where the kernel has no such slot).
 * Fails (TS_KERNEL_ERROR_ARGUMENT) for a dtype other than float32/float64
 * and when LAPACK reports an iterative method that did not converge, with
 * PyTorch's message naming @op_name. */
gboolean ts_cpu_linalg (TsLinalgKernel  kernel,
                        const TsLinalg *p,
                        const char     *op_name,
                        const TsView   *views,
                        guint           n_views,
                        GError        **error);

/* The factorization's flops, for the time model: LU 2/3 n^3, Cholesky
 * 1/3 n^3, QR 2mn^2 - 2/3 n^3, SVD and eigh a constant times their cubes
 * (LAPACK Working Note 41's counts) */
double   ts_cpu_linalg_flops (TsLinalgKernel  kernel,
                              const TsLinalg *p);

G_END_DECLS
