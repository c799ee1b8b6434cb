/* fuzz-runtime-env.c: libFuzzer target for the runtime's outside strings
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * CUDA_VISIBLE_DEVICES, the GPU model name and the backend name
 * (TENSORSCOPE_BACKEND, --backend), TENSORSCOPE_NO_DATA and
 * TENSORSCOPE_HOST_MEMORY_LIMIT come from the user's environment and
 * command line. The first byte of the input picks how many
 * physical GPUs there are (1-16); the rest is the string. Whatever it is,
 * the parser returns distinct in-range ordinals, and a runtime built from
 * it either starts with that many devices or says why it cannot.
 */

#include "config.h"

#include <stdint.h>
#include <string.h>

#include "ts-gpu-profile.h"
#include "ts-host-data.h"
#include "ts-runtime.h"
#include "ts-session.h"

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *value = NULL;
  g_autofree char *note = NULL;
  g_autoptr(GArray) visible = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRuntime) runtime = NULL;
  TsRuntimeOptions options = { 0 };
  guint n_physical;

  if (size == 0)
    return 0;

  n_physical = 1 + data[0] % 16;
  value = g_strndup ((const char *) data + 1, size - 1);

  /* As a backend name: "sim" or "cuda", else a clear refusal. */
  {
    g_autoptr(GError) backend_error = NULL;
    gboolean hardware = FALSE;
    gboolean ok = ts_session_parse_backend (value, &hardware, &backend_error);

    g_assert (ok == (g_strcmp0 (value, "sim") == 0 || g_strcmp0 (value, "cuda") == 0));
    g_assert (ok || (backend_error != NULL && strstr (backend_error->message, "Unknown backend") != NULL));
    g_assert (!ok || hardware == (g_strcmp0 (value, "cuda") == 0));
  }

  /* As TENSORSCOPE_NO_DATA and TENSORSCOPE_HOST_MEMORY_LIMIT: a value or
   * an error that names the variable, never a silent default. */
  {
    g_autoptr(GError) nd_error = NULL;
    g_autoptr(GError) limit_error = NULL;
    gboolean on = FALSE;
    guint64 bytes = 0;

    if (!ts_host_data_parse_no_data (value, &on, &nd_error))
      g_assert (nd_error != NULL && strstr (nd_error->message, "TENSORSCOPE_NO_DATA") != NULL);
    else
      g_assert (on == (g_strcmp0 (value, "1") == 0 || g_strcmp0 (value, "true") == 0 ||
                       g_strcmp0 (value, "yes") == 0 || g_strcmp0 (value, "on") == 0));
    if (!ts_host_data_parse_limit (value, &bytes, &limit_error))
      g_assert (limit_error != NULL && strstr (limit_error->message, "TENSORSCOPE_HOST_MEMORY_LIMIT") != NULL);
    else
      g_assert (bytes > 0 && g_ascii_isdigit (value[0]));
  }

  visible = ts_runtime_parse_visible_devices (value, n_physical, &note);
  g_assert (visible != NULL);
  g_assert (visible->len <= n_physical);
  for (guint i = 0; i < visible->len; i++)
    {
      int ordinal = g_array_index (visible, int, i);

      g_assert (ordinal >= 0 && (guint) ordinal < n_physical);
      for (guint j = 0; j < i; j++)
        g_assert (g_array_index (visible, int, j) != ordinal);
    }

  /* The same string as a model name: known or refused, never a crash. */
  if (ts_gpu_profile_lookup (value) == NULL)
    {
      options.gpu_model = value;
      runtime = ts_runtime_new (&options, NULL, &error);
      g_assert (runtime == NULL && error != NULL && error->message[0] != '\0');
      return 0;
    }

  options.gpu_model = value;
  options.n_gpus = n_physical;
  options.visible_devices = value;
  runtime = ts_runtime_new (&options, NULL, &error);
  g_assert ((runtime != NULL) == (error == NULL));
  return 0;
}
