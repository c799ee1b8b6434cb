/* ts-block-sizer-private.h: block sizes for a snapshot's trace entries
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PyTorch's trace entries carry the size that was asked for (alloc: the
 * request; free_requested / free_completed: the block's requested_size),
 * while memory_allocated() and the segments' blocks count the block size:
 * the request rounded by round_size, or the whole free block when what is
 * left would be too small to split off. The sizer follows the segments
 * (or mapped ranges) and live blocks forward and applies those rules, so
 * each alloc gets the block size the allocator gave it.
 */

#pragma once

#include "ts-types.h"

G_BEGIN_DECLS

#define TS_ROUNDUP_INTERVALS 16   /* roundup_power2_divisions: [1,2) MiB ... [32 GiB, inf) */

typedef struct _TsBlockSizer TsBlockSizer;

typedef struct
{
  gboolean expandable;                             /* expandable_segments:True */
  guint64  divisions[TS_ROUNDUP_INTERVALS];        /* roundup_power2_divisions, 0: none */
} TsBlockSizerConfig;

TsBlockSizer *ts_block_sizer_new        (const TsBlockSizerConfig *config);
void          ts_block_sizer_free       (TsBlockSizer             *self);
/* The block size of an alloc of `requested` bytes at addr on device. */
guint64       ts_block_sizer_alloc_size (TsBlockSizer             *self,
                                         guint                     device,
                                         guint64                   addr,
                                         guint64                   requested);
/* The size of the live block at addr, or round_size (requested) when no
 * live block starts there (a block from before the trace). */
guint64       ts_block_sizer_block_size (TsBlockSizer             *self,
                                         guint                     device,
                                         guint64                   addr,
                                         guint64                   requested);
/* Follows one action (TsAllocAction) as it is written: size is the block's
 * (or the segment's, or the pages') size. */
void          ts_block_sizer_apply      (TsBlockSizer             *self,
                                         guint                     device,
                                         guint                     action,
                                         guint64                   addr,
                                         guint64                   size,
                                         gboolean                  is_small);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsBlockSizer, ts_block_sizer_free)

G_END_DECLS
