/* ts-py-tensor.c: torch._C, the C half of Tensorscope's torch module
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tensors and their operators go straight to the core from here, so that a
 * Python loop of small additions costs about what PyTorch's eager dispatch
 * costs. What PyTorch itself writes in Python (argument juggling of the
 * creation functions, repr, nn, the cuda namespace) lives in the torch
 * package and calls the primitives below.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "config.h"

#include <string.h>

#include "ts-ops.h"
#include "ts-op-access.h"
#include "ts-tensor-format.h"
#include "ts-callsite.h"
#include "ts-py-private.h"
#include "ts-device-memory.h"
#include "ts-host-data.h"
#include "ts-session.h"

static PyTypeObject TsPyTensor_Type;

/* Classes the Python half registers: torch.Tensor, torch.device and the
 * torch.dtype instances (indexed by TsDType). */
static PyObject *tensor_class;
static PyObject *device_class;
static PyObject *dtype_objects[TS_N_DTYPES];
static PyObject *cpu_device_object;
static PyObject *cuda_device_objects[64];
PyObject *ts_py_oom_error;

/* Devices and dtypes --------------------------------------------------------- */

PyObject *
ts_py_device_object (TsDevice device)
{
  PyObject **slot = device.type == TS_DEVICE_CPU ? &cpu_device_object
                                                 : &cuda_device_objects[device.index & 63];

  if (*slot == NULL)
    {
      if (device.type == TS_DEVICE_CPU)
        *slot = PyObject_CallFunction (device_class, "s", "cpu");
      else
        *slot = PyObject_CallFunction (device_class, "si", "cuda", device.index);
      if (*slot == NULL)
        return NULL;
    }
  Py_INCREF (*slot);
  return *slot;
}

/* None, "cuda", "cuda:1", "cpu", an int, or a torch.device. A CUDA device
 * without an index resolves to the current device. */
gboolean
ts_py_parse_device (PyObject *obj,
                    TsDevice *device)
{
  PyObject *type_obj = NULL, *index_obj = NULL;
  const char *type;
  long index = -1;
  gboolean ok = FALSE;

  if (obj == NULL || obj == Py_None)
    {
      *device = TS_DEVICE_CPU_VALUE;
      return TRUE;
    }
  if (PyLong_Check (obj))
    {
      index = PyLong_AsLong (obj);
      if (index < 0)
        {
          PyErr_Format (PyExc_RuntimeError, "Device index must not be negative");
          return FALSE;
        }
      *device = (TsDevice) { TS_DEVICE_CUDA, (int) index };
      return TRUE;
    }
  if (PyUnicode_Check (obj))
    {
      PyObject *dev = PyObject_CallOneArg (device_class, obj);
      gboolean r;
      if (dev == NULL)
        return FALSE;
      r = ts_py_parse_device (dev, device);
      Py_DECREF (dev);
      return r;
    }

  type_obj = PyObject_GetAttrString (obj, "type");
  index_obj = type_obj ? PyObject_GetAttrString (obj, "index") : NULL;
  if (type_obj == NULL || index_obj == NULL || !PyUnicode_Check (type_obj))
    {
      PyErr_Clear ();
      PyErr_Format (PyExc_TypeError, "expected a torch.device, a string or an int, got %s",
                    Py_TYPE (obj)->tp_name);
      goto out;
    }
  type = PyUnicode_AsUTF8 (type_obj);
  if (index_obj != Py_None)
    index = PyLong_AsLong (index_obj);
  if (g_str_equal (type, "cpu"))
    *device = TS_DEVICE_CPU_VALUE;
  else
    {
      if (index < 0)
        {
          GError *error = NULL;
          if (!ts_session_cuda_init (&error))
            {
              ts_py_set_error (error);
              goto out;
            }
          index = ts_session_current_device ();
        }
      *device = (TsDevice) { TS_DEVICE_CUDA, (int) index };
    }
  ok = TRUE;

out:
  Py_XDECREF (type_obj);
  Py_XDECREF (index_obj);
  return ok;
}

PyObject *
ts_py_dtype_object (TsDType dtype)
{
  PyObject *o = dtype_objects[dtype];

  if (o == NULL)
    Py_RETURN_NONE;
  Py_INCREF (o);
  return o;
}

gboolean
ts_py_parse_dtype (PyObject *obj,
                   TsDType  *dtype)
{
  if (obj == NULL || obj == Py_None)
    {
      *dtype = TS_DTYPE_UNDEFINED;
      return TRUE;
    }
  for (int i = 0; i < TS_N_DTYPES; i++)
    if (dtype_objects[i] == obj)
      {
        *dtype = i;
        return TRUE;
      }
  PyErr_Format (PyExc_TypeError, "dtype must be torch.dtype, not %s", Py_TYPE (obj)->tp_name);
  return FALSE;
}

/* Tensor objects ------------------------------------------------------------ */

gboolean
ts_py_is_tensor (PyObject *obj)
{
  return PyObject_TypeCheck (obj, &TsPyTensor_Type);
}

TsTensor *
ts_py_tensor_get (PyObject *obj)
{
  return ((TsPyTensor *) obj)->tensor;
}

/* Wraps (and takes) t in a new torch.Tensor. */
PyObject *
ts_py_tensor_wrap (TsTensor *t)
{
  PyTypeObject *type = tensor_class ? (PyTypeObject *) tensor_class : &TsPyTensor_Type;
  TsPyTensor *self;

  if (t == NULL)
    return NULL;
  self = (TsPyTensor *) type->tp_alloc (type, 0);
  if (self == NULL)
    {
      ts_tensor_unref (t);
      return NULL;
    }
  self->tensor = t;
  return (PyObject *) self;
}

/* For Python subclasses (torch.Tensor, Parameter) CPython's subtype_dealloc
 * clears the instance dict and drops the type reference; we only release
 * the tensor and the memory. */
static void
tensor_dealloc (PyObject *obj)
{
  TsPyTensor *self = (TsPyTensor *) obj;

  /* a freed block is recorded at the line that dropped the tensor */
  if (self->tensor != NULL && ts_tensor_is_cuda (self->tensor))
    ts_py_update_callsite ();
  g_clear_pointer (&self->tensor, ts_tensor_unref);
  Py_TYPE (obj)->tp_free (obj);
}

/* Takes the error by address: C does not order the evaluation of the
 * arguments, so the call that fills it must come first. */
static PyObject *
wrap_or_raise (TsTensor  *t,
               GError   **error)
{
  if (t == NULL)
    return ts_py_set_error (*error);
  return ts_py_tensor_wrap (t);
}

#define SELF_T (((TsPyTensor *) self)->tensor)

/* Numbers ------------------------------------------------------------------ */

gboolean
ts_py_parse_scalar (PyObject *obj,
                    TsScalar *scalar)
{
  if (PyBool_Check (obj))
    {
      scalar->kind = TS_DTYPE_BOOL;
      scalar->ivalue = obj == Py_True;
      scalar->value = (double) scalar->ivalue;
      return TRUE;
    }
  if (PyLong_Check (obj))
    {
      int overflow = 0;
      scalar->kind = TS_DTYPE_INT64;
      scalar->ivalue = PyLong_AsLongLongAndOverflow (obj, &overflow);
      if (overflow)
        {
          PyErr_SetString (PyExc_RuntimeError, "Overflow when unpacking long");
          return FALSE;
        }
      scalar->value = (double) scalar->ivalue;
      return TRUE;
    }
  if (PyFloat_Check (obj))
    {
      scalar->kind = TS_DTYPE_FLOAT64;
      scalar->value = PyFloat_AS_DOUBLE (obj);
      scalar->ivalue = (gint64) scalar->value;
      return TRUE;
    }
  return FALSE;
}

/* a op b into @out (a tensor: a itself in place, or out=), or into a new
 * tensor where @out is NULL. */
static PyObject *
binary_out (PyObject   *a,
            PyObject   *b,
            TsBinaryOp  op,
            PyObject   *out)
{
  GError *error = NULL;
  TsScalar scalar;
  TsTensor *r;
  TsTensor *o = out != NULL ? ts_py_tensor_get (out) : NULL;

  ts_py_update_callsite ();
  if (ts_py_is_tensor (a) && ts_py_is_tensor (b))
    r = ts_ops_binary (op, ts_py_tensor_get (a), ts_py_tensor_get (b), NULL, FALSE, o, &error);
  else if (ts_py_is_tensor (a) && ts_py_parse_scalar (b, &scalar))
    r = ts_ops_binary (op, ts_py_tensor_get (a), NULL, &scalar, FALSE, o, &error);
  else if (out == NULL && ts_py_is_tensor (b) && ts_py_parse_scalar (a, &scalar))
    r = ts_ops_binary (op, ts_py_tensor_get (b), NULL, &scalar, TRUE, NULL, &error);
  else if (ts_py_is_tensor (a) != ts_py_is_tensor (b) && PyComplex_Check (ts_py_is_tensor (a) ? b : a) &&
           (out == NULL || ts_py_is_tensor (a)))
    {
      /* a Python complex: the wrapped number as a 0-dim tensor */
      TsTensor *t = ts_py_tensor_get (ts_py_is_tensor (a) ? a : b);
      g_autoptr(TsTensor) number = ts_py_complex_operand (ts_py_is_tensor (a) ? b : a, t, &error);

      r = number == NULL ? NULL
          : ts_py_is_tensor (a) ? ts_ops_binary (op, t, number, NULL, FALSE, o, &error)
          : ts_ops_binary (op, number, t, NULL, FALSE, NULL, &error);
    }
  else
    {
      if (PyErr_Occurred ())
        return NULL;
      Py_RETURN_NOTIMPLEMENTED;
    }

  if (r == NULL)
    return ts_py_set_error (error);
  if (out != NULL)
    {
      ts_tensor_unref (r);
      Py_INCREF (out);
      return out;
    }
  return ts_py_tensor_wrap (r);
}

static PyObject *
binary (PyObject   *a,
        PyObject   *b,
        TsBinaryOp  op,
        gboolean    inplace)
{
  return binary_out (a, b, op, inplace ? a : NULL);
}

/* The op behind each Python slot, from the op table's PY column (filled
 * by register_ops): the slots are Python's fixed set, the ops are the
 * table's. */
static const TsOpDesc *slot_ops[TS_PY_N_SLOTS];

static PyObject *
slot_binary (PyObject *a,
             PyObject *b,
             TsPySlot  slot,
             gboolean  inplace)
{
  if (slot_ops[slot] == NULL)
    Py_RETURN_NOTIMPLEMENTED;
  return binary (a, b, slot_ops[slot]->kernel, inplace);
}

#define NB_BINARY(slot, SLOT) \
  static PyObject *tensor_##slot (PyObject *a, PyObject *b) { return slot_binary (a, b, TS_PY_##SLOT, FALSE); } \
  static PyObject *tensor_inplace_##slot (PyObject *a, PyObject *b) { return slot_binary (a, b, TS_PY_##SLOT, TRUE); }

NB_BINARY (add, NB_ADD)
NB_BINARY (subtract, NB_SUBTRACT)
NB_BINARY (multiply, NB_MULTIPLY)
NB_BINARY (true_divide, NB_TRUE_DIVIDE)
NB_BINARY (floor_divide, NB_FLOOR_DIVIDE)
NB_BINARY (remainder, NB_REMAINDER)
NB_BINARY (and, NB_AND)
NB_BINARY (or, NB_OR)
NB_BINARY (xor, NB_XOR)

static PyObject *
tensor_power (PyObject *a,
              PyObject *b,
              PyObject *mod)
{
  return slot_binary (a, b, TS_PY_NB_POWER, FALSE);
}

static PyObject *
tensor_matmul (PyObject *a,
               PyObject *b)
{
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!ts_py_is_tensor (a) || !ts_py_is_tensor (b))
    Py_RETURN_NOTIMPLEMENTED;
  return wrap_or_raise (ts_ops_matmul (ts_py_tensor_get (a), ts_py_tensor_get (b), &error), &error);
}

static PyObject *
unary (PyObject  *a,
       TsUnaryOp  op)
{
  GError *error = NULL;

  ts_py_update_callsite ();
  return wrap_or_raise (ts_ops_unary (op, ts_py_tensor_get (a), &error), &error);
}

static PyObject *
slot_unary (PyObject *a,
            TsPySlot  slot)
{
  if (slot_ops[slot] == NULL)
    Py_RETURN_NOTIMPLEMENTED;
  return unary (a, slot_ops[slot]->kernel);
}

static PyObject *tensor_negative (PyObject *a) { return slot_unary (a, TS_PY_NB_NEGATIVE); }
static PyObject *tensor_absolute (PyObject *a) { return slot_unary (a, TS_PY_NB_ABSOLUTE); }

/* `~`: logical_not of a bool tensor, bitwise_xor with -1 of an integer
 * one (PyTorch's bitwise_not), so it is bound here rather than by the
 * table's PY column. */
static PyObject *
tensor_invert (PyObject *a)
{
  PyObject *minus_one, *r;

  if (ts_py_tensor_get (a)->dtype == TS_DTYPE_BOOL)
    return unary (a, ts_op_get (TS_OP_LOGICAL_NOT)->kernel);
  minus_one = PyLong_FromLong (-1);
  if (minus_one == NULL)
    return NULL;
  r = binary (a, minus_one, ts_op_get (TS_OP_BITWISE_XOR)->kernel, FALSE);
  Py_DECREF (minus_one);
  return r;
}

static PyObject *
tensor_pos (PyObject *a)
{
  Py_INCREF (a);
  return a;
}

/* Reads one element on the host: a blocking copy for CUDA tensors. */
static PyObject *
tensor_item_impl (TsTensor   *t,
                  const char *what)
{
  GError *error = NULL;
  g_autoptr(TsTensor) host = NULL;

  ts_py_update_callsite ();
  if (ts_tensor_numel (t) != 1)
    {
      PyErr_Format (PyExc_RuntimeError,
                    "a Tensor with %" G_GINT64_FORMAT " elements cannot be converted to Scalar",
                    ts_tensor_numel (t));
      return NULL;
    }
  host = ts_ops_to_host_for (t, what, &error);
  if (host == NULL)
    return ts_py_set_error (error);
  if (ts_dtype_is_complex (host->dtype))
    return ts_py_complex_number (host->dtype, ts_tensor_data (host));
  if (ts_dtype_is_floating (host->dtype))
    return PyFloat_FromDouble (ts_tensor_get_double (host, 0));
  if (host->dtype == TS_DTYPE_BOOL)
    return PyBool_FromLong (ts_tensor_get_int (host, 0));
  return PyLong_FromLongLong (ts_tensor_get_int (host, 0));
}

/* A one-element tensor given where a number goes (fill_'s value, an
 * element of torch.tensor()'s data): its element, parsed as that number. */
static gboolean
item_scalar (TsTensor   *t,
             const char *what,
             TsScalar   *scalar)
{
  PyObject *v = tensor_item_impl (t, what);
  gboolean ok;

  if (v == NULL)
    return FALSE;
  ok = ts_py_parse_scalar (v, scalar);
  Py_DECREF (v);
  return ok;
}

static PyObject *
tensor_item (PyObject *self,
             PyObject *unused)
{
  return tensor_item_impl (SELF_T, "Tensor.item()");
}

static int
tensor_bool (PyObject *self)
{
  PyObject *v;
  int r;

  if (ts_tensor_numel (SELF_T) != 1)
    {
      PyErr_SetString (PyExc_RuntimeError,
                       ts_tensor_numel (SELF_T) == 0
                         ? "Boolean value of Tensor with no values is ambiguous"
                         : "Boolean value of Tensor with more than one value is ambiguous");
      return -1;
    }
  v = tensor_item_impl (SELF_T, "bool(Tensor)");
  if (v == NULL)
    return -1;
  r = PyObject_IsTrue (v);
  Py_DECREF (v);
  return r;
}

/* float(t), int(t): the element as Python gives it, then converted, so
 * that float() of an integer tensor is a float as in PyTorch. */
static PyObject *
item_converted (PyObject    *self,
                const char  *what,
                PyObject *(*convert) (PyObject *))
{
  PyObject *v = tensor_item_impl (SELF_T, what);
  PyObject *r;

  if (v == NULL)
    return NULL;
  r = convert (v);
  Py_DECREF (v);
  return r;
}

static PyObject *
tensor_float (PyObject *self)
{
  return item_converted (self, "float(Tensor)", PyNumber_Float);
}

static PyObject *
tensor_int (PyObject *self)
{
  return item_converted (self, "int(Tensor)", PyNumber_Long);
}

static PyObject *
tensor_index (PyObject *self)
{
  if (ts_dtype_is_floating (SELF_T->dtype) || ts_tensor_numel (SELF_T) != 1)
    {
      PyErr_SetString (PyExc_TypeError,
                       "only integer tensors of a single element can be converted to an index");
      return NULL;
    }
  return tensor_item_impl (SELF_T, "Tensor.__index__()");
}

static PyNumberMethods tensor_as_number = {
  .nb_add = tensor_add,
  .nb_subtract = tensor_subtract,
  .nb_multiply = tensor_multiply,
  .nb_true_divide = tensor_true_divide,
  .nb_floor_divide = tensor_floor_divide,
  .nb_remainder = tensor_remainder,
  .nb_power = tensor_power,
  .nb_and = tensor_and,
  .nb_or = tensor_or,
  .nb_xor = tensor_xor,
  .nb_inplace_add = tensor_inplace_add,
  .nb_inplace_subtract = tensor_inplace_subtract,
  .nb_inplace_multiply = tensor_inplace_multiply,
  .nb_inplace_true_divide = tensor_inplace_true_divide,
  .nb_inplace_floor_divide = tensor_inplace_floor_divide,
  .nb_inplace_remainder = tensor_inplace_remainder,
  .nb_inplace_and = tensor_inplace_and,
  .nb_inplace_or = tensor_inplace_or,
  .nb_inplace_xor = tensor_inplace_xor,
  .nb_matrix_multiply = tensor_matmul,
  .nb_negative = tensor_negative,
  .nb_positive = tensor_pos,
  .nb_absolute = tensor_absolute,
  .nb_invert = tensor_invert,
  .nb_bool = tensor_bool,
  .nb_float = tensor_float,
  .nb_int = tensor_int,
  .nb_index = tensor_index,
};

/* Py_LT ... Py_GE are the CMP_* slots in order. */
G_STATIC_ASSERT (TS_PY_CMP_LE - TS_PY_CMP_LT == Py_LE - Py_LT);
G_STATIC_ASSERT (TS_PY_CMP_EQ - TS_PY_CMP_LT == Py_EQ - Py_LT);
G_STATIC_ASSERT (TS_PY_CMP_NE - TS_PY_CMP_LT == Py_NE - Py_LT);
G_STATIC_ASSERT (TS_PY_CMP_GT - TS_PY_CMP_LT == Py_GT - Py_LT);
G_STATIC_ASSERT (TS_PY_CMP_GE - TS_PY_CMP_LT == Py_GE - Py_LT);

static PyObject *
tensor_richcompare (PyObject *a,
                    PyObject *b,
                    int       op)
{
  if ((op == Py_EQ || op == Py_NE) && b == Py_None)
    {
      if (op == Py_EQ)
        Py_RETURN_FALSE;
      Py_RETURN_TRUE;
    }
  return slot_binary (a, b, TS_PY_CMP_LT + (op - Py_LT), FALSE);
}

/* Attributes ----------------------------------------------------------------- */

static PyObject *
get_device (PyObject *self,
            void     *closure)
{
  return ts_py_device_object (ts_tensor_get_device (SELF_T));
}

static PyObject *
get_dtype (PyObject *self,
           void     *closure)
{
  return ts_py_dtype_object (SELF_T->dtype);
}

/* A tensor's shape or strides as a tuple of ints. */
static PyObject *
int64_tuple (const gint64 *values,
             guint         n)
{
  PyObject *tuple = PyTuple_New (n);

  for (guint i = 0; i < n; i++)
    PyTuple_SET_ITEM (tuple, i, PyLong_FromLongLong (values[i]));
  return tuple;
}

static PyObject *
get_raw_shape (PyObject *self,
               void     *closure)
{
  return int64_tuple (SELF_T->shape, SELF_T->ndim);
}

static PyObject *
get_is_cuda (PyObject *self,
             void     *closure)
{
  return PyBool_FromLong (ts_tensor_is_cuda (SELF_T));
}

static PyObject *
get_ndim (PyObject *self,
          void     *closure)
{
  return PyLong_FromLong (SELF_T->ndim);
}

/* torch.Size, the Python class over ts-py-shape.c's _SizeBase
 * (_set_classes): x.shape builds one here, without a Python frame */
static PyObject *size_class;

static PyObject *
get_shape (PyObject *self,
           void     *closure)
{
  PyObject *tuple = int64_tuple (SELF_T->shape, SELF_T->ndim), *args, *size;

  if (tuple == NULL || size_class == NULL)
    return tuple;
  args = PyTuple_Pack (1, tuple);
  Py_DECREF (tuple);
  if (args == NULL)
    return NULL;
  /* Size adds no __new__ or __init__: tuple's constructor makes it */
  size = ((PyTypeObject *) size_class)->tp_new ((PyTypeObject *) size_class, args, NULL);
  Py_DECREF (args);
  return size;
}

static PyGetSetDef tensor_getset[] = {
  { "shape", get_shape, NULL, NULL, NULL },
  { "device", get_device, NULL, NULL, NULL },
  { "dtype", get_dtype, NULL, NULL, NULL },
  { "_shape", get_raw_shape, NULL, NULL, NULL },
  { "is_cuda", get_is_cuda, NULL, NULL, NULL },
  { "ndim", get_ndim, NULL, NULL, NULL },
  { NULL }
};

/* Methods ------------------------------------------------------------------ */

static PyObject *
tensor_dim (PyObject *self,
            PyObject *unused)
{
  return PyLong_FromLong (SELF_T->ndim);
}

static PyObject *
tensor_is_inference (PyObject *self,
                     PyObject *unused)
{
  return PyBool_FromLong (SELF_T->storage->inference);
}

static PyObject *
tensor_numel (PyObject *self,
              PyObject *unused)
{
  return PyLong_FromLongLong (ts_tensor_numel (SELF_T));
}

static PyObject *
tensor_stride_tuple (PyObject *self,
                     PyObject *unused)
{
  return int64_tuple (SELF_T->strides, SELF_T->ndim);
}

static PyObject *
tensor_storage_offset (PyObject *self,
                       PyObject *unused)
{
  return PyLong_FromLongLong (SELF_T->offset);
}

static PyObject *
tensor_get_device (PyObject *self,
                   PyObject *unused)
{
  TsDevice d = ts_tensor_get_device (SELF_T);

  return PyLong_FromLong (d.type == TS_DEVICE_CUDA ? d.index : -1);
}

static PyObject *
tensor_element_size (PyObject *self,
                     PyObject *unused)
{
  return PyLong_FromSize_t (ts_dtype_size (SELF_T->dtype));
}

static PyObject *
tensor_data_ptr (PyObject *self,
                 PyObject *unused)
{
  return PyLong_FromUnsignedLongLong (ts_tensor_data_ptr (SELF_T));
}

static PyObject *
tensor_storage_ptr (PyObject *self,
                    PyObject *unused)
{
  return PyLong_FromUnsignedLongLong (SELF_T->storage->addr);
}

static PyObject *
tensor_storage_nbytes (PyObject *self,
                       PyObject *unused)
{
  return PyLong_FromSize_t (SELF_T->storage->nbytes);
}

static PyObject *
tensor_is_contiguous (PyObject *self,
                      PyObject *unused)
{
  return PyBool_FromLong (ts_tensor_is_contiguous (SELF_T));
}

static PyObject *
tensor_is_pinned (PyObject *self,
                  PyObject *unused)
{
  /* asks the pinned allocator, so views into a pinned block count too */
  if (ts_tensor_is_cuda (SELF_T) || SELF_T->storage->addr == 0)
    return PyBool_FromLong (FALSE);
  return PyBool_FromLong (ts_session_host_is_pinned (GSIZE_TO_POINTER (ts_tensor_data_ptr (SELF_T))));
}

/* A method that makes a new tensor from self alone. */
static PyObject *
call_self_op (PyObject  *self,
              TsTensor *(*op) (TsTensor *, GError **))
{
  GError *error = NULL;

  ts_py_update_callsite ();
  return wrap_or_raise (op (SELF_T, &error), &error);
}

static PyObject *
tensor_pin_memory (PyObject *self,
                   PyObject *unused)
{
  return call_self_op (self, ts_ops_pin_memory);
}

/* clone (memory_format=torch.preserve_format): the copy keeps a dense
 * tensor's strides, as ATen's clone */
static PyObject *
tensor_clone (PyObject *self,
              PyObject *unused)
{
  GError *error = NULL;

  ts_py_update_callsite ();
  return wrap_or_raise (ts_ops_to_copy (SELF_T, ts_tensor_get_device (SELF_T), SELF_T->dtype, FALSE, TRUE, &error),
                        &error);
}

static PyObject *
tensor_contiguous (PyObject *self,
                   PyObject *unused)
{
  return call_self_op (self, ts_ops_contiguous);
}

/* _to(device or None, dtype or None, non_blocking, copy) */
static PyObject *
tensor_to_impl (PyObject *self,
                PyObject *args)
{
  PyObject *device_obj, *dtype_obj;
  int non_blocking = 0, copy = 0;
  TsDevice device;
  TsDType dtype;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "OO|pp", &device_obj, &dtype_obj, &non_blocking, &copy))
    return NULL;
  if (device_obj == Py_None)
    device = ts_tensor_get_device (SELF_T);
  else if (!ts_py_parse_device (device_obj, &device))
    return NULL;
  if (!ts_py_parse_dtype (dtype_obj, &dtype) || !ts_py_complex_warn_cast (SELF_T->dtype, dtype))
    return NULL;
  return wrap_or_raise (ts_ops_to_copy (SELF_T, device, dtype, non_blocking, copy, &error), &error);
}

static PyObject *
tensor_copy_ (PyObject *self,
              PyObject *args,
              PyObject *kwargs)
{
  static char *kwlist[] = { "src", "non_blocking", NULL };
  PyObject *src;
  int non_blocking = 0;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "O!|p", kwlist, &TsPyTensor_Type, &src,
                                    &non_blocking) ||
      !ts_py_complex_warn_cast (ts_py_tensor_get (src)->dtype, SELF_T->dtype))
    return NULL;
  if (!ts_ops_copy (SELF_T, ts_py_tensor_get (src), non_blocking, &error))
    return ts_py_set_error (error);
  Py_INCREF (self);
  return self;
}

static PyObject *
tensor_fill_ (PyObject *self,
              PyObject *value)
{
  TsScalar scalar;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (PyComplex_Check (value))
    {
      if (!ts_py_complex_fill_ (SELF_T, value, &error))
        return ts_py_set_error (error);
      Py_INCREF (self);
      return self;
    }
  if (ts_py_is_tensor (value) && ts_host_data_no_data ())
    scalar = (TsScalar) { TS_DTYPE_FLOAT64, 0, 0 };  /* no value to fill with, nor to fill */
  else if (ts_py_is_tensor (value) && ts_dtype_is_complex (ts_py_tensor_get (value)->dtype))
    {
      PyObject *v = tensor_item_impl (ts_py_tensor_get (value), "Tensor.fill_()");
      gboolean ok = v != NULL && ts_py_complex_fill_ (SELF_T, v, &error);

      Py_XDECREF (v);
      if (!ok)
        return v == NULL ? NULL : ts_py_set_error (error);
      Py_INCREF (self);
      return self;
    }
  else if (ts_py_is_tensor (value))
    {
      if (!item_scalar (ts_py_tensor_get (value), "Tensor.fill_()", &scalar))
        return NULL;
    }
  else if (!ts_py_parse_scalar (value, &scalar))
    {
      PyErr_Format (PyExc_TypeError, "fill_() received an invalid combination of arguments - got (%s)",
                    Py_TYPE (value)->tp_name);
      return NULL;
    }
  if (!ts_ops_fill (SELF_T, &scalar, &error))
    return ts_py_set_error (error);
  Py_INCREF (self);
  return self;
}

/* generator=: a torch.Generator carries the id of its CPU generator in
 * _cpu_id (-1 for the default one); None means the default. */
static gboolean
cpu_generator_id (PyObject *gen,
                  int      *id)
{
  PyObject *attr;

  *id = -1;
  if (gen == NULL || gen == Py_None)
    return TRUE;
  attr = PyObject_GetAttrString (gen, "_cpu_id");
  if (attr == NULL)
    return FALSE;
  *id = (int)PyLong_AsLong (attr);
  Py_DECREF (attr);
  return !PyErr_Occurred ();
}

/* normal_(mean, std) and uniform_(from, to): the same arguments, both
 * defaulting to (0, 1), and one kernel entry; NORMAL picks the
 * distribution. */
static PyObject *
random_fill_ (PyObject *self,
              PyObject *args,
              PyObject *kwargs,
              gboolean  normal)
{
  static char *normal_kw[] = { "mean", "std", "generator", NULL };
  static char *uniform_kw[] = { "from", "to", "generator", NULL };
  double a = 0, b = 1;
  PyObject *gen = NULL;
  int gen_id = -1;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "|ddO", normal ? normal_kw : uniform_kw, &a, &b, &gen))
    return NULL;
  if (!cpu_generator_id (gen, &gen_id))
    return NULL;
  if (!ts_ops_random_fill_ (SELF_T, normal, a, b, gen_id, &error))
    return ts_py_set_error (error);
  Py_INCREF (self);
  return self;
}

static PyObject *
tensor_normal_ (PyObject *self,
                PyObject *args,
                PyObject *kwargs)
{
  return random_fill_ (self, args, kwargs, TRUE);
}

static PyObject *
tensor_uniform_ (PyObject *self,
                 PyObject *args,
                 PyObject *kwargs)
{
  return random_fill_ (self, args, kwargs, FALSE);
}

static gboolean
parse_dims (PyObject *obj,
            int      *dims,
            guint    *n_dims)
{
  *n_dims = 0;
  if (obj == NULL || obj == Py_None)
    return TRUE;
  if (PyLong_Check (obj))
    {
      dims[0] = PyLong_AsLong (obj);
      *n_dims = 1;
      return TRUE;
    }
  if (PyTuple_Check (obj) || PyList_Check (obj))
    {
      Py_ssize_t n = PySequence_Size (obj);
      if (n > TS_MAX_DIMS)
        {
          PyErr_SetString (PyExc_RuntimeError, "too many dims");
          return FALSE;
        }
      for (Py_ssize_t i = 0; i < n; i++)
        {
          PyObject *item = PySequence_GetItem (obj, i);
          dims[i] = PyLong_AsLong (item);
          Py_DECREF (item);
        }
      *n_dims = n;
      return !PyErr_Occurred ();
    }
  PyErr_Format (PyExc_TypeError, "dim must be an int or a tuple of ints, not %s",
                Py_TYPE (obj)->tp_name);
  return FALSE;
}

static PyObject *
reduce (PyObject *self,
        PyObject *args,
        PyObject *kwargs,
        gboolean  mean)
{
  static char *kwlist[] = { "dim", "keepdim", "dtype", NULL };
  PyObject *dim_obj = NULL, *dtype_obj = NULL;
  int keepdim = 0;
  int dims[TS_MAX_DIMS];
  guint n_dims;
  TsDType dtype;
  GError *error = NULL;
  TsTensor *r;

  ts_py_update_callsite ();
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "|OpO", kwlist, &dim_obj, &keepdim, &dtype_obj))
    return NULL;
  if (!parse_dims (dim_obj, dims, &n_dims) || !ts_py_parse_dtype (dtype_obj, &dtype))
    return NULL;
  if (mean)
    r = ts_ops_mean (SELF_T, dims, n_dims, keepdim, dtype, &error);
  else
    r = ts_ops_sum (SELF_T, dims, n_dims, keepdim, dtype, &error);
  return wrap_or_raise (r, &error);
}

static PyObject *
tensor_sum (PyObject *self, PyObject *args, PyObject *kwargs)
{
  return reduce (self, args, kwargs, FALSE);
}

static PyObject *
tensor_mean (PyObject *self, PyObject *args, PyObject *kwargs)
{
  return reduce (self, args, kwargs, TRUE);
}

/* _max(dim or None, keepdim, is_min, arg=False) -> tensor or (values,
 * indices); arg: argmax/argmin along dim, the indices alone */
static PyObject *
tensor_max_impl (PyObject *self,
                 PyObject *args)
{
  PyObject *dim_obj;
  int keepdim = 0, is_min = 0, arg = 0;
  GError *error = NULL;
  TsTensor *values, *indices;
  long dim;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "Opp|p", &dim_obj, &keepdim, &is_min, &arg))
    return NULL;
  if (dim_obj == Py_None)
    return wrap_or_raise (ts_ops_max (SELF_T, is_min, &error), &error);
  dim = PyLong_AsLong (dim_obj);
  if (dim == -1 && PyErr_Occurred ())
    return NULL;
  if (arg)
    return wrap_or_raise (ts_ops_argmax_dim (SELF_T, (int) dim, keepdim, is_min, &error), &error);
  if (!ts_ops_max_dim (SELF_T, (int) dim, keepdim, is_min, &values, &indices, &error))
    return ts_py_set_error (error);
  return Py_BuildValue ("(NN)", ts_py_tensor_wrap (values), ts_py_tensor_wrap (indices));
}

/* argmax/argmin(dim, keepdim=False) with an int dim, the usual call, in
 * C: a Python method's frame was a twentieth of a small argmax. Any other
 * call (no dim, bad arguments) goes to torch/_reduce.py's
 * _argmax_method/_argmin_method, which have PyTorch's checks and messages. */
static PyObject *
tensor_arg_impl (PyObject   *self,
                 PyObject   *args,
                 PyObject   *kwargs,
                 const char *name)
{
  static char *kwlist[] = { "dim", "keepdim", NULL };
  PyObject *dim_obj = Py_None, *keepdim_obj = Py_False;
  GError *error = NULL;
  long dim;

  if (PyTuple_GET_SIZE (args) > 2)
    return PyErr_Format (PyExc_TypeError, "%s() takes from 0 to 2 positional arguments but %zd were given",
                         name, PyTuple_GET_SIZE (args));
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "|OO", kwlist, &dim_obj, &keepdim_obj) ||
      !PyLong_CheckExact (dim_obj) || !PyBool_Check (keepdim_obj) ||
      ((dim = PyLong_AsLong (dim_obj)) == -1 && PyErr_Occurred ()))
    {
      PyObject *module, *slow = NULL, *bound = NULL, *result = NULL;

      PyErr_Clear ();
      module = PyImport_ImportModule ("torch._reduce");
      slow = module ? PyObject_GetAttrString (module, g_str_equal (name, "argmin") ? "_argmin_method"
                                                                               : "_argmax_method") : NULL;
      bound = slow ? PyMethod_New (slow, self) : NULL;
      result = bound ? PyObject_Call (bound, args, kwargs) : NULL;
      Py_XDECREF (bound);
      Py_XDECREF (slow);
      Py_XDECREF (module);
      return result;
    }
  ts_py_update_callsite ();
  return wrap_or_raise (ts_ops_argmax_dim (SELF_T, (int) dim, keepdim_obj == Py_True,
                                            g_str_equal (name, "argmin"), &error), &error);
}

static PyObject *
tensor_argmax (PyObject *self,
               PyObject *args,
               PyObject *kwargs)
{
  return tensor_arg_impl (self, args, kwargs, "argmax");
}

static PyObject *
tensor_argmin (PyObject *self,
               PyObject *args,
               PyObject *kwargs)
{
  return tensor_arg_impl (self, args, kwargs, "argmin");
}

static gboolean
parse_shape (PyObject *obj,
             guint    *ndim,
             gint64   *shape)
{
  Py_ssize_t n;

  if (PyLong_Check (obj))
    {
      *ndim = 1;
      shape[0] = PyLong_AsLongLong (obj);
      return !PyErr_Occurred ();
    }
  n = PySequence_Size (obj);
  if (n < 0)
    return FALSE;
  if (n > TS_MAX_DIMS)
    {
      PyErr_SetString (PyExc_RuntimeError, "too many dimensions");
      return FALSE;
    }
  for (Py_ssize_t i = 0; i < n; i++)
    {
      PyObject *item = PySequence_GetItem (obj, i);
      if (item == NULL)
        return FALSE;
      if (!PyLong_Check (item) && !PyIndex_Check (item))
        {
          PyErr_Format (PyExc_TypeError,
                        "empty(): argument 'size' (position 1) must be tuple of ints, but found "
                        "element of type %s at pos %zd", Py_TYPE (item)->tp_name, i);
          Py_DECREF (item);
          return FALSE;
        }
      shape[i] = PyLong_AsLongLong (item);
      Py_DECREF (item);
    }
  *ndim = n;
  return !PyErr_Occurred ();
}

/* A view, recorded for autograd (SelectBackward0, ...) when self requires
 * grad: args beyond the kind are its shape or its dims and bounds. */
static PyObject *
take_view (PyObject     *self,
           TsViewKind    kind,
           guint         ndim,
           const gint64 *shape,
           int           dim,
           gint64        start,
           gint64        stop_or_dim1)
{
  TsViewArgs args = { .kind = kind, .ndim = ndim, .dim0 = dim, .start = start };
  GError *error = NULL;

  if (ndim > 0)
    memcpy (args.shape, shape, ndim * sizeof (gint64));
  args.dim1 = (int) stop_or_dim1;
  args.stop = stop_or_dim1;
  args.step = 1;
  return wrap_or_raise (ts_autograd_view_op (SELF_T, &args, &error), &error);
}

/* The views that take a whole shape: view, expand, and reshape's two
 * forms (PyTorch 1.13): the view when strides allow one, recorded as
 * ReshapeAliasBackward0, and _unsafe_view of a contiguous copy,
 * UnsafeViewBackward0. */
static PyObject *
tensor_view_kind (PyObject   *self,
                  PyObject   *shape_obj,
                  TsViewKind  kind)
{
  gint64 shape[TS_MAX_DIMS];
  guint ndim;

  if (!parse_shape (shape_obj, &ndim, shape))
    return NULL;
  return take_view (self, kind, ndim, shape, 0, 0, 0);
}

static PyObject *
tensor_view_impl (PyObject *self,
                  PyObject *shape_obj)
{
  return tensor_view_kind (self, shape_obj, TS_VIEW_VIEW);
}

static PyObject *
tensor_reshape_alias_impl (PyObject *self,
                           PyObject *shape_obj)
{
  return tensor_view_kind (self, shape_obj, TS_VIEW_RESHAPE_ALIAS);
}

static PyObject *
tensor_unsafe_view_impl (PyObject *self,
                         PyObject *shape_obj)
{
  return tensor_view_kind (self, shape_obj, TS_VIEW_UNSAFE_VIEW);
}

static PyObject *
tensor_expand_impl (PyObject *self,
                    PyObject *shape_obj)
{
  return tensor_view_kind (self, shape_obj, TS_VIEW_EXPAND);
}

static PyObject *
tensor_transpose (PyObject *self,
                  PyObject *args)
{
  int d0, d1;

  if (!PyArg_ParseTuple (args, "ii", &d0, &d1))
    return NULL;
  return take_view (self, TS_VIEW_TRANSPOSE, 0, NULL, d0, 0, d1);
}

/* t() of a matrix: PyTorch records TBackward0, not TransposeBackward0 */
static PyObject *
tensor_t_matrix (PyObject *self,
                 PyObject *unused)
{
  return take_view (self, TS_VIEW_T, 0, NULL, 0, 0, 1);
}

/* A view whose one argument is a dim. */
static PyObject *
tensor_dim_view (PyObject   *self,
                 PyObject   *arg,
                 TsViewKind  kind)
{
  int dim = PyLong_AsLong (arg);

  if (PyErr_Occurred ())
    return NULL;
  return take_view (self, kind, 0, NULL, dim, 0, 0);
}

static PyObject *
tensor_unsqueeze (PyObject *self,
                  PyObject *arg)
{
  return tensor_dim_view (self, arg, TS_VIEW_UNSQUEEZE);
}

/* _squeeze_dim(dim): squeeze of one size-1 dim (SqueezeBackward1) */
static PyObject *
tensor_squeeze_dim (PyObject *self,
                    PyObject *arg)
{
  return tensor_dim_view (self, arg, TS_VIEW_SQUEEZE);
}

static PyObject *
tensor_select (PyObject *self,
               PyObject *args)
{
  int dim;
  long long index;

  if (!PyArg_ParseTuple (args, "iL", &dim, &index))
    return NULL;
  return take_view (self, TS_VIEW_SELECT, 0, NULL, dim, index, 0);
}

static PyObject *
tensor_slice (PyObject *self,
              PyObject *args)
{
  TsViewArgs view = { .kind = TS_VIEW_SLICE };
  long long start, stop, step;
  GError *error = NULL;

  if (!PyArg_ParseTuple (args, "iLLL", &view.dim0, &start, &stop, &step))
    return NULL;
  view.start = start;
  view.stop = stop;
  view.step = step;
  return wrap_or_raise (ts_autograd_view_op (SELF_T, &view, &error), &error);
}

static PyObject *
tensor_index_select (PyObject *self,
                     PyObject *args)
{
  int dim;
  PyObject *index;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "iO!", &dim, &TsPyTensor_Type, &index))
    return NULL;
  return wrap_or_raise (ts_ops_index_select (SELF_T, dim, ts_py_tensor_get (index), &error), &error);
}

/* Tensor.gather(dim, index, *, sparse_grad=False); torch.gather is this
 * same method, so a traceback has no Python frame of ours in it. */
static PyObject *
tensor_gather (PyObject *self,
               PyObject *args,
               PyObject *kwargs)
{
  static char *kwlist[] = { "dim", "index", "sparse_grad", NULL };
  int dim;
  int sparse_grad = FALSE;
  PyObject *index;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "iO!|$p", kwlist, &dim, &TsPyTensor_Type, &index,
                                    &sparse_grad))
    return NULL;
  return wrap_or_raise (ts_ops_gather (SELF_T, dim, ts_py_tensor_get (index), &error), &error);
}

/* _softmax(dim, log): softmax or log_softmax along dim, in self's dtype
 * (torch's Python code casts for dtype=). */
static PyObject *
tensor_softmax (PyObject *self,
                PyObject *args)
{
  int dim, log;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "ip", &dim, &log))
    return NULL;
  return wrap_or_raise (ts_ops_softmax (SELF_T, dim, log, &error), &error);
}

/* _embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False):
 * F.embedding's kernel; the options shape the gradient */
static PyObject *
tensor_embedding (PyObject *self,
                  PyObject *args)
{
  PyObject *indices;
  long long padding_idx = -1;
  int scale = FALSE;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "O!|Lp", &TsPyTensor_Type, &indices, &padding_idx, &scale))
    return NULL;
  return wrap_or_raise (ts_ops_embedding_full (SELF_T, ts_py_tensor_get (indices), padding_idx, scale, &error),
                        &error);
}

/* Methods and torch functions ----------------------------------------------- */

/* The ops whose PY column is METHOD are builtin functions whose self is a
 * capsule of their descriptor: torch.<name> (input, ...) as they are, and
 * Tensor.<name> (...) through an instancemethod, which binds the tensor
 * as the first argument. */
static PyMethodDef op_defs[TS_N_OPS];

static const TsOpDesc *
op_desc (PyObject *capsule)
{
  return PyCapsule_GetPointer (capsule, NULL);
}

static gboolean
check_input (const TsOpDesc *desc,
             PyObject       *input)
{
  if (ts_py_is_tensor (input))
    return TRUE;
  PyErr_Format (PyExc_TypeError, "%s(): argument 'input' (position 1) must be Tensor, not %s",
                desc->name, Py_TYPE (input)->tp_name);
  return FALSE;
}

/* The op of @input into the tensor @out (input itself in place); @out
 * is the result. */
static PyObject *
unary_into (const TsOpDesc *desc,
            PyObject       *input,
            PyObject       *out)
{
  GError *error = NULL;
  TsTensor *r;

  ts_py_update_callsite ();
  r = ts_ops_unary_out (desc->kernel, ts_py_tensor_get (input), ts_py_tensor_get (out), &error);
  if (r == NULL)
    return ts_py_set_error (error);
  ts_tensor_unref (r);
  Py_INCREF (out);
  return out;
}

/* torch._out.elementwise, which torch/_out.py hands over at import: the
 * out= cases the direct path leaves to PyTorch's generic rules */
static PyObject *out_hook;

static PyObject *
py_set_out_hook (PyObject *module,
                 PyObject *hook)
{
  Py_XSETREF (out_hook, Py_NewRef (hook));
  Py_RETURN_NONE;
}

/* An out= call of an elementwise op: NULL with no error when it may write
 * straight into @out (it has the result's shape @ndim, @shape and no graph
 * would be recorded). Else torch._out.elementwise (name, args, out,
 * shape) runs it: ATen refuses out= that would record a graph, and resizes
 * an out of another shape (with a warning) before the op writes it, which
 * it then does through the direct path. */
static PyObject *
out_indirect (const TsOpDesc *desc,
              PyObject       *input,
              PyObject       *other,
              PyObject       *out,
              guint           ndim,
              const gint64   *shape)
{
  TsTensor *o = ts_py_tensor_get (out);
  PyObject *dims, *r;

  if (!(ts_autograd_is_grad_enabled () &&
        (ts_autograd_requires_grad (o) || ts_autograd_requires_grad (ts_py_tensor_get (input)) ||
         (other != NULL && ts_py_is_tensor (other) && ts_autograd_requires_grad (ts_py_tensor_get (other))))) &&
      o->ndim == ndim && memcmp (o->shape, shape, ndim * sizeof (gint64)) == 0)
    return NULL;
  if (out_hook == NULL)
    {
      PyErr_Format (PyExc_RuntimeError, "%s(out=): torch._out is not loaded", desc->name);
      return NULL;
    }
  dims = PyTuple_New (ndim);
  for (guint i = 0; dims != NULL && i < ndim; i++)
    PyTuple_SET_ITEM (dims, i, PyLong_FromLongLong (shape[i]));
  if (dims == NULL)
    return NULL;
  if (other == NULL)
    r = PyObject_CallFunction (out_hook, "s(O)ON", desc->name, input, out, dims);
  else
    r = PyObject_CallFunction (out_hook, "s(OO)ON", desc->name, input, other, out, dims);
  return r;
}

/* torch.<name> (input, *, out=None) and Tensor.<name> () */
static PyObject *
op_unary (PyObject *capsule,
          PyObject *args,
          PyObject *kwargs)
{
  static char *kwlist[] = { "input", "out", NULL };
  const TsOpDesc *desc = op_desc (capsule);
  PyObject *input, *out = Py_None, *r;

  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "O|$O", kwlist, &input, &out) ||
      !check_input (desc, input))
    return NULL;
  if (out == Py_None)
    return unary (input, desc->kernel);
  /* the predicates (isnan, ...) have neither form */
  if (desc->inplace == NULL)
    {
      PyErr_Format (PyExc_TypeError, "%s() got an unexpected keyword argument 'out'", desc->name);
      return NULL;
    }
  if (!ts_py_is_tensor (out))
    {
      PyErr_Format (PyExc_TypeError, "%s(): argument 'out' must be Tensor, not %s",
                    desc->name, Py_TYPE (out)->tp_name);
      return NULL;
    }
  r = out_indirect (desc, input, NULL, out, ts_py_tensor_get (input)->ndim, ts_py_tensor_get (input)->shape);
  if (r != NULL || PyErr_Occurred ())
    return r;
  return unary_into (desc, input, out);
}

/* torch.<name><suffix> (input, other) into @out (NULL: a new tensor) */
static PyObject *
binary_by_name (const TsOpDesc *desc,
                const char     *suffix,
                PyObject       *input,
                PyObject       *other,
                PyObject       *out)
{
  PyObject *r;

  if (!check_input (desc, input))
    return NULL;
  r = binary_out (input, other, desc->kernel, out);
  if (r == Py_NotImplemented)
    {
      Py_DECREF (r);
      PyErr_Format (PyExc_TypeError, "%s%s(): argument 'other' must be Tensor, not %s",
                    desc->name, suffix, Py_TYPE (other)->tp_name);
      return NULL;
    }
  return r;
}

/* Tensor.<name>_ (other): a binary op's in-place form */
static PyObject *
op_binary_inplace (PyObject         *capsule,
                   PyObject *const  *args,
                   Py_ssize_t        nargs)
{
  const TsOpDesc *desc = op_desc (capsule);

  if (nargs != 2)
    {
      PyErr_Format (PyExc_TypeError, "%s_() takes 1 positional argument but %zd were given",
                    desc->name, nargs - 1);
      return NULL;
    }
  return binary_by_name (desc, "_", args[0], args[1], args[0]);
}

/* Tensor.<name>_ () and torch.<name>_ (input): the op's in-place form */
static PyObject *
op_unary_inplace (PyObject *capsule,
                  PyObject *input)
{
  const TsOpDesc *desc = op_desc (capsule);

  if (!check_input (desc, input))
    return NULL;
  return unary_into (desc, input, input);
}

/* out_indirect for a binary op, over the operands' broadcast shape (a
 * broadcast error is the op's to raise, directly) */
static PyObject *
binary_out_indirect (const TsOpDesc *desc,
                     PyObject       *input,
                     PyObject       *other,
                     PyObject       *out)
{
  TsTensor *a = ts_py_tensor_get (input);
  guint ndim = a->ndim;
  gint64 shape[TS_MAX_DIMS];

  memcpy (shape, a->shape, ndim * sizeof (gint64));
  if (ts_py_is_tensor (other))
    {
      TsTensor *b = ts_py_tensor_get (other);

      if (!ts_broadcast_shapes (a->ndim, a->shape, b->ndim, b->shape, &ndim, shape, NULL))
        return NULL;
    }
  return out_indirect (desc, input, other, out, ndim, shape);
}

/* torch.<name> (input, other, *, out=None) and Tensor.<name> (other) */
static PyObject *
op_binary (PyObject         *capsule,
           PyObject *const  *args,
           Py_ssize_t        nargs,
           PyObject         *kwnames)
{
  const TsOpDesc *desc = op_desc (capsule);
  PyObject *out = NULL;

  if (kwnames != NULL && PyTuple_GET_SIZE (kwnames) > 0)
    {
      if (PyTuple_GET_SIZE (kwnames) != 1 ||
          PyUnicode_CompareWithASCIIString (PyTuple_GET_ITEM (kwnames, 0), "out") != 0)
        {
          PyErr_Format (PyExc_TypeError, "%s() got an unexpected keyword argument '%U'",
                        desc->name, PyTuple_GET_ITEM (kwnames, 0));
          return NULL;
        }
      out = args[nargs];
      if (out == Py_None)
        out = NULL;
      else if (!ts_py_is_tensor (out))
        {
          PyErr_Format (PyExc_TypeError, "%s(): argument 'out' must be Tensor, not %s",
                        desc->name, Py_TYPE (out)->tp_name);
          return NULL;
        }
    }
  if (nargs != 2)
    {
      PyErr_Format (PyExc_TypeError, "%s() takes 2 positional arguments but %zd were given",
                    desc->name, nargs);
      return NULL;
    }
  if (out != NULL)
    {
      PyObject *r = check_input (desc, args[0]) ? binary_out_indirect (desc, args[0], args[1], out) : NULL;

      if (r != NULL || PyErr_Occurred ())
        return r;
    }
  return binary_by_name (desc, "", args[0], args[1], out);
}

static PyMethodDef op_inplace_defs[TS_N_OPS];

/* @def bound to @desc as Tensor.<def's name> in @methods and torch.<name>
 * in @functions. */
static gboolean
add_method (const TsOpDesc *desc,
            PyMethodDef    *def,
            PyObject       *methods,
            PyObject       *functions)
{
  PyObject *capsule, *func, *method;
  gboolean ok;

  capsule = PyCapsule_New ((gpointer) desc, NULL, NULL);
  func = capsule != NULL ? PyCFunction_NewEx (def, capsule, NULL) : NULL;
  method = func != NULL ? PyInstanceMethod_New (func) : NULL;
  ok = method != NULL &&
       PyDict_SetItemString (methods, def->ml_name, method) == 0 &&
       PyDict_SetItemString (functions, def->ml_name, func) == 0;
  Py_XDECREF (method);
  Py_XDECREF (func);
  Py_XDECREF (capsule);
  return ok;
}

/* The methods of the op, added to @methods (Tensor's dict) and
 * @functions: a unary op's in-place form too, where it has one. */
static gboolean
add_op_method (const TsOpDesc *desc,
               PyObject       *methods,
               PyObject       *functions)
{
  PyMethodDef *def = &op_defs[desc->id];

  def->ml_name = desc->name;
  if (desc->family == TS_OP_FAMILY_UNARY)
    {
      def->ml_meth = (PyCFunction) (void (*) (void)) op_unary;
      def->ml_flags = METH_VARARGS | METH_KEYWORDS;
    }
  else
    {
      def->ml_meth = (PyCFunction) (void (*) (void)) op_binary;
      def->ml_flags = METH_FASTCALL | METH_KEYWORDS;
    }
  if (!add_method (desc, def, methods, functions))
    return FALSE;
  if (desc->inplace == NULL)
    return TRUE;

  def = &op_inplace_defs[desc->id];
  /* lives as long as the module: the table is built once */
  def->ml_name = g_strconcat (desc->name, "_", NULL);
  if (desc->family == TS_OP_FAMILY_UNARY)
    {
      def->ml_meth = op_unary_inplace;
      def->ml_flags = METH_O;
    }
  else
    {
      def->ml_meth = (PyCFunction) (void (*) (void)) op_binary_inplace;
      def->ml_flags = METH_FASTCALL;
    }
  return add_method (desc, def, methods, functions);
}

/* Walks the op table: the number slots' ops, and the methods. */
static gboolean
register_ops (PyObject *module)
{
  PyObject *functions = PyDict_New ();
  PyObject *slot_functions = PyDict_New ();
  gboolean ok = functions != NULL && slot_functions != NULL;

  for (guint i = 0; ok && i < TS_N_OPS; i++)
    {
      const TsOpDesc *desc = ts_op_get (i);

      if (desc->python == TS_PY_METHOD)
        ok = add_op_method (desc, TsPyTensor_Type.tp_dict, functions);
      else if (desc->python > TS_PY_METHOD && desc->python < TS_PY_N_SLOTS)
        {
          slot_ops[desc->python] = desc;
          /* by name too (torch.pow, Tensor.remainder_, ...), in a dict of
           * their own: torch's Python code picks those it binds so */
          if (desc->family == TS_OP_FAMILY_BINARY || desc->family == TS_OP_FAMILY_UNARY)
            ok = add_op_method (desc, TsPyTensor_Type.tp_dict, slot_functions);
        }
    }
  PyType_Modified (&TsPyTensor_Type);
  ok = ok && PyModule_AddObjectRef (module, "_op_functions", functions) == 0 &&
       PyModule_AddObjectRef (module, "_slot_op_functions", slot_functions) == 0;
  Py_XDECREF (functions);
  Py_XDECREF (slot_functions);
  return ok;
}

static PyObject *
tolist_rec (const TsTensor *t,
            guint           dim,
            gint64          offset)
{
  gsize esize = ts_dtype_size (t->dtype);

  if (dim == t->ndim)
    {
      const guint8 *p = t->storage->data + offset * esize;
      if (ts_dtype_is_complex (t->dtype))
        return ts_py_complex_number (t->dtype, p);
      if (ts_dtype_is_floating (t->dtype))
        return PyFloat_FromDouble (ts_dtype_load (t->dtype, p));
      if (t->dtype == TS_DTYPE_BOOL)
        return PyBool_FromLong (*p != 0);
      return PyLong_FromLongLong (ts_dtype_load_int (t->dtype, p));
    }
  else
    {
      PyObject *list = PyList_New (t->shape[dim]);
      for (gint64 i = 0; i < t->shape[dim]; i++)
        {
          PyObject *item = tolist_rec (t, dim + 1, offset + i * t->strides[dim]);
          if (item == NULL)
            {
              Py_DECREF (list);
              return NULL;
            }
          PyList_SET_ITEM (list, i, item);
        }
      return list;
    }
}

static PyObject *
tensor_tolist (PyObject *self,
               PyObject *unused)
{
  GError *error = NULL;
  g_autoptr(TsTensor) host = ts_ops_to_host_for (SELF_T, "Tensor.tolist()", &error);

  ts_py_update_callsite ();
  if (host == NULL)
    return ts_py_set_error (error);
  return tolist_rec (host, 0, host->offset);
}

static PyObject *
tensor_record_stream (PyObject *self,
                      PyObject *arg)
{
  long stream = PyLong_AsLong (arg);

  if (PyErr_Occurred ())
    return NULL;
  ts_storage_record_stream (SELF_T->storage, (TsStreamId) stream);
  Py_RETURN_NONE;
}

static PyObject *
tensor_shares_storage (PyObject *self,
                       PyObject *other)
{
  if (!ts_py_is_tensor (other))
    Py_RETURN_FALSE;
  return PyBool_FromLong (SELF_T->storage == ts_py_tensor_get (other)->storage);
}

static PyMethodDef tensor_methods[] = {
  { "dim", tensor_dim, METH_NOARGS, NULL },
  { "numel", tensor_numel, METH_NOARGS, NULL },
  { "nelement", tensor_numel, METH_NOARGS, NULL },
  { "is_inference", tensor_is_inference, METH_NOARGS, NULL },
  { "_stride", tensor_stride_tuple, METH_NOARGS, NULL },
  { "storage_offset", tensor_storage_offset, METH_NOARGS, NULL },
  { "get_device", tensor_get_device, METH_NOARGS, NULL },
  { "element_size", tensor_element_size, METH_NOARGS, NULL },
  { "data_ptr", tensor_data_ptr, METH_NOARGS, NULL },
  { "_storage_ptr", tensor_storage_ptr, METH_NOARGS, NULL },
  { "_storage_nbytes", tensor_storage_nbytes, METH_NOARGS, NULL },
  { "_shares_storage", tensor_shares_storage, METH_O, NULL },
  { "is_contiguous", tensor_is_contiguous, METH_NOARGS, NULL },
  { "is_pinned", tensor_is_pinned, METH_NOARGS, NULL },
  { "pin_memory", tensor_pin_memory, METH_NOARGS, NULL },
  { "clone", tensor_clone, METH_NOARGS, NULL },
  { "contiguous", tensor_contiguous, METH_NOARGS, NULL },
  { "_to", tensor_to_impl, METH_VARARGS, NULL },
  { "copy_", (PyCFunction) (void (*) (void)) tensor_copy_, METH_VARARGS | METH_KEYWORDS, NULL },
  { "fill_", tensor_fill_, METH_O, NULL },
  { "normal_", (PyCFunction) (void (*) (void)) tensor_normal_, METH_VARARGS | METH_KEYWORDS, NULL },
  { "uniform_", (PyCFunction) (void (*) (void)) tensor_uniform_, METH_VARARGS | METH_KEYWORDS, NULL },
  { "sum", (PyCFunction) (void (*) (void)) tensor_sum, METH_VARARGS | METH_KEYWORDS, NULL },
  { "mean", (PyCFunction) (void (*) (void)) tensor_mean, METH_VARARGS | METH_KEYWORDS, NULL },
  { "_max", tensor_max_impl, METH_VARARGS, NULL },
  { "argmax", (PyCFunction) (void (*) (void)) tensor_argmax, METH_VARARGS | METH_KEYWORDS, NULL },
  { "argmin", (PyCFunction) (void (*) (void)) tensor_argmin, METH_VARARGS | METH_KEYWORDS, NULL },
  { "_view", tensor_view_impl, METH_O, NULL },
  { "_reshape_alias", tensor_reshape_alias_impl, METH_O, NULL },
  { "_unsafe_view", tensor_unsafe_view_impl, METH_O, NULL },
  { "_expand", tensor_expand_impl, METH_O, NULL },
  { "transpose", tensor_transpose, METH_VARARGS, NULL },
  { "_t_matrix", tensor_t_matrix, METH_NOARGS, NULL },
  { "unsqueeze", tensor_unsqueeze, METH_O, NULL },
  { "select", tensor_select, METH_VARARGS, NULL },
  { "_squeeze_dim", tensor_squeeze_dim, METH_O, NULL },
  { "_slice", tensor_slice, METH_VARARGS, NULL },
  { "index_select", tensor_index_select, METH_VARARGS, NULL },
  { "gather", (PyCFunction) (void (*) (void)) tensor_gather, METH_VARARGS | METH_KEYWORDS, NULL },
  { "_embedding", tensor_embedding, METH_VARARGS, NULL },
  { "_softmax", tensor_softmax, METH_VARARGS, NULL },
  { "item", tensor_item, METH_NOARGS, NULL },
  { "tolist", tensor_tolist, METH_NOARGS, NULL },
  { "_record_stream", tensor_record_stream, METH_O, NULL },
  { NULL }
};

static PyObject *
tensor_new (PyTypeObject *type,
            PyObject     *args,
            PyObject     *kwargs)
{
  TsPyTensor *self = (TsPyTensor *) type->tp_alloc (type, 0);

  /* Filled by _C._set_data or a creation function; torch.Tensor.__new__ in
   * Python handles the legacy constructor forms. */
  return (PyObject *) self;
}

/* --no-data: what PyTorch prints for a meta tensor, "..." for the values
 * and the size spelled out, with our device:
 * tensor(..., device='cuda:0', size=(2, 3), dtype=torch.float16). */
static PyObject *
repr_without_values (TsTensor *t)
{
  g_autoptr(GString) text = g_string_new ("tensor(...");
  TsTensorFormatOptions options = { 0 };

  if (ts_tensor_is_cuda (t))
    g_string_append_printf (text, ", device='cuda:%d'", ts_tensor_get_device (t).index);
  g_string_append (text, ", size=(");
  for (guint d = 0; d < t->ndim; d++)
    g_string_append_printf (text, "%s%" G_GINT64_FORMAT, d ? ", " : "", t->shape[d]);
  g_string_append (text, t->ndim == 1 ? ",)" : ")");
  if (t->dtype != ts_dtype_get_default ())
    g_string_append_printf (text, ", dtype=%s", ts_dtype_name (t->dtype));
  ts_py_autograd_format_options (t, &options);
  if (options.grad_fn != NULL)
    g_string_append_printf (text, ", grad_fn=<%s>", options.grad_fn);
  else if (options.requires_grad)
    g_string_append (text, ", requires_grad=True");
  g_string_append_c (text, ')');
  return PyUnicode_FromString (text->str);
}

static PyObject *
py_no_data (PyObject *module,
            PyObject *unused)
{
  return PyBool_FromLong (ts_host_data_no_data ());
}

/* repr(tensor) is PyTorch's, from ts-tensor-format.c; a device tensor is
 * read back with a blocking copy first, as PyTorch does. */
static PyObject *
tensor_repr (PyObject *self)
{
  GError *error = NULL;
  g_autoptr(TsTensor) host = NULL;
  g_autofree char *device = NULL;
  g_autofree char *text = NULL;
  TsTensorFormatOptions options = { 0 };

  if (SELF_T == NULL)
    return PyUnicode_FromString ("tensor(<uninitialized>)");
  ts_py_update_callsite ();
  if (ts_host_data_no_data () && (ts_tensor_is_cuda (SELF_T) || SELF_T->storage->data == NULL))
    {
      /* the copy to the host still happens, so that the timeline is the
       * normal run's; only the values are not there to print */
      if (ts_tensor_is_cuda (SELF_T) &&
          (host = ts_ops_to (SELF_T, TS_DEVICE_CPU_VALUE, SELF_T->dtype, FALSE, FALSE, &error)) == NULL)
        return ts_py_set_error (error);
      return repr_without_values (SELF_T);
    }
  host = ts_ops_to_host (SELF_T, &error);
  if (host == NULL)
    return ts_py_set_error (error);
  if (ts_tensor_is_cuda (SELF_T))
    device = ts_device_to_string (ts_tensor_get_device (SELF_T));
  options.device = device;
  ts_py_autograd_format_options (SELF_T, &options);
  text = ts_tensor_format (host->dtype, host->ndim, host->shape, host->strides,
                           ts_tensor_data (host), &options);
  return PyUnicode_FromString (text);
}

static PyTypeObject TsPyTensor_Type = {
  PyVarObject_HEAD_INIT (NULL, 0)
  .tp_name = "torch._C.TensorBase",
  .tp_basicsize = sizeof (TsPyTensor),
  .tp_dealloc = tensor_dealloc,
  .tp_as_number = &tensor_as_number,
  .tp_richcompare = tensor_richcompare,
  .tp_repr = tensor_repr,
  .tp_str = tensor_repr,
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
  .tp_methods = tensor_methods,
  .tp_getset = tensor_getset,
  .tp_new = tensor_new,
};

/* Module functions ----------------------------------------------------------- */

/* The (shape, dtype, device) of a new tensor; a None dtype is the
 * default one. */
static gboolean
parse_new_tensor (PyObject *shape_obj,
                  PyObject *dtype_obj,
                  PyObject *device_obj,
                  guint    *ndim,
                  gint64   *shape,
                  TsDType  *dtype,
                  TsDevice *device)
{
  if (!parse_shape (shape_obj, ndim, shape) || !ts_py_parse_dtype (dtype_obj, dtype) ||
      !ts_py_parse_device (device_obj, device))
    return FALSE;
  if (*dtype == TS_DTYPE_UNDEFINED)
    *dtype = ts_dtype_get_default ();
  return TRUE;
}

/* _empty(shape, dtype, device, pin_memory) */
static PyObject *
py_empty (PyObject *module,
          PyObject *args)
{
  PyObject *shape_obj, *dtype_obj, *device_obj;
  int pin = 0;
  gint64 shape[TS_MAX_DIMS];
  guint ndim;
  TsDType dtype;
  TsDevice device;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "OOO|p", &shape_obj, &dtype_obj, &device_obj, &pin))
    return NULL;
  if (!parse_new_tensor (shape_obj, dtype_obj, device_obj, &ndim, shape, &dtype, &device))
    return NULL;
  return wrap_or_raise (ts_tensor_new_empty (device, dtype, ndim, shape, pin, &error), &error);
}

/* _promote_types(a, b): the core's dtype promotion (torch.promote_types) */
static PyObject *
py_promote_types (PyObject *module,
                  PyObject *args)
{
  PyObject *a_obj, *b_obj;
  TsDType a, b;

  if (!PyArg_ParseTuple (args, "OO", &a_obj, &b_obj) ||
      !ts_py_parse_dtype (a_obj, &a) || !ts_py_parse_dtype (b_obj, &b))
    return NULL;
  return PyLong_FromLong (ts_dtype_promote (a, b));
}

/* _from_cuda_pointer(ptr, shape, strides, dtype): a CUDA tensor over device
 * memory it does not own (torch.as_tensor of a __cuda_array_interface__);
 * strides are in elements. ptr must lie in live device memory then; the
 * tensor lives on that memory's device. */
static PyObject *
py_from_cuda_pointer (PyObject *module,
                      PyObject *args)
{
  unsigned long long ptr;
  PyObject *shape_obj, *strides_obj, *dtype_obj;
  gint64 shape[TS_MAX_DIMS], strides[TS_MAX_DIMS];
  guint ndim, n_strides;
  TsDType dtype;
  gint64 extent;
  int device;
  GError *error = NULL;
  g_autoptr(TsStorage) storage = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "KOOO", &ptr, &shape_obj, &strides_obj, &dtype_obj))
    return NULL;
  if (!parse_shape (shape_obj, &ndim, shape) || !parse_shape (strides_obj, &n_strides, strides) ||
      !ts_py_parse_dtype (dtype_obj, &dtype))
    return NULL;
  if (n_strides != ndim)
    {
      PyErr_SetString (PyExc_ValueError, "strides must have one entry per dimension");
      return NULL;
    }
  if (!ts_session_cuda_init (&error))
    return ts_py_set_error (error);
  /* c10's getDeviceFromPtr: cudaPointerGetAttributes must know the
   * pointer (a null one, of an empty array, means the current device) */
  device = ts_session_current_device ();
  /* On a real GPU the table has no cudaPointerGetAttributes: the pointer
   * is taken as the current device's, as a kernel would take it. */
  if (ptr != 0 && ts_session_get_device_kernels () == NULL)
    {
      if (ptr < TS_DEVICE_MEMORY_BASE || !ts_session_address_valid (ptr, 1))
        {
          PyErr_SetString (PyExc_RuntimeError, "The specified pointer resides on host memory and is "
                           "not registered with any CUDA device.");
          return NULL;
        }
      device = (int) ((ptr - TS_DEVICE_MEMORY_BASE) >> TS_DEVICE_MEMORY_SPAN_SHIFT);
    }
  for (guint d = 0; d < ndim; d++)
    if (strides[d] < 0)
      {
        PyErr_SetString (PyExc_ValueError, "negative strides are not supported");
        return NULL;
      }
  extent = ts_py_strided_extent (ndim, shape, strides);
  storage = ts_storage_new_external (device, ptr, (gsize) extent * ts_dtype_size (dtype));
  return wrap_or_raise (ts_tensor_new_view (storage, dtype, ndim, shape, strides, 0), &error);
}

/* _from_flat(values, shape, dtype, device): a CPU tensor filled from a flat
 * list of numbers, then moved to device. */
static PyObject *
py_from_flat (PyObject *module,
              PyObject *args)
{
  PyObject *values, *shape_obj, *dtype_obj, *device_obj;
  gint64 shape[TS_MAX_DIMS];
  guint ndim;
  TsDType dtype;
  TsDevice device;
  GError *error = NULL;
  g_autoptr(TsTensor) host = NULL;
  Py_ssize_t n;
  gsize esize;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "OOOO", &values, &shape_obj, &dtype_obj, &device_obj))
    return NULL;
  if (!parse_new_tensor (shape_obj, dtype_obj, device_obj, &ndim, shape, &dtype, &device))
    return NULL;
  host = ts_tensor_new_empty (TS_DEVICE_CPU_VALUE, dtype, ndim, shape, FALSE, &error);
  /* the program's own values: kept even with --no-data */
  if (host == NULL || (ts_host_data_no_data () && !ts_storage_keep_values (host->storage, &error)))
    return ts_py_set_error (error);
  n = PyList_Size (values);
  esize = ts_dtype_size (dtype);
  for (Py_ssize_t i = 0; i < n && i < ts_tensor_numel (host); i++)
    {
      PyObject *v = PyList_GET_ITEM (values, i);
      TsScalar s;
      guint8 *p = ts_tensor_data (host);  /* NULL in --no-data mode */

      if (PyComplex_Check (v))
        {
          if (!ts_py_complex_store (dtype, p ? p + i * esize : NULL, v))
            return NULL;
          continue;
        }
      if (ts_py_is_tensor (v))
        {
          if (!item_scalar (ts_py_tensor_get (v), "torch.tensor() of tensors", &s))
            return NULL;
        }
      else if (!ts_py_parse_scalar (v, &s))
        {
          if (!PyErr_Occurred ())
            PyErr_Format (PyExc_TypeError, "must be real number, not %s", Py_TYPE (v)->tp_name);
          return NULL;
        }
      /* torch.tensor() checks integer dtypes only, naming the dtype */
      if (ts_dtype_is_integral (dtype, FALSE) &&
          ts_dtype_scalar_overflows (dtype, s.kind != TS_DTYPE_FLOAT64, s.ivalue, s.value))
        {
          PyErr_Format (PyExc_RuntimeError, "value cannot be converted to type %s without overflow",
                        ts_dtype_short_name (dtype));
          return NULL;
        }
      if (p == NULL)
        continue;
      if (ts_dtype_is_floating (dtype) || s.kind == TS_DTYPE_FLOAT64)
        ts_dtype_store (dtype, p + i * esize, s.value);
      else
        ts_dtype_store_int (dtype, p + i * esize, s.ivalue);
    }
  if (device.type == TS_DEVICE_CPU)
    return ts_py_tensor_wrap (g_steal_pointer (&host));
  return wrap_or_raise (ts_ops_to (host, device, dtype, FALSE, FALSE, &error), &error);
}

static PyObject *
py_arange (PyObject *module,
           PyObject *args)
{
  double start, end, step;
  PyObject *dtype_obj, *device_obj;
  TsDType dtype;
  TsDevice device;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "dddOO", &start, &end, &step, &dtype_obj, &device_obj))
    return NULL;
  if (!ts_py_parse_dtype (dtype_obj, &dtype) || !ts_py_parse_device (device_obj, &device))
    return NULL;
  return wrap_or_raise (ts_ops_arange (start, end, step, dtype, device, &error), &error);
}

static PyObject *
py_linspace (PyObject *module,
             PyObject *args)
{
  double start, end;
  long long steps;
  PyObject *dtype_obj, *device_obj;
  TsDType dtype;
  TsDevice device;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "ddLOO", &start, &end, &steps, &dtype_obj, &device_obj))
    return NULL;
  if (!ts_py_parse_dtype (dtype_obj, &dtype) || !ts_py_parse_device (device_obj, &device))
    return NULL;
  return wrap_or_raise (ts_ops_linspace (start, end, steps, dtype, device, &error), &error);
}

static PyObject *
py_equal (PyObject *module,
          PyObject *args)
{
  PyObject *a, *b;
  gboolean result;
  GError *error = NULL;

  ts_py_update_callsite ();
  if (!PyArg_ParseTuple (args, "O!O!", &TsPyTensor_Type, &a, &TsPyTensor_Type, &b))
    return NULL;
  if (!ts_ops_equal (ts_py_tensor_get (a), ts_py_tensor_get (b), &result, &error))
    return ts_py_set_error (error);
  return PyBool_FromLong (result);
}

/* _make_subclass(cls, tensor, requires_grad): a cls instance sharing data. */
static PyObject *
py_make_subclass (PyObject *module,
                  PyObject *args)
{
  PyTypeObject *cls;
  PyObject *src;
  int requires_grad = 0;
  TsPyTensor *self;

  if (!PyArg_ParseTuple (args, "O!O!|p", &PyType_Type, &cls, &TsPyTensor_Type, &src, &requires_grad))
    return NULL;
  self = (TsPyTensor *) cls->tp_alloc (cls, 0);
  if (self == NULL)
    return NULL;
  /* a new tensor over the same memory: its own autograd state */
  self->tensor = ts_py_tensor_alias (ts_py_tensor_get (src));
  if (requires_grad && !ts_py_autograd_set_requires_grad (self->tensor, TRUE))
    {
      Py_DECREF (self);
      return NULL;
    }
  return (PyObject *) self;
}

/* _set_data(self, other): self now refers to other's tensor. */
static PyObject *
py_set_data (PyObject *module,
             PyObject *args)
{
  PyObject *self, *src;

  if (!PyArg_ParseTuple (args, "O!O!", &TsPyTensor_Type, &self, &TsPyTensor_Type, &src))
    return NULL;
  /* self keeps its autograd state (a Parameter moved by Module.to() still
   * requires grad), as PyTorch's set_data does */
  if (!ts_py_autograd_set_data (self, ts_py_tensor_get (src)))
    return NULL;
  Py_RETURN_NONE;
}

/* torch/__init__.py writes the dtype codes out a third time (after
 * TsDType and the CUDA module's, which ts-op-table.c asserts agree): each
 * dtype object must be TsDType's of its position. */
static gboolean
check_dtype_object (PyObject *obj,
                    TsDType   dtype)
{
  PyObject *code = PyObject_GetAttrString (obj, "_code");
  PyObject *name = code != NULL ? PyObject_GetAttrString (obj, "_name") : NULL;
  PyObject *itemsize = name != NULL ? PyObject_GetAttrString (obj, "itemsize") : NULL;
  gboolean ok = itemsize != NULL && PyLong_Check (code) && PyUnicode_Check (name) &&
                PyLong_AsLong (code) == dtype && PyLong_AsLong (itemsize) == (long) ts_dtype_size (dtype) &&
                g_strcmp0 (PyUnicode_AsUTF8 (name), ts_dtype_name (dtype) + strlen ("torch.")) == 0;

  if (itemsize != NULL && !ok)
    PyErr_Format (PyExc_RuntimeError, "torch dtype %R does not match TsDType %d (%s)",
                  obj, dtype, ts_dtype_name (dtype));
  Py_XDECREF (code);
  Py_XDECREF (name);
  Py_XDECREF (itemsize);
  return ok;
}

static PyObject *
py_set_classes (PyObject *module,
                PyObject *args)
{
  PyObject *tensor, *device, *dtypes, *dir = NULL, *size = NULL;

  if (!PyArg_ParseTuple (args, "OOO|UO!", &tensor, &device, &dtypes, &dir, &PyType_Type, &size))
    return NULL;
  if (dir != NULL)
    ts_py_set_torch_dir (dir);
  if (size != NULL)
    Py_XSETREF (size_class, Py_NewRef (size));
  Py_XSETREF (tensor_class, Py_NewRef (tensor));
  Py_XSETREF (device_class, Py_NewRef (device));
  if (PySequence_Size (dtypes) != TS_N_DTYPES)
    {
      PyErr_Format (PyExc_RuntimeError, "torch._dtypes has %zd dtypes, TsDType %d",
                    PySequence_Size (dtypes), TS_N_DTYPES);
      return NULL;
    }
  for (int i = 0; i < TS_N_DTYPES; i++)
    {
      Py_XSETREF (dtype_objects[i], PySequence_GetItem (dtypes, i));
      if (dtype_objects[i] == NULL || !check_dtype_object (dtype_objects[i], i))
        return NULL;
    }
  Py_RETURN_NONE;
}

/* _set_default_dtype(dtype): torch.set_default_dtype checked the type. */
static PyObject *
py_set_default_dtype (PyObject *module,
                      PyObject *arg)
{
  TsDType dtype;

  if (!ts_py_parse_dtype (arg, &dtype))
    return NULL;
  if (dtype != TS_DTYPE_FLOAT32 && dtype != TS_DTYPE_FLOAT64)
    {
      PyErr_SetString (PyExc_TypeError, "only floating-point types are supported as the default type");
      return NULL;
    }
  ts_dtype_set_default (dtype);
  Py_RETURN_NONE;
}

/* _div_mode(input, other, floor, inplace): torch.div and Tensor.div(_)
 * with rounding_mode "floor" (floor TRUE) or "trunc", which
 * torch/__init__.py checks; a number input (torch.div (5, t, ...)) is the
 * wrapped number of the reversed form */
static PyObject *
py_div_mode (PyObject         *module,
             PyObject *const  *args,
             Py_ssize_t        nargs)
{
  const TsOpDesc *desc;
  int floor_mode, inplace;

  if (nargs != 4 || (floor_mode = PyObject_IsTrue (args[2])) < 0 || (inplace = PyObject_IsTrue (args[3])) < 0)
    {
      if (!PyErr_Occurred ())
        PyErr_SetString (PyExc_TypeError, "_div_mode(input, other, floor, inplace)");
      return NULL;
    }
  desc = ts_op_get (floor_mode ? TS_OP_DIV_FLOOR : TS_OP_DIV_TRUNC);
  if (!inplace && !ts_py_is_tensor (args[0]) && ts_py_is_tensor (args[1]))
    {
      PyObject *r = binary_out (args[0], args[1], desc->kernel, NULL);

      if (r != Py_NotImplemented)
        return r;
      Py_DECREF (r);
    }
  return binary_by_name (desc, inplace ? "_" : "", args[0], args[1], inplace ? args[0] : NULL);
}

static PyMethodDef tensor_module_methods[] = {
  { "_div_mode", (PyCFunction) (void (*) (void)) py_div_mode, METH_FASTCALL, NULL },
  { "_set_default_dtype", py_set_default_dtype, METH_O, NULL },
  { "_empty", py_empty, METH_VARARGS, NULL },
  { "_promote_types", py_promote_types, METH_VARARGS, NULL },
  { "_from_flat", py_from_flat, METH_VARARGS, NULL },
  { "_from_cuda_pointer", py_from_cuda_pointer, METH_VARARGS, NULL },
  { "_arange", py_arange, METH_VARARGS, NULL },
  { "_linspace", py_linspace, METH_VARARGS, NULL },
  { "_equal", py_equal, METH_VARARGS, NULL },
  { "_make_subclass", py_make_subclass, METH_VARARGS, NULL },
  { "_set_data", py_set_data, METH_VARARGS, NULL },
  { "_set_out_hook", py_set_out_hook, METH_O, NULL },
  { "_set_classes", py_set_classes, METH_VARARGS, NULL },
  /* --no-data (ts-host-data.h): what needs values asks, to refuse */
  { "_no_data", py_no_data, METH_NOARGS, NULL },
  { NULL }
};

/* Identity hashing, as torch.Tensor (__eq__ is elementwise): hash(t) is
 * id(t), which PyTorch's Python __hash__ returns (an int below 2^61 - 1
 * hashes to itself), here without a Python frame: an optimizer looks its
 * state up by tensor for every parameter of every step. */
static Py_hash_t
tensor_hash (PyObject *self)
{
  Py_hash_t h = (Py_hash_t) (guintptr) self;

  return h == -1 ? -2 : h;
}

gboolean
ts_py_tensor_register (PyObject *module)
{
  TsPyTensor_Type.tp_hash = tensor_hash;
  if (PyType_Ready (&TsPyTensor_Type) < 0 || !ts_py_autograd_add_to_type (&TsPyTensor_Type))
    return FALSE;
  Py_INCREF (&TsPyTensor_Type);
  if (PyModule_AddObject (module, "TensorBase", (PyObject *) &TsPyTensor_Type) < 0)
    return FALSE;
  return register_ops (module) && PyModule_AddFunctions (module, tensor_module_methods) == 0;
}
