/* ts-inject-nvtx.c: NVTX ranges and marks of a recorded program
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The nvtx3 headers compiled into a program look, at the first NVTX call,
 * for NVTX_INJECTION64_PATH, dlopen it and call InitializeInjectionNvtx2
 * with a function giving export tables. From the callbacks table we fill
 * the slots of the calls we record (the CORE module: nvtxRangePush/Pop,
 * nvtxRangeStart/End, nvtxMark, thread names; and CORE2: their domain
 * versions and registered strings); NVTX routes those calls to us from
 * then on. Nothing here touches CUDA.
 *
 * Records follow the simulated runtime: a push has the depth the range
 * gets (0 for an outermost range) and the pop repeats depth and message of
 * the push; start/end pair by range id, depth 0.
 */

#include "config.h"

#include <string.h>
#include <unistd.h>
#include <wchar.h>
#include <sys/syscall.h>

#include <nvtx3/nvToolsExt.h>

#include "ts-inject-private.h"

#define MAX_DEPTH 256

static __thread TsStringId stack[MAX_DEPTH];
static __thread int        depth;
static guint64             last_range_id;

static void
append (TsRecorder *recorder,
        TsNvtxKind  kind,
        TsStringId  message,
        gint32      level,
        guint64     range_id)
{
  TsNvtxRecord rec = { 0 };

  rec.time = ts_inject_now ();
  rec.range_id = range_id;
  rec.thread = ts_inject_thread ();
  rec.kind = kind;
  rec.message = message;
  rec.depth = level;
  ts_recorder_append (recorder, TS_RECORD_NVTX, &rec);
}

static TsStringId
intern_wide (TsRecorder    *recorder,
             const wchar_t *message)
{
  g_autofree char *utf8 = NULL;

  if (message == NULL)
    return 0;
  /* wchar_t is UCS-4 on the platforms we run on. */
  utf8 = g_ucs4_to_utf8 ((const gunichar *)message, -1, NULL, NULL, NULL);
  return ts_recorder_intern (recorder, utf8);
}

/* A registered string handle is our string id (see register_string_a). */
static TsStringId
attributes_message (TsRecorder                  *recorder,
                    const nvtxEventAttributes_t *attr)
{
  if (attr == NULL)
    return 0;
  switch (attr->messageType)
    {
    case NVTX_MESSAGE_TYPE_ASCII:
      return ts_recorder_intern (recorder, attr->message.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE:
      return intern_wide (recorder, attr->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED:
      return (TsStringId)GPOINTER_TO_UINT (attr->message.registered);
    default:
      return 0;
    }
}

static int
push_id (TsStringId message)
{
  TsRecorder *recorder = ts_inject_get_recorder ();
  int level = depth;

  if (recorder == NULL)
    return -1;
  if (depth < MAX_DEPTH)
    stack[depth] = message;
  depth++;
  append (recorder, TS_NVTX_PUSH, message, level, 0);
  return level;
}

static int
range_pop (void)
{
  TsRecorder *recorder = ts_inject_get_recorder ();

  if (recorder == NULL || depth == 0)
    return -1;
  depth--;
  append (recorder, TS_NVTX_POP, depth < MAX_DEPTH ? stack[depth] : 0, depth, 0);
  return depth;
}

static nvtxRangeId_t
start_id (TsStringId message)
{
  TsRecorder *recorder = ts_inject_get_recorder ();
  guint64 id;

  if (recorder == NULL)
    return 0;
  id = (guint64)g_atomic_pointer_add ((gsize *)&last_range_id, 1) + 1;
  append (recorder, TS_NVTX_RANGE_START, message, 0, id);
  return id;
}

static void
range_end (nvtxRangeId_t id)
{
  TsRecorder *recorder = ts_inject_get_recorder ();

  if (recorder != NULL)
    append (recorder, TS_NVTX_RANGE_END, 0, 0, id);
}

static void
mark_id (TsStringId message)
{
  TsRecorder *recorder = ts_inject_get_recorder ();

  if (recorder != NULL)
    append (recorder, TS_NVTX_MARK, message, depth, 0);
}

static TsRecorder *
rec (void)
{
  return ts_inject_get_recorder ();
}

/* The CORE module. */
static int range_push_a (const char *m) { return rec () ? push_id (ts_recorder_intern (rec (), m)) : -1; }
static int range_push_w (const wchar_t *m) { return rec () ? push_id (intern_wide (rec (), m)) : -1; }
static int range_push_ex (const nvtxEventAttributes_t *a) { return rec () ? push_id (attributes_message (rec (), a)) : -1; }
static nvtxRangeId_t range_start_a (const char *m) { return rec () ? start_id (ts_recorder_intern (rec (), m)) : 0; }
static nvtxRangeId_t range_start_w (const wchar_t *m) { return rec () ? start_id (intern_wide (rec (), m)) : 0; }
static nvtxRangeId_t range_start_ex (const nvtxEventAttributes_t *a) { return rec () ? start_id (attributes_message (rec (), a)) : 0; }
static void mark_a (const char *m) { if (rec ()) mark_id (ts_recorder_intern (rec (), m)); }
static void mark_w (const wchar_t *m) { if (rec ()) mark_id (intern_wide (rec (), m)); }
static void mark_ex (const nvtxEventAttributes_t *a) { if (rec ()) mark_id (attributes_message (rec (), a)); }

static void
name_os_thread_a (uint32_t    tid,
                  const char *name)
{
  /* Thread names are announced per thread in TsThreadRecord; a renamed
   * thread gets a second record with the new name. */
  if (rec () != NULL && tid == (uint32_t)syscall (SYS_gettid))
    {
      TsThreadRecord t = { ts_inject_thread (), ts_recorder_intern (rec (), name) };

      ts_recorder_append (rec (), TS_RECORD_THREAD, &t);
    }
}

/* The CORE2 module: domains. Our records have no domain; a domain's
 * ranges go on the same per-thread stack. */
static void domain_mark_ex (nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) { mark_ex (a); }
static nvtxRangeId_t domain_range_start_ex (nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) { return range_start_ex (a); }
static void domain_range_end (nvtxDomainHandle_t d, nvtxRangeId_t id) { range_end (id); }
static int domain_range_push_ex (nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) { return range_push_ex (a); }
static int domain_range_pop (nvtxDomainHandle_t d) { return range_pop (); }

static nvtxStringHandle_t
domain_register_string_a (nvtxDomainHandle_t  d,
                          const char         *s)
{
  return rec () ? (nvtxStringHandle_t)GUINT_TO_POINTER (ts_recorder_intern (rec (), s)) : NULL;
}

static nvtxStringHandle_t
domain_register_string_w (nvtxDomainHandle_t  d,
                          const wchar_t      *s)
{
  return rec () ? (nvtxStringHandle_t)GUINT_TO_POINTER (intern_wide (rec (), s)) : NULL;
}

static nvtxDomainHandle_t
domain_create_a (const char *name)
{
  static int dummy;

  /* Any non-NULL handle: NULL is the default domain. */
  return (nvtxDomainHandle_t)&dummy;
}

typedef struct
{
  unsigned int        id;
  NvtxFunctionPointer func;
} Slot;

static gboolean
fill_module (const NvtxExportTableCallbacks *callbacks,
             NvtxCallbackModule              module,
             const Slot                     *slots,
             guint                           n_slots)
{
  NvtxFunctionTable table = NULL;
  unsigned int size = 0;

  if (!callbacks->GetModuleFunctionTable (module, &table, &size) || table == NULL)
    return FALSE;
  for (guint i = 0; i < n_slots; i++)
    if (slots[i].id < size && table[slots[i].id] != NULL)
      *table[slots[i].id] = slots[i].func;
  return TRUE;
}

#define SLOT(id, f) { id, (NvtxFunctionPointer)(void (*) (void))(f) }

int InitializeInjectionNvtx2 (NvtxGetExportTableFunc_t get_export_table);

__attribute__ ((visibility ("default"))) int
InitializeInjectionNvtx2 (NvtxGetExportTableFunc_t get_export_table)
{
  const NvtxExportTableCallbacks *callbacks;
  const Slot core[] = {
    SLOT (NVTX_CBID_CORE_MarkEx, mark_ex),
    SLOT (NVTX_CBID_CORE_MarkA, mark_a),
    SLOT (NVTX_CBID_CORE_MarkW, mark_w),
    SLOT (NVTX_CBID_CORE_RangeStartEx, range_start_ex),
    SLOT (NVTX_CBID_CORE_RangeStartA, range_start_a),
    SLOT (NVTX_CBID_CORE_RangeStartW, range_start_w),
    SLOT (NVTX_CBID_CORE_RangeEnd, range_end),
    SLOT (NVTX_CBID_CORE_RangePushEx, range_push_ex),
    SLOT (NVTX_CBID_CORE_RangePushA, range_push_a),
    SLOT (NVTX_CBID_CORE_RangePushW, range_push_w),
    SLOT (NVTX_CBID_CORE_RangePop, range_pop),
    SLOT (NVTX_CBID_CORE_NameOsThreadA, name_os_thread_a),
  };
  const Slot core2[] = {
    SLOT (NVTX_CBID_CORE2_DomainMarkEx, domain_mark_ex),
    SLOT (NVTX_CBID_CORE2_DomainRangeStartEx, domain_range_start_ex),
    SLOT (NVTX_CBID_CORE2_DomainRangeEnd, domain_range_end),
    SLOT (NVTX_CBID_CORE2_DomainRangePushEx, domain_range_push_ex),
    SLOT (NVTX_CBID_CORE2_DomainRangePop, domain_range_pop),
    SLOT (NVTX_CBID_CORE2_DomainRegisterStringA, domain_register_string_a),
    SLOT (NVTX_CBID_CORE2_DomainRegisterStringW, domain_register_string_w),
    SLOT (NVTX_CBID_CORE2_DomainCreateA, domain_create_a),
  };

  /* Returning 0 makes NVTX turn every call into a no-op. */
  if (ts_inject_get_recorder () == NULL || get_export_table == NULL)
    return 0;
  callbacks = get_export_table (NVTX_ETID_CALLBACKS);
  if (callbacks == NULL || callbacks->struct_size < sizeof *callbacks)
    return 0;
  if (!fill_module (callbacks, NVTX_CB_MODULE_CORE, core, G_N_ELEMENTS (core)))
    return 0;
  fill_module (callbacks, NVTX_CB_MODULE_CORE2, core2, G_N_ELEMENTS (core2));
  return 1;
}
