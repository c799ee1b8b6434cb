/* ts-py-out.c: torch._C._OutWrapper, a torch function with out=
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * torch/_out.py binds out= to torch's functions by a table: each becomes
 * an _OutWrapper of the function and of a runner (what its out= does). A
 * call without out= goes straight to the function; one with out= to
 * runner (args, kwargs, out), kwargs without out. Written in C, not as a
 * Python closure, so that the layer costs next to nothing on calls
 * without out= (small ops in loops) and shows no frame of its own in the
 * user's tracebacks (PyTorch's C++ shows none).
 */

#include "config.h"

#include "ts-py-private.h"

#include <structmember.h>

typedef struct
{
  PyObject_HEAD
  PyObject *name;
  PyObject *fn;
  PyObject *runner;
  PyObject *dict;   /* __doc__ and the rest a function has */
} TsPyOutWrapper;

static void
out_wrapper_dealloc (PyObject *obj)
{
  TsPyOutWrapper *self = (TsPyOutWrapper *) obj;

  PyObject_GC_UnTrack (obj);
  Py_CLEAR (self->name);
  Py_CLEAR (self->fn);
  Py_CLEAR (self->runner);
  Py_CLEAR (self->dict);
  Py_TYPE (obj)->tp_free (obj);
}

static int
out_wrapper_traverse (PyObject  *obj,
                      visitproc  visit,
                      void      *arg)
{
  TsPyOutWrapper *self = (TsPyOutWrapper *) obj;

  Py_VISIT (self->fn);
  Py_VISIT (self->runner);
  Py_VISIT (self->dict);
  return 0;
}

static PyObject *
out_wrapper_call (PyObject *obj,
                  PyObject *args,
                  PyObject *kwargs)
{
  TsPyOutWrapper *self = (TsPyOutWrapper *) obj;
  PyObject *out = kwargs != NULL ? PyDict_GetItemString (kwargs, "out") : NULL;
  PyObject *rest, *r;

  if (out == NULL)
    return PyObject_Call (self->fn, args, kwargs);
  Py_INCREF (out);
  rest = PyDict_Copy (kwargs);
  if (rest == NULL || PyDict_DelItemString (rest, "out") < 0)
    r = NULL;
  else if (out == Py_None)
    r = PyObject_Call (self->fn, args, rest);
  else
    r = PyObject_CallFunctionObjArgs (self->runner, args, rest, out, NULL);
  Py_XDECREF (rest);
  Py_DECREF (out);
  return r;
}

static PyObject *
out_wrapper_repr (PyObject *obj)
{
  return PyUnicode_FromFormat ("<built-in function %U>", ((TsPyOutWrapper *) obj)->name);
}

static PyObject *
out_wrapper_new (PyTypeObject *type,
                 PyObject     *args,
                 PyObject     *kwargs)
{
  PyObject *name, *fn, *runner, *doc;
  TsPyOutWrapper *self;

  if (!PyArg_ParseTuple (args, "UOO:_OutWrapper", &name, &fn, &runner))
    return NULL;
  self = (TsPyOutWrapper *) type->tp_alloc (type, 0);
  if (self == NULL)
    return NULL;
  self->name = Py_NewRef (name);
  self->fn = Py_NewRef (fn);
  self->runner = Py_NewRef (runner);
  self->dict = PyDict_New ();
  doc = PyObject_GetAttrString (fn, "__doc__");
  if (doc == NULL)
    {
      PyErr_Clear ();
      doc = Py_NewRef (Py_None);
    }
  if (self->dict == NULL || PyDict_SetItemString (self->dict, "__doc__", doc) < 0)
    Py_CLEAR (self);
  Py_DECREF (doc);
  return (PyObject *) self;
}

static PyMemberDef out_wrapper_members[] = {
  { "__name__", T_OBJECT, offsetof (TsPyOutWrapper, name), READONLY, NULL },
  { "__qualname__", T_OBJECT, offsetof (TsPyOutWrapper, name), READONLY, NULL },
  { "__wrapped__", T_OBJECT, offsetof (TsPyOutWrapper, fn), READONLY, NULL },
  { NULL }
};

static PyTypeObject TsPyOutWrapper_Type = {
  PyVarObject_HEAD_INIT (NULL, 0)
  .tp_name = "torch._C._OutWrapper",
  .tp_basicsize = sizeof (TsPyOutWrapper),
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
  .tp_new = out_wrapper_new,
  .tp_dealloc = out_wrapper_dealloc,
  .tp_traverse = out_wrapper_traverse,
  .tp_call = out_wrapper_call,
  .tp_repr = out_wrapper_repr,
  .tp_members = out_wrapper_members,
  .tp_dictoffset = offsetof (TsPyOutWrapper, dict),
};

gboolean
ts_py_out_register (PyObject *module)
{
  if (PyType_Ready (&TsPyOutWrapper_Type) < 0)
    return FALSE;
  return PyModule_AddObjectRef (module, "_OutWrapper", (PyObject *) &TsPyOutWrapper_Type) == 0;
}
