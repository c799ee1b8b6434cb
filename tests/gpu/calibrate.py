# tests/gpu/calibrate.py: the figures of docs/simulation-model.md's GPU profiles, measured.
#
# Runs unchanged under real PyTorch on a GPU, under `tensorscope-cli run --backend=cuda`
# (our kernels on that GPU) and under the simulator (`tensorscope-cli run --no-data
# --gpus 1`), so the three columns come from one script. Times are CUDA-event times,
# the median of REPS after WARM warm-ups. Prints "name value unit" lines.
import os, sys, time
import torch

REPS = int(os.environ.get("CAL_REPS", "10"))
WARM = 3
dev = torch.device("cuda")


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def gpu_ms(fn):
    """Median CUDA-event time of fn() in ms."""
    for _ in range(WARM):
        fn()
    times = []
    for _ in range(REPS):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return median(times)


def report(name, value, unit):
    print(f"{name} {value:.4g} {unit}", flush=True)


def device_facts():
    p = torch.cuda.get_device_properties(0)
    print(f"name {p.name}")
    report("sms", p.multi_processor_count, "")
    report("memory", p.total_memory / 2**20, "MiB")
    report("capability", p.major + p.minor / 10, "")
    report("priority_low_high", 0, str(torch.cuda.Stream(priority=-100).priority))


def bandwidth():
    n = 256 * 2**20                      # 1 GiB of float32
    x = torch.empty(n, device=dev)
    y = torch.empty(n, device=dev)
    z = torch.empty(n, device=dev)
    ms = gpu_ms(lambda: z.add_(y))
    report("add_1GiB_read_write", 3 * 4 * n / ms / 1e9, "TB/s")
    try:
        ms = gpu_ms(lambda: torch.add(x, y, out=z))
        report("add_out_1GiB_read_write", 3 * 4 * n / ms / 1e9, "TB/s")
    except TypeError as e:
        print(f"add(out=) failed: {e}")
    ms = gpu_ms(lambda: z.copy_(x))
    report("copy_d2d_1GiB", 2 * 4 * n / ms / 1e9, "TB/s")
    ms = gpu_ms(lambda: z.fill_(1.0))
    report("fill_1GiB", 4 * n / ms / 1e9, "TB/s")
    ms = gpu_ms(lambda: x.sum())
    report("sum_1GiB", 4 * n / ms / 1e9, "TB/s")
    del x, y, z


def matmuls():
    cases = [("fp32", torch.float32, 8192, False), ("tf32", torch.float32, 8192, True),
             ("bf16", torch.bfloat16, 8192, False), ("fp16", torch.float16, 8192, False),
             ("fp64", torch.float64, 4096, False), ("fp32", torch.float32, 1024, False),
             ("bf16", torch.bfloat16, 1024, False), ("fp32", torch.float32, 256, False)]
    for name, dtype, n, tf32 in cases:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a = torch.empty(n, n, device=dev, dtype=dtype)
        b = torch.empty(n, n, device=dev, dtype=dtype)
        if not os.environ.get("TENSORSCOPE_NO_DATA"):
            a.uniform_()
            b.uniform_()
        ms = gpu_ms(lambda: torch.mm(a, b))
        report(f"mm_{name}_{n}", 2 * n**3 / ms / 1e9, "TFLOP/s")
        del a, b
    torch.backends.cuda.matmul.allow_tf32 = False


def copies():
    n = 256 * 2**20
    d = torch.empty(n, device=dev)
    pinned = torch.empty(n, pin_memory=True)
    pageable = torch.empty(n)
    for name, h in (("pinned", pinned), ("pageable", pageable)):
        ms = gpu_ms(lambda: d.copy_(h, non_blocking=True))
        report(f"h2d_{name}_1GiB", 4 * n / ms / 1e6, "GB/s")
        ms = gpu_ms(lambda: h.copy_(d, non_blocking=True))
        report(f"d2h_{name}_1GiB", 4 * n / ms / 1e6, "GB/s")
    small_d = torch.empty(1, device=dev)
    small_h = torch.empty(1, pin_memory=True)
    ms = gpu_ms(lambda: [small_d.copy_(small_h, non_blocking=True) for _ in range(100)])
    report("h2d_pinned_4B_each_of_100", ms * 1e6 / 100, "ns")
    del d, pinned, pageable


def small_kernels():
    x = torch.zeros(1, device=dev)
    ms = gpu_ms(lambda: [x.add_(1) for _ in range(1000)])
    report("add_1elem_gpu_each_of_1000", ms * 1e6 / 1000, "ns")
    # Launch-bound: the host's cost per op (dispatch + launch), wall clock.
    for _ in range(100):
        x.add_(1)
    torch.cuda.synchronize()
    walls = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(2000):
            x.add_(1)
        torch.cuda.synchronize()
        walls.append((time.perf_counter() - t) / 2000 * 1e9)
    report("add_1elem_host_each", median(walls), "ns")


def kernel_durations():
    """Device durations of single kernels from the profiler (real PyTorch only)."""
    try:
        from torch.profiler import profile, ProfilerActivity
    except Exception as e:                 # noqa: BLE001 (any missing piece)
        print(f"profiler unavailable: {e}")
        return
    x = torch.zeros(1, device=dev)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(200):
            x.add_(1)
        torch.cuda.synchronize()
    launches, kernels = [], []
    for e in prof.events():
        if e.name == "cudaLaunchKernel":
            launches.append(e.cpu_time_total * 1000)
    for e in prof.key_averages():
        if "elementwise" in e.key or "vectorized" in e.key:
            kernels.append(e.device_time_total / max(e.count, 1) * 1000
                           if hasattr(e, "device_time_total") else e.cuda_time_total / max(e.count, 1) * 1000)
    if launches:
        report("cudaLaunchKernel_host", median(launches), "ns")
    if kernels:
        report("shortest_kernel_profiler", kernels[0], "ns")


stages = sys.argv[1:] or ["device_facts", "bandwidth", "matmuls", "copies", "small_kernels",
                          "kernel_durations"]
for s in stages:
    try:
        globals()[s]()
    except Exception as e:                 # noqa: BLE001 (report and go on)
        print(f"{s} failed: {type(e).__name__}: {e}", flush=True)
