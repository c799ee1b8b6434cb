/* test-helpers-runtime.h: small helpers shared by the runtime tests
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-runtime.h"

/* A runtime of n H100s with its own recorder; TENSORSCOPE_GPUS is ignored
 * because n is given. */
static inline TsRuntime *
make_runtime (const char *model,
              guint       n)
{
  TsRuntimeOptions options = { .gpu_model = model, .n_gpus = n };
  g_autoptr(GError) error = NULL;
  TsRuntime *rt = ts_runtime_new (&options, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (rt);
  return rt;
}

/* Launches a kernel of a fixed duration on `blocks` blocks. */
static inline guint64
launch_full (TsRuntime  *rt,
             TsStreamId  stream,
             TsTime      duration,
             guint32     blocks,
             TsWork      work)
{
  TsKernelDesc desc = {
    .name = "test_kernel",
    .grid = { blocks, 1, 1 },
    .block = { 256, 1, 1 },
    .duration = duration,
    .work = work,
  };
  g_autoptr(GError) error = NULL;
  guint64 corr = ts_runtime_launch_kernel (rt, stream, &desc, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (corr, !=, 0);
  return corr;
}

static inline guint64
launch (TsRuntime  *rt,
        TsStreamId  stream,
        TsTime      duration,
        guint32     blocks)
{
  return launch_full (rt, stream, duration, blocks, (TsWork) { 0 });
}

static inline TsKernelRecord
get_kernel (TsRuntime *rt,
            guint64    correlation)
{
  TsRecorder *rec = ts_runtime_get_recorder (rt);
  TsKernelRecord k;

  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_KERNEL); i++)
    {
      g_assert_true (ts_recorder_get (rec, TS_RECORD_KERNEL, i, &k));
      if (k.correlation == correlation)
        return k;
    }

  g_assert_not_reached ();
  return k;
}

static inline TsMemcpyRecord
get_memcpy (TsRuntime *rt,
            guint64    correlation)
{
  TsRecorder *rec = ts_runtime_get_recorder (rt);
  TsMemcpyRecord m;

  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_MEMCPY); i++)
    {
      g_assert_true (ts_recorder_get (rec, TS_RECORD_MEMCPY, i, &m));
      if (m.correlation == correlation)
        return m;
    }

  g_assert_not_reached ();
  return m;
}

static inline gsize
count_records (TsRuntime    *rt,
               TsRecordKind  kind)
{
  return ts_recorder_get_count (ts_runtime_get_recorder (rt), kind);
}

/* The last record of a kind. */
static inline void
get_last (TsRuntime    *rt,
          TsRecordKind  kind,
          void         *out)
{
  gsize n = count_records (rt, kind);

  g_assert_cmpuint (n, >, 0);
  g_assert_true (ts_recorder_get (ts_runtime_get_recorder (rt), kind, n - 1, out));
}

static inline void
sync_device (TsRuntime *rt,
             int        device)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (ts_runtime_device_synchronize (rt, device, &error));
  g_assert_no_error (error);
}

static inline TsStreamId
new_stream (TsRuntime *rt,
            int        device,
            int        priority)
{
  g_autoptr(GError) error = NULL;
  TsStreamId s = ts_runtime_stream_new (rt, device, priority, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (s, !=, TS_STREAM_NONE);
  return s;
}
