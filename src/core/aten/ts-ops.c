/* ts-ops.c: operations on tensors, dispatched by device
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every op is split in two: the host part (checks, promotion, output
 * allocation, the launch) and a Job that computes over raw strided bytes.
 * On the CPU the job runs at once; on a device it is the work item's
 * on_start callback, so it reads its inputs when the device reaches it.
 * Jobs compute through src/kernels/cpu (ts-cpu-kernels.h) and take their
 * modelled flops and bytes from its ts_cost_* functions: this file holds
 * PyTorch's rules, never a loop over elements.
 *
 * A job carries its op's descriptor (ts-op-table.h, one line of
 * src/kernels/ts-op-list.def per op): the name of its launch, its family
 * (which CPU kernel entry and device function run it), its kernel and
 * CUDA op codes, its sanitizer schemas.
 */

#include "config.h"

#include <string.h>

#include "ts-autocast.h"
#include "ts-autograd-formulas.h"
#include "ts-cublas-workspace.h"
#include "ts-device-assert.h"
#include "ts-host-data.h"
#include "ts-op-access.h"
#include "ts-op-table.h"
#include "ts-ops-complex.h"
#include "ts-ops.h"
#include "ts-ops-private.h"
#include "ts-mt19937.h"
#include "ts-philox.h"
#include "ts-session.h"

#define MAX_DEVICES 64

typedef struct _Job Job;
/* Errors are kernel errors (TS_KERNEL_ERROR); dispatch() converts them. */
typedef gboolean (*JobFunc) (Job      *job,
                             GError  **error);

/* A job holds its tensors by value (metadata and the storage's pointers),
 * not by reference: as in PyTorch, freeing a tensor while a kernel that
 * uses it is queued returns its block to the caching allocator at once;
 * the stream order (or record_stream) is what keeps the memory valid, and
 * device memory itself stays mapped until its segment is released, which
 * synchronizes the device first, as cudaFree does. */
/* Small outputs of device jobs stage here rather than in a malloc'd copy
 * (a loop of tiny ops would otherwise allocate twice per op). */
#define JOB_INLINE_STAGING 256
#define JOB_N_TEMPS 3
/* A job's tensors: four for most families, a fifth for the loss family's
 * forward (two outputs, input, target and the class weights), a sixth for
 * layer norm's (y, mean and rstd, input, weight and bias);
 * ts_op_job_unpack hands out the first four (TS_OP_JOB_N_VIEWS). */
#define JOB_N_SLOTS 6

struct _Job
{
  const TsOpDesc *desc;  /* the op: its family's kernel runs the job */
  TsTensor  *t[JOB_N_SLOTS];       /* t[0] is the output; point into tv */
  TsTensor  *caller[JOB_N_SLOTS];  /* the caller's tensors behind t[]: autograd's */
  TsScalar   scalar;
  guint8     scalar_bool; /* the scalar as a bool element */
  TsDType    compute;    /* the promoted common dtype of the operands */
  guint64    dim_mask;   /* reductions: bit d reduces dim d; 0 all */
  int        dims[1];
  double     p0, p1;
  guint64    seed, offset;
  const guint64 *graph_rng; /* captured random job: its generator's [seed, offset] at replay */
  TsPhiloxLaunch plan;
  TsCpuGenerator *cpu_gen; /* CPU random fills draw from it in order */
  guint      out_mask;   /* which t[] are written: bit 0 always */
  guint      n_slots;    /* t[] past this are unset: the loops over slots stop here */
  gboolean   elementwise; /* ts_op_job_set_elementwise */
  guint32    grid;       /* launch shape; 0: elementwise over t[0] */
  guint32    block;
  TsPrecision precision; /* matmuls: FP16 or TF32 tensor-core math */
  guint8    *staging[JOB_N_SLOTS]; /* device jobs: outputs land here first */
  guint8    *real[JOB_N_SLOTS];
  gint64     span_min[JOB_N_SLOTS];
  gsize      span_bytes[JOB_N_SLOTS];
  TsDeviceError fault;   /* device jobs: set by a kernel that faults */
  gboolean   failed;     /* the kernel failed: its staging copies never land */
  gboolean   has_alpha;  /* add/sub: out = a op p0 * b, one kernel (ts_ops_binary_alpha) */
  gboolean   external;   /* an operand views memory it does not own */
  gsize      inline_used;
  guint64    charged;    /* host-data budget taken by the staging copies */
  gboolean   host_values; /* --no-data: computed all the same (job_settle_values) */
  gboolean   blas_lt;    /* the BLAS column's LT: this call takes the Lt path */
  /* A real GPU: device temporaries (casts, results in another dtype) the
   * host part allocated before the launch, in device_temp_sizes' order. */
  guint64    temp[JOB_N_TEMPS];
  /* a family's arguments beyond the above (convolution's int[]s) */
  gint64     params[TS_OP_JOB_N_PARAMS];
  /* Not zeroed by job_new: filled by job_set for the t[] in use. */
  TsTensor   tv[JOB_N_SLOTS];
  TsStorage  sv[JOB_N_SLOTS];
  guint8     inline_staging[JOB_INLINE_STAGING] __attribute__ ((aligned (16)));
};

/* The CPU kernel entry of the job's op family (the table at the end). */
static gboolean job_run (Job     *job,
                         GError **error);

/* A Job is too big for malloc's per-thread cache, and a loop of small ops
 * frees one job (when the device finishes it) for each it allocates; a
 * multi-tensor launch frees hundreds at once (an optimizer step's): keep
 * freed ones for the next ops. Global (not thread-local) so that they are
 * always reachable and never reported as leaks. */
#define N_SPARE_JOBS 2048
static GMutex spare_lock;
static Job *spare_jobs[N_SPARE_JOBS];
static guint n_spare_jobs;
/* The loop of small ops frees and takes one job at a time: one slot taken
 * and refilled with an atomic exchange saves it the lock. */
static Job *spare_job;

/* The staging copies go as soon as the results have landed: the work
 * item itself may be kept a while longer. */
static void
job_free_staging (Job *job)
{
  for (guint i = 0; i < G_N_ELEMENTS (job->staging); i++)
    {
      /* most slots are empty: skip the call to g_free (NULL) */
      if (job->staging[i] != NULL &&
          (job->staging[i] < job->inline_staging ||
           job->staging[i] >= job->inline_staging + JOB_INLINE_STAGING))
        g_free (job->staging[i]);
      job->staging[i] = NULL;
    }
  if (job->charged != 0)
    ts_host_data_release (job->charged);
  job->charged = 0;
}

static void
job_free (gpointer data)
{
  Job *job = data;

  job_free_staging (job);
  if (g_atomic_pointer_compare_and_exchange (&spare_job, NULL, job))
    return;
  g_mutex_lock (&spare_lock);
  if (n_spare_jobs < N_SPARE_JOBS)
    {
      spare_jobs[n_spare_jobs++] = job;
      job = NULL;
    }
  g_mutex_unlock (&spare_lock);
  g_free (job);
}

/* CUDA graphs: a captured job runs again at each replay, each time as
 * a fresh copy of the job as it was launched. */
static gpointer
job_clone (gpointer data)
{
  Job *job = g_memdup2 (data, sizeof (Job));

  for (guint i = 0; i < job->n_slots; i++)
    {
      if (job->t[i] != NULL)
        {
          job->t[i] = &job->tv[i];
          job->tv[i].storage = &job->sv[i];
        }
      job->staging[i] = NULL;
    }
  job->inline_used = 0;
  job->charged = 0;  /* a replay stages within what is left */
  job->fault = TS_DEVICE_ERROR_NONE;
  job->failed = FALSE;
  /* graph-safe RNG: offsets captured relative to the replay's */
  if (job->graph_rng != NULL)
    {
      job->seed = job->graph_rng[0];
      job->offset += job->graph_rng[1];
    }
  return job;
}

/* The elements a strided tensor touches: *n_bytes from element
 * (returned) offset + the most negative stride extent. */
static gint64
tensor_span (const TsTensor *t,
             gsize          *n_bytes)
{
  gint64 lo = 0, hi = 0;

  for (guint d = 0; d < t->ndim; d++)
    {
      gint64 extent = (t->shape[d] - 1) * t->strides[d];
      if (extent < 0)
        lo += extent;
      else
        hi += extent;
    }
  *n_bytes = (gsize) (hi - lo + 1) * ts_dtype_size (t->dtype);
  return t->offset + lo;
}

/* Memory that a tensor views without owning it (torch.as_tensor over
 * __cuda_array_interface__) may have been freed, and its segment released,
 * since the launch. The kernel finds out when it starts, as a GPU's MMU
 * would, and faults instead of touching host memory: each operand's whole
 * byte span is looked up once. Blocks of the caching allocator need no
 * check: a segment is released only after its device has synchronized.
 * Inside a still cached segment, freed bytes stay mapped, as on a GPU. */
static TsDeviceError
job_map_external (Job *job)
{
  for (guint i = 0; i < job->n_slots; i++)
    {
      TsTensor *t = job->t[i];
      gsize esize, n_bytes;
      gint64 lo;
      guint8 *host;

      if (t == NULL || !t->storage->external || ts_tensor_numel (t) == 0)
        continue;
      esize = ts_dtype_size (t->dtype);
      lo = tensor_span (t, &n_bytes);
      if (ts_host_data_no_data ())
        {
          /* the fault all the same, without bytes behind the memory */
          if (lo < 0 || !ts_session_address_valid (t->storage->addr + (guint64) lo * esize, n_bytes))
            return TS_DEVICE_ERROR_ILLEGAL_ADDRESS;
          continue;
        }
      host = lo < 0 ? NULL : ts_session_translate (t->storage->addr + (guint64) lo * esize, n_bytes);
      if (host == NULL)
        return TS_DEVICE_ERROR_ILLEGAL_ADDRESS;
      job->sv[i].data = host - lo * esize;
    }
  return TS_DEVICE_ERROR_NONE;
}

/* A staging copy of output i within the host-data budget. The launch
 * checked that it fitted then (job_check_staging); without room now the
 * kernel fails as a launch out of resources, reported asynchronously. */
static gboolean
job_stage (Job   *job,
           guint  i)
{
  if (!ts_host_data_charge (job->span_bytes[i], NULL))
    return FALSE;
  if ((job->staging[i] = g_try_malloc (job->span_bytes[i])) == NULL)
    {
      ts_host_data_release (job->span_bytes[i]);
      return FALSE;
    }
  job->charged += job->span_bytes[i];
  return TRUE;
}

/* Whether the kernel writes every byte of slot @i's staging copy, which
 * then needs no copy of the old bytes first: the output (slot 0) of a
 * family whose kernel computes each output element (not a scatter, a
 * masked write or an accumulation), dense, with no gaps for the old bytes
 * to show through. In-place forms read self from slot 1, never from the
 * staging copy. Saves a copy of every result (a 1 MiB activation's). */
static gboolean
job_overwrites (const Job *job,
                guint      i)
{
  switch (job->desc->family)
    {
    case TS_OP_FAMILY_BINARY:
    case TS_OP_FAMILY_UNARY:
    case TS_OP_FAMILY_FILL:
    case TS_OP_FAMILY_COPY:
    case TS_OP_FAMILY_MATMUL:
    case TS_OP_FAMILY_MV:
    case TS_OP_FAMILY_SOFTMAX:
    case TS_OP_FAMILY_ACT:
    case TS_OP_FAMILY_WHERE:
    case TS_OP_FAMILY_TERNARY:
      return i == 0 && job->span_bytes[0] == (gsize) ts_tensor_numel (job->t[0]) * ts_dtype_size (job->t[0]->dtype);
    default:
      return FALSE;
    }
}

/* Device work reads its inputs when it starts and its results land when it
 * ends: the outputs are computed into staging copies at the start and
 * copied in at the end, so a kernel on another stream that runs in
 * between, unsynchronized, sees the old bytes, as on a GPU. */
static TsDeviceError
job_start (gpointer data)
{
  Job *job = data;

  if (G_UNLIKELY (job->external) && (job->fault = job_map_external (job)) != TS_DEVICE_ERROR_NONE)
    return job->fault;
  for (guint i = 0; i < job->n_slots; i++)
    {
      TsTensor *t = job->t[i];

      if (!(job->out_mask & (1u << i)) || t == NULL || ts_tensor_numel (t) == 0 || t->storage->data == NULL)
        continue;
      job->span_min[i] = tensor_span (t, &job->span_bytes[i]);
      job->real[i] = t->storage->data + job->span_min[i] * ts_dtype_size (t->dtype);
      if (job->span_bytes[i] <= JOB_INLINE_STAGING - job->inline_used)
        {
          job->staging[i] = job->inline_staging + job->inline_used;
          job->inline_used += (job->span_bytes[i] + 15) & ~(gsize) 15;
        }
      else if (!job_stage (job, i))
        return TS_DEVICE_ERROR_LAUNCH_OUT_OF_RESOURCES;  /* the host has no room to stage it */
      if (!job_overwrites (job, i))
        memcpy (job->staging[i], job->real[i], job->span_bytes[i]);
      job->sv[i].data = job->staging[i];
      job->tv[i].offset -= job->span_min[i];
    }
  /* A kernel that fails on the device writes nothing. A fault (a
   * device-side assert) poisons the context; any other failure (integer
   * division by zero) is what a GPU would silently compute wrong: the host
   * already checked everything that needs no data. */
  job->failed = !job_run (job, NULL);
  if (job->failed && job->fault == TS_DEVICE_ERROR_NONE)
    g_debug ("a tensor kernel failed on the device");
  return job->fault;
}

static void
job_finish (gpointer data)
{
  Job *job = data;

  for (guint i = 0; i < job->n_slots; i++)
    if (job->staging[i] != NULL && !job->failed)
      memcpy (job->real[i], job->staging[i], job->span_bytes[i]);
  job_free_staging (job);
}

/* Whether a job's kernel may read and write device memory itself rather
 * than staging copies: families whose kernels write nothing when they
 * fail (no device-side asserts), operands all on the device, and result
 * spans that overlap no other operand, except an elementwise op's
 * identical view in place (job_may_run_in_place). */
static gboolean
job_family_runs_in_place (TsOpFamily family)
{
  switch (family)
    {
    case TS_OP_FAMILY_BINARY: case TS_OP_FAMILY_UNARY: case TS_OP_FAMILY_REDUCE:
    case TS_OP_FAMILY_MAX_DIM: case TS_OP_FAMILY_FILL: case TS_OP_FAMILY_COPY:
    case TS_OP_FAMILY_MATMUL: case TS_OP_FAMILY_SOFTMAX: case TS_OP_FAMILY_WHERE:
    case TS_OP_FAMILY_TERNARY: case TS_OP_FAMILY_MV: case TS_OP_FAMILY_ACT:
    case TS_OP_FAMILY_VAR: case TS_OP_FAMILY_SCAN: case TS_OP_FAMILY_NORM:
    case TS_OP_FAMILY_MASKED_FILL: case TS_OP_FAMILY_POOL: case TS_OP_FAMILY_CONV:
    case TS_OP_FAMILY_SORT: case TS_OP_FAMILY_ARANGE: case TS_OP_FAMILY_REMAP:
      return TRUE;
    default:
      return FALSE;
    }
}

static gboolean
job_family_is_elementwise (TsOpFamily family)
{
  switch (family)
    {
    case TS_OP_FAMILY_BINARY: case TS_OP_FAMILY_UNARY: case TS_OP_FAMILY_FILL:
    case TS_OP_FAMILY_COPY: case TS_OP_FAMILY_WHERE: case TS_OP_FAMILY_TERNARY:
    case TS_OP_FAMILY_ACT: case TS_OP_FAMILY_MASKED_FILL:
      return TRUE;
    default:
      return FALSE;
    }
}

static gboolean
same_view (const TsTensor *a,
           const TsTensor *b)
{
  if (a->storage->data != b->storage->data || a->offset != b->offset ||
      ts_dtype_size (a->dtype) != ts_dtype_size (b->dtype) || a->ndim != b->ndim)
    return FALSE;
  for (guint d = 0; d < a->ndim; d++)
    if (a->shape[d] != b->shape[d] || (a->shape[d] > 1 && a->strides[d] != b->strides[d]))
      return FALSE;
  return TRUE;
}

static gboolean
spans_overlap (const TsTensor *a,
               const TsTensor *b)
{
  gsize na, nb;
  const guint8 *pa, *pb;

  if (a->storage->data == NULL || b->storage->data == NULL ||
      ts_tensor_numel (a) == 0 || ts_tensor_numel (b) == 0)
    return FALSE;
  pa = a->storage->data + tensor_span (a, &na) * ts_dtype_size (a->dtype);
  pb = b->storage->data + tensor_span (b, &nb) * ts_dtype_size (b->dtype);
  return pa < pb + nb && pb < pa + na;
}

static gboolean
job_may_run_in_place (const Job *job)
{
  TsOpFamily family = job->desc->family;

  if (job->external || !job_family_runs_in_place (family))
    return FALSE;
  /* the host may write its own memory (a pinned copy's source) at any
   * time, with no item starting: a copy from or to it reads at its start */
  for (guint i = 0; i < job->n_slots; i++)
    if (job->t[i] != NULL && job->t[i]->storage->device.type != TS_DEVICE_CUDA)
      return FALSE;
  /* device storages are distinct caching-allocator blocks (external
   * memory excluded above): only views of one storage can overlap */
  for (guint i = 0; i < job->n_slots; i++)
    {
      if (!(job->out_mask & (1u << i)) || job->t[i] == NULL)
        continue;
      for (guint j = 0; j < job->n_slots; j++)
        if (j != i && job->t[j] != NULL && job->t[j]->storage->data == job->t[i]->storage->data &&
            !(job_family_is_elementwise (family) && same_view (job->t[i], job->t[j])) &&
            spans_overlap (job->t[i], job->t[j]))
          return FALSE;
    }
  return TRUE;
}

/* The work's on_run: nothing else ran on any device between the item's
 * start and end, so no staging is needed where the results cannot
 * disturb the kernel's own reads; otherwise job_start and job_finish. */
static TsDeviceError
job_run_at_once (gpointer data)
{
  Job *job = data;
  TsDeviceError fault;

  if (job_may_run_in_place (job))
    {
      job->failed = !job_run (job, NULL);
      if (job->failed)
        g_debug ("a tensor kernel failed on the device");
      return job->fault;
    }
  fault = job_start (job);
  if (fault == TS_DEVICE_ERROR_NONE)
    job_finish (job);
  return fault;
}

/* job_set copies TsTensor field by field: a new field must be added there */
G_STATIC_ASSERT (sizeof (TsTensor) == 2 * sizeof (gpointer) + sizeof (TsDType) + sizeof (guint) +
                                      (1 + 2 * TS_MAX_DIMS) * sizeof (gint64));

static void
job_set (Job      *job,
         guint     i,
         TsTensor *t)
{
  TsTensor *copy = &job->tv[i];

  job->n_slots = MAX (job->n_slots, i + 1);
  job->sv[i] = *t->storage;
  /* the tensor's dims only: a whole TsTensor is 288 bytes, and three of
   * them were a tenth of a small op's copying */
  copy->storage = &job->sv[i];
  copy->dtype = t->dtype;
  copy->ndim = t->ndim;
  copy->offset = t->offset;
  copy->autograd_meta = t->autograd_meta;
  ts_dims_copy (copy->shape, t->shape, t->ndim);
  ts_dims_copy (copy->strides, t->strides, t->ndim);
  job->t[i] = &job->tv[i];
  job->caller[i] = t;
  job->external |= t->storage->external;
}

static Job *
job_new (const TsOpDesc *desc)
{
  Job *job = g_atomic_pointer_exchange (&spare_job, NULL);

  if (job == NULL)
    {
      g_mutex_lock (&spare_lock);
      if (n_spare_jobs > 0)
        job = spare_jobs[--n_spare_jobs];
      g_mutex_unlock (&spare_lock);
    }
  if (job == NULL)
    job = g_malloc (sizeof (Job));
  memset (job, 0, G_STRUCT_OFFSET (Job, tv));

  job->desc = desc;
  job->out_mask = 1;
  return job;
}

/* The work item's callbacks: the job computes its results on the CPU as
 * the device reaches it (see job_start, job_run_at_once). */
static void
job_work_callbacks (TsSessionWork *work,
                    Job           *job)
{
  work->run = job_start;
  work->finish = job_finish;
  work->run_at_once = job_run_at_once;
  work->user_data = job;
  work->destroy = job_free;
  work->clone = job_clone;
}

/* Runs job on device (a work item on its current stream, inside an API
 * span named like PyTorch's operator) or at once on the CPU. Takes
 * ownership of the job. */
/* Kernel errors surface as the Python exception PyTorch raises. */
static gboolean
kernel_error (GError **error)
{
  if (error != NULL && *error != NULL && (*error)->domain == TS_KERNEL_ERROR)
    {
      int code = (*error)->code;

      (*error)->domain = TS_TENSOR_ERROR;
      (*error)->code = code == TS_KERNEL_ERROR_INDEX || code == TS_KERNEL_ERROR_DIM
                       ? TS_TENSOR_ERROR_INDEX : TS_TENSOR_ERROR_RUNTIME;
    }
  return FALSE;
}

static int      job_device_run    (gpointer   data,
                                   gpointer   stream);
static gboolean device_temps_new  (Job       *job,
                                   int        device,
                                   TsStreamId stream,
                                   gpointer  *blocks,
                                   GError   **error);
static void     device_temps_free (gpointer  *blocks);
static gboolean dispatch_job (Job           *job,
                              TsDevice       device,
                              TsKernelCost   cost,
                              GError       **error);

static gboolean group_take   (Job           *job,
                              TsKernelCost   cost);
static gboolean group_allows_copy (GError  **error);
/* A differentiable row without a formula (GRAD_TODO) still records its
 * node, here where every op passes: otherwise its output would silently
 * not require grad and gradients would be dropped. Backward through the
 * node fails with PyTorch's "the derivative for ... is not implemented.".
 * The inputs are the floating operands the job reads, and for an in-place
 * row (no functional schema) slot 0 too: its history continues through
 * the node. Rows with a formula record at their call site, which knows
 * the form and what to save. */
static gboolean
records_todo (const TsOpDesc *desc,
              TsTensor       *const *caller)
{
  return desc->differentiable && desc->backward == NULL && !desc->python_formula && caller[0] != NULL;
}

static gboolean
is_inplace (const TsOpDesc *desc)
{
  return desc->functional == NULL && desc->inplace != NULL;
}

static void
record_todo (const TsOpDesc *desc,
             TsTensor       *const *caller,
             guint           out_mask)
{
  TsTensor *inputs[2] = { NULL, NULL };
  guint n = 0;

  if (!records_todo (desc, caller))
    return;
  if (is_inplace (desc))
    inputs[n++] = caller[0];
  for (guint i = 1; i < JOB_N_SLOTS && n < G_N_ELEMENTS (inputs); i++)
    if (caller[i] != NULL && !(out_mask & (1u << i)) && ts_dtype_is_floating (caller[i]->dtype))
      inputs[n++] = caller[i];
  ts_autograd_record_op (desc, TS_OP_GRAD_TENSOR, inputs, n, caller[0], NULL);
}

static gboolean
dispatch (Job           *job,
          TsDevice       device,
          TsKernelCost   cost,
          GError       **error)
{
  const TsOpDesc *desc = job->desc;
  TsTensor *caller[JOB_N_SLOTS];
  guint out_mask = job->out_mask;
  gboolean ok;

  /* the job may be gone once launched */
  memcpy (caller, job->caller, sizeof caller);
  if (!ts_ops_check_complex (desc, job->t, caller, job->n_slots, error))
    {
      job_free (job);
      return FALSE;
    }
  /* as the in-place rows with formulas check at their call sites */
  if (records_todo (desc, caller) && is_inplace (desc) &&
      (!ts_autograd_check_inplace (caller[0], error) || !ts_autograd_check_inplace_view (caller[0], error)))
    {
      job_free (job);
      return FALSE;
    }
  ok = dispatch_job (job, device, cost, error);
  if (ok)
    record_todo (desc, caller, out_mask);
  return ok;
}

/* dispatch for a job that writes @out, a tensor the caller made for it:
 * returns @out, or NULL with @out dropped when the launch failed */
static TsTensor *
dispatch_new (Job           *job,
              TsDevice       device,
              TsKernelCost   cost,
              TsTensor      *out,
              GError       **error)
{
  if (!dispatch (job, device, cost, error))
    {
      ts_tensor_unref (out);
      return NULL;
    }
  return out;
}

/* The staging copies job_start will make must fit the host-data budget
 * now, at the launch, so that running out of host memory is an error
 * here, for the line that launched it. They are charged when made (a
 * queue of kernels does not hold them all at once). */
static gboolean
job_check_staging (Job     *job,
                   GError **error)
{
  /* a real GPU's op without a device kernel stages every device operand
   * (job_run_on_host); the simulator, the outputs */
  gboolean fallback = job->desc->cuda == TS_OP_CUDA_HOST && ts_session_get_device_kernels () != NULL;
  guint64 bytes = 0;

  for (guint i = 0; i < job->n_slots; i++)
    {
      TsTensor *t = job->t[i];
      gsize n = 0;

      if (t == NULL || t->storage->nbytes <= (fallback ? 0 : JOB_INLINE_STAGING) || ts_tensor_numel (t) == 0)
        continue;
      if (fallback ? t->storage->device.type == TS_DEVICE_CUDA
                   : (job->out_mask & (1u << i)) && t->storage->data != NULL)
        tensor_span (t, &n);
      if (n > (fallback ? 0 : JOB_INLINE_STAGING))
        bytes += n;
    }
  return bytes == 0 || ts_host_data_check (bytes, error);
}

/* --no-data: the program's own small CPU values (ts_storage_keep_values:
 * an optimizer's step count, an RNG state) stay exact, so a CPU job whose
 * inputs all have values and whose outputs are this small computes them. */
#define HOST_VALUES_MAX 4096

static gboolean
job_has_host_values (Job      *job,
                     TsDevice  device)
{
  if (device.type != TS_DEVICE_CPU)
    return FALSE;
  for (guint i = 0; i < job->n_slots; i++)
    {
      TsTensor *t = job->t[i];

      if (t == NULL)
        continue;
      if ((job->out_mask & (1u << i)) ? t->storage->nbytes > HOST_VALUES_MAX || job->caller[i] == NULL
                                       : t->storage->data == NULL && ts_tensor_numel (t) > 0)
        return FALSE;
    }
  return TRUE;
}

/* --no-data, at each launch (the caller's tensors are alive): either the
 * job computes its outputs' values (above), or it computes nothing and
 * an output that had values has none from now on, never stale ones. */
static void
job_settle_values (Job      *job,
                   TsDevice  device)
{
  gboolean keep;

  if (!ts_host_data_no_data ())
    return;
  keep = job_has_host_values (job, device);
  for (guint i = 0; keep && i < job->n_slots; i++)
    if ((job->out_mask & (1u << i)) && job->t[i] != NULL)
      {
        keep = ts_storage_keep_values (job->caller[i]->storage, NULL);
        job->sv[i] = *job->caller[i]->storage;
      }
  for (guint i = 0; !keep && i < job->n_slots; i++)
    if ((job->out_mask & (1u << i)) && job->caller[i] != NULL)
      {
        ts_storage_drop_values (job->caller[i]->storage);
        job->sv[i].data = NULL;
      }
  job->host_values = keep;
}

static gboolean
dispatch_job (Job           *job,
              TsDevice       device,
              TsKernelCost   cost,
              GError       **error)
{
  const char *name = job->desc->aten_name;
  TsSessionWork work = { 0 };
  gpointer temps[JOB_N_TEMPS] = { NULL };
  guint64 correlation;
  gboolean ok;

  job_settle_values (job, device);
  if (device.type == TS_DEVICE_CPU)
    {
      ok = job_run (job, error);
      job_free (job);
      return ok || kernel_error (error);
    }
  if (group_take (job, cost))
    return TRUE;

  if (!job_check_staging (job, error))
    {
      job_free (job);
      return FALSE;
    }
  ts_session_charge_dispatch (device.index);
  work.name = name;
  work.stream = ts_session_current_stream (device.index);
  /* A GEMM with no product to compute (an empty result, or k = 0) is
   * short-circuited before PyTorch takes a cuBLAS handle. */
  if (job->desc->blas != TS_OP_BLAS_NONE && cost.flops > 0 &&
      !ts_cublas_workspace_take (device.index, work.stream, job->blas_lt, error))
    {
      job_free (job);
      return FALSE;
    }
  work.flops = (guint64) cost.flops;
  work.bytes = (guint64) cost.bytes;
  work.precision = job->precision;
  /* PyTorch's vectorized elementwise kernels: 128 threads, 4 elements each */
  work.block = job->block ? job->block : 128;
  work.grid = job->grid ? job->grid
                        : (guint32) CLAMP ((ts_tensor_numel (job->t[0]) + 511) / 512, 1, G_MAXINT32);
  job_work_callbacks (&work, job);
  /* A real GPU: the job enqueues itself on the stream when submitted. Its
   * temporaries come from the caching allocator on that stream now, and
   * go back to it once the launch has enqueued the work that uses them:
   * a later allocation on the stream is ordered after that work. */
  if (ts_session_get_device_kernels () != NULL)
    {
      work.device_run = job_device_run;
      if (!device_temps_new (job, device.index, work.stream, temps, error))
        {
          job_free (job);
          return FALSE;
        }
    }
  /* the sanitizer sees the op's tensors before the job may be gone */
  /* without it, the span and the launch are one runtime call */
  if (!ts_op_access_begin (job->desc, job->t, job->n_slots, job->out_mask))
    {
      ok = ts_session_launch_op (device.index, &work, error);
      device_temps_free (temps);
      if (ok)
        ts_op_access_trace (work.stream, ts_session_get_last_correlation ());
      return ok;
    }
  correlation = ts_session_api_begin (name, device.index);
  ok = ts_session_launch (&work, error);
  device_temps_free (temps);
  if (ok)
    ts_op_access_trace (work.stream, correlation);
  ok = ts_op_access_end (work.stream, correlation, ok, error);
  ts_session_api_end (correlation);
  return ok;
}

/* Views for the kernels ------------------------------------------------ */

/* Called several times per op: copies the used dims only (what
 * ts_view_init does, without its argument checks and clearing). */
static void
tensor_view (const TsTensor *t,
             TsView         *view)
{
  view->dtype = t->dtype;
  view->ndim = t->ndim;
  view->offset = t->offset;
  view->data = t->storage->data;
  ts_dims_copy (view->shape, t->shape, t->ndim);
  ts_dims_copy (view->strides, t->strides, t->ndim);
}

/* The views of a job's first two or three tensor slots (@v2 NULL: two),
 * what most jobs hand their kernel. */
static void
job_views (Job    *job,
           TsView *v0,
           TsView *v1,
           TsView *v2)
{
  tensor_view (job->t[0], v0);
  tensor_view (job->t[1], v1);
  if (v2 != NULL)
    tensor_view (job->t[2], v2);
}

/* The view of a job's operand k: its tensor, or the Python scalar. */
static void
operand_view (Job    *job,
              guint   k,
              TsView *view)
{
  if (job->t[k] != NULL)
    tensor_view (job->t[k], view);
  else if (job->scalar.kind == TS_DTYPE_FLOAT64)
    ts_view_init_scalar (view, TS_DTYPE_FLOAT64, &job->scalar.value);
  else if (job->scalar.kind == TS_DTYPE_BOOL)
    ts_view_init_scalar (view, TS_DTYPE_BOOL, &job->scalar_bool);
  else
    ts_view_init_scalar (view, TS_DTYPE_INT64, &job->scalar.ivalue);
}

/* For the cost model: a tensor's view, or no device bytes at all for a
 * scalar, which travels in the kernel's arguments. */
static void
cost_view (const TsTensor *t,
           TsDType         dtype,
           TsView         *view)
{
  static const gint64 empty = 0;

  if (t != NULL)
    tensor_view (t, view);
  else
    ts_view_init (view, dtype, NULL, 1, &empty, NULL, 0);
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

/* The element at linear_index, in buf when it lives on a real GPU (device
 * storage without host bytes: read after synchronizing, as item() does). */
static gconstpointer
element_ptr (const TsTensor *self,
             gint64          linear_index,
             guint8         *buf)
{
  TsView view;

  tensor_view (self, &view);
  if (self->storage->data == NULL && self->storage->addr != 0)
    {
      g_autoptr(GError) error = NULL;

      view.data = GSIZE_TO_POINTER (self->storage->addr);
      if (!ts_session_read_device (GPOINTER_TO_SIZE (ts_view_linear_ptr (&view, linear_index)),
                                   ts_dtype_size (self->dtype), buf, &error))
        {
          g_warning ("Reading a device tensor's element: %s", error->message);
          memset (buf, 0, 8);
        }
      return buf;
    }
  return ts_view_linear_ptr (&view, linear_index);
}

double
ts_tensor_get_double (const TsTensor *self,
                      gint64          linear_index)
{
  guint8 buf[16] __attribute__ ((aligned (8)));   /* complex128 too */

  return ts_dtype_load (self->dtype, element_ptr (self, linear_index, buf));
}

gint64
ts_tensor_get_int (const TsTensor *self,
                   gint64          linear_index)
{
  guint8 buf[16] __attribute__ ((aligned (8)));   /* complex128 too */

  return ts_dtype_load_int (self->dtype, element_ptr (self, linear_index, buf));
}

/* Elementwise binary ----------------------------------------------------- */

/* Whether a job's output and its tensor inputs (slots 1 .. @n - 1) share
 * one shape and one dense layout that is not the contiguous one (a
 * channels-last or transposed tensor and its elementwise result): they
 * then run as one run of elements, as TensorIterator's fast setup
 * coalesces them, instead of a strided walk. */
static gboolean
job_one_dense_layout (const Job *job,
                      guint      n)
{
  const TsTensor *out = job->t[0];

  if (out->ndim < 2 || ts_tensor_is_contiguous (out) || !ts_tensor_is_non_overlapping_and_dense (out))
    return FALSE;
  for (guint k = 1; k < n; k++)
    {
      const TsTensor *t = job->t[k];

      if (t != NULL && (t->ndim != out->ndim || !ts_dims_equal (t->shape, out->shape, out->ndim) ||
                        !ts_dims_equal (t->strides, out->strides, out->ndim)))
        return FALSE;
    }
  return TRUE;
}

/* The views of a job's first @n slots, each of them flattened into the
 * one run of its elements when job_one_dense_layout says so (numbers and
 * empty slots, 0-dim, stay as they are) */
static void
job_flatten_one_layout (const Job  *job,
                        TsView    **views,
                        guint       n)
{
  if (!job_one_dense_layout (job, n))
    return;
  for (guint i = 0; i < n; i++)
    if (views[i]->ndim > 0)
      {
        views[i]->shape[0] = ts_view_numel (views[i]);
        views[i]->strides[0] = 1;
        views[i]->ndim = 1;
      }
}

static gboolean
binary_job (Job     *job,
            GError **error)
{
  TsView out, a, b;

  tensor_view (job->t[0], &out);
  operand_view (job, 1, &a);
  operand_view (job, 2, &b);
  job_flatten_one_layout (job, (TsView *[]) { &out, &a, &b }, 3);
  /* ts_ops_binary_alpha: PyTorch's one kernel, a op alpha * b */
  if (job->has_alpha)
    return ts_cpu_binary_alpha (job->desc->kernel, &a, &b, job->p0, &out, error);
  /* pow (tensor, number): ATen's own kernel for a scalar exponent */
  if (job->desc->kernel == TS_BINARY_POW && job->t[2] == NULL && job->t[1] != NULL &&
      ts_cpu_pow_scalar (&a, job->scalar.kind == TS_DTYPE_FLOAT64 ? job->scalar.value : (double) job->scalar.ivalue,
                         &out))
    return TRUE;
  return ts_cpu_binary (job->desc->kernel, &a, &b, job->compute, &out, error);
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

/* Same device, dtype and shape: the operands of an op that needs no type
 * promotion (the result type of two equal dtypes is that dtype, whatever
 * their dims) and no broadcasting. */
static gboolean
same_layout (const TsTensor *a,
             const TsTensor *b)
{
  return a->dtype == b->dtype && a->ndim == b->ndim &&
         ts_device_equal (a->storage->device, b->storage->device) &&
         memcmp (a->shape, b->shape, a->ndim * sizeof (gint64)) == 0;
}

/* TensorIterator's assert_no_partial_overlap for a written @out and an
 * input @in: an input sharing some but not all of out's memory is
 * refused, where the kernel would read elements it has already written
 * (`y.add_(y[:1])`); layouts it cannot judge (strided views) pass, as in
 * c10's get_overlap_status */
static gboolean
check_partial_overlap (const TsTensor  *out,
                       const TsTensor  *in,
                       GError         **error)
{
  gint64 esize, out_begin, out_end, in_begin, in_end;

  if (in == NULL || in == out || out->storage != in->storage ||
      ts_tensor_numel (out) == 0 || ts_tensor_numel (in) == 0 ||
      !ts_tensor_is_non_overlapping_and_dense (out) || !ts_tensor_is_non_overlapping_and_dense (in))
    return TRUE;
  esize = (gint64) ts_dtype_size (out->dtype);
  out_begin = out->offset * esize;
  out_end = out_begin + ts_tensor_numel (out) * esize;
  in_begin = in->offset * (gint64) ts_dtype_size (in->dtype);
  in_end = in_begin + ts_tensor_numel (in) * (gint64) ts_dtype_size (in->dtype);
  if ((out_begin == in_begin && out_end == in_end &&
       memcmp (out->strides, in->strides, out->ndim * sizeof (gint64)) == 0 && out->ndim == in->ndim) ||
      out_end <= in_begin || in_end <= out_begin)
    return TRUE;
  g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "unsupported operation: some elements of the input tensor and the written-to tensor "
                       "refer to a single memory location. Please clone() the tensor before performing the "
                       "operation.");
  return FALSE;
}

static TsTensor *
binary_impl (TsBinaryOp       op,
             TsTensor        *a,
             TsTensor        *b,
             const TsScalar  *scalar,
             gboolean         reverse,
             double           alpha,
             TsTensor        *out,
             GError         **error)
{
  TsTensor *operands[3] = { a, b, out };
  TsTensor *inputs[2] = { a, b };
  TsOpGradAttrs grad = { .has_scalar = b == NULL, .reversed = reverse };
  g_autoptr(TsTensor) original = NULL;
  TsScalar cpu_scalar;
  TsDevice device;
  TsDType compute, result;
  guint ndim;
  gint64 shape[TS_MAX_DIMS];
  Job *job;
  TsView va, vb, vo;

  g_return_val_if_fail (a != NULL, NULL);
  g_return_val_if_fail (b != NULL || scalar != NULL, NULL);

  if (out != NULL && (!ts_autograd_check_inplace (out, error) ||
                      !ts_autograd_check_inplace_view (out, error) ||
                      !check_partial_overlap (out, a, error) || !check_partial_overlap (out, b, error)))
    return NULL;
  if (scalar != NULL)
    grad.scalar = scalar->kind == TS_DTYPE_FLOAT64 ? scalar->value : (double) scalar->ivalue;
  if (b != NULL && out == NULL && same_layout (a, b))
    {
      /* the common case of a loop of small ops: nothing to promote or
       * broadcast, and one device */
      device = a->storage->device;
      compute = a->dtype;
      ndim = a->ndim;
      ts_dims_copy (shape, a->shape, ndim);
    }
  else if (!common_device (operands, 3, &device, error))
    return NULL;
  else if (b != NULL)
    {
      compute = ts_dtype_result_type2 (a->ndim ? TS_OPERAND_TENSOR : TS_OPERAND_ZERO_DIM, a->dtype,
                                       b->ndim ? TS_OPERAND_TENSOR : TS_OPERAND_ZERO_DIM, b->dtype);
      if (!ts_broadcast_shapes (a->ndim, a->shape, b->ndim, b->shape, &ndim, shape, error))
        {
          kernel_error (error);
          return NULL;
        }
    }
  else
    {
      compute = ts_dtype_result_type2 (a->ndim ? TS_OPERAND_TENSOR : TS_OPERAND_ZERO_DIM, a->dtype,
                                       TS_OPERAND_SCALAR, scalar->kind);
      ndim = a->ndim;
      ts_dims_copy (shape, a->shape, ndim);
    }

  if (!ts_binary_check (op, compute, error))
    {
      kernel_error (error);
      return NULL;
    }
  /* true division gives a float, comparisons a bool */
  result = ts_binary_result_dtype (op, compute);

  /* A CPU 0-dim operand of a device op is read now, as a number (PyTorch
   * copies it into the kernel's arguments). */
  if (device.type == TS_DEVICE_CUDA && b != NULL && (is_cpu_scalar (a) || is_cpu_scalar (b)))
    {
      TsTensor *cpu = is_cpu_scalar (b) ? b : a;

      if (ts_host_data_no_data ())
        cpu_scalar = (TsScalar) { ts_dtype_is_floating (cpu->dtype) ? TS_DTYPE_FLOAT64 :
                                  cpu->dtype == TS_DTYPE_BOOL ? TS_DTYPE_BOOL : TS_DTYPE_INT64, 0, 0 };
      else if (ts_dtype_is_floating (cpu->dtype))
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
                       ts_dtype_scalar_type_name (result), ts_dtype_scalar_type_name (out->dtype));
          return NULL;
        }
      if (out->ndim != ndim || memcmp (out->shape, shape, ndim * sizeof (gint64)) != 0)
        {
          g_autofree char *have = ts_shape_to_string (out->ndim, out->shape);
          g_autofree char *want = ts_shape_to_string (ndim, shape);

          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "output with shape %s doesn't match the broadcast shape %s", have, want);
          return NULL;
        }
      out = ts_tensor_ref (out);
    }
  else
    {
      /* a number is a wrapped 0-dim input to ATen, except pow's exponent
       * (pow.Tensor_Scalar is a unary TensorIterator) */
      out = ts_tensor_new_output (device, result, ndim, shape, inputs, 2,
                                  scalar != NULL && op != TS_BINARY_POW, error);
      if (out == NULL)
        return NULL;
    }

  job = job_new (ts_op_for_binary (op));
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
      job->scalar_bool = scalar->ivalue != 0;
      job_set (job, reverse ? 2 : 1, a);
    }
  if (alpha != 1)
    {
      job->has_alpha = TRUE;
      job->p0 = alpha;
    }

  cost_view (job->t[1], scalar ? scalar->kind : a->dtype, &va);
  cost_view (job->t[2], scalar ? scalar->kind : a->dtype, &vb);
  tensor_view (out, &vo);
  original = ts_autograd_original_self (ts_op_for_binary (op), inputs, 2, operands[2]);
  grad.save_self = original;
  if (dispatch_new (job, device, ts_cost_binary (op, &va, &vb, &vo), out, error) == NULL)
    return NULL;
  if (operands[2] != NULL)
    ts_autograd_bump_version (out);
  ts_autograd_record_op (ts_op_for_binary (op),
                         !grad.has_scalar ? TS_OP_GRAD_TENSOR
                         : grad.reversed ? TS_OP_GRAD_REVERSED : TS_OP_GRAD_SCALAR,
                         inputs, 2, out, &grad);
  return out;
}

/* Autocast (ts-autocast.c) casts a functional call's operands first: an
 * in-place or out= form runs as called, as PyTorch registers only the
 * functional overloads with autocast. */
TsTensor *
ts_ops_binary (TsBinaryOp       op,
               TsTensor        *a,
               TsTensor        *b,
               const TsScalar  *scalar,
               gboolean         reverse,
               TsTensor        *out,
               GError         **error)
{
  g_auto(TsAutocastScope) scope = { { NULL } };

  /* ATen's pow (Tensor, Scalar) refuses this, where a tensor exponent
   * (even a 0-dim one) computes 0 */
  if (op == TS_BINARY_POW && scalar != NULL && !reverse && scalar->kind != TS_DTYPE_FLOAT64 &&
      scalar->ivalue < 0 && ts_dtype_is_integral (a->dtype, TRUE))
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "Integers to negative integer powers are not allowed.");
      return NULL;
    }
  if (out == NULL && !ts_autocast_operands (ts_op_for_binary (op), &scope, &a, &b, error))
    return NULL;
  return binary_impl (op, a, b, scalar, reverse, 1, out, error);
}

/* a + alpha * b (or a - alpha * b) in one launch, as PyTorch's add and
 * sub with alpha run, for two tensors of one floating dtype and no graph
 * to record (an optimizer's update, a multi-tensor op's): the formulas
 * would need alpha, so a call that records goes through `b * alpha`
 * first, whose node carries it. @out: NULL, or @a for the in-place form.
 * Returns NULL with no error when it does not apply: compose it then. */
TsTensor *
ts_ops_binary_alpha (TsBinaryOp   op,
                     TsTensor    *a,
                     TsTensor    *b,
                     double       alpha,
                     TsTensor    *out,
                     GError     **error)
{
  TsTensor *inputs[2] = { a, b };

  g_return_val_if_fail (op == TS_BINARY_ADD || op == TS_BINARY_SUB, NULL);

  /* contiguous operands of one shape (an optimizer's), which
   * ts_cpu_binary_alpha and the module's binary_alpha take; an out= (not a) the same, and no graph to
   * record (ATen refuses out= then: the caller's generic path says so) */
  if (out != NULL && out != a &&
      (!same_layout (a, out) || !ts_tensor_is_contiguous (out) ||
       (ts_autograd_is_grad_enabled () && ts_autograd_requires_grad (out))))
    return NULL;
  if ((ts_autograd_is_grad_enabled () && ts_autograd_any_requires_grad (inputs, 2)) ||
      !ts_dtype_is_floating (a->dtype) || !same_layout (a, b) ||
      !ts_tensor_is_contiguous (a) || !ts_tensor_is_contiguous (b) ||
      ts_autocast_is_enabled (ts_tensor_is_cuda (a) ? TS_AUTOCAST_CUDA : TS_AUTOCAST_CPU))
    return NULL;
  return binary_impl (op, a, b, NULL, FALSE, alpha, out, error);
}

/* Unary ------------------------------------------------------------------ */

static gboolean
unary_job (Job     *job,
           GError **error)
{
  TsView in, out;

  job_views (job, &out, &in, NULL);
  job_flatten_one_layout (job, (TsView *[]) { &out, &in }, 2);
  return ts_cpu_unary (job->desc->kernel, &in, &out, error);
}

TsTensor *
ts_ops_unary (TsUnaryOp   op,
              TsTensor   *a,
              GError    **error)
{
  return ts_ops_unary_out (op, a, NULL, error);
}

/* @out (a itself for the in-place form, or out=) must have a's shape
 * and a dtype the result casts to. */
static TsTensor *
unary_impl (TsUnaryOp   op,
            TsTensor   *a,
            TsTensor   *out,
            GError    **error)
{
  TsTensor *operands[2] = { a, out };
  TsDevice device;
  TsDType result;
  Job *job;
  TsView vin, vout;
  TsOpGradAttrs grad = { 0 };
  g_autoptr(TsTensor) original = NULL;

  if (!ts_unary_check (op, a->dtype, error))
    {
      kernel_error (error);
      return NULL;
    }

  result = ts_unary_result_dtype (op, a->dtype);
  if (out != NULL)
    {
      if (!common_device (operands, 2, &device, error))
        return NULL;
      /* TensorIterator's check_all_same_dtype, for the ops that keep
       * their input's dtype (abs, neg, floor, ...) */
      if (ts_op_for_unary (op)->rule == TS_OP_RULE_SAME && out->dtype != result)
        {
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME, "Found dtype %s but expected %s",
                       ts_dtype_scalar_type_name (out->dtype), ts_dtype_scalar_type_name (result));
          return NULL;
        }
      if (!can_cast (result, out->dtype))
        {
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "result type %s can't be cast to the desired output type %s",
                       ts_dtype_scalar_type_name (result), ts_dtype_scalar_type_name (out->dtype));
          return NULL;
        }
      if (out->ndim != a->ndim || memcmp (out->shape, a->shape, a->ndim * sizeof (gint64)) != 0)
        {
          g_autofree char *have = ts_shape_to_string (out->ndim, out->shape);
          g_autofree char *want = ts_shape_to_string (a->ndim, a->shape);

          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "output with shape %s doesn't match the broadcast shape %s", have, want);
          return NULL;
        }
      out = ts_tensor_ref (out);
    }
  else
    {
      out = ts_tensor_new_output (ts_tensor_get_device (a), result, a->ndim, a->shape, &a, 1, FALSE, error);
      if (out == NULL)
        return NULL;
    }
  job = job_new (ts_op_for_unary (op));
  job_set (job, 0, out);
  job_set (job, 1, a);
  tensor_view (a, &vin);
  tensor_view (out, &vout);
  /* sin_ reads self in backward: as it was */
  grad.save_self = original = ts_autograd_original_self (ts_op_for_unary (op), &a, 1, operands[1]);
  if (dispatch_new (job, ts_tensor_get_device (a), ts_cost_unary (op, &vin, &vout), out, error) == NULL)
    return NULL;
  ts_autograd_record_op (ts_op_for_unary (op), TS_OP_GRAD_TENSOR, &a, 1, out, &grad);
  return out;
}

TsTensor *
ts_ops_unary_out (TsUnaryOp   op,
                  TsTensor   *a,
                  TsTensor   *out,
                  GError    **error)
{
  g_auto(TsAutocastScope) scope = { { NULL } };

  if (out == NULL && !ts_autocast_operands (ts_op_for_unary (op), &scope, &a, NULL, error))
    return NULL;
  return unary_impl (op, a, out, error);
}

/* Fill and copy ----------------------------------------------------------- */

static gboolean
fill_job (Job     *job,
          GError **error)
{
  TsView out;

  tensor_view (job->t[0], &out);
  if (job->scalar.kind == TS_DTYPE_FLOAT64 || ts_dtype_is_floating (out.dtype))
    ts_cpu_fill (&out, job->scalar.kind == TS_DTYPE_FLOAT64 ? job->scalar.value
                                                            : (double) job->scalar.ivalue);
  else
    ts_cpu_fill_int (&out, job->scalar.ivalue);
  return TRUE;
}

/* What fill_ and masked_fill_ check before writing @value into @self in
 * place: that it fits self's dtype, and that autograd allows the write. */
static gboolean
check_fill (TsTensor        *self,
            const TsScalar  *value,
            GError         **error)
{
  if (ts_dtype_scalar_overflows (self->dtype, value->kind != TS_DTYPE_FLOAT64, value->ivalue, value->value))
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "value cannot be converted to type %s without overflow",
                   ts_dtype_cpp_type_name (self->dtype));
      return FALSE;
    }
  if (!ts_autograd_check_inplace (self, error) || !ts_autograd_check_inplace_view (self, error))
    return FALSE;
  return TRUE;
}

gboolean
ts_ops_fill (TsTensor        *self,
             const TsScalar  *value,
             GError         **error)
{
  Job *job;
  TsView view;

  if (!check_fill (self, value, error))
    return FALSE;
  job = job_new (ts_op_get (TS_OP_FILL));
  job->scalar = *value;
  job_set (job, 0, self);
  tensor_view (self, &view);
  if (!dispatch (job, ts_tensor_get_device (self), ts_cost_fill (&view), error))
    return FALSE;
  ts_autograd_bump_version (self);
  /* the old values no longer matter: a zero gradient (FillBackward2) */
  ts_autograd_record_op (ts_op_get (TS_OP_FILL), TS_OP_GRAD_TENSOR, &self, 1, self, NULL);
  return TRUE;
}

static gboolean
copy_job (Job     *job,
          GError **error)
{
  TsView dst, src;

  job_views (job, &dst, &src, NULL);
  return ts_cpu_copy (&dst, &src, error);
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
  Job *job;
  TsSessionWork work = { 0 };
  TsDevice sd = ts_tensor_get_device (src), dd = ts_tensor_get_device (dst);
  guint64 correlation;
  gboolean ok, sanitize;

  /* a copy would run before the kernels the open launch holds */
  if (!group_allows_copy (error))
    return FALSE;
  job = job_new (ts_op_get (TS_OP_COPY));

  job_set (job, 0, dst);
  job_set (job, 1, src);
  job_settle_values (job, dd.type == TS_DEVICE_CUDA ? dd : sd);
  if (!job_check_staging (job, error))
    {
      job_free (job);
      return FALSE;
    }
  work.name = "Memcpy";
  work.stream = stream;
  work.bytes = ts_tensor_nbytes (dst);
  work.is_copy = TRUE;
  work.copy_kind = kind;
  work.pinned = pinned;
  work.non_blocking = non_blocking;
  work.src_device = sd.type == TS_DEVICE_CUDA ? sd.index : -1;
  work.dst_device = dd.type == TS_DEVICE_CUDA ? dd.index : -1;
  job_work_callbacks (&work, job);
  /* copies need no device temporaries: casts and strides across the
   * host/device boundary stage through host memory */
  if (ts_session_get_device_kernels () != NULL)
    work.device_run = job_device_run;
  correlation = ts_session_api_begin (job->desc->aten_name, dd.type == TS_DEVICE_CUDA ? dd.index : sd.index);
  /* the pinned side of an asynchronous copy stays reserved until the
   * stream has passed the copy */
  if (pinned && non_blocking)
    ts_session_host_record_stream (GSIZE_TO_POINTER (ts_tensor_data_ptr (sd.type == TS_DEVICE_CPU ? src : dst)),
                                   stream);  /* the address: --no-data has no bytes */
  sanitize = ts_op_access_begin (job->desc, job->t, job->n_slots, job->out_mask);
  ok = ts_session_launch (&work, error);
  if (ok)
    ts_op_access_trace (stream, correlation);
  /* a copy the host waits for synchronizes the stream, for CSAN too */
  if (sanitize && ok && kind != TS_COPY_DEVICE_TO_DEVICE && kind != TS_COPY_PEER && !(pinned && non_blocking))
    ts_op_access_stream_synchronize (stream);
  if (sanitize)
    ok = ts_op_access_end (stream, correlation, ok, error);
  ts_session_api_end (correlation);
  return ok;
}

static gboolean copy_impl (TsTensor  *dst,
                           TsTensor  *src,
                           gboolean   non_blocking,
                           GError   **error);

/* PyTorch's memcpy_eligible (Copy.cu): one dtype, both sides contiguous */
static gboolean
copy_is_memcpy (const TsTensor *dst,
                const TsTensor *src)
{
  return dst->dtype == src->dtype && ts_tensor_is_contiguous (dst) && ts_tensor_is_contiguous (src);
}

/* copy_: an in-place op (its version bump), recorded as CopyBackwards:
 * dst's gradient goes to src, none to dst's old history */
gboolean
ts_ops_copy (TsTensor  *dst,
             TsTensor  *src,
             gboolean   non_blocking,
             GError   **error)
{
  TsTensor *inputs[2] = { dst, src };

  if (!ts_autograd_check_inplace (dst, error) || !ts_autograd_check_inplace_view (dst, error) ||
      !copy_impl (dst, src, non_blocking, error))
    return FALSE;
  ts_autograd_bump_version (dst);
  ts_autograd_record_op (ts_op_get (TS_OP_COPY), TS_OP_GRAD_REVERSED, inputs, 2, dst, NULL);
  return TRUE;
}

static gboolean
copy_impl (TsTensor  *dst,
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
          g_autofree char *have = NULL;
          g_autofree char *want = NULL;

          if (!ts_broadcast_shapes (dst->ndim, dst->shape, src->ndim, src->shape, &ndim, shape, error))
            return kernel_error (error);
          have = ts_shape_to_string (dst->ndim, dst->shape);
          want = ts_shape_to_string (ndim, shape);
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "output with shape %s doesn't match the broadcast shape %s", have, want);
          return FALSE;
        }
      src = expanded;
    }

  if (ts_tensor_numel (dst) == 0)
    return TRUE;

  if (sd.type == TS_DEVICE_CPU && dd.type == TS_DEVICE_CPU)
    {
      Job *job = job_new (ts_op_get (TS_OP_COPY));
      TsKernelCost none = { 0, 0 };

      job_set (job, 0, dst);
      job_set (job, 1, src);
      return dispatch (job, sd, none, error);
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

  if (sd.index == dd.index && !copy_is_memcpy (dst, src))
    {
      /* PyTorch's copy_ within a device is a cudaMemcpyAsync only when it
       * moves the bytes as they are; a cast or a strided side is its
       * elementwise copy kernel, on the current stream */
      Job *job = job_new (ts_op_get (TS_OP_COPY));
      TsView vdst, vsrc;

      job_set (job, 0, dst);
      job_set (job, 1, src);
      tensor_view (dst, &vdst);
      tensor_view (src, &vsrc);
      return dispatch (job, dd, ts_cost_copy (&vdst, &vsrc), error);
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

/* @preserve: the copy laid out as _to_copy lays it (empty_like with
 * preserve_format), else contiguous, which the callers inside the core
 * read as such */
static TsTensor *
to_impl (TsTensor  *self,
         TsDevice   device,
         TsDType    dtype,
         gboolean   non_blocking,
         gboolean   copy,
         gboolean   preserve,
         GError   **error)
{
  g_autoptr(TsTensor) out = NULL;

  if (dtype == TS_DTYPE_UNDEFINED)
    dtype = self->dtype;
  if (!copy && dtype == self->dtype && ts_device_equal (device, ts_tensor_get_device (self)))
    return ts_tensor_ref (self);

  if (device.type == TS_DEVICE_CUDA && !ts_session_check_device (device.index, error))
    return NULL;
  out = preserve ? ts_tensor_new_preserving (device, dtype, self, error)
                 : ts_tensor_new_empty (device, dtype, self->ndim, self->shape, FALSE, error);
  if (out == NULL)
    return NULL;
  if (device.type == TS_DEVICE_CUDA)
    {
      /* The copy runs with the destination as the current device. */
      int saved = ts_session_current_device ();
      gboolean ok;

      ts_session_set_device (device.index, NULL);
      ok = copy_impl (out, self, non_blocking, error);
      ts_session_set_device (saved, NULL);
      if (!ok)
        return NULL;
    }
  else if (!copy_impl (out, self, non_blocking, error))
    return NULL;
  /* clone() is to() with copy on the same device and dtype */
  ts_autograd_record_op (ts_op_get (TS_OP_COPY),
                         copy && dtype == self->dtype && ts_device_equal (device, ts_tensor_get_device (self))
                         ? TS_OP_GRAD_SCALAR : TS_OP_GRAD_TENSOR,
                         &self, 1, out, NULL);
  return g_steal_pointer (&out);
}

TsTensor *
ts_ops_to (TsTensor  *self,
           TsDevice   device,
           TsDType    dtype,
           gboolean   non_blocking,
           gboolean   copy,
           GError   **error)
{
  return to_impl (self, device, dtype, non_blocking, copy, FALSE, error);
}

TsTensor *
ts_ops_to_copy (TsTensor  *self,
                TsDevice   device,
                TsDType    dtype,
                gboolean   non_blocking,
                gboolean   copy,
                GError   **error)
{
  return to_impl (self, device, dtype, non_blocking, copy, TRUE, error);
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
  return ts_ops_to_host_for (self, "Reading a tensor's values on the host", error);
}

TsTensor *
ts_ops_to_host_for (TsTensor    *self,
                    const char  *what,
                    GError     **error)
{
  if (ts_host_data_no_data () && (ts_tensor_is_cuda (self) || self->storage->data == NULL))
    {
      ts_host_data_refuse (what, error);
      return NULL;
    }
  if (!ts_tensor_is_cuda (self))
    return ts_tensor_ref (self);
  return ts_ops_to (self, TS_DEVICE_CPU_VALUE, self->dtype, FALSE, FALSE, error);
}

/* Reductions -------------------------------------------------------------- */

/* The kernels' dim mask (bit d reduces dim d, 0 all of them) of a list of
 * dims, checked and wrapped as PyTorch does. */
static gboolean
reduce_mask (TsTensor    *self,
             const int   *dims,
             guint        n_dims,
             guint64     *mask,
             GError     **error)
{
  *mask = 0;
  for (guint i = 0; i < n_dims; i++)
    {
      int d = dims[i];
      if (!ts_tensor_wrap_dim (self->ndim, &d, error))
        return FALSE;
      if (self->ndim == 0)
        continue;
      if (*mask & (G_GUINT64_CONSTANT (1) << d))
        {
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "dim %d appears multiple times in the list of dims", d);
          return FALSE;
        }
      *mask |= G_GUINT64_CONSTANT (1) << d;
    }
  return TRUE;
}

static gboolean
reduce_job (Job     *job,
            GError **error)
{
  TsView in, out;

  job_views (job, &out, &in, NULL);
  return ts_cpu_reduce (job->desc->kernel, &in, job->dim_mask, &out, error);
}

/* A reduction's node: over dims (their form, wrapped) or all elements */
static void
record_reduce (const TsOpDesc *desc,
               TsTensor       *self,
               const int      *dims,
               guint           n_dims,
               gboolean        keepdim,
               double          scalar,
               TsTensor       *out)
{
  TsOpGradAttrs grad = { .n_dims = MIN (n_dims, TS_MAX_DIMS), .keepdim = keepdim, .scalar = scalar };

  for (guint i = 0; i < grad.n_dims; i++)
    {
      grad.dims[i] = dims[i];
      ts_tensor_wrap_dim ((int) self->ndim, &grad.dims[i], NULL);
    }
  ts_autograd_record_op (desc, n_dims > 0 ? TS_OP_GRAD_SCALAR : TS_OP_GRAD_TENSOR, &self, 1, out,
                         &grad);
}

/* The reduction of @desc over @dims into a new tensor of @dtype, one
 * launch; @scalar rides in the job and the node (var's correction) */
static TsTensor *
launch_reduce (const TsOpDesc *desc,
               TsTensor       *self,
               const int      *dims,
               guint           n_dims,
               gboolean        keepdim,
               TsDType         dtype,
               double          scalar,
               GError        **error)
{
  guint64 mask;
  guint ndim;
  gint64 shape[TS_MAX_DIMS];
  TsView vin, vout;
  TsTensor *out;
  Job *job;

  if (!reduce_mask (self, dims, n_dims, &mask, error))
    return NULL;
  tensor_view (self, &vin);
  ts_reduce_shape (&vin, mask, keepdim, &ndim, shape);
  out = ts_tensor_new_empty (ts_tensor_get_device (self), dtype, ndim, shape, FALSE, error);
  if (out == NULL)
    return NULL;

  job = job_new (desc);
  /* a reduction kernel: 512 threads, 32 inputs per thread, on up to every
   * SM (PyTorch finishes a full reduction with a second pass we do not
   * model). A large one streams at the copy rate: PyTorch's sum of 1 GiB
   * read 4.09 TB/s on an H200, 97% of a device copy's 4.2. */
  job->block = 512;
  job->grid = (guint32) CLAMP ((ts_tensor_numel (self) + 16383) / 16384, 1,
                               MAX (ts_session_get_profile (0)->sm_count, 1));
  job->dim_mask = mask;
  job->scalar.kind = TS_DTYPE_FLOAT64;
  job->scalar.value = scalar;
  job_set (job, 0, out);
  job_set (job, 1, self);
  tensor_view (out, &vout);
  if (dispatch_new (job, ts_tensor_get_device (self), ts_cost_reduce (&vin, &vout), out, error) == NULL)
    return NULL;
  record_reduce (desc, self, dims, n_dims, keepdim, scalar, out);
  return out;
}

TsTensor *
ts_ops_reduce (TsOpId      id,
               TsTensor   *self,
               const int  *dims,
               guint       n_dims,
               gboolean    keepdim,
               TsDType     dtype,
               GError    **error)
{
  const TsOpDesc *desc = ts_op_get (id);

  /* autocast's float32 reductions read the half input as they go; an
   * explicit dtype is the caller's choice, which autocast leaves */
  if (dtype == TS_DTYPE_UNDEFINED)
    dtype = ts_autocast_opt_dtype (desc, self);
  if (dtype == TS_DTYPE_UNDEFINED && !ts_reduce_result_dtype (desc->kernel, self->dtype, &dtype, error))
    {
      kernel_error (error);
      return NULL;
    }
  /* PyTorch 1.13's CPU product has no half kernels (its CUDA one has) */
  if (desc->kernel == TS_REDUCE_PROD && !ts_tensor_is_cuda (self) &&
      (dtype == TS_DTYPE_FLOAT16 || dtype == TS_DTYPE_BFLOAT16))
    {
      ts_ops_fail (error, "\"prod_cpu\" not implemented for '%s'", ts_dtype_scalar_type_name (dtype));
      return NULL;
    }
  return launch_reduce (desc, self, dims, n_dims, keepdim, dtype, 0.0, error);
}

static gboolean
var_job (Job     *job,
         GError **error)
{
  TsView in, out;

  job_views (job, &out, &in, NULL);
  return ts_cpu_var (&in, job->dim_mask, job->scalar.value, job->desc->kernel == 1, &out, error);
}

/* torch.var over @dims (none: all), divided by n - @correction: one
 * launch, as PyTorch's std_var reduction, with VarBackward0 */
TsTensor *
ts_ops_var (TsTensor   *self,
            const int  *dims,
            guint       n_dims,
            double      correction,
            gboolean    keepdim,
            gboolean    take_sqrt,
            GError    **error)
{
  if (!ts_dtype_is_floating (self->dtype))
    {
      ts_ops_fail (error, "std and var only support floating point and complex dtypes");
      return NULL;
    }
  /* costed as a sum's one read, as PyTorch's Welford kernel reads the
   * input once (the host kernel's second pass is not the device's) */
  return launch_reduce (ts_op_get (take_sqrt ? TS_OP_STD : TS_OP_VAR), self, dims, n_dims, keepdim, self->dtype,
                        correction, error);
}

TsTensor *
ts_ops_sum (TsTensor   *self,
            const int  *dims,
            guint       n_dims,
            gboolean    keepdim,
            TsDType     dtype,
            GError    **error)
{
  return ts_ops_reduce (TS_OP_SUM, self, dims, n_dims, keepdim, dtype, error);
}

TsTensor *
ts_ops_mean (TsTensor   *self,
             const int  *dims,
             guint       n_dims,
             gboolean    keepdim,
             TsDType     dtype,
             GError    **error)
{
  return ts_ops_reduce (TS_OP_MEAN, self, dims, n_dims, keepdim, dtype, error);
}

static gboolean
max_dim_job (Job     *job,
             GError **error)
{
  TsView in, values, indices;

  job_views (job, &values, &in, &indices);
  return ts_cpu_max_dim (&in, (guint) job->dims[0], job->desc->kernel, &values, &indices, error);
}

/* Softmax ------------------------------------------------------------------ */

static gboolean
softmax_job (Job     *job,
             GError **error)
{
  TsView in, out, output;

  /* the backward ops (KERNEL 2, 3): slots out, grad_output, output */
  if (job->desc->kernel & 2)
    {
      job_views (job, &out, &in, &output);
      return ts_cpu_softmax_backward (&in, &output, (guint) job->dims[0], job->desc->kernel & 1, &out, error);
    }
  job_views (job, &out, &in, NULL);
  return ts_cpu_softmax (&in, (guint) job->dims[0], job->desc->kernel, &out, error);
}

/* _softmax_backward_data (_log_softmax_backward_data where @log): one
 * kernel and one new tensor, of @output's shape and dtype; no node */
TsTensor *
ts_ops_softmax_backward (TsTensor  *grad,
                         TsTensor  *output,
                         int        dim,
                         gboolean   log,
                         GError   **error)
{
  const TsOpDesc *desc = ts_op_get (log ? TS_OP_LOG_SOFTMAX_BACKWARD_DATA : TS_OP_SOFTMAX_BACKWARD_DATA);
  TsTensor *operands[2] = { grad, output };
  TsDevice device;
  TsView vin, vout;
  TsTensor *out;
  Job *job;

  if (!ts_ops_common_device (operands, 2, &device, error) || !ts_tensor_wrap_dim (output->ndim, &dim, error))
    return NULL;
  if (grad->ndim != output->ndim || memcmp (grad->shape, output->shape, output->ndim * sizeof (gint64)) != 0)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "softmax backward: grad_output and output differ in shape");
      return NULL;
    }
  out = ts_tensor_new_empty (device, output->dtype, output->ndim, output->shape, FALSE, error);
  if (out == NULL)
    return NULL;
  job = job_new (desc);
  job->dims[0] = dim;
  job_set (job, 0, out);
  job_set (job, 1, grad);
  job_set (job, 2, output);
  tensor_view (output, &vin);
  tensor_view (out, &vout);
  return dispatch_new (job, device, ts_cost_softmax (&vin, &vout), out, error);
}

/* softmax (log_softmax where @log) of @self along @dim, in self's dtype */
TsTensor *
ts_ops_softmax (TsTensor  *self,
                int        dim,
                gboolean   log,
                GError   **error)
{
  const TsOpDesc *desc = ts_op_get (log ? TS_OP_LOG_SOFTMAX : TS_OP_SOFTMAX);
  g_auto(TsAutocastScope) scope = { { NULL } };
  TsDType result = ts_autocast_opt_dtype (desc, self);
  TsView vin, vout;
  TsTensor *out;
  Job *job;

  /* autocast's float32 softmax reads a CUDA float16 input as it goes
   * (PyTorch's half_to_float kernel); other inputs are cast first */
  if (result == TS_DTYPE_UNDEFINED || !ts_tensor_is_cuda (self) || self->dtype != TS_DTYPE_FLOAT16)
    {
      result = TS_DTYPE_UNDEFINED;
      if (!ts_autocast_operands (desc, &scope, &self, NULL, error))
        return NULL;
    }
  if (!ts_tensor_wrap_dim (self->ndim, &dim, error))
    return NULL;
  if (!ts_softmax_check (self->dtype, self->ndim == 0 || dim == (int) self->ndim - 1, log, error))
    {
      kernel_error (error);
      return NULL;
    }
  out = ts_tensor_new_empty (ts_tensor_get_device (self), result != TS_DTYPE_UNDEFINED ? result : self->dtype,
                             self->ndim, self->shape, FALSE, error);
  if (out == NULL)
    return NULL;
  job = job_new (desc);
  job->dims[0] = dim;
  job_set (job, 0, out);
  job_set (job, 1, self);
  tensor_view (self, &vin);
  tensor_view (out, &vout);
  if (dispatch_new (job, ts_tensor_get_device (self), ts_cost_softmax (&vin, &vout), out, error) == NULL)
    return NULL;
  {
    /* the formula reduces over the softmax's dim */
    TsOpGradAttrs grad = { .dims = { dim }, .n_dims = 1 };

    ts_autograd_record_op (desc, TS_OP_GRAD_TENSOR, &self, 1, out, &grad);
  }
  return out;
}

TsTensor *
ts_ops_max (TsTensor  *self,
            gboolean   is_min,
            GError   **error)
{
  static const gint64 scalar_shape[1] = { 1 };
  TsView vin, vout;
  TsTensor *out;
  Job *job;

  if (ts_tensor_numel (self) == 0)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "%s(): Expected reduction dim to be specified for input.numel() == 0. "
                   "Specify the reduction dim with the 'dim' argument.", is_min ? "min" : "max");
      return NULL;
    }
  out = ts_tensor_new_empty (ts_tensor_get_device (self), self->dtype, 0, scalar_shape, FALSE, error);
  if (out == NULL)
    return NULL;
  job = job_new (ts_op_get (is_min ? TS_OP_MIN : TS_OP_MAX));
  job_set (job, 0, out);
  job_set (job, 1, self);
  tensor_view (self, &vin);
  tensor_view (out, &vout);
  if (dispatch_new (job, ts_tensor_get_device (self), ts_cost_reduce (&vin, &vout), out, error) == NULL)
    return NULL;
  record_reduce (ts_op_get (is_min ? TS_OP_MIN : TS_OP_MAX), self, NULL, 0, FALSE, 0.0, out);
  return out;
}

/* The MAX_DIM family's launch of op @id: values and indices along @dim. */
static gboolean
max_dim_launch (TsOpId      id,
                TsTensor   *self,
                int         dim,
                gboolean    keepdim,
                TsTensor  **values,
                TsTensor  **indices,
                GError    **error)
{
  guint ndim;
  gint64 shape[TS_MAX_DIMS];
  TsView vin, vvalues, vindices;
  TsKernelCost cost;
  Job *job;

  if (!ts_tensor_wrap_dim (self->ndim, &dim, error))
    return FALSE;
  if (self->ndim > 0 && self->shape[dim] == 0)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_INDEX,
                   "%s(): Expected reduction dim %d to have non-zero size.", ts_op_get (id)->name, dim);
      return FALSE;
    }
  tensor_view (self, &vin);
  ts_reduce_shape (&vin, self->ndim ? G_GUINT64_CONSTANT (1) << dim : 0, keepdim, &ndim, shape);
  *values = ts_tensor_new_empty (ts_tensor_get_device (self), self->dtype, ndim, shape, FALSE, error);
  if (*values == NULL)
    return FALSE;
  *indices = ts_tensor_new_empty (ts_tensor_get_device (self), TS_DTYPE_INT64, ndim, shape, FALSE, error);
  if (*indices == NULL)
    {
      g_clear_pointer (values, ts_tensor_unref);
      return FALSE;
    }
  job = job_new (ts_op_get (id));
  job->dims[0] = dim;
  job_set (job, 0, *values);
  job_set (job, 1, self);
  job_set (job, 2, *indices);
  job->out_mask |= 1u << 2;
  tensor_view (*values, &vvalues);
  tensor_view (*indices, &vindices);
  /* the values as a reduction, plus the indices written */
  cost = ts_cost_reduce (&vin, &vvalues);
  cost.bytes += ts_cost_fill (&vindices).bytes;
  if (!dispatch (job, ts_tensor_get_device (self), cost, error))
    {
      g_clear_pointer (values, ts_tensor_unref);
      g_clear_pointer (indices, ts_tensor_unref);
      return FALSE;
    }
  return TRUE;
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
  TsOpId id = is_min ? TS_OP_MIN_DIM : TS_OP_MAX_DIM;

  /* wrapped here too: the node keeps the dim */
  if (!ts_tensor_wrap_dim (self->ndim, &dim, error) ||
      !max_dim_launch (id, self, dim, keepdim, values, indices, error))
    return FALSE;
  {
    /* the formula puts the gradient where the indices point */
    TsOpGradAttrs grad = { .dims = { dim }, .n_dims = 1, .keepdim = keepdim, .save_extra = *indices };

    ts_autograd_record_op (ts_op_get (id), TS_OP_GRAD_SCALAR, &self, 1, *values, &grad);
  }
  return TRUE;
}

TsTensor *
ts_ops_argmax_dim (TsTensor  *self,
                   int        dim,
                   gboolean   keepdim,
                   gboolean   is_min,
                   GError   **error)
{
  g_autoptr(TsTensor) values = NULL;
  TsTensor *indices = NULL;

  if (!max_dim_launch (is_min ? TS_OP_ARGMIN : TS_OP_ARGMAX, self, dim, keepdim, &values, &indices, error))
    return NULL;
  return indices;
}

/* Matmul ----------------------------------------------------------------- */

/* t[0] = t[1] @ t[2] with t[1] [m,k] and t[2] [k,n] (views, any strides). */
static gboolean
matmul_job (Job     *job,
            GError **error)
{
  TsView c, a, b;

  job_views (job, &c, &a, &b);
  /* aten::bmm's job multiplies every matrix of the (broadcast) batch */
  if (job->desc->id == TS_OP_BMM)
    return ts_cpu_matmul (&a, &b, &c, error);
  return ts_cpu_mm (&a, &b, &c, error);
}

/* The product of @t's sizes but dim @skip's. */
static gint64
numel_but (const TsTensor *t,
           guint           skip)
{
  gint64 n = 1;

  for (guint d = 0; d < t->ndim; d++)
    if (d != skip)
      n *= t->shape[d];
  return n;
}

/* at::matmul's checks in its order and words: with one operand batched
 * and the other a matrix or vector it folds the batch into the rows (of
 * b^T when b is the batched one) for mm/mv; with both batched it
 * broadcasts the batch dims and calls bmm. Shapes first, then dtypes. */
static gboolean
matmul_batched_check (TsTensor  *a,
                      TsTensor  *b,
                      GError   **error)
{
  gboolean fold_a = b->ndim <= 2, fold_b = a->ndim <= 2;
  TsTensor *big = fold_b ? b : a, *small = fold_b ? a : b;

  if (fold_a || fold_b)
    {
      guint kd = fold_a ? a->ndim - 1 : b->ndim - 2;
      gint64 k = big->shape[kd], rows = numel_but (big, kd);
      /* the other operand as mm/mv sees it (a^T when b is folded) */
      gint64 k2 = small->ndim == 1 ? small->shape[0] : fold_a ? small->shape[0] : small->shape[1];
      gint64 cols = small->ndim == 1 ? 1 : fold_a ? small->shape[1] : small->shape[0];

      if (k2 != k && small->ndim == 1)
        g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                     "size mismatch, got %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                     ",%" G_GINT64_FORMAT, rows, rows, k, k2);
      else if (k2 != k)
        g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                     "mat1 and mat2 shapes cannot be multiplied (%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                     " and %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT ")", rows, k, k2, cols);
      if (k2 != k)
        return FALSE;
    }
  else
    {
      gint64 shape[TS_MAX_DIMS], batch = 1;
      guint ndim;

      if (!ts_broadcast_shapes (a->ndim - 2, a->shape, b->ndim - 2, b->shape, &ndim, shape, error))
        return kernel_error (error);
      for (guint d = 0; d < ndim; d++)
        batch *= shape[d];
      if (a->shape[a->ndim - 1] != b->shape[b->ndim - 2])
        {
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "Expected size for first two dimensions of batch2 tensor to be: [%" G_GINT64_FORMAT
                       ", %" G_GINT64_FORMAT "] but got: [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "].",
                       batch, a->shape[a->ndim - 1], batch, b->shape[b->ndim - 2]);
          return FALSE;
        }
    }
  if (big->dtype != small->dtype)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME, "expected scalar type %s but found %s",
                   ts_dtype_scalar_type_name (big->dtype), ts_dtype_scalar_type_name (small->dtype));
      return FALSE;
    }
  return TRUE;
}

static TsTensor *matmul_batched (TsTensor  *a,
                                 TsTensor  *b,
                                 TsDevice   device,
                                 GError   **error);

/* A 1-D operand of a batched matmul: unsqueezed to a matrix and the dim
 * dropped from the result, both recorded views, so that the gradient
 * flows through bmm's formula */
static TsTensor *
matmul_batched_vector (TsTensor  *a,
                       TsTensor  *b,
                       TsDevice   device,
                       GError   **error)
{
  TsViewArgs ua = { .kind = TS_VIEW_UNSQUEEZE, .dim0 = 0 }, ub = { .kind = TS_VIEW_UNSQUEEZE, .dim0 = 1 };
  TsViewArgs drop = { .kind = TS_VIEW_VIEW };
  g_autoptr(TsTensor) a2 = a->ndim == 1 ? ts_autograd_view_op (a, &ua, error) : ts_tensor_ref (a);
  g_autoptr(TsTensor) b2 = a2 != NULL && b->ndim == 1 ? ts_autograd_view_op (b, &ub, error)
                                                      : ts_tensor_ref (b);
  g_autoptr(TsTensor) out2 = a2 != NULL && b2 != NULL ? matmul_batched (a2, b2, device, error) : NULL;
  guint skip;

  if (out2 == NULL)
    return NULL;
  skip = a->ndim == 1 ? out2->ndim - 2 : out2->ndim - 1;
  for (guint d = 0; d < out2->ndim; d++)
    if (d != skip)
      drop.shape[drop.ndim++] = out2->shape[d];
  return ts_autograd_view_op (out2, &drop, error);
}

/* matmul with a batch dim: one aten::bmm launch over the broadcast batch
 * (PyTorch expands and folds the batch dims into one, then calls bmm) */
static TsTensor *
matmul_batched (TsTensor  *a,
                TsTensor  *b,
                TsDevice   device,
                GError   **error)
{
  TsView va, vb;
  gint64 shape[TS_MAX_DIMS];
  gint64 batch = 1, m, n, k;
  guint ndim;
  TsTensor *out;
  Job *job;

  if (!matmul_batched_check (a, b, error))
    return NULL;
  if (a->ndim == 1 || b->ndim == 1)
    return matmul_batched_vector (a, b, device, error);
  tensor_view (a, &va);
  tensor_view (b, &vb);
  if (!ts_matmul_shape (&va, &vb, &ndim, shape, error))
    {
      kernel_error (error);
      return NULL;
    }
  m = a->ndim > 1 ? a->shape[a->ndim - 2] : 1;
  k = a->shape[a->ndim - 1];
  n = b->ndim > 1 ? b->shape[b->ndim - 1] : 1;
  for (guint d = 0; d + (a->ndim > 1) + (b->ndim > 1) < ndim; d++)
    batch *= shape[d];
  out = ts_tensor_new_empty (device, a->dtype, ndim, shape, FALSE, error);
  if (out == NULL)
    return NULL;
  if (ts_tensor_numel (out) != 0)
    {
      job = job_new (ts_op_get (TS_OP_BMM));
      ts_op_job_set_matmul_launch (job, batch, m, n, a->dtype);
      job_set (job, 0, out);
      job_set (job, 1, a);
      job_set (job, 2, b);
      if (dispatch_new (job, device, ts_cost_matmul (batch, m, n, k, a->dtype), out, error) == NULL)
        return NULL;
    }
  {
    /* bmm's formula: the engine sums a broadcast batch down */
    TsTensor *operands[2] = { a, b };

    ts_autograd_record_op (ts_op_get (TS_OP_BMM), TS_OP_GRAD_TENSOR, operands, 2, out, NULL);
  }
  return out;
}

TsTensor *
ts_ops_bmm (TsTensor  *a,
            TsTensor  *b,
            GError   **error)
{
  TsTensor *operands[2] = { a, b };
  g_auto(TsAutocastScope) scope = { { NULL } };
  TsDevice device;

  g_return_val_if_fail (a->ndim == 3 && b->ndim == 3, NULL);

  if (!ts_autocast_operands (ts_op_get (TS_OP_BMM), &scope, &a, &b, error))
    return NULL;
  operands[0] = a;
  operands[1] = b;
  if (!common_device (operands, 2, &device, error))
    return NULL;
  return matmul_batched (a, b, device, error);
}

static TsTensor *
matmul_impl (TsTensor  *a,
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
      /* PyTorch folds the batch, runs bmm (or mm, mv) and _unsafe_views the
       * result back: its grad_fn is UnsafeViewBackward0 */
      g_autoptr(TsTensor) batched = matmul_batched (a, b, device, error);
      TsViewArgs unsafe = { .kind = TS_VIEW_UNSAFE_VIEW };

      if (batched == NULL)
        return NULL;
      unsafe.ndim = batched->ndim;
      ts_dims_copy (unsafe.shape, batched->shape, batched->ndim);
      return ts_autograd_view_op (batched, &unsafe, error);
    }
  if (a->dtype != b->dtype)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "expected m1 and m2 to have the same dtype, but got: %s != %s",
                   ts_dtype_name (a->dtype) + 6, ts_dtype_name (b->dtype) + 6);
      return NULL;
    }

  /* matrix @ vector is ATen's mv. On the CPU that is BLAS gemv, whose
   * sums differ from a one-column gemm's; on a device the mm launch
   * below stands for cuBLAS's gemv (the host would run mv's) */
  if (a->ndim == 2 && b->ndim == 1)
    {
      if (a->shape[1] != b->shape[0])
        {
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "size mismatch, got %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                       ",%" G_GINT64_FORMAT, a->shape[0], a->shape[0], a->shape[1], b->shape[0]);
          return NULL;
        }
      if (device.type == TS_DEVICE_CPU)
        return ts_ops_mv (a, b, error);
    }

  /* a 1-D operand is unsqueezed. Vector-matrix is PyTorch's
   * unsqueeze(0).mm().squeeze_(0), recorded as such; with a vector on the
   * right the node is mv's or dot's, on the operands themselves */
  if (a->ndim == 1 && b->ndim == 2)
    a2 = ts_autograd_view_op (a, &(TsViewArgs) { .kind = TS_VIEW_UNSQUEEZE, .dim0 = 0 }, NULL);
  else
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

  job = job_new (ts_op_get (TS_OP_MM));
  ts_op_job_set_matmul_launch (job, 1, shape[0], shape[1], a->dtype);
  job_set (job, 0, out2);
  job_set (job, 1, a2);
  job_set (job, 2, b2);
  if (!dispatch (job, device,
                 ts_cost_matmul (1, shape[0], shape[1], a2->shape[1], a->dtype), error))
    return NULL;

  if (b->ndim == 1)
    {
      /* drop the dims the 1-D operands gained */
      out = ts_tensor_new_view (out2->storage, out2->dtype, a->ndim == 2 ? 1 : 0, shape, NULL, out2->offset);
      ts_autograd_record_mv_dot (a, b, out);
      return out;
    }
  {
    TsTensor *operands2[2] = { a2, b2 };
    TsOpGradAttrs grad = {
      .column_major = ts_autograd_column_major_bit (a2, 0) | ts_autograd_column_major_bit (b2, 1),
    };

    ts_autograd_record_op (ts_op_get (TS_OP_MM), TS_OP_GRAD_TENSOR, operands2, 2, out2, &grad);
  }
  if (a->ndim == 2)
    return g_steal_pointer (&out2);
  {
    TsViewArgs squeeze = { .kind = TS_VIEW_SQUEEZE_INPLACE, .ndim = 1, .shape = { b2->shape[1] } };

    return ts_autograd_view_op (out2, &squeeze, error);
  }
}

TsTensor *
ts_ops_matmul (TsTensor  *a,
               TsTensor  *b,
               GError   **error)
{
  g_auto(TsAutocastScope) scope = { { NULL } };

  if (!ts_autocast_operands (ts_op_get (TS_OP_MM), &scope, &a, &b, error))
    return NULL;
  return matmul_impl (a, b, error);
}

/* Indexing --------------------------------------------------------------- */

/* Launches the job of an indexing op that reads in at index into out (the
 * job's slots 0, 1 and 2), over dim; returns out, or NULL and drops it. */
static TsTensor *
index_launch (TsOpId     op,
              TsDevice   device,
              int        dim,
              TsTensor  *out,
              TsTensor  *in,
              TsTensor  *index,
              GError   **error)
{
  Job *job = job_new (ts_op_get (op));
  TsView vindex, vout;

  job->dims[0] = dim;
  job_set (job, 0, out);
  job_set (job, 1, in);
  job_set (job, 2, index);
  tensor_view (index, &vindex);
  tensor_view (out, &vout);
  return dispatch_new (job, device, ts_cost_index (&vindex, &vout), out, error);
}

/* index_launch for an op whose gradient scatters back at index along dim
 * (index_select, gather): the node saves the index. */
static TsTensor *
index_launch_scattered (TsOpId     op,
                        TsDevice   device,
                        int        dim,
                        TsTensor  *out,
                        TsTensor  *self,
                        TsTensor  *index,
                        GError   **error)
{
  TsOpGradAttrs grad = { .dims = { dim }, .n_dims = 1, .save_extra = index };

  out = index_launch (op, device, dim, out, self, index, error);
  if (out != NULL)
    ts_autograd_record_op (ts_op_get (op), TS_OP_GRAD_TENSOR, &self, 1, out, &grad);
  return out;
}

static gboolean
index_select_job (Job     *job,
                  GError **error)
{
  TsView out, in, index;
  TsIndexFailure failure;

  job_views (job, &out, &in, &index);
  if (ts_cpu_index_select (&in, (guint) job->dims[0], &index, &out, &failure, error))
    return TRUE;

  /* Only device jobs get here with a bad index (the CPU path checks up
   * front): each thread of the failing index's slice asserts. */
  if (failure.position >= 0)
    {
      gint64 n = ts_tensor_numel (job->t[2]);

      ts_device_assert_index_select (failure.position, n, ts_tensor_numel (job->t[0]) / MAX (n, 1));
      job->fault = TS_DEVICE_ERROR_ASSERT;
    }
  return FALSE;
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
  if (device.type == TS_DEVICE_CPU && !ts_host_data_no_data ())
    host_index = ts_ops_to_host (index, error);
  if (device.type == TS_DEVICE_CPU && !ts_host_data_no_data () && host_index == NULL)
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
  ts_dims_copy (shape, self->shape, self->ndim);
  if (self->ndim > 0)
    shape[dim] = ts_tensor_numel (index);
  out = ts_tensor_new_empty (device, self->dtype, self->ndim, shape, FALSE, error);
  if (out == NULL)
    return NULL;
  return index_launch_scattered (TS_OP_INDEX_SELECT, device, dim, out, self, index, error);
}

/* gather: out[i][j] = self[index[i][j]][j] for dim 0, and so on. */
static gboolean
gather_job (Job     *job,
            GError **error)
{
  TsView out, in, index;
  TsIndexFailure failure = { 0, -1, 0 };

  job_views (job, &out, &in, &index);
  if (ts_cpu_gather (&in, (guint) job->dims[0], &index, &out, &failure, error))
    return TRUE;
  /* as for index_select, only device jobs meet a bad index here */
  if (failure.position >= 0)
    {
      ts_device_assert_gather (&index, failure.dim_size);
      job->fault = TS_DEVICE_ERROR_ASSERT;
    }
  return FALSE;
}

/* The checks of ATen's gather_shape_check and the CPU kernel's bounds
 * check, with their messages (RuntimeError, unlike index_select). */
static gboolean
gather_check (TsTensor  *self,
              int        dim,
              TsTensor  *index,
              gboolean   check_bounds,
              GError   **error)
{
  g_autoptr(TsTensor) host_index = NULL;
  gint64 size = self->ndim ? self->shape[dim] : 1;
  const gint64 *dense;

  if (index->dtype != TS_DTYPE_INT64)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "gather(): Expected dtype int64 for index");
      return FALSE;
    }
  if (MAX (index->ndim, 1) != MAX (self->ndim, 1))
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "Index tensor must have the same number of dimensions as input tensor");
      return FALSE;
    }
  for (guint d = 0; d < index->ndim && self->ndim > 0; d++)
    if ((int) d != dim && index->shape[d] > self->shape[d])
      {
        g_autofree char *si = ts_shape_to_string (index->ndim, index->shape);
        g_autofree char *ss = ts_shape_to_string (self->ndim, self->shape);

        g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                     "Size does not match at dimension %u expected index %s to be smaller than "
                     "self %s apart from dimension %d", d, si, ss, dim);
        return FALSE;
      }
  if (!check_bounds || ts_host_data_no_data ())
    return TRUE;  /* --no-data: no values to check, as on a GPU */
  host_index = ts_ops_to_host (index, error);
  if (host_index == NULL)
    return FALSE;
  /* a dense index read in place (element by element through
   * ts_tensor_get_int, the check cost more than the gather) */
  dense = ts_tensor_is_contiguous (host_index) && host_index->storage->data != NULL
          ? (const gint64 *)(gconstpointer) host_index->storage->data + host_index->offset : NULL;
  for (gint64 i = 0, n = ts_tensor_numel (host_index); i < n; i++)
    {
      gint64 k = dense != NULL ? dense[i] : ts_tensor_get_int (host_index, i);

      if (k < 0 || k >= size)
        {
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "index %" G_GINT64_FORMAT " is out of bounds for dimension %d with size %"
                       G_GINT64_FORMAT, k, dim, size);
          return FALSE;
        }
    }
  return TRUE;
}

TsTensor *
ts_ops_gather (TsTensor  *self,
               int        dim,
               TsTensor  *index,
               GError   **error)
{
  TsTensor *operands[2] = { self, index };
  TsDevice device;
  TsTensor *out;

  if (!common_device (operands, 2, &device, error))
    return NULL;
  if (!ts_tensor_wrap_dim (self->ndim, &dim, error))
    return NULL;
  /* a CUDA kernel finds a bad index on the device (a device-side assert) */
  if (!gather_check (self, dim, index, device.type == TS_DEVICE_CPU, error))
    return NULL;
  out = ts_tensor_new_empty (device, self->dtype, index->ndim, index->shape, FALSE, error);
  if (out == NULL || ts_tensor_numel (out) == 0)
    return out;
  return index_launch_scattered (TS_OP_GATHER, device, dim, out, self, index, error);
}

/* Advanced indexing (torch/_indexing.py parses the subscript) --------- */

/* index and index_put_ over (*B, k) stacked indices (ts_cpu_index): a bad
 * index is the CPU kernel's IndexError (take and put_ name the flat
 * element, as their own kernels do), or on a device the kernel's
 * device-side assert. */
static gboolean
index_fault (Job                  *job,
             TsTensor             *self,
             const TsIndexFailure *failure,
             GError              **error)
{
  TsOpId op = job->desc->id;

  if (failure->position >= 0 && (op == TS_OP_TAKE || op == TS_OP_PUT) && error != NULL)
    {
      g_clear_error (error);
      g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_INDEX,
                   "out of range: tried to access index %" G_GINT64_FORMAT " on a tensor of %"
                   G_GINT64_FORMAT " elements.", failure->index, ts_tensor_numel (self));
    }
  if (failure->position >= 0 && ts_tensor_get_device (job->t[0]).type == TS_DEVICE_CUDA)
    {
      ts_device_assert_index (failure->position, ts_tensor_numel (job->t[2]));
      job->fault = TS_DEVICE_ERROR_ASSERT;
    }
  return FALSE;
}

static gboolean
index_job (Job     *job,
           GError **error)
{
  TsView out, in, index;
  TsIndexFailure failure = { 0, -1, 0 };

  job_views (job, &out, &in, &index);
  return ts_cpu_index (&in, (guint) job->dims[0], &index, &out, &failure, error) ||
         index_fault (job, job->t[1], &failure, error);
}

static gboolean
index_put_job (Job     *job,
               GError **error)
{
  TsView self, values, index;
  TsIndexFailure failure = { 0, -1, 0 };

  job_views (job, &self, &values, &index);
  return ts_cpu_index_put (&self, (guint) job->dims[0], &index, &values, job->p0 != 0, &failure, error) ||
         index_fault (job, job->t[0], &failure, error);
}

static gboolean
same_shape (guint         ndim,
            const gint64 *shape,
            const TsTensor *t)
{
  return t->ndim == ndim && memcmp (t->shape, shape, ndim * sizeof (gint64)) == 0;
}

/* The shape of self[index]: self.shape[:pos] + B + self.shape[pos + k:]. */
static gboolean
index_result_shape (TsTensor  *self,
                    guint      pos,
                    TsTensor  *index,
                    guint     *ndim,
                    gint64    *shape,
                    GError   **error)
{
  guint k = index->ndim ? (guint) index->shape[index->ndim - 1] : 0;

  if (index->dtype != TS_DTYPE_INT64 || index->ndim == 0 || pos + k > self->ndim ||
      self->ndim - k + index->ndim - 1 > TS_MAX_DIMS)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "index: expected int64 indices stacked as (*B, k) over the dims of self");
      return FALSE;
    }
  *ndim = 0;
  for (guint d = 0; d < pos; d++)
    shape[(*ndim)++] = self->shape[d];
  for (guint d = 0; d + 1 < index->ndim; d++)
    shape[(*ndim)++] = index->shape[d];
  for (guint d = pos + k; d < self->ndim; d++)
    shape[(*ndim)++] = self->shape[d];
  return TRUE;
}

TsTensor *
ts_ops_index (TsOpId     op,
              TsTensor  *self,
              guint      pos,
              TsTensor  *index,
              GError   **error)
{
  TsTensor *operands[2] = { self, index };
  gint64 shape[TS_MAX_DIMS];
  TsDevice device;
  TsTensor *out;
  guint ndim;

  if (!common_device (operands, 2, &device, error) ||
      !index_result_shape (self, pos, index, &ndim, shape, error))
    return NULL;
  out = ts_tensor_new_empty (device, self->dtype, ndim, shape, FALSE, error);
  if (out == NULL || ts_tensor_numel (out) == 0)
    return out;
  /* the gradient goes back at index: index_put_ with accumulate */
  return index_launch_scattered (op, device, pos, out, self, index, error);
}

gboolean
ts_ops_index_put_ (TsOpId     op,
                   TsTensor  *self,
                   guint      pos,
                   TsTensor  *index,
                   TsTensor  *values,
                   gboolean   accumulate,
                   GError   **error)
{
  TsTensor *operands[3] = { self, index, values };
  gint64 shape[TS_MAX_DIMS];
  TsView vindex, vvalues;
  TsDevice device;
  guint ndim;
  Job *job;
  g_autoptr(TsTensor) flat = NULL;
  TsTensor *target = self;

  /* put_ indexes self flattened (contiguous, the caller checked); the
   * node is self's */
  if (op == TS_OP_PUT && self->ndim != 1)
    {
      gint64 n = ts_tensor_numel (self);

      if ((flat = ts_tensor_view (self, 1, &n, error)) == NULL)
        return FALSE;
      target = flat;
    }
  if (!common_device (operands, 3, &device, error) ||
      !index_result_shape (target, pos, index, &ndim, shape, error))
    return FALSE;
  if (values->dtype != self->dtype || !same_shape (ndim, shape, values))
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "index_put_: values must have self's dtype and the indexing result's shape");
      return FALSE;
    }
  if (ts_tensor_numel (values) == 0)
    return TRUE;
  if (!ts_autograd_check_inplace (self, error) || !ts_autograd_check_inplace_view (self, error))
    return FALSE;
  job = job_new (ts_op_get (op));
  job->dims[0] = (int) pos;
  job->p0 = accumulate;
  job_set (job, 0, target);
  job_set (job, 1, values);
  job_set (job, 2, index);
  tensor_view (index, &vindex);
  tensor_view (values, &vvalues);
  if (!dispatch (job, device, ts_cost_index (&vindex, &vvalues), error))
    return FALSE;
  ts_autograd_bump_version (self);
  {
    /* in place: self's history continues; the formula reads the index
     * (keepdim: into self flattened) */
    TsTensor *inputs[2] = { self, values };
    TsOpGradAttrs grad = { .dims = { (int) pos }, .n_dims = 1, .scalar = accumulate, .keepdim = flat != NULL,
                           .save_extra = index };

    ts_autograd_record_op (ts_op_get (op), TS_OP_GRAD_TENSOR, inputs, 2, self, &grad);
  }
  return TRUE;
}

static gboolean
nonzero_job (Job     *job,
             GError **error)
{
  TsView out, in;

  job_views (job, &out, &in, NULL);
  return ts_cpu_nonzero (&in, &out, error);
}

/* The output's size depends on the values: on a device the host waits for
 * them (PyTorch copies the count back and synchronizes the stream), then
 * launches the kernel that writes the positions. */
TsTensor *
ts_ops_nonzero (TsTensor  *self,
                GError   **error)
{
  g_autoptr(TsTensor) host = ts_ops_to_host_for (self, "nonzero (its output's size)", error);
  gint64 shape[2];
  TsView vin, vout;
  TsTensor *out;
  Job *job;

  if (host == NULL)
    return NULL;
  tensor_view (host, &vin);
  shape[0] = ts_cpu_count_nonzero (&vin);
  shape[1] = self->ndim;
  out = ts_tensor_new_empty (ts_tensor_get_device (self), TS_DTYPE_INT64, 2, shape, FALSE, error);
  if (out == NULL || ts_tensor_numel (out) == 0)
    return out;
  job = job_new (ts_op_get (TS_OP_NONZERO));
  job_set (job, 0, out);
  job_set (job, 1, self);
  tensor_view (self, &vin);
  tensor_view (out, &vout);
  return dispatch_new (job, ts_tensor_get_device (self), ts_cost_index (&vin, &vout), out, error);
}

static gboolean
masked_fill_job (Job     *job,
                 GError **error)
{
  TsView self, mask, value;
  guint8 element[16] __attribute__ ((aligned (16)));

  job_views (job, &self, &mask, NULL);
  /* the value as one element of self's dtype, as fill_job stores it */
  if (job->scalar.kind == TS_DTYPE_FLOAT64 || ts_dtype_is_floating (self.dtype))
    ts_dtype_store (self.dtype, element, job->scalar.kind == TS_DTYPE_FLOAT64 ? job->scalar.value
                                                                               : (double) job->scalar.ivalue);
  else
    ts_dtype_store_int (self.dtype, element, job->scalar.ivalue);
  ts_view_init_scalar (&value, self.dtype, element);
  return ts_cpu_masked_fill (&self, &mask, &value, error);
}

/* mask is bool with self's shape (broadcast by the caller); the value
 * travels in the kernel's arguments. */
gboolean
ts_ops_masked_fill_ (TsTensor        *self,
                     TsTensor        *mask,
                     const TsScalar  *value,
                     GError         **error)
{
  TsTensor *operands[2] = { self, mask };
  TsView vmask, vself;
  TsDevice device;
  Job *job;

  if (!common_device (operands, 2, &device, error))
    return FALSE;
  if (mask->dtype != TS_DTYPE_BOOL || !same_shape (self->ndim, self->shape, mask))
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "masked_fill_: expected a bool mask of self's shape");
      return FALSE;
    }
  if (!check_fill (self, value, error))
    return FALSE;
  if (ts_tensor_numel (self) == 0)
    return TRUE;
  job = job_new (ts_op_get (TS_OP_MASKED_FILL));
  job->scalar = *value;
  job_set (job, 0, self);
  job_set (job, 1, mask);
  tensor_view (mask, &vmask);
  tensor_view (self, &vself);
  if (!dispatch (job, device, ts_cost_index (&vmask, &vself), error))
    return FALSE;
  {
    /* in place: self's history continues; the formula reads the mask */
    TsOpGradAttrs grad = { .save_extra = mask };

    ts_autograd_record_op (ts_op_get (TS_OP_MASKED_FILL), TS_OP_GRAD_TENSOR, &self, 1, self, &grad);
  }
  return TRUE;
}

/* at::embedding: weight.index_select (0, indices.reshape (-1)) viewed as
 * indices.shape + (weight.size (1),), one kernel under its own name, so
 * that the trace and the sanitizer see aten::embedding as PyTorch's do. */
TsTensor *
ts_ops_embedding (TsTensor  *weight,
                  TsTensor  *indices,
                  GError   **error)
{
  return ts_ops_embedding_full (weight, indices, -1, FALSE, error);
}

TsTensor *
ts_ops_embedding_full (TsTensor  *weight,
                       TsTensor  *indices,
                       gint64     padding_idx,
                       gboolean   scale_grad_by_freq,
                       GError   **error)
{
  TsTensor *operands[2] = { weight, indices };
  TsDevice device;
  gint64 shape[TS_MAX_DIMS];
  gint64 n;
  g_autoptr(TsTensor) flat = NULL;
  g_autoptr(TsTensor) dense = NULL;
  TsTensor *out;

  if (weight->ndim != 2)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME, "'weight' must be 2-D");
      return NULL;
    }
  if (indices->dtype != TS_DTYPE_INT64 && indices->dtype != TS_DTYPE_INT32)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "Expected tensor for argument #1 'indices' to have one of the following scalar "
                   "types: Long, Int; but got torch.%s%sTensor instead (while checking arguments for "
                   "embedding)", ts_tensor_is_cuda (indices) ? "cuda." : "",
                   ts_dtype_scalar_type_name (indices->dtype));
      return NULL;
    }
  if (indices->ndim + 1 > TS_MAX_DIMS)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME, "embedding(): too many dimensions");
      return NULL;
    }
  if (!common_device (operands, 2, &device, error))
    return NULL;
  n = ts_tensor_numel (indices);
  dense = ts_ops_contiguous (indices, error);
  if (dense == NULL)
    return NULL;
  flat = ts_tensor_view (dense, 1, &n, error);
  if (flat == NULL)
    return NULL;
  if (device.type == TS_DEVICE_CPU && !ts_host_data_no_data ())
    {
      g_autoptr(TsTensor) host_index = ts_ops_to_host (flat, error);

      if (host_index == NULL)
        return NULL;
      for (gint64 i = 0; i < n; i++)
        {
          gint64 k = ts_tensor_get_int (host_index, i);

          if (k < 0 || k >= weight->shape[0])
            {
              g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_INDEX,
                                   "index out of range in self");
              return NULL;
            }
        }
    }
  ts_dims_copy (shape, indices->shape, indices->ndim);
  shape[indices->ndim] = weight->shape[1];
  out = ts_tensor_new_empty (device, weight->dtype, indices->ndim + 1, shape, FALSE, error);
  if (out == NULL || ts_tensor_numel (out) == 0)
    return out;
  out = index_launch (TS_OP_EMBEDDING, device, 0, out, weight, flat, error);
  if (out != NULL)
    {
      /* the formula index_adds grad's rows at the flat indices */
      TsOpGradAttrs grad = { .scalar = (double) padding_idx, .keepdim = scale_grad_by_freq,
                             .save_extra = flat };

      ts_autograd_record_op (ts_op_get (TS_OP_EMBEDDING), TS_OP_GRAD_TENSOR, &weight, 1, out, &grad);
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
  host = ts_ops_to_host_for (eq, "torch.equal", error);
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

static gboolean
arange_job (Job     *job,
            GError **error)
{
  TsView out;

  tensor_view (job->t[0], &out);
  if (job->desc->id == TS_OP_LINSPACE)
    ts_cpu_linspace (&out, job->p0, job->p1);
  else
    ts_cpu_arange (&out, job->p0, job->p1);
  return TRUE;
}

/* A new 1-d tensor of @n elements that the range op @id writes from p0
 * and p1. */
static TsTensor *
range_new (TsOpId     id,
           gint64     n,
           double     p0,
           double     p1,
           TsDType    dtype,
           TsDevice   device,
           GError   **error)
{
  TsView vout;
  TsTensor *out;
  Job *job;

  out = ts_tensor_new_empty (device, dtype, 1, &n, FALSE, error);
  if (out == NULL)
    return NULL;
  job = job_new (ts_op_get (id));
  job->p0 = p0;
  job->p1 = p1;
  job_set (job, 0, out);
  tensor_view (out, &vout);
  return dispatch_new (job, device, ts_cost_fill (&vout), out, error);
}

TsTensor *
ts_ops_linspace (double     start,
                 double     end,
                 gint64     steps,
                 TsDType    dtype,
                 TsDevice   device,
                 GError   **error)
{
  if (steps < 0)
    {
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                           "number of steps must be non-negative");
      return NULL;
    }
  return range_new (TS_OP_LINSPACE, steps, start, end, dtype, device, error);
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

  if (!ts_arange_numel (start, end, step, &n, error))
    {
      kernel_error (error);
      return NULL;
    }
  return range_new (TS_OP_ARANGE, n, start, step, dtype, device, error);
}

/* Random numbers ----------------------------------------------------------- */

/* One Philox generator per device, as CUDAGeneratorImpl; the CPU has
 * PyTorch's mt19937 generator (ts-mt19937.h), the default one at device -1
 * and torch.Generator objects at ids -2, -3, ... so CPU fills print the
 * numbers PyTorch prints. */
typedef struct
{
  gboolean          inited;
  guint64           initial_seed;
  TsPhiloxGenerator philox;
  /* CUDA graphs (PyTorch's graph-safe generator): while capturing, offsets
   * come from intragraph, from 0; a replay adds graph_rng's offset */
  gboolean          capturing;
  TsPhiloxGenerator intragraph;
  guint64           graph_rng[2];   /* seed, offset of the replay under way */
} Generator;

static Generator cuda_gens[MAX_DEVICES];
static TsCpuGenerator cpu_default;
static gboolean cpu_default_inited;
static GPtrArray *cpu_extra;   /* TsCpuGenerator * of ids -2, -3, ... */

static Generator *
generator (int device)
{
  Generator *g;

  g_assert (device >= 0 && device < MAX_DEVICES);
  g = &cuda_gens[device];
  if (!g->inited)
    {
      g->inited = TRUE;
      g->initial_seed = TS_PHILOX_DEFAULT_SEED;
      ts_philox_generator_init (&g->philox, TS_PHILOX_DEFAULT_SEED);
    }
  return g;
}

/* NULL for an id that names no CPU generator */
static TsCpuGenerator *
cpu_generator (int id)
{
  if (id == -1)
    {
      if (!cpu_default_inited)
        {
          cpu_default_inited = TRUE;
          ts_cpu_generator_init (&cpu_default, TS_CPU_RNG_DEFAULT_SEED);
        }
      return &cpu_default;
    }
  if (id <= -2 && cpu_extra != NULL && (guint)(-id - 2) < cpu_extra->len)
    return g_ptr_array_index (cpu_extra, -id - 2);
  return NULL;
}

void
ts_rng_capture_prologue (int device)
{
  Generator *gen = generator (device);

  gen->capturing = TRUE;
  ts_philox_generator_init (&gen->intragraph, gen->philox.seed);
}

guint64
ts_rng_capture_epilogue (int device)
{
  Generator *gen = generator (device);

  gen->capturing = FALSE;
  return gen->intragraph.offset;
}

void
ts_rng_replay_prologue (int     device,
                        guint64 increment)
{
  Generator *gen = generator (device);

  gen->graph_rng[0] = gen->philox.seed;
  gen->graph_rng[1] = ts_philox_generator_reserve (&gen->philox, increment);
}

int
ts_rng_cpu_generator_new (void)
{
  TsCpuGenerator *gen = g_new (TsCpuGenerator, 1);

  /* torch.Generator() starts at default_rng_seed_val too */
  ts_cpu_generator_init (gen, TS_CPU_RNG_DEFAULT_SEED);
  if (cpu_extra == NULL)
    cpu_extra = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (cpu_extra, gen);
  return -(int)cpu_extra->len - 1;
}

void
ts_rng_manual_seed (int     device,
                    guint64 seed)
{
  g_return_if_fail (device < MAX_DEVICES);
  if (device < 0)
    {
      TsCpuGenerator *gen = cpu_generator (device);

      g_return_if_fail (gen != NULL);
      ts_cpu_generator_init (gen, seed);
      return;
    }
  generator (device)->initial_seed = seed;
  ts_philox_generator_init (&generator (device)->philox, seed);
}

guint64
ts_rng_initial_seed (int device)
{
  g_return_val_if_fail (device < MAX_DEVICES, 0);
  if (device < 0)
    {
      TsCpuGenerator *gen = cpu_generator (device);

      g_return_val_if_fail (gen != NULL, 0);
      return ts_cpu_generator_initial_seed (gen);
    }
  return generator (device)->initial_seed;
}

guint64
ts_rng_seed (int device)
{
  guint64 seed;

  /* a non-deterministic seed, as torch.seed() draws one: 64 bits for the
   * CPU (from urandom in PyTorch), 53 for the CUDA generators */
  seed = (guint64)g_random_int () << 32 | g_random_int ();
  if (device >= 0)
    seed &= G_GUINT64_CONSTANT (0x1fffffffffffff);
  ts_rng_manual_seed (device, seed);
  return seed;
}

GBytes *
ts_rng_get_state (int device)
{
  guint8 state[TS_CPU_RNG_STATE_SIZE];

  g_return_val_if_fail (device < MAX_DEVICES, NULL);
  if (device < 0)
    {
      TsCpuGenerator *gen = cpu_generator (device);

      g_return_val_if_fail (gen != NULL, NULL);
      ts_cpu_generator_get_state (gen, state);
      return g_bytes_new (state, TS_CPU_RNG_STATE_SIZE);
    }
  ts_philox_generator_get_state (&generator (device)->philox, state);
  return g_bytes_new (state, TS_PHILOX_STATE_SIZE);
}

gboolean
ts_rng_set_state (int       device,
                  GBytes   *state,
                  GError  **error)
{
  gsize n;
  const guint8 *data = g_bytes_get_data (state, &n);
  gboolean ok;

  g_return_val_if_fail (device < MAX_DEVICES, FALSE);
  if (device < 0)
    {
      TsCpuGenerator *gen = cpu_generator (device);

      g_return_val_if_fail (gen != NULL, FALSE);
      ok = ts_cpu_generator_set_state (gen, data, n, error);
    }
  else
    {
      ok = ts_philox_generator_set_state (&generator (device)->philox, data, n, error);
      if (ok)
        generator (device)->initial_seed = generator (device)->philox.seed;
    }
  /* surface it as the RuntimeError PyTorch raises */
  if (!ok && error && *error)
    {
      (*error)->domain = TS_TENSOR_ERROR;
      (*error)->code = TS_TENSOR_ERROR_RUNTIME;
    }
  return ok;
}

/* normal (p0 mean, p1 std) or uniform (p0 from, p1 to) */
static gboolean
random_job (Job     *job,
            GError **error)
{
  TsView out;

  tensor_view (job->t[0], &out);
  if (job->desc->id == TS_OP_RANDOM_FROM_TO)
    return ts_cpu_random_from_to_mt (&out, (gint64)job->p0, (guint64)job->p1, job->cpu_gen, error);
  if (job->desc->id == TS_OP_RANDPERM)
    return ts_cpu_randperm_mt (&out, job->cpu_gen, error);
  if (job->cpu_gen != NULL)
    {
      if (job->desc->id == TS_OP_NORMAL)
        return ts_cpu_normal_mt (&out, job->p0, job->p1, job->cpu_gen, error);
      return ts_cpu_uniform_mt (&out, job->p0, job->p1, job->cpu_gen, error);
    }
  if (job->desc->id == TS_OP_NORMAL)
    return ts_cpu_normal (&out, job->p0, job->p1, job->seed, job->offset, &job->plan, error);
  return ts_cpu_uniform (&out, job->p0, job->p1, job->seed, job->offset, &job->plan, error);
}

static gboolean
random_fill (TsTensor  *self,
             gboolean   normal,
             double     p0,
             double     p1,
             int        cpu_gen_id,
             GError   **error)
{
  TsDevice device = ts_tensor_get_device (self);
  TsView view;
  Job *job;

  if (!ts_dtype_is_floating (self->dtype))
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "\"%s\" not implemented for '%s'",
                   !normal ? "check_uniform_bounds"
                   : device.type == TS_DEVICE_CUDA ? "normal_kernel_cuda" : "normal_kernel_cpu",
                   ts_dtype_scalar_type_name (self->dtype));
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
  if (device.type != TS_DEVICE_CUDA && cpu_generator (cpu_gen_id) == NULL)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "invalid CPU generator %d", cpu_gen_id);
      return FALSE;
    }

  tensor_view (self, &view);
  job = job_new (ts_op_get (normal ? TS_OP_NORMAL : TS_OP_UNIFORM));
  job->p0 = p0;
  job->p1 = p1;
  if (device.type == TS_DEVICE_CUDA)
    {
      const TsGpuProfile *profile = ts_session_get_profile (device.index);
      Generator *gen = generator (device.index);

      ts_cpu_random_plan (&view, profile->sm_count, profile->max_threads_per_sm, &job->plan);
      job->grid = job->plan.grid_size;
      job->block = job->plan.block_size;
      job->seed = gen->philox.seed;
      if (G_UNLIKELY (gen->capturing))
        job->graph_rng = gen->graph_rng;
      job->offset = ts_philox_generator_reserve (gen->capturing ? &gen->intragraph : &gen->philox,
                                                 job->plan.offset_increment);
    }
  else
    job->cpu_gen = cpu_generator (cpu_gen_id);
  job_set (job, 0, self);
  return dispatch (job, device, ts_cost_random (&view, normal), error);
}

gboolean
ts_ops_random_fill_ (TsTensor  *self,
                     gboolean   normal,
                     double     p0,
                     double     p1,
                     int        cpu_generator_id,
                     GError   **error)
{
  return random_fill (self, normal, p0, p1, cpu_generator_id, error);
}

/* random_(from, to) and randperm: CPU tensors only (their CUDA forms
 * are composed in Python), so no Philox plan. p1 carries the range as a
 * double: exact below 2^53. */
gboolean
ts_ops_random_int_ (TsTensor  *self,
                    TsOpId     id,
                    gint64     from,
                    guint64    range,
                    int        cpu_gen_id,
                    GError   **error)
{
  TsView view;
  Job *job;

  g_return_val_if_fail (id == TS_OP_RANDOM_FROM_TO || id == TS_OP_RANDPERM, FALSE);

  if (ts_tensor_get_device (self).type == TS_DEVICE_CUDA || cpu_generator (cpu_gen_id) == NULL)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "%s: a CPU tensor and a CPU generator are expected", ts_op_get (id)->name);
      return FALSE;
    }
  tensor_view (self, &view);
  job = job_new (ts_op_get (id));
  job->p0 = (double)from;
  job->p1 = (double)range;
  job->cpu_gen = cpu_generator (cpu_gen_id);
  job_set (job, 0, self);
  return dispatch (job, ts_tensor_get_device (self), ts_cost_random (&view, FALSE), error);
}

gboolean
ts_ops_normal_ (TsTensor  *self,
                double     mean,
                double     std,
                GError   **error)
{
  return random_fill (self, TRUE, mean, std, -1, error);
}

gboolean
ts_ops_uniform_ (TsTensor  *self,
                 double     from,
                 double     to,
                 GError   **error)
{
  return random_fill (self, FALSE, from, to, -1, error);
}

/* A real GPU ---------------------------------------------------------------- */

/* With the "cuda" backend, device storage holds no host bytes: a job's
 * device function enqueues it on the stream through the CUDA module's
 * table (ts-cuda-kernels.h). The table is narrower than the CPU kernels
 * (binary operands of one dtype, floating inputs for the float functions,
 * keepdim-shaped reductions): the casts happen here, into temporaries the
 * host part allocated (device_temp_sizes). What the table cannot do
 * (TS_CUDA_ERROR_NOT_SUPPORTED, or no mapping at all) runs on the host
 * over copies of the operands' bytes: correct, slow, and logged. */

typedef int (*DeviceFunc) (Job                 *job,
                           const TsCudaKernels *k,
                           gpointer             stream);

static gboolean
cuda_view (const TsTensor *t,
           TsCudaView     *view)
{
  /* only device memory: a CPU operand (a 0-dim tensor riding along)
   * leaves the job to the host; so does a complex one (the module has no
   * complex kernels) */
  if (t->ndim > TS_CUDA_MAX_DIMS || t->storage->device.type != TS_DEVICE_CUDA || ts_dtype_is_complex (t->dtype))
    return FALSE;
  memset (view, 0, sizeof *view);
  view->dtype = t->dtype;
  view->ndim = (int32_t) t->ndim;
  ts_dims_copy (view->shape, t->shape, t->ndim);
  ts_dims_copy (view->strides, t->strides, t->ndim);
  view->offset = t->offset;
  view->data = GSIZE_TO_POINTER (t->storage->addr);
  return TRUE;
}

/* A contiguous view of a temporary. */
static void
temp_view (TsCudaView   *view,
           TsDType       dtype,
           guint         ndim,
           const gint64 *shape,
           guint64       addr)
{
  gint64 stride = 1;

  memset (view, 0, sizeof *view);
  view->dtype = dtype;
  view->ndim = (int32_t) ndim;
  for (guint d = ndim; d-- > 0;)
    {
      view->shape[d] = shape[d];
      view->strides[d] = stride;
      stride *= shape[d];
    }
  view->data = GSIZE_TO_POINTER (addr);
}

static gsize
temp_size (const TsTensor *t,
           TsDType         dtype)
{
  return (gsize) ts_tensor_numel (t) * ts_dtype_size (dtype);
}

/* Binary: the table's operand dtype is the one the op computes in, its
 * output that or bool. */
static TsDType
binary_device_dtype (const Job *job)
{
  return ts_binary_compute_dtype (job->desc->kernel, job->compute);
}

static TsDType
binary_device_out (const Job *job)
{
  if (ts_binary_result_dtype (job->desc->kernel, job->compute) == TS_DTYPE_BOOL)
    return TS_DTYPE_BOOL;
  return binary_device_dtype (job);
}

/* Reductions: the dtype the input is cast to, and the one the table
 * reduces into (ts_reduce_result_dtype's), so that the result rounds
 * once as the CPU kernel's: a wider floating output takes a cast input
 * (sum (dtype=float64) of float32 accumulates as the CPU does), a
 * narrower one, or an integer one, the reduction's own result, cast
 * (integers accumulate in int64 first, as on the CPU). */
static void
reduce_device_dtypes (const Job *job,
                      TsDType   *in_dtype,
                      TsDType   *red_dtype)
{
  TsDType in = job->t[1]->dtype, out = job->t[0]->dtype, result = out;
  gboolean have = ts_reduce_result_dtype (job->desc->kernel, in, &result, NULL);

  *in_dtype = in;
  *red_dtype = result;
  if (have && result == out)
    *red_dtype = out;
  else if (ts_dtype_is_floating (out) &&
           (!have || (ts_dtype_is_floating (in) && ts_dtype_promote (in, out) == out)))
    *in_dtype = *red_dtype = out;
}

static TsDType
unary_device_dtype (const Job *job)
{
  if (job->desc->rule == TS_OP_RULE_BOOL_RESULT)
    return job->t[1]->dtype;
  return ts_unary_result_dtype (job->desc->kernel, job->t[1]->dtype);
}

/* What the module's unary kernel writes: an out= of another dtype (sin
 * of float32 into float64) takes it through a temporary, as binary_device */
static TsDType
unary_device_out (const Job *job)
{
  return job->desc->rule == TS_OP_RULE_BOOL_RESULT ? TS_DTYPE_BOOL : unary_device_dtype (job);
}

/* The byte sizes of the device function's temporaries (0: none). */
static void
device_temp_sizes (Job   *job,
                   gsize *sizes)
{
  TsDType in_dtype, red_dtype;

  switch (job->desc->family)
    {
    case TS_OP_FAMILY_BINARY:
      {
      TsDType dt = binary_device_dtype (job);

      for (guint k = 1; k <= 2; k++)
        if (job->t[k] != NULL && job->t[k]->dtype != dt)
          sizes[k - 1] = temp_size (job->t[k], dt);
      if (job->t[0]->dtype != binary_device_out (job))
        sizes[2] = temp_size (job->t[0], binary_device_out (job));
      }
      break;
    case TS_OP_FAMILY_UNARY:
      if (job->t[1]->dtype != unary_device_dtype (job))
        sizes[0] = temp_size (job->t[1], unary_device_dtype (job));
      if (job->t[0]->dtype != unary_device_out (job))
        sizes[1] = temp_size (job->t[0], unary_device_out (job));
      break;
    case TS_OP_FAMILY_REDUCE:
      reduce_device_dtypes (job, &in_dtype, &red_dtype);
      if (in_dtype != job->t[1]->dtype)
        sizes[0] = temp_size (job->t[1], in_dtype);
      if (red_dtype != job->t[0]->dtype)
        sizes[1] = temp_size (job->t[0], red_dtype);
      break;
    case TS_OP_FAMILY_INDEX_SELECT:
      if (job->t[2]->dtype != TS_DTYPE_INT64)
        sizes[0] = temp_size (job->t[2], TS_DTYPE_INT64);
      break;
    case TS_OP_FAMILY_CONV:
      ts_ops_conv_device_temps (job, sizes);
      break;
    default:
      break;
    }
}

static gboolean
device_temps_new (Job        *job,
                  int         device,
                  TsStreamId  stream,
                  gpointer   *blocks,
                  GError    **error)
{
  gsize sizes[JOB_N_TEMPS] = { 0 };

  if (ts_tensor_numel (job->t[0]) == 0)
    return TRUE;
  device_temp_sizes (job, sizes);
  for (guint i = 0; i < JOB_N_TEMPS; i++)
    {
      guint8 *host;

      if (sizes[i] == 0)
        continue;
      if (!ts_session_malloc (device, sizes[i], stream, &job->temp[i], &host, &blocks[i], error))
        {
          device_temps_free (blocks);
          return FALSE;
        }
    }
  return TRUE;
}

static void
device_temps_free (gpointer *blocks)
{
  for (guint i = 0; i < JOB_N_TEMPS; i++)
    g_clear_pointer (&blocks[i], ts_session_free);
}

/* The job's operand in slot k (> 0) as a device view of @dtype: the
 * tensor itself, or its cast into the job's temporary k - 1. */
static int
device_operand (Job                 *job,
                guint                k,
                TsDType              dtype,
                const TsCudaKernels *kt,
                gpointer             stream,
                TsCudaView          *view)
{
  TsCudaView in;

  if (!cuda_view (job->t[k], &in))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  if (in.dtype == dtype)
    {
      *view = in;
      return TS_CUDA_SUCCESS;
    }
  temp_view (view, dtype, job->t[k]->ndim, job->t[k]->shape, job->temp[k - 1]);
  return kt->copy (view, &in, stream);
}

/* A binary operand: the tensor (device_operand), or the scalar as the
 * kernel's argument. */
static int
binary_operand (Job                 *job,
                guint                k,
                TsDType              dtype,
                const TsCudaKernels *kt,
                gpointer             stream,
                TsCudaView          *view)
{
  if (job->t[k] == NULL)
    {
      memset (view, 0, sizeof *view);
      view->dtype = dtype;
      /* a float scalar meets an integer dtype only in logical ops (bool) */
      if (job->scalar.kind == TS_DTYPE_FLOAT64)
        {
          view->dvalue = job->scalar.value;
          if (dtype == TS_DTYPE_BOOL)
            view->ivalue = job->scalar.value != 0;
          else if (!ts_dtype_is_floating (dtype) && job->scalar.value > -9.2e18 && job->scalar.value < 9.2e18)
            view->ivalue = (gint64) job->scalar.value;
        }
      else
        {
          view->ivalue = dtype == TS_DTYPE_BOOL ? job->scalar.ivalue != 0 : job->scalar.ivalue;
          view->dvalue = (double) view->ivalue;
        }
      return TS_CUDA_SUCCESS;
    }
  return device_operand (job, k, dtype, kt, stream, view);
}

static int
binary_device (Job                 *job,
               const TsCudaKernels *k,
               gpointer             stream)
{
  TsDType dt = binary_device_dtype (job);
  TsCudaView out, res, a, b;
  int err;

  if (!cuda_view (job->t[0], &out))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  /* add/sub with alpha: one kernel, as PyTorch's (ts_ops_binary_alpha
   * made the operands contiguous, of one floating dtype and shape) */
  if (job->has_alpha)
    return !cuda_view (job->t[1], &a) || !cuda_view (job->t[2], &b)
           ? TS_CUDA_ERROR_NOT_SUPPORTED
           : k->binary_alpha (job->desc->cuda, &out, &a, &b, job->p0, stream);
  if ((err = binary_operand (job, 1, dt, k, stream, &a)) != 0 ||
      (err = binary_operand (job, 2, dt, k, stream, &b)) != 0)
    return err;
  if (out.dtype == binary_device_out (job))
    return k->binary (job->desc->cuda, &out, &a, &b, stream);
  temp_view (&res, binary_device_out (job), job->t[0]->ndim, job->t[0]->shape, job->temp[2]);
  if ((err = k->binary (job->desc->cuda, &res, &a, &b, stream)) != 0)
    return err;
  return k->copy (&out, &res, stream);
}

static int
unary_device (Job                 *job,
              const TsCudaKernels *k,
              gpointer             stream)
{
  TsCudaView out, in, res;
  int err;

  if (!cuda_view (job->t[0], &out))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  if ((err = device_operand (job, 1, unary_device_dtype (job), k, stream, &in)) != 0)
    return err;
  if (out.dtype == unary_device_out (job))
    return k->unary (job->desc->cuda, &out, &in, stream);
  temp_view (&res, unary_device_out (job), job->t[0]->ndim, job->t[0]->shape, job->temp[1]);
  if ((err = k->unary (job->desc->cuda, &res, &in, stream)) != 0)
    return err;
  return k->copy (&out, &res, stream);
}

static int
fill_device (Job                 *job,
             const TsCudaKernels *k,
             gpointer             stream)
{
  TsCudaView out;

  if (!cuda_view (job->t[0], &out))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  /* as fill_job: integers that a double cannot hold go as integers */
  if (job->scalar.kind == TS_DTYPE_FLOAT64 || ts_dtype_is_floating (job->t[0]->dtype))
    return k->fill (&out, job->scalar.kind == TS_DTYPE_FLOAT64 ? job->scalar.value
                                                               : (double) job->scalar.ivalue, stream);
  return k->fill_int (&out, job->scalar.ivalue, stream);
}

/* The keepdim view of a reduction's output over in's dims (the output is
 * a fresh contiguous tensor, with or without the reduced dims). */
static void
keepdim_view (const TsTensor *out,
              const TsTensor *in,
              guint64         mask,
              TsDType         dtype,
              guint64         addr,
              TsCudaView     *view)
{
  gint64 shape[TS_MAX_DIMS];

  for (guint d = 0; d < in->ndim; d++)
    shape[d] = mask == 0 || (mask & (G_GUINT64_CONSTANT (1) << d)) ? 1 : in->shape[d];
  temp_view (view, dtype, in->ndim, shape, addr);
  if (out != NULL)
    view->offset = out->offset;
}

static int
reduce_device (Job                 *job,
               const TsCudaKernels *k,
               gpointer             stream)
{
  TsDType in_dtype, red_dtype;
  TsCudaView out, in, res;
  int err;

  if (!cuda_view (job->t[0], &out))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  reduce_device_dtypes (job, &in_dtype, &red_dtype);
  keepdim_view (job->t[0], job->t[1], job->dim_mask, job->t[0]->dtype, job->t[0]->storage->addr, &out);
  if ((err = device_operand (job, 1, in_dtype, k, stream, &in)) != 0)
    return err;
  if (red_dtype == out.dtype)
    return k->reduce (job->desc->cuda, &out, &in, job->dim_mask, stream);
  keepdim_view (NULL, job->t[1], job->dim_mask, red_dtype, job->temp[1], &res);
  if ((err = k->reduce (job->desc->cuda, &res, &in, job->dim_mask, stream)) != 0)
    return err;
  return k->copy (&out, &res, stream);
}

static int
max_dim_device (Job                 *job,
                const TsCudaKernels *k,
                gpointer             stream)
{
  guint64 mask = G_GUINT64_CONSTANT (1) << job->dims[0];
  TsCudaView values, indices, in;

  if (job->t[1]->ndim == 0 || !cuda_view (job->t[1], &in) ||
      job->t[0]->storage->device.type != TS_DEVICE_CUDA || job->t[2]->storage->device.type != TS_DEVICE_CUDA)
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  keepdim_view (job->t[0], job->t[1], mask, job->t[0]->dtype, job->t[0]->storage->addr, &values);
  keepdim_view (job->t[2], job->t[1], mask, TS_DTYPE_INT64, job->t[2]->storage->addr, &indices);
  return k->max_dim (&values, &indices, &in, job->dims[0], job->desc->kernel, stream);
}

/* cuBLAS takes a matrix with a unit stride in one of its dims (the last
 * two dims of a batched view). */
static gboolean
blas_view (const TsCudaView *v)
{
  int r = v->ndim - 2, c = v->ndim - 1;

  return v->strides[c] == 1 || v->strides[r] == 1 || v->shape[r] == 1 || v->shape[c] == 1;
}

/* The dtypes the module's GEMMs take. */
static gboolean
blas_dtype (TsDType dtype)
{
  return dtype == TS_DTYPE_FLOAT32 || dtype == TS_DTYPE_FLOAT64 || dtype == TS_DTYPE_FLOAT16 ||
         dtype == TS_DTYPE_BFLOAT16;
}

/* mm and bmm through cuBLAS, in float32, float64, float16 or bfloat16,
 * with TF32 math for float32 when the job's precision says so. */
static int
matmul_device (Job                 *job,
               const TsCudaKernels *k,
               gpointer             stream)
{
  TsCudaView c, a, b;
  int err;

  if (!cuda_view (job->t[0], &c) || !cuda_view (job->t[1], &a) || !cuda_view (job->t[2], &b))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  if (!blas_dtype (c.dtype) || c.ndim < 2 || c.ndim > 3 || a.ndim != c.ndim || b.ndim != c.ndim ||
      !blas_view (&a) || !blas_view (&b))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  if (a.shape[a.ndim - 1] == 0)
    return k->fill (&c, 0.0, stream);
  if ((err = k->set_matmul_tf32 (job->precision == TS_PRECISION_TF32)) != 0)
    return err;
  if (c.ndim == 3)
    return k->bmm (&c, &a, &b, stream);
  return k->matmul (&c, &a, &b, stream);
}

/* addmm as PyTorch runs it without cuBLASLt: self (broadcast) copied into
 * out, then out += mat1 @ mat2 in one GEMM with beta 1. Other factors, and
 * mv, take the host fallback. */
static int
mv_device (Job                 *job,
           const TsCudaKernels *k,
           gpointer             stream)
{
  TsCudaView c, self, a, b;
  int err;

  if (job->desc->id != TS_OP_ADDMM || job->p0 != 1.0 || job->p1 != 1.0 ||
      !cuda_view (job->t[0], &c) || !cuda_view (job->t[1], &self) || !cuda_view (job->t[2], &a) ||
      !cuda_view (job->t[3], &b))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  if (!blas_dtype (c.dtype) || self.dtype != c.dtype || !blas_view (&a) || !blas_view (&b))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  if ((err = k->copy (&c, &self, stream)) != 0 || a.shape[1] == 0)
    return err;
  if ((err = k->set_matmul_tf32 (job->precision == TS_PRECISION_TF32)) != 0)
    return err;
  return k->matmul_acc (&c, &a, &b, stream);
}

/* A 0-dim index is a vector of one. */
static void
index_vector (TsCudaView *index)
{
  if (index->ndim == 0)
    {
      index->ndim = 1;
      index->shape[0] = 1;
      index->strides[0] = 1;
    }
}

static int
index_select_device (Job                 *job,
                     const TsCudaKernels *k,
                     gpointer             stream)
{
  TsCudaView out, in, index, cast;
  int err;

  if (!cuda_view (job->t[0], &out) || !cuda_view (job->t[1], &in) || !cuda_view (job->t[2], &index))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  index_vector (&index);
  /* aten::embedding's output has the indices' shape in front (a new,
   * contiguous tensor): the module's index_select sees it as the
   * [n, rest of the weight] matrix it writes. Found on an H200: every
   * nn.Embedding failed with "invalid argument" there. */
  if (out.ndim != in.ndim && job->dims[0] == 0 && ts_tensor_is_contiguous (job->t[0]))
    {
      out.ndim = in.ndim;
      out.shape[0] = index.shape[0];
      for (int d = in.ndim - 1; d >= 0; d--)
        {
          if (d > 0)
            out.shape[d] = in.shape[d];
          out.strides[d] = d == in.ndim - 1 ? 1 : out.strides[d + 1] * out.shape[d + 1];
        }
    }
  if (index.dtype != TS_DTYPE_INT64)
    {
      temp_view (&cast, TS_DTYPE_INT64, 1, index.shape, job->temp[0]);
      if ((err = k->copy (&cast, &index, stream)) != 0)
        return err;
      index = cast;
    }
  return k->index_select (&out, &in, job->dims[0], &index, stream);
}

static int
gather_device (Job                 *job,
               const TsCudaKernels *k,
               gpointer             stream)
{
  TsCudaView out, in, index;

  if (!cuda_view (job->t[0], &out) || !cuda_view (job->t[1], &in) || !cuda_view (job->t[2], &index))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  return k->gather (&out, &in, job->dims[0], &index, stream);
}

static int
arange_device (Job                 *job,
               const TsCudaKernels *k,
               gpointer             stream)
{
  TsCudaView out;

  if (!cuda_view (job->t[0], &out))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  return k->arange (&out, job->p0, job->p1, stream);
}

/* softmax and log_softmax (KERNEL 0, 1) and their backwards (| 2: slots
 * out, grad_output, output) along Job.dims[0], any strides */
static int
softmax_device (Job                 *job,
                const TsCudaKernels *k,
                gpointer             stream)
{
  TsCudaView out, in, output;
  int log = job->desc->kernel & 1;

  if (!cuda_view (job->t[0], &out) || !cuda_view (job->t[1], &in))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  if (!(job->desc->kernel & 2))
    return k->softmax (&out, &in, job->dims[0], log, stream);
  if (!cuda_view (job->t[2], &output))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  return k->softmax_backward (&out, &in, &output, job->dims[0], log, stream);
}

static int
random_device (Job                 *job,
               const TsCudaKernels *k,
               gpointer             stream)
{
  TsCudaView out;

  /* the table draws float32 and float64; the half types fill on the host
   * from the same (seed, offset) */
  if (job->cpu_gen != NULL || !cuda_view (job->t[0], &out) ||
      (out.dtype != TS_DTYPE_FLOAT32 && out.dtype != TS_DTYPE_FLOAT64))
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  return k->random (job->desc->cuda, &out, job->p0, job->p1,
                    job->seed, job->offset, stream);
}

/* The families with no device kernel yet (their rows say
 * TS_OP_CUDA_HOST): a real GPU computes them on the host fallback. */
static int
host_only_device (Job                 *job,
                  const TsCudaKernels *k,
                  gpointer             stream)
{
  return TS_CUDA_ERROR_NOT_SUPPORTED;
}

/* Copies: same-dtype dense copies are memcpys (within a device, between
 * devices, across the host boundary); casts and strides on one device
 * are the copy kernel's; across the host boundary or between devices
 * they stage through host memory (copy_host below). */
static int
copy_device (Job                 *job,
             const TsCudaKernels *k,
             gpointer             stream)
{
  TsTensor *dst = job->t[0], *src = job->t[1];
  TsDevice dd = dst->storage->device, sd = src->storage->device;
  gboolean dense = dst->dtype == src->dtype && ts_tensor_is_contiguous (dst) && ts_tensor_is_contiguous (src);
  gsize bytes = ts_tensor_nbytes (dst);
  TsCudaView out, in;
  int err;

  if (dd.type == TS_DEVICE_CUDA && sd.type == TS_DEVICE_CUDA)
    {
      guint8 *d = (guint8 *) GSIZE_TO_POINTER (dst->storage->addr) + dst->offset * ts_dtype_size (dst->dtype);
      const guint8 *s = (const guint8 *) GSIZE_TO_POINTER (src->storage->addr) + src->offset * ts_dtype_size (src->dtype);

      if (dd.index != sd.index)
        return dense ? k->memcpy_peer_async (d, dd.index, s, sd.index, bytes, stream)
                     : TS_CUDA_ERROR_NOT_SUPPORTED;
      if (dense)
        return k->memcpy_async (d, s, bytes, stream);
      if (!cuda_view (dst, &out) || !cuda_view (src, &in))
        return TS_CUDA_ERROR_NOT_SUPPORTED;
      return k->copy (&out, &in, stream);
    }
  if (!dense)
    return TS_CUDA_ERROR_NOT_SUPPORTED;
  if (sd.type == TS_DEVICE_CPU)
    return k->memcpy_async ((guint8 *) GSIZE_TO_POINTER (dst->storage->addr) + dst->offset * ts_dtype_size (dst->dtype),
                            ts_tensor_data (src), bytes, stream);
  err = k->memcpy_async (ts_tensor_data (dst),
                         (const guint8 *) GSIZE_TO_POINTER (src->storage->addr) + src->offset * ts_dtype_size (src->dtype),
                         bytes, stream);
  /* into pageable memory the host waits, as cudaMemcpyAsync does */
  if (err == 0 && !dst->storage->pinned)
    err = k->stream_sync (stream);
  return err;
}

/* The job machinery for families in other files (ts-ops-private.h) */

guint64
ts_op_job_temp (const TsOpJob *job,
                guint          i)
{
  g_return_val_if_fail (i < JOB_N_TEMPS, 0);

  return job->temp[i];
}

gboolean
ts_op_job_cuda_view (const TsOpJob *job,
                     guint          slot,
                     TsCudaView    *view)
{
  g_return_val_if_fail (slot < JOB_N_SLOTS, FALSE);

  return job->t[slot] != NULL && cuda_view (job->t[slot], view);
}

gboolean
ts_ops_common_device (TsTensor **tensors,
                      guint      n,
                      TsDevice  *device,
                      GError   **error)
{
  return common_device (tensors, n, device, error);
}

TsOpJob *
ts_op_job_new (TsOpId id)
{
  return job_new (ts_op_get (id));
}

const TsOpDesc *
ts_op_job_desc (const TsOpJob *job)
{
  return job->desc;
}

void
ts_op_job_set (TsOpJob  *job,
               guint     slot,
               TsTensor *tensor)
{
  g_return_if_fail (slot < G_N_ELEMENTS (job->t));
  job_set (job, slot, tensor);
}

void
ts_op_job_set_output (TsOpJob  *job,
                      guint     slot,
                      TsTensor *tensor)
{
  ts_op_job_set (job, slot, tensor);
  job->out_mask |= 1u << slot;
}

void
ts_op_job_set_args (TsOpJob *job,
                    gint64   arg,
                    int      dim,
                    guint64  mask)
{
  job->scalar.ivalue = arg;
  job->dims[0] = dim;
  job->dim_mask = mask;
}

void
ts_op_job_set_params (TsOpJob      *job,
                      gconstpointer params,
                      gsize         size)
{
  g_return_if_fail (size <= sizeof job->params);
  memcpy (job->params, params, size);
}

gconstpointer
ts_op_job_get_params (const TsOpJob *job)
{
  return job->params;
}

void
ts_op_job_fault_assert (TsOpJob *job)
{
  job->fault = TS_DEVICE_ERROR_ASSERT;
}

void
ts_op_job_unpack (const TsOpJob *job,
                  TsView        *views,
                  TsOpJobArgs   *args)
{
  G_STATIC_ASSERT (TS_OP_JOB_N_VIEWS <= JOB_N_SLOTS);
  for (guint i = 0; i < TS_OP_JOB_N_VIEWS; i++)
    if (job->t[i] != NULL)
      tensor_view (job->t[i], &views[i]);
    else
      memset (&views[i], 0, sizeof views[i]);
  if (job->elementwise)
    job_flatten_one_layout (job, (TsView *[]) { &views[0], &views[1], &views[2], &views[3] },
                            MIN (job->n_slots, TS_OP_JOB_N_VIEWS));
  args->arg = job->scalar.ivalue;
  args->dim = job->dims[0];
  args->mask = job->dim_mask;
  args->p0 = job->p0;
  args->p1 = job->p1;
}

gboolean
ts_ops_fail (GError    **error,
             const char *format,
             ...)
{
  va_list args;

  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME, format, args));
  va_end (args);
  return FALSE;
}

/* cuBLAS-like 128x128 output tiles of 256 threads, on the tensor cores
 * the dtype and the TF32 setting allow */
void
ts_op_job_set_matmul_launch (TsOpJob *job,
                             gint64   batch,
                             gint64   m,
                             gint64   n,
                             TsDType  dtype)
{
  job->precision = ts_ops_matmul_precision (dtype);
  job->block = 256;
  job->grid = (guint32) CLAMP (batch * ((m + 127) / 128) * ((n + 127) / 128), 1, G_MAXINT32);
}

void
ts_op_job_set_elementwise (TsOpJob *job)
{
  job->elementwise = TRUE;
}

void
ts_op_job_set_launch (TsOpJob *job,
                      guint32  block,
                      gint64   grid)
{
  job->block = block;
  job->grid = (guint32) CLAMP (grid, 1, G_MAXINT32);
}

void
ts_op_job_set_blas_lt (TsOpJob *job)
{
  g_return_if_fail (job->desc->blas == TS_OP_BLAS_LT);
  job->blas_lt = TRUE;
}

void
ts_op_job_set_factors (TsOpJob *job,
                       double   p0,
                       double   p1)
{
  job->p0 = p0;
  job->p1 = p1;
}

void
ts_op_job_view (const TsOpJob *job,
                guint          slot,
                TsView        *view)
{
  /* an empty slot is a view with no data, as ts_op_job_unpack's */
  if (job->t[slot] != NULL)
    tensor_view (job->t[slot], view);
  else
    memset (view, 0, sizeof *view);
}

gboolean
ts_op_job_dispatch (TsOpJob       *job,
                    TsDevice       device,
                    TsKernelCost   cost,
                    GError       **error)
{
  return dispatch (job, device, cost, error);
}

TsTensor *
ts_op_job_dispatch_new (TsOpJob       *job,
                        TsDevice       device,
                        TsKernelCost   cost,
                        TsTensor      *out,
                        GError       **error)
{
  return dispatch_new (job, device, cost, out, error);
}

/* Each family's CPU kernel entry and device function: a job finds both
 * through its op's descriptor. */
static const struct
{
  JobFunc     run;
  DeviceFunc  device;
} families[TS_OP_N_FAMILIES] = {
  [TS_OP_FAMILY_BINARY] = { binary_job, binary_device },
  [TS_OP_FAMILY_UNARY] = { unary_job, unary_device },
  [TS_OP_FAMILY_REDUCE] = { reduce_job, reduce_device },
  [TS_OP_FAMILY_MAX_DIM] = { max_dim_job, max_dim_device },
  [TS_OP_FAMILY_FILL] = { fill_job, fill_device },
  [TS_OP_FAMILY_COPY] = { copy_job, copy_device },
  [TS_OP_FAMILY_MATMUL] = { matmul_job, matmul_device },
  [TS_OP_FAMILY_INDEX_SELECT] = { index_select_job, index_select_device },
  [TS_OP_FAMILY_GATHER] = { gather_job, gather_device },
  [TS_OP_FAMILY_ARANGE] = { arange_job, arange_device },
  [TS_OP_FAMILY_RANDOM] = { random_job, random_device },
  [TS_OP_FAMILY_INDEX] = { index_job, host_only_device },
  [TS_OP_FAMILY_INDEX_PUT] = { index_put_job, host_only_device },
  [TS_OP_FAMILY_NONZERO] = { nonzero_job, host_only_device },
  [TS_OP_FAMILY_MASKED_FILL] = { masked_fill_job, host_only_device },
  [TS_OP_FAMILY_SOFTMAX] = { softmax_job, softmax_device },
  [TS_OP_FAMILY_SHAPE] = { ts_ops_shape_job, ts_ops_host_device },
  [TS_OP_FAMILY_SORT] = { ts_ops_sort_job, ts_ops_host_device },
  [TS_OP_FAMILY_SCAN] = { ts_ops_scan_job, ts_ops_host_device },
  [TS_OP_FAMILY_SCATTER] = { ts_ops_scatter_job, ts_ops_host_device },
  [TS_OP_FAMILY_AMP] = { ts_ops_amp_job, ts_ops_host_device },
  [TS_OP_FAMILY_WHERE] = { ts_ops_where_job, ts_ops_host_device },
  [TS_OP_FAMILY_TERNARY] = { ts_ops_ternary_job, ts_ops_host_device },
  [TS_OP_FAMILY_MV] = { ts_ops_mv_job, mv_device },
  [TS_OP_FAMILY_CONV] = { ts_ops_conv_job, ts_ops_conv_device },
  [TS_OP_FAMILY_POOL] = { ts_ops_pool_job, ts_ops_host_device },
  [TS_OP_FAMILY_NORM] = { ts_ops_norm_job, ts_ops_host_device },
  [TS_OP_FAMILY_REMAP] = { ts_ops_remap_job, ts_ops_host_device },
  [TS_OP_FAMILY_ACT] = { ts_ops_act_job, ts_ops_act_device },
  [TS_OP_FAMILY_LOSS] = { ts_ops_loss_job, ts_ops_loss_device },
  [TS_OP_FAMILY_LINALG] = { ts_ops_linalg_job, ts_ops_host_device },
  [TS_OP_FAMILY_FOREACH] = { ts_ops_foreach_job, ts_ops_host_device },
  [TS_OP_FAMILY_VAR] = { var_job, ts_ops_host_device },
  [TS_OP_FAMILY_FFT] = { ts_ops_fft_job, ts_ops_host_device },
};

/* Every op's kernel, on the CPU, on the simulated devices and on the host
 * fallback, runs through here: in --no-data mode this is where nothing is
 * computed (ts-host-data.h), for every family, including those to come. */
static gboolean
job_run (Job     *job,
         GError **error)
{
  if (ts_host_data_no_data () && !job->host_values)
    return TRUE;
  return families[job->desc->family].run (job, error);
}

gboolean
ts_ops_family_is_complete (TsOpFamily family)
{
  g_return_val_if_fail (family < TS_OP_N_FAMILIES, FALSE);
  return families[family].run != NULL && families[family].device != NULL;
}

/* The host fallback: after the stream has drained, each device operand's
 * byte span comes to the host (into the job's staging), the CPU kernel
 * runs there, and the outputs' spans go back. Host operands (a pinned or
 * pageable side of a copy, a CPU 0-dim tensor) are used in place. */
static int
job_run_on_host (Job                 *job,
                 const TsCudaKernels *k,
                 gpointer             stream)
{
  int err;
  gboolean ok;

  if ((err = k->stream_sync (stream)) != 0)
    return err;
  for (guint i = 0; i < job->n_slots; i++)
    {
      TsTensor *t = job->t[i];

      if (t == NULL || ts_tensor_numel (t) == 0 || t->storage->device.type != TS_DEVICE_CUDA ||
          t->storage->data != NULL)
        continue;
      job->span_min[i] = tensor_span (t, &job->span_bytes[i]);
      if (!ts_host_data_charge (job->span_bytes[i], NULL))
        return TS_DEVICE_ERROR_LAUNCH_OUT_OF_RESOURCES;  /* the host has no room to stage it */
      job->charged += job->span_bytes[i];
      if ((job->staging[i] = g_try_malloc (job->span_bytes[i])) == NULL)
        return TS_DEVICE_ERROR_LAUNCH_OUT_OF_RESOURCES;
      job->real[i] = (guint8 *) GSIZE_TO_POINTER (t->storage->addr) +
                     job->span_min[i] * ts_dtype_size (t->dtype);
      if ((err = k->memcpy_sync (job->staging[i], job->real[i], job->span_bytes[i])) != 0)
        return err;
      job->sv[i].data = job->staging[i];
      job->tv[i].offset -= job->span_min[i];
    }
  ok = job_run (job, NULL);
  if (job->fault != TS_DEVICE_ERROR_NONE)
    return job->fault;
  /* as on the simulator: a failing kernel (integer division by zero)
   * writes nothing */
  if (!ok)
    {
      g_debug ("a tensor kernel failed on the host fallback");
      return TS_CUDA_SUCCESS;
    }
  for (guint i = 0; i < job->n_slots; i++)
    if ((job->out_mask & (1u << i)) && job->staging[i] != NULL &&
        (err = k->memcpy_sync (job->real[i], job->staging[i], job->span_bytes[i])) != 0)
      return err;
  return TS_CUDA_SUCCESS;
}

/* TsSessionWork.device_run: called once, when the item is submitted. */
static int
job_device_run (gpointer data,
                gpointer stream)
{
  Job *job = data;
  const TsCudaKernels *k = ts_session_get_device_kernels ();
  int err;

  g_assert (k != NULL);
  if (ts_tensor_numel (job->t[0]) == 0)
    return TS_CUDA_SUCCESS;
  /* an op without a device kernel runs on the host fallback */
  err = job->desc->cuda != TS_OP_CUDA_HOST ? families[job->desc->family].device (job, k, stream)
                                            : TS_CUDA_ERROR_NOT_SUPPORTED;
  if (err != TS_CUDA_ERROR_NOT_SUPPORTED)
    return err;
  /* host staging is how a cast or strided copy crosses the host
   * boundary; for anything else it is the fallback */
  if (job->desc->family != TS_OP_FAMILY_COPY || (job->t[0]->storage->device.type == TS_DEVICE_CUDA &&
                                job->t[1]->storage->device.type == TS_DEVICE_CUDA))
    g_debug ("%s (%s): no device kernel, computed on the host", job->desc->name,
             ts_dtype_name (job->t[0]->dtype));
  return job_run_on_host (job, k, stream);
}

/* Multi-tensor launches ---------------------------------------------------
 *
 * PyTorch's _foreach_* ops, its fused optimizers and GradScaler's unscale
 * run one multi_tensor_apply_kernel per chunk of their tensor lists
 * (aten/src/ATen/native/cuda/MultiTensorApply.cuh), not one kernel per
 * tensor. Here the op's per-tensor kernels are the very jobs of the
 * single-tensor ops (so the values are theirs, bit for bit): while a group
 * is open on a thread, a device job is not launched but kept in the group,
 * under the index of the list's tensor it works on; closing the group
 * launches it, as many launches as multi_tensor_apply would make, each
 * holding the jobs of its tensors (the list of tensors a launch carries),
 * with their summed cost, one sanitizer access set and one API span.
 *
 * Inside a launch the jobs run in order, each one's results landing before
 * the next starts (a later job reads an earlier one's temporary): a
 * multi-tensor launch's results land when it starts, not when it ends. */

/* MultiTensorApply.cuh: per depth (the number of lists), the tensors and
 * the blocks one launch takes; each block does a chunk of 65536 elements
 * with 512 threads. */
static const guint depth_to_max_tensors[5] = { 110, 64, 48, 36, 30 };
static const guint depth_to_max_blocks[5] = { 320, 320, 320, 320, 320 };
#define MULTI_TENSOR_CHUNK 65536
#define MULTI_TENSOR_BLOCK 512

typedef struct
{
  Job          *job;
  guint         tensor;  /* its index in the lists */
  TsKernelCost  cost;
} GroupJob;

typedef struct
{
  const TsOpDesc *desc;
  const char     *api_name;    /* "aten::_foreach_add_" */
  const char     *kernel_name;
  gboolean        inplace;
  guint           depth;
  TsStreamId      stream;
  int             device;
  GArray         *numels;      /* gint64 per tensor of list 0 */
  GArray         *jobs;        /* GroupJob */
} Group;

/* what one launch runs: its jobs in order */
typedef struct
{
  Job  **jobs;
  guint  n_jobs;
} GroupWork;

static _Thread_local Group *open_group;

static gboolean
group_take (Job          *job,
            TsKernelCost  cost)
{
  GroupJob gj = { job, 0, cost };

  /* a real GPU runs each job's own device kernel: no groups there */
  if (open_group == NULL || open_group->numels->len == 0 || ts_session_get_device_kernels () != NULL)
    return FALSE;
  gj.tensor = open_group->numels->len - 1;
  g_array_append_val (open_group->jobs, gj);
  return TRUE;
}

static gboolean
group_allows_copy (GError **error)
{
  if (open_group == NULL || ts_session_get_device_kernels () != NULL)
    return TRUE;
  g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
               "%s: a copy cannot be part of a multi-tensor launch", open_group->api_name);
  return FALSE;
}

static const TsOpDesc *
foreach_row (const char *name)
{
  g_autofree char *row = g_strdup (name);
  const TsOpDesc *desc;

  /* the row is named by the functional form, or by the in-place one */
  if ((desc = ts_op_lookup (row)) == NULL && g_str_has_suffix (row, "_"))
    {
      row[strlen (row) - 1] = '\0';
      desc = ts_op_lookup (row);
    }
  /* GradScaler's unscale is a multi-tensor kernel of its own family */
  return desc != NULL && (desc->family == TS_OP_FAMILY_FOREACH || desc->id == TS_OP_AMP_UNSCALE) ? desc : NULL;
}

gboolean
ts_ops_multi_tensor_begin (const char  *name,
                           guint        depth,
                           GError     **error)
{
  const TsOpDesc *desc = foreach_row (name);
  g_autofree char *kernel = NULL;
  Group *group;

  if (open_group != NULL || depth < 1 || depth > G_N_ELEMENTS (depth_to_max_tensors) || desc == NULL)
    {
      g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                   "%s: not a multi-tensor op of 1 to 5 lists, or inside another", name);
      return FALSE;
    }
  /* PyTorch's kernel is a template over the list metadata and the op's
   * functor; the functor is named here by the op */
  kernel = g_strdup_printf ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
                            "at::native::(anonymous namespace)::TensorListMetadata<%u>, %s>", depth, name);
  group = g_new0 (Group, 1);
  group->desc = desc;
  {
    g_autofree char *api = g_strconcat ("aten::", name, NULL);

    group->api_name = g_intern_string (api);
  }
  group->kernel_name = g_intern_string (kernel);
  group->inplace = g_str_has_suffix (name, "_") && desc->inplace != NULL;
  group->depth = depth;
  group->device = -1;
  group->numels = g_array_new (FALSE, FALSE, sizeof (gint64));
  group->jobs = g_array_new (FALSE, FALSE, sizeof (GroupJob));
  open_group = group;
  return TRUE;
}

void
ts_ops_multi_tensor_next (TsTensor *tensor)
{
  gint64 numel = ts_tensor_numel (tensor);

  g_return_if_fail (open_group != NULL);
  g_array_append_val (open_group->numels, numel);
  if (open_group->device < 0 && tensor->storage->device.type == TS_DEVICE_CUDA)
    {
      open_group->device = tensor->storage->device.index;
      open_group->stream = ts_session_current_stream (open_group->device);
    }
}

static TsDeviceError
group_work_start (gpointer data)
{
  GroupWork *gw = data;

  for (guint i = 0; i < gw->n_jobs; i++)
    {
      TsDeviceError fault = job_run_at_once (gw->jobs[i]);

      if (fault != TS_DEVICE_ERROR_NONE)
        return fault;
    }
  return TS_DEVICE_ERROR_NONE;
}

static void
group_work_finish (gpointer data)
{
}

static void
group_work_free (gpointer data)
{
  GroupWork *gw = data;

  for (guint i = 0; i < gw->n_jobs; i++)
    job_free (gw->jobs[i]);
  g_free (gw->jobs);
  g_free (gw);
}

static gpointer
group_work_clone (gpointer data)
{
  GroupWork *gw = data, *copy = g_new (GroupWork, 1);

  copy->n_jobs = gw->n_jobs;
  copy->jobs = g_new (Job *, MAX (gw->n_jobs, 1));
  for (guint i = 0; i < gw->n_jobs; i++)
    copy->jobs[i] = job_clone (gw->jobs[i]);
  return copy;
}

/* One launch: the group's next jobs up to those of @last_tensor, with the
 * cost of its chunks. */
static gboolean
group_launch (Group         *group,
              guint         *next_job,
              guint          last_tensor,
              TsKernelCost   cost,
              guint          blocks,
              GError       **error)
{
  TsSessionWork work = { 0 };
  GroupWork *gw = g_new0 (GroupWork, 1);
  guint64 correlation;
  gboolean ok, sanitize;
  guint first = *next_job;

  while (*next_job < group->jobs->len && g_array_index (group->jobs, GroupJob, *next_job).tensor <= last_tensor)
    (*next_job)++;
  gw->n_jobs = *next_job - first;
  gw->jobs = g_new (Job *, MAX (gw->n_jobs, 1));
  for (guint i = 0; i < gw->n_jobs; i++)
    gw->jobs[i] = g_array_index (group->jobs, GroupJob, first + i).job;

  work.name = group->kernel_name;
  work.stream = group->stream;
  work.flops = (guint64) cost.flops;
  work.bytes = (guint64) cost.bytes;
  work.block = MULTI_TENSOR_BLOCK;
  work.grid = blocks;
  work.run = group_work_start;
  work.finish = group_work_finish;
  work.user_data = gw;
  work.destroy = group_work_free;
  work.clone = group_work_clone;

  /* the sanitizer and the trace see every tensor the launch's jobs touch */
  sanitize = ts_op_access_begin_list (group->desc, group->inplace);
  for (guint i = 0; i < gw->n_jobs; i++)
    ts_op_access_add (gw->jobs[i]->desc, gw->jobs[i]->t, G_N_ELEMENTS (gw->jobs[i]->t), gw->jobs[i]->out_mask);
  correlation = ts_session_api_begin (group->api_name, group->device);
  ok = ts_session_launch (&work, error);
  if (ok)
    ts_op_access_trace (work.stream, correlation);
  if (sanitize)
    ok = ts_op_access_end (work.stream, correlation, ok, error);
  ts_session_api_end (correlation);
  return ok;
}

/* multi_tensor_apply's loop: a launch when its tensors or its blocks are
 * full, or at the lists' last chunk; a tensor cut by a full launch goes on
 * in the next one (its jobs run in the launch of its last chunk). A
 * tensor's cost is shared among its chunks. */
static gboolean
group_launch_all (Group   *group,
                  GError **error)
{
  guint max_tensors = depth_to_max_tensors[group->depth - 1];
  guint max_blocks = depth_to_max_blocks[group->depth - 1];
  guint n = group->numels->len, next_job = 0, tensors = 0, blocks = 0;
  g_autofree TsKernelCost *costs = g_new0 (TsKernelCost, MAX (n, 1));
  TsKernelCost launch = { 0, 0 };

  for (guint i = 0; i < group->jobs->len; i++)
    {
      GroupJob *gj = &g_array_index (group->jobs, GroupJob, i);

      costs[gj->tensor].bytes += gj->cost.bytes;
      costs[gj->tensor].flops += gj->cost.flops;
    }
  for (guint t = 0; t < n; t++)
    {
      gint64 numel = g_array_index (group->numels, gint64, t);
      gint64 chunks = (numel + MULTI_TENSOR_CHUNK - 1) / MULTI_TENSOR_CHUNK;

      if (numel == 0)
        continue;
      tensors++;
      for (gint64 c = 0; c < chunks; c++)
        {
          gboolean last = c == chunks - 1;

          blocks++;
          launch.bytes += costs[t].bytes / chunks;
          launch.flops += costs[t].flops / chunks;
          if (!((tensors == max_tensors && last) || blocks == max_blocks || (t == n - 1 && last)))
            continue;
          if (!group_launch (group, &next_job, last ? t : t - 1, launch, blocks, error))
            return FALSE;
          blocks = 0;
          launch.bytes = launch.flops = 0;
          tensors = last ? 0 : 1;
        }
    }
  /* jobs after the last nonempty tensor (of empty ones: none in practice) */
  if (next_job < group->jobs->len)
    return group_launch (group, &next_job, G_MAXUINT, launch, MAX (blocks, 1), error);
  return TRUE;
}

gboolean
ts_ops_multi_tensor_end (GError **error)
{
  Group *group = open_group;
  gboolean ok;

  g_return_val_if_fail (group != NULL, FALSE);
  open_group = NULL;
  ok = group->jobs->len == 0 || group_launch_all (group, error);
  g_array_unref (group->numels);
  g_array_unref (group->jobs);
  g_free (group);
  return ok;
}

gboolean
ts_ops_foreach_job (Job     *job,
                    GError **error)
{
  /* a FOREACH row only names a multi-tensor launch: its per-tensor
   * kernels are other rows' jobs */
  g_set_error (error, TS_KERNEL_ERROR, TS_KERNEL_ERROR_DTYPE, "%s runs as per-tensor kernels", job->desc->name);
  return FALSE;
}
