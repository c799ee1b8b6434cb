/* ts-py-shape.c: bindings of the shape ops and reductions over dims
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Private entry points of torch/_shape.py and torch/_reduce.py, which
 * parse PyTorch's arguments and check them with its messages first.
 */

#include "config.h"

#include "ts-op-table.h"
#include "ts-ops-shape.h"
#include "ts-ops-sort.h"
#include "ts-py-private.h"

/* @error by reference: the call that fills it is an argument of this one,
 * and C leaves the order in which arguments are evaluated open. */
static PyObject *
wrap_result (TsTensor  *t,
             GError   **error)
{
  if (t == NULL)
    return ts_py_set_error (*error);
  return ts_py_tensor_wrap (t);
}

/* @t, the op's output: @out itself when the call gave one (in place, out=) */
static PyObject *
wrap_out (TsTensor  *t,
          PyObject  *out,
          GError   **error)
{
  if (t == NULL || out == Py_None)
    return wrap_result (t, error);
  ts_tensor_unref (t);
  Py_INCREF (out);
  return out;
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
  return wrap_out (t, out, &error);
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
  return wrap_result (ts_ops_flip (ts_py_tensor_get (self), mask, &error), &error);
}

/* cat's common case: tensors of one dtype and rank (neither 0-dim nor a
 * legacy 1-D empty first) that match off *dim, which is wrapped. Its
 * result, on the first tensor's device, in *result; FALSE for any other
 * call, which torch/_shape.py checks with PyTorch's messages. */
/* ATen's cat lays its result out as its inputs suggest when they all
 * suggest one format (compute_output_memory_format): channels-last here,
 * else contiguous */
static gboolean
cat_channels_last (TsTensor **tensors,
                   guint      n)
{
  for (guint i = 0; i < n; i++)
    if (!ts_tensor_suggests_channels_last (tensors[i]))
      return FALSE;
  return TRUE;
}

static gboolean
cat_common_result (TsTensor  **tensors,
                   guint       n,
                   int        *dim,
                   TsTensor  **result,
                   GError    **error)
{
  const TsTensor *ref = tensors[0];
  gint64 shape[TS_MAX_DIMS];
  int d = *dim < 0 ? *dim + (int) ref->ndim : *dim;

  *result = NULL;
  if (d < 0 || d >= (int) ref->ndim || (ref->ndim == 1 && ref->shape[0] == 0))
    return FALSE;
  memcpy (shape, ref->shape, ref->ndim * sizeof (gint64));
  shape[d] = 0;
  for (guint i = 0; i < n; i++)
    {
      const TsTensor *t = tensors[i];

      if (t->dtype != ref->dtype || t->ndim != ref->ndim)
        return FALSE;
      for (guint k = 0; k < ref->ndim; k++)
        if ((int) k != d && t->shape[k] != ref->shape[k])
          return FALSE;
      shape[d] += t->shape[d];
    }
  *dim = d;
  *result = cat_channels_last (tensors, n)
            ? ts_tensor_new_channels_last (ts_tensor_get_device (ref), ref->dtype, ref->ndim, shape, error)
            : ts_tensor_new_empty (ts_tensor_get_device (ref), ref->dtype, ref->ndim, shape, FALSE, error);
  return TRUE;
}

/* _cat(tensors, dim, out, record, stack): torch.cat / torch.stack into
 * out; with out None (cat only), the common case into a new tensor, or
 * NotImplemented when the call is not that case. */
static PyObject *
py_cat (PyObject *module,
        PyObject *args)
{
  PyObject *list, *out;
  int dim, record, stack;
  GError *error = NULL;
  g_autofree TsTensor **tensors = NULL;
  g_autoptr(TsTensor) result = NULL;
  Py_ssize_t n;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "O!iOpp", &PyList_Type, &list, &dim, &out, &record, &stack))
    return NULL;
  n = PyList_GET_SIZE (list);
  tensors = g_new (TsTensor *, MAX (n, 1));
  for (Py_ssize_t i = 0; i < n; i++)
    {
      if (!ts_py_is_tensor (PyList_GET_ITEM (list, i)))
        return out == Py_None ? Py_NewRef (Py_NotImplemented) : PyErr_Format (PyExc_TypeError, "_cat() takes tensors");
      tensors[i] = ts_py_tensor_get (PyList_GET_ITEM (list, i));
    }
  if (out == Py_None)
    {
      if (n == 0 || stack || !cat_common_result (tensors, (guint) n, &dim, &result, &error))
        return Py_NewRef (Py_NotImplemented);
      if (result == NULL || !ts_ops_cat (TS_OP_CAT, tensors, (guint) n, dim, result, TRUE, &error))
        return ts_py_set_error (error);
      return ts_py_tensor_wrap (g_steal_pointer (&result));
    }
  if (!ts_py_is_tensor (out))
    return PyErr_Format (PyExc_TypeError, "_cat() takes tensors");
  if (!ts_ops_cat (stack ? TS_OP_STACK : TS_OP_CAT, tensors, (guint) n, dim, ts_py_tensor_get (out), record,
                   &error))
    return ts_py_set_error (error);
  Py_INCREF (out);
  return out;
}

/* _bmm(input, mat2): torch.bmm, checked by torch/_matmul.py */
static PyObject *
py_bmm (PyObject *module,
        PyObject *args)
{
  PyObject *a, *b;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "OO", &a, &b))
    return NULL;
  if (!ts_py_is_tensor (a) || !ts_py_is_tensor (b))
    return PyErr_Format (PyExc_TypeError, "_bmm() takes tensors");
  return wrap_result (ts_ops_bmm (ts_py_tensor_get (a), ts_py_tensor_get (b), &error), &error);
}

/* A reduction's dims from a tuple of ints (empty: all) into @dims; FALSE
 * with the Python error set */
static gboolean
parse_dims (PyObject *tuple,
            int      *dims,
            guint    *n_dims)
{
  Py_ssize_t n = PyTuple_GET_SIZE (tuple);

  if (n > TS_MAX_DIMS)
    {
      PyErr_Format (PyExc_RuntimeError, "too many dims");
      return FALSE;
    }
  for (Py_ssize_t i = 0; i < n; i++)
    dims[i] = (int) PyLong_AsLong (PyTuple_GET_ITEM (tuple, i));
  *n_dims = (guint) n;
  return !PyErr_Occurred ();
}

/* _reduce(name, self, dims, keepdim, dtype): a REDUCE op of the table by
 * its name over the dims of a tuple (empty: all) */
static PyObject *
py_reduce (PyObject *module,
           PyObject *args)
{
  const char *name;
  PyObject *self, *dims_obj, *dtype_obj;
  int keepdim;
  int dims[TS_MAX_DIMS];
  guint n;
  TsDType dtype;
  const TsOpDesc *desc;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "sOO!pO", &name, &self, &PyTuple_Type, &dims_obj, &keepdim, &dtype_obj))
    return NULL;
  desc = ts_op_lookup (name);
  if (desc == NULL || desc->family != TS_OP_FAMILY_REDUCE || !ts_py_is_tensor (self))
    return PyErr_Format (PyExc_TypeError, "_reduce(): no reduction %s over a tensor", name);
  if (!parse_dims (dims_obj, dims, &n) || !ts_py_parse_dtype (dtype_obj, &dtype))
    return NULL;
  return wrap_result (ts_ops_reduce (desc->id, ts_py_tensor_get (self), dims, n, keepdim, dtype, &error), &error);
}

/* _var(self, dims, correction, keepdim, std=False): torch.var (or
 * torch.std) over the dims of a tuple (empty: all), checked by
 * torch/_ops_more.py */
static PyObject *
py_var (PyObject *module,
        PyObject *args)
{
  PyObject *self, *dims_obj;
  double correction;
  int keepdim, take_sqrt = 0;
  int dims[TS_MAX_DIMS];
  guint n;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "OO!dp|p", &self, &PyTuple_Type, &dims_obj, &correction, &keepdim, &take_sqrt))
    return NULL;
  if (!ts_py_is_tensor (self))
    return PyErr_Format (PyExc_TypeError, "_var() takes a tensor");
  if (!parse_dims (dims_obj, dims, &n))
    return NULL;
  return wrap_result (ts_ops_var (ts_py_tensor_get (self), dims, n, correction, keepdim, take_sqrt, &error), &error);
}

/* _sort(name, self, dim, descending, start, n) -> (values, indices): the
 * SORT ops, cummax and cummin */
static PyObject *
py_sort (PyObject *module,
         PyObject *args)
{
  const char *name;
  PyObject *self;
  int dim, descending;
  long long start, n;
  const TsOpDesc *desc;
  TsTensor *values, *indices;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "sOipLL", &name, &self, &dim, &descending, &start, &n))
    return NULL;
  desc = ts_op_lookup (name);
  if (desc == NULL || (desc->family != TS_OP_FAMILY_SORT && desc->id != TS_OP_CUMMAX && desc->id != TS_OP_CUMMIN) ||
      !ts_py_is_tensor (self))
    return PyErr_Format (PyExc_TypeError, "_sort(): no sort op %s over a tensor", name);
  if (!ts_ops_sort (desc->id, ts_py_tensor_get (self), dim, descending, start, n, &values, &indices, &error))
    return ts_py_set_error (error);
  return Py_BuildValue ("(NN)", ts_py_tensor_wrap (values), ts_py_tensor_wrap (indices));
}

/* _scan(name, self, dim, dtype, out) */
static PyObject *
py_scan (PyObject *module,
         PyObject *args)
{
  const char *name;
  PyObject *self, *dtype_obj, *out;
  int dim;
  TsDType dtype;
  const TsOpDesc *desc;
  TsTensor *t;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "sOiOO", &name, &self, &dim, &dtype_obj, &out))
    return NULL;
  desc = ts_op_lookup (name);
  if (desc == NULL || desc->family != TS_OP_FAMILY_SCAN || !ts_py_is_tensor (self) ||
      (out != Py_None && !ts_py_is_tensor (out)))
    return PyErr_Format (PyExc_TypeError, "_scan(): no scan op %s over tensors", name);
  if (!ts_py_parse_dtype (dtype_obj, &dtype))
    return NULL;
  t = ts_ops_scan (desc->id, ts_py_tensor_get (self), dim, dtype,
                   out == Py_None ? NULL : ts_py_tensor_get (out), &error);
  return wrap_out (t, out, &error);
}

/* _scatter_(self, dim, index, src, add) -> self */
static PyObject *
py_scatter_ (PyObject *module,
             PyObject *args)
{
  PyObject *self, *index, *src;
  int dim, add;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "OiOOp", &self, &dim, &index, &src, &add))
    return NULL;
  if (!ts_py_is_tensor (self) || !ts_py_is_tensor (index) || !ts_py_is_tensor (src))
    return PyErr_Format (PyExc_TypeError, "_scatter_() takes tensors");
  if (!ts_ops_scatter_ (ts_py_tensor_get (self), dim, ts_py_tensor_get (index), ts_py_tensor_get (src), add,
                        &error))
    return ts_py_set_error (error);
  Py_INCREF (self);
  return self;
}

/* _scatter_launch(name, self, dim, index, src) -> self: index_add_ and
 * index_copy_, checked by the caller, index expanded to src's shape */
static PyObject *
py_scatter_launch (PyObject *module,
                   PyObject *args)
{
  const char *name;
  PyObject *self, *index, *src;
  int dim;
  const TsOpDesc *desc;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "sOiOO", &name, &self, &dim, &index, &src))
    return NULL;
  desc = ts_op_lookup (name);
  if (desc == NULL || desc->family != TS_OP_FAMILY_SCATTER ||
      !ts_py_is_tensor (self) || !ts_py_is_tensor (index) || !ts_py_is_tensor (src))
    return PyErr_Format (PyExc_TypeError, "_scatter_launch(): no scatter op %s over tensors", name);
  if (!ts_ops_scatter_launch (desc->id, ts_py_tensor_get (self), dim, ts_py_tensor_get (index),
                              ts_py_tensor_get (src), &error))
    return ts_py_set_error (error);
  Py_INCREF (self);
  return self;
}

static PyMethodDef shape_methods[] = {
  { "_scatter_launch", py_scatter_launch, METH_VARARGS, NULL },
  { "_scatter_", py_scatter_, METH_VARARGS, NULL },
  { "_sort", py_sort, METH_VARARGS, NULL },
  { "_scan", py_scan, METH_VARARGS, NULL },
  { "_reduce", py_reduce, METH_VARARGS, NULL },
  { "_triangle", py_triangle, METH_VARARGS, NULL },
  { "_flip", py_flip, METH_VARARGS, NULL },
  { "_cat", py_cat, METH_VARARGS, NULL },
  { "_var", py_var, METH_VARARGS, NULL },
  { "_bmm", py_bmm, METH_VARARGS, NULL },
  { NULL }
};

/* torch.Size's base (torch/__init__.py adds the rest in Python): a tuple
 * whose slices are Sizes too, as PyTorch's C Size type gives them. An
 * index is the tuple's own lookup without a Python frame: x.shape[0] is
 * in every model's forward, and a Python __getitem__ cost it 130 ns
 * against PyTorch's 27. */
static PyObject *
size_subscript (PyObject *self,
                PyObject *index)
{
  PyObject *item = PyTuple_Type.tp_as_mapping->mp_subscript (self, index);

  if (item != NULL && PySlice_Check (index))
    Py_SETREF (item, PyObject_CallOneArg ((PyObject *) Py_TYPE (self), item));
  return item;
}

static PyMappingMethods size_as_mapping = {
  .mp_subscript = size_subscript,
};

static PyTypeObject size_base_type = {
  PyVarObject_HEAD_INIT (NULL, 0)
  .tp_name = "torch._C._SizeBase",
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
  .tp_as_mapping = &size_as_mapping,
};

gboolean
ts_py_shape_register (PyObject *module)
{
  size_as_mapping.mp_length = PyTuple_Type.tp_as_mapping->mp_length;
  size_base_type.tp_base = &PyTuple_Type;
  if (PyType_Ready (&size_base_type) < 0)
    return FALSE;
  Py_INCREF (&size_base_type);
  if (PyModule_AddObject (module, "_SizeBase", (PyObject *) &size_base_type) < 0)
    return FALSE;
  return PyModule_AddFunctions (module, shape_methods) == 0;
}
