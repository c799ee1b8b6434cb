"""The profiler's events, built from the run's own trace.

Tensorscope already records every CUDA call, operator span, kernel, copy
and allocator action of the run (ts-record.h); a profiler window reads the
records made inside it (torch._C._trace_records) and arranges them as
PyTorch's FunctionEvents: operators nest by time on their thread, a device
event belongs to the operator with its correlation id, and a table groups
them by name as torch.autograd.profiler_util does.

Times are the simulator's virtual nanoseconds, shown in microseconds as
PyTorch shows them. CPU-only operators are not timed by the simulator, so
they do not appear: a window without CUDA work has no events.
"""

import json
import os

from torch._C import _trace_records

ALLOC, FREE_REQUESTED = 1, 2
PINNED = 1
# Kineto's names of copies, by TsCopyKind: (pageable host, pinned host)
_COPY_NAMES = {1: ("Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD (Pinned -> Device)"),
               2: ("Memcpy DtoH (Device -> Pageable)", "Memcpy DtoH (Device -> Pinned)"),
               3: ("Memcpy DtoD (Device -> Device)",) * 2,
               4: ("Memcpy PtoP (Device -> Device)",) * 2,
               5: ("Memcpy HtoH (Pageable -> Pageable)", "Memcpy HtoH (Pinned -> Pinned)")}


class DeviceType:
    CPU = "CPU"
    CUDA = "CUDA"


def _format_time(time_us):
    if time_us >= 1e6:
        return "{:.3f}s".format(time_us / 1e6)
    if time_us >= 1e3:
        return "{:.3f}ms".format(time_us / 1e3)
    return "{:.3f}us".format(time_us)


def _format_time_share(time_us, total_us):
    if total_us == 0:
        return "NaN"
    return "{:.2f}%".format(time_us * 100.0 / total_us)


def _format_memory(nbytes):
    for unit, size in (("Gb", 1 << 30), ("Mb", 1 << 20), ("Kb", 1 << 10)):
        if abs(nbytes) >= size:
            return "{:.2f} {}".format(nbytes / size, unit)
    return str(nbytes) + " b"


class Interval:
    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start


class _Timed:
    """What FunctionEvent and FunctionEventAvg share: the *_str forms."""

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def cuda_time(self):
        return 0.0 if self.count == 0 else self.cuda_time_total / self.count

    def __getattr__(self, name):
        if name.endswith("_str") and not name.startswith("_"):
            return _format_time(getattr(self, name[:-4]))
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))


class FunctionEvent(_Timed):
    def __init__(self, id, name, thread, start_us, end_us, device_type=DeviceType.CPU, device_index=0,
                 correlation=0, is_user_annotation=False):
        self.id = id
        self.name = name
        self.key = name
        self.thread = thread
        self.time_range = Interval(start_us, end_us)
        self.device_type = device_type
        self.device_index = device_index
        self.correlation = correlation
        self.is_user_annotation = is_user_annotation
        self.cpu_children = []
        self.cpu_parent = None
        self.kernels = []
        self.count = 1
        self.node_id = -1
        self.is_async = False
        self.is_legacy = False
        self.input_shapes = None
        self.stack = []
        self.flops = 0
        self.self_cuda_memory_usage = 0
        self.self_cpu_memory_usage = 0

    @property
    def self_cpu_time_total(self):
        if self.device_type != DeviceType.CPU:
            return 0
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time_total(self):
        return 0 if self.device_type != DeviceType.CPU else self.time_range.elapsed_us()

    @property
    def self_cuda_time_total(self):
        if self.device_type == DeviceType.CUDA:
            return self.time_range.elapsed_us()
        return sum(k.time_range.elapsed_us() for k in self.kernels)

    @property
    def cuda_time_total(self):
        if self.device_type == DeviceType.CUDA:
            return self.time_range.elapsed_us()
        return self.self_cuda_time_total + sum(c.cuda_time_total for c in self.cpu_children)

    @property
    def cuda_memory_usage(self):
        return self.self_cuda_memory_usage + sum(c.cuda_memory_usage for c in self.cpu_children)

    @property
    def cpu_memory_usage(self):
        return self.self_cpu_memory_usage + sum(c.cpu_memory_usage for c in self.cpu_children)

    def __repr__(self):
        return ("<FunctionEvent id={} name={} device_type={} cpu_time={} start_us={} end_us={} "
                "cuda_time={}>".format(self.id, self.name, self.device_type, self.cpu_time_str,
                                       self.time_range.start, self.time_range.end, self.cuda_time_str))


class FunctionEventAvg(_Timed):
    _SUMMED = ("count", "self_cpu_time_total", "cpu_time_total", "self_cuda_time_total", "cuda_time_total",
               "cpu_memory_usage", "self_cpu_memory_usage", "cuda_memory_usage", "self_cuda_memory_usage", "flops")

    def __init__(self, evt):
        self.key = evt.key
        self.device_type = evt.device_type
        self.node_id = -1
        self.is_async = False
        self.is_legacy = False
        self.input_shapes = None
        self.stack = []
        self.cpu_parent = evt.cpu_parent
        for name in self._SUMMED:
            setattr(self, name, 0)

    def add(self, evt):
        for name in self._SUMMED:
            setattr(self, name, getattr(self, name) + getattr(evt, name))
        return self

    def __repr__(self):
        return "<FunctionEventAvg key={} self_cpu_time={} cpu_time={} self_cuda_time={} cuda_time={}>".format(
            self.key, self.self_cpu_time_total_str, self.cpu_time_str, self.self_cuda_time_total_str,
            self.cuda_time_str)


class EventList(list):
    def __init__(self, events=(), profile_memory=False):
        super().__init__(events)
        self._profile_memory = profile_memory

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        if group_by_input_shape or group_by_stack_n:
            from torch._unmodeled import unsupported
            raise unsupported("key_averages(group_by_input_shape=/group_by_stack_n=)",
                              "the trace records neither input shapes nor Python stacks of operators")
        groups = {}
        for evt in self:
            key = (evt.key, evt.device_type)
            if key not in groups:
                groups[key] = FunctionEventAvg(evt)
            groups[key].add(evt)
        return EventList(groups.values(), profile_memory=self._profile_memory)

    def total_average(self):
        total = None
        for evt in self:
            if total is None:
                total = FunctionEventAvg(evt)
                total.key = "Total"
            total.add(evt)
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False):
        return _build_table(self, sort_by, header, row_limit, max_name_column_width, self._profile_memory,
                            top_level_events_only)

    def export_chrome_trace(self, path):
        _write_chrome_trace(self, path)


def _build_table(events, sort_by, header, row_limit, max_name_width, profile_memory, top_level_only):
    """The table of torch.autograd.profiler_util._build_table, columns and
    number formats alike."""
    if len(events) == 0:
        return ""
    has_cuda_time = any(e.self_cuda_time_total > 0 for e in events)
    has_cuda_mem = any(e.self_cuda_memory_usage > 0 for e in events)
    if sort_by is not None:
        events = sorted(events, key=lambda e: getattr(e, sort_by), reverse=True)
    name_width = max(len(e.key) for e in events) + 4
    if max_name_width is not None:
        name_width = min(name_width, max_name_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if has_cuda_time:
        headers += ["Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
        if has_cuda_mem:
            headers += ["CUDA Mem", "Self CUDA Mem"]
    headers.append("# of Calls")
    widths = [name_width] + [12] * (len(headers) - 1)
    row_format = "".join("{: >%d}  " % w for w in widths)
    sep = "".join("-" * w + "  " for w in widths)
    line_length = sum(w + 2 for w in widths) - 2
    sum_self_cpu = sum(e.self_cpu_time_total for e in events)
    sum_self_cuda = sum(e.self_cuda_time_total for e in events if e.device_type == DeviceType.CUDA)
    out = []
    if header is not None:
        out += ["=" * line_length, header]
    if top_level_only:
        out += ["=" * line_length, "This report only display top-level ops statistics"]
    out += [sep, row_format.format(*headers), sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_width is not None and len(name) >= max_name_width - 3:
            name = name[:max_name_width - 3] + "..."
        row = [name, _format_time_share(e.self_cpu_time_total, sum_self_cpu), _format_time(e.self_cpu_time_total),
               _format_time_share(e.cpu_time_total, sum_self_cpu), _format_time(e.cpu_time_total),
               _format_time(e.cpu_time)]
        if has_cuda_time:
            row += [_format_time(e.self_cuda_time_total), _format_time_share(e.self_cuda_time_total, sum_self_cuda),
                    _format_time(e.cuda_time_total), _format_time(e.cuda_time)]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
            if has_cuda_mem:
                row += [_format_memory(e.cuda_memory_usage), _format_memory(e.self_cuda_memory_usage)]
        row.append(e.count)
        out.append(row_format.format(*row))
    out.append(sep)
    out.append("Self CPU time total: {}".format(_format_time(sum_self_cpu)))
    if has_cuda_time:
        out.append("Self CUDA time total: {}".format(_format_time(sum_self_cuda)))
    return "".join(line + "\n" for line in out)


def _us(ns):
    return ns / 1000.0


def _nesting_rank(evt):
    """Among CPU events of one span, who is outside: a record_function
    range, then an operator, then the CUDA runtime call it made."""
    if evt.is_user_annotation:
        return 0
    return 2 if evt.name.startswith("cuda") else 1


def _within(c, p):
    """c happened inside p. A span at an instant (an autograd node that
    launched nothing) on p's start happened just before p; on its end,
    inside it (c was recorded before p ended: the last AccumulateGrad of
    a backward() in a record_function range, which steals its gradient
    and launches nothing)."""
    cr, pr = c.time_range, p.time_range
    if not (pr.start <= cr.start and cr.end <= pr.end):
        return False
    if cr.start == cr.end and pr.start != pr.end:
        return pr.start < cr.start <= pr.end
    if pr.start == pr.end:
        # an instant holds only the node its evaluate_function wraps
        return p.name.startswith("autograd::engine::evaluate_function: ")
    return True


def _nest(cpu_events):
    """Spans are recorded when they end, so a parent comes after its
    children: walking the records in that order, a span adopts the spans
    just before it that lie within it. Same-time spans nest in the order
    they were made, which times alone cannot tell."""
    by_thread = {}
    for e in cpu_events:
        by_thread.setdefault(e.thread, []).append(e)
    for events in by_thread.values():
        events.sort(key=lambda e: e.order)
        pending = []
        for e in events:
            kids = []
            while pending and _within(pending[-1], e):
                kids.append(pending.pop())
            for k in reversed(kids):
                k.cpu_parent = e
                e.cpu_children.append(k)
            pending.append(e)


def _attribute_memory(cpu, allocs):
    """Each block allocated or freed goes to the innermost operator of the
    host thread that spans its instant. An allocation happens as its
    operator starts, before the launch (runtime calls are skipped); a free
    happens when Python drops the last reference, between operators, so it
    goes to an operator (or record_function range) only from inside it."""
    ops = sorted((e for e in cpu if e.thread == 0 and _nesting_rank(e) < 2),
                 key=lambda e: (e.time_range.start, -e.time_range.end, _nesting_rank(e)))
    actions = sorted((r for r in allocs if r["action"] in (ALLOC, FREE_REQUESTED)), key=lambda r: r["time"])
    stack = []
    i = 0
    for r in actions:
        t = _us(r["time"])
        while i < len(ops) and ops[i].time_range.start <= t:
            stack.append(ops[i])
            i += 1
        while stack and stack[-1].time_range.end <= t and stack[-1].time_range.start < t:
            stack.pop()
        if r["action"] == ALLOC:
            owner = next((e for e in reversed(stack) if e.time_range.start <= t < e.time_range.end), None) or \
                next((e for e in reversed(stack) if e.time_range.start <= t <= e.time_range.end), None)
        else:
            owner = next((e for e in reversed(stack) if e.time_range.start < t < e.time_range.end), None)
        if owner is not None:
            owner.self_cuda_memory_usage += r["size"] if r["action"] == ALLOC else -r["size"]


class Window:
    """The record indices at a profiler's start: what comes after is its."""

    KINDS = ("api-call", "kernel", "memcpy", "memset", "alloc")

    def __init__(self):
        from torch._C import _trace_count, _trace_hold
        # a streamed trace keeps the window's records in memory until release()
        _trace_hold(True)
        self.first = {k: _trace_count(k) for k in self.KINDS}
        self.annotations = []

    def release(self):
        from torch._C import _trace_hold
        _trace_hold(False)

    def events(self, profile_memory=False):
        ident = [0]

        def new_id():
            ident[0] += 1
            return ident[0]

        cpu = []
        by_correlation = {}
        for order, r in enumerate(_trace_records("api-call", self.first["api-call"])):
            e = FunctionEvent(new_id(), r["name"], r["thread"], _us(r["start"]), _us(r["end"]),
                              correlation=r["correlation"])
            e.order = order
            cpu.append(e)
            # the operator, not the runtime call under it, owns the device work
            owner = by_correlation.get(r["correlation"])
            if owner is None or _nesting_rank(owner) > _nesting_rank(e):
                by_correlation[r["correlation"]] = e
        for name, thread, start, end, n_records in self.annotations:
            e = FunctionEvent(new_id(), name, thread, _us(start), _us(end), is_user_annotation=True)
            e.order = n_records - self.first["api-call"] - 0.5     # after what was recorded inside it
            cpu.append(e)
        _nest(cpu)
        device = []
        for kind in ("kernel", "memcpy", "memset"):
            for r in _trace_records(kind, self.first[kind]):
                owner = by_correlation.get(r["correlation"])
                if owner is None:
                    continue      # launched before the window opened
                if kind == "kernel":
                    name = r["name"]
                elif kind == "memcpy":
                    name = _COPY_NAMES.get(r["kind"], ("Memcpy",) * 2)[1 if r["flags"] & PINNED else 0]
                else:
                    name = "Memset (Device)"
                d = FunctionEvent(new_id(), name, r["stream"], _us(r["start"]), _us(r["end"]),
                                  device_type=DeviceType.CUDA, device_index=r["device"],
                                  correlation=r["correlation"])
                d.kind = kind
                d.cpu_parent = owner
                owner.kernels.append(d)
                device.append(d)
        if profile_memory:
            _attribute_memory(cpu, _trace_records("alloc", self.first["alloc"]))
        events = sorted(cpu, key=lambda e: (e.time_range.start, e.id)) + device
        return EventList(events, profile_memory=profile_memory)


def _write_chrome_trace(events, path):
    """Kineto's JSON: operators and runtime calls on their threads, device
    work per device and stream, and ac2g flows from launch to kernel. The
    file opens in Perfetto, chrome://tracing and Tensorscope itself."""
    pid = os.getpid()
    out = []
    for e in events:
        if e.device_type == DeviceType.CPU:
            cat = "user_annotation" if e.is_user_annotation else (
                "cuda_runtime" if e.name.startswith("cuda") else "cpu_op")
            out.append({"ph": "X", "cat": cat, "name": e.name, "pid": pid, "tid": e.thread,
                        "ts": e.time_range.start, "dur": e.time_range.elapsed_us(),
                        "args": {"External id": e.id, "correlation": e.correlation} if e.correlation else
                        {"External id": e.id}})
            if cat == "cuda_runtime" and e.correlation:
                out.append({"ph": "s", "id": e.correlation, "pid": pid, "tid": e.thread,
                            "ts": e.time_range.start, "cat": "ac2g", "name": "ac2g"})
        else:
            cat = {"kernel": "kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset"}[e.kind]
            out.append({"ph": "X", "cat": cat, "name": e.name, "pid": e.device_index, "tid": e.thread,
                        "ts": e.time_range.start, "dur": e.time_range.elapsed_us(),
                        "args": {"device": e.device_index, "stream": e.thread, "correlation": e.correlation,
                                 "External id": e.cpu_parent.id}})
            out.append({"ph": "f", "id": e.correlation, "pid": e.device_index, "tid": e.thread,
                        "ts": e.time_range.start, "cat": "ac2g", "name": "ac2g", "bp": "e"})
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": out, "displayTimeUnit": "ms"}, f)
