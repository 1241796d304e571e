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
Each figure: name, version, shape, bytes, time_ms (timed by pytorch_bench).
The three spins also come with a timeline (spans from torch.cuda.Event).
"""
import functools
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "common", "harness"))
import pytorch_bench  # noqa: E402

SPIN_MS = 20.0
CHUNKS, SIZE, MATMULS = 8, 2048, 8


@functools.cache
def spin_cycles(torch, device):
    """torch.cuda._sleep's cycles for SPIN_MS, from the median of 5 sleeps of 10^7 cycles."""
    cycles = 10_000_000
    no_flush = torch.empty(1, dtype=torch.uint8, device=device)  # a sleep does not touch L2
    ms = pytorch_bench.median_ms(torch, lambda: torch.cuda._sleep(cycles), no_flush, 5)
    return int(cycles / ms * SPIN_MS)


def three_spins_work(torch, cycles, events=None):
    """Spins on s, the default stream, s; with `events`, each spin's (row, name, begin, end)."""
    s = torch.cuda.Stream()
    default = torch.cuda.current_stream()

    def work():
        for name, stream in (("spin 1", s), ("spin 2", default), ("spin 3", s)):
            with torch.cuda.stream(stream):
                begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                begin.record()
                torch.cuda._sleep(cycles)
                end.record()
                if events is not None:
                    events.append(("s" if stream is s else "default", name, begin, end))
        default.wait_stream(s)

    return work


def pipeline_work(torch, device, streams_count):
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

    return work, 2 * host_in.numel() * 4


def cases(torch, device):
    yield ([3], 0, three_spins_work(torch, spin_cycles(torch, device)),
           {"name": "three_spins", "version": "torch_three_spins"})
    for k in (1, 2, 4, 8):
        work, bytes_moved = pipeline_work(torch, device, k)
        yield ([CHUNKS, SIZE, SIZE], bytes_moved, work,
               {"name": "pipeline", "version": f"torch_{k}_streams"})


def three_spins_timeline(torch, device, args, time_ms):
    """One more run of the three spins, its spans from their events."""
    events = []
    three_spins_work(torch, spin_cycles(torch, device), events)()
    torch.cuda.synchronize()
    return {"timelines": [pytorch_bench.timeline("three spins, PyTorch (torch.cuda.Stream)", events,
                                                 "kernel")]}


if __name__ == "__main__":
    pytorch_bench.main(__doc__.splitlines()[0], cases, extra_results=three_spins_timeline)
