/* ts-py-index.c: torch._C's advanced indexing entry points
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * torch/_indexing.py applies PyTorch's subscript rules (basic indices as
 * views, advanced ones broadcast and stacked as (*B, k) int64) and calls
 * these with the op's name, so that masked_select, take and the rest run
 * as their own aten:: rows of the op table.
 */

#include "config.h"

#include "ts-op-table.h"
#include "ts-ops.h"
#include "ts-host-data.h"
#include "ts-py-private.h"

/* The op named @name of @family, or a ValueError. */
static gboolean
parse_op (const char *name,
          TsOpFamily  family,
          TsOpId     *op)
{
  const TsOpDesc *desc = ts_op_lookup (name);

  if (desc == NULL || desc->family != family)
    {
      PyErr_Format (PyExc_ValueError, "not an indexing op: %s", name);
      return FALSE;
    }
  *op = desc->id;
  return TRUE;
}

/* Every one of @objs must be a tensor. */
static gboolean
tensors_or_raise (PyObject   **objs,
                  guint        n)
{
  for (guint i = 0; i < n; i++)
    if (!ts_py_is_tensor (objs[i]))
      {
        PyErr_SetString (PyExc_TypeError, "expected a Tensor");
        return FALSE;
      }
  return TRUE;
}

/* _index(op, self, pos, index) -> Tensor */
static PyObject *
py_index (PyObject *module,
          PyObject *args)
{
  PyObject *objs[2];
  const char *name;
  unsigned int pos;
  GError *error = NULL;
  TsTensor *out;
  TsOpId op;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "sOIO", &name, &objs[0], &pos, &objs[1]) ||
      !tensors_or_raise (objs, 2) || !parse_op (name, TS_OP_FAMILY_INDEX, &op))
    return NULL;
  out = ts_ops_index (op, ts_py_tensor_get (objs[0]), pos, ts_py_tensor_get (objs[1]), &error);
  return out ? ts_py_tensor_wrap (out) : ts_py_set_error (error);
}

/* _index_put_(op, self, pos, index, values, accumulate) -> None */
static PyObject *
py_index_put_ (PyObject *module,
               PyObject *args)
{
  PyObject *objs[3];
  const char *name;
  unsigned int pos;
  int accumulate;
  GError *error = NULL;
  TsOpId op;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "sOIOOp", &name, &objs[0], &pos, &objs[1], &objs[2], &accumulate) ||
      !tensors_or_raise (objs, 3) || !parse_op (name, TS_OP_FAMILY_INDEX_PUT, &op))
    return NULL;
  if (!ts_ops_index_put_ (op, ts_py_tensor_get (objs[0]), pos, ts_py_tensor_get (objs[1]),
                          ts_py_tensor_get (objs[2]), accumulate, &error))
    return ts_py_set_error (error);
  Py_RETURN_NONE;
}

/* _nonzero(self, what=None) -> Tensor of (count, ndim) int64; what
 * names the caller in --no-data mode's refusal (masked_select...) */
static PyObject *
py_nonzero (PyObject *module,
            PyObject *args)
{
  GError *error = NULL;
  PyObject *arg;
  const char *what = NULL;
  TsTensor *out;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "O|s", &arg, &what) || !tensors_or_raise (&arg, 1))
    return NULL;
  if (what != NULL && ts_host_data_no_data () && ts_tensor_data (ts_py_tensor_get (arg)) == NULL)
    {
      ts_host_data_refuse (what, &error);
      return ts_py_set_error (error);
    }
  out = ts_ops_nonzero (ts_py_tensor_get (arg), &error);
  return out ? ts_py_tensor_wrap (out) : ts_py_set_error (error);
}

/* _masked_fill_(self, mask, value) -> None; value a Python number */
static PyObject *
py_masked_fill_ (PyObject *module,
                 PyObject *args)
{
  PyObject *objs[2], *value;
  GError *error = NULL;
  TsScalar scalar;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "OOO", &objs[0], &objs[1], &value) || !tensors_or_raise (objs, 2) ||
      !ts_py_parse_scalar (value, &scalar))
    return NULL;
  if (!ts_ops_masked_fill_ (ts_py_tensor_get (objs[0]), ts_py_tensor_get (objs[1]), &scalar, &error))
    return ts_py_set_error (error);
  Py_RETURN_NONE;
}

/* _masked_fill(self, mask, value): masked_fill's usual call in C (a
 * contiguous self, a bool mask of its shape and device, a number): the
 * clone and the in-place fill, ATen's two launches; NotImplemented for
 * every other call, which torch/_indexing.py checks and composes */
static PyObject *
py_masked_fill (PyObject *module,
                PyObject *args)
{
  PyObject *objs[2], *value;
  GError *error = NULL;
  TsScalar scalar;
  TsTensor *self, *mask;
  g_autoptr(TsTensor) result = NULL;

  if (!PyArg_ParseTuple (args, "OOO", &objs[0], &objs[1], &value))
    return NULL;
  if (!ts_py_is_tensor (objs[0]) || !ts_py_is_tensor (objs[1]) || ts_py_is_tensor (value) ||
      !(PyFloat_Check (value) || PyLong_Check (value)))
    Py_RETURN_NOTIMPLEMENTED;
  self = ts_py_tensor_get (objs[0]);
  mask = ts_py_tensor_get (objs[1]);
  if (mask->dtype != TS_DTYPE_BOOL || mask->ndim != self->ndim ||
      memcmp (mask->shape, self->shape, self->ndim * sizeof (gint64)) != 0 ||
      !ts_device_equal (ts_tensor_get_device (mask), ts_tensor_get_device (self)) ||
      !ts_tensor_is_contiguous (self) || !ts_py_parse_scalar (value, &scalar))
    {
      PyErr_Clear ();
      Py_RETURN_NOTIMPLEMENTED;
    }
  ts_py_update_callsite ();
  result = ts_ops_clone (self, &error);
  if (result == NULL || !ts_ops_masked_fill_ (result, mask, &scalar, &error))
    return ts_py_set_error (error);
  return ts_py_tensor_wrap (g_steal_pointer (&result));
}

static PyMethodDef index_methods[] = {
  { "_index", py_index, METH_VARARGS, NULL },
  { "_index_put_", py_index_put_, METH_VARARGS, NULL },
  { "_nonzero", py_nonzero, METH_VARARGS, NULL },
  { "_masked_fill_", py_masked_fill_, METH_VARARGS, NULL },
  { "_masked_fill", py_masked_fill, METH_VARARGS, NULL },
  { NULL }
};

gboolean
ts_py_index_register (PyObject *module)
{
  return PyModule_AddFunctions (module, index_methods) == 0;
}
