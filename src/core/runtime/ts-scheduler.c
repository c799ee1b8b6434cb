/* ts-scheduler.c: the discrete-event device simulation
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How it works, in short (docs/simulation-model.md has the long version):
 *
 * - Every piece of device work is an Item in a pool (an array indexed by
 *   32-bit ids with a free list: no malloc per launch once the pool has
 *   grown). A stream is a singly linked FIFO of items; only its head can
 *   run, so work in a stream runs in submission order.
 *
 * - Two kinds of timed events go through one binary heap ordered by
 *   (time, sequence): KICK (a stream's head may begin: it became visible to
 *   the device, or the event it waits for completed) and DONE (an item ends).
 *   Ties are broken by the order events were scheduled, so a run is a pure
 *   function of the calls made: the same workload gives the same trace.
 *
 * - All events of one instant are handled first; then every device whose
 *   state changed hands its free engines out. A kernel, memset or
 *   same-device copy needs min(blocks, SMs) SMs and starts only when that
 *   many are free; the waiting one with the highest priority (most negative)
 *   goes first, then the earliest ready, then the lowest stream id, then
 *   submission order. There is no backfilling: a big kernel at the head of
 *   the queue holds back smaller ones behind it, so priorities always win.
 *   Copies to and from the host and between devices go to copy engines, one
 *   copy at a time per engine, first come first served.
 *
 * - Event records and waits are items too. A record completes when it
 *   reaches the head of its stream (everything before it is done); a wait
 *   holds its stream's head until the record it names has completed.
 *   Records are reference-counted so events and waits can point at them.
 *
 * - The host side (TsRuntime) advances the simulation to the host's clock
 *   before each call, so device callbacks run in virtual-time order and an
 *   item's inputs are read at its start and its outputs written at its end.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-scheduler-private.h"

typedef enum
{
  ITEM_KERNEL = 1,
  ITEM_MEMSET,
  ITEM_COPY,
  ITEM_RECORD,
  ITEM_WAIT,
} ItemKind;

typedef enum
{
  STATE_FREE = 0,
  STATE_PENDING,    /* in its stream, not begun */
  STATE_WAITING,    /* a wait at the head of its stream, blocked on a record */
  STATE_READY,      /* in an engine's queue */
  STATE_RUNNING,
  STATE_DONE,
} ItemState;

/* Which engine runs an item. */
enum
{
  ENGINE_NONE = 0,
  ENGINE_COMPUTE,
  ENGINE_LANE0,     /* copy engines: H2D, D2H, peer (see lane_for_copy) */
};

#define N_LANES 3

typedef struct
{
  guint32     next;        /* next in the stream, or in the free list */
  guint8      kind;
  guint8      state;
  guint8      engine;      /* ENGINE_COMPUTE, or ENGINE_LANE0 + lane */
  guint8      cancelled;   /* began after its device faulted: did not run */
  TsStreamId  stream;
  guint32     refs;        /* holders besides the stream (events, waits, hosts) */
  guint32     sms;
  guint32     error;       /* TsDeviceError from on_start */
  guint32     padding;
  TsTime      ready;       /* host time at which the device sees it */
  TsTime      start;
  TsTime      end;
  TsTime      duration;
  guint64     correlation;
  TsSourceLoc loc;
  TsWork      work;
  union {
    struct {
      TsStringId name;
      guint32    grid[3];
      guint32    block[3];
      guint64    flops;
      guint64    bytes;
    } kernel;
    struct {
      guint64    bytes;
      guint32    value;
    } memset;
    struct {
      guint64    bytes;
      guint32    kind;
      guint32    flags;
      gint32     src;
      gint32     dst;
    } copy;
    struct {
      guint64    event;
      guint32    waiters;    /* wait items blocked on this record */
    } record;
    struct {
      guint64    event;
      guint32    target;     /* the record item (referenced) */
      guint32    next_waiter;
      guint64    record_correlation;
    } wait;
  } u;
} Item;

typedef struct
{
  TsTime  time;
  guint64 seq;
  guint32 kind;            /* EV_KICK or EV_DONE */
  guint32 arg;             /* stream or item */
} Event;

enum { EV_KICK = 1, EV_DONE = 2 };

/* An entry of an engine's ready queue; the key is copied in so comparisons
 * do not chase item pointers. */
typedef struct
{
  gint32     priority;
  TsStreamId stream;
  TsTime     ready;
  guint64    seq;
  guint32    item;
  guint32    padding;
} ReadyEntry;

typedef struct
{
  ReadyEntry *entries;
  guint       len;
  guint       cap;
} ReadyQueue;

typedef struct
{
  guint32  device;
  gint32   priority;
  guint32  head;
  guint32  tail;
} Stream;

typedef struct
{
  guint      free_sms;
  ReadyQueue compute;
  ReadyQueue lanes[N_LANES];
  gboolean   lane_busy[N_LANES];
  guint64    pending;      /* items of this device's streams not yet done */
  TsFault    fault;
} Device;

struct _TsScheduler
{
  TsRecorder         *recorder;
  const TsGpuProfile *profile;
  TsTime              now;

  Item               *items;
  guint32             n_items;
  guint32             items_cap;
  guint32             free_items;

  Event              *heap;
  guint               heap_len;
  guint               heap_cap;
  guint64             event_seq;
  guint64             item_seq;

  Stream             *streams;
  guint               n_streams;
  guint               streams_cap;

  Device             *devices;
  guint               n_devices;
  guint32             dirty;       /* devices whose engines may have work to hand out */

  /* The started item whose on_start is held back, in the hope that it
   * ends before anything else starts or ends (see hold_release). */
  guint32             held;
  gboolean            has_held;
};

#define ITEM(self, i) (&(self)->items[(i)])

/* ---------------------------------------------------------------- heaps */

/* The timed events and the ready work are both binary min-heaps that differ
 * only in element type and order. The sifts are written once, as macros
 * rather than functions over void pointers and a comparison callback, so
 * that each heap keeps a direct, inlined comparison: they are the
 * scheduler's hot path. I is the hole to fill, VALUE what goes in. */
#define HEAP_SIFT_UP(heap, i, value, before)                                  \
  G_STMT_START {                                                              \
    while ((i) > 0)                                                           \
      {                                                                       \
        guint parent_ = ((i) - 1) / 2;                                        \
                                                                              \
        if (!before (&(value), &(heap)[parent_]))                             \
          break;                                                              \
        (heap)[i] = (heap)[parent_];                                          \
        (i) = parent_;                                                        \
      }                                                                       \
    (heap)[i] = (value);                                                      \
  } G_STMT_END

/* LAST, the element taken from the end, sinks from the root of a heap of N. */
#define HEAP_SIFT_DOWN(heap, n, last, before)                                 \
  G_STMT_START {                                                              \
    guint i_ = 0;                                                             \
                                                                              \
    for (;;)                                                                  \
      {                                                                       \
        guint child_ = 2 * i_ + 1;                                            \
                                                                              \
        if (child_ >= (n))                                                    \
          break;                                                              \
        if (child_ + 1 < (n) && before (&(heap)[child_ + 1], &(heap)[child_])) \
          child_++;                                                           \
        if (!before (&(heap)[child_], &(last)))                               \
          break;                                                              \
        (heap)[i_] = (heap)[child_];                                          \
        i_ = child_;                                                          \
      }                                                                       \
    if ((n) > 0)                                                              \
      (heap)[i_] = (last);                                                    \
  } G_STMT_END

static inline gboolean
event_before (const Event *a,
              const Event *b)
{
  if (a->time != b->time)
    return a->time < b->time;
  return a->seq < b->seq;
}

static void
heap_push (TsScheduler *self,
           TsTime       time,
           guint32      kind,
           guint32      arg)
{
  Event ev = { time, self->event_seq++, kind, arg };
  guint i;

  if (self->heap_len == self->heap_cap)
    {
      self->heap_cap = MAX (64, self->heap_cap * 2);
      self->heap = g_renew (Event, self->heap, self->heap_cap);
    }

  i = self->heap_len++;
  HEAP_SIFT_UP (self->heap, i, ev, event_before);
}

static Event
heap_pop (TsScheduler *self)
{
  Event top = self->heap[0];
  Event last = self->heap[--self->heap_len];

  HEAP_SIFT_DOWN (self->heap, self->heap_len, last, event_before);
  return top;
}

static inline gboolean
ready_before (const ReadyEntry *a,
              const ReadyEntry *b)
{
  if (a->priority != b->priority)
    return a->priority < b->priority;
  if (a->ready != b->ready)
    return a->ready < b->ready;
  if (a->stream != b->stream)
    return a->stream < b->stream;
  return a->seq < b->seq;
}

static void
ready_push (ReadyQueue       *q,
            const ReadyEntry *entry)
{
  guint i;

  if (q->len == q->cap)
    {
      q->cap = MAX (16, q->cap * 2);
      q->entries = g_renew (ReadyEntry, q->entries, q->cap);
    }

  i = q->len++;
  HEAP_SIFT_UP (q->entries, i, *entry, ready_before);
}

static guint32
ready_pop (ReadyQueue *q)
{
  guint32 top = q->entries[0].item;
  ReadyEntry last = q->entries[--q->len];

  HEAP_SIFT_DOWN (q->entries, q->len, last, ready_before);
  return top;
}

/* ---------------------------------------------------------------- items */

static guint32
item_alloc (TsScheduler *self)
{
  guint32 idx;

  if (self->free_items != TS_ITEM_NONE)
    {
      idx = self->free_items;
      self->free_items = ITEM (self, idx)->next;
    }
  else
    {
      if (self->n_items == self->items_cap)
        {
          g_assert (self->items_cap < TS_ITEM_NONE / 2);
          self->items_cap = MAX (256, self->items_cap * 2);
          self->items = g_renew (Item, self->items, self->items_cap);
        }
      idx = self->n_items++;
    }

  memset (ITEM (self, idx), 0, sizeof (Item));
  ITEM (self, idx)->next = TS_ITEM_NONE;

  return idx;
}

static void
item_free (TsScheduler *self,
           guint32      idx)
{
  Item *item = ITEM (self, idx);

  g_assert (item->state == STATE_DONE);
  g_assert (item->refs == 0);

  item->state = STATE_FREE;
  item->next = self->free_items;
  self->free_items = idx;
}

void
ts_scheduler_item_ref (TsScheduler *self,
                       guint32      item)
{
  g_assert (item < self->n_items);
  g_assert (ITEM (self, item)->state != STATE_FREE);

  ITEM (self, item)->refs++;
}

void
ts_scheduler_item_unref (TsScheduler *self,
                         guint32      item)
{
  Item *it;

  g_assert (item < self->n_items);
  it = ITEM (self, item);
  g_assert (it->refs > 0);

  if (--it->refs == 0 && it->state == STATE_DONE)
    item_free (self, item);
}

gboolean
ts_scheduler_item_is_done (TsScheduler *self,
                           guint32      item,
                           TsTime      *end)
{
  const Item *it = ITEM (self, item);

  g_assert (item < self->n_items);

  if (it->state != STATE_DONE)
    return FALSE;
  if (end != NULL)
    *end = it->end;
  return TRUE;
}

guint64
ts_scheduler_item_get_correlation (TsScheduler *self,
                                   guint32      item)
{
  g_assert (item < self->n_items);

  return ITEM (self, item)->correlation;
}

static void
item_destroy_work (Item *item)
{
  GDestroyNotify destroy = item->work.destroy;
  gpointer data = item->work.data;

  item->work = (TsWork) { 0 };
  if (destroy != NULL)
    destroy (data);
}

/* ---------------------------------------------------------------- model */

static TsTime
ns_for (double amount,
        double per_second)
{
  /* amount * 1e9 / rate is correctly rounded, so round figures stay exact;
   * ceil so that nonzero work never takes zero time. */
  if (amount <= 0 || per_second <= 0)
    return 0;
  return (TsTime) ceil (amount * 1e9 / per_second);
}

static guint32
sms_for_bytes (const TsGpuProfile *profile,
               guint64             bytes)
{
  /* Memsets and same-device copies are kernels underneath: one block per
   * 64 KiB is about what a grid-stride copy kernel launches. */
  guint64 blocks = (bytes + 65535) / 65536;

  return (guint32) CLAMP (blocks, 1, profile->sm_count);
}

/* A memset or same-device copy of @bytes: a kernel on as many SMs as its
 * blocks fill, bound by memory bandwidth; it reads or writes the buffer
 * @passes times. */
static void
item_set_memory_kernel (Item               *item,
                        const TsGpuProfile *p,
                        guint64             bytes,
                        double              passes)
{
  item->engine = ENGINE_COMPUTE;
  item->sms = sms_for_bytes (p, bytes);
  item->duration = p->kernel_overhead_ns
                 + ns_for (passes * (double) bytes, p->mem_bandwidth * item->sms / p->sm_count);
}

/* The profile's dense rate for the kernel's math. */
static double
flops_rate (const TsGpuProfile *profile,
            TsPrecision         precision)
{
  switch (precision)
    {
    case TS_PRECISION_FP16: return profile->fp16_flops;
    case TS_PRECISION_TF32: return profile->tf32_flops;
    case TS_PRECISION_FP64: return profile->fp64_flops;
    case TS_PRECISION_FP32:
    default:                return profile->fp32_flops;
    }
}

TsTime
ts_scheduler_kernel_duration (const TsGpuProfile *profile,
                              const TsKernelDesc *desc,
                              guint32            *sms)
{
  guint64 blocks = 1;
  double fraction;
  TsTime work;

  for (guint i = 0; i < 3; i++)
    blocks *= MAX (desc->grid[i], 1);

  *sms = (guint32) MIN (blocks, (guint64) profile->sm_count);

  if (desc->duration > 0)
    return desc->duration;

  /* A kernel on s of S SMs gets s/S of the device's bandwidth and flops.
   * Memory and arithmetic overlap, so the slower of the two sets the time. */
  fraction = (double) *sms / profile->sm_count;
  work = MAX (ns_for ((double) desc->bytes, profile->mem_bandwidth * fraction),
              ns_for ((double) desc->flops, flops_rate (profile, desc->precision) * fraction));

  return profile->kernel_overhead_ns + work;
}

static guint
lane_for_copy (const TsGpuProfile *profile,
               TsCopyKind          kind)
{
  /* One engine per direction plus one for peer traffic when the model has
   * three; with two, peer copies share the outgoing (D2H) engine; with one,
   * everything is serialized. */
  guint lane;

  switch (kind)
    {
    case TS_COPY_HOST_TO_DEVICE: lane = 0; break;
    case TS_COPY_DEVICE_TO_HOST: lane = 1; break;
    case TS_COPY_PEER:           lane = 2; break;
    case TS_COPY_DEVICE_TO_DEVICE:
    case TS_COPY_HOST_TO_HOST:
    default:
      g_assert_not_reached ();
    }

  return MIN (lane, MAX (profile->copy_engines, 1) - 1);
}

/* ---------------------------------------------------------------- records */

static void
record_item (TsScheduler *self,
             const Item  *item)
{
  const Stream *stream = &self->streams[item->stream];

  switch ((ItemKind) item->kind)
    {
    case ITEM_KERNEL:
      {
        TsKernelRecord rec = {
          .start = item->start,
          .end = item->end,
          .queued = item->ready,
          .correlation = item->correlation,
          .device = stream->device,
          .stream = item->stream,
          .name = item->u.kernel.name,
          .grid = { item->u.kernel.grid[0], item->u.kernel.grid[1], item->u.kernel.grid[2] },
          .block = { item->u.kernel.block[0], item->u.kernel.block[1], item->u.kernel.block[2] },
          .sms = item->cancelled ? 0 : item->sms,
          .flops = item->u.kernel.flops,
          .bytes = item->u.kernel.bytes,
          .error = item->error,
        };
        TS_RECORDER_APPEND (self->recorder, TS_RECORD_KERNEL, TsKernelRecord, &rec);
      }
      break;

    case ITEM_MEMSET:
      {
        TsMemsetRecord rec = {
          .start = item->start,
          .end = item->end,
          .queued = item->ready,
          .correlation = item->correlation,
          .device = stream->device,
          .stream = item->stream,
          .bytes = item->u.memset.bytes,
          .value = item->u.memset.value,
        };
        TS_RECORDER_APPEND (self->recorder, TS_RECORD_MEMSET, TsMemsetRecord, &rec);
      }
      break;

    case ITEM_COPY:
      {
        TsMemcpyRecord rec = {
          .start = item->start,
          .end = item->end,
          .queued = item->ready,
          .correlation = item->correlation,
          .device = stream->device,
          .stream = item->stream,
          .kind = item->u.copy.kind,
          .flags = item->u.copy.flags,
          .src_device = item->u.copy.src,
          .dst_device = item->u.copy.dst,
          .bytes = item->u.copy.bytes,
        };
        TS_RECORDER_APPEND (self->recorder, TS_RECORD_MEMCPY, TsMemcpyRecord, &rec);
      }
      break;

    case ITEM_RECORD:
      {
        TsEventRecordRecord rec = {
          .queued = item->ready,
          .time = item->end,
          .correlation = item->correlation,
          .event = item->u.record.event,
          .device = stream->device,
          .stream = item->stream,
        };
        TS_RECORDER_APPEND (self->recorder, TS_RECORD_EVENT_RECORD, TsEventRecordRecord, &rec);
      }
      break;

    case ITEM_WAIT:
      {
        TsEventWaitRecord rec = {
          .queued = item->ready,
          .time = item->end,
          .correlation = item->correlation,
          .event = item->u.wait.event,
          .record_correlation = item->u.wait.record_correlation,
          .device = stream->device,
          .stream = item->stream,
        };
        TS_RECORDER_APPEND (self->recorder, TS_RECORD_EVENT_WAIT, TsEventWaitRecord, &rec);
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

/* ---------------------------------------------------------------- streams */

/* Removes the finished head of a stream and retires it. */
static void
stream_pop (TsScheduler *self,
            Stream      *stream,
            guint32      idx)
{
  Item *item = ITEM (self, idx);

  g_assert (stream->head == idx);
  g_assert (item->state == STATE_DONE);

  stream->head = item->next;
  if (stream->head == TS_ITEM_NONE)
    stream->tail = TS_ITEM_NONE;

  self->devices[stream->device].pending--;

  if (item->refs == 0)
    item_free (self, idx);
}

/* Records and satisfied waits take no time on the device. */
static void
complete_instant (TsScheduler *self,
                  Item        *item,
                  TsTime       t)
{
  item->start = item->end = t;
  item->state = STATE_DONE;
  record_item (self, item);
}

static void
complete_record (TsScheduler *self,
                 guint32      idx,
                 TsTime       t)
{
  Item *item = ITEM (self, idx);
  guint32 waiter;

  complete_instant (self, item, t);

  /* Each blocked wait re-examines its stream at this same instant. */
  waiter = item->u.record.waiters;
  item->u.record.waiters = TS_ITEM_NONE;
  while (waiter != TS_ITEM_NONE)
    {
      Item *w = ITEM (self, waiter);

      heap_push (self, t, EV_KICK, w->stream);
      waiter = w->u.wait.next_waiter;
      w->u.wait.next_waiter = TS_ITEM_NONE;
    }
}

/* Lets the head of a stream begin at time t, and the items after it as long
 * as they complete at once (records, satisfied waits). */
static void
stream_begin (TsScheduler *self,
              TsStreamId   stream_id,
              TsTime       t)
{
  Stream *stream = &self->streams[stream_id];

  for (;;)
    {
      guint32 idx = stream->head;
      Item *item;

      if (idx == TS_ITEM_NONE)
        return;

      item = ITEM (self, idx);

      if (item->state == STATE_READY || item->state == STATE_RUNNING)
        return;

      if (item->ready > t)
        {
          /* Not yet visible to the device: come back then. A KICK may
           * already be pending for that time; a second one is harmless. */
          if (item->state == STATE_PENDING)
            heap_push (self, item->ready, EV_KICK, stream_id);
          return;
        }

      switch ((ItemKind) item->kind)
        {
        case ITEM_RECORD:
          complete_record (self, idx, t);
          stream_pop (self, stream, idx);
          continue;

        case ITEM_WAIT:
          {
            Item *target = ITEM (self, item->u.wait.target);

            if (target->state != STATE_DONE)
              {
                if (item->state != STATE_WAITING)
                  {
                    item->state = STATE_WAITING;
                    item->u.wait.next_waiter = target->u.record.waiters;
                    target->u.record.waiters = idx;
                  }
                return;
              }

            complete_instant (self, item, t);
            ts_scheduler_item_unref (self, item->u.wait.target);
            stream_pop (self, stream, idx);
          }
          continue;

        case ITEM_KERNEL:
        case ITEM_MEMSET:
        case ITEM_COPY:
          {
            Device *dev = &self->devices[stream->device];
            ReadyEntry entry = {
              .priority = stream->priority,
              .stream = stream_id,
              .ready = t,
              .seq = self->item_seq++,
              .item = idx,
            };

            item->state = STATE_READY;
            if (item->engine == ENGINE_COMPUTE)
              {
                ready_push (&dev->compute, &entry);
              }
            else
              {
                /* Copy engines take no priority: first come, first served. */
                entry.priority = 0;
                entry.stream = 0;
                ready_push (&dev->lanes[item->engine - ENGINE_LANE0], &entry);
              }
            self->dirty |= 1u << stream->device;
          }
          return;

        default:
          g_assert_not_reached ();
        }
    }
}

/* ---------------------------------------------------------------- engines */

/* An item reads its inputs when it starts and its results land when it
 * ends; its work stages the results in between (on_start, on_finish),
 * because another item may start or end meanwhile and must not see them
 * or change what it read. Most of the time nothing does: on a single
 * stream each kernel ends before the next starts. So the last item that
 * started with an on_run is held, and runs at once (results straight into
 * place) at its end if nothing else started or ended first; anything that
 * does releases it through its on_start first, as if never held. */
static void
hold_release (TsScheduler *self)
{
  Item *item;

  if (!self->has_held)
    return;
  self->has_held = FALSE;
  item = ITEM (self, self->held);
  item->error = item->work.on_start (item->work.data);
}

static void
item_start (TsScheduler *self,
            Device      *dev,
            guint32      idx,
            TsTime       t)
{
  Item *item = ITEM (self, idx);

  item->start = t;
  item->state = STATE_RUNNING;

  if (dev->fault.code != TS_DEVICE_ERROR_NONE)
    {
      /* A faulted context runs nothing more: the item ends at once, its
       * callbacks never run and its record carries the device's error. */
      item->cancelled = TRUE;
      item->error = dev->fault.code;
      item->end = t;
      heap_push (self, t, EV_DONE, idx);
      return;
    }

  if (item->engine == ENGINE_COMPUTE)
    {
      g_assert (dev->free_sms >= item->sms);
      dev->free_sms -= item->sms;
    }
  else
    {
      dev->lane_busy[item->engine - ENGINE_LANE0] = TRUE;
    }

  item->end = t + item->duration;

  hold_release (self);
  /* The callback may not touch the scheduler, so item stays valid. */
  if (item->work.on_start != NULL && item->work.on_run != NULL)
    {
      self->held = idx;
      self->has_held = TRUE;
    }
  else if (item->work.on_start != NULL)
    item->error = item->work.on_start (item->work.data);

  heap_push (self, item->end, EV_DONE, idx);
}

static void
device_dispatch (TsScheduler *self,
                 Device      *dev,
                 TsTime       t)
{
  while (dev->compute.len > 0)
    {
      guint32 idx = dev->compute.entries[0].item;

      if (dev->fault.code == TS_DEVICE_ERROR_NONE && ITEM (self, idx)->sms > dev->free_sms)
        break;
      ready_pop (&dev->compute);
      item_start (self, dev, idx, t);
    }

  for (guint lane = 0; lane < N_LANES; lane++)
    {
      while (!dev->lane_busy[lane] && dev->lanes[lane].len > 0)
        item_start (self, dev, ready_pop (&dev->lanes[lane]), t);
    }
}

static void
item_done (TsScheduler *self,
           guint32      idx,
           TsTime       t)
{
  Item *item = ITEM (self, idx);
  Stream *stream = &self->streams[item->stream];
  Device *dev = &self->devices[stream->device];
  TsStreamId stream_id = item->stream;

  g_assert (item->state == STATE_RUNNING);
  g_assert (item->end == t);

  item->state = STATE_DONE;

  if (self->has_held && self->held == idx)
    {
      /* nothing started or ended since it began: start and finish in one */
      self->has_held = FALSE;
      item->error = item->work.on_run (item->work.data);
      item->work.on_finish = NULL;
    }
  else
    hold_release (self);

  if (!item->cancelled)
    {
      if (item->engine == ENGINE_COMPUTE)
        dev->free_sms += item->sms;
      else
        dev->lane_busy[item->engine - ENGINE_LANE0] = FALSE;

      /* A faulting kernel writes nothing; the device learns of the fault
       * when the kernel ends, and it sticks. */
      if (item->error != TS_DEVICE_ERROR_NONE)
        {
          if (dev->fault.code == TS_DEVICE_ERROR_NONE)
            dev->fault = (TsFault) {
              .code = item->error,
              .time = t,
              .correlation = item->correlation,
              .stream = item->stream,
              .loc = item->loc,
            };
        }
      else if (item->work.on_finish != NULL)
        {
          item->work.on_finish (item->work.data);
        }
    }

  record_item (self, item);
  item_destroy_work (item);
  stream_pop (self, stream, idx);

  self->dirty |= 1u << stream->device;
  stream_begin (self, stream_id, t);
}

/* ---------------------------------------------------------------- loop */

static void
process_instant (TsScheduler *self)
{
  TsTime t = self->heap[0].time;

  g_assert (t >= self->now);
  self->now = t;

  /* Everything that happens at t first, then hand out the engines, so a
   * kernel freed at t and one made ready at t compete on equal terms. */
  while (self->heap_len > 0 && self->heap[0].time == t)
    {
      Event ev = heap_pop (self);

      if (ev.kind == EV_KICK)
        stream_begin (self, ev.arg, t);
      else
        item_done (self, ev.arg, t);
    }

  while (self->dirty != 0)
    {
      guint device = (guint) g_bit_nth_lsf (self->dirty, -1);

      self->dirty &= ~(1u << device);
      device_dispatch (self, &self->devices[device], t);
    }
}

void
ts_scheduler_advance_to (TsScheduler *self,
                         TsTime       t)
{
  while (self->heap_len > 0 && self->heap[0].time <= t)
    process_instant (self);

  self->now = MAX (self->now, t);
}

typedef gboolean (*Condition) (TsScheduler *self,
                               guint32      arg);

static TsTime
run_until (TsScheduler *self,
           Condition    cond,
           guint32      arg)
{
  while (!cond (self, arg))
    {
      if (self->heap_len == 0)
        {
          /* Cannot happen: every dependency points at earlier work. */
          g_critical ("Scheduler deadlock: nothing left to run");
          break;
        }
      process_instant (self);
    }

  return self->now;
}

static gboolean
cond_item_done (TsScheduler *self,
                guint32      item)
{
  return ITEM (self, item)->state == STATE_DONE;
}

static gboolean
cond_stream_idle (TsScheduler *self,
                  guint32      stream)
{
  return self->streams[stream].head == TS_ITEM_NONE;
}

static gboolean
cond_device_idle (TsScheduler *self,
                  guint32      device)
{
  return self->devices[device].pending == 0;
}

TsTime
ts_scheduler_run_until_item_done (TsScheduler *self,
                                  guint32      item)
{
  g_assert (item < self->n_items);
  g_assert (ITEM (self, item)->refs > 0);

  return run_until (self, cond_item_done, item);
}

TsTime
ts_scheduler_run_until_stream_idle (TsScheduler *self,
                                    TsStreamId   stream)
{
  g_assert (stream < self->n_streams);

  return run_until (self, cond_stream_idle, stream);
}

TsTime
ts_scheduler_run_until_device_idle (TsScheduler *self,
                                    guint        device)
{
  g_assert (device < self->n_devices);

  return run_until (self, cond_device_idle, device);
}

/* ---------------------------------------------------------------- submit */

static guint32
submit (TsScheduler    *self,
        const TsSubmit *sub,
        ItemKind        kind,
        const TsWork   *work)
{
  guint32 idx = item_alloc (self);
  Item *item = ITEM (self, idx);
  Stream *stream;

  g_assert (sub->stream < self->n_streams);

  item->kind = kind;
  item->state = STATE_PENDING;
  item->stream = sub->stream;
  item->ready = sub->ready;
  item->correlation = sub->correlation;
  item->loc = sub->loc;
  if (work != NULL)
    item->work = *work;

  stream = &self->streams[sub->stream];
  self->devices[stream->device].pending++;

  if (stream->tail == TS_ITEM_NONE)
    {
      stream->head = stream->tail = idx;
      /* The stream was idle: it may begin when the device sees the item. */
      heap_push (self, MAX (sub->ready, self->now), EV_KICK, sub->stream);
    }
  else
    {
      ITEM (self, stream->tail)->next = idx;
      stream->tail = idx;
    }

  return idx;
}

guint32
ts_scheduler_submit_kernel (TsScheduler        *self,
                            const TsSubmit     *sub,
                            const TsKernelDesc *desc,
                            TsStringId          name)
{
  guint32 idx = submit (self, sub, ITEM_KERNEL, &desc->work);
  Item *item = ITEM (self, idx);

  item->engine = ENGINE_COMPUTE;
  item->duration = ts_scheduler_kernel_duration (self->profile, desc, &item->sms);
  item->u.kernel.name = name;
  for (guint i = 0; i < 3; i++)
    {
      item->u.kernel.grid[i] = MAX (desc->grid[i], 1);
      item->u.kernel.block[i] = MAX (desc->block[i], 1);
    }
  item->u.kernel.flops = desc->flops;
  item->u.kernel.bytes = desc->bytes;

  return idx;
}

guint32
ts_scheduler_submit_memset (TsScheduler        *self,
                            const TsSubmit     *sub,
                            const TsMemsetDesc *desc)
{
  guint32 idx = submit (self, sub, ITEM_MEMSET, &desc->work);
  Item *item = ITEM (self, idx);

  item_set_memory_kernel (item, self->profile, desc->bytes, 1.0);
  item->u.memset.bytes = desc->bytes;
  item->u.memset.value = desc->value;

  return idx;
}

guint32
ts_scheduler_submit_copy (TsScheduler      *self,
                          const TsSubmit   *sub,
                          const TsCopyDesc *desc)
{
  guint32 idx = submit (self, sub, ITEM_COPY, &desc->work);
  Item *item = ITEM (self, idx);
  const TsGpuProfile *p = self->profile;

  switch (desc->kind)
    {
    case TS_COPY_DEVICE_TO_DEVICE:
      /* A same-device copy is a kernel that reads and writes every byte. */
      item_set_memory_kernel (item, p, desc->bytes, 2.0);
      break;

    case TS_COPY_HOST_TO_DEVICE:
    case TS_COPY_DEVICE_TO_HOST:
      item->engine = ENGINE_LANE0 + lane_for_copy (p, desc->kind);
      item->duration = p->copy_overhead_ns
                     + ns_for ((double) desc->bytes,
                               desc->pinned ? p->pcie_pinned_bandwidth : p->pcie_pageable_bandwidth);
      break;

    case TS_COPY_PEER:
      item->engine = ENGINE_LANE0 + lane_for_copy (p, desc->kind);
      item->duration = p->copy_overhead_ns + ns_for ((double) desc->bytes, p->peer_bandwidth);
      break;

    case TS_COPY_HOST_TO_HOST:
    default:
      g_assert_not_reached ();
    }

  item->u.copy.bytes = desc->bytes;
  item->u.copy.kind = desc->kind;
  item->u.copy.flags = (desc->pinned ? TS_COPY_FLAG_PINNED : 0)
                     | (desc->non_blocking ? TS_COPY_FLAG_ASYNC : 0);
  item->u.copy.src = desc->src_device;
  item->u.copy.dst = desc->dst_device;

  return idx;
}

guint32
ts_scheduler_submit_record (TsScheduler    *self,
                            const TsSubmit *sub,
                            guint64         event)
{
  guint32 idx = submit (self, sub, ITEM_RECORD, NULL);
  Item *item = ITEM (self, idx);

  item->u.record.event = event;
  item->u.record.waiters = TS_ITEM_NONE;
  item->refs = 1;

  return idx;
}

void
ts_scheduler_submit_wait (TsScheduler    *self,
                          const TsSubmit *sub,
                          guint64         event,
                          guint32         record_item)
{
  guint32 idx;
  Item *item;

  g_assert (record_item < self->n_items);
  g_assert (ITEM (self, record_item)->kind == ITEM_RECORD);

  /* Take the reference before submit() can move the pool. */
  ts_scheduler_item_ref (self, record_item);

  idx = submit (self, sub, ITEM_WAIT, NULL);
  item = ITEM (self, idx);
  item->u.wait.event = event;
  item->u.wait.target = record_item;
  item->u.wait.next_waiter = TS_ITEM_NONE;
  item->u.wait.record_correlation = ITEM (self, record_item)->correlation;
}

/* ---------------------------------------------------------------- setup */

TsScheduler *
ts_scheduler_new (TsRecorder         *recorder,
                  const TsGpuProfile *profile,
                  guint               n_devices)
{
  TsScheduler *self;

  g_assert (TS_IS_RECORDER (recorder));
  g_assert (profile != NULL);
  g_assert (n_devices <= 32);

  self = g_new0 (TsScheduler, 1);
  self->recorder = g_object_ref (recorder);
  self->profile = profile;
  self->free_items = TS_ITEM_NONE;
  self->n_devices = n_devices;
  self->devices = g_new0 (Device, MAX (n_devices, 1));

  for (guint i = 0; i < n_devices; i++)
    self->devices[i].free_sms = profile->sm_count;

  return self;
}

void
ts_scheduler_free (TsScheduler *self)
{
  if (self == NULL)
    return;

  /* Work still queued at teardown never runs; free its data. */
  for (guint32 i = 0; i < self->n_items; i++)
    {
      Item *item = ITEM (self, i);

      if (item->state != STATE_FREE && item->state != STATE_DONE)
        item_destroy_work (item);
    }

  for (guint i = 0; i < self->n_devices; i++)
    {
      g_free (self->devices[i].compute.entries);
      for (guint lane = 0; lane < N_LANES; lane++)
        g_free (self->devices[i].lanes[lane].entries);
    }

  g_free (self->devices);
  g_free (self->streams);
  g_free (self->heap);
  g_free (self->items);
  g_object_unref (self->recorder);
  g_free (self);
}

TsTime
ts_scheduler_get_now (TsScheduler *self)
{
  return self->now;
}

TsStreamId
ts_scheduler_add_stream (TsScheduler *self,
                         guint        device,
                         int          priority)
{
  TsStreamId id;
  Stream *stream;

  g_assert (device < self->n_devices);

  if (self->n_streams == self->streams_cap)
    {
      self->streams_cap = MAX (16, self->streams_cap * 2);
      self->streams = g_renew (Stream, self->streams, self->streams_cap);
    }

  id = self->n_streams++;
  stream = &self->streams[id];
  stream->device = device;
  stream->priority = priority;
  stream->head = stream->tail = TS_ITEM_NONE;

  return id;
}

gboolean
ts_scheduler_stream_is_idle (TsScheduler *self,
                             TsStreamId   stream)
{
  g_assert (stream < self->n_streams);
  return self->streams[stream].head == TS_ITEM_NONE;
}

gboolean
ts_scheduler_device_is_idle (TsScheduler *self,
                             guint        device)
{
  g_assert (device < self->n_devices);
  return self->devices[device].pending == 0;
}

const TsFault *
ts_scheduler_get_fault (TsScheduler *self,
                        guint        device)
{
  g_assert (device < self->n_devices);

  if (self->devices[device].fault.code == TS_DEVICE_ERROR_NONE)
    return NULL;
  return &self->devices[device].fault;
}

/* ---------------------------------------------------------------- device side */

/* The runtime's device side in virtual time: the host clock moves only by
 * what the runtime charges, queries first run the simulation up to the
 * caller's clock, and blocking calls run it until their condition holds. */

static TsTime
side_host_time (gpointer impl,
                TsTime   clock)
{
  return clock;
}

static TsTime
side_host_advance (gpointer impl,
                   TsTime   clock,
                   TsTime   ns)
{
  return clock + ns;
}

static void
side_catch_up (gpointer impl,
               TsTime   host)
{
  ts_scheduler_advance_to (impl, host);
}

static gboolean
side_add_stream (gpointer     impl,
                 TsStreamId   stream,
                 guint        device,
                 int          priority,
                 gboolean     is_default,
                 guint64     *handle,
                 GError     **error)
{
  TsStreamId id = ts_scheduler_add_stream (impl, device, priority);

  g_assert (id == stream);
  return TRUE;
}

static int
side_launch (gpointer            impl,
             const TsSubmit     *sub,
             const TsKernelDesc *desc,
             TsStringId          name,
             guint32            *item)
{
  *item = ts_scheduler_submit_kernel (impl, sub, desc, name);
  return 0;
}

static int
side_copy (gpointer          impl,
           const TsSubmit   *sub,
           const TsCopyDesc *desc,
           guint32          *item)
{
  *item = ts_scheduler_submit_copy (impl, sub, desc);
  return 0;
}

static int
side_fill (gpointer            impl,
           const TsSubmit     *sub,
           const TsMemsetDesc *desc,
           guint32            *item)
{
  *item = ts_scheduler_submit_memset (impl, sub, desc);
  return 0;
}

static int
side_wait_item (gpointer    impl,
                TsStreamId  stream,
                guint32     item,
                TsTime     *until)
{
  ts_scheduler_item_ref (impl, item);
  *until = ts_scheduler_run_until_item_done (impl, item);
  ts_scheduler_item_unref (impl, item);
  return 0;
}

static int
side_stream_query (gpointer   impl,
                   TsStreamId stream,
                   TsTime     host)
{
  ts_scheduler_advance_to (impl, host);
  return ts_scheduler_stream_is_idle (impl, stream) ? 0 : TS_CUDA_ERROR_NOT_READY;
}

static int
side_stream_sync (gpointer    impl,
                  TsStreamId  stream,
                  TsTime     *until)
{
  *until = ts_scheduler_run_until_stream_idle (impl, stream);
  return 0;
}

static int
side_device_sync (gpointer  impl,
                  guint     device,
                  TsTime   *until)
{
  *until = ts_scheduler_run_until_device_idle (impl, device);
  return 0;
}

static int
side_event_record (gpointer        impl,
                   const TsSubmit *sub,
                   TsDeviceEvent  *event,
                   TsEventFlags    flags)
{
  guint32 item = ts_scheduler_submit_record (impl, sub, event->id);

  if (event->record != TS_ITEM_NONE)
    ts_scheduler_item_unref (impl, event->record);
  event->record = item;
  return 0;
}

static int
side_event_query (gpointer             impl,
                  const TsDeviceEvent *event,
                  TsTime               host)
{
  ts_scheduler_advance_to (impl, host);
  return ts_scheduler_item_is_done (impl, event->record, NULL) ? 0 : TS_CUDA_ERROR_NOT_READY;
}

static int
side_event_sync (gpointer             impl,
                 const TsDeviceEvent *event,
                 TsTime              *until)
{
  *until = ts_scheduler_run_until_item_done (impl, event->record);
  return 0;
}

static int
side_stream_wait_event (gpointer             impl,
                        const TsSubmit      *sub,
                        const TsDeviceEvent *event)
{
  ts_scheduler_submit_wait (impl, sub, event->id, event->record);
  return 0;
}

/* The records' completion times; cudaEventElapsedTime returns a float. */
static int
side_event_elapsed (gpointer             impl,
                    const TsDeviceEvent *start,
                    const TsDeviceEvent *end,
                    TsTime               host,
                    float               *ms)
{
  TsTime t_start, t_end;

  ts_scheduler_advance_to (impl, host);
  if (!ts_scheduler_item_is_done (impl, start->record, &t_start) ||
      !ts_scheduler_item_is_done (impl, end->record, &t_end))
    return TS_CUDA_ERROR_NOT_READY;
  if (start->device != end->device)
    return TS_DEVICE_SIDE_OTHER_DEVICES;
  *ms = (float) ((double) (t_end - t_start) / 1e6);
  return 0;
}

/* Waits already submitted hold their own reference to the record. */
static void
side_event_release (gpointer             impl,
                    const TsDeviceEvent *event)
{
  if (event->record != TS_ITEM_NONE)
    ts_scheduler_item_unref (impl, event->record);
}

static const TsFault *
side_get_fault (gpointer impl,
                guint    device)
{
  return ts_scheduler_get_fault (impl, device);
}

/* Simulated faults come from kernels (get_fault), never as a result. */
static gboolean
side_take_error (gpointer impl,
                 guint    device,
                 int      err,
                 guint64  correlation)
{
  return FALSE;
}

static const char *
side_error_string (gpointer impl,
                   int      err)
{
  return ts_device_error_to_string ((TsDeviceError) err);
}

/* Every record is written as the devices run. */
static void
side_finish (gpointer impl)
{
}

static void
side_free (gpointer impl)
{
  ts_scheduler_free (impl);
}

static const TsDeviceSideOps scheduler_ops = {
  .host_time = side_host_time,
  .host_charge = side_host_advance,
  .host_spend = side_host_advance,
  .catch_up = side_catch_up,
  .add_stream = side_add_stream,
  .launch = side_launch,
  .copy = side_copy,
  .fill = side_fill,
  .wait_item = side_wait_item,
  .stream_query = side_stream_query,
  .stream_sync = side_stream_sync,
  .device_sync = side_device_sync,
  .event_record = side_event_record,
  .event_query = side_event_query,
  .event_sync = side_event_sync,
  .stream_wait_event = side_stream_wait_event,
  .event_elapsed = side_event_elapsed,
  .event_release = side_event_release,
  .get_fault = side_get_fault,
  .take_error = side_take_error,
  .error_string = side_error_string,
  .finish = side_finish,
  .free = side_free,
};

TsDeviceSide
ts_scheduler_get_side (TsScheduler *self)
{
  return (TsDeviceSide) { &scheduler_ops, self };
}
