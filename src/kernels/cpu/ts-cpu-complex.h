/* ts-cpu-complex.h: elementwise kernels of complex64 and complex128 tensors
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The binary and unary families call these when an operand or the result
 * is complex: the real kernels go through double and would drop the
 * imaginary part. The math is C99's float/double _Complex, which is what
 * c10::complex uses on GCC for division and libm's functions (cexp, clog,
 * csqrt...), so complex64 computes in float as PyTorch's CPU kernels do.
 * Ops PyTorch refuses for complex operands fail here with its message.
 */

#pragma once

#include "ts-cpu-kernels.h"

G_BEGIN_DECLS

/* FALSE, with PyTorch's message, when @op has no complex kernel. */
gboolean ts_complex_binary_check (TsBinaryOp    op,
                                  TsDType       common,
                                  GError      **error);
gboolean ts_complex_unary_check  (TsUnaryOp     op,
                                  TsDType       input,
                                  GError      **error);

/* The loops of ts_cpu_binary and ts_cpu_unary once their checks passed
 * and their iterator is set up (operands a, b, out; in, out). Binary:
 * computed in @common (complex64 or complex128), a and b of any dtype
 * (real operands have imaginary part 0), out complex, or bool for
 * comparisons and logical ops. Unary: a complex @in; out complex, real
 * (abs, angle) or bool. */
void     ts_cpu_complex_binary   (TsBinaryOp    op,
                                  const TsIter *iter,
                                  TsDType       a,
                                  TsDType       b,
                                  TsDType       common,
                                  TsDType       out);
void     ts_cpu_complex_unary    (TsUnaryOp     op,
                                  const TsIter *iter,
                                  TsDType       in,
                                  TsDType       out);

/* One element of any dtype as a complex double, and back: the conversions
 * of copy (complex to real keeps the real part, as c10's static_cast). */
void     ts_complex_load         (TsDType       dtype,
                                  const void   *p,
                                  double       *re,
                                  double       *im);
void     ts_complex_store        (TsDType       dtype,
                                  void         *p,
                                  double        re,
                                  double        im);

G_END_DECLS
