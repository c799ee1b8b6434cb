/* ts-import-value.c: small parsed values shared by the PyTorch importers
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-import-value.h"

static GPtrArray *take_items (guint reserve);

/* Nodes come from a per-thread free list: an import makes and drops
 * millions of them (one per int of every trace entry), and malloc/free
 * per node was a fifth of the time. The list keeps at most FREE_MAX. */
#define FREE_MAX 65536

typedef struct
{
  TsValue *head;
  guint    n;
} FreeList;

static __thread GPtrArray *array_pool;
static __thread GPtrArray *pending_stack;

static void
free_list_clear (gpointer p)
{
  FreeList *fl = p;

  if (array_pool != NULL)
    {
      for (guint i = 0; i < array_pool->len; i++)
        g_ptr_array_unref (array_pool->pdata[i]);
      g_clear_pointer (&array_pool, g_ptr_array_unref);
    }
  g_clear_pointer (&pending_stack, g_ptr_array_unref);
  while (fl->head != NULL)
    {
      TsValue *next = fl->head->items != NULL ? (TsValue *) (gpointer) fl->head->items : NULL;
      g_free (fl->head);
      fl->head = next;
    }
  g_free (fl);
}

static GPrivate free_list_key = G_PRIVATE_INIT (free_list_clear);
static __thread FreeList *free_list;   /* the same, without a lookup */

static inline TsValue *
node_alloc (void)
{
  FreeList *fl = free_list;
  TsValue *v;

  if (fl != NULL && fl->head != NULL)
    {
      v = fl->head;
      fl->head = (TsValue *) (gpointer) v->items;
      fl->n--;
      memset (v, 0, sizeof *v);
      return v;
    }
  return g_new0 (TsValue, 1);
}

static inline void
node_free (TsValue *v)
{
  FreeList *fl = free_list;

  if (fl == NULL)
    {
      fl = free_list = g_new0 (FreeList, 1);
      g_private_set (&free_list_key, fl);   /* freed at thread exit */
    }
  if (fl->n >= FREE_MAX)
    {
      g_free (v);
      return;
    }
  v->items = (GPtrArray *) (gpointer) fl->head;   /* the link */
  fl->head = v;
  fl->n++;
}

TsValue *
ts_value_new (TsValueType type)
{
  TsValue *v = node_alloc ();

  v->ref = 1;
  v->type = type;
  if (type == TS_VALUE_LIST)
    v->items = take_items (0);
  else if (type == TS_VALUE_DICT)
    v->items = take_items (16);
  return v;
}

TsValue *
ts_value_new_int (gint64 i)
{
  TsValue *v = ts_value_new (TS_VALUE_INT);
  v->i = i;
  return v;
}

TsValue *
ts_value_new_float (double f)
{
  TsValue *v = ts_value_new (TS_VALUE_FLOAT);
  v->f = f;
  return v;
}

TsValue *
ts_value_new_bool (gboolean b)
{
  TsValue *v = ts_value_new (TS_VALUE_BOOL);
  v->b = !!b;
  return v;
}

TsValue *
ts_value_new_string (const char *str,
                     gsize       len)
{
  TsValue *v = ts_value_new (TS_VALUE_STRING);

  v->s.str = g_malloc (len + 1);
  memcpy (v->s.str, str, len);
  v->s.str[len] = '\0';
  v->s.len = (guint32) MIN (len, G_MAXUINT32);
  return v;
}

TsValue *
ts_value_ref (TsValue *v)
{
  if (v != NULL)
    v->ref++;
  return v;
}

/* Item arrays of small containers are kept for the next container (an
 * import makes one dict per trace entry); the pending stack of unref is
 * kept too. Per thread, bounded, freed at thread exit with the free list. */
static void
ensure_thread_state (void)
{
  if (free_list == NULL)
    {
      free_list = g_new0 (FreeList, 1);
      g_private_set (&free_list_key, free_list);
    }
}

static void
release_items (GPtrArray *items,
               guint      old_len)
{
  if (old_len <= 64)
    {
      ensure_thread_state ();
      if (array_pool == NULL)
        array_pool = g_ptr_array_new ();
      if (array_pool->len < 1024)
        {
          g_ptr_array_set_size (items, 0);
          g_ptr_array_add (array_pool, items);
          return;
        }
    }
  g_ptr_array_unref (items);
}

static GPtrArray *
take_items (guint reserve)
{
  GPtrArray *items;

  if (array_pool != NULL && array_pool->len > 0)
    {
      items = g_ptr_array_steal_index_fast (array_pool, array_pool->len - 1);
      g_ptr_array_set_free_func (items, (GDestroyNotify) ts_value_unref);
      return items;
    }
  return g_ptr_array_new_full (reserve, (GDestroyNotify) ts_value_unref);
}

/* Iterative, so a hostile deeply nested value cannot overflow the C stack. */
void
ts_value_unref (TsValue *v)
{
  guint base;

  if (v == NULL || --v->ref > 0)
    return;
  if (pending_stack == NULL)
    {
      ensure_thread_state ();
      pending_stack = g_ptr_array_new ();
    }
  /* Without recursion, so a deep tree cannot overflow the C stack. A child
   * is pushed only when this drops its last reference: in a snapshot most
   * children are memoized frames that other tracebacks still hold, and
   * those cost one decrement here. */
  base = pending_stack->len;
  while (v != NULL)
    {
      if (v->type == TS_VALUE_STRING)
        g_free (v->s.str);
      else if (v->type == TS_VALUE_LIST || v->type == TS_VALUE_DICT)
        {
          GPtrArray *items = v->items;
          guint len = items->len;

          for (guint i = 0; i < len; i++)
            {
              TsValue *child = items->pdata[i];

              if (child != NULL && --child->ref == 0)
                g_ptr_array_add (pending_stack, child);
            }
          g_ptr_array_set_free_func (items, NULL);
          release_items (items, len);
        }
      node_free (v);
      v = pending_stack->len > base ? pending_stack->pdata[--pending_stack->len] : NULL;
    }
}

void
ts_value_make_loc (TsValue *v,
                   guint32  file,
                   guint32  function,
                   guint32  line)
{
  GPtrArray *items = v->items;

  g_return_if_fail (v->type == TS_VALUE_LIST);
  v->type = TS_VALUE_LOC;
  v->loc.file = file;
  v->loc.function = function;
  v->loc.line = line;
  g_ptr_array_unref (items);   /* drops the items through its free func */
}

void
ts_value_append (TsValue *container,
                 TsValue *item)
{
  g_ptr_array_add (container->items, item);
}

guint
ts_value_len (const TsValue *v)
{
  if (v == NULL || (v->type != TS_VALUE_LIST && v->type != TS_VALUE_DICT))
    return 0;
  return v->type == TS_VALUE_DICT ? v->items->len / 2 : v->items->len;
}

TsValue *
ts_value_index (const TsValue *v,
                guint          i)
{
  if (v == NULL || v->type != TS_VALUE_LIST || i >= v->items->len)
    return NULL;
  return v->items->pdata[i];
}

gboolean
ts_value_is_str (const TsValue *v,
                 const char    *str)
{
  return v != NULL && v->type == TS_VALUE_STRING && strcmp (v->s.str, str) == 0;
}

TsValue *
ts_value_get (const TsValue *dict,
              const char    *key)
{
  if (dict == NULL || dict->type != TS_VALUE_DICT)
    return NULL;
  /* The last one wins, as in Python. */
  for (guint i = dict->items->len / 2; i-- > 0;)
    if (ts_value_is_str (dict->items->pdata[2 * i], key))
      return dict->items->pdata[2 * i + 1];
  return NULL;
}

gboolean
ts_value_get_int (const TsValue *dict,
                  const char    *key,
                  gint64        *out)
{
  TsValue *v = ts_value_get (dict, key);

  return v != NULL && ts_value_to_int (v, out);
}

gboolean
ts_value_to_int (const TsValue *v,
                 gint64        *out)
{
  switch (v->type)
    {
    case TS_VALUE_INT: *out = v->i; return TRUE;
    case TS_VALUE_BOOL: *out = v->b; return TRUE;
    case TS_VALUE_FLOAT:
      if (!(v->f >= -9.2e18 && v->f <= 9.2e18))
        return FALSE;
      *out = (gint64) v->f;
      return TRUE;
    default: return FALSE;
    }
}

gboolean
ts_value_get_double (const TsValue *dict,
                     const char    *key,
                     double        *out)
{
  TsValue *v = ts_value_get (dict, key);

  if (v == NULL)
    return FALSE;
  switch (v->type)
    {
    case TS_VALUE_INT: *out = (double) v->i; return TRUE;
    case TS_VALUE_BOOL: *out = v->b; return TRUE;
    case TS_VALUE_FLOAT: *out = v->f; return TRUE;
    default: return FALSE;
    }
}

const char *
ts_value_get_str (const TsValue *dict,
                  const char    *key)
{
  TsValue *v = ts_value_get (dict, key);

  return v != NULL && v->type == TS_VALUE_STRING ? v->s.str : NULL;
}
