/* test-recorder.c: field tables, interning, storage, sinks, threads
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-recorder.h"
#include "test-records.h"

static void
test_field_tables_cover_structs (void)
{
  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    {
      const TsRecordInfo *info = ts_record_info (k);
      guint8 covered[TS_RECORD_MAX_SIZE] = { 0 };
      gsize sum = 0;

      g_assert_nonnull (info);
      g_assert_cmpint (info->kind, ==, k);
      g_assert_cmpuint (info->struct_size, <=, TS_RECORD_MAX_SIZE);
      g_assert_cmpuint (info->struct_size % 8, ==, 0);
      g_assert_true (ts_record_info_lookup (info->name) == info);

      for (guint f = 0; f < info->n_fields; f++)
        {
          const TsFieldInfo *fi = &info->fields[f];

          g_assert_true (fi->size == 4 || fi->size == 8);
          g_assert_cmpuint (fi->offset % fi->size, ==, 0);
          g_assert_cmpuint (fi->offset + fi->size, <=, info->struct_size);
          if (fi->type == TS_FIELD_U64 || fi->type == TS_FIELD_I64 || fi->type == TS_FIELD_TIME)
            g_assert_cmpuint (fi->size, ==, 8);
          else
            g_assert_cmpuint (fi->size, ==, 4);
          /* Declaration order. */
          if (f > 0)
            g_assert_cmpuint (fi->offset, >, info->fields[f - 1].offset);

          for (guint b = fi->offset; b < fi->offset + fi->size; b++)
            {
              g_assert_cmpuint (covered[b], ==, 0);
              covered[b] = 1;
            }
          sum += fi->size;
        }

      g_assert_cmpuint (sum, ==, info->struct_size);
      for (gsize b = 0; b < info->struct_size; b++)
        g_assert_cmpuint (covered[b], ==, 1);
    }

  g_assert_null (ts_record_info_lookup ("no-such-kind"));
  g_assert_cmpuint (ts_record_info (TS_RECORD_KERNEL)->struct_size, ==, sizeof (TsKernelRecord));
  g_assert_cmpstr (ts_record_info (TS_RECORD_KERNEL)->name, ==, "kernel");
}

static void
test_validate (void)
{
  TsMemcpyRecord m = { .kind = TS_COPY_PEER, .flags = TS_COPY_FLAG_PINNED };
  TsAllocRecord a = { .action = 16 };
  g_autoptr(GError) error = NULL;

  g_assert_true (ts_record_validate (TS_RECORD_MEMCPY, &m, NULL));
  m.kind = 0;
  g_assert_false (ts_record_validate (TS_RECORD_MEMCPY, &m, &error));
  g_assert_error (error, TS_RECORD_DATA_ERROR, TS_RECORD_DATA_ERROR_BAD_VALUE);
  g_assert_cmpstr (error->message, ==, "memcpy record: kind is 0, expected 1 to 5");
  g_clear_error (&error);
  m.kind = 1;
  m.flags = 4;
  g_assert_false (ts_record_validate (TS_RECORD_MEMCPY, &m, NULL));
  g_assert_false (ts_record_validate (TS_RECORD_ALLOC, &a, &error));
  g_assert_cmpstr (error->message, ==, "alloc record: action is 16, expected 1 to 15");
}

static void
test_round_trip_every_kind (void)
{
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();

  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    for (guint64 i = 0; i < 2500; i++)
      {
        guint64 rec[TS_RECORD_MAX_SIZE / 8];
        fill_record (k, i * 31 + k, rec);
        ts_recorder_append (recorder, k, rec);
      }

  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    {
      const TsRecordInfo *info = ts_record_info (k);
      guint64 out[TS_RECORD_MAX_SIZE / 8];

      g_assert_cmpuint (ts_recorder_get_count (recorder, k), ==, 2500);
      for (guint64 i = 0; i < 2500; i++)
        {
          guint64 rec[TS_RECORD_MAX_SIZE / 8];
          fill_record (k, i * 31 + k, rec);
          memset (out, 0xaa, sizeof out);
          g_assert_true (ts_recorder_get (recorder, k, i, out));
          g_assert_cmpmem (out, info->struct_size, rec, info->struct_size);
        }
      g_assert_false (ts_recorder_get (recorder, k, 2500, out));
    }
}

static void
test_padding_is_zeroed (void)
{
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  TsKernelRecord k = { .start = 5, .end = 9, .padding = 0xdeadbeef, .grid = { 1, 2, 3 } };
  TsKernelRecord out;

  ts_recorder_append (recorder, TS_RECORD_KERNEL, &k);
  g_assert_true (ts_recorder_get (recorder, TS_RECORD_KERNEL, 0, &out));
  g_assert_cmpuint (out.padding, ==, 0);
  g_assert_cmpint (out.start, ==, 5);
  g_assert_cmpint (out.end, ==, 9);
  g_assert_cmpuint (out.grid[2], ==, 3);
}

static void
test_copy_column (void)
{
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  const TsRecordInfo *info = ts_record_info (TS_RECORD_KERNEL);
  g_autofree gint64 *ends = g_new (gint64, 5000);
  g_autofree guint32 *grid_y = g_new (guint32, 5000);
  guint end_field = 1, grid_y_field = 8;

  g_assert_cmpstr (info->fields[end_field].name, ==, "end");
  g_assert_cmpstr (info->fields[grid_y_field].name, ==, "grid.y");

  for (guint i = 0; i < 3000; i++)
    {
      TsKernelRecord k = { .start = i, .end = 10 * i, .grid = { 0, i + 7, 0 } };
      TS_RECORDER_APPEND (recorder, TS_RECORD_KERNEL, TsKernelRecord, &k);
    }

  /* Across chunk boundaries, and clamped at the end. */
  g_assert_cmpuint (ts_recorder_copy_column (recorder, TS_RECORD_KERNEL, end_field, 1000, 5000, ends), ==, 2000);
  g_assert_cmpuint (ts_recorder_copy_column (recorder, TS_RECORD_KERNEL, grid_y_field, 1000, 5000, grid_y), ==, 2000);
  for (guint i = 0; i < 2000; i++)
    {
      g_assert_cmpint (ends[i], ==, 10 * (i + 1000));
      g_assert_cmpuint (grid_y[i], ==, i + 1007);
    }
  g_assert_cmpuint (ts_recorder_copy_column (recorder, TS_RECORD_KERNEL, end_field, 3000, 10, ends), ==, 0);
  g_assert_cmpuint (ts_recorder_copy_column (recorder, TS_RECORD_MEMCPY, 0, 0, 10, ends), ==, 0);
}

/* Records across several 4 MiB regions, the later ones faulted in ahead by
 * a worker thread, read back whole; a recorder dropped while the worker
 * still prepares its next region frees both. */
static void
test_regions (void)
{
  const guint n = 150000;   /* about 10 MiB of kernel records: four regions */

  for (guint round = 0; round < 2; round++)
    {
      g_autoptr(TsRecorder) recorder = ts_recorder_new ();
      guint count = round == 0 ? n : 45000;   /* the second stops in its first full region */

      for (guint i = 0; i < count; i++)
        {
          TsKernelRecord k = { .start = i, .end = 3 * (gint64) i, .grid = { i, 1, 2 } };
          TS_RECORDER_APPEND (recorder, TS_RECORD_KERNEL, TsKernelRecord, &k);
        }
      g_assert_cmpuint (ts_recorder_get_count (recorder, TS_RECORD_KERNEL), ==, count);
      for (guint i = 0; i < count; i += round == 0 ? 1 : 997)
        {
          TsKernelRecord k;

          g_assert_true (ts_recorder_get (recorder, TS_RECORD_KERNEL, i, &k));
          g_assert_cmpint (k.start, ==, i);
          g_assert_cmpint (k.end, ==, 3 * (gint64) i);
          g_assert_cmpuint (k.grid[0], ==, i);
          g_assert_cmpuint (k.grid[2], ==, 2);
        }
    }
}

/* A bounded recorder told to discard only counts; a hold (keeping records
 * again) stores from the next append on, in the middle of a chunk as at its
 * start, and a sink gets every record while it is set. */
static void
counted (TsRecorder *recorder,
         guint       first,
         guint       n)
{
  for (guint i = first; i < first + n; i++)
    {
      TsKernelRecord k = { .start = i, .grid = { i, 1, 1 } };
      TS_RECORDER_APPEND (recorder, TS_RECORD_KERNEL, TsKernelRecord, &k);
    }
}

static void
count_sink_record (gpointer      user_data,
                   TsRecordKind  kind,
                   const void   *record)
{
  guint *n = user_data;

  if (kind == TS_RECORD_KERNEL)
    *n += ((const TsKernelRecord *) record)->grid[0] == 4100 + *n;
}

static void
test_discard (void)
{
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  TsRecorderSink sink = { .record_func = count_sink_record };
  TsKernelRecord k;
  guint n_sunk = 0;

  ts_recorder_set_keep_records (recorder, FALSE);
  ts_recorder_set_discard (recorder, TRUE);
  counted (recorder, 0, 1500);
  g_assert_cmpuint (ts_recorder_get_count (recorder, TS_RECORD_KERNEL), ==, 1500);
  g_assert_cmpuint (ts_recorder_get_n_retained (recorder, TS_RECORD_KERNEL), ==, 0);
  g_assert_false (ts_recorder_get (recorder, TS_RECORD_KERNEL, 1499, &k));

  /* a hold in the middle of the second chunk, across the third's start */
  ts_recorder_set_keep_records (recorder, TRUE);
  counted (recorder, 1500, 1000);
  g_assert_cmpuint (ts_recorder_get_n_retained (recorder, TS_RECORD_KERNEL), ==, 1000);
  g_assert_false (ts_recorder_get (recorder, TS_RECORD_KERNEL, 1499, &k));
  for (guint i = 1500; i < 2500; i += 37)
    {
      g_assert_true (ts_recorder_get (recorder, TS_RECORD_KERNEL, i, &k));
      g_assert_cmpint (k.start, ==, i);
      g_assert_cmpuint (k.grid[0], ==, i);
    }

  /* bounded again: counting only, the held ones stay until dropped */
  ts_recorder_set_keep_records (recorder, FALSE);
  counted (recorder, 2500, 100);
  g_assert_true (ts_recorder_get (recorder, TS_RECORD_KERNEL, 2499, &k));
  g_assert_false (ts_recorder_get (recorder, TS_RECORD_KERNEL, 2500, &k));
  counted (recorder, 2600, 1500);
  g_assert_cmpuint (ts_recorder_get_count (recorder, TS_RECORD_KERNEL), ==, 4100);
  g_assert_cmpuint (ts_recorder_get_n_retained (recorder, TS_RECORD_KERNEL), ==, 0);

  /* a sink sees each record, discard or not */
  ts_recorder_set_sink (recorder, &sink, &n_sunk);
  counted (recorder, 4100, 2000);
  g_assert_cmpuint (n_sunk, ==, 2000);
  g_assert_true (ts_recorder_get (recorder, TS_RECORD_KERNEL, 6099, &k));
  g_assert_cmpuint (k.grid[0], ==, 6099);
}

static void
test_intern (void)
{
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  g_autofree char *big = g_strnfill (100000, 'x');
  const char *p;
  TsStringId a, b, c, d, e;

  g_assert_cmpuint (ts_recorder_intern (recorder, NULL), ==, 0);
  g_assert_cmpuint (ts_recorder_intern (recorder, ""), ==, 0);
  g_assert_cmpuint (ts_recorder_intern_len (recorder, "abc", 0), ==, 0);
  g_assert_cmpstr (ts_recorder_lookup (recorder, 0), ==, "");
  g_assert_cmpuint (ts_recorder_get_n_strings (recorder), ==, 0);

  a = ts_recorder_intern (recorder, "aten::add");
  b = ts_recorder_intern (recorder, "cudaLaunchKernel");
  c = ts_recorder_intern (recorder, "aten::add");
  d = ts_recorder_intern_len (recorder, "aten::addmm", 9);  /* "aten::add" */
  e = ts_recorder_intern_len (recorder, "aten::addmm", 10);
  g_assert_cmpuint (a, ==, 1);
  g_assert_cmpuint (b, ==, 2);
  g_assert_cmpuint (c, ==, 1);
  g_assert_cmpuint (d, ==, 1);
  g_assert_cmpuint (e, ==, 3);
  g_assert_cmpstr (ts_recorder_lookup (recorder, e), ==, "aten::addm");
  g_assert_cmpuint (ts_recorder_get_n_strings (recorder), ==, 3);

  /* Pointers stay valid while thousands more strings go in. */
  p = ts_recorder_lookup (recorder, a);
  g_assert_cmpuint (ts_recorder_intern (recorder, big), ==, 4);
  for (guint i = 0; i < 20000; i++)
    {
      g_autofree char *s = g_strdup_printf ("string number %u", i);
      g_assert_cmpuint (ts_recorder_intern (recorder, s), ==, 5 + i);
    }
  g_assert_true (p == ts_recorder_lookup (recorder, a));
  g_assert_cmpstr (p, ==, "aten::add");
  g_assert_cmpstr (ts_recorder_lookup (recorder, 4), ==, big);
  g_assert_cmpstr (ts_recorder_lookup (recorder, 5 + 12345), ==, "string number 12345");
  g_assert_cmpuint (ts_recorder_intern (recorder, "string number 19999"), ==, 5 + 19999);
  g_assert_cmpuint (ts_recorder_intern (recorder, big), ==, 4);
  g_assert_cmpuint (ts_recorder_get_n_strings (recorder), ==, 20004);
}

/* A sink that logs what it sees as text, one line per call. */
static void
log_string (gpointer    user_data,
            TsStringId  id,
            const char *str,
            gsize       len)
{
  g_string_append_printf (user_data, "S %u %.*s\n", id, (int) len, str);
}

static void
log_record (gpointer      user_data,
            TsRecordKind  kind,
            const void   *record)
{
  const TsRecordInfo *info = ts_record_info (kind);
  GString *log = user_data;

  g_string_append_printf (log, "R %s", info->name);
  for (gsize i = 0; i < info->struct_size; i++)
    g_string_append_printf (log, "%02x", ((const guint8 *) record)[i]);
  g_string_append_c (log, '\n');
}

static const TsRecorderSink log_sink = { log_string, log_record };

static void
produce (TsRecorder *recorder,
         guint       n)
{
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("kernel_%u", i % 7);
      TsKernelRecord k = { .start = i, .end = i + 3, .name = ts_recorder_intern (recorder, name),
                           .padding = i /* garbage the recorder must drop */ };
      TsNvtxRecord n_rec = { .time = i, .kind = TS_NVTX_MARK,
                             .message = ts_recorder_intern (recorder, "step") };

      ts_recorder_append (recorder, TS_RECORD_KERNEL, &k);
      if (i % 3 == 0)
        ts_recorder_append (recorder, TS_RECORD_NVTX, &n_rec);
    }
}

static void
test_sink_replay_and_live (void)
{
  g_autoptr(TsRecorder) early = ts_recorder_new ();
  g_autoptr(TsRecorder) late = ts_recorder_new ();
  g_autoptr(GString) early_log = g_string_new (NULL);
  g_autoptr(GString) late_log = g_string_new (NULL);
  g_autoptr(GString) after_unset = NULL;
  TsKernelRecord k = { .start = 1 };
  char **lines;

  ts_recorder_set_sink (early, &log_sink, early_log);
  produce (early, 50);

  /* Half before the sink, half after: a replay then live appends. */
  produce (late, 20);
  ts_recorder_set_sink (late, &log_sink, late_log);
  g_assert_cmpuint (late_log->len, >, 0);
  {
    /* The replay alone is the log of the first 20 steps. */
    g_autoptr(TsRecorder) ref = ts_recorder_new ();
    g_autoptr(GString) ref_log = g_string_new (NULL);
    ts_recorder_set_sink (ref, &log_sink, ref_log);
    produce (ref, 20);
    g_assert_cmpstr (late_log->str, ==, ref_log->str);
  }
  for (guint i = 20; i < 50; i++)
    {
      g_autofree char *name = g_strdup_printf ("kernel_%u", i % 7);
      TsKernelRecord kr = { .start = i, .end = i + 3, .name = ts_recorder_intern (late, name), .padding = i };
      TsNvtxRecord n_rec = { .time = i, .kind = TS_NVTX_MARK, .message = ts_recorder_intern (late, "step") };
      ts_recorder_append (late, TS_RECORD_KERNEL, &kr);
      if (i % 3 == 0)
        ts_recorder_append (late, TS_RECORD_NVTX, &n_rec);
    }
  g_assert_cmpstr (early_log->str, ==, late_log->str);

  lines = g_strsplit (early_log->str, "\n", -1);
  /* Strings come before their first use, in id order. */
  g_assert_cmpstr (lines[0], ==, "S 1 kernel_0");
  g_assert_cmpstr (lines[1], ==, "S 2 step");
  g_assert_true (g_str_has_prefix (lines[2], "R kernel"));
  g_assert_true (g_str_has_prefix (lines[3], "R nvtx"));
  g_assert_cmpstr (lines[4], ==, "S 3 kernel_1");
  /* 50 kernels, 17 nvtx marks, 8 strings, and the trailing empty line. */
  g_assert_cmpuint (g_strv_length (lines), ==, 50 + 17 + 8 + 1);
  g_strfreev (lines);

  /* Unset: no more calls. */
  ts_recorder_set_sink (early, NULL, NULL);
  after_unset = g_string_new (early_log->str);
  ts_recorder_append (early, TS_RECORD_KERNEL, &k);
  ts_recorder_intern (early, "new");
  g_assert_cmpstr (early_log->str, ==, after_unset->str);
  g_assert_cmpuint (ts_recorder_get_count (early, TS_RECORD_KERNEL), ==, 51);
}

static void
test_determinism (void)
{
  g_autoptr(GString) first = g_string_new (NULL);

  for (guint run = 0; run < 2; run++)
    {
      g_autoptr(TsRecorder) recorder = ts_recorder_new ();
      g_autoptr(GString) log = g_string_new (NULL);

      for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
        for (guint64 i = 0; i < 100; i++)
          {
            guint64 rec[TS_RECORD_MAX_SIZE / 8];
            g_autofree char *s = g_strdup_printf ("s%u", (guint) (i % 13));
            ts_recorder_intern (recorder, s);
            fill_record (k, i + k, rec);
            ts_recorder_append (recorder, k, rec);
          }
      ts_recorder_set_sink (recorder, &log_sink, log);
      ts_recorder_set_sink (recorder, NULL, NULL);

      if (run == 0)
        g_string_assign (first, log->str);
      else
        g_assert_cmpstr (log->str, ==, first->str);
    }
  g_assert_cmpuint (first->len, >, 16 * 100 * 2 * 24);
}

#define N_THREADS 4
#define PER_THREAD 50000

typedef struct
{
  TsRecorder *recorder;
  guint       thread;
} Worker;

static gpointer
worker_main (gpointer data)
{
  Worker *w = data;

  for (guint i = 0; i < PER_THREAD; i++)
    {
      TsKernelRecord k = { .start = i, .device = w->thread, .correlation = (guint64) w->thread << 32 | i };
      ts_recorder_append (w->recorder, TS_RECORD_KERNEL, &k);
      if (i % 1000 == 0)
        {
          g_autofree char *s = g_strdup_printf ("t%u-%u", w->thread % 2, i);
          TsCounterRecord c = { .time = i, .device = w->thread, .counter = TS_COUNTER_ALLOCATED_BYTES,
                                .value = ts_recorder_intern (w->recorder, s) };
          ts_recorder_append (w->recorder, TS_RECORD_COUNTER, &c);
        }
    }

  return NULL;
}

typedef struct
{
  GArray *order;   /* correlation of each kernel seen by the sink */
  guint   n_strings;
} ThreadSink;

static void
thread_sink_string (gpointer user_data, TsStringId id, const char *str, gsize len)
{
  ThreadSink *ts = user_data;
  g_assert_cmpuint (id, ==, ts->n_strings + 1);
  ts->n_strings++;
}

static void
thread_sink_record (gpointer user_data, TsRecordKind kind, const void *record)
{
  ThreadSink *ts = user_data;
  if (kind == TS_RECORD_KERNEL)
    g_array_append_val (ts->order, ((const TsKernelRecord *) record)->correlation);
  else
    g_assert_cmpint (((const TsCounterRecord *) record)->value, <=, ts->n_strings);
}

static void
test_threads (void)
{
  static const TsRecorderSink sink = { thread_sink_string, thread_sink_record };
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  ThreadSink ts = { g_array_new (FALSE, FALSE, sizeof (guint64)), 0 };
  GThread *threads[N_THREADS];
  Worker workers[N_THREADS];
  guint next[N_THREADS] = { 0 };

  ts_recorder_set_sink (recorder, &sink, &ts);

  for (guint t = 0; t < N_THREADS; t++)
    {
      workers[t] = (Worker) { recorder, t };
      threads[t] = g_thread_new ("producer", worker_main, &workers[t]);
    }
  for (guint t = 0; t < N_THREADS; t++)
    g_thread_join (threads[t]);

  g_assert_cmpuint (ts_recorder_get_count (recorder, TS_RECORD_KERNEL), ==, N_THREADS * PER_THREAD);
  g_assert_cmpuint (ts_recorder_get_count (recorder, TS_RECORD_COUNTER), ==, N_THREADS * PER_THREAD / 1000);
  /* Two threads share each name: 2 * 50 distinct strings. */
  g_assert_cmpuint (ts_recorder_get_n_strings (recorder), ==, 2 * PER_THREAD / 1000);
  g_assert_cmpuint (ts.n_strings, ==, 2 * PER_THREAD / 1000);

  /* Every record exactly once, each thread's in its own order, and the
   * sink saw the stored order. */
  g_assert_cmpuint (ts.order->len, ==, N_THREADS * PER_THREAD);
  for (guint i = 0; i < N_THREADS * PER_THREAD; i++)
    {
      TsKernelRecord k;
      guint t, seq;

      g_assert_true (ts_recorder_get (recorder, TS_RECORD_KERNEL, i, &k));
      g_assert_cmpuint (k.correlation, ==, g_array_index (ts.order, guint64, i));
      t = k.correlation >> 32;
      seq = k.correlation & 0xffffffff;
      g_assert_cmpuint (t, <, N_THREADS);
      g_assert_cmpuint (k.device, ==, t);
      g_assert_cmpuint (seq, ==, next[t]);
      g_assert_cmpint (k.start, ==, seq);
      next[t]++;
    }
  for (guint t = 0; t < N_THREADS; t++)
    g_assert_cmpuint (next[t], ==, PER_THREAD);

  ts_recorder_set_sink (recorder, NULL, NULL);
  g_array_unref (ts.order);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/recorder/field-tables", test_field_tables_cover_structs);
  g_test_add_func ("/recorder/validate", test_validate);
  g_test_add_func ("/recorder/round-trip", test_round_trip_every_kind);
  g_test_add_func ("/recorder/padding", test_padding_is_zeroed);
  g_test_add_func ("/recorder/copy-column", test_copy_column);
  g_test_add_func ("/recorder/regions", test_regions);
  g_test_add_func ("/recorder/discard", test_discard);
  g_test_add_func ("/recorder/intern", test_intern);
  g_test_add_func ("/recorder/sink", test_sink_replay_and_live);
  g_test_add_func ("/recorder/determinism", test_determinism);
  g_test_add_func ("/recorder/threads", test_threads);

  return g_test_run ();
}
