/* ts-recorder.c: the in-memory trace of a run
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Storage is columnar: each record kind has a table, and each field of the
 * kind (as listed in ts-record.c) has its own column. Columns are cut into
 * chunks of CHUNK_LEN values; the columns of one chunk share a single
 * allocation (a "slab"), field after field, so an append touches one slab
 * and a scan of one field reads contiguous memory. Chunks are never moved
 * or freed before the recorder, so appends never copy old data; only the
 * small array of slab pointers grows.
 *
 * Padding fields (TS_FIELD_PAD) are not stored: they read back as zero,
 * whatever the producer left in them, which keeps the content of a trace a
 * function of the appended values only.
 *
 * Besides the tables, an order log keeps one byte per event (a string or a
 * record, in the order they happened) so that a sink set late is replayed
 * exactly the sequence a sink set at the start would have seen.
 *
 * In bounded mode (ts_recorder_set_keep_records (FALSE), for runs that
 * stream their trace to a sink), a table keeps one slab of its own and
 * reuses it chunk after chunk: a record stays readable until its chunk is
 * overwritten, the order log stops, and memory no longer grows with the
 * number of records, only with the number of distinct strings. A bounded
 * recorder told to discard (a run nobody reads the trace of) and without
 * a sink only counts: copying the columns of records no one could read
 * was a tenth of a small op's cost.
 *
 * Strings live in an arena of large blocks (stable addresses) and are found
 * through an open-addressing hash table of ids.
 *
 * One mutex guards everything. Appends are short (a few dozen stores), so
 * a plain mutex costs little next to them; see benchmarks/bench-recorder.c.
 * It is a pthread mutex rather than a GMutex: measured on the dev machine,
 * an uncontended lock/unlock pair costs 3.3 ns against GMutex's 10 ns, a
 * fifth of the whole append.
 * Sinks run with the lock held and must not call back into the recorder.
 */

#define _GNU_SOURCE  /* PTHREAD_MUTEX_ADAPTIVE_NP */

#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

#include "ts-recorder.h"

#define CHUNK_SHIFT      10
#define CHUNK_LEN        (1u << CHUNK_SHIFT)
#define CHUNK_MASK       (CHUNK_LEN - 1)
#define MAX_COLUMNS      32   /* table_append's switch has as many cases */

#define ORDER_SHIFT      16
#define ORDER_LEN        (1u << ORDER_SHIFT)
#define ORDER_MASK       (ORDER_LEN - 1)
#define ORDER_STRING     0xff   /* an order-log byte for "a string was interned" */

#define ARENA_BLOCK_SIZE (64 * 1024)

/* Slabs, order-log chunks and string blocks are carved out of regions of
 * REGION_SIZE bytes, aligned for and advised into transparent huge pages:
 * with 4 KiB pages, faulting fresh memory in cost more than the appends
 * themselves (60% of the time, measured with perf). */
#define REGION_SIZE      (4u << 20)
#define REGION_ALIGN     (2u << 20)
/* The first region is left to normal pages, so that a recorder holding a
 * few records (tests, fuzzing, small runs) costs little: untouched pages
 * cost nothing. It holds every table's first slab and about a thousand
 * small ops more, time enough for the worker to fault the first full
 * region in (at 256 KiB it was full after a few records, and the first full
 * region, mapped then, cost a 0.3 to 5 ms stall some 3,000 ops later). */
#define FIRST_REGION_SIZE (1u << 20)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23   /* Linux 5.14 */
#endif
#define ARENA_BIG_STRING (ARENA_BLOCK_SIZE / 4)

typedef struct
{
  guint16 src;     /* offset of the field in the record struct */
  guint16 size;    /* 4 or 8 */
  guint   field;   /* index in the kind's field table */
  gsize   column;  /* offset of this column's values in a slab */
} Column;

typedef struct
{
  const TsRecordInfo *info;
  guint               n_columns;
  guint               n_columns8;   /* the 8-byte ones come first */
  Column              columns[MAX_COLUMNS];
  /* Where each stored field sits in a record, 8-byte columns first: the
   * append loop reads only these, and finds each column at a fixed
   * stride (CHUNK_LEN values) from the previous one. */
  guint16             src_offsets[MAX_COLUMNS];
  gsize               column4;      /* offset of the first 4-byte column */
  /* The padding fields, which the stored form has zeroed */
  guint16             pad_offsets[MAX_COLUMNS];
  guint16             pad_sizes[MAX_COLUMNS];
  guint               n_pads;
  gint                column_of_field[MAX_COLUMNS];  /* -1 for padding */
  gsize               slab_size;
  guint8            **slabs;        /* slabs[0] holds chunk first_chunk */
  gsize               n_slabs;
  gsize               slabs_alloc;
  gsize               first_chunk;  /* chunks before it were dropped */
  guint8             *own_slab;     /* bounded mode: the one reused slab */
  gsize               count;
  /* The latest run of stored records, [stored_begin, stored_end): those
   * outside it were only counted (ts_recorder_set_discard) */
  gsize               stored_begin;
  gsize               stored_end;
} Table;

typedef struct
{
  const char *str;
  guint32     len;
  guint32     hash;
} StringEntry;

/* A region mapped and faulted in by a worker thread while the recorder
 * fills the current one. The first touch of each 2 MiB huge page cost
 * 0.25 ms, and 4.7 ms in a VM whose host had to back fresh pages
 * (measured with a loop of one op, whose every ~2,400th call stalled that
 * long); done ahead, the thread that runs the workload never waits for it. Shared by the
 * recorder and the job (an atomic refcount), so that either may go
 * first; a region not taken is unmapped with the last reference. */
typedef struct
{
  guint8 *mem;     /* set by the job before ready; NULL once taken */
  gint    ready;   /* atomic */
} Spare;

struct _TsRecorder
{
  GObject         parent_instance;

  pthread_mutex_t mutex;

  Table           tables[TS_N_RECORD_KINDS];

  /* One byte per event: a TsRecordKind, or ORDER_STRING. */
  guint8        **order;
  gsize           n_order_chunks;
  gsize           order_alloc;
  gsize           n_events;

  /* Strings: entry 0 is "", ids are indexes. */
  StringEntry    *strings;
  guint           n_strings;   /* including entry 0 */
  guint           strings_alloc;
  guint32        *slots;       /* ids, 0 is an empty slot */
  guint32         slots_mask;
  GPtrArray      *arena;
  GPtrArray      *big_strings;
  gsize           arena_used;  /* bytes used in the last block */

  /* Regions of memory handed out by region_alloc(). */
  GArray         *regions;
  gsize           region_used;
  gsize           region_size;
  Spare          *spare;       /* the next region, faulted in ahead */

  TsRecorderSink  sink;
  gpointer        sink_data;
  gboolean        has_sink;
  gboolean        bounded;     /* !keep_records */
  gboolean        discard;     /* ts_recorder_set_discard */
  gboolean        counting;    /* bounded, discard and no sink: appends only count */
};

G_DEFINE_FINAL_TYPE (TsRecorder, ts_recorder, G_TYPE_OBJECT)

/* FNV-1a: simple, and the same on every machine. */
static guint32
hash_bytes (const char *str,
            gsize       len)
{
  guint32 h = 2166136261u;

  for (gsize i = 0; i < len; i++)
    {
      h ^= (guint8) str[i];
      h *= 16777619u;
    }

  return h;
}

typedef struct
{
  guint8 *mem;
  gsize   size;
} Region;

static void
region_clear (gpointer data)
{
  Region *region = data;

  munmap (region->mem, region->size);
}

/* Maps size bytes aligned to align straight from the kernel rather than
 * through malloc: an untouched page costs nothing, and malloc tuning such
 * as MALLOC_PERTURB_ (which meson sets for every test) cannot touch the
 * whole region, which made a recorder with three records cost 4 MiB of page
 * faults. */
static guint8 *
region_map (gsize size,
            gsize align)
{
  gsize span = size + align;
  guint8 *mem = mmap (NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  guint8 *aligned;

  if (mem == MAP_FAILED)
    g_error ("Could not allocate %" G_GSIZE_FORMAT " bytes for the recorder", size);

  aligned = (guint8 *) (((guintptr) mem + align - 1) & ~(guintptr) (align - 1));
  if (aligned > mem)
    munmap (mem, aligned - mem);
  if (aligned + size < mem + span)
    munmap (aligned + size, (mem + span) - (aligned + size));

  return aligned;
}

static void
spare_clear (gpointer data)
{
  Spare *spare = data;

  if (spare->mem != NULL)
    munmap (spare->mem, REGION_SIZE);
}

static void
spare_unref (Spare *spare)
{
  g_atomic_rc_box_release_full (spare, spare_clear);
}

static void
region_advise (guint8 *mem)
{
#ifdef MADV_HUGEPAGE
  madvise (mem, REGION_SIZE, MADV_HUGEPAGE);
#endif
}

/* Faults @size bytes at @mem in now */
static void
region_populate (guint8 *mem,
                 gsize   size)
{
  /* a kernel without MADV_POPULATE_WRITE: touch a byte a page */
  if (madvise (mem, size, MADV_POPULATE_WRITE) != 0)
    for (gsize i = 0; i < size; i += 4096)
      ((volatile guint8 *) mem)[i] = 0;
}

static void
spare_fill (gpointer data,
            gpointer user_data)
{
  Spare *spare = data;
  guint8 *mem = region_map (REGION_SIZE, REGION_ALIGN);

  region_advise (mem);
  region_populate (mem, REGION_SIZE);
  spare->mem = mem;
  g_atomic_int_set (&spare->ready, 1);
  spare_unref (spare);
}

static GThreadPool *
spare_pool (void)
{
  static gsize pool;

  if (g_once_init_enter (&pool))
    g_once_init_leave (&pool, (gsize) g_thread_pool_new (spare_fill, NULL, 1, FALSE, NULL));
  return (GThreadPool *) pool;
}

static void
spare_request (TsRecorder *self)
{
  self->spare = g_atomic_rc_box_new0 (Spare);
  g_thread_pool_push (spare_pool (), g_atomic_rc_box_acquire (self->spare), NULL);
}

/* A full region: the spare when it is ready (a new one is then asked
 * for), else one mapped here. */
static guint8 *
region_take_full (TsRecorder *self)
{
  guint8 *mem = NULL;

  if (self->spare != NULL && g_atomic_int_get (&self->spare->ready))
    {
      mem = g_steal_pointer (&self->spare->mem);
      g_clear_pointer (&self->spare, spare_unref);
    }
  if (self->spare == NULL)
    spare_request (self);
  if (mem == NULL)
    {
      mem = region_map (REGION_SIZE, REGION_ALIGN);
      region_advise (mem);
    }
  return mem;
}

/* Returns size bytes (at most REGION_SIZE) that live as long as the
 * recorder. Not zeroed (fresh regions are, but nothing relies on it). */
static guint8 *
region_alloc (TsRecorder *self,
              gsize       size)
{
  guint8 *region;

  g_assert (size <= REGION_SIZE);

  size = (size + 63) & ~(gsize) 63;

  if (self->regions->len == 0 || self->region_used + size > self->region_size)
    {
      gboolean first = self->regions->len == 0 && size <= FIRST_REGION_SIZE;
      Region fresh;

      fresh.size = first ? FIRST_REGION_SIZE : REGION_SIZE;
      fresh.mem = first ? region_map (fresh.size, 4096) : region_take_full (self);
      g_array_append_val (self->regions, fresh);
      self->region_used = 0;
      self->region_size = fresh.size;
    }

  region = g_array_index (self->regions, Region, self->regions->len - 1).mem;
  region += self->region_used;
  self->region_used += size;
  /* a recorder a quarter into its first region grows: its first full
   * region is faulted in ahead too (not in bounded mode, which only
   * keeps strings here) */
  if (G_UNLIKELY (self->spare == NULL && self->regions->len == 1 && !self->bounded &&
                  self->region_used > self->region_size / 4))
    spare_request (self);

  return region;
}

static void
table_init (Table              *table,
            const TsRecordInfo *info)
{
  gsize column = 0;

  g_assert (info->n_fields <= MAX_COLUMNS);

  table->info = info;

  /* 8-byte columns first, then 4-byte ones, each in field order. */
  for (guint pass = 0; pass < 2; pass++)
    {
      guint16 want = pass == 0 ? 8 : 4;

      for (guint f = 0; f < info->n_fields; f++)
        {
          const TsFieldInfo *fi = &info->fields[f];
          Column *c;

          if (pass == 0)
            table->column_of_field[f] = -1;
          if (pass == 0 && fi->type == TS_FIELD_PAD)
            {
              table->pad_offsets[table->n_pads] = fi->offset;
              table->pad_sizes[table->n_pads++] = fi->size;
            }

          if (fi->type == TS_FIELD_PAD || fi->size != want)
            continue;

          c = &table->columns[table->n_columns];
          c->src = fi->offset;
          c->size = fi->size;
          c->field = f;
          c->column = column;
          if (pass == 1 && table->n_columns == table->n_columns8)
            table->column4 = column;
          table->src_offsets[table->n_columns] = fi->offset;
          column += (gsize) fi->size * CHUNK_LEN;
          table->column_of_field[f] = table->n_columns;
          table->n_columns++;
          if (pass == 0)
            table->n_columns8++;
        }
    }

  table->slab_size = column;
}

static void
table_clear (Table *table)
{
  g_clear_pointer (&table->slabs, g_free);
  g_clear_pointer (&table->own_slab, g_free);
  table->first_chunk = 0;
  table->stored_begin = 0;
  table->stored_end = 0;
  table->n_slabs = 0;
  table->slabs_alloc = 0;
  table->count = 0;
}

static void
table_add_slab (TsRecorder *self,
                Table      *table)
{
  if (G_UNLIKELY (self->bounded) && table->count > 0)
    {
      /* the previous chunks went to the sink: reuse one slab for all */
      if (table->own_slab == NULL)
        table->own_slab = g_malloc (MAX (table->slab_size, 1));
      table->slabs[0] = table->own_slab;
      table->n_slabs = 1;
      table->first_chunk = table->count >> CHUNK_SHIFT;
      return;
    }
  if (table->n_slabs == table->slabs_alloc)
    {
      table->slabs_alloc = MAX (16, table->slabs_alloc * 2);
      table->slabs = g_renew (guint8 *, table->slabs, table->slabs_alloc);
    }

  table->slabs[table->n_slabs++] = region_alloc (self, MAX (table->slab_size, 1));
}

/* inlined into each append: its register saves were a sixth of its cost */
G_ALWAYS_INLINE static inline void
table_append (TsRecorder *self,
              Table      *table,
              const void *record)
{
  const guint8 *src = record;
  const guint16 *offsets = table->src_offsets;
  guint n8 = table->n_columns8;
  guint n = table->n_columns;
  gsize index = table->count;
  gsize i = index & CHUNK_MASK;
  guint8 *slab;
  guint8 *dst;

  if (i == 0)
    table_add_slab (self, table);

  /* A run whose records nobody reads: the count is all that is kept (the
   * chunk's slab stays in place, for when a hold stores again). */
  if (self->counting)
    {
      table->count++;
      return;
    }
  if (G_UNLIKELY (table->stored_end != index))
    table->stored_begin = index;
  table->stored_end = index + 1;

  slab = table->slabs[(index >> CHUNK_SHIFT) - table->first_chunk];

  /* Columns of one size follow each other CHUNK_LEN values apart (see
   * table_init), so the destination only needs a stride. A switch that
   * falls through from the kind's column count is straight-line code, a
   * load and a store a column: the loop's counting was half the cost of
   * the hundred column values a small op records. */
#define COPY(K, SIZE, DST, OFFSETS) \
  case (K) + 1: memcpy (DST + (gsize) (K) * (SIZE) * CHUNK_LEN, src + (OFFSETS)[K], SIZE); G_GNUC_FALLTHROUGH;
#define COPY_8(K, SIZE, DST, OFFSETS) \
  COPY (K + 7, SIZE, DST, OFFSETS) COPY (K + 6, SIZE, DST, OFFSETS) COPY (K + 5, SIZE, DST, OFFSETS) \
  COPY (K + 4, SIZE, DST, OFFSETS) COPY (K + 3, SIZE, DST, OFFSETS) COPY (K + 2, SIZE, DST, OFFSETS) \
  COPY (K + 1, SIZE, DST, OFFSETS) COPY (K, SIZE, DST, OFFSETS)
#define COPY_ALL(N, SIZE, DST, OFFSETS) \
  switch (N)                                                                  \
    {                                                                         \
    COPY_8 (24, SIZE, DST, OFFSETS) COPY_8 (16, SIZE, DST, OFFSETS)           \
    COPY_8 (8, SIZE, DST, OFFSETS) COPY_8 (0, SIZE, DST, OFFSETS)             \
    case 0: break;                                                            \
    default: g_assert_not_reached ();                                         \
    }
  dst = slab + i * 8;
  COPY_ALL (n8, 8, dst, offsets)
  dst = slab + table->column4 + i * 4;
  COPY_ALL (n - n8, 4, dst, offsets + n8)
#undef COPY_ALL
#undef COPY_8
#undef COPY

  table->count++;
}

/* Whether record @index is still held: not dropped with an old chunk in
 * bounded mode, nor only counted */
static inline gboolean
table_holds (const Table *table,
             gsize        index)
{
  return index >= table->stored_begin && index < table->stored_end &&
         (index >> CHUNK_SHIFT) >= table->first_chunk;
}

/* @record as table_get() gives it back once stored: a copy with its
 * padding zeroed (the field tables cover every byte of a struct, see
 * /recorder/field-tables). For the sink, without reading the columns back:
 * that was half of what a streamed record cost the thread that made it. */
static inline void
table_stored_form (const Table *table,
                   const void  *record,
                   void        *out)
{
  memcpy (out, record, table->info->struct_size);
  for (guint p = 0; p < table->n_pads; p++)
    memset ((guint8 *) out + table->pad_offsets[p], 0, table->pad_sizes[p]);
}

static void
table_get (const Table *table,
           gsize        index,
           void        *out)
{
  guint8 *dst = out;
  const guint8 *slab;
  gsize i = index & CHUNK_MASK;
  guint c;

  g_assert (table_holds (table, index));
  slab = table->slabs[(index >> CHUNK_SHIFT) - table->first_chunk];

  memset (out, 0, table->info->struct_size);

  for (c = 0; c < table->n_columns8; c++)
    memcpy (dst + table->columns[c].src, slab + table->columns[c].column + i * 8, 8);
  for (; c < table->n_columns; c++)
    memcpy (dst + table->columns[c].src, slab + table->columns[c].column + i * 4, 4);
}

static inline void
order_log (TsRecorder *self,
           guint8      event)
{
  gsize i = self->n_events & ORDER_MASK;

  if (G_UNLIKELY (self->bounded))
    return;

  if (i == 0)
    {
      if (self->n_order_chunks == self->order_alloc)
        {
          self->order_alloc = MAX (16, self->order_alloc * 2);
          self->order = g_renew (guint8 *, self->order, self->order_alloc);
        }
      self->order[self->n_order_chunks++] = region_alloc (self, ORDER_LEN);
    }

  self->order[self->n_events >> ORDER_SHIFT][i] = event;
  self->n_events++;
}

static const char *
arena_copy (TsRecorder *self,
            const char *str,
            gsize       len)
{
  char *block;

  if (len + 1 > ARENA_BIG_STRING)
    {
      /* Big strings get their own allocation, kept apart so that the
       * last arena block is always the one being filled. */
      block = g_malloc (len + 1);
      memcpy (block, str, len);
      block[len] = 0;
      g_ptr_array_add (self->big_strings, block);
      return block;
    }

  if (self->arena->len == 0 || self->arena_used + len + 1 > ARENA_BLOCK_SIZE)
    {
      g_ptr_array_add (self->arena, region_alloc (self, ARENA_BLOCK_SIZE));
      self->arena_used = 0;
    }

  block = (char *) g_ptr_array_index (self->arena, self->arena->len - 1) + self->arena_used;
  memcpy (block, str, len);
  block[len] = 0;
  self->arena_used += len + 1;

  return block;
}

static void
slots_insert (guint32     *slots,
              guint32      mask,
              guint32      hash,
              guint32      id)
{
  guint32 pos = hash & mask;

  while (slots[pos] != 0)
    pos = (pos + 1) & mask;
  slots[pos] = id;
}

static void
slots_grow (TsRecorder *self)
{
  guint32 new_mask = self->slots_mask * 2 + 1;
  guint32 *new_slots = g_new0 (guint32, (gsize) new_mask + 1);

  for (guint id = 1; id < self->n_strings; id++)
    slots_insert (new_slots, new_mask, self->strings[id].hash, id);

  g_free (self->slots);
  self->slots = new_slots;
  self->slots_mask = new_mask;
}

static void
ts_recorder_finalize (GObject *object)
{
  TsRecorder *self = (TsRecorder *) object;

  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    table_clear (&self->tables[k]);

  g_clear_pointer (&self->order, g_free);

  g_clear_pointer (&self->strings, g_free);
  g_clear_pointer (&self->slots, g_free);
  g_clear_pointer (&self->arena, g_ptr_array_unref);
  g_clear_pointer (&self->big_strings, g_ptr_array_unref);
  g_clear_pointer (&self->regions, g_array_unref);
  g_clear_pointer (&self->spare, spare_unref);

  pthread_mutex_destroy (&self->mutex);

  G_OBJECT_CLASS (ts_recorder_parent_class)->finalize (object);
}

static void
ts_recorder_class_init (TsRecorderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ts_recorder_finalize;
}

static void
ts_recorder_init (TsRecorder *self)
{
  {
    pthread_mutexattr_t attr;

    /* Adaptive: spin a little before sleeping, as appends hold the lock
     * for tens of nanoseconds (a futex sleep and wake-up costs microseconds). */
    pthread_mutexattr_init (&attr);
#ifdef __GLIBC__
    pthread_mutexattr_settype (&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
    pthread_mutex_init (&self->mutex, &attr);
    pthread_mutexattr_destroy (&attr);
  }

  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    table_init (&self->tables[k], ts_record_info (k));

  self->strings_alloc = 256;
  self->strings = g_new0 (StringEntry, self->strings_alloc);
  self->strings[0].str = "";
  self->n_strings = 1;

  self->slots_mask = 511;
  self->slots = g_new0 (guint32, self->slots_mask + 1);

  self->regions = g_array_new (FALSE, FALSE, sizeof (Region));
  g_array_set_clear_func (self->regions, region_clear);
  self->arena = g_ptr_array_new ();
  self->big_strings = g_ptr_array_new_with_free_func (g_free);
}

TsRecorder *
ts_recorder_new (void)
{
  return g_object_new (TS_TYPE_RECORDER, NULL);
}

TsStringId
ts_recorder_intern_len (TsRecorder *self,
                        const char *str,
                        gsize       len)
{
  StringEntry *entry;
  guint32 hash;
  guint32 pos;
  guint32 id;

  g_return_val_if_fail (TS_IS_RECORDER (self), 0);
  g_return_val_if_fail (str != NULL || len == 0, 0);
  g_return_val_if_fail (len <= G_MAXUINT32 - 1, 0);

  if (len == 0)
    return 0;

  hash = hash_bytes (str, len);

  pthread_mutex_lock (&self->mutex);

  for (pos = hash & self->slots_mask;
       (id = self->slots[pos]) != 0;
       pos = (pos + 1) & self->slots_mask)
    {
      entry = &self->strings[id];
      if (entry->hash == hash && entry->len == len && memcmp (entry->str, str, len) == 0)
        {
          pthread_mutex_unlock (&self->mutex);
          return id;
        }
    }

  if (self->n_strings == G_MAXUINT32)
    {
      pthread_mutex_unlock (&self->mutex);
      g_critical ("Too many strings interned");
      return 0;
    }

  if (self->n_strings == self->strings_alloc)
    {
      self->strings_alloc *= 2;
      self->strings = g_renew (StringEntry, self->strings, self->strings_alloc);
    }

  id = self->n_strings++;
  entry = &self->strings[id];
  entry->str = arena_copy (self, str, len);
  entry->len = len;
  entry->hash = hash;

  self->slots[pos] = id;
  if ((gsize) self->n_strings * 2 > (gsize) self->slots_mask + 1)
    slots_grow (self);

  order_log (self, ORDER_STRING);

  if (self->has_sink && self->sink.string_func != NULL)
    self->sink.string_func (self->sink_data, id, entry->str, entry->len);

  pthread_mutex_unlock (&self->mutex);

  return id;
}

TsStringId
ts_recorder_intern (TsRecorder *self,
                    const char *str)
{
  g_return_val_if_fail (TS_IS_RECORDER (self), 0);

  if (str == NULL)
    return 0;

  return ts_recorder_intern_len (self, str, strlen (str));
}

const char *
ts_recorder_lookup (TsRecorder *self,
                    TsStringId  id)
{
  const char *ret = NULL;

  g_return_val_if_fail (TS_IS_RECORDER (self), NULL);

  if (id == 0)
    return "";

  pthread_mutex_lock (&self->mutex);
  if (id < self->n_strings)
    ret = self->strings[id].str;
  pthread_mutex_unlock (&self->mutex);

  g_return_val_if_fail (ret != NULL, NULL);

  return ret;
}

guint
ts_recorder_get_n_strings (TsRecorder *self)
{
  guint ret;

  g_return_val_if_fail (TS_IS_RECORDER (self), 0);

  pthread_mutex_lock (&self->mutex);
  ret = self->n_strings - 1;
  pthread_mutex_unlock (&self->mutex);

  return ret;
}

/* Stores one record, logs its place in the global order and hands it to
 * the sink. Called with the mutex held. */
G_ALWAYS_INLINE static inline void
append_locked (TsRecorder   *self,
               Table        *table,
               TsRecordKind  kind,
               const void   *record)
{
  table_append (self, table, record);
  order_log (self, kind);

  if (G_UNLIKELY (self->has_sink))
    {
      guint64 copy[TS_RECORD_MAX_SIZE / 8];

      /* Hand the sink the stored form (padding zeroed), the same bytes a
       * replay would give it. */
      table_stored_form (table, record, copy);
      self->sink.record_func (self->sink_data, kind, copy);
    }
}

void
ts_recorder_append (TsRecorder   *self,
                    TsRecordKind  kind,
                    const void   *record)
{
  g_return_if_fail (TS_IS_RECORDER (self));
  g_return_if_fail ((guint) kind < TS_N_RECORD_KINDS);
  g_return_if_fail (record != NULL);

  pthread_mutex_lock (&self->mutex);
  append_locked (self, &self->tables[kind], kind, record);
  pthread_mutex_unlock (&self->mutex);
}

void
ts_recorder_append_many (TsRecorder   *self,
                         TsRecordKind  kind,
                         const void   *records,
                         gsize         n_records)
{
  const guint8 *rec = records;
  Table *table;
  gsize size;

  g_return_if_fail (TS_IS_RECORDER (self));
  g_return_if_fail ((guint) kind < TS_N_RECORD_KINDS);
  g_return_if_fail (records != NULL || n_records == 0);

  table = &self->tables[kind];
  size = table->info->struct_size;

  pthread_mutex_lock (&self->mutex);

  for (gsize r = 0; r < n_records; r++, rec += size)
    append_locked (self, table, kind, rec);

  pthread_mutex_unlock (&self->mutex);
}

void
ts_recorder_append_records (TsRecorder         *self,
                            guint               n_records,
                            const TsRecordKind *kinds,
                            const void * const *records)
{
  g_return_if_fail (TS_IS_RECORDER (self));
  g_return_if_fail (n_records == 0 || (kinds != NULL && records != NULL));

  for (guint r = 0; r < n_records; r++)
    g_return_if_fail ((guint) kinds[r] < TS_N_RECORD_KINDS && records[r] != NULL);

  pthread_mutex_lock (&self->mutex);

  for (guint r = 0; r < n_records; r++)
    {
      Table *table = &self->tables[kinds[r]];

      table_append (self, table, records[r]);
      order_log (self, kinds[r]);

      if (G_UNLIKELY (self->has_sink))
        {
          guint64 copy[TS_RECORD_MAX_SIZE / 8];

          table_stored_form (table, records[r], copy);
          self->sink.record_func (self->sink_data, kinds[r], copy);
        }
    }

  pthread_mutex_unlock (&self->mutex);
}

void
ts_recorder_call_locked (TsRecorder *self,
                         void      (*func) (gpointer data),
                         gpointer    data)
{
  g_return_if_fail (TS_IS_RECORDER (self));
  g_return_if_fail (func != NULL);

  pthread_mutex_lock (&self->mutex);
  func (data);
  pthread_mutex_unlock (&self->mutex);
}

gsize
ts_recorder_get_count (TsRecorder   *self,
                       TsRecordKind  kind)
{
  gsize ret;

  g_return_val_if_fail (TS_IS_RECORDER (self), 0);
  g_return_val_if_fail ((guint) kind < TS_N_RECORD_KINDS, 0);

  pthread_mutex_lock (&self->mutex);
  ret = self->tables[kind].count;
  pthread_mutex_unlock (&self->mutex);

  return ret;
}

gboolean
ts_recorder_get (TsRecorder   *self,
                 TsRecordKind  kind,
                 gsize         index,
                 void         *out)
{
  gboolean ret = FALSE;

  g_return_val_if_fail (TS_IS_RECORDER (self), FALSE);
  g_return_val_if_fail ((guint) kind < TS_N_RECORD_KINDS, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  pthread_mutex_lock (&self->mutex);
  if (table_holds (&self->tables[kind], index))
    {
      table_get (&self->tables[kind], index, out);
      ret = TRUE;
    }
  pthread_mutex_unlock (&self->mutex);

  return ret;
}

const char *
ts_recorder_get_thread_name (TsRecorder *self,
                             guint32     thread)
{
  gsize n;

  g_return_val_if_fail (TS_IS_RECORDER (self), NULL);

  n = ts_recorder_get_count (self, TS_RECORD_THREAD);
  for (gsize i = 0; i < n; i++)
    {
      TsThreadRecord r;

      if (ts_recorder_get (self, TS_RECORD_THREAD, i, &r) && r.thread == thread && r.name != 0)
        return ts_recorder_lookup (self, r.name);
    }
  return NULL;
}

gsize
ts_recorder_copy_column (TsRecorder   *self,
                         TsRecordKind  kind,
                         guint         field,
                         gsize         first,
                         gsize         n_values,
                         void         *out)
{
  const TsFieldInfo *fi;
  Table *table;
  guint8 *dst = out;
  gsize done = 0;
  gint column;

  g_return_val_if_fail (TS_IS_RECORDER (self), 0);
  g_return_val_if_fail ((guint) kind < TS_N_RECORD_KINDS, 0);
  g_return_val_if_fail (field < ts_record_info (kind)->n_fields, 0);
  g_return_val_if_fail (out != NULL || n_values == 0, 0);

  table = &self->tables[kind];
  fi = &table->info->fields[field];
  column = table->column_of_field[field];

  pthread_mutex_lock (&self->mutex);

  if (table_holds (table, first))
    n_values = MIN (n_values, table->stored_end - first);
  else
    n_values = 0;

  while (done < n_values)
    {
      gsize index = first + done;
      gsize i = index & CHUNK_MASK;
      gsize n = MIN (CHUNK_LEN - i, n_values - done);

      if (column < 0)
        memset (dst, 0, n * fi->size);
      else
        memcpy (dst,
                table->slabs[(index >> CHUNK_SHIFT) - table->first_chunk] +
                table->columns[column].column + i * fi->size,
                n * fi->size);

      dst += n * fi->size;
      done += n;
    }

  pthread_mutex_unlock (&self->mutex);

  return n_values;
}

/* Called with the mutex held whenever bounded, discard or the sink change */
static void
update_counting (TsRecorder *self)
{
  self->counting = self->bounded && self->discard && !self->has_sink;
}

static void
replay (TsRecorder *self)
{
  gsize cursor[TS_N_RECORD_KINDS] = { 0 };
  guint next_string = 1;

  for (gsize e = 0; e < self->n_events; e++)
    {
      guint8 event = self->order[e >> ORDER_SHIFT][e & ORDER_MASK];

      if (event == ORDER_STRING)
        {
          const StringEntry *entry = &self->strings[next_string];

          g_assert (next_string < self->n_strings);
          if (self->sink.string_func != NULL)
            self->sink.string_func (self->sink_data, next_string, entry->str, entry->len);
          next_string++;
        }
      else
        {
          guint64 copy[TS_RECORD_MAX_SIZE / 8];

          g_assert (event < TS_N_RECORD_KINDS);
          if (!table_holds (&self->tables[event], cursor[event]))
            {
              cursor[event]++;   /* dropped in bounded mode */
              continue;
            }
          table_get (&self->tables[event], cursor[event]++, copy);
          self->sink.record_func (self->sink_data, event, copy);
        }
    }
}

void
ts_recorder_set_sink (TsRecorder           *self,
                      const TsRecorderSink *sink,
                      gpointer              user_data)
{
  g_return_if_fail (TS_IS_RECORDER (self));
  g_return_if_fail (sink == NULL || sink->record_func != NULL);

  pthread_mutex_lock (&self->mutex);

  if (sink != NULL)
    {
      self->sink = *sink;
      self->sink_data = user_data;
      self->has_sink = TRUE;
      replay (self);
    }
  else
    {
      memset (&self->sink, 0, sizeof self->sink);
      self->sink_data = NULL;
      self->has_sink = FALSE;
    }
  update_counting (self);

  pthread_mutex_unlock (&self->mutex);
}

void
ts_recorder_set_keep_records (TsRecorder *self,
                              gboolean    keep_records)
{
  g_return_if_fail (TS_IS_RECORDER (self));

  pthread_mutex_lock (&self->mutex);
  self->bounded = !keep_records;
  update_counting (self);
  pthread_mutex_unlock (&self->mutex);
}

void
ts_recorder_set_discard (TsRecorder *self,
                         gboolean    discard)
{
  g_return_if_fail (TS_IS_RECORDER (self));

  pthread_mutex_lock (&self->mutex);
  self->discard = discard;
  update_counting (self);
  pthread_mutex_unlock (&self->mutex);
}

gboolean
ts_recorder_get_keep_records (TsRecorder *self)
{
  gboolean ret;

  g_return_val_if_fail (TS_IS_RECORDER (self), TRUE);

  pthread_mutex_lock (&self->mutex);
  ret = !self->bounded;
  pthread_mutex_unlock (&self->mutex);

  return ret;
}

gsize
ts_recorder_get_n_retained (TsRecorder   *self,
                            TsRecordKind  kind)
{
  gsize ret;

  g_return_val_if_fail (TS_IS_RECORDER (self), 0);
  g_return_val_if_fail ((guint) kind < TS_N_RECORD_KINDS, 0);

  pthread_mutex_lock (&self->mutex);
  {
    const Table *t = &self->tables[kind];
    gsize from = MAX (t->first_chunk << CHUNK_SHIFT, t->stored_begin);

    ret = t->stored_end - MIN (t->stored_end, from);
  }
  pthread_mutex_unlock (&self->mutex);

  return ret;
}

gsize
ts_recorder_get_n_chunks (TsRecorder *self)
{
  gsize ret = 0;

  g_return_val_if_fail (TS_IS_RECORDER (self), 0);

  pthread_mutex_lock (&self->mutex);
  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    ret += self->tables[k].n_slabs;
  ret += self->n_order_chunks;
  pthread_mutex_unlock (&self->mutex);

  return ret;
}
