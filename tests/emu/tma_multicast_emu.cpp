// The TMA multicast kernel on the emulator: this file's rewritten copy
// includes the rewritten copy of tma_multicast.cuh beside it, instrumented.
// The planted bug runs here only: on a GPU it reads stale bytes.
#include "cudalab/emu/recorder.hpp"
#include "tma_multicast.cuh"

namespace tma_multicast {

const Kernels& emulator_kernels() { return kernels(); }

PlantedReport emulator_report(Planted bug, unsigned cluster) {
  PlantedReport r;
  cudalab::emu::Recording rec;
  const std::vector<int> a(kTileElements, 1), b(kTileElements * cluster, 2);
  try {
    (void)run(a, b, cluster, bug);
  } catch (const cudalab::CudaError&) {
    r.failed_launch = true;
    (void)cudaGetLastError();  // the fault is the last error too: leave none behind
  }
  for (const cudalab::emu::Report& report : rec.last().reports) {
    r.reports += std::string(to_string(report.kind)) + ": " + report.message + "\n";
  }
  return r;
}

}  // namespace tma_multicast
