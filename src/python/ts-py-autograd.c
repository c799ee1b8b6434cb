/* ts-py-autograd.c: autograd in Python (issue #15)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A Python tensor's autograd state is its TsTensor's (ts-autograd.h):
 * requires_grad, grad, grad_fn and hooks live there, so ops recorded by
 * the op table and the engine see what Python sets. This file adds the
 * Tensor attributes (requires_grad, is_leaf, grad, grad_fn, retains_grad,
 * _version), the grad_fn objects (name(), next_functions), tensor hooks
 * that call Python, and torch._C's _run_backward and _run_grad, which
 * torch/autograd/__init__.py wraps with PyTorch's argument handling.
 */

#include "config.h"

#include "ts-autograd.h"
#include "ts-py-private.h"

/* A Python exception raised by a hook while the engine ran: the engine
 * only knows GErrors, so the exception waits here and is put back when
 * the pass returns. */
static PyObject *hook_exc_type, *hook_exc_value, *hook_exc_tb;

static PyObject *
raise_error (GError *error)
{
  if (hook_exc_type != NULL)
    {
      g_error_free (error);
      PyErr_Restore (hook_exc_type, hook_exc_value, hook_exc_tb);
      hook_exc_type = hook_exc_value = hook_exc_tb = NULL;
      return NULL;
    }
  return ts_py_set_error (error);
}

#define hook_failed ts_py_autograd_python_failed

gboolean
ts_py_autograd_python_failed (GError **error)
{
  g_clear_pointer (&hook_exc_type, Py_DecRef);
  g_clear_pointer (&hook_exc_value, Py_DecRef);
  g_clear_pointer (&hook_exc_tb, Py_DecRef);
  PyErr_Fetch (&hook_exc_type, &hook_exc_value, &hook_exc_tb);
  g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME, "a Python hook raised");
  return FALSE;
}

#define TENSOR(self) (((TsPyTensor *) (self))->tensor)

TsTensor *
ts_py_tensor_alias (TsTensor *t)
{
  return ts_tensor_new_view (t->storage, t->dtype, t->ndim, t->shape, t->strides, t->offset);
}

gboolean
ts_py_autograd_set_requires_grad (TsTensor *t,
                                  gboolean  requires_grad)
{
  GError *error = NULL;

  if (requires_grad && t->storage->inference && !ts_py_inference_mode_enabled ())
    {
      PyErr_SetString (PyExc_RuntimeError,
                       "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
      return FALSE;
    }
  /* a non-leaf already requires grad: asking for it again is allowed */
  if (requires_grad && !ts_autograd_is_leaf (t))
    return TRUE;
  if (!ts_autograd_set_requires_grad (t, requires_grad, &error))
    {
      if (!requires_grad)
        {
          /* PyTorch's setter says more than requires_grad_(False) does */
          PyErr_SetString (PyExc_RuntimeError, error->message);
          g_error_free (error);
          return FALSE;
        }
      raise_error (error);
      return FALSE;
    }
  return TRUE;
}

gboolean
ts_py_autograd_set_data (PyObject *self,
                         TsTensor *src)
{
  TsTensor *old = TENSOR (self);
  TsTensor *alias = ts_py_tensor_alias (src);

  if (ts_autograd_requires_grad (old) && ts_autograd_is_leaf (old))
    {
      ts_autograd_set_requires_grad (alias, TRUE, NULL);
      ts_autograd_set_grad (alias, ts_autograd_get_grad (old));
    }
  TENSOR (self) = alias;
  ts_tensor_unref (old);
  return TRUE;
}

/* grad_fn objects ----------------------------------------------------------- */

typedef struct
{
  PyObject_HEAD
  TsGradNode *node;
} TsPyNode;

static PyTypeObject TsPyNode_Type;

/* Takes node (may be NULL: None). */
static PyObject *
node_wrap (TsGradNode *node)
{
  TsPyNode *self;

  if (node == NULL)
    Py_RETURN_NONE;
  self = PyObject_New (TsPyNode, &TsPyNode_Type);
  if (self == NULL)
    {
      ts_grad_node_unref (node);
      return NULL;
    }
  self->node = node;
  return (PyObject *) self;
}

static void
node_dealloc (PyObject *obj)
{
  g_clear_pointer (&((TsPyNode *) obj)->node, ts_grad_node_unref);
  PyObject_Free (obj);
}

/* the class name PyTorch's repr shows: AccumulateGrad, not its C++ name */
static const char *
node_short_name (TsGradNode *node)
{
  const char *name = ts_grad_node_get_name (node);

  return g_str_has_prefix (name, "torch::autograd::") ? name + strlen ("torch::autograd::") : name;
}

void
ts_py_autograd_format_options (TsTensor              *t,
                               TsTensorFormatOptions *options)
{
  TsGradNode *node = ts_autograd_get_grad_fn (t, NULL);

  options->requires_grad = ts_autograd_requires_grad (t);
  options->grad_fn = node != NULL ? node_short_name (node) : NULL;
}

static PyObject *
node_repr (PyObject *obj)
{
  return PyUnicode_FromFormat ("<%s object at %p>", node_short_name (((TsPyNode *) obj)->node), obj);
}

static PyObject *
node_name (PyObject *obj,
           PyObject *unused)
{
  return PyUnicode_FromString (ts_grad_node_get_name (((TsPyNode *) obj)->node));
}

static PyObject *
node_next_functions (PyObject *obj,
                     void     *closure)
{
  TsGradNode *node = ((TsPyNode *) obj)->node;
  guint n = ts_grad_node_get_n_inputs (node);
  PyObject *tuple = PyTuple_New (n);

  for (guint i = 0; tuple != NULL && i < n; i++)
    {
      TsGradEdge edge = ts_grad_node_get_next_edge (node, i);
      PyObject *next = node_wrap (edge.node != NULL ? ts_grad_node_ref (edge.node) : NULL);
      PyObject *pair = next != NULL ? Py_BuildValue ("(Ni)", next, (int) edge.input_nr) : NULL;

      if (pair == NULL)
        g_clear_pointer (&tuple, Py_DecRef);
      else
        PyTuple_SET_ITEM (tuple, i, pair);
    }
  return tuple;
}

static PyObject *
node_richcompare (PyObject *a,
                  PyObject *b,
                  int       op)
{
  if (!PyObject_TypeCheck (b, &TsPyNode_Type) || (op != Py_EQ && op != Py_NE))
    Py_RETURN_NOTIMPLEMENTED;
  return PyBool_FromLong ((((TsPyNode *) a)->node == ((TsPyNode *) b)->node) == (op == Py_EQ));
}

static Py_hash_t
node_hash (PyObject *obj)
{
  return _Py_HashPointer (((TsPyNode *) obj)->node);
}

static PyMethodDef node_methods[] = {
  { "name", node_name, METH_NOARGS, NULL },
  { NULL }
};

static PyGetSetDef node_getset[] = {
  { "next_functions", node_next_functions, NULL, NULL, NULL },
  { NULL }
};

static PyTypeObject TsPyNode_Type = {
  PyVarObject_HEAD_INIT (NULL, 0)
  .tp_name = "torch._C._FunctionBase",
  .tp_basicsize = sizeof (TsPyNode),
  .tp_dealloc = node_dealloc,
  .tp_repr = node_repr,
  .tp_hash = node_hash,
  .tp_richcompare = node_richcompare,
  .tp_flags = Py_TPFLAGS_DEFAULT,
  .tp_methods = node_methods,
  .tp_getset = node_getset,
};

/* Tensor attributes ----------------------------------------------------------- */

static PyObject *
get_requires_grad (PyObject *self,
                   void     *closure)
{
  return PyBool_FromLong (ts_autograd_requires_grad (TENSOR (self)));
}

static int
set_requires_grad (PyObject *self,
                   PyObject *value,
                   void     *closure)
{
  int v = value != NULL ? PyObject_IsTrue (value) : -1;

  if (v < 0)
    return -1;
  /* the setter's text differs from requires_grad_()'s (PyTorch 1.13) */
  if (v && !ts_dtype_is_floating (TENSOR (self)->dtype) && !ts_dtype_is_complex (TENSOR (self)->dtype))
    {
      PyErr_SetString (PyExc_RuntimeError,
                       "only Tensors of floating point and complex dtype can require gradients");
      return -1;
    }
  return ts_py_autograd_set_requires_grad (TENSOR (self), v) ? 0 : -1;
}

static PyObject *
get_is_leaf (PyObject *self,
             void     *closure)
{
  return PyBool_FromLong (ts_autograd_is_leaf (TENSOR (self)));
}

static PyObject *
get_grad_fn (PyObject *self,
             void     *closure)
{
  TsGradNode *node = ts_autograd_get_grad_fn (TENSOR (self), NULL);

  return node_wrap (node != NULL ? ts_grad_node_ref (node) : NULL);
}

static PyObject *
get_grad (PyObject *self,
          void     *closure)
{
  TsTensor *grad = ts_autograd_get_grad (TENSOR (self));

  if (grad == NULL)
    Py_RETURN_NONE;
  return ts_py_tensor_wrap (ts_tensor_ref (grad));
}

/* PyTorch's checks of an assigned .grad (THPVariable_set_grad) */
static int
set_grad (PyObject *self,
          PyObject *value,
          void     *closure)
{
  TsTensor *t = TENSOR (self), *grad;

  if (value == NULL || value == Py_None)
    {
      ts_autograd_set_grad (t, NULL);
      return 0;
    }
  if (!ts_py_is_tensor (value))
    {
      PyErr_Format (PyExc_TypeError, "assigned grad expected to be a Tensor or None but got grad");
      return -1;
    }
  grad = ts_py_tensor_get (value);
  if (grad == t)
    {
      PyErr_SetString (PyExc_RuntimeError, "can't assign Variable as its own grad");
      return -1;
    }
  if (grad->dtype != t->dtype)
    {
      PyErr_SetString (PyExc_RuntimeError, "assigned grad has data of a different type");
      return -1;
    }
  if (!ts_device_equal (ts_tensor_get_device (grad), ts_tensor_get_device (t)))
    {
      PyErr_SetString (PyExc_RuntimeError, "assigned grad has data located on a different device");
      return -1;
    }
  if (grad->ndim != t->ndim || memcmp (grad->shape, t->shape, t->ndim * sizeof (gint64)) != 0)
    {
      PyErr_SetString (PyExc_RuntimeError, "assigned grad has data of a different size");
      return -1;
    }
  ts_autograd_set_grad (t, grad);
  return 0;
}

static PyObject *
get_retains_grad (PyObject *self,
                  void     *closure)
{
  return PyBool_FromLong (ts_autograd_retains_grad (TENSOR (self)));
}

static PyObject *
get_version (PyObject *self,
             void     *closure)
{
  return PyLong_FromUnsignedLong (ts_autograd_get_version (TENSOR (self)));
}

static PyGetSetDef autograd_getset[] = {
  { "requires_grad", get_requires_grad, set_requires_grad, NULL, NULL },
  { "is_leaf", get_is_leaf, NULL, NULL, NULL },
  { "grad_fn", get_grad_fn, NULL, NULL, NULL },
  { "grad", get_grad, set_grad, NULL, NULL },
  { "retains_grad", get_retains_grad, NULL, NULL, NULL },
  { "_version", get_version, NULL, NULL, NULL },
  { NULL }
};

/* Tensor methods ------------------------------------------------------------- */

/* requires_grad_(requires_grad=True) */
static PyObject *
tensor_requires_grad_ (PyObject *self,
                       PyObject *args,
                       PyObject *kwargs)
{
  static char *kwlist[] = { "requires_grad", NULL };
  int requires_grad = 1;

  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "|p", kwlist, &requires_grad) ||
      !ts_py_autograd_set_requires_grad (TENSOR (self), requires_grad))
    return NULL;
  return Py_NewRef (self);
}

static PyObject *
tensor_retain_grad (PyObject *self,
                    PyObject *unused)
{
  GError *error = NULL;

  if (!ts_autograd_retain_grad (TENSOR (self), &error))
    return raise_error (error);
  Py_RETURN_NONE;
}

/* detach(): the same memory, no history */
static PyObject *
tensor_detach (PyObject *self,
               PyObject *unused)
{
  return ts_py_tensor_wrap (ts_py_tensor_alias (TENSOR (self)));
}

/* detach_(): self loses its history in place */
static PyObject *
tensor_detach_ (PyObject *self,
                PyObject *unused)
{
  TsTensor *old = TENSOR (self);

  TENSOR (self) = ts_py_tensor_alias (old);
  ts_tensor_unref (old);
  return Py_NewRef (self);
}

/* fn(tensor), a new Python tensor over tensor: fn's result or NULL */
static PyObject *
call_with_tensor (PyObject *fn,
                  TsTensor *tensor)
{
  PyObject *arg = ts_py_tensor_wrap (ts_tensor_ref (tensor));
  PyObject *result = arg != NULL ? PyObject_CallOneArg (fn, arg) : NULL;

  Py_XDECREF (arg);
  return result;
}

/* Tensor.register_hook(fn): fn(grad) returns None or the new gradient */
static gboolean
call_tensor_hook (TsTensor  *grad,
                  TsTensor **replacement,
                  gpointer   user_data,
                  GError   **error)
{
  PyObject *result = call_with_tensor (user_data, grad);

  if (result == NULL)
    return hook_failed (error);
  if (result != Py_None)
    {
      if (!ts_py_is_tensor (result))
        {
          PyErr_Format (PyExc_TypeError, "expected Tensor or None (got %s)", Py_TYPE (result)->tp_name);
          Py_DECREF (result);
          return hook_failed (error);
        }
      *replacement = ts_tensor_ref (ts_py_tensor_get (result));
    }
  Py_DECREF (result);
  return TRUE;
}

/* register_post_accumulate_grad_hook(fn): fn(tensor) once .grad is set;
 * the hook gets a new Python tensor over the same TsTensor */
static gboolean
call_post_accumulate_hook (TsTensor  *tensor,
                           gpointer   user_data,
                           GError   **error)
{
  PyObject *result = call_with_tensor (user_data, tensor);

  if (result == NULL)
    return hook_failed (error);
  Py_DECREF (result);
  return TRUE;
}

/* A GDestroyNotify for a Python object the core holds (a hook, a
 * Function's anomaly metadata): the core may drop it on any thread, so
 * the reference goes back under the GIL. */
void
ts_py_object_release (gpointer object)
{
  PyGILState_STATE state = PyGILState_Ensure ();

  Py_DECREF ((PyObject *) object);
  PyGILState_Release (state);
}

/* _register_hook(fn, post_accumulate): the hook's id, for _remove_hook */
static PyObject *
tensor_register_hook (PyObject *self,
                      PyObject *args)
{
  PyObject *fn;
  int post = 0;
  guint64 id;
  GError *error = NULL;

  if (!PyArg_ParseTuple (args, "O|p", &fn, &post))
    return NULL;
  Py_INCREF (fn);
  if (post)
    id = ts_autograd_register_post_accumulate_grad_hook (TENSOR (self), call_post_accumulate_hook, fn,
                                                         ts_py_object_release, &error);
  else
    id = ts_autograd_register_hook (TENSOR (self), call_tensor_hook, fn, ts_py_object_release, &error);
  if (id == 0)
    return raise_error (error);
  return PyLong_FromUnsignedLongLong (id);
}

static PyObject *
tensor_remove_hook (PyObject *self,
                    PyObject *arg)
{
  guint64 id = PyLong_AsUnsignedLongLong (arg);

  if (PyErr_Occurred ())
    return NULL;
  ts_autograd_remove_hook (ts_autograd_get_grad_fn (TENSOR (self), NULL), TENSOR (self), id);
  Py_RETURN_NONE;
}

static PyMethodDef autograd_methods[] = {
  { "requires_grad_", (PyCFunction) (void (*) (void)) tensor_requires_grad_, METH_VARARGS | METH_KEYWORDS,
    NULL },
  { "retain_grad", tensor_retain_grad, METH_NOARGS, NULL },
  { "detach", tensor_detach, METH_NOARGS, NULL },
  { "detach_", tensor_detach_, METH_NOARGS, NULL },
  { "_register_hook", tensor_register_hook, METH_VARARGS, NULL },
  { "_remove_hook", tensor_remove_hook, METH_O, NULL },
  { NULL }
};

gboolean
ts_py_autograd_add_to_type (PyTypeObject *type)
{
  for (PyGetSetDef *def = autograd_getset; def->name != NULL; def++)
    {
      PyObject *descr = PyDescr_NewGetSet (type, def);

      if (descr == NULL || PyDict_SetItemString (type->tp_dict, def->name, descr) < 0)
        return FALSE;
      Py_DECREF (descr);
    }
  for (PyMethodDef *def = autograd_methods; def->ml_name != NULL; def++)
    {
      PyObject *descr = PyDescr_NewMethod (type, def);

      if (descr == NULL || PyDict_SetItemString (type->tp_dict, def->ml_name, descr) < 0)
        return FALSE;
      Py_DECREF (descr);
    }
  PyType_Modified (type);
  return TRUE;
}

/* torch._C functions -------------------------------------------------------------- */

/* A sequence of tensors (entries may be None when nones_ok) as a C array
 * of borrowed TsTensor pointers: what the autograd entry points and
 * autograd.Function's recorder both take. */
TsTensor **
ts_py_tensor_array (PyObject *seq,
                    gboolean  nones_ok,
                    guint    *n)
{
  PyObject *fast = PySequence_Fast (seq, "expected a sequence of Tensors");
  TsTensor **out;

  if (fast == NULL)
    return NULL;
  *n = (guint) PySequence_Fast_GET_SIZE (fast);
  out = g_new0 (TsTensor *, MAX (*n, 1));
  for (guint i = 0; i < *n; i++)
    {
      PyObject *item = PySequence_Fast_GET_ITEM (fast, i);

      if (item == Py_None && nones_ok)
        continue;
      if (!ts_py_is_tensor (item))
        {
          PyErr_Format (PyExc_TypeError, "expected Tensor, got %s", Py_TYPE (item)->tp_name);
          g_free (out);
          Py_DECREF (fast);
          return NULL;
        }
      out[i] = ts_py_tensor_get (item);
    }
  /* the tensors stay alive with the caller's sequence */
  Py_DECREF (fast);
  return out;
}

/* _run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs) */
static PyObject *
py_run_backward (PyObject *module,
                 PyObject *args)
{
  PyObject *tensors_obj, *grads_obj, *inputs_obj;
  int retain_graph, create_graph;
  g_autofree TsTensor **tensors = NULL;
  g_autofree TsTensor **grads = NULL;
  g_autofree TsTensor **inputs = NULL;
  guint n_tensors, n_grads, n_inputs = 0;
  GError *error = NULL;
  gboolean ok;

  if (!PyArg_ParseTuple (args, "OOppO", &tensors_obj, &grads_obj, &retain_graph, &create_graph,
                         &inputs_obj))
    return NULL;
  if ((tensors = ts_py_tensor_array (tensors_obj, FALSE, &n_tensors)) == NULL ||
      (grads = ts_py_tensor_array (grads_obj, TRUE, &n_grads)) == NULL ||
      (inputs_obj != Py_None && (inputs = ts_py_tensor_array (inputs_obj, FALSE, &n_inputs)) == NULL))
    return NULL;
  ts_py_update_callsite ();
  ok = ts_autograd_backward (tensors, n_tensors, grads, retain_graph, create_graph,
                             inputs, n_inputs, &error);
  if (!ok)
    return raise_error (error);
  Py_RETURN_NONE;
}

/* _run_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
 * allow_unused, materialize_grads): a tuple, None for unused inputs */
static PyObject *
py_run_grad (PyObject *module,
             PyObject *args)
{
  PyObject *outputs_obj, *inputs_obj, *grads_obj, *result;
  int retain_graph, create_graph, allow_unused, materialize;
  g_autofree TsTensor **outputs = NULL;
  g_autofree TsTensor **inputs = NULL;
  g_autofree TsTensor **grads = NULL;
  guint n_outputs, n_inputs, n_grads;
  TsTensor **results;
  GError *error = NULL;

  if (!PyArg_ParseTuple (args, "OOOpppp", &outputs_obj, &inputs_obj, &grads_obj, &retain_graph,
                         &create_graph, &allow_unused, &materialize))
    return NULL;
  if ((outputs = ts_py_tensor_array (outputs_obj, FALSE, &n_outputs)) == NULL ||
      (inputs = ts_py_tensor_array (inputs_obj, FALSE, &n_inputs)) == NULL ||
      (grads = ts_py_tensor_array (grads_obj, TRUE, &n_grads)) == NULL)
    return NULL;
  ts_py_update_callsite ();
  results = ts_autograd_grad (outputs, n_outputs, inputs, n_inputs, grads, retain_graph, create_graph,
                              allow_unused, materialize, &error);
  if (results == NULL)
    return raise_error (error);
  result = PyTuple_New (n_inputs);
  for (guint i = 0; result != NULL && i < n_inputs; i++)
    {
      PyObject *item = results[i] != NULL ? ts_py_tensor_wrap (g_steal_pointer (&results[i]))
                                          : Py_NewRef (Py_None);

      if (item == NULL)
        g_clear_pointer (&result, Py_DecRef);
      else
        PyTuple_SET_ITEM (result, i, item);
    }
  ts_autograd_grads_free (results, n_inputs);
  return result;
}

static PyMethodDef autograd_functions[] = {
  { "_run_backward", py_run_backward, METH_VARARGS, NULL },
  { "_run_grad", py_run_grad, METH_VARARGS, NULL },
  { NULL }
};

gboolean
ts_py_autograd_register (PyObject *module)
{
  if (PyType_Ready (&TsPyNode_Type) < 0)
    return FALSE;
  Py_INCREF (&TsPyNode_Type);
  return PyModule_AddObject (module, "_FunctionBase", (PyObject *) &TsPyNode_Type) == 0 &&
         PyModule_AddFunctions (module, autograd_functions) == 0 && ts_py_function_register (module);
}
