/* ts-py-pool.c: torch._C's pooling and batch norm entry points
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * torch/nn/_pooling.py and _normalization.py check the arguments with
 * PyTorch's messages and compute the output sizes; these run the ops.
 */

#include "config.h"

#include "ts-ops-act.h"
#include "ts-ops-loss.h"
#include "ts-ops-norm.h"
#include "ts-ops-pool.h"
#include "ts-py-private.h"

static TsTensor *
tensor_or_none (PyObject *obj)
{
  return obj == Py_None ? NULL : ts_py_tensor_get (obj);
}

/* A native norm's tensors: the input, then optional ones (None or a
 * tensor); FALSE with a TypeError naming the op otherwise. */
static gboolean
input_and_optionals (PyObject   **objs,
                     guint        n,
                     const char  *op)
{
  for (guint i = 0; i < n; i++)
    if ((i == 0 || objs[i] != Py_None) && !ts_py_is_tensor (objs[i]))
      {
        PyErr_Format (PyExc_TypeError, "%s: expected Tensors", op);
        return FALSE;
      }
  return TRUE;
}

static PyObject *
wrap_or_none (TsTensor *t)
{
  if (t == NULL)
    Py_RETURN_NONE;
  return ts_py_tensor_wrap (t);
}

/* _pool2d(kind, self, (kh, kw, sh, sw, ph, pw, dh, dw), count_include_pad,
 * divisor, oh, ow) -> (out, indices or None) */
static PyObject *
py_pool2d (PyObject *module,
           PyObject *args)
{
  PyObject *self;
  int kind, count_include_pad;
  long long divisor, oh, ow;
  TsPool2d p = { 0 };
  TsTensor *out = NULL, *indices = NULL;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "iO(iiiiiiii)pLLL", &kind, &self, &p.kh, &p.kw, &p.sh, &p.sw, &p.ph, &p.pw,
                         &p.dh, &p.dw, &count_include_pad, &divisor, &oh, &ow))
    return NULL;
  if (!ts_py_is_tensor (self) || kind < TS_POOL_MAX || kind > TS_POOL_ADAPTIVE_MAX)
    {
      PyErr_SetString (PyExc_TypeError, "_pool2d: expected a pooling kind and a Tensor");
      return NULL;
    }
  p.count_include_pad = count_include_pad;
  p.divisor = divisor;
  if (!ts_ops_pool2d (kind, ts_py_tensor_get (self), &p, oh, ow, &out, &indices, &error))
    return ts_py_set_error (error);
  return Py_BuildValue ("(NN)", ts_py_tensor_wrap (out), wrap_or_none (indices));
}

/* _native_batch_norm(input, weight, bias, running_mean, running_var,
 * training, momentum, eps) -> (out, stats (2, C): mean, invstd) */
static PyObject *
py_native_batch_norm (PyObject *module,
                      PyObject *args)
{
  PyObject *objs[5];
  int training;
  double momentum, eps;
  TsTensor *out = NULL, *stats = NULL;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "OOOOOpdd", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &training,
                         &momentum, &eps) ||
      !input_and_optionals (objs, G_N_ELEMENTS (objs), "_native_batch_norm"))
    return NULL;
  if (!ts_ops_native_batch_norm (ts_py_tensor_get (objs[0]), tensor_or_none (objs[1]), tensor_or_none (objs[2]),
                                 tensor_or_none (objs[3]), tensor_or_none (objs[4]), training, momentum, eps,
                                 &out, &stats, &error))
    return ts_py_set_error (error);
  return Py_BuildValue ("(NN)", ts_py_tensor_wrap (out), ts_py_tensor_wrap (stats));
}

/* _remap(mode, self, pads, scales, shape, value[, align_corners]) -> Tensor:
 * pads and scales per remapped trailing dim (len(pads) of them), shape the
 * output's */
static PyObject *
py_remap (PyObject *module,
          PyObject *args)
{
  PyObject *self, *pads, *scales, *shape;
  int mode, align_corners = 0;
  double value;
  TsRemap r = { .k = 0 };
  gint64 out_shape[TS_MAX_DIMS];
  TsTensor *t, *out;
  GError *error = NULL;
  Py_ssize_t n;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "iOO!O!O!d|p", &mode, &self, &PyTuple_Type, &pads, &PyTuple_Type, &scales,
                         &PyTuple_Type, &shape, &value, &align_corners))
    return NULL;
  if (!ts_py_is_tensor (self) || mode < TS_REMAP_CONSTANT || mode > TS_REMAP_PIXEL_SHUFFLE ||
      (mode == TS_REMAP_CUBIC && PyTuple_GET_SIZE (pads) != 2) ||
      (mode == TS_REMAP_LINEAR && PyTuple_GET_SIZE (pads) != 1 && PyTuple_GET_SIZE (pads) != 2))
    {
      PyErr_SetString (PyExc_TypeError, "_remap: expected a remap mode and a Tensor");
      return NULL;
    }
  t = ts_py_tensor_get (self);
  n = PyTuple_GET_SIZE (pads);
  if (n > TS_REMAP_MAX_DIMS || n > (Py_ssize_t) t->ndim || PyTuple_GET_SIZE (scales) != n ||
      PyTuple_GET_SIZE (shape) != (Py_ssize_t) t->ndim)
    {
      PyErr_SetString (PyExc_ValueError, "_remap: bad pads, scales or shape");
      return NULL;
    }
  r.k = (guint) n;
  r.align_corners = align_corners;
  for (Py_ssize_t i = 0; i < n; i++)
    {
      r.pads[i] = PyLong_AsLongLong (PyTuple_GET_ITEM (pads, i));
      r.scales[i] = (float) PyFloat_AsDouble (PyTuple_GET_ITEM (scales, i));
    }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE (shape); i++)
    out_shape[i] = PyLong_AsLongLong (PyTuple_GET_ITEM (shape, i));
  if (PyErr_Occurred ())
    return NULL;
  out = ts_ops_remap (mode, t, &r, out_shape, value, &error);
  return out ? ts_py_tensor_wrap (out) : ts_py_set_error (error);
}

/* _native_group_norm(input, weight, bias, groups, eps) -> (out, stats) */
static PyObject *
py_native_group_norm (PyObject *module,
                      PyObject *args)
{
  PyObject *objs[3];
  int groups;
  double eps;
  TsTensor *out = NULL, *stats = NULL;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "OOOid", &objs[0], &objs[1], &objs[2], &groups, &eps) ||
      !input_and_optionals (objs, G_N_ELEMENTS (objs), "_native_group_norm"))
    return NULL;
  if (!ts_ops_native_group_norm (ts_py_tensor_get (objs[0]), tensor_or_none (objs[1]), tensor_or_none (objs[2]),
                                 groups, eps, &out, &stats, &error))
    return ts_py_set_error (error);
  return Py_BuildValue ("(NN)", ts_py_tensor_wrap (out), ts_py_tensor_wrap (stats));
}

/* _native_layer_norm(input, n_normalized, weight, bias, eps) ->
 * (out, mean, rstd): torch/nn/functional.py checks the shapes */
static PyObject *
py_native_layer_norm (PyObject *module,
                      PyObject *args)
{
  PyObject *objs[3];
  unsigned int n_normalized;
  double eps;
  TsTensor *out = NULL, *mean = NULL, *rstd = NULL;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "OIOOd", &objs[0], &n_normalized, &objs[1], &objs[2], &eps) ||
      !input_and_optionals (objs, G_N_ELEMENTS (objs), "_native_layer_norm"))
    return NULL;
  if (n_normalized > ts_py_tensor_get (objs[0])->ndim)
    {
      PyErr_SetString (PyExc_ValueError, "_native_layer_norm(): more normalized dims than the input has");
      return NULL;
    }
  if (!ts_ops_native_layer_norm (ts_py_tensor_get (objs[0]), n_normalized, tensor_or_none (objs[1]),
                                 tensor_or_none (objs[2]), eps, &out, &mean, &rstd, &error))
    return ts_py_set_error (error);
  return Py_BuildValue ("(NNN)", ts_py_tensor_wrap (out), ts_py_tensor_wrap (mean), ts_py_tensor_wrap (rstd));
}

/* _activation(name, self, p0, p1, flag) -> Tensor: an ACT op by name */
static PyObject *
py_activation (PyObject *module,
               PyObject *args)
{
  PyObject *self;
  const char *name;
  int flag;
  TsAct a;
  TsTensor *out;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "sOddp", &name, &self, &a.p0, &a.p1, &flag))
    return NULL;
  if (!ts_py_is_tensor (self))
    {
      PyErr_SetString (PyExc_TypeError, "_activation: expected a Tensor");
      return NULL;
    }
  a.flag = flag;
  out = ts_ops_activation (name, ts_py_tensor_get (self), &a, &error);
  return out ? ts_py_tensor_wrap (out) : ts_py_set_error (error);
}

/* _prelu(self, weight) -> Tensor */
static PyObject *
py_prelu (PyObject *module,
          PyObject *args)
{
  PyObject *self, *weight;
  TsTensor *out;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "OO", &self, &weight))
    return NULL;
  if (!ts_py_is_tensor (self) || !ts_py_is_tensor (weight))
    {
      PyErr_SetString (PyExc_TypeError, "_prelu: expected Tensors");
      return NULL;
    }
  out = ts_ops_prelu (ts_py_tensor_get (self), ts_py_tensor_get (weight), &error);
  return out ? ts_py_tensor_wrap (out) : ts_py_set_error (error);
}

/* _glu(self, dim) -> Tensor (dim wrapped, its size even) */
static PyObject *
py_glu (PyObject *module,
        PyObject *args)
{
  PyObject *self;
  int dim;
  TsTensor *out;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "Oi", &self, &dim))
    return NULL;
  if (!ts_py_is_tensor (self) || dim < 0 || (guint) dim >= ts_py_tensor_get (self)->ndim)
    {
      PyErr_SetString (PyExc_TypeError, "_glu: expected a Tensor and one of its dims");
      return NULL;
    }
  out = ts_ops_glu (ts_py_tensor_get (self), dim, &error);
  return out ? ts_py_tensor_wrap (out) : ts_py_set_error (error);
}

/* _nll_loss(self, target, weight, reduction, ignore_index) ->
 * (output, total_weight): nll_loss_forward, or nll_loss2d_forward for a
 * 4-d self */
static PyObject *
py_nll_loss (PyObject *module,
             PyObject *args)
{
  PyObject *self, *target, *weight;
  int reduction;
  long long ignore_index;
  TsTensor *out, *total_weight;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "OOOiL", &self, &target, &weight, &reduction, &ignore_index))
    return NULL;
  if (!ts_py_is_tensor (self) || !ts_py_is_tensor (target) || (weight != Py_None && !ts_py_is_tensor (weight)))
    {
      PyErr_SetString (PyExc_TypeError, "_nll_loss: expected Tensors");
      return NULL;
    }
  if (reduction < TS_REDUCTION_NONE || reduction > TS_REDUCTION_SUM)
    {
      PyErr_Format (PyExc_ValueError, "%d is not a valid value for reduction", reduction);
      return NULL;
    }
  if (!ts_ops_nll_loss (ts_py_tensor_get (self), ts_py_tensor_get (target), tensor_or_none (weight),
                        (TsReduction) reduction, ignore_index, &out, &total_weight, &error))
    return ts_py_set_error (error);
  return Py_BuildValue ("(NN)", ts_py_tensor_wrap (out), ts_py_tensor_wrap (total_weight));
}

static PyMethodDef pool_methods[] = {
  { "_nll_loss", py_nll_loss, METH_VARARGS, NULL },
  { "_glu", py_glu, METH_VARARGS, NULL },
  { "_prelu", py_prelu, METH_VARARGS, NULL },
  { "_activation", py_activation, METH_VARARGS, NULL },
  { "_native_group_norm", py_native_group_norm, METH_VARARGS, NULL },
  { "_native_layer_norm", py_native_layer_norm, METH_VARARGS, NULL },
  { "_remap", py_remap, METH_VARARGS, NULL },
  { "_pool2d", py_pool2d, METH_VARARGS, NULL },
  { "_native_batch_norm", py_native_batch_norm, METH_VARARGS, NULL },
  { NULL }
};

gboolean
ts_py_pool_register (PyObject *module)
{
  return PyModule_AddFunctions (module, pool_methods) == 0;
}
