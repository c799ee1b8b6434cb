/* ts-tensor-format.c: PyTorch's repr of a tensor
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The structure mirrors _tensor_str.py: a formatter decides the notation
 * and the column width from the (summarised) values, then the nested
 * brackets are printed recursively, 1-D rows wrapped at the line width.
 */

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ts-tensor-format.h"

/* torch.set_printoptions: one setting for the process, as PyTorch's
 * PRINT_OPTS is. */
static TsPrintOptions print_opts = { 4, 1000, 3, 80, -1 };

#define PRECISION  (print_opts.precision)
#define THRESHOLD  (print_opts.threshold)
#define EDGEITEMS  ((gint64) print_opts.edgeitems)
#define LINEWIDTH  (print_opts.linewidth)

void
ts_tensor_format_get_print_options (TsPrintOptions *options)
{
  *options = print_opts;
}

void
ts_tensor_format_set_print_options (const TsPrintOptions *options)
{
  print_opts = *options;
}

typedef struct _Printer
{
  TsDType       dtype;
  guint         ndim;
  const gint64 *shape;
  gint64        strides[32];
  gconstpointer data;
  gsize         elem;
  gboolean      summarize;

  /* the formatter */
  gboolean      floating;
  gboolean      int_mode;
  gboolean      sci_mode;
  int           max_width;

  /* a complex tensor: this printer formats the real parts and @imag, a
   * printer of the same elements offset by one component, the imaginary
   * ones, as PyTorch's two _Formatters of .real and .imag */
  struct _Printer *imag;
} Printer;

static gconstpointer
element_at (const Printer *p,
            gint64         offset)
{
  return (const char *)p->data + offset * (gint64)p->elem;
}

/* Python's "{:.Nf}" / "{:.Ne}" / "{:.0f}" of a float: C's printf, except
 * that a NaN is always "nan" (glibc would print "-nan"). */
typedef enum
{
  NOTATION_SCI,    /* "{:W.4e}" */
  NOTATION_INT,    /* "{:.0f}" */
  NOTATION_FIXED,  /* "{:.4f}" */
} Notation;

static void
format_float (char     *buf,
              gsize     size,
              Notation  notation,
              int       width,
              double    v)
{
  if (isnan (v))
    g_snprintf (buf, size, "%*s", width, "nan");
  else if (notation == NOTATION_SCI)
    g_snprintf (buf, size, "%*.*e", width, PRECISION, v);
  else if (notation == NOTATION_INT)
    g_snprintf (buf, size, "%*.0f", width, v);
  else
    g_snprintf (buf, size, "%*.*f", width, PRECISION, v);
}

static void format_real (const Printer *p,
                         gconstpointer  ptr,
                         GString       *out);

/* _val_formatter: the real part, then the imaginary one with its sign
 * (a "+" where its padding was blank) and "j" */
static void
format_value (const Printer *p,
              gconstpointer  ptr,
              GString       *out)
{
  g_autoptr(GString) im = NULL;
  const char *s;

  format_real (p, ptr, out);
  if (p->imag == NULL)
    return;
  im = g_string_new (NULL);
  format_real (p->imag, (const char *) ptr + ts_dtype_size (p->dtype), im);
  for (s = im->str; *s == ' '; s++)
    ;
  if (*s != '+' && *s != '-')
    g_string_append_c (out, '+');
  g_string_append (out, s);
  g_string_append_c (out, 'j');
}

static void
format_real (const Printer *p,
             gconstpointer  ptr,
             GString       *out)
{
  char buf[64];
  int len;

  if (!p->floating)
    {
      if (p->dtype == TS_DTYPE_BOOL)
        g_strlcpy (buf, *(const guint8 *)ptr ? "True" : "False", sizeof buf);
      else
        g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, ts_dtype_load_int (p->dtype, ptr));
    }
  else
    {
      double v = ts_dtype_load (p->dtype, ptr);

      if (p->sci_mode)
        format_float (buf, sizeof buf, NOTATION_SCI, p->max_width, v);
      else if (p->int_mode)
        {
          format_float (buf, sizeof buf, NOTATION_INT, 0, v);
          if (isfinite (v))
            g_strlcat (buf, ".", sizeof buf);
        }
      else
        format_float (buf, sizeof buf, NOTATION_FIXED, 0, v);
    }

  len = (int)strlen (buf);
  for (int i = len; i < p->max_width; i++)
    g_string_append_c (out, ' ');
  g_string_append (out, buf);
}

/* Visits the elements get_summarized_data() keeps: along a dim longer
 * than 2 * EDGEITEMS only the first and last EDGEITEMS. */
typedef void (*VisitFunc) (Printer *p, gconstpointer ptr, gpointer data);

static void
visit_summarized (Printer   *p,
                  guint      dim,
                  gint64     offset,
                  VisitFunc  func,
                  gpointer   data)
{
  gint64 size;

  if (dim == p->ndim)
    {
      func (p, element_at (p, offset), data);
      return;
    }
  size = p->shape[dim];
  for (gint64 i = 0; i < size; i++)
    {
      if (p->summarize && size > 2 * EDGEITEMS && i == EDGEITEMS)
        i = size - EDGEITEMS;
      visit_summarized (p, dim + 1, offset + i * p->strides[dim], func, data);
    }
}

typedef struct
{
  int      pass;      /* 0: scan, 1: widths */
  gboolean any;
  gboolean int_mode;
  double   min_abs;
  double   max_abs;
} FloatScan;

static void
int_width_cb (Printer       *p,
              gconstpointer  ptr,
              gpointer       data)
{
  char buf[32];

  if (p->dtype == TS_DTYPE_BOOL)
    p->max_width = MAX (p->max_width, *(const guint8 *)ptr ? 4 : 5);
  else
    {
      g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, ts_dtype_load_int (p->dtype, ptr));
      p->max_width = MAX (p->max_width, (int)strlen (buf));
    }
}

static void
float_scan_cb (Printer       *p,
               gconstpointer  ptr,
               gpointer       data)
{
  FloatScan *scan = data;
  double v = ts_dtype_load (p->dtype, ptr);
  char buf[64];

  if (!isfinite (v) || v == 0.0)
    return;

  if (scan->pass == 0)
    {
      double a = fabs (v);

      if (!scan->any)
        scan->min_abs = scan->max_abs = a;
      scan->any = TRUE;
      scan->min_abs = MIN (scan->min_abs, a);
      scan->max_abs = MAX (scan->max_abs, a);
      if (v != ceil (v))
        scan->int_mode = FALSE;
      return;
    }

  if (p->sci_mode)
    g_snprintf (buf, sizeof buf, "%.*e", PRECISION, v);
  else if (p->int_mode)
    g_snprintf (buf, sizeof buf, "%.0f.", v);  /* the "." counts */
  else
    g_snprintf (buf, sizeof buf, "%.*f", PRECISION, v);
  p->max_width = MAX (p->max_width, (int)strlen (buf));
}

static void
init_formatter (Printer *p)
{
  FloatScan scan = { 0, FALSE, TRUE, 0, 0 };

  p->floating = ts_dtype_is_floating (p->dtype);
  p->int_mode = TRUE;
  p->sci_mode = FALSE;
  p->max_width = 1;

  if (!p->floating)
    {
      visit_summarized (p, 0, 0, int_width_cb, NULL);
      return;
    }

  visit_summarized (p, 0, 0, float_scan_cb, &scan);
  if (!scan.any)
    return;  /* only zeros, NaNs and infinities: "0.", width 1 */

  p->int_mode = scan.int_mode;
  if (scan.max_abs / scan.min_abs > 1000.0 || scan.max_abs > 1.0e8 ||
      (!p->int_mode && scan.min_abs < 1.0e-4))
    p->sci_mode = TRUE;

  scan.pass = 1;
  visit_summarized (p, 0, 0, float_scan_cb, &scan);
  /* A forced notation only changes how values print: the widths stay
   * those of the notation PyTorch would have picked, as its _Formatter's. */
  if (print_opts.sci_mode >= 0)
    p->sci_mode = print_opts.sci_mode;
}

static void
append_indent (GString *out,
               int      n)
{
  for (int i = 0; i < n; i++)
    g_string_append_c (out, ' ');
}

static void
vector_str (Printer *p,
            gint64   offset,
            int      indent,
            GString *out)
{
  gint64 size = p->shape[p->ndim - 1];
  gint64 stride = p->strides[p->ndim - 1];
  /* a complex element also has its imaginary part and a "j" */
  int element_length = p->max_width + 2 + (p->imag ? p->imag->max_width + 1 : 0);
  int per_line = MAX (1, (LINEWIDTH - indent) / element_length);
  gboolean cut = p->summarize && size > 2 * EDGEITEMS;
  gint64 n_items = cut ? 2 * EDGEITEMS + 1 : size;

  /* Python floors a true division: with a negative numerator (an indent
   * past the line width) the floor is still taken before max (1, ...). */
  if (LINEWIDTH - indent < 0)
    per_line = 1;

  g_string_append_c (out, '[');
  for (gint64 item = 0; item < n_items; item++)
    {
      if (item > 0)
        {
          if (item % per_line == 0)
            {
              g_string_append (out, ",\n");
              append_indent (out, indent + 1);
            }
          else
            g_string_append (out, ", ");
        }

      if (cut && item == EDGEITEMS)
        g_string_append (out, " ...");
      else
        {
          gint64 i = item;

          if (cut && item > EDGEITEMS)
            i = size - (n_items - item);
          format_value (p, element_at (p, offset + i * stride), out);
        }
    }
  g_string_append_c (out, ']');
}

static void
tensor_str (Printer *p,
            guint    dim,
            gint64   offset,
            int      indent,
            GString *out)
{
  guint remaining = p->ndim - dim;
  gint64 size;
  gboolean cut;

  if (remaining == 0)
    {
      format_value (p, element_at (p, offset), out);
      return;
    }
  if (remaining == 1)
    {
      vector_str (p, offset, indent, out);
      return;
    }

  size = p->shape[dim];
  cut = p->summarize && size > 2 * EDGEITEMS;
  g_string_append_c (out, '[');
  for (gint64 i = 0; i < size; i++)
    {
      if (i > 0)
        {
          g_string_append_c (out, ',');
          for (guint k = 0; k < remaining - 1; k++)
            g_string_append_c (out, '\n');
          append_indent (out, indent + 1);
        }
      if (cut && i == EDGEITEMS)
        {
          g_string_append (out, "...");
          i = size - EDGEITEMS - 1;
          continue;
        }
      tensor_str (p, dim + 1, offset + i * p->strides[dim], indent + 1, out);
    }
  g_string_append_c (out, ']');
}

/* _add_suffixes, including its count of the last line's length (which
 * is two more than the line when there is no newline at all). */
static void
add_suffixes (GString    *out,
              GPtrArray  *suffixes,
              int         indent)
{
  const char *nl = strrchr (out->str, '\n');
  gint64 last_line_len = (gint64)out->len - (nl ? (nl - out->str) : -1) + 1;

  for (guint i = 0; i < suffixes->len; i++)
    {
      const char *suffix = g_ptr_array_index (suffixes, i);
      gint64 suffix_len = (gint64)strlen (suffix);

      if (last_line_len + suffix_len + 2 > LINEWIDTH)
        {
          g_string_append (out, ",\n");
          append_indent (out, indent);
          g_string_append (out, suffix);
          last_line_len = indent + suffix_len;
        }
      else
        {
          g_string_append (out, ", ");
          g_string_append (out, suffix);
          last_line_len += suffix_len + 2;
        }
    }
  g_string_append_c (out, ')');
}

char *
ts_tensor_format (TsDType                      dtype,
                  guint                        ndim,
                  const gint64                *shape,
                  const gint64                *strides,
                  gconstpointer                data,
                  const TsTensorFormatOptions *options)
{
  static const char prefix[] = "tensor(";
  const int indent = sizeof prefix - 1;
  g_autoptr(GPtrArray) suffixes = g_ptr_array_new_with_free_func (g_free);
  GString *out;
  gint64 numel = 1;
  Printer p = { 0 }, imag;

  g_return_val_if_fail (ts_dtype_is_valid (dtype), NULL);
  g_return_val_if_fail (ndim <= G_N_ELEMENTS (p.strides), NULL);
  g_return_val_if_fail (ndim == 0 || shape != NULL, NULL);

  for (guint d = 0; d < ndim; d++)
    numel *= shape[d];
  g_return_val_if_fail (numel == 0 || data != NULL, NULL);

  if (options && options->device)
    g_ptr_array_add (suffixes, g_strdup_printf ("device='%s'", options->device));

  out = g_string_new (prefix);
  if (numel == 0)
    {
      /* NumPy-like: the shape is printed unless it is (0,); and with no
       * values to show the kind, any non-default dtype is printed. */
      if (ndim != 1)
        {
          GString *size = g_string_new ("size=(");

          for (guint d = 0; d < ndim; d++)
            g_string_append_printf (size, "%s%" G_GINT64_FORMAT, d ? ", " : "", shape[d]);
          g_string_append_c (size, ')');
          g_ptr_array_add (suffixes, g_string_free (size, FALSE));
        }
      if (dtype != ts_dtype_get_default ())
        g_ptr_array_add (suffixes, g_strdup_printf ("dtype=%s", ts_dtype_name (dtype)));
      g_string_append (out, "[]");
    }
  else
    {
      if (dtype != ts_dtype_get_default () && dtype != TS_DTYPE_INT64 && dtype != TS_DTYPE_BOOL &&
          dtype != ts_dtype_to_complex (ts_dtype_get_default ()))
        g_ptr_array_add (suffixes, g_strdup_printf ("dtype=%s", ts_dtype_name (dtype)));

      p.dtype = dtype;
      p.ndim = ndim;
      p.shape = shape;
      p.data = data;
      p.elem = ts_dtype_size (dtype);
      p.summarize = numel > THRESHOLD;
      if (strides)
        memcpy (p.strides, strides, ndim * sizeof (gint64));
      else
        {
          gint64 s = 1;

          for (guint d = ndim; d-- > 0;)
            {
              p.strides[d] = s;
              s *= shape[d];
            }
        }
      if (ts_dtype_is_complex (dtype))
        {
          p.dtype = ts_dtype_to_real (dtype);
          imag = p;
          imag.data = (const char *) data + ts_dtype_size (p.dtype);
          init_formatter (&imag);
          p.imag = &imag;
        }
      init_formatter (&p);
      tensor_str (&p, 0, 0, indent, out);
    }

  if (options && options->grad_fn)
    g_ptr_array_add (suffixes, g_strdup_printf ("grad_fn=<%s>", options->grad_fn));
  else if (options && options->requires_grad)
    g_ptr_array_add (suffixes, g_strdup ("requires_grad=True"));

  add_suffixes (out, suffixes, indent);
  return g_string_free (out, FALSE);
}
