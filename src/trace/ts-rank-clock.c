/* ts-rank-clock.c: per-rank clock offsets from matched collectives
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>

#include "ts-rank-clock.h"

typedef struct
{
  guint  key;
  gint64 seq;
  gint64 end;
} Coll;

typedef struct
{
  gint     rank;
  GArray  *colls;          /* Coll, sorted by (key, seq) after solve */
  gint64   base;
  gboolean aligned;
  gint64   offset;
  guint    n_matched;
} Rank;

struct _TsRankClock
{
  GHashTable *keys;        /* key string -> id + 1 */
  GPtrArray  *ranks;       /* Rank*; by rank after solve */
  GHashTable *by_rank;     /* rank -> Rank* (a job may have thousands) */
  gint        reference;
};

static void
rank_free (gpointer p)
{
  Rank *r = p;

  g_array_unref (r->colls);
  g_free (r);
}

TsRankClock *
ts_rank_clock_new (void)
{
  TsRankClock *self = g_new0 (TsRankClock, 1);

  self->keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->ranks = g_ptr_array_new_with_free_func (rank_free);
  self->by_rank = g_hash_table_new (NULL, NULL);
  self->reference = -1;
  return self;
}

void
ts_rank_clock_free (TsRankClock *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->keys);
  g_hash_table_unref (self->by_rank);
  g_ptr_array_unref (self->ranks);
  g_free (self);
}

static Rank *
find_rank (TsRankClock *self,
           gint         rank,
           gboolean     create)
{
  Rank *r = g_hash_table_lookup (self->by_rank, GINT_TO_POINTER (rank));

  if (r != NULL || !create)
    return r;
  r = g_new0 (Rank, 1);
  r->rank = rank;
  r->colls = g_array_new (FALSE, FALSE, sizeof (Coll));
  g_ptr_array_add (self->ranks, r);
  g_hash_table_insert (self->by_rank, GINT_TO_POINTER (rank), r);
  return r;
}

void
ts_rank_clock_add (TsRankClock *self,
                   gint         rank,
                   const char  *key,
                   gint64       seq,
                   gint64       end_ns)
{
  Rank *r = find_rank (self, rank, TRUE);
  gpointer id = g_hash_table_lookup (self->keys, key);
  Coll c;

  if (id == NULL)
    {
      id = GUINT_TO_POINTER (g_hash_table_size (self->keys) + 1);
      g_hash_table_insert (self->keys, g_strdup (key), id);
    }
  c.key = GPOINTER_TO_UINT (id) - 1;
  c.seq = seq;
  c.end = end_ns;
  g_array_append_val (r->colls, c);
}

void
ts_rank_clock_set_base (TsRankClock *self,
                        gint         rank,
                        gint64       base_ns)
{
  find_rank (self, rank, TRUE)->base = base_ns;
}

static int
cmp_by_key_end (gconstpointer a,
                gconstpointer b)
{
  const Coll *x = a, *y = b;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return (x->end > y->end) - (x->end < y->end);
}

static int
cmp_by_key_seq (gconstpointer a,
                gconstpointer b)
{
  const Coll *x = a, *y = b;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  if (x->seq != y->seq)
    return x->seq < y->seq ? -1 : 1;
  return (x->end > y->end) - (x->end < y->end);
}

/* Instance numbers: the trace's where every collective of a key has one,
 * else the order of end times (the N-th all-reduce of a group on one rank
 * is the N-th on every other). */
static void
number_instances (Rank *r)
{
  GArray *a = r->colls;
  guint i = 0;

  g_array_sort (a, cmp_by_key_end);
  while (i < a->len)
    {
      guint j = i;
      gboolean all_seq = TRUE;

      while (j < a->len && g_array_index (a, Coll, j).key == g_array_index (a, Coll, i).key)
        all_seq &= g_array_index (a, Coll, j++).seq >= 0;
      for (guint k = i; !all_seq && k < j; k++)
        g_array_index (a, Coll, k).seq = k - i;
      i = j;
    }
  g_array_sort (a, cmp_by_key_seq);
}

static int
cmp_gint64 (gconstpointer a,
            gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/* The median of b's end minus a's over the collectives both have. */
static guint
pair_offset (const Rank *a,
             const Rank *b,
             gint64     *offset)
{
  g_autoptr(GArray) diffs = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint i = 0, j = 0, n;

  while (i < a->colls->len && j < b->colls->len)
    {
      const Coll *x = &g_array_index (a->colls, Coll, i), *y = &g_array_index (b->colls, Coll, j);
      int c = x->key != y->key ? (x->key < y->key ? -1 : 1) : (x->seq > y->seq) - (x->seq < y->seq);

      if (c == 0)
        {
          gint64 d = (y->end + b->base) - (x->end + a->base);
          g_array_append_val (diffs, d);
          i++, j++;
        }
      else if (c < 0)
        i++;
      else
        j++;
    }
  n = diffs->len;
  if (n < TS_RANK_CLOCK_MIN_MATCHES)
    return n;
  g_array_sort (diffs, cmp_gint64);
  if (n % 2 == 1)
    *offset = g_array_index (diffs, gint64, n / 2);
  else
    *offset = g_array_index (diffs, gint64, n / 2 - 1) +
              (g_array_index (diffs, gint64, n / 2) - g_array_index (diffs, gint64, n / 2 - 1)) / 2;
  return n;
}

static int
cmp_rank (gconstpointer a,
          gconstpointer b)
{
  const Rank *x = *(Rank * const *) a, *y = *(Rank * const *) b;

  return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Aligns one rank against the first aligned rank it shares enough
 * collectives with; TRUE when it did. */
static gboolean
align_one (TsRankClock *self,
           Rank        *r)
{
  for (guint i = 0; i < self->ranks->len; i++)
    {
      Rank *a = self->ranks->pdata[i];
      gint64 d = 0;
      guint n;

      if (!a->aligned || a == r)
        continue;
      n = pair_offset (a, r, &d);
      if (n >= TS_RANK_CLOCK_MIN_MATCHES)
        {
          r->aligned = TRUE;
          r->offset = a->offset + d;
          r->n_matched = n;
          return TRUE;
        }
    }
  return FALSE;
}

void
ts_rank_clock_solve (TsRankClock *self)
{
  gboolean progress = TRUE;
  Rank *ref;

  if (self->ranks->len == 0)
    return;
  g_ptr_array_sort (self->ranks, cmp_rank);
  for (guint i = 0; i < self->ranks->len; i++)
    number_instances (self->ranks->pdata[i]);
  ref = self->ranks->pdata[0];
  ref->aligned = TRUE;
  ref->n_matched = ref->colls->len;
  self->reference = ref->rank;
  while (progress)
    {
      progress = FALSE;
      for (guint i = 1; i < self->ranks->len; i++)
        if (!((Rank *) self->ranks->pdata[i])->aligned)
          progress |= align_one (self, self->ranks->pdata[i]);
    }
}

gboolean
ts_rank_clock_get_offset (TsRankClock *self,
                          gint         rank,
                          gint64      *offset_ns,
                          guint       *n_matched)
{
  Rank *r = find_rank (self, rank, FALSE);

  if (r == NULL || !r->aligned)
    return FALSE;
  *offset_ns = r->offset;
  *n_matched = r->n_matched;
  return TRUE;
}

gint
ts_rank_clock_get_reference (TsRankClock *self)
{
  return self->reference;
}
