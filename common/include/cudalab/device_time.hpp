// Time inside a kernel on both backends: the GPU's global nanosecond timer.
//
//   cudalab::globaltimer_ns()   PTX %globaltimer: nanoseconds, one clock for the whole GPU
//
// A kernel that must last a given time (a stand-in for real work when a lab
// is about ordering and overlap, not arithmetic) spins on it:
//
//   const std::uint64_t start = cudalab::globaltimer_ns();
//   while (cudalab::globaltimer_ns() - start < ns) __nanosleep(1000);
//
// On the GPU that takes `ns` of wall time. On the emulator the timer reads
// the device model's modelled clock (docs/emulator.md, "The modelled clock"):
// each read moves the thread on by a short step and __nanosleep by its
// argument, so the same kernel lasts `ns` on the modelled clock, which
// cudaEventElapsedTime and the timeline read, and costs almost no host time.
// clock64() is not modelled: on the emulator it reads the host's clock.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)

namespace cudalab {

__device__ __forceinline__ std::uint64_t globaltimer_ns() {
  std::uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

}  // namespace cudalab

#else

#include "cudalab/emu/device_functions.hpp"

namespace cudalab {

inline std::uint64_t globaltimer_ns() noexcept { return emu::modelled_timer_ns(); }

}  // namespace cudalab

#endif
