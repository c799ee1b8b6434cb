/* test-gpu-choice.c: this machine's GPU in the header bar, on the fake CUDA module
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs with TENSORSCOPE_CUDA_MODULE pointing at the fake CUDA module and
 * TS_FAKE_CUDA_DEVICES=2 (tests/meson.build), so the probe finds two
 * "Fake CUDA Device (H100)": the drop-down offers it, choosing it writes
 * the "backend" setting, freezes the count at the machine's, and a gallery
 * example runs through the real tensorscope-cli with --backend=cuda.
 */

#include "config.h"

#include "ts-application.h"
#include "ts-console.h"
#include "ts-gpu-probe.h"
#include "ts-ui-test-util.h"
#include "ts-window.h"

/* The drop-down lists the simulated models (h100, gtx1080ti, h200), then
 * this machine's GPUs. */
#define MACHINE_ITEM 3

#define FAKE_DEVICE "Fake CUDA Device (H100)"

static TsApplication *app;

static gpointer
child (TsWindow   *window,
       const char *name)
{
  GObject *object = gtk_widget_get_template_child (GTK_WIDGET (window), TS_TYPE_WINDOW, name);

  g_assert_nonnull (object);
  return object;
}

static void
wait_probe (TsGpuProbe *probe)
{
  guint timeout = ts_ui_test_deadline (20, "the GPU probe");

  while (!ts_gpu_probe_get_done (probe))
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout);
}

static void
wait_finished (TsWindow *window)
{
  TsWorkloadRunner *runner = ts_window_get_runner (window);
  guint timeout = ts_ui_test_deadline (30, "the workload");

  while (ts_workload_runner_get_state (runner) != TS_WORKLOAD_STATE_FINISHED)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout);
}

static void
count_cb (guint *count)
{
  (*count)++;
}

/* The answer arrives in the main context, with one notify::done. */
static void
test_probe_fake (void)
{
  g_autoptr(TsGpuProbe) probe = ts_gpu_probe_new (NULL);
  guint n_done = 0;

  g_signal_connect_swapped (probe, "notify::done", G_CALLBACK (count_cb), &n_done);
  g_assert_false (ts_gpu_probe_get_available (probe));
  wait_probe (probe);

  g_assert_cmpuint (n_done, ==, 1);
  g_assert_true (ts_gpu_probe_get_available (probe));
  g_assert_cmpuint (ts_gpu_probe_get_n_devices (probe), ==, 2);
  g_assert_cmpstr (ts_gpu_probe_get_device_name (probe), ==, FAKE_DEVICE);
  g_assert_null (ts_gpu_probe_get_error_message (probe));

  /* Waiting on a probe that is done changes nothing. */
  ts_gpu_probe_wait (probe);
  ts_ui_test_iterate ();
  g_assert_cmpuint (n_done, ==, 1);
}

/* A module that does not load: unavailable, with the loader's reason.
 * ts_gpu_probe_wait() publishes at once, and the main context's late
 * answer does not notify again. */
static void
test_probe_missing (void)
{
  g_autoptr(TsGpuProbe) probe = ts_gpu_probe_new ("/nonexistent/libtensorscope-cuda.so");
  guint n_done = 0;

  g_signal_connect_swapped (probe, "notify::done", G_CALLBACK (count_cb), &n_done);
  ts_gpu_probe_wait (probe);
  g_assert_cmpuint (n_done, ==, 1);
  g_assert_true (ts_gpu_probe_get_done (probe));
  g_assert_false (ts_gpu_probe_get_available (probe));
  g_assert_cmpuint (ts_gpu_probe_get_n_devices (probe), ==, 0);
  g_assert_null (ts_gpu_probe_get_device_name (probe));
  g_assert_true (g_str_has_prefix (ts_gpu_probe_get_error_message (probe),
                                   "Could not load the CUDA backend: /nonexistent/libtensorscope-cuda.so"));

  ts_ui_test_iterate ();
  g_usleep (10000);
  ts_ui_test_iterate ();
  g_assert_cmpuint (n_done, ==, 1);
}

static void
test_choose_and_run (void)
{
  GSettings *settings = g_settings_new (TS_APPLICATION_ID);
  TsWindow *window;
  GtkDropDown *dropdown;
  GtkSpinButton *spin;
  GListModel *models;
  TsConsole *console;
  g_autoptr(GError) error = NULL;
  g_autofree char *backend = NULL;
  g_autofree char *model = NULL;
  g_autofree char *info = NULL;
  g_autofree char *output = NULL;
  const char *tooltip;

  g_settings_set_int (settings, "gpu-count", 4);
  window = ts_window_new (app);
  gtk_window_present (GTK_WINDOW (window));
  dropdown = child (window, "gpu_model_dropdown");
  spin = child (window, "gpu_count_spin");
  models = gtk_drop_down_get_model (dropdown);
  console = ts_window_get_console (window);

  wait_probe (ts_gpu_probe_get_default ());
  g_assert_cmpuint (g_list_model_get_n_items (models), ==, MACHINE_ITEM + 1);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (models), MACHINE_ITEM), ==,
                   FAKE_DEVICE " (this machine)");
  g_assert_cmpstr (gtk_widget_get_tooltip_text (GTK_WIDGET (dropdown)), ==,
                   "A simulated GPU model, or this machine’s GPU");
  /* Not chosen yet: the simulated H100s. */
  g_assert_cmpuint (gtk_drop_down_get_selected (dropdown), ==, 0);
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (spin)));

  /* Choosing it: the setting, and the machine's count, frozen. */
  gtk_drop_down_set_selected (dropdown, MACHINE_ITEM);
  backend = g_settings_get_string (settings, "backend");
  g_assert_cmpstr (backend, ==, "cuda");
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (spin)));
  g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, 2.0);
  tooltip = gtk_widget_get_tooltip_text (GTK_WIDGET (spin));
  g_assert_cmpstr (tooltip, ==, "The workload runs on this machine’s 2 GPUs");
  /* The simulated settings stay as they were. */
  g_assert_cmpint (g_settings_get_int (settings, "gpu-count"), ==, 4);
  model = g_settings_get_string (settings, "gpu-model");
  g_assert_cmpstr (model, ==, "h100");

  /* A gallery example through the real CLI, on the fake module. */
  g_setenv ("TENSORSCOPE_CLI", TS_CLI_PATH, TRUE);
  g_assert_true (ts_window_load_example (window, "device-queries", &error));
  g_assert_no_error (error);
  g_assert_true (ts_window_run (window, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (ts_window_get_status (window), ==,
                   "Running device_queries.py on 2 × " FAKE_DEVICE "…");
  g_assert_cmpstr (ts_workload_runner_get_backend (ts_window_get_runner (window)), ==, "cuda");
  wait_finished (window);

  g_assert_cmpint (ts_workload_runner_get_exit_code (ts_window_get_runner (window)), ==, 0);
  g_assert_cmpstr (ts_window_get_status (window), ==, "Exited with code 0");
  info = ts_console_dup_lines (console, TS_CONSOLE_INFO);
  g_assert_true (g_str_has_prefix (info, "$ tensorscope-cli run --backend=cuda --trace-fd 3 "));
  g_assert_true (g_str_has_suffix (info, "device_queries.py\nExited with code 0\n"));
  output = ts_console_dup_lines (console, TS_CONSOLE_STDOUT);
  g_assert_nonnull (strstr (output, "available gpu devices: 2\n"));
  g_assert_nonnull (strstr (output, "gpu device name: " FAKE_DEVICE "\n"));

  /* Back to a simulated model: the count follows "gpu-count" again. */
  gtk_drop_down_set_selected (dropdown, 1);
  g_free (backend);
  backend = g_settings_get_string (settings, "backend");
  g_assert_cmpstr (backend, ==, "sim");
  g_free (model);
  model = g_settings_get_string (settings, "gpu-model");
  g_assert_cmpstr (model, ==, "gtx1080ti");
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (spin)));
  g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, 4.0);
  gtk_spin_button_set_value (spin, 6);
  g_assert_cmpint (g_settings_get_int (settings, "gpu-count"), ==, 6);

  /* The setting drives the drop-down too, e.g. from a second window. */
  g_settings_set_string (settings, "backend", "cuda");
  g_assert_cmpuint (gtk_drop_down_get_selected (dropdown), ==, MACHINE_ITEM);
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (spin)));
  g_assert_cmpint (g_settings_get_int (settings, "gpu-count"), ==, 6);

  ts_ui_test_close_window (GTK_WINDOW (window));
  g_unsetenv ("TENSORSCOPE_CLI");
  g_settings_reset (settings, "backend");
  g_settings_reset (settings, "gpu-model");
  g_settings_reset (settings, "gpu-count");
  g_settings_reset (settings, "last-example");
  g_object_unref (settings);
}

/* The first window with a saved "cuda", run before the probe has
 * answered (the answer is published by the main context, which has not
 * run yet): the run waits for the probe and goes to the machine's GPUs.
 * Registered first, so the process's probe is still fresh. */
static void
test_run_before_probe (void)
{
  GSettings *settings = g_settings_new (TS_APPLICATION_ID);
  TsWindow *window;
  g_autoptr(GError) error = NULL;
  g_autofree char *info = NULL;

  g_settings_set_string (settings, "backend", "cuda");
  window = ts_window_new (app);
  g_assert_false (ts_gpu_probe_get_done (ts_gpu_probe_get_default ()));
  g_assert_cmpuint (gtk_drop_down_get_selected (child (window, "gpu_model_dropdown")), ==, 0);

  g_setenv ("TENSORSCOPE_CLI", TS_CLI_PATH, TRUE);
  g_assert_true (ts_window_load_example (window, "device-queries", &error));
  g_assert_true (ts_window_run (window, &error));
  g_assert_no_error (error);
  g_assert_true (ts_gpu_probe_get_done (ts_gpu_probe_get_default ()));
  g_assert_cmpuint (gtk_drop_down_get_selected (child (window, "gpu_model_dropdown")), ==, MACHINE_ITEM);
  g_assert_cmpstr (ts_window_get_status (window), ==,
                   "Running device_queries.py on 2 × " FAKE_DEVICE "…");
  wait_finished (window);
  info = ts_console_dup_lines (ts_window_get_console (window), TS_CONSOLE_INFO);
  g_assert_true (g_str_has_prefix (info, "$ tensorscope-cli run --backend=cuda --trace-fd 3 "));
  g_assert_true (g_str_has_suffix (info, "\nExited with code 0\n"));

  ts_ui_test_close_window (GTK_WINDOW (window));
  g_unsetenv ("TENSORSCOPE_CLI");
  g_settings_reset (settings, "backend");
  g_settings_reset (settings, "last-example");
  g_object_unref (settings);
}

/* A saved "cuda" comes back in the next window, as soon as it opens once
 * the probe has answered. */
static void
test_saved_choice (void)
{
  GSettings *settings = g_settings_new (TS_APPLICATION_ID);
  TsWindow *window;
  GtkSpinButton *spin;

  wait_probe (ts_gpu_probe_get_default ());
  g_settings_set_string (settings, "backend", "cuda");
  window = ts_window_new (app);
  spin = child (window, "gpu_count_spin");

  g_assert_cmpuint (gtk_drop_down_get_selected (child (window, "gpu_model_dropdown")), ==, MACHINE_ITEM);
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (spin)));
  g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, 2.0);

  ts_ui_test_close_window (GTK_WINDOW (window));
  g_settings_reset (settings, "backend");
  g_object_unref (settings);
}

int
main (int   argc,
      char *argv[])
{
  if (!ts_ui_test_init (&argc, &argv))
    return 0;

  g_test_add_func ("/TsWindow/gpu-choice/run-before-probe", test_run_before_probe);
  g_test_add_func ("/TsGpuProbe/fake", test_probe_fake);
  g_test_add_func ("/TsGpuProbe/missing", test_probe_missing);
  g_test_add_func ("/TsWindow/gpu-choice/choose-and-run", test_choose_and_run);
  g_test_add_func ("/TsWindow/gpu-choice/saved", test_saved_choice);

  return ts_ui_test_run_in_app (&app, argv[0]);
}
