/* test-rank-clock.c: per-rank clocks aligned on matched collectives
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The offsets estimated from known end times; test-pytorch-import opens
 * directories of per-rank traces with known clock offsets.
 */

#include "config.h"

#include "ts-rank-clock.h"

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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rank-clock/median-and-order", test_median_and_order);
  g_test_add_func ("/rank-clock/seq-and-base", test_seq_and_base);
  return g_test_run ();
}
