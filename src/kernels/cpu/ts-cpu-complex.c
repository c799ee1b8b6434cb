/* ts-cpu-complex.c: elementwise kernels of complex tensors
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * See ts-cpu-complex.h. Written once for float and double _Complex with a
 * macro, as the real kernels are for float and double.
 */

#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ts-cpu-complex.h"
#include "ts-cpu-kernels-private.h"

void
ts_complex_load (TsDType     dtype,
                 const void *p,
                 double     *re,
                 double     *im)
{
  if (dtype == TS_DTYPE_COMPLEX64)
    {
      float v[2];

      memcpy (v, p, sizeof v);
      *re = v[0];
      *im = v[1];
    }
  else if (dtype == TS_DTYPE_COMPLEX128)
    {
      double v[2];

      memcpy (v, p, sizeof v);
      *re = v[0];
      *im = v[1];
    }
  else
    {
      *re = ts_dtype_load (dtype, p);
      *im = 0.0;
    }
}

void
ts_complex_store (TsDType  dtype,
                  void    *p,
                  double   re,
                  double   im)
{
  if (dtype == TS_DTYPE_COMPLEX64)
    {
      float v[2] = { (float) re, (float) im };

      memcpy (p, v, sizeof v);
    }
  else if (dtype == TS_DTYPE_COMPLEX128)
    {
      double v[2] = { re, im };

      memcpy (p, v, sizeof v);
    }
  else
    ts_dtype_store (dtype, p, re);
}

/* -- Checks ---------------------------------------------------------------- */

static gboolean
fail_dtype (GError     **error,
            const char  *message)
{
  return ts_kernel_fail (error, TS_KERNEL_ERROR_DTYPE, "%s", message);
}

gboolean
ts_complex_binary_check (TsBinaryOp   op,
                         TsDType      common,
                         GError     **error)
{
  const char *kernel;

  switch (op)
    {
    case TS_BINARY_ADD:
    case TS_BINARY_SUB:
    case TS_BINARY_MUL:
    case TS_BINARY_DIV:
    case TS_BINARY_POW:
    case TS_BINARY_EQ:
    case TS_BINARY_NE:
    case TS_BINARY_LOGICAL_AND:
    case TS_BINARY_LOGICAL_OR:
    case TS_BINARY_LOGICAL_XOR:
      return TRUE;
    case TS_BINARY_MAXIMUM:
      return fail_dtype (error, "maximum not implemented for complex tensors.");
    case TS_BINARY_MINIMUM:
      return fail_dtype (error, "minimum not implemented for complex tensors.");
    case TS_BINARY_CLAMP_MIN:
    case TS_BINARY_CLAMP_MAX:
      return fail_dtype (error, "clamp is not supported for complex types");
    /* the names of PyTorch's CPU kernels in its dispatch messages */
    case TS_BINARY_FLOOR_DIVIDE:
    case TS_BINARY_DIV_FLOOR: kernel = "div_floor_cpu"; break;
    case TS_BINARY_DIV_TRUNC: kernel = "div_trunc_cpu"; break;
    case TS_BINARY_BITWISE_LEFT_SHIFT: kernel = "lshift_cpu"; break;
    case TS_BINARY_BITWISE_RIGHT_SHIFT: kernel = "rshift_cpu"; break;
    case TS_BINARY_REMAINDER: kernel = "remainder_cpu"; break;
    case TS_BINARY_FMOD: kernel = "fmod_cpu"; break;
    case TS_BINARY_LT: kernel = "lt_cpu"; break;
    case TS_BINARY_LE: kernel = "le_cpu"; break;
    case TS_BINARY_GT: kernel = "gt_cpu"; break;
    case TS_BINARY_GE: kernel = "ge_cpu"; break;
    case TS_BINARY_BITWISE_AND: kernel = "bitwise_and_cpu"; break;
    case TS_BINARY_BITWISE_OR: kernel = "bitwise_or_cpu"; break;
    case TS_BINARY_BITWISE_XOR: kernel = "bitwise_xor_cpu"; break;
    case TS_N_BINARY_OPS:
    default:
      kernel = ts_binary_op_name (op);
      break;
    }
  return ts_kernel_fail_dispatch (error, kernel, common);
}

gboolean
ts_complex_unary_check (TsUnaryOp   op,
                        TsDType     input,
                        GError    **error)
{
  const char *kernel;

  switch (op)
    {
    case TS_UNARY_NEG: case TS_UNARY_ABS: case TS_UNARY_EXP: case TS_UNARY_LOG:
    case TS_UNARY_LOG2: case TS_UNARY_LOG10: case TS_UNARY_SQRT: case TS_UNARY_RSQRT:
    case TS_UNARY_SIN: case TS_UNARY_COS: case TS_UNARY_TAN: case TS_UNARY_SINH:
    case TS_UNARY_COSH: case TS_UNARY_TANH: case TS_UNARY_ASIN: case TS_UNARY_ACOS:
    case TS_UNARY_ATAN: case TS_UNARY_ASINH: case TS_UNARY_ACOSH: case TS_UNARY_ATANH:
    case TS_UNARY_SIGMOID: case TS_UNARY_RECIPROCAL: case TS_UNARY_LOGICAL_NOT:
    case TS_UNARY_ISNAN: case TS_UNARY_ISINF: case TS_UNARY_ISFINITE:
    case TS_UNARY_ANGLE: case TS_UNARY_CONJ_PHYSICAL:
      return TRUE;
    case TS_UNARY_FLOOR:
      return fail_dtype (error, "floor is not supported for complex inputs");
    case TS_UNARY_CEIL:
      return fail_dtype (error, "ceil is not supported for complex inputs");
    case TS_UNARY_TRUNC:
      return fail_dtype (error, "trunc is not supported for complex inputs");
    case TS_UNARY_RELU:
      return fail_dtype (error, "clamp is not supported for complex types");
    case TS_UNARY_SIGN:
      return fail_dtype (error, "Unlike NumPy, torch.sign is not intended to support complex numbers. "
                                "Please use torch.sgn instead.");
    /* the names of PyTorch's CPU kernels in its dispatch messages */
    case TS_UNARY_ERF: kernel = "erf_vml_cpu"; break;
    case TS_UNARY_ERFC: kernel = "erfc_vml_cpu"; break;
    case TS_UNARY_ERFINV: kernel = "erfinv_cpu"; break;
    case TS_UNARY_EXPM1: kernel = "expm1_vml_cpu"; break;
    case TS_UNARY_LOG1P: kernel = "log1p_vml_cpu"; break;
    case TS_UNARY_ROUND: kernel = "round_vml_cpu"; break;
    case TS_UNARY_FRAC: kernel = "frac_cpu"; break;
    case TS_UNARY_EXP2: kernel = "exp2"; break;
    case TS_UNARY_BITWISE_NOT: kernel = "bitwise_not_cpu"; break;
    case TS_N_UNARY_OPS:
    default:
      kernel = ts_unary_op_name (op);
      break;
    }
  return ts_kernel_fail_dispatch (error, kernel, input);
}

/* -- Math, once for float and double ------------------------------------- */

/* S is libm's suffix: "" for double, f for float. */
#define DEFINE_COMPLEX_MATH(SUFFIX, T, S)                                      \
static inline T _Complex                                                      \
binary_##SUFFIX (TsBinaryOp op, T _Complex a, T _Complex b)                   \
{                                                                             \
  switch (op)                                                                 \
    {                                                                         \
    case TS_BINARY_ADD: return a + b;                                         \
    case TS_BINARY_SUB: return a - b;                                         \
    case TS_BINARY_MUL: return a * b;                                         \
    case TS_BINARY_DIV: return a / b;                                         \
    case TS_BINARY_POW: return cpow##S (a, b);                                \
    case TS_BINARY_EQ: return a == b;                                         \
    case TS_BINARY_NE: return a != b;                                         \
    case TS_BINARY_LOGICAL_AND: return a != 0 && b != 0;                      \
    case TS_BINARY_LOGICAL_OR: return a != 0 || b != 0;                       \
    case TS_BINARY_LOGICAL_XOR: return (a != 0) != (b != 0);                  \
    case TS_N_BINARY_OPS:                                                     \
    default:                                                                  \
      g_assert_not_reached ();                                                \
    }                                                                         \
}                                                                             \
                                                                              \
static inline T _Complex                                                      \
unary_##SUFFIX (TsUnaryOp op, T _Complex x)                                   \
{                                                                             \
  switch (op)                                                                 \
    {                                                                         \
    case TS_UNARY_NEG: return -x;                                             \
    case TS_UNARY_ABS: return cabs##S (x);                                    \
    case TS_UNARY_ANGLE: return carg##S (x);                                  \
    case TS_UNARY_CONJ_PHYSICAL: return conj##S (x);                          \
    case TS_UNARY_EXP: return cexp##S (x);                                    \
    case TS_UNARY_LOG: return clog##S (x);                                    \
    case TS_UNARY_LOG2: return clog##S (x) / (T) M_LN2;                       \
    case TS_UNARY_LOG10: return clog##S (x) / (T) M_LN10;                     \
    case TS_UNARY_SQRT: return csqrt##S (x);                                  \
    case TS_UNARY_RSQRT: return (T) 1 / csqrt##S (x);                         \
    case TS_UNARY_SIN: return csin##S (x);                                    \
    case TS_UNARY_COS: return ccos##S (x);                                    \
    case TS_UNARY_TAN: return ctan##S (x);                                    \
    case TS_UNARY_SINH: return csinh##S (x);                                  \
    case TS_UNARY_COSH: return ccosh##S (x);                                  \
    case TS_UNARY_TANH: return ctanh##S (x);                                  \
    case TS_UNARY_ASIN: return casin##S (x);                                  \
    case TS_UNARY_ACOS: return cacos##S (x);                                  \
    case TS_UNARY_ATAN: return catan##S (x);                                  \
    case TS_UNARY_ASINH: return casinh##S (x);                                \
    case TS_UNARY_ACOSH: return cacosh##S (x);                                \
    case TS_UNARY_ATANH: return catanh##S (x);                                \
    case TS_UNARY_SIGMOID: return (T) 1 / ((T) 1 + cexp##S (-x));             \
    case TS_UNARY_RECIPROCAL: return (T) 1 / x;                               \
    case TS_UNARY_LOGICAL_NOT: return x == 0;                                 \
    case TS_UNARY_ISNAN: return isnan (creal##S (x)) || isnan (cimag##S (x)); \
    case TS_UNARY_ISINF: return isinf (creal##S (x)) || isinf (cimag##S (x)); \
    case TS_UNARY_ISFINITE: return isfinite (creal##S (x)) && isfinite (cimag##S (x)); \
    default:                                                                  \
      g_assert_not_reached ();                                                \
    }                                                                         \
}

DEFINE_COMPLEX_MATH (c64, float, f)
DEFINE_COMPLEX_MATH (c128, double, )

static inline double _Complex
load_c (TsDType     dtype,
        const char *p)
{
  double re, im;

  ts_complex_load (dtype, p, &re, &im);
  return CMPLX (re, im);
}

static inline void
store_c (TsDType         dtype,
         char           *p,
         double _Complex v)
{
  ts_complex_store (dtype, p, creal (v), cimag (v));
}

/* -- Loops ---------------------------------------------------------------- */

typedef struct
{
  TsBinaryOp binary;
  TsUnaryOp  unary;
  TsDType    in[2];
  TsDType    out;
  gboolean   single;   /* complex64: the math in float */
} ComplexCtx;

static void
binary_loop (char         **ptrs,
             const gint64  *strides,
             gint64         n,
             gpointer       user_data)
{
  const ComplexCtx *ctx = user_data;
  char *pa = ptrs[0], *pb = ptrs[1], *po = ptrs[2];

  for (gint64 i = 0; i < n; i++, pa += strides[0], pb += strides[1], po += strides[2])
    {
      double _Complex a = load_c (ctx->in[0], pa), b = load_c (ctx->in[1], pb), r;

      if (ctx->single)
        r = binary_c64 (ctx->binary, (float _Complex) a, (float _Complex) b);
      else
        r = binary_c128 (ctx->binary, a, b);
      store_c (ctx->out, po, r);
    }
}

static void
unary_loop (char         **ptrs,
            const gint64  *strides,
            gint64         n,
            gpointer       user_data)
{
  const ComplexCtx *ctx = user_data;
  char *pi = ptrs[0], *po = ptrs[1];

  for (gint64 i = 0; i < n; i++, pi += strides[0], po += strides[1])
    {
      double _Complex x = load_c (ctx->in[0], pi), r;

      r = ctx->single ? unary_c64 (ctx->unary, (float _Complex) x) : unary_c128 (ctx->unary, x);
      store_c (ctx->out, po, r);
    }
}

void
ts_cpu_complex_binary (TsBinaryOp    op,
                       const TsIter *iter,
                       TsDType       a,
                       TsDType       b,
                       TsDType       common,
                       TsDType       out)
{
  ComplexCtx ctx = { .binary = op, .in = { a, b }, .out = out, .single = common == TS_DTYPE_COMPLEX64 };

  ts_iter_for_each (iter, binary_loop, &ctx);
}

void
ts_cpu_complex_unary (TsUnaryOp     op,
                      const TsIter *iter,
                      TsDType       in,
                      TsDType       out)
{
  ComplexCtx ctx = { .unary = op, .in = { in }, .out = out, .single = in == TS_DTYPE_COMPLEX64 };

  ts_iter_for_each (iter, unary_loop, &ctx);
}
