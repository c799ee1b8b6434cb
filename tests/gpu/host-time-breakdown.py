#!/usr/bin/env python3
# tests/gpu/host-time-breakdown.py [KINETO.json [REAL_STEP_US]]: where the host time of a
# training step goes, read off a Kineto trace written with with_stack=True
# (tests/data/real/kineto_mlp.json: two Adam steps of the 64-128-128-10 MLP, real PyTorch
# 2.11 on an H200, made by tests/gpu/real-files.py). Standard library only.
#
# Each event's self time (its duration less its children's) is put in one group:
# nn.Module.__call__ machinery, forward bodies, functional wrappers, the Python bindings
# of ops (argument parsing before the dispatcher), aten ops (with or without a launch
# below them), the launch calls, the optimizer's Python, zero_grad, backward()'s entry,
# and on the autograd engine's thread the engine per node and the nodes' formulas.
#
# The profiler inflates what it records: with_stack records every Python call,
# record_shapes every op's shapes, CUPTI every runtime call. Most of that cost falls in
# the gaps of the parent between its children, so each event's self time is deflated by
# c per direct child (at least 0), one c for every kind of event, fitted so that the
# second step's host time equals the step time measured without the profiler
# (REAL_STEP_US, 1138 us: tests/gpu/step_events.py adam on the same H200). c is the
# one fitted figure; the shares between groups are what the trace says.
#
# Two stretches are not host work of the step and are left out, and said so: the
# engine thread's stall in its first node (the profiler flushing its buffers: thousands
# of microseconds inside evaluate_function with no child), and the main thread's wait in
# run_backward while the engine works (the engine's events count instead).
import json
import sys

MAIN_STEP = "mlp_step"
STALL_US = 1000.0          # an engine event whose self time exceeds this is a stall

GROUPS = [
    ("module_call", "nn.Module.__call__ / _call_impl (hook checks, __getattr__)"),
    ("forward_body", "forward bodies (Linear.forward, Sequential.forward...)"),
    ("functional", "functional wrappers (F.relu, F.cross_entropy...)"),
    ("binding", "Python bindings of ops (argument parsing)"),
    ("aten_launch", "aten ops that launch (CPU time outside the launch)"),
    ("aten_nolaunch", "aten ops without a launch (views, t, detach, empty)"),
    ("launch", "launch calls (cudaLaunchKernel, cudaMemsetAsync...)"),
    ("optimizer", "optimizer Python (step wrapper, _init_group, adam(), foreach)"),
    ("zero_grad", "zero_grad (with its dynamo and record_function wrappers)"),
    ("backward_entry", "backward() entry and hand-off to the engine"),
    ("engine_node", "autograd engine per node (evaluate_function, queue)"),
    ("node_formula", "autograd nodes' own C++ (XBackward0, AccumulateGrad)"),
]


def load(path):
    with open(path) as f:
        doc = json.load(f)
    # record_function ranges (user_annotation) are left out: they open inside one call
    # and close inside another, so they do not nest.
    keep = ("python_function", "cpu_op", "cuda_runtime", "cuda_driver")
    return [e for e in doc["traceEvents"] if e.get("ph") == "X" and e.get("cat") in keep]


class Node:
    __slots__ = ("e", "children", "parent", "has_launch")

    def __init__(self, e, parent):
        self.e, self.parent, self.children, self.has_launch = e, parent, [], False

    @property
    def name(self):
        return self.e["name"]

    @property
    def cat(self):
        return self.e["cat"]

    def end(self):
        return self.e["ts"] + self.e["dur"]

    def self_time(self):
        return self.e["dur"] - sum(c.e["dur"] for c in self.children)


def forest(events):
    """One tree per thread: events nest by time (the profiler records them so)."""
    roots = []
    stack = []
    for e in sorted(events, key=lambda e: (e["tid"], e["ts"], -e["dur"])):
        while stack and (stack[-1].e["tid"] != e["tid"] or e["ts"] >= stack[-1].end()):
            stack.pop()
        n = Node(e, stack[-1] if stack else None)
        (stack[-1].children if stack else roots).append(n)
        stack.append(n)
    return roots


def walk(n):
    yield n
    for c in n.children:
        yield from walk(c)


def mark_launches(n):
    n.has_launch = n.cat in ("cuda_runtime", "cuda_driver")
    for c in n.children:
        n.has_launch |= mark_launches(c)
    return n.has_launch


def top_part(n, step):
    """The step's direct child this event sits under: forward, loss, backward..."""
    while n.parent is not None and n.parent is not step:
        n = n.parent
    return n.name


def construct_of(n, step):
    """The construct of the simulator's host-cost model an event of the main thread
    belongs to: the step's part it sits under."""
    top = top_part(n, step)
    for needle, construct in CONSTRUCTS:
        if needle in top:
            return construct
    return "other"


CONSTRUCTS = [
    ("nn.Module:", "module_call"),
    ("functional.py", "loss"),
    ("_tensor.py", "backward_entry"),
    ("optimizer.py", "optimizer_step"),
    ("_compile.py", "zero_grad"),
]
OP_US = 6.0                # what the h200 profile charges per kernel: dispatch + launch


def by_construct(rows, c):
    """Each construct's host time, everything under it, deflated, less what the
    simulator already charges for its kernel launches (OP_US each)."""
    out, launches = {}, {}
    for g, st, n, node, construct in rows:
        us = min(st, LAUNCH_US) if g == "launch" else max(0.0, st - c * n)
        out[construct] = out.get(construct, 0.0) + us
        if node is not None and node.name.startswith("cudaLaunchKernel"):
            launches[construct] = launches.get(construct, 0) + 1
    return {k: (v, launches.get(k, 0), v - OP_US * launches.get(k, 0)) for k, v in out.items()}


def classify_main(n, step):
    name, cat = n.name, n.cat
    if cat in ("cuda_runtime", "cuda_driver"):
        return "launch"
    if cat == "cpu_op":
        return "aten_launch" if n.has_launch else "aten_nolaunch"
    if cat == "user_annotation":
        return None      # record_function ranges: their time is their children's and the gaps
    if name.startswith("<built-in") and any(c.cat == "cpu_op" for c in n.children):
        return "binding"
    top = top_part(n, step)
    if "optimizer.py" in top and "wrapper" in top:
        return "optimizer"
    if "_compile.py" in top or "zero_grad" in top:
        return "zero_grad"
    if "_tensor.py" in top and "backward" in top:
        return "backward_entry"
    if "nn.Module:" in name or "modules/module.py" in name or "_get_tracing_state" in name \
            or "container.py" in name and "__iter__" in name:
        return "module_call"
    if "/modules/" in name and "forward" in name:
        return "forward_body"
    p = n
    while p is not None and p is not step:
        if "nn/functional.py" in p.name or "nn/_reduction.py" in p.name:
            return "functional"
        if "/modules/" in p.name and "forward" in p.name:
            return "forward_body"
        if "modules/module.py" in p.name or "nn.Module:" in p.name:
            return "module_call"
        p = p.parent
    return "functional"


def classify_engine(n):
    if n.cat in ("cuda_runtime", "cuda_driver"):
        return "launch"
    if n.name.startswith("autograd::engine::evaluate_function"):
        return "engine_node"
    if n.parent is not None and n.parent.name.startswith("autograd::engine::evaluate_function"):
        return "node_formula"
    return "aten_launch" if n.has_launch else "aten_nolaunch"


def step_parts(roots, step):
    """(group, self time, direct children) for every event of the step on both threads,
    plus what was left out."""
    t0, t1 = step.e["ts"], step.end()
    rows, left_out = [], {}
    run_backward = None
    for n in walk(step):
        if n is step:
            continue
        if "run_backward" in n.name:
            run_backward = n
            continue
        g = classify_main(n, step)
        if g is not None:
            rows.append((g, n.self_time(), len(n.children), n, construct_of(n, step)))
    engine = [r for r in roots if r.e["tid"] != step.e["tid"] and t0 <= r.e["ts"] < t1
              and r.name.startswith("autograd::engine")]
    for r in engine:
        for n in walk(r):
            g, st = classify_engine(n), n.self_time()
            if g == "engine_node" and st > STALL_US:
                left_out["engine stall (profiler)"] = left_out.get("engine stall (profiler)", 0) + st
                st = 0.0
            rows.append((g, st, len(n.children), n, "autograd_node"))
    # The engine's work between nodes (taking the next task from its queue) is the
    # gap from one top-level node to the next: one more event's worth of overhead.
    for a, b in zip(engine, engine[1:]):
        rows.append(("engine_node", b.e["ts"] - a.end(), 1, None, "autograd_node"))
    if run_backward is not None and engine:
        handoff = (engine[0].e["ts"] - run_backward.e["ts"]) + (run_backward.end() - engine[-1].end())
        rows.append(("backward_entry", handoff, 2, None, "backward_entry"))
        left_out["main thread waiting in run_backward"] = run_backward.e["dur"] - handoff
    return rows, left_out


LAUNCH_US = 3.864          # an empty kernel's launch from C++, no profiler (same H200)


def deflated(rows, c):
    out = {}
    for g, st, n, *_ in rows:
        # A runtime call is measured without the profiler: take that, not c.
        us = min(st, LAUNCH_US) if g == "launch" else max(0.0, st - c * n)
        out[g] = out.get(g, 0.0) + us
    return out


def fit_c(rows, target):
    lo, hi = 0.0, 50.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if sum(deflated(rows, mid).values()) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "tests/data/real/kineto_mlp.json"
    real_step = float(sys.argv[2]) if len(sys.argv) > 2 else 1138.0
    events = load(path)
    roots = forest(events)
    for r in roots:
        mark_launches(r)
    steps = [n for r in roots for n in walk(r) if n.name.endswith(": " + MAIN_STEP)]
    if not steps:
        sys.exit(f"{path}: no Python event named ...: {MAIN_STEP}; was it written with with_stack=True?")
    per_step = [step_parts(roots, s) for s in steps]
    c = fit_c(per_step[-1][0], real_step)
    print(f"{path}: {len(steps)} steps; profiler overhead c = {c:.3f} us per recorded child event "
          f"(fitted: step {len(steps)} = {real_step:.0f} us, the time without the profiler)")
    header = "group".ljust(72) + "".join(f"  step {i + 1} raw  deflated" for i in range(len(steps)))
    print(header)
    raws = [{} for _ in steps]
    defl = [deflated(rows, c) for rows, _ in per_step]
    counts = [{} for _ in steps]
    for i, (rows, _) in enumerate(per_step):
        for g, st, n, *_ in rows:
            raws[i][g] = raws[i].get(g, 0.0) + st
            counts[i][g] = counts[i].get(g, 0) + 1
    for key, label in GROUPS:
        line = f"{label:<72}"
        for i in range(len(steps)):
            line += f"{raws[i].get(key, 0):11.1f} {defl[i].get(key, 0):9.1f}"
        print(line)
    line = "total".ljust(72)
    for i in range(len(steps)):
        line += f"{sum(raws[i].values()):11.1f} {sum(defl[i].values()):9.1f}"
    print(line)
    for i, (_, left_out) in enumerate(per_step):
        for what, us in left_out.items():
            print(f"step {i + 1}: left out {what}: {us:.1f} us")
    print("step durations as recorded: " + ", ".join(f"{s.e['dur']:.1f} us" for s in steps))
    print("the figures below are the last step's: the first one under the profiler also pays its "
          "start (CUPTI's buffer requests, first launches)")
    last = steps[-1]
    n_modules = sum(1 for n in walk(last) if n.name.startswith("nn.Module:"))
    n_nodes = sum(1 for r in roots if r.e["tid"] != last.e["tid"] and last.e["ts"] <= r.e["ts"] < last.end()
                  and r.name.startswith("autograd::engine::evaluate_function"))
    n_launch = sum(1 for n in walk(last) if n.cat == "cuda_runtime") + \
        sum(1 for r in roots if r.e["tid"] != last.e["tid"] and last.e["ts"] <= r.e["ts"] < last.end()
            for n in walk(r) if n.cat == "cuda_runtime")
    d = defl[-1]
    print(f"step {len(steps)}, per unit (deflated): {n_modules} module calls, {n_nodes} engine nodes, "
          f"{n_launch} runtime calls")
    print(f"  module call + forward body + functional, per module call: "
          f"{(d.get('module_call', 0) + d.get('forward_body', 0) + d.get('functional', 0)) / max(1, n_modules):.1f} us")
    print(f"  engine per node (engine + node formula): "
          f"{(d.get('engine_node', 0) + d.get('node_formula', 0)) / max(1, n_nodes):.1f} us")
    print(f"  backward entry: {d.get('backward_entry', 0):.1f} us; optimizer step: {d.get('optimizer', 0):.1f} us; "
          f"zero_grad: {d.get('zero_grad', 0):.1f} us")
    # The optimizer's per-parameter Python: the calls made at least once per
    # parameter (the _init_group loop, _get_value of each step count, the genexprs
    # over the lists); the rest is per group (one group here).
    n_params = sum(1 for r in roots if r.e["tid"] != last.e["tid"] and last.e["ts"] <= r.e["ts"] < last.end()
                   and "AccumulateGrad" in r.name)
    opt_rows = [(st, n, node) for g, st, n, node, _ in per_step[-1][0] if g == "optimizer"]
    calls = {}
    for _, _, node in opt_rows:
        calls[node.name] = calls.get(node.name, 0) + 1
    per_param = sum(max(0.0, st - c * n) for st, n, node in opt_rows if calls[node.name] >= n_params)
    print(f"  optimizer: {n_params} parameters, {per_param / max(1, n_params):.1f} us per parameter, "
          f"{d.get('optimizer', 0) - per_param:.1f} us per group")
    print(f"step {len(steps)} by construct (deflated; everything under it; the launches; "
          f"less {OP_US} us per launch, the simulator's dispatch + launch):")
    bc = by_construct(per_step[-1][0], c)
    units = {"module_call": n_modules, "autograd_node": n_nodes}
    for k, (us, nl, rest) in sorted(bc.items()):
        per = units.get(k, 1)
        print(f"  {k:<16}{us:9.1f} us {nl:3d} launches {rest:9.1f} us left, {rest / max(1, per):8.1f} us "
              f"per {'call' if per == 1 else 'unit'} ({per})")
    print(f"  binding + aten + launch, per runtime call: "
          f"{(d.get('binding', 0) + d.get('aten_launch', 0) + d.get('aten_nolaunch', 0) + d.get('launch', 0)) / max(1, n_launch):.1f} us")
    rest = {k: v[2] for k, v in bc.items()}
    figures = [
        ("module_call", rest.get("module_call", 0) / max(1, n_modules)),
        ("backward_entry", rest.get("backward_entry", 0)),
        ("autograd_node", rest.get("autograd_node", 0) / max(1, n_nodes)),
        ("optimizer_step", rest.get("optimizer_step", 0) - per_param),
        ("optimizer_param", per_param / max(1, n_params)),
        ("zero_grad", rest.get("zero_grad", 0)),
    ]
    print("host-cost figures for the profile (TS_HOST_COST_*, ns):")
    for name, us in figures:
        print(f"  {name:<16}{us * 1000:8.0f}")
    print(f"  (not modelled: the loss outside any module, {rest.get('loss', 0):.1f} us)")


if __name__ == "__main__":
    main()
