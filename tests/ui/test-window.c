/* test-window.c: the application window, headless under Xvfb
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tests run inside the application's "activate" so that windows have
 * their application, its actions and its settings, as in real use.
 */

#include "config.h"

#include <glib/gstdio.h>

#include "ts-application.h"
#include "ts-console.h"
#include "ts-editor.h"
#include "ts-example-gallery.h"
#include "ts-examples.h"
#include "ts-gpu-probe.h"
#include "ts-trace-view.h"
#include "ts-ui-test-util.h"
#include "ts-window.h"

#define FAKE_CLI TS_TEST_SRCDIR "/fake-tensorscope-cli.sh"
#define EXAMPLES_DIR TS_TOP_SRCDIR "/data/examples"

static TsApplication *app;
static gpointer
child (TsWindow   *window,
       const char *name)
{
  GObject *object = gtk_widget_get_template_child (GTK_WIDGET (window), TS_TYPE_WINDOW, name);

  g_assert_nonnull (object);
  return object;
}

static TsWindow *
new_window (void)
{
  TsWindow *window = ts_window_new (app);

  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static void
wait_finished (TsWindow *window)
{
  TsWorkloadRunner *runner = ts_window_get_runner (window);
  guint timeout = ts_ui_test_deadline (20, "the workload");

  while (ts_workload_runner_get_state (runner) != TS_WORKLOAD_STATE_FINISHED)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout);
}

static char *
read_example (const char *file_name)
{
  g_autofree char *path = g_build_filename (EXAMPLES_DIR, file_name, NULL);
  char *contents = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  return contents;
}

static void
test_header_bar (void)
{
  TsWindow *window = new_window ();
  GtkStack *run_stack = child (window, "run_stack");
  GtkDropDown *dropdown = child (window, "gpu_model_dropdown");
  GtkSpinButton *spin = child (window, "gpu_count_spin");
  GtkAdjustment *adjustment = gtk_spin_button_get_adjustment (spin);
  GtkMenuButton *menu_button = child (window, "menu_button");
  GListModel *models = gtk_drop_down_get_model (dropdown);
  GMenuModel *menu = gtk_menu_button_get_menu_model (menu_button);
  GtkStack *timeline_stack = child (window, "timeline_stack");
  AdwStatusPage *placeholder = child (window, "timeline_placeholder");
  GtkWidget *fake_timeline;

  g_assert_cmpstr (gtk_stack_get_visible_child_name (run_stack), ==, "run");
  g_assert_cmpstr (gtk_actionable_get_action_name (child (window, "run_button")), ==, "win.run");
  g_assert_cmpstr (gtk_actionable_get_action_name (child (window, "stop_button")), ==, "win.stop");
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "run"));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "stop"));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "save-trace"));

  g_assert_cmpuint (g_list_model_get_n_items (models), ==, 3);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (models), 0), ==, "H100");
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (models), 1), ==, "GTX 1080 Ti");
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (models), 2), ==, "H200");
  g_assert_cmpfloat (gtk_adjustment_get_lower (adjustment), ==, 1.0);
  g_assert_cmpfloat (gtk_adjustment_get_upper (adjustment), ==, 16.0);
  g_assert_cmpstr (gtk_button_get_label (child (window, "sync_button")), ==, "Synchronous");
  g_assert_cmpstr (gtk_button_get_label (child (window, "sanitizer_button")), ==, "Sanitizer");
  g_assert_true (gtk_menu_button_get_primary (menu_button));
  /* Open, Recent, Save Script, Save Trace | Export Image, Export Chrome JSON,
   * Export Memory as PyTorch Snapshot | Run Without Tensor Data, Align
   * Ranks' Clocks | Style, Examples | Shortcuts, About */
  g_assert_cmpint (g_menu_model_get_n_items (menu), ==, 5);
  g_assert_cmpint (g_menu_model_get_n_items (g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION)), ==, 4);
  g_assert_cmpint (g_menu_model_get_n_items (g_menu_model_get_item_link (menu, 1, G_MENU_LINK_SECTION)), ==, 3);
  {
    g_autofree char *action = NULL;

    g_assert_true (g_menu_model_get_item_attribute (g_menu_model_get_item_link (menu, 1, G_MENU_LINK_SECTION), 2,
                                                    G_MENU_ATTRIBUTE_ACTION, "s", &action));
    g_assert_cmpstr (action, ==, "win.export-snapshot");
    g_assert_true (g_action_group_has_action (G_ACTION_GROUP (window), "export-snapshot"));
  }
  g_assert_cmpint (g_menu_model_get_n_items (g_menu_model_get_item_link (menu, 2, G_MENU_LINK_SECTION)), ==, 2);
  {
    g_autofree char *action = NULL;
    g_autoptr(GVariant) align = g_action_group_get_action_state (G_ACTION_GROUP (window), "align-rank-clocks");
    g_assert_true (g_menu_model_get_item_attribute (g_menu_model_get_item_link (menu, 2, G_MENU_LINK_SECTION), 1,
                                                    G_MENU_ATTRIBUTE_ACTION, "s", &action));
    g_assert_cmpstr (action, ==, "win.align-rank-clocks");
    /* on by default: per-rank traces open on one clock */
    g_assert_true (g_variant_get_boolean (align));
  }
  g_assert_cmpint (g_menu_model_get_n_items (g_menu_model_get_item_link (menu, 4, G_MENU_LINK_SECTION)), ==, 2);
  /* Nothing to export yet. */
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "export-view"));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "export-chrome"));

  /* The timeline slot shows the placeholder until a viewer is put in. */
  g_assert_cmpstr (gtk_stack_get_visible_child_name (timeline_stack), ==, "empty");
  g_assert_cmpstr (adw_status_page_get_description (placeholder), ==, "Run a workload to see its timeline");
  fake_timeline = gtk_label_new ("timeline");
  ts_window_set_timeline (window, fake_timeline);
  g_assert_true (ts_window_get_timeline (window) == fake_timeline);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (timeline_stack), ==, "timeline");
  ts_window_set_timeline (window, NULL);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (timeline_stack), ==, "empty");

  ts_ui_test_close_window (GTK_WINDOW (window));
}

static guint
count_example_scripts (void)
{
  g_autoptr(GDir) dir = g_dir_open (EXAMPLES_DIR, 0, NULL);
  const char *name;
  guint n = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    n += g_str_has_suffix (name, ".py");
  /* 13 from the CUDA semantics notes and our own; never fewer. */
  g_assert_cmpuint (n, >=, 19);
  return n;
}

static void
test_examples_index (void)
{
  GListModel *examples = ts_examples_get_default ();
  guint n = g_list_model_get_n_items (examples);
  const char *required[] = {
    "overlap-copy-compute", "pinned-vs-pageable", "stream-priorities", "fragmentation",
    "async-error", "stream-race", "stream-race-fixed", "memory-management",
  };

  /* Every script of data/examples is in the index, and nothing else. */
  g_assert_cmpuint (n, ==, count_example_scripts ());
  g_assert_nonnull (ts_examples_lookup (examples, TS_DEFAULT_EXAMPLE));
  g_assert_null (ts_examples_lookup (examples, "no-such-example"));
  for (guint i = 0; i < G_N_ELEMENTS (required); i++)
    g_assert_nonnull (ts_examples_lookup (examples, required[i]));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TsExample) example = g_list_model_get_item (examples, i);
      g_autoptr(GError) error = NULL;
      g_autofree char *code = ts_example_load_code (example, &error);
      g_autofree char *on_disk = read_example (ts_example_get_file_name (example));

      g_assert_no_error (error);
      g_assert_cmpstr (code, ==, on_disk);
      g_assert_cmpstr (ts_example_get_title (example), !=, "");
      g_assert_cmpstr (ts_example_get_subtitle (example), !=, "");
      g_assert_cmpstr (ts_example_get_explanation (example), !=, "");
      g_assert_cmpuint (ts_example_get_min_gpus (example), >=, 1);
    }

  g_assert_cmpuint (ts_example_get_min_gpus (ts_examples_lookup (examples, "legacy-device-context")), ==, 3);
}

/* The index in the GResource carries the translations from po/. */
static void
test_examples_translated (void)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GKeyFile) key_file = g_key_file_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *cn = NULL;
  g_autofree char *tw = NULL;
  g_autofree char *en = NULL;

  bytes = g_resources_lookup_data (TS_RESOURCE_PATH "/examples/examples.ini", 0, &error);
  g_assert_no_error (error);
  g_assert_true (g_key_file_load_from_bytes (key_file, bytes, G_KEY_FILE_KEEP_TRANSLATIONS, &error));
  cn = g_key_file_get_locale_string (key_file, "Example stream-race", "Name", "zh_CN", &error);
  tw = g_key_file_get_locale_string (key_file, "Example stream-race", "Name", "zh_TW", &error);
  en = g_key_file_get_locale_string (key_file, "Example stream-race", "Name", "C", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (cn, ==, "流之间的竞争");
  g_assert_cmpstr (tw, ==, "串流之間的競爭");
  g_assert_cmpstr (en, ==, "A race between streams");
}

static void
test_load_example (void)
{
  TsWindow *window = new_window ();
  TsExampleGallery *gallery = child (window, "gallery");
  GtkRevealer *revealer = child (window, "explanation_revealer");
  GtkLabel *explanation = child (window, "explanation_label");
  GSettings *settings = g_settings_new (TS_APPLICATION_ID);
  g_autofree char *expected = read_example ("stream_race.py");
  g_autofree char *text = NULL;
  g_autofree char *last = NULL;
  g_autoptr(GError) error = NULL;

  /* Through the action, as the gallery does. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "load-example", g_variant_new_string ("stream-race"));
  text = ts_editor_dup_text (ts_window_get_editor (window));
  g_assert_cmpstr (text, ==, expected);
  g_assert_false (ts_editor_get_modified (ts_window_get_editor (window)));
  g_assert_cmpstr (ts_example_gallery_get_selected_id (gallery), ==, "stream-race");
  g_assert_true (gtk_revealer_get_reveal_child (revealer));
  g_assert_true (g_str_has_prefix (gtk_label_get_label (explanation), "The two kernels overlap"));
  last = g_settings_get_string (settings, "last-example");
  g_assert_cmpstr (last, ==, "stream-race");

  /* An example needing three devices raises the GPU count. */
  g_settings_set_int (settings, "gpu-count", 1);
  g_assert_true (ts_window_load_example (window, "legacy-device-context", &error));
  g_assert_cmpint (g_settings_get_int (settings, "gpu-count"), ==, 3);

  g_assert_false (ts_window_load_example (window, "no-such-example", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);

  g_object_unref (settings);
  ts_ui_test_close_window (GTK_WINDOW (window));
}

static void
test_settings (void)
{
  GSettings *settings = g_settings_new (TS_APPLICATION_ID);
  TsWindow *window = new_window ();
  TsWindow *second;
  g_autofree char *model = NULL;
  g_autoptr(GVariant) no_data = NULL;
  int width, height;

  /* Widgets write the settings... */
  gtk_spin_button_set_value (child (window, "gpu_count_spin"), 7);
  g_assert_cmpint (g_settings_get_int (settings, "gpu-count"), ==, 7);
  gtk_drop_down_set_selected (child (window, "gpu_model_dropdown"), 1);
  model = g_settings_get_string (settings, "gpu-model");
  g_assert_cmpstr (model, ==, "gtx1080ti");
  gtk_toggle_button_set_active (child (window, "sync_button"), TRUE);
  g_assert_true (g_settings_get_boolean (settings, "synchronous"));
  gtk_toggle_button_set_active (child (window, "sanitizer_button"), TRUE);
  g_assert_true (g_settings_get_boolean (settings, "sanitizer"));
  g_action_group_activate_action (G_ACTION_GROUP (window), "no-data", NULL);
  g_assert_true (g_settings_get_boolean (settings, "no-data"));
  gtk_toggle_button_set_active (child (window, "gallery_button"), FALSE);
  g_assert_false (g_settings_get_boolean (settings, "show-gallery"));

  /* ...and follow them. */
  g_settings_set_int (settings, "gpu-count", 12);
  g_assert_cmpfloat (gtk_spin_button_get_value (child (window, "gpu_count_spin")), ==, 12.0);
  g_settings_set_string (settings, "gpu-model", "h100");
  g_assert_cmpuint (gtk_drop_down_get_selected (child (window, "gpu_model_dropdown")), ==, 0);
  g_settings_set_boolean (settings, "synchronous", FALSE);
  g_assert_false (gtk_toggle_button_get_active (child (window, "sync_button")));
  g_settings_set_boolean (settings, "show-gallery", TRUE);
  g_assert_true (gtk_toggle_button_get_active (child (window, "gallery_button")));

  /* The style menu drives libadwaita's style manager. */
  g_action_group_activate_action (G_ACTION_GROUP (app), "style", g_variant_new_string ("dark"));
  g_assert_cmpint (adw_style_manager_get_color_scheme (adw_style_manager_get_default ()), ==, ADW_COLOR_SCHEME_FORCE_DARK);
  g_action_group_activate_action (G_ACTION_GROUP (app), "style", g_variant_new_string ("light"));
  g_assert_cmpint (adw_style_manager_get_color_scheme (adw_style_manager_get_default ()), ==, ADW_COLOR_SCHEME_FORCE_LIGHT);
  g_action_group_activate_action (G_ACTION_GROUP (app), "style", g_variant_new_string ("system"));
  g_assert_cmpint (adw_style_manager_get_color_scheme (adw_style_manager_get_default ()), ==, ADW_COLOR_SCHEME_DEFAULT);

  /* The window size is saved on close and restored by the next window. */
  gtk_window_set_default_size (GTK_WINDOW (window), 1234, 777);
  gtk_window_close (GTK_WINDOW (window));
  ts_ui_test_iterate ();
  g_assert_cmpint (g_settings_get_int (settings, "window-width"), ==, 1234);
  g_assert_cmpint (g_settings_get_int (settings, "window-height"), ==, 777);
  g_assert_false (g_settings_get_boolean (settings, "window-maximized"));

  second = new_window ();
  gtk_window_get_default_size (GTK_WINDOW (second), &width, &height);
  g_assert_cmpint (width, ==, 1234);
  g_assert_cmpint (height, ==, 777);
  g_assert_cmpfloat (gtk_spin_button_get_value (child (second, "gpu_count_spin")), ==, 12.0);
  g_assert_true (gtk_toggle_button_get_active (child (second, "sanitizer_button")));
  no_data = g_action_group_get_action_state (G_ACTION_GROUP (second), "no-data");
  g_assert_true (g_variant_get_boolean (no_data));
  ts_ui_test_close_window (GTK_WINDOW (second));

  g_settings_reset (settings, "sanitizer");
  g_settings_reset (settings, "no-data");
  g_settings_reset (settings, "gpu-count");
  g_object_unref (settings);
}

static void
test_run_fake_cli (void)
{
  TsWindow *window = new_window ();
  TsConsole *console = ts_window_get_console (window);
  GtkStack *run_stack = child (window, "run_stack");
  g_autofree char *text = NULL;
  g_autofree char *errors = NULL;
  g_autofree char *info = NULL;
  g_autoptr(GBytes) trace = NULL;
  g_autoptr(GError) error = NULL;

  g_setenv ("TENSORSCOPE_CLI", FAKE_CLI, TRUE);
  g_assert_true (ts_window_load_example (window, "stream-race", &error));
  g_assert_true (ts_window_run (window, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (run_stack), ==, "stop");
  g_assert_true (g_str_has_prefix (ts_window_get_status (window), "Running stream_race.py on "));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "run"));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "stop"));

  wait_finished (window);

  text = ts_console_dup_text (console);
  g_assert_nonnull (strstr (text, "script: stream_race.py\n"));
  g_assert_nonnull (strstr (text, "line 1 to stdout\n"));
  errors = ts_console_dup_lines (console, TS_CONSOLE_STDERR);
  g_assert_cmpstr (errors, ==, "line 2 to stderr\n");
  info = ts_console_dup_lines (console, TS_CONSOLE_INFO);
  g_assert_true (g_str_has_prefix (info, "$ tensorscope-cli run --gpus "));
  g_assert_true (g_str_has_suffix (info, "stream_race.py\nExited with code 0\n"));

  g_assert_cmpstr (ts_window_get_status (window), ==, "Exited with code 0");
  g_assert_cmpstr (gtk_stack_get_visible_child_name (run_stack), ==, "run");
  trace = ts_window_dup_trace (window);
  g_assert_cmpuint (g_bytes_get_size (trace), ==, 7 + 100000);
  /* The fake trace is not a trace: nothing readable, nothing to save. */
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "save-trace"));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "run"));

  ts_ui_test_close_window (GTK_WINDOW (window));
}

/* Without a usable GPU (tests/ui/meson.build points at no module), the
 * machine's GPU is not offered, the tooltip says why, and a saved "cuda"
 * shows and runs the simulated model, keeping the setting. */
static void
test_gpu_unavailable (void)
{
  GSettings *settings = g_settings_new (TS_APPLICATION_ID);
  TsGpuProbe *probe = ts_gpu_probe_get_default ();
  TsWindow *window;
  GtkDropDown *dropdown;
  g_autofree char *backend = NULL;
  g_autofree char *info = NULL;
  g_autoptr(GError) error = NULL;
  guint timeout = ts_ui_test_deadline (20, "the GPU probe");

  g_settings_set_string (settings, "backend", "cuda");
  g_settings_set_string (settings, "gpu-model", "gtx1080ti");
  window = new_window ();
  dropdown = child (window, "gpu_model_dropdown");
  while (!ts_gpu_probe_get_done (probe))
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout);

  g_assert_false (ts_gpu_probe_get_available (probe));
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (dropdown)), ==, 3);
  g_assert_true (g_str_has_prefix (gtk_widget_get_tooltip_text (GTK_WIDGET (dropdown)),
                                   "Simulated GPU model. This machine’s GPU cannot run workloads: "
                                   "Could not load the CUDA backend: "));
  g_assert_cmpuint (gtk_drop_down_get_selected (dropdown), ==, 1);
  g_assert_true (gtk_widget_get_sensitive (child (window, "gpu_count_spin")));

  g_setenv ("TENSORSCOPE_CLI", FAKE_CLI, TRUE);
  g_settings_set_int (settings, "gpu-count", 3);
  g_assert_true (ts_window_run (window, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (ts_window_get_status (window), ==, "Running workload.py on 3 × GTX1080TI…");
  wait_finished (window);
  info = ts_console_dup_lines (ts_window_get_console (window), TS_CONSOLE_INFO);
  g_assert_true (g_str_has_prefix (info, "$ tensorscope-cli run --gpus 3 --gpu-model gtx1080ti --backend=sim --trace-fd 3 "));
  backend = g_settings_get_string (settings, "backend");
  g_assert_cmpstr (backend, ==, "cuda");

  ts_ui_test_close_window (GTK_WINDOW (window));
  g_settings_reset (settings, "backend");
  g_settings_reset (settings, "gpu-model");
  g_settings_reset (settings, "gpu-count");
  g_object_unref (settings);
}

static void
test_run_traceback (void)
{
  TsWindow *window = new_window ();
  TsEditor *editor = ts_window_get_editor (window);
  g_autoptr(GError) error = NULL;

  g_setenv ("TENSORSCOPE_CLI", FAKE_CLI, TRUE);
  g_setenv ("FAKE_CLI_MODE", "fail", TRUE);
  g_assert_true (ts_window_load_example (window, "async-error", &error));
  g_assert_true (ts_window_run (window, &error));
  wait_finished (window);
  g_unsetenv ("FAKE_CLI_MODE");

  g_assert_cmpstr (ts_window_get_status (window), ==, "Exited with code 3");
  /* The editor's copy ran from a private folder, which the output does
   * not show. */
  {
    g_autofree char *errors = ts_console_dup_lines (ts_window_get_console (window), TS_CONSOLE_STDERR);

    g_assert_nonnull (strstr (errors, "  File \"async_error.py\", line 3, in <module>\n"));
    g_assert_null (strstr (errors, "tensorscope-"));
  }
  /* The fake traceback blames line 3 of the script. */
  g_assert_cmpuint (ts_editor_count_marks (editor, TS_EDITOR_MARK_ERROR), ==, 1);
  g_assert_cmpuint (ts_editor_get_cursor_line (editor), ==, 3);

  /* The next run starts clean. */
  g_assert_true (ts_window_run (window, &error));
  g_assert_cmpuint (ts_editor_count_marks (editor, TS_EDITOR_MARK_ERROR), ==, 0);
  wait_finished (window);

  ts_ui_test_close_window (GTK_WINDOW (window));
}


static AdwMessageDialog *
find_message_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (window) && gtk_widget_get_visible (GTK_WIDGET (window)))
        return ADW_MESSAGE_DIALOG (window);
    }
  return NULL;
}

/* Picking an example over edits asks first; replacing can be undone; the
 * new script starts at its first column. */
static void
test_edit_protection (void)
{
  TsWindow *window = new_window ();
  TsEditor *editor = ts_window_get_editor (window);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (editor));
  GtkAdjustment *hadjustment = gtk_scrollable_get_hadjustment (GTK_SCROLLABLE (editor));
  g_autofree char *race = read_example ("stream_race.py");
  g_autofree char *edited = NULL;
  g_autofree char *text = NULL;
  g_autofree char *undone = NULL;
  g_autofree char *long_line = g_strnfill (600, 'x');
  AdwMessageDialog *dialog;
  GtkTextIter end;
  g_autoptr(GError) error = NULL;

  g_assert_true (ts_window_load_example (window, "stream-race", &error));
  gtk_widget_set_visible (GTK_WIDGET (child (window, "code_paned")), TRUE);
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, long_line, -1);
  edited = ts_editor_dup_text (editor);
  g_assert_true (ts_editor_get_modified (editor));

  /* Keep editing: nothing changes. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "load-example", g_variant_new_string ("async-error"));
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  /* What a click on the button does: respond, then close. */
  adw_message_dialog_response (dialog, "cancel");
  gtk_window_destroy (GTK_WINDOW (dialog));
  text = ts_editor_dup_text (editor);
  g_assert_cmpstr (text, ==, edited);
  g_clear_pointer (&text, g_free);

  /* Scrolled to the end of the long line, then replaced. */
  for (guint i = 0; i < 20 && gtk_adjustment_get_upper (hadjustment) <= gtk_adjustment_get_page_size (hadjustment); i++)
    ts_ui_test_iterate ();
  gtk_adjustment_set_value (hadjustment, gtk_adjustment_get_upper (hadjustment));
  g_assert_cmpfloat (gtk_adjustment_get_value (hadjustment), >, 0);
  g_action_group_activate_action (G_ACTION_GROUP (window), "load-example", g_variant_new_string ("async-error"));
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  /* What a click on the button does: respond, then close. */
  adw_message_dialog_response (dialog, "discard");
  gtk_window_destroy (GTK_WINDOW (dialog));
  text = ts_editor_dup_text (editor);
  g_assert_cmpstr (text, !=, edited);
  g_assert_false (ts_editor_get_modified (editor));
  g_assert_cmpfloat (gtk_adjustment_get_value (hadjustment), ==, gtk_adjustment_get_lower (hadjustment));

  /* Undo brings the edits back. */
  g_assert_true (gtk_text_buffer_get_can_undo (buffer));
  gtk_text_buffer_undo (buffer);
  undone = ts_editor_dup_text (editor);
  g_assert_cmpstr (undone, ==, edited);

  /* An unmodified editor switches without asking. */
  g_assert_true (ts_window_load_example (window, "stream-race", &error));
  g_action_group_activate_action (G_ACTION_GROUP (window), "load-example", g_variant_new_string ("async-error"));
  g_assert_null (find_message_dialog ());
  g_clear_pointer (&text, g_free);
  text = ts_editor_dup_text (editor);
  g_assert_cmpstr (text, !=, race);

  ts_ui_test_close_window (GTK_WINDOW (window));
}

/* What a run left on screen belongs to it: a new run drops the range
 * selected on the old trace, another example drops trace and output, and
 * a run with no GPU work says so instead of showing an empty timeline. */
static void
test_stale_state (void)
{
  TsWindow *window = new_window ();
  TsConsole *console = ts_window_get_console (window);
  GtkStack *timeline_stack = child (window, "timeline_stack");
  AdwStatusPage *placeholder = child (window, "timeline_placeholder");
  TsTimeline *timeline;
  g_autofree char *text = NULL;
  g_autoptr(GBytes) trace = NULL;
  g_autoptr(GError) error = NULL;
  TsTime begin, end;

  g_setenv ("TENSORSCOPE_CLI", FAKE_CLI, TRUE);
  g_setenv ("FAKE_CLI_MODE", "fail", TRUE);
  g_assert_true (ts_window_load_example (window, "stream-race", &error));
  g_assert_true (ts_window_run (window, &error));
  wait_finished (window);
  g_unsetenv ("FAKE_CLI_MODE");

  /* The fake trace holds no GPU work: the placeholder says why. */
  g_assert_cmpstr (gtk_stack_get_visible_child_name (timeline_stack), ==, "empty");
  g_assert_cmpstr (adw_status_page_get_title (placeholder), ==, "No GPU Work Recorded");
  g_assert_nonnull (strstr (adw_status_page_get_description (placeholder), "RuntimeError: boom"));
  /* A traceback keeps the script beside the timeline. */
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (child (window, "code_paned"))));

  timeline = ts_trace_view_get_timeline (TS_TRACE_VIEW (ts_window_get_timeline (window)));
  ts_timeline_set_selected_range (timeline, 100, 200);
  ts_timeline_get_selected_range (timeline, &begin, &end);
  g_assert_cmpint (end, ==, 200);
  g_assert_true (ts_window_run (window, &error));
  ts_timeline_get_selected_range (timeline, &begin, &end);
  g_assert_cmpint (begin, ==, 0);
  g_assert_cmpint (end, ==, 0);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (timeline_stack), ==, "timeline");
  wait_finished (window);
  /* A run that went well folds the script away. */
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (child (window, "code_paned"))));
  g_assert_false (adw_flap_get_reveal_flap (child (window, "flap")));

  /* Another example: no old trace, output or placeholder text. */
  g_assert_true (ts_window_load_example (window, "async-error", &error));
  text = ts_console_dup_text (console);
  g_assert_cmpstr (text, ==, "");
  trace = ts_window_dup_trace (window);
  g_assert_cmpuint (g_bytes_get_size (trace), ==, 0);
  g_assert_null (ts_timeline_get_document (timeline));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (timeline_stack), ==, "empty");
  g_assert_cmpstr (adw_status_page_get_title (placeholder), ==, "No Timeline Yet");
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "save-trace"));

  /* Switching while a run goes on stops it: its trace would be the old
   * script's. */
  g_setenv ("FAKE_CLI_MODE", "hang", TRUE);
  g_assert_true (ts_window_run (window, &error));
  g_assert_true (ts_window_load_example (window, "stream-race", &error));
  wait_finished (window);
  g_unsetenv ("FAKE_CLI_MODE");
  g_assert_cmpstr (ts_window_get_status (window), ==, "Stopped");
  g_assert_cmpstr (gtk_stack_get_visible_child_name (timeline_stack), ==, "empty");
  g_assert_cmpstr (adw_status_page_get_title (placeholder), ==, "No Timeline Yet");

  ts_ui_test_close_window (GTK_WINDOW (window));
}

/* Without a session bus, settings live in memory (said once) and a
 * toggle keeps its value; with a backend chosen, nothing changes. */
static void
test_settings_fallback (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(GSettings) settings = NULL;
      g_autofree char *runtime_dir = g_dir_make_tmp ("ts-no-bus-XXXXXX", NULL);

      /* The warning is the point here, not a failure. */
      g_log_set_always_fatal (G_LOG_FATAL_MASK);
      g_unsetenv ("GSETTINGS_BACKEND");
      g_unsetenv ("DBUS_SESSION_BUS_ADDRESS");
      g_setenv ("XDG_RUNTIME_DIR", runtime_dir, TRUE);
      g_assert_true (ts_application_ensure_settings_backend ());
      g_assert_cmpstr (g_getenv ("GSETTINGS_BACKEND"), ==, "memory");
      /* Chosen already: no second word. */
      g_assert_false (ts_application_ensure_settings_backend ());

      settings = g_settings_new (TS_APPLICATION_ID);
      g_settings_set_boolean (settings, "sanitizer", TRUE);
      g_assert_true (g_settings_get_boolean (settings, "sanitizer"));
      g_rmdir (runtime_dir);
      return;
    }

  /* The tests run with GSETTINGS_BACKEND=memory: left alone. */
  g_assert_false (ts_application_ensure_settings_backend ());
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*No D-Bus session bus: settings are kept in memory*");
}

/* Run is Ctrl+Return, as in code-running tools, typed into the editor:
 * the run starts and no line is added to the script. */
static void
test_run_shortcut (void)
{
  TsWindow *window = new_window ();
  TsEditor *editor = ts_window_get_editor (window);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;

  g_setenv ("TENSORSCOPE_CLI", FAKE_CLI, TRUE);
  g_setenv ("FAKE_CLI_MODE", "hang", TRUE);
  g_assert_true (ts_window_load_example (window, "stream-race", &error));
  gtk_widget_grab_focus (GTK_WIDGET (editor));
  before = ts_editor_dup_text (editor);
  if (!ts_ui_test_press_keys (GTK_WINDOW (window), GDK_KEY_Control_L, GDK_KEY_Return))
    {
      g_unsetenv ("FAKE_CLI_MODE");
      ts_ui_test_close_window (GTK_WINDOW (window));
      g_test_skip ("No XTEST to press keys with");
      return;
    }
  g_assert_true (ts_workload_runner_get_running (ts_window_get_runner (window)));
  after = ts_editor_dup_text (editor);
  g_assert_cmpstr (after, ==, before);

  ts_window_stop (window);
  wait_finished (window);
  g_unsetenv ("FAKE_CLI_MODE");
  ts_ui_test_close_window (GTK_WINDOW (window));
}

/* Pane sizes and the idle-device toggle live in GSettings; F8 shows the
 * script pane again after a run folded it. */
static void
test_layout_settings (void)
{
  GSettings *settings = g_settings_new (TS_APPLICATION_ID);
  TsWindow *window;
  TsTimeline *timeline;
  g_autoptr(GError) error = NULL;

  g_settings_set_int (settings, "script-pane-width", 444);
  g_settings_set_boolean (settings, "show-idle-devices", TRUE);
  window = new_window ();
  g_assert_cmpint (gtk_paned_get_position (child (window, "main_paned")), ==, 444);

  g_setenv ("TENSORSCOPE_CLI", FAKE_CLI, TRUE);
  g_assert_true (ts_window_load_example (window, "stream-race", &error));
  g_assert_true (ts_window_run (window, &error));
  wait_finished (window);
  timeline = ts_trace_view_get_timeline (TS_TRACE_VIEW (ts_window_get_timeline (window)));
  g_assert_true (ts_timeline_view_state_get_show_idle_devices (ts_timeline_get_view_state (timeline)));
  g_settings_set_boolean (settings, "show-idle-devices", FALSE);
  g_assert_false (ts_timeline_view_state_get_show_idle_devices (ts_timeline_get_view_state (timeline)));

  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (child (window, "code_paned"))));
  g_action_group_activate_action (G_ACTION_GROUP (window), "show-code", NULL);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (child (window, "code_paned"))));
  g_assert_true (gtk_toggle_button_get_active (child (window, "code_button")));

  ts_ui_test_close_window (GTK_WINDOW (window));
  g_settings_reset (settings, "script-pane-width");
  g_settings_reset (settings, "show-idle-devices");
  g_object_unref (settings);
}

static void
test_stop (void)
{
  TsWindow *window = new_window ();
  g_autoptr(GError) error = NULL;

  g_setenv ("TENSORSCOPE_CLI", FAKE_CLI, TRUE);
  g_setenv ("FAKE_CLI_MODE", "hang", TRUE);
  g_assert_true (ts_window_run (window, &error));
  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  wait_finished (window);
  g_unsetenv ("FAKE_CLI_MODE");

  g_assert_cmpstr (ts_window_get_status (window), ==, "Stopped");
  ts_ui_test_close_window (GTK_WINDOW (window));
}

static void
test_missing_cli (void)
{
  TsWindow *window = new_window ();
  g_autoptr(GError) error = NULL;
  g_autofree char *errors = NULL;

  g_setenv ("TENSORSCOPE_CLI", "/nonexistent/tensorscope-cli", TRUE);
  g_assert_false (ts_window_run (window, &error));
  g_assert_nonnull (error);
  g_assert_true (g_str_has_prefix (ts_window_get_status (window), "Could not start the workload: "));
  errors = ts_console_dup_lines (ts_window_get_console (window), TS_CONSOLE_STDERR);
  g_assert_true (g_str_has_prefix (errors, "Could not start the workload: "));
  g_assert_false (ts_workload_runner_get_running (ts_window_get_runner (window)));

  ts_ui_test_close_window (GTK_WINDOW (window));
}

static void
test_open_script (void)
{
  TsWindow *window = new_window ();
  g_autofree char *dir = g_dir_make_tmp ("test-window-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "mine.py", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  const char *code = "import torch\nprint(torch.cuda.device_count())\n";
  guint timeout = ts_ui_test_deadline (10, "the script to load");
  g_autofree char *text = NULL;

  g_assert_true (g_file_set_contents (path, code, -1, NULL));
  ts_window_open_file (window, file, FALSE);
  for (;;)
    {
      g_free (text);
      text = ts_editor_dup_text (ts_window_get_editor (window));
      if (g_str_equal (text, code))
        break;
      g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (timeout);

  g_assert_cmpstr (adw_window_title_get_subtitle (child (window, "window_title")), ==, "mine.py");
  g_assert_null (ts_example_gallery_get_selected_id (child (window, "gallery")));

  ts_ui_test_close_window (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_editor_marks (void)
{
  TsEditor *editor = TS_EDITOR (g_object_ref_sink (ts_editor_new ()));

  ts_editor_set_text (editor, "a = 1\nb = 2\nc = 3\n");
  g_assert_true (ts_editor_goto_line (editor, 2));
  g_assert_cmpuint (ts_editor_get_cursor_line (editor), ==, 2);
  g_assert_false (ts_editor_goto_line (editor, 0));
  g_assert_false (ts_editor_goto_line (editor, 99));

  ts_editor_mark_line (editor, 1, TS_EDITOR_MARK_RACE, "race on A");
  ts_editor_mark_line (editor, 3, TS_EDITOR_MARK_RACE, "race on A");
  ts_editor_mark_line (editor, 3, TS_EDITOR_MARK_ERROR, "RuntimeError");
  ts_editor_mark_line (editor, 42, TS_EDITOR_MARK_ERROR, "past the end");
  g_assert_cmpuint (ts_editor_count_marks (editor, TS_EDITOR_MARK_RACE), ==, 2);
  g_assert_cmpuint (ts_editor_count_marks (editor, TS_EDITOR_MARK_ERROR), ==, 1);
  ts_editor_clear_marks (editor);
  g_assert_cmpuint (ts_editor_count_marks (editor, TS_EDITOR_MARK_RACE), ==, 0);
  g_assert_cmpuint (ts_editor_count_marks (editor, TS_EDITOR_MARK_ERROR), ==, 0);

  g_object_unref (editor);
}

static void
test_console_trim (void)
{
  TsConsole *console = TS_CONSOLE (g_object_ref_sink (ts_console_new ()));
  g_autofree char *text = NULL;

  ts_console_set_max_lines (console, 3);
  for (guint i = 1; i <= 5; i++)
    {
      g_autofree char *line = g_strdup_printf ("line %u", i);
      ts_console_append_line (console, i == 4 ? TS_CONSOLE_STDERR : TS_CONSOLE_STDOUT, line);
    }

  text = ts_console_dup_text (console);
  g_assert_cmpstr (text, ==, "line 3\nline 4\nline 5\n");
  g_free (text);
  text = ts_console_dup_lines (console, TS_CONSOLE_STDERR);
  g_assert_cmpstr (text, ==, "line 4\n");

  ts_console_clear (console);
  g_free (text);
  text = ts_console_dup_text (console);
  g_assert_cmpstr (text, ==, "");

  g_object_unref (console);
}

int
main (int   argc,
      char *argv[])
{
  if (!ts_ui_test_init (&argc, &argv))
    return 0;

  g_test_add_func ("/TsWindow/header-bar", test_header_bar);
  g_test_add_func ("/TsWindow/examples-index", test_examples_index);
  g_test_add_func ("/TsWindow/examples-translated", test_examples_translated);
  g_test_add_func ("/TsWindow/load-example", test_load_example);
  g_test_add_func ("/TsWindow/settings", test_settings);
  g_test_add_func ("/TsWindow/run-fake-cli", test_run_fake_cli);
  g_test_add_func ("/TsWindow/gpu-unavailable", test_gpu_unavailable);
  g_test_add_func ("/TsWindow/run-traceback", test_run_traceback);
  g_test_add_func ("/TsWindow/stop", test_stop);
  g_test_add_func ("/TsWindow/run-shortcut", test_run_shortcut);
  g_test_add_func ("/TsWindow/edit-protection", test_edit_protection);
  g_test_add_func ("/TsWindow/stale-state", test_stale_state);
  g_test_add_func ("/TsWindow/layout-settings", test_layout_settings);
  g_test_add_func ("/TsWindow/settings-fallback", test_settings_fallback);
  g_test_add_func ("/TsWindow/missing-cli", test_missing_cli);
  g_test_add_func ("/TsWindow/open-script", test_open_script);
  g_test_add_func ("/TsEditor/marks", test_editor_marks);
  g_test_add_func ("/TsConsole/trim", test_console_trim);

  return ts_ui_test_run_in_app (&app, argv[0]);
}
