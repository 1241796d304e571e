#!/usr/bin/env python3
"""Which arithmetic of an fp8 wgmma K-block reproduces a GPU's results?

Usage: fit_fp8_block.py WGMMA_JSON...   (the dir/wgmma_<a>_<b>.json files of
       tests/numerics/wgmma_fp8_numerics_gpu_test.cu, CUDALAB_NUMERICS_OUT=dir)

Each file's first_differences hold K-blocks (a: the A row, b: the B column,
c: the fp32 addend, gpu: the GPU's result, all as bits). This replays every
block under a grid of candidate models in exact integer arithmetic and
prints how many blocks each reproduces bit for bit, best first:
  - "exact, round R to P bits": the exact sum of the products and c;
  - "aligned": every product (and c) aligned to the largest exponent, W
    fraction bits kept below it by truncation T (toward zero, floor or to
    nearest), summed exactly, then rounded by R to P significant bits; the
    exponent of a product that of its inputs summed ("unnormalised", as
    cudalab/numerics/block_fma.hpp) or of its value; c inside the alignment
    or outside it; the block as one of 32 or chained halves or quarters.
cudalab/numerics/fp8.hpp's model is "aligned W=13 T=rz unnormalised c
inside, blocks of 32, R=rz P=14" (docs/numerics.md, "fp8"). Specials (NaN,
infinities) are left out: they follow the model's fixed rules.
"""
import itertools
import json
import sys

SCALE = 400  # every value as an integer times 2^-SCALE: exact for fp8 products and fp32


def unpack_fp8(bits, fmt):
    """(negative, exponent, significand, fraction bits) or None for a special."""
    exponent_bits, fraction_bits = (4, 3) if fmt == "e4m3" else (5, 2)
    bias = (1 << (exponent_bits - 1)) - 1
    field = (bits >> fraction_bits) & ((1 << exponent_bits) - 1)
    fraction = bits & ((1 << fraction_bits) - 1)
    if fmt == "e4m3" and bits & 0x7F == 0x7F:
        return None
    if fmt == "e5m2" and field == 31:
        return None
    if field == 0:  # subnormal: the format's smallest exponent, no leading 1
        return bits & 0x80 != 0, 1 - bias, fraction, fraction_bits
    return bits & 0x80 != 0, field - bias, fraction | (1 << fraction_bits), fraction_bits


def fp32_to_int(bits):
    field, fraction = (bits >> 23) & 0xFF, bits & 0x7FFFFF
    if field == 255:
        return None
    exponent, significand = (-126, fraction) if field == 0 else (field - 127, fraction | 1 << 23)
    value = significand << (SCALE + exponent - 23)
    return -value if bits >> 31 else value


def exponent_of(value):
    return abs(value).bit_length() - 1 - SCALE


def truncate(value, unit_exponent, mode):
    """value on the grid of 2^unit_exponent: toward zero, floor or to nearest even."""
    shift = SCALE + unit_exponent
    if shift <= 0:
        return value
    if mode == "floor":
        return (value >> shift) << shift
    magnitude = abs(value)
    units, rest = magnitude >> shift, magnitude & ((1 << shift) - 1)
    if mode == "rn" and (2 * rest > 1 << shift or (2 * rest == 1 << shift and units & 1)):
        units += 1
    return (-units if value < 0 else units) << shift


def to_fp32_bits(value, mode, precision):
    """value rounded to `precision` significant bits (fp32's subnormal grid below 2^-126)."""
    if value == 0:
        return 0
    unit = max(max(exponent_of(value), -126) - (precision - 1), -149)
    rounded = truncate(value, unit, mode)
    magnitude = abs(rounded)
    exponent = exponent_of(magnitude)
    if exponent > 127:
        field_and_fraction = 0x7F800000
    elif exponent < -126:
        field_and_fraction = magnitude >> (SCALE - 149)
    else:
        fraction = (magnitude >> (SCALE + exponent - 23)) & 0x7FFFFF
        field_and_fraction = (exponent + 127) << 23 | fraction
    return field_and_fraction | (0x80000000 if rounded < 0 else 0)


class Block:
    def __init__(self, entry, format_a, format_b):
        self.products = []  # (value, unnormalised exponent)
        for x, y in zip(entry["a"], entry["b"]):
            u, v = unpack_fp8(int(x, 16), format_a), unpack_fp8(int(y, 16), format_b)
            if u is None or v is None:
                raise ValueError("special operand")
            value = (u[2] * v[2]) << (SCALE + u[1] + v[1] - u[3] - v[3])
            self.products.append((-value if u[0] != v[0] else value, u[1] + v[1]))
        self.c = fp32_to_int(int(entry["c"], 16))
        if self.c is None:
            raise ValueError("special accumulator")
        self.gpu = int(entry["gpu"], 16)


def aligned_block(products, c, kept, truncation, unnormalised, c_inside):
    exponents = [e if unnormalised else exponent_of(v) for v, e in products if v]
    if c and (c_inside or not exponents):
        exponents.append(exponent_of(c))
    if not exponents:
        return 0
    unit = max(exponents) - kept
    return sum(truncate(v, unit, truncation) for v, _ in products) + truncate(c, unit, truncation)


def candidates():
    for rounding, precision in itertools.product(("rz", "rn"), range(10, 25)):
        yield f"exact, round {rounding} to {precision} bits", (
            lambda b, r=rounding, p=precision: to_fp32_bits(sum(v for v, _ in b.products) + b.c, r, p)
        )
    grid = itertools.product(
        range(8, 30), ("rz", "floor", "rn"), (True, False), (True, False), (32, 16, 8), ("rz", "rn"),
        (12, 13, 14, 15, 16, 24))
    for kept, truncation, unnormalised, c_inside, block, rounding, precision in grid:
        name = (f"aligned W={kept} T={truncation} "
                f"{'unnormalised' if unnormalised else 'normalised'} "
                f"c {'inside' if c_inside else 'outside'}, blocks of {block}, "
                f"R={rounding} P={precision}")

        def model(b, k=kept, t=truncation, u=unnormalised, ci=c_inside, n=block, r=rounding,
                  p=precision):
            c = b.c
            for start in range(0, 32, n):
                bits = to_fp32_bits(aligned_block(b.products[start:start + n], c, k, t, u, ci), r, p)
                c = fp32_to_int(bits)
            return bits

        yield name, model


def main(paths):
    if not paths:
        sys.exit(__doc__)
    blocks = []
    for path in paths:
        with open(path) as f:
            figures = json.load(f)
        format_a, format_b = figures["formats"].split("_")
        for entry in figures["first_differences"]:
            try:
                blocks.append(Block(entry, format_a, format_b))
            except ValueError as why:
                print(f"{path}: block skipped ({why})")
    scores = [(sum(model(b) == b.gpu for b in blocks), name) for name, model in candidates()]
    scores.sort(key=lambda s: -s[0])
    print(f"{len(blocks)} blocks; the candidates that reproduce the most:")
    for fitted, name in scores[:30]:
        print(f"  {fitted:4d}  {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
