"""Lab 01, exercise 6: torch.ops.cudalab.broadcast_add(a, b) and its in-place
broadcast_add_(a, b) against PyTorch's own a + b and a.add_(b).

ctest runs each test function on its own (cmake/CudalabTorchOp.cmake), with
CUDALAB_TORCH_OP naming the operator's library and CUDALAB_TORCH_DEVICE the
tensors' device: cpu (the operator runs the kernel on cudalab's emulator) or
cuda (on the GPU; every test is skipped where PyTorch sees no GPU). Functions
named test_cuda_* run on the GPU only. Shapes are fresh random ones on every
run; a failure prints the seed, and CUDALAB_SEED=<seed> repeats it.
"""
import os
import random
import re
import time

import pytest
import torch

DEVICE = os.environ.get("CUDALAB_TORCH_DEVICE", "cpu")
SEED = int(os.environ.get("CUDALAB_SEED", time.time_ns() % 1_000_000))
BLOCK = 256  # kOpBlockSize: sizes around multiples of it end in a partial block
SIZES = [1, 1, 2, 3, 5, 7, 13, 31, 37, 64, 127]  # 1 twice: it is what broadcasts


@pytest.fixture(scope="module", autouse=True)
def cudalab_ops():
    if DEVICE == "cuda" and not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device here")
    library = os.environ.get("CUDALAB_TORCH_OP")
    assert library, "CUDALAB_TORCH_OP must name the operator's library (ctest sets it)"
    torch.ops.load_library(library)
    return torch.ops.cudalab


@pytest.fixture()
def rng():
    print(f"CUDALAB_SEED={SEED}")
    return random.Random(SEED)


def tensor(shape, dtype=torch.float32, device=DEVICE):
    return torch.randn(shape, dtype=torch.float32).to(dtype=dtype, device=device)


def check_matches(actual, expected):
    """The one comparison every test uses: same shape, dtype and device, and
    values within fp16's or fp32's tolerance. A NaN where PyTorch has a
    number fails it (test_comparison_rejects_a_wrong_output)."""
    assert actual.shape == expected.shape
    assert actual.dtype == expected.dtype
    assert actual.device == expected.device
    torch.testing.assert_close(actual, expected)


def broadcastable_pair(rng):
    """Two random shapes of up to 4 dimensions that broadcast: each dimension
    of the result is kept by both, or by one with a 1 (or a missing leading
    dimension) in the other."""
    rank = rng.randint(0, 4)
    out = [rng.choice(SIZES + [0]) if rng.random() < 0.1 else rng.choice(SIZES)
           for _ in range(rank)]
    a, b = [], []
    for size in out:
        kind = rng.choice(["both", "a", "b"])
        a.append(size if kind in ("both", "a") else 1)
        b.append(size if kind in ("both", "b") else 1)
    a = a[rng.randint(0, rank):] if rng.random() < 0.3 else a
    b = b[rng.randint(0, rank):] if rng.random() < 0.3 else b
    return a, b


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_matches_a_plus_b_on_random_shapes(cudalab_ops, rng, dtype):
    for _ in range(12):
        a_shape, b_shape = broadcastable_pair(rng)
        a, b = tensor(a_shape, dtype), tensor(b_shape, dtype)
        check_matches(cudalab_ops.broadcast_add(a, b), a + b)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("a_shape,b_shape", [
    ([2, 1, 5], [3, 1]), ([3, 1], [2, 1, 5]),            # both ways, 3-D
    ([2, 1, 3, 1], [5, 1, 7]), ([5, 1, 7], [2, 1, 3, 1]),  # both ways, 4-D
    ([7, 13], [13]), ([13], [7, 13]), ([7, 1], [1, 13]),
    ([], [3]), ([], []), ([1], [1, 1, 1, 1]),
])
def test_matches_a_plus_b_on_named_broadcasts(cudalab_ops, a_shape, b_shape, dtype):
    a, b = tensor(a_shape, dtype), tensor(b_shape, dtype)
    check_matches(cudalab_ops.broadcast_add(a, b), a + b)


@pytest.mark.parametrize("a_shape,b_shape", [
    ([0], [0]), ([0, 4], [4]), ([3, 0], [1]), ([2, 0, 3], [1, 3]), ([1], [0, 1]),
])
def test_zero_size_tensors(cudalab_ops, a_shape, b_shape):
    a, b = tensor(a_shape), tensor(b_shape)
    check_matches(cudalab_ops.broadcast_add(a, b), a + b)
    if list((a + b).shape) == a_shape:
        check_matches(cudalab_ops.broadcast_add_(a, b), a)


def test_sizes_around_block_boundaries(cudalab_ops, rng):
    """Several blocks, the last one partial: a thread past the end must not
    write, and the block count must cover every element."""
    for rows in (BLOCK * 3 + 1, BLOCK * 5 - 1, rng.randint(BLOCK + 1, 40 * BLOCK)):
        a, b = tensor([rows, 3]), tensor([3])
        check_matches(cudalab_ops.broadcast_add(a, b), a + b)
    a, b = tensor([67, 1031]), tensor([67, 1])
    check_matches(cudalab_ops.broadcast_add(a, b), a + b)


def test_half_rounds_like_pytorch(cudalab_ops):
    """fp16 adds in fp32 and rounds once: bit-identical to PyTorch."""
    a = torch.tensor([2048.0, 1.0, 65504.0, -0.0, 1e-4], dtype=torch.float16).to(DEVICE)
    b = torch.tensor([1.0, 2.0**-11, 65504.0, 0.0, 1e-4], dtype=torch.float16).to(DEVICE)
    assert torch.equal(cudalab_ops.broadcast_add(a, b), a + b)


def test_non_contiguous_inputs_are_read_correctly(cudalab_ops):
    a = tensor([9, 6]).t()                         # transposed: [6, 9]
    b = tensor([18])[::2]                          # a slice with a step: [9]
    assert not a.is_contiguous() and not b.is_contiguous()
    check_matches(cudalab_ops.broadcast_add(a, b), a + b)
    check_matches(cudalab_ops.broadcast_add(b, a), b + a)
    c = tensor([4, 1, 5]).expand(4, 3, 5)          # stride 0, as expand_as gives
    check_matches(cudalab_ops.broadcast_add(c, b[:5]), c + b[:5])
    self = tensor([6, 9])
    expected = self + a
    check_matches(cudalab_ops.broadcast_add_(self, a), expected)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_in_place_writes_self_and_returns_it(cudalab_ops, rng, dtype):
    for _ in range(6):
        b_shape, _ = broadcastable_pair(rng)
        a_shape = [rng.choice(SIZES) for _ in range(rng.randint(0, 4 - len(b_shape)))] + [
            size if size != 1 else rng.choice(SIZES) for size in b_shape]
        a, b = tensor(a_shape, dtype), tensor(b_shape, dtype)
        expected = a + b   # the lecture's a += b.expand_as(a)
        b_before = b.clone()
        storage = a.data_ptr()
        result = cudalab_ops.broadcast_add_(a, b)
        assert result is a
        assert a.data_ptr() == storage
        check_matches(a, expected)
        assert torch.equal(b, b_before)


def test_in_place_refuses_a_non_contiguous_self(cudalab_ops):
    self = tensor([5, 7]).t()
    before = self.clone()
    with pytest.raises(RuntimeError, match="contiguous"):
        cudalab_ops.broadcast_add_(self, tensor([5]))
    assert torch.equal(self, before)


def test_in_place_refuses_a_shape_self_cannot_hold(cudalab_ops):
    self, other = tensor([1, 4]), tensor([3, 4])
    with pytest.raises(RuntimeError):
        self.add_(other)  # PyTorch refuses it too
    before = self.clone()
    with pytest.raises(RuntimeError, match=r"\[1, 4\].*\[3, 4\]"):
        cudalab_ops.broadcast_add_(self, other)
    assert torch.equal(self, before)


@pytest.mark.parametrize("a_dtype,b_dtype", [
    (torch.float32, torch.float16), (torch.float16, torch.float32),
    (torch.int32, torch.int32), (torch.float64, torch.float64),
])
def test_refuses_dtypes(cudalab_ops, a_dtype, b_dtype):
    a = torch.ones([3, 4], dtype=a_dtype, device=DEVICE)
    b = torch.ones([4], dtype=b_dtype, device=DEVICE)
    before = a.clone()
    with pytest.raises(RuntimeError, match="dtype"):
        cudalab_ops.broadcast_add(a, b)
    with pytest.raises(RuntimeError, match="dtype"):
        cudalab_ops.broadcast_add_(a, b)
    assert torch.equal(a, before)


def pytorch_dimension_from_the_right(a_shape, b_shape):
    """The dimension PyTorch's own a + b names, counted from the right as -1,
    -2, ... (PyTorch counts from the left of the result)."""
    with pytest.raises(RuntimeError) as error:
        torch.zeros(a_shape) + torch.zeros(b_shape)
    dim = int(re.search(r"at non-singleton dimension (\d+)", str(error.value))[1])
    return dim - max(len(a_shape), len(b_shape))


@pytest.mark.parametrize("a_shape,b_shape", [
    ([2, 3], [4, 5]), ([3, 4], [5]), ([5], [2, 3]), ([2, 3, 4], [2, 5, 4]),
    ([6, 1, 3], [4, 2]), ([7, 2, 1, 3], [5, 1, 1, 3]),
])
def test_refuses_shapes_that_do_not_broadcast_naming_pytorchs_dimension(cudalab_ops, a_shape,
                                                                         b_shape):
    dim = pytorch_dimension_from_the_right(a_shape, b_shape)
    a, b = tensor(a_shape), tensor(b_shape)
    before = a.clone()
    for op in (cudalab_ops.broadcast_add, cudalab_ops.broadcast_add_):
        with pytest.raises(RuntimeError) as error:
            op(a, b)
        assert re.search(rf"dimension {dim}\b", str(error.value)), (
            f"{op}: {error.value} does not name dimension {dim}, as PyTorch does")
        assert torch.equal(a, before)


def test_refuses_more_than_four_dimensions(cudalab_ops):
    a, b = tensor([2, 1, 2, 1, 2]), tensor([2])
    before = a.clone()
    for op in (cudalab_ops.broadcast_add, cudalab_ops.broadcast_add_):
        with pytest.raises(RuntimeError, match="dimensions"):
            op(a, b)
    assert torch.equal(a, before)


def test_comparison_rejects_a_wrong_output(cudalab_ops):
    """The check this file relies on fails a NaN and a perturbed element."""
    a, b = tensor([37, 5]), tensor([5])
    result = cudalab_ops.broadcast_add(a, b)
    check_matches(result, a + b)
    for wrong in (float("nan"), result[20, 3].item() + 0.01):
        tampered = result.clone()
        tampered[20, 3] = wrong
        with pytest.raises(AssertionError):
            check_matches(tampered, a + b)


def test_cuda_refuses_tensors_on_different_devices(cudalab_ops):
    a, b = tensor([3, 4]), tensor([4], device="cpu")
    before = a.clone()
    for op in (cudalab_ops.broadcast_add, cudalab_ops.broadcast_add_):
        with pytest.raises(RuntimeError, match="device"):
            op(a, b)
    assert torch.equal(a, before)


def test_cuda_runs_on_the_current_stream(cudalab_ops):
    """Inputs made on a side stream s, after a long spin on s: launched on
    any other stream than s, the kernel would read them before they are
    written. Their memory held NaNs before (the caching allocator hands a
    freed block of s back to s), so such a race fails the comparison."""
    rows, columns = 4096, 4096
    expected_a = tensor([rows, columns])
    expected_b = tensor([columns])
    expected = expected_a + expected_b
    side = torch.cuda.Stream()
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        poison = torch.full([rows, columns], float("nan"), device="cuda")
        del poison
        torch.cuda._sleep(200_000_000)  # about 0.1 s at the H200's clock
        a = torch.empty([rows, columns], device="cuda")
        a.copy_(expected_a)
        b = expected_b.clone()
        out = cudalab_ops.broadcast_add(a, b)
        cudalab_ops.broadcast_add_(a, b)
    side.synchronize()
    check_matches(out, expected)
    check_matches(a, expected)
