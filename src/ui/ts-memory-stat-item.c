/* ts-memory-stat-item.c: one memory_stats() key and its value, for lists
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-memory-fragmentation.h"
#include "ts-memory-stat-item.h"

struct _TsMemoryStatItem
{
  GObject  parent_instance;
  char    *key;
  gint64   value;
};

enum {
  PROP_0,
  PROP_KEY,
  PROP_VALUE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (TsMemoryStatItem, ts_memory_stat_item, G_TYPE_OBJECT)

static void
ts_memory_stat_item_finalize (GObject *object)
{
  TsMemoryStatItem *self = (TsMemoryStatItem *) object;

  g_clear_pointer (&self->key, g_free);
  G_OBJECT_CLASS (ts_memory_stat_item_parent_class)->finalize (object);
}

static void
ts_memory_stat_item_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  TsMemoryStatItem *self = TS_MEMORY_STAT_ITEM (object);

  switch (prop_id)
    {
    case PROP_KEY:
      g_value_set_string (value, self->key);
      break;
    case PROP_VALUE:
      g_value_set_int64 (value, self->value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_memory_stat_item_class_init (TsMemoryStatItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ts_memory_stat_item_finalize;
  object_class->get_property = ts_memory_stat_item_get_property;

  properties[PROP_KEY] =
    g_param_spec_string ("key", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_VALUE] =
    g_param_spec_int64 ("value", NULL, NULL, G_MININT64, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ts_memory_stat_item_init (TsMemoryStatItem *self)
{
}

TsMemoryStatItem *
ts_memory_stat_item_new (const char *key,
                         gint64      value)
{
  TsMemoryStatItem *self;

  g_return_val_if_fail (key != NULL, NULL);

  self = g_object_new (TS_TYPE_MEMORY_STAT_ITEM, NULL);
  self->key = g_strdup (key);
  self->value = value;
  return self;
}

const char *
ts_memory_stat_item_get_key (TsMemoryStatItem *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_STAT_ITEM (self), NULL);
  return self->key;
}

gint64
ts_memory_stat_item_get_value (TsMemoryStatItem *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_STAT_ITEM (self), 0);
  return self->value;
}

gboolean
ts_memory_stat_item_set_value (TsMemoryStatItem *self,
                               gint64            value)
{
  g_return_val_if_fail (TS_IS_MEMORY_STAT_ITEM (self), FALSE);

  if (self->value == value)
    return FALSE;
  self->value = value;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VALUE]);
  return TRUE;
}

char *
ts_memory_stat_item_format (TsMemoryStatItem *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_STAT_ITEM (self), NULL);

  if (strstr (self->key, "_bytes.") != NULL && self->value >= 0)
    return ts_memory_format_bytes ((guint64) self->value);
  return g_strdup ("");
}
