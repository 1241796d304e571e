// PTX's approximate special-function instructions on both backends, for
// kernels whose inner loop is bound by them (a softmax over tiles):
//
//   cudalab::exp2_approx(x)   ex2.approx.ftz.f32: 2^x in one MUFU.EX2, a
//                             subnormal input or result flushed to zero
//
// exp2f compiles to the same MUFU.EX2 with instructions around it that keep
// subnormal results; --use_fast_math would make it exp2_approx, but for the
// whole translation unit. The instruction's error is at most 2 ulp
// (PTX ISA, ex2.approx): ex2.approx.ftz.f32 of -inf is +0, of +inf +inf, of
// NaN NaN.
//
// The emulator computes the exact 2^x (std::exp2) and flushes as the GPU
// does; the two may differ in the last two bits.
#pragma once

#if defined(__CUDACC__)

namespace cudalab {

__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace cudalab

#else

#include <cmath>
#include <limits>

namespace cudalab {

inline float exp2_approx(float x) {
  if (std::fabs(x) < std::numeric_limits<float>::min()) x = 0.0f;  // ftz: a subnormal input
  const float y = std::exp2(x);
  return y < std::numeric_limits<float>::min() ? 0.0f : y;  // ftz: a subnormal result
}

}  // namespace cudalab

#endif
