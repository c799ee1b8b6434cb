/* ts-trace-writer.c: streams a recorder's content into a trace file or pipe
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The writer is a TsRecorderSink, and sink callbacks run under the
 * recorder's lock, so they do as little as they can: copy the string or
 * the record, as stored, into a raw block (1 MiB) and return. A writer
 * thread takes full blocks, encodes their content into events frames
 * (docs/trace-format.md: varint deltas, a frame every 64 KiB) and writes
 * them out. Producers never wait on the disk, only on a full queue: at most
 * MAX_IN_FLIGHT blocks are waiting or being encoded, and a producer that
 * finds the queue full waits for the thread (no record is ever dropped for
 * being too fast; memory stays bounded).
 *
 * Flush hands the current block to the thread with a mark, and waits until
 * the thread has closed the open events frame and written everything:
 * the runtime calls it at synchronisations so a live reader sees whole
 * frames promptly. Close does the same, then writes the index footer.
 *
 * Sink callbacks cannot fail, so the first error (disk full, a pipe whose
 * reader went away, a string too long for a frame) is kept, further output
 * is dropped (cheaply: the sink stops copying), and flush/close report it.
 * A writer never aborts the run.
 *
 * Locking: the current block belongs to the producers, and sink callbacks
 * are serialized by the recorder's lock, so a record is copied in without
 * another lock (eleven lock pairs a small op, a third of what streaming
 * cost it); flush takes the recorder's lock to hand the block over. The
 * writer's mutex guards the queue, the pool of blocks and the error
 * (`errored` mirrors it for the producers); it is taken after the
 * recorder's, never the other way round. The encoder state belongs to the
 * thread alone.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "ts-trace-format-private.h"
#include "ts-trace-writer.h"

#define RAW_BLOCK_SIZE  (1u << 20)
#define MAX_IN_FLIGHT   8
#define OUT_WRITE_SIZE  (1u << 20)   /* the thread writes once this much is encoded */
#define RAW_STRING      0xffffffffu
#define N_COLUMNS       (1 + TS_N_RECORD_KINDS)   /* strings, then each kind */

enum {
  BLOCK_FLUSH = 1 << 0,
  BLOCK_CLOSE = 1 << 1,
};

/* Raw entries: u32 tag (a kind, or RAW_STRING), u32 length, the bytes,
 * zero padding to 8. */
typedef struct
{
  guint8  *data;
  gsize    len;
  gsize    alloc;
  guint    flags;
  guint64  seq;
} RawBlock;

/* The encoder's view of one kind: predictions, reset at every frame. */
typedef struct
{
  TsTraceWireKind wire;
  guint64         prev[TS_TRACE_MAX_WIRE_FIELDS];
  TsTraceKeyRows  keys;
} EncKind;

struct _TsTraceWriter
{
  GObject         parent_instance;

  pthread_mutex_t mutex;
  pthread_cond_t  work_cond;     /* the thread waits for blocks */
  pthread_cond_t  done_cond;     /* producers wait for room, flush for completion */
  int             fd;
  gboolean        owns_fd;
  gboolean        closed;
  TsRecorder     *recorder;
  GThread        *thread;

  /* The producers' (under the recorder's lock, see above). */
  RawBlock       *cur;
  gint            errored;       /* atomic: error is set */

  /* Guarded by mutex. */
  GQueue          queue;         /* RawBlock, submitted, not taken yet */
  GPtrArray      *pool;          /* free RawBlocks */
  guint           n_in_flight;
  guint64         submitted_seq;
  guint64         done_seq;
  guint64         produced;      /* bytes of trace encoded so far */
  GError         *error;         /* the first failure; sticky */

  /* The thread's alone. */
  GByteArray     *out;           /* encoded bytes not written yet */
  guint64         out_offset;    /* file offset of out->data[0] */
  gboolean        chunk_open;
  gsize           chunk_start;   /* in out, of the open frame's header */
  guint32         chunk_gen;
  guint32         chunk_counts[N_COLUMNS];
  guint64         totals[N_COLUMNS];
  GArray         *index;         /* per frame: guint64 offset, then N_COLUMNS guint32, as bytes */
  guint           n_chunks;
  gboolean        failed;        /* the thread saw the error: output is dropped */
  EncKind         kinds[TS_N_RECORD_KINDS];
};

G_DEFINE_FINAL_TYPE (TsTraceWriter, ts_trace_writer, G_TYPE_OBJECT)

G_DEFINE_QUARK (ts-trace-writer-error-quark, ts_trace_writer_error)

/* With the mutex held. */
static void
set_error_locked (TsTraceWriter *self,
                  GError        *error)
{
  if (self->error == NULL)
    {
      self->error = error;
      g_atomic_int_set (&self->errored, 1);
    }
  else
    g_error_free (error);
}

static void
set_errno_error (TsTraceWriter *self,
                 int            errsv,
                 const char    *what)
{
  pthread_mutex_lock (&self->mutex);
  set_error_locked (self, g_error_new (TS_TRACE_WRITER_ERROR, TS_TRACE_WRITER_ERROR_FAILED,
                                       "Could not %s the trace: %s", what, g_strerror (errsv)));
  pthread_mutex_unlock (&self->mutex);
}

/* write(2) that neither dies of SIGPIPE nor leaves one pending: SIGPIPE is
 * blocked in this thread while writing, and one raised by our write is
 * consumed before unblocking. */
static gboolean
write_all (TsTraceWriter *self,
           const guint8  *data,
           gsize          len)
{
  sigset_t pipe_set, old_set;
  gboolean was_pending;
  gboolean ok = TRUE;
  int errsv = 0;

  sigemptyset (&pipe_set);
  sigaddset (&pipe_set, SIGPIPE);
  pthread_sigmask (SIG_BLOCK, &pipe_set, &old_set);
  {
    sigset_t pending;
    sigpending (&pending);
    was_pending = sigismember (&pending, SIGPIPE);
  }

  while (len > 0)
    {
      gssize n = write (self->fd, data, len);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          if (errno == EAGAIN || errno == EWOULDBLOCK)
            {
              struct pollfd pfd = { self->fd, POLLOUT, 0 };
              poll (&pfd, 1, -1);
              continue;
            }
          errsv = errno;
          ok = FALSE;
          break;
        }

      data += n;
      len -= n;
    }

  if (!ok && errsv == EPIPE && !was_pending)
    {
      struct timespec zero = { 0, 0 };
      while (sigtimedwait (&pipe_set, NULL, &zero) < 0 && errno == EINTR)
        ;
    }
  pthread_sigmask (SIG_SETMASK, &old_set, NULL);

  if (!ok)
    set_errno_error (self, errsv, "write");

  return ok;
}

/* ---- The encoder (writer thread) ---- */

static guint8 *
out_grow (TsTraceWriter *self,
          gsize          len)
{
  gsize at = self->out->len;

  g_byte_array_set_size (self->out, at + len);

  return self->out->data + at;
}

static void
out_pad8 (TsTraceWriter *self)
{
  gsize pad = ts_trace_align8 (self->out->len) - self->out->len;

  memset (out_grow (self, pad), 0, pad);
}

static void
write_frame_header (guint8  *p,
                    guint16  type,
                    guint32  payload_len)
{
  ts_trace_write_u16 (p, type);
  ts_trace_write_u16 (p + 2, 0);
  ts_trace_write_u32 (p + 4, payload_len);
}

static void
note_produced (TsTraceWriter *self)
{
  pthread_mutex_lock (&self->mutex);
  self->produced = self->out_offset + self->out->len;
  pthread_mutex_unlock (&self->mutex);
}

static void
write_out (TsTraceWriter *self)
{
  g_assert (!self->chunk_open);

  if (!self->failed && self->out->len > 0)
    self->failed = !write_all (self, self->out->data, self->out->len);
  self->out_offset += self->out->len;
  g_byte_array_set_size (self->out, 0);
}

static void
encode_header_and_schema (TsTraceWriter *self)
{
  guint8 *p = out_grow (self, TS_TRACE_HEADER_SIZE);
  gsize frame;

  memset (p, 0, TS_TRACE_HEADER_SIZE);
  memcpy (p, TS_TRACE_MAGIC, TS_TRACE_MAGIC_LEN);
  ts_trace_write_u16 (p + 8, TS_TRACE_MAJOR);
  ts_trace_write_u16 (p + 10, TS_TRACE_MINOR);
  ts_trace_write_u32 (p + 12, TS_TRACE_HEADER_SIZE);

  frame = self->out->len;
  out_grow (self, TS_TRACE_FRAME_HEADER_SIZE);
  p = out_grow (self, 4);
  ts_trace_write_u16 (p, TS_N_RECORD_KINDS);
  ts_trace_write_u16 (p + 2, 0);
  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    {
      const TsTraceWireKind *wk = &self->kinds[k].wire;

      p = out_grow (self, 4 + wk->n_fields);
      ts_trace_write_u16 (p, k);
      p[2] = wk->n_fields;
      p[3] = wk->key;
      memcpy (p + 4, wk->types, wk->n_fields);
    }
  write_frame_header (self->out->data + frame, TS_TRACE_FRAME_SCHEMA,
                      self->out->len - frame - TS_TRACE_FRAME_HEADER_SIZE);
  out_pad8 (self);
}

static void
chunk_open (TsTraceWriter *self)
{
  self->chunk_open = TRUE;
  self->chunk_start = self->out->len;
  out_grow (self, TS_TRACE_FRAME_HEADER_SIZE);
  self->chunk_gen++;
  memset (self->chunk_counts, 0, sizeof self->chunk_counts);
  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    {
      memset (self->kinds[k].prev, 0, sizeof self->kinds[k].prev);
      self->kinds[k].keys.n_rows = 0;
    }
}

static void
chunk_seal (TsTraceWriter *self)
{
  guint64 offset = self->out_offset + self->chunk_start;
  guint8 entry[8 + 4 * N_COLUMNS];

  if (!self->chunk_open)
    return;

  write_frame_header (self->out->data + self->chunk_start, TS_TRACE_FRAME_EVENTS,
                      self->out->len - self->chunk_start - TS_TRACE_FRAME_HEADER_SIZE);
  out_pad8 (self);
  self->chunk_open = FALSE;

  ts_trace_write_u64 (entry, offset);
  for (guint c = 0; c < N_COLUMNS; c++)
    {
      ts_trace_write_u32 (entry + 8 + 4 * c, self->chunk_counts[c]);
      self->totals[c] += self->chunk_counts[c];
    }
  g_array_append_vals (self->index, entry, sizeof entry);
  self->n_chunks++;

  note_produced (self);
}

static void
encode_record (TsTraceWriter *self,
               TsRecordKind   kind,
               const guint8  *record)
{
  EncKind *ek = &self->kinds[kind];
  const TsTraceWireKind *wk = &ek->wire;
  guint64 values[TS_TRACE_MAX_WIRE_FIELDS];
  const guint64 *row = NULL;
  guint n = wk->n_fields;
  /* encoded here, then appended once: growing the output by the worst
   * case and shrinking it back was a third of the encoder's time (two
   * g_array_set_size calls a record, the second through remove_range) */
  guint8 buf[2 + 10 * TS_TRACE_MAX_WIRE_FIELDS];
  guint8 *p = buf;

  if (!self->chunk_open)
    chunk_open (self);

  for (guint f = 0; f < n; f++)
    {
      if (TS_TRACE_FIELD_IS_WIDE (wk->types[f]))
        memcpy (&values[f], record + wk->offsets[f], 8);
      else
        {
          guint32 v;
          memcpy (&v, record + wk->offsets[f], 4);
          values[f] = v;
        }
    }

  if (wk->key != TS_TRACE_NO_KEY)
    row = ts_trace_key_rows_lookup (&ek->keys, (guint32) values[wk->key], self->chunk_gen, n);

  p += ts_trace_put_varint (p, 1 + kind);
  for (guint f = 0; f < n; f++)
    {
      guint64 pred = (row != NULL && f > wk->key) ? row[f] : ek->prev[f];

      if (TS_TRACE_FIELD_IS_WIDE (wk->types[f]))
        p += ts_trace_put_varint (p, ts_trace_zigzag64 (values[f] - pred));
      else
        p += ts_trace_put_varint (p, ts_trace_zigzag32 ((guint32) values[f] - (guint32) pred));
    }
  g_byte_array_append (self->out, buf, p - buf);

  memcpy (ek->prev, values, n * sizeof (guint64));
  if (wk->key != TS_TRACE_NO_KEY)
    ts_trace_key_rows_store (&ek->keys, (guint32) values[wk->key], self->chunk_gen, n, (guint64 *) row, values);

  self->chunk_counts[1 + kind]++;
}

static void
encode_string (TsTraceWriter *self,
               const guint8  *str,
               gsize          len)
{
  guint8 head[11];
  guint n;

  /* A frame holds at most TS_TRACE_MAX_PAYLOAD bytes: a long string that
   * would not fit after what the open frame holds starts a new one. */
  if (self->chunk_open &&
      self->out->len - self->chunk_start + 1 + 10 + len > TS_TRACE_MAX_PAYLOAD)
    chunk_seal (self);
  if (!self->chunk_open)
    chunk_open (self);

  head[0] = TS_TRACE_TAG_STRING;
  n = 1 + ts_trace_put_varint (head + 1, len);
  g_byte_array_append (self->out, head, n);
  g_byte_array_append (self->out, str, len);

  self->chunk_counts[0]++;
}

static void
encode_block (TsTraceWriter  *self,
              const RawBlock *block)
{
  const guint8 *p = block->data;
  const guint8 *end = block->data + block->len;

  while (p < end)
    {
      guint32 tag = *(const guint32 *) p;
      guint32 len = *(const guint32 *) (p + 4);

      if (tag == RAW_STRING)
        encode_string (self, p + 8, len);
      else
        encode_record (self, tag, p + 8);
      p += 8 + ts_trace_align8 (len);

      if (self->out->len - self->chunk_start - TS_TRACE_FRAME_HEADER_SIZE >= TS_TRACE_CHUNK_TARGET)
        {
          chunk_seal (self);
          if (self->out->len >= OUT_WRITE_SIZE)
            write_out (self);
        }
    }
}

static void
encode_index (TsTraceWriter *self)
{
  guint64 at = self->out_offset + self->out->len;
  gsize frame = self->out->len;
  guint8 *p;
  gsize payload;

  out_grow (self, TS_TRACE_FRAME_HEADER_SIZE);
  p = out_grow (self, 8 + 8 * N_COLUMNS);
  ts_trace_write_u32 (p, N_COLUMNS);
  ts_trace_write_u32 (p + 4, self->n_chunks);
  for (guint c = 0; c < N_COLUMNS; c++)
    ts_trace_write_u64 (p + 8 + 8 * c, self->totals[c]);
  g_byte_array_append (self->out, (const guint8 *) self->index->data, self->index->len);
  out_pad8 (self);
  p = out_grow (self, TS_TRACE_TRAILER_SIZE);
  ts_trace_write_u64 (p, at);
  memcpy (p + 8, TS_TRACE_INDEX_MAGIC, 8);

  payload = self->out->len - frame - TS_TRACE_FRAME_HEADER_SIZE;
  write_frame_header (self->out->data + frame, TS_TRACE_FRAME_INDEX, payload);
  note_produced (self);
}

static gpointer
writer_thread (gpointer data)
{
  TsTraceWriter *self = data;
  gboolean closing = FALSE;

  pthread_mutex_lock (&self->mutex);

  while (!closing)
    {
      RawBlock *block;
      gboolean failed;

      while (g_queue_is_empty (&self->queue))
        pthread_cond_wait (&self->work_cond, &self->mutex);
      block = g_queue_pop_head (&self->queue);
      failed = self->error != NULL;
      pthread_mutex_unlock (&self->mutex);

      /* After an error nothing more is encoded: records could name a
       * string that was dropped. */
      self->failed |= failed;
      if (!self->failed)
        encode_block (self, block);
      if (block->flags & (BLOCK_FLUSH | BLOCK_CLOSE))
        {
          chunk_seal (self);
          if (block->flags & BLOCK_CLOSE)
            {
              pthread_mutex_lock (&self->mutex);
              self->failed |= self->error != NULL;
              pthread_mutex_unlock (&self->mutex);
              if (!self->failed)
                encode_index (self);
              closing = TRUE;
            }
          write_out (self);
        }
      if (self->failed)
        {
          g_byte_array_set_size (self->out, 0);
          self->chunk_open = FALSE;
        }

      pthread_mutex_lock (&self->mutex);
      self->done_seq = block->seq;
      self->n_in_flight--;
      block->len = 0;
      block->flags = 0;
      if (block->alloc == RAW_BLOCK_SIZE)
        g_ptr_array_add (self->pool, block);
      else
        {
          g_free (block->data);
          g_free (block);
        }
      pthread_cond_broadcast (&self->done_cond);
    }

  pthread_mutex_unlock (&self->mutex);

  return NULL;
}

/* ---- The producer side (sink callbacks, under the recorder's lock) ---- */

static RawBlock *
raw_block_new (gsize alloc)
{
  RawBlock *block = g_new0 (RawBlock, 1);

  block->data = g_malloc (alloc);
  block->alloc = alloc;

  return block;
}

/* Hands cur to the thread (waiting while the queue is full) and takes a
 * fresh block. With the mutex held; returns the block's sequence number. */
static guint64
submit_locked (TsTraceWriter *self,
               guint          flags)
{
  RawBlock *block = self->cur;

  while (self->n_in_flight >= MAX_IN_FLIGHT)
    pthread_cond_wait (&self->done_cond, &self->mutex);

  block->flags = flags;
  block->seq = ++self->submitted_seq;
  self->n_in_flight++;
  g_queue_push_tail (&self->queue, block);
  pthread_cond_signal (&self->work_cond);

  self->cur = self->pool->len > 0 ? g_ptr_array_steal_index_fast (self->pool, self->pool->len - 1)
                                  : raw_block_new (RAW_BLOCK_SIZE);

  return block->seq;
}

/* Room for an entry of len bytes in cur. From a sink callback: the mutex
 * is taken only to hand a full block over. */
static guint8 *
reserve (TsTraceWriter *self,
         gsize          len)
{
  guint8 *p;

  if (self->cur->len + len > self->cur->alloc)
    {
      pthread_mutex_lock (&self->mutex);
      if (self->cur->len > 0)
        submit_locked (self, 0);
      if (len > self->cur->alloc)
        {
          /* A big string: a block of its own, in place of cur. */
          g_ptr_array_add (self->pool, self->cur);
          self->cur = raw_block_new (len);
        }
      pthread_mutex_unlock (&self->mutex);
    }

  p = self->cur->data + self->cur->len;
  self->cur->len += len;

  return p;
}

static void
sink_string (gpointer    user_data,
             TsStringId  id,
             const char *str,
             gsize       len)
{
  TsTraceWriter *self = user_data;
  gsize size = 8 + ts_trace_align8 (len);
  guint8 *p;

  if (g_atomic_int_get (&self->errored))
    return;

  if (len > TS_TRACE_MAX_PAYLOAD - 16)
    {
      pthread_mutex_lock (&self->mutex);
      set_error_locked (self, g_error_new (TS_TRACE_WRITER_ERROR, TS_TRACE_WRITER_ERROR_TOO_BIG,
                                           "String %u is %" G_GSIZE_FORMAT " bytes long, more than a trace frame can hold",
                                           id, len));
      pthread_mutex_unlock (&self->mutex);
      return;
    }

  p = reserve (self, size);
  ((guint32 *) p)[0] = RAW_STRING;
  ((guint32 *) p)[1] = len;
  memcpy (p + 8, str, len);
}

static void
sink_record (gpointer      user_data,
             TsRecordKind  kind,
             const void   *record)
{
  TsTraceWriter *self = user_data;
  gsize size = ts_record_info (kind)->struct_size;
  guint8 *p;

  if (G_UNLIKELY (g_atomic_int_get (&self->errored)))
    return;

  p = reserve (self, 8 + size);
  ((guint32 *) p)[0] = kind;
  ((guint32 *) p)[1] = size;
  memcpy (p + 8, record, size);
}

static const TsRecorderSink writer_sink = { sink_string, sink_record };

static gboolean
check_usable (TsTraceWriter  *self,
              GError        **error)
{
  if (self->closed)
    {
      g_set_error_literal (error, TS_TRACE_WRITER_ERROR, TS_TRACE_WRITER_ERROR_CLOSED,
                           "The trace writer is closed");
      return FALSE;
    }

  if (self->error != NULL)
    {
      if (error != NULL)
        *error = g_error_copy (self->error);
      return FALSE;
    }

  return TRUE;
}

static void
ts_trace_writer_dispose (GObject *object)
{
  TsTraceWriter *self = (TsTraceWriter *) object;

  if (!self->closed)
    ts_trace_writer_close (self, NULL);

  G_OBJECT_CLASS (ts_trace_writer_parent_class)->dispose (object);
}

static void
free_block (gpointer data)
{
  RawBlock *block = data;

  g_free (block->data);
  g_free (block);
}

static void
ts_trace_writer_finalize (GObject *object)
{
  TsTraceWriter *self = (TsTraceWriter *) object;

  g_assert (self->thread == NULL);

  g_clear_pointer (&self->cur, free_block);
  g_queue_clear_full (&self->queue, free_block);
  g_clear_pointer (&self->pool, g_ptr_array_unref);
  g_clear_pointer (&self->out, g_byte_array_unref);
  g_clear_pointer (&self->index, g_array_unref);
  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    {
      ts_trace_key_rows_clear (&self->kinds[k].keys);
    }
  g_clear_error (&self->error);
  pthread_cond_destroy (&self->work_cond);
  pthread_cond_destroy (&self->done_cond);
  pthread_mutex_destroy (&self->mutex);

  G_OBJECT_CLASS (ts_trace_writer_parent_class)->finalize (object);
}

static void
ts_trace_writer_class_init (TsTraceWriterClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ts_trace_writer_dispose;
  object_class->finalize = ts_trace_writer_finalize;
}

static void
ts_trace_writer_init (TsTraceWriter *self)
{
  pthread_mutex_init (&self->mutex, NULL);
  pthread_cond_init (&self->work_cond, NULL);
  pthread_cond_init (&self->done_cond, NULL);
  self->fd = -1;
  self->closed = TRUE;   /* until new_for_fd starts the thread */
  g_queue_init (&self->queue);
  self->pool = g_ptr_array_new_with_free_func (free_block);
  self->cur = raw_block_new (RAW_BLOCK_SIZE);
  self->out = g_byte_array_sized_new (OUT_WRITE_SIZE + TS_TRACE_CHUNK_TARGET + 4096);
  self->index = g_array_new (FALSE, FALSE, 1);

  for (guint k = 0; k < TS_N_RECORD_KINDS; k++)
    {
      EncKind *ek = &self->kinds[k];

      ts_trace_wire_kind_init (&ek->wire, k);
      if (ek->wire.key != TS_TRACE_NO_KEY)
        ts_trace_key_rows_init (&ek->keys);
    }

  encode_header_and_schema (self);
  self->produced = self->out->len;
}

TsTraceWriter *
ts_trace_writer_new_for_fd (int      fd,
                            gboolean close_fd)
{
  TsTraceWriter *self;

  g_return_val_if_fail (fd >= 0, NULL);

  self = g_object_new (TS_TYPE_TRACE_WRITER, NULL);
  self->fd = fd;
  self->owns_fd = close_fd;
  self->closed = FALSE;
  self->thread = g_thread_new ("trace-writer", writer_thread, self);

  return self;
}

TsTraceWriter *
ts_trace_writer_new_for_path (const char  *path,
                              GError     **error)
{
  int fd;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      int errsv = errno;
      g_autofree char *display = g_filename_display_name (path);

      g_set_error (error, TS_TRACE_WRITER_ERROR, TS_TRACE_WRITER_ERROR_FAILED,
                   "Could not create the trace “%s”: %s", display, g_strerror (errsv));
      return NULL;
    }

  return ts_trace_writer_new_for_fd (fd, TRUE);
}

gboolean
ts_trace_writer_attach (TsTraceWriter  *self,
                        TsRecorder     *recorder,
                        GError        **error)
{
  g_return_val_if_fail (TS_IS_TRACE_WRITER (self), FALSE);
  g_return_val_if_fail (TS_IS_RECORDER (recorder), FALSE);
  g_return_val_if_fail (self->recorder == NULL, FALSE);

  if (self->closed)
    return check_usable (self, error);

  self->recorder = g_object_ref (recorder);
  ts_recorder_set_sink (recorder, &writer_sink, self);

  return ts_trace_writer_flush (self, error);
}

/* Hands the current block to the thread with flags and waits until it is
 * done with it. With the mutex held. */
static void
sync_locked (TsTraceWriter *self,
             guint          flags)
{
  guint64 seq = submit_locked (self, flags);

  while (self->done_seq < seq)
    pthread_cond_wait (&self->done_cond, &self->mutex);
}

typedef struct
{
  TsTraceWriter  *self;
  GError        **error;
  gboolean        ret;
} Flush;

/* With the recorder's lock held, when attached: cur is the producers' */
static void
flush_between_appends (gpointer data)
{
  Flush *flush = data;
  TsTraceWriter *self = flush->self;

  pthread_mutex_lock (&self->mutex);
  flush->ret = check_usable (self, flush->error);
  if (flush->ret)
    {
      sync_locked (self, BLOCK_FLUSH);
      flush->ret = check_usable (self, flush->error);
    }
  pthread_mutex_unlock (&self->mutex);
}

gboolean
ts_trace_writer_flush (TsTraceWriter  *self,
                       GError        **error)
{
  Flush flush = { self, error, FALSE };

  g_return_val_if_fail (TS_IS_TRACE_WRITER (self), FALSE);

  if (self->recorder != NULL)
    ts_recorder_call_locked (self->recorder, flush_between_appends, &flush);
  else
    flush_between_appends (&flush);

  return flush.ret;
}

gboolean
ts_trace_writer_close (TsTraceWriter  *self,
                       GError        **error)
{
  gboolean ret;

  g_return_val_if_fail (TS_IS_TRACE_WRITER (self), FALSE);

  if (self->closed)
    return check_usable (self, error);

  /* Detach first, without our lock: set_sink takes the recorder's, and a
   * sink call in progress holds it and may wait for ours. */
  if (self->recorder != NULL)
    {
      ts_recorder_set_sink (self->recorder, NULL, NULL);
      g_clear_object (&self->recorder);
    }

  pthread_mutex_lock (&self->mutex);
  sync_locked (self, BLOCK_CLOSE);
  pthread_mutex_unlock (&self->mutex);

  g_thread_join (self->thread);
  self->thread = NULL;

  if (self->owns_fd && self->fd >= 0)
    {
      if (close (self->fd) != 0)
        set_errno_error (self, errno, "close");
    }
  self->fd = -1;

  pthread_mutex_lock (&self->mutex);
  ret = check_usable (self, error);
  self->closed = TRUE;
  pthread_mutex_unlock (&self->mutex);

  return ret;
}

guint64
ts_trace_writer_get_offset (TsTraceWriter *self)
{
  guint64 ret;

  g_return_val_if_fail (TS_IS_TRACE_WRITER (self), 0);

  pthread_mutex_lock (&self->mutex);
  ret = self->produced;
  pthread_mutex_unlock (&self->mutex);

  return ret;
}
