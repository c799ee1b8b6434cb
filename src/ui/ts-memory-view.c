/* ts-memory-view.c: device memory over time, as a widget
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "ts-memory-fragmentation.h"
#include "ts-memory-view.h"
#include "ts-time-ruler.h"
#include "ts-util-private.h"

struct _TsMemoryView
{
  GtkWidget         parent_instance;

  TsTraceDocument  *document;
  TsMemoryReplay   *replay;
  TsMemoryRenderer *renderer;

  TsTime            begin, end;           /* visible */
  TsTime            sel_begin, sel_end;
  gsize             instant;
  guint             detail;

  /* The last frame, kept while nothing it depends on changes: drawing the
   * bands walks every allocation of the trace. */
  GskRenderNode    *rendered;
  int               rendered_width;
  int               rendered_height;

  double            drag_x, drag_y;
  double            pointer_x;            /* -1 when outside */
  GtkWidget        *popover;
  GtkWidget        *popover_label;
};

enum {
  PROP_0,
  PROP_VISIBLE_BEGIN,
  PROP_VISIBLE_END,
  PROP_SELECTION_BEGIN,
  PROP_SELECTION_END,
  PROP_INSTANT,
  PROP_DETAIL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (TsMemoryView, ts_memory_view, GTK_TYPE_WIDGET)

static void
invalidate (TsMemoryView *self)
{
  g_clear_pointer (&self->rendered, gsk_render_node_unref);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
get_view (TsMemoryView   *self,
          TsTimelineView *view)
{
  view->begin = self->begin;
  view->end = MAX (self->end, self->begin + 1);
  view->width = gtk_widget_get_width (GTK_WIDGET (self));
  view->height = gtk_widget_get_height (GTK_WIDGET (self));
  view->scroll_y = 0;
}

/* Stores a range, redraws and notifies the ends that moved; nothing when
 * neither did. */
static gboolean
by_events (TsMemoryView *self)
{
  return self->replay != NULL && ts_memory_replay_get_by_events (self->replay);
}

static void
store_range (TsMemoryView *self,
             TsTime       *begin_field,
             TsTime       *end_field,
             TsTime        begin,
             TsTime        end,
             guint         begin_prop,
             guint         end_prop)
{
  gboolean b = begin != *begin_field;
  gboolean e = end != *end_field;

  if (!b && !e)
    return;
  *begin_field = begin;
  *end_field = end;
  invalidate (self);
  /* On the events axis the ranges are action counts: the timeline, bound
   * to these properties, must not take them for times. */
  if (by_events (self))
    return;
  if (b)
    g_object_notify_by_pspec (G_OBJECT (self), properties[begin_prop]);
  if (e)
    g_object_notify_by_pspec (G_OBJECT (self), properties[end_prop]);
}

/* The frame without the instant line, rasterized once into a texture:
 * a cairo render node would be replayed (every band's path) on each
 * frame by the cairo renderer, a texture is only copied. */
static GskRenderNode *
render_frame (TsMemoryView *self,
              int           width,
              int           height)
{
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width * scale, height * scale);
  cairo_t *cr = cairo_create (surface);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  TsTimelineView view;

  cairo_scale (cr, scale, scale);
  get_view (self, &view);
  ts_memory_renderer_set_dark (self->renderer, adw_style_manager_get_dark (adw_style_manager_get_default ()));
  ts_memory_renderer_draw (self->renderer, cr, &view);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  bytes = g_bytes_new_with_free_func (cairo_image_surface_get_data (surface),
                                      (gsize) cairo_image_surface_get_stride (surface) * height * scale,
                                      (GDestroyNotify) cairo_surface_destroy, surface);
  texture = gdk_memory_texture_new (width * scale, height * scale, GDK_MEMORY_DEFAULT, bytes,
                                    cairo_image_surface_get_stride (surface));
  self->rendered_width = width;
  self->rendered_height = height;
  return gsk_texture_node_new (texture, &GRAPHENE_RECT_INIT (0, 0, width, height));
}

static void
ts_memory_view_snapshot (GtkWidget   *widget,
                         GtkSnapshot *snapshot)
{
  TsMemoryView *self = TS_MEMORY_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);

  if (self->renderer == NULL || width <= 0 || height <= 0)
    return;

  /* A relayout (a label elsewhere changed) keeps the frame when the size
   * stays the same. */
  if (width != self->rendered_width || height != self->rendered_height)
    g_clear_pointer (&self->rendered, gsk_render_node_unref);
  if (self->rendered == NULL)
    self->rendered = render_frame (self, width, height);
  if (self->rendered != NULL)
    gtk_snapshot_append_node (snapshot, self->rendered);

  /* The instant moves on every slider step: only its line is redrawn. */
  if (self->replay != NULL)
    {
      cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));

      ts_memory_renderer_draw_instant (self->renderer, cr, self->instant);
      cairo_destroy (cr);
    }
}

static void
ts_memory_view_size_allocate (GtkWidget *widget,
                              int        width,
                              int        height,
                              int        baseline)
{
  TsMemoryView *self = TS_MEMORY_VIEW (widget);

  if (self->popover != NULL)
    gtk_popover_present (GTK_POPOVER (self->popover));
}

static void
ts_memory_view_measure (GtkWidget      *widget,
                        GtkOrientation  orientation,
                        int             for_size,
                        int            *minimum,
                        int            *natural,
                        int            *minimum_baseline,
                        int            *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 300 : 160;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 800 : 300;
}

/* An OOM's message in a popover at the mark. */
static void
show_oom (TsMemoryView *self,
          guint         oom,
          double        x,
          double        y)
{
  g_autofree char *message = ts_memory_replay_format_oom (self->replay, oom);

  if (self->popover == NULL)
    {
      self->popover = gtk_popover_new ();
      self->popover_label = gtk_label_new (NULL);
      gtk_label_set_wrap (GTK_LABEL (self->popover_label), TRUE);
      gtk_label_set_max_width_chars (GTK_LABEL (self->popover_label), 70);
      gtk_label_set_selectable (GTK_LABEL (self->popover_label), TRUE);
      gtk_popover_set_child (GTK_POPOVER (self->popover), self->popover_label);
      gtk_widget_set_parent (self->popover, GTK_WIDGET (self));
    }
  gtk_label_set_text (GTK_LABEL (self->popover_label), message);
  gtk_popover_set_pointing_to (GTK_POPOVER (self->popover), &(GdkRectangle) { (int) x - 2, (int) y - 2, 4, 4 });
  gtk_popover_popup (GTK_POPOVER (self->popover));
}

gboolean
ts_memory_view_click (TsMemoryView *self,
                      double        x,
                      double        y)
{
  guint oom;
  TsTimelineView view;

  g_return_val_if_fail (TS_IS_MEMORY_VIEW (self), FALSE);

  if (self->replay == NULL)
    return FALSE;
  get_view (self, &view);
  if (x < ts_memory_renderer_get_plot_left (self->renderer) || x >= view.width - 10)
    return FALSE;

  /* An OOM mark: the instant just after the failed request (the map
   * shows what the allocator had to work with), and its message. */
  if (ts_memory_renderer_hit_oom (self->renderer, x, y, &oom))
    {
      const TsMemoryOom *o = ts_memory_replay_get_oom (self->replay, oom);

      ts_memory_view_set_instant (self, o->action + 1);
      if (gtk_widget_get_root (GTK_WIDGET (self)) != NULL)
        show_oom (self, oom, x, y);
      return TRUE;
    }
  ts_memory_view_set_instant (self, ts_memory_replay_index_at_time (self->replay, ts_memory_view_x_to_time (self, x)));
  return TRUE;
}

static void
drag_begin_cb (TsMemoryView   *self,
               double          x,
               double          y,
               GtkGestureDrag *gesture)
{
  self->drag_x = x;
  self->drag_y = y;
}

static void
drag_update_cb (TsMemoryView   *self,
                double          dx,
                double          dy,
                GtkGestureDrag *gesture)
{
  if (fabs (dx) < 3)
    return;
  ts_memory_view_set_selected_range (self, ts_memory_view_x_to_time (self, self->drag_x),
                                     ts_memory_view_x_to_time (self, self->drag_x + dx));
}

static void
drag_end_cb (TsMemoryView   *self,
             double          dx,
             double          dy,
             GtkGestureDrag *gesture)
{
  if (fabs (dx) < 3 && fabs (dy) < 3)
    ts_memory_view_click (self, self->drag_x, self->drag_y);
}

static gboolean
scroll_cb (TsMemoryView             *self,
           double                    dx,
           double                    dy,
           GtkEventControllerScroll *controller)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));
  TsTime span = MAX (1, self->end - self->begin);
  double px;

  if (self->replay == NULL)
    return FALSE;

  if (state & GDK_CONTROL_MASK)
    {
      /* Zoom around the pointer: the time under it stays put. */
      double factor = dy > 0 ? 1.25 : 0.8;
      double x = self->pointer_x >= 0 ? self->pointer_x : gtk_widget_get_width (GTK_WIDGET (self)) / 2.0;
      TsTime at, new_span;

      at = ts_memory_view_x_to_time (self, x);
      new_span = MAX (100, (TsTime) (span * factor));
      ts_memory_view_set_visible_range (self,
                                        at - (TsTime) ((double) (at - self->begin) * new_span / span),
                                        at - (TsTime) ((double) (at - self->begin) * new_span / span) + new_span);
      return TRUE;
    }
  px = (dx != 0 ? dx : dy) * 40;
  {
    double plot_w = MAX (1, gtk_widget_get_width (GTK_WIDGET (self)) - 10 - ts_memory_renderer_get_plot_left (self->renderer));
    TsTime shift = (TsTime) (px / plot_w * (double) span);

    ts_memory_view_set_visible_range (self, self->begin + shift, self->end + shift);
  }
  return TRUE;
}

static void
motion_cb (TsMemoryView             *self,
           double                    x,
           double                    y,
           GtkEventControllerMotion *motion)
{
  self->pointer_x = x;
}

static void
leave_cb (TsMemoryView             *self,
          GtkEventControllerMotion *motion)
{
  self->pointer_x = -1;
}

static gboolean
query_tooltip_cb (TsMemoryView *self,
                  int           x,
                  int           y,
                  gboolean      keyboard,
                  GtkTooltip   *tooltip)
{
  g_autofree char *text = ts_memory_view_describe_at (self, x, y);

  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
dark_changed_cb (TsMemoryView *self)
{
  invalidate (self);
}

static void
ts_memory_view_dispose (GObject *object)
{
  TsMemoryView *self = (TsMemoryView *) object;

  g_clear_pointer (&self->popover, gtk_widget_unparent);
  g_clear_pointer (&self->rendered, gsk_render_node_unref);
  g_clear_object (&self->renderer);
  g_clear_object (&self->replay);
  g_clear_object (&self->document);
  G_OBJECT_CLASS (ts_memory_view_parent_class)->dispose (object);
}

static void
ts_memory_view_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  TsMemoryView *self = TS_MEMORY_VIEW (object);

  switch (prop_id)
    {
    case PROP_VISIBLE_BEGIN:
      g_value_set_int64 (value, self->begin);
      break;
    case PROP_VISIBLE_END:
      g_value_set_int64 (value, self->end);
      break;
    case PROP_SELECTION_BEGIN:
      g_value_set_int64 (value, self->sel_begin);
      break;
    case PROP_SELECTION_END:
      g_value_set_int64 (value, self->sel_end);
      break;
    case PROP_INSTANT:
      g_value_set_uint64 (value, self->instant);
      break;
    case PROP_DETAIL:
      g_value_set_uint (value, self->detail);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_memory_view_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  TsMemoryView *self = TS_MEMORY_VIEW (object);

  /* The timeline's times mean nothing on the events axis. */
  if (by_events (self) && prop_id != PROP_INSTANT && prop_id != PROP_DETAIL)
    return;

  switch (prop_id)
    {
    case PROP_VISIBLE_BEGIN:
      ts_memory_view_set_visible_range (self, g_value_get_int64 (value), MAX (self->end, g_value_get_int64 (value) + 1));
      break;
    case PROP_VISIBLE_END:
      ts_memory_view_set_visible_range (self, MIN (self->begin, g_value_get_int64 (value) - 1), g_value_get_int64 (value));
      break;
    case PROP_SELECTION_BEGIN:
      ts_memory_view_set_selected_range (self, g_value_get_int64 (value), MAX (self->sel_end, g_value_get_int64 (value)));
      break;
    case PROP_SELECTION_END:
      ts_memory_view_set_selected_range (self, MIN (self->sel_begin, g_value_get_int64 (value)), g_value_get_int64 (value));
      break;
    case PROP_INSTANT:
      ts_memory_view_set_instant (self, g_value_get_uint64 (value));
      break;
    case PROP_DETAIL:
      ts_memory_view_set_detail (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_memory_view_class_init (TsMemoryViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ts_memory_view_dispose;
  object_class->get_property = ts_memory_view_get_property;
  object_class->set_property = ts_memory_view_set_property;
  widget_class->snapshot = ts_memory_view_snapshot;
  widget_class->size_allocate = ts_memory_view_size_allocate;
  widget_class->measure = ts_memory_view_measure;

  properties[PROP_VISIBLE_BEGIN] =
    g_param_spec_int64 ("visible-begin", NULL, NULL, G_MININT64, G_MAXINT64, 0,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_VISIBLE_END] =
    g_param_spec_int64 ("visible-end", NULL, NULL, G_MININT64, G_MAXINT64, 1,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SELECTION_BEGIN] =
    g_param_spec_int64 ("selection-begin", NULL, NULL, G_MININT64, G_MAXINT64, 0,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SELECTION_END] =
    g_param_spec_int64 ("selection-end", NULL, NULL, G_MININT64, G_MAXINT64, 0,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_INSTANT] =
    g_param_spec_uint64 ("instant", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DETAIL] =
    g_param_spec_uint ("detail", NULL, NULL, 1, G_MAXUINT, 200,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "memoryview");
}

static void
ts_memory_view_init (TsMemoryView *self)
{
  GtkGesture *drag = gtk_gesture_drag_new ();
  GtkEventController *scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES |
                                                                GTK_EVENT_CONTROLLER_SCROLL_DISCRETE);

  GtkEventController *motion = gtk_event_controller_motion_new ();

  self->end = 1;
  self->detail = 200;
  self->pointer_x = -1;

  g_signal_connect_swapped (motion, "motion", G_CALLBACK (motion_cb), self);
  g_signal_connect_swapped (motion, "leave", G_CALLBACK (leave_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);

  g_signal_connect_swapped (drag, "drag-begin", G_CALLBACK (drag_begin_cb), self);
  g_signal_connect_swapped (drag, "drag-update", G_CALLBACK (drag_update_cb), self);
  g_signal_connect_swapped (drag, "drag-end", G_CALLBACK (drag_end_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));
  g_signal_connect_swapped (scroll, "scroll", G_CALLBACK (scroll_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);

  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (query_tooltip_cb), NULL);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (dark_changed_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
}

GtkWidget *
ts_memory_view_new (void)
{
  return g_object_new (TS_TYPE_MEMORY_VIEW, NULL);
}

void
ts_memory_view_set_document (TsMemoryView    *self,
                             TsTraceDocument *document,
                             TsMemoryReplay  *replay)
{
  g_return_if_fail (TS_IS_MEMORY_VIEW (self));
  g_return_if_fail (document == NULL || TS_IS_TRACE_DOCUMENT (document));
  g_return_if_fail (replay == NULL || TS_IS_MEMORY_REPLAY (replay));

  g_set_object (&self->document, document);
  g_set_object (&self->replay, replay);
  g_clear_object (&self->renderer);
  if (document != NULL)
    {
      self->renderer = ts_memory_renderer_new (document);
      if (replay != NULL)
        ts_memory_renderer_set_replay (self->renderer, replay);
      else
        self->replay = g_object_ref (ts_memory_renderer_get_replay (self->renderer));
      ts_memory_renderer_set_detail (self->renderer, self->detail);
      if (!by_events (self))
        ts_memory_renderer_set_selected_range (self->renderer, self->sel_begin, self->sel_end);
    }
  invalidate (self);
}

TsMemoryRenderer *
ts_memory_view_get_renderer (TsMemoryView *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_VIEW (self), NULL);
  return self->renderer;
}

void
ts_memory_view_get_visible_range (TsMemoryView *self,
                                  TsTime       *begin,
                                  TsTime       *end)
{
  g_return_if_fail (TS_IS_MEMORY_VIEW (self));
  _ts_time_range_get (self->begin, self->end, begin, end);
}

void
ts_memory_view_set_visible_range (TsMemoryView *self,
                                  TsTime        begin,
                                  TsTime        end)
{
  g_return_if_fail (TS_IS_MEMORY_VIEW (self));

  store_range (self, &self->begin, &self->end, begin, MAX (end, begin + 1),
               PROP_VISIBLE_BEGIN, PROP_VISIBLE_END);
}

void
ts_memory_view_zoom_to_fit (TsMemoryView *self)
{
  TsTime begin = 0, end = 1;

  g_return_if_fail (TS_IS_MEMORY_VIEW (self));

  if (by_events (self))
    end = (TsTime) ts_memory_replay_get_n_actions (self->replay);
  else if (self->document != NULL)
    ts_trace_document_get_time_span (self->document, &begin, &end);
  /* A little room after the last action, so its step shows. */
  ts_memory_view_set_visible_range (self, begin, end + MAX (1, (end - begin) / 50));
}

void
ts_memory_view_get_selected_range (TsMemoryView *self,
                                   TsTime       *begin,
                                   TsTime       *end)
{
  g_return_if_fail (TS_IS_MEMORY_VIEW (self));
  _ts_time_range_get (self->sel_begin, self->sel_end, begin, end);
}

void
ts_memory_view_set_selected_range (TsMemoryView *self,
                                   TsTime        begin,
                                   TsTime        end)
{
  TsTime lo = MIN (begin, end), hi = MAX (begin, end);

  g_return_if_fail (TS_IS_MEMORY_VIEW (self));

  if (self->renderer != NULL)
    ts_memory_renderer_set_selected_range (self->renderer, lo, hi);
  store_range (self, &self->sel_begin, &self->sel_end, lo, hi,
               PROP_SELECTION_BEGIN, PROP_SELECTION_END);
}

gsize
ts_memory_view_get_instant (TsMemoryView *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_VIEW (self), 0);
  return self->instant;
}

void
ts_memory_view_set_instant (TsMemoryView *self,
                            gsize         instant)
{
  g_return_if_fail (TS_IS_MEMORY_VIEW (self));

  if (self->replay != NULL)
    instant = MIN (instant, ts_memory_replay_get_n_actions (self->replay));
  if (instant == self->instant)
    return;
  self->instant = instant;
  /* The cached frame stays: the snapshot draws the line on top. */
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INSTANT]);
}

guint
ts_memory_view_get_detail (TsMemoryView *self)
{
  g_return_val_if_fail (TS_IS_MEMORY_VIEW (self), 0);
  return self->detail;
}

void
ts_memory_view_set_detail (TsMemoryView *self,
                           guint         detail)
{
  g_return_if_fail (TS_IS_MEMORY_VIEW (self));

  detail = MAX (1, detail);
  if (detail == self->detail)
    return;
  self->detail = detail;
  if (self->renderer != NULL)
    ts_memory_renderer_set_detail (self->renderer, detail);
  invalidate (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DETAIL]);
}

TsTime
ts_memory_view_x_to_time (TsMemoryView *self,
                          double        x)
{
  TsTimelineView view;

  g_return_val_if_fail (TS_IS_MEMORY_VIEW (self), 0);

  if (self->renderer == NULL)
    return self->begin;
  get_view (self, &view);
  return ts_memory_renderer_x_to_time (self->renderer, &view, x);
}

double
ts_memory_view_time_to_x (TsMemoryView *self,
                          TsTime        time)
{
  TsTimelineView view;

  g_return_val_if_fail (TS_IS_MEMORY_VIEW (self), 0);

  if (self->renderer == NULL)
    return 0;
  get_view (self, &view);
  return ts_memory_renderer_time_to_x (self->renderer, &view, time);
}

/* An instant of the axis for people: a time, or an event's ordinal. */
static char *
format_axis (TsMemoryView *self,
             TsTime        t)
{
  if (by_events (self))
    return g_strdup_printf (_("event %lld"), (long long) t);   /* %lld: xgettext cuts a msgid at a macro */
  return ts_time_format_at (t, 1);
}

/* A band: the allocation, its size, stream, lifetime and where it was
 * made, rather than the device's totals. */
static char *
describe_allocation (TsMemoryView *self,
                     guint32       id)
{
  const TsMemoryAllocation *a = ts_memory_replay_get_allocation (self->replay, id);
  TsRecorder *recorder = ts_memory_replay_get_recorder (self->replay);
  g_autofree char *size = ts_memory_format_bytes (a->size);
  g_autofree char *requested = ts_memory_format_bytes (a->requested);
  g_autofree char *where = ts_memory_format_loc (recorder, &a->loc);
  g_autofree char *from = format_axis (self, a->time);
  g_autofree char *until = NULL;
  const char *function = a->loc.function != 0 ? ts_recorder_lookup (recorder, a->loc.function) : NULL;

  until = a->free_completed_action == TS_MEMORY_REPLAY_NONE
          ? g_strdup (_("never freed"))
          : format_axis (self, ts_memory_replay_get_action_time (self->replay, a->free_completed_action));
  /* Translators: a band of the memory view: "64.0 MiB block (64.0 MiB requested) on cuda:0, stream 4
   * live 12.000 µs → 96.000 µs
   * allocated at fragmentation.py:17 in <module>" */
  return g_strdup_printf (_("%s block (%s requested) on cuda:%u, stream %u\nlive %s → %s\nallocated at %s%s%s"),
                          size, requested, a->device, (guint) a->stream, from, until, where,
                          function != NULL ? _(" in ") : "", function != NULL ? function : "");
}

char *
ts_memory_view_describe_at (TsMemoryView *self,
                            double        x,
                            double        y)
{
  TsTimelineView view;
  guint oom, n = 0;
  guint32 allocation;
  TsTime t;
  GString *s;

  g_return_val_if_fail (TS_IS_MEMORY_VIEW (self), NULL);

  if (self->replay == NULL)
    return NULL;
  if (ts_memory_renderer_hit_oom (self->renderer, x, y, &oom))
    return ts_memory_replay_format_oom (self->replay, oom);
  if (ts_memory_renderer_hit_allocation (self->renderer, x, y, &allocation))
    return describe_allocation (self, allocation);

  get_view (self, &view);
  if (x < ts_memory_renderer_get_plot_left (self->renderer) || x >= view.width - 10)
    return NULL;
  t = ts_memory_view_x_to_time (self, x);
  s = g_string_new (NULL);
  if (by_events (self))
    {
      g_autofree char *at = format_axis (self, t);

      g_string_append (s, at);
    }
  else
    g_string_append_printf (s, _("%.3f ms"), (double) t / 1e6);
  for (guint d = 0; d < ts_memory_replay_get_n_devices (self->replay); d++)
    {
      const TsTime *times;
      const gint64 *allocated, *active, *reserved;
      gint lo = 0, hi;

      if (!ts_memory_replay_get_usage (self->replay, d, &n, &times, &allocated, &active, &reserved))
        continue;
      /* The last sample at or before t. */
      hi = (gint) n;
      while (lo < hi)
        {
          gint mid = (lo + hi) / 2;
          if (times[mid] <= t)
            lo = mid + 1;
          else
            hi = mid;
        }
      if (lo > 0)
        {
          g_autofree char *a = ts_memory_format_bytes ((guint64) allocated[lo - 1]);
          g_autofree char *ac = ts_memory_format_bytes ((guint64) active[lo - 1]);
          g_autofree char *r = ts_memory_format_bytes ((guint64) reserved[lo - 1]);

          g_string_append_printf (s, _("\nDevice %u: %s allocated, %s active, %s reserved"), d, a, ac, r);
        }
    }
  g_string_append (s, _("\nClick to show the segments at this instant"));
  return g_string_free (s, FALSE);
}
