/* ts-memory-stat-item.h: one memory_stats() key and its value, for lists
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The row type of the memory_stats table: 122 of these per instant, so a
 * GObject per row is fine here (the big tables stay columnar).
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define TS_TYPE_MEMORY_STAT_ITEM (ts_memory_stat_item_get_type ())

G_DECLARE_FINAL_TYPE (TsMemoryStatItem, ts_memory_stat_item, TS, MEMORY_STAT_ITEM, GObject)

TsMemoryStatItem *ts_memory_stat_item_new       (const char       *key,
                                                 gint64            value);
const char       *ts_memory_stat_item_get_key   (TsMemoryStatItem *self);
gint64            ts_memory_stat_item_get_value (TsMemoryStatItem *self);
/* Notifies "value" when it changes; TRUE then. */
gboolean          ts_memory_stat_item_set_value (TsMemoryStatItem *self,
                                                 gint64            value);
/* "12.0 MiB" for byte counters, the plain number otherwise. */
char             *ts_memory_stat_item_format    (TsMemoryStatItem *self);

G_END_DECLS
