/* ts-test-workloads.h: where a test's workload script lives
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The seed examples are the app's gallery scripts (data/examples/NAME.py);
 * tests name them "seeds/NN_NAME.py" after the seed documents' order and
 * keep only their expected output under tests/workloads/seeds/. Every other
 * workload lives under tests/workloads/.
 */

#pragma once

#include <string.h>
#include <glib.h>

static inline char *
ts_test_workload_path (const char *relative)
{
  if (g_str_has_prefix (relative, "seeds/"))
    {
      const char *name = relative + strlen ("seeds/");
      const char *underscore = strchr (name, '_');

      /* "04_stream_race.py" is the gallery's "stream_race.py". */
      if (underscore != NULL && underscore - name == 2 &&
          g_ascii_isdigit (name[0]) && g_ascii_isdigit (name[1]))
        name = underscore + 1;
      return g_build_filename (TS_EXAMPLES_DIR, name, NULL);
    }
  return g_build_filename (TS_TEST_SRCDIR, "workloads", relative, NULL);
}
