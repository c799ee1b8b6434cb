/* ts-cpu-convert.h: runs of elements to and from float32 (internal to the CPU kernels)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * float16 and bfloat16 compute in float32 (PyTorch's opmath type), so their
 * hot loops convert a run of elements into a small float32 buffer, run the
 * float32 code on it and convert the results back, rather than switching
 * on the dtype for every element. Strides are in bytes, as TsIter's.
 */

#pragma once

#include <glib.h>

#include "ts-dtype.h"

G_BEGIN_DECLS

/* The length of the stack buffers the kernels convert through. */
#define TS_CPU_RUN 256

/* dst[i] = the element at src + i * stride as a float (float64 and int64
 * values rounded to float as a static_cast does). */
void ts_cpu_load_f32    (TsDType      dtype,
                         const char  *src,
                         gint64       stride,
                         float       *dst,
                         gint64       n);
/* The element at dst + i * stride = src[i], rounded to nearest even for
 * float16/bfloat16, converted as ts_dtype_store otherwise. */
void ts_cpu_store_f32   (TsDType      dtype,
                         const float *src,
                         char        *dst,
                         gint64       stride,
                         gint64       n);
/* Rounds each value to @dtype and back (float16/bfloat16; a no-op for
 * float32): an operand of another dtype cast to the compute dtype. */
void ts_cpu_round_f32   (TsDType      dtype,
                         float       *values,
                         gint64       n);
/* Whether @dtype is float16 or bfloat16. */
gboolean ts_cpu_dtype_is_half (TsDType dtype);

G_END_DECLS
