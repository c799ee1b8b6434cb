/* ts-py-grad.c: grad mode and inference mode, thread-local as in PyTorch
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * c10's AutogradState, reduced to the two flags a script can see:
 * torch.is_grad_enabled() and torch.is_inference_mode_enabled(). Every
 * thread starts with grad mode on and inference mode off. Grad mode is
 * the autograd engine's own per-thread flag (ts_autograd_set_grad_enabled),
 * the one the op table's recording reads: one source of truth. Storage made while
 * inference mode is on is inference storage (ts-storage.h), and its tensors
 * are inference tensors (Tensor.is_inference()).
 */

#include "config.h"

#include "ts-autograd.h"
#include "ts-py-private.h"

static _Thread_local gboolean inference_on;

/* PyTorch's check of a mode's new value: a bool, or a TypeError naming it */
static gboolean
parse_mode (PyObject   *arg,
            const char *what,
            gboolean   *on)
{
  if (!PyBool_Check (arg))
    {
      PyErr_Format (PyExc_TypeError, "%s must be a bool (got %s)", what, Py_TYPE (arg)->tp_name);
      return FALSE;
    }
  *on = arg == Py_True;
  return TRUE;
}

gboolean
ts_py_inference_mode_enabled (void)
{
  return inference_on;
}

static PyObject *
py_is_grad_enabled (PyObject *module,
                    PyObject *unused)
{
  return PyBool_FromLong (ts_autograd_is_grad_enabled ());
}

static PyObject *
py_is_inference_mode_enabled (PyObject *module,
                              PyObject *unused)
{
  return PyBool_FromLong (inference_on);
}

/* _set_grad_enabled(bool) */
static PyObject *
py_set_grad_enabled (PyObject *module,
                     PyObject *arg)
{
  gboolean on;

  if (!parse_mode (arg, "enabled", &on))
    return NULL;
  ts_autograd_set_grad_enabled (on);
  Py_RETURN_NONE;
}

/* _set_inference_mode(bool): c10::InferenceMode(enabled) turns grad mode
 * to !enabled as well. */
static PyObject *
py_set_inference_mode (PyObject *module,
                       PyObject *arg)
{
  gboolean on;

  if (!parse_mode (arg, "mode", &on))
    return NULL;
  inference_on = on;
  ts_autograd_set_grad_enabled (!on);
  ts_storage_set_inference_mode (on);
  Py_RETURN_NONE;
}

static PyMethodDef grad_methods[] = {
  { "is_grad_enabled", py_is_grad_enabled, METH_NOARGS, NULL },
  { "_set_grad_enabled", py_set_grad_enabled, METH_O, NULL },
  { "is_inference_mode_enabled", py_is_inference_mode_enabled, METH_NOARGS, NULL },
  { "_set_inference_mode", py_set_inference_mode, METH_O, NULL },
  { NULL }
};

gboolean
ts_py_grad_register (PyObject *module)
{
  return PyModule_AddFunctions (module, grad_methods) == 0;
}
