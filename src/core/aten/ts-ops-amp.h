/* ts-ops-amp.h: GradScaler's ops
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-tensor.h"

G_BEGIN_DECLS

/* torch._amp_foreach_non_finite_check_and_unscale_: each of @grads times
 * @inv_scale in place, and @found_inf set to 1 where one holds an inf or
 * a NaN; one launch per gradient on the current stream. */
gboolean ts_ops_amp_unscale_      (TsTensor *const *grads,
                                   guint            n_grads,
                                   TsTensor        *found_inf,
                                   TsTensor        *inv_scale,
                                   GError         **error);
/* torch._amp_update_scale_: @scale and @growth_tracker from @found_inf,
 * in one launch. */
gboolean ts_ops_amp_update_scale_ (TsTensor        *scale,
                                   TsTensor        *growth_tracker,
                                   TsTensor        *found_inf,
                                   double           growth_factor,
                                   double           backoff_factor,
                                   gint64           growth_interval,
                                   GError         **error);

G_END_DECLS
