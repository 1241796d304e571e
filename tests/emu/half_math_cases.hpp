// The functions the half-math comparison evaluates, once on the GPU
// (half_math_gpu.cu, compiled by nvcc: CUDA's device functions) and once on
// the host (half_math_gpu_test.cpp: what the emulator's kernels call, i.e.
// CUDA's host code where it has one and half_math.hpp elsewhere). Both
// translation units compile evaluate() below, so the two sides make the same
// calls by construction.
//
// A case takes up to three 64-bit words of input and returns one 64-bit word:
// 16-bit values are the low bits of a word (a pair: the low 32 bits, .x low),
// floats the low 32 bits.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__CUDACC__)
#define HALF_MATH_CASE __device__ inline
#else
#define HALF_MATH_CASE inline
#endif

namespace half_math_cases {

// How a case's inputs are drawn and its results compared.
enum class Inputs : std::uint8_t { every_16_bit_pattern, random };
enum class Compare : std::uint8_t { bits, ulp_16, ulp_pair };

struct Case {
  const char* name;
  Inputs inputs;
  Compare compare;
};

// The order is the case id that evaluate() switches on.
inline constexpr Case kCases[] = {
    {"__hneg", Inputs::every_16_bit_pattern, Compare::bits},
    {"__habs", Inputs::every_16_bit_pattern, Compare::bits},
    {"to float", Inputs::every_16_bit_pattern, Compare::bits},
    {"to int _rn", Inputs::every_16_bit_pattern, Compare::bits},
    {"to int _rz", Inputs::every_16_bit_pattern, Compare::bits},
    {"to int _rd", Inputs::every_16_bit_pattern, Compare::bits},
    {"to int _ru", Inputs::every_16_bit_pattern, Compare::bits},
    {"to uint _rn", Inputs::every_16_bit_pattern, Compare::bits},
    {"to short _rn", Inputs::every_16_bit_pattern, Compare::bits},
    {"to ushort _ru", Inputs::every_16_bit_pattern, Compare::bits},
    {"to ll _rn", Inputs::every_16_bit_pattern, Compare::bits},
    {"to ll _rd", Inputs::every_16_bit_pattern, Compare::bits},
    {"to ull _ru", Inputs::every_16_bit_pattern, Compare::bits},
    {"hsqrt", Inputs::every_16_bit_pattern, Compare::ulp_16},
    {"hrsqrt", Inputs::every_16_bit_pattern, Compare::ulp_16},
    {"hrcp", Inputs::every_16_bit_pattern, Compare::ulp_16},
    {"hexp", Inputs::every_16_bit_pattern, Compare::ulp_16},
    {"hexp2", Inputs::every_16_bit_pattern, Compare::ulp_16},
    {"hexp10", Inputs::every_16_bit_pattern, Compare::ulp_16},
    {"hlog", Inputs::every_16_bit_pattern, Compare::ulp_16},
    {"hlog2", Inputs::every_16_bit_pattern, Compare::ulp_16},
    {"hlog10", Inputs::every_16_bit_pattern, Compare::ulp_16},
    {"hsin", Inputs::every_16_bit_pattern, Compare::ulp_16},
    {"hcos", Inputs::every_16_bit_pattern, Compare::ulp_16},
    {"htanh", Inputs::every_16_bit_pattern, Compare::ulp_16},
    {"hfloor", Inputs::every_16_bit_pattern, Compare::bits},
    {"hceil", Inputs::every_16_bit_pattern, Compare::bits},
    {"htrunc", Inputs::every_16_bit_pattern, Compare::bits},
    {"hrint", Inputs::every_16_bit_pattern, Compare::bits},
    {"__hadd", Inputs::random, Compare::bits},
    {"__hsub", Inputs::random, Compare::bits},
    {"__hmul", Inputs::random, Compare::bits},
    {"__hdiv", Inputs::random, Compare::bits},
    {"__hadd_sat", Inputs::random, Compare::bits},
    {"__hmul_sat", Inputs::random, Compare::bits},
    {"__hadd_rn", Inputs::random, Compare::bits},
    {"__hmul_rn", Inputs::random, Compare::bits},
    {"__hmax", Inputs::random, Compare::bits},
    {"__hmin", Inputs::random, Compare::bits},
    {"__hmax_nan", Inputs::random, Compare::bits},
    {"__hmin_nan", Inputs::random, Compare::bits},
    {"__hlt", Inputs::random, Compare::bits},
    {"__hgeu", Inputs::random, Compare::bits},
    {"__hfma", Inputs::random, Compare::bits},
    {"__hfma_sat", Inputs::random, Compare::bits},
    {"__hfma_relu", Inputs::random, Compare::bits},
    {"__hadd2", Inputs::random, Compare::bits},
    {"__hmul2", Inputs::random, Compare::bits},
    {"__h2div", Inputs::random, Compare::bits},
    {"__hfma2", Inputs::random, Compare::bits},
    {"__hfma2_relu", Inputs::random, Compare::bits},
    {"__hcmadd", Inputs::random, Compare::bits},
    {"h2exp", Inputs::random, Compare::ulp_pair},
    {"h2sqrt", Inputs::random, Compare::ulp_pair},
    {"float to _rn", Inputs::random, Compare::bits},
    {"float to _rz", Inputs::random, Compare::bits},
    {"float to _rd", Inputs::random, Compare::bits},
    {"float to _ru", Inputs::random, Compare::bits},
    {"int to _rn", Inputs::random, Compare::bits},
    {"int to _rz", Inputs::random, Compare::bits},
    {"int to _rd", Inputs::random, Compare::bits},
    {"int to _ru", Inputs::random, Compare::bits},
    {"ll to _ru", Inputs::random, Compare::bits},
    {"ull to _rd", Inputs::random, Compare::bits},
    {"float2 to pair _rn", Inputs::random, Compare::bits},
    {"pair to float2", Inputs::random, Compare::bits},
    {"htanh_approx", Inputs::every_16_bit_pattern, Compare::ulp_16},
    {"__hsub_sat", Inputs::random, Compare::bits},
    {"__hsub_rn", Inputs::random, Compare::bits},
    {"__hmul2_sat", Inputs::random, Compare::bits},
    {"__hfma2_sat", Inputs::random, Compare::bits},
    {"__hneg2", Inputs::random, Compare::bits},
    {"__habs2", Inputs::random, Compare::bits},
    {"__hmax2", Inputs::random, Compare::bits},
    {"__hmin2_nan", Inputs::random, Compare::bits},
    {"__hle2_mask", Inputs::random, Compare::bits},
    {"h2rcp", Inputs::random, Compare::ulp_pair},
    {"h2rsqrt", Inputs::random, Compare::ulp_pair},
    {"h2exp2", Inputs::random, Compare::ulp_pair},
    {"h2exp10", Inputs::random, Compare::ulp_pair},
    {"h2log", Inputs::random, Compare::ulp_pair},
    {"h2log2", Inputs::random, Compare::ulp_pair},
    {"h2log10", Inputs::random, Compare::ulp_pair},
    {"h2sin", Inputs::random, Compare::ulp_pair},
    {"h2cos", Inputs::random, Compare::ulp_pair},
    {"h2tanh", Inputs::random, Compare::ulp_pair},
    {"h2floor", Inputs::random, Compare::bits},
    {"h2ceil", Inputs::random, Compare::bits},
    {"h2trunc", Inputs::random, Compare::bits},
    {"h2rint", Inputs::random, Compare::bits},
};
inline constexpr int kCaseCount = sizeof(kCases) / sizeof(kCases[0]);

template <class T>
struct Types;
template <>
struct Types<__half> {
  using Pair = __half2;
};
template <>
struct Types<__nv_bfloat16> {
  using Pair = __nv_bfloat162;
};

template <class T>
HALF_MATH_CASE T value(std::uint64_t w) {
  if constexpr (std::is_same_v<T, __half>) {
    return __ushort_as_half(static_cast<unsigned short>(w));
  } else {
    return __ushort_as_bfloat16(static_cast<unsigned short>(w));
  }
}
template <class T>
HALF_MATH_CASE std::uint64_t word(T v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half_as_ushort(v);
  } else {
    return __bfloat16_as_ushort(v);
  }
}
template <class T>
HALF_MATH_CASE typename Types<T>::Pair pair(std::uint64_t w) {
  return typename Types<T>::Pair(value<T>(w), value<T>(w >> 16));
}
template <class T, class P>
HALF_MATH_CASE std::uint64_t pair_word(P p) {
  return word<T>(p.x) | (word<T>(p.y) << 16);
}
HALF_MATH_CASE float as_float(std::uint64_t w) {
  const auto bits = static_cast<std::uint32_t>(w);
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}
HALF_MATH_CASE std::uint64_t float_word(float f) {
  std::uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  return bits;
}
template <class I>
HALF_MATH_CASE std::uint64_t int_word(I i) {
  return static_cast<std::uint64_t>(static_cast<long long>(i));
}

// Case `id` of kCases on type T (__half or __nv_bfloat16).
template <class T>
HALF_MATH_CASE std::uint64_t evaluate(int id, std::uint64_t wa, std::uint64_t wb,
                                      std::uint64_t wc) {
  constexpr bool half = std::is_same_v<T, __half>;
  const T a = value<T>(wa), b = value<T>(wb), c = value<T>(wc);
  const auto pa = pair<T>(wa), pb = pair<T>(wb), pc = pair<T>(wc);
  // The conversions' names differ between the two types.
#define HALF_MATH_CONVERT(half_name, bf16_name, argument) \
  if constexpr (half)                                     \
    return word<T>(half_name(argument));                  \
  else                                                    \
    return word<T>(bf16_name(argument))
  switch (id) {
    case 0:
      return word<T>(__hneg(a));
    case 1:
      return word<T>(__habs(a));
    case 2:
      if constexpr (half)
        return float_word(__half2float(a));
      else
        return float_word(__bfloat162float(a));
    case 3:
      if constexpr (half)
        return int_word(__half2int_rn(a));
      else
        return int_word(__bfloat162int_rn(a));
    case 4:
      if constexpr (half)
        return int_word(__half2int_rz(a));
      else
        return int_word(__bfloat162int_rz(a));
    case 5:
      if constexpr (half)
        return int_word(__half2int_rd(a));
      else
        return int_word(__bfloat162int_rd(a));
    case 6:
      if constexpr (half)
        return int_word(__half2int_ru(a));
      else
        return int_word(__bfloat162int_ru(a));
    case 7:
      if constexpr (half)
        return __half2uint_rn(a);
      else
        return __bfloat162uint_rn(a);
    case 8:
      if constexpr (half)
        return int_word(__half2short_rn(a));
      else
        return int_word(__bfloat162short_rn(a));
    case 9:
      if constexpr (half)
        return __half2ushort_ru(a);
      else
        return __bfloat162ushort_ru(a);
    case 10:
      if constexpr (half)
        return int_word(__half2ll_rn(a));
      else
        return int_word(__bfloat162ll_rn(a));
    case 11:
      if constexpr (half)
        return int_word(__half2ll_rd(a));
      else
        return int_word(__bfloat162ll_rd(a));
    case 12:
      if constexpr (half)
        return __half2ull_ru(a);
      else
        return __bfloat162ull_ru(a);
    case 13:
      return word<T>(hsqrt(a));
    case 14:
      return word<T>(hrsqrt(a));
    case 15:
      return word<T>(hrcp(a));
    case 16:
      return word<T>(hexp(a));
    case 17:
      return word<T>(hexp2(a));
    case 18:
      return word<T>(hexp10(a));
    case 19:
      return word<T>(hlog(a));
    case 20:
      return word<T>(hlog2(a));
    case 21:
      return word<T>(hlog10(a));
    case 22:
      return word<T>(hsin(a));
    case 23:
      return word<T>(hcos(a));
    case 24:
      return word<T>(htanh(a));
    case 25:
      return word<T>(hfloor(a));
    case 26:
      return word<T>(hceil(a));
    case 27:
      return word<T>(htrunc(a));
    case 28:
      return word<T>(hrint(a));
    case 29:
      return word<T>(__hadd(a, b));
    case 30:
      return word<T>(__hsub(a, b));
    case 31:
      return word<T>(__hmul(a, b));
    case 32:
      return word<T>(__hdiv(a, b));
    case 33:
      return word<T>(__hadd_sat(a, b));
    case 34:
      return word<T>(__hmul_sat(a, b));
    case 35:
      return word<T>(__hadd_rn(a, b));
    case 36:
      return word<T>(__hmul_rn(a, b));
    case 37:
      return word<T>(__hmax(a, b));
    case 38:
      return word<T>(__hmin(a, b));
    case 39:
      return word<T>(__hmax_nan(a, b));
    case 40:
      return word<T>(__hmin_nan(a, b));
    case 41:
      return __hlt(a, b);
    case 42:
      return __hgeu(a, b);
    case 43:
      return word<T>(__hfma(a, b, c));
    case 44:
      return word<T>(__hfma_sat(a, b, c));
    case 45:
      return word<T>(__hfma_relu(a, b, c));
    case 46:
      return pair_word<T>(__hadd2(pa, pb));
    case 47:
      return pair_word<T>(__hmul2(pa, pb));
    case 48:
      return pair_word<T>(__h2div(pa, pb));
    case 49:
      return pair_word<T>(__hfma2(pa, pb, pc));
    case 50:
      return pair_word<T>(__hfma2_relu(pa, pb, pc));
    case 51:
      return pair_word<T>(__hcmadd(pa, pb, pc));
    case 52:
      return pair_word<T>(h2exp(pa));
    case 53:
      return pair_word<T>(h2sqrt(pa));
    case 54:
      HALF_MATH_CONVERT(__float2half_rn, __float2bfloat16_rn, as_float(wa));
    case 55:
      HALF_MATH_CONVERT(__float2half_rz, __float2bfloat16_rz, as_float(wa));
    case 56:
      HALF_MATH_CONVERT(__float2half_rd, __float2bfloat16_rd, as_float(wa));
    case 57:
      HALF_MATH_CONVERT(__float2half_ru, __float2bfloat16_ru, as_float(wa));
    case 58:
      HALF_MATH_CONVERT(__int2half_rn, __int2bfloat16_rn, static_cast<int>(wa));
    case 59:
      HALF_MATH_CONVERT(__int2half_rz, __int2bfloat16_rz, static_cast<int>(wa));
    case 60:
      HALF_MATH_CONVERT(__int2half_rd, __int2bfloat16_rd, static_cast<int>(wa));
    case 61:
      HALF_MATH_CONVERT(__int2half_ru, __int2bfloat16_ru, static_cast<int>(wa));
    case 62:
      HALF_MATH_CONVERT(__ll2half_ru, __ll2bfloat16_ru, static_cast<long long>(wa));
    case 63:
      HALF_MATH_CONVERT(__ull2half_rd, __ull2bfloat16_rd, wa);
    case 64: {
      const float2 f{as_float(wa), as_float(wb)};
      if constexpr (half)
        return pair_word<T>(__float22half2_rn(f));
      else
        return pair_word<T>(__float22bfloat162_rn(f));
    }
    case 65: {
      float2 f;
      if constexpr (half)
        f = __half22float2(pa);
      else
        f = __bfloat1622float2(pa);
      return float_word(f.x) | (float_word(f.y) << 32);
    }
    case 66:
      return word<T>(htanh_approx(a));
    case 67:
      return word<T>(__hsub_sat(a, b));
    case 68:
      return word<T>(__hsub_rn(a, b));
    case 69:
      return pair_word<T>(__hmul2_sat(pa, pb));
    case 70:
      return pair_word<T>(__hfma2_sat(pa, pb, pc));
    case 71:
      return pair_word<T>(__hneg2(pa));
    case 72:
      return pair_word<T>(__habs2(pa));
    case 73:
      return pair_word<T>(__hmax2(pa, pb));
    case 74:
      return pair_word<T>(__hmin2_nan(pa, pb));
    case 75:
      return __hle2_mask(pa, pb);
    case 76:
      return pair_word<T>(h2rcp(pa));
    case 77:
      return pair_word<T>(h2rsqrt(pa));
    case 78:
      return pair_word<T>(h2exp2(pa));
    case 79:
      return pair_word<T>(h2exp10(pa));
    case 80:
      return pair_word<T>(h2log(pa));
    case 81:
      return pair_word<T>(h2log2(pa));
    case 82:
      return pair_word<T>(h2log10(pa));
    case 83:
      return pair_word<T>(h2sin(pa));
    case 84:
      return pair_word<T>(h2cos(pa));
    case 85:
      return pair_word<T>(h2tanh(pa));
    case 86:
      return pair_word<T>(h2floor(pa));
    case 87:
      return pair_word<T>(h2ceil(pa));
    case 88:
      return pair_word<T>(h2trunc(pa));
    case 89:
      return pair_word<T>(h2rint(pa));
  }
#undef HALF_MATH_CONVERT
  return 0;
}

}  // namespace half_math_cases
