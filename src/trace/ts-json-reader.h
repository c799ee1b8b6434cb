/* ts-json-reader.h: a streaming JSON tokenizer for the importers
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-import-input.h"
#include "ts-import-value.h"

G_BEGIN_DECLS

#define TS_JSON_MAX_DEPTH 512

typedef struct
{
  TsImportInput *in;
  GString       *scratch;   /* unescaped strings */
} TsJsonReader;

void     ts_json_reader_init   (TsJsonReader  *r,
                                TsImportInput *in);
void     ts_json_reader_clear  (TsJsonReader  *r);

/* The next non-space byte, not consumed; -1 at the end. */
int      ts_json_peek_slow     (TsJsonReader  *r);

static inline int
ts_json_peek (TsJsonReader *r)
{
  TsImportInput *in = r->in;

  if (G_LIKELY (in->pos < in->len && in->data[in->pos] > ' '))
    return in->data[in->pos];
  return ts_json_peek_slow (r);
}
gboolean ts_json_error         (TsJsonReader  *r,
                                GError       **error,
                                gint           code,
                                const char    *what);

/* Objects: begin_object reads '{'; object_next reads the next key and its
 * ':' (or the closing '}' and sets *more FALSE). *key is valid until the
 * next call on the reader. */
gboolean ts_json_begin_object  (TsJsonReader  *r,
                                GError       **error);
gboolean ts_json_object_next   (TsJsonReader  *r,
                                gboolean      *first,
                                const char   **key,
                                gsize         *key_len,
                                gboolean      *more,
                                GError       **error);
gboolean ts_json_begin_array   (TsJsonReader  *r,
                                GError       **error);
gboolean ts_json_array_next    (TsJsonReader  *r,
                                gboolean      *first,
                                gboolean      *more,
                                GError       **error);

/* A string value; *s valid until the next call. */
gboolean ts_json_read_string   (TsJsonReader  *r,
                                const char   **s,
                                gsize         *len,
                                GError       **error);
/* A number; *is_int when it had no fraction or exponent and fits. */
gboolean ts_json_read_number   (TsJsonReader  *r,
                                gint64        *i,
                                double        *d,
                                gboolean      *is_int,
                                GError       **error);
/* A number of µs as exact ns ("4458676984138.984" → ...138984); a string
 * holding a number is accepted too. */
gboolean ts_json_read_us_as_ns (TsJsonReader  *r,
                                gint64        *ns,
                                GError       **error);
/* Any value, skipped without building it. */
gboolean ts_json_skip          (TsJsonReader  *r,
                                GError       **error);
/* Any value, built (bounded depth). */
gboolean ts_json_read_value    (TsJsonReader  *r,
                                TsValue      **out,
                                GError       **error);

G_END_DECLS
