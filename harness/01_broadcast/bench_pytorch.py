#!/usr/bin/env python3
"""PyTorch's a.add_(b) on lab 01's benchmark shapes, for lab01_bench --pytorch-json.

a is (rows, 4096) fp32 and b is (4096,), broadcast over the rows: the job the
lab's kernels do. Times each shape with torch.cuda.Event after a warm-up, with
the L2 flushed before every timed run, and prints (or writes with --out) JSON:

  {"tool": "bench_pytorch.py", "torch_version": "...", "device": "...", "repeats": 20,
   "figures": [{"shape": [rows, 4096], "bytes": ..., "time_ms": ...}, ...]}

bytes = 4 * (rows*4096 + 4096 + rows*4096): read a, read b, write a, the count
lab01_bench uses. Keep COLUMNS and ROWS equal to kColumns and kRows in bench_main.cu.
"""
import argparse
import json
import statistics
import sys

COLUMNS = 4096
ROWS = [512, 2048, 8192, 16384, 65536]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="write the JSON here instead of stdout")
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()

    try:
        import torch
    except ImportError:
        sys.exit("bench_pytorch.py: PyTorch is not installed")
    if not torch.cuda.is_available():
        sys.exit("bench_pytorch.py: PyTorch sees no CUDA device")

    device = torch.device("cuda")
    l2_bytes = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 64 << 20)
    flush = torch.empty(2 * l2_bytes, dtype=torch.uint8, device=device)
    b = torch.rand(COLUMNS, device=device)
    figures = []
    for rows in ROWS:
        a = torch.zeros(rows, COLUMNS, device=device)
        for _ in range(3):  # warm-up
            a.add_(b)
        times = []
        for r in range(args.repeats):
            flush.fill_(r & 0xFF)
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            start.record()
            a.add_(b)
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
        figures.append({
            "shape": [rows, COLUMNS],
            "bytes": 4 * (2 * rows * COLUMNS + COLUMNS),
            "time_ms": statistics.median(times),
        })
        del a

    result = {
        "tool": "bench_pytorch.py",
        "torch_version": torch.__version__,
        "device": torch.cuda.get_device_name(device),
        "repeats": args.repeats,
        "figures": figures,
    }
    text = json.dumps(result, indent=2)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
