/* ts-trace-i18n-private.h: translations of what the trace library writes
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The memory explanations are prose that the app, the renderers and
 * tensorscope-cli show as they are. Their text is looked up in the
 * package's domain, bound here once (TENSORSCOPE_LOCALEDIR for uninstalled
 * runs, as the app does), so that every program linking the library gets
 * it, and the renderers share the same binding.
 */

#pragma once

#include <glib/gi18n-lib.h>

G_BEGIN_DECLS

void _ts_trace_i18n_init (void);

G_END_DECLS
