#!/usr/bin/env python3
"""PyTorch's versions of lab 03's experiments, for lab03_bench --pytorch-json.

  three_spins  torch_three_spins: torch.cuda._sleep on s (torch.cuda.Stream(),
               non-blocking), on the default stream, on s again, each about
               20 ms (cycles calibrated first); the lecture's 41.9 ms on the H200.
  pipeline     torch_<k>_streams: 8 chunks of a pinned (8, 2048, 2048) fp32
               tensor, each copied in (non_blocking=True), multiplied 8 times
               by a 2048 x 2048 matrix and copied back into pinned memory, on
               k = 1, 2, 4, 8 torch.cuda.Stream()s round robin (each chunk's
               tensors are allocated on its stream: no record_stream needed).
Each figure: name, version, shape, bytes, time_ms (median of --repeats).
The three spins also come with a timeline (spans from torch.cuda.Event).
"""
import argparse
import json
import statistics
import sys

SPIN_MS = 20.0
CHUNKS, SIZE, MATMULS = 8, 2048, 8


def timed(torch, work, repeats):
    work()
    times = []
    for _ in range(repeats):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        work()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def sleep_cycles_per_ms(torch):
    cycles = 10_000_000
    ms = timed(torch, lambda: torch.cuda._sleep(cycles), 5)
    return cycles / ms


def three_spins(torch, repeats):
    cycles = int(sleep_cycles_per_ms(torch) * SPIN_MS)
    s = torch.cuda.Stream()
    default = torch.cuda.current_stream()
    events = []

    def work(record=False):
        for name, stream in (("spin 1", s), ("spin 2", default), ("spin 3", s)):
            with torch.cuda.stream(stream):
                begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                begin.record()
                torch.cuda._sleep(cycles)
                end.record()
                if record:
                    events.append(("s" if stream is s else "default", name, begin, end))
        default.wait_stream(s)

    ms = timed(torch, work, repeats)
    events.clear()
    work(record=True)
    torch.cuda.synchronize()
    origin = events[0][2]
    rows = {}
    for row, name, begin, end in events:
        rows.setdefault(row, []).append({"name": name, "start_ms": origin.elapsed_time(begin),
                                         "end_ms": origin.elapsed_time(end), "kind": "kernel"})
    timeline = {"name": "three spins, PyTorch (torch.cuda.Stream)",
                "rows": [{"name": k, "spans": v} for k, v in rows.items()]}
    return {"name": "three_spins", "version": "torch_three_spins", "shape": [3], "bytes": 0,
            "time_ms": ms}, timeline


def pipeline(torch, streams_count, repeats):
    device = torch.device("cuda")
    host_in = torch.rand(CHUNKS, SIZE, SIZE).pin_memory()
    host_out = torch.empty(CHUNKS, SIZE, SIZE).pin_memory()
    weight = torch.rand(SIZE, SIZE, device=device) / SIZE
    streams = [torch.cuda.Stream() for _ in range(streams_count)]
    default = torch.cuda.current_stream()

    def work():
        for c in range(CHUNKS):
            stream = streams[c % streams_count]
            stream.wait_stream(default)
            with torch.cuda.stream(stream):
                x = host_in[c].to(device, non_blocking=True)
                for _ in range(MATMULS):
                    x = x @ weight
                host_out[c].copy_(x, non_blocking=True)
        for stream in streams:
            default.wait_stream(stream)

    ms = timed(torch, work, repeats)
    return {"name": "pipeline", "version": f"torch_{streams_count}_streams",
            "shape": [CHUNKS, SIZE, SIZE], "bytes": 2 * host_in.numel() * 4, "time_ms": ms}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="write the JSON here instead of stdout")
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        sys.exit("bench_pytorch.py: PyTorch is not installed")
    if not torch.cuda.is_available():
        sys.exit("bench_pytorch.py: PyTorch sees no CUDA device")
    spins, timeline = three_spins(torch, args.repeats)
    figures = [spins] + [pipeline(torch, k, args.repeats) for k in (1, 2, 4, 8)]
    result = {"tool": "bench_pytorch.py", "torch_version": torch.__version__,
              "device": torch.cuda.get_device_name(), "repeats": args.repeats,
              "figures": figures, "timelines": [timeline]}
    text = json.dumps(result, indent=2)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
