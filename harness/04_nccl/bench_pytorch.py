#!/usr/bin/env python3
"""torch.distributed's all_reduce and broadcast on every visible GPU, for lab04_bench --pytorch-json.

Exercise 6: the same collectives as the lecture's torch.distributed.broadcast,
through PyTorch's NCCL backend, one process per GPU (what torchrun would
start), in place on float32 tensors of S bytes. Each time is the median over
REPEATS runs of the slowest rank, every run started together after a barrier,
as lab04_bench times NCCL; #wrong counts elements that differ from the
expected result after the last run. Keep SIZES equal to kSizes in
bench_main.cu. Writes {"torch_version", "world_size", "figures": [{"collective",
"bytes", "time_ms", "wrong"}]}, or {"error": ...} when PyTorch, CUDA or NCCL
cannot run here.
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "common", "harness"))
import pytorch_bench  # noqa: E402

SIZES = [1 << 10, 1 << 15, 1 << 20, 1 << 24, 1 << 26, 1 << 28, 1 << 30]
REPEATS = 20


def timed_runs(torch, dist, operation, reset):
    """Milliseconds of each run after a warm-up, the slowest rank's."""
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    times = []
    for run in range(REPEATS + 1):
        reset()
        dist.barrier()
        start.record()
        operation()
        end.record()
        end.synchronize()
        if run > 0:
            times.append(start.elapsed_time(end))
    slowest = torch.tensor(times, device="cuda")
    dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
    return slowest.tolist()


def worker(rank, world, port, out):
    import torch
    import torch.distributed as dist

    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world, device_id=torch.device("cuda", rank))
    figures = []
    total = world * (world + 1) / 2
    for collective in ("all_reduce", "broadcast"):
        for size in SIZES:
            x = torch.empty(size // 4, device="cuda")
            if collective == "all_reduce":
                times = timed_runs(torch, dist, lambda: dist.all_reduce(x), lambda: x.fill_(rank + 1))
                wrong = int((x != total).sum())
            else:
                times = timed_runs(torch, dist, lambda: dist.broadcast(x, src=0),
                                   lambda: x.fill_(rank + 1))
                wrong = int((x != 1).sum())
            counts = torch.tensor([wrong], device="cuda")
            dist.all_reduce(counts)
            figures.append({"collective": collective, "bytes": size,
                            "time_ms": statistics.median(times), "wrong": int(counts.item())})
    if rank == 0:
        with open(out, "w") as f:
            json.dump({"torch_version": torch.__version__, "world_size": world,
                       "repeats": REPEATS, "figures": figures}, f, indent=1)
    dist.destroy_process_group()


def main(out):
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp

    if not torch.cuda.is_available():
        raise RuntimeError("torch.cuda.is_available() is False")
    if not dist.is_nccl_available():
        raise RuntimeError("this PyTorch has no NCCL backend")
    mp.spawn(worker, args=(torch.cuda.device_count(), pytorch_bench.free_port(), out),
             nprocs=torch.cuda.device_count())


if __name__ == "__main__":
    pytorch_bench.main_or_error(__doc__.splitlines()[0], main)
