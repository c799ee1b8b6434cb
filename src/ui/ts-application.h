/* ts-application.h: the application object
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define TS_APPLICATION_ID "io.github.tensorscope.Tensorscope"
#define TS_RESOURCE_PATH "/io/github/tensorscope/Tensorscope"

#define TS_TYPE_APPLICATION (ts_application_get_type ())

G_DECLARE_FINAL_TYPE (TsApplication, ts_application, TS, APPLICATION, AdwApplication)

TsApplication *ts_application_new          (void);
GSettings     *ts_application_get_settings (TsApplication *self);
gboolean       ts_application_check_schema (GError       **error);
gboolean       ts_application_ensure_settings_backend (void);

G_END_DECLS
