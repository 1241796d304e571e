// TMA on both backends: tma.cuh holds the kernels and their launches as
// plain CUDA, compiled for the emulator (tma_emu.cpp, rewritten and
// instrumented) and by nvcc (tma_gpu.cu); test_tma.cpp runs each on both.
// The layout test compares the raw shared memory a TMA load leaves with the
// layout cudalab/tma_swizzle.hpp computes: on a GPU that proves the
// function the emulator places the bytes with.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tma_tests {

// A tensor in global memory and the box to copy of it.
struct Tensor {
  CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  unsigned element_bytes = 4;
  std::vector<std::uint64_t> dims;     // elements, dimension 0 (contiguous) first
  std::vector<std::uint64_t> strides;  // bytes, of dimensions 1 and up
  std::vector<std::uint32_t> box;      // elements
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapFloatOOBfill fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;

  std::size_t bytes() const {
    return dims.size() == 1 ? dims[0] * element_bytes : strides.back() * dims.back();
  }
  std::size_t box_bytes() const {
    std::size_t n = element_bytes;
    for (std::uint32_t b : box) n *= b;
    return n;
  }
  unsigned swizzle_span() const {
    return swizzle == CU_TENSOR_MAP_SWIZZLE_32B    ? 32
           : swizzle == CU_TENSOR_MAP_SWIZZLE_64B  ? 64
           : swizzle == CU_TENSOR_MAP_SWIZZLE_128B ? 128
                                                   : 0;
  }
  // The bytes a row of the box (dimension 0) takes in shared memory: its
  // own, or the whole swizzle span if narrower.
  std::size_t shared_row_bytes() const {
    const std::size_t row = std::size_t{box[0]} * element_bytes;
    return row < swizzle_span() ? swizzle_span() : row;
  }
  std::size_t shared_bytes() const {
    return box_bytes() / (std::size_t{box[0]} * element_bytes) * shared_row_bytes();
  }
};

struct Coordinates {
  int c[5] = {0, 0, 0, 0, 0};
};

// A bug planted in the box-dumping kernel (emulator only: on a GPU each
// reads stale bytes, hangs or faults).
enum class Planted {
  none,
  read_before_wait,  // threads read the box before waiting on its mbarrier
  wrong_expect_tx,   // the mbarrier expects 16 bytes more than the box has
  misaligned_box,    // the shared box starts 64 bytes into a 1024-aligned buffer
  misaligned_start,  // the box starts at column 33 of fp32 rows: off a 16-byte boundary
  garbage_map,       // the kernel gets a CUtensorMap of zeros
  wrong_rank,        // a 3-D load with a 2-D tensor map
};

// One backend's launches.
struct Kernels {
  // A TMA load of t's box at `at` from a tensor holding `data` (t.bytes()),
  // into shared memory filled with 0xab before, then the raw bytes of the
  // shared box (t.shared_bytes()).
  std::vector<std::uint8_t> (*dump_box)(const Tensor& t, const std::vector<std::uint8_t>& data,
                                        const Coordinates& at);
  // A 2-D tensor tiled by t's box, one block a tile: TMA load, then in shared
  // memory x -> 2x + 1 (FLOAT32; FLOAT16 tiles are left as they are), then a
  // TMA store to a second tensor of the same shape, whose bytes start as
  // 0xff: returns them.
  std::vector<std::uint8_t> (*tiled_update)(const Tensor& t, const std::vector<std::uint8_t>& data);
};

const Kernels& emulator_kernels();
const Kernels& gpu_kernels();
std::string gpu_unavailable_reason();

// The emulator's reports for a planted bug: every report's kind and message
// ("kind: message", one a line), whether the launch failed, and the launch's
// global load sectors and requests (the trace of the copy).
struct PlantedReport {
  std::string reports;
  bool failed_launch = false;
  std::uint64_t load_sectors = 0;
  std::uint64_t load_requests = 0;
};
PlantedReport emulator_report(Planted bug);

// The emulator's tensor map of t at `base` (cudalab::make_tensor_map: throws
// CudaError naming the bad argument).
CUtensorMap emulator_encode(const Tensor& t, const void* base);

// What the emulator's cudaGetDriverEntryPoint[ByVersion] answer.
struct EntryPoints {
  bool encode_found = false;                    // "cuTensorMapEncodeTiled" found ...
  CUresult encode_result = CUDA_ERROR_UNKNOWN;  // ... and encodes a valid 2-D map
  bool other_is_null_and_not_found = false;     // "cuMemAlloc": the emulator has none
  bool old_version_not_sufficient = false;      // cuTensorMapEncodeTiled asked of CUDA 11.8
};
EntryPoints emulator_entry_points();

}  // namespace tma_tests
