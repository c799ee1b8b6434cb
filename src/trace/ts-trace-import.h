/* ts-trace-import.h: opening what PyTorch writes
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One entry point for every file Tensorscope opens: its own trace files,
 * PyTorch memory snapshots (pickle, protocols 2 to 5, or the same dict as
 * JSON; every version from 1.13 on), torch.profiler (Kineto) traces
 * (.json, .json.gz) and a directory of per-rank Kineto traces. The format
 * is found from the content, never the name. Imported files become the
 * same records a recorded run has (ts-record.h), so the document, the
 * memory replay, the renderers and the exporters work on them unchanged.
 *
 * What an importer had to guess or leave out is said in TS_RECORD_OUTPUT
 * records of kind TS_OUTPUT_TOOL (ts_trace_import_get_notes() lists them).
 */

#pragma once

#include "ts-recorder.h"
#include "ts-import-input.h"

G_BEGIN_DECLS

typedef enum
{
  TS_IMPORT_FORMAT_UNKNOWN = 0,
  TS_IMPORT_FORMAT_TENSORSCOPE,     /* our own trace file */
  TS_IMPORT_FORMAT_SNAPSHOT_PICKLE,
  TS_IMPORT_FORMAT_SNAPSHOT_JSON,
  TS_IMPORT_FORMAT_KINETO_JSON,
  TS_IMPORT_FORMAT_RANK_DIRECTORY,
} TsImportFormat;

const char    *ts_import_format_name    (TsImportFormat format);

typedef enum
{
  TS_IMPORT_FLAGS_NONE     = 0,
  /* Per-rank traces keep the times they were written with, even where
   * their collectives say the hosts' clocks disagree. */
  TS_IMPORT_NO_CLOCK_ALIGN = 1 << 0,
} TsImportFlags;

/* The file names viewers offer to open ("*.tstrace", "*.pickle", ...),
 * NULL-terminated, and whether a name has one of them. */
extern const char * const ts_trace_import_patterns[];
gboolean       ts_trace_import_has_trace_name (const char *name);

/* Looks at the first bytes (decompressed) of a file, or at a directory. */
TsImportFormat ts_trace_import_detect   (const char    *path,
                                         GError       **error);

/* Loads `path` (any of the formats above) into an empty recorder. */
gboolean       ts_trace_import_open     (const char    *path,
                                         TsRecorder    *recorder,
                                         GError       **error);

/* Several files as one document: per-rank traces and a snapshot of the
 * same run line up on their common clock (µs since the Unix epoch). */
gboolean       ts_trace_import_open_many (const char * const *paths,
                                          guint               n_paths,
                                          TsRecorder         *recorder,
                                          GError            **error);

/* ts_trace_import_open_many with flags. Per-rank traces from different
 * hosts are moved onto the lowest rank's clock (offsets estimated from
 * matched collectives, ts-rank-clock.h) unless TS_IMPORT_NO_CLOCK_ALIGN;
 * the notes say which rank moved by how much, and why. */
gboolean       ts_trace_import_open_with_flags (const char * const *paths,
                                                guint               n_paths,
                                                TsImportFlags       flags,
                                                TsRecorder         *recorder,
                                                GError            **error);

/* Notes about the document's clock (the epoch, the per-rank alignment)
 * start with this. */
#define TS_IMPORT_CLOCK_NOTE "clock: "

/* The note of a profiler trace whose [memory] events became allocator
 * actions in segments made up for them: exporters warn with it. */
#define TS_IMPORT_SYNTHETIC_SEGMENTS_NOTE "memory: segments synthesized: "

/* The notes an import wrote (TS_OUTPUT_TOOL outputs), in order. */
GPtrArray     *ts_trace_import_get_notes (TsRecorder   *recorder);

/* For the fuzz targets: import bytes of one format into a recorder. */
gboolean       ts_trace_import_bytes    (TsImportFormat  format,
                                         const guint8   *data,
                                         gsize           len,
                                         TsRecorder     *recorder,
                                         GError        **error);

/* The correlation of the allocator actions an import made up (the state
 * before a snapshot's trace starts): exporters leave them out. */
#define TS_IMPORT_SYNTHETIC_CORRELATION G_MAXUINT64

/* The Unix time (ns) of time 0 of an imported document, when a file said
 * (time_us of a snapshot, baseTimeNanoseconds or absolute ts of a trace). */
gboolean       ts_trace_import_get_epoch (TsRecorder  *recorder,
                                          gint64      *epoch_ns);
/* The rank a device or a thread of a multi-rank import belongs to; -1. */
gint           ts_trace_import_device_rank (TsRecorder *recorder,
                                            guint32     device);
gint           ts_trace_import_thread_rank (TsRecorder *recorder,
                                            guint32     thread);
/* Both as tables, for lookups while walking records: device index + 1 ->
 * rank + 1 and thread id + 1 -> rank + 1, holding only the devices and
 * threads that have a rank (both empty for a single-rank trace). */
void           ts_trace_import_rank_maps   (TsRecorder  *recorder,
                                            GHashTable **device_rank,
                                            GHashTable **thread_rank);

/* A NCCL/RCCL/HCCL kernel, by name (ncclKernel_*, ncclDevKernel_*, ...). */
gboolean       ts_kernel_name_is_communication (const char *name);

G_END_DECLS
