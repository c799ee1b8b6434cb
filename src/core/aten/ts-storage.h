/* ts-storage.h: the memory behind tensors, on the host or on a device
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A storage is a refcounted run of bytes. CPU storages are plain (pageable)
 * or pinned host memory; CUDA storages are a block of a device's caching
 * allocator: a device address, the stream the block was allocated on, and
 * the host memory that backs the simulated device bytes. Views of a tensor
 * share one storage.
 */

#pragma once

#include <glib.h>

#include "ts-types.h"

G_BEGIN_DECLS

typedef enum
{
  TS_DEVICE_CPU = 0,
  TS_DEVICE_CUDA = 1,
} TsDeviceType;

typedef struct
{
  TsDeviceType type;
  int          index;   /* -1 for the CPU; a device ordinal for CUDA */
} TsDevice;

#define TS_DEVICE_CPU_VALUE ((TsDevice) { TS_DEVICE_CPU, -1 })

static inline gboolean
ts_device_equal (TsDevice a,
                 TsDevice b)
{
  return a.type == b.type && a.index == b.index;
}

/* "cpu", "cuda:1": as PyTorch prints a device. */
char *ts_device_to_string (TsDevice device);

typedef struct _TsStorage TsStorage;

struct _TsStorage
{
  TsDevice    device;
  gboolean    pinned;      /* host memory from the pinned allocator */
  guint8     *data;        /* host bytes (for CUDA: the simulated device bytes) */
  gsize       nbytes;
  guint64     addr;        /* what data_ptr() reports */
  TsStreamId  stream;      /* allocation stream, CUDA only */
  gpointer    block;       /* the allocator's handle, CUDA and pinned only */
  gboolean    external;    /* CUDA memory viewed, not owned: data is NULL, and
                            * kernels map addr when they start */
  GDestroyNotify release;  /* CPU bytes borrowed from their owner: called */
  gpointer    release_data; /* with release_data instead of freeing data */
  gboolean    inference;   /* made in inference mode: its tensors and their
                            * views are inference tensors */
  guint       version;     /* autograd's version counter, shared by views:
                            * in-place ops bump it (ts-autograd.h) */
};

/* Whether the storages this thread makes from now on are made in inference
 * mode (torch.inference_mode; the Python layer keeps the mode). */
void ts_storage_set_inference_mode (gboolean on);

TsStorage *ts_storage_new_cpu    (gsize       nbytes,
                                  gboolean    pinned,
                                  GError    **error);
/* Host bytes another owner keeps (torch.from_numpy): the storage uses them
 * in place and calls release (release_data) when it goes away. */
TsStorage *ts_storage_new_cpu_borrowed (guint8         *data,
                                        gsize           nbytes,
                                        GDestroyNotify  release,
                                        gpointer        release_data);
TsStorage *ts_storage_new_cuda   (int         device,
                                  gsize       nbytes,
                                  GError    **error);
/* A view of device memory the storage does not own (torch.as_tensor over
 * __cuda_array_interface__): nothing is allocated or freed, and the bytes
 * may be gone by the time a kernel uses them (an illegal address). */
TsStorage *ts_storage_new_external (int       device,
                                    guint64   addr,
                                    gsize     nbytes);
/* --no-data (ts-host-data.h): a CPU storage whose values the program
 * gives from Python (torch.tensor of numbers, an RNG state) keeps bytes,
 * as they are the program's own; a kernel that writes it drops them, so
 * that what is read is never stale. */
gboolean   ts_storage_keep_values (TsStorage *self,  /* FALSE: no values */
                                   GError   **error);
void       ts_storage_drop_values (TsStorage *self);
TsStorage *ts_storage_ref        (TsStorage  *self);
void       ts_storage_unref      (TsStorage  *self);
/* Asks the caching allocator not to reuse the block until the work queued
 * so far on stream is done (Tensor.record_stream). */
void       ts_storage_record_stream (TsStorage *self,
                                     TsStreamId stream);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsStorage, ts_storage_unref)

G_END_DECLS
