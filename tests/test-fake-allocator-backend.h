/* test-fake-allocator-backend.h: a TsAllocator backend the test drives
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Simulated device memory and events whose completion the test decides,
 * shared by the allocator and memory-replay tests. Every callback checks
 * that the allocator uses it as PyTorch's allocator uses CUDA: segments
 * freed whole on the device they came from, events queried only while
 * they live. Each test keeps its own TsAllocatorBackend table, so that
 * what it wires (a correlation source, say) is read where it is used.
 */

#pragma once

#include "ts-allocator.h"
#include "ts-device-memory.h"

/* What the CUDA context takes of each device before the allocator asks. */
#define CONTEXT_RESERVE (G_GUINT64_CONSTANT (512) << 20)

typedef struct
{
  TsStreamId stream;
  gboolean   done;
  gboolean   released;
} FakeEvent;

typedef struct
{
  TsDeviceMemory *mem;
  GArray         *events;     /* FakeEvent; id = index + 1 */
  TsTime          now;
  TsTime          now_step;   /* added to now at each now() call; 0 keeps the test's clock */
  guint           n_synchronized;
  guint           n_segment_mallocs;
  guint64         n_pages_mapped;  /* bytes of expandable pages mapped now */
} Fake;

static inline gboolean
fake_segment_malloc (gpointer user_data,
                     guint    device,
                     guint64  size,
                     guint64 *addr)
{
  Fake *fake = user_data;

  fake->n_segment_mallocs++;
  return ts_device_memory_segment_malloc (fake->mem, device, size, addr, NULL);
}

static inline void
fake_segment_free (gpointer user_data,
                   guint    device,
                   guint64  addr,
                   guint64  size)
{
  Fake *fake = user_data;
  guint found_device = G_MAXUINT;
  guint64 base = 0, seg_size = 0;

  g_assert_true (ts_device_memory_lookup (fake->mem, addr, &found_device, &base, &seg_size));
  g_assert_cmpuint (found_device, ==, device);
  g_assert_cmphex (base, ==, addr);
  g_assert_cmpuint (seg_size, ==, size);
  g_assert_true (ts_device_memory_segment_free (fake->mem, addr, NULL));
}

static inline void
fake_mem_get_info (gpointer user_data,
                   guint    device,
                   guint64 *free_bytes,
                   guint64 *total_bytes)
{
  Fake *fake = user_data;

  g_assert_true (ts_device_memory_get_info (fake->mem, device, free_bytes, total_bytes, NULL));
}

static inline guint64
fake_event_record (gpointer   user_data,
                   TsStreamId stream)
{
  Fake *fake = user_data;
  FakeEvent e = { stream, FALSE, FALSE };

  g_array_append_val (fake->events, e);
  return fake->events->len;
}

static inline FakeEvent *
fake_event (Fake    *fake,
            guint64  id)
{
  g_assert_cmpuint (id, >=, 1);
  g_assert_cmpuint (id, <=, fake->events->len);
  return &g_array_index (fake->events, FakeEvent, id - 1);
}

static inline gboolean
fake_event_query (gpointer user_data,
                  guint64  id)
{
  FakeEvent *e = fake_event (user_data, id);

  g_assert_false (e->released);
  return e->done;
}

static inline void
fake_event_synchronize (gpointer user_data,
                        guint64  id)
{
  Fake *fake = user_data;
  FakeEvent *e = fake_event (fake, id);

  g_assert_false (e->released);
  e->done = TRUE;
  fake->n_synchronized++;
}

static inline void
fake_event_release (gpointer user_data,
                    guint64  id)
{
  FakeEvent *e = fake_event (user_data, id);

  g_assert_false (e->released);
  e->released = TRUE;
}

static inline TsTime
fake_now (gpointer user_data)
{
  Fake *fake = user_data;

  return fake->now += fake->now_step;
}

/* Virtual memory for expandable segments: reservations and pages of the
 * simulated memory, checked as CUDA would (whole granules, mapped once). */
static inline gboolean
fake_va_reserve (gpointer  user_data,
                 guint     device,
                 guint64   size,
                 guint64  *addr)
{
  Fake *fake = user_data;

  return ts_device_memory_reserve (fake->mem, device, size, addr, NULL);
}

static inline gboolean
fake_va_map (gpointer user_data,
             guint    device,
             guint64  addr,
             guint64  size)
{
  Fake *fake = user_data;
  g_autoptr(GError) error = NULL;
  gboolean ok = ts_device_memory_map (fake->mem, addr, size, &error);

  /* Out of memory is the only failure the allocator may cause. */
  if (!ok)
    g_assert_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_OUT_OF_MEMORY);
  else
    fake->n_pages_mapped += size;
  return ok;
}

static inline void
fake_va_unmap (gpointer   user_data,
               guint      device,
               TsStreamId stream,
               guint64    addr,
               guint64    size)
{
  Fake *fake = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (ts_device_memory_unmap (fake->mem, addr, size, &error));
  g_assert_no_error (error);
  fake->n_pages_mapped -= size;
}

static inline void
fake_va_release (gpointer user_data,
                 guint    device,
                 guint64  addr,
                 guint64  size)
{
  Fake *fake = user_data;

  g_assert_true (ts_device_memory_release (fake->mem, addr, NULL));
}

/* Everything queued on the stream so far has run. */
static inline void
fake_complete_stream (Fake       *fake,
                      TsStreamId  stream)
{
  for (guint k = 0; k < fake->events->len; k++)
    if (g_array_index (fake->events, FakeEvent, k).stream == stream)
      g_array_index (fake->events, FakeEvent, k).done = TRUE;
}

static inline Fake *
fake_new (guint   n_devices,
          guint64 capacity,
          TsTime  now_step)
{
  Fake *fake = g_new0 (Fake, 1);

  fake->mem = ts_device_memory_new ();
  for (guint d = 0; d < n_devices; d++)
    g_assert_cmpuint (ts_device_memory_add_device (fake->mem, capacity, CONTEXT_RESERVE, NULL), ==, d);
  fake->events = g_array_new (FALSE, FALSE, sizeof (FakeEvent));
  fake->now_step = now_step;
  return fake;
}

static inline void
fake_free (Fake *fake)
{
  g_object_unref (fake->mem);
  g_array_unref (fake->events);
  g_free (fake);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Fake, fake_free)

/* Initializers of a TsAllocatorBackend: what every table wires, and the
 * virtual memory that expandable segments need. */
#define FAKE_BACKEND_FUNCS \
  .segment_malloc = fake_segment_malloc, \
  .segment_free = fake_segment_free, \
  .mem_get_info = fake_mem_get_info, \
  .event_record = fake_event_record, \
  .event_query = fake_event_query, \
  .event_synchronize = fake_event_synchronize, \
  .event_release = fake_event_release, \
  .now = fake_now
#define FAKE_BACKEND_VM_FUNCS \
  .va_reserve = fake_va_reserve, \
  .va_map = fake_va_map, \
  .va_unmap = fake_va_unmap, \
  .va_release = fake_va_release
