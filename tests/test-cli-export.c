/* test-cli-export.c: `tensorscope-cli export/info/report/render` on a known trace
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "ts-test-trace.h"

typedef struct
{
  char *dir;
  char *trace;
  TsTestTraceOptions options;
  TsRecorder *recorder;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  TsTestTraceOptions o = { 2, 2, 3, 4, 11 };

  f->options = o;
  f->dir = g_dir_make_tmp ("ts-cli-XXXXXX", &error);
  g_assert_no_error (error);
  f->trace = g_build_filename (f->dir, "run.tstrace", NULL);
  f->recorder = ts_test_trace_new (&f->options);
  /* A name that needs escaping: quote, backslash, newline, tab, control. */
  {
    TsApiCallRecord r = { 0 };
    r.start = 1, r.end = 2, r.thread = 0, r.stream = TS_STREAM_NONE, r.device = -1;
    r.name = ts_recorder_intern (f->recorder, "odd \"name\" \\ \n\t\x01\x7f end");
    ts_recorder_append (f->recorder, TS_RECORD_API_CALL, &r);
  }
  g_assert_true (ts_test_trace_write (f->recorder, f->trace, &error));
  g_assert_no_error (error);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GDir) dir = g_dir_open (f->dir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (f->dir, name, NULL);
      g_remove (path);
    }
  g_rmdir (f->dir);
  g_free (f->dir);
  g_free (f->trace);
  g_object_unref (f->recorder);
}

static int
run_cli (const char * const *args,
         char              **out,
         char              **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_ptr_array_add (argv, (gpointer) TS_CLI_PATH);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               out, err, &status, &error));
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

typedef struct
{
  guint n_x, n_kernels, n_api, n_memcpy, n_counters, n_meta;
  guint n_flow_s, n_flow_f, n_ac2g, n_event_flows;
  gboolean saw_odd_name;
  GHashTable *thread_names;    /* "pid/tid" → name */
  GHashTable *flow_starts;     /* "cat/id" → count */
  GHashTable *flow_ends;
} Seen;

static void
scan_event (JsonArray *array,
            guint      index,
            JsonNode  *node,
            gpointer   user_data)
{
  Seen *s = user_data;
  JsonObject *e = json_node_get_object (node);
  const char *ph = json_object_get_string_member (e, "ph");
  const char *cat = json_object_has_member (e, "cat") ? json_object_get_string_member (e, "cat") : "";

  g_assert_true (json_object_has_member (e, "pid"));
  g_assert_true (json_object_has_member (e, "tid"));

  if (g_str_equal (ph, "X"))
    {
      g_assert_true (json_object_has_member (e, "ts"));
      g_assert_true (json_object_has_member (e, "dur"));
      s->n_x++;
      if (g_str_equal (cat, "kernel"))
        s->n_kernels++;
      else if (g_str_equal (cat, "cuda_runtime"))
        {
          s->n_api++;
          if (g_str_equal (json_object_get_string_member (e, "name"), "odd \"name\" \\ \n\t\x01\x7f end"))
            s->saw_odd_name = TRUE;
        }
      else if (g_str_equal (cat, "gpu_memcpy"))
        s->n_memcpy++;
    }
  else if (g_str_equal (ph, "C"))
    {
      JsonObject *args = json_object_get_object_member (e, "args");
      g_assert_true (json_object_has_member (args, "allocated"));
      g_assert_true (json_object_has_member (args, "reserved"));
      s->n_counters++;
    }
  else if (g_str_equal (ph, "M"))
    {
      s->n_meta++;
      if (g_str_equal (json_object_get_string_member (e, "name"), "thread_name"))
        g_hash_table_insert (s->thread_names,
                             g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT,
                                              json_object_get_int_member (e, "pid"),
                                              json_object_get_int_member (e, "tid")),
                             g_strdup (json_object_get_string_member (json_object_get_object_member (e, "args"), "name")));
    }
  else if (g_str_equal (ph, "s") || g_str_equal (ph, "f"))
    {
      char *key = g_strdup_printf ("%s/%" G_GINT64_FORMAT, cat, json_object_get_int_member (e, "id"));
      GHashTable *table = ph[0] == 's' ? s->flow_starts : s->flow_ends;

      g_assert_false (g_hash_table_contains (table, key));
      g_hash_table_insert (table, key, GINT_TO_POINTER (1));
      if (ph[0] == 's')
        s->n_flow_s++;
      else
        {
          g_assert_cmpstr (json_object_get_string_member (e, "bp"), ==, "e");
          s->n_flow_f++;
        }
      if (g_str_equal (cat, "ac2g"))
        s->n_ac2g++;
      else if (g_str_equal (cat, "event"))
        s->n_event_flows++;
    }
}

static void
test_export_chrome (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *json = g_build_filename (f->dir, "out.json", NULL);
  const char *args[] = { "export", f->trace, "--format", "chrome", "-o", json, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root;
  JsonArray *events;
  Seen s = { 0 };
  GHashTableIter iter;
  gpointer key;
  guint n_devices = f->options.n_devices, n_steps = f->options.n_steps, k = f->options.kernels_per_step;

  g_assert_cmpint (run_cli (args, &out, &err), ==, 0);
  g_assert_cmpstr (err, ==, "");

  g_assert_true (json_parser_load_from_file (parser, json, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "displayTimeUnit"), ==, "ns");
  events = json_object_get_array_member (root, "traceEvents");
  s.thread_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  s.flow_starts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  s.flow_ends = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  json_array_foreach_element (events, scan_event, &s);

  /* Items: every kernel, copy and API call of the generator. */
  g_assert_cmpuint (s.n_kernels, ==, n_devices * n_steps * k);
  g_assert_cmpuint (s.n_memcpy, ==, n_devices * n_steps * 2);
  g_assert_cmpuint (s.n_api, ==, ts_recorder_get_count (f->recorder, TS_RECORD_API_CALL));
  g_assert_true (s.saw_odd_name);

  /* Tracks: streams are threads of their device's process, named. */
  g_assert_cmpstr (g_hash_table_lookup (s.thread_names, "1/2"), ==, "Stream 2 (priority -1)");
  g_assert_cmpstr (g_hash_table_lookup (s.thread_names, "1/3"), ==, "Stream 3");
  g_assert_cmpstr (g_hash_table_lookup (s.thread_names, "2/4"), ==, "Stream 4 (priority -1)");
  g_assert_cmpstr (g_hash_table_lookup (s.thread_names, "0/0"), ==, "MainThread");

  /* Flows: one per launch-like API call with device work (kernels,
   * copies, memsets), one per event record → wait; each start has its
   * end. */
  g_assert_cmpuint (s.n_ac2g, ==, 2 * n_devices * n_steps * (k + 2 + 1));
  g_assert_cmpuint (s.n_event_flows, ==, 2 * n_devices * n_steps * 2);
  g_assert_cmpuint (s.n_flow_s, ==, s.n_flow_f);
  g_hash_table_iter_init (&iter, s.flow_starts);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_assert_true (g_hash_table_contains (s.flow_ends, key));

  /* Counters: allocated and reserved, one sample per time of change. */
  g_assert_cmpuint (s.n_counters, ==, n_devices * n_steps * 2);

  g_hash_table_unref (s.thread_names);
  g_hash_table_unref (s.flow_starts);
  g_hash_table_unref (s.flow_ends);
}

static void
test_info_report_render (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *png = g_build_filename (f->dir, "t.png", NULL);
  g_autofree char *svg = g_build_filename (f->dir, "m.svg", NULL);
  const char *info[] = { "info", f->trace, NULL };
  const char *report[] = { "report", f->trace, NULL };
  const char *csv[] = { "report", f->trace, "--format", "csv", "--table", "GPU memory operations", NULL };
  const char *render[] = { "render", f->trace, "--view", "timeline", "-o", png, "--range", "0:1ms", NULL };
  const char *memory[] = { "render", f->trace, "--view", "memory", "-o", svg, "--dark", NULL };
  char *out = NULL, *err = NULL;

  g_assert_cmpint (run_cli (info, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "Complete:    yes"));
  g_assert_nonnull (strstr (out, "Devices:     2"));
  g_assert_nonnull (strstr (out, "  kernel         24\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_cli (report, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "CUDA GPU kernel summary"));
  g_assert_nonnull (strstr (out, "Stream overlap"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* Host to device: 4 MiB + 4096 * step, 2 devices, 3 steps; then device
   * to host, 1 MiB each; then the memsets, 1 MiB each. */
  g_assert_cmpint (run_cli (csv, &out, &err), ==, 0);
  g_assert_true (g_str_has_prefix (out, "Count,Total (B),Total Time (ns),Throughput (GB/s),Operation\n"));
  g_assert_nonnull (strstr (out, "\n6,25190400,"));
  g_assert_nonnull (strstr (out, "\n6,6291456,"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_cli (render, &out, &err), ==, 0);
  g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli (memory, &out, &err), ==, 0);
  g_assert_true (g_file_test (svg, G_FILE_TEST_IS_REGULAR));
  g_free (out);
  g_free (err);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/cli/export/chrome", Fixture, NULL, fixture_set_up, test_export_chrome, fixture_tear_down);
  g_test_add ("/cli/info-report-render", Fixture, NULL, fixture_set_up, test_info_report_render, fixture_tear_down);
  return g_test_run ();
}
