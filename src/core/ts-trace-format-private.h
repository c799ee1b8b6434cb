/* ts-trace-format-private.h: constants of the trace file format
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * docs/trace-format.md is the specification; this header only names its
 * numbers for the writer and the reader.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define TS_TRACE_MAGIC            "TSTRACE\0"
#define TS_TRACE_MAGIC_LEN        8
#define TS_TRACE_MAJOR            1
#define TS_TRACE_MINOR            0
#define TS_TRACE_HEADER_SIZE      32

#define TS_TRACE_FRAME_HEADER_SIZE 8
/* Bigger frames are refused as corrupt rather than waited for. */
#define TS_TRACE_MAX_PAYLOAD      (256u << 20)

#define TS_TRACE_FRAME_STRING     0x0001
#define TS_TRACE_FRAME_INDEX      0x0002
#define TS_TRACE_FRAME_RECORD     0x0100   /* + TsRecordKind, up to 0x01ff */
#define TS_TRACE_FRAME_RECORD_LAST 0x01ff

/* The index footer lists the offset of every CHUNK-th frame of each type. */
#define TS_TRACE_INDEX_CHUNK      4096
#define TS_TRACE_INDEX_MAGIC      "TSINDEX\0"
#define TS_TRACE_TRAILER_SIZE     16       /* u64 offset of the index frame + magic */

static inline gsize
ts_trace_align8 (gsize n)
{
  return (n + 7) & ~(gsize) 7;
}

static inline guint16
ts_trace_read_u16 (const guint8 *p)
{
  return (guint16) (p[0] | p[1] << 8);
}

static inline guint32
ts_trace_read_u32 (const guint8 *p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

static inline guint64
ts_trace_read_u64 (const guint8 *p)
{
  return (guint64) ts_trace_read_u32 (p) | (guint64) ts_trace_read_u32 (p + 4) << 32;
}

static inline void
ts_trace_write_u16 (guint8 *p, guint16 v)
{
  p[0] = v & 0xff;
  p[1] = v >> 8;
}

static inline void
ts_trace_write_u32 (guint8 *p, guint32 v)
{
  p[0] = v & 0xff;
  p[1] = (v >> 8) & 0xff;
  p[2] = (v >> 16) & 0xff;
  p[3] = v >> 24;
}

static inline void
ts_trace_write_u64 (guint8 *p, guint64 v)
{
  ts_trace_write_u32 (p, (guint32) v);
  ts_trace_write_u32 (p + 4, (guint32) (v >> 32));
}

G_END_DECLS
