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

/* The last few user code objects seen, each with its interned names and
 * the lines of its last few instructions. A loop of small ops alternates
 * between code objects: the op's line runs in a function (a lambda, a
 * step()), and the previous result is freed (a recorded call too) in the
 * caller's frame, so one cached code object missed on every call and
 * walked the caller's line table each time. Within one code object a loop
 * body alternates between the op's instruction and the store that frees
 * the previous result, hence several lines per code object. */
#define CODE_CACHE_SIZE 4
#define LINE_CACHE_SIZE 4
typedef struct
{
  PyObject  *code;                   /* a strong reference, or NULL */
  TsStringId file, function;
  int        lasti[LINE_CACHE_SIZE];
  int        line[LINE_CACHE_SIZE];
  guint      next;
} CodeCache;
static CodeCache code_cache[CODE_CACHE_SIZE];
static guint code_cache_next;

static CodeCache *
code_cache_find (PyCodeObject *code)
{
  for (guint i = 0; i < CODE_CACHE_SIZE; i++)
    if (code_cache[i].code == (PyObject *) code)
      return &code_cache[i];
  return NULL;
}

/* The entry of a user code object not cached yet: the oldest one's
 * place, its names interned once. */
static CodeCache *
code_cache_add (PyCodeObject *code)
{
  CodeCache *entry = &code_cache[code_cache_next];
  TsRecorder *recorder = ts_session_get_recorder ();
  const char *file = PyUnicode_AsUTF8 (code->co_filename);
  const char *name = PyUnicode_AsUTF8 (code->co_name);

  code_cache_next = (code_cache_next + 1) % CODE_CACHE_SIZE;
  Py_XSETREF (entry->code, Py_NewRef ((PyObject *) code));
  for (guint i = 0; i < LINE_CACHE_SIZE; i++)
    entry->lasti[i] = -1;
  entry->next = 0;
  entry->file = file ? ts_recorder_intern (recorder, file) : 0;
  entry->function = name ? ts_recorder_intern (recorder, name) : 0;
  /* only the error of a name that has no UTF-8 form: a tensor freed
   * while an exception propagates (the dealloc comes here) must not
   * clear that exception */
  if (file == NULL || name == NULL)
    PyErr_Clear ();
  return entry;
}

/* The line of @frame's current instruction; the line table walk is the
 * costly part, so the last answers are remembered. */
static int
code_cache_line (CodeCache     *entry,
                 PyFrameObject *frame)
{
  int lasti = PyFrame_GetLasti (frame);
  int line;

  for (guint i = 0; i < LINE_CACHE_SIZE; i++)
    if (entry->lasti[i] == lasti)
      return entry->line[i];
  line = PyFrame_GetLineNumber (frame);
  entry->lasti[entry->next] = lasti;
  entry->line[entry->next] = line;
  entry->next = (entry->next + 1) % LINE_CACHE_SIZE;
  return line;
}

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
  CodeCache *entry;
  gboolean ours = FALSE;
  TsSourceLoc loc;

  if (frame == NULL)
    return;
  Py_INCREF (frame);
  for (;;)
    {
      PyFrameObject *back;

      code = PyFrame_GetCode (frame);
      /* a cached code object is a user frame: no path comparison */
      if ((entry = code_cache_find (code)) != NULL || !is_torch_frame (code))
        break;
      back = PyFrame_GetBack (frame);
      if (back == NULL)
        {
          ours = TRUE;
          break;
        }
      Py_DECREF (code);
      Py_DECREF (frame);
      frame = back;
    }

  if (entry == NULL)
    entry = code_cache_add (code);
  loc.file = entry->file;
  loc.function = entry->function;
  loc.line = (guint32) MAX (code_cache_line (entry, frame), 0);
  /* the outermost frame may be ours (a call from a thread that torch
   * started): named, but not remembered as a user frame */
  if (ours)
    Py_CLEAR (entry->code);
  ts_callsite_set (&loc);
  Py_DECREF (code);
  Py_DECREF (frame);
}
