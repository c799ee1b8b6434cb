/* ts-py-cuda.c: torch._C's CUDA half: devices, streams, events, memory, RNG
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Flat primitives over the session; the torch.cuda package builds PyTorch's
 * classes (Stream, Event, device) on top of them as PyTorch does over its
 * own _C.
 */

#include "config.h"

#include "ts-py-private.h"
#include "ts-callsite.h"
#include "ts-cublas-workspace.h"
#include "ts-session.h"
#include "ts-op-access.h"

static gboolean
init_or_raise (void)
{
  GError *error = NULL;

  if (!ts_session_cuda_init (&error))
    {
      ts_py_set_error (error);
      return FALSE;
    }
  return TRUE;
}

static gboolean
device_arg (PyObject *args,
            int      *device)
{
  *device = -1;
  if (!PyArg_ParseTuple (args, "|i", device))
    return FALSE;
  if (!init_or_raise ())
    return FALSE;
  if (*device < 0)
    *device = ts_session_current_device ();
  {
    GError *error = NULL;
    if (!ts_session_check_device (*device, &error))
      {
        ts_py_set_error (error);
        return FALSE;
      }
  }
  return TRUE;
}

static PyObject *
py_cuda_init (PyObject *m, PyObject *unused)
{
  if (!init_or_raise ())
    return NULL;
  Py_RETURN_NONE;
}

static PyObject *
py_cuda_is_initialized (PyObject *m, PyObject *unused)
{
  return PyBool_FromLong (ts_session_is_initialized ());
}

static PyObject *
py_cuda_device_count (PyObject *m, PyObject *unused)
{
  return PyLong_FromLong (ts_session_device_count ());
}

static PyObject *
py_cuda_current_device (PyObject *m, PyObject *unused)
{
  if (!init_or_raise ())
    return NULL;
  return PyLong_FromLong (ts_session_current_device ());
}

static PyObject *
py_cuda_set_device (PyObject *m, PyObject *arg)
{
  GError *error = NULL;
  int device = PyLong_AsLong (arg);

  if (PyErr_Occurred ())
    return NULL;
  if (device < 0)
    Py_RETURN_NONE;  /* PyTorch ignores negative indices here */
  if (!ts_session_set_device (device, &error))
    return ts_py_set_error (error);
  Py_RETURN_NONE;
}

static PyObject *
py_cuda_get_device_properties (PyObject *m, PyObject *args)
{
  int device;
  const TsGpuProfile *p;

  if (!device_arg (args, &device))
    return NULL;
  p = ts_session_get_profile (device);
  return Py_BuildValue ("{s:s,s:i,s:i,s:K,s:i,s:i,s:i}",
                        "name", p->name, "major", p->cc_major, "minor", p->cc_minor,
                        "total_memory", (unsigned long long) p->total_memory,
                        "multi_processor_count", p->sm_count,
                        "max_threads_per_multi_processor", p->max_threads_per_sm,
                        "warp_size", p->warp_size);
}

#define RT (ts_session_get_runtime ())

static PyObject *
py_cuda_synchronize (PyObject *m, PyObject *args)
{
  int device;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!device_arg (args, &device))
    return NULL;
  if (!ts_runtime_device_synchronize (RT, device, &error))
    return ts_py_set_error (error);
  ts_op_access_device_synchronize ();
  Py_RETURN_NONE;
}

/* On a real GPU: the CUDA module's spin kernel. */
static int
spin_device_run (gpointer user_data,
                 gpointer stream)
{
  return ts_session_get_device_kernels ()->spin (*(gint64 *) user_data, stream);
}

/* torch.cuda._sleep(cycles): PyTorch's spin kernel, one thread that busy-
 * waits for a number of clock cycles. PyTorch's own stream tests use it
 * to keep a stream busy; the simulator runs it cycles / boost clock on
 * the current stream, a real GPU spins. */
static PyObject *
py_cuda_sleep (PyObject *m, PyObject *arg)
{
  long long cycles = PyLong_AsLongLong (arg);
  int device = ts_session_current_device ();
  const TsGpuProfile *profile;
  TsSessionWork work = { 0 };
  GError *error = NULL;

  if (cycles == -1 && PyErr_Occurred ())
    return NULL;
  ts_py_update_callsite ();
  profile = ts_session_get_profile (device);
  if (ts_session_get_device_kernels () != NULL)
    {
      gint64 *n = g_new (gint64, 1);

      *n = MAX (cycles, 0);
      work.device_run = spin_device_run;
      work.user_data = n;
      work.destroy = g_free;
    }
  work.name = "at::cuda::(anonymous namespace)::spin_kernel(long)";
  work.stream = ts_session_current_stream (device);
  work.grid = 1;
  work.block = 1;
  work.duration = MAX ((TsTime) ((double) MAX (cycles, 0) * 1e6 / profile->clock_khz), 1);
  if (!ts_session_launch (&work, &error))
    return ts_py_set_error (error);
  Py_RETURN_NONE;
}

/* Streams */

static PyObject *
py_stream_new (PyObject *m, PyObject *args)
{
  int device, priority = 0;
  GError *error = NULL;
  TsStreamId s;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "ii", &device, &priority))
    return NULL;
  if (!init_or_raise ())
    return NULL;
  s = ts_runtime_stream_new (RT, device, priority, &error);
  if (s == TS_STREAM_NONE)
    return ts_py_set_error (error);
  ts_op_access_stream_created (s);
  return PyLong_FromUnsignedLong (s);
}

/* A device's current or default stream, as its track id. */
static PyObject *
device_stream (PyObject   *args,
               TsStreamId (*getter) (TsRuntime *, int, GError **))
{
  int device;
  GError *error = NULL;
  TsStreamId s;

  if (!device_arg (args, &device))
    return NULL;
  s = getter (RT, device, &error);
  if (s == TS_STREAM_NONE)
    return ts_py_set_error (error);
  return PyLong_FromUnsignedLong (s);
}

static PyObject *
py_stream_current (PyObject *m, PyObject *args)
{
  return device_stream (args, ts_runtime_get_current_stream);
}

static PyObject *
py_stream_default (PyObject *m, PyObject *args)
{
  return device_stream (args, ts_runtime_get_default_stream);
}

static PyObject *
py_stream_set (PyObject *m, PyObject *arg)
{
  GError *error = NULL;

  if (!init_or_raise ())
    return NULL;
  if (!ts_runtime_set_current_stream (RT, PyLong_AsUnsignedLong (arg), &error))
    return ts_py_set_error (error);
  Py_RETURN_NONE;
}

static PyObject *
py_stream_info (PyObject *m, PyObject *arg)
{
  TsStreamId s = PyLong_AsUnsignedLong (arg);

  if (!init_or_raise ())
    return NULL;
  return Py_BuildValue ("(iiK)", ts_runtime_stream_get_device (RT, s),
                        ts_runtime_stream_get_priority (RT, s),
                        (unsigned long long) ts_runtime_stream_get_handle (RT, s));
}

static PyObject *
py_stream_query (PyObject *m, PyObject *arg)
{
  gboolean done = FALSE;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!ts_runtime_stream_query (RT, PyLong_AsUnsignedLong (arg), &done, &error))
    return ts_py_set_error (error);
  return PyBool_FromLong (done);
}

static PyObject *
py_stream_synchronize (PyObject *m, PyObject *arg)
{
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!ts_runtime_stream_synchronize (RT, PyLong_AsUnsignedLong (arg), &error))
    return ts_py_set_error (error);
  ts_op_access_stream_synchronize (PyLong_AsUnsignedLong (arg));
  Py_RETURN_NONE;
}

static PyObject *
py_stream_wait_stream (PyObject *m, PyObject *args)
{
  unsigned long a, b;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "kk", &a, &b))
    return NULL;
  if (!ts_runtime_stream_wait_stream (RT, a, b, &error))
    return ts_py_set_error (error);
  ts_op_access_stream_wait_stream (a, b);
  Py_RETURN_NONE;
}

static PyObject *
py_priority_range (PyObject *m, PyObject *unused)
{
  int least = 0, greatest = 0;

  ts_gpu_profile_get_torch_priority_range (ts_session_get_profile (0), &least, &greatest);
  return Py_BuildValue ("(ii)", least, greatest);
}

/* Events */

static PyObject *
py_event_new (PyObject *m, PyObject *args)
{
  int timing = 0, blocking = 0, ipc = 0;
  TsEventFlags flags = TS_EVENT_DEFAULT;
  guint64 e;

  if (!PyArg_ParseTuple (args, "ppp", &timing, &blocking, &ipc))
    return NULL;
  if (!init_or_raise ())
    return NULL;
  if (timing)
    flags |= TS_EVENT_TIMING;
  if (blocking)
    flags |= TS_EVENT_BLOCKING;
  if (ipc)
    flags |= TS_EVENT_INTERPROCESS;
  e = ts_runtime_event_new (RT, flags);
  ts_op_access_event_created (e);
  return PyLong_FromUnsignedLongLong (e);
}

static PyObject *
py_event_record (PyObject *m, PyObject *args)
{
  unsigned long long e;
  unsigned long s;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "Kk", &e, &s))
    return NULL;
  if (!ts_runtime_event_record (RT, e, s, &error))
    return ts_py_set_error (error);
  ts_op_access_event_record (e, s);
  Py_RETURN_NONE;
}

static PyObject *
py_event_wait (PyObject *m, PyObject *args)
{
  unsigned long long e;
  unsigned long s;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "Kk", &e, &s))
    return NULL;
  if (!ts_runtime_event_wait (RT, e, s, &error))
    return ts_py_set_error (error);
  /* waiting on an event never recorded is a no-op, invisible to CSAN */
  if (ts_runtime_event_get_device (RT, e) >= 0)
    ts_op_access_stream_wait_event (s, e);
  Py_RETURN_NONE;
}

static PyObject *
py_event_query (PyObject *m, PyObject *arg)
{
  gboolean done = FALSE;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!ts_runtime_event_query (RT, PyLong_AsUnsignedLongLong (arg), &done, &error))
    return ts_py_set_error (error);
  return PyBool_FromLong (done);
}

static PyObject *
py_event_synchronize (PyObject *m, PyObject *arg)
{
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!ts_runtime_event_synchronize (RT, PyLong_AsUnsignedLongLong (arg), &error))
    return ts_py_set_error (error);
  if (ts_runtime_event_get_device (RT, PyLong_AsUnsignedLongLong (arg)) >= 0)
    ts_op_access_event_synchronize (PyLong_AsUnsignedLongLong (arg));
  Py_RETURN_NONE;
}

static PyObject *
py_event_elapsed (PyObject *m, PyObject *args)
{
  unsigned long long a, b;
  double ms;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "KK", &a, &b))
    return NULL;
  if (!ts_runtime_event_elapsed_time (RT, a, b, &ms, &error))
    return ts_py_set_error (error);
  return PyFloat_FromDouble (ms);
}

static PyObject *
py_event_handle (PyObject *m, PyObject *arg)
{
  return PyLong_FromUnsignedLongLong (ts_runtime_event_get_handle (RT, PyLong_AsUnsignedLongLong (arg)));
}

/* The device an event was last recorded on, or -1 (Event.device is None
 * until the first record). */
static PyObject *
py_event_device (PyObject *m, PyObject *arg)
{
  return PyLong_FromLong (ts_runtime_event_get_device (RT, PyLong_AsUnsignedLongLong (arg)));
}

static PyObject *
py_event_free (PyObject *m, PyObject *arg)
{
  if (RT != NULL)
    {
      ts_op_access_event_destroyed (PyLong_AsUnsignedLongLong (arg));
      ts_runtime_event_free (RT, PyLong_AsUnsignedLongLong (arg), NULL);
    }
  Py_RETURN_NONE;
}

/* Memory */

static PyObject *
py_memory_stats (PyObject *m, PyObject *args)
{
  int device;
  PyObject *dict;
  GHashTableIter iter;
  gpointer key, value;
  g_autoptr(GHashTable) table = NULL;

  if (!PyArg_ParseTuple (args, "i", &device))
    return NULL;
  table = ts_session_memory_stats (device);
  dict = PyDict_New ();
  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      PyObject *v = PyLong_FromLongLong (*(gint64 *) value);
      PyDict_SetItemString (dict, key, v);
      Py_DECREF (v);
    }
  return dict;
}

static PyObject *
py_memory_summary (PyObject *m, PyObject *args)
{
  int device, abbreviated = 0;
  g_autofree char *text = NULL;

  if (!PyArg_ParseTuple (args, "i|p", &device, &abbreviated))
    return NULL;
  text = ts_session_memory_summary (device, abbreviated);
  return PyUnicode_FromString (text);
}

static PyObject *
py_empty_cache (PyObject *m, PyObject *unused)
{
  ts_py_update_callsite ();
  ts_session_empty_cache ();
  Py_RETURN_NONE;
}

/* _cuda_clearCublasWorkspaces(): the cuBLAS workspaces go back to the
 * caching allocator (they stay reserved until empty_cache). */
static PyObject *
py_clear_cublas_workspaces (PyObject *m, PyObject *unused)
{
  ts_py_update_callsite ();
  ts_cublas_workspace_clear ();
  Py_RETURN_NONE;
}

/* PyTorch's TORCH_WARN from the cuBLAS setup: a UserWarning at the
 * script's line (the op's call site, outside the torch package, as a C++
 * warning names the innermost Python frame of an op written in C++).
 * Under -W error the warning cannot become the op's exception from inside
 * the core; it is printed as unraisable instead. */
static void
cublas_warn (const char *message)
{
  TsSourceLoc loc = ts_callsite_get ();
  const char *file = loc.file != 0 ? ts_recorder_lookup (ts_session_get_recorder (), loc.file) : NULL;
  int failed;

  if (file != NULL)
    failed = PyErr_WarnExplicit (PyExc_UserWarning, message, file, (int) loc.line, NULL, NULL);
  else
    failed = PyErr_WarnEx (PyExc_UserWarning, message, 1);
  if (failed < 0)
    PyErr_WriteUnraisable (NULL);
}

/* _caching_allocator_alloc(size, device, handle): raw_alloc of torch.cuda
 * (a block of the device's caching allocator, counted in its stats, that no
 * tensor owns) on the stream whose cuda_stream is handle. */
static PyObject *
py_caching_allocator_alloc (PyObject *m, PyObject *args)
{
  unsigned long long size, handle;
  int device;
  TsStreamId stream = TS_STREAM_NONE;
  guint64 addr = 0;
  guint8 *host;
  gpointer block;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "KiK", &size, &device, &handle))
    return NULL;
  if (!init_or_raise () || !ts_session_check_device (device, &error))
    return error != NULL ? ts_py_set_error (error) : NULL;
  if (handle == 0)
    stream = ts_runtime_get_default_stream (RT, device, NULL);
  for (TsStreamId s = 0; handle != 0 && ts_runtime_stream_is_valid (RT, s); s++)
    if (ts_runtime_stream_get_handle (RT, s) == handle && ts_runtime_stream_get_device (RT, s) == device)
      stream = s;
  if (stream == TS_STREAM_NONE)
    {
      /* a GPU would take any handle; the simulated one must know the stream */
      PyErr_Format (PyExc_ValueError, "no stream with cuda_stream %#llx on device %d", handle, device);
      return NULL;
    }
  if (size == 0)
    return PyLong_FromLong (0);  /* as raw_alloc: nothing, a null pointer */
  if (!ts_session_malloc (device, size, stream, &addr, &host, &block, &error))
    return ts_py_set_error (error);
  ts_op_access_alloc (addr, size, stream);
  return PyLong_FromUnsignedLongLong (addr);
}

/* _caching_allocator_delete(ptr): raw_delete; 0 does nothing, a pointer
 * the allocator did not hand out is "invalid device pointer". */
static PyObject *
py_caching_allocator_delete (PyObject *m, PyObject *arg)
{
  unsigned long long addr = PyLong_AsUnsignedLongLong (arg);
  TsSourceLoc loc;
  GError *error = NULL;

  if (addr == (unsigned long long) -1 && PyErr_Occurred ())
    return NULL;
  ts_py_update_callsite ();
  if (addr == 0)
    Py_RETURN_NONE;
  if (!init_or_raise ())
    return NULL;
  loc = ts_callsite_get ();
  if (!ts_allocator_free (ts_session_get_allocator (), addr, &loc, &error))
    return ts_py_set_error (error);
  ts_op_access_free (addr);
  Py_RETURN_NONE;
}

static PyObject *
py_reset_peak (PyObject *m, PyObject *args)
{
  int device;

  if (!PyArg_ParseTuple (args, "i", &device))
    return NULL;
  ts_session_reset_peak_stats (device);
  Py_RETURN_NONE;
}

static PyObject *
py_reset_accumulated (PyObject *m, PyObject *args)
{
  int device;

  if (!PyArg_ParseTuple (args, "i", &device))
    return NULL;
  ts_session_reset_accumulated_stats (device);
  Py_RETURN_NONE;
}

static PyObject *
py_set_memory_fraction (PyObject *m, PyObject *args)
{
  double fraction;
  int device;
  GError *error = NULL;

  if (!PyArg_ParseTuple (args, "di", &fraction, &device))
    return NULL;
  if (!ts_session_set_memory_fraction (device, fraction, &error))
    return ts_py_set_error (error);
  Py_RETURN_NONE;
}

static PyObject *
py_mem_get_info (PyObject *m, PyObject *args)
{
  int device;
  guint64 free_bytes, total;

  if (!device_arg (args, &device))
    return NULL;
  ts_session_mem_get_info (device, &free_bytes, &total);
  return Py_BuildValue ("(KK)", (unsigned long long) free_bytes, (unsigned long long) total);
}

static PyObject *
frames_for (TsSourceLoc loc)
{
  TsRecorder *recorder = ts_session_get_recorder ();

  if (loc.file == 0)
    return PyList_New (0);
  return Py_BuildValue ("[{s:s,s:I,s:s}]",
                        "filename", ts_recorder_lookup (recorder, loc.file),
                        "line", loc.line,
                        "name", ts_recorder_lookup (recorder, loc.function));
}

/* torch.cuda.memory._snapshot(): segments with their blocks, and the
 * per-device history of allocator actions, in PyTorch's layout. */
static PyObject *
py_memory_snapshot (PyObject *m, PyObject *unused)
{
  TsAllocator *allocator = ts_session_get_allocator ();
  g_autoptr(TsMemorySnapshot) snap = NULL;
  PyObject *segments, *traces;

  if (allocator == NULL)
    return Py_BuildValue ("{s:[],s:[]}", "segments", "device_traces");
  snap = ts_allocator_snapshot (allocator);
  segments = PyList_New (0);
  for (guint i = 0; i < snap->segments->len; i++)
    {
      const TsSnapshotSegment *seg = &g_array_index (snap->segments, TsSnapshotSegment, i);
      PyObject *blocks = PyList_New (0);
      PyObject *item;

      for (guint j = 0; j < seg->n_blocks; j++)
        {
          const TsSnapshotBlock *b = &g_array_index (snap->blocks, TsSnapshotBlock, seg->first_block + j);
          PyObject *block = Py_BuildValue ("{s:K,s:K,s:K,s:s,s:N}",
                                           "address", (unsigned long long) b->address,
                                           "size", (unsigned long long) b->size,
                                           "requested_size", (unsigned long long) b->requested_size,
                                           "state", ts_block_state_to_string (b->state),
                                           "frames", frames_for (b->loc));
          PyList_Append (blocks, block);
          Py_DECREF (block);
        }
      item = Py_BuildValue ("{s:I,s:K,s:K,s:K,s:K,s:K,s:K,s:s,s:(KK),s:O,s:N,s:N}",
                            "device", seg->device,
                            "address", (unsigned long long) seg->address,
                            "total_size", (unsigned long long) seg->total_size,
                            "allocated_size", (unsigned long long) seg->allocated_size,
                            "active_size", (unsigned long long) seg->active_size,
                            "requested_size", (unsigned long long) seg->requested_size,
                            "stream", (unsigned long long) ts_runtime_stream_get_handle (RT, seg->stream),
                            "segment_type", seg->is_small ? "small" : "large",
                            "segment_pool_id", (unsigned long long) seg->pool_id.first,
                            (unsigned long long) seg->pool_id.second,
                            "is_expandable", seg->is_expandable ? Py_True : Py_False,
                            "frames", frames_for (seg->loc),
                            "blocks", blocks);
      PyList_Append (segments, item);
      Py_DECREF (item);
    }
  traces = PyList_New (0);
  for (guint d = 0; d < snap->n_devices; d++)
    {
      PyObject *list = PyList_New (0);
      GArray *entries = snap->device_traces[d];

      for (guint i = 0; entries != NULL && i < entries->len; i++)
        {
          const TsAllocTraceEntry *e = &g_array_index (entries, TsAllocTraceEntry, i);
          PyObject *entry = Py_BuildValue ("{s:s,s:K,s:K,s:K,s:L,s:N}",
                                           "action", ts_alloc_action_to_string (e->action),
                                           "addr", (unsigned long long) e->addr,
                                           "size", (unsigned long long) e->size,
                                           "stream", (unsigned long long) (e->stream == TS_STREAM_NONE ? 0 :
                                                      ts_runtime_stream_get_handle (RT, e->stream)),
                                           "time_us", (long long) (e->time / 1000),
                                           "frames", frames_for (e->loc));
          PyList_Append (list, entry);
          Py_DECREF (entry);
        }
      PyList_Append (traces, list);
      Py_DECREF (list);
    }
  return Py_BuildValue ("{s:N,s:N}", "segments", segments, "device_traces", traces);
}

static PyObject *
py_record_memory_history (PyObject *m, PyObject *args)
{
  int enabled = 1;
  unsigned long long max_entries = G_MAXSIZE;

  if (!PyArg_ParseTuple (args, "pK", &enabled, &max_entries))
    return NULL;
  if (!init_or_raise ())
    return NULL;
  ts_allocator_record_history (ts_session_get_allocator (), enabled, (gsize) max_entries, 0, FALSE);
  Py_RETURN_NONE;
}

/* CUDA graphs: stream capture and replay ------------------------------- */

#define GRAPH_CAPSULE "tensorscope.cuda_graph"

static void
graph_capsule_free (PyObject *capsule)
{
  TsGraph *graph = PyCapsule_GetPointer (capsule, GRAPH_CAPSULE);

  if (graph != NULL && RT != NULL)
    ts_runtime_graph_free (RT, graph);
}

/* Returns the capture's id. */
static PyObject *
py_graph_capture_begin (PyObject *m, PyObject *arg)
{
  GError *error = NULL;

  /* a real GPU would need CUDA's own capture (cudaStreamBeginCapture) */
  if (ts_session_get_device_kernels () != NULL)
    {
      PyErr_SetString (PyExc_NotImplementedError,
                       "CUDA graph capture on a real GPU (the cuda backend) is not modeled by Tensorscope yet");
      return NULL;
    }
  ts_py_update_callsite ();
  if (!ts_runtime_capture_begin (RT, PyLong_AsUnsignedLong (arg), &error))
    return ts_py_set_error (error);
  return PyLong_FromUnsignedLongLong (ts_runtime_stream_get_capture_id (RT, PyLong_AsUnsignedLong (arg)));
}

/* CUDAGraph::capture_begin's filter: allocations on the streams of this
 * capture (its own, and those that joined it) go to the graph's pool. */
static gboolean
capture_pool_filter (TsStreamId stream,
                     gpointer   user_data)
{
  return ts_runtime_stream_get_capture_id (RT, stream) == GPOINTER_TO_SIZE (user_data);
}

static PyObject *
py_graph_capture_end (PyObject *m, PyObject *arg)
{
  GError *error = NULL;
  TsGraph *graph;

  ts_py_update_callsite ();
  if ((graph = ts_runtime_capture_end (RT, PyLong_AsUnsignedLong (arg), &error)) == NULL)
    return ts_py_set_error (error);
  return PyCapsule_New (graph, GRAPH_CAPSULE, graph_capsule_free);
}

static PyObject *
py_graph_replay (PyObject *m, PyObject *args)
{
  GError *error = NULL;
  unsigned long stream;
  PyObject *capsule;
  TsGraph *graph;

  if (!PyArg_ParseTuple (args, "Ok", &capsule, &stream) ||
      (graph = PyCapsule_GetPointer (capsule, GRAPH_CAPSULE)) == NULL)
    return NULL;
  ts_py_update_callsite ();
  if (!ts_runtime_graph_launch (RT, graph, (TsStreamId) stream, &error))
    return ts_py_set_error (error);
  Py_RETURN_NONE;
}

static PyObject *
py_graph_n_nodes (PyObject *m, PyObject *capsule)
{
  TsGraph *graph = PyCapsule_GetPointer (capsule, GRAPH_CAPSULE);

  return graph == NULL ? NULL : PyLong_FromUnsignedLong (ts_runtime_graph_get_n_nodes (graph));
}

static PyObject *
py_stream_is_capturing (PyObject *m, PyObject *arg)
{
  if (RT == NULL)
    Py_RETURN_FALSE;
  return PyBool_FromLong (ts_runtime_stream_is_capturing (RT, PyLong_AsUnsignedLong (arg)));
}

/* Private pools (CUDA graphs' and torch.cuda.MemPool's) ----------------- */

static PyObject *
py_graph_pool_handle (PyObject *m, PyObject *args)
{
  int is_user_created = 1;
  TsMemPoolId id;

  if (!PyArg_ParseTuple (args, "|p", &is_user_created) || !init_or_raise ())
    return NULL;
  id = ts_allocator_graph_pool_handle (ts_session_get_allocator (), is_user_created);
  return Py_BuildValue ("(KK)", (unsigned long long) id.first, (unsigned long long) id.second);
}

typedef enum
{
  POOL_CREATE_OR_INCREF,
  POOL_BEGIN,
  POOL_BEGIN_CAPTURE,
  POOL_END,
  POOL_RELEASE,
  POOL_USE_COUNT,
} PoolCall;

/* (device, (first, second)[, capture id]): the allocator's pool calls. */
static PyObject *
pool_call (PyObject *args,
           PoolCall  call)
{
  TsAllocator *allocator;
  unsigned long long first, second, capture_id = 0;
  TsMemPoolId id;
  GError *error = NULL;
  gboolean ok = TRUE;
  int device;

  if (!PyArg_ParseTuple (args, "i(KK)|K", &device, &first, &second, &capture_id) || !init_or_raise ())
    return NULL;
  allocator = ts_session_get_allocator ();
  id.first = first;
  id.second = second;
  if (!ts_session_check_device (device, &error))
    return ts_py_set_error (error);
  switch (call)
    {
    case POOL_CREATE_OR_INCREF:
      ok = ts_allocator_create_or_incref_pool (allocator, device, id, &error);
      break;
    case POOL_BEGIN:
      /* every allocation of this (the only Python) thread */
      ok = ts_allocator_begin_allocate_to_pool (allocator, device, id, NULL, NULL, &error);
      break;
    case POOL_BEGIN_CAPTURE:
      ok = ts_allocator_begin_allocate_to_pool (allocator, device, id, capture_pool_filter,
                                                GSIZE_TO_POINTER (capture_id), &error);
      break;
    case POOL_END:
      ok = ts_allocator_end_allocate_to_pool (allocator, device, id, &error);
      break;
    case POOL_RELEASE:
      ok = ts_allocator_release_pool (allocator, device, id, &error);
      break;
    case POOL_USE_COUNT:
    default:
      return PyLong_FromLong (ts_allocator_get_pool_use_count (allocator, device, id));
    }
  if (!ok)
    return ts_py_set_error (error);
  Py_RETURN_NONE;
}

#define POOL_METHOD(name, call) \
  static PyObject *name (PyObject *m, PyObject *args) { return pool_call (args, call); }

POOL_METHOD (py_create_or_incref_pool, POOL_CREATE_OR_INCREF)
POOL_METHOD (py_begin_allocate_to_pool, POOL_BEGIN)
POOL_METHOD (py_begin_allocate_to_pool_for_capture, POOL_BEGIN_CAPTURE)
POOL_METHOD (py_end_allocate_to_pool, POOL_END)
POOL_METHOD (py_release_pool, POOL_RELEASE)
POOL_METHOD (py_pool_use_count, POOL_USE_COUNT)

static PyObject *
py_empty_cache_pools (PyObject *m, PyObject *unused)
{
  TsAllocator *allocator = ts_session_get_allocator ();

  if (allocator != NULL)
    ts_allocator_empty_cache_pools (allocator);
  Py_RETURN_NONE;
}

static PyObject *
py_set_allocator_settings (PyObject *m, PyObject *arg)
{
  const char *settings = PyUnicode_AsUTF8 (arg);
  GError *error = NULL;

  if (settings == NULL || !init_or_raise ())
    return NULL;
  if (!ts_allocator_apply_settings (ts_session_get_allocator (), settings, &error))
    return ts_py_set_error (error);
  Py_RETURN_NONE;
}

/* RNG: device -1 is the CPU generator */

static PyObject *
py_rng_manual_seed (PyObject *m, PyObject *args)
{
  int device;
  unsigned long long seed;

  if (!PyArg_ParseTuple (args, "iK", &device, &seed))
    return NULL;
  ts_rng_manual_seed (device, seed);
  Py_RETURN_NONE;
}

static PyObject *
py_rng_initial_seed (PyObject *m, PyObject *args)
{
  int device;

  if (!PyArg_ParseTuple (args, "i", &device))
    return NULL;
  return PyLong_FromUnsignedLongLong (ts_rng_initial_seed (device));
}

/* CUDAGraph's graph-safe generator: (device) and (device, increment). */
static PyObject *
py_rng_graph (PyObject *args,
              int       step)
{
  unsigned long long increment = 0;
  GError *error = NULL;
  int device;

  if (!PyArg_ParseTuple (args, "i|K", &device, &increment) || !init_or_raise ())
    return NULL;
  if (!ts_session_check_device (device, &error))
    return ts_py_set_error (error);
  if (step == 0)
    ts_rng_capture_prologue (device);
  else if (step == 1)
    return PyLong_FromUnsignedLongLong (ts_rng_capture_epilogue (device));
  else
    ts_rng_replay_prologue (device, increment);
  Py_RETURN_NONE;
}

static PyObject *py_rng_capture_prologue (PyObject *m, PyObject *args) { return py_rng_graph (args, 0); }
static PyObject *py_rng_capture_epilogue (PyObject *m, PyObject *args) { return py_rng_graph (args, 1); }
static PyObject *py_rng_replay_prologue (PyObject *m, PyObject *args) { return py_rng_graph (args, 2); }

static PyObject *
py_rng_seed (PyObject *m, PyObject *args)
{
  int device;

  if (!PyArg_ParseTuple (args, "i", &device))
    return NULL;
  return PyLong_FromUnsignedLongLong (ts_rng_seed (device));
}

static PyObject *
py_rng_get_state (PyObject *m, PyObject *args)
{
  int device;
  g_autoptr(GBytes) state = NULL;
  gsize n;
  const char *data;

  if (!PyArg_ParseTuple (args, "i", &device))
    return NULL;
  state = ts_rng_get_state (device);
  data = g_bytes_get_data (state, &n);
  return PyBytes_FromStringAndSize (data, n);
}

static PyObject *
py_rng_set_state (PyObject *m, PyObject *args)
{
  int device;
  const char *data;
  Py_ssize_t n;
  g_autoptr(GBytes) state = NULL;
  GError *error = NULL;

  if (!PyArg_ParseTuple (args, "iy#", &device, &data, &n))
    return NULL;
  state = g_bytes_new (data, n);
  if (!ts_rng_set_state (device, state, &error))
    return ts_py_set_error (error);
  Py_RETURN_NONE;
}

static PyObject *
py_rng_cpu_generator_new (PyObject *m, PyObject *args)
{
  return PyLong_FromLong (ts_rng_cpu_generator_new ());
}

/* A composite op's aten:: span (scaled_dot_product_attention) around the
 * ops it calls, as PyTorch's profiler nests a CompositeImplicit op's
 * children; like every op's span, nothing before CUDA is up. */

static PyObject *
py_api_range_push (PyObject *m, PyObject *args)
{
  const char *name;
  int device;

  if (!PyArg_ParseTuple (args, "si", &name, &device))
    return NULL;
  ts_py_update_callsite ();
  return PyLong_FromUnsignedLongLong (ts_session_api_begin (name, device));
}

static PyObject *
py_api_range_pop (PyObject *m, PyObject *arg)
{
  guint64 correlation = PyLong_AsUnsignedLongLong (arg);

  if (PyErr_Occurred ())
    return NULL;
  ts_py_update_callsite ();
  ts_session_api_end (correlation);
  Py_RETURN_NONE;
}

/* NVTX: recorded even before any CUDA call, so the runtime comes up. */

/* A call's message once the runtime is up; NULL with a Python error set. */
static const char *
nvtx_message (PyObject *arg)
{
  const char *msg = PyUnicode_AsUTF8 (arg);

  ts_py_update_callsite ();
  if (msg == NULL || !init_or_raise ())
    return NULL;
  return msg;
}

static PyObject *
py_nvtx_push (PyObject *m, PyObject *arg)
{
  const char *msg = nvtx_message (arg);

  return msg ? PyLong_FromLong (ts_runtime_nvtx_range_push (RT, msg)) : NULL;
}

static PyObject *
py_nvtx_pop (PyObject *m, PyObject *unused)
{
  ts_py_update_callsite ();
  if (!init_or_raise ())
    return NULL;
  return PyLong_FromLong (ts_runtime_nvtx_range_pop (RT));
}

static PyObject *
py_nvtx_mark (PyObject *m, PyObject *arg)
{
  const char *msg = nvtx_message (arg);

  if (msg == NULL)
    return NULL;
  ts_runtime_nvtx_mark (RT, msg);
  Py_RETURN_NONE;
}

static PyObject *
py_nvtx_range_start (PyObject *m, PyObject *arg)
{
  const char *msg = nvtx_message (arg);

  return msg ? PyLong_FromUnsignedLongLong (ts_runtime_nvtx_range_start (RT, msg)) : NULL;
}


static PyObject *
py_nvtx_range_end (PyObject *m, PyObject *arg)
{
  ts_py_update_callsite ();
  if (!init_or_raise ())
    return NULL;
  ts_runtime_nvtx_range_end (RT, PyLong_AsUnsignedLongLong (arg));
  Py_RETURN_NONE;
}

/* _charge_host(name, count): the Python package's constructs (a module
 * call, an optimizer step...) charge the profile's host cost of that
 * construct, ts_gpu_profile.h's TsHostCost named as in ts-gpu-profile.c. */
static PyObject *
py_charge_host (PyObject *m, PyObject *args)
{
  const char *name;
  unsigned int count = 1;
  int what;

  if (!PyArg_ParseTuple (args, "s|I", &name, &count))
    return NULL;
  what = ts_host_cost_from_name (name);
  if (what < 0)
    {
      PyErr_Format (PyExc_ValueError, "unknown host cost '%s'", name);
      return NULL;
    }
  ts_session_charge_host (what, count);
  Py_RETURN_NONE;
}

/* Whether device work runs on a real GPU (the CUDA module): ops its
 * module has no kernel for would take the host fallback there */
static PyObject *
py_on_hardware (PyObject *m,
                PyObject *unused)
{
  return PyBool_FromLong (ts_session_get_device_kernels () != NULL);
}

static PyMethodDef cuda_methods[] = {
  { "_on_hardware", py_on_hardware, METH_NOARGS, NULL },
  { "_charge_host", py_charge_host, METH_VARARGS, NULL },
  { "_cuda_init", py_cuda_init, METH_NOARGS, NULL },
  { "_cuda_is_initialized", py_cuda_is_initialized, METH_NOARGS, NULL },
  { "_cuda_device_count", py_cuda_device_count, METH_NOARGS, NULL },
  { "_cuda_current_device", py_cuda_current_device, METH_NOARGS, NULL },
  { "_cuda_set_device", py_cuda_set_device, METH_O, NULL },
  { "_cuda_get_device_properties", py_cuda_get_device_properties, METH_VARARGS, NULL },
  { "_cuda_synchronize", py_cuda_synchronize, METH_VARARGS, NULL },
  { "_cuda_sleep", py_cuda_sleep, METH_O, NULL },
  { "_stream_new", py_stream_new, METH_VARARGS, NULL },
  { "_stream_current", py_stream_current, METH_VARARGS, NULL },
  { "_stream_default", py_stream_default, METH_VARARGS, NULL },
  { "_stream_set", py_stream_set, METH_O, NULL },
  { "_stream_info", py_stream_info, METH_O, NULL },
  { "_stream_query", py_stream_query, METH_O, NULL },
  { "_stream_synchronize", py_stream_synchronize, METH_O, NULL },
  { "_stream_wait_stream", py_stream_wait_stream, METH_VARARGS, NULL },
  { "_stream_priority_range", py_priority_range, METH_NOARGS, NULL },
  { "_event_new", py_event_new, METH_VARARGS, NULL },
  { "_event_record", py_event_record, METH_VARARGS, NULL },
  { "_event_wait", py_event_wait, METH_VARARGS, NULL },
  { "_event_query", py_event_query, METH_O, NULL },
  { "_event_synchronize", py_event_synchronize, METH_O, NULL },
  { "_event_elapsed_time", py_event_elapsed, METH_VARARGS, NULL },
  { "_event_handle", py_event_handle, METH_O, NULL },
  { "_event_device", py_event_device, METH_O, NULL },
  { "_event_free", py_event_free, METH_O, NULL },
  { "_memory_stats", py_memory_stats, METH_VARARGS, NULL },
  { "_memory_summary", py_memory_summary, METH_VARARGS, NULL },
  { "_empty_cache", py_empty_cache, METH_NOARGS, NULL },
  { "_cuda_clearCublasWorkspaces", py_clear_cublas_workspaces, METH_NOARGS, NULL },
  { "_caching_allocator_alloc", py_caching_allocator_alloc, METH_VARARGS, NULL },
  { "_caching_allocator_delete", py_caching_allocator_delete, METH_O, NULL },
  { "_reset_peak_memory_stats", py_reset_peak, METH_VARARGS, NULL },
  { "_reset_accumulated_memory_stats", py_reset_accumulated, METH_VARARGS, NULL },
  { "_set_memory_fraction", py_set_memory_fraction, METH_VARARGS, NULL },
  { "_mem_get_info", py_mem_get_info, METH_VARARGS, NULL },
  { "_memory_snapshot", py_memory_snapshot, METH_NOARGS, NULL },
  { "_record_memory_history", py_record_memory_history, METH_VARARGS, NULL },
  { "_graph_capture_begin", py_graph_capture_begin, METH_O, NULL },
  { "_graph_capture_end", py_graph_capture_end, METH_O, NULL },
  { "_graph_replay", py_graph_replay, METH_VARARGS, NULL },
  { "_graph_n_nodes", py_graph_n_nodes, METH_O, NULL },
  { "_stream_is_capturing", py_stream_is_capturing, METH_O, NULL },
  { "_graph_pool_handle", py_graph_pool_handle, METH_VARARGS, NULL },
  { "_cuda_createOrIncrefPool", py_create_or_incref_pool, METH_VARARGS, NULL },
  { "_cuda_beginAllocateCurrentThreadToPool", py_begin_allocate_to_pool, METH_VARARGS, NULL },
  { "_cuda_beginAllocateToPool", py_begin_allocate_to_pool_for_capture, METH_VARARGS, NULL },
  { "_cuda_endAllocateToPool", py_end_allocate_to_pool, METH_VARARGS, NULL },
  { "_cuda_releasePool", py_release_pool, METH_VARARGS, NULL },
  { "_cuda_poolUseCount", py_pool_use_count, METH_VARARGS, NULL },
  { "_cuda_emptyCachePools", py_empty_cache_pools, METH_NOARGS, NULL },
  { "_cuda_cudaCachingAllocator_set_allocator_settings", py_set_allocator_settings, METH_O, NULL },
  { "_rng_manual_seed", py_rng_manual_seed, METH_VARARGS, NULL },
  { "_rng_initial_seed", py_rng_initial_seed, METH_VARARGS, NULL },
  { "_rng_seed", py_rng_seed, METH_VARARGS, NULL },
  { "_rng_capture_prologue", py_rng_capture_prologue, METH_VARARGS, NULL },
  { "_rng_capture_epilogue", py_rng_capture_epilogue, METH_VARARGS, NULL },
  { "_rng_replay_prologue", py_rng_replay_prologue, METH_VARARGS, NULL },
  { "_rng_get_state", py_rng_get_state, METH_VARARGS, NULL },
  { "_rng_set_state", py_rng_set_state, METH_VARARGS, NULL },
  { "_rng_cpu_generator_new", py_rng_cpu_generator_new, METH_NOARGS, NULL },
  { "_api_range_push", py_api_range_push, METH_VARARGS, NULL },
  { "_api_range_pop", py_api_range_pop, METH_O, NULL },
  { "_nvtx_range_push", py_nvtx_push, METH_O, NULL },
  { "_nvtx_range_pop", py_nvtx_pop, METH_NOARGS, NULL },
  { "_nvtx_mark", py_nvtx_mark, METH_O, NULL },
  { "_nvtx_range_start", py_nvtx_range_start, METH_O, NULL },
  { "_nvtx_range_end", py_nvtx_range_end, METH_O, NULL },
  { NULL }
};

gboolean
ts_py_cuda_register (PyObject *module)
{
  ts_py_oom_error = PyErr_NewException ("torch.cuda.OutOfMemoryError", PyExc_RuntimeError, NULL);
  if (ts_py_oom_error == NULL || PyModule_AddObject (module, "OutOfMemoryError", Py_NewRef (ts_py_oom_error)) < 0)
    return FALSE;
  ts_cublas_workspace_set_warn_func (cublas_warn);
  return PyModule_AddFunctions (module, cuda_methods) == 0;
}

static struct PyModuleDef torch_c_module = {
  PyModuleDef_HEAD_INIT,
  .m_name = "torch._C",
  .m_doc = "Tensorscope's torch core",
  .m_size = -1,
};

/* Each part of torch._C adds its functions; one per line, in no order. */
static gboolean (*const registers[]) (PyObject *module) = {
  ts_py_tensor_register,
  ts_py_cuda_register,
  ts_py_sanitizer_register,
  ts_py_grad_register,
  ts_py_trace_register,
  ts_py_print_register,
  ts_py_autograd_register,
  ts_py_numpy_register,
  ts_py_index_register,
  ts_py_shape_register,
  ts_py_amp_register,
  ts_py_foreach_register,
  ts_py_storage_register,
  ts_py_more_register,
  ts_py_out_register,
  ts_py_conv_register,
  ts_py_pool_register,
  ts_py_complex_register,
  ts_py_fft_register,
  ts_py_linalg_register,
};

PyObject *
ts_py_init_module (void)
{
  PyObject *module = PyModule_Create (&torch_c_module);

  if (module == NULL)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (registers); i++)
    if (!registers[i] (module))
      {
        Py_DECREF (module);
        return NULL;
      }
  return module;
}
