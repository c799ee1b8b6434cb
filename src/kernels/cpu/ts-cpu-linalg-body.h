/* ts-cpu-linalg-body.h: ts-cpu-linalg.c's kernels for one element type
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Included twice by ts-cpu-linalg.c, with T the element type, L(name) the
 * LAPACK routine of that type (sgetrf_ or dgetrf_), TRSM cblas's
 * triangular solve and F(name) the name of this copy's function: LAPACK
 * itself is typed by its prefix, so the row-major glue around it is
 * written once.
 */

/* row-major (rows x cols) -> column-major, leading dimension ld >= rows */
static void
F (to_col) (const T *src, T *dst, gint64 rows, gint64 cols, gint64 ld)
{
  for (gint64 i = 0; i < rows; i++)
    for (gint64 j = 0; j < cols; j++)
      dst[i + j * ld] = src[i * cols + j];
}

static void
F (from_col) (const T *src, T *dst, gint64 rows, gint64 cols, gint64 ld)
{
  for (gint64 i = 0; i < rows; i++)
    for (gint64 j = 0; j < cols; j++)
      dst[i * cols + j] = src[i + j * ld];
}

static gboolean
F (lu_factor) (const TsLinalg *p, const TsView *v, GError **error)
{
  int m = (int) p->m, n = (int) p->n, lda = MAX (1, m), info;
  gint64 kk = MIN (p->m, p->n);
  g_autofree T *a = g_new (T, MAX (1, p->m * p->n));

  for (gint64 b = 0; b < p->batch; b++)
    {
      int *piv = (int *) v[2].data + b * kk;

      F (to_col) ((const T *) v[1].data + b * p->m * p->n, a, p->m, p->n, lda);
      info = 0;
      if (m > 0 && n > 0)
        L (getrf) (&m, &n, a, &lda, piv, &info);
      if (info < 0)
        return lapack_argument_error (error, "getrf", info);
      F (from_col) (a, (T *) v[0].data + b * p->m * p->n, p->m, p->n, lda);
      ((int *) v[3].data)[b] = info;
    }
  return TRUE;
}

static gboolean
F (lu_solve) (const TsLinalg *p, const TsView *v, GError **error)
{
  int n = (int) p->n, k = (int) p->k, ld = MAX (1, n), info = 0;
  char trans = (p->flags & TS_LINALG_ADJOINT) ? 'T' : 'N';
  g_autofree T *a = g_new (T, MAX (1, p->n * p->n));
  g_autofree T *x = g_new (T, MAX (1, p->n * p->k));

  for (gint64 b = 0; b < p->batch; b++)
    {
      F (to_col) ((const T *) v[1].data + b * p->n * p->n, a, p->n, p->n, ld);
      F (to_col) ((const T *) v[3].data + b * p->n * p->k, x, p->n, p->k, ld);
      if (n > 0 && k > 0)
        L (getrs) (&trans, &n, &k, a, &ld, (const int *) v[2].data + b * p->n, x, &ld, &info, 1);
      if (info < 0)
        return lapack_argument_error (error, "getrs", info);
      F (from_col) (x, (T *) v[0].data + b * p->n * p->k, p->n, p->k, ld);
    }
  return TRUE;
}

/* BLAS's trsm solves in place, row-major as our views are */
static gboolean
F (solve_triangular) (const TsLinalg *p, const TsView *v, GError **error)
{
  gboolean left = (p->flags & TS_LINALG_LEFT) != 0;

  for (gint64 b = 0; b < p->batch; b++)
    {
      T *x = (T *) v[0].data + b * p->m * p->k;

      memcpy (x, (const T *) v[2].data + b * p->m * p->k, (gsize) (p->m * p->k) * sizeof (T));
      if (p->m > 0 && p->k > 0)
        TRSM (CblasRowMajor, left ? CblasLeft : CblasRight,
              (p->flags & TS_LINALG_UPPER) ? CblasUpper : CblasLower, CblasNoTrans,
              (p->flags & TS_LINALG_UNIT) ? CblasUnit : CblasNonUnit, (int) p->m, (int) p->k, 1,
              (const T *) v[1].data + b * p->n * p->n, (int) MAX (1, p->n), x, (int) MAX (1, p->k));
    }
  return TRUE;
}

/* the triangle LAPACK left alone: zeros (cholesky) */
static void
F (zero_other) (T *a, gint64 n, gboolean upper)
{
  for (gint64 i = 0; i < n; i++)
    for (gint64 j = 0; j < n; j++)
      if (upper ? j < i : j > i)
        a[i + j * n] = 0;
}

static gboolean
F (cholesky) (const TsLinalg *p, const TsView *v, GError **error)
{
  int n = (int) p->n, ld = MAX (1, n), info;
  char uplo = (p->flags & TS_LINALG_UPPER) ? 'U' : 'L';
  g_autofree T *a = g_new (T, MAX (1, p->n * p->n));

  for (gint64 b = 0; b < p->batch; b++)
    {
      F (to_col) ((const T *) v[1].data + b * p->n * p->n, a, p->n, p->n, ld);
      info = 0;
      if (n > 0)
        L (potrf) (&uplo, &n, a, &ld, &info, 1);
      if (info < 0)
        return lapack_argument_error (error, "potrf", info);
      F (zero_other) (a, p->n, uplo == 'U');
      F (from_col) (a, (T *) v[0].data + b * p->n * p->n, p->n, p->n, ld);
      ((int *) v[3].data)[b] = info;
    }
  return TRUE;
}

static gboolean
F (cholesky_solve) (const TsLinalg *p, const TsView *v, GError **error)
{
  int n = (int) p->n, k = (int) p->k, ld = MAX (1, n), info = 0;
  char uplo = (p->flags & TS_LINALG_UPPER) ? 'U' : 'L';
  g_autofree T *a = g_new (T, MAX (1, p->n * p->n));
  g_autofree T *x = g_new (T, MAX (1, p->n * p->k));

  for (gint64 b = 0; b < p->batch; b++)
    {
      F (to_col) ((const T *) v[2].data + b * p->n * p->n, a, p->n, p->n, ld);
      F (to_col) ((const T *) v[1].data + b * p->n * p->k, x, p->n, p->k, ld);
      if (n > 0 && k > 0)
        L (potrs) (&uplo, &n, &k, a, &ld, x, &ld, &info, 1);
      if (info < 0)
        return lapack_argument_error (error, "potrs", info);
      F (from_col) (x, (T *) v[0].data + b * p->n * p->k, p->n, p->k, ld);
    }
  return TRUE;
}

static gboolean
F (cholesky_inverse) (const TsLinalg *p, const TsView *v, GError **error)
{
  int n = (int) p->n, ld = MAX (1, n), info = 0;
  char uplo = (p->flags & TS_LINALG_UPPER) ? 'U' : 'L';
  g_autofree T *a = g_new (T, MAX (1, p->n * p->n));

  for (gint64 b = 0; b < p->batch; b++)
    {
      F (to_col) ((const T *) v[1].data + b * p->n * p->n, a, p->n, p->n, ld);
      if (n > 0)
        L (potri) (&uplo, &n, a, &ld, &info, 1);
      if (info < 0)
        return lapack_argument_error (error, "potri", info);
      /* potri writes one triangle of the symmetric inverse: mirror it */
      for (gint64 i = 0; i < p->n; i++)
        for (gint64 j = 0; j < i; j++)
          if (uplo == 'U')
            a[i + j * p->n] = a[j + i * p->n];
          else
            a[j + i * p->n] = a[i + j * p->n];
      F (from_col) (a, (T *) v[0].data + b * p->n * p->n, p->n, p->n, ld);
    }
  return TRUE;
}

/* geqrf, with its workspace query; @a column-major (m, n) */
static gboolean
F (geqrf_one) (int m, int n, T *a, T *tau, GError **error)
{
  int lda = MAX (1, m), lwork = -1, info = 0;
  T query = 0;
  g_autofree T *work = NULL;

  if (m == 0 || n == 0)
    return TRUE;
  L (geqrf) (&m, &n, a, &lda, tau, &query, &lwork, &info);
  lwork = MAX (1, (int) query);
  work = g_new (T, lwork);
  L (geqrf) (&m, &n, a, &lda, tau, work, &lwork, &info);
  return info == 0 || lapack_argument_error (error, "geqrf", info);
}

/* orgqr: the first @n columns of Q from @k reflectors in @a (m, n) */
static gboolean
F (orgqr_one) (int m, int n, int k, T *a, const T *tau, GError **error)
{
  int lda = MAX (1, m), lwork = -1, info = 0;
  T query = 0;
  g_autofree T *work = NULL;

  if (m == 0 || n == 0)
    return TRUE;
  L (orgqr) (&m, &n, &k, a, &lda, tau, &query, &lwork, &info);
  lwork = MAX (1, (int) query);
  work = g_new (T, lwork);
  L (orgqr) (&m, &n, &k, a, &lda, tau, work, &lwork, &info);
  return info == 0 || lapack_argument_error (error, "orgqr", info);
}

static gboolean
F (geqrf) (const TsLinalg *p, const TsView *v, GError **error)
{
  gint64 kk = MIN (p->m, p->n);
  g_autofree T *a = g_new (T, MAX (1, p->m * p->n));

  for (gint64 b = 0; b < p->batch; b++)
    {
      F (to_col) ((const T *) v[1].data + b * p->m * p->n, a, p->m, p->n, MAX (1, p->m));
      if (!F (geqrf_one) ((int) p->m, (int) p->n, a, (T *) v[2].data + b * kk, error))
        return FALSE;
      F (from_col) (a, (T *) v[0].data + b * p->m * p->n, p->m, p->n, MAX (1, p->m));
    }
  return TRUE;
}

static gboolean
F (householder) (const TsLinalg *p, const TsView *v, GError **error)
{
  g_autofree T *a = g_new (T, MAX (1, p->m * p->n));

  for (gint64 b = 0; b < p->batch; b++)
    {
      F (to_col) ((const T *) v[1].data + b * p->m * p->n, a, p->m, p->n, MAX (1, p->m));
      if (!F (orgqr_one) ((int) p->m, (int) p->n, (int) p->k, a, (const T *) v[2].data + b * p->k, error))
        return FALSE;
      F (from_col) (a, (T *) v[0].data + b * p->m * p->n, p->m, p->n, MAX (1, p->m));
    }
  return TRUE;
}

/* Q (m, m or min) and R (m or min, n) from geqrf and orgqr, as
 * linalg_qr's CPU path computes them */
static gboolean
F (qr) (const TsLinalg *p, const TsView *v, GError **error)
{
  gint64 m = p->m, n = p->n, kk = MIN (m, n), ld = MAX (1, m);
  gboolean full = (p->flags & TS_LINALG_FULL) != 0;
  gint64 r_rows = full ? m : kk, q_cols = full ? m : kk;
  g_autofree T *a = g_new (T, MAX (1, m * n));
  g_autofree T *q = g_new (T, MAX (1, m * q_cols));
  g_autofree T *tau = g_new (T, MAX (1, kk));

  for (gint64 b = 0; b < p->batch; b++)
    {
      T *r = (T *) v[0].data + b * r_rows * n;

      F (to_col) ((const T *) v[1].data + b * m * n, a, m, n, ld);
      if (!F (geqrf_one) ((int) m, (int) n, a, tau, error))
        return FALSE;
      for (gint64 i = 0; i < r_rows; i++)
        for (gint64 j = 0; j < n; j++)
          r[i * n + j] = j >= i ? a[i + j * ld] : 0;
      if (!(p->flags & TS_LINALG_VECTORS))
        continue;
      memset (q, 0, (gsize) (m * q_cols) * sizeof (T));
      memcpy (q, a, (gsize) (m * kk) * sizeof (T));
      if (!F (orgqr_one) ((int) m, (int) q_cols, (int) kk, q, tau, error))
        return FALSE;
      F (from_col) (q, (T *) v[2].data + b * m * q_cols, m, q_cols, ld);
    }
  return TRUE;
}

/* gesdd, jobz 'A' (full_matrices), 'S' or 'N' (no compute_uv): PyTorch's
 * CPU driver */
static gboolean
F (svd) (const TsLinalg *p, const TsView *v, const char *op, GError **error)
{
  int m = (int) p->m, n = (int) p->n, kk = MIN (m, n), lda = MAX (1, m), info = 0, lwork = -1;
  gboolean vectors = (p->flags & TS_LINALG_VECTORS) != 0, full = (p->flags & TS_LINALG_FULL) != 0;
  char jobz = !vectors ? 'N' : full ? 'A' : 'S';
  int u_cols = full ? m : kk, vt_rows = full ? n : kk;
  int ldu = MAX (1, m), ldvt = MAX (1, vt_rows);
  T query = 0;
  g_autofree T *a = g_new (T, MAX (1, m * n));
  g_autofree T *u = g_new (T, vectors ? MAX (1, m * u_cols) : 1);
  g_autofree T *vt = g_new (T, vectors ? MAX (1, vt_rows * n) : 1);
  g_autofree int *iwork = g_new (int, MAX (1, 8 * kk));
  g_autofree T *work = NULL;

  if (m == 0 || n == 0)
    return TRUE;
  L (gesdd) (&jobz, &m, &n, a, &lda, v[0].data, u, &ldu, vt, &ldvt, &query, &lwork, iwork, &info, 1);
  lwork = MAX (1, (int) query);
  work = g_new (T, lwork);
  for (gint64 b = 0; b < p->batch; b++)
    {
      F (to_col) ((const T *) v[1].data + b * m * n, a, m, n, lda);
      L (gesdd) (&jobz, &m, &n, a, &lda, (T *) v[0].data + b * kk, u, &ldu, vt, &ldvt, work, &lwork, iwork,
                 &info, 1);
      if (info < 0)
        return lapack_argument_error (error, "gesdd", info);
      if (info > 0)
        return lapack_converge_error (error, op, info);
      if (!vectors)
        continue;
      F (from_col) (u, (T *) v[2].data + (gint64) b * m * u_cols, m, u_cols, ldu);
      F (from_col) (vt, (T *) v[3].data + (gint64) b * vt_rows * n, vt_rows, n, ldvt);
    }
  return TRUE;
}

/* syevd: eigenvalues ascending, the eigenvectors as columns */
static gboolean
F (eigh) (const TsLinalg *p, const TsView *v, const char *op, GError **error)
{
  int n = (int) p->n, lda = MAX (1, n), info = 0, lwork = -1, liwork = -1, iquery = 0;
  gboolean vectors = (p->flags & TS_LINALG_VECTORS) != 0;
  char jobz = vectors ? 'V' : 'N', uplo = (p->flags & TS_LINALG_UPPER) ? 'U' : 'L';
  T query = 0;
  g_autofree T *a = g_new (T, MAX (1, p->n * p->n));
  g_autofree T *work = NULL;
  g_autofree int *iwork = NULL;

  if (n == 0)
    return TRUE;
  L (syevd) (&jobz, &uplo, &n, a, &lda, v[0].data, &query, &lwork, &iquery, &liwork, &info, 1, 1);
  lwork = MAX (1, (int) query);
  liwork = MAX (1, iquery);
  work = g_new (T, lwork);
  iwork = g_new (int, liwork);
  for (gint64 b = 0; b < p->batch; b++)
    {
      F (to_col) ((const T *) v[1].data + b * p->n * p->n, a, p->n, p->n, lda);
      L (syevd) (&jobz, &uplo, &n, a, &lda, (T *) v[0].data + b * p->n, work, &lwork, iwork, &liwork, &info,
                 1, 1);
      if (info < 0)
        return lapack_argument_error (error, "syevd", info);
      if (info > 0)
        return lapack_converge_error (error, op, info);
      if (vectors)
        F (from_col) (a, (T *) v[2].data + b * p->n * p->n, p->n, p->n, lda);
    }
  return TRUE;
}

/* lstsq through the driver asked for: the solution is B's first n rows */
static gboolean
F (lstsq) (const TsLinalg *p, const TsView *v, const char *op, GError **error)
{
  int m = (int) p->m, n = (int) p->n, k = (int) p->k, kk = MIN (m, n);
  int lda = MAX (1, m), ldb = MAX (1, MAX (m, n)), info = 0, lwork = -1, rank = 0;
  T rcond = (T) p->rcond, query = 0;
  char trans = 'N';
  g_autofree T *a = g_new (T, MAX (1, m * n));
  g_autofree T *x = g_new0 (T, MAX (1, ldb * k));
  g_autofree int *jpvt = g_new0 (int, MAX (1, n));
  g_autofree int *iwork = g_new (int, MAX (1, 32 * kk + 11 * kk * 8));
  g_autofree T *s = g_new (T, MAX (1, kk));
  g_autofree T *work = NULL;

  for (gint64 b = 0; b < p->batch; b++)
    {
      F (to_col) ((const T *) v[1].data + b * p->m * p->n, a, p->m, p->n, lda);
      memset (x, 0, (gsize) (ldb * k) * sizeof (T));
      F (to_col) ((const T *) v[2].data + b * p->m * p->k, x, p->m, p->k, ldb);
      memset (jpvt, 0, (gsize) MAX (1, n) * sizeof (int));
      for (int pass = 0; pass < 2 && m > 0 && n > 0 && k > 0; pass++)
        {
          T *w = pass == 0 ? &query : work;

          lwork = pass == 0 ? -1 : MAX (1, (int) query);
          if (pass == 1)
            w = work = g_renew (T, work, lwork);
          switch ((TsLinalgDriver) p->driver)
            {
            case TS_LINALG_GELS:
              L (gels) (&trans, &m, &n, &k, a, &lda, x, &ldb, w, &lwork, &info, 1);
              break;
            case TS_LINALG_GELSY:
              L (gelsy) (&m, &n, &k, a, &lda, x, &ldb, jpvt, &rcond, &rank, w, &lwork, &info);
              break;
            case TS_LINALG_GELSD:
              L (gelsd) (&m, &n, &k, a, &lda, x, &ldb, s, &rcond, &rank, w, &lwork, iwork, &info);
              break;
            case TS_LINALG_GELSS:
            default:
              L (gelss) (&m, &n, &k, a, &lda, x, &ldb, s, &rcond, &rank, w, &lwork, &info);
              break;
            }
          if (info < 0)
            return lapack_argument_error (error, "gels", info);
        }
      if (info > 0)
        return lapack_converge_error (error, op, info);
      F (from_col) (x, (T *) v[0].data + b * p->n * p->k, p->n, p->k, ldb);
      if (v[3].data != NULL)
        ((gint64 *) v[3].data)[b] = rank;
      if (v[4].data != NULL)
        memcpy ((T *) v[4].data + b * kk, s, (gsize) kk * sizeof (T));
    }
  return TRUE;
}

static gboolean
F (run) (TsLinalgKernel kernel, const TsLinalg *p, const TsView *v, const char *op, GError **error)
{
  switch (kernel)
    {
    case TS_LINALG_LU_FACTOR: return F (lu_factor) (p, v, error);
    case TS_LINALG_LU_SOLVE: return F (lu_solve) (p, v, error);
    case TS_LINALG_SOLVE_TRIANGULAR: return F (solve_triangular) (p, v, error);
    case TS_LINALG_CHOLESKY: return F (cholesky) (p, v, error);
    case TS_LINALG_CHOLESKY_SOLVE: return F (cholesky_solve) (p, v, error);
    case TS_LINALG_CHOLESKY_INVERSE: return F (cholesky_inverse) (p, v, error);
    case TS_LINALG_GEQRF: return F (geqrf) (p, v, error);
    case TS_LINALG_HOUSEHOLDER: return F (householder) (p, v, error);
    case TS_LINALG_QR: return F (qr) (p, v, error);
    case TS_LINALG_SVD: return F (svd) (p, v, op, error);
    case TS_LINALG_EIGH: return F (eigh) (p, v, op, error);
    case TS_LINALG_LSTSQ: return F (lstsq) (p, v, op, error);
    default: break;
    }
  g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_ARGUMENT, "linalg kernel %d is not built", (int) kernel);
  return FALSE;
}
