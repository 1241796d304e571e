// What a lab's backend call observed, whichever backend ran it: the types a
// lab's Backend interface returns to its tests. Backend-free (no CUDA
// runtime, no emulator headers), so a lab's backend.hpp can include it and
// the tests, the viewer and the benchmark can read it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace cudalab::harness {

// What a call should record besides the result.
struct RunOptions {
  bool trace = false;        // emulator: keep the accesses, derive coverage and sectors
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
  std::uint64_t bytes = 0;   // bytes the lanes asked for, request by request
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
  std::string first_misaligned;     // "16-byte write at element 3 of the output (byte offset 12)"
};

// The outcome of one call.
struct Observation {
  // Set when the lab code threw: the exception's type and message. The
  // output then holds what the device memory held afterwards.
  std::string error_type;  // "std::invalid_argument", "cudalab::CudaError", ...
  std::string error;
  bool failed() const { return !error_type.empty(); }

  std::optional<int> launches;  // emulator: kernels launched by the call
  std::optional<double> kernel_ms;
  bool kernel_ms_is_gpu_time = false;  // false: the emulator's wall time

  // Emulator: sanitizer-style reports (races, out-of-bounds and
  // uninitialised reads, ...) of every launch of the call, the first few in
  // full. A correct kernel has none, traced or not.
  std::vector<std::string> reports;
  std::size_t report_count = 0;

  // Emulator with RunOptions::trace only.
  std::optional<CoverageSummary> coverage;
  std::optional<SectorSummary> stores;
  std::optional<SectorSummary> loads;
  std::optional<WriteWidths> write_widths;
  std::string trace_json;  // RunOptions::export_json: the emulator's JSON export

  // Elements outside the output that changed (guard elements around it).
  std::size_t guard_elements_changed = 0;

  // Where the output lived in device memory during the call, for tools that
  // read an emulator trace of it (the viewer).
  std::uintptr_t output_address = 0;
};

// Records the exception that escaped the lab code (or a device fault seen
// afterwards) in `observation`, as type name and message.
void record_exception(Observation& observation, std::exception_ptr error);

// The device memory a call writes: `count` elements of `element_bytes` at `base`.
struct OutputRegion {
  const void* base = nullptr;
  std::size_t element_bytes = 0;
  std::size_t count = 0;
};

// Which backend runs a lab's code. The interpreter (lab 05's tile programs
// as plain loops on one CPU thread, CUDALAB_INTERPRET=1) uses the
// emulator's memory but no CUDA threads.
enum class Where { kEmulator, kGpu, kInterpreter };

// What every lab's Backend interface starts with.
class BackendBase {
 public:
  virtual ~BackendBase() = default;
  virtual std::string name() const = 0;  // "CPU emulator", "GPU NVIDIA H200"
  virtual bool is_emulator() const = 0;
};

}  // namespace cudalab::harness
