// The emulator's side of cudalab/wgmma.hpp: what a warpgroup's wgmma calls
// hand to common/emu/warpgroup_mma.cpp.
#pragma once

#include <cstdint>
#include <source_location>

#include "cudalab/numerics/block_fma.hpp"
#include "cudalab/numerics/fp8.hpp"

namespace cudalab::emu::detail {

// What the emulator knows of one thread's accumulator object: the checks'
// state, kept beside the registers (cudalab::WgmmaAccumulator).
struct WgmmaAccumulatorState {
  std::source_location declared;
  // The thread's wgmma.fence count at the last access other than by an
  // mma_async (kNotAccessed: none since the last mma_async).
  std::uint32_t accessed_at_fence = 0;
  bool in_flight = false;       // written by an mma_async not yet waited for
  bool early_reported = false;  // one report per instruction in flight
};
inline constexpr std::uint32_t kNotAccessed = 0xffffffffu;

// The operand types of an mma_async: fp16, bf16 or tf32 for both, or fp8
// (.e4m3/.e5m2, K 32) with a format for each.
struct WgmmaTypes {
  constexpr WgmmaTypes() = default;
  constexpr WgmmaTypes(numerics::MmaFormat both) : format(both) {}
  constexpr WgmmaTypes(numerics::Fp8Format a, numerics::Fp8Format b)
      : fp8(true), fp8_a(a), fp8_b(b) {}
  numerics::MmaFormat format = numerics::MmaFormat::fp16;  // unless fp8
  bool fp8 = false;
  numerics::Fp8Format fp8_a = numerics::Fp8Format::e4m3, fp8_b = numerics::Fp8Format::e4m3;
};

// One thread's wgmma.mma_async.
struct WgmmaIssue {
  WgmmaTypes types;
  int n;
  std::uint64_t descriptor_a, descriptor_b;
  bool accumulate;
  int scale_a, scale_b;
  float* d;  // the thread's n/2 registers
  WgmmaAccumulatorState* state;
};

// An access to an accumulator by the kernel (not by wgmma): reported while
// an mma_async writing it is in flight; noted for the wgmma.fence check.
void wgmma_accumulator_access(WgmmaAccumulatorState& state);
void wgmma_fence(const std::source_location& site);
void wgmma_mma_async(const WgmmaIssue& issue, const std::source_location& site);
void wgmma_commit_group(const std::source_location& site);
void wgmma_wait_group(int pending, const std::source_location& site);

}  // namespace cudalab::emu::detail
