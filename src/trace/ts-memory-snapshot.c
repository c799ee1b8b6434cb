/* ts-memory-snapshot.c: the caching allocator's state at an instant
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ts-memory-snapshot.h"

const char *
ts_block_state_to_string (TsBlockState state)
{
  switch (state)
    {
    case TS_BLOCK_STATE_ACTIVE_ALLOCATED:
      return "active_allocated";
    case TS_BLOCK_STATE_ACTIVE_PENDING_FREE:
      return "active_pending_free";
    case TS_BLOCK_STATE_INACTIVE:
    default:
      return "inactive";
    }
}

const char *
ts_alloc_action_to_string (TsAllocAction action)
{
  switch (action)
    {
    case TS_ALLOC_ACTION_ALLOC:
      return "alloc";
    case TS_ALLOC_ACTION_FREE_REQUESTED:
      return "free_requested";
    case TS_ALLOC_ACTION_FREE_COMPLETED:
      return "free_completed";
    case TS_ALLOC_ACTION_SEGMENT_ALLOC:
      return "segment_alloc";
    case TS_ALLOC_ACTION_SEGMENT_FREE:
      return "segment_free";
    case TS_ALLOC_ACTION_OOM:
      return "oom";
    case TS_ALLOC_ACTION_SNAPSHOT:
      return "snapshot";
    case TS_ALLOC_ACTION_ALLOC_RETRY:
      return "alloc_retry";
    case TS_ALLOC_ACTION_SYNC_ALL_STREAMS:
      return "sync_all_streams";
    case TS_ALLOC_ACTION_RESET_PEAK:
      return "reset_peak";
    case TS_ALLOC_ACTION_RESET_ACCUMULATED:
      return "reset_accumulated";
    case TS_ALLOC_ACTION_CONFIG:
      return "config";
    case TS_ALLOC_ACTION_MEMORY_FRACTION:
      return "memory_fraction";
    case TS_ALLOC_ACTION_SEGMENT_MAP:
      return "segment_map";
    case TS_ALLOC_ACTION_SEGMENT_UNMAP:
      return "segment_unmap";
    default:
      return NULL;
    }
}

guint64
ts_memory_allocation_size (guint64 size)
{
  if (size <= TS_ALLOCATOR_SMALL_SIZE)
    return TS_ALLOCATOR_SMALL_BUFFER;
  if (size < TS_ALLOCATOR_MIN_LARGE_ALLOC)
    return TS_ALLOCATOR_LARGE_BUFFER;
  return TS_ALLOCATOR_ROUND_LARGE * ((size + TS_ALLOCATOR_ROUND_LARGE - 1) / TS_ALLOCATOR_ROUND_LARGE);
}

static guint64
roundup_power2_next_division (guint64 size,
                              guint64 divisions)
{
  guint64 power2_floor, power2_division, round_size_floor;

  if ((size & (size - 1)) == 0)
    return size;
  power2_floor = G_GUINT64_CONSTANT (1) << (63 - __builtin_clzll (size));
  power2_division = power2_floor >> (63 - __builtin_clzll (divisions));
  if (G_UNLIKELY (power2_division == 0))
    return power2_floor << 1;
  round_size_floor = size & ~(power2_division - 1);
  return round_size_floor == size ? size : round_size_floor + power2_division;
}

guint64
ts_memory_round_size (guint64 size,
                      guint64 divisions)
{
  const guint64 min_block = TS_ALLOCATOR_MIN_BLOCK_SIZE;

  if (size < min_block)
    return min_block;
  if (divisions > 1 && size > min_block * divisions)
    return roundup_power2_next_division (size, divisions);
  return min_block * ((size + min_block - 1) / min_block);
}

char *
ts_memory_format_size (guint64 size)
{
  if (size <= 1024)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " bytes", size);
  if (size <= 1048576)
    return g_strdup_printf ("%.2f KiB", (double) size / 1024.0);
  if (size <= G_GUINT64_CONSTANT (1073741824))
    return g_strdup_printf ("%.2f MiB", (double) size / 1048576.0);
  return g_strdup_printf ("%.2f GiB", (double) size / 1073741824.0);
}

void
ts_memory_snapshot_free (TsMemorySnapshot *snapshot)
{
  guint d;

  if (snapshot == NULL)
    return;
  g_array_unref (snapshot->segments);
  g_array_unref (snapshot->blocks);
  for (d = 0; d < snapshot->n_devices; d++)
    g_array_unref (snapshot->device_traces[d]);
  g_free (snapshot->device_traces);
  g_free (snapshot);
}
