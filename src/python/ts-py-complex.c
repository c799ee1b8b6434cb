/* ts-py-complex.c: Python complex numbers and the views of complex tensors
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A complex tensor's elements are (real, imaginary) pairs, so its .real,
 * .imag and view_as_real are views of the same storage with the real
 * dtype: twice the strides, and the imaginary part one component further
 * (offsets and strides count elements of the view's dtype). view_as_complex
 * is the inverse, with PyTorch's checks and messages.
 *
 * A Python complex next to a tensor (`t * 1j`) is PyTorch's wrapped
 * number: here a 0-dim tensor of the dtype the wrapped number would give,
 * made on the host and copied to the tensor's device (PyTorch passes it as
 * a kernel argument instead, so a CUDA operand shows one more copy).
 */

#include "config.h"

#include "ts-callsite.h"
#include "ts-cpu-complex.h"
#include "ts-host-data.h"
#include "ts-session.h"
#include "ts-py-private.h"

PyObject *
ts_py_complex_number (TsDType       dtype,
                      gconstpointer p)
{
  double re, im;

  ts_complex_load (dtype, p, &re, &im);
  return PyComplex_FromDoubles (re, im);
}

/* A 0-dim CPU tensor of @dtype holding @number (a Python complex). */
static TsTensor *
complex_scalar (PyObject  *number,
                TsDType    dtype,
                GError   **error)
{
  TsTensor *t = ts_tensor_new_empty (TS_DEVICE_CPU_VALUE, dtype, 0, NULL, FALSE, error);

  if (t == NULL)
    return NULL;
  /* the program's own value: kept even with --no-data */
  if (ts_host_data_no_data () && !ts_storage_keep_values (t->storage, error))
    {
      ts_tensor_unref (t);
      return NULL;
    }
  ts_complex_store (dtype, ts_tensor_data (t), PyComplex_RealAsDouble (number),
                    PyComplex_ImagAsDouble (number));
  return t;
}

TsTensor *
ts_py_complex_operand (PyObject  *number,
                       TsTensor  *other,
                       GError   **error)
{
  TsDType dtype = ts_dtype_result_type2 (other->ndim ? TS_OPERAND_TENSOR : TS_OPERAND_ZERO_DIM, other->dtype,
                                         TS_OPERAND_SCALAR, TS_DTYPE_COMPLEX128);
  g_autoptr(TsTensor) host = complex_scalar (number, dtype, error);

  if (host == NULL || !ts_tensor_is_cuda (other))
    return g_steal_pointer (&host);
  return ts_ops_to (host, ts_tensor_get_device (other), dtype, FALSE, FALSE, error);
}

gboolean
ts_py_complex_fill_ (TsTensor  *self,
                     PyObject  *number,
                     GError   **error)
{
  g_autoptr(TsTensor) value = NULL;

  if (!ts_dtype_is_complex (self->dtype))
    {
      /* c10's checked_convert of a complex into a real type */
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "value cannot be converted to type %s without overflow",
                   ts_dtype_cpp_type_name (self->dtype));
      return FALSE;
    }
  value = complex_scalar (number, self->dtype, error);
  return value != NULL && ts_ops_copy (self, value, FALSE, error);
}

gboolean
ts_py_complex_store (TsDType    dtype,
                     guint8    *p,
                     PyObject  *number)
{
  if (!ts_dtype_is_complex (dtype))
    {
      PyErr_Format (PyExc_RuntimeError, "value cannot be converted to type %s without overflow",
                    ts_dtype_cpp_type_name (dtype));
      return FALSE;
    }
  if (p != NULL)
    ts_complex_store (dtype, p, PyComplex_RealAsDouble (number), PyComplex_ImagAsDouble (number));
  return TRUE;
}

gboolean
ts_py_complex_warn_cast (TsDType from,
                         TsDType to)
{
  /* TORCH_WARN_ONCE in ATen's copy_ */
  static const char message[] = "Casting complex values to real discards the imaginary part (Triggered "
                                "internally at  ./aten/src/ATen/native/Copy.cpp:250.)";
  static gboolean warned;
  TsSourceLoc loc;
  const char *file;

  if (warned || !ts_dtype_is_complex (from) || to == TS_DTYPE_UNDEFINED || ts_dtype_is_complex (to))
    return TRUE;
  warned = TRUE;
  /* at the script's line, as a C++ warning names the op's Python caller */
  ts_py_update_callsite ();
  loc = ts_callsite_get ();
  file = loc.file != 0 ? ts_recorder_lookup (ts_session_get_recorder (), loc.file) : NULL;
  if (file != NULL)
    return PyErr_WarnExplicit (PyExc_UserWarning, message, file, (int) loc.line, NULL, NULL) == 0;
  return PyErr_WarnEx (PyExc_UserWarning, message, 1) == 0;
}

/* Views ------------------------------------------------------------------- */

/* The real dtype view of a complex tensor, with a last dim of 2 when
 * @pairs, else the real (@part 0) or imaginary (1) parts. */
static TsTensor *
real_view (TsTensor *t,
           gboolean  pairs,
           int       part)
{
  gint64 shape[TS_MAX_DIMS], strides[TS_MAX_DIMS];
  guint ndim = t->ndim;

  for (guint d = 0; d < t->ndim; d++)
    {
      shape[d] = t->shape[d];
      strides[d] = 2 * t->strides[d];
    }
  if (pairs)
    {
      shape[ndim] = 2;
      strides[ndim] = 1;
      ndim++;
    }
  return ts_tensor_new_view (t->storage, ts_dtype_to_real (t->dtype), ndim, shape, strides,
                             2 * t->offset + part);
}

static PyObject *
runtime_error (const char *message)
{
  PyErr_SetString (PyExc_RuntimeError, message);
  return NULL;
}

/* _view_as_real(t) */
static PyObject *
py_view_as_real (PyObject *module,
                 PyObject *arg)
{
  TsTensor *t;

  if (!ts_py_is_tensor (arg))
    return runtime_error ("view_as_real(): expected a Tensor");
  t = ts_py_tensor_get (arg);
  if (!ts_dtype_is_complex (t->dtype))
    return runtime_error ("view_as_real is only supported for complex tensors");
  if (t->ndim >= TS_MAX_DIMS)
    return runtime_error ("view_as_real(): too many dimensions");
  return ts_py_tensor_wrap (real_view (t, TRUE, 0));
}

/* _complex_part(t, imag): Tensor.real and Tensor.imag of a complex tensor */
static PyObject *
py_complex_part (PyObject *module,
                 PyObject *args)
{
  PyObject *obj;
  int imag;

  if (!PyArg_ParseTuple (args, "Op", &obj, &imag))
    return NULL;
  if (!ts_py_is_tensor (obj))
    return runtime_error ("expected a Tensor");
  if (!ts_dtype_is_complex (ts_py_tensor_get (obj)->dtype))
    return runtime_error ("expected a complex tensor");
  return ts_py_tensor_wrap (real_view (ts_py_tensor_get (obj), FALSE, imag ? 1 : 0));
}

/* _view_as_complex(t): PyTorch's checks, in its order */
static PyObject *
py_view_as_complex (PyObject *module,
                    PyObject *arg)
{
  gint64 shape[TS_MAX_DIMS], strides[TS_MAX_DIMS];
  TsTensor *t;

  if (!ts_py_is_tensor (arg))
    return runtime_error ("view_as_complex(): expected a Tensor");
  t = ts_py_tensor_get (arg);
  if (t->dtype != TS_DTYPE_FLOAT32 && t->dtype != TS_DTYPE_FLOAT64)
    {
      PyErr_Format (PyExc_RuntimeError, "view_as_complex is only supported for half, float and double tensors, "
                    "but got a tensor of scalar type: %s", ts_dtype_scalar_type_name (t->dtype));
      return NULL;
    }
  if (t->ndim == 0)
    return runtime_error ("Input tensor must have one or more dimensions");
  if (t->shape[t->ndim - 1] != 2)
    return runtime_error ("Tensor must have a last dimension of size 2");
  if (t->strides[t->ndim - 1] != 1)
    return runtime_error ("Tensor must have a last dimension with stride 1");
  for (guint d = 0; d + 1 < t->ndim; d++)
    {
      if (t->strides[d] % 2 != 0)
        return runtime_error ("Tensor must have a stride divisible by 2 for all but last dimension");
      shape[d] = t->shape[d];
      strides[d] = t->strides[d] / 2;
    }
  if (t->offset % 2 != 0)
    return runtime_error ("Tensor must have a storage_offset divisible by 2");
  return ts_py_tensor_wrap (ts_tensor_new_view (t->storage, ts_dtype_to_complex (t->dtype), t->ndim - 1,
                                                shape, strides, t->offset / 2));
}

static PyMethodDef complex_methods[] = {
  { "_view_as_real", py_view_as_real, METH_O, NULL },
  { "_view_as_complex", py_view_as_complex, METH_O, NULL },
  { "_complex_part", py_complex_part, METH_VARARGS, NULL },
  { NULL, NULL, 0, NULL },
};

gboolean
ts_py_complex_register (PyObject *module)
{
  return PyModule_AddFunctions (module, complex_methods) == 0;
}
