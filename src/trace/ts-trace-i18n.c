/* ts-trace-i18n.c: the package's text domain, bound once
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ts-trace-i18n-private.h"

void
_ts_trace_i18n_init (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      const char *dir = g_getenv ("TENSORSCOPE_LOCALEDIR");

      bindtextdomain (GETTEXT_PACKAGE, dir != NULL && *dir != '\0' ? dir : LOCALEDIR);
      bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
      g_once_init_leave (&done, 1);
    }
}
