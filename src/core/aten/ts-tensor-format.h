/* ts-tensor-format.h: PyTorch's repr of a tensor
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reproduces torch/_tensor_str.py (PyTorch 1.13) with its print options
 * (by default precision 4, threshold 1000 elements (summarised to 3 edge items
 * per dim with "..."), line width 80). Floats pick fixed, integer ("1.") or
 * scientific notation from the non-zero finite values as PyTorch does;
 * columns are right-aligned to the widest value; float16/bfloat16 print
 * through float32; suffixes follow the data: device='cuda:0', the dtype
 * when it is not one the values imply (float32, int64 and bool have none),
 * size=(...) for empty tensors that are not 1-D, requires_grad=True.
 */

#pragma once

#include <glib.h>

#include "ts-dtype.h"

G_BEGIN_DECLS

typedef struct
{
  /* Printed as device='...' when not NULL (PyTorch prints it for every
   * device other than the CPU). */
  const char *device;
  gboolean    requires_grad;
  /* Printed as grad_fn=<...> when not NULL (a tensor with a history) */
  const char *grad_fn;
} TsTensorFormatOptions;

/* torch.set_printoptions's settings (profile "default": 4, 1000, 3, 80,
 * -1): digits after the point, the element count above which a tensor is
 * summarised (G_MAXINT64: never), the items kept at each end of a
 * summarised dim, the line width, and the notation: -1 as the values
 * suggest, 0 fixed, 1 scientific. */
typedef struct
{
  int    precision;
  gint64 threshold;
  int    edgeitems;
  int    linewidth;
  int    sci_mode;
} TsPrintOptions;

void  ts_tensor_format_get_print_options (TsPrintOptions       *options);
void  ts_tensor_format_set_print_options (const TsPrintOptions *options);

/* @data points at element (0, ..., 0) (the storage offset already
 * applied); @strides are in elements, NULL for contiguous. Returns the
 * string repr() gives, e.g. "tensor([1., 2.], device='cuda:0')". */
char *ts_tensor_format (TsDType                      dtype,
                        guint                        ndim,
                        const gint64                *shape,
                        const gint64                *strides,
                        gconstpointer                data,
                        const TsTensorFormatOptions *options);

G_END_DECLS
