/* ts-memory-replay-private.h: knobs of the replay, for tests
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-memory-replay.h"

G_BEGIN_DECLS

/* As ts_memory_replay_new() (or _new_by_events()) with checkpoints at
 * least every min_interval actions instead of
 * TS_MEMORY_REPLAY_MIN_INTERVAL: small values make tests restore many
 * checkpoints. */
TsMemoryReplay *_ts_memory_replay_new_with_interval (TsRecorder *recorder,
                                                     gsize       min_interval,
                                                     gboolean    by_events);

G_END_DECLS
