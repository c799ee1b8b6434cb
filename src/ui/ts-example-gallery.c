/* ts-example-gallery.c: the sidebar listing the example workloads
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Activating a row activates "win.load-example" with the example's id,
 * so the window does the loading and keyboard, menus and tests can all
 * go through the same action.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ts-example-gallery.h"
#include "ts-examples.h"

struct _TsExampleGallery
{
  GtkWidget   parent_instance;

  GtkListBox *list_box;
  GListModel *examples;
};

G_DEFINE_FINAL_TYPE (TsExampleGallery, ts_example_gallery, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_EXAMPLES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GtkWidget *
ts_example_gallery_create_row (gpointer item,
                               gpointer user_data)
{
  TsExample *example = item;
  GtkWidget *row;
  GtkWidget *box;
  GtkWidget *title;
  GtkWidget *subtitle;

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);

  title = gtk_label_new (ts_example_get_title (example));
  gtk_label_set_xalign (GTK_LABEL (title), 0.0f);
  gtk_label_set_wrap (GTK_LABEL (title), TRUE);
  gtk_box_append (GTK_BOX (box), title);

  subtitle = gtk_label_new (ts_example_get_subtitle (example));
  gtk_label_set_xalign (GTK_LABEL (subtitle), 0.0f);
  gtk_label_set_wrap (GTK_LABEL (subtitle), TRUE);
  gtk_widget_add_css_class (subtitle, "caption");
  gtk_widget_add_css_class (subtitle, "dim-label");
  gtk_box_append (GTK_BOX (box), subtitle);

  row = gtk_list_box_row_new ();
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  gtk_widget_set_tooltip_text (row, ts_example_get_explanation (example));
  g_object_set_data_full (G_OBJECT (row), "ts-example-id",
                          g_strdup (ts_example_get_id (example)), g_free);

  return row;
}

static void
ts_example_gallery_row_activated_cb (TsExampleGallery *self,
                                     GtkListBoxRow    *row)
{
  const char *id = g_object_get_data (G_OBJECT (row), "ts-example-id");

  g_assert (TS_IS_EXAMPLE_GALLERY (self));

  gtk_widget_activate_action (GTK_WIDGET (self), "win.load-example", "s", id);
}

static void
ts_example_gallery_dispose (GObject *object)
{
  TsExampleGallery *self = (TsExampleGallery *)object;
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), TS_TYPE_EXAMPLE_GALLERY);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))))
    gtk_widget_unparent (child);
  g_clear_object (&self->examples);

  G_OBJECT_CLASS (ts_example_gallery_parent_class)->dispose (object);
}

static void
ts_example_gallery_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  TsExampleGallery *self = TS_EXAMPLE_GALLERY (object);

  switch (prop_id)
    {
    case PROP_EXAMPLES:
      g_value_set_object (value, self->examples);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_example_gallery_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  TsExampleGallery *self = TS_EXAMPLE_GALLERY (object);

  switch (prop_id)
    {
    case PROP_EXAMPLES:
      ts_example_gallery_set_examples (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_example_gallery_class_init (TsExampleGalleryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ts_example_gallery_dispose;
  object_class->get_property = ts_example_gallery_get_property;
  object_class->set_property = ts_example_gallery_set_property;

  properties[PROP_EXAMPLES] =
    g_param_spec_object ("examples", NULL, NULL, G_TYPE_LIST_MODEL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/tensorscope/Tensorscope/ts-example-gallery.ui");
  gtk_widget_class_bind_template_child (widget_class, TsExampleGallery, list_box);
  gtk_widget_class_bind_template_callback (widget_class, ts_example_gallery_row_activated_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "examplegallery");
}

static void
ts_example_gallery_init (TsExampleGallery *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  ts_example_gallery_set_examples (self, ts_examples_get_default ());
}

GtkWidget *
ts_example_gallery_new (void)
{
  return g_object_new (TS_TYPE_EXAMPLE_GALLERY, NULL);
}

/**
 * ts_example_gallery_get_examples:
 * @self: a #TsExampleGallery
 *
 * Returns: (transfer none) (nullable): the #TsExample list shown
 */
GListModel *
ts_example_gallery_get_examples (TsExampleGallery *self)
{
  g_return_val_if_fail (TS_IS_EXAMPLE_GALLERY (self), NULL);

  return self->examples;
}

void
ts_example_gallery_set_examples (TsExampleGallery *self,
                                 GListModel       *examples)
{
  g_return_if_fail (TS_IS_EXAMPLE_GALLERY (self));
  g_return_if_fail (examples == NULL || G_IS_LIST_MODEL (examples));

  if (!g_set_object (&self->examples, examples))
    return;

  gtk_list_box_bind_model (self->list_box, examples,
                           ts_example_gallery_create_row, NULL, NULL);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXAMPLES]);
}

/**
 * ts_example_gallery_get_selected_id:
 * @self: a #TsExampleGallery
 *
 * Returns: (nullable): the id of the highlighted example
 */
const char *
ts_example_gallery_get_selected_id (TsExampleGallery *self)
{
  GtkListBoxRow *row;

  g_return_val_if_fail (TS_IS_EXAMPLE_GALLERY (self), NULL);

  if (!(row = gtk_list_box_get_selected_row (self->list_box)))
    return NULL;

  return g_object_get_data (G_OBJECT (row), "ts-example-id");
}

/* Highlights the row of @id, or none if @id is NULL or unknown. */
void
ts_example_gallery_set_selected_id (TsExampleGallery *self,
                                    const char       *id)
{
  GtkListBoxRow *row;

  g_return_if_fail (TS_IS_EXAMPLE_GALLERY (self));

  for (int i = 0; (row = gtk_list_box_get_row_at_index (self->list_box, i)); i++)
    {
      if (g_strcmp0 (g_object_get_data (G_OBJECT (row), "ts-example-id"), id) == 0)
        {
          gtk_list_box_select_row (self->list_box, row);
          return;
        }
    }

  gtk_list_box_unselect_all (self->list_box);
}
