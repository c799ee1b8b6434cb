/* ts-cublas-workspace.c: the workspaces PyTorch gives cuBLAS
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PyTorch's handle pool, as far as memory can tell: each device has a
 * pool of handles; a host thread reserves one per device the first time it
 * runs a GEMM there and gives it back when it ends (so a later thread may
 * get the same handle, and with it the same workspaces); the autograd
 * engine's device threads live as long as the process. A workspace is
 * keyed by (handle, stream), an Lt workspace likewise in a map of its own,
 * as PyTorch's two maps are.
 *
 * The allocations carry the call site of the op that made them, with
 * PyTorch's function for the frame's name (at::cuda::setWorkspaceForHandle
 * or at::cuda::getCUDABlasLtWorkspace), which is how a snapshot or the
 * memory view tells them from tensors.
 */

#include "config.h"

#include "ts-callsite.h"
#include "ts-cublas-config.h"
#include "ts-cublas-workspace.h"
#include "ts-session.h"
#include "ts-tensor.h"

#define MAX_DEVICES 64

/* A thread's reserved handle per device, numbered from 1; 0: none yet. */
typedef struct
{
  guint32 handle[MAX_DEVICES];
} Window;

static GMutex lock;
static GArray *free_handles[MAX_DEVICES];  /* guint32, given back by ended threads */
static guint32 n_handles[MAX_DEVICES];
static Window engine_windows[MAX_DEVICES];
/* key (see workspace_key) -> the block, NULL for a size of 0 */
static GHashTable *workspaces;
/* the blocks in the order they were made, which is the order they go */
static GPtrArray *blocks;
static gboolean config_done;
static TsCublasConfig config;
static GError *config_error;
static TsCublasWarnFunc warn_func;

static __thread int engine_device = -1;

/* A loop of GEMMs asks for the same pair each time: the calling thread
 * remembers the last pair it was given, valid while no clear has run
 * since (clears counts them), and needs no lock then. */
typedef struct
{
  gboolean   valid;
  int        device;
  int        engine;
  TsStreamId stream;
  gboolean   lt;
  guint      clears;
} LastTaken;

static __thread LastTaken last_taken;
static guint clears;

static void
window_free (gpointer data)
{
  Window *window = data;

  g_mutex_lock (&lock);
  for (guint d = 0; d < MAX_DEVICES; d++)
    if (window->handle[d] != 0)
      g_array_append_val (free_handles[d], window->handle[d]);
  g_mutex_unlock (&lock);
  g_free (window);
}

static GPrivate thread_window = G_PRIVATE_INIT (window_free);

/* The handle the calling thread (or the engine thread it stands for)
 * holds on @device. Under the lock. */
static guint32
reserve_handle (int device)
{
  Window *window;

  if (engine_device >= 0)
    window = &engine_windows[engine_device];
  else if ((window = g_private_get (&thread_window)) == NULL)
    {
      window = g_new0 (Window, 1);
      g_private_set (&thread_window, window);
    }
  if (window->handle[device] == 0)
    {
      if (free_handles[device] == NULL)
        free_handles[device] = g_array_new (FALSE, FALSE, sizeof (guint32));
      if (free_handles[device]->len > 0)
        {
          window->handle[device] = g_array_index (free_handles[device], guint32, free_handles[device]->len - 1);
          g_array_set_size (free_handles[device], free_handles[device]->len - 1);
        }
      else
        window->handle[device] = ++n_handles[device];
    }
  return window->handle[device];
}

static gint64
workspace_key (int        device,
               guint32    handle,
               TsStreamId stream,
               gboolean   lt)
{
  /* 1 bit Lt, 6 the device, 25 the handle, 32 the stream */
  return (gint64) (((guint64) (lt != FALSE) << 63) | ((guint64) device << 57) |
                   ((guint64) (handle & 0x1ffffff) << 32) | stream);
}

/* The sizes, read once from the environment: PyTorch reads the sizes at
 * every call, but a script that sets them sets them before its first
 * GEMM. Under the lock; the warnings (*warnings, made when there are
 * any) go out after it. */
static gboolean
config_get (int         device,
            GPtrArray **warnings,
            GError    **error)
{
  if (!config_done)
    {
      const TsGpuProfile *profile = ts_session_get_profile (device);
      TsCublasEnv env;

      *warnings = g_ptr_array_new_with_free_func (g_free);
      ts_cublas_env_get (&env);
      ts_cublas_config_parse (&config, &env, profile->cc_major, profile->cc_minor, *warnings, &config_error);
      workspaces = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
      blocks = g_ptr_array_new ();
      config_done = TRUE;
    }
  if (config_error != NULL)
    {
      /* std::out_of_range, as every cuBLAS call meets it */
      g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME, config_error->message);
      return FALSE;
    }
  return TRUE;
}

/* One workspace of @size for the key, unless it has one. The allocation
 * is the op's call site under PyTorch's function name. */
static gboolean
allocate (int          device,
          TsStreamId   stream,
          guint32      handle,
          gboolean     lt,
          guint64      size,
          GError     **error)
{
  gint64 key = workspace_key (device, handle, stream, lt);
  TsSourceLoc saved, loc;
  gpointer block = NULL;
  guint64 addr;
  guint8 *host;
  gboolean ok;

  if (g_hash_table_contains (workspaces, &key))
    return TRUE;
  if (size > 0)
    {
      /* PyTorch's allocate(0) is a null pointer that takes no block */
      saved = loc = ts_callsite_get ();
      loc.function = ts_recorder_intern (ts_session_get_recorder (),
                                         lt ? "at::cuda::getCUDABlasLtWorkspace" : "at::cuda::setWorkspaceForHandle");
      ts_callsite_set (&loc);
      ok = ts_session_malloc (device, size, stream, &addr, &host, &block, error);
      ts_callsite_set (&saved);
      if (!ok)
        return FALSE;
    }
  g_hash_table_insert (workspaces, g_memdup2 (&key, sizeof key), block);
  if (block != NULL)
    g_ptr_array_add (blocks, block);
  return TRUE;
}

gboolean
ts_cublas_workspace_take (int          device,
                          TsStreamId   stream,
                          gboolean     lt,
                          GError     **error)
{
  g_autoptr(GPtrArray) warnings = NULL;
  guint32 handle;
  gboolean ok;

  g_return_val_if_fail (device >= 0 && device < MAX_DEVICES, FALSE);

  if (last_taken.valid && last_taken.device == device && last_taken.stream == stream &&
      last_taken.engine == engine_device && (last_taken.lt || !lt) &&
      last_taken.clears == (guint) g_atomic_int_get (&clears))
    return TRUE;

  g_mutex_lock (&lock);
  ok = config_get (device, &warnings, error);
  if (ok)
    {
      handle = reserve_handle (device);
      /* getCurrentCUDABlasHandle sets the cuBLAS workspace first, the Lt
       * one follows (when it is not the same) */
      ok = allocate (device, stream, handle, FALSE, config.workspace_size, error) &&
           (!lt || config.lt_shared || allocate (device, stream, handle, TRUE, config.lt_workspace_size, error));
    }
  if (ok)
    {
      gboolean same = last_taken.valid && last_taken.device == device && last_taken.stream == stream &&
                      last_taken.engine == engine_device && last_taken.clears == clears;

      last_taken = (LastTaken) { TRUE, device, engine_device, stream, lt || (same && last_taken.lt), clears };
    }
  g_mutex_unlock (&lock);

  for (guint i = 0; warnings != NULL && i < warnings->len; i++)
    {
      if (warn_func != NULL)
        warn_func (warnings->pdata[i]);
      else
        g_printerr ("UserWarning: %s\n", (const char *) warnings->pdata[i]);
    }
  return ok;
}

gboolean
ts_cublas_workspace_addmm_lt (void)
{
  gboolean on;

  g_mutex_lock (&lock);
  if (!config_done)
    {
      /* before the first GEMM: only this variable matters */
      TsCublasEnv env;

      ts_cublas_env_get (&env);
      on = g_strcmp0 (env.disable_addmm_lt, "1") != 0;
    }
  else
    on = config.addmm_lt;
  g_mutex_unlock (&lock);
  return on;
}

void
ts_cublas_workspace_clear (void)
{
  g_autoptr(GPtrArray) freed = NULL;

  g_mutex_lock (&lock);
  g_atomic_int_inc (&clears);
  if (workspaces != NULL)
    {
      g_hash_table_remove_all (workspaces);
      freed = g_steal_pointer (&blocks);
      blocks = g_ptr_array_new ();
    }
  g_mutex_unlock (&lock);
  for (guint i = 0; freed != NULL && i < freed->len; i++)
    ts_session_free (freed->pdata[i]);
}

int
ts_cublas_workspace_enter_engine (int device)
{
  int previous = engine_device;

  g_return_val_if_fail (device < MAX_DEVICES, previous);
  if (device >= 0)
    engine_device = device;
  return previous;
}

void
ts_cublas_workspace_leave_engine (int previous)
{
  engine_device = previous;
}

void
ts_cublas_workspace_set_warn_func (TsCublasWarnFunc func)
{
  warn_func = func;
}
