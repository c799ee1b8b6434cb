/* ts-example-gallery.h: the sidebar listing the example workloads
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define TS_TYPE_EXAMPLE_GALLERY (ts_example_gallery_get_type ())

G_DECLARE_FINAL_TYPE (TsExampleGallery, ts_example_gallery, TS, EXAMPLE_GALLERY, GtkWidget)

GtkWidget  *ts_example_gallery_new          (void);
GListModel *ts_example_gallery_get_examples (TsExampleGallery *self);
void        ts_example_gallery_set_examples (TsExampleGallery *self,
                                             GListModel       *examples);
const char *ts_example_gallery_get_selected_id (TsExampleGallery *self);
void        ts_example_gallery_set_selected_id (TsExampleGallery *self,
                                                const char       *id);

G_END_DECLS
