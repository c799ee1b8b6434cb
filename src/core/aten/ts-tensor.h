/* ts-tensor.h: refcounted strided views over a storage
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A tensor is a dtype, a shape, strides in elements and an offset into a
 * storage. Tensors are hot data (a Python loop creates millions), so they
 * are a small refcounted struct, not a GObject.
 */

#pragma once

#include <string.h>

#include "ts-dtype.h"
#include "ts-storage.h"

G_BEGIN_DECLS

#define TS_MAX_DIMS 16

#define TS_TENSOR_ERROR (ts_tensor_error_quark ())

/* Each code says which Python exception the message belongs to. */
typedef enum
{
  TS_TENSOR_ERROR_RUNTIME,        /* RuntimeError */
  TS_TENSOR_ERROR_INDEX,          /* IndexError */
  TS_TENSOR_ERROR_VALUE,          /* ValueError */
  TS_TENSOR_ERROR_TYPE,           /* TypeError */
  TS_TENSOR_ERROR_OUT_OF_MEMORY,  /* torch.cuda.OutOfMemoryError */
  TS_TENSOR_ERROR_NOT_IMPLEMENTED,
} TsTensorError;

GQuark ts_tensor_error_quark (void);

typedef struct _TsTensor TsTensor;

struct _TsTensor
{
  TsStorage *storage;
  TsDType    dtype;
  guint      ndim;
  gint64     offset;                /* in elements */
  gint64     shape[TS_MAX_DIMS];
  gint64     strides[TS_MAX_DIMS];  /* in elements */
  struct _TsAutogradMeta *autograd_meta;  /* NULL: no autograd state (ts-autograd.h) */
};

/* A new contiguous tensor with fresh (uninitialized) memory. */
TsTensor  *ts_tensor_new_empty      (TsDevice       device,
                                     TsDType        dtype,
                                     guint          ndim,
                                     const gint64  *shape,
                                     gboolean       pinned,
                                     GError       **error);
/* A new tensor of @shape with @strides, which must be dense in some order
 * of the dims (a layout from ts_tensor_output_strides or a dense tensor's
 * own): its storage holds exactly its elements. NULL @strides: contiguous. */
TsTensor  *ts_tensor_new_empty_strided (TsDevice       device,
                                        TsDType        dtype,
                                        guint          ndim,
                                        const gint64  *shape,
                                        const gint64  *strides,
                                        GError       **error);
/* The strides TensorIterator gives a new output of @shape computed from
 * @inputs (NULL entries skipped; @wrapped_scalar: a Python number is one
 * more, 0-dim, input). Fills @strides and returns TRUE when the output is
 * not contiguous. */
gboolean   ts_tensor_output_strides    (guint            ndim,
                                        const gint64    *shape,
                                        TsTensor *const *inputs,
                                        guint            n_inputs,
                                        gboolean         wrapped_scalar,
                                        gint64          *strides);
/* A new output for an elementwise op over @inputs, laid out as
 * ts_tensor_output_strides says. */
TsTensor  *ts_tensor_new_output        (TsDevice          device,
                                        TsDType           dtype,
                                        guint             ndim,
                                        const gint64     *shape,
                                        TsTensor *const  *inputs,
                                        guint             n_inputs,
                                        gboolean          wrapped_scalar,
                                        GError          **error);
/* c10's suggest_memory_format: whether @self's strides are like
 * channels-last's (4-D) or channels-last-3d's (5-D) */
gboolean   ts_tensor_suggests_channels_last (const TsTensor *self);
/* A new tensor of @shape (4-D or 5-D) with channels-last strides */
TsTensor  *ts_tensor_new_channels_last (TsDevice       device,
                                        TsDType        dtype,
                                        guint          ndim,
                                        const gint64  *shape,
                                        GError       **error);
/* empty_like (memory_format=preserve_format) of @self, as _to_copy and
 * clone lay out their copy: @self's strides when it is non-overlapping
 * and dense, else channels-last when its strides suggest it, else
 * contiguous. */
TsTensor  *ts_tensor_new_preserving    (TsDevice          device,
                                        TsDType           dtype,
                                        const TsTensor   *self,
                                        GError          **error);
/* A view of storage; takes its own reference. */
TsTensor  *ts_tensor_new_view       (TsStorage     *storage,
                                     TsDType        dtype,
                                     guint          ndim,
                                     const gint64  *shape,
                                     const gint64  *strides,
                                     gint64         offset);
TsTensor  *ts_tensor_ref            (TsTensor      *self);
void       ts_tensor_unref          (TsTensor      *self);

static inline TsDevice
ts_tensor_get_device (const TsTensor *self)
{
  return self->storage->device;
}

static inline gboolean
ts_tensor_is_cuda (const TsTensor *self)
{
  return self->storage->device.type == TS_DEVICE_CUDA;
}

/* Copies @n dims (shape or strides). Inline, at fixed sizes for the
 * usual ranks: a memcpy of a variable length is a libc call, and a small
 * op made about twenty of them. */
static inline void
ts_dims_copy (gint64       *dst,
              const gint64 *src,
              guint         n)
{
  switch (n)
    {
    case 0: return;
    case 1: memcpy (dst, src, 1 * sizeof (gint64)); return;
    case 2: memcpy (dst, src, 2 * sizeof (gint64)); return;
    case 3: memcpy (dst, src, 3 * sizeof (gint64)); return;
    case 4: memcpy (dst, src, 4 * sizeof (gint64)); return;
    default: memcpy (dst, src, n * sizeof (gint64)); return;
    }
}

/* Whether @n dims (shapes or strides) are equal: inline, as ts_dims_copy,
 * where memcmp would be a libc call per operand and op. */
static inline gboolean
ts_dims_equal (const gint64 *a,
               const gint64 *b,
               guint         n)
{
  for (guint i = 0; i < n; i++)
    if (a[i] != b[i])
      return FALSE;
  return TRUE;
}

/* Inline: a launch asks it of each operand several times. */
static inline gint64
ts_tensor_numel (const TsTensor *self)
{
  gint64 n = 1;

  for (guint i = 0; i < self->ndim; i++)
    n *= self->shape[i];
  return n;
}
/* PyTorch's is_contiguous: size-1 dims may have any stride. Inline: every
 * launch asks it of its operands. */
static inline gboolean
ts_tensor_is_contiguous (const TsTensor *self)
{
  gint64 expected = 1;

  for (int i = (int) self->ndim - 1; i >= 0; i--)
    {
      if (self->shape[i] == 1)
        continue;
      if (self->shape[i] == 0)
        return TRUE;
      if (self->strides[i] != expected)
        return FALSE;
      expected *= self->shape[i];
    }
  return TRUE;
}
gboolean   ts_tensor_is_non_overlapping_and_dense (const TsTensor *self);
gsize      ts_tensor_nbytes         (const TsTensor *self);
/* Address of the first element: host pointer into the storage's bytes. */
guint8    *ts_tensor_data           (const TsTensor *self);
guint64    ts_tensor_data_ptr       (const TsTensor *self);

/* Views. Errors carry PyTorch's messages. */
TsTensor  *ts_tensor_view           (TsTensor      *self,
                                     guint          ndim,
                                     const gint64  *shape,
                                     GError       **error);
TsTensor  *ts_tensor_transpose      (TsTensor      *self,
                                     int            dim0,
                                     int            dim1,
                                     GError       **error);
TsTensor  *ts_tensor_select         (TsTensor      *self,
                                     int            dim,
                                     gint64         index,
                                     GError       **error);
TsTensor  *ts_tensor_slice          (TsTensor      *self,
                                     int            dim,
                                     gint64         start,
                                     gint64         stop,
                                     gint64         step,
                                     GError       **error);
TsTensor  *ts_tensor_unsqueeze      (TsTensor      *self,
                                     int            dim,
                                     GError       **error);
TsTensor  *ts_tensor_expand         (TsTensor      *self,
                                     guint          ndim,
                                     const gint64  *shape,
                                     GError       **error);

/* Wraps a negative dim; FALSE with PyTorch's IndexError text otherwise. */
gboolean   ts_tensor_wrap_dim       (int            ndim,
                                     int           *dim,
                                     GError       **error);
/* A shape as PyTorch's messages print it: "[2, 3]". */
char      *ts_shape_to_string       (guint          ndim,
                                     const gint64  *shape);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsTensor, ts_tensor_unref)

G_END_DECLS
