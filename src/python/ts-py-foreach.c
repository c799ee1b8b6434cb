/* ts-py-foreach.c: multi-tensor launches for torch._foreach_* and the
 * fused optimizers
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * torch/_foreach.py writes each multi-tensor op as its per-tensor ops
 * inside _C._multi_tensor_begin (name, depth) ... _multi_tensor_end (),
 * calling _multi_tensor_next (tensor) before each tensor's ops: the core
 * turns their device kernels into PyTorch's launches, one per chunk
 * (ts_ops_multi_tensor_begin, ts-ops.c).
 */

#include "config.h"

#include "ts-py-private.h"

static PyObject *
py_multi_tensor_begin (PyObject *m, PyObject *args)
{
  const char *name;
  unsigned int depth;
  GError *error = NULL;

  if (!PyArg_ParseTuple (args, "sI", &name, &depth))
    return NULL;
  ts_py_update_callsite ();
  if (!ts_ops_multi_tensor_begin (name, depth, &error))
    return ts_py_set_error (error);
  Py_RETURN_NONE;
}

static PyObject *
py_multi_tensor_next (PyObject *m, PyObject *tensor)
{
  if (!ts_py_is_tensor (tensor))
    {
      PyErr_SetString (PyExc_TypeError, "_multi_tensor_next(): expected a tensor");
      return NULL;
    }
  ts_ops_multi_tensor_next (ts_py_tensor_get (tensor));
  Py_RETURN_NONE;
}

static PyObject *
py_multi_tensor_end (PyObject *m, PyObject *unused)
{
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!ts_ops_multi_tensor_end (&error))
    return ts_py_set_error (error);
  Py_RETURN_NONE;
}

static PyMethodDef foreach_methods[] = {
  { "_multi_tensor_begin", py_multi_tensor_begin, METH_VARARGS, NULL },
  { "_multi_tensor_next", py_multi_tensor_next, METH_O, NULL },
  { "_multi_tensor_end", py_multi_tensor_end, METH_NOARGS, NULL },
  { NULL }
};

gboolean
ts_py_foreach_register (PyObject *module)
{
  return PyModule_AddFunctions (module, foreach_methods) == 0;
}
