/* ts-callsite.h: the script line the calling thread is executing
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Python layer sets the current call site before it calls into the
 * core; the runtime stamps every API record it makes with it. Thread-local,
 * so each host thread has its own.
 */

#pragma once

#include "ts-types.h"

G_BEGIN_DECLS

/* NULL clears it (TS_SOURCE_LOC_NONE). */
void        ts_callsite_set (const TsSourceLoc *loc);
TsSourceLoc ts_callsite_get (void);

G_END_DECLS
