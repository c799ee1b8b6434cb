/* test-host-allocator.c: the pinned host caching allocator
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-host-allocator.h"

typedef struct
{
  TsStreamId stream;
  gboolean   done;
  gboolean   released;
} FakeEvent;

typedef struct
{
  GArray *events;
  TsTime  now;
  guint   n_host_alloc;
  guint   n_host_free;
} Fake;

static guint64
fake_event_record (gpointer user_data, TsStreamId stream)
{
  Fake *fake = user_data;
  FakeEvent e = { stream, FALSE, FALSE };

  g_array_append_val (fake->events, e);
  return fake->events->len;
}

static gboolean
fake_event_query (gpointer user_data, guint64 id)
{
  Fake *fake = user_data;
  FakeEvent *e = &g_array_index (fake->events, FakeEvent, id - 1);

  g_assert_false (e->released);
  return e->done;
}

static void
fake_event_release (gpointer user_data, guint64 id)
{
  Fake *fake = user_data;
  FakeEvent *e = &g_array_index (fake->events, FakeEvent, id - 1);

  g_assert_false (e->released);
  e->released = TRUE;
}

static TsTime
fake_now (gpointer user_data)
{
  Fake *fake = user_data;

  return fake->now += 7000;   /* 7 µs per call: cudaHostAlloc takes 7 µs */
}

static gpointer
fake_host_alloc (gpointer user_data, gsize size)
{
  Fake *fake = user_data;

  fake->n_host_alloc++;
  return g_malloc0 (size);
}

static void
fake_host_free (gpointer user_data, gpointer ptr, gsize size)
{
  Fake *fake = user_data;

  fake->n_host_free++;
  g_free (ptr);
}

static const TsHostAllocatorBackend fake_backend = {
  .event_record = fake_event_record,
  .event_query = fake_event_query,
  .event_release = fake_event_release,
  .now = fake_now,
  .host_alloc = fake_host_alloc,
  .host_free = fake_host_free,
};

static void
complete_stream (Fake *fake, TsStreamId stream)
{
  guint k;

  for (k = 0; k < fake->events->len; k++)
    if (g_array_index (fake->events, FakeEvent, k).stream == stream)
      g_array_index (fake->events, FakeEvent, k).done = TRUE;
}

static gint64
hstat (TsHostAllocator *h, const char *key)
{
  TsHostMemoryStats stats;
  gint64 v = G_MININT64;

  ts_host_allocator_get_stats (h, &stats);
  if (!ts_host_memory_stats_lookup (&stats, key, &v))
    g_error ("no host stat %s", key);
  return v;
}

/* test_caching_pinned_memory */
static void
test_caching (void)
{
  Fake fake = { g_array_new (FALSE, FALSE, sizeof (FakeEvent)), 0, 0, 0 };
  g_autoptr(TsHostAllocator) h = ts_host_allocator_new (&fake_backend, &fake);
  gpointer t, ptr, t2, big;

  g_assert_null (ts_host_allocator_allocate (h, 0, NULL));

  t = ts_host_allocator_allocate (h, 4, NULL);
  ptr = t;
  g_assert_true (ts_host_allocator_free (h, t, NULL));
  t = ts_host_allocator_allocate (h, 4, NULL);
  g_assert_true (t == ptr);                 /* reused after del */
  g_assert_cmpuint (fake.n_host_alloc, ==, 1);

  /* A delayed non_blocking copy still reads it: not reused. */
  g_assert_true (ts_host_allocator_record_event (h, t, 2));
  g_assert_true (ts_host_allocator_free (h, t, NULL));
  t = ts_host_allocator_allocate (h, 4, NULL);
  g_assert_true (t != ptr);
  complete_stream (&fake, 2);
  t2 = ts_host_allocator_allocate (h, 3, NULL);
  g_assert_true (t2 == ptr);
  g_assert_true (g_array_index (fake.events, FakeEvent, 0).released);

  /* No splitting, buckets by power of two: 3 KiB is served only by a
   * 4 KiB block; a free 8 KiB one is not used. */
  big = ts_host_allocator_allocate (h, 8192, NULL);
  g_assert_true (ts_host_allocator_free (h, big, NULL));
  g_assert_true (ts_host_allocator_allocate (h, 3000, NULL) != big);
  g_assert_true (ts_host_allocator_allocate (h, 5000, NULL) == big);

  g_array_unref (fake.events);
}

/* LIFO: the most recently freed block of the bucket comes back first. */
static void
test_lifo (void)
{
  Fake fake = { g_array_new (FALSE, FALSE, sizeof (FakeEvent)), 0, 0, 0 };
  g_autoptr(TsHostAllocator) h = ts_host_allocator_new (&fake_backend, &fake);
  gpointer a = ts_host_allocator_allocate (h, 100, NULL);
  gpointer b = ts_host_allocator_allocate (h, 100, NULL);
  gpointer c = ts_host_allocator_allocate (h, 128, NULL);

  ts_host_allocator_free (h, a, NULL);
  ts_host_allocator_free (h, c, NULL);
  ts_host_allocator_free (h, b, NULL);
  g_assert_true (ts_host_allocator_allocate (h, 65, NULL) == b);
  g_assert_true (ts_host_allocator_allocate (h, 128, NULL) == c);
  g_assert_true (ts_host_allocator_allocate (h, 127, NULL) == a);
  g_array_unref (fake.events);
}

/* Events from two streams: reusable only when both are done; checked at
 * empty_cache as well. */
static void
test_events_and_empty_cache (void)
{
  Fake fake = { g_array_new (FALSE, FALSE, sizeof (FakeEvent)), 0, 0, 0 };
  g_autoptr(TsHostAllocator) h = ts_host_allocator_new (&fake_backend, &fake);
  gpointer p = ts_host_allocator_allocate (h, 1 << 20, NULL);

  g_assert_true (ts_host_allocator_record_event (h, (guint8 *) p + 100, 2));   /* a view */
  g_assert_true (ts_host_allocator_record_event (h, p, 3));
  g_assert_true (ts_host_allocator_record_event (h, p, 3));
  g_assert_true (ts_host_allocator_free (h, p, NULL));
  g_assert_cmpuint (fake.events->len, ==, 2);
  g_assert_cmpint (hstat (h, "active_requests.current"), ==, 1);   /* until the events are done */

  complete_stream (&fake, 2);
  ts_host_allocator_empty_cache (h);
  g_assert_cmpuint (fake.n_host_free, ==, 0);
  g_assert_true (ts_host_allocator_is_pinned (h, p));
  complete_stream (&fake, 3);
  ts_host_allocator_empty_cache (h);
  g_assert_cmpuint (fake.n_host_free, ==, 1);
  g_assert_false (ts_host_allocator_is_pinned (h, p));
  g_assert_cmpint (hstat (h, "active_requests.current"), ==, 0);
  g_assert_cmpint (hstat (h, "allocations.current"), ==, 0);
  g_assert_cmpint (hstat (h, "num_host_free"), ==, 1);
  g_assert_cmpint (hstat (h, "host_free_time.count"), ==, 1);
  g_assert_cmpint (hstat (h, "host_free_time.total"), ==, 7);
  g_array_unref (fake.events);
}

/* test_host_memory_stats */
static void
test_stats (void)
{
  Fake fake = { g_array_new (FALSE, FALSE, sizeof (FakeEvent)), 0, 0, 0 };
  g_autoptr(TsHostAllocator) h = ts_host_allocator_new (&fake_backend, &fake);
  TsHostMemoryStats stats;
  gpointer t1, t2;
  guint k;

  for (k = 1; k < TS_HOST_MEMORY_STATS_N_KEYS; k++)
    g_assert_cmpint (strcmp (ts_host_memory_stats_key (k - 1), ts_host_memory_stats_key (k)), <, 0);
  g_assert_cmpstr (ts_host_memory_stats_key (0), ==, "active_bytes.allocated");
  g_assert_cmpstr (ts_host_memory_stats_key (TS_HOST_MEMORY_STATS_N_KEYS - 1), ==, "num_host_free");
  ts_host_allocator_get_stats (h, &stats);
  for (k = 0; k < TS_HOST_MEMORY_STATS_N_KEYS; k++)
    g_assert_cmpint (ts_host_memory_stats_value (&stats, k), ==, 0);

  t1 = ts_host_allocator_allocate (h, 10 * 1024 * 4, NULL);
  g_assert_true (ts_host_allocator_is_pinned (h, t1));
  g_assert_cmpint (hstat (h, "allocated_bytes.current"), ==, 65536);
  g_assert_cmpint (hstat (h, "allocated_bytes.peak"), ==, 65536);
  g_assert_cmpint (hstat (h, "allocated_bytes.allocated"), ==, 65536);
  g_assert_cmpint (hstat (h, "active_bytes.current"), ==, 65536);
  g_assert_cmpint (hstat (h, "allocations.current"), ==, 1);
  g_assert_cmpint (hstat (h, "active_requests.allocated"), ==, 1);
  g_assert_cmpint (hstat (h, "num_host_alloc"), ==, 1);
  g_assert_cmpint (hstat (h, "host_alloc_time.count"), ==, 1);
  g_assert_cmpint (hstat (h, "host_alloc_time.total"), ==, 7);
  g_assert_cmpint (hstat (h, "host_alloc_time.avg"), ==, 7);

  t2 = ts_host_allocator_allocate (h, 20 * 1024 * 4, NULL);
  g_assert_cmpint (hstat (h, "allocated_bytes.current"), ==, 65536 + 131072);
  g_assert_cmpint (hstat (h, "active_bytes.peak"), ==, 65536 + 131072);
  g_assert_cmpint (hstat (h, "allocations.peak"), ==, 2);
  g_assert_cmpint (hstat (h, "active_requests.current"), ==, 2);
  g_assert_cmpint (hstat (h, "num_host_alloc"), ==, 2);
  g_assert_cmpint (hstat (h, "host_alloc_time.count"), ==, 2);

  /* Both alive: empty_cache changes nothing. */
  {
    TsHostMemoryStats before, after;

    ts_host_allocator_get_stats (h, &before);
    ts_host_allocator_empty_cache (h);
    ts_host_allocator_get_stats (h, &after);
    g_assert_cmpmem (&before, sizeof before, &after, sizeof after);
  }

  /* Freed: still owned (cached), no longer active; the peak of active is
   * a sum of per-bucket peaks. */
  ts_host_allocator_free (h, t1, NULL);
  ts_host_allocator_free (h, t2, NULL);
  g_assert_cmpint (hstat (h, "active_bytes.current"), ==, 0);
  g_assert_cmpint (hstat (h, "active_bytes.freed"), ==, 65536 + 131072);
  g_assert_cmpint (hstat (h, "allocated_bytes.current"), ==, 65536 + 131072);
  ts_host_allocator_reset_peak_stats (h);
  ts_host_allocator_reset_accumulated_stats (h);
  g_assert_cmpint (hstat (h, "active_bytes.peak"), ==, 0);
  g_assert_cmpint (hstat (h, "allocated_bytes.peak"), ==, 65536 + 131072);
  g_assert_cmpint (hstat (h, "num_host_alloc"), ==, 0);
  g_assert_cmpint (hstat (h, "host_alloc_time.count"), ==, 0);
  g_assert_cmpint (hstat (h, "host_alloc_time.max"), ==, 0);
  ts_host_allocator_empty_cache (h);
  g_assert_cmpint (hstat (h, "allocated_bytes.current"), ==, 0);
  g_assert_cmpint (hstat (h, "num_host_free"), ==, 2);
  g_array_unref (fake.events);
}

/* test_cudart_register and pinned views (test_copy_non_blocking). */
static void
test_register_and_is_pinned (void)
{
  Fake fake = { g_array_new (FALSE, FALSE, sizeof (FakeEvent)), 0, 0, 0 };
  g_autoptr(TsHostAllocator) h = ts_host_allocator_new (&fake_backend, &fake);
  g_autofree guint8 *cpu = g_malloc0 (4096);
  GError *error = NULL;
  guint8 *p;

  g_assert_false (ts_host_allocator_is_pinned (h, cpu));
  g_assert_false (ts_host_allocator_is_pinned (h, NULL));
  g_assert_true (ts_host_allocator_register (h, cpu, 4096, &error));
  g_assert_true (ts_host_allocator_is_pinned (h, cpu));
  g_assert_true (ts_host_allocator_is_pinned (h, cpu + 4095));
  g_assert_false (ts_host_allocator_is_pinned (h, cpu + 4096));
  g_assert_false (ts_host_allocator_register (h, cpu + 100, 10, &error));
  g_assert_error (error, TS_HOST_ALLOCATOR_ERROR, TS_HOST_ALLOCATOR_ERROR_ALREADY_REGISTERED);
  g_clear_error (&error);
  g_assert_false (ts_host_allocator_register (h, cpu - 10, 20, &error));
  g_assert_error (error, TS_HOST_ALLOCATOR_ERROR, TS_HOST_ALLOCATOR_ERROR_ALREADY_REGISTERED);
  g_clear_error (&error);
  g_assert_true (ts_host_allocator_unregister (h, cpu, &error));
  g_assert_false (ts_host_allocator_is_pinned (h, cpu));
  g_assert_false (ts_host_allocator_unregister (h, cpu, &error));
  g_assert_error (error, TS_HOST_ALLOCATOR_ERROR, TS_HOST_ALLOCATOR_ERROR_NOT_REGISTERED);
  g_clear_error (&error);

  p = ts_host_allocator_allocate (h, 40, NULL);
  g_assert_true (ts_host_allocator_is_pinned (h, p + 4));   /* x_base[1:] */
  g_assert_true (ts_host_allocator_is_pinned (h, p + 63));  /* rounded to 64 */
  /* A block's range cannot be unregistered, nor freed from inside. */
  g_assert_false (ts_host_allocator_unregister (h, p, &error));
  g_assert_error (error, TS_HOST_ALLOCATOR_ERROR, TS_HOST_ALLOCATOR_ERROR_NOT_REGISTERED);
  g_clear_error (&error);
  g_assert_false (ts_host_allocator_free (h, p + 4, &error));
  g_assert_error (error, TS_HOST_ALLOCATOR_ERROR, TS_HOST_ALLOCATOR_ERROR_INVALID_POINTER);
  g_clear_error (&error);
  g_assert_true (ts_host_allocator_free (h, p, &error));
  g_assert_false (ts_host_allocator_free (h, p, &error));   /* twice */
  g_assert_error (error, TS_HOST_ALLOCATOR_ERROR, TS_HOST_ALLOCATOR_ERROR_INVALID_POINTER);
  g_clear_error (&error);
  g_assert_false (ts_host_allocator_record_event (h, p, 2));  /* freed */
  g_assert_false (ts_host_allocator_record_event (h, cpu, 2));
  g_assert_true (ts_host_allocator_is_pinned (h, p));         /* cached, still page-locked */

  g_assert_null (ts_host_allocator_allocate (h, G_MAXSIZE, &error));
  g_assert_error (error, TS_HOST_ALLOCATOR_ERROR, TS_HOST_ALLOCATOR_ERROR_OUT_OF_MEMORY);
  g_clear_error (&error);
  g_array_unref (fake.events);
}

/* Without a host_alloc hook the memory is real, page-aligned host memory. */
static void
test_default_backing (void)
{
  static const TsHostAllocatorBackend minimal = {
    .event_record = fake_event_record,
    .event_query = fake_event_query,
    .event_release = fake_event_release,
  };
  Fake fake = { g_array_new (FALSE, FALSE, sizeof (FakeEvent)), 0, 0, 0 };
  g_autoptr(TsHostAllocator) h = ts_host_allocator_new (&minimal, &fake);
  guint8 *p = ts_host_allocator_allocate (h, 10000, NULL);

  g_assert_nonnull (p);
  g_assert_cmpuint ((guintptr) p % 4096, ==, 0);
  memset (p, 1, 16384);
  g_assert_cmpint (hstat (h, "allocated_bytes.current"), ==, 16384);
  g_assert_cmpint (hstat (h, "host_alloc_time.total"), ==, 0);
  /* Still in use when the allocator goes: finalize gives it back. */
  g_array_unref (fake.events);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/host-allocator/caching", test_caching);
  g_test_add_func ("/host-allocator/lifo", test_lifo);
  g_test_add_func ("/host-allocator/events-and-empty-cache", test_events_and_empty_cache);
  g_test_add_func ("/host-allocator/stats", test_stats);
  g_test_add_func ("/host-allocator/register-and-is-pinned", test_register_and_is_pinned);
  g_test_add_func ("/host-allocator/default-backing", test_default_backing);
  return g_test_run ();
}
