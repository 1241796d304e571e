// The kernels of tma.hpp, one source for both backends (inside the inline
// namespace CUDALAB_BACKEND, so both builds link into one program).
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/mbarrier.hpp"
#include "cudalab/tma.hpp"
#include "cudalab/tma_swizzle.hpp"
#include "tma.hpp"

namespace tma_tests {
inline namespace CUDALAB_BACKEND {

// Not in an anonymous namespace: reports name kernels through their symbols.
namespace device {

constexpr unsigned kMaxBoxBytes = 16384;

__device__ inline void load_box(void* box, const CUtensorMap* map, std::uint64_t* bar, int rank,
                                const Coordinates& at) {
  switch (rank) {
    case 1:
      cudalab::tma_load(box, map, bar, at.c[0]);
      break;
    case 2:
      cudalab::tma_load(box, map, bar, at.c[0], at.c[1]);
      break;
    case 3:
      cudalab::tma_load(box, map, bar, at.c[0], at.c[1], at.c[2]);
      break;
    case 4:
      cudalab::tma_load(box, map, bar, at.c[0], at.c[1], at.c[2], at.c[3]);
      break;
    default:
      cudalab::tma_load(box, map, bar, at.c[0], at.c[1], at.c[2], at.c[3], at.c[4]);
      break;
  }
}

__global__ void dump_box_kernel(const __grid_constant__ CUtensorMap map, int rank, Coordinates at,
                                unsigned box_bytes, unsigned shared_bytes, std::uint8_t* out,
                                Planted bug) {
  // 1024-aligned: the 128-byte swizzle's pattern starts at the box.
  __shared__ __align__(1024) std::uint8_t buffer[kMaxBoxBytes + 1024];
  __shared__ std::uint64_t full;
  std::uint8_t* box = bug == Planted::misaligned_box ? buffer + 64 : buffer;
  // A known pattern under the box: bytes the copy leaves alone stay 0xab.
  for (unsigned i = threadIdx.x; i < shared_bytes; i += blockDim.x) box[i] = 0xab;
  cudalab::fence_proxy_async_shared();  // before the copy engine writes the same bytes
  if (threadIdx.x == 0) {
    cudalab::mbarrier_init(&full, 1);
    cudalab::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    cudalab::mbarrier_arrive_expect_tx(
        &full, bug == Planted::wrong_expect_tx ? box_bytes + 16 : box_bytes);
    load_box(box, &map, &full, bug == Planted::wrong_rank ? 3 : rank, at);
  }
  if (bug == Planted::read_before_wait) out[threadIdx.x] = box[threadIdx.x];
  cudalab::mbarrier_wait_parity(&full, 0);
  for (unsigned i = threadIdx.x; i < shared_bytes; i += blockDim.x) out[i] = box[i];
}

template <class T>
__global__ void tiled_update_kernel(const __grid_constant__ CUtensorMap in,
                                    const __grid_constant__ CUtensorMap out, int box_cols,
                                    int box_rows, unsigned shared_row_bytes, unsigned span) {
  __shared__ __align__(1024) T tile[kMaxBoxBytes / sizeof(T)];
  __shared__ std::uint64_t full;
  const int x = static_cast<int>(blockIdx.x) * box_cols;
  const int y = static_cast<int>(blockIdx.y) * box_rows;
  const int elements = box_cols * box_rows;
  if (threadIdx.x == 0) {
    cudalab::mbarrier_init(&full, 1);
    cudalab::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    cudalab::mbarrier_arrive_expect_tx(&full, static_cast<unsigned>(elements * sizeof(T)));
    cudalab::tma_load(tile, &in, &full, x, y);
  }
  cudalab::mbarrier_wait_parity(&full, 0);
  // Element by element, each where the layout put it: its row padded to the
  // swizzle span where narrower, then the 16-byte chunks swizzled.
  if constexpr (std::is_same_v<T, float>) {
    for (int i = threadIdx.x; i < elements; i += blockDim.x) {
      const auto dense =
          static_cast<std::uint32_t>(i / box_cols * shared_row_bytes + i % box_cols * sizeof(T));
      T& element = tile[cudalab::tma_swizzled_address(dense, span) / sizeof(T)];
      element = 2.0f * element + 1.0f;
    }
  }
  // The threads' shared stores before the async proxy reads the tile.
  cudalab::fence_proxy_async_shared();
  __syncthreads();
  if (threadIdx.x == 0) {
    cudalab::tma_store(&out, tile, x, y);
    cudalab::bulk_commit_group();
    cudalab::bulk_wait_group_read<0>();
  }
}

}  // namespace device

inline CUtensorMap tensor_map(const Tensor& t, const void* base) {
  const auto rank = t.dims.size();
  const std::uint64_t* d = t.dims.data();
  const std::uint64_t* s = t.strides.data();
  const std::uint32_t* b = t.box.data();
  switch (rank) {
    case 1:
      return cudalab::make_tensor_map(t.type, base, {d[0]}, {}, {b[0]}, t.swizzle, t.fill);
    case 2:
      return cudalab::make_tensor_map(t.type, base, {d[0], d[1]}, {s[0]}, {b[0], b[1]}, t.swizzle,
                                      t.fill);
    case 3:
      return cudalab::make_tensor_map(t.type, base, {d[0], d[1], d[2]}, {s[0], s[1]},
                                      {b[0], b[1], b[2]}, t.swizzle, t.fill);
    case 4:
      return cudalab::make_tensor_map(t.type, base, {d[0], d[1], d[2], d[3]}, {s[0], s[1], s[2]},
                                      {b[0], b[1], b[2], b[3]}, t.swizzle, t.fill);
    default:
      return cudalab::make_tensor_map(t.type, base, {d[0], d[1], d[2], d[3], d[4]},
                                      {s[0], s[1], s[2], s[3]}, {b[0], b[1], b[2], b[3], b[4]},
                                      t.swizzle, t.fill);
  }
}

inline std::vector<std::uint8_t> dump_box(const Tensor& t, const std::vector<std::uint8_t>& data,
                                          const Coordinates& at) {
  cudalab::DeviceBuffer<std::uint8_t> d_data(data), d_out(t.shared_bytes());
  const CUtensorMap map = tensor_map(t, d_data.data());
  device::dump_box_kernel<<<1, 128>>>(
      map, static_cast<int>(t.dims.size()), at, static_cast<unsigned>(t.box_bytes()),
      static_cast<unsigned>(t.shared_bytes()), d_out.data(), Planted::none);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

inline std::vector<std::uint8_t> tiled_update(const Tensor& t,
                                              const std::vector<std::uint8_t>& data) {
  cudalab::DeviceBuffer<std::uint8_t> d_in(data),
      d_out(std::vector<std::uint8_t>(data.size(), 0xff));
  const CUtensorMap in = tensor_map(t, d_in.data());
  const CUtensorMap out = tensor_map(t, d_out.data());
  const dim3 grid((static_cast<unsigned>(t.dims[0]) + t.box[0] - 1) / t.box[0],
                  (static_cast<unsigned>(t.dims[1]) + t.box[1] - 1) / t.box[1]);
  const int cols = static_cast<int>(t.box[0]), rows = static_cast<int>(t.box[1]);
  const auto row_bytes = static_cast<unsigned>(t.shared_row_bytes());
  if (t.type == CU_TENSOR_MAP_DATA_TYPE_FLOAT32) {
    device::tiled_update_kernel<float>
        <<<grid, 64>>>(in, out, cols, rows, row_bytes, t.swizzle_span());
  } else {
    device::tiled_update_kernel<std::uint16_t>
        <<<grid, 64>>>(in, out, cols, rows, row_bytes, t.swizzle_span());
  }
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

inline const Kernels& kernels() {
  static const Kernels k{&dump_box, &tiled_update};
  return k;
}

}  // namespace CUDALAB_BACKEND
}  // namespace tma_tests
