/* ts-py-function.c: the node of a Python torch.autograd.Function
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * torch/autograd/function.py runs a Function's forward, then records its
 * node here: _function_record(name, state, inputs, outputs). The node's
 * formula calls state(*grad_outputs) in Python, which runs the class's
 * backward with its ctx and returns one gradient (or None) per tensor
 * input; the engine checks their shapes as for any node. state also
 * answers materialize_grads (None gradients become zeros first) and
 * _release(), which the engine's release of saved tensors calls (ctx's
 * saved tensors go then, as PyTorch's SavedVariables do). Anomaly mode's
 * bindings and hooks are here too: they call torch/autograd/anomaly_mode.py.
 */

#include "config.h"

#include "ts-autograd.h"
#include "ts-py-private.h"

typedef struct
{
  PyObject *state;
} FunctionAttrs;

/* A gradient the engine left NULL: zeros (materialize_grads) or None */
static PyObject *
grad_arg (TsGradNode  *node,
          guint        i,
          TsTensor    *grad,
          gboolean     materialize,
          GError     **error)
{
  const TsGradTensorInfo *info = ts_grad_node_get_output_info (node, i);
  TsScalar zero = { TS_DTYPE_INT64, 0, 0 };
  TsTensor *t;

  if (grad != NULL)
    return ts_py_tensor_wrap (ts_tensor_ref (grad));
  if (!materialize)
    Py_RETURN_NONE;
  t = ts_tensor_new_empty (info->device, info->dtype, info->ndim, info->shape, FALSE, error);
  if (t == NULL || !ts_ops_fill (t, &zero, error))
    {
      g_clear_pointer (&t, ts_tensor_unref);
      PyErr_SetString (PyExc_RuntimeError, (*error)->message);
      g_clear_error (error);
      return NULL;
    }
  return ts_py_tensor_wrap (t);
}

static TS_BACKWARD_FN (function_backward)
{
  FunctionAttrs *attrs = ts_grad_node_get_attrs (node);
  PyObject *materialize_obj = PyObject_GetAttrString (attrs->state, "materialize_grads");
  int materialize = materialize_obj != NULL ? PyObject_IsTrue (materialize_obj) : -1;
  PyObject *args = materialize >= 0 ? PyTuple_New (n_outputs) : NULL;
  PyObject *result = NULL;

  Py_XDECREF (materialize_obj);
  for (guint i = 0; args != NULL && i < n_outputs; i++)
    {
      PyObject *arg = grad_arg (node, i, grad_outputs[i], materialize, error);

      if (arg == NULL)
        g_clear_pointer (&args, Py_DecRef);
      else
        PyTuple_SET_ITEM (args, i, arg);
    }
  if (args != NULL)
    result = PyObject_Call (attrs->state, args, NULL);
  Py_XDECREF (args);
  if (result == NULL)
    return ts_py_autograd_python_failed (error);
  /* state returns a tuple aligned with the node's inputs (it checked) */
  for (guint i = 0; i < n_inputs && i < (guint) PyTuple_GET_SIZE (result); i++)
    {
      PyObject *g = PyTuple_GET_ITEM (result, i);

      if (g != Py_None && ts_grad_node_needs_input_grad (node, i))
        grad_inputs[i] = ts_tensor_ref (ts_py_tensor_get (g));
    }
  Py_DECREF (result);
  return TRUE;
}

static void
function_attrs_clear (gpointer data)
{
  FunctionAttrs *attrs = data;
  PyGILState_STATE gil;

  if (attrs->state == NULL)
    return;
  gil = PyGILState_Ensure ();
  g_clear_pointer (&attrs->state, Py_DecRef);
  PyGILState_Release (gil);
}

static void
function_attrs_release (gpointer data)
{
  FunctionAttrs *attrs = data;
  PyGILState_STATE gil = PyGILState_Ensure ();
  PyObject *r = PyObject_CallMethod (attrs->state, "_release", NULL);

  if (r == NULL)
    PyErr_WriteUnraisable (attrs->state);
  Py_XDECREF (r);
  PyGILState_Release (gil);
}

/* _function_record(name, state, inputs, outputs) -> bool: whether a node
 * was recorded (grad mode on and an input requires grad) */
static PyObject *
py_function_record (PyObject *module,
                    PyObject *args)
{
  const char *name;
  PyObject *state, *inputs_obj, *outputs_obj;
  g_autofree TsTensor **inputs = NULL;
  g_autofree TsTensor **outputs = NULL;
  guint n_inputs, n_outputs;
  TsGradNode *node;
  FunctionAttrs *attrs;

  if (!PyArg_ParseTuple (args, "sOOO", &name, &state, &inputs_obj, &outputs_obj) ||
      (inputs = ts_py_tensor_array (inputs_obj, TRUE, &n_inputs)) == NULL ||
      (outputs = ts_py_tensor_array (outputs_obj, FALSE, &n_outputs)) == NULL)
    return NULL;
  node = ts_autograd_record (g_intern_string (name), function_backward, sizeof (FunctionAttrs), inputs, n_inputs,
                             outputs, n_outputs);
  if (node == NULL)
    Py_RETURN_FALSE;
  attrs = ts_grad_node_get_attrs (node);
  attrs->state = Py_NewRef (state);
  ts_grad_node_set_attrs_funcs (node, function_attrs_clear, function_attrs_release);
  ts_grad_node_unref (node);
  Py_RETURN_TRUE;
}

/* Anomaly mode: torch/autograd/anomaly_mode.py's _capture() (the forward's
 * traceback) and _report(name, traceback) (PyTorch's warning) */
static PyObject *
anomaly_call (const char *name,
              PyObject   *args)
{
  PyObject *module = PyImport_ImportModule ("torch.autograd.anomaly_mode");
  PyObject *result = NULL;

  if (module != NULL)
    {
      PyObject *fn = PyObject_GetAttrString (module, name);

      result = fn != NULL ? PyObject_CallObject (fn, args) : NULL;
      Py_XDECREF (fn);
      Py_DECREF (module);
    }
  if (result == NULL)
    PyErr_WriteUnraisable (NULL);
  return result;
}

static gpointer
anomaly_capture (void)
{
  PyGILState_STATE gil = PyGILState_Ensure ();
  PyObject *tb = anomaly_call ("_capture", NULL);

  PyGILState_Release (gil);
  return tb;
}

static void
anomaly_report (const char *node_name,
                gpointer    metadata)
{
  PyGILState_STATE gil = PyGILState_Ensure ();
  PyObject *exc_type, *exc_value, *exc_tb;
  PyObject *args, *r;

  /* the pass's pending exception (a hook's) waits while the warning is shown */
  PyErr_Fetch (&exc_type, &exc_value, &exc_tb);
  args = Py_BuildValue ("(sO)", node_name, metadata != NULL ? metadata : Py_None);
  r = args != NULL ? anomaly_call ("_report", args) : NULL;
  Py_XDECREF (args);
  Py_XDECREF (r);
  PyErr_Restore (exc_type, exc_value, exc_tb);
  PyGILState_Release (gil);
}

/* _set_anomaly_enabled(enabled, check_nan) */
static PyObject *
py_set_anomaly_enabled (PyObject *module,
                        PyObject *args)
{
  int enabled, check_nan = TRUE;

  if (!PyArg_ParseTuple (args, "p|p", &enabled, &check_nan))
    return NULL;
  ts_autograd_set_anomaly_enabled (enabled, check_nan);
  Py_RETURN_NONE;
}

static PyObject *
py_is_anomaly_enabled (PyObject *module,
                       PyObject *unused)
{
  return PyBool_FromLong (ts_autograd_is_anomaly_enabled ());
}

static PyObject *
py_is_anomaly_check_nan_enabled (PyObject *module,
                                 PyObject *unused)
{
  return PyBool_FromLong (ts_autograd_is_anomaly_check_nan_enabled ());
}

static PyMethodDef function_functions[] = {
  { "_function_record", py_function_record, METH_VARARGS, NULL },
  { "_set_anomaly_enabled", py_set_anomaly_enabled, METH_VARARGS, NULL },
  { "_is_anomaly_enabled", py_is_anomaly_enabled, METH_NOARGS, NULL },
  { "_is_anomaly_check_nan_enabled", py_is_anomaly_check_nan_enabled, METH_NOARGS, NULL },
  { NULL }
};

gboolean
ts_py_function_register (PyObject *module)
{
  static const TsAutogradAnomalyHooks hooks = { anomaly_capture, anomaly_report, ts_py_object_release };

  ts_autograd_set_anomaly_hooks (&hooks);
  return PyModule_AddFunctions (module, function_functions) == 0;
}
