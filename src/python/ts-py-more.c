/* ts-py-more.c: torch._C's entry points of torch/_ops_more.py
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The integer draws of randint, random_ and randperm: the CPU generator's
 * raw 32/64-bit words, which no float fill exposes, reduced as PyTorch's
 * CPU kernels reduce them. where's launch. The float32 matmul precision (TF32 or not),
 * which the matmuls' cost reads.
 */

#include "config.h"

#include <string.h>

#include "ts-op-table.h"
#include "ts-ops.h"
#include "ts-py-private.h"
#include "ts-tensor.h"

/* _random_int_(name, self, from, range, generator_id) -> None */
static PyObject *
py_random_int_ (PyObject *module,
                PyObject *args)
{
  PyObject *self;
  const char *name;
  long long from;
  unsigned long long range;
  int gen_id;
  const TsOpDesc *desc;
  GError *error = NULL;

  if (!PyArg_ParseTuple (args, "sOLKi", &name, &self, &from, &range, &gen_id))
    return NULL;
  desc = ts_op_lookup (name);
  if (desc == NULL || desc->family != TS_OP_FAMILY_RANDOM || !ts_py_is_tensor (self))
    {
      PyErr_Format (PyExc_ValueError, "not a random integer op: %s", name);
      return NULL;
    }
  ts_py_update_callsite ();
  if (!ts_ops_random_int_ (ts_py_tensor_get (self), desc->id, from, range, gen_id, &error))
    return ts_py_set_error (error);
  Py_RETURN_NONE;
}

/* _set_float32_matmul_tf32(allow): torch.backends.cuda's matmul precision,
 * which the cost of float32 matmuls reads */
static PyObject *
py_set_float32_matmul_tf32 (PyObject *module,
                            PyObject *arg)
{
  int allow = PyObject_IsTrue (arg);

  if (allow < 0)
    return NULL;
  ts_ops_set_float32_matmul_tf32 (allow);
  Py_RETURN_NONE;
}

/* _where(condition, self, other) -> Tensor: three tensors, self and other
 * of one dtype (torch/_ops_more.py promotes them) */
static PyObject *
py_where (PyObject *module,
          PyObject *args)
{
  PyObject *objs[3];
  GError *error = NULL;
  TsTensor *out;

  if (!PyArg_ParseTuple (args, "OOO", &objs[0], &objs[1], &objs[2]))
    return NULL;
  for (guint i = 0; i < 3; i++)
    if (!ts_py_is_tensor (objs[i]))
      {
        PyErr_SetString (PyExc_TypeError, "where(): expected Tensors");
        return NULL;
      }
  ts_py_update_callsite ();
  out = ts_ops_where (ts_py_tensor_get (objs[0]), ts_py_tensor_get (objs[1]), ts_py_tensor_get (objs[2]),
                      &error);
  return out ? ts_py_tensor_wrap (out) : ts_py_set_error (error);
}

/* n int64s from a sequence of Python ints */
static gboolean
parse_int64s (PyObject *seq,
              gint64   *out,
              guint     n)
{
  PyObject *fast = PySequence_Fast (seq, "expected a sequence of ints");
  gboolean ok = fast != NULL;

  if (ok && (guint) PySequence_Fast_GET_SIZE (fast) != n)
    {
      PyErr_SetString (PyExc_ValueError, "shape and strides differ in length");
      ok = FALSE;
    }
  for (guint i = 0; ok && i < n; i++)
    {
      out[i] = PyLong_AsLongLong (PySequence_Fast_GET_ITEM (fast, i));
      ok = !(out[i] == -1 && PyErr_Occurred ());
    }
  Py_XDECREF (fast);
  return ok;
}

/* _view_dtype(self, dtype, shape, strides, offset) -> Tensor: self's
 * storage seen as dtype (Tensor.view(dtype); torch/_ops_more.py checks
 * and computes the geometry in elements of dtype) */
static PyObject *
py_view_dtype (PyObject *module,
               PyObject *args)
{
  PyObject *self, *dtype_obj, *shape_obj, *strides_obj;
  gint64 shape[TS_MAX_DIMS], strides[TS_MAX_DIMS];
  long long offset;
  Py_ssize_t ndim;
  TsDType dtype;
  TsTensor *t;

  if (!PyArg_ParseTuple (args, "OOOOL", &self, &dtype_obj, &shape_obj, &strides_obj, &offset))
    return NULL;
  if (!ts_py_is_tensor (self) || !ts_py_parse_dtype (dtype_obj, &dtype))
    {
      PyErr_SetString (PyExc_TypeError, "_view_dtype(): expected a Tensor and a dtype");
      return NULL;
    }
  t = ts_py_tensor_get (self);
  ndim = PySequence_Size (shape_obj);
  if (ndim < 0 || ndim > TS_MAX_DIMS || !parse_int64s (shape_obj, shape, (guint) ndim) ||
      !parse_int64s (strides_obj, strides, (guint) ndim))
    {
      if (!PyErr_Occurred ())
        PyErr_SetString (PyExc_ValueError, "_view_dtype(): too many dims");
      return NULL;
    }
  return ts_py_tensor_wrap (ts_tensor_new_view (t->storage, dtype, (guint) ndim, shape, strides, offset));
}

/* _ternary(name, self, a, b or None, scalar, inplace=False) -> Tensor: lerp
 * (end, weight or None with the number weight), addcmul and addcdiv
 * (tensor1, tensor2, value); inplace writes self */
static PyObject *
py_ternary (PyObject *module,
            PyObject *args)
{
  PyObject *self, *a, *b;
  const char *name;
  const TsOpDesc *desc;
  double scalar;
  int inplace = 0;
  GError *error = NULL;
  TsTensor *out;

  if (!PyArg_ParseTuple (args, "sOOOd|p", &name, &self, &a, &b, &scalar, &inplace))
    return NULL;
  /* by name without ts_op_lookup's scan of the table: a hot path */
  desc = strcmp (name, "lerp") == 0 ? ts_op_get (TS_OP_LERP)
       : strcmp (name, "addcmul") == 0 ? ts_op_get (TS_OP_ADDCMUL)
       : strcmp (name, "addcdiv") == 0 ? ts_op_get (TS_OP_ADDCDIV) : NULL;
  if (desc == NULL || !ts_py_is_tensor (self) || !ts_py_is_tensor (a) || (b != Py_None && !ts_py_is_tensor (b)))
    {
      PyErr_Format (PyExc_ValueError, "_ternary(): not a ternary op or not tensors: %s", name);
      return NULL;
    }
  ts_py_update_callsite ();
  out = ts_ops_ternary (desc->id, ts_py_tensor_get (self), ts_py_tensor_get (a),
                        b == Py_None ? NULL : ts_py_tensor_get (b), scalar, inplace, &error);
  return out ? ts_py_tensor_wrap (out) : ts_py_set_error (error);
}

/* _plain_dtype(*operands): their dtype when all are dimensioned tensors
 * of one dtype, the common case with nothing to promote, wrap or move,
 * else None (torch/_ops_more.py; in C because elementwise ops ask it on
 * every call) */
static PyObject *
py_plain_dtype (PyObject         *module,
                PyObject * const *args,
                Py_ssize_t        n_args)
{
  TsDType dtype = TS_DTYPE_UNDEFINED;

  if (n_args == 0)
    Py_RETURN_NONE;
  for (Py_ssize_t i = 0; i < n_args; i++)
    {
      const TsTensor *t;

      if (!ts_py_is_tensor (args[i]))
        Py_RETURN_NONE;
      t = ts_py_tensor_get (args[i]);
      if (t->ndim == 0 || (i > 0 && t->dtype != dtype))
        Py_RETURN_NONE;
      dtype = t->dtype;
    }
  return ts_py_dtype_object (dtype);
}

/* A Python int or float, not a bool: a bound clamp's one launch takes */
static gboolean
parse_bound (PyObject *obj,
             double   *value)
{
  if (PyFloat_CheckExact (obj))
    *value = PyFloat_AS_DOUBLE (obj);
  else if (PyLong_CheckExact (obj))
    {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow (obj, &overflow);

      if (overflow != 0 || (v == -1 && PyErr_Occurred ()))
        {
          PyErr_Clear ();
          return FALSE;
        }
      *value = (double) v;
    }
  else
    return FALSE;
  return TRUE;
}

/* _clamp(self, min, max) -> Tensor or None: torch.clamp with number
 * bounds (one may be None) on a float32 or float64 tensor as one launch;
 * None tells torch/__init__.py to compose clamp_min and clamp_max. As in
 * PyTorch 1.13, an element equal to a bound stays (clamp(-0.0, min=0) is
 * -0.0), a NaN bound beside another fills NaN, and a lone NaN bound
 * leaves the elements as they are (its kernel is max (bound, x), which
 * answers x when either is NaN). */
static PyObject *
py_clamp (PyObject *module,
          PyObject *const *args,
          Py_ssize_t nargs)
{
  GError *error = NULL;
  TsTensor *self, *out;
  double min, max;

  if (nargs != 3 || !ts_py_is_tensor (args[0]) || (args[1] == Py_None && args[2] == Py_None) ||
      (args[1] != Py_None && !parse_bound (args[1], &min)) || (args[2] != Py_None && !parse_bound (args[2], &max)))
    Py_RETURN_NONE;
  if (args[1] == Py_None)
    {
      min = -INFINITY;
      max = isnan (max) ? INFINITY : max;
    }
  else if (args[2] == Py_None)
    {
      max = INFINITY;
      min = isnan (min) ? -INFINITY : min;
    }
  self = ts_py_tensor_get (args[0]);
  if (self->dtype != TS_DTYPE_FLOAT32 && self->dtype != TS_DTYPE_FLOAT64)
    Py_RETURN_NONE;
  ts_py_update_callsite ();
  out = ts_ops_clamp (self, min, max, &error);
  return out ? ts_py_tensor_wrap (out) : ts_py_set_error (error);
}

/* _mv(self, vec) -> Tensor: checked by torch/_ops_more.py */
static PyObject *
py_mv (PyObject *module,
       PyObject *args)
{
  PyObject *self, *vec;
  GError *error = NULL;
  TsTensor *out;

  if (!PyArg_ParseTuple (args, "OO", &self, &vec))
    return NULL;
  if (!ts_py_is_tensor (self) || !ts_py_is_tensor (vec))
    {
      PyErr_SetString (PyExc_TypeError, "_mv(): expected Tensors");
      return NULL;
    }
  ts_py_update_callsite ();
  out = ts_ops_mv (ts_py_tensor_get (self), ts_py_tensor_get (vec), &error);
  return out ? ts_py_tensor_wrap (out) : ts_py_set_error (error);
}

/* _addmm(self, mat1, mat2, beta, alpha) -> Tensor: torch.addmm and
 * F.linear (torch/_ops_more.py, torch/nn/functional.py) check the ranks */
static PyObject *
py_addmm (PyObject *module,
          PyObject *args)
{
  PyObject *self, *mat1, *mat2;
  double beta, alpha;
  GError *error = NULL;
  TsTensor *out;

  if (!PyArg_ParseTuple (args, "OOOdd", &self, &mat1, &mat2, &beta, &alpha))
    return NULL;
  if (!ts_py_is_tensor (self) || !ts_py_is_tensor (mat1) || !ts_py_is_tensor (mat2) ||
      ts_py_tensor_get (mat1)->ndim != 2 || ts_py_tensor_get (mat2)->ndim != 2)
    {
      PyErr_SetString (PyExc_TypeError, "_addmm(): expected a Tensor and two matrices");
      return NULL;
    }
  ts_py_update_callsite ();
  out = ts_ops_addmm (ts_py_tensor_get (self), ts_py_tensor_get (mat1), ts_py_tensor_get (mat2), beta, alpha,
                      &error);
  return out ? ts_py_tensor_wrap (out) : ts_py_set_error (error);
}

/* _add_alpha(self, other, alpha, subtract, dest) -> Tensor or None
 * (dest: False, True for in place, or an out= tensor):
 * Tensor.add/sub(other, alpha=) as one launch where ts_ops_binary_alpha
 * applies; None tells torch/__init__.py to compose other * alpha */
static PyObject *
py_add_alpha (PyObject *module,
              PyObject *args)
{
  PyObject *self, *other, *dest;
  double alpha;
  int subtract;
  GError *error = NULL;
  TsTensor *a, *out;

  if (!PyArg_ParseTuple (args, "OOdpO", &self, &other, &alpha, &subtract, &dest))
    return NULL;
  if (!ts_py_is_tensor (self) || !ts_py_is_tensor (other))
    Py_RETURN_NONE;
  a = ts_py_tensor_get (self);
  /* the destination: True for self (in place), a tensor for out= */
  if (dest == Py_True)
    dest = self;
  else if (!ts_py_is_tensor (dest))
    dest = NULL;
  ts_py_update_callsite ();
  out = ts_ops_binary_alpha (subtract ? TS_BINARY_SUB : TS_BINARY_ADD, a, ts_py_tensor_get (other), alpha,
                             dest != NULL ? ts_py_tensor_get (dest) : NULL, &error);
  if (out == NULL && error == NULL)
    Py_RETURN_NONE;
  if (out == NULL)
    return ts_py_set_error (error);
  if (dest != NULL)
    {
      ts_tensor_unref (out);
      return Py_NewRef (dest);
    }
  return ts_py_tensor_wrap (out);
}

static PyMethodDef more_methods[] = {
  { "_add_alpha", py_add_alpha, METH_VARARGS, NULL },
  { "_clamp", (PyCFunction) (void (*) (void)) py_clamp, METH_FASTCALL, NULL },
  { "_addmm", py_addmm, METH_VARARGS, NULL },
  { "_mv", py_mv, METH_VARARGS, NULL },
  { "_ternary", py_ternary, METH_VARARGS, NULL },
  { "_plain_dtype", (PyCFunction) (void (*) (void)) py_plain_dtype, METH_FASTCALL, NULL },
  { "_view_dtype", py_view_dtype, METH_VARARGS, NULL },
  { "_where", py_where, METH_VARARGS, NULL },
  { "_random_int_", py_random_int_, METH_VARARGS, NULL },
  { "_set_float32_matmul_tf32", py_set_float32_matmul_tf32, METH_O, NULL },
  { NULL }
};

gboolean
ts_py_more_register (PyObject *module)
{
  return PyModule_AddFunctions (module, more_methods) == 0;
}
