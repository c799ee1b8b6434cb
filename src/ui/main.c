/* main.c: the tensorscope executable
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <glib/gi18n.h>

#include "ts-application.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(TsApplication) app = NULL;
  g_autoptr(GError) error = NULL;
  const char *localedir = g_getenv ("TENSORSCOPE_LOCALEDIR");

  /* Uninstalled runs point TENSORSCOPE_LOCALEDIR at the build's po/. */
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, localedir && *localedir ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  g_set_application_name (_("Tensorscope"));

  ts_application_ensure_settings_backend ();
  if (!ts_application_check_schema (&error))
    {
      g_printerr ("tensorscope: %s\n", error->message);
      return 1;
    }

  app = ts_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
