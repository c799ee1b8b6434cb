/* ts-import-value.h: small parsed values shared by the PyTorch importers
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pickle and JSON readers stream: they build values only for the
 * small pieces an importer keeps at a time (one trace entry, one segment,
 * one profiler event) and hand each to a callback as soon as it is
 * complete, so memory follows what is kept, not the file. Values are
 * reference counted because a pickle's memo shares them (key strings, the
 * frames lists PyTorch deduplicates).
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  TS_VALUE_NONE = 0,
  TS_VALUE_BOOL,
  TS_VALUE_INT,
  TS_VALUE_FLOAT,
  TS_VALUE_STRING,
  TS_VALUE_LIST,   /* also tuples */
  TS_VALUE_DICT,   /* items: key, value, key, value ... */
  TS_VALUE_LOC,    /* a frames list an importer has already reduced to one location */
} TsValueType;

typedef struct _TsValue TsValue;

struct _TsValue
{
  guint32     ref;
  guint8      type;
  guint8      big;      /* an int that did not fit 64 bits: i holds its low 64 bits */
  guint8      role;     /* for the reader that made it */
  guint8      flags;
  union
  {
    gboolean  b;
    gint64    i;
    double    f;
    struct { char *str; guint32 len; } s;
    struct { GPtrArray *items; guint32 aux; };   /* aux: for the reader that made it */
    struct { guint32 file, function, line; } loc;
  };
};

TsValue       *ts_value_new        (TsValueType   type);
TsValue       *ts_value_new_int    (gint64        i);
TsValue       *ts_value_new_float  (double        f);
TsValue       *ts_value_new_bool   (gboolean      b);
TsValue       *ts_value_new_string (const char   *str,
                                    gsize         len);
TsValue       *ts_value_ref        (TsValue      *v);
void           ts_value_unref      (TsValue      *v);
/* Turns a list, in place (every holder of it sees the change), into a
 * location: its items are released. */
void           ts_value_make_loc   (TsValue      *list,
                                    guint32       file,
                                    guint32       function,
                                    guint32       line);
/* Appends (takes the reference). */
void           ts_value_append     (TsValue      *list_or_dict,
                                    TsValue      *item);
guint          ts_value_len        (const TsValue *v);
TsValue       *ts_value_index      (const TsValue *v,
                                    guint          i);
/* Dict lookup by a string key; NULL when absent or not a dict. */
TsValue       *ts_value_get        (const TsValue *dict,
                                    const char    *key);
/* An int, bool or in-range float as an integer, as Python's int() would
 * give it; FALSE for anything else. */
gboolean       ts_value_to_int     (const TsValue *v,
                                    gint64        *out);
gboolean       ts_value_get_int    (const TsValue *dict,
                                    const char    *key,
                                    gint64        *out);
gboolean       ts_value_get_double (const TsValue *dict,
                                    const char    *key,
                                    double        *out);
const char    *ts_value_get_str    (const TsValue *dict,
                                    const char    *key);
gboolean       ts_value_is_str     (const TsValue *v,
                                    const char    *str);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsValue, ts_value_unref)

G_END_DECLS
