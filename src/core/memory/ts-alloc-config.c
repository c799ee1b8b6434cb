/* ts-alloc-config.c: PYTORCH_CUDA_ALLOC_CONF parser
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The structure mirrors PyTorch's parser on purpose: a lexer that turns the
 * string into tokens (',', ':', '[' and ']' are tokens of their own, spaces
 * vanish), then one small function per key that consumes its tokens and
 * returns the index of the last one. Numbers are read the way std::stoi and
 * std::stod read them (leading digits count, trailing garbage is ignored),
 * because that decides which strings PyTorch accepts.
 */

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ts-alloc-config.h"

#define MiB (G_GUINT64_CONSTANT (1) << 20)
#define LARGE_BUFFER (20 * MiB)

G_DEFINE_QUARK (ts-alloc-config-error-quark, ts_alloc_config_error)

typedef struct
{
  GPtrArray *tokens;   /* char *, owned */
} Lexed;

static void
lex (const char *str,
     gsize       len,
     Lexed      *out)
{
  GString *buf = g_string_new (NULL);
  gsize i;

  out->tokens = g_ptr_array_new_with_free_func (g_free);

  for (i = 0; i < len; i++)
    {
      char ch = str[i];

      if (ch == ',' || ch == ':' || ch == '[' || ch == ']')
        {
          if (buf->len > 0)
            {
              g_ptr_array_add (out->tokens, g_strndup (buf->str, buf->len));
              g_string_truncate (buf, 0);
            }
          g_ptr_array_add (out->tokens, g_strndup (&ch, 1));
        }
      else if (ch != ' ')
        {
          g_string_append_c (buf, ch);
        }
    }

  if (buf->len > 0)
    g_ptr_array_add (out->tokens, g_strndup (buf->str, buf->len));

  g_string_free (buf, TRUE);
}

static gboolean
fail (GError    **error,
      const char *format,
      ...) G_GNUC_PRINTF (2, 3);

static gboolean
fail (GError    **error,
      const char *format,
      ...)
{
  va_list args;

  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (TS_ALLOC_CONFIG_ERROR,
                                                TS_ALLOC_CONFIG_ERROR_INVALID,
                                                format, args));
  va_end (args);
  return FALSE;
}

static const char *
token (const Lexed *lx,
       guint        i)
{
  return i < lx->tokens->len ? g_ptr_array_index (lx->tokens, i) : NULL;
}

static gboolean
consume_token (const Lexed *lx,
               guint        i,
               char         c,
               GError     **error)
{
  const char *t = token (lx, i);

  if (t == NULL || t[0] != c || t[1] != '\0')
    return fail (error, "Error parsing CachingAllocator settings, expected %c", c);
  return TRUE;
}

/* The value token after KEY's ':', or NULL with an error: PyTorch's
 * "expecting ... value" where the configuration ends after the colon. */
static const char *
expect_value (const Lexed *lx,
              guint       *i,
              const char  *key,
              GError     **error)
{
  const char *t;

  if (!consume_token (lx, ++*i, ':', error))
    return NULL;
  if ((t = token (lx, ++*i)) == NULL)
    fail (error, "Error, expecting %s value", key);
  return t;
}

/* std::stoi: optional whitespace and sign, at least one digit, the rest of
 * the token ignored; the value must fit an int. The result is then stored
 * in a size_t by PyTorch, so a negative value wraps; callers decide. */
static gboolean
parse_stoi (const char *t,
            const char *what,
            gint64     *out,
            GError    **error)
{
  char *end = NULL;
  gint64 v;

  errno = 0;
  v = g_ascii_strtoll (t, &end, 10);
  if (end == t)
    return fail (error, "Error parsing CachingAllocator settings, expected an integer for %s, got \"%s\"",
                 what, t);
  if (errno == ERANGE || v > G_MAXINT32 || v < G_MININT32)
    return fail (error, "Error parsing CachingAllocator settings, %s value \"%s\" is out of range",
                 what, t);
  *out = v;
  return TRUE;
}

static gboolean
is_power_of_2 (guint64 v)
{
  return v != 0 && (v & (v - 1)) == 0;
}

static guint
floor_log2 (guint64 v)
{
  g_assert (v != 0);
  return 63 - __builtin_clzll (v);
}

static gboolean
parse_split_size_mb (const Lexed *lx,
                     guint       *i,
                     const char  *key,
                     guint64     *out,
                     GError     **error)
{
  const char *t;
  gint64 v;

  if ((t = expect_value (lx, i, key, error)) == NULL)
    return FALSE;
  if (!parse_stoi (t, key, &v, error))
    return FALSE;
  /* PyTorch stores a negative stoi result in a size_t, where it becomes
   * huge and passes the check; refusing it is the only sane reading. */
  if (v <= (gint64) (LARGE_BUFFER / MiB))
    return fail (error, "CachingAllocator option %s too small, must be > %" G_GUINT64_FORMAT,
                 key, LARGE_BUFFER / MiB);
  *out = (guint64) v * MiB;
  return TRUE;
}

static gboolean
parse_gc_threshold (const Lexed   *lx,
                    guint         *i,
                    TsAllocConfig *config,
                    GError       **error)
{
  const char *t;
  char *end = NULL;
  double v;

  if ((t = expect_value (lx, i, "garbage_collection_threshold", error)) == NULL)
    return FALSE;

  errno = 0;
  v = g_ascii_strtod (t, &end);
  if (end == t)
    return fail (error, "Error parsing CachingAllocator settings, expected a number for garbage_collection_threshold, got \"%s\"", t);
  if (errno == ERANGE)
    return fail (error, "Error parsing CachingAllocator settings, garbage_collection_threshold value \"%s\" is out of range", t);
  if (!(v > 0))
    return fail (error, "garbage_collect_threshold too small, set it 0.0~1.0");
  if (!(v < 1.0))
    return fail (error, "garbage_collect_threshold too big, set it 0.0~1.0");

  config->garbage_collection_threshold = v;
  return TRUE;
}

static gboolean
parse_roundup_array (const Lexed   *lx,
                     guint         *i,
                     TsAllocConfig *config,
                     GError       **error)
{
  gboolean first_value = TRUE;
  guint last_index = 0;
  const char *t;

  while ((t = token (lx, ++*i)) != NULL && strcmp (t, "]") != 0)
    {
      const char *interval = t;
      const char *next;
      gint64 divisions;

      if (!consume_token (lx, ++*i, ':', error))
        return FALSE;
      if ((t = token (lx, ++*i)) == NULL)
        return fail (error, "Error parsing roundup_power2_divisions value");
      if (!parse_stoi (t, "roundup_power2_divisions", &divisions, error))
        return FALSE;
      if (divisions != 0 && (divisions < 0 || !is_power_of_2 ((guint64) divisions)))
        return fail (error, "For roundups, the divisons has to be power of 2 or 0 to disable roundup ");

      if (strcmp (interval, ">") == 0)
        {
          guint k;

          for (k = last_index; k < TS_ALLOC_CONFIG_N_ROUNDUP_INTERVALS; k++)
            config->roundup_power2_divisions[k] = divisions;
        }
      else
        {
          char *end = NULL;
          guint64 mb;
          guint index;

          errno = 0;
          mb = g_ascii_strtoull (interval, &end, 10);
          if (end == interval)
            return fail (error, "Error parsing CachingAllocator settings, expected an interval in MB or \">\", got \"%s\"",
                         interval);
          if (errno == ERANGE || !is_power_of_2 (mb))
            return fail (error, "For roundups, the intervals have to be power of 2 ");

          index = MIN (floor_log2 (mb), TS_ALLOC_CONFIG_N_ROUNDUP_INTERVALS - 1);
          if (first_value)
            {
              guint k;

              /* The first interval also covers every smaller size. */
              for (k = 0; k < index; k++)
                config->roundup_power2_divisions[k] = divisions;
              first_value = FALSE;
            }
          config->roundup_power2_divisions[index] = divisions;
          last_index = index;
        }

      /* PyTorch reads past the end here when the list is not closed; we
       * treat the end of the string as its end, as the loop above does. */
      next = token (lx, *i + 1);
      if (next != NULL && strcmp (next, "]") != 0)
        {
          if (!consume_token (lx, ++*i, ',', error))
            return FALSE;
        }
    }

  return TRUE;
}

static gboolean
parse_roundup (const Lexed   *lx,
               guint         *i,
               TsAllocConfig *config,
               GError       **error)
{
  const char *t;
  gint64 v;
  guint k;

  if ((t = expect_value (lx, i, "roundup_power2_divisions", error)) == NULL)
    return FALSE;

  if (strcmp (t, "[") == 0)
    return parse_roundup_array (lx, i, config, error);

  /* The scalar form, kept by PyTorch for backwards compatibility. */
  if (!parse_stoi (t, "roundup_power2_divisions", &v, error))
    return FALSE;
  if (v < 0 || !is_power_of_2 ((guint64) v))
    return fail (error, "For roundups, the divisons has to be power of 2 ");
  for (k = 0; k < TS_ALLOC_CONFIG_N_ROUNDUP_INTERVALS; k++)
    config->roundup_power2_divisions[k] = v;
  return TRUE;
}

static gboolean
parse_bool (const Lexed *lx,
            guint       *i,
            const char  *key,
            gboolean     value_error_first,
            gboolean    *out,
            GError     **error)
{
  const char *t;

  if (!consume_token (lx, ++*i, ':', error))
    return FALSE;
  t = token (lx, ++*i);
  if (t == NULL && !value_error_first)
    return fail (error, "Error, expecting %s value", key);
  if (t == NULL || (strcmp (t, "True") != 0 && strcmp (t, "False") != 0))
    return fail (error, "Expected a single True/False argument for %s", key);
  *out = strcmp (t, "True") == 0;
  return TRUE;
}

static gboolean
parse_register_threads (const Lexed   *lx,
                        guint         *i,
                        TsAllocConfig *config,
                        GError       **error)
{
  const char *t;
  gint64 v;

  if ((t = expect_value (lx, i, "pinned_num_register_threads", error)) == NULL)
    return FALSE;
  if (!parse_stoi (t, "pinned_num_register_threads", &v, error))
    return FALSE;
  if (v < 0 || !is_power_of_2 ((guint64) v))
    return fail (error, "Number of register threads has to be power of 2 ");
  if (v > TS_ALLOC_CONFIG_MAX_REGISTER_THREADS)
    return fail (error, "Number of register threads should be less than or equal to %d",
                 TS_ALLOC_CONFIG_MAX_REGISTER_THREADS);
  config->pinned_num_register_threads = v;
  return TRUE;
}

static gboolean
parse_backend (const Lexed   *lx,
               guint         *i,
               TsAllocConfig *config,
               GError       **error)
{
  const char *t;

  if (!consume_token (lx, ++*i, ':', error))
    return FALSE;
  if ((t = token (lx, ++*i)) == NULL)
    return fail (error, "Error parsing backend value");
  if (strcmp (t, "native") == 0)
    config->backend = TS_ALLOC_BACKEND_NATIVE;
  else if (strcmp (t, "cudaMallocAsync") == 0)
    config->backend = TS_ALLOC_BACKEND_CUDA_MALLOC_ASYNC;
  else
    return fail (error, "Unknown allocator backend, options are native and cudaMallocAsync");
  return TRUE;
}

static gboolean
parse_option (const Lexed   *lx,
              guint         *i,
              TsAllocConfig *config,
              GError       **error)
{
  const char *key = token (lx, *i);

  if (strcmp (key, "max_split_size_mb") == 0)
    return parse_split_size_mb (lx, i, key, &config->max_split_size, error);
  if (strcmp (key, "max_non_split_rounding_mb") == 0)
    return parse_split_size_mb (lx, i, key, &config->max_non_split_rounding_size, error);
  if (strcmp (key, "garbage_collection_threshold") == 0)
    return parse_gc_threshold (lx, i, config, error);
  if (strcmp (key, "roundup_power2_divisions") == 0)
    return parse_roundup (lx, i, config, error);
  if (strcmp (key, "backend") == 0)
    return parse_backend (lx, i, config, error);
  if (strcmp (key, "expandable_segments") == 0)
    return parse_bool (lx, i, "expandable_segments", TRUE, &config->expandable_segments, error);
  /* PyTorch accepts the ROCm spellings too. */
  if (strcmp (key, "release_lock_on_cudamalloc") == 0 || strcmp (key, "release_lock_on_hipmalloc") == 0)
    return parse_bool (lx, i, "release_lock_on_cudamalloc", TRUE,
                       &config->release_lock_on_cudamalloc, error);
  if (strcmp (key, "pinned_use_cuda_host_register") == 0 || strcmp (key, "pinned_use_hip_host_register") == 0)
    return parse_bool (lx, i, "pinned_use_cuda_host_register", FALSE,
                       &config->pinned_use_cuda_host_register, error);
  if (strcmp (key, "pinned_num_register_threads") == 0)
    return parse_register_threads (lx, i, config, error);

  return fail (error, "Unrecognized CachingAllocator option: %s", key);
}

void
ts_alloc_config_init (TsAllocConfig *config)
{
  g_return_if_fail (config != NULL);

  memset (config, 0, sizeof *config);
  config->max_split_size = TS_ALLOC_CONFIG_MAX_SPLIT_UNSET;
  config->max_non_split_rounding_size = LARGE_BUFFER;
  config->pinned_num_register_threads = 1;
  config->backend = TS_ALLOC_BACKEND_NATIVE;
}

static void
reset_parsed_defaults (TsAllocConfig *config)
{
  config->max_split_size = TS_ALLOC_CONFIG_MAX_SPLIT_UNSET;
  config->max_non_split_rounding_size = LARGE_BUFFER;
  memset (config->roundup_power2_divisions, 0, sizeof config->roundup_power2_divisions);
  config->garbage_collection_threshold = 0;
}

gboolean
ts_alloc_config_parse_len (TsAllocConfig *config,
                           const char    *str,
                           gsize          len,
                           GError       **error)
{
  TsAllocConfig work;
  Lexed lx;
  gboolean ok = TRUE;
  guint i;

  g_return_val_if_fail (config != NULL, FALSE);
  g_return_val_if_fail (str != NULL || len == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  work = *config;
  reset_parsed_defaults (&work);

  if (str == NULL)
    {
      *config = work;
      return TRUE;
    }

  lex (str, len, &lx);

  for (i = 0; ok && i < lx.tokens->len; i++)
    {
      ok = parse_option (&lx, &i, &work, error);
      if (ok && i + 1 < lx.tokens->len)
        ok = consume_token (&lx, ++i, ',', error);
    }

  g_ptr_array_unref (lx.tokens);

  if (!ok)
    return FALSE;

  /* A valid setting that the simulated allocator does not model: refuse
   * it here, where the user gets to see why, rather than run with a
   * behaviour that differs from what was asked for. */
  if (work.backend == TS_ALLOC_BACKEND_CUDA_MALLOC_ASYNC)
    {
      g_set_error_literal (error, TS_ALLOC_CONFIG_ERROR, TS_ALLOC_CONFIG_ERROR_UNSUPPORTED,
                           "backend:cudaMallocAsync is not supported by Tensorscope: "
                           "only the native caching allocator is modelled");
      return FALSE;
    }

  *config = work;
  return TRUE;
}

gboolean
ts_alloc_config_parse (TsAllocConfig *config,
                       const char    *str,
                       GError       **error)
{
  return ts_alloc_config_parse_len (config, str, str ? strlen (str) : 0, error);
}

guint64
ts_alloc_config_roundup_divisions (const TsAllocConfig *config,
                                   guint64              size)
{
  int index;

  g_return_val_if_fail (config != NULL, 0);

  if (size == 0)
    return config->roundup_power2_divisions[0];

  /* Intervals start at 1 MiB (2^20); everything below shares the first. */
  index = (int) floor_log2 (size) - 20;
  index = CLAMP (index, 0, TS_ALLOC_CONFIG_N_ROUNDUP_INTERVALS - 1);
  return config->roundup_power2_divisions[index];
}
