// The memcpy_async kernels on the emulator: this file's rewritten copy
// includes the rewritten copy of memcpy_async.cuh beside it, instrumented,
// with the emulator's <cuda/barrier> and <cuda/pipeline>. The planted bugs
// run here only: on a GPU they read stale bytes or hang.
#include "memcpy_async.cuh"

#include <string>

#include "cudalab/emu/recorder.hpp"

namespace memcpy_async_tests {

const Kernels& emulator_kernels() { return kernels(); }

namespace {

// Runs `launch` (which syncs nothing) and collects its reports.
template <class Launch>
PlantedReport reports_of(Launch launch) {
  PlantedReport r;
  cudalab::emu::Recording rec;
  launch();
  r.failed_launch = cudaDeviceSynchronize() != cudaSuccess;
  (void)cudaGetLastError();  // the fault is the last error too: leave none behind
  for (const cudalab::emu::Report& report : rec.last().reports) {
    const std::string file = report.file.substr(report.file.find_last_of('/') + 1);
    r.reports += std::string(to_string(report.kind)) + " at " + file + ":" +
                 std::to_string(report.line) + ": " + report.message + "\n";
  }
  return r;
}

}  // namespace

PlantedReport tiled_sum_report(Planted bug) {
  const std::vector<float> in(301, 1.5f);  // tiles of 128, 128 and 45 floats
  cudalab::DeviceBuffer<float> d_in(in), d_partial(64);
  return reports_of([&] {
    device::tiled_sum_kernel<<<1, 64>>>(d_in.data(), d_partial.data(), static_cast<int>(in.size()),
                                        128, CopyForm::one_thread, bug);
  });
}

PlantedReport pipelined_scale_report(Planted bug) {
  const std::vector<float> in(300, 1.5f);
  cudalab::DeviceBuffer<float> d_in(in), d_out(in.size());
  return reports_of([&] {
    device::pipelined_scale_kernel<3>
        <<<2, 64>>>(d_in.data(), d_out.data(), static_cast<int>(in.size()), false, bug);
  });
}

}  // namespace memcpy_async_tests
