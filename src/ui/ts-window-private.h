/* ts-window-private.h: what the ts-window-*.c files share
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-example-gallery.h"
#include "ts-gpu-probe.h"
#include "ts-run-controller.h"
#include "ts-trace-document.h"
#include "ts-trace-view.h"
#include "ts-window.h"

G_BEGIN_DECLS

typedef struct _TsWindowMemory TsWindowMemory;

struct _TsWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template children */
  AdwHeaderBar         *header_bar;
  GtkToggleButton      *gallery_button;
  GtkToggleButton      *code_button;
  GtkStack             *run_stack;
  GtkButton            *run_button;
  GtkButton            *stop_button;
  AdwWindowTitle       *window_title;
  GtkMenuButton        *menu_button;
  GtkToggleButton      *sanitizer_button;
  GtkToggleButton      *sync_button;
  GtkDropDown          *gpu_model_dropdown;
  GtkSpinButton        *gpu_count_spin;
  AdwToastOverlay      *toast_overlay;
  AdwFlap              *flap;
  TsExampleGallery     *gallery;
  GtkPaned             *main_paned;
  GtkPaned             *code_paned;
  GtkRevealer          *explanation_revealer;
  GtkLabel             *explanation_title;
  GtkLabel             *explanation_label;
  TsEditor             *editor;
  TsConsole            *console;
  GtkStack             *timeline_stack;
  AdwStatusPage        *timeline_placeholder;
  AdwBin               *timeline_slot;
  GtkSpinner           *status_spinner;
  GtkLabel             *status_label;
  GtkLabel             *trace_label;
  GMenu                *recent_menu;

  GSettings            *settings;
  /* The file shown, when it was opened rather than run: reopened when
   * how PyTorch's files are imported changes (align-rank-clocks). */
  GFile                *opened_trace;
  /* The run lifecycle: runner, trace reading, live rebuild, run folder. */
  TsRunController      *run;

  /* The GPU choice (ts-window-gpu.c). */
  TsGpuProbe           *gpu_probe;
  gboolean              gpu_count_bound;
  gboolean              syncing_gpu_choice;

  GtkRecentManager     *recent_manager;

  /* The script in the editor: a file, or an example (script_file NULL). */
  GFile                *script_file;
  char                 *script_name;
  char                 *example_id;

  char                 *status;

  /* The trace viewer (ts-window-trace.c), showing the run's document. */
  TsTraceView          *trace_view;

  /* The Memory view (ts-window-memory.c). */
  TsWindowMemory       *memory;
};

/* What the callback of an asynchronous file operation needs: the window,
 * kept alive until it is done, and the file. */
typedef struct
{
  TsWindow *self;
  GFile    *file;
  gboolean  run;              /* opening a script: run it once loaded */
} TsWindowFileOp;

TsWindowFileOp *_ts_window_file_op_new  (TsWindow       *self,
                                         GFile          *file);
void            _ts_window_file_op_free (TsWindowFileOp *op);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsWindowFileOp, _ts_window_file_op_free)

/* GPU models as the CLI names them, in the order of the drop-down. */

void _ts_window_actions_init      (TsWindow   *self);
void _ts_window_update_actions    (TsWindow   *self);
void _ts_window_update_recent     (TsWindow   *self);
void _ts_window_add_recent        (TsWindow   *self,
                                   GFile      *file);
void _ts_window_toast             (TsWindow   *self,
                                   const char *message);
/* A modal save dialog (ts-window-actions.c): one filter of the NULL-ended
 * `patterns`, the response to `response_cb` with the window as data. */
GtkFileChooser *_ts_window_save_chooser (TsWindow   *self,
                                         const char *title,
                                         const char *accept,
                                         const char *suggested_name,
                                         const char *filter_name,
                                         const char *patterns[],
                                         GCallback   response_cb);
/* A file name for saving or exporting: the script's stem and `suffix`. */
char *_ts_window_suggest_name     (TsWindow   *self,
                                   const char *suffix);
/* Says a save went well (and remembers the file) or why not. */
gboolean _ts_window_saved         (TsWindow     *self,
                                   GFile        *file,
                                   const GError *error);

/* Gives the timeline most of the window: the gallery and, unless
 * `keep_code`, the script pane fold away (the header buttons bring them
 * back). After a run and when a trace is opened. */
void _ts_window_focus_timeline    (TsWindow   *self,
                                   gboolean    keep_code);

/* Hooks for the trace viewer (ts-window-trace.c). */
void _ts_window_trace_init        (TsWindow   *self);
void _ts_window_trace_begin       (TsWindow   *self);
void _ts_window_trace_end         (TsWindow   *self);
void _ts_window_save_trace        (TsWindow   *self,
                                   GFile      *file);

/* Exporting the view and the trace (ts-window-export.c). */
void _ts_window_export_init       (TsWindow    *self);

/* Hooks for the GPU choice (ts-window-gpu.c). */
void _ts_window_gpu_init          (TsWindow    *self);
void _ts_window_gpu_dispose       (TsWindow    *self);
void _ts_window_gpu_prepare_run   (TsWindow    *self);
gboolean _ts_window_gpu_is_hardware (TsWindow  *self);
guint _ts_window_gpu_get_hardware (TsWindow    *self,
                                   const char **name);

/* Hooks for the memory view (ts-window-memory.c). */
void _ts_window_memory_init       (TsWindow        *self);
void _ts_window_memory_dispose    (TsWindow        *self);
void _ts_window_memory_set_document (TsWindow      *self,
                                   TsTraceDocument *document);
void _ts_window_memory_attach_timeline (TsWindow  *self,
                                        TsTimeline *timeline);

G_END_DECLS
