/* ts-host-data.h: where tensor data lives on this machine
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The simulated devices keep their bytes in this machine's memory, and so
 * do CPU tensors. Two policies over that memory live here, below every
 * part that holds data (storages, device segments, staging buffers):
 *
 * The budget. Every data buffer is charged here before it is allocated,
 * and a charge that would pass the limit fails with a RuntimeError that
 * says why and names --no-data: the run goes on, where the kernel's OOM
 * killer would end it (Linux overcommits, so malloc rarely says no). The
 * limit is $TENSORSCOPE_HOST_MEMORY_LIMIT (bytes, or with a K/M/G/T
 * suffix), else the memory available when the first charge is made.
 *
 * The no-data mode (tensorscope-cli run --no-data, $TENSORSCOPE_NO_DATA=1,
 * docs/no-data.md): tensors have shapes, strides, storages and allocator
 * blocks but no bytes; kernels are not computed; whatever needs values
 * refuses with ts_host_data_refuse().
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define TS_HOST_DATA_ERROR (ts_host_data_error_quark ())

typedef enum
{
  TS_HOST_DATA_ERROR_NO_MEMORY,   /* over the budget (RuntimeError) */
  TS_HOST_DATA_ERROR_NO_DATA,     /* values asked for in --no-data mode */
  TS_HOST_DATA_ERROR_INVALID,     /* a bad setting */
} TsHostDataError;

GQuark   ts_host_data_error_quark (void);

/* "1"/"0" (also "true"/"false", "yes"/"no", "on"/"off"; empty: off). */
gboolean ts_host_data_parse_no_data (const char  *text,
                                     gboolean    *on,
                                     GError     **error);
/* A byte count: digits with an optional K, M, G or T (powers of 1024). */
gboolean ts_host_data_parse_limit   (const char  *text,
                                     guint64     *bytes,
                                     GError     **error);
/* Reads $TENSORSCOPE_NO_DATA and $TENSORSCOPE_HOST_MEMORY_LIMIT; call once
 * before the first tensor. A bad value is an error, never ignored. */
gboolean ts_host_data_configure_from_env (GError **error);

void     ts_host_data_set_no_data   (gboolean     on);
/* TRUE in --no-data mode: read on every op, so inline. */
extern gboolean ts_host_data_no_data_on;
static inline gboolean
ts_host_data_no_data (void)
{
  return ts_host_data_no_data_on;
}
/* Sets the no-data refusal for @what ("Tensor.item()") and returns FALSE. */
gboolean ts_host_data_refuse        (const char  *what,
                                     GError     **error);

void     ts_host_data_set_limit     (guint64      bytes);
/* Charges @bytes of data before they are allocated; FALSE with the
 * RuntimeError when they do not fit. Give them back with _release. */
gboolean ts_host_data_charge        (guint64      bytes,
                                     GError     **error);
void     ts_host_data_release       (guint64      bytes);
/* Whether @bytes would fit now, without charging them (the error if not). */
gboolean ts_host_data_check         (guint64      bytes,
                                     GError     **error);
guint64  ts_host_data_get_charged   (void);

G_END_DECLS

G_BEGIN_DECLS
/* --no-data: a host address for @nbytes that nothing else is given, never
 * backed (what data_ptr() reports for a CPU or pinned tensor). */
guint64  ts_host_data_fake_address  (gsize        nbytes);
G_END_DECLS
