/* ts-cli-record.c: `tensorscope-cli record`, tracing an unmodified program
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs PROGRAM with our injection library named in CUDA_INJECTION64_PATH
 * (the CUDA driver loads it at cuInit: CUPTI callbacks and activity
 * records) and NVTX_INJECTION64_PATH (NVTX loads it at the first NVTX
 * call). The library writes the trace itself; we pass it the path and the
 * pid of the process to record (children inherit the environment but must
 * not write over the trace), wait, and hand back the program's exit status.
 */

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <glib.h>
#include <glib-unix.h>
#include <glib/gstdio.h>

#include "ts-cli-private.h"
#include "ts-trace-writer.h"

#ifdef TS_HAVE_INJECT
/* The library: an explicit override, the build tree when running
 * uninstalled, or the installed copy. */
static const char *
find_inject_library (void)
{
  const char *env = g_getenv ("TENSORSCOPE_INJECT_PATH");

  if (env != NULL && *env != '\0')
    return env;
  if (g_file_test (TS_INJECT_BUILD_PATH, G_FILE_TEST_EXISTS))
    return TS_INJECT_BUILD_PATH;
  return TS_INJECT_INSTALLED_PATH;
}
#endif

/* In the child, between fork and exec: only async-signal-safe calls. An
 * exec failure is reported to the parent through @error_fd (close-on-exec,
 * so a successful exec closes it with nothing written). */
G_GNUC_NORETURN static void
exec_child (char * const *argv,
            int           error_fd)
{
  int saved;

  signal (SIGINT, SIG_DFL);
  signal (SIGQUIT, SIG_DFL);
  execvp (argv[0], argv);
  saved = errno;
  if (write (error_fd, &saved, sizeof saved) < 0)
    _exit (127);
  _exit (127);
}

static int
wait_status (pid_t pid,
             int  *status)
{
  while (waitpid (pid, status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return 0;
}

/* A program that never called CUDA or NVTX never loaded the library: give
 * it an empty trace so the file is there, as asked. */
static void
ensure_trace (const char *path)
{
  g_autoptr(TsTraceWriter) writer = NULL;
  g_autoptr(GError) error = NULL;

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    {
      ts_cli_message ("trace written to %s", path);
      return;
    }
  writer = ts_trace_writer_new_for_path (path, &error);
  if (writer == NULL || !ts_trace_writer_close (writer, &error))
    {
      ts_cli_message ("could not write %s: %s", path, error->message);
      return;
    }
  ts_cli_message ("the program made no CUDA or NVTX calls; empty trace written to %s", path);
}

static int
run_recorded (const char  *inject,
              const char  *trace,
              char       **argv)
{
  int pipe_fds[2];
  int exec_errno = 0;
  int status = 0;
  pid_t pid;
  ssize_t n;
  void (*old_int) (int);
  void (*old_quit) (int);

  g_autoptr(GError) error = NULL;

  if (!g_unix_open_pipe (pipe_fds, FD_CLOEXEC, &error))
    {
      ts_cli_message ("record: %s", error->message);
      return 1;
    }

  /* The environment is prepared before fork: setenv is not safe in the
   * child. The pid is the child's own, set there with a plain string. */
  g_setenv ("CUDA_INJECTION64_PATH", inject, TRUE);
  g_setenv ("NVTX_INJECTION64_PATH", inject, TRUE);
  g_setenv ("TENSORSCOPE_RECORD_OUTPUT", trace, TRUE);
  g_unlink (trace);

  /* The terminal's ^C goes to the program; we stay to report. */
  old_int = signal (SIGINT, SIG_IGN);
  old_quit = signal (SIGQUIT, SIG_IGN);

  pid = fork ();
  if (pid < 0)
    {
      ts_cli_message ("record: %s", g_strerror (errno));
      return 1;
    }
  if (pid == 0)
    {
      char pid_str[32];

      close (pipe_fds[0]);
      g_snprintf (pid_str, sizeof pid_str, "%d", (int)getpid ());
      setenv ("TENSORSCOPE_RECORD_PID", pid_str, 1);
      exec_child (argv, pipe_fds[1]);
    }

  close (pipe_fds[1]);
  do
    n = read (pipe_fds[0], &exec_errno, sizeof exec_errno);
  while (n < 0 && errno == EINTR);
  close (pipe_fds[0]);

  wait_status (pid, &status);
  signal (SIGINT, old_int);
  signal (SIGQUIT, old_quit);

  if (n == sizeof exec_errno)
    {
      ts_cli_message ("record: cannot run '%s': %s", argv[0], g_strerror (exec_errno));
      return 127;
    }

  ensure_trace (trace);
  if (WIFSIGNALED (status))
    {
      ts_cli_message ("%s was killed by signal %d (%s)", argv[0], WTERMSIG (status),
                      g_strsignal (WTERMSIG (status)));
      return 128 + WTERMSIG (status);
    }
  if (WEXITSTATUS (status) != 0)
    ts_cli_message ("%s exited with status %d", argv[0], WEXITSTATUS (status));
  return WEXITSTATUS (status);
}

int
ts_cli_record_main (int    argc,
                    char **argv)
{
  g_autofree char *output = NULL;
  g_autofree char *trace = NULL;
  g_auto(GStrv) rest = NULL;
  g_autoptr(GOptionContext) context = NULL;
  char **program;
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the trace to FILE", "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, "-- PROGRAM [ARGS...]" },
    { NULL }
  };

  context = g_option_context_new ("[--] PROGRAM [ARGS...]");
  g_option_context_set_summary (context,
                                "Record an unmodified CUDA program: its CUDA API calls, kernels, copies,\n"
                                "synchronizations, cudaMalloc/cudaFree segments and NVTX ranges.");
  if (!ts_cli_parse_program_args (context, entries, &argc, &argv))
    return 2;

  program = rest;
  if (program != NULL && program[0] != NULL && g_str_equal (program[0], "--"))
    program++;
  if (program == NULL || program[0] == NULL)
    {
      ts_cli_message ("record: no program given");
      return 2;
    }
  if (output == NULL)
    {
      ts_cli_message ("record: no output file given (-o TRACE)");
      return 2;
    }

#ifdef TS_HAVE_INJECT
  /* The program may change directory: give it an absolute path. */
  trace = g_canonicalize_filename (output, NULL);
  return run_recorded (find_inject_library (), trace, program);
#else
  (void)trace;
  ts_cli_message ("record: this build has no CUDA support (the CUDA toolkit was not found at build time)");
  return 1;
#endif
}
