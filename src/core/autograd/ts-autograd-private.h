/* ts-autograd-private.h: what the node code and the engine share
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-autograd.h"
#include "ts-ops.h"

G_BEGIN_DECLS

typedef struct
{
  guint64        id;
  gpointer       fn;
  gpointer       user_data;
  GDestroyNotify destroy;
} TsAutogradHook;

/* A list of TsAutogradHook, refcounted (g_ptr_array_ref): a leaf's tensor
 * hooks are shared by its metadata and its AccumulateGrad node. */
GPtrArray  *ts_autograd_hook_list_new  (void);
guint64     ts_autograd_hook_list_add  (GPtrArray      *list,
                                        gpointer        fn,
                                        gpointer        user_data,
                                        GDestroyNotify  destroy);

typedef struct
{
  TsTensor *data;          /* NULL once released */
  guint     version;       /* the version when saved */
  gboolean  is_output;     /* the node's own output: data has no metadata */
  guint     output_nr;
  gboolean  requires_grad;
} TsSavedTensor;

struct _TsGradNode
{
  const char       *name;
  TsBackwardFn      backward;
  guint64           sequence_nr;
  guint             n_inputs;
  guint             n_outputs;
  TsGradEdge       *next_edges;      /* n_inputs */
  TsGradTensorInfo *input_info;      /* n_inputs */
  TsGradTensorInfo *output_info;     /* n_outputs */
  int               stream_device;   /* -1: no stream */
  TsStreamId        stream;
  GArray           *saved;           /* TsSavedTensor */
  gboolean          released;
  GPtrArray        *pre_hooks;       /* NULL until used */
  GPtrArray        *post_hooks;
  GPtrArray       **tensor_pre_hooks;  /* n_outputs lists, entries NULL until used */
  TsTensor        **retains_grad;    /* n_outputs weak pointers, NULL until used */
  TsTensor         *variable;        /* AccumulateGrad: the leaf (a reference) */
  gpointer          attrs;
  GDestroyNotify    attrs_clear;     /* NULL, or drops what attrs holds */
  GDestroyNotify    attrs_release;   /* NULL, or releases attrs' saved state */
  gpointer          anomaly;         /* anomaly mode: where the forward ran */
};

struct _TsAutogradMeta
{
  gboolean    requires_grad;       /* a leaf's flag; a non-leaf requires grad */
  TsTensor   *grad;
  TsGradNode *grad_fn;             /* a reference */
  guint       output_nr;
  TsGradNode *grad_accumulator;    /* weak: cleared when the node goes */
  gboolean    retains_grad;
  GPtrArray  *hooks;               /* tensor hooks of a leaf */
  GPtrArray  *post_accumulate_hooks;
  TsTensor   *base;                /* a view's base (a reference; PyTorch's ViewInfo) */
  gboolean    view_no_grad;        /* the view was taken with grad mode off */
};

/* Protects the weak pointers (grad_accumulator, retains_grad). */
void        ts_autograd_lock           (void);
void        ts_autograd_unlock         (void);

TsAutogradMeta *ts_autograd_ensure_meta (TsTensor      *tensor);
void        ts_grad_tensor_info_set    (TsGradTensorInfo *info,
                                        const TsTensor   *tensor);
gboolean    ts_grad_node_is_accumulate_grad (TsGradNode *node);
/* AccumulateGrad's work: steal is TRUE when nothing else holds new_grad. */
gboolean    ts_autograd_accumulate_grad (TsGradNode    *node,
                                         TsTensor      *new_grad,
                                         gboolean       steal,
                                         GError       **error);
/* After ts_autograd_record made node for an in-place op on a view of a
 * tensor: the base's history goes through CopySlices (fn: node) and the
 * view's through AsStridedBackward0 (ts-autograd-views.c). */
void        ts_autograd_rebase_view    (TsGradNode    *node,
                                        TsTensor      *view);
/* Anomaly mode (ts-autograd-anomaly.c): a new node remembers where its
 * forward ran; a node's NaN results fail the pass; a failing node reports
 * where its forward ran. */
void        ts_autograd_anomaly_capture (TsGradNode   *node);
void        ts_autograd_anomaly_free   (gpointer       metadata);
gboolean    ts_autograd_anomaly_check  (TsGradNode    *node,
                                        TsTensor     **results,
                                        guint          n_results,
                                        GError       **error);
void        ts_autograd_anomaly_report (TsGradNode    *node);
/* The stream ops in use. */
const TsAutogradStreamOps *ts_autograd_get_stream_ops (gpointer *user_data);
/* A new tensor of zeros or ones like info describes. */
TsTensor   *ts_autograd_new_filled     (const TsGradTensorInfo *info,
                                        double                  value,
                                        GError                **error);
/* A new tensor of @device, @dtype and shape, every element @value. */
TsTensor   *ts_autograd_new_full       (TsDevice                device,
                                        TsDType                 dtype,
                                        guint                   ndim,
                                        const gint64           *shape,
                                        const TsScalar         *value,
                                        GError                **error);

G_END_DECLS
