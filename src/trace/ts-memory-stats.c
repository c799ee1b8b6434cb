/* ts-memory-stats.c: memory_stats keys and the memory_summary table
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ts-memory-stats.h"

typedef struct
{
  const char *name;
  gsize       offset;   /* of a gint64 inside TsMemoryStats */
} Key;

static const char * const stat_type_names[TS_N_STAT_TYPES] = { "all", "large_pool", "small_pool" };
static const char * const field_names[4] = { "current", "peak", "allocated", "freed" };

static const struct
{
  const char *name;
  gsize       offset;
} stat_arrays[] = {
  { "allocation", offsetof (TsMemoryStats, allocation) },
  { "segment", offsetof (TsMemoryStats, segment) },
  { "active", offsetof (TsMemoryStats, active) },
  { "inactive_split", offsetof (TsMemoryStats, inactive_split) },
  { "allocated_bytes", offsetof (TsMemoryStats, allocated_bytes) },
  { "reserved_bytes", offsetof (TsMemoryStats, reserved_bytes) },
  { "active_bytes", offsetof (TsMemoryStats, active_bytes) },
  { "inactive_split_bytes", offsetof (TsMemoryStats, inactive_split_bytes) },
  { "requested_bytes", offsetof (TsMemoryStats, requested_bytes) },
}, single_stats[] = {
  { "oversize_allocations", offsetof (TsMemoryStats, oversize_allocations) },
  { "oversize_segments", offsetof (TsMemoryStats, oversize_segments) },
}, scalars[] = {
  { "num_alloc_retries", offsetof (TsMemoryStats, num_alloc_retries) },
  { "num_ooms", offsetof (TsMemoryStats, num_ooms) },
  { "max_split_size", offsetof (TsMemoryStats, max_split_size) },
  { "num_sync_all_streams", offsetof (TsMemoryStats, num_sync_all_streams) },
  { "num_device_alloc", offsetof (TsMemoryStats, num_device_alloc) },
  { "num_device_free", offsetof (TsMemoryStats, num_device_free) },
};

static Key keys[TS_MEMORY_STATS_N_KEYS];

static int
compare_keys (gconstpointer a,
              gconstpointer b)
{
  return strcmp (((const Key *) a)->name, ((const Key *) b)->name);
}

static void
add_key (guint      *n,
         const char *name,
         gsize       offset)
{
  g_assert (*n < TS_MEMORY_STATS_N_KEYS);
  keys[*n].name = g_intern_string (name);
  keys[*n].offset = offset;
  (*n)++;
}

static void
add_stat_keys (guint      *n,
               const char *prefix,
               gsize       offset)
{
  guint f;

  for (f = 0; f < 4; f++)
    {
      g_autofree char *name = g_strdup_printf ("%s.%s", prefix, field_names[f]);

      add_key (n, name, offset + f * sizeof (gint64));
    }
}

/* Python sorts the flattened names as strings, which for ASCII names is
 * strcmp order; the table is built once and lives as long as the process. */
static const Key *
get_keys (void)
{
  static gsize initialized = 0;

  if (g_once_init_enter (&initialized))
    {
      guint n = 0, a, t;

      for (a = 0; a < G_N_ELEMENTS (stat_arrays); a++)
        for (t = 0; t < TS_N_STAT_TYPES; t++)
          {
            g_autofree char *prefix = g_strdup_printf ("%s.%s", stat_arrays[a].name, stat_type_names[t]);

            add_stat_keys (&n, prefix, stat_arrays[a].offset + t * sizeof (TsStat));
          }
      for (a = 0; a < G_N_ELEMENTS (single_stats); a++)
        add_stat_keys (&n, single_stats[a].name, single_stats[a].offset);
      for (a = 0; a < G_N_ELEMENTS (scalars); a++)
        add_key (&n, scalars[a].name, scalars[a].offset);

      g_assert (n == TS_MEMORY_STATS_N_KEYS);
      qsort (keys, n, sizeof (Key), compare_keys);
      g_once_init_leave (&initialized, 1);
    }
  return keys;
}

void
ts_memory_stats_init (TsMemoryStats *stats,
                      gint64         max_split_size)
{
  g_return_if_fail (stats != NULL);

  memset (stats, 0, sizeof *stats);
  stats->max_split_size = max_split_size;
}

const char *
ts_memory_stats_key (guint index)
{
  g_return_val_if_fail (index < TS_MEMORY_STATS_N_KEYS, NULL);

  return get_keys ()[index].name;
}

gint64
ts_memory_stats_value (const TsMemoryStats *stats,
                       guint                index)
{
  g_return_val_if_fail (stats != NULL, 0);
  g_return_val_if_fail (index < TS_MEMORY_STATS_N_KEYS, 0);

  return *(const gint64 *) ((const guint8 *) stats + get_keys ()[index].offset);
}

gboolean
ts_memory_stats_lookup (const TsMemoryStats *stats,
                        const char          *key,
                        gint64              *value)
{
  const Key *k, *table;
  Key probe;

  g_return_val_if_fail (stats != NULL, FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  table = get_keys ();
  probe.name = key;
  k = bsearch (&probe, table, TS_MEMORY_STATS_N_KEYS, sizeof (Key), compare_keys);
  if (k == NULL)
    return FALSE;
  if (value)
    *value = *(const gint64 *) ((const guint8 *) stats + k->offset);
  return TRUE;
}

static TsStat *
all_stats (TsMemoryStats *stats,
           guint         *n)
{
  /* The nine arrays and the two oversize stats are contiguous TsStats. */
  G_STATIC_ASSERT (offsetof (TsMemoryStats, oversize_segments) ==
                   offsetof (TsMemoryStats, allocation) + (9 * TS_N_STAT_TYPES + 1) * sizeof (TsStat));
  *n = 9 * TS_N_STAT_TYPES + 2;
  return stats->allocation;
}

void
ts_memory_stats_reset_peak (TsMemoryStats *stats)
{
  TsStat *s;
  guint n, k;

  g_return_if_fail (stats != NULL);

  s = all_stats (stats, &n);
  for (k = 0; k < n; k++)
    s[k].peak = s[k].current;
}

void
ts_memory_stats_reset_accumulated (TsMemoryStats *stats)
{
  TsStat *s;
  guint n, k;

  g_return_if_fail (stats != NULL);

  s = all_stats (stats, &n);
  for (k = 0; k < n; k++)
    s[k].allocated = s[k].freed = 0;
  stats->num_alloc_retries = 0;
  stats->num_ooms = 0;
  stats->num_sync_all_streams = 0;
  stats->num_device_alloc = 0;
  stats->num_device_free = 0;
}

/* Python's floor division, for the (never expected) negative values. */
static gint64
floor_div (gint64 a,
           gint64 b)
{
  gint64 q = a / b;

  if ((a % b != 0) && ((a < 0) != (b < 0)))
    q--;
  return q;
}

/* The unit of _format_size and _format_count: chosen by pref (the "all"
 * row of the column), one step up while pref is at least @threshold, pref
 * divided by @base as a float and *value floor-divided. */
static const char *
scale_to_unit (gint64             *value,
               double              pref,
               const char * const *prefixes,
               guint               n_prefixes,
               gint64              base,
               double              threshold)
{
  const char *prefix = prefixes[0];

  for (guint k = 1; k < n_prefixes; k++)
    {
      if (pref < threshold)
        break;
      prefix = prefixes[k];
      *value = floor_div (*value, base);
      pref /= base;
    }
  return prefix;
}

static void
format_size (GString *out,
             gint64   sz,
             double   pref)
{
  static const char * const prefixes[] = { "B  ", "KiB", "MiB", "GiB", "TiB", "PiB" };
  const char *prefix = scale_to_unit (&sz, pref, prefixes, G_N_ELEMENTS (prefixes), 1024, 768 * 1024);

  g_string_append_printf (out, "%6" G_GINT64_FORMAT " %s", sz, prefix);
}

static void
format_count (GString *out,
              gint64   cnt,
              double   pref)
{
  static const char * const prefixes[] = { " ", "K", "M" };
  const char *prefix = scale_to_unit (&cnt, pref, prefixes, G_N_ELEMENTS (prefixes), 1000, 750 * 1000);

  g_string_append_printf (out, "%7" G_GINT64_FORMAT " %s ", cnt, prefix);
}

typedef void (*Formatter) (GString *out, gint64 value, double pref);

static void
append_row (GString      *out,
            const char   *name,
            const TsStat *stat,
            const TsStat *pref,
            Formatter     formatter)
{
  g_string_append_printf (out, "| %-21s | ", name);
  formatter (out, stat->current, pref->current);
  g_string_append (out, " | ");
  formatter (out, stat->peak, pref->peak);
  g_string_append (out, " | ");
  formatter (out, stat->allocated, pref->allocated);
  g_string_append (out, " | ");
  formatter (out, stat->freed, pref->freed);
  g_string_append (out, " |\n");
}

static void
append_rule (GString *out,
             char     c)
{
  g_string_append_c (out, '|');
  for (guint k = 0; k < 75; k++)
    g_string_append_c (out, c);
  g_string_append (out, "|\n");
}

char *
ts_memory_stats_format_summary (const TsMemoryStats *stats,
                                int                  device,
                                gboolean             abbreviated)
{
  static const struct
  {
    gsize       offset;
    const char *name;
    gboolean    is_size;
  } metrics[] = {
    { offsetof (TsMemoryStats, allocated_bytes), "Allocated memory", TRUE },
    { offsetof (TsMemoryStats, active_bytes), "Active memory", TRUE },
    { offsetof (TsMemoryStats, requested_bytes), "Requested memory", TRUE },
    { offsetof (TsMemoryStats, reserved_bytes), "GPU reserved memory", TRUE },
    { offsetof (TsMemoryStats, inactive_split_bytes), "Non-releasable memory", TRUE },
    { offsetof (TsMemoryStats, allocation), "Allocations", FALSE },
    { offsetof (TsMemoryStats, active), "Active allocs", FALSE },
    { offsetof (TsMemoryStats, segment), "GPU reserved segments", FALSE },
    { offsetof (TsMemoryStats, inactive_split), "Non-releasable allocs", FALSE },
  };
  GString *out;
  guint m;

  g_return_val_if_fail (stats != NULL, NULL);

  out = g_string_sized_new (77 * 56);

  append_rule (out, '=');
  /* " {_:16} PyTorch CUDA memory summary, device ID {device:<17d} " */
  g_string_append_printf (out, "| %16s PyTorch CUDA memory summary, device ID %-17d |\n", "", device);
  append_rule (out, '-');
  /* "  {_:9} CUDA OOMs: {num_ooms:<12d} | {_:6} cudaMalloc retries: {num_alloc_retries:<8d}  " */
  g_string_append_printf (out, "|  %9s CUDA OOMs: %-12" G_GINT64_FORMAT " | %6s cudaMalloc retries: %-8"
                          G_GINT64_FORMAT "  |\n", "", stats->num_ooms, "", stats->num_alloc_retries);
  append_rule (out, '=');
  g_string_append (out, "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\n");

  for (m = 0; m < G_N_ELEMENTS (metrics); m++)
    {
      const TsStat *s = (const TsStat *) ((const guint8 *) stats + metrics[m].offset);
      Formatter f = metrics[m].is_size ? format_size : format_count;

      append_rule (out, '-');
      append_row (out, metrics[m].name, &s[TS_STAT_TYPE_ALL], &s[TS_STAT_TYPE_ALL], f);
      if (!abbreviated)
        {
          append_row (out, "      from large pool", &s[TS_STAT_TYPE_LARGE_POOL], &s[TS_STAT_TYPE_ALL], f);
          append_row (out, "      from small pool", &s[TS_STAT_TYPE_SMALL_POOL], &s[TS_STAT_TYPE_ALL], f);
        }
    }

  append_rule (out, '-');
  append_row (out, "Oversize allocations", &stats->oversize_allocations, &stats->oversize_allocations, format_count);
  append_rule (out, '-');
  append_row (out, "Oversize GPU segments", &stats->oversize_segments, &stats->oversize_segments, format_count);
  append_rule (out, '=');

  return g_string_free (out, FALSE);
}
