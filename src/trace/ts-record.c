/* ts-record.c: field tables of the record kinds
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every field of every record struct is listed here, in declaration order,
 * with its offset and size taken from the struct itself. The recorder stores
 * one column per field, the trace file writes fields in this order, and
 * test-recorder checks that each table covers its struct exactly, byte for
 * byte, so a field added to a struct but not here fails the tests.
 */

#include "config.h"

#include <string.h>

#include "ts-record.h"

#define FIELD(Type, member, ftype) \
  { #member, ftype, G_STRUCT_OFFSET (Type, member), sizeof (((Type *) 0)->member) }

/* A TsSourceLoc is three fields, named prefix.file, prefix.function, prefix.line. */
#define LOC_FIELDS(Type, member) \
  FIELD (Type, member.file, TS_FIELD_STRING), \
  FIELD (Type, member.function, TS_FIELD_STRING), \
  FIELD (Type, member.line, TS_FIELD_U32)

#define DIM3_FIELDS(Type, member) \
  { #member ".x", TS_FIELD_U32, G_STRUCT_OFFSET (Type, member[0]), sizeof (guint32) }, \
  { #member ".y", TS_FIELD_U32, G_STRUCT_OFFSET (Type, member[1]), sizeof (guint32) }, \
  { #member ".z", TS_FIELD_U32, G_STRUCT_OFFSET (Type, member[2]), sizeof (guint32) }

static const TsFieldInfo device_fields[] = {
  FIELD (TsDeviceRecord, index, TS_FIELD_U32),
  FIELD (TsDeviceRecord, name, TS_FIELD_STRING),
  FIELD (TsDeviceRecord, model, TS_FIELD_STRING),
  FIELD (TsDeviceRecord, sm_count, TS_FIELD_U32),
  FIELD (TsDeviceRecord, cc_major, TS_FIELD_U32),
  FIELD (TsDeviceRecord, cc_minor, TS_FIELD_U32),
  FIELD (TsDeviceRecord, total_memory, TS_FIELD_U64),
};

static const TsFieldInfo stream_fields[] = {
  FIELD (TsStreamRecord, stream, TS_FIELD_STREAM),
  FIELD (TsStreamRecord, device, TS_FIELD_U32),
  FIELD (TsStreamRecord, priority, TS_FIELD_I32),
  FIELD (TsStreamRecord, is_default, TS_FIELD_U32),
  FIELD (TsStreamRecord, handle, TS_FIELD_U64),
};

static const TsFieldInfo thread_fields[] = {
  FIELD (TsThreadRecord, thread, TS_FIELD_U32),
  FIELD (TsThreadRecord, name, TS_FIELD_STRING),
};

static const TsFieldInfo api_call_fields[] = {
  FIELD (TsApiCallRecord, start, TS_FIELD_TIME),
  FIELD (TsApiCallRecord, end, TS_FIELD_TIME),
  FIELD (TsApiCallRecord, correlation, TS_FIELD_U64),
  FIELD (TsApiCallRecord, thread, TS_FIELD_U32),
  FIELD (TsApiCallRecord, name, TS_FIELD_STRING),
  LOC_FIELDS (TsApiCallRecord, loc),
  FIELD (TsApiCallRecord, device, TS_FIELD_I32),
  FIELD (TsApiCallRecord, stream, TS_FIELD_STREAM),
  FIELD (TsApiCallRecord, padding, TS_FIELD_PAD),
};

static const TsFieldInfo kernel_fields[] = {
  FIELD (TsKernelRecord, start, TS_FIELD_TIME),
  FIELD (TsKernelRecord, end, TS_FIELD_TIME),
  FIELD (TsKernelRecord, queued, TS_FIELD_TIME),
  FIELD (TsKernelRecord, correlation, TS_FIELD_U64),
  FIELD (TsKernelRecord, device, TS_FIELD_U32),
  FIELD (TsKernelRecord, stream, TS_FIELD_STREAM),
  FIELD (TsKernelRecord, name, TS_FIELD_STRING),
  DIM3_FIELDS (TsKernelRecord, grid),
  DIM3_FIELDS (TsKernelRecord, block),
  FIELD (TsKernelRecord, sms, TS_FIELD_U32),
  FIELD (TsKernelRecord, flops, TS_FIELD_U64),
  FIELD (TsKernelRecord, bytes, TS_FIELD_U64),
  FIELD (TsKernelRecord, error, TS_FIELD_U32),
  FIELD (TsKernelRecord, padding, TS_FIELD_PAD),
};

static const TsFieldInfo memcpy_fields[] = {
  FIELD (TsMemcpyRecord, start, TS_FIELD_TIME),
  FIELD (TsMemcpyRecord, end, TS_FIELD_TIME),
  FIELD (TsMemcpyRecord, queued, TS_FIELD_TIME),
  FIELD (TsMemcpyRecord, correlation, TS_FIELD_U64),
  FIELD (TsMemcpyRecord, device, TS_FIELD_U32),
  FIELD (TsMemcpyRecord, stream, TS_FIELD_STREAM),
  FIELD (TsMemcpyRecord, kind, TS_FIELD_U32),
  FIELD (TsMemcpyRecord, flags, TS_FIELD_U32),
  FIELD (TsMemcpyRecord, src_device, TS_FIELD_I32),
  FIELD (TsMemcpyRecord, dst_device, TS_FIELD_I32),
  FIELD (TsMemcpyRecord, bytes, TS_FIELD_U64),
};

static const TsFieldInfo memset_fields[] = {
  FIELD (TsMemsetRecord, start, TS_FIELD_TIME),
  FIELD (TsMemsetRecord, end, TS_FIELD_TIME),
  FIELD (TsMemsetRecord, queued, TS_FIELD_TIME),
  FIELD (TsMemsetRecord, correlation, TS_FIELD_U64),
  FIELD (TsMemsetRecord, device, TS_FIELD_U32),
  FIELD (TsMemsetRecord, stream, TS_FIELD_STREAM),
  FIELD (TsMemsetRecord, bytes, TS_FIELD_U64),
  FIELD (TsMemsetRecord, value, TS_FIELD_U32),
  FIELD (TsMemsetRecord, padding, TS_FIELD_PAD),
};

static const TsFieldInfo event_record_fields[] = {
  FIELD (TsEventRecordRecord, queued, TS_FIELD_TIME),
  FIELD (TsEventRecordRecord, time, TS_FIELD_TIME),
  FIELD (TsEventRecordRecord, correlation, TS_FIELD_U64),
  FIELD (TsEventRecordRecord, event, TS_FIELD_U64),
  FIELD (TsEventRecordRecord, device, TS_FIELD_U32),
  FIELD (TsEventRecordRecord, stream, TS_FIELD_STREAM),
};

static const TsFieldInfo event_wait_fields[] = {
  FIELD (TsEventWaitRecord, queued, TS_FIELD_TIME),
  FIELD (TsEventWaitRecord, time, TS_FIELD_TIME),
  FIELD (TsEventWaitRecord, correlation, TS_FIELD_U64),
  FIELD (TsEventWaitRecord, event, TS_FIELD_U64),
  FIELD (TsEventWaitRecord, record_correlation, TS_FIELD_U64),
  FIELD (TsEventWaitRecord, device, TS_FIELD_U32),
  FIELD (TsEventWaitRecord, stream, TS_FIELD_STREAM),
};

static const TsFieldInfo sync_fields[] = {
  FIELD (TsSyncRecord, start, TS_FIELD_TIME),
  FIELD (TsSyncRecord, end, TS_FIELD_TIME),
  FIELD (TsSyncRecord, correlation, TS_FIELD_U64),
  FIELD (TsSyncRecord, thread, TS_FIELD_U32),
  FIELD (TsSyncRecord, kind, TS_FIELD_U32),
  FIELD (TsSyncRecord, device, TS_FIELD_I32),
  FIELD (TsSyncRecord, stream, TS_FIELD_STREAM),
  FIELD (TsSyncRecord, event, TS_FIELD_U64),
};

static const TsFieldInfo nvtx_fields[] = {
  FIELD (TsNvtxRecord, time, TS_FIELD_TIME),
  FIELD (TsNvtxRecord, range_id, TS_FIELD_U64),
  FIELD (TsNvtxRecord, thread, TS_FIELD_U32),
  FIELD (TsNvtxRecord, kind, TS_FIELD_U32),
  FIELD (TsNvtxRecord, message, TS_FIELD_STRING),
  FIELD (TsNvtxRecord, depth, TS_FIELD_I32),
  LOC_FIELDS (TsNvtxRecord, loc),
  FIELD (TsNvtxRecord, padding, TS_FIELD_PAD),
};

static const TsFieldInfo alloc_fields[] = {
  FIELD (TsAllocRecord, time, TS_FIELD_TIME),
  FIELD (TsAllocRecord, addr, TS_FIELD_U64),
  FIELD (TsAllocRecord, size, TS_FIELD_U64),
  FIELD (TsAllocRecord, requested, TS_FIELD_U64),
  FIELD (TsAllocRecord, correlation, TS_FIELD_U64),
  FIELD (TsAllocRecord, device, TS_FIELD_U32),
  FIELD (TsAllocRecord, stream, TS_FIELD_STREAM),
  FIELD (TsAllocRecord, action, TS_FIELD_U32),
  FIELD (TsAllocRecord, pool, TS_FIELD_U32),
  LOC_FIELDS (TsAllocRecord, loc),
  FIELD (TsAllocRecord, pool_id_first, TS_FIELD_U32),
  FIELD (TsAllocRecord, pool_id_second, TS_FIELD_U32),
  FIELD (TsAllocRecord, padding, TS_FIELD_PAD),
};

static const TsFieldInfo counter_fields[] = {
  FIELD (TsCounterRecord, time, TS_FIELD_TIME),
  FIELD (TsCounterRecord, value, TS_FIELD_I64),
  FIELD (TsCounterRecord, device, TS_FIELD_U32),
  FIELD (TsCounterRecord, counter, TS_FIELD_U32),
};

static const TsFieldInfo error_fields[] = {
  FIELD (TsErrorRecord, time, TS_FIELD_TIME),
  FIELD (TsErrorRecord, kernel_correlation, TS_FIELD_U64),
  FIELD (TsErrorRecord, surfaced_correlation, TS_FIELD_U64),
  FIELD (TsErrorRecord, device, TS_FIELD_U32),
  FIELD (TsErrorRecord, stream, TS_FIELD_STREAM),
  FIELD (TsErrorRecord, code, TS_FIELD_U32),
  FIELD (TsErrorRecord, message, TS_FIELD_STRING),
  LOC_FIELDS (TsErrorRecord, launch_loc),
  LOC_FIELDS (TsErrorRecord, surfaced_loc),
};

static const TsFieldInfo sanitizer_fields[] = {
  FIELD (TsSanitizerRecord, time, TS_FIELD_TIME),
  FIELD (TsSanitizerRecord, addr, TS_FIELD_U64),
  FIELD (TsSanitizerRecord, correlation, TS_FIELD_U64),
  FIELD (TsSanitizerRecord, prev_correlation, TS_FIELD_U64),
  FIELD (TsSanitizerRecord, stream, TS_FIELD_STREAM),
  FIELD (TsSanitizerRecord, prev_stream, TS_FIELD_STREAM),
  FIELD (TsSanitizerRecord, is_write, TS_FIELD_U32),
  FIELD (TsSanitizerRecord, prev_is_write, TS_FIELD_U32),
  FIELD (TsSanitizerRecord, op, TS_FIELD_STRING),
  FIELD (TsSanitizerRecord, prev_op, TS_FIELD_STRING),
  LOC_FIELDS (TsSanitizerRecord, loc),
  LOC_FIELDS (TsSanitizerRecord, prev_loc),
  LOC_FIELDS (TsSanitizerRecord, alloc_loc),
  FIELD (TsSanitizerRecord, report, TS_FIELD_STRING),
};

static const TsFieldInfo output_fields[] = {
  FIELD (TsOutputRecord, time, TS_FIELD_TIME),
  FIELD (TsOutputRecord, thread, TS_FIELD_U32),
  FIELD (TsOutputRecord, kind, TS_FIELD_U32),
  FIELD (TsOutputRecord, text, TS_FIELD_STRING),
  FIELD (TsOutputRecord, padding, TS_FIELD_PAD),
};

static const TsFieldInfo access_fields[] = {
  FIELD (TsAccessRecord, time, TS_FIELD_TIME),
  FIELD (TsAccessRecord, correlation, TS_FIELD_U64),
  FIELD (TsAccessRecord, addr, TS_FIELD_U64),
  FIELD (TsAccessRecord, size, TS_FIELD_U64),
  FIELD (TsAccessRecord, stream, TS_FIELD_STREAM),
  FIELD (TsAccessRecord, mode, TS_FIELD_U32),
};

#define INFO(KIND, name, Type, fields) \
  [KIND] = { KIND, name, sizeof (Type), G_N_ELEMENTS (fields), fields }

static const TsRecordInfo record_infos[TS_N_RECORD_KINDS] = {
  INFO (TS_RECORD_DEVICE, "device", TsDeviceRecord, device_fields),
  INFO (TS_RECORD_STREAM, "stream", TsStreamRecord, stream_fields),
  INFO (TS_RECORD_THREAD, "thread", TsThreadRecord, thread_fields),
  INFO (TS_RECORD_API_CALL, "api-call", TsApiCallRecord, api_call_fields),
  INFO (TS_RECORD_KERNEL, "kernel", TsKernelRecord, kernel_fields),
  INFO (TS_RECORD_MEMCPY, "memcpy", TsMemcpyRecord, memcpy_fields),
  INFO (TS_RECORD_MEMSET, "memset", TsMemsetRecord, memset_fields),
  INFO (TS_RECORD_EVENT_RECORD, "event-record", TsEventRecordRecord, event_record_fields),
  INFO (TS_RECORD_EVENT_WAIT, "event-wait", TsEventWaitRecord, event_wait_fields),
  INFO (TS_RECORD_SYNC, "sync", TsSyncRecord, sync_fields),
  INFO (TS_RECORD_NVTX, "nvtx", TsNvtxRecord, nvtx_fields),
  INFO (TS_RECORD_ALLOC, "alloc", TsAllocRecord, alloc_fields),
  INFO (TS_RECORD_COUNTER, "counter", TsCounterRecord, counter_fields),
  INFO (TS_RECORD_ERROR, "error", TsErrorRecord, error_fields),
  INFO (TS_RECORD_SANITIZER, "sanitizer", TsSanitizerRecord, sanitizer_fields),
  INFO (TS_RECORD_OUTPUT, "output", TsOutputRecord, output_fields),
  INFO (TS_RECORD_ACCESS, "access", TsAccessRecord, access_fields),
};

G_STATIC_ASSERT (sizeof (TsKernelRecord) <= TS_RECORD_MAX_SIZE);
G_STATIC_ASSERT (sizeof (TsSanitizerRecord) <= TS_RECORD_MAX_SIZE);
G_STATIC_ASSERT (sizeof (TsAllocRecord) <= TS_RECORD_MAX_SIZE);

G_DEFINE_QUARK (ts-record-data-error-quark, ts_record_data_error)

const TsRecordInfo *
ts_record_info (TsRecordKind kind)
{
  g_return_val_if_fail ((guint) kind < TS_N_RECORD_KINDS, NULL);

  return &record_infos[kind];
}

const TsRecordInfo *
ts_record_info_lookup (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i < TS_N_RECORD_KINDS; i++)
    {
      if (strcmp (record_infos[i].name, name) == 0)
        return &record_infos[i];
    }

  return NULL;
}

/* A record kind's field by name, or NULL: lets code that treats several
 * kinds alike (the CUPTI translator's join) reach a shared field without a
 * switch over the kinds. */
const TsFieldInfo *
ts_record_info_field (const TsRecordInfo *info,
                      const char         *name)
{
  g_return_val_if_fail (info != NULL, NULL);

  for (guint i = 0; i < info->n_fields; i++)
    {
      if (strcmp (info->fields[i].name, name) == 0)
        return &info->fields[i];
    }

  return NULL;
}

static gboolean
check_range (const char  *kind_name,
             const char  *field,
             guint32      value,
             guint32      lo,
             guint32      hi,
             GError     **error)
{
  if (value >= lo && value <= hi)
    return TRUE;

  g_set_error (error, TS_RECORD_DATA_ERROR, TS_RECORD_DATA_ERROR_BAD_VALUE,
               "%s record: %s is %u, expected %u to %u",
               kind_name, field, value, lo, hi);
  return FALSE;
}

gboolean
ts_record_validate (TsRecordKind   kind,
                    const void    *record,
                    GError       **error)
{
  g_return_val_if_fail ((guint) kind < TS_N_RECORD_KINDS, FALSE);
  g_return_val_if_fail (record != NULL, FALSE);

  switch (kind)
    {
    case TS_RECORD_STREAM:
      {
        const TsStreamRecord *r = record;
        return check_range ("stream", "is_default", r->is_default, 0, 1, error);
      }

    case TS_RECORD_MEMCPY:
      {
        const TsMemcpyRecord *r = record;
        return check_range ("memcpy", "kind", r->kind,
                            TS_COPY_HOST_TO_DEVICE, TS_COPY_HOST_TO_HOST, error) &&
               check_range ("memcpy", "flags", r->flags, 0,
                            TS_COPY_FLAG_PINNED | TS_COPY_FLAG_ASYNC, error);
      }

    case TS_RECORD_SYNC:
      {
        const TsSyncRecord *r = record;
        return check_range ("sync", "kind", r->kind, TS_SYNC_DEVICE, TS_SYNC_COPY, error);
      }

    case TS_RECORD_NVTX:
      {
        const TsNvtxRecord *r = record;
        return check_range ("nvtx", "kind", r->kind, TS_NVTX_MARK, TS_NVTX_RANGE_END, error);
      }

    case TS_RECORD_ALLOC:
      {
        const TsAllocRecord *r = record;
        return check_range ("alloc", "action", r->action,
                            TS_ALLOC_ACTION_ALLOC, TS_ALLOC_ACTION_SEGMENT_UNMAP, error) &&
               check_range ("alloc", "pool", r->pool, 0, 1, error);
      }

    case TS_RECORD_COUNTER:
      {
        const TsCounterRecord *r = record;
        return check_range ("counter", "counter", r->counter,
                            TS_COUNTER_ALLOCATED_BYTES, TS_COUNTER_ACTIVE_BYTES, error);
      }

    case TS_RECORD_SANITIZER:
      {
        const TsSanitizerRecord *r = record;
        return check_range ("sanitizer", "is_write", r->is_write, 0, 1, error) &&
               check_range ("sanitizer", "prev_is_write", r->prev_is_write, 0, 1, error);
      }

    case TS_RECORD_OUTPUT:
      {
        const TsOutputRecord *r = record;
        return check_range ("output", "kind", r->kind, TS_OUTPUT_STDOUT, TS_OUTPUT_TOOL, error);
      }

    case TS_RECORD_ACCESS:
      {
        const TsAccessRecord *r = record;
        return check_range ("access", "mode", r->mode, TS_ACCESS_READ, TS_ACCESS_RECORD_STREAM, error);
      }

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
      return TRUE;
    }
}
