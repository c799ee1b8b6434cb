/* ts-trace-reader.c: loads a trace file, or a live stream of frames, into a recorder
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One parser serves both uses: parse() takes as many whole frames as the
 * bytes at hand hold and says how far it got. A file is parsed in one call
 * over its mapping; a pipe is fed chunk by chunk, the unparsed tail of each
 * chunk kept until the rest of its frame arrives.
 *
 * The schema frame says, for each record kind in the file, how many fields
 * a record has and of which types; events frames hold strings and records
 * as varint deltas (docs/trace-format.md). The decoder keeps one row of
 * previous values per kind, and per kind with a key field one row per key
 * value, all reset at the start of every events frame.
 *
 * The parser trusts nothing: every varint is checked against the bytes
 * there are, string ids must be defined before use, enum fields must hold
 * values a producer can write, and the index footer must agree with the
 * frames. The first problem stops loading with a GError naming the offset
 * of the frame; what was decoded before it stays loaded. Unknown frame
 * types, and records of kinds this build does not know, are skipped and
 * counted: that is how newer minor versions stay readable.
 *
 * Decoded records are appended in runs of one kind with
 * ts_recorder_append_many(), one lock per run rather than per record.
 *
 * Users gzip their traces: a whole file or buffer that starts with the
 * gzip magic is inflated first (GIO's GZlibDecompressor), then parsed as
 * any other. A gzip stream cut short gives what it holds, and the trace
 * then reads as cut short, as a killed run's file does.
 */

#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "ts-trace-format-private.h"
#include "ts-trace-reader.h"

#define BATCH_LEN 256

/* A kind as the file's schema declares it. */
typedef struct
{
  guint32   kind;          /* as in the file; maybe unknown to this build */
  gboolean  known;         /* kind < TS_N_RECORD_KINDS */
  guint     n_fields;      /* the file's */
  guint     n_known;       /* fields this build stores: min (file's, ours) */
  guint     key;           /* TS_TRACE_NO_KEY or a field index */
  guint8    types[TS_TRACE_MAX_WIRE_FIELDS];
  guint16   offsets[TS_TRACE_MAX_WIRE_FIELDS];   /* in the struct, for the known ones */
  guint64   prev[TS_TRACE_MAX_WIRE_FIELDS];
  TsTraceKeyRows keys;     /* keyed by the file's string ids */
  guint32   count_frame;   /* records in the current frame */
  guint64   count;
} SchemaKind;

struct _TsTraceReader
{
  GObject     parent_instance;

  TsRecorder *recorder;

  guint       major;
  guint       minor;
  gboolean    have_header;
  gboolean    have_schema;
  gboolean    complete;          /* the index footer was read */
  gboolean    cut_short;
  gboolean    finished;
  gboolean    claims_complete;   /* a whole file ending in the index trailer */
  GError     *failure;           /* set once loading failed */

  guint64     offset;            /* stream offset of the first unparsed byte */
  gint64      bad_offset;
  GByteArray *pending;           /* fed bytes not parsed yet */

  GArray     *string_map;        /* guint32: file string id -> recorder id */

  SchemaKind *kinds;             /* in schema order */
  guint       n_kinds;
  gint        kind_slot[TS_N_RECORD_KINDS];   /* schema index of a known kind, or -1 */
  GHashTable *unknown_slots;     /* file kind -> schema index + 1, for the others */
  guint32     frame_gen;

  /* For checking the index: each events frame's offset and counts. */
  GArray     *chunk_offsets;     /* guint64 */
  GArray     *chunk_counts;      /* guint32, 1 + n_kinds per frame */
  guint64     n_strings_total;

  /* Records decoded and not yet appended: a run of one kind. */
  TsRecordKind batch_kind;
  guint        batch_len;
  guint64     *batch;            /* BATCH_LEN records of TS_RECORD_MAX_SIZE */

  guint64     n_skipped;
  guint64     n_records;
};

G_DEFINE_FINAL_TYPE (TsTraceReader, ts_trace_reader, G_TYPE_OBJECT)

G_DEFINE_QUARK (ts-trace-reader-error-quark, ts_trace_reader_error)

static gboolean G_GNUC_PRINTF (5, 6)
fail (TsTraceReader  *self,
      GError        **error,
      gint64          offset,
      gint            code,
      const char     *format,
      ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_assert (self->failure == NULL);

  self->bad_offset = offset;
  self->failure = g_error_new_literal (TS_TRACE_READER_ERROR, code, message);
  if (error != NULL)
    *error = g_error_copy (self->failure);

  return FALSE;
}

static void
flush_batch (TsTraceReader *self)
{
  if (self->batch_len == 0)
    return;

  ts_recorder_append_many (self->recorder, self->batch_kind, self->batch, self->batch_len);
  self->n_records += self->batch_len;
  self->batch_len = 0;
}

static gboolean
parse_header (TsTraceReader  *self,
              const guint8   *data,
              gsize           len,
              gsize          *consumed,
              GError        **error)
{
  guint32 header_size;

  *consumed = 0;

  if (len > 0 && memcmp (data, TS_TRACE_MAGIC, MIN (len, TS_TRACE_MAGIC_LEN)) != 0)
    return fail (self, error, 0, TS_TRACE_READER_ERROR_NOT_A_TRACE,
                 "Not a Tensorscope trace (the file does not start with the trace magic)");

  if (len < 16)
    return TRUE;

  self->major = ts_trace_read_u16 (data + 8);
  self->minor = ts_trace_read_u16 (data + 10);
  header_size = ts_trace_read_u32 (data + 12);

  if (self->major > TS_TRACE_MAJOR)
    return fail (self, error, 0, TS_TRACE_READER_ERROR_VERSION,
                 "The trace is in format %u.%u, newer than this version of Tensorscope "
                 "can read (%u.x): open it with a newer Tensorscope",
                 self->major, self->minor, TS_TRACE_MAJOR);
  if (self->major < TS_TRACE_MAJOR)
    return fail (self, error, 0, TS_TRACE_READER_ERROR_VERSION,
                 "The trace is in format %u.%u, which no Tensorscope release wrote",
                 self->major, self->minor);
  if (header_size < TS_TRACE_HEADER_SIZE || header_size % 8 != 0 || header_size > 4096)
    return fail (self, error, 0, TS_TRACE_READER_ERROR_CORRUPT,
                 "The trace header claims a size of %u bytes", header_size);

  if (len < header_size)
    return TRUE;

  self->have_header = TRUE;
  *consumed = header_size;

  return TRUE;
}

static SchemaKind *
find_kind (TsTraceReader *self,
           guint64        kind)
{
  gpointer slot;

  if (kind < TS_N_RECORD_KINDS)
    return self->kind_slot[kind] < 0 ? NULL : &self->kinds[self->kind_slot[kind]];

  if (self->unknown_slots == NULL || kind > TS_TRACE_MAX_KIND)
    return NULL;
  slot = g_hash_table_lookup (self->unknown_slots, GUINT_TO_POINTER ((guint) kind));
  return slot == NULL ? NULL : &self->kinds[GPOINTER_TO_UINT (slot) - 1];
}

static gboolean
parse_schema (TsTraceReader  *self,
              guint64         offset,
              const guint8   *payload,
              guint32         len,
              GError        **error)
{
  const guint8 *p = payload;
  const guint8 *end = payload + len;
  guint n_kinds;

#define CORRUPT_SCHEMA(...) \
  fail (self, error, offset, TS_TRACE_READER_ERROR_CORRUPT, \
        "The schema at offset %" G_GUINT64_FORMAT " is corrupt: %s", offset, __VA_ARGS__)

  if (self->have_schema)
    return fail (self, error, offset, TS_TRACE_READER_ERROR_CORRUPT,
                 "A second schema frame, at offset %" G_GUINT64_FORMAT, offset);
  if (len < 4)
    return CORRUPT_SCHEMA ("too short");

  n_kinds = ts_trace_read_u16 (p);
  p += 4;
  self->kinds = g_new0 (SchemaKind, MAX (n_kinds, 1));

  for (guint i = 0; i < n_kinds; i++)
    {
      SchemaKind *sk = &self->kinds[i];
      TsTraceWireKind ours;

      if (end - p < 4)
        return CORRUPT_SCHEMA ("its kinds run past its end");
      sk->kind = ts_trace_read_u16 (p);
      sk->n_fields = p[2];
      sk->key = p[3];
      p += 4;
      if ((gsize) (end - p) < sk->n_fields)
        return CORRUPT_SCHEMA ("its field types run past its end");
      if (sk->kind > TS_TRACE_MAX_KIND)
        return CORRUPT_SCHEMA ("a kind number is out of range");
      if (sk->n_fields > TS_TRACE_MAX_WIRE_FIELDS)
        return CORRUPT_SCHEMA ("a kind has too many fields");
      if (find_kind (self, sk->kind) != NULL)
        return CORRUPT_SCHEMA ("a kind is listed twice");
      memcpy (sk->types, p, sk->n_fields);
      p += sk->n_fields;

      for (guint f = 0; f < sk->n_fields; f++)
        if (sk->types[f] < TS_FIELD_U32 || sk->types[f] > TS_TRACE_FIELD_TYPE_MAX ||
            sk->types[f] == TS_FIELD_PAD)
          return CORRUPT_SCHEMA ("a field has an unknown type");
      if (sk->key != TS_TRACE_NO_KEY &&
          (sk->key >= sk->n_fields || sk->types[sk->key] != TS_FIELD_STRING))
        return CORRUPT_SCHEMA ("a key field is not a string field of its kind");

      self->n_kinds = i + 1;
      if (sk->kind >= TS_N_RECORD_KINDS)
        {
          if (self->unknown_slots == NULL)
            self->unknown_slots = g_hash_table_new (NULL, NULL);
          g_hash_table_insert (self->unknown_slots, GUINT_TO_POINTER (sk->kind), GUINT_TO_POINTER (i + 1));
        }
      else
        {
          /* The fields both sides know must agree; the file may have more
           * (a newer minor) or fewer (an older one). */
          ts_trace_wire_kind_init (&ours, sk->kind);
          sk->known = TRUE;
          sk->n_known = MIN (sk->n_fields, ours.n_fields);
          for (guint f = 0; f < sk->n_known; f++)
            if (sk->types[f] != ours.types[f])
              return CORRUPT_SCHEMA ("its field types differ from this version's");
          memcpy (sk->offsets, ours.offsets, sizeof ours.offsets);
          self->kind_slot[sk->kind] = i;
        }

      if (sk->key != TS_TRACE_NO_KEY)
        ts_trace_key_rows_init (&sk->keys);
    }

#undef CORRUPT_SCHEMA

  self->have_schema = TRUE;

  return TRUE;
}

static gboolean
add_string (TsTraceReader *self,
            const guint8  *str,
            gsize          len)
{
  guint32 mapped;

  flush_batch (self);
  mapped = ts_recorder_intern_len (self->recorder, (const char *) str, len);
  g_array_append_val (self->string_map, mapped);
  self->n_strings_total++;

  return TRUE;
}

static inline gboolean
get_varint (const guint8 **p,
            const guint8  *end,
            guint64       *v)
{
  if (G_LIKELY (*p < end && **p < 0x80))
    {
      *v = *(*p)++;
      return TRUE;
    }

  return ts_trace_get_varint (p, end, v);
}

/* Decodes one record's fields into values (the file's values: deltas
 * applied, string ids not mapped yet). */
static gboolean
decode_fields (TsTraceReader  *self,
               SchemaKind     *sk,
               const guint8  **pp,
               const guint8   *end,
               guint64        *values,
               const char    **what,
               guint64        *bad_string)
{
  const guint64 *pred = sk->prev;
  const guint8 *p = *pp;
  guint n = sk->n_fields;
  guint64 *row = NULL;   /* the key's, once the key field is read */

  for (guint f = 0; f < n; f++)
    {
      guint64 z;

      if (!get_varint (&p, end, &z))
        {
          *what = "a field runs past the end of the frame";
          return FALSE;
        }

      if (TS_TRACE_FIELD_IS_WIDE (sk->types[f]))
        values[f] = pred[f] + ts_trace_unzigzag64 (z);
      else
        {
          if (z > G_MAXUINT32)
            {
              *what = "a 32-bit field holds a larger value";
              return FALSE;
            }
          values[f] = (guint32) ((guint32) pred[f] + ts_trace_unzigzag32 ((guint32) z));
        }

      if (f == sk->key)
        {
          if (values[f] >= self->string_map->len)
            {
              *bad_string = values[f];
              return FALSE;
            }
          if ((row = ts_trace_key_rows_lookup (&sk->keys, (guint32) values[f], self->frame_gen, n)) != NULL)
            {
              /* Fields up to the key keep the kind's predictions. */
              memcpy (values + n, pred, (f + 1) * sizeof (guint64));
              memcpy (values + n + f + 1, row + f + 1, (n - f - 1) * sizeof (guint64));
              pred = values + n;
            }
        }
    }

  *pp = p;
  memcpy (sk->prev, values, n * sizeof (guint64));
  if (sk->key != TS_TRACE_NO_KEY)
    ts_trace_key_rows_store (&sk->keys, (guint32) values[sk->key], self->frame_gen, n, row, values);

  return TRUE;
}

static gboolean
store_record (TsTraceReader  *self,
              guint64         offset,
              SchemaKind     *sk,
              const guint64  *values,
              GError        **error)
{
  TsRecordKind kind = sk->kind;
  const TsRecordInfo *info = ts_record_info (kind);
  g_autoptr(GError) local_error = NULL;
  guint8 *rec;

  if (self->batch_len > 0 && (self->batch_kind != kind || self->batch_len == BATCH_LEN))
    flush_batch (self);
  self->batch_kind = kind;
  /* Packed at the kind's struct size: the layout append_many takes. */
  rec = (guint8 *) self->batch + (gsize) self->batch_len * info->struct_size;
  memset (rec, 0, info->struct_size);

  for (guint f = 0; f < sk->n_known; f++)
    {
      if (TS_TRACE_FIELD_IS_WIDE (sk->types[f]))
        memcpy (rec + sk->offsets[f], &values[f], 8);
      else
        {
          guint32 v = (guint32) values[f];

          if (sk->types[f] == TS_FIELD_STRING)
            {
              if (v >= self->string_map->len)
                return fail (self, error, offset, TS_TRACE_READER_ERROR_CORRUPT,
                             "%s record in the frame at offset %" G_GUINT64_FORMAT ": string %" G_GUINT32_FORMAT " is used before its definition",
                             info->name, offset, v);
              v = g_array_index (self->string_map, guint32, v);
            }
          memcpy (rec + sk->offsets[f], &v, 4);
        }
    }

  if (!ts_record_validate (kind, rec, &local_error))
    return fail (self, error, offset, TS_TRACE_READER_ERROR_BAD_VALUE,
                 "Frame at offset %" G_GUINT64_FORMAT ": %s", offset, local_error->message);

  self->batch_len++;

  return TRUE;
}

static const char *
kind_name (const SchemaKind *sk)
{
  return sk->known ? ts_record_info (sk->kind)->name : "unknown kind";
}

static gboolean
parse_events (TsTraceReader  *self,
              guint64         offset,
              const guint8   *payload,
              guint32         len,
              GError        **error)
{
  const guint8 *p = payload;
  const guint8 *end = payload + len;
  guint32 n_strings = 0;
  guint32 *counts;
  const char *what = NULL;
  guint64 bad_string = 0;
  gboolean ok = TRUE;

  if (!self->have_schema)
    return fail (self, error, offset, TS_TRACE_READER_ERROR_CORRUPT,
                 "Events frame at offset %" G_GUINT64_FORMAT " comes before the schema", offset);

  /* Every frame starts from zero predictions. */
  self->frame_gen++;
  for (guint i = 0; i < self->n_kinds; i++)
    {
      memset (self->kinds[i].prev, 0, self->kinds[i].n_fields * sizeof (guint64));
      self->kinds[i].keys.n_rows = 0;
      self->kinds[i].count_frame = 0;
    }

  while (p < end)
    {
      guint64 tag;

      if (!get_varint (&p, end, &tag))
        {
          what = "a tag runs past its end";
          break;
        }

      if (tag == TS_TRACE_TAG_STRING)
        {
          guint64 slen;

          if (!get_varint (&p, end, &slen) || slen > (guint64) (end - p))
            {
              what = "a string runs past its end";
              break;
            }
          add_string (self, p, slen);
          p += slen;
          n_strings++;
        }
      else
        {
          SchemaKind *sk = find_kind (self, tag - 1);
          guint64 values[2 * TS_TRACE_MAX_WIRE_FIELDS];

          if (sk == NULL)
            {
              what = "a record of a kind the schema does not list";
              break;
            }
          if (!decode_fields (self, sk, &p, end, values, &what, &bad_string))
            {
              if (what == NULL)
                {
                  flush_batch (self);
                  return fail (self, error, offset, TS_TRACE_READER_ERROR_CORRUPT,
                               "%s record in the frame at offset %" G_GUINT64_FORMAT ": string %" G_GUINT64_FORMAT " is used before its definition",
                               kind_name (sk), offset, bad_string);
                }
              break;
            }
          sk->count_frame++;
          sk->count++;
          if (!sk->known)
            self->n_skipped++;
          else if (!store_record (self, offset, sk, values, error))
            {
              ok = FALSE;
              break;
            }
        }
    }

  flush_batch (self);

  if (!ok)
    return FALSE;
  if (what != NULL)
    return fail (self, error, offset, TS_TRACE_READER_ERROR_CORRUPT,
                 "Events frame at offset %" G_GUINT64_FORMAT " is corrupt: %s", offset, what);

  g_array_append_val (self->chunk_offsets, offset);
  g_array_set_size (self->chunk_counts, self->chunk_counts->len + 1 + self->n_kinds);
  counts = &g_array_index (self->chunk_counts, guint32, self->chunk_counts->len - 1 - self->n_kinds);
  counts[0] = n_strings;
  for (guint i = 0; i < self->n_kinds; i++)
    counts[1 + i] = self->kinds[i].count_frame;

  return TRUE;
}

/* The index footer's layout (docs/trace-format.md), checked for bounds
 * only: n_columns, n_chunks, and where the chunk table and trailer are. */
typedef struct
{
  guint32       n_columns;
  guint32       n_chunks;
  const guint8 *totals;    /* u64[n_columns] */
  const guint8 *chunks;    /* n_chunks entries of 8 + 4 n_columns bytes */
  gsize         entry_size;
  guint64       offset;    /* from the trailer */
} IndexView;

static const char *
index_view (const guint8 *payload,
            guint32       len,
            IndexView    *view)
{
  gsize need;

  if (len < 8 + TS_TRACE_TRAILER_SIZE)
    return "too short";

  view->n_columns = ts_trace_read_u32 (payload);
  view->n_chunks = ts_trace_read_u32 (payload + 4);
  view->entry_size = 8 + 4 * (gsize) view->n_columns;
  if (view->n_columns == 0 || view->n_columns > 1 + TS_TRACE_MAX_KIND + 1)
    return "a bad number of columns";
  if ((len - 8 - TS_TRACE_TRAILER_SIZE) / view->entry_size < view->n_chunks)
    return "its chunks run past its end";
  need = 8 + 8 * (gsize) view->n_columns + view->entry_size * view->n_chunks;
  need = ts_trace_align8 (need) + TS_TRACE_TRAILER_SIZE;
  if (need != len)
    return "its length does not match its entries";
  if (memcmp (payload + len - 8, TS_TRACE_INDEX_MAGIC, 8) != 0)
    return "bad trailer";

  view->totals = payload + 8;
  view->chunks = view->totals + 8 * (gsize) view->n_columns;
  view->offset = ts_trace_read_u64 (payload + len - TS_TRACE_TRAILER_SIZE);

  return NULL;
}

static gboolean
parse_index (TsTraceReader  *self,
             guint64         offset,
             const guint8   *payload,
             guint32         len,
             GError        **error)
{
  IndexView view;
  const char *problem;

#define CORRUPT_INDEX(what) \
  fail (self, error, offset, TS_TRACE_READER_ERROR_CORRUPT, \
        "The index footer at offset %" G_GUINT64_FORMAT " is corrupt: %s", offset, what)

  if ((problem = index_view (payload, len, &view)) != NULL)
    return CORRUPT_INDEX (problem);
  if (view.offset != offset)
    return CORRUPT_INDEX ("bad trailer");
  if (!self->have_schema || view.n_columns != 1 + self->n_kinds)
    return CORRUPT_INDEX ("its columns differ from the schema");
  if (view.n_chunks != self->chunk_offsets->len)
    return CORRUPT_INDEX ("its number of chunks differs from the frames");

  if (ts_trace_read_u64 (view.totals) != self->n_strings_total)
    return CORRUPT_INDEX ("its counts differ from the frames");
  for (guint i = 0; i < self->n_kinds; i++)
    if (ts_trace_read_u64 (view.totals + 8 * (1 + i)) != self->kinds[i].count)
      return CORRUPT_INDEX ("its counts differ from the frames");

  for (guint32 c = 0; c < view.n_chunks; c++)
    {
      const guint8 *entry = view.chunks + c * view.entry_size;
      const guint32 *counts = &g_array_index (self->chunk_counts, guint32, (gsize) c * view.n_columns);

      if (ts_trace_read_u64 (entry) != g_array_index (self->chunk_offsets, guint64, c))
        return CORRUPT_INDEX ("its chunk offsets differ from the frames");
      for (guint32 i = 0; i < view.n_columns; i++)
        if (ts_trace_read_u32 (entry + 8 + 4 * i) != counts[i])
          return CORRUPT_INDEX ("its chunk counts differ from the frames");
    }

#undef CORRUPT_INDEX

  self->complete = TRUE;

  return TRUE;
}

static gboolean
parse_frame (TsTraceReader  *self,
             guint64         offset,
             guint16         type,
             const guint8   *payload,
             guint32         len,
             GError        **error)
{
  switch (type)
    {
    case TS_TRACE_FRAME_EVENTS:
      return parse_events (self, offset, payload, len, error);

    case TS_TRACE_FRAME_SCHEMA:
      return parse_schema (self, offset, payload, len, error);

    case TS_TRACE_FRAME_INDEX:
      return parse_index (self, offset, payload, len, error);

    default:
      /* A frame type from a newer minor version. */
      self->n_skipped++;
      return TRUE;
    }
}

/* Parses whole frames from data, which starts at stream offset
 * self->offset, and advances self->offset past them. */
static gboolean
parse (TsTraceReader  *self,
       const guint8   *data,
       gsize           len,
       gboolean        at_eof,
       gsize          *consumed,
       GError        **error)
{
  gsize pos = 0;

  *consumed = 0;

  if (self->failure != NULL)
    {
      if (error != NULL)
        *error = g_error_copy (self->failure);
      return FALSE;
    }

  if (!self->have_header)
    {
      if (!parse_header (self, data, len, &pos, error))
        return FALSE;
      if (!self->have_header)
        return TRUE;
      self->offset += pos;
    }

  while (pos < len)
    {
      guint64 offset = self->offset;
      guint16 type;
      guint32 payload_len;
      gsize total;

      if (self->complete)
        return fail (self, error, offset, TS_TRACE_READER_ERROR_CORRUPT,
                     "Data after the index footer, at offset %" G_GUINT64_FORMAT, offset);

      if (len - pos < TS_TRACE_FRAME_HEADER_SIZE)
        break;

      type = ts_trace_read_u16 (data + pos);
      payload_len = ts_trace_read_u32 (data + pos + 4);

      if (payload_len > TS_TRACE_MAX_PAYLOAD)
        return fail (self, error, offset, TS_TRACE_READER_ERROR_CORRUPT,
                     "Frame at offset %" G_GUINT64_FORMAT " claims %u bytes, more than the %u a frame may hold",
                     offset, payload_len, TS_TRACE_MAX_PAYLOAD);

      total = TS_TRACE_FRAME_HEADER_SIZE + ts_trace_align8 (payload_len);
      if (len - pos < total)
        {
          if (at_eof && self->claims_complete)
            return fail (self, error, offset, TS_TRACE_READER_ERROR_CORRUPT,
                         "Frame at offset %" G_GUINT64_FORMAT " (%u bytes) runs past the end of the file",
                         offset, payload_len);
          break;
        }

      if (!parse_frame (self, offset, type, data + pos + TS_TRACE_FRAME_HEADER_SIZE, payload_len, error))
        return FALSE;

      pos += total;
      self->offset += total;
    }

  *consumed = pos;

  return TRUE;
}

static gboolean
finish (TsTraceReader  *self,
        gsize           leftover,
        GError        **error)
{
  if (self->failure != NULL)
    {
      if (error != NULL)
        *error = g_error_copy (self->failure);
      return FALSE;
    }

  self->finished = TRUE;

  if (!self->complete)
    {
      self->cut_short = TRUE;
      if (leftover > 0)
        self->bad_offset = self->offset;
    }

  return TRUE;
}

static void
ts_trace_reader_finalize (GObject *object)
{
  TsTraceReader *self = (TsTraceReader *) object;

  g_clear_object (&self->recorder);
  g_clear_pointer (&self->pending, g_byte_array_unref);
  g_clear_pointer (&self->string_map, g_array_unref);
  for (guint i = 0; i < self->n_kinds; i++)
    {
      ts_trace_key_rows_clear (&self->kinds[i].keys);
    }
  g_clear_pointer (&self->kinds, g_free);
  g_clear_pointer (&self->unknown_slots, g_hash_table_unref);
  g_clear_pointer (&self->chunk_offsets, g_array_unref);
  g_clear_pointer (&self->chunk_counts, g_array_unref);
  g_clear_pointer (&self->batch, g_free);
  g_clear_error (&self->failure);

  G_OBJECT_CLASS (ts_trace_reader_parent_class)->finalize (object);
}

static void
ts_trace_reader_class_init (TsTraceReaderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ts_trace_reader_finalize;
}

static void
ts_trace_reader_init (TsTraceReader *self)
{
  guint32 none = 0;

  self->bad_offset = -1;
  self->pending = g_byte_array_new ();
  self->string_map = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_array_append_val (self->string_map, none);
  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    self->kind_slot[k] = -1;
  self->chunk_offsets = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->chunk_counts = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->batch = g_new (guint64, (gsize) BATCH_LEN * (TS_RECORD_MAX_SIZE / 8));
}

TsTraceReader *
ts_trace_reader_new (TsRecorder *recorder)
{
  TsTraceReader *self;

  g_return_val_if_fail (TS_IS_RECORDER (recorder), NULL);

  self = g_object_new (TS_TYPE_TRACE_READER, NULL);
  self->recorder = g_object_ref (recorder);

  return self;
}

static gboolean
check_fresh (TsTraceReader  *self,
             GError        **error)
{
  if (self->finished || self->failure != NULL || self->offset != 0 || self->pending->len != 0)
    {
      g_set_error_literal (error, TS_TRACE_READER_ERROR, TS_TRACE_READER_ERROR_FAILED,
                           "The trace reader was already used");
      return FALSE;
    }

  return TRUE;
}

gboolean
ts_trace_is_gzip (const guint8 *data,
                  gsize         len)
{
  return len >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

GBytes *
ts_trace_gunzip (const guint8  *data,
                 gsize          len,
                 GError       **error)
{
  g_autoptr(GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr(GByteArray) out = g_byte_array_sized_new (0);
  gsize in_pos = 0, filled = 0;

  g_byte_array_set_size (out, (guint) CLAMP (len * 4, 4096, G_MAXUINT / 2));
  while (in_pos < len)
    {
      g_autoptr(GError) local_error = NULL;
      gsize n_read = 0, n_written = 0;
      GConverterResult r;

      if (out->len - filled < 65536)
        {
          if (out->len > G_MAXUINT / 2)
            {
              g_set_error_literal (error, TS_TRACE_READER_ERROR, TS_TRACE_READER_ERROR_CORRUPT,
                                   "The gzip'd trace inflates to more than 2 GiB: gunzip it first");
              return NULL;
            }
          g_byte_array_set_size (out, out->len * 2);
        }
      r = g_converter_convert (G_CONVERTER (z), data + in_pos, len - in_pos, out->data + filled,
                               out->len - filled, G_CONVERTER_INPUT_AT_END, &n_read, &n_written, &local_error);
      in_pos += n_read;
      filled += n_written;
      if (r == G_CONVERTER_ERROR && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NO_SPACE))
        continue;
      if (r == G_CONVERTER_ERROR && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT))
        break;   /* cut short: what it holds */
      if (r == G_CONVERTER_ERROR)
        {
          g_set_error (error, TS_TRACE_READER_ERROR, TS_TRACE_READER_ERROR_CORRUPT,
                       "The gzip'd trace is damaged at byte %" G_GSIZE_FORMAT ": %s", in_pos,
                       local_error->message);
          return NULL;
        }
      if (r == G_CONVERTER_FINISHED)
        g_converter_reset (G_CONVERTER (z));
      else if (n_read == 0 && n_written == 0)
        break;
    }
  g_byte_array_set_size (out, (guint) filled);
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}

gboolean
ts_trace_reader_load_data (TsTraceReader  *self,
                           const guint8   *data,
                           gsize           len,
                           GError        **error)
{
  gsize consumed;
  g_autoptr(GBytes) inflated = NULL;

  g_return_val_if_fail (TS_IS_TRACE_READER (self), FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_fresh (self, error))
    return FALSE;
  if (ts_trace_is_gzip (data, len))
    {
      if ((inflated = ts_trace_gunzip (data, len, error)) == NULL)
        return FALSE;
      data = g_bytes_get_data (inflated, &len);
    }

  /* A whole file that ends in the index trailer says it is complete: a
   * frame running past its end is then corruption, not a cut. */
  self->claims_complete =
    len >= TS_TRACE_HEADER_SIZE + TS_TRACE_TRAILER_SIZE &&
    memcmp (data + len - 8, TS_TRACE_INDEX_MAGIC, 8) == 0;

  if (!parse (self, data, len, TRUE, &consumed, error))
    return FALSE;

  return finish (self, len - consumed, error);
}

/* The file mapped for reading, or NULL with a TS_TRACE_READER_ERROR_IO
 * that carries the system's message. */
static GMappedFile *
map_file (const char  *path,
          GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  GMappedFile *mapped = g_mapped_file_new (path, FALSE, &local_error);

  if (mapped == NULL)
    g_set_error (error, TS_TRACE_READER_ERROR, TS_TRACE_READER_ERROR_IO, "%s", local_error->message);
  return mapped;
}

gboolean
ts_trace_reader_load_file (TsTraceReader  *self,
                           const char     *path,
                           GError        **error)
{
  g_autoptr(GMappedFile) mapped = NULL;

  g_return_val_if_fail (TS_IS_TRACE_READER (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!(mapped = map_file (path, error)))
    return FALSE;

  return ts_trace_reader_load_data (self,
                                    (const guint8 *) g_mapped_file_get_contents (mapped),
                                    g_mapped_file_get_length (mapped),
                                    error);
}

gboolean
ts_trace_reader_feed (TsTraceReader  *self,
                      const guint8   *data,
                      gsize           len,
                      GError        **error)
{
  gsize consumed;

  g_return_val_if_fail (TS_IS_TRACE_READER (self), FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->finished)
    {
      g_set_error_literal (error, TS_TRACE_READER_ERROR, TS_TRACE_READER_ERROR_FAILED,
                           "The trace reader has finished");
      return FALSE;
    }

  if (self->pending->len == 0)
    {
      /* The common case for big chunks: parse in place, keep the tail. */
      if (!parse (self, data, len, FALSE, &consumed, error))
        return FALSE;
      g_byte_array_append (self->pending, data + consumed, len - consumed);
      return TRUE;
    }

  g_byte_array_append (self->pending, data, len);
  if (!parse (self, self->pending->data, self->pending->len, FALSE, &consumed, error))
    return FALSE;
  g_byte_array_remove_range (self->pending, 0, consumed);

  return TRUE;
}

gboolean
ts_trace_reader_finish (TsTraceReader  *self,
                        GError        **error)
{
  g_return_val_if_fail (TS_IS_TRACE_READER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->finished)
    return TRUE;

  return finish (self, self->pending->len, error);
}

guint
ts_trace_reader_get_major (TsTraceReader *self)
{
  g_return_val_if_fail (TS_IS_TRACE_READER (self), 0);
  return self->major;
}

guint
ts_trace_reader_get_minor (TsTraceReader *self)
{
  g_return_val_if_fail (TS_IS_TRACE_READER (self), 0);
  return self->minor;
}

gboolean
ts_trace_reader_get_cut_short (TsTraceReader *self)
{
  g_return_val_if_fail (TS_IS_TRACE_READER (self), FALSE);
  return self->cut_short;
}

gboolean
ts_trace_reader_get_complete (TsTraceReader *self)
{
  g_return_val_if_fail (TS_IS_TRACE_READER (self), FALSE);
  return self->complete;
}

gint64
ts_trace_reader_get_bad_offset (TsTraceReader *self)
{
  g_return_val_if_fail (TS_IS_TRACE_READER (self), -1);
  return self->bad_offset;
}

guint64
ts_trace_reader_get_offset (TsTraceReader *self)
{
  g_return_val_if_fail (TS_IS_TRACE_READER (self), 0);
  return self->offset;
}

guint64
ts_trace_reader_get_n_skipped (TsTraceReader *self)
{
  g_return_val_if_fail (TS_IS_TRACE_READER (self), 0);
  return self->n_skipped;
}

guint64
ts_trace_reader_get_n_records (TsTraceReader *self)
{
  g_return_val_if_fail (TS_IS_TRACE_READER (self), 0);
  return self->n_records;
}

TsRecorder *
ts_trace_load (const char  *path,
               gboolean    *cut_short,
               GError     **error)
{
  g_autoptr(TsRecorder) recorder = NULL;
  g_autoptr(TsTraceReader) reader = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  recorder = ts_recorder_new ();
  reader = ts_trace_reader_new (recorder);

  if (!ts_trace_reader_load_file (reader, path, error))
    return NULL;

  if (cut_short != NULL)
    *cut_short = ts_trace_reader_get_cut_short (reader);

  return g_steal_pointer (&recorder);
}

/* Reads the header and the schema at the start of data into self. */
static gboolean
summary_read_schema (TsTraceReader  *self,
                     const guint8   *data,
                     gsize           len,
                     gsize          *schema_end)
{
  gsize pos;

  if (!parse_header (self, data, len, &pos, NULL) || !self->have_header)
    return FALSE;

  while (!self->have_schema)
    {
      guint32 payload_len;
      gsize total;

      if (len - pos < TS_TRACE_FRAME_HEADER_SIZE)
        return FALSE;
      payload_len = ts_trace_read_u32 (data + pos + 4);
      if (payload_len > TS_TRACE_MAX_PAYLOAD)
        return FALSE;
      total = TS_TRACE_FRAME_HEADER_SIZE + ts_trace_align8 (payload_len);
      if (len - pos < total)
        return FALSE;
      if (ts_trace_read_u16 (data + pos) == TS_TRACE_FRAME_SCHEMA &&
          !parse_schema (self, pos, data + pos + TS_TRACE_FRAME_HEADER_SIZE, payload_len, NULL))
        return FALSE;
      if (ts_trace_read_u16 (data + pos) == TS_TRACE_FRAME_EVENTS)
        return FALSE;
      pos += total;
    }

  *schema_end = pos;

  return TRUE;
}

/* The counts of a complete file, from its index footer alone: the header
 * and schema at the start, the footer at the end, and the frame header of
 * each chunk it lists (to check it is one). FALSE if anything is off. */
static gboolean
summary_from_index (const guint8   *data,
                    gsize           len,
                    TsTraceSummary *summary)
{
  g_autoptr(TsRecorder) scratch = ts_recorder_new ();
  g_autoptr(TsTraceReader) self = ts_trace_reader_new (scratch);
  guint64 at, prev_chunk;
  gsize schema_end;
  guint32 payload_len;
  IndexView view;

  if (len < TS_TRACE_HEADER_SIZE + TS_TRACE_TRAILER_SIZE ||
      memcmp (data + len - 8, TS_TRACE_INDEX_MAGIC, 8) != 0 ||
      !summary_read_schema (self, data, len, &schema_end))
    return FALSE;

  at = ts_trace_read_u64 (data + len - TS_TRACE_TRAILER_SIZE);
  if (at < schema_end || at > len - TS_TRACE_FRAME_HEADER_SIZE - TS_TRACE_TRAILER_SIZE ||
      ts_trace_read_u16 (data + at) != TS_TRACE_FRAME_INDEX)
    return FALSE;
  payload_len = ts_trace_read_u32 (data + at + 4);
  if (at + TS_TRACE_FRAME_HEADER_SIZE + payload_len != len ||
      index_view (data + at + TS_TRACE_FRAME_HEADER_SIZE, payload_len, &view) != NULL ||
      view.offset != at || view.n_columns != 1 + self->n_kinds)
    return FALSE;

  /* The per-chunk counts must add up to the totals, the chunks must be
   * events frames, in order, between the schema and the index. */
  prev_chunk = schema_end;
  for (guint32 c = 0; c < view.n_chunks; c++)
    {
      const guint8 *entry = view.chunks + c * view.entry_size;
      guint64 offset = ts_trace_read_u64 (entry);

      if (offset < prev_chunk || offset > at - TS_TRACE_FRAME_HEADER_SIZE ||
          offset % 8 != 0 || ts_trace_read_u16 (data + offset) != TS_TRACE_FRAME_EVENTS)
        return FALSE;
      prev_chunk = offset + TS_TRACE_FRAME_HEADER_SIZE;
    }

  memset (summary, 0, sizeof *summary);
  for (guint32 i = 0; i < view.n_columns; i++)
    {
      guint64 total = ts_trace_read_u64 (view.totals + 8 * i);
      guint64 sum = 0;

      for (guint32 c = 0; c < view.n_chunks; c++)
        sum += ts_trace_read_u32 (view.chunks + c * view.entry_size + 8 + 4 * i);
      if (sum != total)
        return FALSE;

      if (i == 0)
        summary->n_strings = total;
      else if (self->kinds[i - 1].known)
        summary->n_records[self->kinds[i - 1].kind] = total;
      else
        summary->n_other_records += total;
    }

  summary->major = self->major;
  summary->minor = self->minor;
  summary->complete = TRUE;
  summary->from_index = TRUE;
  summary->n_chunks = view.n_chunks;

  return TRUE;
}

gboolean
ts_trace_read_summary (const char      *path,
                       TsTraceSummary  *summary,
                       GError         **error)
{
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(TsRecorder) recorder = NULL;
  g_autoptr(TsTraceReader) reader = NULL;
  g_autoptr(GBytes) inflated = NULL;
  const guint8 *data;
  gsize len;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (summary != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!(mapped = map_file (path, error)))
    return FALSE;

  data = (const guint8 *) g_mapped_file_get_contents (mapped);
  len = g_mapped_file_get_length (mapped);
  if (ts_trace_is_gzip (data, len))
    {
      if ((inflated = ts_trace_gunzip (data, len, error)) == NULL)
        return FALSE;
      data = g_bytes_get_data (inflated, &len);
    }

  if (summary_from_index (data, len, summary))
    return TRUE;

  /* No usable index (a cut-short file, or a damaged one): decode it all,
   * which also says what is wrong when something is. */
  recorder = ts_recorder_new ();
  reader = ts_trace_reader_new (recorder);
  if (!ts_trace_reader_load_data (reader, data, len, error))
    return FALSE;

  memset (summary, 0, sizeof *summary);
  summary->major = reader->major;
  summary->minor = reader->minor;
  summary->complete = reader->complete;
  summary->cut_short = reader->cut_short;
  summary->n_strings = reader->n_strings_total;
  for (guint i = 0; i < reader->n_kinds; i++)
    {
      if (reader->kinds[i].known)
        summary->n_records[reader->kinds[i].kind] = reader->kinds[i].count;
      else
        summary->n_other_records += reader->kinds[i].count;
    }
  summary->n_chunks = reader->chunk_offsets->len;

  return TRUE;
}
