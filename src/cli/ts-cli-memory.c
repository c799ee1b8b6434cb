/* ts-cli-memory.c: `tensorscope-cli memory TRACE [--at WHEN]`
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The allocator's state at one instant of a trace, rebuilt from its
 * recorded actions: fragmentation figures and why segments cannot be
 * released, and on request memory_stats() as a key/value table and
 * memory_summary() exactly as PyTorch prints them at that instant.
 */

#include "config.h"

#include <string.h>

#include <stdlib.h>

#include "ts-cli-private.h"
#include "ts-memory-fragmentation.h"
#include "ts-memory-replay.h"
#include "ts-trace-import.h"
#include "ts-time-ruler.h"

typedef struct
{
  TsMemPoolId id;
  guint       n_segments;
  guint       n_expandable;
  guint64     reserved;
  guint64     allocated;
} PoolLine;

/* The device's segments by pool, when any is a private pool's or an
 * expandable segment's range (otherwise the fragmentation report's totals
 * say it all): reserved and allocated bytes per MempoolId_t. */
static void
print_pools (const TsMemoryState *state,
             guint                device)
{
  g_autoptr(GArray) pools = g_array_new (FALSE, TRUE, sizeof (PoolLine));
  gboolean interesting = FALSE;

  for (guint k = 0; k < state->segments->len; k++)
    {
      const TsMemorySegment *seg = &g_array_index (state->segments, TsMemorySegment, k);
      PoolLine *line = NULL;

      if (seg->device != device)
        continue;
      interesting |= seg->is_expandable || !TS_MEM_POOL_ID_IS_NONE (seg->pool_id);
      for (guint j = 0; j < pools->len && line == NULL; j++)
        if (TS_MEM_POOL_ID_EQUAL (g_array_index (pools, PoolLine, j).id, seg->pool_id))
          line = &g_array_index (pools, PoolLine, j);
      if (line == NULL)
        {
          g_array_set_size (pools, pools->len + 1);
          line = &g_array_index (pools, PoolLine, pools->len - 1);
          line->id = seg->pool_id;
        }
      line->n_segments++;
      line->n_expandable += seg->is_expandable;
      line->reserved += seg->total_size;
      line->allocated += seg->allocated_size;
    }
  if (!interesting)
    return;
  printf ("\n  Pools on device %u:\n", device);
  for (guint j = 0; j < pools->len; j++)
    {
      const PoolLine *line = &g_array_index (pools, PoolLine, j);
      g_autofree char *name = ts_memory_pool_name (line->id);
      g_autofree char *reserved = ts_memory_format_bytes (line->reserved);
      g_autofree char *allocated = ts_memory_format_bytes (line->allocated);

      printf ("    %s: %u segment%s, %s reserved, %s allocated", name, line->n_segments,
              line->n_segments == 1 ? "" : "s", reserved, allocated);
      if (line->n_expandable > 0)
        printf (" (%u mapped range%s of expandable segments)", line->n_expandable,
                line->n_expandable == 1 ? "" : "s");
      printf ("\n");
    }
}

gboolean
ts_cli_resolve_instant (TsMemoryReplay *replay,
                        const char     *at,
                        gsize          *index)
{
  gsize n = ts_memory_replay_get_n_actions (replay);
  TsTime t;

  if (at == NULL || g_str_equal (at, "end"))
    {
      *index = n;
      return TRUE;
    }
  if (g_str_has_prefix (at, "oom"))
    {
      guint which = 1, n_ooms = ts_memory_replay_get_n_ooms (replay);

      if (at[3] == ':')
        {
          char *end = NULL;
          guint64 v = g_ascii_strtoull (at + 4, &end, 10);

          if (end == at + 4 || *end != '\0' || v == 0 || v > G_MAXUINT)
            return FALSE;
          which = (guint) v;
        }
      else if (at[3] != '\0')
        return FALSE;
      if (which > n_ooms)
        {
          ts_cli_message ("the trace has %u OOM%s", n_ooms, n_ooms == 1 ? "" : "s");
          return FALSE;
        }
      /* Just after the failed request. */
      *index = ts_memory_replay_get_oom (replay, which - 1)->action + 1;
      return TRUE;
    }
  if (at[0] == '#')
    {
      char *end = NULL;
      guint64 v = g_ascii_strtoull (at + 1, &end, 10);

      if (end == at + 1 || *end != '\0')
        return FALSE;
      *index = MIN (v, n);
      return TRUE;
    }
  if (!ts_cli_parse_time (at, &t))
    return FALSE;
  *index = ts_memory_replay_index_at_time (replay, t);
  return TRUE;
}

int
ts_cli_memory_main (int    argc,
                    char **argv)
{
  g_autofree char *at = NULL;
  gint device = -1;
  gboolean stats = FALSE, summary = FALSE, abbreviated = FALSE;
  const GOptionEntry entries[] = {
    { "at", 0, 0, G_OPTION_ARG_STRING, &at,
      "The instant: a time (12ms), oom or oom:N (just after the N-th OOM), #N (after N allocator actions) or end (default)", "WHEN" },
    { "device", 'd', 0, G_OPTION_ARG_INT, &device, "Only this device", "N" },
    { "stats", 0, 0, G_OPTION_ARG_NONE, &stats, "Print memory_stats() as a key/value table", NULL },
    { "summary", 0, 0, G_OPTION_ARG_NONE, &summary, "Print memory_summary() as PyTorch does", NULL },
    { "abbreviated", 0, 0, G_OPTION_ARG_NONE, &abbreviated, "memory_summary(abbreviated=True)", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("TRACE");
  g_autoptr(TsTraceDocument) doc = NULL;
  g_autoptr(TsMemoryReplay) replay = NULL;
  g_autoptr(TsMemoryState) state = NULL;
  gsize index = 0;

  g_option_context_set_summary (context, "The caching allocator's state at an instant of a trace: "
                                         "fragmentation, memory_stats, memory_summary.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!ts_cli_parse_trace_args (context, "memory", &argc, &argv))
    return 2;

  doc = ts_cli_open_trace (argv[1], NULL);
  if (doc == NULL)
    return 1;

  replay = ts_memory_replay_new (ts_trace_document_get_recorder (doc));
  if (ts_memory_replay_get_n_actions (replay) == 0)
    {
      ts_cli_message ("memory: the trace has no allocator actions");
      return 1;
    }
  if (!ts_cli_resolve_instant (replay, at, &index))
    {
      ts_cli_message ("memory: bad instant '%s' (use a time such as 12ms, oom, oom:N, #N or end)", at);
      return 2;
    }
  if (device >= (gint) ts_memory_replay_get_n_devices (replay))
    {
      ts_cli_message ("memory: no device %d (the trace has %u)", device, ts_memory_replay_get_n_devices (replay));
      return 2;
    }

  state = ts_memory_replay_state_at (replay, index);
  {
    g_autofree char *when = ts_time_format_duration (state->time);
    printf ("Allocator state after %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " actions (t = %s)\n",
            state->index, ts_memory_replay_get_n_actions (replay), when);
  }
  if (ts_memory_replay_get_n_skipped (replay) > 0)
    printf ("(%" G_GSIZE_FORMAT " records did not fit the allocator's state and were skipped)\n",
            ts_memory_replay_get_n_skipped (replay));
  if (ts_memory_replay_get_n_plain (replay) > 0)
    printf ("(%" G_GSIZE_FORMAT " plain cudaMalloc/cudaFree calls are outside the caching allocator's "
            "state: not shown)\n", ts_memory_replay_get_n_plain (replay));
  /* What a snapshot import had to rebuild (blocks from before recording,
   * an overflowed ring buffer), as memory_viz says it. */
  {
    g_autoptr(GPtrArray) notes = ts_trace_import_get_notes (ts_trace_document_get_recorder (doc));
    for (guint i = 0; i < notes->len; i++)
      if (g_str_has_prefix (notes->pdata[i], "memory snapshot: ") &&
          (strstr (notes->pdata[i], "before") != NULL || strstr (notes->pdata[i], "overflowed") != NULL ||
           strstr (notes->pdata[i], "no allocator history") != NULL))
        printf ("Note: %s\n", (const char *) notes->pdata[i] + strlen ("memory snapshot: "));
      else if (g_str_has_prefix (notes->pdata[i], TS_IMPORT_SYNTHETIC_SEGMENTS_NOTE))
        printf ("Note: %s\n", (const char *) notes->pdata[i] + strlen (TS_IMPORT_SYNTHETIC_SEGMENTS_NOTE));
  }

  for (guint d = 0; d < state->n_devices; d++)
    {
      g_autoptr(TsMemoryFragmentation) frag = NULL;
      g_autofree char *text = NULL;

      if (device >= 0 && d != (guint) device)
        continue;
      frag = ts_memory_fragmentation_compute (replay, state, d, 8);
      text = ts_memory_fragmentation_format (frag);
      printf ("\n%s", text);
      print_pools (state, d);

      if (stats)
        {
          printf ("\n  memory_stats(device=%u)\n", d);
          for (guint k = 0; k < TS_MEMORY_STATS_N_KEYS; k++)
            printf ("  %-40s %20" G_GINT64_FORMAT "\n", ts_memory_stats_key (k),
                    ts_memory_stats_value (&state->stats[d], k));
        }
      if (summary)
        {
          g_autofree char *table = ts_memory_stats_format_summary (&state->stats[d], (int) d, abbreviated);
          printf ("\n%s", table);
        }
    }
  return 0;
}
