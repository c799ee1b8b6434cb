/* test-runtime-graphs.c: CUDA graph capture and replay in the runtime
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "test-helpers-runtime.h"

#define NOT_PERMITTED "CUDA error: operation not permitted when stream is capturing"

static TsDeviceError
count_start (gpointer data)
{
  (*(int *) data)++;
  return TS_DEVICE_ERROR_NONE;
}

static gpointer
same_data (gpointer data)
{
  return data;
}

static TsWork
counting_work (int *count)
{
  return (TsWork) { count_start, NULL, NULL, count, NULL, same_data };
}

/* Capture rules: the default stream refuses; a sync invalidates. */
static void
test_capture_errors (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  g_autoptr(GError) error = NULL;
  TsStreamId s = new_stream (rt, 0, 0);
  gboolean done;
  int count = 0;

  g_assert_false (ts_runtime_capture_begin (rt, 0, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_CAPTURE);
  g_assert_true (g_str_has_prefix (error->message, "CUDA graphs must be captured on a non-default stream."));
  g_clear_error (&error);

  g_assert_true (ts_runtime_capture_begin (rt, s, &error));
  g_assert_true (ts_runtime_stream_is_capturing (rt, s));
  launch_full (rt, s, 1000, 1, counting_work (&count));
  g_assert_false (ts_runtime_stream_query (rt, s, &done, &error));
  g_assert_true (g_str_has_prefix (error->message, NOT_PERMITTED));
  g_clear_error (&error);
  g_assert_false (ts_runtime_device_synchronize (rt, 0, &error));
  g_assert_true (g_str_has_prefix (error->message, NOT_PERMITTED));
  g_clear_error (&error);
  g_assert_null (ts_runtime_capture_end (rt, s, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_CAPTURE);
  g_clear_error (&error);
  g_assert_false (ts_runtime_stream_is_capturing (rt, s));

  /* the captured kernel never ran */
  sync_device (rt, 0);
  g_assert_cmpint (count, ==, 0);
  g_assert_cmpuint (count_records (rt, TS_RECORD_KERNEL), ==, 0);
}

/* A replay: one cudaGraphLaunch, the graph's kernels on the replay
 * stream with its correlation, run each time. */
static void
test_replay_records (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  g_autoptr(GError) error = NULL;
  TsRecorder *rec = ts_runtime_get_recorder (rt);
  const TsGpuProfile *profile = ts_runtime_get_profile (rt);
  TsStreamId s = new_stream (rt, 0, 0);
  TsApiCallRecord api;
  TsGraph *graph;
  TsTime before;
  int count = 0;

  g_assert_true (ts_runtime_capture_begin (rt, s, &error));
  for (int k = 0; k < 3; k++)
    launch_full (rt, s, 1000, 1, counting_work (&count));
  graph = ts_runtime_capture_end (rt, s, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ts_runtime_graph_get_n_nodes (graph), ==, 3);
  g_assert_cmpuint (count_records (rt, TS_RECORD_KERNEL), ==, 0);

  for (int r = 0; r < 2; r++)
    {
      gsize n_kernels = count_records (rt, TS_RECORD_KERNEL);

      before = ts_runtime_get_host_time (rt);
      g_assert_true (ts_runtime_graph_launch (rt, graph, 0, &error));
      /* one launch's latency and a little per node */
      g_assert_cmpint (ts_runtime_get_host_time (rt) - before, ==, profile->launch_latency_ns + 3 * 40);
      get_last (rt, TS_RECORD_API_CALL, &api);
      g_assert_cmpstr (ts_recorder_lookup (rec, api.name), ==, "cudaGraphLaunch");
      sync_device (rt, 0);
      g_assert_cmpuint (count_records (rt, TS_RECORD_KERNEL), ==, n_kernels + 3);
      for (gsize i = n_kernels; i < n_kernels + 3; i++)
        {
          TsKernelRecord k;

          ts_recorder_get (rec, TS_RECORD_KERNEL, i, &k);
          g_assert_cmpuint (k.correlation, ==, api.correlation);
          g_assert_cmpuint (k.stream, ==, 0);
        }
    }
  g_assert_cmpint (count, ==, 6);
  ts_runtime_graph_free (rt, graph);
}

/* Another stream joins through an event; its work is in the graph. */
static void
test_cross_stream_join (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  g_autoptr(GError) error = NULL;
  TsStreamId s = new_stream (rt, 0, 0), side = new_stream (rt, 0, -1);
  TsGraph *graph;
  int count = 0;

  g_assert_true (ts_runtime_capture_begin (rt, s, &error));
  g_assert_true (ts_runtime_stream_wait_stream (rt, side, s, &error));
  g_assert_true (ts_runtime_stream_is_capturing (rt, side));
  launch_full (rt, side, 1000, 1, counting_work (&count));
  g_assert_true (ts_runtime_stream_wait_stream (rt, s, side, &error));
  graph = ts_runtime_capture_end (rt, s, &error);
  g_assert_no_error (error);
  g_assert_false (ts_runtime_stream_is_capturing (rt, side));
  g_assert_cmpuint (ts_runtime_graph_get_n_nodes (graph), ==, 1);
  g_assert_true (ts_runtime_graph_launch (rt, graph, s, &error));
  sync_device (rt, 0);
  g_assert_cmpint (count, ==, 1);
  ts_runtime_graph_free (rt, graph);

  /* work the origin never waited for: CUDA refuses the capture */
  g_assert_true (ts_runtime_capture_begin (rt, s, &error));
  g_assert_true (ts_runtime_stream_wait_stream (rt, side, s, &error));
  launch_full (rt, side, 1000, 1, counting_work (&count));
  g_assert_null (ts_runtime_capture_end (rt, s, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_CAPTURE);
  g_assert_true (g_str_has_prefix (error->message, "CUDA error: capturing stream has unjoined work"));
  g_assert_false (ts_runtime_stream_is_capturing (rt, side));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/runtime-graphs/capture-errors", test_capture_errors);
  g_test_add_func ("/runtime-graphs/replay-records", test_replay_records);
  g_test_add_func ("/runtime-graphs/cross-stream-join", test_cross_stream_join);
  return g_test_run ();
}
