// PTX's setmaxnreg on both backends: a warpgroup (four consecutive warps)
// of a warp-specialised kernel gives registers back (dec) or asks for more
// (inc), so that producer warps that only issue copies run with few
// registers and consumer warps that compute get them.
//
//   cudalab::setmaxnreg_dec<N>()   setmaxnreg.dec.sync.aligned.u32 N
//   cudalab::setmaxnreg_inc<N>()   setmaxnreg.inc.sync.aligned.u32 N
//
// N: a multiple of 8 in [24, 256] (a compile error otherwise). Every thread
// of the warpgroup executes it with the same N.
//
// On the GPU it needs sm_90a (architecture-specific features); the build's
// architectures are 90 or native (CMakeLists.txt), so a file compiled for
// plain sm_90 gets a no-op, and only targets given CUDA_ARCHITECTURES 90a
// (tests/emu's cluster tests, the labs' GPU backends where the build says
// 90: cmake/CudalabLab.cmake) run the instruction.
// On the emulator registers are not modelled: a no-op once its constraints
// are checked (N at compile time; at run time, that the block is made of
// whole warpgroups, a multiple of 128 threads), common/emu/setmaxnreg.cpp.
// Whether all four warps of a warpgroup execute it is not checked.
#pragma once

namespace cudalab {

template <unsigned N>
inline constexpr bool valid_register_count = N % 8 == 0 && N >= 24 && N <= 256;

}  // namespace cudalab

#if defined(__CUDACC__)

namespace cudalab {

template <unsigned N>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(valid_register_count<N>, "setmaxnreg: N must be a multiple of 8 in [24, 256]");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
#endif
}

template <unsigned N>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(valid_register_count<N>, "setmaxnreg: N must be a multiple of 8 in [24, 256]");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
#endif
}

}  // namespace cudalab

#else  // the emulator

#include <source_location>

namespace cudalab {

namespace emu {
// Checks that the calling thread's block is made of whole warpgroups;
// registers themselves are not modelled.
void check_setmaxnreg(unsigned count, bool increase, const std::source_location& site);
}  // namespace emu

template <unsigned N>
void setmaxnreg_dec(std::source_location site = std::source_location::current()) {
  static_assert(valid_register_count<N>, "setmaxnreg: N must be a multiple of 8 in [24, 256]");
  emu::check_setmaxnreg(N, false, site);
}

template <unsigned N>
void setmaxnreg_inc(std::source_location site = std::source_location::current()) {
  static_assert(valid_register_count<N>, "setmaxnreg: N must be a multiple of 8 in [24, 256]");
  emu::check_setmaxnreg(N, true, site);
}

}  // namespace cudalab

#endif
