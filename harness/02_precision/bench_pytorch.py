#!/usr/bin/env python3
"""PyTorch's torch.matmul under its precision flags, for lab02_bench --pytorch-json.

C = A B with A (m x k) and B (k x n) uniform in [-1, 1), at the shapes
lab02_bench times cuBLAS on (keep SHAPES equal to kCublasShapes in
bench_main.cu). Versions:
  torch_fp32          fp32 tensors, allow_tf32 = False (the default)
  torch_tf32          fp32 tensors, allow_tf32 = True
  torch_fp16_rpr_on   fp16 tensors, allow_fp16_reduced_precision_reduction = True (the default)
  torch_fp16_rpr_off  fp16 tensors, the same flag False
  torch_bf16          bf16 tensors
  torch_fp16_acc16    fp16 tensors, allow_fp16_accumulation = True (cuBLAS's
                      CUBLAS_COMPUTE_16F; only where this PyTorch has the flag)
fp16 and bf16 results are fp16 and bf16 tensors, as torch.matmul returns
them. flops = 2 m n k; bytes = A and B read once, C written once.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "common", "harness"))
import pytorch_bench  # noqa: E402

SHAPES = [(8192, 8192, 8192), (10240, 10240, 10240)]
# version: dtype, allow_tf32, allow_fp16_reduced_precision_reduction, allow_fp16_accumulation
VERSIONS = {"torch_fp32": ("float32", False, True, False),
            "torch_tf32": ("float32", True, True, False),
            "torch_fp16_rpr_on": ("float16", False, True, False),
            "torch_fp16_rpr_off": ("float16", False, False, False),
            "torch_bf16": ("bfloat16", False, True, False),
            "torch_fp16_acc16": ("float16", False, True, True)}


def cases(torch, device):
    # The flags stay as the last case set them: the script ends after its cases.
    matmul = torch.backends.cuda.matmul
    fp16_accumulation = hasattr(matmul, "allow_fp16_accumulation")
    for m, n, k in SHAPES:
        a = torch.rand(m, k, device=device) * 2 - 1
        b = torch.rand(k, n, device=device) * 2 - 1
        for version, (dtype, tf32, reduced_precision_reduction, acc16) in VERSIONS.items():
            if acc16 and not fp16_accumulation:
                continue
            # Set here, between timings: the generator runs before each job's timing.
            matmul.allow_tf32 = tf32
            matmul.allow_fp16_reduced_precision_reduction = reduced_precision_reduction
            if fp16_accumulation:
                matmul.allow_fp16_accumulation = acc16
            x, y = a.to(getattr(torch, dtype)), b.to(getattr(torch, dtype))
            moved = x.element_size() * (m * k + k * n + m * n)
            yield ([m, n, k], moved, lambda x=x, y=y: torch.matmul(x, y),
                   {"version": version, "flops": 2 * m * n * k})
        del a, b


if __name__ == "__main__":
    pytorch_bench.main(__doc__.splitlines()[0], cases)
