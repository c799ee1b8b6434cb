/* test-trace-file.c: the trace file format, written and read back
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "ts-trace-format-private.h"
#include "ts-hazards.h"
#include "ts-trace-reader.h"
#include "ts-trace-writer.h"
#include "test-records.h"

#define N_STRINGS 40

/* A record whose string fields name strings that exist (1..N_STRINGS). */
static void
fill_valid_record (TsRecordKind  kind,
                   guint64       seed,
                   void         *out)
{
  const TsRecordInfo *info = ts_record_info (kind);

  fill_record (kind, seed, out);
  for (guint f = 0; f < info->n_fields; f++)
    if (info->fields[f].type == TS_FIELD_STRING)
      {
        guint32 *v = (guint32 *) ((guint8 *) out + info->fields[f].offset);
        *v %= N_STRINGS + 1;
      }
}

static void
intern_strings (TsRecorder *recorder)
{
  for (guint i = 1; i <= N_STRINGS; i++)
    {
      g_autofree char *s = g_strdup_printf ("string %u%s", i, i % 5 == 0 ? " with a longer tail" : "");
      g_assert_cmpuint (ts_recorder_intern (recorder, s), ==, i);
    }
}

/* Every kind, n of each, interleaved. */
static TsRecorder *
make_recorder (guint n)
{
  TsRecorder *recorder = ts_recorder_new ();

  intern_strings (recorder);
  for (guint i = 0; i < n; i++)
    for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
      {
        guint64 rec[TS_RECORD_MAX_SIZE / 8];
        fill_valid_record (k, i * 17 + k, rec);
        ts_recorder_append (recorder, k, rec);
      }

  return recorder;
}

static void
assert_recorders_equal (TsRecorder *a,
                        TsRecorder *b)
{
  g_assert_cmpuint (ts_recorder_get_n_strings (a), ==, ts_recorder_get_n_strings (b));
  for (guint id = 1; id <= ts_recorder_get_n_strings (a); id++)
    g_assert_cmpstr (ts_recorder_lookup (a, id), ==, ts_recorder_lookup (b, id));

  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    {
      gsize n = ts_recorder_get_count (a, k);
      gsize size = ts_record_info (k)->struct_size;

      g_assert_cmpuint (ts_recorder_get_count (b, k), ==, n);
      for (gsize i = 0; i < n; i++)
        {
          guint64 ra[TS_RECORD_MAX_SIZE / 8], rb[TS_RECORD_MAX_SIZE / 8];
          g_assert_true (ts_recorder_get (a, k, i, ra));
          g_assert_true (ts_recorder_get (b, k, i, rb));
          g_assert_cmpmem (ra, size, rb, size);
        }
    }
}

/* A writer attached to @recorder, writing to a fresh temporary file
 * (*path, the caller's to free and unlink) */
static TsTraceWriter *
attached_writer (TsRecorder  *recorder,
                 char       **path)
{
  g_autoptr(GError) error = NULL;
  TsTraceWriter *writer;
  int fd = g_file_open_tmp ("test-trace-XXXXXX", path, &error);

  g_assert_no_error (error);
  close (fd);
  writer = ts_trace_writer_new_for_path (*path, &error);
  g_assert_no_error (error);
  g_assert_true (ts_trace_writer_attach (writer, recorder, &error));
  g_assert_no_error (error);
  return writer;
}

static GBytes *
write_to_bytes (TsRecorder *recorder)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTraceWriter) writer = NULL;
  g_autofree char *path = NULL;
  char *contents;
  gsize len;
  int fd;

  fd = g_file_open_tmp ("test-trace-XXXXXX", &path, &error);
  g_assert_no_error (error);
  close (fd);

  writer = ts_trace_writer_new_for_path (path, &error);
  g_assert_no_error (error);
  g_assert_true (ts_trace_writer_attach (writer, recorder, &error));
  g_assert_no_error (error);
  g_assert_true (ts_trace_writer_close (writer, &error));
  g_assert_no_error (error);

  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (len, ==, ts_trace_writer_get_offset (writer));
  g_unlink (path);

  return g_bytes_new_take (contents, len);
}

static void
test_round_trip (void)
{
  g_autoptr(TsRecorder) recorder = make_recorder (300);
  g_autoptr(TsRecorder) loaded = NULL;
  g_autoptr(TsTraceWriter) writer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) again = NULL;
  g_autoptr(GBytes) expected_bytes = NULL;
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  gsize len;
  gboolean cut_short = TRUE;
  int fd;

  fd = g_file_open_tmp ("test-trace-XXXXXX", &path, &error);
  g_assert_no_error (error);
  close (fd);

  /* Attach halfway: the writer gets a replay, then live appends. */
  writer = ts_trace_writer_new_for_path (path, &error);
  g_assert_no_error (error);
  g_assert_true (ts_trace_writer_attach (writer, recorder, &error));
  for (guint i = 300; i < 600; i++)
    for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
      {
        guint64 rec[TS_RECORD_MAX_SIZE / 8];
        fill_valid_record (k, i * 17 + k, rec);
        ts_recorder_append (recorder, k, rec);
      }
  g_assert_true (ts_trace_writer_close (writer, &error));
  g_assert_no_error (error);

  /* Closing twice is refused, politely. */
  g_assert_false (ts_trace_writer_close (writer, &error));
  g_assert_error (error, TS_TRACE_WRITER_ERROR, TS_TRACE_WRITER_ERROR_CLOSED);
  g_clear_error (&error);

  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (len, ==, ts_trace_writer_get_offset (writer));

  loaded = ts_trace_load (path, &cut_short, &error);
  g_assert_no_error (error);
  g_assert_nonnull (loaded);
  g_assert_false (cut_short);
  assert_recorders_equal (recorder, loaded);

  /* The index footer alone gives the counts. */
  {
    TsTraceSummary summary;

    g_assert_true (ts_trace_read_summary (path, &summary, &error));
    g_assert_no_error (error);
    g_assert_true (summary.from_index);
    g_assert_true (summary.complete);
    g_assert_false (summary.cut_short);
    g_assert_cmpuint (summary.major, ==, TS_TRACE_MAJOR);
    g_assert_cmpuint (summary.n_strings, ==, N_STRINGS);
    for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
      g_assert_cmpuint (summary.n_records[k], ==, 600);
    g_assert_cmpuint (summary.n_other_records, ==, 0);
    /* At least one frame for the replay, one per 64 KiB after it. */
    g_assert_cmpuint (summary.n_chunks, >=, 1 + (len - TS_TRACE_CHUNK_TARGET) / (TS_TRACE_CHUNK_TARGET + 512));
  }

  /* Determinism: the same content written the same way (a full replay)
   * gives the same bytes. */
  again = write_to_bytes (loaded);
  expected_bytes = write_to_bytes (recorder);
  g_assert_cmpmem (g_bytes_get_data (again, NULL), g_bytes_get_size (again),
                   g_bytes_get_data (expected_bytes, NULL), g_bytes_get_size (expected_bytes));

  g_unlink (path);
}

/* Offsets where each frame ends, walking a valid file. */
static GArray *
frame_ends (const guint8 *data,
            gsize         len)
{
  GArray *ends = g_array_new (FALSE, FALSE, sizeof (gsize));
  gsize pos = TS_TRACE_HEADER_SIZE;

  while (pos < len)
    {
      pos += 8 + ts_trace_align8 (ts_trace_read_u32 (data + pos + 4));
      g_array_append_val (ends, pos);
    }
  g_assert_cmpuint (pos, ==, len);

  return ends;
}

/* Writes events through a writer attached from the start, flushing after
 * each one given in flush_after, so the test knows what each frame holds. */
static void
test_truncation_everywhere (void)
{
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  g_autoptr(TsTraceWriter) writer = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GArray) ends = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  /* What each frame holds: schema, 9 frames of one event, one of three
   * records, the index. */
  static const guint frame_records[] = { 0, 0, 1, 0, 0, 1, 1, 1, 1, 1, 3, 0 };
  static const guint frame_strings[] = { 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0 };
  g_autofree guint8 *window = NULL;
  const guint8 *data;
  gsize len;
  int fd;

  fd = g_file_open_tmp ("test-trace-XXXXXX", &path, &error);
  g_assert_no_error (error);
  close (fd);
  writer = ts_trace_writer_new_for_path (path, &error);
  g_assert_true (ts_trace_writer_attach (writer, recorder, &error));

  ts_recorder_intern (recorder, "gemm");
  g_assert_true (ts_trace_writer_flush (writer, &error));
  for (guint k = 0; k < TS_N_RECORD_KINDS; k += 3)
    {
      guint64 rec[TS_RECORD_MAX_SIZE / 8];
      fill_record (k, k, rec);
      for (guint f = 0; f < ts_record_info (k)->n_fields; f++)
        if (ts_record_info (k)->fields[f].type == TS_FIELD_STRING)
          *(guint32 *) ((guint8 *) rec + ts_record_info (k)->fields[f].offset) =
            k == 0 ? 1 : 1 + (f + k) % 3;
      if (k == 3)
        {
          ts_recorder_intern (recorder, "cudaLaunchKernel");
          g_assert_true (ts_trace_writer_flush (writer, &error));
          ts_recorder_intern (recorder, "a string that is 31 bytes long");
          g_assert_true (ts_trace_writer_flush (writer, &error));
        }
      ts_recorder_append (recorder, k, rec);
      g_assert_true (ts_trace_writer_flush (writer, &error));
    }
  /* Three kernels in one frame: a cut inside loses all three. */
  for (guint i = 0; i < 3; i++)
    {
      TsKernelRecord kr = { .start = 1000 + i * 10, .end = 1005 + i * 10, .name = 1, .grid = { 4, 1, 1 } };
      ts_recorder_append (recorder, TS_RECORD_KERNEL, &kr);
    }
  g_assert_true (ts_trace_writer_close (writer, &error));
  g_assert_no_error (error);

  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  g_unlink (path);
  bytes = g_bytes_new (contents, len);
  data = g_bytes_get_data (bytes, &len);
  ends = frame_ends (data, len);
  g_assert_cmpuint (ends->len, ==, G_N_ELEMENTS (frame_records));
  window = g_malloc (len);

  for (gsize cut = 0; cut <= len; cut++)
    {
      g_autoptr(TsRecorder) loaded = ts_recorder_new ();
      g_autoptr(TsTraceReader) reader = ts_trace_reader_new (loaded);
      /* The prefix ends where the block ends, so ASan sees any overread,
       * without a fresh allocation per offset. */
      guint8 *copy = window + len - cut;
      guint records = 0, strings = 0;
      gsize last_end = TS_TRACE_HEADER_SIZE;

      memmove (copy, data, cut);
      g_clear_error (&error);
      for (guint f = 0; f < ends->len; f++)
        if (g_array_index (ends, gsize, f) <= cut)
          {
            records += frame_records[f];
            strings += frame_strings[f];
            last_end = g_array_index (ends, gsize, f);
          }

      g_assert_true (ts_trace_reader_load_data (reader, copy, cut, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (ts_trace_reader_get_n_records (reader), ==, records);
      g_assert_cmpuint (ts_recorder_get_n_strings (loaded), ==, strings);

      if (cut == len)
        {
          g_assert_false (ts_trace_reader_get_cut_short (reader));
          g_assert_true (ts_trace_reader_get_complete (reader));
          g_assert_cmpint (ts_trace_reader_get_bad_offset (reader), ==, -1);
          assert_recorders_equal (recorder, loaded);
        }
      else
        {
          g_assert_true (ts_trace_reader_get_cut_short (reader));
          g_assert_false (ts_trace_reader_get_complete (reader));
          if (cut < TS_TRACE_HEADER_SIZE)
            g_assert_cmpuint (ts_trace_reader_get_offset (reader), ==, 0);
          else
            {
              g_assert_cmpuint (ts_trace_reader_get_offset (reader), ==, last_end);
              g_assert_cmpint (ts_trace_reader_get_bad_offset (reader), ==,
                               cut == last_end ? -1 : (gint64) last_end);
            }
          /* What loaded is the exact prefix: the first records of each kind. */
          for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
            for (gsize i = 0; i < ts_recorder_get_count (loaded, k); i++)
              {
                guint64 ra[TS_RECORD_MAX_SIZE / 8], rb[TS_RECORD_MAX_SIZE / 8];
                g_assert_true (ts_recorder_get (recorder, k, i, ra));
                g_assert_true (ts_recorder_get (loaded, k, i, rb));
                g_assert_cmpmem (ra, ts_record_info (k)->struct_size, rb, ts_record_info (k)->struct_size);
              }
        }
      if (cut >= 16)
        {
          g_assert_cmpuint (ts_trace_reader_get_major (reader), ==, TS_TRACE_MAJOR);
          g_assert_cmpuint (ts_trace_reader_get_minor (reader), ==, TS_TRACE_MINOR);
        }
    }
}

static void
test_feed_any_split (void)
{
  g_autoptr(TsRecorder) recorder = make_recorder (50);
  g_autoptr(GBytes) bytes = write_to_bytes (recorder);
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  static const gsize steps[] = { 1, 7, 104, 4096, 100000 };

  for (guint s = 0; s < G_N_ELEMENTS (steps); s++)
    {
      g_autoptr(TsRecorder) loaded = ts_recorder_new ();
      g_autoptr(TsTraceReader) reader = ts_trace_reader_new (loaded);
      g_autoptr(GError) error = NULL;

      for (gsize pos = 0; pos < len; pos += steps[s])
        {
          g_assert_true (ts_trace_reader_feed (reader, data + pos, MIN (steps[s], len - pos), &error));
          g_assert_no_error (error);
        }
      g_assert_true (ts_trace_reader_finish (reader, &error));
      g_assert_true (ts_trace_reader_get_complete (reader));
      g_assert_false (ts_trace_reader_get_cut_short (reader));
      assert_recorders_equal (recorder, loaded);
    }
}

/* Builds traces by hand, for the cases a writer never produces. */
static void
append_header (GByteArray *out,
               guint16     major,
               guint16     minor)
{
  guint8 h[TS_TRACE_HEADER_SIZE] = { 0 };

  memcpy (h, TS_TRACE_MAGIC, 8);
  ts_trace_write_u16 (h + 8, major);
  ts_trace_write_u16 (h + 10, minor);
  ts_trace_write_u32 (h + 12, TS_TRACE_HEADER_SIZE);
  g_byte_array_append (out, h, sizeof h);
}

static void
append_frame (GByteArray   *out,
              guint16       type,
              const void   *payload,
              gsize         len)
{
  guint8 h[8];
  static const guint8 zeros[8] = { 0 };

  ts_trace_write_u16 (h, type);
  ts_trace_write_u16 (h + 2, 0);
  ts_trace_write_u32 (h + 4, len);
  g_byte_array_append (out, h, 8);
  g_byte_array_append (out, payload, len);
  g_byte_array_append (out, zeros, ts_trace_align8 (len) - len);
}

static void
put_varint (GByteArray *out,
            guint64     v)
{
  guint8 buf[10];

  g_byte_array_append (out, buf, ts_trace_put_varint (buf, v));
}

/* The schema this version writes, with n_kernel_fields fields for the
 * kernel (fewer: an older writer; more, of type U64: a newer one), and an
 * extra kind 200 of three U32 fields when with_unknown. */
static void
append_schema (GByteArray *out,
               guint       n_kernel_fields,
               gboolean    with_unknown)
{
  g_autoptr(GByteArray) p = g_byte_array_new ();
  guint8 head[4];

  ts_trace_write_u16 (head, TS_N_RECORD_KINDS + (with_unknown ? 1 : 0));
  ts_trace_write_u16 (head + 2, 0);
  g_byte_array_append (p, head, 4);
  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    {
      TsTraceWireKind wk;
      guint n;

      ts_trace_wire_kind_init (&wk, k);
      n = k == TS_RECORD_KERNEL ? n_kernel_fields : wk.n_fields;
      for (guint f = wk.n_fields; f < n; f++)
        wk.types[f] = TS_FIELD_U64;
      ts_trace_write_u16 (head, k);
      head[2] = n;
      head[3] = wk.key;
      g_byte_array_append (p, head, 4);
      g_byte_array_append (p, wk.types, n);
    }
  if (with_unknown)
    {
      static const guint8 types[3] = { TS_FIELD_U32, TS_FIELD_U32, TS_FIELD_U32 };
      ts_trace_write_u16 (head, 200);
      head[2] = 3;
      head[3] = TS_TRACE_NO_KEY;
      g_byte_array_append (p, head, 4);
      g_byte_array_append (p, types, 3);
    }
  append_frame (out, TS_TRACE_FRAME_SCHEMA, p->data, p->len);
}

static void
put_string (GByteArray *events,
            const char *str)
{
  put_varint (events, TS_TRACE_TAG_STRING);
  put_varint (events, strlen (str));
  g_byte_array_append (events, (const guint8 *) str, strlen (str));
}

/* A record as the first of its kind in a frame: the deltas are the values.
 * n_fields fields of the kind's wire list, then extra zero-valued fields. */
static void
put_record (GByteArray   *events,
            TsRecordKind  kind,
            const void   *record,
            guint         n_fields)
{
  TsTraceWireKind wk;

  ts_trace_wire_kind_init (&wk, kind);
  put_varint (events, 1 + kind);
  for (guint f = 0; f < n_fields; f++)
    {
      const guint8 *src = (const guint8 *) record + wk.offsets[f];

      if (f >= wk.n_fields)
        put_varint (events, ts_trace_zigzag64 (0xeeeeeeeeeeull));
      else if (TS_TRACE_FIELD_IS_WIDE (wk.types[f]))
        put_varint (events, ts_trace_zigzag64 (*(const guint64 *) src));
      else
        put_varint (events, ts_trace_zigzag32 (*(const guint32 *) src));
    }
}

static guint
kernel_wire_fields (void)
{
  TsTraceWireKind wk;

  ts_trace_wire_kind_init (&wk, TS_RECORD_KERNEL);
  return wk.n_fields;
}

static void
test_newer_minor (void)
{
  g_autoptr(GByteArray) file = g_byte_array_new ();
  g_autoptr(GByteArray) events = g_byte_array_new ();
  g_autoptr(TsRecorder) loaded = ts_recorder_new ();
  g_autoptr(TsTraceReader) reader = ts_trace_reader_new (loaded);
  g_autoptr(GError) error = NULL;
  TsKernelRecord k = { .start = 10, .end = 20, .queued = 5, .correlation = 7, .device = 1,
                       .stream = 3, .name = 1, .grid = { 4, 5, 6 }, .block = { 7, 8, 9 },
                       .sms = 132, .flops = 1000, .bytes = 2000, .error = 0 };
  guint n = kernel_wire_fields ();
  TsKernelRecord out;
  guint8 unknown[24] = { 1, 2, 3 };

  /* A newer writer: two more kernel fields, a kind 200, a frame type 0x42. */
  append_header (file, TS_TRACE_MAJOR, 7);
  append_schema (file, n + 2, TRUE);
  append_frame (file, 0x0042, unknown, 21);
  put_string (events, "gemm");
  put_varint (events, 1 + 200);
  put_varint (events, 1);
  put_varint (events, 2);
  put_varint (events, 3);
  put_record (events, TS_RECORD_KERNEL, &k, n + 2);
  /* The next kernel, same name: its fields after the name are deltas
   * against the first one's (the same: all 0), the extra two too. */
  put_varint (events, 1 + TS_RECORD_KERNEL);
  put_varint (events, ts_trace_zigzag64 (100));   /* start: 110 */
  for (guint f = 1; f < n + 2; f++)
    put_varint (events, 0);
  append_frame (file, TS_TRACE_FRAME_EVENTS, events->data, events->len);

  g_assert_true (ts_trace_reader_load_data (reader, file->data, file->len, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ts_trace_reader_get_major (reader), ==, TS_TRACE_MAJOR);
  g_assert_cmpuint (ts_trace_reader_get_minor (reader), ==, 7);
  g_assert_cmpuint (ts_trace_reader_get_n_skipped (reader), ==, 2);
  g_assert_true (ts_trace_reader_get_cut_short (reader));   /* no index */
  g_assert_cmpint (ts_trace_reader_get_bad_offset (reader), ==, -1);
  g_assert_cmpuint (ts_recorder_get_count (loaded, TS_RECORD_KERNEL), ==, 2);

  g_assert_true (ts_recorder_get (loaded, TS_RECORD_KERNEL, 0, &out));
  g_assert_cmpmem (&out, sizeof out, &k, sizeof k);
  g_assert_cmpstr (ts_recorder_lookup (loaded, out.name), ==, "gemm");
  g_assert_true (ts_recorder_get (loaded, TS_RECORD_KERNEL, 1, &out));
  k.start = 110;
  g_assert_cmpmem (&out, sizeof out, &k, sizeof k);

  /* An older writer's kernel, without the fields after sms. */
  g_clear_object (&reader);
  g_clear_object (&loaded);
  loaded = ts_recorder_new ();
  reader = ts_trace_reader_new (loaded);
  g_byte_array_set_size (file, 0);
  g_byte_array_set_size (events, 0);
  append_header (file, TS_TRACE_MAJOR, 0);
  append_schema (file, 14, FALSE);
  put_string (events, "gemm");
  put_record (events, TS_RECORD_KERNEL, &k, 14);
  append_frame (file, TS_TRACE_FRAME_EVENTS, events->data, events->len);
  g_assert_true (ts_trace_reader_load_data (reader, file->data, file->len, &error));
  g_assert_no_error (error);
  g_assert_true (ts_recorder_get (loaded, TS_RECORD_KERNEL, 0, &out));
  g_assert_cmpuint (out.sms, ==, 132);
  g_assert_cmpuint (out.flops, ==, 0);
  g_assert_cmpuint (out.bytes, ==, 0);
  g_assert_cmpint (out.end, ==, 20);
}

static void
test_newer_major (void)
{
  g_autoptr(GByteArray) file = g_byte_array_new ();
  g_autoptr(TsRecorder) loaded = ts_recorder_new ();
  g_autoptr(TsTraceReader) reader = ts_trace_reader_new (loaded);
  g_autoptr(GError) error = NULL;

  append_header (file, 3, 0);
  append_schema (file, kernel_wire_fields (), FALSE);

  g_assert_false (ts_trace_reader_load_data (reader, file->data, file->len, &error));
  g_assert_error (error, TS_TRACE_READER_ERROR, TS_TRACE_READER_ERROR_VERSION);
  g_assert_cmpstr (error->message, ==,
                   "The trace is in format 3.0, newer than this version of Tensorscope can read (2.x): "
                   "open it with a newer Tensorscope");
  g_assert_cmpuint (ts_recorder_get_n_strings (loaded), ==, 0);
  g_assert_cmpint (ts_trace_reader_get_bad_offset (reader), ==, 0);
}

typedef void (*Corrupt) (GByteArray *file);

/* Loads file, expects code at offset bad, with loaded_records before it. */
static void
expect_error (GByteArray *file,
              gint        code,
              gint64      bad,
              guint       loaded_records,
              const char *message)
{
  g_autoptr(TsRecorder) loaded = ts_recorder_new ();
  g_autoptr(TsTraceReader) reader = ts_trace_reader_new (loaded);
  g_autoptr(TsTraceReader) feeder = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) error2 = NULL;

  g_assert_false (ts_trace_reader_load_data (reader, file->data, file->len, &error));
  g_assert_error (error, TS_TRACE_READER_ERROR, code);
  if (message != NULL)
    g_assert_cmpstr (error->message, ==, message);
  g_assert_cmpint (ts_trace_reader_get_bad_offset (reader), ==, bad);
  g_assert_cmpuint (ts_trace_reader_get_n_records (reader), ==, loaded_records);

  /* Feeding fails the same way, then refuses more. */
  g_clear_object (&loaded);
  loaded = ts_recorder_new ();
  feeder = ts_trace_reader_new (loaded);
  for (guint i = 0; i < file->len; i++)
    if (!ts_trace_reader_feed (feeder, file->data + i, 1, &error2))
      break;
  if (error2 == NULL)
    {
      /* A stream cannot tell a frame running past the end from a cut. */
      g_assert_true (ts_trace_reader_finish (feeder, &error2));
      g_assert_true (ts_trace_reader_get_cut_short (feeder));
      g_assert_cmpuint (ts_trace_reader_get_n_records (feeder), ==, loaded_records);
    }
  else
    {
      g_assert_error (error2, TS_TRACE_READER_ERROR, code);
      g_assert_cmpint (ts_trace_reader_get_bad_offset (feeder), ==, bad);
      g_clear_error (&error2);
      g_assert_false (ts_trace_reader_feed (feeder, file->data, 1, &error2));
      g_assert_error (error2, TS_TRACE_READER_ERROR, code);
    }
}

static void
test_bad_input (void)
{
  TsMemcpyRecord m = { .kind = TS_COPY_PEER, .bytes = 64 };
  TsNvtxRecord n = { .kind = TS_NVTX_MARK, .message = 2 };
  TsThreadRecord t = { .thread = 1 };
  g_autoptr(GByteArray) file = NULL;
  g_autoptr(GByteArray) ev = g_byte_array_new ();
  gsize schema_end;
  guint8 big[8];

  /* Bad magic. */
  file = g_byte_array_new ();
  g_byte_array_append (file, (const guint8 *) "PK\3\4 this is a zip file, not a trace", 37);
  expect_error (file, TS_TRACE_READER_ERROR_NOT_A_TRACE, 0, 0,
                "Not a Tensorscope trace (the file does not start with the trace magic)");
  g_clear_pointer (&file, g_byte_array_unref);

  file = g_byte_array_new ();
  append_header (file, TS_TRACE_MAJOR, 0);
  append_schema (file, kernel_wire_fields (), FALSE);
  schema_end = file->len;
  g_clear_pointer (&file, g_byte_array_unref);

#define NEW_FILE() \
  G_STMT_START { \
    g_clear_pointer (&file, g_byte_array_unref); \
    file = g_byte_array_new (); \
    append_header (file, TS_TRACE_MAJOR, 0); \
    append_schema (file, kernel_wire_fields (), FALSE); \
    g_byte_array_set_size (ev, 0); \
  } G_STMT_END

  /* A string used before its definition (the nvtx's message, its key):
   * the memcpy before it in the frame stays loaded. */
  NEW_FILE ();
  put_string (ev, "step");
  put_record (ev, TS_RECORD_MEMCPY, &m, 11);
  put_record (ev, TS_RECORD_NVTX, &n, 9);
  append_frame (file, TS_TRACE_FRAME_EVENTS, ev->data, ev->len);
  {
    g_autofree char *msg = g_strdup_printf ("nvtx record in the frame at offset %" G_GSIZE_FORMAT
                                            ": string 2 is used before its definition", schema_end);
    expect_error (file, TS_TRACE_READER_ERROR_CORRUPT, schema_end, 1, msg);
  }

  /* Events before the schema. */
  g_clear_pointer (&file, g_byte_array_unref);
  file = g_byte_array_new ();
  append_header (file, TS_TRACE_MAJOR, 0);
  g_byte_array_set_size (ev, 0);
  put_string (ev, "step");
  append_frame (file, TS_TRACE_FRAME_EVENTS, ev->data, ev->len);
  expect_error (file, TS_TRACE_READER_ERROR_CORRUPT, 32, 0,
                "Events frame at offset 32 comes before the schema");

  /* A second schema. */
  NEW_FILE ();
  append_schema (file, kernel_wire_fields (), FALSE);
  expect_error (file, TS_TRACE_READER_ERROR_CORRUPT, schema_end, 0, NULL);

  /* A bad enum value, after a good record. */
  NEW_FILE ();
  put_record (ev, TS_RECORD_MEMCPY, &m, 11);
  m.kind = 9;
  /* The second memcpy's kind is a delta against the first's. */
  put_varint (ev, 1 + TS_RECORD_MEMCPY);
  for (guint f = 0; f < 11; f++)
    put_varint (ev, f == 6 ? ts_trace_zigzag32 (9 - TS_COPY_PEER) : 0);
  append_frame (file, TS_TRACE_FRAME_EVENTS, ev->data, ev->len);
  {
    g_autofree char *msg = g_strdup_printf ("Frame at offset %" G_GSIZE_FORMAT
                                            ": memcpy record: kind is 9, expected 1 to 5", schema_end);
    expect_error (file, TS_TRACE_READER_ERROR_BAD_VALUE, schema_end, 1, msg);
  }
  m.kind = TS_COPY_PEER;

  /* A frame longer than any frame may be. */
  NEW_FILE ();
  ts_trace_write_u16 (big, TS_TRACE_FRAME_EVENTS);
  ts_trace_write_u16 (big + 2, 0);
  ts_trace_write_u32 (big + 4, 0xfffffff0);
  g_byte_array_append (file, big, 8);
  expect_error (file, TS_TRACE_READER_ERROR_CORRUPT, schema_end, 0, NULL);

  /* A record whose fields run past the end of its frame. */
  NEW_FILE ();
  put_record (ev, TS_RECORD_MEMCPY, &m, 11);
  append_frame (file, TS_TRACE_FRAME_EVENTS, ev->data, ev->len - 2);
  {
    g_autofree char *msg = g_strdup_printf ("Events frame at offset %" G_GSIZE_FORMAT
                                            " is corrupt: a field runs past the end of the frame", schema_end);
    expect_error (file, TS_TRACE_READER_ERROR_CORRUPT, schema_end, 0, msg);
  }

  /* A 32-bit field holding 33 bits. */
  NEW_FILE ();
  put_varint (ev, 1 + TS_RECORD_THREAD);
  put_varint (ev, G_GUINT64_CONSTANT (1) << 32);
  put_varint (ev, 0);
  append_frame (file, TS_TRACE_FRAME_EVENTS, ev->data, ev->len);
  expect_error (file, TS_TRACE_READER_ERROR_CORRUPT, schema_end, 0, NULL);

  /* A kind the schema does not list, after a good record. */
  NEW_FILE ();
  put_record (ev, TS_RECORD_THREAD, &t, 2);
  put_varint (ev, 1 + 300);
  append_frame (file, TS_TRACE_FRAME_EVENTS, ev->data, ev->len);
  expect_error (file, TS_TRACE_READER_ERROR_CORRUPT, schema_end, 1, NULL);

  /* A varint longer than 64 bits. */
  NEW_FILE ();
  for (guint i = 0; i < 11; i++)
    g_byte_array_append (ev, (const guint8 *) "\xff", 1);
  append_frame (file, TS_TRACE_FRAME_EVENTS, ev->data, ev->len);
  expect_error (file, TS_TRACE_READER_ERROR_CORRUPT, schema_end, 0, NULL);

#undef NEW_FILE
}

static void
test_bad_complete_file (void)
{
  g_autoptr(TsRecorder) recorder = make_recorder (2);
  g_autoptr(GBytes) bytes = write_to_bytes (recorder);
  g_autoptr(GByteArray) file = NULL;
  g_autoptr(GArray) ends = NULL;
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  gsize last_events, index_at;

  ends = frame_ends (data, len);
  g_assert_cmpuint (ends->len, ==, 3);   /* schema, one events frame, index */
  index_at = g_array_index (ends, gsize, 1);
  last_events = g_array_index (ends, gsize, 0);

  /* The events frame's length grown past the end of a file that ends in
   * the index trailer: corruption, not a cut. */
  file = g_byte_array_new ();
  g_byte_array_append (file, data, len);
  ts_trace_write_u32 (file->data + last_events + 4, 1 << 20);
  expect_error (file, TS_TRACE_READER_ERROR_CORRUPT, last_events, 0, NULL);
  g_clear_pointer (&file, g_byte_array_unref);

  /* An index whose counts lie: the summary does not trust it either, it
   * decodes the file and reports the mismatch. */
  file = g_byte_array_new ();
  g_byte_array_append (file, data, len);
  ts_trace_write_u64 (file->data + index_at + 8 + 8 + 8 * (1 + TS_RECORD_DEVICE), 3);  /* kind 0: 2 -> 3 */
  {
    g_autofree char *msg = g_strdup_printf ("The index footer at offset %" G_GSIZE_FORMAT
                                            " is corrupt: its counts differ from the frames", index_at);
    expect_error (file, TS_TRACE_READER_ERROR_CORRUPT, index_at, 2 * TS_N_RECORD_KINDS, msg);
  }
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *path = NULL;
    TsTraceSummary summary;
    int fd = g_file_open_tmp ("test-trace-XXXXXX", &path, &error);

    g_assert_no_error (error);
    close (fd);
    g_file_set_contents (path, (const char *) file->data, file->len, &error);
    g_assert_no_error (error);
    g_assert_false (ts_trace_read_summary (path, &summary, &error));
    g_assert_error (error, TS_TRACE_READER_ERROR, TS_TRACE_READER_ERROR_CORRUPT);
    g_unlink (path);
  }
  g_clear_pointer (&file, g_byte_array_unref);

  /* Data after the index. */
  file = g_byte_array_new ();
  g_byte_array_append (file, data, len);
  append_frame (file, TS_TRACE_FRAME_EVENTS, "\0\4late", 6);
  expect_error (file, TS_TRACE_READER_ERROR_CORRUPT, len, 2 * TS_N_RECORD_KINDS,
                NULL);
}

/* Pipe streaming: a producer thread records and flushes, the main thread
 * reads what arrives and must see the first batch before the writer closes. */
typedef struct
{
  int     fd;
  GMutex  mutex;
  GCond   cond;
  gboolean go_on;
  TsRecorder *recorder;
} PipeProducer;

static gpointer
pipe_producer (gpointer data)
{
  PipeProducer *p = data;
  g_autoptr(TsTraceWriter) writer = ts_trace_writer_new_for_fd (p->fd, TRUE);
  g_autoptr(GError) error = NULL;

  g_assert_true (ts_trace_writer_attach (writer, p->recorder, &error));
  intern_strings (p->recorder);
  for (guint i = 0; i < 100; i++)
    {
      guint64 rec[TS_RECORD_MAX_SIZE / 8];
      fill_valid_record (TS_RECORD_KERNEL, i, rec);
      ts_recorder_append (p->recorder, TS_RECORD_KERNEL, rec);
    }
  g_assert_true (ts_trace_writer_flush (writer, &error));

  /* Wait until the reader has seen those 100, live. */
  g_mutex_lock (&p->mutex);
  while (!p->go_on)
    g_cond_wait (&p->cond, &p->mutex);
  g_mutex_unlock (&p->mutex);

  for (guint i = 100; i < 20000; i++)
    {
      guint64 rec[TS_RECORD_MAX_SIZE / 8];
      fill_valid_record (i % TS_N_RECORD_KINDS, i, rec);
      ts_recorder_append (p->recorder, i % TS_N_RECORD_KINDS, rec);
    }
  g_assert_true (ts_trace_writer_close (writer, &error));
  g_assert_no_error (error);

  return NULL;
}

static void
test_pipe_streaming (void)
{
  g_autoptr(TsRecorder) loaded = ts_recorder_new ();
  g_autoptr(TsTraceReader) reader = ts_trace_reader_new (loaded);
  g_autoptr(GError) error = NULL;
  PipeProducer p = { 0 };
  GThread *thread;
  int fds[2];
  guint8 buf[777];
  gboolean released = FALSE;

  g_assert_cmpint (pipe (fds), ==, 0);
  p.fd = fds[1];
  p.recorder = ts_recorder_new ();
  g_mutex_init (&p.mutex);
  g_cond_init (&p.cond);

  thread = g_thread_new ("producer", pipe_producer, &p);

  for (;;)
    {
      gssize n = read (fds[0], buf, sizeof buf);

      if (n < 0 && errno == EINTR)
        continue;
      g_assert_cmpint (n, >=, 0);
      if (n == 0)
        break;
      g_assert_true (ts_trace_reader_feed (reader, buf, n, &error));
      g_assert_no_error (error);

      if (!released && ts_trace_reader_get_n_records (reader) == 100)
        {
          g_mutex_lock (&p.mutex);
          p.go_on = TRUE;
          g_cond_signal (&p.cond);
          g_mutex_unlock (&p.mutex);
          released = TRUE;
        }
    }
  g_assert_true (released);
  g_assert_true (ts_trace_reader_finish (reader, &error));
  g_thread_join (thread);
  close (fds[0]);

  g_assert_true (ts_trace_reader_get_complete (reader));
  g_assert_cmpuint (ts_trace_reader_get_n_records (reader), ==, 20000);
  assert_recorders_equal (p.recorder, loaded);

  g_object_unref (p.recorder);
  g_mutex_clear (&p.mutex);
  g_cond_clear (&p.cond);
}

static void
test_write_errors (void)
{
  g_autoptr(TsRecorder) recorder = make_recorder (100);
  g_autoptr(GError) error = NULL;
  int fds[2];

  /* A pipe whose reader is gone: EPIPE, and no SIGPIPE kills us. */
  {
    g_autoptr(TsTraceWriter) writer = NULL;

    g_assert_cmpint (pipe (fds), ==, 0);
    close (fds[0]);
    writer = ts_trace_writer_new_for_fd (fds[1], TRUE);
    g_assert_false (ts_trace_writer_attach (writer, recorder, &error));
    g_assert_error (error, TS_TRACE_WRITER_ERROR, TS_TRACE_WRITER_ERROR_FAILED);
    g_assert_cmpstr (error->message, ==, "Could not write the trace: Broken pipe");
    g_clear_error (&error);
    /* Recording goes on; the writer stays quiet until close reports. */
    ts_recorder_intern (recorder, "more");
    g_assert_false (ts_trace_writer_close (writer, &error));
    g_assert_error (error, TS_TRACE_WRITER_ERROR, TS_TRACE_WRITER_ERROR_FAILED);
    g_clear_error (&error);
  }

  /* A full disk. */
  if (g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      g_autoptr(TsTraceWriter) writer = ts_trace_writer_new_for_path ("/dev/full", &error);

      g_assert_no_error (error);
      g_assert_false (ts_trace_writer_attach (writer, recorder, &error));
      g_assert_cmpstr (error->message, ==, "Could not write the trace: No space left on device");
      g_clear_error (&error);
      g_assert_false (ts_trace_writer_flush (writer, &error));
      g_assert_error (error, TS_TRACE_WRITER_ERROR, TS_TRACE_WRITER_ERROR_FAILED);
      g_clear_error (&error);
    }

  /* A path that cannot be created. */
  g_assert_null (ts_trace_writer_new_for_path ("/nonexistent-dir/x.trace", &error));
  g_assert_error (error, TS_TRACE_WRITER_ERROR, TS_TRACE_WRITER_ERROR_FAILED);
  g_clear_error (&error);

  /* A file that cannot be read. */
  g_assert_null (ts_trace_load ("/nonexistent-dir/x.trace", NULL, &error));
  g_assert_error (error, TS_TRACE_READER_ERROR, TS_TRACE_READER_ERROR_IO);
}

/* The seed corpus comes from fuzz/make-corpus.py, a second writer of the
 * format written from docs/trace-format.md: the reader must agree with it. */
static void
test_corpus (void)
{
  static const struct {
    const char *name;
    gint        code;        /* 0: loads */
    guint       records;
    guint       strings;
    gboolean    cut_short;
    guint       skipped;
    gint64      bad_offset;
  } cases[] = {
    { "valid-small", 0, 4, 2, FALSE, 0, -1 },
    { "two-chunks", 0, 5000, 1, FALSE, 0, -1 },
    { "cut-short-no-index", 0, 4, 2, TRUE, 0, -1 },
    { "cut-mid-frame", 0, 1, 1, TRUE, 0, 312 },
    { "cut-in-index", 0, 4, 2, TRUE, 0, 384 },
    { "empty", 0, 0, 0, TRUE, 0, -1 },
    { "header-only", 0, 0, 0, TRUE, 0, -1 },
    { "schema-only", 0, 0, 0, TRUE, 0, -1 },
    { "newer-minor-unknown-frames", 0, 1, 1, TRUE, 2, -1 },
    { "older-writer", 0, 1, 1, TRUE, 0, -1 },
    { "bad-magic", TS_TRACE_READER_ERROR_NOT_A_TRACE, 0, 0, FALSE, 0, 0 },
    { "newer-major", TS_TRACE_READER_ERROR_VERSION, 0, 0, FALSE, 0, 0 },
    { "bad-enum", TS_TRACE_READER_ERROR_BAD_VALUE, 1, 0, FALSE, 0, 264 },
    { "string-before-definition", TS_TRACE_READER_ERROR_CORRUPT, 0, 0, FALSE, 0, 264 },
    { "events-before-schema", TS_TRACE_READER_ERROR_CORRUPT, 0, 0, FALSE, 0, 32 },
    { "huge-length", TS_TRACE_READER_ERROR_CORRUPT, 0, 0, FALSE, 0, 264 },
    { "field-past-end", TS_TRACE_READER_ERROR_CORRUPT, 0, 0, FALSE, 0, 264 },
    { "unlisted-kind", TS_TRACE_READER_ERROR_CORRUPT, 0, 0, FALSE, 0, 264 },
    { "wide-value", TS_TRACE_READER_ERROR_CORRUPT, 0, 0, FALSE, 0, 264 },
    { "frame-past-end", TS_TRACE_READER_ERROR_CORRUPT, 0, 0, FALSE, 0, 264 },
    { "index-mismatch", TS_TRACE_READER_ERROR_CORRUPT, 4, 2, FALSE, 0, 384 },
    { "after-index", TS_TRACE_READER_ERROR_CORRUPT, 4, 2, FALSE, 0, 720 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_build_filename (TS_TEST_SRCDIR, "..", "fuzz", "corpus", "trace-reader",
                                                cases[i].name, NULL);
      g_autoptr(TsRecorder) loaded = ts_recorder_new ();
      g_autoptr(TsTraceReader) reader = ts_trace_reader_new (loaded);
      g_autoptr(GError) error = NULL;
      gboolean ok;

      g_test_message ("%s", cases[i].name);
      ok = ts_trace_reader_load_file (reader, path, &error);
      if (cases[i].code == 0)
        {
          g_assert_no_error (error);
          g_assert_true (ok);
        }
      else
        {
          g_assert_error (error, TS_TRACE_READER_ERROR, cases[i].code);
          g_assert_false (ok);
        }
      g_assert_cmpuint (ts_trace_reader_get_n_records (reader), ==, cases[i].records);
      g_assert_cmpuint (ts_recorder_get_n_strings (loaded), ==, cases[i].strings);
      g_assert_cmpint (ts_trace_reader_get_cut_short (reader), ==, cases[i].cut_short);
      g_assert_cmpuint (ts_trace_reader_get_n_skipped (reader), ==, cases[i].skipped);
      g_assert_cmpint (ts_trace_reader_get_bad_offset (reader), ==, cases[i].bad_offset);
    }
}

/* Format 2.1's access records, in a trace the CLI wrote for the race
 * example (fuzz/corpus/trace-reader/hazard-race): normal_ writes A on the
 * default stream, sum reads it on stream 4 and writes its result. */
static void
test_access_records (void)
{
  g_autofree char *path = g_build_filename (TS_TEST_SRCDIR, "..", "fuzz", "corpus", "trace-reader",
                                            "hazard-race", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(TsRecorder) recorder = NULL;
  g_autoptr(GArray) hazards = NULL;
  TsAccessRecord a;
  gboolean cut_short = TRUE;

  recorder = ts_trace_load (path, &cut_short, &error);
  g_assert_no_error (error);
  g_assert_false (cut_short);
  g_assert_cmpuint (ts_recorder_get_count (recorder, TS_RECORD_ACCESS), ==, 3);
  g_assert_true (ts_recorder_get (recorder, TS_RECORD_ACCESS, 0, &a));
  g_assert_cmpuint (a.mode, ==, TS_ACCESS_WRITE);
  g_assert_cmpuint (a.stream, ==, 0);
  g_assert_cmpuint (a.size, ==, 100 * 100 * 4);
  g_assert_true (ts_recorder_get (recorder, TS_RECORD_ACCESS, 1, &a));
  g_assert_cmpuint (a.mode, ==, TS_ACCESS_READ);
  g_assert_cmpuint (a.stream, ==, 4);
  g_assert_cmpuint (a.size, ==, 100 * 100 * 4);
  g_assert_true (ts_recorder_get (recorder, TS_RECORD_ACCESS, 2, &a));
  g_assert_cmpuint (a.mode, ==, TS_ACCESS_WRITE);
  g_assert_cmpuint (a.size, ==, 4);
  hazards = ts_hazards_find (recorder);
  g_assert_cmpuint (hazards->len, ==, 1);
}

/* The C writer and fuzz/make-corpus.py, written apart from the spec,
 * give the same bytes for the same content: header, schema, two events
 * frames (the flush closes the first), the index. */
static void
test_python_writer_agrees (void)
{
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  g_autoptr(TsTraceWriter) writer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *ours = NULL;
  g_autofree char *theirs = NULL;
  g_autofree char *corpus = g_build_filename (TS_TEST_SRCDIR, "..", "fuzz", "corpus", "trace-reader",
                                              "valid-small", NULL);
  gsize ours_len, theirs_len;
  int fd;
  TsStringId gemm, step;

  fd = g_file_open_tmp ("test-trace-XXXXXX", &path, &error);
  g_assert_no_error (error);
  close (fd);
  writer = ts_trace_writer_new_for_path (path, &error);
  g_assert_true (ts_trace_writer_attach (writer, recorder, &error));

  gemm = ts_recorder_intern (recorder, "gemm");
  {
    TsKernelRecord k = { .start = 100, .end = 107, .queued = 98, .correlation = 1, .name = gemm,
                         .grid = { 128, 1, 1 }, .block = { 256, 1, 1 }, .sms = 132,
                         .flops = 1 << 20, .bytes = 1 << 16 };
    ts_recorder_append (recorder, TS_RECORD_KERNEL, &k);
  }
  g_assert_true (ts_trace_writer_flush (writer, &error));
  step = ts_recorder_intern (recorder, "step");
  {
    TsNvtxRecord n = { .time = 90, .kind = TS_NVTX_MARK, .message = step, .depth = 1 };
    TsMemcpyRecord m = { .start = 120, .end = 125, .queued = 119, .correlation = 2, .stream = 1,
                         .kind = TS_COPY_HOST_TO_DEVICE, .src_device = -1, .bytes = 4096 };
    TsKernelRecord k = { .start = 200, .end = 207, .queued = 198, .correlation = 3, .name = gemm,
                         .grid = { 128, 1, 1 }, .block = { 256, 1, 1 }, .sms = 132,
                         .flops = 1 << 20, .bytes = 1 << 16 };
    ts_recorder_append (recorder, TS_RECORD_NVTX, &n);
    ts_recorder_append (recorder, TS_RECORD_MEMCPY, &m);
    ts_recorder_append (recorder, TS_RECORD_KERNEL, &k);
  }
  g_assert_true (ts_trace_writer_close (writer, &error));
  g_assert_no_error (error);

  g_file_get_contents (path, &ours, &ours_len, &error);
  g_assert_no_error (error);
  g_file_get_contents (corpus, &theirs, &theirs_len, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (ours, ours_len, theirs, theirs_len);
  g_unlink (path);
}

/* A cut-short file has no index: the summary decodes it. */
static void
test_summary_cut_short (void)
{
  g_autofree char *path = g_build_filename (TS_TEST_SRCDIR, "..", "fuzz", "corpus", "trace-reader",
                                            "cut-mid-frame", NULL);
  g_autoptr(GError) error = NULL;
  TsTraceSummary summary;

  g_assert_true (ts_trace_read_summary (path, &summary, &error));
  g_assert_no_error (error);
  g_assert_false (summary.from_index);
  g_assert_false (summary.complete);
  g_assert_true (summary.cut_short);
  g_assert_cmpuint (summary.n_strings, ==, 1);
  g_assert_cmpuint (summary.n_records[TS_RECORD_KERNEL], ==, 1);
  g_assert_cmpuint (summary.n_chunks, ==, 1);
}

/* Bounded mode: a recorder streaming to a file keeps a fixed number of
 * chunks however many records go through it, and the file has them all. */
/* Producers on three threads and a fourth that flushes all along: the
 * writer copies records in without a lock of its own (the recorder's
 * serializes sink calls) and flush hands blocks over under the recorder's,
 * so every record reaches the file once, whole. */
typedef struct
{
  TsRecorder    *recorder;
  TsTraceWriter *writer;
  guint          thread;
  gint          *running;
} Concurrent;

#define CONCURRENT_N 60000

static gpointer
concurrent_producer (gpointer data)
{
  Concurrent *c = data;

  for (guint i = 0; i < CONCURRENT_N; i++)
    {
      TsKernelRecord k = { .start = i, .end = i + 1, .grid = { c->thread, i, 1 }, .block = { 1, 1, 1 } };
      TS_RECORDER_APPEND (c->recorder, TS_RECORD_KERNEL, TsKernelRecord, &k);
    }
  g_atomic_int_dec_and_test (c->running);
  return NULL;
}

static gpointer
concurrent_flusher (gpointer data)
{
  Concurrent *c = data;
  guint n = 0;

  while (g_atomic_int_get (c->running) > 0 || n == 0)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (ts_trace_writer_flush (c->writer, &error));
      n++;
    }
  return GUINT_TO_POINTER (n);
}

static void
test_concurrent_flush (void)
{
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  g_autoptr(TsRecorder) loaded = NULL;
  g_autoptr(TsTraceWriter) writer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree guint8 *seen = g_new0 (guint8, 3 * CONCURRENT_N);
  Concurrent c[4];
  GThread *threads[4];
  gint running = 3;
  gboolean cut_short = TRUE;
  gsize n;

  writer = attached_writer (recorder, &path);
  ts_recorder_set_keep_records (recorder, FALSE);

  for (guint t = 0; t < 4; t++)
    {
      c[t] = (Concurrent) { recorder, writer, t, &running };
      threads[t] = g_thread_new ("concurrent", t < 3 ? concurrent_producer : concurrent_flusher, &c[t]);
    }
  for (guint t = 0; t < 3; t++)
    g_thread_join (threads[t]);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_thread_join (threads[3])), >, 0);
  g_assert_true (ts_trace_writer_close (writer, &error));
  g_assert_no_error (error);

  loaded = ts_trace_load (path, &cut_short, &error);
  g_assert_no_error (error);
  g_assert_false (cut_short);
  n = ts_recorder_get_count (loaded, TS_RECORD_KERNEL);
  g_assert_cmpuint (n, ==, 3 * CONCURRENT_N);
  for (gsize i = 0; i < n; i++)
    {
      TsKernelRecord k;

      g_assert_true (ts_recorder_get (loaded, TS_RECORD_KERNEL, i, &k));
      g_assert_cmpuint (k.grid[0], <, 3);
      g_assert_cmpuint (k.grid[1], <, CONCURRENT_N);
      g_assert_cmpint (k.start, ==, k.grid[1]);
      g_assert_cmpint (k.end, ==, k.start + 1);
      g_assert_cmpuint (seen[k.grid[0] * CONCURRENT_N + k.grid[1]]++, ==, 0);
    }
  g_unlink (path);
}

static void
test_bounded_streaming (void)
{
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  g_autoptr(TsRecorder) reference = ts_recorder_new ();
  g_autoptr(TsRecorder) loaded = NULL;
  g_autoptr(TsTraceWriter) writer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  gboolean cut_short = TRUE;
  gsize chunks_early = 0;
  guint64 last[TS_RECORD_MAX_SIZE / 8];
  guint64 got[TS_RECORD_MAX_SIZE / 8];
  /* 40 chunks of 1024 records per kind: far beyond what bounded mode holds */
  const guint n = 40 * 1024 + 7;

  intern_strings (recorder);
  intern_strings (reference);
  writer = attached_writer (recorder, &path);
  ts_recorder_set_keep_records (recorder, FALSE);

  for (guint i = 0; i < n; i++)
    {
      for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
        {
          fill_valid_record (k, i * 31 + k, last);
          ts_recorder_append (recorder, k, last);
          ts_recorder_append (reference, k, last);
        }
      if (i == 3 * 1024)
        chunks_early = ts_recorder_get_n_chunks (recorder);
    }

  /* one slab per kind plus the order-log chunk from before: flat */
  g_assert_cmpuint (chunks_early, <=, TS_N_RECORD_KINDS + 1);
  g_assert_cmpuint (ts_recorder_get_n_chunks (recorder), ==, chunks_early);
  g_assert_cmpuint (ts_recorder_get_n_chunks (reference), >, 40 * TS_N_RECORD_KINDS);
  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    {
      g_assert_cmpuint (ts_recorder_get_count (recorder, k), ==, n);
      g_assert_cmpuint (ts_recorder_get_n_retained (recorder, k), ==, 7);
    }
  /* the newest records stay readable, the dropped ones read as absent */
  g_assert_true (ts_recorder_get (recorder, TS_N_RECORD_KINDS - 1, n - 1, got));
  g_assert_true (ts_recorder_get (reference, TS_N_RECORD_KINDS - 1, n - 1, last));
  g_assert_cmpmem (got, ts_record_info (TS_N_RECORD_KINDS - 1)->struct_size,
                   last, ts_record_info (TS_N_RECORD_KINDS - 1)->struct_size);
  g_assert_false (ts_recorder_get (recorder, 0, 0, got));
  g_assert_false (ts_recorder_get (recorder, 0, n - 8, got));
  g_assert_cmpuint (ts_recorder_copy_column (recorder, 0, 0, 0, 10, got), ==, 0);

  g_assert_true (ts_trace_writer_close (writer, &error));
  g_assert_no_error (error);
  loaded = ts_trace_load (path, &cut_short, &error);
  g_assert_no_error (error);
  g_assert_false (cut_short);
  assert_recorders_equal (reference, loaded);
  g_unlink (path);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/trace-file/round-trip", test_round_trip);
  g_test_add_func ("/trace-file/truncation", test_truncation_everywhere);
  g_test_add_func ("/trace-file/feed-any-split", test_feed_any_split);
  g_test_add_func ("/trace-file/newer-minor", test_newer_minor);
  g_test_add_func ("/trace-file/newer-major", test_newer_major);
  g_test_add_func ("/trace-file/bad-input", test_bad_input);
  g_test_add_func ("/trace-file/bad-complete-file", test_bad_complete_file);
  g_test_add_func ("/trace-file/pipe", test_pipe_streaming);
  g_test_add_func ("/trace-file/write-errors", test_write_errors);
  g_test_add_func ("/trace-file/corpus", test_corpus);
  g_test_add_func ("/trace-file/access-records", test_access_records);
  g_test_add_func ("/trace-file/python-writer-agrees", test_python_writer_agrees);
  g_test_add_func ("/trace-file/summary-cut-short", test_summary_cut_short);
  g_test_add_func ("/trace-file/bounded-streaming", test_bounded_streaming);
  g_test_add_func ("/trace-file/concurrent-flush", test_concurrent_flush);

  return g_test_run ();
}
