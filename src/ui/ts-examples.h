/* ts-examples.h: the example workloads shipped in the GResource
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define TS_TYPE_EXAMPLE (ts_example_get_type ())

G_DECLARE_FINAL_TYPE (TsExample, ts_example, TS, EXAMPLE, GObject)

/* The example opened on first start. */
#define TS_DEFAULT_EXAMPLE "overlap-copy-compute"

const char *ts_example_get_id          (TsExample    *self);
const char *ts_example_get_title       (TsExample    *self);
const char *ts_example_get_subtitle    (TsExample    *self);
const char *ts_example_get_explanation (TsExample    *self);
const char *ts_example_get_file_name   (TsExample    *self);
guint       ts_example_get_min_gpus    (TsExample    *self);
gboolean    ts_example_get_no_data     (TsExample    *self);
char       *ts_example_load_code       (TsExample    *self,
                                        GError      **error);

GListModel *ts_examples_load_index     (GBytes       *index,
                                        GError      **error);
GListModel *ts_examples_get_default    (void);
TsExample  *ts_examples_lookup         (GListModel   *examples,
                                        const char   *id);

G_END_DECLS
