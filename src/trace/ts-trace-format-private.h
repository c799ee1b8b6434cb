/* ts-trace-format-private.h: constants and codecs of the trace file format
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * docs/trace-format.md is the specification; this header names its numbers
 * and holds what the writer and the reader share: the wire field lists of
 * the record kinds (the field tables of ts-record.c without padding), the
 * key field of each kind and the rows predicted from it, and the varint
 * codec.
 */

#pragma once

#include <string.h>

#include <glib.h>

#include "ts-record.h"

G_BEGIN_DECLS

#define TS_TRACE_MAGIC            "TSTRACE\0"
#define TS_TRACE_MAGIC_LEN        8
#define TS_TRACE_MAJOR            2
#define TS_TRACE_MINOR            1
#define TS_TRACE_HEADER_SIZE      32

#define TS_TRACE_FRAME_HEADER_SIZE 8
/* Bigger frames are refused as corrupt rather than waited for. */
#define TS_TRACE_MAX_PAYLOAD      (256u << 20)

#define TS_TRACE_FRAME_SCHEMA     0x0001
#define TS_TRACE_FRAME_EVENTS     0x0002
#define TS_TRACE_FRAME_INDEX      0x0003

/* The writer closes an events frame once its payload reaches this size. */
#define TS_TRACE_CHUNK_TARGET     (64u << 10)

/* In an events frame, tag 0 introduces a string, tag 1 + kind a record. */
#define TS_TRACE_TAG_STRING       0

#define TS_TRACE_NO_KEY           0xff
#define TS_TRACE_MAX_WIRE_FIELDS  64     /* a schema may declare up to this many per kind */
#define TS_TRACE_MAX_KIND         0xfffe

#define TS_TRACE_INDEX_MAGIC      "TSINDEX\0"
#define TS_TRACE_TRAILER_SIZE     16       /* u64 offset of the index frame + magic */

/* Field types on the wire: TsFieldType without TS_FIELD_PAD. */
#define TS_TRACE_FIELD_IS_WIDE(t) ((t) == TS_FIELD_U64 || (t) == TS_FIELD_I64 || (t) == TS_FIELD_TIME)
#define TS_TRACE_FIELD_TYPE_MAX   TS_FIELD_STREAM

/* A kind as this build writes it: its non-padding fields in table order. */
typedef struct
{
  guint8  n_fields;
  guint8  key;                              /* wire index of the key field, or TS_TRACE_NO_KEY */
  guint8  types[TS_TRACE_MAX_WIRE_FIELDS];  /* TsFieldType */
  guint16 offsets[TS_TRACE_MAX_WIRE_FIELDS];
} TsTraceWireKind;

/* The key field: later fields of a record are predicted from the last
 * record of its kind with the same key (a kernel's launch shape follows its
 * name), see docs/trace-format.md. */
static inline const char *
ts_trace_key_field (TsRecordKind kind)
{
  switch ((int) kind)
    {
    case TS_RECORD_API_CALL:
    case TS_RECORD_KERNEL:
      return "name";
    case TS_RECORD_NVTX:
      return "message";
    default:
      return NULL;
    }
}

static inline void
ts_trace_wire_kind_init (TsTraceWireKind *wk,
                         TsRecordKind     kind)
{
  const TsRecordInfo *info = ts_record_info (kind);
  const char *key = ts_trace_key_field (kind);

  memset (wk, 0, sizeof *wk);
  wk->key = TS_TRACE_NO_KEY;
  for (guint f = 0; f < info->n_fields; f++)
    {
      const TsFieldInfo *fi = &info->fields[f];

      if (fi->type == TS_FIELD_PAD)
        continue;
      g_assert (wk->n_fields < TS_TRACE_MAX_WIRE_FIELDS);
      g_assert ((fi->size == 8) == TS_TRACE_FIELD_IS_WIDE (fi->type));
      if (key != NULL && strcmp (fi->name, key) == 0)
        wk->key = wk->n_fields;
      wk->types[wk->n_fields] = fi->type;
      wk->offsets[wk->n_fields] = fi->offset;
      wk->n_fields++;
    }
}

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

/* LEB128: 7 bits a byte, low bits first, high bit set on all but the last.
 * Writes at most 10 bytes; returns how many. */
static inline guint
ts_trace_put_varint (guint8 *p, guint64 v)
{
  guint n = 0;

  while (v >= 0x80)
    {
      p[n++] = (guint8) (v | 0x80);
      v >>= 7;
    }
  p[n++] = (guint8) v;

  return n;
}

/* Reads a varint of at most 10 bytes from [*p, end). Returns FALSE when it
 * runs past end or does not fit 64 bits. */
static inline gboolean
ts_trace_get_varint (const guint8 **p,
                     const guint8  *end,
                     guint64       *v)
{
  const guint8 *q = *p;
  guint64 r = 0;

  for (guint shift = 0; shift < 70; shift += 7)
    {
      guint8 b;

      if (q == end)
        return FALSE;
      b = *q++;
      if (shift == 63 && b > 1)
        return FALSE;
      r |= (guint64) (b & 0x7f) << shift;
      if (b < 0x80)
        {
          *p = q;
          *v = r;
          return TRUE;
        }
    }

  return FALSE;
}

/* Signed deltas as unsigned: 0, -1, 1, -2, 2 ... -> 0, 1, 2, 3, 4 ... */
static inline guint64
ts_trace_zigzag64 (guint64 d)
{
  return (d << 1) ^ (guint64) ((gint64) d >> 63);
}

static inline guint64
ts_trace_unzigzag64 (guint64 z)
{
  return (z >> 1) ^ (guint64) -(gint64) (z & 1);
}

static inline guint32
ts_trace_zigzag32 (guint32 d)
{
  return (d << 1) ^ (guint32) ((gint32) d >> 31);
}

static inline guint32
ts_trace_unzigzag32 (guint32 z)
{
  return (z >> 1) ^ (guint32) -(gint32) (z & 1);
}

/* The rows of the last record per key value in the current frame, which
 * predict the fields after the key: key_gen and key_row are indexed by the
 * key (a string id), an entry valid when its generation is the frame's.
 * The writer and the reader must keep them alike, so both use these. */
typedef struct
{
  GArray *key_gen;   /* guint32 */
  GArray *key_row;   /* guint32 */
  GArray *rows;      /* guint64, n_fields per row */
  guint   n_rows;    /* reset at every frame */
} TsTraceKeyRows;

static inline void
ts_trace_key_rows_init (TsTraceKeyRows *kr)
{
  kr->key_gen = g_array_new (FALSE, TRUE, sizeof (guint32));
  kr->key_row = g_array_new (FALSE, TRUE, sizeof (guint32));
  kr->rows = g_array_new (FALSE, FALSE, sizeof (guint64));
}

static inline void
ts_trace_key_rows_clear (TsTraceKeyRows *kr)
{
  g_clear_pointer (&kr->key_gen, g_array_unref);
  g_clear_pointer (&kr->key_row, g_array_unref);
  g_clear_pointer (&kr->rows, g_array_unref);
}

/* The row of the last record with this key in frame @gen, or NULL. */
static inline guint64 *
ts_trace_key_rows_lookup (const TsTraceKeyRows *kr,
                          guint32               key,
                          guint32               gen,
                          guint                 n_fields)
{
  if (key >= kr->key_gen->len || g_array_index (kr->key_gen, guint32, key) != gen)
    return NULL;

  return &g_array_index (kr->rows, guint64, (gsize) g_array_index (kr->key_row, guint32, key) * n_fields);
}

/* @values become the key's row: copied into @row, the key's lookup, or
 * into a new row of frame @gen when that was NULL. */
static inline void
ts_trace_key_rows_store (TsTraceKeyRows *kr,
                         guint32         key,
                         guint32         gen,
                         guint           n_fields,
                         guint64        *row,
                         const guint64  *values)
{
  if (row == NULL)
    {
      guint32 index = kr->n_rows++;

      if (key >= kr->key_gen->len)
        {
          g_array_set_size (kr->key_gen, MAX (key + 1, kr->key_gen->len * 2));
          g_array_set_size (kr->key_row, kr->key_gen->len);
        }
      g_array_index (kr->key_gen, guint32, key) = gen;
      g_array_index (kr->key_row, guint32, key) = index;
      if (kr->rows->len < (gsize) kr->n_rows * n_fields)
        g_array_set_size (kr->rows, (gsize) kr->n_rows * n_fields);
      row = &g_array_index (kr->rows, guint64, (gsize) index * n_fields);
    }

  memcpy (row, values, n_fields * sizeof (guint64));
}

G_END_DECLS
