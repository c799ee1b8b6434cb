/* test-records.h: records with recognisable values, for the tests
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <string.h>

#include "ts-record.h"

/* Fills a record of the kind with values that depend on seed and on the
 * field, so that two fields swapped or a record mixed up shows. Padding
 * stays zero, enum fields get valid values. */
static inline void
fill_record (TsRecordKind  kind,
             guint64       seed,
             void         *out)
{
  const TsRecordInfo *info = ts_record_info (kind);
  guint8 *bytes = out;

  memset (out, 0, info->struct_size);

  for (guint f = 0; f < info->n_fields; f++)
    {
      const TsFieldInfo *fi = &info->fields[f];
      guint64 v = seed * 1000003u + f * 7919u + 1;

      if (fi->type == TS_FIELD_PAD)
        continue;

      if (fi->size == 8)
        memcpy (bytes + fi->offset, &v, 8);
      else
        {
          guint32 v32 = (guint32) v;
          memcpy (bytes + fi->offset, &v32, 4);
        }
    }

  /* Make enum-typed fields valid. */
  if (!ts_record_validate (kind, out, NULL))
    {
      switch (kind)
        {
        case TS_RECORD_STREAM: ((TsStreamRecord *) out)->is_default = seed & 1; break;
        case TS_RECORD_MEMCPY:
          ((TsMemcpyRecord *) out)->kind = 1 + seed % 5;
          ((TsMemcpyRecord *) out)->flags = seed % 4;
          break;
        case TS_RECORD_SYNC: ((TsSyncRecord *) out)->kind = 1 + seed % 4; break;
        case TS_RECORD_NVTX: ((TsNvtxRecord *) out)->kind = 1 + seed % 5; break;
        case TS_RECORD_ALLOC:
          ((TsAllocRecord *) out)->action = 1 + seed % 7;
          ((TsAllocRecord *) out)->pool = seed & 1;
          break;
        case TS_RECORD_COUNTER: ((TsCounterRecord *) out)->counter = 1 + seed % 3; break;
        case TS_RECORD_SANITIZER:
          ((TsSanitizerRecord *) out)->is_write = seed & 1;
          ((TsSanitizerRecord *) out)->prev_is_write = (seed >> 1) & 1;
          break;
        case TS_RECORD_OUTPUT: ((TsOutputRecord *) out)->kind = 1 + seed % 3; break;
        case TS_RECORD_ACCESS: ((TsAccessRecord *) out)->mode = 1 + seed % 3; break;
        case TS_RECORD_DEVICE:
        case TS_RECORD_THREAD:
        case TS_RECORD_API_CALL:
        case TS_RECORD_KERNEL:
        case TS_RECORD_MEMSET:
        case TS_RECORD_EVENT_RECORD:
        case TS_RECORD_EVENT_WAIT:
        case TS_RECORD_ERROR:
        case TS_N_RECORD_KINDS:
        default:
          g_assert_not_reached ();
        }
    }
  g_assert_true (ts_record_validate (kind, out, NULL));
}

