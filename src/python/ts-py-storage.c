/* ts-py-storage.c: a storage's bytes in one call, for torch.save and torch.load
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * torch.save writes whole storages, not tensors: the bytes a view does not
 * reach are written too, and views of one storage load back as views of
 * one storage. Python sees a storage through any tensor over it
 * (torch/storage.py); these functions read its bytes without a Python
 * object per element, and make views of it with any offset and strides
 * (Tensor.set_), bounds-checked because the numbers come from a file.
 * torch.load reads a record straight into a new storage's memory (the
 * buffer of torch._C._host_buffer, ts-py-numpy.c).
 */

#include "config.h"

#include "ts-py-private.h"

static gboolean
parse_tensor (PyObject  *obj,
              TsTensor **t)
{
  if (!ts_py_is_tensor (obj))
    {
      PyErr_SetString (PyExc_TypeError, "expected a tensor");
      return FALSE;
    }
  *t = ts_py_tensor_get (obj);
  return TRUE;
}

/* The whole storage of t as one dimension of bytes. */
static TsTensor *
storage_as_bytes (TsTensor *t)
{
  gint64 shape = (gint64) t->storage->nbytes;
  gint64 stride = 1;

  return ts_tensor_new_view (t->storage, TS_DTYPE_UINT8, 1, &shape, &stride, 0);
}

/* _storage_key(tensor): what tells storages apart while they live. */
static PyObject *
py_storage_key (PyObject *module,
                PyObject *arg)
{
  TsTensor *t;

  if (!parse_tensor (arg, &t))
    return NULL;
  return PyLong_FromVoidPtr (t->storage);
}

/* _storage_bytes(tensor): the bytes of the tensor's whole storage; a CUDA
 * storage is read with one device-to-host copy, as torch.save does. */
static PyObject *
py_storage_bytes (PyObject *module,
                  PyObject *arg)
{
  TsTensor *t;
  GError *error = NULL;
  g_autoptr(TsTensor) bytes = NULL;
  g_autoptr(TsTensor) host = NULL;

  if (!parse_tensor (arg, &t))
    return NULL;
  ts_py_update_callsite ();
  if (t->storage->nbytes == 0)
    return PyBytes_FromStringAndSize (NULL, 0);
  bytes = storage_as_bytes (t);
  host = ts_ops_to_host (bytes, &error);
  if (host == NULL)
    return ts_py_set_error (error);
  return PyBytes_FromStringAndSize ((const char *) ts_tensor_data (host), (Py_ssize_t) host->storage->nbytes);
}

static gboolean
parse_dims (PyObject *obj,
            guint    *ndim,
            gint64   *dims)
{
  Py_ssize_t n;

  if (!PyTuple_Check (obj))
    {
      PyErr_SetString (PyExc_TypeError, "sizes and strides must be tuples");
      return FALSE;
    }
  n = PyTuple_GET_SIZE (obj);
  if (n > TS_MAX_DIMS)
    {
      PyErr_Format (PyExc_RuntimeError, "a tensor of %zd dimensions is not supported (at most %d)",
                    n, TS_MAX_DIMS);
      return FALSE;
    }
  for (Py_ssize_t d = 0; d < n; d++)
    {
      dims[d] = PyLong_AsLongLong (PyTuple_GET_ITEM (obj, d));
      if (dims[d] == -1 && PyErr_Occurred ())
        return FALSE;
    }
  *ndim = n;
  return TRUE;
}

/* The bytes a view needs from the start of its storage (to the end of its
 * last element) in *nbytes; FALSE when a number is negative, or the element
 * count or the extent does not fit in 64 bits. An empty view needs its
 * offset only. */
static gboolean
view_extent_bytes (guint         ndim,
                   const gint64 *shape,
                   const gint64 *strides,
                   gint64        offset,
                   gsize         esize,
                   guint64      *nbytes)
{
  guint64 last = 0;
  guint64 numel = 1;

  if (offset < 0)
    return FALSE;
  for (guint d = 0; d < ndim; d++)
    {
      if (shape[d] < 0 || strides[d] < 0 ||
          __builtin_mul_overflow (numel, (guint64) shape[d], &numel) || numel > G_MAXINT64)
        return FALSE;
    }
  if (numel == 0)
    return !__builtin_mul_overflow ((guint64) offset, (guint64) esize, nbytes);
  for (guint d = 0; d < ndim; d++)
    {
      guint64 step;
      if (__builtin_mul_overflow ((guint64) (shape[d] - 1), (guint64) strides[d], &step) ||
          __builtin_add_overflow (last, step, &last))
        return FALSE;
    }
  return !__builtin_add_overflow (last, (guint64) offset + 1, &last) &&
         !__builtin_mul_overflow (last, (guint64) esize, nbytes);
}

/* setStorage's message: "setStorage: sizes [2], strides [1], storage
 * offset 0, and itemsize 4 requiring ... out of bounds ..." */
static PyObject *
view_error (guint         ndim,
            const gint64 *shape,
            const gint64 *strides,
            long long     offset,
            const char   *problem,
            const char   *tail)
{
  g_autofree char *sizes = ts_shape_to_string (ndim, shape);
  g_autofree char *strides_text = ts_shape_to_string (ndim, strides);

  if (problem != NULL)
    PyErr_Format (PyExc_RuntimeError, "setStorage: sizes %s, strides %s, storage offset %lld: %s",
                  sizes, strides_text, offset, problem);
  else
    PyErr_Format (PyExc_RuntimeError, "setStorage: sizes %s, strides %s, storage offset %lld, %s",
                  sizes, strides_text, offset, tail);
  return NULL;
}

/* _storage_view(tensor, dtype, sizes, strides, offset): a view of dtype
 * over the tensor's storage (Tensor.set_(storage, offset, sizes,
 * strides)), with its checks and message. */
static PyObject *
py_storage_view (PyObject *module,
                 PyObject *args)
{
  PyObject *tensor_obj, *dtype_obj, *shape_obj, *strides_obj;
  long long offset;
  gint64 shape[TS_MAX_DIMS], strides[TS_MAX_DIMS];
  guint ndim, nstrides;
  guint64 needed;
  TsDType dtype;
  TsTensor *t;

  if (!PyArg_ParseTuple (args, "OOOOL", &tensor_obj, &dtype_obj, &shape_obj, &strides_obj, &offset) ||
      !parse_tensor (tensor_obj, &t) || !ts_py_parse_dtype (dtype_obj, &dtype) ||
      !parse_dims (shape_obj, &ndim, shape) || !parse_dims (strides_obj, &nstrides, strides))
    return NULL;
  if (nstrides != ndim)
    {
      PyErr_Format (PyExc_RuntimeError, "mismatch in length of strides and shape");
      return NULL;
    }
  if (!view_extent_bytes (ndim, shape, strides, offset, ts_dtype_size (dtype), &needed))
    return view_error (ndim, shape, strides, offset, "has a negative or too large number", NULL);
  if (needed > t->storage->nbytes)
    {
      g_autofree char *what = g_strdup_printf ("and itemsize %zu requiring a storage size of %" G_GUINT64_FORMAT
                                               " are out of bounds for storage of size %zu",
                                               ts_dtype_size (dtype), needed, t->storage->nbytes);
      return view_error (ndim, shape, strides, offset, NULL, what);
    }
  return ts_py_tensor_wrap (ts_tensor_new_view (t->storage, dtype, ndim, shape, strides, offset));
}

static PyMethodDef storage_methods[] = {
  { "_storage_key", py_storage_key, METH_O, NULL },
  { "_storage_bytes", py_storage_bytes, METH_O, NULL },
  { "_storage_view", py_storage_view, METH_VARARGS, NULL },
  { NULL }
};

gboolean
ts_py_storage_register (PyObject *module)
{
  return PyModule_AddFunctions (module, storage_methods) == 0;
}
