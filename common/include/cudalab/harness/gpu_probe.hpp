// Whether this machine has a GPU the labs can use, for programs built by the
// host compiler (the probe itself is compiled by nvcc).
#pragma once

#include <string>

namespace cudalab::harness {

// True when a GPU is usable; otherwise false with the reason in `why_not`.
bool gpu_available(std::string* why_not = nullptr);

// True when device 0 is a Hopper GPU (compute capability 9.0), the only one
// that runs code built for sm_90a (wgmma, setmaxnreg); otherwise false with
// the reason in `why_not`.
bool gpu_runs_sm90a(std::string* why_not = nullptr);

}  // namespace cudalab::harness
