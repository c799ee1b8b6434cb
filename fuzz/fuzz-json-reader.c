/* fuzz-json-reader.c: the JSON importers (snapshot and profiler trace)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The same bytes go to both JSON importers: the streaming tokenizer is
 * shared, the walks differ. Whatever loads must index and replay; a
 * failure is one line.
 */

#include "config.h"

#include <string.h>

#include "ts-memory-replay.h"
#include "ts-trace-document.h"
#include "ts-trace-import.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  const TsImportFormat formats[] = { TS_IMPORT_FORMAT_KINETO_JSON, TS_IMPORT_FORMAT_SNAPSHOT_JSON };

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    {
      g_autoptr(TsRecorder) rec = ts_recorder_new ();
      g_autoptr(GError) error = NULL;
      gboolean ok = ts_trace_import_bytes (formats[f], data, size, rec, &error);

      g_assert (ok == (error == NULL));
      if (!ok)
        {
          g_assert (strchr (error->message, '\n') == NULL);
          continue;
        }
      {
        g_autoptr(TsTraceDocument) doc = ts_trace_document_new (rec);
        g_autoptr(TsMemoryReplay) replay = ts_memory_replay_new (rec);
        g_autoptr(TsMemoryState) st = ts_memory_replay_state_at (replay, ts_memory_replay_get_n_actions (replay));
        (void) doc;
        (void) st;
      }
    }
  return 0;
}
