/* ts-tensor.c: refcounted strided views over a storage
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-tensor.h"
#include "ts-autograd.h"
#include "ts-box-private.h"
#include "ts-cpu-kernels.h"

static TsBoxCache tensor_boxes = { .size = sizeof (TsTensor) };

G_DEFINE_QUARK (ts-tensor-error-quark, ts_tensor_error)

static void
contiguous_strides (guint         ndim,
                    const gint64 *shape,
                    gint64       *strides)
{
  gint64 s = 1;

  for (int i = (int) ndim - 1; i >= 0; i--)
    {
      strides[i] = s;
      /* wraps as c10's does, not undefined: an empty tensor's sizes may
       * multiply past int64 ([0, 2^62, 2^62] has strides (0, 2^62, 1)) */
      s = (gint64) ((guint64) s * (guint64) MAX (shape[i], 1));
    }
}

static gint64
shape_numel (guint         ndim,
             const gint64 *shape)
{
  gint64 n = 1;

  for (guint i = 0; i < ndim; i++)
    n *= shape[i];
  return n;
}

/* A tensor that takes the caller's reference to storage (a new tensor's
 * storage needs no ref and unref, two atomic operations per op). */
static TsTensor *
tensor_new_taking (TsStorage    *storage,
                   TsDType       dtype,
                   guint         ndim,
                   const gint64 *shape,
                   const gint64 *strides,
                   gint64        offset)
{
  TsTensor *self;

  /* unused dims stay 0 */
  self = ts_box_alloc (&tensor_boxes);
  memset (self, 0, sizeof *self);
  self->storage = storage;
  self->dtype = dtype;
  self->ndim = ndim;
  self->offset = offset;
  if (ndim > 0)
    {
      ts_dims_copy (self->shape, shape, ndim);
      if (strides != NULL)
        ts_dims_copy (self->strides, strides, ndim);
      else
        contiguous_strides (ndim, shape, self->strides);
    }
  return self;
}

TsTensor *
ts_tensor_new_view (TsStorage    *storage,
                    TsDType       dtype,
                    guint         ndim,
                    const gint64 *shape,
                    const gint64 *strides,
                    gint64        offset)
{
  g_return_val_if_fail (storage != NULL, NULL);
  g_return_val_if_fail (ndim <= TS_MAX_DIMS, NULL);

  return tensor_new_taking (ts_storage_ref (storage), dtype, ndim, shape, strides, offset);
}

TsTensor *
ts_tensor_new_empty (TsDevice       device,
                     TsDType        dtype,
                     guint          ndim,
                     const gint64  *shape,
                     gboolean       pinned,
                     GError       **error)
{
  g_autoptr(TsStorage) storage = NULL;
  gint64 numel;

  g_return_val_if_fail (ts_dtype_is_valid (dtype), NULL);

  if (ndim > TS_MAX_DIMS)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "Tensors of more than %d dimensions are not supported", TS_MAX_DIMS);
      return NULL;
    }
  for (guint i = 0; i < ndim; i++)
    if (shape[i] < 0)
      {
        g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                     "Trying to create tensor with negative dimension %" G_GINT64_FORMAT
                     ": [", shape[i]);
        for (guint j = 0; j < ndim; j++)
          {
            char *m = g_strdup_printf ("%s%s%" G_GINT64_FORMAT, (*error)->message,
                                       j ? ", " : "", shape[j]);
            g_free ((*error)->message);
            (*error)->message = m;
          }
        {
          char *m = g_strconcat ((*error)->message, "]", NULL);
          g_free ((*error)->message);
          (*error)->message = m;
        }
        return NULL;
      }

  /* c10's computeStorageNbytesContiguous: only a byte count that overflows
   * uint64 or passes INT64_MAX is refused here; a merely huge one goes on
   * to the allocator, which says how much it could not get. */
  {
    guint64 nbytes = 1;
    gboolean overflowed = FALSE;

    for (guint i = 0; i < ndim; i++)
      overflowed |= __builtin_mul_overflow (nbytes, (guint64) shape[i], &nbytes);
    overflowed |= __builtin_mul_overflow (nbytes, (guint64) ts_dtype_size (dtype), &nbytes);
    if (overflowed || nbytes > G_MAXINT64)
      {
        g_autofree char *sizes = ts_shape_to_string (ndim, shape);

        g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                     "Storage size calculation overflowed with sizes=%s", sizes);
        return NULL;
      }
  }
  numel = shape_numel (ndim, shape);

  if (device.type == TS_DEVICE_CUDA)
    storage = ts_storage_new_cuda (device.index, numel * ts_dtype_size (dtype), error);
  else
    storage = ts_storage_new_cpu (numel * ts_dtype_size (dtype), pinned, error);
  if (storage == NULL)
    return NULL;

  return tensor_new_taking (g_steal_pointer (&storage), dtype, ndim, shape, NULL, 0);
}

TsTensor *
ts_tensor_ref (TsTensor *self)
{
  return ts_box_acquire (self);
}

static void
tensor_clear (gpointer data)
{
  TsTensor *self = data;

  if (self->autograd_meta != NULL)
    ts_autograd_meta_free (self->autograd_meta);
  ts_storage_unref (self->storage);
}

void
ts_tensor_unref (TsTensor *self)
{
  ts_box_release (&tensor_boxes, self, tensor_clear);
}

/* c10's compute_non_overlapping_and_dense: the elements fill one block
 * of memory, once each, in some order of the dims */
gboolean
ts_tensor_is_non_overlapping_and_dense (const TsTensor *self)
{
  guint order[TS_MAX_DIMS];
  gint64 expected = 1;

  if (self->ndim == 1)
    return self->shape[0] < 2 || self->strides[0] == 1;
  for (guint d = 0; d < self->ndim; d++)
    order[d] = d;
  /* by stride, smallest first, size-0 and size-1 dims last (a handful of
   * dims: insertion sort) */
  for (guint i = 1; i < self->ndim; i++)
    for (guint j = i; j > 0; j--)
      {
        guint a = order[j - 1], b = order[j];

        if (self->shape[b] < 2 || (self->shape[a] >= 2 && self->strides[a] <= self->strides[b]))
          break;
        order[j - 1] = b;
        order[j] = a;
      }
  for (guint i = 0; i < self->ndim; i++)
    {
      gint64 size = self->shape[order[i]];

      if (size < 2)
        return TRUE;
      if (self->strides[order[i]] != expected)
        return FALSE;
      expected *= size;
    }
  return TRUE;
}

/* The channels-last dim orders, fastest first: NHWC for 4-D, NDHWC for 5-D */
static const guint *
channels_last_order (guint ndim)
{
  static const guint order4[] = { 1, 3, 2, 0 }, order5[] = { 1, 4, 3, 2, 0 };

  return ndim == 4 ? order4 : ndim == 5 ? order5 : NULL;
}

/* c10's get_channels_last_strides_2d/3d */
static void
channels_last_strides (guint         ndim,
                       const gint64 *shape,
                       gint64       *strides)
{
  const guint *order = channels_last_order (ndim);
  gint64 step = 1;

  for (guint i = 0; i < ndim; i++)
    {
      strides[order[i]] = step;
      step *= shape[order[i]];
    }
}

/* is_contiguous (memory_format=torch.channels_last): 4-D only, as c10's
 * is_channels_last_contiguous_ flag that TensorIterator's fast setup reads */
static gboolean
is_channels_last_contiguous (const TsTensor *t)
{
  static const guint order[] = { 1, 3, 2, 0 };
  gint64 expected = 1;

  if (t->ndim != 4)
    return FALSE;
  for (guint i = 0; i < 4; i++)
    {
      gint64 size = t->shape[order[i]];

      if (size == 1)
        continue;
      if (t->strides[order[i]] != expected)
        return FALSE;
      expected *= size;
    }
  return TRUE;
}

/* c10's is_channels_last_strides_2d/3d, which suggest_memory_format asks:
 * whether the strides order the dims as channels-last does; ambiguous
 * layouts (an N111 tensor) are contiguous. */
static gboolean
strides_like_channels_last (const TsTensor *t)
{
  const guint *order = channels_last_order (t->ndim);
  gint64 low = 0;

  if (order == NULL || t->strides[1] == 0)
    return FALSE;
  for (guint i = 0; i < t->ndim; i++)
    {
      guint d = order[i];

      if (t->shape[d] == 0 || t->strides[d] < low || (d == 0 && low == t->strides[1]))
        return FALSE;
      low = t->strides[d] * (t->shape[d] > 1 ? t->shape[d] : 1);
    }
  return TRUE;
}

/* TensorIterator's compute_fast_setup_type: every input of the output's
 * shape and one layout. Returns 0 (none), 1 (contiguous), 2
 * (channels-last) or 3 (the inputs' common dense strides). */
static int
fast_setup_layout (guint            ndim,
                   const gint64    *shape,
                   TsTensor *const *inputs,
                   guint            n_inputs,
                   const TsTensor **dense)
{
  gboolean contiguous = TRUE, channels_last = TRUE, same_dense = TRUE;

  *dense = NULL;
  for (guint k = 0; k < n_inputs; k++)
    {
      const TsTensor *t = inputs[k];

      if (t == NULL)
        continue;
      if (t->ndim != ndim || !ts_dims_equal (t->shape, shape, ndim))
        return 0;
      contiguous = contiguous && ts_tensor_is_contiguous (t);
    }
  /* the usual op: asked first, and alone */
  if (contiguous)
    return 1;
  for (guint k = 0; k < n_inputs; k++)
    {
      const TsTensor *t = inputs[k];

      if (t == NULL)
        continue;
      channels_last = channels_last && is_channels_last_contiguous (t);
      if (same_dense && *dense != NULL)
        same_dense = ts_dims_equal (t->strides, (*dense)->strides, ndim);
      same_dense = same_dense && ts_tensor_is_non_overlapping_and_dense (t);
      /* the strides of the last input, as ATen copies them */
      *dense = t;
    }
  if (channels_last)
    return 2;
  return same_dense && *dense != NULL ? 3 : 0;
}

/* TensorIterator's compute_strides, reorder_dimensions and
 * compatible_stride: the dims sorted by the inputs' strides (broadcast
 * dims stride 0 and say nothing), the output dense in that order. */
static gboolean
reordered_strides (guint            ndim,
                   const gint64    *shape,
                   TsTensor *const *inputs,
                   guint            n_inputs,
                   gint64          *out)
{
  gint64 strides[8][TS_MAX_DIMS];   /* the first eight inputs: ops take at most four */
  guint perm[TS_MAX_DIMS], n = 0;
  gint64 step = 1;
  gboolean inverted = TRUE;

  for (guint k = 0; k < n_inputs && n < G_N_ELEMENTS (strides); k++)
    {
      const TsTensor *t = inputs[k];
      guint offset;

      if (t == NULL || t->ndim > ndim)
        continue;
      offset = ndim - t->ndim;
      for (guint d = 0; d < ndim; d++)
        strides[n][d] = d < offset || (t->shape[d - offset] == 1 && shape[d] != 1) ? 0 : t->strides[d - offset];
      n++;
    }
  ts_iter_order (ndim, shape, (const gint64 (*)[TS_MAX_DIMS]) strides, n, FALSE, perm);
  for (guint i = 0; i < ndim; i++)
    inverted = inverted && perm[i] == ndim - 1 - i;
  if (inverted)
    return FALSE;
  for (guint i = 0; i < ndim; i++)
    {
      out[perm[i]] = step;
      step *= shape[perm[i]];
    }
  return TRUE;
}

gboolean
ts_tensor_output_strides (guint            ndim,
                          const gint64    *shape,
                          TsTensor *const *inputs,
                          guint            n_inputs,
                          gboolean         wrapped_scalar,
                          gint64          *strides)
{
  const TsTensor *dense;

  if (ndim < 2)
    return FALSE;
  /* a Python number is a 0-dim input to ATen: no input has every dim then
   * (unless the output has none) */
  switch (wrapped_scalar ? 0 : fast_setup_layout (ndim, shape, inputs, n_inputs, &dense))
    {
    case 1:
      return FALSE;
    case 2:
      channels_last_strides (ndim, shape, strides);
      return TRUE;
    case 3:
      ts_dims_copy (strides, dense->strides, ndim);
      return TRUE;
    default:
      return reordered_strides (ndim, shape, inputs, n_inputs, strides);
    }
}

TsTensor *
ts_tensor_new_empty_strided (TsDevice       device,
                             TsDType        dtype,
                             guint          ndim,
                             const gint64  *shape,
                             const gint64  *strides,
                             GError       **error)
{
  TsTensor *t = ts_tensor_new_empty (device, dtype, ndim, shape, FALSE, error);

  if (t != NULL && strides != NULL)
    ts_dims_copy (t->strides, strides, ndim);
  return t;
}

TsTensor *
ts_tensor_new_output (TsDevice          device,
                      TsDType           dtype,
                      guint             ndim,
                      const gint64     *shape,
                      TsTensor *const  *inputs,
                      guint             n_inputs,
                      gboolean          wrapped_scalar,
                      GError          **error)
{
  gint64 strides[TS_MAX_DIMS];

  if (!ts_tensor_output_strides (ndim, shape, inputs, n_inputs, wrapped_scalar, strides))
    return ts_tensor_new_empty (device, dtype, ndim, shape, FALSE, error);
  return ts_tensor_new_empty_strided (device, dtype, ndim, shape, strides, error);
}

gboolean
ts_tensor_suggests_channels_last (const TsTensor *self)
{
  return strides_like_channels_last (self);
}

TsTensor *
ts_tensor_new_channels_last (TsDevice       device,
                             TsDType        dtype,
                             guint          ndim,
                             const gint64  *shape,
                             GError       **error)
{
  gint64 strides[TS_MAX_DIMS];

  g_return_val_if_fail (ndim == 4 || ndim == 5, NULL);

  channels_last_strides (ndim, shape, strides);
  return ts_tensor_new_empty_strided (device, dtype, ndim, shape, strides, error);
}

TsTensor *
ts_tensor_new_preserving (TsDevice          device,
                          TsDType           dtype,
                          const TsTensor   *self,
                          GError          **error)
{
  gint64 strides[TS_MAX_DIMS];
  const gint64 *layout = NULL;

  if (ts_tensor_is_contiguous (self))
    layout = NULL;
  else if (ts_tensor_is_non_overlapping_and_dense (self))
    layout = self->strides;
  else if (strides_like_channels_last (self))
    {
      channels_last_strides (self->ndim, self->shape, strides);
      layout = strides;
    }
  return ts_tensor_new_empty_strided (device, dtype, self->ndim, self->shape, layout, error);
}

gsize
ts_tensor_nbytes (const TsTensor *self)
{
  return ts_tensor_numel (self) * ts_dtype_size (self->dtype);
}

guint8 *
ts_tensor_data (const TsTensor *self)
{
  if (self->storage->data == NULL)
    return NULL;
  return self->storage->data + self->offset * ts_dtype_size (self->dtype);
}

guint64
ts_tensor_data_ptr (const TsTensor *self)
{
  if (self->storage->addr == 0)
    return 0;
  return self->storage->addr + self->offset * ts_dtype_size (self->dtype);
}

gboolean
ts_tensor_wrap_dim (int      ndim,
                    int     *dim,
                    GError **error)
{
  int lo = ndim > 0 ? -ndim : -1;
  int hi = ndim > 0 ? ndim - 1 : 0;

  if (*dim < lo || *dim > hi)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_INDEX,
                   "Dimension out of range (expected to be in range of [%d, %d], but got %d)",
                   lo, hi, *dim);
      return FALSE;
    }
  if (*dim < 0)
    *dim += MAX (ndim, 1);
  return TRUE;
}

char *
ts_shape_to_string (guint         ndim,
                    const gint64 *shape)
{
  GString *s = g_string_new ("[");

  for (guint i = 0; i < ndim; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "", shape[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* ATen's computeStride: the strides that let a tensor of old_shape and
 * old_strides be seen as new_shape without copying, or FALSE when some
 * new dimension would span two chunks that are not contiguous with each
 * other. The old dims are walked from the innermost in chunks of dims that
 * are contiguous with each other; each chunk must hold whole new dims. */
static gboolean
compute_view_strides (guint         old_ndim,
                      const gint64 *old_shape,
                      const gint64 *old_strides,
                      gint64        numel,
                      guint         new_ndim,
                      const gint64 *new_shape,
                      gint64       *new_strides)
{
  gint64 view_numel = 1, tensor_numel = 1, chunk_base_stride;
  int view_d = (int) new_ndim - 1;

  if (numel == 0 || old_ndim == 0)
    {
      /* Nothing to keep apart: an empty or 0-d tensor views as any shape
       * (PyTorch keeps equal shapes' strides). */
      gboolean same = old_ndim == new_ndim && memcmp (old_shape, new_shape, new_ndim * sizeof (gint64)) == 0;
      gint64 st = 1;

      for (int d = (int) new_ndim - 1; d >= 0; d--)
        {
          new_strides[d] = same ? old_strides[d] : st;
          st *= MAX (new_shape[d], 1);
        }
      return TRUE;
    }
  chunk_base_stride = old_strides[old_ndim - 1];
  for (int tensor_d = (int) old_ndim - 1; tensor_d >= 0; tensor_d--)
    {
      tensor_numel *= old_shape[tensor_d];
      if (tensor_d == 0 ||
          (old_shape[tensor_d - 1] != 1 && old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride))
        {
          while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1))
            {
              new_strides[view_d] = view_numel * chunk_base_stride;
              view_numel *= new_shape[view_d];
              view_d--;
            }
          if (view_numel != tensor_numel)
            return FALSE;
          if (tensor_d > 0)
            {
              chunk_base_stride = old_strides[tensor_d - 1];
              tensor_numel = 1;
              view_numel = 1;
            }
        }
    }
  return view_d == -1;
}

TsTensor *
ts_tensor_view (TsTensor      *self,
                guint          ndim,
                const gint64  *shape_in,
                GError       **error)
{
  gint64 shape[TS_MAX_DIMS], strides[TS_MAX_DIMS];
  gint64 numel = ts_tensor_numel (self);
  gint64 known = 1;
  int infer = -1;

  if (ndim > TS_MAX_DIMS)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME, "too many dimensions");
      return NULL;
    }
  ts_dims_copy (shape, shape_in, ndim);
  for (guint i = 0; i < ndim; i++)
    {
      if (shape[i] == -1)
        {
          if (infer >= 0)
            {
              g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                                   "only one dimension can be inferred");
              return NULL;
            }
          infer = i;
        }
      else if (shape[i] < 0)
        {
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "invalid shape dimension %" G_GINT64_FORMAT, shape[i]);
          return NULL;
        }
      else
        known *= shape[i];
    }
  if (infer >= 0 && known != 0 && numel % known == 0)
    shape[infer] = numel / known;
  if ((infer >= 0 && (known == 0 || numel % known != 0)) || shape_numel (ndim, shape) != numel)
    {
      g_autofree char *s = ts_shape_to_string (ndim, shape_in);
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "shape '%s' is invalid for input of size %" G_GINT64_FORMAT, s, numel);
      return NULL;
    }
  if (!compute_view_strides (self->ndim, self->shape, self->strides, numel, ndim, shape, strides))
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "view size is not compatible with input tensor's size and stride "
                           "(at least one dimension spans across two contiguous subspaces). "
                           "Use .reshape(...) instead.");
      return NULL;
    }
  return ts_tensor_new_view (self->storage, self->dtype, ndim, shape, strides, self->offset);
}

TsTensor *
ts_tensor_transpose (TsTensor  *self,
                     int        dim0,
                     int        dim1,
                     GError   **error)
{
  TsTensor *out;
  gint64 t;

  if (!ts_tensor_wrap_dim (self->ndim, &dim0, error) ||
      !ts_tensor_wrap_dim (self->ndim, &dim1, error))
    return NULL;
  out = ts_tensor_new_view (self->storage, self->dtype, self->ndim, self->shape,
                            self->strides, self->offset);
  if (self->ndim == 0)
    return out;
  t = out->shape[dim0]; out->shape[dim0] = out->shape[dim1]; out->shape[dim1] = t;
  t = out->strides[dim0]; out->strides[dim0] = out->strides[dim1]; out->strides[dim1] = t;
  return out;
}

TsTensor *
ts_tensor_select (TsTensor  *self,
                  int        dim,
                  gint64     index,
                  GError   **error)
{
  gint64 shape[TS_MAX_DIMS], strides[TS_MAX_DIMS];
  gint64 size;
  guint j = 0;

  if (self->ndim == 0)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_INDEX,
                           "invalid index of a 0-dim tensor. Use `tensor.item()` in Python "
                           "or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
      return NULL;
    }
  if (!ts_tensor_wrap_dim (self->ndim, &dim, error))
    return NULL;
  size = self->shape[dim];
  if (index < -size || index >= size)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_INDEX,
                   "index %" G_GINT64_FORMAT " is out of bounds for dimension %d with size %"
                   G_GINT64_FORMAT, index, dim, size);
      return NULL;
    }
  if (index < 0)
    index += size;
  for (guint i = 0; i < self->ndim; i++)
    if ((int) i != dim)
      {
        shape[j] = self->shape[i];
        strides[j] = self->strides[i];
        j++;
      }
  return ts_tensor_new_view (self->storage, self->dtype, self->ndim - 1, shape, strides,
                             self->offset + index * self->strides[dim]);
}

TsTensor *
ts_tensor_slice (TsTensor  *self,
                 int        dim,
                 gint64     start,
                 gint64     stop,
                 gint64     step,
                 GError   **error)
{
  TsTensor *out;
  gint64 size;

  if (!ts_tensor_wrap_dim (self->ndim, &dim, error))
    return NULL;
  if (step <= 0)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_VALUE,
                           "step must be greater than zero");
      return NULL;
    }
  size = self->shape[dim];
  if (start < 0)
    start += size;
  if (stop < 0)
    stop += size;
  start = CLAMP (start, 0, size);
  stop = CLAMP (stop, start, size);

  out = ts_tensor_new_view (self->storage, self->dtype, self->ndim, self->shape,
                            self->strides, self->offset + start * self->strides[dim]);
  out->shape[dim] = (stop - start + step - 1) / step;
  out->strides[dim] = self->strides[dim] * step;
  return out;
}

TsTensor *
ts_tensor_unsqueeze (TsTensor  *self,
                     int        dim,
                     GError   **error)
{
  gint64 shape[TS_MAX_DIMS], strides[TS_MAX_DIMS];
  guint j = 0;

  if (!ts_tensor_wrap_dim (self->ndim + 1, &dim, error))
    return NULL;
  for (guint i = 0; i <= self->ndim; i++)
    {
      if ((int) i == dim)
        {
          shape[i] = 1;
          strides[i] = (j < self->ndim) ? self->strides[j] * self->shape[j] : 1;
        }
      else
        {
          shape[i] = self->shape[j];
          strides[i] = self->strides[j];
          j++;
        }
    }
  return ts_tensor_new_view (self->storage, self->dtype, self->ndim + 1, shape, strides,
                             self->offset);
}

TsTensor *
ts_tensor_expand (TsTensor      *self,
                  guint          ndim,
                  const gint64  *shape,
                  GError       **error)
{
  gint64 out_shape[TS_MAX_DIMS], strides[TS_MAX_DIMS];
  int lead = (int) ndim - (int) self->ndim;

  if (lead < 0 || ndim > TS_MAX_DIMS)
    {
      g_autofree char *want = ts_shape_to_string (ndim, shape);
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "expand(torch.FloatTensor{%s}, size=%s): the number of sizes provided (%u) "
                   "must be greater or equal to the number of dimensions in the tensor (%u)",
                   want, want, ndim, self->ndim);
      return NULL;
    }
  for (guint i = 0; i < ndim; i++)
    {
      int j = (int) i - lead;
      gint64 want = shape[i];

      if (j < 0)
        {
          out_shape[i] = want;
          strides[i] = 0;
          continue;
        }
      if (want == -1)
        want = self->shape[j];
      if (self->shape[j] == want)
        {
          out_shape[i] = want;
          strides[i] = self->strides[j];
        }
      else if (self->shape[j] == 1)
        {
          out_shape[i] = want;
          strides[i] = 0;
        }
      else
        {
          g_autofree char *want_s = ts_shape_to_string (ndim, shape);
          g_autofree char *have_s = ts_shape_to_string (self->ndim, self->shape);
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "The expanded size of the tensor (%" G_GINT64_FORMAT ") must match the "
                       "existing size (%" G_GINT64_FORMAT ") at non-singleton dimension %u.  "
                       "Target sizes: %s.  Tensor sizes: %s",
                       want, self->shape[j], i, want_s, have_s);
          return NULL;
        }
    }
  return ts_tensor_new_view (self->storage, self->dtype, ndim, out_shape, strides, self->offset);
}
