#include "bit_layout_model.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cudalab/numerics.hpp"

namespace cudalab::viewer {
namespace {

namespace nx = cudalab::numerics;

constexpr std::uint32_t kFp32MantissaMask = 0x7fffffu;

ValueClass classify(std::uint32_t bits, int exponent_bits, int mantissa_bits) {
  const std::uint32_t exponent = (bits >> mantissa_bits) & ((1u << exponent_bits) - 1u);
  const std::uint32_t mantissa = bits & ((1u << mantissa_bits) - 1u);
  if (exponent == (1u << exponent_bits) - 1u)
    return mantissa != 0 ? ValueClass::kNaN : ValueClass::kInfinity;
  if (exponent == 0) return mantissa != 0 ? ValueClass::kSubnormal : ValueClass::kZero;
  return ValueClass::kNormal;
}

// The input's low significand bits a conversion keeping `kept_fraction_bits`
// of its fraction cannot hold; `kept_fraction_bits` may be negative (an fp16
// subnormal far below 2^-14 keeps nothing, not even the leading 1).
void set_dropped(FormatBits& f, std::uint32_t input_bits, int kept_fraction_bits) {
  const std::uint32_t exponent = (input_bits >> 23) & 0xffu;
  if (exponent == 0xffu) return;  // infinity and NaN keep no rounding to show
  // The significand with its leading 1 (bit 23) when the input is normal.
  const std::uint32_t significand = (input_bits & kFp32MantissaMask) | (exponent ? 1u << 23 : 0u);
  const int dropped = 23 - kept_fraction_bits;
  if (dropped > 24) {  // below half the smallest step: everything goes, no tie
    f.dropped_bits = 24;
    f.dropped = significand;
    return;
  }
  f.dropped_bits = dropped;
  f.dropped = significand & ((1u << dropped) - 1u);
  f.tie = f.dropped == 1u << (dropped - 1);
}

FormatBits finish(FormatBits f, float input) {
  f.value_class = classify(f.bits, f.exponent_bits, f.mantissa_bits);
  const double in = input;
  if (std::isnan(in) || std::isnan(f.decoded)) {
    f.relative_error = NAN;
  } else if (in == 0) {
    f.relative_error = f.decoded == 0 ? 0.0 : INFINITY;
  } else {
    f.relative_error = std::fabs(f.decoded - in) / std::fabs(in);
  }
  if (!std::isnan(in) && std::fabs(f.decoded) != std::fabs(in))
    f.direction =
        std::fabs(f.decoded) > std::fabs(in) ? RoundingDirection::kUp : RoundingDirection::kDown;
  f.overflowed = std::isfinite(in) && std::isinf(f.decoded);
  f.flushed = in != 0 && !std::isnan(in) && f.decoded == 0;
  return f;
}

FormatBits tf32(float value, nx::Tf32Rounding rounding, const char* name) {
  FormatBits f;
  f.name = name;
  f.mantissa_bits = 10;
  const float out = nx::fp32_to_tf32(value, rounding);
  f.bits = nx::float_bits(out) >> 13;
  f.decoded = out;
  set_dropped(f, nx::float_bits(value), 10);
  return finish(f, value);
}

// fp16 keeps 10 fraction bits of a normal result; below 2^-14 the result is
// subnormal and each binade lower keeps one bit fewer.
int fp16_kept_fraction_bits(std::uint32_t input_bits) {
  const int exponent = static_cast<int>((input_bits >> 23) & 0xffu) - 127;
  return exponent >= -14 ? 10 : 10 - (-14 - exponent);
}

}  // namespace

int FormatBits::bit(int i) const {
  if (i < width()) return static_cast<int>((bits >> (width() - 1 - i)) & 1u);
  return static_cast<int>((dropped >> (dropped_bits - 1 - (i - width()))) & 1u);
}

BitField FormatBits::field(int i) const {
  if (i == 0) return BitField::kSign;
  if (i <= exponent_bits) return BitField::kExponent;
  if (i < width()) return BitField::kMantissa;
  return BitField::kDropped;
}

BitLayout bit_layout(float value) {
  BitLayout layout;
  layout.input = value;
  layout.input_bits = nx::float_bits(value);

  FormatBits fp32;
  fp32.name = "fp32";
  fp32.bits = layout.input_bits;
  fp32.decoded = value;
  layout.formats.push_back(finish(fp32, value));

  layout.formats.push_back(tf32(value, nx::Tf32Rounding::toward_zero, "TF32 toward zero"));
  layout.formats.push_back(tf32(value, nx::Tf32Rounding::ties_away, "TF32 ties away"));
  layout.formats.push_back(tf32(value, nx::Tf32Rounding::nearest_even, "TF32 nearest even"));

  FormatBits bf16;
  bf16.name = "bf16";
  bf16.mantissa_bits = 7;
  bf16.bits = nx::fp32_to_bf16_bits(value);
  bf16.decoded = nx::bf16_bits_to_fp32(static_cast<std::uint16_t>(bf16.bits));
  set_dropped(bf16, layout.input_bits, 7);
  layout.formats.push_back(finish(bf16, value));

  FormatBits fp16;
  fp16.name = "fp16";
  fp16.exponent_bits = 5;
  fp16.mantissa_bits = 10;
  fp16.bits = nx::fp32_to_fp16_bits(value);
  fp16.decoded = nx::fp16_bits_to_fp32(static_cast<std::uint16_t>(fp16.bits));
  set_dropped(fp16, layout.input_bits, fp16_kept_fraction_bits(layout.input_bits));
  layout.formats.push_back(finish(fp16, value));
  return layout;
}

double cell_offset(const FormatBits& format, int i) {
  int boundaries = 0;
  for (int j = 1; j <= i; ++j) boundaries += format.field(j) != format.field(j - 1);
  return i + kFieldGap * boundaries;
}

double row_extent(const FormatBits& format) {
  return format.cells() == 0 ? 0.0 : cell_offset(format, format.cells() - 1) + 1.0;
}

std::optional<float> parse_value(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return std::nullopt;
  const std::string t = text.substr(first, text.find_last_not_of(" \t") - first + 1);
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    std::uint32_t bits = 0;
    const auto [end, ec] = std::from_chars(t.data() + 2, t.data() + t.size(), bits, 16);
    if (ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
    return nx::float_from_bits(bits);
  }
  char* end = nullptr;
  const float value = std::strtof(t.c_str(), &end);
  if (end != t.c_str() + t.size()) return std::nullopt;
  return value;  // strtof gives inf for too large a number, as the fp32 conversion would
}

Rgba field_colour(BitField field) {
  switch (field) {
    case BitField::kSign:
      return {120, 170, 245, 255};
    case BitField::kExponent:
      return {110, 200, 130, 255};
    case BitField::kMantissa:
      return {235, 190, 90, 255};
    case BitField::kDropped:
      return {225, 80, 80, 255};
  }
  return {};
}

std::string format_value(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char text[40];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

std::string to_string(ValueClass value_class) {
  switch (value_class) {
    case ValueClass::kZero:
      return "zero";
    case ValueClass::kSubnormal:
      return "subnormal";
    case ValueClass::kNormal:
      return "normal";
    case ValueClass::kInfinity:
      return "infinity";
    case ValueClass::kNaN:
      return "NaN";
  }
  return "?";
}

std::string describe(const FormatBits& f) {
  char text[200];
  int n = 0;
  if (f.dropped_bits > 0) {
    n = std::snprintf(text, sizeof text, "dropped %d bits: 0x%x%s -> %s", f.dropped_bits, f.dropped,
                      f.tie ? " (exactly half a step: a tie)" : "",
                      f.direction == RoundingDirection::kExact ? "exact"
                      : f.direction == RoundingDirection::kUp  ? "rounded up"
                                                               : "rounded down");
  } else {
    n = std::snprintf(text, sizeof text, "nothing dropped");
  }
  std::snprintf(text + n, sizeof text - n, "; relative error %.2e", f.relative_error);
  std::string out = text;
  if (f.overflowed) out += "; OVERFLOW to infinity";
  if (f.flushed) out += "; UNDERFLOW to zero";
  return out;
}

}  // namespace cudalab::viewer
