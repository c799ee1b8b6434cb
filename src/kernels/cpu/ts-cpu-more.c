/* ts-cpu-more.c: CPU kernels of the ops of issue #14
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-cpu-kernels.h"

/* where: a copy of the chosen element, bit for bit (-0.0 and NaN
 * payloads included), as ATen's where_kernel does. */
gboolean
ts_cpu_where (const TsView  *out,
              const TsView  *cond,
              const TsView  *self,
              const TsView  *other,
              GError       **error)
{
  gsize elem = ts_dtype_size (out->dtype);
  gint64 n = ts_view_numel (out);

  if (cond->dtype != TS_DTYPE_BOOL || self->dtype != out->dtype || other->dtype != out->dtype ||
      ts_view_numel (cond) != n || ts_view_numel (self) != n || ts_view_numel (other) != n)
    {
      g_set_error_literal (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_SHAPE,
                           "where(): the condition or operands do not match the output");
      return FALSE;
    }
  for (gint64 e = 0; e < n; e++)
    {
      const TsView *pick = *(const guint8 *) ts_view_linear_ptr (cond, e) ? self : other;

      memcpy (ts_view_linear_ptr (out, e), ts_view_linear_ptr (pick, e), elem);
    }
  return TRUE;
}
