/* ts-timeline-view-state.c: what the timeline shows, in one place
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ts-time-range-private.h"
#include "ts-timeline-view-state.h"

struct _TsTimelineViewState
{
  GObject     parent_instance;

  TsTime      begin;
  TsTime      end;
  TsTime      range_begin;
  TsTime      range_end;
  gboolean    has_selection;
  guint       selected_track;
  guint       selected_item;
  GHashTable *folded;             /* group titles */
  gboolean    show_idle;          /* device groups with no work */
};

G_DEFINE_FINAL_TYPE (TsTimelineViewState, ts_timeline_view_state, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_BEGIN,                     /* each end follows its beginning */
  PROP_END,
  PROP_RANGE_BEGIN,
  PROP_RANGE_END,
  PROP_SELECTED_TRACK,
  PROP_SELECTED_ITEM,
  PROP_SHOW_IDLE_DEVICES,
  N_PROPS
};

enum {
  CHANGED,
  FOLDED_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* Two properties that change together: one notification round, then one
 * ::changed, so a view redraws once with both values set. */
static void
notify_pair (TsTimelineViewState *self,
             guint                first,
             guint                second)
{
  g_object_freeze_notify (G_OBJECT (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[first]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[second]);
  g_object_thaw_notify (G_OBJECT (self));
  g_signal_emit (self, signals[CHANGED], 0);
}

/* A window and a range are both two times, written alike. */
static void
set_times (TsTimelineViewState *self,
           TsTime              *first,
           TsTime              *second,
           TsTime               first_value,
           TsTime               second_value,
           guint                first_prop)
{
  if (*first == first_value && *second == second_value)
    return;
  *first = first_value;
  *second = second_value;
  notify_pair (self, first_prop, first_prop + 1);
}

void
ts_timeline_view_state_get_visible_range (TsTimelineViewState *self,
                                          TsTime              *begin,
                                          TsTime              *end)
{
  g_return_if_fail (TS_IS_TIMELINE_VIEW_STATE (self));
  _ts_time_range_get (self->begin, self->end, begin, end);
}

void
ts_timeline_view_state_set_visible_range (TsTimelineViewState *self,
                                          TsTime               begin,
                                          TsTime               end)
{
  g_return_if_fail (TS_IS_TIMELINE_VIEW_STATE (self));
  set_times (self, &self->begin, &self->end, begin, end, PROP_BEGIN);
}

void
ts_timeline_view_state_get_selected_range (TsTimelineViewState *self,
                                           TsTime              *begin,
                                           TsTime              *end)
{
  g_return_if_fail (TS_IS_TIMELINE_VIEW_STATE (self));
  _ts_time_range_get (self->range_begin, self->range_end, begin, end);
}

void
ts_timeline_view_state_set_selected_range (TsTimelineViewState *self,
                                           TsTime               begin,
                                           TsTime               end)
{
  TsTime b = MIN (begin, end);
  TsTime e = MAX (begin, end);

  g_return_if_fail (TS_IS_TIMELINE_VIEW_STATE (self));

  if (b == e)
    b = e = 0;
  set_times (self, &self->range_begin, &self->range_end, b, e, PROP_RANGE_BEGIN);
}

gboolean
ts_timeline_view_state_get_selected_item (TsTimelineViewState *self,
                                          guint               *track,
                                          guint               *item)
{
  g_return_val_if_fail (TS_IS_TIMELINE_VIEW_STATE (self), FALSE);

  if (track != NULL)
    *track = self->has_selection ? self->selected_track : G_MAXUINT;
  if (item != NULL)
    *item = self->has_selection ? self->selected_item : G_MAXUINT;
  return self->has_selection;
}

void
ts_timeline_view_state_select_item (TsTimelineViewState *self,
                                    guint                track,
                                    guint                item)
{
  g_return_if_fail (TS_IS_TIMELINE_VIEW_STATE (self));
  g_return_if_fail (track <= G_MAXINT && item <= G_MAXINT);

  if (self->has_selection && self->selected_track == track && self->selected_item == item)
    return;
  self->has_selection = TRUE;
  self->selected_track = track;
  self->selected_item = item;
  notify_pair (self, PROP_SELECTED_TRACK, PROP_SELECTED_ITEM);
}

void
ts_timeline_view_state_unselect_item (TsTimelineViewState *self)
{
  g_return_if_fail (TS_IS_TIMELINE_VIEW_STATE (self));

  if (!self->has_selection)
    return;
  self->has_selection = FALSE;
  notify_pair (self, PROP_SELECTED_TRACK, PROP_SELECTED_ITEM);
}

gboolean
ts_timeline_view_state_get_group_folded (TsTimelineViewState *self,
                                         const char          *title)
{
  g_return_val_if_fail (TS_IS_TIMELINE_VIEW_STATE (self), FALSE);

  return title != NULL && g_hash_table_contains (self->folded, title);
}

static void
folded_changed (TsTimelineViewState *self)
{
  g_signal_emit (self, signals[FOLDED_CHANGED], 0);
  g_signal_emit (self, signals[CHANGED], 0);
}

void
ts_timeline_view_state_set_group_folded (TsTimelineViewState *self,
                                         const char          *title,
                                         gboolean             folded)
{
  gboolean changed;

  g_return_if_fail (TS_IS_TIMELINE_VIEW_STATE (self));
  g_return_if_fail (title != NULL);

  if (folded)
    changed = g_hash_table_add (self->folded, g_strdup (title));
  else
    changed = g_hash_table_remove (self->folded, title);
  if (changed)
    folded_changed (self);
}

void
ts_timeline_view_state_unfold_all (TsTimelineViewState *self)
{
  g_return_if_fail (TS_IS_TIMELINE_VIEW_STATE (self));

  if (g_hash_table_size (self->folded) == 0)
    return;
  g_hash_table_remove_all (self->folded);
  folded_changed (self);
}

gboolean
ts_timeline_view_state_get_show_idle_devices (TsTimelineViewState *self)
{
  g_return_val_if_fail (TS_IS_TIMELINE_VIEW_STATE (self), TRUE);

  return self->show_idle;
}

/* Rows appear or go like folding a group: ::folded-changed lays them out. */
void
ts_timeline_view_state_set_show_idle_devices (TsTimelineViewState *self,
                                              gboolean             show)
{
  g_return_if_fail (TS_IS_TIMELINE_VIEW_STATE (self));

  show = !!show;
  if (self->show_idle == show)
    return;
  self->show_idle = show;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_IDLE_DEVICES]);
  folded_changed (self);
}

/* --- GObject ------------------------------------------------------------- */

static void
ts_timeline_view_state_finalize (GObject *object)
{
  TsTimelineViewState *self = TS_TIMELINE_VIEW_STATE (object);

  g_clear_pointer (&self->folded, g_hash_table_unref);

  G_OBJECT_CLASS (ts_timeline_view_state_parent_class)->finalize (object);
}

static void
ts_timeline_view_state_get_property (GObject    *object,
                                     guint       prop_id,
                                     GValue     *value,
                                     GParamSpec *pspec)
{
  TsTimelineViewState *self = TS_TIMELINE_VIEW_STATE (object);

  switch (prop_id)
    {
    case PROP_BEGIN:
      g_value_set_int64 (value, self->begin);
      break;
    case PROP_END:
      g_value_set_int64 (value, self->end);
      break;
    case PROP_RANGE_BEGIN:
      g_value_set_int64 (value, self->range_begin);
      break;
    case PROP_RANGE_END:
      g_value_set_int64 (value, self->range_end);
      break;
    case PROP_SELECTED_TRACK:
      g_value_set_int (value, self->has_selection ? (int) self->selected_track : -1);
      break;
    case PROP_SELECTED_ITEM:
      g_value_set_int (value, self->has_selection ? (int) self->selected_item : -1);
      break;
    case PROP_SHOW_IDLE_DEVICES:
      g_value_set_boolean (value, self->show_idle);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_timeline_view_state_set_property (GObject      *object,
                                     guint         prop_id,
                                     const GValue *value,
                                     GParamSpec   *pspec)
{
  TsTimelineViewState *self = TS_TIMELINE_VIEW_STATE (object);

  switch (prop_id)
    {
    case PROP_BEGIN:
      ts_timeline_view_state_set_visible_range (self, g_value_get_int64 (value), self->end);
      break;
    case PROP_END:
      ts_timeline_view_state_set_visible_range (self, self->begin, g_value_get_int64 (value));
      break;
    case PROP_RANGE_BEGIN:
      ts_timeline_view_state_set_selected_range (self, g_value_get_int64 (value), self->range_end);
      break;
    case PROP_RANGE_END:
      ts_timeline_view_state_set_selected_range (self, self->range_begin, g_value_get_int64 (value));
      break;
    case PROP_SHOW_IDLE_DEVICES:
      ts_timeline_view_state_set_show_idle_devices (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static GParamSpec *
time_property (const char *name)
{
  return g_param_spec_int64 (name, NULL, NULL, G_MININT64, G_MAXINT64, 0,
                             G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
}

static void
ts_timeline_view_state_class_init (TsTimelineViewStateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ts_timeline_view_state_finalize;
  object_class->get_property = ts_timeline_view_state_get_property;
  object_class->set_property = ts_timeline_view_state_set_property;

  properties[PROP_BEGIN] = time_property ("begin");
  properties[PROP_END] = time_property ("end");
  properties[PROP_RANGE_BEGIN] = time_property ("range-begin");
  properties[PROP_RANGE_END] = time_property ("range-end");
  properties[PROP_SELECTED_TRACK] =
    g_param_spec_int ("selected-track", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SELECTED_ITEM] =
    g_param_spec_int ("selected-item", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Shown unless a view says otherwise: the CLI draws every device. */
  properties[PROP_SHOW_IDLE_DEVICES] =
    g_param_spec_boolean ("show-idle-devices", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * TsTimelineViewState::changed:
   *
   * Something a view draws changed: after the notifications of the change.
   */
  signals[CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /**
   * TsTimelineViewState::folded-changed:
   *
   * A group was folded or unfolded: rows move.
   */
  signals[FOLDED_CHANGED] =
    g_signal_new ("folded-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
ts_timeline_view_state_init (TsTimelineViewState *self)
{
  self->folded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->show_idle = TRUE;
}

TsTimelineViewState *
ts_timeline_view_state_new (void)
{
  return g_object_new (TS_TYPE_TIMELINE_VIEW_STATE, NULL);
}
