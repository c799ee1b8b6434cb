/* ts-py-conv.c: the binding of aten::convolution
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * torch/nn/_conv.py's private entry point: it parses F.conv*d's
 * arguments (ints, tuples, 'same' and 'valid') into aten::convolution's
 * int lists; this checks their lengths against the weight, as
 * _convolution's expand_param_if_needed does, then runs the op.
 */

#include "config.h"

#include "ts-ops-conv.h"
#include "ts-py-private.h"

/* @seq (a sequence of ints) into values[0..n): one value expands to all;
 * otherwise PyTorch's message naming @name */
static gboolean
parse_list (PyObject   *seq,
            const char *name,
            guint       n,
            gint64     *values)
{
  g_autoptr(GString) text = g_string_new ("[");
  PyObject *fast = PySequence_Fast (seq, "convolution: expected a list of ints");
  Py_ssize_t len;

  if (fast == NULL)
    return FALSE;
  len = PySequence_Fast_GET_SIZE (fast);
  for (Py_ssize_t i = 0; i < len; i++)
    {
      long long v = PyLong_AsLongLong (PySequence_Fast_GET_ITEM (fast, i));

      if (v == -1 && PyErr_Occurred ())
        {
          Py_DECREF (fast);
          return FALSE;
        }
      g_string_append_printf (text, "%s%lld", i ? ", " : "", v);
      if (i < TS_CONV_MAX_SPATIAL)
        values[i] = v;
    }
  Py_DECREF (fast);
  g_string_append_c (text, ']');
  if (len == 1)
    {
      for (guint i = 1; i < n; i++)
        values[i] = values[0];
      return TRUE;
    }
  if ((guint) len != n)
    {
      PyErr_Format (PyExc_RuntimeError, "expected %s to be a single integer value or a list of %u values to match "
                    "the convolution dimensions, but got %s=%s", name, n, name, text->str);
      return FALSE;
    }
  return TRUE;
}

/* _convolution(input, weight, bias, stride, padding, dilation, transposed,
 * output_padding, groups) */
static PyObject *
py_convolution (PyObject *module,
                PyObject *args)
{
  PyObject *input, *weight, *bias, *stride, *padding, *dilation, *output_padding;
  int transposed;
  long long groups;
  TsConvParams p = { 0 };
  TsTensor *w, *out;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "OOOOOOpOL", &input, &weight, &bias, &stride, &padding, &dilation, &transposed,
                         &output_padding, &groups))
    return NULL;
  if (!ts_py_is_tensor (input) || !ts_py_is_tensor (weight) || (bias != Py_None && !ts_py_is_tensor (bias)))
    return PyErr_Format (PyExc_TypeError, "_convolution() takes tensors");
  w = ts_py_tensor_get (weight);
  if (w->ndim < 3)
    return PyErr_Format (PyExc_RuntimeError, "weight should have at least three dimensions");
  if (w->ndim - 2 > TS_CONV_MAX_SPATIAL)
    return PyErr_Format (PyExc_RuntimeError, "convolutions over %u dims are not modeled yet", w->ndim - 2);
  p.n_spatial = w->ndim - 2;
  p.groups = groups;
  p.transposed = transposed;
  if (!parse_list (stride, "stride", p.n_spatial, p.stride) ||
      !parse_list (padding, "padding", p.n_spatial, p.padding) ||
      !parse_list (dilation, "dilation", p.n_spatial, p.dilation) ||
      !parse_list (output_padding, "output_padding", p.n_spatial, p.output_padding))
    return NULL;
  out = ts_ops_convolution (ts_py_tensor_get (input), w, bias == Py_None ? NULL : ts_py_tensor_get (bias), &p,
                            &error);
  if (out == NULL)
    return ts_py_set_error (error);
  return ts_py_tensor_wrap (out);
}

static PyMethodDef conv_methods[] = {
  { "_convolution", py_convolution, METH_VARARGS, NULL },
  { NULL }
};

gboolean
ts_py_conv_register (PyObject *module)
{
  return PyModule_AddFunctions (module, conv_methods) == 0;
}
