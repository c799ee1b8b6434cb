/* test-cpu-fft.c: the FFT and complex elementwise kernels, on exact values
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Expected values from python3-torch 1.13 (torch.fft, complex tensor
 * arithmetic) on the same inputs. Small transforms of small integers are
 * exact in float, so they are compared exactly; scaled ones and
 * transcendental functions to a few ulps.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-cpu-complex.h"
#include "ts-cpu-fft.h"

static const float samples[2][4] = { { 1, 2, 3, 4 }, { 0, 1, 0, -1 } };

static void
view (TsView      *v,
      TsDType      dtype,
      gpointer     data,
      guint        ndim,
      gint64       d0,
      gint64       d1)
{
  gint64 shape[2] = { d0, d1 };

  ts_view_init (v, dtype, data, ndim, shape, NULL, 0);
}

static void
assert_complex (const float *got,
                const float *want,
                guint        n,
                float        tolerance)
{
  for (guint i = 0; i < 2 * n; i++)
    {
      g_test_message ("component %u: %g, want %g", i, got[i], want[i]);
      if (tolerance == 0)
        g_assert_cmpfloat (got[i], ==, want[i]);
      else
        g_assert_cmpfloat_with_epsilon (got[i], want[i], tolerance);
    }
}

/* fft(x) over the last dim: r2c two-sided, in float */
static void
test_r2c_full (void)
{
  static const float want[8][2] = { { 10, 0 }, { -2, 2 }, { -2, 0 }, { -2, -2 },
                                    { 0, 0 }, { 0, -2 }, { 0, 0 }, { 0, 2 } };
  float out[8][2];
  TsFftDesc desc = { .kind = TS_FFT_R2C, .n_dims = 1, .dims = { 1 }, .norm = TS_FFT_NORM_NONE, .flag = FALSE };
  TsView in, vout;
  gint64 shape[2];

  view (&in, TS_DTYPE_FLOAT32, (gpointer) samples, 2, 2, 4);
  g_assert_true (ts_fft_output_shape (&desc, 2, in.shape, 0, shape, NULL));
  g_assert_cmpint (shape[1], ==, 4);
  view (&vout, TS_DTYPE_COMPLEX64, out, 2, 2, 4);
  g_assert_true (ts_cpu_fft (&desc, &in, &vout, NULL));
  assert_complex (&out[0][0], &want[0][0], 8, 0);
}

/* rfft(x, dim=0): onesided over a strided dim */
static void
test_r2c_dim0 (void)
{
  static const float want[2][4][2] = { { { 1, 0 }, { 3, 0 }, { 3, 0 }, { 3, 0 } },
                                       { { 1, 0 }, { 1, 0 }, { 3, 0 }, { 5, 0 } } };
  float out[2][4][2];
  TsFftDesc desc = { .kind = TS_FFT_R2C, .n_dims = 1, .dims = { 0 }, .flag = TRUE };
  TsView in, vout;
  gint64 shape[2];

  view (&in, TS_DTYPE_FLOAT32, (gpointer) samples, 2, 2, 4);
  g_assert_true (ts_fft_output_shape (&desc, 2, in.shape, 0, shape, NULL));
  g_assert_cmpint (shape[0], ==, 2);
  view (&vout, TS_DTYPE_COMPLEX64, out, 2, 2, 4);
  g_assert_true (ts_cpu_fft (&desc, &in, &vout, NULL));
  assert_complex (&out[0][0][0], &want[0][0][0], 8, 0);
}

/* fft2(x, norm="ortho"): c2c over both dims of the complex samples */
static void
test_c2c_ortho (void)
{
  static const float want[8][2] = { { 3.5355339f, 0 }, { -0.70710678f, 0 }, { -0.70710678f, 0 },
                                    { -0.70710678f, 0 }, { 3.5355339f, 0 }, { -0.70710678f, 1.4142135f },
                                    { -0.70710678f, 0 }, { -0.70710678f, -1.4142135f } };
  float in_c[8][2], out[8][2];
  TsFftDesc desc = { .kind = TS_FFT_C2C, .n_dims = 2, .dims = { 0, 1 }, .norm = TS_FFT_NORM_BY_ROOT_N,
                     .flag = TRUE };
  TsView in, vout;

  for (guint i = 0; i < 8; i++)
    {
      in_c[i][0] = samples[i / 4][i % 4];
      in_c[i][1] = 0;
    }
  view (&in, TS_DTYPE_COMPLEX64, in_c, 2, 2, 4);
  view (&vout, TS_DTYPE_COMPLEX64, out, 2, 2, 4);
  g_assert_true (ts_cpu_fft (&desc, &in, &vout, NULL));
  assert_complex (&out[0][0], &want[0][0], 8, 1e-6f);
}

/* irfft([10, -2+2j, -2], n=4): c2r by 1/n, in double; the input is kept */
static void
test_c2r (void)
{
  double in_c[3][2] = { { 10, 0 }, { -2, 2 }, { -2, 0 } };
  double out[4];
  TsFftDesc desc = { .kind = TS_FFT_C2R, .n_dims = 1, .dims = { 0 }, .norm = TS_FFT_NORM_BY_N };
  TsView in, vout;
  gint64 shape[1];

  view (&in, TS_DTYPE_COMPLEX128, in_c, 1, 3, 0);
  g_assert_true (ts_fft_output_shape (&desc, 1, in.shape, 4, shape, NULL));
  g_assert_cmpint (shape[0], ==, 4);
  view (&vout, TS_DTYPE_FLOAT64, out, 1, 4, 0);
  g_assert_true (ts_cpu_fft (&desc, &in, &vout, NULL));
  for (guint i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (out[i], i + 1.0, 1e-12);
  g_assert_cmpfloat (in_c[1][1], ==, 2);
}

static void
test_empty_transform (void)
{
  TsFftDesc desc = { .kind = TS_FFT_C2R, .n_dims = 1, .dims = { 0 } };
  gint64 in_shape[1] = { 1 }, shape[1];
  g_autoptr(GError) error = NULL;

  /* irfft of one point: 2 * (1 - 1) = 0 points */
  g_assert_false (ts_fft_output_shape (&desc, 1, in_shape, 0, shape, &error));
  g_assert_cmpstr (error->message, ==, "Invalid number of data points (0) specified");
}

static void
test_complex_binary (void)
{
  float a[2][2] = { { 1, 2 }, { -3, 0.5f } };
  float b[2][2] = { { 2, -1 }, { 0.25f, 4 } };
  static const float mul[4] = { 4, 3, -2.75f, -11.875f };
  static const float div[4] = { 0, 1, 0.077821009f, 0.75486380f };
  float out[2][2];
  TsView va, vb, vo;

  view (&va, TS_DTYPE_COMPLEX64, a, 1, 2, 0);
  view (&vb, TS_DTYPE_COMPLEX64, b, 1, 2, 0);
  view (&vo, TS_DTYPE_COMPLEX64, out, 1, 2, 0);
  g_assert_true (ts_cpu_binary (TS_BINARY_MUL, &va, &vb, TS_DTYPE_COMPLEX64, &vo, NULL));
  assert_complex (&out[0][0], mul, 2, 0);
  g_assert_true (ts_cpu_binary (TS_BINARY_DIV, &va, &vb, TS_DTYPE_COMPLEX64, &vo, NULL));
  assert_complex (&out[0][0], div, 2, 1e-7f);
}

static void
test_complex_unary (void)
{
  float a[2][2] = { { 1, 2 }, { -3, 0.5f } };
  static const float exp_want[4] = { -1.1312044f, 2.4717267f, 0.043692261f, 0.023869192f };
  float out[2][2], abs_out[2];
  TsView va, vo;
  g_autoptr(GError) error = NULL;

  view (&va, TS_DTYPE_COMPLEX64, a, 1, 2, 0);
  view (&vo, TS_DTYPE_COMPLEX64, out, 1, 2, 0);
  g_assert_true (ts_cpu_unary (TS_UNARY_EXP, &va, &vo, NULL));
  assert_complex (&out[0][0], exp_want, 2, 1e-6f);
  view (&vo, TS_DTYPE_FLOAT32, abs_out, 1, 2, 0);
  g_assert_true (ts_cpu_unary (TS_UNARY_ABS, &va, &vo, NULL));
  g_assert_cmpfloat (abs_out[0], ==, 2.2360680103302f);
  g_assert_cmpfloat (abs_out[1], ==, 3.041381359100342f);
  /* PyTorch's message for an op it refuses */
  g_assert_false (ts_cpu_unary (TS_UNARY_FLOOR, &va, &vo, &error));
  g_assert_cmpstr (error->message, ==, "floor is not supported for complex inputs");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cpu-fft/r2c-full", test_r2c_full);
  g_test_add_func ("/cpu-fft/r2c-dim0", test_r2c_dim0);
  g_test_add_func ("/cpu-fft/c2c-ortho", test_c2c_ortho);
  g_test_add_func ("/cpu-fft/c2r", test_c2r);
  g_test_add_func ("/cpu-fft/empty-transform", test_empty_transform);
  g_test_add_func ("/cpu-complex/binary", test_complex_binary);
  g_test_add_func ("/cpu-complex/unary", test_complex_unary);
  return g_test_run ();
}
