// The wgmma kernels on the emulator: this file's rewritten copy includes the
// rewritten copy of wgmma.cuh beside it, instrumented. The planted bugs run
// here only: on a GPU they give garbage or hang.
#include "wgmma.cuh"

#include "cudalab/emu/recorder.hpp"

namespace wgmma_tests {

const Kernels& emulator_kernels() { return kernels(); }

PlantedReport emulator_report(const Gemm& shape, const std::vector<std::uint32_t>& a,
                              const std::vector<std::uint32_t>& b_transposed, Planted bug) {
  PlantedReport r;
  cudalab::emu::Recording rec;
  cudalab::DeviceBuffer<std::uint32_t> d_a(a), d_b(b_transposed);
  cudalab::DeviceBuffer<float> d_c(static_cast<std::size_t>(shape.m) * shape.n);
  launch_gemm<16>(shape, d_a.data(), d_b.data(), d_c.data(), bug);
  r.failed_launch = cudaDeviceSynchronize() != cudaSuccess;
  (void)cudaGetLastError();  // the fault is the last error too: leave none behind
  for (const cudalab::emu::Report& report : rec.last().reports) {
    r.reports += std::string(to_string(report.kind)) + ": " + report.message + "\n";
  }
  r.c = d_c.copy_to_host();
  return r;
}

}  // namespace wgmma_tests
