/* ts-inject-private.h: shared state of the injection library
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libtensorscope-inject.so is loaded into a program by `tensorscope-cli
 * record` in two ways: by NVTX (NVTX_INJECTION64_PATH, entry point
 * InitializeInjectionNvtx2) and by the CUDA driver (CUDA_INJECTION64_PATH,
 * entry point InitializeInjection). Whichever comes first opens the trace;
 * both write into the same recorder. The NVTX side needs nothing from CUDA;
 * the CUPTI side dlopens libcupti only when the driver calls it, so the
 * library loads in processes that have no GPU driver at all.
 */

#pragma once

#include "ts-recorder.h"

G_BEGIN_DECLS

/* Environment set by `tensorscope-cli record`. */
#define TS_INJECT_ENV_OUTPUT "TENSORSCOPE_RECORD_OUTPUT"
#define TS_INJECT_ENV_PID    "TENSORSCOPE_RECORD_PID"
#define TS_INJECT_ENV_CUPTI  "TENSORSCOPE_CUPTI_PATH"

/* The recorder of this process, opening the trace on first use; NULL when
 * this process is not the one being recorded (a child of the program
 * inherits the environment but must not overwrite the trace). */
TsRecorder *ts_inject_get_recorder  (void);
/* Nanoseconds of CLOCK_MONOTONIC, and the value it had when the trace was
 * opened: record times are the difference. */
guint64     ts_inject_clock         (void);
guint64     ts_inject_base          (void);
TsTime      ts_inject_now           (void);
/* The calling thread's small id (0 for the main thread), announced with a
 * TsThreadRecord the first time. */
guint32     ts_inject_thread        (void);
/* A message for the user: on stderr and in the trace as tool output. */
void        ts_inject_report        (const char *format,
                                     ...) G_GNUC_PRINTF (1, 2);
/* Called at exit, before the trace is closed (the CUPTI side flushes). */
void        ts_inject_add_finish_hook (void (*hook) (void));

G_END_DECLS
