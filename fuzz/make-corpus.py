#!/usr/bin/env python3
# make-corpus.py: writes the seed corpus of fuzz-trace-reader
#
# Copyright 2026 The Tensorscope authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# An independent writer of the trace format (docs/trace-format.md), so the
# corpus also checks the C reader against the written spec. Run it from the
# repository root: python3 fuzz/make-corpus.py

import os
import struct

OUT = os.path.join(os.path.dirname(__file__), 'corpus', 'trace-reader')

STRING, INDEX, RECORD = 0x0001, 0x0002, 0x0100
KERNEL, MEMCPY, NVTX, ALLOC = 4, 5, 10, 11
N_KINDS = 16


def header(major=1, minor=0):
    return b'TSTRACE\0' + struct.pack('<HHIQQ', major, minor, 32, 0, 0)


def frame(ftype, payload):
    pad = (-len(payload)) % 8
    return struct.pack('<HHI', ftype, 0, len(payload)) + payload + b'\0' * pad


def string(sid, text):
    return frame(STRING, struct.pack('<I', sid) + text.encode())


def kernel(start, name, corr):
    # start end queued correlation device stream name grid[3] block[3] sms flops bytes error pad
    return frame(RECORD + KERNEL, struct.pack('<qqqQIII3I3IIQQII', start, start + 7, start - 2, corr,
                                              0, 0, name, 128, 1, 1, 256, 1, 1, 132, 1 << 20, 1 << 16, 0, 0))


def memcpy(start, kind, corr):
    return frame(RECORD + MEMCPY, struct.pack('<qqqQIIIIiiQ', start, start + 5, start - 1, corr,
                                              0, 1, kind, 0, -1, 0, 4096))


def nvtx(time, kind, message):
    # time range_id thread kind message depth loc(file function line) pad
    return frame(RECORD + NVTX, struct.pack('<qQIIIiIIII', time, 0, 0, kind, message, 1, 0, 0, 0, 0))


class Trace:
    def __init__(self, major=1, minor=0):
        self.data = bytearray(header(major, minor))
        self.counts = {}
        self.chunks = {}

    def add(self, ftype, blob):
        if self.counts.get(ftype, 0) % 4096 == 0:
            self.chunks.setdefault(ftype, []).append(len(self.data))
        self.counts[ftype] = self.counts.get(ftype, 0) + 1
        self.data += blob

    def close(self):
        at = len(self.data)
        types = [STRING] + [RECORD + k for k in range(N_KINDS)]
        body = struct.pack('<II', len(types), 4096)
        for t in types:
            offs = self.chunks.get(t, [])
            body += struct.pack('<HHIQ', t, 0, len(offs), self.counts.get(t, 0))
            body += b''.join(struct.pack('<Q', o) for o in offs)
        body += struct.pack('<Q', at) + b'TSINDEX\0'
        self.data += frame(INDEX, body)
        return bytes(self.data)


def small(close=True):
    t = Trace()
    t.add(STRING, string(1, 'gemm'))
    t.add(RECORD + KERNEL, kernel(100, 1, 1))
    t.add(STRING, string(2, 'step'))
    t.add(RECORD + NVTX, nvtx(90, 1, 2))
    t.add(RECORD + MEMCPY, memcpy(120, 1, 2))
    t.add(RECORD + KERNEL, kernel(200, 1, 3))
    return t.close() if close else bytes(t.data)


def write(name, data):
    with open(os.path.join(OUT, name), 'wb') as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    complete = small()
    write('valid-small', complete)
    write('cut-short-no-index', small(close=False))
    write('cut-mid-frame', complete[:32 + 16 + 50])
    write('cut-in-index', complete[:-9])
    write('empty', b'')
    write('header-only', header())
    write('bad-magic', b'PK\3\4' + complete[4:])
    write('newer-major', header(2, 0) + complete[32:])

    t = Trace(minor=3)
    t.add(STRING, string(1, 'gemm'))
    t.add(0x0042, frame(0x0042, b'a frame type from the future'))
    t.add(RECORD + 77, frame(RECORD + 77, b'\1' * 24))
    longer = bytearray(kernel(5, 1, 9))
    longer[4:8] = struct.pack('<I', 96 + 16)
    t.add(RECORD + KERNEL, bytes(longer) + b'\xee' * 16)
    write('newer-minor-unknown-frames', bytes(t.data))

    t = Trace()
    t.add(RECORD + KERNEL, kernel(5, 1, 9))   # string 1 never defined
    write('string-before-definition', bytes(t.data))

    t = Trace()
    t.add(STRING, string(2, 'gemm'))
    write('string-out-of-order', bytes(t.data))

    t = Trace()
    t.add(RECORD + MEMCPY, memcpy(1, 9, 1))   # copy kind 9 does not exist
    write('bad-enum', bytes(t.data))

    write('huge-length', header() + struct.pack('<HHI', RECORD + KERNEL, 0, 0xfffffff0) + b'\0' * 16)

    bad_index = bytearray(complete)
    bad_index[-16 - 8:-16] = struct.pack('<Q', 1 << 40)   # a chunk offset that lies
    write('index-mismatch', bytes(bad_index))

    write('after-index', complete + string(3, 'late'))

    grown = bytearray(complete)
    grown[32 + 4:32 + 8] = struct.pack('<I', 1 << 20)     # first frame runs past the end
    write('frame-past-end', bytes(grown))

    many = Trace()
    many.add(STRING, string(1, 'k'))
    for i in range(5000):
        many.add(RECORD + KERNEL, kernel(i * 10, 1, i))
    write('two-chunks', many.close())


if __name__ == '__main__':
    main()
