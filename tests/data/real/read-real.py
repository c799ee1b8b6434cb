#!/usr/bin/env python3
# read-real.py FILE...: the figures tests/test-real-files.c asserts, worked out
# from the real files with nothing but the standard library (no torch).
# With --expected, also writes NAME.expected beside each snapshot: its final
# layout (every segment and block, free ones included) as the test prints
# the replay's.
#
# Copyright 2026 The Tensorscope authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Snapshots: the final state from the `segments` list, and a forward replay
# of `device_traces` that turns trace sizes (a request, as PyTorch records
# them) into block sizes with the caching allocator's rules, checked
# against the final segments block by block. Kineto: counts of the events.
import gzip, json, pickle, sys
from collections import Counter

MIN_BLOCK, SMALL_SIZE = 512, 1 << 20


def round_size(n):
    return MIN_BLOCK if n < MIN_BLOCK else MIN_BLOCK * ((n + MIN_BLOCK - 1) // MIN_BLOCK)


def layout(segs):
    """One line per segment and per block, by address; a free block's
    requested_size is stale in PyTorch, so it is left out."""
    out = []
    for s in sorted(segs, key=lambda s: (s['device'], s['address'])):
        out.append('segment %d 0x%x %d %s pool %d,%d%s' % (
            s['device'], s['address'], s['total_size'], s['segment_type'], *s['segment_pool_id'],
            ' expandable' if s.get('is_expandable') else ''))
        for b in s['blocks']:
            out.append('  block 0x%x %d %s%s' % (b['address'], b['size'], b['state'],
                       '' if b['state'] == 'inactive' else ' requested %d' % b['requested_size']))
    return ''.join(line + '\n' for line in out)


def snapshot(path):
    d = pickle.load(open(path, 'rb'))
    segs = d['segments']
    if WRITE:
        open(path.rsplit('.', 1)[0] + '.expected', 'w').write(layout(segs))
    expandable = d.get('allocator_settings', {}).get('expandable_segments', False)
    active = lambda b: b['state'] != 'inactive'
    print(path)
    print('  allocated', sum(b['size'] for s in segs for b in s['blocks'] if b['state'] == 'active_allocated'))
    print('  reserved', sum(s['total_size'] for s in segs))
    print('  segments', len(segs), 'small', sum(s['segment_type'] == 'small' for s in segs))
    print('  pools', sorted(Counter(tuple(s['segment_pool_id']) for s in segs).items()))
    for s in segs:
        print('   seg 0x%x %d %s pool %s stream %d live %d free %d' % (
            s['address'], s['total_size'], s['segment_type'], tuple(s['segment_pool_id']), s['stream'],
            sum(active(b) for b in s['blocks']), sum(b['size'] for b in s['blocks'] if not active(b))))
    free = Counter()
    for s in segs:
        free[(tuple(s['segment_pool_id']), s['segment_type'])] += sum(b['size'] for b in s['blocks'] if not active(b))
    print('  free by pool', sorted(free.items()))
    for dev, trace in enumerate(d['device_traces']):
        print('  device', dev, 'entries', len(trace), sorted(Counter(e['action'] for e in trace).items()))
        replay(trace, segs, dev, expandable)


def replay(trace, segs, dev, expandable):
    """Forward: segments (addr -> [size, small]), live blocks addr -> size."""
    seg, live, alloc, peak = {}, {}, 0, 0
    small_of = {s['address']: s['segment_type'] == 'small' for s in segs}
    for e in trace:
        a, n = e['addr'], e['size']
        if e['action'] == 'segment_map' and any(b + seg[b][0] == a for b in seg):
            seg[max(b for b in seg if b < a)][0] += n   # an expandable segment grows
        elif e['action'] in ('segment_alloc', 'segment_map'):
            seg[a] = [n, small_of.get(a, n <= 2 << 20)]
        elif e['action'] in ('segment_free', 'segment_unmap'):
            del seg[a]
        elif e['action'] == 'alloc':
            base = max(s for s in seg if s <= a)
            end = min([b for b in live if b > a] + [base + seg[base][0]])
            r, gap = round_size(n), end - a
            split = (gap - r >= MIN_BLOCK) if (seg[base][1] or expandable) else (gap - r > SMALL_SIZE)
            live[a] = r if split else gap
            alloc += live[a]
            peak = max(peak, alloc)
        elif e['action'] == 'free_requested':
            alloc -= live[a]
        elif e['action'] == 'free_completed':
            del live[a]
    final = {b['address']: b['size'] for s in segs if s['device'] == dev for b in s['blocks'] if b['state'] != 'inactive'}
    print('  replayed allocated', alloc, 'peak', peak, 'blocks match' if final == live else 'BLOCKS DIFFER')


def parse_frame(name):
    """'file.py(12): func' -> (file, line, func, is_torch), else None."""
    head, sep, func = name.partition('): ')
    file, _, line = head.rpartition('(')
    if not sep or not file.endswith('.py') or not line.isdigit():
        return None
    return file, int(line), func, file.startswith('torch/') or '/torch/' in file


def call_sites(ev):
    """Each host call's site: of the Python frames around it on its thread
    (outermost first), the last one outside torch before the first one in
    torch: the user's function that called into torch."""
    frames = [(e['ts'], e['ts'] + e['dur'], parse_frame(e['name']), e['tid'])
              for e in ev if e.get('cat') == 'python_function' and parse_frame(e['name'])]
    sites = []
    for e in ev:
        if e.get('cat') in ('cpu_op', 'cuda_runtime', 'cuda_driver', 'python_function'):
            site = None
            for f in sorted(f for f in frames if f[3] == e['tid'] and f[0] <= e['ts'] < f[1]):
                if f[2][3]:
                    break
                site = f[2][:3]
            sites.append((e['ts'], e['name'], site))
    return sorted(sites, key=lambda s: s[0])


def kineto(path):
    d = json.load(open(path))
    ev = d['traceEvents']
    cats = Counter(e.get('cat') for e in ev)
    print(path, sorted(cats.items(), key=str))
    k = sorted((e for e in ev if e.get('cat') == 'kernel'), key=lambda e: e['ts'])
    print('  kernels', len(k), 'first', k[0]['name'], 'stream', k[0]['args'].get('stream'))
    print('  kernel streams', sorted(Counter(e['args'].get('stream') for e in k).items()))
    mem = [e for e in ev if e.get('name') == '[memory]']
    print('  memory events', len(mem), 'cuda', sum(e['args'].get('Device Type') == 1 for e in mem))
    sites = call_sites(ev)
    print('  host calls', len(sites), 'with a call site', sum(s[2] is not None for s in sites))
    print('  call sites', sorted(Counter(s[2] for s in sites if s[2]).items()))
    launch = [s for s in sites if s[1] == 'cudaLaunchKernel' and s[2]]
    print('  first cudaLaunchKernel with a site', launch[0][2] if launch else None)


WRITE = '--expected' in sys.argv
for p in (a for a in sys.argv[1:] if a != '--expected'):
    (kineto if p.endswith('.json') else snapshot)(p)
