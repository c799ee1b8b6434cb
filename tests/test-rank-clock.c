/* test-rank-clock.c: per-rank clocks aligned on matched collectives
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tests/data/pytorch/ranks-skew and ranks-nocoll are written by
 * make-pytorch-data.py (write_skewed_ranks) with known clock offsets.
 */

#include "config.h"

#include <string.h>

#include "ts-rank-clock.h"
#include "ts-trace-import.h"

static TsRecorder *
import (const char    *name,
        TsImportFlags  flags)
{
  g_autofree char *path = g_build_filename (TS_TEST_SRCDIR, "data", "pytorch", name, NULL);
  const char *paths[] = { path };
  g_autoptr(GError) error = NULL;
  TsRecorder *rec = ts_recorder_new ();

  if (!ts_trace_import_open_with_flags (paths, 1, flags, rec, &error))
    g_error ("%s: %s", name, error->message);
  return rec;
}

static gboolean
has_note (TsRecorder *rec,
          const char *needle)
{
  g_autoptr(GPtrArray) notes = ts_trace_import_get_notes (rec);

  for (guint i = 0; i < notes->len; i++)
    if (strstr (notes->pdata[i], needle) != NULL)
      return TRUE;
  return FALSE;
}

/* The start of the first kernel of each rank's device (the compute
 * kernel every rank runs at the same true instant). */
static TsTime
first_kernel_start (TsRecorder *rec,
                    guint32     device)
{
  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_KERNEL); i++)
    {
      TsKernelRecord k;
      ts_recorder_get (rec, TS_RECORD_KERNEL, i, &k);
      if (k.device == device)
        return k.start;
    }
  g_assert_not_reached ();
}

static void
test_median_and_order (void)
{
  g_autoptr(TsRankClock) clock = ts_rank_clock_new ();
  gint64 off = 0;
  guint n = 0;

  /* no instance numbers: the N-th end of a key matches the N-th; rank 3
   * is 1 ms ahead with ends +0, +10, +20, +900 µs late (median of an even
   * count: halfway between the middle two) */
  for (guint i = 0; i < 4; i++)
    {
      static const gint64 late[] = { 0, 10000, 20000, 900000 };
      ts_rank_clock_add (clock, 0, "pg|allreduce", -1, 5000000 * (i + 1));
      ts_rank_clock_add (clock, 3, "pg|allreduce", -1, 5000000 * (i + 1) + 1000000 + late[i]);
    }
  /* another key on rank 0 only, and a rank that shares nothing */
  ts_rank_clock_add (clock, 0, "pg|broadcast", -1, 1);
  ts_rank_clock_add (clock, 5, "other|allgather", -1, 7);
  ts_rank_clock_add (clock, 5, "other|allgather", -1, 8);
  ts_rank_clock_solve (clock);

  g_assert_cmpint (ts_rank_clock_get_reference (clock), ==, 0);
  g_assert_true (ts_rank_clock_get_offset (clock, 0, &off, &n));
  g_assert_cmpint (off, ==, 0);
  g_assert_true (ts_rank_clock_get_offset (clock, 3, &off, &n));
  g_assert_cmpint (off, ==, 1015000);
  g_assert_cmpuint (n, ==, 4);
  g_assert_false (ts_rank_clock_get_offset (clock, 5, &off, &n));
  g_assert_false (ts_rank_clock_get_offset (clock, 9, &off, &n));
}

static void
test_seq_and_base (void)
{
  g_autoptr(TsRankClock) clock = ts_rank_clock_new ();
  gint64 off = 0;
  guint n = 0;

  /* rank 1 misses instance 0; with Seq its first end still matches
   * instance 1 (in order it would match instance 0 and be 1 ms off). Its
   * base is 2 s later, so its ends are written 2 s smaller. */
  for (gint64 s = 0; s < 4; s++)
    ts_rank_clock_add (clock, 0, "0|allreduce", s, 1000000 * (s + 1));
  for (gint64 s = 1; s < 4; s++)
    ts_rank_clock_add (clock, 1, "0|allreduce", s, 1000000 * (s + 1) + 777 - 2000000000);
  ts_rank_clock_set_base (clock, 1, 2000000000);
  ts_rank_clock_solve (clock);
  g_assert_true (ts_rank_clock_get_offset (clock, 1, &off, &n));
  g_assert_cmpint (off, ==, 777);
  g_assert_cmpuint (n, ==, 3);
}

static void
test_skewed_directory (void)
{
  g_autoptr(TsRecorder) rec = import ("ranks-skew", TS_IMPORT_FLAGS_NONE);
  g_autoptr(TsRecorder) raw = import ("ranks-skew", TS_IMPORT_NO_CLOCK_ALIGN);
  TsTime t0 = first_kernel_start (rec, 0);

  /* rank 1's clock is 2500.25 µs ahead and its all-reduces end a median
   * 2 µs late: it moves back 2502.25 µs, so its compute kernel lands 2 µs
   * before rank 0's. Rank 2 (1234.567 µs behind, base 1 s later, no
   * collective with rank 0) is aligned through rank 1: the same 2 µs. */
  g_assert_true (has_note (rec, "clock: rank 1 shifted by -2502.250 µs onto rank 0's: its 5 collectives"));
  g_assert_true (has_note (rec, "clock: rank 2 shifted by +1232.567 µs onto rank 0's: its 3 collectives"));
  g_assert_true (has_note (rec, "clock: rank 2's baseTimeNanoseconds differs from the first trace's by 1000000000 ns: "
                           "its times were moved"));
  g_assert_cmpint (first_kernel_start (rec, 1) - t0, ==, -2000);
  g_assert_cmpint (first_kernel_start (rec, 2) - t0, ==, -2000);

  /* turned off: the times as written, and said so */
  t0 = first_kernel_start (raw, 0);
  g_assert_cmpint (first_kernel_start (raw, 1) - t0, ==, 2500250);
  g_assert_cmpint (first_kernel_start (raw, 2) - t0, ==, -1234567 - G_GINT64_CONSTANT (1000000000));
  g_assert_false (has_note (raw, "shifted by"));
  g_assert_true (has_note (raw, "clock: alignment on collectives turned off"));
  g_assert_true (has_note (raw, "clock: rank 2's baseTimeNanoseconds differs from the first trace's by 1000000000 ns: "
                           "this trace is not aligned"));
}

static void
test_agreeing_and_without_collectives (void)
{
  g_autoptr(TsRecorder) same = import ("ranks", TS_IMPORT_FLAGS_NONE);
  g_autoptr(TsRecorder) none = import ("ranks-nocoll", TS_IMPORT_FLAGS_NONE);

  /* one clock: the all-reduces end together, nothing moves (rank 1's
   * events are written 3 µs later) */
  g_assert_true (has_note (same, "clock: the ranks agree"));
  g_assert_false (has_note (same, "shifted by"));
  g_assert_cmpint (first_kernel_start (same, 1) - first_kernel_start (same, 0), ==, 3000);

  /* no collectives: left alone (rank 1 stays 5 ms later), and noted */
  g_assert_cmpint (first_kernel_start (none, 1) - first_kernel_start (none, 0), ==, 5000000);
  g_assert_true (has_note (none, "clock: rank 1 has fewer than 2 collectives in common with the other "
                           "ranks: left on its own clock"));
  g_assert_true (has_note (none, "their clocks could not be checked"));
  g_assert_false (has_note (none, "shifted by"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rank-clock/median-and-order", test_median_and_order);
  g_test_add_func ("/rank-clock/seq-and-base", test_seq_and_base);
  g_test_add_func ("/rank-clock/skewed-directory", test_skewed_directory);
  g_test_add_func ("/rank-clock/agreeing-and-without-collectives", test_agreeing_and_without_collectives);
  return g_test_run ();
}
