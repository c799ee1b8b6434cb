/* ts-import-input.h: buffered byte input for the importers, plain or gzip
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define TS_IMPORT_ERROR (ts_import_error_quark ())

typedef enum
{
  TS_IMPORT_ERROR_FORMAT = 1,   /* not a file we know */
  TS_IMPORT_ERROR_CORRUPT,      /* bad or hostile content */
  TS_IMPORT_ERROR_TRUNCATED,    /* ends too early */
  TS_IMPORT_ERROR_LIMIT,        /* beyond a guard (depth, length) */
  TS_IMPORT_ERROR_IO,
} TsImportError;

GQuark ts_import_error_quark (void);

typedef struct _TsImportInput TsImportInput;

struct _TsImportInput
{
  const guint8 *data;   /* buffered bytes: data[pos..len) */
  gsize         pos;
  gsize         len;
  guint64       consumed;  /* bytes before data[0] */
  /* private */
  gpointer      gz;
  guint8       *buf;
  gsize         buf_size;
  gboolean      eof;
  gboolean      failed;
  char         *gz_error;
};

/* Opens a file; gzip is detected by its magic and decompressed as read. */
TsImportInput *ts_import_input_open   (const char    *path,
                                       GError       **error);
/* Reads from memory (not copied; must outlive the input). */
TsImportInput *ts_import_input_new_bytes (const guint8 *data,
                                          gsize         len);
void           ts_import_input_free   (TsImportInput *in);
/* Makes at least `want` bytes available at data[pos] if the file has
 * them; returns how many are available (fewer only at the end). */
gsize          ts_import_input_fill   (TsImportInput *in,
                                       gsize          want);
/* Whether a read failed (as opposed to a clean end of file). */
gboolean       ts_import_input_failed (TsImportInput *in,
                                       GError       **error);
static inline guint64
ts_import_input_offset (const TsImportInput *in)
{
  return in->consumed + in->pos;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsImportInput, ts_import_input_free)

G_END_DECLS
