#!/usr/bin/python3
"""Regenerates the PyTorch test files in this directory.

    /usr/bin/python3 tests/data/pytorch/make-pytorch-data.py

Memory snapshots are built as the dicts PyTorch's allocator returns
(torch/csrc/cuda/Module.cpp, memory_snapshot.cpp; see the format history in
docs/pytorch-import.md) and written with Python's own pickle (protocols 2, 4
and 5) and json, from a small simulation of the caching allocator, so the
final `segments` agree with `device_traces`. Debian's torch 1.13 is CPU only
and cannot call _dump_snapshot(); where it is importable it writes
kineto-cpu.json with the real torch.profiler (cpu_op, user_annotation,
ProfilerStep#N), otherwise that file is kept as committed.

Each snapshot has NAME.expected: the state the importer's replay must reach
at the end ("segment DEVICE ADDRESS SIZE" and "block DEVICE ADDRESS SIZE
STATE" lines, sorted). Tests never need torch.
"""

import gzip
import json
import os
import pickle
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MB = 1 << 20
BASE = 139926520725504          # a real 47-bit VA from a [memory] event
T0 = 1698326576864190           # µs since the epoch (PR #112266's example)


def frames(name, line, file="train.py"):
    return [{"filename": "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py",
             "line": 1501, "name": "_call_impl"},
            {"filename": file, "line": line, "name": name}]


class Allocator:
    """Just enough of CUDACachingAllocator: segments of blocks, front splits."""

    def __init__(self, t0=T0):
        self.segments = {}   # (dev, addr) -> dict(size, stream, small, expandable, blocks {addr: [size, req, state, frames]})
        self.traces = {}
        self.t = t0

    def entry(self, dev, action, addr, size, stream=0, fr=None, **extra):
        self.t += 7
        e = {"action": action, "addr": addr, "size": size, "stream": stream,
             "time_us": self.t, "compile_context": "N/A", "user_metadata": ""}
        if fr is not None:
            e["frames"] = fr
        e.update(extra)
        self.traces.setdefault(dev, []).append(e)
        return e

    def segment_alloc(self, dev, addr, size, stream=0, small=False, record=True, expandable=False, fr=None):
        self.segments[(dev, addr)] = {"size": size, "stream": stream, "small": small,
                                      "expandable": expandable, "blocks": {}, "frames": fr or []}
        if record:
            self.entry(dev, "segment_map" if expandable else "segment_alloc", addr, size, stream, fr or [])

    def segment_free(self, dev, addr):
        s = self.segments.pop((dev, addr))
        assert not s["blocks"]
        self.entry(dev, "segment_free", addr, s["size"], s["stream"], [])

    def seg_of(self, dev, addr):
        for (d, a), s in self.segments.items():
            if d == dev and a <= addr < a + s["size"]:
                return a, s
        raise KeyError(addr)

    def alloc(self, dev, addr, size, req, fr, record=True):
        _, s = self.seg_of(dev, addr)
        s["blocks"][addr] = [size, req, "active_allocated", fr]
        if record:
            self.entry(dev, "alloc", addr, size, s["stream"], fr)

    def free(self, dev, addr, complete=True, fr=None):
        _, s = self.seg_of(dev, addr)
        b = s["blocks"][addr]
        self.entry(dev, "free_requested", addr, b[0], s["stream"], fr if fr is not None else b[3])
        b[2] = "active_pending_free"
        if complete:
            self.entry(dev, "free_completed", addr, b[0], s["stream"], fr if fr is not None else b[3])
            del s["blocks"][addr]

    def snapshot_segments(self, legacy=False):
        out = []
        for (dev, addr), s in sorted(self.segments.items()):
            blocks, cur = [], addr
            for baddr in sorted(s["blocks"]):
                size, req, state, fr = s["blocks"][baddr]
                if baddr > cur:
                    blocks.append(self.block(cur, baddr - cur, 0, "inactive", [], legacy))
                blocks.append(self.block(baddr, size, req, state, fr, legacy))
                cur = baddr + size
            if cur < addr + s["size"]:
                blocks.append(self.block(cur, addr + s["size"] - cur, 0, "inactive", [], legacy))
            alloc = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
            active = sum(b["size"] for b in blocks if b["state"] != "inactive")
            seg = {"device": dev, "address": addr, "total_size": s["size"],
                   "allocated_size": alloc, "active_size": active, "stream": s["stream"],
                   "segment_type": "small" if s["small"] else "large", "blocks": blocks}
            if not legacy:
                seg.update({"requested_size": sum(b["requested_size"] for b in blocks),
                            "segment_pool_id": (0, 0), "is_expandable": s["expandable"],
                            "frames": s["frames"]})
            out.append(seg)
        return out

    @staticmethod
    def block(addr, size, req, state, fr, legacy):
        if legacy:
            # 1.13: no address; stack and request in `history`
            b = {"size": size, "state": state}
            if state != "inactive":
                b["history"] = [{"addr": addr, "real_size": req, "frames": fr}]
            return b
        return {"address": addr, "size": size, "requested_size": req, "state": state, "frames": fr}

    def expected(self):
        lines = []
        for (dev, addr), s in self.segments.items():
            lines.append(f"segment {dev} {addr} {s['size']}")
            for baddr, (size, req, state, fr) in s["blocks"].items():
                lines.append(f"block {dev} {baddr} {size} {state}")
        return "\n".join(sorted(lines)) + "\n"


def build_v2():
    a = Allocator()
    fwd, bwd, opt = frames("forward", 42), frames("backward", 57), frames("step", 88, "optim.py")
    # Before recording: segment S0 with a ghost block and a block freed later.
    S0 = BASE
    a.segment_alloc(0, S0, 20 * MB, record=False)
    a.alloc(0, S0 + 7 * MB, 1 * MB, 1000000, [], record=False)      # ghost: never in the trace
    a.alloc(0, S0 + 9 * MB, 2 * MB, 2 * MB, [], record=False)       # freed during the trace
    # Recording starts.
    a.alloc(0, S0, 5 * MB, 5000000, fwd)
    a.alloc(0, S0 + 5 * MB, 2 * MB, 2000000, fwd)
    a.free(0, S0)
    a.alloc(0, S0, 1 * MB, 1000000, bwd)
    a.free(0, S0 + 9 * MB, fr=bwd)                                   # initially allocated
    S1 = BASE + 64 * MB
    a.segment_alloc(0, S1, 2 * MB, small=True, fr=fwd)
    a.alloc(0, S1, 512, 100, fwd)
    a.alloc(0, S1 + 512, 1024, 1000, fwd)
    a.free(0, S1 + 512, complete=False)                               # pending free at the end
    S2 = BASE + 128 * MB
    a.segment_alloc(0, S2, 40 * MB, fr=opt)
    a.alloc(0, S2, 40 * MB, 40 * MB - 100, opt)
    a.free(0, S2)
    a.segment_free(0, S2)
    a.entry(0, "oom", 0, 4294967296, 0, opt, device_free=1048576).pop("addr")
    # device 1: an expandable segment, mapped in two steps
    E = BASE + (1 << 36)
    a.segment_alloc(1, E, 2 * MB, stream=94779210040832, expandable=True, fr=fwd)
    a.alloc(1, E, 1 * MB, 1000000, fwd)
    a.entry(1, "snapshot", 0, 0, 0, [])
    return a


def v2_dict(a):
    return {
        "segments": a.snapshot_segments(),
        "device_traces": [a.traces.get(0, []), a.traces.get(1, [])],
        "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
                               "max_split_size": -1, "garbage_collection_threshold": 0.0,
                               "expandable_segments": True, "pinned_num_register_threads": 1,
                               "release_lock_on_cudamalloc": False,
                               "pinned_use_cuda_host_register": False,
                               "roundup_power2_divisions": {str(1 << i): 0 for i in range(16)},
                               "trace_alloc_overflowed": True, "trace_alloc_max_entries": 25},
        "external_annotations": [
            {"name": "ProfilerStep#0", "stage": "START", "device": 0, "time_us": T0 + 1},
            {"name": "ProfilerStep#0", "stage": "END", "device": 0, "time_us": T0 + 60}],
    }


def build_legacy():
    """PyTorch 1.13: torch.cuda.memory_snapshot() is a list of segments."""
    a = Allocator()
    a.segment_alloc(0, BASE, 20 * MB, record=False)
    a.alloc(0, BASE, 4 * MB, 4000000, frames("forward", 12), record=False)
    a.alloc(0, BASE + 6 * MB, 1 * MB, 999999, frames("loss", 30), record=False)
    a.segment_alloc(0, BASE + 32 * MB, 2 * MB, small=True, record=False)
    a.alloc(0, BASE + 32 * MB, 512, 8, [], record=False)
    return a


def jit_pickle(obj):
    """The dict as torch::jit::Pickler writes it (memory_snapshot.cpp,
    _memory_snapshot_pickled): PROTO 2, BINPUT memo ids, BINUNICODE 'X'
    strings memoized by value, every list's items in one APPENDS, every
    dict's in one SETITEMS, no tag GLOBALs (tag_aggregates=false)."""
    import struct
    out = bytearray(b"\x80\x02")
    memo = {"n": 0}
    strings = {}

    def put():
        n = memo["n"]
        memo["n"] += 1
        out.extend(b"q" + bytes([n]) if n < 256 else b"r" + struct.pack("<I", n))
        return n

    def get(n):
        out.extend(b"h" + bytes([n]) if n < 256 else b"j" + struct.pack("<I", n))

    def emit(x):
        if x is None:
            out.extend(b"N")
        elif x is True or x is False:
            out.extend(b"\x88" if x else b"\x89")
        elif isinstance(x, int):
            if -2**31 <= x < 2**31:
                out.extend(b"J" + struct.pack("<i", x))
            else:
                n = (x.bit_length() + 8) // 8
                out.extend(b"\x8a" + bytes([n]) + x.to_bytes(n, "little", signed=True))
        elif isinstance(x, float):
            out.extend(b"G" + struct.pack(">d", x))
        elif isinstance(x, str):
            if x in strings:
                get(strings[x])
            else:
                b = x.encode()
                out.extend(b"X" + struct.pack("<I", len(b)) + b)
                strings[x] = put()
        elif isinstance(x, tuple):
            out.extend(b"(")
            for v in x:
                emit(v)
            out.extend(b"t")
            put()
        elif isinstance(x, list):
            out.extend(b"]")
            put()
            out.extend(b"(")
            for v in x:
                emit(v)
            out.extend(b"e")
        elif isinstance(x, dict):
            out.extend(b"}")
            put()
            out.extend(b"(")
            for k, v in x.items():
                emit(k)
                emit(v)
            out.extend(b"u")
        else:
            raise TypeError(type(x))

    emit(obj)
    out.extend(b".")
    return bytes(out)


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def jsonable(x):
    if isinstance(x, tuple):
        return [jsonable(v) for v in x]
    if isinstance(x, list):
        return [jsonable(v) for v in x]
    if isinstance(x, dict):
        return {k: jsonable(v) for k, v in x.items()}
    return x


def kineto(rank, base, absolute=False):
    """A torch.profiler trace of one rank, as Kineto's output_json.cpp writes it."""
    pid, tid = 2910249 + rank, 2919752 + rank
    off = 0 if absolute else 0
    t = (1669783687464300 if absolute else 4458676984000) + rank * 3  # µs
    ev = []
    corr = 57600
    def X(cat, name, p, th, ts, dur, args=None):
        e = {"ph": "X", "cat": cat, "name": name, "pid": p, "tid": th,
             "ts": round(ts, 3), "dur": round(dur, 3)}
        if args is not None:
            e["args"] = args
        ev.append(e)
    for step in range(2):
        s0 = t + step * 1000
        X("user_annotation", f"ProfilerStep#{step}", pid, tid, s0, 900.5 + 100 * rank, {"External id": 1 + step})
        X("cpu_op", "aten::mm", pid, tid, s0 + 10.25, 50.125, {"External id": 10 + step})
        corr += 1
        X("cuda_runtime", "cudaLaunchKernel", pid, tid, s0 + 20.001, 5.439,
          {"External id": 10 + step, "cbid": 211, "correlation": corr})
        ev.append({"ph": "s", "id": corr, "pid": pid, "tid": tid, "ts": round(s0 + 20.001, 3), "cat": "ac2g", "name": "ac2g"})
        ev.append({"ph": "f", "id": corr, "pid": 0, "tid": 7, "ts": round(s0 + 30.5, 3), "cat": "ac2g", "name": "ac2g", "bp": "e"})
        X("kernel", "ampere_sgemm_128x64_tn", 0, 7, s0 + 30.5, 200.123 + rank * 50,
          {"External id": 10 + step, "queued": 0, "device": 0, "context": 1, "stream": 7,
           "correlation": corr, "registers per thread": 32, "shared memory": 4224,
           "grid": [7, 16, 32], "block": [256, 1, 1], "est. achieved occupancy %": 100})
        corr += 1
        X("cuda_runtime", "cudaMemcpyAsync", pid, tid, s0 + 60, 4, {"correlation": corr})
        ev.append({"ph": "s", "id": corr, "pid": pid, "tid": tid, "ts": s0 + 60, "cat": "ac2g", "name": "ac2g"})
        ev.append({"ph": "f", "id": corr, "pid": 0, "tid": 7, "ts": s0 + 240, "cat": "ac2g", "name": "ac2g", "bp": "e"})
        X("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 0, 7, s0 + 240, 10.5,
          {"device": 0, "context": 1, "stream": 7, "correlation": corr, "bytes": 1048576,
           "memory bandwidth (GB/s)": 99.8})
        corr += 1
        X("cuda_runtime", "cudaMemsetAsync", pid, tid, s0 + 70, 3, {"correlation": corr})
        X("gpu_memset", "Memset (Device)", 0, 7, s0 + 251, 1.25,
          {"device": 0, "context": 1, "stream": 7, "correlation": corr, "bytes": 4096})
        corr += 1
        X("cpu_op", "record_param_comms", pid, tid, s0 + 300, 20,
          {"Collective name": "allreduce", "Group size": 2, "dtype": "Float"})
        X("cuda_runtime", "cudaLaunchKernel", pid, tid, s0 + 305, 4, {"correlation": corr})
        ev.append({"ph": "s", "id": corr, "pid": pid, "tid": tid, "ts": s0 + 305, "cat": "ac2g", "name": "ac2g"})
        # one clock: the all-reduce ends at the same instant on both ranks
        # (rank 1's starts 103 µs earlier and waits 100 µs longer)
        ev.append({"ph": "f", "id": corr, "pid": 0, "tid": 14, "ts": s0 + 150 - 103 * rank, "cat": "ac2g", "name": "ac2g", "bp": "e"})
        X("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 0, 14,
          s0 + 150 - 103 * rank, 300 + 100 * rank,
          {"device": 0, "stream": 14, "correlation": corr, "Collective name": "allreduce",
           "In msg nelems": 6637568, "Group size": 2, "Process Group Name": "0"})
        X("gpu_user_annotation", f"ProfilerStep#{step}", 0, 7, s0 + 29.999, 500.002,
          {"device": 0, "stream": 7})
        X("cuda_sync", "Stream Sync", 0, 1000007, s0 + 700, 33,
          {"cuda_sync_kind": "Stream Sync", "stream": 7, "correlation": corr + 1000, "device": 0})
        # dangling f (a runtime call that needs no flow), dropped
        ev.append({"ph": "f", "id": corr + 5000, "pid": 0, "tid": 7, "ts": s0 + 800, "cat": "ac2g", "name": "ac2g", "bp": "e"})
        X("python_function", "train.py(12): step", pid, tid, s0 + 1, 890, {"Python id": 3})
        ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": pid, "tid": tid,
                   "ts": s0 + 15, "args": {"Device Type": 1, "Device Id": 0, "Addr": BASE, "Bytes": 2342912,
                                           "Total Allocated": 5450327040 + step, "Total Reserved": 12782141440}})
        ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": pid, "tid": tid,
                   "ts": s0 + 16, "args": {"Device Type": 0, "Device Id": -1, "Addr": 1, "Bytes": 64,
                                           "Total Allocated": 64, "Total Reserved": 0}})
    ev.append({"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "python3.10"}})
    ev.append({"name": "thread_name", "ph": "M", "pid": 0, "tid": 7, "args": {"name": "stream 7 "}})
    ev.append({"ph": "X", "cat": "Trace", "ts": t, "dur": 2000, "pid": "Spans", "tid": "PyTorch Profiler",
               "name": "PyTorch Profiler (0)", "args": {"Op count": 0}})
    ev.append({"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": t + 2001})
    doc = {"schemaVersion": 1,
           "deviceProperties": [{"id": 0, "name": "NVIDIA A100-PG509-200", "totalGlobalMem": 42297524224,
                                 "computeMajor": 8, "computeMinor": 0, "maxThreadsPerBlock": 1024,
                                 "numSms": 108, "warpSize": 32}],
           "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2, "pg_count": 1,
                               "nccl_version": "2.17.1"},
           "record_shapes": 1, "profile_memory": 1, "displayTimeUnit": "ms",
           "traceEvents": ev, "traceName": f"/tmp/libkineto_activities_{rank}.json"}
    if not absolute:
        doc["baseTimeNanoseconds"] = base
    return doc


def skewed_rank(rank, clock_us, base, base0, colls, p2p=()):
    """A rank traced on a host whose clock is clock_us ahead of the true
    one. colls: (pg, seq, true end µs, duration) of its NCCL kernels. One
    compute kernel starts at true time 10 µs on every rank."""
    t0 = 4458676984000
    def written(true_us):
        # the rank's clock, then its own base
        return round(t0 + true_us + clock_us - (base - base0) / 1000, 3)
    ev = [{"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_tn", "pid": 0, "tid": 7,
           "ts": written(10), "dur": 20, "args": {"device": 0, "stream": 7, "correlation": 1}}]
    for i, (pg, seq, end, dur) in enumerate(colls):
        ev.append({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                   "pid": 0, "tid": 20, "ts": written(end - dur), "dur": dur,
                   "args": {"device": 0, "stream": 20, "correlation": 100 + i, "Collective name": "allreduce",
                            "Process Group Name": pg, "Seq": seq, "Group size": 2}})
    for i, end in enumerate(p2p):
        # pipeline sends/receives (no collective args): they end with their
        # one peer, so they must not count
        ev.append({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
                   "pid": 0, "tid": 21, "ts": written(end - 5), "dur": 5,
                   "args": {"device": 0, "stream": 21, "correlation": 200 + i}})
    return {"schemaVersion": 1,
            "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 85899345920,
                                  "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
            "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 3},
            "traceEvents": ev, "baseTimeNanoseconds": base}


def write_skewed_ranks():
    """Three hosts' clocks: rank 1 is 2500.25 µs ahead, rank 2 1234.567 µs
    behind with a base time 1 s later. Rank 1's all-reduces end 0, 1, 2,
    3 and 400 µs after rank 0's (the median, 2 µs, is its error), and its
    window starts after the first one (Seq matches them, not the order).
    Rank 2 shares only the pipeline group "1" with rank 1, so it is aligned
    through rank 1. Ranks 0 and 1 also have point-to-point kernels 500 µs
    apart, which must not count. ranks-nocoll/: no collectives, a rank 5 ms off."""
    base0 = 1711964646000000000
    os.makedirs(os.path.join(HERE, "ranks-skew"), exist_ok=True)
    ends = [1000, 2000, 3000, 4000, 5000, 6000]
    jitter = [0, 1, 2, 3, 400]
    r0 = [("0", k, e, 100) for k, e in enumerate(ends)]
    r1 = [("0", k + 1, ends[k + 1] + jitter[k], 150) for k in range(5)]
    r1 += [("1", k, 7000 + 100 * k, 30) for k in range(3)]
    r2 = [("1", k, 7000 + 100 * k, 40) for k in range(3)]
    write("ranks-skew/rank0.json", dump_json(skewed_rank(0, 0, base0, base0, r0, [8000 + 10 * k for k in range(7)])))
    write("ranks-skew/rank1.json", dump_json(skewed_rank(1, 2500.25, base0, base0, r1, [8500 + 10 * k for k in range(7)])))
    write("ranks-skew/rank2.json", dump_json(skewed_rank(2, -1234.567, base0 + 10**9, base0, r2)))
    os.makedirs(os.path.join(HERE, "ranks-nocoll"), exist_ok=True)
    write("ranks-nocoll/rank0.json", dump_json(skewed_rank(0, 0, base0, base0, [])))
    write("ranks-nocoll/rank1.json", dump_json(skewed_rank(1, 5000, base0, base0, [])))


def kineto_memory():
    """A profile_memory=True trace without a snapshot: [memory] instants
    (Kineto's args) of 3 allocations and 2 frees on cuda:0, one of them of
    a block allocated before the trace, and a host one."""
    base, t = 1711964646000000000, 4458676984000
    A = 139637976727552
    def mem(ts, addr, nbytes, total, dev_type=1, dev=0):
        return {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 7, "tid": 7,
                "ts": t + ts, "args": {"Total Reserved": 20971520, "Total Allocated": total, "Bytes": nbytes,
                                       "Addr": addr, "Device Id": dev, "Device Type": dev_type}}
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 7, "tid": 7, "ts": t, "dur": 60}]
    ev += [mem(10, A, 2097152, 2097152), mem(20, A + 8388608, 512, 2097664),
           mem(25, 94000000, 64, 64, dev_type=0, dev=-1),
           mem(30, A, -2097152, 512), mem(40, A + 16777216, -1024, 0 - 512),
           mem(50, A, 4194304, 4194304 - 512)]
    return {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "numSms": 132}],
            "profile_memory": 1, "traceEvents": ev, "baseTimeNanoseconds": base}


def dump_json(doc):
    # Kineto writes ts with three decimals; keep that form
    return json.dumps(doc, indent=1).encode()


def real_profiler_trace():
    try:
        import torch
        from torch.profiler import profile, ProfilerActivity, record_function
    except Exception as e:  # noqa
        print("torch not importable; kineto-cpu.json kept as committed:", e, file=sys.stderr)
        return
    x = torch.randn(64, 64)
    # Debian's build has no Kineto: torch.profiler falls back to the legacy
    # profiler, which writes the bare-array Chrome form (no "cat", pid
    # "CPU functions"). That is what this torch writes, so it is the test.
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        for _ in range(2):
            with record_function("model_step"):
                y = (x @ x).relu().sum()
    prof.export_chrome_trace(os.path.join(HERE, "kineto-cpu.json"))


def main():
    a = build_v2()
    d = v2_dict(a)
    for proto in (2, 4, 5):
        write(f"snapshot-v2.p{proto}.pickle", pickle.dumps(d, protocol=proto))
    write("snapshot-v2.json", json.dumps(jsonable(d)).encode())
    jit = jit_pickle(d)
    assert pickle.loads(jit) == d
    write("snapshot-v2.jit.pickle", jit)
    write("snapshot-v2.expected", a.expected().encode())

    # 2.0: blocks with history, a device trace with the legacy "free"
    b = build_v2()
    d20 = v2_dict(b)
    for tr in d20["device_traces"]:
        out = []
        for e in tr:
            e = dict(e)
            e.pop("time_us", None); e.pop("compile_context", None); e.pop("user_metadata", None)
            if e["action"] == "free_requested":
                continue
            if e["action"] == "free_completed":
                e["action"] = "free"
            if e["action"] == "segment_map":
                e["action"] = "segment_alloc"
            out.append(e)
        tr[:] = out
    d20 = {"segments": b.snapshot_segments(legacy=True), "device_traces": d20["device_traces"]}
    write("snapshot-v2.0.p4.pickle", pickle.dumps(d20, protocol=4))
    # the pending-free block becomes completed in the legacy trace: fix the expectation
    exp = b.expected().replace("active_pending_free", "active_allocated")
    write("snapshot-v2.0.expected", exp.encode())

    legacy = build_legacy()
    segs = legacy.snapshot_segments(legacy=True)
    write("snapshot-v1.13.p4.pickle", pickle.dumps(segs, protocol=4))
    write("snapshot-v1.13.json", json.dumps(segs).encode())
    write("snapshot-v1.13.expected", legacy.expected().encode())

    os.makedirs(os.path.join(HERE, "ranks"), exist_ok=True)
    base = 1711964646000000000
    write("ranks/rank0.pt.trace.json", dump_json(kineto(0, base)))
    with open(os.path.join(HERE, "ranks", "worker1.pt.trace.json.gz"), "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
            f.write(dump_json(kineto(1, base)))
    write("kineto-old-absolute.json", dump_json(kineto(0, 0, absolute=True)))

    # a snapshot and a trace of the same run: time_us is on the profiler's
    # clock (base/1000 + ts); the first action is 30 µs into ProfilerStep#0
    os.makedirs(os.path.join(HERE, "together"), exist_ok=True)
    write("together/rank0.pt.trace.json", dump_json(kineto(0, base)))
    run = Allocator(t0=base // 1000 + 4458676984000 + 30 - 7)
    run.segment_alloc(0, BASE, 20 * MB, fr=frames("forward", 42))
    run.alloc(0, BASE, 4 * MB, 4000000, frames("forward", 42))
    run.alloc(0, BASE + 4 * MB, 4 * MB, 4000000, frames("forward", 43))
    run.free(0, BASE)
    write("together/snapshot.pickle", pickle.dumps(
        {"segments": run.snapshot_segments(), "device_traces": [run.traces[0]]}, protocol=4))

    # hostile inputs
    write("hostile-deep.json", b'{"traceEvents":' + b"[" * 100000)
    write("hostile-memo.pickle", b"\x80\x04}\x94h\x07.")
    write("hostile-biglen.pickle", b"\x80\x04\x8d" + (1 << 62).to_bytes(8, "little"))
    # 100000 nested lists: a valid pickle (pickle.loads reads it), not a snapshot
    write("hostile-deep.pickle", b"\x80\x02" + b"](" * 100000 + b"]" + b"e" * 100000 + b".")
    write("hostile-stack.pickle", b"\x80\x02" + b"]" * 200000 + b".")
    write("hostile-global.pickle", b"\x80\x02cos\nsystem\nq\x00.")

    write_skewed_ranks()
    # PyTorch 2.13's record_pinned_host_memory=True adds host_segments and
    # host_traces (PR 182407: the device allocator's machinery reused, so
    # entries are written here in the device traces' form); Tensorscope
    # counts them and says they are not shown
    host = v2_dict(build_v2())
    host["host_segments"] = [{"address": 2 * BASE, "total_size": 2 * MB, "blocks": []}]
    host["host_traces"] = [{"action": "alloc", "addr": 2 * BASE, "size": MB, "time_us": T0 + 1},
                           {"action": "free_requested", "addr": 2 * BASE, "size": MB, "time_us": T0 + 2},
                           {"action": "free_completed", "addr": 2 * BASE, "size": MB, "time_us": T0 + 3}]
    write("snapshot-v2-host.p4.pickle", pickle.dumps(host, protocol=4))
    write("kineto-memory.json", dump_json(kineto_memory()))
    real_profiler_trace()


if __name__ == "__main__":
    main()
