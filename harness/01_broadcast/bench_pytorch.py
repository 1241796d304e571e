#!/usr/bin/env python3
"""PyTorch's a.add_(b) on lab 01's benchmark shapes, for lab01_bench --pytorch-json.

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


if __name__ == "__main__":
    pytorch_bench.main(__doc__.splitlines()[0], cases)
