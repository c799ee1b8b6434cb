/* ts-py-linalg.c: torch._C._linalg, the LINALG family's one entry
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * torch/linalg.py checks its arguments with PyTorch's messages, broadcasts
 * batches and calls _linalg(op, inputs, m, n, k, flags, driver, rcond) with
 * the op's ATen name (a LINALG row of the op table); it records the nodes
 * itself (torch/_linalg_grad.py).
 */

#include "config.h"

#include "ts-ops-linalg.h"
#include "ts-py-private.h"

static PyObject *
py_linalg (PyObject *module,
           PyObject *args)
{
  const char *name;
  PyObject *inputs_obj, *result;
  long long m, n, k, flags, driver;
  double rcond;
  const TsOpDesc *desc;
  g_autofree TsTensor **inputs = NULL;
  TsTensor *outputs[TS_OPS_LINALG_MAX];
  guint n_inputs, n_outputs = 0;
  TsLinalg p;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "sOLLLLLd", &name, &inputs_obj, &m, &n, &k, &flags, &driver, &rcond) ||
      (inputs = ts_py_tensor_array (inputs_obj, FALSE, &n_inputs)) == NULL)
    return NULL;
  desc = ts_op_lookup (name);
  if (desc == NULL || desc->family != TS_OP_FAMILY_LINALG || n_inputs == 0)
    {
      PyErr_Format (PyExc_ValueError, "_linalg: %s is not a linalg op of the table", name);
      return NULL;
    }
  p = (TsLinalg) { .m = m, .n = n, .k = k, .flags = flags, .driver = driver, .rcond = rcond };
  if (!ts_ops_linalg (desc->id, inputs, n_inputs, &p, outputs, &n_outputs, &error))
    return ts_py_set_error (error);
  result = PyTuple_New (n_outputs);
  for (guint i = 0; i < n_outputs; i++)
    PyTuple_SET_ITEM (result, i, ts_py_tensor_wrap (outputs[i]));
  return result;
}

static PyMethodDef linalg_methods[] = {
  { "_linalg", py_linalg, METH_VARARGS, NULL },
  { NULL }
};

gboolean
ts_py_linalg_register (PyObject *module)
{
  return PyModule_AddFunctions (module, linalg_methods) == 0;
}
