/* ts-segment-map.c: the allocator's segments at one instant, as a widget
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>

#include "ts-segment-map.h"

struct _TsSegmentMap
{
  GtkWidget             parent_instance;
  TsMemoryReplay       *replay;
  TsSegmentMapRenderer *renderer;
  gsize                 instant;
  gint64                last_draw_time;
  guint                 n_draws;
};

enum {
  PROP_0,
  PROP_INSTANT,
  N_PROPS
};

enum {
  BLOCK_ACTIVATED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (TsSegmentMap, ts_segment_map, GTK_TYPE_WIDGET)

static void
ts_segment_map_snapshot (GtkWidget   *widget,
                         GtkSnapshot *snapshot)
{
  TsSegmentMap *self = TS_SEGMENT_MAP (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  gint64 t0 = g_get_monotonic_time ();
  cairo_t *cr;

  if (self->renderer == NULL || width <= 0 || height <= 0)
    return;

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  ts_segment_map_renderer_set_dark (self->renderer, adw_style_manager_get_dark (adw_style_manager_get_default ()));
  ts_segment_map_renderer_draw (self->renderer, cr, 0, 0, width, height);
  cairo_destroy (cr);
  self->last_draw_time = g_get_monotonic_time () - t0;
  self->n_draws++;
}

static void
ts_segment_map_measure (GtkWidget      *widget,
                        GtkOrientation  orientation,
                        int             for_size,
                        int            *minimum,
                        int            *natural,
                        int            *minimum_baseline,
                        int            *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 300 : 140;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 700 : 280;
}

static gboolean
query_tooltip_cb (TsSegmentMap *self,
                  int           x,
                  int           y,
                  gboolean      keyboard,
                  GtkTooltip   *tooltip)
{
  g_autofree char *text = ts_segment_map_describe_at (self, x, y);

  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
pressed_cb (TsSegmentMap    *self,
            int              n_press,
            double           x,
            double           y,
            GtkGestureClick *click)
{
  if (n_press == 1)
    ts_segment_map_click (self, x, y);
}

static void
motion_cb (TsSegmentMap             *self,
           double                    x,
           double                    y,
           GtkEventControllerMotion *motion)
{
  TsSegmentMapHit hit;
  gboolean clickable = self->renderer != NULL &&
                       ts_segment_map_renderer_hit_test (self->renderer, x, y, &hit) &&
                       hit.allocation != TS_MEMORY_REPLAY_NONE;

  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), clickable ? "pointer" : NULL);
}

static void
ts_segment_map_dispose (GObject *object)
{
  TsSegmentMap *self = (TsSegmentMap *) object;

  g_clear_object (&self->renderer);
  g_clear_object (&self->replay);
  G_OBJECT_CLASS (ts_segment_map_parent_class)->dispose (object);
}

static void
ts_segment_map_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  TsSegmentMap *self = TS_SEGMENT_MAP (object);

  switch (prop_id)
    {
    case PROP_INSTANT:
      g_value_set_uint64 (value, self->instant);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_segment_map_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  TsSegmentMap *self = TS_SEGMENT_MAP (object);

  switch (prop_id)
    {
    case PROP_INSTANT:
      ts_segment_map_set_instant (self, g_value_get_uint64 (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_segment_map_class_init (TsSegmentMapClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ts_segment_map_dispose;
  object_class->get_property = ts_segment_map_get_property;
  object_class->set_property = ts_segment_map_set_property;
  widget_class->snapshot = ts_segment_map_snapshot;
  widget_class->measure = ts_segment_map_measure;

  properties[PROP_INSTANT] =
    g_param_spec_uint64 ("instant", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * TsSegmentMap::block-activated:
   * @hit: (type gpointer): the TsSegmentMapHit of the clicked block
   *
   * A block with an allocation was clicked.
   */
  signals[BLOCK_ACTIVATED] =
    g_signal_new ("block-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);

  gtk_widget_class_set_css_name (widget_class, "segmentmap");
}

static void
ts_segment_map_init (TsSegmentMap *self)
{
  GtkGesture *click = gtk_gesture_click_new ();
  GtkEventController *motion = gtk_event_controller_motion_new ();

  g_signal_connect_swapped (click, "pressed", G_CALLBACK (pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
  g_signal_connect_swapped (motion, "motion", G_CALLBACK (motion_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (query_tooltip_cb), NULL);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (gtk_widget_queue_draw), self, G_CONNECT_SWAPPED);
}

GtkWidget *
ts_segment_map_new (void)
{
  return g_object_new (TS_TYPE_SEGMENT_MAP, NULL);
}

void
ts_segment_map_set_replay (TsSegmentMap   *self,
                           TsMemoryReplay *replay)
{
  g_return_if_fail (TS_IS_SEGMENT_MAP (self));
  g_return_if_fail (replay == NULL || TS_IS_MEMORY_REPLAY (replay));

  if (!g_set_object (&self->replay, replay))
    return;
  g_clear_object (&self->renderer);
  if (replay != NULL)
    {
      self->renderer = ts_segment_map_renderer_new (replay);
      self->instant = MIN (self->instant, ts_memory_replay_get_n_actions (replay));
      ts_segment_map_renderer_set_index (self->renderer, self->instant);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

TsSegmentMapRenderer *
ts_segment_map_get_renderer (TsSegmentMap *self)
{
  g_return_val_if_fail (TS_IS_SEGMENT_MAP (self), NULL);
  return self->renderer;
}

gsize
ts_segment_map_get_instant (TsSegmentMap *self)
{
  g_return_val_if_fail (TS_IS_SEGMENT_MAP (self), 0);
  return self->instant;
}

void
ts_segment_map_set_instant (TsSegmentMap *self,
                            gsize         instant)
{
  g_return_if_fail (TS_IS_SEGMENT_MAP (self));

  if (self->replay != NULL)
    instant = MIN (instant, ts_memory_replay_get_n_actions (self->replay));
  if (instant == self->instant)
    return;
  self->instant = instant;
  if (self->renderer != NULL)
    ts_segment_map_renderer_set_index (self->renderer, instant);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INSTANT]);
}

const TsMemoryState *
ts_segment_map_get_state (TsSegmentMap *self)
{
  g_return_val_if_fail (TS_IS_SEGMENT_MAP (self), NULL);

  if (self->renderer == NULL)
    return NULL;
  return ts_segment_map_renderer_get_state (self->renderer);
}

char *
ts_segment_map_describe_at (TsSegmentMap *self,
                            double        x,
                            double        y)
{
  TsSegmentMapHit hit;

  g_return_val_if_fail (TS_IS_SEGMENT_MAP (self), NULL);

  if (self->renderer == NULL || !ts_segment_map_renderer_hit_test (self->renderer, x, y, &hit))
    return NULL;
  return ts_segment_map_hit_describe (self->renderer, &hit);
}

gboolean
ts_segment_map_click (TsSegmentMap *self,
                      double        x,
                      double        y)
{
  TsSegmentMapHit hit;

  g_return_val_if_fail (TS_IS_SEGMENT_MAP (self), FALSE);

  if (self->renderer == NULL ||
      !ts_segment_map_renderer_hit_test (self->renderer, x, y, &hit) ||
      hit.kind != TS_SEGMENT_MAP_HIT_BLOCK ||
      hit.allocation == TS_MEMORY_REPLAY_NONE)
    return FALSE;
  g_signal_emit (self, signals[BLOCK_ACTIVATED], 0, &hit);
  return TRUE;
}

gint64
ts_segment_map_get_last_draw_time (TsSegmentMap *self)
{
  g_return_val_if_fail (TS_IS_SEGMENT_MAP (self), 0);
  return self->last_draw_time;
}

guint
ts_segment_map_get_n_draws (TsSegmentMap *self)
{
  g_return_val_if_fail (TS_IS_SEGMENT_MAP (self), 0);
  return self->n_draws;
}
