/* ts-workload.h: running a user's Python script inside this process
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define TS_WORKLOAD_ERROR (ts_workload_error_quark ())

typedef enum
{
  TS_WORKLOAD_ERROR_NOT_FOUND,
  TS_WORKLOAD_ERROR_PYTHON,
} TsWorkloadError;

typedef struct
{
  const char         *script;       /* path of the .py file to run as __main__ */
  const char * const *argv;         /* sys.argv[1:], may be NULL */
  const char         *python_path;  /* folder holding our `torch` package */
} TsWorkloadOptions;

GQuark   ts_workload_error_quark (void);

/* Runs the script with Python's own semantics for the exit status: 0 when it
 * ends normally, the SystemExit code when it calls sys.exit(), 1 after an
 * uncaught exception (whose traceback goes to stderr, as python3 prints it).
 * Returns FALSE only when Python itself could not be started. */
gboolean ts_workload_run         (const TsWorkloadOptions  *options,
                                  int                      *exit_status,
                                  GError                  **error);

G_END_DECLS
