/* ts-py-shape.c: the bindings of the SHAPE family (tril, triu, flip)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Private entry points of torch/_shape.py, which parses PyTorch's
 * arguments and checks them with its messages first.
 */

#include "config.h"

#include "ts-ops-shape.h"
#include "ts-py-private.h"

static PyObject *
wrap_result (TsTensor  *t,
             GError    *error)
{
  if (t == NULL)
    return ts_py_set_error (error);
  return ts_py_tensor_wrap (t);
}

/* _triangle(self, diagonal, upper, out): out None, self (in place) or a
 * tensor of self's shape and dtype */
static PyObject *
py_triangle (PyObject *module,
             PyObject *args)
{
  PyObject *self, *out;
  long long diagonal;
  int upper;
  GError *error = NULL;
  TsTensor *t;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "OLpO", &self, &diagonal, &upper, &out))
    return NULL;
  if (!ts_py_is_tensor (self) || (out != Py_None && !ts_py_is_tensor (out)))
    return PyErr_Format (PyExc_TypeError, "_triangle() takes tensors");
  t = ts_ops_triangle (ts_py_tensor_get (self), diagonal, upper,
                       out == Py_None ? NULL : ts_py_tensor_get (out), &error);
  if (t != NULL && out != Py_None)
    {
      ts_tensor_unref (t);
      Py_INCREF (out);
      return out;
    }
  return wrap_result (t, error);
}

/* _flip(self, dim_mask) */
static PyObject *
py_flip (PyObject *module,
         PyObject *args)
{
  PyObject *self;
  unsigned long long mask;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "OK", &self, &mask))
    return NULL;
  if (!ts_py_is_tensor (self))
    return PyErr_Format (PyExc_TypeError, "_flip() takes a tensor");
  return wrap_result (ts_ops_flip (ts_py_tensor_get (self), mask, &error), error);
}

static PyMethodDef shape_methods[] = {
  { "_triangle", py_triangle, METH_VARARGS, NULL },
  { "_flip", py_flip, METH_VARARGS, NULL },
  { NULL }
};

gboolean
ts_py_shape_register (PyObject *module)
{
  return PyModule_AddFunctions (module, shape_methods) == 0;
}
