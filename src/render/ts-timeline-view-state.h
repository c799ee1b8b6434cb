/* ts-timeline-view-state.h: what the timeline shows, in one place
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The visible window, the selected time range, the selected item and the
 * folded groups of a timeline. The GTK widget changes them from input and
 * the renderer reads them when it draws, so both hold a reference to the
 * same object instead of keeping two copies in step. No GTK here: the
 * CLI's renderer has one too.
 *
 * Each change notifies its properties (the two ends of a window, or a
 * track and its item, in one round) and then emits ::changed, which is
 * what a view redraws on. Folding emits ::folded-changed first, for whoever
 * lays rows out. Values are stored as given: keeping the window inside a
 * document is the widget's business.
 */

#pragma once

#include <glib-object.h>

#include "ts-trace-document.h"

G_BEGIN_DECLS

#define TS_TYPE_TIMELINE_VIEW_STATE (ts_timeline_view_state_get_type ())

G_DECLARE_FINAL_TYPE (TsTimelineViewState, ts_timeline_view_state, TS, TIMELINE_VIEW_STATE, GObject)

TsTimelineViewState *ts_timeline_view_state_new (void);

/* The visible window, in trace time: properties "begin" and "end". */
void      ts_timeline_view_state_get_visible_range  (TsTimelineViewState *self,
                                                     TsTime              *begin,
                                                     TsTime              *end);
void      ts_timeline_view_state_set_visible_range  (TsTimelineViewState *self,
                                                     TsTime               begin,
                                                     TsTime               end);

/* The selected range, begin <= end ("range-begin", "range-end"); an empty
 * range is stored as 0, 0: none. */
void      ts_timeline_view_state_get_selected_range (TsTimelineViewState *self,
                                                     TsTime              *begin,
                                                     TsTime              *end);
void      ts_timeline_view_state_set_selected_range (TsTimelineViewState *self,
                                                     TsTime               begin,
                                                     TsTime               end);

/* The selected item, by document track and item index ("selected-track",
 * "selected-item", -1 when none); G_MAXUINT out when none. */
gboolean  ts_timeline_view_state_get_selected_item  (TsTimelineViewState *self,
                                                     guint               *track,
                                                     guint               *item);
void      ts_timeline_view_state_select_item        (TsTimelineViewState *self,
                                                     guint                track,
                                                     guint                item);
void      ts_timeline_view_state_unselect_item      (TsTimelineViewState *self);

/* Folded groups, by title, so that they stay folded in a document rebuilt
 * from more of the same run. */
gboolean  ts_timeline_view_state_get_group_folded   (TsTimelineViewState *self,
                                                     const char          *title);
void      ts_timeline_view_state_set_group_folded   (TsTimelineViewState *self,
                                                     const char          *title,
                                                     gboolean             folded);
void      ts_timeline_view_state_unfold_all         (TsTimelineViewState *self);

/* Whether devices that did no work get rows ("show-idle-devices", TRUE
 * by default); a change emits ::folded-changed, as rows move. */
gboolean  ts_timeline_view_state_get_show_idle_devices (TsTimelineViewState *self);
void      ts_timeline_view_state_set_show_idle_devices (TsTimelineViewState *self,
                                                        gboolean             show);

G_END_DECLS
