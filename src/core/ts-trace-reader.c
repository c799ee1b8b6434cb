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
 * The parser trusts nothing: every length is checked against the bytes
 * there are before it is used, string ids must be defined before use,
 * enum fields must hold values a producer can write, and the index footer
 * must agree with the frames. The first problem stops loading with a
 * GError naming the offset of the frame; what came before stays loaded.
 * Unknown frame types, and unknown record kinds, are skipped and counted:
 * that is how newer minor versions stay readable.
 */

#include "config.h"

#include <string.h>

#include "ts-trace-format-private.h"
#include "ts-trace-reader.h"

#define N_INDEX_ENTRIES (1 + TS_N_RECORD_KINDS)

struct _TsTraceReader
{
  GObject     parent_instance;

  TsRecorder *recorder;

  guint       major;
  guint       minor;
  gboolean    have_header;
  gboolean    complete;          /* the index footer was read */
  gboolean    cut_short;
  gboolean    finished;
  gboolean    claims_complete;   /* a whole file ending in the index trailer */
  GError     *failure;           /* set once loading failed */

  guint64     offset;            /* stream offset of the first unparsed byte */
  gint64      bad_offset;
  GByteArray *pending;           /* fed bytes not parsed yet */

  GArray     *string_map;        /* guint32: file string id -> recorder id */

  guint64     counts[N_INDEX_ENTRIES];
  GArray     *chunks[N_INDEX_ENTRIES];  /* guint64 offsets, as the writer's index */
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
note_frame (TsTraceReader *self,
            guint          entry,
            guint64        offset)
{
  if (self->counts[entry] % TS_TRACE_INDEX_CHUNK == 0)
    g_array_append_val (self->chunks[entry], offset);
  self->counts[entry]++;
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

  if (memcmp (data, TS_TRACE_MAGIC, MIN (len, TS_TRACE_MAGIC_LEN)) != 0)
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

static gboolean
parse_string (TsTraceReader  *self,
              guint64         offset,
              const guint8   *payload,
              guint32         len,
              GError        **error)
{
  guint32 id, expected, mapped;

  if (len < 4)
    return fail (self, error, offset, TS_TRACE_READER_ERROR_CORRUPT,
                 "String frame at offset %" G_GUINT64_FORMAT " is too short (%u bytes)", offset, len);

  id = ts_trace_read_u32 (payload);
  expected = self->string_map->len;
  if (id != expected)
    return fail (self, error, offset, TS_TRACE_READER_ERROR_CORRUPT,
                 "String frame at offset %" G_GUINT64_FORMAT " defines string %u, expected %u",
                 offset, id, expected);

  mapped = ts_recorder_intern_len (self->recorder, (const char *) payload + 4, len - 4);
  g_array_append_val (self->string_map, mapped);
  note_frame (self, 0, offset);

  return TRUE;
}

static gboolean
parse_record (TsTraceReader  *self,
              guint64         offset,
              TsRecordKind    kind,
              const guint8   *payload,
              guint32         len,
              GError        **error)
{
  const TsRecordInfo *info = ts_record_info (kind);
  guint64 record[TS_RECORD_MAX_SIZE / 8];
  guint8 *bytes = (guint8 *) record;
  g_autoptr(GError) local_error = NULL;

  if (len % 4 != 0)
    return fail (self, error, offset, TS_TRACE_READER_ERROR_CORRUPT,
                 "Record frame at offset %" G_GUINT64_FORMAT " has a length of %u, not a multiple of 4",
                 offset, len);

#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  if (len >= info->struct_size)
    memcpy (record, payload, info->struct_size);
  else
#endif
    {
      /* Fields the payload lacks (an older writer) read as zeros; extra
       * bytes (a newer writer's fields) are ignored. */
      memset (record, 0, info->struct_size);
      for (guint f = 0; f < info->n_fields; f++)
        {
          const TsFieldInfo *fi = &info->fields[f];

          if (fi->offset + fi->size > len)
            break;
          if (fi->size == 8)
            {
              guint64 v = ts_trace_read_u64 (payload + fi->offset);
              memcpy (bytes + fi->offset, &v, 8);
            }
          else
            {
              guint32 v = ts_trace_read_u32 (payload + fi->offset);
              memcpy (bytes + fi->offset, &v, 4);
            }
        }
    }

  for (guint f = 0; f < info->n_fields; f++)
    {
      const TsFieldInfo *fi = &info->fields[f];
      guint32 *value = (guint32 *) (bytes + fi->offset);

      if (fi->type == TS_FIELD_PAD)
        *value = 0;
      else if (fi->type == TS_FIELD_STRING)
        {
          if (*value >= self->string_map->len)
            return fail (self, error, offset, TS_TRACE_READER_ERROR_CORRUPT,
                         "%s record at offset %" G_GUINT64_FORMAT ": string %u of field “%s” is used before its definition",
                         info->name, offset, *value, fi->name);
          *value = g_array_index (self->string_map, guint32, *value);
        }
    }

  if (!ts_record_validate (kind, record, &local_error))
    return fail (self, error, offset, TS_TRACE_READER_ERROR_BAD_VALUE,
                 "Frame at offset %" G_GUINT64_FORMAT ": %s", offset, local_error->message);

  ts_recorder_append (self->recorder, kind, record);
  note_frame (self, 1 + kind, offset);
  self->n_records++;

  return TRUE;
}

static gboolean
parse_index (TsTraceReader  *self,
             guint64         offset,
             const guint8   *payload,
             guint32         len,
             GError        **error)
{
  const guint8 *p = payload;
  const guint8 *end = payload + len;
  guint32 n_entries, chunk;
  gboolean seen[N_INDEX_ENTRIES] = { 0 };

#define CORRUPT_INDEX(what) \
  fail (self, error, offset, TS_TRACE_READER_ERROR_CORRUPT, \
        "The index footer at offset %" G_GUINT64_FORMAT " is corrupt: %s", offset, what)

  if (len < 8 + TS_TRACE_TRAILER_SIZE)
    return CORRUPT_INDEX ("too short");

  n_entries = ts_trace_read_u32 (p);
  chunk = ts_trace_read_u32 (p + 4);
  p += 8;
  if (chunk == 0)
    return CORRUPT_INDEX ("zero chunk length");

  for (guint32 e = 0; e < n_entries; e++)
    {
      guint16 type;
      guint32 n_chunks;
      guint64 count;
      gint entry = -1;

      if ((gsize) (end - p) < 16 + TS_TRACE_TRAILER_SIZE)
        return CORRUPT_INDEX ("entries run past its end");

      type = ts_trace_read_u16 (p);
      n_chunks = ts_trace_read_u32 (p + 4);
      count = ts_trace_read_u64 (p + 8);
      p += 16;

      if ((gsize) (end - p - TS_TRACE_TRAILER_SIZE) / 8 < n_chunks)
        return CORRUPT_INDEX ("chunk offsets run past its end");

      if (type == TS_TRACE_FRAME_STRING)
        entry = 0;
      else if (type >= TS_TRACE_FRAME_RECORD && type < TS_TRACE_FRAME_RECORD + TS_N_RECORD_KINDS)
        entry = 1 + type - TS_TRACE_FRAME_RECORD;

      if (entry >= 0)
        {
          if (seen[entry])
            return CORRUPT_INDEX ("a frame type is listed twice");
          seen[entry] = TRUE;

          if (count != self->counts[entry])
            return CORRUPT_INDEX ("its counts differ from the frames");
          if (n_chunks != (count + chunk - 1) / chunk)
            return CORRUPT_INDEX ("its number of chunks does not match its count");
          if (chunk == TS_TRACE_INDEX_CHUNK)
            for (guint32 c = 0; c < n_chunks; c++)
              if (ts_trace_read_u64 (p + 8 * c) != g_array_index (self->chunks[entry], guint64, c))
                return CORRUPT_INDEX ("its chunk offsets differ from the frames");
        }

      p += 8 * (gsize) n_chunks;
    }

  /* A type the index leaves out must have no frames. */
  for (guint e = 0; e < N_INDEX_ENTRIES; e++)
    if (!seen[e] && self->counts[e] != 0)
      return CORRUPT_INDEX ("a frame type with frames is missing");

  if (end - p != TS_TRACE_TRAILER_SIZE)
    return CORRUPT_INDEX ("its length does not match its entries");
  if (ts_trace_read_u64 (p) != offset || memcmp (p + 8, TS_TRACE_INDEX_MAGIC, 8) != 0)
    return CORRUPT_INDEX ("bad trailer");

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
  if (type == TS_TRACE_FRAME_STRING)
    return parse_string (self, offset, payload, len, error);

  if (type == TS_TRACE_FRAME_INDEX)
    return parse_index (self, offset, payload, len, error);

  if (type >= TS_TRACE_FRAME_RECORD && type < TS_TRACE_FRAME_RECORD + TS_N_RECORD_KINDS)
    return parse_record (self, offset, type - TS_TRACE_FRAME_RECORD, payload, len, error);

  /* A frame type (or record kind) from a newer minor version. */
  self->n_skipped++;

  return TRUE;
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
  for (guint e = 0; e < N_INDEX_ENTRIES; e++)
    g_clear_pointer (&self->chunks[e], g_array_unref);
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
  for (guint e = 0; e < N_INDEX_ENTRIES; e++)
    self->chunks[e] = g_array_new (FALSE, FALSE, sizeof (guint64));
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
ts_trace_reader_load_data (TsTraceReader  *self,
                           const guint8   *data,
                           gsize           len,
                           GError        **error)
{
  gsize consumed;

  g_return_val_if_fail (TS_IS_TRACE_READER (self), FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_fresh (self, error))
    return FALSE;

  /* A whole file that ends in the index trailer says it is complete: a
   * frame running past its end is then corruption, not a cut. */
  self->claims_complete =
    len >= TS_TRACE_HEADER_SIZE + TS_TRACE_TRAILER_SIZE &&
    memcmp (data + len - 8, TS_TRACE_INDEX_MAGIC, 8) == 0;

  if (!parse (self, data, len, TRUE, &consumed, error))
    return FALSE;

  return finish (self, len - consumed, error);
}

gboolean
ts_trace_reader_load_file (TsTraceReader  *self,
                           const char     *path,
                           GError        **error)
{
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (TS_IS_TRACE_READER (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!(mapped = g_mapped_file_new (path, FALSE, &local_error)))
    {
      g_set_error (error, TS_TRACE_READER_ERROR, TS_TRACE_READER_ERROR_IO,
                   "%s", local_error->message);
      return FALSE;
    }

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
