/* ts-autograd.h: reverse-mode automatic differentiation (issue #15)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PyTorch's autograd, op-agnostic, in C: a graph of refcounted TsGradNode
 * (PyTorch's torch::autograd::Node) built while ops run with grad mode on,
 * and an engine that walks it backwards from some roots. The design and
 * how an op's backward formula plugs into the op table are in
 * docs/autograd.md; the vocabulary is PyTorch's:
 *
 *   - A node stands for one forward op. Its *outputs* are the op's outputs
 *     (the gradients it receives, PyTorch's node "inputs"); its *inputs*
 *     are the op's inputs, each with a next edge (node, input_nr): where
 *     the gradient with respect to that input goes (next_functions).
 *   - A tensor's autograd metadata (TsAutogradMeta, hung on
 *     TsTensor.autograd_meta) holds requires_grad, grad, grad_fn and
 *     output_nr, retains_grad and hooks. A tensor with no metadata is a
 *     plain tensor that does not require grad.
 *   - A leaf (requires_grad, no grad_fn) receives its gradient through an
 *     AccumulateGrad node, made on first use and kept (weakly) in its
 *     metadata, as PyTorch's grad_accumulator.
 *   - The version counter lives on the storage (TsStorage.version), so
 *     views share it; in-place ops call ts_autograd_bump_version.
 *
 * Errors are TS_TENSOR_ERROR_RUNTIME with PyTorch 1.13's messages.
 */

#pragma once

#include "ts-tensor.h"

G_BEGIN_DECLS

typedef struct _TsGradNode     TsGradNode;
typedef struct _TsAutogradMeta TsAutogradMeta;

/* ------------------------------------------------------------------ */
/* Grad mode: a per-thread flag (torch.is_grad_enabled), TRUE initially.
 * The engine turns it on for a backward pass with create_graph and off
 * otherwise, so formulas written with the differentiable ops of
 * ts-autograd-formulas.h record a graph only when asked. */
gboolean     ts_autograd_is_grad_enabled   (void);
/* Returns the previous value. */
gboolean     ts_autograd_set_grad_enabled  (gboolean enabled);

/* ------------------------------------------------------------------ */
/* The backward formula of an op: the type of the op table's backward slot.
 *
 * grad_outputs[i] (n_outputs of them, one per forward output) is the
 * gradient of the root with respect to forward output i, or NULL when
 * nothing flowed into that output (a multi-output op's formula must allow
 * for it; the engine does not call a node whose gradients are all NULL).
 * The formula owns none of them.
 *
 * grad_inputs[i] (n_inputs of them, one per forward input, all NULL on
 * entry) receives a new reference to the gradient with respect to input
 * i, or stays NULL (no gradient: the same as zeros). A formula computes
 * only those ts_grad_node_needs_input_grad() asks for. A grad_input may be
 * one of the grad_outputs (AddBackward0 passes its gradient through) or
 * the same tensor as another grad_input; any other tensor must be new, not
 * kept elsewhere: AccumulateGrad may steal it as a leaf's .grad.
 *
 * A formula may return a gradient of a broadcast shape: the engine sums it
 * down to the input's shape (and casts it to the input's dtype) as
 * PyTorch's validate_outputs does; any other shape is an error.
 *
 * Saved tensors come from ts_grad_node_unpack_saved(), which checks their
 * version; attributes (dims, scalars) from ts_grad_node_get_attrs(). The
 * formula runs on the stream its forward ran on, with grad mode set to the
 * pass's create_graph. Return FALSE with error set to fail the pass. */
typedef gboolean (*TsBackwardFn) (TsGradNode  *node,
                                  TsTensor   **grad_outputs,
                                  guint        n_outputs,
                                  TsTensor   **grad_inputs,
                                  guint        n_inputs,
                                  GError     **error);

/* Defines a TsBackwardFn with the parameter names above:
 *   static TS_BACKWARD_FN (mul_backward) { ... } */
#define TS_BACKWARD_FN(name) \
  gboolean name (TsGradNode *node, TsTensor **grad_outputs, guint n_outputs, \
                 TsTensor **grad_inputs, guint n_inputs, GError **error)

/* Where a gradient goes: input input_nr of node (an index into the node's
 * outputs, PyTorch's Edge). node NULL: nowhere (the input does not require
 * grad). */
typedef struct
{
  TsGradNode *node;
  guint       input_nr;
} TsGradEdge;

/* What the engine knows about a tensor on either side of a node (PyTorch's
 * InputMetadata): enough to check and shape a gradient without keeping
 * the tensor, and the stream that was current on its device when the op
 * ran (TS_STREAM_NONE for the CPU). */
typedef struct
{
  TsDType    dtype;
  TsDevice   device;
  guint      ndim;
  gint64     shape[TS_MAX_DIMS];
  TsStreamId stream;
} TsGradTensorInfo;

/* Sequence numbers: per thread, increasing as nodes are made (PyTorch's
 * at::sequence_number). AccumulateGrad nodes get the largest value, as in
 * PyTorch, so a leaf's gradient is accumulated as soon as it is ready. */
#define TS_GRAD_SEQUENCE_NR_MAX G_MAXUINT64

/* A new node with a fresh sequence number, n_inputs next edges (all NULL),
 * n_outputs output infos (zero), and attrs_size bytes of zeroed
 * attributes. name must be static or interned ("MulBackward0"). */
TsGradNode  *ts_grad_node_new              (const char    *name,
                                            TsBackwardFn   backward,
                                            guint          n_inputs,
                                            guint          n_outputs,
                                            gsize          attrs_size);
TsGradNode  *ts_grad_node_ref              (TsGradNode    *self);
void         ts_grad_node_unref            (TsGradNode    *self);

const char  *ts_grad_node_get_name         (TsGradNode    *self);
guint64      ts_grad_node_get_sequence_nr  (TsGradNode    *self);
TsBackwardFn ts_grad_node_get_backward     (TsGradNode    *self);
guint        ts_grad_node_get_n_inputs     (TsGradNode    *self);
guint        ts_grad_node_get_n_outputs    (TsGradNode    *self);
/* next_functions[i]; the edge's node is borrowed. */
TsGradEdge   ts_grad_node_get_next_edge    (TsGradNode    *self,
                                            guint          i);
/* Takes a reference to edge.node. */
void         ts_grad_node_set_next_edge    (TsGradNode    *self,
                                            guint          i,
                                            TsGradEdge     edge);
/* TRUE when input i's gradient goes somewhere (task_should_compute_output). */
gboolean     ts_grad_node_needs_input_grad (TsGradNode    *self,
                                            guint          i);
const TsGradTensorInfo *ts_grad_node_get_input_info  (TsGradNode *self,
                                                      guint       i);
const TsGradTensorInfo *ts_grad_node_get_output_info (TsGradNode *self,
                                                      guint       i);
void         ts_grad_node_set_input_info   (TsGradNode    *self,
                                            guint          i,
                                            const TsTensor *tensor);
/* Also sets the stream (see ts_grad_node_get_stream). */
void         ts_grad_node_set_output_info  (TsGradNode    *self,
                                            guint          i,
                                            const TsTensor *tensor);
gpointer     ts_grad_node_get_attrs        (TsGradNode    *self);
/* For attributes that hold references (CopySlices' node, a Python
 * Function's context): clear drops them when the node goes, release
 * (may be NULL) when the engine releases the node's saved tensors. */
void         ts_grad_node_set_attrs_funcs  (TsGradNode    *self,
                                            GDestroyNotify clear,
                                            GDestroyNotify release);

/* The stream the forward ran on, which the backward runs on: the stream of
 * the first output on a CUDA device (PyTorch's Node::stream), or -1 and
 * TS_STREAM_NONE for a CPU op. set_stream overrides it (tests, bindings). */
TsStreamId   ts_grad_node_get_stream       (TsGradNode    *self,
                                            int           *device);
void         ts_grad_node_set_stream       (TsGradNode    *self,
                                            int            device,
                                            TsStreamId     stream);

/* Saved variables (PyTorch's SavedVariable): a reference and the version
 * the tensor had when saved. A node's own output is saved without its
 * metadata (no reference cycle) and unpacks as a new view whose grad_fn is
 * the node again. Returns the slot. */
guint        ts_grad_node_save             (TsGradNode    *self,
                                            TsTensor      *tensor);
/* A new reference to slot's tensor, or NULL with PyTorch's error when the
 * node's saved variables were released ("Trying to backward through the
 * graph a second time ...") or the tensor was modified in place since
 * ("one of the variables needed for gradient computation has been
 * modified by an inplace operation: ..."). */
TsTensor    *ts_grad_node_unpack_saved     (TsGradNode    *self,
                                            guint          slot,
                                            GError       **error);
guint        ts_grad_node_get_n_saved      (TsGradNode    *self);
/* Drops the saved tensors (the engine does it after the node ran, unless
 * retain_graph). */
void         ts_grad_node_release_variables (TsGradNode   *self);
gboolean     ts_grad_node_is_released      (TsGradNode    *self);

/* ------------------------------------------------------------------ */
/* Hooks. A hook that fails returns FALSE with error set: the pass fails.
 * Ids are unique in the process; remove with ts_autograd_remove_hook. */

/* Tensor hooks (Tensor.register_hook): run with the gradient of a tensor
 * before the node that receives it; may put a new reference in
 * *replacement to change it. On a leaf they run before AccumulateGrad. */
typedef gboolean (*TsTensorHookFn)   (TsTensor     *grad,
                                      TsTensor    **replacement,
                                      gpointer      user_data,
                                      GError      **error);
/* Node pre-hooks (Node.register_prehook): the node's incoming gradients
 * (grad_outputs, entries may be NULL); may replace entries (unref the old
 * one). Run after tensor hooks, before the formula. */
typedef gboolean (*TsNodePreHookFn)  (TsGradNode   *node,
                                      TsTensor    **grad_outputs,
                                      guint         n_outputs,
                                      gpointer      user_data,
                                      GError      **error);
/* Node post-hooks (Node.register_hook): after the formula, with its
 * results (replaceable) and its incoming gradients. */
typedef gboolean (*TsNodePostHookFn) (TsGradNode   *node,
                                      TsTensor    **grad_inputs,
                                      guint         n_inputs,
                                      TsTensor    **grad_outputs,
                                      guint         n_outputs,
                                      gpointer      user_data,
                                      GError      **error);
/* Tensor.register_post_accumulate_grad_hook: a leaf, after its .grad was
 * updated. */
typedef gboolean (*TsPostAccumulateHookFn) (TsTensor  *tensor,
                                            gpointer   user_data,
                                            GError   **error);

guint64      ts_grad_node_add_pre_hook     (TsGradNode       *self,
                                            TsNodePreHookFn   fn,
                                            gpointer          user_data,
                                            GDestroyNotify    destroy);
guint64      ts_grad_node_add_post_hook    (TsGradNode       *self,
                                            TsNodePostHookFn  fn,
                                            gpointer          user_data,
                                            GDestroyNotify    destroy);
/* A hook on the gradient arriving at output output_nr of the node. */
guint64      ts_grad_node_add_tensor_pre_hook (TsGradNode     *self,
                                               guint           output_nr,
                                               TsTensorHookFn  fn,
                                               gpointer        user_data,
                                               GDestroyNotify  destroy);
/* Tensor.register_hook: FALSE with PyTorch's error when the tensor does
 * not require grad. */
guint64      ts_autograd_register_hook     (TsTensor         *tensor,
                                            TsTensorHookFn    fn,
                                            gpointer          user_data,
                                            GDestroyNotify    destroy,
                                            GError          **error);
guint64      ts_autograd_register_post_accumulate_grad_hook (TsTensor *tensor,
                                                             TsPostAccumulateHookFn fn,
                                                             gpointer        user_data,
                                                             GDestroyNotify  destroy,
                                                             GError        **error);
/* Removes a hook from a node or a tensor; FALSE when it is not there. */
gboolean     ts_autograd_remove_hook       (TsGradNode       *node,
                                            TsTensor         *tensor,
                                            guint64           id);

/* ------------------------------------------------------------------ */
/* Per-tensor metadata. */

/* Frees a tensor's metadata (TsTensor's finalizer calls it). */
void         ts_autograd_meta_free         (TsAutogradMeta   *meta);

gboolean     ts_autograd_requires_grad     (const TsTensor   *tensor);
/* requires_grad_(): leaves only; non-leaf, non-float: PyTorch's errors. */
gboolean     ts_autograd_set_requires_grad (TsTensor         *tensor,
                                            gboolean          requires_grad,
                                            GError          **error);
gboolean     ts_autograd_is_leaf           (const TsTensor   *tensor);
/* Views (ts-autograd-views.c): a view taken with grad mode on knows its
 * base (the base of a view of a view is the first base), so that an
 * in-place op on it rebases the base's history (CopySlices). */
void         ts_autograd_set_view_base     (TsTensor         *view,
                                            TsTensor         *self);
TsTensor    *ts_autograd_get_view_base     (const TsTensor   *tensor);
/* Before an in-place write with grad mode on: a view taken with grad mode
 * off of a tensor that requires grad may not be written (PyTorch's error) */
gboolean     ts_autograd_check_view_mode   (const TsTensor   *tensor,
                                            GError          **error);
/* Borrowed; NULL for a leaf or a plain tensor. */
TsGradNode  *ts_autograd_get_grad_fn       (const TsTensor   *tensor,
                                            guint            *output_nr);
/* Makes node the grad_fn of tensor (output output_nr). */
void         ts_autograd_set_grad_fn       (TsTensor         *tensor,
                                            TsGradNode       *node,
                                            guint             output_nr);
/* .grad: borrowed, may be NULL. set takes a new reference (NULL clears:
 * zero_grad(set_to_none=True)). */
TsTensor    *ts_autograd_get_grad          (const TsTensor   *tensor);
void         ts_autograd_set_grad          (TsTensor         *tensor,
                                            TsTensor         *grad);
/* retain_grad(): a non-leaf keeps its gradient in .grad; a no-op on a
 * leaf; PyTorch's error when it does not require grad. */
gboolean     ts_autograd_retain_grad       (TsTensor         *tensor,
                                            GError          **error);
gboolean     ts_autograd_retains_grad      (const TsTensor   *tensor);
/* The leaf's AccumulateGrad node, made on first use (new reference);
 * NULL when the tensor is not a leaf that requires grad. */
TsGradNode  *ts_autograd_grad_accumulator  (TsTensor         *tensor);
/* gradient_edge(): (grad_fn, output_nr), or (AccumulateGrad, 0) for a
 * leaf that requires grad, or (NULL, 0). The node is a new reference. */
TsGradEdge   ts_autograd_gradient_edge     (TsTensor         *tensor);

/* The version counter: shared by all views of a storage. */
guint        ts_autograd_get_version       (const TsTensor   *tensor);
void         ts_autograd_bump_version      (TsTensor         *tensor);
/* Before an in-place op writes tensor: with grad mode on, a leaf that
 * requires grad may not be written ("a leaf Variable that requires grad is
 * being used in an in-place operation."). */
gboolean     ts_autograd_check_inplace     (const TsTensor   *tensor,
                                            GError          **error);

/* ------------------------------------------------------------------ */
/* Recording: what an op does after computing its outputs. When grad mode
 * is on and an input requires grad, makes a node (name, backward) with
 * edges to the inputs' gradient edges and info about both sides, becomes
 * the outputs' grad_fn, and returns it (a new reference) for the op to
 * save tensors and set attributes; otherwise returns NULL and the outputs
 * are plain tensors. Floating outputs only require grad (an integer
 * output, such as argmax's, stays plain). */
gboolean     ts_autograd_any_requires_grad (TsTensor *const  *tensors,
                                            guint             n);
TsGradNode  *ts_autograd_record            (const char       *name,
                                            TsBackwardFn      backward,
                                            gsize             attrs_size,
                                            TsTensor *const  *inputs,
                                            guint             n_inputs,
                                            TsTensor *const  *outputs,
                                            guint             n_outputs);

/* ------------------------------------------------------------------ */
/* Anomaly mode (torch.autograd.set_detect_anomaly): with it on, each node
 * keeps capture()'s metadata (the Python binding: the forward's
 * traceback), a pass reports a failing node with report(), and with
 * check_nan a NaN in a node's results fails the pass with PyTorch's
 * "Function 'X' returned nan values in its 0th output." */
typedef struct
{
  gpointer (*capture) (void);
  void     (*report)  (const char *node_name,
                       gpointer    metadata);
  void     (*free)    (gpointer    metadata);
} TsAutogradAnomalyHooks;

void         ts_autograd_set_anomaly_enabled (gboolean enabled,
                                              gboolean check_nan);
gboolean     ts_autograd_is_anomaly_enabled  (void);
gboolean     ts_autograd_is_anomaly_check_nan_enabled (void);
void         ts_autograd_set_anomaly_hooks   (const TsAutogradAnomalyHooks *hooks);

/* ------------------------------------------------------------------ */
/* Streams. The engine asks these for the current stream of a CUDA device,
 * to make a stream current, and to make one stream wait for another (an
 * event recorded on producer and waited on by consumer). range_begin and
 * range_end (may be NULL) put the profiler's ranges around each node, as
 * PyTorch's RECORD_FUNCTION does: "autograd::engine::evaluate_function:
 * MulBackward0" around the node's whole turn and "MulBackward0" around
 * its formula (device -1 for a CPU node). The default set goes through
 * the session (ts-session.h, ts-runtime.h): API spans in the trace; tests
 * install a fake. NULL puts the default back. */
typedef struct
{
  TsStreamId (*current_stream)     (int          device,
                                    gpointer     user_data);
  TsStreamId (*default_stream)     (int          device,
                                    gpointer     user_data);
  gboolean   (*set_current_stream) (int          device,
                                    TsStreamId   stream,
                                    gpointer     user_data,
                                    GError     **error);
  gboolean   (*record_and_wait)    (int          device,
                                    TsStreamId   producer,
                                    TsStreamId   consumer,
                                    gpointer     user_data,
                                    GError     **error);
  guint64    (*range_begin)        (const char  *name,
                                    int          device,
                                    gpointer     user_data);
  void       (*range_end)          (guint64      range,
                                    gpointer     user_data);
} TsAutogradStreamOps;

void         ts_autograd_set_stream_ops    (const TsAutogradStreamOps *ops,
                                            gpointer                   user_data);

/* ------------------------------------------------------------------ */
/* The engine.
 *
 * backward: torch.autograd.backward(tensors, grad_tensors, retain_graph,
 * create_graph, inputs). grad_tensors may be NULL, or hold NULL entries:
 * an implicit 1 for a one-element output. inputs NULL: every leaf that
 * the roots reach gets .grad; else only those (n_inputs > 0). Python's
 * retain_graph=None is create_graph: the binding resolves it. */
gboolean     ts_autograd_backward          (TsTensor *const  *tensors,
                                            guint             n_tensors,
                                            TsTensor *const  *grad_tensors,
                                            gboolean          retain_graph,
                                            gboolean          create_graph,
                                            TsTensor *const  *inputs,
                                            guint             n_inputs,
                                            GError          **error);
/* grad: torch.autograd.grad. Returns n_inputs new references (entries NULL
 * for unused inputs with allow_unused; zeros with materialize_grads, which
 * implies allow_unused), to free with ts_autograd_grads_free. NULL on
 * error. Leaves' .grad is not touched. */
TsTensor   **ts_autograd_grad              (TsTensor *const  *outputs,
                                            guint             n_outputs,
                                            TsTensor *const  *inputs,
                                            guint             n_inputs,
                                            TsTensor *const  *grad_outputs,
                                            gboolean          retain_graph,
                                            gboolean          create_graph,
                                            gboolean          allow_unused,
                                            gboolean          materialize_grads,
                                            GError          **error);
void         ts_autograd_grads_free        (TsTensor        **grads,
                                            guint             n);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsGradNode, ts_grad_node_unref)

G_END_DECLS
