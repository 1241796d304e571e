// Tensor cores for kernels compiled by the host compiler: nvcuda::wmma as
// <mma.h> declares it, and the warp-wide mma.sync the emulator runs both it
// and cudalab::mma_* (cudalab/mma.hpp) on. shim.hpp includes this header, so
// a kernel file's `#include <mma.h>` (empty outside nvcc) and
// `using namespace nvcuda;` work unchanged.
//
// Arithmetic: every D element is numerics::mma_dot, the H200's block-FMA
// bit for bit (docs/numerics.md). A wmma m16n16k16 is two mma.sync
// m16n8k16 (one K-block of 16); an m16n16k8 TF32 is two m16n8k8 halves, but
// each sums its 8 products in two blocks of 4, as nvcc compiles it for sm_90
// (wmma_k_block below).
//
// Fragment element order (CUDA leaves it unspecified; kernels that touch
// x[] element-wise, as fill loops and __float_to_tf32 loops do, do not
// depend on it). With g = lane / 4 and t = lane % 4:
//   matrix_a 16x16x16 (8 per lane)  the m16n8k16 A fragment: x[i] at row
//                                   g + 8((i/2)%2), column 2t + i%2 + 8(i/4)
//   matrix_b 16x16x16 (8 per lane)  x[0..3] the m16n8k16 B fragment of
//                                   columns 0-7, x[4..7] that of 8-15
//   accumulator (8 per lane)        x[0..3] the m16n8 C fragment of columns
//                                   0-7, x[4..7] that of columns 8-15
//   matrix_a 16x16x8 tf32 (4)       the m16n8k8 A fragment
//   matrix_b 16x16x8 tf32 (4)       x[0..1] columns 0-7, x[2..3] columns 8-15
// (the real fragments of fp16 A and B hold 16 elements, each twice; these
// hold each once).
//
// load_matrix_sync and store_matrix_sync read and write through the
// kernel's own pointer, element by element, so that instrumented kernels
// see (and the emulator traces and checks) every access. Like mma_sync they
// are warp-wide: a call that not all 32 lanes make is a warp_collective
// report at the caller's line (common/emu/warp_wmma.cpp).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "cudalab/emu/thread_state.hpp"
#include "cudalab/numerics/block_fma.hpp"
#include "cudalab/numerics/mma_layout.hpp"
#include "cudalab/numerics/tf32.hpp"

namespace cudalab::emu::detail {

enum class MmaShape : std::uint8_t { m16n8k16, m16n8k8 };

// One lane's operand registers of an mma.sync m16n8k16 (A: 4 registers of
// two 16-bit values, B: 2) or m16n8k8 .tf32 (A: 4 fp32 patterns, B: 2).
struct MmaRegisters {
  std::uint32_t a[4];
  std::uint32_t b[2];
  float c[4];
};

// A lane's four D elements.
struct MmaD {
  float d[4];
};

// The warp-wide instruction (common/emu/warp_mma.cpp): waits for all 32
// lanes, gives this lane its four D elements, each summed in tensor-core
// blocks of `k_block` products. A call that not every lane of the warp makes
// is a warp_collective report at `site`, and D is NaN. Registers in and D
// out by value: the instrumented kernel code around the call then keeps its
// fragments in registers instead of passing each through a hook.
MmaD warp_mma(MmaShape shape, numerics::MmaFormat format, int k_block, MmaRegisters mine,
              const std::source_location& site);

// The same for cudalab/mma.hpp with checks and recording off: reads this
// lane's fragment registers at a, b and c and writes D to d, here in
// uninstrumented code. For kernel code compiled with the instrumentation
// (`instrumented`), a misaligned register is reported as its hook would have
// (at the call; nothing else is to be seen with checks and recording off).
void warp_mma_fragments(MmaShape shape, numerics::MmaFormat format, float* d,
                        const std::uint32_t* a, const std::uint32_t* b, const float* c,
                        bool instrumented, std::source_location site);

// The block size of a wmma::mma_sync. nvcc (CUDA 13.0, sm_90) lowers the
// m16n16k16 fp16/bf16 mma to HMMA.16816, one block of 16 as an mma.sync
// m16n8k16; but the m16n16k8 TF32 mma to HMMA.1684 instructions, blocks of
// 4, where an mma.sync m16n8k8 becomes one block of 8. Seen with cuobjdump
// and checked bit for bit on the H200 on 2026-11-30 (tests/tensor_cores).
constexpr int wmma_k_block(numerics::MmaFormat format) {
  return format == numerics::MmaFormat::tf32 ? 4 : 16;
}

inline unsigned lane_id() noexcept { return unseen_load(unseen_load(current_thread)->lane); }

template <class T>
std::uint32_t bits16(const T& value) noexcept {
  static_assert(sizeof(T) == 2);
  std::uint16_t bits;
  std::memcpy(&bits, &value, 2);
  return bits;
}

}  // namespace cudalab::emu::detail

namespace cudalab::emu::detail {
// Meets the other 31 lanes of the warp; false (and a report naming
// `instruction` at `site`) when not all of them make this call.
bool wmma_whole_warp(const char* instruction, const char* when_missing,
                     const std::source_location& site);
}  // namespace cudalab::emu::detail

namespace nvcuda::wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };
namespace precision {
struct tf32 {};
}  // namespace precision

namespace detail {

// The shapes and element types the emulator provides; anything else is a
// compile error naming the fragment.
template <class Use, int M, int N, int K, class T>
struct fragment_traits;
template <class T>
struct fragment_traits<matrix_a, 16, 16, 16, T> {
  using element = T;
  static constexpr int count = 8;
};
template <class T>
struct fragment_traits<matrix_b, 16, 16, 16, T> {
  using element = T;
  static constexpr int count = 8;
};
template <>
struct fragment_traits<matrix_a, 16, 16, 8, precision::tf32> {
  using element = float;
  static constexpr int count = 4;
};
template <>
struct fragment_traits<matrix_b, 16, 16, 8, precision::tf32> {
  using element = float;
  static constexpr int count = 4;
};
template <int K>
struct fragment_traits<accumulator, 16, 16, K, float> {
  using element = float;
  static constexpr int count = 8;
};

using ::cudalab::numerics::MatrixCoord;

// Where element i of `lane`'s fragment sits in the fragment's matrix
// (A: M x K, B: K x N, accumulator: M x N); the table in the header comment.
template <class Use, int K>
constexpr MatrixCoord element_at(int lane, int i) {
  if constexpr (std::is_same_v<Use, matrix_a>) {
    return K == 16 ? ::cudalab::numerics::m16n8k16_a_element(lane, i)
                   : ::cudalab::numerics::m16n8k8_tf32_a_element(lane, i);
  } else if constexpr (std::is_same_v<Use, matrix_b>) {
    const int per_half = K == 16 ? 4 : 2;
    const MatrixCoord in_half =
        K == 16 ? ::cudalab::numerics::m16n8k16_b_element(lane, i % per_half)
                : ::cudalab::numerics::m16n8k8_tf32_b_element(lane, i % per_half);
    return {in_half.row, in_half.col + 8 * (i / per_half)};
  } else {
    const MatrixCoord in_half = ::cudalab::numerics::m16n8_c_element(lane, i % 4);
    return {in_half.row, in_half.col + 8 * (i / 4)};
  }
}

constexpr unsigned offset(MatrixCoord at, unsigned ldm, bool row_major_memory) {
  return row_major_memory ? static_cast<unsigned>(at.row) * ldm + static_cast<unsigned>(at.col)
                          : static_cast<unsigned>(at.col) * ldm + static_cast<unsigned>(at.row);
}

}  // namespace detail

template <class Use, int M, int N, int K, class T, class Layout = void>
class fragment {
 public:
  using traits = detail::fragment_traits<Use, M, N, K, T>;
  using element_type = typename traits::element;
  using storage_element_type = element_type;
  static constexpr int num_elements = traits::count;
  element_type x[num_elements];
};

template <class Use, int M, int N, int K, class T, class Layout>
inline void fill_fragment(fragment<Use, M, N, K, T, Layout>& f,
                          const typename fragment<Use, M, N, K, T, Layout>::element_type& value) {
  for (int i = 0; i < f.num_elements; ++i) f.x[i] = value;
}

// matrix_a / matrix_b: the memory layout is the fragment's Layout.
template <class Use, int M, int N, int K, class T, class Layout, class P>
inline void load_matrix_sync(fragment<Use, M, N, K, T, Layout>& f, const P* p, unsigned ldm,
                             std::source_location site = std::source_location::current()) {
  static_assert(std::is_same_v<Layout, row_major> || std::is_same_v<Layout, col_major>,
                "load_matrix_sync without a layout_t loads matrix_a or matrix_b fragments, "
                "whose type names row_major or col_major");
  if (!::cudalab::emu::detail::wmma_whole_warp("wmma::load_matrix_sync",
                                               "the fragment is left as it was", site)) {
    return;
  }
  const int lane = static_cast<int>(::cudalab::emu::detail::lane_id());
  for (int i = 0; i < f.num_elements; ++i) {
    const auto at = detail::element_at<Use, K>(lane, i);
    f.x[i] = p[detail::offset(at, ldm, std::is_same_v<Layout, row_major>)];
  }
}

template <int M, int N, int K>
inline void load_matrix_sync(fragment<accumulator, M, N, K, float>& f, const float* p, unsigned ldm,
                             layout_t layout,
                             std::source_location site = std::source_location::current()) {
  if (!::cudalab::emu::detail::wmma_whole_warp("wmma::load_matrix_sync",
                                               "the fragment is left as it was", site)) {
    return;
  }
  const int lane = static_cast<int>(::cudalab::emu::detail::lane_id());
  for (int i = 0; i < f.num_elements; ++i) {
    f.x[i] = p[detail::offset(detail::element_at<accumulator, K>(lane, i), ldm,
                              layout == mem_row_major)];
  }
}

template <int M, int N, int K>
inline void store_matrix_sync(float* p, const fragment<accumulator, M, N, K, float>& f,
                              unsigned ldm, layout_t layout,
                              std::source_location site = std::source_location::current()) {
  if (!::cudalab::emu::detail::wmma_whole_warp("wmma::store_matrix_sync", "nothing is stored",
                                               site)) {
    return;
  }
  const int lane = static_cast<int>(::cudalab::emu::detail::lane_id());
  for (int i = 0; i < f.num_elements; ++i) {
    p[detail::offset(detail::element_at<accumulator, K>(lane, i), ldm, layout == mem_row_major)] =
        f.x[i];
  }
}

namespace detail {

template <class T>
constexpr ::cudalab::numerics::MmaFormat format_of() {
  if constexpr (std::is_same_v<T, __half>) {
    return ::cudalab::numerics::MmaFormat::fp16;
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return ::cudalab::numerics::MmaFormat::bf16;
  } else {
    static_assert(std::is_same_v<T, precision::tf32>, "wmma::mma_sync: half, bfloat16 or tf32");
    return ::cudalab::numerics::MmaFormat::tf32;
  }
}

}  // namespace detail

// D = A·B + C as two mma.sync of 16 x 8 (columns 0-7, then 8-15); d may be c.
//
// No `satf` argument, as in CUDA 13.0's <mma.h>, whose floating-point
// mma_sync overloads have none (only the integer ones do): a call with satf
// fails to compile on both backends alike. PTX removed .satfinite from
// floating-point wmma.mma in ISA 6.5, and forced through PTX 6.4, ptxas
// drops it for sm_80 and sm_90 (the cubin is byte for byte the one without
// it), so the GPU keeps the infinities and NaNs that the CUDA Programming
// Guide's satf rule (+-MAX_NORM, +0) would replace. tests/tensor_cores
// checks both on the GPU (TensorCoresGpu.Satfinite*).
template <int K, class T, class LayoutA, class LayoutB>
inline void mma_sync(fragment<accumulator, 16, 16, K, float>& d,
                     const fragment<matrix_a, 16, 16, K, T, LayoutA>& a,
                     const fragment<matrix_b, 16, 16, K, T, LayoutB>& b,
                     const fragment<accumulator, 16, 16, K, float>& c,
                     std::source_location site = std::source_location::current()) {
  namespace emu = ::cudalab::emu::detail;
  constexpr auto format = detail::format_of<T>();
  float result[8];
  for (int half = 0; half < 2; ++half) {
    emu::MmaRegisters r{};
    if constexpr (K == 16) {
      for (int i = 0; i < 4; ++i)
        r.a[i] = emu::bits16(a.x[2 * i]) | emu::bits16(a.x[2 * i + 1]) << 16;
      for (int i = 0; i < 2; ++i) {
        r.b[i] = emu::bits16(b.x[4 * half + 2 * i]) | emu::bits16(b.x[4 * half + 2 * i + 1]) << 16;
      }
    } else {
      for (int i = 0; i < 4; ++i) r.a[i] = ::cudalab::numerics::float_bits(a.x[i]);
      for (int i = 0; i < 2; ++i) r.b[i] = ::cudalab::numerics::float_bits(b.x[2 * half + i]);
    }
    for (int i = 0; i < 4; ++i) r.c[i] = c.x[4 * half + i];
    const emu::MmaD part = emu::warp_mma(K == 16 ? emu::MmaShape::m16n8k16 : emu::MmaShape::m16n8k8,
                                         format, emu::wmma_k_block(format), r, site);
    for (int i = 0; i < 4; ++i) result[4 * half + i] = part.d[i];
  }
  for (int i = 0; i < 8; ++i) d.x[i] = result[i];
}

// cvt.rna.tf32.f32: to TF32, ties away from zero (an fp32 with its low 13 bits 0).
inline float __float_to_tf32(float in) {
  return ::cudalab::numerics::fp32_to_tf32(in, ::cudalab::numerics::Tf32Rounding::ties_away);
}

}  // namespace nvcuda::wmma
