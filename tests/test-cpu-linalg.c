/* test-cpu-linalg.c: the LAPACK kernels' layout glue and outputs
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * ts-cpu-linalg.c moves row-major batches into LAPACK's column-major
 * layout and back: a transposition or a batch stride wrong there gives
 * plausible numbers for the wrong matrix. Each case checks what holds
 * exactly (pivots, infos, the order of eigenvalues, zero triangles) and
 * reconstructs the input from the factors in float64 (to rounding), on a
 * batch of two whose second matrix differs from the first.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-cpu-linalg.h"

static TsView
view (TsDType dtype, gpointer data, guint ndim, gint64 d0, gint64 d1, gint64 d2)
{
  TsView v;
  gint64 shape[3] = { d0, d1, d2 };

  ts_view_init (&v, dtype, data, ndim, shape, NULL, 0);
  return v;
}

/* rows x cols row-major product */
static void
matmul (const double *a, const double *b, double *c, int m, int k, int n)
{
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      {
        double s = 0;

        for (int l = 0; l < k; l++)
          s += a[i * k + l] * b[l * n + j];
        c[i * n + j] = s;
      }
}

static void
assert_close (const double *a, const double *b, int n, double tol)
{
  for (int i = 0; i < n; i++)
    g_assert_cmpfloat_with_epsilon (a[i], b[i], tol);
}

/* two 3x3 matrices: a general one, and one with a zero column (U[2,2]
 * is exactly zero) */
static const double A2[2][9] = {
  { 2, 1, 1, 4, 3, 3, 8, 7, 9 },
  { 1, 0, 2, 3, 0, 4, 5, 0, 6 },
};

static void
test_lu (void)
{
  double lu[18], a[18];
  int piv[6], info[2];
  TsLinalg p = { .batch = 2, .m = 3, .n = 3 };
  TsView v[4];
  g_autoptr(GError) error = NULL;

  memcpy (a, A2, sizeof a);
  v[0] = view (TS_DTYPE_FLOAT64, lu, 3, 2, 3, 3);
  v[1] = view (TS_DTYPE_FLOAT64, a, 3, 2, 3, 3);
  v[2] = view (TS_DTYPE_INT32, piv, 2, 2, 3, 1);
  v[3] = view (TS_DTYPE_INT32, info, 1, 2, 1, 1);
  g_assert_true (ts_cpu_linalg (TS_LINALG_LU_FACTOR, &p, "lu", v, 4, &error));
  g_assert_no_error (error);
  /* partial pivoting takes the 8 first; the second matrix is singular at
   * U[2,2], which LAPACK reports as info 2 */
  g_assert_cmpint (piv[0], ==, 3);
  g_assert_cmpint (info[0], ==, 0);
  g_assert_cmpint (info[1], ==, 2);
  for (int b = 0; b < 2; b++)
    {
      double L[9] = { 0 }, U[9] = { 0 }, PA[9], LU[9];
      double *f = lu + 9 * b;

      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          {
            L[i * 3 + j] = i > j ? f[i * 3 + j] : i == j;
            U[i * 3 + j] = i <= j ? f[i * 3 + j] : 0;
          }
      /* apply the row interchanges to A in order: P^T A = L U */
      memcpy (PA, A2[b], sizeof PA);
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          {
            double t = PA[i * 3 + j];

            PA[i * 3 + j] = PA[(piv[3 * b + i] - 1) * 3 + j];
            PA[(piv[3 * b + i] - 1) * 3 + j] = t;
          }
      matmul (L, U, LU, 3, 3, 3);
      assert_close (LU, PA, 9, 1e-12);
    }
}

static void
test_solve_and_cholesky (void)
{
  /* a symmetric positive definite A and one that is not */
  double A[18] = { 4, 2, 0, 2, 5, 1, 0, 1, 3, 1, 2, 0, 2, 1, 0, 0, 0, 1 };
  double L[18], X[6], B[6] = { 1, 2, 3, 4, 5, 6 }, AX[3];
  int info[2];
  TsLinalg p = { .batch = 2, .m = 3, .n = 3, .k = 1 };
  TsView v[4];
  g_autoptr(GError) error = NULL;

  v[0] = view (TS_DTYPE_FLOAT64, L, 3, 2, 3, 3);
  v[1] = view (TS_DTYPE_FLOAT64, A, 3, 2, 3, 3);
  v[2] = (TsView) { 0 };
  v[3] = view (TS_DTYPE_INT32, info, 1, 2, 1, 1);
  g_assert_true (ts_cpu_linalg (TS_LINALG_CHOLESKY, &p, "cholesky", v, 4, &error));
  g_assert_cmpint (info[0], ==, 0);
  g_assert_cmpint (info[1], ==, 2);   /* the leading minor of order 2 */
  g_assert_cmpfloat (L[0], ==, 2.0);
  g_assert_cmpfloat (L[1], ==, 0.0);  /* the upper triangle is zeroed */
  g_assert_cmpfloat (L[3], ==, 1.0);  /* 2 / 2 */
  g_assert_cmpfloat (L[4], ==, 2.0);  /* sqrt (5 - 1) */

  /* cholesky_solve of the first: A x = b */
  p.batch = 1;
  v[0] = view (TS_DTYPE_FLOAT64, X, 2, 3, 1, 1);
  v[1] = view (TS_DTYPE_FLOAT64, B, 2, 3, 1, 1);
  v[2] = view (TS_DTYPE_FLOAT64, L, 2, 3, 3, 1);
  g_assert_true (ts_cpu_linalg (TS_LINALG_CHOLESKY_SOLVE, &p, "cholesky_solve", v, 3, &error));
  matmul (A, X, AX, 3, 3, 1);
  assert_close (AX, B, 3, 1e-12);
}

static void
test_eigh_svd_qr (void)
{
  double A[9] = { 4, 2, 0, 2, 5, 1, 0, 1, 3 }, w[3], V[9], AV[9];
  double M[6] = { 1, 2, 3, 4, 5, 7 }, S[2], U[4], Vh[6], R[6], Q[4], US[4], USV[6];
  TsLinalg p = { .batch = 1, .m = 3, .n = 3, .flags = TS_LINALG_VECTORS };
  TsView v[4];
  g_autoptr(GError) error = NULL;

  v[0] = view (TS_DTYPE_FLOAT64, w, 1, 3, 1, 1);
  v[1] = view (TS_DTYPE_FLOAT64, A, 2, 3, 3, 1);
  v[2] = view (TS_DTYPE_FLOAT64, V, 2, 3, 3, 1);
  g_assert_true (ts_cpu_linalg (TS_LINALG_EIGH, &p, "eigh", v, 3, &error));
  g_assert_cmpfloat (w[0], <, w[1]);
  g_assert_cmpfloat (w[1], <, w[2]);
  /* A V = V diag (w): the eigenvectors are V's columns */
  matmul (A, V, AV, 3, 3, 3);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      g_assert_cmpfloat_with_epsilon (AV[i * 3 + j], V[i * 3 + j] * w[j], 1e-12);

  /* a wide 2x3: U S Vh = M */
  p = (TsLinalg) { .batch = 1, .m = 2, .n = 3, .flags = TS_LINALG_VECTORS };
  v[0] = view (TS_DTYPE_FLOAT64, S, 1, 2, 1, 1);
  v[1] = view (TS_DTYPE_FLOAT64, M, 2, 2, 3, 1);
  v[2] = view (TS_DTYPE_FLOAT64, U, 2, 2, 2, 1);
  v[3] = view (TS_DTYPE_FLOAT64, Vh, 2, 2, 3, 1);
  g_assert_true (ts_cpu_linalg (TS_LINALG_SVD, &p, "svd", v, 4, &error));
  g_assert_cmpfloat (S[0], >=, S[1]);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      US[i * 2 + j] = U[i * 2 + j] * S[j];
  matmul (US, Vh, USV, 2, 2, 3);
  assert_close (USV, M, 6, 1e-12);

  /* QR of the same: R upper triangular, Q R = M */
  v[0] = view (TS_DTYPE_FLOAT64, R, 2, 2, 3, 1);
  v[2] = view (TS_DTYPE_FLOAT64, Q, 2, 2, 2, 1);
  g_assert_true (ts_cpu_linalg (TS_LINALG_QR, &p, "qr", v, 3, &error));
  g_assert_cmpfloat (R[3], ==, 0.0);
  matmul (Q, R, USV, 2, 2, 3);
  assert_close (USV, M, 6, 1e-12);
}

static void
test_float32_and_dtype (void)
{
  float A[4] = { 3, 1, 1, 2 }, X[2], B[2] = { 9, 8 };
  int piv[2], info;
  float LU[4];
  gint64 I[4] = { 0 };
  TsLinalg p = { .batch = 1, .m = 2, .n = 2, .k = 1 };
  TsView v[4];
  g_autoptr(GError) error = NULL;

  v[0] = view (TS_DTYPE_FLOAT32, LU, 2, 2, 2, 1);
  v[1] = view (TS_DTYPE_FLOAT32, A, 2, 2, 2, 1);
  v[2] = view (TS_DTYPE_INT32, piv, 1, 2, 1, 1);
  v[3] = view (TS_DTYPE_INT32, &info, 1, 1, 1, 1);
  g_assert_true (ts_cpu_linalg (TS_LINALG_LU_FACTOR, &p, "lu", v, 4, &error));
  v[0] = view (TS_DTYPE_FLOAT32, X, 2, 2, 1, 1);
  v[1] = view (TS_DTYPE_FLOAT32, LU, 2, 2, 2, 1);
  v[3] = view (TS_DTYPE_FLOAT32, B, 2, 2, 1, 1);
  g_assert_true (ts_cpu_linalg (TS_LINALG_LU_SOLVE, &p, "lu_solve", v, 4, &error));
  /* 3x + y = 9, x + 2y = 8: x = 2, y = 3 */
  g_assert_cmpfloat_with_epsilon (X[0], 2.0f, 1e-6);
  g_assert_cmpfloat_with_epsilon (X[1], 3.0f, 1e-6);

  v[1] = view (TS_DTYPE_INT64, I, 2, 2, 2, 1);
  g_assert_false (ts_cpu_linalg (TS_LINALG_LU_FACTOR, &p, "linalg.inv", v, 4, &error));
  g_assert_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_DTYPE);
  g_assert_cmpstr (error->message, ==, "linalg.inv: Expected a floating point tensor as input. Got Long");
}

static void
test_flops (void)
{
  TsLinalg p = { .batch = 2, .m = 30, .n = 30, .k = 4 };

  /* 2/3 n^3 per LU, n^3 / 3 per Cholesky, 2 n^2 k per solve */
  g_assert_cmpfloat_with_epsilon (ts_cpu_linalg_flops (TS_LINALG_LU_FACTOR, &p), 2 * 18000.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (ts_cpu_linalg_flops (TS_LINALG_CHOLESKY, &p), 2 * 9000.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (ts_cpu_linalg_flops (TS_LINALG_LU_SOLVE, &p), 2 * 7200.0, 1e-6);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cpu-linalg/lu", test_lu);
  g_test_add_func ("/cpu-linalg/solve-cholesky", test_solve_and_cholesky);
  g_test_add_func ("/cpu-linalg/eigh-svd-qr", test_eigh_svd_qr);
  g_test_add_func ("/cpu-linalg/float32-dtype", test_float32_and_dtype);
  g_test_add_func ("/cpu-linalg/flops", test_flops);
  return g_test_run ();
}
