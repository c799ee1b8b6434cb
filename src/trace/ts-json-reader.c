/* ts-json-reader.c: a streaming JSON tokenizer for the importers
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Written by hand rather than with json-glib: JsonParser builds a DOM of
 * the whole document (a 1 GB profiler trace is several GB of JsonNodes),
 * and the issue asks for memory proportional to what is kept. This reads
 * from a sliding buffer and lets the importer walk the document, building
 * values only for the small pieces it keeps (ts_json_read_value) and
 * skipping the rest without allocating. Nothing recurses: nesting is
 * bounded by TS_JSON_MAX_DEPTH, every string by MAX_STRING.
 */

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ts-json-reader.h"

#define MAX_STRING (256u << 20)

void
ts_json_reader_init (TsJsonReader  *r,
                     TsImportInput *in)
{
  r->in = in;
  r->scratch = g_string_sized_new (256);
}

void
ts_json_reader_clear (TsJsonReader *r)
{
  if (r->scratch != NULL)
    g_string_free (r->scratch, TRUE);
  r->scratch = NULL;
}

gboolean
ts_json_error (TsJsonReader *r,
               GError      **error,
               gint          code,
               const char   *what)
{
  if (ts_import_input_failed (r->in, error))
    return FALSE;
  g_set_error (error, TS_IMPORT_ERROR, code, "JSON: %s (at byte %" G_GUINT64_FORMAT ")",
               what, ts_import_input_offset (r->in));
  return FALSE;
}

static gboolean
truncated (TsJsonReader *r,
           GError      **error)
{
  return ts_json_error (r, error, TS_IMPORT_ERROR_TRUNCATED, "the file ends in the middle of the data");
}

int
ts_json_peek_slow (TsJsonReader *r)
{
  TsImportInput *in = r->in;

  for (;;)
    {
      if (in->pos >= in->len && ts_import_input_fill (in, 1) == 0)
        return -1;
      while (in->pos < in->len)
        {
          guint8 c = in->data[in->pos];
          if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            return c;
          in->pos++;
        }
    }
}

static gboolean
expect (TsJsonReader *r,
        char          c,
        GError      **error)
{
  int p = ts_json_peek (r);

  if (p == c)
    {
      r->in->pos++;
      return TRUE;
    }
  if (p < 0)
    return truncated (r, error);
  {
    g_autofree char *what = g_strdup_printf ("expected '%c'", c);
    return ts_json_error (r, error, TS_IMPORT_ERROR_CORRUPT, what);
  }
}

gboolean
ts_json_begin_object (TsJsonReader *r,
                      GError      **error)
{
  return expect (r, '{', error);
}

gboolean
ts_json_begin_array (TsJsonReader *r,
                     GError      **error)
{
  return expect (r, '[', error);
}

/* After a member or element: ',' or the closing bracket. */
static gboolean
next_member (TsJsonReader *r,
             char          close,
             gboolean     *first,
             gboolean     *more,
             GError      **error)
{
  int c = ts_json_peek (r);

  if (c < 0)
    return truncated (r, error);
  if (c == close)
    {
      r->in->pos++;
      *more = FALSE;
      return TRUE;
    }
  if (!*first)
    {
      if (c != ',')
        return ts_json_error (r, error, TS_IMPORT_ERROR_CORRUPT, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
      r->in->pos++;
    }
  *first = FALSE;
  *more = TRUE;
  return TRUE;
}

gboolean
ts_json_object_next (TsJsonReader *r,
                     gboolean     *first,
                     const char  **key,
                     gsize        *key_len,
                     gboolean     *more,
                     GError      **error)
{
  if (!next_member (r, '}', first, more, error))
    return FALSE;
  if (!*more)
    return TRUE;
  if (!ts_json_read_string (r, key, key_len, error))
    return FALSE;
  /* The key stays valid: expect() only moves pos, it never refills
   * unless the buffer is exhausted, and then the key was copied. */
  if (r->in->pos < r->in->len && r->in->data[r->in->pos] == ':')
    {
      r->in->pos++;
      return TRUE;
    }
  if (*key != r->scratch->str)
    {
      g_string_truncate (r->scratch, 0);
      g_string_append_len (r->scratch, *key, *key_len);
      *key = r->scratch->str;
    }
  return expect (r, ':', error);
}

gboolean
ts_json_array_next (TsJsonReader *r,
                    gboolean     *first,
                    gboolean     *more,
                    GError      **error)
{
  return next_member (r, ']', first, more, error);
}

static int
hex_value (guint8 c)
{
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static gboolean
read_hex4 (const guint8 *p,
           guint        *out)
{
  guint v = 0;

  for (guint i = 0; i < 4; i++)
    {
      int h = hex_value (p[i]);
      if (h < 0)
        return FALSE;
      v = (v << 4) | (guint) h;
    }
  *out = v;
  return TRUE;
}

gboolean
ts_json_read_string (TsJsonReader *r,
                     const char  **s,
                     gsize        *len,
                     GError      **error)
{
  TsImportInput *in = r->in;
  gsize i = 1;

  if (ts_json_peek (r) != '"')
    return ts_json_peek (r) < 0 ? truncated (r, error)
                                : ts_json_error (r, error, TS_IMPORT_ERROR_CORRUPT, "expected a string");
  /* Fast path: no escapes, the whole string in the buffer. */
  for (;;)
    {
      const guint8 *p = in->data + in->pos;
      gsize avail = in->len - in->pos;

      while (i < avail && p[i] != '"' && p[i] != '\\')
        i++;
      if (i < avail)
        {
          if (p[i] == '"')
            {
              *s = (const char *) p + 1;
              *len = i - 1;
              in->pos += i + 1;
              return TRUE;
            }
          break;   /* an escape */
        }
      if (i > MAX_STRING)
        return ts_json_error (r, error, TS_IMPORT_ERROR_LIMIT, "a string longer than 256 MiB");
      if (ts_import_input_fill (in, i + 1) < i + 1)
        return truncated (r, error);
    }

  /* Slow path: unescape into scratch. */
  g_string_truncate (r->scratch, 0);
  g_string_append_len (r->scratch, (const char *) in->data + in->pos + 1, i - 1);
  in->pos += i;
  for (;;)
    {
      guint8 c;

      if (ts_import_input_fill (in, 1) < 1)
        return truncated (r, error);
      c = in->data[in->pos];
      if (c == '"')
        {
          in->pos++;
          break;
        }
      if (r->scratch->len > MAX_STRING)
        return ts_json_error (r, error, TS_IMPORT_ERROR_LIMIT, "a string longer than 256 MiB");
      if (c != '\\')
        {
          /* copy a run */
          gsize j = in->pos;
          while (j < in->len && in->data[j] != '"' && in->data[j] != '\\')
            j++;
          g_string_append_len (r->scratch, (const char *) in->data + in->pos, j - in->pos);
          in->pos = j;
          continue;
        }
      if (ts_import_input_fill (in, 2) < 2)
        return truncated (r, error);
      c = in->data[in->pos + 1];
      in->pos += 2;
      switch (c)
        {
        case '"': g_string_append_c (r->scratch, '"'); break;
        case '\\': g_string_append_c (r->scratch, '\\'); break;
        case '/': g_string_append_c (r->scratch, '/'); break;
        case 'b': g_string_append_c (r->scratch, '\b'); break;
        case 'f': g_string_append_c (r->scratch, '\f'); break;
        case 'n': g_string_append_c (r->scratch, '\n'); break;
        case 'r': g_string_append_c (r->scratch, '\r'); break;
        case 't': g_string_append_c (r->scratch, '\t'); break;
        case 'u':
          {
            guint cp, lo;
            if (ts_import_input_fill (in, 4) < 4)
              return truncated (r, error);
            if (!read_hex4 (in->data + in->pos, &cp))
              return ts_json_error (r, error, TS_IMPORT_ERROR_CORRUPT, "bad \\u escape");
            in->pos += 4;
            if (cp >= 0xd800 && cp < 0xdc00)
              {
                if (ts_import_input_fill (in, 6) >= 6 && in->data[in->pos] == '\\' &&
                    in->data[in->pos + 1] == 'u' && read_hex4 (in->data + in->pos + 2, &lo) &&
                    lo >= 0xdc00 && lo < 0xe000)
                  {
                    in->pos += 6;
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                  }
                else
                  cp = 0xfffd;
              }
            else if (cp >= 0xdc00 && cp < 0xe000)
              cp = 0xfffd;
            if (cp == 0)
              cp = 0xfffd;   /* strings are NUL-terminated downstream */
            g_string_append_unichar (r->scratch, cp);
          }
          break;
        default:
          return ts_json_error (r, error, TS_IMPORT_ERROR_CORRUPT, "bad escape in a string");
        }
    }
  *s = r->scratch->str;
  *len = r->scratch->len;
  return TRUE;
}

/* The bytes of a number token, at most 63, copied NUL-terminated. */
static gboolean
number_token (TsJsonReader *r,
              char          buf[64],
              gsize        *n,
              GError      **error)
{
  TsImportInput *in = r->in;
  gsize k = 0;

  if (ts_json_peek (r) < 0)
    return truncated (r, error);
  for (;;)
    {
      guint8 c;
      if (in->pos >= in->len && ts_import_input_fill (in, 1) == 0)
        break;
      c = in->data[in->pos];
      if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'))
        break;
      if (k >= 63)
        return ts_json_error (r, error, TS_IMPORT_ERROR_LIMIT, "a number longer than 63 characters");
      buf[k++] = (char) c;
      in->pos++;
    }
  buf[k] = '\0';
  if (k == 0)
    return ts_json_error (r, error, TS_IMPORT_ERROR_CORRUPT, "expected a value");
  *n = k;
  return TRUE;
}

/* Where the bytes of a number (at most 40) are all in the buffer, or the
 * file ends within them: the fast paths parse in place. */
static gboolean
number_in_buffer (TsJsonReader *r)
{
  TsImportInput *in = r->in;

  return in->len - in->pos >= 40 || ts_import_input_fill (in, 40) > 0;
}

static inline gboolean
is_number_end (TsImportInput *in,
               gsize          k)
{
  guint8 c;

  if (k >= in->len)
    return TRUE;
  c = in->data[k];
  return !((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+');
}

gboolean
ts_json_read_number (TsJsonReader *r,
                     gint64       *i,
                     double       *d,
                     gboolean     *is_int,
                     GError      **error)
{
  char buf[64], *end = NULL;
  gsize n;
  gboolean plain = TRUE;

  if (ts_json_peek (r) >= 0 && number_in_buffer (r))
    {
      TsImportInput *in = r->in;
      gsize k = in->pos, digits = 0;
      gboolean neg = FALSE;
      guint64 v = 0;

      if (k < in->len && in->data[k] == '-')
        neg = TRUE, k++;
      while (k < in->len && in->data[k] >= '0' && in->data[k] <= '9' && digits < 18)
        v = v * 10 + (in->data[k++] - '0'), digits++;
      if (digits > 0 && is_number_end (in, k))
        {
          *i = neg ? -(gint64) v : (gint64) v;
          *d = (double) *i;
          *is_int = TRUE;
          in->pos = k;
          return TRUE;
        }
    }

  if (!number_token (r, buf, &n, error))
    return FALSE;
  for (gsize k = 0; k < n; k++)
    if (buf[k] == '.' || buf[k] == 'e' || buf[k] == 'E')
      plain = FALSE;
  *is_int = FALSE;
  if (plain)
    {
      gint64 v;
      errno = 0;
      v = g_ascii_strtoll (buf, &end, 10);
      if (end != buf + n)
        return ts_json_error (r, error, TS_IMPORT_ERROR_CORRUPT, "bad number");
      if (errno == 0)
        {
          *i = v;
          *d = (double) v;
          *is_int = TRUE;
          return TRUE;
        }
    }
  *d = g_ascii_strtod (buf, &end);
  if (end != buf + n)
    return ts_json_error (r, error, TS_IMPORT_ERROR_CORRUPT, "bad number");
  *i = (*d >= -9.2e18 && *d <= 9.2e18) ? (gint64) *d : 0;
  return TRUE;
}

static gboolean
parse_us_as_ns (const char *p,
                gsize       n,
                gint64     *ns)
{
  gboolean neg = FALSE;
  guint64 whole = 0, frac = 0;
  guint nd = 0, fd = 0;
  gsize k = 0;

  if (k < n && p[k] == '-')
    neg = TRUE, k++;
  while (k < n && p[k] >= '0' && p[k] <= '9')
    {
      if (++nd > 15)
        return FALSE;
      whole = whole * 10 + (guint64) (p[k++] - '0');
    }
  if (k < n && p[k] == '.')
    {
      k++;
      while (k < n && p[k] >= '0' && p[k] <= '9')
        {
          if (fd < 3)
            frac = frac * 10 + (guint64) (p[k] - '0');
          else if (fd == 3 && p[k] >= '5')
            frac++;   /* round half up on the fourth digit */
          fd++, k++;
        }
    }
  if (k != n || nd == 0)
    return FALSE;
  for (; fd < 3; fd++)
    frac *= 10;
  *ns = (gint64) (whole * 1000 + frac);
  if (neg)
    *ns = -*ns;
  return TRUE;
}

gboolean
ts_json_read_us_as_ns (TsJsonReader *r,
                       gint64       *ns,
                       GError      **error)
{
  char buf[64], *end = NULL;
  gsize n;
  double d;

  if (ts_json_peek (r) >= 0 && ts_json_peek (r) != '"' && number_in_buffer (r))
    {
      TsImportInput *in = r->in;
      gsize k = in->pos;

      while (k < in->len && k - in->pos < 40 && !is_number_end (in, k))
        k++;
      if (k - in->pos < 40 && (k < in->len || in->eof) &&
          parse_us_as_ns ((const char *) in->data + in->pos, k - in->pos, ns))
        {
          in->pos = k;
          return TRUE;
        }
    }

  if (ts_json_peek (r) == '"')
    {
      const char *s;
      gsize len;
      if (!ts_json_read_string (r, &s, &len, error))
        return FALSE;
      if (len >= sizeof buf)
        return ts_json_error (r, error, TS_IMPORT_ERROR_CORRUPT, "bad time");
      memcpy (buf, s, len);
      buf[len] = '\0';
      n = len;
    }
  else if (!number_token (r, buf, &n, error))
    return FALSE;
  if (parse_us_as_ns (buf, n, ns))
    return TRUE;
  d = g_ascii_strtod (buf, &end);
  if (end != buf + n || !(d * 1000.0 >= -9.2e18 && d * 1000.0 <= 9.2e18))
    return ts_json_error (r, error, TS_IMPORT_ERROR_CORRUPT, "bad time");
  *ns = (gint64) (d * 1000.0 + (d >= 0 ? 0.5 : -0.5));
  return TRUE;
}

static gboolean
read_literal (TsJsonReader *r,
              const char   *word,
              GError      **error)
{
  gsize n = strlen (word);

  if (ts_import_input_fill (r->in, n) < n)
    return truncated (r, error);
  if (memcmp (r->in->data + r->in->pos, word, n) != 0)
    return ts_json_error (r, error, TS_IMPORT_ERROR_CORRUPT, "expected a value");
  r->in->pos += n;
  return TRUE;
}

/* A scalar at the current position, as a value (or skipped with out NULL). */
static gboolean
read_scalar (TsJsonReader *r,
             int           c,
             TsValue     **out,
             GError      **error)
{
  switch (c)
    {
    case '"':
      {
        const char *s;
        gsize len;
        if (!ts_json_read_string (r, &s, &len, error))
          return FALSE;
        if (out)
          *out = ts_value_new_string (s, len);
        return TRUE;
      }
    case 't':
    case 'f':
    case 'n':
      /* true, false or null: the first letter tells which */
      if (!read_literal (r, c == 't' ? "true" : c == 'f' ? "false" : "null", error))
        return FALSE;
      if (out)
        *out = c == 'n' ? ts_value_new (TS_VALUE_NONE) : ts_value_new_bool (c == 't');
      return TRUE;
    default:
      {
        gint64 i;
        double d;
        gboolean is_int;
        if (!ts_json_read_number (r, &i, &d, &is_int, error))
          return FALSE;
        if (out)
          *out = is_int ? ts_value_new_int (i) : ts_value_new_float (d);
        return TRUE;
      }
    }
}

/* One walker for skip and read: containers are a stack of open brackets
 * (and, when building, of values). */
static gboolean
walk (TsJsonReader *r,
      TsValue     **out,
      GError      **error)
{
  char brackets[TS_JSON_MAX_DEPTH];
  gboolean firsts[TS_JSON_MAX_DEPTH];
  TsValue *values[TS_JSON_MAX_DEPTH];
  guint depth = 0;
  TsValue *root = NULL;
  gboolean ok = FALSE;

  for (;;)
    {
      int c = ts_json_peek (r);
      TsValue *v = NULL;

      if (c < 0)
        {
          truncated (r, error);
          goto out;
        }
      if (c == '{' || c == '[')
        {
          if (depth >= TS_JSON_MAX_DEPTH)
            {
              ts_json_error (r, error, TS_IMPORT_ERROR_LIMIT, "nested deeper than 512 levels");
              goto out;
            }
          r->in->pos++;
          if (out)
            {
              v = ts_value_new (c == '{' ? TS_VALUE_DICT : TS_VALUE_LIST);
              if (depth == 0)
                root = v;
              else
                ts_value_append (values[depth - 1], v);
            }
          brackets[depth] = c == '{' ? '}' : ']';
          firsts[depth] = TRUE;
          values[depth] = v;
          depth++;
        }
      else
        {
          if (!read_scalar (r, c, out ? &v : NULL, error))
            goto out;
          if (out)
            {
              if (depth == 0)
                root = v;
              else
                ts_value_append (values[depth - 1], v);
            }
          if (depth == 0)
            break;
        }

      /* Close what is finished, then position at the next value. */
      for (;;)
        {
          gboolean more = FALSE;

          if (!next_member (r, brackets[depth - 1], &firsts[depth - 1], &more, error))
            goto out;
          if (!more)
            {
              depth--;
              if (depth == 0)
                goto done;
              continue;
            }
          if (brackets[depth - 1] == '}')
            {
              const char *key;
              gsize len;
              if (!ts_json_read_string (r, &key, &len, error))
                goto out;
              if (out)
                ts_value_append (values[depth - 1], ts_value_new_string (key, len));
              if (!expect (r, ':', error))
                goto out;
            }
          break;
        }
    }
done:
  ok = TRUE;
out:
  if (out)
    {
      if (ok)
        *out = root;
      else
        ts_value_unref (root);
    }
  return ok;
}

gboolean
ts_json_skip (TsJsonReader *r,
              GError      **error)
{
  return walk (r, NULL, error);
}

gboolean
ts_json_read_value (TsJsonReader *r,
                    TsValue     **out,
                    GError      **error)
{
  *out = NULL;
  return walk (r, out, error);
}
