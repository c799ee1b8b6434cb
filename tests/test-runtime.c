/* test-runtime.c: the runtime's API: devices, streams, events, errors
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-callsite.h"

#include "test-helpers-runtime.h"

#define LAUNCH 4000
#define API 500

#define CUDA_TRAILER \
  "\nCUDA kernel errors might be asynchronously reported at some other API call, " \
  "so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1"
#define DSA_TRAILER "\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"

/* ---------------------------------------------------------------- options */

static void
test_options_defaults (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRuntime) rt = NULL;
  TsDeviceRecord dev;
  TsStreamRecord stream;

  g_unsetenv ("TENSORSCOPE_GPUS");
  rt = ts_runtime_new (NULL, NULL, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (ts_runtime_get_n_devices (rt), ==, 4);
  g_assert_cmpstr (ts_runtime_get_profile (rt)->key, ==, "h100");
  g_assert_false (ts_runtime_get_launch_blocking (rt));
  g_assert_null (ts_runtime_get_visible_devices_note (rt));

  /* One device record and one default stream (track d) per device. */
  g_assert_cmpuint (count_records (rt, TS_RECORD_DEVICE), ==, 4);
  g_assert_true (ts_recorder_get (ts_runtime_get_recorder (rt), TS_RECORD_DEVICE, 3, &dev));
  g_assert_cmpuint (dev.index, ==, 3);
  g_assert_cmpuint (dev.sm_count, ==, 132);
  g_assert_cmpuint (dev.cc_major, ==, 9);
  g_assert_cmpstr (ts_recorder_lookup (ts_runtime_get_recorder (rt), dev.name), ==, "NVIDIA H100 80GB HBM3");
  g_assert_cmpuint (count_records (rt, TS_RECORD_STREAM), ==, 4);
  g_assert_true (ts_recorder_get (ts_runtime_get_recorder (rt), TS_RECORD_STREAM, 2, &stream));
  g_assert_cmpuint (stream.stream, ==, 2);
  g_assert_cmpuint (stream.device, ==, 2);
  g_assert_cmpuint (stream.is_default, ==, 1);
  g_assert_cmpuint (stream.handle, ==, 0);
}

static void
test_options_env_gpus (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRuntime) rt = NULL;
  TsRuntimeOptions options = { .gpu_model = "gtx1080ti" };
  TsRuntime *bad;

  g_setenv ("TENSORSCOPE_GPUS", "2", TRUE);
  rt = ts_runtime_new (&options, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ts_runtime_get_n_devices (rt), ==, 2);
  g_assert_cmpstr (ts_runtime_get_profile (rt)->name, ==, "NVIDIA GeForce GTX 1080 Ti");

  /* The option wins over the variable. */
  options.n_gpus = 3;
  g_clear_object (&rt);
  rt = ts_runtime_new (&options, NULL, &error);
  g_assert_cmpuint (ts_runtime_get_n_devices (rt), ==, 3);

  options.n_gpus = 0;
  g_setenv ("TENSORSCOPE_GPUS", "many", TRUE);
  bad = ts_runtime_new (&options, NULL, &error);
  g_assert_null (bad);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "TENSORSCOPE_GPUS=many: the number of GPUs must be from 1 to 16");
  g_clear_error (&error);

  g_setenv ("TENSORSCOPE_GPUS", "0", TRUE);
  bad = ts_runtime_new (&options, NULL, &error);
  g_assert_null (bad);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_unsetenv ("TENSORSCOPE_GPUS");
}

static void
test_options_bad (void)
{
  g_autoptr(GError) error = NULL;
  TsRuntimeOptions options = { .gpu_model = "a100" };
  TsRuntime *rt;

  rt = ts_runtime_new (&options, NULL, &error);
  g_assert_null (rt);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_UNKNOWN_MODEL);
  g_assert_cmpstr (error->message, ==, "Unknown GPU model “a100”; known models: h100, gtx1080ti, h200");
  g_clear_error (&error);

  options = (TsRuntimeOptions) { .n_gpus = 17 };
  rt = ts_runtime_new (&options, NULL, &error);
  g_assert_null (rt);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "Cannot simulate 17 GPUs: the number of GPUs must be from 1 to 16");

  /* Model keys are case-insensitive. */
  g_clear_error (&error);
  options = (TsRuntimeOptions) { .gpu_model = "H100", .n_gpus = 1 };
  rt = ts_runtime_new (&options, NULL, &error);
  g_assert_no_error (error);
  g_object_unref (rt);
}

/* ---------------------------------------------------------------- visible */

static char *
visible_string (const char *value,
                guint       n,
                gboolean   *has_note)
{
  g_autofree char *note = NULL;
  g_autoptr(GArray) list = ts_runtime_parse_visible_devices (value, n, &note);
  GString *s = g_string_new ("");

  for (guint i = 0; i < list->len; i++)
    g_string_append_printf (s, "%s%d", i ? "," : "", g_array_index (list, int, i));
  *has_note = note != NULL;

  return g_string_free (s, FALSE);
}

static void
test_visible_devices_parse (void)
{
  static const struct {
    const char *value;
    const char *expected;
    gboolean    note;
  } cases[] = {
    { NULL, "0,1,2,3", FALSE },
    { "1,0", "1,0", FALSE },
    { " 3 , 1 ", "3,1", FALSE },
    { "+2", "2", FALSE },
    { "1gpu2,2ampere", "1,2", FALSE },   /* read like strtoul */
    { "2,x,3", "2", TRUE },              /* a bad entry ends the list */
    { "0,-1,2", "0", TRUE },             /* so does a negative one */
    { "3,7,1", "3", TRUE },              /* and one past the last device */
    { "0,,1", "0", TRUE },               /* an empty entry is no number */
    { "1,0,1", "", TRUE },               /* a repeat hides everything */
    { "", "", TRUE },
    { "GPU-8e6a2b37", "", TRUE },        /* no UUIDs in the simulator */
    { "99999999999999999999", "", TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gboolean note;
      g_autofree char *got = visible_string (cases[i].value, 4, &note);

      g_test_message ("CUDA_VISIBLE_DEVICES=%s", cases[i].value ? cases[i].value : "(unset)");
      g_assert_cmpstr (got, ==, cases[i].expected);
      g_assert_cmpint (note, ==, cases[i].note);
    }
}

static void
test_visible_devices_renumber (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRuntime) rt = NULL;
  TsRuntimeOptions options = { .n_gpus = 4, .visible_devices = "3,1,zz,0" };
  TsOutputRecord out;

  rt = ts_runtime_new (&options, NULL, &error);
  g_assert_no_error (error);

  /* Physical 3 and 1 become cuda:0 and cuda:1; "zz" ends the list. */
  g_assert_cmpuint (ts_runtime_get_n_devices (rt), ==, 2);
  g_assert_cmpint (ts_runtime_get_physical_device (rt, 0), ==, 3);
  g_assert_cmpint (ts_runtime_get_physical_device (rt, 1), ==, 1);
  g_assert_cmpint (ts_runtime_get_physical_device (rt, 2), ==, -1);
  g_assert_cmpuint (count_records (rt, TS_RECORD_DEVICE), ==, 2);

  /* The user is told why, in the trace. */
  g_assert_nonnull (ts_runtime_get_visible_devices_note (rt));
  get_last (rt, TS_RECORD_OUTPUT, &out);
  g_assert_cmpuint (out.kind, ==, TS_OUTPUT_TOOL);
  g_assert_cmpstr (ts_recorder_lookup (ts_runtime_get_recorder (rt), out.text), ==,
                   "CUDA_VISIBLE_DEVICES=3,1,zz,0: “zz” is not a device ordinal; "
                   "as in CUDA, it and every entry after it are ignored");

  /* Device 2 no longer exists for the workload. */
  g_assert_false (ts_runtime_set_device (rt, 2, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_DEVICE);
  g_assert_cmpstr (error->message, ==, "CUDA error: invalid device ordinal" CUDA_TRAILER);
}

static void
test_no_visible_device (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRuntime) rt = NULL;
  TsRuntimeOptions options = { .n_gpus = 2, .visible_devices = "" };

  rt = ts_runtime_new (&options, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ts_runtime_get_n_devices (rt), ==, 0);

  g_assert_cmpuint (ts_runtime_get_current_stream (rt, -1, &error), ==, TS_STREAM_NONE);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_NO_DEVICE);
  g_assert_cmpstr (error->message, ==, "No CUDA GPUs are available");
  g_clear_error (&error);

  g_assert_false (ts_runtime_device_synchronize (rt, -1, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_NO_DEVICE);
  g_clear_error (&error);

  g_assert_cmpuint (ts_runtime_stream_new (rt, -1, 0, &error), ==, TS_STREAM_NONE);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_NO_DEVICE);
}

/* ---------------------------------------------------------------- devices */

static void
test_current_device_and_guard (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 4);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (ts_runtime_get_device (rt), ==, 0);
  g_assert_true (ts_runtime_set_device (rt, 2, &error));
  g_assert_cmpint (ts_runtime_get_device (rt), ==, 2);

  {
    g_auto(TsDeviceGuard) guard = { 0 };

    g_assert_true (ts_device_guard_init (&guard, rt, 3, &error));
    g_assert_no_error (error);
    g_assert_cmpint (ts_runtime_get_device (rt), ==, 3);
    /* The current stream follows the current device. */
    g_assert_cmpuint (ts_runtime_get_current_stream (rt, -1, &error), ==, 3);
  }
  g_assert_cmpint (ts_runtime_get_device (rt), ==, 2);

  {
    g_auto(TsDeviceGuard) guard = { 0 };

    /* A failed guard changes nothing and restores nothing. */
    g_assert_false (ts_device_guard_init (&guard, rt, 9, &error));
    g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_DEVICE);
    g_clear_error (&error);
    g_assert_cmpint (ts_runtime_get_device (rt), ==, 2);
  }
  g_assert_cmpint (ts_runtime_get_device (rt), ==, 2);

  g_assert_false (ts_runtime_set_device (rt, -1, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_DEVICE);
}

/* ---------------------------------------------------------------- streams */

static void
test_stream_pool (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 2);
  g_autoptr(GError) error = NULL;
  TsStreamId first, s, hi;
  GHashTable *handles = g_hash_table_new (g_int64_hash, g_int64_equal);
  guint64 handle_storage[40];

  g_assert_cmpuint (ts_runtime_get_default_stream (rt, 1, &error), ==, 1);
  g_assert_cmpuint (ts_runtime_stream_get_handle (rt, 0), ==, 0);

  /* 32 distinct streams per level, then they come round again. */
  first = new_stream (rt, 0, 0);
  handle_storage[0] = ts_runtime_stream_get_handle (rt, first);
  g_assert_cmpuint (handle_storage[0], !=, 0);
  g_hash_table_add (handles, &handle_storage[0]);
  for (guint i = 1; i < 32; i++)
    {
      s = new_stream (rt, 0, 0);
      handle_storage[i] = ts_runtime_stream_get_handle (rt, s);
      g_assert_false (g_hash_table_contains (handles, &handle_storage[i]));
      g_hash_table_add (handles, &handle_storage[i]);
      g_assert_cmpint (ts_runtime_stream_get_device (rt, s), ==, 0);
    }
  g_assert_cmpuint (new_stream (rt, 0, 0), ==, first);
  g_hash_table_unref (handles);

  /* Another device or priority level is another pool. */
  s = new_stream (rt, 1, 0);
  g_assert_cmpint (ts_runtime_stream_get_device (rt, s), ==, 1);
  g_assert_cmpuint (s, !=, first);

  hi = new_stream (rt, 0, -3);
  g_assert_cmpint (ts_runtime_stream_get_priority (rt, hi), ==, -3);
  /* Below the greatest priority: clamped, and the same pool as -3. */
  s = new_stream (rt, 0, -10);
  g_assert_cmpint (ts_runtime_stream_get_priority (rt, s), ==, -3);
  g_assert_cmpuint (s, !=, hi);

  g_assert_cmpuint (ts_runtime_stream_new (rt, 0, 1, &error), ==, TS_STREAM_NONE);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "Expected cuda stream priority to be less than or equal to 0, got 1");
  g_clear_error (&error);

  g_assert_cmpuint (ts_runtime_stream_new (rt, 5, 0, &error), ==, TS_STREAM_NONE);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_DEVICE);
}

static void
test_stream_priority_small_range (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("gtx1080ti", 1);

  /* The 1080 Ti model has two levels: anything higher is clamped to -1. */
  g_assert_cmpint (ts_runtime_stream_get_priority (rt, new_stream (rt, 0, -1)), ==, -1);
  g_assert_cmpint (ts_runtime_stream_get_priority (rt, new_stream (rt, 0, -3)), ==, -1);
  g_assert_cmpint (ts_runtime_stream_get_priority (rt, new_stream (rt, 0, 0)), ==, 0);
}

typedef struct
{
  TsRuntime  *rt;
  TsStreamId  seen;
  guint       id;
  TsTime      clock;
} ThreadCheck;

static gpointer
other_thread (gpointer data)
{
  ThreadCheck *check = data;
  g_autoptr(GError) error = NULL;

  check->seen = ts_runtime_get_current_stream (check->rt, 0, &error);
  check->id = ts_runtime_get_thread_id (check->rt);
  check->clock = ts_runtime_get_host_time (check->rt);
  ts_runtime_host_advance (check->rt, 100);
  launch (check->rt, 0, 1000, 1);

  return NULL;
}

static void
test_current_stream_per_thread (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 2);
  g_autoptr(GError) error = NULL;
  TsStreamId s = new_stream (rt, 1, 0);
  ThreadCheck check = { rt, 0, 0, 0 };
  GThread *thread;
  TsThreadRecord trec;

  g_assert_cmpuint (ts_runtime_get_current_stream (rt, 1, &error), ==, 1);
  g_assert_true (ts_runtime_set_current_stream (rt, s, &error));
  /* Current for its device only; the current device does not change. */
  g_assert_cmpuint (ts_runtime_get_current_stream (rt, 1, &error), ==, s);
  g_assert_cmpuint (ts_runtime_get_current_stream (rt, 0, &error), ==, 0);
  g_assert_cmpint (ts_runtime_get_device (rt), ==, 0);

  ts_runtime_host_advance (rt, 5000);
  thread = g_thread_new ("other", other_thread, &check);
  g_thread_join (thread);

  /* The other thread has its own current streams, id and clock, which
   * starts where the host already is. */
  g_assert_cmpuint (check.seen, ==, 0);
  g_assert_cmpuint (check.id, ==, 1);
  g_assert_cmpint (check.clock, ==, 5000);
  g_assert_cmpint (ts_runtime_get_host_time (rt), ==, 5000);
  sync_device (rt, 0);
  g_assert_cmpuint (get_kernel (rt, 1).queued, ==, 5000 + 100 + LAUNCH);

  g_assert_cmpuint (count_records (rt, TS_RECORD_THREAD), ==, 2);
  get_last (rt, TS_RECORD_THREAD, &trec);
  g_assert_cmpuint (trec.thread, ==, 1);
  g_assert_cmpstr (ts_recorder_lookup (ts_runtime_get_recorder (rt), trec.name), ==, "Thread-1");

  g_assert_false (ts_runtime_set_current_stream (rt, 999, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_STREAM);
}

static void
test_stream_query_and_sync (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  g_autoptr(GError) error = NULL;
  TsStreamId s = new_stream (rt, 0, 0);
  gboolean done = FALSE;
  TsSyncRecord sync;

  g_assert_true (ts_runtime_stream_query (rt, s, &done, &error));
  g_assert_true (done);

  launch (rt, s, 100000, 1);                          /* [4500, 104500) */
  g_assert_true (ts_runtime_stream_query (rt, s, &done, &error));
  g_assert_false (done);
  g_assert_true (ts_runtime_stream_synchronize (rt, s, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ts_runtime_get_host_time (rt), ==, 104500);
  g_assert_true (ts_runtime_stream_query (rt, s, &done, &error));
  g_assert_true (done);

  get_last (rt, TS_RECORD_SYNC, &sync);
  g_assert_cmpuint (sync.kind, ==, TS_SYNC_STREAM);
  g_assert_cmpuint (sync.stream, ==, s);
  g_assert_cmpint (sync.start, ==, LAUNCH + 3 * API);
  g_assert_cmpint (sync.end, ==, 104500);

  /* Work on another stream is not waited for. */
  launch (rt, 0, 100000, 1);
  g_assert_true (ts_runtime_stream_synchronize (rt, s, &error));
  g_assert_cmpint (ts_runtime_get_host_time (rt), ==, 105000 + LAUNCH + API);
}

/* ---------------------------------------------------------------- events */

static void
test_event_lifecycle (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 2);
  g_autoptr(GError) error = NULL;
  guint64 start = ts_runtime_event_new (rt, TS_EVENT_TIMING);
  guint64 end = ts_runtime_event_new (rt, TS_EVENT_TIMING | TS_EVENT_BLOCKING);
  gboolean done = FALSE;
  double ms = -1;

  g_assert_cmpuint (start, !=, end);
  g_assert_cmpuint (ts_runtime_event_get_flags (rt, end), ==, TS_EVENT_TIMING | TS_EVENT_BLOCKING);
  /* Created lazily: no handle and no device before the first record. */
  g_assert_cmpint (ts_runtime_event_get_device (rt, start), ==, -1);
  g_assert_cmpuint (ts_runtime_event_get_handle (rt, start), ==, 0);
  /* Never recorded: query is true, synchronize and wait do nothing. */
  g_assert_true (ts_runtime_event_query (rt, start, &done, &error));
  g_assert_true (done);
  g_assert_true (ts_runtime_event_synchronize (rt, start, &error));
  g_assert_true (ts_runtime_event_wait (rt, start, 0, &error));
  g_assert_cmpuint (count_records (rt, TS_RECORD_API_CALL), ==, 0);
  g_assert_cmpint (ts_runtime_get_host_time (rt), ==, 0);

  g_assert_true (ts_runtime_set_device (rt, 1, &error));
  g_assert_true (ts_runtime_event_record (rt, start, 1, &error));   /* 0 -> 500 */
  g_assert_cmpint (ts_runtime_event_get_device (rt, start), ==, 1);
  g_assert_cmpuint (ts_runtime_event_get_handle (rt, start), !=, 0);
  launch (rt, 1, 50000, 1);                                        /* [4500, 54500) */
  g_assert_true (ts_runtime_event_record (rt, end, 1, &error));     /* -> 5000 */
  g_assert_true (ts_runtime_event_query (rt, end, &done, &error));  /* -> 5500 */
  g_assert_false (done);

  g_assert_false (ts_runtime_event_elapsed_time (rt, start, end, &ms, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_EVENT_NOT_COMPLETED);
  g_assert_cmpstr (error->message, ==, "Both events must be completed before calculating elapsed time.");
  g_clear_error (&error);

  g_assert_true (ts_runtime_event_synchronize (rt, end, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ts_runtime_get_host_time (rt), ==, 54500);
  g_assert_true (ts_runtime_event_query (rt, end, &done, &error));
  g_assert_true (done);
  g_assert_true (ts_runtime_event_query (rt, start, &done, &error));
  g_assert_true (done);

  /* From start's completion (500) to end's (54500). */
  g_assert_true (ts_runtime_event_elapsed_time (rt, start, end, &ms, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (ms, ==, (double) (float) 0.054);

  g_assert_true (ts_runtime_event_free (rt, start, &error));
  g_assert_true (ts_runtime_event_free (rt, end, &error));
  g_assert_false (ts_runtime_event_is_valid (rt, end));
}

static void
test_event_errors (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 2);
  g_autoptr(GError) error = NULL;
  guint64 plain = ts_runtime_event_new (rt, TS_EVENT_DEFAULT);
  guint64 t0 = ts_runtime_event_new (rt, TS_EVENT_TIMING);
  guint64 t1 = ts_runtime_event_new (rt, TS_EVENT_TIMING);
  guint64 t2 = ts_runtime_event_new (rt, TS_EVENT_TIMING);
  guint64 ipc = ts_runtime_event_new (rt, TS_EVENT_TIMING | TS_EVENT_INTERPROCESS);
  double ms;

  g_assert_true (ts_runtime_event_record (rt, t0, 0, &error));

  /* Recorded on device 0, then on a stream of device 1. */
  g_assert_false (ts_runtime_event_record (rt, t0, 1, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_EVENT_DEVICE);
  g_assert_cmpstr (error->message, ==, "Event device 0 does not match recording stream's device 1.");
  g_clear_error (&error);

  /* Timing is checked before anything else, and the default has none. */
  g_assert_false (ts_runtime_event_elapsed_time (rt, plain, t0, &ms, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_EVENT_TIMING);
  g_assert_cmpstr (error->message, ==, "Both events must be created with argument 'enable_timing=True'.");
  g_clear_error (&error);

  g_assert_false (ts_runtime_event_elapsed_time (rt, t0, t1, &ms, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_EVENT_NOT_RECORDED);
  g_assert_cmpstr (error->message, ==, "Both events must be recorded before calculating elapsed time.");
  g_clear_error (&error);

  /* Events of two devices. */
  g_assert_true (ts_runtime_event_record (rt, t2, 1, &error));
  sync_device (rt, 1);
  sync_device (rt, 0);
  g_assert_false (ts_runtime_event_elapsed_time (rt, t0, t2, &ms, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_CUDA);
  g_assert_cmpstr (error->message, ==, "CUDA error: invalid resource handle" CUDA_TRAILER);
  g_clear_error (&error);

  /* CUDA refuses an interprocess event with timing, at creation. */
  g_assert_false (ts_runtime_event_record (rt, ipc, 0, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_CUDA);
  g_assert_cmpstr (error->message, ==, "CUDA error: invalid argument" CUDA_TRAILER);
  g_clear_error (&error);
  g_assert_cmpuint (ts_runtime_event_get_handle (rt, ipc), ==, 0);

  /* A freed event. */
  g_assert_true (ts_runtime_event_free (rt, t1, &error));
  g_assert_false (ts_runtime_event_record (rt, t1, 0, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_EVENT);
  g_assert_cmpstr (error->message, ==, "Invalid event 3: it was freed or never created");
  g_clear_error (&error);
  g_assert_false (ts_runtime_event_free (rt, t1, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_EVENT);
  g_clear_error (&error);
  g_assert_false (ts_runtime_event_query (rt, 12345, NULL, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_EVENT);
  g_clear_error (&error);
  g_assert_false (ts_runtime_event_elapsed_time (rt, t0, 0, &ms, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_EVENT);
  g_clear_error (&error);

  /* An unknown stream. */
  g_assert_false (ts_runtime_event_record (rt, t0, 77, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_STREAM);
  g_assert_cmpstr (error->message, ==, "Invalid stream 77: the runtime has no such stream");
}

static void
test_event_freed_while_waited (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  g_autoptr(GError) error = NULL;
  TsStreamId s = new_stream (rt, 0, 0);
  guint64 ev = ts_runtime_event_new (rt, TS_EVENT_DEFAULT);
  guint64 k;

  launch (rt, 0, 30000, 1);                                 /* [4000, 34000) */
  g_assert_true (ts_runtime_event_record (rt, ev, 0, &error));
  g_assert_true (ts_runtime_event_wait (rt, ev, s, &error));
  /* Freed before the record completes: the wait still holds. */
  g_assert_true (ts_runtime_event_free (rt, ev, &error));
  k = launch (rt, s, 1000, 1);
  sync_device (rt, 0);
  g_assert_cmpint (get_kernel (rt, k).start, ==, 34000);
}

static void
test_event_rerecord (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  g_autoptr(GError) error = NULL;
  TsStreamId s = new_stream (rt, 0, 0);
  TsStreamId w = new_stream (rt, 0, 0);
  guint64 ev = ts_runtime_event_new (rt, TS_EVENT_DEFAULT);
  guint64 k;

  /* A wait captures the record made before it, not a later one. */
  launch (rt, 0, 10000, 1);                                 /* [4000, 14000) */
  g_assert_true (ts_runtime_event_record (rt, ev, 0, &error));
  g_assert_true (ts_runtime_event_wait (rt, ev, w, &error));
  launch (rt, s, 90000, 1);
  g_assert_true (ts_runtime_event_record (rt, ev, s, &error));
  k = launch (rt, w, 1000, 1);
  sync_device (rt, 0);
  g_assert_cmpint (get_kernel (rt, k).start, ==, 14000);
}

/* ---------------------------------------------------------------- faults */

static TsDeviceError
assert_start (gpointer data)
{
  return TS_DEVICE_ERROR_ASSERT;
}

static void
count_finish (gpointer data)
{
  (*(int *) data)++;
}

static void
test_device_fault (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 2);
  g_autoptr(GError) error = NULL;
  TsRecorder *rec = ts_runtime_get_recorder (rt);
  TsSourceLoc loc_launch = { ts_recorder_intern (rec, "f.py"), ts_recorder_intern (rec, "f"), 3 };
  TsSourceLoc loc_sync = { ts_recorder_intern (rec, "f.py"), ts_recorder_intern (rec, "f"), 9 };
  int finished = 0;
  guint64 bad, after, other;
  TsKernelRecord kbad, kafter;
  TsErrorRecord err;
  TsApiCallRecord api;
  guint64 corr;

  ts_callsite_set (&loc_launch);
  bad = launch_full (rt, 0, 10000, 1, (TsWork) { assert_start, count_finish, NULL, &finished });
  ts_callsite_set (NULL);
  after = launch_full (rt, 0, 10000, 1, (TsWork) { NULL, count_finish, NULL, &finished });
  other = launch_full (rt, 1, 10000, 1, (TsWork) { NULL, count_finish, NULL, &finished });

  /* The launch returned fine; the sync reports it. */
  ts_callsite_set (&loc_sync);
  g_assert_false (ts_runtime_device_synchronize (rt, 0, &error));
  ts_callsite_set (NULL);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_DEVICE_FAULT);
  g_assert_cmpstr (error->message, ==, "CUDA error: device-side assert triggered" CUDA_TRAILER DSA_TRAILER);
  g_clear_error (&error);

  kbad = get_kernel (rt, bad);
  kafter = get_kernel (rt, after);
  g_assert_cmpuint (kbad.error, ==, TS_DEVICE_ERROR_ASSERT);
  g_assert_cmpint (kbad.end, ==, 14000);
  /* The next kernel on the faulted device never ran. */
  g_assert_cmpuint (kafter.error, ==, TS_DEVICE_ERROR_ASSERT);
  g_assert_cmpint (kafter.start, ==, 14000);
  g_assert_cmpint (kafter.end, ==, 14000);
  g_assert_cmpuint (kafter.sms, ==, 0);
  /* Only the other device's kernel wrote its result. */
  sync_device (rt, 1);
  g_assert_cmpint (finished, ==, 1);
  g_assert_cmpuint (get_kernel (rt, other).error, ==, 0);

  /* The error record links the launch and the call that surfaced it. */
  g_assert_cmpuint (count_records (rt, TS_RECORD_ERROR), ==, 1);
  get_last (rt, TS_RECORD_ERROR, &err);
  g_assert_cmpuint (err.kernel_correlation, ==, bad);
  g_assert_cmpuint (err.code, ==, TS_DEVICE_ERROR_ASSERT);
  g_assert_cmpuint (err.device, ==, 0);
  g_assert_cmpuint (err.launch_loc.line, ==, 3);
  g_assert_cmpuint (err.surfaced_loc.line, ==, 9);
  g_assert_cmpstr (ts_recorder_lookup (rec, err.message), ==,
                   "CUDA error: device-side assert triggered" CUDA_TRAILER DSA_TRAILER);
  for (gsize i = 0; i < count_records (rt, TS_RECORD_API_CALL); i++)
    {
      ts_recorder_get (rec, TS_RECORD_API_CALL, i, &api);
      if (api.correlation == err.surfaced_correlation)
        break;
    }
  g_assert_cmpuint (api.correlation, ==, err.surfaced_correlation);
  g_assert_cmpstr (ts_recorder_lookup (rec, api.name), ==, "cudaDeviceSynchronize");

  /* Sticky: the next launch on that device fails at once. */
  corr = ts_runtime_launch_kernel (rt, 0, &(TsKernelDesc) { .name = "k" }, &error);
  g_assert_cmpuint (corr, ==, 0);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_DEVICE_FAULT);
  g_clear_error (&error);
  g_assert_cmpuint (count_records (rt, TS_RECORD_ERROR), ==, 1);
  /* The other device still works. */
  launch (rt, 1, 1000, 1);
}

static void
test_launch_blocking (void)
{
  TsRuntimeOptions options = { .n_gpus = 1, .launch_blocking = TRUE };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRuntime) rt = ts_runtime_new (&options, NULL, &error);
  TsKernelDesc desc = { .name = "k", .duration = 10000 };
  TsErrorRecord err;
  TsSyncRecord sync;
  guint64 corr;

  g_assert_no_error (error);
  g_assert_true (ts_runtime_get_launch_blocking (rt));

  /* Every launch waits for its kernel. */
  corr = ts_runtime_launch_kernel (rt, 0, &desc, &error);
  g_assert_no_error (error);
  g_assert_cmpint (ts_runtime_get_host_time (rt), ==, LAUNCH + 10000);
  get_last (rt, TS_RECORD_SYNC, &sync);
  g_assert_cmpuint (sync.correlation, ==, corr);
  g_assert_cmpint (sync.start, ==, LAUNCH);

  /* A fault surfaces at the launch that caused it. */
  desc.work = (TsWork) { assert_start, NULL, NULL, NULL };
  corr = ts_runtime_launch_kernel (rt, 0, &desc, &error);
  g_assert_cmpuint (corr, ==, 0);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_DEVICE_FAULT);
  get_last (rt, TS_RECORD_ERROR, &err);
  g_assert_cmpuint (err.kernel_correlation, ==, err.surfaced_correlation);
}

/* ---------------------------------------------------------------- misc */

static void
count_destroy (gpointer data)
{
  (*(int *) data)++;
}

static void
test_bad_work_input (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 2);
  g_autoptr(GError) error = NULL;
  int destroyed = 0;
  TsWork work = { NULL, NULL, count_destroy, &destroyed };
  TsKernelDesc kdesc = { .name = "k", .work = work };
  TsCopyDesc cdesc = { TS_COPY_HOST_TO_DEVICE, -1, 1, 100, 0, TRUE, TRUE, work };
  TsMemsetDesc mdesc = { 42, 100, 0, work };

  g_assert_cmpuint (ts_runtime_launch_kernel (rt, 42, &kdesc, &error), ==, 0);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_STREAM);
  g_clear_error (&error);

  /* A stream of another device than the copy's. */
  g_assert_cmpuint (ts_runtime_memcpy (rt, &cdesc, &error), ==, 0);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_STREAM);
  g_assert_cmpstr (error->message, ==, "Stream 0 is on device 0, but the copy goes from device -1 to device 1");
  g_clear_error (&error);

  cdesc.dst_device = 7;
  g_assert_cmpuint (ts_runtime_memcpy (rt, &cdesc, &error), ==, 0);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_DEVICE);
  g_clear_error (&error);

  cdesc = (TsCopyDesc) { TS_COPY_HOST_TO_HOST, -1, -1, 100, 0, FALSE, FALSE, work };
  g_assert_cmpuint (ts_runtime_memcpy (rt, &cdesc, &error), ==, 0);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  cdesc = (TsCopyDesc) { TS_COPY_PEER, 1, 1, 100, 1, FALSE, FALSE, work };
  g_assert_cmpuint (ts_runtime_memcpy (rt, &cdesc, &error), ==, 0);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  g_assert_cmpuint (ts_runtime_memset (rt, &mdesc, &error), ==, 0);
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_STREAM);
  g_clear_error (&error);

  g_assert_false (ts_runtime_stream_synchronize (rt, TS_STREAM_NONE, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_STREAM);
  g_clear_error (&error);
  g_assert_false (ts_runtime_stream_wait_stream (rt, 0, 99, &error));
  g_assert_error (error, TS_RUNTIME_ERROR, TS_RUNTIME_ERROR_INVALID_STREAM);
  g_clear_error (&error);

  /* The runtime owned the data of every refused item. */
  g_assert_cmpint (destroyed, ==, 6);

  /* And of every accepted one, once it has run. */
  kdesc.name = "ok";
  ts_runtime_launch_kernel (rt, 0, &kdesc, &error);
  g_assert_no_error (error);
  g_assert_cmpint (destroyed, ==, 6);
  sync_device (rt, 0);
  g_assert_cmpint (destroyed, ==, 7);

  /* Work still queued when the runtime goes is freed too. */
  ts_runtime_launch_kernel (rt, 0, &kdesc, &error);
  g_clear_object (&rt);
  g_assert_cmpint (destroyed, ==, 8);
}

static void
test_nvtx (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  TsRecorder *rec = ts_runtime_get_recorder (rt);
  TsNvtxRecord r;
  guint64 range;

  g_assert_cmpint (ts_runtime_nvtx_range_pop (rt), ==, -1);
  g_assert_cmpint (ts_runtime_nvtx_range_push (rt, "outer"), ==, 0);
  ts_runtime_nvtx_mark (rt, "tick");
  g_assert_cmpint (ts_runtime_nvtx_range_push (rt, "inner"), ==, 1);
  ts_runtime_host_advance (rt, 250);
  g_assert_cmpint (ts_runtime_nvtx_range_pop (rt), ==, 1);
  g_assert_cmpint (ts_runtime_nvtx_range_pop (rt), ==, 0);
  g_assert_cmpint (ts_runtime_nvtx_range_pop (rt), ==, -1);
  range = ts_runtime_nvtx_range_start (rt, "io");
  g_assert_cmpuint (range, !=, 0);
  ts_runtime_nvtx_range_end (rt, range);

  g_assert_cmpuint (count_records (rt, TS_RECORD_NVTX), ==, 7);
  ts_recorder_get (rec, TS_RECORD_NVTX, 1, &r);
  g_assert_cmpuint (r.kind, ==, TS_NVTX_MARK);
  g_assert_cmpint (r.depth, ==, 1);
  ts_recorder_get (rec, TS_RECORD_NVTX, 3, &r);
  g_assert_cmpuint (r.kind, ==, TS_NVTX_POP);
  g_assert_cmpint (r.depth, ==, 1);
  g_assert_cmpint (r.time, ==, 250);
  g_assert_cmpstr (ts_recorder_lookup (rec, r.message), ==, "inner");
  ts_recorder_get (rec, TS_RECORD_NVTX, 6, &r);
  g_assert_cmpuint (r.kind, ==, TS_NVTX_RANGE_END);
  g_assert_cmpuint (r.range_id, ==, range);
}

static void
test_api_spans_and_callsite (void)
{
  g_autoptr(TsRuntime) rt = make_runtime ("h100", 1);
  TsRecorder *rec = ts_runtime_get_recorder (rt);
  TsSourceLoc loc = { ts_recorder_intern (rec, "model.py"), ts_recorder_intern (rec, "forward"), 42 };
  guint64 span, corr, corr2;
  TsApiCallRecord launch_rec, span_rec;

  ts_callsite_set (&loc);
  g_assert_cmpuint (ts_callsite_get ().line, ==, 42);
  span = ts_runtime_api_begin (rt, "aten::add", 0, 0);
  ts_runtime_host_advance (rt, 3000);
  corr = launch (rt, 0, 1000, 1);
  ts_runtime_api_end (rt, span);
  ts_callsite_set (NULL);
  g_assert_cmpuint (ts_callsite_get ().line, ==, 0);
  corr2 = launch (rt, 0, 1000, 1);
  sync_device (rt, 0);

  /* The launch and its kernel inherit the span's correlation id. */
  g_assert_cmpuint (corr, ==, span);
  g_assert_cmpuint (get_kernel (rt, corr).correlation, ==, span);
  g_assert_cmpuint (corr2, !=, span);

  g_assert_cmpuint (count_records (rt, TS_RECORD_API_CALL), ==, 4);   /* and the sync */
  ts_recorder_get (rec, TS_RECORD_API_CALL, 0, &launch_rec);
  ts_recorder_get (rec, TS_RECORD_API_CALL, 1, &span_rec);
  g_assert_cmpstr (ts_recorder_lookup (rec, launch_rec.name), ==, "cudaLaunchKernel");
  g_assert_cmpint (launch_rec.start, ==, 3000);
  g_assert_cmpint (launch_rec.end, ==, 3000 + LAUNCH);
  g_assert_cmpuint (launch_rec.loc.line, ==, 42);
  g_assert_cmpuint (launch_rec.loc.file, ==, loc.file);
  g_assert_cmpint (launch_rec.device, ==, 0);
  g_assert_cmpuint (launch_rec.stream, ==, 0);
  g_assert_cmpuint (launch_rec.correlation, ==, span);
  g_assert_cmpstr (ts_recorder_lookup (rec, span_rec.name), ==, "aten::add");
  g_assert_cmpint (span_rec.start, ==, 0);
  g_assert_cmpint (span_rec.end, ==, 3000 + LAUNCH);
  g_assert_cmpuint (span_rec.loc.function, ==, loc.function);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/runtime/options/defaults", test_options_defaults);
  g_test_add_func ("/runtime/options/env-gpus", test_options_env_gpus);
  g_test_add_func ("/runtime/options/bad", test_options_bad);
  g_test_add_func ("/runtime/visible-devices/parse", test_visible_devices_parse);
  g_test_add_func ("/runtime/visible-devices/renumber", test_visible_devices_renumber);
  g_test_add_func ("/runtime/visible-devices/none", test_no_visible_device);
  g_test_add_func ("/runtime/device/current-and-guard", test_current_device_and_guard);
  g_test_add_func ("/runtime/stream/pool", test_stream_pool);
  g_test_add_func ("/runtime/stream/priority-small-range", test_stream_priority_small_range);
  g_test_add_func ("/runtime/stream/current-per-thread", test_current_stream_per_thread);
  g_test_add_func ("/runtime/stream/query-sync", test_stream_query_and_sync);
  g_test_add_func ("/runtime/event/lifecycle", test_event_lifecycle);
  g_test_add_func ("/runtime/event/errors", test_event_errors);
  g_test_add_func ("/runtime/event/freed-while-waited", test_event_freed_while_waited);
  g_test_add_func ("/runtime/event/rerecord", test_event_rerecord);
  g_test_add_func ("/runtime/fault/sticky", test_device_fault);
  g_test_add_func ("/runtime/fault/launch-blocking", test_launch_blocking);
  g_test_add_func ("/runtime/bad-work-input", test_bad_work_input);
  g_test_add_func ("/runtime/nvtx", test_nvtx);
  g_test_add_func ("/runtime/api-spans-callsite", test_api_spans_and_callsite);

  return g_test_run ();
}
