/* ts-storage.c: the memory behind tensors
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-box-private.h"
#include "ts-host-data.h"
#include "ts-op-access.h"
#include "ts-session.h"
#include "ts-storage.h"
#include "ts-tensor.h"

char *
ts_device_to_string (TsDevice device)
{
  if (device.type == TS_DEVICE_CPU)
    return g_strdup ("cpu");
  return g_strdup_printf ("cuda:%d", device.index);
}

/* torch.inference_mode on this thread: what the storages made here are */
static _Thread_local gboolean inference_mode;

void
ts_storage_set_inference_mode (gboolean on)
{
  inference_mode = on;
}

static TsBoxCache storage_boxes = { .size = sizeof (TsStorage) };

static TsStorage *
storage_new0 (void)
{
  TsStorage *self = ts_box_alloc (&storage_boxes);

  memset (self, 0, sizeof *self);
  self->inference = inference_mode;
  return self;
}

static void
storage_clear (gpointer data)
{
  TsStorage *self = data;

  if (self->device.type == TS_DEVICE_CUDA && self->block != NULL)
    ts_op_access_free (self->addr);
  if (self->device.type == TS_DEVICE_CUDA)
    ts_session_free (self->block);
  else if (self->pinned)
    ts_session_host_free (self->block);
  else if (self->release != NULL)
    self->release (self->release_data);
  else if (self->data != NULL)
    {
      g_free (self->data);
      ts_host_data_release (self->nbytes);
    }
}

TsStorage *
ts_storage_new_cpu_borrowed (guint8         *data,
                             gsize           nbytes,
                             GDestroyNotify  release,
                             gpointer        release_data)
{
  TsStorage *self = storage_new0 ();

  self->device = TS_DEVICE_CPU_VALUE;
  self->nbytes = nbytes;
  self->stream = TS_STREAM_NONE;
  self->data = data;
  self->addr = GPOINTER_TO_SIZE (data);
  self->release = release;
  self->release_data = release_data;
  return self;
}

TsStorage *
ts_storage_new_cpu (gsize      nbytes,
                    gboolean   pinned,
                    GError   **error)
{
  TsStorage *self = storage_new0 ();

  self->device = TS_DEVICE_CPU_VALUE;
  self->nbytes = nbytes;
  self->stream = TS_STREAM_NONE;
  if (pinned)
    {
      /* Pinning initializes CUDA, as cudaHostAlloc does. */
      if (!ts_session_cuda_init (error) ||
          !ts_session_host_malloc (nbytes, &self->addr, &self->data, &self->block, error))
        {
          ts_box_release (&storage_boxes, self, NULL);
          return NULL;
        }
      self->pinned = TRUE;
    }
  else if (ts_host_data_no_data ())
    self->addr = nbytes ? ts_host_data_fake_address (nbytes) : 0;  /* no bytes */
  else
    {
      /* 64-byte aligned so that data_ptr() looks like PyTorch's. Host
       * memory running out is c10's alloc_cpu failing, with its message,
       * whether malloc or our budget (ts-host-data.h: it stops first where
       * Linux would overcommit) says no: these are PyTorch's own bytes. */
      gboolean charged = ts_host_data_charge (nbytes, NULL);

      self->data = charged ? g_try_malloc0 (MAX (nbytes, 1)) : NULL;
      if (self->data == NULL)
        {
          if (charged)
            ts_host_data_release (nbytes);
          g_set_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME,
                       "[enforce fail at alloc_cpu.cpp:75] err == 0. DefaultCPUAllocator: can't allocate "
                       "memory: you tried to allocate %" G_GSIZE_FORMAT " bytes. Error code 12 (Cannot "
                       "allocate memory)", nbytes);
          ts_box_release (&storage_boxes, self, NULL);
          return NULL;
        }
      self->addr = nbytes ? GPOINTER_TO_SIZE (self->data) : 0;
    }
  return self;
}

gboolean
ts_storage_keep_values (TsStorage  *self,
                        GError    **error)
{
  if (self->device.type != TS_DEVICE_CPU || self->pinned || self->release != NULL)
    return self->data != NULL;  /* only plain CPU bytes are made here */
  if (self->data != NULL || self->nbytes == 0)
    return TRUE;
  if (!ts_host_data_charge (self->nbytes, error))
    return FALSE;
  if ((self->data = g_try_malloc0 (self->nbytes)) == NULL)
    {
      ts_host_data_release (self->nbytes);
      return ts_host_data_charge (G_MAXUINT64, error);  /* the same message */
    }
  self->addr = GPOINTER_TO_SIZE (self->data);
  return TRUE;
}

void
ts_storage_drop_values (TsStorage *self)
{
  if (self->data == NULL || self->device.type != TS_DEVICE_CPU || self->pinned)
    return;
  if (self->release == NULL)
    {
      g_free (self->data);
      ts_host_data_release (self->nbytes);
    }
  self->data = NULL;  /* a borrowed array stays its owner's */
}

TsStorage *
ts_storage_new_cuda (int      device,
                     gsize    nbytes,
                     GError **error)
{
  TsStorage *self;
  TsStreamId stream;

  if (!ts_session_check_device (device, error))
    return NULL;

  self = ts_box_alloc (&storage_boxes);
  *self = (TsStorage) { .device = { TS_DEVICE_CUDA, device }, .inference = inference_mode };
  self->nbytes = nbytes;
  stream = ts_session_current_stream (device);
  self->stream = stream;
  if (nbytes == 0)
    return self;  /* PyTorch allocates nothing for an empty tensor */
  if (!ts_session_malloc (device, nbytes, stream, &self->addr, &self->data, &self->block, error))
    {
      ts_box_release (&storage_boxes, self, NULL);
      return NULL;
    }
  ts_op_access_alloc (self->addr, nbytes, stream);
  return self;
}

TsStorage *
ts_storage_new_external (int      device,
                         guint64  addr,
                         gsize    nbytes)
{
  TsStorage *self = storage_new0 ();

  /* no block: storage_clear frees nothing */
  self->device = (TsDevice) { TS_DEVICE_CUDA, device };
  self->nbytes = nbytes;
  self->addr = addr;
  self->stream = TS_STREAM_NONE;
  self->external = TRUE;
  return self;
}

TsStorage *
ts_storage_ref (TsStorage *self)
{
  return ts_box_acquire (self);
}

void
ts_storage_unref (TsStorage *self)
{
  ts_box_release (&storage_boxes, self, storage_clear);
}

void
ts_storage_record_stream (TsStorage  *self,
                          TsStreamId  stream)
{
  g_return_if_fail (self != NULL);

  if (self->device.type == TS_DEVICE_CUDA && self->block != NULL && stream != self->stream)
    {
      ts_session_record_stream (self->block, stream);
      ts_op_access_record_stream (self->addr, self->nbytes, stream);
    }
}
