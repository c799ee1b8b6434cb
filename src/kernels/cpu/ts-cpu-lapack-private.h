/* ts-cpu-lapack-private.h: the Fortran LAPACK routines ts-cpu-linalg.c
 * calls
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Debian's OpenBLAS exports the reference LAPACK (built with gfortran, 32-bit
 * integers) under its Fortran names; declaring the few we call here spares a
 * dependency on liblapacke for what is a thin row-major wrapper. Every
 * argument is by reference, matrices are column-major, and each CHARACTER
 * argument has a hidden length after the others (gfortran's convention,
 * size_t), which we pass as 1.
 */

#pragma once

#include <stddef.h>

#define TS_LAPACK_PAIR(ret, name, ...) \
  ret s##name##_ (__VA_ARGS__);        \
  ret d##name##_ (__VA_ARGS__);

/* The prototypes are generic over the element type through void pointers:
 * the callers (one macro body per type in ts-cpu-linalg.c) pass float or
 * double arrays as the prefix says. */
TS_LAPACK_PAIR (void, getrf, const int *m, const int *n, void *a, const int *lda, int *ipiv, int *info)
TS_LAPACK_PAIR (void, getrs, const char *trans, const int *n, const int *nrhs, const void *a, const int *lda,
                const int *ipiv, void *b, const int *ldb, int *info, size_t trans_len)
TS_LAPACK_PAIR (void, potrf, const char *uplo, const int *n, void *a, const int *lda, int *info, size_t uplo_len)
TS_LAPACK_PAIR (void, potrs, const char *uplo, const int *n, const int *nrhs, const void *a, const int *lda,
                void *b, const int *ldb, int *info, size_t uplo_len)
TS_LAPACK_PAIR (void, potri, const char *uplo, const int *n, void *a, const int *lda, int *info, size_t uplo_len)
TS_LAPACK_PAIR (void, geqrf, const int *m, const int *n, void *a, const int *lda, void *tau, void *work,
                const int *lwork, int *info)
TS_LAPACK_PAIR (void, orgqr, const int *m, const int *n, const int *k, void *a, const int *lda, const void *tau,
                void *work, const int *lwork, int *info)
TS_LAPACK_PAIR (void, gesdd, const char *jobz, const int *m, const int *n, void *a, const int *lda, void *s,
                void *u, const int *ldu, void *vt, const int *ldvt, void *work, const int *lwork, int *iwork,
                int *info, size_t jobz_len)
TS_LAPACK_PAIR (void, syevd, const char *jobz, const char *uplo, const int *n, void *a, const int *lda, void *w,
                void *work, const int *lwork, int *iwork, const int *liwork, int *info, size_t jobz_len,
                size_t uplo_len)
TS_LAPACK_PAIR (void, gels, const char *trans, const int *m, const int *n, const int *nrhs, void *a,
                const int *lda, void *b, const int *ldb, void *work, const int *lwork, int *info, size_t trans_len)
TS_LAPACK_PAIR (void, gelsy, const int *m, const int *n, const int *nrhs, void *a, const int *lda, void *b,
                const int *ldb, int *jpvt, const void *rcond, int *rank, void *work, const int *lwork, int *info)
TS_LAPACK_PAIR (void, gelsd, const int *m, const int *n, const int *nrhs, void *a, const int *lda, void *b,
                const int *ldb, void *s, const void *rcond, int *rank, void *work, const int *lwork, int *iwork,
                int *info)
TS_LAPACK_PAIR (void, gelss, const int *m, const int *n, const int *nrhs, void *a, const int *lda, void *b,
                const int *ldb, void *s, const void *rcond, int *rank, void *work, const int *lwork, int *info)

#undef TS_LAPACK_PAIR
