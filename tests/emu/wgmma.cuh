// The kernels of wgmma.hpp, one source for both backends (inside the inline
// namespace CUDALAB_BACKEND, so both builds link into one program).
#pragma once

#include <cstdint>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/mbarrier.hpp"
#include "cudalab/wgmma.hpp"
#include "wgmma.hpp"

namespace wgmma_tests {
inline namespace CUDALAB_BACKEND {

// Not in an anonymous namespace: reports name kernels through their symbols.
namespace device {

using cudalab::numerics::MmaFormat;

// The bytes of K one stage holds per row: a swizzled row is its swizzle
// width; an unswizzled one 64 bytes (4 core matrices).
__host__ __device__ constexpr int stage_bytes(Layout layout) {
  return layout == Layout::swizzle_128 ? 128 : layout == Layout::swizzle_32 ? 32 : 64;
}

__host__ __device__ constexpr cudalab::WgmmaSwizzle swizzle_of(Layout layout) {
  return layout == Layout::swizzle_128  ? cudalab::WgmmaSwizzle::bytes128
         : layout == Layout::swizzle_64 ? cudalab::WgmmaSwizzle::bytes64
         : layout == Layout::swizzle_32 ? cudalab::WgmmaSwizzle::bytes32
                                        : cudalab::WgmmaSwizzle::none;
}

// The descriptor fields of a tile of `rows` rows at `base`: start, LBO, SBO.
__device__ cudalab::WgmmaDescriptorFields tile_fields(std::uint32_t base, int rows, Layout layout) {
  cudalab::WgmmaDescriptorFields f;
  f.start_address = base;
  f.swizzle = swizzle_of(layout);
  const auto chunks = static_cast<std::uint32_t>(stage_bytes(layout) / 16);
  if (layout == Layout::core_matrices_k_first) {
    f.leading_byte_offset = 128;
    f.stride_byte_offset = 128 * chunks;
  } else if (layout == Layout::core_matrices_rows_first) {
    f.leading_byte_offset = 128 * static_cast<std::uint32_t>(rows / 8);
    f.stride_byte_offset = 128;
  } else {
    f.stride_byte_offset = 8 * static_cast<std::uint32_t>(stage_bytes(layout));
  }
  return f;
}

// The descriptor of instruction `step` of a stage (32 bytes of K further each).
__device__ std::uint64_t step_descriptor(cudalab::WgmmaDescriptorFields f, int step, Planted bug) {
  if (f.swizzle == cudalab::WgmmaSwizzle::none) {
    f.start_address += 2 * f.leading_byte_offset * static_cast<std::uint32_t>(step);
  } else {
    f.start_address += 32 * static_cast<std::uint32_t>(step);
  }
  if (bug == Planted::wrong_leading_offset) f.leading_byte_offset *= 2;
  if (bug == Planted::wrong_stride_offset) f.stride_byte_offset /= 2;
  return cudalab::wgmma_descriptor(f.start_address, f.leading_byte_offset, f.stride_byte_offset,
                                   f.swizzle);
}

template <int N>
__device__ void mma_async(const Gemm& g, cudalab::WgmmaAccumulator<N>& d, std::uint64_t a,
                          std::uint64_t b, bool accumulate) {
  using cudalab::numerics::Fp8Format;
  const MmaFormat format = g.format;
  if (g.fp8 && g.fp8_a == Fp8Format::e4m3 && g.fp8_b == Fp8Format::e4m3) {
    cudalab::wgmma_e4m3<N>(d, a, b, accumulate);
  } else if (g.fp8 && g.fp8_a == Fp8Format::e5m2 && g.fp8_b == Fp8Format::e5m2) {
    cudalab::wgmma_e5m2<N>(d, a, b, accumulate);
  } else if (g.fp8 && g.fp8_a == Fp8Format::e4m3) {
    cudalab::wgmma_e4m3_e5m2<N>(d, a, b, accumulate);
  } else if (g.fp8) {
    cudalab::wgmma_e5m2_e4m3<N>(d, a, b, accumulate);
  } else if (format == MmaFormat::fp16) {
    cudalab::wgmma_f16<N>(d, a, b, accumulate);
  } else if (format == MmaFormat::bf16) {
    cudalab::wgmma_bf16<N>(d, a, b, accumulate);
  } else {
    cudalab::wgmma_tf32<N>(d, a, b, accumulate);
  }
}

// One warpgroup per 64 x N tile of C; K in stages of stage_bytes(layout)
// per row, each stage's tiles written by ordinary stores where the
// descriptors say, then consumed by one mma_async per 32 bytes of K.
template <int N>
__global__ void gemm_kernel(const std::uint32_t* a, const std::uint32_t* b_transposed, float* c,
                            Gemm g, Planted bug, bool raw_registers) {
  extern __shared__ __align__(16) std::uint8_t shared[];
  const int n = g.n, k = g.k;
  const Layout layout = g.layout;
  const int element_bytes = g.fp8 ? 1 : g.format == MmaFormat::tf32 ? 4 : 2;
  const int width = stage_bytes(layout);
  // Tiles aligned to 1024 bytes in the shared window (the 128-byte swizzle's repeat).
  const auto window = static_cast<std::uint32_t>(__cvta_generic_to_shared(shared));
  const std::uint32_t a_base = (window + 1023u) & ~1023u;
  // One A tile of 64 rows per warpgroup, one B tile all share.
  const int rows = 64 * static_cast<int>(blockDim.x / 128);
  const std::uint32_t b_base = a_base + static_cast<std::uint32_t>(rows * width);
  std::uint8_t* const at_window = shared - window;  // at_window + address: that byte
  const cudalab::WgmmaDescriptorFields a_fields = tile_fields(a_base, rows, layout);
  const cudalab::WgmmaDescriptorFields b_fields = tile_fields(b_base, N, layout);
  const int row0 = blockIdx.x * rows, column0 = blockIdx.y * N;
  const int t = threadIdx.x;
  const int warpgroup = t / 128, rank = t % 128;  // rank: the thread's place in its warpgroup
  cudalab::WgmmaDescriptorFields my_a_fields = a_fields;  // this warpgroup's 64 rows
  my_a_fields.start_address +=
      static_cast<std::uint32_t>(warpgroup) * 8u * a_fields.stride_byte_offset;
  const bool skipping = bug == Planted::warp_skips_the_wgmma && t >= 96;

  cudalab::WgmmaAccumulator<N> d;
  const int row_bytes = k * element_bytes;
  const int stages = (row_bytes + width - 1) / width;
  for (int stage = 0; stage < stages; ++stage) {
    // Every 16-byte chunk of the stage, A's rows then B's N, zero past K.
    const int chunks_per_row = width / 16;
    for (int e = t; e < (rows + N) * chunks_per_row; e += blockDim.x) {
      const int row = e / chunks_per_row, chunk = e % chunks_per_row;
      const bool is_a = row < rows;
      const int byte = stage * width + chunk * 16;
      const std::uint32_t at = cudalab::wgmma_k_major_address(is_a ? a_fields : b_fields,
                                                              is_a ? row : row - rows, chunk * 16);
      for (int i = 0; i < 16 / element_bytes; ++i) {
        const int kk = (byte / element_bytes) + i;
        const std::uint32_t bits =
            kk >= k ? 0u
            : is_a  ? a[static_cast<std::size_t>(row0 + row) * k + kk]
                    : b_transposed[static_cast<std::size_t>(column0 + row - rows) * k + kk];
        if (element_bytes == 1) {
          at_window[at + i] = static_cast<std::uint8_t>(bits);
        } else if (element_bytes == 2) {
          reinterpret_cast<std::uint16_t*>(at_window + at)[i] = static_cast<std::uint16_t>(bits);
        } else {
          reinterpret_cast<std::uint32_t*>(at_window + at)[i] = bits;
        }
      }
    }
    cudalab::fence_proxy_async_shared();  // the stores, before the tensor core reads them
    __syncthreads();
    if (!skipping) {
      if (!(bug == Planted::missing_fence && stage == 0)) cudalab::wgmma_fence(d);
      const int steps =
          (row_bytes - stage * width < width ? row_bytes - stage * width : width) / 32;
      for (int step = 0; step < steps; ++step) {
        mma_async<N>(g, d, step_descriptor(my_a_fields, step, bug),
                     step_descriptor(b_fields, step, bug), stage > 0 || step > 0);
      }
      cudalab::wgmma_commit_group();
      float early = 0.0f;
      if (bug == Planted::read_before_wait) early = d[0];
      if (bug == Planted::overwrite_before_wait && t == 0) at_window[a_base] ^= 1u;
      cudalab::wgmma_wait_group<0>(d);
      if (bug == Planted::read_before_wait) d[0] += early * 0.0f;
    }
    __syncthreads();  // before the next stage overwrites the tiles
  }
  for (int i = 0; i < d.size; ++i) {
    if (raw_registers) {  // one 64 x N tile: thread t's registers in a row of their own
      c[t * d.size + i] = d[i];
      continue;
    }
    const cudalab::numerics::MatrixCoord at = cudalab::wgmma_accumulator_element(rank, i);
    c[static_cast<std::size_t>(row0 + 64 * warpgroup + at.row) * n + column0 + at.col] = d[i];
  }
}

}  // namespace device

template <int N>
void launch_gemm(const Gemm& g, const std::uint32_t* a, const std::uint32_t* b, float* c,
                 Planted bug, bool raw_registers = false) {
  const std::size_t shared =
      1024 + static_cast<std::size_t>((64 * g.warpgroups + N) * device::stage_bytes(g.layout));
  device::gemm_kernel<N><<<dim3(g.m / (64 * g.warpgroups), g.n / N), 128 * g.warpgroups, shared>>>(
      a, b, c, g, bug, raw_registers);
}

inline std::vector<float> run(const Gemm& g, const std::vector<std::uint32_t>& a,
                              const std::vector<std::uint32_t>& b_transposed, Planted bug,
                              bool raw_registers) {
  cudalab::DeviceBuffer<std::uint32_t> d_a(a), d_b(b_transposed);
  cudalab::DeviceBuffer<float> d_c(static_cast<std::size_t>(g.m) * g.n);
  switch (g.tile_n) {
    case 8:
      launch_gemm<8>(g, d_a.data(), d_b.data(), d_c.data(), bug, raw_registers);
      break;
    case 16:
      launch_gemm<16>(g, d_a.data(), d_b.data(), d_c.data(), bug, raw_registers);
      break;
    case 32:
      launch_gemm<32>(g, d_a.data(), d_b.data(), d_c.data(), bug, raw_registers);
      break;
    case 64:
      launch_gemm<64>(g, d_a.data(), d_b.data(), d_c.data(), bug, raw_registers);
      break;
    case 128:
      launch_gemm<128>(g, d_a.data(), d_b.data(), d_c.data(), bug, raw_registers);
      break;
    default:
      launch_gemm<256>(g, d_a.data(), d_b.data(), d_c.data(), bug, raw_registers);
      break;
  }
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_c.copy_to_host();
}

inline std::vector<float> gemm(const Gemm& g, const std::vector<std::uint32_t>& a,
                               const std::vector<std::uint32_t>& b_transposed, Planted bug) {
  return run(g, a, b_transposed, bug, false);
}

inline std::vector<float> registers(const Gemm& g, const std::vector<std::uint32_t>& a,
                                    const std::vector<std::uint32_t>& b_transposed) {
  return run(g, a, b_transposed, Planted::none, true);
}

inline const Kernels& kernels() {
  static const Kernels k{&gemm, &registers};
  return k;
}

}  // namespace CUDALAB_BACKEND
}  // namespace wgmma_tests
