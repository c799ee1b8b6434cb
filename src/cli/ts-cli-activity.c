/* ts-cli-activity.c: CUPTI timing for workloads run on a real GPU
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The core knows activity sources only through TsActivitySource; a build
 * with the CUDA toolkit links the CUPTI one (src/cuda/ts-cupti-activity.c,
 * which dlopens libcupti) and installs it here. Without it the runtime
 * times a real GPU's work with CUDA events.
 */

#include "config.h"

#include "ts-cli-private.h"
#include "ts-session.h"

#ifdef TS_HAVE_CUPTI_ACTIVITY
#include "ts-cupti-activity.h"

static gpointer
activity_start (TsRecorder  *recorder,
                GError     **error)
{
  return ts_cupti_activity_start (recorder, error);
}

static void
activity_push (gpointer source,
               guint64  correlation)
{
  ts_cupti_activity_push_correlation (source, correlation);
}

static void
activity_pop (gpointer source)
{
  ts_cupti_activity_pop_correlation (source);
}

static void
activity_flush (gpointer source)
{
  ts_cupti_activity_flush (source);
}

static void
activity_stop (gpointer source)
{
  ts_cupti_activity_stop (source);
}
#endif

void
ts_cli_install_activity_source (void)
{
#ifdef TS_HAVE_CUPTI_ACTIVITY
  static const TsActivitySource source = {
    activity_start, activity_push, activity_pop, activity_flush, activity_stop,
  };

  /* TENSORSCOPE_TIMING=events skips CUPTI (to compare the two, or when
   * another profiler holds CUPTI). */
  if (g_strcmp0 (g_getenv ("TENSORSCOPE_TIMING"), "events") != 0)
    ts_session_set_activity_source (&source);
#endif
}
