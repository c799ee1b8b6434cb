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
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
/* 3.11's interpreter frames, read in place (see user_frame) */
#define Py_BUILD_CORE 1
#include <internal/pycore_frame.h>
#undef Py_BUILD_CORE
#define TS_PY_INTERPRETER_FRAMES 1
#endif

#include "config.h"

#include <string.h>

#include "ts-callsite.h"
#include "ts-py-private.h"
#include "ts-session.h"

/* Call sites ------------------------------------------------------------------ */

static PyObject *torch_dir;          /* ".../torch/": frames in here are ours */

/* The last few user code objects seen, with their names' ids and the
 * lines of their last few instructions. Several, not one: an op called in
 * a function (a lambda, a module's forward) and its result freed in the
 * caller alternate between two code objects, and each miss costs the
 * interning of both names and a walk of the line table. Likewise a loop
 * body alternates between the op's instruction and the store that frees
 * the previous result, so each code object keeps a few lines. */
#define CODE_CACHE_SIZE 4
#define LINE_CACHE_SIZE 4
typedef struct
{
  PyObject  *code;     /* a strong reference; NULL: empty */
  TsStringId file, function;
  int        lasti[LINE_CACHE_SIZE];
  int        line[LINE_CACHE_SIZE];
  guint      next;
} CodeEntry;
static CodeEntry code_cache[CODE_CACHE_SIZE];
static guint code_next;
static CodeEntry *code_last;   /* the entry of the previous call */

static CodeEntry *
code_entry_lookup (PyObject *code)
{
  for (guint i = 0; i < CODE_CACHE_SIZE; i++)
    if (code_cache[i].code == code)
      return &code_cache[i];
  return NULL;
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

/* is_torch_frame's answer, kept on the code object (its co_extra slot, as
 * PEP 523's frame evaluators keep theirs): a training step's ops are
 * called a dozen torch frames deep, and a path comparison for each frame
 * walked was most of the walk. -1: no slot, compare every time. */
static Py_ssize_t kind_index = -1;
#define KIND_USER  ((void *) 1)
#define KIND_TORCH ((void *) 2)

static gboolean
is_torch_code (PyCodeObject *code)
{
  void *kind = NULL;
  gboolean torch;

  if (kind_index >= 0 && _PyCode_GetExtra ((PyObject *) code, kind_index, &kind) == 0 && kind != NULL)
    return kind == KIND_TORCH;
  torch = is_torch_frame (code);
  if (kind_index >= 0 && _PyCode_SetExtra ((PyObject *) code, kind_index, torch ? KIND_TORCH : KIND_USER) < 0)
    PyErr_Clear ();
  return torch;
}

/* The torch package's folder: frames of its files are never the user's. */
void
ts_py_set_torch_dir (PyObject *dir)
{
  Py_XSETREF (torch_dir, Py_NewRef (dir));
  /* a fresh slot: the answers kept on code objects were for another dir */
  kind_index = _PyEval_RequestCodeExtraIndex (NULL);
  if (kind_index < 0)
    PyErr_Clear ();
  /* which code objects are the user's depends on it */
  for (guint i = 0; i < CODE_CACHE_SIZE; i++)
    Py_CLEAR (code_cache[i].code);
  code_last = NULL;
}

gboolean
ts_py_is_torch_code (PyCodeObject *code)
{
  return is_torch_code (code);
}

/* The innermost frame that is not the torch package's (or, in a stack of
 * torch frames only, the first one the previous call stopped at): its
 * code object (borrowed) and the byte offset of its instruction; FALSE
 * when no Python code runs. */
#ifdef TS_PY_INTERPRETER_FRAMES
/* On 3.11 the walk reads the interpreter's frames in place:
 * PyEval_GetFrame () made a frame object for the calling function on
 * every call (that function's frame is new each time), then the frame's
 * exit freed it, a tenth of a small op's cost. */
static _PyInterpreterFrame *
complete_frame (_PyInterpreterFrame *f)
{
  while (f != NULL && _PyFrame_IsIncomplete (f))
    f = f->previous;
  return f;
}

static gboolean
user_frame (PyCodeObject **code,
            int           *lasti)
{
  PyThreadState *tstate = _PyThreadState_UncheckedGet ();
  _PyInterpreterFrame *f;

  /* no thread state (no Python running on this thread): no call site */
  if (tstate == NULL || (f = complete_frame (tstate->cframe->current_frame)) == NULL)
    return FALSE;
  for (;;)
    {
      _PyInterpreterFrame *back;

      if (!is_torch_code (f->f_code) || (code_last != NULL && code_last->code == (PyObject *) f->f_code))
        break;
      back = complete_frame (f->previous);
      if (back == NULL)
        break;
      f = back;
    }
  *code = f->f_code;
  *lasti = _PyInterpreterFrame_LASTI (f) * (int) sizeof (_Py_CODEUNIT);
  return TRUE;
}
#else
static gboolean
user_frame (PyCodeObject **code_out,
            int           *lasti)
{
  PyFrameObject *frame = PyEval_GetFrame ();
  PyCodeObject *code;

  if (frame == NULL)
    return FALSE;
  Py_INCREF (frame);
  for (;;)
    {
      PyFrameObject *back;

      code = PyFrame_GetCode (frame);
      /* a cached user code object needs no path comparison; the previous
       * call's code object ends the walk even when it is the torch
       * package's (a stack of torch frames only), as it always has */
      if (!is_torch_code (code) || (code_last != NULL && code_last->code == (PyObject *) code))
        break;
      back = PyFrame_GetBack (frame);
      if (back == NULL)
        break;
      Py_DECREF (code);
      Py_DECREF (frame);
      frame = back;
    }
  *lasti = PyFrame_GetLasti (frame);
  /* borrowed: the frame's code lives as long as the frame, which the
   * caller's call keeps */
  *code_out = code;
  Py_DECREF (code);
  Py_DECREF (frame);
  return TRUE;
}
#endif

/* Points the runtime's call site at the innermost frame of the user's
 * script, so the records of this call lead back to that line. */
void
ts_py_update_callsite (void)
{
  PyCodeObject *code = NULL;
  CodeEntry *entry = NULL;
  TsSourceLoc loc;
  int lasti, line;

  if (!user_frame (&code, &lasti))
    return;

  entry = code_entry_lookup ((PyObject *) code);
  if (entry == NULL)
    {
      TsRecorder *recorder = ts_session_get_recorder ();
      const char *file = PyUnicode_AsUTF8 (code->co_filename);
      const char *name = PyUnicode_AsUTF8 (code->co_name);

      entry = &code_cache[code_next];
      code_next = (code_next + 1) % CODE_CACHE_SIZE;
      for (guint i = 0; i < LINE_CACHE_SIZE; i++)
        entry->lasti[i] = -1;
      entry->next = 0;
      Py_XSETREF (entry->code, Py_NewRef ((PyObject *) code));
      entry->file = file ? ts_recorder_intern (recorder, file) : 0;
      entry->function = name ? ts_recorder_intern (recorder, name) : 0;
      /* only the error of a name that has no UTF-8 form: a tensor freed
       * while an exception propagates (the dealloc comes here) must not
       * clear that exception */
      if (file == NULL || name == NULL)
        PyErr_Clear ();
    }
  code_last = entry;
  loc.file = entry->file;
  loc.function = entry->function;
  /* the line table walk is the costly part: remember the last answers */
  line = -1;
  for (guint i = 0; i < LINE_CACHE_SIZE; i++)
    if (entry->lasti[i] == lasti)
      {
        line = entry->line[i];
        break;
      }
  if (line < 0)
    {
      line = PyCode_Addr2Line (code, lasti);
      entry->lasti[entry->next] = lasti;
      entry->line[entry->next] = line;
      entry->next = (entry->next + 1) % LINE_CACHE_SIZE;
    }
  loc.line = (guint32) MAX (line, 0);
  ts_callsite_set (&loc);
}
