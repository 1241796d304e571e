// The mbarrier kernels on the emulator: this file's rewritten copy includes
// the rewritten copy of mbarrier.cuh beside it, instrumented. The planted
// bugs run here only: on a GPU they read stale bytes or hang.
#include "mbarrier.cuh"

#include "cudalab/emu/recorder.hpp"

namespace mbarrier_tests {

const Kernels& emulator_kernels() { return kernels(); }

PlantedReport emulator_report(Planted bug) {
  const std::vector<float> in(1000, 1.5f);
  PlantedReport r;
  cudalab::emu::Recording rec;
  cudalab::DeviceBuffer<float> d_in(in), d_out(in.size());
  device::double_buffered_kernel<<<2, 64>>>(d_in.data(), d_out.data(), static_cast<int>(in.size()),
                                            96, bug);
  r.failed_launch = cudaDeviceSynchronize() != cudaSuccess;
  (void)cudaGetLastError();  // the fault is the last error too: leave none behind
  for (const cudalab::emu::Report& report : rec.last().reports) {
    r.reports += std::string(to_string(report.kind)) + ": " + report.message + "\n";
  }
  r.out = d_out.copy_to_host();
  return r;
}

}  // namespace mbarrier_tests
