// What the bit-layout view draws: one fp32 value and what each narrower
// format makes of it (TF32 in its three roundings, bf16, fp16): the sign,
// exponent and mantissa bits, the input's low mantissa bits the conversion
// dropped, the decoded value and its relative error against the input.
// Computed with cudalab::numerics, the functions the lab's tests compare the
// student's conversions with (backend-free, no ImGui).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "palette.hpp"

namespace cudalab::viewer {

enum class BitField { kSign, kExponent, kMantissa, kDropped };

// What kind of number a pattern encodes.
enum class ValueClass { kZero, kSubnormal, kNormal, kInfinity, kNaN };

// How the kept bits compare with the input: the conversion rounded the
// magnitude up, down, or kept it exactly.
enum class RoundingDirection { kExact, kDown, kUp };

struct FormatBits {
  std::string name;  // "fp32", "TF32 nearest even", "bf16", "fp16"
  int exponent_bits = 8, mantissa_bits = 23;
  // The format's own pattern, right-aligned: 1 + exponent_bits + mantissa_bits
  // bits (a TF32 value is its fp32 pattern shifted right by 13).
  std::uint32_t bits = 0;
  double decoded = 0;         // the value the pattern encodes
  double relative_error = 0;  // |decoded - input| / |input|; 0 when both are 0
  ValueClass value_class = ValueClass::kNormal;
  RoundingDirection direction = RoundingDirection::kExact;
  // The input's low fp32 mantissa bits this format cannot hold (13 for TF32
  // and normal fp16, 16 for bf16, more for an fp16 subnormal); 0 for fp32.
  int dropped_bits = 0;
  std::uint32_t dropped = 0;  // their value
  bool tie = false;           // dropped == exactly half a step of the kept bits
  bool overflowed = false;    // a finite input became infinity
  bool flushed = false;       // a non-zero input became zero

  int width() const { return 1 + exponent_bits + mantissa_bits; }
  // Bit i from the left (0: the sign), of the pattern then the dropped bits.
  int bit(int i) const;
  BitField field(int i) const;
  int cells() const { return width() + dropped_bits; }
};

struct BitLayout {
  float input = 0;
  std::uint32_t input_bits = 0;
  std::vector<FormatBits> formats;  // fp32 first, then TF32 x3, bf16, fp16
};

// Every format's view of `value`.
BitLayout bit_layout(float value);

// The colour of a cell of `field`; the dropped bits stand out.
Rgba field_colour(BitField field);

// Where cell i of a format's row starts, in cell widths from the row's left
// edge: the fields are set apart by a small gap (sign | exponent | mantissa |
// dropped).
inline constexpr double kFieldGap = 0.35;
double cell_offset(const FormatBits& format, int i);
// Cell widths of a whole row, gaps included.
double row_extent(const FormatBits& format);

// A typed value: a decimal ("1e-6", "-65520", "nan", "inf") or an fp32 bit
// pattern in hex ("0x3f801000"); nullopt for anything else.
std::optional<float> parse_value(const std::string& text);

// "1.00048828125", "inf", "nan", "6.1035156e-05": the value as the view prints it.
std::string format_value(double value);
// "normal", "subnormal", ...
std::string to_string(ValueClass value_class);
// One line under a format's bits: "dropped 13 bits: 0x1000 (exactly half a
// step: a tie) -> rounded down; relative error 4.9e-04".
std::string describe(const FormatBits& format);

}  // namespace cudalab::viewer
