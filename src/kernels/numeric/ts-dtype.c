/* ts-dtype.c: element types of tensors, their names, conversions and promotion
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "ts-dtype.h"

typedef struct
{
  const char *name;
  const char *short_name;
  const char *scalar_type;   /* c10's ScalarType name */
  gboolean    floating;
  gboolean    complex;
  const char *cpp_type;      /* the C++ type c10 names in conversion errors */
  double      lowest;        /* finite range (integers: exact in a double) */
  double      max;
} DTypeInfo;

static const DTypeInfo dtype_info[TS_N_DTYPES] = {
  [TS_DTYPE_FLOAT32]  = { "torch.float32",  "float32",  "Float",    TRUE, FALSE,
                          "float", -0x1.fffffep127, 0x1.fffffep127 },
  [TS_DTYPE_FLOAT64]  = { "torch.float64",  "float64",  "Double",   TRUE, FALSE,
                          "double", -DBL_MAX, DBL_MAX },
  [TS_DTYPE_FLOAT16]  = { "torch.float16",  "float16",  "Half",     TRUE, FALSE,
                          "at::Half", -65504.0, 65504.0 },
  [TS_DTYPE_BFLOAT16] = { "torch.bfloat16", "bfloat16", "BFloat16", TRUE, FALSE,
                          "at::BFloat16", -0x1.fep127, 0x1.fep127 },
  [TS_DTYPE_INT64]    = { "torch.int64",    "int64",    "Long",     FALSE, FALSE,
                          "int64_t", -0x1p63, 0x1p63 },
  [TS_DTYPE_INT32]    = { "torch.int32",    "int32",    "Int",      FALSE, FALSE,
                          "int", -2147483648.0, 2147483647.0 },
  [TS_DTYPE_UINT8]    = { "torch.uint8",    "uint8",    "Byte",     FALSE, FALSE,
                          "uint8_t", 0.0, 255.0 },
  [TS_DTYPE_BOOL]     = { "torch.bool",     "bool",     "Bool",     FALSE, FALSE,
                          "bool", 0.0, 1.0 },
  [TS_DTYPE_INT8]     = { "torch.int8",     "int8",     "Char",     FALSE, FALSE,
                          "int8_t", -128.0, 127.0 },
  [TS_DTYPE_INT16]    = { "torch.int16",    "int16",    "Short",    FALSE, FALSE,
                          "int16_t", -32768.0, 32767.0 },
  /* the range is the component's */
  [TS_DTYPE_COMPLEX64]  = { "torch.complex64",  "complex64",  "ComplexFloat", FALSE, TRUE,
                            "c10::complex<float>", -0x1.fffffep127, 0x1.fffffep127 },
  [TS_DTYPE_COMPLEX128] = { "torch.complex128", "complex128", "ComplexDouble", FALSE, TRUE,
                            "c10::complex<double>", -DBL_MAX, DBL_MAX },
};

/* Aliases PyTorch accepts as attribute names of the torch module. */
static const struct { const char *alias; TsDType dtype; } dtype_aliases[] = {
  { "float", TS_DTYPE_FLOAT32 },
  { "double", TS_DTYPE_FLOAT64 },
  { "half", TS_DTYPE_FLOAT16 },
  { "long", TS_DTYPE_INT64 },
  { "int", TS_DTYPE_INT32 },
  { "short", TS_DTYPE_INT16 },
  { "cfloat", TS_DTYPE_COMPLEX64 },
  { "cdouble", TS_DTYPE_COMPLEX128 },
};

gboolean
ts_dtype_is_valid (TsDType dtype)
{
  return dtype >= 0 && dtype < TS_N_DTYPES;
}

const char *
ts_dtype_name (TsDType dtype)
{
  g_return_val_if_fail (ts_dtype_is_valid (dtype), NULL);
  return dtype_info[dtype].name;
}

const char *
ts_dtype_short_name (TsDType dtype)
{
  g_return_val_if_fail (ts_dtype_is_valid (dtype), NULL);
  return dtype_info[dtype].short_name;
}

const char *
ts_dtype_scalar_type_name (TsDType dtype)
{
  if (!ts_dtype_is_valid (dtype))
    return "Undefined";
  return dtype_info[dtype].scalar_type;
}

/* Accepts "torch.float32", "float32" and the aliases ("torch.float", "long"...). */
gboolean
ts_dtype_from_name (const char *name,
                    TsDType    *dtype)
{
  g_return_val_if_fail (name != NULL, FALSE);

  if (g_str_has_prefix (name, "torch."))
    name += strlen ("torch.");

  for (guint i = 0; i < TS_N_DTYPES; i++)
    {
      if (strcmp (name, dtype_info[i].short_name) == 0)
        {
          if (dtype)
            *dtype = (TsDType)i;
          return TRUE;
        }
    }

  for (guint i = 0; i < G_N_ELEMENTS (dtype_aliases); i++)
    {
      if (strcmp (name, dtype_aliases[i].alias) == 0)
        {
          if (dtype)
            *dtype = dtype_aliases[i].dtype;
          return TRUE;
        }
    }

  return FALSE;
}

/* Element sizes in bytes, read by the inline ts_dtype_size(). */
const guint8 ts_dtype_sizes[TS_N_DTYPES] = {
  [TS_DTYPE_FLOAT32] = 4, [TS_DTYPE_FLOAT64] = 8, [TS_DTYPE_FLOAT16] = 2,
  [TS_DTYPE_BFLOAT16] = 2, [TS_DTYPE_INT64] = 8, [TS_DTYPE_INT32] = 4,
  [TS_DTYPE_UINT8] = 1, [TS_DTYPE_BOOL] = 1, [TS_DTYPE_INT8] = 1,
  [TS_DTYPE_INT16] = 2, [TS_DTYPE_COMPLEX64] = 8, [TS_DTYPE_COMPLEX128] = 16,
};

gsize
ts_dtype_size_invalid (TsDType dtype)
{
  g_return_val_if_fail (ts_dtype_is_valid (dtype), 0);
  return ts_dtype_sizes[dtype];
}

gboolean
ts_dtype_is_floating (TsDType dtype)
{
  g_return_val_if_fail (ts_dtype_is_valid (dtype), FALSE);
  return dtype_info[dtype].floating;
}

gboolean
ts_dtype_is_integral (TsDType  dtype,
                      gboolean include_bool)
{
  g_return_val_if_fail (ts_dtype_is_valid (dtype), FALSE);

  if (dtype == TS_DTYPE_BOOL)
    return include_bool;
  return !dtype_info[dtype].floating && !dtype_info[dtype].complex;
}


TsDType
ts_dtype_to_real (TsDType dtype)
{
  if (dtype == TS_DTYPE_COMPLEX64)
    return TS_DTYPE_FLOAT32;
  if (dtype == TS_DTYPE_COMPLEX128)
    return TS_DTYPE_FLOAT64;
  return dtype;
}

TsDType
ts_dtype_to_complex (TsDType dtype)
{
  switch (dtype)
    {
    case TS_DTYPE_FLOAT64:
    case TS_DTYPE_COMPLEX128:
      return TS_DTYPE_COMPLEX128;
    case TS_DTYPE_FLOAT32:
    case TS_DTYPE_FLOAT16:
    case TS_DTYPE_BFLOAT16:
    case TS_DTYPE_COMPLEX64:
      return TS_DTYPE_COMPLEX64;
    case TS_DTYPE_INT64:
    case TS_DTYPE_INT32:
    case TS_DTYPE_UINT8:
    case TS_DTYPE_BOOL:
    case TS_DTYPE_INT8:
    case TS_DTYPE_INT16:
    case TS_N_DTYPES:
    case TS_DTYPE_UNDEFINED:
    default:
      return ts_dtype_get_default () == TS_DTYPE_FLOAT64 ? TS_DTYPE_COMPLEX128 : TS_DTYPE_COMPLEX64;
    }
}

/* torch.set_default_dtype(): what Python floats, integer true division
 * and float functions of integers give, and what repr leaves unsaid. */
static TsDType default_dtype = TS_DTYPE_FLOAT32;

TsDType
ts_dtype_get_default (void)
{
  return default_dtype;
}

void
ts_dtype_set_default (TsDType dtype)
{
  g_return_if_fail (dtype == TS_DTYPE_FLOAT32 || dtype == TS_DTYPE_FLOAT64);
  default_dtype = dtype;
}

static inline guint32
float_bits (float f)
{
  guint32 u;

  memcpy (&u, &f, sizeof u);
  return u;
}

static inline float
bits_float (guint32 u)
{
  float f;

  memcpy (&f, &u, sizeof f);
  return f;
}

/* IEEE binary16 from binary32, round to nearest even, subnormals and
 * overflow to infinity included (what c10::Half's constructor does). */
guint16
ts_float_to_half (float f)
{
  guint32 x = float_bits (f);
  guint32 sign = (x >> 16) & 0x8000;
  guint32 abs = x & 0x7fffffff;
  guint32 mant;
  gint32 exp;

  if (abs >= 0x7f800000)  /* inf or NaN: keep NaN quiet and non-zero */
    return sign | 0x7c00 | (abs > 0x7f800000 ? 0x200 | ((abs >> 13) & 0x3ff) : 0);

  if (abs >= 0x477ff000)  /* rounds to >= 65520: infinity */
    return sign | 0x7c00;

  exp = (gint32)(abs >> 23) - 127 + 15;
  if (exp <= 0)
    {
      /* Subnormal half (or zero): shift the full significand right, round
       * to nearest even on the bits shifted out. */
      guint32 shift;
      guint32 half_mant;
      guint32 rem;
      guint32 halfway;

      if (exp < -10)
        return sign;  /* below half the smallest subnormal */
      mant = (abs & 0x7fffff) | 0x800000;
      shift = (guint32)(14 - exp);
      half_mant = mant >> shift;
      rem = mant & ((1u << shift) - 1);
      halfway = 1u << (shift - 1);
      if (rem > halfway || (rem == halfway && (half_mant & 1)))
        half_mant++;
      return sign | half_mant;
    }

  mant = abs & 0x7fffff;
  {
    guint32 h = ((guint32)exp << 10) | (mant >> 13);
    guint32 rem = mant & 0x1fff;

    if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
      h++;  /* may carry into the exponent, which is still correct */
    return sign | h;
  }
}

float
ts_half_to_float (guint16 h)
{
  guint32 sign = (guint32)(h & 0x8000) << 16;
  guint32 exp = (h >> 10) & 0x1f;
  guint32 mant = h & 0x3ff;

  if (exp == 0x1f)
    return bits_float (sign | 0x7f800000 | (mant << 13));
  if (exp == 0)
    {
      /* Subnormal or zero: mant * 2^-24 is exact in float. */
      float v = (float)mant * 0x1p-24f;
      return sign ? -v : v;
    }
  return bits_float (sign | ((exp + 127 - 15) << 23) | (mant << 13));
}

/* c10::BFloat16's round_to_nearest_even, with its canonical NaN. */
guint16
ts_float_to_bfloat16 (float f)
{
  guint32 u;

  if (isnan (f))
    return 0x7fc0;
  u = float_bits (f);
  u += 0x7fff + ((u >> 16) & 1);
  return (guint16)(u >> 16);
}

float
ts_bfloat16_to_float (guint16 b)
{
  return bits_float ((guint32)b << 16);
}

/* double to int64 the way x86's cvttsd2si does for static_cast: truncation,
 * and the "integer indefinite" value for NaN and out-of-range input, without
 * the undefined behaviour of a plain C cast. */
static inline gint64
double_to_int64 (double v)
{
  if (isnan (v) || v >= 0x1p63 || v < -0x1p63)
    return G_MININT64;
  return (gint64)v;
}

double
ts_dtype_load (TsDType     dtype,
               const void *p)
{
  switch (dtype)
    {
    case TS_DTYPE_FLOAT32: { float v; memcpy (&v, p, 4); return v; }
    case TS_DTYPE_FLOAT64: { double v; memcpy (&v, p, 8); return v; }
    case TS_DTYPE_FLOAT16: { guint16 v; memcpy (&v, p, 2); return ts_half_to_float (v); }
    case TS_DTYPE_BFLOAT16: { guint16 v; memcpy (&v, p, 2); return ts_bfloat16_to_float (v); }
    case TS_DTYPE_INT64: { gint64 v; memcpy (&v, p, 8); return (double)v; }
    case TS_DTYPE_INT32: { gint32 v; memcpy (&v, p, 4); return v; }
    case TS_DTYPE_UINT8: return *(const guint8 *)p;
    case TS_DTYPE_BOOL: return *(const guint8 *)p != 0;
    case TS_DTYPE_INT8: return *(const gint8 *)p;
    case TS_DTYPE_INT16: { gint16 v; memcpy (&v, p, 2); return v; }
    case TS_DTYPE_COMPLEX64: { float v; memcpy (&v, p, 4); return v; }
    case TS_DTYPE_COMPLEX128: { double v; memcpy (&v, p, 8); return v; }
    case TS_N_DTYPES:
    case TS_DTYPE_UNDEFINED:
    default:
      g_return_val_if_reached (0.0);
    }
}

void
ts_dtype_store (TsDType  dtype,
                void    *p,
                double   value)
{
  switch (dtype)
    {
    case TS_DTYPE_FLOAT32: { float v = (float)value; memcpy (p, &v, 4); break; }
    case TS_DTYPE_FLOAT64: memcpy (p, &value, 8); break;
    case TS_DTYPE_FLOAT16: { guint16 v = ts_float_to_half ((float)value); memcpy (p, &v, 2); break; }
    case TS_DTYPE_BFLOAT16: { guint16 v = ts_float_to_bfloat16 ((float)value); memcpy (p, &v, 2); break; }
    case TS_DTYPE_INT64:
    case TS_DTYPE_INT32:
    case TS_DTYPE_UINT8:
    case TS_DTYPE_INT8:
    case TS_DTYPE_INT16:
      ts_dtype_store_int (dtype, p, double_to_int64 (value));
      break;
    case TS_DTYPE_BOOL: *(guint8 *)p = value != 0.0; break;
    case TS_DTYPE_COMPLEX64: { float v[2] = { (float)value, 0.0f }; memcpy (p, v, 8); break; }
    case TS_DTYPE_COMPLEX128: { double v[2] = { value, 0.0 }; memcpy (p, v, 16); break; }
    case TS_N_DTYPES:
    case TS_DTYPE_UNDEFINED:
    default:
      g_return_if_reached ();
    }
}

gint64
ts_dtype_load_int (TsDType     dtype,
                   const void *p)
{
  switch (dtype)
    {
    case TS_DTYPE_INT64: { gint64 v; memcpy (&v, p, 8); return v; }
    case TS_DTYPE_INT32: { gint32 v; memcpy (&v, p, 4); return v; }
    case TS_DTYPE_UINT8: return *(const guint8 *)p;
    case TS_DTYPE_BOOL: return *(const guint8 *)p != 0;
    case TS_DTYPE_INT8: return *(const gint8 *)p;
    case TS_DTYPE_INT16: { gint16 v; memcpy (&v, p, 2); return v; }
    case TS_DTYPE_FLOAT32:
    case TS_DTYPE_FLOAT64:
    case TS_DTYPE_FLOAT16:
    case TS_DTYPE_BFLOAT16:
    case TS_DTYPE_COMPLEX64:
    case TS_DTYPE_COMPLEX128:
      return double_to_int64 (ts_dtype_load (dtype, p));
    case TS_N_DTYPES:
    case TS_DTYPE_UNDEFINED:
    default:
      g_return_val_if_reached (0);
    }
}

/* Narrow integer types wrap modulo 2^bits, as a C++ integral conversion does. */
void
ts_dtype_store_int (TsDType  dtype,
                    void    *p,
                    gint64   value)
{
  switch (dtype)
    {
    case TS_DTYPE_INT64: memcpy (p, &value, 8); break;
    case TS_DTYPE_INT32: { gint32 v = (gint32)(guint32)(guint64)value; memcpy (p, &v, 4); break; }
    case TS_DTYPE_UINT8: *(guint8 *)p = (guint8)(guint64)value; break;
    case TS_DTYPE_BOOL: *(guint8 *)p = value != 0; break;
    case TS_DTYPE_INT8: *(gint8 *)p = (gint8)(guint8)(guint64)value; break;
    case TS_DTYPE_INT16: { gint16 v = (gint16)(guint16)(guint64)value; memcpy (p, &v, 2); break; }
    case TS_DTYPE_FLOAT32:
    case TS_DTYPE_FLOAT64:
    case TS_DTYPE_FLOAT16:
    case TS_DTYPE_BFLOAT16:
    case TS_DTYPE_COMPLEX64:
    case TS_DTYPE_COMPLEX128:
      ts_dtype_store (dtype, p, (double)value);
      break;
    case TS_N_DTYPES:
    case TS_DTYPE_UNDEFINED:
    default:
      g_return_if_reached ();
    }
}

/* Rank of the integer types. The lattice is a chain except at the bottom:
 * uint8 and int8 share a rank and meet at int16, the smallest type holding
 * both ranges; otherwise promotion is a max. */
static int
int_rank (TsDType dtype)
{
  switch (dtype)
    {
    case TS_DTYPE_BOOL: return 0;
    case TS_DTYPE_UINT8: return 1;
    case TS_DTYPE_INT8: return 1;
    case TS_DTYPE_INT16: return 2;
    case TS_DTYPE_INT32: return 3;
    case TS_DTYPE_INT64: return 4;
    case TS_DTYPE_FLOAT32:
    case TS_DTYPE_FLOAT64:
    case TS_DTYPE_FLOAT16:
    case TS_DTYPE_BFLOAT16:
    case TS_DTYPE_COMPLEX64:
    case TS_DTYPE_COMPLEX128:
    case TS_N_DTYPES:
    case TS_DTYPE_UNDEFINED:
    default:
      g_assert_not_reached ();
    }
}

TsDType
ts_dtype_promote (TsDType a,
                  TsDType b)
{
  gboolean fa, fb;

  if (a == TS_DTYPE_UNDEFINED)
    return b;
  if (b == TS_DTYPE_UNDEFINED)
    return a;
  g_return_val_if_fail (ts_dtype_is_valid (a), TS_DTYPE_UNDEFINED);
  g_return_val_if_fail (ts_dtype_is_valid (b), TS_DTYPE_UNDEFINED);

  if (a == b)
    return a;

  /* complex wins, with the wider of the two component types: complex64
   * with float64 is complex128 (c10's promoteTypes table) */
  if (dtype_info[a].complex || dtype_info[b].complex)
    {
      TsDType ra = dtype_info[a].complex || dtype_info[a].floating ? ts_dtype_to_real (a) : TS_DTYPE_UNDEFINED;
      TsDType rb = dtype_info[b].complex || dtype_info[b].floating ? ts_dtype_to_real (b) : TS_DTYPE_UNDEFINED;

      if (ra == TS_DTYPE_FLOAT64 || rb == TS_DTYPE_FLOAT64)
        return TS_DTYPE_COMPLEX128;
      return TS_DTYPE_COMPLEX64;
    }

  fa = dtype_info[a].floating;
  fb = dtype_info[b].floating;
  if (fa && !fb)
    return a;
  if (fb && !fa)
    return b;
  if (fa && fb)
    {
      /* float16 with bfloat16 meets at float32; otherwise the wider wins. */
      if (ts_dtype_sizes[a] == 2 && ts_dtype_sizes[b] == 2)
        return TS_DTYPE_FLOAT32;
      return ts_dtype_sizes[a] >= ts_dtype_sizes[b] ? a : b;
    }
  if (int_rank (a) == int_rank (b))
    return TS_DTYPE_INT16;  /* uint8 with int8, the only distinct pair of a rank */
  return int_rank (a) > int_rank (b) ? a : b;
}

gboolean
ts_dtype_can_cast (TsDType from,
                   TsDType to)
{
  g_return_val_if_fail (ts_dtype_is_valid (from), FALSE);
  g_return_val_if_fail (ts_dtype_is_valid (to), FALSE);

  if (dtype_info[from].complex && !dtype_info[to].complex)
    return FALSE;
  if (dtype_info[from].floating && !dtype_info[to].floating && !dtype_info[to].complex)
    return FALSE;
  if (from != TS_DTYPE_BOOL && to == TS_DTYPE_BOOL)
    return FALSE;
  return TRUE;
}

const char *
ts_dtype_cpp_type_name (TsDType dtype)
{
  g_return_val_if_fail (ts_dtype_is_valid (dtype), NULL);
  return dtype_info[dtype].cpp_type;
}

gboolean
ts_dtype_scalar_overflows (TsDType  dtype,
                           gboolean is_int,
                           gint64   ivalue,
                           double   value)
{
  const DTypeInfo *info;

  g_return_val_if_fail (ts_dtype_is_valid (dtype), FALSE);

  info = &dtype_info[dtype];
  if (dtype == TS_DTYPE_BOOL)
    return FALSE;

  if (is_int)
    {
      if (dtype == TS_DTYPE_INT64)
        return FALSE;
      if (info->floating)
        return (double)ivalue > info->max || (double)ivalue < info->lowest;
      if (info->lowest == 0.0 && ivalue < 0)
        return (double)(0 - (guint64)ivalue) > info->max;  /* two's complement */
      return (double)ivalue < info->lowest || (double)ivalue > info->max;
    }

  if (isnan (value) || isinf (value))
    return !info->floating && !info->complex;
  /* c10 compares in double: int64's max, 2^63 - 1, becomes 2^63, so 2^63
   * itself passes (and stores as the integer indefinite, like PyTorch). */
  return value < info->lowest || value > info->max;
}

/* PyTorch's combine_categories: @lower only matters when it is of a
 * higher category than @higher (or when @higher is bool). */
static TsDType
combine_categories (TsDType higher,
                    TsDType lower)
{
  if (higher != TS_DTYPE_UNDEFINED && dtype_info[higher].complex)
    return higher;
  if (lower != TS_DTYPE_UNDEFINED && dtype_info[lower].complex)
    {
      /* a complex lower keeps a floating higher's precision */
      if (higher != TS_DTYPE_UNDEFINED && dtype_info[higher].floating)
        return ts_dtype_to_complex (higher);
      return lower;
    }
  if (higher != TS_DTYPE_UNDEFINED && dtype_info[higher].floating)
    return higher;
  if (higher == TS_DTYPE_BOOL ||
      (lower != TS_DTYPE_UNDEFINED && dtype_info[lower].floating))
    return ts_dtype_promote (higher, lower);
  if (higher != TS_DTYPE_UNDEFINED)
    return higher;
  return lower;
}

TsDType
ts_dtype_result_type (const TsOperand *operands,
                      guint            n_operands)
{
  TsDType dim_result = TS_DTYPE_UNDEFINED;
  TsDType zero_result = TS_DTYPE_UNDEFINED;
  TsDType wrapped_result = TS_DTYPE_UNDEFINED;

  g_return_val_if_fail (operands != NULL || n_operands == 0, TS_DTYPE_UNDEFINED);

  for (guint i = 0; i < n_operands; i++)
    {
      TsDType dt = operands[i].dtype;

      g_return_val_if_fail (ts_dtype_is_valid (dt), TS_DTYPE_UNDEFINED);

      switch (operands[i].kind)
        {
        case TS_OPERAND_TENSOR:
          dim_result = ts_dtype_promote (dim_result, dt);
          break;
        case TS_OPERAND_ZERO_DIM:
          zero_result = ts_dtype_promote (zero_result, dt);
          break;
        case TS_OPERAND_SCALAR:
          /* A Python float is a double wrapped number, but counts as the
           * default dtype; a Python int is int64, a bool is bool. */
          if (dtype_info[dt].floating)
            dt = ts_dtype_get_default ();
          else if (dtype_info[dt].complex)
            dt = ts_dtype_to_complex (ts_dtype_get_default ());
          wrapped_result = ts_dtype_promote (wrapped_result, dt);
          break;
        default:
          g_return_val_if_reached (TS_DTYPE_UNDEFINED);
        }
    }

  return combine_categories (dim_result,
                             combine_categories (zero_result, wrapped_result));
}

TsDType
ts_dtype_result_type2 (TsOperandKind a_kind,
                       TsDType       a,
                       TsOperandKind b_kind,
                       TsDType       b)
{
  TsOperand ops[2] = { { a_kind, a }, { b_kind, b } };

  return ts_dtype_result_type (ops, 2);
}
