/* ts-import-private.h: shared state of the PyTorch importers
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-import-input.h"
#include "ts-import-value.h"
#include "ts-trace-import.h"

G_BEGIN_DECLS

/* What the files of one document share. Times in records are ns since
 * `epoch_ns` (ns since the Unix epoch, or on the profiler's own clock when
 * a file does not say): the first file that knows a time sets it. */
typedef struct
{
  TsRecorder *rec;
  gboolean    have_epoch;
  gint64      epoch_ns;
  /* Per rank (multi-rank import): device, thread and stream offsets. */
  gint        rank;            /* -1: no rank grouping */
  guint       device_base;     /* first device index of this file */
  guint       thread_base;
  guint       n_devices_used;  /* devices so far, all files */
  guint       n_threads_used;
  TsStreamId  next_stream;
  /* The profiler's clock: record time = ts (ns) - origin_ns, the same
   * origin for every rank; epoch_ns is then base + origin. */
  gboolean    have_origin;
  gint64      origin_ns;
  gboolean    have_kineto_base;
  gint64      kineto_base_ns;
  guint64     next_range_id;
  /* A snapshot comes with the traces: its replay gives the memory
   * counters, so the traces' [memory] events are not drawn over them. */
  gboolean    skip_memory_counters;
  /* Added to every time of the file being read: moves a rank onto the
   * first rank's clock (ts-rank-clock.h); set when the clocks were
   * aligned (the pre-pass read every rank's base time). */
  gint64      clock_shift_ns;
  gboolean    clock_aligned;
  TsImportFlags flags;
} TsImportContext;

#define CLOCK_NOTE TS_IMPORT_CLOCK_NOTE

void     ts_import_note          (TsImportContext *ctx,
                                  const char      *format,
                                  ...) G_GNUC_PRINTF (2, 3);

gboolean ts_snapshot_import      (TsImportContext *ctx,
                                  TsImportInput   *in,
                                  gboolean         is_pickle,
                                  GError         **error);

gboolean ts_kineto_import        (TsImportContext *ctx,
                                  TsImportInput   *in,
                                  GError         **error);

/* The clock pre-pass of a multi-rank import: adds the collective kernels
 * of the file (rank ctx->rank) to clock, end times on the file's own ts
 * scale, and gives its baseTimeNanoseconds (0 when it has none). */
typedef struct _TsRankClock TsRankClock;
gboolean ts_kineto_scan_collectives (TsImportContext *ctx,
                                     const char      *path,
                                     TsRankClock     *clock,
                                     gint64          *base_ns,
                                     GError         **error);

/* Where in a Kineto file the rank is (distributedInfo.rank); -1 if none. */
gint     ts_kineto_peek_rank     (const char      *path);

/* A frames list ([{filename, line, name}, ...]) as one source location:
 * the innermost Python frame outside torch, else the first frame. */
TsSourceLoc ts_import_frames_loc (TsRecorder      *rec,
                                  const TsValue   *frames);

G_END_DECLS
