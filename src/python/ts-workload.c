/* ts-workload.c: running a user's Python script inside this process
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * We embed Debian's libpython3 instead of calling python3 so that the
 * `torch` module the script imports is served by the core in this very
 * process: no IPC per tensor operation. The script is compiled and executed
 * by hand rather than through PyRun_SimpleFile, because that function calls
 * exit() on SystemExit, which would skip writing the trace.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "config.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "ts-py-private.h"
#include "ts-workload.h"

G_DEFINE_QUARK (ts-workload-error-quark, ts_workload_error)

static gboolean
init_python (const TsWorkloadOptions  *options,
             GError                  **error)
{
  PyConfig config;
  PyStatus status;
  g_autofree char *program = g_path_get_basename (options->script);
  guint n_args = options->argv ? g_strv_length ((char **) options->argv) : 0;
  wchar_t **wargv = g_new0 (wchar_t *, n_args + 2);
  gboolean ok = FALSE;

  /* torch._C is built in: the torch package imports it like PyTorch's. */
  if (!Py_IsInitialized ())
    PyImport_AppendInittab ("torch._C", ts_py_init_module);

  PyConfig_InitPythonConfig (&config);
  /* sys.argv is exactly the script and its arguments, as `python3 script.py
   * ARGS` gives; Python must not parse our options. */
  config.parse_argv = 0;
  /* No user site-packages: a user's real torch must not shadow ours. */
  config.user_site_directory = 0;
  config.install_signal_handlers = 1;

  wargv[0] = Py_DecodeLocale (options->script, NULL);
  for (guint i = 0; i < n_args; i++)
    wargv[i + 1] = Py_DecodeLocale (options->argv[i], NULL);

  status = PyConfig_SetArgv (&config, n_args + 1, wargv);
  if (!PyStatus_Exception (status))
    status = PyConfig_SetBytesString (&config, &config.program_name, program);
  if (!PyStatus_Exception (status))
    status = Py_InitializeFromConfig (&config);

  if (PyStatus_Exception (status))
    g_set_error (error, TS_WORKLOAD_ERROR, TS_WORKLOAD_ERROR_PYTHON,
                 "Could not start Python: %s",
                 status.err_msg ? status.err_msg : "unknown error");
  else
    ok = TRUE;

  for (guint i = 0; i < n_args + 1; i++)
    PyMem_RawFree (wargv[i]);
  g_free (wargv);
  PyConfig_Clear (&config);
  return ok;
}

/* sys.path: our torch package first, then the script's folder (which
 * `python3 script.py` would put first), then the standard entries. */
static gboolean
setup_sys_path (const TsWorkloadOptions *options)
{
  PyObject *sys_path = PySys_GetObject ("path");  /* borrowed */
  g_autofree char *script_dir = g_path_get_dirname (options->script);
  g_autofree char *abs_dir = g_canonicalize_filename (script_dir, NULL);
  PyObject *item;

  if (sys_path == NULL || !PyList_Check (sys_path))
    return FALSE;

  item = PyUnicode_DecodeFSDefault (abs_dir);
  if (item == NULL || PyList_Insert (sys_path, 0, item) < 0)
    {
      Py_XDECREF (item);
      return FALSE;
    }
  Py_DECREF (item);

  if (options->python_path != NULL)
    {
      item = PyUnicode_DecodeFSDefault (options->python_path);
      if (item == NULL || PyList_Insert (sys_path, 0, item) < 0)
        {
          Py_XDECREF (item);
          return FALSE;
        }
      Py_DECREF (item);
    }

  return TRUE;
}

/* The exit status Python itself would use for a pending SystemExit. */
static int
system_exit_status (void)
{
  PyObject *type, *value, *traceback, *code;
  int status = 1;

  PyErr_Fetch (&type, &value, &traceback);
  PyErr_NormalizeException (&type, &value, &traceback);

  code = value ? PyObject_GetAttrString (value, "code") : NULL;
  if (code == NULL || code == Py_None)
    status = 0;
  else if (PyLong_Check (code))
    status = (int) PyLong_AsLong (code);
  else
    {
      /* sys.exit("message") prints the message and exits with 1. */
      PyObject *text = PyObject_Str (code);
      if (text != NULL)
        {
          const char *utf8 = PyUnicode_AsUTF8 (text);
          if (utf8 != NULL)
            fprintf (stderr, "%s\n", utf8);
          Py_DECREF (text);
        }
    }

  PyErr_Clear ();
  Py_XDECREF (code);
  Py_XDECREF (type);
  Py_XDECREF (value);
  Py_XDECREF (traceback);
  return status;
}

/* SIGTERM ends the script like SIGINT does, through an exception, so that
 * the trace is still closed properly; the exit status is 128 + 15 as a
 * killed process's would read. */
static gboolean
install_sigterm_handler (void)
{
  static const char code[] =
    "import signal as _s\n"
    "def _ts_sigterm(signum, frame):\n"
    "    raise SystemExit(143)\n"
    "_s.signal(_s.SIGTERM, _ts_sigterm)\n"
    "del _s, _ts_sigterm\n";
  PyObject *globals = PyDict_New ();
  PyObject *result;

  if (globals == NULL)
    return FALSE;
  PyDict_SetItemString (globals, "__builtins__", PyEval_GetBuiltins ());
  result = PyRun_String (code, Py_file_input, globals, globals);
  Py_DECREF (globals);
  if (result == NULL)
    return FALSE;
  Py_DECREF (result);
  return TRUE;
}

static int
exec_main (const char *script,
           const char *source)
{
  PyObject *main_module = PyImport_AddModule ("__main__");  /* borrowed */
  PyObject *globals = PyModule_GetDict (main_module);       /* borrowed */
  PyObject *file_name = PyUnicode_DecodeFSDefault (script);
  PyObject *code = NULL, *result = NULL;
  int status = 0;

  if (file_name == NULL ||
      PyDict_SetItemString (globals, "__file__", file_name) < 0 ||
      PyDict_SetItemString (globals, "__cached__", Py_None) < 0)
    goto error;

  code = Py_CompileStringObject (source, file_name, Py_file_input, NULL, -1);
  if (code == NULL)
    goto error;

  result = PyEval_EvalCode (code, globals, globals);
  if (result == NULL)
    goto error;

  goto out;

error:
  if (PyErr_ExceptionMatches (PyExc_SystemExit))
    status = system_exit_status ();
  else if (PyErr_ExceptionMatches (PyExc_KeyboardInterrupt))
    {
      /* python3 dies of SIGINT after the traceback; a shell sees 130. */
      PyErr_Print ();
      status = 130;
    }
  else
    {
      /* Prints the traceback exactly as python3 would, SyntaxError with its
       * caret included. */
      PyErr_Print ();
      status = 1;
    }

out:
  Py_XDECREF (result);
  Py_XDECREF (code);
  Py_XDECREF (file_name);
  return status;
}

/* A training loop makes and frees the same megabyte-sized host buffers
 * every step (CPU tensors, im2col columns). glibc's adaptive thresholds
 * hand such blocks back to the kernel (mmap, or trimming the heap top) and
 * the next step page-faults them in again: about 950 faults per step of
 * benchmarks/bench_conv.py. Fixed thresholds keep them in the heap. */
static void
keep_host_buffers (void)
{
#ifdef __GLIBC__
  mallopt (M_MMAP_THRESHOLD, 16 * 1024 * 1024);
  mallopt (M_TRIM_THRESHOLD, 64 * 1024 * 1024);
#endif
}

gboolean
ts_workload_run (const TsWorkloadOptions  *options,
                 int                      *exit_status,
                 GError                  **error)
{
  g_autofree char *source = NULL;
  g_autoptr(GError) local_error = NULL;
  int status;

  g_return_val_if_fail (options != NULL, FALSE);
  g_return_val_if_fail (options->script != NULL, FALSE);
  g_return_val_if_fail (exit_status != NULL, FALSE);

  if (!g_file_get_contents (options->script, &source, NULL, &local_error))
    {
      g_set_error (error, TS_WORKLOAD_ERROR, TS_WORKLOAD_ERROR_NOT_FOUND,
                   "Cannot read the workload script: %s", local_error->message);
      return FALSE;
    }

  keep_host_buffers ();
  if (!init_python (options, error))
    return FALSE;

  if (!setup_sys_path (options) || !install_sigterm_handler ())
    {
      PyErr_Print ();
      status = 1;
    }
  else
    status = exec_main (options->script, source);

  /* Finalizing joins the script's non-daemon threads and runs its atexit
   * handlers, as a normal interpreter exit does; a failure there (an
   * exception in an atexit handler) is Python's exit status 120. */
  if (Py_FinalizeEx () < 0 && status == 0)
    status = 120;

  *exit_status = status;
  return TRUE;
}
