#!/usr/bin/env python3
"""PyTorch's sqrt(x + 1) and softmax on lab 05's benchmark shapes, for lab05_bench --pytorch-json.

Figures (the main list): eager torch.sqrt(x + 1) on n fp32 elements, two
kernels as the lecture says; bytes = 8 n (x read once, the result written
once: the minimum, which the fused program moves). Under "compiled": the same
through torch.compile (one fused Triton kernel), or {"error": ...} where
torch.compile cannot run. Under "softmax": torch.softmax(x, dim=1) on rows x
columns fp32; bytes = 8 rows columns. Keep ACTIVATION_SIZES and
SOFTMAX_SHAPES equal to kActivationSizes and kSoftmaxShapes in bench_main.cu.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "common", "harness"))
import pytorch_bench  # noqa: E402

ACTIVATION_SIZES = [1 << 21, 1 << 24, 1 << 28]
SOFTMAX_SHAPES = [(4096, 4096), (1823, 781), (16384, 1024)]


def activation(torch, x):
    return torch.sqrt(x + 1)


def cases(torch, device):
    for n in ACTIVATION_SIZES:
        x = torch.rand(n, device=device)
        yield [n], 8 * n, lambda x=x: activation(torch, x)


def more_results(torch, device, args, time_ms):
    results = {}
    try:
        compiled = torch.compile(lambda x: activation(torch, x))
        figures = []
        for n in ACTIVATION_SIZES:
            x = torch.rand(n, device=device)
            torch.testing.assert_close(compiled(x), activation(torch, x))
            figures.append({"shape": [n], "bytes": 8 * n, "time_ms": time_ms(lambda x=x: compiled(x))})
        results["compiled"] = {"figures": figures}
    except Exception as error:  # torch.compile needs a working Triton and compiler
        results["compiled"] = {"error": "torch.compile: " + str(error).splitlines()[0]}
    figures = []
    for rows, columns in SOFTMAX_SHAPES:
        x = torch.rand(rows, columns, device=device) * 20 - 10
        figures.append({"shape": [rows, columns], "bytes": 8 * rows * columns,
                        "time_ms": time_ms(lambda x=x: torch.softmax(x, dim=1))})
    results["softmax"] = {"figures": figures}
    return results


if __name__ == "__main__":
    pytorch_bench.main(__doc__.splitlines()[0], cases, extra_results=more_results)
