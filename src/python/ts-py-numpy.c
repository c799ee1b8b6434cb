/* ts-py-numpy.c: CPU tensors and NumPy arrays sharing their bytes
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tensor.numpy() is an array over a HostBuffer, an object that exports a
 * CPU tensor's bytes with the buffer protocol and keeps the tensor alive;
 * torch.from_numpy() is a tensor over the array's buffer, held until the
 * storage goes. torch.Tensor itself exports no buffer, as in PyTorch.
 * The Python side (torch/_numpy.py) checks dtypes, devices and strides.
 */

#include "config.h"

#include "ts-host-data.h"
#include "ts-py-private.h"

typedef struct
{
  PyObject_HEAD
  PyObject *tensor;
} HostBuffer;

/* struct's format characters, which NumPy reads */
static const char *
buffer_format (TsDType dtype)
{
  switch (dtype)
    {
    case TS_DTYPE_FLOAT32: return "f";
    case TS_DTYPE_FLOAT64: return "d";
    case TS_DTYPE_FLOAT16: return "e";
    case TS_DTYPE_INT64: return "q";
    case TS_DTYPE_INT32: return "i";
    case TS_DTYPE_INT16: return "h";
    case TS_DTYPE_INT8: return "b";
    case TS_DTYPE_UINT8: return "B";
    case TS_DTYPE_BOOL: return "?";
    case TS_DTYPE_COMPLEX64: return "Zf";
    case TS_DTYPE_COMPLEX128: return "Zd";
    default: return NULL;
    }
}

static int
host_buffer_get (PyObject  *obj,
                 Py_buffer *view,
                 int        flags)
{
  TsTensor *t = ts_py_tensor_get (((HostBuffer *) obj)->tensor);
  const char *format = buffer_format (t->dtype);
  gsize esize = ts_dtype_size (t->dtype);
  Py_ssize_t *dims;

  if (ts_tensor_is_cuda (t) || format == NULL)
    {
      PyErr_SetString (PyExc_BufferError, "only CPU tensors of NumPy's dtypes export their bytes");
      return -1;
    }
  if (!(flags & PyBUF_STRIDES) && !ts_tensor_is_contiguous (t))
    {
      PyErr_SetString (PyExc_BufferError, "the tensor is not contiguous");
      return -1;
    }
  dims = g_new (Py_ssize_t, 2 * MAX (t->ndim, 1));
  for (guint d = 0; d < t->ndim; d++)
    {
      dims[d] = t->shape[d];
      dims[t->ndim + d] = t->strides[d] * esize;
    }
  view->buf = ts_tensor_data (t);
  view->obj = Py_NewRef (obj);
  view->len = ts_tensor_numel (t) * esize;
  view->readonly = 0;
  view->itemsize = esize;
  view->format = (flags & PyBUF_FORMAT) ? (char *) format : NULL;
  view->ndim = t->ndim;
  view->shape = (flags & PyBUF_ND) ? dims : NULL;
  view->strides = (flags & PyBUF_STRIDES) ? dims + t->ndim : NULL;
  view->suboffsets = NULL;
  view->internal = dims;
  return 0;
}

static void
host_buffer_release (PyObject  *obj,
                     Py_buffer *view)
{
  g_free (view->internal);
}

static void
host_buffer_dealloc (PyObject *obj)
{
  Py_XDECREF (((HostBuffer *) obj)->tensor);
  Py_TYPE (obj)->tp_free (obj);
}

static PyBufferProcs host_buffer_procs = {
  .bf_getbuffer = host_buffer_get,
  .bf_releasebuffer = host_buffer_release,
};

static PyTypeObject HostBuffer_Type = {
  PyVarObject_HEAD_INIT (NULL, 0)
  .tp_name = "torch._C._HostBuffer",
  .tp_basicsize = sizeof (HostBuffer),
  .tp_dealloc = host_buffer_dealloc,
  .tp_as_buffer = &host_buffer_procs,
  .tp_flags = Py_TPFLAGS_DEFAULT,
};

/* _host_buffer(tensor): what NumPy makes Tensor.numpy()'s array over. */
static PyObject *
py_host_buffer (PyObject *module,
                PyObject *arg)
{
  HostBuffer *self;

  if (!ts_py_is_tensor (arg))
    {
      PyErr_SetString (PyExc_TypeError, "expected a tensor");
      return NULL;
    }
  if (ts_tensor_data (ts_py_tensor_get (arg)) == NULL && ts_host_data_no_data ())
    {
      GError *error = NULL;

      ts_host_data_refuse ("Tensor.numpy()", &error);
      return ts_py_set_error (error);
    }
  self = PyObject_New (HostBuffer, &HostBuffer_Type);
  if (self == NULL)
    return NULL;
  self->tensor = Py_NewRef (arg);
  return (PyObject *) self;
}

/* How many elements a view of shape and strides (non-negative) spans, from
 * its first element to its last one. */
gint64
ts_py_strided_extent (guint         ndim,
                      const gint64 *shape,
                      const gint64 *strides)
{
  gint64 extent = 1;

  for (guint d = 0; d < ndim; d++)
    if (shape[d] == 0)
      return 0;
  for (guint d = 0; d < ndim; d++)
    extent += (shape[d] - 1) * strides[d];
  return extent;
}

static int
release_view_now (void *data)
{
  PyBuffer_Release (data);
  g_free (data);
  return 0;
}

/* The storage of a from_numpy tensor went: give the array's buffer back,
 * under the GIL. Storage can go on a thread that does not hold it (a job
 * that finished): then the main thread does it at its next chance. After
 * the interpreter is gone there is nothing left to give back to. */
static void
release_view (gpointer data)
{
  if (!Py_IsInitialized ())
    return;
  if (PyGILState_Check ())
    release_view_now (data);
  else if (Py_AddPendingCall (release_view_now, data) != 0)
    {
      PyGILState_STATE state = PyGILState_Ensure ();
      release_view_now (data);
      PyGILState_Release (state);
    }
}

/* _from_host_buffer(array, shape, strides, dtype): a CPU tensor over the
 * array's bytes (strides in elements, checked by the caller). */
static PyObject *
py_from_host_buffer (PyObject *module,
                     PyObject *args)
{
  PyObject *array, *shape_obj, *strides_obj, *dtype_obj;
  gint64 shape[TS_MAX_DIMS], strides[TS_MAX_DIMS];
  Py_ssize_t ndim;
  TsDType dtype;
  Py_buffer *view;
  gint64 extent;
  g_autoptr(TsStorage) storage = NULL;

  if (!PyArg_ParseTuple (args, "OO!O!O", &array, &PyTuple_Type, &shape_obj, &PyTuple_Type, &strides_obj,
                         &dtype_obj) ||
      !ts_py_parse_dtype (dtype_obj, &dtype))
    return NULL;
  ndim = PyTuple_GET_SIZE (shape_obj);
  if (ndim > TS_MAX_DIMS || PyTuple_GET_SIZE (strides_obj) != ndim)
    {
      PyErr_Format (PyExc_ValueError, "an array of %zd dimensions is not supported", ndim);
      return NULL;
    }
  for (Py_ssize_t d = 0; d < ndim; d++)
    {
      shape[d] = PyLong_AsLongLong (PyTuple_GET_ITEM (shape_obj, d));
      strides[d] = PyLong_AsLongLong (PyTuple_GET_ITEM (strides_obj, d));
    }
  if (PyErr_Occurred ())
    return NULL;
  view = g_new0 (Py_buffer, 1);
  if (PyObject_GetBuffer (array, view, PyBUF_RECORDS_RO) < 0)
    {
      g_free (view);
      return NULL;
    }
  extent = ts_py_strided_extent (ndim, shape, strides);
  storage = ts_storage_new_cpu_borrowed (view->buf, (gsize) extent * ts_dtype_size (dtype), release_view, view);
  return ts_py_tensor_wrap (ts_tensor_new_view (storage, dtype, ndim, shape, strides, 0));
}

static PyMethodDef numpy_methods[] = {
  { "_host_buffer", py_host_buffer, METH_O, NULL },
  { "_from_host_buffer", py_from_host_buffer, METH_VARARGS, NULL },
  { NULL }
};

gboolean
ts_py_numpy_register (PyObject *module)
{
  if (PyType_Ready (&HostBuffer_Type) < 0)
    return FALSE;
  return PyModule_AddFunctions (module, numpy_methods) == 0;
}
