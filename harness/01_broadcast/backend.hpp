// Lab 01 behind one interface, whichever backend runs it.
//
// backend_emu.cpp (host compiler, CPU emulator) and backend_gpu.cu (nvcc)
// both include the lab's .cuh files and implement Backend, so the tests, the
// `./lab run 01` program and the benchmark run one body against either.
// Everything here is backend-free: host vectors in and out, plain structs for
// what the emulator observed. Each call copies its inputs to the device, runs
// the student's host function (which launches the kernels), and copies the
// result back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lab01::harness {

using Shape = std::vector<std::int64_t>;

// A 2-D grid of 1-D blocks, the launch shape of exercise 1.
struct Launch2D {
  unsigned grid_x = 1;
  unsigned grid_y = 1;
  unsigned block = 256;
};

// What a call should record besides the result. `trace` opens a
// cudalab::emu::Recording for the call, so it must stay false while the
// caller holds a Recording of its own (only one may be alive).
struct RunOptions {
  bool trace = false;        // emulator: record accesses, derive coverage and sectors
  bool export_json = false;  // emulator: also export the trace as JSON (for the viewer)
  bool time = false;         // time the kernels (GPU: CUDA events; emulator: wall time)
};

// How often each element of the output was written, from the emulator trace.
struct CoverageSummary {
  std::size_t elements = 0;
  std::size_t unwritten = 0;     // written 0 times
  std::size_t written_once = 0;  // written exactly once: what a correct kernel does
  std::size_t written_more = 0;  // written 2 or more times
  bool complete = true;          // false when the trace was cut short (huge launches)
  struct Element {
    std::size_t index = 0;  // flat index into the output
    std::uint32_t writes = 0;
    std::string writers;  // "block (0,0,0) thread (14,0,0) and block (1,0,0) thread (5,0,0)"
  };
  std::vector<Element> first_wrong;  // the first elements not written exactly once
};

// Global-memory requests of all launches of the call, per warp request: the
// distinct 32-byte sectors the 32 lanes touched.
struct SectorSummary {
  std::uint64_t requests = 0;
  std::uint64_t sectors = 0;
  unsigned max_sectors = 0;  // the worst single request
  double efficiency = 0;     // bytes requested / bytes moved in whole sectors
  double sectors_per_request() const {
    return requests == 0 ? 0.0 : static_cast<double>(sectors) / static_cast<double>(requests);
  }
};

// Writes to the output by access width, and writes the GPU would fault on.
struct WriteWidths {
  std::uint64_t scalar_writes = 0;  // 4 bytes or less
  std::uint64_t vector_writes = 0;  // 16 bytes
  std::uint64_t other_writes = 0;   // 8 bytes and other sizes
  std::uint64_t misaligned = 0;     // address not a multiple of the access size
  std::string first_misaligned;     // "16-byte write at element 3 of a (byte offset 12)"
};

// The outcome of one call.
struct Observation {
  // Set when the lab code threw: the exception's type and message. The
  // output vector then holds what the device memory held afterwards.
  std::string error_type;  // "std::invalid_argument", "cudalab::CudaError", ...
  std::string error;
  bool failed() const { return !error_type.empty(); }

  std::optional<int> launches;  // emulator: kernels launched by the call
  std::optional<double> kernel_ms;
  bool kernel_ms_is_gpu_time = false;  // false: the emulator's wall time

  // Emulator with RunOptions::trace only.
  std::optional<CoverageSummary> coverage;
  std::optional<SectorSummary> stores;
  std::optional<SectorSummary> loads;
  std::optional<WriteWidths> write_widths;
  std::vector<std::string> reports;  // sanitizer-style reports, the first few
  std::size_t report_count = 0;
  std::string trace_json;  // RunOptions::export_json: the emulator's JSON export

  // Elements outside the output that changed (guard elements around it).
  std::size_t guard_elements_changed = 0;

  // Where the output lived in device memory during the call, for tools that
  // read an emulator trace of it (the viewer).
  std::uintptr_t output_address = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string name() const = 0;  // "CPU emulator", "GPU NVIDIA H200"
  virtual bool is_emulator() const = 0;

  // Exercise 1: a (x, y) += b (y) with the lecture kernel on the given launch shape.
  virtual Observation broadcast_sum_lecture(std::vector<float>& a, const std::vector<float>& b,
                                            int x, int y, Launch2D launch,
                                            const RunOptions& options = {}) = 0;
  // Exercise 2: the same, with the student's launch configuration.
  virtual Observation broadcast_sum(std::vector<float>& a, const std::vector<float>& b, int x,
                                    int y, int block_size, const RunOptions& options = {}) = 0;
  // Exercise 3: the coalesced mapping.
  virtual Observation broadcast_sum_coalesced(std::vector<float>& a, const std::vector<float>& b,
                                              int x, int y, int block_size,
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

// IEEE binary16 conversions (round to nearest even), for references on the host.
std::uint16_t float_to_half_bits(float value);
float half_bits_to_float(std::uint16_t bits);

}  // namespace lab01::harness
