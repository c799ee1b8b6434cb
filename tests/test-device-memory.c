/* test-device-memory.c: simulated device address spaces
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-device-memory.h"
#include "ts-host-data.h"

#define MiB (G_GUINT64_CONSTANT (1) << 20)
#define GiB (G_GUINT64_CONSTANT (1) << 30)
#define H100_BYTES G_GUINT64_CONSTANT (85899345920)

static void
test_addresses (void)
{
  g_autoptr(TsDeviceMemory) mem = ts_device_memory_new ();
  g_autoptr(GError) error = NULL;
  guint64 a, b, c, d, e, free_bytes, total;
  guint dev;

  g_assert_cmpuint (ts_device_memory_add_device (mem, H100_BYTES, 512 * MiB, &error), ==, 0);
  g_assert_cmpuint (ts_device_memory_add_device (mem, 11 * GiB, 0, &error), ==, 1);
  g_assert_cmpuint (ts_device_memory_get_n_devices (mem), ==, 2);

  g_assert_true (ts_device_memory_get_info (mem, 0, &free_bytes, &total, &error));
  g_assert_cmpuint (total, ==, H100_BYTES);
  g_assert_cmpuint (free_bytes, ==, H100_BYTES - 512 * MiB);

  /* Fixed bases, first fit, 2 MiB pages. */
  g_assert_true (ts_device_memory_segment_malloc (mem, 0, 2 * MiB, &a, &error));
  g_assert_cmphex (a, ==, G_GUINT64_CONSTANT (0x7f0000000000));
  g_assert_true (ts_device_memory_segment_malloc (mem, 0, 1000, &b, &error));
  g_assert_cmphex (b, ==, a + 2 * MiB);
  g_assert_true (ts_device_memory_segment_malloc (mem, 0, 20 * MiB, &c, &error));
  g_assert_cmphex (c, ==, b + 2 * MiB);
  g_assert_true (ts_device_memory_segment_malloc (mem, 1, 4 * MiB, &d, &error));
  g_assert_cmphex (d, ==, G_GUINT64_CONSTANT (0x800000000000));
  g_assert_true (ts_device_memory_get_info (mem, 0, &free_bytes, NULL, &error));
  g_assert_cmpuint (free_bytes, ==, H100_BYTES - 512 * MiB - 24 * MiB);

  /* A freed hole is reused by the next segment that fits in it. */
  g_assert_true (ts_device_memory_segment_free (mem, b, &error));
  g_assert_true (ts_device_memory_segment_malloc (mem, 0, 2 * MiB, &e, &error));
  g_assert_cmphex (e, ==, b);
  g_assert_true (ts_device_memory_segment_free (mem, a, &error));
  g_assert_true (ts_device_memory_segment_malloc (mem, 0, 4 * MiB, &e, &error));
  g_assert_cmphex (e, ==, c + 20 * MiB);

  g_assert_true (ts_device_memory_lookup (mem, c + 5, &dev, &a, &b));
  g_assert_cmpuint (dev, ==, 0);
  g_assert_cmphex (a, ==, c);
  g_assert_cmpuint (b, ==, 20 * MiB);
  g_assert_false (ts_device_memory_lookup (mem, 0x1234, NULL, NULL, NULL));

  /* Size 0 is cudaMalloc's null; freeing null is fine. */
  g_assert_true (ts_device_memory_segment_malloc (mem, 0, 0, &a, &error));
  g_assert_cmpuint (a, ==, 0);
  g_assert_true (ts_device_memory_segment_free (mem, 0, &error));
  g_assert_no_error (error);
}

static void
test_errors (void)
{
  g_autoptr(TsDeviceMemory) mem = ts_device_memory_new ();
  GError *error = NULL;
  guint64 a, half;

  ts_device_memory_add_device (mem, H100_BYTES, 512 * MiB, NULL);

  half = H100_BYTES / 2;
  g_assert_true (ts_device_memory_segment_malloc (mem, 0, half, &a, &error));
  g_assert_false (ts_device_memory_segment_malloc (mem, 0, half, &a, &error));
  g_assert_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_OUT_OF_MEMORY);
  g_clear_error (&error);
  g_assert_false (ts_device_memory_segment_malloc (mem, 0, G_MAXUINT64, &a, &error));
  g_assert_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_OUT_OF_MEMORY);
  g_clear_error (&error);
  g_assert_false (ts_device_memory_segment_malloc (mem, 3, 1, &a, &error));
  g_assert_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_INVALID_DEVICE);
  g_clear_error (&error);

  /* Not a segment base, twice freed, foreign. */
  g_assert_true (ts_device_memory_segment_malloc (mem, 0, 2 * MiB, &a, &error));
  g_assert_false (ts_device_memory_segment_free (mem, a + 512, &error));
  g_assert_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_INVALID_VALUE);
  g_clear_error (&error);
  g_assert_true (ts_device_memory_segment_free (mem, a, &error));
  g_assert_false (ts_device_memory_segment_free (mem, a, &error));
  g_assert_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_INVALID_VALUE);
  g_clear_error (&error);
  g_assert_false (ts_device_memory_segment_free (mem, 0xdeadbeef, &error));
  g_assert_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_INVALID_VALUE);
  g_clear_error (&error);

  /* Bad devices at creation. */
  g_assert_cmpuint (ts_device_memory_add_device (mem, 0, 0, &error), ==, G_MAXUINT);
  g_assert_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_INVALID_VALUE);
  g_clear_error (&error);
  g_assert_cmpuint (ts_device_memory_add_device (mem, 4 * GiB, 4 * GiB, &error), ==, G_MAXUINT);
  g_assert_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_INVALID_VALUE);
  g_clear_error (&error);
}

static void
test_translate (void)
{
  g_autoptr(TsDeviceMemory) mem = ts_device_memory_new ();
  g_autoptr(GError) error = NULL;
  GError *bad = NULL;
  guint64 seg, seg2;
  guint8 *p, *q;

  ts_device_memory_add_device (mem, H100_BYTES, 0, NULL);

  /* A huge segment costs nothing until touched. */
  g_assert_true (ts_device_memory_segment_malloc (mem, 0, 64 * GiB, &seg, &error));
  g_assert_cmpuint (ts_device_memory_get_mapped_bytes (mem), ==, 0);

  p = ts_device_memory_translate (mem, seg + 60 * GiB, 4096, &error);
  g_assert_no_error (error);
  g_assert_nonnull (p);
  g_assert_cmpuint (p[0], ==, 0);
  memset (p, 0xab, 4096);
  q = ts_device_memory_translate (mem, seg + 60 * GiB + 100, 1, &error);
  g_assert_true (q == p + 100);
  g_assert_cmpuint (q[0], ==, 0xab);
  g_assert_cmpuint (ts_device_memory_get_mapped_bytes (mem), ==, 64 * GiB);

  /* Ranges that leave the segment, or touch no segment, are illegal. */
  g_assert_null (ts_device_memory_translate (mem, seg + 64 * GiB - 1, 2, &bad));
  g_assert_error (bad, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_ILLEGAL_ADDRESS);
  g_clear_error (&bad);
  g_assert_null (ts_device_memory_translate (mem, seg + 64 * GiB, 1, &bad));
  g_assert_error (bad, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_ILLEGAL_ADDRESS);
  g_clear_error (&bad);
  g_assert_null (ts_device_memory_translate (mem, 16, 1, &bad));
  g_assert_error (bad, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_ILLEGAL_ADDRESS);
  g_clear_error (&bad);

  /* After a free the address is illegal; a new segment there reads zero. */
  g_assert_true (ts_device_memory_segment_free (mem, seg, &error));
  g_assert_cmpuint (ts_device_memory_get_mapped_bytes (mem), ==, 0);
  g_assert_null (ts_device_memory_translate (mem, seg, 1, &bad));
  g_assert_error (bad, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_ILLEGAL_ADDRESS);
  g_clear_error (&bad);
  g_assert_true (ts_device_memory_segment_malloc (mem, 0, 2 * MiB, &seg2, &error));
  g_assert_cmphex (seg2, ==, seg);
  p = ts_device_memory_translate (mem, seg2, 2 * MiB, &error);
  g_assert_cmpuint (p[0], ==, 0);
}

/* Virtual memory for expandable segments: a reservation takes address
 * space only, mapped pages count as used (and fail like cudaMalloc when
 * the device is full), translate sees mapped pages only, and unmapped
 * pages come back fresh. */
static void
test_virtual_memory (void)
{
  g_autoptr(TsDeviceMemory) mem = ts_device_memory_new ();
  g_autoptr(GError) error = NULL;
  guint64 base = ts_device_memory_get_base (0), va = 0, seg = 0, free_bytes, total, b, sz;
  guint dev = 1;
  guint8 *host;

  g_assert_cmpuint (ts_device_memory_add_device (mem, 1 * GiB, 0, NULL), ==, 0);
  /* More address space than memory is fine. */
  g_assert_true (ts_device_memory_reserve (mem, 0, 3 * GiB, &va, &error));
  g_assert_no_error (error);
  g_assert_cmphex (va, ==, base);
  g_assert_true (ts_device_memory_get_info (mem, 0, &free_bytes, &total, NULL));
  g_assert_cmpuint (free_bytes, ==, 1 * GiB);
  /* A cudaMalloc goes after the reservation's address space. */
  g_assert_true (ts_device_memory_segment_malloc (mem, 0, 2 * MiB, &seg, NULL));
  g_assert_cmphex (seg, ==, base + 3 * GiB);

  g_assert_null (ts_device_memory_translate (mem, va, 16, NULL));
  g_assert_false (ts_device_memory_lookup (mem, va, NULL, NULL, NULL));
  g_assert_true (ts_device_memory_map (mem, va + 2 * MiB, 4 * MiB, &error));
  g_assert_no_error (error);
  g_assert_true (ts_device_memory_get_info (mem, 0, &free_bytes, NULL, NULL));
  g_assert_cmpuint (free_bytes, ==, 1 * GiB - 6 * MiB);
  g_assert_true (ts_device_memory_lookup (mem, va + 3 * MiB, &dev, &b, &sz));
  g_assert_cmpuint (dev, ==, 0);
  g_assert_cmphex (b, ==, va);
  g_assert_cmpuint (sz, ==, 3 * GiB);
  host = ts_device_memory_translate (mem, va + 2 * MiB, 4 * MiB, &error);
  g_assert_no_error (error);
  g_assert_nonnull (host);
  host[0] = 7;
  /* Not across an unmapped page. */
  g_assert_null (ts_device_memory_translate (mem, va + 5 * MiB, 2 * MiB, &error));
  g_assert_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_ILLEGAL_ADDRESS);
  g_clear_error (&error);

  /* Mapped twice, unaligned, beyond the device: refused. */
  g_assert_false (ts_device_memory_map (mem, va + 4 * MiB, 4 * MiB, &error));
  g_assert_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_INVALID_VALUE);
  g_clear_error (&error);
  g_assert_false (ts_device_memory_map (mem, va + 1 * MiB, 2 * MiB, &error));
  g_assert_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_INVALID_VALUE);
  g_clear_error (&error);
  g_assert_false (ts_device_memory_map (mem, va + 1 * GiB, 1 * GiB, &error));
  g_assert_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_OUT_OF_MEMORY);
  g_clear_error (&error);
  g_assert_false (ts_device_memory_segment_free (mem, va, &error));
  g_assert_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_INVALID_VALUE);
  g_clear_error (&error);

  /* Unmapped and mapped again: fresh memory. */
  g_assert_true (ts_device_memory_unmap (mem, va + 2 * MiB, 2 * MiB, NULL));
  g_assert_false (ts_device_memory_unmap (mem, va + 2 * MiB, 2 * MiB, &error));
  g_assert_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_INVALID_VALUE);
  g_clear_error (&error);
  g_assert_true (ts_device_memory_map (mem, va + 2 * MiB, 2 * MiB, NULL));
  host = ts_device_memory_translate (mem, va + 2 * MiB, 16, NULL);
  g_assert_cmpuint (host[0], ==, 0);

  g_assert_true (ts_device_memory_release (mem, va, NULL));
  g_assert_true (ts_device_memory_get_info (mem, 0, &free_bytes, NULL, NULL));
  g_assert_cmpuint (free_bytes, ==, 1 * GiB - 2 * MiB);
  g_assert_false (ts_device_memory_release (mem, seg, NULL));
  g_assert_true (ts_device_memory_segment_free (mem, seg, NULL));
}

/* The host pages behind segments are charged to the host-data budget when
 * a segment is first used, and given back when it goes. */
static void
test_host_budget (void)
{
  g_autoptr(TsDeviceMemory) mem = ts_device_memory_new ();
  g_autoptr(GError) error = NULL;
  guint64 a, b, r;

  ts_device_memory_add_device (mem, H100_BYTES, 0, NULL);
  ts_host_data_set_limit (64 << 20);
  g_assert_true (ts_device_memory_segment_malloc (mem, 0, 40 << 20, &a, NULL));
  g_assert_true (ts_device_memory_segment_malloc (mem, 0, 40 << 20, &b, NULL));
  g_assert_cmpuint (ts_host_data_get_charged (), ==, 0);  /* nothing used yet */
  g_assert_nonnull (ts_device_memory_translate (mem, a, 1, NULL));
  g_assert_cmpuint (ts_host_data_get_charged (), ==, 40 << 20);
  g_assert_null (ts_device_memory_translate (mem, b, 1, &error));
  g_assert_error (error, TS_HOST_DATA_ERROR, TS_HOST_DATA_ERROR_NO_MEMORY);
  g_assert_nonnull (strstr (error->message, "--no-data"));
  g_clear_error (&error);
  g_assert_true (ts_device_memory_segment_free (mem, a, NULL));
  g_assert_cmpuint (ts_host_data_get_charged (), ==, 0);
  g_assert_nonnull (ts_device_memory_translate (mem, b, 1, NULL));
  g_assert_true (ts_device_memory_segment_free (mem, b, NULL));

  /* a reservation: its mapped pages, settled when used */
  g_assert_true (ts_device_memory_reserve (mem, 0, 256 << 20, &r, NULL));
  g_assert_true (ts_device_memory_map (mem, r, 32 << 20, NULL));
  g_assert_nonnull (ts_device_memory_translate (mem, r, 1, NULL));
  g_assert_cmpuint (ts_host_data_get_charged (), ==, 32 << 20);
  g_assert_true (ts_device_memory_map (mem, r + (32 << 20), 64 << 20, NULL));
  g_assert_null (ts_device_memory_translate (mem, r + (32 << 20), 1, &error));
  g_assert_error (error, TS_HOST_DATA_ERROR, TS_HOST_DATA_ERROR_NO_MEMORY);
  g_assert_true (ts_device_memory_unmap (mem, r + (32 << 20), 64 << 20, NULL));
  g_assert_true (ts_device_memory_unmap (mem, r, 16 << 20, NULL));
  g_assert_cmpuint (ts_host_data_get_charged (), ==, 16 << 20);
  g_assert_true (ts_device_memory_release (mem, r, NULL));
  g_assert_cmpuint (ts_host_data_get_charged (), ==, 0);
  ts_host_data_set_limit (G_MAXUINT64 / 2);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  /* these tests map huge segments: the budget is tested on its own */
  ts_host_data_set_limit (G_MAXUINT64 / 2);
  g_test_add_func ("/device-memory/host-budget", test_host_budget);
  g_test_add_func ("/device-memory/addresses", test_addresses);
  g_test_add_func ("/device-memory/errors", test_errors);
  g_test_add_func ("/device-memory/translate", test_translate);
  g_test_add_func ("/device-memory/virtual-memory", test_virtual_memory);
  return g_test_run ();
}
