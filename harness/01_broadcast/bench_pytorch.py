#!/usr/bin/env python3
"""PyTorch's a.add_(b) on lab 01's benchmark shapes, for lab01_bench --pytorch-json.

With --op-library FILE (lab01_torch_op.so, exercise 6's operator, built with
CUDA), it also times torch.ops.cudalab.broadcast_add_(a, b) on the same
shapes, under the key "cudalab_op": {"op", "library", "figures": [...] as
above} (or {"op", "library", "error"} when the operator cannot run or is
wrong).

a is (rows, 4096) fp32 and b is (4096,), broadcast over the rows: the job the
lab's kernels do. bytes = 4 * (rows*4096 + 4096 + rows*4096): read a, read b,
write a, the count lab01_bench uses. Keep COLUMNS and ROWS equal to kColumns
and kRows in bench_main.cu.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "common", "harness"))
import pytorch_bench  # noqa: E402

COLUMNS = 4096
ROWS = [512, 2048, 8192, 16384, 65536]


def cases(torch, device):
    b = torch.rand(COLUMNS, device=device)
    for rows in ROWS:
        a = torch.zeros(rows, COLUMNS, device=device)
        yield [rows, COLUMNS], 4 * (2 * rows * COLUMNS + COLUMNS), lambda: a.add_(b)


def op_arguments(parser):
    parser.add_argument("--op-library", help="exercise 6's operator library: also time "
                        "torch.ops.cudalab.broadcast_add_(a, b)")


def op_results(torch, device, args, time_ms):
    """The operator's figures, after one check against a + b: a wrong
    operator is not timed."""
    if not args.op_library:
        return {}
    found = {"op": "torch.ops.cudalab.broadcast_add_(a, b)", "library": args.op_library}
    try:
        torch.ops.load_library(args.op_library)
        a, b = torch.rand(37, COLUMNS + 3, device=device), torch.rand(COLUMNS + 3, device=device)
        expected = a + b
        torch.ops.cudalab.broadcast_add_(a, b)
        torch.testing.assert_close(a, expected)
    except (RuntimeError, AssertionError, NotImplementedError, OSError) as error:
        return {"cudalab_op": {**found, "error": str(error).splitlines()[0]}}
    b = torch.rand(COLUMNS, device=device)
    figures = []
    for rows in ROWS:
        a = torch.zeros(rows, COLUMNS, device=device)
        figures.append({"shape": [rows, COLUMNS], "bytes": 4 * (2 * rows * COLUMNS + COLUMNS),
                        "time_ms": time_ms(lambda: torch.ops.cudalab.broadcast_add_(a, b))})
    return {"cudalab_op": {**found, "figures": figures}}


if __name__ == "__main__":
    pytorch_bench.main(__doc__.splitlines()[0], cases, op_arguments, op_results)
