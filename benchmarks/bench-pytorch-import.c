/* bench-pytorch-import.c: opening big PyTorch files, against Python's loaders
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Writes (once, cached in $TS_BENCH_PYTORCH_DIR, default the temp dir) a
 * memory snapshot pickle and a Kineto trace of $TS_BENCH_PYTORCH_MB MiB
 * each (default 1024), shaped like PyTorch's own:
 *
 *  - the snapshot as Python's pickler writes _dump_snapshot() (protocol 4,
 *    64 KiB FRAMEs, every dict, list and string memoized, SETITEMS/APPENDS
 *    in batches of 1000), stacks="python": a pool of 4000 frame dicts,
 *    tracebacks of 8-40 frames of which 30% are new lists, the rest
 *    references to earlier ones; an allocator pattern that replays cleanly;
 *  - the trace as Kineto's output_json.cpp writes it, with the event mix
 *    of real traces (cpu_op 35%, cuda_runtime 22%, ac2g flows 31%, kernels
 *    6%, memcpy/memset, user_annotation and [memory] events).
 *
 * Each load runs in a child process so its peak RSS (wait4's ru_maxrss) is
 * its own: ours is ts_trace_import_open() into a recorder; Python's is
 * pickle.load / json.load ($TS_BENCH_PYTHON, default python3; "none" skips
 * it). Targets from issue #19: the snapshot in under 10 s and 1.5 GB, the
 * trace at 300 MB/s or more with a peak RSS under the file's size.
 *
 *   TS_BENCH_PYTORCH_MB=64 build/benchmarks/bench-pytorch-import
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "ts-trace-import.h"

/* ---- a pickle writer with Python's framing ---- */

typedef struct
{
  FILE    *out;
  GString *frame;
  guint32  memo;
  guint64  written;
} P;

static void
p_flush (P *p)
{
  guint8 hdr[9] = { 0x95 };

  if (p->frame->len == 0)
    return;
  for (guint i = 0; i < 8; i++)
    hdr[1 + i] = (guint8) (((guint64) p->frame->len >> (8 * i)) & 0xff);
  fwrite (hdr, 1, 9, p->out);
  fwrite (p->frame->str, 1, p->frame->len, p->out);
  p->written += 9 + p->frame->len;
  g_string_truncate (p->frame, 0);
}

static void
p_op (P    *p,
      guint8 c)
{
  g_string_append_c (p->frame, (char) c);
}

static void
p_boundary (P *p)
{
  if (p->frame->len >= 65536)
    p_flush (p);
}

static void
p_le (P      *p,
      guint64 v,
      guint   n)
{
  for (guint i = 0; i < n; i++)
    g_string_append_c (p->frame, (char) ((v >> (8 * i)) & 0xff));
}

static guint32
p_memoize (P *p)
{
  p_op (p, 0x94);
  return p->memo++;
}

static void
p_get (P      *p,
       guint32 idx)
{
  if (idx < 256)
    {
      p_op (p, 'h');
      p_le (p, idx, 1);
    }
  else
    {
      p_op (p, 'j');
      p_le (p, idx, 4);
    }
}

static guint32
p_str (P          *p,
       const char *s)
{
  gsize n = strlen (s);
  p_op (p, 0x8c);
  p_le (p, n, 1);
  g_string_append_len (p->frame, s, (gssize) n);
  return p_memoize (p);
}

static void
p_int (P     *p,
       gint64 v)
{
  if (v >= 0 && v < 256)
    p_op (p, 'K'), p_le (p, (guint64) v, 1);
  else if (v >= 0 && v < 65536)
    p_op (p, 'M'), p_le (p, (guint64) v, 2);
  else if (v >= G_MININT32 && v <= G_MAXINT32)
    p_op (p, 'J'), p_le (p, (guint64) (guint32) (gint32) v, 4);
  else
    {
      guint n = 1;
      while (n < 8 && !(v >= -((gint64) 1 << (8 * n - 1)) && v < ((gint64) 1 << (8 * n - 1))))
        n++;
      p_op (p, 0x8a);
      p_le (p, n, 1);
      p_le (p, (guint64) v, n);
    }
}

enum { K_ACTION, K_ADDR, K_SIZE, K_STREAM, K_TIME, K_CC, K_UM, K_FRAMES, K_FILENAME, K_LINE, K_NAME,
       K_DEVICE, K_ADDRESS, K_TOTAL, K_ALLOCATED, K_ACTIVE, K_REQUESTED, K_SEGTYPE, K_POOL, K_EXPANDABLE,
       K_BLOCKS, K_STATE, N_KEYS };
static const char *key_names[N_KEYS] = {
  "action", "addr", "size", "stream", "time_us", "compile_context", "user_metadata", "frames", "filename",
  "line", "name", "device", "address", "total_size", "allocated_size", "active_size", "requested_size",
  "segment_type", "segment_pool_id", "is_expandable", "blocks", "state" };

typedef struct
{
  P       p;
  guint32 keys[N_KEYS];
  gboolean have_key[N_KEYS];
  guint32 *frame_memo;   /* pool index -> memo + 1 */
  guint32 *file_memo;
  GArray  *tracebacks;   /* memo ids */
  GRand   *rand;
  guint32  vals[8];
  gboolean have_val[8];
} Gen;

static void
key (Gen *g,
     int  k)
{
  if (g->have_key[k])
    p_get (&g->p, g->keys[k]);
  else
    {
      g->keys[k] = p_str (&g->p, key_names[k]);
      g->have_key[k] = TRUE;
    }
}

static void
val (Gen        *g,
     int         slot,
     const char *s)
{
  if (g->have_val[slot])
    p_get (&g->p, g->vals[slot]);
  else
    {
      g->vals[slot] = p_str (&g->p, s);
      g->have_val[slot] = TRUE;
    }
}

#define N_FRAMES 4000
#define N_FILES  300

static void
frame (Gen  *g,
       guint idx)
{
  P *p = &g->p;
  char buf[128];

  if (g->frame_memo[idx] != 0)
    {
      p_get (p, g->frame_memo[idx] - 1);
      return;
    }
  p_op (p, '}');
  g->frame_memo[idx] = p_memoize (p) + 1;
  p_op (p, '(');
  key (g, K_FILENAME);
  if (g->file_memo[idx % N_FILES] != 0)
    p_get (p, g->file_memo[idx % N_FILES] - 1);
  else
    {
      g_snprintf (buf, sizeof buf, "/home/user/project/src/models/transformer_block_%u.py", idx % N_FILES);
      g->file_memo[idx % N_FILES] = p_str (p, buf) + 1;
    }
  key (g, K_LINE);
  p_int (p, 10 + idx % 997);
  key (g, K_NAME);
  g_snprintf (buf, sizeof buf, "forward_%u", idx);
  p_str (p, buf);
  p_op (p, 'u');
}

static void
traceback (Gen *g)
{
  P *p = &g->p;

  if (g->tracebacks->len > 0 && g_rand_double (g->rand) > 0.3)
    {
      guint recent = MIN (g->tracebacks->len, 5000);
      guint i = g->tracebacks->len - 1 - (guint) g_rand_int_range (g->rand, 0, (gint32) recent);
      p_get (p, g_array_index (g->tracebacks, guint32, i));
      return;
    }
  {
    guint n = (guint) g_rand_int_range (g->rand, 8, 41);
    guint32 id;
    p_op (p, ']');
    id = p_memoize (p);
    g_array_append_val (g->tracebacks, id);
    p_op (p, '(');
    for (guint i = 0; i < n; i++)
      {
        /* skewed: low indices are hot */
        double u = g_rand_double (g->rand);
        frame (g, (guint) (u * u * N_FRAMES) % N_FRAMES);
      }
    p_op (p, 'e');
  }
}

static void
entry (Gen        *g,
       const char *action,
       int         slot,
       guint64     addr,
       guint64     size,
       gint64      time_us)
{
  P *p = &g->p;

  p_op (p, '}');
  p_memoize (p);
  p_op (p, '(');
  key (g, K_ACTION); val (g, slot, action);
  key (g, K_ADDR); p_int (p, (gint64) addr);
  key (g, K_SIZE); p_int (p, (gint64) size);
  key (g, K_STREAM); p_int (p, 0);
  key (g, K_TIME); p_int (p, time_us);
  key (g, K_CC); val (g, 6, "N/A");
  key (g, K_UM); val (g, 7, "");
  key (g, K_FRAMES); traceback (g);
  p_op (p, 'u');
}

#define MB (G_GUINT64_CONSTANT (1) << 20)
#define BASE G_GUINT64_CONSTANT (139926520725504)

static void
write_snapshot (const char *path,
                guint64     target)
{
  Gen g = { 0 };
  P *p = &g.p;
  gint64 t = G_GINT64_CONSTANT (1698326576864190);
  guint64 cycle = 0, n = 0;
  guint in_batch = 0;
  g_autofree char *tmp = g_strconcat (path, ".tmp", NULL);

  p->out = fopen (tmp, "wb");
  g_assert (p->out != NULL);
  setvbuf (p->out, NULL, _IOFBF, 1 << 20);
  p->frame = g_string_sized_new (70000);
  g.frame_memo = g_new0 (guint32, N_FRAMES);
  g.file_memo = g_new0 (guint32, N_FILES);
  g.tracebacks = g_array_new (FALSE, FALSE, sizeof (guint32));
  g.rand = g_rand_new_with_seed (112266);

  fwrite ("\x80\x04", 1, 2, p->out);
  p->written = 2;
  p_op (p, '}');
  p_memoize (p);
  p_op (p, '(');
  /* segments: one 20 MiB segment with 4 long-lived 2 MiB blocks */
  p_str (p, "segments");
  p_op (p, ']'); p_memoize (p); p_op (p, '(');
  p_op (p, '}'); p_memoize (p); p_op (p, '(');
  key (&g, K_DEVICE); p_int (p, 0);
  key (&g, K_ADDRESS); p_int (p, (gint64) BASE);
  key (&g, K_TOTAL); p_int (p, 20 * MB);
  key (&g, K_ALLOCATED); p_int (p, 8 * MB);
  key (&g, K_ACTIVE); p_int (p, 8 * MB);
  key (&g, K_REQUESTED); p_int (p, 8 * MB);
  key (&g, K_STREAM); p_int (p, 0);
  key (&g, K_SEGTYPE); p_str (p, "large");
  key (&g, K_POOL); p_int (p, 0); p_int (p, 0); p_op (p, 0x86); p_memoize (p);
  key (&g, K_EXPANDABLE); p_op (p, 0x89);
  key (&g, K_FRAMES); p_op (p, ']'); p_memoize (p);
  key (&g, K_BLOCKS); p_op (p, ']'); p_memoize (p); p_op (p, '(');
  for (guint b = 0; b < 5; b++)
    {
      p_op (p, '}'); p_memoize (p); p_op (p, '(');
      key (&g, K_ADDRESS); p_int (p, (gint64) (BASE + b * 2 * MB));
      key (&g, K_SIZE); p_int (p, b < 4 ? 2 * MB : 12 * MB);
      key (&g, K_REQUESTED); p_int (p, b < 4 ? 2 * MB : 0);
      key (&g, K_STATE); p_str (p, b < 4 ? "active_allocated" : "inactive");
      key (&g, K_FRAMES); traceback (&g);
      p_op (p, 'u');
    }
  p_op (p, 'e');
  p_op (p, 'u');
  p_op (p, 'e');

  /* device_traces: the 4 long-lived blocks, then cycles of a fresh
   * segment, 8 blocks, their frees and the segment's free */
  p_str (p, "device_traces");
  p_op (p, ']'); p_memoize (p); p_op (p, '(');
  p_op (p, ']'); p_memoize (p);

#define EMIT(action, slot, addr, size) \
  G_STMT_START { \
    if (in_batch == 0) p_op (p, '('); \
    t += 1 + g_rand_int_range (g.rand, 0, 3); \
    entry (&g, action, slot, addr, size, t); \
    n++; \
    if (++in_batch == 1000) { p_op (p, 'e'); in_batch = 0; p_boundary (p); } \
  } G_STMT_END

  EMIT ("segment_alloc", 3, BASE, 20 * MB);
  for (guint b = 0; b < 4; b++)
    EMIT ("alloc", 0, BASE + b * 2 * MB, 2 * MB);
  while (p->written + p->frame->len < target)
    {
      guint64 seg = BASE + (1 + cycle % 1000) * 64 * MB;
      guint sizes[8];
      guint64 off = 0;

      EMIT ("segment_alloc", 3, seg, 20 * MB);
      for (guint b = 0; b < 8; b++)
        {
          sizes[b] = (guint) (512 * (1 + g_rand_int_range (g.rand, 0, 4096)));
          EMIT ("alloc", 0, seg + off, sizes[b]);
          off += sizes[b];
        }
      off = 0;
      for (guint b = 0; b < 8; b++)
        {
          EMIT ("free_requested", 1, seg + off, sizes[b]);
          EMIT ("free_completed", 2, seg + off, sizes[b]);
          off += sizes[b];
        }
      EMIT ("segment_free", 4, seg, 20 * MB);
      cycle++;
    }
  if (in_batch > 0)
    p_op (p, 'e');
  p_op (p, 'e');    /* the device's list into device_traces (its APPENDS) */
  p_str (p, "allocator_settings");
  p_op (p, '}'); p_memoize (p);
  p_str (p, "external_annotations");
  p_op (p, ']'); p_memoize (p);
  p_op (p, 'u');
  p_op (p, '.');
  p_flush (p);
  fclose (p->out);
  g_assert (g_rename (tmp, path) == 0);
  g_print ("  wrote %s: %" G_GUINT64_FORMAT " MiB, %" G_GUINT64_FORMAT " trace entries\n",
           path, p->written / MB, n);
  g_string_free (p->frame, TRUE);
  g_free (g.frame_memo);
  g_free (g.file_memo);
  g_array_unref (g.tracebacks);
  g_rand_free (g.rand);
}

/* ---- a Kineto trace ---- */

static void
write_kineto (const char *path,
              guint64     target)
{
  g_autofree char *tmp = g_strconcat (path, ".tmp", NULL);
  FILE *f = fopen (tmp, "w");
  GRand *r = g_rand_new_with_seed (57607);
  guint64 corr = 1000, ext = 1, n = 0, step = 0;
  double ts = 4458676984000.0;
  long pos;
  static const char *ops[] = { "aten::linear", "aten::addmm", "aten::relu", "aten::layer_norm",
                               "aten::softmax", "aten::copy_", "aten::empty", "aten::view" };
  static const char *kernels[] = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)",
    "ampere_sgemm_128x64_tn", "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x5_tn_align4>(cutlass_80_tensorop_s1688gemm_128x128_16x5_tn_align4::Params)",
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)" };

  g_assert (f != NULL);
  setvbuf (f, NULL, _IOFBF, 1 << 20);
  fprintf (f, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n      \"id\": 0, \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85097971712,\n"
              "      \"computeMajor\": 8, \"computeMinor\": 0,\n      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
              "      \"regsPerBlock\": 65536, \"warpSize\": 32,\n      \"sharedMemPerBlock\": 49152, \"numSms\": 108\n    }\n  ],\n"
              "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 8},\n  \"record_shapes\": 1,\n  \"traceEvents\": [\n");
  while ((pos = ftell (f)) >= 0 && (guint64) pos < target)
    {
      /* one op: cpu_op > cuda_runtime launch > kernel, with its flow */
      guint k = (guint) g_rand_int_range (r, 0, G_N_ELEMENTS (kernels));
      double dur = 5 + g_rand_double (r) * 50, kdur = 2 + g_rand_double (r) * 400;
      const char *op = ops[g_rand_int_range (r, 0, G_N_ELEMENTS (ops))];

      if (n % 2000 == 0)
        {
          fprintf (f, "  {\n    \"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%" G_GUINT64_FORMAT "\", \"pid\": 2910249, \"tid\": 2919752,\n"
                      "    \"ts\": %.3f, \"dur\": %.3f,\n    \"args\": {\n      \"External id\": %" G_GUINT64_FORMAT ", \"Record function id\": 0, \"Ev Idx\": %" G_GUINT64_FORMAT "\n    }\n  },\n",
                   step++, ts, 200000.0, ext++, n);
        }
      for (guint c = 0; c < 3; c++)
        fprintf (f, "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 2910249, \"tid\": 2919752,\n"
                    "    \"ts\": %.3f, \"dur\": %.3f,\n    \"args\": {\n      \"External id\": %" G_GUINT64_FORMAT ",\"Record function id\": 0, \"Ev Idx\": %" G_GUINT64_FORMAT ",\n"
                    "      \"Input Dims\": [[64, 1024], [1024, 1024], []], \"Input type\": [\"float\", \"float\", \"\"],\n      \"Sequence number\": %" G_GUINT64_FORMAT ", \"Fwd thread id\": 0\n    }\n  },\n",
                 op, ts + c, dur, ext++, n, n);
      fprintf (f, "  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 2910249, \"tid\": 2919752,\n"
                  "    \"ts\": %.3f, \"dur\": %.3f,\n    \"args\": {\n      \"External id\": %" G_GUINT64_FORMAT ", \"cbid\": 211, \"correlation\": %" G_GUINT64_FORMAT "\n    }\n  },\n",
               ts + 3, 4.5, ext, corr);
      fprintf (f, "  {\n    \"ph\": \"s\", \"id\": %" G_GUINT64_FORMAT ", \"pid\": 2910249, \"tid\": 2919752, \"ts\": %.3f,\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  },\n",
               corr, ts + 3);
      fprintf (f, "  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7,\n"
                  "    \"ts\": %.3f, \"dur\": %.3f,\n    \"args\": {\n      \"External id\": %" G_GUINT64_FORMAT ",\n      \"queued\": 0, \"device\": 0, \"context\": 1,\n"
                  "      \"stream\": 7, \"correlation\": %" G_GUINT64_FORMAT ",\n      \"registers per thread\": 32,\n      \"shared memory\": 4224,\n"
                  "      \"blocks per SM\": 33.185184,\n      \"warps per SM\": 265.481476,\n      \"grid\": [7, 16, 32],\n      \"block\": [256, 1, 1],\n"
                  "      \"est. achieved occupancy %%\": 100\n    }\n  },\n",
               kernels[k], ts + 20, kdur, ext, corr);
      fprintf (f, "  {\n    \"ph\": \"f\", \"id\": %" G_GUINT64_FORMAT ", \"pid\": 0, \"tid\": 7, \"ts\": %.3f,\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  },\n",
               corr, ts + 20);
      if (n % 10 == 0)
        fprintf (f, "  {\n    \"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pinned -> Device)\", \"pid\": 0, \"tid\": 7,\n"
                    "    \"ts\": %.3f, \"dur\": %.3f,\n    \"args\": {\n      \"device\": 0, \"context\": 1,\n      \"stream\": 7, \"correlation\": %" G_GUINT64_FORMAT ",\n"
                    "      \"bytes\": 1048576, \"memory bandwidth (GB/s)\": 24.5\n    }\n  },\n",
                 ts + 30, 40.0, corr + 1);
      if (n % 4 == 0)
        fprintf (f, "  {\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\",\n    \"pid\": 2910249, \"tid\": 2919752,\n"
                    "    \"ts\": %.3f,\n    \"args\": {\n      \"Ev Idx\": %" G_GUINT64_FORMAT ", \"Device Type\": 1, \"Device Id\": 0, \"Addr\": 139945723052032, \"Bytes\": 2342912,\n"
                    "      \"Total Allocated\": %" G_GUINT64_FORMAT ", \"Total Reserved\": 12782141440\n    }\n  },\n",
                 ts + 2, n, 5450327040 + (n % 1000) * 512);
      corr += 2;
      ts += dur + 10;
      n++;
    }
  fprintf (f, "  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n    \"pid\": \"\", \"tid\": \"\",\n    \"ts\": %.3f\n  }\n", ts);
  fprintf (f, "],\n  \"traceName\": \"/tmp/libkineto_activities_1102.json\",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": 1711964646000000000\n}\n");
  fclose (f);
  g_rand_free (r);
  g_assert (g_rename (tmp, path) == 0);
  g_print ("  wrote %s: %" G_GUINT64_FORMAT " MiB, %" G_GUINT64_FORMAT " ops\n", path, (guint64) pos / MB, n);
}

/* ---- measuring ---- */

typedef struct
{
  double seconds;     /* as the child measured it (load only) */
  double wall;
  double cpu;         /* user + system, the whole child */
  double rss_mb;
  gboolean ok;
} Run;

/* Runs argv with its stdout in a file (the child prints its own load
 * time); wait4 gives the child's CPU time and peak RSS. */
static Run
measure (char **argv)
{
  Run run = { 0 };
  g_autofree char *out_path = NULL;
  g_autofree char *text = NULL;
  int fd = g_file_open_tmp ("ts-bench-XXXXXX", &out_path, NULL);
  pid_t pid;
  int status = 0;
  struct rusage ru;
  gint64 t0 = g_get_monotonic_time ();

  g_assert (fd >= 0);
  pid = fork ();
  if (pid == 0)
    {
      dup2 (fd, 1);
      execvp (argv[0], argv);
      _exit (127);
    }
  close (fd);
  g_assert (wait4 (pid, &status, 0, &ru) == pid);
  run.wall = (g_get_monotonic_time () - t0) / 1e6;
  run.cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  run.rss_mb = ru.ru_maxrss / 1024.0;
  g_file_get_contents (out_path, &text, NULL, NULL);
  g_unlink (out_path);
  run.ok = WIFEXITED (status) && WEXITSTATUS (status) == 0 && text != NULL && *text != '\0';
  run.seconds = run.ok ? g_ascii_strtod (text, NULL) : run.wall;
  return run;
}

static int
load_main (const char *path)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  guint64 n = 0;

  if (!ts_trace_import_open (path, rec, &error))
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    n += ts_recorder_get_count (rec, k);
  printf ("%.3f %" G_GUINT64_FORMAT "\n", (g_get_monotonic_time () - t0) / 1e6, n);
  return 0;
}

static void
report (const char *what,
        const char *path,
        const char *python,
        const char *py_code,
        const char *self)
{
  GStatBuf st;
  double mb;
  char *ours_argv[] = { (char *) self, (char *) "--load", (char *) path, NULL };
  Run ours, py = { 0 };

  g_assert (g_stat (path, &st) == 0);
  mb = st.st_size / 1e6;
  ours = measure (ours_argv);
  if (!ours.ok)
    g_error ("%s: our import failed", path);
  g_print ("%s, %.0f MB:\n", what, mb);
  g_print ("  tensorscope  load %7.2f s (%6.0f MB/s), process CPU %7.2f s (%6.0f MB/s), peak RSS %6.0f MB\n",
           ours.seconds, mb / ours.seconds, ours.cpu, mb / ours.cpu, ours.rss_mb);
  if (python != NULL)
    {
      char *py_argv[] = { (char *) python, (char *) "-c", (char *) py_code, (char *) path, NULL };
      py = measure (py_argv);
      if (py.ok)
        g_print ("  python       load %7.2f s (%6.0f MB/s), process CPU %7.2f s (%6.0f MB/s), peak RSS %6.0f MB\n"
                 "               tensorscope: %.1fx the speed (CPU), %.1fx less memory\n",
                 py.seconds, mb / py.seconds, py.cpu, mb / py.cpu, py.rss_mb, py.cpu / ours.cpu, py.rss_mb / ours.rss_mb);
      else
        g_print ("  python       failed (out of memory?) after %.1f s, peak RSS %.0f MB\n", py.wall, py.rss_mb);
    }
}

int
main (int    argc,
      char **argv)
{
  const char *mb_env = g_getenv ("TS_BENCH_PYTORCH_MB");
  const char *dir = g_getenv ("TS_BENCH_PYTORCH_DIR");
  const char *python = g_getenv ("TS_BENCH_PYTHON");
  guint64 mb = mb_env != NULL ? g_ascii_strtoull (mb_env, NULL, 10) : 1024;
  g_autofree char *snap = NULL, *trace = NULL, *self = NULL;

  if (argc == 3 && g_str_equal (argv[1], "--load"))
    return load_main (argv[2]);
  if (mb == 0)
    mb = 1;
  if (dir == NULL)
    dir = g_get_tmp_dir ();
  if (python == NULL)
    python = "python3";
  if (g_str_equal (python, "none"))
    python = NULL;
  self = g_canonicalize_filename (argv[0], NULL);
  snap = g_strdup_printf ("%s/ts-bench-snapshot-%" G_GUINT64_FORMAT "MiB.pickle", dir, mb);
  trace = g_strdup_printf ("%s/ts-bench-kineto-%" G_GUINT64_FORMAT "MiB.json", dir, mb);
  if (!g_file_test (snap, G_FILE_TEST_EXISTS))
    write_snapshot (snap, mb * MB);
  if (!g_file_test (trace, G_FILE_TEST_EXISTS))
    write_kineto (trace, mb * MB);

  report ("memory snapshot (pickle protocol 4)", snap, python,
          "import pickle, sys, time\nt = time.perf_counter()\nd = pickle.load(open(sys.argv[1], 'rb'))\n"
          "print('%.3f' % (time.perf_counter() - t))", self);
  report ("Kineto trace (JSON)", trace, python,
          "import json, sys, time\nt = time.perf_counter()\nd = json.load(open(sys.argv[1], 'rb'))\n"
          "print('%.3f' % (time.perf_counter() - t))", self);
  {
    double load[3];
    if (getloadavg (load, 3) == 3)
      g_print ("load average %.1f on %u CPUs: on a busy machine compare CPU times, not wall times\n",
               load[0], g_get_num_processors ());
  }
  g_print ("targets (issue #19, at 1 GB): snapshot < 10 s and < 1500 MB RSS; trace >= 300 MB/s, RSS < file size\n");
  return 0;
}
