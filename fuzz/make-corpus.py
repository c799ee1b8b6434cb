#!/usr/bin/env python3
# make-corpus.py: writes the seed corpus of fuzz-trace-reader
#
# Copyright 2026 The Tensorscope authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# An independent writer of the trace format (docs/trace-format.md), so the
# corpus also checks the C reader against the written spec: test-trace-file
# checks that the C writer gives valid-small byte for byte. Run it from the
# repository root: python3 fuzz/make-corpus.py

import gzip
import os
import struct

OUT = os.path.join(os.path.dirname(__file__), 'corpus', 'trace-reader')

SCHEMA, EVENTS, INDEX = 0x0001, 0x0002, 0x0003
U32, I32, U64, I64, TIME, STRING, STREAM = 1, 2, 3, 4, 5, 6, 7
WIDE = (U64, I64, TIME)
NO_KEY = 0xff
KERNEL, MEMCPY, NVTX, ACCESS = 4, 5, 10, 16

# Each kind's fields on the wire (ts-record.c without padding), and the
# index of its key field.
KINDS = [
    ([U32, STRING, STRING, U32, U32, U32, U64], NO_KEY),                    # device
    ([STREAM, U32, I32, U32, U64], NO_KEY),                                 # stream
    ([U32, STRING], NO_KEY),                                                # thread
    ([TIME, TIME, U64, U32, STRING, STRING, STRING, U32, I32, STREAM], 4),  # api-call
    ([TIME, TIME, TIME, U64, U32, STREAM, STRING,
      U32, U32, U32, U32, U32, U32, U32, U64, U64, U32], 6),                # kernel
    ([TIME, TIME, TIME, U64, U32, STREAM, U32, U32, I32, I32, U64], NO_KEY),  # memcpy
    ([TIME, TIME, TIME, U64, U32, STREAM, U64, U32], NO_KEY),               # memset
    ([TIME, TIME, U64, U64, U32, STREAM], NO_KEY),                          # event-record
    ([TIME, TIME, U64, U64, U64, U32, STREAM], NO_KEY),                     # event-wait
    ([TIME, TIME, U64, U32, U32, I32, STREAM, U64], NO_KEY),                # sync
    ([TIME, U64, U32, U32, STRING, I32, STRING, STRING, U32], 4),           # nvtx
    ([TIME, U64, U64, U64, U64, U32, STREAM, U32, U32, STRING, STRING, U32,
      U32, U32], NO_KEY),                                                   # alloc (2.1: pool_id)
    ([TIME, I64, U32, U32], NO_KEY),                                        # counter
    ([TIME, U64, U64, U32, STREAM, U32, STRING,
      STRING, STRING, U32, STRING, STRING, U32], NO_KEY),                   # error
    ([TIME, U64, U64, U64, STREAM, STREAM, U32, U32, STRING, STRING,
      STRING, STRING, U32, STRING, STRING, U32, STRING, STRING, U32, STRING], NO_KEY),  # sanitizer
    ([TIME, U32, U32, STRING], NO_KEY),                                     # output
    ([TIME, U64, U64, U64, STREAM, U32], NO_KEY),                           # access (2.1)
]


def header(major=2, minor=1):
    return b'TSTRACE\0' + struct.pack('<HHIQQ', major, minor, 32, 0, 0)


def frame(ftype, payload):
    pad = (-len(payload)) % 8
    return struct.pack('<HHI', ftype, 0, len(payload)) + payload + b'\0' * pad


def schema(kinds):
    """kinds: list of (kind number, field types, key)."""
    body = struct.pack('<HH', len(kinds), 0)
    for kind, types, key in kinds:
        body += struct.pack('<HBB', kind, len(types), key) + bytes(types)
    return frame(SCHEMA, body)


def standard_schema():
    return schema([(k, types, key) for k, (types, key) in enumerate(KINDS)])


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7f) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def zigzag(d, bits):
    """The difference d, modulo 2**bits, as a signed number zigzagged."""
    mask = (1 << bits) - 1
    d &= mask
    if d >> (bits - 1):
        d -= 1 << bits
    return ((d << 1) ^ (d >> (bits - 1))) & mask


def frame_offsets(data):
    """Offsets of the frames after the header."""
    offsets, pos = [], 32
    while pos + 8 <= len(data):
        offsets.append(pos)
        pos += 8 + ((struct.unpack_from('<I', data, pos + 4)[0] + 7) & ~7)
    return offsets


class Events:
    """One events frame: predictions start from zero."""

    def __init__(self, kinds):
        self.kinds = kinds            # kind -> (types, key)
        self.prev = {}
        self.keyed = {}
        self.body = bytearray()
        self.counts = {}              # 'strings' or kind -> count

    def string(self, text):
        data = text.encode()
        self.body += varint(0) + varint(len(data)) + data
        self.counts['strings'] = self.counts.get('strings', 0) + 1

    def record(self, kind, values, raw_tail=b''):
        types, key = self.kinds[kind]
        assert len(values) == len(types)
        values = [v & ((1 << 64) - 1 if t in WIDE else (1 << 32) - 1) for v, t in zip(values, types)]
        prev = self.prev.get(kind, [0] * len(types))
        row = self.keyed.get((kind, values[key])) if key != NO_KEY else None
        self.body += varint(1 + kind)
        for f, (v, t) in enumerate(zip(values, types)):
            p = row[f] if row is not None and f > key else prev[f]
            self.body += varint(zigzag(v - p, 64 if t in WIDE else 32))
        self.body += raw_tail
        self.prev[kind] = values
        if key != NO_KEY:
            self.keyed[(kind, values[key])] = values
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def bytes(self):
        return frame(EVENTS, bytes(self.body))


class Trace:
    def __init__(self, major=2, minor=1, kinds=None):
        self.kinds = kinds if kinds is not None else {k: v for k, v in enumerate(KINDS)}
        self.data = bytearray(header(major, minor))
        self.chunks = []              # (offset, counts)

    def add(self, blob):
        self.data += blob

    def add_events(self, events):
        self.chunks.append((len(self.data), events.counts))
        self.data += events.bytes()

    def close(self):
        at = len(self.data)
        columns = ['strings'] + list(range(len(KINDS)))
        body = struct.pack('<II', len(columns), len(self.chunks))
        for c in columns:
            body += struct.pack('<Q', sum(counts.get(c, 0) for _, counts in self.chunks))
        for offset, counts in self.chunks:
            body += struct.pack('<Q', offset) + b''.join(struct.pack('<I', counts.get(c, 0)) for c in columns)
        body += b'\0' * ((-len(body)) % 8)
        body += struct.pack('<Q', at) + b'TSINDEX\0'
        self.data += frame(INDEX, body)
        return bytes(self.data)


def kernel(start, name, corr):
    # start end queued correlation device stream name grid[3] block[3] sms flops bytes error
    return [start, start + 7, start - 2, corr, 0, 0, name, 128, 1, 1, 256, 1, 1, 132, 1 << 20, 1 << 16, 0]


def memcpy(start, kind, corr):
    return [start, start + 5, start - 1, corr, 0, 1, kind, 0, -1, 0, 4096]


def nvtx(time, kind, message):
    # time range_id thread kind message depth loc(file function line)
    return [time, 0, 0, kind, message, 1, 0, 0, 0]


def small(close=True):
    """Two events frames: test-trace-file writes the same with the C writer."""
    t = Trace()
    t.add(standard_schema())
    e = Events(t.kinds)
    e.string('gemm')
    e.record(KERNEL, kernel(100, 1, 1))
    t.add_events(e)
    e = Events(t.kinds)
    e.string('step')
    e.record(NVTX, nvtx(90, 1, 2))
    e.record(MEMCPY, memcpy(120, 1, 2))
    e.record(KERNEL, kernel(200, 1, 3))
    t.add_events(e)
    return t.close() if close else bytes(t.data)


def one_frame(records, strings=(), with_schema=True):
    t = Trace()
    if with_schema:
        t.add(standard_schema())
    e = Events(t.kinds)
    for s in strings:
        e.string(s)
    for kind, values in records:
        e.record(kind, values)
    t.add_events(e)
    return bytes(t.data)


def write(name, data):
    with open(os.path.join(OUT, name), 'wb') as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    complete = small()
    _, first_events, second_events, index_at = frame_offsets(complete)
    write('valid-small', complete)
    write('cut-short-no-index', small(close=False))
    write('cut-mid-frame', complete[:second_events + 12])
    write('cut-in-index', complete[:-9])
    write('empty', b'')
    write('header-only', header())
    write('schema-only', header() + standard_schema())
    write('bad-magic', b'PK\3\4' + complete[4:])
    write('newer-major', header(3, 0) + complete[32:])

    # A newer minor: the kernel has two more fields, kind 77 is new, and a
    # frame type 0x0042 is unknown.
    kinds = [(k, types, key) for k, (types, key) in enumerate(KINDS)]
    kinds[KERNEL] = (KERNEL, KINDS[KERNEL][0] + [U64, U32], KINDS[KERNEL][1])
    kinds.append((77, [U32, STRING, TIME], NO_KEY))
    t = Trace(minor=3, kinds={k: (types, key) for k, types, key in kinds})
    t.add(schema(kinds))
    e = Events(t.kinds)
    e.string('gemm')
    e.record(77, [5, 1, 1000])
    e.record(KERNEL, kernel(5, 1, 9) + [1 << 40, 7])
    t.add_events(e)
    t.add(frame(0x0042, b'a frame type from the future'))
    write('newer-minor-unknown-frames', bytes(t.data))

    # An older minor: the kernel stops after sms; flops, bytes, error read as 0;
    # no access kind (2.0 had none).
    kinds = [(k, types, key) for k, (types, key) in enumerate(KINDS[:ACCESS])]
    kinds[KERNEL] = (KERNEL, KINDS[KERNEL][0][:14], KINDS[KERNEL][1])
    t = Trace(minor=0, kinds={k: (types, key) for k, types, key in kinds})
    t.add(schema(kinds))
    e = Events(t.kinds)
    e.string('gemm')
    e.record(KERNEL, kernel(5, 1, 9)[:14])
    t.add_events(e)
    write('older-writer', bytes(t.data))

    write('string-before-definition', one_frame([(KERNEL, kernel(5, 1, 9))]))
    write('events-before-schema', one_frame([(KERNEL, kernel(5, 0, 9))], with_schema=False))
    write('bad-enum', one_frame([(MEMCPY, memcpy(1, 1, 1)), (MEMCPY, memcpy(2, 9, 2))]))
    write('huge-length', header() + standard_schema() +
          struct.pack('<HHI', EVENTS, 0, 0xfffffff0) + b'\0' * 16)

    cut = bytearray(one_frame([(MEMCPY, memcpy(1, 1, 1))]))
    cut[first_events + 4:first_events + 8] = struct.pack('<I', struct.unpack('<I', cut[first_events + 4:first_events + 8])[0] - 3)
    write('field-past-end', bytes(cut))

    t = Trace()
    t.add(standard_schema())
    e = Events(t.kinds)
    e.body += varint(1 + 200)               # kind 200 is not in the schema
    t.add_events(e)
    write('unlisted-kind', bytes(t.data))

    t = Trace()
    t.add(standard_schema())
    e = Events(t.kinds)
    e.body += varint(1 + 2) + varint(1 << 33) + varint(0)   # thread: a 32-bit field of 34 bits
    t.add_events(e)
    write('wide-value', bytes(t.data))

    bad_index = bytearray(complete)
    bad_index[-16 - 8 - 4 * 18 - 8:-16 - 8 - 4 * 18] = struct.pack('<Q', 1 << 40)   # a chunk offset that lies
    write('index-mismatch', bytes(bad_index))

    t = Trace()
    e = Events(t.kinds)
    e.string('late')
    write('after-index', complete + e.bytes())

    grown = bytearray(complete)
    grown[first_events + 4:first_events + 8] = struct.pack('<I', 1 << 20)   # runs past the end
    write('frame-past-end', bytes(grown))

    many = Trace()
    many.add(standard_schema())
    for half in range(2):
        e = Events(many.kinds)
        if half == 0:
            e.string('k')
        for i in range(2500 * half, 2500 * (half + 1)):
            e.record(KERNEL, kernel(i * 10, 1, i))
        many.add_events(e)
    write('two-chunks', many.close())

    # Users gzip traces; the reader inflates them (cut short: what it holds).
    gz = gzip.compress(complete, mtime=0)
    write('gzip-valid', gz)
    write('gzip-cut', gz[:len(gz) // 2])
    write('gzip-damaged', gz[:12] + bytes(b ^ 0x5a for b in gz[12:24]) + gz[24:])


if __name__ == '__main__':
    main()
