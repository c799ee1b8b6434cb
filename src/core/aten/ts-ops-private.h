/* ts-ops-private.h: the job machinery of ts-ops.c, for op families in
 * other files (ts-ops-shape.c)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A family in another file gives ts-ops.c's family table its CPU kernel
 * entry and its device function, and builds its jobs through these: a job
 * holds up to four tensors (slot 0 the output), an integer, a dim and a
 * mask.
 */

#pragma once

#include "ts-cuda-kernels.h"
#include "ts-ops.h"

G_BEGIN_DECLS

typedef struct _Job TsOpJob;

/* ts-ops.c's device rule: the one device of all operands (CPU 0-dim
 * tensors ride along), or PyTorch's error */
gboolean  ts_ops_common_device (TsTensor    **tensors,
                                guint         n,
                                TsDevice     *device,
                                GError      **error);

/* Sets a RuntimeError (TS_TENSOR_ERROR_RUNTIME) from @format, PyTorch's
 * words; returns FALSE for `return ts_ops_fail (...)`. */
gboolean  ts_ops_fail        (GError        **error,
                              const char     *format,
                              ...) G_GNUC_PRINTF (2, 3);

TsOpJob  *ts_op_job_new      (TsOpId          id);
const TsOpDesc *ts_op_job_desc (const TsOpJob *job);
void      ts_op_job_set      (TsOpJob        *job,
                              guint           slot,
                              TsTensor       *tensor);
/* an output besides slot 0 (the sanitizer sees it written) */
void      ts_op_job_set_output (TsOpJob      *job,
                                guint         slot,
                                TsTensor     *tensor);
/* a matmul's launch shape and tensor-core precision: @batch products of
 * (@m x k) @ (k x @n) in @dtype */
void      ts_op_job_set_matmul_launch (TsOpJob *job,
                                       gint64   batch,
                                       gint64   m,
                                       gint64   n,
                                       TsDType  dtype);
/* a job whose kernel reads its slots element by element at one index:
 * ts_op_job_unpack then hands out slots of one shape and one dense,
 * non-contiguous layout (channels-last) as one run of elements each, as
 * the elementwise families' own jobs do */
void      ts_op_job_set_elementwise (TsOpJob *job);
/* a launch shape other than the elementwise one over slot 0: @grid
 * blocks of @block threads, as PyTorch's kernel for the op launches */
void      ts_op_job_set_launch (TsOpJob *job,
                                guint32  block,
                                gint64   grid);
/* an op whose BLAS column is LT: this call takes cuBLASLt's path, and
 * with it the Lt workspace */
void      ts_op_job_set_blas_lt (TsOpJob *job);
/* two doubles besides (GradScaler's factors) */
void      ts_op_job_set_factors (TsOpJob     *job,
                                 double       p0,
                                 double       p1);
/* the family's arguments: an integer, a dim, and a mask of dims or flags */
void      ts_op_job_set_args (TsOpJob        *job,
                              gint64          arg,
                              int             dim,
                              guint64         mask);
/* a family's own arguments (a struct of up to TS_OP_JOB_N_PARAMS
 * int64s), copied into the job */
#define TS_OP_JOB_N_PARAMS 16
void      ts_op_job_set_params (TsOpJob      *job,
                                gconstpointer params,
                                gsize         size);
gconstpointer ts_op_job_get_params (const TsOpJob *job);
typedef struct
{
  gint64  arg;
  int     dim;
  guint64 mask;
  double  p0, p1;   /* ts_op_job_set_factors */
} TsOpJobArgs;

/* What a family's CPU entry reads: the views of the job's first four
 * slots (those not set left zeroed) and its arguments; a fifth slot
 * (ts_op_job_set, ts_op_job_view) is the loss family's */
#define TS_OP_JOB_N_VIEWS 4
void      ts_op_job_unpack   (const TsOpJob  *job,
                              TsView         *views,
                              TsOpJobArgs    *args);
void      ts_op_job_view     (const TsOpJob  *job,
                              guint           slot,
                              TsView         *view);
/* Runs the job on the CPU at once, or launches it on its device (the
 * trace, the sanitizer); takes ownership of it. */
gboolean  ts_op_job_dispatch (TsOpJob        *job,
                              TsDevice        device,
                              TsKernelCost    cost,
                              GError        **error);
/* ts_op_job_dispatch for a job that writes @out, a tensor made for it:
 * returns @out, or NULL with @out dropped when the launch failed. */
TsTensor *ts_op_job_dispatch_new (TsOpJob       *job,
                                  TsDevice       device,
                                  TsKernelCost   cost,
                                  TsTensor      *out,
                                  GError       **error);

/* Launches op @id (slot 0 its output, slot 1 @self) into @out: NULL for
 * a new tensor of @self's shape and @dtype, else a tensor of that shape
 * and dtype (@self itself for an in-place form); copy-like cost. Returns
 * a new reference to the output. (ts-ops-shape.c) */
TsTensor *ts_ops_launch_like  (TsOpId                id,
                               TsTensor             *self,
                               TsTensor             *out,
                               TsDType               dtype,
                               gint64                arg,
                               int                   dim,
                               guint64               mask,
                               GError              **error);
/* After a launch_like op with a formula: records its node on @out (may be
 * NULL: passed through), with @diagonal and the dims in @mask as the
 * formula's attributes, and @original (may be NULL) as self for an
 * in-place op. Returns @out. (ts-ops-shape.c) */
TsTensor *ts_ops_record_like  (TsTensor             *out,
                               TsOpId                id,
                               TsTensor             *self,
                               gint64                diagonal,
                               guint64               mask,
                               TsTensor             *original);

/* The SHAPE family (ts-ops-shape.c), SORT and SCAN (ts-ops-sort.c) */
gboolean  ts_ops_shape_job    (TsOpJob              *job,
                               GError              **error);
gboolean  ts_ops_sort_job     (TsOpJob              *job,
                               GError              **error);
gboolean  ts_ops_scan_job     (TsOpJob              *job,
                               GError              **error);
gboolean  ts_ops_scatter_job  (TsOpJob              *job,
                               GError              **error);
/* The AMP family (ts-ops-amp.c) */
gboolean  ts_ops_amp_job      (TsOpJob              *job,
                               GError              **error);
/* FFT (ts-ops-fft.c) */
gboolean  ts_ops_fft_job      (TsOpJob              *job,
                               GError              **error);
/* WHERE, TERNARY and MV (ts-ops-more.c) */
gboolean  ts_ops_where_job    (TsOpJob              *job,
                               GError              **error);
gboolean  ts_ops_ternary_job  (TsOpJob              *job,
                               GError              **error);
gboolean  ts_ops_mv_job       (TsOpJob              *job,
                               GError              **error);
/* CONV (ts-ops-conv.c) */
gboolean  ts_ops_conv_job     (TsOpJob              *job,
                               GError              **error);
/* POOL and REMAP (ts-ops-pool.c), NORM (ts-ops-norm.c) */
gboolean  ts_ops_pool_job     (TsOpJob              *job,
                               GError              **error);
gboolean  ts_ops_norm_job     (TsOpJob              *job,
                               GError              **error);
gboolean  ts_ops_remap_job    (TsOpJob              *job,
                               GError              **error);
/* ACT (ts-ops-act.c) */
gboolean  ts_ops_act_job      (TsOpJob              *job,
                               GError              **error);
/* LOSS (ts-ops-loss.c) */
gboolean  ts_ops_loss_job     (TsOpJob              *job,
                               GError              **error);
/* A device job's kernel failed a device-side assert (after printing its
 * line, ts-device-assert.h): the context is poisoned, as a GPU's */
void      ts_op_job_fault_assert (TsOpJob           *job);
/* Their operands as the kernels read them (ts-ops-pool.c), without nodes:
 * contiguous; contiguous and float32 for float16/bfloat16; and a result
 * (consumed) cast back to @dtype */
TsTensor *ts_ops_dense        (TsTensor             *self,
                               GError              **error);
TsTensor *ts_ops_dense_float  (TsTensor             *self,
                               GError              **error);
TsTensor *ts_ops_to_dtype     (TsTensor             *t,
                               TsDType               dtype,
                               GError              **error);
/* PyTorch's "\"@kernel\" not implemented for 'Long'" for a tensor that is
 * not floating */
gboolean  ts_ops_check_floating (TsTensor           *t,
                                 const char         *kernel,
                                 GError            **error);
/* LINALG (ts-ops-linalg.c) */
gboolean  ts_ops_linalg_job    (TsOpJob              *job,
                               GError              **error);
/* The FOREACH family's rows name multi-tensor launches (ts-ops.c) */
gboolean  ts_ops_foreach_job  (TsOpJob              *job,
                               GError              **error);
/* A real GPU's view of slot @slot's tensor; FALSE when the slot is empty
 * or not device memory (the host fallback takes the job then) */
gboolean  ts_op_job_cuda_view (const TsOpJob        *job,
                               guint                 slot,
                               TsCudaView           *view);
/* The device address of the job's temporary @i (see ts_ops_conv_device_temps) */
guint64   ts_op_job_temp      (const TsOpJob        *job,
                               guint                 i);
/* CONV's device temporaries: the byte sizes of up to three (0: none),
 * allocated from the caching allocator before the launch */
void      ts_ops_conv_device_temps (const TsOpJob   *job,
                                    gsize           *sizes);
int       ts_ops_conv_device  (TsOpJob              *job,
                               const TsCudaKernels  *k,
                               gpointer              stream);
/* The device functions of ACT (threshold and its backward) and LOSS */
int       ts_ops_act_device   (TsOpJob              *job,
                               const TsCudaKernels  *k,
                               gpointer              stream);
int       ts_ops_loss_device  (TsOpJob              *job,
                               const TsCudaKernels  *k,
                               gpointer              stream);
/* the device function of families without device kernels (the host
 * fallback runs them) */
int       ts_ops_host_device  (TsOpJob              *job,
                               const TsCudaKernels  *k,
                               gpointer              stream);

G_END_DECLS
