/* ts-op-table.c: the op list expanded into descriptors
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-autograd-formulas.h"
#include "ts-cuda-kernels.h"
#include "ts-op-table.h"

/* The CUDA module's dtype codes are TsDType's (its views carry them as
 * they are): a renumbering on either side must fail to build. */
#define SAME_DTYPE_CODE(X) G_STATIC_ASSERT ((int) TS_CUDA_##X == (int) TS_DTYPE_##X)
SAME_DTYPE_CODE (FLOAT32);
SAME_DTYPE_CODE (FLOAT64);
SAME_DTYPE_CODE (FLOAT16);
SAME_DTYPE_CODE (BFLOAT16);
SAME_DTYPE_CODE (INT64);
SAME_DTYPE_CODE (INT32);
SAME_DTYPE_CODE (UINT8);
SAME_DTYPE_CODE (BOOL);
SAME_DTYPE_CODE (INT8);
SAME_DTYPE_CODE (INT16);
SAME_DTYPE_CODE (COMPLEX64);
SAME_DTYPE_CODE (COMPLEX128);
/* a new dtype needs its code in the module too */
G_STATIC_ASSERT (TS_N_DTYPES == 12);
/* ...and the views hold every dim an op may give the module */
G_STATIC_ASSERT (TS_CUDA_MAX_DIMS <= TS_MAX_DIMS);

/* Per family: the tensor inputs, and how the COST column reads (a number
 * of flops for elementwise ops, a TsOpCost name otherwise). */
#define ARITY_BINARY       2
#define ARITY_UNARY        1
#define ARITY_REDUCE       1
#define ARITY_MAX_DIM      1
#define ARITY_FILL         0
#define ARITY_COPY         1
#define ARITY_MATMUL       2
#define ARITY_INDEX_SELECT 2
#define ARITY_GATHER       2
#define ARITY_ARANGE       0
#define ARITY_RANDOM       0
/* the stacked indices are the schema's indices (or mask, or index) */
#define ARITY_INDEX        2
#define ARITY_INDEX_PUT    2
#define ARITY_NONZERO      1
#define ARITY_MASKED_FILL  1
#define ARITY_SOFTMAX      1
#define ARITY_SHAPE        1
#define ARITY_SORT         1
#define ARITY_SCAN         1
#define ARITY_SCATTER      2
#define ARITY_AMP          2
/* condition and self named; other is slot 3 */
#define ARITY_WHERE        2
/* the third tensor (weight, tensor2) is slot 3 */
#define ARITY_TERNARY      2
#define ARITY_MV           2
/* input and weight (bias rides in slot 3) */
#define ARITY_CONV         2
#define ARITY_POOL         1
#define ARITY_NORM         1
#define ARITY_REMAP        1
#define ARITY_ACT          1
/* self and target (weight and total_weight ride in slots 3 and 4) */
#define ARITY_LOSS         2
/* A, or A and B (pivots or tau in slot 2, B in slot 3 for lu_solve) */
#define ARITY_LINALG       1
#define ARITY_FOREACH      1
#define ARITY_VAR          1
#define ARITY_FFT          1

#define COST_ELEMENTWISE(c) .cost = TS_OP_COST_ELEMENTWISE, .flops = (c)
#define COST_FAMILY(c)      .cost = TS_OP_COST_##c
#define COST_BINARY         COST_ELEMENTWISE
#define COST_UNARY          COST_ELEMENTWISE
#define COST_REDUCE         COST_FAMILY
#define COST_MAX_DIM        COST_FAMILY
#define COST_FILL           COST_FAMILY
#define COST_COPY           COST_FAMILY
#define COST_MATMUL         COST_FAMILY
#define COST_INDEX_SELECT   COST_FAMILY
#define COST_GATHER         COST_FAMILY
#define COST_ARANGE         COST_FAMILY
#define COST_RANDOM         COST_FAMILY
#define COST_INDEX          COST_FAMILY
#define COST_INDEX_PUT      COST_FAMILY
#define COST_NONZERO        COST_FAMILY
#define COST_MASKED_FILL    COST_FAMILY

/* The BACKWARD column */
#define NO_GRAD   .differentiable = FALSE
#define GRAD_TODO(node) .differentiable = TRUE, .grad_names = { node, node, node }
#define GRAD_PY(node)   .differentiable = TRUE, .python_formula = TRUE, .grad_names = { node, node, node }
#define GRAD(formula, SAVES, node, node_scalar, node_reversed) \
  .differentiable = TRUE, .backward = ts_backward_##formula, .saves = TS_OP_SAVE_##SAVES, \
  .grad_names = { node, node_scalar, node_reversed }

/* The AUTOCAST column: the policy per device type (TsAutocastDevice) */
#define AUTOCAST(cuda_, cpu_) \
  .autocast = { [TS_AUTOCAST_CUDA] = TS_AUTOCAST_##cuda_, [TS_AUTOCAST_CPU] = TS_AUTOCAST_##cpu_ }
/* The BLAS column */
#define BLAS(kind) .blas = TS_OP_BLAS_##kind
#define COST_SOFTMAX        COST_FAMILY
#define COST_SHAPE          COST_FAMILY
#define COST_SORT           COST_FAMILY
#define COST_SCAN           COST_FAMILY
#define COST_SCATTER        COST_FAMILY
#define COST_AMP            COST_FAMILY
#define COST_WHERE          COST_FAMILY
#define COST_TERNARY        COST_FAMILY
#define COST_MV             COST_FAMILY
#define COST_CONV           COST_FAMILY
#define COST_POOL           COST_FAMILY
#define COST_NORM           COST_FAMILY
#define COST_REMAP          COST_FAMILY
#define COST_ACT            COST_FAMILY
#define COST_LOSS           COST_FAMILY
#define COST_LINALG         COST_FAMILY
#define COST_FOREACH        COST_FAMILY
#define COST_VAR            COST_FAMILY
#define COST_FFT            COST_FAMILY

const TsOpDesc ts_op_table[TS_N_OPS] = {
#define TS_OP(ID, FAMILY, name_, RULE, KERNEL, COST, CUDA, PY, functional_, inplace_, over_dims_, arg0, arg1, \
              BACKWARD, AUTOCAST_, BLAS_)                                                             \
  [TS_OP_##ID] = {                                                                                          \
    .id = TS_OP_##ID,                                                                                       \
    .family = TS_OP_FAMILY_##FAMILY,                                                                        \
    .name = name_,                                                                                          \
    .aten_name = "aten::" name_,                                                                            \
    .arity = ARITY_##FAMILY,                                                                                \
    .rule = TS_OP_RULE_##RULE,                                                                              \
    .kernel = KERNEL,                                                                                       \
    COST_##FAMILY (COST),                                                                                   \
    .cuda = CUDA,                                                                                           \
    .python = TS_PY_##PY,                                                                                   \
    .functional = functional_,                                                                              \
    .inplace = inplace_,                                                                                    \
    .over_dims = over_dims_,                                                                                \
    .args = { arg0, arg1 },                                                                                 \
    BACKWARD,                                                                                               \
    AUTOCAST_,                                                                                              \
    BLAS_,                                                                                                  \
  },
#include "ts-op-list.def"
};

const TsOpId ts_op_binary_ids[TS_N_BINARY_OPS] = {
#define TS_OP(ID, FAMILY, name, RULE, KERNEL, ...) TS_OP_ELEMENTWISE_##FAMILY (TS_OP_INIT (KERNEL, TS_OP_##ID), )
#include "ts-op-list.def"
};

const TsOpId ts_op_unary_ids[TS_N_UNARY_OPS] = {
#define TS_OP(ID, FAMILY, name, RULE, KERNEL, ...) TS_OP_ELEMENTWISE_##FAMILY (, TS_OP_INIT (KERNEL, TS_OP_##ID))
#include "ts-op-list.def"
};

const TsOpDesc *
ts_op_for_cuda (TsOpFamily family,
                int        cuda_op)
{
  for (guint i = 0; i < TS_N_OPS; i++)
    if (ts_op_table[i].family == family && ts_op_table[i].cuda == cuda_op && cuda_op >= 0)
      return &ts_op_table[i];
  return NULL;
}

/* The Python bindings look ops up by name on every call (_reduce, _sort,
 * _scan): a hash of the names, built once, instead of a strcmp() scan of
 * the table (3,500 instructions of a cumsum's). Each name maps to its
 * first row, as the scan found it. */
const TsOpDesc *
ts_op_lookup (const char *name)
{
  static GHashTable *by_name;
  static gsize built;

  g_return_val_if_fail (name != NULL, NULL);

  if (g_once_init_enter (&built))
    {
      by_name = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < TS_N_OPS; i++)
        if (ts_op_table[i].name != NULL && !g_hash_table_contains (by_name, ts_op_table[i].name))
          g_hash_table_insert (by_name, (gpointer) ts_op_table[i].name, (gpointer) &ts_op_table[i]);
      g_once_init_leave (&built, 1);
    }
  return g_hash_table_lookup (by_name, name);
}
