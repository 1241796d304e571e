// Exercise 1: round_to_fp16, round_to_bf16 and round_to_tf32, bit for bit.
//
// The expected bits come from cudalab::numerics, whose conversions the H200
// reproduced on every input of this kind (docs/numerics.md). Where rounding
// can go wrong, the inputs are all there: every fp16 and bf16 value (each
// must convert back to itself), the exact midpoint between each pair of
// neighbours (ties go to the even one) and the floats one fp32 ulp either
// side of it; random floats from 2^-149 to overflow; NaNs with payloads,
// infinities, zeros; and for TF32 the ties and carries of the issue. A
// failure lists the first wrong inputs in hex with what was expected and
// which rule they exercise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
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

// What an unwritten output element holds: a NaN no correct conversion returns.
constexpr std::uint16_t kUnwritten16 = 0x7e01u;
constexpr std::uint32_t kUnwritten32 = 0x7fc00001u;

std::string value_text(float x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", x);
  return text;
}

// The wrong inputs of one call: how many, and the first few of each rule (at
// most two per rule, eight in all), so that one message shows every kind of
// mistake.
class WrongInputs {
 public:
  void add(const std::string& rule, const std::string& line) {
    ++count_;
    if (shown_ >= 8 || per_rule_[rule] >= 2) return;
    ++per_rule_[rule];
    ++shown_;
    text_ += "\n  " + line + "  [" + rule + "]";
  }
  std::size_t count() const { return count_; }
  const std::string& text() const { return text_; }

 private:
  std::map<std::string, int> per_rule_;
  std::size_t count_ = 0;
  int shown_ = 0;
  std::string text_;
};

// A 16-bit format as the tests see it.
struct Format16 {
  const char* name;
  int fraction_bits;  // 10 (fp16) or 7 (bf16)
  std::uint16_t infinity;
  std::uint16_t (*round)(float);
  float (*widen)(std::uint16_t);
  const decltype(harness::entry::to_fp16)& convert;  // to_fp16 or to_bf16
};

const Format16 kFp16{"fp16",
                     10,
                     nx::fp16_infinity,
                     nx::fp32_to_fp16_bits,
                     nx::fp16_bits_to_fp32,
                     harness::entry::to_fp16};
const Format16 kBf16{"bf16",
                     7,
                     nx::bf16_infinity,
                     nx::fp32_to_bf16_bits,
                     nx::bf16_bits_to_fp32,
                     harness::entry::to_bf16};

// The rule an input exercises, for the failure message.
std::string rule_for(float x, std::uint16_t expected, const Format16& format) {
  if (std::isnan(x)) return "a NaN: every NaN becomes 0x7fff";
  if (std::isinf(x)) return "infinity keeps its sign";
  const std::uint16_t magnitude = expected & 0x7fffu;
  if (magnitude == format.infinity) return "too large: rounds to infinity";
  // Halfway between the expected value and its neighbour on x's side?
  const double e = format.widen(magnitude);
  const double ax = std::fabs(static_cast<double>(x));
  if (ax != e && !(magnitude == 0 && ax < e)) {
    const std::uint16_t toward = ax > e ? magnitude + 1 : magnitude - 1;
    const double neighbour = toward == format.infinity
                                 ? std::ldexp(1.0, format.fraction_bits == 10 ? 16 : 128)
                                 : static_cast<double>(format.widen(toward));
    if (2.0 * std::fabs(ax - e) == std::fabs(neighbour - e)) {
      return "exactly halfway: ties go to the neighbour whose last bit is 0";
    }
  }
  if ((magnitude >> format.fraction_bits) == 0) {
    return magnitude == 0 ? "rounds to zero (sign kept)" : "subnormal in the format";
  }
  return ax == e ? "exactly representable: must come back unchanged" : "round to nearest";
}

// Bit for bit, with the first few wrong inputs spelled out.
::testing::AssertionResult same_bits(const std::vector<float>& in,
                                     const std::vector<std::uint16_t>& got,
                                     const std::vector<std::uint16_t>& expected,
                                     const Format16& format, const std::string& what) {
  WrongInputs wrong;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (got[i] == expected[i]) continue;
    wrong.add(
        rule_for(in[i], expected[i], format),
        "x = " + hex(nx::float_bits(in[i]), 8) + " (" + value_text(in[i]) + "): you gave " +
            (got[i] == kUnwritten16 ? std::string("nothing (never written)") : hex(got[i], 4)) +
            ", expected " + hex(expected[i], 4));
  }
  if (wrong.count() == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << wrong.count() << " of " << in.size()
                                       << " inputs converted wrongly, for example:" << wrong.text();
}

// Every pattern's value, and for each pair of neighbouring finite values of
// one sign the midpoint and the floats one fp32 ulp below and above it.
std::vector<float> every_value_and_midpoint(const Format16& format) {
  std::vector<float> in;
  for (std::uint32_t pattern = 0; pattern <= 0xffffu; ++pattern) {
    in.push_back(format.widen(static_cast<std::uint16_t>(pattern)));
  }
  for (std::uint16_t p = 0; p < format.infinity; ++p) {
    const double low = format.widen(p);
    const double high = p + 1 == format.infinity
                            ? std::ldexp(1.0, format.fraction_bits == 10 ? 16 : 128)
                            : static_cast<double>(format.widen(static_cast<std::uint16_t>(p + 1)));
    const auto midpoint = static_cast<float>((low + high) / 2);  // exact in fp32
    for (float sign : {1.0f, -1.0f}) {
      const float m = sign * midpoint;
      in.push_back(m);
      in.push_back(std::nextafter(m, -std::numeric_limits<float>::infinity()));
      in.push_back(std::nextafter(m, std::numeric_limits<float>::infinity()));
    }
  }
  return in;
}

// Random floats whose exponents cover all of fp32 (2^-149 .. infinity), half
// of them packed around the format's overflow and subnormal edges, a quarter
// exact ties; then zeros, infinities and NaNs with all kinds of payloads.
std::vector<float> random_and_special_floats(cudalab::Random& rng, std::size_t n,
                                             const Format16& format) {
  const std::vector<std::uint32_t> patterns = rng.uniform<std::uint32_t>(n, 0u, 0xffffffffu);
  const std::vector<int> kinds = rng.uniform<int>(n, 0, 3);
  // The format's largest exponent and the exponent of its smallest subnormal.
  const int top = format.fraction_bits == 10 ? 15 : 127;
  const int bottom = format.fraction_bits == 10 ? -24 : -133;
  std::vector<float> in;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t bits = patterns[i];
    if (kinds[i] == 3) {
      // Exactly halfway between two values of the format (a normal one for fp16).
      const int shift = 23 - format.fraction_bits;
      bits = (bits & ~((1u << shift) - 1u)) | (1u << (shift - 1));
    } else if (kinds[i] != 0) {
      // Exponent within 2 of an edge, random sign and fraction.
      const int edge = kinds[i] == 1 ? top : bottom;
      const int exponent = edge - 2 + static_cast<int>((bits >> 23) % 5);
      const int field = std::max(0, std::min(254, exponent + 127));
      bits = (bits & 0x807fffffu) | (static_cast<std::uint32_t>(field) << 23);
    }
    in.push_back(nx::float_from_bits(bits));
  }
  for (std::uint32_t special :
       {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u,
        0xff800001u, 0x7fbfffffu, 0x7fffffffu, 0xffffffffu, 0x7f801000u, 0x7fa00000u, 0x00000001u,
        0x80000001u, 0x007fffffu, 0x7f7fffffu, 0xff7fffffu}) {
    in.push_back(nx::float_from_bits(special));
  }
  return in;
}

class Ex1Formats : public OnBackend {
 protected:
  void expect_converts(const Format16& format, const std::vector<float>& in,
                       const std::string& what) {
    std::vector<std::uint16_t> expected(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) expected[i] = format.round(in[i]);
    std::vector<std::uint16_t> got(in.size(), kUnwritten16);
    const Observation run = backend().call(format.convert, got, in, static_cast<int>(in.size()));
    ASSERT_TRUE(ran(run)) << what;
    EXPECT_TRUE(same_bits(in, got, expected, format, what));
    EXPECT_TRUE(nothing_written_outside(run, what));
  }

  void expect_every_pattern(const Format16& format) {
    const std::vector<float> in = every_value_and_midpoint(format);
    // The test itself: each pattern's value must map back to the pattern.
    for (std::uint32_t p = 0; p <= 0xffffu; ++p) {
      const bool nan = (p & 0x7fffu) > format.infinity;
      ASSERT_EQ(format.round(in[p]), nan ? 0x7fffu : p) << "test bug at pattern " << hex(p, 4);
    }
    expect_converts(format, in,
                    std::string("round_to_") + format.name + " on every " + format.name +
                        " value and the midpoints between neighbours");
  }
};

TEST_P(Ex1Formats, Ex1_Fp16EveryValueAndEveryMidpoint) { expect_every_pattern(kFp16); }

TEST_P(Ex1Formats, Ex1_Bf16EveryValueAndEveryMidpoint) { expect_every_pattern(kBf16); }

TEST_P(Ex1Formats, Ex1_Fp16RandomFloatsAndSpecials) {
  expect_converts(kFp16, random_and_special_floats(rng_, 40009, kFp16),
                  "round_to_fp16 on random floats (overflow, subnormals, NaN payloads)");
}

TEST_P(Ex1Formats, Ex1_Bf16RandomFloatsAndSpecials) {
  expect_converts(kBf16, random_and_special_floats(rng_, 40009, kBf16),
                  "round_to_bf16 on random floats (overflow, subnormals, NaN payloads)");
}

CUDALAB_ON_BOTH_BACKENDS(Ex1Formats);

// ---- TF32 -------------------------------------------------------------------

const char* name_of(Tf32Rounding rounding) {
  switch (rounding) {
    case Tf32Rounding::toward_zero:
      return "toward_zero";
    case Tf32Rounding::ties_away:
      return "ties_away";
    case Tf32Rounding::nearest_even:
      return "nearest_even";
  }
  return "?";
}

constexpr Tf32Rounding kRoundings[] = {Tf32Rounding::toward_zero, Tf32Rounding::ties_away,
                                       Tf32Rounding::nearest_even};

std::string tf32_rule_for(std::uint32_t x, Tf32Rounding rounding) {
  const std::uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u) {
    return rounding == Tf32Rounding::ties_away
               ? "a NaN: ties away clears its low 13 bits like any pattern"
               : "a NaN: toward zero and nearest even return 0x7fffe000";
  }
  const std::uint32_t dropped = x & 0x1fffu;
  std::string rule = rounding == Tf32Rounding::toward_zero ? "toward zero: the low 13 bits go"
                     : dropped != 0x1000u                  ? "to the nearest TF32 value"
                     : rounding == Tf32Rounding::ties_away
                         ? "exactly halfway: ties go away from zero"
                         : "exactly halfway: ties go to the neighbour whose last bit is 0";
  if ((magnitude & 0x007fe000u) == 0x007fe000u && dropped != 0 &&
      rounding != Tf32Rounding::toward_zero) {
    rule += (magnitude >> 23) == 0xfe ? "; rounding up reaches infinity"
                                      : "; rounding up carries into the exponent";
  }
  return rule;
}

::testing::AssertionResult same_tf32_bits(const std::vector<float>& in,
                                          const std::vector<float>& got,
                                          const std::vector<float>& expected, Tf32Rounding rounding,
                                          const std::string& what) {
  WrongInputs wrong;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::uint32_t g = nx::float_bits(got[i]);
    const std::uint32_t e = nx::float_bits(expected[i]);
    if (g == e) continue;
    const std::uint32_t x = nx::float_bits(in[i]);
    wrong.add(tf32_rule_for(x, rounding),
              "x = " + hex(x, 8) + " (" + value_text(in[i]) + "): you gave " +
                  (g == kUnwritten32 ? std::string("nothing (never written)") : hex(g, 8)) +
                  ", expected " + hex(e, 8));
  }
  if (wrong.count() == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << wrong.count() << " of " << in.size()
                                       << " inputs rounded wrongly, for example:" << wrong.text();
}

class Ex1Tf32 : public OnBackend {
 protected:
  void expect_rounds(const std::vector<float>& in, Tf32Rounding rounding,
                     const std::string& inputs) {
    const std::string what =
        std::string("round_to_tf32(x, ") + name_of(rounding) + ") on " + inputs;
    std::vector<float> expected(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) expected[i] = nx::fp32_to_tf32(in[i], rounding);
    std::vector<float> got(in.size(), nx::float_from_bits(kUnwritten32));
    const Observation run =
        backend().call(harness::entry::to_tf32, got, in, static_cast<int>(in.size()), rounding);
    ASSERT_TRUE(ran(run)) << what;
    EXPECT_TRUE(same_tf32_bits(in, got, expected, rounding, what));
    EXPECT_TRUE(nothing_written_outside(run, what));
  }
};

// The ties and the carries, with their answers written out.
TEST_P(Ex1Tf32, Ex1_Tf32TiesAndCarries) {
  struct Case {
    std::uint32_t x, toward_zero, ties_away, nearest_even;
  };
  const Case cases[] = {
      {0x3f801000u, 0x3f800000u, 0x3f802000u, 0x3f800000u},  // 1 + 2^-11: halfway, even below
      {0x3f801800u, 0x3f800000u, 0x3f802000u, 0x3f802000u},  // above halfway
      {0x3f803000u, 0x3f802000u, 0x3f804000u, 0x3f804000u},  // halfway, even above
      {0x3f800fffu, 0x3f800000u, 0x3f800000u, 0x3f800000u},  // just below halfway
      {0xbf801000u, 0xbf800000u, 0xbf802000u, 0xbf800000u},  // negative: magnitudes round
      {0xbf801800u, 0xbf800000u, 0xbf802000u, 0xbf802000u},
      {0x3fbff000u, 0x3fbfe000u, 0x3fc00000u, 0x3fc00000u},  // 1.9995..: tie, odd below: carry
      {0x3ffff000u, 0x3fffe000u, 0x40000000u, 0x40000000u},  // carry into the exponent: 2.0
      {0x3fffffffu, 0x3fffe000u, 0x40000000u, 0x40000000u},
      {0x7f7fffffu, 0x7f7fe000u, 0x7f800000u, 0x7f800000u},  // the largest float: to infinity
      {0x7f7ff000u, 0x7f7fe000u, 0x7f800000u, 0x7f800000u},  // halfway to infinity
      {0x00001000u, 0x00000000u, 0x00002000u, 0x00000000u},  // subnormal tie, even is 0
      {0x00003000u, 0x00002000u, 0x00004000u, 0x00004000u},  // subnormal tie, even above
      {0x007ff000u, 0x007fe000u, 0x00800000u, 0x00800000u},  // subnormal carries to normal
      {0x80000001u, 0x80000000u, 0x80000000u, 0x80000000u},  // to -0
      {0x7f800000u, 0x7f800000u, 0x7f800000u, 0x7f800000u},  // infinity stays
      {0xff800000u, 0xff800000u, 0xff800000u, 0xff800000u},
      {0x7fc00000u, 0x7fffe000u, 0x7fc00000u, 0x7fffe000u},  // NaN (H200's rules)
      {0xffc00123u, 0x7fffe000u, 0xffc00000u, 0x7fffe000u},
      {0x7f800001u, 0x7fffe000u, 0x7f800000u, 0x7fffe000u},  // payload only in the low 13 bits
  };
  std::vector<float> in;
  for (const Case& c : cases) in.push_back(nx::float_from_bits(c.x));
  for (Tf32Rounding rounding : kRoundings) {
    // The table is the model's (checked on the H200): a wrong row is a test bug.
    for (const Case& c : cases) {
      const std::uint32_t answer = rounding == Tf32Rounding::toward_zero ? c.toward_zero
                                   : rounding == Tf32Rounding::ties_away ? c.ties_away
                                                                         : c.nearest_even;
      ASSERT_EQ(nx::float_bits(nx::fp32_to_tf32(nx::float_from_bits(c.x), rounding)), answer)
          << "test bug: row " << hex(c.x, 8) << ", " << name_of(rounding);
    }
    expect_rounds(in, rounding, "the ties, carries and specials of the issue");
  }
}

// Random patterns over the whole fp32 range, a quarter of them exact ties
// (low 13 bits 0x1000), a few with all 13 low bits set, plus NaN payloads.
TEST_P(Ex1Tf32, Ex1_Tf32RandomFloatsAndSpecials) {
  const std::size_t n = 30011;
  for (Tf32Rounding rounding : kRoundings) {
    const std::vector<std::uint32_t> patterns = rng_.uniform<std::uint32_t>(n, 0u, 0xffffffffu);
    const std::vector<int> kinds = rng_.uniform<int>(n, 0, 7);
    std::vector<float> in;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t bits = patterns[i];
      if (kinds[i] <= 1) bits = (bits & ~0x1fffu) | 0x1000u;  // a tie
      if (kinds[i] == 2) bits |= 0x007fe000u;                 // may carry
      if (kinds[i] == 3) bits |= 0x7f800000u;                 // inf or NaN, random payload
      in.push_back(nx::float_from_bits(bits));
    }
    expect_rounds(in, rounding, "random floats, ties, carries and NaN payloads");
  }
}

CUDALAB_ON_BOTH_BACKENDS(Ex1Tf32);

}  // namespace
}  // namespace lab02
