/* ts-ops.h: operations on tensors, dispatched by device
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rules PyTorch applies before any kernel runs live here: all operands
 * on one device (copies excepted), type promotion, broadcasting. A CPU op
 * computes at once; a CUDA op allocates its output from the device's
 * caching allocator on the current stream and becomes a work item on that
 * stream with modelled flops and bytes. Errors carry PyTorch's messages in
 * TS_TENSOR_ERROR with the code naming the Python exception.
 */

#pragma once

#include "ts-cpu-kernels.h"
#include "ts-op-table.h"
#include "ts-runtime.h"
#include "ts-tensor.h"

G_BEGIN_DECLS

/* TsBinaryOp and TsUnaryOp are the kernels' (ts-cpu-kernels.h): an op
 * computes through src/kernels/cpu on the CPU and inside device work. */

/* A Python number operand: TS_DTYPE_BOOL, TS_DTYPE_INT64 or TS_DTYPE_FLOAT64. */
typedef struct
{
  TsDType kind;
  double  value;
  gint64  ivalue;
} TsScalar;

/* b may be NULL, then scalar is the right operand (or the left one when
 * reverse is set). out may be NULL for a new tensor, or a tensor to write
 * (in-place ops pass the left operand). */
TsTensor  *ts_ops_binary          (TsBinaryOp       op,
                                   TsTensor        *a,
                                   TsTensor        *b,
                                   const TsScalar  *scalar,
                                   gboolean         reverse,
                                   TsTensor        *out,
                                   GError         **error);
/* add/sub with alpha as one launch when no graph is recorded (floating
 * operands of one dtype and device, no autocast); NULL and no error when
 * it does not apply, for the caller to compose `b * alpha`. @out: NULL,
 * @a (in place) or an out= of @a's dtype, device and shape, contiguous. */
TsTensor  *ts_ops_binary_alpha    (TsBinaryOp       op,
                                   TsTensor        *a,
                                   TsTensor        *b,
                                   double           alpha,
                                   TsTensor        *out,
                                   GError         **error);
TsTensor  *ts_ops_unary           (TsUnaryOp        op,
                                   TsTensor        *a,
                                   GError         **error);
TsTensor  *ts_ops_softmax         (TsTensor        *self,
                                   int              dim,
                                   gboolean         log,
                                   GError         **error);
/* its backward, _softmax_backward_data / _log_softmax_backward_data, from
 * the incoming @grad and the forward's @output (no node) */
TsTensor  *ts_ops_softmax_backward (TsTensor       *grad,
                                    TsTensor       *output,
                                    int             dim,
                                    gboolean        log,
                                    GError        **error);
TsTensor  *ts_ops_unary_out       (TsUnaryOp        op,
                                   TsTensor        *a,
                                   TsTensor        *out,
                                   GError         **error);
gboolean   ts_ops_fill            (TsTensor        *self,
                                   const TsScalar  *value,
                                   GError         **error);
/* dst.copy_(src): broadcasting, dtype conversion, any pair of devices. */
gboolean   ts_ops_copy            (TsTensor        *dst,
                                   TsTensor        *src,
                                   gboolean         non_blocking,
                                   GError         **error);
/* A new contiguous tensor on device with dtype; returns a new reference
 * to self when nothing changes and copy is FALSE. */
TsTensor  *ts_ops_to              (TsTensor        *self,
                                   TsDevice         device,
                                   TsDType          dtype,
                                   gboolean         non_blocking,
                                   gboolean         copy,
                                   GError         **error);
/* Tensor.to as ATen's _to_copy runs it: as ts_ops_to, the copy laid out
 * as self is (its strides when dense, channels-last when its strides
 * suggest it, else contiguous) */
TsTensor  *ts_ops_to_copy         (TsTensor        *self,
                                   TsDevice         device,
                                   TsDType          dtype,
                                   gboolean         non_blocking,
                                   gboolean         copy,
                                   GError         **error);
TsTensor  *ts_ops_clone           (TsTensor        *self,
                                   GError         **error);
TsTensor  *ts_ops_contiguous      (TsTensor        *self,
                                   GError         **error);
TsTensor  *ts_ops_pin_memory      (TsTensor        *self,
                                   GError         **error);

/* Reductions over dims (n_dims == 0: all of them). dtype may be
 * TS_DTYPE_UNDEFINED for PyTorch's default. */
/* A REDUCE op of the table (sum, mean, prod, amax, amin) over @dims (all
 * when @n_dims is 0) into @dtype (UNDEFINED: the op's result dtype). */
TsTensor  *ts_ops_reduce          (TsOpId           id,
                                   TsTensor        *self,
                                   const int       *dims,
                                   guint            n_dims,
                                   gboolean         keepdim,
                                   TsDType          dtype,
                                   GError         **error);
/* var, or std with @take_sqrt: one launch (VarBackward0, StdBackward0) */
TsTensor  *ts_ops_var             (TsTensor        *self,
                                   const int       *dims,
                                   guint            n_dims,
                                   double           correction,
                                   gboolean         keepdim,
                                   gboolean         take_sqrt,
                                   GError         **error);
TsTensor  *ts_ops_sum             (TsTensor        *self,
                                   const int       *dims,
                                   guint            n_dims,
                                   gboolean         keepdim,
                                   TsDType          dtype,
                                   GError         **error);
TsTensor  *ts_ops_mean            (TsTensor        *self,
                                   const int       *dims,
                                   guint            n_dims,
                                   gboolean         keepdim,
                                   TsDType          dtype,
                                   GError         **error);
/* max(): all elements, or along dim with indices. */
TsTensor  *ts_ops_max             (TsTensor        *self,
                                   gboolean         is_min,
                                   GError         **error);
gboolean   ts_ops_max_dim         (TsTensor        *self,
                                   int              dim,
                                   gboolean         keepdim,
                                   gboolean         is_min,
                                   TsTensor       **values,
                                   TsTensor       **indices,
                                   GError         **error);
/* argmax/argmin along @dim: the indices of max/min .dim (aten::argmax). */
TsTensor  *ts_ops_argmax_dim      (TsTensor        *self,
                                   int              dim,
                                   gboolean         keepdim,
                                   gboolean         is_min,
                                   GError         **error);
TsTensor  *ts_ops_matmul          (TsTensor        *a,
                                   TsTensor        *b,
                                   GError         **error);
/* torch.bmm of two 3-D tensors (checked by the caller): BmmBackward0 */
TsTensor  *ts_ops_bmm             (TsTensor        *a,
                                   TsTensor        *b,
                                   GError         **error);
TsTensor  *ts_ops_index_select    (TsTensor        *self,
                                   int              dim,
                                   TsTensor        *index,
                                   GError         **error);
/* torch.gather: out has index's shape; index is int64. On the CPU a bad
 * index is a RuntimeError at once; on a device, a device-side assert. */
TsTensor  *ts_ops_gather          (TsTensor        *self,
                                   int              dim,
                                   TsTensor        *index,
                                   GError         **error);
/* F.embedding: rows of a 2-D weight picked by int32/int64 indices of any
 * shape; out is indices.shape + (weight.size(1),). */
TsTensor  *ts_ops_embedding       (TsTensor        *weight,
                                   TsTensor        *indices,
                                   GError         **error);
/* ...with the gradient's options: rows at @padding_idx (-1: none) get no
 * gradient; @scale_grad_by_freq divides each by its index's count */
TsTensor  *ts_ops_embedding_full  (TsTensor        *weight,
                                   TsTensor        *indices,
                                   gint64           padding_idx,
                                   gboolean         scale_grad_by_freq,
                                   GError         **error);
/* Advanced indexing (torch/_indexing.py): self's dims pos .. pos + k - 1
 * indexed by int64 indices stacked as (*B, k) (ts_cpu_index); @op is the
 * row it runs as (INDEX, MASKED_SELECT, TAKE; INDEX_PUT, MASKED_SCATTER,
 * PUT). values have self's dtype and the result's shape. */
TsTensor  *ts_ops_index           (TsOpId           op,
                                   TsTensor        *self,
                                   guint            pos,
                                   TsTensor        *index,
                                   GError         **error);
gboolean   ts_ops_index_put_      (TsOpId           op,
                                   TsTensor        *self,
                                   guint            pos,
                                   TsTensor        *index,
                                   TsTensor        *values,
                                   gboolean         accumulate,
                                   GError         **error);
/* (count, ndim) int64; a device's host waits for the values */
TsTensor  *ts_ops_nonzero         (TsTensor        *self,
                                   GError         **error);
gboolean   ts_ops_masked_fill_    (TsTensor        *self,
                                   TsTensor        *mask,
                                   const TsScalar  *value,
                                   GError         **error);
gboolean   ts_ops_equal           (TsTensor        *a,
                                   TsTensor        *b,
                                   gboolean        *result,
                                   GError         **error);
TsTensor  *ts_ops_arange          (double           start,
                                   double           end,
                                   double           step,
                                   TsDType          dtype,
                                   TsDevice         device,
                                   GError         **error);
TsTensor  *ts_ops_linspace        (double           start,
                                   double           end,
                                   gint64           steps,
                                   TsDType          dtype,
                                   TsDevice         device,
                                   GError         **error);

/* Random fills: normal_(mean, std), uniform_(from, to). CUDA tensors draw
 * from the device's Philox generator, CPU tensors from the CPU one. */
gboolean   ts_ops_normal_         (TsTensor        *self,
                                   double           mean,
                                   double           std,
                                   GError         **error);
gboolean   ts_ops_uniform_        (TsTensor        *self,
                                   double           from,
                                   double           to,
                                   GError         **error);

/* normal_ (normal TRUE: p0 mean, p1 std) or uniform_ (p0 from, p1 to)
 * drawing a CPU tensor's numbers from CPU generator @cpu_generator_id
 * (-1 the default one, else from ts_rng_cpu_generator_new); CUDA tensors
 * ignore it and use their device's generator. */
/* where(condition, self, other), broadcast: self where the bool condition
 * holds, else other (self and other of one dtype: the caller promotes). */
TsTensor   *ts_ops_where           (TsTensor        *condition,
                                    TsTensor        *self,
                                    TsTensor        *other,
                                    GError         **error);

/* lerp (self, end, weight or, with @weight NULL, @scalar), addcmul and
 * addcdiv (self, tensor1, tensor2, value @scalar): broadcast, the tensors
 * of one dtype (the caller promotes), PyTorch's CPU rounding. @inplace
 * writes self (lerp_, addcmul_, addcdiv_), only where no gradient is
 * recorded (grad mode off or no operand requiring grad). */
TsTensor   *ts_ops_ternary         (TsOpId           id,
                                    TsTensor        *self,
                                    TsTensor        *a,
                                    TsTensor        *b,
                                    double           scalar,
                                    gboolean         inplace,
                                    GError         **error);

/* clamp (self, min, max) with number bounds: one launch (ClampBackward1),
 * for a float32 or float64 @self; the caller composes clamp_min and
 * clamp_max for the other forms. */
TsTensor   *ts_ops_clamp           (TsTensor        *self,
                                    double           min,
                                    double           max,
                                    GError         **error);

/* mv: a 2-D self times a 1-D vec of its dtype, BLAS gemv (PyTorch's sums). */
TsTensor   *ts_ops_mv              (TsTensor        *self,
                                    TsTensor        *vec,
                                    GError         **error);

/* addmm: @beta * @self + @alpha * (@mat1 @ @mat2), two matrices of one
 * floating dtype and @self of it broadcast to the product (nn.Linear's bias
 * row); one launch, AddmmBackward0. PyTorch's errors for shapes, the
 * broadcast and dtypes. */
TsTensor   *ts_ops_addmm           (TsTensor        *self,
                                    TsTensor        *mat1,
                                    TsTensor        *mat2,
                                    double           beta,
                                    double           alpha,
                                    GError         **error);

/* Whether float32 matmuls may use TF32 tensor cores (PyTorch's
 * float32_matmul_precision "high"/"medium"); the precision a matmul of
 * @dtype launches with, which picks the GPU profile's flops rate. */
void        ts_ops_set_float32_matmul_tf32 (gboolean  allow);
gboolean    ts_ops_get_float32_matmul_tf32 (void);
TsPrecision ts_ops_matmul_precision        (TsDType   dtype);

/* random_(from, from + range) (@id TS_OP_RANDOM_FROM_TO) or randperm
 * (TS_OP_RANDPERM, a 1-d @self) on a CPU tensor, from CPU generator
 * @cpu_generator_id, as PyTorch's CPU kernels draw them. */
gboolean   ts_ops_random_int_     (TsTensor        *self,
                                   TsOpId           id,
                                   gint64           from,
                                   guint64          range,
                                   int              cpu_generator_id,
                                   GError         **error);
gboolean   ts_ops_random_fill_    (TsTensor        *self,
                                   gboolean         normal,
                                   double           p0,
                                   double           p1,
                                   int              cpu_generator_id,
                                   GError         **error);

/* Generators. device -1 is the default CPU generator (PyTorch's mt19937
 * one: get_state is 5056 bytes), ids -2, -3, ... torch.Generator objects,
 * 0.. the CUDA devices' Philox generators (16 bytes of state). */
/* CUDA graphs: PyTorch's graph-safe CUDA generator. Random ops captured
 * between the prologue and the epilogue take offsets from 0; the epilogue
 * returns the whole graph's increment, which each replay's prologue
 * reserves, the captured ops' offsets counting from what it got. */
void       ts_rng_capture_prologue (int             device);
guint64    ts_rng_capture_epilogue (int             device);
void       ts_rng_replay_prologue  (int             device,
                                    guint64         increment);
int        ts_rng_cpu_generator_new (void);
void       ts_rng_manual_seed     (int              device,
                                   guint64          seed);
guint64    ts_rng_initial_seed    (int              device);
guint64    ts_rng_seed            (int              device);
GBytes    *ts_rng_get_state       (int              device);
gboolean   ts_rng_set_state       (int              device,
                                   GBytes          *state,
                                   GError         **error);

/* Whether ts-ops.c has a CPU kernel entry and a device function for the
 * family (for the op table's test). */
gboolean   ts_ops_family_is_complete (TsOpFamily    family);

/* Multi-tensor launches, as PyTorch's multi_tensor_apply makes them: the
 * op @name (a FOREACH row's, functional or in-place) over @depth lists.
 * Between begin and end, call next with each tensor of the first list
 * before the ops on that tensor: their device kernels are launched at end,
 * one launch per chunk of the lists (ts-ops.c). CPU ops run at once. */
gboolean   ts_ops_multi_tensor_begin (const char   *name,
                                      guint         depth,
                                      GError      **error);
void       ts_ops_multi_tensor_next  (TsTensor     *tensor);
gboolean   ts_ops_multi_tensor_end   (GError      **error);

/* One element as a number, for item()/tolist()/repr. */
double     ts_tensor_get_double   (const TsTensor  *self,
                                   gint64           linear_index);
gint64     ts_tensor_get_int      (const TsTensor  *self,
                                   gint64           linear_index);
/* Makes the tensor's bytes readable by the host: a CPU tensor always is;
 * a CUDA tensor is read by a blocking device-to-host copy (item(), repr). */
TsTensor  *ts_ops_to_host         (TsTensor        *self,
                                   GError         **error);
/* The same, for @what ("Tensor.item()"), which --no-data refuses with its
 * name (ts-host-data.h): every read of values on the host comes here. */
TsTensor  *ts_ops_to_host_for     (TsTensor        *self,
                                   const char      *what,
                                   GError         **error);

G_END_DECLS
