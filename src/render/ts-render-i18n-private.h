/* ts-render-i18n-private.h: translations of what the renderers draw
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The renderers draw for the app and for tensorscope-cli; the text they
 * draw is looked up in the package's domain, which the trace library binds
 * (ts-trace-i18n-private.h), so that a program that only links the
 * renderers gets it too.
 */

#pragma once

#include <glib/gi18n-lib.h>

#include "ts-trace-i18n-private.h"

G_BEGIN_DECLS

void _ts_render_i18n_init (void);

G_END_DECLS
