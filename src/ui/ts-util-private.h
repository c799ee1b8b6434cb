/* ts-util-private.h: small helpers shared inside src/ui
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

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

G_END_DECLS
