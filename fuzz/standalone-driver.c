/* standalone-driver.c: runs a libFuzzer entry point over files, without libFuzzer
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each argument is a file or a directory (whose files are taken in name
 * order, so runs are reproducible). Used as a meson test over the seed
 * corpus, and to replay a crash file found by a fuzzer.
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

static gboolean
run_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize len;

  if (!g_file_get_contents (path, &contents, &len, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return FALSE;
    }

  /* A copy of exactly len bytes, so that ASan catches any overread. */
  {
    g_autofree guint8 *copy = g_memdup2 (contents, len);
    LLVMFuzzerTestOneInput (copy, len);
  }

  return TRUE;
}

int
main (int   argc,
      char *argv[])
{
  guint n_run = 0;

  if (argc < 2)
    {
      fprintf (stderr, "usage: %s FILE-OR-DIRECTORY...\n", argv[0]);
      return EXIT_FAILURE;
    }

  for (int i = 1; i < argc; i++)
    {
      g_autoptr(GDir) dir = NULL;
      g_autoptr(GPtrArray) names = NULL;
      const char *name;

      if (!g_file_test (argv[i], G_FILE_TEST_IS_DIR))
        {
          if (!run_file (argv[i]))
            return EXIT_FAILURE;
          n_run++;
          continue;
        }

      dir = g_dir_open (argv[i], 0, NULL);
      if (dir == NULL)
        {
          fprintf (stderr, "Cannot open %s\n", argv[i]);
          return EXIT_FAILURE;
        }

      names = g_ptr_array_new_with_free_func (g_free);
      while ((name = g_dir_read_name (dir)) != NULL)
        g_ptr_array_add (names, g_build_filename (argv[i], name, NULL));
      g_ptr_array_sort (names, compare_names);

      for (guint j = 0; j < names->len; j++)
        {
          if (!run_file (g_ptr_array_index (names, j)))
            return EXIT_FAILURE;
          n_run++;
        }
    }

  if (n_run == 0)
    {
      fprintf (stderr, "No input files\n");
      return EXIT_FAILURE;
    }

  printf ("%u inputs run\n", n_run);

  return EXIT_SUCCESS;
}
