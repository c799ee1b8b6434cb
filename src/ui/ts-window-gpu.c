/* ts-window-gpu.c: the header bar's choice of GPUs
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The model drop-down lists the simulated models and, once the GPU probe
 * has found one, this machine's GPU ("NVIDIA H100 80GB HBM3 (this
 * machine)"). Where there is none, the choice is absent and the
 * drop-down's tooltip says why.
 *
 * Two settings are behind the drop-down: "backend" ("sim" or "cuda") and
 * "gpu-model" (the simulated model, kept while the machine's GPU is
 * chosen). A saved "cuda" on a machine without a usable GPU shows and runs
 * the simulated model, without overwriting the setting: the GPU may be
 * back next time. On the machine's GPU the count is the machine's: the
 * spin button is unbound from "gpu-count", shows the real count and is
 * insensitive.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ts-gpu-probe.h"
#include "ts-gpu-profile.h"
#include "ts-window-private.h"

/* The drop-down's position of the machine's GPU: after the models. */
static guint
hardware_position (void)
{
  return ts_gpu_profile_get_n_profiles ();
}

/* The simulated models, from the one table of profiles. */
static void
fill_models (TsWindow *self)
{
  GtkStringList *models = GTK_STRING_LIST (gtk_drop_down_get_model (self->gpu_model_dropdown));

  for (guint i = 0; i < ts_gpu_profile_get_n_profiles (); i++)
    gtk_string_list_append (models, ts_gpu_profile_get_nth (i)->label);
}

static gboolean
hardware_listed (TsWindow *self)
{
  GListModel *models = gtk_drop_down_get_model (self->gpu_model_dropdown);

  return g_list_model_get_n_items (models) > hardware_position ();
}

/**
 * _ts_window_gpu_is_hardware:
 *
 * Whether a run now goes to this machine's GPUs: chosen, and usable.
 */
gboolean
_ts_window_gpu_is_hardware (TsWindow *self)
{
  g_autofree char *backend = g_settings_get_string (self->settings, "backend");

  return g_str_equal (backend, "cuda") && hardware_listed (self);
}

static void
update_gpu_count (TsWindow *self)
{
  GtkAdjustment *adjustment = gtk_spin_button_get_adjustment (self->gpu_count_spin);
  gboolean hardware = _ts_window_gpu_is_hardware (self);

  if (hardware)
    {
      guint n = ts_gpu_probe_get_n_devices (self->gpu_probe);
      g_autofree char *tooltip = NULL;

      /* The spin button shows the machine's count; "gpu-count" keeps the
       * simulated one. */
      if (self->gpu_count_bound)
        g_settings_unbind (adjustment, "value");
      self->gpu_count_bound = FALSE;
      gtk_adjustment_set_value (adjustment, n);
      tooltip = g_strdup_printf (ngettext ("The workload runs on this machine’s %u GPU",
                                           "The workload runs on this machine’s %u GPUs", n),
                                 n);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->gpu_count_spin), tooltip);
    }
  else if (!self->gpu_count_bound)
    {
      g_settings_bind (self->settings, "gpu-count", adjustment, "value", G_SETTINGS_BIND_DEFAULT);
      self->gpu_count_bound = TRUE;
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->gpu_count_spin), _("Number of simulated GPUs"));
    }

  gtk_widget_set_sensitive (GTK_WIDGET (self->gpu_count_spin), !hardware);
}

/* Settings to widgets. */
static void
settings_changed_cb (TsWindow *self)
{
  g_autofree char *model = g_settings_get_string (self->settings, "gpu-model");
  guint position = GTK_INVALID_LIST_POSITION;

  /* Our own write, from selected_cb: the drop-down is already right. */
  if (self->syncing_gpu_choice)
    return;

  if (_ts_window_gpu_is_hardware (self))
    position = hardware_position ();
  else
    for (guint i = 0; i < ts_gpu_profile_get_n_profiles (); i++)
      if (g_str_equal (model, ts_gpu_profile_get_nth (i)->key))
        position = i;

  self->syncing_gpu_choice = TRUE;
  if (position != GTK_INVALID_LIST_POSITION)
    gtk_drop_down_set_selected (self->gpu_model_dropdown, position);
  self->syncing_gpu_choice = FALSE;

  update_gpu_count (self);
}

/* The user's choice to settings. */
static void
selected_cb (TsWindow *self)
{
  guint selected = gtk_drop_down_get_selected (self->gpu_model_dropdown);

  if (self->syncing_gpu_choice || selected == GTK_INVALID_LIST_POSITION)
    return;

  self->syncing_gpu_choice = TRUE;
  if (selected == hardware_position ())
    g_settings_set_string (self->settings, "backend", "cuda");
  else if (selected < hardware_position ())
    {
      g_settings_set_string (self->settings, "gpu-model", ts_gpu_profile_get_nth (selected)->key);
      g_settings_set_string (self->settings, "backend", "sim");
    }
  self->syncing_gpu_choice = FALSE;

  update_gpu_count (self);
}

static void
probe_done_cb (TsWindow *self)
{
  GtkStringList *models = GTK_STRING_LIST (gtk_drop_down_get_model (self->gpu_model_dropdown));

  if (!ts_gpu_probe_get_done (self->gpu_probe) || hardware_listed (self))
    return;

  if (ts_gpu_probe_get_available (self->gpu_probe))
    {
      g_autofree char *label = NULL;

      /* Translators: %s is the name of this computer's GPU, e.g. "NVIDIA H100 80GB HBM3" */
      label = g_strdup_printf (_("%s (this machine)"), ts_gpu_probe_get_device_name (self->gpu_probe));
      self->syncing_gpu_choice = TRUE;
      gtk_string_list_append (models, label);
      self->syncing_gpu_choice = FALSE;
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->gpu_model_dropdown),
                                   _("A simulated GPU model, or this machine’s GPU"));
    }
  else
    {
      g_autofree char *tooltip = NULL;

      /* Translators: %s says why, e.g. "No CUDA GPUs are available (no device)" */
      tooltip = g_strdup_printf (_("Simulated GPU model. This machine’s GPU cannot run workloads: %s"),
                                 ts_gpu_probe_get_error_message (self->gpu_probe));
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->gpu_model_dropdown), tooltip);
    }

  settings_changed_cb (self);
}

/**
 * _ts_window_gpu_init:
 *
 * Binds the drop-down and the count to the settings and starts the
 * process's GPU probe if nobody has yet.
 */
void
_ts_window_gpu_init (TsWindow *self)
{
  self->gpu_probe = g_object_ref (ts_gpu_probe_get_default ());
  self->gpu_count_bound = FALSE;
  fill_models (self);

  g_signal_connect_object (self->settings, "changed::backend",
                           G_CALLBACK (settings_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::gpu-model",
                           G_CALLBACK (settings_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->gpu_model_dropdown, "notify::selected",
                           G_CALLBACK (selected_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->gpu_probe, "notify::done",
                           G_CALLBACK (probe_done_cb), self, G_CONNECT_SWAPPED);

  settings_changed_cb (self);
  probe_done_cb (self);
}

void
_ts_window_gpu_dispose (TsWindow *self)
{
  if (self->gpu_probe != NULL)
    g_signal_handlers_disconnect_by_data (self->gpu_probe, self);
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  g_clear_object (&self->gpu_probe);
}

/**
 * _ts_window_gpu_prepare_run:
 *
 * Called as a run starts: if the machine's GPU is the saved choice and the
 * probe has not answered yet, waits for it (a fraction of a second, once),
 * so that the run goes where the user chose.
 */
void
_ts_window_gpu_prepare_run (TsWindow *self)
{
  g_autofree char *backend = g_settings_get_string (self->settings, "backend");

  if (g_str_equal (backend, "cuda") && !ts_gpu_probe_get_done (self->gpu_probe))
    ts_gpu_probe_wait (self->gpu_probe);
}

/* The number and name of the GPUs the run goes to, for the status line;
 * NULL name on simulated GPUs. */
guint
_ts_window_gpu_get_hardware (TsWindow    *self,
                             const char **name)
{
  if (!_ts_window_gpu_is_hardware (self))
    {
      *name = NULL;
      return 0;
    }

  *name = ts_gpu_probe_get_device_name (self->gpu_probe);
  return ts_gpu_probe_get_n_devices (self->gpu_probe);
}
