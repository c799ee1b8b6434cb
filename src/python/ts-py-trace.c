/* ts-py-trace.c: the run's own trace, read back from Python
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * torch.profiler answers from what the session already records: between
 * its start and its stop it reads the records appended in between. Records
 * come out as dicts keyed by their field names, from the trace library's
 * field tables (ts-record.h), so this file knows no record kind by name
 * and a new field reaches Python without a change here.
 */

#include "config.h"

#include "ts-py-private.h"
#include "ts-recorder.h"
#include "ts-runtime.h"
#include "ts-session.h"

static const TsRecordInfo *
kind_arg (const char *name)
{
  const TsRecordInfo *info = ts_record_info_lookup (name);

  if (info == NULL)
    PyErr_Format (PyExc_ValueError, "no record kind named '%s'", name);
  return info;
}

/* _trace_count(kind): how many records of the kind the run has made. */
static PyObject *
py_trace_count (PyObject *m, PyObject *arg)
{
  const char *name = PyUnicode_AsUTF8 (arg);
  const TsRecordInfo *info;

  if (name == NULL || (info = kind_arg (name)) == NULL)
    return NULL;
  return PyLong_FromSize_t (ts_recorder_get_count (ts_session_get_recorder (), info->kind));
}

static PyObject *
field_value (TsRecorder        *recorder,
             const guint8      *rec,
             const TsFieldInfo *f)
{
  const guint8 *p = rec + f->offset;

  switch (f->type)
    {
    case TS_FIELD_U32:
    case TS_FIELD_STREAM:
      return PyLong_FromUnsignedLong (*(const guint32 *) p);
    case TS_FIELD_I32:
      return PyLong_FromLong (*(const gint32 *) p);
    case TS_FIELD_U64:
      return PyLong_FromUnsignedLongLong (*(const guint64 *) p);
    case TS_FIELD_I64:
    case TS_FIELD_TIME:
      return PyLong_FromLongLong (*(const gint64 *) p);
    case TS_FIELD_STRING:
      return PyUnicode_FromString (ts_recorder_lookup (recorder, *(const guint32 *) p));
    case TS_FIELD_PAD:
    default:
      return NULL;
    }
}

static PyObject *
record_dict (TsRecorder         *recorder,
             const TsRecordInfo *info,
             const guint8       *rec)
{
  PyObject *d = PyDict_New ();

  for (guint i = 0; d != NULL && i < info->n_fields; i++)
    {
      const TsFieldInfo *f = &info->fields[i];
      PyObject *v;

      if (f->type == TS_FIELD_PAD)
        continue;
      v = field_value (recorder, rec, f);
      if (v == NULL || PyDict_SetItemString (d, f->name, v) < 0)
        {
          Py_XDECREF (v);
          Py_CLEAR (d);
          break;
        }
      Py_DECREF (v);
    }
  return d;
}

/* _trace_records(kind, first): the records of the kind from index first
 * on, as dicts. Records a streaming run already handed to its writer and
 * dropped from memory are skipped (none inside a _trace_hold). */
static PyObject *
py_trace_records (PyObject *m, PyObject *args)
{
  TsRecorder *recorder = ts_session_get_recorder ();
  const char *name;
  Py_ssize_t first;
  const TsRecordInfo *info;
  gsize n;
  guint8 buf[TS_RECORD_MAX_SIZE];
  PyObject *list;

  if (!PyArg_ParseTuple (args, "sn", &name, &first) || (info = kind_arg (name)) == NULL)
    return NULL;
  n = ts_recorder_get_count (recorder, info->kind);
  list = PyList_New (0);
  for (gsize i = (gsize) MAX (first, 0); list != NULL && i < n; i++)
    {
      PyObject *d;

      if (!ts_recorder_get (recorder, info->kind, i, buf))
        continue;
      d = record_dict (recorder, info, buf);
      if (d == NULL || PyList_Append (list, d) < 0)
        Py_CLEAR (list);
      Py_XDECREF (d);
    }
  return list;
}

/* _trace_host_time(): the host thread's virtual time now, in ns (0 before
 * CUDA starts: nothing has taken time yet). */
static PyObject *
py_trace_host_time (PyObject *m, PyObject *unused)
{
  TsRuntime *runtime = ts_session_get_runtime ();

  return PyLong_FromLongLong (runtime != NULL ? ts_runtime_get_host_time (runtime) : 0);
}

/* _trace_hold(on): while a profiler window is open (holds nest), a run
 * that streams its trace keeps every record in memory too, so that the
 * window reads all of its own (bounded mode dropped all but the newest
 * 1024 of each kind, and the profiler's counts came out short, silently). */
static PyObject *
py_trace_hold (PyObject *m, PyObject *arg)
{
  static guint holds;
  static gboolean was_bounded;
  TsRecorder *recorder = ts_session_get_recorder ();
  int on = PyObject_IsTrue (arg);

  if (on < 0)
    return NULL;
  if (on && holds++ == 0)
    {
      was_bounded = !ts_recorder_get_keep_records (recorder);
      if (was_bounded)
        ts_recorder_set_keep_records (recorder, TRUE);
    }
  else if (!on && holds > 0 && --holds == 0 && was_bounded)
    ts_recorder_set_keep_records (recorder, FALSE);
  Py_RETURN_NONE;
}

static PyMethodDef trace_methods[] = {
  { "_trace_hold", py_trace_hold, METH_O, NULL },
  { "_trace_host_time", py_trace_host_time, METH_NOARGS, NULL },
  { "_trace_count", py_trace_count, METH_O, NULL },
  { "_trace_records", py_trace_records, METH_VARARGS, NULL },
  { NULL }
};

gboolean
ts_py_trace_register (PyObject *module)
{
  return PyModule_AddFunctions (module, trace_methods) == 0;
}
