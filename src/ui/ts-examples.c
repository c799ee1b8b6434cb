/* ts-examples.c: the example workloads shipped in the GResource
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The index is a key file with one "Example ID" group per example, in
 * gallery order. Its Name/GenericName/Comment keys carry translations
 * merged in at build time, so g_key_file_get_locale_string() picks the
 * user's language.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ts-examples.h"
#include "ts-util-private.h"

#define EXAMPLES_PATH "/io/github/tensorscope/Tensorscope/examples/"
#define GROUP_PREFIX "Example "

struct _TsExample
{
  GObject  parent_instance;

  char    *id;
  char    *title;
  char    *subtitle;
  char    *explanation;
  char    *file_name;
  guint    min_gpus;
  gboolean no_data;    /* NoData=true: runs with --no-data (too big to compute here) */
};

G_DEFINE_FINAL_TYPE (TsExample, ts_example, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ID,
  PROP_TITLE,
  PROP_SUBTITLE,
  PROP_EXPLANATION,
  PROP_FILE_NAME,
  PROP_MIN_GPUS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
ts_example_finalize (GObject *object)
{
  TsExample *self = (TsExample *)object;

  g_clear_pointer (&self->id, g_free);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->subtitle, g_free);
  g_clear_pointer (&self->explanation, g_free);
  g_clear_pointer (&self->file_name, g_free);

  G_OBJECT_CLASS (ts_example_parent_class)->finalize (object);
}

static void
ts_example_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  TsExample *self = TS_EXAMPLE (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case PROP_SUBTITLE:
      g_value_set_string (value, self->subtitle);
      break;
    case PROP_EXPLANATION:
      g_value_set_string (value, self->explanation);
      break;
    case PROP_FILE_NAME:
      g_value_set_string (value, self->file_name);
      break;
    case PROP_MIN_GPUS:
      g_value_set_uint (value, self->min_gpus);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_example_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  TsExample *self = TS_EXAMPLE (object);

  switch (prop_id)
    {
    case PROP_ID:
      self->id = g_value_dup_string (value);
      break;
    case PROP_TITLE:
      self->title = g_value_dup_string (value);
      break;
    case PROP_SUBTITLE:
      self->subtitle = g_value_dup_string (value);
      break;
    case PROP_EXPLANATION:
      self->explanation = g_value_dup_string (value);
      break;
    case PROP_FILE_NAME:
      self->file_name = g_value_dup_string (value);
      break;
    case PROP_MIN_GPUS:
      self->min_gpus = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_example_class_init (TsExampleClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = ts_example_finalize;
  object_class->get_property = ts_example_get_property;
  object_class->set_property = ts_example_set_property;

  properties[PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, flags);
  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, flags);
  properties[PROP_SUBTITLE] = g_param_spec_string ("subtitle", NULL, NULL, NULL, flags);
  properties[PROP_EXPLANATION] = g_param_spec_string ("explanation", NULL, NULL, NULL, flags);
  properties[PROP_FILE_NAME] = g_param_spec_string ("file-name", NULL, NULL, NULL, flags);
  properties[PROP_MIN_GPUS] = g_param_spec_uint ("min-gpus", NULL, NULL, 1, 16, 1, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ts_example_init (TsExample *self)
{
  self->min_gpus = 1;
}

const char *
ts_example_get_id (TsExample *self)
{
  g_return_val_if_fail (TS_IS_EXAMPLE (self), NULL);

  return self->id;
}

const char *
ts_example_get_title (TsExample *self)
{
  g_return_val_if_fail (TS_IS_EXAMPLE (self), NULL);

  return self->title;
}

const char *
ts_example_get_subtitle (TsExample *self)
{
  g_return_val_if_fail (TS_IS_EXAMPLE (self), NULL);

  return self->subtitle;
}

const char *
ts_example_get_explanation (TsExample *self)
{
  g_return_val_if_fail (TS_IS_EXAMPLE (self), NULL);

  return self->explanation;
}

/* The script's file name, e.g. "stream_race.py". */
const char *
ts_example_get_file_name (TsExample *self)
{
  g_return_val_if_fail (TS_IS_EXAMPLE (self), NULL);

  return self->file_name;
}

/* Whether the example is meant to run with --no-data. */
gboolean
ts_example_get_no_data (TsExample *self)
{
  g_return_val_if_fail (TS_IS_EXAMPLE (self), FALSE);
  return self->no_data;
}

guint
ts_example_get_min_gpus (TsExample *self)
{
  g_return_val_if_fail (TS_IS_EXAMPLE (self), 1);

  return self->min_gpus;
}

/**
 * ts_example_load_code:
 * @self: a #TsExample
 * @error: a location for a #GError
 *
 * Returns: (transfer full): the script, UTF-8
 */
char *
ts_example_load_code (TsExample  *self,
                      GError    **error)
{
  g_autofree char *path = NULL;
  g_autoptr(GBytes) bytes = NULL;
  gsize size;
  const char *data;

  g_return_val_if_fail (TS_IS_EXAMPLE (self), NULL);

  path = g_strconcat (EXAMPLES_PATH, self->file_name, NULL);
  if (!(bytes = g_resources_lookup_data (path, G_RESOURCE_LOOKUP_FLAGS_NONE, error)))
    return NULL;

  data = g_bytes_get_data (bytes, &size);
  return g_strndup (data, size);
}

static TsExample *
ts_example_new_from_group (GKeyFile    *key_file,
                           const char  *group,
                           GError     **error)
{
  g_autofree char *title = NULL;
  g_autofree char *subtitle = NULL;
  g_autofree char *explanation = NULL;
  g_autofree char *file_name = NULL;
  int min_gpus;
  TsExample *example;

  if (!(file_name = g_key_file_get_string (key_file, group, "File", error)) ||
      !(title = g_key_file_get_locale_string (key_file, group, "Name", NULL, error)))
    return NULL;

  subtitle = g_key_file_get_locale_string (key_file, group, "GenericName", NULL, NULL);
  explanation = g_key_file_get_locale_string (key_file, group, "Comment", NULL, NULL);
  min_gpus = g_key_file_get_integer (key_file, group, "MinGPUs", NULL);

  example = g_object_new (TS_TYPE_EXAMPLE,
                          "id", group + strlen (GROUP_PREFIX),
                          "title", title,
                          "subtitle", subtitle ? subtitle : "",
                          "explanation", explanation ? explanation : "",
                          "file-name", file_name,
                          "min-gpus", (guint)CLAMP (min_gpus, 1, 16),
                          NULL);
  example->no_data = g_key_file_get_boolean (key_file, group, "NoData", NULL);
  return example;
}

/**
 * ts_examples_load_index:
 * @index: the contents of an examples.ini
 * @error: a location for a #GError
 *
 * Returns: (transfer full): a #GListModel of #TsExample in file order
 */
GListModel *
ts_examples_load_index (GBytes  *index,
                        GError **error)
{
  g_autoptr(GKeyFile) key_file = g_key_file_new ();
  g_autoptr(GListStore) store = g_list_store_new (TS_TYPE_EXAMPLE);
  g_auto(GStrv) groups = NULL;

  g_return_val_if_fail (index != NULL, NULL);

  if (!g_key_file_load_from_bytes (key_file, index, G_KEY_FILE_KEEP_TRANSLATIONS, error))
    return NULL;

  groups = g_key_file_get_groups (key_file, NULL);
  for (guint i = 0; groups[i] != NULL; i++)
    {
      g_autoptr(TsExample) example = NULL;

      if (!g_str_has_prefix (groups[i], GROUP_PREFIX))
        continue;
      if (!(example = ts_example_new_from_group (key_file, groups[i], error)))
        return NULL;
      g_list_store_append (store, example);
    }

  return G_LIST_MODEL (g_steal_pointer (&store));
}

/**
 * ts_examples_get_default:
 *
 * The examples compiled into the application, loaded once.
 *
 * Returns: (transfer none): a #GListModel of #TsExample
 */
GListModel *
ts_examples_get_default (void)
{
  static GListModel *examples;

  if (g_once_init_enter (&examples))
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) bytes = NULL;
      GListModel *model = NULL;

      bytes = g_resources_lookup_data (EXAMPLES_PATH "examples.ini", G_RESOURCE_LOOKUP_FLAGS_NONE, &error);
      if (bytes != NULL)
        model = ts_examples_load_index (bytes, &error);
      if (model == NULL)
        {
          g_critical ("The example index is broken: %s", error->message);
          model = G_LIST_MODEL (g_list_store_new (TS_TYPE_EXAMPLE));
        }

      g_once_init_leave (&examples, model);
    }

  return examples;
}

/**
 * ts_examples_lookup:
 * @examples: a #GListModel of #TsExample
 * @id: an example id
 *
 * Returns: (transfer none) (nullable): the example, or %NULL
 */
TsExample *
ts_examples_lookup (GListModel *examples,
                    const char *id)
{
  guint n;

  g_return_val_if_fail (G_IS_LIST_MODEL (examples), NULL);

  if (id == NULL)
    return NULL;

  n = g_list_model_get_n_items (examples);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TsExample) example = g_list_model_get_item (examples, i);

      if (g_str_equal (example->id, id))
        return example;
    }

  return NULL;
}
