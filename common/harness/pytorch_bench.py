"""PyTorch's time for a lab's job, measured the way cudalab::harness::BenchRun
measures the lab's kernels: a warm-up, then the median of --repeats runs timed
with torch.cuda.Event, the L2 flushed before each. A lab's bench_pytorch.py
describes its cases and calls main(); `./lab bench NN` runs it and hands the
JSON to the lab's bench program (--pytorch-json):

  {"tool": "bench_pytorch.py", "torch_version": "...", "device": "...", "repeats": 20,
   "figures": [{"shape": [...], "bytes": ..., "time_ms": ...}, ...]}

(plus "version" and "flops" in a figure when the lab's cases give them,
"skipped": the versions runs() found unable to run here, and the keys a
lab's extra_results adds, e.g. "timelines" made by timeline()).
main_or_error() is main() for a script that writes its own JSON (lab 04's
torch.distributed, one process per GPU).
"""
import argparse
import json
import socket
import statistics
import sys

SKIPPED = []


def runs(version, check):
    """Whether `version` runs here: check() runs it once and compares it
    with its reference (raising when it differs). A version this PyTorch
    build or GPU does not have, or that gives a wrong result, is named under
    "skipped" with the first line of why, and not timed."""
    try:
        check()
        return True
    except Exception as error:
        SKIPPED.append(f"{version}: {str(error).splitlines()[0][:200]}")
        return False


def median_ms(torch, work, flush, repeats):
    for _ in range(3):  # warm-up
        work()
    times = []
    for r in range(repeats):
        flush.fill_(r & 0xFF)
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        work()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def timeline(name, events, kind):
    """A result file's timeline (as BenchRun::merge_pytorch_durations reads
    it) from `events`: (row, span name, begin, end) with begin and end
    torch.cuda.Events recorded around work that has completed; times in ms
    from the first begin, the rows in the order they first appear."""
    origin = events[0][2]
    rows = {}
    for row, span, begin, end in events:
        rows.setdefault(row, []).append({"name": span, "start_ms": origin.elapsed_time(begin),
                                         "end_ms": origin.elapsed_time(end), "kind": kind})
    return {"name": name, "rows": [{"name": row, "spans": spans} for row, spans in rows.items()]}


def main(description, cases, extra_arguments=None, extra_results=None):
    """cases(torch, device) yields (shape, bytes, work) or (shape, bytes, work, extra):
    work() runs the job once; extra (a dict, e.g. {"version": ..., "flops": ...}) is
    copied into the figure. The generator runs between timings, so it may set
    flags (torch.backends...) for the work it yields next.
    extra_arguments(parser) adds a lab's own options; extra_results(torch, device,
    args, time_ms) returns a dict of more top-level keys, time_ms(work) timing
    work() as the figures are timed."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", help="write the JSON here instead of stdout")
    parser.add_argument("--repeats", type=int, default=20)
    if extra_arguments:
        extra_arguments(parser)
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
    figures = []
    for shape, bytes_moved, work, *extra in cases(torch, device):
        figure = {"shape": list(shape), "bytes": bytes_moved,
                  "time_ms": median_ms(torch, work, flush, args.repeats)}
        for more in extra:
            figure.update(more)
        figures.append(figure)

    result = {"tool": "bench_pytorch.py", "torch_version": torch.__version__,
              "device": torch.cuda.get_device_name(device), "repeats": args.repeats,
              "figures": figures, "skipped": SKIPPED}
    if extra_results:
        result.update(extra_results(torch, device, args,
                                    lambda work: median_ms(torch, work, flush, args.repeats)))
    text = json.dumps(result, indent=2)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)



def free_port():
    """A TCP port on this host that nothing listens on, for processes to meet on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main_or_error(description, job):
    """main() of a script that writes its own JSON (lab 04's one process per
    GPU): parses --out and runs job(out); when job raises (PyTorch, CUDA or
    NCCL cannot run here), --out gets {"error": why} instead, which the
    bench program records as a note."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    try:
        job(args.out)
    except Exception as error:
        with open(args.out, "w") as f:
            json.dump({"error": f"{type(error).__name__}: {error}".splitlines()[0]}, f)
