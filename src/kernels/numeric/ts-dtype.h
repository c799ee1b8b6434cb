/* ts-dtype.h: element types of tensors, their names, conversions and promotion
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The ten dtypes the workload API exposes, with PyTorch's names and
 * semantics: element sizes, "is floating point", conversion of one element
 * to and from double (float16 and bfloat16 round to nearest even, as c10's
 * Half and BFloat16 do), and the type promotion rules of binary operators,
 * including PyTorch's category rules for 0-dim tensors and Python scalars.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  TS_DTYPE_FLOAT32 = 0,
  TS_DTYPE_FLOAT64,
  TS_DTYPE_FLOAT16,
  TS_DTYPE_BFLOAT16,
  TS_DTYPE_INT64,
  TS_DTYPE_INT32,
  TS_DTYPE_UINT8,
  TS_DTYPE_BOOL,
  /* Appended after bool so that the values above (stored in traces, mirrored
   * by the CUDA kernels' ABI and the Python dtype codes) keep their meaning. */
  TS_DTYPE_INT8,
  TS_DTYPE_INT16,
  /* Complex numbers as C99's float/double _Complex (real, then imaginary,
   * as c10::complex), appended for the same reason. */
  TS_DTYPE_COMPLEX64,
  TS_DTYPE_COMPLEX128,
  TS_N_DTYPES,
  TS_DTYPE_UNDEFINED = -1,
} TsDType;

/* What a binary operator's operand is, for type promotion. PyTorch ranks
 * them: tensors with dims > 0 decide the dtype, 0-dim tensors only when they
 * are of a higher category (bool < integer < floating), Python numbers
 * ("wrapped numbers") likewise but with a Python float counting as the
 * default dtype and a Python int as int64. */
typedef enum
{
  TS_OPERAND_TENSOR = 0,   /* a tensor with at least one dimension */
  TS_OPERAND_ZERO_DIM,     /* a 0-dim tensor */
  TS_OPERAND_SCALAR,       /* a Python bool, int or float */
} TsOperandKind;

typedef struct
{
  TsOperandKind kind;
  /* For a scalar: TS_DTYPE_BOOL, TS_DTYPE_INT64 (any Python int),
   * TS_DTYPE_FLOAT64 (any Python float) or TS_DTYPE_COMPLEX128 (any Python
   * complex); otherwise the tensor's dtype. */
  TsDType       dtype;
} TsOperand;

const char *ts_dtype_name            (TsDType      dtype);
const char *ts_dtype_short_name      (TsDType      dtype);
/* c10's ScalarType name used in PyTorch's messages: "Float", "Long"... */
const char *ts_dtype_scalar_type_name (TsDType     dtype);
gboolean    ts_dtype_from_name       (const char  *name,
                                      TsDType     *dtype);
extern const guint8 ts_dtype_sizes[TS_N_DTYPES];
gsize       ts_dtype_size_invalid    (TsDType      dtype);

/* Inline: every op asks it several times (strides, spans, allocation
 * sizes), and a call cost more than the lookup. */
static inline gsize
ts_dtype_size (TsDType dtype)
{
  if (G_UNLIKELY ((guint) dtype >= TS_N_DTYPES))
    return ts_dtype_size_invalid (dtype);
  return ts_dtype_sizes[dtype];
}

/* FALSE for complex dtypes, as torch.is_floating_point. */
gboolean    ts_dtype_is_floating     (TsDType      dtype);
/* Inline too: each launch asks it of every operand. */
static inline gboolean
ts_dtype_is_complex (TsDType dtype)
{
  return dtype == TS_DTYPE_COMPLEX64 || dtype == TS_DTYPE_COMPLEX128;
}
/* complex64 <-> float32, complex128 <-> float64; other dtypes map to
 * themselves (to_real) or to the default complex dtype (to_complex of an
 * integer or bool), as c10's toRealValueType / toComplexType. */
TsDType     ts_dtype_to_real         (TsDType      dtype);
TsDType     ts_dtype_to_complex      (TsDType      dtype);
gboolean    ts_dtype_is_integral     (TsDType      dtype,
                                      gboolean     include_bool);
gboolean    ts_dtype_is_valid        (TsDType      dtype);
TsDType     ts_dtype_get_default     (void);
/* float32 or float64 only, as torch.set_default_dtype. */
void        ts_dtype_set_default     (TsDType      dtype);

/* One element at @p (any alignment) to and from double. A complex element
 * loads as its real part and a double stores as (value, 0), as c10's
 * static_cast between complex and real types. Storing follows
 * C++ static_cast as PyTorch does: floats to integers truncate toward zero
 * (the value must be in range, else the result is unspecified but never
 * undefined behaviour here), anything to bool is `v != 0`, double to
 * float16/bfloat16 goes through float first as c10 does. */
double      ts_dtype_load            (TsDType      dtype,
                                      const void  *p);
void        ts_dtype_store           (TsDType      dtype,
                                      void        *p,
                                      double       value);
/* Exact for all integer dtypes, including int64 values beyond 2^53. */
gint64      ts_dtype_load_int        (TsDType      dtype,
                                      const void  *p);
void        ts_dtype_store_int       (TsDType      dtype,
                                      void        *p,
                                      gint64       value);

guint16     ts_float_to_half         (float        f);
float       ts_half_to_float         (guint16      h);
guint16     ts_float_to_bfloat16     (float        f);
float       ts_bfloat16_to_float     (guint16      b);

/* c10's checked_convert of a Python number into @dtype (fill_, full...):
 * TRUE when it does not fit, with is_int saying whether the number is
 * @ivalue (a Python int or bool) or @value (a Python float). Integers out
 * of range overflow (unsigned types also take negatives down to -max, as
 * two's complement); floats overflow past the finite range, and NaN or inf
 * only for integer types; bool never overflows. */
gboolean    ts_dtype_scalar_overflows (TsDType     dtype,
                                      gboolean     is_int,
                                      gint64       ivalue,
                                      double       value);
/* The C++ type name c10 puts in that message: "int8_t", "at::Half"... */
const char *ts_dtype_cpp_type_name   (TsDType      dtype);

/* torch.can_cast(from, to): no floating to integral, no non-bool to bool.
 * The rule for writing a result into an existing output (out=, in-place). */
gboolean    ts_dtype_can_cast        (TsDType      from,
                                      TsDType      to);
/* torch.promote_types(a, b). */
TsDType     ts_dtype_promote         (TsDType      a,
                                      TsDType      b);
/* torch.result_type over several operands (see TsOperandKind). */
TsDType     ts_dtype_result_type     (const TsOperand *operands,
                                      guint            n_operands);
/* Shorthands for the common binary cases. */
TsDType     ts_dtype_result_type2    (TsOperandKind a_kind,
                                      TsDType       a,
                                      TsOperandKind b_kind,
                                      TsDType       b);

G_END_DECLS
