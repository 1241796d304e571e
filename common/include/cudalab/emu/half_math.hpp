// The half and bfloat16 device math that cuda_fp16.h and cuda_bf16.h declare
// only for nvcc: under the host compiler CUDA 13 already provides arithmetic
// (__hadd, __hmul2, ...), comparisons, min/max, float conversions and the
// operators, but not the functions below (docs/emulator.md, "Half and
// bfloat16 math", has the whole list). They are declared in
// cudalab::emu::device_api; shim.hpp makes them visible at global scope.
//
// Rounding is the GPU's:
//   * fma, division, square root and the conversions are correctly rounded
//     (to nearest even unless the name says _rz/_rd/_ru), as on the GPU;
//   * exp, log, sin, ... are the correctly rounded value of the exact
//     function. The GPU computes them in float with its approximate
//     instructions and rounds that to half or bfloat16; on the H200 the two
//     agreed on every input, except htanh_approx (the GPU's tanh.approx.f16
//     is not correctly rounded): 1 ulp apart on 22% of the half inputs
//     (docs/emulator.md, "Half and bfloat16 math").
// A NaN result is the canonical NaN 0x7fff, as the GPU's arithmetic returns.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace cudalab::emu {
namespace half_math {

// A binary floating-point format of 16 bits: sign, exponent, fraction.
struct Format {
  int fraction_bits;
  int exponent_bits;
};
inline constexpr Format kHalf{10, 5};
inline constexpr Format kBfloat16{7, 8};
inline constexpr std::uint16_t kCanonicalNan = 0x7fff;

enum class Rounding { to_nearest_even, toward_zero, down, up };

// The 16-bit pattern of (-1)^negative * significand * 2^exponent, rounded once.
inline std::uint16_t round_to_format(bool negative, std::uint64_t significand, int exponent,
                                     Format format, Rounding rounding) {
  const std::uint16_t sign = negative ? 0x8000 : 0;
  const int bias = (1 << (format.exponent_bits - 1)) - 1;
  const int max_field = (1 << format.exponent_bits) - 1;
  if (significand == 0) return sign;
  // Exponent of the leading bit, and of the last bit the format keeps there.
  const int leading = exponent + 63 - std::countl_zero(significand);
  const int min_normal = 1 - bias;
  const int quantum = std::max(leading, min_normal) - format.fraction_bits;
  std::uint64_t kept = 0;
  bool half_bit = false;  // the first dropped bit
  bool below = false;     // anything below it
  const int shift = quantum - exponent;
  if (shift <= 0) {
    kept = significand << -shift;  // exact: the value has no more bits than the format
  } else if (shift <= 64) {
    kept = shift == 64 ? 0 : significand >> shift;
    half_bit = (significand >> (shift - 1)) & 1;
    below = (significand & ((std::uint64_t{1} << (shift - 1)) - 1)) != 0;
  } else {
    below = true;
  }
  const bool inexact = half_bit || below;
  bool up = false;
  switch (rounding) {
    case Rounding::to_nearest_even:
      up = half_bit && (below || (kept & 1));
      break;
    case Rounding::toward_zero:
      break;
    case Rounding::down:
      up = negative && inexact;
      break;
    case Rounding::up:
      up = !negative && inexact;
      break;
  }
  kept += up;
  int q = quantum;
  if (kept >> (format.fraction_bits + 1)) {  // rounding carried into a new leading bit
    kept >>= 1;
    ++q;
  }
  const bool normal = (kept >> format.fraction_bits) != 0;
  const int field = normal ? q + format.fraction_bits + bias : 0;
  if (field >= max_field) {  // overflow: infinity, or the largest finite value
    const bool to_infinity = rounding == Rounding::to_nearest_even ||
                             (rounding == Rounding::up && !negative) ||
                             (rounding == Rounding::down && negative);
    const std::uint16_t inf = static_cast<std::uint16_t>(max_field << format.fraction_bits);
    return sign | (to_infinity ? inf : inf - 1);
  }
  const std::uint64_t fraction = kept & ((std::uint64_t{1} << format.fraction_bits) - 1);
  return sign | static_cast<std::uint16_t>((field << format.fraction_bits) | fraction);
}

// A double rounded to the format. Correct when the double is the exact value
// or the exact value rounded to odd (below): a double has more than two bits
// beyond either format's precision, so no double rounding occurs.
inline std::uint16_t round_double(double v, Format format, Rounding rounding) {
  if (std::isnan(v)) return kCanonicalNan;
  const bool negative = std::signbit(v);
  if (std::isinf(v)) {
    return static_cast<std::uint16_t>((negative ? 0x8000 : 0) |
                                      (((1 << format.exponent_bits) - 1) << format.fraction_bits));
  }
  int exponent = 0;
  const double fraction = std::frexp(std::fabs(v), &exponent);
  const auto significand = static_cast<std::uint64_t>(std::ldexp(fraction, 53));
  return round_to_format(negative, significand, exponent - 53, format, rounding);
}

// Round to odd: of the two doubles around the exact value, the one whose last
// bit is odd (the exact value itself when it is a double). `rounded` is the
// round-to-nearest result and `error` the exact value minus it.
inline double to_odd(double rounded, double error) {
  if (error == 0 || (std::bit_cast<std::uint64_t>(rounded) & 1)) return rounded;
  return std::nextafter(rounded, error > 0 ? INFINITY : -INFINITY);
}
inline double sum_to_odd(double a, double b) {
  const double s = a + b;
  if (!std::isfinite(s)) return s;
  const double b_part = s - a;  // Knuth's TwoSum: the sum's error, exactly
  const double error = (a - (s - b_part)) + (b - b_part);
  return to_odd(s, error);
}
inline double quotient_to_odd(double a, double b) {
  const double q = a / b;
  if (!std::isfinite(q) || q == 0 || std::isinf(a)) return q;
  const double remainder = std::fma(-q, b, a);  // exact
  return to_odd(q, std::signbit(b) ? -remainder : remainder);
}
inline double sqrt_to_odd(double a) {
  const double s = std::sqrt(a);
  if (!std::isfinite(s) || s == 0) return s;
  return to_odd(s, std::fma(-s, s, a));
}

// What each 16-bit type converts through.
template <class T>
struct Traits;
template <>
struct Traits<__half> {
  static constexpr Format format = kHalf;
  static double value(__half h) { return __half2float(h); }
  static __half from_bits(std::uint16_t bits) { return __ushort_as_half(bits); }
};
template <>
struct Traits<__nv_bfloat16> {
  static constexpr Format format = kBfloat16;
  static double value(__nv_bfloat16 h) { return __bfloat162float(h); }
  static __nv_bfloat16 from_bits(std::uint16_t bits) { return __ushort_as_bfloat16(bits); }
};

template <class T>
T rounded(double v, Rounding rounding = Rounding::to_nearest_even) {
  return Traits<T>::from_bits(round_double(v, Traits<T>::format, rounding));
}
template <class T>
double value(T h) {
  return Traits<T>::value(h);
}

template <class T>
T fma(T a, T b, T c) {
  // The product of two 16-bit values is exact in a double; the sum is rounded to odd.
  return rounded<T>(sum_to_odd(value(a) * value(b), value(c)));
}
// .sat clamps to [0, 1] and turns NaN into +0; .relu turns negative results into +0.
template <class T>
T saturate(T r) {
  const double v = value(r);
  if (std::isnan(v) || v <= 0) return Traits<T>::from_bits(0);
  return v >= 1 ? rounded<T>(1.0) : r;
}
template <class T>
T relu(T r) {
  const double v = value(r);
  return (!std::isnan(v) && std::signbit(v)) ? Traits<T>::from_bits(0) : r;
}

// Float-to-integer conversion as the GPU's cvt does it: saturating, NaN to 0
// (to 0x8000000000000000 for 64-bit results).
template <class I, class T>
I to_integer(T h, Rounding rounding) {
  const double v = value(h);
  if (std::isnan(v)) {
    return sizeof(I) == 8 ? static_cast<I>(std::uint64_t{1} << 63) : I{0};
  }
  double r = v;
  switch (rounding) {
    case Rounding::to_nearest_even:
      r = std::nearbyint(v);
      break;
    case Rounding::toward_zero:
      r = std::trunc(v);
      break;
    case Rounding::down:
      r = std::floor(v);
      break;
    case Rounding::up:
      r = std::ceil(v);
      break;
  }
  if (r >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  if (r <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  return static_cast<I>(r);
}

// Integer-to-float conversion, exact for every 64-bit integer.
template <class T, class I>
T from_integer(I i, Rounding rounding) {
  const bool negative = i < 0;
  const auto magnitude =
      negative ? std::uint64_t{0} - static_cast<std::uint64_t>(i) : static_cast<std::uint64_t>(i);
  return Traits<T>::from_bits(round_to_format(negative, magnitude, 0, Traits<T>::format, rounding));
}

}  // namespace half_math

namespace device_api {

// ---- fused multiply-add, correctly rounded ----------------------------------------
#define CUDALAB_EMU_HALF_FMA(T, T2)                                                                \
  inline T __hfma(T a, T b, T c) { return half_math::fma(a, b, c); }                               \
  inline T __hfma_sat(T a, T b, T c) { return half_math::saturate(half_math::fma(a, b, c)); }      \
  inline T __hfma_relu(T a, T b, T c) { return half_math::relu(half_math::fma(a, b, c)); }         \
  inline T2 __hfma2(T2 a, T2 b, T2 c) { return T2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); } \
  inline T2 __hfma2_sat(T2 a, T2 b, T2 c) {                                                        \
    return T2(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y));                               \
  }                                                                                                \
  inline T2 __hfma2_relu(T2 a, T2 b, T2 c) {                                                       \
    return T2(__hfma_relu(a.x, b.x, c.x), __hfma_relu(a.y, b.y, c.y));                             \
  }                                                                                                \
  /* (a.x + i a.y)(b.x + i b.y) + c, as two fused multiply-adds per part. */                       \
  inline T2 __hcmadd(T2 a, T2 b, T2 c) {                                                           \
    const T real = __hfma(__hneg(a.y), b.y, __hfma(a.x, b.x, c.x));                                \
    const T imaginary = __hfma(a.y, b.x, __hfma(a.x, b.y, c.y));                                   \
    return T2(real, imaginary);                                                                    \
  }
CUDALAB_EMU_HALF_FMA(__half, __half2)
CUDALAB_EMU_HALF_FMA(__nv_bfloat16, __nv_bfloat162)
#undef CUDALAB_EMU_HALF_FMA

// ---- math functions ---------------------------------------------------------------
// sqrt and rcp are correctly rounded (rounded to odd in a double first); the
// others take the double result of <cmath>, whose error (under one double
// ulp) only matters for a value within 2^-40 of a rounding boundary.
#define CUDALAB_EMU_HALF_UNARY(T, T2, name, name2, expression) \
  inline T name(T a) {                                         \
    const double x = half_math::value(a);                      \
    return half_math::rounded<T>(expression);                  \
  }                                                            \
  inline T2 name2(T2 a) { return T2(name(a.x), name(a.y)); }
#define CUDALAB_EMU_HALF_MATH(T, T2)                                             \
  CUDALAB_EMU_HALF_UNARY(T, T2, hexp, h2exp, std::exp(x))                        \
  CUDALAB_EMU_HALF_UNARY(T, T2, hexp2, h2exp2, std::exp2(x))                     \
  CUDALAB_EMU_HALF_UNARY(T, T2, hexp10, h2exp10, std::pow(10.0, x))              \
  CUDALAB_EMU_HALF_UNARY(T, T2, hlog, h2log, std::log(x))                        \
  CUDALAB_EMU_HALF_UNARY(T, T2, hlog2, h2log2, std::log2(x))                     \
  CUDALAB_EMU_HALF_UNARY(T, T2, hlog10, h2log10, std::log10(x))                  \
  CUDALAB_EMU_HALF_UNARY(T, T2, hsqrt, h2sqrt, half_math::sqrt_to_odd(x))        \
  CUDALAB_EMU_HALF_UNARY(T, T2, hrsqrt, h2rsqrt, 1.0 / std::sqrt(x))             \
  CUDALAB_EMU_HALF_UNARY(T, T2, hrcp, h2rcp, half_math::quotient_to_odd(1.0, x)) \
  CUDALAB_EMU_HALF_UNARY(T, T2, hsin, h2sin, std::sin(x))                        \
  CUDALAB_EMU_HALF_UNARY(T, T2, hcos, h2cos, std::cos(x))                        \
  CUDALAB_EMU_HALF_UNARY(T, T2, htanh, h2tanh, std::tanh(x))                     \
  CUDALAB_EMU_HALF_UNARY(T, T2, htanh_approx, h2tanh_approx, std::tanh(x))       \
  CUDALAB_EMU_HALF_UNARY(T, T2, hfloor, h2floor, std::floor(x))                  \
  CUDALAB_EMU_HALF_UNARY(T, T2, hceil, h2ceil, std::ceil(x))                     \
  CUDALAB_EMU_HALF_UNARY(T, T2, htrunc, h2trunc, std::trunc(x))                  \
  CUDALAB_EMU_HALF_UNARY(T, T2, hrint, h2rint, std::nearbyint(x))
CUDALAB_EMU_HALF_MATH(__half, __half2)
CUDALAB_EMU_HALF_MATH(__nv_bfloat16, __nv_bfloat162)
#undef CUDALAB_EMU_HALF_MATH
#undef CUDALAB_EMU_HALF_UNARY

// ---- conversions to and from integers ------------------------------------------------
// Those CUDA's host code already defines (__half2int_rz, __int2half_rn,
// __int2bfloat16_rn, ...) are left to it.
#define CUDALAB_EMU_TO_INTEGER(T, prefix, I, name)                            \
  inline I prefix##2##name##_rn(T h) {                                        \
    return half_math::to_integer<I>(h, half_math::Rounding::to_nearest_even); \
  }                                                                           \
  inline I prefix##2##name##_rd(T h) {                                        \
    return half_math::to_integer<I>(h, half_math::Rounding::down);            \
  }                                                                           \
  inline I prefix##2##name##_ru(T h) {                                        \
    return half_math::to_integer<I>(h, half_math::Rounding::up);              \
  }
#define CUDALAB_EMU_TO_INTEGERS(T, prefix)                  \
  CUDALAB_EMU_TO_INTEGER(T, prefix, int, int)               \
  CUDALAB_EMU_TO_INTEGER(T, prefix, unsigned, uint)         \
  CUDALAB_EMU_TO_INTEGER(T, prefix, short, short)           \
  CUDALAB_EMU_TO_INTEGER(T, prefix, unsigned short, ushort) \
  CUDALAB_EMU_TO_INTEGER(T, prefix, long long, ll)          \
  CUDALAB_EMU_TO_INTEGER(T, prefix, unsigned long long, ull)
CUDALAB_EMU_TO_INTEGERS(__half, __half)
CUDALAB_EMU_TO_INTEGERS(__nv_bfloat16, __bfloat16)
#undef CUDALAB_EMU_TO_INTEGERS
#undef CUDALAB_EMU_TO_INTEGER

#define CUDALAB_EMU_INTEGER_TO_BFLOAT16(I, name)                                        \
  inline __nv_bfloat16 __##name##2bfloat16_rz(I i) {                                    \
    return half_math::from_integer<__nv_bfloat16>(i, half_math::Rounding::toward_zero); \
  }                                                                                     \
  inline __nv_bfloat16 __##name##2bfloat16_rd(I i) {                                    \
    return half_math::from_integer<__nv_bfloat16>(i, half_math::Rounding::down);        \
  }                                                                                     \
  inline __nv_bfloat16 __##name##2bfloat16_ru(I i) {                                    \
    return half_math::from_integer<__nv_bfloat16>(i, half_math::Rounding::up);          \
  }
CUDALAB_EMU_INTEGER_TO_BFLOAT16(int, int)
CUDALAB_EMU_INTEGER_TO_BFLOAT16(unsigned, uint)
CUDALAB_EMU_INTEGER_TO_BFLOAT16(short, short)
CUDALAB_EMU_INTEGER_TO_BFLOAT16(unsigned short, ushort)
CUDALAB_EMU_INTEGER_TO_BFLOAT16(long long, ll)
CUDALAB_EMU_INTEGER_TO_BFLOAT16(unsigned long long, ull)
#undef CUDALAB_EMU_INTEGER_TO_BFLOAT16

}  // namespace device_api
}  // namespace cudalab::emu
