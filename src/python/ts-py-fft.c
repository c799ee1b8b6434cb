/* ts-py-fft.c: torch._C's entry points of torch/fft.py and of
 * torch.backends.cuda.cufft_plan_cache
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ts-ops-fft.h"
#include "ts-py-private.h"

/* _fft(kind, self, dims, normalization, flag, last_dim_size) -> Tensor:
 * kind 0 _fft_c2c (flag: forward), 1 _fft_r2c (flag: onesided), 2
 * _fft_c2r; normalization is PyTorch's fft_norm_mode */
static PyObject *
py_fft (PyObject *module,
        PyObject *args)
{
  PyObject *self, *dims_obj;
  int kind, norm, flag;
  long long last_dim_size;
  int dims[TS_MAX_DIMS];
  Py_ssize_t n_dims;
  GError *error = NULL;
  TsTensor *out;

  if (!PyArg_ParseTuple (args, "iOO!ipL", &kind, &self, &PyTuple_Type, &dims_obj, &norm, &flag, &last_dim_size))
    return NULL;
  n_dims = PyTuple_GET_SIZE (dims_obj);
  if (!ts_py_is_tensor (self) || kind < TS_FFT_C2C || kind > TS_FFT_C2R || norm < TS_FFT_NORM_NONE ||
      norm > TS_FFT_NORM_BY_N || n_dims > TS_MAX_DIMS)
    {
      PyErr_SetString (PyExc_ValueError, "_fft(): bad arguments");
      return NULL;
    }
  for (Py_ssize_t i = 0; i < n_dims; i++)
    {
      dims[i] = (int) PyLong_AsLong (PyTuple_GET_ITEM (dims_obj, i));
      if (PyErr_Occurred ())
        return NULL;
    }
  ts_py_update_callsite ();
  out = ts_ops_fft (kind, ts_py_tensor_get (self), dims, (guint) n_dims, norm, flag, last_dim_size, &error);
  if (out == NULL)
    return ts_py_set_error (error);
  return ts_py_tensor_wrap (out);
}

/* _cufft_plan_cache(device, what[, value]): what is "size", "max_size",
 * "set_max_size", "clear" or "created" */
static PyObject *
py_cufft_plan_cache (PyObject *module,
                     PyObject *args)
{
  int device;
  const char *what;
  long long value = 0;
  GError *error = NULL;

  if (!PyArg_ParseTuple (args, "is|L", &device, &what, &value))
    return NULL;
  if (g_str_equal (what, "size"))
    return PyLong_FromLongLong (ts_ops_fft_plan_cache_size (device));
  if (g_str_equal (what, "max_size"))
    return PyLong_FromLongLong (ts_ops_fft_plan_cache_max_size (device));
  if (g_str_equal (what, "created"))
    return PyLong_FromLongLong (ts_ops_fft_plans_created (device));
  if (g_str_equal (what, "set_max_size"))
    {
      if (!ts_ops_fft_plan_cache_set_max_size (device, value, &error))
        return ts_py_set_error (error);
      Py_RETURN_NONE;
    }
  if (g_str_equal (what, "clear"))
    {
      ts_ops_fft_plan_cache_clear (device);
      Py_RETURN_NONE;
    }
  PyErr_Format (PyExc_ValueError, "_cufft_plan_cache(): unknown request %s", what);
  return NULL;
}

static PyMethodDef fft_methods[] = {
  { "_fft", py_fft, METH_VARARGS, NULL },
  { "_cufft_plan_cache", py_cufft_plan_cache, METH_VARARGS, NULL },
  { NULL, NULL, 0, NULL },
};

gboolean
ts_py_fft_register (PyObject *module)
{
  return PyModule_AddFunctions (module, fft_methods) == 0;
}
