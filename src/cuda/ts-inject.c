/* ts-inject.c: the trace of a recorded program
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "ts-inject-private.h"
#include "ts-trace-writer.h"

#define MAX_FINISH_HOOKS 4

static TsRecorder    *recorder;
static TsTraceWriter *writer;
static guint64        base_ns;
static guint          next_thread = 1;
static void         (*finish_hooks[MAX_FINISH_HOOKS]) (void);
static guint          n_finish_hooks;
static GMutex         hooks_mutex;

static __thread gint32 thread_id = -1;

guint64
ts_inject_clock (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64)ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + (guint64)ts.tv_nsec;
}

guint64
ts_inject_base (void)
{
  return base_ns;
}

TsTime
ts_inject_now (void)
{
  return (TsTime)(ts_inject_clock () - base_ns);
}

static void
finish (void)
{
  g_autoptr(GError) error = NULL;
  guint n;

  g_mutex_lock (&hooks_mutex);
  n = n_finish_hooks;
  g_mutex_unlock (&hooks_mutex);
  for (guint i = 0; i < n; i++)
    finish_hooks[i] ();

  if (!ts_trace_writer_close (writer, &error))
    fprintf (stderr, "tensorscope: could not write the trace: %s\n", error->message);
}

void
ts_inject_add_finish_hook (void (*hook) (void))
{
  g_mutex_lock (&hooks_mutex);
  g_assert (n_finish_hooks < MAX_FINISH_HOOKS);
  finish_hooks[n_finish_hooks++] = hook;
  g_mutex_unlock (&hooks_mutex);
}

static gboolean
is_recorded_process (void)
{
  const char *pid = g_getenv (TS_INJECT_ENV_PID);
  const char *output = g_getenv (TS_INJECT_ENV_OUTPUT);

  if (output == NULL || *output == '\0')
    return FALSE;
  /* Without a pid (a manual run), the first process records. */
  return pid == NULL || g_ascii_strtoll (pid, NULL, 10) == (gint64)getpid ();
}

static gpointer
open_trace (gpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTraceWriter) new_writer = NULL;
  g_autoptr(TsRecorder) new_recorder = NULL;

  if (!is_recorded_process ())
    return NULL;

  new_recorder = ts_recorder_new ();
  new_writer = ts_trace_writer_new_for_path (g_getenv (TS_INJECT_ENV_OUTPUT), &error);
  if (new_writer == NULL || !ts_trace_writer_attach (new_writer, new_recorder, &error))
    {
      fprintf (stderr, "tensorscope: not recording: %s\n", error->message);
      return NULL;
    }

  base_ns = ts_inject_clock ();
  writer = g_steal_pointer (&new_writer);
  recorder = g_steal_pointer (&new_recorder);
  atexit (finish);
  return recorder;
}

TsRecorder *
ts_inject_get_recorder (void)
{
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, open_trace, NULL);
}

guint32
ts_inject_thread (void)
{
  if (G_UNLIKELY (thread_id < 0))
    {
      TsThreadRecord rec = { 0 };
      char name[17] = { 0 };
      gboolean is_main = syscall (SYS_gettid) == getpid ();

      thread_id = is_main ? 0 : (gint32)g_atomic_int_add (&next_thread, 1);
      if (recorder != NULL)
        {
          prctl (PR_GET_NAME, name, 0, 0, 0);
          rec.thread = (guint32)thread_id;
          rec.name = ts_recorder_intern (recorder, name);
          ts_recorder_append (recorder, TS_RECORD_THREAD, &rec);
        }
    }
  return (guint32)thread_id;
}

void
ts_inject_report (const char *format,
                  ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);

  fprintf (stderr, "tensorscope: %s\n", text);
  if (recorder != NULL)
    {
      TsOutputRecord rec = { 0 };

      rec.time = ts_inject_now ();
      rec.thread = ts_inject_thread ();
      rec.kind = TS_OUTPUT_TOOL;
      rec.text = ts_recorder_intern (recorder, text);
      ts_recorder_append (recorder, TS_RECORD_OUTPUT, &rec);
    }
}
