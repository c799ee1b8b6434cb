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
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  gsize len, expected;
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

  /* The exact size: header, strings, records, index. */
  expected = TS_TRACE_HEADER_SIZE;
  for (guint i = 1; i <= N_STRINGS; i++)
    expected += 8 + ts_trace_align8 (4 + strlen (ts_recorder_lookup (recorder, i)));
  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    expected += 600 * (8 + ts_record_info (k)->struct_size);
  /* The index: frame header, entry count and chunk length, 17 entries
   * (strings and 16 kinds) of one chunk each, the trailer. */
  expected += 8 + 8 + 17 * (16 + 8) + 16;
  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (len, ==, expected);

  loaded = ts_trace_load (path, &cut_short, &error);
  g_assert_no_error (error);
  g_assert_nonnull (loaded);
  g_assert_false (cut_short);
  assert_recorders_equal (recorder, loaded);

  /* Determinism: the same content gives the same bytes. */
  again = write_to_bytes (loaded);
  g_assert_cmpmem (g_bytes_get_data (again, NULL), g_bytes_get_size (again), contents, len);

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

static void
test_truncation_everywhere (void)
{
  g_autoptr(TsRecorder) recorder = ts_recorder_new ();
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GArray) ends = NULL;
  const guint8 *data;
  guint n_string_frames = 3;
  gsize len;

  ts_recorder_intern (recorder, "gemm");
  for (guint k = 0; k < TS_N_RECORD_KINDS; k += 3)
    {
      guint64 rec[TS_RECORD_MAX_SIZE / 8];
      fill_record (k, k, rec);
      for (guint f = 0; f < ts_record_info (k)->n_fields; f++)
        if (ts_record_info (k)->fields[f].type == TS_FIELD_STRING)
          *(guint32 *) ((guint8 *) rec + ts_record_info (k)->fields[f].offset) =
            k == 0 ? 1 : 1 + (f + k) % n_string_frames;
      if (k == 3)
        {
          ts_recorder_intern (recorder, "cudaLaunchKernel");
          ts_recorder_intern (recorder, "a string that is 31 bytes long");
        }
      ts_recorder_append (recorder, k, rec);
    }

  bytes = write_to_bytes (recorder);
  data = g_bytes_get_data (bytes, &len);
  ends = frame_ends (data, len);
  g_assert_cmpuint (ends->len, ==, 3 + 6 + 1);  /* strings, records, index */

  for (gsize cut = 0; cut <= len; cut++)
    {
      g_autoptr(TsRecorder) loaded = ts_recorder_new ();
      g_autoptr(TsTraceReader) reader = ts_trace_reader_new (loaded);
      g_autoptr(GError) error = NULL;
      g_autofree guint8 *copy = g_memdup2 (data, cut);  /* so ASan sees overreads */
      guint whole = 0, records = 0;
      gsize last_end = TS_TRACE_HEADER_SIZE;

      for (guint f = 0; f < ends->len; f++)
        if (g_array_index (ends, gsize, f) <= cut)
          {
            whole++;
            last_end = g_array_index (ends, gsize, f);
          }
      /* Frames 0, 2 and 3 are strings; the last is the index. */
      for (guint f = 0; f < MIN (whole, ends->len - 1); f++)
        if (f != 0 && f != 2 && f != 3)
          records++;

      g_assert_true (ts_trace_reader_load_data (reader, copy, cut, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (ts_trace_reader_get_n_records (reader), ==, records);
      g_assert_cmpuint (ts_recorder_get_n_strings (loaded), ==,
                        cut < g_array_index (ends, gsize, 0) ? 0 :
                        cut < g_array_index (ends, gsize, 2) ? 1 :
                        cut < g_array_index (ends, gsize, 3) ? 2 : 3);

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
        }
      if (cut >= 16)
        {
          g_assert_cmpuint (ts_trace_reader_get_major (reader), ==, 1);
          g_assert_cmpuint (ts_trace_reader_get_minor (reader), ==, 0);
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
append_string (GByteArray *out,
               guint32     id,
               const char *str)
{
  g_autofree guint8 *payload = g_malloc (4 + strlen (str));

  ts_trace_write_u32 (payload, id);
  memcpy (payload + 4, str, strlen (str));
  append_frame (out, TS_TRACE_FRAME_STRING, payload, 4 + strlen (str));
}

static void
test_newer_minor (void)
{
  g_autoptr(GByteArray) file = g_byte_array_new ();
  g_autoptr(TsRecorder) loaded = ts_recorder_new ();
  g_autoptr(TsTraceReader) reader = ts_trace_reader_new (loaded);
  g_autoptr(GError) error = NULL;
  TsKernelRecord k = { .start = 10, .end = 20, .queued = 5, .correlation = 7, .device = 1,
                       .stream = 3, .name = 1, .grid = { 4, 5, 6 }, .block = { 7, 8, 9 },
                       .sms = 132, .flops = 1000, .bytes = 2000, .error = 0 };
  guint8 longer[sizeof k + 16];
  TsKernelRecord out;
  guint8 unknown[24] = { 1, 2, 3 };

  append_header (file, 1, 7);
  append_string (file, 1, "gemm");
  append_frame (file, 0x0042, unknown, 21);                    /* an unknown frame type */
  append_frame (file, TS_TRACE_FRAME_RECORD + 200, unknown, 24); /* an unknown record kind */
  /* A kernel with two new fields at the end of its payload. */
  memcpy (longer, &k, sizeof k);
  memset (longer + sizeof k, 0xee, 16);
  append_frame (file, TS_TRACE_FRAME_RECORD + TS_RECORD_KERNEL, longer, sizeof longer);
  /* An older writer's kernel, without the fields after sms (offset 72). */
  append_frame (file, TS_TRACE_FRAME_RECORD + TS_RECORD_KERNEL, &k, 72);

  g_assert_true (ts_trace_reader_load_data (reader, file->data, file->len, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ts_trace_reader_get_major (reader), ==, 1);
  g_assert_cmpuint (ts_trace_reader_get_minor (reader), ==, 7);
  g_assert_cmpuint (ts_trace_reader_get_n_skipped (reader), ==, 2);
  g_assert_true (ts_trace_reader_get_cut_short (reader));   /* no index */
  g_assert_cmpint (ts_trace_reader_get_bad_offset (reader), ==, -1);
  g_assert_cmpuint (ts_recorder_get_count (loaded, TS_RECORD_KERNEL), ==, 2);

  g_assert_true (ts_recorder_get (loaded, TS_RECORD_KERNEL, 0, &out));
  g_assert_cmpmem (&out, sizeof out, &k, sizeof k);
  g_assert_cmpstr (ts_recorder_lookup (loaded, out.name), ==, "gemm");

  g_assert_true (ts_recorder_get (loaded, TS_RECORD_KERNEL, 1, &out));
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

  append_header (file, 2, 0);
  append_string (file, 1, "gemm");

  g_assert_false (ts_trace_reader_load_data (reader, file->data, file->len, &error));
  g_assert_error (error, TS_TRACE_READER_ERROR, TS_TRACE_READER_ERROR_VERSION);
  g_assert_cmpstr (error->message, ==,
                   "The trace is in format 2.0, newer than this version of Tensorscope can read (1.x): "
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
  g_autoptr(GByteArray) file = NULL;
  guint8 big[8];

  /* Bad magic. */
  file = g_byte_array_new ();
  g_byte_array_append (file, (const guint8 *) "PK\3\4 this is a zip file, not a trace", 37);
  expect_error (file, TS_TRACE_READER_ERROR_NOT_A_TRACE, 0, 0,
                "Not a Tensorscope trace (the file does not start with the trace magic)");
  g_clear_pointer (&file, g_byte_array_unref);

  /* A string used before its definition. */
  file = g_byte_array_new ();
  append_header (file, 1, 0);
  append_string (file, 1, "step");
  append_frame (file, TS_TRACE_FRAME_RECORD + TS_RECORD_MEMCPY, &m, sizeof m);
  append_frame (file, TS_TRACE_FRAME_RECORD + TS_RECORD_NVTX, &n, sizeof n);
  expect_error (file, TS_TRACE_READER_ERROR_CORRUPT, 32 + 16 + 72, 1,
                "nvtx record at offset 120: string 2 of field “message” is used before its definition");
  g_clear_pointer (&file, g_byte_array_unref);

  /* Strings out of sequence. */
  file = g_byte_array_new ();
  append_header (file, 1, 0);
  append_string (file, 2, "step");
  expect_error (file, TS_TRACE_READER_ERROR_CORRUPT, 32, 0,
                "String frame at offset 32 defines string 2, expected 1");
  g_clear_pointer (&file, g_byte_array_unref);

  /* A bad enum value. */
  file = g_byte_array_new ();
  append_header (file, 1, 0);
  append_frame (file, TS_TRACE_FRAME_RECORD + TS_RECORD_MEMCPY, &m, sizeof m);
  m.kind = 9;
  append_frame (file, TS_TRACE_FRAME_RECORD + TS_RECORD_MEMCPY, &m, sizeof m);
  expect_error (file, TS_TRACE_READER_ERROR_BAD_VALUE, 32 + 72, 1,
                "Frame at offset 104: memcpy record: kind is 9, expected 1 to 5");
  g_clear_pointer (&file, g_byte_array_unref);
  m.kind = TS_COPY_PEER;

  /* A frame longer than any frame may be. */
  file = g_byte_array_new ();
  append_header (file, 1, 0);
  ts_trace_write_u16 (big, 0x0042);
  ts_trace_write_u16 (big + 2, 0);
  ts_trace_write_u32 (big + 4, 0xfffffff0);
  g_byte_array_append (file, big, 8);
  expect_error (file, TS_TRACE_READER_ERROR_CORRUPT, 32, 0, NULL);
  g_clear_pointer (&file, g_byte_array_unref);

  /* A record length that is not a multiple of 4. */
  file = g_byte_array_new ();
  append_header (file, 1, 0);
  append_frame (file, TS_TRACE_FRAME_RECORD + TS_RECORD_MEMCPY, &m, 63);
  expect_error (file, TS_TRACE_READER_ERROR_CORRUPT, 32, 0, NULL);
  g_clear_pointer (&file, g_byte_array_unref);
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
  gsize last_record, index_at;

  ends = frame_ends (data, len);
  index_at = g_array_index (ends, gsize, ends->len - 2);
  last_record = g_array_index (ends, gsize, ends->len - 3);

  /* The last record's length grown past the end of a file that ends in
   * the index trailer: corruption, not a cut. */
  file = g_byte_array_new ();
  g_byte_array_append (file, data, len);
  ts_trace_write_u32 (file->data + last_record + 4, 1 << 20);
  expect_error (file, TS_TRACE_READER_ERROR_CORRUPT, last_record, 2 * TS_N_RECORD_KINDS - 1, NULL);
  g_clear_pointer (&file, g_byte_array_unref);

  /* An index whose counts lie. */
  file = g_byte_array_new ();
  g_byte_array_append (file, data, len);
  ts_trace_write_u64 (file->data + index_at + 8 + 8 + 16 * 1 + 8 + 8, 3);  /* kind 0: 2 -> 3 */
  expect_error (file, TS_TRACE_READER_ERROR_CORRUPT, index_at, 2 * TS_N_RECORD_KINDS,
                NULL);
  g_clear_pointer (&file, g_byte_array_unref);

  /* Data after the index. */
  file = g_byte_array_new ();
  g_byte_array_append (file, data, len);
  append_string (file, N_STRINGS + 1, "late");
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
    { "cut-mid-frame", 0, 0, 1, TRUE, 0, 48 },
    { "cut-in-index", 0, 4, 2, TRUE, 0, 400 },
    { "empty", 0, 0, 0, TRUE, 0, -1 },
    { "header-only", 0, 0, 0, TRUE, 0, -1 },
    { "newer-minor-unknown-frames", 0, 1, 1, TRUE, 2, -1 },
    { "bad-magic", TS_TRACE_READER_ERROR_NOT_A_TRACE, 0, 0, FALSE, 0, 0 },
    { "newer-major", TS_TRACE_READER_ERROR_VERSION, 0, 0, FALSE, 0, 0 },
    { "bad-enum", TS_TRACE_READER_ERROR_BAD_VALUE, 0, 0, FALSE, 0, 32 },
    { "string-before-definition", TS_TRACE_READER_ERROR_CORRUPT, 0, 0, FALSE, 0, 32 },
    { "string-out-of-order", TS_TRACE_READER_ERROR_CORRUPT, 0, 0, FALSE, 0, 32 },
    { "huge-length", TS_TRACE_READER_ERROR_CORRUPT, 0, 0, FALSE, 0, 32 },
    { "frame-past-end", TS_TRACE_READER_ERROR_CORRUPT, 0, 0, FALSE, 0, 32 },
    { "index-mismatch", TS_TRACE_READER_ERROR_CORRUPT, 4, 2, FALSE, 0, 400 },
    { "after-index", TS_TRACE_READER_ERROR_CORRUPT, 4, 2, FALSE, 0, 736 },
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

  return g_test_run ();
}
