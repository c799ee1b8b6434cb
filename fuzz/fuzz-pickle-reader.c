/* fuzz-pickle-reader.c: the memory snapshot importer on arbitrary pickles
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Imports the bytes as a snapshot pickle. Whatever loads must replay, index
 * and export; the exported snapshot must import again and replay to the
 * same final state (the writer and the reader agree).
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts-memory-replay.h"
#include "ts-snapshot-export.h"
#include "ts-trace-document.h"
#include "ts-trace-import.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static gsize
n_live_blocks (TsRecorder *rec)
{
  g_autoptr(TsMemoryReplay) replay = ts_memory_replay_new (rec);
  g_autoptr(TsMemoryState) st = ts_memory_replay_state_at (replay, ts_memory_replay_get_n_actions (replay));
  gsize n = 0;

  for (guint i = 0; i < st->blocks->len; i++)
    n += g_array_index (st->blocks, TsMemoryBlock, i).state != TS_BLOCK_STATE_INACTIVE;
  return n;
}

static gboolean
consistent (TsRecorder *rec)
{
  g_autoptr(TsMemoryReplay) replay = ts_memory_replay_new (rec);
  g_autoptr(GPtrArray) notes = ts_trace_import_get_notes (rec);

  if (ts_memory_replay_get_n_skipped (replay) > 0)
    return FALSE;
  for (guint i = 0; i < notes->len; i++)
    if (strstr (notes->pdata[i], "skipped") != NULL)
      return FALSE;
  return TRUE;
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(GError) error = NULL;
  gboolean ok;

  ok = ts_trace_import_bytes (TS_IMPORT_FORMAT_SNAPSHOT_PICKLE, data, size, rec, &error);
  g_assert (ok == (error == NULL));
  if (!ok)
    {
      g_assert (error->message != NULL && strchr (error->message, '\n') == NULL);
      return 0;
    }
  {
    g_autoptr(TsTraceDocument) doc = ts_trace_document_new (rec);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream (&buf, &len);
    gint64 n;

    (void) doc;
    n = ts_memory_snapshot_write_pickle (rec, out, NULL);
    fclose (out);
    if (n >= 0)
      {
        g_autoptr(TsRecorder) again = ts_recorder_new ();
        g_autoptr(GError) error2 = NULL;
        if (!ts_trace_import_bytes (TS_IMPORT_FORMAT_SNAPSHOT_PICKLE, (const guint8 *) buf, len, again, &error2))
          g_error ("our own snapshot does not import: %s", error2->message);
        /* The same final state, where the input was consistent (no entry
         * dropped by the import, none skipped by the replay): a corrupted
         * trace can disagree with its own segments in ways a round trip
         * resolves differently. */
        if (consistent (rec))
          g_assert (n_live_blocks (rec) == n_live_blocks (again));
      }
    free (buf);
  }
  return 0;
}
