/* ts-util-private.h: small helpers shared inside src/ui
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <string.h>

#include <glib.h>

#include "ts-time-range-private.h"
#include "ts-types.h"

G_BEGIN_DECLS

/* g_set_str() arrived in GLib 2.76; we build against 2.74. */
static inline gboolean
_ts_set_str (char       **str_pointer,
             const char  *new_str)
{
  char *copy;

  if (*str_pointer == new_str || g_strcmp0 (*str_pointer, new_str) == 0)
    return FALSE;

  copy = g_strdup (new_str);
  g_free (*str_pointer);
  *str_pointer = copy;
  return TRUE;
}

/* The editor's script runs from a private folder (ts-run-controller.c):
 * "/tmp/tensorscope-AB12CD/stream_race.py" reads "stream_race.py" in
 * what the window shows (tracebacks, explanations), as the folder is
 * gone after the run and means nothing to the reader. */
static inline char *
_ts_hide_run_dir (const char *text)
{
  static GRegex *regex;
  static gsize done;

  if (g_once_init_enter (&done))
    {
      g_autofree char *escaped = g_regex_escape_string (g_get_tmp_dir (), -1);
      g_autofree char *pattern = g_strdup_printf ("%s/tensorscope-[A-Za-z0-9]{6}/", escaped);

      regex = g_regex_new (pattern, G_REGEX_OPTIMIZE, 0, NULL);
      g_once_init_leave (&done, 1);
    }
  if (text == NULL || regex == NULL || strstr (text, "tensorscope-") == NULL)
    return g_strdup (text);
  return g_regex_replace_literal (regex, text, -1, 0, "", 0, NULL);
}

G_END_DECLS
