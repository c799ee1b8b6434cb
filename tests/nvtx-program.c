/* nvtx-program.c: a small program using NVTX, for test-nvtx-record
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Plain nvtx3 (header-only) and nothing from CUDA, like any instrumented
 * program. `nvtx-program N` exits with status N after its ranges.
 */

#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <nvtx3/nvToolsExt.h>

static void *
worker (void *data)
{
  pthread_setname_np (pthread_self (), "nvtx-worker");
  nvtxRangePushA ("worker");
  nvtxRangePop ();
  return NULL;
}

int
main (int   argc,
      char *argv[])
{
  nvtxEventAttributes_t attr;
  nvtxRangeId_t a, b;
  nvtxDomainHandle_t domain;
  nvtxStringHandle_t registered;
  pthread_t thread;

  nvtxRangePushA ("outer");
  nvtxRangePushA ("middle");
  memset (&attr, 0, sizeof attr);
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attr.message.ascii = "inner";
  nvtxRangePushEx (&attr);
  nvtxMarkA ("tick");
  nvtxRangePop ();
  nvtxRangePop ();
  a = nvtxRangeStartA ("a");
  b = nvtxRangeStartA ("b");
  nvtxRangeEnd (a);
  nvtxRangePop ();
  nvtxRangeEnd (b);

  pthread_create (&thread, NULL, worker, NULL);
  pthread_join (thread, NULL);

  domain = nvtxDomainCreateA ("tests");
  registered = nvtxDomainRegisterStringA (domain, "registered");
  attr.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attr.message.registered = registered;
  nvtxDomainRangePushEx (domain, &attr);
  nvtxDomainRangePop (domain);

  return argc > 1 ? atoi (argv[1]) : 0;
}
