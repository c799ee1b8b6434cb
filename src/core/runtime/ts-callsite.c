/* ts-callsite.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ts-callsite.h"

/* A plain __thread variable: three integers, read on every API call, so a
 * GPrivate lookup would cost more than the value is worth. */
static __thread TsSourceLoc current_callsite;

void
ts_callsite_set (const TsSourceLoc *loc)
{
  if (loc != NULL)
    current_callsite = *loc;
  else
    current_callsite = TS_SOURCE_LOC_NONE;
}

TsSourceLoc
ts_callsite_get (void)
{
  return current_callsite;
}
