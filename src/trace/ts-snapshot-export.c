/* ts-snapshot-export.c: a PyTorch memory snapshot from allocator records
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A small pickle writer (protocol 4, the opcodes MemoryViz.js's unpickler
 * knows: EMPTY_DICT/LIST, MARK, SETITEMS/APPENDS, MEMOIZE, BINGET/
 * LONG_BINGET, SHORT_BINUNICODE/BINUNICODE, BININT1/BININT2/BININT, LONG1,
 * NEWTRUE/NEWFALSE, NONE, TUPLE2, BINFLOAT, STOP; no FRAME). Streams
 * straight to the file: memory is the memo of keys and frame lists.
 *
 * Actions the import made up (the state before a snapshot's trace, marked
 * with TS_IMPORT_SYNTHETIC_CORRELATION) and the recorder-only actions are
 * left out of device_traces; the final segments still hold those blocks,
 * so a viewer sees them as PyTorch's own snapshot would show them:
 * allocated before the trace.
 */

#include "config.h"

#include <string.h>

#include "ts-memory-replay.h"
#include "ts-snapshot-export.h"
#include "ts-trace-import.h"

typedef struct
{
  FILE       *out;
  guint32     memo_next;
  GHashTable *strings;   /* interned key -> memo index + 1 */
  GHashTable *frames;    /* "file\x1ffunction\x1fline" -> memo index + 1 */
  TsRecorder *rec;
} W;

static void
op (W     *w,
    guint8 c)
{
  putc (c, w->out);
}

static void
le (W      *w,
    guint64 v,
    guint   n)
{
  for (guint i = 0; i < n; i++)
    putc ((int) ((v >> (8 * i)) & 0xff), w->out);
}

static void
memoize (W *w)
{
  op (w, 0x94);
  w->memo_next++;
}

static void
get (W      *w,
     guint32 idx)
{
  if (idx < 256)
    {
      op (w, 'h');
      le (w, idx, 1);
    }
  else
    {
      op (w, 'j');
      le (w, idx, 4);
    }
}

static void
raw_str (W          *w,
         const char *s)
{
  gsize n = strlen (s);
  g_autofree char *valid = NULL;

  if (!g_utf8_validate (s, (gssize) n, NULL))
    {
      s = valid = g_utf8_make_valid (s, (gssize) n);
      n = strlen (s);
    }
  if (n < 256)
    {
      op (w, 0x8c);
      le (w, n, 1);
    }
  else
    {
      op (w, 'X');
      le (w, n, 4);
    }
  fwrite (s, 1, n, w->out);
}

/* Keys and repeated values: written once, then fetched from the memo. */
static void
str (W          *w,
     const char *s)
{
  gpointer v = g_hash_table_lookup (w->strings, s);

  if (v != NULL)
    {
      get (w, GPOINTER_TO_UINT (v) - 1);
      return;
    }
  raw_str (w, s);
  g_hash_table_insert (w->strings, g_strdup (s), GUINT_TO_POINTER (w->memo_next + 1));
  memoize (w);
}

static void
integer (W     *w,
         gint64 v)
{
  if (v >= 0 && v < 256)
    {
      op (w, 'K');
      le (w, (guint64) v, 1);
    }
  else if (v >= 0 && v < 65536)
    {
      op (w, 'M');
      le (w, (guint64) v, 2);
    }
  else if (v >= G_MININT32 && v <= G_MAXINT32)
    {
      op (w, 'J');
      le (w, (guint64) (guint32) (gint32) v, 4);
    }
  else
    {
      /* LONG1, minimal two's complement: at most 8 bytes (never the
       * 9-byte form old MemoryViz refuses) */
      guint n = 1;
      while (n < 8)
        {
          gint64 lo = -((gint64) 1 << (8 * n - 1)), hi = ((gint64) 1 << (8 * n - 1)) - 1;
          if (v >= lo && v <= hi)
            break;
          n++;
        }
      op (w, 0x8a);
      le (w, n, 1);
      le (w, (guint64) v, n);
    }
}

/* Addresses, sizes and stream handles are u64 in records; a value past
 * i64 (never a real address) is written as -1. */
static void
uinteger (W      *w,
          guint64 v)
{
  integer (w, v > (guint64) G_MAXINT64 ? -1 : (gint64) v);
}

static void
boolean (W       *w,
         gboolean b)
{
  op (w, b ? 0x88 : 0x89);
}

static void
frames (W          *w,
        TsSourceLoc loc)
{
  g_autofree char *key = NULL;
  gpointer v;

  if (loc.file == 0 && loc.function == 0)
    {
      op (w, ']');
      return;
    }
  key = g_strdup_printf ("%u\x1f%u\x1f%u", loc.file, loc.function, loc.line);
  v = g_hash_table_lookup (w->frames, key);
  if (v != NULL)
    {
      get (w, GPOINTER_TO_UINT (v) - 1);
      return;
    }
  op (w, ']');
  g_hash_table_insert (w->frames, g_steal_pointer (&key), GUINT_TO_POINTER (w->memo_next + 1));
  memoize (w);
  op (w, '}');
  op (w, '(');
  str (w, "filename");
  str (w, ts_recorder_lookup (w->rec, loc.file));
  str (w, "line");
  integer (w, loc.line);
  str (w, "name");
  str (w, ts_recorder_lookup (w->rec, loc.function));
  op (w, 'u');
  op (w, 'a');
}

static const char *
action_name (guint32 action)
{
  switch (action)
    {
    case TS_ALLOC_ACTION_ALLOC: return "alloc";
    case TS_ALLOC_ACTION_FREE_REQUESTED: return "free_requested";
    case TS_ALLOC_ACTION_FREE_COMPLETED: return "free_completed";
    case TS_ALLOC_ACTION_SEGMENT_ALLOC: return "segment_alloc";
    case TS_ALLOC_ACTION_SEGMENT_FREE: return "segment_free";
    case TS_ALLOC_ACTION_SEGMENT_MAP: return "segment_map";
    case TS_ALLOC_ACTION_SEGMENT_UNMAP: return "segment_unmap";
    case TS_ALLOC_ACTION_OOM: return "oom";
    case TS_ALLOC_ACTION_SNAPSHOT: return "snapshot";
    default: return NULL;
    }
}

static guint64
stream_handle (GHashTable *handles,
               TsStreamId  stream)
{
  gpointer v;

  if (stream == TS_STREAM_NONE)
    return 0;
  v = g_hash_table_lookup (handles, GUINT_TO_POINTER (stream + 1));
  return v != NULL ? *(guint64 *) v : stream;
}

static const char *
state_name (TsBlockState s)
{
  switch (s)
    {
    case TS_BLOCK_STATE_ACTIVE_ALLOCATED: return "active_allocated";
    case TS_BLOCK_STATE_ACTIVE_PENDING_FREE: return "active_pending_free";
    case TS_BLOCK_STATE_INACTIVE:
    default: return "inactive";
    }
}

/* The dicts of a list are written as pickle writes them: APPENDS in
 * batches of 1000, each batch opened by a MARK; a dict is EMPTY_DICT, MARK,
 * its pairs, SETITEMS. Item I of N begins and ends with these. */
static void
list_dict_begin (W    *w,
                 guint i)
{
  if (i % 1000 == 0)
    op (w, '(');
  op (w, '}');
  op (w, '(');
}

static void
list_dict_end (W    *w,
               guint i,
               guint n)
{
  op (w, 'u');
  if (i % 1000 == 999 || i + 1 == n)
    op (w, 'e');
}

static void
write_segments (W              *w,
                TsMemoryReplay *replay,
                GHashTable     *handles)
{
  g_autoptr(TsMemoryState) st = ts_memory_replay_state_at (replay, ts_memory_replay_get_n_actions (replay));

  str (w, "segments");
  op (w, ']');
  for (guint i = 0; i < st->segments->len; i++)
    {
      const TsMemorySegment *s = &g_array_index (st->segments, TsMemorySegment, i);

      list_dict_begin (w, i);
      str (w, "device"); integer (w, s->device);
      str (w, "address"); uinteger (w, s->address);
      str (w, "total_size"); uinteger (w, s->total_size);
      str (w, "allocated_size"); uinteger (w, s->allocated_size);
      str (w, "active_size"); uinteger (w, s->active_size);
      str (w, "requested_size"); uinteger (w, s->requested_size);
      str (w, "stream"); uinteger (w, stream_handle (handles, s->stream));
      str (w, "segment_type"); str (w, s->is_small ? "small" : "large");
      /* A tuple (TUPLE2) as PyTorch writes MempoolId_t. */
      str (w, "segment_pool_id"); uinteger (w, s->pool_id.first); uinteger (w, s->pool_id.second);
      op (w, 0x86);
      str (w, "is_expandable"); boolean (w, s->is_expandable);
      str (w, "frames"); frames (w, s->loc);
      str (w, "blocks");
      op (w, ']');
      for (guint j = 0; j < s->n_blocks; j++)
        {
          const TsMemoryBlock *b = &g_array_index (st->blocks, TsMemoryBlock, s->first_block + j);
          TsSourceLoc loc = TS_SOURCE_LOC_NONE;

          if (b->allocation != TS_MEMORY_REPLAY_NONE)
            loc = ts_memory_replay_get_allocation (replay, b->allocation)->loc;
          list_dict_begin (w, j);
          str (w, "address"); uinteger (w, b->address);
          str (w, "size"); uinteger (w, b->size);
          str (w, "requested_size"); uinteger (w, b->requested_size);
          str (w, "state"); str (w, state_name (b->state));
          str (w, "frames"); frames (w, loc);
          list_dict_end (w, j, s->n_blocks);
        }
      list_dict_end (w, i, st->segments->len);
    }
}

gint64
ts_memory_snapshot_write_pickle (TsRecorder  *rec,
                                 FILE        *out,
                                 GError     **error)
{
  g_autoptr(TsMemoryReplay) replay = ts_memory_replay_new (rec);
  g_autoptr(GHashTable) handles = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  gsize n = ts_recorder_get_count (rec, TS_RECORD_ALLOC);
  guint n_devices = 0;
  gboolean expandable = FALSE;
  gint64 n_written = 0, epoch_us = 0;
  W w = { 0 };

  if (n == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "the trace has no allocator actions: nothing to put in a memory snapshot");
      return -1;
    }
  {
    gint64 epoch_ns;
    if (ts_trace_import_get_epoch (rec, &epoch_ns))
      epoch_us = epoch_ns / 1000;
  }
  for (gsize i = 0; i < ts_recorder_get_count (rec, TS_RECORD_STREAM); i++)
    {
      TsStreamRecord s;
      ts_recorder_get (rec, TS_RECORD_STREAM, i, &s);
      g_hash_table_insert (handles, GUINT_TO_POINTER (s.stream + 1), g_memdup2 (&s.handle, sizeof s.handle));
    }
  for (gsize i = 0; i < n; i++)
    {
      TsAllocRecord r;
      ts_recorder_get (rec, TS_RECORD_ALLOC, i, &r);
      if (r.device < TS_MEMORY_REPLAY_MAX_DEVICES)
        n_devices = MAX (n_devices, r.device + 1);
      /* Only expandable segments map pages. */
      expandable |= r.action == TS_ALLOC_ACTION_SEGMENT_MAP;
    }

  w.out = out;
  w.rec = rec;
  w.strings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  w.frames = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  op (&w, 0x80);
  op (&w, 4);
  op (&w, '}');
  memoize (&w);
  op (&w, '(');
  write_segments (&w, replay, handles);

  str (&w, "device_traces");
  op (&w, ']');
  op (&w, '(');
  for (guint d = 0; d < n_devices; d++)
    {
      guint batch = 0;

      op (&w, ']');
      for (gsize i = 0; i < n; i++)
        {
          TsAllocRecord r;
          const char *action;

          ts_recorder_get (rec, TS_RECORD_ALLOC, i, &r);
          if (r.device != d || r.correlation == TS_IMPORT_SYNTHETIC_CORRELATION ||
              (action = action_name (r.action)) == NULL)
            continue;
          list_dict_begin (&w, batch);
          str (&w, "action"); str (&w, action);
          if (r.action == TS_ALLOC_ACTION_OOM)
            {
              str (&w, "device_free"); uinteger (&w, r.addr);
            }
          else
            {
              str (&w, "addr"); uinteger (&w, r.addr);
            }
          /* PyTorch's entries carry the request (alloc: orig_size; the
           * frees: the block's requested_size), not the block size */
          str (&w, "size");
          uinteger (&w, (r.action == TS_ALLOC_ACTION_ALLOC || r.action == TS_ALLOC_ACTION_FREE_REQUESTED ||
                         r.action == TS_ALLOC_ACTION_FREE_COMPLETED) && r.requested > 0 ? r.requested : r.size);
          str (&w, "stream"); uinteger (&w, stream_handle (handles, r.stream));
          str (&w, "time_us"); integer (&w, epoch_us + r.time / 1000);
          str (&w, "compile_context"); str (&w, "N/A");
          str (&w, "user_metadata"); str (&w, "");
          str (&w, "frames"); frames (&w, r.loc);
          op (&w, 'u');
          batch++;
          n_written++;
          if (batch % 1000 == 0)
            op (&w, 'e');
        }
      if (batch % 1000 != 0)
        op (&w, 'e');
    }
  op (&w, 'e');

  str (&w, "allocator_settings");
  op (&w, '}');
  op (&w, '(');
  str (&w, "PYTORCH_CUDA_ALLOC_CONF"); str (&w, expandable ? "expandable_segments:True" : "");
  str (&w, "max_split_size"); integer (&w, -1);
  str (&w, "expandable_segments"); boolean (&w, expandable);
  str (&w, "trace_alloc_overflowed"); boolean (&w, FALSE);
  op (&w, 'u');
  str (&w, "external_annotations");
  op (&w, ']');
  op (&w, 'u');
  op (&w, '.');

  g_hash_table_unref (w.strings);
  g_hash_table_unref (w.frames);
  if (ferror (out))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "write error");
      return -1;
    }
  return n_written;
}
