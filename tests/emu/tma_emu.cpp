// The TMA kernels on the emulator: this file's rewritten copy includes the
// rewritten copy of tma.cuh beside it, instrumented. The planted bugs run
// here only: on a GPU they read stale bytes, hang or fault.
#include "cudalab/emu/recorder.hpp"
#include "tma.cuh"

namespace tma_tests {

const Kernels& emulator_kernels() { return kernels(); }

CUtensorMap emulator_encode(const Tensor& t, const void* base) { return tensor_map(t, base); }

PlantedReport emulator_report(Planted bug) {
  // A 16 x 64 fp32 matrix; the box is its 8 x 32 tile at (32, 8), 128-byte swizzled.
  Tensor t;
  t.dims = {64, 16};
  t.strides = {64 * 4};
  t.box = {32, 8};
  t.swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  const Coordinates at{{32, 8, 0, 0, 0}};
  PlantedReport r;
  cudalab::emu::Recording rec;
  cudalab::DeviceBuffer<std::uint8_t> d_data(std::vector<std::uint8_t>(t.bytes(), 1));
  cudalab::DeviceBuffer<std::uint8_t> d_out(t.box_bytes());
  const CUtensorMap map =
      bug == Planted::garbage_map ? CUtensorMap{} : tensor_map(t, d_data.data());
  device::dump_box_kernel<<<1, 128>>>(map, 2, at, static_cast<unsigned>(t.box_bytes()),
                                      d_out.data(), bug);
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
