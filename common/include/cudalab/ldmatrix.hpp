// PTX's ldmatrix on both backends: a warp loads 8 x 8 matrices of 16-bit
// values from shared memory straight into mma.sync fragment registers.
//
//   cudalab::ldmatrix_x4(r, row)         ldmatrix.sync.aligned.m8n8.x4.shared.b16
//   cudalab::ldmatrix_x2(r, row)         ... .x2
//   cudalab::ldmatrix_x4_trans(r, row)   ... .x4.trans.shared.b16
//   cudalab::ldmatrix_x2_trans(r, row)   ... .x2.trans
//
// Every lane passes the address of one 16-byte row (8 values) in shared
// memory, 16-byte aligned: lanes 8j .. 8j + 7 the rows 0..7 of matrix j
// (x4: lanes 0..31; x2: lanes 0..15 matter, the others' addresses are not
// read). Lane l receives in r[j] the two values of matrix j that an mma
// fragment register holds (g = l / 4, t = l % 4; the lower column in the
// low half):
//   plain    row g, columns 2t and 2t + 1
//   .trans   rows 2t and 2t + 1 of column g (the matrix transposed)
// So one x4 of a 16 x 16 tile of A (lane l pointing at row l % 16, column
// 8 (l / 16)) gives an m16n8k16 A fragment, and one x2.trans of a 16 x 8
// tile of row-major B (lane l at row l % 16) gives the B fragment.
//
// All 32 lanes of the warp must make the call together. Under nvcc it is the
// instruction (sm_75 or newer); on the emulator each lane reads its own row
// (traced: bank conflicts, races and bounds are checked as for any shared
// access) and the lanes then meet to exchange the values; a call from part
// of a warp is reported at the caller's line.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)

namespace cudalab {

__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const void* row) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

__device__ __forceinline__ void ldmatrix_x2(std::uint32_t (&r)[2], const void* row) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(address));
}

__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], const void* row) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

__device__ __forceinline__ void ldmatrix_x2_trans(std::uint32_t (&r)[2], const void* row) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(address));
}

}  // namespace cudalab

#else

#include <vector_types.h>

#include <source_location>

#include "cudalab/emu/ldmatrix_collective.hpp"

namespace cudalab {

namespace ldmatrix_detail {

// always_inline: the row's read is compiled into the caller's instrumented
// code, so the emulator traces and checks it as the kernel's own access.
template <int Matrices, bool Transpose>
[[gnu::always_inline]] inline void load(std::uint32_t* r, const void* row_address,
                                        const std::source_location& site) {
  const emu::detail::ThreadState* me = emu::detail::unseen_load(emu::detail::current_thread);
  std::uint32_t row[4] = {0, 0, 0, 0};
  if (me != nullptr && emu::detail::unseen_load(me->lane) < 8u * Matrices) {
    const uint4 values = *static_cast<const uint4*>(row_address);
    row[0] = values.x;
    row[1] = values.y;
    row[2] = values.z;
    row[3] = values.w;
  }
  emu::detail::warp_ldmatrix(Matrices, Transpose, row, r, site);
}

}  // namespace ldmatrix_detail

[[gnu::always_inline]] inline void ldmatrix_x4(
    std::uint32_t (&r)[4], const void* row,
    std::source_location site = std::source_location::current()) {
  ldmatrix_detail::load<4, false>(r, row, site);
}

[[gnu::always_inline]] inline void ldmatrix_x2(
    std::uint32_t (&r)[2], const void* row,
    std::source_location site = std::source_location::current()) {
  ldmatrix_detail::load<2, false>(r, row, site);
}

[[gnu::always_inline]] inline void ldmatrix_x4_trans(
    std::uint32_t (&r)[4], const void* row,
    std::source_location site = std::source_location::current()) {
  ldmatrix_detail::load<4, true>(r, row, site);
}

[[gnu::always_inline]] inline void ldmatrix_x2_trans(
    std::uint32_t (&r)[2], const void* row,
    std::source_location site = std::source_location::current()) {
  ldmatrix_detail::load<2, true>(r, row, site);
}

}  // namespace cudalab

#endif
