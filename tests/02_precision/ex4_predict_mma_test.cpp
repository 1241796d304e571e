// Exercise 4: predict_mma, one tensor-core K-block bit for bit.
//
// Each block goes through the student's predict_mma (in a kernel) and through
// the tensor-core instruction itself (entry::mma_instruction: mma.sync on
// a GPU). On a GPU the instruction's bits are the answer. On the emulator the
// answer is cudalab::numerics::mma_block_fma, the model checked against the
// H200, and the emulator's mma.sync must agree with it. The blocks: the
// worked examples of docs/numerics.md (one rule each: truncation without a
// sticky bit, rounding toward zero, cancellation after truncation, a product
// of 2 or more keeping one more bit), subnormal inputs and results, zeros and
// c = -0, overflow, NaN and infinity; then thousands of random blocks per
// format whose exponents spread so that alignment shifts matter. A NaN must
// be answered with a NaN; every other result must match in every bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cudalab/harness/testing.hpp"
#include "cudalab/numerics.hpp"
#include "lab02_test_support.hpp"

namespace lab02 {
namespace {

namespace nx = cudalab::numerics;
using cudalab::harness::nothing_written_outside;
using cudalab::harness::Observation;
using cudalab::harness::ran;

using OnBackend = cudalab::harness::OnBackend<harness::Backend, harness::make_emulator_backend,
                                              harness::make_gpu_backend>;

// What an unwritten result holds: a NaN whose bits no tensor core returns.
constexpr std::uint32_t kUnwritten = 0x7fc0ffeeu;

std::string format_name(MmaFormat format) {
  return format == MmaFormat::fp16 ? "fp16" : format == MmaFormat::bf16 ? "bf16" : "tf32";
}

std::string float_text(float x) {
  char text[48];
  std::snprintf(text, sizeof text, "%s (%.9g)", hex(nx::float_bits(x), 8).c_str(), x);
  return text;
}

// An operand's value (TF32: the upper 19 bits, what the tensor core reads).
float operand_value(std::uint32_t bits, MmaFormat format) {
  switch (format) {
    case MmaFormat::fp16:
      return nx::fp16_bits_to_fp32(static_cast<std::uint16_t>(bits));
    case MmaFormat::bf16:
      return nx::bf16_bits_to_fp32(static_cast<std::uint16_t>(bits));
    case MmaFormat::tf32:
      return nx::float_from_bits(bits & ~nx::tf32_dropped_bits_mask);
  }
  return 0.0f;
}

std::string operand_text(std::uint32_t bits, MmaFormat format) {
  char text[48];
  std::snprintf(text, sizeof text, "%s (%.9g)",
                hex(bits, format == MmaFormat::tf32 ? 8 : 4).c_str(), operand_value(bits, format));
  return text;
}

// A value exactly representable in `format` as its operand pattern.
std::uint32_t operand(float value, MmaFormat format) {
  switch (format) {
    case MmaFormat::fp16:
      return nx::fp32_to_fp16_bits(value);
    case MmaFormat::bf16:
      return nx::fp32_to_bf16_bits(value);
    case MmaFormat::tf32:
      return nx::float_bits(value);
  }
  return 0;
}

// Blocks of one format, laid out as entry::predict_mma takes them.
struct Blocks {
  MmaFormat format;
  std::vector<std::uint32_t> a, b;
  std::vector<float> c;
  std::vector<std::string> names;

  int kb() const { return nx::mma_k_block(format); }
  int count() const { return static_cast<int>(c.size()); }
  // a and b padded with zeros to the block size.
  void add(std::string name, std::vector<std::uint32_t> a_block, std::vector<std::uint32_t> b_block,
           float c_value) {
    a_block.resize(kb(), 0);
    b_block.resize(kb(), 0);
    a.insert(a.end(), a_block.begin(), a_block.end());
    b.insert(b.end(), b_block.begin(), b_block.end());
    c.push_back(c_value);
    names.push_back(std::move(name));
  }
  // The same from values that the format holds exactly.
  void add_values(std::string name, const std::vector<float>& a_values,
                  const std::vector<float>& b_values, float c_value) {
    std::vector<std::uint32_t> a_block, b_block;
    for (float v : a_values) a_block.push_back(operand(v, format));
    for (float v : b_values) b_block.push_back(operand(v, format));
    add(std::move(name), a_block, b_block, c_value);
  }

  std::string describe(std::size_t block) const {
    std::string text = "block " + std::to_string(block) + " (" + format_name(format) + ", " +
                       names[block] + "): c = " + float_text(c[block]);
    int zeros = 0;
    for (int i = 0; i < kb(); ++i) {
      const std::uint32_t x = a[block * kb() + i], y = b[block * kb() + i];
      if (operand_value(x, format) == 0.0f || operand_value(y, format) == 0.0f) {
        ++zeros;
        continue;
      }
      text += "\n      + a[" + std::to_string(i) + "] " + operand_text(x, format) + " * b[" +
              std::to_string(i) + "] " + operand_text(y, format);
    }
    if (zeros > 0) text += "\n      (" + std::to_string(zeros) + " zero products left out)";
    return text;
  }
};

bool same_result(float got, float expected) {
  if (std::isnan(expected)) return std::isnan(got) && nx::float_bits(got) != kUnwritten;
  return nx::float_bits(got) == nx::float_bits(expected);
}

class Ex4PredictMma : public OnBackend {
 protected:
  // The tensor core's answers for `blocks` on this backend.
  std::vector<float> tensor_core(const Blocks& blocks) {
    std::vector<float> instruction(blocks.c.size(), nx::float_from_bits(kUnwritten));
    const Observation run = backend().call(harness::entry::mma_instruction, blocks.format, blocks.a,
                                           blocks.b, blocks.c, instruction, blocks.count());
    EXPECT_TRUE(ran(run)) << "the harness's mma.sync failed (not your code)";
    if (!on_emulator()) return instruction;
    std::vector<float> model(blocks.c.size());
    for (std::size_t i = 0; i < model.size(); ++i) {
      model[i] = nx::mma_block_fma(&blocks.a[i * blocks.kb()], &blocks.b[i * blocks.kb()],
                                   blocks.kb(), blocks.c[i], blocks.format);
      EXPECT_TRUE(same_result(instruction[i], model[i]))
          << "harness bug, not your code: the emulator's mma.sync gives "
          << float_text(instruction[i]) << " where the model gives " << float_text(model[i])
          << " for " << blocks.describe(i);
    }
    return model;
  }

  void expect_predicted(const Blocks& blocks, const std::string& what) {
    if (HasFailure()) return;
    const std::vector<float> expected = tensor_core(blocks);
    std::vector<float> got(blocks.c.size(), nx::float_from_bits(kUnwritten));
    const Observation run = backend().call(harness::entry::predict_mma, blocks.format, blocks.a,
                                           blocks.b, blocks.c, got, blocks.count());
    ASSERT_TRUE(ran(run)) << what;
    std::string listed;
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (same_result(got[i], expected[i])) continue;
      if (++wrong > 3) continue;
      listed += "\n  " + blocks.describe(i) + "\n    you gave " +
                (nx::float_bits(got[i]) == kUnwritten ? std::string("nothing (never written)")
                                                      : float_text(got[i])) +
                ", the tensor core gives " + float_text(expected[i]);
    }
    EXPECT_EQ(wrong, 0u) << what << ": " << wrong << " of " << got.size()
                         << " blocks predicted wrongly. First:" << listed;
    EXPECT_TRUE(nothing_written_outside(run, what));
  }
};

float two_to(int e) { return std::ldexp(1.0f, e); }

// The edge cases, with the bits the model gives (checked here, and on the
// H200 against mma.sync): a wrong row is a test bug, not the student's.
struct Edge {
  const char* name;
  std::vector<float> a, b;
  float c;
  std::uint32_t expected;
};

std::vector<Edge> edges_for(MmaFormat format) {
  const float tiny = two_to(-13);  // tiny * 2^-12 = 2^-25, tiny * tiny = 2^-26
  const float inf = INFINITY;
  std::vector<Edge> e = {
      // 25 fraction bits below the largest exponent (here c's, 2^0) survive...
      {"1 + 4 * 2^-25 keeps every term", std::vector<float>(4, tiny),
       std::vector<float>(4, two_to(-12)), 1.0f, 0x3f800001u},
      // ...the 26th is cut off, with no sticky bit: the exact 1 + 2^-23 is lost.
      {"1 + 8 * 2^-26 truncates every term", std::vector<float>(8, tiny),
       std::vector<float>(8, tiny), 1.0f, 0x3f800000u},
      // One rounding, toward zero (also for negative sums).
      {"1 + 3 * 2^-24 rounds toward zero", {3 * two_to(-12)}, {two_to(-12)}, 1.0f, 0x3f800001u},
      {"-1 - 3 * 2^-24 rounds toward zero", {-3 * two_to(-12)}, {two_to(-12)}, -1.0f, 0xbf800001u},
      // Aligned to 2^16, 2^-24 is truncated before the large terms cancel.
      {"2^16 - 2^16 + 2^-24 (a product) is 0",
       {two_to(8), -two_to(8), two_to(-12)},
       {two_to(8), two_to(8), two_to(-12)},
       0.0f,
       0x00000000u},
      {"2^16 - 2^16 + 2^-24 (c) is 0",
       {two_to(8), -two_to(8)},
       {two_to(8), two_to(8)},
       two_to(-24),
       0x00000000u},
      // Subnormal operands: 2^-24 (fp16), 2^-133 (bf16), 2^-136 (TF32) are
      // kept exactly; two 2^-24 on top of 1 are the last two kept bits.
      {"1 + 2 * 2^-24 (in fp16, 2^-24 is subnormal)",
       {two_to(-24), two_to(-24)},
       {1.0f, 1.0f},
       1.0f,
       0x3f800001u},
      {"zero products leave c unchanged",
       {0.0f, -0.0f, 3.0f},
       {5.0f, 7.0f, 0.0f},
       1.5f,
       0x3fc00000u},
      {"c = -0 with zero products gives +0", {-0.0f}, {1.0f}, -0.0f, 0x00000000u},
      {"c = -1 plus 1 cancels to +0", {1.0f}, {1.0f}, -1.0f, 0x00000000u},
      {"a -2^-10 product on c = -0", {-1.0f}, {two_to(-10)}, -0.0f, 0xba800000u},
      // Specials decide before any arithmetic.
      {"NaN operand", {NAN, 1.0f}, {1.0f, 1.0f}, 1.0f, nx::fp32_canonical_nan},
      {"infinity * 0 is NaN", {inf}, {0.0f}, 1.0f, nx::fp32_canonical_nan},
      {"+infinity - infinity is NaN", {inf, -inf}, {1.0f, 1.0f}, 0.0f, nx::fp32_canonical_nan},
      {"an infinite product wins", {inf, 1.0f}, {2.0f, 1.0f}, 1.0f, 0x7f800000u},
      {"a -infinite product wins", {-inf}, {2.0f}, 1.0f, 0xff800000u},
      {"c = -infinity wins", {1.0f}, {1.0f}, -inf, 0xff800000u},
      {"c = NaN", {1.0f}, {1.0f}, NAN, nx::fp32_canonical_nan},
      // A zero term has no exponent: 0 * 2^15 (fp16) or 0 * 2^127 must not
      // set the alignment to 2^1 and cut the 2^-27 off the one real product.
      {"a zero product does not set the alignment",
       {0.0f, 1.0f + two_to(-7)},
       {two_to(format == MmaFormat::fp16 ? 15 : 127), two_to(-20)},
       0.0f,
       0x35810000u},
      // c 68 places below the products' exponent: a shift of 64 or more
      // leaves nothing (a bare 64-bit shift by 68 would shift by 4).
      {"c far below the products is cut off entirely",
       {two_to(format == MmaFormat::fp16 ? 15 : 35)},
       {two_to(format == MmaFormat::fp16 ? 15 : 35)},
       format == MmaFormat::fp16 ? two_to(-38) : 1.0f,
       format == MmaFormat::fp16 ? 0x4e800000u : 0x62800000u},
  };
  if (format == MmaFormat::fp16) {
    // 1.5 * 1.5 = 2.25 counts as exponent 0 (the exponents' sum), so the
    // 2^-25 terms are kept; as c, 2.25 has exponent 1 and they are cut off.
    std::vector<float> a(9, tiny), b(9, two_to(-12));
    a[0] = b[0] = 1.5f;
    e.push_back({"largest product 1.5 * 1.5 >= 2 keeps one more bit", a, b, 0.0f, 0x40100001u});
    a[0] = b[0] = 0.0f;
    e.push_back({"c = 2.25 does not", a, b, 2.25f, 0x40100000u});
    e.push_back({"subnormal * subnormal", {two_to(-24)}, {two_to(-24)}, 0.0f, 0x27800000u});
  } else {
    const int smallest = format == MmaFormat::bf16 ? -133 : -136;
    e.push_back({"subnormal operand",
                 {two_to(smallest)},
                 {two_to(100)},
                 0.0f,
                 nx::float_bits(two_to(smallest + 100))});
    e.push_back({"a subnormal result", {two_to(-70)}, {two_to(-70)}, 0.0f, 0x00000200u});
    e.push_back({"a subnormal result, truncated (1.3125 * 2^-149)",
                 {1.75f * two_to(-70)},
                 {1.5f * two_to(-80)},
                 0.0f,
                 0x00000001u});
    e.push_back({"overflow gives infinity (not the largest float)",
                 {two_to(127)},
                 {1.5f},
                 std::ldexp(0x1.fffffep0f, 127),
                 0x7f800000u});
  }
  return e;
}

TEST_P(Ex4PredictMma, Ex4_EdgeCases) {
  for (MmaFormat format : {MmaFormat::fp16, MmaFormat::bf16, MmaFormat::tf32}) {
    Blocks blocks{format, {}, {}, {}, {}};
    for (const Edge& edge : edges_for(format)) {
      blocks.add_values(edge.name, edge.a, edge.b, edge.c);
      const std::size_t i = blocks.c.size() - 1;
      const float model = nx::mma_block_fma(&blocks.a[i * blocks.kb()], &blocks.b[i * blocks.kb()],
                                            blocks.kb(), blocks.c[i], format);
      ASSERT_EQ(nx::float_bits(model), edge.expected) << "test bug: " << blocks.describe(i);
    }
    if (format == MmaFormat::tf32) {
      // The tensor core reads only the upper 19 bits of a TF32 operand: a NaN
      // whose payload lies in the low 13 is an infinity to it.
      blocks.add("a NaN pattern whose payload lies in the low 13 bits reads as infinity",
                 {0x7f800001u}, {0x3f800000u}, 1.0f);
      blocks.add("raw fp32 operands: the low 13 bits are ignored", {0x3f801fffu, 0x3f800fffu},
                 {0x3f801fffu, 0xbf800000u}, 0.0f);
    }
    expect_predicted(blocks, "predict_mma on the " + format_name(format) + " edge cases");
  }
}

// Random blocks of four kinds, so that every step is exercised:
//   near    exponents within +-1: carries in the sum
//   wide    exponents spread (+-7 fp16, +-30 bf16/TF32): long alignment shifts
//   cancel  c = minus the products' sum (in double): cancellation to the last bits
//   tiny    exponents at the bottom of the format: subnormal operands and results
// with a few zero and subnormal operands everywhere and c = +-0 now and then.
class RandomBlocks {
 public:
  RandomBlocks(cudalab::Random& rng, MmaFormat format, int count)
      : format_(format), words_(rng.uniform<std::uint32_t>(count * 160 + 64, 0u, 0xffffffffu)) {
    blocks_.format = format;
    const char* kind_names[] = {"random, near", "random, wide", "random, cancel", "random, tiny"};
    for (int block = 0; block < count; ++block) {
      const int kind = static_cast<int>(next() % 4);
      const int spread = kind == 0 ? 1 : format == MmaFormat::fp16 ? 7 : 30;
      const int center = kind == 3 ? (format == MmaFormat::fp16 ? -12 : -64) : 0;
      std::vector<std::uint32_t> a, b;
      double sum = 0.0;
      for (int i = 0; i < blocks_.kb(); ++i) {
        a.push_back(random_operand(center, spread));
        b.push_back(random_operand(center, spread));
        sum +=
            static_cast<double>(operand_value(a.back(), format)) * operand_value(b.back(), format);
      }
      float c = random_accumulator(kind == 3 ? 2 * center : 0, spread);
      if (kind == 2) c = static_cast<float>(-sum);
      blocks_.add(kind_names[kind], a, b, c);
    }
  }
  const Blocks& blocks() const { return blocks_; }

 private:
  std::uint32_t next() { return words_[used_++ % words_.size()]; }
  int in_range(int lo, int hi) { return lo + static_cast<int>(next() % (hi - lo + 1)); }

  // Sign, exponent center +- spread (clamped to the format's normal range),
  // random fraction; 3% zeros, 3% subnormals. TF32: all 32 bits, the low 13 random.
  std::uint32_t random_operand(int center, int spread) {
    const int exponent_bits = format_ == MmaFormat::fp16 ? 5 : 8;
    const int fraction_bits = format_ == MmaFormat::tf32 ? 23 : format_ == MmaFormat::fp16 ? 10 : 7;
    const int bias = (1 << (exponent_bits - 1)) - 1;
    const std::uint32_t sign = next() & 1u;
    const std::uint32_t fraction = next() & ((1u << fraction_bits) - 1u);
    const int roll = in_range(0, 99);
    int field = center + in_range(-spread, spread) + bias;
    field = std::max(1, std::min((1 << exponent_bits) - 2, field));
    if (roll < 3) return sign << (exponent_bits + fraction_bits);
    if (roll < 6) field = 0;
    return (sign << (exponent_bits + fraction_bits)) |
           (static_cast<std::uint32_t>(field) << fraction_bits) | fraction;
  }

  float random_accumulator(int center, int spread) {
    const int roll = in_range(0, 99);
    if (roll < 5) return roll % 2 == 0 ? 0.0f : -0.0f;
    const int field = std::max(0, std::min(254, center + in_range(-spread, spread) + 127));
    return nx::float_from_bits((next() & 0x807fffffu) | (static_cast<std::uint32_t>(field) << 23));
  }

  MmaFormat format_;
  std::vector<std::uint32_t> words_;
  std::size_t used_ = 0;
  Blocks blocks_;
};

// Enough blocks that each kind meets each rule many times; prime, so the
// last kernel block is partly empty.
constexpr int kRandomBlocks = 2003;

TEST_P(Ex4PredictMma, Ex4_RandomFp16Blocks) {
  expect_predicted(RandomBlocks(rng_, MmaFormat::fp16, kRandomBlocks).blocks(),
                   "predict_mma on random fp16 blocks");
}

TEST_P(Ex4PredictMma, Ex4_RandomBf16Blocks) {
  expect_predicted(RandomBlocks(rng_, MmaFormat::bf16, kRandomBlocks).blocks(),
                   "predict_mma on random bf16 blocks");
}

TEST_P(Ex4PredictMma, Ex4_RandomTf32Blocks) {
  expect_predicted(RandomBlocks(rng_, MmaFormat::tf32, kRandomBlocks).blocks(),
                   "predict_mma on random TF32 blocks (raw fp32 operands)");
}

CUDALAB_ON_BOTH_BACKENDS(Ex4PredictMma);

}  // namespace
}  // namespace lab02
