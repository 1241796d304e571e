// Hopper's warpgroup tensor-core instruction, wgmma.mma_async, on both
// backends: D (64 x N, fp32) = A (64 x K) * B (K x N) + D, A and B read from
// shared memory through matrix descriptors (cudalab/wgmma_layout.hpp).
//
//   cudalab::WgmmaAccumulator<N> d;        the thread's N/2 fp32 accumulator registers
//   cudalab::wgmma_fence(d);               wgmma.fence.sync.aligned: before the first
//                                          mma_async, and after any other access to d
//   cudalab::wgmma_f16<N>(d, a, b, acc)    wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16
//   cudalab::wgmma_bf16<N>(d, a, b, acc)   ... .m64nNk16.f32.bf16.bf16
//   cudalab::wgmma_tf32<N>(d, a, b, acc)   ... .m64nNk8.f32.tf32.tf32
//   cudalab::wgmma_e4m3<N>(d, a, b, acc)   ... .m64nNk32.f32.e4m3.e4m3 (fp8; also wgmma_e5m2,
//                                          and the mixed wgmma_e4m3_e5m2, wgmma_e5m2_e4m3)
//   cudalab::wgmma_commit_group();         wgmma.commit_group.sync.aligned
//   cudalab::wgmma_wait_group<P>(d);       wgmma.wait_group.sync.aligned P: until at most
//                                          P committed groups are still in flight
//
// wgmma_fence and wgmma_wait_group take the accumulators the kernel uses
// (none, one or two): under nvcc each of their registers is pinned there
// (an empty asm that "changes" it, as CUTLASS's warpgroup_fence_operand),
// so the compiler can neither sink a write of d below the fence nor hoist
// a read of d above the wait; the instructions themselves do not name the
// registers.
//
// a and b are descriptors of K-major tiles (cudalab::wgmma_descriptor);
// acc false gives D = A * B (scale-d 0). Template arguments ScaleA and
// ScaleB (1 or -1) are PTX's imm-scale-a/b; the transpose flags are 0 (both
// operands K-major, the only layout TF32 and fp8 have). N: 8, 16, 32, 64, 128 or 256.
// All 128 threads of a warpgroup (4 consecutive warps, the first a multiple
// of 4) make each call together. Thread t of the warpgroup holds d[i] at
// wgmma_accumulator_element(t, i). The instruction is asynchronous: d must
// not be touched between the mma_async and the wait_group that completes it.
//
// Under nvcc: the instructions, for sm_90a only (other targets trap; CMake
// targets using this set CUDA_ARCHITECTURES 90a). On the emulator
// (common/emu/warpgroup_mma.cpp): the 128 threads meet, the operands are
// read from shared memory at the issue (traced as shared reads), the
// products formed with numerics' tensor-core model, and d holds a NaN
// poison until the wait_group writes the result. WgmmaAccumulator checks
// every element access there: one between mma_async and wait_group, or
// one followed by an mma_async with no wgmma_fence between, is reported;
// so is operand shared memory changed before the wait_group, and a
// warpgroup whose threads do not all arrive.
#pragma once

#include <cstdint>

#include "cudalab/wgmma_layout.hpp"

#if defined(__CUDACC__)

#include "cudalab/wgmma_ptx_operands.hpp"

namespace cudalab {

template <int N>
struct WgmmaAccumulator {
  static_assert(N == 8 || N == 16 || N == 32 || N == 64 || N == 128 || N == 256,
                "wgmma's N here: 8, 16, 32, 64, 128 or 256");
  static constexpr int size = N / 2;
  float x[N / 2];
  __device__ float& operator[](int i) { return x[i]; }
  __device__ const float& operator[](int i) const { return x[i]; }
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CUDALAB_WGMMA_AVAILABLE 1
#endif

namespace wgmma_detail {

__device__ __forceinline__ void fence_instruction() {
#if defined(CUDALAB_WGMMA_AVAILABLE)
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#else
  __trap();
#endif
}

template <int Pending>
__device__ __forceinline__ void wait_instruction() {
  static_assert(Pending >= 0 && Pending <= 7, "wgmma.wait_group takes 0 to 7");
#if defined(CUDALAB_WGMMA_AVAILABLE)
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
#else
  __trap();
#endif
}

// Pins each register of d at this point of the program.
template <int N>
__device__ __forceinline__ void pin(WgmmaAccumulator<N>& d) {
#pragma unroll
  for (int i = 0; i < N / 2; ++i) asm volatile("" : "+f"(d.x[i])::"memory");
}

}  // namespace wgmma_detail

__device__ __forceinline__ void wgmma_fence() { wgmma_detail::fence_instruction(); }
template <int N>
__device__ __forceinline__ void wgmma_fence(WgmmaAccumulator<N>& d) {
  wgmma_detail::pin(d);
  wgmma_detail::fence_instruction();
}
template <int N, int M>
__device__ __forceinline__ void wgmma_fence(WgmmaAccumulator<N>& d, WgmmaAccumulator<M>& e) {
  wgmma_detail::pin(d);
  wgmma_detail::pin(e);
  wgmma_detail::fence_instruction();
}

__device__ __forceinline__ void wgmma_commit_group() {
#if defined(CUDALAB_WGMMA_AVAILABLE)
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#else
  __trap();
#endif
}

template <int Pending>
__device__ __forceinline__ void wgmma_wait_group() {
  wgmma_detail::wait_instruction<Pending>();
}
template <int Pending, int N>
__device__ __forceinline__ void wgmma_wait_group(WgmmaAccumulator<N>& d) {
  wgmma_detail::wait_instruction<Pending>();
  wgmma_detail::pin(d);
}
template <int Pending, int N, int M>
__device__ __forceinline__ void wgmma_wait_group(WgmmaAccumulator<N>& d, WgmmaAccumulator<M>& e) {
  wgmma_detail::wait_instruction<Pending>();
  wgmma_detail::pin(d);
  wgmma_detail::pin(e);
}

// One instruction of `shape` (e.g. "k16.f32.f16.f16") and N; f16/bf16 take
// two more immediates, the transpose flags (0: K-major).
#define CUDALAB_WGMMA_ASM(n, shape, transpose)                                               \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " CUDALAB_WGMMA_SCALE_D_##n                 \
               ", 0;\nwgmma.mma_async.sync.aligned.m64n" #n shape " " CUDALAB_WGMMA_D_##n    \
               ", " CUDALAB_WGMMA_REST_##n transpose ";\n}\n"                                \
               : CUDALAB_WGMMA_D_OPERANDS_##n(d.x)                                           \
               : "l"(a), "l"(b), "r"(static_cast<int>(accumulate)), "n"(ScaleA), "n"(ScaleB) \
               : "memory")

#define CUDALAB_WGMMA_FOR_EACH_N(shape, transpose) \
  if constexpr (N == 8) {                          \
    CUDALAB_WGMMA_ASM(8, shape, transpose);        \
  } else if constexpr (N == 16) {                  \
    CUDALAB_WGMMA_ASM(16, shape, transpose);       \
  } else if constexpr (N == 32) {                  \
    CUDALAB_WGMMA_ASM(32, shape, transpose);       \
  } else if constexpr (N == 64) {                  \
    CUDALAB_WGMMA_ASM(64, shape, transpose);       \
  } else if constexpr (N == 128) {                 \
    CUDALAB_WGMMA_ASM(128, shape, transpose);      \
  } else {                                         \
    CUDALAB_WGMMA_ASM(256, shape, transpose);      \
  }

template <int N, int ScaleA = 1, int ScaleB = 1>
__device__ __forceinline__ void wgmma_f16(WgmmaAccumulator<N>& d, std::uint64_t a, std::uint64_t b,
                                          bool accumulate) {
#if defined(CUDALAB_WGMMA_AVAILABLE)
  CUDALAB_WGMMA_FOR_EACH_N("k16.f32.f16.f16", ", 0, 0")
#else
  __trap();
#endif
}

template <int N, int ScaleA = 1, int ScaleB = 1>
__device__ __forceinline__ void wgmma_bf16(WgmmaAccumulator<N>& d, std::uint64_t a, std::uint64_t b,
                                           bool accumulate) {
#if defined(CUDALAB_WGMMA_AVAILABLE)
  CUDALAB_WGMMA_FOR_EACH_N("k16.f32.bf16.bf16", ", 0, 0")
#else
  __trap();
#endif
}

template <int N, int ScaleA = 1, int ScaleB = 1>
__device__ __forceinline__ void wgmma_tf32(WgmmaAccumulator<N>& d, std::uint64_t a, std::uint64_t b,
                                           bool accumulate) {
#if defined(CUDALAB_WGMMA_AVAILABLE)
  CUDALAB_WGMMA_FOR_EACH_N("k8.f32.tf32.tf32", "")
#else
  __trap();
#endif
}

template <int N, int ScaleA = 1, int ScaleB = 1>
__device__ __forceinline__ void wgmma_e4m3(WgmmaAccumulator<N>& d, std::uint64_t a, std::uint64_t b,
                                           bool accumulate) {
#if defined(CUDALAB_WGMMA_AVAILABLE)
  CUDALAB_WGMMA_FOR_EACH_N("k32.f32.e4m3.e4m3", "")
#else
  __trap();
#endif
}

template <int N, int ScaleA = 1, int ScaleB = 1>
__device__ __forceinline__ void wgmma_e5m2(WgmmaAccumulator<N>& d, std::uint64_t a, std::uint64_t b,
                                           bool accumulate) {
#if defined(CUDALAB_WGMMA_AVAILABLE)
  CUDALAB_WGMMA_FOR_EACH_N("k32.f32.e5m2.e5m2", "")
#else
  __trap();
#endif
}

template <int N, int ScaleA = 1, int ScaleB = 1>
__device__ __forceinline__ void wgmma_e4m3_e5m2(WgmmaAccumulator<N>& d, std::uint64_t a,
                                                std::uint64_t b, bool accumulate) {
#if defined(CUDALAB_WGMMA_AVAILABLE)
  CUDALAB_WGMMA_FOR_EACH_N("k32.f32.e4m3.e5m2", "")
#else
  __trap();
#endif
}

template <int N, int ScaleA = 1, int ScaleB = 1>
__device__ __forceinline__ void wgmma_e5m2_e4m3(WgmmaAccumulator<N>& d, std::uint64_t a,
                                                std::uint64_t b, bool accumulate) {
#if defined(CUDALAB_WGMMA_AVAILABLE)
  CUDALAB_WGMMA_FOR_EACH_N("k32.f32.e5m2.e4m3", "")
#else
  __trap();
#endif
}

#undef CUDALAB_WGMMA_FOR_EACH_N
#undef CUDALAB_WGMMA_ASM

}  // namespace cudalab

#else

#include <source_location>

#include "cudalab/emu/wgmma.hpp"

namespace cudalab {

template <int N>
class WgmmaAccumulator {
 public:
  static_assert(N == 8 || N == 16 || N == 32 || N == 64 || N == 128 || N == 256,
                "wgmma's N here: 8, 16, 32, 64, 128 or 256");
  static constexpr int size = N / 2;

  // Reports name the accumulator by where it is declared (operator[] has no
  // room for the caller's line).
  WgmmaAccumulator(std::source_location site = std::source_location::current()) {
    state_.declared = site;
    emu::detail::wgmma_accumulator_access(state_);
  }
  // Each access is checked against the instructions in flight.
  float& operator[](int i) {
    emu::detail::wgmma_accumulator_access(state_);
    return x_[i];
  }
  const float& operator[](int i) const {
    emu::detail::wgmma_accumulator_access(state_);
    return x_[i];
  }

 private:
  template <int M>
  friend void wgmma_issue(WgmmaAccumulator<M>&, emu::detail::WgmmaTypes, std::uint64_t,
                          std::uint64_t, bool, int, int, std::source_location);
  float x_[N / 2];
  mutable emu::detail::WgmmaAccumulatorState state_;
};

template <int N>
void wgmma_issue(WgmmaAccumulator<N>& d, emu::detail::WgmmaTypes types, std::uint64_t a,
                 std::uint64_t b, bool accumulate, int scale_a, int scale_b,
                 std::source_location site) {
  emu::detail::wgmma_mma_async(
      emu::detail::WgmmaIssue{types, N, a, b, accumulate, scale_a, scale_b, d.x_, &d.state_}, site);
}

// The accumulators passed to the fence and the wait only matter under nvcc
// (their registers are pinned there): here a fence and a wait concern every
// accumulator of the thread.
inline void wgmma_fence(std::source_location site = std::source_location::current()) {
  emu::detail::wgmma_fence(site);
}
template <int N>
void wgmma_fence(WgmmaAccumulator<N>&,
                 std::source_location site = std::source_location::current()) {
  emu::detail::wgmma_fence(site);
}
template <int N, int M>
void wgmma_fence(WgmmaAccumulator<N>&, WgmmaAccumulator<M>&,
                 std::source_location site = std::source_location::current()) {
  emu::detail::wgmma_fence(site);
}

inline void wgmma_commit_group(std::source_location site = std::source_location::current()) {
  emu::detail::wgmma_commit_group(site);
}

template <int Pending>
void wgmma_wait_group(std::source_location site = std::source_location::current()) {
  static_assert(Pending >= 0 && Pending <= 7, "wgmma.wait_group takes 0 to 7");
  emu::detail::wgmma_wait_group(Pending, site);
}
template <int Pending, int N>
void wgmma_wait_group(WgmmaAccumulator<N>&,
                      std::source_location site = std::source_location::current()) {
  wgmma_wait_group<Pending>(site);
}
template <int Pending, int N, int M>
void wgmma_wait_group(WgmmaAccumulator<N>&, WgmmaAccumulator<M>&,
                      std::source_location site = std::source_location::current()) {
  wgmma_wait_group<Pending>(site);
}

template <int N, int ScaleA = 1, int ScaleB = 1>
void wgmma_f16(WgmmaAccumulator<N>& d, std::uint64_t a, std::uint64_t b, bool accumulate,
               std::source_location site = std::source_location::current()) {
  wgmma_issue(d, numerics::MmaFormat::fp16, a, b, accumulate, ScaleA, ScaleB, site);
}
template <int N, int ScaleA = 1, int ScaleB = 1>
void wgmma_bf16(WgmmaAccumulator<N>& d, std::uint64_t a, std::uint64_t b, bool accumulate,
                std::source_location site = std::source_location::current()) {
  wgmma_issue(d, numerics::MmaFormat::bf16, a, b, accumulate, ScaleA, ScaleB, site);
}
template <int N, int ScaleA = 1, int ScaleB = 1>
void wgmma_tf32(WgmmaAccumulator<N>& d, std::uint64_t a, std::uint64_t b, bool accumulate,
                std::source_location site = std::source_location::current()) {
  wgmma_issue(d, numerics::MmaFormat::tf32, a, b, accumulate, ScaleA, ScaleB, site);
}
template <int N, int ScaleA = 1, int ScaleB = 1>
void wgmma_e4m3(WgmmaAccumulator<N>& d, std::uint64_t a, std::uint64_t b, bool accumulate,
                std::source_location site = std::source_location::current()) {
  wgmma_issue(d, {numerics::Fp8Format::e4m3, numerics::Fp8Format::e4m3}, a, b, accumulate, ScaleA,
              ScaleB, site);
}
template <int N, int ScaleA = 1, int ScaleB = 1>
void wgmma_e5m2(WgmmaAccumulator<N>& d, std::uint64_t a, std::uint64_t b, bool accumulate,
                std::source_location site = std::source_location::current()) {
  wgmma_issue(d, {numerics::Fp8Format::e5m2, numerics::Fp8Format::e5m2}, a, b, accumulate, ScaleA,
              ScaleB, site);
}
template <int N, int ScaleA = 1, int ScaleB = 1>
void wgmma_e4m3_e5m2(WgmmaAccumulator<N>& d, std::uint64_t a, std::uint64_t b, bool accumulate,
                     std::source_location site = std::source_location::current()) {
  wgmma_issue(d, {numerics::Fp8Format::e4m3, numerics::Fp8Format::e5m2}, a, b, accumulate, ScaleA,
              ScaleB, site);
}
template <int N, int ScaleA = 1, int ScaleB = 1>
void wgmma_e5m2_e4m3(WgmmaAccumulator<N>& d, std::uint64_t a, std::uint64_t b, bool accumulate,
                     std::source_location site = std::source_location::current()) {
  wgmma_issue(d, {numerics::Fp8Format::e5m2, numerics::Fp8Format::e4m3}, a, b, accumulate, ScaleA,
              ScaleB, site);
}

}  // namespace cudalab

#endif
