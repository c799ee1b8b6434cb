/* ts-sanitizer.c: the stream race sanitizer (PyTorch's CSAN, in C)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Layout, for a cheap check per access:
 * - streams get a dense slot on first sight; a vector clock is a gint64
 *   array indexed by slot, -1 meaning "absent" (sequence numbers are >= 0,
 *   so -1 compares exactly as CSAN's dict.get (s, -1));
 * - an access stores its stream's slot, so "is it ordered" is one load;
 * - a kernel's schema, correlation and stack are copied once into a
 *   refcounted blob shared by all of its accesses;
 * - argument names are interned for the sanitizer's lifetime.
 */

#define G_LOG_DOMAIN "Tensorscope-Sanitizer"

#include "config.h"

#include <string.h>

#include "ts-recorder.h"
#include "ts-sanitizer.h"

/* A copied kernel launch or stack: one allocation holding the header, the
 * frames and every string. */
typedef struct
{
  guint            ref;
  guint            n_frames;
  const char      *schema;      /* NULL for a plain stack */
  guint64          correlation;
  TsTime           time;
  TsSanitizerFrame frames[];
} Blob;

typedef struct
{
  gint64      seq;
  guint32     slot;         /* the stream's dense slot */
  guint8      is_write;
  guint8      is_output;
  const char *names;        /* interned */
  Blob       *launch;       /* one reference */
} Access;

/* Accesses of freed memory that may still be running. */
typedef struct
{
  guint   ref;
  guint64 ptr;
  guint64 end;              /* ptr + size, exclusive */
  guint64 old_ptr;          /* the freed tensor's pointer */
  Blob   *free_stack;       /* may be NULL */
  GArray *accesses;         /* Access */
} Freed;

/* An access inherited by a new allocation from a freed range. */
typedef struct
{
  Access  access;           /* shares the range's launch reference */
  Freed  *from;             /* one reference */
} Prior;

typedef struct
{
  guint64  ptr;             /* the hash key points here */
  guint64  size;
  Blob    *alloc;           /* allocation stack, may be NULL */
  gboolean has_write;
  Access   write;
  Access  *reads;
  guint    n_reads;
  guint    reads_cap;
  GArray  *record_slots;    /* guint32 slots from record_stream, or NULL */
  GArray  *prior;           /* Prior, or NULL */
} Tensor;

typedef struct
{
  TsStreamId id;
  gint       device;
  guint64    handle;
  gint64    *clock;         /* n = self->clock_cap */
} Stream;

typedef struct
{
  gint64 *clock;            /* recorded state; entries past len are absent */
  guint   len;
} EventState;

typedef struct
{
  TsSanitizerReport pub;
  Blob             *refs[4];
} Report;

struct _TsSanitizer
{
  GObject     parent_instance;

  guint       n_devices;
  gint64      seq_num;

  Stream     *streams;
  guint       n_streams;
  guint       clock_cap;    /* length of every stream clock and the host's */
  gint64     *host;
  GHashTable *stream_slots; /* TsStreamId → slot + 1 */

  GHashTable *events;       /* guint64* → EventState* */
  GHashTable *tensors;      /* guint64* (Tensor.ptr) → Tensor* */
  GPtrArray  *freed;        /* Freed*, oldest first */
  GHashTable *names;        /* interned argument names */

  GPtrArray  *reports;      /* Report* */
  guint       n_backfills;

  TsRecorder *recorder;     /* optional: each report becomes a record */
};

enum {
  PROP_0,
  PROP_N_DEVICES,
  PROP_RECORDER,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Freed ranges kept beyond this are evicted oldest first: without any host
 * synchronization a long run would otherwise grow them without bound. */
#define MAX_FREED_RANGES 4096

G_DEFINE_FINAL_TYPE (TsSanitizer, ts_sanitizer, G_TYPE_OBJECT)

/* Blobs */

static Blob *
blob_new (const char             *schema,
          guint64                 correlation,
          TsTime                  time,
          const TsSanitizerFrame *frames,
          guint                   n_frames)
{
  gsize strings = schema ? strlen (schema) + 1 : 0;
  gsize header = sizeof (Blob) + n_frames * sizeof (TsSanitizerFrame);
  Blob *blob;
  char *p;

  for (guint i = 0; i < n_frames; i++)
    {
      strings += strlen (frames[i].file ? frames[i].file : "") + 1;
      strings += strlen (frames[i].function ? frames[i].function : "") + 1;
      if (frames[i].text != NULL)
        strings += strlen (frames[i].text) + 1;
    }

  blob = g_malloc (header + strings);
  blob->ref = 1;
  blob->n_frames = n_frames;
  blob->correlation = correlation;
  blob->time = time;
  p = (char *) blob + header;

#define COPY_STR(dst, src) G_STMT_START {           \
    gsize _len = strlen (src) + 1;                  \
    memcpy (p, (src), _len);                        \
    (dst) = p;                                      \
    p += _len;                                      \
  } G_STMT_END

  if (schema != NULL)
    COPY_STR (blob->schema, schema);
  else
    blob->schema = NULL;

  for (guint i = 0; i < n_frames; i++)
    {
      TsSanitizerFrame *f = &blob->frames[i];

      COPY_STR (f->file, frames[i].file ? frames[i].file : "");
      COPY_STR (f->function, frames[i].function ? frames[i].function : "");
      f->line = frames[i].line;
      if (frames[i].text != NULL)
        COPY_STR (f->text, frames[i].text);
      else
        f->text = NULL;
    }

#undef COPY_STR

  return blob;
}

static inline Blob *
blob_ref (Blob *blob)
{
  if (blob != NULL)
    blob->ref++;
  return blob;
}

static inline void
blob_unref (Blob *blob)
{
  if (blob != NULL && --blob->ref == 0)
    g_free (blob);
}

/* Freed ranges */

static void
freed_unref (Freed *freed)
{
  if (--freed->ref > 0)
    return;

  for (guint i = 0; i < freed->accesses->len; i++)
    blob_unref (g_array_index (freed->accesses, Access, i).launch);
  g_array_unref (freed->accesses);
  blob_unref (freed->free_stack);
  g_free (freed);
}

/* Tensors */

static void
tensor_free (Tensor *t)
{
  if (t->has_write)
    blob_unref (t->write.launch);
  for (guint i = 0; i < t->n_reads; i++)
    blob_unref (t->reads[i].launch);
  g_free (t->reads);
  if (t->prior != NULL)
    {
      for (guint i = 0; i < t->prior->len; i++)
        freed_unref (g_array_index (t->prior, Prior, i).from);
      g_array_unref (t->prior);
    }
  g_clear_pointer (&t->record_slots, g_array_unref);
  blob_unref (t->alloc);
  g_free (t);
}

static Tensor *
tensor_create (TsSanitizer *self,
               guint64      ptr,
               guint64      size,
               Blob        *alloc)
{
  Tensor *t = g_new0 (Tensor, 1);

  t->ptr = ptr;
  t->size = size;
  t->alloc = alloc;
  g_hash_table_insert (self->tensors, &t->ptr, t);

  return t;
}

static void
backfill_info (TsSanitizer *self,
               const char  *what,
               guint64      id)
{
  self->n_backfills++;
  g_info ("Found %s with id: %" G_GUINT64_FORMAT ", but no matching creation "
          "in the trace. Backfilling the trace now. Perhaps the sanitizer was "
          "enabled after some torch operations?", what, id);
}

static Tensor *
ensure_tensor (TsSanitizer *self,
               guint64      ptr)
{
  Tensor *t = g_hash_table_lookup (self->tensors, &ptr);

  if G_LIKELY (t != NULL)
    return t;

  backfill_info (self, "tensor with pointer", ptr);
  return tensor_create (self, ptr, 0, NULL);
}

/* Streams and clocks */

static void
grow_clocks (TsSanitizer *self)
{
  guint old_cap = self->clock_cap;
  guint new_cap = MAX (8, old_cap * 2);

  for (guint i = 0; i < self->n_streams; i++)
    {
      self->streams[i].clock = g_renew (gint64, self->streams[i].clock, new_cap);
      for (guint j = old_cap; j < new_cap; j++)
        self->streams[i].clock[j] = -1;
    }

  self->host = g_renew (gint64, self->host, new_cap);
  for (guint j = old_cap; j < new_cap; j++)
    self->host[j] = -1;

  self->streams = g_renew (Stream, self->streams, new_cap);
  self->clock_cap = new_cap;
}

/* CSAN's create_stream: host[s] = 0, current[s] = copy (host). */
static guint
create_stream (TsSanitizer *self,
               TsStreamId   id,
               gint         device,
               guint64      handle)
{
  guint slot;
  Stream *s;

  if (self->n_streams == self->clock_cap)
    grow_clocks (self);

  slot = self->n_streams++;
  self->host[slot] = 0;

  s = &self->streams[slot];
  s->id = id;
  s->device = device;
  s->handle = handle;
  s->clock = g_new (gint64, self->clock_cap);
  memcpy (s->clock, self->host, self->clock_cap * sizeof (gint64));

  g_hash_table_insert (self->stream_slots, GUINT_TO_POINTER (id), GUINT_TO_POINTER (slot + 1));

  return slot;
}

static inline guint
ensure_stream (TsSanitizer *self,
               TsStreamId   id)
{
  guint slot1 = GPOINTER_TO_UINT (g_hash_table_lookup (self->stream_slots, GUINT_TO_POINTER (id)));

  if G_LIKELY (slot1 != 0)
    return slot1 - 1;

  backfill_info (self, "Stream", id);
  /* An unknown stream: its device is unknown and its handle is taken to be
   * its id, which is what a report can best show. */
  return create_stream (self, id, -1, id);
}

/* state = max (state, other), elementwise. */
static inline void
clock_join (gint64       *state,
            const gint64 *other,
            guint         len)
{
  for (guint i = 0; i < len; i++)
    if (other[i] > state[i])
      state[i] = other[i];
}

static inline gboolean
is_ordered (TsSanitizer *self,
            guint        cur_slot,
            const Access *prev)
{
  return prev->seq <= self->streams[cur_slot].clock[prev->slot];
}

/* Events */

static void
event_state_free (EventState *state)
{
  g_free (state->clock);
  g_free (state);
}

static EventState *
ensure_event (TsSanitizer *self,
              guint64      event)
{
  EventState *state = g_hash_table_lookup (self->events, &event);
  guint64 *key;

  if G_LIKELY (state != NULL)
    return state;

  backfill_info (self, "Event", event);
  state = g_new0 (EventState, 1);
  key = g_new (guint64, 1);
  *key = event;
  g_hash_table_insert (self->events, key, state);

  return state;
}

/* Reports */

static const char *
intern_names (TsSanitizer *self,
              const char  *names)
{
  char *interned;

  if (names == NULL || names[0] == '\0')
    return "";

  interned = g_hash_table_lookup (self->names, names);
  if G_LIKELY (interned != NULL)
    return interned;

  interned = g_strdup (names);
  g_hash_table_add (self->names, interned);

  return interned;
}

static void
fill_side (TsSanitizer     *self,
           TsSanitizerSide *side,
           const Access    *access)
{
  const Stream *s = &self->streams[access->slot];

  side->stream = s->id;
  side->stream_handle = s->handle;
  side->is_write = access->is_write;
  side->is_output = access->is_output;
  side->names = access->names;
  side->schema = access->launch->schema;
  side->correlation = access->launch->correlation;
  side->time = access->launch->time;
  side->frames = access->launch->frames;
  side->n_frames = access->launch->n_frames;
}

static Report *
add_report (TsSanitizer           *self,
            TsSanitizerReportKind  kind,
            guint64                ptr,
            const Access          *current,
            const Access          *previous,
            Blob                  *alloc)
{
  Report *r = g_new0 (Report, 1);

  r->pub.kind = kind;
  r->pub.data_ptr = ptr;
  fill_side (self, &r->pub.current, current);
  fill_side (self, &r->pub.previous, previous);
  r->refs[0] = blob_ref (current->launch);
  r->refs[1] = blob_ref (previous->launch);
  if (alloc != NULL && alloc->n_frames > 0)
    {
      r->refs[2] = blob_ref (alloc);
      r->pub.alloc_frames = alloc->frames;
      r->pub.n_alloc_frames = alloc->n_frames;
    }
  g_ptr_array_add (self->reports, r);

  return r;
}

static void
report_free (Report *r)
{
  for (guint i = 0; i < G_N_ELEMENTS (r->refs); i++)
    blob_unref (r->refs[i]);
  g_free (r);
}

static TsSourceLoc
intern_loc (TsRecorder             *recorder,
            const TsSanitizerFrame *frames,
            guint                   n_frames)
{
  const TsSanitizerFrame *f;

  if (n_frames == 0)
    return TS_SOURCE_LOC_NONE;

  /* The innermost frame: the script line that made the call. */
  f = &frames[n_frames - 1];
  return (TsSourceLoc) {
    ts_recorder_intern (recorder, f->file),
    ts_recorder_intern (recorder, f->function),
    f->line,
  };
}

static void
emit_record (TsSanitizer *self,
             Report      *r)
{
  const TsSanitizerReport *pub = &r->pub;
  g_autofree char *text = NULL;
  TsSanitizerRecord rec = { 0 };

  if (self->recorder == NULL)
    return;

  text = ts_sanitizer_report_format (pub);
  rec.time = pub->current.time;
  rec.addr = pub->data_ptr;
  rec.correlation = pub->current.correlation;
  rec.prev_correlation = pub->previous.correlation;
  rec.stream = pub->current.stream;
  rec.prev_stream = pub->previous.stream;
  rec.is_write = pub->current.is_write;
  rec.prev_is_write = pub->previous.is_write;
  rec.op = ts_recorder_intern (self->recorder, pub->current.schema);
  rec.prev_op = ts_recorder_intern (self->recorder, pub->previous.schema);
  rec.loc = intern_loc (self->recorder, pub->current.frames, pub->current.n_frames);
  rec.prev_loc = intern_loc (self->recorder, pub->previous.frames, pub->previous.n_frames);
  rec.alloc_loc = intern_loc (self->recorder, pub->alloc_frames, pub->n_alloc_frames);
  rec.report = ts_recorder_intern (self->recorder, text);

  TS_RECORDER_APPEND (self->recorder, TS_RECORD_SANITIZER, TsSanitizerRecord, &rec);
}

static inline void
check_conflict (TsSanitizer  *self,
                Tensor       *t,
                const Access *current,
                const Access *previous)
{
  if (!is_ordered (self, current->slot, previous))
    emit_record (self, add_report (self, TS_SANITIZER_RACE, t->ptr, current, previous, t->alloc));
}

/* The first access to memory reused from freed tensors: whatever it does,
 * the old accesses must be finished. */
static void
check_prior (TsSanitizer  *self,
             Tensor       *t,
             const Access *current)
{
  GArray *prior = g_steal_pointer (&t->prior);

  for (guint i = 0; i < prior->len; i++)
    {
      Prior *p = &g_array_index (prior, Prior, i);

      if (!is_ordered (self, current->slot, &p->access))
        {
          Report *r = add_report (self, TS_SANITIZER_REUSE, t->ptr, current, &p->access, t->alloc);

          r->pub.freed_ptr = p->from->old_ptr;
          if (p->from->free_stack != NULL && p->from->free_stack->n_frames > 0)
            {
              r->refs[3] = blob_ref (p->from->free_stack);
              r->pub.free_frames = p->from->free_stack->frames;
              r->pub.n_free_frames = p->from->free_stack->n_frames;
            }
          emit_record (self, r);
        }
      freed_unref (p->from);
    }

  g_array_unref (prior);
}

static void
add_read (Tensor       *t,
          const Access *access)
{
  if (t->n_reads == t->reads_cap)
    {
      t->reads_cap = MAX (4, t->reads_cap * 2);
      t->reads = g_renew (Access, t->reads, t->reads_cap);
    }
  t->reads[t->n_reads++] = *access;
  blob_ref (access->launch);
}

static void
set_write (Tensor       *t,
           const Access *access)
{
  for (guint i = 0; i < t->n_reads; i++)
    blob_unref (t->reads[i].launch);
  t->n_reads = 0;
  if (t->has_write)
    blob_unref (t->write.launch);
  t->write = *access;
  t->has_write = TRUE;
  blob_ref (access->launch);
}

static void
handle_access (TsSanitizer             *self,
               const TsSanitizerAccess *a,
               guint                    slot,
               Blob                    *launch)
{
  Tensor *t = ensure_tensor (self, a->data_ptr);
  Access current;

  current.seq = self->seq_num;
  current.slot = slot;
  current.is_write = a->is_write != FALSE;
  current.is_output = a->is_output != FALSE;
  current.names = intern_names (self, a->names);
  current.launch = launch;

  if G_UNLIKELY (t->prior != NULL)
    check_prior (self, t, &current);

  if (!current.is_write)
    {
      if (t->has_write)
        check_conflict (self, t, &current, &t->write);
      add_read (t, &current);
    }
  else
    {
      if (t->n_reads > 0)
        {
          for (guint i = 0; i < t->n_reads; i++)
            check_conflict (self, t, &current, &t->reads[i]);
        }
      else if (t->has_write)
        check_conflict (self, t, &current, &t->write);
      set_write (t, &current);
    }
}

guint
ts_sanitizer_kernel (TsSanitizer             *self,
                     TsStreamId               stream,
                     const TsSanitizerAccess *accesses,
                     guint                    n_accesses,
                     const TsSanitizerOp     *op)
{
  guint before;
  guint slot;
  Blob *launch;

  g_return_val_if_fail (TS_IS_SANITIZER (self), 0);
  g_return_val_if_fail (accesses != NULL || n_accesses == 0, 0);
  g_return_val_if_fail (op != NULL, 0);
  g_return_val_if_fail (op->frames != NULL || op->n_frames == 0, 0);

  before = self->reports->len;
  slot = ensure_stream (self, stream);
  self->seq_num++;
  self->streams[slot].clock[slot] = self->seq_num;

  launch = blob_new (op->schema ? op->schema : "", op->correlation, op->time,
                     op->frames, op->n_frames);

  for (guint i = 0; i < n_accesses; i++)
    if (!accesses[i].is_write)
      handle_access (self, &accesses[i], slot, launch);
  for (guint i = 0; i < n_accesses; i++)
    if (accesses[i].is_write)
      handle_access (self, &accesses[i], slot, launch);

  blob_unref (launch);

  return self->reports->len - before;
}

/* Synchronization */

void
ts_sanitizer_stream_created (TsSanitizer *self,
                             TsStreamId   stream,
                             gint         device,
                             guint64      handle)
{
  guint slot1;

  g_return_if_fail (TS_IS_SANITIZER (self));
  g_return_if_fail (stream != TS_STREAM_NONE);

  slot1 = GPOINTER_TO_UINT (g_hash_table_lookup (self->stream_slots, GUINT_TO_POINTER (stream)));
  if (slot1 != 0)
    {
      /* CSAN ignores a duplicate creation; a back-filled stream learns its
       * real device and handle here. */
      g_info ("Found duplicate Stream creation in the trace for Stream with "
              "id: %u. PyTorch Streams are only created once, so this trace "
              "entry is ignored.", stream);
      self->streams[slot1 - 1].device = device;
      self->streams[slot1 - 1].handle = handle;
      return;
    }

  create_stream (self, stream, device, handle);
}

void
ts_sanitizer_event_created (TsSanitizer *self,
                            guint64      event)
{
  guint64 *key;

  g_return_if_fail (TS_IS_SANITIZER (self));

  if (g_hash_table_contains (self->events, &event))
    {
      self->n_backfills++;
      g_info ("Found duplicate event creation in the trace for event with id: "
              "%" G_GUINT64_FORMAT ". Assuming the trace for event deletion "
              "wasn't caught and backfilling it now.", event);
      g_hash_table_remove (self->events, &event);
    }

  key = g_new (guint64, 1);
  *key = event;
  g_hash_table_insert (self->events, key, g_new0 (EventState, 1));
}

void
ts_sanitizer_event_destroyed (TsSanitizer *self,
                              guint64      event)
{
  g_return_if_fail (TS_IS_SANITIZER (self));

  ensure_event (self, event);
  g_hash_table_remove (self->events, &event);
}

void
ts_sanitizer_event_record (TsSanitizer *self,
                           guint64      event,
                           TsStreamId   stream)
{
  EventState *state;
  guint slot;

  g_return_if_fail (TS_IS_SANITIZER (self));

  state = ensure_event (self, event);
  slot = ensure_stream (self, stream);
  if (state->len < self->n_streams)
    state->clock = g_renew (gint64, state->clock, self->n_streams);
  state->len = self->n_streams;
  memcpy (state->clock, self->streams[slot].clock, state->len * sizeof (gint64));
}

void
ts_sanitizer_stream_wait_event (TsSanitizer *self,
                                TsStreamId   stream,
                                guint64      event)
{
  EventState *state;
  guint slot;

  g_return_if_fail (TS_IS_SANITIZER (self));

  slot = ensure_stream (self, stream);
  state = ensure_event (self, event);
  clock_join (self->streams[slot].clock, state->clock, state->len);
}

void
ts_sanitizer_stream_wait_stream (TsSanitizer *self,
                                 TsStreamId   waiter,
                                 TsStreamId   waitee)
{
  guint waiter_slot;
  guint waitee_slot;

  g_return_if_fail (TS_IS_SANITIZER (self));

  waiter_slot = ensure_stream (self, waiter);
  waitee_slot = ensure_stream (self, waitee);
  clock_join (self->streams[waiter_slot].clock,
              self->streams[waitee_slot].clock,
              self->n_streams);
}

/* Drops freed accesses the host has synchronized past: every stream's
 * clock is at least the host's (each host synchronization also raises all
 * streams, and new streams copy the host), so they are ordered before
 * anything queued from now on. */
static void
prune_freed (TsSanitizer *self)
{
  guint kept = 0;

  for (guint i = 0; i < self->freed->len; i++)
    {
      Freed *f = g_ptr_array_index (self->freed, i);

      for (guint j = f->accesses->len; j > 0; j--)
        {
          Access *a = &g_array_index (f->accesses, Access, j - 1);

          if (a->seq <= self->host[a->slot])
            {
              blob_unref (a->launch);
              g_array_remove_index_fast (f->accesses, j - 1);
            }
        }

      if (f->accesses->len == 0)
        freed_unref (f);
      else
        self->freed->pdata[kept++] = f;
    }

  g_ptr_array_set_size (self->freed, kept);
}

static void
all_wait_for (TsSanitizer  *self,
              const gint64 *state,
              guint         len)
{
  for (guint i = 0; i < self->n_streams; i++)
    clock_join (self->streams[i].clock, state, len);
  clock_join (self->host, state, len);
  prune_freed (self);
}

void
ts_sanitizer_event_synchronize (TsSanitizer *self,
                                guint64      event)
{
  EventState *state;
  g_autofree gint64 *copy = NULL;

  g_return_if_fail (TS_IS_SANITIZER (self));

  state = ensure_event (self, event);
  copy = g_memdup2 (state->clock, state->len * sizeof (gint64));
  all_wait_for (self, copy, state->len);
}

void
ts_sanitizer_stream_synchronize (TsSanitizer *self,
                                 TsStreamId   stream)
{
  g_autofree gint64 *copy = NULL;
  guint slot;

  g_return_if_fail (TS_IS_SANITIZER (self));

  slot = ensure_stream (self, stream);
  /* A copy: the stream's own clock is updated along the way. Joining with
   * itself first would change nothing, so CSAN's in-place loop agrees. */
  copy = g_memdup2 (self->streams[slot].clock, self->n_streams * sizeof (gint64));
  all_wait_for (self, copy, self->n_streams);
}

void
ts_sanitizer_device_synchronize (TsSanitizer *self,
                                 gint         device)
{
  g_return_if_fail (TS_IS_SANITIZER (self));

  for (guint i = 0; i < self->n_streams; i++)
    if (device < 0 || self->streams[i].device == device)
      self->host[i] = self->streams[i].clock[i];

  for (guint i = 0; i < self->n_streams; i++)
    clock_join (self->streams[i].clock, self->host, self->n_streams);

  prune_freed (self);
}

/* Memory */

static void
evict_oldest_freed (TsSanitizer *self)
{
  freed_unref (g_ptr_array_index (self->freed, 0));
  g_ptr_array_remove_index (self->freed, 0);
}

/* One report per earlier kernel: the same access can come from several
 * ranges (memory freed again before any new kernel touched it, or two
 * tensors of one kernel). */
static gboolean
prior_contains (GArray       *prior,
                const Access *access)
{
  for (guint i = 0; i < prior->len; i++)
    {
      const Access *a = &g_array_index (prior, Prior, i).access;

      if (a->seq == access->seq && a->slot == access->slot)
        return TRUE;
    }

  return FALSE;
}

/* A new allocation overlapping freed ranges takes their accesses over;
 * ranges it covers entirely are dropped (the allocator cannot hand that
 * memory out again before this tensor is freed). */
static void
inherit_freed (TsSanitizer *self,
               Tensor      *t)
{
  guint64 end = t->ptr + MAX (t->size, 1);
  guint kept = 0;

  for (guint i = 0; i < self->freed->len; i++)
    {
      Freed *f = g_ptr_array_index (self->freed, i);

      if (f->ptr < end && t->ptr < f->end)
        {
          if (t->prior == NULL)
            t->prior = g_array_new (FALSE, FALSE, sizeof (Prior));

          for (guint j = 0; j < f->accesses->len; j++)
            {
              Prior p;

              p.access = g_array_index (f->accesses, Access, j);
              if (prior_contains (t->prior, &p.access))
                continue;
              p.from = f;
              f->ref++;
              g_array_append_val (t->prior, p);
            }

          if (t->ptr <= f->ptr && f->end <= end)
            {
              freed_unref (f);
              continue;
            }
        }

      self->freed->pdata[kept++] = f;
    }

  g_ptr_array_set_size (self->freed, kept);
}

void
ts_sanitizer_alloc (TsSanitizer            *self,
                    guint64                 data_ptr,
                    guint64                 size,
                    TsStreamId              stream,
                    const TsSanitizerFrame *frames,
                    guint                   n_frames)
{
  Tensor *t;

  g_return_if_fail (TS_IS_SANITIZER (self));
  g_return_if_fail (frames != NULL || n_frames == 0);

  if (g_hash_table_contains (self->tensors, &data_ptr))
    {
      self->n_backfills++;
      g_info ("Found duplicate tensor allocation in the trace for tensor with "
              "pointer: %" G_GUINT64_FORMAT ". Assuming the trace for tensor "
              "deallocation wasn't caught and backfilling it now.", data_ptr);
      g_hash_table_remove (self->tensors, &data_ptr);
    }

  if (stream != TS_STREAM_NONE)
    ensure_stream (self, stream);

  t = tensor_create (self, data_ptr, size,
                     n_frames > 0 ? blob_new (NULL, 0, 0, frames, n_frames) : NULL);

  if (self->freed->len > 0)
    inherit_freed (self, t);
}

static gboolean
slot_is_recorded (const Tensor *t,
                  guint32       slot)
{
  if (t->record_slots == NULL)
    return FALSE;

  for (guint i = 0; i < t->record_slots->len; i++)
    if (g_array_index (t->record_slots, guint32, i) == slot)
      return TRUE;

  return FALSE;
}

/* Keeps an access of a freed tensor if it may still be running when the
 * memory is handed out again. Takes over a launch reference. */
static void
keep_freed_access (TsSanitizer  *self,
                   const Tensor *t,
                   Freed        *f,
                   const Access *a)
{
  if (slot_is_recorded (t, a->slot) || a->seq <= self->host[a->slot])
    {
      blob_unref (a->launch);
      return;
    }

  g_array_append_vals (f->accesses, a, 1);
}

void
ts_sanitizer_free (TsSanitizer            *self,
                   guint64                 data_ptr,
                   const TsSanitizerFrame *frames,
                   guint                   n_frames)
{
  Tensor *t;
  Freed *f;

  g_return_if_fail (TS_IS_SANITIZER (self));
  g_return_if_fail (frames != NULL || n_frames == 0);

  t = ensure_tensor (self, data_ptr);
  g_hash_table_steal (self->tensors, &data_ptr);

  f = g_new0 (Freed, 1);
  f->ref = 1;
  f->ptr = data_ptr;
  f->end = data_ptr + MAX (t->size, 1);
  f->old_ptr = data_ptr;
  f->accesses = g_array_new (FALSE, FALSE, sizeof (Access));

  /* The accesses move from the tensor to the range, references included. */
  if (t->has_write)
    keep_freed_access (self, t, f, &t->write);
  t->has_write = FALSE;
  for (guint i = 0; i < t->n_reads; i++)
    keep_freed_access (self, t, f, &t->reads[i]);
  t->n_reads = 0;

  /* Memory never touched since its reuse still carries the older accesses. */
  if (t->prior != NULL)
    {
      for (guint i = 0; i < t->prior->len; i++)
        {
          Prior *p = &g_array_index (t->prior, Prior, i);

          /* The range p->from keeps its own reference; this one is ours. */
          blob_ref (p->access.launch);
          keep_freed_access (self, t, f, &p->access);
        }
    }
  tensor_free (t);

  if (f->accesses->len == 0)
    {
      freed_unref (f);
      return;
    }

  if (n_frames > 0)
    f->free_stack = blob_new (NULL, 0, 0, frames, n_frames);

  if (self->freed->len >= MAX_FREED_RANGES)
    evict_oldest_freed (self);
  g_ptr_array_add (self->freed, f);
}

void
ts_sanitizer_record_stream (TsSanitizer *self,
                            guint64      data_ptr,
                            TsStreamId   stream)
{
  Tensor *t;
  guint32 slot;

  g_return_if_fail (TS_IS_SANITIZER (self));

  t = ensure_tensor (self, data_ptr);
  slot = ensure_stream (self, stream);
  if (slot_is_recorded (t, slot))
    return;
  if (t->record_slots == NULL)
    t->record_slots = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_array_append_val (t->record_slots, slot);
}

/* Queries */

guint
ts_sanitizer_get_n_reports (TsSanitizer *self)
{
  g_return_val_if_fail (TS_IS_SANITIZER (self), 0);

  return self->reports->len;
}

const TsSanitizerReport *
ts_sanitizer_get_report (TsSanitizer *self,
                         guint        index)
{
  g_return_val_if_fail (TS_IS_SANITIZER (self), NULL);
  g_return_val_if_fail (index < self->reports->len, NULL);

  return &((Report *) g_ptr_array_index (self->reports, index))->pub;
}

TsRecorder *
ts_sanitizer_get_recorder (TsSanitizer *self)
{
  g_return_val_if_fail (TS_IS_SANITIZER (self), NULL);

  return self->recorder;
}

void
ts_sanitizer_set_recorder (TsSanitizer *self,
                           TsRecorder  *recorder)
{
  g_return_if_fail (TS_IS_SANITIZER (self));
  g_return_if_fail (recorder == NULL || TS_IS_RECORDER (recorder));

  if (g_set_object (&self->recorder, recorder))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RECORDER]);
}

guint
ts_sanitizer_get_n_backfills (TsSanitizer *self)
{
  g_return_val_if_fail (TS_IS_SANITIZER (self), 0);

  return self->n_backfills;
}

/* Formatting */

/* Python's traceback: frames repeated more than this many times in a row
 * are collapsed into one "[Previous line repeated N more times]" line. */
#define RECURSIVE_CUTOFF 3

static void
append_repeated (GString *out,
                 guint    count)
{
  if (count > RECURSIVE_CUTOFF)
    {
      count -= RECURSIVE_CUTOFF;
      g_string_append_printf (out, "  [Previous line repeated %u more time%s]\n",
                              count, count > 1 ? "s" : "");
    }
}

static void
append_stack (GString                *out,
              const TsSanitizerFrame *frames,
              guint                   n_frames)
{
  const TsSanitizerFrame *last = NULL;
  guint count = 0;

  for (guint i = 0; i < n_frames; i++)
    {
      const TsSanitizerFrame *f = &frames[i];

      if (last == NULL ||
          g_strcmp0 (last->file, f->file) != 0 ||
          last->line != f->line ||
          g_strcmp0 (last->function, f->function) != 0)
        {
          append_repeated (out, count);
          last = f;
          count = 0;
        }

      if (++count > RECURSIVE_CUTOFF)
        continue;

      g_string_append_printf (out, "  File \"%s\", line %u, in %s\n",
                              f->file ? f->file : "", f->line,
                              f->function ? f->function : "");
      if (f->text != NULL)
        {
          g_autofree char *stripped = g_strstrip (g_strdup (f->text));

          if (stripped[0] != '\0')
            g_string_append_printf (out, "    %s\n", stripped);
        }
    }

  append_repeated (out, count);
}

char *
ts_sanitizer_format_stack (const TsSanitizerFrame *frames,
                           guint                   n_frames)
{
  GString *out;

  g_return_val_if_fail (frames != NULL || n_frames == 0, NULL);

  out = g_string_new (NULL);
  append_stack (out, frames, n_frames);

  return g_string_free (out, FALSE);
}

/* CSAN's format_access. */
static void
append_side (GString               *out,
             const TsSanitizerSide *side)
{
  g_string_append_printf (out, "%s\n%s", side->schema,
                          side->is_write ? "writing to" : "reading from");
  if (side->names != NULL && side->names[0] != '\0')
    {
      g_string_append (out, " argument(s) ");
      g_string_append (out, side->names);
      if (side->is_output)
        g_string_append (out, ", and to");
    }
  if (side->is_output)
    g_string_append (out, " the output");
  g_string_append (out, "\nWith stack trace:\n");
  append_stack (out, side->frames, side->n_frames);
  g_string_append_c (out, '\n');
}

char *
ts_sanitizer_report_format (const TsSanitizerReport *report)
{
  GString *out;

  g_return_val_if_fail (report != NULL, NULL);

  out = g_string_new ("============================\n");

  if (report->kind == TS_SANITIZER_REUSE)
    g_string_append_printf (out,
                            "Tensorscope detected a possible data race on memory reused by the "
                            "caching allocator, at data pointer %" G_GUINT64_FORMAT "\n",
                            report->data_ptr);
  else
    g_string_append_printf (out,
                            "CSAN detected a possible data race on tensor with data pointer %"
                            G_GUINT64_FORMAT "\n", report->data_ptr);

  g_string_append_printf (out, "Access by stream %" G_GUINT64_FORMAT " during kernel:\n",
                          report->current.stream_handle);
  append_side (out, &report->current);

  if (report->kind == TS_SANITIZER_REUSE)
    g_string_append_printf (out,
                            "Previous access by stream %" G_GUINT64_FORMAT " during kernel, "
                            "to the tensor with data pointer %" G_GUINT64_FORMAT ", freed "
                            "before this memory was reused:\n",
                            report->previous.stream_handle, report->freed_ptr);
  else
    g_string_append_printf (out, "Previous access by stream %" G_GUINT64_FORMAT " during kernel:\n",
                            report->previous.stream_handle);
  append_side (out, &report->previous);

  if (report->kind == TS_SANITIZER_REUSE)
    {
      if (report->n_free_frames > 0)
        {
          g_string_append_printf (out, "That tensor was freed without record_stream() on stream %"
                                  G_GUINT64_FORMAT ", with stack trace:\n",
                                  report->previous.stream_handle);
          append_stack (out, report->free_frames, report->n_free_frames);
          g_string_append_c (out, '\n');
        }
      else
        g_string_append (out, "Trace for the free of that tensor not found.\n\n");
    }

  if (report->n_alloc_frames > 0)
    {
      g_string_append (out, "Tensor was allocated with stack trace:\n");
      append_stack (out, report->alloc_frames, report->n_alloc_frames);
    }
  else
    g_string_append (out, "Trace for tensor allocation not found.");

  return g_string_free (out, FALSE);
}

char *
ts_sanitizer_format_errors (guint n_errors)
{
  return g_strdup_printf ("detected %u errors", n_errors);
}

/* GObject */

static void
ts_sanitizer_constructed (GObject *object)
{
  TsSanitizer *self = TS_SANITIZER (object);

  G_OBJECT_CLASS (ts_sanitizer_parent_class)->constructed (object);

  /* The default stream of device d is track d; torch's handle for it is 0. */
  for (guint d = 0; d < self->n_devices; d++)
    create_stream (self, d, d, 0);
}

static void
ts_sanitizer_finalize (GObject *object)
{
  TsSanitizer *self = TS_SANITIZER (object);

  g_clear_pointer (&self->reports, g_ptr_array_unref);
  g_clear_object (&self->recorder);
  g_clear_pointer (&self->tensors, g_hash_table_unref);
  for (guint i = 0; i < self->freed->len; i++)
    freed_unref (g_ptr_array_index (self->freed, i));
  g_clear_pointer (&self->freed, g_ptr_array_unref);
  g_clear_pointer (&self->events, g_hash_table_unref);
  g_clear_pointer (&self->stream_slots, g_hash_table_unref);
  g_clear_pointer (&self->names, g_hash_table_unref);
  for (guint i = 0; i < self->n_streams; i++)
    g_free (self->streams[i].clock);
  g_clear_pointer (&self->streams, g_free);
  g_clear_pointer (&self->host, g_free);

  G_OBJECT_CLASS (ts_sanitizer_parent_class)->finalize (object);
}

static void
ts_sanitizer_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  TsSanitizer *self = TS_SANITIZER (object);

  switch (prop_id)
    {
    case PROP_N_DEVICES:
      g_value_set_uint (value, self->n_devices);
      break;

    case PROP_RECORDER:
      g_value_set_object (value, self->recorder);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_sanitizer_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  TsSanitizer *self = TS_SANITIZER (object);

  switch (prop_id)
    {
    case PROP_N_DEVICES:
      self->n_devices = g_value_get_uint (value);
      break;

    case PROP_RECORDER:
      ts_sanitizer_set_recorder (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_sanitizer_class_init (TsSanitizerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = ts_sanitizer_constructed;
  object_class->finalize = ts_sanitizer_finalize;
  object_class->get_property = ts_sanitizer_get_property;
  object_class->set_property = ts_sanitizer_set_property;

  properties[PROP_N_DEVICES] =
    g_param_spec_uint ("n-devices", NULL, NULL,
                       0, 1024, 1,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  properties[PROP_RECORDER] =
    g_param_spec_object ("recorder", NULL, NULL,
                         TS_TYPE_RECORDER,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ts_sanitizer_init (TsSanitizer *self)
{
  self->n_devices = 1;
  self->stream_slots = g_hash_table_new (NULL, NULL);
  self->events = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                        (GDestroyNotify) event_state_free);
  self->tensors = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL,
                                         (GDestroyNotify) tensor_free);
  /* No free func: the pruning loops compact the array in place. */
  self->freed = g_ptr_array_new ();
  self->names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->reports = g_ptr_array_new_with_free_func ((GDestroyNotify) report_free);
}

TsSanitizer *
ts_sanitizer_new (guint n_devices)
{
  return g_object_new (TS_TYPE_SANITIZER, "n-devices", n_devices, NULL);
}

/* Schema helpers
 *
 * Just enough of the schema grammar for CSAN's questions:
 *   ns::name[.overload](Type name[=default], *, ...) -> Return | (Return name, ...)
 * where a tensor type is Tensor, optionally with an alias annotation in
 * parentheses ("(a)", "(a!)", "(a -> *)") and a "?" or "[]" suffix. */

static void
skip_spaces (const char **p,
             const char  *end)
{
  while (*p < end && g_ascii_isspace (**p))
    (*p)++;
}

/* Where what starts at p ends, outside parentheses and brackets: an
 * element of a list at the next comma or at the list's closing bracket, a
 * type (TYPE) at the first space. One scan, since both track the same
 * nesting. */
static const char *
depth0_end (const char *p,
            const char *end,
            gboolean    type)
{
  int depth = 0;

  for (; p < end; p++)
    {
      if (*p == '(' || *p == '[')
        depth++;
      else if (*p == ')' || *p == ']')
        {
          if (depth == 0 && !type)
            return p;
          depth--;
        }
      else if (depth == 0 && (type ? g_ascii_isspace (*p) : *p == ','))
        return p;
    }

  return end;
}

static inline const char *
element_end (const char *p,
             const char *end)
{
  return depth0_end (p, end, FALSE);
}

static inline const char *
type_end (const char *p,
          const char *end)
{
  return depth0_end (p, end, TRUE);
}

static TsSanitizerArgKind
type_kind (const char *type,
           const char *end,
           gboolean    is_factory)
{
  const char *close;

  if (end - type < 6 || strncmp (type, "Tensor", 6) != 0)
    return TS_SANITIZER_ARG_NONE;
  if (is_factory)
    return TS_SANITIZER_ARG_METADATA;

  type += 6;
  if (type >= end || *type != '(')
    return TS_SANITIZER_ARG_READ;

  close = memchr (type, ')', end - type);
  if (close != NULL && memchr (type, '!', close - type) != NULL)
    return TS_SANITIZER_ARG_WRITE;

  return TS_SANITIZER_ARG_METADATA;
}

/* The argument list: [*args_start, *args_end) inside the parentheses. */
static gboolean
schema_args (const char  *schema,
             const char **args_start,
             const char **args_end)
{
  const char *open = strchr (schema, '(');
  const char *end = schema + strlen (schema);

  if (open == NULL)
    return FALSE;

  *args_start = open + 1;
  *args_end = element_end (open + 1, end);
  while (*args_end < end && **args_end == ',')
    *args_end = element_end (*args_end + 1, end);

  return *args_end < end;
}

gboolean
ts_sanitizer_schema_is_factory (const char *schema)
{
  g_autofree char *name = NULL;
  const char *open;
  const char *colons;
  char *dot;

  g_return_val_if_fail (schema != NULL, FALSE);

  /* FunctionSchema.name: the qualified name, without the overload. */
  open = strchr (schema, '(');
  name = open ? g_strndup (schema, open - schema) : g_strdup (schema);
  colons = strstr (name, "::");
  dot = strchr (colons ? colons + 2 : name, '.');
  if (dot != NULL)
    *dot = '\0';

  /* re.match ("(new_.*|.*_like)", name): anchored at the start only. */
  return g_str_has_prefix (name, "new_") || strstr (name, "_like") != NULL;
}

TsSanitizerArgKind
ts_sanitizer_schema_arg_kind (const char *schema,
                              const char *name)
{
  const char *p;
  const char *end;
  gboolean is_factory;
  gsize name_len;

  g_return_val_if_fail (schema != NULL, TS_SANITIZER_ARG_NONE);
  g_return_val_if_fail (name != NULL, TS_SANITIZER_ARG_NONE);

  if (!schema_args (schema, &p, &end))
    return TS_SANITIZER_ARG_NONE;

  is_factory = ts_sanitizer_schema_is_factory (schema);
  name_len = strlen (name);

  while (p < end)
    {
      const char *elem_end = element_end (p, end);
      const char *type;
      const char *tend;
      const char *n;

      skip_spaces (&p, elem_end);
      type = p;
      tend = type_end (type, elem_end);
      n = tend;
      skip_spaces (&n, elem_end);

      if ((gsize) (elem_end - n) >= name_len &&
          strncmp (n, name, name_len) == 0 &&
          (n + name_len == elem_end || n[name_len] == '=' || g_ascii_isspace (n[name_len])))
        return type_kind (type, tend, is_factory);

      p = elem_end < end ? elem_end + 1 : end;
    }

  return TS_SANITIZER_ARG_NONE;
}

TsSanitizerArgKind
ts_sanitizer_schema_output_kind (const char *schema)
{
  const char *args_start;
  const char *p;
  const char *end;
  const char *arrow;
  TsSanitizerArgKind kind;

  g_return_val_if_fail (schema != NULL, TS_SANITIZER_ARG_NONE);

  end = schema + strlen (schema);
  if (!schema_args (schema, &args_start, &p))
    return TS_SANITIZER_ARG_NONE;

  arrow = strstr (p, "->");
  if (arrow == NULL)
    return TS_SANITIZER_ARG_NONE;
  p = arrow + 2;
  skip_spaces (&p, end);

  if (p < end && *p == '(')
    {
      p++;
      skip_spaces (&p, end);
      end = element_end (p, end);
    }

  kind = type_kind (p, type_end (p, end), ts_sanitizer_schema_is_factory (schema));

  /* An output is written unless metadata only. */
  return kind == TS_SANITIZER_ARG_READ ? TS_SANITIZER_ARG_WRITE : kind;
}

/* The argument collector */

typedef struct
{
  guint64  ptr;
  gboolean read;
  gboolean written;
  gboolean output;
  GString *names;
} ArgEntry;

struct _TsSanitizerArgs
{
  GArray *entries;      /* ArgEntry; GStrings kept across resets */
  guint   n_used;
  GArray *accesses;     /* TsSanitizerAccess */
};

TsSanitizerArgs *
ts_sanitizer_args_new (void)
{
  TsSanitizerArgs *args = g_new0 (TsSanitizerArgs, 1);

  args->entries = g_array_new (FALSE, TRUE, sizeof (ArgEntry));
  args->accesses = g_array_new (FALSE, FALSE, sizeof (TsSanitizerAccess));

  return args;
}

void
ts_sanitizer_args_free (TsSanitizerArgs *args)
{
  if (args == NULL)
    return;

  for (guint i = 0; i < args->entries->len; i++)
    {
      ArgEntry *e = &g_array_index (args->entries, ArgEntry, i);

      if (e->names != NULL)
        g_string_free (e->names, TRUE);
    }
  g_array_unref (args->entries);
  g_array_unref (args->accesses);
  g_free (args);
}

void
ts_sanitizer_args_reset (TsSanitizerArgs *args)
{
  g_return_if_fail (args != NULL);

  args->n_used = 0;
  g_array_set_size (args->accesses, 0);
}

static ArgEntry *
args_entry (TsSanitizerArgs *args,
            guint64          ptr)
{
  ArgEntry *e;

  for (guint i = 0; i < args->n_used; i++)
    {
      e = &g_array_index (args->entries, ArgEntry, i);
      if (e->ptr == ptr)
        return e;
    }

  if (args->n_used == args->entries->len)
    g_array_set_size (args->entries, args->n_used + 1);

  e = &g_array_index (args->entries, ArgEntry, args->n_used++);
  e->ptr = ptr;
  e->read = e->written = e->output = FALSE;
  if (e->names == NULL)
    e->names = g_string_new (NULL);
  else
    g_string_truncate (e->names, 0);

  return e;
}

void
ts_sanitizer_args_add_input (TsSanitizerArgs    *args,
                             guint64             data_ptr,
                             const char         *name,
                             TsSanitizerArgKind  kind)
{
  ArgEntry *e;

  g_return_if_fail (args != NULL);

  if (kind == TS_SANITIZER_ARG_NONE)
    return;

  e = args_entry (args, data_ptr);
  if (kind == TS_SANITIZER_ARG_WRITE)
    e->written = TRUE;
  else if (kind == TS_SANITIZER_ARG_READ)
    e->read = TRUE;

  /* CSAN lists every argument name, metadata-only ones included. */
  if (name != NULL)
    {
      if (e->names->len > 0)
        g_string_append (e->names, ", ");
      g_string_append (e->names, name);
    }
}

void
ts_sanitizer_args_add_output (TsSanitizerArgs    *args,
                              guint64             data_ptr,
                              TsSanitizerArgKind  kind)
{
  ArgEntry *e;

  g_return_if_fail (args != NULL);

  if (kind == TS_SANITIZER_ARG_NONE)
    return;

  e = args_entry (args, data_ptr);
  e->output = TRUE;
  if (kind != TS_SANITIZER_ARG_METADATA)
    e->written = TRUE;
}

const TsSanitizerAccess *
ts_sanitizer_args_get_accesses (TsSanitizerArgs *args,
                                guint           *n_accesses)
{
  g_return_val_if_fail (args != NULL, NULL);
  g_return_val_if_fail (n_accesses != NULL, NULL);

  g_array_set_size (args->accesses, 0);

  for (guint pass = 0; pass < 2; pass++)
    {
      for (guint i = 0; i < args->n_used; i++)
        {
          const ArgEntry *e = &g_array_index (args->entries, ArgEntry, i);
          TsSanitizerAccess a;

          /* pass 0: read only (read − written); pass 1: written. */
          if (pass == 0 ? !(e->read && !e->written) : !e->written)
            continue;

          a.data_ptr = e->ptr;
          a.is_write = e->written;
          a.is_output = e->output;
          a.names = e->names->str;
          g_array_append_val (args->accesses, a);
        }
    }

  *n_accesses = args->accesses->len;

  return (const TsSanitizerAccess *) (gpointer) args->accesses->data;
}
