/* ts-workload-runner.h: runs `tensorscope-cli run` and streams what it says
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum
{
  TS_WORKLOAD_STATE_IDLE,     /* never started */
  TS_WORKLOAD_STATE_RUNNING,
  TS_WORKLOAD_STATE_STOPPING, /* stop asked, the process has not exited yet */
  TS_WORKLOAD_STATE_FINISHED, /* exited and every pipe drained */
} TsWorkloadState;

typedef enum
{
  TS_WORKLOAD_STDOUT,
  TS_WORKLOAD_STDERR,
} TsWorkloadStream;

#define TS_TYPE_WORKLOAD_STATE  (ts_workload_state_get_type ())
#define TS_TYPE_WORKLOAD_STREAM (ts_workload_stream_get_type ())
#define TS_TYPE_WORKLOAD_RUNNER (ts_workload_runner_get_type ())

GType ts_workload_state_get_type  (void) G_GNUC_CONST;
GType ts_workload_stream_get_type (void) G_GNUC_CONST;

G_DECLARE_FINAL_TYPE (TsWorkloadRunner, ts_workload_runner, TS, WORKLOAD_RUNNER, GObject)

/* The file descriptor number the workload writes its trace to. */
#define TS_WORKLOAD_TRACE_FD 3

TsWorkloadRunner *ts_workload_runner_new                (void);
char             *ts_workload_runner_find_cli           (void);
const char       *ts_workload_runner_get_cli_path       (TsWorkloadRunner  *self);
void              ts_workload_runner_set_cli_path       (TsWorkloadRunner  *self,
                                                         const char        *cli_path);
const char       *ts_workload_runner_get_gpu_model      (TsWorkloadRunner  *self);
void              ts_workload_runner_set_gpu_model      (TsWorkloadRunner  *self,
                                                         const char        *gpu_model);
const char       *ts_workload_runner_get_backend        (TsWorkloadRunner  *self);
void              ts_workload_runner_set_backend        (TsWorkloadRunner  *self,
                                                         const char        *backend);
guint             ts_workload_runner_get_gpu_count      (TsWorkloadRunner  *self);
void              ts_workload_runner_set_gpu_count      (TsWorkloadRunner  *self,
                                                         guint              gpu_count);
gboolean          ts_workload_runner_get_synchronous    (TsWorkloadRunner  *self);
void              ts_workload_runner_set_synchronous    (TsWorkloadRunner  *self,
                                                         gboolean           synchronous);
gboolean          ts_workload_runner_get_sanitize       (TsWorkloadRunner  *self);
void              ts_workload_runner_set_sanitize       (TsWorkloadRunner  *self,
                                                         gboolean           sanitize);
void              ts_workload_runner_set_no_data        (TsWorkloadRunner  *self,
                                                         gboolean           no_data);
guint             ts_workload_runner_get_kill_timeout   (TsWorkloadRunner  *self);
void              ts_workload_runner_set_kill_timeout   (TsWorkloadRunner  *self,
                                                         guint              kill_timeout_ms);
char            **ts_workload_runner_build_argv         (TsWorkloadRunner  *self,
                                                         const char        *cli_path,
                                                         const char        *script_path);
gboolean          ts_workload_runner_start              (TsWorkloadRunner  *self,
                                                         GFile             *script,
                                                         GError           **error);
void              ts_workload_runner_stop               (TsWorkloadRunner  *self);
GInputStream     *ts_workload_runner_take_trace_stream  (TsWorkloadRunner  *self);
TsWorkloadState   ts_workload_runner_get_state          (TsWorkloadRunner  *self);
gboolean          ts_workload_runner_get_running        (TsWorkloadRunner  *self);
gboolean          ts_workload_runner_get_stop_requested (TsWorkloadRunner  *self);
int               ts_workload_runner_get_exit_code      (TsWorkloadRunner  *self);
int               ts_workload_runner_get_term_signal    (TsWorkloadRunner  *self);
guint64           ts_workload_runner_get_trace_size     (TsWorkloadRunner  *self);

G_END_DECLS
