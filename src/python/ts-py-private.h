/* ts-py-private.h: shared pieces of the torch._C extension
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ts-autograd-formulas.h"
#include "ts-ops.h"
#include "ts-tensor-format.h"
#include "ts-tensor.h"

G_BEGIN_DECLS

typedef struct
{
  PyObject_HEAD
  TsTensor *tensor;
} TsPyTensor;

extern PyObject *ts_py_oom_error;

PyObject *ts_py_set_error        (GError    *error);
void      ts_py_update_callsite  (void);
PyObject *ts_py_device_object    (TsDevice   device);
gboolean  ts_py_parse_device     (PyObject  *obj,
                                  TsDevice  *device);
PyObject *ts_py_dtype_object     (TsDType    dtype);
gboolean  ts_py_parse_dtype      (PyObject  *obj,
                                  TsDType   *dtype);
gboolean  ts_py_parse_scalar     (PyObject  *obj,
                                  TsScalar  *scalar);
gboolean  ts_py_is_tensor        (PyObject  *obj);
TsTensor *ts_py_tensor_get       (PyObject  *obj);
PyObject *ts_py_tensor_wrap      (TsTensor  *t);
gboolean  ts_py_tensor_register  (PyObject  *module);
gboolean  ts_py_cuda_register    (PyObject  *module);
gboolean  ts_py_sanitizer_register (PyObject *module);
gboolean  ts_py_grad_register    (PyObject  *module);
gboolean  ts_py_trace_register   (PyObject  *module);
gboolean  ts_py_print_register   (PyObject  *module);
/* torch.is_inference_mode_enabled() on this thread (ts-py-grad.c) */
gboolean  ts_py_inference_mode_enabled (void);
gboolean  ts_py_numpy_register   (PyObject  *module);
gboolean  ts_py_index_register   (PyObject  *module);
gboolean  ts_py_more_register    (PyObject  *module);
gboolean  ts_py_out_register     (PyObject  *module);
gboolean  ts_py_shape_register   (PyObject  *module);
/* torch._C's autocast state (ts-py-amp.c) */
gboolean  ts_py_amp_register     (PyObject  *module);
gboolean  ts_py_foreach_register (PyObject  *module);
gboolean  ts_py_storage_register (PyObject  *module);
gboolean  ts_py_conv_register    (PyObject  *module);
gboolean  ts_py_pool_register    (PyObject  *module);
/* ts-py-complex.c: Python complex numbers meeting tensors */
gboolean  ts_py_complex_register (PyObject  *module);
gboolean  ts_py_fft_register     (PyObject  *module);
/* one element of a complex dtype at @p */
PyObject *ts_py_complex_number   (TsDType    dtype,
                                  gconstpointer p);
TsTensor *ts_py_complex_operand  (PyObject  *number,
                                  TsTensor  *other,
                                  GError   **error);
gboolean  ts_py_complex_fill_    (TsTensor  *self,
                                  PyObject  *number,
                                  GError   **error);
/* PyTorch's warning (once a run) when a cast from @from to @to drops
 * imaginary parts; FALSE when the warning became an exception */
gboolean  ts_py_complex_warn_cast (TsDType   from,
                                   TsDType   to);
/* @p NULL: only the check (a complex into a real dtype raises) */
gboolean  ts_py_complex_store    (TsDType    dtype,
                                  guint8    *p,
                                  PyObject  *number);
/* ts-py-linalg.c: torch._C._linalg */
gboolean  ts_py_linalg_register  (PyObject  *module);
/* the elements a strided view spans, first to last (ts-py-numpy.c) */
gint64    ts_py_strided_extent   (guint         ndim,
                                  const gint64 *shape,
                                  const gint64 *strides);
/* torch.cuda._sanitizer.CUDASanitizerErrors for a TS_OP_ACCESS_ERROR. */
PyObject *ts_py_sanitizer_raise  (GError    *error);
/* Code of our torch package (left out of the user's stacks). */
gboolean  ts_py_is_torch_code    (PyCodeObject *code);
void      ts_py_set_torch_dir    (PyObject  *dir);

/* ts-py-autograd.c: Tensor's autograd attributes and methods, added to
 * the type after PyType_Ready; torch._C's autograd functions. */
gboolean  ts_py_autograd_add_to_type (PyTypeObject *type);
gboolean  ts_py_autograd_register (PyObject *module);
void       ts_py_object_release   (gpointer   object);
TsTensor **ts_py_tensor_array    (PyObject  *seq,
                                  gboolean   nones_ok,
                                  guint     *n);
/* A Python exception raised inside a backward pass (a hook, a Function's
 * backward): kept until the pass returns, error set; FALSE */
gboolean  ts_py_autograd_python_failed (GError **error);
/* ts-py-function.c: torch._C._function_record, the node of a Python
 * torch.autograd.Function */
gboolean  ts_py_function_register (PyObject *module);
/* A new tensor over t's memory, without t's autograd state (detach) */
TsTensor *ts_py_tensor_alias     (TsTensor  *t);
/* requires_grad = TRUE/FALSE with PyTorch's checks; FALSE with a Python
 * exception set */
gboolean  ts_py_autograd_set_requires_grad (TsTensor *t,
                                            gboolean  requires_grad);
/* _set_data: self's tensor becomes an alias of src, keeping self's
 * requires_grad and grad */
gboolean  ts_py_autograd_set_data (PyObject *self,
                                   TsTensor *src);
/* repr's requires_grad=True / grad_fn=<...> */
void      ts_py_autograd_format_options (TsTensor              *t,
                                         TsTensorFormatOptions *options);

/* The torch._C module, for PyImport_AppendInittab. */
PyObject *ts_py_init_module      (void);

G_END_DECLS
