/* ts-trace-writer.c: streams a recorder's content into a trace file or pipe
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The writer is a TsRecorderSink: it turns each string and record into a
 * frame (docs/trace-format.md) in a buffer, and writes the buffer out when
 * it fills, on flush and on close. Sink callbacks cannot fail, so the first
 * error (disk full, a pipe whose reader went away) is kept, further output
 * is dropped, and flush/close report it. A writer never aborts the run.
 *
 * Locking: sink callbacks run under the recorder's lock, and flush may come
 * from another thread, so the writer has its own mutex, always taken after
 * the recorder's (never the other way round).
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "ts-trace-format-private.h"
#include "ts-trace-writer.h"

#define BUFFER_SIZE (256 * 1024)
#define N_INDEX_ENTRIES (1 + TS_N_RECORD_KINDS)   /* strings, then each kind */

struct _TsTraceWriter
{
  GObject     parent_instance;

  GMutex      mutex;
  int         fd;
  gboolean    owns_fd;
  gboolean    closed;
  TsRecorder *recorder;

  guint8     *buffer;
  gsize       buffer_len;
  guint64     offset;      /* of the next byte produced */

  guint64     counts[N_INDEX_ENTRIES];
  GArray     *chunks[N_INDEX_ENTRIES];   /* guint64 frame offsets */

  GError     *error;       /* the first failure; sticky */
};

G_DEFINE_FINAL_TYPE (TsTraceWriter, ts_trace_writer, G_TYPE_OBJECT)

G_DEFINE_QUARK (ts-trace-writer-error-quark, ts_trace_writer_error)

static void
set_errno_error (TsTraceWriter *self,
                 int            errsv,
                 const char    *what)
{
  if (self->error == NULL)
    self->error = g_error_new (TS_TRACE_WRITER_ERROR, TS_TRACE_WRITER_ERROR_FAILED,
                               "Could not %s the trace: %s", what, g_strerror (errsv));
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

static gboolean
flush_buffer (TsTraceWriter *self)
{
  gboolean ok = TRUE;

  if (self->error == NULL && self->buffer_len > 0)
    ok = write_all (self, self->buffer, self->buffer_len);
  self->buffer_len = 0;

  return ok && self->error == NULL;
}

/* Room for len bytes at the end of the buffer, or NULL after an error.
 * Frames larger than the buffer get a temporary one of their own. */
static guint8 *
reserve (TsTraceWriter *self,
         gsize          len)
{
  if (self->error != NULL)
    return NULL;

  if (self->buffer_len + len > BUFFER_SIZE)
    {
      if (!flush_buffer (self))
        return NULL;
      if (len > BUFFER_SIZE)
        return NULL;
    }

  return self->buffer + self->buffer_len;
}

static void
commit (TsTraceWriter *self,
        gsize          len)
{
  self->buffer_len += len;
  self->offset += len;
}

static void
note_frame (TsTraceWriter *self,
            guint          entry)
{
  if (self->counts[entry] % TS_TRACE_INDEX_CHUNK == 0)
    g_array_append_val (self->chunks[entry], self->offset);
  self->counts[entry]++;
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
write_big_frame (TsTraceWriter *self,
                 guint16        type,
                 const guint8  *head,
                 gsize          head_len,
                 const guint8  *body,
                 gsize          body_len)
{
  gsize payload = head_len + body_len;
  gsize total = TS_TRACE_FRAME_HEADER_SIZE + ts_trace_align8 (payload);
  g_autofree guint8 *frame = g_malloc0 (total);

  write_frame_header (frame, type, payload);
  memcpy (frame + TS_TRACE_FRAME_HEADER_SIZE, head, head_len);
  memcpy (frame + TS_TRACE_FRAME_HEADER_SIZE + head_len, body, body_len);
  if (flush_buffer (self) && write_all (self, frame, total))
    self->offset += total;
}

static void
sink_string (gpointer    user_data,
             TsStringId  id,
             const char *str,
             gsize       len)
{
  TsTraceWriter *self = user_data;
  gsize payload = 4 + len;
  gsize total = TS_TRACE_FRAME_HEADER_SIZE + ts_trace_align8 (payload);
  guint8 *p;

  g_mutex_lock (&self->mutex);

  if (self->error != NULL)
    goto out;

  if (payload > TS_TRACE_MAX_PAYLOAD)
    {
      self->error = g_error_new (TS_TRACE_WRITER_ERROR, TS_TRACE_WRITER_ERROR_TOO_BIG,
                                 "String %u is %" G_GSIZE_FORMAT " bytes long, more than a trace frame can hold",
                                 id, len);
      goto out;
    }

  note_frame (self, 0);

  if (total > BUFFER_SIZE)
    {
      guint8 head[4];
      ts_trace_write_u32 (head, id);
      write_big_frame (self, TS_TRACE_FRAME_STRING, head, 4, (const guint8 *) str, len);
      goto out;
    }

  if ((p = reserve (self, total)) == NULL)
    goto out;

  write_frame_header (p, TS_TRACE_FRAME_STRING, payload);
  ts_trace_write_u32 (p + 8, id);
  memcpy (p + 12, str, len);
  memset (p + 12 + len, 0, total - 12 - len);
  commit (self, total);

out:
  g_mutex_unlock (&self->mutex);
}

static void
sink_record (gpointer      user_data,
             TsRecordKind  kind,
             const void   *record)
{
  TsTraceWriter *self = user_data;
  const TsRecordInfo *info = ts_record_info (kind);
  gsize total = TS_TRACE_FRAME_HEADER_SIZE + info->struct_size;
  guint8 *p;

  g_assert (info->struct_size % 8 == 0);

  g_mutex_lock (&self->mutex);

  if ((p = reserve (self, total)) != NULL)
    {
      note_frame (self, 1 + kind);
      write_frame_header (p, TS_TRACE_FRAME_RECORD + kind, info->struct_size);
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
      /* The field tables cover each struct exactly, in order, naturally
       * aligned: the struct's bytes are the payload. */
      memcpy (p + 8, record, info->struct_size);
#else
      for (guint f = 0; f < info->n_fields; f++)
        {
          const TsFieldInfo *fi = &info->fields[f];
          const guint8 *src = (const guint8 *) record + fi->offset;

          if (fi->size == 8)
            ts_trace_write_u64 (p + 8 + fi->offset, *(const guint64 *) src);
          else
            ts_trace_write_u32 (p + 8 + fi->offset, *(const guint32 *) src);
        }
#endif
      commit (self, total);
    }

  g_mutex_unlock (&self->mutex);
}

static const TsRecorderSink writer_sink = { sink_string, sink_record };

static void
write_header (TsTraceWriter *self)
{
  guint8 *p = reserve (self, TS_TRACE_HEADER_SIZE);

  g_assert (p != NULL);
  memset (p, 0, TS_TRACE_HEADER_SIZE);
  memcpy (p, TS_TRACE_MAGIC, TS_TRACE_MAGIC_LEN);
  ts_trace_write_u16 (p + 8, TS_TRACE_MAJOR);
  ts_trace_write_u16 (p + 10, TS_TRACE_MINOR);
  ts_trace_write_u32 (p + 12, TS_TRACE_HEADER_SIZE);
  commit (self, TS_TRACE_HEADER_SIZE);
}

static void
write_index (TsTraceWriter *self)
{
  gsize payload = 8 + TS_TRACE_TRAILER_SIZE;
  g_autofree guint8 *frame = NULL;
  guint64 index_offset = self->offset;
  guint8 *p;

  for (guint e = 0; e < N_INDEX_ENTRIES; e++)
    payload += 16 + 8 * self->chunks[e]->len;

  frame = g_malloc0 (TS_TRACE_FRAME_HEADER_SIZE + payload);
  write_frame_header (frame, TS_TRACE_FRAME_INDEX, payload);
  p = frame + TS_TRACE_FRAME_HEADER_SIZE;

  ts_trace_write_u32 (p, N_INDEX_ENTRIES);
  ts_trace_write_u32 (p + 4, TS_TRACE_INDEX_CHUNK);
  p += 8;

  for (guint e = 0; e < N_INDEX_ENTRIES; e++)
    {
      GArray *chunks = self->chunks[e];

      ts_trace_write_u16 (p, e == 0 ? TS_TRACE_FRAME_STRING : TS_TRACE_FRAME_RECORD + e - 1);
      ts_trace_write_u16 (p + 2, 0);
      ts_trace_write_u32 (p + 4, chunks->len);
      ts_trace_write_u64 (p + 8, self->counts[e]);
      p += 16;
      for (guint c = 0; c < chunks->len; c++, p += 8)
        ts_trace_write_u64 (p, g_array_index (chunks, guint64, c));
    }

  ts_trace_write_u64 (p, index_offset);
  memcpy (p + 8, TS_TRACE_INDEX_MAGIC, 8);

  if (flush_buffer (self) && write_all (self, frame, TS_TRACE_FRAME_HEADER_SIZE + payload))
    self->offset += TS_TRACE_FRAME_HEADER_SIZE + payload;
}

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
ts_trace_writer_finalize (GObject *object)
{
  TsTraceWriter *self = (TsTraceWriter *) object;

  for (guint e = 0; e < N_INDEX_ENTRIES; e++)
    g_clear_pointer (&self->chunks[e], g_array_unref);
  g_clear_pointer (&self->buffer, g_free);
  g_clear_error (&self->error);
  g_mutex_clear (&self->mutex);

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
  g_mutex_init (&self->mutex);
  self->fd = -1;
  self->buffer = g_malloc (BUFFER_SIZE);
  for (guint e = 0; e < N_INDEX_ENTRIES; e++)
    self->chunks[e] = g_array_new (FALSE, FALSE, sizeof (guint64));
  write_header (self);
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

gboolean
ts_trace_writer_flush (TsTraceWriter  *self,
                       GError        **error)
{
  gboolean ret;

  g_return_val_if_fail (TS_IS_TRACE_WRITER (self), FALSE);

  g_mutex_lock (&self->mutex);
  ret = check_usable (self, error) && flush_buffer (self);
  if (!ret && error != NULL && *error == NULL)
    *error = g_error_copy (self->error);
  g_mutex_unlock (&self->mutex);

  return ret;
}

gboolean
ts_trace_writer_close (TsTraceWriter  *self,
                       GError        **error)
{
  gboolean ret;

  g_return_val_if_fail (TS_IS_TRACE_WRITER (self), FALSE);

  if (self->closed)
    return check_usable (self, error);

  /* Detach first, without our lock: set_sink takes the recorder's. */
  if (self->recorder != NULL)
    {
      ts_recorder_set_sink (self->recorder, NULL, NULL);
      g_clear_object (&self->recorder);
    }

  g_mutex_lock (&self->mutex);

  if (self->error == NULL)
    {
      write_index (self);
      flush_buffer (self);
    }

  if (self->owns_fd && self->fd >= 0)
    {
      if (close (self->fd) != 0)
        set_errno_error (self, errno, "close");
    }
  self->fd = -1;

  ret = check_usable (self, error);
  self->closed = TRUE;

  g_mutex_unlock (&self->mutex);

  return ret;
}

guint64
ts_trace_writer_get_offset (TsTraceWriter *self)
{
  guint64 ret;

  g_return_val_if_fail (TS_IS_TRACE_WRITER (self), 0);

  g_mutex_lock (&self->mutex);
  ret = self->offset;
  g_mutex_unlock (&self->mutex);

  return ret;
}
