// The TMA kernels on the emulator: this file's rewritten copy includes the
// rewritten copy of tma.cuh beside it, instrumented. The planted bugs run
// here only: on a GPU they read stale bytes, hang or fault.
#include <cudaTypedefs.h>

#include "cudalab/emu/recorder.hpp"
#include "tma.cuh"

namespace tma_tests {

const Kernels& emulator_kernels() { return kernels(); }

CUtensorMap emulator_encode(const Tensor& t, const void* base) { return tensor_map(t, base); }

EntryPoints emulator_entry_points() {
  EntryPoints e;
  // As CUDA's samples reach the driver: the typedef of <cudaTypedefs.h> and
  // the runtime's entry point, no libcuda.
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult found{};
  CUDA_CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode),
                                     cudaEnableDefault, &found));
  e.encode_found = found == cudaDriverEntryPointSuccess && encode != nullptr;
  if (e.encode_found) {
    alignas(128) static float matrix[8][16];
    alignas(128) CUtensorMap map;
    const cuuint64_t dims[] = {16, 8};
    const cuuint64_t strides[] = {16 * sizeof(float)};
    const cuuint32_t box[] = {16, 4};
    const cuuint32_t element_strides[] = {1, 1};
    e.encode_result =
        encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, matrix, dims, strides, box,
               element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_64B,
               CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  }
  void* other = &e;
  CUDA_CHECK(
      cudaGetDriverEntryPointByVersion("cuMemAlloc", &other, 12000, cudaEnableDefault, &found));
  e.other_is_null_and_not_found = other == nullptr && found == cudaDriverEntryPointSymbolNotFound;
  CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &other, 11080,
                                              cudaEnableDefault, &found));
  e.old_version_not_sufficient =
      other == nullptr && found == cudaDriverEntryPointVersionNotSufficent;
  return e;
}

PlantedReport emulator_report(Planted bug) {
  // A 16 x 64 fp32 matrix; the box is its 8 x 32 tile at (32, 8), 128-byte swizzled.
  Tensor t;
  t.dims = {64, 16};
  t.strides = {64 * 4};
  t.box = {32, 8};
  t.swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  const Coordinates at{{bug == Planted::misaligned_start ? 33 : 32, 8, 0, 0, 0}};
  PlantedReport r;
  cudalab::emu::Recording rec;
  cudalab::DeviceBuffer<std::uint8_t> d_data(std::vector<std::uint8_t>(t.bytes(), 1));
  cudalab::DeviceBuffer<std::uint8_t> d_out(t.box_bytes());
  const CUtensorMap map =
      bug == Planted::garbage_map ? CUtensorMap{} : tensor_map(t, d_data.data());
  device::dump_box_kernel<<<1, 128>>>(map, 2, at, static_cast<unsigned>(t.box_bytes()),
                                      static_cast<unsigned>(t.box_bytes()), d_out.data(), bug);
  r.failed_launch = cudaDeviceSynchronize() != cudaSuccess;
  (void)cudaGetLastError();  // the fault is the last error too: leave none behind
  for (const cudalab::emu::Report& report : rec.last().reports) {
    r.reports += std::string(to_string(report.kind)) + ": " + report.message + "\n";
  }
  r.load_sectors = rec.last().coalescing.loads.sectors;
  r.load_requests = rec.last().coalescing.loads.requests;
  return r;
}

}  // namespace tma_tests
