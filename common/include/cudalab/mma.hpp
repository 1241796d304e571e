// One warp-wide tensor-core instruction, as PTX's mma.sync, on both backends:
//
//   cudalab::mma_m16n8k16_f16(d, a, b, c)    mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
//   cudalab::mma_m16n8k16_bf16(d, a, b, c)   ... .f32.bf16.bf16.f32
//   cudalab::mma_m16n8k8_tf32(d, a, b, c)    mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
//
// Each lane passes its own fragment registers, laid out exactly as the PTX
// ISA says (cudalab/numerics/mma_layout.hpp, docs/numerics.md):
//   a  4 registers: m16n8k16 two 16-bit values each (the lower-numbered
//      element in the low half); m16n8k8 one TF32 value (an fp32 pattern)
//   b  2 registers, likewise
//   c  4 floats, d 4 floats (d may be c)
// All 32 lanes of the warp must make the call together. Under nvcc it is the
// instruction (sm_80 or newer); on the emulator the lanes meet, the warp's D
// is computed once with numerics::mma_dot's arithmetic (the H200's, bit for
// bit), and a call from part of a warp is reported.
// There is no saturating form: PTX's mma.sync has .satfinite only for
// integer types; an f32 D keeps its infinities and NaNs.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)

namespace cudalab {

__device__ __forceinline__ void mma_m16n8k16_f16(float* d, const std::uint32_t* a,
                                                 const std::uint32_t* b, const float* c) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%10,%11,%12,%13};"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
        "f"(c[2]), "f"(c[3]));
}

__device__ __forceinline__ void mma_m16n8k16_bf16(float* d, const std::uint32_t* a,
                                                  const std::uint32_t* b, const float* c) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%10,%11,%12,%13};"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
        "f"(c[2]), "f"(c[3]));
}

__device__ __forceinline__ void mma_m16n8k8_tf32(float* d, const std::uint32_t* a,
                                                 const std::uint32_t* b, const float* c) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%10,%11,%12,%13};"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
        "f"(c[2]), "f"(c[3]));
}

}  // namespace cudalab

#else

#include <source_location>

#include "cudalab/emu/access_hooks.hpp"
#include "cudalab/emu/wmma.hpp"

namespace cudalab {

namespace mma_detail {

inline void warp_mma(emu::detail::MmaShape shape, numerics::MmaFormat format, float* d,
                     const std::uint32_t* a, const std::uint32_t* b, const float* c,
                     std::source_location site) {
#if defined(__SANITIZE_THREAD__)
  // Kernel code compiled with the emulator's instrumentation (GCC defines
  // __SANITIZE_THREAD__ there). With checks or a recording on, the registers
  // are read and D written here, each access seen by its own hook (a
  // fragment held in memory is checked and traced as any access); with both
  // off, the emulator reads and writes them and checks only their alignment,
  // and a fragment in a local array costs no hook call.
  if (emu::detail::access_hooks_on) [[unlikely]] {
    const emu::detail::MmaD result = emu::detail::warp_mma(
        shape, format, numerics::mma_k_block(format),
        emu::detail::MmaRegisters{{a[0], a[1], a[2], a[3]}, {b[0], b[1]}, {c[0], c[1], c[2], c[3]}},
        site);
    for (int i = 0; i < 4; ++i) d[i] = result.d[i];
    return;
  }
  emu::detail::warp_mma_fragments(shape, format, d, a, b, c, true, site);
#else
  emu::detail::warp_mma_fragments(shape, format, d, a, b, c, false, site);
#endif
}

}  // namespace mma_detail

inline void mma_m16n8k16_f16(float* d, const std::uint32_t* a, const std::uint32_t* b,
                             const float* c,
                             std::source_location site = std::source_location::current()) {
  mma_detail::warp_mma(emu::detail::MmaShape::m16n8k16, numerics::MmaFormat::fp16, d, a, b, c,
                       site);
}

inline void mma_m16n8k16_bf16(float* d, const std::uint32_t* a, const std::uint32_t* b,
                              const float* c,
                              std::source_location site = std::source_location::current()) {
  mma_detail::warp_mma(emu::detail::MmaShape::m16n8k16, numerics::MmaFormat::bf16, d, a, b, c,
                       site);
}

inline void mma_m16n8k8_tf32(float* d, const std::uint32_t* a, const std::uint32_t* b,
                             const float* c,
                             std::source_location site = std::source_location::current()) {
  mma_detail::warp_mma(emu::detail::MmaShape::m16n8k8, numerics::MmaFormat::tf32, d, a, b, c, site);
}

}  // namespace cudalab

#endif
