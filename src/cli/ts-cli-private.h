/* ts-cli-private.h: the subcommands of tensorscope-cli
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <stdio.h>

G_BEGIN_DECLS

void ts_cli_message  (const char *format, ...) G_GNUC_PRINTF (1, 2);

int  ts_cli_run_main (int argc, char **argv);
int  ts_cli_record_main (int argc, char **argv);

G_END_DECLS
