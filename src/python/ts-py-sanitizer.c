/* ts-py-sanitizer.c: torch.cuda._sanitizer over the core's race sanitizer
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The core (ts-op-access) reports every op's accesses to TsSanitizer; this
 * file gives it what only Python knows: the user's stack at the op, for
 * the reports' stack traces (frames of our torch package left out, so the
 * trace is the script's own lines), and sys.stderr to print the reports
 * on. A racing op raises torch.cuda._sanitizer.CUDASanitizerErrors carrying
 * the report texts, whose str is "detected N errors", as PyTorch's does.
 */

#include "config.h"

#include "ts-op-access.h"
#include "ts-py-private.h"

/* Frames of the last get_stack; the strings live in `keep`. */
static GArray *frames;
static PyObject *keep;        /* list: the objects whose UTF-8 the frames point to */
static PyObject *linecache_getline;     /* linecache.linecache_getline */
static PyObject *pending;     /* list of report texts for the next raise */

static const char *
keep_utf8 (PyObject *obj)
{
  if (obj == NULL || !PyUnicode_Check (obj))
    return NULL;
  PyList_Append (keep, obj);
  return PyUnicode_AsUTF8 (obj);
}

static const TsSanitizerFrame *
get_stack (guint    *n_frames,
           gpointer  user_data)
{
  PyObject *type, *value, *traceback;
  PyFrameObject *frame;

  *n_frames = 0;
  /* frees also come at the end of the run, after Python is gone */
  if (!Py_IsInitialized () || !PyGILState_Check () || keep == NULL)
    return NULL;

  /* a free can come while an exception is on its way: keep it */
  PyErr_Fetch (&type, &value, &traceback);
  g_array_set_size (frames, 0);
  PyList_SetSlice (keep, 0, PY_SSIZE_T_MAX, NULL);
  frame = PyEval_GetFrame ();
  Py_XINCREF (frame);
  while (frame != NULL)
    {
      PyCodeObject *code = PyFrame_GetCode (frame);
      PyFrameObject *back = PyFrame_GetBack (frame);

      if (!ts_py_is_torch_code (code))
        {
          TsSanitizerFrame f = { 0 };
          int line = PyFrame_GetLineNumber (frame);
          PyObject *text = NULL;

          f.file = keep_utf8 (code->co_filename);
          f.function = keep_utf8 (code->co_name);
          f.line = (guint) MAX (line, 0);
          if (linecache_getline != NULL)
            text = PyObject_CallFunction (linecache_getline, "Oi", code->co_filename, line);
          if (text != NULL && PyUnicode_GetLength (text) > 0)
            f.text = keep_utf8 (text);
          Py_XDECREF (text);
          PyErr_Clear ();
          /* innermost first here; CSAN prints outermost first */
          g_array_prepend_val (frames, f);
        }
      Py_DECREF (code);
      Py_DECREF (frame);
      frame = back;
    }
  PyErr_Restore (type, value, traceback);
  *n_frames = frames->len;
  return (const TsSanitizerFrame *) frames->data;
}

/* print (error, file=sys.stderr), and keep it for the exception. */
static void
report (const char *text,
        gpointer    user_data)
{
  PyObject *err = PySys_GetObject ("stderr");  /* borrowed */
  PyObject *str = PyUnicode_FromString (text);

  if (str != NULL)
    PyList_Append (pending, str);
  Py_XDECREF (str);
  if (err != NULL && err != Py_None)
    {
      PyFile_WriteString (text, err);
      PyFile_WriteString ("\n", err);
    }
  PyErr_Clear ();
}

PyObject *
ts_py_sanitizer_raise (GError *error)
{
  PyObject *module = PyImport_ImportModule ("torch.cuda._sanitizer");
  PyObject *cls = module ? PyObject_GetAttrString (module, "CUDASanitizerErrors") : NULL;
  PyObject *errors = PyList_GetSlice (pending, 0, PY_SSIZE_T_MAX);
  PyObject *exc;

  PyList_SetSlice (pending, 0, PY_SSIZE_T_MAX, NULL);
  if (cls == NULL)
    {
      PyErr_Clear ();
      PyErr_SetString (PyExc_RuntimeError, error->message);
    }
  else
    {
      exc = PyObject_CallOneArg (cls, errors);
      if (exc != NULL)
        {
          PyErr_SetObject (cls, exc);
          Py_DECREF (exc);
        }
    }
  Py_XDECREF (errors);
  Py_XDECREF (cls);
  Py_XDECREF (module);
  g_error_free (error);
  return NULL;
}

static PyObject *
py_sanitizer_enable (PyObject *m, PyObject *unused)
{
  ts_op_access_enable ();
  Py_RETURN_NONE;
}

static PyObject *
py_sanitizer_is_enabled (PyObject *m, PyObject *unused)
{
  return PyBool_FromLong (ts_op_access_is_enabled ());
}

static PyMethodDef sanitizer_methods[] = {
  { "_cuda_sanitizer_enable", py_sanitizer_enable, METH_NOARGS, NULL },
  { "_cuda_sanitizer_is_enabled", py_sanitizer_is_enabled, METH_NOARGS, NULL },
  { NULL }
};

gboolean
ts_py_sanitizer_register (PyObject *module)
{
  static const TsOpAccessHooks hooks = { get_stack, report, NULL };
  PyObject *linecache;

  if (frames == NULL)
    frames = g_array_new (FALSE, TRUE, sizeof (TsSanitizerFrame));
  if (keep == NULL)
    keep = PyList_New (0);
  if (pending == NULL)
    pending = PyList_New (0);
  linecache = PyImport_ImportModule ("linecache");
  if (linecache != NULL && linecache_getline == NULL)
    linecache_getline = PyObject_GetAttrString (linecache, "getline");
  Py_XDECREF (linecache);
  PyErr_Clear ();
  ts_op_access_set_hooks (&hooks);
  return PyModule_AddFunctions (module, sanitizer_methods) == 0;
}
