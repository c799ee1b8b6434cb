/* test-cpu-conv.c: the convolution kernels against a direct convolution
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * ts-cpu-conv.c picks among im2col, the stride-1 shifted products, the
 * scatter and its flipped-kernel gather by the arguments: each case here
 * lands on one of them, and every path must give what the six nested
 * loops of the definition give, in float64 (to rounding), for the
 * forward and both gradients, 1-d to 3-d, with groups and transposed.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-cpu-conv.h"

typedef struct
{
  const char *name;
  guint       n_spatial;
  gint64      n, cin, cout, groups;
  gint64      in[3], k[3], stride[3], padding[3], dilation[3], output_padding[3];
  gboolean    transposed;
} Case;

static const Case cases[] = {
  { "2d-shifted", 2, 2, 3, 4, 1, { 6, 7 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, { 0, 0 }, FALSE },
  { "2d-stride", 2, 2, 4, 6, 2, { 7, 6 }, { 3, 2 }, { 2, 1 }, { 1, 0 }, { 1, 2 }, { 0, 0 }, FALSE },
  { "2d-1x1", 2, 3, 3, 5, 1, { 4, 4 }, { 1, 1 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 0, 0 }, FALSE },
  { "2d-depthwise-dil", 2, 1, 4, 8, 4, { 8, 8 }, { 3, 3 }, { 1, 1 }, { 2, 2 }, { 2, 2 }, { 0, 0 }, FALSE },
  { "1d", 1, 2, 3, 2, 1, { 9 }, { 4 }, { 1 }, { 2 }, { 1 }, { 0 }, FALSE },
  { "3d", 3, 1, 2, 4, 2, { 4, 5, 5 }, { 2, 3, 3 }, { 1, 2, 1 }, { 1, 1, 0 }, { 1, 1, 1 }, { 0, 0, 0 }, FALSE },
  { "t-2d-stride", 2, 2, 3, 4, 1, { 4, 4 }, { 3, 3 }, { 2, 2 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, TRUE },
  { "t-2d-s1-groups", 2, 1, 4, 6, 2, { 3, 5 }, { 2, 3 }, { 1, 1 }, { 0, 1 }, { 1, 2 }, { 0, 0 }, TRUE },
  { "t-1d", 1, 2, 2, 3, 1, { 5 }, { 3 }, { 3 }, { 0 }, { 1 }, { 2 }, TRUE },
};

/* a value of no particular pattern, exact in float64 */
static double
value (gint64 i,
       int    salt)
{
  return (double) ((i * 7919 + salt * 104729) % 17 - 8) / 4.0;
}

static void
fill (TsView *v,
      int     salt)
{
  double *p = v->data;

  for (gint64 i = 0; i < ts_view_numel (v); i++)
    p[i] = value (i, salt);
}

static void
new_view (TsView *v,
          guint   ndim,
          gint64 *shape)
{
  gint64 n = 1;

  for (guint i = 0; i < ndim; i++)
    n *= shape[i];
  ts_view_init (v, TS_DTYPE_FLOAT64, g_new0 (double, MAX (n, 1)), ndim, shape, NULL, 0);
}

/* The definition: for each output (or input) position and each kernel
 * position, the pair of image and columns positions it links; @fn adds
 * the product where it belongs. */
typedef struct
{
  const Case *c;
  gint64      out[3];
  double     *x, *w, *y;   /* input, weight, output */
} Ref;

static gint64
lin (const gint64 *idx,
     const gint64 *shape,
     guint         n)
{
  gint64 r = 0;

  for (guint i = 0; i < n; i++)
    r = r * shape[i] + idx[i];
  return r;
}

/* mode 0: y += x * w; 1: x += y * w (grad input); 2: w += y * x (grad weight) */
static void
reference (Ref *r,
           int  mode)
{
  const Case *c = r->c;
  guint ns = c->n_spatial;
  gint64 cin_g = c->cin / c->groups, cout_g = c->cout / c->groups;
  gint64 ktotal = 1, intotal = 1, ototal = 1;

  for (guint d = 0; d < ns; d++)
    {
      ktotal *= c->k[d];
      intotal *= c->in[d];
      ototal *= r->out[d];
    }
  for (gint64 b = 0; b < c->n; b++)
    for (gint64 ci = 0; ci < c->cin; ci++)
      for (gint64 co_g = 0; co_g < cout_g; co_g++)
        for (gint64 ip = 0; ip < intotal; ip++)
          for (gint64 kp = 0; kp < ktotal; kp++)
            {
              gint64 iidx[3], kidx[3], oidx[3], rest = ip, krest = kp;
              gboolean ok = TRUE;
              gint64 gr = ci / cin_g, co = gr * cout_g + co_g, wi, xi, yi;

              for (int d = ns - 1; d >= 0; d--)
                {
                  iidx[d] = rest % c->in[d];
                  rest /= c->in[d];
                  kidx[d] = krest % c->k[d];
                  krest /= c->k[d];
                }
              for (guint d = 0; d < ns; d++)
                {
                  /* not transposed: in = out * s - p + k * dl; transposed: out = in * s - p + k * dl */
                  gint64 num = c->transposed ? iidx[d] * c->stride[d] - c->padding[d] + kidx[d] * c->dilation[d]
                                             : iidx[d] + c->padding[d] - kidx[d] * c->dilation[d];

                  if (c->transposed)
                    oidx[d] = num;
                  else
                    {
                      ok &= num % c->stride[d] == 0;
                      oidx[d] = num / c->stride[d];
                    }
                  ok &= num >= 0 && oidx[d] >= 0 && oidx[d] < r->out[d];
                }
              if (!ok)
                continue;
              wi = c->transposed ? ((ci * cout_g + co_g) * ktotal + kp) : ((co * cin_g + ci % cin_g) * ktotal + kp);
              xi = (b * c->cin + ci) * intotal + ip;
              yi = (b * c->cout + co) * ototal + lin (oidx, r->out, ns);
              if (mode == 0)
                r->y[yi] += r->x[xi] * r->w[wi];
              else if (mode == 1)
                r->x[xi] += r->y[yi] * r->w[wi];
              else
                r->w[wi] += r->y[yi] * r->x[xi];
            }
}

static void
assert_close (const TsView *got,
              const double *want)
{
  const double *p = got->data;

  for (gint64 i = 0; i < ts_view_numel (got); i++)
    g_assert_cmpfloat_with_epsilon (p[i], want[i], 1e-9 * MAX (1.0, fabs (want[i])));
}

static void
test_case (gconstpointer data)
{
  const Case *c = data;
  TsConvParams p = { .n_spatial = c->n_spatial, .groups = c->groups, .transposed = c->transposed };
  gint64 xs[5] = { c->n, c->cin }, ws[5], ys[5] = { c->n, c->cout };
  TsView x, w, y, gx, gw, gb, none = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree double *ry = NULL, *rx = NULL, *rw = NULL;
  Ref r = { c };
  gint64 ysize, xsize, wsize;

  ws[0] = c->transposed ? c->cin : c->cout;
  ws[1] = c->transposed ? c->cout / c->groups : c->cin / c->groups;
  for (guint d = 0; d < c->n_spatial; d++)
    {
      p.stride[d] = c->stride[d];
      p.padding[d] = c->padding[d];
      p.dilation[d] = c->dilation[d];
      p.output_padding[d] = c->output_padding[d];
      xs[2 + d] = c->in[d];
      ws[2 + d] = c->k[d];
      ys[2 + d] = r.out[d] = ts_conv_output_size (&p, d, c->in[d], c->k[d]);
    }
  new_view (&x, c->n_spatial + 2, xs);
  new_view (&w, c->n_spatial + 2, ws);
  new_view (&y, c->n_spatial + 2, ys);
  new_view (&gx, c->n_spatial + 2, xs);
  new_view (&gw, c->n_spatial + 2, ws);
  new_view (&gb, 1, ys + 1);
  fill (&x, 1);
  fill (&w, 2);
  xsize = ts_view_numel (&x);
  wsize = ts_view_numel (&w);
  ysize = ts_view_numel (&y);

  /* forward */
  g_assert_true (ts_cpu_conv (&p, &x, &w, &none, &y, &error));
  g_assert_no_error (error);
  ry = g_new0 (double, ysize);
  r.x = x.data;
  r.w = w.data;
  r.y = ry;
  reference (&r, 0);
  assert_close (&y, ry);

  /* the gradients of a gradient of output y's values */
  fill (&y, 3);
  g_assert_true (ts_cpu_conv_backward_input (&p, &y, &w, &gx, &error));
  g_assert_true (ts_cpu_conv_backward_weight (&p, &y, &x, &gw, &gb, &error));
  rx = g_new0 (double, xsize);
  rw = g_new0 (double, wsize);
  r.y = y.data;
  r.x = rx;
  reference (&r, 1);
  assert_close (&gx, rx);
  r.x = x.data;
  r.w = rw;
  reference (&r, 2);
  assert_close (&gw, rw);

  g_free (x.data);
  g_free (w.data);
  g_free (y.data);
  g_free (gx.data);
  g_free (gw.data);
  g_free (gb.data);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/cpu-conv/%s", cases[i].name);

      g_test_add_data_func (path, &cases[i], test_case);
    }
  return g_test_run ();
}
