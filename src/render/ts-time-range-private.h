/* ts-time-range-private.h: reading a pair of times, for src/render and src/ui
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "ts-types.h"

G_BEGIN_DECLS

/* The out-parameters of a get_*_range() accessor, either may be NULL. */
static inline void
_ts_time_range_get (TsTime  begin,
                    TsTime  end,
                    TsTime *begin_out,
                    TsTime *end_out)
{
  if (begin_out != NULL)
    *begin_out = begin;
  if (end_out != NULL)
    *end_out = end;
}

G_END_DECLS
