/* ts-py-callsite.c: the script line a call comes from
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every recorded call carries the user's line: the innermost frame outside
 * the torch package. Its own file so that the sanitizer, which names the
 * lines of a race, and the tensors both use it without calling each other.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "config.h"

#include <string.h>

#include "ts-callsite.h"
#include "ts-py-private.h"
#include "ts-session.h"

/* Call sites ------------------------------------------------------------------ */

static PyObject *torch_dir;          /* ".../torch/": frames in here are ours */
static PyObject *cached_code;        /* the last user code object seen */
static TsStringId cached_file, cached_function;
/* Lines of the last few instructions of that code object: a loop body
 * alternates between the op's instruction and the store that frees the
 * previous result, so one entry would always miss. */
#define LINE_CACHE_SIZE 4
static int cached_lasti[LINE_CACHE_SIZE] = { -1, -1, -1, -1 };
static int cached_line[LINE_CACHE_SIZE];
static guint cached_next;

static gboolean
is_torch_frame (PyCodeObject *code)
{
  if (torch_dir == NULL)
    {
      return FALSE;
    }
  return PyUnicode_Tailmatch (code->co_filename, torch_dir, 0, PY_SSIZE_T_MAX, -1) == 1;
}

/* The torch package's folder: frames of its files are never the user's. */
void
ts_py_set_torch_dir (PyObject *dir)
{
  Py_XSETREF (torch_dir, Py_NewRef (dir));
}

gboolean
ts_py_is_torch_code (PyCodeObject *code)
{
  return is_torch_frame (code);
}

/* Points the runtime's call site at the innermost frame of the user's
 * script, so the records of this call lead back to that line. */
void
ts_py_update_callsite (void)
{
  PyFrameObject *frame = PyEval_GetFrame ();
  PyCodeObject *code = NULL;
  TsSourceLoc loc;
  int lasti, line;

  if (frame == NULL)
    return;
  Py_INCREF (frame);
  for (;;)
    {
      PyFrameObject *back;

      code = PyFrame_GetCode (frame);
      /* the cached code object is a user frame: no path comparison */
      if ((PyObject *) code == cached_code || !is_torch_frame (code))
        break;
      back = PyFrame_GetBack (frame);
      if (back == NULL)
        break;
      Py_DECREF (code);
      Py_DECREF (frame);
      frame = back;
    }

  if ((PyObject *) code != cached_code)
    {
      TsRecorder *recorder = ts_session_get_recorder ();
      const char *file = PyUnicode_AsUTF8 (code->co_filename);
      const char *name = PyUnicode_AsUTF8 (code->co_name);

      for (guint i = 0; i < LINE_CACHE_SIZE; i++)
        cached_lasti[i] = -1;
      Py_XSETREF (cached_code, Py_NewRef ((PyObject *) code));
      cached_file = file ? ts_recorder_intern (recorder, file) : 0;
      cached_function = name ? ts_recorder_intern (recorder, name) : 0;
      /* only the error of a name that has no UTF-8 form: a tensor freed
       * while an exception propagates (the dealloc comes here) must not
       * clear that exception */
      if (file == NULL || name == NULL)
        PyErr_Clear ();
    }
  loc.file = cached_file;
  loc.function = cached_function;
  /* the line table walk is the costly part: remember the last answers */
  lasti = PyFrame_GetLasti (frame);
  line = -1;
  for (guint i = 0; i < LINE_CACHE_SIZE; i++)
    if (cached_lasti[i] == lasti)
      {
        line = cached_line[i];
        break;
      }
  if (line < 0)
    {
      line = PyFrame_GetLineNumber (frame);
      cached_lasti[cached_next] = lasti;
      cached_line[cached_next] = line;
      cached_next = (cached_next + 1) % LINE_CACHE_SIZE;
    }
  loc.line = (guint32) MAX (line, 0);
  ts_callsite_set (&loc);
  Py_DECREF (code);
  Py_DECREF (frame);
}
