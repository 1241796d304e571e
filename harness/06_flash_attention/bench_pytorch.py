#!/usr/bin/env python3
"""PyTorch's attention on lab 06's benchmark shapes, for lab06_bench --pytorch-json.

Figures (version, flops, shape [B, H, N, d], bytes, time_ms), causal and not
(version suffix "_causal"): the lecture's naive attention (matmul, softmax,
matmul) in fp32 with TF32 off and in bf16, and
torch.nn.functional.scaled_dot_product_attention pinned to each backend that
runs: math, efficient (fp32 and bf16), flash and cuDNN (bf16); and the
efficient backend's backward in fp32 (exercise 6's anchor). FLOPs =
4 B H N^2 d for the forward, 2.5 times that for the backward, halved for
causal (FA2's count). bytes = what a fused kernel must move at least: q, k,
v read and o written once (the backward: q, k, v, o and dO read, dq, dk and
dv written). A backend that cannot run a case is left out and named under
"skipped". Keep SHAPES equal to kShapes in bench_main.cu.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "common", "harness"))
import pytorch_bench  # noqa: E402

SHAPES = [(4, 16, 4096, 128)]


def naive(torch, q, k, v, causal):
    scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
    if causal:
        n = q.shape[-2]
        mask = torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1)
        scores = scores.masked_fill(mask, float("-inf"))
    return torch.matmul(torch.softmax(scores, dim=-1), v)


def sdpa(torch, backend, q, k, v, causal):
    from torch.nn.attention import sdpa_kernel
    with sdpa_kernel(backend):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)


def cases(torch, device):
    from torch.nn.attention import SDPBackend
    torch.backends.cuda.matmul.allow_tf32 = False
    backends = {"fp32": [("math", SDPBackend.MATH), ("efficient", SDPBackend.EFFICIENT_ATTENTION)],
                "bf16": [("flash", SDPBackend.FLASH_ATTENTION),
                         ("cudnn", SDPBackend.CUDNN_ATTENTION),
                         ("efficient", SDPBackend.EFFICIENT_ATTENTION)]}
    for b, h, n, d in SHAPES:
        for dtype_name, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
            q, k, v = (torch.randn(b, h, n, d, device=device, dtype=dtype) for _ in range(3))
            bytes_moved = 4 * b * h * n * d * q.element_size()
            for causal in (False, True):
                suffix = "_causal" if causal else ""
                flops = 4 * b * h * n * n * d // (2 if causal else 1)
                reference = naive(torch, q, k, v, causal)
                yield ([b, h, n, d], bytes_moved,
                       lambda q=q, k=k, v=v, c=causal: naive(torch, q, k, v, c),
                       {"version": f"torch_naive_{dtype_name}{suffix}", "flops": flops})
                for name, backend in backends[dtype_name]:
                    version = f"torch_sdpa_{name}_{dtype_name}{suffix}"
                    tolerance = 2e-2 if dtype == torch.bfloat16 else 1e-3
                    if pytorch_bench.runs(version, lambda: torch.testing.assert_close(
                            sdpa(torch, backend, q, k, v, causal).float(), reference.float(),
                            atol=tolerance, rtol=tolerance)):
                        yield ([b, h, n, d], bytes_moved,
                               lambda q=q, k=k, v=v, c=causal, be=backend:
                               sdpa(torch, be, q, k, v, c),
                               {"version": version, "flops": flops})
                del reference
    yield from backward_cases(torch, device)


def backward_cases(torch, device):
    """SDPA's memory-efficient backward in fp32: the graph of one forward is
    kept, and each timed call differentiates it again, so that only the
    backward is timed. Checked first against the naive attention's autograd."""
    from torch.nn.attention import SDPBackend
    for b, h, n, d in SHAPES:
        q, k, v = (torch.randn(b, h, n, d, device=device, requires_grad=True) for _ in range(3))
        d_o = torch.randn(b, h, n, d, device=device)
        bytes_moved = 8 * b * h * n * d * q.element_size()
        for causal in (False, True):
            suffix = "_causal" if causal else ""
            flops = 10 * b * h * n * n * d // (2 if causal else 1)
            version = f"torch_sdpa_efficient_fp32_backward{suffix}"
            forward = []  # the output whose graph each timed call differentiates

            def check():
                forward.append(sdpa(torch, SDPBackend.EFFICIENT_ATTENTION, q, k, v, causal))
                got = torch.autograd.grad(forward[0], (q, k, v), d_o, retain_graph=True)
                expected = torch.autograd.grad(naive(torch, q, k, v, causal), (q, k, v), d_o)
                for gradient, reference in zip(got, expected):
                    torch.testing.assert_close(gradient, reference, atol=1e-3, rtol=1e-3)
            if pytorch_bench.runs(version, check):
                yield ([b, h, n, d], bytes_moved,
                       lambda out=forward[0], q=q, k=k, v=v: torch.autograd.grad(
                           out, (q, k, v), d_o, retain_graph=True),
                       {"version": version, "flops": flops})
            del forward


if __name__ == "__main__":
    pytorch_bench.main(__doc__.splitlines()[0], cases)
