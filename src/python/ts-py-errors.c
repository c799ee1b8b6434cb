/* ts-py-errors.c: GErrors of the core as Python exceptions
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One map from the core's error domains to PyTorch's exception types;
 * a race the sanitizer found is raised by the sanitizer's own code.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "config.h"

#include "ts-alloc-config.h"
#include "ts-allocator.h"
#include "ts-op-access.h"
#include "ts-py-private.h"
#include "ts-runtime.h"
#include "ts-session.h"
#include "ts-tensor.h"

/* Errors ------------------------------------------------------------------ */

PyObject *
ts_py_set_error (GError *error)
{
  PyObject *type = PyExc_RuntimeError;

  if (error->domain == TS_OP_ACCESS_ERROR)
    return ts_py_sanitizer_raise (error);
  if (error->domain == TS_TENSOR_ERROR)
    {
      switch ((TsTensorError) error->code)
        {
        case TS_TENSOR_ERROR_INDEX: type = PyExc_IndexError; break;
        case TS_TENSOR_ERROR_VALUE: type = PyExc_ValueError; break;
        case TS_TENSOR_ERROR_TYPE: type = PyExc_TypeError; break;
        case TS_TENSOR_ERROR_OUT_OF_MEMORY: type = ts_py_oom_error; break;
        case TS_TENSOR_ERROR_NOT_IMPLEMENTED: type = PyExc_NotImplementedError; break;
        case TS_TENSOR_ERROR_RUNTIME:
        default: break;
        }
    }
  else if (error->domain == TS_RUNTIME_ERROR)
    {
      switch ((TsRuntimeError) error->code)
        {
        /* elapsed_time's two checks are TORCH_CHECK_VALUE: ValueError;
         * "must be completed" stays a RuntimeError */
        case TS_RUNTIME_ERROR_EVENT_TIMING:
        case TS_RUNTIME_ERROR_EVENT_NOT_RECORDED:
        case TS_RUNTIME_ERROR_INVALID_ARGUMENT:
        case TS_RUNTIME_ERROR_UNKNOWN_MODEL:
          type = PyExc_ValueError;
          break;
        default:
          break;
        }
    }
  else if (error->domain == TS_ALLOCATOR_ERROR)
    {
      if (error->code == TS_ALLOCATOR_ERROR_OUT_OF_MEMORY)
        type = ts_py_oom_error;
      else if (error->code == TS_ALLOCATOR_ERROR_INVALID_VALUE)
        type = PyExc_ValueError;
    }
  else if (error->domain == TS_ALLOC_CONFIG_ERROR)
    {
      if (error->code == TS_ALLOC_CONFIG_ERROR_INVALID)
        type = PyExc_ValueError;
    }
  else if (error->domain == TS_SESSION_ERROR)
    {
      if (error->code == TS_SESSION_ERROR_OUT_OF_MEMORY)
        type = ts_py_oom_error;
      else if (error->code == TS_SESSION_ERROR_INVALID_VALUE)
        type = PyExc_ValueError;
    }
  PyErr_SetString (type, error->message);
  g_error_free (error);
  return NULL;
}
