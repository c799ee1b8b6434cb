/* ts-ops.c: operations on tensors, dispatched by device
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every op is split in two: the host part (checks, promotion, output
 * allocation, the launch) and a Job that computes over raw strided bytes.
 * On the CPU the job runs at once; on a device it is the work item's
 * on_start callback, so it reads its inputs when the device reaches it.
 */

#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "ts-device-assert.h"
#include "ts-op-access.h"
#include "ts-ops.h"
#include "ts-philox.h"
#include "ts-session.h"

#define MAX_DEVICES 64

typedef struct _Job Job;
typedef void (*JobFunc) (Job *job);

/* A job holds its tensors by value (metadata and the storage's pointers),
 * not by reference: as in PyTorch, freeing a tensor while a kernel that
 * uses it is queued returns its block to the caching allocator at once;
 * the stream order (or record_stream) is what keeps the memory valid, and
 * device memory itself stays mapped until its segment is released, which
 * synchronizes the device first, as cudaFree does. */
struct _Job
{
  JobFunc    func;
  TsTensor  *t[4];       /* t[0] is the output; point into tv */
  TsTensor   tv[4];
  TsStorage  sv[4];
  int        op;
  TsScalar   scalar;
  gboolean   has_scalar;
  gboolean   reverse;
  TsDType    compute;    /* dtype the arithmetic happens in */
  guint      n_dims;
  int        dims[TS_MAX_DIMS];
  double     p0, p1;
  guint64    seed, offset;
  TsPhiloxLaunch plan;
  gpointer   extra;      /* g_free'd with the job */
  guint      out_mask;   /* which t[] are written: bit 0 always */
  guint32    grid;       /* launch shape; 0: elementwise over t[0] */
  guint32    block;
  guint8    *staging[4]; /* device jobs: outputs land here first */
  guint8    *real[4];
  gint64     span_min[4];
  gsize      span_bytes[4];
  TsDeviceError fault;   /* device jobs: set by a kernel that faults */
};

static void
job_run (gpointer data)
{
  Job *job = data;

  job->func (job);
}

static void
job_free (gpointer data)
{
  Job *job = data;

  for (guint i = 0; i < G_N_ELEMENTS (job->staging); i++)
    g_free (job->staging[i]);
  g_free (job->extra);
  g_free (job);
}

/* Device work reads its inputs when it starts and its results land when it
 * ends: the outputs are computed into staging copies at the start and
 * copied in at the end, so a kernel on another stream that runs in
 * between, unsynchronized, sees the old bytes, as on a GPU. */
static TsDeviceError
job_start (gpointer data)
{
  Job *job = data;

  for (guint i = 0; i < G_N_ELEMENTS (job->t); i++)
    {
      TsTensor *t = job->t[i];
      gsize esize;
      gint64 lo = 0, hi = 0;

      if (!(job->out_mask & (1u << i)) || t == NULL || ts_tensor_numel (t) == 0 || t->storage->data == NULL)
        continue;
      esize = ts_dtype_size (t->dtype);
      for (guint d = 0; d < t->ndim; d++)
        {
          gint64 extent = (t->shape[d] - 1) * t->strides[d];
          if (extent < 0)
            lo += extent;
          else
            hi += extent;
        }
      job->span_min[i] = t->offset + lo;
      job->span_bytes[i] = (gsize) (hi - lo + 1) * esize;
      job->real[i] = t->storage->data + job->span_min[i] * esize;
      job->staging[i] = g_malloc (job->span_bytes[i]);
      memcpy (job->staging[i], job->real[i], job->span_bytes[i]);
      job->sv[i].data = job->staging[i];
      job->tv[i].offset -= job->span_min[i];
    }
  job->func (job);
  return job->fault;
}

static void
job_finish (gpointer data)
{
  Job *job = data;

  for (guint i = 0; i < G_N_ELEMENTS (job->t); i++)
    if (job->staging[i] != NULL)
      memcpy (job->real[i], job->staging[i], job->span_bytes[i]);
}

static void
job_set (Job      *job,
         guint     i,
         TsTensor *t)
{
  job->sv[i] = *t->storage;
  job->tv[i] = *t;
  job->tv[i].storage = &job->sv[i];
  job->t[i] = &job->tv[i];
}

static Job *
job_new (JobFunc func)
{
  Job *job = g_new0 (Job, 1);

  job->func = func;
  job->out_mask = 1;
  return job;
}

/* Runs job on device (a work item on its current stream, inside an API
 * span named like PyTorch's operator) or at once on the CPU. Takes
 * ownership of the job. */
static gboolean
dispatch (Job         *job,
          TsDevice     device,
          const char  *name,
          guint64      flops,
          guint64      bytes,
          GError     **error)
{
  TsSessionWork work = { 0 };
  guint64 correlation;
  gboolean ok, sanitize;

  if (device.type == TS_DEVICE_CPU)
    {
      job_run (job);
      job_free (job);
      return TRUE;
    }

  work.name = name;
  work.stream = ts_session_current_stream (device.index);
  work.flops = flops;
  work.bytes = bytes;
  /* PyTorch's vectorized elementwise kernels: 128 threads, 4 elements each */
  work.block = job->block ? job->block : 128;
  work.grid = job->grid ? job->grid
                        : (guint32) CLAMP ((ts_tensor_numel (job->t[0]) + 511) / 512, 1, G_MAXINT32);
  work.run = job_start;
  work.finish = job_finish;
  work.user_data = job;
  work.destroy = job_free;
  correlation = ts_session_api_begin (name, device.index);
  /* the sanitizer sees the op's tensors before the job may be gone */
  sanitize = ts_op_access_begin (name, job->t, G_N_ELEMENTS (job->t), job->out_mask);
  ok = ts_session_launch (&work, error);
  if (sanitize)
    ok = ts_op_access_end (work.stream, correlation, ok, error);
  ts_session_api_end (correlation);
  return ok;
}

/* Strided iteration --------------------------------------------------- */

typedef struct
{
  guint8  *data;
  gint64   strides[TS_MAX_DIMS];  /* in bytes, 0 along broadcast dims */
  TsDType  dtype;
} Operand;

static void
operand_init (Operand        *op,
              const TsTensor *t,
              guint           ndim,
              const gint64   *shape)
{
  gsize esize = ts_dtype_size (t->dtype);
  int lead = (int) ndim - (int) t->ndim;

  op->data = ts_tensor_data (t);
  op->dtype = t->dtype;
  for (guint i = 0; i < ndim; i++)
    {
      int j = (int) i - lead;
      if (j < 0 || t->shape[j] == 1)
        op->strides[i] = 0;
      else
        op->strides[i] = t->strides[j] * (gint64) esize;
    }
  /* a dimension of size one with a real stride still steps nowhere */
  for (guint i = 0; i < ndim; i++)
    if (shape[i] == 1)
      op->strides[i] = 0;
}

typedef void (*ElemFunc) (Job *job, guint8 **ptrs);

static void
iterate (Job          *job,
         guint         ndim,
         const gint64 *shape,
         Operand      *ops,
         guint         n_ops,
         ElemFunc      func)
{
  gint64 idx[TS_MAX_DIMS] = { 0 };
  guint8 *ptrs[4];
  gint64 numel = 1;

  for (guint i = 0; i < ndim; i++)
    numel *= shape[i];
  if (numel == 0)
    return;
  for (guint k = 0; k < n_ops; k++)
    ptrs[k] = ops[k].data;

  for (gint64 n = 0; n < numel; n++)
    {
      func (job, ptrs);
      /* odometer step, innermost dimension first */
      for (int d = (int) ndim - 1; d >= 0; d--)
        {
          idx[d]++;
          for (guint k = 0; k < n_ops; k++)
            ptrs[k] += ops[k].strides[d];
          if (idx[d] < shape[d])
            break;
          for (guint k = 0; k < n_ops; k++)
            ptrs[k] -= ops[k].strides[d] * shape[d];
          idx[d] = 0;
        }
    }
}

static gboolean
broadcast_shapes (const TsTensor  *a,
                  const TsTensor  *b,
                  guint           *ndim,
                  gint64          *shape,
                  GError         **error)
{
  guint n = MAX (a->ndim, b->ndim);

  for (guint i = 0; i < n; i++)
    {
      int ia = (int) a->ndim - (int) n + (int) i;
      int ib = (int) b->ndim - (int) n + (int) i;
      gint64 sa = ia >= 0 ? a->shape[ia] : 1;
      gint64 sb = ib >= 0 ? b->shape[ib] : 1;

      if (sa != sb && sa != 1 && sb != 1)
        {
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "The size of tensor a (%" G_GINT64_FORMAT ") must match the size of "
                       "tensor b (%" G_GINT64_FORMAT ") at non-singleton dimension %u",
                       sa, sb, i);
          return FALSE;
        }
      shape[i] = sa == 1 ? sb : sa;
    }
  *ndim = n;
  return TRUE;
}

/* Device rules ---------------------------------------------------------- */

static gboolean
is_cpu_scalar (const TsTensor *t)
{
  return t->ndim == 0 && t->storage->device.type == TS_DEVICE_CPU;
}

/* The device an op runs on. CPU 0-dim tensors ride along with any device,
 * as PyTorch treats them like numbers. */
static gboolean
common_device (TsTensor  **tensors,
               guint       n,
               TsDevice   *device,
               GError    **error)
{
  gboolean have = FALSE;
  TsDevice common = TS_DEVICE_CPU_VALUE;

  for (guint i = 0; i < n; i++)
    {
      TsDevice d;

      if (tensors[i] == NULL)
        continue;
      d = ts_tensor_get_device (tensors[i]);
      if (is_cpu_scalar (tensors[i]) && n > 1)
        continue;
      if (!have)
        {
          common = d;
          have = TRUE;
        }
      else if (!ts_device_equal (common, d))
        {
          g_autofree char *s1 = NULL;
          g_autofree char *s2 = NULL;

          /* PyTorch names the CUDA device first when one side is the CPU. */
          if (common.type == TS_DEVICE_CPU)
            {
              TsDevice t = common;
              common = d;
              d = t;
            }
          s1 = ts_device_to_string (common);
          s2 = ts_device_to_string (d);
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "Expected all tensors to be on the same device, but found at least "
                       "two devices, %s and %s!", s1, s2);
          return FALSE;
        }
    }
  if (!have && n > 0)
    {
      for (guint i = 0; i < n; i++)
        if (tensors[i] != NULL)
          {
            common = ts_tensor_get_device (tensors[i]);
            break;
          }
    }
  *device = common;
  return TRUE;
}

/* Element access ---------------------------------------------------------- */

static inline double
load_d (TsDType dtype, const guint8 *p)
{
  switch (dtype)
    {
    case TS_DTYPE_FLOAT32: return *(const float *) p;
    case TS_DTYPE_FLOAT64: return *(const double *) p;
    case TS_DTYPE_INT64: return (double) *(const gint64 *) p;
    case TS_DTYPE_INT32: return *(const gint32 *) p;
    case TS_DTYPE_UINT8: return *p;
    case TS_DTYPE_BOOL: return *p != 0;
    case TS_DTYPE_FLOAT16:
    case TS_DTYPE_BFLOAT16:
    case TS_N_DTYPES:
    case TS_DTYPE_UNDEFINED:
    default:
      return ts_dtype_load (dtype, p);
    }
}

static inline void
store_d (TsDType dtype, guint8 *p, double v)
{
  switch (dtype)
    {
    case TS_DTYPE_FLOAT32: *(float *) p = (float) v; break;
    case TS_DTYPE_FLOAT64: *(double *) p = v; break;
    case TS_DTYPE_FLOAT16:
    case TS_DTYPE_BFLOAT16:
    case TS_DTYPE_INT64:
    case TS_DTYPE_INT32:
    case TS_DTYPE_UINT8:
    case TS_DTYPE_BOOL:
    case TS_N_DTYPES:
    case TS_DTYPE_UNDEFINED:
    default:
      ts_dtype_store (dtype, p, v);
      break;
    }
}

static inline gint64
load_i (TsDType dtype, const guint8 *p)
{
  switch (dtype)
    {
    case TS_DTYPE_INT64: return *(const gint64 *) p;
    case TS_DTYPE_INT32: return *(const gint32 *) p;
    case TS_DTYPE_UINT8: return *p;
    case TS_DTYPE_BOOL: return *p != 0;
    case TS_DTYPE_FLOAT32:
    case TS_DTYPE_FLOAT64:
    case TS_DTYPE_FLOAT16:
    case TS_DTYPE_BFLOAT16:
    case TS_N_DTYPES:
    case TS_DTYPE_UNDEFINED:
    default:
      return ts_dtype_load_int (dtype, p);
    }
}

static gint64
element_offset (const TsTensor *self,
                gint64          linear)
{
  gint64 off = self->offset;

  for (int d = (int) self->ndim - 1; d >= 0; d--)
    {
      gint64 size = self->shape[d];
      off += (linear % size) * self->strides[d];
      linear /= size;
    }
  return off;
}

double
ts_tensor_get_double (const TsTensor *self,
                      gint64          linear_index)
{
  gsize esize = ts_dtype_size (self->dtype);

  return load_d (self->dtype, self->storage->data + element_offset (self, linear_index) * esize);
}

gint64
ts_tensor_get_int (const TsTensor *self,
                   gint64          linear_index)
{
  gsize esize = ts_dtype_size (self->dtype);

  return load_i (self->dtype, self->storage->data + element_offset (self, linear_index) * esize);
}

/* Elementwise binary ----------------------------------------------------- */

static gboolean
is_comparison (TsBinaryOp op)
{
  return op >= TS_BINARY_EQ && op <= TS_BINARY_GE;
}

static double
binary_float (TsBinaryOp op, double a, double b)
{
  switch (op)
    {
    case TS_BINARY_ADD: return a + b;
    case TS_BINARY_SUB: return a - b;
    case TS_BINARY_MUL: return a * b;
    case TS_BINARY_DIV: return a / b;
    case TS_BINARY_FLOOR_DIV: return floor (a / b);
    case TS_BINARY_REMAINDER:
      {
        double r = fmod (a, b);
        if (r != 0 && ((r < 0) != (b < 0)))
          r += b;
        return r;
      }
    case TS_BINARY_POW: return pow (a, b);
    case TS_BINARY_MAXIMUM: return isnan (a) || isnan (b) ? NAN : MAX (a, b);
    case TS_BINARY_MINIMUM: return isnan (a) || isnan (b) ? NAN : MIN (a, b);
    case TS_BINARY_EQ: return a == b;
    case TS_BINARY_NE: return a != b;
    case TS_BINARY_LT: return a < b;
    case TS_BINARY_LE: return a <= b;
    case TS_BINARY_GT: return a > b;
    case TS_BINARY_GE: return a >= b;
    case TS_BINARY_AND: return (a != 0) && (b != 0);
    case TS_BINARY_OR: return (a != 0) || (b != 0);
    case TS_BINARY_XOR: return (a != 0) != (b != 0);
    default:
      g_assert_not_reached ();
    }
}

static gint64
binary_int (TsBinaryOp op, gint64 a, gint64 b)
{
  switch (op)
    {
    case TS_BINARY_ADD: return (gint64) ((guint64) a + (guint64) b);
    case TS_BINARY_SUB: return (gint64) ((guint64) a - (guint64) b);
    case TS_BINARY_MUL: return (gint64) ((guint64) a * (guint64) b);
    case TS_BINARY_FLOOR_DIV:
      {
        gint64 q;
        if (b == 0)
          return 0;
        q = a / b;
        if ((a % b != 0) && ((a < 0) != (b < 0)))
          q--;
        return q;
      }
    case TS_BINARY_REMAINDER:
      {
        gint64 r;
        if (b == 0)
          return 0;
        r = a % b;
        if (r != 0 && ((r < 0) != (b < 0)))
          r += b;
        return r;
      }
    case TS_BINARY_POW:
      {
        gint64 r = 1;
        if (b < 0)
          return a == 1 ? 1 : 0;
        while (b-- > 0)
          r *= a;
        return r;
      }
    case TS_BINARY_MAXIMUM: return MAX (a, b);
    case TS_BINARY_MINIMUM: return MIN (a, b);
    case TS_BINARY_EQ: return a == b;
    case TS_BINARY_NE: return a != b;
    case TS_BINARY_LT: return a < b;
    case TS_BINARY_LE: return a <= b;
    case TS_BINARY_GT: return a > b;
    case TS_BINARY_GE: return a >= b;
    case TS_BINARY_AND: return a & b;
    case TS_BINARY_OR: return a | b;
    case TS_BINARY_XOR: return a ^ b;
    case TS_BINARY_DIV:
    default:
      g_assert_not_reached ();
    }
}

static void
binary_elem (Job     *job,
             guint8 **p)
{
  TsDType out = job->t[0]->dtype;
  TsDType a_type = job->t[1] ? job->t[1]->dtype : job->scalar.kind;
  TsDType b_type = job->t[2] ? job->t[2]->dtype : job->scalar.kind;

  if (ts_dtype_is_floating (job->compute))
    {
      double r = binary_float (job->op, load_d (a_type, p[1]), load_d (b_type, p[2]));
      store_d (out, p[0], r);
    }
  else
    {
      gint64 r = binary_int (job->op, load_i (a_type, p[1]), load_i (b_type, p[2]));
      if (out == TS_DTYPE_BOOL || ts_dtype_is_floating (out))
        store_d (out, p[0], (double) r);
      else
        ts_dtype_store_int (out, p[0], r);
    }
}

/* Fast path: both operands and the output contiguous float32 of one shape. */
static gboolean
binary_fast (Job *job)
{
  TsTensor *o = job->t[0], *a = job->t[1], *b = job->t[2];
  gint64 n;
  float *po, *pa, *pb;

  if (a == NULL || b == NULL || o->dtype != TS_DTYPE_FLOAT32 ||
      a->dtype != TS_DTYPE_FLOAT32 || b->dtype != TS_DTYPE_FLOAT32 ||
      a->ndim != o->ndim || b->ndim != o->ndim ||
      memcmp (a->shape, o->shape, o->ndim * sizeof (gint64)) != 0 ||
      memcmp (b->shape, o->shape, o->ndim * sizeof (gint64)) != 0 ||
      !ts_tensor_is_contiguous (o) || !ts_tensor_is_contiguous (a) ||
      !ts_tensor_is_contiguous (b))
    return FALSE;

  n = ts_tensor_numel (o);
  po = (float *) ts_tensor_data (o);
  pa = (float *) ts_tensor_data (a);
  pb = (float *) ts_tensor_data (b);
  switch ((TsBinaryOp) job->op)
    {
    case TS_BINARY_ADD: for (gint64 i = 0; i < n; i++) po[i] = pa[i] + pb[i]; return TRUE;
    case TS_BINARY_SUB: for (gint64 i = 0; i < n; i++) po[i] = pa[i] - pb[i]; return TRUE;
    case TS_BINARY_MUL: for (gint64 i = 0; i < n; i++) po[i] = pa[i] * pb[i]; return TRUE;
    case TS_BINARY_DIV: for (gint64 i = 0; i < n; i++) po[i] = pa[i] / pb[i]; return TRUE;
    default:
      return FALSE;
    }
}

static void
binary_job (Job *job)
{
  TsTensor *out = job->t[0];
  Operand ops[3];
  double sd = job->scalar.value;
  gint64 si = job->scalar.ivalue;
  guint8 *scalar_ptr;

  if (binary_fast (job))
    return;

  scalar_ptr = job->scalar.kind == TS_DTYPE_FLOAT64 ? (guint8 *) &sd : (guint8 *) &si;
  if (job->scalar.kind == TS_DTYPE_BOOL)
    {
      /* bools load as one byte */
      static guint8 t = 1, f = 0;
      scalar_ptr = si ? &t : &f;
    }
  operand_init (&ops[0], out, out->ndim, out->shape);
  for (int k = 1; k <= 2; k++)
    {
      if (job->t[k] != NULL)
        operand_init (&ops[k], job->t[k], out->ndim, out->shape);
      else
        {
          memset (&ops[k], 0, sizeof ops[k]);
          ops[k].data = scalar_ptr;
        }
    }
  iterate (job, out->ndim, out->shape, ops, 3, binary_elem);
}

static const char *
dtype_title (TsDType dtype)
{
  static const char *names[TS_N_DTYPES] = {
    [TS_DTYPE_FLOAT32] = "Float", [TS_DTYPE_FLOAT64] = "Double",
    [TS_DTYPE_FLOAT16] = "Half", [TS_DTYPE_BFLOAT16] = "BFloat16",
    [TS_DTYPE_INT64] = "Long", [TS_DTYPE_INT32] = "Int",
    [TS_DTYPE_UINT8] = "Byte", [TS_DTYPE_BOOL] = "Bool",
  };
  return names[dtype];
}

static const char *
binary_name (TsBinaryOp op)
{
  static const char *names[] = {
    "add", "sub", "mul", "div", "floor_divide", "remainder", "pow", "maximum", "minimum",
    "eq", "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor",
  };
  return names[op];
}

/* PyTorch's operator names, spelled out so that a launch formats nothing. */
static const char *
binary_op_name (TsBinaryOp op)
{
  static const char *names[] = {
    "aten::add", "aten::sub", "aten::mul", "aten::div", "aten::floor_divide",
    "aten::remainder", "aten::pow", "aten::maximum", "aten::minimum", "aten::eq",
    "aten::ne", "aten::lt", "aten::le", "aten::gt", "aten::ge", "aten::bitwise_and",
    "aten::bitwise_or", "aten::bitwise_xor",
  };
  return names[op];
}

static gboolean
can_cast (TsDType from,
          TsDType to)
{
  if (ts_dtype_is_floating (from) && !ts_dtype_is_floating (to))
    return FALSE;
  if (from != TS_DTYPE_BOOL && to == TS_DTYPE_BOOL)
    return FALSE;
  return TRUE;
}

TsTensor *
ts_ops_binary (TsBinaryOp       op,
               TsTensor        *a,
               TsTensor        *b,
               const TsScalar  *scalar,
               gboolean         reverse,
               TsTensor        *out,
               GError         **error)
{
  TsTensor *operands[3] = { a, b, out };
  TsScalar cpu_scalar;
  TsDevice device;
  TsDType compute, result;
  guint ndim;
  gint64 shape[TS_MAX_DIMS];
  Job *job;
  gint64 numel;

  g_return_val_if_fail (a != NULL, NULL);
  g_return_val_if_fail (b != NULL || scalar != NULL, NULL);

  if (!common_device (operands, 3, &device, error))
    return NULL;

  if (b != NULL)
    {
      compute = ts_dtype_result_type2 (a->ndim ? TS_OPERAND_TENSOR : TS_OPERAND_ZERO_DIM, a->dtype,
                                       b->ndim ? TS_OPERAND_TENSOR : TS_OPERAND_ZERO_DIM, b->dtype);
      if (!broadcast_shapes (a, b, &ndim, shape, error))
        return NULL;
    }
  else
    {
      compute = ts_dtype_result_type2 (a->ndim ? TS_OPERAND_TENSOR : TS_OPERAND_ZERO_DIM, a->dtype,
                                       TS_OPERAND_SCALAR, scalar->kind);
      ndim = a->ndim;
      memcpy (shape, a->shape, ndim * sizeof (gint64));
    }

  if ((op == TS_BINARY_AND || op == TS_BINARY_OR || op == TS_BINARY_XOR) &&
      ts_dtype_is_floating (compute))
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "\"%s_cpu\" not implemented for '%s'", binary_name (op), dtype_title (compute));
      return NULL;
    }
  if (op == TS_BINARY_SUB && compute == TS_DTYPE_BOOL)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.");
      return NULL;
    }
  /* true division always gives a floating result */
  if (op == TS_BINARY_DIV && !ts_dtype_is_floating (compute))
    compute = ts_dtype_get_default ();
  if (op == TS_BINARY_ADD && compute == TS_DTYPE_BOOL)
    compute = TS_DTYPE_BOOL;
  result = is_comparison (op) ? TS_DTYPE_BOOL : compute;

  /* A CPU 0-dim operand of a device op is read now, as a number (PyTorch
   * copies it into the kernel's arguments). */
  if (device.type == TS_DEVICE_CUDA && b != NULL && (is_cpu_scalar (a) || is_cpu_scalar (b)))
    {
      TsTensor *cpu = is_cpu_scalar (b) ? b : a;

      if (ts_dtype_is_floating (cpu->dtype))
        cpu_scalar = (TsScalar) { TS_DTYPE_FLOAT64, ts_tensor_get_double (cpu, 0), 0 };
      else if (cpu->dtype == TS_DTYPE_BOOL)
        cpu_scalar = (TsScalar) { TS_DTYPE_BOOL, 0, ts_tensor_get_int (cpu, 0) };
      else
        cpu_scalar = (TsScalar) { TS_DTYPE_INT64, 0, ts_tensor_get_int (cpu, 0) };
      cpu_scalar.value = cpu_scalar.kind == TS_DTYPE_FLOAT64 ? cpu_scalar.value : (double) cpu_scalar.ivalue;
      scalar = &cpu_scalar;
      if (cpu == a)
        {
          a = b;
          reverse = TRUE;
        }
      else
        reverse = FALSE;
      b = NULL;
    }

  if (out != NULL)
    {
      if (!can_cast (result, out->dtype))
        {
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "result type %s can't be cast to the desired output type %s",
                       dtype_title (result), dtype_title (out->dtype));
          return NULL;
        }
      if (out->ndim != ndim || memcmp (out->shape, shape, ndim * sizeof (gint64)) != 0)
        {
          g_autofree char *want = NULL;
          GString *s = g_string_new ("[");
          for (guint i = 0; i < ndim; i++)
            g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "", shape[i]);
          g_string_append_c (s, ']');
          want = g_string_free (s, FALSE);
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "output with shape %s doesn't match the broadcast shape %s",
                       "[...]", want);
          return NULL;
        }
      out = ts_tensor_ref (out);
    }
  else
    {
      out = ts_tensor_new_empty (device, result, ndim, shape, FALSE, error);
      if (out == NULL)
        return NULL;
    }

  job = job_new (binary_job);
  job->op = op;
  job->compute = compute;
  job_set (job, 0, out);
  if (b != NULL)
    {
      job_set (job, 1, a);
      job_set (job, 2, b);
    }
  else
    {
      job->scalar = *scalar;
      job_set (job, reverse ? 2 : 1, a);
    }

  numel = ts_tensor_numel (out);
  if (!dispatch (job, device, binary_op_name (op), numel,
            ts_tensor_nbytes (a) + (b ? ts_tensor_nbytes (b) : 0) + ts_tensor_nbytes (out), error))
    {
      ts_tensor_unref (out);
      return NULL;
    }
  return out;
}

/* Unary ------------------------------------------------------------------ */

static double
unary_float (TsUnaryOp op, double a)
{
  switch (op)
    {
    case TS_UNARY_NEG: return -a;
    case TS_UNARY_ABS: return fabs (a);
    case TS_UNARY_EXP: return exp (a);
    case TS_UNARY_LOG: return log (a);
    case TS_UNARY_SQRT: return sqrt (a);
    case TS_UNARY_RELU: return a > 0 ? a : 0;
    case TS_UNARY_SIGMOID: return 1.0 / (1.0 + exp (-a));
    case TS_UNARY_TANH: return tanh (a);
    case TS_UNARY_SIN: return sin (a);
    case TS_UNARY_COS: return cos (a);
    case TS_UNARY_NOT: return a == 0;
    default:
      g_assert_not_reached ();
    }
}

static void
unary_elem (Job     *job,
            guint8 **p)
{
  TsDType out = job->t[0]->dtype;
  TsDType in = job->t[1]->dtype;

  if (ts_dtype_is_floating (out) || job->op == TS_UNARY_NOT)
    store_d (out, p[0], unary_float (job->op, load_d (in, p[1])));
  else
    {
      gint64 v = load_i (in, p[1]);
      switch ((TsUnaryOp) job->op)
        {
        case TS_UNARY_NEG: v = -v; break;
        case TS_UNARY_ABS: v = v < 0 ? -v : v; break;
        case TS_UNARY_RELU: v = v > 0 ? v : 0; break;
        default: break;
        }
      ts_dtype_store_int (out, p[0], v);
    }
}

static void
unary_job (Job *job)
{
  Operand ops[2];
  TsTensor *out = job->t[0];

  operand_init (&ops[0], out, out->ndim, out->shape);
  operand_init (&ops[1], job->t[1], out->ndim, out->shape);
  iterate (job, out->ndim, out->shape, ops, 2, unary_elem);
}

TsTensor *
ts_ops_unary (TsUnaryOp   op,
              TsTensor   *a,
              GError    **error)
{
  static const char *names[] = { "neg", "abs", "exp", "log", "sqrt", "relu", "sigmoid",
                                 "tanh", "sin", "cos", "logical_not" };
  TsDType result = a->dtype;
  TsTensor *out;
  Job *job;
  char name[64];

  if (op == TS_UNARY_NEG && a->dtype == TS_DTYPE_BOOL)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "Negation, the `-` operator, on a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.");
      return NULL;
    }
  if (op == TS_UNARY_NOT)
    result = TS_DTYPE_BOOL;
  else if (op >= TS_UNARY_EXP && op != TS_UNARY_RELU && !ts_dtype_is_floating (result))
    result = ts_dtype_get_default ();

  out = ts_tensor_new_empty (ts_tensor_get_device (a), result, a->ndim, a->shape, FALSE, error);
  if (out == NULL)
    return NULL;
  job = job_new (unary_job);
  job->op = op;
  job_set (job, 0, out);
  job_set (job, 1, a);
  g_snprintf (name, sizeof name, "aten::%s", names[op]);
  if (!dispatch (job, ts_tensor_get_device (a), name, ts_tensor_numel (out),
            ts_tensor_nbytes (a) + ts_tensor_nbytes (out), error))
    {
      ts_tensor_unref (out);
      return NULL;
    }
  return out;
}

/* Fill and copy ----------------------------------------------------------- */

static void
fill_elem (Job     *job,
           guint8 **p)
{
  TsDType out = job->t[0]->dtype;

  if (job->scalar.kind == TS_DTYPE_FLOAT64 || ts_dtype_is_floating (out))
    store_d (out, p[0], job->scalar.kind == TS_DTYPE_FLOAT64 ? job->scalar.value
                                                             : (double) job->scalar.ivalue);
  else
    ts_dtype_store_int (out, p[0], job->scalar.ivalue);
}

static void
fill_job (Job *job)
{
  Operand op;
  TsTensor *out = job->t[0];

  operand_init (&op, out, out->ndim, out->shape);
  iterate (job, out->ndim, out->shape, &op, 1, fill_elem);
}

gboolean
ts_ops_fill (TsTensor        *self,
             const TsScalar  *value,
             GError         **error)
{
  Job *job = job_new (fill_job);

  job->scalar = *value;
  job_set (job, 0, self);
  if (!dispatch (job, ts_tensor_get_device (self), "aten::fill_", 0, ts_tensor_nbytes (self), error))
    return FALSE;
  return TRUE;
}

static void
copy_elem (Job     *job,
           guint8 **p)
{
  TsDType out = job->t[0]->dtype;
  TsDType in = job->t[1]->dtype;

  if (ts_dtype_is_floating (out) || ts_dtype_is_floating (in) || out == TS_DTYPE_BOOL)
    store_d (out, p[0], load_d (in, p[1]));
  else
    ts_dtype_store_int (out, p[0], load_i (in, p[1]));
}

static void
copy_job (Job *job)
{
  TsTensor *dst = job->t[0], *src = job->t[1];
  Operand ops[2];

  if (dst->dtype == src->dtype && ts_tensor_is_contiguous (dst) && ts_tensor_is_contiguous (src) &&
      dst->ndim == src->ndim && memcmp (dst->shape, src->shape, dst->ndim * sizeof (gint64)) == 0)
    {
      if (ts_tensor_nbytes (dst) > 0)
        memcpy (ts_tensor_data (dst), ts_tensor_data (src), ts_tensor_nbytes (dst));
      return;
    }
  operand_init (&ops[0], dst, dst->ndim, dst->shape);
  operand_init (&ops[1], src, dst->ndim, dst->shape);
  iterate (job, dst->ndim, dst->shape, ops, 2, copy_elem);
}

static gboolean
launch_copy (TsTensor    *dst,
             TsTensor    *src,
             TsStreamId   stream,
             TsCopyKind   kind,
             gboolean     pinned,
             gboolean     non_blocking,
             GError     **error)
{
  Job *job = job_new (copy_job);
  TsSessionWork work = { 0 };
  TsDevice sd = ts_tensor_get_device (src), dd = ts_tensor_get_device (dst);
  guint64 correlation;
  gboolean ok, sanitize;

  job_set (job, 0, dst);
  job_set (job, 1, src);
  work.name = "Memcpy";
  work.stream = stream;
  work.bytes = ts_tensor_nbytes (dst);
  work.is_copy = TRUE;
  work.copy_kind = kind;
  work.pinned = pinned;
  work.non_blocking = non_blocking;
  work.src_device = sd.type == TS_DEVICE_CUDA ? sd.index : -1;
  work.dst_device = dd.type == TS_DEVICE_CUDA ? dd.index : -1;
  work.run = job_start;
  work.finish = job_finish;
  work.user_data = job;
  work.destroy = job_free;
  correlation = ts_session_api_begin ("aten::copy_", dd.type == TS_DEVICE_CUDA ? dd.index : sd.index);
  /* the pinned side of an asynchronous copy stays reserved until the
   * stream has passed the copy */
  if (pinned && non_blocking)
    ts_session_host_record_stream (sd.type == TS_DEVICE_CPU ? ts_tensor_data (src) : ts_tensor_data (dst),
                                   stream);
  sanitize = ts_op_access_begin ("aten::copy_", job->t, G_N_ELEMENTS (job->t), job->out_mask);
  ok = ts_session_launch (&work, error);
  /* a copy the host waits for synchronizes the stream, for CSAN too */
  if (sanitize && ok && kind != TS_COPY_DEVICE_TO_DEVICE && kind != TS_COPY_PEER && !(pinned && non_blocking))
    ts_op_access_stream_synchronize (stream);
  if (sanitize)
    ok = ts_op_access_end (stream, correlation, ok, error);
  ts_session_api_end (correlation);
  return ok;
}

gboolean
ts_ops_copy (TsTensor  *dst,
             TsTensor  *src,
             gboolean   non_blocking,
             GError   **error)
{
  TsDevice sd = ts_tensor_get_device (src), dd = ts_tensor_get_device (dst);
  g_autoptr(TsTensor) expanded = NULL;

  /* src broadcasts to dst's shape, never the other way */
  if (src->ndim != dst->ndim || memcmp (src->shape, dst->shape, dst->ndim * sizeof (gint64)) != 0)
    {
      expanded = ts_tensor_expand (src, dst->ndim, dst->shape, NULL);
      if (expanded == NULL)
        {
          guint ndim;
          gint64 shape[TS_MAX_DIMS];
          if (!broadcast_shapes (dst, src, &ndim, shape, error))
            return FALSE;
          g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                               "output with shape doesn't match the broadcast shape");
          return FALSE;
        }
      src = expanded;
    }

  if (ts_tensor_numel (dst) == 0)
    return TRUE;

  if (sd.type == TS_DEVICE_CPU && dd.type == TS_DEVICE_CPU)
    {
      Job *job = job_new (copy_job);
      job_set (job, 0, dst);
      job_set (job, 1, src);
      return dispatch (job, sd, "aten::copy_", 0, 0, error);
    }

  if (sd.type == TS_DEVICE_CPU)
    {
      /* Host to device on the destination's current stream. Only pinned
       * memory copies asynchronously; a pageable source is staged by the
       * driver, so the host waits either way. */
      return launch_copy (dst, src, ts_session_current_stream (dd.index), TS_COPY_HOST_TO_DEVICE,
                          src->storage->pinned, non_blocking, error);
    }

  if (dd.type == TS_DEVICE_CPU)
    {
      return launch_copy (dst, src, ts_session_current_stream (sd.index), TS_COPY_DEVICE_TO_HOST,
                          dst->storage->pinned, non_blocking, error);
    }

  if (sd.index == dd.index)
    {
      return launch_copy (dst, src, ts_session_current_stream (sd.index), TS_COPY_DEVICE_TO_DEVICE,
                          FALSE, non_blocking, error);
    }

  /* Between devices: PyTorch copies on the source's current stream after
   * making it wait for the destination's, then makes the destination's
   * stream wait for the copy, so both sides see ordered memory. */
  {
    TsStreamId src_stream = ts_session_current_stream (sd.index);
    TsStreamId dst_stream = ts_session_current_stream (dd.index);

    ts_session_stream_wait_stream (src_stream, dst_stream);
    if (!launch_copy (dst, src, src_stream, TS_COPY_PEER, FALSE, non_blocking, error))
      return FALSE;
    ts_session_stream_wait_stream (dst_stream, src_stream);
  }
  return TRUE;
}

TsTensor *
ts_ops_to (TsTensor  *self,
           TsDevice   device,
           TsDType    dtype,
           gboolean   non_blocking,
           gboolean   copy,
           GError   **error)
{
  g_autoptr(TsTensor) out = NULL;

  if (dtype == TS_DTYPE_UNDEFINED)
    dtype = self->dtype;
  if (!copy && dtype == self->dtype && ts_device_equal (device, ts_tensor_get_device (self)))
    return ts_tensor_ref (self);

  if (device.type == TS_DEVICE_CUDA && !ts_session_check_device (device.index, error))
    return NULL;
  out = ts_tensor_new_empty (device, dtype, self->ndim, self->shape, FALSE, error);
  if (out == NULL)
    return NULL;
  if (device.type == TS_DEVICE_CUDA)
    {
      /* The copy runs with the destination as the current device. */
      int saved = ts_session_current_device ();
      gboolean ok;

      ts_session_set_device (device.index, NULL);
      ok = ts_ops_copy (out, self, non_blocking, error);
      ts_session_set_device (saved, NULL);
      if (!ok)
        return NULL;
    }
  else if (!ts_ops_copy (out, self, non_blocking, error))
    return NULL;
  return g_steal_pointer (&out);
}

TsTensor *
ts_ops_clone (TsTensor  *self,
              GError   **error)
{
  return ts_ops_to (self, ts_tensor_get_device (self), self->dtype, FALSE, TRUE, error);
}

TsTensor *
ts_ops_contiguous (TsTensor  *self,
                   GError   **error)
{
  if (ts_tensor_is_contiguous (self))
    return ts_tensor_ref (self);
  return ts_ops_clone (self, error);
}

TsTensor *
ts_ops_pin_memory (TsTensor  *self,
                   GError   **error)
{
  g_autoptr(TsTensor) out = NULL;

  if (ts_tensor_is_cuda (self))
    {
      g_autofree char *s = ts_device_to_string (ts_tensor_get_device (self));
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "cannot pin '%s' only dense CPU tensors can be pinned",
                   "torch.cuda.FloatTensor");
      return NULL;
    }
  out = ts_tensor_new_empty (TS_DEVICE_CPU_VALUE, self->dtype, self->ndim, self->shape, TRUE, error);
  if (out == NULL || !ts_ops_copy (out, self, FALSE, error))
    return NULL;
  return g_steal_pointer (&out);
}

TsTensor *
ts_ops_to_host (TsTensor  *self,
                GError   **error)
{
  if (!ts_tensor_is_cuda (self))
    return ts_tensor_ref (self);
  return ts_ops_to (self, TS_DEVICE_CPU_VALUE, self->dtype, FALSE, FALSE, error);
}

/* Reductions -------------------------------------------------------------- */

typedef struct
{
  gboolean reduce[TS_MAX_DIMS];
  gint64   out_strides[TS_MAX_DIMS];  /* strides of the contiguous output per input dim */
} ReducePlan;

static gboolean
reduce_shape (TsTensor    *self,
              const int   *dims,
              guint        n_dims,
              gboolean     keepdim,
              ReducePlan  *plan,
              guint       *out_ndim,
              gint64      *out_shape,
              GError     **error)
{
  gint64 s = 1;
  guint k = 0;

  memset (plan, 0, sizeof *plan);
  if (n_dims == 0)
    for (guint i = 0; i < self->ndim; i++)
      plan->reduce[i] = TRUE;
  for (guint i = 0; i < n_dims; i++)
    {
      int d = dims[i];
      if (!ts_tensor_wrap_dim (self->ndim, &d, error))
        return FALSE;
      if (self->ndim == 0)
        continue;
      if (plan->reduce[d])
        {
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "dim %d appears multiple times in the list of dims", d);
          return FALSE;
        }
      plan->reduce[d] = TRUE;
    }
  for (int i = (int) self->ndim - 1; i >= 0; i--)
    {
      if (plan->reduce[i])
        plan->out_strides[i] = 0;
      else
        {
          plan->out_strides[i] = s;
          s *= self->shape[i];
        }
    }
  for (guint i = 0; i < self->ndim; i++)
    {
      if (plan->reduce[i] && !keepdim)
        continue;
      out_shape[k++] = plan->reduce[i] ? 1 : self->shape[i];
    }
  *out_ndim = k;
  return TRUE;
}

static void
reduce_sum_job (Job *job)
{
  TsTensor *out = job->t[0], *in = job->t[1];
  gint64 n_out = ts_tensor_numel (out);
  gint64 n_in = ts_tensor_numel (in);
  ReducePlan *plan = job->extra;
  double *acc = g_new0 (double, MAX (n_out, 1));
  gint64 *iacc = g_new0 (gint64, MAX (n_out, 1));
  gboolean floating = ts_dtype_is_floating (out->dtype);
  gint64 idx[TS_MAX_DIMS] = { 0 };
  gsize esize = ts_dtype_size (in->dtype);
  gsize osize = ts_dtype_size (out->dtype);
  guint8 *od = ts_tensor_data (out);

  for (gint64 n = 0; n < n_in; n++)
    {
      gint64 o = 0, off = in->offset;
      const guint8 *p;

      for (guint d = 0; d < in->ndim; d++)
        {
          o += idx[d] * plan->out_strides[d];
          off += idx[d] * in->strides[d];
        }
      p = in->storage->data + off * esize;
      if (floating)
        acc[o] += load_d (in->dtype, p);
      else
        iacc[o] += load_i (in->dtype, p);
      for (int d = (int) in->ndim - 1; d >= 0; d--)
        {
          if (++idx[d] < in->shape[d])
            break;
          idx[d] = 0;
        }
    }

  for (gint64 o = 0; o < n_out; o++)
    {
      if (floating)
        store_d (out->dtype, od + o * osize, job->op ? acc[o] / job->p0 : acc[o]);
      else
        ts_dtype_store_int (out->dtype, od + o * osize, iacc[o]);
    }
  g_free (acc);
  g_free (iacc);
}

static TsTensor *
reduce_sum_mean (TsTensor   *self,
                 const int  *dims,
                 guint       n_dims,
                 gboolean    keepdim,
                 TsDType     dtype,
                 gboolean    mean,
                 GError    **error)
{
  ReducePlan plan;
  guint ndim;
  gint64 shape[TS_MAX_DIMS];
  TsTensor *out;
  Job *job;
  gint64 count;


  if (dtype == TS_DTYPE_UNDEFINED)
    {
      dtype = self->dtype;
      if (!ts_dtype_is_floating (dtype))
        {
          if (mean)
            {
              g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "mean(): could not infer output dtype. Input dtype must be either "
                           "a floating point or complex dtype. Got: %s", dtype_title (dtype));
              return NULL;
            }
          dtype = TS_DTYPE_INT64;
        }
    }
  if (!reduce_shape (self, dims, n_dims, keepdim, &plan, &ndim, shape, error))
    return NULL;
  out = ts_tensor_new_empty (ts_tensor_get_device (self), dtype, ndim, shape, FALSE, error);
  if (out == NULL)
    return NULL;

  count = ts_tensor_numel (self) / MAX (ts_tensor_numel (out), 1);
  if (ts_tensor_numel (out) == 0)
    count = 0;
  job = job_new (reduce_sum_job);
  /* a reduction kernel: 512 threads, 32 inputs per thread, on at most half
   * of the SMs (PyTorch splits a full reduction over a few CTAs per SM and
   * finishes it with a second pass we do not model) */
  job->block = 512;
  job->grid = (guint32) CLAMP ((ts_tensor_numel (self) + 16383) / 16384, 1,
                               MAX (ts_session_get_profile (0)->sm_count / 2, 1));
  job->op = mean;
  job->p0 = (double) count;
  job_set (job, 0, out);
  job_set (job, 1, self);
  job->extra = g_memdup2 (&plan, sizeof plan);
  if (!dispatch (job, ts_tensor_get_device (self), mean ? "aten::mean" : "aten::sum",
            ts_tensor_numel (self), ts_tensor_nbytes (self) + ts_tensor_nbytes (out), error))
    {
      ts_tensor_unref (out);
      return NULL;
    }
  return out;
}

TsTensor *
ts_ops_sum (TsTensor   *self,
            const int  *dims,
            guint       n_dims,
            gboolean    keepdim,
            TsDType     dtype,
            GError    **error)
{
  return reduce_sum_mean (self, dims, n_dims, keepdim, dtype, FALSE, error);
}

TsTensor *
ts_ops_mean (TsTensor   *self,
             const int  *dims,
             guint       n_dims,
             gboolean    keepdim,
             TsDType     dtype,
             GError    **error)
{
  return reduce_sum_mean (self, dims, n_dims, keepdim, dtype, TRUE, error);
}

/* max/min: op is 1 for min; t[2] (optional) receives int64 indices along
 * the single reduced dim, p0 its size. */
static void
reduce_max_job (Job *job)
{
  TsTensor *out = job->t[0], *in = job->t[1], *ind = job->t[2];
  ReducePlan *plan = job->extra;
  gint64 n_out = MAX (ts_tensor_numel (out), 1);
  gint64 n_in = ts_tensor_numel (in);
  double *best = g_new (double, n_out);
  gint64 *arg = g_new0 (gint64, n_out);
  gboolean *seen = g_new0 (gboolean, n_out);
  gint64 idx[TS_MAX_DIMS] = { 0 };
  gsize esize = ts_dtype_size (in->dtype);
  int rdim = job->n_dims ? job->dims[0] : -1;

  for (gint64 n = 0; n < n_in; n++)
    {
      gint64 o = 0, off = in->offset;
      double v;

      for (guint d = 0; d < in->ndim; d++)
        {
          o += idx[d] * plan->out_strides[d];
          off += idx[d] * in->strides[d];
        }
      v = load_d (in->dtype, in->storage->data + off * esize);
      if (!seen[o] || isnan (v) ||
          (!isnan (best[o]) && (job->op ? v < best[o] : v > best[o])))
        {
          if (!(seen[o] && isnan (best[o])))
            {
              best[o] = v;
              arg[o] = rdim >= 0 ? idx[rdim] : 0;
            }
          seen[o] = TRUE;
        }
      for (int d = (int) in->ndim - 1; d >= 0; d--)
        {
          if (++idx[d] < in->shape[d])
            break;
          idx[d] = 0;
        }
    }
  for (gint64 o = 0; o < ts_tensor_numel (out); o++)
    {
      store_d (out->dtype, ts_tensor_data (out) + o * ts_dtype_size (out->dtype), best[o]);
      if (ind != NULL)
        ((gint64 *) ts_tensor_data (ind))[o] = arg[o];
    }
  g_free (best);
  g_free (arg);
  g_free (seen);
}

TsTensor *
ts_ops_max (TsTensor  *self,
            gboolean   is_min,
            GError   **error)
{
  ReducePlan plan;
  guint ndim;
  gint64 shape[TS_MAX_DIMS];
  TsTensor *out;
  Job *job;

  if (ts_tensor_numel (self) == 0)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "%s(): Expected reduction dim to be specified for input.numel() == 0. "
                   "Specify the reduction dim with the 'dim' argument.", is_min ? "min" : "max");
      return NULL;
    }
  if (!reduce_shape (self, NULL, 0, FALSE, &plan, &ndim, shape, error))
    return NULL;
  out = ts_tensor_new_empty (ts_tensor_get_device (self), self->dtype, 0, shape, FALSE, error);
  if (out == NULL)
    return NULL;
  job = job_new (reduce_max_job);
  job->op = is_min;
  job_set (job, 0, out);
  job_set (job, 1, self);
  job->extra = g_memdup2 (&plan, sizeof plan);
  if (!dispatch (job, ts_tensor_get_device (self), is_min ? "aten::min" : "aten::max",
            ts_tensor_numel (self), ts_tensor_nbytes (self), error))
    {
      ts_tensor_unref (out);
      return NULL;
    }
  return out;
}

gboolean
ts_ops_max_dim (TsTensor   *self,
                int         dim,
                gboolean    keepdim,
                gboolean    is_min,
                TsTensor  **values,
                TsTensor  **indices,
                GError    **error)
{
  ReducePlan plan;
  guint ndim;
  gint64 shape[TS_MAX_DIMS];
  Job *job;

  if (!ts_tensor_wrap_dim (self->ndim, &dim, error))
    return FALSE;
  if (self->ndim > 0 && self->shape[dim] == 0)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_INDEX,
                   "%s(): Expected reduction dim %d to have non-zero size.",
                   is_min ? "min" : "max", dim);
      return FALSE;
    }
  if (!reduce_shape (self, &dim, self->ndim ? 1 : 0, keepdim, &plan, &ndim, shape, error))
    return FALSE;
  *values = ts_tensor_new_empty (ts_tensor_get_device (self), self->dtype, ndim, shape, FALSE, error);
  if (*values == NULL)
    return FALSE;
  *indices = ts_tensor_new_empty (ts_tensor_get_device (self), TS_DTYPE_INT64, ndim, shape, FALSE, error);
  if (*indices == NULL)
    {
      g_clear_pointer (values, ts_tensor_unref);
      return FALSE;
    }
  job = job_new (reduce_max_job);
  job->op = is_min;
  job->n_dims = self->ndim ? 1 : 0;
  job->dims[0] = dim;
  job_set (job, 0, *values);
  job_set (job, 1, self);
  job_set (job, 2, *indices);
  job->out_mask |= 1u << 2;
  job->extra = g_memdup2 (&plan, sizeof plan);
  if (!dispatch (job, ts_tensor_get_device (self), is_min ? "aten::min" : "aten::max",
            ts_tensor_numel (self), ts_tensor_nbytes (self), error))
    {
      g_clear_pointer (values, ts_tensor_unref);
      g_clear_pointer (indices, ts_tensor_unref);
      return FALSE;
    }
  return TRUE;
}

/* Matmul ----------------------------------------------------------------- */

/* t[0] = t[1] @ t[2] with t[1] [m,k] and t[2] [k,n] (views, any strides). */
static void
matmul_job (Job *job)
{
  TsTensor *c = job->t[0], *a = job->t[1], *b = job->t[2];
  gint64 m = a->shape[0], k = a->shape[1], n = b->shape[1];
  gsize ea = ts_dtype_size (a->dtype), eb = ts_dtype_size (b->dtype), ec = ts_dtype_size (c->dtype);

  if (c->dtype == TS_DTYPE_FLOAT32 && a->dtype == TS_DTYPE_FLOAT32 && b->dtype == TS_DTYPE_FLOAT32 &&
      a->strides[1] == 1 && b->strides[1] == 1 && ts_tensor_is_contiguous (c) && m > 0 && n > 0 && k > 0)
    {
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
                   (const float *) ts_tensor_data (a), MAX (a->strides[0], k),
                   (const float *) ts_tensor_data (b), MAX (b->strides[0], n),
                   0.0f, (float *) ts_tensor_data (c), n);
      return;
    }
  if (c->dtype == TS_DTYPE_FLOAT64 && a->dtype == TS_DTYPE_FLOAT64 && b->dtype == TS_DTYPE_FLOAT64 &&
      a->strides[1] == 1 && b->strides[1] == 1 && ts_tensor_is_contiguous (c) && m > 0 && n > 0 && k > 0)
    {
      cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0,
                   (const double *) ts_tensor_data (a), MAX (a->strides[0], k),
                   (const double *) ts_tensor_data (b), MAX (b->strides[0], n),
                   0.0, (double *) ts_tensor_data (c), n);
      return;
    }
  for (gint64 i = 0; i < m; i++)
    for (gint64 j = 0; j < n; j++)
      {
        double accd = 0;
        gint64 acci = 0;
        for (gint64 p = 0; p < k; p++)
          {
            const guint8 *pa = ts_tensor_data (a) + (i * a->strides[0] + p * a->strides[1]) * ea;
            const guint8 *pb = ts_tensor_data (b) + (p * b->strides[0] + j * b->strides[1]) * eb;
            if (ts_dtype_is_floating (c->dtype))
              accd += load_d (a->dtype, pa) * load_d (b->dtype, pb);
            else
              acci += load_i (a->dtype, pa) * load_i (b->dtype, pb);
          }
        if (ts_dtype_is_floating (c->dtype))
          store_d (c->dtype, ts_tensor_data (c) + (i * n + j) * ec, accd);
        else
          ts_dtype_store_int (c->dtype, ts_tensor_data (c) + (i * n + j) * ec, acci);
      }
}

TsTensor *
ts_ops_matmul (TsTensor  *a,
               TsTensor  *b,
               GError   **error)
{
  TsTensor *operands[2] = { a, b };
  TsDevice device;
  g_autoptr(TsTensor) a2 = NULL;
  g_autoptr(TsTensor) b2 = NULL;
  g_autoptr(TsTensor) out2 = NULL;
  TsTensor *out;
  gint64 shape[2];
  guint out_ndim;
  Job *job;

  if (!common_device (operands, 2, &device, error))
    return NULL;
  if (a->ndim == 0 || b->ndim == 0)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "both arguments to matmul need to be at least 1D, but they are %uD and %uD",
                   a->ndim, b->ndim);
      return NULL;
    }
  if (a->ndim > 2 || b->ndim > 2)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_NOT_IMPLEMENTED,
                           "batched matmul is not supported yet");
      return NULL;
    }
  if (a->dtype != b->dtype)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "expected m1 and m2 to have the same dtype, but got: %s != %s",
                   ts_dtype_name (a->dtype) + 6, ts_dtype_name (b->dtype) + 6);
      return NULL;
    }

  a2 = a->ndim == 1 ? ts_tensor_unsqueeze (a, 0, NULL) : ts_tensor_ref (a);
  b2 = b->ndim == 1 ? ts_tensor_unsqueeze (b, 1, NULL) : ts_tensor_ref (b);
  if (a2->shape[1] != b2->shape[0])
    {
      if (a->ndim == 1 && b->ndim == 1)
        g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                     "inconsistent tensor size, expected tensor [%" G_GINT64_FORMAT "] and src [%"
                     G_GINT64_FORMAT "] to have the same number of elements, but got %"
                     G_GINT64_FORMAT " and %" G_GINT64_FORMAT " elements respectively",
                     a->shape[0], b->shape[0], a->shape[0], b->shape[0]);
      else
        g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                     "mat1 and mat2 shapes cannot be multiplied (%" G_GINT64_FORMAT "x%"
                     G_GINT64_FORMAT " and %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT ")",
                     a2->shape[0], a2->shape[1], b2->shape[0], b2->shape[1]);
      return NULL;
    }

  shape[0] = a2->shape[0];
  shape[1] = b2->shape[1];
  out2 = ts_tensor_new_empty (device, a->dtype, 2, shape, FALSE, error);
  if (out2 == NULL)
    return NULL;

  job = job_new (matmul_job);
  /* cuBLAS-like 128x128 output tiles, 256 threads each */
  job->block = 256;
  job->grid = (guint32) MAX (((shape[0] + 127) / 128) * ((shape[1] + 127) / 128), 1);
  job_set (job, 0, out2);
  job_set (job, 1, a2);
  job_set (job, 2, b2);
  if (!dispatch (job, device, "aten::mm", 2 * (guint64) shape[0] * shape[1] * a2->shape[1],
            ts_tensor_nbytes (a) + ts_tensor_nbytes (b) + ts_tensor_nbytes (out2), error))
    return NULL;

  /* drop the dims the 1-D operands gained */
  out_ndim = 0;
  if (a->ndim == 2)
    shape[out_ndim++] = a2->shape[0];
  if (b->ndim == 2)
    shape[out_ndim++] = b2->shape[1];
  out = ts_tensor_new_view (out2->storage, out2->dtype, out_ndim, shape, NULL, 0);
  return out;
}

/* Indexing --------------------------------------------------------------- */

/* view of t with dim fixed at index, on the stack (no references) */
static void
select_view (const TsTensor *t,
             int             dim,
             gint64          index,
             TsTensor       *out)
{
  guint j = 0;

  *out = *t;
  out->ndim = t->ndim ? t->ndim - 1 : 0;
  out->offset = t->offset + (t->ndim ? index * t->strides[dim] : 0);
  for (guint i = 0; i < t->ndim; i++)
    if ((int) i != dim)
      {
        out->shape[j] = t->shape[i];
        out->strides[j] = t->strides[i];
        j++;
      }
}

static void
index_select_job (Job *job)
{
  TsTensor *out = job->t[0], *in = job->t[1], *index = job->t[2];
  int dim = job->dims[0];
  gint64 n = ts_tensor_numel (index);

  for (gint64 i = 0; i < n; i++)
    {
      gint64 k = ts_tensor_get_int (index, i);
      Job sub = { 0 };
      TsTensor src, dst;

      if (k < 0 || k >= (in->ndim ? in->shape[dim] : 1))
        {
          /* only device jobs get here: the CPU checks up front */
          ts_device_assert_index_select (i, n, ts_tensor_numel (out) / MAX (n, 1));
          job->fault = TS_DEVICE_ERROR_ASSERT;
          continue;
        }
      select_view (in, dim, k, &src);
      select_view (out, dim, i, &dst);
      sub.t[0] = &dst;
      sub.t[1] = &src;
      copy_job (&sub);
    }
}

TsTensor *
ts_ops_index_select (TsTensor  *self,
                     int        dim,
                     TsTensor  *index,
                     GError   **error)
{
  TsTensor *operands[2] = { self, index };
  TsDevice device;
  gint64 shape[TS_MAX_DIMS];
  g_autoptr(TsTensor) host_index = NULL;
  TsTensor *out;
  Job *job;

  if (!common_device (operands, 2, &device, error))
    return NULL;
  if (index->dtype != TS_DTYPE_INT64 && index->dtype != TS_DTYPE_INT32)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "index_select(): Expected dtype int32 or int64 for index");
      return NULL;
    }
  if (index->ndim > 1)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_INDEX,
                           "index_select(): Index is supposed to be a vector");
      return NULL;
    }
  if (!ts_tensor_wrap_dim (self->ndim, &dim, error))
    return NULL;
  /* bounds are checked up front, as the CPU kernel does; a CUDA kernel
   * finds out on the device (a device-side assert, reported later) */
  if (device.type == TS_DEVICE_CPU)
    host_index = ts_ops_to_host (index, error);
  if (device.type == TS_DEVICE_CPU && host_index == NULL)
    return NULL;
  for (gint64 i = 0; host_index != NULL && i < ts_tensor_numel (host_index); i++)
    {
      gint64 k = ts_tensor_get_int (host_index, i);
      if (k < 0 || k >= (self->ndim ? self->shape[dim] : 1))
        {
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_INDEX,
                       "index out of range in self");
          return NULL;
        }
    }
  memcpy (shape, self->shape, self->ndim * sizeof (gint64));
  if (self->ndim > 0)
    shape[dim] = ts_tensor_numel (index);
  out = ts_tensor_new_empty (device, self->dtype, self->ndim, shape, FALSE, error);
  if (out == NULL)
    return NULL;
  job = job_new (index_select_job);
  job->dims[0] = dim;
  job_set (job, 0, out);
  job_set (job, 1, self);
  job_set (job, 2, index);
  if (!dispatch (job, device, "aten::index_select", 0, 2 * ts_tensor_nbytes (out), error))
    {
      ts_tensor_unref (out);
      return NULL;
    }
  return out;
}

gboolean
ts_ops_equal (TsTensor  *a,
              TsTensor  *b,
              gboolean  *result,
              GError   **error)
{
  TsTensor *operands[2] = { a, b };
  TsDevice device;
  g_autoptr(TsTensor) eq = NULL;
  g_autoptr(TsTensor) host = NULL;
  gint64 n;

  if (!common_device (operands, 2, &device, error))
    return FALSE;
  if (a->ndim != b->ndim || memcmp (a->shape, b->shape, a->ndim * sizeof (gint64)) != 0)
    {
      *result = FALSE;
      return TRUE;
    }
  eq = ts_ops_binary (TS_BINARY_EQ, a, b, NULL, FALSE, NULL, error);
  if (eq == NULL)
    return FALSE;
  host = ts_ops_to_host (eq, error);
  if (host == NULL)
    return FALSE;
  n = ts_tensor_numel (host);
  *result = TRUE;
  for (gint64 i = 0; i < n; i++)
    if (!ts_tensor_get_int (host, i))
      {
        *result = FALSE;
        break;
      }
  return TRUE;
}

static void
arange_job (Job *job)
{
  TsTensor *out = job->t[0];
  gint64 n = ts_tensor_numel (out);
  gsize esize = ts_dtype_size (out->dtype);

  for (gint64 i = 0; i < n; i++)
    {
      if (ts_dtype_is_floating (out->dtype))
        store_d (out->dtype, ts_tensor_data (out) + i * esize, job->p0 + (double) i * job->p1);
      else
        ts_dtype_store_int (out->dtype, ts_tensor_data (out) + i * esize,
                            (gint64) job->p0 + i * (gint64) job->p1);
    }
}

TsTensor *
ts_ops_arange (double     start,
               double     end,
               double     step,
               TsDType    dtype,
               TsDevice   device,
               GError   **error)
{
  gint64 n;
  TsTensor *out;
  Job *job;

  if (step == 0)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "step must be nonzero");
      return NULL;
    }
  if ((step > 0 && start > end) || (step < 0 && start < end))
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "upper bound and larger bound inconsistent with step sign");
      return NULL;
    }
  n = (gint64) ceil ((end - start) / step);
  out = ts_tensor_new_empty (device, dtype, 1, &n, FALSE, error);
  if (out == NULL)
    return NULL;
  job = job_new (arange_job);
  job->p0 = start;
  job->p1 = step;
  job_set (job, 0, out);
  if (!dispatch (job, device, "aten::arange", n, ts_tensor_nbytes (out), error))
    {
      ts_tensor_unref (out);
      return NULL;
    }
  return out;
}

/* Random numbers ----------------------------------------------------------- */

typedef struct
{
  gboolean          inited;
  guint64           initial_seed;
  TsPhiloxGenerator philox;
} CudaGen;

static CudaGen cuda_gens[MAX_DEVICES];
static GRand *cpu_rand;
static guint64 cpu_seed = TS_PHILOX_DEFAULT_SEED;

static CudaGen *
cuda_gen (int device)
{
  CudaGen *g = &cuda_gens[device];

  if (!g->inited)
    {
      g->inited = TRUE;
      g->initial_seed = TS_PHILOX_DEFAULT_SEED;
      ts_philox_generator_init (&g->philox, TS_PHILOX_DEFAULT_SEED);
    }
  return g;
}

static GRand *
cpu_gen (void)
{
  if (cpu_rand == NULL)
    cpu_rand = g_rand_new_with_seed ((guint32) cpu_seed);
  return cpu_rand;
}

void
ts_rng_manual_seed (int     device,
                    guint64 seed)
{
  if (device < 0)
    {
      cpu_seed = seed;
      if (cpu_rand != NULL)
        g_rand_set_seed (cpu_rand, (guint32) seed);
      return;
    }
  g_return_if_fail (device < MAX_DEVICES);
  cuda_gen (device)->initial_seed = seed;
  ts_philox_generator_init (&cuda_gen (device)->philox, seed);
}

guint64
ts_rng_initial_seed (int device)
{
  if (device < 0)
    return cpu_seed;
  return cuda_gen (device)->initial_seed;
}

guint64
ts_rng_seed (int device)
{
  /* a non-deterministic seed, as torch.seed() draws one */
  guint64 seed = ((guint64) g_random_int () << 32 | g_random_int ()) & G_GUINT64_CONSTANT (0x1fffffffffffff);

  ts_rng_manual_seed (device, seed);
  return seed;
}

GBytes *
ts_rng_get_state (int device)
{
  guint8 state[TS_PHILOX_STATE_SIZE];

  if (device < 0)
    {
      memcpy (state, &cpu_seed, 8);
      memset (state + 8, 0, 8);
      return g_bytes_new (state, sizeof state);
    }
  ts_philox_generator_get_state (&cuda_gen (device)->philox, state);
  return g_bytes_new (state, sizeof state);
}

gboolean
ts_rng_set_state (int       device,
                  GBytes   *state,
                  GError  **error)
{
  gsize n;
  const guint8 *data = g_bytes_get_data (state, &n);

  if (device < 0)
    {
      if (n < 8)
        {
          g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                               "Expected either a THGeneratorState of size 5056 or a "
                               "THGeneratorStateNew of size 5048 but found the input RNG "
                               "state size to be 16");
          return FALSE;
        }
      memcpy (&cpu_seed, data, 8);
      g_rand_set_seed (cpu_gen (), (guint32) cpu_seed);
      return TRUE;
    }
  if (!ts_philox_generator_set_state (&cuda_gen (device)->philox, data, n, error))
    {
      /* surface it as the RuntimeError PyTorch raises */
      if (error && *error)
        {
          (*error)->domain = TS_TENSOR_ERROR;
          (*error)->code = TS_TENSOR_ERROR_RUNTIME;
        }
      return FALSE;
    }
  cuda_gen (device)->initial_seed = cuda_gen (device)->philox.seed;
  return TRUE;
}

static void
store_random (TsTensor *out,
              gint64    i,
              double    v)
{
  gint64 off = element_offset (out, i);

  store_d (out->dtype, out->storage->data + off * ts_dtype_size (out->dtype), v);
}

/* PyTorch's CUDA distribution kernels: thread t of T draws block after
 * block from subsequence t; lane u of call k goes to element k*T*U + u*T + t. */
static void
cuda_random_job (Job *job)
{
  TsTensor *out = job->t[0];
  gint64 n = ts_tensor_numel (out);
  guint64 threads = (guint64) job->plan.block_size * job->plan.grid_size;
  guint unroll = job->plan.unroll;
  gboolean normal = job->op == 0;

  for (guint64 t = 0; t < threads && (gint64) t < n; t++)
    {
      TsPhiloxState state;

      ts_philox_state_init (&state, job->seed, t, job->offset);
      for (guint64 base = 0; (gint64) (base + t) < n; base += threads * unroll)
        {
          double vals[4];

          if (unroll == 4)
            {
              float f[4];
              if (normal)
                ts_philox_normal4 (&state, f);
              else
                ts_philox_uniform4 (&state, f);
              for (int u = 0; u < 4; u++)
                vals[u] = f[u];
            }
          else
            {
              if (normal)
                ts_philox_normal2_double (&state, vals);
              else
                ts_philox_uniform2_double (&state, vals);
            }
          for (guint u = 0; u < unroll; u++)
            {
              gint64 i = base + u * threads + t;
              double v = vals[u];

              if (i >= n)
                continue;
              if (normal)
                v = v * job->p1 + job->p0;
              else
                {
                  /* curand's (0, 1] becomes [from, to): 1 maps to from */
                  if (v == 1.0)
                    v = 0.0;
                  v = v * (job->p1 - job->p0) + job->p0;
                }
              store_random (out, i, v);
            }
        }
    }
}

static gboolean
random_fill (TsTensor  *self,
             gboolean   normal,
             double     p0,
             double     p1,
             GError   **error)
{
  gint64 n = ts_tensor_numel (self);

  if (!ts_dtype_is_floating (self->dtype))
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "\"%s_kernel_cpu\" not implemented for '%s'",
                   normal ? "normal" : "uniform", dtype_title (self->dtype));
      return FALSE;
    }
  if (normal && p1 < 0)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "normal expects std >= 0.0, but found std %g", p1);
      return FALSE;
    }
  if (!normal && p0 > p1)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "uniform_ expects to return a [from, to) range, but found from=%g > to=%g",
                   p0, p1);
      return FALSE;
    }

  if (ts_tensor_is_cuda (self))
    {
      int device = ts_tensor_get_device (self).index;
      const TsGpuProfile *profile = ts_session_get_profile (device);
      Job *job = job_new (cuda_random_job);

      job->op = normal ? 0 : 1;
      job->p0 = p0;
      job->p1 = p1;
      ts_philox_launch_plan (n, self->dtype == TS_DTYPE_FLOAT64 ? 2 : 4,
                             profile->sm_count, profile->max_threads_per_sm, &job->plan);
      job->grid = job->plan.grid_size;
      job->block = job->plan.block_size;
      job->seed = cuda_gen (device)->philox.seed;
      job->offset = ts_philox_generator_reserve (&cuda_gen (device)->philox,
                                                 job->plan.offset_increment);
      job_set (job, 0, self);
      if (!dispatch (job, ts_tensor_get_device (self), normal ? "aten::normal_" : "aten::uniform_",
                n * 20, ts_tensor_nbytes (self), error))
        return FALSE;
      return TRUE;
    }

  for (gint64 i = 0; i < n; i++)
    {
      double v;
      if (normal)
        {
          /* Box-Muller over the CPU generator */
          double u1 = 1.0 - g_rand_double (cpu_gen ());
          double u2 = g_rand_double (cpu_gen ());
          v = sqrt (-2.0 * log (u1)) * cos (2 * G_PI * u2) * p1 + p0;
        }
      else
        v = g_rand_double (cpu_gen ()) * (p1 - p0) + p0;
      store_random (self, i, v);
    }
  return TRUE;
}

gboolean
ts_ops_normal_ (TsTensor  *self,
                double     mean,
                double     std,
                GError   **error)
{
  return random_fill (self, TRUE, mean, std, error);
}

gboolean
ts_ops_uniform_ (TsTensor  *self,
                 double     from,
                 double     to,
                 GError   **error)
{
  return random_fill (self, FALSE, from, to, error);
}
