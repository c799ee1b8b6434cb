/* ts-device-memory.h: the simulated devices' memory (what cudaMalloc hands out)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One object holds the address spaces of every simulated device. Device d
 * owns the addresses [TS_DEVICE_MEMORY_BASE + d * 2^40, + 2^40): a device
 * address therefore names its device, addresses are the same in every run
 * (no host pointers leak into traces), and a segment is placed first fit at
 * 2 MiB granularity, like cudaMalloc's pages.
 *
 * Capacity is what cudaMemGetInfo reports as total; a part of it
 * (context_reserve) is taken at start, as a CUDA context takes memory on a
 * real GPU, so that free < total from the beginning.
 *
 * Host backing is lazy: a segment gets an anonymous MAP_NORESERVE mapping
 * the first time a range of it is translated, and the kernel only commits
 * the pages that are touched; an 80 GB device costs host memory only for
 * what the workload writes or reads. Thread-safe.
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define TS_DEVICE_MEMORY_BASE        G_GUINT64_CONSTANT (0x7f0000000000)
#define TS_DEVICE_MEMORY_SPAN_SHIFT  40
#define TS_DEVICE_MEMORY_SPAN        (G_GUINT64_CONSTANT (1) << TS_DEVICE_MEMORY_SPAN_SHIFT)
#define TS_DEVICE_MEMORY_GRANULARITY (G_GUINT64_CONSTANT (2) << 20)
#define TS_DEVICE_MEMORY_MAX_DEVICES 64

#define TS_DEVICE_MEMORY_ERROR (ts_device_memory_error_quark ())

typedef enum
{
  TS_DEVICE_MEMORY_ERROR_OUT_OF_MEMORY,   /* cudaErrorMemoryAllocation */
  TS_DEVICE_MEMORY_ERROR_INVALID_DEVICE,  /* cudaErrorInvalidDevice */
  TS_DEVICE_MEMORY_ERROR_INVALID_VALUE,   /* cudaErrorInvalidValue: bad free, bad capacity */
  TS_DEVICE_MEMORY_ERROR_ILLEGAL_ADDRESS, /* cudaErrorIllegalAddress: no live segment there */
  TS_DEVICE_MEMORY_ERROR_HOST,            /* the host could not back the range (mmap failed) */
} TsDeviceMemoryError;

#define TS_TYPE_DEVICE_MEMORY (ts_device_memory_get_type ())

G_DECLARE_FINAL_TYPE (TsDeviceMemory, ts_device_memory, TS, DEVICE_MEMORY, GObject)

GQuark          ts_device_memory_error_quark       (void);

TsDeviceMemory *ts_device_memory_new               (void);

/* Adds a device and returns its index (0, 1, ...). capacity is at most
 * 2^40 bytes; context_reserve < capacity. */
guint           ts_device_memory_add_device        (TsDeviceMemory *self,
                                                    guint64         capacity,
                                                    guint64         context_reserve,
                                                    GError        **error);
guint           ts_device_memory_get_n_devices     (TsDeviceMemory *self);
guint64         ts_device_memory_get_base          (guint           device);

/* cudaMalloc: size 0 gives address 0. Fails with OUT_OF_MEMORY when the
 * size, rounded up to 2 MiB, exceeds the free memory. */
gboolean        ts_device_memory_segment_malloc    (TsDeviceMemory *self,
                                                    guint           device,
                                                    guint64         size,
                                                    guint64        *addr,
                                                    GError        **error);
/* cudaFree of a segment's base address (0 is a no-op). */
gboolean        ts_device_memory_segment_free      (TsDeviceMemory *self,
                                                    guint64         addr,
                                                    GError        **error);

/* cudaMemGetInfo. */
gboolean        ts_device_memory_get_info          (TsDeviceMemory *self,
                                                    guint           device,
                                                    guint64        *free_bytes,
                                                    guint64        *total_bytes,
                                                    GError        **error);

/* The segment holding addr: its device, base and size. FALSE if none. */
gboolean        ts_device_memory_lookup            (TsDeviceMemory *self,
                                                    guint64         addr,
                                                    guint          *device,
                                                    guint64        *segment_base,
                                                    guint64        *segment_size);

/* Host memory behind [addr, addr + size), which must lie in one live
 * segment. Valid until that segment is freed. New memory reads as zero. */
/* Whether [addr, addr + size) lies inside one mapped allocation, as
 * translate() checks, without giving it host bytes (--no-data). */
gboolean        ts_device_memory_contains          (TsDeviceMemory *self,
                                                    guint64         addr,
                                                    guint64         size);
gpointer        ts_device_memory_translate         (TsDeviceMemory *self,
                                                    guint64         addr,
                                                    guint64         size,
                                                    GError        **error);

/* Virtual memory management, for expandable segments: a reservation
 * (cuMemAddressReserve) takes address space only; pages of it, in whole
 * granules, are mapped (cuMemCreate + cuMemMap: they count as used and fail
 * with OUT_OF_MEMORY like cudaMalloc) and unmapped (their contents are
 * lost). translate() and lookup() see mapped pages only; lookup() reports
 * the whole reservation as the segment. release() frees the reservation
 * and any page still mapped. */
gboolean        ts_device_memory_reserve           (TsDeviceMemory *self,
                                                    guint           device,
                                                    guint64         size,
                                                    guint64        *addr,
                                                    GError        **error);
gboolean        ts_device_memory_map               (TsDeviceMemory *self,
                                                    guint64         addr,
                                                    guint64         size,
                                                    GError        **error);
gboolean        ts_device_memory_unmap             (TsDeviceMemory *self,
                                                    guint64         addr,
                                                    guint64         size,
                                                    GError        **error);
gboolean        ts_device_memory_release           (TsDeviceMemory *self,
                                                    guint64         addr,
                                                    GError        **error);

/* Host bytes actually mapped (segments translated at least once), for
 * tests and the info command. */
guint64         ts_device_memory_get_mapped_bytes  (TsDeviceMemory *self);

G_END_DECLS
