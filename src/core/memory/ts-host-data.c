/* ts-host-data.c: the host-memory budget for tensor data, and --no-data
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ts-host-data.h"

G_DEFINE_QUARK (ts-host-data-error-quark, ts_host_data_error)

gboolean ts_host_data_no_data_on;
static guint64 limit;          /* 0: not known yet */
static guint64 charged;        /* atomic */

gboolean
ts_host_data_parse_no_data (const char  *text,
                            gboolean    *on,
                            GError     **error)
{
  static const char *const yes[] = { "1", "true", "yes", "on", NULL };
  static const char *const no[] = { "", "0", "false", "no", "off", NULL };

  if (text != NULL && g_strv_contains (yes, text))
    *on = TRUE;
  else if (text == NULL || g_strv_contains (no, text))
    *on = FALSE;
  else
    {
      g_set_error (error, TS_HOST_DATA_ERROR, TS_HOST_DATA_ERROR_INVALID,
                   "TENSORSCOPE_NO_DATA must be 1 or 0, not “%s”", text);
      return FALSE;
    }
  return TRUE;
}

gboolean
ts_host_data_parse_limit (const char  *text,
                          guint64     *bytes,
                          GError     **error)
{
  static const char units[] = "KMGT";
  const char *unit;
  char *end = NULL;
  guint64 v;

  if (text == NULL || !g_ascii_isdigit (text[0]))
    goto bad;
  errno = 0;
  v = g_ascii_strtoull (text, &end, 10);
  if (errno != 0)
    goto bad;
  if (*end != '\0')
    {
      if (end[1] != '\0' && g_ascii_strcasecmp (end + 1, "iB") != 0 && g_ascii_strcasecmp (end + 1, "B") != 0)
        goto bad;
      if ((unit = strchr (units, g_ascii_toupper (*end))) == NULL || *end == '\0')
        goto bad;
      for (const char *u = units; u <= unit; u++)
        {
          if (v > G_MAXUINT64 / 1024)
            goto bad;
          v *= 1024;
        }
    }
  if (v == 0)
    goto bad;
  *bytes = v;
  return TRUE;

bad:
  g_set_error (error, TS_HOST_DATA_ERROR, TS_HOST_DATA_ERROR_INVALID,
               "TENSORSCOPE_HOST_MEMORY_LIMIT must be a positive byte count, optionally with "
               "K, M, G or T (1024-based), as in 512M; not “%s”", text ? text : "");
  return FALSE;
}

gboolean
ts_host_data_configure_from_env (GError **error)
{
  const char *nd = g_getenv ("TENSORSCOPE_NO_DATA");
  const char *lim = g_getenv ("TENSORSCOPE_HOST_MEMORY_LIMIT");
  gboolean on = FALSE;
  guint64 bytes;

  if (!ts_host_data_parse_no_data (nd, &on, error))
    return FALSE;
  if (on)
    ts_host_data_no_data_on = TRUE;
  if (lim != NULL)
    {
      if (!ts_host_data_parse_limit (lim, &bytes, error))
        return FALSE;
      limit = bytes;
    }
  return TRUE;
}

void
ts_host_data_set_no_data (gboolean on)
{
  ts_host_data_no_data_on = on;
}

gboolean
ts_host_data_refuse (const char  *what,
                     GError     **error)
{
  g_set_error (error, TS_HOST_DATA_ERROR, TS_HOST_DATA_ERROR_NO_DATA,
               "%s needs tensor values, and this run has none: it runs with --no-data "
               "(TENSORSCOPE_NO_DATA=1), which models shapes, memory and time without "
               "computing or storing values", what);
  return FALSE;
}

void
ts_host_data_set_limit (guint64 bytes)
{
  limit = bytes;
}

/* The memory the kernel says it can give without swapping, else all of
 * it: a default that stops well before the OOM killer would. */
static guint64
available_memory (void)
{
  g_autofree char *text = NULL;
  const char *line;

  if (g_file_get_contents ("/proc/meminfo", &text, NULL, NULL) &&
      (line = strstr (text, "MemAvailable:")) != NULL)
    {
      guint64 kib = g_ascii_strtoull (line + strlen ("MemAvailable:"), NULL, 10);
      if (kib > 0)
        return kib * 1024;
    }
  return (guint64) sysconf (_SC_PHYS_PAGES) * (guint64) sysconf (_SC_PAGESIZE);
}

static guint64
get_limit (void)
{
  guint64 v = __atomic_load_n (&limit, __ATOMIC_RELAXED);

  if (v == 0)
    {
      v = available_memory ();
      __atomic_store_n (&limit, v, __ATOMIC_RELAXED);
    }
  return v;
}

static gboolean
fits (guint64   bytes,
      guint64   old,
      guint64   cap,
      GError  **error)
{
  if (bytes <= cap && old <= cap - bytes)
    return TRUE;
  g_set_error (error, TS_HOST_DATA_ERROR, TS_HOST_DATA_ERROR_NO_MEMORY,
               "not enough host memory for %" G_GUINT64_FORMAT " bytes of tensor data (%"
               G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes in use): the simulated "
               "devices' data lives in this machine's memory; tensorscope-cli run --no-data "
               "(TENSORSCOPE_NO_DATA=1) models the run without it",
               bytes, old, cap);
  return FALSE;
}

gboolean
ts_host_data_check (guint64   bytes,
                    GError  **error)
{
  return fits (bytes, __atomic_load_n (&charged, __ATOMIC_RELAXED), get_limit (), error);
}

gboolean
ts_host_data_charge (guint64      bytes,
                     GError     **error)
{
  guint64 cap = get_limit ();
  guint64 old = __atomic_load_n (&charged, __ATOMIC_RELAXED);

  do
    {
      if (!fits (bytes, old, cap, error))
        return FALSE;
    }
  while (!__atomic_compare_exchange_n (&charged, &old, old + bytes, TRUE,
                                       __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return TRUE;
}

void
ts_host_data_release (guint64 bytes)
{
  __atomic_fetch_sub (&charged, bytes, __ATOMIC_RELAXED);
}

guint64
ts_host_data_get_charged (void)
{
  return __atomic_load_n (&charged, __ATOMIC_RELAXED);
}

/* Above the heap and below the usual mmap area, 64-byte aligned as c10's
 * CPU allocator: addresses that look like a host's and never overlap. */
#define FAKE_BASE ((guint64) 0x500000000000)

guint64
ts_host_data_fake_address (gsize nbytes)
{
  static guint64 next = FAKE_BASE;
  guint64 span = ((guint64) MAX (nbytes, 1) + 63) & ~(guint64) 63;

  return __atomic_fetch_add (&next, span, __ATOMIC_RELAXED);
}
