// Device attributes and properties on both backends: device_attributes.cuh
// holds the queries as plain CUDA, built for the emulator
// (device_attributes_emu.cpp, rewritten) and by nvcc (device_attributes_gpu.cu);
// test_device_attributes.cpp expects the same of each.
#pragma once

#include <driver_types.h>

#include <string>
#include <vector>

namespace device_attributes {

struct Answer {
  std::string name;  // cudaDevAttrClockRate
  cudaError_t error = cudaSuccess;
  int value = 0;
};

// A cudaDeviceProp member whose value differs from its attribute's.
struct Mismatch {
  std::string member;
  long long property = 0;
  long long attribute = 0;
};

struct Kernels {
  // cudaDeviceGetAttribute on device 0 for every attribute the installed
  // headers declare (the list generated from driver_types.h).
  std::vector<Answer> (*every_declared_attribute)();
  // cudaGetDeviceProperties' members against the attribute of the same
  // meaning; empty when all agree.
  std::vector<Mismatch> (*properties_against_attributes)();
  // Errors of bad queries: {null value, device 99, attribute number 0,
  // cudaGetDeviceProperties with a null pointer}.
  std::vector<cudaError_t> (*bad_queries)();
};

const Kernels& emulator_kernels();
const Kernels& gpu_kernels();
std::string gpu_unavailable_reason();

}  // namespace device_attributes
