/* ts-import-input.c: buffered byte input for the importers, plain or gzip
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * zlib's gzread reads gzip and, transparently, plain files: one path for
 * .json, .json.gz and .pickle. The buffer is fixed (1 MiB) and slides.
 */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <zlib.h>

#include "ts-import-input.h"

#define BUF_SIZE (1u << 20)

G_DEFINE_QUARK (ts-import-error-quark, ts_import_error)

TsImportInput *
ts_import_input_open (const char  *path,
                      GError     **error)
{
  TsImportInput *in;
  gzFile gz;

  gz = gzopen (path, "rb");
  if (gz == NULL)
    {
      int saved = errno;
      g_set_error (error, TS_IMPORT_ERROR, TS_IMPORT_ERROR_IO, "cannot open: %s",
                   saved != 0 ? g_strerror (saved) : "out of memory");
      return NULL;
    }
  gzbuffer (gz, 256 * 1024);
  in = g_new0 (TsImportInput, 1);
  in->gz = gz;
  in->buf_size = BUF_SIZE;
  in->buf = g_malloc (in->buf_size);
  in->data = in->buf;
  return in;
}

TsImportInput *
ts_import_input_new_bytes (const guint8 *data,
                           gsize         len)
{
  TsImportInput *in = g_new0 (TsImportInput, 1);

  in->data = data;
  in->len = len;
  in->eof = TRUE;
  return in;
}

void
ts_import_input_free (TsImportInput *in)
{
  if (in == NULL)
    return;
  if (in->gz != NULL)
    gzclose (in->gz);
  g_free (in->buf);
  g_free (in->gz_error);
  g_free (in);
}

gsize
ts_import_input_fill (TsImportInput *in,
                      gsize          want)
{
  while (in->len - in->pos < want && !in->eof)
    {
      gsize keep = in->len - in->pos;
      int n;

      /* The unread bytes move to the front; the read fills the rest. */
      if (in->pos > 0)
        {
          memmove (in->buf, in->buf + in->pos, keep);
          in->consumed += in->pos;
          in->pos = 0;
          in->len = keep;
        }
      if (want > in->buf_size)
        {
          /* A caller that wants more than the buffer (a long string):
           * grow, bounded by the callers' own length guards. */
          in->buf_size = want + BUF_SIZE;
          in->buf = g_realloc (in->buf, in->buf_size);
          in->data = in->buf;
        }
      n = gzread (in->gz, in->buf + in->len, (unsigned) MIN (in->buf_size - in->len, G_MAXINT / 2));
      if (n < 0)
        {
          int errnum = 0;
          const char *msg = gzerror (in->gz, &errnum);
          in->failed = TRUE;
          in->eof = TRUE;
          in->gz_error = g_strdup (msg != NULL ? msg : "read error");
          break;
        }
      if (n == 0)
        {
          int errnum = 0;
          const char *msg = gzerror (in->gz, &errnum);
          if (errnum != Z_OK && errnum != Z_STREAM_END)
            {
              in->failed = TRUE;
              in->gz_error = g_strdup (msg != NULL ? msg : "read error");
            }
          in->eof = TRUE;
          break;
        }
      in->len += (gsize) n;
    }
  return in->len - in->pos;
}

gboolean
ts_import_input_failed (TsImportInput *in,
                        GError       **error)
{
  if (!in->failed)
    return FALSE;
  g_set_error (error, TS_IMPORT_ERROR, TS_IMPORT_ERROR_IO, "read error: %s",
               in->gz_error != NULL ? in->gz_error : "unknown");
  return TRUE;
}
