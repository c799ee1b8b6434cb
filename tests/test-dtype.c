/* test-dtype.c: dtype names, conversions and PyTorch's type promotion
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-dtype.h"

static void
test_names (void)
{
  TsDType dt;

  g_assert_cmpstr (ts_dtype_name (TS_DTYPE_FLOAT32), ==, "torch.float32");
  g_assert_cmpstr (ts_dtype_name (TS_DTYPE_BFLOAT16), ==, "torch.bfloat16");
  g_assert_cmpstr (ts_dtype_name (TS_DTYPE_BOOL), ==, "torch.bool");
  g_assert_cmpstr (ts_dtype_short_name (TS_DTYPE_UINT8), ==, "uint8");
  g_assert_true (ts_dtype_from_name ("torch.int32", &dt));
  g_assert_cmpint (dt, ==, TS_DTYPE_INT32);
  g_assert_true (ts_dtype_from_name ("torch.long", &dt));
  g_assert_cmpint (dt, ==, TS_DTYPE_INT64);
  g_assert_true (ts_dtype_from_name ("half", &dt));
  g_assert_cmpint (dt, ==, TS_DTYPE_FLOAT16);
  g_assert_true (ts_dtype_from_name ("double", &dt));
  g_assert_cmpint (dt, ==, TS_DTYPE_FLOAT64);
  g_assert_true (ts_dtype_from_name ("torch.int8", &dt));
  g_assert_cmpint (dt, ==, TS_DTYPE_INT8);
  g_assert_true (ts_dtype_from_name ("torch.short", &dt));
  g_assert_cmpint (dt, ==, TS_DTYPE_INT16);
  g_assert_true (ts_dtype_from_name ("int16", &dt));
  g_assert_cmpint (dt, ==, TS_DTYPE_INT16);
  /* torch has no "char" alias, only the CharTensor class */
  g_assert_false (ts_dtype_from_name ("torch.char", &dt));
  g_assert_cmpstr (ts_dtype_name (TS_DTYPE_INT8), ==, "torch.int8");
  g_assert_cmpstr (ts_dtype_name (TS_DTYPE_INT16), ==, "torch.int16");
  g_assert_cmpstr (ts_dtype_scalar_type_name (TS_DTYPE_INT8), ==, "Char");
  g_assert_cmpstr (ts_dtype_scalar_type_name (TS_DTYPE_INT16), ==, "Short");
  g_assert_cmpstr (ts_dtype_scalar_type_name (TS_DTYPE_UINT8), ==, "Byte");
  g_assert_true (ts_dtype_from_name ("torch.complex64", &dt));
  g_assert_cmpint (dt, ==, TS_DTYPE_COMPLEX64);
  g_assert_true (ts_dtype_from_name ("cdouble", &dt));
  g_assert_cmpint (dt, ==, TS_DTYPE_COMPLEX128);
  g_assert_cmpstr (ts_dtype_scalar_type_name (TS_DTYPE_COMPLEX64), ==, "ComplexFloat");
  g_assert_false (ts_dtype_from_name ("torch.complex32", &dt));
  g_assert_false (ts_dtype_from_name ("", NULL));
  /* the inline test names every complex dtype of the table */
  for (guint d = 0; d < TS_N_DTYPES; d++)
    if (ts_dtype_is_valid (d))
      g_assert_cmpint (ts_dtype_is_complex (d), ==, g_str_has_prefix (ts_dtype_name (d), "torch.complex"));
  g_assert_false (ts_dtype_is_complex (TS_N_DTYPES));
}

static void
test_sizes (void)
{
  static const gsize sizes[TS_N_DTYPES] = { 4, 8, 2, 2, 8, 4, 1, 1, 1, 2, 8, 16 };

  for (int i = 0; i < TS_N_DTYPES; i++)
    g_assert_cmpuint (ts_dtype_size (i), ==, sizes[i]);
  g_assert_true (ts_dtype_is_floating (TS_DTYPE_FLOAT16));
  g_assert_true (ts_dtype_is_floating (TS_DTYPE_BFLOAT16));
  g_assert_false (ts_dtype_is_floating (TS_DTYPE_INT64));
  g_assert_false (ts_dtype_is_floating (TS_DTYPE_BOOL));
  g_assert_true (ts_dtype_is_integral (TS_DTYPE_UINT8, FALSE));
  g_assert_true (ts_dtype_is_integral (TS_DTYPE_INT8, FALSE));
  g_assert_true (ts_dtype_is_integral (TS_DTYPE_INT16, FALSE));
  g_assert_false (ts_dtype_is_floating (TS_DTYPE_INT16));
  g_assert_false (ts_dtype_is_integral (TS_DTYPE_BOOL, FALSE));
  g_assert_true (ts_dtype_is_integral (TS_DTYPE_BOOL, TRUE));
  g_assert_cmpint (ts_dtype_get_default (), ==, TS_DTYPE_FLOAT32);
}

/* Bit patterns checked against torch.tensor([x], dtype=torch.float16)
 * .view(torch.int16) with python3-torch 1.13. */
static void
test_half (void)
{
  static const struct { float f; guint16 bits; } cases[] = {
    { 0.0f, 0x0000 },
    { -0.0f, 0x8000 },
    { 1.0f, 0x3c00 },
    { -2.0f, 0xc000 },
    { 0.1f, 0x2e66 },
    { 65504.0f, 0x7bff },     /* max half */
    { 65519.0f, 0x7bff },     /* rounds down */
    { 65520.0f, 0x7c00 },     /* rounds to inf */
    { 1e-8f, 0x0000 },        /* underflow */
    { 5.96046448e-08f, 0x0001 }, /* smallest subnormal */
    { 2.98023224e-08f, 0x0000 }, /* exactly half of it: ties to even (0) */
    { 8.94069672e-08f, 0x0002 }, /* 1.5 subnormals: ties to even (2) */
    { 1.00048828125f, 0x3c00 }, /* 1 + 2^-11: tie, rounds to even 1.0 */
    { 1.00146484375f, 0x3c02 }, /* 1 + 3 * 2^-11: tie, rounds up to even */
    { 6.1035156e-05f, 0x0400 }, /* smallest normal */
    { INFINITY, 0x7c00 },
    { -INFINITY, 0xfc00 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("half case %u: %g", i, cases[i].f);
      g_assert_cmphex (ts_float_to_half (cases[i].f), ==, cases[i].bits);
    }
  g_assert_true (isnan (ts_half_to_float (ts_float_to_half (NAN))));
  g_assert_cmpfloat (ts_half_to_float (0x0001), ==, 0x1p-24f);
  g_assert_cmpfloat (ts_half_to_float (0x3555), ==, 0.333251953125f);
  g_assert_cmpfloat (ts_half_to_float (0xfbff), ==, -65504.0f);

  /* every half round-trips */
  for (guint32 h = 0; h < 0x10000; h++)
    {
      float f = ts_half_to_float ((guint16)h);

      if (!isnan (f))
        g_assert_cmphex (ts_float_to_half (f), ==, h);
    }
}

static void
test_bfloat16 (void)
{
  g_assert_cmphex (ts_float_to_bfloat16 (1.0f), ==, 0x3f80);
  g_assert_cmphex (ts_float_to_bfloat16 (0.1f), ==, 0x3dcd);
  g_assert_cmphex (ts_float_to_bfloat16 (3.14159265f), ==, 0x4049);
  /* 1 + 2^-8 is a tie: to even (1.0); 1 + 3 * 2^-8 rounds up */
  g_assert_cmphex (ts_float_to_bfloat16 (1.00390625f), ==, 0x3f80);
  g_assert_cmphex (ts_float_to_bfloat16 (1.01171875f), ==, 0x3f82);
  g_assert_cmphex (ts_float_to_bfloat16 (NAN), ==, 0x7fc0);
  g_assert_cmpfloat (ts_bfloat16_to_float (0x4049), ==, 3.140625f);
}

static void
test_load_store (void)
{
  guint8 buf[8];

  ts_dtype_store (TS_DTYPE_FLOAT16, buf, 0.1);
  g_assert_cmpfloat (ts_dtype_load (TS_DTYPE_FLOAT16, buf), ==, 0.0999755859375);
  ts_dtype_store (TS_DTYPE_INT32, buf, -2.7);
  g_assert_cmpint (ts_dtype_load_int (TS_DTYPE_INT32, buf), ==, -2);
  /* torch.tensor([-1.5, 300.7]).to(torch.uint8) == [255, 44] */
  ts_dtype_store (TS_DTYPE_UINT8, buf, -1.5);
  g_assert_cmpint (buf[0], ==, 255);
  ts_dtype_store (TS_DTYPE_UINT8, buf, 300.7);
  g_assert_cmpint (buf[0], ==, 44);
  ts_dtype_store (TS_DTYPE_BOOL, buf, 0.25);
  g_assert_cmpint (buf[0], ==, 1);
  ts_dtype_store (TS_DTYPE_BOOL, buf, -0.0);
  g_assert_cmpint (buf[0], ==, 0);
  ts_dtype_store_int (TS_DTYPE_INT64, buf, G_GINT64_CONSTANT (9007199254740993));
  g_assert_cmpint (ts_dtype_load_int (TS_DTYPE_INT64, buf), ==, G_GINT64_CONSTANT (9007199254740993));
  ts_dtype_store_int (TS_DTYPE_INT32, buf, G_GINT64_CONSTANT (4294967297));
  g_assert_cmpint (ts_dtype_load_int (TS_DTYPE_INT32, buf), ==, 1);
  ts_dtype_store (TS_DTYPE_INT64, buf, NAN);
  g_assert_cmpint (ts_dtype_load_int (TS_DTYPE_INT64, buf), ==, G_MININT64);
}

/* Narrow signed types: values checked with python3-torch 1.13, e.g.
 * torch.tensor([-1.5, 300.7, 127.9, -128.9, 200.0]).to(torch.int8)
 * == [-1, 44, 127, -128, -56]: truncate, then wrap modulo 2^8. */
static void
test_int8_int16 (void)
{
  static const struct { double v; gint64 i8; } f_to_i8[] = {
    { -1.5, -1 }, { 300.7, 44 }, { 127.9, 127 }, { -128.9, -128 }, { 200.0, -56 },
  };
  static const struct { double v; gint64 i16; } f_to_i16[] = {
    { 40000.0, -25536 }, { -40000.5, 25536 }, { 32767.5, 32767 },
  };
  static const struct { gint64 v, i8, i16; } i_to_narrow[] = {
    { 128, -128, 128 }, { 255, -1, 255 }, { 256, 0, 256 }, { -129, 127, -129 },
    { 32768, 0, -32768 }, { 65535, -1, -1 }, { 65536, 0, 0 }, { -32769, -1, 32767 },
    { G_GINT64_CONSTANT (4294967295), -1, -1 },
  };
  guint8 buf[8];

  for (guint i = 0; i < G_N_ELEMENTS (f_to_i8); i++)
    {
      ts_dtype_store (TS_DTYPE_INT8, buf, f_to_i8[i].v);
      g_assert_cmpint (ts_dtype_load_int (TS_DTYPE_INT8, buf), ==, f_to_i8[i].i8);
      g_assert_cmpfloat (ts_dtype_load (TS_DTYPE_INT8, buf), ==, (double)f_to_i8[i].i8);
    }
  for (guint i = 0; i < G_N_ELEMENTS (f_to_i16); i++)
    {
      ts_dtype_store (TS_DTYPE_INT16, buf, f_to_i16[i].v);
      g_assert_cmpint (ts_dtype_load_int (TS_DTYPE_INT16, buf), ==, f_to_i16[i].i16);
    }
  for (guint i = 0; i < G_N_ELEMENTS (i_to_narrow); i++)
    {
      ts_dtype_store_int (TS_DTYPE_INT8, buf, i_to_narrow[i].v);
      g_assert_cmpint (ts_dtype_load_int (TS_DTYPE_INT8, buf), ==, i_to_narrow[i].i8);
      ts_dtype_store_int (TS_DTYPE_INT16, buf + 1, i_to_narrow[i].v);  /* unaligned */
      g_assert_cmpint (ts_dtype_load_int (TS_DTYPE_INT16, buf + 1), ==, i_to_narrow[i].i16);
    }
  /* int8 -> uint8 and back: [-1, -128] -> [255, 128]; 200 -> -56 */
  ts_dtype_store_int (TS_DTYPE_UINT8, buf, -128);
  g_assert_cmpint (buf[0], ==, 128);
  buf[0] = 200;
  g_assert_cmpint (ts_dtype_load_int (TS_DTYPE_INT8, buf), ==, -56);
  ts_dtype_store (TS_DTYPE_INT8, buf, NAN);
  g_assert_cmpint (ts_dtype_load_int (TS_DTYPE_INT8, buf), ==, 0);
}

#define F32 TS_DTYPE_FLOAT32
#define F64 TS_DTYPE_FLOAT64
#define F16 TS_DTYPE_FLOAT16
#define BF16 TS_DTYPE_BFLOAT16
#define I64 TS_DTYPE_INT64
#define I32 TS_DTYPE_INT32
#define U8 TS_DTYPE_UINT8
#define B TS_DTYPE_BOOL
#define I8 TS_DTYPE_INT8
#define I16 TS_DTYPE_INT16
#define C64 TS_DTYPE_COMPLEX64
#define C128 TS_DTYPE_COMPLEX128

static void
test_promote_types (void)
{
  /* torch.promote_types over the full 12 x 12 table, generated with
   * python3-torch 1.13 in TsDType order. */
  static const TsDType table[TS_N_DTYPES][TS_N_DTYPES] = {
    /*          F32   F64   F16   BF16  I64   I32   U8    B     I8    I16   C64   C128 */
    /* F32 */ { F32 , F64 , F32 , F32 , F32 , F32 , F32 , F32 , F32 , F32 , C64 , C128 },
    /* F64 */ { F64 , F64 , F64 , F64 , F64 , F64 , F64 , F64 , F64 , F64 , C128, C128 },
    /* F16 */ { F32 , F64 , F16 , F32 , F16 , F16 , F16 , F16 , F16 , F16 , C64 , C128 },
    /* BF16*/ { F32 , F64 , F32 , BF16, BF16, BF16, BF16, BF16, BF16, BF16, C64 , C128 },
    /* I64 */ { F32 , F64 , F16 , BF16, I64 , I64 , I64 , I64 , I64 , I64 , C64 , C128 },
    /* I32 */ { F32 , F64 , F16 , BF16, I64 , I32 , I32 , I32 , I32 , I32 , C64 , C128 },
    /* U8  */ { F32 , F64 , F16 , BF16, I64 , I32 , U8  , U8  , I16 , I16 , C64 , C128 },
    /* B   */ { F32 , F64 , F16 , BF16, I64 , I32 , U8  , B   , I8  , I16 , C64 , C128 },
    /* I8  */ { F32 , F64 , F16 , BF16, I64 , I32 , I16 , I8  , I8  , I16 , C64 , C128 },
    /* I16 */ { F32 , F64 , F16 , BF16, I64 , I32 , I16 , I16 , I16 , I16 , C64 , C128 },
    /* C64 */ { C64 , C128, C64 , C64 , C64 , C64 , C64 , C64 , C64 , C64 , C64 , C128 },
    /* C128*/ { C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128 },
  };


  for (int a = 0; a < TS_N_DTYPES; a++)
    for (int b = 0; b < TS_N_DTYPES; b++)
      {
        g_test_message ("promote %s %s", ts_dtype_name (a), ts_dtype_name (b));
        g_assert_cmpint (ts_dtype_promote (a, b), ==, table[a][b]);
      }
}

static void
test_result_type (void)
{
  const TsOperandKind T = TS_OPERAND_TENSOR, Z = TS_OPERAND_ZERO_DIM, S = TS_OPERAND_SCALAR;

  /* int tensor with a Python float: the default dtype */
  g_assert_cmpint (ts_dtype_result_type2 (T, I64, S, F64), ==, F32);
  g_assert_cmpint (ts_dtype_result_type2 (T, I32, S, F64), ==, F32);
  g_assert_cmpint (ts_dtype_result_type2 (T, U8, S, F64), ==, F32);
  /* a Python int keeps the tensor's integer type, even uint8 */
  g_assert_cmpint (ts_dtype_result_type2 (T, U8, S, I64), ==, U8);
  g_assert_cmpint (ts_dtype_result_type2 (T, I32, S, I64), ==, I32);
  /* bool tensors take the scalar's category */
  g_assert_cmpint (ts_dtype_result_type2 (T, B, S, I64), ==, I64);
  g_assert_cmpint (ts_dtype_result_type2 (T, B, S, F64), ==, F32);
  g_assert_cmpint (ts_dtype_result_type2 (T, B, S, B), ==, B);
  g_assert_cmpint (ts_dtype_result_type2 (T, U8, S, B), ==, U8);
  /* float tensors keep their dtype with any Python number */
  g_assert_cmpint (ts_dtype_result_type2 (T, F16, S, F64), ==, F16);
  g_assert_cmpint (ts_dtype_result_type2 (T, BF16, S, I64), ==, BF16);
  g_assert_cmpint (ts_dtype_result_type2 (T, F64, S, F64), ==, F64);
  /* 0-dim tensors: only a higher category counts, with its own dtype */
  g_assert_cmpint (ts_dtype_result_type2 (T, I32, Z, F64), ==, F64);
  g_assert_cmpint (ts_dtype_result_type2 (T, F16, Z, F64), ==, F16);
  g_assert_cmpint (ts_dtype_result_type2 (T, U8, Z, I64), ==, U8);
  g_assert_cmpint (ts_dtype_result_type2 (T, F32, Z, F64), ==, F32);
  /* two dimensioned tensors: plain promotion */
  g_assert_cmpint (ts_dtype_result_type2 (T, F32, T, F64), ==, F64);
  g_assert_cmpint (ts_dtype_result_type2 (T, U8, T, I32), ==, I32);
  /* two 0-dim tensors and scalars alone */
  g_assert_cmpint (ts_dtype_result_type2 (Z, I32, Z, F16), ==, F16);
  g_assert_cmpint (ts_dtype_result_type2 (Z, I32, S, F64), ==, F32);
  g_assert_cmpint (ts_dtype_result_type2 (S, I64, S, F64), ==, F32);
  g_assert_cmpint (ts_dtype_result_type2 (S, I64, S, I64), ==, I64);
  g_assert_cmpint (ts_dtype_result_type2 (Z, F64, S, I64), ==, F64);
  /* int8/int16 (python3-torch 1.13's torch.result_type) */
  g_assert_cmpint (ts_dtype_result_type2 (T, I8, S, I64), ==, I8);
  g_assert_cmpint (ts_dtype_result_type2 (T, I8, S, F64), ==, F32);
  g_assert_cmpint (ts_dtype_result_type2 (T, I8, S, B), ==, I8);
  g_assert_cmpint (ts_dtype_result_type2 (T, I8, Z, I64), ==, I8);
  g_assert_cmpint (ts_dtype_result_type2 (T, I8, Z, F64), ==, F64);
  g_assert_cmpint (ts_dtype_result_type2 (T, U8, Z, I8), ==, U8);
  g_assert_cmpint (ts_dtype_result_type2 (T, I8, T, U8), ==, I16);
  g_assert_cmpint (ts_dtype_result_type2 (T, B, Z, I8), ==, I8);
  g_assert_cmpint (ts_dtype_result_type2 (Z, I8, Z, U8), ==, I16);
  g_assert_cmpint (ts_dtype_result_type2 (T, I16, Z, F16), ==, F16);
  g_assert_cmpint (ts_dtype_result_type2 (Z, I16, S, I64), ==, I16);
  g_assert_cmpint (ts_dtype_result_type2 (T, I16, T, U8), ==, I16);
  /* scalar order does not matter */
  g_assert_cmpint (ts_dtype_result_type2 (S, F64, T, I64), ==, F32);
  /* complex operands, a Python complex counting as the default complex
   * dtype (python3-torch 1.13's torch.result_type) */
  g_assert_cmpint (ts_dtype_result_type2 (T, F32, S, C128), ==, C64);
  g_assert_cmpint (ts_dtype_result_type2 (T, F64, S, C128), ==, C128);
  g_assert_cmpint (ts_dtype_result_type2 (T, I64, S, C128), ==, C64);
  g_assert_cmpint (ts_dtype_result_type2 (T, C64, S, F64), ==, C64);
  g_assert_cmpint (ts_dtype_result_type2 (T, C128, S, C128), ==, C128);
  g_assert_cmpint (ts_dtype_result_type2 (T, F32, Z, C128), ==, C64);
  g_assert_cmpint (ts_dtype_result_type2 (T, F64, Z, C64), ==, C128);
  g_assert_cmpint (ts_dtype_result_type2 (T, I32, Z, C128), ==, C128);
  g_assert_cmpint (ts_dtype_result_type2 (T, C64, Z, F64), ==, C64);
  g_assert_cmpint (ts_dtype_result_type2 (T, C64, T, F64), ==, C128);
  g_assert_cmpint (ts_dtype_result_type2 (Z, C64, S, F64), ==, C64);
  g_assert_cmpint (ts_dtype_result_type2 (Z, F64, S, C128), ==, C128);
  g_assert_cmpint (ts_dtype_result_type2 (S, I64, S, C128), ==, C64);
  g_assert_cmpint (ts_dtype_result_type2 (T, B, S, C128), ==, C64);
  /* complex128 by default once float64 is the default */
  ts_dtype_set_default (TS_DTYPE_FLOAT64);
  g_assert_cmpint (ts_dtype_result_type2 (T, I64, S, C128), ==, C128);
  ts_dtype_set_default (TS_DTYPE_FLOAT32);
}

/* fill_'s checked conversion, cases from python3-torch 1.13:
 * torch.empty(1, dtype=d).fill_(v) raising "value cannot be converted to
 * type int8_t without overflow" or not. */
static void
test_scalar_overflows (void)
{
  static const struct { TsDType dtype; gint64 v; gboolean overflows; } ints[] = {
    { I8, 127, FALSE }, { I8, 128, TRUE }, { I8, -128, FALSE }, { I8, -129, TRUE },
    { I16, 32767, FALSE }, { I16, 32768, TRUE }, { I16, -32769, TRUE },
    { U8, 255, FALSE }, { U8, 256, TRUE }, { U8, -255, FALSE }, { U8, -256, TRUE },
    { I32, G_GINT64_CONSTANT (2147483648), TRUE }, { I32, G_MININT32, FALSE },
    { I64, G_MAXINT64, FALSE }, { F16, 65504, FALSE }, { F16, 65505, TRUE },
    { B, 5, FALSE },
  };
  static const struct { TsDType dtype; double v; gboolean overflows; } floats[] = {
    { I8, 127.9, TRUE }, { I8, -128.9, TRUE }, { I8, 126.5, FALSE }, { I8, NAN, TRUE },
    { U8, -0.5, TRUE }, { U8, 255.9, TRUE }, { I16, INFINITY, TRUE },
    { I32, 2147483647.5, TRUE }, { I64, 1e30, TRUE }, { I64, 0x1p63, FALSE },
    { I64, NAN, TRUE }, { F16, 1e6, TRUE }, { F16, INFINITY, FALSE }, { F16, NAN, FALSE },
    { F32, 1e300, TRUE }, { F32, 3.4028234663852886e38, FALSE }, { F64, 1e308, FALSE },
    { BF16, 3.39e38, TRUE }, { BF16, 3.3895313892515355e38, FALSE }, { B, 1e300, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (ints); i++)
    {
      g_test_message ("int case %u", i);
      g_assert_cmpint (ts_dtype_scalar_overflows (ints[i].dtype, TRUE, ints[i].v, 0.0), ==,
                       ints[i].overflows);
    }
  for (guint i = 0; i < G_N_ELEMENTS (floats); i++)
    {
      g_test_message ("float case %u", i);
      g_assert_cmpint (ts_dtype_scalar_overflows (floats[i].dtype, FALSE, 0, floats[i].v), ==,
                       floats[i].overflows);
    }
  g_assert_cmpstr (ts_dtype_cpp_type_name (I8), ==, "int8_t");
  g_assert_cmpstr (ts_dtype_cpp_type_name (I16), ==, "int16_t");
  g_assert_cmpstr (ts_dtype_cpp_type_name (I32), ==, "int");
  g_assert_cmpstr (ts_dtype_cpp_type_name (F16), ==, "at::Half");
}

static void
test_can_cast (void)
{
  g_assert_false (ts_dtype_can_cast (F32, I64));
  g_assert_false (ts_dtype_can_cast (I64, B));
  g_assert_true (ts_dtype_can_cast (B, I64));
  g_assert_true (ts_dtype_can_cast (I64, F16));
  g_assert_true (ts_dtype_can_cast (F64, F16));
  g_assert_true (ts_dtype_can_cast (B, B));
  g_assert_false (ts_dtype_can_cast (F16, I8));
  g_assert_false (ts_dtype_can_cast (I16, B));
  g_assert_true (ts_dtype_can_cast (I64, I8));
  g_assert_true (ts_dtype_can_cast (I8, U8));
  /* python3-torch 1.13's torch.can_cast with complex dtypes */
  g_assert_false (ts_dtype_can_cast (C64, F32));
  g_assert_true (ts_dtype_can_cast (F64, C64));
  g_assert_true (ts_dtype_can_cast (C128, C64));
  g_assert_true (ts_dtype_can_cast (I64, C64));
  g_assert_false (ts_dtype_can_cast (C64, B));
  g_assert_false (ts_dtype_can_cast (C64, I64));
}

/* complex elements load as their real part and real values store with
 * imaginary part 0, as c10's static_cast between complex and real */
static void
test_complex (void)
{
  float c64[2] = { 1.5f, -2.0f };
  double c128[2] = { 7.0, 7.0 };

  g_assert_true (ts_dtype_is_complex (C64));
  g_assert_false (ts_dtype_is_complex (F64));
  g_assert_false (ts_dtype_is_floating (C128));
  g_assert_false (ts_dtype_is_integral (C64, TRUE));
  g_assert_cmpint (ts_dtype_to_real (C128), ==, F64);
  g_assert_cmpint (ts_dtype_to_complex (F32), ==, C64);
  g_assert_cmpint (ts_dtype_to_complex (I64), ==, C64);
  g_assert_cmpfloat (ts_dtype_load (C64, c64), ==, 1.5);
  ts_dtype_store (C128, c128, -3.25);
  g_assert_cmpfloat (c128[0], ==, -3.25);
  g_assert_cmpfloat (c128[1], ==, 0.0);
  ts_dtype_store_int (C64, c64, 3);
  g_assert_cmpfloat (c64[0], ==, 3.0f);
  g_assert_cmpfloat (c64[1], ==, 0.0f);
  g_assert_false (ts_dtype_scalar_overflows (C64, FALSE, 0, INFINITY));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/dtype/names", test_names);
  g_test_add_func ("/dtype/sizes", test_sizes);
  g_test_add_func ("/dtype/half", test_half);
  g_test_add_func ("/dtype/bfloat16", test_bfloat16);
  g_test_add_func ("/dtype/load-store", test_load_store);
  g_test_add_func ("/dtype/int8-int16", test_int8_int16);
  g_test_add_func ("/dtype/promote-types", test_promote_types);
  g_test_add_func ("/dtype/result-type", test_result_type);
  g_test_add_func ("/dtype/scalar-overflows", test_scalar_overflows);
  g_test_add_func ("/dtype/can-cast", test_can_cast);
  g_test_add_func ("/dtype/complex", test_complex);
  return g_test_run ();
}
