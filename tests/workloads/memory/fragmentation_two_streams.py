# fragmentation_two_streams.py: memory that is free but cannot be used
#
# Interleaved lifetimes on two streams leave every cached segment split:
# each 600 MiB activation is freed and a 350 MiB result takes the front of
# its block on the same stream, so a 250 MiB tail stays cached in every
# segment. A 2 GiB request then fails although about 5 GiB is free in
# total: no single free block is large enough, free blocks never merge
# across segments, a stream never takes another stream's cached blocks, and
# empty_cache can only return whole unused segments.
#
# Run on a GTX 1080 Ti sized device (11 GiB):
#   tensorscope-cli run --gpus 1 --gpu-model gtx1080ti tests/workloads/memory/fragmentation_two_streams.py -o frag.tstrace
#   tensorscope-cli memory frag.tstrace --at oom --summary
#   tensorscope-cli render frag.tstrace --view segments --at oom -o segments.png
#
# tests/test-memory-views.c runs the same steps on the C allocator. The
# gallery's fragmentation.py tells the same story on the default GPU.

import torch

MiB = 1 << 20


def main():
    dev = torch.device("cuda:0")
    side = torch.cuda.Stream()
    streams = [torch.cuda.current_stream(), side]

    activations = []
    for k in range(16):
        with torch.cuda.stream(streams[k % 2]):
            activations.append(torch.empty(600 * MiB, dtype=torch.uint8, device=dev))

    results, side_tensors = [], []
    for k in range(16):
        activations[k] = None  # freed: its 600 MiB block stays cached
        with torch.cuda.stream(streams[k % 2]):
            results.append(torch.empty(350 * MiB, dtype=torch.uint8, device=dev))
        if k % 2 == 0:
            with torch.cuda.stream(streams[1 if k % 4 == 0 else 0]):
                side_tensors.append(torch.empty(4 * MiB, dtype=torch.uint8, device=dev))

    print(f"allocated {torch.cuda.memory_allocated() / 2**30:.2f} GiB, "
          f"reserved {torch.cuda.memory_reserved() / 2**30:.2f} GiB")
    try:
        big = torch.empty(2 << 30, dtype=torch.uint8, device=dev)
    except torch.OutOfMemoryError as e:
        print("OutOfMemoryError:", e)
    side_tensors.clear()


main()
