/* fuzz-trace-reader.c: the trace reader on arbitrary bytes
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Loads the input twice, as a whole file and as a stream fed in pieces
 * whose sizes come from the input itself, and checks that both agree on
 * what they loaded: the two paths share the parser but not the buffering.
 * Then the hazard analysis runs over what loaded, as a viewer would.
 *
 * A gzip'd input is also loaded as it is, which inflates it, and must load
 * exactly what its inflated bytes load.
 */

#include "config.h"

#include <stdlib.h>

#include "ts-hazards.h"
#include "ts-trace-reader.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static guint64
check_plain (const guint8 *data,
             size_t        size,
             gboolean     *ok)
{
  g_autoptr(TsRecorder) whole = ts_recorder_new ();
  g_autoptr(TsRecorder) streamed = ts_recorder_new ();
  g_autoptr(TsTraceReader) file_reader = ts_trace_reader_new (whole);
  g_autoptr(TsTraceReader) stream_reader = ts_trace_reader_new (streamed);
  g_autoptr(GError) file_error = NULL;
  g_autoptr(GError) stream_error = NULL;
  gboolean file_ok, stream_ok = TRUE;
  gsize step = size > 0 ? 1 + data[size - 1] % 61 : 1;

  file_ok = ts_trace_reader_load_data (file_reader, data, size, &file_error);
  g_assert (file_ok == (file_error == NULL));
  *ok = file_ok;

  for (gsize pos = 0; pos < size && stream_ok; pos += step)
    stream_ok = ts_trace_reader_feed (stream_reader, data + pos, MIN (step, size - pos), &stream_error);
  if (stream_ok)
    stream_ok = ts_trace_reader_finish (stream_reader, &stream_error);
  g_assert (stream_ok == (stream_error == NULL));

  /* Both load the same frames. The only difference allowed: a whole file
   * that ends in the index trailer calls a frame running past its end
   * corrupt, where a stream calls it cut short. */
  g_assert (ts_trace_reader_get_n_records (file_reader) == ts_trace_reader_get_n_records (stream_reader));
  g_assert (ts_recorder_get_n_strings (whole) == ts_recorder_get_n_strings (streamed));
  if (file_ok && stream_ok)
    g_assert (ts_trace_reader_get_complete (file_reader) == ts_trace_reader_get_complete (stream_reader));
  if (!file_ok && !stream_ok)
    g_assert (file_error->code == stream_error->code);

  /* Whatever loaded reads back. */
  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    {
      gsize n = ts_recorder_get_count (whole, k);
      for (gsize i = 0; i < n; i++)
        {
          guint64 rec[TS_RECORD_MAX_SIZE / 8];
          g_assert (ts_recorder_get (whole, k, i, rec));
          g_assert (ts_record_validate (k, rec, NULL));
        }
    }

  /* The hazard replay runs on whatever a viewer opens. */
  {
    g_autoptr(GArray) hazards = ts_hazards_find (whole);

    for (guint i = 0; i < MIN (hazards->len, 4); i++)
      g_free (ts_hazard_explain (&g_array_index (hazards, TsHazard, i), whole));
  }

  return ts_trace_reader_get_n_records (file_reader);
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(TsRecorder) rec = NULL;
  g_autoptr(TsTraceReader) reader = NULL;
  g_autoptr(GBytes) inflated = NULL;
  g_autoptr(GError) error = NULL;
  const guint8 *plain;
  gsize plain_len;
  gboolean ok, plain_ok;
  guint64 n;

  if (!ts_trace_is_gzip (data, size))
    {
      check_plain (data, size, &ok);
      return 0;
    }
  rec = ts_recorder_new ();
  reader = ts_trace_reader_new (rec);
  ok = ts_trace_reader_load_data (reader, data, size, NULL);
  inflated = ts_trace_gunzip (data, size, &error);
  if (inflated == NULL)
    {
      g_assert (!ok && error->code == TS_TRACE_READER_ERROR_CORRUPT);
      return 0;
    }
  plain = g_bytes_get_data (inflated, &plain_len);
  /* gzip in gzip is inflated once only, as a file is */
  if (ts_trace_is_gzip (plain, plain_len))
    return 0;
  n = check_plain (plain, plain_len, &plain_ok);
  g_assert (ok == plain_ok);
  g_assert (n == ts_trace_reader_get_n_records (reader));
  return 0;
}
