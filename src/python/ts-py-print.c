/* ts-py-print.c: torch.set_printoptions
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The options live with the formatter (ts-tensor-format.h); Python's
 * torch.set_printoptions resolves profiles and defaults, and hands over
 * the five numbers.
 */

#include "config.h"

#include "ts-py-private.h"
#include "ts-tensor-format.h"

/* _set_printoptions(precision, threshold, edgeitems, linewidth, sci_mode):
 * threshold -1 for never summarising, sci_mode -1 for automatic. */
static PyObject *
py_set_printoptions (PyObject *m, PyObject *args)
{
  TsPrintOptions o;
  long long threshold;

  if (!PyArg_ParseTuple (args, "iLiii", &o.precision, &threshold, &o.edgeitems, &o.linewidth, &o.sci_mode))
    return NULL;
  if (o.precision < 0 || o.precision > 40 || o.edgeitems < 0 || o.linewidth < 0)
    {
      PyErr_SetString (PyExc_ValueError, "print options out of range");
      return NULL;
    }
  o.threshold = threshold < 0 ? G_MAXINT64 : threshold;
  ts_tensor_format_set_print_options (&o);
  Py_RETURN_NONE;
}

static PyObject *
py_get_printoptions (PyObject *m, PyObject *unused)
{
  TsPrintOptions o;

  ts_tensor_format_get_print_options (&o);
  return Py_BuildValue ("(iLiii)", o.precision, (long long) (o.threshold == G_MAXINT64 ? -1 : o.threshold),
                        o.edgeitems, o.linewidth, o.sci_mode);
}

static PyMethodDef print_methods[] = {
  { "_set_printoptions", py_set_printoptions, METH_VARARGS, NULL },
  { "_get_printoptions", py_get_printoptions, METH_NOARGS, NULL },
  { NULL }
};

gboolean
ts_py_print_register (PyObject *module)
{
  return PyModule_AddFunctions (module, print_methods) == 0;
}
