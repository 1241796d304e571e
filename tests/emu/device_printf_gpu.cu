// The device-printf kernels on the GPU: device_printf.cuh compiled by nvcc.
#include <string>

#include "cudalab/device_info.hpp"
#include "device_printf.cuh"

namespace device_printf {

const Kernels& gpu_kernels() { return kernels(); }

std::string gpu_unavailable_reason() { return cudalab::has_gpu() ? "" : cudalab::no_gpu_reason(); }

}  // namespace device_printf
