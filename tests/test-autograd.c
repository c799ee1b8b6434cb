/* test-autograd.c: the autograd engine on graphs built by hand with the
 * reference formulas
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Expected values and messages come from Debian's PyTorch 1.13.1
 * (python3-torch), by the Python snippet quoted above each constant:
 * /usr/bin/python3 -c 'import torch; ...'.
 */

#include <glib.h>
#include <math.h>
#include <string.h>

#include "ts-autograd.h"
#include "ts-autograd-formulas.h"
#include "ts-ops.h"
#include "ts-ops-shape.h"
#include "ts-session.h"
#include "test-helpers-session.h"

#define CPU TS_DEVICE_CPU_VALUE
#define CUDA0 ((TsDevice) { TS_DEVICE_CUDA, 0 })

/* ------------------------------------------------------------------ */
/* Helpers */

/* A TsTensorHookFn and a TsNodePostHookFn */
#define TENSOR_HOOK(name) \
  static gboolean name (TsTensor *grad, TsTensor **replacement, gpointer user_data, \
                        GError **error)
#define POST_HOOK(name) \
  static gboolean name (TsGradNode *node, TsTensor **grad_inputs, guint n_inputs, \
                        TsTensor **grad_outputs, guint n_outputs, gpointer user_data, \
                        GError **error)

static TsTensor *
make (TsDevice      device,
      guint         ndim,
      const gint64 *shape,
      const float  *values,
      gboolean      requires_grad)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) host = ts_tensor_new_empty (CPU, TS_DTYPE_FLOAT32, ndim, shape, FALSE,
                                                  &error);
  TsTensor *t;

  g_assert_no_error (error);
  memcpy (ts_tensor_data (host), values, ts_tensor_nbytes (host));
  if (device.type == TS_DEVICE_CUDA)
    t = ts_ops_to (host, device, TS_DTYPE_FLOAT32, FALSE, TRUE, &error);
  else
    t = ts_tensor_ref (host);
  g_assert_no_error (error);
  g_assert_true (ts_autograd_set_requires_grad (t, requires_grad, &error));
  g_assert_no_error (error);
  return t;
}

static TsTensor *
make1 (const float *values,
       gint64       n,
       gboolean     requires_grad)
{
  return make (CPU, 1, &n, values, requires_grad);
}

static TsTensor *
scalar (float    value,
        gboolean requires_grad)
{
  return make (CPU, 0, NULL, &value, requires_grad);
}

static void
assert_values (TsTensor     *t,
               const double *expected,
               gint64        n,
               double        tolerance)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) host = NULL;

  g_assert_nonnull (t);
  g_assert_cmpint (ts_tensor_numel (t), ==, n);
  host = ts_ops_to_host (t, &error);
  g_assert_no_error (error);
  for (gint64 i = 0; i < n; i++)
    {
      double v = ts_tensor_get_double (host, i);

      if (tolerance == 0)
        g_assert_cmpfloat (v, ==, expected[i]);
      else
        g_assert_cmpfloat_with_epsilon (v, expected[i], tolerance);
    }
}

static void
backward_ok (TsTensor *root,
             gboolean  retain_graph,
             gboolean  create_graph)
{
  g_autoptr(GError) error = NULL;

  gboolean ok = ts_autograd_backward (&root, 1, NULL, retain_graph, create_graph, NULL, 0,
                                      &error);

  g_assert_no_error (error);
  g_assert_true (ok);
}

#define OK(expr) ({ g_autoptr(GError) ok_error = NULL; \
                    TsTensor *ok_t = (expr); \
                    g_assert_no_error (ok_error); g_assert_nonnull (ok_t); ok_t; })
/* the expression uses &ok_error as its error */
#define E (&ok_error)

/* ------------------------------------------------------------------ */
/* Gradients of small expressions */

/* x = torch.tensor([1.,2.,3.], requires_grad=True)
 * w = torch.tensor([0.5,-1.,2.], requires_grad=True)
 * out = ((x*w + x) / w - (-x)).sum(); out.backward()
 * -> 13.5 [4.0, 1.0, 2.5] [-4.0, -2.0, -0.75] */
static void
test_arithmetic (void)
{
  const float xv[] = { 1, 2, 3 }, wv[] = { 0.5f, -1, 2 };
  const double out_expected = 13.5;
  const double x_grad[] = { 4.0, 1.0, 2.5 }, w_grad[] = { -4.0, -2.0, -0.75 };
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) w = make1 (wv, 3, TRUE);
  g_autoptr(TsTensor) xw = OK (ts_autograd_mul (x, w, E));
  g_autoptr(TsTensor) sum = OK (ts_autograd_add (xw, x, E));
  g_autoptr(TsTensor) q = OK (ts_autograd_div (sum, w, E));
  g_autoptr(TsTensor) nx = OK (ts_autograd_neg (x, E));
  g_autoptr(TsTensor) d = OK (ts_autograd_sub (q, nx, E));
  g_autoptr(TsTensor) out = OK (ts_autograd_sum (d, E));
  TsGradEdge edge;

  g_assert_cmpstr (ts_grad_node_get_name (ts_autograd_get_grad_fn (out, NULL)), ==,
                   "SumBackward0");
  g_assert_cmpstr (ts_grad_node_get_name (ts_autograd_get_grad_fn (d, NULL)), ==, "SubBackward0");
  /* next_functions of MulBackward0: two AccumulateGrad */
  edge = ts_grad_node_get_next_edge (ts_autograd_get_grad_fn (xw, NULL), 0);
  g_assert_cmpstr (ts_grad_node_get_name (edge.node), ==, "torch::autograd::AccumulateGrad");
  g_assert_false (ts_autograd_is_leaf (out));
  g_assert_true (ts_autograd_is_leaf (x));

  assert_values (out, &out_expected, 1, 0);
  backward_ok (out, FALSE, FALSE);
  assert_values (ts_autograd_get_grad (x), x_grad, 3, 0);
  assert_values (ts_autograd_get_grad (w), w_grad, 3, 0);
  /* non-leaves keep no .grad unless retain_grad() */
  g_assert_null (ts_autograd_get_grad (d));
}

/* out = (x.exp().log() * w).relu().mean(); out.backward()
 * -> 2.1666667461395264 [0.1666666716337204, -0.0, 0.6666666865348816]
 *                       [0.3333333134651184, 0.0, 1.0] */
static void
test_unary_and_reductions (void)
{
  const float xv[] = { 1, 2, 3 }, wv[] = { 0.5f, -1, 2 };
  const double out_expected = 2.1666667461395264;
  const double x_grad[] = { 0.1666666716337204, -0.0, 0.6666666865348816 };
  const double w_grad[] = { 0.3333333134651184, 0.0, 1.0 };
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) w = make1 (wv, 3, TRUE);
  g_autoptr(TsTensor) e = OK (ts_autograd_exp (x, E));
  g_autoptr(TsTensor) l = OK (ts_autograd_log (e, E));
  g_autoptr(TsTensor) m = OK (ts_autograd_mul (l, w, E));
  g_autoptr(TsTensor) r = OK (ts_autograd_relu (m, E));
  g_autoptr(TsTensor) out = OK (ts_autograd_mean (r, E));

  g_assert_cmpstr (ts_grad_node_get_name (ts_autograd_get_grad_fn (out, NULL)), ==,
                   "MeanBackward0");
  assert_values (out, &out_expected, 1, 1e-6);
  backward_ok (out, FALSE, FALSE);
  assert_values (ts_autograd_get_grad (x), x_grad, 3, 1e-6);
  assert_values (ts_autograd_get_grad (w), w_grad, 3, 1e-6);
}

/* A = torch.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True)
 * B = torch.tensor([[1.,-1.],[0.5,2.],[3.,0.25]], requires_grad=True)
 * out = (A.mm(B) * A.mm(B)).sum(); out.backward()
 * -> 791.5625 [[14.5, 26.0, 67.875], [34.0, 54.5, 150.75]]
 *             [[218.0, 67.5], [289.0, 90.0], [360.0, 112.5]] */
static void
test_matmul (void)
{
  const gint64 a_shape[] = { 2, 3 }, b_shape[] = { 3, 2 };
  const float av[] = { 1, 2, 3, 4, 5, 6 }, bv[] = { 1, -1, 0.5f, 2, 3, 0.25f };
  const double out_expected = 791.5625;
  const double a_grad[] = { 14.5, 26.0, 67.875, 34.0, 54.5, 150.75 };
  const double b_grad[] = { 218.0, 67.5, 289.0, 90.0, 360.0, 112.5 };
  g_autoptr(TsTensor) a = make (CPU, 2, a_shape, av, TRUE);
  g_autoptr(TsTensor) b = make (CPU, 2, b_shape, bv, TRUE);
  g_autoptr(TsTensor) p = OK (ts_autograd_mm (a, b, E));
  g_autoptr(TsTensor) q = OK (ts_autograd_mm (a, b, E));
  g_autoptr(TsTensor) sq = OK (ts_autograd_mul (p, q, E));
  g_autoptr(TsTensor) out = OK (ts_autograd_sum (sq, E));

  g_assert_cmpstr (ts_grad_node_get_name (ts_autograd_get_grad_fn (p, NULL)), ==, "MmBackward0");
  assert_values (out, &out_expected, 1, 0);
  backward_ok (out, FALSE, FALSE);
  assert_values (ts_autograd_get_grad (a), a_grad, 6, 0);
  assert_values (ts_autograd_get_grad (b), b_grad, 6, 0);
}

/* Broadcasting: the engine sums a gradient down to the input's shape.
 * x = torch.tensor([1.,2.,3.], requires_grad=True)
 * y = torch.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True)
 * (x * y).sum().backward() -> [5.0, 7.0, 9.0] [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]] */
static void
test_broadcast (void)
{
  const gint64 y_shape[] = { 2, 3 };
  const float xv[] = { 1, 2, 3 }, yv[] = { 1, 2, 3, 4, 5, 6 };
  const double x_grad[] = { 5, 7, 9 }, y_grad[] = { 1, 2, 3, 1, 2, 3 };
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) y = make (CPU, 2, y_shape, yv, TRUE);
  g_autoptr(TsTensor) p = OK (ts_autograd_mul (x, y, E));
  g_autoptr(TsTensor) out = OK (ts_autograd_sum (p, E));

  backward_ok (out, FALSE, FALSE);
  g_assert_cmpuint (ts_autograd_get_grad (x)->ndim, ==, 1);
  assert_values (ts_autograd_get_grad (x), x_grad, 3, 0);
  assert_values (ts_autograd_get_grad (y), y_grad, 6, 0);
}

/* ------------------------------------------------------------------ */
/* Accumulation */

/* Several consumers: y = x*2, z = x*3, (y + z).sum(): x.grad = 5; a second
 * graph adds 5 more in place (no create_graph: grad += new). */
static void
test_accumulation (void)
{
  const float xv[] = { 1, 2, 3 };
  const double five[] = { 5, 5, 5 }, ten[] = { 10, 10, 10 };
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) two = scalar (2, FALSE);
  g_autoptr(TsTensor) three = scalar (3, FALSE);
  TsTensor *grad;
  guint version;

  for (int round = 0; round < 2; round++)
    {
      g_autoptr(TsTensor) y = OK (ts_autograd_mul (x, two, E));
      g_autoptr(TsTensor) z = OK (ts_autograd_mul (x, three, E));
      g_autoptr(TsTensor) s = OK (ts_autograd_add (y, z, E));
      g_autoptr(TsTensor) out = OK (ts_autograd_sum (s, E));

      if (round == 0)
        {
          backward_ok (out, FALSE, FALSE);
          assert_values (ts_autograd_get_grad (x), five, 3, 0);
          grad = ts_autograd_get_grad (x);
          version = ts_autograd_get_version (grad);
        }
      else
        {
          backward_ok (out, FALSE, FALSE);
          /* the same tensor, summed into in place */
          g_assert_true (ts_autograd_get_grad (x) == grad);
          g_assert_cmpuint (ts_autograd_get_version (grad), ==, version + 1);
          assert_values (ts_autograd_get_grad (x), ten, 3, 0);
        }
    }

  /* zero_grad(set_to_none=True) */
  ts_autograd_set_grad (x, NULL);
  g_assert_null (ts_autograd_get_grad (x));
}

/* A post-hook that keeps (a reference to) the node's first result. */
POST_HOOK (keep_result)
{
  *(TsTensor **) user_data = ts_tensor_ref (grad_inputs[0]);
  return TRUE;
}

/* AccumulateGrad steals a gradient nothing else holds, and copies one the
 * caller holds (a root gradient passed straight through). */
static void
test_accumulate_steal (void)
{
  const float xv[] = { 1, 2, 3 }, gv[] = { 1, 1, 1 };
  const double minus_ones[] = { -1, -1, -1 }, ones[] = { 1, 1, 1 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) x2 = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) zero = scalar (0, FALSE);
  g_autoptr(TsTensor) g = make1 (gv, 3, FALSE);
  g_autoptr(TsTensor) neg = OK (ts_autograd_neg (x, E));
  g_autoptr(TsTensor) z = OK (ts_autograd_add (x2, zero, E));
  g_autoptr(TsTensor) made = NULL;

  /* NegBackward0's result goes to x.grad */
  g_assert_true (ts_autograd_backward (&neg, 1, (TsTensor *[]) { g }, TRUE, FALSE, NULL, 0,
                                       &error));
  g_assert_no_error (error);
  assert_values (ts_autograd_get_grad (x), minus_ones, 3, 0);
  ts_autograd_set_grad (x, NULL);
  /* without hooks: stolen. With a post-hook holding the result: copied. */
  ts_grad_node_add_post_hook (ts_autograd_get_grad_fn (neg, NULL), keep_result, &made, NULL);
  g_assert_true (ts_autograd_backward (&neg, 1, (TsTensor *[]) { g }, TRUE, FALSE, NULL, 0,
                                       &error));
  g_assert_no_error (error);
  g_assert_nonnull (made);
  g_assert_true (ts_autograd_get_grad (x) != made);
  assert_values (ts_autograd_get_grad (x), minus_ones, 3, 0);

  /* identity (AddBackward0 passes the caller's root gradient through) */
  g_assert_true (ts_autograd_backward (&z, 1, (TsTensor *[]) { g }, FALSE, FALSE, NULL, 0,
                                       &error));
  g_assert_no_error (error);
  g_assert_true (ts_autograd_get_grad (x2) != g);
  assert_values (ts_autograd_get_grad (x2), ones, 3, 0);
}

/* The steal itself: a formula that remembers (without a reference) the
 * new tensor it returns finds it as the leaf's .grad. */
static TsTensor *made_by_formula;

static TS_BACKWARD_FN (remembering_backward)
{
  grad_inputs[0] = ts_ops_clone (grad_outputs[0], error);
  made_by_formula = grad_inputs[0];
  return grad_inputs[0] != NULL;
}

static void
test_accumulate_stolen (void)
{
  const float xv[] = { 1, 2, 3 }, gv[] = { 1, 1, 1 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) g = make1 (gv, 3, FALSE);
  g_autoptr(TsTensor) y = ts_ops_clone (x, NULL);
  g_autoptr(TsGradNode) node = ts_autograd_record ("CloneBackward0", remembering_backward, 0,
                                                   &x, 1, &y, 1);

  g_assert_true (ts_autograd_backward (&y, 1, (TsTensor *[]) { g }, FALSE, FALSE, NULL, 0,
                                       &error));
  g_assert_no_error (error);
  g_assert_nonnull (made_by_formula);
  g_assert_true (ts_autograd_get_grad (x) == made_by_formula);
  made_by_formula = NULL;
}

/* ------------------------------------------------------------------ */
/* retain_graph, released saved tensors and the second-backward error */

static const char second_backward[] =
  "Trying to backward through the graph a second time (or directly access saved tensors after "
  "they have already been freed). Saved intermediate values of the graph are freed when you "
  "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
  "through the graph a second time or if you need to access saved tensors after calling "
  "backward.";

static void
test_retain_graph (void)
{
  const float xv[] = { 1, 2, 3 };
  const double once[] = { 2, 4, 6 }, twice[] = { 4, 8, 12 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) sq = OK (ts_autograd_mul (x, x, E));
  g_autoptr(TsTensor) out = OK (ts_autograd_sum (sq, E));
  g_autoptr(TsTensor) unpacked = NULL;
  TsGradNode *mul = ts_autograd_get_grad_fn (sq, NULL);

  g_assert_cmpuint (ts_grad_node_get_n_saved (mul), ==, 2);
  backward_ok (out, TRUE, FALSE);
  assert_values (ts_autograd_get_grad (x), once, 3, 0);
  g_assert_false (ts_grad_node_is_released (mul));
  backward_ok (out, FALSE, FALSE);
  assert_values (ts_autograd_get_grad (x), twice, 3, 0);
  g_assert_true (ts_grad_node_is_released (mul));

  /* c.backward(); c.backward() */
  g_assert_false (ts_autograd_backward (&out, 1, NULL, FALSE, FALSE, NULL, 0, &error));
  g_assert_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME);
  g_assert_cmpstr (error->message, ==, second_backward);
  g_clear_error (&error);
  /* b.grad_fn._saved_self after backward */
  unpacked = ts_grad_node_unpack_saved (mul, 0, &error);
  g_assert_null (unpacked);
  g_assert_cmpstr (error->message, ==, second_backward);
}

/* ------------------------------------------------------------------ */
/* In-place modification of a saved tensor */

/* a = torch.tensor([1.,2.,3.], requires_grad=True); b = a + 1; c = b * b
 * b.add_(1); c.sum().backward() */
static void
test_version_error (void)
{
  const float xv[] = { 1, 2, 3 };
  const gint64 shape[] = { 2, 3 };
  const float mv[] = { 1, 2, 3, 4, 5, 6 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) a = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) one = scalar (1, FALSE);
  g_autoptr(TsTensor) b = OK (ts_autograd_add (a, one, E));
  g_autoptr(TsTensor) c = OK (ts_autograd_mul (b, b, E));
  g_autoptr(TsTensor) out = OK (ts_autograd_sum (c, E));
  g_autoptr(TsTensor) m = make (CPU, 2, shape, mv, TRUE);
  g_autoptr(TsTensor) mm = OK (ts_autograd_mul (m, m, E));
  g_autoptr(TsTensor) out2 = OK (ts_autograd_sum (mm, E));
  g_autoptr(TsTensor) view = ts_tensor_view (b, 1, (gint64[]) { 3 }, NULL);

  /* the op table bumps the version of an in-place op's output; a view
   * shares the counter */
  ts_autograd_bump_version (view);
  g_assert_cmpuint (ts_autograd_get_version (b), ==, 1);
  g_assert_false (ts_autograd_backward (&out, 1, NULL, FALSE, FALSE, NULL, 0, &error));
  g_assert_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME);
  g_assert_cmpstr (error->message, ==,
                   "one of the variables needed for gradient computation has been modified by "
                   "an inplace operation: [torch.FloatTensor [3]], which is output 0 of "
                   "AddBackward0, is at version 1; expected version 0 instead. Hint: enable "
                   "anomaly detection to find the operation that failed to compute its "
                   "gradient, with torch.autograd.set_detect_anomaly(True).");
  g_clear_error (&error);

  /* torch.ones(2, requires_grad=True).add_(1); fine under no_grad */
  g_assert_true (ts_autograd_check_inplace (b, &error));
  g_assert_false (ts_autograd_check_inplace (m, &error));
  g_assert_cmpstr (error->message, ==,
                   "a leaf Variable that requires grad is being used in an in-place operation.");
  g_clear_error (&error);
  ts_autograd_set_grad_enabled (FALSE);
  g_assert_true (ts_autograd_check_inplace (m, &error));
  ts_autograd_set_grad_enabled (TRUE);

  /* a leaf: a = torch.tensor([[1.,2.,3.],[4,5,6]], requires_grad=True)
   * b = a * a; with torch.no_grad(): a.add_(1); b.sum().backward() */
  ts_autograd_bump_version (m);
  g_assert_false (ts_autograd_backward (&out2, 1, NULL, FALSE, FALSE, NULL, 0, &error));
  g_assert_cmpstr (error->message, ==,
                   "one of the variables needed for gradient computation has been modified by "
                   "an inplace operation: [torch.FloatTensor [2, 3]] is at version 1; expected "
                   "version 0 instead. Hint: enable anomaly detection to find the operation "
                   "that failed to compute its gradient, with "
                   "torch.autograd.set_detect_anomaly(True).");
}

/* A node's own output is saved without a reference cycle, and the version
 * check still sees it: b = a.exp(); b.add_(1); b.sum().backward() gives
 * "..., which is output 0 of ExpBackward0, ..." */
static void
test_saved_output (void)
{
  const float xv[] = { 1, 2, 3 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) a = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) b = OK (ts_autograd_exp (a, E));
  g_autoptr(TsTensor) out = OK (ts_autograd_sum (b, E));
  TsGradNode *exp_fn = ts_autograd_get_grad_fn (b, NULL);
  g_autoptr(TsTensor) unpacked = ts_grad_node_unpack_saved (exp_fn, 0, &error);
  guint output_nr = 99;

  g_assert_no_error (error);
  /* a new tensor over the same bytes, whose grad_fn is ExpBackward0 again */
  g_assert_true (unpacked != b);
  g_assert_true (unpacked->storage == b->storage);
  g_assert_true (ts_autograd_get_grad_fn (unpacked, &output_nr) == exp_fn);
  g_assert_cmpuint (output_nr, ==, 0);

  ts_autograd_bump_version (b);
  g_assert_false (ts_autograd_backward (&out, 1, NULL, FALSE, FALSE, NULL, 0, &error));
  g_assert_true (strstr (error->message, "[torch.FloatTensor [3]], which is output 0 of "
                                         "ExpBackward0, is at version 1; expected version 0 "
                                         "instead.") != NULL);
}

/* An in-place op as the op table will record it: check, write, bump the
 * version, record with the tensor as input and output (the new node's
 * edge goes to the old grad_fn).
 * x = torch.tensor([1.,2,3], requires_grad=True); a = x*2; a.add_(1)
 * -> a.grad_fn AddBackward0, next_functions MulBackward0; x.grad [2, 2, 2] */
static void
test_inplace_record (void)
{
  const float xv[] = { 1, 2, 3 };
  const double two_v[] = { 2, 2, 2 };
  TsScalar one = { TS_DTYPE_INT64, 1, 1 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) two = scalar (2, FALSE);
  g_autoptr(TsTensor) a = OK (ts_autograd_mul (x, two, E));
  g_autoptr(TsTensor) written = NULL;
  g_autoptr(TsTensor) out = NULL;
  TsGradNode *mul = ts_autograd_get_grad_fn (a, NULL);
  TsGradNode *add;
  guint version = ts_autograd_get_version (a);

  /* the op table's dispatch checks, bumps and records (a.add_(1) is
   * AddBackward0: PyTorch wraps the number in a tensor) */
  written = ts_ops_binary (TS_BINARY_ADD, a, NULL, &one, FALSE, a, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ts_autograd_get_version (a), ==, version + 1);
  add = ts_autograd_get_grad_fn (a, NULL);
  g_assert_cmpstr (ts_grad_node_get_name (add), ==, "AddBackward0");
  g_assert_true (ts_grad_node_get_next_edge (add, 0).node == mul);

  out = OK (ts_autograd_sum (a, E));
  backward_ok (out, FALSE, FALSE);
  assert_values (ts_autograd_get_grad (x), two_v, 3, 0);
}

/* ------------------------------------------------------------------ */
/* Hooks */

typedef struct
{
  GString *log;
  float    scale;   /* a tensor hook's factor, 0: leave the gradient */
  const char *name;
} HookData;

static void
log_event (GString    *log,
           const char *name)
{
  g_string_append_printf (log, "%s%s", log->len ? " " : "", name);
}

TENSOR_HOOK (tensor_hook)
{
  HookData *data = user_data;
  g_autoptr(TsTensor) factor = NULL;

  log_event (data->log, data->name);
  if (data->scale != 0)
    {
      factor = scalar (data->scale, FALSE);
      *replacement = ts_ops_binary (TS_BINARY_MUL, grad, factor, NULL, FALSE, NULL, error);
    }
  return TRUE;
}

static gboolean
pre_hook (TsGradNode  *node,
          TsTensor   **grad_outputs,
          guint        n_outputs,
          gpointer     user_data,
          GError     **error)
{
  HookData *data = user_data;

  log_event (data->log, data->name);
  return TRUE;
}

POST_HOOK (post_hook)
{
  HookData *data = user_data;

  log_event (data->log, data->name != NULL ? data->name : ts_grad_node_get_name (node));
  return TRUE;
}

static gboolean
post_accumulate_hook (TsTensor  *tensor,
                      gpointer   user_data,
                      GError   **error)
{
  HookData *data = user_data;

  g_assert_nonnull (ts_autograd_get_grad (tensor));
  log_event (data->log, data->name);
  return TRUE;
}

TENSOR_HOOK (failing_hook)
{
  g_set_error_literal (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_RUNTIME, "hook failed");
  return FALSE;
}

/* x = torch.tensor([1.,2.,3.], requires_grad=True); y = x*2; z = y.sum()
 * y.register_hook(lambda g: order.append('y-hook') or g*10)
 * y.grad_fn.register_hook(lambda gi,go: order.append('mul-post'))
 * x.register_hook(lambda g: order.append('x-hook')); z.backward()
 * -> ['y-hook', 'mul-post', 'x-hook'] [20.0, 20.0, 20.0]
 * (node pre-hooks and post-accumulate-grad hooks are PyTorch 2.x: they
 * run before the formula and after .grad is set) */
static void
test_hooks_order (void)
{
  const float xv[] = { 1, 2, 3 };
  const double x_grad[] = { 20, 20, 20 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) log = g_string_new (NULL);
  HookData y_hook = { log, 10, "y-hook" }, mul_pre = { log, 0, "mul-pre" };
  HookData mul_post = { log, 0, "mul-post" }, x_hook = { log, 0, "x-hook" };
  HookData x_post = { log, 0, "x-post-accumulate" }, removed = { log, 0, "removed" };
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) two = scalar (2, FALSE);
  g_autoptr(TsTensor) y = OK (ts_autograd_mul (x, two, E));
  g_autoptr(TsTensor) z = OK (ts_autograd_sum (y, E));
  g_autoptr(TsTensor) plain = scalar (1, FALSE);
  TsGradNode *mul = ts_autograd_get_grad_fn (y, NULL);
  guint64 id;

  g_assert_cmpuint (ts_autograd_register_hook (y, tensor_hook, &y_hook, NULL, &error), >, 0);
  ts_grad_node_add_pre_hook (mul, pre_hook, &mul_pre, NULL);
  ts_grad_node_add_post_hook (mul, post_hook, &mul_post, NULL);
  g_assert_cmpuint (ts_autograd_register_hook (x, tensor_hook, &x_hook, NULL, &error), >, 0);
  g_assert_cmpuint (ts_autograd_register_post_accumulate_grad_hook (x, post_accumulate_hook,
                                                                    &x_post, NULL, &error), >, 0);
  id = ts_autograd_register_hook (x, tensor_hook, &removed, NULL, &error);
  g_assert_true (ts_autograd_remove_hook (NULL, x, id));
  g_assert_false (ts_autograd_remove_hook (NULL, x, id));
  g_assert_no_error (error);

  backward_ok (z, FALSE, FALSE);
  g_assert_cmpstr (log->str, ==, "y-hook mul-pre mul-post x-hook x-post-accumulate");
  assert_values (ts_autograd_get_grad (x), x_grad, 3, 0);

  /* torch.tensor([1.,2]).register_hook(lambda g: g) */
  g_assert_cmpuint (ts_autograd_register_hook (plain, tensor_hook, &x_hook, NULL, &error), ==, 0);
  g_assert_cmpstr (error->message, ==,
                   "cannot register a hook on a tensor that doesn't require gradient");
}

static void
test_hook_error (void)
{
  const float xv[] = { 1, 2, 3 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) y = OK (ts_autograd_neg (x, E));
  g_autoptr(TsTensor) z = OK (ts_autograd_sum (y, E));

  ts_autograd_register_hook (y, failing_hook, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (ts_autograd_backward (&z, 1, NULL, FALSE, FALSE, NULL, 0, &error));
  g_assert_cmpstr (error->message, ==, "hook failed");
  g_assert_null (ts_autograd_get_grad (x));
}

/* retain_grad() on a non-leaf */
static void
test_retain_grad (void)
{
  const float xv[] = { 1, 2, 3 };
  const double y_grad[] = { 1, 1, 1 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) y = OK (ts_autograd_exp (x, E));
  g_autoptr(TsTensor) z = OK (ts_autograd_sum (y, E));
  g_autoptr(TsTensor) plain = scalar (1, FALSE);

  g_assert_true (ts_autograd_retain_grad (y, &error));
  g_assert_true (ts_autograd_retains_grad (y));
  backward_ok (z, FALSE, FALSE);
  assert_values (ts_autograd_get_grad (y), y_grad, 3, 0);

  /* torch.tensor([1.,2]).retain_grad() */
  g_assert_false (ts_autograd_retain_grad (plain, &error));
  g_assert_cmpstr (error->message, ==, "can't retain_grad on Tensor that has requires_grad=False");
}

/* ------------------------------------------------------------------ */
/* Ready-queue order */

/* x = torch.tensor([1.,2.,3.], requires_grad=True)
 * a = x*2; b = x*3; out = a.sum() + b.sum()
 * a post-hook on every node appends its name; out.backward()
 * -> ['add', 'sumB', 'sumA', 'mulB', 'mulA', 'acc'] */
static void
test_sequence_order (void)
{
  const float xv[] = { 1, 2, 3 };
  g_autoptr(GString) log = g_string_new (NULL);
  HookData names[6] = {
    { log, 0, "mulA" }, { log, 0, "mulB" }, { log, 0, "sumA" },
    { log, 0, "sumB" }, { log, 0, "add" }, { log, 0, "acc" },
  };
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) two = scalar (2, FALSE);
  g_autoptr(TsTensor) three = scalar (3, FALSE);
  g_autoptr(TsTensor) a = OK (ts_autograd_mul (x, two, E));
  g_autoptr(TsTensor) b = OK (ts_autograd_mul (x, three, E));
  g_autoptr(TsTensor) sa = OK (ts_autograd_sum (a, E));
  g_autoptr(TsTensor) sb = OK (ts_autograd_sum (b, E));
  g_autoptr(TsTensor) out = OK (ts_autograd_add (sa, sb, E));
  TsTensor *order[6] = { a, b, sa, sb, out, NULL };
  g_autoptr(TsGradNode) acc = ts_autograd_grad_accumulator (x);

  for (guint i = 0; i < 5; i++)
    ts_grad_node_add_post_hook (ts_autograd_get_grad_fn (order[i], NULL), post_hook, &names[i],
                                NULL);
  ts_grad_node_add_post_hook (acc, post_hook, &names[5], NULL);
  g_assert_cmpuint (ts_grad_node_get_sequence_nr (ts_autograd_get_grad_fn (b, NULL)), >,
                    ts_grad_node_get_sequence_nr (ts_autograd_get_grad_fn (a, NULL)));
  g_assert_cmpuint (ts_grad_node_get_sequence_nr (acc), ==, TS_GRAD_SEQUENCE_NR_MAX);

  backward_ok (out, FALSE, FALSE);
  g_assert_cmpstr (log->str, ==, "add sumB sumA mulB mulA acc");
}

/* ------------------------------------------------------------------ */
/* grad() */

static const char unused_message[] =
  "One of the differentiated Tensors appears to not have been used in the graph. Set "
  "allow_unused=True if this is the desired behavior.";

static void
test_grad (void)
{
  const float xv[] = { 1, 2, 3 };
  const double two_v[] = { 2, 2, 2 }, zeros[] = { 0, 0, 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) u = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) plain = make1 (xv, 3, FALSE);
  g_autoptr(TsTensor) two = scalar (2, FALSE);
  g_autoptr(TsTensor) y = OK (ts_autograd_mul (x, two, E));
  g_autoptr(TsTensor) out = OK (ts_autograd_sum (y, E));
  TsTensor *inputs[2] = { x, u };
  TsTensor **grads;

  /* torch.autograd.grad((a*2).sum(), [a, b]): b unused */
  grads = ts_autograd_grad (&out, 1, inputs, 2, NULL, TRUE, FALSE, FALSE, FALSE, &error);
  g_assert_null (grads);
  g_assert_cmpstr (error->message, ==, unused_message);
  g_clear_error (&error);

  grads = ts_autograd_grad (&out, 1, inputs, 2, NULL, TRUE, FALSE, TRUE, FALSE, &error);
  g_assert_no_error (error);
  assert_values (grads[0], two_v, 3, 0);
  g_assert_null (grads[1]);
  ts_autograd_grads_free (grads, 2);
  /* grad() leaves .grad alone */
  g_assert_null (ts_autograd_get_grad (x));

  grads = ts_autograd_grad (&out, 1, inputs, 2, NULL, TRUE, FALSE, FALSE, TRUE, &error);
  g_assert_no_error (error);
  assert_values (grads[1], zeros, 3, 0);
  ts_autograd_grads_free (grads, 2);

  /* a non-leaf input: the gradient flowing into it (ones), and the nodes
   * below it do not run */
  grads = ts_autograd_grad (&out, 1, &y, 1, NULL, TRUE, FALSE, FALSE, FALSE, &error);
  g_assert_no_error (error);
  assert_values (grads[0], (const double[]) { 1, 1, 1 }, 3, 0);
  ts_autograd_grads_free (grads, 1);

  /* torch.autograd.grad((a*2).sum(), [a, torch.tensor([1.,2.,3.])]) */
  inputs[1] = plain;
  g_assert_null (ts_autograd_grad (&out, 1, inputs, 2, NULL, TRUE, FALSE, FALSE, FALSE, &error));
  g_assert_cmpstr (error->message, ==, "One of the differentiated Tensors does not require grad");
}

/* backward(inputs=[...]): only those get .grad */
static void
test_backward_inputs (void)
{
  const float xv[] = { 1, 2, 3 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) w = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) two = scalar (2, FALSE);
  g_autoptr(TsTensor) y = OK (ts_autograd_mul (x, two, E));
  g_autoptr(TsTensor) p = OK (ts_autograd_mul (y, w, E));
  g_autoptr(TsTensor) out = OK (ts_autograd_sum (p, E));

  g_assert_true (ts_autograd_backward (&out, 1, NULL, TRUE, FALSE, &w, 1, &error));
  g_assert_no_error (error);
  assert_values (ts_autograd_get_grad (w), (const double[]) { 2, 4, 6 }, 3, 0);
  g_assert_null (ts_autograd_get_grad (x));

  /* a non-leaf input: its .grad, as retain_grad() */
  g_assert_true (ts_autograd_backward (&out, 1, NULL, TRUE, FALSE, &y, 1, &error));
  g_assert_no_error (error);
  assert_values (ts_autograd_get_grad (y), (const double[]) { 1, 2, 3 }, 3, 0);
  g_assert_null (ts_autograd_get_grad (x));

  /* (a*2).sum().backward(inputs=[]) */
  g_assert_false (ts_autograd_backward (&out, 1, NULL, TRUE, FALSE, &w, 0, &error));
  g_assert_cmpstr (error->message, ==, "'inputs' argument to backward() cannot be empty.");
}

/* The roots' checks (PyTorch 1.13's texts) */
static void
test_root_errors (void)
{
  const float xv[] = { 1, 2, 3 }, gv[] = { 1, 1 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) plain = make1 (xv, 3, FALSE);
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) two = scalar (2, FALSE);
  g_autoptr(TsTensor) y = OK (ts_autograd_mul (x, two, E));
  g_autoptr(TsTensor) g = make1 (gv, 2, FALSE);

  /* torch.tensor([1.,2.,3.]).sum().backward() */
  g_assert_false (ts_autograd_backward (&plain, 1, NULL, FALSE, FALSE, NULL, 0, &error));
  g_assert_cmpstr (error->message, ==,
                   "element 0 of tensors does not require grad and does not have a grad_fn");
  g_clear_error (&error);
  /* (a*2).backward() */
  g_assert_false (ts_autograd_backward (&y, 1, NULL, FALSE, FALSE, NULL, 0, &error));
  g_assert_cmpstr (error->message, ==, "grad can be implicitly created only for scalar outputs");
  g_clear_error (&error);
  /* (a*2).backward(torch.ones(2)) */
  g_assert_false (ts_autograd_backward (&y, 1, &g, FALSE, FALSE, NULL, 0, &error));
  g_assert_cmpstr (error->message, ==,
                   "Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and "
                   "output[0] has a shape of torch.Size([3]).");
  g_clear_error (&error);
  /* b.requires_grad_(False) on a non-leaf; an integer tensor */
  g_assert_false (ts_autograd_set_requires_grad (y, FALSE, &error));
  g_assert_cmpstr (error->message, ==,
                   "you can only change requires_grad flags of leaf variables. If you want to "
                   "use a computed variable in a subgraph that doesn't require differentiation "
                   "use var_no_grad = var.detach().");
  g_clear_error (&error);
}

/* A formula that returns a gradient of the wrong shape:
 * class F(Function): backward returns torch.ones(2) for a [3] input
 * -> "Function FBackward returned an invalid gradient at index 0 - got [2]
 *     but expected shape compatible with [3]" */
static TS_BACKWARD_FN (bad_backward)
{
  const float ones[] = { 1, 1 };

  grad_inputs[0] = make1 (ones, 2, FALSE);
  return TRUE;
}

static void
test_invalid_gradient (void)
{
  const float xv[] = { 1, 2, 3 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) y = ts_ops_clone (x, NULL);
  g_autoptr(TsGradNode) node = ts_autograd_record ("FBackward", bad_backward, 0, &x, 1, &y, 1);
  g_autoptr(TsTensor) out = OK (ts_autograd_sum (y, E));

  g_autoptr(TsTensor) y2 = ts_ops_clone (x, NULL);
  g_autoptr(TsGradNode) no_formula = ts_autograd_record ("FooBackward0", NULL, 0, &x, 1, &y2, 1);

  g_assert_nonnull (node);
  g_assert_false (ts_autograd_backward (&out, 1, NULL, FALSE, FALSE, NULL, 0, &error));
  g_assert_cmpstr (error->message, ==,
                   "Function FBackward returned an invalid gradient at index 0 - got [2] but "
                   "expected shape compatible with [3]");
  g_clear_error (&error);

  /* an op with no formula in its slot */
  g_assert_false (ts_autograd_backward (&y2, 1, &x, FALSE, FALSE, NULL, 0, &error));
  g_assert_error (error, TS_TENSOR_ERROR, TS_TENSOR_ERROR_NOT_IMPLEMENTED);
  g_assert_null (ts_autograd_get_grad (x));
}

/* ------------------------------------------------------------------ */
/* create_graph: second order */

/* x = torch.tensor(2., requires_grad=True); y = x*x*x
 * g, = torch.autograd.grad(y, [x], create_graph=True) -> 12.0, AddBackward0
 * torch.autograd.grad(g, [x]) -> 12.0 (6x)
 * y.backward(create_graph=True): x.grad 12, grad_fn CopyBackwards */
static void
test_create_graph (void)
{
  const double twelve = 12.0;
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) x = scalar (2, TRUE);
  g_autoptr(TsTensor) xx = OK (ts_autograd_mul (x, x, E));
  g_autoptr(TsTensor) y = OK (ts_autograd_mul (xx, x, E));
  TsTensor **first, **second;

  first = ts_autograd_grad (&y, 1, &x, 1, NULL, TRUE, TRUE, FALSE, FALSE, &error);
  g_assert_no_error (error);
  assert_values (first[0], &twelve, 1, 0);
  g_assert_true (ts_autograd_requires_grad (first[0]));
  g_assert_cmpstr (ts_grad_node_get_name (ts_autograd_get_grad_fn (first[0], NULL)), ==,
                   "AddBackward0");

  second = ts_autograd_grad (first, 1, &x, 1, NULL, FALSE, FALSE, FALSE, FALSE, &error);
  g_assert_no_error (error);
  assert_values (second[0], &twelve, 1, 0);
  g_assert_false (ts_autograd_requires_grad (second[0]));
  ts_autograd_grads_free (first, 1);
  ts_autograd_grads_free (second, 1);
  /* grad mode is back on after the passes */
  g_assert_true (ts_autograd_is_grad_enabled ());

  /* the second pass freed y's graph too: the first one's graph runs
   * through it (MulBackward0 of x*x); a new one */
  g_clear_pointer (&y, ts_tensor_unref);
  g_clear_pointer (&xx, ts_tensor_unref);
  xx = OK (ts_autograd_mul (x, x, E));
  y = OK (ts_autograd_mul (xx, x, E));
  backward_ok (y, TRUE, TRUE);
  assert_values (ts_autograd_get_grad (x), &twelve, 1, 0);
  g_assert_cmpstr (ts_grad_node_get_name (ts_autograd_get_grad_fn (ts_autograd_get_grad (x),
                                                                   NULL)), ==, "CopyBackwards");
  /* y2 = x*x*x; y2.backward(create_graph=True) -> 24, AddBackward0 */
  backward_ok (y, FALSE, TRUE);
  assert_values (ts_autograd_get_grad (x), (const double[]) { 24 }, 1, 0);
  g_assert_cmpstr (ts_grad_node_get_name (ts_autograd_get_grad_fn (ts_autograd_get_grad (x),
                                                                   NULL)), ==, "AddBackward0");
  /* x.grad's graph holds x: break the cycle */
  ts_autograd_set_grad (x, NULL);
}

/* ------------------------------------------------------------------ */
/* Memory */

static gint64
allocated (void)
{
  g_autoptr(GHashTable) stats = ts_session_memory_stats (0);
  gint64 *v = g_hash_table_lookup (stats, "allocated_bytes.all.current");

  g_assert_nonnull (v);
  return *v;
}

/* Saved tensors go when their node has run: y = x.exp() saves y; with no
 * other reference to y, its block is freed by backward (PyTorch's
 * memory_allocated() drops as the pass goes); the graph itself goes with
 * the last reference to its root. */
static void
test_memory (void)
{
  const gint64 shape[] = { 256 };
  float values[256] = { 0 };
  gint64 before, with_graph, after_backward;
  TsGradNode *exp_fn;
  g_autoptr(TsTensor) x = make (CUDA0, 1, shape, values, TRUE);
  g_autoptr(TsTensor) out = NULL;
  g_autoptr(TsGradNode) keep = NULL;

  before = allocated ();
  {
    g_autoptr(TsTensor) y = OK (ts_autograd_exp (x, E));
    out = OK (ts_autograd_sum (y, E));
    exp_fn = ts_autograd_get_grad_fn (y, NULL);
    keep = ts_grad_node_ref (exp_fn);
  }
  /* y's bytes live on in ExpBackward0's saved result */
  with_graph = allocated ();
  g_assert_cmpint (with_graph, >=, before + 1024);
  backward_ok (out, FALSE, FALSE);
  g_assert_true (ts_grad_node_is_released (keep));
  after_backward = allocated ();
  /* y's 1024 bytes went; x.grad's 1024 came */
  g_assert_cmpint (after_backward, <=, with_graph);
  ts_autograd_set_grad (x, NULL);
  g_assert_cmpint (allocated (), <=, with_graph - 1024);
  g_clear_pointer (&keep, ts_grad_node_unref);
  g_clear_pointer (&out, ts_tensor_unref);
  g_assert_cmpint (allocated (), ==, before);
}

/* A long chain frees without deep recursion. */
static void
test_long_chain (void)
{
  const float one = 1;
  g_autoptr(TsTensor) x = scalar (one, TRUE);
  TsTensor *t = ts_tensor_ref (x);

  for (int i = 0; i < 100000; i++)
    {
      TsTensor *next = OK (ts_autograd_neg (t, E));
      ts_tensor_unref (t);
      t = next;
    }
  ts_tensor_unref (t);
}

/* ------------------------------------------------------------------ */
/* Streams */

typedef struct
{
  GString   *log;
  TsStreamId current[4];
} FakeStreams;

static TsStreamId
fake_current (int      device,
              gpointer user_data)
{
  return ((FakeStreams *) user_data)->current[device];
}

static TsStreamId
fake_default (int      device,
              gpointer user_data)
{
  return 100 + device;
}

static gboolean
fake_set_current (int          device,
                  TsStreamId   stream,
                  gpointer     user_data,
                  GError     **error)
{
  FakeStreams *fake = user_data;

  fake->current[device] = stream;
  g_string_append_printf (fake->log, "%sset:%u", fake->log->len ? " " : "", stream);
  return TRUE;
}

static gboolean
fake_record_and_wait (int          device,
                      TsStreamId   producer,
                      TsStreamId   consumer,
                      gpointer     user_data,
                      GError     **error)
{
  FakeStreams *fake = user_data;

  g_string_append_printf (fake->log, "%swait:%u<-%u", fake->log->len ? " " : "", consumer,
                          producer);
  return TRUE;
}

static const TsAutogradStreamOps fake_ops = {
  fake_current, fake_default, fake_set_current, fake_record_and_wait, NULL, NULL,
};

/* Each node's backward runs on its forward's stream; a gradient made on
 * another stream is waited for; the caller's stream waits for the leaves'.
 *   current 1: a = x * x            (MulBackward0 on stream 1)
 *   current 2: b = a.neg()          (NegBackward0 on stream 2)
 *   current 100 (default): out = b.sum()  (SumBackward0 on 100)
 * AccumulateGrad of x: made with the first use of x, on stream 1. */
static void
test_streams (void)
{
  const gint64 shape[] = { 4 };
  const float values[] = { 1, 2, 3, 4 };
  FakeStreams fake = { g_string_new (NULL), { 100, 101, 102, 103 } };
  g_autoptr(TsTensor) x = make (CUDA0, 1, shape, values, TRUE);
  g_autoptr(TsTensor) a = NULL, b = NULL, out = NULL;
  int device;

  ts_autograd_set_stream_ops (&fake_ops, &fake);
  fake.current[0] = 1;
  a = OK (ts_autograd_mul (x, x, E));
  fake.current[0] = 2;
  b = OK (ts_autograd_neg (a, E));
  fake.current[0] = 100;
  out = OK (ts_autograd_sum (b, E));
  g_assert_cmpuint (ts_grad_node_get_stream (ts_autograd_get_grad_fn (b, &(guint) { 0 }),
                                             &device), ==, 2);
  g_assert_cmpint (device, ==, 0);

  backward_ok (out, FALSE, FALSE);
  /* The root gradient is made on 100, SumBackward0's stream: no wait. */
  g_assert_cmpstr (fake.log->str, ==,
                   "wait:2<-100 "              /* SumBackward0 (100) hands to 2 */
                   "set:2 wait:1<-2 set:100 "  /* NegBackward0 on 2 hands to 1 */
                   "set:1 set:100 "            /* MulBackward0 on 1: both to AccumulateGrad (1) */
                   "set:1 set:100 "            /* AccumulateGrad on 1 */
                   "wait:100<-1");             /* the caller's stream waits for the leaf's */
  assert_values (ts_autograd_get_grad (x), (const double[]) { -2, -4, -6, -8 }, 4, 0);
  ts_autograd_set_stream_ops (NULL, NULL);
  g_string_free (fake.log, TRUE);
}

/* The names of the API calls recorded since first that are no aten op
 * and no CUDA call, in the order they ended. */
static char *
api_names_since (TsRecorder *recorder,
                 gsize       first)
{
  GString *names = g_string_new (NULL);
  TsApiCallRecord call;

  for (gsize i = first; i < ts_recorder_get_count (recorder, TS_RECORD_API_CALL); i++)
    {
      const char *name;

      g_assert_true (ts_recorder_get (recorder, TS_RECORD_API_CALL, i, &call));
      name = ts_recorder_lookup (recorder, call.name);
      if (g_str_has_prefix (name, "aten::") || g_str_has_prefix (name, "cuda"))
        continue;
      g_string_append_printf (names, "%s%s", names->len ? " " : "", name);
    }
  return g_string_free (names, FALSE);
}

/* The same through the session's streams (the simulated runtime): the
 * backward of an op made on a side stream runs there (x.grad's block is
 * allocated on it), and the caller's stream waits for it, so reading
 * x.grad on the default stream sees the finished values. */
static void
test_session_streams (void)
{
  const gint64 shape[] = { 4 };
  const float values[] = { 1, 2, 3, 4 };
  g_autoptr(GError) error = NULL;
  TsRuntime *runtime = ts_session_get_runtime ();
  TsStreamId main_stream = ts_session_current_stream (0);
  TsStreamId side = ts_runtime_stream_new (runtime, 0, 0, &error);
  g_autoptr(TsTensor) x = make (CUDA0, 1, shape, values, TRUE);
  g_autoptr(TsTensor) a = NULL, out = NULL;
  TsRecorder *recorder = ts_session_get_recorder ();
  TsEventWaitRecord wait;
  gsize waits, api_calls;
  g_autofree char *names = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (side, !=, main_stream);
  g_assert_true (ts_runtime_set_current_stream (runtime, side, &error));
  a = OK (ts_autograd_mul (x, x, E));
  g_assert_true (ts_runtime_set_current_stream (runtime, main_stream, &error));
  out = OK (ts_autograd_sum (a, E));
  g_assert_true (ts_runtime_device_synchronize (runtime, 0, &error));
  waits = ts_recorder_get_count (recorder, TS_RECORD_EVENT_WAIT);
  api_calls = ts_recorder_get_count (recorder, TS_RECORD_API_CALL);

  backward_ok (out, FALSE, FALSE);
  g_assert_cmpuint (ts_session_current_stream (0), ==, main_stream);
  g_assert_cmpuint (ts_autograd_get_grad (x)->storage->stream, ==, side);
  /* SumBackward0 (main) hands to MulBackward0 (side): side waits for main;
   * at the end main waits for AccumulateGrad's stream (side). The device
   * writes its records as it runs. */
  g_assert_true (ts_runtime_device_synchronize (runtime, 0, &error));
  g_assert_cmpuint (ts_recorder_get_count (recorder, TS_RECORD_EVENT_WAIT), ==, waits + 2);
  g_assert_true (ts_recorder_get (recorder, TS_RECORD_EVENT_WAIT, waits, &wait));
  g_assert_cmpuint (wait.stream, ==, side);
  g_assert_true (ts_recorder_get (recorder, TS_RECORD_EVENT_WAIT, waits + 1, &wait));
  g_assert_cmpuint (wait.stream, ==, main_stream);
  assert_values (ts_autograd_get_grad (x), (const double[]) { 2, 4, 6, 8 }, 4, 0);

  /* the profiler's ranges, as PyTorch's: the engine's around the node,
   * the node's around its formula, the formula's ops inside */
  names = api_names_since (recorder, api_calls);
  g_assert_cmpstr (names, ==,
                   "SumBackward0 autograd::engine::evaluate_function: SumBackward0 "
                   "MulBackward0 autograd::engine::evaluate_function: MulBackward0 "
                   "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad");
}

/* Several roots, one reachable from the other: y = x*2; z = y*3;
 * torch.autograd.backward([y.sum(), z.sum()]) -> x.grad = [8, 8, 8]; a
 * hook on x sees the sum of both paths once. */
TENSOR_HOOK (count_hook)
{
  const double eight[] = { 8, 8, 8 };

  assert_values (grad, eight, 3, 0);
  (*(int *) user_data)++;
  return TRUE;
}

static void
test_several_roots (void)
{
  const float xv[] = { 1, 2, 3 };
  const double eight[] = { 8, 8, 8 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) two = scalar (2, FALSE);
  g_autoptr(TsTensor) three = scalar (3, FALSE);
  g_autoptr(TsTensor) y = OK (ts_autograd_mul (x, two, E));
  g_autoptr(TsTensor) z = OK (ts_autograd_mul (y, three, E));
  g_autoptr(TsTensor) ys = OK (ts_autograd_sum (y, E));
  g_autoptr(TsTensor) zs = OK (ts_autograd_sum (z, E));
  TsTensor *roots[2] = { ys, zs };
  int calls = 0;

  ts_autograd_register_hook (x, count_hook, &calls, NULL, &error);
  g_assert_true (ts_autograd_backward (roots, 2, NULL, FALSE, FALSE, NULL, 0, &error));
  g_assert_no_error (error);
  g_assert_cmpint (calls, ==, 1);
  assert_values (ts_autograd_get_grad (x), eight, 3, 0);
}

/* ------------------------------------------------------------------ */
/* The op table's elementwise formulas against central differences, in
 * each form an op is recorded in (x op y, x op 1.7, 1.7 op x). */

static const float fd_y[] = { 0.9f, 1.6f, 0.7f };
/* x, inside the op's domain and away from its jumps (remainder and fmod
 * jump where x / y is whole: 2.1 / 0.7) */
static float fd_x[3];

static void
fd_set_x (const TsOpDesc *desc)
{
  static const float plain[] = { 0.6f, 1.3f, 2.1f }, unit[] = { 0.2f, 0.45f, -0.6f },
                     above_one[] = { 1.6f, 2.3f, 3.1f }, no_jump[] = { 0.6f, 1.3f, 2.45f };
  const float *x = plain;

  if (desc->id == TS_OP_ASIN || desc->id == TS_OP_ACOS || desc->id == TS_OP_ATANH || desc->id == TS_OP_ERFINV)
    x = unit;
  else if (desc->id == TS_OP_ACOSH)
    x = above_one;
  else if (desc->id == TS_OP_REMAINDER || desc->id == TS_OP_FMOD || desc->id == TS_OP_DIV_TRUNC ||
           desc->id == TS_OP_DIV_FLOOR)
    x = no_jump;
  memcpy (fd_x, x, sizeof fd_x);
}

static TsTensor *
fd_apply (const TsOpDesc *desc,
          TsOpGradForm    form,
          TsTensor       *x,
          TsTensor       *y)
{
  TsScalar number = { TS_DTYPE_FLOAT64, 1.7, 1 };
  g_autoptr(GError) error = NULL;
  TsTensor *out;

  if (desc->family == TS_OP_FAMILY_UNARY)
    out = ts_ops_unary (desc->kernel, x, &error);
  else if (desc->family == TS_OP_FAMILY_SOFTMAX)
    out = ts_ops_softmax (x, 0, desc->kernel == 1, &error);
  else if (form == TS_OP_GRAD_TENSOR)
    out = ts_ops_binary (desc->kernel, x, y, NULL, FALSE, NULL, &error);
  else
    out = ts_ops_binary (desc->kernel, x, NULL, &number, form == TS_OP_GRAD_REVERSED, NULL, &error);
  g_assert_no_error (error);
  return out;
}

/* The sum the gradients are of: weighted by fd_y for the softmaxes, whose
 * plain sum is 1 whatever x is. */
static TsTensor *
fd_total (const TsOpDesc *desc,
          TsTensor       *out)
{
  g_autoptr(TsTensor) w = make1 (fd_y, 3, FALSE);
  g_autoptr(TsTensor) weighted = NULL;

  if (desc->family != TS_OP_FAMILY_SOFTMAX)
    return OK (ts_autograd_sum (out, E));
  weighted = OK (ts_autograd_mul (out, w, E));
  return OK (ts_autograd_sum (weighted, E));
}

static double
fd_sum (const TsOpDesc *desc,
        TsOpGradForm    form,
        const float    *xv,
        const float    *yv)
{
  g_autoptr(TsTensor) x = make1 (xv, 3, FALSE);
  g_autoptr(TsTensor) y = make1 (yv, 3, FALSE);
  g_autoptr(TsTensor) out = fd_apply (desc, form, x, y);
  g_autoptr(TsTensor) sum = fd_total (desc, out);

  return ts_tensor_get_double (sum, 0);
}

/* d sum(op) / d operand[i], numerically */
static void
fd_gradient (const TsOpDesc *desc,
             TsOpGradForm    form,
             gboolean        wrt_y,
             double         *grad)
{
  const float h = 1e-2f;

  for (guint i = 0; i < 3; i++)
    {
      float plus[3], minus[3];

      memcpy (plus, wrt_y ? fd_y : fd_x, sizeof plus);
      memcpy (minus, plus, sizeof minus);
      plus[i] += h;
      minus[i] -= h;
      grad[i] = (fd_sum (desc, form, wrt_y ? fd_x : plus, wrt_y ? plus : fd_y) -
                 fd_sum (desc, form, wrt_y ? fd_x : minus, wrt_y ? minus : fd_y)) / (2 * h);
    }
}

static void
fd_check (const TsOpDesc *desc,
          TsOpGradForm    form)
{
  g_autoptr(TsTensor) x = make1 (fd_x, 3, TRUE);
  g_autoptr(TsTensor) y = make1 (fd_y, 3, TRUE);
  g_autoptr(TsTensor) out = fd_apply (desc, form, x, y);
  g_autoptr(TsTensor) sum = fd_total (desc, out);
  double expected[3];

  g_test_message ("%s", ts_grad_node_get_name (ts_autograd_get_grad_fn (out, NULL)));
  g_assert_cmpstr (ts_grad_node_get_name (ts_autograd_get_grad_fn (out, NULL)), ==,
                   desc->grad_names[form]);
  backward_ok (sum, FALSE, FALSE);
  fd_gradient (desc, form, FALSE, expected);
  assert_values (ts_autograd_get_grad (x), expected, 3, 2e-2);
  if (desc->family == TS_OP_FAMILY_BINARY && form == TS_OP_GRAD_TENSOR)
    {
      fd_gradient (desc, form, TRUE, expected);
      assert_values (ts_autograd_get_grad (y), expected, 3, 2e-2);
    }
}

/* x = torch.ones(3, requires_grad=True); h = x * 2; h[0].mul_(3): as in
 * PyTorch, h's history is rebased (CopySlices over MulBackward0), the
 * view's is AsStridedBackward0, and x's gradient is [6, 2, 2]. Under
 * no_grad the write records nothing. */
static void
test_inplace_view (void)
{
  const float xv[] = { 1, 1, 1 };
  const double want[] = { 6, 2, 2 };
  TsScalar three = { TS_DTYPE_INT64, 3, 3 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) x = make1 (xv, 3, TRUE);
  g_autoptr(TsTensor) two = scalar (2, FALSE);
  g_autoptr(TsTensor) h = OK (ts_autograd_mul (x, two, E));
  TsViewArgs args = { .kind = TS_VIEW_SELECT, .dim0 = 0, .start = 0 };
  g_autoptr(TsTensor) v = OK (ts_autograd_view_op (h, &args, E));
  g_autoptr(TsTensor) written = OK (ts_ops_binary (TS_BINARY_MUL, v, NULL, &three, FALSE, v, E));
  g_autoptr(TsTensor) sum = NULL;

  g_assert_cmpstr (ts_grad_node_get_name (ts_autograd_get_grad_fn (h, NULL)), ==, "torch::autograd::CopySlices");
  g_assert_cmpstr (ts_grad_node_get_name (ts_autograd_get_grad_fn (v, NULL)), ==, "AsStridedBackward0");
  sum = OK (ts_autograd_sum (h, E));
  backward_ok (sum, FALSE, FALSE);
  assert_values (ts_autograd_get_grad (x), want, 3, 0);
  ts_autograd_set_grad_enabled (FALSE);
  g_clear_pointer (&written, ts_tensor_unref);
  written = ts_ops_binary (TS_BINARY_MUL, v, NULL, &three, FALSE, v, &error);
  ts_autograd_set_grad_enabled (TRUE);
  g_assert_no_error (error);
  g_assert_cmpfloat (ts_tensor_get_double (h, 0), ==, 18);
}

/* torch.cat([a, e, b]) with e a legacy empty tensor: CatBackward0 gives
 * each input its slice of the gradient, e an empty one */
static void
test_cat (void)
{
  const float av[] = { 1, 2 }, bv[] = { 3, 4, 5 }, wv[] = { 10, 20, 30, 40, 50 };
  const double want_a[] = { 10, 20 }, want_b[] = { 30, 40, 50 };
  g_autoptr(TsTensor) a = make1 (av, 2, TRUE);
  g_autoptr(TsTensor) e = make1 (av, 0, TRUE);
  g_autoptr(TsTensor) b = make1 (bv, 3, TRUE);
  g_autoptr(TsTensor) w = make1 (wv, 5, FALSE);
  TsTensor *parts[3] = { a, e, b };
  gint64 n = 5;
  g_autoptr(TsTensor) out = ts_tensor_new_empty (ts_tensor_get_device (a), TS_DTYPE_FLOAT32, 1, &n, FALSE, NULL);
  g_autoptr(TsTensor) weighted = NULL;
  g_autoptr(TsTensor) sum = NULL;

  g_assert_true (ts_ops_cat (TS_OP_CAT, parts, 3, 0, out, TRUE, NULL));
  g_assert_cmpstr (ts_grad_node_get_name (ts_autograd_get_grad_fn (out, NULL)), ==, "CatBackward0");
  weighted = OK (ts_autograd_mul (out, w, E));
  sum = OK (ts_autograd_sum (weighted, E));
  backward_ok (sum, FALSE, FALSE);
  assert_values (ts_autograd_get_grad (a), want_a, 2, 0);
  assert_values (ts_autograd_get_grad (b), want_b, 3, 0);
  g_assert_cmpint (ts_tensor_numel (ts_autograd_get_grad (e)), ==, 0);
}

/* Anomaly mode's NaN check: sqrt(-1)'s gradient is NaN */
static void
test_anomaly_nan (void)
{
  const float xv[] = { 4, -1 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsTensor) x = make1 (xv, 2, TRUE);
  g_autoptr(TsTensor) y = OK (ts_ops_unary (TS_UNARY_SQRT, x, E));
  g_autoptr(TsTensor) sum = OK (ts_autograd_sum (y, E));

  ts_autograd_set_anomaly_enabled (TRUE, TRUE);
  g_assert_false (ts_autograd_backward (&sum, 1, NULL, TRUE, FALSE, NULL, 0, &error));
  g_assert_cmpstr (error->message, ==, "Function 'SqrtBackward0' returned nan values in its 0th output.");
  ts_autograd_set_anomaly_enabled (FALSE, TRUE);
  g_assert_true (ts_autograd_backward (&sum, 1, NULL, FALSE, FALSE, NULL, 0, NULL));
}

static void
test_table_formulas (void)
{
  for (guint i = 0; i < TS_N_OPS; i++)
    {
      const TsOpDesc *desc = ts_op_get (i);

      if (desc->backward == NULL)
        continue;
      fd_set_x (desc);
      if (desc->family == TS_OP_FAMILY_UNARY || desc->family == TS_OP_FAMILY_SOFTMAX)
        fd_check (desc, TS_OP_GRAD_TENSOR);
      if (desc->family == TS_OP_FAMILY_BINARY)
        for (TsOpGradForm form = TS_OP_GRAD_TENSOR; form <= TS_OP_GRAD_REVERSED; form++)
          /* 2 % x: no derivative in PyTorch either */
          if (!g_str_equal (desc->grad_names[form], "torch::autograd::NotImplemented"))
            fd_check (desc, form);
    }
}

int
main (int   argc,
      char *argv[])
{
  test_session_init (&argc, &argv, 2);
  g_test_add_func ("/autograd/arithmetic", test_arithmetic);
  g_test_add_func ("/autograd/unary-and-reductions", test_unary_and_reductions);
  g_test_add_func ("/autograd/matmul", test_matmul);
  g_test_add_func ("/autograd/broadcast", test_broadcast);
  g_test_add_func ("/autograd/table-formulas", test_table_formulas);
  g_test_add_func ("/autograd/inplace-view", test_inplace_view);
  g_test_add_func ("/autograd/accumulation", test_accumulation);
  g_test_add_func ("/autograd/accumulate-steal", test_accumulate_steal);
  g_test_add_func ("/autograd/accumulate-stolen", test_accumulate_stolen);
  g_test_add_func ("/autograd/retain-graph", test_retain_graph);
  g_test_add_func ("/autograd/version-error", test_version_error);
  g_test_add_func ("/autograd/saved-output", test_saved_output);
  g_test_add_func ("/autograd/inplace-record", test_inplace_record);
  g_test_add_func ("/autograd/hooks-order", test_hooks_order);
  g_test_add_func ("/autograd/hook-error", test_hook_error);
  g_test_add_func ("/autograd/retain-grad", test_retain_grad);
  g_test_add_func ("/autograd/sequence-order", test_sequence_order);
  g_test_add_func ("/autograd/grad", test_grad);
  g_test_add_func ("/autograd/backward-inputs", test_backward_inputs);
  g_test_add_func ("/autograd/root-errors", test_root_errors);
  g_test_add_func ("/autograd/invalid-gradient", test_invalid_gradient);
  g_test_add_func ("/autograd/create-graph", test_create_graph);
  g_test_add_func ("/autograd/memory", test_memory);
  g_test_add_func ("/autograd/long-chain", test_long_chain);
  g_test_add_func ("/autograd/streams", test_streams);
  g_test_add_func ("/autograd/session-streams", test_session_streams);
  g_test_add_func ("/autograd/several-roots", test_several_roots);
  g_test_add_func ("/autograd/cat", test_cat);
  g_test_add_func ("/autograd/anomaly-nan", test_anomaly_nan);
  return g_test_run ();
}
