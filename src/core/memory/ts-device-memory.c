/* ts-device-memory.c: simulated device address spaces with lazy host backing
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <sys/mman.h>

#include "ts-device-memory.h"
#include "ts-host-data.h"

typedef struct
{
  guint64  addr;
  guint64  size;      /* as asked */
  guint64  span;      /* size rounded up to the granularity */
  gpointer backing;   /* NULL until first translated */
  /* A virtual reservation (cuMemAddressReserve) takes address space only;
   * its pages count as used while mapped. One bit per granule. */
  guint8  *mapped;    /* NULL for a cudaMalloc segment */
  guint64  n_mapped;  /* bytes */
  guint64  charged;   /* bytes of the host-data budget (ts-host-data.h) */
} Segment;

typedef struct
{
  guint64  capacity;
  guint64  context_reserve;
  guint64  used;      /* sum of spans */
  GArray  *segments;  /* Segment, sorted by addr */
} Device;

struct _TsDeviceMemory
{
  GObject  parent_instance;
  GMutex   lock;
  GArray  *devices;   /* Device */
  guint64  mapped_bytes;
};

G_DEFINE_FINAL_TYPE (TsDeviceMemory, ts_device_memory, G_TYPE_OBJECT)

static void unback (TsDeviceMemory *self,
                    Segment        *seg);

G_DEFINE_QUARK (ts-device-memory-error-quark, ts_device_memory_error)

static void
ts_device_memory_finalize (GObject *object)
{
  TsDeviceMemory *self = TS_DEVICE_MEMORY (object);
  guint d, k;

  for (d = 0; d < self->devices->len; d++)
    {
      Device *dev = &g_array_index (self->devices, Device, d);

      for (k = 0; k < dev->segments->len; k++)
        {
          Segment *seg = &g_array_index (dev->segments, Segment, k);

          unback (self, seg);
          g_free (seg->mapped);
        }
      g_array_unref (dev->segments);
    }
  g_array_unref (self->devices);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (ts_device_memory_parent_class)->finalize (object);
}

static void
ts_device_memory_class_init (TsDeviceMemoryClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ts_device_memory_finalize;
}

static void
ts_device_memory_init (TsDeviceMemory *self)
{
  g_mutex_init (&self->lock);
  self->devices = g_array_new (FALSE, TRUE, sizeof (Device));
}

TsDeviceMemory *
ts_device_memory_new (void)
{
  return g_object_new (TS_TYPE_DEVICE_MEMORY, NULL);
}

guint64
ts_device_memory_get_base (guint device)
{
  return TS_DEVICE_MEMORY_BASE + ((guint64) device << TS_DEVICE_MEMORY_SPAN_SHIFT);
}

guint
ts_device_memory_add_device (TsDeviceMemory *self,
                             guint64         capacity,
                             guint64         context_reserve,
                             GError        **error)
{
  Device dev = { 0 };
  guint index;

  g_return_val_if_fail (TS_IS_DEVICE_MEMORY (self), G_MAXUINT);

  if (capacity == 0 || capacity > TS_DEVICE_MEMORY_SPAN || context_reserve >= capacity)
    {
      g_set_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_INVALID_VALUE,
                   "Invalid device capacity %" G_GUINT64_FORMAT " (context reserve %" G_GUINT64_FORMAT
                   "): it must be positive, at most 1 TiB and above the reserve",
                   capacity, context_reserve);
      return G_MAXUINT;
    }

  g_mutex_lock (&self->lock);
  if (self->devices->len >= TS_DEVICE_MEMORY_MAX_DEVICES)
    {
      g_mutex_unlock (&self->lock);
      g_set_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_INVALID_DEVICE,
                   "At most %d simulated devices", TS_DEVICE_MEMORY_MAX_DEVICES);
      return G_MAXUINT;
    }
  dev.capacity = capacity;
  dev.context_reserve = context_reserve;
  dev.segments = g_array_new (FALSE, FALSE, sizeof (Segment));
  index = self->devices->len;
  g_array_append_val (self->devices, dev);
  g_mutex_unlock (&self->lock);

  return index;
}

guint
ts_device_memory_get_n_devices (TsDeviceMemory *self)
{
  guint n;

  g_return_val_if_fail (TS_IS_DEVICE_MEMORY (self), 0);

  g_mutex_lock (&self->lock);
  n = self->devices->len;
  g_mutex_unlock (&self->lock);
  return n;
}

static Device *
get_device (TsDeviceMemory *self,
            guint           device,
            GError        **error)
{
  if (device >= self->devices->len)
    {
      g_set_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_INVALID_DEVICE,
                   "Invalid device %u (%u devices)", device, self->devices->len);
      return NULL;
    }
  return &g_array_index (self->devices, Device, device);
}

/* Index of the last segment whose addr <= addr, or -1. */
static gssize
find_at_or_before (GArray  *segments,
                   guint64  addr)
{
  gssize lo = 0, hi = (gssize) segments->len - 1, found = -1;

  while (lo <= hi)
    {
      gssize mid = lo + (hi - lo) / 2;

      if (g_array_index (segments, Segment, mid).addr <= addr)
        {
          found = mid;
          lo = mid + 1;
        }
      else
        hi = mid - 1;
    }
  return found;
}

static guint64
round_granule (guint64 size)
{
  return (size + TS_DEVICE_MEMORY_GRANULARITY - 1) & ~(TS_DEVICE_MEMORY_GRANULARITY - 1);
}

/* First fit of seg->span bytes of address space over the device's span,
 * which is much larger than its capacity, so a gap is found whenever the
 * bytes are free (virtual reservations aside). Inserts seg. */
static gboolean
place_segment (Device  *dev,
               guint    device,
               Segment *seg)
{
  guint64 cursor = ts_device_memory_get_base (device);
  guint64 limit = cursor + TS_DEVICE_MEMORY_SPAN;
  guint k;

  for (k = 0; k < dev->segments->len; k++)
    {
      const Segment *s = &g_array_index (dev->segments, Segment, k);

      if (s->addr - cursor >= seg->span)
        break;
      cursor = s->addr + s->span;
    }
  if (limit - cursor < seg->span)
    return FALSE;
  seg->addr = cursor;
  g_array_insert_val (dev->segments, k, *seg);
  return TRUE;
}

gboolean
ts_device_memory_segment_malloc (TsDeviceMemory *self,
                                 guint           device,
                                 guint64         size,
                                 guint64        *addr,
                                 GError        **error)
{
  Segment seg = { 0 };
  Device *dev;

  g_return_val_if_fail (TS_IS_DEVICE_MEMORY (self), FALSE);
  g_return_val_if_fail (addr != NULL, FALSE);

  *addr = 0;
  g_mutex_lock (&self->lock);

  if (!(dev = get_device (self, device, error)))
    goto failed;
  if (size == 0)
    goto done;

  if (size > dev->capacity)
    goto oom;
  seg.size = size;
  seg.span = round_granule (size);
  if (seg.span > dev->capacity - dev->context_reserve - dev->used)
    goto oom;

  if (!place_segment (dev, device, &seg))
    goto oom;
  dev->used += seg.span;
  *addr = seg.addr;

done:
  g_mutex_unlock (&self->lock);
  return TRUE;

oom:
  g_set_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_OUT_OF_MEMORY,
               "out of memory");
failed:
  g_mutex_unlock (&self->lock);
  return FALSE;
}

static Device *
device_of_address (TsDeviceMemory *self,
                   guint64         addr,
                   guint          *index)
{
  guint64 d;

  if (addr < TS_DEVICE_MEMORY_BASE)
    return NULL;
  d = (addr - TS_DEVICE_MEMORY_BASE) >> TS_DEVICE_MEMORY_SPAN_SHIFT;
  if (d >= self->devices->len)
    return NULL;
  if (index)
    *index = (guint) d;
  return &g_array_index (self->devices, Device, d);
}

gboolean
ts_device_memory_segment_free (TsDeviceMemory *self,
                               guint64         addr,
                               GError        **error)
{
  Device *dev;
  Segment *seg;
  gssize k;

  g_return_val_if_fail (TS_IS_DEVICE_MEMORY (self), FALSE);

  if (addr == 0)
    return TRUE;

  g_mutex_lock (&self->lock);
  dev = device_of_address (self, addr, NULL);
  k = dev ? find_at_or_before (dev->segments, addr) : -1;
  if (k < 0 || g_array_index (dev->segments, Segment, k).addr != addr ||
      g_array_index (dev->segments, Segment, k).mapped != NULL)
    {
      g_mutex_unlock (&self->lock);
      g_set_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_INVALID_VALUE,
                   "invalid argument: 0x%" G_GINT64_MODIFIER "x is not the address of a live allocation",
                   addr);
      return FALSE;
    }

  seg = &g_array_index (dev->segments, Segment, k);
  unback (self, seg);
  dev->used -= seg->span;
  g_array_remove_index (dev->segments, k);
  g_mutex_unlock (&self->lock);

  return TRUE;
}

gboolean
ts_device_memory_get_info (TsDeviceMemory *self,
                           guint           device,
                           guint64        *free_bytes,
                           guint64        *total_bytes,
                           GError        **error)
{
  Device *dev;

  g_return_val_if_fail (TS_IS_DEVICE_MEMORY (self), FALSE);

  g_mutex_lock (&self->lock);
  if (!(dev = get_device (self, device, error)))
    {
      g_mutex_unlock (&self->lock);
      return FALSE;
    }
  if (free_bytes)
    *free_bytes = dev->capacity - dev->context_reserve - dev->used;
  if (total_bytes)
    *total_bytes = dev->capacity;
  g_mutex_unlock (&self->lock);

  return TRUE;
}

static inline gboolean
granule_mapped (const Segment *seg,
                guint64        g)
{
  return (seg->mapped[g / 8] >> (g % 8)) & 1;
}

static Segment *
segment_of_address (TsDeviceMemory *self,
                    guint64         addr,
                    guint          *device)
{
  Device *dev = device_of_address (self, addr, device);
  Segment *seg;
  gssize k;

  if (dev == NULL || (k = find_at_or_before (dev->segments, addr)) < 0)
    return NULL;
  seg = &g_array_index (dev->segments, Segment, k);
  if (addr - seg->addr >= seg->size)
    return NULL;
  if (seg->mapped != NULL && !granule_mapped (seg, (addr - seg->addr) / TS_DEVICE_MEMORY_GRANULARITY))
    return NULL;
  return seg;
}

/* Every granule of [addr, addr + size) is mapped (cudaMalloc segments are
 * mapped whole). */
static gboolean
range_mapped (const Segment *seg,
              guint64        addr,
              guint64        size)
{
  guint64 g, end;

  if (seg->mapped == NULL || size == 0)
    return TRUE;
  end = (addr - seg->addr + size - 1) / TS_DEVICE_MEMORY_GRANULARITY;
  for (g = (addr - seg->addr) / TS_DEVICE_MEMORY_GRANULARITY; g <= end; g++)
    if (!granule_mapped (seg, g))
      return FALSE;
  return TRUE;
}

gboolean
ts_device_memory_lookup (TsDeviceMemory *self,
                         guint64         addr,
                         guint          *device,
                         guint64        *segment_base,
                         guint64        *segment_size)
{
  Segment *seg;
  guint d = 0;

  g_return_val_if_fail (TS_IS_DEVICE_MEMORY (self), FALSE);

  g_mutex_lock (&self->lock);
  seg = segment_of_address (self, addr, &d);
  if (seg != NULL)
    {
      if (device)
        *device = d;
      if (segment_base)
        *segment_base = seg->addr;
      if (segment_size)
        *segment_size = seg->size;
    }
  g_mutex_unlock (&self->lock);

  return seg != NULL;
}

/* The host pages behind a segment go, and their share of the budget. */
static void
unback (TsDeviceMemory *self,
        Segment        *seg)
{
  if (seg->backing != NULL)
    {
      munmap (seg->backing, seg->span);
      self->mapped_bytes -= seg->span;
    }
  ts_host_data_release (seg->charged);
  seg->charged = 0;
}

/* The host-data budget holds what a used segment's data needs: all of a
 * cudaMalloc segment, the mapped pages of a reservation. Settled when the
 * segment is used (translated), so that running out is an error for the
 * allocation that needed the bytes; pages unmapped give theirs back. */
static gboolean
settle_charge (Segment  *seg,
               GError  **error)
{
  guint64 need = seg->mapped != NULL ? seg->n_mapped : seg->span;

  if (need > seg->charged && !ts_host_data_charge (need - seg->charged, error))
    return FALSE;
  if (need < seg->charged)
    ts_host_data_release (seg->charged - need);
  seg->charged = need;
  return TRUE;
}

static gboolean
back (TsDeviceMemory *self,
      Segment        *seg,
      GError        **error)
{
  gpointer p = mmap (NULL, seg->span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);

  if (p == MAP_FAILED)
    {
      g_set_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_HOST,
                   "CUDA error: out of memory (Tensorscope could not reserve %" G_GUINT64_FORMAT
                   " bytes of host memory to back the simulated device's segment)",
                   seg->span);
      return FALSE;
    }
  seg->backing = p;
  self->mapped_bytes += seg->span;
  return TRUE;
}

static gboolean
inside_one (Segment *seg,
            guint64  addr,
            guint64  size)
{
  return seg != NULL && size <= seg->size - (addr - seg->addr) && range_mapped (seg, addr, size);
}

gboolean
ts_device_memory_contains (TsDeviceMemory *self,
                           guint64         addr,
                           guint64         size)
{
  gboolean ok;

  g_return_val_if_fail (TS_IS_DEVICE_MEMORY (self), FALSE);

  g_mutex_lock (&self->lock);
  ok = inside_one (segment_of_address (self, addr, NULL), addr, size);
  g_mutex_unlock (&self->lock);
  return ok;
}

gpointer
ts_device_memory_translate (TsDeviceMemory *self,
                            guint64         addr,
                            guint64         size,
                            GError        **error)
{
  Segment *seg;
  gpointer host;

  g_return_val_if_fail (TS_IS_DEVICE_MEMORY (self), NULL);

  g_mutex_lock (&self->lock);
  seg = segment_of_address (self, addr, NULL);
  if (!inside_one (seg, addr, size))
    {
      g_mutex_unlock (&self->lock);
      g_set_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_ILLEGAL_ADDRESS,
                   "an illegal memory access was encountered: [0x%" G_GINT64_MODIFIER "x, +%"
                   G_GUINT64_FORMAT ") is not inside one allocation", addr, size);
      return NULL;
    }

  if (!settle_charge (seg, error) || (seg->backing == NULL && !back (self, seg, error)))
    {
      g_mutex_unlock (&self->lock);
      return NULL;
    }

  host = (guint8 *) seg->backing + (addr - seg->addr);
  g_mutex_unlock (&self->lock);

  return host;
}

guint64
ts_device_memory_get_mapped_bytes (TsDeviceMemory *self)
{
  guint64 v;

  g_return_val_if_fail (TS_IS_DEVICE_MEMORY (self), 0);

  g_mutex_lock (&self->lock);
  v = self->mapped_bytes;
  g_mutex_unlock (&self->lock);
  return v;
}

/* ------------------------------------------------------------------ */
/* Virtual memory: cuMemAddressReserve, cuMemCreate + cuMemMap, ...    */

gboolean
ts_device_memory_reserve (TsDeviceMemory *self,
                          guint           device,
                          guint64         size,
                          guint64        *addr,
                          GError        **error)
{
  Segment seg = { 0 };
  Device *dev;
  gboolean ok;

  g_return_val_if_fail (TS_IS_DEVICE_MEMORY (self), FALSE);
  g_return_val_if_fail (addr != NULL && size > 0, FALSE);

  *addr = 0;
  g_mutex_lock (&self->lock);
  if (!(dev = get_device (self, device, error)))
    {
      g_mutex_unlock (&self->lock);
      return FALSE;
    }
  seg.size = seg.span = round_granule (size);
  seg.mapped = g_new0 (guint8, (seg.span / TS_DEVICE_MEMORY_GRANULARITY + 7) / 8);
  ok = seg.span <= TS_DEVICE_MEMORY_SPAN && place_segment (dev, device, &seg);
  if (ok)
    *addr = seg.addr;
  else
    {
      g_free (seg.mapped);
      g_set_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_OUT_OF_MEMORY,
                   "out of memory: no %" G_GUINT64_FORMAT " bytes of address space left", seg.span);
    }
  g_mutex_unlock (&self->lock);
  return ok;
}

/* The reservation holding [addr, addr + size), granule-aligned. */
static Segment *
reservation_of (TsDeviceMemory *self,
                guint64         addr,
                guint64         size,
                Device        **dev_out,
                GError        **error)
{
  Device *dev = device_of_address (self, addr, NULL);
  gssize k = dev ? find_at_or_before (dev->segments, addr) : -1;
  Segment *seg = k >= 0 ? &g_array_index (dev->segments, Segment, k) : NULL;

  if (seg == NULL || seg->mapped == NULL || size == 0 ||
      (addr - seg->addr) % TS_DEVICE_MEMORY_GRANULARITY != 0 || size % TS_DEVICE_MEMORY_GRANULARITY != 0 ||
      addr - seg->addr >= seg->span || size > seg->span - (addr - seg->addr))
    {
      g_set_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_INVALID_VALUE,
                   "invalid argument: [0x%" G_GINT64_MODIFIER "x, +%" G_GUINT64_FORMAT
                   ") is not a page range of a reservation", addr, size);
      return NULL;
    }
  *dev_out = dev;
  return seg;
}

/* With set, gives every granule of the range the state `mapped`;
 * without, TRUE when none of them has that state yet. */
static gboolean
granules (Segment  *seg,
          guint64   addr,
          guint64   size,
          gboolean  mapped,
          gboolean  set)
{
  guint64 g;

  for (g = (addr - seg->addr) / TS_DEVICE_MEMORY_GRANULARITY;
       g < (addr - seg->addr + size) / TS_DEVICE_MEMORY_GRANULARITY; g++)
    {
      if (!set && granule_mapped (seg, g) == mapped)
        return FALSE;
      if (set && mapped)
        seg->mapped[g / 8] |= 1u << (g % 8);
      else if (set)
        seg->mapped[g / 8] &= ~(1u << (g % 8));
    }
  return TRUE;
}

/* Maps (map) or unmaps the granules of [addr, addr + size), every one of
 * which must be in the other state. */
static gboolean
remap (TsDeviceMemory *self,
       guint64         addr,
       guint64         size,
       gboolean        map,
       GError        **error)
{
  Device *dev = NULL;
  Segment *seg;
  gboolean ok = FALSE;

  g_return_val_if_fail (TS_IS_DEVICE_MEMORY (self), FALSE);

  g_mutex_lock (&self->lock);
  if ((seg = reservation_of (self, addr, size, &dev, error)) == NULL)
    ;
  else if (!granules (seg, addr, size, map, FALSE))
    g_set_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_INVALID_VALUE,
                 "invalid argument: a page of [0x%" G_GINT64_MODIFIER "x, +%" G_GUINT64_FORMAT
                 ") is %s", addr, size, map ? "mapped already" : "not mapped");
  else if (map && size > dev->capacity - dev->context_reserve - dev->used)
    g_set_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_OUT_OF_MEMORY,
                 "out of memory");
  else
    {
      granules (seg, addr, size, map, TRUE);
      seg->n_mapped = map ? seg->n_mapped + size : seg->n_mapped - size;
      dev->used = map ? dev->used + size : dev->used - size;
      /* Unmapped, the physical pages go: a later map reads fresh memory. */
      if (!map && seg->backing != NULL)
        madvise ((guint8 *) seg->backing + (addr - seg->addr), size, MADV_DONTNEED);
      if (!map)
        settle_charge (seg, NULL);  /* gives back, never fails */
      ok = TRUE;
    }
  g_mutex_unlock (&self->lock);
  return ok;
}

gboolean
ts_device_memory_map (TsDeviceMemory *self,
                      guint64         addr,
                      guint64         size,
                      GError        **error)
{
  return remap (self, addr, size, TRUE, error);
}

gboolean
ts_device_memory_unmap (TsDeviceMemory *self,
                        guint64         addr,
                        guint64         size,
                        GError        **error)
{
  return remap (self, addr, size, FALSE, error);
}

gboolean
ts_device_memory_release (TsDeviceMemory *self,
                          guint64         addr,
                          GError        **error)
{
  Device *dev;
  Segment *seg;
  gssize k;

  g_return_val_if_fail (TS_IS_DEVICE_MEMORY (self), FALSE);

  g_mutex_lock (&self->lock);
  dev = device_of_address (self, addr, NULL);
  k = dev ? find_at_or_before (dev->segments, addr) : -1;
  seg = k >= 0 ? &g_array_index (dev->segments, Segment, k) : NULL;
  if (seg == NULL || seg->addr != addr || seg->mapped == NULL)
    {
      g_mutex_unlock (&self->lock);
      g_set_error (error, TS_DEVICE_MEMORY_ERROR, TS_DEVICE_MEMORY_ERROR_INVALID_VALUE,
                   "invalid argument: 0x%" G_GINT64_MODIFIER "x is not a reservation", addr);
      return FALSE;
    }
  unback (self, seg);
  dev->used -= seg->n_mapped;
  g_free (seg->mapped);
  g_array_remove_index (dev->segments, k);
  g_mutex_unlock (&self->lock);
  return TRUE;
}
