/* ts-memory-fragmentation.c: why memory is reserved but not usable
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ts-memory-fragmentation.h"
#include "ts-trace-i18n-private.h"

#define MiB_ G_GUINT64_CONSTANT (1048576)

char *
ts_memory_format_bytes (guint64 bytes)
{
  static const char *units[] = { "KiB", "MiB", "GiB", "TiB" };
  double v = (double) bytes;
  guint u = 0;

  if (bytes < 1024)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
  v /= 1024;
  while (v >= 1024 && u + 1 < G_N_ELEMENTS (units))
    v /= 1024, u++;
  return g_strdup_printf ("%.1f %s", v, units[u]);
}

char *
ts_memory_format_loc (TsRecorder        *recorder,
                      const TsSourceLoc *loc)
{
  const char *file;
  const char *slash;

  if (loc == NULL || loc->file == 0)
    return g_strdup (_("an unknown line"));
  /* The script's name, not where it ran from: a run from the app uses a
   * temporary copy whose directory means nothing to the reader. */
  file = ts_recorder_lookup (recorder, loc->file);
  slash = file != NULL ? strrchr (file, '/') : NULL;
  return g_strdup_printf ("%s:%u", slash != NULL ? slash + 1 : file, loc->line);
}

char *
ts_memory_pool_name (TsMemPoolId id)
{
  g_autofree char *pair = NULL;

  if (TS_MEM_POOL_ID_IS_NONE (id))
    return g_strdup (_("default pool"));
  /* MempoolId_t (n, 0) is what CUDAGraph::capture_begin makes when given
   * no pool; (0, n) comes from graph_pool_handle() or a MemPool. */
  pair = g_strdup_printf ("(%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ")", id.first, id.second);
  /* Translators: %s is a pool id such as (1, 0) */
  return g_strdup_printf (id.second == 0 ? _("graph pool %s") : _("private pool %s"), pair);
}

static TsMemoryFreeSpace *
free_space_for (GArray                *spaces,
                const TsMemorySegment *seg)
{
  TsMemoryFreeSpace fs = { 0 };

  for (guint k = 0; k < spaces->len; k++)
    {
      TsMemoryFreeSpace *s = &g_array_index (spaces, TsMemoryFreeSpace, k);
      if (s->is_small == seg->is_small && s->stream == seg->stream && TS_MEM_POOL_ID_EQUAL (s->pool_id, seg->pool_id))
        return s;
    }
  fs.is_small = seg->is_small;
  fs.stream = seg->stream;
  fs.pool_id = seg->pool_id;
  g_array_append_val (spaces, fs);
  return &g_array_index (spaces, TsMemoryFreeSpace, spaces->len - 1);
}

static int
compare_free_space (gconstpointer a,
                    gconstpointer b)
{
  const TsMemoryFreeSpace *x = a, *y = b;

  /* the default pool first, then private pools by id */
  if (x->pool_id.first != y->pool_id.first)
    return x->pool_id.first < y->pool_id.first ? -1 : 1;
  if (x->pool_id.second != y->pool_id.second)
    return x->pool_id.second < y->pool_id.second ? -1 : 1;
  if (x->is_small != y->is_small)
    return x->is_small ? 1 : -1;
  return x->stream < y->stream ? -1 : x->stream > y->stream;
}

typedef struct
{
  guint   segment;             /* into state->segments */
  guint64 free_bytes;
} Stuck;

static int
compare_stuck (gconstpointer a,
               gconstpointer b)
{
  const Stuck *x = a, *y = b;

  if (x->free_bytes != y->free_bytes)
    return x->free_bytes > y->free_bytes ? -1 : 1;
  return x->segment < y->segment ? -1 : x->segment > y->segment;
}

/* What holds a segment's free space: "1 live block of 5.0 MiB at offset 0
 * allocated at script.py:12; its 15.0 MiB free tail can't be returned ...".
 * Segments with the same text are told as one group. */
static char *
explain_segment (TsMemoryReplay        *replay,
                 const TsMemoryState   *state,
                 const TsMemorySegment *seg)
{
  TsRecorder *recorder = ts_memory_replay_get_recorder (replay);
  const TsMemoryBlock *blocks = &g_array_index (state->blocks, TsMemoryBlock, seg->first_block);
  const TsMemoryBlock *largest = NULL;
  guint n_live = 0, n_pending = 0, n_free = 0;
  guint64 free_bytes = 0;
  gboolean free_tail = FALSE, free_head = FALSE;
  g_autofree char *s_free = NULL, *s_live = NULL, *s_where = NULL;
  GString *out = g_string_new (NULL);

  for (guint j = 0; j < seg->n_blocks; j++)
    {
      const TsMemoryBlock *b = &blocks[j];

      if (b->state == TS_BLOCK_STATE_INACTIVE)
        {
          n_free++;
          free_bytes += b->size;
          free_head |= j == 0;
          free_tail |= j == seg->n_blocks - 1;
          continue;
        }
      n_live++;
      n_pending += b->state == TS_BLOCK_STATE_ACTIVE_PENDING_FREE;
      if (largest == NULL || b->size > largest->size)
        largest = b;
    }
  g_assert (largest != NULL);

  s_free = ts_memory_format_bytes (free_bytes);
  s_live = ts_memory_format_bytes (largest->size);
  s_where = ts_memory_format_loc (recorder, &ts_memory_replay_get_allocation (replay, largest->allocation)->loc);

  if (n_live == 1)
    g_string_append_printf (out, _("1 live block of %s at offset %llu allocated at %s"),
                            s_live, (unsigned long long) (largest->address - seg->address), s_where);
  else
    {
      g_autofree char *s_active = ts_memory_format_bytes (seg->active_size);

      g_string_append_printf (out, _("%u live blocks (%s; the largest, %s at offset %llu, allocated at %s)"),
                              n_live, s_active, s_live, (unsigned long long) (largest->address - seg->address),
                              s_where);
    }
  if (n_pending > 0)
    g_string_append_printf (out, _(", %u of them freed but waiting for the streams given to record_stream"),
                            n_pending);

  if (n_free == 1 && free_tail)
    g_string_append_printf (out, _("; its %s free tail"), s_free);
  else if (n_free == 1 && free_head)
    g_string_append_printf (out, _("; its %s free head"), s_free);
  else if (n_free == 1)
    g_string_append_printf (out, _("; its %s free hole"), s_free);
  else
    g_string_append_printf (out, _("; its %s of free space in %u pieces"), s_free, n_free);

  g_string_append (out, n_live == 1
                   ? _(" can't be returned to the device until that block is freed "
                       "(empty_cache only releases whole unused segments).")
                   : _(" can't be returned to the device until those blocks are freed "
                       "(empty_cache only releases whole unused segments)."));
  return g_string_free (out, FALSE);
}

/* Segments whose free space is stuck for the same reason, told once. */
typedef struct
{
  char    *text;      /* explain_segment's, with the size and pool before it */
  guint    first;     /* index into the segments of the first one */
  guint    count;
  GArray  *streams;   /* guint, sorted, each once */
  guint64  free_bytes;
} StuckGroup;

static void
stuck_group_clear (gpointer data)
{
  StuckGroup *g = data;

  g_free (g->text);
  g_array_unref (g->streams);
}

static void
add_stream_once (GArray *streams,
                 guint   stream)
{
  guint i = 0;

  while (i < streams->len && g_array_index (streams, guint, i) < stream)
    i++;
  if (i == streams->len || g_array_index (streams, guint, i) != stream)
    g_array_insert_val (streams, i, stream);
}

static char *
format_streams (GArray *streams)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < streams->len; i++)
    g_string_append_printf (out, "%s%u", i > 0 ? ", " : "", g_array_index (streams, guint, i));
  return g_string_free (out, FALSE);
}

static char *
describe_group (const StuckGroup      *g,
                const TsMemorySegment *seg,
                const char            *s_seg)
{
  const char *pool = seg->is_small ? _("small pool") : _("large pool");
  unsigned long long addr = (unsigned long long) seg->address;
  g_autofree char *streams = format_streams (g->streams);

  if (g->count == 1)
    return g_strdup_printf (_("Segment 0x%llx (%s, %s, stream %u) holds %s"),
                            addr, s_seg, pool, seg->stream, g->text);
  if (g->streams->len == 1)
    return g_strdup_printf (_("%u segments (%s each, %s, stream %s; the first at 0x%llx) each hold %s"),
                            g->count, s_seg, pool, streams, addr, g->text);
  return g_strdup_printf (_("%u segments (%s each, %s, streams %s; the first at 0x%llx) each hold %s"),
                          g->count, s_seg, pool, streams, addr, g->text);
}

static void
explain_stuck (TsMemoryReplay        *replay,
               const TsMemoryState   *state,
               TsMemoryFragmentation *frag,
               GArray                *stuck,
               guint                  max_explanations)
{
  g_autoptr(GArray) groups = g_array_new (FALSE, TRUE, sizeof (StuckGroup));
  guint n_rest = 0;
  guint64 rest = 0;

  g_array_set_clear_func (groups, stuck_group_clear);
  for (guint k = 0; k < stuck->len; k++)
    {
      const Stuck *st = &g_array_index (stuck, Stuck, k);
      const TsMemorySegment *seg = &g_array_index (state->segments, TsMemorySegment, st->segment);
      g_autofree char *body = explain_segment (replay, state, seg);
      StuckGroup *g = NULL;

      for (guint i = 0; i < groups->len && g == NULL; i++)
        {
          StuckGroup *c = &g_array_index (groups, StuckGroup, i);
          const TsMemorySegment *first = &g_array_index (state->segments, TsMemorySegment, c->first);

          if (first->total_size == seg->total_size && first->is_small == seg->is_small &&
              strcmp (c->text, body) == 0)
            g = c;
        }
      if (g == NULL && groups->len >= max_explanations)
        {
          n_rest++;
          rest += st->free_bytes;
          continue;
        }
      if (g == NULL)
        {
          StuckGroup fresh = { g_steal_pointer (&body), st->segment, 0, g_array_new (FALSE, FALSE, sizeof (guint)), 0 };

          g_array_append_val (groups, fresh);
          g = &g_array_index (groups, StuckGroup, groups->len - 1);
        }
      g->count++;
      g->free_bytes += st->free_bytes;
      add_stream_once (g->streams, seg->stream);
    }
  for (guint i = 0; i < groups->len; i++)
    {
      const StuckGroup *g = &g_array_index (groups, StuckGroup, i);
      const TsMemorySegment *seg = &g_array_index (state->segments, TsMemorySegment, g->first);
      g_autofree char *s_seg = ts_memory_format_bytes (seg->total_size);

      g_ptr_array_add (frag->explanations, describe_group (g, seg, s_seg));
    }
  if (n_rest > 0)
    {
      g_autofree char *s_rest = ts_memory_format_bytes (rest);

      g_ptr_array_add (frag->explanations,
                       g_strdup_printf (_("%u more split segments hold %s of free space that can't be released either."),
                                        n_rest, s_rest));
    }
}

/* The last OOM on the device at or before the instant. */
static const TsMemoryOom *
last_oom (TsMemoryReplay *replay,
          guint           device,
          gsize           index)
{
  const TsMemoryOom *found = NULL;
  guint n = ts_memory_replay_get_n_ooms (replay);

  for (guint k = 0; k < n; k++)
    {
      const TsMemoryOom *o = ts_memory_replay_get_oom (replay, k);

      if (o->action >= index)
        break;
      if (o->device == device)
        found = o;
    }
  return found;
}

/* Whether set_per_process_memory_fraction, not the device, is what stops
 * a new segment: the allocator refuses a cudaMalloc that would take the
 * reserved bytes past the allowed ones before it asks the device. */
static gboolean
fraction_binds (const TsMemoryOom *oom)
{
  guint64 reserved = (guint64) MAX (oom->reserved, 0);

  return oom->allowed > 0 && oom->allowed - MIN (reserved, oom->allowed) < oom->device_free;
}

/* What a new segment may still take: the device's free memory, or less
 * under a memory fraction. */
static guint64
oom_headroom (const TsMemoryOom *oom)
{
  guint64 reserved = (guint64) MAX (oom->reserved, 0);

  if (fraction_binds (oom))
    return oom->allowed - MIN (reserved, oom->allowed);
  return oom->device_free;
}

/* One sentence that names the limit a new segment ran into, once. */
static char *
explain_binding_limit (const TsMemoryOom *oom)
{
  g_autofree char *s_alloc = ts_memory_format_bytes (oom->alloc_size);
  g_autofree char *s_total = ts_memory_format_bytes (oom->device_total);
  g_autofree char *s_reserved = ts_memory_format_bytes ((guint64) MAX (oom->reserved, 0));

  if (fraction_binds (oom))
    {
      g_autofree char *s_allowed = ts_memory_format_bytes (oom->allowed);

      return g_strdup_printf (_("The binding limit is the per-process memory fraction: "
                                "torch.cuda.set_per_process_memory_fraction allows this process %s of the "
                                "device's %s, %s of it is reserved already, so a new segment of %s does not "
                                "fit, however much the device has free."),
                              s_allowed, s_total, s_reserved, s_alloc);
    }
  {
    g_autofree char *s_free = ts_memory_format_bytes (oom->device_free);

    return g_strdup_printf (_("The binding limit is the device's capacity: of its %s, %s is free, so "
                              "cudaMalloc of a new %s segment fails."),
                            s_total, s_free, s_alloc);
  }
}

static void
explain_oom (TsMemoryReplay        *replay,
             TsMemoryFragmentation *frag,
             const TsMemoryOom     *oom,
             guint64                max_split,
             guint64                split_segment)
{
  TsRecorder *recorder = ts_memory_replay_get_recorder (replay);
  TsMemoryFreeSpace *same = NULL;
  guint64 other_largest = 0;
  guint64 cached_total = (guint64) frag->cached_free;
  guint64 headroom = oom_headroom (oom);
  const char *s_head_what = fraction_binds (oom) ? _("that the memory fraction still allows") : _("never reserved");
  g_autofree char *s_req = ts_memory_format_bytes (oom->rounded_size);
  g_autofree char *s_total = ts_memory_format_bytes (cached_total + headroom);
  g_autofree char *s_cached = ts_memory_format_bytes (cached_total);
  g_autofree char *s_head = ts_memory_format_bytes (headroom);
  g_autofree char *s_where = ts_memory_format_loc (recorder, &oom->loc);
  g_autofree char *s_largest = NULL;
  g_autofree char *s_other = NULL;

  for (guint k = 0; k < frag->free_space->len; k++)
    {
      TsMemoryFreeSpace *fs = &g_array_index (frag->free_space, TsMemoryFreeSpace, k);

      /* only the failed malloc's pool could have served it */
      if (fs->is_small != oom->is_small || !TS_MEM_POOL_ID_EQUAL (fs->pool_id, oom->pool_id))
        continue;
      if (fs->stream == oom->stream)
        same = fs;
      else
        other_largest = MAX (other_largest, fs->largest_free);
    }
  s_largest = ts_memory_format_bytes (same ? same->largest_free : 0);

  if (cached_total + headroom >= oom->rounded_size)
    {
      GString *out = g_string_new (NULL);

      g_string_append_printf (out, _("A request of %s on stream %u (at %s) failed although %s is free in total "
                                     "(%s cached by the allocator plus %s %s), because the largest "
                                     "free block on stream %u is %s: a block serves one request whole, free "
                                     "blocks never merge across segments, and a stream never takes another "
                                     "stream's cached blocks."),
                              s_req, oom->stream, s_where, s_total, s_cached, s_head, s_head_what,
                              oom->stream, s_largest);
      if (other_largest >= oom->rounded_size)
        {
          s_other = ts_memory_format_bytes (other_largest);
          g_string_append_printf (out, _(" A free block of %s exists on another stream."), s_other);
        }
      g_ptr_array_add (frag->explanations, g_string_free (out, FALSE));
    }
  else
    g_ptr_array_add (frag->explanations,
                     g_strdup_printf (_("A request of %s on stream %u (at %s) failed: only %s is free in total "
                                        "(%s cached plus %s %s)."),
                                      s_req, oom->stream, s_where, s_total, s_cached, s_head, s_head_what));
  g_ptr_array_add (frag->explanations, explain_binding_limit (oom));

  /* Oversize splitting: big cached blocks cut up by smaller requests. A
   * limit just under the largest split segment keeps such blocks whole
   * and lets the OOM path release them. */
  if (!oom->is_small && max_split == TS_MEMORY_MAX_SPLIT_UNSET && split_segment > 32 * MiB_)
    {
      guint64 p2 = 32;
      g_autofree char *s_seg = ts_memory_format_bytes (split_segment);

      while ((p2 * 2) * MiB_ < split_segment)
        p2 *= 2;
      g_ptr_array_add (frag->explanations,
                       g_strdup_printf (_("Large cached blocks (up to %s) are being split by smaller requests. "
                                          "PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:%llu would keep blocks of "
                                          "%llu MiB and more whole and let the allocator release them to retry "
                                          "a failed request, at the cost of more cudaMalloc calls."),
                                        s_seg, (unsigned long long) p2, (unsigned long long) p2));
    }
}

TsMemoryFragmentation *
ts_memory_fragmentation_compute (TsMemoryReplay      *replay,
                                 const TsMemoryState *state,
                                 guint                device,
                                 guint                max_explanations)
{
  TsMemoryFragmentation *frag;
  const TsMemoryStats *st;
  g_autoptr(GArray) stuck = g_array_new (FALSE, FALSE, sizeof (Stuck));
  guint first = 0, n = 0, n_whole_free = 0;
  guint64 split_segment = 0;
  const TsMemoryOom *oom;

  g_return_val_if_fail (TS_IS_MEMORY_REPLAY (replay), NULL);
  g_return_val_if_fail (state != NULL, NULL);
  g_return_val_if_fail (device < state->n_devices, NULL);

  _ts_trace_i18n_init ();

  frag = g_new0 (TsMemoryFragmentation, 1);
  frag->device = device;
  frag->index = state->index;
  frag->free_space = g_array_new (FALSE, FALSE, sizeof (TsMemoryFreeSpace));
  frag->explanations = g_ptr_array_new_with_free_func (g_free);

  st = &state->stats[device];
  frag->reserved = st->reserved_bytes[TS_STAT_TYPE_ALL].current;
  frag->allocated = st->allocated_bytes[TS_STAT_TYPE_ALL].current;
  frag->active = st->active_bytes[TS_STAT_TYPE_ALL].current;
  frag->pending_free = frag->active - frag->allocated;
  frag->cached_free = frag->reserved - frag->active;
  frag->non_releasable = st->inactive_split_bytes[TS_STAT_TYPE_ALL].current;

  ts_memory_state_device_segments (state, device, &first, &n);
  for (guint k = first; k < first + n; k++)
    {
      const TsMemorySegment *seg = &g_array_index (state->segments, TsMemorySegment, k);
      guint64 seg_free = 0;

      for (guint j = 0; j < seg->n_blocks; j++)
        {
          const TsMemoryBlock *b = &g_array_index (state->blocks, TsMemoryBlock, seg->first_block + j);

          if (b->state == TS_BLOCK_STATE_INACTIVE)
            {
              TsMemoryFreeSpace *fs = free_space_for (frag->free_space, seg);

              fs->largest_free = MAX (fs->largest_free, b->size);
              fs->total_free += b->size;
              fs->n_free_blocks++;
              frag->largest_free[seg->is_small ? 1 : 0] = MAX (frag->largest_free[seg->is_small ? 1 : 0], b->size);
              seg_free += b->size;
            }
          else
            frag->internal_waste += (gint64) (b->size - b->requested_size);
        }
      if (seg->n_blocks == 1 && seg_free == seg->total_size)
        {
          frag->releasable += (gint64) seg->total_size;
          n_whole_free++;
        }
      else if (seg_free > 0)
        {
          Stuck s = { k, seg_free };

          if (!seg->is_small && seg_free > MiB_)
            split_segment = MAX (split_segment, seg->total_size);
          g_array_append_val (stuck, s);
        }
    }
  g_array_sort (frag->free_space, compare_free_space);
  g_array_sort (stuck, compare_stuck);

  oom = last_oom (replay, device, state->index);
  if (oom != NULL)
    explain_oom (replay, frag, oom, state->max_split_size[device], split_segment);

  explain_stuck (replay, state, frag, stuck, max_explanations);
  if (n_whole_free > 0)
    {
      g_autofree char *s_rel = ts_memory_format_bytes ((guint64) frag->releasable);

      g_ptr_array_add (frag->explanations,
                       g_strdup_printf (ngettext ("%u whole free segment (%s) would go back to the device on "
                                                  "torch.cuda.empty_cache().",
                                                  "%u whole free segments (%s) would go back to the device on "
                                                  "torch.cuda.empty_cache().",
                                                  n_whole_free),
                                        n_whole_free, s_rel));
    }
  return frag;
}

void
ts_memory_fragmentation_free (TsMemoryFragmentation *frag)
{
  if (frag == NULL)
    return;
  g_array_unref (frag->free_space);
  g_ptr_array_unref (frag->explanations);
  g_free (frag);
}

static void
row (GString    *out,
     const char *name,
     gint64      value)
{
  g_autofree char *human = ts_memory_format_bytes ((guint64) MAX (value, 0));

  g_string_append_printf (out, "  %-28s %16" G_GINT64_FORMAT " B  %12s\n", name, value, human);
}

char *
ts_memory_fragmentation_format (const TsMemoryFragmentation *frag)
{
  GString *out;

  g_return_val_if_fail (frag != NULL, NULL);

  out = g_string_new (NULL);
  g_string_append_printf (out, "Device %u\n", frag->device);
  row (out, "Reserved", frag->reserved);
  row (out, "Allocated", frag->allocated);
  row (out, "Pending free (record_stream)", frag->pending_free);
  row (out, "Cached free", frag->cached_free);
  row (out, "Non-releasable (split)", frag->non_releasable);
  row (out, "Releasable (whole segments)", frag->releasable);
  row (out, "Internal waste (rounding)", frag->internal_waste);
  row (out, "Largest free block, large", (gint64) frag->largest_free[0]);
  row (out, "Largest free block, small", (gint64) frag->largest_free[1]);

  if (frag->free_space->len > 0)
    {
      g_string_append (out, "\n  Pool   Stream   Free blocks   Largest free    Total free\n");
      for (guint k = 0; k < frag->free_space->len; k++)
        {
          const TsMemoryFreeSpace *fs = &g_array_index (frag->free_space, TsMemoryFreeSpace, k);
          g_autofree char *s_l = ts_memory_format_bytes (fs->largest_free);
          g_autofree char *s_t = ts_memory_format_bytes (fs->total_free);

          g_string_append_printf (out, "  %-5s  %6u   %11u   %12s  %12s",
                                  fs->is_small ? "small" : "large", fs->stream, fs->n_free_blocks, s_l, s_t);
          if (!TS_MEM_POOL_ID_IS_NONE (fs->pool_id))
            {
              g_autofree char *pool = ts_memory_pool_name (fs->pool_id);
              g_string_append_printf (out, "   %s", pool);
            }
          g_string_append_c (out, '\n');
        }
    }
  if (frag->explanations->len > 0)
    {
      g_string_append (out, "\n");
      for (guint k = 0; k < frag->explanations->len; k++)
        g_string_append_printf (out, "  - %s\n", (const char *) g_ptr_array_index (frag->explanations, k));
    }
  return g_string_free (out, FALSE);
}
