/* test-cli-errors.c: bad trace files give one error line and a failure exit
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every read-side command, on every kind of bad input: empty, not a trace,
 * a header cut in half, a newer major version, a frame claiming a huge
 * length, a missing file, and a byte flipped at every offset of a small
 * trace. Failing is fine; crashing, hanging, or printing more than one
 * line is not. A file cut between frames (a killed run) still loads, with
 * a warning.
 */

#include <glib/gstdio.h>

#include "ts-test-trace.h"

static char *dir;
static char *good;
static char *good_bytes;
static gsize good_len;

static int
run_cli (const char * const *args,
         char              **out,
         char              **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_ptr_array_add (argv, (gpointer) TS_CLI_PATH);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               out, err, &status, &error));
  g_assert_no_error (error);
  /* A signal (a crash) is never acceptable. */
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static guint
count_lines (const char *s)
{
  guint n = 0;

  for (; *s; s++)
    n += *s == '\n';
  return n;
}

/* Runs all four commands on path; each must fail with one stderr line. */
static void
expect_failure (const char *path,
                const char *what)
{
  g_autofree char *json = g_build_filename (dir, "out.json", NULL);
  g_autofree char *png = g_build_filename (dir, "out.png", NULL);
  const char *info[] = { "info", path, NULL };
  const char *report[] = { "report", path, NULL };
  const char *export[] = { "export", path, "-o", json, NULL };
  const char *render[] = { "render", path, "-o", png, NULL };
  const char * const *commands[] = { info, report, export, render };

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      int code = run_cli (commands[i], &out, &err);

      g_test_message ("%s %s: %s", commands[i][0], what, err);
      g_assert_cmpint (code, !=, 0);
      g_assert_cmpuint (count_lines (err), ==, 1);
      g_assert_true (g_str_has_prefix (err, "tensorscope: "));
      g_assert_nonnull (strstr (err, what));
      g_assert_false (g_file_test (json, G_FILE_TEST_EXISTS));
      g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
    }
}

static char *
write_file (const char *name,
            const void *data,
            gsize       len)
{
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, data, len, NULL));
  return path;
}

static void
test_empty (void)
{
  g_autofree char *path = write_file ("empty.tstrace", "", 0);
  expect_failure (path, "empty.tstrace");
}

static void
test_not_a_trace (void)
{
  const char text[] = "this is not a trace, just some text\n";
  g_autofree char *path = write_file ("text.tstrace", text, sizeof text - 1);
  expect_failure (path, "Not a Tensorscope trace");
}

static void
test_missing (void)
{
  g_autofree char *path = g_build_filename (dir, "missing.tstrace", NULL);
  expect_failure (path, "missing.tstrace");
}

static void
test_cut_header (void)
{
  g_autofree char *path = write_file ("cut-header.tstrace", good_bytes, 20);
  expect_failure (path, "cut-header.tstrace");
}

static void
test_newer_version (void)
{
  g_autofree char *bytes = g_memdup2 (good_bytes, good_len);
  g_autofree char *path = NULL;

  bytes[8] = 9;   /* major version, little-endian u16 */
  path = write_file ("v9.tstrace", bytes, good_len);
  expect_failure (path, "newer than this version");
}

static void
test_huge_length (void)
{
  g_autofree char *bytes = g_memdup2 (good_bytes, good_len);
  g_autofree char *path = NULL;

  /* The first frame after the 32-byte header claims 4 GiB - 16. */
  bytes[32 + 4] = (char) 0xf0;
  bytes[32 + 5] = (char) 0xff;
  bytes[32 + 6] = (char) 0xff;
  bytes[32 + 7] = (char) 0xff;
  path = write_file ("huge.tstrace", bytes, good_len);
  expect_failure (path, "claims");
}

static void
test_cut_short (void)
{
  g_autofree char *path = write_file ("cut.tstrace", good_bytes, good_len / 2);
  const char *info[] = { "info", path, NULL };
  const char *report[] = { "report", path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *out2 = NULL, *err2 = NULL;

  g_assert_cmpint (run_cli (info, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "Complete:    no, cut short"));
  g_assert_cmpint (run_cli (report, &out2, &err2), ==, 0);
  g_assert_cmpuint (count_lines (err2), ==, 1);
  g_assert_nonnull (strstr (err2, "was cut short"));
}

/* A byte flipped at every offset (every 13th, for speed): never a crash, and
 * a failure is one line. */
static void
test_flipped_bytes (void)
{
  g_autofree char *bytes = g_memdup2 (good_bytes, good_len);
  g_autofree char *path = g_build_filename (dir, "flip.tstrace", NULL);
  g_autofree char *json = g_build_filename (dir, "flip.json", NULL);
  guint failures = 0, runs = 0;

  for (gsize off = 0; off < good_len; off += 13)
    {
      const char *export[] = { "export", path, "-o", json, NULL };
      g_autofree char *out = NULL, *err = NULL;
      int code;

      memcpy (bytes, good_bytes, good_len);
      bytes[off] ^= 0x5a;
      g_assert_true (g_file_set_contents (path, bytes, good_len, NULL));
      code = run_cli (export, &out, &err);
      runs++;
      if (code != 0)
        {
          failures++;
          g_assert_cmpuint (count_lines (err), ==, 1);
        }
      g_remove (json);
    }
  g_test_message ("%u of %u flipped files refused", failures, runs);
  g_assert_cmpuint (failures, >, 0);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  TsTestTraceOptions o = { 1, 2, 1, 2, 3 };
  g_autoptr(TsRecorder) rec = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);

  dir = g_dir_make_tmp ("ts-cli-errors-XXXXXX", &error);
  g_assert_no_error (error);
  good = g_build_filename (dir, "good.tstrace", NULL);
  rec = ts_test_trace_new (&o);
  g_assert_true (ts_test_trace_write (rec, good, &error));
  g_assert_true (g_file_get_contents (good, &good_bytes, &good_len, &error));

  g_test_add_func ("/cli/errors/empty", test_empty);
  g_test_add_func ("/cli/errors/not-a-trace", test_not_a_trace);
  g_test_add_func ("/cli/errors/missing", test_missing);
  g_test_add_func ("/cli/errors/cut-header", test_cut_header);
  g_test_add_func ("/cli/errors/newer-version", test_newer_version);
  g_test_add_func ("/cli/errors/huge-length", test_huge_length);
  g_test_add_func ("/cli/errors/cut-short", test_cut_short);
  g_test_add_func ("/cli/errors/flipped-bytes", test_flipped_bytes);
  ret = g_test_run ();

  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    const char *name;
    while (d != NULL && (name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *p = g_build_filename (dir, name, NULL);
        g_remove (p);
      }
  }
  g_rmdir (dir);
  g_free (dir);
  g_free (good);
  g_free (good_bytes);
  return ret;
}
