/* ts-op-table.h: one descriptor per tensor op
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The core's expansion of the op list (src/kernels/ts-op-list.def): every
 * fact about an op in one TsOpDesc, which a job carries from its launch to
 * the device, the sanitizer reads its schemas from, and the Python binding
 * builds its number slots and methods from. Nothing here is written by
 * hand per op: add a line to the list.
 */

#pragma once

#include "ts-cpu-kernels.h"
#include "ts-autograd.h"

G_BEGIN_DECLS

typedef enum
{
#define TS_OP(ID, ...) TS_OP_##ID,
#include "ts-op-list.def"
  TS_N_OPS
} TsOpId;

/* Which job runs an op: its CPU kernel entry and its device function
 * (ts-ops.c has one of each per family). */
typedef enum
{
  TS_OP_FAMILY_NONE = 0,
  TS_OP_FAMILY_BINARY,
  TS_OP_FAMILY_UNARY,
  TS_OP_FAMILY_REDUCE,
  TS_OP_FAMILY_MAX_DIM,
  TS_OP_FAMILY_FILL,
  TS_OP_FAMILY_COPY,
  TS_OP_FAMILY_MATMUL,
  TS_OP_FAMILY_INDEX_SELECT,
  TS_OP_FAMILY_GATHER,
  TS_OP_FAMILY_ARANGE,
  TS_OP_FAMILY_RANDOM,
  TS_OP_FAMILY_INDEX,        /* index, masked_select, take */
  TS_OP_FAMILY_INDEX_PUT,    /* index_put_, masked_scatter_, put_ */
  TS_OP_FAMILY_NONZERO,
  TS_OP_FAMILY_MASKED_FILL,
  TS_OP_FAMILY_SOFTMAX,
  TS_OP_FAMILY_SHAPE,
  TS_OP_FAMILY_SORT,
  TS_OP_FAMILY_SCAN,
  TS_OP_FAMILY_SCATTER,
  TS_OP_FAMILY_AMP,          /* GradScaler's kernels (ts-ops-amp.c) */
  TS_OP_FAMILY_WHERE,
  TS_OP_FAMILY_TERNARY,      /* lerp, addcmul, addcdiv */
  TS_OP_FAMILY_MV,
  TS_OP_FAMILY_CONV,         /* convolution and its backward (ts-ops-conv.c) */
  TS_OP_FAMILY_POOL,         /* ts-ops-pool.c */
  TS_OP_FAMILY_NORM,
  TS_OP_FAMILY_REMAP,
  TS_OP_FAMILY_ACT,
  TS_OP_FAMILY_LOSS,
  TS_OP_FAMILY_LINALG,       /* LAPACK factorizations and solves (ts-ops-linalg.c) */         /* nll_loss and its backward (ts-ops-loss.c) */
  TS_OP_FAMILY_FOREACH,      /* multi-tensor launches of other rows' kernels (ts-ops.c) */
  TS_OP_FAMILY_VAR,          /* torch.var over dims (ts-ops.c) */
  TS_OP_FAMILY_FFT,          /* torch.fft's kernels (ts-ops-fft.c) */
  TS_OP_N_FAMILIES
} TsOpFamily;

/* The cost model of an op: elementwise ops count flops per output element
 * (TsOpDesc.flops), the others use their family's ts_cost_* function. */
typedef enum
{
  TS_OP_COST_NONE = 0,
  TS_OP_COST_ELEMENTWISE,
  TS_OP_COST_FILL,
  TS_OP_COST_COPY,
  TS_OP_COST_REDUCE,
  TS_OP_COST_MAX_DIM,
  TS_OP_COST_MATMUL,
  TS_OP_COST_INDEX,
  TS_OP_COST_RANDOM_NORMAL,
  TS_OP_COST_RANDOM_UNIFORM,
  TS_OP_COST_SOFTMAX,
  TS_OP_COST_WHERE,
  TS_OP_COST_TERNARY,
  TS_OP_COST_MV,
  TS_OP_COST_CONV,
  TS_OP_COST_POOL,
  TS_OP_COST_NORM,
  TS_OP_COST_REMAP,
  TS_OP_COST_ACT,
  TS_OP_COST_LOSS,
  TS_OP_COST_LINALG,
  TS_OP_COST_SUM,          /* a multi-tensor launch: its per-tensor kernels' costs summed */
  TS_OP_COST_FFT,          /* 5 n log2 n flops per complex transform of n points */
} TsOpCost;

/* The CUDA module's entry when it is not an op id (TS_CUDA_*, >= 0). */
#define TS_OP_CUDA_HOST  (-1)   /* no device kernel: the host fallback runs it */
#define TS_OP_CUDA_TABLE (-2)   /* the family's table entry, which takes no op id */

/* How Python reaches an op (ts-py-tensor.c). */
typedef enum
{
  TS_PY_UNSET = 0,       /* the zero value, never a valid column: the facets test fails */
  TS_PY_NONE,            /* not exposed by the table (bound by hand, or not at all) */
  TS_PY_METHOD,          /* Tensor.<name> (...) and torch.<name> (...) */
  TS_PY_NB_ADD,          /* binary number slots, with their in-place slots */
  TS_PY_NB_SUBTRACT,
  TS_PY_NB_MULTIPLY,
  TS_PY_NB_TRUE_DIVIDE,
  TS_PY_NB_FLOOR_DIVIDE,
  TS_PY_NB_REMAINDER,
  TS_PY_NB_AND,
  TS_PY_NB_OR,
  TS_PY_NB_XOR,
  TS_PY_NB_POWER,        /* no in-place slot */
  TS_PY_NB_NEGATIVE,     /* unary number slots */
  TS_PY_NB_ABSOLUTE,
  TS_PY_CMP_LT,          /* rich comparisons */
  TS_PY_CMP_LE,
  TS_PY_CMP_EQ,
  TS_PY_CMP_NE,
  TS_PY_CMP_GT,
  TS_PY_CMP_GE,
  TS_PY_N_SLOTS
} TsPySlot;

/* Whether an op runs through cuBLAS on a CUDA device (the BLAS column):
 * such an op takes the thread's cuBLAS handle, and with it the handle's
 * workspace for the current stream (ts-cublas-workspace.h). */
typedef enum
{
  TS_OP_BLAS_NONE = 0,
  TS_OP_BLAS_HANDLE,   /* cuBLAS: gemm, gemv, batched gemm */
  TS_OP_BLAS_LT,       /* cuBLASLt's bias epilogue when the call qualifies (addmm) */
} TsOpBlas;

typedef struct _TsOpDesc TsOpDesc;

/* The device types autocast keeps a state for (torch.autocast's
 * device_type), which index TsOpDesc.autocast. */
typedef enum
{
  TS_AUTOCAST_CUDA,
  TS_AUTOCAST_CPU,
  TS_AUTOCAST_N_DEVICES
} TsAutocastDevice;

/* An op's cast policy inside an autocast region (the AUTOCAST column,
 * PyTorch's CastPolicy): what its floating operands become. */
typedef enum
{
  TS_AUTOCAST_NONE = 0,   /* run as called */
  TS_AUTOCAST_LOWER,      /* the region's dtype: float16 or bfloat16 */
  TS_AUTOCAST_FP32,       /* float32 */
  TS_AUTOCAST_PROMOTE,    /* the widest of the operands' floating dtypes */
} TsAutocastPolicy;

/* What an op's node saves for its formula (the BACKWARD column): SELF and
 * OTHER are the op's tensor inputs, RESULT its output. CROSS saves self
 * when other requires grad and other when self does (mul, mm), as
 * PyTorch saves only what a needed gradient reads. */
typedef enum
{
  TS_OP_SAVE_NOTHING,
  TS_OP_SAVE_SELF,
  TS_OP_SAVE_RESULT,
  TS_OP_SAVE_SELF_RESULT,
  TS_OP_SAVE_CROSS,
  TS_OP_SAVE_OPERANDS,
  TS_OP_SAVE_OPERANDS_RESULT,
} TsOpSave;

/* Which of an op's node names (TsOpDesc.grad_names) a call records. */
typedef enum
{
  TS_OP_GRAD_TENSOR,    /* the tensor form: mul(Tensor, Tensor), sum() */
  TS_OP_GRAD_SCALAR,    /* with a number (x * 2), over dims, or clone */
  TS_OP_GRAD_REVERSED,  /* the number on the left (2 - x) */
} TsOpGradForm;

struct _TsOpDesc
{
  TsOpId         id;
  TsOpFamily     family;
  const char    *name;        /* "add" */
  const char    *aten_name;   /* "aten::add", the profiler's and the trace's name */
  guint          arity;       /* tensor inputs: 2 binary, 1 unary, ... */
  TsOpDtypeRule  rule;
  int            kernel;      /* TsBinaryOp, TsUnaryOp, TsReduceOp or the family's code */
  TsOpCost       cost;
  double         flops;       /* per output element, elementwise ops */
  int            cuda;        /* TS_CUDA_* op id, TS_OP_CUDA_TABLE or TS_OP_CUDA_HOST */
  TsPySlot       python;
  /* CSAN's schemas and the names of the job's tensor slots 1 and 2 */
  const char    *functional;
  const char    *inplace;
  const char    *over_dims;
  const char    *args[2];
  /* autograd, the BACKWARD column: backward NULL in a differentiable op
   * is a formula not written yet (recorded, and fails at backward) */
  gboolean       differentiable;
  /* GRAD_PY: the formula is Python's, which records the node (backward
   * NULL; never recorded by dispatch) */
  gboolean       python_formula;
  TsBackwardFn   backward;
  TsOpSave       saves;
  const char    *grad_names[3];  /* by TsOpGradForm */
  /* the AUTOCAST column, by TsAutocastDevice */
  TsAutocastPolicy autocast[TS_AUTOCAST_N_DEVICES];
  /* the BLAS column */
  TsOpBlas       blas;
};

extern const TsOpDesc ts_op_table[TS_N_OPS];

static inline const TsOpDesc *
ts_op_get (TsOpId id)
{
  return &ts_op_table[id];
}

/* The kernels' codes of the elementwise lines, to their ops (inline: on
 * every launch). */
extern const TsOpId ts_op_binary_ids[TS_N_BINARY_OPS];
extern const TsOpId ts_op_unary_ids[TS_N_UNARY_OPS];

static inline const TsOpDesc *
ts_op_for_binary (TsBinaryOp op)
{
  return &ts_op_table[ts_op_binary_ids[op]];
}

static inline const TsOpDesc *
ts_op_for_unary (TsUnaryOp op)
{
  return &ts_op_table[ts_op_unary_ids[op]];
}

/* The op of @family that the CUDA module knows as @cuda_op (TS_CUDA_*),
 * or NULL: for a module implementation, whose op ids are its own. */
const TsOpDesc *ts_op_for_cuda    (TsOpFamily  family,
                                   int         cuda_op);
/* The first op of that name ("exp"), or NULL. */
const TsOpDesc *ts_op_lookup      (const char *name);

G_END_DECLS
