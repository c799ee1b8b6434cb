/* ts-pickle-reader.h: a streaming reader for the pickles PyTorch writes
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-import-input.h"
#include "ts-import-value.h"

G_BEGIN_DECLS

typedef enum
{
  TS_PICKLE_SEGMENT = 1,   /* an item of root["segments"], or of a bare root list */
  TS_PICKLE_TRACE_ENTRY,   /* an item of root["device_traces"][device] */
} TsPickleItemKind;

/* Called for each streamed item as soon as it is complete; the reader
 * drops its reference afterwards (take one to keep it). */
typedef gboolean (*TsPickleItemFunc) (gpointer          user_data,
                                      TsPickleItemKind  kind,
                                      guint             device,
                                      TsValue          *item,
                                      GError          **error);

/* Runs the pickle VM over `in` (protocols 2 to 5, the opcodes pickle
 * writes for dict, list, tuple, str, bytes, int, float, bool and None).
 * Streamed items go to func and are not kept; on success *root is the
 * rest (the root dict with the streamed lists left empty). */
gboolean ts_pickle_read (TsImportInput    *in,
                         TsPickleItemFunc  func,
                         gpointer          user_data,
                         TsValue         **root,
                         GError          **error);

G_END_DECLS
