/* ts-py-amp.c: torch._C's autocast state (torch.amp)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The state is the core's (ts-autocast.c: per thread, per device type);
 * torch/amp/autocast_mode.py builds torch.autocast on these.
 */

#include "config.h"

#include "ts-autocast.h"
#include "ts-ops-amp.h"
#include "ts-py-private.h"

/* device_type "cuda" or "cpu" */
static gboolean
parse_device_type (PyObject         *obj,
                   TsAutocastDevice *device)
{
  const char *s = PyUnicode_Check (obj) ? PyUnicode_AsUTF8 (obj) : NULL;

  if (s != NULL && g_str_equal (s, "cuda"))
    *device = TS_AUTOCAST_CUDA;
  else if (s != NULL && g_str_equal (s, "cpu"))
    *device = TS_AUTOCAST_CPU;
  else
    {
      PyErr_SetString (PyExc_RuntimeError, "User specified autocast device_type must be 'cuda' or 'cpu'");
      return FALSE;
    }
  return TRUE;
}

static PyObject *
py_is_enabled (PyObject *m, PyObject *arg)
{
  TsAutocastDevice device;

  if (!parse_device_type (arg, &device))
    return NULL;
  return PyBool_FromLong (ts_autocast_is_enabled (device));
}

/* one call for the question every autocast-aware op asks first */
static PyObject *
py_any_enabled (PyObject *m, PyObject *unused)
{
  return PyBool_FromLong (ts_autocast_is_enabled (TS_AUTOCAST_CUDA) || ts_autocast_is_enabled (TS_AUTOCAST_CPU));
}

static PyObject *
py_set_enabled (PyObject *m, PyObject *args)
{
  PyObject *type;
  int enabled;
  TsAutocastDevice device;

  if (!PyArg_ParseTuple (args, "Op", &type, &enabled) || !parse_device_type (type, &device))
    return NULL;
  ts_autocast_set_enabled (device, enabled);
  Py_RETURN_NONE;
}

static PyObject *
py_get_dtype (PyObject *m, PyObject *arg)
{
  TsAutocastDevice device;

  if (!parse_device_type (arg, &device))
    return NULL;
  return ts_py_dtype_object (ts_autocast_get_dtype (device));
}

static PyObject *
py_set_dtype (PyObject *m, PyObject *args)
{
  PyObject *type, *dtype_obj;
  TsAutocastDevice device;
  TsDType dtype;

  if (!PyArg_ParseTuple (args, "OO", &type, &dtype_obj) || !parse_device_type (type, &device) ||
      !ts_py_parse_dtype (dtype_obj, &dtype))
    return NULL;
  if (device == TS_AUTOCAST_CPU && dtype != TS_DTYPE_BFLOAT16)
    {
      PyErr_SetString (PyExc_RuntimeError, "Currently, AutocastCPU only support Bfloat16 as the autocast_cpu_dtype");
      return NULL;
    }
  ts_autocast_set_dtype (device, dtype);
  Py_RETURN_NONE;
}

static PyObject *
py_is_cache_enabled (PyObject *m, PyObject *unused)
{
  return PyBool_FromLong (ts_autocast_is_cache_enabled ());
}

static PyObject *
py_set_cache_enabled (PyObject *m, PyObject *arg)
{
  int enabled = PyObject_IsTrue (arg);

  if (enabled < 0)
    return NULL;
  ts_autocast_set_cache_enabled (enabled);
  Py_RETURN_NONE;
}

static PyObject *
py_increment_nesting (PyObject *m, PyObject *unused)
{
  return PyLong_FromLong (ts_autocast_increment_nesting ());
}

static PyObject *
py_decrement_nesting (PyObject *m, PyObject *unused)
{
  return PyLong_FromLong (ts_autocast_decrement_nesting ());
}

static PyObject *
py_clear_cache (PyObject *m, PyObject *unused)
{
  ts_autocast_clear_cache ();
  Py_RETURN_NONE;
}

static PyObject *
py_set_excluded (PyObject *m, PyObject *arg)
{
  int excluded = PyObject_IsTrue (arg);

  if (excluded < 0)
    return NULL;
  return PyBool_FromLong (ts_autocast_set_excluded (excluded));
}

static PyObject *
py_cast (PyObject *m, PyObject *args)
{
  PyObject *tensor, *type, *dtype_obj;
  TsAutocastDevice device;
  TsDType dtype;
  GError *error = NULL;
  TsTensor *out;

  if (!PyArg_ParseTuple (args, "OOO", &tensor, &type, &dtype_obj) || !parse_device_type (type, &device) ||
      !ts_py_parse_dtype (dtype_obj, &dtype))
    return NULL;
  if (!ts_py_is_tensor (tensor))
    return Py_NewRef (tensor);
  ts_py_update_callsite ();
  out = ts_autocast_cast (ts_py_tensor_get (tensor), device, dtype, &error);
  if (out == NULL)
    return ts_py_set_error (error);
  if (out == ts_py_tensor_get (tensor))
    {
      ts_tensor_unref (out);
      return Py_NewRef (tensor);
    }
  return ts_py_tensor_wrap (out);
}

/* torch._amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale) */
static PyObject *
py_amp_unscale (PyObject *m, PyObject *args)
{
  PyObject *list, *found_inf, *inv_scale;
  g_autoptr(GPtrArray) grads = g_ptr_array_new ();
  PyObject *seq;
  GError *error = NULL;
  gboolean ok;

  if (!PyArg_ParseTuple (args, "OOO", &list, &found_inf, &inv_scale))
    return NULL;
  seq = PySequence_Fast (list, "_amp_foreach_non_finite_check_and_unscale_(): self must be a list of tensors");
  if (seq == NULL)
    return NULL;
  /* the list keeps its tensors alive while the ops run */
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE (seq); i++)
    {
      PyObject *item = PySequence_Fast_GET_ITEM (seq, i);

      if (!ts_py_is_tensor (item))
        {
          Py_DECREF (seq);
          PyErr_SetString (PyExc_TypeError, "_amp_foreach_non_finite_check_and_unscale_(): self must be a list of tensors");
          return NULL;
        }
      g_ptr_array_add (grads, ts_py_tensor_get (item));
    }
  if (!ts_py_is_tensor (found_inf) || !ts_py_is_tensor (inv_scale))
    {
      Py_DECREF (seq);
      PyErr_SetString (PyExc_TypeError, "_amp_foreach_non_finite_check_and_unscale_(): found_inf and inv_scale must be tensors");
      return NULL;
    }
  ts_py_update_callsite ();
  ok = ts_ops_amp_unscale_ ((TsTensor *const *) grads->pdata, grads->len, ts_py_tensor_get (found_inf),
                            ts_py_tensor_get (inv_scale), &error);
  Py_DECREF (seq);
  if (!ok)
    return ts_py_set_error (error);
  Py_RETURN_NONE;
}

/* torch._amp_update_scale_(self, growth_tracker, found_inf, growth, backoff, interval) -> self */
static PyObject *
py_amp_update_scale (PyObject *m, PyObject *args)
{
  PyObject *scale, *tracker, *found_inf;
  double growth, backoff;
  long long interval;
  GError *error = NULL;

  if (!PyArg_ParseTuple (args, "OOOddL", &scale, &tracker, &found_inf, &growth, &backoff, &interval))
    return NULL;
  if (!ts_py_is_tensor (scale) || !ts_py_is_tensor (tracker) || !ts_py_is_tensor (found_inf))
    {
      PyErr_SetString (PyExc_TypeError, "_amp_update_scale_(): self, growth_tracker and found_inf must be tensors");
      return NULL;
    }
  ts_py_update_callsite ();
  if (!ts_ops_amp_update_scale_ (ts_py_tensor_get (scale), ts_py_tensor_get (tracker), ts_py_tensor_get (found_inf),
                                 growth, backoff, interval, &error))
    return ts_py_set_error (error);
  return Py_NewRef (scale);
}

static PyMethodDef amp_methods[] = {
  { "_amp_foreach_non_finite_check_and_unscale_", py_amp_unscale, METH_VARARGS, NULL },
  { "_amp_update_scale_", py_amp_update_scale, METH_VARARGS, NULL },
  { "_autocast_cast", py_cast, METH_VARARGS, NULL },
  { "_autocast_is_enabled", py_is_enabled, METH_O, NULL },
  { "_autocast_any_enabled", py_any_enabled, METH_NOARGS, NULL },
  { "_autocast_set_enabled", py_set_enabled, METH_VARARGS, NULL },
  { "_autocast_get_dtype", py_get_dtype, METH_O, NULL },
  { "_autocast_set_dtype", py_set_dtype, METH_VARARGS, NULL },
  { "_autocast_is_cache_enabled", py_is_cache_enabled, METH_NOARGS, NULL },
  { "_autocast_set_cache_enabled", py_set_cache_enabled, METH_O, NULL },
  { "_autocast_increment_nesting", py_increment_nesting, METH_NOARGS, NULL },
  { "_autocast_decrement_nesting", py_decrement_nesting, METH_NOARGS, NULL },
  { "_autocast_clear_cache", py_clear_cache, METH_NOARGS, NULL },
  { "_autocast_set_excluded", py_set_excluded, METH_O, NULL },
  { NULL }
};

gboolean
ts_py_amp_register (PyObject *module)
{
  return PyModule_AddFunctions (module, amp_methods) == 0;
}
