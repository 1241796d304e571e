// Lab 01 behind one interface, whichever backend runs it.
//
// backend_impl.hpp, built by the host compiler (CPU emulator) and by nvcc,
// includes the lab's .cuh files and implements Backend, so the tests,
// `./lab run 01` (the same tests) and the viewer run one body against either.
// Host vectors in and out; each call copies its inputs to the device, runs
// the student's host function (which launches the kernels), and copies the
// result back (cudalab/harness/device_call.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudalab/harness/launch_dims.hpp"
#include "cudalab/harness/observation.hpp"

namespace lab01::harness {

using cudalab::harness::Dims3;
using cudalab::harness::LaunchDims;
using cudalab::harness::Observation;
using cudalab::harness::RunOptions;
using Shape = std::vector<std::int64_t>;

class Backend : public cudalab::harness::BackendBase {
 public:
  // Exercise 1: a (x, y) += b (y) with the lecture kernel on the given launch shape.
  virtual Observation broadcast_sum_lecture(std::vector<float>& a, const std::vector<float>& b,
                                            int x, int y, LaunchDims launch,
                                            const RunOptions& options = {}) = 0;
  // Exercises 1 + 2: the same, with the student's launch configuration.
  virtual Observation broadcast_sum(std::vector<float>& a, const std::vector<float>& b, int x,
                                    int y, int block_size, const RunOptions& options = {}) = 0;
  // Exercise 2's launch arithmetic alone (nothing is launched): what the
  // student's broadcast_sum_launch_shape returns, or throws.
  virtual LaunchDims broadcast_sum_launch_shape(int size, int block_size) = 0;
  // Exercises 2 + 3: the coalesced mapping on the student's launch configuration.
  virtual Observation broadcast_sum_coalesced(std::vector<float>& a, const std::vector<float>& b,
                                              int x, int y, int block_size,
                                              const RunOptions& options = {}) = 0;
  // Exercise 3's kernel alone, on the given launch shape.
  virtual Observation broadcast_sum_coalesced_on(std::vector<float>& a, const std::vector<float>& b,
                                                 int x, int y, LaunchDims launch,
                                                 const RunOptions& options = {}) = 0;

  // Exercise 4: the student's shape rule (host code; throws like the lab does).
  virtual Shape broadcast_shapes(const Shape& a, const Shape& b) = 0;
  // out = a + b with broadcasting. `out` goes to the device as it is (poison
  // it first) and comes back with what the device holds afterwards.
  virtual Observation broadcast_add(std::vector<float>& out, const std::vector<float>& a,
                                    const Shape& a_shape, const std::vector<float>& b,
                                    const Shape& b_shape, int block_size,
                                    const RunOptions& options = {}) = 0;
  // The same in fp16; elements are IEEE binary16 bit patterns.
  virtual Observation broadcast_add_half(std::vector<std::uint16_t>& out,
                                         const std::vector<std::uint16_t>& a, const Shape& a_shape,
                                         const std::vector<std::uint16_t>& b, const Shape& b_shape,
                                         int block_size, const RunOptions& options = {}) = 0;

  // Exercise 5: the float4 version, on a view of a that starts `a_offset`
  // floats into its allocation (0-3: every alignment modulo 16 bytes).
  virtual Observation broadcast_sum_vec4(std::vector<float>& a, const std::vector<float>& b, int x,
                                         int y, int a_offset, int block_size,
                                         const RunOptions& options = {}) = 0;
};

// The emulator backend; always available.
std::unique_ptr<Backend> make_emulator_backend();

// The GPU backend, or nullptr with `why_not` set when there is no usable GPU.
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not = nullptr);

// The same two over solutions/, whatever the tests grade: exercise 2's launch
// shape is graded with the reference kernel, exercise 3's kernel with the
// reference launch shape.
std::unique_ptr<Backend> make_reference_emulator_backend();
std::unique_ptr<Backend> make_reference_gpu_backend(std::string* why_not = nullptr);

// The lab's host functions on device pointers, as the GPU build compiled
// them: what the benchmark times (no copies, no checks around them).
struct DeviceFunctions {
  void (*broadcast_sum)(float* a, const float* b, int x, int y, int block_size);
  void (*broadcast_sum_coalesced)(float* a, const float* b, int x, int y, int block_size);
  // broadcast_add with out = a, a of shape [x, y] and b of shape [y].
  void (*broadcast_add_in_place)(float* a, const float* b, int x, int y, int block_size);
  void (*broadcast_sum_vec4)(float* a, const float* b, int x, int y, int block_size);
};
DeviceFunctions gpu_device_functions();

}  // namespace lab01::harness
