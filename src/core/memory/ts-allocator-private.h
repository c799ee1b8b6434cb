/* ts-allocator-private.h: internals of the caching allocator, for tests
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-allocator.h"

G_BEGIN_DECLS

/* Checks the allocator's own structures: every pool is an ordered treap
 * that holds exactly the inactive blocks, segments are covered by their
 * blocks without gaps, no two free neighbours were left unmerged, the
 * pointer map holds exactly the allocated blocks, and the reserved total
 * is the sum of the segments. */
gboolean _ts_allocator_validate (TsAllocator  *self,
                                 GError      **error);

G_END_DECLS
