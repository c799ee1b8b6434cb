/* ts-nvtx-forward.c: a workload's NVTX calls, also sent to the real NVTX
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ts-nvtx-forward.h"

#ifdef TS_HAVE_NVTX3

#include <nvtx3/nvToolsExt.h>

/* nvtxRangeStartA hands out its own ids; ours come from the runtime. */
static GMutex ranges_lock;
static GHashTable *ranges;   /* our range id → nvtxRangeId_t */

void
ts_nvtx_forward_mark (const char *message)
{
  nvtxMarkA (message ? message : "");
}

void
ts_nvtx_forward_range_push (const char *message)
{
  nvtxRangePushA (message ? message : "");
}

void
ts_nvtx_forward_range_pop (void)
{
  nvtxRangePop ();
}

void
ts_nvtx_forward_range_start (guint64     range_id,
                             const char *message)
{
  nvtxRangeId_t id = nvtxRangeStartA (message ? message : "");
  guint64 *key = g_new (guint64, 1);
  guint64 *value = g_new (guint64, 1);

  *key = range_id;
  *value = id;
  g_mutex_lock (&ranges_lock);
  if (ranges == NULL)
    ranges = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_hash_table_replace (ranges, key, value);
  g_mutex_unlock (&ranges_lock);
}

void
ts_nvtx_forward_range_end (guint64 range_id)
{
  guint64 *value;

  g_mutex_lock (&ranges_lock);
  value = ranges ? g_hash_table_lookup (ranges, &range_id) : NULL;
  if (value != NULL)
    {
      nvtxRangeEnd (*value);
      g_hash_table_remove (ranges, &range_id);
    }
  g_mutex_unlock (&ranges_lock);
}

#else /* !TS_HAVE_NVTX3 */

void ts_nvtx_forward_mark (const char *message) { }
void ts_nvtx_forward_range_push (const char *message) { }
void ts_nvtx_forward_range_pop (void) { }
void ts_nvtx_forward_range_start (guint64 range_id, const char *message) { }
void ts_nvtx_forward_range_end (guint64 range_id) { }

#endif
