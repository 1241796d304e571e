// Lab 01 behind one interface, whichever backend runs it: its entry points,
// each declared once here (cudalab/harness/entry_points.hpp) and bound to the
// lab's code in backend_impl.hpp, which the host compiler (CPU emulator) and
// nvcc each build. The tests, `./lab run 01` (the same tests), the viewer and
// the benchmark call them: backend().call(entry::broadcast_sum, a, b, x, y,
// block_size) copies a and b to the device, runs the student's host function
// (which launches the kernels) on device pointers, and copies a back
// (observed: cudalab/harness/device_call.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudalab/harness/entry_points.hpp"
#include "cudalab/harness/launch_dims.hpp"

namespace lab01::harness {

using cudalab::harness::Dims3;
using cudalab::harness::Entry;
using cudalab::harness::In;
using cudalab::harness::LaunchDims;
using cudalab::harness::Observation;
using cudalab::harness::Out;
using cudalab::harness::RunOptions;
using Shape = std::vector<std::int64_t>;

namespace entry {
// Exercise 1: a (x, y) += b (y) with the lecture kernel on the given launch shape.
inline constexpr Entry<void(Out<float> a, In<float> b, int x, int y, LaunchDims launch)>
    broadcast_sum_lecture{"broadcast_sum_lecture"};
// Exercises 1 + 2: the same, with the student's launch configuration.
inline constexpr Entry<void(Out<float> a, In<float> b, int x, int y, int block_size)> broadcast_sum{
    "broadcast_sum"};
// Exercise 2's launch arithmetic alone (nothing is launched): what the
// student's broadcast_sum_launch_shape returns, or throws.
inline constexpr Entry<LaunchDims(int size, int block_size)> broadcast_sum_launch_shape{
    "broadcast_sum_launch_shape"};
// Exercises 2 + 3: the coalesced mapping on the student's launch configuration.
inline constexpr Entry<void(Out<float> a, In<float> b, int x, int y, int block_size)>
    broadcast_sum_coalesced{"broadcast_sum_coalesced"};
// Exercise 3's kernel alone, on the given launch shape.
inline constexpr Entry<void(Out<float> a, In<float> b, int x, int y, LaunchDims launch)>
    broadcast_sum_coalesced_on{"broadcast_sum_coalesced_on"};

// Exercise 4: the student's shape rule (host code; throws like the lab does).
inline constexpr Entry<Shape(Shape a, Shape b)> broadcast_shapes{"broadcast_shapes"};
// out = a + b with broadcasting. `out` goes to the device as it is (poison
// it first) and comes back with what the device holds afterwards.
inline constexpr Entry<void(Out<float> out, In<float> a, Shape a_shape, In<float> b, Shape b_shape,
                            int block_size)>
    broadcast_add{"broadcast_add"};
// The same in fp16; elements are IEEE binary16 bit patterns.
inline constexpr Entry<void(Out<std::uint16_t> out, In<std::uint16_t> a, Shape a_shape,
                            In<std::uint16_t> b, Shape b_shape, int block_size)>
    broadcast_add_half{"broadcast_add_half"};

// Exercise 5: the float4 version; Out<float>{a, k} starts a k floats into
// its allocation (0-3: every alignment modulo 16 bytes).
inline constexpr Entry<void(Out<float> a, In<float> b, int x, int y, int block_size)>
    broadcast_sum_vec4{"broadcast_sum_vec4"};
}  // namespace entry

using Backend = cudalab::harness::EntryBackend;

// The emulator backend; always available.
std::unique_ptr<Backend> make_emulator_backend();

// The GPU backend, or nullptr with `why_not` set when there is no usable GPU.
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not = nullptr);

// The same two over solutions/, whatever the tests grade: exercise 2's launch
// shape is graded with the reference kernel, exercise 3's kernel with the
// reference launch shape.
std::unique_ptr<Backend> make_reference_emulator_backend();
std::unique_ptr<Backend> make_reference_gpu_backend(std::string* why_not = nullptr);

}  // namespace lab01::harness
