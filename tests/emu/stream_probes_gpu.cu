// The stream probes on the GPU: stream_probes.cuh compiled by nvcc.
#include <string>

#include "cudalab/device_info.hpp"
#include "stream_probes.cuh"

namespace stream_probes {

Observation observe_on_gpu(Probe probe) {
  load_kernels();
  return observe(probe);
}

std::string gpu_unavailable_reason() { return cudalab::has_gpu() ? "" : cudalab::no_gpu_reason(); }

}  // namespace stream_probes
