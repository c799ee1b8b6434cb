/* ts-cpu-elementwise.c: binary and unary ops, fill, copy and ranges
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The generic path loads every element as a double (or an int64 for
 * integer math), rounds it to the compute dtype, computes, and stores with
 * conversion. Same-dtype float32/float64 arithmetic has typed loops so that
 * the common case runs at memory speed; float16/bfloat16 (which compute in
 * float32) convert runs of TS_CPU_RUN elements to float32 and back, so that
 * they run at most about 2x slower per element than float32.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-cpu-kernels.h"
#include "ts-cpu-complex.h"
#include "ts-cpu-convert.h"
#include "ts-cpu-vector-private.h"

/* Names and dtype rules from the op list (ts-op-list.def). */
static const char *binary_names[TS_N_BINARY_OPS] = {
#define TS_OP(ID, FAMILY, name, RULE, KERNEL, ...) TS_OP_ELEMENTWISE_##FAMILY (TS_OP_INIT (KERNEL, name), )
#include "ts-op-list.def"
};

static const char *unary_names[TS_N_UNARY_OPS] = {
#define TS_OP(ID, FAMILY, name, RULE, KERNEL, ...) TS_OP_ELEMENTWISE_##FAMILY (, TS_OP_INIT (KERNEL, name))
#include "ts-op-list.def"
};

static const TsOpDtypeRule binary_rules[TS_N_BINARY_OPS] = {
#define TS_OP(ID, FAMILY, name, RULE, KERNEL, ...) \
  TS_OP_ELEMENTWISE_##FAMILY (TS_OP_INIT (KERNEL, TS_OP_RULE_##RULE), )
#include "ts-op-list.def"
};

static const TsOpDtypeRule unary_rules[TS_N_UNARY_OPS] = {
#define TS_OP(ID, FAMILY, name, RULE, KERNEL, ...) \
  TS_OP_ELEMENTWISE_##FAMILY (, TS_OP_INIT (KERNEL, TS_OP_RULE_##RULE))
#include "ts-op-list.def"
};

const char *
ts_binary_op_name (TsBinaryOp op)
{
  g_return_val_if_fail (op < TS_N_BINARY_OPS, NULL);
  return binary_names[op];
}

const char *
ts_unary_op_name (TsUnaryOp op)
{
  g_return_val_if_fail (op < TS_N_UNARY_OPS, NULL);
  return unary_names[op];
}

static gboolean
binary_is_comparison (TsBinaryOp op)
{
  return binary_rules[op] == TS_OP_RULE_COMPARE;
}

static gboolean
binary_is_logical (TsBinaryOp op)
{
  return binary_rules[op] == TS_OP_RULE_LOGICAL;
}

static gboolean
binary_is_bitwise (TsBinaryOp op)
{
  return binary_rules[op] == TS_OP_RULE_BITWISE;
}

TsDType
ts_binary_compute_dtype (TsBinaryOp op,
                         TsDType    common)
{
  g_return_val_if_fail (ts_dtype_is_valid (common), TS_DTYPE_UNDEFINED);

  if (binary_is_logical (op))
    return TS_DTYPE_BOOL;
  if (binary_rules[op] == TS_OP_RULE_TRUE_DIVIDE && !ts_dtype_is_floating (common) &&
      !ts_dtype_is_complex (common))
    return ts_dtype_get_default ();
  return common;
}

TsDType
ts_binary_result_dtype (TsBinaryOp op,
                        TsDType    common)
{
  if (binary_is_comparison (op) || binary_is_logical (op))
    return TS_DTYPE_BOOL;
  return ts_binary_compute_dtype (op, common);
}

TsDType
ts_unary_result_dtype (TsUnaryOp op,
                       TsDType   input)
{
  g_return_val_if_fail (ts_dtype_is_valid (input), TS_DTYPE_UNDEFINED);

  if (unary_rules[op] == TS_OP_RULE_BOOL_RESULT)
    return TS_DTYPE_BOOL;
  /* |z| and arg z are real; the rest keep the complex dtype */
  if (ts_dtype_is_complex (input))
    return op == TS_UNARY_ABS || op == TS_UNARY_ANGLE ? ts_dtype_to_real (input) : input;
  if (unary_rules[op] == TS_OP_RULE_FLOAT && !ts_dtype_is_floating (input))
    return ts_dtype_get_default ();
  return input;
}

/* A double holding a value of some dtype, rounded to @dtype as a C++
 * static_cast to that type would (floats only). */
static inline double
round_to (TsDType dtype,
          double  v)
{
  switch (dtype)
    {
    case TS_DTYPE_FLOAT32: return (float)v;
    case TS_DTYPE_FLOAT16: return ts_half_to_float (ts_float_to_half ((float)v));
    case TS_DTYPE_BFLOAT16: return ts_bfloat16_to_float (ts_float_to_bfloat16 ((float)v));
    case TS_DTYPE_FLOAT64:
    case TS_DTYPE_INT64:
    case TS_DTYPE_INT32:
    case TS_DTYPE_UINT8:
    case TS_DTYPE_BOOL:
    case TS_DTYPE_INT8:
    case TS_DTYPE_INT16:
    case TS_DTYPE_COMPLEX64:
    case TS_DTYPE_COMPLEX128:
    case TS_N_DTYPES:
    case TS_DTYPE_UNDEFINED:
    default:
      return v;
    }
}

/* An integer operand cast to the integer compute dtype, as TensorIterator
 * casts every input to the common dtype before computing: `int8 < 200`
 * compares with -56, `uint8 < 300` with 44. Wrapping through unsigned
 * types never overflows. */
static inline gint64
wrap_to (TsDType dtype,
         gint64  v)
{
  switch (dtype)
    {
    case TS_DTYPE_INT32: return (gint32)(guint32)(guint64)v;
    case TS_DTYPE_INT16: return (gint16)(guint16)(guint64)v;
    case TS_DTYPE_INT8: return (gint8)(guint8)(guint64)v;
    case TS_DTYPE_UINT8: return (guint8)(guint64)v;
    case TS_DTYPE_INT64:
    case TS_DTYPE_BOOL:
    case TS_DTYPE_FLOAT32:
    case TS_DTYPE_FLOAT64:
    case TS_DTYPE_FLOAT16:
    case TS_DTYPE_BFLOAT16:
    case TS_DTYPE_COMPLEX64:
    case TS_DTYPE_COMPLEX128:
    case TS_N_DTYPES:
    case TS_DTYPE_UNDEFINED:
    default:
      return v;
    }
}

/* Floating binary math, written once for float and double: the float
 * instance is what float32/float16/bfloat16 compute in (PyTorch's opmath). */
#define DEFINE_FLOAT_BINARY(NAME, T, S)                                       \
static inline T                                                               \
NAME (TsBinaryOp op, T a, T b)                                                \
{                                                                             \
  switch (op)                                                                 \
    {                                                                         \
    case TS_BINARY_ADD: return a + b;                                         \
    case TS_BINARY_SUB: return a - b;                                         \
    case TS_BINARY_MUL: return a * b;                                         \
    case TS_BINARY_DIV: return a / b;                                         \
    case TS_BINARY_DIV_TRUNC: return trunc##S (a / b);                        \
    case TS_BINARY_DIV_FLOOR:                                                 \
    case TS_BINARY_FLOOR_DIVIDE:                                              \
      {                                                                       \
        T mod, div, fl;                                                       \
        if (b == 0)                                                           \
          return a / b;                                                       \
        mod = fmod##S (a, b);                                                 \
        div = (a - mod) / b;                                                  \
        if (mod != 0 && (b < 0) != (mod < 0))                                 \
          div -= (T)1;                                                        \
        if (div == 0)                                                         \
          return copysign##S ((T)0, a / b);                                   \
        fl = floor##S (div);                                                  \
        if (div - fl > (T)0.5)                                                \
          fl += (T)1;                                                         \
        return fl;                                                            \
      }                                                                       \
    case TS_BINARY_REMAINDER:                                                 \
      {                                                                       \
        T mod = fmod##S (a, b);                                               \
        if (mod != 0 && (b < 0) != (mod < 0))                                 \
          mod += b;                                                           \
        return mod;                                                           \
      }                                                                       \
    case TS_BINARY_FMOD: return fmod##S (a, b);                               \
    case TS_BINARY_ATAN2: return atan2##S (a, b);                             \
    case TS_BINARY_HYPOT: return hypot##S (a, b);                             \
    case TS_BINARY_COPYSIGN: return copysign##S (a, b);                       \
    case TS_BINARY_NEXTAFTER: return nextafter##S (a, b);                     \
    case TS_BINARY_LOGICAL_XOR: return (a != 0) != (b != 0);                  \
    case TS_BINARY_POW: return pow##S (a, b);                                 \
    /* clamp_min and clamp_max propagate a NaN bound too */                  \
    case TS_BINARY_CLAMP_MIN:                                                 \
    case TS_BINARY_MAXIMUM: return isnan (a) || isnan (b) ? (T)NAN : (a > b ? a : b); \
    case TS_BINARY_CLAMP_MAX:                                                 \
    case TS_BINARY_MINIMUM: return isnan (a) || isnan (b) ? (T)NAN : (a < b ? a : b); \
    case TS_BINARY_EQ: return a == b;                                         \
    case TS_BINARY_NE: return a != b;                                         \
    case TS_BINARY_LT: return a < b;                                          \
    case TS_BINARY_LE: return a <= b;                                         \
    case TS_BINARY_GT: return a > b;                                          \
    case TS_BINARY_GE: return a >= b;                                         \
    case TS_BINARY_LOGICAL_AND: return a != 0 && b != 0;                      \
    case TS_BINARY_LOGICAL_OR: return a != 0 || b != 0;                       \
    case TS_BINARY_BITWISE_AND: /* rejected for floats by ts_cpu_binary */   \
    case TS_BINARY_BITWISE_OR:                                                \
    case TS_BINARY_BITWISE_XOR:                                               \
    case TS_BINARY_BITWISE_LEFT_SHIFT:                                        \
    case TS_BINARY_BITWISE_RIGHT_SHIFT:                                       \
    case TS_N_BINARY_OPS:                                                     \
    default:                                                                  \
      g_assert_not_reached ();                                                \
    }                                                                         \
}

DEFINE_FLOAT_BINARY (binary_f64, double, )
DEFINE_FLOAT_BINARY (binary_f32, float, f)

/* PyTorch's powi: integer powers, negative exponents give 0 except for
 * bases 1 and -1. */
static gint64
powi (gint64 a,
      gint64 b)
{
  guint64 result = 1;
  guint64 base = (guint64)a;

  if (b < 0)
    {
      if (a == 1)
        return 1;
      if (a == -1)
        return (b & 1) ? -1 : 1;
      return 0;
    }
  while (b)
    {
      if (b & 1)
        result *= base;
      b >>= 1;
      base *= base;
    }
  return (gint64)result;
}

/* The ops whose integer form divides, and refuses a zero divisor */
static inline gboolean
binary_divides (TsBinaryOp op)
{
  return op == TS_BINARY_FLOOR_DIVIDE || op == TS_BINARY_DIV_FLOOR || op == TS_BINARY_DIV_TRUNC ||
         op == TS_BINARY_REMAINDER || op == TS_BINARY_FMOD;
}

/* Integer math wraps (through unsigned arithmetic, never UB). Division by
 * zero was ruled out before. */
static inline gint64
binary_int (TsBinaryOp op,
            gint64     a,
            gint64     b)
{
  switch (op)
    {
    case TS_BINARY_ADD: return (gint64)((guint64)a + (guint64)b);
    case TS_BINARY_SUB: return (gint64)((guint64)a - (guint64)b);
    case TS_BINARY_MUL: return (gint64)((guint64)a * (guint64)b);
    case TS_BINARY_DIV_TRUNC:
      /* C's division truncates; -1 wraps as the other ops do */
      return b == -1 ? (gint64)(0 - (guint64)a) : a / b;
    case TS_BINARY_DIV_FLOOR:
    case TS_BINARY_FLOOR_DIVIDE:
      {
        gint64 q, r;
        if (b == -1)
          return (gint64)(0 - (guint64)a);
        q = a / b;
        r = a % b;
        if (r != 0 && ((r < 0) != (b < 0)))
          q--;
        return q;
      }
    case TS_BINARY_REMAINDER:
      {
        gint64 r;
        if (b == -1)
          return 0;
        r = a % b;
        if (r != 0 && ((r < 0) != (b < 0)))
          r += b;
        return r;
      }
    case TS_BINARY_FMOD: return b == -1 ? 0 : a % b;
    case TS_BINARY_LOGICAL_XOR: return (a != 0) != (b != 0);
    case TS_BINARY_POW: return powi (a, b);
    case TS_BINARY_CLAMP_MIN:
    case TS_BINARY_MAXIMUM: return MAX (a, b);
    case TS_BINARY_CLAMP_MAX:
    case TS_BINARY_MINIMUM: return MIN (a, b);
    case TS_BINARY_EQ: return a == b;
    case TS_BINARY_NE: return a != b;
    case TS_BINARY_LT: return a < b;
    case TS_BINARY_LE: return a <= b;
    case TS_BINARY_GT: return a > b;
    case TS_BINARY_GE: return a >= b;
    case TS_BINARY_LOGICAL_AND: return a != 0 && b != 0;
    case TS_BINARY_LOGICAL_OR: return a != 0 || b != 0;
    case TS_BINARY_BITWISE_AND: return a & b;
    case TS_BINARY_BITWISE_OR: return a | b;
    case TS_BINARY_BITWISE_XOR: return a ^ b;
    /* computed in 64 bits, then wrapped to the dtype: a shift past the
     * dtype's width gives 0 (left) or the sign (right), as PyTorch 2's */
    case TS_BINARY_BITWISE_LEFT_SHIFT: return b < 0 || b >= 64 ? 0 : (gint64)((guint64)a << b);
    case TS_BINARY_BITWISE_RIGHT_SHIFT: return a >> (b < 0 || b >= 64 ? 63 : b);
    case TS_BINARY_DIV:          /* these compute in floats (their dtype rule) */
    case TS_BINARY_ATAN2:
    case TS_BINARY_COPYSIGN:
    case TS_BINARY_HYPOT:        /* refused for integers by ts_binary_check */
    case TS_BINARY_NEXTAFTER:
    case TS_N_BINARY_OPS:
    default:
      g_assert_not_reached ();
    }
}

typedef struct
{
  TsBinaryOp op;
  TsDType    a_dtype;
  TsDType    b_dtype;
  TsDType    out_dtype;
  TsDType    compute;
  gboolean   found_zero;  /* an integer division by zero was met */
} BinaryCtx;

static void
binary_loop_generic (char         **ptrs,
                     const gint64  *strides,
                     gint64         n,
                     gpointer       user_data)
{
  BinaryCtx *ctx = user_data;
  char *pa = ptrs[0], *pb = ptrs[1], *po = ptrs[2];

  if (ts_dtype_is_floating (ctx->compute))
    {
      gboolean f32 = ctx->compute != TS_DTYPE_FLOAT64;

      for (gint64 i = 0; i < n; i++)
        {
          double a = round_to (ctx->compute, ts_dtype_load (ctx->a_dtype, pa));
          double b = round_to (ctx->compute, ts_dtype_load (ctx->b_dtype, pb));
          double r = f32 ? binary_f32 (ctx->op, (float)a, (float)b) : binary_f64 (ctx->op, a, b);

          ts_dtype_store (ctx->out_dtype, po, r);
          pa += strides[0]; pb += strides[1]; po += strides[2];
        }
    }
  else
    {
      gboolean divides = binary_divides (ctx->op);

      for (gint64 i = 0; i < n; i++)
        {
          gint64 a, b;

          if (ctx->compute == TS_DTYPE_BOOL)
            {
              /* logical ops of any dtype: truthiness, NaN counts as true */
              a = ts_dtype_load (ctx->a_dtype, pa) != 0.0;
              b = ts_dtype_load (ctx->b_dtype, pb) != 0.0;
            }
          else
            {
              a = wrap_to (ctx->compute, ts_dtype_load_int (ctx->a_dtype, pa));
              b = wrap_to (ctx->compute, ts_dtype_load_int (ctx->b_dtype, pb));
            }
          if (divides && b == 0)
            {
              ctx->found_zero = TRUE;
              return;
            }
          ts_dtype_store_int (ctx->out_dtype, po, binary_int (ctx->op, a, b));
          pa += strides[0]; pb += strides[1]; po += strides[2];
        }
    }
}

/* int64 operands (indices, counts, the comparisons behind masks): typed
 * loads and stores, the common ops' loops with their op outside; the rest
 * through binary_int. The generic loop's dtype switches an element made
 * `a.unsqueeze (1) == a` of 128 int64s cost 93 us (PyTorch: 8). Division
 * by zero was refused before. */
static void
binary_loop_i64 (char         **ptrs,
                 const gint64  *strides,
                 gint64         n,
                 gpointer       user_data)
{
  BinaryCtx *ctx = user_data;
  char *pa = ptrs[0], *pb = ptrs[1], *po = ptrs[2];

#define I64_LOOP(T, EXPR)                                                     \
  for (gint64 i = 0; i < n; i++, pa += strides[0], pb += strides[1], po += strides[2]) \
    {                                                                         \
      gint64 a, b;                                                            \
      T r;                                                                    \
      memcpy (&a, pa, 8);                                                     \
      memcpy (&b, pb, 8);                                                     \
      r = (T) (EXPR);                                                         \
      memcpy (po, &r, sizeof r);                                              \
    }                                                                         \
  return
  switch (ctx->op)
    {
    case TS_BINARY_ADD: I64_LOOP (gint64, (guint64) a + (guint64) b);
    case TS_BINARY_SUB: I64_LOOP (gint64, (guint64) a - (guint64) b);
    case TS_BINARY_MUL: I64_LOOP (gint64, (guint64) a * (guint64) b);
    case TS_BINARY_EQ: I64_LOOP (guint8, a == b);
    case TS_BINARY_NE: I64_LOOP (guint8, a != b);
    case TS_BINARY_LT: I64_LOOP (guint8, a < b);
    case TS_BINARY_LE: I64_LOOP (guint8, a <= b);
    case TS_BINARY_GT: I64_LOOP (guint8, a > b);
    case TS_BINARY_GE: I64_LOOP (guint8, a >= b);
    default:
      if (ctx->out_dtype == TS_DTYPE_BOOL)
        {
          I64_LOOP (guint8, binary_int (ctx->op, a, b) != 0);
        }
      I64_LOOP (gint64, binary_int (ctx->op, a, b));
    }
#undef I64_LOOP
}

/* Whether binary_loop_i64 computes @op of these operands */
static gboolean
binary_is_i64 (TsBinaryOp       op,
               const BinaryCtx *ctx)
{
  return ctx->compute == TS_DTYPE_INT64 && ctx->a_dtype == TS_DTYPE_INT64 && ctx->b_dtype == TS_DTYPE_INT64 &&
         !binary_is_logical (op) &&
         (binary_is_comparison (op) ? ctx->out_dtype == TS_DTYPE_BOOL : ctx->out_dtype == TS_DTYPE_INT64);
}

#define DEFINE_TYPED_BINARY_LOOP(NAME, T)                                     \
static void                                                                   \
NAME (char **ptrs, const gint64 *strides, gint64 n, gpointer user_data)       \
{                                                                             \
  BinaryCtx *ctx = user_data;                                                 \
  if (strides[0] == sizeof (T) && strides[1] == sizeof (T) &&                 \
      strides[2] == sizeof (T))                                               \
    {                                                                         \
      const T *a = (const T *)(gpointer)ptrs[0];                              \
      const T *b = (const T *)(gpointer)ptrs[1];                              \
      T *o = (T *)(gpointer)ptrs[2];                                          \
      switch (ctx->op)                                                        \
        {                                                                     \
        case TS_BINARY_ADD: for (gint64 i = 0; i < n; i++) o[i] = a[i] + b[i]; return; \
        case TS_BINARY_SUB: for (gint64 i = 0; i < n; i++) o[i] = a[i] - b[i]; return; \
        case TS_BINARY_MUL: for (gint64 i = 0; i < n; i++) o[i] = a[i] * b[i]; return; \
        case TS_BINARY_DIV: for (gint64 i = 0; i < n; i++) o[i] = a[i] / b[i]; return; \
        default: break;                                                       \
        }                                                                     \
    }                                                                         \
  /* one operand broadcast along the run (a column: `x + c` with c of     \
   * shape (n, 1), an outer product): the same number each element, where   \
   * the element loop below went through binary_f64's switch (9 and 20      \
   * times PyTorch's time at 512x512) */                                     \
  if ((strides[0] == 0 || strides[0] == sizeof (T)) &&                        \
      (strides[1] == 0 || strides[1] == sizeof (T)) && strides[0] != strides[1] && \
      strides[2] == sizeof (T))                                               \
    {                                                                         \
      const T *a = (const T *)(gpointer)ptrs[0];                              \
      const T *b = (const T *)(gpointer)ptrs[1];                              \
      T *o = (T *)(gpointer)ptrs[2];                                          \
      const T *sp = strides[1] == 0 ? b : a;                                  \
      const T s = *sp;                                                        \
      const T *v = strides[1] == 0 ? a : b;                                   \
      /* in place over the number itself (x.sub_ (x[:, :1])), each element   \
       * reads it again, as the loop below and PyTorch's do */              \
      if (sp >= o && sp < o + n)                                              \
        goto element_loop;                                                    \
      switch (ctx->op)                                                        \
        {                                                                     \
        case TS_BINARY_ADD: for (gint64 i = 0; i < n; i++) o[i] = v[i] + s; return; \
        case TS_BINARY_MUL: for (gint64 i = 0; i < n; i++) o[i] = v[i] * s; return; \
        case TS_BINARY_SUB:                                                   \
          if (strides[1] == 0) for (gint64 i = 0; i < n; i++) o[i] = v[i] - s; \
          else for (gint64 i = 0; i < n; i++) o[i] = s - v[i];                \
          return;                                                             \
        case TS_BINARY_DIV:                                                   \
          if (strides[1] == 0) for (gint64 i = 0; i < n; i++) o[i] = v[i] / s; \
          else for (gint64 i = 0; i < n; i++) o[i] = s / v[i];                \
          return;                                                             \
        default: break;                                                       \
        }                                                                     \
    }                                                                         \
element_loop:                                                                 \
  {                                                                           \
    char *pa = ptrs[0], *pb = ptrs[1], *po = ptrs[2];                         \
    for (gint64 i = 0; i < n; i++)                                            \
      {                                                                       \
        T a, b, r;                                                            \
        memcpy (&a, pa, sizeof a);                                            \
        memcpy (&b, pb, sizeof b);                                            \
        /* nextafter steps in the dtype itself; the rest round once */      \
        r = sizeof (T) == sizeof (float) && ctx->op == TS_BINARY_NEXTAFTER     \
              ? (T)binary_f32 (ctx->op, (float)a, (float)b)                   \
              : (T)binary_f64 (ctx->op, a, b);                                \
        memcpy (po, &r, sizeof r);                                            \
        pa += strides[0]; pb += strides[1]; po += strides[2];                 \
      }                                                                       \
  }                                                                           \
}

DEFINE_TYPED_BINARY_LOOP (binary_loop_f64, double)
DEFINE_TYPED_BINARY_LOOP (binary_loop_f32, float)

/* A float32 operand of float32 math, element after element: its memory
 * is already the run load_run would make. */
static inline gboolean
is_dense_f32 (TsDType dtype,
              TsDType compute,
              gint64  stride)
{
  return dtype == TS_DTYPE_FLOAT32 && compute == TS_DTYPE_FLOAT32 && stride == (gint64) sizeof (float);
}

/* An operand's run as float32 values of the compute dtype: converted,
 * then rounded to @compute when the operand has another dtype (as
 * TensorIterator casts inputs); a broadcast operand is converted once. */
static void
load_run (TsDType     dtype,
          TsDType     compute,
          const char *src,
          gint64      stride,
          float      *dst,
          gint64      n)
{
  gint64 len = stride == 0 ? MIN (n, 1) : n;

  ts_cpu_load_f32 (dtype, src, stride, dst, len);
  if (dtype != compute)
    ts_cpu_round_f32 (compute, dst, len);
  for (gint64 i = len; i < n; i++)
    dst[i] = dst[0];
}

static void
binary_run_f32 (TsBinaryOp   op,
                const float *a,
                const float *b,
                float       *r,
                gint64       n)
{
  switch (op)
    {
    case TS_BINARY_ADD: for (gint64 i = 0; i < n; i++) r[i] = a[i] + b[i]; return;
    case TS_BINARY_SUB: for (gint64 i = 0; i < n; i++) r[i] = a[i] - b[i]; return;
    case TS_BINARY_MUL: for (gint64 i = 0; i < n; i++) r[i] = a[i] * b[i]; return;
    case TS_BINARY_DIV: for (gint64 i = 0; i < n; i++) r[i] = a[i] / b[i]; return;
    default:
      for (gint64 i = 0; i < n; i++)
        r[i] = binary_f32 (op, a[i], b[i]);
    }
}

/* Any float32-computing op (float32 with other operand dtypes, float16,
 * bfloat16): runs of TS_CPU_RUN elements converted to float32 buffers,
 * computed there, converted into the output. */
static void
binary_loop_runs (char         **ptrs,
                  const gint64  *strides,
                  gint64         n,
                  gpointer       user_data)
{
  BinaryCtx *ctx = user_data;
  float a[TS_CPU_RUN], b[TS_CPU_RUN], r[TS_CPU_RUN];
  /* a dense float32 operand or output is its own run: an optimizer's
   * `p.mul_(0.9)` converts only the number (the values are the same) */
  gboolean a_direct = is_dense_f32 (ctx->a_dtype, ctx->compute, strides[0]);
  gboolean b_direct = is_dense_f32 (ctx->b_dtype, ctx->compute, strides[1]);
  gboolean r_direct = is_dense_f32 (ctx->out_dtype, ctx->compute, strides[2]);

  for (gint64 done = 0; done < n; done += TS_CPU_RUN)
    {
      gint64 len = MIN (n - done, TS_CPU_RUN);
      const float *ra = a, *rb = b;
      float *rr = r;

      if (a_direct)
        ra = (const float *) (ptrs[0] + done * strides[0]);
      else
        load_run (ctx->a_dtype, ctx->compute, ptrs[0] + done * strides[0], strides[0], a, len);
      if (b_direct)
        rb = (const float *) (ptrs[1] + done * strides[1]);
      /* a broadcast number is the same run each time */
      else if (strides[1] != 0 || done == 0)
        load_run (ctx->b_dtype, ctx->compute, ptrs[1] + done * strides[1], strides[1], b, len);
      if (r_direct)
        rr = (float *) (ptrs[2] + done * strides[2]);
      binary_run_f32 (ctx->op, ra, rb, rr, len);
      if (!r_direct)
        ts_cpu_store_f32 (ctx->out_dtype, r, ptrs[2] + done * strides[2], strides[2], len);
    }
}

/* The dtypes whose math is float32 (PyTorch's opmath type). */
static gboolean
computes_in_f32 (TsDType compute)
{
  return compute == TS_DTYPE_FLOAT32 || ts_cpu_dtype_is_half (compute);
}

static gboolean
binary_is_shift (TsBinaryOp op)
{
  return op == TS_BINARY_BITWISE_LEFT_SHIFT || op == TS_BINARY_BITWISE_RIGHT_SHIFT;
}

gboolean
ts_binary_check (TsBinaryOp   op,
                 TsDType      common,
                 GError     **error)
{
  g_return_val_if_fail (op < TS_N_BINARY_OPS, FALSE);

  if (ts_dtype_is_complex (common))
    return ts_complex_binary_check (op, common, error);
  if (op == TS_BINARY_SUB && common == TS_DTYPE_BOOL)
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_DTYPE,
                           "Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.");
      return FALSE;
    }
  /* PyTorch's CPU kernels of these take floating dtypes only; nextafter
   * of a half type would need its own rounding (float's next value rounds
   * back to the half value) */
  if ((op == TS_BINARY_HYPOT || op == TS_BINARY_NEXTAFTER) &&
      (!ts_dtype_is_floating (common) ||
       (op == TS_BINARY_NEXTAFTER && (common == TS_DTYPE_FLOAT16 || common == TS_DTYPE_BFLOAT16))))
    {
      g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_DTYPE, "\"%s_cpu\" not implemented for '%s'",
                   binary_names[op], ts_dtype_scalar_type_name (common));
      return FALSE;
    }
  /* the dividing kernels take no bool (we gave True // True = True) */
  if (common == TS_DTYPE_BOOL && binary_divides (op))
    {
      g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_DTYPE, "\"%s_cpu\" not implemented for 'Bool'",
                   op == TS_BINARY_DIV_TRUNC ? "div_trunc"
                   : op == TS_BINARY_REMAINDER ? "remainder"
                   : op == TS_BINARY_FMOD ? "fmod" : "div_floor");
      return FALSE;
    }
  if (binary_is_bitwise (op) &&
      (ts_dtype_is_floating (common) || (binary_is_shift (op) && common == TS_DTYPE_BOOL)))
    {
      /* PyTorch's kernels of the shifts are lshift and rshift */
      g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_DTYPE,
                   "\"%s_cpu\" not implemented for '%s'",
                   op == TS_BINARY_BITWISE_LEFT_SHIFT ? "lshift"
                   : op == TS_BINARY_BITWISE_RIGHT_SHIFT ? "rshift" : binary_names[op],
                   ts_dtype_scalar_type_name (common));
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_elementwise_output (const TsView  *out,
                          guint          ndim,
                          const gint64  *shape,
                          GError       **error)
{
  gboolean same = out->ndim == ndim;

  for (guint i = 0; same && i < ndim; i++)
    same = out->shape[i] == shape[i];
  if (!same)
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_SHAPE,
                           "output shape does not match the broadcast shape of the inputs");
      return FALSE;
    }
  return TRUE;
}

/* 16 bytes of floats or doubles: SSE2, which every x86-64 has. Each lane
 * is the same IEEE operation as the scalar loop's, so the values are the
 * same bit for bit; GCC does not vectorize the plain loop at -O2 because
 * the output may alias an input. */
typedef float  DenseF32 __attribute__ ((vector_size (16)));
typedef double DenseF64 __attribute__ ((vector_size (16)));
#define DENSE_VEC_float  DenseF32
#define DENSE_VEC_double DenseF64

/* Whole vectors from the start; the scalar loop finishes from i. Loads go
 * through memcpy: the data need not be 16-byte aligned. */
#define DENSE_VECTORS_OF(V, T, OP)                                            \
  for (; i + (gint64) (sizeof (V) / sizeof (T)) <= n; i += sizeof (V) / sizeof (T)) \
    {                                                                         \
      V va, vb;                                                               \
      memcpy (&va, pa + i, sizeof (V));                                       \
      memcpy (&vb, pb + i, sizeof (V));                                       \
      va = va OP vb;                                                          \
      memcpy (po + i, &va, sizeof (V));                                       \
    }
#define DENSE_VECTORS(T, OP) DENSE_VECTORS_OF (DENSE_VEC_##T, T, OP)

/* The same with 32-byte AVX vectors, where the CPU has them (as PyTorch's
 * AVX2 build computes): twice the lanes, which a small division needs
 * (its latency, not the instruction count, made a/b 30% slower than a*b).
 * Only +, -, *, /: no multiply-add to contract. Returns how far it went. */
typedef float  DenseF32x8 __attribute__ ((vector_size (32)));
typedef double DenseF64x4 __attribute__ ((vector_size (32)));
#define DEFINE_DENSE_AVX2(NAME, T, V)                                         \
__attribute__ ((target ("avx2")))                                             \
static gint64                                                                 \
NAME (TsBinaryOp op, const T *pa, const T *pb, T *po, gint64 n)               \
{                                                                             \
  gint64 i = 0;                                                               \
  switch (op)                                                                 \
    {                                                                         \
    case TS_BINARY_ADD: DENSE_VECTORS_OF (V, T, +); break;                    \
    case TS_BINARY_SUB: DENSE_VECTORS_OF (V, T, -); break;                    \
    case TS_BINARY_MUL: DENSE_VECTORS_OF (V, T, *); break;                    \
    case TS_BINARY_DIV: DENSE_VECTORS_OF (V, T, /); break;                    \
    default: g_assert_not_reached ();                                         \
    }                                                                         \
  return i;                                                                   \
}
DEFINE_DENSE_AVX2 (dense_avx2_float, float, DenseF32x8)
DEFINE_DENSE_AVX2 (dense_avx2_double, double, DenseF64x4)
#undef DEFINE_DENSE_AVX2

/* An output that is an input (in place) is read before it is written in
 * each vector, as in the scalar loop; an output that partly overlaps an
 * input would see a different order, so that case stays scalar. */
static inline gboolean
dense_may_vectorize (const void *pa,
                     const void *pb,
                     const void *po,
                     gsize       nbytes)
{
  const guint8 *o = po;

  return (pa == po || (const guint8 *) pa + nbytes <= o || o + nbytes <= (const guint8 *) pa) &&
         (pb == po || (const guint8 *) pb + nbytes <= o || o + nbytes <= (const guint8 *) pb);
}

/* The operands the fast paths below take: one floating dtype for a and
 * out, add/sub/mul/div, a and out of one shape and dense (each stride the
 * product of the later sizes). Returns the element count, or -1. */
static gint64
dense_pair_numel (TsBinaryOp    op,
                  const TsView *a,
                  TsDType       common,
                  const TsView *out)
{
  gint64 n = 1;

  if ((common != TS_DTYPE_FLOAT32 && common != TS_DTYPE_FLOAT64) ||
      a->dtype != common || out->dtype != common ||
      (op != TS_BINARY_ADD && op != TS_BINARY_SUB && op != TS_BINARY_MUL && op != TS_BINARY_DIV) ||
      a->ndim != out->ndim)
    return -1;
  for (guint d = out->ndim; d-- > 0;)
    {
      gint64 size = out->shape[d];

      if (a->shape[d] != size || (size != 1 && (a->strides[d] != n || out->strides[d] != n)))
        return -1;
      n *= size;
    }
  return n;
}

/* The common case of a small op in a Python loop: same shape, same
 * floating dtype everywhere, dense. One loop, no iterator set up; the
 * arithmetic is the same as binary_loop_f32/f64's dense branch. Returns
 * FALSE when the operands do not qualify (nothing written). */
static gboolean
binary_dense_fast (TsBinaryOp    op,
                   const TsView *a,
                   const TsView *b,
                   TsDType       common,
                   const TsView *out)
{
  gint64 n = dense_pair_numel (op, a, common, out);

  /* b of the same layout as a */
  if (n < 0 || b->dtype != common || b->ndim != out->ndim)
    return FALSE;
  for (guint d = 0; d < out->ndim; d++)
    if (b->shape[d] != out->shape[d] || (out->shape[d] != 1 && b->strides[d] != a->strides[d]))
      return FALSE;

#define DENSE_LOOP(T)                                                         \
  {                                                                           \
    const T *pa = (const T *) a->data + a->offset;                            \
    const T *pb = (const T *) b->data + b->offset;                            \
    T *po = (T *) out->data + out->offset;                                    \
    gint64 i = 0;                                                             \
    gboolean vectors = dense_may_vectorize (pa, pb, po, n * sizeof (T));      \
    if (vectors && ts_cpu_have_avx2_fma ())                                   \
      i = dense_avx2_##T (op, pa, pb, po, n);                                 \
    if (vectors)                                                              \
      switch (op)                                                             \
        {                                                                     \
        case TS_BINARY_ADD: DENSE_VECTORS (T, +); break;                      \
        case TS_BINARY_SUB: DENSE_VECTORS (T, -); break;                      \
        case TS_BINARY_MUL: DENSE_VECTORS (T, *); break;                      \
        case TS_BINARY_DIV: DENSE_VECTORS (T, /); break;                      \
        default: g_assert_not_reached ();                                     \
        }                                                                     \
    switch (op)                                                               \
      {                                                                       \
      case TS_BINARY_ADD: for (; i < n; i++) po[i] = pa[i] + pb[i]; break;    \
      case TS_BINARY_SUB: for (; i < n; i++) po[i] = pa[i] - pb[i]; break;    \
      case TS_BINARY_MUL: for (; i < n; i++) po[i] = pa[i] * pb[i]; break;    \
      case TS_BINARY_DIV: for (; i < n; i++) po[i] = pa[i] / pb[i]; break;    \
      default: g_assert_not_reached ();                                       \
      }                                                                       \
  }

  if (n > 0)
    {
      if (common == TS_DTYPE_FLOAT32)
        DENSE_LOOP (float)
      else
        DENSE_LOOP (double)
    }
#undef DENSE_LOOP
  return TRUE;
}

/* A dense tensor and a one-element floating operand on the right (a
 * Python number, a 0-d tensor: `p * 0.9`, `x / n`): the scalar converted
 * to the common dtype once, as PyTorch's kernels take a CPU scalar as
 * their compute type, then the dense arithmetic above. FALSE when the
 * operands do not qualify (nothing written). */
static gboolean
binary_scalar_fast (TsBinaryOp    op,
                    const TsView *a,
                    const TsView *b,
                    TsDType       common,
                    const TsView *out)
{
  gint64 n = dense_pair_numel (op, a, common, out);

  if (n < 0 || (b->dtype != TS_DTYPE_FLOAT32 && b->dtype != TS_DTYPE_FLOAT64) ||
      b->ndim > out->ndim || ts_view_numel (b) != 1)
    return FALSE;
  if (n == 0)
    return TRUE;

  /* pb points at one element; in place on a tensor that holds it, the
   * general loop (which reads it again for each element) decides */
#define SCALAR_VECTORS(T, OP)                                                 \
  for (; i + (gint64) (16 / sizeof (T)) <= n; i += 16 / sizeof (T))          \
    {                                                                         \
      DENSE_VEC_##T va;                                                       \
      memcpy (&va, pa + i, 16);                                               \
      va = va OP s;                                                           \
      memcpy (po + i, &va, 16);                                               \
    }
#define SCALAR_LOOP(T)                                                        \
  {                                                                           \
    const T *pa = (const T *) a->data + a->offset;                            \
    T *po = (T *) out->data + out->offset;                                    \
    const guint8 *pb = (const guint8 *) b->data + b->offset * ts_dtype_size (b->dtype); \
    T s = (T) (b->dtype == TS_DTYPE_FLOAT32 ? *(const float *)(gconstpointer) pb \
                                            : *(const double *)(gconstpointer) pb); \
    gint64 i = 0;                                                             \
    if ((pa != po && !dense_may_vectorize (pa, pa, po, n * sizeof (T))) ||   \
        (pb >= (const guint8 *) po && pb < (const guint8 *) (po + n)))        \
      return FALSE;                                                           \
    switch (op)                                                               \
      {                                                                       \
      case TS_BINARY_ADD: SCALAR_VECTORS (T, +); for (; i < n; i++) po[i] = pa[i] + s; break; \
      case TS_BINARY_SUB: SCALAR_VECTORS (T, -); for (; i < n; i++) po[i] = pa[i] - s; break; \
      case TS_BINARY_MUL: SCALAR_VECTORS (T, *); for (; i < n; i++) po[i] = pa[i] * s; break; \
      case TS_BINARY_DIV: SCALAR_VECTORS (T, /); for (; i < n; i++) po[i] = pa[i] / s; break; \
      default: g_assert_not_reached ();                                       \
      }                                                                       \
  }

  if (common == TS_DTYPE_FLOAT32)
    SCALAR_LOOP (float)
  else
    SCALAR_LOOP (double)
#undef SCALAR_LOOP
#undef SCALAR_VECTORS
  return TRUE;
}

/* The half types' chunks go through a bounded scratch buffer: no host
 * memory the size of b (the budget of ts-host-data.c stays whole). */
#define ALPHA_CHUNK 2048

static gboolean
binary_alpha_rounded (TsBinaryOp    op,
                      const TsView *a,
                      const TsView *b,
                      double        alpha,
                      const TsView *out,
                      GError      **error)
{
  gint64 n = ts_view_numel (out);
  guint16 scratch[ALPHA_CHUNK];
  TsView factor;

  ts_view_init_scalar (&factor, TS_DTYPE_FLOAT64, &alpha);
  for (gint64 i = 0; i < n; i += ALPHA_CHUNK)
    {
      gint64 len = MIN (ALPHA_CHUNK, n - i);
      TsView ar, br, outr, scaled;

      ts_view_init (&ar, a->dtype, a->data, 1, &len, NULL, a->offset + i);
      ts_view_init (&br, b->dtype, b->data, 1, &len, NULL, b->offset + i);
      ts_view_init (&outr, out->dtype, out->data, 1, &len, NULL, out->offset + i);
      ts_view_init (&scaled, b->dtype, scratch, 1, &len, NULL, 0);
      if (!ts_cpu_binary (TS_BINARY_MUL, &br, &factor, b->dtype, &scaled, error) ||
          !ts_cpu_binary (op, &ar, &scaled, b->dtype, &outr, error))
        return FALSE;
    }
  return TRUE;
}

/* o = f * b + a in one rounding, as PyTorch's add_kernel computes a + alpha
 * * b (vec::fmadd). An optimizer's every step runs it over all parameters:
 * on a CPU with FMA the loop is vector FMAs; elsewhere it calls fmaf()
 * per element; the values are the same. (Not target_clones: under LTO
 * GCC 12 called the default clone.) */
#define FMA_LOOP(T, FMA)                                                      \
  for (gint64 i = 0; i < n; i++)                                              \
    o[i] = FMA (f, b[i], a[i]);
#define DEFINE_FMA_RUN(NAME, T, FMA)                                          \
__attribute__ ((target ("avx2,fma")))                                         \
static void                                                                   \
NAME##_avx2 (T f, const T *b, const T *a, T *o, gint64 n)                     \
{                                                                             \
  FMA_LOOP (T, FMA)                                                           \
}                                                                             \
                                                                              \
static void                                                                   \
NAME (T f, const T *b, const T *a, T *o, gint64 n)                            \
{                                                                             \
  if (ts_cpu_have_avx2_fma ())                                                \
    NAME##_avx2 (f, b, a, o, n);                                              \
  else                                                                        \
    FMA_LOOP (T, FMA)                                                         \
}
DEFINE_FMA_RUN (fma_run_f32, float, fmaf)
DEFINE_FMA_RUN (fma_run_f64, double, fma)
#undef DEFINE_FMA_RUN
#undef FMA_LOOP

gboolean
ts_cpu_binary_alpha (TsBinaryOp    op,
                     const TsView *a,
                     const TsView *b,
                     double        alpha,
                     const TsView *out,
                     GError      **error)
{
  gint64 n;

  g_return_val_if_fail (op == TS_BINARY_ADD || op == TS_BINARY_SUB, FALSE);
  g_return_val_if_fail (a != NULL && b != NULL && out != NULL, FALSE);

  if (!ts_dtype_is_floating (out->dtype) || a->dtype != out->dtype || b->dtype != out->dtype)
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_DTYPE,
                           "add with alpha: operands of one floating dtype expected");
      return FALSE;
    }
  n = ts_view_numel (out);
  if (!ts_view_is_contiguous (a) || !ts_view_is_contiguous (b) || !ts_view_is_contiguous (out) ||
      ts_view_numel (a) != n || ts_view_numel (b) != n)
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_SHAPE,
                           "add with alpha: contiguous operands of one shape expected");
      return FALSE;
    }
  /* sub is add with -alpha, as PyTorch's sub_kernel calls add_kernel */
  if (op == TS_BINARY_SUB)
    alpha = -alpha;
  if (out->dtype == TS_DTYPE_FLOAT32)
    {
      const float *pa = (const float *) a->data + a->offset, *pb = (const float *) b->data + b->offset;
      float *po = (float *) out->data + out->offset;
      float f = (float) alpha;

      fma_run_f32 (f, pb, pa, po, n);
      return TRUE;
    }
  if (out->dtype == TS_DTYPE_FLOAT64)
    {
      const double *pa = (const double *) a->data + a->offset, *pb = (const double *) b->data + b->offset;
      double *po = (double *) out->data + out->offset;

      fma_run_f64 (alpha, pb, pa, po, n);
      return TRUE;
    }
  return binary_alpha_rounded (TS_BINARY_ADD, a, b, alpha, out, error);
}

gboolean
ts_cpu_binary (TsBinaryOp    op,
               const TsView *a,
               const TsView *b,
               TsDType       common,
               const TsView *out,
               GError      **error)
{
  const TsView *operands[3] = { a, b, out };
  gint64 shape[TS_MAX_DIMS];
  BinaryCtx ctx;
  TsIter iter;
  guint ndim;

  g_return_val_if_fail (op < TS_N_BINARY_OPS, FALSE);
  g_return_val_if_fail (a != NULL && b != NULL && out != NULL, FALSE);
  g_return_val_if_fail (ts_dtype_is_valid (common), FALSE);

  if (binary_dense_fast (op, a, b, common, out) || binary_scalar_fast (op, a, b, common, out))
    return TRUE;

  if (!ts_binary_check (op, common, error))
    return FALSE;

  if (!ts_broadcast_shapes (a->ndim, a->shape, b->ndim, b->shape, &ndim, shape, error) ||
      !check_elementwise_output (out, ndim, shape, error) ||
      !ts_iter_init (&iter, ndim, shape, operands, 3, error))
    return FALSE;
  if (ts_dtype_is_complex (common))
    {
      ts_cpu_complex_binary (op, &iter, a->dtype, b->dtype, common, out->dtype);
      return TRUE;
    }

  ctx.op = op;
  ctx.a_dtype = a->dtype;
  ctx.b_dtype = b->dtype;
  ctx.out_dtype = out->dtype;
  ctx.compute = ts_binary_compute_dtype (op, common);
  ctx.found_zero = FALSE;

  /* Integer division by zero is an error (PyTorch's CPU message); check
   * first so that nothing is written. */
  if (!ts_dtype_is_floating (ctx.compute) && binary_divides (op))
    {
      gint64 n = ts_view_numel (b);

      for (gint64 i = 0; i < n; i++)
        {
          if (wrap_to (ctx.compute, ts_dtype_load_int (b->dtype, ts_view_linear_ptr (b, i))) == 0)
            {
              g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_ZERO_DIVISION,
                                   "ZeroDivisionError");
              return FALSE;
            }
        }
    }

  if (a->dtype == ctx.compute && b->dtype == ctx.compute && out->dtype == ctx.compute &&
      !binary_is_comparison (op) && !binary_is_logical (op))
    {
      if (ctx.compute == TS_DTYPE_FLOAT32 && op != TS_BINARY_POW && op != TS_BINARY_REMAINDER &&
          op != TS_BINARY_FLOOR_DIVIDE && op != TS_BINARY_DIV_FLOOR && op != TS_BINARY_DIV_TRUNC)
        {
          ts_iter_for_each (&iter, binary_loop_f32, &ctx);
          return TRUE;
        }
      if (ctx.compute == TS_DTYPE_FLOAT64)
        {
          ts_iter_for_each (&iter, binary_loop_f64, &ctx);
          return TRUE;
        }
    }

  ts_iter_for_each (&iter, computes_in_f32 (ctx.compute) ? binary_loop_runs
                          : binary_is_i64 (op, &ctx) ? binary_loop_i64 : binary_loop_generic,
                    &ctx);
  g_assert (!ctx.found_zero);
  return TRUE;
}

/* PyTorch's calc_erfinv (c10/util/math_compat, aten/src/ATen/native/Math.h):
 * a rational first guess, then two Newton steps. */
#define DEFINE_ERFINV(NAME, T, S)                                             \
static inline T                                                               \
NAME (T y)                                                                    \
{                                                                             \
  static const T a[4] = { 0.886226899, -1.645349621, 0.914624893, -0.140543331 }; \
  static const T b[4] = { -2.118377725, 1.442710462, -0.329097515, 0.012229801 }; \
  static const T c[4] = { -1.970840454, -1.624906493, 3.429567803, 1.641345311 }; \
  static const T d[2] = { 3.543889200, 1.637067800 };                         \
  const T two_over_sqrt_pi = (T)2 / (T) sqrt (G_PI);                          \
  T y_abs = fabs##S (y), x, z, num, dem;                                      \
                                                                              \
  if (y_abs > (T)1)                                                           \
    return (T) NAN;                                                           \
  if (y_abs == (T)1)                                                          \
    return copysign##S ((T) INFINITY, y);                                     \
  if (y_abs <= (T)0.7)                                                        \
    {                                                                         \
      z = y * y;                                                              \
      num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];                        \
      dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + (T)1;           \
      x = y * num / dem;                                                      \
    }                                                                         \
  else                                                                        \
    {                                                                         \
      z = sqrt##S (-log##S (((T)1 - y_abs) / (T)2));                          \
      num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];                        \
      dem = (d[1] * z + d[0]) * z + (T)1;                                     \
      x = copysign##S (num, y) / dem;                                         \
    }                                                                         \
  x = x - (erf##S (x) - y) / (two_over_sqrt_pi * exp##S (-x * x));            \
  x = x - (erf##S (x) - y) / (two_over_sqrt_pi * exp##S (-x * x));            \
  return x;                                                                   \
}

DEFINE_ERFINV (erfinv_f64, double, )
DEFINE_ERFINV (erfinv_f32, float, f)

/* S is libm's suffix of T's functions: "" for double, f for float. */
/* ATen's calc_digamma and calc_trigamma (Math.h), written once for float
 * and double: the reflection for negatives, the recurrence up to 10 (or
 * 6 steps), then the asymptotic series. Hand-written because the values
 * must be ATen's to the bit; libm has no digamma. */
#define DEFINE_GAMMA_FAMILY(T, S)                                             \
static T                                                                      \
digamma_##T (T x)                                                             \
{                                                                             \
  static const T A[] = {                                                      \
    (T) 8.33333333333333333333E-2, (T) -2.10927960927960927961E-2,            \
    (T) 7.57575757575757575758E-3, (T) -4.16666666666666666667E-3,            \
    (T) 3.96825396825396825397E-3, (T) -8.33333333333333333333E-3,            \
    (T) 8.33333333333333333333E-2,                                            \
  };                                                                          \
  T result = 0, y = 0;                                                        \
  if (x == 0)                                                                 \
    return copysign##S (INFINITY, -x);                                        \
  if (x < 0)                                                                  \
    {                                                                         \
      double q, r;                                                            \
      if (x == trunc##S (x))                                                  \
        return (T) NAN;                                                       \
      r = modf (x, &q);                                                       \
      return digamma_##T (1 - x) - (T) (G_PI / tan (G_PI * r));               \
    }                                                                         \
  while (x < 10)                                                              \
    {                                                                         \
      result -= 1 / x;                                                        \
      x += 1;                                                                 \
    }                                                                         \
  if (x == 10)                                                                \
    return result + (T) 2.25175258906672110764;                               \
  if (x < (T) 1.0e17)                                                         \
    {                                                                         \
      T z = 1 / (x * x), p = 0;                                               \
      for (int i = 0; i <= 6; i++)                                            \
        p = p * z + A[i];                                                     \
      y = z * p;                                                              \
    }                                                                         \
  return result + log##S (x) - ((T) 0.5 / x) - y;                             \
}                                                                             \
                                                                              \
static T                                                                      \
trigamma_##T (T x)                                                            \
{                                                                             \
  T sign = 1, result = 0, ixx;                                                \
  if (x < (T) 0.5)                                                            \
    {                                                                         \
      const T sin_pi_x = sin##S ((T) G_PI * x);                               \
      sign = -1;                                                              \
      result -= ((T) G_PI * (T) G_PI) / (sin_pi_x * sin_pi_x);                \
      x = 1 - x;                                                              \
    }                                                                         \
  for (int i = 0; i < 6; ++i)                                                 \
    {                                                                         \
      result += 1 / (x * x);                                                  \
      x += 1;                                                                 \
    }                                                                         \
  ixx = 1 / (x * x);                                                          \
  result += (1 + 1 / (2 * x) + ixx * ((T) 1 / 6 - ixx * ((T) 1 / 30 - ixx * ((T) 1 / 42)))) / x; \
  return sign * result;                                                       \
}

DEFINE_GAMMA_FAMILY (double, )
DEFINE_GAMMA_FAMILY (float, f)

#define DEFINE_FLOAT_UNARY(NAME, T, S, ERFINV, DIGAMMA, TRIGAMMA)             \
static inline T                                                               \
NAME (TsUnaryOp op, T x)                                                      \
{                                                                             \
  switch (op)                                                                 \
    {                                                                         \
    case TS_UNARY_NEG: return -x;                                             \
    case TS_UNARY_ABS: return fabs##S (x);                                    \
    case TS_UNARY_EXP: return exp##S (x);                                     \
    case TS_UNARY_LOG: return log##S (x);                                     \
    case TS_UNARY_SQRT: return sqrt##S (x);                                   \
    case TS_UNARY_SIN: return sin##S (x);                                     \
    case TS_UNARY_COS: return cos##S (x);                                     \
    case TS_UNARY_TANH: return tanh##S (x);                                   \
    case TS_UNARY_SIGMOID: return (T)1 / ((T)1 + exp##S (-x));                \
    case TS_UNARY_RELU: return x < 0 ? (T)0 : x;   /* NaN and -0.0 stay */    \
    case TS_UNARY_RECIPROCAL: return (T)1 / x;                                \
    case TS_UNARY_LOGICAL_NOT: return x == 0;                                 \
    case TS_UNARY_ISNAN: return isnan (x);                                    \
    case TS_UNARY_ISINF: return isinf (x);                                    \
    case TS_UNARY_ISFINITE: return isfinite (x);                              \
    case TS_UNARY_TAN: return tan##S (x);                                     \
    case TS_UNARY_ASIN: return asin##S (x);                                   \
    case TS_UNARY_ACOS: return acos##S (x);                                   \
    case TS_UNARY_ATAN: return atan##S (x);                                   \
    case TS_UNARY_SINH: return sinh##S (x);                                   \
    case TS_UNARY_COSH: return cosh##S (x);                                   \
    case TS_UNARY_ASINH: return asinh##S (x);                                 \
    case TS_UNARY_ACOSH: return acosh##S (x);                                 \
    case TS_UNARY_ATANH: return atanh##S (x);                                 \
    case TS_UNARY_EXP2: return exp2##S (x);                                   \
    case TS_UNARY_EXPM1: return expm1##S (x);                                 \
    case TS_UNARY_LOG2: return log2##S (x);                                   \
    case TS_UNARY_LOG10: return log10##S (x);                                 \
    case TS_UNARY_LOG1P: return log1p##S (x);                                 \
    case TS_UNARY_RSQRT: return (T)1 / sqrt##S (x);                           \
    case TS_UNARY_ERF: return erf##S (x);                                     \
    case TS_UNARY_ERFC: return erfc##S (x);                                   \
    case TS_UNARY_ERFINV: return ERFINV (x);                                  \
    case TS_UNARY_LGAMMA: return lgamma##S (x);                               \
    case TS_UNARY_DIGAMMA: return DIGAMMA (x);                                \
    case TS_UNARY_TRIGAMMA: return TRIGAMMA (x);                              \
    /* NaN and both zeros give 0, as PyTorch's (0 < x) - (x < 0) */           \
    case TS_UNARY_SIGN: return (T)((0 < x) - (x < 0));                        \
    case TS_UNARY_FLOOR: return floor##S (x);                                 \
    case TS_UNARY_CEIL: return ceil##S (x);                                   \
    /* halves to even, as PyTorch's nearbyint */                              \
    case TS_UNARY_ROUND: return nearbyint##S (x);                             \
    case TS_UNARY_TRUNC: return trunc##S (x);                                 \
    case TS_UNARY_FRAC: return x - trunc##S (x);                              \
    /* real numbers: pi for negatives, NaN stays NaN */                       \
    case TS_UNARY_ANGLE: return isnan (x) ? x : (x < 0 ? (T) G_PI : (T) 0);   \
    case TS_UNARY_CONJ_PHYSICAL: return x;                                    \
    case TS_N_UNARY_OPS:                                                      \
    default:                                                                  \
      g_assert_not_reached ();                                                \
    }                                                                         \
}

DEFINE_FLOAT_UNARY (unary_f64, double, , erfinv_f64, digamma_double, trigamma_double)
DEFINE_FLOAT_UNARY (unary_f32, float, f, erfinv_f32, digamma_float, trigamma_float)

typedef struct
{
  TsUnaryOp op;
  TsDType   in_dtype;
  TsDType   out_dtype;
  TsDType   compute;
} UnaryCtx;

static void
unary_loop (char         **ptrs,
            const gint64  *strides,
            gint64         n,
            gpointer       user_data)
{
  UnaryCtx *ctx = user_data;
  char *pi = ptrs[0], *po = ptrs[1];

  if (unary_rules[ctx->op] == TS_OP_RULE_BOOL_RESULT)
    {
      /* predicates of any dtype: for logical_not, NaN is true */
      for (gint64 i = 0; i < n; i++, pi += strides[0], po += strides[1])
        {
          double x = ts_dtype_load (ctx->in_dtype, pi);
          gboolean r;

          switch (ctx->op)
            {
            case TS_UNARY_LOGICAL_NOT: r = x == 0.0; break;
            case TS_UNARY_ISNAN: r = isnan (x); break;
            case TS_UNARY_ISINF: r = isinf (x); break;
            case TS_UNARY_ISFINITE: r = isfinite (x); break;
            default: g_assert_not_reached ();
            }
          ts_dtype_store_int (ctx->out_dtype, po, r);
        }
      return;
    }

  for (gint64 i = 0; i < n; i++)
    {
      if (ts_dtype_is_floating (ctx->compute))
        {
          double x = round_to (ctx->compute, ts_dtype_load (ctx->in_dtype, pi));
          double r = ctx->compute == TS_DTYPE_FLOAT64 ? unary_f64 (ctx->op, x)
                                                      : unary_f32 (ctx->op, (float)x);

          ts_dtype_store (ctx->out_dtype, po, r);
        }
      else
        {
          gint64 x = ts_dtype_load_int (ctx->in_dtype, pi);
          gint64 r;

          switch (ctx->op)
            {
            case TS_UNARY_NEG: r = (gint64)(0 - (guint64)x); break;
            case TS_UNARY_ABS: r = x < 0 ? (gint64)(0 - (guint64)x) : x; break;
            case TS_UNARY_RELU: r = MAX (x, 0); break;
            case TS_UNARY_SIGN: r = (0 < x) - (x < 0); break;
            case TS_UNARY_BITWISE_NOT: r = ctx->compute == TS_DTYPE_BOOL ? !x : ~x; break;
            /* integers are whole already */
            case TS_UNARY_FLOOR:
            case TS_UNARY_CEIL:
            case TS_UNARY_ROUND:
            case TS_UNARY_TRUNC:
            case TS_UNARY_CONJ_PHYSICAL: r = x; break;
            default: g_assert_not_reached ();
            }
          ts_dtype_store_int (ctx->out_dtype, po, r);
        }
      pi += strides[0];
      po += strides[1];
    }
}

/* relu in vectors of W floats: a lane keeps x unless x < 0 (NaN and -0.0
 * stay, as PyTorch's max (0, x) leaves them) and is +0.0 (all bits clear)
 * there, bit for bit unary_f32's answer. 32-byte vectors where the CPU has
 * AVX2 (a relu between two convolutions runs over whole activations),
 * 16-byte ones after them and elsewhere. */
#define DEFINE_RELU_VECTORS(NAME, W, ATTRS)                                   \
ATTRS static gint64                                                           \
NAME (const float *x,                                                         \
      float       *r,                                                         \
      gint64       n)                                                         \
{                                                                             \
  typedef float F __attribute__ ((vector_size (4 * (W))));                    \
  typedef gint32 I __attribute__ ((vector_size (4 * (W))));                   \
  const F zero = { 0 };                                                       \
  gint64 i = 0;                                                               \
                                                                              \
  for (; i + (W) <= n; i += (W))                                              \
    {                                                                         \
      F v;                                                                    \
      memcpy (&v, x + i, sizeof v);                                           \
      v = (F) ((I) v & ~(v < zero));                                          \
      memcpy (r + i, &v, sizeof v);                                           \
    }                                                                         \
  return i;                                                                   \
}
DEFINE_RELU_VECTORS (relu_vectors_f32, 4, )
DEFINE_RELU_VECTORS (relu_vectors_f32x8, 8, __attribute__ ((target ("avx2"))))
#undef DEFINE_RELU_VECTORS

static gint64
relu_vectors_f32_avx2 (const float *x,
                       float       *r,
                       gint64       n)
{
  gint64 i = relu_vectors_f32x8 (x, r, n);

  return i + relu_vectors_f32 (x + i, r + i, n - i);
}

/* unary_f32's formulas of the rounding family, abs and reciprocal in
 * loops of their own, compiled for AVX2 so that floor, ceil, trunc and
 * rint are one rounding instruction (libm calls an element made abs and
 * round of 512x512 cost 7 and 8 times PyTorch's). rint is nearbyint's
 * value in the default rounding mode, without nearbyint's saving of the
 * floating-point environment. */
__attribute__ ((target ("avx2")))
static gboolean
unary_simple_f32_avx2 (TsUnaryOp    op,
                       const float *x,
                       float       *r,
                       gint64       n)
{
  switch (op)
    {
    case TS_UNARY_ABS: for (gint64 i = 0; i < n; i++) r[i] = fabsf (x[i]); return TRUE;
    case TS_UNARY_FLOOR: for (gint64 i = 0; i < n; i++) r[i] = floorf (x[i]); return TRUE;
    case TS_UNARY_CEIL: for (gint64 i = 0; i < n; i++) r[i] = ceilf (x[i]); return TRUE;
    case TS_UNARY_TRUNC: for (gint64 i = 0; i < n; i++) r[i] = truncf (x[i]); return TRUE;
    case TS_UNARY_ROUND: for (gint64 i = 0; i < n; i++) r[i] = rintf (x[i]); return TRUE;
    case TS_UNARY_RECIPROCAL: for (gint64 i = 0; i < n; i++) r[i] = 1.f / x[i]; return TRUE;
    default: return FALSE;
    }
}

/* @contiguous as ts_cpu_sleef_unary_f32's: whether @x and @r are the
 * operands themselves rather than a run gathered from strided ones */
static void
unary_run_f32 (TsUnaryOp    op,
               const float *x,
               float       *r,
               gint64       n,
               gboolean     contiguous)
{
  /* PyTorch's vector half (SLEEF), then its scalar tail (libm) */
  if (ts_cpu_have_avx2_fma ())
    {
      gint64 done = ts_cpu_sleef_unary_f32 (op, x, r, n, contiguous);

      x += done;
      r += done;
      n -= done;
      if (unary_simple_f32_avx2 (op, x, r, n))
        return;
    }
  switch (op)
    {
    case TS_UNARY_NEG: for (gint64 i = 0; i < n; i++) r[i] = -x[i]; return;
    case TS_UNARY_RELU:
      for (gint64 i = ts_cpu_have_avx2_fma () ? relu_vectors_f32_avx2 (x, r, n)
                                              : relu_vectors_f32 (x, r, n);
           i < n; i++)
        r[i] = unary_f32 (TS_UNARY_RELU, x[i]);
      return;
    case TS_UNARY_EXP: for (gint64 i = 0; i < n; i++) r[i] = expf (x[i]); return;
    /* Adam's denominator, on every parameter each step */
    case TS_UNARY_SQRT: for (gint64 i = 0; i < n; i++) r[i] = sqrtf (x[i]); return;
    default:
      for (gint64 i = 0; i < n; i++)
        r[i] = unary_f32 (op, x[i]);
    }
}

/* float32/float16/bfloat16 math, in runs as binary_loop_runs. */
static void
unary_loop_runs (char         **ptrs,
                 const gint64  *strides,
                 gint64         n,
                 gpointer       user_data)
{
  UnaryCtx *ctx = user_data;
  float x[TS_CPU_RUN], r[TS_CPU_RUN];

  /* dense float32 in and out (a conv net's relu): no runs to copy */
  if (is_dense_f32 (ctx->in_dtype, ctx->compute, strides[0]) &&
      is_dense_f32 (ctx->out_dtype, ctx->compute, strides[1]))
    {
      unary_run_f32 (ctx->op, (const float *) ptrs[0], (float *) ptrs[1], n, TRUE);
      return;
    }
  for (gint64 done = 0; done < n; done += TS_CPU_RUN)
    {
      gint64 len = MIN (n - done, TS_CPU_RUN);

      load_run (ctx->in_dtype, ctx->compute, ptrs[0] + done * strides[0], strides[0], x, len);
      unary_run_f32 (ctx->op, x, r, len, FALSE);
      ts_cpu_store_f32 (ctx->out_dtype, r, ptrs[1] + done * strides[1], strides[1], len);
    }
}

gboolean
ts_unary_check (TsUnaryOp   op,
                TsDType     input,
                GError    **error)
{
  const char *msg = NULL;

  g_return_val_if_fail (op < TS_N_UNARY_OPS, FALSE);

  if (ts_dtype_is_complex (input))
    return ts_complex_unary_check (op, input, error);
  /* PyTorch's kernel names in its dispatch messages */
  if ((op == TS_UNARY_FRAC && !ts_dtype_is_floating (input)) ||
      (op == TS_UNARY_BITWISE_NOT && ts_dtype_is_floating (input)))
    {
      g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_DTYPE,
                   "\"%s_cpu\" not implemented for '%s'", unary_names[op],
                   ts_dtype_scalar_type_name (input));
      return FALSE;
    }
  if (input != TS_DTYPE_BOOL)
    return TRUE;
  if (op == TS_UNARY_FLOOR || op == TS_UNARY_CEIL || op == TS_UNARY_ROUND || op == TS_UNARY_TRUNC)
    {
      g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_DTYPE,
                   "\"%s_vml_cpu\" not implemented for 'Bool'", unary_names[op]);
      return FALSE;
    }
  if (op == TS_UNARY_NEG)
    msg = "Negation, the `-` operator, on a bool tensor is not supported. If you are "
          "trying to invert a mask, use the `~` or `logical_not()` operator instead.";
  else if (op == TS_UNARY_ABS)
    msg = "\"abs_cpu\" not implemented for 'Bool'";
  else if (op == TS_UNARY_RELU)
    msg = "Boolean inputs not supported for relu";
  if (msg)
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_DTYPE, msg);
      return FALSE;
    }
  return TRUE;
}

/* The common case of a small op in a Python loop, as binary_dense_fast:
 * float32 in and out, one shape, dense. The per-element math of
 * unary_loop_runs (whose loads and stores of float32 are plain copies),
 * without the iterator and the copies through its runs. Returns FALSE
 * when the operands do not qualify (nothing written). */
static gboolean
unary_dense_fast_f32 (TsUnaryOp     op,
                      const TsView *in,
                      const TsView *out)
{
  const float *x;
  float *r;
  gint64 n = 1;

  if (in->dtype != TS_DTYPE_FLOAT32 || out->dtype != TS_DTYPE_FLOAT32 ||
      unary_rules[op] == TS_OP_RULE_BOOL_RESULT ||
      ts_unary_result_dtype (op, in->dtype) != TS_DTYPE_FLOAT32 ||
      in->ndim != out->ndim)
    return FALSE;
  for (guint d = out->ndim; d-- > 0;)
    {
      gint64 size = out->shape[d];

      if (in->shape[d] != size || (size != 1 && (in->strides[d] != n || out->strides[d] != n)))
        return FALSE;
      n *= size;
    }
  x = (const float *) in->data + in->offset;
  r = (float *) out->data + out->offset;
  if (n > 0 && !dense_may_vectorize (x, x, r, n * sizeof (float)))
    return FALSE;
  if (n > 0)
    unary_run_f32 (op, x, r, n, TRUE);
  return TRUE;
}

/* torch.pow (x, number) of float32 or float64, as ATen's pow_out and
 * pow_tensor_scalar_kernel compute it: 0 fills ones and 1 copies; 0.5,
 * -0.5 and -1 are sqrt, 1 / sqrt and 1 / x; 2, 3 and -2 are x * x,
 * x * x * x and 1 / (x * x); any other exponent is pow. A dense run goes
 * as cpu_kernel_vec: whole pairs of vectors first (SLEEF's pow; -2's
 * division in the dtype), then the scalar tail, whose pow is std::pow
 * (x, double) and whose -2 divides a double 1; a strided run is all tail.
 * (We computed pow in double for every element: x ** 3, x ** -0.5 and
 * x ** 2.5 came out an ulp off python3-torch in places, and x ** 2 cost a
 * libm pow an element, 55 times PyTorch's time at 512x512.) */
typedef struct
{
  double e;
  gboolean f64;
} PowCtx;

#define DEFINE_POW_RUN(NAME, T, S, VEC_POW)                                   \
static void                                                                   \
NAME (const PowCtx *ctx, const char *px, gint64 sx, char *pr, gint64 sr, gint64 n) \
{                                                                             \
  const double e = ctx->e;                                                    \
  gint64 i = 0;                                                               \
  if (sx == sizeof (T) && sr == sizeof (T))                                   \
    {                                                                         \
      const T *x = (const T *)(gconstpointer) px;                             \
      T *r = (T *)(gpointer) pr;                                              \
      if (e == 2 || e == 3 || e == -2 || e == 0.5 || e == -0.5 || e == -1)    \
        {                                                                     \
          /* the vector half of these is the scalar formula in T, but -2's */ \
          gint64 pairs = e == -2 ? n - n % (2 * (32 / (gint64) sizeof (T))) : 0; \
          for (; i < pairs; i++)                                              \
            r[i] = (T) 1 / (x[i] * x[i]);                                     \
        }                                                                     \
      else if (ts_cpu_have_avx2_fma ())                                       \
        i = VEC_POW (x, r, n, (T) e);                                         \
    }                                                                         \
  for (px += i * sx, pr += i * sr; i < n; i++, px += sx, pr += sr)            \
    {                                                                         \
      T x, y;                                                                 \
      memcpy (&x, px, sizeof x);                                              \
      if (e == 2) y = x * x;                                                  \
      else if (e == 3) y = x * x * x;                                         \
      else if (e == -2) y = (T) (1.0 / (double) (x * x));                     \
      else if (e == 0.5) y = sqrt##S (x);                                     \
      else if (e == -0.5) y = (T) 1 / sqrt##S (x);                            \
      else if (e == -1) y = (T) 1 / x;                                        \
      else y = (T) pow ((double) x, e);                                       \
      memcpy (pr, &y, sizeof y);                                              \
    }                                                                         \
}
DEFINE_POW_RUN (pow_run_f32, float, f, ts_cpu_sleef_pow_f32)
DEFINE_POW_RUN (pow_run_f64, double, , ts_cpu_sleef_pow_f64)
#undef DEFINE_POW_RUN

static void
pow_scalar_loop (char         **ptrs,
                 const gint64  *strides,
                 gint64         n,
                 gpointer       user_data)
{
  const PowCtx *ctx = user_data;

  if (ctx->f64)
    pow_run_f64 (ctx, ptrs[0], strides[0], ptrs[1], strides[1], n);
  else
    pow_run_f32 (ctx, ptrs[0], strides[0], ptrs[1], strides[1], n);
}

gboolean
ts_cpu_pow_scalar (const TsView *x,
                   double        e,
                   const TsView *out)
{
  const TsView *operands[2] = { x, out };
  PowCtx ctx = { e, x->dtype == TS_DTYPE_FLOAT64 };
  TsIter iter;

  if ((x->dtype != TS_DTYPE_FLOAT32 && x->dtype != TS_DTYPE_FLOAT64) || out->dtype != x->dtype ||
      x->ndim != out->ndim || memcmp (x->shape, out->shape, x->ndim * sizeof (gint64)) != 0 ||
      !ts_iter_init (&iter, out->ndim, out->shape, operands, 2, NULL))
    return FALSE;
  if (e == 0)
    ts_cpu_fill (out, 1);
  else if (e == 1)
    return ts_cpu_copy (out, x, NULL);
  else
    ts_iter_for_each (&iter, pow_scalar_loop, &ctx);
  return TRUE;
}

gboolean
ts_cpu_unary (TsUnaryOp     op,
              const TsView *in,
              const TsView *out,
              GError      **error)
{
  const TsView *operands[2] = { in, out };
  UnaryCtx ctx;
  TsIter iter;

  g_return_val_if_fail (op < TS_N_UNARY_OPS, FALSE);
  g_return_val_if_fail (in != NULL && out != NULL, FALSE);

  if (!ts_unary_check (op, in->dtype, error))
    return FALSE;

  if (unary_dense_fast_f32 (op, in, out))
    return TRUE;

  if (!check_elementwise_output (out, in->ndim, in->shape, error) ||
      !ts_iter_init (&iter, out->ndim, out->shape, operands, 2, error))
    return FALSE;
  if (ts_dtype_is_complex (in->dtype))
    {
      ts_cpu_complex_unary (op, &iter, in->dtype, out->dtype);
      return TRUE;
    }

  ctx.op = op;
  ctx.in_dtype = in->dtype;
  ctx.out_dtype = out->dtype;
  ctx.compute = ts_unary_result_dtype (op, in->dtype);
  ts_iter_for_each (&iter,
                    unary_rules[op] != TS_OP_RULE_BOOL_RESULT && computes_in_f32 (ctx.compute) ? unary_loop_runs
                                                                               : unary_loop,
                    &ctx);
  return TRUE;
}

/* Fill: encode the value once in the output dtype, then copy bytes. The
 * encoding: its size in byte 0, the value from byte 8 (16 bytes for a
 * complex128). */
#define FILL_ENCODED (8 + 16)

/* LOOP (SIZE), a strided loop moving SIZE bytes an element with memcpy,
 * expanded with SIZE a constant for each common element size, so that
 * every memcpy compiles to one load and store (fill_loop, copy_loop) */
#define BY_ELEMENT_SIZE(size, LOOP) \
  switch (size)                     \
    {                               \
    case 1: LOOP (1); break;        \
    case 2: LOOP (2); break;        \
    case 4: LOOP (4); break;        \
    case 8: LOOP (8); break;        \
    case 16: LOOP (16); break;      \
    default: LOOP (size); break;    \
    }

static void
fill_loop (char         **ptrs,
           const gint64  *strides,
           gint64         n,
           gpointer       user_data)
{
  const guint8 *value = user_data;
  gsize size = value[0];
  char *p = ptrs[0];

  /* a fixed size per element: a libc memcpy call per element made
   * torch.zeros (128, 128) of float64 cost 290 us (PyTorch: 7) */
#define FILL_STRIDED(SIZE) \
  for (gint64 i = 0; i < n; i++, p += strides[0]) memcpy (p, value + 8, SIZE)
  BY_ELEMENT_SIZE (size, FILL_STRIDED);
#undef FILL_STRIDED
}

static void
fill_bytes (const TsView *out,
            guint8        encoded[FILL_ENCODED])
{
  const TsView *operands[1] = { out };
  TsIter iter;

  encoded[0] = (guint8)ts_dtype_size (out->dtype);
  if (ts_iter_init (&iter, out->ndim, out->shape, operands, 1, NULL))
    ts_iter_for_each (&iter, fill_loop, encoded);
}

void
ts_cpu_fill (const TsView *out,
             double        value)
{
  guint8 encoded[FILL_ENCODED] = { 0 };

  g_return_if_fail (out != NULL);

  ts_dtype_store (out->dtype, encoded + 8, value);
  fill_bytes (out, encoded);
}

void
ts_cpu_fill_int (const TsView *out,
                 gint64        value)
{
  guint8 encoded[FILL_ENCODED] = { 0 };

  g_return_if_fail (out != NULL);

  ts_dtype_store_int (out->dtype, encoded + 8, value);
  fill_bytes (out, encoded);
}

typedef struct
{
  TsDType src;
  TsDType dst;
} CopyCtx;

/* Conversions into float64 from the real dtypes, typed: the generic
 * loop's (double) load and store through dtype switches made `.double ()`
 * of 128x128 cost 4 to 13 times PyTorch's. A float32 destination is
 * ts_cpu_load_f32's, which the other kernels read their runs with. */
static gboolean
convert_to_f64 (TsDType  src,
                char    *ps,
                gint64   ss,
                char    *pd,
                gint64   ds,
                gint64   n)
{
#define CONVERT_LOOP(S, EXPR)                                                 \
  for (gint64 i = 0; i < n; i++, ps += ss, pd += ds)                          \
    {                                                                         \
      S x;                                                                    \
      double y;                                                               \
      memcpy (&x, ps, sizeof x);                                              \
      y = (double) (EXPR);                                                    \
      memcpy (pd, &y, sizeof y);                                              \
    }                                                                         \
  return TRUE
  switch (src)
    {
    case TS_DTYPE_FLOAT32: CONVERT_LOOP (float, x);
    case TS_DTYPE_INT64: CONVERT_LOOP (gint64, x);
    case TS_DTYPE_INT32: CONVERT_LOOP (gint32, x);
    case TS_DTYPE_INT16: CONVERT_LOOP (gint16, x);
    case TS_DTYPE_INT8: CONVERT_LOOP (gint8, x);
    case TS_DTYPE_UINT8: CONVERT_LOOP (guint8, x);
    case TS_DTYPE_BOOL: CONVERT_LOOP (guint8, x != 0);
    default: return FALSE;
    }
#undef CONVERT_LOOP
}

static void
copy_loop (char         **ptrs,
           const gint64  *strides,
           gint64         n,
           gpointer       user_data)
{
  CopyCtx *ctx = user_data;
  char *pd = ptrs[0], *ps = ptrs[1];

  if (ctx->src != ctx->dst && ts_dtype_is_floating (ctx->src) && ts_dtype_is_floating (ctx->dst) &&
      (ts_cpu_dtype_is_half (ctx->src) || ts_cpu_dtype_is_half (ctx->dst)))
    {
      /* Through float32, which holds every float16/bfloat16 value and
       * where float64 goes first anyway (as c10 converts). */
      float buf[TS_CPU_RUN];

      for (gint64 done = 0; done < n; done += TS_CPU_RUN)
        {
          gint64 len = MIN (n - done, TS_CPU_RUN);

          ts_cpu_load_f32 (ctx->src, ps + done * strides[1], strides[1], buf, len);
          ts_cpu_store_f32 (ctx->dst, buf, pd + done * strides[0], strides[0], len);
        }
      return;
    }

  if (ctx->src != ctx->dst && (ts_dtype_is_complex (ctx->src) || ts_dtype_is_complex (ctx->dst)))
    {
      /* the real kernels' double would drop the imaginary part */
      for (gint64 i = 0; i < n; i++, pd += strides[0], ps += strides[1])
        {
          double re, im;

          ts_complex_load (ctx->src, ps, &re, &im);
          ts_complex_store (ctx->dst, pd, re, im);
        }
      return;
    }

  if (ctx->src == ctx->dst)
    {
      gsize size = ts_dtype_size (ctx->src);

      if (strides[0] == (gint64)size && strides[1] == (gint64)size)
        {
          memcpy (pd, ps, size * (gsize)n);
          return;
        }
      /* a fixed size per element: a libc memcpy call per element made a
       * float64 t().contiguous() of 128x128 cost 300 us (PyTorch: 13) */
#define COPY_STRIDED(SIZE) \
      for (gint64 i = 0; i < n; i++, pd += strides[0], ps += strides[1]) memcpy (pd, ps, SIZE)
      BY_ELEMENT_SIZE (size, COPY_STRIDED);
#undef COPY_STRIDED
      return;
    }

  if (ctx->dst == TS_DTYPE_FLOAT32 && strides[0] == sizeof (float) &&
      !ts_dtype_is_complex (ctx->src) && ctx->src != TS_DTYPE_FLOAT32)
    {
      ts_cpu_load_f32 (ctx->src, ps, strides[1], (float *)(gpointer) pd, n);
      return;
    }
  if (ctx->dst == TS_DTYPE_FLOAT64 && convert_to_f64 (ctx->src, ps, strides[1], pd, strides[0], n))
    return;
  for (gint64 i = 0; i < n; i++, pd += strides[0], ps += strides[1])
    {
      if (ts_dtype_is_floating (ctx->src))
        ts_dtype_store (ctx->dst, pd, ts_dtype_load (ctx->src, ps));
      else
        ts_dtype_store_int (ctx->dst, pd, ts_dtype_load_int (ctx->src, ps));
    }
}

gboolean
ts_cpu_copy (const TsView *dst,
             const TsView *src,
             GError      **error)
{
  const TsView *operands[2] = { dst, src };
  CopyCtx ctx;
  TsIter iter;

  g_return_val_if_fail (dst != NULL && src != NULL, FALSE);

  if (!ts_iter_init (&iter, dst->ndim, dst->shape, operands, 2, NULL))
    {
      g_autofree char *d = NULL;
      g_autofree char *s = NULL;
      GString *ds = g_string_new ("[");
      GString *ss = g_string_new ("[");

      for (guint i = 0; i < dst->ndim; i++)
        g_string_append_printf (ds, "%s%" G_GINT64_FORMAT, i ? ", " : "", dst->shape[i]);
      for (guint i = 0; i < src->ndim; i++)
        g_string_append_printf (ss, "%s%" G_GINT64_FORMAT, i ? ", " : "", src->shape[i]);
      g_string_append_c (ds, ']');
      g_string_append_c (ss, ']');
      d = g_string_free (ds, FALSE);
      s = g_string_free (ss, FALSE);
      g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_SHAPE,
                   "output with shape %s doesn't match the broadcast shape %s", d, s);
      return FALSE;
    }

  ctx.src = src->dtype;
  ctx.dst = dst->dtype;
  ts_iter_for_each (&iter, copy_loop, &ctx);
  return TRUE;
}

gboolean
ts_arange_numel (double   start,
                 double   end,
                 double   step,
                 gint64  *numel,
                 GError **error)
{
  double size;

  if (step == 0)
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_ARGUMENT,
                           "step must be nonzero");
      return FALSE;
    }
  if (!isfinite (start) || !isfinite (end))
    {
      g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_ARGUMENT,
                   "unsupported range: %g -> %g", start, end);
      return FALSE;
    }
  if (!((step > 0 && end >= start) || (step < 0 && end <= start)))
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_ARGUMENT,
                           "upper bound and larger bound inconsistent with step sign");
      return FALSE;
    }
  size = ceil ((end - start) / step);
  if (size >= 0x1p62)
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_ARGUMENT,
                           "invalid size, possible overflow?");
      return FALSE;
    }
  *numel = (gint64)size;
  return TRUE;
}

/* Writes f(i) for every row-major index i of @out. */
typedef double (*IndexFunc) (gint64 i, gconstpointer data);

static void
fill_by_index (const TsView *out,
               IndexFunc     func,
               gconstpointer data)
{
  gint64 n = ts_view_numel (out);

  for (gint64 i = 0; i < n; i++)
    ts_dtype_store (out->dtype, ts_view_linear_ptr (out, i), func (i, data));
}

typedef struct
{
  TsDType dtype;
  double  start;
  double  step;
  double  end;
  gint64  steps;
} RangeArgs;

static double
arange_at (gint64        i,
           gconstpointer data)
{
  const RangeArgs *r = data;

  if (r->dtype == TS_DTYPE_FLOAT64)
    return r->start + r->step * (double)i;
  /* float accumulate type on the device for the narrow floats */
  return (float)r->start + (float)r->step * (float)i;
}

void
ts_cpu_arange (const TsView *out,
               double        start,
               double        step)
{
  RangeArgs r = { out->dtype, start, step, 0, 0 };

  g_return_if_fail (out != NULL);

  if (!ts_dtype_is_floating (out->dtype))
    {
      gint64 n = ts_view_numel (out);
      gint64 s0 = (gint64)start;
      gint64 st = (gint64)step;

      for (gint64 i = 0; i < n; i++)
        ts_dtype_store_int (out->dtype, ts_view_linear_ptr (out, i),
                            (gint64)((guint64)s0 + (guint64)st * (guint64)i));
      return;
    }
  fill_by_index (out, arange_at, &r);
}

static double
linspace_at (gint64        i,
             gconstpointer data)
{
  const RangeArgs *r = data;
  gint64 halfway = r->steps / 2;

  if (r->dtype == TS_DTYPE_FLOAT32 || r->dtype == TS_DTYPE_FLOAT16 ||
      r->dtype == TS_DTYPE_BFLOAT16)
    {
      float start = (float)round_to (r->dtype, r->start);
      float end = (float)round_to (r->dtype, r->end);
      float step = (end - start) / (float)(r->steps - 1);

      return i < halfway ? start + step * (float)i : end - step * (float)(r->steps - i - 1);
    }
  if (r->dtype == TS_DTYPE_FLOAT64)
    return i < halfway ? r->start + r->step * (double)i
                       : r->end - r->step * (double)(r->steps - i - 1);
  /* integers: a double step from the integer ends, truncated */
  {
    double start = (double)(gint64)r->start;
    double end = (double)(gint64)r->end;
    double step = (end - start) / (double)(r->steps - 1);

    return i < halfway ? start + step * (double)i : end - step * (double)(r->steps - i - 1);
  }
}

void
ts_cpu_linspace (const TsView *out,
                 double        start,
                 double        end)
{
  RangeArgs r;

  g_return_if_fail (out != NULL);

  r.dtype = out->dtype;
  r.start = start;
  r.end = end;
  r.steps = ts_view_numel (out);
  r.step = r.steps > 1 ? (end - start) / (double)(r.steps - 1) : 0;
  if (r.steps == 1)
    {
      ts_cpu_fill (out, start);
      return;
    }
  fill_by_index (out, linspace_at, &r);
}
