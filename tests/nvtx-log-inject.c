/* nvtx-log-inject.c: a minimal NVTX tool for tests
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Loaded through NVTX_INJECTION64_PATH, it writes one line per NVTX call
 * to the file named by NVTX_LOG_FILE ("push NAME", "pop", "mark NAME",
 * "start NAME", "end"). It stands in for Nsight: it proves a workload's
 * NVTX calls reach whatever tool is attached. Plain C, no GLib, so it can
 * be loaded into any process, tensorscope-cli included.
 */

#include <stdio.h>
#include <stdlib.h>

#include <nvtx3/nvToolsExt.h>

static FILE *log_file;

static void
log_line (const char *what,
          const char *message)
{
  if (log_file == NULL)
    return;
  fprintf (log_file, message ? "%s %s\n" : "%s\n", what, message);
  fflush (log_file);
}

static void
mark_a (const char *message)
{
  log_line ("mark", message);
}

static int
push_a (const char *message)
{
  log_line ("push", message);
  return 0;
}

static int
pop (void)
{
  log_line ("pop", NULL);
  return 0;
}

static nvtxRangeId_t
start_a (const char *message)
{
  log_line ("start", message);
  return 1;
}

static void
end (nvtxRangeId_t id)
{
  (void) id;
  log_line ("end", NULL);
}

int InitializeInjectionNvtx2 (NvtxGetExportTableFunc_t get_export_table);

__attribute__ ((visibility ("default"))) int
InitializeInjectionNvtx2 (NvtxGetExportTableFunc_t get_export_table)
{
  const NvtxExportTableCallbacks *callbacks;
  NvtxFunctionTable table = NULL;
  unsigned int size = 0;
  const char *path = getenv ("NVTX_LOG_FILE");
  struct { unsigned int id; NvtxFunctionPointer func; } slots[] = {
    { NVTX_CBID_CORE_MarkA, (NvtxFunctionPointer) (void (*) (void)) mark_a },
    { NVTX_CBID_CORE_RangePushA, (NvtxFunctionPointer) (void (*) (void)) push_a },
    { NVTX_CBID_CORE_RangePop, (NvtxFunctionPointer) (void (*) (void)) pop },
    { NVTX_CBID_CORE_RangeStartA, (NvtxFunctionPointer) (void (*) (void)) start_a },
    { NVTX_CBID_CORE_RangeEnd, (NvtxFunctionPointer) (void (*) (void)) end },
  };

  if (path == NULL || get_export_table == NULL)
    return 0;
  callbacks = get_export_table (NVTX_ETID_CALLBACKS);
  if (callbacks == NULL || !callbacks->GetModuleFunctionTable (NVTX_CB_MODULE_CORE, &table, &size))
    return 0;
  log_file = fopen (path, "w");
  for (unsigned int i = 0; i < sizeof slots / sizeof slots[0]; i++)
    if (slots[i].id < size && table[slots[i].id] != NULL)
      *table[slots[i].id] = slots[i].func;
  return log_file != NULL;
}
