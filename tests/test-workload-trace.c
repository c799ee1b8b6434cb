/* test-workload-trace.c: what `tensorscope-cli run -o` records for a script
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs tests/workloads/trace/callsites.py, reads the trace back and checks
 * that API calls point at the user's lines (not at our torch package), that
 * pageable copies block the host while pinned non_blocking ones do not, and
 * that the trace is complete after an exception or sys.exit(); and, from
 * tests/workloads/trace/indexing.py, that indexing's ops and nonzero's
 * wait are on the timeline; from tests/workloads/trace/attention.py, that
 * composite ops (scaled_dot_product_attention, lstm) are spans holding
 * their ops, at the user's line; from tests/workloads/trace/amp.py, that
 * autocast's casts, GradScaler's kernels and its one wait are there; from
 * tests/workloads/trace/spin.py, that torch.cuda._sleep keeps a stream
 * busy.
 */

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ts-recorder.h"
#include "ts-trace-reader.h"

static TsRecorder *
run_script (const char *name,
            const char *arg,
            int         expected_status)
{
  g_autofree char *script = g_build_filename (TS_TEST_SRCDIR, "workloads", "trace", name, NULL);
  g_autofree char *dir = g_dir_make_tmp ("ts-trace-XXXXXX", NULL);
  g_autofree char *trace = g_build_filename (dir, "out.tstrace", NULL);
  const char *argv[] = { TS_CLI_PATH, "run", "--gpus", "2", "-o", trace, script, arg, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTraceReader) reader = NULL;
  TsRecorder *recorder = ts_recorder_new ();
  int wait_status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                               NULL, NULL, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  g_assert_cmpint (WEXITSTATUS (wait_status), ==, expected_status);

  reader = ts_trace_reader_new (recorder);
  g_assert_true (ts_trace_reader_load_file (reader, trace, &error));
  g_assert_no_error (error);
  g_assert_true (ts_trace_reader_get_complete (reader));
  g_unlink (trace);
  g_rmdir (dir);
  return recorder;
}

static TsRecorder *
run_and_read (const char *arg,
              int         expected_status)
{
  return run_script ("callsites.py", arg, expected_status);
}

static gboolean
find_api (TsRecorder      *recorder,
          const char      *name,
          TsApiCallRecord *out)
{
  gsize n = ts_recorder_get_count (recorder, TS_RECORD_API_CALL);

  for (gsize i = 0; i < n; i++)
    {
      g_assert_true (ts_recorder_get (recorder, TS_RECORD_API_CALL, i, out));
      if (g_str_equal (ts_recorder_lookup (recorder, out->name), name))
        return TRUE;
    }
  return FALSE;
}

/* Ops in five functions called in turn, their results freed in the
 * caller: more code objects than the call-site cache keeps, so entries are
 * dropped and made again; every record still names its own line. */
static void
test_callsite_cache (void)
{
  g_autoptr(TsRecorder) recorder = run_script ("callsite_cache.py", NULL, 0);
  guint n_mul = 0, n_freed_at_store = 0;

  for (gsize i = 0; i < ts_recorder_get_count (recorder, TS_RECORD_API_CALL); i++)
    {
      TsApiCallRecord api;
      const char *function;

      g_assert_true (ts_recorder_get (recorder, TS_RECORD_API_CALL, i, &api));
      if (!g_str_equal (ts_recorder_lookup (recorder, api.name), "aten::mul"))
        continue;
      function = ts_recorder_lookup (recorder, api.loc.function);
      /* f1 is on line 3, f5 on line 7 */
      g_assert_true (function[0] == 'f' && function[1] >= '1' && function[1] <= '5' && function[2] == 0);
      g_assert_cmpuint (api.loc.line, ==, (guint) (function[1] - '1') + 3);
      g_assert_true (g_str_has_suffix (ts_recorder_lookup (recorder, api.loc.file), "callsite_cache.py"));
      n_mul++;
    }
  g_assert_cmpuint (n_mul, ==, 15);

  for (gsize i = 0; i < ts_recorder_get_count (recorder, TS_RECORD_ALLOC); i++)
    {
      TsAllocRecord rec;

      g_assert_true (ts_recorder_get (recorder, TS_RECORD_ALLOC, i, &rec));
      if (rec.action == TS_ALLOC_ACTION_FREE_REQUESTED && rec.loc.line == 10 &&
          g_str_equal (ts_recorder_lookup (recorder, rec.loc.function), "<module>"))
        n_freed_at_store++;
    }
  /* each `c = f(a)` but the first frees the previous c (14); at exit a
   * and the last c go while the module's frame is still at line 10 */
  g_assert_cmpuint (n_freed_at_store, ==, 16);
}

static void
test_callsites (void)
{
  g_autoptr(TsRecorder) recorder = run_and_read (NULL, 0);
  TsApiCallRecord api;
  TsKernelRecord kernel;
  gboolean found_kernel = FALSE;

  g_assert_true (find_api (recorder, "aten::add", &api));
  g_assert_cmpuint (api.loc.line, ==, 7);
  g_assert_true (g_str_has_suffix (ts_recorder_lookup (recorder, api.loc.file), "callsites.py"));
  g_assert_cmpstr (ts_recorder_lookup (recorder, api.loc.function), ==, "step");
  g_assert_cmpint (api.device, ==, 0);

  /* the kernel it launched shares its correlation */
  for (gsize i = 0; i < ts_recorder_get_count (recorder, TS_RECORD_KERNEL); i++)
    {
      g_assert_true (ts_recorder_get (recorder, TS_RECORD_KERNEL, i, &kernel));
      if (kernel.correlation == api.correlation)
        {
          found_kernel = TRUE;
          g_assert_cmpstr (ts_recorder_lookup (recorder, kernel.name), ==, "aten::add");
          g_assert_cmpuint (kernel.stream, ==, 0);  /* device 0's default stream */
          g_assert_cmpint (kernel.start, >=, kernel.queued);
        }
    }
  g_assert_true (found_kernel);
}

static void
test_copies (void)
{
  g_autoptr(TsRecorder) recorder = run_and_read (NULL, 0);
  gsize n = ts_recorder_get_count (recorder, TS_RECORD_MEMCPY);
  guint n_pageable = 0, n_pinned = 0;

  for (gsize i = 0; i < n; i++)
    {
      TsMemcpyRecord copy;
      TsApiCallRecord api;
      gboolean have_api = FALSE;

      g_assert_true (ts_recorder_get (recorder, TS_RECORD_MEMCPY, i, &copy));
      if (copy.kind != TS_COPY_HOST_TO_DEVICE || copy.bytes != (4 << 20))
        continue;
      for (gsize j = 0; j < ts_recorder_get_count (recorder, TS_RECORD_API_CALL); j++)
        {
          g_assert_true (ts_recorder_get (recorder, TS_RECORD_API_CALL, j, &api));
          if (api.correlation == copy.correlation &&
              g_str_equal (ts_recorder_lookup (recorder, api.name), "aten::copy_"))
            {
              have_api = TRUE;
              break;
            }
        }
      g_assert_true (have_api);
      if (copy.flags & TS_COPY_FLAG_PINNED)
        {
          n_pinned++;
          g_assert_cmpuint (api.loc.line, ==, 14);
          /* the host went on before the copy finished */
          g_assert_cmpint (api.end, <, copy.end);
        }
      else
        {
          n_pageable++;
          g_assert_cmpuint (api.loc.line, ==, 13);
          /* the host waited for the copy */
          g_assert_cmpint (api.end, >=, copy.end);
        }
    }
  g_assert_cmpuint (n_pageable, ==, 1);
  g_assert_cmpuint (n_pinned, ==, 1);
}

/* Indexing ops are kernels under their aten:: names at the user's line;
 * a mask index waits for the mask's values (nonzero), a mask assignment
 * of a number does not (masked_fill_). */
static void
test_indexing (void)
{
  g_autoptr(TsRecorder) recorder = run_script ("indexing.py", NULL, 0);
  TsApiCallRecord api;
  guint n_waits = 0;

  g_assert_true (find_api (recorder, "aten::masked_fill_", &api));
  g_assert_cmpuint (api.loc.line, ==, 4);
  g_assert_true (find_api (recorder, "aten::nonzero", &api));
  g_assert_cmpuint (api.loc.line, ==, 5);
  g_assert_true (find_api (recorder, "aten::index", &api));
  g_assert_cmpuint (api.loc.line, ==, 5);
  for (gsize i = 0; i < ts_recorder_get_count (recorder, TS_RECORD_MEMCPY); i++)
    {
      TsMemcpyRecord copy;

      g_assert_true (ts_recorder_get (recorder, TS_RECORD_MEMCPY, i, &copy));
      if (copy.kind != TS_COPY_DEVICE_TO_HOST)
        continue;
      for (gsize j = 0; j < ts_recorder_get_count (recorder, TS_RECORD_API_CALL); j++)
        {
          g_assert_true (ts_recorder_get (recorder, TS_RECORD_API_CALL, j, &api));
          if (api.correlation != copy.correlation)
            continue;
          /* the mask's copy, from line 5 only, and the host waited for it
           * (its API calls: aten::copy_ and cudaMemcpyAsync) */
          g_assert_cmpuint (api.loc.line, ==, 5);
          g_assert_cmpint (api.end, >=, copy.end);
        }
      n_waits++;
    }
  g_assert_cmpuint (n_waits, ==, 1);
}

/* Ops whose bindings once kept the previous op's line (activations,
 * pooling, norms, padding, masked_fill_, nonzero, linalg) name their own. */
static void
test_entry_lines (void)
{
  static const struct { const char *name; guint line; } ops[] = {
    { "aten::gelu", 8 }, { "aten::max_pool2d_with_indices", 9 }, { "aten::native_batch_norm", 10 },
    { "aten::glu", 11 }, { "aten::reflection_pad2d", 12 }, { "aten::native_group_norm", 13 },
    { "aten::masked_fill_", 14 }, { "aten::nonzero", 15 }, { "aten::linalg_lu_factor_ex", 16 },
  };
  g_autoptr(TsRecorder) recorder = run_script ("entry_lines.py", NULL, 0);

  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      TsApiCallRecord api;

      g_assert_true (find_api (recorder, ops[i].name, &api));
      g_assert_cmpuint (api.loc.line, ==, ops[i].line);
    }
}

/* A profiler window in a run that streams its trace to a file sees all
 * of its 3000 ops (the script asserts it), and the file has every op of
 * the run. */
static void
test_profiler_window (void)
{
  g_autoptr(TsRecorder) recorder = run_script ("profiler_window.py", NULL, 0);

  g_assert_cmpuint (ts_recorder_get_count (recorder, TS_RECORD_KERNEL), >=, 9000);
}

static gboolean
find_kernel (TsRecorder     *recorder,
             const char     *name,
             TsKernelRecord *out)
{
  for (gsize i = 0; i < ts_recorder_get_count (recorder, TS_RECORD_KERNEL); i++)
    {
      g_assert_true (ts_recorder_get (recorder, TS_RECORD_KERNEL, i, out));
      if (g_str_equal (ts_recorder_lookup (recorder, out->name), name))
        return TRUE;
    }
  return FALSE;
}

/* torch.cuda._sleep(15000) spins one thread for 15000 cycles at the H100's
 * 1.98 GHz boost clock; the kernels queued behind it on the default stream
 * then overlap the side stream's, which nothing orders. */
static void
test_spin (void)
{
  g_autoptr(TsRecorder) recorder = run_script ("spin.py", NULL, 0);
  TsKernelRecord spin, normal, sum;

  g_assert_true (find_kernel (recorder, "at::cuda::(anonymous namespace)::spin_kernel(long)", &spin));
  g_assert_true (find_kernel (recorder, "aten::normal_", &normal));
  g_assert_true (find_kernel (recorder, "aten::sum", &sum));
  g_assert_cmpint (spin.end - spin.start, ==, 7575);
  g_assert_cmpuint (spin.grid[0] * spin.grid[1] * spin.grid[2], ==, 1);
  g_assert_cmpint (normal.start, >=, spin.end);
  g_assert_cmpuint (sum.stream, !=, normal.stream);
  g_assert_cmpint (sum.start, <, normal.end);
  g_assert_cmpint (normal.start, <, sum.end);
}

/* The first record named inner inside the span of outer (found first),
 * both at line. */
static void
assert_span_holds (TsRecorder *recorder,
                   const char *outer,
                   const char *inner,
                   guint       line)
{
  TsApiCallRecord span, api;
  gboolean found = FALSE;

  g_assert_true (find_api (recorder, outer, &span));
  g_assert_cmpuint (span.loc.line, ==, line);
  for (gsize i = 0; i < ts_recorder_get_count (recorder, TS_RECORD_API_CALL) && !found; i++)
    {
      g_assert_true (ts_recorder_get (recorder, TS_RECORD_API_CALL, i, &api));
      found = g_str_equal (ts_recorder_lookup (recorder, api.name), inner) &&
              api.start >= span.start && api.end <= span.end;
    }
  g_assert_true (found);
  g_assert_cmpuint (api.loc.line, ==, line);
}

static void
test_attention (void)
{
  g_autoptr(TsRecorder) recorder = run_script ("attention.py", NULL, 0);

  assert_span_holds (recorder, "aten::scaled_dot_product_attention", "aten::bmm", 4);
  assert_span_holds (recorder, "aten::scaled_dot_product_attention", "aten::softmax", 4);
  assert_span_holds (recorder, "aten::lstm", "aten::sigmoid", 5);
}

/* The kernel @kernel_name launched by the op @name from @line, on device
 * 0's default stream. */
static void
assert_launch_at (TsRecorder *recorder,
                  const char *name,
                  const char *kernel_name,
                  guint       line)
{
  TsApiCallRecord api;
  TsKernelRecord kernel;
  gboolean found = FALSE;

  g_assert_true (find_api (recorder, name, &api));
  g_assert_cmpuint (api.loc.line, ==, line);
  for (gsize i = 0; i < ts_recorder_get_count (recorder, TS_RECORD_KERNEL); i++)
    {
      g_assert_true (ts_recorder_get (recorder, TS_RECORD_KERNEL, i, &kernel));
      if (kernel.correlation != api.correlation)
        continue;
      found = TRUE;
      g_assert_cmpstr (ts_recorder_lookup (recorder, kernel.name), ==, kernel_name);
      g_assert_cmpuint (kernel.stream, ==, 0);
    }
  g_assert_true (found);
}

/* ... whose kernel is named as the op */
static void
assert_kernel_at (TsRecorder *recorder,
                  const char *name,
                  guint       line)
{
  assert_launch_at (recorder, name, name, line);
}

#define MULTI_TENSOR_KERNEL(depth, op) \
  "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<" \
  "at::native::(anonymous namespace)::TensorListMetadata<" #depth ">, " op ">"

/* Mixed precision (docs/amp.md): autocast's casts and GradScaler's kernels
 * are launches at the user's lines, and step() waits for found_inf. */
static void
test_amp (void)
{
  g_autoptr(TsRecorder) recorder = run_script ("amp.py", NULL, 0);
  TsApiCallRecord api;
  guint n_waits = 0;

  /* the weight's cast, inside PyTorch's spans */
  g_assert_true (find_api (recorder, "aten::to", &api));
  g_assert_cmpuint (api.loc.line, ==, 7);
  g_assert_true (find_api (recorder, "aten::_to_copy", &api));
  g_assert_cmpuint (api.loc.line, ==, 7);
  assert_kernel_at (recorder, "aten::mm", 7);
  assert_launch_at (recorder, "aten::_amp_foreach_non_finite_check_and_unscale_",
                    MULTI_TENSOR_KERNEL (1, "_amp_foreach_non_finite_check_and_unscale_"), 9);
  assert_kernel_at (recorder, "aten::_amp_update_scale_", 10);
  for (gsize i = 0; i < ts_recorder_get_count (recorder, TS_RECORD_MEMCPY); i++)
    {
      TsMemcpyRecord copy;

      g_assert_true (ts_recorder_get (recorder, TS_RECORD_MEMCPY, i, &copy));
      for (gsize j = 0; j < ts_recorder_get_count (recorder, TS_RECORD_API_CALL); j++)
        {
          g_assert_true (ts_recorder_get (recorder, TS_RECORD_API_CALL, j, &api));
          if (api.correlation != copy.correlation || !g_str_equal (ts_recorder_lookup (recorder, api.name), "aten::copy_"))
            continue;
          /* the weight's float16 copy at line 7; found_inf's, which the
           * host waits for, at line 9 */
          if (copy.kind == TS_COPY_DEVICE_TO_HOST && api.loc.line == 9)
            {
              g_assert_cmpint (api.end, >=, copy.end);
              n_waits++;
            }
        }
    }
  g_assert_cmpuint (n_waits, ==, 1);
}

/* The kernels of one Adam step over 10 CUDA parameters whose names start
 * with @prefix. */
static guint
count_kernels (TsRecorder *recorder,
               const char *prefix)
{
  guint n = 0;

  for (gsize i = 0; i < ts_recorder_get_count (recorder, TS_RECORD_KERNEL); i++)
    {
      TsKernelRecord kernel;

      g_assert_true (ts_recorder_get (recorder, TS_RECORD_KERNEL, i, &kernel));
      n += g_str_has_prefix (ts_recorder_lookup (recorder, kernel.name), prefix);
    }
  return n;
}

/* Multi-tensor launches (docs/simulation-model.md): an Adam step on 10
 * CUDA parameters is 8 _foreach_ launches with foreach, 1 fused launch,
 * 8 kernels per parameter without, as PyTorch 1.13's _single_tensor_adam
 * launches (exp_avg's add_ with alpha, addcmul_ and addcdiv_ one kernel
 * each) */
static void
test_foreach (void)
{
  g_autoptr(TsRecorder) loop = run_script ("foreach.py", "loop", 0);
  g_autoptr(TsRecorder) foreach = run_script ("foreach.py", "foreach", 0);
  g_autoptr(TsRecorder) fused = run_script ("foreach.py", "fused", 0);
  const char *multi = "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<";

  g_assert_cmpuint (count_kernels (loop, multi), ==, 0);
  g_assert_cmpuint (count_kernels (loop, "aten::"), ==, 20 + 80);  /* the state's fills, then the step */
  g_assert_cmpuint (count_kernels (foreach, multi), ==, 8);
  g_assert_cmpuint (count_kernels (foreach, "aten::"), ==, 20);
  g_assert_cmpuint (count_kernels (fused, multi), ==, 1);
  assert_launch_at (foreach, "aten::_foreach_addcmul_", MULTI_TENSOR_KERNEL (3, "_foreach_addcmul_"), 11);
  assert_launch_at (fused, "aten::_fused_adam_", MULTI_TENSOR_KERNEL (4, "_fused_adam_"), 11);
}

/* The device copies of @kind */
static guint
count_copies (TsRecorder *recorder,
              TsCopyKind  kind)
{
  guint n = 0;

  for (gsize i = 0; i < ts_recorder_get_count (recorder, TS_RECORD_MEMCPY); i++)
    {
      TsMemcpyRecord copy;

      g_assert_true (ts_recorder_get (recorder, TS_RECORD_MEMCPY, i, &copy));
      n += copy.kind == kind;
    }
  return n;
}

/* where, cat, addcmul and var are one launch each, as PyTorch's; masked_fill is
 * ATen's clone (one device copy) and one masked_fill_ kernel: nothing
 * composed of several launches, no temporaries' copies */
static void
test_op_mix (void)
{
  g_autoptr(TsRecorder) recorder = run_script ("op_mix.py", "3", 0);

  g_assert_cmpuint (count_kernels (recorder, "aten::where"), ==, 3);
  g_assert_cmpuint (count_kernels (recorder, "aten::masked_fill_"), ==, 3);
  g_assert_cmpuint (count_kernels (recorder, "aten::cat"), ==, 3);
  g_assert_cmpuint (count_kernels (recorder, "aten::addcmul"), ==, 3);
  g_assert_cmpuint (count_kernels (recorder, "aten::var"), ==, 3);
  g_assert_cmpuint (count_kernels (recorder, "aten::clamp"), ==, 3);
  g_assert_cmpuint (count_kernels (recorder, "aten::argmax"), ==, 3);
  g_assert_cmpuint (count_kernels (recorder, "aten::std"), ==, 3);
  g_assert_cmpuint (count_kernels (recorder, "aten::norm"), ==, 3);
  g_assert_cmpuint (count_kernels (recorder, "aten::"), ==, 1 + 9 * 3);     /* and the mask's gt */
  g_assert_cmpuint (count_copies (recorder, TS_COPY_DEVICE_TO_DEVICE), ==, 3);
}

/* The first allocation made at @line, or 0 */
static guint64
alloc_at (TsRecorder *recorder,
          guint       line,
          guint      *count)
{
  guint64 addr = 0;

  *count = 0;
  for (gsize i = 0; i < ts_recorder_get_count (recorder, TS_RECORD_ALLOC); i++)
    {
      TsAllocRecord alloc;

      g_assert_true (ts_recorder_get (recorder, TS_RECORD_ALLOC, i, &alloc));
      if (alloc.action != TS_ALLOC_ACTION_ALLOC || alloc.loc.line != line)
        continue;
      if ((*count)++ == 0)
        addr = alloc.addr;
    }
  return addr;
}

/* The line of the API call of @correlation, or 0 */
static guint
line_of (TsRecorder *recorder,
         guint64     correlation)
{
  for (gsize i = 0; i < ts_recorder_get_count (recorder, TS_RECORD_API_CALL); i++)
    {
      TsApiCallRecord api;

      g_assert_true (ts_recorder_get (recorder, TS_RECORD_API_CALL, i, &api));
      if (api.correlation == correlation)
        return api.loc.line;
    }
  return 0;
}

/* Whether the launch of @correlation wrote @size bytes at @addr (the
 * sanitizer's access records) */
static gboolean
wrote_block (TsRecorder *recorder,
             guint64     correlation,
             guint64     addr,
             guint64     size)
{
  TsAccessRecord access;

  for (gsize k = 0; ts_recorder_get (recorder, TS_RECORD_ACCESS, k, &access); k++)
    if (access.correlation == correlation && access.mode == TS_ACCESS_WRITE &&
        access.addr == addr && access.size == size)
      return TRUE;
  return FALSE;
}

/* The kernels launched from @line (an aten:: call and its cudaLaunchKernel
 * share the correlation); whether one wrote @size bytes at @addr */
static guint
kernels_at (TsRecorder *recorder,
            guint       line,
            guint64     addr,
            guint64     size,
            gboolean   *wrote)
{
  TsKernelRecord kernel;
  guint n = 0;

  *wrote = FALSE;
  for (gsize j = 0; ts_recorder_get (recorder, TS_RECORD_KERNEL, j, &kernel); j++)
    if (line_of (recorder, kernel.correlation) == line)
      {
        n++;
        *wrote |= wrote_block (recorder, kernel.correlation, addr, size);
      }
  return n;
}

/* torch.add(x, y, out=z) on CUDA, as PyTorch runs it: one kernel that
 * writes z's block (the sanitizer's access records say so) and no
 * allocation, with alpha too; an out of another shape is resized, which
 * allocates (once: the op then writes it, no temporary). */
static void
test_out_kw (void)
{
  g_autoptr(TsRecorder) recorder = run_script ("out_kw.py", NULL, 0);
  guint n_allocs;
  guint64 z = alloc_at (recorder, 5, &n_allocs);
  gboolean wrote_z = FALSE;

  g_assert_cmpuint (n_allocs, ==, 1);
  for (guint line = 6; line <= 10; line += 4)
    {
      g_assert_cmpuint (alloc_at (recorder, line, &n_allocs), ==, 0);
      g_assert_cmpuint (n_allocs, ==, 0);
      g_assert_cmpuint (kernels_at (recorder, line, z, 64 * 32 * 4, &wrote_z), ==, 1);
      g_assert_true (wrote_z);
    }
  alloc_at (recorder, 8, &n_allocs);
  g_assert_cmpuint (n_allocs, ==, 1);
}

static void
test_raise (void)
{
  g_autoptr(TsRecorder) recorder = run_and_read ("raise", 1);
  TsApiCallRecord api;

  g_assert_true (find_api (recorder, "aten::add", &api));
}

static void
test_exit (void)
{
  g_autoptr(TsRecorder) recorder = run_and_read ("exit", 3);
  TsApiCallRecord api;

  g_assert_true (find_api (recorder, "aten::add", &api));
}

/* SIGTERM ends the script through an exception: exit status 143 and a
 * complete trace with what ran before. */
static void
test_sigterm (void)
{
  g_autofree char *script = g_build_filename (TS_TEST_SRCDIR, "workloads", "trace", "forever.py", NULL);
  g_autofree char *dir = g_dir_make_tmp ("ts-trace-XXXXXX", NULL);
  g_autofree char *trace = g_build_filename (dir, "out.tstrace", NULL);
  const char *argv[] = { TS_CLI_PATH, "run", "-o", trace, script, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  g_autoptr(TsTraceReader) reader = NULL;
  GPid pid;
  int out_fd, wait_status = 0;
  char buf[64] = { 0 };
  gsize got = 0;
  TsApiCallRecord api;

  g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                                           NULL, NULL, &pid, NULL, &out_fd, NULL, &error));
  g_assert_no_error (error);
  /* wait until the script is in its loop */
  while (got < sizeof buf - 1 && strchr (buf, '\n') == NULL)
    {
      gssize n = read (out_fd, buf + got, sizeof buf - 1 - got);
      if (n < 0 && errno == EINTR)
        continue;
      g_assert_cmpint (n, >, 0);
      got += n;
    }
  g_assert_cmpstr (buf, ==, "ready\n");
  kill (pid, SIGTERM);
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  close (out_fd);
  g_spawn_close_pid (pid);
  g_assert_true (WIFEXITED (wait_status));
  g_assert_cmpint (WEXITSTATUS (wait_status), ==, 143);

  reader = ts_trace_reader_new (recorder);
  g_assert_true (ts_trace_reader_load_file (reader, trace, &error));
  g_assert_no_error (error);
  g_assert_true (ts_trace_reader_get_complete (reader));
  g_assert_true (find_api (recorder, "aten::add", &api));
  g_assert_cmpuint (api.loc.line, ==, 6);
  g_unlink (trace);
  g_rmdir (dir);
}

/* make_graphed_callables with a backward: each step is two graph launches,
 * the forward's where the module is called and the backward's where
 * backward() runs; what both captures allocated is in the forward graph's
 * own pool, MempoolId_t (1, 0) (CUDAGraph::capture_begin without a pool
 * makes (n, 0); the backward capture shares fwd_graph.pool(), as
 * PyTorch's make_graphed_callables does). */
static void
test_graphed (void)
{
  g_autoptr(TsRecorder) rec = run_script ("graphed.py", NULL, 0);
  guint n_launch = 0, n_pool_segments = 0;
  guint lines[2] = { 0, 0 };

  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_API_CALL); i++)
    {
      TsApiCallRecord api;

      g_assert_true (ts_recorder_get (rec, TS_RECORD_API_CALL, i, &api));
      if (!g_str_equal (ts_recorder_lookup (rec, api.name), "cudaGraphLaunch"))
        continue;
      if (n_launch < 2)
        lines[n_launch] = api.loc.line;
      n_launch++;
    }
  g_assert_cmpuint (n_launch, ==, 2);
  g_assert_cmpuint (lines[0], ==, 7);
  g_assert_cmpuint (lines[1], ==, 8);

  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_ALLOC); i++)
    {
      TsAllocRecord r;

      g_assert_true (ts_recorder_get (rec, TS_RECORD_ALLOC, i, &r));
      if (r.action != TS_ALLOC_ACTION_SEGMENT_ALLOC || TS_MEM_POOL_ID_IS_NONE (ts_alloc_record_get_pool_id (&r)))
        continue;
      g_assert_cmpuint (r.pool_id_first, ==, 1);
      g_assert_cmpuint (r.pool_id_second, ==, 0);
      n_pool_segments++;
    }
  g_assert_cmpuint (n_pool_segments, >, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/workload-trace/callsites", test_callsites);
  g_test_add_func ("/workload-trace/callsite-cache", test_callsite_cache);
  g_test_add_func ("/workload-trace/copies", test_copies);
  g_test_add_func ("/workload-trace/indexing", test_indexing);
  g_test_add_func ("/workload-trace/entry-lines", test_entry_lines);
  g_test_add_func ("/workload-trace/profiler-window", test_profiler_window);
  g_test_add_func ("/workload-trace/spin", test_spin);
  g_test_add_func ("/workload-trace/attention", test_attention);
  g_test_add_func ("/workload-trace/amp", test_amp);
  g_test_add_func ("/workload-trace/foreach", test_foreach);
  g_test_add_func ("/workload-trace/op-mix", test_op_mix);
  g_test_add_func ("/workload-trace/graphed", test_graphed);
  g_test_add_func ("/workload-trace/out-kw", test_out_kw);
  g_test_add_func ("/workload-trace/raise", test_raise);
  g_test_add_func ("/workload-trace/exit", test_exit);
  g_test_add_func ("/workload-trace/sigterm", test_sigterm);
  return g_test_run ();
}
