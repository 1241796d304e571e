// Lab 02, exercise 4: predict the tensor core's result for one K-block.
//
// An mma.sync does not compute a dot product the way an fp32 loop does
// (multiply, round, add, round, ...). For one block of K products (16 for
// fp16 and bf16, 8 for TF32) plus the accumulator c, the H200's tensor core
//   1. forms every product exactly (subnormal inputs kept);
//   2. aligns all products and c to the largest exponent among them;
//   3. keeps 25 fraction bits below that exponent in each aligned term and
//      cuts off the rest (toward zero, no sticky bit);
//   4. adds the aligned terms exactly;
//   5. normalises the sum once and rounds it toward zero to fp32.
// So c = 1 plus a product of 3 * 2^-24 gives 1 + 2^-23 (0x3f800001), not the
// nearest float, and 2^16 - 2^16 + 2^-24 gives 0: the 2^-24 is cut off before
// the large terms cancel. docs/numerics.md works through these examples.
//
// predict_mma must give the hardware's bits for every block: the tests run
// it against mma.sync itself on a GPU (and against the H200-checked model on
// the emulator), on hand-made edge cases and thousands of random blocks.
//
// The exercise is the TODO regions of this file, each from its `begin` line
// to its `end` line; README.md says what it wants. (Parameters marked
// [[maybe_unused]] are so only that the stubs in labs/ compile without a warning.)
#pragma once

#include <cstdint>
#include <stdexcept>

#include "cudalab/kernel.hpp"
#include "cudalab/numerics/bits.hpp"
#include "precision_types.hpp"

namespace lab02 {
inline namespace CUDALAB_BACKEND {

// Fraction bits each aligned term keeps below the alignment exponent (step 3).
inline constexpr int kKeptFractionBits = 25;

using cudalab::numerics::float_bits;
using cudalab::numerics::float_from_bits;

// A number as the tensor core holds it: for a finite one,
//   value = (-1)^negative * significand * 2^(exponent - fraction_bits),
// `exponent` being that of the leading bit's place. A subnormal has the
// format's smallest exponent (1 - bias) and no leading 1; zero has
// significand 0. NaN and infinity carry no value, only their flag.
struct Term {
  bool negative = false;
  bool nan = false;
  bool infinite = false;
  int exponent = 0;
  std::uint64_t significand = 0;
  int fraction_bits = 0;
};

__host__ __device__ inline bool is_zero(const Term& t) {
  return !t.nan && !t.infinite && t.significand == 0;
}

// A pattern of 1 + exponent_bits + fraction_bits bits (in the low bits of
// `bits`), with the exponent biased by 2^(exponent_bits-1) - 1 as in IEEE 754.
__host__ __device__ inline Term unpack([[maybe_unused]] std::uint32_t bits,
                                       [[maybe_unused]] int exponent_bits,
                                       [[maybe_unused]] int fraction_bits) {
  // TODO(ex4) begin, about 13 lines: sign, exponent field and fraction. An
  // exponent field of all ones is infinity (fraction 0) or NaN; a field of 0
  // is zero or subnormal (exponent 1 - bias, no leading 1).
  return Term{};
  // TODO(ex4) end
}

// An operand: fp16 and bf16 in the low 16 bits; TF32 as an fp32 pattern whose
// low 13 bits the tensor core never reads (raw fp32 is truncated toward zero).
__host__ __device__ inline Term operand(std::uint32_t bits, MmaFormat format) {
  switch (format) {
    case MmaFormat::fp16:
      return unpack(bits & 0xffffu, 5, 10);
    case MmaFormat::bf16:
      return unpack(bits & 0xffffu, 8, 7);
    case MmaFormat::tf32:
      return unpack(bits >> 13, 8, 10);
  }
  return Term{};
}

// Step 1: x * y, exactly. Its exponent is the sum of the two exponents, not
// renormalised: 1.5 * 1.5 = 2.25 counts as exponent 0 (then step 3 keeps one
// more bit below 2^1 than it would for 2.25 given as c).
__host__ __device__ inline Term exact_product([[maybe_unused]] const Term& x,
                                              [[maybe_unused]] const Term& y) {
  // TODO(ex4) begin, about 9 lines: the product is NaN when a factor is, or
  // for infinity * 0; otherwise infinite when a factor is.
  return Term{};
  // TODO(ex4) end
}

// Steps 2 and 3: a finite `term` as a signed count of units of
// 2^(alignment - kKeptFractionBits), where `alignment` is the block's largest
// exponent. Bits below one unit are cut off the magnitude, then the sign is
// applied (so a negative term is cut toward zero too).
__host__ __device__ inline std::int64_t aligned([[maybe_unused]] const Term& term,
                                                [[maybe_unused]] int alignment) {
  // TODO(ex4) begin, about 7 lines: shift the significand so that its last
  // bit counts units (left or right; a shift of 64 or more leaves nothing).
  return 0;
  // TODO(ex4) end
}

// Step 5: sum * 2^unit as fp32, normalised once and rounded toward zero:
// subnormal below 2^-126 (steps of 2^-149), infinity above the largest float,
// +0 for a sum of 0.
__host__ __device__ inline float round_toward_zero([[maybe_unused]] std::int64_t sum,
                                                   [[maybe_unused]] int unit) {
  // TODO(ex4) begin, about 18 lines: find the leading bit of |sum|; keep the
  // 24 bits from it down (or, for a subnormal result, the bits down to 2^-149).
  return 0.0f;
  // TODO(ex4) end
}

// d = c + a[0]*b[0] + ... + a[kb-1]*b[kb-1], kb = 16 (fp16, bf16) or 8 (TF32).
__host__ __device__ inline float predict_mma(const std::uint32_t* a, const std::uint32_t* b,
                                             float c, MmaFormat format) {
  const int kb = cudalab::numerics::mma_k_block(format);
  Term terms[17];  // the kb products, then c
  for (int i = 0; i < kb; ++i)
    terms[i] = exact_product(operand(a[i], format), operand(b[i], format));
  terms[kb] = unpack(float_bits(c), 8, 23);
  // TODO(ex4) begin, about 8 lines: NaN and infinity decide before any
  // arithmetic. A NaN term, or +infinity with -infinity, gives the canonical
  // NaN 0x7fffffff; otherwise an infinite term gives that infinity.
  // TODO(ex4) end
  int alignment = 0;  // the largest exponent among the non-zero terms
  // TODO(ex4) begin, about 8 lines: find the alignment exponent. Zero terms
  // have none; when every term is zero the result is +0 (even for c = -0).
  // TODO(ex4) end
  std::int64_t sum = 0;  // exact: at most 17 terms below 2^28 units each
  for (int i = 0; i <= kb; ++i) sum += aligned(terms[i], alignment);
  return round_toward_zero(sum, alignment - kKeptFractionBits);
}

// Given: one K-block per thread.
__global__ void predict_mma_kernel(MmaFormat format, const std::uint32_t* a, const std::uint32_t* b,
                                   const float* c, float* d, int blocks) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int kb = cudalab::numerics::mma_k_block(format);
  if (i < blocks) d[i] = predict_mma(a + i * kb, b + i * kb, c[i], format);
}

inline void predict_mma_blocks(MmaFormat format, const std::uint32_t* a, const std::uint32_t* b,
                               const float* c, float* d, int blocks) {
  if (blocks < 0) throw std::invalid_argument("predict_mma_blocks: blocks must be >= 0");
  if (blocks > 0) predict_mma_kernel<<<(blocks + 127) / 128, 128>>>(format, a, b, c, d, blocks);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab02
