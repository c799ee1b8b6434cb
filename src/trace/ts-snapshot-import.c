/* ts-snapshot-import.c: PyTorch CUDA memory snapshots as allocator records
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reads the dict torch.cuda.memory._snapshot() returns (pickled, or the
 * same dict as JSON), every version from PyTorch 1.12 (a bare list of
 * segments) and 1.13 (blocks with a `history` list) to 2.x (segments with
 * blocks, device_traces, allocator_settings, external_annotations), and
 * turns it into TS_RECORD_ALLOC records that the memory replay rebuilds
 * state from, plus allocated/reserved counters and the annotations as
 * NVTX ranges.
 *
 * The device trace is a ring buffer: it can start with blocks and segments
 * already live (allocated before recording started, or whose actions were
 * pushed out when the buffer overflowed). As MemoryViz does, the state at
 * the start of the trace is found by undoing the trace backwards from the
 * final `segments`; that state is written first, as synthetic actions
 * just before the first entry, so the replay sees a complete history. The
 * notes say how many blocks were reconstructed that way.
 *
 * Mapping: alloc, free_requested, free_completed, segment_alloc,
 * segment_free, segment_map, segment_unmap (pages of an expandable
 * segment), oom (device_free in addr), snapshot -> the TsAllocAction of
 * the same name. A segment's segment_pool_id goes on the actions that make
 * it (trace entries carry no pool in PyTorch's snapshot, so a segment no
 * longer live at the snapshot reads as the default pool's). time_us -> time (ns
 * since the document's epoch; entries without time_us, before PyTorch
 * 2.2, are 1 µs apart); frames -> the entry's source location;
 * stream -> a stream record per (device, stream value).
 */

#include "config.h"

#include <string.h>

#include "ts-block-sizer-private.h"
#include "ts-import-private.h"
#include "ts-json-reader.h"
#include "ts-pickle-reader.h"

#define SMALL_SEGMENT (2u << 20)   /* PyTorch's small pool segments are 2 MiB */
#define LARGE_PAGE    (20u << 20)  /* an expandable segment's pages: 20 MiB large, 2 MiB small */

/* Which pool a segment action's size says, when no live segment does. An
 * expandable segment maps and unmaps whole pages, so a size that is not a
 * multiple of a large page is the small pool's. */
static gboolean
guess_small (guint8  action,
             guint64 size)
{
  if (action == TS_ALLOC_ACTION_SEGMENT_MAP || action == TS_ALLOC_ACTION_SEGMENT_UNMAP)
    return size % LARGE_PAGE != 0;
  return size <= SMALL_SEGMENT;
}

/* Times from a hostile file must not overflow: µs values are clamped to
 * ±2^52 (year 2112) when read, and µs differences saturate to ns. */
#define MAX_US (G_GINT64_CONSTANT (1) << 52)

static inline gint64
clamp_us (gint64 us)
{
  return CLAMP (us, -MAX_US, MAX_US);
}

static inline TsTime
us_to_ns (gint64 us)
{
  const gint64 lim = G_MAXINT64 / 1000 - 1;
  return (TsTime) CLAMP (us, -lim, lim) * 1000;
}

enum { ST_ALLOCATED = 1, ST_PENDING = 2 };

typedef struct
{
  guint64     addr;
  guint64     size;
  guint64     requested;
  guint32     state;
  TsSourceLoc loc;
} Block;

typedef struct
{
  guint32  device;
  guint64  addr;
  guint64  size;
  gint64   stream;
  gboolean is_small;
  gboolean is_expandable;
  TsMemPoolId pool_id;
  GArray  *blocks;   /* Block, live ones only */
} Segment;

/* A trace entry, compact (48 bytes), before it becomes a record. */
typedef struct
{
  gint64      time_us;
  guint64     addr;
  guint64     size;
  gint64      stream;
  TsSourceLoc loc;
  guint8      device;
  guint8      action;
  guint8      has_time;
} Entry;

/* Entries in fixed chunks: no doubling reallocation (and its transient
 * 1.5x peak) while millions arrive. */
#define CHUNK_SHIFT 16
#define CHUNK_SIZE  (1u << CHUNK_SHIFT)

typedef struct
{
  GPtrArray *chunks;
  guint      len;
} Entries;

static void
entries_append (Entries     *es,
                const Entry *e)
{
  if ((es->len & (CHUNK_SIZE - 1)) == 0)
    g_ptr_array_add (es->chunks, g_new (Entry, CHUNK_SIZE));
  ((Entry *) es->chunks->pdata[es->len >> CHUNK_SHIFT])[es->len & (CHUNK_SIZE - 1)] = *e;
  es->len++;
}

static inline Entry *
entry_at (Entries *es,
          guint    i)
{
  return &((Entry *) es->chunks->pdata[i >> CHUNK_SHIFT])[i & (CHUNK_SIZE - 1)];
}

typedef struct
{
  TsImportContext *ctx;
  TsRecorder      *rec;
  gboolean         synthetic;   /* writing the rebuilt initial state */
  /* Records go to the recorder in batches (one lock per batch). */
  TsAllocRecord   *alloc_buf;
  guint            n_alloc_buf;
  TsCounterRecord *counter_buf;
  guint            n_counter_buf;
  GArray          *frame_info;  /* FrameInfo, indexed by a shared frame dict's aux - 1 */
  TsTime           counter_window;
  GPtrArray       *segments;    /* Segment* */
  TsBlockSizer    *sizer;       /* trace sizes (requests) -> block sizes */
  GHashTable      *final_sizes; /* entry index -> guint64*: allocs of blocks live at the end */
  Entries          entries;
  guint            n_bad_entries;
  guint            n_unknown_actions;
  guint            n_legacy_blocks;
  guint            max_device;
  gboolean         any_device;
} Importer;

static void
segment_free (gpointer p)
{
  Segment *s = p;
  g_array_unref (s->blocks);
  g_free (s);
}

enum { FRAME_NONE = 0, FRAME_USER_PY, FRAME_TORCH_PY, FRAME_OTHER };

typedef struct
{
  TsSourceLoc loc;
  guint       klass;
} FrameInfo;

static FrameInfo
frame_info_compute (TsRecorder    *rec,
                    const TsValue *f)
{
  FrameInfo fi = { TS_SOURCE_LOC_NONE, FRAME_NONE };
  const char *file = ts_value_get_str (f, "filename");
  gint64 line = 0;

  if (file == NULL)
    return fi;
  fi.klass = !g_str_has_suffix (file, ".py") ? FRAME_OTHER
             : strstr (file, "/torch/") == NULL ? FRAME_USER_PY : FRAME_TORCH_PY;
  fi.loc.file = ts_recorder_intern (rec, file);
  fi.loc.function = ts_recorder_intern (rec, ts_value_get_str (f, "name"));
  if (ts_value_get_int (f, "line", &line) && line > 0 && line < G_MAXUINT32)
    fi.loc.line = (guint32) line;
  return fi;
}

/* A frame dict the memo shares (PyTorch dedupes frames, so most are) is
 * classified and interned once, its FrameInfo index kept in its aux. */
static FrameInfo
frame_info (Importer *im,
            TsValue  *f)
{
  FrameInfo fi;

  if (f == NULL || f->type != TS_VALUE_DICT)
    return (FrameInfo) { TS_SOURCE_LOC_NONE, FRAME_NONE };
  if (f->aux != 0 && f->aux <= im->frame_info->len)
    return g_array_index (im->frame_info, FrameInfo, f->aux - 1);
  fi = frame_info_compute (im->rec, f);
  if (f->ref > 1 && im->frame_info->len < G_MAXUINT32 - 1)
    {
      g_array_append_val (im->frame_info, fi);
      f->aux = im->frame_info->len;
    }
  return fi;
}

static TsSourceLoc
frames_loc (Importer      *im,
            TsValue       *frames)
{
  TsSourceLoc loc;

  if (frames != NULL && frames->type == TS_VALUE_LOC)
    {
      loc.file = frames->loc.file;
      loc.function = frames->loc.function;
      loc.line = frames->loc.line;
      return loc;
    }
  if (frames == NULL || frames->type != TS_VALUE_LIST || frames->items->len == 0)
    return TS_SOURCE_LOC_NONE;
  /* the innermost Python frame outside torch, else the innermost Python
   * frame, else the first frame (as ts_import_frames_loc) */
  {
    gboolean have_pick = FALSE, have_py = FALSE;
    TsSourceLoc pick = TS_SOURCE_LOC_NONE, py = TS_SOURCE_LOC_NONE;

    for (guint i = 0; i < frames->items->len; i++)
      {
        FrameInfo fi = frame_info (im, frames->items->pdata[i]);
        if (fi.klass == FRAME_NONE)
          continue;
        if (!have_pick)
          pick = fi.loc, have_pick = TRUE;
        if (fi.klass == FRAME_USER_PY)
          {
            py = fi.loc, have_py = TRUE;
            break;
          }
        if (fi.klass == FRAME_TORCH_PY && !have_py)
          py = fi.loc, have_py = TRUE;
      }
    loc = have_py ? py : pick;
  }
  /* A list the pickle memo shares is converted once: it becomes its
   * location in place (24 bytes), and the frame dicts it held stay only
   * as long as other lists or the memo need them. */
  if (frames->ref > 1)
    ts_value_make_loc (frames, loc.file, loc.function, loc.line);
  return loc;
}

TsSourceLoc
ts_import_frames_loc (TsRecorder    *rec,
                      const TsValue *frames)
{
  const TsValue *pick = NULL, *py = NULL;
  TsSourceLoc loc = TS_SOURCE_LOC_NONE;
  gint64 line = 0;

  for (guint i = 0; i < ts_value_len (frames); i++)
    {
      const TsValue *f = ts_value_index (frames, i);
      const char *file = ts_value_get_str (f, "filename");

      if (file == NULL)
        continue;
      if (pick == NULL)
        pick = f;
      if (g_str_has_suffix (file, ".py"))
        {
          if (py == NULL)
            py = f;
          if (strstr (file, "/torch/") == NULL)
            {
              py = f;
              break;
            }
        }
    }
  if (py != NULL)
    pick = py;
  if (pick == NULL)
    return loc;
  loc.file = ts_recorder_intern (rec, ts_value_get_str (pick, "filename"));
  loc.function = ts_recorder_intern (rec, ts_value_get_str (pick, "name"));
  if (ts_value_get_int (pick, "line", &line) && line > 0 && line < G_MAXUINT32)
    loc.line = (guint32) line;
  return loc;
}

static guint64
get_u64 (const TsValue *d,
         const char    *key)
{
  gint64 v = 0;

  if (!ts_value_get_int (d, key, &v))
    return 0;
  return (guint64) v;
}

static void
note_device (Importer *im,
             gint64    device)
{
  if (device < 0 || device >= 64)
    return;
  im->any_device = TRUE;
  im->max_device = MAX (im->max_device, (guint) device);
}

static gboolean
add_segment (Importer      *im,
             const TsValue *v)
{
  Segment *s;
  const TsValue *blocks;
  gint64 device = 0;
  const char *type;
  guint64 addr;

  if (v->type != TS_VALUE_DICT)
    return FALSE;
  ts_value_get_int (v, "device", &device);
  if (device < 0 || device >= 64)
    return FALSE;
  s = g_new0 (Segment, 1);
  s->device = (guint32) device;
  s->addr = addr = get_u64 (v, "address");
  s->size = get_u64 (v, "total_size");
  ts_value_get_int (v, "stream", &s->stream);
  type = ts_value_get_str (v, "segment_type");
  s->is_small = type != NULL ? g_str_equal (type, "small") : s->size <= SMALL_SEGMENT;
  {
    TsValue *e = ts_value_get (v, "is_expandable");
    s->is_expandable = e != NULL && e->type == TS_VALUE_BOOL && e->b;
  }
  {
    /* A tuple of two ints (a list in the JSON form). */
    TsValue *id = ts_value_get (v, "segment_pool_id");
    if (id != NULL && id->type == TS_VALUE_LIST && ts_value_len (id) == 2 &&
        ts_value_index (id, 0)->type == TS_VALUE_INT &&
        ts_value_index (id, 1)->type == TS_VALUE_INT)
      {
        s->pool_id.first = (guint64) ts_value_index (id, 0)->i;
        s->pool_id.second = (guint64) ts_value_index (id, 1)->i;
      }
  }
  s->blocks = g_array_new (FALSE, FALSE, sizeof (Block));
  note_device (im, device);

  blocks = ts_value_get (v, "blocks");
  for (guint i = 0; i < ts_value_len (blocks); i++)
    {
      const TsValue *b = ts_value_index (blocks, i);
      const char *state = ts_value_get_str (b, "state");
      Block blk = { 0 };
      gint64 req = 0;

      blk.size = get_u64 (b, "size");
      /* Blocks are contiguous from the segment's start; 2.x has
       * "address" too, 1.13 does not. */
      blk.addr = ts_value_get (b, "address") != NULL ? get_u64 (b, "address") : addr;
      addr = blk.addr + blk.size;
      if (state == NULL || g_str_equal (state, "inactive"))
        continue;
      if (g_str_equal (state, "active_allocated"))
        blk.state = ST_ALLOCATED;
      else if (g_str_equal (state, "active_pending_free") || g_str_equal (state, "active_awaiting_free"))
        blk.state = ST_PENDING;
      else
        continue;
      if (ts_value_get_int (b, "requested_size", &req))
        blk.requested = (guint64) req;
      blk.loc = frames_loc (im, ts_value_get (b, "frames"));
      /* PyTorch 1.13: the stack and the request are in history[0]. */
      {
        const TsValue *h = ts_value_get (b, "history");
        if (h != NULL && ts_value_len (h) > 0)
          {
            const TsValue *h0 = ts_value_index (h, 0);
            im->n_legacy_blocks++;
            if (ts_value_get_int (h0, "real_size", &req))
              blk.requested = (guint64) req;
            if (blk.loc.file == 0)
              blk.loc = frames_loc (im, ts_value_get (h0, "frames"));
          }
      }
      if (blk.requested == 0 || blk.requested > blk.size)
        blk.requested = blk.size;
      g_array_append_val (s->blocks, blk);
    }
  g_ptr_array_add (im->segments, s);
  return TRUE;
}

static const struct { const char *name; guint8 action; } actions[] = {
  { "alloc", TS_ALLOC_ACTION_ALLOC },
  { "free_requested", TS_ALLOC_ACTION_FREE_REQUESTED },
  { "free_completed", TS_ALLOC_ACTION_FREE_COMPLETED },
  { "free", TS_ALLOC_ACTION_FREE_COMPLETED },   /* 2.0, before the split */
  { "segment_alloc", TS_ALLOC_ACTION_SEGMENT_ALLOC },
  { "segment_free", TS_ALLOC_ACTION_SEGMENT_FREE },
  { "segment_map", TS_ALLOC_ACTION_SEGMENT_MAP },
  { "segment_unmap", TS_ALLOC_ACTION_SEGMENT_UNMAP },
  { "snapshot", TS_ALLOC_ACTION_SNAPSHOT },
  { "oom", TS_ALLOC_ACTION_OOM },
};

/* One pass over the entry's items (the hot path of a big snapshot):
 * each key compared once, the last of a repeated key winning. */
static void
add_entry (Importer      *im,
           guint          device,
           const TsValue *v)
{
  const char *action = NULL;
  TsValue *frames = NULL;
  Entry e = { 0 };
  gint64 x, addr = 0, device_free = 0, size = 0, stream = 0;
  gboolean is_free = FALSE;

  if (v->type != TS_VALUE_DICT || device >= 64)
    {
      im->n_bad_entries++;
      return;
    }
  for (guint i = 0; i + 1 < v->items->len; i += 2)
    {
      const TsValue *k = v->items->pdata[i], *val = v->items->pdata[i + 1];
      const char *key;

      if (k->type != TS_VALUE_STRING)
        continue;
      key = k->s.str;
      switch (key[0])
        {
        case 'a':
          if (strcmp (key, "action") == 0)
            action = val->type == TS_VALUE_STRING ? val->s.str : NULL;
          else if (strcmp (key, "addr") == 0 && ts_value_to_int (val, &x))
            addr = x;
          break;
        case 's':
          if (strcmp (key, "size") == 0 && ts_value_to_int (val, &x))
            size = x;
          else if (strcmp (key, "stream") == 0 && ts_value_to_int (val, &x))
            stream = x;
          break;
        case 't':
          if (strcmp (key, "time_us") == 0 && ts_value_to_int (val, &x))
            {
              e.time_us = clamp_us (x);
              e.has_time = TRUE;
            }
          break;
        case 'd':
          if (strcmp (key, "device_free") == 0 && ts_value_to_int (val, &x))
            device_free = x;
          break;
        case 'f':
          if (strcmp (key, "frames") == 0)
            frames = (TsValue *) val;
          break;
        default:
          break;
        }
    }
  if (action == NULL)
    {
      im->n_bad_entries++;
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    if (g_str_equal (action, actions[i].name))
      {
        e.action = actions[i].action;
        break;
      }
  if (e.action == 0)
    {
      im->n_unknown_actions++;
      return;
    }
  e.device = (guint8) device;
  e.size = (guint64) size;
  e.addr = (guint64) (e.action == TS_ALLOC_ACTION_OOM ? device_free : addr);
  e.stream = stream;
  e.loc = frames_loc (im, frames);
  note_device (im, device);
  is_free = g_str_equal (action, "free");
  /* The legacy "free" means free_requested + free_completed. */
  if (is_free)
    {
      e.action = TS_ALLOC_ACTION_FREE_REQUESTED;
      entries_append (&im->entries, &e);
      e.action = TS_ALLOC_ACTION_FREE_COMPLETED;
    }
  entries_append (&im->entries, &e);
}

/* One segment or trace entry, as the pickle reader streams them (and the
 * JSON reader below, with the same kinds): a segment that does not parse
 * is counted, not fatal. */
static gboolean
add_item (gpointer          user_data,
          TsPickleItemKind  kind,
          guint             device,
          TsValue          *item,
          GError          **error)
{
  Importer *im = user_data;

  if (kind == TS_PICKLE_SEGMENT)
    {
      if (!add_segment (im, item))
        im->n_bad_entries++;
    }
  else
    add_entry (im, device, item);
  return TRUE;
}

/* A JSON list of segments, or of one device's trace entries, streamed:
 * each item added as it is read. */
static gboolean
read_items (Importer          *im,
            TsJsonReader      *r,
            TsPickleItemKind   kind,
            guint              device,
            GError           **error)
{
  gboolean first = TRUE, more;

  if (!ts_json_begin_array (r, error))
    return FALSE;
  for (;;)
    {
      g_autoptr(TsValue) v = NULL;

      if (!ts_json_array_next (r, &first, &more, error))
        return FALSE;
      if (!more)
        return TRUE;
      if (!ts_json_read_value (r, &v, error) || !add_item (im, kind, device, v, error))
        return FALSE;
    }
}

/* The JSON form: walk the top object, streaming the two big lists. */
static gboolean
read_json (Importer      *im,
           TsJsonReader  *r,
           TsValue      **rest,
           GError       **error)
{
  gboolean first = TRUE, more;
  const char *key;
  gsize len;
  TsValue *root;

  if (ts_json_peek (r) == '[')
    {
      /* ≤ 1.12: a bare list of segments */
      if (!read_items (im, r, TS_PICKLE_SEGMENT, 0, error))
        return FALSE;
      *rest = ts_value_new (TS_VALUE_DICT);
      return TRUE;
    }
  if (!ts_json_begin_object (r, error))
    return FALSE;
  root = ts_value_new (TS_VALUE_DICT);
  for (;;)
    {
      if (!ts_json_object_next (r, &first, &key, &len, &more, error))
        goto fail;
      if (!more)
        break;
      if (len == 8 && memcmp (key, "segments", 8) == 0)
        {
          if (!read_items (im, r, TS_PICKLE_SEGMENT, 0, error))
            goto fail;
        }
      else if (len == 13 && memcmp (key, "device_traces", 13) == 0)
        {
          gboolean f2 = TRUE, m2;
          guint device = 0;
          if (!ts_json_begin_array (r, error))
            goto fail;
          for (;; device++)
            {
              if (!ts_json_array_next (r, &f2, &m2, error))
                goto fail;
              if (!m2)
                break;
              if (!read_items (im, r, TS_PICKLE_TRACE_ENTRY, device, error))
                goto fail;
            }
        }
      else
        {
          TsValue *v = NULL;
          ts_value_append (root, ts_value_new_string (key, len));
          if (!ts_json_read_value (r, &v, error))
            goto fail;
          ts_value_append (root, v);
        }
    }
  if (ts_json_peek (r) >= 0)
    {
      ts_json_error (r, error, TS_IMPORT_ERROR_CORRUPT, "data after the end of the snapshot");
      goto fail;
    }
  *rest = root;
  return TRUE;
fail:
  ts_value_unref (root);
  return FALSE;
}

/* ---- reconstruction of the state before the first entry ---- */

typedef struct
{
  guint64 size;
  guint64 requested;
  guint32 state;
  guint32 touched;     /* a trace entry names it (else a "ghost" block) */
  TsSourceLoc loc;
  gboolean exact;      /* the snapshot's own block: its size is known */
} LiveBlock;

typedef struct
{
  guint64     size;
  gint64      stream;
  gboolean    is_small;
  gboolean    in_final;
  gboolean    is_expandable;   /* a mapped range: made by segment_map */
  TsMemPoolId pool_id;
} LiveSeg;

static int
cmp_u64 (gconstpointer a,
         gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

typedef struct
{
  guint64 addr;
  LiveSeg seg;
} SegItem;

static int
cmp_seg_item (gconstpointer a,
              gconstpointer b)
{
  return cmp_u64 (&((const SegItem *) a)->addr, &((const SegItem *) b)->addr);
}

typedef struct
{
  GHashTable  *map;     /* "device:stream" key -> id + 1 */
  gboolean     have_last;
  guint        last_device;
  gint64       last_handle;
  TsStreamId   last_id;
} Streams;

static TsStreamId
stream_for (Importer *im,
            Streams  *st,
            guint     device,
            gint64    handle)
{
  g_autofree char *key = NULL;
  gpointer v;
  TsStreamRecord s = { 0 };

  /* almost every entry is on the stream of the one before */
  if (st->have_last && st->last_device == device && st->last_handle == handle)
    return st->last_id;
  key = g_strdup_printf ("%u:%" G_GINT64_FORMAT, device, handle);
  v = g_hash_table_lookup (st->map, key);
  st->have_last = TRUE;
  st->last_device = device;
  st->last_handle = handle;
  if (v != NULL)
    return st->last_id = GPOINTER_TO_UINT (v) - 1;
  /* With a profiler trace of the run, the default stream (0) is the
   * device's default stream row there (CUPTI's stream 7), not a new one. */
  if (handle == 0)
    for (gsize i = 0; i < ts_recorder_get_count (im->rec, TS_RECORD_STREAM); i++)
      {
        TsStreamRecord o;
        ts_recorder_get (im->rec, TS_RECORD_STREAM, i, &o);
        if (o.device == device + im->ctx->device_base && o.is_default)
          {
            g_hash_table_insert (st->map, g_steal_pointer (&key), GUINT_TO_POINTER (o.stream + 1));
            return st->last_id = o.stream;
          }
      }
  s.stream = im->ctx->next_stream++;
  s.device = device + im->ctx->device_base;
  s.is_default = handle == 0;
  s.handle = (guint64) handle;
  ts_recorder_append (im->rec, TS_RECORD_STREAM, &s);
  g_hash_table_insert (st->map, g_steal_pointer (&key), GUINT_TO_POINTER (s.stream + 1));
  return st->last_id = s.stream;
}

#define BATCH 4096

static void
flush_batches (Importer *im)
{
  if (im->n_alloc_buf > 0)
    ts_recorder_append_many (im->rec, TS_RECORD_ALLOC, im->alloc_buf, im->n_alloc_buf);
  if (im->n_counter_buf > 0)
    ts_recorder_append_many (im->rec, TS_RECORD_COUNTER, im->counter_buf, im->n_counter_buf);
  im->n_alloc_buf = im->n_counter_buf = 0;
}

static void
append_counter (Importer              *im,
                const TsCounterRecord *c)
{
  if (im->n_counter_buf == BATCH)
    flush_batches (im);
  im->counter_buf[im->n_counter_buf++] = *c;
}

/* Running totals of a device, and the counter samples not yet written:
 * one sample per distinct time (the last value at that time). */
typedef struct
{
  gint64   allocated;
  gint64   reserved;
  TsTime   pending_time;
  gboolean pending_allocated;
  gboolean pending_reserved;
  gint64   peak;            /* highest allocated in the window */
  TsTime   peak_time;
} Totals;

static void
flush_counters (Importer *im,
                Totals   *t,
                guint32   device)
{
  TsCounterRecord c = { 0 };

  c.time = t->pending_time;
  c.device = device;
  /* The window's peak, where it is above the value the window ends on. */
  if (t->pending_allocated && t->peak > t->allocated && t->peak_time < t->pending_time)
    {
      TsCounterRecord p = c;
      p.time = t->peak_time;
      p.counter = TS_COUNTER_ALLOCATED_BYTES;
      p.value = t->peak;
      append_counter (im, &p);
    }
  t->peak = G_MININT64;
  if (t->pending_allocated)
    {
      c.counter = TS_COUNTER_ALLOCATED_BYTES;
      c.value = t->allocated;
      append_counter (im, &c);
    }
  if (t->pending_reserved)
    {
      c.counter = TS_COUNTER_RESERVED_BYTES;
      c.value = t->reserved;
      append_counter (im, &c);
    }
  t->pending_allocated = t->pending_reserved = FALSE;
}

static void
emit_alloc (Importer      *im,
            Streams       *st,
            Totals        *totals,
            TsTime         time,
            guint32        device,
            guint8         action,
            guint64        addr,
            guint64        size,
            guint64        requested,
            gint64         stream,
            gboolean       small,
            TsMemPoolId    pool_id,
            TsSourceLoc    loc)
{
  TsAllocRecord r = { 0 };
  Totals *t = &totals[device];

  r.time = time;
  r.addr = addr;
  r.size = size;
  r.requested = requested;
  r.device = device + im->ctx->device_base;
  r.stream = stream_for (im, st, device, stream);
  r.action = action;
  r.pool = small ? 1 : 0;
  ts_alloc_record_set_pool_id (&r, pool_id);
  r.loc = loc;
  r.correlation = im->synthetic ? TS_IMPORT_SYNTHETIC_CORRELATION : 0;
  ts_block_sizer_apply (im->sizer, device, action, addr, size, small);
  if (im->n_alloc_buf == BATCH)
    flush_batches (im);
  im->alloc_buf[im->n_alloc_buf++] = r;

  /* Counter samples: one per window (1 µs, or wider so that a device
   * gets at most about a million), with the window's peak. */
  if ((t->pending_allocated || t->pending_reserved) &&
      time / im->counter_window != t->pending_time / im->counter_window)
    flush_counters (im, t, r.device);
  t->pending_time = time;
  switch (action)
    {
    case TS_ALLOC_ACTION_ALLOC:
      t->allocated += (gint64) size;
      t->pending_allocated = TRUE;
      if (t->allocated > t->peak)
        t->peak = t->allocated, t->peak_time = time;
      break;
    case TS_ALLOC_ACTION_FREE_REQUESTED: t->allocated -= (gint64) size; t->pending_allocated = TRUE; break;
    case TS_ALLOC_ACTION_SEGMENT_ALLOC:
    case TS_ALLOC_ACTION_SEGMENT_MAP:
      t->reserved += (gint64) size, t->pending_reserved = TRUE;
      break;
    case TS_ALLOC_ACTION_SEGMENT_FREE:
    case TS_ALLOC_ACTION_SEGMENT_UNMAP:
      t->reserved -= (gint64) size, t->pending_reserved = TRUE;
      break;
    default: break;
    }
}

/* Addresses as hash keys, in the pointer itself (64-bit platforms). */
G_STATIC_ASSERT (sizeof (gpointer) >= sizeof (guint64));
#define ADDR_KEY(a) GSIZE_TO_POINTER ((gsize) (a))

static int
cmp_segment_ptr (gconstpointer a,
                 gconstpointer b)
{
  const Segment *x = *(const Segment **) a, *y = *(const Segment **) b;

  if (x->device != y->device)
    return x->device < y->device ? -1 : 1;
  return cmp_u64 (&x->addr, &y->addr);
}

/* The snapshot's segment that starts at addr, or (inside = TRUE, for the
 * pages of an expandable segment) contains it; NULL if none. by_addr is
 * sorted by cmp_segment_ptr. */
static const Segment *
final_segment_at (GPtrArray *by_addr,
                  guint      device,
                  guint64    addr,
                  gboolean   inside)
{
  guint lo = 0, hi = by_addr->len;
  const Segment *s;

  /* the last segment at or before (device, addr) */
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      const Segment *m = by_addr->pdata[mid];
      if (m->device < device || (m->device == device && m->addr <= addr))
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return NULL;
  s = by_addr->pdata[lo - 1];
  if (s->device != device)
    return NULL;
  if (s->addr == addr || (inside && s->is_expandable && addr - s->addr < s->size))
    return s;
  return NULL;
}

/* A live mapped range of the stream that ends at addr or starts at
 * addr + size, or NULL. */
static const LiveSeg *
adjacent_range (GHashTable *segs,
                guint64     addr,
                guint64     size,
                gint64      stream)
{
  GHashTableIter it;
  gpointer k, v;

  g_hash_table_iter_init (&it, segs);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      const LiveSeg *ls = v;
      guint64 a = GPOINTER_TO_SIZE (k);

      if (ls->is_expandable && ls->stream == stream && (a + ls->size == addr || a == addr + size))
        return ls;
    }
  return NULL;
}

/* Undoing a segment_map: the pages [addr, addr + size) were not mapped
 * before it. The live ranges are merged (PyTorch reports each contiguous
 * mapped range as one segment), so the pages may be part of one or more
 * ranges: each is cut, or split in two. Few entries map pages (one per
 * growth of a segment), so a walk over the live segments is cheap. */
static void
unmap_range (GHashTable *segs,
             guint64     addr,
             guint64     size)
{
  g_autoptr(GArray) cut = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 end = addr + size;
  GHashTableIter it;
  gpointer k, v;

  g_hash_table_iter_init (&it, segs);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      LiveSeg *ls = v;
      guint64 a = GPOINTER_TO_SIZE (k);
      if (ls->is_expandable && a < end && addr < a + ls->size)
        g_array_append_val (cut, a);
    }
  for (guint i = 0; i < cut->len; i++)
    {
      guint64 a = g_array_index (cut, guint64, i);
      LiveSeg ls = *(LiveSeg *) g_hash_table_lookup (segs, ADDR_KEY (a));
      guint64 e = a + ls.size;

      g_hash_table_remove (segs, ADDR_KEY (a));
      if (a < addr)
        {
          LiveSeg left = ls;
          left.size = addr - a;
          g_hash_table_insert (segs, ADDR_KEY (a), g_memdup2 (&left, sizeof left));
        }
      if (end < e)
        {
          LiveSeg right = ls;
          right.size = e - end;
          g_hash_table_insert (segs, ADDR_KEY (end), g_memdup2 (&right, sizeof right));
        }
    }
}

/* A block from before the trace that only its free names: the entry has
 * its requested size; its block size is round_size of that (nothing is
 * live in the sizer yet), which is exact unless the block was not split
 * off a larger free block. */
static guint64
before_size (Importer    *im,
             const Entry *e)
{
  return ts_block_sizer_block_size (im->sizer, e->device, e->addr, e->size);
}

/* Undoes the device's entries backwards from the final state; writes the
 * state found (segments, then their live blocks, with fillers for the
 * holes between them so every alloc starts a free gap as the replay
 * expects), then the entries. */
static void
emit_device (Importer *im,
             Streams  *st,
             Totals   *totals,
             guint     device,
             TsTime    start_time,
             guint    *n_before,
             guint    *n_ghost)
{
  g_autoptr(GHashTable) segs = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr(GHashTable) blocks = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr(GArray) seg_list = g_array_new (FALSE, FALSE, sizeof (SegItem));
  TsSourceLoc before = TS_SOURCE_LOC_NONE;

  for (guint i = 0; i < im->segments->len; i++)
    {
      Segment *s = im->segments->pdata[i];
      LiveSeg ls = { s->size, s->stream, s->is_small, TRUE, s->is_expandable, s->pool_id };
      if (s->device != device)
        continue;
      g_hash_table_insert (segs, ADDR_KEY (s->addr), g_memdup2 (&ls, sizeof ls));
      for (guint j = 0; j < s->blocks->len; j++)
        {
          Block *b = &g_array_index (s->blocks, Block, j);
          LiveBlock lb = { b->size, b->requested, b->state, FALSE, b->loc, TRUE };
          g_hash_table_insert (blocks, ADDR_KEY (b->addr), g_memdup2 (&lb, sizeof lb));
        }
    }

  for (guint i = im->entries.len; i-- > 0;)
    {
      Entry *e = entry_at (&im->entries, i);
      LiveBlock *lb;

      if (e->device != device)
        continue;
      switch (e->action)
        {
        case TS_ALLOC_ACTION_ALLOC:
          /* the alloc of a block still live at the snapshot: its size is
           * the snapshot's, whatever the sizer would make of the request */
          lb = g_hash_table_lookup (blocks, ADDR_KEY (e->addr));
          if (lb != NULL && lb->exact)
            g_hash_table_insert (im->final_sizes, GUINT_TO_POINTER (i), g_memdup2 (&lb->size, sizeof lb->size));
          g_hash_table_remove (blocks, ADDR_KEY (e->addr));
          break;
        case TS_ALLOC_ACTION_FREE_REQUESTED:
        case TS_ALLOC_ACTION_FREE_COMPLETED:
          {
            /* before its free was requested the block was allocated;
             * before the free completed, pending */
            guint32 state = e->action == TS_ALLOC_ACTION_FREE_REQUESTED ? ST_ALLOCATED : ST_PENDING;

            lb = g_hash_table_lookup (blocks, ADDR_KEY (e->addr));
            if (lb == NULL)
              {
                LiveBlock n = { before_size (im, e), e->size, state, TRUE, e->loc };
                g_hash_table_insert (blocks, ADDR_KEY (e->addr), g_memdup2 (&n, sizeof n));
              }
            else
              lb->state = state, lb->touched = TRUE;
          }
          break;
        case TS_ALLOC_ACTION_SEGMENT_ALLOC:
          g_hash_table_remove (segs, ADDR_KEY (e->addr));
          break;
        case TS_ALLOC_ACTION_SEGMENT_FREE:
        case TS_ALLOC_ACTION_SEGMENT_UNMAP:
          {
            TsMemPoolId none = { 0, 0 };
            LiveSeg ls = { e->size, e->stream, guess_small (e->action, e->size), FALSE,
                           e->action == TS_ALLOC_ACTION_SEGMENT_UNMAP, none };
            const LiveSeg *next_to = ls.is_expandable ? adjacent_range (segs, e->addr, e->size, e->stream) : NULL;

            /* unmapped pages were part of the range beside them */
            if (next_to != NULL)
              ls.is_small = next_to->is_small, ls.pool_id = next_to->pool_id;
            g_hash_table_insert (segs, ADDR_KEY (e->addr), g_memdup2 (&ls, sizeof ls));
          }
          break;
        case TS_ALLOC_ACTION_SEGMENT_MAP:
          unmap_range (segs, e->addr, e->size);
          break;
        default:
          break;
        }
    }

  /* The initial state, in address order. */
  {
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init (&it, segs);
    while (g_hash_table_iter_next (&it, &k, &v))
      {
        SegItem si = { GPOINTER_TO_SIZE (k), *(LiveSeg *) v };
        g_array_append_val (seg_list, si);
      }
    g_array_sort (seg_list, cmp_seg_item);
  }
  {
    g_autoptr(GArray) addrs = g_array_new (FALSE, FALSE, sizeof (guint64));
    GHashTableIter it;
    gpointer k;
    guint bi = 0;

    g_hash_table_iter_init (&it, blocks);
    while (g_hash_table_iter_next (&it, &k, NULL))
      { guint64 a64 = GPOINTER_TO_SIZE (k); g_array_append_val (addrs, a64); }
    g_array_sort (addrs, cmp_u64);
    if (addrs->len > 0)
      before.file = ts_recorder_intern (im->rec, "<allocated before recording started>");

    for (guint i = 0; i < seg_list->len; i++)
      {
        SegItem *si = &g_array_index (seg_list, SegItem, i);
        guint64 end = si->addr + si->seg.size, cursor = si->addr;
        g_autoptr(GArray) fillers = g_array_new (FALSE, FALSE, sizeof (guint64) * 2);

        emit_alloc (im, st, totals, start_time, device,
                    si->seg.is_expandable ? TS_ALLOC_ACTION_SEGMENT_MAP : TS_ALLOC_ACTION_SEGMENT_ALLOC,
                    si->addr, si->seg.size, 0, si->seg.stream, si->seg.is_small, si->seg.pool_id, before);
        /* skip blocks below this segment (outside every segment) */
        while (bi < addrs->len && g_array_index (addrs, guint64, bi) < si->addr)
          bi++;
        for (; bi < addrs->len && g_array_index (addrs, guint64, bi) < end; bi++)
          {
            guint64 a = g_array_index (addrs, guint64, bi);
            LiveBlock *lb = g_hash_table_lookup (blocks, ADDR_KEY (a));
            if (a < cursor || lb->size == 0 || lb->size > end - a)
              continue;
            if (a > cursor)
              {
                guint64 f[2] = { cursor, a - cursor };
                emit_alloc (im, st, totals, start_time, device, TS_ALLOC_ACTION_ALLOC,
                            cursor, a - cursor, a - cursor, si->seg.stream, si->seg.is_small, si->seg.pool_id, before);
                g_array_append_val (fillers, f);
              }
            emit_alloc (im, st, totals, start_time, device, TS_ALLOC_ACTION_ALLOC,
                        a, lb->size, lb->requested, si->seg.stream, si->seg.is_small, si->seg.pool_id,
                        lb->loc.file != 0 ? lb->loc : before);
            if (lb->state == ST_PENDING)
              emit_alloc (im, st, totals, start_time, device, TS_ALLOC_ACTION_FREE_REQUESTED,
                          a, lb->size, lb->requested, si->seg.stream, si->seg.is_small, si->seg.pool_id, lb->loc);
            (*n_before)++;
            if (!lb->touched)
              (*n_ghost)++;
            cursor = a + lb->size;
          }
        for (guint f = 0; f < fillers->len; f++)
          {
            guint64 *fp = &g_array_index (fillers, guint64, 2 * f);
            emit_alloc (im, st, totals, start_time, device, TS_ALLOC_ACTION_FREE_REQUESTED,
                        fp[0], fp[1], fp[1], si->seg.stream, si->seg.is_small, si->seg.pool_id, before);
            emit_alloc (im, st, totals, start_time, device, TS_ALLOC_ACTION_FREE_COMPLETED,
                        fp[0], fp[1], fp[1], si->seg.stream, si->seg.is_small, si->seg.pool_id, before);
          }
      }
  }

}

/* Pinned host memory (record_pinned_host_memory=True, PyTorch 2.13 on)
 * comes as "host_segments" and "host_traces". Tensorscope draws device
 * memory only, and the entries' fields are not documented where this was
 * written: they are counted and said to be left out, not guessed at. */
static guint
count_entries (const TsValue *v)
{
  guint n = 0;

  if (v == NULL || v->type != TS_VALUE_LIST)
    return 0;
  for (guint i = 0; i < ts_value_len (v); i++)
    {
      const TsValue *item = ts_value_index (v, i);
      n += item != NULL && item->type == TS_VALUE_LIST ? ts_value_len (item) : 1;
    }
  return n;
}

static void
note_host_memory (TsImportContext *ctx,
                  const TsValue   *root)
{
  const TsValue *segs = ts_value_get (root, "host_segments");
  const TsValue *traces = ts_value_get (root, "host_traces");

  if (segs == NULL && traces == NULL)
    return;
  ts_import_note (ctx, "memory snapshot: pinned host memory was recorded (%u host segments, %u host trace "
                  "entries): not shown, Tensorscope shows device memory only", count_entries (segs),
                  count_entries (traces));
}

static void
emit_annotations (Importer      *im,
                  const TsValue *annotations,
                  gint64         epoch_us)
{
  guint32 thread = im->ctx->thread_base + im->ctx->n_threads_used;
  g_autoptr(GHashTable) open = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  TsThreadRecord tr = { thread, 0 };
  guint64 next_id = 1;
  guint n = 0;

  if (ts_value_len (annotations) == 0)
    return;
  tr.name = ts_recorder_intern (im->rec, "Memory snapshot annotations");
  ts_recorder_append (im->rec, TS_RECORD_THREAD, &tr);
  im->ctx->n_threads_used++;
  for (guint i = 0; i < ts_value_len (annotations); i++)
    {
      const TsValue *a = ts_value_index (annotations, i);
      const char *name = ts_value_get_str (a, "name"), *stage = ts_value_get_str (a, "stage");
      gint64 t = 0;
      TsNvtxRecord r = { 0 };

      if (name == NULL || stage == NULL || !ts_value_get_int (a, "time_us", &t))
        continue;
      r.time = us_to_ns (clamp_us (t) - epoch_us);
      r.thread = thread;
      r.message = ts_recorder_intern (im->rec, name);
      if (g_str_equal (stage, "START"))
        {
          r.kind = TS_NVTX_RANGE_START;
          r.range_id = next_id++;
          g_hash_table_replace (open, g_strdup (name), GSIZE_TO_POINTER (r.range_id));
        }
      else
        {
          gpointer id = g_hash_table_lookup (open, name);
          if (id == NULL)
            continue;
          r.kind = TS_NVTX_RANGE_END;
          r.range_id = GPOINTER_TO_SIZE (id);
          g_hash_table_remove (open, name);
        }
      ts_recorder_append (im->rec, TS_RECORD_NVTX, &r);
      n++;
    }
  (void) n;
}

/* An entry's size as a record's: PyTorch's alloc and free entries carry
 * the request, the record the block. */
static guint64
entry_block_size (Importer    *im,
                  guint        i,
                  const Entry *e)
{
  const guint64 *known;

  switch (e->action)
    {
    case TS_ALLOC_ACTION_ALLOC:
      if ((known = g_hash_table_lookup (im->final_sizes, GUINT_TO_POINTER (i))) != NULL)
        return *known;
      return ts_block_sizer_alloc_size (im->sizer, e->device, e->addr, e->size);
    case TS_ALLOC_ACTION_FREE_REQUESTED:
    case TS_ALLOC_ACTION_FREE_COMPLETED:
      return ts_block_sizer_block_size (im->sizer, e->device, e->addr, e->size);
    default:
      return e->size;
    }
}

/* The allocator settings that decide block sizes: expandable_segments
 * and roundup_power2_divisions (a dict of interval start in MiB, "1" to
 * "32768", to divisions; older files have none). */
static TsBlockSizer *
sizer_new (const TsValue *root)
{
  TsBlockSizerConfig config = { 0 };
  const TsValue *settings = root->type == TS_VALUE_DICT ? ts_value_get (root, "allocator_settings") : NULL;
  const TsValue *exp = ts_value_get (settings, "expandable_segments");
  const TsValue *div = ts_value_get (settings, "roundup_power2_divisions");

  config.expandable = exp != NULL && exp->type == TS_VALUE_BOOL && exp->b;
  if (div != NULL && div->type == TS_VALUE_DICT)
    for (guint i = 0; i + 1 < div->items->len; i += 2)
      {
        const TsValue *k = div->items->pdata[i], *v = div->items->pdata[i + 1];
        guint64 mib;

        if (k->type != TS_VALUE_STRING || v->type != TS_VALUE_INT || v->i < 0 ||
            !g_ascii_string_to_unsigned (k->s.str, 10, 1, G_GUINT64_CONSTANT (1) << 40, &mib, NULL) ||
            (mib & (mib - 1)) != 0)
          continue;
        config.divisions[MIN (63 - __builtin_clzll (mib), TS_ROUNDUP_INTERVALS - 1)] = (guint64) v->i;
      }
  return ts_block_sizer_new (&config);
}

gboolean
ts_snapshot_import (TsImportContext *ctx,
                    TsImportInput   *in,
                    gboolean         is_pickle,
                    GError         **error)
{
  Importer im = { 0 };
  g_autoptr(TsValue) root = NULL;
  gboolean ok;
  gint64 first_us = G_MAXINT64, epoch_us;
  gboolean any_time = FALSE, overflowed = FALSE;
  Streams st = { 0 };
  Totals totals[64] = { { 0 } };
  guint n_before = 0, n_ghost = 0, n_devices;

  im.ctx = ctx;
  im.rec = ctx->rec;
  im.segments = g_ptr_array_new_with_free_func (segment_free);
  im.frame_info = g_array_new (FALSE, FALSE, sizeof (FrameInfo));
  im.alloc_buf = g_new (TsAllocRecord, BATCH);
  im.counter_buf = g_new (TsCounterRecord, BATCH);
  im.entries.chunks = g_ptr_array_new_with_free_func (g_free);
  im.final_sizes = g_hash_table_new_full (NULL, NULL, NULL, g_free);

  if (is_pickle)
    ok = ts_pickle_read (in, add_item, &im, &root, error);
  else
    {
      TsJsonReader r;
      ts_json_reader_init (&r, in);
      ok = read_json (&im, &r, &root, error);
      ts_json_reader_clear (&r);
    }
  if (ok && root->type == TS_VALUE_LIST)
    {
      /* a bare list (PyTorch 1.12) holds segment dicts, streamed away */
      if (im.segments->len == 0 && ts_value_len (root) > 0)
        {
          g_set_error (error, TS_IMPORT_ERROR, TS_IMPORT_ERROR_FORMAT,
                       "not a memory snapshot: a list that holds no segments");
          ok = FALSE;
        }
    }
  else if (ok && root->type != TS_VALUE_DICT)
    {
      g_set_error (error, TS_IMPORT_ERROR, TS_IMPORT_ERROR_FORMAT, "not a memory snapshot: the pickle holds no dict");
      ok = FALSE;
    }
  if (!ok)
    goto out;
  im.sizer = sizer_new (root);
  if (im.segments->len == 0 && im.entries.len == 0 && root->type == TS_VALUE_DICT &&
      ts_value_get (root, "segments") == NULL && ts_value_get (root, "device_traces") == NULL)
    {
      g_set_error (error, TS_IMPORT_ERROR, TS_IMPORT_ERROR_FORMAT,
                   "not a memory snapshot: no \"segments\" or \"device_traces\"");
      ok = FALSE;
      goto out;
    }

  for (guint i = 0; i < im.entries.len; i++)
    {
      Entry *e = entry_at (&im.entries, i);
      if (e->has_time)
        {
          first_us = MIN (first_us, e->time_us);
          any_time = TRUE;
        }
    }
  {
    const TsValue *ann = root->type == TS_VALUE_DICT ? ts_value_get (root, "external_annotations") : NULL;
    for (guint i = 0; i < ts_value_len (ann); i++)
      {
        gint64 t;
        if (ts_value_get_int (ts_value_index (ann, i), "time_us", &t))
          {
            first_us = MIN (first_us, clamp_us (t));
            any_time = TRUE;
          }
      }
  }
  if (!any_time)
    first_us = 0;
  if (!ctx->have_epoch)
    {
      ctx->have_epoch = TRUE;
      /* One µs before the first entry: room for the reconstructed state. */
      ctx->epoch_ns = us_to_ns (first_us - 1);
    }
  epoch_us = ctx->epoch_ns / 1000;

  n_devices = im.any_device ? im.max_device + 1 : 0;
  for (guint d = 0; d < n_devices; d++)
    {
      TsDeviceRecord dr = { 0 };
      g_autofree char *name = NULL;
      gboolean exists = FALSE;

      for (gsize k = 0; k < ts_recorder_get_count (ctx->rec, TS_RECORD_DEVICE); k++)
        {
          TsDeviceRecord o;
          ts_recorder_get (ctx->rec, TS_RECORD_DEVICE, k, &o);
          exists |= o.index == d + ctx->device_base;
        }
      if (exists)
        continue;
      name = g_strdup_printf ("CUDA device %u", d);
      dr.index = d + ctx->device_base;
      dr.name = ts_recorder_intern (ctx->rec, name);
      dr.model = ts_recorder_intern (ctx->rec, "pytorch-snapshot");
      ts_recorder_append (ctx->rec, TS_RECORD_DEVICE, &dr);
    }
  ctx->n_devices_used = MAX (ctx->n_devices_used, ctx->device_base + n_devices);

  im.counter_window = 1000;
  if (any_time && im.entries.len > 0)
    {
      gint64 last_us = G_MININT64;
      for (guint i = 0; i < im.entries.len; i++)
        if (entry_at (&im.entries, i)->has_time)
          last_us = MAX (last_us, entry_at (&im.entries, i)->time_us);
      if (last_us > first_us)
        im.counter_window = MAX ((TsTime) 1000, us_to_ns (last_us - first_us) / 1000000);
    }
  for (guint d = 0; d < 64; d++)
    totals[d].peak = G_MININT64;
  st.map = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint d = 0; d < n_devices; d++)
    {
      TsTime start = us_to_ns (first_us - epoch_us) - 1;
      im.synthetic = TRUE;
      emit_device (&im, &st, totals, d, start, &n_before, &n_ghost);
      im.synthetic = FALSE;
    }
  /* The entries, in order; entries without time_us are 1 µs apart. */
  {
    TsTime last = 0;
    g_autoptr(GPtrArray) by_addr = g_ptr_array_new ();
    for (guint s = 0; s < im.segments->len; s++)
      g_ptr_array_add (by_addr, im.segments->pdata[s]);
    g_ptr_array_sort (by_addr, cmp_segment_ptr);
    for (guint i = 0; i < im.entries.len; i++)
      {
        Entry *e = entry_at (&im.entries, i);
        TsTime t = e->has_time ? us_to_ns (e->time_us - epoch_us) : (TsTime) (i + 1) * 1000;
        TsMemPoolId pool_id = { 0, 0 };
        gboolean small;

        last = MAX (last, t);
        /* The pool matters for segment actions (2 MiB segments are the
         * small pool's) and OOMs (requests up to 1 MiB); allocs take
         * their segment's. A segment still live at the snapshot says it
         * (and a mapping's pages lie inside a final mapped range). */
        small = e->action == TS_ALLOC_ACTION_OOM ? e->size <= (1u << 20) : guess_small (e->action, e->size);
        if (e->action == TS_ALLOC_ACTION_SEGMENT_ALLOC || e->action == TS_ALLOC_ACTION_SEGMENT_FREE ||
            e->action == TS_ALLOC_ACTION_SEGMENT_MAP || e->action == TS_ALLOC_ACTION_SEGMENT_UNMAP)
          {
            gboolean pages = e->action == TS_ALLOC_ACTION_SEGMENT_MAP || e->action == TS_ALLOC_ACTION_SEGMENT_UNMAP;
            const Segment *sg = final_segment_at (by_addr, e->device, e->addr, pages);
            if (sg != NULL)
              small = sg->is_small, pool_id = sg->pool_id;
          }
        emit_alloc (&im, &st, totals, t, e->device, e->action, e->addr, entry_block_size (&im, i, e),
                    e->action == TS_ALLOC_ACTION_ALLOC || e->action == TS_ALLOC_ACTION_FREE_REQUESTED ||
                    e->action == TS_ALLOC_ACTION_FREE_COMPLETED ? e->size : 0,
                    e->stream, small, pool_id, e->loc);
        /* Entries become records: free each chunk once written, so the
         * two never both hold the whole trace. */
        if ((i & (CHUNK_SIZE - 1)) == CHUNK_SIZE - 1)
          g_clear_pointer (&im.entries.chunks->pdata[i >> CHUNK_SHIFT], g_free);
      }
    (void) last;
    for (guint d = 0; d < n_devices; d++)
      flush_counters (&im, &totals[d], d + ctx->device_base);
    flush_batches (&im);
  }

  {
    TsValue *settings = ts_value_get (root, "allocator_settings");
    TsValue *ov = ts_value_get (settings, "trace_alloc_overflowed");
    gint64 max_entries = 0;
    const char *conf = ts_value_get_str (settings, "PYTORCH_CUDA_ALLOC_CONF");

    overflowed = ov != NULL && ((ov->type == TS_VALUE_BOOL && ov->b) || (ov->type == TS_VALUE_INT && ov->i != 0));
    if (overflowed)
      {
        if (ts_value_get_int (settings, "trace_alloc_max_entries", &max_entries))
          ts_import_note (ctx, "memory snapshot: the trace ring buffer overflowed (max_entries %" G_GINT64_FORMAT
                          "): the oldest allocator actions are lost; the state before the first kept action "
                          "is rebuilt from the snapshot's segments", max_entries);
        else
          ts_import_note (ctx, "memory snapshot: the trace ring buffer overflowed: the oldest allocator actions "
                          "are lost; the state before the first kept action is rebuilt from the snapshot's segments");
      }
    if (conf != NULL && *conf != '\0')
      ts_import_note (ctx, "memory snapshot: allocator settings: PYTORCH_CUDA_ALLOC_CONF=%s", conf);
    emit_annotations (&im, ts_value_get (root, "external_annotations"), epoch_us);
    note_host_memory (ctx, root);
  }
  ts_import_note (ctx, "memory snapshot: %u segments, %u trace entries on %u devices%s",
                  im.segments->len, im.entries.len, n_devices,
                  im.n_legacy_blocks > 0 ? " (PyTorch 1.13 form: stacks from block history)" : "");
  if (n_before > 0)
    ts_import_note (ctx, "memory snapshot: %u blocks were allocated before the trace starts "
                    "(%u never appear in it: allocated before recording started%s); they are shown "
                    "from the start, rebuilt from the snapshot's segments as memory_viz does",
                    n_before, n_ghost, overflowed ? " or lost in the ring buffer" : "");
  if (im.entries.len == 0 && im.segments->len > 0)
    ts_import_note (ctx, "memory snapshot: no allocator history (device_traces empty or absent): "
                    "only the state at the time of the snapshot is shown");
  if (im.n_unknown_actions > 0 || im.n_bad_entries > 0)
    ts_import_note (ctx, "memory snapshot: skipped %u entries with unknown actions and %u malformed entries",
                    im.n_unknown_actions, im.n_bad_entries);

out:
  if (st.map != NULL)
    g_hash_table_unref (st.map);
  g_ptr_array_unref (im.segments);
  g_array_unref (im.frame_info);
  g_free (im.alloc_buf);
  g_free (im.counter_buf);
  g_ptr_array_unref (im.entries.chunks);
  g_clear_pointer (&im.sizer, ts_block_sizer_free);
  g_hash_table_unref (im.final_sizes);
  return ok;
}
